// SPDX-License-Identifier: LGPL-2.1-or-later
// The few structures, enumerators and flags of the HIP (AMD) and CUDA driver APIs that the loader passes across the
// dlopen boundary, declared here so that the engine builds without either SDK. abi_check_cuda.cpp and
// abi_check_amd.cpp compare every one of them with the vendor's own header where that header is installed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vmafx::hip::abi {

// Result codes both runtimes share.
constexpr int kSuccess = 0;
constexpr int kErrorOutOfMemory = 2;  // hipErrorOutOfMemory, CUDA_ERROR_OUT_OF_MEMORY
constexpr int kErrorNoDevice = 100;   // hipErrorNoDevice, CUDA_ERROR_NO_DEVICE (init or count: no device visible)
constexpr int kErrorInvalidDevice = 101;  // hipErrorInvalidDevice, CUDA_ERROR_INVALID_DEVICE
constexpr int kErrorNotReady = 600;  // hipErrorNotReady, CUDA_ERROR_NOT_READY

// ---- CUDA driver API --------------------------------------------------------------------------------------------
using CuDevicePtr = unsigned long long;  // CUdeviceptr on 64-bit hosts

constexpr int kStreamCaptureThreadLocal = 1;    // CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, hipStreamCaptureModeThreadLocal
constexpr int kCuStreamNonBlocking = 0x1;          // CU_STREAM_NON_BLOCKING
constexpr int kCuEventBlockingSync = 0x1;          // CU_EVENT_BLOCKING_SYNC
constexpr int kCuEventDisableTiming = 0x2;         // CU_EVENT_DISABLE_TIMING
constexpr unsigned kCuMemHostAllocPortable = 0x1;  // CU_MEMHOSTALLOC_PORTABLE
constexpr int kCuAttrComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kCuAttrComputeCapabilityMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
constexpr int kCuMemoryTypeHost = 1;               // CU_MEMORYTYPE_HOST
constexpr int kCuMemoryTypeDevice = 2;             // CU_MEMORYTYPE_DEVICE
constexpr int kCuMemoryTypeArray = 3;              // CU_MEMORYTYPE_ARRAY
constexpr unsigned kCuGraphicsRegisterReadOnly = 0x1;  // CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY
constexpr int kCuGlDeviceListAll = 0x1;            // CU_GL_DEVICE_LIST_ALL
constexpr int kCuJitErrorLogBuffer = 5;            // CU_JIT_ERROR_LOG_BUFFER
constexpr int kCuJitErrorLogBufferSizeBytes = 6;   // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
constexpr int kCuJitInputPtx = 1;                  // CU_JIT_INPUT_PTX

// CUDA_MEMCPY2D (v2).
struct CuMemcpy2D {
  size_t src_x_bytes;
  size_t src_y;
  int src_memory_type;
  const void* src_host;
  CuDevicePtr src_device;
  void* src_array;
  size_t src_pitch;
  size_t dst_x_bytes;
  size_t dst_y;
  int dst_memory_type;
  void* dst_host;
  CuDevicePtr dst_device;
  void* dst_array;
  size_t dst_pitch;
  size_t width_bytes;
  size_t height;
};

// ---- HIP (AMD) --------------------------------------------------------------------------------------------------
constexpr unsigned kHipStreamNonBlocking = 0x1;   // hipStreamNonBlocking
constexpr unsigned kHipEventBlockingSync = 0x1;   // hipEventBlockingSync
constexpr unsigned kHipEventDisableTiming = 0x2;  // hipEventDisableTiming
constexpr unsigned kHipHostMallocPortable = 0x1;  // hipHostMallocPortable
constexpr int kHipMemcpyHostToDevice = 1;         // hipMemcpyHostToDevice
constexpr int kHipMemcpyDeviceToHost = 2;         // hipMemcpyDeviceToHost
constexpr int kHipMemcpyDeviceToDevice = 3;       // hipMemcpyDeviceToDevice
constexpr unsigned kHipGraphicsRegisterReadOnly = 0x1;  // hipGraphicsRegisterFlagsReadOnly
constexpr int kHipGlDeviceListAll = 1;            // hipGLDeviceListAll

// ---- Both -------------------------------------------------------------------------------------------------------
constexpr int kExternalMemoryOpaqueFd = 1;  // CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD, hipExternalMemoryHandleTypeOpaqueFd

// CUDA_EXTERNAL_MEMORY_HANDLE_DESC; hipExternalMemoryHandleDesc has the same fields (ROCm 6 added the reserved
// words, ROCm 5 ends after flags: the runtime reads a prefix of this).
struct ExternalMemoryHandleDesc {
  int type;
  union {
    int fd;
    struct {
      void* handle;
      const void* name;
    } win32;
    const void* nv_sci_buf_object;
  } handle;
  unsigned long long size;
  unsigned int flags;
  unsigned int reserved[16];
};

// CUDA_EXTERNAL_MEMORY_BUFFER_DESC; hipExternalMemoryBufferDesc likewise.
struct ExternalMemoryBufferDesc {
  unsigned long long offset;
  unsigned long long size;
  unsigned int flags;
  unsigned int reserved[16];
};

}  // namespace vmafx::hip::abi
