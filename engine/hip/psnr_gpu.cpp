// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/psnr_gpu.h"

#include <cassert>
#include <cstring>
#include <string>

#include "cpu/psnr.h"

namespace vmafx::hip {

Status PsnrGpu::create(std::shared_ptr<Device> device, uint32_t width, uint32_t height, unsigned bpc, Chroma chroma,
                       unsigned slots, std::unique_ptr<PsnrGpu>* out, const ModuleOptions& options) {
  if (width == 0 || height == 0) return {Errc::invalid_argument, "psnr: picture of zero width or height"};
  cpu::PsnrPlan plan;
  VMAFX_TRY(cpu::psnr_plan(width, height, bpc, chroma, cpu::PsnrOptions{}, &plan));
  return create(std::move(device), plan, slots, out, options);
}

Status PsnrGpu::create(std::shared_ptr<Device> device, const cpu::PsnrPlan& plan, unsigned slots,
                       std::unique_ptr<PsnrGpu>* out, const ModuleOptions& options) {
  const unsigned bpc = plan.bpc;
  const uint32_t width = plan.w[0];
  VMAFX_TRY(cpu::psnr_check_depth(bpc));
  if (width == 0 || plan.h[0] == 0) return {Errc::invalid_argument, "psnr: picture of zero width or height"};
  if (bpc == 8 && width > kMaxWidth8Bit)
    return {Errc::unsupported, "psnr on the GPU: 8-bit rows wider than " + std::to_string(kMaxWidth8Bit) +
                                   " samples (libvmaf's 32-bit row sum wraps there)"};
  if (slots == 0) return {Errc::invalid_argument, "psnr: no frame slots"};
  auto p = std::unique_ptr<PsnrGpu>(new PsnrGpu());
  VMAFX_TRY(PsnrSse::create(device, &p->sse_, options));
  VMAFX_TRY(DeviceBuffer::create(device, size_t(slots) * 3 * sizeof(uint64_t), &p->acc_));
  VMAFX_TRY(PinnedBuffer::create(device, size_t(slots) * 3 * sizeof(uint64_t), &p->readback_));
  std::memset(p->readback_.data(), 0, p->readback_.size());
  p->device_ = std::move(device);
  p->plan_ = plan;
  p->slots_ = slots;
  *out = std::move(p);
  return Status::ok();
}

Status PsnrGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  // The pipeline made the frame for this geometry (with chroma when this feature reads it) and checked its planes.
  const unsigned planes = plan_.planes;
  assert(slot < slots_ && frame.planes >= planes && frame.bpc == plan_.bpc);
  for (unsigned p = 0; p < planes; ++p) {
    assert(device_plane_fits(frame.ref[p], plan_.w[p], plan_.h[p], plan_.bpc) &&
           device_plane_fits(frame.dist[p], plan_.w[p], plan_.h[p], plan_.bpc));
  }
  vx_u64* acc = acc_.as<vx_u64>() + size_t(slot) * 3;
  VMAFX_TRY(device_->memset_d32_async(acc, 0, 6));  // after the frame's upload (feature.h)
  for (unsigned p = 0; p < planes; ++p) VMAFX_TRY(sse_.launch(frame.ref[p], frame.dist[p], acc + p));
  return device_->copy_async(CopyKind::device_to_host, readback_.data() + size_t(slot) * 3 * sizeof(uint64_t), acc,
                             planes * sizeof(uint64_t));
}

uint64_t PsnrGpu::sse(unsigned slot, unsigned plane) const {
  uint64_t v = 0;
  if (slot < slots_ && plane < 3)
    std::memcpy(&v, readback_.data() + (size_t(slot) * 3 + plane) * sizeof(uint64_t), sizeof v);
  return v;
}

Status PsnrGpu::finish(unsigned slot, double* out) {
  if (slot >= slots_) return {Errc::invalid_argument, "psnr: slot out of range"};
  uint64_t sums[3] = {0, 0, 0};
  for (unsigned p = 0; p < plan_.planes; ++p) sums[p] = sse(slot, p);
  cpu::psnr_values(plan_, sums, out);
  return Status::ok();
}

}  // namespace vmafx::hip
