// SPDX-License-Identifier: LGPL-2.1-or-later
// float_psnr and float_moment, the CPU reference of libvmaf 3.2's "float_psnr" and "float_moment" extractors (plain
// C path; neither has SIMD code or options):
//   float_psnr    the luma's samples as libvmaf's picture_copy gives them with offset 0 (8 bits: the sample; 10, 12,
//                 16 bits: divided by 4, 16, 256 in float), the noise sum over pixels of (r - d)^2 (a float square
//                 added to a double, row by row), divided by w * h, and min(10 log10(peak^2 / max(noise, 1e-10)),
//                 psnr_max) with libvmaf's peak and cap per depth: 255 / 60 dB (8 bits), 255.75 / 72 (10),
//                 255.9375 / 84 (12), 255.99609375 / 108 (16)
//   float_moment  the first moment (mean of the values) and the second (mean of their float squares) of the
//                 reference and of the distorted luma, double sums in row order divided by w * h:
//                 float_moment_ref1st, float_moment_dis1st, float_moment_ref2nd, float_moment_dis2nd
// Both accept 8, 10, 12 and 16 bits only: libvmaf's float_psnr fails its init at other depths, and its float_moment
// (and picture_copy) reads any other depth as bytes.
//
// The per-pixel terms are kernels/float_psnr_impl.h's (shared with the GPU). Every term is an exact multiple of a
// power of two, so where the sums stay below 2^53 of that unit (float_sums_exact) libvmaf's double sum is exact and
// equals the GPU's 64-bit integer sum: the GPU then gives the same doubles (hip/float_psnr_gpu.h).
#pragma once

#include <cstdint>

#include "cpu/plane.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

struct FloatPsnrParams {
  double peak = 255.0;
  double psnr_max = 60.0;
};
// libvmaf's peak and cap for a depth; unsupported for depths other than 8, 10, 12, 16.
Status float_psnr_params(unsigned bpc, FloatPsnrParams* out);

// The score from the noise sum over w x h pixels (libvmaf's compute_psnr after its loop).
double float_psnr_from_sum(double noise_sum, uint32_t w, uint32_t h, const FloatPsnrParams& p);
// A moment from its sum over w x h pixels.
double float_moment_from_sum(double sum, uint32_t w, uint32_t h);

// The sums as libvmaf adds them (double, row-major): psnr's noise, and the moments' sums (ref 1st, dist 1st, ref
// 2nd, dist 2nd). ref and dist: luma planes of the same size and depth.
double float_psnr_noise_sum(const Plane& ref, const Plane& dist);
void float_moment_sums(const Plane& ref, const Plane& dist, double sums[4]);

// The unit of a depth's first powers (1 / div) and second powers (1 / div^2), as a double.
double float_sums_unit(unsigned bpc, bool square);
// True when every sum of w x h pixels at `bpc` stays below 2^53 of its unit whatever the samples, so that libvmaf's
// double sums are exact (8, 10, 12 bits up to 2^26 pixels; 16 bits below 2^21 pixels).
bool float_sums_exact(uint32_t w, uint32_t h, unsigned bpc);

// The extractors: compute checks the planes (size and depth as init, layouts) and writes their outputs.
class FloatPsnr {
 public:
  static constexpr unsigned kOutputs = 1;  // float_psnr
  Status init(uint32_t w, uint32_t h, unsigned bpc);
  Status compute(const Plane& ref, const Plane& dist, double* out) const;
  const FloatPsnrParams& params() const { return params_; }

 private:
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 0;
  FloatPsnrParams params_;
};

class FloatMoment {
 public:
  static constexpr unsigned kOutputs = 4;  // float_moment_ref1st, _dis1st, _ref2nd, _dis2nd
  Status init(uint32_t w, uint32_t h, unsigned bpc);
  Status compute(const Plane& ref, const Plane& dist, double* out) const;

 private:
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 0;
};

}  // namespace vmafx::cpu
