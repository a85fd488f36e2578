// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu/ssimulacra2.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "cpu/plane.h"

namespace vmafx::cpu {

namespace {

// SSIMULACRA 2.1's weights of the 108 norms, in the order the score takes them: channel (X, Y, B), scale (1:1 ..
// 1:32), norm (1, 4), map (SSIM', ringing, blurring).
constexpr double kWeights[108] = {
    0.0, 0.0007376606707406586, 0.0, 0.0,
    0.0007793481682867309, 0.0, 0.0, 0.0004371155730107379,
    0.0, 1.1041726426657346, 0.00066284834129271, 0.00015231632783718752,
    0.0, 0.0016406437456599754, 0.0, 1.8422455520539298,
    11.441172603757666, 0.0, 0.0007989109436015163, 0.000176816438078653,
    0.0, 1.8787594979546387, 10.94906990605142, 0.0,
    0.0007289346991508072, 0.9677937080626833, 0.0, 0.00014003424285435884,
    0.9981766977854967, 0.00031949755934435053, 0.0004550992113792063, 0.0,
    0.0, 0.0013648766163243398, 0.0, 0.0,
    0.0, 0.0, 0.0, 7.466890328078848,
    0.0, 17.445833984131262, 0.0006235601634041466, 0.0,
    0.0, 6.683678146179332, 0.00037724407979611296, 1.027889937768264,
    225.20515300849274, 0.0, 0.0, 19.213238186143016,
    0.0011401524586618361, 0.001237755635509985, 176.39317598450694, 0.0,
    0.0, 24.43300999870476, 0.28520802612117757, 0.0004485436923833408,
    0.0, 0.0, 0.0, 34.77906344483772,
    44.835625328877896, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0,
    0.0, 0.0008680556573291698, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0005313191874358747,
    0.0, 0.00016533814161379112, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0004179171803251336,
    0.0017290828234722833, 0.0, 0.0020827005846636437, 0.0,
    0.0, 8.826982764996862, 23.19243343998926, 0.0,
    95.1080498811086, 0.9863978034400682, 0.9834382792465353, 0.0012286405048278493,
    171.2667255897307, 0.9807858872435379, 0.0, 0.0,
    0.0, 0.0005130064588990679, 0.0, 0.00010854057858411537,
};

// 3x3 inverse by the adjugate (the blur's coefficient system).
bool invert3(double a[9]) {
  const double c00 = a[4] * a[8] - a[5] * a[7], c01 = a[5] * a[6] - a[3] * a[8], c02 = a[3] * a[7] - a[4] * a[6];
  const double det = a[0] * c00 + a[1] * c01 + a[2] * c02;
  if (det == 0) return false;
  const double inv = 1.0 / det;
  double r[9];
  r[0] = c00 * inv;
  r[1] = (a[2] * a[7] - a[1] * a[8]) * inv;
  r[2] = (a[1] * a[5] - a[2] * a[4]) * inv;
  r[3] = c01 * inv;
  r[4] = (a[0] * a[8] - a[2] * a[6]) * inv;
  r[5] = (a[2] * a[3] - a[0] * a[5]) * inv;
  r[6] = c02 * inv;
  r[7] = (a[1] * a[6] - a[0] * a[7]) * inv;
  r[8] = (a[0] * a[4] - a[1] * a[3]) * inv;
  std::memcpy(a, r, sizeof r);
  return true;
}

S2Constants make_constants() {
  S2Constants k{};
  // The opsin absorbance matrix and bias of XYB (JPEG XL), in float as they are defined.
  const float m02 = 0.078f, m00 = 0.30f, m01 = 1.0f - m02 - m00;
  const float m12 = 0.078f, m10 = 0.23f, m11 = 1.0f - m12 - m10;
  const float m20 = 0.24342268924547819f, m21 = 0.20476744424496821f, m22 = 1.0f - m20 - m21;
  const float m[9] = {m00, m01, m02, m10, m11, m12, m20, m21, m22};
  std::memcpy(k.opsin, m, sizeof m);
  k.bias = 0.0037930732552754493f;
  k.neg_bias_cbrt = -cbrtf(k.bias);
  // The recursive Gaussian of sigma 1.5: Charalampidis' truncated-cosine design with N = round(3.2795 sigma +
  // 0.2546) = 5 and frequencies k pi / (2 N), k = 1, 3, 5.
  const double pi = 3.141592653589793238;
  const double sigma = 1.5;
  const double radius = double(kS2Radius);
  const double w1 = pi / (2.0 * radius);
  const double omega[3] = {w1, 3.0 * w1, 5.0 * w1};
  const double p1 = +1.0 / std::tan(0.5 * omega[0]), p3 = -1.0 / std::tan(0.5 * omega[1]),
               p5 = +1.0 / std::tan(0.5 * omega[2]);
  const double r1 = +p1 * p1 / std::sin(omega[0]), r3 = -p3 * p3 / std::sin(omega[1]),
               r5 = +p5 * p5 / std::sin(omega[2]);
  double rho[3];
  for (int i = 0; i < 3; ++i) rho[i] = std::exp(-0.5 * sigma * sigma * omega[i] * omega[i]) * (1.0 / radius);
  const double d13 = p1 * r3 - r1 * p3, d35 = p3 * r5 - r3 * p5, d51 = p5 * r1 - r5 * p1;
  const double z15 = d35 * (1.0 / d13), z35 = d51 * (1.0 / d13);
  double a[9] = {p1, p3, p5, r1, r3, r5, z15, z35, 1};
  invert3(a);  // not singular for these frequencies
  const double gamma[3] = {1, radius * radius - sigma * sigma, z15 * rho[0] + z35 * rho[1] + rho[2]};
  double beta[3];
  for (int i = 0; i < 3; ++i) beta[i] = a[3 * i] * gamma[0] + a[3 * i + 1] * gamma[1] + a[3 * i + 2] * gamma[2];
  for (int i = 0; i < 3; ++i) {
    const double n2 = -beta[i] * std::cos(omega[i] * (radius + 1.0));
    const double d1 = -2.0 * std::cos(omega[i]);
    const double d2 = d1 * d1;
    k.n2[i] = float(n2);
    k.d1[i] = float(d1);
    // Four consecutive outputs of o_n = n2 i_n - d1 o_(n-1) - o_(n-2) in terms of the two outputs before them.
    const double prev[4] = {-d1, d2 - 1.0, -d2 * d1 + 2.0 * d1, d2 * d2 - 3.0 * d2 + 1.0};
    const double prev2[4] = {-1.0, d1, -d2 + 1.0, d2 * d1 - 2.0 * d1};
    const double in[4] = {n2, -d1 * n2, d2 * n2 - n2, -d2 * d1 * n2 + 2.0 * d1 * n2};
    for (int j = 0; j < 4; ++j) {
      k.mul_prev[4 * i + j] = float(prev[j]);
      k.mul_prev2[4 * i + j] = float(prev2[j]);
      k.mul_in[4 * i + j] = float(in[j]);
    }
  }
  return k;
}

}  // namespace

const char* yuv_matrix_name(YuvMatrix m) {
  return m == YuvMatrix::bt601 ? "bt601" : m == YuvMatrix::bt709 ? "bt709" : "bt2020";
}

Status ssimulacra2_resolve(const std::string& matrix, const std::string& range, uint32_t width, uint32_t height,
                           Ssimulacra2Options* out) {
  (void)width;
  Ssimulacra2Options o;
  if (matrix == "auto")
    o.matrix = height > 576 ? YuvMatrix::bt709 : YuvMatrix::bt601;
  else if (matrix == "bt709")
    o.matrix = YuvMatrix::bt709;
  else if (matrix == "bt601")
    o.matrix = YuvMatrix::bt601;
  else if (matrix == "bt2020")
    o.matrix = YuvMatrix::bt2020;
  else
    return {Errc::invalid_argument, "yuv_matrix '" + matrix + "' (auto, bt601, bt709 or bt2020)"};
  if (range == "auto" || range == "limited")
    o.full_range = false;
  else if (range == "full")
    o.full_range = true;
  else
    return {Errc::invalid_argument, "yuv_range '" + range + "' (auto, limited or full)"};
  *out = o;
  return Status::ok();
}

S2Yuv ssimulacra2_yuv(const Ssimulacra2Options& o, unsigned bpc) {
  double kr = 0.2126, kb = 0.0722;  // BT.709
  if (o.matrix == YuvMatrix::bt601) kr = 0.299, kb = 0.114;
  if (o.matrix == YuvMatrix::bt2020) kr = 0.2627, kb = 0.0593;
  const double kg = 1.0 - kr - kb;
  const double scale = std::ldexp(1.0, int(bpc) - 8);
  S2Yuv k{};
  if (o.full_range) {
    const double max = std::ldexp(1.0, int(bpc)) - 1.0;
    k.y_off = 0.0f;
    k.y_scale = float(1.0 / max);
    k.c_off = float(std::ldexp(1.0, int(bpc) - 1));
    k.c_scale = float(1.0 / max);
  } else {
    k.y_off = float(16.0 * scale);
    k.y_scale = float(1.0 / (219.0 * scale));
    k.c_off = float(128.0 * scale);
    k.c_scale = float(1.0 / (224.0 * scale));
  }
  k.cr_r = float(2.0 * (1.0 - kr));
  k.cb_b = float(2.0 * (1.0 - kb));
  k.cb_g = float(-2.0 * kb * (1.0 - kb) / kg);
  k.cr_g = float(-2.0 * kr * (1.0 - kr) / kg);
  return k;
}

const S2Constants& ssimulacra2_constants() {
  static const S2Constants k = make_constants();
  return k;
}

Status ssimulacra2_check(uint32_t width, uint32_t height, unsigned bpc) {
  if (bpc < 8 || bpc > 16) return {Errc::unsupported, "bit depth " + std::to_string(bpc) + " (8 to 16 bits)"};
  if (width < kSsimulacra2MinSize || height < kSsimulacra2MinSize)
    return {Errc::unsupported, "needs at least 8x8 pixels, got " + std::to_string(width) + "x" +
                                   std::to_string(height) + " (as the reference tool)"};
  if (width > 32768 || height > 32768 || uint64_t(width) * height > (uint64_t(1) << 28))
    return {Errc::unsupported, "pictures above 32768 on a side or 2^28 pixels are not supported"};
  return Status::ok();
}

uint32_t Ssimulacra2Scales::rows() const {
  uint32_t n = 0;
  for (int s = 0; s < count; ++s) n += h[s];
  return n;
}

Ssimulacra2Scales ssimulacra2_scales(uint32_t width, uint32_t height) {
  Ssimulacra2Scales sc;
  uint32_t w = width, h = height;
  for (int s = 0; s < kS2Scales; ++s) {
    // The reference checks the size it has before making the next scale: scale s > 0 follows a scale of 8x8.
    if (w < 8 || h < 8) break;
    if (s > 0) {
      w = (w + 1) / 2;
      h = (h + 1) / 2;
    }
    sc.w[s] = w;
    sc.h[s] = h;
    sc.count = s + 1;
  }
  return sc;
}

void ssimulacra2_norms(const double totals[kS2Channels][kS2Terms], uint32_t w, uint32_t h, Ssimulacra2Norms* out) {
  const double one_per_pixels = 1.0 / double(size_t(h) * size_t(w));
  for (int c = 0; c < kS2Channels; ++c) {
    out->ssim[2 * c] = one_per_pixels * totals[c][0];
    out->ssim[2 * c + 1] = std::sqrt(std::sqrt(one_per_pixels * totals[c][1]));
    out->edge[4 * c] = one_per_pixels * totals[c][2];
    out->edge[4 * c + 1] = std::sqrt(std::sqrt(one_per_pixels * totals[c][3]));
    out->edge[4 * c + 2] = one_per_pixels * totals[c][4];
    out->edge[4 * c + 3] = std::sqrt(std::sqrt(one_per_pixels * totals[c][5]));
  }
}

double ssimulacra2_score(const Ssimulacra2Norms* scales, int count) {
  double ssim = 0.0;
  size_t i = 0;
  for (int c = 0; c < kS2Channels; ++c)
    for (int s = 0; s < count; ++s)
      for (int n = 0; n < 2; ++n) {
        ssim += kWeights[i++] * std::fabs(scales[s].ssim[c * 2 + n]);
        ssim += kWeights[i++] * std::fabs(scales[s].edge[c * 4 + n]);
        ssim += kWeights[i++] * std::fabs(scales[s].edge[c * 4 + n + 2]);
      }
  ssim = ssim * 0.9562382616834844;
  ssim = 2.326765642916932 * ssim - 0.020884521182843837 * ssim * ssim + 6.248496625763138e-05 * ssim * ssim * ssim;
  if (ssim > 0) return 100.0 - 10.0 * std::pow(ssim, 0.6276336467831387);
  return 100.0;
}

double ssimulacra2_from_rows(const Ssimulacra2Scales& sc, const double* row_sums) {
  Ssimulacra2Norms norms[kS2Scales];
  const double* r = row_sums;
  for (int s = 0; s < sc.count; ++s) {
    double totals[kS2Channels][kS2Terms] = {};
    for (uint32_t y = 0; y < sc.h[s]; ++y, r += kS2Channels * kS2Terms)
      for (int c = 0; c < kS2Channels; ++c)
        for (int t = 0; t < kS2Terms; ++t) totals[c][t] = totals[c][t] + r[c * kS2Terms + t];
    ssimulacra2_norms(totals, sc.w[s], sc.h[s], &norms[s]);
  }
  return ssimulacra2_score(norms, sc.count);
}

Status Ssimulacra2::init(uint32_t width, uint32_t height, unsigned bpc, Chroma chroma, const Ssimulacra2Options& opt) {
  VMAFX_TRY(ssimulacra2_check(width, height, bpc).prepend("ssimulacra2"));
  w_ = width;
  h_ = height;
  bpc_ = bpc;
  chroma_ = chroma;
  yuv_ = ssimulacra2_yuv(opt, bpc);
  scales_ = ssimulacra2_scales(width, height);
  const size_t n = size_t(width) * height;
  for (auto* v : {&lin1_, &lin2_, &x1_, &x2_}) v->assign(3 * n, 0.0f);
  next_.assign(3 * ((size_t(width) + 1) / 2) * ((size_t(height) + 1) / 2), 0.0f);
  for (auto* v : {&mul_, &tmp_, &s11_, &s22_, &s12_, &mu1_, &mu2_}) v->assign(n, 0.0f);
  colstate_.assign(6 * size_t(width), 0.0f);
  rows_.assign(size_t(scales_.rows()) * kS2Channels * kS2Terms, 0.0);
  return Status::ok();
}

Status Ssimulacra2::check_view(const PictureView& v, const char* which) const {
  const std::string name = std::string("ssimulacra2: ") + which + " picture";
  if (v.memory != MemoryKind::host) return {Errc::unsupported, name + " is not in host memory"};
  if (v.width != w_ || v.height != h_ || v.bit_depth != bpc_ || v.chroma != chroma_)
    return {Errc::unsupported, name + " differs from the geometry the feature was set up for"};
  for (unsigned p = 0; p < v.plane_count(); ++p)
    if (!v.planes[p].data) return {Errc::invalid_argument, name + ": plane " + std::to_string(p) + " has no data"};
  return Status::ok();
}

Status Ssimulacra2::linear_rgb(const PictureView& v, std::vector<float>* rgb) const { return convert(v, true, rgb); }
Status Ssimulacra2::encoded_rgb(const PictureView& v, std::vector<float>* rgb) const { return convert(v, false, rgb); }

Status Ssimulacra2::convert(const PictureView& v, bool linear, std::vector<float>* rgb) const {
  VMAFX_TRY(check_view(v, "input"));
  const size_t n = size_t(w_) * h_;
  rgb->resize(3 * n);
  const Plane y = luma_plane(v);
  const bool has_chroma = v.chroma != Chroma::k400;
  Plane cb, cr;
  uint32_t sx = 0, sy = 0;
  if (has_chroma) {
    cb = chroma_plane(v, 1);
    cr = chroma_plane(v, 2);
    sx = v.chroma == Chroma::k444 ? 0 : 1;
    sy = v.chroma == Chroma::k420 ? 1 : 0;
  }
  const uint32_t neutral = uint32_t(yuv_.c_off);  // exact: an integer for every depth and range
  float* r = rgb->data();
  float* g = r + n;
  float* b = g + n;
  for (uint32_t yy = 0; yy < h_; ++yy) {
    const uint32_t cy = has_chroma ? std::min(yy >> sy, cb.h - 1) : 0;
    for (uint32_t x = 0; x < w_; ++x) {
      uint32_t u = neutral, w = neutral;
      if (has_chroma) {
        const uint32_t cx = std::min(x >> sx, cb.w - 1);
        u = cb.at(cx, cy);
        w = cr.at(cx, cy);
      }
      float px[3];
      if (linear)
        s2_yuv_rgb(yuv_, y.at(x, yy), u, w, px);
      else
        s2_yuv_encoded(yuv_, y.at(x, yy), u, w, px);
      const size_t i = size_t(yy) * w_ + x;
      r[i] = px[0];
      g[i] = px[1];
      b[i] = px[2];
    }
  }
  return Status::ok();
}

// The blur of a w x h plane (pitch w): the row recursion into tmp_, then the column recursion swept row by row
// (each column's state kept in colstate_: the same steps as s2_blur_column, column by column).
void Ssimulacra2::blur(const float* in, float* out, uint32_t w, uint32_t h) {
  const S2Constants& k = ssimulacra2_constants();
  for (uint32_t y = 0; y < h; ++y) s2_blur_row(k, in + size_t(y) * w, 1, int(w), tmp_.data() + size_t(y) * w, 1);
  float* y1 = colstate_.data();
  float* y2 = y1 + 3 * size_t(w);
  std::fill(colstate_.begin(), colstate_.begin() + 6 * size_t(w), 0.0f);
  for (int n = -kS2Radius + 1; n < int(h); ++n) {
    for (uint32_t x = 0; x < w; ++x) {
      const float v = s2_blur_column_step(k, s2_column_input(tmp_.data() + x, w, int(h), n), y1 + 3 * size_t(x),
                                          y2 + 3 * size_t(x));
      if (n >= 0) out[size_t(n) * w + x] = v;
    }
  }
}

Status Ssimulacra2::compute(const PictureView& ref, const PictureView& dist, double* out) {
  if (bpc_ == 0) return {Errc::invalid_argument, "ssimulacra2: compute before a successful init"};
  VMAFX_TRY(check_view(ref, "reference"));
  VMAFX_TRY(check_view(dist, "distorted"));
  VMAFX_TRY(linear_rgb(ref, &lin1_));
  VMAFX_TRY(linear_rgb(dist, &lin2_));
  const S2Constants& k = ssimulacra2_constants();
  double* rows = rows_.data();
  for (int s = 0; s < scales_.count; ++s) {
    const uint32_t w = scales_.w[s], h = scales_.h[s];
    const size_t n = size_t(w) * h;
    if (s > 0) {
      const uint32_t pw = scales_.w[s - 1], ph = scales_.h[s - 1];
      const size_t pn = size_t(pw) * ph;
      for (std::vector<float>* lin : {&lin1_, &lin2_}) {
        for (int c = 0; c < 3; ++c)
          for (uint32_t oy = 0; oy < h; ++oy)
            for (uint32_t ox = 0; ox < w; ++ox)
              next_[c * n + size_t(oy) * w + ox] =
                  s2_downsample_at(lin->data() + c * pn, pw, int(pw), int(ph), int(ox), int(oy));
        std::copy(next_.begin(), next_.begin() + 3 * n, lin->begin());
      }
    }
    for (int p = 0; p < 2; ++p) {
      const float* lin = (p ? lin2_ : lin1_).data();
      float* xyb = (p ? x2_ : x1_).data();
      for (size_t i = 0; i < n; ++i) {
        float v[3];
        s2_xyb(k, lin[i], lin[n + i], lin[2 * n + i], v);
        xyb[i] = v[0];
        xyb[n + i] = v[1];
        xyb[2 * n + i] = v[2];
      }
    }
    const int segments = s2_segments(int(w));
    std::vector<double> seg(size_t(segments) * kS2Terms);
    for (int c = 0; c < kS2Channels; ++c) {
      const float* a = x1_.data() + c * n;
      const float* b = x2_.data() + c * n;
      for (size_t i = 0; i < n; ++i) mul_[i] = s2_product(a[i], a[i]);
      blur(mul_.data(), s11_.data(), w, h);
      for (size_t i = 0; i < n; ++i) mul_[i] = s2_product(b[i], b[i]);
      blur(mul_.data(), s22_.data(), w, h);
      for (size_t i = 0; i < n; ++i) mul_[i] = s2_product(a[i], b[i]);
      blur(mul_.data(), s12_.data(), w, h);
      blur(a, mu1_.data(), w, h);
      blur(b, mu2_.data(), w, h);
      for (uint32_t y = 0; y < h; ++y) {
        const size_t o = size_t(y) * w;
        for (int sg = 0; sg < segments; ++sg) {
          const int x0 = sg * kS2Segment, x1 = std::min(int(w), x0 + kS2Segment);
          s2_segment_sums(mu1_.data() + o, mu2_.data() + o, s11_.data() + o, s22_.data() + o, s12_.data() + o, a + o,
                          b + o, x0, x1, seg.data() + size_t(sg) * kS2Terms);
        }
        s2_row_sums(seg.data(), segments, rows + (size_t(y) * kS2Channels + c) * kS2Terms);
      }
    }
    rows += size_t(h) * kS2Channels * kS2Terms;
  }
  out[0] = ssimulacra2_from_rows(scales_, rows_.data());
  return Status::ok();
}

}  // namespace vmafx::cpu
