// SPDX-License-Identifier: LGPL-2.1-or-later
// Build-only check (nothing links it): gst/gstvmafxhipcuda_abi.h against GStreamer's CUDA headers.
#define GST_USE_UNSTABLE_API 1
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>

#include <cstddef>
#include <cstring>

#include "gstvmafxhipcuda_abi.h"

namespace a = vmafx::gst::cuda_abi;

static_assert(a::kMapCuda == unsigned(GST_MAP_CUDA), "GST_MAP_CUDA");
static_assert(offsetof(a::CudaMemoryHead, mem) == offsetof(GstCudaMemory, mem), "GstCudaMemory.mem");
static_assert(offsetof(a::CudaMemoryHead, context) == offsetof(GstCudaMemory, context), "GstCudaMemory.context");
static_assert(a::kMemoryNeedSync == unsigned(GST_CUDA_MEMORY_TRANSFER_NEED_UPLOAD) << 1,
              "NEED_SYNC is the bit after NEED_UPLOAD (GStreamer 1.24)");

constexpr bool same(const char* x, const char* y) { return *x == *y && (*x == 0 || same(x + 1, y + 1)); }
static_assert(same(a::kContextType, GST_CUDA_CONTEXT_TYPE), "GST_CUDA_CONTEXT_TYPE");
static_assert(same(a::kMemoryType, GST_CUDA_MEMORY_TYPE_NAME), "GST_CUDA_MEMORY_TYPE_NAME");
static_assert(same(a::kCapsFeature, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY), "GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY");
