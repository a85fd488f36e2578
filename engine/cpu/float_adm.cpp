// SPDX-License-Identifier: LGPL-2.1-or-later
// Float ADM: see float_adm.h. Each expression keeps the operand types of libvmaf's C code (float_adm.c, adm.c,
// adm_tools.c, adm_tools.h, barten_csf_tools.h, adm_csf_tools.h): float bands and sums, double where libvmaf mixes
// in a double literal or option, libm's double functions where libvmaf calls them (C's pow, exp and log10 take
// doubles: float arguments are widened explicitly, since C++'s float overloads would call powf, expf, log10f).
#include "cpu/float_adm.h"

#include <cmath>
#include <new>
#include <string>

#include "cpu/float_picture.h"

namespace vmafx::cpu {

const float kFloatAdmDwtLo[4] = {static_cast<float>(0.482962913144690), static_cast<float>(0.836516303737469),
                                 static_cast<float>(0.224143868041857), static_cast<float>(-0.129409522550921)};
const float kFloatAdmDwtHi[4] = {static_cast<float>(-0.129409522550921), static_cast<float>(-0.224143868041857),
                                 static_cast<float>(0.836516303737469), static_cast<float>(-0.482962913144690)};

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kBorderFactor = 0.1;
constexpr double kOneBy30 = 0.0333333351;  // libvmaf's FLOAT_ONE_BY_30 (a double literal)
constexpr double kOneBy15 = 0.0666666701;  // FLOAT_ONE_BY_15
constexpr double kLuminanceLevel = 100.0;  // libvmaf's DEFAULT_ADM_CSF_LUMINANCE_LEVEL

// ---- Watson's DWT quantisation steps (adm_tools.h) ----
struct DwtModel {
  float a, k, f0, g[4];
};
const DwtModel kDwtY = {static_cast<float>(0.495), static_cast<float>(0.466), static_cast<float>(0.401),
                        {static_cast<float>(1.501), static_cast<float>(1.0), static_cast<float>(0.534),
                         static_cast<float>(1.0)}};
const float kBasisAmplitudes[6][4] = {
    {static_cast<float>(0.62171), static_cast<float>(0.67234), static_cast<float>(0.72709), static_cast<float>(0.67234)},
    {static_cast<float>(0.34537), static_cast<float>(0.41317), static_cast<float>(0.49428), static_cast<float>(0.41317)},
    {static_cast<float>(0.18004), static_cast<float>(0.22727), static_cast<float>(0.28688), static_cast<float>(0.22727)},
    {static_cast<float>(0.091401), static_cast<float>(0.11792), static_cast<float>(0.15214),
     static_cast<float>(0.11792)},
    {static_cast<float>(0.045943), static_cast<float>(0.059758), static_cast<float>(0.077727),
     static_cast<float>(0.059758)},
    {static_cast<float>(0.023013), static_cast<float>(0.030018), static_cast<float>(0.039156),
     static_cast<float>(0.030018)},
};

float dwt_quant_step(int lambda, int theta, double nvd, int rdh) {
  const float r = static_cast<float>(nvd * rdh * kPi / 180.0);
  const float temp = static_cast<float>(
      std::log10(std::pow(2.0, lambda + 1) * kDwtY.f0 * kDwtY.g[theta] / r));
  const float q = static_cast<float>(2.0 * kDwtY.a * std::pow(10.0, kDwtY.k * temp * temp) /
                                     kBasisAmplitudes[lambda][theta]);
  return q;
}

// ---- the CSF of the DLM paper (adm_csf_tools.h) ----
float adm_native_csf(int lambda, double nvd, int rdh, int theta) {
  const float r = static_cast<float>(nvd * rdh * kPi / 180.0);
  float sf = static_cast<float>(r / std::pow(2, lambda + 1));
  if (theta == 45) sf = static_cast<float>(sf / 0.7);
  return static_cast<float>((0.31 + 0.69 * sf) * std::exp(-0.29 * sf));
}

// ---- Barten's CSF as HDR-VDP2 simplifies it (barten_csf_tools.h) ----
const float kBartenAnchors[6] = {static_cast<float>(0.002), static_cast<float>(0.02), static_cast<float>(0.2),
                                 static_cast<float>(2), static_cast<float>(20), static_cast<float>(150)};
const float kBartenParams[6][5] = {
    {static_cast<float>(0.0160737), static_cast<float>(0.991265), static_cast<float>(3.74038),
     static_cast<float>(0.50722), static_cast<float>(4.46044)},
    {static_cast<float>(0.383873), static_cast<float>(0.800889), static_cast<float>(3.54104),
     static_cast<float>(0.682505), static_cast<float>(4.94958)},
    {static_cast<float>(0.929301), static_cast<float>(0.476505), static_cast<float>(4.37453),
     static_cast<float>(0.750315), static_cast<float>(5.28678)},
    {static_cast<float>(1.29776), static_cast<float>(0.405782), static_cast<float>(4.40602),
     static_cast<float>(0.935314), static_cast<float>(5.61425)},
    {static_cast<float>(1.49222), static_cast<float>(0.334278), static_cast<float>(3.79542),
     static_cast<float>(1.07327), static_cast<float>(6.4635)},
    {static_cast<float>(1.46213), static_cast<float>(0.394533), static_cast<float>(2.7755),
     static_cast<float>(1.16577), static_cast<float>(7.45665)},
};
const float kBartenSa[4] = {static_cast<float>(30.162), static_cast<float>(4.0627), static_cast<float>(1.6596),
                            static_cast<float>(0.2712)};
const float kBartenMtfA[4] = {static_cast<float>(0.424838596301290), static_cast<float>(0.572435103936480),
                              static_cast<float>(0.000167576239164937), static_cast<float>(0.00255872352306433)};
const float kBartenMtfB[4] = {static_cast<float>(0.028), static_cast<float>(0.37), static_cast<float>(37),
                              static_cast<float>(360)};

float linear_interpolate(float lp, float lv, float rp, float rv, float sp) {
  return lv + ((rv - lv) / (rp - lp)) * (sp - lp);
}

float barten_rod_cone_sens(float lum) {
  const float drop = kBartenSa[1], slope = kBartenSa[2], low = kBartenSa[3];
  return static_cast<float>(kBartenSa[0] * std::pow(std::pow(double(drop / lum), double(slope)) + 1, double(-low)));
}

float barten_mtf(float sf) {
  float mtf = 0.0;
  for (int i = 0; i <= 3; i++) mtf = static_cast<float>(mtf + kBartenMtfA[i] * std::exp(double(-kBartenMtfB[i] * sf)));
  return mtf;
}

float barten_csf(int lambda, double nvd, int rdh, double lum_level, double csf_scale) {
  const float r = static_cast<float>(nvd * rdh * kPi / 180.0);
  const float sf = static_cast<float>(r / std::pow(2, lambda + 1));
  const double clamped = lum_level > kBartenAnchors[5]   ? kBartenAnchors[5]
                         : lum_level < kBartenAnchors[0] ? kBartenAnchors[0]
                                                         : lum_level;
  int li = 0, ri = 0;
  for (int i = 0; i < 5; i++)
    if (clamped >= kBartenAnchors[i] && clamped <= kBartenAnchors[i + 1]) {
      li = i;
      ri = i + 1;
      break;
    }
  const float left_lum = kBartenAnchors[li], right_lum = kBartenAnchors[ri];
  const float lp = static_cast<float>(std::log10(double(left_lum)));
  const float rp = static_cast<float>(std::log10(double(right_lum)));
  const float sp = static_cast<float>(std::log10(clamped));
  const float p0 = linear_interpolate(lp, kBartenParams[li][1], rp, kBartenParams[ri][1], sp);
  const float p1 = linear_interpolate(lp, kBartenParams[li][2], rp, kBartenParams[ri][2], sp);
  const float p2 = linear_interpolate(lp, kBartenParams[li][3], rp, kBartenParams[ri][3], sp);
  const float p3 = linear_interpolate(lp, kBartenParams[li][4], rp, kBartenParams[ri][4], sp);
  const float a = static_cast<float>(1.0f + std::pow(double(p0 * sf), double(p1)));
  const float b = static_cast<float>(1.0f / std::pow(1 - std::exp(-std::pow(sf / 7, 2)), p2));
  const float csf = static_cast<float>(p3 / std::pow(a * b, 0.5));
  return static_cast<float>(csf * barten_mtf(sf) * barten_rod_cone_sens(static_cast<float>(lum_level)) *
                            csf_scale);
}

float noise_constant(int w, int h, double weight, double p_norm) {
  return std::pow(static_cast<float>(w * h * weight), static_cast<float>(1.0f / p_norm));
}

}  // namespace

