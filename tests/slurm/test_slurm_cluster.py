#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""vmafx-batch on a real Slurm cluster started here from Debian's packages (tests/slurm/cluster.py: munged,
slurmctld and three slurmd on localhost ports, all in a temporary folder, torn down at the end):

  1. a manifest of at least 30 rows — generated clips (8-bit, 10-bit, .y4m), the shipped sample pair with VMAF v1 in
     chunks, a long generated title in chunks, and the public pairs of ../shared/testdata when they are there — is
     submitted with vmafx-batch-submit: an array job (throttled, --requeue) and a merge job after it;
  2. while tasks run, node2 is killed as by a power cut (its slurmd, its jobs' slurmstepd and their processes:
     SIGKILL) and its slurmd started again once Slurm has marked it down; the task that was lost is requeued by Slurm
     (and released at once instead of after Slurm's requeue delay);
  3. the merged table equals a single-process run of the same manifest (and of its rows whole, no chunks), byte for
     byte (pooled values and every frame), every row exactly once;
  4. a second submission of the whole manifest (on the node with two GPUs as GRES when the test can make them) does
     nothing: every task says it is done already, no result file is rewritten, the merge job writes the same table.
Exit 77 (SKIP) with the exact reason when the cluster cannot start here (not root, a program missing, Slurm built
without multiple slurmd). Usage: test_slurm_cluster.py VMAFX_BATCH SOURCE_ROOT"""
import glob
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "batch"))
import clips  # noqa: E402
from cluster import Cluster, Failed, Unavailable, descendants, missing_requirements  # noqa: E402

BATCH = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else shutil.which("vmafx-batch")
SRC = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else os.path.join(HERE, "..", "..")
SUBMIT = os.path.join(SRC, "scripts", "slurm", "vmafx-batch-submit")
T0 = time.monotonic()
failures = []


def log(msg):
    print("[%6.1f s] %s" % (time.monotonic() - T0, msg), flush=True)


def check(cond, msg):
    if not cond:
        failures.append(msg)
        log("FAIL: " + msg)
    return cond


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


# ---- the catalogue ----

def build_manifest(data):
    """Writes the clips and two manifests: m.csv (with chunked rows) and whole.csv (the same rows, none chunked)."""
    rows = []  # (reference, distorted, width, height, pixel_format, bitdepth, model, feature, subsample,
    #            frame_skip_ref, frame_skip_dist, chunk_frames, tag)
    pairs = []
    r, ds = clips.write_pair(data, "g8", 64, 48, 12, strengths=(2, 5, 9))
    pairs += [(r, d, "64", "48", "", "") for d in ds]
    r, ds = clips.write_pair(data, "g10", 48, 32, 10, bitdepth=10, strengths=(3, 8))
    pairs += [(r, d, "48", "32", "420", "10") for d in ds]
    r, ds = clips.write_pair(data, "gy", 40, 30, 9, y4m=True, strengths=(4, 7))
    pairs += [(r, d, "", "", "", "") for d in ds]
    variants = [
        ("", "", "", "", ""),
        ("vmaf_v0.6.1neg", "psnr", "", "", ""),
        ("vmaf_v0.6.1", "float_ssim;motion=motion_five_frame_window=true", "2", "", ""),
        ("vmaf_4k_v0.6.1:name=vmaf4k", "psnr=enable_chroma=false", "", "1", "1"),
    ]
    for p in pairs:
        for v in variants:
            rows.append(p + v + ("", os.path.basename(p[1]) + " " + (v[0] or "default")))
    # A long generated title in chunks of 8, and again in chunks of 16 with float_motion.
    r, (d,) = clips.write_pair(data, "long", 64, 48, 64, seed=3, strengths=(4,))
    rows.append((r, d, "64", "48", "", "", "", "motion=motion_moving_average=true", "", "", "", "8", "long in 8"))
    rows.append((r, d, "64", "48", "", "", "vmaf_v0.6.1", "float_motion", "", "", "", "16", "long in 16"))
    # The shipped sample pair (320x240, 24 frames) with VMAF v1 (cambi needs 216 pixels on a side) in chunks of 6.
    for which in ("ref", "dist"):
        with gzip.open(os.path.join(SRC, "samples", "sample_320x240_%s.yuv.gz" % which)) as f, \
                open(os.path.join(data, "sample_%s.yuv" % which), "wb") as out:
            out.write(f.read())
    rows.append((os.path.join(data, "sample_ref.yuv"), os.path.join(data, "sample_dist.yuv"), "320", "240", "", "",
                 "vmaf_v1.0.16_3d0h", "", "", "", "", "6", "sample v1 in 6"))
    # The public pairs, when they are beside the checkout.
    shared = os.environ.get("VMAFX_SHARED_DIR") or os.path.join(SRC, "..", "shared")
    td = os.path.join(shared, "testdata")
    public = [("a_576x324_8b", "x264crf35", 576, 324, 8), ("a_576x324_8b", "down288", 576, 324, 8),
              ("b_576x324_10b", "x264crf33", 576, 324, 10), ("c_321x241_8b", "blurnoise", 321, 241, 8),
              ("d_1920x1080_8b", "x264crf35", 1920, 1080, 8)]
    used = 0
    for prefix, dist, w, h, bpc in public:
        ref_p, dist_p = os.path.join(td, prefix + "_ref.yuv"), os.path.join(td, "%s_%s.yuv" % (prefix, dist))
        if not (os.path.exists(ref_p) and os.path.exists(dist_p)):
            continue
        used += 1
        geo = (ref_p, dist_p, str(w), str(h), "420", str(bpc))
        rows.append(geo + ("", "", "", "", "", "", prefix + " " + dist))
        if prefix != "c_321x241_8b":
            chunk = "12" if prefix == "a_576x324_8b" else ""
            rows.append(geo + ("vmaf_v1.0.16_3d0h", "", "", "", "", chunk, prefix + " " + dist + " v1"))
    header = ("reference,distorted,width,height,pixel_format,bitdepth,model,feature,subsample,frame_skip_ref,"
              "frame_skip_dist,chunk_frames,tag")
    m, whole = os.path.join(data, "m.csv"), os.path.join(data, "whole.csv")
    for path, keep_chunks in ((m, True), (whole, False)):
        with open(path, "w") as f:
            f.write(header + "\n")
            for row in rows:
                row = list(row)
                if not keep_chunks:
                    row[11] = ""
                f.write(",".join(row) + "\n")
    log("manifest: %d rows (%d of them from ../shared/testdata)" % (len(rows), sum(1 for r in rows if td in r[0])))
    return m, whole, len(rows)


def run_batch(*args, timeout=900, env=None):
    p = subprocess.run([BATCH] + list(args), capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, **(env or {})))
    if p.returncode != 0:
        raise Failed("vmafx-batch %s: exit %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p


def submit(c, env, *args):
    p = c.run([SUBMIT] + list(args), timeout=300, env=env)
    print(p.stdout, end="", flush=True)
    jobs = re.findall(r"array job (\d+)", p.stdout)
    merges = re.findall(r"merge job (\d+)", p.stdout)
    if not jobs or not merges:
        raise Failed("vmafx-batch-submit printed no job ids:\n" + p.stdout + p.stderr)
    return jobs[0], merges[0]


def release_requeued(c, job):
    """Requeued tasks wait for Slurm's requeue delay (their reason: BeginTime); start them now."""
    for line in c.squeue("-o", "%i %r").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].startswith(job + "_") and parts[1] == "BeginTime":
            c.run(["scontrol", "update", "JobId=" + parts[0], "StartTime=now"], check=False)
            log("released requeued task %s (scontrol update JobId=%s StartTime=now)" % (parts[0], parts[0]))


