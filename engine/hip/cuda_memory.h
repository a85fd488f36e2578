// SPDX-License-Identifier: LGPL-2.1-or-later
// NVIDIA only: the CUDA driver entry points the vendor-neutral table (api.h) has no use for elsewhere, resolved from
// the same libcuda the table was loaded from: contexts other than the primary one (a decoder's), pointer queries,
// peer copies, the device UUID. Used by the CUDA memory importer (vmafx/cuda.h, cuda_memory.cpp), the GL same-GPU
// check (the device UUID) and the GPU tests (a second context).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "hip/api.h"
#include "vmafx/status.h"

namespace vmafx::hip::cuda_abi {
constexpr int kPointerAttributeContext = 1;        // CU_POINTER_ATTRIBUTE_CONTEXT
constexpr int kPointerAttributeDeviceOrdinal = 9;  // CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
constexpr int kErrorInvalidContext = 201;          // CUDA_ERROR_INVALID_CONTEXT
}  // namespace vmafx::hip::cuda_abi

namespace vmafx::hip {

struct CudaDriver {
  std::string library;
  int (*ctx_get_device)(int* device) = nullptr;                          // cuCtxGetDevice (current context)
  int (*ctx_create)(void** ctx, unsigned flags, int device) = nullptr;   // cuCtxCreate_v2 (leaves it current)
  int (*ctx_destroy)(void* ctx) = nullptr;                               // cuCtxDestroy_v2
  int (*pointer_get_attribute)(void* data, int attribute, unsigned long long ptr) = nullptr;  // cuPointerGetAttribute
  int (*memcpy_peer_async)(unsigned long long dst, void* dst_ctx, unsigned long long src, void* src_ctx,
                           size_t bytes, void* stream) = nullptr;        // cuMemcpyPeerAsync
  int (*device_get_uuid)(unsigned char uuid[16], int device) = nullptr;  // cuDeviceGetUuid_v2 / cuDeviceGetUuid
  int (*device_get)(int* device, int ordinal) = nullptr;                 // cuDeviceGet
};

// The entry points from `api`'s library (NVIDIA). Errc::unsupported naming what is missing; loaded once.
Status cuda_driver(const Api& api, const CudaDriver** out);

// "GPU-5f1c..." style 32 lowercase hex digits of engine device `index`'s UUID (cuDeviceGetUuid of its CUDA
// ordinal, Api::ordinals), empty when unknown.
std::string cuda_device_uuid(const Api& api, int index);

}  // namespace vmafx::hip