// ---- rectangles --------------------------------------------------------------------------------------------

FloatAdmRect float_adm_score_rect(int w, int h) {
  FloatAdmRect r;
  r.left = static_cast<int>(w * kBorderFactor - 0.5);
  r.top = static_cast<int>(h * kBorderFactor - 0.5);
  r.right = w - r.left;
  r.bottom = h - r.top;
  return r;
}

FloatAdmRect float_adm_tap_rect(int w, int h) {
  FloatAdmRect r;
  r.left = static_cast<int>(w * kBorderFactor - 0.5 - 1);
  r.top = static_cast<int>(h * kBorderFactor - 0.5 - 1);
  r.right = w - r.left + 2;  // from the unclamped left, as libvmaf
  r.bottom = h - r.top + 2;
  if (r.left < 0) r.left = 0;
  if (r.right > w) r.right = w;
  if (r.top < 0) r.top = 0;
  if (r.bottom > h) r.bottom = h;
  return r;
}

// ---- DWT ---------------------------------------------------------------------------------------------------

void float_adm_dwt(const float* src, ptrdiff_t src_stride, int w, int h, const FloatAdmBands& out, bool lo_only,
                   float* tmp) {
  const float* lo = kFloatAdmDwtLo;
  const float* hi = kFloatAdmDwtHi;
  float* tmplo = tmp;
  float* tmphi = tmp + w;
  const int ow = (w + 1) / 2, oh = (h + 1) / 2;
  int jx[4];
  for (int i = 0; i < oh; ++i) {
    const float* r[4];
    for (int k = 0; k < 4; ++k) r[k] = src + ptrdiff_t(float_adm_dwt_tap(i, k, h)) * src_stride;
    for (int j = 0; j < w; ++j) {
      const float s0 = r[0][j], s1 = r[1][j], s2 = r[2][j], s3 = r[3][j];
      float accum = 0;
      accum += lo[0] * s0;
      accum += lo[1] * s1;
      accum += lo[2] * s2;
      accum += lo[3] * s3;
      tmplo[j] = accum;
      if (!lo_only) {
        accum = 0;
        accum += hi[0] * s0;
        accum += hi[1] * s1;
        accum += hi[2] * s2;
        accum += hi[3] * s3;
        tmphi[j] = accum;
      }
    }
    const ptrdiff_t o = ptrdiff_t(i) * out.stride;
    for (int j = 0; j < ow; ++j) {
      for (int k = 0; k < 4; ++k) jx[k] = float_adm_dwt_tap(j, k, w);
      float s0 = tmplo[jx[0]], s1 = tmplo[jx[1]], s2 = tmplo[jx[2]], s3 = tmplo[jx[3]];
      float accum = 0;
      accum += lo[0] * s0;
      accum += lo[1] * s1;
      accum += lo[2] * s2;
      accum += lo[3] * s3;
      out.a[o + j] = accum;
      if (lo_only) continue;
      accum = 0;
      accum += hi[0] * s0;
      accum += hi[1] * s1;
      accum += hi[2] * s2;
      accum += hi[3] * s3;
      out.v[o + j] = accum;
      s0 = tmphi[jx[0]];
      s1 = tmphi[jx[1]];
      s2 = tmphi[jx[2]];
      s3 = tmphi[jx[3]];
      accum = 0;
      accum += lo[0] * s0;
      accum += lo[1] * s1;
      accum += lo[2] * s2;
      accum += lo[3] * s3;
      out.h[o + j] = accum;
      accum = 0;
      accum += hi[0] * s0;
      accum += hi[1] * s1;
      accum += hi[2] * s2;
      accum += hi[3] * s3;
      out.d[o + j] = accum;
    }
  }
}

