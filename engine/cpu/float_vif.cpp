// SPDX-License-Identifier: LGPL-2.1-or-later
// Float VIF: see float_vif.h. Each expression keeps the operand types of libvmaf's C code (float_vif.c, vif.c,
// vif_tools.c): a float operand meeting a double literal or a double option is widened to double, the result
// narrowed where libvmaf stores it in a float. Constants that libvmaf writes as double literals in float arrays
// are converted the same way (double literal, then float), never written as float literals.
#include "cpu/float_vif.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <new>

#include "cpu/float_picture.h"

namespace vmafx::cpu {

namespace {

constexpr double kPi = 3.14159265358979323846;

// libvmaf's accepted kernel scales, as its float table holds them.
const float kValidKernelscales[21] = {
    static_cast<float>(1.0), 1.0f / 2.0f, 3.0f / 2.0f, 2.0f, 2.0f / 3.0f, 24.0f / 10.0f, 360.0f / 97.0f,
    4.0f / 3.0f, 3.5f / 3.0f, 3.75f / 3.0f, 4.25f / 3.0f, 5.0f / 3.0f, 3.0f, 1.0f / 2.25f, 1.4746f, 1.54f, 1.6f,
    1.06667f, 0.711111f, 0.740740f, 1.111111f,
};

// The log2 polynomial, double literals stored as float.
const float kLog2Poly[9] = {
    static_cast<float>(-0.012671635276421), static_cast<float>(0.064841182402670),
    static_cast<float>(-0.157048836463065), static_cast<float>(0.257167726303123),
    static_cast<float>(-0.353800560300520), static_cast<float>(0.480131410397451),
    static_cast<float>(-0.721314327952201), static_cast<float>(1.442694803896991), static_cast<float>(0),
};

int round_up_to_odd(float f) {
  const int ceiling = static_cast<int>(std::ceil(static_cast<double>(f)));
  return ceiling % 2 == 0 ? ceiling + 1 : ceiling;
}

float gaussian_pdf(float x, float mean, float stdev) {
  const float num = static_cast<float>(
      std::exp(-0.5 * static_cast<double>(x - mean) / stdev * static_cast<double>(x - mean) / stdev));
  const float den = static_cast<float>(1 / (static_cast<double>(stdev) * std::sqrt(2 * kPi)));
  return num / den;
}

// libvmaf's mirror of the interpolating scalers, in float.
float scaler_mirror_f(float i, float left, float right) { return i < left ? -i : i > right ? 2 * right - i : i; }

float bicubic_kernel(float t) {
  const float a = -0.75f;
  if (t < 0) t = -t;
  if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
  return 0;
}

float lanczos4_kernel(float x, float a) {
  if (x == 0.0) return 1.0;
  if (x > -a && x < a)
    return static_cast<float>(a * std::sin(kPi * x) * std::sin(kPi * x / a) / (kPi * kPi * x * x));
  return 0.0;
}

// (i + 0.5) * ratio - 0.5, computed in double and stored as float, as libvmaf's scalers do.
float scaler_position(int i, float ratio) { return static_cast<float>((i + 0.5) * ratio - 0.5); }

}  // namespace

// ---- options -----------------------------------------------------------------------------------------------

Status vif_scale_method_from_name(const std::string& name, VifScaleMethod* out) {
  if (name == "nearest") *out = VifScaleMethod::nearest;
  else if (name == "bilinear") *out = VifScaleMethod::bilinear;
  else if (name == "bicubic") *out = VifScaleMethod::bicubic;
  else if (name == "lanczos4") *out = VifScaleMethod::lanczos4;
  else
    return {Errc::invalid_argument,
            "vif_prescale_method '" + name + "' is not one of nearest, bilinear, bicubic, lanczos4"};
  return Status::ok();
}

const char* vif_scale_method_name(VifScaleMethod m) {
  switch (m) {
    case VifScaleMethod::nearest: return "nearest";
    case VifScaleMethod::bicubic: return "bicubic";
    case VifScaleMethod::lanczos4: return "lanczos4";
    case VifScaleMethod::bilinear: return "bilinear";
  }
  return "?";
}

bool float_vif_kernelscale_ok(double kernelscale) {
  const float ks = static_cast<float>(kernelscale);
  for (float v : kValidKernelscales)
    if (std::fabs(ks - v) < 1e-3) return true;
  return false;
}

int float_vif_filter_width(unsigned scale, double kernelscale) {
  const int n = (1 << (4 - scale)) + 1;
  const int w = round_up_to_odd(n * static_cast<float>(kernelscale));
  return w > 3 ? w : 3;
}

void float_vif_filter(unsigned scale, double kernelscale, float* taps) {
  const int size = float_vif_filter_width(scale, kernelscale);
  const float stdev = size / 5.0f;
  float sum = 0;
  const int k = (size - 1) / 2;
  for (int i = 0; i < size; i++) {
    taps[i] = gaussian_pdf(static_cast<float>(i - k), 0, stdev);
    sum += taps[i];
  }
  for (int i = 0; i < size; i++) taps[i] /= sum;
}

// ---- filters -----------------------------------------------------------------------------------------------

void float_vif_vertical_row(const float* taps, int fw, VifFilterKind kind, const float* src, const float* src2,
                            ptrdiff_t stride, int w, int h, int y, float* out) {
  const float* rows[kFloatVifMaxTaps];
  const float* rows2[kFloatVifMaxTaps];
  for (int k = 0; k < fw; ++k) {
    const ptrdiff_t r = ptrdiff_t(float_vif_mirror(y - fw / 2 + k, h)) * stride;
    rows[k] = src + r;
    rows2[k] = kind == VifFilterKind::product ? src2 + r : nullptr;
  }
  // Tap by tap over the whole row: each output still adds its taps in order, starting from 0.
  for (int x = 0; x < w; ++x) out[x] = 0.0f;
  for (int k = 0; k < fw; ++k) {
    const float t = taps[k];
    const float* r = rows[k];
    switch (kind) {
      case VifFilterKind::plain:
        for (int x = 0; x < w; ++x) out[x] += t * r[x];
        break;
      case VifFilterKind::square:
        for (int x = 0; x < w; ++x) out[x] += t * (r[x] * r[x]);
        break;
      case VifFilterKind::product: {
        const float* r2 = rows2[k];
        for (int x = 0; x < w; ++x) out[x] += t * (r[x] * r2[x]);
        break;
      }
    }
  }
}

float float_vif_horizontal_at(const float* taps, int fw, const float* row, int w, int x) {
  const int half = fw / 2;
  float accum = 0;
  for (int k = 0; k < fw; ++k) accum += taps[k] * row[float_vif_mirror(x - half + k, w)];
  return accum;
}

void float_vif_horizontal_row(const float* taps, int fw, const float* row, int w, float* out) {
  const int half = fw / 2;
  const int lo = half < w ? half : w;
  const int hi = w - half > lo ? w - half : lo;
  for (int x = 0; x < lo; ++x) out[x] = float_vif_horizontal_at(taps, fw, row, w, x);
  // The interior tap by tap (each output adds its taps in order, from 0).
  for (int x = lo; x < hi; ++x) out[x] = 0.0f;
  for (int k = 0; k < fw; ++k) {
    const float t = taps[k];
    const float* r = row - half + k;
    for (int x = lo; x < hi; ++x) out[x] += t * r[x];
  }
  for (int x = hi; x < w; ++x) out[x] = float_vif_horizontal_at(taps, fw, row, w, x);
}

void float_vif_filter_plane(const float* taps, int fw, VifFilterKind kind, const float* src, const float* src2,
                            ptrdiff_t src_stride, int w, int h, float* dst, ptrdiff_t dst_stride, float* tmp) {
  for (int y = 0; y < h; ++y) {
    float_vif_vertical_row(taps, fw, kind, src, src2, src_stride, w, h, y, tmp);
    float_vif_horizontal_row(taps, fw, tmp, w, dst + ptrdiff_t(y) * dst_stride);
  }
}

// ---- statistic ---------------------------------------------------------------------------------------------

FloatVifStatConsts float_vif_stat_consts(double enhn_gain_limit, double sigma_nsq) {
  FloatVifStatConsts c;
  c.enhn_gain_limit = static_cast<float>(enhn_gain_limit);
  c.sigma_nsq = sigma_nsq;
  c.sigma_max_inv = static_cast<float>(std::pow(static_cast<float>(sigma_nsq), 2.0f) / (255.0 * 255.0));
  return c;
}

float float_vif_log2(float x) {
  if (x == 0) return -std::numeric_limits<float>::infinity();
  if (x < 0) return std::numeric_limits<float>::quiet_NaN();
  uint32_t u32;
  std::memcpy(&u32, &x, sizeof u32);
  const uint32_t exponent = (u32 & 0x7F800000u) >> 23;
  const uint32_t u32remain = (u32 & 0x007FFFFFu) | 0x3F800000u;
  float remain;
  std::memcpy(&remain, &u32remain, sizeof remain);
  const float log_base = static_cast<float>(static_cast<int32_t>(exponent) - 127);
  const float r = remain - 1.0f;
  float var = 0;
  for (int i = 0; i < 9; ++i) var = var * r + kLog2Poly[i];
  return log_base + var;
}

void float_vif_stat(float mu1, float mu2, float xx, float yy, float xy, const FloatVifStatConsts& c, float* num,
                    float* den) {
  const float eps = 1.0e-10f;
  const float mu1_sq = mu1 * mu1;
  const float mu2_sq = mu2 * mu2;
  const float mu1_mu2 = mu1 * mu2;
  float sigma1_sq = xx - mu1_sq;
  float sigma2_sq = yy - mu2_sq;
  const float sigma12 = xy - mu1_mu2;
  sigma1_sq = sigma1_sq > 0.0f ? sigma1_sq : 0.0f;
  sigma2_sq = sigma2_sq > 0.0f ? sigma2_sq : 0.0f;

  float g = sigma12 / (sigma1_sq + eps);
  float sv_sq = sigma2_sq - g * sigma12;
  if (sigma1_sq < eps) {
    g = 0.0f;
    sv_sq = sigma2_sq;
    sigma1_sq = 0.0f;
  }
  if (sigma2_sq < eps) {
    g = 0.0f;
    sv_sq = 0.0f;
  }
  if (g < 0.0f) {
    sv_sq = sigma2_sq;
    g = 0.0f;
  }
  sv_sq = sv_sq > eps ? sv_sq : eps;
  g = g < c.enhn_gain_limit ? g : c.enhn_gain_limit;

  float num_val = float_vif_log2(
      static_cast<float>(1.0f + static_cast<double>(g * g * sigma1_sq) / (static_cast<double>(sv_sq) + c.sigma_nsq)));
  float den_val = float_vif_log2(static_cast<float>(1.0f + static_cast<double>(sigma1_sq) / c.sigma_nsq));
  if (sigma12 < 0.0f) num_val = 0.0f;
  if (static_cast<double>(sigma1_sq) < c.sigma_nsq) {
    num_val = 1.0f - sigma2_sq * c.sigma_max_inv;
    den_val = 1.0f;
  }
  *num = num_val;
  *den = den_val;
}

float float_vif_sum_rows(const float* rows, int n) {
  float accum = 0.0f;
  for (int i = 0; i < n; ++i) accum += rows[i];
  return accum;
}

// ---- prescaling ----------------------------------------------------------------------------------------------

int float_vif_scaler_mirror(int i, int n) {
  return static_cast<int>(scaler_mirror_f(static_cast<float>(i), 0, static_cast<float>(n - 1)));
}

int float_vif_scaled_size(uint32_t n, double prescale) { return static_cast<int>(n * prescale + 0.5); }

void float_vif_bilinear_taps(int src_n, int dst_n, int i, int* i1, int* i2, float* d) {
  const float ratio = static_cast<float>(src_n) / dst_n;
  const float p = scaler_position(i, ratio);
  const float hi = static_cast<float>(src_n - 1);
  *i1 = static_cast<int>(scaler_mirror_f(static_cast<float>(std::floor(p)), 0, hi));
  *i2 = static_cast<int>(scaler_mirror_f(static_cast<float>(std::ceil(p)), 0, hi));
  *d = p - *i1;
}

void float_vif_bicubic_taps(int src_n, int dst_n, int i, int* base, float w[4]) {
  const float ratio = static_cast<float>(src_n) / dst_n;
  const float p = scaler_position(i, ratio);
  const int x0 = static_cast<int>(std::floor(p));
  const float d = p - x0;
  for (int k = -1; k <= 2; k++) w[k + 1] = bicubic_kernel(k - d);
  *base = x0;
}

void float_vif_lanczos_taps(int src_n, int dst_n, int i, int* base, float w[9]) {
  const int a = 4;
  const float ratio = static_cast<float>(src_n) / dst_n;
  const float p = scaler_position(i, ratio);
  const int x0 = static_cast<int>(std::floor(p));
  const float d = p - x0;
  for (int k = -a; k <= a; k++) w[k + a] = lanczos4_kernel(k - d, static_cast<float>(a));
  *base = x0;
}

void float_vif_scale_tables(VifScaleMethod m, int src_n, int dst_n, std::vector<int32_t>* idx, std::vector<float>* w,
                            int* k) {
  idx->clear();
  w->clear();
  switch (m) {
    case VifScaleMethod::nearest: {
      *k = 1;
      const float ratio = static_cast<float>(src_n) / dst_n;
      for (int i = 0; i < dst_n; i++) idx->push_back(static_cast<int>(i * ratio));
      break;
    }
    case VifScaleMethod::bilinear:
      *k = 2;
      for (int i = 0; i < dst_n; i++) {
        int i1, i2;
        float d;
        float_vif_bilinear_taps(src_n, dst_n, i, &i1, &i2, &d);
        idx->push_back(i1);
        idx->push_back(i2);
        w->push_back(d);
      }
      break;
    case VifScaleMethod::bicubic:
    case VifScaleMethod::lanczos4: {
      const bool bicubic = m == VifScaleMethod::bicubic;
      *k = bicubic ? 4 : 9;
      const int first = bicubic ? -1 : -4;
      for (int i = 0; i < dst_n; i++) {
        int base;
        float wt[9];
        if (bicubic)
          float_vif_bicubic_taps(src_n, dst_n, i, &base, wt);
        else
          float_vif_lanczos_taps(src_n, dst_n, i, &base, wt);
        for (int j = 0; j < *k; j++) {
          idx->push_back(float_vif_scaler_mirror(base + first + j, src_n));
          w->push_back(wt[j]);
        }
      }
      break;
    }
  }
}

void float_vif_scale_frame(VifScaleMethod m, const float* src, int sw, int sh, ptrdiff_t src_stride, float* dst,
                           int dw, int dh, ptrdiff_t dst_stride) {
  if (sw == dw && sh == dh) {
    for (int y = 0; y < dh; ++y)
      std::memcpy(dst + ptrdiff_t(y) * dst_stride, src + ptrdiff_t(y) * src_stride, size_t(dw) * sizeof(float));
    return;
  }
  switch (m) {
    case VifScaleMethod::nearest: {
      const float ratio_x = static_cast<float>(sw) / dw;
      const float ratio_y = static_cast<float>(sh) / dh;
      for (int y = 0; y < dh; y++)
        for (int x = 0; x < dw; x++) {
          const int ry = static_cast<int>(y * ratio_y);
          const int rx = static_cast<int>(x * ratio_x);
          dst[ptrdiff_t(y) * dst_stride + x] = src[ptrdiff_t(ry) * src_stride + rx];
        }
      break;
    }
    case VifScaleMethod::bilinear: {
      std::vector<int> x1(dw), x2(dw);
      std::vector<float> dx(dw);
      for (int x = 0; x < dw; x++) float_vif_bilinear_taps(sw, dw, x, &x1[x], &x2[x], &dx[x]);
      for (int y = 0; y < dh; y++) {
        int y1, y2;
        float dy;
        float_vif_bilinear_taps(sh, dh, y, &y1, &y2, &dy);
        const float* r1 = src + ptrdiff_t(y1) * src_stride;
        const float* r2 = src + ptrdiff_t(y2) * src_stride;
        float* drow = dst + ptrdiff_t(y) * dst_stride;
        for (int x = 0; x < dw; x++) drow[x] = float_vif_bilinear_value(r1, r2, x1[x], x2[x], dx[x], dy);
      }
      break;
    }
    case VifScaleMethod::bicubic: {
      std::vector<int> bx(dw);
      std::vector<float> wx(size_t(dw) * 4);
      for (int x = 0; x < dw; x++) float_vif_bicubic_taps(sw, dw, x, &bx[x], &wx[size_t(x) * 4]);
      for (int y = 0; y < dh; y++) {
        int by;
        float wy[4];
        float_vif_bicubic_taps(sh, dh, y, &by, wy);
        for (int x = 0; x < dw; x++) {
          float v = 0.0;
          for (int j = -1; j <= 2; j++)
            for (int i = -1; i <= 2; i++) {
              const int xi = float_vif_scaler_mirror(bx[x] + i, sw);
              const int yi = float_vif_scaler_mirror(by + j, sh);
              const float weight = wx[size_t(x) * 4 + i + 1] * wy[j + 1];
              v += src[ptrdiff_t(yi) * src_stride + xi] * weight;
            }
          dst[ptrdiff_t(y) * dst_stride + x] = v;
        }
      }
      break;
    }
    case VifScaleMethod::lanczos4: {
      std::vector<int> bx(dw);
      std::vector<float> wx(size_t(dw) * 9);
      for (int x = 0; x < dw; x++) float_vif_lanczos_taps(sw, dw, x, &bx[x], &wx[size_t(x) * 9]);
      for (int y = 0; y < dh; y++) {
        int by;
        float wy[9];
        float_vif_lanczos_taps(sh, dh, y, &by, wy);
        for (int x = 0; x < dw; x++) {
          float value = 0.0, weight_sum = 0.0;
          for (int iy = -4; iy <= 4; iy++)
            for (int ix = -4; ix <= 4; ix++) {
              const float weight = wx[size_t(x) * 9 + ix + 4] * wy[iy + 4];
              weight_sum += weight;
              const int xi = float_vif_scaler_mirror(bx[x] + ix, sw);
              const int yi = float_vif_scaler_mirror(by + iy, sh);
              value += src[ptrdiff_t(yi) * src_stride + xi] * weight;
            }
          dst[ptrdiff_t(y) * dst_stride + x] = value / weight_sum;
        }
      }
      break;
    }
  }
}

// ---- scores --------------------------------------------------------------------------------------------------

void float_vif_scores(const float num[kFloatVifScales], const float den[kFloatVifScales], const FloatVifOptions& o,
                      FloatVifScores* out) {
  const unsigned start = o.skip_scale0 ? 1 : 0;
  double score_num = 0.0, score_den = 0.0;
  for (unsigned s = start; s < kFloatVifScales; ++s) {
    score_num += static_cast<double>(num[s]);
    score_den += static_cast<double>(den[s]);
  }
  out->num = score_num;
  out->den = score_den;
  out->vif = score_den == 0.0 ? 1.0 : score_num / score_den;
  for (unsigned s = 0; s < kFloatVifScales; ++s) {
    const double n = num[s], d = den[s];
    if (s == 0) {
      out->scale[0] = o.skip_scale0 ? 0.0 : n / d;
      out->num_scale[0] = o.skip_scale0 ? 0.0 : n;
      out->den_scale[0] = o.skip_scale0 ? -1.0 : d;
    } else {
      const double v = n / d;
      const double lo = o.scale_min_val[s - 1];
      out->scale[s] = v > lo ? v : lo;
      out->num_scale[s] = n;
      out->den_scale[s] = d;
    }
  }
}

const char* const kFloatVifOutputNames[kFloatVifOutputs] = {
    "VMAF_feature_vif_scale0_score", "VMAF_feature_vif_scale1_score", "VMAF_feature_vif_scale2_score",
    "VMAF_feature_vif_scale3_score", "vif", "vif_num", "vif_den", "vif_num_scale0", "vif_den_scale0",
    "vif_num_scale1", "vif_den_scale1", "vif_num_scale2", "vif_den_scale2", "vif_num_scale3", "vif_den_scale3"};

void float_vif_outputs(const FloatVifScores& s, double out[kFloatVifOutputs]) {
  for (unsigned k = 0; k < kFloatVifScales; ++k) out[k] = s.scale[k];
  out[4] = s.vif;
  out[5] = s.num;
  out[6] = s.den;
  for (unsigned k = 0; k < kFloatVifScales; ++k) {
    out[7 + 2 * k] = s.num_scale[k];
    out[8 + 2 * k] = s.den_scale[k];
  }
}

// ---- FloatVif ------------------------------------------------------------------------------------------------

Status FloatVif::check(uint32_t w, uint32_t h, unsigned bpc, const FloatVifOptions& o, FloatVifGeometry* geo) {
  VMAFX_TRY(float_check_depth("float_vif", bpc));
  if (!(o.enhn_gain_limit >= 1.0 && o.enhn_gain_limit <= 100.0))
    return {Errc::invalid_argument, "float_vif: vif_enhn_gain_limit " + std::to_string(o.enhn_gain_limit) +
                                        " is outside [1, 100]"};
  if (!(o.kernelscale >= 0.1 && o.kernelscale <= 4.0) || !float_vif_kernelscale_ok(o.kernelscale))
    return {Errc::invalid_argument, "float_vif: vif_kernelscale " + std::to_string(o.kernelscale) +
                                        " is not one of the kernel scales libvmaf accepts"};
  if (!(o.prescale >= 0.1 && o.prescale <= 4.0))
    return {Errc::invalid_argument, "float_vif: vif_prescale " + std::to_string(o.prescale) + " is outside [0.1, 4]"};
  for (int i = 0; i < 3; ++i)
    if (!(o.scale_min_val[i] >= 0.0 && o.scale_min_val[i] <= 1.0))
      return {Errc::invalid_argument, "float_vif: vif_scale" + std::to_string(i + 1) + "_min_val " +
                                          std::to_string(o.scale_min_val[i]) + " is outside [0, 1]"};
  if (!(o.sigma_nsq >= 0.0 && o.sigma_nsq <= 5.0))
    return {Errc::invalid_argument, "float_vif: vif_sigma_nsq " + std::to_string(o.sigma_nsq) + " is outside [0, 5]"};
  if (w > 32768 || h > 32768)
    return {Errc::unsupported, "float_vif: " + std::to_string(w) + "x" + std::to_string(h) +
                                   " is larger than 32768 on a side"};
  const int sw = float_vif_scaled_size(w, o.prescale), sh = float_vif_scaled_size(h, o.prescale);
  if (sw != int(w) || sh != int(h)) {
    // The interpolating scalers mirror each tap once: the picture must be wide enough for that.
    const uint32_t need = o.prescale_method == VifScaleMethod::lanczos4 ? 6
                          : o.prescale_method == VifScaleMethod::bicubic ? 3
                                                                          : 2;
    if (w < need || h < need)
      return {Errc::unsupported, std::string("float_vif: ") + vif_scale_method_name(o.prescale_method) +
                                     " prescaling needs at least " + std::to_string(need) + "x" +
                                     std::to_string(need) + " samples"};
    if (o.prescale_method == VifScaleMethod::bilinear && sw > kVifBilinearMaxWidth)
      return {Errc::unsupported, "float_vif: bilinear prescaling to " + std::to_string(sw) +
                                     " columns (libvmaf refuses more than " + std::to_string(kVifBilinearMaxWidth) +
                                     ")"};
  }
  FloatVifGeometry g{};
  for (unsigned s = 0; s < kFloatVifScales; ++s) {
    g.w[s] = sw >> s;
    g.h[s] = sh >> s;
    g.taps[s] = float_vif_filter_width(s, o.kernelscale);
    // Every image a scale's filter runs on must hold its half width plus one: scale s filters the image of s - 1
    // (to decimate) and its own, the smaller of the two.
    const int half = g.taps[s] / 2;
    if (s == 0 && o.skip_scale0) continue;  // the 17-tap filter of scale 0 then never runs
    {
      if (g.w[s] < half + 1 || g.h[s] < half + 1)
        return {Errc::unsupported, "float_vif: " + std::to_string(w) + "x" + std::to_string(h) +
                                       (sw != int(w) || sh != int(h)
                                            ? " (prescaled to " + std::to_string(sw) + "x" + std::to_string(sh) + ")"
                                            : std::string()) +
                                       " is too small for the " + std::to_string(g.taps[s]) + "-tap filter of scale " +
                                       std::to_string(s) + " (" + std::to_string(g.w[s]) + "x" +
                                       std::to_string(g.h[s]) + " there)"};
    }
  }
  if (geo) *geo = g;
  return Status::ok();
}

Status FloatVif::init(uint32_t w, uint32_t h, unsigned bpc, const FloatVifOptions& opts) {
  w_ = h_ = 0;
  FloatVifGeometry g;
  VMAFX_TRY(check(w, h, bpc, opts, &g));
  const bool rescale = g.w[0] != int(w) || g.h[0] != int(h);
  const ptrdiff_t in_stride = ptrdiff_t(w);
  const ptrdiff_t stride = ptrdiff_t(g.w[0]);
  const size_t n0 = size_t(stride) * size_t(g.h[0]);
  try {
    in_.assign(rescale ? 2 * size_t(in_stride) * h : 0, 0.0f);
    img_.assign(2 * kFloatVifScales * n0, 0.0f);
    filt_.assign(5 * n0, 0.0f);
    tmp_.assign(size_t(g.w[0]), 0.0f);
    rows_.assign(2 * size_t(g.h[0]), 0.0f);
  } catch (const std::bad_alloc&) {
    in_.clear();
    img_.clear();
    filt_.clear();
    return {Errc::out_of_memory,
            "float_vif: buffers for " + std::to_string(g.w[0]) + "x" + std::to_string(g.h[0]) + " do not fit in memory"};
  }
  for (unsigned s = 0; s < kFloatVifScales; ++s) float_vif_filter(s, opts.kernelscale, taps_[s]);
  consts_ = float_vif_stat_consts(opts.enhn_gain_limit, opts.sigma_nsq);
  geo_ = g;
  opts_ = opts;
  in_stride_ = in_stride;
  stride_ = stride;
  bpc_ = bpc;
  w_ = w;
  h_ = h;
  return Status::ok();
}

const float* FloatVif::image(unsigned scale, bool dist) const {
  if (!w_ || scale >= kFloatVifScales) return nullptr;
  const size_t n0 = size_t(stride_) * size_t(geo_.h[0]);
  return img_.data() + (2 * scale + (dist ? 1 : 0)) * n0;
}

Status FloatVif::compute(const Plane& ref, const Plane& dist, FloatVifScores* out, FloatVifRowSums* row_sums) {
  if (!w_) return {Errc::invalid_argument, "float_vif: compute called before a successful init"};
  if (!out) return {Errc::invalid_argument, "float_vif: no output"};
  VMAFX_TRY(float_check_plane("float_vif", "reference", ref, w_, h_, bpc_));
  VMAFX_TRY(float_check_plane("float_vif", "distorted", dist, w_, h_, bpc_));

  const size_t n0 = size_t(stride_) * size_t(geo_.h[0]);
  float* img[kFloatVifScales][2];
  for (unsigned s = 0; s < kFloatVifScales; ++s) {
    img[s][0] = img_.data() + 2 * s * n0;
    img[s][1] = img[s][0] + n0;
  }
  if (in_.empty()) {
    float_picture_copy(ref, img[0][0], stride_);
    float_picture_copy(dist, img[0][1], stride_);
  } else {
    float* in_ref = in_.data();
    float* in_dist = in_.data() + size_t(in_stride_) * h_;
    float_picture_copy(ref, in_ref, in_stride_);
    float_picture_copy(dist, in_dist, in_stride_);
    float_vif_scale_frame(opts_.prescale_method, in_ref, int(w_), int(h_), in_stride_, img[0][0], geo_.w[0],
                          geo_.h[0], stride_);
    float_vif_scale_frame(opts_.prescale_method, in_dist, int(w_), int(h_), in_stride_, img[0][1], geo_.w[0],
                          geo_.h[0], stride_);
  }

  float* mu1 = filt_.data();
  float* mu2 = mu1 + n0;
  float* xx = mu2 + n0;
  float* yy = xx + n0;
  float* xy = yy + n0;
  float* tmp = tmp_.data();
  float num[kFloatVifScales] = {}, den[kFloatVifScales] = {};
  if (row_sums)
    for (unsigned s = 0; s < kFloatVifScales; ++s) {
      row_sums->num[s].clear();
      row_sums->den[s].clear();
    }
  const unsigned start = opts_.skip_scale0 ? 1 : 0;
  for (unsigned s = start; s < kFloatVifScales; ++s) {
    const float* f = taps_[s];
    const int fw = geo_.taps[s];
    const int w = geo_.w[s], h = geo_.h[s];
    if (s > 0) {
      // The previous scale's image filtered with this scale's Gaussian, even rows and columns kept. Only the kept
      // rows are filtered (every output of libvmaf's filter is computed the same way, independently).
      const int pw = geo_.w[s - 1], ph = geo_.h[s - 1];
      for (int c = 0; c < 2; ++c) {
        const float* src = img[s - 1][c];
        float* dst = img[s][c];
        for (int y = 0; y < h; ++y) {
          float_vif_vertical_row(f, fw, VifFilterKind::plain, src, nullptr, stride_, pw, ph, 2 * y, tmp);
          float* o = dst + ptrdiff_t(y) * stride_;
          for (int x = 0; x < w; ++x) o[x] = float_vif_horizontal_at(f, fw, tmp, pw, 2 * x);
        }
      }
    }
    const float* r = img[s][0];
    const float* d = img[s][1];
    float_vif_filter_plane(f, fw, VifFilterKind::plain, r, nullptr, stride_, w, h, mu1, stride_, tmp);
    float_vif_filter_plane(f, fw, VifFilterKind::plain, d, nullptr, stride_, w, h, mu2, stride_, tmp);
    float_vif_filter_plane(f, fw, VifFilterKind::square, r, nullptr, stride_, w, h, xx, stride_, tmp);
    float_vif_filter_plane(f, fw, VifFilterKind::square, d, nullptr, stride_, w, h, yy, stride_, tmp);
    float_vif_filter_plane(f, fw, VifFilterKind::product, r, d, stride_, w, h, xy, stride_, tmp);
    float* row_num = rows_.data();
    float* row_den = rows_.data() + geo_.h[0];
    for (int y = 0; y < h; ++y) {
      const ptrdiff_t o = ptrdiff_t(y) * stride_;
      float acc_num = 0, acc_den = 0;
      for (int x = 0; x < w; ++x) {
        float nv, dv;
        float_vif_stat(mu1[o + x], mu2[o + x], xx[o + x], yy[o + x], xy[o + x], consts_, &nv, &dv);
        acc_num += nv;
        acc_den += dv;
      }
      row_num[y] = acc_num;
      row_den[y] = acc_den;
    }
    num[s] = float_vif_sum_rows(row_num, h);
    den[s] = float_vif_sum_rows(row_den, h);
    if (row_sums) {
      row_sums->num[s].assign(row_num, row_num + h);
      row_sums->den[s].assign(row_den, row_den + h);
    }
  }
  float_vif_scores(num, den, opts_, out);
  return Status::ok();
}

}  // namespace vmafx::cpu
