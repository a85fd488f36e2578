// SPDX-License-Identifier: LGPL-2.1-or-later
// Typed host side of kernels/psnr.hip: the per-plane sum of squared differences that PSNR is computed from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "hip/device.h"
#include "hip/module.h"

namespace vmafx::hip {

// A plane in device memory.
struct DevicePlane {
  const void* data = nullptr;
  size_t pitch = 0;      // bytes between rows
  uint32_t width = 0;    // samples per row the feature reads
  uint32_t height = 0;
  uint8_t bytes = 1;     // bytes per stored word: 1 or 2 (little-endian)
  uint8_t shift = 0;     // right shift from a 16-bit word to the sample (P010: 6)
  uint8_t step = 1;      // samples from one sample of the plane to the next (2: interleaved chroma)
};

class PsnrSse {
 public:
  static constexpr unsigned kThreads = 256;  // the kernel's block size (its shared-memory reduction width)

  // Loads the kernel for `device` (embedded image, cache or run-time compilation).
  static Status create(std::shared_ptr<Device> device, PsnrSse* out, const ModuleOptions& options = {});

  // Queues on the library stream: *sse += sum over the plane of (ref - dist)^2. `sse` is a uint64 in device memory
  // that the caller clears (memset_d32_async) after the frame's upload and before this launch.
  Status enqueue(const DevicePlane& ref, const DevicePlane& dist, void* sse) const;

  const Module& module() const { return module_; }

 private:
  std::shared_ptr<Device> device_;
  Module module_;
  Kernel kernel_;
};

}  // namespace vmafx::hip
