// SPDX-License-Identifier: LGPL-2.1-or-later
// float_ssim and float_ms_ssim on the GPU (kernels/ssim.hip). Every per-pixel value (converted samples, decimated
// images, Gaussian moments, each pixel's luminance, contrast and structure terms) equals the CPU reference's
// (cpu/ssim.h, cpu/ms_ssim.h) bit for bit; the four sums over pixels are added in a fixed tree order instead of the
// CPU's row-major one (kernels/ssim_impl.h), and finish() turns them into scores with the CPU's own code (the float
// means, cpu::ms_ssim_combine). The scores equal the CPU's unless a mean lies within the sums' rounding of a float
// rounding boundary; then they differ by one float step (docs/features.md, "SSIM on the GPU", has the measured
// differences).
//
// Per frame, on the device's library stream: the luma planes of the frame (any pitch; 8-bit, or 16-bit words with a
// shift) converted to float, the scales built, per scale the row pass, the pool pass (one partial per block) and the
// final sum into this slot's device sums, then their read-back into the slot's pinned memory. Nothing is added
// atomically: every buffer is written before it is read in the same frame's work, so there is nothing to clear.
// Scratch buffers are shared by all slots (the library stream runs frames in order); only the sums are per slot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cpu/ms_ssim.h"
#include "cpu/ssim.h"
#include "hip/device.h"
#include "hip/feature.h"
#include "hip/kernels/ssim_impl.h"
#include "hip/module.h"
#include "vmafx/status.h"

namespace vmafx::hip {

// The kernels of kernels/ssim.hip with typed launchers; one scale's sums in three launches.
class SsimKernels {
 public:
  static constexpr unsigned kBlockX = 64;  // SSIM_BLOCK_X x SSIM_BLOCK_Y
  static constexpr unsigned kBlockY = 4;

  static Status load(std::shared_ptr<Device> device, const ModuleOptions& options, SsimKernels* out);

  // ref, dist: luma planes of one size (checked by the caller) into packed floats.
  Status convert(const DevicePlane& ref, const DevicePlane& dist, float divisor, float* ref_out,
                 float* dist_out) const;
  // The kw x kh low-pass at every factor-th pixel of packed w x h images into packed dw x dh images.
  Status decimate(const float* ref, const float* dist, uint32_t w, uint32_t h, const float* kernel, int kw, int kh,
                  int factor, float* ref_out, float* dist_out, uint32_t dw, uint32_t dh) const;
  // SSIM sums (ssim, l, c, s: 4 doubles at `sums`) of packed w x h images. tmp: tmp_floats(w, h); partials:
  // partial_doubles(w, h); moments: null, or 5 maps of (w - 10) x (h - 10) floats (tests).
  Status scale_sums(const float* ref, const float* dist, uint32_t w, uint32_t h, float* tmp, double* partials,
                    double* sums, float* moments = nullptr) const;

  static size_t tmp_floats(uint32_t w, uint32_t h);
  static size_t partial_doubles(uint32_t w, uint32_t h);
  const Module& module() const { return module_; }

 private:
  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<ssim_convert_kernel_fn> convert_;
  TypedKernel<ssim_decimate_kernel_fn> decimate_;
  TypedKernel<ssim_rows_kernel_fn> rows_;
  TypedKernel<ssim_pool_kernel_fn> pool_;
  TypedKernel<ssim_final_kernel_fn> final_;
};

// Tests: device buffers that receive each scale's moment maps (mu_ref, mu_dist, var_ref, var_dist, cov; 5 maps of
// (w_s - 10) x (h_s - 10) floats), when not null.
struct SsimDebugOutputs {
  void* moments[cpu::kMsSsimScales] = {};
};

class SsimGpu : public GpuFeature {
 public:
  // w, h: luma size (cpu::Ssim::check_size); bpc 8, 10, 12 or 16 (cpu::ssim_float_divisor); scale: libvmaf's
  // option (0: automatic, cpu::ssim_scale_for).
  static Status create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc, unsigned slots,
                       std::unique_ptr<SsimGpu>* out, const ModuleOptions& module_options = {}, int scale = 0);

  const char* name() const override { return "float_ssim"; }
  // What finish() writes: cpu::ssim_values of the means (default: the score alone).
  void set_report(const cpu::SsimReport& r) { report_ = r; }
  size_t output_count() const override { return cpu::ssim_value_count(report_); }
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  Status finish(unsigned slot, double* out) override;
  bool frame_independent() const override { return true; }

