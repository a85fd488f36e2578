// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/psnr_sse.h"

#include <algorithm>
#include <string>

namespace vmafx::hip {

Status PsnrSse::create(std::shared_ptr<Device> device, PsnrSse* out, const ModuleOptions& options) {
  VMAFX_TRY(Module::load(device, "psnr", &out->module_, options));
  VMAFX_TRY(out->module_.function("psnr_sse_kernel", &out->kernel_));
  out->device_ = std::move(device);
  return Status::ok();
}

Status PsnrSse::enqueue(const DevicePlane& ref, const DevicePlane& dist, void* sse) const {
  if (!device_) return {Errc::invalid_argument, "psnr_sse_kernel not loaded"};
  if (ref.width != dist.width || ref.height != dist.height || ref.bytes != dist.bytes || ref.shift != dist.shift)
    return {Errc::invalid_argument, "psnr_sse_kernel: reference and distorted planes differ in size or format"};
  if (ref.bytes != 1 && ref.bytes != 2) return {Errc::unsupported, "psnr_sse_kernel: samples of 1 or 2 bytes only"};
  if (ref.bytes == 1 && ref.shift != 0) return {Errc::unsupported, "psnr_sse_kernel: no shift for 8-bit samples"};
  if (ref.shift > 15) return {Errc::invalid_argument, "psnr_sse_kernel: shift above 15"};
  if (!ref.data || !dist.data || !sse) return {Errc::invalid_argument, "psnr_sse_kernel: null plane or accumulator"};
  if (ref.step == 0 || dist.step == 0) return {Errc::invalid_argument, "psnr_sse_kernel: sample step 0"};
  if (ref.width == 0 || ref.height == 0) return Status::ok();
  const size_t row = size_t(ref.width - 1) * ref.step * ref.bytes + ref.bytes;
  const size_t drow = size_t(dist.width - 1) * dist.step * dist.bytes + dist.bytes;
  if (ref.pitch < row || dist.pitch < drow)
    return {Errc::out_of_range, "psnr_sse_kernel: pitch shorter than a row of the plane"};

  // 64 x 4 threads; enough blocks to fill a large GPU, capped so that a 4K plane still loops a few times per thread
  // and the per-block atomics stay few.
  const Dim3 block{64, 4, 1};
  const Dim3 grid{std::min<unsigned>((ref.width + block.x - 1) / block.x, 16u),
                  std::min<unsigned>((ref.height + block.y - 1) / block.y, 128u), 1};
  const void* ref_data = ref.data;
  const void* dist_data = dist.data;
  uint64_t ref_pitch = ref.pitch, dist_pitch = dist.pitch;
  uint32_t ref_step = ref.step, dist_step = dist.step;
  uint32_t width = ref.width, height = ref.height, bytes = ref.bytes, shift = ref.shift;
  void* out = sse;
  void* args[] = {&ref_data, &ref_pitch, &ref_step, &dist_data, &dist_pitch, &dist_step,
                  &width,    &height,    &bytes,    &shift,     &out};
  return device_->launch(kernel_, grid, block, 0, args);
}

}  // namespace vmafx::hip
