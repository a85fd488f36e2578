#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GPU batch "final" (after scripts/device/stage.sh engine; carry [".devrun", ".devdata"]): every GPU test of the engine
# (features, pipeline incl. frames mixing host and device pictures, scorer parity on the public clips, dma-buf import),
# vmafx-score's whole-process time traced (scripts/device/batch-cli-trace.sh) and the CPU path's speed at 1, 2 and 16
# threads on the GPU machine's 16 cores. Logs go to $OUT; summary lines to stdout. Ends inside one 10-minute call.
set -u
START=$(date +%s)
python3 .devdata/unpack.py .devdata
export VMAFX_SHARED_DIR=$PWD/.devdata VMAFX_SOURCE_DIR=$PWD
{ nvidia-smi -L; nproc; } > "$OUT/gpu.txt" 2>&1
R=.devrun
for t in "test_hip_device 60" "test_hip_psnr_sse 60" "test_hip_vif 110" "test_hip_adm 110" "test_hip_pipeline 80" \
         "test_hip_scorer 150" "test_hip_dmabuf 90"; do
  set -- $t
  if [ ! -x "$R/tests/gpu/$1" ]; then echo "$1: not staged"; continue; fi
  timeout "$2" "$R/tests/gpu/$1" > "$OUT/$1.log" 2>&1; echo "$1 rc=$? $(( $(date +%s) - START ))s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$OUT/$1.log" | head -4
done
left=$(( 420 - ($(date +%s) - START) ))
if [ "$left" -gt 60 ]; then
  timeout "$left" bash scripts/device/batch-cli-trace.sh > "$OUT/cli_trace_stdout.txt" 2>&1
  echo "cli trace rc=$? $(( $(date +%s) - START ))s"
else
  echo "cli trace: skipped (budget)"
fi
left=$(( 570 - ($(date +%s) - START) ))
if [ "$left" -gt 30 ]; then
  { timeout "$left" $R/bench/bench-cpu --threads 16; timeout 60 $R/bench/bench-cpu --threads 2; } > "$OUT/bench_cpu.txt" 2>&1
  echo "bench-cpu rc=$? $(( $(date +%s) - START ))s"
fi
echo "final batch done $(( $(date +%s) - START ))s"
