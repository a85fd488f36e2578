#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""vmafx-batch's command line on generated clips, from check to merge:
  - check reports every bad row with its file, line and column, and lists the tasks;
  - run scores tasks; a row in chunks merges to the same table as the row whole (every pooled value and every frame,
    byte for byte); a second run is a no-op that leaves every result file as it was;
  - SLURM_ARRAY_TASK_ID with --pack runs tasks k*P .. k*P+P-1;
  - a task killed by SIGKILL while writing its result (test hook: mid-write, before the rename) leaves no result:
    status lists it as missing (and the temporary file), merge refuses the table until it is redone;
  - a failing row leaves a .failed record that status shows with its error, and the sbatch line that resubmits the
    missing tasks, compressed to ranges (and packs);
  - a damaged result file is not accepted.
Usage: test_batch_cli.py VMAFX_BATCH"""
import os
import pty
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clips  # noqa: E402

BATCH = sys.argv[1] if len(sys.argv) > 1 else "vmafx-batch"
TIMEOUT = 300  # seconds for any one command (a loaded 2-core machine scores these clips in a few)
failures = []


def run(*args, env=None, check_rc=None):
    e = dict(os.environ)
    for k in ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_JOB_ID", "SLURM_JOB_ID", "VMAFX_BATCH_TEST_KILL"):
        e.pop(k, None)
    e.update(env or {})
    try:
        p = subprocess.run([BATCH] + list(args), capture_output=True, text=True, env=e, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise SystemExit("vmafx-batch %s did not finish within %d s" % (" ".join(args), TIMEOUT))
    if check_rc is not None and p.returncode != check_rc:
        fail("vmafx-batch %s: exit %d, expected %d\nstdout:\n%s\nstderr:\n%s" %
             (" ".join(args), p.returncode, check_rc, p.stdout, p.stderr))
    return p


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def expect(cond, msg):
    if not cond:
        fail(msg)
    return cond


def expect_in(text, part, what):
    expect(part in text, "%s: %r not in:\n%s" % (what, part, text))


def results(out):
    return sorted(n for n in os.listdir(out) if n.endswith(".result"))


def snapshot(out):
    return {n: (os.stat(os.path.join(out, n)).st_ino, os.stat(os.path.join(out, n)).st_mtime_ns) for n in results(out)}


def read(path):
    with open(path) as f:
        return f.read()


def test_check_errors(d):
    ref, (dist,) = clips.write_pair(d, "e", 32, 24, 4)
    bad = os.path.join(d, "bad.csv")
    with open(bad, "w") as f:
        f.write("reference,distorted,width,height,feature,chunk_frames\n"
                "%s,%s,32,24,,\n" % (ref, dist) +
                "%s,%s,3x2,24,,\n" % (ref, dist) +                              # line 3: width
                "%s,%s,32,24,psnr=no_such_option=1,\n" % (ref, dist) +          # line 4: engine refuses
                "%s,%s/absent.yuv,32,24,,\n" % (ref, d) +                        # line 5: missing input
                "%s,%s,32,24,psnr=enable_apsnr=true,2\n" % (ref, dist))          # line 6: not in chunks
    p = run("check", bad, check_rc=1)
    # Syntax errors first (all of them), then nothing else runs.
    expect_in(p.stderr, bad + ":3: column 3 (width): width must be a whole number", "check")
    p = run("check", bad.replace("bad", "bad2"), check_rc=1)
    expect_in(p.stderr, "cannot open manifest", "check of an absent manifest")
    with open(bad, "w") as f:
        f.write("reference,distorted,width,height,feature,chunk_frames\n"
                "%s,%s,32,24,,\n" % (ref, dist) +
                "%s,%s,32,24,psnr=no_such_option=1,\n" % (ref, dist) +
                "%s,%s/absent.yuv,32,24,,\n" % (ref, d) +
                "%s,%s,32,24,psnr=enable_apsnr=true,2\n" % (ref, dist))
    p = run("check", bad, check_rc=1)
    expect_in(p.stderr, bad + ":3: feature psnr", "check: an option the engine refuses")
    expect_in(p.stderr, "no_such_option", "check: the option named")
    expect_in(p.stderr, bad + ":4: cannot open " + d + "/absent.yuv", "check: a missing input")
    expect_in(p.stderr, bad + ":5: chunk_frames: this row cannot be scored in chunks: psnr's enable_apsnr",
              "check: apsnr in chunks")
    expect_in(p.stderr, "3 errors", "check: the count")
    expect(bad + ":2" not in p.stderr, "check: the good row has no error:\n" + p.stderr)
    js = os.path.join(d, "bad.jsonl")
    with open(js, "w") as f:
        f.write('{"reference": "%s", "distorted": "%s", "width": 32, "height": 24}\n' % (ref, dist))
        f.write('{"reference": "%s" "distorted": 1}\n' % ref)
        f.write('{"reference": "%s", "distorted": "%s", "width": 32, "height": 24, "colour": 1}\n' % (ref, dist))
    p = run("check", js, check_rc=1)
    expect_in(p.stderr, js + ":2:", "check jsonl: syntax error line")
    expect_in(p.stderr, "not JSON", "check jsonl: syntax error")
    expect_in(p.stderr, js + ":3: key \"colour\": unknown", "check jsonl: unknown key")


def write_manifest(path, rows, header="reference,distorted,width,height,pixel_format,bitdepth,model,feature,"
                                      "subsample,chunk_frames,tag"):
    with open(path, "w") as f:
        f.write("# generated by test_batch_cli.py\n" + header + "\n")
        for r in rows:
            f.write(",".join(r) + "\n")


def main():
    tmp_root = os.environ.get("TEST_TMPDIR") or None
    d = tempfile.mkdtemp(prefix="vmafx_batch_cli_", dir=tmp_root)
    try:
        test_check_errors(d)

        # ---- a small catalogue: 8-bit raw, 10-bit raw, .y4m, a long title in chunks, subsample, features ----
        r8, (d8a, d8b) = clips.write_pair(d, "p8", 64, 48, 12, strengths=(2, 6))
        r10, (d10,) = clips.write_pair(d, "p10", 48, 32, 10, bitdepth=10, strengths=(4,))
        ry, (dy,) = clips.write_pair(d, "py", 40, 30, 9, y4m=True, strengths=(5,))
        rl, (dl,) = clips.write_pair(d, "long", 64, 48, 40, seed=3, strengths=(4,))
        rows = [
            [r8, d8a, "64", "48", "", "", "", "", "", "", "p8 d2"],
            [r8, d8b, "64", "48", "", "", "vmaf_v0.6.1;vmaf_v0.6.1neg:name=neg", "psnr;float_ssim", "", "", "p8 d6"],
            [r10, d10, "48", "32", "420", "10", "", "psnr", "", "", "10-bit"],
            [ry, dy, "", "", "", "", "", "motion=motion_five_frame_window=true", "", "", "y4m"],
            [rl, dl, "64", "48", "", "", "vmaf_v0.6.1",
             "float_motion;motion=motion_five_frame_window=true:motion_moving_average=true", "", "7",
             "\"long, in chunks\""],
            [r8, d8a, "64", "48", "", "", "", "", "3", "", "subsample 3"],
        ]
        m = os.path.join(d, "m.csv")
        write_manifest(m, rows)
        whole = os.path.join(d, "whole.csv")
        write_manifest(whole, [r[:9] + [""] + r[10:] for r in rows])
        p = run("check", m, check_rc=0)
        expect_in(p.stdout, "6 rows, 11 tasks (1 row in chunks)", "check: tasks")
        expect_in(p.stdout, "row 4: 40 frames in 6 chunks of 7: tasks 4-9", "check: the chunked row")
        expect_in(p.stdout, "--array=0-10", "check: the array")
        p = run("check", m, "--pack", "4", check_rc=0)
        expect_in(p.stdout, "--array=0-2 with --pack 4", "check --pack")

        out = os.path.join(d, "out")
        p = run("run", m, "--out-dir", out, "--all", "--backend", "cpu", check_rc=0)
        expect_in(p.stdout, "task 7: row 4 (long, in chunks) chunk 4/6 frames 21-27: scoring", "run: a chunk")
        expect(p.stdout.count("done in") == 11, "run: 11 tasks done:\n" + p.stdout)
        expect(len(results(out)) == 11, "run: 11 result files: %s" % results(out))
        run("status", m, "--out-dir", out, check_rc=0)
        table = os.path.join(d, "t.csv")
        run("merge", m, "--out-dir", out, "-o", table, "--per-frame", check_rc=0)
        run("merge", m, "--out-dir", out, "-o", os.path.join(d, "t.json"), "--per-frame", check_rc=0)
        csv = read(table)
        expect(len(csv.splitlines()) == 7, "merge: a header and 6 rows:\n" + csv)
        expect_in(csv, "\"long, in chunks\"", "merge: the tag")
        expect_in(read(os.path.join(d, "t.json")), "\"frames_scored\": [", "merge json: frames")

        # The same rows scored whole: the same table, byte for byte (pooled values and every frame).
        out_whole = os.path.join(d, "out_whole")
        run("run", whole, "--out-dir", out_whole, "--all", "--backend", "cpu", check_rc=0)
        table_whole = os.path.join(d, "tw.csv")
        run("merge", whole, "--out-dir", out_whole, "-o", table_whole, "--per-frame", check_rc=0)
        expect(read(table) == read(table_whole), "chunked and whole tables differ")
        expect(read(table[:-4] + ".frames.csv") == read(table_whole[:-4] + ".frames.csv"),
               "chunked and whole per-frame tables differ")
        frames_long = [l for l in read(table[:-4] + ".frames.csv").splitlines() if l.startswith("4,")]
        expect(len(frames_long) == 40, "the chunked row has its 40 frames: %d" % len(frames_long))
        frames_sub = [l for l in read(table[:-4] + ".frames.csv").splitlines() if l.startswith("5,")]
        expect([l.split(",")[2] for l in frames_sub] == ["0", "3", "6", "9"], "subsample 3: frames 0 3 6 9")

        # Progress: lines at each quarter in a log (above), a live line redrawn in place on a terminal.
        r_tty = os.path.join(d, "out_tty")
        master, slave = pty.openpty()
        p = subprocess.run([BATCH, "run", m, "--out-dir", r_tty, "--task", "4", "--backend", "cpu"], stdout=slave,
                           stderr=subprocess.PIPE, timeout=TIMEOUT)
        os.close(slave)
        chunks = []
        while True:
            try:
                b = os.read(master, 65536)
            except OSError:
                break
            if not b:
                break
            chunks.append(b)
        os.close(master)
        tty_out = b"".join(chunks).decode(errors="replace")
        expect(p.returncode == 0, "run on a terminal: exit %d" % p.returncode)
        expect("\r" in tty_out and "frames" in tty_out and "25%" not in tty_out,
               "run on a terminal: a live line, no quarter lines:\n%r" % tty_out)
        p = run("run", m, "--out-dir", os.path.join(d, "out_log"), "--task", "4", "--backend", "cpu", check_rc=0)
        expect("25% (" in p.stdout and "\r" not in p.stdout, "run into a log: quarter lines:\n" + p.stdout)

        # A second run does nothing: every task is done already, no file is rewritten.
        before = snapshot(out)
        p = run("run", m, "--out-dir", out, "--all", "--backend", "cpu", check_rc=0)
        expect(p.stdout.count("done already") == 11 and "done in" not in p.stdout, "rerun: no-op:\n" + p.stdout)
        expect(snapshot(out) == before, "rerun: result files changed")

        # Array tasks with packs: task k of pack 4 runs tasks 4k .. 4k+3; past the end nothing.
        p = run("run", m, "--out-dir", out, "--pack", "4", env={"SLURM_ARRAY_TASK_ID": "1"}, check_rc=0)
        expect([l.split(":")[1].strip() for l in p.stdout.splitlines() if "done already" in l] ==
               ["task 4", "task 5", "task 6", "task 7"], "pack 4, array task 1:\n" + p.stdout)
        p = run("run", m, "--out-dir", out, "--pack", "4", env={"SLURM_ARRAY_TASK_ID": "2"}, check_rc=0)
        expect(p.stdout.count("done already") == 3, "pack 4, array task 2: tasks 8-10:\n" + p.stdout)
        p = run("run", m, "--out-dir", out, "--pack", "4", env={"SLURM_ARRAY_TASK_ID": "3"}, check_rc=0)
        expect_in(p.stdout, "nothing to do", "pack 4, array task 3")
        p = run("run", m, "--out-dir", out, check_rc=1)
        expect_in(p.stderr, "SLURM_ARRAY_TASK_ID is not set", "run without a task")

        # ---- killed while writing: no result, status says so, merge refuses, a rerun repairs ----
        p = run("run", m, "--out-dir", out, "--task", "5", check_rc=0)
        key5 = [l for l in p.stdout.splitlines() if "task 5:" in l][0].rsplit("(", 1)[1].split(".result")[0]
        good5 = read(os.path.join(out, key5 + ".result"))
        for point in ("mid-write", "before-rename"):
            os.unlink(os.path.join(out, key5 + ".result"))
            p = run("run", m, "--out-dir", out, "--task", "5", env={"VMAFX_BATCH_TEST_KILL": point})
            expect(p.returncode == -signal.SIGKILL, "%s: killed by SIGKILL, got %d" % (point, p.returncode))
            expect(not os.path.exists(os.path.join(out, key5 + ".result")), point + ": no result file")
            temps = [n for n in os.listdir(out) if n.startswith(".") and n.endswith(".tmp")]
            expect(len(temps) == 1, point + ": one temporary file: %s" % temps)
            p = run("status", m, "--out-dir", out, check_rc=2)
            expect_in(p.stdout, "10 done, 0 failed, 1 missing", point + ": status")
            expect_in(p.stdout, "task 5: row 4 (long, in chunks) chunk 2/6 frames 7-13: missing", point + ": status")
            expect_in(p.stdout, "1 temporary file of writers that did not finish", point + ": status")
            expect_in(p.stdout, "--array=5 ", point + ": resubmit line")
            p = run("merge", m, "--out-dir", out, "-o", os.path.join(d, "x.csv"), check_rc=1)
            expect_in(p.stderr, "row 4 (long, in chunks): task 5 not done", point + ": merge refuses")
            expect(not os.path.exists(os.path.join(d, "x.csv")), point + ": no table written")
            for t in temps:
                os.unlink(os.path.join(out, t))
            run("run", m, "--out-dir", out, "--task", "5", check_rc=0)
            expect(read(os.path.join(out, key5 + ".result")).split("\nhost ")[0] == good5.split("\nhost ")[0],
                   point + ": the redone result has the same content")
        run("merge", m, "--out-dir", out, "-o", table, "--per-frame", check_rc=0)
        expect(read(table) == read(table_whole), "after the kills: the same table")

        # ---- status: missing tasks as ranges, a damaged result, a failed row, the recorded submission ----
        keys = {}
        p = run("run", m, "--out-dir", out, "--all", check_rc=0)
        for line in p.stdout.splitlines():
            if "done already" in line:
                keys[int(line.split("task ")[1].split(":")[0])] = line.rsplit("(", 1)[1].split(".result")[0]
        for t in (0, 1, 2, 8):
            os.unlink(os.path.join(out, keys[t] + ".result"))
        with open(os.path.join(out, keys[9] + ".result"), "r+") as f:  # cut short: not a result
            f.truncate(100)
        p = run("status", m, "--out-dir", out, check_rc=2)
        expect_in(p.stdout, "6 done, 0 failed, 5 missing", "status counts")
        expect_in(p.stdout, "task 9: row 4 (long, in chunks) chunk 6/6 frames 35-39: missing: its result file is not "
                            "valid", "status: damaged result")
        expect_in(p.stdout, "sbatch --array=0-2,8-9 /", "status: ranges")
        with open(os.path.join(out, ".vmafx-batch-submit"), "w") as f:
            f.write("sbatch --partition=gpu\nsbatch --gres=gpu:1\nthrottle 8\nscript /opt/x/vmafx-batch-array.sh\n"
                    "run --pack\nrun 2\nrun --backend\nrun hip\n")
        p = run("status", m, "--out-dir", out, check_rc=2)
        expect_in(p.stdout, "resubmit the 5 tasks (3 array tasks of 2):\n  sbatch --partition=gpu --gres=gpu:1 "
                            "--array=0-1,4%%8 /opt/x/vmafx-batch-array.sh %s %s --pack 2 --backend hip" % (m, out),
                  "status: the recorded submission")
        os.unlink(os.path.join(out, ".vmafx-batch-submit"))
        p = run("merge", m, "--out-dir", out, "-o", os.path.join(d, "partial.csv"), "--partial", check_rc=2)
        expect(len(read(os.path.join(d, "partial.csv")).splitlines()) == 1 + 2, "merge --partial: rows 3 and 5")
        run("run", m, "--out-dir", out, "--tasks", "0-2,8-9", check_rc=0)
        run("status", m, "--out-dir", out, check_rc=0)

        # A row that fails while scoring (its distorted file has part of a frame at its end): a .failed record.
        rt = clips.write_clip(os.path.join(d, "trunc_d.yuv"), 64, 48, 5, strength=3, extra=b"\x10" * 100)
        rr = clips.write_clip(os.path.join(d, "trunc_r.yuv"), 64, 48, 5)
        mf = os.path.join(d, "mf.csv")
        write_manifest(mf, rows[:2] + [[rr, rt, "64", "48", "", "", "", "", "", "", "truncated"]])
        p = run("run", mf, "--out-dir", out, "--all", check_rc=1)
        expect_in(p.stderr, "task 2: row 2 (truncated): ", "failed task: error")
        expect_in(p.stderr, "truncated", "failed task: the cause")
        expect_in(p.stderr, "1 of 3 tasks failed", "failed task: summary")
        failed = [n for n in os.listdir(out) if n.endswith(".failed")]
        expect(len(failed) == 1, "one .failed record: %s" % failed)
        p = run("status", mf, "--out-dir", out, check_rc=2)
        expect_in(p.stdout, "2 done, 1 failed, 0 missing", "status: failed")
        expect_in(p.stdout, "task 2: row 2 (truncated): failed on ", "status: failed row")
        expect_in(p.stdout, "is truncated", "status: failed row's error")
        expect_in(p.stdout, "--array=2 ", "status: resubmit the failed")
        p = run("merge", mf, "--out-dir", out, "-o", os.path.join(d, "y.csv"), check_rc=1)
        expect_in(p.stderr, "row 2 (truncated): task 2 not done", "merge: a failed row is not merged")
        # Repaired input: another identity, so another key; the old record no longer counts.
        clips.write_clip(rt, 64, 48, 5, strength=3)
        p = run("status", mf, "--out-dir", out, check_rc=2)
        expect_in(p.stdout, "2 done, 0 failed, 1 missing", "status after the repair")
        run("run", mf, "--out-dir", out, "--all", check_rc=0)
        run("status", mf, "--out-dir", out, check_rc=0)
        run("merge", mf, "--out-dir", out, "-o", os.path.join(d, "y.csv"), check_rc=0)
        p = run("status", m, "--out-dir", out, check_rc=0)
        expect_in(p.stdout, "result file of other keys", "status: results of other manifests counted")

        # An input that is gone: its tasks are missing, with the reason; merge names it.
        os.rename(d8b, d8b + ".away")
        p = run("status", m, "--out-dir", out, check_rc=2)
        expect_in(p.stdout, "task 1: row 1 (p8 d6): missing: cannot open " + d8b, "status: an input gone")
        p = run("merge", m, "--out-dir", out, "-o", os.path.join(d, "z.csv"), check_rc=1)
        expect_in(p.stderr, "row 1 (p8 d6): task 1 (cannot open " + d8b, "merge: an input gone")
        os.rename(d8b + ".away", d8b)
        run("status", m, "--out-dir", out, check_rc=0)

        # The submit helper's dry run: the sbatch lines it would run (no Slurm needed).
        submit = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "slurm",
                              "vmafx-batch-submit")
        p = subprocess.run([submit, "--dry-run", "--gpus", "2", "--throttle", "3", "--pack", "4", "--per-frame", m,
                            os.path.join(d, "dry"), os.path.join(d, "dry.csv"), "--", "--partition=x"],
                           capture_output=True, text=True, timeout=TIMEOUT, env=dict(os.environ, VMAFX_BATCH=BATCH))
        expect(p.returncode == 0, "submit --dry-run: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
        expect_in(p.stdout, "11 tasks in 3 array tasks, at most 3 at once, 4 tasks each", "submit --dry-run")
        expect_in(p.stdout, "+ sbatch --parsable --array=0-2%%3 --output=%s/dry/logs/%%A_%%a.out --gres=gpu:2 "
                            "--partition=x " % d, "submit --dry-run: the array line")
        expect_in(p.stdout, "vmafx-batch-array.sh %s %s/dry --backend hip --pack 4\n" % (m, d),
                  "submit --dry-run: the run options")
        expect_in(p.stdout, "--dependency=afterany:ARRAY_JOB", "submit --dry-run: the merge line")
        expect_in(p.stdout, "dry.csv --pack 4 -- --per-frame", "submit --dry-run: the merge options")
        expect(not os.path.exists(os.path.join(d, "dry")), "submit --dry-run creates nothing")

        # Usage errors.
        p = run("merge", m, "--out-dir", out, "-o", os.path.join(d, "t.txt"), check_rc=1)
        expect_in(p.stderr, "ends in .csv or .json", "merge: table format")
        p = run("run", m, "--out-dir", out, "--row", "6", check_rc=1)
        expect_in(p.stderr, "--rows must be a whole number from 0 to 5", "run: row out of range")
        p = run("frobnicate", m, check_rc=1)
        expect_in(p.stderr, "unknown command", "unknown command")
    finally:
        if failures:
            print("kept " + d + " for inspection")
        else:
            shutil.rmtree(d, ignore_errors=True)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
