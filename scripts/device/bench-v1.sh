#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# VMAF v1 (vmaf_v1.0.16_3d0h: cambi, speed_chroma, v1's ADM and motion) on the GPU machine, steady state and whole
# process, against libvmaf's CPU path (a scratch build staged as .devrun/bench/libvmaf-vmaf with the model file
# .devrun/bench/vmaf_v1.0.16_3d0h.json; never part of the tree):
#   1. bench-gpu --model vmaf_v1.0.16_3d0h --lanes 1,6: frames per second after a warm-up, host frames (uploaded) and frames
#      already on the device, 1080p and 4K 8-bit, plus each v1 feature alone on device frames;
#   2. whole process, files in the page cache: vmafx-score --backend hip and libvmaf --threads 16 on 300 and 1200
#      frames of 1080p (pair d repeated) and 60 and 240 frames of 4K (random bytes); the rate between the two
#      lengths is each tool's steady-state rate with start-up and the first frames taken out.
# Run after scripts/device/stage.sh engine (carry .devrun and .devdata):  bash .devrun/bench-v1.sh  -> stdout
set -u
R=${R:-.devrun}
D=.devdata/testdata
LIBVMAF=$R/bench/libvmaf-vmaf
MODEL=$R/bench/vmaf_v1.0.16_3d0h.json
echo "== bench-gpu, vmaf_v1.0.16_3d0h"
$R/bench/bench-gpu --model vmaf_v1.0.16_3d0h --bitdepth 8 --size 1920x1080 --size 3840x2160 --lanes 1,6 \
  --breakdown-features "cambi,cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17,speed_chroma,speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45,adm,adm=adm_dlm_weight=0.7:adm_enhn_gain_limit=1:adm_noise_weight=0.02:adm_min_val=0.5:adm_csf_mode=2,motion,vif"
for s in ref x264crf35; do
  [ -s /tmp/d1080x4_$s.yuv ] || for i in $(seq 150); do cat $D/d_1920x1080_8b_$s.yuv; done | head -c $((3110400 * 1200)) > /tmp/d1080x4_$s.yuv
done
[ -s /tmp/r4kx4.yuv ] || head -c $((12441600 * 240)) /dev/urandom > /tmp/r4kx4.yuv
[ -s /tmp/d4kx4.yuv ] || head -c $((12441600 * 240)) /dev/urandom > /tmp/d4kx4.yuv
cat /tmp/d1080x4_*.yuv /tmp/r4kx4.yuv /tmp/d4kx4.yuv > /dev/null
wall() {  # prints the wall seconds of the command
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > /tmp/bench-v1.out 2>&1 || { echo "FAILED: $*" >&2; tail -3 /tmp/bench-v1.out >&2; }
  t1=$(date +%s.%N)
  python3 -c "import sys; print('%.3f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$t1"
}
echo "== whole process (median of 3), steady rate between the two lengths"
for size in 1080 4k; do
  if [ $size = 1080 ]; then a=(-r /tmp/d1080x4_ref.yuv -d /tmp/d1080x4_x264crf35.yuv -w 1920 -h 1080); n1=300; n2=1200
  else a=(-r /tmp/r4kx4.yuv -d /tmp/d4kx4.yuv -w 3840 -h 2160); n1=60; n2=240; fi
  a+=(-p 420 -b 8)
  for tool in hip libvmaf; do
    [ $tool = libvmaf ] && [ ! -x "$LIBVMAF" ] && continue
    line="$size $tool:"
    declare -A med=()
    for n in $n1 $n2; do
      ts=()
      for rep in 1 2 3; do
        if [ $tool = hip ]; then
          ts+=($(wall $R/tools/vmafx-score "${a[@]}" --frame_cnt $n --backend hip --model version=vmaf_v1.0.16_3d0h -q))
        else
          ts+=($(wall $LIBVMAF "${a[@]}" --frame_cnt $n --threads 16 --model path=$MODEL --json -o /tmp/lv.json -q))
        fi
      done
      med[$n]=$(printf '%s\n' "${ts[@]}" | sort -n | sed -n 2p)
      line="$line $n frames ${med[$n]} s (${ts[*]});"
    done
    rate=$(python3 -c "import sys; n1,n2,t1,t2=map(float,sys.argv[1:]); print('%.0f' % ((n2-n1)/(t2-t1)))" $n1 $n2 ${med[$n1]} ${med[$n2]})
    echo "$line steady $rate fps"
  done
done
