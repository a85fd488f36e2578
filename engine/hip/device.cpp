// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/device.h"

#include "hip/graph.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>

#include "hip/runtime_abi.h"
#include "hip/test_hooks.h"

namespace vmafx::hip {

#if VMAFX_TEST_HOOKS
namespace hip_hooks {
namespace {
std::atomic<uint64_t> g_upload_submits{0};
}  // namespace
uint64_t upload_submits() { return g_upload_submits.load(std::memory_order_relaxed); }
void count_upload_submit() { g_upload_submits.fetch_add(1, std::memory_order_relaxed); }
}  // namespace hip_hooks
#endif

// ---- Device -----------------------------------------------------------------------------------------------------

namespace {

// One Device per (vendor, device index) per process while one is alive: get() and adopt() share it.
struct Registry {
  std::mutex mutex;
  std::map<std::pair<int, int>, std::weak_ptr<Device>> devices;
};
Registry& registry() {
  static Registry r;
  return r;
}

Status check_index(const Api* api, Vendor vendor, int index, int* idx) {
  int count = 0;
  VMAFX_HIP_CHECK_API(*api, device_count, &count);
  *idx = index < 0 ? 0 : index;
  if (*idx >= count) {
    return {Errc::device_unavailable,
            std::string(vendor_name(vendor)) + " device " + std::to_string(index) + " requested, " + api->library +
                " reports " + std::to_string(count) + " device(s)" +
                (api->visibility.empty() ? std::string() : " visible (" + api->visibility + ")")};
  }
  return Status::ok();
}

std::string context_text(Context c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", c);
  return buf;
}

}  // namespace

Status Device::get(Vendor vendor, int index, std::shared_ptr<Device>* out) {
  out->reset();
  const Api* api = nullptr;
  VMAFX_TRY(load_api(vendor, &api));
  int idx = 0;
  VMAFX_TRY(check_index(api, vendor, index, &idx));
  Registry& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  std::weak_ptr<Device>& slot = reg.devices[{int(api->vendor), idx}];
  if (auto existing = slot.lock()) {
    *out = std::move(existing);
    return Status::ok();
  }
  std::shared_ptr<Device> dev(new Device());
  Status s = dev->init(api, idx);
  if (!s) return s.prepend(std::string(vendor_name(api->vendor)) + " device " + std::to_string(idx));
  slot = dev;
  *out = std::move(dev);
  return Status::ok();
}

std::shared_ptr<Device> Device::find(Vendor vendor, int index) {
  Registry& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  auto it = reg.devices.find({int(vendor), index});
  return it == reg.devices.end() ? nullptr : it->second.lock();
}

Status Device::adopt(Vendor vendor, int index, Context context, std::shared_ptr<void> owner,
                     std::shared_ptr<Device>* out) {
  out->reset();
  if (vendor != Vendor::nvidia)
    return {Errc::unsupported, "only NVIDIA devices run on a context they are given (CUDA contexts)"};
  if (!context) return {Errc::invalid_argument, "adopt of a null CUDA context"};
  const Api* api = nullptr;
  VMAFX_TRY(load_api(vendor, &api));
  int idx = 0;
  VMAFX_TRY(check_index(api, vendor, index, &idx));
  Registry& reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  std::weak_ptr<Device>& slot = reg.devices[{int(api->vendor), idx}];
  if (auto existing = slot.lock()) {
    if (existing->context() == context) {
      *out = std::move(existing);
      return Status::ok();
    }
    return {Errc::busy, "nvidia device " + std::to_string(idx) + " is in use on CUDA context " +
                            context_text(existing->context()) +
                            (existing->adopted() ? " (adopted)" : " (its primary context)") +
                            ", not on the given context " + context_text(context)};
  }
  std::shared_ptr<Device> dev(new Device());
  dev->api_ = api;
  dev->info_.vendor = api->vendor;
  dev->info_.index = idx;
  dev->context_ = context;
  dev->context_owner_ = std::move(owner);
  Status s = dev->init_streams();
  if (!s) return s.prepend("nvidia device " + std::to_string(idx) + " on CUDA context " + context_text(context));
  slot = dev;
  *out = std::move(dev);
  return Status::ok();
}

Status Device::init(const Api* api, int index) {
  api_ = api;
  info_.vendor = api->vendor;
  info_.index = index;
  VMAFX_HIP_CHECK_API(*api, context_retain, index, &context_);
  context_retained_ = true;
  return init_streams();
}

// Device facts and the two streams, on context_ (retained by init(), or adopted).
Status Device::init_streams() {
  const Api* api = api_;
  const int index = info_.index;
  info_.library = api->library;
  info_.driver_version = api->driver_version;
  char buf[256] = {0};
  if (api->device_name.fn && api->device_name.fn(index, buf, sizeof buf - 1) == 0) info_.name = buf;
  std::memset(buf, 0, sizeof buf);
  if (api->device_pci_bus_id.fn && api->device_pci_bus_id.fn(index, buf, sizeof buf - 1) == 0) info_.pci_bus_id = buf;
  std::memset(buf, 0, sizeof buf);
  VMAFX_HIP_CHECK_API(*api, device_arch, index, buf, int(sizeof buf - 1));
  info_.arch = buf;
  if (api->device_total_memory.fn) api->device_total_memory.fn(index, &info_.total_memory);

  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  VMAFX_HIP_CHECK_API(*api, stream_create, &stream_);
  VMAFX_HIP_CHECK_API(*api, stream_create, &upload_stream_);
  return Status::ok();
}

Device::~Device() {
  if (!api_) return;
  {
    ContextScope scope(*this);
    if (stream_) api_->stream_synchronize.fn(stream_);
    for (unsigned i = 0, n = lanes(); i < n; ++i) api_->stream_synchronize.fn(lanes_[i]);
    if (release_stream_) api_->stream_synchronize.fn(release_stream_);
    if (upload_stream_) api_->stream_synchronize.fn(upload_stream_);
    for (auto& d : deferred_) {
      if (d.release) d.release();
      api_->event_destroy.fn(d.event);
    }
    deferred_.clear();
    for (EventHandle e : spare_events_) api_->event_destroy.fn(e);
    spare_events_.clear();
    for (EventHandle e : retired_events_) api_->event_destroy.fn(e);
    retired_events_.clear();
    for (unsigned i = 0, n = lanes(); i < n; ++i) api_->stream_destroy.fn(lanes_[i]);
    for (EventHandle e : marks_)
      if (e) api_->event_destroy.fn(e);
    lane_count_.store(0);
    if (release_stream_) api_->stream_destroy.fn(release_stream_);
    release_stream_ = nullptr;
    if (upload_stream_) api_->stream_destroy.fn(upload_stream_);
    upload_stream_ = nullptr;
    if (stream_) api_->stream_destroy.fn(stream_);
    stream_ = nullptr;
  }
  if (context_retained_) api_->context_release.fn(info_.index);
  context_owner_.reset();  // adopt(): the caller's context may go now
}

Status Device::make_current() const {
  if (failed()) return status();
  const int rc = api_->context_make_current.fn(context_);
  if (rc != 0) return fail(api_->context_make_current.symbol, rc, __FILE__, __LINE__);
  return Status::ok();
}

Status Device::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return first_error_;
}

