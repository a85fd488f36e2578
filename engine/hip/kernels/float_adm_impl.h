// SPDX-License-Identifier: LGPL-2.1-or-later
// Float ADM's kernel arithmetic (kernels/float_adm.hip), shared with host tests: per sample, exactly the CPU
// reference's (engine/cpu/float_adm.cpp) operations. The kernels of a frame (float_adm_gpu.cpp):
//   float_adm_picture_kernel    the float pictures of ref and dist
//   per scale s (0..3):
//   float_adm_dwt_v_kernel      the DWT's vertical pass (low and high) of every column at the output rows
//   float_adm_dwt_h_kernel      its horizontal pass: bands a, v, h, d (band a only for a skipped scale 0)
//   float_adm_decouple_kernel   over the tap rectangle: r, a and the csf / masking inputs of a and of r
//   float_adm_cm_kernel         over the score rectangle: per sample the DLM numerator (r masked by a), the AIM
//                               numerator (a masked by r) and the denominator (ref) contributions of h, v, d
//   float_adm_rowsum_kernel     each of those nine planes summed per row in float, left to right
// The host adds the row sums up in row order and finishes each scale with the CPU's cpu::float_adm_scale_total.
//
// With adm_p_norm != 3 the contributions are powf(x, p): the device's powf is not glibc's, so that option is not bit
// for bit (tests/gpu/test_hip_float.cpp measures it); every other option is.
#pragma once

#include "float_impl.h"

#define FADM_SCALES 4
#define FADM_BLOCK_X 32  // 2-D kernels: FADM_BLOCK_X x FADM_BLOCK_Y threads, one sample each
#define FADM_BLOCK_Y 8
#define FADM_ROW_THREADS 64  // float_adm_rowsum_kernel: threads per block, one row each

// Source index of tap k (0..3) of DWT output i over n inputs (cpu::float_adm_dwt_tap).
VX_HD int fadm_dwt_tap(int i, int k, int n) {
  const int m = 2 * i - 1 + k;
  if (m < 0) return -m;
  if (m >= n) return 2 * n - 1 - m;
  return m;
}

// libvmaf's db2 filters (double literals stored as float).
#define FADM_LO0 ((float)0.482962913144690)
#define FADM_LO1 ((float)0.836516303737469)
#define FADM_LO2 ((float)0.224143868041857)
#define FADM_LO3 ((float)-0.129409522550921)
#define FADM_HI0 ((float)-0.129409522550921)
#define FADM_HI1 ((float)-0.224143868041857)
#define FADM_HI2 ((float)0.836516303737469)
#define FADM_HI3 ((float)-0.482962913144690)

VX_HD float fadm_lo(float s0, float s1, float s2, float s3) {
  float accum = 0;
  accum += FADM_LO0 * s0;
  accum += FADM_LO1 * s1;
  accum += FADM_LO2 * s2;
  accum += FADM_LO3 * s3;
  return accum;
}
VX_HD float fadm_hi(float s0, float s1, float s2, float s3) {
  float accum = 0;
  accum += FADM_HI0 * s0;
  accum += FADM_HI1 * s1;
  accum += FADM_HI2 * s2;
  accum += FADM_HI3 * s3;
  return accum;
}

// One sample's decouple (cpu::float_adm_decouple_px): r and a of h, v, d.
VX_HD float fadm_restore(float rst, float t, bool angle_flag, double egl) {
  if (angle_flag && (rst > 0.0)) {
    const double p = rst * egl;
    rst = (float)(p < t ? p : (double)t);
  }
  if (angle_flag && (rst < 0.0)) {
    const double p = rst * egl;
    rst = (float)(p > t ? p : (double)t);
  }
  return rst;
}
VX_HD float fadm_clamp01(float k) { return k < 0.0f ? 0.0f : (k > 1.0f ? 1.0f : k); }

VX_HD void fadm_decouple_px(float oh, float ov, float od, float th, float tv, float td, double egl,
                            float cos_1deg_sq, float r[3], float a[3]) {
  const float eps = (float)1e-30;
  const float kh = fadm_clamp01(th / (oh + eps));
  const float kv = fadm_clamp01(tv / (ov + eps));
  const float kd = fadm_clamp01(td / (od + eps));
  float rst_h = kh * oh;
  float rst_v = kv * ov;
  float rst_d = kd * od;
  const float ot_dp = oh * th + ov * tv;
  const float o_mag_sq = oh * oh + ov * ov;
  const float t_mag_sq = th * th + tv * tv;
  const bool angle_flag = (ot_dp >= 0.0f) && (ot_dp * ot_dp >= cos_1deg_sq * o_mag_sq * t_mag_sq);
  rst_h = fadm_restore(rst_h, th, angle_flag, egl);
  rst_v = fadm_restore(rst_v, tv, angle_flag, egl);
  rst_d = fadm_restore(rst_d, td, angle_flag, egl);
  r[0] = rst_h;
  r[1] = rst_v;
  r[2] = rst_d;
  a[0] = th - rst_h;
  a[1] = tv - rst_v;
  a[2] = td - rst_d;
}

