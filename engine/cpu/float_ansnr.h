// SPDX-License-Identifier: LGPL-2.1-or-later
// float_ansnr, the CPU reference of libvmaf 3.2's "float_ansnr" extractor (plain C path, no options): float_ansnr
// and float_anpsnr of the luma. The pictures as picture_copy gives them with offset -128 (deeper samples divided by
// 4, 16, 256 in float first); the reference filtered by libvmaf's 3x3 kernel, the distorted picture by its 5x5
// kernel (kernels/float_ansnr_impl.h: taps, mirrored edges, the order of the sums); per row the float sums of ref_f^2
// (signal) and (ref_f - dist_f)^2 (noise), the rows' sums added into float totals; then
//   float_ansnr   psnr_max if the noise is 0, else 10 log10(signal / noise) (the division in float)
//   float_anpsnr  min(10 log10(peak^2 w h / max(noise, 1e-10)), psnr_max)
// with libvmaf's float_psnr peak and cap per depth (cpu::float_psnr_params). Depths 8, 10, 12, 16 (libvmaf fails
// its init at others); at least 3x3 samples (the 5x5 kernel's mirror reads outside smaller pictures in libvmaf).
//
// The GPU (hip/float_ansnr_gpu.h) computes each row's two float sums with the same arithmetic in the same order and
// the host adds them here (float_ansnr_from_rows), so its scores are the CPU's bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/float_psnr.h"
#include "cpu/plane.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

inline constexpr uint32_t kFloatAnsnrMinSize = 3;

// Checks the depth and size (the messages do not name the feature: callers prepend it).
Status float_ansnr_check(uint32_t w, uint32_t h, unsigned bpc);

// The two scores from the rows' float sums (2 per row: signal, noise), added in row order.
void float_ansnr_from_rows(const float* row_sums, uint32_t w, uint32_t h, const FloatPsnrParams& p, double out[2]);

class FloatAnsnr {
 public:
  static constexpr unsigned kOutputs = 2;  // float_ansnr, float_anpsnr
  Status init(uint32_t w, uint32_t h, unsigned bpc);
  Status compute(const Plane& ref, const Plane& dist, double* out);
  // The rows' sums of the last compute (2 per row: signal, noise): the GPU's oracle.
  const std::vector<float>& row_sums() const { return rows_; }

 private:
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 0;
  FloatPsnrParams params_;
  std::vector<float> ref_, dist_, ref_f_, dist_f_, rows_;
};

}  // namespace vmafx::cpu
