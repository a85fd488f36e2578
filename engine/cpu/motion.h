// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer motion, the CPU reference of libvmaf 3.2's "motion" extractor (integer_motion.c, plain C path), bit-exact
// for 8..16-bit luma, with every option of libvmaf's table (MotionOptions; the output-only "debug" is the caller's).
//
// Per frame i >= 1 (i >= 2 with the five-frame window): the difference of the previous (with the five-frame window:
// the one before it) and the current REFERENCE luma, blurred by a 5-tap filter (first down the columns, then along
// the rows), summed in absolute value: the SAD. The frame's score
//   VMAF_integer_feature_motion_sad_score = min(sad / 256 / (w * h) * fps_weight, max_val), 0 for the first frames
// (and for every frame with motion_force_zero).
// libvmaf also writes that score as "VMAF_integer_feature_motion_score" (alias integer_motion), but only in debug
// mode; vmafx exposes the sad score under integer_motion too.
// At the end of the stream libvmaf derives integer_motion2 and integer_motion3 from the sad scores; MotionPost gives
// the same numbers as soon as each is final (one frame later; the first frames two later with the five-frame window).
//
// Stages for a GPU port (values are exact integers, so rows may be summed in any order):
//   motion_blur_diff_row  vertical pass of the difference for one row: int32 entries
//   motion_row_sad        horizontal pass of that row, absolute values summed in 32 bits (wrapping, as libvmaf)
//   motion_sad            sum of motion_row_sad over the rows, in 64 bits
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/plane.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

// The 5 taps (Q16, sum 65536), also VIF's scale-2 filter.
inline constexpr int kMotionFilterWidth = 5;
inline constexpr uint16_t kMotionFilter[kMotionFilterWidth] = {3571, 16004, 26386, 16004, 3571};
// Smallest picture: the mirrored neighbours of the 5-tap filter must lie inside it.
inline constexpr uint32_t kMotionMinSize = 3;
inline constexpr double kMotionMaxVal = 10000.0;
inline constexpr double kMotionBlendFactor = 1.0;
inline constexpr double kMotionBlendOffset = 40.0;
inline constexpr double kMotionFpsWeight = 1.0;

// libvmaf's motion options, with its defaults and ranges.
struct MotionOptions {
  double max_val = kMotionMaxVal;            // motion_max_val, [0, 10000]: upper clip of the sad score and motion3
  double blend_factor = kMotionBlendFactor;  // motion_blend_factor, [0, 1] (motion3's blend, see motion_blend)
  double blend_offset = kMotionBlendOffset;  // motion_blend_offset, [0, 1000]
  double fps_weight = kMotionFpsWeight;      // motion_fps_weight, [0, 5]: factor of the sad score
  bool five_frame_window = false;  // motion_five_frame_window: frame i against frame i - 2; motion2 of frame i the
                                   // smaller of the sad scores of i - 1 and i + 1
  bool moving_average = false;     // motion_moving_average: motion3 the mean of this and the previous frame's value
  bool force_zero = false;         // motion_force_zero: every score 0
};
Status motion_check_options(const MotionOptions& opt);
// How many frames back the SAD reads (1, or 2 with the five-frame window): frames before that index score 0.
inline unsigned motion_frame_distance(const MotionOptions& opt) { return opt.five_frame_window ? 2u : 1u; }

Status motion_check_size(uint32_t w, uint32_t h);
// Both planes must have the same size (>= kMotionMinSize) and bit depth (8..16), and rows that hold w samples;
// their layouts (bytes, shift, step, stride) may differ.
// motion_sad's preconditions; check them once where the pictures enter.
Status motion_check_planes(const Plane& prev_ref, const Plane& cur_ref);

// Vertical pass for row y: out[x] = (sum_k f[k] * (prev - cur)(mirror(y - 2 + k), x) + 2^(bpc-1)) >> bpc, computed
// in 64 bits (|out| < 2^16 + 1). Rows mirror without repeating the edge.
void motion_blur_diff_row(const Plane& prev_ref, const Plane& cur_ref, uint32_t y, int32_t* out);
// Horizontal pass of one row: sum_x |(sum_k f[k] * row[mirror(x - 2 + k)] + 2^15) >> 16|, summed in uint32.
uint32_t motion_row_sad(const int32_t* row, uint32_t w);

// The SAD of the blurred difference of two reference pictures, through the row functions of cpu::simd_level()
// (simd/kernels.h; the same sums as the two above); row_scratch holds w entries. Preconditions as in
// motion_check_planes; if they do not hold the result is 0.
uint64_t motion_sad(const Plane& prev_ref, const Plane& cur_ref, int32_t* row_scratch);
// min(sad / 256 / (w * h) * fps_weight, max_val), in libvmaf's order of operations (force_zero: 0).
double motion_score_from_sad(uint64_t sad, uint32_t w, uint32_t h, const MotionOptions& opt = {});

// libvmaf's motion_blend: score * factor + (1 - factor) * min(offset, score).
double motion_blend(double score, double factor, double offset);

struct MotionOut {
  uint64_t index;  // the frame index given to push
  double motion2;  // integer_motion2
  double motion3;  // integer_motion3
};

// In-order temporal post-processing of the sad scores, one per stream. libvmaf computes, at flush, for n frames
// with sad scores s[0..n-1], d = motion_frame_distance (s[i] = 0 for i < d) and clip(x) = min(blend(x), max_val):
//   motion2[i] = 0 for i < d;  for i >= d: s[i] if i = n-1, else s[i+1] if i - d + 1 < d,
//                                          else min(s[i - d + 1], s[i+1])
//   (d = 1: min(s[i], s[i+1]); d = 2: min(s[i-1], s[i+1]), s[3] for frame 2)
//   motion3[i] = stamp = (n > d ? clip(s[d]) : 0) for i < d;  for i >= d: p[i] = clip(motion2[i]) and motion3[i] =
//                p[i], or (p[i] + p[i-1]) / 2 with the moving average (p[d-1] = stamp)
// So a frame i >= d is final once s[i+1] is known, the frames before d once s[d] is, and the last frame at the end
// of the stream. The first push after construction or reset() is the stream's first frame (whatever its index);
// indices are only carried to the outputs. Outputs come out in frame order, each frame exactly once.
class MotionPost {
 public:
  explicit MotionPost(const MotionOptions& opt = {}) : opt_(opt) {}
  // Feed the sad score of the next frame; appends the frames that became final to *ready.
  void push(uint64_t index, double sad_score, std::vector<MotionOut>* ready);
  // End of stream: appends the remaining frames to *ready and resets.
  void finish(std::vector<MotionOut>* ready);
  void reset();

 private:
  double clip(double motion2) const;
  void emit(size_t back, double motion2, std::vector<MotionOut>* ready);

  MotionOptions opt_;
  uint64_t count_ = 0;       // frames pushed since reset
  // The last three frames pushed: [2] is the newest (position count_ - 1), [1] and [0] the two before it.
  uint64_t index_[3] = {0, 0, 0};
  double sad_[3] = {0, 0, 0};
  double prev_processed_ = 0.0;  // clip(motion2) of the last emitted frame (the stamp before frame d)
};

}  // namespace vmafx::cpu