Status Device::fail(const char* symbol, int code, const char* file, int line) const {
  return fail(call_failed(*api_, symbol, code, file, line));
}

Status Device::fail(Status s) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!failed_.load(std::memory_order_relaxed)) {
    first_error_ = s;
    first_error_.prepend(info_.name.empty() ? "GPU" : info_.name);
    failed_.store(true, std::memory_order_release);
  }
  return s;
}

Status Device::copy_async(CopyKind kind, void* dst, const void* src, size_t bytes) {
  if (CallRecorder* r = recorder()) {
    if (failed()) return status();
    r->add_copy(kind, dst, src, bytes);
    return Status::ok();
  }
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  switch (kind) {
    case CopyKind::host_to_device: VMAFX_HIP_CHECK(*this, copy_h2d_async, dst, src, bytes, current_stream()); break;
    case CopyKind::device_to_host: VMAFX_HIP_CHECK(*this, copy_d2h_async, dst, src, bytes, current_stream()); break;
    case CopyKind::device_to_device: VMAFX_HIP_CHECK(*this, copy_d2d_async, dst, src, bytes, current_stream()); break;
  }
  return Status::ok();
}

Status Device::copy_2d_async(const Copy2D& copy) {
  if (copy.dst_pitch < copy.width_bytes || copy.src_pitch < copy.width_bytes)
    return {Errc::invalid_argument, "2D copy: a pitch is smaller than the row width"};
  if (copy.width_bytes == 0 || copy.height == 0) return Status::ok();
  if (CallRecorder* r = recorder()) {
    if (failed()) return status();
    r->add_copy_2d(copy);
    return Status::ok();
  }
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  VMAFX_HIP_CHECK(*this, copy_2d_async, copy, current_stream());
  return Status::ok();
}

