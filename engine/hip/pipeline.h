// SPDX-License-Identifier: LGPL-2.1-or-later
// HipPipeline: one per scorer, shared by every GPU feature of that scorer (engine/hip/feature.h's GpuFeature). It
// takes frames in display order and, per frame, queues:
//
//   1. the planes the frame's features read, once for all of them: a host frame is copied into a slot of a pinned
//      ring (host memcpy, split over a few helper threads for large frames) and uploaded with one asynchronous copy
//      into one of the pipeline's device plane sets; a device-resident frame (PictureView.memory == device) is read
//      in place, with no copy at all;
//   2. on the device's library stream, each feature's GpuFeature::enqueue (its accumulator clears after the upload,
//      feature.h says why; its kernels; the asynchronous read-back of its sums into pinned memory of the frame slot);
//   3. one event for the frame slot on the library stream.
//
// Where the upload runs (chosen when the pipeline is created; PipelineConfig::upload_stream, from EngineTuning):
//
//   upload stream (default): the copy is queued on the device's upload stream (device.h), so the upload of frame
//      N+1 runs while the library stream computes frame N. There is one plane set per slot. The upload into a set
//      first waits (stream-wait-event on the upload stream) for the library-stream event of the last frame that read
//      that set: the frame that used it, or the next frame if its motion read it as the previous reference. The
//      upload records the staging slot's event on the upload stream and is submitted at once (Device::submit_upload:
//      ROCm was measured to let later work overtake unsubmitted work), and the library stream waits for that event
//      before the frame's clears and kernels (so clears still follow the upload). The staging slot is free again
//      once its upload has finished. Only the pipeline's own pinned staging and its own plane sets are touched
//      on the upload stream: device-resident frames, dma-buf imports and GL arrays (producer memory) are read only
//      on the library stream, because the one-library-stream rule exists to order the release of producer memory
//      behind every read of it (Device::defer_release records on the library stream).
//   library stream (upload_stream = 0, or a runtime without stream-wait-event): the copy is queued on the
//      library stream before the frame's features, as before; two plane sets alternate. The upload of frame N+1
//      then follows the kernels of frame N.
//
// Lanes (PipelineConfig::lanes; with the upload stream and without a scaler): at 1080p one frame's kernels leave most
// of a large GPU idle, so frame N's features run on lane N mod K of the device (Device::lane_stream) and K frames
// run at once. Each feature that says it is frame_independent() has one instance per lane (its scratch is then never
// shared by two lanes); the others (state carried from frame to frame) have one instance and run on one more lane,
// the serial lane, in frame order. Per frame: on the library stream, after the upload wait, a fork event; the frame's
// lane and (if the frame has serial features) the serial lane wait for it; the serial lane records a join event
// that the frame's lane waits for before the slot event, which it records. An upload into a plane set then waits for
// the slot events of both frames that read the set (they may be on different lanes). With one lane everything runs on
// the library stream as described above.
//
// Frame graphs (PipelineConfig::graphs, hip/graph.h): the calls a frame's features make on its lane are recorded and
// queued as one graph launch where a graph cached for the frame's slot holds the same calls, else captured into a new
// graph; serial features and the scaler are queued call by call. The calls themselves are the same either way.
//
// A completion thread waits for the slots' events in submission order, calls each feature's finish() and then the
// `done` callback of every part of the frame. Nothing synchronises the whole device per frame. Several frames are in
// flight (`slots`); submit() blocks only while every slot is still busy. The host copy of frame N+1 into the
// pinned ring overlaps the device's work on frame N.
//
// Motion reads the previous frame's reference luma: a host frame's stays in the pipeline's device planes (consecutive
// host frames use different plane sets, and a set is not overwritten before the frame after it has read it), a
// device frame's is the caller's memory (the scorer keeps the previous frame until this one has finished). Nothing
// is uploaded twice.
//
// Failures: every runtime call is checked (VMAFX_HIP_CHECK through Device); a device failure is sticky (Device) and
// is handed to the `done` of every pending part, so the scorer fails with a Status naming the call.
//
// Checks: a frame's planes are checked once where they enter (submit: the size and depth of the pictures, each
// device picture's plane with check_device_plane); the features' enqueue() only asserts them.
//
// Tests plant defects in a pipeline to prove that the parity tests catch them (hip/test_hooks.h: a build with test
// hooks only).
#pragma once

