// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU reference of libvmaf's integer ADM. See adm.h for the stages and their integer ranges.
//
// Bit-exactness notes. Every float/double expression below keeps libvmaf's operand types and evaluation order
// (float where libvmaf stores a float, double where C promotes), and calls the C library's powf/pow/log10/log2
// directly so no C++ overload changes the precision. Where libvmaf's C relies on signed wrap-around (int32 sums
// that can exceed the range on extreme input) the code wraps explicitly through unsigned arithmetic, which is what
// the compiled C does.
#include "cpu/adm.h"

#include "cpu/simd/kernels.h"

#include <math.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace vmafx::cpu {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kBorderFactor = 0.1;

// db2 analysis filters in Q15 (libvmaf's values); the low-pass taps sum to 46342.
constexpr int32_t kLo[4] = {15826, 27411, 7345, -4240};
constexpr int32_t kHi[4] = {-4240, -7345, 27411, -15826};
constexpr int32_t kLoSum = 46342;

constexpr int32_t kOneBy15Q17 = 8738;           // 2^17 / 15
constexpr int32_t kOneBy30Q17 = 4369;           // 2^17 / 30
constexpr int64_t kOneBy15Q32 = 286331153;      // 2^32 / 15
constexpr int64_t kOneBy30Q32 = 143165577;      // 2^32 / 30
// libvmaf stores 1u << 31 in an int32 as the rounding term of its >> 32 shifts: it is INT32_MIN.
constexpr int64_t kRound32 = -2147483648LL;

int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
int32_t wrap_sub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}
int32_t wrap_mul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}
int32_t wrap_shl(int32_t a, int s) { return static_cast<int32_t>(static_cast<uint32_t>(a) << s); }
// C's abs() on int: INT32_MIN stays INT32_MIN.
int32_t wrap_abs(int32_t a) { return a < 0 ? static_cast<int32_t>(0u - static_cast<uint32_t>(a)) : a; }

// Reciprocal table: recip[32768 + i] = 2^30 / i, recip[32768 - i] = -(2^30 / i), recip[32768] = 0.
struct DivTable {
  int32_t v[65537];
  DivTable() {
    v[32768] = 0;
    for (int i = 1; i <= 32768; ++i) {
      const int32_t r = static_cast<int32_t>(1073741824 / i);
      v[32768 + i] = r;
      v[32768 - i] = -r;
    }
  }
};
const int32_t* div_table() {
  static const DivTable t;
  return t.v;
}

// libvmaf's angle test: the (h, v) vectors of ref (o) and dist (t) point within 1 degree of each other. Computed
// with float conversions and double products exactly as libvmaf writes it.
bool within_one_degree(int64_t ot_dp, int64_t o_mag_sq, int64_t t_mag_sq) {
  const float cos_1deg_sq = static_cast<float>(cos(1.0 * kPi / 180.0) * cos(1.0 * kPi / 180.0));
  const double dp = static_cast<float>(ot_dp) / 4096.0;
  return dp >= 0.0f && dp * dp >= cos_1deg_sq * (static_cast<float>(o_mag_sq) / 4096.0) *
                                      (static_cast<float>(t_mag_sq) / 4096.0);
}

// Watson's DWT basis function amplitudes (transposed: [lambda][theta]) and the Y-channel threshold model.
const float kBasisAmplitude[6][4] = {
    {0.62171, 0.67234, 0.72709, 0.67234},      {0.34537, 0.41317, 0.49428, 0.41317},
    {0.18004, 0.22727, 0.28688, 0.22727},      {0.091401, 0.11792, 0.15214, 0.11792},
    {0.045943, 0.059758, 0.077727, 0.059758}, {0.023013, 0.030018, 0.039156, 0.030018}};
const float kModelA = 0.495;
const float kModelK = 0.466;
const float kModelF0 = 0.401;
const float kModelG[4] = {1.501, 1.0, 0.534, 1.0};

float quant_step(int lambda, int theta, double norm_view_dist, int ref_display_height) {
  const float r = norm_view_dist * ref_display_height * kPi / 180.0;
  const float temp = log10(pow(2.0, lambda + 1) * kModelF0 * kModelG[theta] / r);
  const float q = 2.0 * kModelA * pow(10.0, kModelK * temp * temp) / kBasisAmplitude[lambda][theta];
  return q;
}

// ---- Barten's CSF (HDR-VDP 2.2.1's simplified form, as libvmaf's barten_csf_tools.h evaluates it) ----
// Each line keeps libvmaf's float and double steps: float variables, double library calls.

// Luminance anchors (cd/m^2) of the measured parameter sets, and the sets themselves (p0..p3 are columns 1..4).
const float kBartenLum[6] = {0.002, 0.02, 0.2, 2, 20, 150};
const float kBartenParams[6][5] = {{0.0160737, 0.991265, 3.74038, 0.50722, 4.46044},
                                   {0.383873, 0.800889, 3.54104, 0.682505, 4.94958},
                                   {0.929301, 0.476505, 4.37453, 0.750315, 5.28678},
                                   {1.29776, 0.405782, 4.40602, 0.935314, 5.61425},
                                   {1.49222, 0.334278, 3.79542, 1.07327, 6.4635},
                                   {1.46213, 0.394533, 2.7755, 1.16577, 7.45665}};
const float kBartenSa[4] = {30.162, 4.0627, 1.6596, 0.2712};
const float kBartenMtfA[4] = {0.424838596301290, 0.572435103936480, 0.000167576239164937, 0.00255872352306433};
const float kBartenMtfB[4] = {0.028, 0.37, 37, 360};
constexpr double kBartenLuminance = 100.0;  // libvmaf's DEFAULT_ADM_CSF_LUM

float lerp_f(float lp, float lv, float rp, float rv, float sp) { return lv + ((rv - lv) / (rp - lp)) * (sp - lp); }

float barten_rod_cone(float lum) {
  const double inner = pow(double(kBartenSa[1] / lum), double(kBartenSa[2])) + 1;
  return float(double(kBartenSa[0]) * pow(inner, double(-kBartenSa[3])));
}

float barten_mtf(float freq) {
  float mtf = 0.0f;
  for (int i = 0; i <= 3; i++) mtf = float(double(mtf) + double(kBartenMtfA[i]) * exp(double(-kBartenMtfB[i] * freq)));
  return mtf;
}

float barten_csf(int lambda, double norm_view_dist, int ref_display_height, double lum, double csf_scale) {
  const float r = float(norm_view_dist * ref_display_height * kPi / 180.0);
  const float freq = float(double(r) / pow(2.0, double(lambda + 1)));
  const double clamped = lum < double(kBartenLum[0]) ? double(kBartenLum[0])
                         : lum > double(kBartenLum[5]) ? double(kBartenLum[5])
                                                       : lum;
  int li = 0, ri = 0;
  for (int i = 0; i < 5; i++) {
    if (clamped >= double(kBartenLum[i]) && clamped <= double(kBartenLum[i + 1])) {
      li = i;
      ri = i + 1;
      break;
    }
  }
  const float lp = float(log10(double(kBartenLum[li])));
  const float rp = float(log10(double(kBartenLum[ri])));
  const float sp = float(log10(clamped));
  float p[4];
  for (int k = 0; k < 4; k++) p[k] = lerp_f(lp, kBartenParams[li][k + 1], rp, kBartenParams[ri][k + 1], sp);
  const float a = float(1.0 + pow(double(p[0] * freq), double(p[1])));
  const float b = float(1.0 / pow(1 - exp(-pow(double(freq / 7), 2.0)), double(p[2])));
  const float csf = float(double(p[3]) / pow(double(a * b), 0.5));
  return float(double(csf * barten_mtf(freq) * barten_rod_cone(float(lum))) * csf_scale);
}

// libvmaf's blended CSF tables, [theta: 0 h/v, 1 d][scale], per display (height, normalised viewing distance).
struct BlendTable {
  int height;
  double dist;
  float v[2][4];
};
const BlendTable kBlend[] = {
    {1080, 3.0, {{0.01183, 0.025026, 0.04295, 0.058621}, {0.004302, 0.011778, 0.023918, 0.035901}}},
    {1080, 5.0, {{0.004212, 0.014809, 0.029642, 0.047464}, {0.000984, 0.005852, 0.0146, 0.027574}}},
    {2160, 1.5, {{0.01183, 0.025026, 0.04295, 0.058621}, {0.004302, 0.011778, 0.023918, 0.035901}}},  // = 1080 at 3H
    {2160, 3.0, {{0.00226, 0.01183, 0.025026, 0.04295}, {0.000479, 0.004302, 0.011778, 0.023918}}},
    {2160, 5.0, {{0.000092, 0.004212, 0.014809, 0.029642}, {0.000050, 0.000984, 0.005852, 0.0146}}},
    {720, 3.0, {{0.018715, 0.035637, 0.052798, 0.061509}, {0.007999, 0.018396, 0.031851, 0.037718}}},
    {720, 5.0, {{0.010144, 0.022561, 0.040309, 0.05672}, {0.003463, 0.010282, 0.021839, 0.034641}}},
    {480, 3.0, {{0.027961, 0.045875, 0.060275, 0.056234}, {0.013572, 0.026277, 0.036959, 0.034511}}},
    {480, 5.0, {{0.016781, 0.032822, 0.05032, 0.061594}, {0.00691, 0.016545, 0.029917, 0.037777}}},
};
const BlendTable kBlendMae[] = {
    {1080, 3.0, {{0.011249, 0.022606, 0.035930, 0.045673}, {0.004097, 0.010921, 0.021430, 0.031313}}},
    {1080, 5.0, {{0.004052, 0.013939, 0.026298, 0.038833}, {0.000927, 0.005544, 0.013415, 0.024515}}},
    {2160, 1.5, {{0.011249, 0.022606, 0.035930, 0.045673}, {0.004097, 0.010921, 0.021430, 0.031313}}},
    {2160, 3.0, {{0.002166, 0.011249, 0.022606, 0.035930}, {0.000447, 0.004097, 0.010921, 0.021430}}},
    {2160, 5.0, {{0.000077, 0.004052, 0.013939, 0.026298}, {0.000045, 0.000927, 0.005544, 0.013415}}},
    {720, 3.0, {{0.017329, 0.030870, 0.042134, 0.047410}, {0.007509, 0.016707, 0.028072, 0.032722}}},
    {720, 5.0, {{0.009689, 0.020577, 0.034162, 0.044523}, {0.003302, 0.009579, 0.019661, 0.030318}}},
    {480, 3.0, {{0.024969, 0.037825, 0.046676, 0.043974}, {0.012511, 0.023424, 0.032139, 0.030166}}},
    {480, 5.0, {{0.015665, 0.028766, 0.040612, 0.047483}, {0.006514, 0.015107, 0.026476, 0.032776}}},
};

// The table of (height, dist), compared exactly as libvmaf does; null where libvmaf has none.
const BlendTable* blend_table(int mode, double norm_view_dist, int ref_display_height) {
  const BlendTable* t = mode == kAdmCsfBlendMae ? kBlendMae : kBlend;
  for (size_t i = 0; i < sizeof(kBlend) / sizeof(kBlend[0]); ++i)
    if (t[i].height == ref_display_height && t[i].dist == norm_view_dist) return &t[i];
  return nullptr;
}

