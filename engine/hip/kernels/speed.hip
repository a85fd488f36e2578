// SPDX-License-Identifier: LGPL-2.1-or-later
// SpEED chroma (libvmaf's speed_chroma) on the GPU: the arithmetic is speed_impl.h's; this file adds the grids,
// barriers and shared memory. Four images per frame (ref U, ref V, dist U, dist V; blockIdx.z or blockIdx.x picks
// one), launched in this order on one stream:
//   speed_prescale_kernel   (only with a prescale) the resampled image of each plane
//   speed_dec_kernel        the antialias filter at every 16th row and column
//   speed_mean_kernel       the decimated image minus its local mean
//   speed_estimate_kernel   one block per image: covariance, eigenvalues, K X = Y, block variances
// The estimate writes per image kN eigenvalues, the singular flag and the block variances, which the host turns into
// scores (cpu::speed_channel_score). Blocks are kThreads threads; nothing depends on the warp or wavefront size.
#include "device.h"
#include "speed_impl.h"

namespace vxs = vmafx::hip::speed;

VMAFX_KERNEL vxs::speed_prescale_kernel_fn speed_prescale_kernel;
VMAFX_KERNEL vxs::speed_dec_kernel_fn speed_dec_kernel;
VMAFX_KERNEL vxs::speed_mean_kernel_fn speed_mean_kernel;
VMAFX_KERNEL vxs::speed_estimate_kernel_fn speed_estimate_kernel;
VMAFX_KERNEL vxs::speed_temporal_diff_kernel_fn speed_temporal_diff_kernel;
VMAFX_KERNEL vxs::speed_prescale_float_kernel_fn speed_prescale_float_kernel;

VMAFX_KERNEL void speed_temporal_diff_kernel(vxs::Images imgs, vx_i32 w, vx_i32 h, vx_i32 use_ref_diff,
                                             vx_i32 first, float* cur, const float* prev, float* diff) {
  const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x), y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= w || y >= h) return;
  const vx_i64 n = (vx_i64)w * h, at = (vx_i64)y * w + x;
  const float p[2] = {first ? 0.0f : prev[at], first ? 0.0f : prev[n + at]};
  float c[2], d[2];
  vxs::temporal_difference(imgs.img[0], imgs.img[1], use_ref_diff, x, y, p, c, d);
  cur[at] = c[0];
  cur[n + at] = c[1];
  if (!first) {
    diff[at] = d[0];
    diff[n + at] = d[1];
  }
}

VMAFX_KERNEL void speed_prescale_float_kernel(const float* src, vxs::ScaleTables t, vxs::Dims d, float* scaled) {
  const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x), y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
  const int z = (int)blockIdx.z;
  if (x >= d.scaled_w || y >= d.scaled_h) return;
  vxs::FloatSource s;
  s.p = src + z * (vx_i64)d.orig_w * d.orig_h;
  s.stride = d.orig_w;
  scaled[z * (vx_i64)d.scaled_w * d.scaled_h + (vx_i64)y * d.scaled_w + x] = vxs::prescale_from(s, t, x, y);
}

VMAFX_KERNEL void speed_prescale_kernel(vxs::Images imgs, vxs::ScaleTables t, vxs::Dims d, float* scaled) {
  const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x), y = (int)(blockIdx.y * blockDim.y + threadIdx.y);
  const int z = (int)blockIdx.z;
  if (x >= d.scaled_w || y >= d.scaled_h) return;
  const vx_i64 plane = (vx_i64)d.scaled_w * d.scaled_h;
  scaled[z * plane + (vx_i64)y * d.scaled_w + x] = vxs::prescale_at(imgs.img[z], t, x, y);
}

// scaled: the prescaled images (scaled_w x scaled_h each), or null to filter the planes themselves.
VMAFX_KERNEL void speed_dec_kernel(vxs::Images imgs, vxs::Dims d, vxs::Filters f, const float* scaled, float* dec) {
  const int j = (int)(blockIdx.x * blockDim.x + threadIdx.x), i = (int)(blockIdx.y * blockDim.y + threadIdx.y);
  const int z = (int)blockIdx.z;
  if (j >= d.dec_w || i >= d.dec_h) return;
  float v;
  if (scaled) {
    vxs::FloatSource src;
    src.p = scaled + z * (vx_i64)d.scaled_w * d.scaled_h;
    src.stride = d.scaled_w;
    v = vxs::antialias_dec16_at(src, f, d.scaled_w, d.scaled_h, i, j);
  } else {
    vxs::PlaneSource src;
    src.a = imgs.img[z];
    v = vxs::antialias_dec16_at(src, f, d.scaled_w, d.scaled_h, i, j);
  }
  dec[z * (vx_i64)d.dec_w * d.dec_h + (vx_i64)i * d.dec_w + j] = v;
}

