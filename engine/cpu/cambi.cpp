// SPDX-License-Identifier: LGPL-2.1-or-later
// CAMBI: see cambi.h for the stages. Integer widths, float operations and their order follow libvmaf's C path
// (feature/cambi.c, feature/luminance_tools.c).
#include "cpu/cambi.h"

#include "cpu/simd/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace vmafx::cpu {

namespace {

constexpr double kDefaultTopk = 0.6;
constexpr const char* kDefaultEotf = "bt1886";

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// ---- Luminance (libvmaf's luminance_tools.c, 10-bit limited range: foot 64, head 940) ----

constexpr int kFoot = 64;
constexpr int kHead = 940;

double bt1886_eotf(double v) {
  const double gamma = 2.4, lw = 300.0, lb = 0.01;
  const double a = std::pow(std::pow(lw, 1.0 / gamma) - std::pow(lb, 1.0 / gamma), gamma);
  const double b = std::pow(lb, 1.0 / gamma) / (std::pow(lw, 1.0 / gamma) - std::pow(lb, 1.0 / gamma));
  return a * std::pow(std::max(v + b, 0.0), gamma);
}

double pq_eotf(double v) {
  const double m_1 = 0.1593017578125;
  const double m_2 = 78.84375;
  const double c_1 = 0.8359375;
  const double c_2 = 18.8515625;
  const double c_3 = 18.6875;
  const double n = std::pow(v, 1.0 / m_2) - c_1;
  const double n_clipped = std::max(n, 0.0);
  const double d = c_2 - c_3 * std::pow(v, 1.0 / m_2);
  return 10000 * std::pow(n_clipped / d, 1.0 / m_1);
}

double luminance(int sample, bool pq) {
  const int clipped = sample < kFoot ? kFoot : (sample > kHead ? kHead : sample);
  const double normalized = double(clipped - kFoot) / (kHead - kFoot);
  return pq ? pq_eotf(normalized) : bt1886_eotf(normalized);
}

bool tvi_condition(int sample, int diff, double tvi_threshold, bool pq) {
  const double mean = luminance(sample, pq);
  const double diffl = luminance(sample + diff, pq);
  return diffl - mean > tvi_threshold * mean;
}

enum class Bisect { too_small, correct, too_big };

Bisect tvi_hard_threshold(int sample, int diff, double tvi_threshold, bool pq) {
  if (!tvi_condition(sample, diff, tvi_threshold, pq)) return Bisect::too_big;
  if (tvi_condition(sample + 1, diff, tvi_threshold, pq)) return Bisect::too_small;
  return Bisect::correct;
}

// libvmaf's get_tvi_for_diff at 10 bits: the largest value at which a step of `diff` is still visible.
int tvi_for_diff(int diff, double tvi_threshold, bool pq) {
  const int max_val = (1 << 10) - 1;
  int foot = kFoot;
  int head = kHead - diff - 1;
  Bisect b = tvi_hard_threshold(foot, diff, tvi_threshold, pq);
  if (b == Bisect::too_big) return 0;
  if (b == Bisect::correct) return foot;
  b = tvi_hard_threshold(head, diff, tvi_threshold, pq);
  if (b == Bisect::too_small) return max_val;
  if (b == Bisect::correct) return head;
  // foot is too small and head too big, so head >= foot + 2 and every step moves one of them inwards.
  for (;;) {
    const int mid = foot + (head - foot) / 2;
    b = tvi_hard_threshold(mid, diff, tvi_threshold, pq);
    if (b == Bisect::too_big)
      head = mid;
    else if (b == Bisect::too_small)
      foot = mid;
    else
      return mid;
  }
}

// 32-sample alignment of libvmaf's picture rows (picture.c's DATA_ALIGN).
uint32_t align32(uint32_t w) { return (w + 31u) & ~31u; }

uint16_t adjust_window(uint16_t window, uint32_t w, uint32_t h, bool speedup) {
  uint16_t ws = uint16_t(((unsigned(window) * (w + h)) / 375u) >> 4);
  if (speedup) ws = uint16_t((ws + 1) >> 1);
  return uint16_t(ws | 1);
}

uint16_t ceil_log2(uint32_t n) {
  if (n == 0) return 0;
  uint32_t t = n - 1;
  uint16_t s = 0;
  while (t > 0) {
    t >>= 1;
    s += 1;
  }
  return s;
}

// libvmaf's nearest-neighbour walk from n_in samples to n_out: x starts at ratio / 2 - 0.5 and adds the float ratio
// once per output sample; the input index is (int)(x + 0.5).
std::vector<uint32_t> resize_walk(uint32_t n_in, uint32_t n_out, bool* past_end) {
  std::vector<uint32_t> idx(n_out);
  const float ratio = float(n_in) / float(n_out);
  const float start = float(double(ratio / 2) - 0.5);
  float x = start;
  for (uint32_t j = 0; j < n_out; ++j) {
    const int v = int(double(x) + 0.5);
    if (v < 0 || uint32_t(v) >= n_in) *past_end = true;
    idx[j] = uint32_t(v < 0 ? 0 : v);
    x += ratio;
  }
  return idx;
}

Status make_geometry(const char* what, uint32_t in_w, uint32_t in_h, uint32_t w, uint32_t h, uint16_t window_opt,
                     bool speedup, CambiGeometry* g) {
  g->in_w = in_w;
  g->in_h = in_h;
  g->w = w;
  g->h = h;
  g->resized = (w != in_w || h != in_h);
  g->window = adjust_window(window_opt, w, h, speedup);
  g->pad = uint16_t(g->window >> 1);
  g->mask_index = cambi_mask_index(w, h);
  uint32_t sw = w, sh = h;
  for (unsigned s = 0; s < kCambiScales; ++s) {
    if (s > 0 || speedup) {
      sw = (sw + 1) >> 1;
      sh = (sh + 1) >> 1;
    }
    g->scale_w[s] = sw;
    g->scale_h[s] = sh;
  }
  // Its histogram of a scale reads the rows and columns 0 .. pad - 1 up front and computes c-values for rows 0 ..
  // pad: those must exist. Row pad == h itself is read only as stale buffer contents whose c-values are never
  // pooled, except at a full-size scale 0, where that row lies outside libvmaf's buffers.
  const uint32_t lw = g->scale_w[kCambiScales - 1], lh = g->scale_h[kCambiScales - 1];
  if (lw < g->pad || lh < g->pad || (!speedup && h <= g->pad))
    return {Errc::unsupported,
            std::string("cambi: the ") + what + " picture at " + std::to_string(w) + "x" + std::to_string(h) +
                " (" + std::to_string(lw) + "x" + std::to_string(lh) + " at the last scale) is too small for window " +
                std::to_string(g->window) + ": libvmaf's sliding histogram reads rows or columns outside the picture "
                "(at least " + std::to_string(g->pad) + " at every scale and more than " + std::to_string(g->pad) +
                " rows at full size are needed; aspect ratios above about 10:1 are not scored)"};
  g->src_x.clear();
  g->src_y.clear();
  if (g->resized) {
    bool past = false;
    g->src_x = resize_walk(in_w, w, &past);
    g->src_y = resize_walk(in_h, h, &past);
    if (past)
      return {Errc::unsupported, std::string("cambi: resizing the ") + what + " picture from " +
                                     std::to_string(in_w) + "x" + std::to_string(in_h) + " to " + std::to_string(w) +
                                     "x" + std::to_string(h) +
                                     ": libvmaf's float index walk runs past the last input sample"};
  }
  return Status::ok();
}

}  // namespace

