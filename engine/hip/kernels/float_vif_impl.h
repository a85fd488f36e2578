// SPDX-License-Identifier: LGPL-2.1-or-later
// Float VIF's kernel arithmetic (kernels/float_vif.hip), shared with host tests: per pixel, exactly the CPU
// reference's (engine/cpu/float_vif.cpp) operations. The kernels of a frame, per scale s (float_vif_gpu.cpp):
//   s == 0   float_vif_picture_kernel     the float picture of ref and dist (and float_vif_scale_kernel when
//                                        vif_prescale != 1, with per-column / per-row tables made on the host by the
//                                        CPU reference's own functions)
//   s > 0    float_vif_decimate_v_kernel  the vertical pass of scale s's filter on the even rows of scale s - 1
//            float_vif_decimate_h_kernel  its horizontal pass at the even columns: the image of scale s
//            float_vif_vertical_kernel    vertical passes of mu1, mu2, xx, yy, xy (one thread per pixel)
//            float_vif_stat_kernel        their horizontal passes and the statistic: num, den per pixel
//            float_vif_rowsum_kernel      num and den summed per row in float, left to right (one thread per row)
// The row sums go back to the host, which adds them up in row order (cpu::float_vif_sum_rows): the CPU's order.
#pragma once

#include "float_impl.h"

#define FVIF_SCALES 4
#define FVIF_MAX_TAPS 128
#define FVIF_BLOCK_X 32   // 2-D kernels: FVIF_BLOCK_X x FVIF_BLOCK_Y threads, one pixel each
#define FVIF_BLOCK_Y 8
#define FVIF_ROW_THREADS 64  // float_vif_rowsum_kernel: threads per block, one row each

// Constants of the statistic (cpu::FloatVifStatConsts).
struct FvifStat {
  double sigma_nsq;
  float enhn_gain_limit;
  float sigma_max_inv;
};

// libvmaf's log2 approximation (cpu::float_vif_log2): a degree-8 polynomial of the mantissa in float.
VX_HD float fvif_log2(float x) {
  FxBits b;
  if (x == 0) {
    b.u = 0xff800000u;  // -infinity
    return b.f;
  }
  if (x < 0) {
    b.u = 0x7fc00000u;  // quiet NaN
    return b.f;
  }
  b.f = x;
  const vx_u32 exponent = (b.u & 0x7F800000u) >> 23;
  FxBits r;
  r.u = (b.u & 0x007FFFFFu) | 0x3F800000u;
  const float log_base = (float)((vx_i32)exponent - 127);
  const float m = r.f - 1.0f;
  // The polynomial's coefficients: libvmaf's double literals stored as float.
  const float poly[9] = {(float)-0.012671635276421, (float)0.064841182402670, (float)-0.157048836463065,
                         (float)0.257167726303123,  (float)-0.353800560300520, (float)0.480131410397451,
                         (float)-0.721314327952201, (float)1.442694803896991,  (float)0};
  float var = 0;
  for (int i = 0; i < 9; ++i) var = var * m + poly[i];
  return log_base + var;
}

// The statistic of one pixel (cpu::float_vif_stat).
VX_HD void fvif_stat(float mu1, float mu2, float xx, float yy, float xy, const FvifStat& c, float* num, float* den) {
  const float eps = 1.0e-10f;
  const float mu1_sq = mu1 * mu1;
  const float mu2_sq = mu2 * mu2;
  const float mu1_mu2 = mu1 * mu2;
  float sigma1_sq = xx - mu1_sq;
  float sigma2_sq = yy - mu2_sq;
  const float sigma12 = xy - mu1_mu2;
  sigma1_sq = sigma1_sq > 0.0f ? sigma1_sq : 0.0f;
  sigma2_sq = sigma2_sq > 0.0f ? sigma2_sq : 0.0f;
  float g = sigma12 / (sigma1_sq + eps);
  float sv_sq = sigma2_sq - g * sigma12;
  if (sigma1_sq < eps) {
    g = 0.0f;
    sv_sq = sigma2_sq;
    sigma1_sq = 0.0f;
  }
  if (sigma2_sq < eps) {
    g = 0.0f;
    sv_sq = 0.0f;
  }
  if (g < 0.0f) {
    sv_sq = sigma2_sq;
    g = 0.0f;
  }
  sv_sq = sv_sq > eps ? sv_sq : eps;
  g = g < c.enhn_gain_limit ? g : c.enhn_gain_limit;
  float num_val = fvif_log2((float)(1.0f + (double)(g * g * sigma1_sq) / ((double)sv_sq + c.sigma_nsq)));
  float den_val = fvif_log2((float)(1.0f + (double)sigma1_sq / c.sigma_nsq));
  if (sigma12 < 0.0f) num_val = 0.0f;
  if ((double)sigma1_sq < c.sigma_nsq) {
    num_val = 1.0f - sigma2_sq * c.sigma_max_inv;
    den_val = 1.0f;
  }
  *num = num_val;
  *den = den_val;
}

// ---- filter passes (one output each; the taps added in order from 0, as cpu::float_vif_vertical_row / _at) ----

// Vertical pass at (x, y) of the five filtered images of ref r and dist d: mu1, mu2, xx, yy, xy.
VX_HD void fvif_vertical5(const float* taps, int fw, const float* r, const float* d, vx_u64 pitch, int h, int x,
                          int y, float out[5]) {
  float mu1 = 0, mu2 = 0, xx = 0, yy = 0, xy = 0;
  for (int k = 0; k < fw; ++k) {
    const vx_u64 o = (vx_u64)fx_mirror(y - fw / 2 + k, h) * pitch + (vx_u64)x;
    const float t = taps[k];
    const float a = r[o], b = d[o];
    mu1 += t * a;
    mu2 += t * b;
    xx += t * (a * a);
    yy += t * (b * b);
    xy += t * (a * b);
  }
  out[0] = mu1;
  out[1] = mu2;
  out[2] = xx;
  out[3] = yy;
  out[4] = xy;
}