VMAFX_KERNEL void speed_mean_kernel(vxs::Dims d, vxs::Filters f, const float* dec, float* ms) {
  const int j = (int)(blockIdx.x * blockDim.x + threadIdx.x), i = (int)(blockIdx.y * blockDim.y + threadIdx.y);
  const int z = (int)blockIdx.z;
  if (j >= d.dec_w || i >= d.dec_h) return;
  const vx_i64 plane = (vx_i64)d.dec_w * d.dec_h;
  const float* img = dec + z * plane;
  const vx_i64 at = (vx_i64)i * d.dec_w + j;
  ms[z * plane + at] = img[at] - vxs::local_mean_at(img, d.dec_w, f, d.dec_w, d.dec_h, i, j);
}

// work: 3 * kN * blocks floats per image (Y, Q^T Y, X). out: (kOutVariance + blocks) floats per image.
VMAFX_KERNEL void speed_estimate_kernel(vxs::Dims d, const float* ms, float* work, float* out) {
  __shared__ float cov[vxs::kN * vxs::kN];
  __shared__ float qm[vxs::kN * vxs::kN];     // the accumulated reflectors P (R = P K, Q^T Y = P Y)
  __shared__ float rm[vxs::kN * vxs::kN];
  __shared__ float tmp_q[vxs::kN * vxs::kN];
  __shared__ float tmp_z[vxs::kN * vxs::kN];
  __shared__ float tmp_mul[vxs::kN * vxs::kN];
  __shared__ float scratch[vxs::kN * vxs::kN];
  __shared__ float means[vxs::kN];
  __shared__ float eigen[vxs::kN];
  __shared__ float vec[vxs::kN];
  const int tid = (int)vx_block_thread(), nt = (int)vx_block_threads();
  const int z = (int)blockIdx.x;
  const int nb = d.blocks;
  const vx_i64 ny = (vx_i64)vxs::kN * nb;
  const float* img = ms + z * (vx_i64)d.dec_w * d.dec_h;
  float* y = work + z * 3 * ny;
  float* rhs = y + ny;
  float* x = rhs + ny;
  float* o = out + z * (vx_i64)(vxs::kOutVariance + nb);
  const int nn = vxs::kN * vxs::kN;

  if (tid < vxs::kN) means[tid] = vxs::window_mean(d, img, d.dec_w, tid);
  __syncthreads();
  for (int p = tid; p < vxs::kN * (vxs::kN + 1) / 2; p += nt) {
    int xi = 0;
    while ((xi + 1) * (xi + 2) / 2 <= p) xi++;
    const int yi = p - xi * (xi + 1) / 2;
    const float c = vxs::covariance(d, img, d.dec_w, means, xi, yi);
    cov[xi * vxs::kN + yi] = c;
    cov[yi * vxs::kN + xi] = c;
  }
  __syncthreads();
  if (tid == 0) vxs::eigenvalues(cov, eigen, scratch);
  for (vx_i64 e = tid; e < ny; e += nt) y[e] = vxs::independent_term(d, img, d.dec_w, (int)(e / nb), (int)(e % nb));
  __syncthreads();
  bool ok = vxs::regular(eigen);
  if (ok) {
    for (int e = tid; e < nn; e += nt) {
      tmp_z[e] = cov[e];
      qm[e] = (e / vxs::kN == e % vxs::kN) ? 1.0f : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < vxs::kN - 1; k++) {
      for (int e = tid; e < nn; e += nt) vxs::qr_minor(tmp_z, k, e);
      __syncthreads();
      if (tid == 0) vxs::qr_vector(tmp_z, cov, k, vec);
      __syncthreads();
      for (int e = tid; e < nn; e += nt) tmp_q[e] = vxs::qr_reflector(vec, e);
      __syncthreads();
      for (int e = tid; e < nn; e += nt) tmp_mul[e] = vxs::mat_mul_at(tmp_q, tmp_z, e);
      __syncthreads();
      for (int e = tid; e < nn; e += nt) tmp_z[e] = tmp_mul[e];
      __syncthreads();
      for (int e = tid; e < nn; e += nt) tmp_mul[e] = vxs::mat_mul_at(tmp_q, qm, e);
      __syncthreads();
      for (int e = tid; e < nn; e += nt) qm[e] = tmp_mul[e];
      __syncthreads();
    }
    for (int e = tid; e < nn; e += nt) rm[e] = vxs::mat_mul_at(qm, cov, e);
    for (vx_i64 e = tid; e < ny; e += nt) rhs[e] = vxs::rhs_at(qm, y, nb, (int)(e / nb), (int)(e % nb));
    __syncthreads();
    for (int i = vxs::kN - 1; i >= 0 && ok; i--) {
      ok = vxs::pivot_ok(rm, i);  // the same for every thread
      if (ok)
        for (int j = tid; j < nb; j += nt) x[(vx_i64)i * nb + j] = vxs::back_substitute(rm, rhs, x, nb, i, j);
      __syncthreads();
    }
  }
  if (!ok) {
    for (vx_i64 e = tid; e < ny; e += nt) x[e] = 0.0f;
    __syncthreads();
  }
  if (tid < vxs::kN) o[vxs::kOutEigen + tid] = eigen[tid];
  if (tid == 0) o[vxs::kOutSingular] = ok ? 0.0f : 1.0f;
  for (int j = tid; j < nb; j += nt) o[vxs::kOutVariance + j] = vxs::block_variance(x, y, nb, j);
}