// libvmaf's rounding term (uint32_t)pow(2, s - 1) of a shift s, computed in unsigned: for s = 0 the exponent is
// 2^32 - 1, pow gives infinity and the x86-64 conversion gives 0 (the shift is 0 at scale 0 for bands 9..15 wide).
uint32_t half_pow2(uint32_t s) { return s == 0 ? 0u : static_cast<uint32_t>(pow(2, (s - 1))); }

int border(int n) { return static_cast<int>(n * kBorderFactor - 0.5); }

// Horizontal DWT pass of one row: tmplo/tmphi (w values, the vertical pass's low- and high-pass outputs) to row i
// of bands a, v (from tmplo) and h, d (from tmphi). Acc is the accumulator type of libvmaf (int32 at scale 0, int64
// at scales 1..3); every sum fits it, so the result does not depend on the order of the terms.
template <class Acc, class Tmp, class Out>
void horizontal_one(const Tmp* tmplo, const Tmp* tmphi, int j0, int j1, int j2, int j3, int j, Out* a, Out* vb,
                    Out* hb, Out* db, Acc round, int shift) {
  Acc l0 = tmplo[j0], l1 = tmplo[j1], l2 = tmplo[j2], l3 = tmplo[j3];
  a[j] = Out((kLo[0] * l0 + kLo[1] * l1 + kLo[2] * l2 + kLo[3] * l3 + round) >> shift);
  vb[j] = Out((kHi[0] * l0 + kHi[1] * l1 + kHi[2] * l2 + kHi[3] * l3 + round) >> shift);
  l0 = tmphi[j0], l1 = tmphi[j1], l2 = tmphi[j2], l3 = tmphi[j3];
  hb[j] = Out((kLo[0] * l0 + kLo[1] * l1 + kLo[2] * l2 + kLo[3] * l3 + round) >> shift);
  db[j] = Out((kHi[0] * l0 + kHi[1] * l1 + kHi[2] * l2 + kHi[3] * l3 + round) >> shift);
}

template <class Acc, class Tmp, class Out>
void horizontal_pass(const Tmp* tmplo, const Tmp* tmphi, int w, int ow, int i, AdmBands<Out> out, Acc round,
                     int shift) {
  Out* a = out.a + i * out.stride;
  Out* hb = out.h + i * out.stride;
  Out* vb = out.v + i * out.stride;
  Out* db = out.d + i * out.stride;
  // Outputs 1 .. ow - 3 read 2j - 1 .. 2j + 2 < w without reflection; the first and the last two reflect.
  const int interior_end = std::max(1, ow - 2);
  auto edge = [&](int j) {
    horizontal_one<Acc>(tmplo, tmphi, adm_dwt_tap(j, 0, w), adm_dwt_tap(j, 1, w), adm_dwt_tap(j, 2, w),
                        adm_dwt_tap(j, 3, w), j, a, vb, hb, db, round, shift);
  };
  edge(0);
  for (int j = 1; j < interior_end; ++j)
    horizontal_one<Acc>(tmplo, tmphi, 2 * j - 1, 2 * j, 2 * j + 1, 2 * j + 2, j, a, vb, hb, db, round, shift);
  for (int j = interior_end; j < ow; ++j) edge(j);
}

// ---- sample loaders for the scale-0 DWT: the shift is applied on the read, nothing is copied ----
template <bool kUnitStep>
struct Load8 {
  const uint8_t* row;
  unsigned step;
  uint32_t operator[](int j) const { return row[kUnitStep ? size_t(j) : size_t(j) * step]; }
};
template <bool kUnitStep>
struct Load16 {
  const uint16_t* row;
  unsigned step;
  unsigned shift;
  uint32_t operator[](int j) const { return uint32_t(row[kUnitStep ? size_t(j) : size_t(j) * step]) >> shift; }
};

template <class Loader, class MakeLoader>
void dwt_scale0_impl(const Plane& src, MakeLoader make, AdmBands<int16_t> out, int16_t* tmp) {
  const int w = int(src.w), h = int(src.h);
  const int ow = (w + 1) / 2, oh = (h + 1) / 2;
  const int shift_vp = src.bpc;
  const int32_t round_vp = int32_t(1) << (src.bpc - 1);
  const uint32_t lo_offset = uint32_t(kLoSum) * uint32_t(round_vp);  // centres the low-pass range
  int16_t* tmplo = tmp;
  int16_t* tmphi = tmp + w;

  for (int i = 0; i < oh; ++i) {
    const Loader s0 = make(adm_dwt_tap(i, 0, h));
    const Loader s1 = make(adm_dwt_tap(i, 1, h));
    const Loader s2 = make(adm_dwt_tap(i, 2, h));
    const Loader s3 = make(adm_dwt_tap(i, 3, h));
    for (int j = 0; j < w; ++j) {
      const uint32_t u0 = s0[j], u1 = s1[j], u2 = s2[j], u3 = s3[j];
      // int32 in libvmaf; for 16-bit input the partial sums pass 2^31 and wrap back.
      const int32_t lo = int32_t(uint32_t(kLo[0]) * u0 + uint32_t(kLo[1]) * u1 + uint32_t(kLo[2]) * u2 +
                                 uint32_t(kLo[3]) * u3 - lo_offset);
      const int32_t hi = int32_t(uint32_t(kHi[0]) * u0 + uint32_t(kHi[1]) * u1 + uint32_t(kHi[2]) * u2 +
                                 uint32_t(kHi[3]) * u3);
      tmplo[j] = int16_t((lo + round_vp) >> shift_vp);
      tmphi[j] = int16_t((hi + round_vp) >> shift_vp);
    }
    horizontal_pass(tmplo, tmphi, w, ow, i, out, 32768, 16);
  }
}

template <class In>
void dwt_scale123_impl(const In* src, ptrdiff_t src_stride, int w, int h, int scale, AdmBands<int32_t> out,
                       int32_t* tmp) {
  static constexpr int64_t kRoundVp[3] = {0, 32768, 32768};
  static constexpr int kShiftVp[3] = {0, 16, 16};
  static constexpr int64_t kRoundHp[3] = {16384, 32768, 16384};
  static constexpr int kShiftHp[3] = {15, 16, 15};
  const int64_t round_vp = kRoundVp[scale - 1], round_hp = kRoundHp[scale - 1];
  const int shift_vp = kShiftVp[scale - 1], shift_hp = kShiftHp[scale - 1];
  const int ow = (w + 1) / 2, oh = (h + 1) / 2;
  int32_t* tmplo = tmp;
  int32_t* tmphi = tmp + w;

  for (int i = 0; i < oh; ++i) {
    const In* s0 = src + adm_dwt_tap(i, 0, h) * src_stride;
    const In* s1 = src + adm_dwt_tap(i, 1, h) * src_stride;
    const In* s2 = src + adm_dwt_tap(i, 2, h) * src_stride;
    const In* s3 = src + adm_dwt_tap(i, 3, h) * src_stride;
    for (int j = 0; j < w; ++j) {
      const int64_t u0 = s0[j], u1 = s1[j], u2 = s2[j], u3 = s3[j];
      const int64_t lo = kLo[0] * u0 + kLo[1] * u1 + kLo[2] * u2 + kLo[3] * u3;
      const int64_t hi = kHi[0] * u0 + kHi[1] * u1 + kHi[2] * u2 + kHi[3] * u3;
      tmplo[j] = int32_t((lo + round_vp) >> shift_vp);
      tmphi[j] = int32_t((hi + round_vp) >> shift_vp);
    }
    horizontal_pass(tmplo, tmphi, w, ow, i, out, round_hp, shift_hp);
  }
}

// ---- decouple ----

// Restored value after the enhancement-gain rule: with the angle test passed, a positive (negative) restored value
// may grow by the gain limit up to (down to) the distorted value. MIN/MAX of a double and an integer, truncated.
template <class T>
T apply_gain(T rst, bool angle_flag, float rst_f, T t, double gain) {
  if (angle_flag && rst_f > 0.) {
    const double g = rst * gain;
    return static_cast<T>(g < t ? g : double(t));
  }
  if (angle_flag && rst_f < 0.) {
    const double g = rst * gain;
    return static_cast<T>(g > t ? g : double(t));
  }
  return rst;
}

int32_t decouple_k_scale0(int16_t o, int16_t t, const int32_t* recip) {
  const int32_t k = o == 0 ? 32768 : int32_t((int64_t(recip[o + 32768]) * t + 16384) >> 15);
  return std::clamp<int32_t>(k, 0, 32768);
}

// |o| >= 2^15: the 15 most significant bits of |o|, rounded, and how far they were shifted.
uint16_t best15(uint32_t v, int* shift) {
  const int k = 17 - __builtin_clz(v);
  *shift = k;
  return uint16_t((v + (1u << (k - 1))) >> k);
}

int64_t decouple_k_scale123(int32_t o, int32_t t, const int32_t* recip) {
  if (o == 0) return 32768;
  const uint32_t abs_o = uint32_t(wrap_abs(o));
  int shift = 0;
  const uint16_t msb = abs_o < 32768 ? uint16_t(abs_o) : best15(abs_o, &shift);
  const int64_t sign = o < 0 ? -1 : 1;
  const int64_t k = ((int64_t(recip[msb + 32768]) * t) * sign + (int64_t(1) << (14 + shift))) >> (15 + shift);
  return std::clamp<int64_t>(k, 0, 32768);
}

}  // namespace

// ------------------------------------------------------------------------------------------------------------------

AdmRect adm_score_rect(int w, int h) {
  AdmRect r;
  r.left = border(w);
  r.top = border(h);
  r.right = w - r.left;
  r.bottom = h - r.top;
  return r;
}

AdmRect adm_tap_rect(int w, int h) {
  AdmRect r;
  r.left = static_cast<int>(w * kBorderFactor - 0.5 - 1);
  r.top = static_cast<int>(h * kBorderFactor - 0.5 - 1);
  r.right = w - r.left + 2;
  r.bottom = h - r.top + 2;
  r.left = std::max(r.left, 0);
  r.top = std::max(r.top, 0);
  r.right = std::min(r.right, w);
  r.bottom = std::min(r.bottom, h);
  return r;
}

namespace {

template <bool kUnitStep>
void dwt_scale0_dispatch(const Plane& src, AdmBands<int16_t> out, int16_t* tmp) {
  if (src.bytes == 1) {
    auto make = [&src](int y) { return Load8<kUnitStep>{src.row<uint8_t>(uint32_t(y)), src.step}; };
    dwt_scale0_impl<Load8<kUnitStep>>(src, make, out, tmp);
  } else {
    auto make = [&src](int y) { return Load16<kUnitStep>{src.row<uint16_t>(uint32_t(y)), src.step, src.shift}; };
    dwt_scale0_impl<Load16<kUnitStep>>(src, make, out, tmp);
  }
}

}  // namespace

void adm_dwt_scale0(const Plane& src, AdmBands<int16_t> out, int16_t* tmp) {
  if (src.step == 1)
    dwt_scale0_dispatch<true>(src, out, tmp);
  else
    dwt_scale0_dispatch<false>(src, out, tmp);
}

