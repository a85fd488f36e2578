// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer motion: see motion.h. Widths, shifts and rounding follow libvmaf's C path (integer_motion.c,
// motion_score_pipeline_8/_16 and flush()).
#include "cpu/motion.h"

#include <string>

#include "cpu/simd/kernels.h"

namespace vmafx::cpu {

namespace {

// Mirror without repeating the edge: -k -> k, n-1+k -> n-1-k (valid for n >= kMotionMinSize).
inline int64_t mirror(int64_t i, int64_t n) {
  if (i < 0) return -i;
  if (i >= n) return 2 * n - i - 2;
  return i;
}

inline double min_of(double a, double b) { return a < b ? a : b; }

// Sample of a row at column x: word >> shift (bytes == 1 has no shift).
template <class T>
inline int32_t sample(const T* row, size_t x, size_t step, unsigned shift) {
  return int32_t(uint32_t(row[x * step]) >> shift);
}

template <class TP, class TC>
void blur_diff_row(const Plane& prev, const Plane& cur, uint32_t y, int32_t* out) {
  const int radius = kMotionFilterWidth / 2;
  const unsigned pshift = sizeof(TP) == 1 ? 0 : prev.shift;
  const unsigned cshift = sizeof(TC) == 1 ? 0 : cur.shift;
  const TP* prow[kMotionFilterWidth];
  const TC* crow[kMotionFilterWidth];
  for (int k = 0; k < kMotionFilterWidth; ++k) {
    const uint32_t r = uint32_t(mirror(int64_t(y) - radius + k, prev.h));
    prow[k] = prev.row<TP>(r);
    crow[k] = cur.row<TC>(r);
  }
  // libvmaf: 8-bit rounds by 2^7 and shifts by 8, 9..16-bit by 2^(bpc-1) and bpc: the same rule.
  const int64_t round = int64_t(1) << (prev.bpc - 1);
  const size_t ps = prev.step, cs = cur.step;
  for (uint32_t x = 0; x < prev.w; ++x) {
    int64_t accum = 0;
    for (int k = 0; k < kMotionFilterWidth; ++k) {
      const int32_t diff = sample(prow[k], x, ps, pshift) - sample(crow[k], x, cs, cshift);
      accum += int64_t(kMotionFilter[k]) * diff;
    }
    out[x] = int32_t((accum + round) >> prev.bpc);
  }
}

}  // namespace

Status motion_check_size(uint32_t w, uint32_t h) {
  if (w < kMotionMinSize || h < kMotionMinSize)
    return {Errc::unsupported, "motion needs at least " + std::to_string(kMotionMinSize) + "x" +
                                   std::to_string(kMotionMinSize) + " luma samples, got " + std::to_string(w) + "x" +
                                   std::to_string(h)};
  return Status::ok();
}

Status motion_check_planes(const Plane& prev_ref, const Plane& cur_ref) {
  VMAFX_TRY(motion_check_size(cur_ref.w, cur_ref.h));
  if (!prev_ref.data || !cur_ref.data) return {Errc::invalid_argument, "motion: a reference plane has no data"};
  if (prev_ref.w != cur_ref.w || prev_ref.h != cur_ref.h)
    return {Errc::unsupported, "motion: previous reference is " + std::to_string(prev_ref.w) + "x" +
                                   std::to_string(prev_ref.h) + ", current is " + std::to_string(cur_ref.w) + "x" +
                                   std::to_string(cur_ref.h)};
  if (prev_ref.bpc != cur_ref.bpc || cur_ref.bpc < 8 || cur_ref.bpc > 16)
    return {Errc::unsupported, "motion: bit depths " + std::to_string(prev_ref.bpc) + " and " +
                                   std::to_string(cur_ref.bpc) + " (must be equal, 8..16)"};
  for (const Plane* p : {&prev_ref, &cur_ref}) {
    if ((p->bytes != 1 && p->bytes != 2) || (p->bytes == 1 && p->bpc > 8) || p->step == 0 || p->shift > 15)
      return {Errc::invalid_argument, "motion: unsupported sample layout (bytes " + std::to_string(p->bytes) +
                                          ", step " + std::to_string(p->step) + ", shift " +
                                          std::to_string(p->shift) + ")"};
    const uint64_t row_bytes = (uint64_t(p->w - 1) * p->step + 1) * p->bytes;
    const uint64_t abs_stride = p->stride < 0 ? uint64_t(-p->stride) : uint64_t(p->stride);
    if (abs_stride < row_bytes)
      return {Errc::invalid_argument, "motion: stride " + std::to_string(p->stride) + " does not hold a row of " +
                                          std::to_string(row_bytes) + " bytes"};
  }
  return Status::ok();
}

void motion_blur_diff_row(const Plane& prev_ref, const Plane& cur_ref, uint32_t y, int32_t* out) {
  if (prev_ref.bytes == 1) {
    if (cur_ref.bytes == 1)
      blur_diff_row<uint8_t, uint8_t>(prev_ref, cur_ref, y, out);
    else
      blur_diff_row<uint8_t, uint16_t>(prev_ref, cur_ref, y, out);
  } else {
    if (cur_ref.bytes == 1)
      blur_diff_row<uint16_t, uint8_t>(prev_ref, cur_ref, y, out);
    else
      blur_diff_row<uint16_t, uint16_t>(prev_ref, cur_ref, y, out);
  }
}

uint32_t motion_row_sad(const int32_t* row, uint32_t w) {
  const int radius = kMotionFilterWidth / 2;
  uint32_t sad = 0;
  for (uint32_t x = 0; x < w; ++x) {
    int64_t accum = 0;
    for (int k = 0; k < kMotionFilterWidth; ++k)
      accum += int64_t(kMotionFilter[k]) * row[mirror(int64_t(x) - radius + k, w)];
    const int32_t v = int32_t((accum + (int64_t(1) << 15)) >> 16);
    sad += uint32_t(v < 0 ? -v : v);
  }
  return sad;
}

uint64_t motion_sad(const Plane& prev_ref, const Plane& cur_ref, int32_t* row_scratch) {
  if (!row_scratch || !motion_check_planes(prev_ref, cur_ref)) return 0;
  // The rows' functions of cpu::simd_level() (simd/kernels.h): the same results as the scalar ones above.
  const MotionKernels& k = motion_kernels();
  uint64_t sad = 0;
  for (uint32_t y = 0; y < cur_ref.h; ++y) {
    k.blur_diff_row(prev_ref, cur_ref, y, row_scratch);
    sad += k.row_sad(row_scratch, cur_ref.w);
  }
  return sad;
}

Status motion_check_options(const MotionOptions& opt) {
  auto out_of = [](const char* name, double v, double lo, double hi) -> Status {
    if (v >= lo && v <= hi) return Status::ok();
    return {Errc::invalid_argument, std::string("motion: ") + name + " " + std::to_string(v) + " is outside [" +
                                        std::to_string(lo) + ", " + std::to_string(hi) + "]"};
  };
  VMAFX_TRY(out_of("motion_max_val", opt.max_val, 0.0, 10000.0));
  VMAFX_TRY(out_of("motion_blend_factor", opt.blend_factor, 0.0, 1.0));
  VMAFX_TRY(out_of("motion_blend_offset", opt.blend_offset, 0.0, 1000.0));
  VMAFX_TRY(out_of("motion_fps_weight", opt.fps_weight, 0.0, 5.0));
  return Status::ok();
}

double motion_score_from_sad(uint64_t sad, uint32_t w, uint32_t h, const MotionOptions& opt) {
  if (opt.force_zero) return 0.0;
  // libvmaf multiplies w and h as unsigned int before widening.
  const uint32_t pixels = w * h;
  return min_of(double(sad) / 256. / pixels * opt.fps_weight, opt.max_val);
}

double motion_blend(double score, double factor, double offset) {
  return score * factor + (1 - factor) * min_of(offset, score);
}

// ---- MotionPost ------------------------------------------------------------------------------------------------

double MotionPost::clip(double motion2) const {
  return min_of(motion_blend(motion2, opt_.blend_factor, opt_.blend_offset), opt_.max_val);
}

// Emits the frame `back` places before the newest one (0 = newest) with its motion2; motion3 follows libvmaf.
void MotionPost::emit(size_t back, double motion2, std::vector<MotionOut>* ready) {
  const double processed = clip(motion2);
  const double motion3 = opt_.moving_average ? (processed + prev_processed_) / 2.0 : processed;
  prev_processed_ = processed;
  ready->push_back({index_[2 - back], motion2, motion3});
}

void MotionPost::push(uint64_t index, double sad_score, std::vector<MotionOut>* ready) {
  index_[0] = index_[1];
  index_[1] = index_[2];
  index_[2] = index;
  sad_[0] = sad_[1];
  sad_[1] = sad_[2];
  sad_[2] = sad_score;
  const uint64_t k = count_++;  // position of this frame
  const uint64_t d = motion_frame_distance(opt_);
  if (k == d) {
    // Frames before d: motion2 0, motion3 the stamp from this frame's sad score.
    const double stamp = clip(sad_score);
    for (uint64_t e = 0; e < d; ++e) ready->push_back({index_[2 - (k - e)], 0.0, stamp});
    prev_processed_ = stamp;
  } else if (k > d) {
    // Frame e = k - 1 >= d now has its successor; its predecessor counts from position 2 d - 1 on.
    const uint64_t e = k - 1;
    const double hi = sad_[2];
    double motion2 = hi;
    if (e + 1 >= 2 * d) {
      const double lo = sad_[2 - (k - (e - d + 1))];
      motion2 = lo < hi ? lo : hi;
    }
    emit(1, motion2, ready);
  }
}

void MotionPost::finish(std::vector<MotionOut>* ready) {
  const uint64_t d = motion_frame_distance(opt_);
  if (count_ > 0 && count_ <= d) {
    // Too short for a stamp: every frame is 0.
    for (uint64_t e = 0; e < count_; ++e) ready->push_back({index_[2 - (count_ - 1 - e)], 0.0, 0.0});
  } else if (count_ > d) {
    emit(0, sad_[2], ready);  // the last frame has no successor: motion2 is its own sad score
  }
  reset();
}

void MotionPost::reset() {
  count_ = 0;
  for (int i = 0; i < 3; ++i) {
    index_[i] = 0;
    sad_[i] = 0.0;
  }
  prev_processed_ = 0.0;
}

}  // namespace vmafx::cpu
