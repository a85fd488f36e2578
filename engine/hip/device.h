// SPDX-License-Identifier: LGPL-2.1-or-later
// RAII over the dispatch table: one Device per GPU per process (its context, THE library stream that every
// feature on that device shares, and an upload stream for the engine's own staging copies), device and pinned
// buffers, events, a pinned ring for staging uploads and readbacks, and imported external memory.
//
// Two streams, one rule for producer memory. Everything that reads or writes memory the engine does not own
// (device-resident frames of the caller, imported dma-bufs, mapped GL arrays) and every kernel runs on the library
// stream, so one event on it orders the release of producer memory behind every read of it (defer_release). The
// upload stream carries nothing but host-to-device copies from the engine's own pinned staging into the engine's
// own device buffers (the frame pipeline's plane sets), so the upload of frame N+1 can run while the library
// stream computes frame N. Its users order it explicitly: the upload waits for the library-stream event of the
// last work that read its destination, and the library stream waits for the upload's event before any work that
// reads it. No producer memory is ever touched on the upload stream.
//
// Frame pipelines allocate at init and then run allocation-free: DeviceBuffer / PinnedRing are sized once, uploads
// are staged through a ring slot whose event says when the slot may be refilled, readbacks land in pinned memory and
// are polled with an event query. Nothing here synchronises the whole device on a per-frame path;
// Device::synchronize() is for init, teardown and tests.
//
// Lanes. A frame pipeline may also run frames on lane streams (lane_stream(), made on request by ensure_lanes()):
// frame N's kernels on lane N mod K, so that K frames run at once where one frame's kernels leave most of the GPU
// idle. Work queued on a lane is still ordered behind the library stream (the lane waits for an event recorded on
// the library stream after the frame's uploads and the producer's waits), and the rule for producer memory becomes:
// a release waits for the library stream AND every lane (record_all(), which defer_release uses). Which stream the
// calls below queue on is the calling thread's current stream: the library stream, or the one a StreamScope names.
//
// A failed runtime call is sticky: the Device remembers the first failure and every later checked call on it returns
// that Status without touching the runtime.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "hip/api.h"
#include "vmafx/status.h"

namespace vmafx::hip {

struct DeviceInfo {
  Vendor vendor = Vendor::auto_select;
  int index = 0;
  std::string name;        // "NVIDIA H200", "AMD Instinct MI210"
  std::string pci_bus_id;  // "0000:41:00.0"
  std::string arch;        // "sm_90", "gfx90a:sramecc+:xnack-"
  size_t total_memory = 0;
  std::string library;     // the runtime library in use
  int driver_version = 0;
};

struct Kernel;
template <class Signature>
struct TypedKernel;

namespace launch_detail {
template <class P, class A, class = void>
struct brace_converts : std::false_type {};
// P{a}: no narrowing, no pointer of another type.
template <class P, class A>
struct brace_converts<P, A, std::void_t<decltype(P{std::declval<A>()})>> : std::true_type {};
// A struct parameter takes that struct only (P{a} would also take a struct's first member); others as P{a}.
template <class P, class A>
struct converts : std::conditional_t<std::is_class_v<P>, std::is_same<P, std::remove_cv_t<std::remove_reference_t<A>>>,
                                     brace_converts<P, A>> {};
template <class... T>
struct list {};
template <bool same_count, class Params, class Args>
struct all_convert : std::false_type {};
template <class... P, class... A>
struct all_convert<true, list<P...>, list<A...>> : std::bool_constant<(converts<P, A>::value && ...)> {};
}  // namespace launch_detail

// Whether Device::launch of a kernel of function type `Signature` takes these arguments: one per parameter, each
// of its struct parameter's type or converting to its scalar or pointer parameter's type without narrowing.
template <class Signature, class... Args>
struct launch_args_fit : std::false_type {};
template <class... Params, class... Args>
struct launch_args_fit<void(Params...), Args...>
    : launch_detail::all_convert<sizeof...(Params) == sizeof...(Args), launch_detail::list<Params...>,
                                 launch_detail::list<Args...>> {};

class CallRecorder;  // hip/graph.h

class Device {
 public:
  // The device `index` (-1: the first visible one) of `vendor` (auto_select: AMD first, then NVIDIA). One object per
  // device per process: every caller asking for the same device gets the same object while one is alive. Indices
  // are the engine's (Api::ordinals). Automatic placement of a scoring session is placement.h's, not this.
  static Status get(Vendor vendor, int index, std::shared_ptr<Device>* out);
  // The live Device of `vendor` (amd or nvidia) device `index`, or null; opens nothing.
  static std::shared_ptr<Device> find(Vendor vendor, int index);

