// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer motion, the CPU reference of libvmaf 3.2's "motion" extractor (integer_motion.c, plain C path), bit-exact
// for 8..16-bit luma, with libvmaf's default options (blend factor 1.0, blend offset 40.0, fps weight 1.0, max 10000,
// five-frame window off, moving average off, force-zero off).
//
// Per frame i >= 1: the difference of the previous and the current REFERENCE luma, blurred by a 5-tap filter (first
// down the columns, then along the rows), summed in absolute value: the SAD. The frame's score
//   VMAF_integer_feature_motion_sad_score = min(sad / 256 / (w * h), 10000), 0 for frame 0.
// libvmaf also writes that score as "VMAF_integer_feature_motion_score" (alias integer_motion), but only in debug
// mode; vmafx exposes the sad score under integer_motion too.
// At the end of the stream libvmaf derives integer_motion2 and integer_motion3 from the sad scores; MotionPost gives
// the same numbers as soon as each is final (one frame later), see below.
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
// min(sad / 256 / (w * h) * kMotionFpsWeight, kMotionMaxVal), in libvmaf's order of operations.
double motion_score_from_sad(uint64_t sad, uint32_t w, uint32_t h);

// libvmaf's motion_blend: score * factor + (1 - factor) * min(offset, score).
double motion_blend(double score, double factor, double offset);

struct MotionOut {
  uint64_t index;  // the frame index given to push
  double motion2;  // integer_motion2
  double motion3;  // integer_motion3
};

// In-order temporal post-processing of the sad scores, one per stream. libvmaf computes, at flush, for n frames
// with sad scores s[0..n-1] (s[0] = 0):
//   motion2[0] = 0;  motion2[i] = min(s[i], s[i+1]) for 1 <= i < n-1;  motion2[n-1] = s[n-1] (n >= 2)
//   motion3[i] = min(blend(motion2[i]), max) for i >= 1;  motion3[0] = min(blend(s[1]), max) if n >= 2, else 0
// So frame i is final once s[i+1] is known (frame 0 too), and the last frame at the end of the stream.
// The first push after construction or reset() is the stream's first frame (whatever its index); indices are only
// carried to the outputs. Outputs come out in frame order, each frame exactly once.
class MotionPost {
 public:
  // Feed the sad score of the next frame; appends the frames that became final to *ready.
  void push(uint64_t index, double sad_score, std::vector<MotionOut>* ready);
  // End of stream: appends the remaining frames to *ready and resets.
  void finish(std::vector<MotionOut>* ready);
  void reset();

 private:
  uint64_t count_ = 0;       // frames pushed since reset
  uint64_t last_index_ = 0;  // index of the last pushed frame (not yet emitted)
  double last_sad_ = 0.0;    // its sad score
};

}  // namespace vmafx::cpu
