// SPDX-License-Identifier: LGPL-2.1-or-later
// Float motion: see float_motion.h. Arithmetic as libvmaf's C path (float_motion.c, motion.c, convolution.c).
#include "cpu/float_motion.h"

#include <cmath>
#include <new>
#include <string>

#include "cpu/float_picture.h"
#include "cpu/float_vif.h"

namespace vmafx::cpu {

namespace {

// libvmaf's filters (double literals stored as float).
const float kFilter5[5] = {static_cast<float>(0.054488685), static_cast<float>(0.244201342),
                           static_cast<float>(0.402619947), static_cast<float>(0.244201342),
                           static_cast<float>(0.054488685)};
const float kFilter3[3] = {static_cast<float>(0.166378498), static_cast<float>(0.667243004),
                           static_cast<float>(0.166378498)};
const float kFilter5NoOp[5] = {0.0f, 0.0f, 1.0f, 0.0f, 0.0f};

}  // namespace

int float_motion_filter(int filter_size, const float** taps) {
  if (filter_size == 1) {
    *taps = kFilter5NoOp;
    return 5;
  }
  if (filter_size == 3) {
    *taps = kFilter3;
    return 3;
  }
  *taps = kFilter5;
  return 5;
}

void float_motion_blur(const float* taps, int fw, const float* src, ptrdiff_t stride, int w, int h, float* tmp,
                       float* dst) {
  // libvmaf filters every column first (convolution_y_c_s into tmp), then every row; each output is the same sum
  // as VIF's filter passes (accumulator from 0, taps in order, the same mirror).
  for (int y = 0; y < h; ++y)
    float_vif_vertical_row(taps, fw, VifFilterKind::plain, src, nullptr, stride, w, h, y, tmp + ptrdiff_t(y) * w);
  for (int y = 0; y < h; ++y)
    float_vif_horizontal_row(taps, fw, tmp + ptrdiff_t(y) * w, w, dst + ptrdiff_t(y) * w);
}

float float_motion_row_sad(const float* a, const float* b, int w) {
  // libvmaf adds fabs() of the float difference in double and stores the sum as float: with 53 >= 2 * 24 + 2 bits,
  // that rounding is the float sum's own (a double-rounded float addition is correctly rounded).
  float accum = 0.0f;
  for (int x = 0; x < w; ++x) accum += std::fabs(a[x] - b[x]);
  return accum;
}

float float_motion_mean(const float* rows, int w, int h) {
  float accum = 0.0f;
  for (int y = 0; y < h; ++y) accum += rows[y];
  return accum / static_cast<float>(w * h);
}

double float_motion_column(double score, bool first, const FloatMotionOptions& o) {
  if (first || o.force_zero) return 0.0;
  const double x = score * o.fps_weight;
  return x < o.max_val ? x : o.max_val;
}

// ---- FloatMotionPost -----------------------------------------------------------------------------------------

double FloatMotionPost::clip(double x) const { return x < opts_.max_val ? x : opts_.max_val; }

double FloatMotionPost::blend(double x) const {
  const double lo = opts_.blend_offset < x ? opts_.blend_offset : x;
  return x * opts_.blend_factor + (1 - opts_.blend_factor) * lo;
}

void FloatMotionPost::push(uint64_t index, double score, std::vector<FloatMotionOut>* ready) {
  if (opts_.force_zero) {
    ready->push_back({index, 0.0, 0.0, 0.0});
    return;
  }
  double motion = 0.0;
  if (count_ >= 1) {
    motion = clip(score * opts_.fps_weight);
    if (count_ == 1) {
      ready->push_back({last_index_, 0.0, 0.0, clip(blend(score * opts_.fps_weight))});
    } else {
      const double s2 = last_score_ < score ? last_score_ : score;
      ready->push_back({last_index_, last_motion_, clip(s2 * opts_.fps_weight), clip(blend(s2 * opts_.fps_weight))});
    }
  }
  last_index_ = index;
  last_score_ = score;
  last_motion_ = motion;
  ++count_;
}

void FloatMotionPost::finish(std::vector<FloatMotionOut>* ready) {
  if (!opts_.force_zero) {
    if (count_ == 1)
      ready->push_back({last_index_, 0.0, 0.0, 0.0});
    else if (count_ >= 2)
      ready->push_back({last_index_, last_motion_, clip(last_score_ * opts_.fps_weight),
                        clip(blend(last_score_ * opts_.fps_weight))});
  }
  count_ = 0;
}

// ---- FloatMotion ---------------------------------------------------------------------------------------------

Status FloatMotion::check(uint32_t w, uint32_t h, unsigned bpc, Chroma chroma, const FloatMotionOptions& o) {
  VMAFX_TRY(float_check_depth("float_motion", bpc));
  auto range = [](const char* name, double v, double lo, double hi) -> Status {
    if (!(v >= lo && v <= hi))
      return {Errc::invalid_argument, std::string("float_motion: ") + name + " " + std::to_string(v) +
                                          " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]"};
    return Status::ok();
  };
  VMAFX_TRY(range("motion_fps_weight", o.fps_weight, 0, 5));
  VMAFX_TRY(range("motion_blend_factor", o.blend_factor, 0, 1));
  VMAFX_TRY(range("motion_blend_offset", o.blend_offset, 0, 1000));
  VMAFX_TRY(range("motion_filter_size", o.filter_size, 0, 9));
  VMAFX_TRY(range("motion_max_val", o.max_val, 0, 10000));
  if (w > 32768 || h > 32768)
    return {Errc::unsupported, "float_motion: " + std::to_string(w) + "x" + std::to_string(h) +
                                   " is larger than 32768 on a side"};
  if (o.add_uv && chroma == Chroma::k400)
    return {Errc::unsupported, "float_motion: motion_add_uv needs chroma planes (the picture is 4:0:0)"};
  if (o.add_uv && o.add_scale1)
    return {Errc::unsupported,
            "float_motion: motion_add_scale1 with motion_add_uv: libvmaf reads the chroma planes with the wrong row "
            "stride there (uninitialised memory), so there is no score to match"};
  if (o.add_scale1 && float_motion_half(int(w)) > kVifBilinearMaxWidth)
    return {Errc::unsupported, "float_motion: motion_add_scale1 of " + std::to_string(w) +
                                   " columns (libvmaf's bilinear scaler takes at most " +
                                   std::to_string(kVifBilinearMaxWidth) + ")"};
  // Every plane must hold the filter's mirrored taps (2 samples on each side).
  uint32_t mw = w, mh = h;
  if (o.add_uv) {
    mw = chroma_width(chroma, w);
    mh = chroma_height(chroma, h);
  }
  const uint32_t need = 3;
  if (mw < need || mh < need)
    return {Errc::unsupported, "float_motion needs planes of at least " + std::to_string(need) + "x" +
                                   std::to_string(need) + " samples, got " + std::to_string(mw) + "x" +
                                   std::to_string(mh)};
  return Status::ok();
}

Status FloatMotion::init(uint32_t w, uint32_t h, unsigned bpc, Chroma chroma, const FloatMotionOptions& o) {
  w_ = h_ = 0;
  VMAFX_TRY(check(w, h, bpc, chroma, o));
  planes_ = o.add_uv ? 3 : 1;
  pw_[0] = w;
  ph_[0] = h;
  for (unsigned p = 1; p < 3; ++p) {
    pw_[p] = chroma_width(chroma, w);
    ph_[p] = chroma_height(chroma, h);
  }
  const size_t n = size_t(w) * h;
  try {
    pic_.assign(n, 0.0f);
    tmp_.assign(n, 0.0f);
    for (unsigned p = 0; p < planes_; ++p)
      for (auto& b : blur_[p]) b.assign(size_t(pw_[p]) * ph_[p], 0.0f);
    if (o.add_scale1)
      for (auto& b : half_) b.assign(size_t(float_motion_half(int(w))) * float_motion_half(int(h)), 0.0f);
    rows_.assign(h, 0.0f);
  } catch (const std::bad_alloc&) {
    pic_.clear();
    tmp_.clear();
    return {Errc::out_of_memory, "float_motion: buffers for " + std::to_string(w) + "x" + std::to_string(h) +
                                     " do not fit in memory"};
  }
  fw_ = float_motion_filter(o.filter_size, &taps_);
  opts_ = o;
  post_.set_options(o);
  post_.reset();
  frames_ = 0;
  cur_ = 0;
  last_score_ = 0;
  bpc_ = bpc;
  w_ = w;
  h_ = h;
  return Status::ok();
}

double FloatMotion::plane_score(unsigned p) {
  const int w = int(pw_[p]), h = int(ph_[p]);
  const float* a = blur_[p][cur_ ^ 1].data();  // the previous frame
  const float* b = blur_[p][cur_].data();
  float* rows = rows_.data();
  for (int y = 0; y < h; ++y) rows[y] = float_motion_row_sad(a + ptrdiff_t(y) * w, b + ptrdiff_t(y) * w, w);
  const float s0 = float_motion_mean(rows, w, h);
  if (!opts_.add_scale1) return s0;
  const int sw = float_motion_half(w), sh = float_motion_half(h);
  float* ha = half_[0].data();
  float* hb = half_[1].data();
  float_vif_scale_frame(VifScaleMethod::bilinear, a, w, h, w, ha, sw, sh, sw);
  float_vif_scale_frame(VifScaleMethod::bilinear, b, w, h, w, hb, sw, sh, sw);
  for (int y = 0; y < sh; ++y) rows[y] = float_motion_row_sad(ha + ptrdiff_t(y) * sw, hb + ptrdiff_t(y) * sw, sw);
  const float s1 = float_motion_mean(rows, sw, sh);
  return s0 + s1;
}

Status FloatMotion::check_frame(const Plane& ref, const Plane* const* uv) const {
  VMAFX_TRY(float_check_plane("float_motion", "reference", ref, w_, h_, bpc_));
  if (planes_ == 3) {
    if (!uv || !uv[0] || !uv[1])
      return {Errc::invalid_argument, "float_motion: motion_add_uv needs the two chroma planes"};
    VMAFX_TRY(float_check_plane("float_motion", "reference Cb", *uv[0], pw_[1], ph_[1], bpc_));
    VMAFX_TRY(float_check_plane("float_motion", "reference Cr", *uv[1], pw_[2], ph_[2], bpc_));
  }
  return Status::ok();
}

void FloatMotion::blur_plane(unsigned p, const Plane& src, unsigned parity) {
  float_picture_copy(src, pic_.data(), ptrdiff_t(pw_[p]));
  float_motion_blur(taps_, fw_, pic_.data(), ptrdiff_t(pw_[p]), int(pw_[p]), int(ph_[p]), tmp_.data(),
                    blur_[p][parity].data());
}

Status FloatMotion::compute(uint64_t index, const Plane& ref, const Plane* const* uv,
                            std::vector<FloatMotionOut>* ready) {
  if (!w_) return {Errc::invalid_argument, "float_motion: compute called before a successful init"};
  if (!ready) return {Errc::invalid_argument, "float_motion: no output"};
  if (opts_.force_zero) {
    post_.push(index, 0.0, ready);
    return Status::ok();
  }
  VMAFX_TRY(check_frame(ref, uv));
  cur_ ^= 1;
  for (unsigned p = 0; p < planes_; ++p) blur_plane(p, p == 0 ? ref : *uv[p - 1], cur_);
  double score = 0.0;
  if (frames_ > 0) {
    score = plane_score(0);
    for (unsigned p = 1; p < planes_; ++p) score += plane_score(p);
  }
  last_score_ = score;
  ++frames_;
  post_.push(index, score, ready);
  return Status::ok();
}

Status FloatMotion::pair_score(const Plane& prev, const Plane& cur, const Plane* const* prev_uv,
                               const Plane* const* cur_uv, double* score) {
  if (!w_) return {Errc::invalid_argument, "float_motion: pair_score called before a successful init"};
  if (!score) return {Errc::invalid_argument, "float_motion: no output"};
  if (opts_.force_zero) {
    *score = 0.0;
    return Status::ok();
  }
  VMAFX_TRY(check_frame(prev, prev_uv));
  VMAFX_TRY(check_frame(cur, cur_uv));
  cur_ = 1;
  for (unsigned p = 0; p < planes_; ++p) {
    blur_plane(p, p == 0 ? prev : *prev_uv[p - 1], 0);
    blur_plane(p, p == 0 ? cur : *cur_uv[p - 1], 1);
  }
  double s = plane_score(0);
  for (unsigned p = 1; p < planes_; ++p) s += plane_score(p);
  *score = s;
  return Status::ok();
}

void FloatMotion::finish(std::vector<FloatMotionOut>* ready) {
  if (ready) post_.finish(ready);
  post_.reset();
  frames_ = 0;
}

}  // namespace vmafx::cpu