  // enqueue() of two luma planes, checked first (the entry point of tests and benchmarks).
  Status enqueue_planes(const DevicePlane& ref, const DevicePlane& dist, unsigned slot,
                        const SsimDebugOutputs* debug = nullptr);
  // The four sums (ssim, l, c, s) of the frame last finished in `slot`.
  Status sums(unsigned slot, double out[4]) const;

  int scale() const { return scale_; }  // the decimation factor (1: none)
  // The images SSIM is computed on (the decimated ones when scale() > 1): packed floats of image_width() x
  // image_height(), and the converted full-size ones.
  const float* image(bool distorted) const;
  const float* converted(bool distorted) const;
  uint32_t image_width() const { return sw_; }
  uint32_t image_height() const { return sh_; }
  const Module& module() const { return k_.module(); }

 private:
  SsimGpu() = default;
  Status launch(const DevicePlane& ref, const DevicePlane& dist, unsigned slot, const SsimDebugOutputs* debug);

  std::shared_ptr<Device> device_;
  SsimKernels k_;
  uint32_t w_ = 0, h_ = 0, sw_ = 0, sh_ = 0;
  unsigned bpc_ = 8;
  float divisor_ = 1.f;
  int scale_ = 1;
  unsigned slots_ = 0;
  cpu::SsimReport report_;
  DeviceBuffer box_;        // scale x scale taps when scale_ > 1
  DeviceBuffer converted_;  // ref then dist, w x h floats each
  DeviceBuffer small_;      // ref then dist, sw x sh floats each (scale_ > 1)
  DeviceBuffer tmp_, partials_;
  DeviceBuffer sums_;       // slots x 4 doubles
  PinnedBuffer readback_;
  std::unique_ptr<bool[]> enqueued_;
};

class MsSsimGpu : public GpuFeature {
 public:
  // w, h: luma size (cpu::MsSsim::check_size: at least 176x176); bpc 8, 10, 12 or 16.
  static Status create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc, unsigned slots,
                       std::unique_ptr<MsSsimGpu>* out, const ModuleOptions& module_options = {});

  const char* name() const override { return "float_ms_ssim"; }
  // What finish() writes: cpu::ms_ssim_values of the score and the per-scale means (default: the score alone).
  void set_report(const cpu::SsimReport& r) { report_ = r; }
  size_t output_count() const override { return cpu::ms_ssim_value_count(report_); }
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  Status finish(unsigned slot, double* out) override;
  bool frame_independent() const override { return true; }

  // enqueue() of two luma planes, checked first (the entry point of tests and benchmarks).
  Status enqueue_planes(const DevicePlane& ref, const DevicePlane& dist, unsigned slot,
                        const SsimDebugOutputs* debug = nullptr);
  // The per-scale sums (ssim, l, c, s) of the frame last finished in `slot`: kMsSsimScales x 4.
  Status sums(unsigned slot, double out[cpu::kMsSsimScales][4]) const;
  // The per-scale means as the CPU's last_scales() gives them.
  Status means(unsigned slot, cpu::SsimMeans out[cpu::kMsSsimScales]) const;

  uint32_t width(unsigned scale) const { return sw_[scale]; }
  uint32_t height(unsigned scale) const { return sh_[scale]; }
  // Scale s's packed float image (s = 0: the converted picture).
  const float* image(unsigned scale, bool distorted) const;
  const Module& module() const { return k_.module(); }

 private:
  MsSsimGpu() = default;
  Status launch(const DevicePlane& ref, const DevicePlane& dist, unsigned slot, const SsimDebugOutputs* debug);

  std::shared_ptr<Device> device_;
  SsimKernels k_;
  uint32_t w_ = 0, h_ = 0;
  uint32_t sw_[cpu::kMsSsimScales] = {}, sh_[cpu::kMsSsimScales] = {};
  size_t offset_[cpu::kMsSsimScales] = {};  // float offset of each scale's ref image; dist follows
  unsigned bpc_ = 8;
  float divisor_ = 1.f;
  unsigned slots_ = 0;
  cpu::SsimReport report_;
  DeviceBuffer lpf_;
  DeviceBuffer images_;
  DeviceBuffer tmp_, partials_;
  DeviceBuffer sums_;  // slots x kMsSsimScales x 4 doubles
  PinnedBuffer readback_;
  std::unique_ptr<bool[]> enqueued_;
};

}  // namespace vmafx::hip
