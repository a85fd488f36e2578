// SPDX-License-Identifier: LGPL-2.1-or-later
// libvmaf's "float_ssim" (float_ssim.c over the IQA code in iqa/ and ssim.c), reproduced stage by stage so that each
// stage gives the same floats as libvmaf's C path:
//   1. convert:   luma samples to float, divided by 2^(bpc - 8) (libvmaf's picture_copy); 8-bit as is.
//   2. decimate:  when min(w, h) >= 384, a box low-pass of `scale` x `scale` taps sampled every `scale` pixels,
//                 symmetric borders (scale = round(min(w, h) / 256)).
//   3. moments:   11-tap Gaussian (separable, "valid" region: (w - 10) x (h - 10)) of ref, dist, ref^2, dist^2 and
//                 ref * dist; then variances and covariance, variances clamped at 0.
//   4. pool:      per pixel luminance, contrast and structure terms (K1 0.01, K2 0.03, L 255), summed in double and
//                 averaged; the score is rounded to float as libvmaf does.
// Float vs double follows libvmaf exactly (products of floats are rounded to float before a double sum); the build
// uses -ffp-contract=off so no step is fused. float_ms_ssim (ms_ssim.h) reuses stages 1, 3 and 4.
// plane_to_float, decimate, ssim_gaussian_valid, ssim_moments and ssim_pool run the implementation of
// cpu::simd_level() (simd/kernels.h: vectors across output pixels, each lane with the scalar order of operations,
// so the same floats); the *_scalar functions are the plain C++ ones, the oracle of the others.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpu/plane.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

// ---- Stage 1: float conversion ------------------------------------------------------------------------------------

// libvmaf converts 8, 10, 12 and 16-bit luma (divisors 1, 4, 16, 256); other depths are refused (libvmaf would read
// their 16-bit words as bytes).
Status ssim_float_divisor(unsigned bpc, float* divisor);
// Writes p.w x p.h floats, `dst_stride` floats apart per row: float(sample) / divisor (8-bit: float(sample)).
void plane_to_float(const Plane& p, float divisor, float* dst, size_t dst_stride);
void plane_to_float_scalar(const Plane& p, float divisor, float* dst, size_t dst_stride);

// ---- Stage 2: decimation ------------------------------------------------------------------------------------------

// Size after decimating n samples by `factor`, as IQA computes it: n / factor, plus one when n is odd.
inline int decimated_size(int n, int factor) { return n / factor + (n & 1); }

// One output of a kw x kh 2-D kernel centred at (x, y) (centre tap kw / 2, kh / 2; even kernels reach one tap less
// to the right and below), mirrored at the borders (-1 -> 0, w -> w - 1), float products summed in double row by row.
float filter_pixel_symmetric(const float* img, int w, int h, int x, int y, const float* kernel, int kw, int kh);

// Filters `src` (w x h, packed) with `kernel` at every `factor`-th pixel into `dst` (packed, decimated_size() of each
// axis, written to *dw, *dh). dst must not overlap src.
void decimate(const float* src, int w, int h, int factor, const float* kernel, int kw, int kh, float* dst, int* dw,
              int* dh);
void decimate_scalar(const float* src, int w, int h, int factor, const float* kernel, int kw, int kh, float* dst,
                     int* dw, int* dh);

// SSIM's automatic scale: max(1, round(min(w, h) / 256)) with IQA's rounding.
int ssim_scale_factor(int w, int h);
// The decimation factor of libvmaf's `scale` option: `scale` when above 0, else ssim_scale_factor(w, h).
inline int ssim_scale_for(int w, int h, int scale) { return scale > 0 ? scale : ssim_scale_factor(w, h); }
// The scale x scale box kernel SSIM decimates with: every tap 1.0f / (scale * scale).
std::vector<float> ssim_box_kernel(int scale);

// ---- Stage 3: moments ---------------------------------------------------------------------------------------------

inline constexpr int kSsimWindow = 11;
// libvmaf's separable Gaussian taps (sigma 1.5); the same vector filters rows and columns.
extern const float kSsimGaussian[kSsimWindow];

// Valid-region Gaussian of a packed w x h image: dst is (w - 10) x (h - 10), packed. Rows are filtered first into
// `tmp` ((w - 10) x h floats), then columns. dst may be src.
void ssim_gaussian_valid(const float* src, int w, int h, float* tmp, float* dst);
void ssim_gaussian_valid_scalar(const float* src, int w, int h, float* tmp, float* dst);