Status Device::memset_d32_async(void* dst, uint32_t value, size_t count) {
  if (CallRecorder* r = recorder()) {
    if (failed()) return status();
    r->add_memset_d32(dst, value, count);
    return Status::ok();
  }
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  VMAFX_HIP_CHECK(*this, memset_d32_async, dst, value, count, current_stream());
  return Status::ok();
}

Status Device::launch(const Kernel& kernel, Dim3 grid, Dim3 block, unsigned shared_bytes, void** args) {
  if (failed()) return status();
  if (!kernel.fn) return {Errc::invalid_argument, "launch of a kernel that was not loaded"};
  // An untyped launch has no argument sizes to record: while recording it is refused, never reordered.
  if (recorder()) return {Errc::internal, kernel.name + ": an untyped launch while recording a frame"};
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  const StreamHandle stream = current_stream();
  int rc = api_->launch_kernel.fn(kernel.fn, grid, block, shared_bytes, stream, args);
  const char* symbol = api_->launch_kernel.symbol;
  if (rc == 0 && sync_launches_.load(std::memory_order_relaxed)) {
    rc = api_->stream_synchronize.fn(stream);
    symbol = api_->stream_synchronize.symbol;
  }
  if (rc != 0) return fail(call_failed(*api_, symbol, rc, __FILE__, __LINE__).prepend(kernel.name));
  return Status::ok();
}

Status Device::record(EventHandle event) {
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  VMAFX_HIP_CHECK(*this, event_record, event, current_stream());
  return Status::ok();
}

Status Device::wait_event(EventHandle event) {
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  VMAFX_HIP_CHECK(*this, stream_wait_event, current_stream(), event);
  return Status::ok();
}

Status Device::query() {
  if (failed()) return status();
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  const unsigned lanes = this->lanes();
  for (unsigned i = 0; i <= lanes; ++i) {
    const int rc = api_->stream_query.fn(i == 0 ? stream_ : lanes_[i - 1]);
    if (rc == api_->code_not_ready) return {Errc::busy, i == 0 ? "library stream still running" : "a lane still running"};
    if (rc != 0) return fail(api_->stream_query.symbol, rc, __FILE__, __LINE__);
  }
  return Status::ok();
}

Status Device::synchronize() {
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  VMAFX_HIP_CHECK(*this, stream_synchronize, stream_);
  for (unsigned i = 0, n = lanes(); i < n; ++i) VMAFX_HIP_CHECK(*this, stream_synchronize, lanes_[i]);
  if (release_stream_) VMAFX_HIP_CHECK(*this, stream_synchronize, release_stream_);
  VMAFX_HIP_CHECK(*this, stream_synchronize, upload_stream_);
  return Status::ok();
}

// ---- Lanes ----

namespace {
// The calling thread's current stream and the device it belongs to (StreamScope).
thread_local const Device* tl_stream_device = nullptr;
thread_local StreamHandle tl_stream = nullptr;
}  // namespace

StreamScope::StreamScope(const Device& device, StreamHandle stream)
    : previous_device_(tl_stream_device), previous_stream_(tl_stream) {
  tl_stream_device = &device;
  tl_stream = stream;
}

StreamScope::~StreamScope() {
  tl_stream_device = previous_device_;
  tl_stream = previous_stream_;
}

StreamHandle Device::current_stream() const {
  return tl_stream_device == this && tl_stream ? tl_stream : stream_;
}

Status Device::ensure_lanes(unsigned n) {
  if (n > kMaxLanes)
    return {Errc::invalid_argument, std::to_string(n) + " lanes (at most " + std::to_string(kMaxLanes) + ")"};
  std::lock_guard<std::mutex> lock(lanes_mutex_);
  if (n <= lanes()) return Status::ok();
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  if (!api_->stream_wait_event.fn) return {Errc::unsupported, "lanes need stream-wait-event, which the runtime lacks"};
  if (!release_stream_) {
    VMAFX_HIP_CHECK(*this, stream_create, &release_stream_);
    VMAFX_HIP_CHECK(*this, event_create, &marks_[0]);
  }
  for (unsigned i = lanes(); i < n; ++i) {
    VMAFX_HIP_CHECK(*this, stream_create, &lanes_[i]);
    VMAFX_HIP_CHECK(*this, event_create, &marks_[i + 1]);
    lane_count_.store(i + 1, std::memory_order_release);
  }
  return Status::ok();
}

