// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/graph.h"

#include <algorithm>
#include <cstring>

namespace vmafx::hip {

namespace {

thread_local const Device* tl_record_device = nullptr;
thread_local CallRecorder* tl_recorder = nullptr;

constexpr size_t kArgAlignment = 16;

}  // namespace

// ---- Device's side ----------------------------------------------------------------------------------------------

CallRecorder* Device::recorder() const { return tl_record_device == this ? tl_recorder : nullptr; }

Status Device::record_launch(CallRecorder* r, const Kernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes,
                             void** args, const size_t* sizes, size_t count) {
  if (failed()) return status();
  if (!kernel.fn) return {Errc::invalid_argument, "launch of a kernel that was not loaded"};
  r->add_kernel(kernel.fn, grid, block, shared_bytes, args, sizes, count);
  return Status::ok();
}

RecordScope::RecordScope(const Device& device, CallRecorder* recorder)
    : previous_device_(tl_record_device), previous_(tl_recorder) {
  recorder->clear();
  tl_record_device = &device;
  tl_recorder = recorder;
}

RecordScope::~RecordScope() {
  tl_record_device = previous_device_;
  tl_recorder = previous_;
}

// ---- CallRecorder -----------------------------------------------------------------------------------------------

void CallRecorder::clear() {
  group_ = 0;
  calls_.clear();
  offsets_.clear();
  sizes_.clear();
  bytes_.clear();
}

void CallRecorder::add_kernel(FunctionHandle fn, Dim3 grid, Dim3 block, unsigned shared_bytes, void** args,
                              const size_t* sizes, size_t count) {
  Call c;
  c.kind = Kind::kernel;
  c.fn = fn;
  c.grid = grid;
  c.block = block;
  c.shared_bytes = shared_bytes;
  c.arg_begin = uint32_t(offsets_.size());
  c.arg_count = uint32_t(count);
  for (size_t i = 0; i < count; ++i) {
    const size_t at = (bytes_.size() + kArgAlignment - 1) / kArgAlignment * kArgAlignment;
    bytes_.resize(at + sizes[i]);
    std::memcpy(bytes_.data() + at, args[i], sizes[i]);
    offsets_.push_back(uint32_t(at));
    sizes_.push_back(uint32_t(sizes[i]));
  }
  c.group = group_;
  calls_.push_back(c);
}

void CallRecorder::add_copy(CopyKind kind, void* dst, const void* src, size_t bytes) {
  Call c;
  c.kind = Kind::copy;
  c.copy_kind = kind;
  c.dst = dst;
  c.src = src;
  c.bytes = bytes;
  c.group = group_;
  calls_.push_back(c);
}

void CallRecorder::add_copy_2d(const Copy2D& copy) {
  Call c;
  c.kind = Kind::copy_2d;
  c.copy2d = copy;
  c.group = group_;
  calls_.push_back(c);
}

void CallRecorder::add_memset_d32(void* dst, uint32_t value, size_t count) {
  Call c;
  c.kind = Kind::memset_d32;
  c.dst = dst;
  c.value = value;
  c.bytes = count;
  c.group = group_;
  calls_.push_back(c);
}

namespace {

bool same_call(const CallRecorder::Call& a, const CallRecorder::Call& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case CallRecorder::Kind::kernel:
      return a.group == b.group && a.fn == b.fn && a.grid.x == b.grid.x && a.grid.y == b.grid.y && a.grid.z == b.grid.z &&
             a.block.x == b.block.x && a.block.y == b.block.y && a.block.z == b.block.z &&
             a.shared_bytes == b.shared_bytes && a.arg_count == b.arg_count;
    case CallRecorder::Kind::copy:
      return a.group == b.group && a.copy_kind == b.copy_kind && a.dst == b.dst && a.src == b.src && a.bytes == b.bytes;
    case CallRecorder::Kind::copy_2d: {
      const Copy2D &x = a.copy2d, &y = b.copy2d;
      return a.group == b.group && x.kind == y.kind && x.dst == y.dst && x.dst_pitch == y.dst_pitch && x.src == y.src &&
             x.src_pitch == y.src_pitch && x.width_bytes == y.width_bytes && x.height == y.height;
    }
    case CallRecorder::Kind::memset_d32: return a.group == b.group && a.dst == b.dst && a.value == b.value && a.bytes == b.bytes;
  }
  return false;
}

}  // namespace