// The masking input of a csf value: float(0.0333333351 * |c|) in double (cpu::float_adm_flt).
VX_HD float fadm_flt(float c) { return (float)(0.0333333351 * (double)fabsf(c)); }

// Three bands (h, v, d) of one kind, `pitch` floats per row.
struct FadmBands3 {
  float* b[3];
};
struct FadmConstBands3 {
  const float* b[3];
};

// The masking threshold at (i, j) of a w x h band (cpu::float_adm_cm_thresh).
VX_HD float fadm_cm_thresh(const FadmConstBands3& csf, const FadmConstBands3& flt, vx_u64 pitch, int w, int h, int i,
                           int j) {
  const int rows[3] = {i == 0 ? 1 : i - 1, i, i == h - 1 ? h - 1 : i + 1};
  const int cols[3] = {j == 0 ? 1 : j - 1, j, j == w - 1 ? w - 1 : j + 1};
  float thr = 0;
  for (int t = 0; t < 3; ++t) {
    float sum = 0;
    for (int y = 0; y < 3; ++y) {
      const float* fr = flt.b[t] + (vx_u64)rows[y] * pitch;
      for (int x = 0; x < 3; ++x) {
        if (y == 1 && x == 1)
          sum = (float)(sum + 0.0666666701 * (double)fabsf(csf.b[t][(vx_u64)i * pitch + (vx_u64)j]));
        else
          sum += fr[cols[x]];
      }
    }
    thr += sum;
  }
  return thr;
}

VX_HD float fadm_pow(float v, double p_norm) {
  if (p_norm == 3.0) return v * v * v;
  return powf(v, (float)p_norm);
}
// One numerator contribution (cpu::float_adm_cm_value) and one denominator contribution (cpu::float_adm_den_value).
VX_HD float fadm_cm_value(float x, float rfactor, float thr, double p_norm) {
  float v = x * rfactor;
  v = fabsf(v) - thr;
  v = v < 0.0f ? 0.0f : v;
  return fadm_pow(v, p_norm);
}
VX_HD float fadm_den_value(float x, float rfactor, double p_norm) { return fadm_pow(fabsf(rfactor * x), p_norm); }

// ---- kernel arguments -------------------------------------------------------------------------------------------

struct FadmPictureArgs {
  VxPlane ref, dist;
  vx_u32 bpc;        // 8, 10, 12 or 16
  vx_u32 reserved;
  float* out_ref;
  float* out_dist;
  vx_u64 out_pitch;
  vx_u32 w, h;
};

// DWT of a w x h input (ref at z = 0, dist at z = 1) into (w + 1) / 2 x (h + 1) / 2 bands.
struct FadmDwtArgs {
  const float* src[2];
  vx_u64 src_pitch;
  float* lo[2];      // vertical pass: w x oh, tmp_pitch
  float* hi[2];
  vx_u64 tmp_pitch;
  float* a[2];       // bands, band_pitch
  float* h[2];
  float* v[2];
  float* d[2];
  vx_u64 band_pitch;
  vx_u32 w, h_in;    // input size
  vx_u32 lo_only;
};

// Decouple and csf over the tap rectangle of a w x h band.
struct FadmDecoupleArgs {
  FadmConstBands3 ref, dist;
  FadmBands3 r, a, csf_a, flt_a, csf_r, flt_r;
  vx_u64 pitch;
  double egl;
  float rfactor[3];
  float cos_1deg_sq;
  vx_i32 left, top, right, bottom;
};

// Contributions over the score rectangle: out[0..2] DLM numerator (h, v, d), out[3..5] AIM numerator, out[6..8]
// denominator, each rect-sized with out_pitch (row i - top, column j - left).
struct FadmCmArgs {
  FadmConstBands3 ref, r, a, csf_a, flt_a, csf_r, flt_r;
  vx_u64 pitch;
  float* out[9];
  vx_u64 out_pitch;
  double p_norm;
  float rfactor[3];
  vx_i32 w, h;
  vx_i32 left, top, right, bottom;
  vx_u32 bypass_cm;
};

struct FadmRowArgs {
  const float* in[9];
  vx_u64 pitch;
  float* out;  // out[plane * n + row]
  vx_u32 rw, n;
};

// The kernels' parameters (kernels/float_adm.hip declares each kernel with its type; the host launches them as
// TypedKernel<...>).
typedef void float_adm_picture_kernel_fn(FadmPictureArgs a);
typedef void float_adm_dwt_v_kernel_fn(FadmDwtArgs a);
typedef void float_adm_dwt_h_kernel_fn(FadmDwtArgs a);
typedef void float_adm_decouple_kernel_fn(FadmDecoupleArgs a);
typedef void float_adm_cm_kernel_fn(FadmCmArgs a);
typedef void float_adm_rowsum_kernel_fn(FadmRowArgs a);