Status Device::record_all(EventHandle event) {
  if (lanes() == 0) {
    ContextScope scope(*this);
    VMAFX_TRY(scope.status());
    VMAFX_HIP_CHECK(*this, event_record, event, stream_);
    return Status::ok();
  }
  std::lock_guard<std::mutex> lock(lanes_mutex_);
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  for (unsigned i = 0, n = lanes(); i <= n; ++i) {
    VMAFX_HIP_CHECK(*this, event_record, marks_[i], i == 0 ? stream_ : lanes_[i - 1]);
    VMAFX_HIP_CHECK(*this, stream_wait_event, release_stream_, marks_[i]);
  }
  VMAFX_HIP_CHECK(*this, event_record, event, release_stream_);
  return Status::ok();
}

Status Device::upload_async(void* dst, const void* pinned_src, size_t bytes) {
  if (bytes == 0) return Status::ok();
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  VMAFX_HIP_CHECK(*this, copy_h2d_async, dst, pinned_src, bytes, upload_stream_);
  return Status::ok();
}

Status Device::record_upload(EventHandle event) {
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  VMAFX_HIP_CHECK(*this, event_record, event, upload_stream_);
  return Status::ok();
}

Status Device::submit_upload() {
  if (failed()) return status();
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  const int rc = api_->stream_query.fn(upload_stream_);
  hip_hooks::count_upload_submit();
  if (rc == 0 || rc == api_->code_not_ready) return Status::ok();
  return fail(api_->stream_query.symbol, rc, __FILE__, __LINE__);
}

Status Device::upload_host_func(void (*fn)(void*), void* user) {
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  VMAFX_HIP_CHECK(*this, launch_host_func, upload_stream_, fn, user);
  return Status::ok();
}

Status Device::upload_wait_event(EventHandle event) {
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  VMAFX_HIP_CHECK(*this, stream_wait_event, upload_stream_, event);
  return Status::ok();
}

Status Device::create_event(EventHandle* out, bool blocking) {
  ContextScope scope(*this);
  VMAFX_TRY(scope.status());
  if (blocking && api_->event_create_blocking.fn) {
    VMAFX_HIP_CHECK(*this, event_create_blocking, out);
  } else {
    VMAFX_HIP_CHECK(*this, event_create, out);
  }
  return Status::ok();
}

void Device::destroy_event(EventHandle e) {
  if (!e) return;
  ContextScope scope(*this);
  const int rc = api_->event_destroy.fn(e);
  if (rc != 0) (void)fail(api_->event_destroy.symbol, rc, __FILE__, __LINE__);
}

Status Device::defer_release(std::function<void()> release) {
  std::lock_guard<std::mutex> lock(deferred_mutex_);
  EventHandle e = nullptr;
  if (!spare_events_.empty()) {
    e = spare_events_.back();
    spare_events_.pop_back();
  } else {
    VMAFX_TRY(create_event(&e, /*blocking=*/true));  // wait_deferred() sleeps on it
  }
  Status s = record_all(e);
  if (!s) {
    spare_events_.push_back(e);
    return s;
  }
  deferred_.push_back({e, std::move(release)});
  return Status::ok();
}

Status Device::collect() {
  std::vector<std::function<void()>> ready;
  Status result;
  {
    std::lock_guard<std::mutex> lock(deferred_mutex_);
    ContextScope scope(*this);
    VMAFX_TRY(scope.status());
    size_t done = 0;
    // Events were recorded in stream order: the first unfinished one ends the finished prefix.
    for (; done < deferred_.size(); ++done) {
      const int rc = api_->event_query.fn(deferred_[done].event);
      if (rc == api_->code_not_ready) break;
      if (rc != 0) {
        result = fail(api_->event_query.symbol, rc, __FILE__, __LINE__);
        break;
      }
      ready.push_back(std::move(deferred_[done].release));
      const EventHandle e = deferred_[done].event;
      const bool waited = std::find(waited_events_.begin(), waited_events_.end(), e) != waited_events_.end();
      (waited ? retired_events_ : spare_events_).push_back(e);
    }
    deferred_.erase(deferred_.begin(), deferred_.begin() + ptrdiff_t(done));
  }
  for (auto& r : ready) {
    if (r) r();
  }
  return result;
}