#include <array>
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
#include "cpu/scale.h"
#include "hip/feature.h"
#include "hip/graph.h"
#include "hip/scale_gpu.h"
#include "hip/test_hooks.h"
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
  // Upload host frames on the device's upload stream: 1 or -1 (the default) yes, where the runtime can order
  // streams; 0 no (on the library stream).
  int upload_stream = -1;
  // The upload gate (below): 1 on, 0 off, -1 on NVIDIA only (measured there; not run on AMD).
  int upload_gate = -1;
  // Frame graphs (hip/graph.h; below): 1 on, 0 off, -1 on NVIDIA only (measured there; not run on AMD). Off where
  // the runtime lacks graphs and with Device's sync_launches.
  int graphs = -1;
  // A distorted stream of another size: dist_width x dist_height pictures, scaled on the device to width x height
  // with this scaler's filters before any feature reads them (null: both streams have the pipeline's size). The
  // scaler must outlive the pipeline.
  const cpu::Scaler* scaler = nullptr;
  uint32_t dist_width = 0, dist_height = 0;
  // Lanes (above): 1..Device::kMaxLanes - 1, or 0 for default_lanes(). One lane where the
  // upload stream is not used or with a scaler.
  unsigned lanes = 0;
};

// Lanes when PipelineConfig::lanes does not say: 6 on NVIDIA (measured on an H200), 1 on AMD (not
// measured: no AMD GPU was at hand).
unsigned default_lanes(const Device& device);
// The lanes a pipeline with `requested` (PipelineConfig::lanes) would ask for before the upload stream and scaler
// rules: what the backend sizes its features for.
unsigned requested_lanes(const Device& device, unsigned requested = 0);

// Whether a pipeline made now on `device` with `upload_stream` (PipelineConfig's meaning) uploads on the upload
// stream: what bench-gpu prints as the mode that ran.
bool upload_stream_selected(const Device& device, int upload_stream = -1);


// Counters for tests and benchmarks.
struct PipelineStats {
  uint64_t frames = 0;             // frames submitted
  uint64_t host_frames = 0;        // of which with a host picture (staged and uploaded)
  uint64_t mixed_frames = 0;       // of those, with a device picture beside the host one (read in place)
  uint64_t device_frames = 0;      // of which device pictures (read in place)
  uint64_t upload_calls = 0;       // host-to-device copies queued
  uint64_t stream_uploads = 0;     // of which on the device's upload stream
  uint64_t uploaded_bytes = 0;     // bytes copied host to device
  uint64_t staged_bytes = 0;       // bytes copied on the host into the pinned ring
  uint64_t blocked_submits = 0;    // submit() calls that waited for a free slot
  GraphStats graphs;               // frame graphs (hip/graph.h): launches, captures, frames issued call by call
};

class HipPipeline {
 public:
  using Done = std::function<void(Status)>;

  static Status create(std::shared_ptr<Device> device, const PipelineConfig& cfg, std::shared_ptr<HipPipeline>* out);
  ~HipPipeline();
  HipPipeline(const HipPipeline&) = delete;
  HipPipeline& operator=(const HipPipeline&) = delete;

