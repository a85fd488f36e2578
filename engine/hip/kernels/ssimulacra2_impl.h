// SPDX-License-Identifier: LGPL-2.1-or-later
// SSIMULACRA 2.1 (Cloudinary's metric, as its reference tool computes it): the per-pixel and per-row arithmetic,
// shared by the CPU reference (engine/cpu/ssimulacra2.cpp) and the kernels (ssimulacra2.hip), so that both give the
// same floats and doubles:
//   linear RGB  a pixel's Y'CbCr (chroma by nearest sample) to R'G'B' with the matrix and range of the stream
//               (s2_yuv_rgb), clamped to [0, 1] and linearised with the sRGB transfer function as the reference
//               tool evaluates it (s2_srgb_to_linear)
//   downsample  2x2 box averages of linear RGB between scales, the last row and column repeated at odd sizes
//   XYB         the opsin absorbance mix of linear RGB plus its bias, clamped at 0, cube roots (the reference's
//               Newton iteration) minus the bias's cube root; X = (l - m) / 2, Y = (l + m) / 2, B = s; then SSIMULACRA 2's shift to positive values:
//               B - Y + 0.55, 14 X + 0.42, Y + 0.01
//   blur        the recursive Gaussian of sigma 1.5 (Charalampidis 2016, truncated cosines, radius 5, zero outside the
//               image): along rows four outputs per step from the two previous ones, along columns one output per
//               row, each in its own order of float operations (s2_blur_row, s2_blur_column)
//   maps        per pixel, per channel: 1 - SSIM' (SSIM without the luminance denominator) clamped at 0, and the
//               edge ratio (1 + |dist - mu_dist|) / (1 + |ref - mu_ref|) - 1 split into its positive part
//               (ringing) and negative part (blurring); each term and its 4th power, in double
// The reduction is fixed: a row's terms in segments of kS2Segment pixels, each summed left to right from 0, the
// segments of a row added in order (s2_row_sums), and the rows added in order on the host. The reference tool adds
// every pixel in one running sum; the fixed order differs from it by double rounding only.
//
// Floating point: every operation is written out; the builds pass -ffp-contract=off / --fmad=false, so nothing is
// fused but where s2_fma says so (the reference tool's SIMD code fuses exactly there: its blur, colour transfer,
// opsin mix and cube root), and the only other operations are IEEE's basic ones and bit operations, so the host
// compiler and both GPU compilers give the same bits. With the same R'G'B' input the images and blurs equal the
// reference tool's (on a CPU with FMA) bit for bit. The filter's coefficients and the cube root of the
// XYB bias are computed on the host (cpu::ssimulacra2_constants) and passed in.
#pragma once

#include "common.h"

#if !defined(VX_DEVICE_COMPILE)
#include <math.h>
#endif

enum {
  kS2Segment = 64,      // pixels of a row per partial sum
  kS2Terms = 6,         // per channel: ssim, ssim^4, ringing, ringing^4, blurring, blurring^4
  kS2Channels = 3,      // X, Y, B
  kS2Scales = 6,
  kS2Radius = 5,        // the recursive Gaussian's N for sigma 1.5
  kS2TileW = 32,        // 2-D kernels' blocks
  kS2TileH = 8,
  kS2LineThreads = 64,  // row and column kernels' blocks
};

// Y'CbCr to R'G'B' in float: y' = (Y - y_off) * y_scale, c' = (C - c_off) * c_scale, then
// R = y' + cr_r Cr', G = y' + cb_g Cb' + cr_g Cr', B = y' + cb_b Cb'.
struct S2Yuv {
  float y_off, y_scale, c_off, c_scale;
  float cr_r, cb_g, cr_g, cb_b;
};

// The XYB and blur constants (host-computed; see cpu::ssimulacra2_constants).
struct S2Constants {
  float opsin[9];        // the opsin absorbance matrix, row-major
  float bias;            // its bias (the same for the three rows)
  float neg_bias_cbrt;   // -cbrt(bias)
  // The recursive Gaussian, for k = 1, 3, 5 in that order: the column recursion's n2 and d1, and the row
  // recursion's multipliers of the previous output, the one before, and the inputs, per lane of a 4-output step.
  float n2[3], d1[3];
  float mul_prev[12], mul_prev2[12], mul_in[12];
};

