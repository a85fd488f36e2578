// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/psnr_gpu.h"

#include <cassert>
#include <cstring>
#include <string>

#include "cpu/psnr.h"

namespace vmafx::hip {

Status PsnrGpu::create(std::shared_ptr<Device> device, uint32_t width, uint32_t height, unsigned bpc, Chroma chroma,
                       unsigned slots, std::unique_ptr<PsnrGpu>* out, const ModuleOptions& options) {
  VMAFX_TRY(cpu::psnr_check_depth(bpc));
  if (width == 0 || height == 0) return {Errc::invalid_argument, "psnr: picture of zero width or height"};
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
  p->bpc_ = bpc;
  p->slots_ = slots;
  p->planes_ = chroma == Chroma::k400 ? 1 : 3;
  p->w_[0] = width;
  p->h_[0] = height;
  for (unsigned i = 1; i < 3; ++i) {
    p->w_[i] = chroma_width(chroma, width);
    p->h_[i] = chroma_height(chroma, height);
  }
  *out = std::move(p);
  return Status::ok();
}

Status PsnrGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  // The pipeline made the frame for this geometry (with chroma when this feature reads it) and checked its planes.
  assert(slot < slots_ && frame.planes >= planes_ && frame.bpc == bpc_);
  for (unsigned p = 0; p < planes_; ++p) {
    assert(device_plane_fits(frame.ref[p], w_[p], h_[p], bpc_) && device_plane_fits(frame.dist[p], w_[p], h_[p], bpc_));
  }
  vx_u64* acc = acc_.as<vx_u64>() + size_t(slot) * 3;
  VMAFX_TRY(device_->memset_d32_async(acc, 0, 6));  // after the frame's upload (feature.h)
  for (unsigned p = 0; p < planes_; ++p) VMAFX_TRY(sse_.launch(frame.ref[p], frame.dist[p], acc + p));
  return device_->copy_async(CopyKind::device_to_host, readback_.data() + size_t(slot) * 3 * sizeof(uint64_t), acc,
                             planes_ * sizeof(uint64_t));
}

uint64_t PsnrGpu::sse(unsigned slot, unsigned plane) const {
  uint64_t v = 0;
  if (slot < slots_ && plane < 3)
    std::memcpy(&v, readback_.data() + (size_t(slot) * 3 + plane) * sizeof(uint64_t), sizeof v);
  return v;
}

Status PsnrGpu::finish(unsigned slot, double* out) {
  if (slot >= slots_) return {Errc::invalid_argument, "psnr: slot out of range"};
  for (unsigned p = 0; p < planes_; ++p) out[p] = cpu::psnr_from_sse(sse(slot, p), w_[p], h_[p], bpc_);
  return Status::ok();
}

}  // namespace vmafx::hip
