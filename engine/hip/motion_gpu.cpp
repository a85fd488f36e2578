// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/motion_gpu.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "cpu/motion.h"
#include "hip/kernels/motion_impl.h"

namespace vmafx::hip {

namespace {

Status check_plane(const DevicePlane& p, unsigned bpc, const char* which) {
  const std::string name = std::string("motion_sad_kernel: ") + which;
  if (!p.data) return {Errc::invalid_argument, name + " plane has no data"};
  if (p.bytes != 1 && p.bytes != 2) return {Errc::unsupported, name + " plane: samples of 1 or 2 bytes only"};
  if (p.bytes == 1 && (bpc > 8 || p.shift != 0))
    return {Errc::unsupported, name + " plane: 8-bit storage for " + std::to_string(bpc) + "-bit samples"};
  if (p.shift > 15 || p.step == 0) return {Errc::invalid_argument, name + " plane: shift above 15 or step 0"};
  const size_t row = (size_t(p.width - 1) * p.step + 1) * p.bytes;
  if (p.pitch < row) return {Errc::out_of_range, name + " plane: pitch shorter than a row"};
  return Status::ok();
}

}  // namespace

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
  VMAFX_TRY(check_plane(prev, bpc, "previous"));
  VMAFX_TRY(check_plane(cur, bpc, "current"));

  VxMotionPlane a{static_cast<const vx_u8*>(prev.data), prev.pitch, prev.step, prev.bytes, prev.shift, 0};
  VxMotionPlane b{static_cast<const vx_u8*>(cur.data), cur.pitch, cur.step, cur.bytes, cur.shift, 0};
  uint32_t width = cur.width, height = cur.height, depth = bpc;
  void* out = sad;
  void* rows_out = row_sums;
  void* args[] = {&a, &b, &width, &height, &depth, &out, &rows_out};
  // One block per kRows rows, capped (each block strides over row groups beyond the cap).
  const unsigned groups = (height + kRows - 1) / kRows;
  const Dim3 grid{std::min(groups, 65535u), 1, 1};
  const Dim3 block{kThreads, 1, 1};
  return device_->launch(kernel_, grid, block, 0, args);
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
  if (slot >= has_prev_.size()) return {Errc::invalid_argument, "motion: slot " + std::to_string(slot) + " of " +
                                                                    std::to_string(has_prev_.size())};
  if (frame.width != width_ || frame.height != height_ || frame.bpc != bpc_)
    return {Errc::invalid_argument, "motion: frame geometry differs from the one it was created for"};
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
  uint64_t* acc = acc_.as<uint64_t>() + slot;
  VMAFX_TRY(device_->memset_d32_async(acc, 0, 2));  // after the frame's upload (seed ADR-1427)
  VMAFX_TRY(sad_.enqueue(*prev, frame.ref[0], bpc_, acc));
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
