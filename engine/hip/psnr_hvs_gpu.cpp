// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/psnr_hvs_gpu.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <string>

#include "cpu/psnr_hvs.h"

namespace vmafx::hip {

static_assert(cpu::kPsnrHvsStep == PSNR_HVS_STEP, "block step");

namespace {

size_t slot_bytes(size_t blocks) { return blocks * (64 * sizeof(float) + sizeof(vx_u32)); }

}  // namespace

Status PsnrHvsGpu::create(std::shared_ptr<Device> device, uint32_t width, uint32_t height, unsigned bpc, Chroma chroma,
                          unsigned slots, std::unique_ptr<PsnrHvsGpu>* out, const ModuleOptions& options) {
  if (!out) return {Errc::invalid_argument, "psnr_hvs (gpu): no output"};
  out->reset();
  if (!device) return {Errc::invalid_argument, "psnr_hvs (gpu): no device"};
  VMAFX_TRY(cpu::psnr_hvs_check(bpc, chroma).prepend("psnr_hvs (gpu)"));
  if (width == 0 || height == 0) return {Errc::invalid_argument, "psnr_hvs (gpu): picture of zero width or height"};
  if (slots == 0) return {Errc::invalid_argument, "psnr_hvs (gpu): no frame slots"};
  std::unique_ptr<PsnrHvsGpu> g(new PsnrHvsGpu());
  g->w_[0] = width;
  g->h_[0] = height;
  for (unsigned p = 1; p < 3; p++) {
    g->w_[p] = chroma_width(chroma, width);
    g->h_[p] = chroma_height(chroma, height);
  }
  for (unsigned p = 0; p < 3; p++) {
    g->bx_[p] = cpu::psnr_hvs_blocks(g->w_[p]);
    g->by_[p] = cpu::psnr_hvs_blocks(g->h_[p]);
    g->first_block_[p] = g->blocks_;
    g->blocks_ += size_t(g->bx_[p]) * g->by_[p];
  }
  // The kernel's grid is one-dimensional: a work item index per block of a plane in 32 bits.
  if (size_t(g->bx_[0]) * g->by_[0] > 0xffffffffull - PSNR_HVS_THREADS)
    return {Errc::unsupported, "psnr_hvs (gpu): " + std::to_string(width) + "x" + std::to_string(height) +
                                   " holds too many blocks"};
  g->bpc_ = bpc;
  g->slots_ = slots;
  VMAFX_TRY(Module::load(device, "psnr_hvs", &g->module_, options));
  VMAFX_TRY(g->module_.function("psnr_hvs_terms_kernel", &g->kernel_));
  const size_t blocks = g->blocks_ ? g->blocks_ : 1;  // a picture without a block still gets valid pointers
  VMAFX_TRY(DeviceBuffer::create(device, blocks * 64 * sizeof(float), &g->terms_));
  VMAFX_TRY(DeviceBuffer::create(device, blocks * sizeof(vx_u32), &g->counts_));
  VMAFX_TRY(PinnedBuffer::create(device, size_t(slots) * slot_bytes(blocks), &g->readback_));
  std::memset(g->readback_.data(), 0, g->readback_.size());
  g->device_ = std::move(device);
  *out = std::move(g);
  return Status::ok();
}

Status PsnrHvsGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  // The pipeline made the frame for this geometry, with chroma (this feature reads it), and checked its planes.
  assert(slot < slots_ && frame.planes == 3 && frame.bpc == bpc_);
  for (unsigned p = 0; p < 3; p++)
    assert(device_plane_fits(frame.ref[p], w_[p], h_[p], bpc_) && device_plane_fits(frame.dist[p], w_[p], h_[p], bpc_));
  return launch(frame.ref, frame.dist, slot);
}

