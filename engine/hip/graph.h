// SPDX-License-Identifier: LGPL-2.1-or-later
// Frame graphs: a frame's device work queued with one launch instead of one runtime call per kernel, copy and clear.
//
// At 1080p a frame's features are a few dozen small kernels, clears and read-backs; queueing each through the runtime
// costs the submitting thread more than the GPU needs to run them, so the host's queueing, not the GPU, sets the
// frame rate. HipPipeline (pipeline.h) therefore lets the frame's features queue their work into a CallRecorder
// (RecordScope: Device's launch, copy_async, copy_2d_async and memset_d32_async append to it instead of calling the
// runtime), and then hands the recorded calls to a GraphCache:
//
//   - the same calls as a cached graph of that slot (same kernels, the same argument bytes, the same grid, the same
//     copies and clears: a byte-for-byte comparison): the cached graph is launched on the current stream;
//   - else the calls are captured into a new graph on the current stream (stream capture, thread-local mode),
//     instantiated, cached in place of the slot's least recently used one, and launched. Each feature's calls are a
//     group (CallRecorder::begin_group): the graph runs the groups as parallel branches (captured on streams of the
//     cache's own that only ever capture), so one frame's features run side by side on the GPU, which shortens a
//     frame's latency; each group's calls keep their order.
//
// A feature's enqueue() is thus still called for every frame (its host-side bookkeeping is unchanged) and its calls
// are compared before a graph stands in for them, so a graph never runs other work than the calls it replaces:
// scores cannot depend on whether graphs are used. Where captures keep missing (device frames whose buffers change
// every frame: as many captures in a row, without one replay, as the cache holds graphs),
// the cache gives up and the recorded calls are issued one by one, as without graphs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "hip/device.h"
#include "vmafx/status.h"

namespace vmafx::hip {

class CallRecorder {
 public:
  enum class Kind : uint8_t { kernel, copy, copy_2d, memset_d32 };
  struct Call {
    Kind kind = Kind::kernel;
    // kernel
    FunctionHandle fn = nullptr;
    Dim3 grid, block;
    unsigned shared_bytes = 0;
    uint32_t arg_begin = 0, arg_count = 0;  // into args_ (offsets) and sizes_
    // copy, memset
    CopyKind copy_kind = CopyKind::host_to_device;
    void* dst = nullptr;
    const void* src = nullptr;
    size_t bytes = 0;  // copy: bytes; memset: 32-bit words
    uint32_t value = 0;
    Copy2D copy2d;
    uint32_t group = 0;  // begin_group(): the calls of one feature, independent of the other groups' calls
  };

  void clear();
  // The calls from here on form the next group: work that does not depend on the earlier groups' work (another
  // feature of the same frame), so a graph may run the groups side by side.
  void begin_group() {
    if (!calls_.empty() && calls_.back().group == group_) ++group_;
  }
  unsigned groups() const { return calls_.empty() ? 0u : calls_.back().group + 1; }
  bool empty() const { return calls_.empty(); }
  size_t size() const { return calls_.size(); }
  const std::vector<Call>& calls() const { return calls_; }

  void add_kernel(FunctionHandle fn, Dim3 grid, Dim3 block, unsigned shared_bytes, void** args, const size_t* sizes,
                  size_t count);
  void add_copy(CopyKind kind, void* dst, const void* src, size_t bytes);
  void add_copy_2d(const Copy2D& copy);
  void add_memset_d32(void* dst, uint32_t value, size_t count);

  // The same calls with the same arguments, byte for byte.
  bool same_as(const CallRecorder& o) const;
  // Queues every call on the device's current stream, in order (the calls themselves, or a stream capture of them);
  // with `group` >= 0 only that group's calls.
  Status issue(Device& device, int group = -1) const;

 private:
  std::vector<Call> calls_;
  std::vector<uint32_t> offsets_;  // per argument: its offset in bytes_
  std::vector<uint32_t> sizes_;    // per argument: its size
  std::vector<uint8_t> bytes_;     // argument values, each at a 16-byte aligned offset
  uint32_t group_ = 0;
};

// While alive, the calling thread's work calls on `device` go to `recorder` (cleared first). Not nested.
class RecordScope {
 public:
  RecordScope(const Device& device, CallRecorder* recorder);
  ~RecordScope();
  RecordScope(const RecordScope&) = delete;
  RecordScope& operator=(const RecordScope&) = delete;

 private:
  const Device* previous_device_;
  CallRecorder* previous_;
};

struct GraphStats {
  uint64_t launches = 0;  // frames whose recorded work ran as a cached graph
  uint64_t captures = 0;  // graphs captured and instantiated (each also launched once)
  uint64_t direct = 0;    // frames whose work was issued call by call while graphs were wanted (the cache gave up)
  uint64_t calls = 0;     // runtime calls recorded (kernels, copies, clears), all frames
};

// The graphs of a pipeline: up to `per_slot` per frame slot, least recently used replaced.
class GraphCache {
 public:
  GraphCache() = default;
  ~GraphCache();
  GraphCache(const GraphCache&) = delete;
  GraphCache& operator=(const GraphCache&) = delete;

  // `enabled` false: every frame is issued call by call. After `give_up_after` captures in a row without a launch
  // of a cached graph between them, the cache gives up: the rest is issued call by call.
  Status init(std::shared_ptr<Device> device, unsigned slots, unsigned per_slot, unsigned give_up_after,
              bool enabled);
  bool enabled() const { return enabled_; }
  unsigned give_up_after() const { return give_up_after_; }
  // Queues the recorded work of the frame in `slot` on the device's current stream.
  Status run(unsigned slot, const CallRecorder& calls);
  // A frame queued call by call without recording, after the cache gave up.
  void count_direct() { ++stats_.direct; }
  GraphStats stats() const { return stats_; }

 private:
  struct Entry {
    CallRecorder calls;
    GraphExecHandle exec = nullptr;
    uint64_t used = 0;
  };
  Status capture(const CallRecorder& calls, GraphExecHandle* out);
  void release_all();
  // Captures run on streams of the cache's own, never on the current stream (a lane, which other pipelines on the
  // device share: work they queue there during a capture would join it or break it); the graph is then launched on
  // the current stream. origin_ holds group 0, the branches the others.
  static constexpr unsigned kBranches = 4;
  StreamHandle origin_ = nullptr;
  StreamHandle branch_[kBranches] = {};
  EventHandle fork_ = nullptr, join_[kBranches] = {};

  std::shared_ptr<Device> device_;
  std::vector<std::vector<Entry>> slots_;
  unsigned per_slot_ = 0;
  unsigned give_up_after_ = 0;
  unsigned misses_ = 0;  // captures since the last launch of a cached graph
  bool enabled_ = false;
  uint64_t clock_ = 0;
  GraphStats stats_;
};

}  // namespace vmafx::hip