void adm_dwt_scale123(const int16_t* src, ptrdiff_t src_stride, int w, int h, int scale, AdmBands<int32_t> out,
                      int32_t* tmp) {
  dwt_scale123_impl(src, src_stride, w, h, scale, out, tmp);
}

void adm_dwt_scale123(const int32_t* src, ptrdiff_t src_stride, int w, int h, int scale, AdmBands<int32_t> out,
                      int32_t* tmp) {
  dwt_scale123_impl(src, src_stride, w, h, scale, out, tmp);
}

void adm_small_ref_row_above(const int16_t* csf_f_d, ptrdiff_t stride, int w0, int h0, int count, int32_t* out) {
  const int64_t row_len = (int64_t(w0) + 7) / 8 * 8;  // ALIGN_CEIL(w0 * 4 bytes, 32) / 4
  auto at = [&](int64_t linear) -> uint16_t {
    const int64_t r = linear / row_len, c = linear % row_len;
    if (r >= h0 || c >= w0) return 0;
    return uint16_t(csf_f_d[r * stride + c]);
  };
  const int64_t base = (int64_t(h0) - 2) * row_len;
  for (int j = 0; j < count; ++j)
    out[j] = int32_t(uint32_t(at(base + 2 * j)) | (uint32_t(at(base + 2 * j + 1)) << 16));
}

void adm_dwt_scale3_small(const int32_t* ref, const int32_t* dis, ptrdiff_t stride, int w, int h,
                          const int32_t* ref_row_above, AdmBands<int32_t> ref_out, AdmBands<int32_t> dis_out,
                          int32_t* tmp) {
  const int ow = (w + 1) / 2, oh = (h + 1) / 2;
  // Taps of output i along an axis of n as libvmaf's table has them: -1 (out of range) for output 0 of 3 or 4.
  auto tap = [](int i, int k, int n) { return (i == 0 && k == 0 && adm_small_axis(n)) ? -1 : adm_dwt_tap(i, k, n); };
  int32_t* lo_r = tmp;
  int32_t* hi_r = tmp + w;
  int32_t* lo_d = tmp + 2 * w;
  int32_t* hi_d = tmp + 3 * w;
  for (int i = 0; i < oh; ++i) {
    for (int j = 0; j < w; ++j) {
      int64_t u[2][4];
      for (int k = 0; k < 4; ++k) {
        const int r = tap(i, k, h);
        u[0][k] = r < 0 ? ref_row_above[j] : ref[r * stride + j];
        u[1][k] = r < 0 ? 0 : dis[r * stride + j];
      }
      for (int p = 0; p < 2; ++p) {
        const int64_t lo = kLo[0] * u[p][0] + kLo[1] * u[p][1] + kLo[2] * u[p][2] + kLo[3] * u[p][3];
        const int64_t hi = kHi[0] * u[p][0] + kHi[1] * u[p][1] + kHi[2] * u[p][2] + kHi[3] * u[p][3];
        (p ? lo_d : lo_r)[j] = int32_t((lo + 32768) >> 16);
        (p ? hi_d : hi_r)[j] = int32_t((hi + 32768) >> 16);
      }
    }
    // Element -1 of each row buffer: 0 before the first, the previous row's last value before the others.
    const int32_t before[4] = {0, lo_r[w - 1], hi_r[w - 1], lo_d[w - 1]};
    const int32_t* rows[4] = {lo_r, hi_r, lo_d, hi_d};
    int32_t* out[2][4] = {{ref_out.a, ref_out.v, ref_out.h, ref_out.d}, {dis_out.a, dis_out.v, dis_out.h, dis_out.d}};
    for (int j = 0; j < ow; ++j) {
      for (int q = 0; q < 4; ++q) {  // q: lo_r -> a, v of ref; hi_r -> h, d of ref; then dist
        int64_t t[4];
        for (int k = 0; k < 4; ++k) {
          const int c = tap(j, k, w);
          t[k] = c < 0 ? before[q] : rows[q][c];
        }
        const int32_t l = int32_t((kLo[0] * t[0] + kLo[1] * t[1] + kLo[2] * t[2] + kLo[3] * t[3] + 16384) >> 15);
        const int32_t hh = int32_t((kHi[0] * t[0] + kHi[1] * t[1] + kHi[2] * t[2] + kHi[3] * t[3] + 16384) >> 15);
        int32_t* const* o = out[q / 2];
        const ptrdiff_t at = ptrdiff_t(i) * (q / 2 ? dis_out.stride : ref_out.stride) + j;
        if (q % 2 == 0) {
          o[0][at] = l;   // a
          o[1][at] = hh;  // v
        } else {
          o[2][at] = l;   // h
          o[3][at] = hh;  // d
        }
      }
    }
  }
}

void adm_decouple_row_scale0(AdmRow<const int16_t> ref, AdmRow<const int16_t> dist, int left, int right,
                             double enhn_gain_limit, AdmRow<int16_t> r, AdmRow<int16_t> a) {
  const int32_t* recip = div_table();
  for (int j = left; j < right; ++j) {
    const int16_t oh = ref.h[j], ov = ref.v[j], od = ref.d[j];
    const int16_t th = dist.h[j], tv = dist.v[j], td = dist.d[j];

    const int64_t ot_dp = int64_t(oh) * th + int64_t(ov) * tv;
    const int64_t o_mag_sq = int64_t(oh) * oh + int64_t(ov) * ov;
    const int64_t t_mag_sq = int64_t(th) * th + int64_t(tv) * tv;
    const bool angle_flag = within_one_degree(ot_dp, o_mag_sq, t_mag_sq);

    const int32_t kh = decouple_k_scale0(oh, th, recip);
    const int32_t kv = decouple_k_scale0(ov, tv, recip);
    const int32_t kd = decouple_k_scale0(od, td, recip);

    int16_t rh = int16_t((kh * oh + 16384) >> 15);
    int16_t rv = int16_t((kv * ov + 16384) >> 15);
    int16_t rd = int16_t((kd * od + 16384) >> 15);

    const float rh_f = (float(kh) / 32768) * (float(oh) / 64);
    const float rv_f = (float(kv) / 32768) * (float(ov) / 64);
    const float rd_f = (float(kd) / 32768) * (float(od) / 64);

    rh = apply_gain<int16_t>(rh, angle_flag, rh_f, th, enhn_gain_limit);
    rv = apply_gain<int16_t>(rv, angle_flag, rv_f, tv, enhn_gain_limit);
    rd = apply_gain<int16_t>(rd, angle_flag, rd_f, td, enhn_gain_limit);

    r.h[j] = rh;
    r.v[j] = rv;
    r.d[j] = rd;
    a.h[j] = int16_t(th - rh);
    a.v[j] = int16_t(tv - rv);
    a.d[j] = int16_t(td - rd);
  }
}

void adm_decouple_row_scale123(AdmRow<const int32_t> ref, AdmRow<const int32_t> dist, int left, int right,
                               double enhn_gain_limit, AdmRow<int32_t> r, AdmRow<int32_t> a) {
  const int32_t* recip = div_table();
  for (int j = left; j < right; ++j) {
    const int32_t oh = ref.h[j], ov = ref.v[j], od = ref.d[j];
    const int32_t th = dist.h[j], tv = dist.v[j], td = dist.d[j];

    // int64 in libvmaf; the sum of two products of -2^31 passes 2^63 and wraps.
    const int64_t ot_dp = int64_t(uint64_t(int64_t(oh) * th) + uint64_t(int64_t(ov) * tv));
    const int64_t o_mag_sq = int64_t(uint64_t(int64_t(oh) * oh) + uint64_t(int64_t(ov) * ov));
    const int64_t t_mag_sq = int64_t(uint64_t(int64_t(th) * th) + uint64_t(int64_t(tv) * tv));
    const bool angle_flag = within_one_degree(ot_dp, o_mag_sq, t_mag_sq);

    const int64_t kh = decouple_k_scale123(oh, th, recip);
    const int64_t kv = decouple_k_scale123(ov, tv, recip);
    const int64_t kd = decouple_k_scale123(od, td, recip);

    int32_t rh = int32_t((kh * oh + 16384) >> 15);
    int32_t rv = int32_t((kv * ov + 16384) >> 15);
    int32_t rd = int32_t((kd * od + 16384) >> 15);

    const float rh_f = (float(kh) / 32768) * (float(oh) / 64);
    const float rv_f = (float(kv) / 32768) * (float(ov) / 64);
    const float rd_f = (float(kd) / 32768) * (float(od) / 64);

    rh = apply_gain<int32_t>(rh, angle_flag, rh_f, th, enhn_gain_limit);
    rv = apply_gain<int32_t>(rv, angle_flag, rv_f, tv, enhn_gain_limit);
    rd = apply_gain<int32_t>(rd, angle_flag, rd_f, td, enhn_gain_limit);

    r.h[j] = rh;
    r.v[j] = rv;
    r.d[j] = rd;
    a.h[j] = wrap_sub(th, rh);
    a.v[j] = wrap_sub(tv, rv);
    a.d[j] = wrap_sub(td, rd);
  }
}

namespace {

template <class T>
AdmRow<T> row_of(AdmBands<T> b, int i) {
  const ptrdiff_t o = ptrdiff_t(i) * b.stride;
  return AdmRow<T>(b.a ? b.a + o : nullptr, b.h + o, b.v + o, b.d + o);
}

}  // namespace

void adm_decouple_scale0(AdmBands<const int16_t> ref, AdmBands<const int16_t> dist, int w, int h,
                         double enhn_gain_limit, AdmBands<int16_t> r, AdmBands<int16_t> a) {
  const AdmRect rc = adm_tap_rect(w, h);
  for (int i = rc.top; i < rc.bottom; ++i)
    adm_decouple_row_scale0(row_of(ref, i), row_of(dist, i), rc.left, rc.right, enhn_gain_limit, row_of(r, i),
                            row_of(a, i));
}

void adm_decouple_scale123(AdmBands<const int32_t> ref, AdmBands<const int32_t> dist, int w, int h,
                           double enhn_gain_limit, AdmBands<int32_t> r, AdmBands<int32_t> a) {
  const AdmRect rc = adm_tap_rect(w, h);
  for (int i = rc.top; i < rc.bottom; ++i)
    adm_decouple_row_scale123(row_of(ref, i), row_of(dist, i), rc.left, rc.right, enhn_gain_limit, row_of(r, i),
                              row_of(a, i));
}

// ------------------------------------------------------------------------------------------------------------------

