// SPDX-License-Identifier: LGPL-2.1-or-later
// What vmafxhip uses of GStreamer's CUDA library (gst-plugins-bad's libgstcuda-1.0), declared here because the
// plugin opens that library at run time and builds without its headers. gst/abi_check_gstcuda.cpp compares every
// declaration with gst/cuda/gstcuda*.h where they are installed (Debian: libgstreamer-plugins-bad1.0-dev).
#pragma once

#include <gst/gst.h>

namespace vmafx::gst::cuda_abi {

constexpr const char* kContextType = "gst.cuda.context";   // GST_CUDA_CONTEXT_TYPE
constexpr const char* kMemoryType = "gst.cuda.memory";     // GST_CUDA_MEMORY_TYPE_NAME
constexpr const char* kCapsFeature = "memory:CUDAMemory";  // GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY
constexpr unsigned kMapCuda = GST_MAP_FLAG_LAST << 1;      // GST_MAP_CUDA: map the device pointer
// GST_CUDA_MEMORY_TRANSFER_NEED_SYNC (GStreamer 1.24+): writes to the memory are still queued on its stream. 1.22
// leaves the bit unused (its producers synchronise before pushing); it is read only where gst_cuda_memory_get_stream
// exists.
constexpr unsigned kMemoryNeedSync = GST_MEMORY_FLAG_LAST << 2;

// The public head of GstCudaMemory (the same from 1.22 to 1.28): the GstMemory, then the GstCudaContext the memory
// was allocated in.
struct CudaMemoryHead {
  GstMemory mem;
  GstObject* context;
};

}  // namespace vmafx::gst::cuda_abi