bool CallRecorder::same_as(const CallRecorder& o) const {
  if (calls_.size() != o.calls_.size() || sizes_ != o.sizes_ || offsets_ != o.offsets_ || bytes_ != o.bytes_)
    return false;
  for (size_t i = 0; i < calls_.size(); ++i)
    if (!same_call(calls_[i], o.calls_[i])) return false;
  return true;
}

Status CallRecorder::issue(Device& device, int group) const {
  std::vector<void*> args;
  for (const Call& c : calls_) {
    if (group >= 0 && c.group != uint32_t(group)) continue;
    switch (c.kind) {
      case Kind::kernel: {
        args.resize(std::max<size_t>(1, c.arg_count));
        for (uint32_t i = 0; i < c.arg_count; ++i)
          args[i] = const_cast<uint8_t*>(bytes_.data()) + offsets_[c.arg_begin + i];
        VMAFX_TRY(device.launch(Kernel{c.fn, "a recorded kernel"}, c.grid, c.block, c.shared_bytes, args.data()));
        break;
      }
      case Kind::copy: VMAFX_TRY(device.copy_async(c.copy_kind, c.dst, c.src, c.bytes)); break;
      case Kind::copy_2d: VMAFX_TRY(device.copy_2d_async(c.copy2d)); break;
      case Kind::memset_d32: VMAFX_TRY(device.memset_d32_async(c.dst, c.value, c.bytes)); break;
    }
  }
  return Status::ok();
}

// ---- GraphCache -------------------------------------------------------------------------------------------------

GraphCache::~GraphCache() { release_all(); }

void GraphCache::release_all() {
  if (!device_) return;
  const Api& api = device_->api();
  ContextScope scope(*device_);
  for (auto& slot : slots_)
    for (Entry& e : slot)
      if (e.exec && scope.status()) (void)api.graph_exec_destroy.fn(e.exec);
  slots_.clear();
  if (!scope.status()) return;
  for (unsigned i = 0; i < kBranches; ++i) {
    if (branch_[i]) (void)api.stream_destroy.fn(branch_[i]);
    if (join_[i]) device_->destroy_event(join_[i]);
    branch_[i] = nullptr;
    join_[i] = nullptr;
  }
  if (origin_) (void)api.stream_destroy.fn(origin_);
  origin_ = nullptr;
  if (fork_) device_->destroy_event(fork_);
  fork_ = nullptr;
}

Status GraphCache::init(std::shared_ptr<Device> device, unsigned slots, unsigned per_slot, unsigned give_up_after,
                        bool enabled) {
  release_all();
  device_ = std::move(device);
  per_slot_ = std::max(1u, per_slot);
  give_up_after_ = give_up_after;
  misses_ = 0;
  enabled_ = enabled && device_ && device_->api().has_graphs();
  slots_.assign(slots, {});
  if (!enabled_) return Status::ok();
  ContextScope scope(*device_);
  VMAFX_TRY(scope.status());
  VMAFX_TRY(device_->create_event(&fork_));
  VMAFX_HIP_CHECK(*device_, stream_create, &origin_);
  for (unsigned i = 0; i < kBranches; ++i) {
    VMAFX_HIP_CHECK(*device_, stream_create, &branch_[i]);
    VMAFX_TRY(device_->create_event(&join_[i]));
  }
  return Status::ok();
}