// a * b + c rounded once (IEEE fusedMultiplyAdd): the reference tool's SIMD multiply-adds are fused on every x86 CPU
// with FMA (and on ARM), and the blur's recursions carry their rounding along whole rows and columns, so the blur and
// the opsin mix use the fused operation where the reference does. It is an explicit operation, not a contraction:
// the host's fmaf and the GPUs' give the same bits.
VX_HD float s2_fma(float a, float b, float c) {
#if defined(VX_DEVICE_COMPILE)
  return fmaf(a, b, c);
#else
  return ::fmaf(a, b, c);
#endif
}

union S2Bits64 {
  double d;
  vx_u64 u;
};

// The sRGB transfer function as the reference tool evaluates it (its colour management's rational approximation of
// ((x + 0.055) / 1.055)^2.4 above 0.04045, within about 5e-7; x / 12.92 below, as x times the float 1 / 12.92):
// degree-4 numerator and denominator by Horner's scheme with fused multiply-adds, one IEEE division. Its input is
// already clamped to [0, 1].
VX_HD float s2_srgb_to_linear(float x) {
  if (!(x > 0.04045f)) return x * (1.0f / 12.92f);
  const float p[5] = {2.200248328e-04f, 1.043637593e-02f, 1.624820318e-01f, 7.961564959e-01f, 8.210152774e-01f};
  const float q[5] = {2.631846970e-01f, 1.076976492e+00f, 4.987528350e-01f, -5.512498495e-02f, 6.521209011e-03f};
  float yp = p[4], yq = q[4];
  for (int i = 3; i >= 0; --i) {
    yp = s2_fma(yp, x, p[i]);
    yq = s2_fma(yq, x, q[i]);
  }
  return yp / yq;
}

// A pixel's R'G'B' from its samples, clamped to [0, 1] (what a PNG of the picture would hold, before rounding).
VX_HD float s2_clamp01(float v) { return v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f; }
VX_HD void s2_yuv_encoded(const S2Yuv& k, vx_u32 y, vx_u32 cb, vx_u32 cr, float rgb[3]) {
  const float yf = ((float)y - k.y_off) * k.y_scale;
  const float cbf = ((float)cb - k.c_off) * k.c_scale;
  const float crf = ((float)cr - k.c_off) * k.c_scale;
  rgb[0] = s2_clamp01(yf + k.cr_r * crf);
  rgb[1] = s2_clamp01((yf + k.cb_g * cbf) + k.cr_g * crf);
  rgb[2] = s2_clamp01(yf + k.cb_b * cbf);
}
// A pixel's linear RGB from its samples.
VX_HD void s2_yuv_rgb(const S2Yuv& k, vx_u32 y, vx_u32 cb, vx_u32 cr, float rgb[3]) {
  s2_yuv_encoded(k, y, cb, cr, rgb);
  for (int c = 0; c < 3; ++c) rgb[c] = s2_srgb_to_linear(rgb[c]);
}

// The 2x2 average at (ox, oy) of a w x h plane (stride in floats): the four samples added in row order from 0, the
// sum times 1/4; positions past the edge read the last row or column.
VX_HD float s2_downsample_at(const float* in, vx_i64 stride, int w, int h, int ox, int oy) {
  float sum = 0.0f;
  for (int iy = 0; iy < 2; ++iy) {
    const int y = 2 * oy + iy < h - 1 ? 2 * oy + iy : h - 1;
    for (int ix = 0; ix < 2; ++ix) {
      const int x = 2 * ox + ix < w - 1 ? 2 * ox + ix : w - 1;
      sum += in[(vx_i64)y * stride + x];
    }
  }
  return sum * 0.25f;
}

union S2Bits32 {
  float f;
  vx_u32 u;
};

