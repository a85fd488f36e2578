// SPDX-License-Identifier: LGPL-2.1-or-later
// float_ansnr on the GPU (float_ansnr_impl.h), in the CPU reference's order:
//   float_ansnr_terms_kernel  per pixel the filtered reference (3x3) and distorted (5x5) values and the pixel's two
//                             terms, ref_f^2 and (ref_f - dist_f)^2
//   float_ansnr_rows_kernel   one thread per row: the row's two float sums, left to right from 0
// The host adds the rows' sums in row order (cpu::float_ansnr_from_rows).
#include "device.h"
#include "float_ansnr_impl.h"

VMAFX_KERNEL float_ansnr_terms_kernel_fn float_ansnr_terms_kernel;
VMAFX_KERNEL float_ansnr_rows_kernel_fn float_ansnr_rows_kernel;

VMAFX_KERNEL void float_ansnr_terms_kernel(VxPlane ref, VxPlane dist, vx_u32 bpc, float* sig, float* noise) {
  const int j = (int)(blockIdx.x * blockDim.x + threadIdx.x), i = (int)(blockIdx.y * blockDim.y + threadIdx.y);
  const int w = (int)ref.width, h = (int)ref.height;
  if (j >= w || i >= h) return;
  FanTaps taps;
  fan_taps(&taps);
  FanPlaneSource rs, ds;
  rs.p = ref;
  rs.bpc = bpc;
  ds.p = dist;
  ds.bpc = bpc;
  const float rf = fan_filter_at(rs, taps.ref, FAN_REF_WIDTH, w, h, i, j);
  const float df = fan_filter_at(ds, taps.dis, FAN_DIS_WIDTH, w, h, i, j);
  const vx_i64 at = (vx_i64)i * w + j;
  sig[at] = fan_sig_term(rf);
  noise[at] = fan_noise_term(rf, df);
}

VMAFX_KERNEL void float_ansnr_rows_kernel(const float* sig, const float* noise, vx_u32 w, vx_u32 h, float* row_sums) {
  const vx_u32 y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= h) return;
  row_sums[2 * (vx_u64)y] = fx_row_sum(sig + (vx_u64)y * w, (int)w);
  row_sums[2 * (vx_u64)y + 1] = fx_row_sum(noise + (vx_u64)y * w, (int)w);
}