Status GraphCache::capture(const CallRecorder& calls, GraphExecHandle* out) {
  const Api& api = device_->api();
  ContextScope scope(*device_);
  VMAFX_TRY(scope.status());
  // Captured on the cache's own stream (graph.h); nothing runs there but captures, so the capture depends on nothing
  // queued before it: the graph's launch on the current stream orders it.
  StreamScope origin(*device_, origin_);
  const StreamHandle stream = origin_;
  VMAFX_HIP_CHECK(*device_, stream_begin_capture, stream);
  // Group 0 on the capturing stream; the others fork from it onto the branch streams (groups past kBranches share
  // them in turn) and join it again before the capture ends.
  auto branches = [&]() -> Status {
    const unsigned groups = calls.groups();
    const unsigned used = std::min(kBranches, groups > 0 ? groups - 1 : 0u);
    if (used) VMAFX_TRY(device_->record(fork_));
    for (unsigned b = 0; b < used; ++b) {
      StreamScope on(*device_, branch_[b]);
      VMAFX_TRY(device_->wait_event(fork_));
      for (unsigned g = 1 + b; g < groups; g += kBranches) VMAFX_TRY(calls.issue(*device_, int(g)));
      VMAFX_TRY(device_->record(join_[b]));
    }
    VMAFX_TRY(calls.issue(*device_, 0));
    for (unsigned b = 0; b < used; ++b) VMAFX_TRY(device_->wait_event(join_[b]));
    return Status::ok();
  };
  Status issued = branches();
  GraphHandle graph = nullptr;
  const int end = api.stream_end_capture.fn(stream, &graph);  // ends the capture on every path
  VMAFX_TRY(issued.prepend("capturing a frame graph"));
  if (end != 0) return device_->fail(api.stream_end_capture.symbol, end, __FILE__, __LINE__);
  GraphExecHandle exec = nullptr;
  const int inst = api.graph_instantiate.fn(&exec, graph);
  (void)api.graph_destroy.fn(graph);
  if (inst != 0) return device_->fail(api.graph_instantiate.symbol, inst, __FILE__, __LINE__);
  *out = exec;
  return Status::ok();
}

Status GraphCache::run(unsigned slot, const CallRecorder& calls) {
  if (calls.empty()) return Status::ok();
  stats_.calls += calls.size();
  if (!enabled_) {
    ++stats_.direct;
    return calls.issue(*device_);
  }
  std::vector<Entry>& entries = slots_[slot];
  ++clock_;
  for (Entry& e : entries) {
    if (e.calls.same_as(calls)) {
      e.used = clock_;
      misses_ = 0;
      ++stats_.launches;
      VMAFX_HIP_CHECK(*device_, graph_launch, e.exec, device_->current_stream());
      return Status::ok();
    }
  }
  // Mostly new work every frame (the pictures' buffers change): capturing costs more than it saves.
  if (misses_ >= give_up_after_) {
    enabled_ = false;
    release_all();
    slots_.assign(slots_.size(), {});
    ++stats_.direct;
    return calls.issue(*device_);
  }
  GraphExecHandle exec = nullptr;
  VMAFX_TRY(capture(calls, &exec));
  ++stats_.captures;
  ++misses_;
  Entry* e = nullptr;
  if (entries.size() < per_slot_) {
    entries.emplace_back();
    e = &entries.back();
  } else {
    e = &*std::min_element(entries.begin(), entries.end(),
                           [](const Entry& a, const Entry& b) { return a.used < b.used; });
    // The replaced graph last ran an earlier frame of this slot, which has finished: the slot is reused only then.
    ContextScope scope(*device_);
    VMAFX_TRY(scope.status());
    (void)device_->api().graph_exec_destroy.fn(e->exec);
    e->exec = nullptr;
  }
  e->calls = calls;
  e->exec = exec;
  e->used = clock_;
  VMAFX_HIP_CHECK(*device_, graph_launch, exec, device_->current_stream());
  return Status::ok();
}

}  // namespace vmafx::hip