void adm_csf_factors(int scale, const AdmOptions& opt, float rfactor[3]) {
  float f1, f2;
  if (opt.csf_mode == kAdmCsfBarten) {
    f1 = barten_csf(scale, opt.norm_view_dist, opt.ref_display_height, kBartenLuminance, opt.csf_scale);
    f2 = barten_csf(scale, opt.norm_view_dist, opt.ref_display_height, kBartenLuminance, opt.csf_diag_scale);
  } else if (opt.csf_mode == kAdmCsfBlend || opt.csf_mode == kAdmCsfBlendMae) {
    const BlendTable* t = blend_table(opt.csf_mode, opt.norm_view_dist, opt.ref_display_height);
    f1 = t ? t->v[0][scale] : -22.0f;  // libvmaf returns -EINVAL as the factor; adm_check_options refuses it
    f2 = t ? t->v[1][scale] : -22.0f;
  } else {
    f1 = 1.0f / quant_step(scale, 1, opt.norm_view_dist, opt.ref_display_height);
    f2 = 1.0f / quant_step(scale, 2, opt.norm_view_dist, opt.ref_display_height);
  }
  rfactor[0] = f1;
  rfactor[1] = f1;
  rfactor[2] = f2;
}

void adm_fixed_factors_scale0(const float rfactor[3], const AdmOptions& opt, uint16_t out[3]) {
  if (fabs(opt.norm_view_dist * opt.ref_display_height - 3.0 * 1080) < 1.0e-8 && opt.csf_mode == kAdmCsfWatson97) {
    out[0] = 36453;
    out[1] = 36453;
    out[2] = 49417;
    return;
  }
  const double pow2_21 = pow(2, 21);
  const double pow2_23 = pow(2, 23);
  out[0] = static_cast<uint16_t>(rfactor[0] * pow2_21);
  out[1] = static_cast<uint16_t>(rfactor[1] * pow2_21);
  out[2] = static_cast<uint16_t>(rfactor[2] * pow2_23);
}

void adm_fixed_factors_scale123(const float rfactor[3], uint32_t out[3]) {
  const double pow2_32 = pow(2, 32);
  for (int t = 0; t < 3; ++t) out[t] = static_cast<uint32_t>(rfactor[t] * pow2_32);
}

// ------------------------------------------------------------------------------------------------------------------

void adm_den_row_scale0(AdmRow<const int16_t> ref, int left, int right, uint64_t sums[3]) {
  uint64_t ih = 0, iv = 0, id = 0;
  for (int j = left; j < right; ++j) {
    const uint64_t x = uint16_t(std::abs(int(ref.h[j])));
    const uint64_t y = uint16_t(std::abs(int(ref.v[j])));
    const uint64_t z = uint16_t(std::abs(int(ref.d[j])));
    ih += x * x * x;
    iv += y * y * y;
    id += z * z * z;
  }
  sums[0] = ih;
  sums[1] = iv;
  sums[2] = id;
}

void adm_den_row_scale123(AdmRow<const int32_t> ref, int left, int right, int scale, int cub, uint64_t sums[3]) {
  static constexpr uint32_t kShiftSq[3] = {31, 30, 31};
  const uint32_t shift_sq = kShiftSq[scale - 1];
  const uint64_t round_sq = uint64_t(1u << shift_sq);  // libvmaf adds 2^sq, not 2^(sq-1)
  const uint64_t cub_round = half_pow2(uint32_t(cub));
  uint64_t ih = 0, iv = 0, id = 0;
  for (int j = left; j < right; ++j) {
    const uint64_t x = uint32_t(wrap_abs(ref.h[j]));
    const uint64_t y = uint32_t(wrap_abs(ref.v[j]));
    const uint64_t z = uint32_t(wrap_abs(ref.d[j]));
    ih += ((((x * x + round_sq) >> shift_sq) * x) + cub_round) >> cub;
    iv += ((((y * y + round_sq) >> shift_sq) * y) + cub_round) >> cub;
    id += ((((z * z + round_sq) >> shift_sq) * z) + cub_round) >> cub;
  }
  sums[0] = ih;
  sums[1] = iv;
  sums[2] = id;
}

namespace {

// The per-row rounding shift of the scale-0 denominator: max(0, ceil(log2(score area) - 20)).
int den0_row_shift(const AdmRect& rc) {
  const int32_t shift = static_cast<int32_t>(ceil(log2((rc.bottom - rc.top) * (rc.right - rc.left)) - 20));
  return shift > 0 ? shift : 0;
}

void add_den0_row(const uint64_t row[3], int shift, AdmDenSums* s) {
  const uint64_t round = shift > 0 ? (uint64_t(1) << (shift - 1)) : 0;
  s->h += (row[0] + round) >> shift;
  s->v += (row[1] + round) >> shift;
  s->d += (row[2] + round) >> shift;
}

struct Den123Shifts {
  uint32_t cub, cub_round, accum, accum_round;
};
Den123Shifts den123_shifts(const AdmRect& rc) {
  Den123Shifts s;
  s.cub = static_cast<uint32_t>(ceil(log2(rc.right - rc.left)));
  s.cub_round = half_pow2(s.cub);
  s.accum = static_cast<uint32_t>(ceil(log2(rc.bottom - rc.top)));
  s.accum_round = half_pow2(s.accum);
  return s;
}

void add_den123_row(const uint64_t row[3], const Den123Shifts& sh, AdmDenSums* s) {
  s->h += (row[0] + sh.accum_round) >> sh.accum;
  s->v += (row[1] + sh.accum_round) >> sh.accum;
  s->d += (row[2] + sh.accum_round) >> sh.accum;
}

}  // namespace

AdmDenSums adm_den_sums_scale0(AdmBands<const int16_t> ref, int w, int h) {
  const AdmRect rc = adm_score_rect(w, h);
  const int shift = den0_row_shift(rc);
  AdmDenSums s;
  for (int i = rc.top; i < rc.bottom; ++i) {
    uint64_t row[3];
    adm_den_row_scale0(row_of(ref, i), rc.left, rc.right, row);
    add_den0_row(row, shift, &s);
  }
  return s;
}

AdmDenSums adm_den_sums_scale123(AdmBands<const int32_t> ref, int w, int h, int scale) {
  const AdmRect rc = adm_score_rect(w, h);
  const Den123Shifts sh = den123_shifts(rc);
  AdmDenSums s;
  for (int i = rc.top; i < rc.bottom; ++i) {
    uint64_t row[3];
    adm_den_row_scale123(row_of(ref, i), rc.left, rc.right, scale, int(sh.cub), row);
    add_den123_row(row, sh, &s);
  }
  return s;
}

float adm_den_finish(const AdmDenSums& sums, int w, int h, int scale, const float rfactor[3], double noise_weight) {
  const AdmRect rc = adm_score_rect(w, h);
  double shift_csf;
  if (scale == 0) {
    int32_t shift = static_cast<int32_t>(ceil(log2((rc.bottom - rc.top) * (rc.right - rc.left)) - 20));
    shift = shift > 0 ? shift : 0;
    shift_csf = pow(2, (18 - shift));
  } else {
    static constexpr uint32_t kConvert[3] = {32, 27, 23};
    const Den123Shifts sh = den123_shifts(rc);
    shift_csf = pow(2, (kConvert[scale - 1] - sh.accum - sh.cub));  // unsigned, as libvmaf
  }
  const double csf_h = double(sums.h / shift_csf) * pow(double(rfactor[0]), 3.0);
  const double csf_v = double(sums.v / shift_csf) * pow(double(rfactor[1]), 3.0);
  const double csf_d = double(sums.d / shift_csf) * pow(double(rfactor[2]), 3.0);
  const float noise = powf(float((rc.bottom - rc.top) * (rc.right - rc.left) * noise_weight), 1.0f / 3.0f);
  const float den_h = powf(float(csf_h), 1.0f / 3.0f) + noise;
  const float den_v = powf(float(csf_v), 1.0f / 3.0f) + noise;
  const float den_d = powf(float(csf_d), 1.0f / 3.0f) + noise;
  return den_h + den_v + den_d;
}

// ------------------------------------------------------------------------------------------------------------------

void adm_csf_scale0(AdmBands<const int16_t> src, int w, int h, const uint16_t fixed[3], AdmBands<int16_t> csf,
                    AdmBands<int16_t> flt) {
  static constexpr int32_t kRound[3] = {16384, 16384, 65535};
  static constexpr int kShift[3] = {15, 15, 17};
  const AdmRect rc = adm_tap_rect(w, h);
  const int16_t* s_band[3] = {src.h, src.v, src.d};
  int16_t* c_band[3] = {csf.h, csf.v, csf.d};
  int16_t* f_band[3] = {flt.h, flt.v, flt.d};
  for (int t = 0; t < 3; ++t) {
    const int32_t factor = fixed[t];
    for (int i = rc.top; i < rc.bottom; ++i) {
      const int16_t* s = s_band[t] + i * src.stride;
      int16_t* c = c_band[t] + i * csf.stride;
      int16_t* f = f_band[t] + i * flt.stride;
      for (int j = rc.left; j < rc.right; ++j) {
        const int32_t v = wrap_mul(factor, s[j]);
        const int16_t cv = int16_t(wrap_add(v, kRound[t]) >> kShift[t]);
        c[j] = cv;
        f[j] = int16_t((kOneBy30Q17 * std::abs(int32_t(cv)) + 2048) >> 12);
      }
    }
  }
}

void adm_csf_scale123(AdmBands<const int32_t> src, int w, int h, const uint32_t fixed[3], AdmBands<int32_t> csf,
                      AdmBands<int32_t> flt) {
  const AdmRect rc = adm_tap_rect(w, h);
  const int32_t* s_band[3] = {src.h, src.v, src.d};
  int32_t* c_band[3] = {csf.h, csf.v, csf.d};
  int32_t* f_band[3] = {flt.h, flt.v, flt.d};
  for (int t = 0; t < 3; ++t) {
    const int64_t factor = fixed[t];
    for (int i = rc.top; i < rc.bottom; ++i) {
      const int32_t* s = s_band[t] + i * src.stride;
      int32_t* c = c_band[t] + i * csf.stride;
      int32_t* f = f_band[t] + i * flt.stride;
      for (int j = rc.left; j < rc.right; ++j) {
        const int32_t cv = int32_t((factor * s[j] + (int64_t(1) << 27)) >> 28);
        c[j] = cv;
        f[j] = int32_t((kOneBy30Q32 * wrap_abs(cv) + kRound32) >> 32);
      }
    }
  }
}

// ------------------------------------------------------------------------------------------------------------------

