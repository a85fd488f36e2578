// SPDX-License-Identifier: LGPL-2.1-or-later
// Float motion's kernel arithmetic (kernels/float_motion.hip), shared with host tests: exactly the CPU reference's
// (engine/cpu/float_motion.cpp) operations. The kernels of a frame, per plane (luma; chroma too with motion_add_uv):
//   float_motion_picture_kernel  the reference's float picture
//   float_motion_blur_v_kernel   the blur's vertical pass (the filter passes of float_vif_impl.h, as the CPU)
//   float_motion_blur_h_kernel   its horizontal pass, into the plane's blurred frame of this frame's parity
//   float_motion_half_kernel     motion_add_scale1: the blurred frame at half size (libvmaf's bilinear scaler, tables
//                                made on the host by the CPU reference)
//   float_motion_rowsad_kernel   |previous - current| summed per row in float, left to right (one thread per row)
// The blurred frames stay on the device for the next frame; the host turns the row sums into the frame's score with
// the CPU's cpu::float_motion_mean, and the temporal outputs come from cpu::FloatMotionPost.
#pragma once

#include "float_vif_impl.h"

#define FMOT_BLOCK_X 32
#define FMOT_BLOCK_Y 8
#define FMOT_ROW_THREADS 64

// |a - b| summed over a row in float from 0 (cpu::float_motion_row_sad).
VX_HD float fmot_row_sad(const float* a, const float* b, int w) {
  float accum = 0.0f;
  for (int x = 0; x < w; ++x) accum += fabsf(a[x] - b[x]);
  return accum;
}

struct FmotPictureArgs {
  VxPlane src;
  vx_u32 bpc;        // 8, 10, 12 or 16
  vx_u32 reserved;
  float* out;
  vx_u64 out_pitch;
  vx_u32 w, h;
};

struct FmotBlurArgs {
  const float* src;
  float* tmp;
  float* dst;
  vx_u64 pitch;  // floats, of all three
  const float* taps;
  vx_i32 fw;
  vx_u32 w, h;
};

// Bilinear half size: x1/x2 pairs and weights per column (idx[2 x], idx[2 x + 1], wx[x]) and per row.
struct FmotHalfArgs {
  const float* src;
  vx_u64 src_pitch;
  float* dst;
  vx_u64 dst_pitch;
  const vx_i32* col_idx;
  const float* col_w;
  const vx_i32* row_idx;
  const float* row_w;
  vx_u32 dw, dh;
};

struct FmotRowArgs {
  const float* prev;
  const float* cur;
  vx_u64 pitch;
  float* out;
  vx_u32 w, h;
};

// The kernels' parameters (kernels/float_motion.hip declares each kernel with its type; the host launches them as
// TypedKernel<...>).
typedef void float_motion_picture_kernel_fn(FmotPictureArgs a);
typedef void float_motion_blur_v_kernel_fn(FmotBlurArgs a);
typedef void float_motion_blur_h_kernel_fn(FmotBlurArgs a);
typedef void float_motion_half_kernel_fn(FmotHalfArgs a);
typedef void float_motion_rowsad_kernel_fn(FmotRowArgs a);
