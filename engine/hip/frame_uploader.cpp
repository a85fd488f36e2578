// SPDX-License-Identifier: LGPL-2.1-or-later
// FrameUploader (hip/backend.h): device copies of host pictures for several readers. A frame of the pool holds a
// device buffer, pinned staging of the same layout and the event of its last copy; the planes are laid out one after
// another with rows DeviceBuffer::kPitchAlignment apart, and planes that share rows (the interleaved CbCr of NV12,
// P010) are copied once. A luma-only copy leaves the chroma out.
#include <algorithm>
#include <chrono>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "hip/backend.h"
#include "hip/device.h"

namespace vmafx::hip {

namespace {

size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

class Uploader final : public FrameUploader {
 public:
  explicit Uploader(std::shared_ptr<Device> device) : device_(std::move(device)) {}
  ~Uploader() override = default;

  Status upload(const PictureView& host, bool luma_only, PictureView* out, unsigned* slot) override {
    if (host.memory != MemoryKind::host) return {Errc::invalid_argument, "frame uploader: the picture is not in host memory"};
    // The layout: per plane its offset and pitch in the copy; a plane inside the rows of an earlier one keeps its
    // place in that plane's rows.
    struct Rows {
      const uint8_t* src;
      ptrdiff_t stride;
      size_t row_bytes, pitch, offset;
      uint32_t rows;
    };
    Rows rows[3];
    unsigned n = 0;
    size_t plane_offset[3] = {}, plane_pitch[3] = {};
    size_t total = 0;
    const size_t bps = host.bytes_per_sample;
    const unsigned copied = luma_only ? 1 : host.plane_count();
    for (unsigned p = 0; p < copied; p++) {
      const PlaneView& pl = host.planes[p];
      bool inside = false;
      for (unsigned q = 0; q < p && !inside; q++) {
        const PlaneView& o = host.planes[q];
        if (pl.stride == o.stride && pl.data > o.data && pl.data < o.data + ptrdiff_t(bps) * o.step) {
          plane_offset[p] = plane_offset[q] + size_t(pl.data - o.data);
          plane_pitch[p] = plane_pitch[q];
          inside = true;
        }
      }
      if (inside) continue;
      Rows r;
      r.src = pl.data;
      r.stride = pl.stride;
      r.row_bytes = size_t(pl.width) * pl.step * bps;
      r.pitch = align_up(r.row_bytes, DeviceBuffer::kPitchAlignment);
      r.rows = pl.height;
      r.offset = total;
      plane_offset[p] = total;
      plane_pitch[p] = r.pitch;
      total += r.pitch * r.rows;
      rows[n++] = r;
    }

    unsigned s = 0;
    {
      std::unique_lock<std::mutex> lk(mu_);
      // At kMaxFrames held, a while for one to come back; then one more (readers that keep more than that many
      // frames, such as many renditions each holding its last frames, must not wait for each other forever).
      cv_.wait_for(lk, std::chrono::seconds(2), [&] { return !free_.empty() || frames_.size() < kMaxFrames; });
      if (free_.empty()) {
        frames_.push_back(std::make_unique<Frame>());
        s = unsigned(frames_.size() - 1);
      } else {
        s = free_.back();
        free_.pop_back();
      }
    }
    Frame& f = *frames_[s];
    Status st = fill(f, total, rows, n);
    if (!st) {
      give_back(s);
      return st.prepend("uploading a reference picture");
    }
    PictureView v = host;
    v.memory = MemoryKind::device;
    v.device = device_->info().index;
    for (unsigned p = 0; p < host.plane_count(); p++) {
      // Chroma left out: over the luma rows, which hold a chroma plane's rows (as many or fewer, no wider).
      const unsigned from = p < copied ? p : 0;
      v.planes[p].data = f.device.as<uint8_t>() + plane_offset[from];
      v.planes[p].stride = ptrdiff_t(plane_pitch[from]);
    }
    *out = v;
    *slot = s;
    uploads_.fetch_add(1, std::memory_order_relaxed);
    bytes_.fetch_add(total, std::memory_order_relaxed);
    return Status::ok();
  }

  void give_back(unsigned slot) override {
    {
      std::lock_guard<std::mutex> lk(mu_);
      free_.push_back(slot);
    }
    cv_.notify_one();
  }

  uint64_t uploads() const override { return uploads_.load(std::memory_order_relaxed); }
  uint64_t uploaded_bytes() const override { return bytes_.load(std::memory_order_relaxed); }

 private:
  struct Frame {
    DeviceBuffer device;
    PinnedBuffer staging;
    Event copied;  // after the last copy out of `staging`
  };
  template <class R>
  Status fill(Frame& f, size_t total, const R* rows, unsigned n) {
    if (f.device.size() < total) {
      f.device.reset();
      f.staging.reset();
      VMAFX_TRY(DeviceBuffer::create(device_, total, &f.device));
      VMAFX_TRY(PinnedBuffer::create(device_, total, &f.staging));
    }
    if (!f.copied) VMAFX_TRY(Event::create(device_, &f.copied));
    // The readers gave the frame back after their kernels, which the copy preceded; the wait is for a frame that
    // nothing read after its copy.
    VMAFX_TRY(f.copied.synchronize());
    for (unsigned i = 0; i < n; i++) {
      const R& r = rows[i];
      for (uint32_t y = 0; y < r.rows; y++)
        std::memcpy(f.staging.data() + r.offset + size_t(y) * r.pitch, r.src + ptrdiff_t(y) * r.stride, r.row_bytes);
    }
    VMAFX_TRY(device_->copy_async(CopyKind::host_to_device, f.device.data(), f.staging.data(), total));
    return f.copied.record();
  }

  std::shared_ptr<Device> device_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Frame>> frames_;  // only grows; a Frame's address is stable
  std::vector<unsigned> free_;
  std::atomic<uint64_t> uploads_{0}, bytes_{0};
};

}  // namespace

Status create_frame_uploader(Vendor vendor, int index, std::shared_ptr<FrameUploader>* out) {
  // The device the readers run on is open already (their backends opened it): the same object.
  std::shared_ptr<Device> device;
  if (vendor == Vendor::auto_select) {
    device = Device::find(Vendor::amd, index);
    if (!device) device = Device::find(Vendor::nvidia, index);
  }
  if (!device) VMAFX_TRY(Device::get(vendor, index, &device));
  *out = std::make_shared<Uploader>(std::move(device));
  return Status::ok();
}

}  // namespace vmafx::hip
