// SPDX-License-Identifier: LGPL-2.1-or-later
// float_ansnr (libvmaf 3.2's float_ansnr.c, ansnr.c, ansnr_tools.c: the 2-D filters, zero-offset build options):
// per pixel the reference filtered by a 3x3 and the distorted picture by a 5x5 kernel (libvmaf's float taps, rows
// summed into a float, rows added), both on picture_copy's values (sample - 128, deeper samples divided first),
// edges mirrored as libvmaf's ansnr_filter2d_s does (-k reads k, n - 1 + k reads n - k: the edge sample repeats on
// the far side only); then the two terms a pixel adds to the row sums, ref_f^2 and (ref_f - dist_f)^2 in float.
// The CPU reference (engine/cpu/float_ansnr.cpp) and the kernels (float_ansnr.hip) compute the same functions; each
// row is summed in float from left to right (fx_row_sum) and the rows' sums are added on the host in row order.
#pragma once

#include "float_impl.h"

enum {
  FAN_TILE_W = 32,  // float_ansnr_terms_kernel's block: FAN_TILE_W x FAN_TILE_H threads
  FAN_TILE_H = 8,
  FAN_ROW_THREADS = 128,  // float_ansnr_rows_kernel's block (one thread per row)
  FAN_REF_WIDTH = 3,
  FAN_DIS_WIDTH = 5,
};

// libvmaf's ansnr_filter2d_ref_s and ansnr_filter2d_dis_s: double fractions stored as float, row-major.
struct FanTaps {
  float ref[FAN_REF_WIDTH * FAN_REF_WIDTH];
  float dis[FAN_DIS_WIDTH * FAN_DIS_WIDTH];
};
VX_HD void fan_taps(FanTaps* t) {
  const int ref_num[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
  const int dis_num[25] = {2, 7, 12, 7, 2, 7, 31, 52, 31, 7, 12, 52, 127, 52, 12, 7, 31, 52, 31, 7, 2, 7, 12, 7, 2};
  for (int k = 0; k < 9; ++k) t->ref[k] = (float)((double)ref_num[k] / 16.0);
  for (int k = 0; k < 25; ++k) t->dis[k] = (float)((double)dis_num[k] / 571.0);
}

// ansnr_filter2d_s's mirror (without ANSNR_OPT_BORDER_REPLICATE): -k reads k, n + k reads n - 1 - k.
VX_HD int fan_mirror(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 1 : i); }

// The filtered value at (i, j) of a w x h picture read through src(x, y) (a float value): for each filter row a
// float sum over its taps, the rows' sums added into a float.
template <class Src>
VX_HD float fan_filter_at(const Src& src, const float* taps, int fw, int w, int h, int i, int j) {
  float accum = 0;
  for (int fi = 0; fi < fw; ++fi) {
    float inner = 0;
    const int ii = fan_mirror(i - fw / 2 + fi, h);
    for (int fj = 0; fj < fw; ++fj) inner += taps[fi * fw + fj] * src(fan_mirror(j - fw / 2 + fj, w), ii);
    accum += inner;
  }
  return accum;
}

// The two terms of a pixel from its filtered values (ansnr_mse_s).
VX_HD float fan_sig_term(float ref_f) { return ref_f * ref_f; }
VX_HD float fan_noise_term(float ref_f, float dis_f) { return (ref_f - dis_f) * (ref_f - dis_f); }

// A plane of the frame as picture_copy's values with offset -128 (the filters' source on the device).
struct FanPlaneSource {
  VxPlane p;
  vx_u32 bpc;
  VX_HD float operator()(int x, int y) const { return fx_picture_sample(fx_read_sample(p, (vx_u32)x, (vx_u32)y), bpc); }
};

// sig and noise: w x h floats each (row-major, pitch w). row_sums: 2 floats per row (sig, noise).
typedef void float_ansnr_terms_kernel_fn(VxPlane ref, VxPlane dist, vx_u32 bpc, float* sig, float* noise);
typedef void float_ansnr_rows_kernel_fn(const float* sig, const float* noise, vx_u32 w, vx_u32 h, float* row_sums);
