// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA memory input on the GPU (vmafx/cuda.h): the engine's device on a shared or adopted CUDA context, frames read
// in place or copied device to device, releases behind events, and the extra CUDA driver entry points
// (hip/cuda_memory.h).
#include "hip/cuda_memory.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "hip/device.h"
#include "hip/loader_internal.h"
#include "import/test_hooks.h"
#include "vmafx/cuda.h"

namespace vmafx::hip {

// ---- Extra driver entry points ----------------------------------------------------------------------------------

Status cuda_driver(const Api& api, const CudaDriver** out) {
  *out = nullptr;
  if (api.vendor != Vendor::nvidia) return {Errc::unsupported, "CUDA driver entry points asked of " + api.library};
  static std::mutex mu;
  static CudaDriver table;
  static Status result{Errc::unsupported, "not loaded"};
  static bool loaded = false;
  std::lock_guard<std::mutex> lock(mu);
  if (!loaded) {
    loaded = true;
    std::string err;
    void* lib = detail::open_library(api.library, &err);  // the loaded library: dlopen only adds a reference
    if (!lib) {
      result = {Errc::unsupported, err};
    } else {
      CudaDriver t;
      t.library = api.library;
      std::string absent;
      auto need = [&](const char* name, auto* slot) {
        if (!detail::resolve(lib, name, slot)) absent += std::string(absent.empty() ? "" : ", ") + name;
      };
      need("cuCtxGetDevice", &t.ctx_get_device);
      need("cuCtxCreate_v2", &t.ctx_create);
      need("cuCtxDestroy_v2", &t.ctx_destroy);
      need("cuPointerGetAttribute", &t.pointer_get_attribute);
      need("cuMemcpyPeerAsync", &t.memcpy_peer_async);
      need("cuDeviceGet", &t.device_get);
      if (!detail::resolve(lib, "cuDeviceGetUuid_v2", &t.device_get_uuid))
        detail::resolve(lib, "cuDeviceGetUuid", &t.device_get_uuid);
      if (absent.empty()) {
        table = t;
        result = Status::ok();
      } else {
        result = {Errc::unsupported, api.library + " lacks " + absent};
      }
    }
  }
  if (result) *out = &table;
  return result;
}

std::string cuda_device_uuid(const Api& api, int index) {
  const CudaDriver* d = nullptr;
  if (!cuda_driver(api, &d) || !d->device_get_uuid) return "";
  const int ordinal = api.ordinal_of(index);
  int dev = 0;
  unsigned char uuid[16] = {};
  if (ordinal < 0 || d->device_get(&dev, ordinal) != 0 || d->device_get_uuid(uuid, dev) != 0) return "";
  std::string s;
  char buf[3];
  for (unsigned char b : uuid) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    s += buf;
  }
  return s;
}

namespace {

// Binds `ctx` on this thread for the scope (a context that is not a Device's), restoring the caller's after.
class ForeignContextScope {
 public:
  ForeignContextScope(const Api& api, Context ctx) : api_(api) {
    rc_ = api.context_get_current.fn(&previous_);
    if (rc_ == 0 && previous_ != ctx) {
      rc_ = api.context_make_current.fn(ctx);
      switched_ = rc_ == 0;
    }
  }
  ~ForeignContextScope() {
    if (switched_) api_.context_make_current.fn(previous_);
  }
  int rc() const { return rc_; }

 private:
  const Api& api_;
  Context previous_ = nullptr;
  bool switched_ = false;
  int rc_ = 0;
};

std::string context_text(const void* c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", c);
  return buf;
}

// The CUcontext a device pointer was allocated in, or null when the driver does not say (memory mapped with
// cuMemMap has none).
void* pointer_context(const CudaDriver& d, uint64_t ptr) {
  void* ctx = nullptr;
  if (d.pointer_get_attribute(&ctx, cuda_abi::kPointerAttributeContext, ptr) != 0) return nullptr;
  return ctx;
}

}  // namespace

}  // namespace vmafx::hip