Status PsnrHvsGpu::enqueue_planes(const DevicePlane ref[3], const DevicePlane dist[3], unsigned slot) {
  if (!device_) return {Errc::invalid_argument, "psnr_hvs (gpu): not created"};
  if (slot >= slots_)
    return {Errc::invalid_argument, "psnr_hvs (gpu): slot " + std::to_string(slot) + " of " + std::to_string(slots_)};
  static const char* kPlane[3] = {"Y", "Cb", "Cr"};
  for (unsigned p = 0; p < 3; p++) {
    VMAFX_TRY(check_device_plane(ref[p], w_[p], h_[p], bpc_, std::string("psnr_hvs (gpu): reference ") + kPlane[p]));
    VMAFX_TRY(check_device_plane(dist[p], w_[p], h_[p], bpc_, std::string("psnr_hvs (gpu): distorted ") + kPlane[p]));
  }
  return launch(ref, dist, slot);
}

Status PsnrHvsGpu::launch(const DevicePlane* ref, const DevicePlane* dist, unsigned slot) {
  for (unsigned p = 0; p < 3; p++) {
    const uint32_t n = bx_[p] * by_[p];
    if (n == 0) continue;  // a plane smaller than a block: no terms (its error is NaN, as the CPU's)
    PsnrHvsArgs a{};
    a.ref = ref[p];
    a.dist = dist[p];
    a.terms = terms_.as<float>() + first_block_[p] * 64;
    a.counts = counts_.as<vx_u32>() + first_block_[p];
    a.blocks_x = bx_[p];
    a.blocks_y = by_[p];
    const cpu::PsnrHvsTables& t = cpu::psnr_hvs_tables(p);
    std::memcpy(a.csf, t.csf, sizeof a.csf);
    std::memcpy(a.mask, t.mask, sizeof a.mask);
    const Dim3 grid{(n + PSNR_HVS_THREADS - 1) / PSNR_HVS_THREADS, 1, 1};
    VMAFX_TRY(device_->launch(kernel_, grid, Dim3{PSNR_HVS_THREADS, 1, 1}, 0, a));
  }
  if (blocks_ == 0) return Status::ok();
  uint8_t* dst = readback_.data() + size_t(slot) * slot_bytes(blocks_);
  VMAFX_TRY(device_->copy_async(CopyKind::device_to_host, dst, terms_.data(), blocks_ * 64 * sizeof(float)));
  return device_->copy_async(CopyKind::device_to_host, dst + blocks_ * 64 * sizeof(float), counts_.data(),
                             blocks_ * sizeof(vx_u32));
}

bool PsnrHvsGpu::sum_plane(unsigned slot, unsigned plane, float* error) const {
  assert(slot < slots_ && plane < 3);
  const uint8_t* base = readback_.data() + size_t(slot) * slot_bytes(blocks_);
  const float* terms = reinterpret_cast<const float*>(base) + first_block_[plane] * 64;
  const vx_u32* counts = reinterpret_cast<const vx_u32*>(base + blocks_ * 64 * sizeof(float)) + first_block_[plane];
  const size_t n = size_t(bx_[plane]) * by_[plane];
  // The CPU's order; the zero terms the kernel left out would not change the sum (psnr_hvs_impl.h).
  float sum = 0;
  for (size_t b = 0; b < n; b++) {
    if (counts[b] > 64) return false;
    sum = cpu::psnr_hvs_sum_terms(sum, terms + b * 64, counts[b]);
  }
  *error = cpu::psnr_hvs_error(sum, uint64_t(n) * 64, bpc_);
  return true;
}

float PsnrHvsGpu::plane_error(unsigned slot, unsigned plane) const {
  float e = NAN;
  return slot < slots_ && plane < 3 && sum_plane(slot, plane, &e) ? e : NAN;
}

Status PsnrHvsGpu::finish(unsigned slot, double* out) {
  if (slot >= slots_) return {Errc::invalid_argument, "psnr_hvs (gpu): slot out of range"};
  double error[3];
  for (unsigned p = 0; p < 3; p++) {
    float e = 0;
    if (!sum_plane(slot, p, &e))
      return {Errc::device_error, "psnr_hvs (gpu): a block count above 64 was read back (plane " + std::to_string(p) +
                                      ")"};
    error[p] = e;
  }
  out[0] = cpu::psnr_hvs_db(error[0]);
  out[1] = cpu::psnr_hvs_db(error[1]);
  out[2] = cpu::psnr_hvs_db(error[2]);
  out[3] = cpu::psnr_hvs_combined_db(error[0], error[1], error[2]);
  return Status::ok();
}

}  // namespace vmafx::hip
