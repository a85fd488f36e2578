#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what is missing, builds the test suites into build-tests/ (with the test hooks they need; the product
# build of ./run.sh, build/, is left alone) and runs them all (GL tests under Xvfb + Mesa), then prints a summary.
# Arguments go to `meson test` (e.g. --suite engine).
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh
vmafx_install_packages
BUILD_DIR="$VMAFX_ROOT/build-tests"
vmafx_build "$BUILD_DIR" "$(vmafx_test_options)"

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
  python3 scripts/test_summary.py "$BUILD_DIR/meson-logs/testlog.json"
fi
exit $status