namespace {

// The masking threshold at (i, j): for each of h, v, d the 3x3 neighbourhood of flt with the centre replaced by
// centre(csf at (i, j)). Rows up/dn and columns l/r are the already-mirrored neighbours.
template <class T, class Centre>
int32_t cm_threshold(const T* const csf_rows[3], const T* const flt_up[3], const T* const flt_mid[3],
                     const T* const flt_dn[3], int l, int j, int r, Centre centre) {
  int32_t thr = 0;
  for (int t = 0; t < 3; ++t) {
    int32_t sum = 0;
    sum = wrap_add(sum, flt_up[t][l]);
    sum = wrap_add(sum, flt_up[t][j]);
    sum = wrap_add(sum, flt_up[t][r]);
    sum = wrap_add(sum, flt_mid[t][l]);
    sum = wrap_add(sum, centre(csf_rows[t][j]));
    sum = wrap_add(sum, flt_mid[t][r]);
    sum = wrap_add(sum, flt_dn[t][l]);
    sum = wrap_add(sum, flt_dn[t][j]);
    sum = wrap_add(sum, flt_dn[t][r]);
    thr = wrap_add(thr, sum);
  }
  return thr;
}

// One term of the masked 3-norm: max(0, |x| - thr), squared and rounded in int32, cubed and rounded in int64.
inline int64_t cm_term(int32_t x, int32_t thr_shifted, int64_t round_sq, int shift_sq, int64_t round_cub,
                       int shift_cub) {
  int32_t y = wrap_sub(wrap_abs(x), thr_shifted);
  y = y < 0 ? 0 : y;
  const int32_t y_sq = int32_t((int64_t(y) * y + round_sq) >> shift_sq);
  return (int64_t(y_sq) * y + round_cub) >> shift_cub;
}

struct Cm0Shifts {
  uint32_t hcub, hcub_round, dcub, dcub_round, inner, inner_round;
};
Cm0Shifts cm0_shifts(int w, int h) {
  Cm0Shifts s;
  s.hcub = static_cast<uint32_t>(ceil(log2(w) - 4));
  s.hcub_round = half_pow2(s.hcub);
  s.dcub = static_cast<uint32_t>(ceil(log2(w) - 3));
  s.dcub_round = half_pow2(s.dcub);
  s.inner = static_cast<uint32_t>(ceil(log2(h)));
  s.inner_round = half_pow2(s.inner);
  return s;
}

struct Cm123Shifts {
  uint32_t cub, cub_round, inner, inner_round;
};
Cm123Shifts cm123_shifts(int w, int h) {
  Cm123Shifts s;
  s.cub = static_cast<uint32_t>(ceil(log2(w)));
  s.cub_round = half_pow2(s.cub);
  s.inner = static_cast<uint32_t>(ceil(log2(h)));
  s.inner_round = half_pow2(s.inner);
  return s;
}

}  // namespace

AdmCmSums adm_cm_sums_scale0(AdmBands<const int16_t> x, AdmBands<const int16_t> csf, AdmBands<const int16_t> flt,
                             int w, int h, const uint16_t fixed[3]) {
  const AdmRect rc = adm_score_rect(w, h);
  const Cm0Shifts sh = cm0_shifts(w, h);
  const int32_t fh = fixed[0], fv = fixed[1], fd = fixed[2];
  auto centre = [](int16_t c) { return int32_t(int16_t((kOneBy15Q17 * std::abs(int32_t(c)) + 2048) >> 12)); };
  AdmCmSums s;
  for (int i = rc.top; i < rc.bottom; ++i) {
    const int up = i == 0 ? 1 : i - 1;
    const int dn = i == h - 1 ? h - 1 : i + 1;
    const int16_t* csf_rows[3] = {csf.h + i * csf.stride, csf.v + i * csf.stride, csf.d + i * csf.stride};
    const int16_t* f_up[3] = {flt.h + up * flt.stride, flt.v + up * flt.stride, flt.d + up * flt.stride};
    const int16_t* f_mid[3] = {flt.h + i * flt.stride, flt.v + i * flt.stride, flt.d + i * flt.stride};
    const int16_t* f_dn[3] = {flt.h + dn * flt.stride, flt.v + dn * flt.stride, flt.d + dn * flt.stride};
    const int16_t* xh = x.h + i * x.stride;
    const int16_t* xv = x.v + i * x.stride;
    const int16_t* xd = x.d + i * x.stride;
    int64_t ih = 0, iv = 0, id = 0;
    for (int j = rc.left; j < rc.right; ++j) {
      const int l = j == 0 ? 1 : j - 1;
      const int r = j == w - 1 ? w - 1 : j + 1;
      const int32_t thr = cm_threshold(csf_rows, f_up, f_mid, f_dn, l, j, r, centre);
      ih += cm_term(wrap_mul(xh[j], fh), wrap_shl(thr, 10), 268435456, 29, sh.hcub_round, int(sh.hcub));
      iv += cm_term(wrap_mul(xv[j], fv), wrap_shl(thr, 10), 268435456, 29, sh.hcub_round, int(sh.hcub));
      id += cm_term(wrap_mul(xd[j], fd), wrap_shl(thr, 12), 536870912, 30, sh.dcub_round, int(sh.dcub));
    }
    s.h += (ih + sh.inner_round) >> sh.inner;
    s.v += (iv + sh.inner_round) >> sh.inner;
    s.d += (id + sh.inner_round) >> sh.inner;
  }
  return s;
}

AdmCmSums adm_cm_sums_scale123(AdmBands<const int32_t> x, AdmBands<const int32_t> csf, AdmBands<const int32_t> flt,
                               int w, int h, const uint32_t fixed[3]) {
  const AdmRect rc = adm_score_rect(w, h);
  const Cm123Shifts sh = cm123_shifts(w, h);
  const int64_t fh = fixed[0], fv = fixed[1], fd = fixed[2];
  const int64_t round_x = int64_t(1) << 27;
  auto centre = [](int32_t c) { return int32_t((kOneBy15Q32 * wrap_abs(c) + kRound32) >> 32); };
  AdmCmSums s;
  for (int i = rc.top; i < rc.bottom; ++i) {
    const int up = i == 0 ? 1 : i - 1;
    const int dn = i == h - 1 ? h - 1 : i + 1;
    const int32_t* csf_rows[3] = {csf.h + i * csf.stride, csf.v + i * csf.stride, csf.d + i * csf.stride};
    const int32_t* f_up[3] = {flt.h + up * flt.stride, flt.v + up * flt.stride, flt.d + up * flt.stride};
    const int32_t* f_mid[3] = {flt.h + i * flt.stride, flt.v + i * flt.stride, flt.d + i * flt.stride};
    const int32_t* f_dn[3] = {flt.h + dn * flt.stride, flt.v + dn * flt.stride, flt.d + dn * flt.stride};
    const int32_t* xh = x.h + i * x.stride;
    const int32_t* xv = x.v + i * x.stride;
    const int32_t* xd = x.d + i * x.stride;
    int64_t ih = 0, iv = 0, id = 0;
    for (int j = rc.left; j < rc.right; ++j) {
      const int l = j == 0 ? 1 : j - 1;
      const int r = j == w - 1 ? w - 1 : j + 1;
      const int32_t thr = cm_threshold(csf_rows, f_up, f_mid, f_dn, l, j, r, centre);
      ih += cm_term(int32_t((xh[j] * fh + round_x) >> 28), thr, 536870912, 30, sh.cub_round, int(sh.cub));
      iv += cm_term(int32_t((xv[j] * fv + round_x) >> 28), thr, 536870912, 30, sh.cub_round, int(sh.cub));
      id += cm_term(int32_t((xd[j] * fd + round_x) >> 28), thr, 536870912, 30, sh.cub_round, int(sh.cub));
    }
    s.h += (ih + sh.inner_round) >> sh.inner;
    s.v += (iv + sh.inner_round) >> sh.inner;
    s.d += (id + sh.inner_round) >> sh.inner;
  }
  return s;
}

// ---- row functions of the pipeline --------------------------------------------------------------------------------

void adm_csf_row_scale0(AdmRow<const int16_t> src, int left, int right, const uint16_t fixed[3], int32_t* flt_sum,
                        int32_t* centre_sum) {
  static constexpr int32_t kRound[3] = {16384, 16384, 65535};
  static constexpr int kShift[3] = {15, 15, 17};
  const int16_t* s_band[3] = {src.h, src.v, src.d};
  for (int j = left; j < right; ++j) {
    int32_t f = 0, c = 0;
    for (int t = 0; t < 3; ++t) {
      const int16_t cv = int16_t(wrap_add(wrap_mul(int32_t(fixed[t]), s_band[t][j]), kRound[t]) >> kShift[t]);
      const int32_t mag = std::abs(int32_t(cv));
      f = wrap_add(f, int16_t((kOneBy30Q17 * mag + 2048) >> 12));
      c = wrap_add(c, int16_t((kOneBy15Q17 * mag + 2048) >> 12));
    }
    flt_sum[j] = f;
    centre_sum[j] = c;
  }
}

void adm_csf_row_scale123(AdmRow<const int32_t> src, int left, int right, const uint32_t fixed[3],
                          int32_t* flt_sum, int32_t* centre_sum) {
  const int32_t* s_band[3] = {src.h, src.v, src.d};
  for (int j = left; j < right; ++j) {
    int32_t f = 0, c = 0;
    for (int t = 0; t < 3; ++t) {
      const int32_t cv = int32_t((int64_t(fixed[t]) * s_band[t][j] + (int64_t(1) << 27)) >> 28);
      const int32_t mag = wrap_abs(cv);
      f = wrap_add(f, int32_t((kOneBy30Q32 * mag + kRound32) >> 32));
      c = wrap_add(c, int32_t((kOneBy15Q32 * mag + kRound32) >> 32));
    }
    flt_sum[j] = f;
    centre_sum[j] = c;
  }
}

namespace {

// The masking threshold at column j from the band-summed rows: the 3x3 sum with the centre replaced by the centre
// term (every sum is int32 and wraps as adm_cm_sums_* do; the order of the terms does not change a wrapped sum).
inline int32_t cm_row_threshold(const int32_t* const f[3], const int32_t* centre, int w, int j) {
  const int l = j == 0 ? 1 : j - 1;
  const int r = j == w - 1 ? w - 1 : j + 1;
  int32_t thr = wrap_sub(centre[j], f[1][j]);
  for (int k = 0; k < 3; ++k) thr = wrap_add(thr, wrap_add(wrap_add(f[k][l], f[k][j]), f[k][r]));
  return thr;
}

}  // namespace

void adm_cm_row_scale0(AdmRow<const int16_t> x, const int32_t* const flt_sum[3], const int32_t* centre_sum, int w,
                       int left, int right, const uint16_t fixed[3], int cub_hv, int cub_d, int64_t sums[3]) {
  const int32_t fh = fixed[0], fv = fixed[1], fd = fixed[2];
  const int64_t rhv = half_pow2(uint32_t(cub_hv)), rd = half_pow2(uint32_t(cub_d));
  int64_t ih = 0, iv = 0, id = 0;
  for (int j = left; j < right; ++j) {
    const int32_t thr = cm_row_threshold(flt_sum, centre_sum, w, j);
    ih += cm_term(wrap_mul(x.h[j], fh), wrap_shl(thr, 10), 268435456, 29, rhv, cub_hv);
    iv += cm_term(wrap_mul(x.v[j], fv), wrap_shl(thr, 10), 268435456, 29, rhv, cub_hv);
    id += cm_term(wrap_mul(x.d[j], fd), wrap_shl(thr, 12), 536870912, 30, rd, cub_d);
  }
  sums[0] = ih;
  sums[1] = iv;
  sums[2] = id;
}

