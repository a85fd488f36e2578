// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/psnr_sse.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace vmafx::hip {

Status PsnrSse::create(std::shared_ptr<Device> device, PsnrSse* out, const ModuleOptions& options) {
  VMAFX_TRY(Module::load(device, "psnr", &out->module_, options));
  VMAFX_TRY(out->module_.function("psnr_sse_kernel", &out->kernel_));
  out->device_ = std::move(device);
  return Status::ok();
}

namespace {

// What the kernel reads of two planes: one size, each plane in its own sample layout (bytes, shift, pitch, step).
Status check_pair(const DevicePlane& ref, const DevicePlane& dist) {
  if (ref.width != dist.width || ref.height != dist.height)
    return {Errc::invalid_argument, "psnr_sse_kernel: reference and distorted planes differ in size"};
  // The depth only bounds the shift here: a plane of 16-bit words holds any depth up to 16 - shift.
  const auto depth = [](const DevicePlane& p) { return p.bytes == 2 && p.shift <= 8 ? 16 - p.shift : 8u; };
  VMAFX_TRY(check_device_plane(ref, ref.width, ref.height, depth(ref), "psnr_sse_kernel: reference plane"));
  return check_device_plane(dist, ref.width, ref.height, depth(dist), "psnr_sse_kernel: distorted plane");
}

}  // namespace

Status PsnrSse::enqueue(const DevicePlane& ref, const DevicePlane& dist, void* sse) const {
  if (!device_) return {Errc::invalid_argument, "psnr_sse_kernel not loaded"};
  if (!sse) return {Errc::invalid_argument, "psnr_sse_kernel: null accumulator"};
  VMAFX_TRY(check_pair(ref, dist));
  return launch(ref, dist, static_cast<vx_u64*>(sse));
}

Status PsnrSse::launch(const DevicePlane& ref, const DevicePlane& dist, vx_u64* sse) const {
  assert(device_ && sse && check_pair(ref, dist).is_ok());
  if (ref.width == 0 || ref.height == 0) return Status::ok();  // an empty chroma plane (a 1-sample-wide 4:2:0 picture)
  // 64 x 4 threads; enough blocks to fill a large GPU, capped so that a 4K plane still loops a few times per thread
  // and the per-block atomics stay few.
  const Dim3 block{64, 4, 1};
  static_assert(64 * 4 == kThreads, "the block holds the kernel's PSNR_SSE_THREADS threads");
  const Dim3 grid{std::min<unsigned>((ref.width + block.x - 1) / block.x, 16u),
                  std::min<unsigned>((ref.height + block.y - 1) / block.y, 128u), 1};
  return device_->launch(kernel_, grid, block, 0, ref, dist, sse);
}

}  // namespace vmafx::hip
