#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Whole-process feature benchmarks: vmafx-score on 300 frames of 1080p and 60 frames of 4K (scripts/gpu/common.sh's
# bench_inputs; files in the page cache), for the default model alone, with psnr + float_ssim + float_ms_ssim, and
# vmaf_v1.0.16_3d0h; each with --backend hip and --backend cpu --threads THREADS (default: every CPU thread), and
# libvmaf's CLI at the same thread count when its `vmaf` binary is given (a build of your own; not part of vmafxhip):
#   scripts/gpu/bench-features.sh BUILD_DIR LOG_DIR [LIBVMAF_VMAF]
# One line per run on stdout (and LOG_DIR/bench_features.txt): wall seconds, frames per second, the pooled score.
USAGE_MORE="[LIBVMAF_VMAF]"
source "$(dirname "$0")/common.sh"
LIBVMAF=${1:-}
T=${THREADS:-$(nproc)}
bench_inputs 300 60
one() {  # label frames cmd...
  local label=$1 frames=$2; shift 2
  local t0 t1 result
  rm -f "$LOGS/libvmaf-bench.json"
  t0=$(date +%s.%N)
  result=$("$@" 2>&1 | grep -E "^(vmaf|VMAF|.*vmaf_v1|.*: [0-9])" | tail -n 1)
  t1=$(date +%s.%N)
  # libvmaf's CLI prints nothing when stdout is not a terminal: its pooled scores come from its JSON log.
  if [ -z "$result" ] && [ -f "$LOGS/libvmaf-bench.json" ]; then
    result=$(python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["pooled_metrics"]
print(" ".join("%s: %.6f" % (k, v["mean"]) for k, v in p.items() if k.startswith("vmaf") or "ssim" in k))' \
      "$LOGS/libvmaf-bench.json")
  fi
  python3 -c "import sys; w=float(sys.argv[2])-float(sys.argv[1]); print(f'{sys.argv[3]:60s} {w:7.3f} s {int(sys.argv[4])/w:8.1f} fps  {sys.argv[5]}')" \
    "$t0" "$t1" "$label" "$frames" "$result"
}
{
  cat "$LOGS/machine.txt"
  for size in 1080 4k; do
    if [ $size = 1080 ]; then a=(-r "$IN/1080_300_ref.yuv" -d "$IN/1080_300_dist.yuv" -w 1920 -h 1080); n=300
    else a=(-r "$IN/4k_60_ref.yuv" -d "$IN/4k_60_dist.yuv" -w 3840 -h 2160); n=60; fi
    a+=(-p 420 -b 8 -q)
    extra=(--feature psnr --feature float_ssim --feature float_ms_ssim)
    for rep in 1 2; do
      one "$size default model, hip (run $rep)" $n "$BUILD/tools/vmafx-score" "${a[@]}" --backend hip
      one "$size default + psnr ssim ms_ssim, hip (run $rep)" $n "$BUILD/tools/vmafx-score" "${a[@]}" --backend hip "${extra[@]}"
      one "$size vmaf_v1.0.16_3d0h, hip (run $rep)" $n "$BUILD/tools/vmafx-score" "${a[@]}" --backend hip \
        --model version=vmaf_v1.0.16_3d0h
    done
    one "$size default model, cpu $T threads" $n "$BUILD/tools/vmafx-score" "${a[@]}" --backend cpu --threads "$T"
    one "$size default + psnr ssim ms_ssim, cpu $T threads" $n "$BUILD/tools/vmafx-score" "${a[@]}" --backend cpu \
      --threads "$T" "${extra[@]}"
    one "$size vmaf_v1.0.16_3d0h, cpu $T threads" $n "$BUILD/tools/vmafx-score" "${a[@]}" --backend cpu --threads "$T" \
      --model version=vmaf_v1.0.16_3d0h
    if [ -n "$LIBVMAF" ] && [ -x "$LIBVMAF" ]; then
      lj=(--json -o "$LOGS/libvmaf-bench.json")
      one "$size default model, libvmaf cpu $T threads" $n "$LIBVMAF" "${a[@]}" --threads "$T" "${lj[@]}"
      one "$size default + psnr ssim ms_ssim, libvmaf cpu $T threads" $n "$LIBVMAF" "${a[@]}" --threads "$T" "${lj[@]}" \
        "${extra[@]}"
      one "$size vmaf_v1.0.16_3d0h, libvmaf cpu $T threads" $n "$LIBVMAF" "${a[@]}" --threads "$T" "${lj[@]}" \
        --model path="$SRC/engine/models/vmaf_v1.0.16_3d0h.json"
    fi
  done
} 2>&1 | tee "$LOGS/bench_features.txt"
