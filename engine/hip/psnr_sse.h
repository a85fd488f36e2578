// SPDX-License-Identifier: LGPL-2.1-or-later
// Typed host side of kernels/psnr.hip: the per-plane sum of squared differences that PSNR is computed from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "hip/device.h"
#include "hip/kernels/psnr_impl.h"
#include "hip/module.h"
#include "hip/plane.h"  // DevicePlane, which used to be declared here

namespace vmafx::hip {

class PsnrSse {
 public:
  static constexpr unsigned kThreads = PSNR_SSE_THREADS;  // the kernel's block size (its reduction's width)

  // Loads the kernel for `device` (embedded image, cache or run-time compilation).
  static Status create(std::shared_ptr<Device> device, PsnrSse* out, const ModuleOptions& options = {});

  // Queues on the library stream: *sse += sum over the plane of (ref - dist)^2. `sse` is a uint64 in device memory
  // that the caller clears (memset_d32_async) after the frame's upload and before this launch. Checks the planes (the
  // entry point of tests and benchmarks): the same size, bytes and shift, 1 or 2 bytes, a pitch that holds a row.
  Status enqueue(const DevicePlane& ref, const DevicePlane& dist, void* sse) const;
  // The same without the checks, for planes the pipeline has checked (asserted in debug builds).
  Status launch(const DevicePlane& ref, const DevicePlane& dist, vx_u64* sse) const;

  const Module& module() const { return module_; }

 private:
  std::shared_ptr<Device> device_;
  Module module_;
  TypedKernel<psnr_sse_kernel_fn> kernel_;
};

}  // namespace vmafx::hip
