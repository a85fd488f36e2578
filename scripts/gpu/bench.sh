#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The engine's benchmarks on a GPU machine (docs/performance.md has the numbers and what they mean):
#   scripts/gpu/bench.sh BUILD_DIR LOG_DIR [THREADS]
# bench-gpu (steady state of every GPU feature and of vmaf_v0.6.1, host and device frames, with and without the
# upload stream) and bench-cpu at 1, 2 and THREADS threads (default: every CPU thread). Markdown tables in
# LOG_DIR/bench_gpu.md, bench_gpu_upload.md, bench_cpu.md; a summary on stdout.
USAGE_MORE="[THREADS]"
source "$(dirname "$0")/common.sh"
threads=${1:-$(nproc)}
cat "$LOGS/machine.txt"
"$BUILD/bench/bench-gpu" > "$LOGS/bench_gpu.md" 2>&1; echo "bench-gpu rc=$? $(elapsed)s"
"$BUILD/bench/bench-gpu" --upload-stream both --no-cpu --no-breakdown > "$LOGS/bench_gpu_upload.md" 2>&1
echo "bench-gpu --upload-stream both rc=$? $(elapsed)s"
for t in 1 2 "$threads"; do "$BUILD/bench/bench-cpu" --threads "$t"; done > "$LOGS/bench_cpu.md" 2>&1
echo "bench-cpu rc=$? $(elapsed)s"