// ---- decouple ----------------------------------------------------------------------------------------------

float float_adm_cos_1deg_sq() {
  return static_cast<float>(std::cos(1.0 * kPi / 180.0) * std::cos(1.0 * kPi / 180.0));
}

namespace {

// One band's restored value, with the gain limit where the angles agree (the comparisons and the product in double,
// as libvmaf's MIN/MAX of a double and a float).
inline float restore(float rst, float t, bool angle_flag, double egl) {
  if (angle_flag && (rst > 0.0)) {
    const double p = rst * egl;
    rst = static_cast<float>(p < t ? p : static_cast<double>(t));
  }
  if (angle_flag && (rst < 0.0)) {
    const double p = rst * egl;
    rst = static_cast<float>(p > t ? p : static_cast<double>(t));
  }
  return rst;
}

inline float clamp01(float k) { return k < 0.0f ? 0.0f : (k > 1.0f ? 1.0f : k); }

}  // namespace

void float_adm_decouple_px(float oh, float ov, float od, float th, float tv, float td, double egl, float cos_1deg_sq,
                           float r[3], float a[3]) {
  const float eps = static_cast<float>(1e-30);
  const float kh = clamp01(th / (oh + eps));
  const float kv = clamp01(tv / (ov + eps));
  const float kd = clamp01(td / (od + eps));
  float rst_h = kh * oh;
  float rst_v = kv * ov;
  float rst_d = kd * od;
  const float ot_dp = oh * th + ov * tv;
  const float o_mag_sq = oh * oh + ov * ov;
  const float t_mag_sq = th * th + tv * tv;
  const bool angle_flag = (ot_dp >= 0.0f) && (ot_dp * ot_dp >= cos_1deg_sq * o_mag_sq * t_mag_sq);
  rst_h = restore(rst_h, th, angle_flag, egl);
  rst_v = restore(rst_v, tv, angle_flag, egl);
  rst_d = restore(rst_d, td, angle_flag, egl);
  r[0] = rst_h;
  r[1] = rst_v;
  r[2] = rst_d;
  a[0] = th - rst_h;
  a[1] = tv - rst_v;
  a[2] = td - rst_d;
}