// cbrt(v) + add for v >= 0, as the reference tool computes it: a first guess of v^(-1/3) from the float's bits
// (0x54800000 minus a third of the exponent field, times 0x2aaaaa; 0 for 0), three Newton steps
// r = 4/3 r - v/3 r^4 and a fourth r + (r - v r^4) / 3, each with the reference's fused multiply-adds, then
// r^2 v + add.
VX_HD float s2_cbrt_add(float v, float add) {
  const float third = 1.0f / 3, four_thirds = 4.0f / 3;
  const float v3 = third * v;
  S2Bits32 b;
  b.f = v;
  const vx_i32 bits = (vx_i32)b.u;
  b.u = bits == 0 ? 0u : (vx_u32)(0x54800000 - (bits >> 23) * 0x002AAAAA);
  float r = b.f;
  for (int i = 0; i < 3; ++i) {
    const float r2 = r * r;
    r = s2_fma(-v3, r2 * r2, four_thirds * r);
  }
  float r2 = r * r;
  r = s2_fma(third, s2_fma(-v, r2 * r2, r), r);
  r2 = r * r;
  return s2_fma(r2, v, add);
}

// XYB of a linear RGB pixel, shifted to SSIMULACRA 2's positive range.
VX_HD void s2_xyb(const S2Constants& k, float r, float g, float b, float out[3]) {
  float mixed[3];
  for (int i = 0; i < 3; ++i) {
    float t = s2_fma(k.opsin[3 * i + 2], b, k.bias);
    t = s2_fma(k.opsin[3 * i + 1], g, t);
    t = s2_fma(k.opsin[3 * i + 0], r, t);
    if (t < 0.0f) t = 0.0f;
    mixed[i] = s2_cbrt_add(t, k.neg_bias_cbrt);
  }
  const float x = 0.5f * (mixed[0] - mixed[1]);
  const float y = 0.5f * (mixed[0] + mixed[1]);
  out[0] = x * 14.0f + 0.42f;
  out[1] = y + 0.01f;
  out[2] = (mixed[2] - y) + 0.55f;
}

// One pixel of the blur's input planes: the products of SSIM's second moments (img1^2, img2^2, img1 img2).
VX_HD float s2_product(float a, float b) { return a * b; }

// The row recursion of the blur over `width` samples of in (step in_step) into out (step out_step): zero outside.
// Outputs come in groups of four from the two previous ones, with scalar steps at both ends (their borders).
VX_HD void s2_blur_row(const S2Constants& k, const float* in, vx_i64 in_step, int width, float* out,
                       vx_i64 out_step) {
  const int N = kS2Radius;
  float prev[3] = {0, 0, 0}, prev2[3] = {0, 0, 0};
  int n = -N + 1;
  const int first_aligned = ((N + 1) + 3) / 4 * 4;
  const int scalar_end = first_aligned < width ? first_aligned : width;
  // A scalar step at n: the recursion with the lane-0 multipliers.
#define S2_SCALAR_STEP(write)                                                                     \
  {                                                                                               \
    const int left = n - N - 1, right = n + N - 1;                                                \
    const float lv = left >= 0 ? in[(vx_i64)left * in_step] : 0.0f;                               \
    const float rv = right < width ? in[(vx_i64)right * in_step] : 0.0f;                          \
    const float sum = lv + rv;                                                                    \
    float o[3];                                                                                   \
    for (int c = 0; c < 3; ++c) {                                                                 \
      float v = sum * k.mul_in[4 * c];                                                            \
      v = s2_fma(k.mul_prev2[4 * c], prev2[c], v);                                                \
      prev2[c] = prev[c];                                                                         \
      v = s2_fma(k.mul_prev[4 * c], prev[c], v);                                                  \
      prev[c] = v;                                                                                \
      o[c] = v;                                                                                   \
    }                                                                                             \
    if (write) out[(vx_i64)n * out_step] = o[0] + (o[1] + o[2]);                                  \
  }
  for (; n < scalar_end; ++n) S2_SCALAR_STEP(n >= 0)
  for (; n < width - N + 1 - 3; n += 4) {
    float sum[4];
    for (int j = 0; j < 4; ++j) sum[j] = in[(vx_i64)(n - N - 1 + j) * in_step] + in[(vx_i64)(n + N - 1 + j) * in_step];
    float o[3][4];
    for (int c = 0; c < 3; ++c) {
      const float* mi = k.mul_in + 4 * c;
      for (int j = 0; j < 4; ++j) {
        float v = sum[0] * mi[j];
        for (int i = 1; i < 4; ++i) v = s2_fma(j >= i ? mi[j - i] : 0.0f, sum[i], v);
        v = s2_fma(k.mul_prev2[4 * c + j], prev2[c], v);
        v = s2_fma(k.mul_prev[4 * c + j], prev[c], v);
        o[c][j] = v;
      }
      prev2[c] = o[c][2];
      prev[c] = o[c][3];
    }
    for (int j = 0; j < 4; ++j) out[(vx_i64)(n + j) * out_step] = o[0][j] + (o[1][j] + o[2][j]);
  }
  for (; n < width; ++n) S2_SCALAR_STEP(true)
#undef S2_SCALAR_STEP
}