def wait_jobs_done(c, jobs, timeout, release=None):
    def done():
        if release:
            release_requeued(c, release)
        return c.queue_empty(set(jobs))
    c.wait("jobs %s to finish" % ",".join(jobs), done, timeout, 2.0)


def table_rows(csv_text):
    return [int(l.split(",", 1)[0]) for l in csv_text.splitlines()[1:] if l]


def main():
    why = missing_requirements()
    if why:
        print("SKIP: " + why)
        return 77
    if not BATCH or not os.access(BATCH, os.X_OK):
        print("FAIL: no vmafx-batch binary (%s)" % BATCH)
        return 1
    root = tempfile.mkdtemp(prefix="vmafx_slurm_", dir=os.environ.get("TEST_TMPDIR") or None)
    os.chmod(root, 0o755)
    data, out, ref_out = (os.path.join(root, d) for d in ("data", "out", "single"))
    os.makedirs(data)
    keep = False
    try:
        m, whole, n_rows = build_manifest(data)
        check(n_rows >= 30, "the manifest has at least 30 rows (%d)" % n_rows)
        # The jobs run vmafx-batch through a wrapper that waits VMAFX_TEST_TASK_DELAY seconds first, so that the node
        # is killed while a task runs (these clips score in milliseconds).
        wrapper = os.path.join(root, "vmafx-batch")
        with open(wrapper, "w") as f:
            f.write("#!/bin/bash\nsleep \"${VMAFX_TEST_TASK_DELAY:-0}\"\nexec %s \"$@\"\n" % BATCH)
        os.chmod(wrapper, 0o755)

        # The references: one process, every row whole; and one process over the same manifest, chunks and all.
        p = run_batch("run", whole, "--out-dir", ref_out, "--all", "--backend", "cpu")
        tasks_whole = p.stdout.count("done in")
        run_batch("merge", whole, "--out-dir", ref_out, "-o", os.path.join(root, "single.csv"), "--per-frame")
        run_batch("run", m, "--out-dir", ref_out + "_chunked", "--all", "--backend", "cpu")
        run_batch("merge", m, "--out-dir", ref_out + "_chunked", "-o", os.path.join(root, "single_chunked.csv"))
        check(read(os.path.join(root, "single_chunked.csv")) == read(os.path.join(root, "single.csv")),
              "one process: the manifest with chunks gives the table of every row whole")
        log("single-process runs: %d rows scored whole, the same manifest with its chunks" % tasks_whole)

        try:
            cluster = Cluster(os.path.join(root, "cluster"), nodes=3, cpus=[1, 1, 2], gpu_node=2, log=log)
            cluster.__enter__()
        except Unavailable as e:
            print("SKIP: the Slurm cluster cannot start here: %s" % e)
            return 77
        try:
            c = cluster
            log("cluster up: %s" % c.run(["sinfo", "-o", "%N %T %c %G"]).stdout.replace("\n", "; "))
            env = {"VMAFX_BATCH": wrapper, "VMAFX_TEST_TASK_DELAY": "1", "PATH": os.environ.get("PATH", "")}
            table = os.path.join(root, "table.csv")
            job, merge_job = submit(c, env, "--throttle", "4", "--per-frame", "--backend", "cpu", m, out, table)
            tasks = int(re.search(r"rows, (\d+) tasks", run_batch("check", m).stdout).group(1))
            log("array job %s (%d tasks), merge job %s" % (job, tasks, merge_job))

            # ---- a node dies mid-run ----
            def victim():
                if len(glob.glob(os.path.join(out, "*.result"))) < 3:
                    return None
                running = c.squeue("-w", "node2", "-t", "R", "-o", "%i").split()
                stepds = c.stepds_of_node("node2") if running else []
                # The task's own processes under its slurmstepd (the job script, vmafx-batch) have started.
                if not stepds or not any(descendants(s) for s in stepds):
                    return None
                return running[0]
            lost = c.wait("a task running on node2 after the first results", victim, 300, 0.2)
            names = {}
            for pid in [c.procs["node2"].pid] + c.stepds_of_node("node2"):
                for q in [pid] + descendants(pid):
                    try:
                        names[q] = read("/proc/%d/cmdline" % q).replace("\0", " ").strip()[:60]
                    except OSError:
                        pass
            killed = c.crash_node("node2")
            log("node2 killed while it ran task %s: SIGKILL to %s" %
                (lost, "; ".join("%d %s" % (k, names.get(k, "?")) for k in killed)))
            check(len(killed) >= 3, "slurmd, slurmstepd and the task's processes were killed")
            c.wait("Slurm to mark node2 down (SlurmdTimeout)", lambda: c.node_state("node2").startswith("down"),
                   240, 2.0)
            log("node2 is %s; starting its slurmd again" % c.node_state("node2"))
            c.start_node("node2")
            c.wait_nodes_up(["node2"], 120)
            log("node2 is back: %s" % c.node_state("node2"))
            wait_jobs_done(c, [job, merge_job], 900, release=job)
            log("array and merge jobs finished")
            lost_log = os.path.join(out, "logs", "%s_%s.out" % (job, lost.split("_")[1]))
            check(os.path.exists(lost_log) and "restart 1" in read(lost_log),
                  "the lost task %s ran again after its requeue (its log: %s)" %
                  (lost, read(lost_log) if os.path.exists(lost_log) else "none"))
            st = subprocess.run([BATCH, "status", m, "--out-dir", out], capture_output=True, text=True, timeout=300)
            print(st.stdout, end="")
            if st.returncode == 2:
                # Not requeued by Slurm: the resubmission status prints (docs/scaling.md), then the merge again.
                line = [l.strip() for l in st.stdout.splitlines() if l.strip().startswith("sbatch ")]
                check(False, "every task done after Slurm's requeue (status resubmits: %s)" % line)
                if line:
                    r = c.run(["bash", "-c", line[0].replace("sbatch ", "sbatch --parsable ", 1)], env=env)
                    wait_jobs_done(c, [r.stdout.strip().split(";")[0]], 900, release=r.stdout.strip())
                    run_batch("merge", m, "--out-dir", out, "-o", table, "--per-frame")
            else:
                check(st.returncode == 0, "status: exit %d" % st.returncode)
            merge_log = os.path.join(out, "logs", "merge-%s.out" % merge_job)
            check(os.path.exists(table), "the merge job wrote the table (its log: %s)" %
                  (read(merge_log) if os.path.exists(merge_log) else "none"))

            # ---- the table equals the single-process run, every row once ----
            if os.path.exists(table):
                single = read(os.path.join(root, "single.csv"))
                got = read(table)
                check(got == single, "the cluster's table equals the single-process table byte for byte")
                check(read(table[:-4] + ".frames.csv") == read(os.path.join(root, "single.frames.csv")),
                      "every frame equals the single-process run's")
                check(table_rows(got) == list(range(n_rows)), "every row once, in order: %s" % table_rows(got))
            results = glob.glob(os.path.join(out, "*.result"))
            check(len(results) == tasks, "one result file per task: %d files for %d tasks" % (len(results), tasks))
            check(not glob.glob(os.path.join(out, "*.failed")), "no failure record")
            logs = glob.glob(os.path.join(out, "logs", "%s_*.out" % job))
            scored = sum(read(l).count(": done in ") for l in logs)
            check(scored >= tasks, "every task scored once at least (%d times for %d tasks)" % (scored, tasks))

            # ---- a second submission does nothing ----
            before = {r: (os.stat(r).st_ino, os.stat(r).st_mtime_ns) for r in results}
            table2 = os.path.join(root, "table2.csv")
            env["VMAFX_TEST_TASK_DELAY"] = "0"
            gpus = ["--gpus", "1"] if c.gpu_node is not None else []
            job2, merge2 = submit(c, env, "--throttle", "4", *gpus, m, out, table2)
            wait_jobs_done(c, [job2, merge2], 900)
            logs2 = sorted(glob.glob(os.path.join(out, "logs", "%s_*.out" % job2)))
            text2 = "".join(read(l) for l in logs2)
            check(len(logs2) == tasks, "the second array ran %d tasks: %d logs" % (tasks, len(logs2)))
            check(text2.count("done already") == tasks and ": done in " not in text2,
                  "the second submission is a no-op: %d 'done already' for %d tasks" %
                  (text2.count("done already"), tasks))
            after = {r: (os.stat(r).st_ino, os.stat(r).st_mtime_ns) for r in glob.glob(os.path.join(out, "*.result"))}
            check(after == before, "no result file rewritten by the second submission")
            check(os.path.exists(table2) and read(table2) == read(table), "the second merge writes the same table")
            if gpus:
                seen = sorted(set(re.findall(r"CUDA_VISIBLE_DEVICES=(\S+)", text2)))
                on_gpu_node = set(re.findall(r"task \d+ on (node\d)", text2))
                check(seen and set(seen) <= {"0", "1"} and on_gpu_node == {"node3"},
                      "GPU tasks ran on node3 with a GPU each from Slurm (CUDA_VISIBLE_DEVICES %s, nodes %s)" %
                      (seen, sorted(on_gpu_node)))
                log("second submission: GPUs handed out by Slurm: CUDA_VISIBLE_DEVICES in %s" % seen)
        except Failed as e:
            check(False, str(e))
        finally:
            if failures:
                for f in ("slurmctld.log", "slurmd.node2.log"):
                    p = os.path.join(cluster.dir, "log", f)
                    if os.path.exists(p):
                        print("---- %s (end) ----\n%s" % (f, read(p)[-3000:]))
            cluster.stop()
            log("cluster torn down")
    except Failed as e:
        check(False, str(e))
    finally:
        if failures:
            keep = True
            print("kept %s for inspection" % root)
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
