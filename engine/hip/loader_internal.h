// SPDX-License-Identifier: LGPL-2.1-or-later
// Between the vendor-neutral loader (loader.cpp) and the two vendor backends (loader_amd.cpp, loader_cuda.cpp).
#pragma once

#include <string>
#include <vector>

#include "hip/api.h"

namespace vmafx::hip::detail {

// dlopen(name, RTLD_NOW | RTLD_LOCAL); on failure null and dlerror()'s text in *error.
void* open_library(const std::string& name, std::string* error);

// Looks up `name` in `lib`; null when absent.
void* find_symbol(void* lib, const char* name);

template <class T>
bool resolve(void* lib, const char* name, T* out) {
  *out = reinterpret_cast<T>(find_symbol(lib, name));
  return *out != nullptr;
}

// Sets entry.symbol always and entry.fn only when the runtime symbol behind it was found.
template <class E, class F>
void bind(E& entry, F fn, const char* symbol, bool present, Api* api) {
  entry.symbol = symbol;
  if (present) {
    entry.fn = fn;
  } else {
    entry.fn = nullptr;
    api->missing.emplace_back(symbol);
  }
}

// Initialises the runtime in `lib` and counts devices. false with the reason ("hipInit failed: ...", "0 devices",
// "symbol hipInit missing") in *why.
bool amd_init(void* lib, int* device_count, std::string* why);
bool cuda_init(void* lib, int* device_count, std::string* why);

// Fills the process-wide table from `lib` (already initialised). Fails when a symbol the engine cannot work without
// is missing; optional ones end up in api->missing.
Status amd_fill(void* lib, Api* api);
Status cuda_fill(void* lib, Api* api);

// Fills the run-time compiler table from `lib` (libhiprtc / libnvrtc, or the HIP runtime itself on ROCm 5).
Status amd_rtc_fill(void* lib, Rtc* rtc);
Status cuda_rtc_fill(void* lib, Rtc* rtc);

}  // namespace vmafx::hip::detail