// ---- Options ------------------------------------------------------------------------------------------------------

const CambiOptionSpec* cambi_option_spec(const std::string& name) {
  for (const auto& s : kCambiOptionSpecs)
    if (name == s.name) return &s;
  return nullptr;
}

Status cambi_set_option(CambiOptions* o, const std::string& name, const std::string& value) {
  if (!o) return {Errc::invalid_argument, "cambi: no options"};
  const CambiOptionSpec* spec = cambi_option_spec(name);
  if (!spec) {
    std::string known;
    for (const auto& s : kCambiOptionSpecs) known += std::string(known.empty() ? "" : ", ") + s.name;
    return {Errc::unsupported, "cambi: unknown option '" + name + "' (cambi's options: " + known + ")"};
  }
  if (spec->refused) return {Errc::unsupported, "cambi: option " + name + " is not supported: " + spec->refused};
  const char* v = value.c_str();
  const std::string bad = "cambi: option " + name + "=" + value;
  switch (spec->type) {
    case CambiOptionType::boolean:
      if (value == "true")
        o->full_ref = true;
      else if (value == "false")
        o->full_ref = false;
      else
        return {Errc::invalid_argument, bad + ": not true or false"};
      return Status::ok();
    case CambiOptionType::integer: {
      const int n = std::atoi(v);
      if (n == 0 && v[0] != '0') return {Errc::invalid_argument, bad + ": not a number"};
      if (n < spec->min || n > spec->max)
        return {Errc::invalid_argument, bad + ": outside " + num(spec->min) + ".." + num(spec->max)};
      if (name == "enc_width") o->enc_width = n;
      else if (name == "enc_height") o->enc_height = n;
      else if (name == "enc_bitdepth") o->enc_bitdepth = n;
      else if (name == "src_width") o->src_width = n;
      else if (name == "src_height") o->src_height = n;
      else if (name == "window_size") o->window_size = n;
      else if (name == "max_log_contrast") o->max_log_contrast = n;
      else o->cambi_high_res_speedup = n;
      return Status::ok();
    }
    case CambiOptionType::real: {
      const double n = std::atof(v);
      if (n == 0 && v[0] != '0') return {Errc::invalid_argument, bad + ": not a number"};
      if (n < spec->min || n > spec->max)
        return {Errc::invalid_argument, bad + ": outside " + num(spec->min) + ".." + num(spec->max)};
      if (name == "cambi_max_val") o->cambi_max_val = n;
      else if (name == "topk") o->topk = n;
      else if (name == "cambi_topk") o->cambi_topk = n;
      else if (name == "tvi_threshold") o->tvi_threshold = n;
      else o->cambi_vis_lum_threshold = n;
      return Status::ok();
    }
    case CambiOptionType::text:
      if (name == "eotf") o->eotf = value;
      else o->cambi_eotf = value;
      return Status::ok();
  }
  return {Errc::internal, bad + ": unknown option type"};
}