void float_adm_decouple(const FloatAdmBands& ref, const FloatAdmBands& dist, int w, int h, double egl,
                        const FloatAdmBands& r, const FloatAdmBands& a) {
  const float c1 = float_adm_cos_1deg_sq();
  const FloatAdmRect rc = float_adm_tap_rect(w, h);
  for (int i = rc.top; i < rc.bottom; ++i)
    for (int j = rc.left; j < rc.right; ++j) {
      const ptrdiff_t o = ptrdiff_t(i) * ref.stride + j;
      const ptrdiff_t od = ptrdiff_t(i) * dist.stride + j;
      float rv[3], av[3];
      float_adm_decouple_px(ref.h[o], ref.v[o], ref.d[o], dist.h[od], dist.v[od], dist.d[od], egl, c1, rv, av);
      const ptrdiff_t orr = ptrdiff_t(i) * r.stride + j;
      const ptrdiff_t oa = ptrdiff_t(i) * a.stride + j;
      r.h[orr] = rv[0];
      r.v[orr] = rv[1];
      r.d[orr] = rv[2];
      a.h[oa] = av[0];
      a.v[oa] = av[1];
      a.d[oa] = av[2];
    }
}

// ---- CSF ---------------------------------------------------------------------------------------------------

void float_adm_csf_factors(int scale, const FloatAdmOptions& o, float rfactor[3]) {
  float f1, f2;
  if (o.csf_mode == 1) {
    f1 = barten_csf(scale, o.norm_view_dist, o.ref_display_height, kLuminanceLevel, o.csf_scale);
    f2 = barten_csf(scale, o.norm_view_dist, o.ref_display_height, kLuminanceLevel, o.csf_diag_scale);
  } else if (o.csf_mode == 2) {
    f1 = adm_native_csf(scale, o.norm_view_dist, o.ref_display_height, 0);
    f2 = adm_native_csf(scale, o.norm_view_dist, o.ref_display_height, 45);
  } else {
    f1 = 1.0f / dwt_quant_step(scale, 1, o.norm_view_dist, o.ref_display_height);
    f2 = 1.0f / dwt_quant_step(scale, 2, o.norm_view_dist, o.ref_display_height);
  }
  if (o.f1[scale] >= 0) f1 = static_cast<float>(o.f1[scale]);
  if (o.f2[scale] >= 0) f2 = static_cast<float>(o.f2[scale]);
  rfactor[0] = f1;
  rfactor[1] = f1;
  rfactor[2] = f2;
}

