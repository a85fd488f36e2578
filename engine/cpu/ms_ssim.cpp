// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu/ms_ssim.h"

#include <climits>
#include <cmath>
#include <new>
#include <string>

namespace vmafx::cpu {

// clang-format off
const float kMsSsimLpf[kMsSsimLpfLen * kMsSsimLpfLen] = {
   0.000714f, -0.000450f, -0.002090f,  0.007132f,  0.016114f,  0.007132f, -0.002090f, -0.000450f,  0.000714f,
  -0.000450f,  0.000283f,  0.001316f, -0.004490f, -0.010146f, -0.004490f,  0.001316f,  0.000283f, -0.000450f,
  -0.002090f,  0.001316f,  0.006115f, -0.020867f, -0.047149f, -0.020867f,  0.006115f,  0.001316f, -0.002090f,
   0.007132f, -0.004490f, -0.020867f,  0.071207f,  0.160885f,  0.071207f, -0.020867f, -0.004490f,  0.007132f,
   0.016114f, -0.010146f, -0.047149f,  0.160885f,  0.363505f,  0.160885f, -0.047149f, -0.010146f,  0.016114f,
   0.007132f, -0.004490f, -0.020867f,  0.071207f,  0.160885f,  0.071207f, -0.020867f, -0.004490f,  0.007132f,
  -0.002090f,  0.001316f,  0.006115f, -0.020867f, -0.047149f, -0.020867f,  0.006115f,  0.001316f, -0.002090f,
  -0.000450f,  0.000283f,  0.001316f, -0.004490f, -0.010146f, -0.004490f,  0.001316f,  0.000283f, -0.000450f,
   0.000714f, -0.000450f, -0.002090f,  0.007132f,  0.016114f,  0.007132f, -0.002090f, -0.000450f,  0.000714f,
};
// clang-format on

const float kMsSsimAlpha[kMsSsimScales] = {0.0000f, 0.0000f, 0.0000f, 0.0000f, 0.1333f};
const float kMsSsimBeta[kMsSsimScales] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};
const float kMsSsimGamma[kMsSsimScales] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};

void ms_ssim_decimate(const float* src, int w, int h, float* dst, int* dw, int* dh) {
  decimate(src, w, h, 2, kMsSsimLpf, kMsSsimLpfLen, kMsSsimLpfLen, dst, dw, dh);
}

double ms_ssim_combine(const SsimMeans scales[kMsSsimScales]) {
  double product = 1.0;
  for (int i = 0; i < kMsSsimScales; i++) {
    product *= std::pow(double(scales[i].l), double(kMsSsimAlpha[i])) *
               std::pow(double(scales[i].c), double(kMsSsimBeta[i])) *
               std::pow(double(scales[i].s), double(kMsSsimGamma[i]));
    if (product == HUGE_VAL) break;  // libvmaf stops (and fails) as soon as the running product is infinite
  }
  return product;
}

Status MsSsim::check_size(uint32_t w, uint32_t h) {
  uint32_t cw = w, ch = h;
  for (int i = 0; i < kMsSsimScales; i++) {
    if (cw < uint32_t(kSsimWindow) || ch < uint32_t(kSsimWindow))
      return {Errc::unsupported, "ms-ssim needs " + std::to_string(kSsimWindow) + " samples per axis at all " +
                                     std::to_string(kMsSsimScales) + " scales (at least 176x176), got " +
                                     std::to_string(w) + "x" + std::to_string(h)};
    cw /= 2;
    ch /= 2;
  }
  if (uint64_t(w) * h > uint64_t(INT_MAX))
    return {Errc::unsupported, "ms-ssim: " + std::to_string(w) + "x" + std::to_string(h) + " is too large"};
  return Status::ok();
}

Status MsSsim::init(uint32_t w, uint32_t h, unsigned bpc) {
  w_ = 0;
  VMAFX_TRY(check_size(w, h).prepend("ms-ssim"));
  VMAFX_TRY(ssim_float_divisor(bpc, &divisor_));
  int cw = int(w), ch = int(h);
  try {
    for (int i = 0; i < kMsSsimScales; i++) {
      sw_[i] = cw;
      sh_[i] = ch;
      ref_[i].assign(size_t(cw) * size_t(ch), 0.f);
      dist_[i].assign(size_t(cw) * size_t(ch), 0.f);
      cw = decimated_size(cw, 2);
      ch = decimated_size(ch, 2);
    }
  } catch (const std::bad_alloc&) {
    return {Errc::out_of_memory, "ms-ssim: cannot allocate buffers for " + std::to_string(w) + "x" +
                                     std::to_string(h)};
  }
  VMAFX_TRY(moments_.reserve(int(w), int(h)));
  w_ = w;
  h_ = h;
  bpc_ = bpc;
  return Status::ok();
}

void ms_ssim_values(const SsimReport& r, double score, const SsimMeans scales[kMsSsimScales], double* out) {
  out[0] = r.db ? ssim_to_db(score, r.max_db) : score;
  if (!r.lcs) return;
  for (int i = 0; i < kMsSsimScales; i++) {
    out[1 + i] = double(scales[i].l);
    out[1 + kMsSsimScales + i] = double(scales[i].c);
    out[1 + 2 * kMsSsimScales + i] = double(scales[i].s);
  }
}

Status MsSsim::compute(const Plane& ref, const Plane& dist, double* score) {
  if (!score) return {Errc::invalid_argument, "ms-ssim: no output"};
  VMAFX_TRY(ssim_check_planes(ref, dist, w_, h_, bpc_).prepend("ms-ssim"));
  plane_to_float(ref, divisor_, ref_[0].data(), w_);
  plane_to_float(dist, divisor_, dist_[0].data(), w_);
  for (int i = 1; i < kMsSsimScales; i++) {
    ms_ssim_decimate(ref_[i - 1].data(), sw_[i - 1], sh_[i - 1], ref_[i].data(), nullptr, nullptr);
    ms_ssim_decimate(dist_[i - 1].data(), sw_[i - 1], sh_[i - 1], dist_[i].data(), nullptr, nullptr);
  }
  for (int i = 0; i < kMsSsimScales; i++)
    scales_[i] = ssim_single_scale(ref_[i].data(), dist_[i].data(), sw_[i], sh_[i], &moments_);
  const double product = ms_ssim_combine(scales_);
  // libvmaf fails when the running product reaches +infinity; the per-scale means are bounded, so this guards
  // against corrupt input rather than an expected outcome.
  if (product == HUGE_VAL) return {Errc::internal, "ms-ssim: score overflowed to infinity"};
  *score = product;
  return Status::ok();
}

}  // namespace vmafx::cpu
