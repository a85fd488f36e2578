// SPDX-License-Identifier: LGPL-2.1-or-later
// GPU motion: the typed launcher of kernels/motion.hip (the SAD of cpu::motion_sad) and MotionGpu, the GpuFeature
// that turns it into libvmaf's VMAF_integer_feature_motion_sad_score with the CPU reference's own
// cpu::motion_score_from_sad, under any cpu::MotionOptions. integer_motion2 / integer_motion3 stay in the scorer's
// in-order stage (cpu::MotionPost with the same options).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cpu/motion.h"
#include "hip/device.h"
#include "hip/feature.h"
#include "hip/kernels/motion_impl.h"
#include "hip/module.h"
#include "hip/plane.h"

namespace vmafx::hip {

class MotionSad {
 public:
  static constexpr unsigned kThreads = 256;  // the kernel's block size (MOTION_THREADS)
  static constexpr unsigned kRows = 4;       // rows per block (MOTION_ROWS)

  static Status create(std::shared_ptr<Device> device, MotionSad* out, const ModuleOptions& options = {});

  // Queues on the library stream: *sad += SAD of the blurred difference prev - cur (cpu::motion_sad's value). `sad`
  // is a uint64 in device memory that the caller clears after the frame's upload. Planes of equal size, at least
  // 3x3, `bpc` 8..16; their layouts (bytes, shift, step, pitch) may differ. `row_sums` (tests; device memory of
  // height uint32, or null) receives each row's 32-bit sum (cpu::motion_row_sad). Checks the planes (the entry point
  // of tests and benchmarks).
  Status enqueue(const DevicePlane& prev, const DevicePlane& cur, unsigned bpc, void* sad,
                 void* row_sums = nullptr) const;
  // The same without the checks, for planes the pipeline has checked (asserted in debug builds).
  Status launch(const DevicePlane& prev, const DevicePlane& cur, unsigned bpc, vx_u64* sad,
                vx_u32* row_sums = nullptr) const;

  const Module& module() const { return module_; }

 private:
  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<motion_sad_kernel_fn> kernel_;
};

class MotionGpu final : public GpuFeature {
 public:
  static Status create(std::shared_ptr<Device> device, uint32_t width, uint32_t height, unsigned bpc, unsigned slots,
                       std::unique_ptr<MotionGpu>* out, const ModuleOptions& options = {});
  // With libvmaf's motion options (checked as cpu::motion_check_options does).
  static Status create(std::shared_ptr<Device> device, uint32_t width, uint32_t height, unsigned bpc, unsigned slots,
                       const cpu::MotionOptions& opt, std::unique_ptr<MotionGpu>* out,
                       const ModuleOptions& options = {});

  const char* name() const override { return "motion"; }
  size_t output_count() const override { return 1; }
  // Frames come in stream order. Before the frame motion_frame_distance back exists (no frame.prev_ref; with the
  // five-frame window also the first frame that has one) and with motion_force_zero nothing is queued and finish()
  // gives 0, as libvmaf. With the five-frame window a later frame without frame.prev_prev_ref is refused
  // (Errc::unsupported): the pipeline does not keep that picture.
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  Status finish(unsigned slot, double* out) override;
  // The five-frame window counts frames in a row (with_prev_): that is state.
  bool frame_independent() const override { return !opt_.five_frame_window; }

  // The SAD read back for `slot` (tests).
  uint64_t sad(unsigned slot) const;
  const MotionSad& kernel() const { return sad_; }

 private:
  std::shared_ptr<Device> device_;
  MotionSad sad_;
  uint32_t width_ = 0, height_ = 0;
  unsigned bpc_ = 8;
  cpu::MotionOptions opt_;
  uint64_t with_prev_ = 0;   // frames in a row that had a previous reference
  DeviceBuffer acc_;         // one uint64 per slot
  PinnedBuffer readback_;    // one uint64 per slot
  std::vector<uint8_t> has_prev_;
};

}  // namespace vmafx::hip