namespace vmafx::cuda {

using hip::Api;
using hip::ContextScope;
using hip::CudaDriver;
using hip::Device;
using hip::DeviceBuffer;
using hip::Event;

bool cuda_import_built() { return true; }

namespace {

EngineContext context_of(std::shared_ptr<Device> device) {
  EngineContext e;
  e.context = device->context();
  e.device = device->api().ordinal_of(device->info().index);
  e.index = device->info().index;
  e.name = device->info().name;
  e.adopted = device->adopted();
  e.hold = std::move(device);
  return e;
}

// Releases queued behind events on the library stream, run by one thread as each event passes (a host wait on that
// event only). Shared by the importer and its pictures, which may outlive it.
class ReleaseQueue {
 public:
  explicit ReleaseQueue(std::shared_ptr<Device> device) : device_(std::move(device)) {
    thread_ = std::thread([this] { loop(); });
  }
  ~ReleaseQueue() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  // Queues `release` behind an event recorded now after the library stream and the lanes (Device::record_all). When
  // that cannot be recorded (the device failed) the GPU is no longer reading anything of ours: the release runs at
  // once.
  Status push(std::function<void()> release) {
    Event e;
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (!spare_.empty()) {
        e = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    // Blocking: the release thread sleeps in synchronize() until the reads behind the event are done.
    Status s = e ? Status::ok() : Event::create(device_, &e, /*blocking=*/true);
    if (s) s = e.record_all();
    if (!s) {
      if (release) release();
      return s;
    }
    {
      std::lock_guard<std::mutex> lk(mu_);
      queue_.push_back({std::move(e), std::move(release)});
      pending_++;
    }
    cv_.notify_all();
    return Status::ok();
  }

  // Waits until every queued release has run.
  void drain() {
    std::unique_lock<std::mutex> lk(mu_);
    idle_.wait(lk, [&] { return pending_ == 0; });
  }
  uint64_t pending() const {
    std::lock_guard<std::mutex> lk(mu_);
    return pending_;
  }

 private:
  struct Item {
    Event event;
    std::function<void()> release;
  };

  void loop() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop_ and nothing left
      Item item = std::move(queue_.front());
      queue_.pop_front();
      lk.unlock();
      (void)item.event.synchronize();  // a failure is the device's sticky error; the GPU reads nothing more
      if (item.release) item.release();
      item.release = nullptr;
      lk.lock();
      spare_.push_back(std::move(item.event));
      pending_--;
      if (pending_ == 0) idle_.notify_all();
    }
  }

  std::shared_ptr<Device> device_;
  mutable std::mutex mu_;
  std::condition_variable cv_, idle_;
  std::deque<Item> queue_;
  std::vector<Event> spare_;
  uint64_t pending_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

// Device frames the copy path writes into, reused once their picture is released.
struct CopyPool {
  struct Frame {
    DeviceBuffer memory;
    bool in_use = false;
  };
  std::mutex mu;
  std::vector<std::unique_ptr<Frame>> frames;
  std::atomic<uint64_t> allocated{0};

  Status acquire(const std::shared_ptr<Device>& device, size_t bytes, Frame** out) {
    std::lock_guard<std::mutex> lk(mu);
    for (auto& f : frames) {
      if (!f->in_use && f->memory.size() == bytes) {
        f->in_use = true;
        *out = f.get();
        return Status::ok();
      }
    }
    auto idle_other = [&](const std::unique_ptr<Frame>& f) { return !f->in_use && f->memory.size() != bytes; };
    frames.erase(std::remove_if(frames.begin(), frames.end(), idle_other), frames.end());
    auto f = std::make_unique<Frame>();
    VMAFX_TRY(DeviceBuffer::create(device, bytes, &f->memory));
    f->in_use = true;
    *out = f.get();
    frames.push_back(std::move(f));
    allocated++;
    return Status::ok();
  }
  void put(Frame* f) {
    std::lock_guard<std::mutex> lk(mu);
    f->in_use = false;
  }
};

class Picture final : public CudaPicture {
 public:
  Picture(const PictureView& view, bool copied, std::shared_ptr<ReleaseQueue> queue, std::function<void()> give_back,
          bool early)
      : view_(view), copied_(copied), queue_(std::move(queue)), give_back_(std::move(give_back)), early_(early) {}
  ~Picture() override { release({}); }
  const PictureView& view() const override { return view_; }
  bool copied() const override { return copied_; }
  void release(std::function<void()> then) override {
    if (released_) return;
    released_ = true;
    auto all = [give_back = std::move(give_back_), then = std::move(then)] {
      if (give_back) give_back();
      if (then) then();
    };
    if (kTestHooks && early_) {  // the defect the release-order test must see
      all();
      return;
    }
    (void)queue_->push(std::move(all));
  }

 private:
  PictureView view_;
  bool copied_;
  std::shared_ptr<ReleaseQueue> queue_;
  std::function<void()> give_back_;
  bool early_;
  bool released_ = false;
};

class Importer final : public CudaImporter {
 public:
  Importer(const CudaImporterConfig& config, std::shared_ptr<Device> device, const CudaDriver* driver)
      : config_(config), device_(std::move(device)), driver_(driver),
        queue_(std::make_shared<ReleaseQueue>(device_)), pool_(std::make_shared<CopyPool>()) {}
  ~Importer() override { (void)close(); }

