// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu/ssim.h"

#include <climits>
#include <cmath>
#include <new>
#include <string>

#include "cpu/simd/kernels.h"

namespace vmafx::cpu {

const float kSsimGaussian[kSsimWindow] = {0.001028f, 0.007599f, 0.036001f, 0.109361f, 0.213006f, 0.266012f,
                                          0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f};

namespace {

// IQA's stabilising constants, computed in float as IQA does.
constexpr float kK1 = 0.01f;
constexpr float kK2 = 0.03f;
constexpr int kDynamicRange = 255;

// IQA's mirror: one reflection about the edge sample's outer side.
inline int mirror(int i, int n) {
  if (i < 0) return -1 - i;
  if (i >= n) return n - (i - n) - 1;
  return i;
}

// IQA's rounding of a positive float: up from .5.
int iqa_round(float a) {
  const int sign = a > 0.0f ? 1 : -1;
  const int t = int(a);
  return double(a - float(t)) >= 0.5 ? t + sign : t;
}

template <class T>
void convert_rows(const Plane& p, float divisor, float* dst, size_t dst_stride) {
  for (uint32_t y = 0; y < p.h; y++) {
    const T* row = p.row<T>(y);
    float* out = dst + size_t(y) * dst_stride;
    for (uint32_t x = 0; x < p.w; x++) {
      const uint32_t v = uint32_t(row[size_t(x) * p.step]) >> p.shift;
      out[x] = float(v) / divisor;
    }
  }
}

}  // namespace

Status ssim_float_divisor(unsigned bpc, float* divisor) {
  switch (bpc) {
    case 8: *divisor = 1.0f; return Status::ok();
    case 10: *divisor = 4.0f; return Status::ok();
    case 12: *divisor = 16.0f; return Status::ok();
    case 16: *divisor = 256.0f; return Status::ok();
    default:
      return {Errc::unsupported, "float ssim/ms-ssim handle 8, 10, 12 and 16-bit samples (as libvmaf), not " +
                                     std::to_string(bpc) + "-bit"};
  }
}

void plane_to_float(const Plane& p, float divisor, float* dst, size_t dst_stride) {
  ssim_kernels().plane_to_float(p, divisor, dst, dst_stride);
}

void plane_to_float_scalar(const Plane& p, float divisor, float* dst, size_t dst_stride) {
  // libvmaf converts 8-bit samples without a division; x / 1.0f is x, so one expression serves both.
  if (p.bytes == 1)
    convert_rows<uint8_t>(p, divisor, dst, dst_stride);
  else
    convert_rows<uint16_t>(p, divisor, dst, dst_stride);
}

float filter_pixel_symmetric(const float* img, int w, int h, int x, int y, const float* kernel, int kw, int kh) {
  const int uc = kw / 2, vc = kh / 2;
  const int u_end = uc - ((kw & 1) ? 0 : 1);
  const int v_end = vc - ((kh & 1) ? 0 : 1);
  const bool inside = x >= uc && y >= vc && x < w - uc && y < h - vc;
  double sum = 0.0;
  const float* k = kernel;
  for (int v = -vc; v <= v_end; ++v) {
    const int yy = inside ? y + v : mirror(y + v, h);
    const float* row = img + ptrdiff_t(yy) * w;
    for (int u = -uc; u <= u_end; ++u, ++k) {
      const int xx = inside ? x + u : mirror(x + u, w);
      sum += double(row[xx] * *k);
    }
  }
  return float(sum);
}

void decimate(const float* src, int w, int h, int factor, const float* kernel, int kw, int kh, float* dst, int* dw,
              int* dh) {
  ssim_kernels().decimate(src, w, h, factor, kernel, kw, kh, dst, dw, dh);
}

void decimate_scalar(const float* src, int w, int h, int factor, const float* kernel, int kw, int kh, float* dst,
                     int* dw, int* dh) {
  const int sw = decimated_size(w, factor);
  const int sh = decimated_size(h, factor);
  for (int y = 0; y < sh; ++y) {
    float* out = dst + ptrdiff_t(y) * sw;
    for (int x = 0; x < sw; ++x) out[x] = filter_pixel_symmetric(src, w, h, x * factor, y * factor, kernel, kw, kh);
  }
  if (dw) *dw = sw;
  if (dh) *dh = sh;
}

int ssim_scale_factor(int w, int h) {
  const int r = iqa_round(float(w < h ? w : h) / 256.0f);
  return r > 1 ? r : 1;
}

std::vector<float> ssim_box_kernel(int scale) {
  return std::vector<float>(size_t(scale) * size_t(scale), 1.0f / float(scale * scale));
}

void ssim_gaussian_valid(const float* src, int w, int h, float* tmp, float* dst) {
  ssim_kernels().gaussian_valid(src, w, h, tmp, dst);
}

void ssim_gaussian_valid_scalar(const float* src, int w, int h, float* tmp, float* dst) {
  const int dw = w - kSsimWindow + 1;
  const int dh = h - kSsimWindow + 1;
  // Rows: every input row, the dw positions where the window fits.
  for (int y = 0; y < h; ++y) {
    const float* in = src + ptrdiff_t(y) * w;
    float* out = tmp + ptrdiff_t(y) * dw;
    for (int x = 0; x < dw; ++x) {
      double sum = 0.0;
      for (int t = 0; t < kSsimWindow; ++t) sum += double(in[x + t] * kSsimGaussian[t]);
      out[x] = float(sum);
    }
  }
  // Columns of the row-filtered image.
  for (int y = 0; y < dh; ++y) {
    float* out = dst + ptrdiff_t(y) * dw;
    for (int x = 0; x < dw; ++x) {
      double sum = 0.0;
      const float* in = tmp + ptrdiff_t(y) * dw + x;
      for (int t = 0; t < kSsimWindow; ++t) sum += double(in[ptrdiff_t(t) * dw] * kSsimGaussian[t]);
      out[x] = float(sum);
    }
  }
}

Status SsimMoments::reserve(int in_w, int in_h) {
  const size_t n = size_t(in_w) * size_t(in_h);
  try {
    for (std::vector<float>* v : {&mu_ref, &mu_dist, &var_ref, &var_dist, &cov, &tmp})
      if (v->size() < n) v->resize(n);
  } catch (const std::bad_alloc&) {
    return {Errc::out_of_memory, "ssim: cannot allocate buffers for " + std::to_string(in_w) + "x" +
                                     std::to_string(in_h)};
  }
  return Status::ok();
}

void ssim_moments(const float* ref, const float* dist, int w, int h, SsimMoments* m) {
  ssim_kernels().moments(ref, dist, w, h, m);
}

void ssim_moments_scalar(const float* ref, const float* dist, int w, int h, SsimMoments* m) {
  const size_t n = size_t(w) * size_t(h);
  ssim_gaussian_valid_scalar(ref, w, h, m->tmp.data(), m->mu_ref.data());
  ssim_gaussian_valid_scalar(dist, w, h, m->tmp.data(), m->mu_dist.data());
  float* rr = m->var_ref.data();
  float* dd = m->var_dist.data();
  float* rd = m->cov.data();
  for (size_t i = 0; i < n; ++i) {
    rr[i] = ref[i] * ref[i];
    dd[i] = dist[i] * dist[i];
    rd[i] = ref[i] * dist[i];
  }
  ssim_gaussian_valid_scalar(rr, w, h, m->tmp.data(), rr);
  ssim_gaussian_valid_scalar(dd, w, h, m->tmp.data(), dd);
  ssim_gaussian_valid_scalar(rd, w, h, m->tmp.data(), rd);
  m->w = w - kSsimWindow + 1;
  m->h = h - kSsimWindow + 1;

  const float* mr = m->mu_ref.data();
  const float* md = m->mu_dist.data();
  const size_t nv = size_t(m->w) * size_t(m->h);
  for (size_t i = 0; i < nv; ++i) {
    rr[i] -= mr[i] * mr[i];
    dd[i] -= md[i] * md[i];
    // IQA clamps through a double comparison with 0.0; -0.0f stays -0.0f.
    if (0.0 > double(rr[i])) rr[i] = 0.0f;
    if (0.0 > double(dd[i])) dd[i] = 0.0f;
    rd[i] -= mr[i] * md[i];
  }
}

SsimMeans ssim_pool(const SsimMoments& m) { return ssim_kernels().pool(m); }

SsimMeans ssim_pool_scalar(const SsimMoments& m) {
  const float c1 = (kK1 * kDynamicRange) * (kK1 * kDynamicRange);
  const float c2 = (kK2 * kDynamicRange) * (kK2 * kDynamicRange);
  const float c3 = c2 / 2.0f;
  const size_t n = size_t(m.w) * size_t(m.h);
  const float* mr = m.mu_ref.data();
  const float* md = m.mu_dist.data();
  const float* vr = m.var_ref.data();
  const float* vd = m.var_dist.data();
  const float* cv = m.cov.data();

  double ssim_sum = 0.0, l_sum = 0.0, c_sum = 0.0, s_sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const float sd_prod = float(std::sqrt(double(vr[i] * vd[i])));
    const double l = (2.0 * double(mr[i]) * double(md[i]) + double(c1)) / double(mr[i] * mr[i] + md[i] * md[i] + c1);
    const double c = (2.0 * double(sd_prod) + double(c2)) / double(vr[i] + vd[i] + c2);
    // Flat identical windows can leave a tiny negative covariance with zero deviations; IQA counts them as equal.
    const float cov = (cv[i] < 0.0f && sd_prod <= 0.0f) ? 0.0f : cv[i];
    const double s = double((cov + c3) / (sd_prod + c3));
    ssim_sum += l * c * s;
    l_sum += l;
    c_sum += c;
    s_sum += s;
  }
  const double count = double(int(n));
  SsimMeans r;
  r.l = float(l_sum / count);
  r.c = float(c_sum / count);
  r.s = float(s_sum / count);
  r.ssim = float(ssim_sum / count);
  return r;
}

