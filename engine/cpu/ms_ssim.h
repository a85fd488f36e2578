// SPDX-License-Identifier: LGPL-2.1-or-later
// libvmaf's "float_ms_ssim" (float_ms_ssim.c over ms_ssim.c and the IQA code): Wang's five-scale MS-SSIM.
//   1. convert the luma to float as float_ssim does (ssim.h, plane_to_float);
//   2. build scales 1..4 by filtering with the 9x9 9/7 biorthogonal low-pass (2-D, symmetric borders) at every other
//      pixel: each scale is ceil(w / 2) x ceil(h / 2) of the one before;
//   3. run the default single-scale SSIM (ssim.h: Gaussian moments and pooling) on each scale, keeping the float
//      means of luminance, contrast and structure;
//   4. combine: the product over scales of l^alpha * c^beta * s^gamma in double, with libvmaf's float exponents.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/plane.h"
#include "cpu/ssim.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

inline constexpr int kMsSsimScales = 5;
inline constexpr int kMsSsimLpfLen = 9;
// The 9x9 decimation low-pass, row-major (libvmaf's table; it is not exactly the outer product of its 1-D taps).
extern const float kMsSsimLpf[kMsSsimLpfLen * kMsSsimLpfLen];
// Per-scale exponents of luminance, contrast and structure.
extern const float kMsSsimAlpha[kMsSsimScales];
extern const float kMsSsimBeta[kMsSsimScales];
extern const float kMsSsimGamma[kMsSsimScales];

// Next scale: the low-pass sampled at even pixels into dst (packed, decimated_size(w, 2) x decimated_size(h, 2)).
void ms_ssim_decimate(const float* src, int w, int h, float* dst, int* dw, int* dh);

// Step 4 on the per-scale means; +infinity as soon as the running product overflows (libvmaf then fails).
double ms_ssim_combine(const SsimMeans scales[kMsSsimScales]);

// float_ms_ssim's values: the score (in dB with r.db), then with r.lcs libvmaf's float_ms_ssim_l_scale0..4,
// _c_scale0..4, _s_scale0..4 (ms_ssim_value_count of them).
inline size_t ms_ssim_value_count(const SsimReport& r) { return r.lcs ? 1 + 3 * kMsSsimScales : 1; }
void ms_ssim_values(const SsimReport& r, double score, const SsimMeans scales[kMsSsimScales], double* out);

// float_ms_ssim of one luma pair. One object per thread: compute() reuses the buffers sized by init().
class MsSsim {
 public:
  // libvmaf's limit: the 11-tap window must fit every scale, counting sizes as floor(w / 2^i) for i = 0..4, so
  // w, h >= 176. Also w * h must fit IQA's int arithmetic.
  static Status check_size(uint32_t w, uint32_t h);
  Status init(uint32_t w, uint32_t h, unsigned bpc);
  // ref and dist: luma planes of the size and depth given to init(). *score is float_ms_ssim.
  Status compute(const Plane& ref, const Plane& dist, double* score);
  // Per-scale means of the last compute() (libvmaf's enable_lcs outputs l/c/s_scale0..4).
  const SsimMeans* last_scales() const { return scales_; }

 private:
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 0;
  float divisor_ = 1.f;
  int sw_[kMsSsimScales] = {}, sh_[kMsSsimScales] = {};
  std::vector<float> ref_[kMsSsimScales], dist_[kMsSsimScales];
  SsimMoments moments_;
  SsimMeans scales_[kMsSsimScales];
};

}  // namespace vmafx::cpu