// Buffers of one SSIM evaluation; valid-region maps are (w - 10) x (h - 10), packed.
struct SsimMoments {
  std::vector<float> mu_ref, mu_dist;  // Gaussian means
  std::vector<float> var_ref, var_dist, cov;  // variances (>= 0) and covariance
  std::vector<float> tmp;  // row-filter scratch
  int w = 0, h = 0;        // valid-region size of the last ssim_moments() call
  // Sizes the buffers for w x h input; out_of_memory if allocation fails.
  Status reserve(int w, int h);
};

// Fills m (reserved for at least w x h) from packed w x h images (w, h >= 11).
void ssim_moments(const float* ref, const float* dist, int w, int h, SsimMoments* m);
void ssim_moments_scalar(const float* ref, const float* dist, int w, int h, SsimMoments* m);

// ---- Stage 4: pooling ---------------------------------------------------------------------------------------------

// Means over the valid region, each rounded to float as IQA returns them.
struct SsimMeans {
  float ssim = 0.f;
  float l = 0.f, c = 0.f, s = 0.f;  // luminance, contrast, structure
};
SsimMeans ssim_pool(const SsimMoments& m);
SsimMeans ssim_pool_scalar(const SsimMoments& m);

// Stages 3 and 4 on one scale: IQA's default SSIM of two packed w x h images (w, h >= 11).
SsimMeans ssim_single_scale(const float* ref, const float* dist, int w, int h, SsimMoments* m);

// ---- What the features report -------------------------------------------------------------------------------------

// libvmaf's output options of float_ssim and float_ms_ssim: enable_db writes the score as -10 log10(1 - score),
// capped with clip_db at ceil(10 log10(peak^2 / (0.5 / (w * h)))) (peak 2^bpc - 1, w x h the luma size; without
// clip_db not capped, so identical pictures give +infinity, which libvmaf's JSON writes as null); enable_lcs adds the
// luminance, contrast and structure means (of each scale for MS-SSIM), never in dB. Shared by the CPU features and
// the GPU ones, so both report the same doubles from the same means.
struct SsimReport {
  bool db = false;
  double max_db = 0.0;  // the cap with enable_db (+infinity without clip_db)
  bool lcs = false;
};
SsimReport ssim_report(bool enable_db, bool clip_db, bool enable_lcs, uint32_t w, uint32_t h, unsigned bpc);
// libvmaf's convert_to_db: min(-10 log10(1 - score), max_db), with libvmaf's MIN (a NaN takes max_db).
double ssim_to_db(double score, double max_db);
// float_ssim's values: the score (in dB with r.db), then with r.lcs float_ssim_l, _c, _s.
inline size_t ssim_value_count(const SsimReport& r) { return r.lcs ? 4 : 1; }
void ssim_values(const SsimReport& r, const SsimMeans& m, double* out);

// ---- The feature --------------------------------------------------------------------------------------------------

// float_ssim of one luma pair. One object per thread: compute() reuses the buffers sized by init().
class Ssim {
 public:
  // Smallest input: the 11-tap window must fit once (w, h >= 11), after the decimation of `scale` (libvmaf's
  // option: 0 automatic, ssim_scale_factor; 1 none; 2..10 that factor); w * h must fit IQA's int arithmetic.
  static Status check_size(uint32_t w, uint32_t h, int scale = 0);
  Status init(uint32_t w, uint32_t h, unsigned bpc, int scale = 0);
  // ref and dist: luma planes of the size and depth given to init(). *score is float_ssim.
  Status compute(const Plane& ref, const Plane& dist, double* score);
  // Luminance, contrast and structure means of the last compute() (libvmaf's enable_lcs outputs).
  const SsimMeans& last_means() const { return means_; }
  int scale() const { return scale_; }

 private:
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 0;
  float divisor_ = 1.f;
  int scale_ = 1;
  std::vector<float> kernel_;  // box low-pass when scale_ > 1
  std::vector<float> ref_, dist_;  // converted input
  std::vector<float> ref_small_, dist_small_;  // decimated input when scale_ > 1
  SsimMoments moments_;
  SsimMeans means_;
};

// Shared by Ssim and MsSsim: plane checks against the size and depth given to init().
Status ssim_check_planes(const Plane& ref, const Plane& dist, uint32_t w, uint32_t h, unsigned bpc);

}  // namespace vmafx::cpu