float float_adm_flt(float c) { return static_cast<float>(kOneBy30 * std::fabs(c)); }

void float_adm_csf(const FloatAdmBands& src, int w, int h, const float rfactor[3], const FloatAdmBands& csf,
                   const FloatAdmBands& flt) {
  const FloatAdmRect rc = float_adm_tap_rect(w, h);
  const float* s[3] = {src.h, src.v, src.d};
  float* c[3] = {csf.h, csf.v, csf.d};
  float* f[3] = {flt.h, flt.v, flt.d};
  for (int t = 0; t < 3; ++t)
    for (int i = rc.top; i < rc.bottom; ++i)
      for (int j = rc.left; j < rc.right; ++j) {
        const float v = rfactor[t] * s[t][ptrdiff_t(i) * src.stride + j];
        c[t][ptrdiff_t(i) * csf.stride + j] = v;
        f[t][ptrdiff_t(i) * flt.stride + j] = float_adm_flt(v);
      }
}

// ---- masking and sums --------------------------------------------------------------------------------------

float float_adm_cm_thresh(const FloatAdmBands& csf, const FloatAdmBands& flt, int w, int h, int i, int j) {
  const int rows[3] = {i == 0 ? 1 : i - 1, i, i == h - 1 ? h - 1 : i + 1};
  const int cols[3] = {j == 0 ? 1 : j - 1, j, j == w - 1 ? w - 1 : j + 1};
  const float* cb[3] = {csf.h, csf.v, csf.d};
  const float* fb[3] = {flt.h, flt.v, flt.d};
  float thr = 0;
  for (int t = 0; t < 3; ++t) {
    float sum = 0;
    for (int y = 0; y < 3; ++y) {
      const float* fr = fb[t] + ptrdiff_t(rows[y]) * flt.stride;
      for (int x = 0; x < 3; ++x) {
        if (y == 1 && x == 1)
          sum = static_cast<float>(sum + kOneBy15 * std::fabs(cb[t][ptrdiff_t(i) * csf.stride + j]));
        else
          sum += fr[cols[x]];
      }
    }
    thr += sum;
  }
  return thr;
}

float float_adm_cm_value(float x, float rfactor, float thr, double p_norm) {
  float v = x * rfactor;
  v = std::fabs(v) - thr;
  v = v < 0.0f ? 0.0f : v;
  if (p_norm == 3.0) return v * v * v;
  return std::pow(v, static_cast<float>(p_norm));
}

float float_adm_den_value(float x, float rfactor, double p_norm) {
  const float v = std::fabs(rfactor * x);
  if (p_norm == 3.0) return v * v * v;
  return std::pow(v, static_cast<float>(p_norm));
}

void float_adm_cm_rows(const FloatAdmBands& x, const FloatAdmBands& csf, const FloatAdmBands& flt, int w, int h,
                       const float rfactor[3], bool bypass_cm, double p_norm, float* rows[3]) {
  const FloatAdmRect rc = float_adm_score_rect(w, h);
  const float* xb[3] = {x.h, x.v, x.d};
  for (int i = rc.top; i < rc.bottom; ++i) {
    float acc[3] = {0, 0, 0};
    for (int j = rc.left; j < rc.right; ++j) {
      const float thr = bypass_cm ? 0.0f : float_adm_cm_thresh(csf, flt, w, h, i, j);
      for (int t = 0; t < 3; ++t)
        acc[t] += float_adm_cm_value(xb[t][ptrdiff_t(i) * x.stride + j], rfactor[t], thr, p_norm);
    }
    for (int t = 0; t < 3; ++t) rows[t][i - rc.top] = acc[t];
  }
}