  Status init() { return Event::create(device_, &wait_event_); }

  Status import(const CudaFrame& frame, std::unique_ptr<CudaPicture>* out) override {
    out->reset();
    PictureView view;
    size_t extent[3] = {0, 0, 0};
    VMAFX_TRY(plan_cuda_picture(frame, &view, extent));
    if (device_->failed()) return device_->status();
    const Api& api = device_->api();
    // The memory's own context, where the driver says it: a frame whose memory is not where it claims to be is read
    // by where it is.
    void* mem_ctx = hip::pointer_context(*driver_, frame.planes[0].data);
    void* frame_ctx = mem_ctx ? mem_ctx : frame.context;
    if (mem_ctx && frame.context && mem_ctx != frame.context && !mismatch_said_) {
      mismatch_said_ = true;
      if (config_.on_warning)
        config_.on_warning("CUDA frame memory claims " + describe_cuda_context(frame.context, frame.device) +
                           " but the driver places it in context " + hip::context_text(mem_ctx) + "; using the latter");
    }
    const int our_index = device_->info().index;
    // Contexts and their devices as CUDA numbers them (frame.device is a CUDA ordinal).
    const CudaPathDecision d = decide_cuda_path(frame_ctx, frame.device, device_->context(),
                                                api.ordinal_of(our_index), config_.allow_copy);
    if (d.path == CudaPath::refuse) return {Errc::device_unavailable, d.reason};

    std::lock_guard<std::mutex> lk(mu_);
    ContextScope scope(*device_);
    VMAFX_TRY(scope.status());
    if (d.path == CudaPath::in_place) {
      if (frame.stream) {
        // The producer's queued writes: the library stream waits for them on the device.
        const int rc = api.event_record.fn(wait_event_.handle(), frame.stream);
        if (rc != 0)
          return hip::call_failed(api, api.event_record.symbol, rc, __FILE__, __LINE__)
              .prepend("event on the producer's CUDA stream");
        VMAFX_TRY(device_->wait_event(wait_event_.handle()));
        stats_.stream_waits++;
      }
      view.device = our_index;
      stats_.frames++;
      stats_.in_place++;
      *out = std::make_unique<Picture>(view, false, queue_, nullptr, planted_early_release_);
      return Status::ok();
    }

    // Another context or GPU: one device-to-device copy per plane into a frame of ours, on the library stream.
    if (!frame_ctx) return {Errc::device_unavailable, "the CUDA frame's context is unknown: " + d.reason};
    if (frame.stream) {
      hip::ForeignContextScope theirs(api, frame_ctx);
      int rc = theirs.rc();
      if (rc == 0) rc = api.stream_synchronize.fn(frame.stream);
      if (rc != 0)
        return hip::call_failed(api, api.stream_synchronize.symbol, rc, __FILE__, __LINE__)
            .prepend("the producer's CUDA stream in " + describe_cuda_context(frame_ctx, frame.device));
      stats_.host_waits++;
    }
    size_t offset[3] = {0, 0, 0}, total = 0;
    for (unsigned i = 0; i < frame.n_planes; i++) {
      if (extent[i] == 0) continue;
      offset[i] = total;
      total += (extent[i] + 255) / 256 * 256;
    }
    CopyPool::Frame* f = nullptr;
    VMAFX_TRY(pool_->acquire(device_, total, &f));
    std::shared_ptr<CopyPool> pool = pool_;
    auto give_back = [pool, f] { pool->put(f); };
    CudaFrame copy = frame;
    const auto base = uint64_t(reinterpret_cast<uintptr_t>(f->memory.data()));
    for (unsigned i = 0; i < frame.n_planes; i++) {
      if (extent[i] == 0) continue;
      const int rc = driver_->memcpy_peer_async(base + offset[i], device_->context(), frame.planes[i].data, frame_ctx,
                                                extent[i], device_->stream());
      if (rc != 0) {
        give_back();
        return device_->fail("cuMemcpyPeerAsync", rc, __FILE__, __LINE__);
      }
      copy.planes[i].data = base + offset[i];
      copy.planes[i].available = extent[i];
    }
    copy.device = our_index;
    Status s = plan_cuda_picture(copy, &view);
    if (!s) {
      give_back();
      return s.prepend("device copy");
    }
    if (!copy_said_) {
      copy_said_ = true;
      copy_reason_ = d.reason;
      if (config_.on_warning) config_.on_warning(d.reason);
    }
    stats_.frames++;
    stats_.copied++;
    *out = std::make_unique<Picture>(view, true, queue_, give_back, planted_early_release_);
    return Status::ok();
  }

