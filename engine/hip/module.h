// SPDX-License-Identifier: LGPL-2.1-or-later
// Kernel modules: the image for a device is found among the embedded ones (AMD code object of the device's gfx
// target; NVIDIA cubin of the device's or an older minor architecture of the same major, then PTX of an older
// architecture, which the driver compiles), else in the run-time compilation cache, else compiled from the embedded
// source by hiprtc / nvrtc and stored in the cache.
//
// The cache ($XDG_CACHE_HOME/vmafxhip or ~/.cache/vmafxhip; files written to a temporary name, flushed and renamed)
// holds what was compiled on this machine, so a second start loads it instead of compiling again:
//   <kernel>-<source hash>-<arch>-<compiler version>-driver<runtime version>.bin   hiprtc / nvrtc output
//   <kernel>-ptx-<PTX hash>-<arch>-driver<driver version>.cubin                    an embedded PTX image compiled
//                                                                                   by the NVIDIA driver (link_ptx)
// A cached file that does not load is removed and compiled afresh.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hip/device.h"
#include "hip/embedded.h"

namespace vmafx::hip {

struct ModuleOptions {
  bool use_embedded = true;  // embedded AOT images (cubin / code object / PTX)
  bool use_cache = true;     // run-time compilation cache: read and write
  bool use_rtc = true;       // hiprtc / nvrtc from the embedded source
};

class Module {
 public:
  Module() = default;
  ~Module() { reset(); }
  Module(Module&& o) noexcept { *this = std::move(o); }
  Module& operator=(Module&& o) noexcept;

  // Loads kernel source `kernel` ("psnr" for kernels/psnr.hip) for `device`. When nothing loads, the Status names
  // every image tried and why it was refused.
  static Status load(std::shared_ptr<Device> device, std::string_view kernel, Module* out,
                     const ModuleOptions& options = {});

  Status function(const char* name, Kernel* out) const;
  // The kernel `name` with its parameter list (device.h's TypedKernel).
  template <class Signature>
  Status function(const char* name, TypedKernel<Signature>* out) const {
    return function(name, &out->kernel);
  }

  // Where the image came from: "embedded cubin sm_90", "embedded ptx sm_75" (the driver compiled it in module_load),
  // "embedded ptx sm_75, compiled by the driver for sm_90" (now, into the cache), "embedded amdgcn gfx90a",
  // "cache <path>", "nvrtc 13.0 sm_90" / "hiprtc 6.2 gfx1100".
  const std::string& origin() const { return origin_; }
  explicit operator bool() const { return handle_ != nullptr; }
  void reset();

 private:
  std::shared_ptr<Device> device_;
  ModuleHandle handle_ = nullptr;
  std::string origin_;
};

// The embedded images usable on a device of `vendor` and `arch`, best first.
std::vector<const EmbeddedImage*> candidate_images(Vendor vendor, const std::string& arch, std::string_view kernel);

// FNV-1a 64 of the text, hex: the source part of the cache key.
std::string source_hash(std::string_view text);

// The run-time compilation cache directory ("" when neither XDG_CACHE_HOME nor HOME is set).
std::string cache_dir();

}  // namespace vmafx::hip