// ---- Setup --------------------------------------------------------------------------------------------------------

const float* cambi_reciprocals() {
  struct Table {
    float v[kCambiReciprocals];
    Table() {
      v[0] = 0.0f;
      char buf[64];
      for (unsigned i = 1; i < kCambiReciprocals; ++i) {
        std::snprintf(buf, sizeof buf, "%.9g", 1.0 / double(i));
        v[i] = std::strtof(buf, nullptr);
      }
    }
  };
  static const Table t;
  return t.v;
}

double cambi_luminance(int value, bool pq) { return luminance(value, pq); }

uint16_t cambi_mask_index(uint32_t w, uint32_t h) {
  const uint32_t shifted = (w >> 6) * (h >> 6);
  const int f = int(kCambiMaskFilter);
  return uint16_t((f * f + 3 * (int(ceil_log2(shifted)) - 11) - 1) >> 1);
}

Status cambi_plan(uint32_t w, uint32_t h, unsigned bpc, const CambiOptions& o, CambiPlan* out) {
  if (!out) return {Errc::invalid_argument, "cambi: no plan"};
  *out = CambiPlan{};
  if (bpc < 8 || bpc > 16)
    return {Errc::unsupported, "cambi: bit depth " + std::to_string(bpc) + " is outside 8..16"};
  if (w == 0 || h == 0 || w > kCambiMaxSide || h > kCambiMaxSide || uint64_t(w) * h > kCambiMaxPixels)
    return {Errc::unsupported, "cambi: picture " + std::to_string(w) + "x" + std::to_string(h) +
                                   " is empty or above " + std::to_string(kCambiMaxSide) + " on a side or " +
                                   std::to_string(kCambiMaxPixels) + " pixels"};
  if (!o.heatmaps_path.empty())
    return {Errc::unsupported, std::string("cambi: option heatmaps_path is not supported: ") +
                                   cambi_option_spec("heatmaps_path")->refused};
  // Ranges as libvmaf's option parser enforces them (0 is "unset" for the size and depth options).
  struct IntCheck {
    const char* name;
    int v;
    bool zero_ok;
  };
  const IntCheck ints[] = {{"enc_width", o.enc_width, true},   {"enc_height", o.enc_height, true},
                           {"enc_bitdepth", o.enc_bitdepth, true}, {"src_width", o.src_width, true},
                           {"src_height", o.src_height, true}, {"window_size", o.window_size, false},
                           {"max_log_contrast", o.max_log_contrast, false},
                           {"cambi_high_res_speedup", o.cambi_high_res_speedup, false}};
  for (const auto& c : ints) {
    const CambiOptionSpec* s = cambi_option_spec(c.name);
    if ((c.zero_ok && c.v == 0) || (c.v >= s->min && c.v <= s->max)) continue;
    return {Errc::invalid_argument, std::string("cambi: ") + c.name + " " + std::to_string(c.v) + " is outside " +
                                        num(s->min) + ".." + num(s->max)};
  }
  struct RealCheck {
    const char* name;
    double v;
  };
  const RealCheck reals[] = {{"cambi_max_val", o.cambi_max_val}, {"topk", o.topk},
                             {"cambi_topk", o.cambi_topk},       {"tvi_threshold", o.tvi_threshold},
                             {"cambi_vis_lum_threshold", o.cambi_vis_lum_threshold}};
  for (const auto& c : reals) {
    const CambiOptionSpec* s = cambi_option_spec(c.name);
    if (c.v >= s->min && c.v <= s->max) continue;
    return {Errc::invalid_argument,
            std::string("cambi: ") + c.name + " " + num(c.v) + " is outside " + num(s->min) + ".." + num(s->max)};
  }
  // cambi_eotf wins when it is not the default.
  const std::string& eotf = o.cambi_eotf != kDefaultEotf ? o.cambi_eotf : o.eotf;
  if (eotf != "bt1886" && eotf != "pq")
    return {Errc::invalid_argument, "cambi: unknown EOTF '" + eotf + "' (bt1886 or pq)"};
  const bool pq = eotf == "pq";

  CambiPlan p;
  p.bpc = bpc;
  p.enc_bitdepth = o.enc_bitdepth == 0 ? bpc : unsigned(o.enc_bitdepth);
  p.full_ref = o.full_ref;
  uint32_t enc_w = uint32_t(o.enc_width), enc_h = uint32_t(o.enc_height);
  if (enc_w == 0 || enc_h == 0) {
    enc_w = w;
    enc_h = h;
  }
  uint32_t src_w = uint32_t(o.src_width), src_h = uint32_t(o.src_height);
  if (src_w == 0 || src_h == 0) {
    src_w = w;
    src_h = h;
  }
  // An encode that was downscaled is not upscaled back.
  if (enc_h > h || enc_w > w) {
    enc_w = w;
    enc_h = h;
  }
  const std::string enc_s = std::to_string(enc_w) + "x" + std::to_string(enc_h);
  const std::string src_s = std::to_string(src_w) + "x" + std::to_string(src_h);
  if (enc_w < kCambiMinSide && enc_h < kCambiMinSide)
    return {Errc::invalid_argument, "cambi: encode size " + enc_s + " has neither side at least " +
                                        std::to_string(kCambiMinSide)};
  if (src_w < kCambiMinSide && src_h < kCambiMinSide)
    return {Errc::invalid_argument, "cambi: source size " + src_s + " has neither side at least " +
                                        std::to_string(kCambiMinSide)};
  if ((src_w > enc_w && src_h < enc_h) || (src_w < enc_w && src_h > enc_h))
    return {Errc::invalid_argument,
            "cambi: source size " + src_s + " is wider and shorter (or narrower and taller) than the encode " + enc_s};
  const uint64_t enc_pix = uint64_t(enc_w) * enc_h;
  const int hrs = o.cambi_high_res_speedup;
  p.high_res_speedup = (hrs == 1080 && enc_pix >= 1920u * 1080u) || (hrs == 1440 && enc_pix >= 2560u * 1440u) ||
                       (hrs == 2160 && enc_pix >= 3840u * 2160u);

  p.num_diffs = 1u << o.max_log_contrast;
  for (unsigned d = 0; d < p.num_diffs; ++d)
    p.tvi_for_diff[d] = uint16_t(tvi_for_diff(int(d) + 1, o.tvi_threshold, pq) + int(p.num_diffs));
  // The smallest value brighter than the visibility threshold (libvmaf loops without a bound: refuse where it would
  // never stop).
  {
    int sample = kFoot;
    while (luminance(sample, pq) < o.cambi_vis_lum_threshold) {
      if (sample >= kHead)
        return {Errc::unsupported, "cambi: cambi_vis_lum_threshold " + num(o.cambi_vis_lum_threshold) +
                                       " is above the brightest value's luminance (libvmaf would not terminate)"};
      ++sample;
    }
    p.vlt_luma = uint16_t(sample == kFoot ? 0 : sample);
  }
  {
    const int lo = int(p.vlt_luma) - 3 * int(p.num_diffs) + 1;
    p.band_base = uint16_t(lo > 0 ? lo : 0);
    const int size = int(p.tvi_for_diff[p.num_diffs - 1]) + 1 - int(p.band_base);
    // Above the last value where a difference is visible libvmaf's band size (a uint16) wraps and its histogram
    // updates run outside their buffer (it crashes): refused. A band of 0 values is well defined: every c-value is 0.
    if (size < 0)
      return {Errc::unsupported,
              "cambi: cambi_vis_lum_threshold " + num(o.cambi_vis_lum_threshold) + " (value " +
                  std::to_string(p.vlt_luma) + ") is above every value where a difference is visible (tvi_threshold " +
                  num(o.tvi_threshold) + ", max_log_contrast " + std::to_string(o.max_log_contrast) +
                  "): libvmaf writes outside its histogram with these options"};
    p.band_empty = size == 0;
    p.band_size = uint16_t(size);
  }
  p.topk = o.topk != kDefaultTopk ? o.topk : o.cambi_topk;
  p.max_val = o.cambi_max_val;

  const uint16_t ws = uint16_t(o.window_size);
  const uint16_t dist_window = adjust_window(ws, enc_w, enc_h, p.high_res_speedup);
  const uint16_t src_window = adjust_window(ws, src_w, src_h, p.high_res_speedup);
  const unsigned max_window = std::max(dist_window, src_window);
  if (max_window * max_window >= kCambiReciprocals)
    return {Errc::invalid_argument, "cambi: window_size " + std::to_string(o.window_size) + " becomes " +
                                        std::to_string(max_window) + " at " +
                                        (dist_window >= src_window ? enc_s : src_s) +
                                        ", too large for libvmaf's reciprocal table (at most 65)"};
  VMAFX_TRY(make_geometry("distorted", w, h, enc_w, enc_h, ws, p.high_res_speedup, &p.dist));
  if (p.full_ref) {
    VMAFX_TRY(make_geometry("reference", w, h, src_w, src_h, ws, p.high_res_speedup, &p.ref));
    // libvmaf copies a 10-bit picture of the processing size with memcpy over its own row pitch; its buffers are as
    // wide as the larger of the source and encode sizes, so a source wider than the picture garbles the distorted one.
    if (bpc == 10 && !p.dist.resized && align32(std::max(src_w, enc_w)) != align32(w))
      return {Errc::unsupported, "cambi: full_ref with src_width " + std::to_string(src_w) +
                                     " above the picture width " + std::to_string(w) +
                                     " at 10 bits: libvmaf copies the distorted picture with the wrong row pitch"};
  }
  *out = std::move(p);
  return Status::ok();
}

