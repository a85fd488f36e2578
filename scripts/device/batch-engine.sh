#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GPU batch "engine" (run from the tree's root on the GPU machine, after scripts/device/stage.sh engine):
# parity of the GPU features and the scorer with the CPU reference on the public clips, then the GPU benchmark.
# Logs go to $OUT. Budgeted to end inside one 10-minute call.
set -u
START=$(date +%s)
python3 .devdata/unpack.py .devdata
export VMAFX_SHARED_DIR=$PWD/.devdata VMAFX_SOURCE_DIR=$PWD
nvidia-smi -L > "$OUT/gpu.txt" 2>&1; nproc >> "$OUT/gpu.txt"
R=.devrun
for t in "tests/gpu/test_hip_vif 110" "tests/gpu/test_hip_adm 110" "tests/gpu/test_hip_pipeline 80" \
         "tests/gpu/test_hip_scorer 150"; do
  set -- $t
  name=$(basename "$1")
  timeout "$2" "$R/$1" > "$OUT/$name.log" 2>&1; echo "$name rc=$? $(( $(date +%s) - START ))s"
  grep -E "^\[  (PASSED|FAILED) " "$OUT/$name.log" | head -3
done
left=$(( 560 - ($(date +%s) - START) ))
echo "bench budget ${left}s"
if [ "$left" -gt 40 ]; then timeout "$left" "$R/bench/bench-gpu" > "$OUT/bench_gpu.md" 2>&1; echo "bench rc=$?"; fi