void adm_cm_row_scale123(AdmRow<const int32_t> x, const int32_t* const flt_sum[3], const int32_t* centre_sum,
                         int w, int left, int right, const uint32_t fixed[3], int cub, int64_t sums[3]) {
  const int64_t fh = fixed[0], fv = fixed[1], fd = fixed[2];
  const int64_t round_x = int64_t(1) << 27;
  const int64_t rc = half_pow2(uint32_t(cub));
  int64_t ih = 0, iv = 0, id = 0;
  for (int j = left; j < right; ++j) {
    const int32_t thr = cm_row_threshold(flt_sum, centre_sum, w, j);
    ih += cm_term(int32_t((x.h[j] * fh + round_x) >> 28), thr, 536870912, 30, rc, cub);
    iv += cm_term(int32_t((x.v[j] * fv + round_x) >> 28), thr, 536870912, 30, rc, cub);
    id += cm_term(int32_t((x.d[j] * fd + round_x) >> 28), thr, 536870912, 30, rc, cub);
  }
  sums[0] = ih;
  sums[1] = iv;
  sums[2] = id;
}

namespace {

// Elements -1, n and n + 1 of a row of n >= 3 values: what the DWT's reflected taps read there.
template <class T>
void pad_row(T* row, int n) {
  row[-1] = row[1];
  row[n] = row[n - 1];
  row[n + 1] = row[n - 2];
}

// The horizontal pass from padded rows (taps 2j - 1 .. 2j + 2 read in place).
template <class Acc, class Tmp, class Out>
void horizontal_padded(const Tmp* lo, const Tmp* hi, int ow, AdmRow<Out> out, Acc round, int shift) {
  for (int j = 0; j < ow; ++j)
    horizontal_one<Acc>(lo, hi, 2 * j - 1, 2 * j, 2 * j + 1, 2 * j + 2, j, out.a, out.v, out.h, out.d, round, shift);
}

template <class Loader, class MakeLoader>
void dwt_row0_impl(const Plane& src, int i, MakeLoader make, int16_t* tmp, AdmRow<int16_t> out) {
  const int w = int(src.w), h = int(src.h);
  const int shift_vp = src.bpc;
  const int32_t round_vp = int32_t(1) << (src.bpc - 1);
  const uint32_t lo_offset = uint32_t(kLoSum) * uint32_t(round_vp);
  int16_t* lo = tmp + 1;
  int16_t* hi = tmp + w + 4;
  const Loader s0 = make(adm_dwt_tap(i, 0, h));
  const Loader s1 = make(adm_dwt_tap(i, 1, h));
  const Loader s2 = make(adm_dwt_tap(i, 2, h));
  const Loader s3 = make(adm_dwt_tap(i, 3, h));
  for (int j = 0; j < w; ++j) {
    const uint32_t u0 = s0[j], u1 = s1[j], u2 = s2[j], u3 = s3[j];
    const int32_t l = int32_t(uint32_t(kLo[0]) * u0 + uint32_t(kLo[1]) * u1 + uint32_t(kLo[2]) * u2 +
                              uint32_t(kLo[3]) * u3 - lo_offset);
    const int32_t hh = int32_t(uint32_t(kHi[0]) * u0 + uint32_t(kHi[1]) * u1 + uint32_t(kHi[2]) * u2 +
                               uint32_t(kHi[3]) * u3);
    lo[j] = int16_t(wrap_add(l, round_vp) >> shift_vp);
    hi[j] = int16_t(wrap_add(hh, round_vp) >> shift_vp);
  }
  pad_row(lo, w);
  pad_row(hi, w);
  horizontal_padded<int32_t>(lo, hi, (w + 1) / 2, out, 32768, 16);
}

template <bool kUnitStep>
void dwt_row0_dispatch(const Plane& src, int i, int16_t* tmp, AdmRow<int16_t> out) {
  if (src.bytes == 1) {
    auto make = [&src](int y) { return Load8<kUnitStep>{src.row<uint8_t>(uint32_t(y)), src.step}; };
    dwt_row0_impl<Load8<kUnitStep>>(src, i, make, tmp, out);
  } else {
    auto make = [&src](int y) { return Load16<kUnitStep>{src.row<uint16_t>(uint32_t(y)), src.step, src.shift}; };
    dwt_row0_impl<Load16<kUnitStep>>(src, i, make, tmp, out);
  }
}

template <class In>
void dwt_row123_impl(const In* src, ptrdiff_t stride, int w, int h, int scale, int i, int32_t* tmp,
                     AdmRow<int32_t> out) {
  static constexpr int64_t kRoundVp[3] = {0, 32768, 32768};
  static constexpr int kShiftVp[3] = {0, 16, 16};
  static constexpr int64_t kRoundHp[3] = {16384, 32768, 16384};
  static constexpr int kShiftHp[3] = {15, 16, 15};
  const int64_t round_vp = kRoundVp[scale - 1];
  const int shift_vp = kShiftVp[scale - 1];
  int32_t* lo = tmp + 1;
  int32_t* hi = tmp + w + 4;
  const In* s0 = src + adm_dwt_tap(i, 0, h) * stride;
  const In* s1 = src + adm_dwt_tap(i, 1, h) * stride;
  const In* s2 = src + adm_dwt_tap(i, 2, h) * stride;
  const In* s3 = src + adm_dwt_tap(i, 3, h) * stride;
  for (int j = 0; j < w; ++j) {
    const int64_t u0 = s0[j], u1 = s1[j], u2 = s2[j], u3 = s3[j];
    const int64_t l = kLo[0] * u0 + kLo[1] * u1 + kLo[2] * u2 + kLo[3] * u3;
    const int64_t hh = kHi[0] * u0 + kHi[1] * u1 + kHi[2] * u2 + kHi[3] * u3;
    lo[j] = int32_t((l + round_vp) >> shift_vp);
    hi[j] = int32_t((hh + round_vp) >> shift_vp);
  }
  pad_row(lo, w);
  pad_row(hi, w);
  horizontal_padded<int64_t>(lo, hi, (w + 1) / 2, out, kRoundHp[scale - 1], kShiftHp[scale - 1]);
}

}  // namespace

void adm_dwt_row_scale0(const Plane& src, int i, int16_t* tmp, AdmRow<int16_t> out) {
  if (src.step == 1)
    dwt_row0_dispatch<true>(src, i, tmp, out);
  else
    dwt_row0_dispatch<false>(src, i, tmp, out);
}

void adm_dwt_row_scale1(const int16_t* src, ptrdiff_t stride, int w, int h, int i, int32_t* tmp,
                        AdmRow<int32_t> out) {
  dwt_row123_impl(src, stride, w, h, 1, i, tmp, out);
}

void adm_dwt_row_scale23(const int32_t* src, ptrdiff_t stride, int w, int h, int scale, int i, int32_t* tmp,
                         AdmRow<int32_t> out) {
  dwt_row123_impl(src, stride, w, h, scale, i, tmp, out);
}

const int32_t* adm_reciprocals() { return div_table() + 32768; }

float adm_cos_1deg_sq() { return static_cast<float>(cos(1.0 * kPi / 180.0) * cos(1.0 * kPi / 180.0)); }

float adm_cm_finish(const AdmCmSums& sums, int w, int h, int scale, double noise_weight) {
  const AdmRect rc = adm_score_rect(w, h);
  float fh, fv, fd;
  if (scale == 0) {
    const Cm0Shifts sh = cm0_shifts(w, h);
    fh = float(sums.h / pow(2, (52 - sh.hcub - sh.inner)));  // unsigned exponents, as libvmaf
    fv = float(sums.v / pow(2, (52 - sh.hcub - sh.inner)));
    fd = float(sums.d / pow(2, (57 - sh.dcub - sh.inner)));
  } else {
    const Cm123Shifts sh = cm123_shifts(w, h);
    const float final_shift[3] = {float(pow(2, (45 - sh.cub - sh.inner))), float(pow(2, (39 - sh.cub - sh.inner))),
                                  float(pow(2, (36 - sh.cub - sh.inner)))};
    const float div = final_shift[scale - 1];
    fh = float(sums.h) / div;  // float division: libvmaf divides an int64 by a float
    fv = float(sums.v) / div;
    fd = float(sums.d) / div;
  }
  const float area_h = powf(float((rc.bottom - rc.top) * (rc.right - rc.left) * noise_weight), 1.0f / 3.0f);
  const float num_h = powf(fh, 1.0f / 3.0f) + area_h;
  const float num_v = powf(fv, 1.0f / 3.0f) + area_h;
  const float num_d = powf(fd, 1.0f / 3.0f) + area_h;
  return num_h + num_v + num_d;
}

// ------------------------------------------------------------------------------------------------------------------

AdmScores adm_combine(const float num[4], const float den[4], const float aim_num[4], uint32_t width,
                      uint32_t height, const AdmOptions& opt) {
  AdmScores out;
  const double numden_limit = 1e-10 * (int(width) * int(height)) / (1920.0 * 1080.0);
  double n = 0, d = 0, an = 0;
  for (int s = 0; s < 4; ++s) {
    n += num[s];
    d += den[s];
    an += aim_num[s];
    out.num_scale[s] = num[s];
    out.den_scale[s] = den[s];
    out.scale[s] = double(num[s]) / double(den[s]);
  }
  n = n < numden_limit ? 0 : n;
  d = d < numden_limit ? 0 : d;
  if (d == 0.0) {
    // libvmaf leaves aim unset here; it cannot happen with a noise weight above 0 (the noise term keeps den > 0).
    out.adm2 = 1.0f;
    out.aim = 0.0;
  } else {
    out.aim = an / d;
    out.adm2 = n / d;
  }
  out.num = n;
  out.den = d;
  const double adm3 = out.adm2 * opt.dlm_weight + (1 - out.aim) * (1 - opt.dlm_weight);
  out.adm3 = adm3 > opt.min_val ? adm3 : opt.min_val;
  return out;
}

// ------------------------------------------------------------------------------------------------------------------