// ---- Stages -------------------------------------------------------------------------------------------------------

Status cambi_check_samples(const Plane& in) {
  if (in.bpc <= 8 || in.bpc >= 16) return Status::ok();
  const uint32_t max = (1u << in.bpc) - 1;
  for (uint32_t y = 0; y < in.h; ++y)
    for (uint32_t x = 0; x < in.w; ++x) {
      const uint32_t v = in.at(x, y);
      if (v > max)
        return {Errc::invalid_argument, "cambi: sample " + std::to_string(v) + " at (" + std::to_string(x) + ", " +
                                            std::to_string(y) + ") is above " + std::to_string(max) + ", the largest " +
                                            std::to_string(in.bpc) + "-bit value"};
    }
  return Status::ok();
}

namespace {

// A sample as libvmaf's preprocessing turns it into 10 bits.
inline uint16_t to_10bit(uint32_t v, unsigned bpc) {
  if (bpc <= 8) return uint16_t(v << (10 - bpc));
  if (bpc == 9) return uint16_t(v << 1);
  const unsigned shift = bpc - 10;
  const uint32_t round = shift == 0 ? 0 : 1u << (shift - 1);
  return uint16_t((v + round) >> shift);
}

}  // namespace

void cambi_preprocess(const Plane& in, const CambiGeometry& g, unsigned enc_bitdepth, uint16_t* out,
                      ptrdiff_t stride) {
  const unsigned bpc = in.bpc;
  for (uint32_t i = 0; i < g.h; ++i) {
    const uint32_t sy = g.resized ? g.src_y[i] : i;
    uint16_t* o = out + ptrdiff_t(i) * stride;
    if (in.bytes == 1) {
      const uint8_t* r = in.row<uint8_t>(sy);
      for (uint32_t j = 0; j < g.w; ++j) o[j] = to_10bit(r[size_t(g.resized ? g.src_x[j] : j) * in.step], bpc);
    } else {
      const uint16_t* r = in.row<uint16_t>(sy);
      for (uint32_t j = 0; j < g.w; ++j)
        o[j] = to_10bit(uint32_t(r[size_t(g.resized ? g.src_x[j] : j) * in.step]) >> in.shift, bpc);
    }
  }
  if (enc_bitdepth >= 10) return;
  // Anti-dithering: the mean of each 2x2 block (the last column and row: of two). libvmaf filters in place from the
  // top left, reading only samples it has not yet written.
  const uint32_t w = g.w, h = g.h;
  for (uint32_t i = 0; i + 1 < h; ++i) {
    uint16_t* r0 = out + ptrdiff_t(i) * stride;
    const uint16_t* r1 = r0 + stride;
    for (uint32_t j = 0; j + 1 < w; ++j) r0[j] = uint16_t((r0[j] + r0[j + 1] + r1[j] + r1[j + 1]) >> 2);
    r0[w - 1] = uint16_t((r0[w - 1] + r1[w - 1]) >> 1);
  }
  uint16_t* last = out + ptrdiff_t(h - 1) * stride;
  for (uint32_t j = 0; j + 1 < w; ++j) last[j] = uint16_t((last[j] + last[j + 1]) >> 1);
}