SsimMeans ssim_single_scale(const float* ref, const float* dist, int w, int h, SsimMoments* m) {
  ssim_moments(ref, dist, w, h, m);
  return ssim_pool(*m);
}

Status ssim_check_planes(const Plane& ref, const Plane& dist, uint32_t w, uint32_t h, unsigned bpc) {
  if (w == 0) return {Errc::invalid_argument, "not initialised"};
  const Plane* planes[2] = {&ref, &dist};
  const char* names[2] = {"reference", "distorted"};
  for (int i = 0; i < 2; i++) {
    const Plane& p = *planes[i];
    if (!p.data) return {Errc::invalid_argument, std::string(names[i]) + " plane has no data"};
    if (p.w != w || p.h != h)
      return {Errc::invalid_argument, std::string(names[i]) + " plane is " + std::to_string(p.w) + "x" +
                                          std::to_string(p.h) + ", initialised for " + std::to_string(w) + "x" +
                                          std::to_string(h)};
    if (p.bpc != bpc)
      return {Errc::invalid_argument, std::string(names[i]) + " plane is " + std::to_string(p.bpc) +
                                          "-bit, initialised for " + std::to_string(bpc) + "-bit"};
    if (p.bytes != (bpc > 8 ? 2 : 1) || p.step == 0 || p.bpc + p.shift > 8u * p.bytes)
      return {Errc::invalid_argument, std::string(names[i]) + " plane has an inconsistent sample layout"};
    if (p.stride < ptrdiff_t(size_t(p.w - 1) * p.step + 1) * p.bytes)
      return {Errc::invalid_argument, std::string(names[i]) + " plane stride is shorter than a row"};
  }
  return Status::ok();
}