Status adm_check_options(const AdmOptions& opt) {
  auto out_of = [](const char* name, double v, double lo, double hi) -> Status {
    if (v >= lo && v <= hi) return Status::ok();
    return {Errc::invalid_argument, std::string("adm: ") + name + " " + std::to_string(v) + " is outside [" +
                                        std::to_string(lo) + ", " + std::to_string(hi) + "]"};
  };
  VMAFX_TRY(out_of("adm_enhn_gain_limit", opt.enhn_gain_limit, 1.0, 100.0));
  VMAFX_TRY(out_of("adm_norm_view_dist", opt.norm_view_dist, 0.75, 24.0));
  VMAFX_TRY(out_of("adm_ref_display_height", opt.ref_display_height, 1, 4320));
  VMAFX_TRY(out_of("adm_noise_weight", opt.noise_weight, 0.0, 1500.0));
  VMAFX_TRY(out_of("adm_dlm_weight", opt.dlm_weight, 0.0, 1.0));
  VMAFX_TRY(out_of("adm_min_val", opt.min_val, 0.0, 1.0));
  VMAFX_TRY(out_of("adm_csf_mode", opt.csf_mode, 0, 3));
  VMAFX_TRY(out_of("adm_csf_scale", opt.csf_scale, 0.0, 50.0));
  VMAFX_TRY(out_of("adm_csf_diag_scale", opt.csf_diag_scale, 0.0, 50.0));
  // libvmaf refuses to extract below 3 picture heights at 1080 lines: its 16-bit scale-0 pipeline would overflow.
  if (opt.norm_view_dist * opt.ref_display_height < 3.0 * 1080)
    return {Errc::unsupported, "adm: adm_norm_view_dist * adm_ref_display_height must be at least 3 * 1080"};
  if ((opt.csf_mode == kAdmCsfBlend || opt.csf_mode == kAdmCsfBlendMae) &&
      !blend_table(opt.csf_mode, opt.norm_view_dist, opt.ref_display_height))
    return {Errc::unsupported, "adm: adm_csf_mode " + std::to_string(opt.csf_mode) +
                                   " has tables only for display heights 1080 and 2160 at 3 or 5 heights and 2160 "
                                   "at 1.5 (480 and 720 are below 3 * 1080), not " +
                                   std::to_string(opt.ref_display_height) + " at " +
                                   std::to_string(opt.norm_view_dist)};
  // The fixed-point factors must fit libvmaf's integers; where they do not, libvmaf's conversions overflow.
  for (int s = 0; s < 4; ++s) {
    float rf[3];
    adm_csf_factors(s, opt, rf);
    for (int t = 0; t < 3; ++t) {
      const double v = s == 0 ? rf[t] * pow(2, t == 2 ? 23 : 21) : rf[t] * pow(2, 32);
      const double limit = s == 0 ? 65536.0 : 4294967296.0;
      if (!(v >= 0 && v < limit))
        return {Errc::unsupported, "adm: the CSF factor of scale " + std::to_string(s) + (t == 2 ? " (d)" : " (h, v)") +
                                       ", " + std::to_string(rf[t]) + ", overflows libvmaf's " +
                                       (s == 0 ? "16" : "32") + "-bit fixed point" +
                                       (opt.csf_mode == kAdmCsfBarten ? " (lower adm_csf_scale / adm_csf_diag_scale)"
                                                                      : "")};
    }
  }
  return Status::ok();
}

Status Adm::check_size(uint32_t w, uint32_t h) {
  constexpr uint32_t kMin = kMinSize;
  constexpr uint32_t kMax = 32768;
  if (w < kMin || h < kMin)
    return {Errc::unsupported, "adm needs at least " + std::to_string(kMin) + "x" + std::to_string(kMin) +
                                   " luma samples (libvmaf's smallest; its 4-level DWT fails below), got " +
                                   std::to_string(w) + "x" + std::to_string(h)};
  if (w > kMax || h > kMax)
    return {Errc::unsupported, "adm handles at most " + std::to_string(kMax) + " luma samples per side, got " +
                                   std::to_string(w) + "x" + std::to_string(h)};
  return Status::ok();
}

template <class T>
void Adm::BandSet<T>::alloc(int w, int h, bool with_a) {
  const size_t n = size_t(w) * size_t(h);
  mem.assign(n * (with_a ? 4 : 3), T(0));
  T* p = mem.data();
  T* a = nullptr;
  if (with_a) {
    a = p;
    p += n;
  }
  bands = AdmBands<T>(a, p, p + n, p + 2 * n, w);
}

Status Adm::init(uint32_t w, uint32_t h, unsigned bpc, const AdmOptions& opt) {
  ready_ = false;
  VMAFX_TRY(check_size(w, h));
  if (bpc < 8 || bpc > 16) return {Errc::unsupported, "adm: bit depth " + std::to_string(bpc) + " is not 8..16"};
  VMAFX_TRY(adm_check_options(opt));

  w_ = w;
  h_ = h;
  bpc_ = bpc;
  opt_ = opt;
  int cw = int(w), ch = int(h);
  for (int s = 0; s < 4; ++s) {
    cw = (cw + 1) / 2;
    ch = (ch + 1) / 2;
    sw_[s] = cw;
    sh_[s] = ch;
    adm_csf_factors(s, opt, rfactor_[s]);
    if (s > 0) adm_fixed_factors_scale123(rfactor_[s], fixed_[s]);
  }
  adm_fixed_factors_scale0(rfactor_[0], opt, fixed0_);

  small_ = adm_small_axis(sw_[2]) || adm_small_axis(sh_[2]);
  if (small_) {
    ref16_.alloc(sw_[0], sh_[0], true);
    dis16_.alloc(sw_[0], sh_[0], true);
    r16_.alloc(sw_[0], sh_[0], false);
    a16_.alloc(sw_[0], sh_[0], false);
    csf16_.alloc(sw_[0], sh_[0], false);
    flt16_.alloc(sw_[0], sh_[0], false);
    ref32_.alloc(sw_[1], sh_[1], false);
    dis32_.alloc(sw_[1], sh_[1], false);
    r32_.alloc(sw_[1], sh_[1], false);
    a32_.alloc(sw_[1], sh_[1], false);
    csf32_.alloc(sw_[1], sh_[1], false);
    flt32_.alloc(sw_[1], sh_[1], false);
    for (int k = 0; k < 2; ++k) {
      ref_a32_[k].assign(size_t(sw_[1]) * sh_[1], 0);
      dis_a32_[k].assign(size_t(sw_[1]) * sh_[1], 0);
    }
    tmp16_.assign(2 * size_t(w), 0);
    tmp32_.assign(4 * size_t(sw_[0]), 0);
    small_row_.assign(size_t(sw_[2]), 0);
  } else {
    for (int k = 0; k < 2; ++k) {
      band_a0_[k].assign(size_t(sw_[0]) * sh_[0], 0);
      band_a1_[k].assign(size_t(sw_[1]) * sh_[1], 0);
      band_a2_[k].assign(size_t(sw_[2]) * sh_[2], 0);
    }
    rows_.alloc(int(w), sw_[0]);
  }
  ready_ = true;
  return Status::ok();
}

namespace {

Status check_plane(const Plane& p, uint32_t w, uint32_t h, unsigned bpc, const char* which) {
  const std::string name = std::string("adm: ") + which + " plane";
  VMAFX_TRY(check_plane_layout(name, p.data, p.stride, p.w, p.h, p.bytes, p.shift, p.step, w, h, bpc));
  if (p.bpc != bpc)
    return {Errc::unsupported,
            name + " has " + std::to_string(p.bpc) + " bits, initialised for " + std::to_string(bpc)};
  return Status::ok();
}

}  // namespace

namespace {

// Rows of every buffer: the widest band row plus a margin on each side for vector loads that run past a row's end.
constexpr int kRowPad = 64;

}  // namespace

void Adm::RowBuffers::alloc(int picture_w, int w0) {
  const size_t row = size_t(w0) + 2 * kRowPad;
  m16.assign(2 * (size_t(picture_w) + 3) + 2 * kRowPad + 20 * row, 0);
  m32.assign(2 * (size_t(w0) + 3) + 2 * kRowPad + 30 * row, 0);
  tmp16 = m16.data() + kRowPad;
  tmp32 = m32.data() + kRowPad;
  int16_t* p16 = m16.data() + 2 * (size_t(picture_w) + 3) + 2 * kRowPad + kRowPad;
  int32_t* p32 = m32.data() + 2 * (size_t(w0) + 3) + 2 * kRowPad + kRowPad;
  auto next16 = [&]() {
    int16_t* r = p16;
    p16 += row;
    return r;
  };
  auto next32 = [&]() {
    int32_t* r = p32;
    p32 += row;
    return r;
  };
  ref16 = {next16(), next16(), next16(), next16()};
  dis16 = {next16(), next16(), next16(), next16()};
  ref32 = {next32(), next32(), next32(), next32()};
  dis32 = {next32(), next32(), next32(), next32()};
  for (int k = 0; k < 2; ++k) {
    r16[k] = {nullptr, next16(), next16(), next16()};
    a16[k] = {nullptr, next16(), next16(), next16()};
    r32[k] = {nullptr, next32(), next32(), next32()};
    a32[k] = {nullptr, next32(), next32(), next32()};
    centre_dlm[k] = next32();
    centre_aim[k] = next32();
  }
  for (int k = 0; k < 3; ++k) {
    flt_dlm[k] = next32();
    flt_aim[k] = next32();
  }
}

namespace {

// One scale's rows [r0, r1) on band rows of type T (int16 at scale 0, int32 after). dwt(i, ref_row, dist_row)
// writes DWT row i; the kernels are k's. Rows r0 - 1 and r1 are computed too (not their band a) where the masking
// of rows r0 and r1 - 1 reads them.
template <class T, class Dwt, class Den, class Decouple, class Csf, class Cm>
void run_rows(int w, int h, int r0, int r1, bool bands, bool skip_aim, T* a_ref, T* a_dis, AdmRow<T> ref_row,
              AdmRow<T> dis_row, AdmRow<T>* r_ring, AdmRow<T>* a_ring, int32_t* const flt_dlm[3],
              int32_t* const flt_aim[3], int32_t* const centre_dlm[2], int32_t* const centre_aim[2], Dwt dwt,
              Den den, Decouple decouple, Csf csf, Cm cm) {
  const AdmRect sc = adm_score_rect(w, h), tp = adm_tap_rect(w, h);
  const int first = std::max(r0 - 1, 0), last = std::min(r1 + 1, h);
  // The masking of row q, once rows q - 1 (or 1 for q = 0), q and q + 1 (or q for the last) are done.
  auto mask_row = [&](int q) {
    if (!bands || q < r0 || q >= r1 || q < sc.top || q >= sc.bottom) return;
    const int up = q == 0 ? 1 : q - 1;
    const int dn = q == h - 1 ? h - 1 : q + 1;
    const int32_t* fd[3] = {flt_dlm[up % 3], flt_dlm[q % 3], flt_dlm[dn % 3]};
    cm(AdmRow<const T>(r_ring[q & 1]), fd, centre_dlm[q & 1], sc, false);
    if (!skip_aim) {
      const int32_t* fa[3] = {flt_aim[up % 3], flt_aim[q % 3], flt_aim[dn % 3]};
      cm(AdmRow<const T>(a_ring[q & 1]), fa, centre_aim[q & 1], sc, true);
    }
  };
  for (int i = first; i < last; ++i) {
    const bool own = i >= r0 && i < r1;
    const bool tap = bands && i >= tp.top && i < tp.bottom;
    if (own || tap) {
      AdmRow<T> ro = ref_row, dr = dis_row;
      if (own && a_ref) {
        ro.a = a_ref + ptrdiff_t(i) * w;
        dr.a = a_dis + ptrdiff_t(i) * w;
      }
      dwt(i, ro, dr);
      if (bands && own && i >= sc.top && i < sc.bottom) den(AdmRow<const T>(ro), sc);
      if (tap) {
        decouple(AdmRow<const T>(ro), AdmRow<const T>(dr), tp, r_ring[i & 1], a_ring[i & 1]);
        csf(AdmRow<const T>(a_ring[i & 1]), tp, flt_dlm[i % 3], centre_dlm[i & 1]);
        if (!skip_aim) csf(AdmRow<const T>(r_ring[i & 1]), tp, flt_aim[i % 3], centre_aim[i & 1]);
      }
    }
    if (i > first) mask_row(i - 1);
  }
  if (last == h) mask_row(h - 1);
}

void add_cm0_row(const int64_t row[3], const Cm0Shifts& sh, AdmCmSums* s) {
  s->h += (row[0] + sh.inner_round) >> sh.inner;
  s->v += (row[1] + sh.inner_round) >> sh.inner;
  s->d += (row[2] + sh.inner_round) >> sh.inner;
}
void add_cm123_row(const int64_t row[3], const Cm123Shifts& sh, AdmCmSums* s) {
  s->h += (row[0] + sh.inner_round) >> sh.inner;
  s->v += (row[1] + sh.inner_round) >> sh.inner;
  s->d += (row[2] + sh.inner_round) >> sh.inner;
}

}  // namespace

