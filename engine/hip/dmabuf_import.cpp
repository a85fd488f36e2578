// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/dmabuf_import.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace vmafx::hip {

Status import_dmabuf_external_memory(const std::shared_ptr<Device>& device, int fd, uint64_t size,
                                     DeviceMemory* out) {
  *out = {};
  const int runtime_fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (runtime_fd < 0)
    return {Errc::out_of_memory, std::string("F_DUPFD_CLOEXEC for the runtime's copy failed: ") + std::strerror(errno)};
  auto memory = std::make_shared<ExternalMemory>();
  Status s = ExternalMemory::import_fd(device, runtime_fd, size, 0, size, memory.get());
  if (!s) {
    ::close(runtime_fd);  // a failed import leaves the fd with us on both vendors
    return s;
  }
  const bool close_after = device->api().vendor != Vendor::nvidia;
  out->data = memory->data();
  out->release = [memory, runtime_fd, close_after]() {
    memory->reset();
    if (close_after) ::close(runtime_fd);
  };
  return Status::ok();
}

namespace {

class HipDmaBufDevice final : public DmaBufDevice {
 public:
  HipDmaBufDevice(std::shared_ptr<Device> device, DmaBufImportFn import_fn)
      : device_(std::move(device)), import_fn_(std::move(import_fn)) {
    if (!import_fn_) import_fn_ = import_dmabuf_external_memory;
  }
  int index() const override { return device_->info().index; }
  std::string name() const override {
    return std::string(vendor_name(device_->info().vendor)) + " " + device_->info().name;
  }
  std::string vendor() const override { return vendor_name(device_->info().vendor); }
  Status import(int fd, uint64_t size, DeviceMemory* out) override { return import_fn_(device_, fd, size, out); }
  Status defer(std::function<void()> release) override { return device_->defer_release(std::move(release)); }
  Status collect() override { return device_->collect(); }
  Status wait_oldest(bool* none) override { return device_->wait_deferred(none); }
  Status drain() override {
    Status s = device_->synchronize();
    Status c = device_->collect();
    return s ? c : s;
  }
  bool failed() const override { return device_->failed(); }

 private:
  std::shared_ptr<Device> device_;
  DmaBufImportFn import_fn_;
};

Vendor hip_vendor(vmafx::Vendor v) {
  switch (v) {
    case vmafx::Vendor::amd: return Vendor::amd;
    case vmafx::Vendor::nvidia: return Vendor::nvidia;
    default: return Vendor::auto_select;
  }
}

}  // namespace

std::shared_ptr<DmaBufDevice> make_dmabuf_device(std::shared_ptr<Device> device, DmaBufImportFn import_fn) {
  return std::make_shared<HipDmaBufDevice>(std::move(device), std::move(import_fn));
}

Status open_dmabuf_device(vmafx::Vendor vendor, int device_id, std::shared_ptr<DmaBufDevice>* out) {
  out->reset();
  std::shared_ptr<Device> device;
  VMAFX_TRY(Device::get(hip_vendor(vendor), device_id, &device));
  VMAFX_TRY(device->status());
  *out = make_dmabuf_device(std::move(device));
  return Status::ok();
}

}  // namespace vmafx::hip
