// SPDX-License-Identifier: LGPL-2.1-or-later
// SSIMULACRA 2.1 on the GPU (kernels/ssimulacra2.hip), bit for bit with the CPU reference cpu::Ssimulacra2: per
// frame, from the frame's shared luma and chroma planes, scale 0's linear RGB of both pictures, then per scale the
// 2x2 downsampling (scales 1..5), XYB and the products, the recursive Gaussian along rows then columns of 15 planes,
// each row's sums in segments and the rows' sums, all in the CPU's arithmetic and order; the rows of every scale are
// read back into the slot's pinned memory and finish() turns them into the score with the CPU's own
// cpu::ssimulacra2_from_rows. Keeps nothing between frames (one instance per lane).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cpu/ssimulacra2.h"
#include "hip/device.h"
#include "hip/feature.h"
#include "hip/kernels/ssimulacra2_impl.h"
#include "hip/module.h"
#include "vmafx/picture.h"

namespace vmafx::hip {

class Ssimulacra2Gpu final : public GpuFeature {
 public:
  static Status create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc, Chroma chroma,
                       const cpu::Ssimulacra2Options& opt, unsigned slots, std::unique_ptr<Ssimulacra2Gpu>* out,
                       const ModuleOptions& module_options = {});

  const char* name() const override { return "ssimulacra2"; }
  size_t output_count() const override { return 1; }
  // Reads frame.ref[0..2] and frame.dist[0..2] (luma only for 4:0:0; the pipeline carries chroma otherwise).
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  Status finish(unsigned slot, double* out) override;
  bool frame_independent() const override { return true; }

  // After the slot's work: every scale's row sums (cpu::Ssimulacra2::row_sums' layout), for tests.
  std::vector<double> row_sums(unsigned slot) const;
  const cpu::Ssimulacra2Scales& scales() const { return scales_; }

 private:
  Ssimulacra2Gpu() = default;

  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<ssimulacra2_linear_kernel_fn> linear_k_;
  TypedKernel<ssimulacra2_downsample_kernel_fn> down_k_;
  TypedKernel<ssimulacra2_xyb_kernel_fn> xyb_k_;
  TypedKernel<ssimulacra2_blur_rows_kernel_fn> rows_blur_k_;
  TypedKernel<ssimulacra2_blur_cols_kernel_fn> cols_blur_k_;
  TypedKernel<ssimulacra2_segments_kernel_fn> seg_k_;
  TypedKernel<ssimulacra2_rows_kernel_fn> rows_k_;
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 8, slots_ = 0;
  Chroma chroma_ = Chroma::k420;
  S2Yuv yuv_{};
  cpu::Ssimulacra2Scales scales_;
  size_t row_doubles_ = 0;  // every scale's rows x 3 x kS2Terms
  DeviceBuffer lin_a_, lin_b_, xyb_, prod_, tmp_, blurred_, seg_, rows_;
  PinnedBuffer readback_;   // row_doubles_ per slot
};

}  // namespace vmafx::hip