void cambi_spatial_mask(const uint16_t* img, ptrdiff_t stride, uint32_t w, uint32_t h, uint16_t mask_index,
                        uint8_t* mask, ptrdiff_t mask_stride, uint32_t* scratch) {
  // Column sums of the flat indicator over the 7 rows around each output row, kept in a ring of 7 indicator rows.
  // Integer counts, so the order of the additions does not matter.
  const int pad = int(kCambiMaskFilter / 2);
  const uint32_t rw = w + 2 * pad;  // indicator rows with zero columns on both sides
  uint32_t* colsum = scratch;       // rw entries
  uint32_t* rows = scratch + rw;    // 7 rows of rw entries (the ring)
  std::fill(scratch, scratch + size_t(rw) * 8, 0u);
  auto flat_row = [&](int r, uint32_t* dst) {
    const uint16_t* p = img + ptrdiff_t(r) * stride;
    const bool last_row = uint32_t(r) + 1 == h;
    const uint16_t* below = last_row ? p : p + stride;
    for (uint32_t j = 0; j < w; ++j) {
      const bool horizontal = j == w - 1 || p[j] == p[j + 1];
      const bool vertical = last_row || p[j] == below[j];
      dst[pad + j] = (horizontal && vertical) ? 1u : 0u;
    }
  };
  auto slot = [&](int r) { return rows + size_t((r % 7 + 7) % 7) * rw; };
  // Rows 0 .. pad-1 enter before the first output row.
  for (int r = 0; r < pad && r < int(h); ++r) {
    flat_row(r, slot(r));
    for (uint32_t j = 0; j < rw; ++j) colsum[j] += slot(r)[j];
  }
  for (int i = 0; i < int(h); ++i) {
    const int enter = i + pad;
    if (enter < int(h)) {
      flat_row(enter, slot(enter));
      for (uint32_t j = 0; j < rw; ++j) colsum[j] += slot(enter)[j];
    }
    uint32_t s = 0;
    for (int k = 0; k < 2 * pad; ++k) s += colsum[k];
    uint8_t* m = mask + ptrdiff_t(i) * mask_stride;
    for (uint32_t j = 0; j < w; ++j) {
      s += colsum[j + 2 * pad];
      m[j] = s > mask_index ? 1 : 0;
      s -= colsum[j];
    }
    const int leave = i - pad;
    if (leave >= 0) {
      const uint32_t* lr = slot(leave);
      for (uint32_t j = 0; j < rw; ++j) colsum[j] -= lr[j];
    }
  }
}