SsimReport ssim_report(bool enable_db, bool clip_db, bool enable_lcs, uint32_t w, uint32_t h, unsigned bpc) {
  SsimReport r;
  r.db = enable_db;
  r.lcs = enable_lcs;
  // libvmaf's init, in its types: peak and w * h unsigned, the rest double.
  const unsigned peak = (1u << bpc) - 1u;
  if (clip_db) {
    const double mse = 0.5 / (w * h);
    r.max_db = std::ceil(10. * std::log10((peak * peak) / mse));
  } else {
    r.max_db = INFINITY;
  }
  return r;
}

double ssim_to_db(double score, double max_db) {
  const double db = -10. * std::log10(1 - score);
  return db < max_db ? db : max_db;
}

void ssim_values(const SsimReport& r, const SsimMeans& m, double* out) {
  const double score = double(m.ssim);
  out[0] = r.db ? ssim_to_db(score, r.max_db) : score;
  if (!r.lcs) return;
  out[1] = double(m.l);
  out[2] = double(m.c);
  out[3] = double(m.s);
}

Status Ssim::check_size(uint32_t w, uint32_t h, int scale) {
  if (w < uint32_t(kSsimWindow) || h < uint32_t(kSsimWindow))
    return {Errc::unsupported, "ssim needs at least " + std::to_string(kSsimWindow) + "x" +
                                   std::to_string(kSsimWindow) + " luma samples, got " + std::to_string(w) + "x" +
                                   std::to_string(h)};
  if (uint64_t(w) * h > uint64_t(INT_MAX))
    return {Errc::unsupported, "ssim: " + std::to_string(w) + "x" + std::to_string(h) + " is too large"};
  if (scale < 0) return {Errc::invalid_argument, "ssim: scale " + std::to_string(scale) + " is below 0"};
  const int f = ssim_scale_for(int(w), int(h), scale);
  if (f > 1) {
    const int sw = decimated_size(int(w), f), sh = decimated_size(int(h), f);
    if (sw < kSsimWindow || sh < kSsimWindow)
      return {Errc::unsupported, "ssim: scale " + std::to_string(f) + " leaves " + std::to_string(sw) + "x" +
                                     std::to_string(sh) + " of " + std::to_string(w) + "x" + std::to_string(h) +
                                     ", smaller than the " + std::to_string(kSsimWindow) + "x" +
                                     std::to_string(kSsimWindow) + " window"};
  }
  return Status::ok();
}