void Adm::run_part(int s, int r0, int r1, const Plane& ref, const Plane& dist, RowBuffers& b, PartSums* out) {
  const AdmKernels& k = adm_kernels();
  const int w = sw_[s], h = sh_[s];
  const double gain = opt_.enhn_gain_limit;
  if (s == 0) {
    const Cm0Shifts cs = cm0_shifts(w, h);
    const int den_shift = den0_row_shift(adm_score_rect(w, h));
    auto dwt = [&](int i, AdmRow<int16_t> ro, AdmRow<int16_t> dr) {
      k.dwt_row_scale0(ref, i, b.tmp16, ro);
      k.dwt_row_scale0(dist, i, b.tmp16, dr);
    };
    auto den = [&](AdmRow<const int16_t> ro, const AdmRect& sc) {
      uint64_t row[3];
      k.den_row_scale0(ro, sc.left, sc.right, row);
      add_den0_row(row, den_shift, &out->den);
    };
    auto decouple = [&](AdmRow<const int16_t> ro, AdmRow<const int16_t> dr, const AdmRect& tp, AdmRow<int16_t> r,
                        AdmRow<int16_t> a) { k.decouple_row_scale0(ro, dr, tp.left, tp.right, gain, r, a); };
    auto csf = [&](AdmRow<const int16_t> x, const AdmRect& tp, int32_t* f, int32_t* c) {
      k.csf_row_scale0(x, tp.left, tp.right, fixed0_, f, c);
    };
    auto cm = [&](AdmRow<const int16_t> x, const int32_t* const f[3], const int32_t* c, const AdmRect& sc, bool aim) {
      int64_t row[3];
      k.cm_row_scale0(x, f, c, w, sc.left, sc.right, fixed0_, int(cs.hcub), int(cs.dcub), row);
      add_cm0_row(row, cs, aim ? &out->aim : &out->dlm);
    };
    run_rows<int16_t>(w, h, r0, r1, !opt_.skip_scale0, opt_.skip_aim, band_a0_[0].data(), band_a0_[1].data(),
                      b.ref16, b.dis16, b.r16, b.a16, b.flt_dlm,
                                b.flt_aim, b.centre_dlm, b.centre_aim, dwt, den, decouple, csf, cm);
    return;
  }
  const uint32_t* fixed = fixed_[s];
  const Cm123Shifts cs = cm123_shifts(w, h);
  const Den123Shifts ds = den123_shifts(adm_score_rect(w, h));
  const int in_w = sw_[s - 1], in_h = sh_[s - 1];
  auto dwt = [&](int i, AdmRow<int32_t> ro, AdmRow<int32_t> dr) {
    if (s == 1) {
      k.dwt_row_scale1(band_a0_[0].data(), in_w, in_w, in_h, i, b.tmp32, ro);
      k.dwt_row_scale1(band_a0_[1].data(), in_w, in_w, in_h, i, b.tmp32, dr);
    } else {
      const std::vector<int32_t>* in = s == 2 ? band_a1_ : band_a2_;
      k.dwt_row_scale23(in[0].data(), in_w, in_w, in_h, s, i, b.tmp32, ro);
      k.dwt_row_scale23(in[1].data(), in_w, in_w, in_h, s, i, b.tmp32, dr);
    }
  };
  auto den = [&](AdmRow<const int32_t> ro, const AdmRect& sc) {
    uint64_t row[3];
    k.den_row_scale123(ro, sc.left, sc.right, s, int(ds.cub), row);
    add_den123_row(row, ds, &out->den);
  };
  auto decouple = [&](AdmRow<const int32_t> ro, AdmRow<const int32_t> dr, const AdmRect& tp, AdmRow<int32_t> r,
                      AdmRow<int32_t> a) { k.decouple_row_scale123(ro, dr, tp.left, tp.right, gain, r, a); };
  auto csf = [&](AdmRow<const int32_t> x, const AdmRect& tp, int32_t* f, int32_t* c) {
    k.csf_row_scale123(x, tp.left, tp.right, fixed, f, c);
  };
  auto cm = [&](AdmRow<const int32_t> x, const int32_t* const f[3], const int32_t* c, const AdmRect& sc, bool aim) {
    int64_t row[3];
    k.cm_row_scale123(x, f, c, w, sc.left, sc.right, fixed, int(cs.cub), row);
    add_cm123_row(row, cs, aim ? &out->aim : &out->dlm);
  };
  int32_t* a_ref = nullptr;
  int32_t* a_dis = nullptr;
  if (s < 3) {
    std::vector<int32_t>* o = s == 1 ? band_a1_ : band_a2_;
    a_ref = o[0].data();
    a_dis = o[1].data();
  }
  run_rows<int32_t>(w, h, r0, r1, true, opt_.skip_aim, a_ref, a_dis, b.ref32, b.dis32, b.r32, b.a32,
                              b.flt_dlm, b.flt_aim, b.centre_dlm, b.centre_aim, dwt, den, decouple, csf, cm);
}

Status Adm::compute(const Plane& ref, const Plane& dist, AdmScores* out) {
  if (!ready_) return {Errc::invalid_argument, "adm: compute before a successful init"};
  if (!out) return {Errc::invalid_argument, "adm: no output"};
  VMAFX_TRY(check_plane(ref, w_, h_, bpc_, "reference"));
  VMAFX_TRY(check_plane(dist, w_, h_, bpc_, "distorted"));
  if (small_) return compute_planes(ref, dist, out);

  float num[4] = {0, 0, 0, 0}, den[4] = {0, 0, 0, 0}, aim[4] = {0, 0, 0, 0};
  for (int s = 0; s < 4; ++s) {
    const int w = sw_[s], h = sh_[s];
    PartSums p;
    run_part(s, 0, h, ref, dist, rows_, &p);
    if (s == 0 && opt_.skip_scale0) {
      den[0] = 1e-10f;
      continue;
    }
    den[s] = adm_den_finish(p.den, w, h, s, rfactor_[s], opt_.noise_weight);
    num[s] = adm_cm_finish(p.dlm, w, h, s, opt_.noise_weight);
    if (!opt_.skip_aim) aim[s] = adm_cm_finish(p.aim, w, h, s, 0.0);
  }
  *out = adm_combine(num, den, aim, w_, h_, opt_);
  return Status::ok();
}

Status Adm::compute_planes(const Plane& ref, const Plane& dist, AdmScores* out) {
  float num[4] = {0, 0, 0, 0}, den[4] = {0, 0, 0, 0}, aim[4] = {0, 0, 0, 0};

  // Scale 0: int16 bands.
  adm_dwt_scale0(ref, ref16_.bands, tmp16_.data());
  adm_dwt_scale0(dist, dis16_.bands, tmp16_.data());
  {
    const int w = sw_[0], h = sh_[0];
    if (opt_.skip_scale0) {
      den[0] = 1e-10f;
    } else {
      adm_decouple_scale0(ref16_.bands, dis16_.bands, w, h, opt_.enhn_gain_limit, r16_.bands, a16_.bands);
      den[0] = adm_den_finish(adm_den_sums_scale0(ref16_.bands, w, h), w, h, 0, rfactor_[0], opt_.noise_weight);
      adm_csf_scale0(a16_.bands, w, h, fixed0_, csf16_.bands, flt16_.bands);
      num[0] = adm_cm_finish(adm_cm_sums_scale0(r16_.bands, csf16_.bands, flt16_.bands, w, h, fixed0_), w, h, 0,
                             opt_.noise_weight);
      if (!opt_.skip_aim) {
        adm_csf_scale0(r16_.bands, w, h, fixed0_, csf16_.bands, flt16_.bands);
        aim[0] = adm_cm_finish(adm_cm_sums_scale0(a16_.bands, csf16_.bands, flt16_.bands, w, h, fixed0_), w, h, 0,
                               0.0);
      }
    }
  }

  // Scales 1..3: int32 bands; band a alternates between two buffers.
  for (int s = 1; s < 4; ++s) {
    const int in_w = sw_[s - 1], in_h = sh_[s - 1];
    const int w = sw_[s], h = sh_[s];
    AdmBands<int32_t> rb = ref32_.bands, db = dis32_.bands;
    rb.a = ref_a32_[(s - 1) % 2].data();
    db.a = dis_a32_[(s - 1) % 2].data();
    rb.stride = db.stride = w;
    if (s == 1) {
      adm_dwt_scale123(ref16_.bands.a, ref16_.bands.stride, in_w, in_h, s, rb, tmp32_.data());
      adm_dwt_scale123(dis16_.bands.a, dis16_.bands.stride, in_w, in_h, s, db, tmp32_.data());
    } else if (s == 3 && (adm_small_axis(in_w) || adm_small_axis(in_h))) {
      // libvmaf's reads before its buffers (see adm_small_axis): libvmaf's csf_f band d is our last scale-0 CSF.
      const AdmBands<int16_t>& csf_f = opt_.skip_aim ? flt16_.bands : csf16_.bands;
      if (opt_.skip_scale0)
        std::fill(small_row_.begin(), small_row_.end(), 0);
      else
        adm_small_ref_row_above(csf_f.d, csf_f.stride, sw_[0], sh_[0], in_w, small_row_.data());
      adm_dwt_scale3_small(ref_a32_[s % 2].data(), dis_a32_[s % 2].data(), in_w, in_w, in_h, small_row_.data(), rb,
                           db, tmp32_.data());
    } else {
      adm_dwt_scale123(ref_a32_[s % 2].data(), in_w, in_w, in_h, s, rb, tmp32_.data());
      adm_dwt_scale123(dis_a32_[s % 2].data(), in_w, in_w, in_h, s, db, tmp32_.data());
    }
    AdmBands<int32_t> r = r32_.bands, a = a32_.bands, csf = csf32_.bands, flt = flt32_.bands;
    r.stride = a.stride = csf.stride = flt.stride = w;
    adm_decouple_scale123(rb, db, w, h, opt_.enhn_gain_limit, r, a);
    den[s] = adm_den_finish(adm_den_sums_scale123(rb, w, h, s), w, h, s, rfactor_[s], opt_.noise_weight);
    adm_csf_scale123(a, w, h, fixed_[s], csf, flt);
    num[s] = adm_cm_finish(adm_cm_sums_scale123(r, csf, flt, w, h, fixed_[s]), w, h, s, opt_.noise_weight);
    if (!opt_.skip_aim) {
      adm_csf_scale123(r, w, h, fixed_[s], csf, flt);
      aim[s] = adm_cm_finish(adm_cm_sums_scale123(a, csf, flt, w, h, fixed_[s]), w, h, s, 0.0);
    }
  }

  *out = adm_combine(num, den, aim, w_, h_, opt_);
  return Status::ok();
}

}  // namespace vmafx::cpu
