#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GPU batch "final" (after scripts/device/stage.sh engine; carry [".devrun", ".devdata"]): vmafx-score's whole-process
# time traced (tools/gpu_batch_cli_trace.sh), the dma-buf GPU test after the import-cache change, and the CPU path's
# speed at 1, 2 and 16 threads on the GPU machine's 16 cores.
set -u
START=$(date +%s)
python3 .devdata/unpack.py .devdata
export VMAFX_SHARED_DIR=$PWD/.devdata VMAFX_SOURCE_DIR=$PWD
R=.devrun
timeout 240 bash tools/gpu_batch_cli_trace.sh > "$OUT/cli_trace_stdout.txt" 2>&1; echo "cli trace rc=$? $(( $(date +%s) - START ))s"
timeout 90 $R/tests/gpu/test_hip_dmabuf > "$OUT/test_hip_dmabuf.log" 2>&1; echo "test_hip_dmabuf rc=$? $(( $(date +%s) - START ))s"
grep -E "^\[  (PASSED|FAILED) " "$OUT/test_hip_dmabuf.log"
{
  timeout 120 $R/bench/bench-cpu --threads 1; timeout 60 $R/bench/bench-cpu --threads 2; timeout 60 $R/bench/bench-cpu --threads 16
} > "$OUT/bench_cpu.txt" 2>&1; echo "bench-cpu rc=$? $(( $(date +%s) - START ))s"
