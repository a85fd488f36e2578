// SPDX-License-Identifier: LGPL-2.1-or-later
// The backend interface: a backend takes whole frames (every feature of the frame in one call) and reports each
// frame's completion once. The CPU backend (cpu_backend.cpp) runs the CPU reference on worker threads; the HIP
// backend (engine/hip/hip_backend.cpp) runs the GPU kernels and, for features without a kernel, the CPU's. The
// scorer (engine/scoring) owns the frames, puts completed frames in order and runs the in-order stage.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cpu/scale.h"
#include "features/table.h"
#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::features {

// What a backend computes: the configured features and where each one's values go in a frame's value array.
struct Plan {
  VideoGeometry geometry;              // the geometry features run at (the reference's)
  std::vector<Instance> features;
  std::vector<size_t> first_value;     // per feature: offset of its outputs in Frame::values
  size_t value_count = 0;
  unsigned threads = 0;                // CPU worker threads (0, 1: the submitting thread)
  // A distorted stream of another size: every frame's distorted picture is scaled to `geometry` with this scaler
  // (null: the two streams have the same size) before any feature reads it.
  std::shared_ptr<const cpu::Scaler> scaler;
  VideoGeometry dist_geometry;         // the distorted stream's geometry (== geometry without a scaler)

  void add(Instance inst) {
    first_value.push_back(value_count);
    value_count += inst.value_count();
    features.push_back(std::move(inst));
  }
  // What the plan's features read of each frame (Reads bits of the features that run on scored frames).
  uint8_t reads() const {
    uint8_t r = 0;
    for (const Instance& i : features) r |= i.desc->reads;
    return r;
  }
};

// One frame in a backend. The scorer owns it; the backend fills `values` and reports it through Done.
struct Frame {
  uint64_t index = 0;
  bool scored = true;                  // false: only temporal features run (values of the others stay NaN)
  // The values of the plan's Instance::from_shared features come from a shared reference: backends skip them.
  bool reference_shared = false;
  PictureView ref, dist;               // as submitted: dist at Plan::dist_geometry
  const PictureView* prev_ref = nullptr;       // the previous frame's reference (valid until this frame is done)
  const PictureView* prev_prev_ref = nullptr;  // two frames back, when a feature reads that far (Scorer keeps it)
  const PictureView* prev_dist = nullptr;      // the previous frame's distorted picture, as submitted (dist geometry)
  std::vector<double> values;          // Plan::value_count entries, NaN where a feature did not run
  // Backend bookkeeping: the CPU backend counts the frame's tasks, the HIP backend joins its GPU and CPU parts.
  std::atomic<int> tasks{0};
  Status task_status;                  // the first failure among the tasks
  std::atomic<int> parts{0};
  Status part_status;                  // the first failure among the parts
  // The CPU backend's copy of `dist` at the plan's geometry when the plan scales (its storage is the backend's).
  PictureView cpu_dist;
  std::unique_ptr<cpu::ScaledPicture> scaled;
  // The same for prev_dist, when a feature reads it (kReadsPrevDist): the previous distorted picture scaled again.
  PictureView cpu_prev_dist;
  std::unique_ptr<cpu::ScaledPicture> scaled_prev;

  // Whether a backend computes feature `f` for this frame.
  bool runs(const Instance& f) const { return (scored || f.temporal) && !(reference_shared && f.from_shared); }
  // Whether the frame has values of `f` (computed here or taken from the shared reference).
  bool has_values(const Instance& f) const { return scored || f.temporal; }
};

class Backend {
 public:
  // Called exactly once per submitted frame (also when it failed), from any thread, possibly out of frame order and
  // concurrently for different frames.
  using Done = std::function<void(Frame*, Status)>;

  virtual ~Backend() = default;
  virtual std::string description() const = 0;
  // The GPU the backend runs on (an index into the visible devices), -1 for the CPU.
  virtual int device() const { return -1; }
  // The features (extractor names, libvmaf's) computed on the CPU: every one on the CPU backend, those without a GPU
  // implementation (or not for their options) beside a GPU. They read host memory.
  virtual std::vector<std::string> cpu_features() const = 0;
  // Frames the backend wants in flight at most (the scorer blocks or refuses beyond).
  virtual size_t capacity() const = 0;
  // Memory the backend's features can read (the CPU reference reads host memory only).
  virtual bool accepts(MemoryKind m) const { return m == MemoryKind::host; }
  // Queues a frame: a failure returned here means Done will not be called for it. May block briefly.
  virtual Status submit(Frame* frame) = 0;
  // Returns once Done has been called for every submitted frame.
  virtual void drain() = 0;
  // Bytes copied from the host to a device so far (0 for the CPU).
  virtual uint64_t uploaded_bytes() const { return 0; }
  // GPU frame graphs: launches, captures, frames queued call by call, calls recorded (ScorerCounters).
  virtual void graph_counters(uint64_t* launches, uint64_t* captures, uint64_t* direct, uint64_t* calls) const {
    *launches = *captures = *direct = *calls = 0;
  }
};

// The CPU reference on `plan.threads` workers (or the submitting thread).
Status create_cpu_backend(const Plan& plan, Backend::Done done, std::unique_ptr<Backend>* out);

}  // namespace vmafx::features
