// SPDX-License-Identifier: LGPL-2.1-or-later
// GPU psnr_hvs: PsnrHvsGpu, the GpuFeature over kernels/psnr_hvs.hip. The kernel computes every 8x8 block's terms
// of the three planes exactly as the CPU reference does (psnr_hvs_impl.h) and writes each block's non-zero terms;
// they are read back and finish() adds them on the host in the CPU's order (block rows, blocks, coefficients) with
// cpu::psnr_hvs_sum_terms, then turns the sums into psnr_hvs_y, _cb, _cr and psnr_hvs with the CPU's own functions:
// the scores equal the CPU's bit for bit. The one float sum over all of a plane's terms is sequential by definition
// (libvmaf's), so it stays on the host; what crosses the bus per frame is 64 floats and a count per block (16.5 MB
// for a 1080p 4:2:0 frame), into pinned memory per slot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "hip/device.h"
#include "hip/feature.h"
#include "hip/kernels/psnr_hvs_impl.h"
#include "hip/module.h"
#include "vmafx/picture.h"

namespace vmafx::hip {

class PsnrHvsGpu final : public GpuFeature {
 public:
  // Planes Y, Cb, Cr at libvmaf's (floor) chroma size; 4:2:0, 4:2:2, 4:4:4 of 8 to 12 bits (libvmaf's limits,
  // cpu::psnr_hvs_check).
  static Status create(std::shared_ptr<Device> device, uint32_t width, uint32_t height, unsigned bpc, Chroma chroma,
                       unsigned slots, std::unique_ptr<PsnrHvsGpu>* out, const ModuleOptions& options = {});

  const char* name() const override { return "psnr_hvs"; }
  size_t output_count() const override { return 4; }
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  Status finish(unsigned slot, double* out) override;
  // Stateless, but every instance holds 16.5 MB of pinned memory per slot at 1080p (the host sums): one instance, on
  // the serial lane, rather than one per lane.

  // The entry point of tests: three planes of each picture in device memory, checked (size, layout), for `slot`.
  Status enqueue_planes(const DevicePlane ref[3], const DevicePlane dist[3], unsigned slot);
  // The float error of plane p (before the decibels) read back for `slot`, as cpu::psnr_hvs_plane_error gives it
  // (NaN also for a slot or plane out of range, or a corrupt read-back).
  float plane_error(unsigned slot, unsigned plane) const;
  const Module& module() const { return module_; }

 private:
  Status launch(const DevicePlane* ref, const DevicePlane* dist, unsigned slot);
  // The plane's error from the read-back of `slot`; false when a block count is above 64 (a device fault).
  bool sum_plane(unsigned slot, unsigned plane, float* error) const;

  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<psnr_hvs_terms_kernel_fn> kernel_;
  uint32_t w_[3] = {0, 0, 0}, h_[3] = {0, 0, 0};
  uint32_t bx_[3] = {0, 0, 0}, by_[3] = {0, 0, 0};
  size_t first_block_[3] = {0, 0, 0};  // each plane's first block in the frame's block arrays
  size_t blocks_ = 0;                  // blocks of the three planes
  unsigned bpc_ = 8;
  unsigned slots_ = 0;
  DeviceBuffer terms_;     // 64 floats per block of one frame (the library stream orders the frames' uses)
  DeviceBuffer counts_;    // one uint32 per block
  PinnedBuffer readback_;  // per slot: the terms, then the counts
};

}  // namespace vmafx::hip
