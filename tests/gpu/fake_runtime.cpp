// SPDX-License-Identifier: LGPL-2.1-or-later
// A stand-in GPU runtime for the loader's tests on a machine without a GPU (test_hip_visibility.cpp): a shared
// library exporting the entry points the loader's probe calls of either vendor (cuInit, cuDeviceGetCount,
// cuGetErrorName; hipInit, hipGetDeviceCount, hipGetErrorName), which answer what the environment says at the call:
// FAKE_RUNTIME_INIT_RC (the init's result code, default 0) and FAKE_RUNTIME_DEVICES (the device count, default 1).
// Like the real runtimes, the HIP counter answers hipErrorNoDevice (100) when it has no device. Never installed.
#include <cstdlib>

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

const char* error_name_of(int code) {
  switch (code) {
    case 0: return "SUCCESS";
    case 100: return "NO_DEVICE";
    case 101: return "INVALID_DEVICE";
    default: return "UNKNOWN";
  }
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int cuInit(unsigned) { return env_int("FAKE_RUNTIME_INIT_RC", 0); }
__attribute__((visibility("default"))) int cuDeviceGetCount(int* n) {
  *n = env_int("FAKE_RUNTIME_DEVICES", 1);
  return 0;
}
__attribute__((visibility("default"))) int cuGetErrorName(int code, const char** out) {
  *out = error_name_of(code);
  return 0;
}

__attribute__((visibility("default"))) int hipInit(unsigned) { return env_int("FAKE_RUNTIME_INIT_RC", 0); }
__attribute__((visibility("default"))) int hipGetDeviceCount(int* n) {
  *n = env_int("FAKE_RUNTIME_DEVICES", 1);
  return *n > 0 ? 0 : 100;
}
__attribute__((visibility("default"))) const char* hipGetErrorName(int code) { return error_name_of(code); }

}  // extern "C"