void cambi_decimate(uint16_t* img, ptrdiff_t stride, uint32_t w, uint32_t h) {
  for (uint32_t i = 0; i < h; ++i)
    for (uint32_t j = 0; j < w; ++j) img[ptrdiff_t(i) * stride + j] = img[ptrdiff_t(2 * i) * stride + 2 * j];
}

void cambi_decimate(uint8_t* mask, ptrdiff_t stride, uint32_t w, uint32_t h) {
  for (uint32_t i = 0; i < h; ++i)
    for (uint32_t j = 0; j < w; ++j) mask[ptrdiff_t(i) * stride + j] = mask[ptrdiff_t(2 * i) * stride + 2 * j];
}

void cambi_filter_mode(uint16_t* img, ptrdiff_t stride, uint32_t w, uint32_t h, uint16_t* buf) {
  // Horizontal modes of three consecutive rows in a ring; row i - 1 is written once rows i - 2 .. i are filtered,
  // so every read is of an unwritten row. The first and last rows and columns keep their values.
  unsigned line = 0;
  for (uint32_t i = 0; i < h; ++i) {
    const uint16_t* r = img + ptrdiff_t(i) * stride;
    uint16_t* b = buf + size_t(line) * w;
    b[0] = r[0];
    for (uint32_t j = 1; j + 1 < w; ++j) b[j] = cambi_mode3(r[j - 1], r[j], r[j + 1]);
    b[w - 1] = r[w - 1];
    if (i > 1) {
      uint16_t* o = img + ptrdiff_t(i - 1) * stride;
      for (uint32_t j = 0; j < w; ++j) o[j] = cambi_mode3(buf[j], buf[w + j], buf[2 * size_t(w) + j]);
    }
    line = line + 1 == 3 ? 0 : line + 1;
  }
}

float cambi_c_value(const CambiPlan& plan, uint16_t v, const uint16_t* counts) {
  if (plan.band_empty || uint16_t(v - plan.band_base) >= plan.band_size) return 0.0f;
  const int nd = int(plan.num_diffs);
  const int value = int(v) + nd;
  const float* recip = cambi_reciprocals();
  const uint16_t p0 = counts[nd];
  float c = 0.0f;
  for (int d = 0; d < nd; ++d) {
    if (value <= int(plan.tvi_for_diff[d]) && value + d + 1 > int(plan.vlt_luma)) {
      const uint16_t p1 = counts[nd + d + 1];
      const uint16_t p2 = int(v) - d - 1 >= int(plan.band_base) ? counts[nd - d - 1] : uint16_t(0);
      float val;
      if (p1 > p2)
        val = float(kCambiContrastWeights[d] * p0 * p1) * recip[p1 + p0];
      else
        val = float(kCambiContrastWeights[d] * p0 * p2) * recip[p2 + p0];
      if (val > c) c = val;
    }
  }
  return c;
}

