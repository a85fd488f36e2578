// SPDX-License-Identifier: LGPL-2.1-or-later
// SpEED chroma on the GPU (kernels/speed.hip), bit-exact with the CPU reference engine/cpu/speed.{h,cpp}: libvmaf's
// speed_chroma_u, speed_chroma_v, speed_chroma_uv.
//
// Per frame, on the library stream, for the four chroma planes of the frame (reference and distorted Cb and Cr,
// read in place from the frame's shared planes): the prescale (when speed_prescale resamples), the antialias filter
// at every 16th sample, the local-mean subtraction, and one block per plane estimating the covariance, its
// eigenvalues and the block variances; their read-back into the slot's pinned memory. finish() turns them into the
// three scores with the CPU reference's own finishing (cpu::speed_channel_score, cpu::speed_combine), so the scores
// equal the CPU's bit for bit. The filters and resampling tables are computed on the host once (cpu::speed_filters,
// cpu::speed_scale_tables) and uploaded at create().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cpu/speed.h"
#include "hip/device.h"
#include "hip/feature.h"
#include "hip/kernels/speed_impl.h"
#include "hip/module.h"
#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::hip {

// The kernels' constants for a chroma plane of the given size and options (validated as cpu::SpeedChroma::init).
struct SpeedGpuParams {
  cpu::SpeedDims dims;
  speed::Dims kdims = {};
  speed::Filters filters = {};
  cpu::SpeedScaleTables tables;
  size_t out_floats = 0;  // per image: kOutVariance + blocks
};
Status speed_gpu_params(uint32_t luma_w, uint32_t luma_h, Chroma chroma, unsigned bpc, const cpu::SpeedOptions& opt,
                        SpeedGpuParams* out);
// The same for planes of the given dimensions (speed_temporal's luma).
Status speed_gpu_params_for(const cpu::SpeedDims& dims, const cpu::SpeedOptions& opt, SpeedGpuParams* out);
// The estimate of one image from the kernel's output (out_floats floats).
void speed_gpu_estimate(const float* out, const SpeedGpuParams& p, cpu::SpeedEstimate* e);

class SpeedGpu final : public GpuFeature {
 public:
  static constexpr size_t kOutputs = 3;  // speed_chroma_u, speed_chroma_v, speed_chroma_uv

  static Status create(std::shared_ptr<Device> device, uint32_t luma_w, uint32_t luma_h, Chroma chroma, unsigned bpc,
                       const cpu::SpeedOptions& opt, unsigned slots, std::unique_ptr<SpeedGpu>* out,
                       const ModuleOptions& module_options = {});

  const char* name() const override { return "speed_chroma"; }
  size_t output_count() const override { return kOutputs; }
  // Reads frame.ref[1..2] and frame.dist[1..2] (the pipeline must carry chroma: FeatureNeeds::chroma).
  // The pipeline has checked the frame (asserted here; check_frame() is that check).
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  // The slot, the frame's geometry and its four chroma planes (check_device_plane), as the pipeline guarantees them.
  Status check_frame(const FramePlanes& frame, unsigned slot) const;
  Status finish(unsigned slot, double* out) override;
  bool frame_independent() const override { return true; }

  // After the slot's work has finished: the estimates of ref U, ref V, dist U, dist V (tests).
  Status estimates(unsigned slot, cpu::SpeedEstimate out[speed::kImages]) const;
  // Tests: the decimated and the mean-subtracted images of the last frame queued (waits for the stream).
  Status read_stages(std::vector<float>* dec, std::vector<float>* ms);

  const Module& module() const { return module_; }
  const SpeedGpuParams& params() const { return params_; }

 private:
  SpeedGpu() = default;

  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<speed::speed_prescale_kernel_fn> prescale_k_;
  TypedKernel<speed::speed_dec_kernel_fn> dec_k_;
  TypedKernel<speed::speed_mean_kernel_fn> mean_k_;
  TypedKernel<speed::speed_estimate_kernel_fn> estimate_k_;
  uint32_t luma_w_ = 0, luma_h_ = 0;
  unsigned bpc_ = 0;
  cpu::SpeedOptions opt_;
  unsigned slots_ = 0;
  SpeedGpuParams params_;
  DeviceBuffer tables_;   // x index, x weight, y index, y weight
  DeviceBuffer scaled_;   // 4 prescaled images (with a prescale)
  DeviceBuffer dec_, ms_;  // 4 decimated images, and with the local mean subtracted
  DeviceBuffer work_;     // 4 x 3 x kN x blocks
  DeviceBuffer out_;      // 4 x out_floats
  PinnedBuffer readback_;  // 4 x out_floats per slot
};

// speed_temporal on the GPU, bit for bit with cpu::SpeedTemporal: per frame the loaded reference and distorted luma
// (kept for the next frame) and the two difference images previous - current (speed_temporal_diff_kernel), then the
// speed_chroma stages on those two images (prescale of float images, antialias at every 16th sample, local mean,
// the estimate) and finish() with the CPU's cpu::speed_channel_score. A stream's first frame (no FramePlanes::prev_ref)
// scores 0 and only loads. It keeps state between frames: one instance, frames in order (the serial lane).
class SpeedTemporalGpu final : public GpuFeature {
 public:
  static Status create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc,
                       const cpu::SpeedOptions& opt, bool use_ref_diff, unsigned slots,
                       std::unique_ptr<SpeedTemporalGpu>* out, const ModuleOptions& module_options = {});

  const char* name() const override { return "speed_temporal"; }
  size_t output_count() const override { return 1; }
  // Reads frame.ref[0] and frame.dist[0]; frame.prev_ref only says whether a previous frame exists.
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  Status finish(unsigned slot, double* out) override;
  // After the slot's work: the two difference images' estimates (tests); false for a first frame.
  bool estimates(unsigned slot, cpu::SpeedEstimate out[2]) const;
  const SpeedGpuParams& params() const { return params_; }

 private:
  SpeedTemporalGpu() = default;

  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<speed::speed_temporal_diff_kernel_fn> diff_k_;
  TypedKernel<speed::speed_prescale_float_kernel_fn> prescale_k_;
  TypedKernel<speed::speed_dec_kernel_fn> dec_k_;
  TypedKernel<speed::speed_mean_kernel_fn> mean_k_;
  TypedKernel<speed::speed_estimate_kernel_fn> estimate_k_;
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 0, slots_ = 0;
  cpu::SpeedOptions opt_;
  bool use_ref_diff_ = false;
  SpeedGpuParams params_;
  unsigned parity_ = 0;            // the image set holding the last queued frame's loaded images
  std::vector<uint8_t> first_;     // per slot: the frame was a stream's first (1), written by enqueue, read by finish
  DeviceBuffer tables_, cur_, diff_, scaled_, dec_, ms_, work_, out_;
  PinnedBuffer readback_;          // 2 x out_floats per slot
};

}  // namespace vmafx::hip