void float_adm_den_rows(const FloatAdmBands& ref, int w, int h, const float rfactor[3], double p_norm,
                        float* rows[3]) {
  const FloatAdmRect rc = float_adm_score_rect(w, h);
  const float* xb[3] = {ref.h, ref.v, ref.d};
  for (int i = rc.top; i < rc.bottom; ++i) {
    float acc[3] = {0, 0, 0};
    for (int j = rc.left; j < rc.right; ++j)
      for (int t = 0; t < 3; ++t) acc[t] += float_adm_den_value(xb[t][ptrdiff_t(i) * ref.stride + j], rfactor[t], p_norm);
    for (int t = 0; t < 3; ++t) rows[t][i - rc.top] = acc[t];
  }
}

float float_adm_scale_total(const float* const rows[3], int n, int rw, int rh, double noise_weight, double p_norm) {
  float v[3];
  for (int t = 0; t < 3; ++t) {
    float accum = 0;
    for (int i = 0; i < n; ++i) accum += rows[t][i];
    v[t] = std::pow(accum, static_cast<float>(1.0f / p_norm)) + noise_constant(rw, rh, noise_weight, p_norm);
  }
  return v[0] + v[1] + v[2];
}

// ---- scores ------------------------------------------------------------------------------------------------

void float_adm_combine(const float num_s[kFloatAdmScales], const float den_s[kFloatAdmScales],
                       const float aim_s[kFloatAdmScales], uint32_t w, uint32_t h, const FloatAdmOptions& o,
                       FloatAdmScores* out) {
  const double numden_limit = 1e-10 * (int(w) * int(h)) / (1920.0 * 1080.0);
  double num = 0, den = 0, aim_num = 0, aim_den = 0;
  for (unsigned s = 0; s < kFloatAdmScales; ++s) {
    num += num_s[s];
    den += den_s[s];
    if (o.skip_aim_scale != int(s)) {
      aim_den += den_s[s];
      aim_num += aim_s[s];
    }
  }
  num = num < numden_limit ? 0 : num;
  den = den < numden_limit ? 0 : den;
  double score, score_aim;
  if (den == 0.0) {
    score = 1.0f;
    // libvmaf leaves aim uninitialised here (a flat reference with adm_noise_weight 0); no additive impairment is
    // the value that goes with adm2 = 1.
    score_aim = 0.0;
  } else {
    const double q = aim_num / aim_den;
    score_aim = q < 1.0f ? q : 1.0f;
    score = num / den;
  }
  out->adm2 = score;
  out->aim = score_aim;
  const double adm3 = o.adm3_apply_hm ? 2 * score * score_aim / (score + score_aim)
                                      : score * o.dlm_weight + (1 - score_aim) * (1 - o.dlm_weight);
  out->adm3 = adm3 > o.min_val ? adm3 : o.min_val;
  out->adm = score;
  out->num = num;
  out->den = den;
  for (unsigned s = 0; s < kFloatAdmScales; ++s) {
    out->num_scale[s] = num_s[s];
    out->den_scale[s] = den_s[s];
    out->scale[s] = static_cast<double>(num_s[s]) / static_cast<double>(den_s[s]);
  }
}

const char* const kFloatAdmOutputNames[kFloatAdmOutputs] = {
    "VMAF_feature_adm2_score", "VMAF_feature_aim_score", "VMAF_feature_adm3_score",
    "VMAF_feature_adm_scale0_score", "VMAF_feature_adm_scale1_score", "VMAF_feature_adm_scale2_score",
    "VMAF_feature_adm_scale3_score", "adm", "adm_num", "adm_den", "adm_num_scale0", "adm_den_scale0",
    "adm_num_scale1", "adm_den_scale1", "adm_num_scale2", "adm_den_scale2", "adm_num_scale3", "adm_den_scale3"};

void float_adm_outputs(const FloatAdmScores& s, double out[kFloatAdmOutputs]) {
  out[0] = s.adm2;
  out[1] = s.aim;
  out[2] = s.adm3;
  for (unsigned k = 0; k < kFloatAdmScales; ++k) out[3 + k] = s.scale[k];
  out[7] = s.adm;
  out[8] = s.num;
  out[9] = s.den;
  for (unsigned k = 0; k < kFloatAdmScales; ++k) {
    out[10 + 2 * k] = s.num_scale[k];
    out[11 + 2 * k] = s.den_scale[k];
  }
}

// ---- FloatAdm ------------------------------------------------------------------------------------------------

