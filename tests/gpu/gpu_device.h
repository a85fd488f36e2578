// SPDX-License-Identifier: LGPL-2.1-or-later
// The device of the GPU suites, or a visible skip naming why there is none.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "hip/device.h"

namespace vmafx::hip::test {

// VMAFX_HIP_VENDOR (auto, amd, nvidia) and VMAFX_HIP_DEVICE pick the device; default: the first of any vendor.
inline Status test_device(std::shared_ptr<Device>* out) {
  Vendor vendor = Vendor::auto_select;
  if (const char* v = std::getenv("VMAFX_HIP_VENDOR")) VMAFX_TRY(parse_vendor(v, &vendor));
  const char* idx = std::getenv("VMAFX_HIP_DEVICE");
  return Device::get(vendor, idx ? std::atoi(idx) : -1, out);
}

}  // namespace vmafx::hip::test

// In a TEST body: declares `dev` or skips the test with the loader's reason.
#define VMAFX_GPU_DEVICE_OR_SKIP(dev)                                                       \
  std::shared_ptr<::vmafx::hip::Device> dev;                                                \
  do {                                                                                      \
    ::vmafx::Status vmafx_gpu_s_ = ::vmafx::hip::test::test_device(&dev);                   \
    if (vmafx_gpu_s_.code() == ::vmafx::Errc::device_unavailable)                           \
      GTEST_SKIP() << "no GPU device: " << vmafx_gpu_s_.message();                          \
    ASSERT_TRUE(vmafx_gpu_s_.is_ok()) << vmafx_gpu_s_.to_string();                          \
  } while (0)
