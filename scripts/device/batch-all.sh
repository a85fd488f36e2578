#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GPU batch "all" (after scripts/device/stage.sh with the kinds wanted; carry [".devrun", ".devdata"] and, for the
# element and GL binaries, ".devcarry"): runs every staged GPU test binary once, each under its own bound, inside
# one budget (BATCH_BUDGET seconds, default 540), and prints one summary line per binary (rc, time, gtest counts).
# Logs go to $OUT as one tar.xz (the device tool returns at most 8 files).
set -u
START=$(date +%s)
BUDGET=${BATCH_BUDGET:-540}
python3 .devdata/unpack.py .devdata
export VMAFX_SHARED_DIR=$PWD/.devdata VMAFX_SOURCE_DIR=$PWD
LOGS=/tmp/batch-logs; rm -rf "$LOGS"; mkdir -p "$LOGS"
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,pci.bus_id --format=csv,noheader; nproc; } > "$LOGS/gpu.txt" 2>&1
cat "$LOGS/gpu.txt"
if [ -f .devcarry/env.sh ]; then
  source .devcarry/env.sh
  export GST_PLUGIN_PATH_1_0=$PWD/.devrun/gst GST_REGISTRY_1_0=/tmp/gst-registry-all-$$.bin GST_REGISTRY_FORK=no
fi
R=.devrun
run() {  # name, bound in seconds, binary, args...
  local name=$1 bound=$2; shift 2
  local left=$(( BUDGET - ($(date +%s) - START) ))
  if [ ! -x "$1" ]; then echo "$name: not staged"; return; fi
  if [ "$left" -lt 20 ]; then echo "$name: not run (budget)"; return; fi
  [ "$bound" -gt "$left" ] && bound=$left
  local t0=$(date +%s)
  timeout "$bound" "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  local counts
  counts=$(grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]" "$LOGS/$name.log" | grep -v "listed below" | sort | uniq -c | \
           awk '{printf "%s %s=%s ", "", $3, $1}')
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s $counts"
  grep -E "^\[  FAILED  \] [A-Za-z]" "$LOGS/$name.log" | sort -u | head -8
}
for t in ${BATCH_TESTS:-$(cd $R && ls tests/gpu/test_* tests/gst/test_* tests/gl/test_* 2>/dev/null)}; do
  run "$(basename "$t")" 150 "$R/$t"
done
for s in ${BATCH_SCRIPTS:-}; do
  left=$(( BUDGET - ($(date +%s) - START) ))
  [ "$left" -lt 30 ] && { echo "$s: not run (budget)"; continue; }
  t0=$(date +%s); timeout "$left" bash "$R/$s" > "$LOGS/$s.log" 2>&1; echo "$s rc=$? $(( $(date +%s) - t0 ))s"
  tail -n 30 "$LOGS/$s.log"
done
tar -cJf "$OUT/logs.tar.xz" -C "$LOGS" .
echo "batch done $(( $(date +%s) - START ))s"