Status Ssim::init(uint32_t w, uint32_t h, unsigned bpc, int scale) {
  w_ = 0;
  VMAFX_TRY(check_size(w, h, scale).prepend("ssim"));
  VMAFX_TRY(ssim_float_divisor(bpc, &divisor_));
  scale_ = ssim_scale_for(int(w), int(h), scale);
  const size_t n = size_t(w) * h;
  int sw = int(w), sh = int(h);
  try {
    ref_.assign(n, 0.f);
    dist_.assign(n, 0.f);
    if (scale_ > 1) {
      kernel_ = ssim_box_kernel(scale_);
      sw = decimated_size(int(w), scale_);
      sh = decimated_size(int(h), scale_);
      ref_small_.assign(size_t(sw) * size_t(sh), 0.f);
      dist_small_.assign(size_t(sw) * size_t(sh), 0.f);
    }
  } catch (const std::bad_alloc&) {
    return {Errc::out_of_memory, "ssim: cannot allocate buffers for " + std::to_string(w) + "x" + std::to_string(h)};
  }
  VMAFX_TRY(moments_.reserve(sw, sh));
  w_ = w;
  h_ = h;
  bpc_ = bpc;
  return Status::ok();
}

Status Ssim::compute(const Plane& ref, const Plane& dist, double* score) {
  if (!score) return {Errc::invalid_argument, "ssim: no output"};
  VMAFX_TRY(ssim_check_planes(ref, dist, w_, h_, bpc_).prepend("ssim"));
  plane_to_float(ref, divisor_, ref_.data(), w_);
  plane_to_float(dist, divisor_, dist_.data(), w_);
  const float* r = ref_.data();
  const float* d = dist_.data();
  int w = int(w_), h = int(h_);
  if (scale_ > 1) {
    int sw = 0, sh = 0;
    decimate(r, w, h, scale_, kernel_.data(), scale_, scale_, ref_small_.data(), &sw, &sh);
    decimate(d, w, h, scale_, kernel_.data(), scale_, scale_, dist_small_.data(), &sw, &sh);
    r = ref_small_.data();
    d = dist_small_.data();
    w = sw;
    h = sh;
  }
  means_ = ssim_single_scale(r, d, w, h, &moments_);
  *score = double(means_.ssim);
  return Status::ok();
}

}  // namespace vmafx::cpu