// One step of the column recursion: the input sum of this output row (the rows n - 6 and n + 4, zero outside),
// the two previous outputs of each of the three recursions (updated), and the output.
VX_HD float s2_blur_column_step(const S2Constants& k, float sum, float y1[3], float y2[3]) {
  float o[3];
  for (int c = 0; c < 3; ++c) {
    const float t = s2_fma(-k.d1[c], y1[c], -y2[c]);  // -(d1 y1) - y2, rounded once
    const float v = s2_fma(k.n2[c], sum, t);
    y2[c] = y1[c];
    y1[c] = v;
    o[c] = v;
  }
  return o[0] + (o[1] + o[2]);
}
// The input sum of output row n of a column of `height` samples: row n + 4 alone while row n - 6 is outside, else
// row n - 6 plus row n + 4 (0 past the bottom).
VX_HD float s2_column_input(const float* in, vx_i64 pitch, int height, int n) {
  const int top = n - kS2Radius - 1, bottom = n + kS2Radius - 1;
  const float b = bottom < height ? in[(vx_i64)bottom * pitch] : 0.0f;
  return top >= 0 ? in[(vx_i64)top * pitch] + b : b;
}

// The column recursion of the blur: `height` samples of a column of in (rows `pitch` floats apart) into out (the
// same pitch). Rows -4 .. -1 only warm the recursion up.
VX_HD void s2_blur_column(const S2Constants& k, const float* in, vx_i64 pitch, int height, float* out) {
  float y1[3] = {0, 0, 0}, y2[3] = {0, 0, 0};
  for (int n = -kS2Radius + 1; n < height; ++n) {
    const float v = s2_blur_column_step(k, s2_column_input(in, pitch, height, n), y1, y2);
    if (n >= 0) out[(vx_i64)n * pitch] = v;
  }
}

// A pixel's six terms of one channel: mu1, mu2 the blurred images, s11, s22, s12 the blurred products, a, b the
// images (reference and distorted).
VX_HD void s2_pixel_terms(float mu1, float mu2, float s11, float s22, float s12, float a, float b, double t[kS2Terms]) {
  const float mu11 = mu1 * mu1, mu22 = mu2 * mu2, mu12 = mu1 * mu2;
  const float diff = mu1 - mu2;
  const float num_m = (float)(1.0 - (double)(diff * diff));
  const float num_s = 2.0f * (s12 - mu12) + 0.0009f;
  const float denom_s = (s11 - mu11) + (s22 - mu22) + 0.0009f;
  double d = 1.0 - (double)(num_m * num_s / denom_s);
  d = d < 0.0 ? 0.0 : d;  // max(d, 0), NaN kept
  double d2 = d * d;
  t[0] = d;
  t[1] = d2 * d2;
  const float ea = a - mu1 < 0.0f ? -(a - mu1) : a - mu1;
  const float eb = b - mu2 < 0.0f ? -(b - mu2) : b - mu2;
  const double d1 = (1.0 + (double)eb) / (1.0 + (double)ea) - 1.0;
  const double art = d1 < 0.0 ? 0.0 : d1;
  const double lost = -d1 < 0.0 ? 0.0 : -d1;
  d2 = art * art;
  t[2] = art;
  t[3] = d2 * d2;
  d2 = lost * lost;
  t[4] = lost;
  t[5] = d2 * d2;
}

