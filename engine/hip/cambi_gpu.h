// SPDX-License-Identifier: LGPL-2.1-or-later
// CAMBI on the GPU (kernels/cambi.hip, stages in kernels/cambi_impl.h), bit for bit equal to the CPU reference
// (cpu/cambi.h): the same integer and float operations per pixel, c-values pooled by an exact integer top-k sum.
// finish() turns the sums into libvmaf's means where libvmaf's double summation is exact (the sum below 2^53 of its
// smallest value's last bit: every order gives the same double); otherwise it reads that scale's c-values back and
// runs the CPU reference's own quickselect and summation on them (counted by host_poolings()), so the scores are the
// CPU's in every case. Outputs, in the CPU extractor's order: Cambi_feature_cambi_score (alias cambi), and with
// full_ref cambi_source and cambi_full_reference.
//
// Per frame, on the device's library stream: clears of the selection states and the slot's results (after the
// frame's upload), per picture (the distorted luma; with full_ref the reference luma, both the frame's shared
// planes) the preprocessing, the mask, and per scale the filter, the c-values (one thread per column on the large
// scales, one block per column on the small ones: kernels/cambi_impl.h) and three pooling passes; then the
// read-back of the slot's results into pinned memory. Images, masks and keys are scratch shared by the slots (one
// stream runs them in order); the c-values are kept per slot for the host pooling.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "cpu/cambi.h"
#include "hip/device.h"
#include "hip/feature.h"
#include "hip/kernels/cambi_impl.h"
#include "hip/module.h"
#include "vmafx/status.h"

namespace vmafx::hip {

struct CambiGpuOptions {
  bool force_host_pooling = false;  // tests: pool every scale on the host (the CPU reference's path)
  // The c-values of a scale whose one-thread-per-column launch (cambi_c_values_kernel) would have fewer threads than
  // this run one block per column instead (cambi_c_values_block_kernel); -1: 4096 (EngineTuning::cambi_block_below).
  // 0: never, a huge value: always (tests run both).
  int64_t block_kernel_below = -1;
  // The column kernel's rows per chunk (1..4096); 0: from the scale's size (EngineTuning::cambi_rows).
  unsigned column_rows = 0;
};

// What a test can read back of one scale of one picture of the frame last enqueued (image, mask, keys: scratch of
// the last frame) or of a slot (c-values, pool result).
struct CambiScaleReadback {
  uint32_t w = 0, h = 0;
  std::vector<uint16_t> image;  // the filtered image
  std::vector<uint16_t> key;    // value - band_base where masked and in the band, else CAMBI_KEY_NONE
  std::vector<float> c_values;
  CambiPoolResult pool{};
};

class CambiGpu final : public GpuFeature {
 public:
  static constexpr unsigned kMaxPoolBlocks = 256;

  // w, h, bpc: the luma of the frames; options as the CPU reference takes them (cpu::cambi_plan checks them).
  static Status create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc,
                       const cpu::CambiOptions& options, unsigned slots, std::unique_ptr<CambiGpu>* out,
                       const ModuleOptions& module_options = {}, const CambiGpuOptions& gpu_options = {});

  const char* name() const override { return "cambi"; }
  size_t output_count() const override { return plan_.full_ref ? 3 : 1; }
  Status enqueue(const FramePlanes& frame, unsigned slot) override;
  Status finish(unsigned slot, double* out) override;
  bool frame_independent() const override { return true; }

  // enqueue() of the two luma planes (ref is read only with full_ref).
  Status enqueue_planes(const DevicePlane& ref, const DevicePlane& dist, unsigned slot);
  const cpu::CambiPlan& plan() const { return plan_; }
  // Scales pooled on the host so far (libvmaf's double summation not exact, or force_host_pooling).
  uint64_t host_poolings() const { return host_poolings_.load(); }
  // Tests: one scale of picture 0 (distorted) or 1 (reference), synchronously (waits for the library stream).
  Status read_scale(unsigned slot, unsigned picture, unsigned scale, CambiScaleReadback* out);
  // Tests: the full-size preprocessed image and mask of a picture of the frame last enqueued.
  Status read_full(unsigned picture, std::vector<uint16_t>* image, std::vector<uint8_t>* mask);
  const Module& module() const { return module_; }

 private:
  CambiGpu() = default;
  struct Picture {
    const cpu::CambiGeometry* g = nullptr;
    size_t pitch = 0;  // elements per row of every image, mask and key buffer of the picture
    DeviceBuffer img0, mask0, src_x, src_y;
    DeviceBuffer filtered[cpu::kCambiScales], key[cpu::kCambiScales];
    size_t cval_offset[cpu::kCambiScales] = {};  // bytes into a slot's c-values
    size_t cval_bytes = 0;                       // of all scales
  };
  Status check_plane(const char* what, const DevicePlane& p) const;
  Status launch(const DevicePlane& ref, const DevicePlane& dist, unsigned slot);  // enqueue_planes, unchecked
  Status enqueue_picture(unsigned picture, const DevicePlane& plane, unsigned slot);
  Status copy_back(void* dst, const void* src, size_t bytes);
  Status pool_on_host(unsigned slot, unsigned picture, unsigned scale, double* mean);

  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<cambi_preprocess_kernel_fn> k_pre_;
  TypedKernel<cambi_check_kernel_fn> k_check_;
  TypedKernel<cambi_mask_kernel_fn> k_mask_;
  TypedKernel<cambi_filter_kernel_fn> k_filter_;
  TypedKernel<cambi_c_values_kernel_fn> k_cval_;
  TypedKernel<cambi_c_values_block_kernel_fn> k_cval_block_;
  TypedKernel<cambi_pool1_kernel_fn> k_pool_[3];  // the three passes share one type
  cpu::CambiPlan plan_;
  CambiGpuOptions gpu_options_;
  unsigned slots_ = 0;
  unsigned pictures_ = 1;
  unsigned cval_block_ = 32;    // threads (histogram columns) per block of cambi_c_values_kernel
  uint64_t block_below_ = 4096;  // CambiGpuOptions::block_kernel_below, resolved
  unsigned column_rows_ = 0;     // the column kernel's rows per chunk (CambiGpuOptions::column_rows; 0: from the
                                 // scale's size)
  Picture pic_[2];
  DeviceBuffer recip_;
  DeviceBuffer cvals_;    // slots x pictures x (every scale's c-values)
  size_t cvals_slot_bytes_ = 0;
  DeviceBuffer states_;   // pictures x scales CambiPoolState, cleared per frame
  DeviceBuffer results_;  // slots x the slot block below
  PinnedBuffer readback_;
  // The slot block: one uint32 of sample errors per picture (padded to 8 bytes), then pictures x scales results.
  static constexpr size_t kResultsOffset = 16;
  size_t slot_bytes_ = 0;
  std::unique_ptr<bool[]> enqueued_;
  std::mutex host_mutex_;
  PinnedBuffer host_values_;  // the host pooling's read-back, allocated at its first use
  std::atomic<uint64_t> host_poolings_{0};
};

}  // namespace vmafx::hip
