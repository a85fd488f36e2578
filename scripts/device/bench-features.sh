#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Whole-process feature benchmarks on the GPU machine (run by batch-all.sh as a BATCH_SCRIPTS entry, or alone after
# scripts/device/stage.sh engine): vmafx-score on 300 frames of 1080p (pair d's 8 frames repeated, page cache warm)
# and 60 frames of 4K (random bytes), for
#   - the default model alone, and with psnr + float_ssim + float_ms_ssim (the extra features' cost on the GPU);
#   - vmaf_v1.0.16_3d0h (cambi, speed_chroma, v1 ADM and motion);
# each with --backend hip and --backend cpu --threads 16, and, where a libvmaf `vmaf` binary was staged as
# .devrun/bench/libvmaf-vmaf (a scratch build, never part of the tree), libvmaf's CPU path at 16 threads on the same
# files. Prints one line per run: wall seconds, frames per second, the pooled score.
set -u
R=${R:-.devrun}
D=.devdata/testdata
LIBVMAF=$R/bench/libvmaf-vmaf
for s in ref x264crf35; do
  [ -f /tmp/d1080_$s.yuv ] || for i in $(seq 38); do cat $D/d_1920x1080_8b_$s.yuv; done | head -c $((3110400 * 300)) > /tmp/d1080_$s.yuv
done
[ -f /tmp/r4k.yuv ] || head -c $((12441600 * 60)) /dev/urandom > /tmp/r4k.yuv
[ -f /tmp/d4k.yuv ] || head -c $((12441600 * 60)) /dev/urandom > /tmp/d4k.yuv
cat /tmp/d1080_*.yuv /tmp/r4k.yuv /tmp/d4k.yuv > /dev/null
one() {  # label frames cmd...
  local label=$1 frames=$2; shift 2
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$("$@" 2>&1 | grep -E "^(vmaf|VMAF|.*vmaf_v1|.*: [0-9])" | tail -n 1)
  t1=$(date +%s.%N)
  # libvmaf's vmaf prints nothing when stdout is not a terminal: its pooled scores come from its JSON log.
  if [ -z "$out" ] && [ -f /tmp/libvmaf-bench.json ]; then
    out=$(python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["pooled_metrics"]
print(" ".join("%s: %.6f" % (k, v["mean"]) for k, v in p.items() if k.startswith("vmaf") or "ssim" in k))' /tmp/libvmaf-bench.json)
    rm -f /tmp/libvmaf-bench.json
  fi
  python3 -c "import sys; w=float(sys.argv[2])-float(sys.argv[1]); print(f'{sys.argv[3]:60s} {w:7.3f} s {int(sys.argv[4])/w:8.1f} fps  {sys.argv[5]}')" \
    "$t0" "$t1" "$label" "$frames" "$out"
}
for size in 1080 4k; do
  if [ $size = 1080 ]; then a=(-r /tmp/d1080_ref.yuv -d /tmp/d1080_x264crf35.yuv -w 1920 -h 1080); n=300
  else a=(-r /tmp/r4k.yuv -d /tmp/d4k.yuv -w 3840 -h 2160); n=60; fi
  a+=(-p 420 -b 8 -q)
  for rep in 1 2; do
    one "$size default model, hip (run $rep)" $n $R/tools/vmafx-score "${a[@]}" --backend hip
    one "$size default + psnr ssim ms_ssim, hip (run $rep)" $n $R/tools/vmafx-score "${a[@]}" --backend hip \
      --feature psnr --feature float_ssim --feature float_ms_ssim
    one "$size vmaf_v1.0.16_3d0h, hip (run $rep)" $n $R/tools/vmafx-score "${a[@]}" --backend hip \
      --model version=vmaf_v1.0.16_3d0h
  done
  one "$size default model, cpu 16 threads" $n $R/tools/vmafx-score "${a[@]}" --backend cpu --threads 16
  one "$size default + psnr ssim ms_ssim, cpu 16 threads" $n $R/tools/vmafx-score "${a[@]}" --backend cpu --threads 16 \
    --feature psnr --feature float_ssim --feature float_ms_ssim
  one "$size vmaf_v1.0.16_3d0h, cpu 16 threads" $n $R/tools/vmafx-score "${a[@]}" --backend cpu --threads 16 \
    --model version=vmaf_v1.0.16_3d0h
  if [ -x "$LIBVMAF" ]; then
    one "$size default model, libvmaf cpu 16 threads" $n $LIBVMAF "${a[@]}" --threads 16 --json -o /tmp/libvmaf-bench.json
    one "$size default + psnr ssim ms_ssim, libvmaf cpu 16 threads" $n $LIBVMAF "${a[@]}" --threads 16 --json -o /tmp/libvmaf-bench.json \
      --feature psnr --feature float_ssim --feature float_ms_ssim
    one "$size vmaf_v1.0.16_3d0h, libvmaf cpu 16 threads" $n $LIBVMAF "${a[@]}" --threads 16 --json -o /tmp/libvmaf-bench.json \
      --model path=$R/bench/vmaf_v1.0.16_3d0h.json
  fi
done
