// SPDX-License-Identifier: LGPL-2.1-or-later
// Float ADM on the GPU: thin loops around float_adm_impl.h (which describes the kernels of a frame). 2-D kernels run
// FADM_BLOCK_X x FADM_BLOCK_Y threads per block, one sample each; blockIdx.z selects ref (0) or dist (1) where a
// kernel treats both. No kernel depends on the warp or wavefront size.
#include "device.h"
#include "float_adm_impl.h"

VMAFX_KERNEL float_adm_picture_kernel_fn float_adm_picture_kernel;
VMAFX_KERNEL float_adm_dwt_v_kernel_fn float_adm_dwt_v_kernel;
VMAFX_KERNEL float_adm_dwt_h_kernel_fn float_adm_dwt_h_kernel;
VMAFX_KERNEL float_adm_decouple_kernel_fn float_adm_decouple_kernel;
VMAFX_KERNEL float_adm_cm_kernel_fn float_adm_cm_kernel;
VMAFX_KERNEL float_adm_rowsum_kernel_fn float_adm_rowsum_kernel;

VMAFX_KERNEL void float_adm_picture_kernel(FadmPictureArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.w || y >= a.h) return;
  const VxPlane& p = blockIdx.z == 0 ? a.ref : a.dist;
  float* out = blockIdx.z == 0 ? a.out_ref : a.out_dist;
  out[(vx_u64)y * a.out_pitch + x] = fx_picture_sample(fx_read_sample(p, x, y), a.bpc);
}

VMAFX_KERNEL void float_adm_dwt_v_kernel(FadmDwtArgs a) {
  const vx_u32 j = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 i = blockIdx.y * blockDim.y + threadIdx.y;
  const vx_u32 oh = (a.h_in + 1) / 2;
  if (j >= a.w || i >= oh) return;
  const unsigned z = blockIdx.z;
  const float* src = a.src[z];
  const int n = (int)a.h_in;
  const float s0 = src[(vx_u64)fadm_dwt_tap((int)i, 0, n) * a.src_pitch + j];
  const float s1 = src[(vx_u64)fadm_dwt_tap((int)i, 1, n) * a.src_pitch + j];
  const float s2 = src[(vx_u64)fadm_dwt_tap((int)i, 2, n) * a.src_pitch + j];
  const float s3 = src[(vx_u64)fadm_dwt_tap((int)i, 3, n) * a.src_pitch + j];
  const vx_u64 o = (vx_u64)i * a.tmp_pitch + j;
  a.lo[z][o] = fadm_lo(s0, s1, s2, s3);
  if (!a.lo_only) a.hi[z][o] = fadm_hi(s0, s1, s2, s3);
}

VMAFX_KERNEL void float_adm_dwt_h_kernel(FadmDwtArgs a) {
  const vx_u32 j = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 i = blockIdx.y * blockDim.y + threadIdx.y;
  const vx_u32 ow = (a.w + 1) / 2, oh = (a.h_in + 1) / 2;
  if (j >= ow || i >= oh) return;
  const unsigned z = blockIdx.z;
  const int n = (int)a.w;
  const int j0 = fadm_dwt_tap((int)j, 0, n), j1 = fadm_dwt_tap((int)j, 1, n);
  const int j2 = fadm_dwt_tap((int)j, 2, n), j3 = fadm_dwt_tap((int)j, 3, n);
  const float* lo = a.lo[z] + (vx_u64)i * a.tmp_pitch;
  const vx_u64 o = (vx_u64)i * a.band_pitch + j;
  a.a[z][o] = fadm_lo(lo[j0], lo[j1], lo[j2], lo[j3]);
  if (a.lo_only) return;
  a.v[z][o] = fadm_hi(lo[j0], lo[j1], lo[j2], lo[j3]);
  const float* hi = a.hi[z] + (vx_u64)i * a.tmp_pitch;
  a.h[z][o] = fadm_lo(hi[j0], hi[j1], hi[j2], hi[j3]);
  a.d[z][o] = fadm_hi(hi[j0], hi[j1], hi[j2], hi[j3]);
}

VMAFX_KERNEL void float_adm_decouple_kernel(FadmDecoupleArgs a) {
  const vx_i32 j = a.left + (vx_i32)(blockIdx.x * blockDim.x + threadIdx.x);
  const vx_i32 i = a.top + (vx_i32)(blockIdx.y * blockDim.y + threadIdx.y);
  if (j >= a.right || i >= a.bottom) return;
  const vx_u64 o = (vx_u64)i * a.pitch + (vx_u64)j;
  float r[3], ad[3];
  fadm_decouple_px(a.ref.b[0][o], a.ref.b[1][o], a.ref.b[2][o], a.dist.b[0][o], a.dist.b[1][o], a.dist.b[2][o],
                   a.egl, a.cos_1deg_sq, r, ad);
  for (int t = 0; t < 3; ++t) {
    a.r.b[t][o] = r[t];
    a.a.b[t][o] = ad[t];
    const float ca = a.rfactor[t] * ad[t];
    a.csf_a.b[t][o] = ca;
    a.flt_a.b[t][o] = fadm_flt(ca);
    const float cr = a.rfactor[t] * r[t];
    a.csf_r.b[t][o] = cr;
    a.flt_r.b[t][o] = fadm_flt(cr);
  }
}

VMAFX_KERNEL void float_adm_cm_kernel(FadmCmArgs a) {
  const vx_i32 dj = (vx_i32)(blockIdx.x * blockDim.x + threadIdx.x);
  const vx_i32 di = (vx_i32)(blockIdx.y * blockDim.y + threadIdx.y);
  const vx_i32 j = a.left + dj, i = a.top + di;
  if (j >= a.right || i >= a.bottom) return;
  const vx_u64 o = (vx_u64)i * a.pitch + (vx_u64)j;
  const vx_u64 q = (vx_u64)di * a.out_pitch + (vx_u64)dj;
  const float thr_a = a.bypass_cm ? 0.0f : fadm_cm_thresh(a.csf_a, a.flt_a, a.pitch, a.w, a.h, i, j);
  const float thr_r = a.bypass_cm ? 0.0f : fadm_cm_thresh(a.csf_r, a.flt_r, a.pitch, a.w, a.h, i, j);
  for (int t = 0; t < 3; ++t) {
    a.out[t][q] = fadm_cm_value(a.r.b[t][o], a.rfactor[t], thr_a, a.p_norm);
    a.out[3 + t][q] = fadm_cm_value(a.a.b[t][o], a.rfactor[t], thr_r, a.p_norm);
    a.out[6 + t][q] = fadm_den_value(a.ref.b[t][o], a.rfactor[t], a.p_norm);
  }
}

// One thread per row (blockIdx.y: which of the nine planes): the row's sum in float, left to right.
VMAFX_KERNEL void float_adm_rowsum_kernel(FadmRowArgs a) {
  const vx_u32 y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= a.n) return;
  const unsigned p = blockIdx.y;
  a.out[(vx_u64)p * a.n + y] = fx_row_sum(a.in[p] + (vx_u64)y * a.pitch, (int)a.rw);
}
