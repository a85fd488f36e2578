// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu/ciede.h"

#include <cassert>
#include <cmath>
#include <math.h>
#include <string>

namespace vmafx::cpu {

namespace {

// The constants as libvmaf spells them; gcc folds the constant subexpressions (M_PI / 6.0, 1.0 / 1.055, ...) to the
// same doubles in both builds.
constexpr double kPi = M_PI;
// libvmaf's powf(25., 7): 25^7 rounded to float (gcc folds the call).
constexpr float k25Pow7f = static_cast<float>(6103515625.0);
// 25^7 in double (exact), libvmaf's pow(25, 7).
constexpr double k25Pow7 = 6103515625.0;
// libvmaf's KSubArgs, float fields initialised from doubles.
constexpr float kKL = static_cast<float>(0.65), kKC = static_cast<float>(1.0), kKH = static_cast<float>(4.0);

// libvmaf's pow(x, 2) of a float: gcc compiles it as a product of the double, which is exact.
inline double sq(float x) { return double(x) * double(x); }

// sRGB transfer to linear light, libvmaf's rgb_to_xyz_map.
inline double srgb_to_linear(double c) {
  if (c > 10. / 255.) return ::pow((c + 0.055) * (1.0 / 1.055), 2.4);
  return c * (1.0 / 12.92);
}

// libvmaf's xyz_to_lab_map: float result.
inline float lab_f(double c) {
  if (c > 216.0 / 24389.0) return float(::pow(c, 1.0 / 3.0));
  return float(((24389.0 / 27.0) * c + 16.0) * (1.0 / 116.0));
}

// Hue angle in [0, 2 pi) of (a', b'), computed from atan2(b, a') in double and kept as float.
inline float hue_angle(float b, float a_prime) {
  if (b == 0.0 && a_prime == 0.0) return 0.0f;
  float h = float(::atan2(double(b), double(a_prime)));
  if (h < 0.0) h = float(double(h) + 2. * kPi);
  return h;
}

// dh' of the two hues (0 when either chroma is 0).
inline float hue_difference(float c1, float c2, float h1, float h2) {
  if (c1 == 0.0 || c2 == 0.0) return 0.0f;
  if (double(std::fabs(h1 - h2)) <= kPi) return h2 - h1;
  if (h2 <= h1) return float(double(h2 - h1) + 2. * kPi);
  return float(double(h2 - h1) - 2. * kPi);
}

// The mean hue H-bar'.
inline float mean_hue(float h1, float h2) {
  if (std::fabs(double(h1 - h2)) > kPi) return float((double(h1 + h2) + 2.0 * kPi) / 2.0);
  return float(double(h1 + h2) / 2.0);
}

inline float hue_weight_t(float hbar) {
  const double h = hbar;
  return float(1.0 - 0.17 * ::cos(h - kPi / 6.0) + 0.24 * ::cos(2.0 * h) + 0.32 * ::cos(3.0 * h + kPi / 30.0) -
               0.20 * ::cos(4.0 * h - 7.0 * kPi / 20.0));
}

inline float to_degrees(float r) { return float(double(r) * (180.0 / kPi)); }
inline float to_radians(float d) { return float(double(d) * (kPi / 180.0)); }

// The rotation term R_T.
inline float rotation(float c_bar_prime, float hbar) {
  const float t = float((double(to_degrees(hbar)) - 275.0) * (1.0 / 25.0));
  const float c7 = ::powf(c_bar_prime, 7.0f);
  const float ratio = c7 / (::powf(c_bar_prime, 7.0f) + k25Pow7f);
  // libvmaf's powf(t, 2), which gcc compiles as a float product.
  const float angle = to_radians(float(60.0 * ::exp(double(-(t * t)))));
  return float(-2.0 * std::sqrt(double(ratio)) * ::sin(double(angle)));
}

}  // namespace

CiedeLab ciede_lab(double y, double u, double v, unsigned bpc) {
  const double scale = double(1 << (bpc - 8));
  y = (y - 16. * scale) * (1. / (219. * scale));
  u = (u - 128. * scale) * (1. / (224. * scale));
  v = (v - 128. * scale) * (1. / (224. * scale));

  // BT.709 Y'CbCr to R'G'B'.
  double r = y + 1.28033 * v;
  double g = y - 0.21482 * u - 0.38059 * v;
  double b = y + 2.12798 * u;
  r = srgb_to_linear(r);
  g = srgb_to_linear(g);
  b = srgb_to_linear(b);

  double x = r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894;
  double yy = r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958;
  double z = r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677;
  // Each channel passes through float (lab_f's result) before the double arithmetic below.
  x = lab_f(x * (1.0 / 0.95047));
  yy = lab_f(yy);
  z = lab_f(z * (1.0 / 1.08883));

  CiedeLab lab;
  lab.l = float((116.0 * yy) - 16.0);
  lab.a = float(500.0 * (x - yy));
  lab.b = float(200.0 * (yy - z));
  return lab;
}

float ciede2000(const CiedeLab& c1, const CiedeLab& c2) {
  const float delta_l = c2.l - c1.l;
  const float l_bar = (c1.l + c2.l) / 2;
  const float chroma1 = float(std::sqrt(sq(c1.a) + sq(c1.b)));
  const float chroma2 = float(std::sqrt(sq(c2.a) + sq(c2.b)));
  const float c_bar = (chroma1 + chroma2) / 2;
  // libvmaf evaluates G for each a' separately (pow(c_bar, 7) four times); the value is the same.
  const double c_bar7 = ::pow(double(c_bar), 7.0);
  const double g = 1 - std::sqrt(c_bar7 / (c_bar7 + k25Pow7));
  const float a1 = float(double(c1.a) + double(c1.a / 2) * g);
  const float a2 = float(double(c2.a) + double(c2.a / 2) * g);
  const float cp1 = float(std::sqrt(sq(a1) + sq(c1.b)));
  const float cp2 = float(std::sqrt(sq(a2) + sq(c2.b)));
  const float cp_bar = (cp1 + cp2) / 2;
  const float delta_c = cp2 - cp1;
  const float l50 = l_bar - 50;
  const float s_l = float(1. + ((0.015 * sq(l50)) / std::sqrt(20 + sq(l50))));
  const float s_c = float(1. + 0.045 * double(cp_bar));
  const float h1 = hue_angle(c1.b, a1);
  const float h2 = hue_angle(c2.b, a2);
  const float dh = hue_difference(chroma1, chroma2, h1, h2);
  const float delta_h = float(2.0 * std::sqrt(double(cp1 * cp2)) * ::sin(double(dh) / 2.0));
  const float hbar = mean_hue(h1, h2);
  const float t = hue_weight_t(hbar);
  const float s_h = float(1.0 + 0.015 * double(cp_bar) * double(t));
  const float r_t = rotation(cp_bar, hbar);
  const float lightness = delta_l / (kKL * s_l);
  const float chroma = delta_c / (kKC * s_c);
  const float hue = delta_h / (kKH * s_h);
  return float(std::sqrt(sq(lightness) + sq(chroma) + sq(hue) + double(r_t * chroma * hue)));
}

double ciede_score(double de00_sum, uint32_t w, uint32_t h) {
  // libvmaf divides by the unsigned product w * h.
  return 45. - 20. * ::log10(de00_sum / double(uint32_t(w * h)));
}

uint32_t ciede_padded_chroma_width(Chroma c, uint32_t luma_width) {
  return (chroma_width(c, luma_width) + 31u) & ~31u;
}

std::vector<CiedeChromaSource> ciede_chroma_sources(Chroma c, uint32_t luma_width) {
  std::vector<CiedeChromaSource> out(luma_width);
  const uint32_t cw = chroma_width(c, luma_width);
  const uint32_t padded = ciede_padded_chroma_width(c, luma_width);
  for (uint32_t x = 0; x < luma_width; x++) {
    // libvmaf halves the column for 4:2:0 only; for 4:2:2 it reads the luma-wide run from the row's start.
    const uint32_t k = c == Chroma::k420 ? x / 2 : x;
    if (c == Chroma::k444) {
      out[x] = {0, int32_t(x)};
    } else if (padded == 0) {
      out[x] = {0, -1};  // no chroma samples (refused by ciede_check)
    } else {
      const uint32_t col = k % padded;
      out[x] = {k / padded, col < cw ? int32_t(col) : -1};
    }
  }
  return out;
}

Status ciede_check(uint32_t w, uint32_t h, Chroma c, unsigned bpc) {
  if (bpc != 8 && bpc != 10 && bpc != 12 && bpc != 16)
    return {Errc::unsupported, "ciede handles 8, 10, 12 and 16-bit samples (as libvmaf), not " +
                                   std::to_string(bpc) + "-bit"};
  if (c == Chroma::k400) return {Errc::unsupported, "ciede needs chroma: libvmaf refuses 4:0:0 pictures"};
  if (w == 0 || h == 0) return {Errc::unsupported, "ciede: empty picture"};
  if (c == Chroma::k444) return Status::ok();
  const uint32_t cw = chroma_width(c, w), ch = chroma_height(c, h);
  const std::string geometry = std::to_string(w) + "x" + std::to_string(h) + " " + chroma_name(c);
  if (cw == 0 || ch == 0)
    return {Errc::unsupported, "ciede: a " + geometry + " picture has empty chroma planes in libvmaf"};
  // libvmaf's upsampling reads chroma row y / 2 (both subsamplings), plus the rows a column's run crosses, of its
  // padded layout; past the last chroma plane it reads memory it never wrote.
  const uint32_t last_row = (h - 1) / 2 + ciede_chroma_sources(c, w).back().rows;
  if (last_row >= ch)
    return {Errc::unsupported,
            "ciede: for a " + geometry + " picture libvmaf's chroma upsampling reads chroma row " +
                std::to_string(last_row) + ", past its Cr plane of " + std::to_string(ch) +
                " rows (memory libvmaf never wrote, so its score is undefined); " +
                (c == Chroma::k420
                     ? "4:2:0 needs an even height, and an odd width a chroma width that is not a multiple of 32"
                     : "4:2:2 needs (height - 1) / 2 + (width - 1) / (chroma width rounded up to 32) < height")};
  return Status::ok();
}

Status Ciede::init(uint32_t w, uint32_t h, Chroma c, unsigned bpc) {
  ready_ = false;
  VMAFX_TRY(ciede_check(w, h, c, bpc));
  w_ = w;
  h_ = h;
  chroma_ = c;
  bpc_ = bpc;
  sources_ = ciede_chroma_sources(c, w);
  rows_.assign(size_t(w) * 6, 0);
  lab_cache_.assign(size_t(1) << kLabCacheBits, LabSlot{});
  pair_cache_.assign(size_t(1) << kPairCacheBits, PairSlot{});
  ready_ = true;
  return Status::ok();
}

Status Ciede::planes_of(const PictureView& p, const char* which, Planes* out) const {
  if (p.memory != MemoryKind::host) return {Errc::unsupported, std::string("ciede: ") + which + " is not in host memory"};
  if (p.width != w_ || p.height != h_ || p.chroma != chroma_ || p.bit_depth != bpc_)
    return {Errc::unsupported, std::string("ciede: ") + which + " picture is not the geometry ciede was set up for"};
  out->y = luma_plane(p);
  out->u = chroma_plane(p, 1);
  out->v = chroma_plane(p, 2);
  const std::string name = std::string("ciede: ") + which;
  const uint32_t cw = chroma_width(chroma_, w_), ch = chroma_height(chroma_, h_);
  VMAFX_TRY(check_plane_layout(name + " Y plane", out->y.data, out->y.stride, out->y.w, out->y.h, out->y.bytes,
                               out->y.shift, out->y.step, w_, h_, bpc_));
  VMAFX_TRY(check_plane_layout(name + " Cb plane", out->u.data, out->u.stride, out->u.w, out->u.h, out->u.bytes,
                               out->u.shift, out->u.step, cw, ch, bpc_));
  VMAFX_TRY(check_plane_layout(name + " Cr plane", out->v.data, out->v.stride, out->v.w, out->v.h, out->v.bytes,
                               out->v.shift, out->v.step, cw, ch, bpc_));
  return Status::ok();
}

void Ciede::load_row(const Planes& p, uint32_t y, uint16_t* ys, uint16_t* us, uint16_t* vs) const {
  for (uint32_t x = 0; x < w_; x++) ys[x] = uint16_t(p.y.at(x, y));
  const uint32_t base = chroma_ == Chroma::k444 ? y : y / 2;
  for (uint32_t x = 0; x < w_; x++) {
    const CiedeChromaSource s = sources_[x];
    if (s.col < 0) {
      us[x] = vs[x] = 0;
    } else {
      assert(base + s.rows < p.u.h);
      us[x] = uint16_t(p.u.at(uint32_t(s.col), base + s.rows));
      vs[x] = uint16_t(p.v.at(uint32_t(s.col), base + s.rows));
    }
  }
}

namespace {
inline uint64_t triple_key(uint32_t y, uint32_t u, uint32_t v) {
  return (uint64_t(y) << 32) | (uint64_t(u) << 16) | v;
}
}  // namespace

CiedeLab Ciede::lab_of(uint64_t key) {
  LabSlot& slot = lab_cache_[size_t((key * 0x9e3779b97f4a7c15ull) >> (64 - kLabCacheBits))];
  if (slot.key != key) {
    slot.key = key;
    slot.lab = ciede_lab(double(key >> 32), double((key >> 16) & 0xffff), double(key & 0xffff), bpc_);
  }
  return slot.lab;
}

Status Ciede::de00_sum(const PictureView& ref, const PictureView& dist, double* sum) {
  if (!ready_) return {Errc::invalid_argument, "ciede: not initialised"};
  Planes r, d;
  VMAFX_TRY(planes_of(ref, "reference", &r));
  VMAFX_TRY(planes_of(dist, "distorted", &d));
  uint16_t* ry = rows_.data();
  uint16_t* ru = ry + w_;
  uint16_t* rv = ru + w_;
  uint16_t* dy = rv + w_;
  uint16_t* du = dy + w_;
  uint16_t* dv = du + w_;
  double total = 0.;
  for (uint32_t y = 0; y < h_; y++) {
    load_row(r, y, ry, ru, rv);
    load_row(d, y, dy, du, dv);
    for (uint32_t x = 0; x < w_; x++) {
      // Equal triples have equal colours, whose dE00 is +0 (ciede2000's contract): adding it changes no bit.
      const uint64_t kr = triple_key(ry[x], ru[x], rv[x]), kd = triple_key(dy[x], du[x], dv[x]);
      if (kr == kd) continue;
      PairSlot& slot =
          pair_cache_[size_t(((kr * 0x9e3779b97f4a7c15ull) ^ (kd * 0xc2b2ae3d27d4eb4full)) >> (64 - kPairCacheBits))];
      if (slot.ref != kr || slot.dist != kd) {
        slot.ref = kr;
        slot.dist = kd;
        slot.de00 = ciede2000(lab_of(kr), lab_of(kd));
      }
      total += slot.de00;
    }
  }
  *sum = total;
  return Status::ok();
}

Status Ciede::compute(const PictureView& ref, const PictureView& dist, double* score) {
  double sum = 0;
  VMAFX_TRY(de00_sum(ref, dist, &sum));
  *score = ciede_score(sum, w_, h_);
  return Status::ok();
}

}  // namespace vmafx::cpu