  // ---- External CUDA contexts (NVIDIA; GStreamer's decoders, engine/hip/cuda_memory.cpp) ----
  // A Device of `vendor` device `index` on an existing context `context` (a CUcontext the caller made, e.g. a
  // decoder's) instead of the primary one; `owner` keeps that context alive and is dropped after the Device's streams
  // and events are gone. Still one Device per device per process: ok with the new Device when none of `index` is
  // alive (Device::get then returns it while it lives), ok with the live one when it already runs on `context`,
  // Errc::busy naming both contexts when the live one runs on another. AMD: Errc::unsupported.
  static Status adopt(Vendor vendor, int index, Context context, std::shared_ptr<void> owner,
                      std::shared_ptr<Device>* out);
  // True for a Device made by adopt() (its context is not the primary context it retained).
  bool adopted() const { return context_owner_ != nullptr; }

  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const Api& api() const { return *api_; }
  const DeviceInfo& info() const { return info_; }
  StreamHandle stream() const { return stream_; }
  StreamHandle upload_stream() const { return upload_stream_; }
  Context context() const { return context_; }

  // Makes this device's context current on the calling thread and leaves it there (a GL-thread callback before
  // interop calls). Library calls below bind the context themselves and restore the caller's afterwards.
  Status make_current() const;

  // The first failure, or ok.
  Status status() const;
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  // Records a failed runtime call (the first one becomes sticky) and returns its Status.
  Status fail(const char* symbol, int code, const char* file, int line) const;
  Status fail(Status s) const;

  // ---- Lanes ----
  static constexpr unsigned kMaxLanes = 8;
  // Makes lane streams 0 .. n-1 (n <= kMaxLanes) where they do not exist yet; they live as long as the Device.
  Status ensure_lanes(unsigned n);
  unsigned lanes() const { return lane_count_.load(std::memory_order_acquire); }
  StreamHandle lane_stream(unsigned i) const { return i < kMaxLanes && i < lanes() ? lanes_[i] : nullptr; }
  // The stream the calling thread's calls below queue on (a StreamScope's, else the library stream).
  StreamHandle current_stream() const;
  // Records `event` after the work queued so far on the library stream and on every lane (a release stream waits
  // for each and records it): what must precede the release of producer memory or of a buffer lanes may read.
  // Without lanes, a record on the library stream.
  Status record_all(EventHandle event);

  // ---- Work on the current stream (the library stream unless a StreamScope says otherwise; asynchronous) ----
  // While a RecordScope of this device is open on the calling thread (hip/graph.h), launch, copy_async,
  // copy_2d_async and memset_d32_async append the call to its recorder instead of queueing it.
  Status copy_async(CopyKind kind, void* dst, const void* src, size_t bytes);
  Status copy_2d_async(const Copy2D& copy);
  Status memset_d32_async(void* dst, uint32_t value, size_t count);
  // A kernel with its parameter list (TypedKernel): the arguments themselves, each converted to its parameter's
  // type without narrowing (a pointer of another type, a size_t for a 32-bit parameter or a missing argument does not
  // compile), and handed to the runtime as the array of pointers it takes.
  template <class... Params, class... Args>
  Status launch(const TypedKernel<void(Params...)>& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes,
                Args&&... args) {
    static_assert(sizeof...(Args) == sizeof...(Params), "the kernel takes another number of arguments");
    static_assert(launch_args_fit<void(Params...), Args&&...>::value,
                  "an argument does not convert to its parameter's type without narrowing");
    return launch_values<Params...>(kernel.kernel, grid, block, shared_bytes, Params{std::forward<Args>(args)}...);
  }
  // The runtime's form: `args` points at one value per kernel parameter, of the parameter's size and in its order,
  // which nothing here checks. For kernels without a TypedKernel (prefer one).
  Status launch(const Kernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes, void** args);
  // Debugging (EngineTuning::sync_launches): every launch on this device then waits for its kernel, so an
  // asynchronous fault is reported by the launch that caused it. For the device, i.e. every scorer on it.
  void set_sync_launches(bool on) { sync_launches_.store(on, std::memory_order_relaxed); }
  bool sync_launches() const { return sync_launches_.load(std::memory_order_relaxed); }
  Status record(EventHandle event);
  // The current stream waits (on the device) for an event recorded elsewhere, e.g. by a producer's stream.
  Status wait_event(EventHandle event);
  // ok when everything queued so far on the library stream and the lanes has finished, Errc::busy when not.
  Status query();
  // Host waits for the library stream, the lanes, then the upload stream. Init, teardown and tests only.
  Status synchronize();

