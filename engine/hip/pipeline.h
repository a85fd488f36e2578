// SPDX-License-Identifier: LGPL-2.1-or-later
// HipPipeline: one per scorer, shared by every GPU feature of that scorer (engine/hip/feature.h's GpuFeature). It
// takes frames in display order and, per frame, queues on the device's ONE library stream:
//
//   1. the planes the frame's features read, once for all of them: a host frame is copied into a slot of a pinned
//      ring (host memcpy, split over a few helper threads for large frames) and uploaded with one asynchronous copy
//      into the pipeline's device planes; a device-resident frame (PictureView.memory == device) is read in place,
//      with no copy at all;
//   2. each feature's GpuFeature::enqueue (its accumulator clears after the upload, seed ADR-1427; its kernels; the
//      asynchronous read-back of its sums into pinned memory of the frame slot);
//   3. one event for the frame slot.
//
// A completion thread waits for the slots' events in submission order, calls each feature's finish() and then the
// `done` callback of every part of the frame. Nothing synchronises the whole device per frame. Several frames are in
// flight (`slots`); submit_frame() blocks only while every slot is still busy. The host copy of frame N+1 into the
// pinned ring overlaps the device's work on frame N.
//
// Motion reads the previous frame's reference luma: a host frame's stays in the pipeline's device planes (two plane
// sets alternate, so frame N's set is intact while frame N+1 runs), a device frame's is the caller's memory (the
// scorer keeps the previous frame until this one has finished). Nothing is uploaded twice.
//
// Failures: every runtime call is checked (VMAFX_HIP_CHECK through Device); a device failure is sticky (Device) and
// is handed to the `done` of every pending part, so the scorer fails with a Status naming the call.
//
// Debugging: VMAFX_HIP_PLANT=clear_before_upload queues every feature's work (its clears first) ahead of the frame's
// upload; VMAFX_HIP_PLANT=skip_wait finishes frames without waiting for their event. Both are planted defects the
// parity tests must see (tests/gpu/test_hip_scorer.cpp); never set them otherwise.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "hip/device.h"
#include "hip/feature.h"
#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::hip {

// What a feature reads of each frame (luma of the reference always).
struct FeatureNeeds {
  bool dist = true;       // the distorted luma
  bool chroma = false;    // Cb and Cr of both pictures
  bool prev_ref = false;  // the previous frame's reference luma
};

struct PipelineConfig {
  uint32_t width = 0, height = 0;  // luma size
  unsigned bpc = 8;
  Chroma chroma = Chroma::k420;
  unsigned slots = 6;         // frames in flight
  int copy_threads = -1;      // helper threads for the host staging copies (-1: from the hardware's core count)
};

enum class Plant { none, clear_before_upload, skip_wait };
// The planted defect named by VMAFX_HIP_PLANT ("", "clear_before_upload", "skip_wait"); read when a pipeline is
// created.
Plant planted_defect();
const char* plant_name(Plant p);

// Counters for tests and benchmarks.
struct PipelineStats {
  uint64_t frames = 0;             // frames submitted
  uint64_t host_frames = 0;        // of which host pictures (staged and uploaded)
  uint64_t device_frames = 0;      // of which device pictures (read in place)
  uint64_t upload_calls = 0;       // host-to-device copies queued
  uint64_t uploaded_bytes = 0;     // bytes copied host to device
  uint64_t staged_bytes = 0;       // bytes copied on the host into the pinned ring
  uint64_t blocked_submits = 0;    // submit_frame() calls that waited for a free slot
};

class HipPipeline {
 public:
  using Done = std::function<void(Status)>;

  static Status create(std::shared_ptr<Device> device, const PipelineConfig& cfg, std::shared_ptr<HipPipeline>* out);
  ~HipPipeline();
  HipPipeline(const HipPipeline&) = delete;
  HipPipeline& operator=(const HipPipeline&) = delete;

  // Before the first frame: adds a feature and says what it reads; *id names it in add().
  Status add_feature(std::unique_ptr<GpuFeature> feature, const FeatureNeeds& needs, unsigned* id);
  GpuFeature* feature(unsigned id) const;

  // Adds feature `id` to frame `index` (consecutive calls for the same index build one frame; a new index submits
  // the open frame first). `ref` / `dist` / `prev_ref` (the reference of frame index - 1, null for the first frame)
  // must stay valid until `done` has been called; `out` receives feature(id)->output_count() scores. `done` is called
  // exactly once, from the completion thread, when the scores are final or the frame failed. On an error return
  // `done` is not called.
  Status add(unsigned id, uint64_t index, const PictureView& ref, const PictureView& dist, const PictureView* prev_ref,
             double* out, Done done);
  // Queues the open frame (nothing when none is open). Blocks while every slot is busy. On failure the frame's
  // parts get the Status through their `done` as well.
  Status submit_frame();
  // Submits the open frame and waits until every submitted frame has called its `done`s. Returns the device's
  // sticky failure, if any.
  Status drain();

  const std::shared_ptr<Device>& device() const { return device_; }
  const PipelineConfig& config() const { return cfg_; }
  unsigned slots() const { return unsigned(slots_.size()); }
  Plant plant() const { return plant_; }
  PipelineStats stats() const;

 private:
  HipPipeline() = default;

  struct Part {
    unsigned feature = 0;
    double* out = nullptr;
    Done done;
  };
  struct Slot {
    Event event;
    bool busy = false;
    uint64_t index = 0;
    std::vector<Part> parts;
  };
  struct Registered {
    std::unique_ptr<GpuFeature> feature;
    FeatureNeeds needs;
  };
  class CopyPool;

  Status allocate();
  Status stage(const PictureView& ref, const PictureView& dist, bool dist_needed, bool chroma_needed, unsigned set,
               FramePlanes* planes);
  Status device_planes(const PictureView& ref, const PictureView& dist, bool chroma_needed, FramePlanes* planes);
  Status submit_locked_out(std::vector<Part>* parts);  // the body of submit_frame
  void fail_parts(std::vector<Part>* parts, const Status& s);
  void completion_loop();

  std::shared_ptr<Device> device_;
  PipelineConfig cfg_;
  Plant plant_ = Plant::none;
  std::vector<Registered> features_;
  bool allocated_ = false;
  bool needs_prev_ = false, needs_chroma_ = false;

  // Plane sets (device) and the staging ring (pinned host), the same layout per frame: the planes the frame needs
  // one after another (ref Y, dist Y, ref Cb, ref Cr, dist Cb, dist Cr).
  size_t set_bytes_ = 0;
  DeviceBuffer sets_[2];
  PinnedRing staging_;
  std::unique_ptr<CopyPool> copy_pool_;
  // The staged frame's upload: one copy of the prefix of a ring slot that holds every needed plane.
  PinnedRing::Slot upload_slot_;
  const uint8_t* upload_src_ = nullptr;
  uint8_t* upload_dst_ = nullptr;
  size_t upload_bytes_ = 0;

  // The open frame (submit thread only).
  bool open_ = false;
  uint64_t open_index_ = 0;
  PictureView open_ref_, open_dist_, open_prev_;
  bool open_has_prev_ = false;
  std::vector<Part> open_parts_;

  // The previous submitted frame's reference luma (submit thread only).
  bool have_last_ = false;
  uint64_t last_index_ = 0;
  DevicePlane last_ref_;
  unsigned next_set_ = 0;
  unsigned next_slot_ = 0;

  // Shared with the completion thread.
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Slot> slots_;
  std::deque<unsigned> queue_;  // submitted slots in order
  bool stop_ = false;
  PipelineStats stats_;
  std::thread completion_;
};

}  // namespace vmafx::hip
