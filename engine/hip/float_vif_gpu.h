// SPDX-License-Identifier: LGPL-2.1-or-later
// Float VIF on the GPU (kernels/float_vif.hip), bit for bit with the CPU reference (cpu/float_vif.h): the kernels
// compute every pixel's filtered values and statistic exactly as the CPU and sum each row in float from left to
// right; the row sums are read back and finish() adds them up in row order and scores them with the CPU's own
// cpu::float_vif_sum_rows and cpu::float_vif_scores. Every libvmaf option (kernel scale, prescaling with each method,
// sigma_nsq, minima, skip scale 0). Outputs: cpu::kFloatVifOutputNames, in that order.
//
// Per frame, on the device's library stream: the float picture of the frame's luma planes (read in place, any pitch,
// 8-bit or 16-bit words with a shift), prescaling, per scale the decimation, filter, statistic and row-sum kernels,
// then one read-back of all row sums into the slot's pinned memory. Nothing accumulates across launches (every
// output is a plain store), so no buffer needs a clear. Scratch images are shared by the slots (the work of a
// frame is queued after the previous frame's on the same stream); only the pinned read-back memory is per slot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cpu/float_vif.h"
#include "hip/device.h"
#include "hip/feature.h"
#include "hip/kernels/float_vif_impl.h"
#include "hip/module.h"

namespace vmafx::hip {

class FloatVifGpu final : public GpuFeature {
 public:
  static constexpr unsigned kBlockX = 32;      // FVIF_BLOCK_X
  static constexpr unsigned kBlockY = 8;       // FVIF_BLOCK_Y
  static constexpr unsigned kRowThreads = 64;  // FVIF_ROW_THREADS

  // w x h: the luma size; bpc 8, 10, 12 or 16; the options and size as cpu::FloatVif::check accepts them.
  static Status create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc,
                       const cpu::FloatVifOptions& options, unsigned slots, std::unique_ptr<FloatVifGpu>* out,
                       const ModuleOptions& module_options = {});

  const char* name() const override { return "float_vif"; }
  size_t output_count() const override { return outputs_; }
  // finish() writes every output of cpu::kFloatVifOutputNames (the default), or without debug only the first 4
  // (libvmaf's outputs when its debug option is off).
  void set_debug_outputs(bool debug) { outputs_ = debug ? cpu::kFloatVifOutputs : 4; }
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  Status finish(unsigned slot, double* out) override;
  bool frame_independent() const override { return true; }

  // enqueue() of two luma planes.
  Status enqueue_planes(const DevicePlane& ref, const DevicePlane& dist, unsigned slot);
  // The scores and row sums of the frame last finished in `slot` (tests).
  Status scores(unsigned slot, cpu::FloatVifScores* out, cpu::FloatVifRowSums* rows = nullptr) const;
  // The device image of scale s (after prescaling at s = 0) the last frame used (tests), pitch in floats.
  const float* image(unsigned scale, bool dist) const;
  size_t image_pitch(unsigned scale) const { return pitch_[scale]; }
  const cpu::FloatVifGeometry& geometry() const { return geo_; }
  const Module& module() const { return module_; }

 private:
  FloatVifGpu() = default;
  Status check_plane(const char* what, const DevicePlane& p) const;
  Status launch(const DevicePlane& ref, const DevicePlane& dist, unsigned slot);  // enqueue_planes, unchecked

  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<float_vif_picture_kernel_fn> picture_;
  TypedKernel<float_vif_scale_kernel_fn> scale_;
  TypedKernel<float_vif_vertical_kernel_fn> vertical_;
  TypedKernel<float_vif_stat_kernel_fn> stat_;
  TypedKernel<float_vif_decimate_v_kernel_fn> dec_v_;
  TypedKernel<float_vif_decimate_h_kernel_fn> dec_h_;
  TypedKernel<float_vif_rowsum_kernel_fn> rowsum_;
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 8;
  cpu::FloatVifOptions opts_;
  cpu::FloatVifGeometry geo_{};
  cpu::FloatVifStatConsts consts_{};
  bool rescale_ = false;
  unsigned slots_ = 0;
  size_t pitch_[cpu::kFloatVifScales] = {};  // floats per row of each scale's images
  size_t in_pitch_ = 0;
  size_t row_offset_[cpu::kFloatVifScales] = {};  // floats: the scale's num rows, then its den rows
  size_t row_floats_ = 0;
  int scale_k_[2] = {};  // prescaling tables: entries per column, per row
  DeviceBuffer taps_;    // kFloatVifScales x FVIF_MAX_TAPS floats
  DeviceBuffer in_;      // ref, dist float pictures before prescaling
  DeviceBuffer images_;  // per scale: ref, dist
  size_t image_offset_[cpu::kFloatVifScales] = {};  // floats
  DeviceBuffer filt_;    // mu1, mu2, xx, yy, xy, num, den at scale 0's size
  DeviceBuffer dec_;     // the decimation's vertical pass: ref, dist
  DeviceBuffer tables_;  // prescaling: column indices, column weights, row indices, row weights
  size_t table_offset_[4] = {};  // bytes
  DeviceBuffer rows_;
  PinnedBuffer readback_;
  std::vector<uint8_t> enqueued_;
  size_t outputs_ = cpu::kFloatVifOutputs;
};

}  // namespace vmafx::hip