  // Before the first frame: adds a feature and says what it reads; *id names it in add(). One instance: it runs on
  // the library stream (one lane) or the serial lane. lanes() instances of a frame_independent() feature: instance
  // i runs the frames of lane i.
  Status add_feature(std::unique_ptr<GpuFeature> feature, const FeatureNeeds& needs, unsigned* id);
  Status add_feature(std::vector<std::unique_ptr<GpuFeature>> instances, const FeatureNeeds& needs, unsigned* id);
  // The feature's instance of lane `lane` (the only one of a serial feature).
  GpuFeature* feature(unsigned id, unsigned lane = 0) const;
  // Frame lanes in use (1: everything on the library stream).
  unsigned lanes() const { return lanes_; }

  // One part of a frame: feature `feature` (an id from add_feature) writes feature(id)->output_count() scores to
  // `out`.
  struct Part {
    unsigned feature = 0;
    double* out = nullptr;
  };
  // Queues frame `index` with the features in `parts`. `ref` / `dist` / `prev_ref` (the reference of frame
  // index - 1, null for the first frame) must stay valid until `done` has been called. `done` is called exactly
  // once, from the completion thread, when every part's scores are final or the frame failed. Blocks while every
  // slot is busy. On an error return `done` is not called.
  Status submit(uint64_t index, const PictureView& ref, const PictureView& dist, const PictureView* prev_ref,
                std::vector<Part> parts, Done done);
  // Waits until every submitted frame has called its `done`. Returns the device's sticky failure, if any.
  Status drain();

  const std::shared_ptr<Device>& device() const { return device_; }
  const PipelineConfig& config() const { return cfg_; }
  unsigned slots() const { return unsigned(slots_.size()); }
  // Host frames are uploaded on the device's upload stream (else on the library stream).
  bool upload_stream() const { return upload_stream_; }
  PipelineStats stats() const;
  // Host frames' staging copies overlap the queueing of their kernels (the upload gate, below).
  bool upload_gate() const { return gate_uploads_; }
  // Frames' features are queued as graphs (frame graphs, above), until the cache gives up.
  bool graphs() const { return graphs_wanted_; }
  // Captures in a row without a replay after which the graph cache gives up.
  unsigned graph_give_up_after() const { return graphs_.give_up_after(); }

 private:
  HipPipeline() = default;

  struct Slot {
    Event event;        // after all the frame's work (on its lane)
    Event fork, join;   // lanes: on the library stream before the frame's work; on the serial lane after its part
    Event scaled;       // lanes with a scaler: on the frame's lane after the scaling (the serial lane waits for it)
    unsigned lane = 0;  // the lane that ran the frame
    bool busy = false;
    uint64_t index = 0;
    std::vector<Part> parts;
    Done done;
  };
  struct Registered {
    std::vector<std::unique_ptr<GpuFeature>> instances;  // one (serial), or one per lane
    FeatureNeeds needs;
    bool serial() const { return instances.size() == 1; }
    GpuFeature* at(unsigned lane) const { return instances[serial() ? 0 : lane].get(); }
  };
  class CopyPool;
  // One host copy of rows into the pinned ring (CopyPool splits large ones over its helpers).
  struct CopyJob {
    uint8_t* dst;
    size_t dst_pitch;
    const uint8_t* src;
    ptrdiff_t src_stride;
    size_t row_bytes;
    size_t rows;
  };
  // A host frame's staging copy, as the upload stream waits for it (a host function that returns once open).
  struct UploadGate {
    std::mutex mu;
    std::condition_variable cv;
    bool is_open = true;
    void arm() {
      std::lock_guard<std::mutex> lk(mu);
      is_open = false;
    }
    void open() {
      {
        std::lock_guard<std::mutex> lk(mu);
        is_open = true;
      }
      cv.notify_all();
    }
    static void wait_fn(void* p) {
      auto* g = static_cast<UploadGate*>(p);
      std::unique_lock<std::mutex> lk(g->mu);
      g->cv.wait(lk, [g] { return g->is_open; });
    }
  };