  // ---- The upload stream (asynchronous to the host and to the library stream) ----
  // Only host-to-device copies from the engine's own pinned memory into the engine's own device buffers: never
  // producer memory (see the top of this file), never kernels.
  Status upload_async(void* dst, const void* pinned_src, size_t bytes);
  // Records `event` after the work queued on the upload stream so far.
  Status record_upload(EventHandle event);
  // Submits the work queued on the upload stream to the device now, with a query of the stream (its answer, done
  // or busy, is not needed). Call it after queueing work that another stream waits for: on ROCm (a gfx1036,
  // measured), work left unsubmitted after an asynchronous enqueue was overtaken by work queued later on another
  // stream. CUDA submits at enqueue, so there it changes nothing.
  Status submit_upload();
  // The upload stream waits (on the device) for an event, e.g. the library stream's event after the last read of
  // the buffer the next upload overwrites.
  Status upload_wait_event(EventHandle event);
  // Queues `fn(user)` on the upload stream: the uploads queued after it wait until it has returned (a gate that a
  // host thread opens: HipPipeline's staging copies). `fn` runs on a runtime thread and must not call the runtime.
  Status upload_host_func(void (*fn)(void*), void* user);
  bool can_gate_uploads() const { return upload_stream_ != nullptr && api_->launch_host_func.fn != nullptr; }
  // Whether the runtime can order the two streams (stream-wait-event); without it callers keep to the library stream.
  bool can_order_streams() const { return upload_stream_ != nullptr && api_->stream_wait_event.fn != nullptr; }

  // Runs `release` once the work queued on the library stream and the lanes so far has finished, without waiting for it: the
  // release happens in a later collect() (call it once per frame) or when the Device goes away. For resources that
  // must outlive the kernels that read them (imported frames, registered textures).
  Status defer_release(std::function<void()> release);
  // Runs the deferred releases whose work has finished.
  Status collect();
  // Blocks (the calling thread sleeps in the runtime) until the work queued before the oldest deferred release that
  // has not run yet has finished, so that a collect() after it runs that release; runs nothing itself. *none: there
  // was no such release (all have run, or another thread's collect() is running them). For a thread that collects
  // releases as they become ready, without polling.
  Status wait_deferred(bool* none);

  // Event handles for internal pools (Event wraps one with RAII). `blocking`: a host wait on it sleeps instead of
  // spinning (Api::event_create_blocking).
  Status create_event(EventHandle* out, bool blocking = false);
  void destroy_event(EventHandle e);

 private:
  Device() = default;
  Status init(const Api* api, int index);
  Status init_streams();
  template <class... Params>
  Status launch_values(const Kernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes, Params... values) {
    void* args[sizeof...(Params) > 0 ? sizeof...(Params) : 1] = {static_cast<void*>(&values)...};
    if (CallRecorder* r = recorder()) {
      const size_t sizes[sizeof...(Params) > 0 ? sizeof...(Params) : 1] = {sizeof(Params)...};
      return record_launch(r, kernel, grid, block, shared_bytes, args, sizes, sizeof...(Params));
    }
    return launch(kernel, grid, block, shared_bytes, args);
  }
  // The calling thread's active recorder of this device (hip/graph.h's RecordScope), or null.
  CallRecorder* recorder() const;
  Status record_launch(CallRecorder* r, const Kernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes,
                       void** args, const size_t* sizes, size_t count);

  const Api* api_ = nullptr;
  DeviceInfo info_;
  Context context_ = nullptr;
  StreamHandle stream_ = nullptr;
  StreamHandle upload_stream_ = nullptr;
  bool context_retained_ = false;
  std::shared_ptr<void> context_owner_;  // adopt(): what keeps the caller's context alive

  std::atomic<bool> sync_launches_{false};  // set_sync_launches

