#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# VMAF v1 (vmaf_v1.0.16_3d0h: cambi, speed_chroma, v1's ADM and motion), steady state and whole process, against
# libvmaf's CPU path when its `vmaf` binary is given (a build of your own; not part of vmafxhip):
#   scripts/gpu/bench-v1.sh BUILD_DIR LOG_DIR [LIBVMAF_VMAF]
#   1. bench-gpu --model vmaf_v1.0.16_3d0h --lanes 1,6: frames per second after a warm-up, host frames (uploaded)
#      and frames already on the device, 1080p and 4K 8-bit, plus each v1 feature alone on device frames;
#   2. whole process, files in the page cache: vmafx-score --backend hip and libvmaf --threads THREADS (default:
#      every CPU thread) on 300 and 1200 frames of 1080p and 60 and 240 frames of 4K (common.sh's bench_inputs);
#      the rate between the two lengths is each tool's steady-state rate with start-up and the first frames taken
#      out. Median of 3 runs each.
# stdout and LOG_DIR/bench_v1.txt.
USAGE_MORE="[LIBVMAF_VMAF]"
source "$(dirname "$0")/common.sh"
LIBVMAF=${1:-}
T=${THREADS:-$(nproc)}
MODEL=$SRC/engine/models/vmaf_v1.0.16_3d0h.json  # libvmaf's model/vmaf_v1.0.16/ file, unchanged
{
  cat "$LOGS/machine.txt"
  echo "== bench-gpu, vmaf_v1.0.16_3d0h"
  "$BUILD/bench/bench-gpu" --model vmaf_v1.0.16_3d0h --bitdepth 8 --size 1920x1080 --size 3840x2160 --lanes 1,6 \
    --breakdown-features "cambi,cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17,speed_chroma,speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45,adm,adm=adm_dlm_weight=0.7:adm_enhn_gain_limit=1:adm_noise_weight=0.02:adm_min_val=0.5:adm_csf_mode=2,motion,vif"
  bench_inputs 1200 240
  wall() {  # prints the wall seconds of the command
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > "$LOGS/bench-v1.out" 2>&1 || { echo "FAILED: $*" >&2; tail -3 "$LOGS/bench-v1.out" >&2; }
    t1=$(date +%s.%N)
    python3 -c "import sys; print('%.3f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$t1"
  }
  echo "== whole process (median of 3), steady rate between the two lengths"
  for size in 1080 4k; do
    if [ $size = 1080 ]; then a=(-r "$IN/1080_1200_ref.yuv" -d "$IN/1080_1200_dist.yuv" -w 1920 -h 1080); n1=300; n2=1200
    else a=(-r "$IN/4k_240_ref.yuv" -d "$IN/4k_240_dist.yuv" -w 3840 -h 2160); n1=60; n2=240; fi
    a+=(-p 420 -b 8)
    for tool in hip libvmaf; do
      if [ $tool = libvmaf ] && { [ -z "$LIBVMAF" ] || [ ! -x "$LIBVMAF" ]; }; then continue; fi
      line="$size $tool:"
      declare -A med=()
      for n in $n1 $n2; do
        ts=()
        for rep in 1 2 3; do
          if [ $tool = hip ]; then
            ts+=($(wall "$BUILD/tools/vmafx-score" "${a[@]}" --frame_cnt $n --backend hip --model version=vmaf_v1.0.16_3d0h -q))
          else
            ts+=($(wall "$LIBVMAF" "${a[@]}" --frame_cnt $n --threads "$T" --model path="$MODEL" --json -o "$LOGS/lv.json" -q))
          fi
        done
        med[$n]=$(printf '%s\n' "${ts[@]}" | sort -n | sed -n 2p)
        line="$line $n frames ${med[$n]} s (${ts[*]});"
      done
      rate=$(python3 -c "import sys; n1,n2,t1,t2=map(float,sys.argv[1:]); print('%.0f' % ((n2-n1)/(t2-t1)))" $n1 $n2 ${med[$n1]} ${med[$n2]})
      echo "$line steady $rate fps"
    done
  done
} 2>&1 | tee "$LOGS/bench_v1.txt"