  Status allocate();
  Status stage(const PictureView& ref, const PictureView& dist, bool dist_needed, bool chroma_needed, unsigned set,
               FramePlanes* planes);
  Status enqueue_features(const std::vector<Part>& parts, const FramePlanes& planes, unsigned slot);
  Status upload(unsigned slot, unsigned set, const std::vector<Part>& parts, const FramePlanes& planes);
  void finish_copy();  // waits for a gated staging copy that upload() started (the caller calls it, on every path)
  Status device_planes(const PictureView& ref, const PictureView& dist, bool chroma_needed, FramePlanes* planes);
  Status device_plane(const PictureView& v, unsigned p, DevicePlane* dp, bool stored = false) const;
  // Plane p's size as the features read it, or its stored size (chroma rounded up) where the scaler reads it.
  static void plane_size(const PictureView& v, unsigned p, bool stored, uint32_t* w, uint32_t* h);
  Status submit_locked_out(std::vector<Part>* parts, Done* done);  // the body of submit
  void completion_loop();

  std::shared_ptr<Device> device_;
  PipelineConfig cfg_;
  Plant plant_ = Plant::none;  // hip/test_hooks.h; always none without test hooks
  bool planted(Plant p) const { return kTestHooks && plant_ == p; }
  bool upload_stream_ = false;
  unsigned lanes_ = 1;
  // Frame graphs: the work of a frame's features on its lane (one lane: the library stream) is recorded into
  // recorder_ and queued by graphs_ (hip/graph.h); serial features and the scaler queue their calls directly.
  bool graphs_wanted_ = false;
  CallRecorder recorder_;
  GraphCache graphs_;
  unsigned next_lane_ = 0;  // the lane of the next frame (submit thread only)
  std::vector<Registered> features_;
  std::vector<std::unique_ptr<ScaleGpu>> scales_;  // with PipelineConfig::scaler: one per lane
  bool allocated_ = false;
  bool needs_prev_ = false, needs_chroma_ = false;

  // Plane sets (device) and the staging ring (pinned host), the same layout per frame: the planes the frame needs
  // one after another (ref Y, dist Y, ref Cb, ref Cr, dist Cb, dist Cr). One set per slot with the upload stream,
  // else two; host frames take them in turn.
  size_t set_bytes_ = 0;
  std::vector<DeviceBuffer> sets_;
  // Per set, the slots of the last frames that read it (-1: none): the frame that used it and the next frame, whose
  // motion read it as the previous reference; their slot events are what an upload into the set waits for (upload
  // stream only).
  std::vector<std::array<int, 2>> set_reader_;
  Event sets_cleared_;  // after the sets' initial clears on the library stream (the upload stream waits for it once)
  PinnedRing staging_;
  std::unique_ptr<CopyPool> copy_pool_;
  // The upload gate (upload stream, a runtime with host functions; PipelineConfig::upload_gate): a large staging
  // copy runs on the helpers while the submitting thread queues the frame's upload (behind the ring slot's gate) and
  // kernels, so the host copy overlaps the kernel launches. One gate per ring slot.
  bool gate_uploads_ = false;
  bool gated_ = false;     // the frame being submitted has a gated copy (staged_jobs_), not yet started
  bool copying_ = false;   // that copy is running
  std::vector<CopyJob> staged_jobs_;
  std::unique_ptr<UploadGate[]> gates_;
  // The staged frame's upload: one copy of the prefix of a ring slot that holds every needed plane.
  PinnedRing::Slot upload_slot_;
  const uint8_t* upload_src_ = nullptr;
  uint8_t* upload_dst_ = nullptr;
  size_t upload_bytes_ = 0;

  // The frame being submitted (submit thread only).
  uint64_t open_index_ = 0;
  PictureView open_ref_, open_dist_, open_prev_;
  bool open_has_prev_ = false;

  // The previous submitted frame's reference luma (submit thread only).
  bool have_last_ = false;
  uint64_t last_index_ = 0;
  DevicePlane last_ref_;
  int last_set_ = -1;  // the plane set holding last_ref_, -1 when it is the caller's device memory
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