  // Lanes (ensure_lanes): the streams, and for record_all a release stream with one mark event per compute stream
  // (library stream first). A stream waits for an event as it was recorded at the wait, so the marks are reused.
  StreamHandle lanes_[kMaxLanes] = {};
  std::atomic<unsigned> lane_count_{0};
  StreamHandle release_stream_ = nullptr;
  EventHandle marks_[kMaxLanes + 1] = {};
  std::mutex lanes_mutex_;  // ensure_lanes and record_all

  mutable std::mutex mutex_;
  mutable std::atomic<bool> failed_{false};
  mutable Status first_error_;

  struct Deferred {
    EventHandle event;
    std::function<void()> release;
  };
  std::mutex deferred_mutex_;
  std::vector<Deferred> deferred_;
  std::vector<EventHandle> spare_events_;  // blocking events of finished releases, for the next defer_release
  // Events wait_deferred() is waiting on now, and those of them whose release collect() has run meanwhile: those
  // go back to spare_events_ only once the wait is over, so that no event is recorded again while waited on.
  std::vector<EventHandle> waited_events_;
  std::vector<EventHandle> retired_events_;
};

// Makes `stream` (a lane of `device`, or its library stream) the calling thread's current stream for `device` for the
// scope (Device::current_stream), and restores the previous one after.
class StreamScope {
 public:
  StreamScope(const Device& device, StreamHandle stream);
  ~StreamScope();
  StreamScope(const StreamScope&) = delete;
  StreamScope& operator=(const StreamScope&) = delete;

 private:
  const Device* previous_device_;
  StreamHandle previous_stream_;
};

// Binds a device's context to the calling thread for the scope and restores the previous one after (NVIDIA needs
// the context current on each calling thread; on AMD it selects the device). Hold one around direct table calls.
class ContextScope {
 public:
  explicit ContextScope(const Device& device);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;
  const Status& status() const { return status_; }

 private:
  const Device& device_;
  Context previous_ = nullptr;
  bool switched_ = false;
  Status status_;
};

// A kernel function of a loaded Module.
struct Kernel {
  FunctionHandle fn = nullptr;
  std::string name;
};

// A kernel function with its parameter list, e.g. TypedKernel<motion_sad_kernel_fn>. Each kernel's header
// (kernels/<feature>_impl.h) declares its function type (`typedef void motion_sad_kernel_fn(VxPlane prev, ...)`) and
// the kernel source declares the kernel with that type before defining it, so a definition with other parameters
// does not compile; host code launches it through this handle, whose Device::launch checks the arguments against
// the same type. Module::function fills it.
template <class... Params>
struct TypedKernel<void(Params...)> {
  Kernel kernel;
  explicit operator bool() const { return kernel.fn != nullptr; }
};

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;

  static Status create(std::shared_ptr<Device> device, size_t bytes, DeviceBuffer* out);
  // `rows` rows of `row_bytes`, each row starting kPitchAlignment-aligned.
  static Status create_2d(std::shared_ptr<Device> device, size_t row_bytes, size_t rows, DeviceBuffer* out);
  static constexpr size_t kPitchAlignment = 256;

  void* data() const { return data_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  size_t size() const { return size_; }
  size_t pitch() const { return pitch_; }  // bytes between rows (create_2d), else size()
  explicit operator bool() const { return data_ != nullptr; }
  void reset();

 private:
  std::shared_ptr<Device> device_;
  void* data_ = nullptr;
  size_t size_ = 0;
  size_t pitch_ = 0;
};

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() { reset(); }
  PinnedBuffer(PinnedBuffer&& o) noexcept { *this = std::move(o); }
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept;

  static Status create(std::shared_ptr<Device> device, size_t bytes, PinnedBuffer* out);

  uint8_t* data() const { return static_cast<uint8_t*>(data_); }
  size_t size() const { return size_; }
  explicit operator bool() const { return data_ != nullptr; }
  void reset();

 private:
  std::shared_ptr<Device> device_;
  void* data_ = nullptr;
  size_t size_ = 0;
};

class Event {
 public:
  Event() = default;
  ~Event() { reset(); }
  Event(Event&& o) noexcept { *this = std::move(o); }
  Event& operator=(Event&& o) noexcept;

  // `blocking`: a host thread waiting in synchronize() sleeps until the event completes instead of spinning (for
  // waits off the per-frame path, such as a release thread's).
  static Status create(std::shared_ptr<Device> device, Event* out, bool blocking = false);

