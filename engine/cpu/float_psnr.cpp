// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu/float_psnr.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cpu/float_picture.h"
#include "hip/kernels/float_psnr_impl.h"

namespace vmafx::cpu {

Status float_psnr_params(unsigned bpc, FloatPsnrParams* out) {
  switch (bpc) {
    case 8: *out = {255.0, 60.0}; return Status::ok();
    case 10: *out = {255.75, 72.0}; return Status::ok();
    case 12: *out = {255.9375, 84.0}; return Status::ok();
    case 16: *out = {255.99609375, 108.0}; return Status::ok();
    default:
      return {Errc::unsupported, "bit depth " + std::to_string(bpc) +
                                     " (libvmaf's float_psnr and float_moment read 8, 10, 12 and 16 bits only)"};
  }
}

double float_psnr_from_sum(double noise_sum, uint32_t w, uint32_t h, const FloatPsnrParams& p) {
  double noise = noise_sum;
  noise /= int(w) * int(h);  // libvmaf divides by the int product
  const double eps = 1e-10;
  // libvmaf's MIN and MAX macros.
  const double floor = noise > eps ? noise : eps;
  const double score = 10 * std::log10(p.peak * p.peak / floor);
  return score < p.psnr_max ? score : p.psnr_max;
}

double float_moment_from_sum(double sum, uint32_t w, uint32_t h) {
  double cum = sum;
  cum /= int(w) * int(h);
  return cum;
}

namespace {

// Row y's values (picture_copy with offset 0).
void row_values(const Plane& p, uint32_t y, float* out) {
  if (p.bytes == 1) {
    const uint8_t* s = p.row<uint8_t>(y);
    for (uint32_t x = 0; x < p.w; ++x) out[x] = fps_value(s[size_t(x) * p.step], 8);
  } else {
    const uint16_t* s = p.row<uint16_t>(y);
    for (uint32_t x = 0; x < p.w; ++x) out[x] = fps_value(uint32_t(s[size_t(x) * p.step]) >> p.shift, p.bpc);
  }
}

}  // namespace

double float_psnr_noise_sum(const Plane& ref, const Plane& dist) {
  std::vector<float> r(ref.w), d(ref.w);
  double noise = 0;
  for (uint32_t y = 0; y < ref.h; ++y) {
    row_values(ref, y, r.data());
    row_values(dist, y, d.data());
    for (uint32_t x = 0; x < ref.w; ++x) noise += fps_noise_term(r[x], d[x]);
  }
  return noise;
}

void float_moment_sums(const Plane& ref, const Plane& dist, double sums[4]) {
  std::vector<float> v(ref.w);
  // libvmaf's order: compute_1st_moment(ref), (dist), compute_2nd_moment(ref), (dist); each its own double sum.
  const Plane* planes[2] = {&ref, &dist};
  for (int k = 0; k < 2; ++k) {
    double first = 0, second = 0;
    for (uint32_t y = 0; y < planes[k]->h; ++y) {
      row_values(*planes[k], y, v.data());
      for (uint32_t x = 0; x < planes[k]->w; ++x) {
        first += v[x];
        second += fps_square(v[x]);
      }
    }
    sums[k] = first;
    sums[2 + k] = second;
  }
}

double float_sums_unit(unsigned bpc, bool square) { return 1.0 / double(fps_unit(bpc, square)); }

bool float_sums_exact(uint32_t w, uint32_t h, unsigned bpc) {
  // The largest term of a pixel is below 2^(2 bpc) units (a squared sample); the sums of w h pixels must stay below
  // 2^53 units.
  return double(w) * double(h) * std::ldexp(1.0, 2 * int(bpc)) < std::ldexp(1.0, 53);
}

namespace {

Status check_init(const char* name, uint32_t w, uint32_t h, unsigned bpc) {
  FloatPsnrParams p;
  VMAFX_TRY(float_psnr_params(bpc, &p).prepend(name));
  if (w == 0 || h == 0) return {Errc::invalid_argument, std::string(name) + ": picture of zero width or height"};
  if (uint64_t(w) * h > uint64_t(INT32_MAX))
    return {Errc::unsupported, std::string(name) + ": more than 2^31 pixels (libvmaf divides by an int)"};
  return Status::ok();
}

}  // namespace

Status FloatPsnr::init(uint32_t w, uint32_t h, unsigned bpc) {
  VMAFX_TRY(check_init("float_psnr", w, h, bpc));
  w_ = w;
  h_ = h;
  bpc_ = bpc;
  return float_psnr_params(bpc, &params_);
}

Status FloatPsnr::compute(const Plane& ref, const Plane& dist, double* out) const {
  if (bpc_ == 0) return {Errc::invalid_argument, "float_psnr: compute before a successful init"};
  VMAFX_TRY(float_check_plane("float_psnr", "reference", ref, w_, h_, bpc_));
  VMAFX_TRY(float_check_plane("float_psnr", "distorted", dist, w_, h_, bpc_));
  out[0] = float_psnr_from_sum(float_psnr_noise_sum(ref, dist), w_, h_, params_);
  return Status::ok();
}

Status FloatMoment::init(uint32_t w, uint32_t h, unsigned bpc) {
  VMAFX_TRY(check_init("float_moment", w, h, bpc));
  w_ = w;
  h_ = h;
  bpc_ = bpc;
  return Status::ok();
}

Status FloatMoment::compute(const Plane& ref, const Plane& dist, double* out) const {
  if (bpc_ == 0) return {Errc::invalid_argument, "float_moment: compute before a successful init"};
  VMAFX_TRY(float_check_plane("float_moment", "reference", ref, w_, h_, bpc_));
  VMAFX_TRY(float_check_plane("float_moment", "distorted", dist, w_, h_, bpc_));
  double sums[4];
  float_moment_sums(ref, dist, sums);
  for (int k = 0; k < 4; ++k) out[k] = float_moment_from_sum(sums[k], w_, h_);
  return Status::ok();
}

}  // namespace vmafx::cpu
