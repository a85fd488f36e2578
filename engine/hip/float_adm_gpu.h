// SPDX-License-Identifier: LGPL-2.1-or-later
// Float ADM on the GPU (kernels/float_adm.hip), bit for bit with the CPU reference (cpu/float_adm.h) for every
// option but adm_p_norm != 3 (the device's powf; measured by the GPU tests): the kernels compute every band sample and
// every contribution exactly as the CPU and sum each row in float from left to right; the row sums are read back and
// finish() adds them up in row order with the CPU's own cpu::float_adm_scale_total and cpu::float_adm_combine.
// Outputs: cpu::kFloatAdmOutputNames, in that order.
//
// Per frame, on the device's library stream: the float pictures of the frame's luma planes (read in place), per
// scale the DWT, decouple/csf, masking and row-sum kernels, then one read-back of all row sums into the slot's
// pinned memory. Every output is a plain store (nothing accumulates, nothing needs a clear); scratch bands are
// shared by the slots, the pinned read-back memory is per slot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cpu/float_adm.h"
#include "hip/device.h"
#include "hip/feature.h"
#include "hip/kernels/float_adm_impl.h"
#include "hip/module.h"

namespace vmafx::hip {

class FloatAdmGpu final : public GpuFeature {
 public:
  static constexpr unsigned kBlockX = 32;      // FADM_BLOCK_X
  static constexpr unsigned kBlockY = 8;       // FADM_BLOCK_Y
  static constexpr unsigned kRowThreads = 64;  // FADM_ROW_THREADS

  static Status create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc,
                       const cpu::FloatAdmOptions& options, unsigned slots, std::unique_ptr<FloatAdmGpu>* out,
                       const ModuleOptions& module_options = {});

  const char* name() const override { return "float_adm"; }
  size_t output_count() const override { return outputs_; }
  // finish() writes every output of cpu::kFloatAdmOutputNames (the default), or without debug only the first 7
  // (libvmaf's outputs when its debug option is off).
  void set_debug_outputs(bool debug) { outputs_ = debug ? cpu::kFloatAdmOutputs : 7; }
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  Status finish(unsigned slot, double* out) override;
  bool frame_independent() const override { return true; }

  Status enqueue_planes(const DevicePlane& ref, const DevicePlane& dist, unsigned slot);
  // The scores and row sums of the frame last finished in `slot` (tests).
  Status scores(unsigned slot, cpu::FloatAdmScores* out, cpu::FloatAdmRowSums* rows = nullptr) const;
  const cpu::FloatAdmGeometry& geometry() const { return geo_; }
  const Module& module() const { return module_; }

 private:
  FloatAdmGpu() = default;
  Status check_plane(const char* what, const DevicePlane& p) const;
  Status launch(const DevicePlane& ref, const DevicePlane& dist, unsigned slot);  // enqueue_planes, unchecked
  float* plane(unsigned i) const { return bands_.as<float>() + size_t(i) * band_plane_; }

  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<float_adm_picture_kernel_fn> picture_;
  TypedKernel<float_adm_dwt_v_kernel_fn> dwt_v_;
  TypedKernel<float_adm_dwt_h_kernel_fn> dwt_h_;
  TypedKernel<float_adm_decouple_kernel_fn> decouple_;
  TypedKernel<float_adm_cm_kernel_fn> cm_;
  TypedKernel<float_adm_rowsum_kernel_fn> rowsum_;
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 8;
  cpu::FloatAdmOptions opts_;
  cpu::FloatAdmGeometry geo_{};
  float rfactor_[cpu::kFloatAdmScales][3] = {};
  float cos_1deg_sq_ = 0;
  unsigned slots_ = 0;
  size_t pic_pitch_ = 0, band_pitch_ = 0, band_plane_ = 0;  // floats
  size_t row_offset_[cpu::kFloatAdmScales] = {};           // floats: the scale's 9 x nrows row sums
  size_t row_floats_ = 0;
  DeviceBuffer pic_;    // ref, dist float pictures
  DeviceBuffer tmp_;    // DWT vertical pass: lo ref, lo dist, hi ref, hi dist
  DeviceBuffer bands_;  // 37 band planes (see float_adm_gpu.cpp)
  DeviceBuffer rows_;
  PinnedBuffer readback_;
  std::vector<uint8_t> enqueued_;
  size_t outputs_ = cpu::kFloatAdmOutputs;
};

}  // namespace vmafx::hip
