// SPDX-License-Identifier: LGPL-2.1-or-later
// The distorted picture scaled to the reference's size on the GPU (kernels/scale.hip), sample for sample what the
// CPU scaler (cpu/scale.h, FFmpeg 5.1's swscale) writes: the filters are the CPU scaler's, uploaded once.
//
// Per frame, on the device's library stream, for each plane: the horizontal pass into an intermediate buffer owned
// here, then the vertical pass into this object's output plane of the destination size. The outputs are one set of
// planes, rewritten by every enqueue(): whatever reads them must be queued on the library stream after that
// enqueue() and before the next one (the frame pipeline's order: scale, then every feature of the frame).
#pragma once

#include <cstdint>
#include <memory>

#include "cpu/scale.h"
#include "hip/device.h"
#include "hip/kernels/scale_impl.h"
#include "hip/module.h"
#include "hip/plane.h"
#include "vmafx/status.h"

namespace vmafx::hip {

class ScaleGpu {
 public:
  static constexpr unsigned kBlockX = 64;  // SCALE_BLOCK_X x SCALE_BLOCK_Y
  static constexpr unsigned kBlockY = 4;

  // Loads the kernels and uploads `scaler`'s filters; allocates the intermediate rows and the output planes (of
  // every plane of the scaler's chroma format).
  static Status create(std::shared_ptr<Device> device, const cpu::Scaler& scaler, std::unique_ptr<ScaleGpu>* out,
                       const ModuleOptions& module_options = {});

  // Queues the scaling of planes 0 .. planes-1 of `src` (device memory, the scaler's source size: luma, then chroma
  // at its stored size; 8-bit bytes or 16-bit words with a shift; any pitch; chroma may be interleaved) into
  // output(0 .. planes-1). planes: 1 (luma only) or the format's plane count. Checks the planes first (the entry
  // point of tests and benchmarks).
  Status enqueue(const DevicePlane* src, unsigned planes);
  // The same without the checks, for planes the pipeline has checked (asserted in debug builds).
  Status launch(const DevicePlane* src, unsigned planes);

  // Plane i of the destination size: 8-bit bytes or 16-bit words (shift 0, step 1), pitch a multiple of 256.
  DevicePlane output(unsigned i) const;
  unsigned plane_count() const { return planes_; }
  const Module& module() const { return module_; }

 private:
  ScaleGpu() = default;
  Status check_plane(unsigned i, const DevicePlane& p) const;

  struct Axis {
    DeviceBuffer pos, coef;
    uint32_t src = 0, dst = 0;
    int taps = 0;
  };
  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<scale_h_kernel_fn> h_kernel_;
  TypedKernel<scale_v_kernel_fn> v_kernel_;
  unsigned bpc_ = 8;
  unsigned planes_ = 1;
  unsigned vsub_[3] = {};
  uint32_t luma_rows_ = 0;
  Axis h_[2], v_[2];  // luma, chroma
  DeviceBuffer tmp_;  // intermediate rows of the largest plane
  size_t tmp_pitch_[3] = {};  // values per intermediate row of each plane
  DeviceBuffer out_[3];
  uint32_t out_w_[3] = {}, out_h_[3] = {};
};

}  // namespace vmafx::hip
