#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what is missing, builds, and runs the whole test suite (GL tests under Xvfb + Mesa), then prints a summary.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh

xvfb_pid=""
if [ -z "${DISPLAY:-}" ] && command -v Xvfb >/dev/null; then
  for n in $(seq 90 99); do
    if [ ! -e "/tmp/.X11-unix/X$n" ] && [ ! -e "/tmp/.X$n-lock" ]; then
      Xvfb ":$n" -screen 0 1280x720x24 -nolisten tcp >/dev/null 2>&1 &
      xvfb_pid=$!
      export DISPLAY=":$n"
      sleep 1
      break
    fi
  done
fi
trap '[ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true' EXIT

status=0
meson test -C "$BUILD_DIR" --print-errorlogs --num-processes "${VMAFX_TEST_JOBS:-2}" "$@" || status=$?

echo
echo "==== vmafxhip test summary ===="
log="$BUILD_DIR/meson-logs/testlog.txt"
if [ -f "$log" ]; then
  grep -E "^ *[0-9]+/[0-9]+ " "$log" | sed 's/^ *//' || true
  grep -E "^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout): " "$log" | tail -n 6 || true
fi
if [ -f "$BUILD_DIR/meson-logs/testlog.json" ]; then
  python3 - "$BUILD_DIR/meson-logs/testlog.json" <<'PY'
import json, sys
skips = []
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t.get("result") == "SKIP":
        skips.append(t["name"] + " (whole test)")
    lines = (t.get("stdout", "") or "").splitlines()
    for i, l in enumerate(lines):
        # GoogleTest: "<file>:<line>: Skipped" then the reason, then "[  SKIPPED ] Suite.Test (N ms)"
        if l.startswith("[  SKIPPED ] ") and "test" not in l.split("]")[1][:8] and "." in l:
            reason = ""
            for k in range(i - 1, max(i - 6, -1), -1):
                if lines[k].endswith(": Skipped"):
                    reason = " ".join(x.strip() for x in lines[k + 1:i] if x.strip())
                    break
            skips.append(f'{t["name"]}: {l[13:].strip()} -- {reason}')
if skips:
    print("skipped, NOT passed (%d):" % len(skips))
    for s in skips:
        print("  " + s)
PY
fi
exit $status