  CudaImportStats stats() const override {
    std::lock_guard<std::mutex> lk(mu_);
    CudaImportStats s = stats_;
    s.pending_releases = queue_->pending();
    s.copy_frames = pool_->allocated.load();
    return s;
  }

  std::string description() const override {
    const hip::DeviceInfo& di = device_->info();
    std::string s = "nvidia device " + std::to_string(di.index) + " '" + di.name + "' on " +
                    describe_cuda_context(device_->context(), device_->api().ordinal_of(di.index)) +
                    (device_->adopted() ? " (adopted from the producer)" : " (its primary context)");
    std::lock_guard<std::mutex> lk(mu_);
    if (!copy_reason_.empty()) s += "; copies: " + copy_reason_;
    return s;
  }
  const void* context() const override { return device_->context(); }
  int device() const override { return device_->info().index; }

  Status close() override {
    queue_->drain();
    return device_->status();
  }

 private:
  CudaImporterConfig config_;
  // import/test_hooks.h: releases run at once instead of behind the GPU's reads (tests; false without test hooks).
  const bool planted_early_release_ = import_hooks::planted_early_release();
  std::shared_ptr<Device> device_;
  const CudaDriver* driver_;
  std::shared_ptr<ReleaseQueue> queue_;
  std::shared_ptr<CopyPool> pool_;
  Event wait_event_;  // recorded on a producer's stream; the library stream waits for it (reused every frame)
  mutable std::mutex mu_;
  CudaImportStats stats_;
  bool copy_said_ = false, mismatch_said_ = false;
  std::string copy_reason_;
};

}  // namespace

Status CudaImporter::create(const CudaImporterConfig& config, std::unique_ptr<CudaImporter>* out) {
  out->reset();
  std::shared_ptr<Device> device;
  VMAFX_TRY(Device::get(hip::Vendor::nvidia, config.device_id, &device));
  VMAFX_TRY(device->status());
  const CudaDriver* driver = nullptr;
  VMAFX_TRY(hip::cuda_driver(device->api(), &driver));
  auto imp = std::make_unique<Importer>(config, std::move(device), driver);
  VMAFX_TRY(imp->init());
  *out = std::move(imp);
  return Status::ok();
}

Status engine_context(int device_id, EngineContext* out) {
  *out = {};
  std::shared_ptr<Device> device;
  VMAFX_TRY(Device::get(hip::Vendor::nvidia, device_id, &device));
  VMAFX_TRY(device->status());
  *out = context_of(std::move(device));
  return Status::ok();
}

Status adopt_context(void* context, int device, std::shared_ptr<void> owner, EngineContext* out) {
  *out = {};
  if (!context) return {Errc::invalid_argument, "no CUDA context to adopt"};
  const Api* api = nullptr;
  VMAFX_TRY(hip::load_api(hip::Vendor::nvidia, &api));
  const CudaDriver* driver = nullptr;
  VMAFX_TRY(hip::cuda_driver(*api, &driver));
  int ctx_device = -1;
  {
    hip::ForeignContextScope scope(*api, context);
    int rc = scope.rc();
    if (rc == 0) rc = driver->ctx_get_device(&ctx_device);
    if (rc != 0)
      return hip::call_failed(*api, "cuCtxGetDevice", rc, __FILE__, __LINE__)
          .prepend("CUDA context " + hip::context_text(context));
  }
  if (ctx_device != device)
    return {Errc::invalid_argument, "CUDA context " + hip::context_text(context) + " belongs to device " +
                                        std::to_string(ctx_device) + ", not " + std::to_string(device)};
  const int index = api->index_of(device);
  if (index < 0)
    return {Errc::device_unavailable, "CUDA device " + std::to_string(device) + " (of " +
                                          hip::context_text(context) + ") is not one the engine sees (" +
                                          (api->visibility.empty() ? std::string("no visible devices")
                                                                   : api->visibility) +
                                          ")"};
  std::shared_ptr<Device> dev;
  VMAFX_TRY(Device::adopt(hip::Vendor::nvidia, index, context, std::move(owner), &dev));
  *out = context_of(std::move(dev));
  return Status::ok();
}

int engine_device_index(int cuda_ordinal) {
  const Api* api = nullptr;
  if (cuda_ordinal < 0 || !hip::load_api(hip::Vendor::nvidia, &api)) return -1;
  return api->index_of(cuda_ordinal);
}

int cuda_device_ordinal(int index) {
  if (index < 0) return -1;
  const Api* api = nullptr;
  if (!hip::load_api(hip::Vendor::nvidia, &api)) return index;
  const int ordinal = api->ordinal_of(index);
  return ordinal >= 0 ? ordinal : index;
}

}  // namespace vmafx::cuda
