// SPDX-License-Identifier: LGPL-2.1-or-later
// Float motion on the GPU (kernels/float_motion.hip), bit for bit with the CPU reference (cpu/float_motion.h): per
// frame the blur of the reference (kept on the device for the next frame), and the row sums of |previous - current|
// (also at half size with motion_add_scale1, also of the chroma planes with motion_add_uv), read back; finish() turns
// them into the frame's score s[i] with the CPU's cpu::float_motion_mean. One output: s[i] (0 for a stream's first
// frame), preceded with set_motion_column(true) by VMAF_feature_motion_score (cpu::float_motion_column); motion2 and
// motion3 follow in the scorer's in-order stage with cpu::FloatMotionPost, as the CPU's.
//
// A frame without FramePlanes::prev_ref starts a stream (the pipeline's first frame). Frames must be queued in order
// (the pipeline's one library stream runs them in that order). motion_force_zero queues nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cpu/float_motion.h"
#include "cpu/float_vif.h"
#include "hip/device.h"
#include "hip/feature.h"
#include "hip/kernels/float_motion_impl.h"
#include "hip/module.h"
#include "vmafx/picture.h"

namespace vmafx::hip {

class FloatMotionGpu final : public GpuFeature {
 public:
  static constexpr unsigned kBlockX = 32;      // FMOT_BLOCK_X
  static constexpr unsigned kBlockY = 8;       // FMOT_BLOCK_Y
  static constexpr unsigned kRowThreads = 64;  // FMOT_ROW_THREADS

  static Status create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc, Chroma chroma,
                       const cpu::FloatMotionOptions& options, unsigned slots, std::unique_ptr<FloatMotionGpu>* out,
                       const ModuleOptions& module_options = {});

  const char* name() const override { return "float_motion"; }
  size_t output_count() const override { return motion_column_ ? 2 : 1; }
  void set_motion_column(bool on) { motion_column_ = on; }
  // Reads frame.ref[0] (and ref[1], ref[2] with motion_add_uv: frame.planes must be 3).
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  Status finish(unsigned slot, double* out) override;

  // enqueue() of the reference planes (uv: two chroma planes, only with motion_add_uv); first: a new stream.
  Status enqueue_planes(const DevicePlane& ref, const DevicePlane* uv, bool first, unsigned slot);
  // The blurred luma of the last queued frame (tests): w x h floats, pitch() per row.
  const float* blurred() const;
  size_t pitch(unsigned plane) const { return pitch_[plane]; }
  const Module& module() const { return module_; }

 private:
  FloatMotionGpu() = default;
  Status check_plane(const char* what, const DevicePlane& p, uint32_t w, uint32_t h) const;
  Status launch(const DevicePlane& ref, const DevicePlane* uv, bool first, unsigned slot);  // unchecked
  float* blur(unsigned plane, unsigned parity) const;
  float* half(unsigned plane, unsigned parity) const;

  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<float_motion_picture_kernel_fn> picture_;
  TypedKernel<float_motion_blur_v_kernel_fn> blur_v_;
  TypedKernel<float_motion_blur_h_kernel_fn> blur_h_;
  TypedKernel<float_motion_half_kernel_fn> half_;
  TypedKernel<float_motion_rowsad_kernel_fn> rowsad_;
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 8;
  cpu::FloatMotionOptions opts_;
  unsigned planes_ = 1;
  uint32_t pw_[3] = {}, ph_[3] = {}, hw_[3] = {}, hh_[3] = {};  // plane and half-plane sizes
  size_t pitch_[3] = {}, half_pitch_[3] = {};
  int fw_ = 5;
  unsigned cur_ = 0;          // parity of the last queued frame's blurred planes
  bool have_prev_ = false;    // a frame of the current stream has been queued
  size_t row_offset_[3][2] = {};  // floats: a plane's row sums, its half-size row sums
  size_t row_floats_ = 0;
  DeviceBuffer taps_;
  DeviceBuffer work_;    // per plane: picture, tmp, blurred x 2, half x 2
  size_t work_offset_[3][6] = {};
  DeviceBuffer tables_;  // half-size bilinear tables per plane: col idx, col w, row idx, row w
  size_t table_offset_[3][4] = {};
  DeviceBuffer rows_;
  PinnedBuffer readback_;
  bool motion_column_ = false;
  std::vector<uint8_t> state_;  // per slot: 0 nothing queued, 1 a stream's first frame, 2 a score queued
};

}  // namespace vmafx::hip
