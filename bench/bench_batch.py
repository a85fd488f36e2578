#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""vmafx-batch's per-task overhead against the scoring of a 1080p 300-frame row (docs/scaling.md):

  1. one 1080p 8-bit row of 300 frames (pair d of ../shared/testdata, its 8 frames repeated; or --ref/--dist)
     scored by `vmafx-batch run` (--backend cpu by default): wall time of the process and the scoring time it
     reports; with --pack-check K also K such rows in one process against K processes (what a pack saves: on a GPU
     the runtime's start-up);
  2. the same task again, now a no-op (its result is valid): the process's wall time, i.e. the cost of starting
     vmafx-batch, reading the manifest, computing the key and checking the result;
  3. on a Slurm cluster started here (tests/slurm/cluster.py: three slurmd on this host), an array of --tasks no-op
     tasks: the wall time from sbatch until the queue is empty, per task and slot, i.e. Slurm's scheduling, job
     start-up and clean-up (the test cluster's configuration: default scheduler parameters).

    bench/bench_batch.py build/tools/vmafx-batch [--backend cpu|hip] [--threads N] [--tasks K] [--runs R]
                         [--pack-check K] [--keep DIR]
Prints each measurement and a summary; needs root for part 3 (skipped otherwise, saying why)."""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRC, "tests", "slurm"))
from cluster import Cluster, Failed, Unavailable, missing_requirements  # noqa: E402


def timed(args, env=None):
    t = time.monotonic()
    p = subprocess.run(args, capture_output=True, text=True, env=env)
    wall = time.monotonic() - t
    if p.returncode != 0:
        sys.exit("%s: exit %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return wall, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("batch")
    ap.add_argument("--ref")
    ap.add_argument("--dist")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--tasks", type=int, default=40)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--backend", default="cpu", choices=("auto", "cpu", "hip"))
    ap.add_argument("--pack-check", type=int, default=0, metavar="K",
                    help="also score K rows (300, 299, ... frames) in one process and in K processes")
    ap.add_argument("--keep")
    a = ap.parse_args()
    batch = os.path.abspath(a.batch)
    work = a.keep or tempfile.mkdtemp(prefix="vmafx_bench_batch_")
    os.makedirs(work, exist_ok=True)
    try:
        ref, dist = a.ref, a.dist
        if not ref:
            td = os.path.join(SRC, "..", "shared", "testdata")
            src_ref, src_dist = (os.path.join(td, "d_1920x1080_8b_%s.yuv" % n) for n in ("ref", "x264crf35"))
            if not (os.path.exists(src_ref) and os.path.exists(src_dist)):
                sys.exit("no 1080p pair: give --ref and --dist (1920x1080 8-bit 4:2:0 raw, 300 frames or more)")
            ref, dist = os.path.join(work, "ref.yuv"), os.path.join(work, "dist.yuv")
            for s, d in ((src_ref, ref), (src_dist, dist)):
                if not os.path.exists(d):
                    data = open(s, "rb").read()
                    with open(d, "wb") as f:
                        for _ in range(38):  # 8 frames x 38 = 304 frames
                            f.write(data)
        manifest = os.path.join(work, "m.csv")
        with open(manifest, "w") as f:
            f.write("reference,distorted,width,height,frame_cnt,tag\n%s,%s,1920,1080,300,1080p 300\n" % (ref, dist))
        for p in (ref, dist):  # into the page cache
            with open(p, "rb") as f:
                while f.read(1 << 24):
                    pass
        print("machine: %s, %d CPUs, load %s" % (os.uname().nodename, os.cpu_count(),
                                                 open("/proc/loadavg").read().split()[:3]))
        scoring, walls = [], []
        for r in range(a.runs):
            out = os.path.join(work, "out_score_%d" % r)
            shutil.rmtree(out, ignore_errors=True)
            wall, text = timed([batch, "run", manifest, "--out-dir", out, "--task", "0", "--backend", a.backend,
                                "--threads", str(a.threads)])
            m = re.search(r"done in ([0-9.]+) s \((\d+) frames, ([0-9.]+) fps", text)
            scoring.append(float(m.group(1)))
            walls.append(wall)
            backend = re.search(r"fps, ([^)]*)\)", text).group(1)
            print("score 1080p x 300, --backend %s (%s), --threads %d: process %.2f s, scoring %.2f s (%s fps)" %
                  (a.backend, backend, a.threads, wall, float(m.group(1)), m.group(3)))
        noop = []
        for r in range(10):
            wall, text = timed([batch, "run", manifest, "--out-dir", os.path.join(work, "out_score_0"), "--task", "0"])
            assert "done already" in text
            noop.append(wall)
        print("no-op task (result valid), process wall: median %.3f s (min %.3f, max %.3f, 10 runs)" %
              (statistics.median(noop), min(noop), max(noop)))
        if a.pack_check:
            # K rows of nearly the same work (different frame counts: different keys), in one process and in K.
            pm = os.path.join(work, "pack.csv")
            with open(pm, "w") as f:
                f.write("reference,distorted,width,height,frame_cnt\n")
                for k in range(a.pack_check):
                    f.write("%s,%s,1920,1080,%d\n" % (ref, dist, 300 - k))
            one, _ = timed([batch, "run", pm, "--out-dir", os.path.join(work, "pack_one"), "--all", "--backend",
                            a.backend, "--threads", str(a.threads)])
            many = 0.0
            for k in range(a.pack_check):
                w, _ = timed([batch, "run", pm, "--out-dir", os.path.join(work, "pack_many"), "--task", str(k),
                              "--backend", a.backend, "--threads", str(a.threads)])
                many += w
            print("%d rows of ~300 frames: one process %.2f s (%.3f s a row), %d processes %.2f s (%.3f s a row)" %
                  (a.pack_check, one, one / a.pack_check, a.pack_check, many, many / a.pack_check))
        slurm = packed = None
        why = missing_requirements()
        if why:
            print("Slurm part skipped: " + why)
        else:
            # K rows of a tiny pair, scored once outside Slurm, then an array of no-op tasks over them.
            tiny_r, tiny_d = os.path.join(work, "tiny_ref.yuv"), os.path.join(work, "tiny_dist.yuv")
            with open(tiny_r, "wb") as f:
                f.write(bytes(64 * 48 * 3 // 2) * 2)
            with open(tiny_d, "wb") as f:
                f.write(bytes([16]) * (64 * 48 * 3 // 2) * 2)
            tm = os.path.join(work, "tiny.csv")
            with open(tm, "w") as f:
                f.write("reference,distorted,width,height,tag\n")
                for k in range(a.tasks):
                    f.write("%s,%s,64,48,%d\n" % (tiny_r, tiny_d, k))
            # Distinct keys per row are not needed: every task finds the one result and is a no-op.
            tout = os.path.join(work, "out_tiny")
            timed([batch, "run", tm, "--out-dir", tout, "--task", "0"])
            try:
                with Cluster(os.path.join(work, "cluster"), nodes=3, cpus=[1, 1, 2], log=print) as c:
                    slots = 4
                    script = os.path.join(SRC, "scripts", "slurm", "vmafx-batch-array.sh")
                    t = time.monotonic()
                    p = c.run(["sbatch", "--parsable", "--array=0-%d" % (a.tasks - 1), "--output=" +
                               os.path.join(work, "logs", "%A_%a.out"), script, tm, tout],
                              env={"VMAFX_BATCH": batch})
                    job = p.stdout.strip().split(";")[0]
                    c.wait("the array of no-op tasks", lambda: c.queue_empty({job}), 1800, 0.2)
                    wall = time.monotonic() - t
                    slurm = wall * slots / a.tasks
                    print("Slurm: %d no-op tasks on %d slots in %.1f s: %.2f s per task and slot" %
                          (a.tasks, slots, wall, slurm))
                    # The same tasks in packs: one array task (one job start) runs `pack` of them.
                    pack = max(1, a.tasks // slots)
                    t = time.monotonic()
                    p = c.run(["sbatch", "--parsable", "--array=0-%d" % ((a.tasks + pack - 1) // pack - 1),
                               "--output=" + os.path.join(work, "logs", "%A_%a.out"), script, tm, tout,
                               "--pack", str(pack)], env={"VMAFX_BATCH": batch})
                    job = p.stdout.strip().split(";")[0]
                    c.wait("the packed array of no-op tasks", lambda: c.queue_empty({job}), 1800, 0.2)
                    wall = time.monotonic() - t
                    packed = wall * slots / a.tasks
                    print("Slurm: the same %d tasks in packs of %d (%d array tasks) in %.1f s: %.2f s per task and "
                          "slot" % (a.tasks, pack, (a.tasks + pack - 1) // pack, wall, packed))
            except (Unavailable, Failed) as e:
                print("Slurm part failed: %s" % e)
        med = statistics.median(scoring)
        print("\nsummary: 1080p 300 frames, --backend %s (--threads %d): %.2f s scoring, %.2f s the whole process "
              "(median of %d)" % (a.backend, a.threads, med, statistics.median(walls), a.runs))
        print("  vmafx-batch's own start and result check: %.3f s (%.1f %% of the scoring)" %
              (statistics.median(noop), 100 * statistics.median(noop) / med))
        if slurm is not None:
            print("  Slurm's per-task overhead on this test cluster: %.2f s per task and slot (%.1f %% of the "
                  "scoring)" % (slurm, 100 * slurm / med))
        if packed is not None:
            print("  in packs: %.2f s per task and slot (%.1f %% of the scoring)" % (packed, 100 * packed / med))
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