void cambi_c_values(const CambiPlan& plan, const uint16_t* img, const uint8_t* mask, ptrdiff_t stride, uint32_t w,
                    uint32_t h, uint16_t pad, float* out, uint16_t* hist) {
  std::fill(out, out + size_t(w) * h, 0.0f);
  if (plan.band_empty) return;  // no value in the band: every c-value is 0
  const uint16_t base = plan.band_base, size = plan.band_size;
  std::fill(hist, hist + size_t(size) * w, uint16_t(0));
  const int P = pad, W = int(w), H = int(h);
  // hist[(v - base) * w + c]: masked pixels of value v in the columns c - pad .. c + pad of the rows in the window.
  auto key = [&](int r, int j) -> int {
    const ptrdiff_t at = ptrdiff_t(r) * stride + j;
    if (!mask[at]) return -1;
    const uint16_t k = uint16_t(img[at] - base);
    return k < size ? int(k) : -1;
  };
  auto update = [&](int k, int j, int delta) {
    uint16_t* row = hist + size_t(k) * w;
    const int lo = std::max(j - P, 0), hi = std::min(j + P + 1, W);
    for (int c = lo; c < hi; ++c) row[c] = uint16_t(row[c] + delta);
  };
  for (int r = 0; r < P; ++r)
    for (int j = 0; j < W; ++j) {
      const int k = key(r, j);
      if (k >= 0) update(k, j, +1);
    }
  const float* recip = cambi_reciprocals();
  const int nd = int(plan.num_diffs);
  for (int i = 0; i < H; ++i) {
    const bool enters = i + P < H, leaves = i - P - 1 >= 0;
    for (int j = 0; j < W; ++j) {
      const int ka = enters ? key(i + P, j) : -1;
      const int ks = leaves ? key(i - P - 1, j) : -1;
      if (ka == ks) continue;  // both absent, or the same value leaving and entering
      if (ks >= 0) update(ks, j, -1);
      if (ka >= 0) update(ka, j, +1);
    }
    // libvmaf's c_value_pixel, reading the histogram column of each masked pixel.
    for (int j = 0; j < W; ++j) {
      const ptrdiff_t at = ptrdiff_t(i) * stride + j;
      if (!mask[at]) continue;
      const int compact = int(img[at]) - int(base);
      if (unsigned(compact) >= size) continue;
      const int value = int(img[at]) + nd;
      const uint16_t p0 = hist[size_t(compact) * w + j];
      float c = 0.0f;
      for (int d = 0; d < nd; ++d) {
        if (value <= int(plan.tvi_for_diff[d]) && value + d + 1 > int(plan.vlt_luma)) {
          const int i1 = compact + d + 1, i2 = compact - d - 1;
          const uint16_t p1 = hist[size_t(i1) * w + j];
          const uint16_t p2 = i2 >= 0 ? hist[size_t(i2) * w + j] : uint16_t(0);
          float val;
          if (p1 > p2)
            val = float(kCambiContrastWeights[d] * p0 * p1) * recip[p1 + p0];
          else
            val = float(kCambiContrastWeights[d] * p0 * p2) * recip[p2 + p0];
          if (val > c) c = val;
        }
      }
      out[size_t(i) * w + j] = c;
    }
  }
}

uint32_t cambi_topk_count(uint32_t n, double topk) {
  const int num = int(n);
  const int k = int(topk * num);  // libvmaf passes the double to an int parameter: truncation
  return uint32_t(k < 1 ? 1 : (k > num ? num : k));
}

double cambi_pool(float* arr, uint32_t n, double topk) {
  const int num = int(n);
  const int k = int(cambi_topk_count(n, topk));
  // libvmaf's quick_select: partitions so that arr[0 .. k-1] hold the k largest values.
  if (num != k) {
    int left = 0, right = num - 1;
    while (left < right) {
      const float pivot = arr[k];
      int i = left, j = right;
      do {
        while (arr[i] > pivot) i++;
        while (arr[j] < pivot) j--;
        if (i <= j) {
          std::swap(arr[i], arr[j]);
          i++;
          j--;
        }
      } while (i <= j);
      if (j < k) left = i;
      if (k < i) right = j;
    }
  }
  double sum = 0;
  for (int i = 0; i < k; i++) sum += arr[i];
  return sum / k;
}

double cambi_combine(const double* means, uint16_t window) {
  const uint16_t odd = uint16_t(2 * (window >> 1) + 1);
  const uint16_t pixels = uint16_t(odd * odd);
  double score = 0.0;
  for (unsigned s = 0; s < kCambiScales; ++s) score += means[s] * kCambiScaleWeights[s];
  return score / pixels;
}

// ---- The extractor ------------------------------------------------------------------------------------------------

Status Cambi::init(uint32_t w, uint32_t h, unsigned bpc, const CambiOptions& opts) {
  ready_ = false;
  VMAFX_TRY(cambi_plan(w, h, bpc, opts, &plan_));
  uint32_t mw = plan_.dist.w, mh = plan_.dist.h;
  if (plan_.full_ref) {
    mw = std::max(mw, plan_.ref.w);
    mh = std::max(mh, plan_.ref.h);
  }
  stride_ = ptrdiff_t(mw);
  const size_t n = size_t(mw) * mh;
  try {
    image_.assign(n, 0);
    mask_.assign(n, 0);
    c_values_.assign(n, 0.0f);
    hist_.assign(size_t(plan_.band_size) * mw + kCambiHistPad, 0);
    mask_scratch_.assign(size_t(mw + kCambiMaskFilter) * 8, 0);
    mode_scratch_.assign(3 * size_t(mw), 0);
  } catch (const std::bad_alloc&) {
    return {Errc::out_of_memory,
            "cambi: scratch for " + std::to_string(mw) + "x" + std::to_string(mh) + " does not fit in memory"};
  }
  cambi_reciprocals();  // built here rather than on the first frame
  ready_ = true;
  return Status::ok();
}