  // Records the event after the work queued on the current stream so far (Device::current_stream).
  Status record();
  // Records the event after the work queued so far on the library stream and every lane (Device::record_all).
  Status record_all();
  // Records the event after the work queued on the device's upload stream so far.
  Status record_upload();
  // ok once the recorded work has finished, Errc::busy before; a never-recorded event is finished.
  Status query() const;
  Status synchronize() const;
  EventHandle handle() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }
  void reset();

 private:
  std::shared_ptr<Device> device_;
  EventHandle handle_ = nullptr;
};

// N slots of pinned host memory, each with an event. A producer fills slot k for frame n while the device still
// works on frames n-1..n-N+1 from the other slots: upload staging (host writes, device reads) and readback (device
// writes, host reads) alike. Single producer.
class PinnedRing {
 public:
  struct Slot {
    uint8_t* host = nullptr;
    size_t bytes = 0;
    unsigned index = 0;
  };

  static Status create(std::shared_ptr<Device> device, unsigned slots, size_t slot_bytes, PinnedRing* out);

  // The next slot in turn, after the work last submitted on it has finished (a host wait on its event, which in
  // steady state with two or more slots has long passed).
  Status acquire(Slot* out);
  // As acquire(), but Errc::busy instead of waiting.
  Status try_acquire(Slot* out);
  // Records the slot's event after the work queued for it (the copies from or into slot.host) on the library stream.
  Status submit(const Slot& slot);
  // As submit(), for a slot whose copy was queued on the device's upload stream: the slot is free again once that
  // copy has finished, whatever the library stream is doing.
  Status submit_upload(const Slot& slot);
  // The slot's event (for a stream to wait on the slot's copy); null for a slot of another ring.
  EventHandle event(const Slot& slot) const;
  // ok when the work submitted on the slot has finished, Errc::busy when not.
  Status query(const Slot& slot) const;
  Status wait(const Slot& slot) const;

  unsigned slots() const { return unsigned(events_.size()); }
  size_t slot_bytes() const { return slot_bytes_; }

 private:
  Status take(bool wait, Slot* out);
  std::shared_ptr<Device> device_;
  PinnedBuffer memory_;
  std::vector<Event> events_;
  size_t slot_bytes_ = 0;
  unsigned next_ = 0;
};

// A dma-buf (or other opaque fd) imported as external memory and mapped as one device pointer. The fd stays the
// caller's. Destroying it frees the mapping: hand it to Device::defer_release when kernels may still read it.
class ExternalMemory {
 public:
  ExternalMemory() = default;
  ~ExternalMemory() { reset(); }
  ExternalMemory(ExternalMemory&& o) noexcept { *this = std::move(o); }
  ExternalMemory& operator=(ExternalMemory&& o) noexcept;

  // Imports `fd` (total size `size` bytes) and maps [offset, offset + length).
  static Status import_fd(std::shared_ptr<Device> device, int fd, uint64_t size, uint64_t offset, uint64_t length,
                          ExternalMemory* out);

  void* data() const { return mapped_; }
  uint64_t length() const { return length_; }
  void reset();

 private:
  std::shared_ptr<Device> device_;
  ExternalMemoryHandle handle_ = nullptr;
  void* mapped_ = nullptr;
  uint64_t length_ = 0;
};

}  // namespace vmafx::hip

// Calls `device.api().op(args...)` on a device: refuses once the device has failed, returns unsupported when the
// library lacks the symbol, and records a failure (sticky) naming the symbol, the runtime's error, file and line.
// The caller holds a ContextScope for the device.
#define VMAFX_HIP_CHECK(device, op, ...)                                                                 \
  do {                                                                                                   \
    const ::vmafx::hip::Device& vmafx_hip_dev_ = (device);                                                     \
    if (vmafx_hip_dev_.failed()) return vmafx_hip_dev_.status();                                         \
    const auto& vmafx_hip_entry_ = vmafx_hip_dev_.api().op;                                              \
    if (!vmafx_hip_entry_.fn) return ::vmafx::hip::symbol_missing(vmafx_hip_dev_.api(), vmafx_hip_entry_.symbol); \
    const int vmafx_hip_rc_ = vmafx_hip_entry_.fn(__VA_ARGS__);                                          \
    if (vmafx_hip_rc_ != 0) return vmafx_hip_dev_.fail(vmafx_hip_entry_.symbol, vmafx_hip_rc_, __FILE__, __LINE__); \
  } while (0)
