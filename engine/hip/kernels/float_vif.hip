// SPDX-License-Identifier: LGPL-2.1-or-later
// Float VIF on the GPU: thin loops around float_vif_impl.h (which describes the kernels of a frame). 2-D kernels run
// FVIF_BLOCK_X x FVIF_BLOCK_Y threads per block, one pixel each; blockIdx.z selects ref (0) or dist (1) where a
// kernel treats both. No kernel depends on the warp or wavefront size.
#include "device.h"
#include "float_vif_impl.h"

VMAFX_KERNEL float_vif_picture_kernel_fn float_vif_picture_kernel;
VMAFX_KERNEL float_vif_scale_kernel_fn float_vif_scale_kernel;
VMAFX_KERNEL float_vif_vertical_kernel_fn float_vif_vertical_kernel;
VMAFX_KERNEL float_vif_stat_kernel_fn float_vif_stat_kernel;
VMAFX_KERNEL float_vif_decimate_v_kernel_fn float_vif_decimate_v_kernel;
VMAFX_KERNEL float_vif_decimate_h_kernel_fn float_vif_decimate_h_kernel;
VMAFX_KERNEL float_vif_rowsum_kernel_fn float_vif_rowsum_kernel;

VMAFX_KERNEL void float_vif_picture_kernel(FvifPictureArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.w || y >= a.h) return;
  const VxPlane& p = blockIdx.z == 0 ? a.ref : a.dist;
  float* out = blockIdx.z == 0 ? a.out_ref : a.out_dist;
  out[(vx_u64)y * a.out_pitch + x] = fx_picture_sample(fx_read_sample(p, x, y), a.bpc);
}

VMAFX_KERNEL void float_vif_scale_kernel(FvifScaleArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.dw || y >= a.dh) return;
  const float* src = blockIdx.z == 0 ? a.src_ref : a.src_dist;
  float* dst = (blockIdx.z == 0 ? a.dst_ref : a.dst_dist) + (vx_u64)y * a.dst_pitch + x;
  if (a.method == FVIF_NEAREST) {
    *dst = src[(vx_u64)a.row_idx[y] * a.src_pitch + (vx_u64)a.col_idx[x]];
  } else if (a.method == FVIF_BILINEAR) {
    const float* r1 = src + (vx_u64)a.row_idx[2 * y] * a.src_pitch;
    const float* r2 = src + (vx_u64)a.row_idx[2 * y + 1] * a.src_pitch;
    *dst = fvif_bilinear_px(r1, r2, a.col_idx[2 * x], a.col_idx[2 * x + 1], a.col_w[x], a.row_w[y]);
  } else {
    const vx_u32 k = a.k;
    *dst = fvif_interp_px(src, a.src_pitch, a.col_idx + (vx_u64)k * x, a.col_w + (vx_u64)k * x,
                          a.row_idx + (vx_u64)k * y, a.row_w + (vx_u64)k * y, (int)k, a.method == FVIF_LANCZOS4);
  }
}

VMAFX_KERNEL void float_vif_vertical_kernel(FvifFilterArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.w || y >= a.h) return;
  float v[5];
  fvif_vertical5(a.taps, a.fw, a.ref, a.dist, a.pitch, (int)a.h, (int)x, (int)y, v);
  const vx_u64 o = (vx_u64)y * a.pitch + x;
  a.mu1[o] = v[0];
  a.mu2[o] = v[1];
  a.xx[o] = v[2];
  a.yy[o] = v[3];
  a.xy[o] = v[4];
}

VMAFX_KERNEL void float_vif_stat_kernel(FvifStatArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.w || y >= a.h) return;
  const vx_u64 r = (vx_u64)y * a.pitch;
  const int w = (int)a.w;
  const float mu1 = fvif_horizontal(a.taps, a.fw, a.mu1 + r, w, (int)x);
  const float mu2 = fvif_horizontal(a.taps, a.fw, a.mu2 + r, w, (int)x);
  const float xx = fvif_horizontal(a.taps, a.fw, a.xx + r, w, (int)x);
  const float yy = fvif_horizontal(a.taps, a.fw, a.yy + r, w, (int)x);
  const float xy = fvif_horizontal(a.taps, a.fw, a.xy + r, w, (int)x);
  fvif_stat(mu1, mu2, xx, yy, xy, a.c, a.num + r + x, a.den + r + x);
}

VMAFX_KERNEL void float_vif_decimate_v_kernel(FvifDecimateArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.src_w || y >= a.dst_h) return;
  const float* src = blockIdx.z == 0 ? a.src_ref : a.src_dist;
  float* tmp = blockIdx.z == 0 ? a.tmp_ref : a.tmp_dist;
  tmp[(vx_u64)y * a.tmp_pitch + x] = fvif_vertical1(a.taps, a.fw, src, a.src_pitch, (int)a.src_h, (int)x, (int)(2 * y));
}

VMAFX_KERNEL void float_vif_decimate_h_kernel(FvifDecimateArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.dst_w || y >= a.dst_h) return;
  const float* tmp = (blockIdx.z == 0 ? a.tmp_ref : a.tmp_dist) + (vx_u64)y * a.tmp_pitch;
  float* dst = blockIdx.z == 0 ? a.dst_ref : a.dst_dist;
  dst[(vx_u64)y * a.dst_pitch + x] = fvif_horizontal(a.taps, a.fw, tmp, (int)a.src_w, (int)(2 * x));
}

// One thread per row: the row's sum of a and of b, in float, left to right.
VMAFX_KERNEL void float_vif_rowsum_kernel(FvifRowArgs a) {
  const vx_u32 y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= a.h) return;
  a.out_a[y] = fx_row_sum(a.a + (vx_u64)y * a.pitch, (int)a.w);
  a.out_b[y] = fx_row_sum(a.b + (vx_u64)y * a.pitch, (int)a.w);
}
