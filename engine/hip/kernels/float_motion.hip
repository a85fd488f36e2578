// SPDX-License-Identifier: LGPL-2.1-or-later
// Float motion on the GPU: thin loops around float_motion_impl.h (which describes the kernels of a frame). 2-D
// kernels run FMOT_BLOCK_X x FMOT_BLOCK_Y threads per block, one pixel each. No kernel depends on the warp or
// wavefront size.
#include "device.h"
#include "float_motion_impl.h"

VMAFX_KERNEL float_motion_picture_kernel_fn float_motion_picture_kernel;
VMAFX_KERNEL float_motion_blur_v_kernel_fn float_motion_blur_v_kernel;
VMAFX_KERNEL float_motion_blur_h_kernel_fn float_motion_blur_h_kernel;
VMAFX_KERNEL float_motion_half_kernel_fn float_motion_half_kernel;
VMAFX_KERNEL float_motion_rowsad_kernel_fn float_motion_rowsad_kernel;

VMAFX_KERNEL void float_motion_picture_kernel(FmotPictureArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.w || y >= a.h) return;
  a.out[(vx_u64)y * a.out_pitch + x] = fx_picture_sample(fx_read_sample(a.src, x, y), a.bpc);
}

VMAFX_KERNEL void float_motion_blur_v_kernel(FmotBlurArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.w || y >= a.h) return;
  a.tmp[(vx_u64)y * a.pitch + x] = fvif_vertical1(a.taps, a.fw, a.src, a.pitch, (int)a.h, (int)x, (int)y);
}

VMAFX_KERNEL void float_motion_blur_h_kernel(FmotBlurArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.w || y >= a.h) return;
  a.dst[(vx_u64)y * a.pitch + x] = fvif_horizontal(a.taps, a.fw, a.tmp + (vx_u64)y * a.pitch, (int)a.w, (int)x);
}

VMAFX_KERNEL void float_motion_half_kernel(FmotHalfArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.dw || y >= a.dh) return;
  const float* r1 = a.src + (vx_u64)a.row_idx[2 * y] * a.src_pitch;
  const float* r2 = a.src + (vx_u64)a.row_idx[2 * y + 1] * a.src_pitch;
  a.dst[(vx_u64)y * a.dst_pitch + x] =
      fvif_bilinear_px(r1, r2, a.col_idx[2 * x], a.col_idx[2 * x + 1], a.col_w[x], a.row_w[y]);
}

VMAFX_KERNEL void float_motion_rowsad_kernel(FmotRowArgs a) {
  const vx_u32 y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= a.h) return;
  a.out[y] = fmot_row_sad(a.prev + (vx_u64)y * a.pitch, a.cur + (vx_u64)y * a.pitch, (int)a.w);
}
