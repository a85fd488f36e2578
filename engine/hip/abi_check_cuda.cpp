// SPDX-License-Identifier: LGPL-2.1-or-later
// Build-time check (compiled only where CUDA's cuda.h is installed, linked into nothing): runtime_abi.h's CUDA
// declarations match the driver API's.
#include <cuda.h>

#include <cstddef>
#include <type_traits>

#include "hip/runtime_abi.h"

namespace abi = vmafx::hip::abi;

static_assert(sizeof(CUdeviceptr) == sizeof(abi::CuDevicePtr));
static_assert(sizeof(CUresult) == sizeof(int) && sizeof(CUdevice) == sizeof(int));
static_assert(CUDA_SUCCESS == abi::kSuccess && CUDA_ERROR_NOT_READY == abi::kErrorNotReady);
static_assert(CUDA_ERROR_OUT_OF_MEMORY == abi::kErrorOutOfMemory);
static_assert(CUDA_ERROR_NO_DEVICE == abi::kErrorNoDevice);
static_assert(CUDA_ERROR_INVALID_DEVICE == abi::kErrorInvalidDevice);
static_assert(CU_STREAM_NON_BLOCKING == abi::kCuStreamNonBlocking);
static_assert(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL == abi::kStreamCaptureThreadLocal);
static_assert(CU_EVENT_DISABLE_TIMING == abi::kCuEventDisableTiming);
static_assert(CU_EVENT_BLOCKING_SYNC == abi::kCuEventBlockingSync);
static_assert(CU_MEMHOSTALLOC_PORTABLE == abi::kCuMemHostAllocPortable);
static_assert(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR == abi::kCuAttrComputeCapabilityMajor);
static_assert(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR == abi::kCuAttrComputeCapabilityMinor);
static_assert(CU_MEMORYTYPE_HOST == abi::kCuMemoryTypeHost && CU_MEMORYTYPE_DEVICE == abi::kCuMemoryTypeDevice &&
              CU_MEMORYTYPE_ARRAY == abi::kCuMemoryTypeArray);
static_assert(CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY == abi::kCuGraphicsRegisterReadOnly);
static_assert(CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD == abi::kExternalMemoryOpaqueFd);
static_assert(CU_JIT_ERROR_LOG_BUFFER == abi::kCuJitErrorLogBuffer);
static_assert(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES == abi::kCuJitErrorLogBufferSizeBytes);
static_assert(CU_JIT_INPUT_PTX == abi::kCuJitInputPtx);
static_assert(sizeof(CUjit_option) == sizeof(int) && sizeof(CUjitInputType) == sizeof(int));
static_assert(sizeof(CUmemorytype) == sizeof(int));

#define VMAFX_SAME_FIELD(theirs, ours, tf, of)                                \
  static_assert(offsetof(theirs, tf) == offsetof(ours, of), #tf " offset"); \
  static_assert(sizeof(theirs::tf) == sizeof(ours::of), #tf " size")

static_assert(sizeof(CUDA_MEMCPY2D) == sizeof(abi::CuMemcpy2D));
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, srcXInBytes, src_x_bytes);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, srcY, src_y);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, srcMemoryType, src_memory_type);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, srcHost, src_host);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, srcDevice, src_device);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, srcArray, src_array);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, srcPitch, src_pitch);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, dstXInBytes, dst_x_bytes);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, dstY, dst_y);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, dstMemoryType, dst_memory_type);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, dstHost, dst_host);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, dstDevice, dst_device);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, dstArray, dst_array);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, dstPitch, dst_pitch);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, WidthInBytes, width_bytes);
VMAFX_SAME_FIELD(CUDA_MEMCPY2D, abi::CuMemcpy2D, Height, height);

static_assert(sizeof(CUDA_EXTERNAL_MEMORY_HANDLE_DESC) == sizeof(abi::ExternalMemoryHandleDesc));
VMAFX_SAME_FIELD(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, abi::ExternalMemoryHandleDesc, type, type);
VMAFX_SAME_FIELD(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, abi::ExternalMemoryHandleDesc, handle, handle);
VMAFX_SAME_FIELD(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, abi::ExternalMemoryHandleDesc, size, size);
VMAFX_SAME_FIELD(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, abi::ExternalMemoryHandleDesc, flags, flags);
static_assert(sizeof(CUDA_EXTERNAL_MEMORY_BUFFER_DESC) == sizeof(abi::ExternalMemoryBufferDesc));
VMAFX_SAME_FIELD(CUDA_EXTERNAL_MEMORY_BUFFER_DESC, abi::ExternalMemoryBufferDesc, offset, offset);
VMAFX_SAME_FIELD(CUDA_EXTERNAL_MEMORY_BUFFER_DESC, abi::ExternalMemoryBufferDesc, size, size);
VMAFX_SAME_FIELD(CUDA_EXTERNAL_MEMORY_BUFFER_DESC, abi::ExternalMemoryBufferDesc, flags, flags);

// Signatures the loader assumes (loader_cuda.cpp declares them itself): the free-memory query of placement.h.
static_assert(std::is_same_v<decltype(&cuMemGetInfo_v2), CUresult (*)(size_t*, size_t*)>);