namespace {

Status check_plane(const char* what, const Plane& p, const CambiPlan& plan) {
  const std::string name = std::string("cambi: ") + what;
  if (!p.data) return {Errc::invalid_argument, name + " plane has no data"};
  if (p.w != plan.dist.in_w || p.h != plan.dist.in_h)
    return {Errc::unsupported, name + " is " + std::to_string(p.w) + "x" + std::to_string(p.h) +
                                   ", the extractor was set up for " + std::to_string(plan.dist.in_w) + "x" +
                                   std::to_string(plan.dist.in_h)};
  if (p.bpc != plan.bpc)
    return {Errc::unsupported, name + " has bit depth " + std::to_string(p.bpc) +
                                   ", the extractor was set up for " + std::to_string(plan.bpc)};
  if (p.bytes != 1 && p.bytes != 2)
    return {Errc::invalid_argument, name + " has " + std::to_string(p.bytes) + " bytes per sample"};
  if (p.bytes == 1 && p.bpc > 8)
    return {Errc::invalid_argument, name + ": 8-bit words cannot hold " + std::to_string(p.bpc) + "-bit samples"};
  if (p.step == 0) return {Errc::invalid_argument, name + " has a sample step of 0"};
  return Status::ok();
}

}  // namespace

Status Cambi::score_picture(const Plane& pic, const CambiGeometry& g, double* raw, CambiDebug* debug) {
  if (!ready_) return {Errc::invalid_argument, "cambi: not initialised"};
  VMAFX_TRY(cambi_check_samples(pic));
  const ptrdiff_t st = stride_;
  const CambiKernels& k = cambi_kernels();
  k.preprocess(pic, g, plan_.enc_bitdepth, image_.data(), st);
  k.spatial_mask(image_.data(), st, g.w, g.h, g.mask_index, mask_.data(), st, mask_scratch_.data());
  double means[kCambiScales];
  for (unsigned s = 0; s < kCambiScales; ++s) {
    const uint32_t sw = g.scale_w[s], sh = g.scale_h[s];
    if (s > 0 || plan_.high_res_speedup) {
      k.decimate_image(image_.data(), st, sw, sh);
      k.decimate_mask(mask_.data(), st, sw, sh);
    }
    k.filter_mode(image_.data(), st, sw, sh, mode_scratch_.data());
    k.c_values(plan_, image_.data(), mask_.data(), st, sw, sh, g.pad, c_values_.data(), hist_.data());
    if (debug) {
      debug->c_values[s].assign(c_values_.begin(), c_values_.begin() + ptrdiff_t(size_t(sw) * sh));
      debug->image[s].resize(size_t(sw) * sh);
      debug->mask[s].resize(size_t(sw) * sh);
      for (uint32_t i = 0; i < sh; ++i) {
        std::memcpy(debug->image[s].data() + size_t(i) * sw, image_.data() + i * st, sw * sizeof(uint16_t));
        std::memcpy(debug->mask[s].data() + size_t(i) * sw, mask_.data() + i * st, sw);
      }
    }
    means[s] = cambi_pool(c_values_.data(), sw * sh, plan_.topk);
    if (debug) debug->scale_mean[s] = means[s];
  }
  *raw = cambi_combine(means, g.window);
  if (debug) debug->raw_score = *raw;
  return Status::ok();
}

void cambi_finish_scores(const CambiPlan& plan, double d, double r, CambiScores* out) {
  // libvmaf's MIN and MAX macros.
  auto lo = [](double a, double b) { return a < b ? a : b; };
  *out = CambiScores{};
  out->cambi = lo(d, plan.max_val);
  if (plan.full_ref) {
    out->source = lo(r, plan.max_val);
    const double combined = 0 > d - r ? 0 : d - r;
    out->full_reference = lo(combined, plan.max_val);
  }
}

Status Cambi::compute(const Plane& ref, const Plane& dist, CambiScores* out) {
  if (!ready_) return {Errc::invalid_argument, "cambi: not initialised"};
  if (!out) return {Errc::invalid_argument, "cambi: no output"};
  VMAFX_TRY(check_plane("distorted", dist, plan_));
  if (plan_.full_ref) VMAFX_TRY(check_plane("reference", ref, plan_));
  double d = 0, r = 0;
  VMAFX_TRY(score_picture(dist, plan_.dist, &d));
  if (plan_.full_ref) VMAFX_TRY(score_picture(ref, plan_.ref, &r));
  cambi_finish_scores(plan_, d, r, out);
  return Status::ok();
}

}  // namespace vmafx::cpu
