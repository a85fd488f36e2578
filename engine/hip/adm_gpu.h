// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer ADM on the GPU (kernels/adm.hip), bit-exact with the CPU reference engine/cpu/adm.{h,cpp}.
//
// Per frame, on the library stream: a clear of the row sums, one fused kernel per scale (DWT from the picture read
// in place at scale 0, from band a of the previous scale after; decouple, CSF, masking and denominator terms, summed
// per row), one kernel that rounds and shifts the row sums as libvmaf does and adds them (36 integers: den, DLM and
// AIM numerators, h/v/d, 4 scales), and their read-back into the slot's pinned memory. finish() turns those
// integers into scores with the CPU reference's own adm_den_finish / adm_cm_finish / adm_combine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cpu/adm.h"
#include "hip/device.h"
#include "hip/feature.h"
#include "hip/kernels/adm_impl.h"
#include "hip/module.h"
#include "vmafx/status.h"

namespace vmafx::hip {

// The integer sums of one frame: what the GPU computes, what the CPU reference's finishing functions consume.
struct AdmFrameSums {
  cpu::AdmDenSums den[4];
  cpu::AdmCmSums dlm[4];  // numerator: r masked by the CSF of a
  cpu::AdmCmSums aim[4];  // AIM numerator: a masked by the CSF of r
};

// Geometry and fixed-point constants of every scale of a w x h picture, as the kernels take them.
struct AdmGpuParams {
  adm::ScaleParams scale[4] = {};
  adm::FinishParams finish = {};
  size_t row_sums = 0;              // uint64 row sums of all scales
  float rfactor[4][3] = {};         // the CSF factors (adm_csf_factors) for the host finishing
  adm::SmallRowParams small_row = {};  // count 0 unless scale 3 has a small axis (17..32-sample pictures)
};

// Validates size, depth and options as cpu::Adm::init does and fills the constants (shifts from the same formulas
// as the CPU reference).
Status adm_gpu_params(uint32_t w, uint32_t h, unsigned bpc, const cpu::AdmOptions& opt, AdmGpuParams* out);

// The scores of a frame from its sums: the CPU reference's compute() from the sums on (adm_den_finish,
// adm_cm_finish, adm_combine, with adm_skip_scale0 / adm_skip_aim as it applies them).
cpu::AdmScores adm_gpu_scores(const AdmFrameSums& sums, const AdmGpuParams& params, uint32_t w, uint32_t h,
                              const cpu::AdmOptions& opt);

// Every intermediate of one frame (test mode), copied to the host: per scale adm::kDumpPlanes planes of w x h
// (plane k at k * w * h), in the order of adm::kDump*. Scale 0 int16, scales 1..3 int32.
struct AdmStageDump {
  int w[4] = {}, h[4] = {};
  std::vector<int16_t> scale0;
  std::vector<int32_t> scale123[3];
};

class AdmGpu final : public GpuFeature {
 public:
  static constexpr size_t kOutputs = 7;  // integer_adm2, integer_aim, integer_adm3, integer_adm_scale0..3
  static constexpr size_t kSumsPerFrame = 4 * adm::kKinds;

  // Loads the kernels and sizes every buffer for w x h pictures of `bpc` bits and `slots` frames in flight.
  static Status create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc,
                       const cpu::AdmOptions& opt, unsigned slots, std::unique_ptr<AdmGpu>* out);
  // The same with a choice of kernel image (tests: run-time compiled).
  static Status create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc,
                       const cpu::AdmOptions& opt, unsigned slots, const ModuleOptions& module_options,
                       std::unique_ptr<AdmGpu>* out);

  const char* name() const override { return "adm"; }
  size_t output_count() const override { return kOutputs; }
  // Reads frame.ref[0] / frame.dist[0] (luma; 8-bit bytes or 16-bit words with a shift, any pitch) in place. The
  // pipeline has checked them (asserted here).
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  // integer_adm2, integer_aim, integer_adm3, integer_adm_scale0..3.
  Status finish(unsigned slot, double* out) override;
  bool frame_independent() const override { return true; }

  // After the slot's work has finished: its integer sums, and every score the CPU extractor computes from them
  // (libvmaf's debug outputs included).
  Status sums(unsigned slot, AdmFrameSums* out) const;
  Status scores(unsigned slot, cpu::AdmScores* out) const;

  // Tests: checks the frame (check_frame), runs it into `slot` with every intermediate written out, waits for the
  // stream and copies the intermediates to the host. Allocates; not for the frame loop.
  Status run_with_dump(const FramePlanes& frame, unsigned slot, AdmStageDump* out);

  const Module& module() const { return module_; }
  const AdmGpuParams& params() const { return params_; }

 private:
  AdmGpu() = default;
  // The frame's slot, geometry and luma planes (check_device_plane), as the pipeline checks them.
  Status check_frame(const FramePlanes& frame, unsigned slot) const;
  Status launch(const FramePlanes& frame, unsigned slot, void* const dump[4]);

  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<adm::adm_scale0_kernel_fn> scale0_;
  TypedKernel<adm::adm_scale1_kernel_fn> scale1_;
  TypedKernel<adm::adm_scale23_kernel_fn> scale23_;
  TypedKernel<adm::adm_small_row_kernel_fn> small_row_kernel_;
  TypedKernel<adm::adm_finish_kernel_fn> finish_;
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 0;
  cpu::AdmOptions opt_;
  unsigned slots_ = 0;
  AdmGpuParams params_;
  DeviceBuffer band_a_[3];  // ref and dist band a of scales 0..2 (scale 0 int16, then int32), ref first
  DeviceBuffer rows_;       // the row sums of all scales
  DeviceBuffer totals_;     // kSumsPerFrame uint64
  DeviceBuffer small_row_;  // the reference's row -1 at scale 3 (pictures of 17..32 on an axis)
  PinnedBuffer readback_;   // kSumsPerFrame uint64 per slot
};

}  // namespace vmafx::hip