Status Device::wait_deferred(bool* none) {
  *none = false;
  if (failed()) return status();
  EventHandle e = nullptr;
  {
    std::lock_guard<std::mutex> lock(deferred_mutex_);
    if (deferred_.empty()) {
      *none = true;
      return Status::ok();
    }
    e = deferred_.front().event;
    waited_events_.push_back(e);
  }
  int rc = 0;
  {
    ContextScope scope(*this);
    rc = scope.status() ? api_->event_synchronize.fn(e) : 0;
  }
  {
    std::lock_guard<std::mutex> lock(deferred_mutex_);
    waited_events_.erase(std::find(waited_events_.begin(), waited_events_.end(), e));
    const bool still_waited = std::find(waited_events_.begin(), waited_events_.end(), e) != waited_events_.end();
    auto retired = std::find(retired_events_.begin(), retired_events_.end(), e);
    if (retired != retired_events_.end() && !still_waited) {
      retired_events_.erase(retired);
      spare_events_.push_back(e);
    }
  }
  if (rc != 0) return fail(api_->event_synchronize.symbol, rc, __FILE__, __LINE__);
  return failed() ? status() : Status::ok();
}

// ---- ContextScope -----------------------------------------------------------------------------------------------

ContextScope::ContextScope(const Device& device) : device_(device) {
  const Api& api = device.api();
  Context current = nullptr;
  int rc = api.context_get_current.fn(&current);
  if (rc != 0) {
    status_ = device.fail(api.context_get_current.symbol, rc, __FILE__, __LINE__);
    return;
  }
  if (current == device.context()) return;
  rc = api.context_make_current.fn(device.context());
  if (rc != 0) {
    status_ = device.fail(api.context_make_current.symbol, rc, __FILE__, __LINE__);
    return;
  }
  previous_ = current;
  switched_ = true;
}

ContextScope::~ContextScope() {
  if (switched_) device_.api().context_make_current.fn(previous_);
}

// ---- DeviceBuffer -----------------------------------------------------------------------------------------------

namespace {

Status allocation_failed(const Device& dev, const char* what, const Entry<int(void**, size_t)>& entry, int rc,
                         size_t bytes) {
  const std::string msg = std::string(what) + " of " + std::to_string(bytes) + " bytes: " + entry.symbol +
                          " failed: " + dev.api().describe(rc);
  if (rc == abi::kErrorOutOfMemory) return {Errc::out_of_memory, msg};
  return dev.fail(Status(Errc::device_error, msg));
}

}  // namespace

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    reset();
    device_ = std::move(o.device_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    pitch_ = std::exchange(o.pitch_, 0);
  }
  return *this;
}

Status DeviceBuffer::create(std::shared_ptr<Device> device, size_t bytes, DeviceBuffer* out) {
  out->reset();
  if (!device) return {Errc::invalid_argument, "device buffer without a device"};
  if (bytes == 0) return {Errc::invalid_argument, "device buffer of 0 bytes"};
  if (device->failed()) return device->status();
  ContextScope scope(*device);
  VMAFX_TRY(scope.status());
  void* p = nullptr;
  const int rc = device->api().malloc_device.fn(&p, bytes);
  if (rc != 0) return allocation_failed(*device, "device allocation", device->api().malloc_device, rc, bytes);
  out->device_ = std::move(device);
  out->data_ = p;
  out->size_ = bytes;
  out->pitch_ = bytes;
  return Status::ok();
}

