// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/motion_gpu.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>

#include "cpu/motion.h"

namespace vmafx::hip {

Status MotionSad::create(std::shared_ptr<Device> device, MotionSad* out, const ModuleOptions& options) {
  VMAFX_TRY(Module::load(device, "motion", &out->module_, options));
  VMAFX_TRY(out->module_.function("motion_sad_kernel", &out->kernel_));
  out->device_ = std::move(device);
  return Status::ok();
}

Status MotionSad::enqueue(const DevicePlane& prev, const DevicePlane& cur, unsigned bpc, void* sad,
                          void* row_sums) const {
  if (!device_) return {Errc::invalid_argument, "motion_sad_kernel not loaded"};
  if (!sad) return {Errc::invalid_argument, "motion_sad_kernel: null accumulator"};
  if (prev.width != cur.width || prev.height != cur.height)
    return {Errc::invalid_argument, "motion_sad_kernel: previous and current planes differ in size"};
  VMAFX_TRY(cpu::motion_check_size(cur.width, cur.height));
  if (bpc < 8 || bpc > 16) return {Errc::unsupported, "motion_sad_kernel: bit depth " + std::to_string(bpc)};
  VMAFX_TRY(check_device_plane(prev, cur.width, cur.height, bpc, "motion_sad_kernel: previous plane"));
  VMAFX_TRY(check_device_plane(cur, cur.width, cur.height, bpc, "motion_sad_kernel: current plane"));
  return launch(prev, cur, bpc, static_cast<vx_u64*>(sad), static_cast<vx_u32*>(row_sums));
}

Status MotionSad::launch(const DevicePlane& prev, const DevicePlane& cur, unsigned bpc, vx_u64* sad,
                         vx_u32* row_sums) const {
  assert(device_ && sad && device_plane_fits(prev, cur.width, cur.height, bpc) &&
         device_plane_fits(cur, cur.width, cur.height, bpc));
  // One block per kRows rows, capped (each block strides over row groups beyond the cap).
  const unsigned groups = (cur.height + kRows - 1) / kRows;
  const Dim3 grid{std::min(groups, 65535u), 1, 1};
  const Dim3 block{kThreads, 1, 1};
  return device_->launch(kernel_, grid, block, 0, prev, cur, cur.width, cur.height, bpc, sad, row_sums);
}

Status MotionGpu::create(std::shared_ptr<Device> device, uint32_t width, uint32_t height, unsigned bpc,
                         unsigned slots, std::unique_ptr<MotionGpu>* out, const ModuleOptions& options) {
  return create(std::move(device), width, height, bpc, slots, cpu::MotionOptions{}, out, options);
}

Status MotionGpu::create(std::shared_ptr<Device> device, uint32_t width, uint32_t height, unsigned bpc,
                         unsigned slots, const cpu::MotionOptions& opt, std::unique_ptr<MotionGpu>* out,
                         const ModuleOptions& options) {
  VMAFX_TRY(cpu::motion_check_size(width, height));
  VMAFX_TRY(cpu::motion_check_options(opt));
  if (bpc < 8 || bpc > 16) return {Errc::unsupported, "motion: bit depth " + std::to_string(bpc) + " outside 8..16"};
  if (slots == 0) return {Errc::invalid_argument, "motion: no frame slots"};
  auto m = std::unique_ptr<MotionGpu>(new MotionGpu());
  VMAFX_TRY(MotionSad::create(device, &m->sad_, options));
  VMAFX_TRY(DeviceBuffer::create(device, size_t(slots) * sizeof(uint64_t), &m->acc_));
  VMAFX_TRY(PinnedBuffer::create(device, size_t(slots) * sizeof(uint64_t), &m->readback_));
  std::memset(m->readback_.data(), 0, m->readback_.size());
  m->device_ = std::move(device);
  m->width_ = width;
  m->height_ = height;
  m->bpc_ = bpc;
  m->opt_ = opt;
  m->has_prev_.assign(slots, 0);
  *out = std::move(m);
  return Status::ok();
}

Status MotionGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  // The pipeline made the frame for this geometry and checked its planes.
  assert(slot < has_prev_.size() && frame.width == width_ && frame.height == height_ && frame.bpc == bpc_);
  has_prev_[slot] = 0;
  if (!frame.prev_ref) {
    with_prev_ = 0;  // the first frame of a stream
    return Status::ok();
  }
  ++with_prev_;
  const DevicePlane* prev = frame.prev_ref;
  if (opt_.five_frame_window) {
    if (with_prev_ < 2) return Status::ok();  // frame 1: no frame two back, the score is 0
    if (!frame.prev_prev_ref)
      return {Errc::unsupported, "motion: motion_five_frame_window needs the reference two frames back, which this "
                                 "pipeline does not keep"};
    prev = frame.prev_prev_ref;
  }
  if (opt_.force_zero) return Status::ok();
  vx_u64* acc = acc_.as<vx_u64>() + slot;
  VMAFX_TRY(device_->memset_d32_async(acc, 0, 2));  // after the frame's upload (feature.h)
  VMAFX_TRY(sad_.launch(*prev, frame.ref[0], bpc_, acc));
  VMAFX_TRY(device_->copy_async(CopyKind::device_to_host, readback_.data() + size_t(slot) * sizeof(uint64_t), acc,
                                sizeof(uint64_t)));
  has_prev_[slot] = 1;
  return Status::ok();
}

uint64_t MotionGpu::sad(unsigned slot) const {
  uint64_t v = 0;
  if (slot < has_prev_.size()) std::memcpy(&v, readback_.data() + size_t(slot) * sizeof(uint64_t), sizeof v);
  return v;
}

Status MotionGpu::finish(unsigned slot, double* out) {
  if (slot >= has_prev_.size()) return {Errc::invalid_argument, "motion: slot out of range"};
  out[0] = has_prev_[slot] ? cpu::motion_score_from_sad(sad(slot), width_, height_, opt_) : 0.0;
  return Status::ok();
}

}  // namespace vmafx::hip
