// SPDX-License-Identifier: LGPL-2.1-or-later
// GPU PSNR: PsnrGpu, the GpuFeature over PsnrSse (kernels/psnr.hip). The kernel gives each plane's sum of squared
// differences as an exact uint64; finish() turns them into the values of the CPU feature (psnr_y, psnr_cb, psnr_cr,
// and for libvmaf's options mse_*, the caps of min_sse and reduced_hbd_peak, the SSE enable_apsnr sums) with the CPU
// reference's own cpu::psnr_values, so the scores equal the CPU's bit for bit with every option.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cpu/psnr.h"
#include "hip/device.h"
#include "hip/feature.h"
#include "hip/psnr_sse.h"
#include "vmafx/picture.h"

namespace vmafx::hip {

class PsnrGpu final : public GpuFeature {
 public:
  // libvmaf's 8-bit path sums each row in 32 bits, which wraps for rows wider than this; the kernel sums in 64 bits,
  // so wider 8-bit pictures are refused (Errc::unsupported) and scored on the CPU.
  static constexpr uint32_t kMaxWidth8Bit = 66052;

  // Planes scored: Y for 4:0:0, else Y, Cb, Cr at libvmaf's (floor) chroma size. Depths 8, 10, 12, 16 (libvmaf's).
  static Status create(std::shared_ptr<Device> device, uint32_t width, uint32_t height, unsigned bpc, Chroma chroma,
                       unsigned slots, std::unique_ptr<PsnrGpu>* out, const ModuleOptions& options = {});
  // With libvmaf's options: the planes, sizes and finishing of `plan` (cpu::psnr_plan).
  static Status create(std::shared_ptr<Device> device, const cpu::PsnrPlan& plan, unsigned slots,
                       std::unique_ptr<PsnrGpu>* out, const ModuleOptions& options = {});

  const char* name() const override { return "psnr"; }
  size_t output_count() const override { return plan_.value_count(); }
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  Status finish(unsigned slot, double* out) override;
  bool frame_independent() const override { return true; }

  // The sums read back for `slot`, plane p (tests).
  uint64_t sse(unsigned slot, unsigned plane) const;

 private:
  std::shared_ptr<Device> device_;
  PsnrSse sse_;
  cpu::PsnrPlan plan_;
  unsigned slots_ = 0;
  DeviceBuffer acc_;       // 3 uint64 per slot
  PinnedBuffer readback_;  // 3 uint64 per slot
};

}  // namespace vmafx::hip
