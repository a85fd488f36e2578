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

// Calls the runtime's init entry point `init` (with flags 0) and device counter `count` from `lib`. false with the
// reason in *why: "symbol <init> or <count> missing", "<init> failed: <error(lib, rc)>", "<count> failed: ...",
// "0 devices"; *no_device is true when the failure says the runtime sees no device (init or count answered
// hipErrorNoDevice / CUDA_ERROR_NO_DEVICE, init hipErrorInvalidDevice / CUDA_ERROR_INVALID_DEVICE, or the count is 0),
// which visibility variables can cause.
bool init_runtime(void* lib, const char* init, const char* count, std::string (*error)(void* lib, int code),
                  int* device_count, std::string* why, bool* no_device);

// Initialises the runtime in `lib` and counts devices. false with the reason ("hipInit failed: ...", "0 devices",
// "symbol hipInit missing") in *why.
bool amd_init(void* lib, int* device_count, std::string* why, bool* no_device);
bool cuda_init(void* lib, int* device_count, std::string* why, bool* no_device);

// Fills the process-wide table from `lib` (already initialised). Fails when a symbol the engine cannot work without
// is missing; optional ones end up in api->missing. api->ordinals is set before (the engine's devices).
Status amd_fill(void* lib, Api* api);
Status cuda_fill(void* lib, Api* api);

// The run-time compiler's entry points. hiprtc and nvrtc have the same shape: their symbols differ by a prefix
// ("hiprtc", "nvrtc") and by the name of the image getter ("Code": hiprtc's code object, "CUBIN": nvrtc's cubin).
struct RtcRaw {
  int (*create)(void**, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  int (*compile)(void*, int, const char* const*) = nullptr;
  int (*log_size)(void*, size_t*) = nullptr;
  int (*log)(void*, char*) = nullptr;
  int (*image_size)(void*, size_t*) = nullptr;
  int (*image)(void*, char*) = nullptr;
  int (*destroy)(void**) = nullptr;
  const char* (*error_string)(int) = nullptr;  // optional
  int (*version)(int*, int*) = nullptr;         // optional
  std::string prefix;                           // "hiprtc" / "nvrtc"
  // The symbols of the steps that can fail, named in errors.
  std::string create_symbol, compile_symbol, image_size_symbol, image_symbol;
};

// Resolves <prefix>CreateProgram, CompileProgram, GetProgramLogSize, GetProgramLog, Get<image>Size, Get<image>,
// DestroyProgram (required: false when one is missing) and GetErrorString, Version (optional) from `lib`.
bool rtc_resolve(void* lib, const std::string& prefix, const std::string& image, RtcRaw* out);
// Compiles `source` with `options` through `r`: the loadable image in *image, the compiler's log in *log. Returns the
// compiler's result code; when it is not 0, *symbol names the failed step (a pointer into `r`).
int rtc_compile_with(const RtcRaw& r, const std::vector<std::string>& options, const std::string& source,
                     const std::string& name, std::vector<uint8_t>* image, std::string* log, const char** symbol);
// "<prefix> <major>.<minor>" ("hiprtc 5.2", "nvrtc 13.0"); 0.0 when the compiler has no version entry point.
std::string rtc_version(const RtcRaw& r);

// Fills the run-time compiler table from `lib` (libhiprtc / libnvrtc, or the HIP runtime itself on ROCm 5).
Status amd_rtc_fill(void* lib, Rtc* rtc);
Status cuda_rtc_fill(void* lib, Rtc* rtc);

}  // namespace vmafx::hip::detail
