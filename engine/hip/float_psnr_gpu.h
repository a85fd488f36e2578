// SPDX-License-Identifier: LGPL-2.1-or-later
// float_psnr, float_moment and float_ansnr on the GPU, bit for bit with the CPU reference (cpu/float_psnr.h,
// cpu/float_ansnr.h), reading the luma planes the pipeline shares:
//   FloatSumsGpu   float_psnr or float_moment (kernels/float_psnr.hip): every pixel's terms as integer counts of
//                  their unit, summed exactly in 64 bits; finish() turns the sums into libvmaf's doubles (exact where
//                  cpu::float_sums_exact holds, which create() requires: larger 16-bit pictures stay on the CPU) and
//                  finishes with the CPU's cpu::float_psnr_from_sum / cpu::float_moment_from_sum.
//   FloatAnsnrGpu  float_ansnr (kernels/float_ansnr.hip): the filtered pixels' terms, each row summed in float by
//                  one thread in the CPU's order, the rows read back and added by cpu::float_ansnr_from_rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cpu/float_psnr.h"
#include "hip/device.h"
#include "hip/feature.h"
#include "hip/kernels/float_ansnr_impl.h"
#include "hip/kernels/float_psnr_impl.h"
#include "hip/module.h"

namespace vmafx::hip {

class FloatSumsGpu final : public GpuFeature {
 public:
  enum class Kind { psnr, moment };
  // Errc::unsupported where the 64-bit sums would not equal libvmaf's doubles (16 bits from 2^21 pixels).
  static Status create(std::shared_ptr<Device> device, Kind kind, uint32_t w, uint32_t h, unsigned bpc,
                       unsigned slots, std::unique_ptr<FloatSumsGpu>* out, const ModuleOptions& module_options = {});

  const char* name() const override { return kind_ == Kind::psnr ? "float_psnr" : "float_moment"; }
  size_t output_count() const override { return kind_ == Kind::psnr ? 1 : 4; }
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  Status finish(unsigned slot, double* out) override;
  bool frame_independent() const override { return true; }
  // The sums read back for `slot` (tests): FPS_SUMS counts.
  std::vector<uint64_t> sums(unsigned slot) const;

 private:
  FloatSumsGpu() = default;
  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<float_psnr_sums_kernel_fn> kernel_;
  Kind kind_ = Kind::psnr;
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 8, slots_ = 0;
  cpu::FloatPsnrParams params_;
  DeviceBuffer acc_;       // FPS_SUMS uint64 per slot
  PinnedBuffer readback_;  // the same
};

class FloatAnsnrGpu final : public GpuFeature {
 public:
  static Status create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc, unsigned slots,
                       std::unique_ptr<FloatAnsnrGpu>* out, const ModuleOptions& module_options = {});

  const char* name() const override { return "float_ansnr"; }
  size_t output_count() const override { return 2; }
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  Status finish(unsigned slot, double* out) override;
  bool frame_independent() const override { return true; }
  // The rows' sums read back for `slot` (tests): 2 floats per row, cpu::FloatAnsnr::row_sums' layout.
  std::vector<float> row_sums(unsigned slot) const;

 private:
  FloatAnsnrGpu() = default;
  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<float_ansnr_terms_kernel_fn> terms_;
  TypedKernel<float_ansnr_rows_kernel_fn> rows_;
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 8, slots_ = 0;
  cpu::FloatPsnrParams params_;
  DeviceBuffer terms_buf_;  // sig, noise: w x h floats each
  DeviceBuffer rows_buf_;   // 2 h floats
  PinnedBuffer readback_;   // 2 h floats per slot
};

}  // namespace vmafx::hip