Status FloatAdm::check(uint32_t w, uint32_t h, unsigned bpc, const FloatAdmOptions& o) {
  VMAFX_TRY(float_check_depth("float_adm", bpc));
  auto range = [](const char* name, double v, double lo, double hi) -> Status {
    if (!(v >= lo && v <= hi))
      return {Errc::invalid_argument, std::string("float_adm: ") + name + " " + std::to_string(v) +
                                          " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]"};
    return Status::ok();
  };
  VMAFX_TRY(range("adm_enhn_gain_limit", o.enhn_gain_limit, 1, 100));
  VMAFX_TRY(range("adm_norm_view_dist", o.norm_view_dist, 0.75, 24));
  VMAFX_TRY(range("adm_noise_weight", o.noise_weight, 0, 1500));
  VMAFX_TRY(range("adm_csf_scale", o.csf_scale, 0, 50));
  VMAFX_TRY(range("adm_csf_diag_scale", o.csf_diag_scale, 0, 50));
  VMAFX_TRY(range("adm_ref_display_height", o.ref_display_height, 1, 4320));
  VMAFX_TRY(range("adm_csf_mode", o.csf_mode, 0, 9));
  VMAFX_TRY(range("adm_bypass_cm", o.bypass_cm, 0, 1));
  VMAFX_TRY(range("adm_p_norm", o.p_norm, 1, 20));
  VMAFX_TRY(range("adm_dlm_weight", o.dlm_weight, 0, 1));
  VMAFX_TRY(range("adm_min_val", o.min_val, 0, 1));
  for (unsigned s = 0; s < kFloatAdmScales; ++s) {
    VMAFX_TRY(range(("adm_f1s" + std::to_string(s)).c_str(), o.f1[s], -1, 10));
    VMAFX_TRY(range(("adm_f2s" + std::to_string(s)).c_str(), o.f2[s], -1, 10));
  }
  if (o.skip_aim_scale != -1) VMAFX_TRY(range("adm_skip_aim_scale", o.skip_aim_scale, 0, 3));
  if (w < 17 || h < 17 || w > 32768 || h > 32768)
    return {Errc::unsupported, "float_adm needs 17x17 to 32768x32768 luma samples, got " + std::to_string(w) + "x" +
                                   std::to_string(h)};
  return Status::ok();
}

Status FloatAdm::init(uint32_t w, uint32_t h, unsigned bpc, const FloatAdmOptions& o) {
  w_ = h_ = 0;
  VMAFX_TRY(check(w, h, bpc, o));
  FloatAdmGeometry g{};
  int iw = int(w), ih = int(h);
  for (unsigned s = 0; s < kFloatAdmScales; ++s) {
    g.w[s] = (iw + 1) / 2;
    g.h[s] = (ih + 1) / 2;
    iw = g.w[s];
    ih = g.h[s];
  }
  const ptrdiff_t stride = g.w[0];
  const size_t n = size_t(stride) * size_t(g.h[0]);
  try {
    pic_.assign(2 * size_t(w) * h, 0.0f);
    bands_.assign(30 * n, 0.0f);
    tmp_.assign(2 * size_t(w), 0.0f);
    rows_.assign(9 * size_t(g.h[0]), 0.0f);
  } catch (const std::bad_alloc&) {
    pic_.clear();
    bands_.clear();
    return {Errc::out_of_memory,
            "float_adm: buffers for " + std::to_string(w) + "x" + std::to_string(h) + " do not fit in memory"};
  }
  for (unsigned s = 0; s < kFloatAdmScales; ++s) float_adm_csf_factors(int(s), o, rfactor_[s]);
  geo_ = g;
  opts_ = o;
  stride_ = stride;
  bpc_ = bpc;
  w_ = w;
  h_ = h;
  return Status::ok();
}