// The six sums of pixels [x0, x1) of one row of one channel (planes row pointers), each from 0, left to right.
VX_HD void s2_segment_sums(const float* mu1, const float* mu2, const float* s11, const float* s22, const float* s12,
                           const float* a, const float* b, int x0, int x1, double out[kS2Terms]) {
  for (int i = 0; i < kS2Terms; ++i) out[i] = 0.0;
  for (int x = x0; x < x1; ++x) {
    double t[kS2Terms];
    s2_pixel_terms(mu1[x], mu2[x], s11[x], s22[x], s12[x], a[x], b[x], t);
    for (int i = 0; i < kS2Terms; ++i) out[i] = out[i] + t[i];
  }
}

// A row's sums from its segments' (segments x kS2Terms doubles), added in order from 0.
VX_HD void s2_row_sums(const double* seg, int segments, double out[kS2Terms]) {
  for (int i = 0; i < kS2Terms; ++i) out[i] = 0.0;
  for (int s = 0; s < segments; ++s)
    for (int i = 0; i < kS2Terms; ++i) out[i] = out[i] + seg[s * kS2Terms + i];
}

VX_HD int s2_segments(int width) { return (width + kS2Segment - 1) / kS2Segment; }

// The kernels' planes (ssimulacra2.hip): per scale, w x h floats each, pitch w.
//   lin      6 planes: linear R, G, B of the reference, then of the distorted picture
//   xyb      6 planes: X, Y, B of the reference, then of the distorted picture
//   prod     9 planes: per channel c, planes 3c .. 3c + 2: ref^2, dist^2, ref dist
//   blurred  15 planes: the blurred prod planes (0 .. 8), then the blurred xyb planes (9 .. 14: mu)
// A blur input plane q (0 .. 14) is prod plane q for q < 9, else xyb plane q - 9.
enum { kS2LinPlanes = 6, kS2ProdPlanes = 9, kS2BlurPlanes = 15 };

typedef void ssimulacra2_linear_kernel_fn(VxPlane ry, VxPlane rcb, VxPlane rcr, VxPlane dy, VxPlane dcb, VxPlane dcr, S2Yuv k,
                                 vx_u32 w, vx_u32 h, vx_u32 sx, vx_u32 sy, vx_u32 has_chroma, float* lin);
typedef void ssimulacra2_downsample_kernel_fn(const float* in, vx_u32 pw, vx_u32 ph, float* out, vx_u32 w, vx_u32 h);
typedef void ssimulacra2_xyb_kernel_fn(const float* lin, vx_u32 n, S2Constants k, float* xyb, float* prod);
typedef void ssimulacra2_blur_rows_kernel_fn(const float* prod, const float* xyb, vx_u32 w, vx_u32 h, S2Constants k, float* tmp);
typedef void ssimulacra2_blur_cols_kernel_fn(const float* tmp, vx_u32 w, vx_u32 h, S2Constants k, float* blurred);
// seg: per row y, channel c and segment s, kS2Terms doubles at ((y * 3 + c) * segments + s) * kS2Terms.
typedef void ssimulacra2_segments_kernel_fn(const float* blurred, const float* xyb, vx_u32 w, vx_u32 h, double* seg);
// rows: per row y and channel c, kS2Terms doubles at (y * 3 + c) * kS2Terms (cpu::ssimulacra2_from_rows' layout).
typedef void ssimulacra2_rows_kernel_fn(const double* seg, vx_u32 h, vx_u32 segments, double* rows);