Status DeviceBuffer::create_2d(std::shared_ptr<Device> device, size_t row_bytes, size_t rows, DeviceBuffer* out) {
  if (row_bytes == 0 || rows == 0) return {Errc::invalid_argument, "2D device buffer with no rows or columns"};
  const size_t pitch = (row_bytes + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  VMAFX_TRY(create(std::move(device), pitch * rows, out));
  out->pitch_ = pitch;
  return Status::ok();
}

void DeviceBuffer::reset() {
  if (data_ && device_) {
    ContextScope scope(*device_);
    const int rc = device_->api().free_device.fn(data_);
    if (rc != 0) (void)device_->fail(device_->api().free_device.symbol, rc, __FILE__, __LINE__);
  }
  data_ = nullptr;
  size_ = pitch_ = 0;
  device_.reset();
}

// ---- PinnedBuffer -----------------------------------------------------------------------------------------------

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& o) noexcept {
  if (this != &o) {
    reset();
    device_ = std::move(o.device_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

Status PinnedBuffer::create(std::shared_ptr<Device> device, size_t bytes, PinnedBuffer* out) {
  out->reset();
  if (!device) return {Errc::invalid_argument, "pinned buffer without a device"};
  if (bytes == 0) return {Errc::invalid_argument, "pinned buffer of 0 bytes"};
  if (device->failed()) return device->status();
  ContextScope scope(*device);
  VMAFX_TRY(scope.status());
  void* p = nullptr;
  const int rc = device->api().malloc_pinned.fn(&p, bytes);
  if (rc != 0) return allocation_failed(*device, "pinned host allocation", device->api().malloc_pinned, rc, bytes);
  out->device_ = std::move(device);
  out->data_ = p;
  out->size_ = bytes;
  return Status::ok();
}

void PinnedBuffer::reset() {
  if (data_ && device_) {
    ContextScope scope(*device_);
    const int rc = device_->api().free_pinned.fn(data_);
    if (rc != 0) (void)device_->fail(device_->api().free_pinned.symbol, rc, __FILE__, __LINE__);
  }
  data_ = nullptr;
  size_ = 0;
  device_.reset();
}

// ---- Event ------------------------------------------------------------------------------------------------------

Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    reset();
    device_ = std::move(o.device_);
    handle_ = std::exchange(o.handle_, nullptr);
  }
  return *this;
}

Status Event::create(std::shared_ptr<Device> device, Event* out, bool blocking) {
  out->reset();
  if (!device) return {Errc::invalid_argument, "event without a device"};
  EventHandle h = nullptr;
  VMAFX_TRY(device->create_event(&h, blocking));
  out->device_ = std::move(device);
  out->handle_ = h;
  return Status::ok();
}

Status Event::record() {
  if (!handle_) return {Errc::invalid_argument, "record of an event that was not created"};
  return device_->record(handle_);
}

Status Event::record_all() {
  if (!handle_) return {Errc::invalid_argument, "record of an event that was not created"};
  return device_->record_all(handle_);
}

Status Event::record_upload() {
  if (!handle_) return {Errc::invalid_argument, "record of an event that was not created"};
  return device_->record_upload(handle_);
}

Status Event::query() const {
  if (!handle_) return {Errc::invalid_argument, "query of an event that was not created"};
  if (device_->failed()) return device_->status();
  ContextScope scope(*device_);
  VMAFX_TRY(scope.status());
  const Api& api = device_->api();
  const int rc = api.event_query.fn(handle_);
  if (rc == 0) return Status::ok();
  if (rc == api.code_not_ready) return {Errc::busy, "event not reached yet"};
  return device_->fail(api.event_query.symbol, rc, __FILE__, __LINE__);
}

Status Event::synchronize() const {
  if (!handle_) return {Errc::invalid_argument, "wait on an event that was not created"};
  ContextScope scope(*device_);
  VMAFX_TRY(scope.status());
  VMAFX_HIP_CHECK(*device_, event_synchronize, handle_);
  return Status::ok();
}

void Event::reset() {
  if (handle_ && device_) device_->destroy_event(handle_);
  handle_ = nullptr;
  device_.reset();
}

// ---- PinnedRing -------------------------------------------------------------------------------------------------

Status PinnedRing::create(std::shared_ptr<Device> device, unsigned slots, size_t slot_bytes, PinnedRing* out) {
  if (slots == 0 || slot_bytes == 0) return {Errc::invalid_argument, "pinned ring with no slots or empty slots"};
  PinnedRing ring;
  ring.slot_bytes_ = (slot_bytes + 255) / 256 * 256;
  VMAFX_TRY(PinnedBuffer::create(device, ring.slot_bytes_ * slots, &ring.memory_));
  ring.events_.resize(slots);
  for (auto& e : ring.events_) VMAFX_TRY(Event::create(device, &e));
  ring.device_ = std::move(device);
  *out = std::move(ring);
  return Status::ok();
}

Status PinnedRing::take(bool wait, Slot* out) {
  if (events_.empty()) return {Errc::invalid_argument, "pinned ring not created"};
  const unsigned i = next_;
  Status s = events_[i].query();
  if (s.code() == Errc::busy) {
    if (!wait) return s;
    s = events_[i].synchronize();
  }
  VMAFX_TRY(s);
  out->host = memory_.data() + size_t(i) * slot_bytes_;
  out->bytes = slot_bytes_;
  out->index = i;
  next_ = (i + 1) % unsigned(events_.size());
  return Status::ok();
}

Status PinnedRing::acquire(Slot* out) { return take(true, out); }
Status PinnedRing::try_acquire(Slot* out) { return take(false, out); }

Status PinnedRing::submit(const Slot& slot) {
  if (slot.index >= events_.size()) return {Errc::invalid_argument, "slot of another ring"};
  return events_[slot.index].record();
}

Status PinnedRing::submit_upload(const Slot& slot) {
  if (slot.index >= events_.size()) return {Errc::invalid_argument, "slot of another ring"};
  return events_[slot.index].record_upload();
}

EventHandle PinnedRing::event(const Slot& slot) const {
  return slot.index < events_.size() ? events_[slot.index].handle() : nullptr;
}

Status PinnedRing::query(const Slot& slot) const {
  if (slot.index >= events_.size()) return {Errc::invalid_argument, "slot of another ring"};
  return events_[slot.index].query();
}

Status PinnedRing::wait(const Slot& slot) const {
  if (slot.index >= events_.size()) return {Errc::invalid_argument, "slot of another ring"};
  return events_[slot.index].synchronize();
}

// ---- ExternalMemory ---------------------------------------------------------------------------------------------

ExternalMemory& ExternalMemory::operator=(ExternalMemory&& o) noexcept {
  if (this != &o) {
    reset();
    device_ = std::move(o.device_);
    handle_ = std::exchange(o.handle_, nullptr);
    mapped_ = std::exchange(o.mapped_, nullptr);
    length_ = std::exchange(o.length_, 0);
  }
  return *this;
}

// A refused import is the runtime declining this memory (NVIDIA cannot import dma-bufs, for one), not a broken
// device: it is returned as Errc::unsupported and is not sticky.
Status ExternalMemory::import_fd(std::shared_ptr<Device> device, int fd, uint64_t size, uint64_t offset,
                                 uint64_t length, ExternalMemory* out) {
  out->reset();
  if (!device) return {Errc::invalid_argument, "external memory without a device"};
  if (fd < 0 || size == 0 || length == 0 || offset > size || length > size - offset)
    return {Errc::out_of_range, "external memory range [" + std::to_string(offset) + ", +" + std::to_string(length) +
                                    ") outside an fd of " + std::to_string(size) + " bytes"};
  if (device->failed()) return device->status();
  const Api& api = device->api();
  for (const char* missing : {api.external_memory_import_fd.fn ? nullptr : api.external_memory_import_fd.symbol,
                              api.external_memory_mapped_buffer.fn ? nullptr : api.external_memory_mapped_buffer.symbol,
                              api.external_memory_destroy.fn ? nullptr : api.external_memory_destroy.symbol}) {
    if (missing) return symbol_missing(api, missing);
  }
  ContextScope scope(*device);
  VMAFX_TRY(scope.status());
  ExternalMemoryHandle h = nullptr;
  int rc = api.external_memory_import_fd.fn(&h, fd, size);
  if (rc != 0) {
    Status s = call_failed(api, api.external_memory_import_fd.symbol, rc, __FILE__, __LINE__);
    return {Errc::unsupported, s.message()};
  }
  void* p = nullptr;
  rc = api.external_memory_mapped_buffer.fn(&p, h, offset, length);
  if (rc != 0) {
    api.external_memory_destroy.fn(h);
    Status s = call_failed(api, api.external_memory_mapped_buffer.symbol, rc, __FILE__, __LINE__);
    return {Errc::unsupported, s.message()};
  }
  out->device_ = std::move(device);
  out->handle_ = h;
  out->mapped_ = p;
  out->length_ = length;
  return Status::ok();
}

void ExternalMemory::reset() {
  if (handle_ && device_) {
    ContextScope scope(*device_);
    const Api& api = device_->api();
    if (mapped_) {
      const int rc = api.free_device.fn(mapped_);
      if (rc != 0) (void)device_->fail(api.free_device.symbol, rc, __FILE__, __LINE__);
    }
    const int rc = api.external_memory_destroy.fn(handle_);
    if (rc != 0) (void)device_->fail(api.external_memory_destroy.symbol, rc, __FILE__, __LINE__);
  }
  handle_ = nullptr;
  mapped_ = nullptr;
  length_ = 0;
  device_.reset();
}

}  // namespace vmafx::hip
