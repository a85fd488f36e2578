// SPDX-License-Identifier: LGPL-2.1-or-later
// Float motion, the CPU reference of libvmaf 3.2's "float_motion" extractor (float_motion.c, motion.c,
// convolution.c, plain C path), with every option libvmaf accepts. Outputs, per frame, VMAF_feature_motion_score
// (libvmaf's debug output, on by default), VMAF_feature_motion2_score and VMAF_feature_motion3_score.
//
// Per frame: the reference's float picture (float_picture.h) blurred by a 5-tap (or 3-tap, or identity) filter,
// columns first, then rows, edges mirrored without repeating the edge sample. The frame's score s[i] (i >= 1) is
// the mean absolute difference of the blurred frames i - 1 and i: |a - b| summed in float per row, the row sums in
// float, divided in float by the pixel count. motion_add_scale1 adds the same measure of both blurred frames
// scaled to half size (libvmaf's bilinear scaler); motion_add_uv adds the chroma planes' scores.
// Temporal outputs, as libvmaf computes them (f: motion_fps_weight, M: motion_max_val, B: the blend):
//   motion[0] = 0,  motion[i] = min(s[i] f, M)
//   motion2[0] = 0, motion2[i] = min(min(s[i], s[i+1]) f, M) for 0 < i < n - 1, motion2[n-1] = min(s[n-1] f, M)
//   motion3[0] = min(B(s[1] f), M) (0 for a one-frame stream), motion3[i] = min(B(min(s[i], s[i+1]) f), M),
//   motion3[n-1] = min(B(s[n-1] f), M);  B(x) = x * blend_factor + (1 - blend_factor) * min(blend_offset, x)
// so frame i is final once frame i + 1 has been seen, or at the end of the stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpu/plane.h"
#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

struct FloatMotionOptions {
  bool force_zero = false;    // motion_force_zero: every output 0
  double fps_weight = 1.0;    // motion_fps_weight, [0, 5]
  double blend_factor = 1.0;  // motion_blend_factor, [0, 1]
  double blend_offset = 40.0; // motion_blend_offset, [0, 1000]
  bool add_scale1 = false;    // motion_add_scale1: add the score of the half-size blurred frames
  int filter_size = 5;        // motion_filter_size, [0, 9]: 1 identity, 3 the 3-tap filter, any other the 5-tap one
  bool add_uv = false;        // motion_add_uv: add the chroma planes' scores (needs chroma)
  double max_val = 10000.0;   // motion_max_val, [0, 10000]
};

// The blur filter of an option value: taps and width (5 or 3).
int float_motion_filter(int filter_size, const float** taps);
// The blur of a w x h float image (columns, then rows); tmp holds w x h floats (dst may not alias src or tmp).
void float_motion_blur(const float* taps, int fw, const float* src, ptrdiff_t stride, int w, int h, float* tmp,
                       float* dst);
// Sum over a row of |a[x] - b[x]|, in float, in order.
float float_motion_row_sad(const float* a, const float* b, int w);
// The mean of the row sums: the rows summed in float, divided in float by (float)(w * h).
float float_motion_mean(const float* rows, int w, int h);
// The half size of motion_add_scale1: (int)(n * 0.5 + 0.5).
inline int float_motion_half(int n) { return static_cast<int>(n * 0.5 + 0.5); }

struct FloatMotionOut {
  uint64_t index;   // the index given to compute()
  double motion;    // VMAF_feature_motion_score
  double motion2;   // VMAF_feature_motion2_score
  double motion3;   // VMAF_feature_motion3_score
};

// VMAF_feature_motion_score of a frame from its score: 0 for a stream's first frame (and with motion_force_zero),
// else min(score * motion_fps_weight, motion_max_val).
double float_motion_column(double score, bool first, const FloatMotionOptions& o);

// The temporal outputs from each frame's score (see above). The first push after construction or reset() is the
// stream's first frame; its score is not used. Frames come out in order, each once.
class FloatMotionPost {
 public:
  void set_options(const FloatMotionOptions& o) { opts_ = o; }
  void push(uint64_t index, double score, std::vector<FloatMotionOut>* ready);
  void finish(std::vector<FloatMotionOut>* ready);
  void reset() { count_ = 0; }

 private:
  double clip(double x) const;
  double blend(double x) const;
  FloatMotionOptions opts_;
  uint64_t count_ = 0;
  uint64_t last_index_ = 0;
  double last_score_ = 0;   // s of the last pushed frame
  double last_motion_ = 0;  // its motion output
};

// One object per stream (it keeps the previous frame's blurred planes).
class FloatMotion {
 public:
  static Status check(uint32_t w, uint32_t h, unsigned bpc, Chroma chroma, const FloatMotionOptions& o);
  Status init(uint32_t w, uint32_t h, unsigned bpc, Chroma chroma, const FloatMotionOptions& o);
  // The reference picture of the next frame (luma; uv: its two chroma planes at libvmaf's size, only with
  // motion_add_uv). Appends the frames that became final to *ready.
  Status compute(uint64_t index, const Plane& ref, const Plane* const* uv, std::vector<FloatMotionOut>* ready);
  // The score s[i] of a frame from its own and the previous frame's reference planes, without the stream state
  // (both frames blurred afresh): for callers that compute frames independently, e.g. on several threads. It
  // leaves the stream state of compute() undefined (call finish() before streaming again).
  Status pair_score(const Plane& prev, const Plane& cur, const Plane* const* prev_uv, const Plane* const* cur_uv,
                    double* score);
  // End of stream: the remaining frame; the next compute() starts a new stream.
  void finish(std::vector<FloatMotionOut>* ready);
  // The score of the last frame computed (for parity tests): s[i], 0 for a stream's first frame.
  double last_score() const { return last_score_; }
  // The blurred luma of the last frame (w x h floats, stride w).
  const float* blurred() const { return blur_[0][cur_].data(); }

 private:
  double plane_score(unsigned p);
  Status check_frame(const Plane& ref, const Plane* const* uv) const;
  void blur_plane(unsigned p, const Plane& src, unsigned parity);

  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 0;
  FloatMotionOptions opts_;
  unsigned planes_ = 1;
  uint32_t pw_[3] = {}, ph_[3] = {};
  const float* taps_ = nullptr;
  int fw_ = 5;
  std::vector<float> pic_, tmp_;
  std::vector<float> blur_[3][2];  // per plane, two frames in turn
  std::vector<float> half_[2];     // motion_add_scale1: the two half-size images
  std::vector<float> rows_;
  unsigned cur_ = 0;
  uint64_t frames_ = 0;
  double last_score_ = 0;
  FloatMotionPost post_;
};

}  // namespace vmafx::cpu