// Vertical pass of one image at (x, y).
VX_HD float fvif_vertical1(const float* taps, int fw, const float* src, vx_u64 pitch, int h, int x, int y) {
  float accum = 0;
  for (int k = 0; k < fw; ++k) accum += taps[k] * src[(vx_u64)fx_mirror(y - fw / 2 + k, h) * pitch + (vx_u64)x];
  return accum;
}

// Horizontal pass of a row at x.
VX_HD float fvif_horizontal(const float* taps, int fw, const float* row, int w, int x) {
  float accum = 0;
  for (int k = 0; k < fw; ++k) accum += taps[k] * row[fx_mirror(x - fw / 2 + k, w)];
  return accum;
}

// ---- prescaling (cpu::float_vif_scale_frame; the tables come from the CPU reference's tap functions) ----------

// Methods, in libvmaf's enum order (cpu::VifScaleMethod).
#define FVIF_NEAREST 0
#define FVIF_BICUBIC 1
#define FVIF_LANCZOS4 2
#define FVIF_BILINEAR 3

// The bilinear value (cpu::float_vif_bilinear_value).
VX_HD float fvif_bilinear_px(const float* r1, const float* r2, int x1, int x2, float dx, float dy) {
  return (1 - dy) * (1 - dx) * r1[x1] + (1 - dy) * dx * r1[x2] + dy * (1 - dx) * r2[x1] + dy * dx * r2[x2];
}

// The bicubic (k = 4) or lanczos4 (k = 9) value from the mirrored source indices and weights of the pixel's column
// and row: rows outer, columns inner; lanczos4 also sums the weights and divides by them.
VX_HD float fvif_interp_px(const float* src, vx_u64 pitch, const vx_i32* xi, const float* wx, const vx_i32* yi,
                           const float* wy, int k, bool normalise) {
  float value = 0.0f, weight_sum = 0.0f;
  for (int j = 0; j < k; ++j) {
    const float* row = src + (vx_u64)yi[j] * pitch;
    for (int i = 0; i < k; ++i) {
      const float weight = wx[i] * wy[j];
      if (normalise) weight_sum += weight;
      value += row[xi[i]] * weight;
    }
  }
  return normalise ? value / weight_sum : value;
}

// ---- kernel arguments (each kernel takes one struct by value) ----------------------------------------------------

struct FvifPictureArgs {
  VxPlane ref, dist;
  vx_u32 bpc;        // 8, 10, 12 or 16
  vx_u32 reserved;
  float* out_ref;
  float* out_dist;
  vx_u64 out_pitch;  // floats
  vx_u32 w, h;
};

// Tables per output column (and per row): nearest: idx[i]; bilinear: idx[2 i], idx[2 i + 1], weight[i];
// bicubic / lanczos4: idx[k i + j], weight[k i + j].
struct FvifScaleArgs {
  const float* src_ref;
  const float* src_dist;
  vx_u64 src_pitch;
  float* dst_ref;
  float* dst_dist;
  vx_u64 dst_pitch;
  const vx_i32* col_idx;
  const float* col_w;
  const vx_i32* row_idx;
  const float* row_w;
  vx_u32 dw, dh;
  vx_u32 method, k;
};

struct FvifFilterArgs {
  const float* ref;
  const float* dist;
  vx_u64 pitch;  // floats, of the images and of the outputs
  const float* taps;
  float* mu1;
  float* mu2;
  float* xx;
  float* yy;
  float* xy;
  vx_i32 fw;
  vx_u32 w, h;
};

struct FvifStatArgs {
  const float* mu1;
  const float* mu2;
  const float* xx;
  const float* yy;
  const float* xy;
  vx_u64 pitch;
  const float* taps;
  float* num;
  float* den;
  FvifStat c;
  vx_i32 fw;
  vx_u32 w, h;
};

// Decimation of scale s - 1 (src_w x src_h) into scale s (dst_w x dst_h = src / 2) with scale s's filter; tmp
// holds the vertical pass at the even rows (dst_h rows of src_w).
struct FvifDecimateArgs {
  const float* src_ref;
  const float* src_dist;
  vx_u64 src_pitch;
  float* tmp_ref;
  float* tmp_dist;
  vx_u64 tmp_pitch;
  float* dst_ref;
  float* dst_dist;
  vx_u64 dst_pitch;
  const float* taps;
  vx_i32 fw;
  vx_u32 src_w, src_h, dst_w, dst_h;
};

struct FvifRowArgs {
  const float* a;
  const float* b;
  vx_u64 pitch;
  float* out_a;
  float* out_b;
  vx_u32 w, h;
};

// The kernels' parameters (kernels/float_vif.hip declares each kernel with its type; the host launches them as
// TypedKernel<...>).
typedef void float_vif_picture_kernel_fn(FvifPictureArgs a);
typedef void float_vif_scale_kernel_fn(FvifScaleArgs a);
typedef void float_vif_vertical_kernel_fn(FvifFilterArgs a);
typedef void float_vif_stat_kernel_fn(FvifStatArgs a);
typedef void float_vif_decimate_v_kernel_fn(FvifDecimateArgs a);
typedef void float_vif_decimate_h_kernel_fn(FvifDecimateArgs a);
typedef void float_vif_rowsum_kernel_fn(FvifRowArgs a);
