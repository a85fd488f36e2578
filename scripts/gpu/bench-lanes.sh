#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Frame lanes: bench-gpu's steady state (host and device frames) with 1, 2, 3, 6 and 4 lanes (VMAFX_HIP_LANES), for
# vmaf_v1.0.16_3d0h and vmaf_v0.6.1 at 1080p and 4K 8-bit, then v1's features alone with 4 lanes:
#   scripts/gpu/bench-lanes.sh BUILD_DIR LOG_DIR        (LANES=1,2,3,6,4 overrides the list)
# Tables on stdout and in LOG_DIR/bench_lanes.md.
source "$(dirname "$0")/common.sh"
LANES=${LANES:-1,2,3,6,4}  # the last one also runs the latency and per-feature rows
V1_FEATURES="cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17,speed_chroma=speed_nn_floor=0.1:speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45,adm=adm_dlm_weight=0.7:adm_enhn_gain_limit=1:adm_noise_weight=0.02:adm_min_val=0.5:adm_csf_mode=2,motion"
{
  cat "$LOGS/machine.txt"
  echo "== vmaf_v1.0.16_3d0h, lanes $LANES"
  "$BUILD/bench/bench-gpu" --model vmaf_v1.0.16_3d0h --bitdepth 8 --size 1920x1080 --size 3840x2160 --no-cpu \
    --lanes "$LANES" --breakdown-features "$V1_FEATURES"
  echo "== vmaf_v0.6.1, lanes 1,4"
  "$BUILD/bench/bench-gpu" --bitdepth 8 --size 1920x1080 --size 3840x2160 --no-cpu --no-breakdown --lanes 1,4
} 2>&1 | tee "$LOGS/bench_lanes.md"
