// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu/float_ansnr.h"

#include <cmath>
#include <string>

#include "cpu/float_picture.h"
#include "hip/kernels/float_ansnr_impl.h"

namespace vmafx::cpu {

Status float_ansnr_check(uint32_t w, uint32_t h, unsigned bpc) {
  FloatPsnrParams p;
  VMAFX_TRY(float_psnr_params(bpc, &p));
  if (w < kFloatAnsnrMinSize || h < kFloatAnsnrMinSize)
    return {Errc::unsupported, "needs at least 3x3 samples (its 5x5 filter's mirror reads outside a " +
                                   std::to_string(w) + "x" + std::to_string(h) + " picture)"};
  if (uint64_t(w) * h > uint64_t(INT32_MAX)) return {Errc::unsupported, "more than 2^31 pixels"};
  return Status::ok();
}

void float_ansnr_from_rows(const float* row_sums, uint32_t w, uint32_t h, const FloatPsnrParams& p, double out[2]) {
  float sig = 0, noise = 0;
  for (uint32_t y = 0; y < h; ++y) {
    sig += row_sums[2 * size_t(y)];
    noise += row_sums[2 * size_t(y) + 1];
  }
  // The quotient in float, its log10 in double (libvmaf is C: no float overload).
  out[0] = noise == 0 ? p.psnr_max : 10.0 * std::log10(double(sig / noise));
  const double eps = 1e-10;
  const double floor = noise > eps ? double(noise) : eps;  // libvmaf's MAX(noise, eps), in double
  const double score = 10 * std::log10(p.peak * p.peak * int(w) * int(h) / floor);
  out[1] = score < p.psnr_max ? score : p.psnr_max;
}

Status FloatAnsnr::init(uint32_t w, uint32_t h, unsigned bpc) {
  VMAFX_TRY(float_ansnr_check(w, h, bpc).prepend("float_ansnr"));
  VMAFX_TRY(float_psnr_params(bpc, &params_));
  w_ = w;
  h_ = h;
  bpc_ = bpc;
  const size_t n = size_t(w) * h;
  ref_.assign(n, 0.0f);
  dist_.assign(n, 0.0f);
  ref_f_.assign(n, 0.0f);
  dist_f_.assign(n, 0.0f);
  rows_.assign(2 * size_t(h), 0.0f);
  return Status::ok();
}

namespace {

struct BufferSource {
  const float* p;
  int w;
  float operator()(int x, int y) const { return p[ptrdiff_t(y) * w + x]; }
};

}  // namespace

Status FloatAnsnr::compute(const Plane& ref, const Plane& dist, double* out) {
  if (bpc_ == 0) return {Errc::invalid_argument, "float_ansnr: compute before a successful init"};
  VMAFX_TRY(float_check_plane("float_ansnr", "reference", ref, w_, h_, bpc_));
  VMAFX_TRY(float_check_plane("float_ansnr", "distorted", dist, w_, h_, bpc_));
  float_picture_copy(ref, ref_.data(), w_);
  float_picture_copy(dist, dist_.data(), w_);
  FanTaps taps;
  fan_taps(&taps);
  const int w = int(w_), h = int(h_);
  const BufferSource rs{ref_.data(), w}, ds{dist_.data(), w};
  for (int i = 0; i < h; ++i)
    for (int j = 0; j < w; ++j) {
      ref_f_[size_t(i) * w_ + j] = fan_filter_at(rs, taps.ref, FAN_REF_WIDTH, w, h, i, j);
      dist_f_[size_t(i) * w_ + j] = fan_filter_at(ds, taps.dis, FAN_DIS_WIDTH, w, h, i, j);
    }
  for (int i = 0; i < h; ++i) {
    float sig = 0, noise = 0;
    const float* r = ref_f_.data() + size_t(i) * w_;
    const float* d = dist_f_.data() + size_t(i) * w_;
    for (int j = 0; j < w; ++j) {
      sig += fan_sig_term(r[j]);
      noise += fan_noise_term(r[j], d[j]);
    }
    rows_[2 * size_t(i)] = sig;
    rows_[2 * size_t(i) + 1] = noise;
  }
  float_ansnr_from_rows(rows_.data(), w_, h_, params_, out);
  return Status::ok();
}

}  // namespace vmafx::cpu