Status FloatAdm::compute(const Plane& ref, const Plane& dist, FloatAdmScores* out, FloatAdmRowSums* row_sums) {
  if (!w_) return {Errc::invalid_argument, "float_adm: compute called before a successful init"};
  if (!out) return {Errc::invalid_argument, "float_adm: no output"};
  VMAFX_TRY(float_check_plane("float_adm", "reference", ref, w_, h_, bpc_));
  VMAFX_TRY(float_check_plane("float_adm", "distorted", dist, w_, h_, bpc_));

  float* pic_ref = pic_.data();
  float* pic_dist = pic_.data() + size_t(w_) * h_;
  float_picture_copy(ref, pic_ref, ptrdiff_t(w_));
  float_picture_copy(dist, pic_dist, ptrdiff_t(w_));

  const size_t n = size_t(stride_) * size_t(geo_.h[0]);
  float* p = bands_.data();
  auto next = [&]() {
    float* q = p;
    p += n;
    return q;
  };
  // Band a alternates between two buffers per stream: scale s reads the a of s - 1 and writes its own.
  float* a_buf[2][2] = {{next(), next()}, {next(), next()}};  // [ref/dist][parity]
  FloatAdmBands rb, db, r, a, csf_a, flt_a, csf_r, flt_r;
  for (FloatAdmBands* b : {&rb, &db, &r, &a, &csf_a, &flt_a, &csf_r, &flt_r}) {
    b->h = next();
    b->v = next();
    b->d = next();
    b->stride = stride_;
  }

  float num[kFloatAdmScales] = {}, den[kFloatAdmScales] = {}, aim[kFloatAdmScales] = {};
  const float* src_ref = pic_ref;
  const float* src_dist = pic_dist;
  ptrdiff_t src_stride = ptrdiff_t(w_);
  int iw = int(w_), ih = int(h_);
  float* rows[9];
  for (int k = 0; k < 9; ++k) rows[k] = rows_.data() + size_t(k) * size_t(geo_.h[0]);
  for (unsigned s = 0; s < kFloatAdmScales; ++s) {
    rb.a = a_buf[0][s & 1];
    db.a = a_buf[1][s & 1];
    const bool skip = s == 0 && opts_.skip_scale0;
    float_adm_dwt(src_ref, src_stride, iw, ih, rb, skip, tmp_.data());
    float_adm_dwt(src_dist, src_stride, iw, ih, db, skip, tmp_.data());
    const int w = geo_.w[s], h = geo_.h[s];
    if (skip) {
      num[s] = 0.0f;
      den[s] = static_cast<float>(1e-10);
      aim[s] = 0.0f;
      if (row_sums)
        for (int t = 0; t < 3; ++t) {
          row_sums->num[s][t].clear();
          row_sums->aim[s][t].clear();
          row_sums->den[s][t].clear();
        }
    } else {
      const float* rf = rfactor_[s];
      const FloatAdmRect sr = float_adm_score_rect(w, h);
      const int nrows = sr.bottom - sr.top, rw = sr.right - sr.left;
      float_adm_decouple(rb, db, w, h, opts_.enhn_gain_limit, r, a);
      float_adm_den_rows(rb, w, h, rf, opts_.p_norm, rows + 6);
      den[s] = float_adm_scale_total(rows + 6, nrows, rw, nrows, opts_.noise_weight, opts_.p_norm);
      float_adm_csf(a, w, h, rf, csf_a, flt_a);
      float_adm_cm_rows(r, csf_a, flt_a, w, h, rf, opts_.bypass_cm != 0, opts_.p_norm, rows);
      num[s] = float_adm_scale_total(rows, nrows, rw, nrows, opts_.noise_weight, opts_.p_norm);
      float_adm_csf(r, w, h, rf, csf_r, flt_r);
      float_adm_cm_rows(a, csf_r, flt_r, w, h, rf, opts_.bypass_cm != 0, opts_.p_norm, rows + 3);
      aim[s] = float_adm_scale_total(rows + 3, nrows, rw, nrows, 0.0, opts_.p_norm);
      if (row_sums)
        for (int t = 0; t < 3; ++t) {
          row_sums->num[s][t].assign(rows[t], rows[t] + nrows);
          row_sums->aim[s][t].assign(rows[3 + t], rows[3 + t] + nrows);
          row_sums->den[s][t].assign(rows[6 + t], rows[6 + t] + nrows);
        }
    }
    src_ref = rb.a;
    src_dist = db.a;
    src_stride = stride_;
    iw = w;
    ih = h;
  }
  float_adm_combine(num, den, aim, w_, h_, opts_, out);
  return Status::ok();
}

}  // namespace vmafx::cpu
