// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer VIF on the GPU (kernels/vif.hip), bit-exact with the CPU reference (cpu/vif.h): the kernels produce the
// CPU's integer sums of each scale and finish() turns them into scores with the CPU's own vif_num_den and
// vif_scale_score. Outputs, in the CPU extractor's order: integer_vif_scale0..3.
//
// Per frame, on the device's library stream: a clear of the slot's 16 accumulators, one kernel per scale (scale 0
// reads the frame's luma in place: 8-bit, or 16-bit words with a shift, any pitch; each scale below 3 writes the
// next scale's image into buffers owned here), and the read-back of the sums into the slot's pinned memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cpu/vif.h"
#include "hip/device.h"
#include "hip/feature.h"
#include "hip/kernels/vif_impl.h"
#include "hip/module.h"
#include "vmafx/status.h"

namespace vmafx::hip {

// Optional outputs of the kernels for tests: per scale, when not null,
//   filtered[s]:   5 planes of w_s x h_s uint32 (mu1, mu2, xx, yy, xy of the horizontal pass; w_s per row)
//   block_sums[s]: 4 uint64 per block (num_log, den_log, num_non_log, den_non_log as two's complement), blocks in
//                  row-major order of the grid of VifGpu::grid(s)
//   scales:        only scales 0 .. scales-1 run (timing of each scale); the sums of the others stay 0
struct VifDebugOutputs {
  void* filtered[cpu::kVifScales] = {};
  void* block_sums[cpu::kVifScales] = {};
  unsigned scales = cpu::kVifScales;
};

// How the kernels sum the horizontal pass's three moments: as 64-bit integers, or as float64 fused multiply-adds
// (exact: every product and partial sum is an integer below 2^53), which is faster where float64 runs at half
// the float32 rate (NVIDIA sm_60/70/80/90/100, AMD CDNA); `automatic` picks by the device's architecture. The sums
// are the same either way.
enum class VifMoments { automatic, integer, float64 };

// Whether `arch` (DeviceInfo::arch) runs float64 at half the float32 rate.
bool vif_fast_float64(const std::string& arch);

class VifGpu : public GpuFeature {
 public:
  static constexpr unsigned kThreads = 256;  // block size of the kernels (VIF_THREADS)
  static constexpr unsigned kTileW = 64;     // output pixels per block (VIF_TILE_W x VIF_TILE_H)
  static constexpr unsigned kTileH = 16;

  // Loads the kernels, uploads libvmaf's log2 table, allocates the images of scales 1..3 and `slots` sets of
  // accumulators and pinned read-back memory. w, h: luma size (at least cpu::kVifMinSize); bpc 8..16.
  static Status create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc,
                       const cpu::VifOptions& options, unsigned slots, std::unique_ptr<VifGpu>* out,
                       const ModuleOptions& module_options = {}, VifMoments moments = VifMoments::automatic);

  const char* name() const override { return "vif"; }
  size_t output_count() const override { return cpu::kVifScales; }
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  Status finish(unsigned slot, double* out) override;
  bool frame_independent() const override { return true; }

  // enqueue() of two luma planes, checked first (the entry point of tests and benchmarks); `debug` adds the test
  // outputs.
  Status enqueue_planes(const DevicePlane& ref, const DevicePlane& dist, unsigned slot,
                        const VifDebugOutputs* debug = nullptr);
  // The integer sums of the frame last finished in `slot` (valid once its work has completed): kVifScales entries.
  Status sums(unsigned slot, cpu::VifAccum* out) const;

  // Size of scale s (s >> 1 per scale) and the grid of its kernel.
  uint32_t width(unsigned scale) const { return w_ >> scale; }
  uint32_t height(unsigned scale) const { return h_ >> scale; }
  Dim3 grid(unsigned scale) const;
  // The device image of scale 1..3 written by the previous scale's kernel (uint16 samples).
  DevicePlane image(unsigned scale, bool distorted) const;
  const Module& module() const { return module_; }
  VifMoments moments() const { return moments_; }  // integer or float64: what create() chose

 private:
  VifGpu() = default;
  Status check_plane(const char* what, const DevicePlane& p) const;
  Status launch(const DevicePlane& ref, const DevicePlane& dist, unsigned slot, const VifDebugOutputs* debug);

  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<vif_scale_kernel_fn> kernels_[cpu::kVifScales];  // scale 0: the 8-bit or the high-bit-depth kernel
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 8;
  double enhn_gain_limit_ = cpu::kVifDefaultEnhnGainLimit;
  unsigned slots_ = 0;
  VifMoments moments_ = VifMoments::integer;
  DeviceBuffer log2_table_;
  DeviceBuffer images_;                   // scales 1..3, ref then dist of each
  size_t image_offset_[cpu::kVifScales] = {};  // byte offset of each scale's ref image; dist follows
  size_t image_pitch_[cpu::kVifScales] = {};   // elements per row
  DeviceBuffer accum_;                    // slots x kVifScales x 4 uint64
  PinnedBuffer readback_;                 // the same, in pinned host memory
  std::unique_ptr<bool[]> enqueued_;      // per slot: work has been queued
};

}  // namespace vmafx::hip
