// SPDX-License-Identifier: LGPL-2.1-or-later
// Build-time check (compiled only where the HIP headers are installed, linked into nothing): runtime_abi.h's HIP
// declarations match hip_runtime_api.h's. The installed headers may be ROCm 5 (no reserved words in the external
// memory descriptors): ours must then be a superset with the same leading fields.
#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <type_traits>

#include "hip/runtime_abi.h"

namespace abi = vmafx::hip::abi;

static_assert(sizeof(hipError_t) == sizeof(int));
static_assert(hipSuccess == abi::kSuccess && hipErrorNotReady == abi::kErrorNotReady);
static_assert(hipErrorOutOfMemory == abi::kErrorOutOfMemory);
static_assert(hipErrorNoDevice == abi::kErrorNoDevice);
static_assert(hipErrorInvalidDevice == abi::kErrorInvalidDevice);
static_assert(hipStreamNonBlocking == abi::kHipStreamNonBlocking);
static_assert(hipStreamCaptureModeThreadLocal == abi::kStreamCaptureThreadLocal);
static_assert(hipEventDisableTiming == abi::kHipEventDisableTiming);
static_assert(hipEventBlockingSync == abi::kHipEventBlockingSync);
static_assert(hipHostMallocPortable == abi::kHipHostMallocPortable);
static_assert(hipMemcpyHostToDevice == abi::kHipMemcpyHostToDevice &&
              hipMemcpyDeviceToHost == abi::kHipMemcpyDeviceToHost &&
              hipMemcpyDeviceToDevice == abi::kHipMemcpyDeviceToDevice);
static_assert(hipGraphicsRegisterFlagsReadOnly == abi::kHipGraphicsRegisterReadOnly);
static_assert(hipGLDeviceListAll == abi::kHipGlDeviceListAll);
static_assert(hipExternalMemoryHandleTypeOpaqueFd == abi::kExternalMemoryOpaqueFd);
static_assert(sizeof(hipMemcpyKind) == sizeof(int) && sizeof(hipExternalMemoryHandleType) == sizeof(int));

#define VMAFX_SAME_FIELD(theirs, ours, tf, of)                                \
  static_assert(offsetof(theirs, tf) == offsetof(ours, of), #tf " offset"); \
  static_assert(sizeof(theirs::tf) <= sizeof(ours::of), #tf " size")

static_assert(sizeof(hipExternalMemoryHandleDesc) <= sizeof(abi::ExternalMemoryHandleDesc));
VMAFX_SAME_FIELD(hipExternalMemoryHandleDesc, abi::ExternalMemoryHandleDesc, type, type);
VMAFX_SAME_FIELD(hipExternalMemoryHandleDesc, abi::ExternalMemoryHandleDesc, handle, handle);
VMAFX_SAME_FIELD(hipExternalMemoryHandleDesc, abi::ExternalMemoryHandleDesc, size, size);
VMAFX_SAME_FIELD(hipExternalMemoryHandleDesc, abi::ExternalMemoryHandleDesc, flags, flags);
static_assert(sizeof(hipExternalMemoryBufferDesc) <= sizeof(abi::ExternalMemoryBufferDesc));
VMAFX_SAME_FIELD(hipExternalMemoryBufferDesc, abi::ExternalMemoryBufferDesc, offset, offset);
VMAFX_SAME_FIELD(hipExternalMemoryBufferDesc, abi::ExternalMemoryBufferDesc, size, size);
VMAFX_SAME_FIELD(hipExternalMemoryBufferDesc, abi::ExternalMemoryBufferDesc, flags, flags);

// Signatures the loader assumes (loader_amd.cpp declares them itself): the free-memory query of placement.h.
static_assert(std::is_same_v<decltype(&hipMemGetInfo), hipError_t (*)(size_t*, size_t*)>);
