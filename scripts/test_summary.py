#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Lists every skipped test of a meson test log (testlog.json) with its reason, under "skipped, NOT passed": whole
test binaries that exited 77 and the GoogleTest cases that called GTEST_SKIP. ./test.sh prints it after the run."""
import json
import re
import sys

whole = []      # binaries that exited 77
cases = {}      # "binary: Suite.Test" -> reason (GoogleTest prints each skipped case twice: when it runs, and in the
                # closing list; the first carries the reason)
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t.get("result") == "SKIP":
        whole.append(t["name"] + " (whole test)")
    lines = (t.get("stdout", "") or "").splitlines()
    for i, l in enumerate(lines):
        # GoogleTest: "<file>:<line>: Skipped" then the reason, then "[  SKIPPED ] Suite.Test (N ms)"
        m = re.match(r"\[  SKIPPED \] (\S+\.\S+)", l)
        if not m:
            continue
        reason = ""
        for k in range(i - 1, max(i - 6, -1), -1):
            if lines[k].endswith(": Skipped"):
                reason = " ".join(x.strip() for x in lines[k + 1:i] if x.strip())
                break
        key = f'{t["name"]}: {m.group(1)}'
        if reason or key not in cases:
            cases[key] = reason
skips = whole + [f"{k} -- {r}" if r else k for k, r in cases.items()]
if skips:
    print("skipped, NOT passed (%d):" % len(skips))
    for s in skips:
        print("  " + s)
