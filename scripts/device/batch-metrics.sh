#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GPU batch "metrics" (run from the tree's root on the GPU machine, after scripts/device/stage.sh engine, which stages
# every tests/gpu binary and bench-gpu): float_psnr, float_ansnr, float_moment, speed_temporal and ssimulacra2 on the
# device against the CPU reference, then SSIMULACRA 2's rates (bench-ssimulacra2.sh). Logs go to the folder given as
# the first argument (default /tmp/vmafx-metrics); one summary line per binary on stdout. Passing: every binary rc=0
# with "[  PASSED  ]" and no FAILED line (rc=77 means no device was found).
set -u
LOGS=${1:-/tmp/vmafx-metrics}
mkdir -p "$LOGS"
START=$(date +%s)
python3 .devdata/unpack.py .devdata
export VMAFX_SHARED_DIR=$PWD/.devdata VMAFX_SOURCE_DIR=$PWD
R=.devrun
for t in "tests/gpu/test_hip_metrics_impl 120" "tests/gpu/test_hip_metrics 420" "tests/gpu/test_hip_speed 120" \
         "tests/gpu/test_hip_loader 120"; do
  set -- $t
  name=$(basename "$1")
  timeout "$2" "$R/$1" > "$LOGS/$name.log" 2>&1; echo "$name rc=$? $(( $(date +%s) - START ))s"
  grep -E "^\[  (PASSED|FAILED) |^  " "$LOGS/$name.log" | head -12
done
bash "$R/bench-ssimulacra2.sh" > "$LOGS/bench_ssimulacra2.md" 2>&1; echo "bench rc=$?"
cat "$LOGS/bench_ssimulacra2.md"
