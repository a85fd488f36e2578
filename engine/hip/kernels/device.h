// SPDX-License-Identifier: LGPL-2.1-or-later
// Included by every kernel source so that one .hip file builds with hipcc --genco (AMD), nvcc -cubin / -ptx
// (NVIDIA), hiprtc and nvrtc. HIP and CUDA spell threadIdx, blockIdx, blockDim, gridDim, __syncthreads, __shared__
// and atomicAdd the same way; what differs is the header (Debian's HIP-on-NVIDIA headers do not build with CUDA 13,
// so CUDA compilers get CUDA's own) and the fixed-width types (run-time compilers have no <stdint.h>).
//
// Kernels must not assume a warp or wavefront size (RDNA runs wave32, CDNA wave64, NVIDIA 32): reduce through
// shared memory and atomics, never through __shfl with a hard-coded width.
#pragma once

#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
// hiprtc and nvrtc provide the device built-ins themselves.
#elif defined(__CUDACC__)
#include <cuda_runtime.h>
#else
#include <hip/hip_runtime.h>
#endif

#include "common.h"

// Kernels are looked up by name in the loaded module: no C++ mangling. Each kernel is first declared with the
// function type its header gives it (`VMAFX_KERNEL motion_sad_kernel_fn motion_sad_kernel;`), which the host launches
// it through (hip/device.h's TypedKernel): a definition whose parameters differ is a conflicting declaration of a C
// function and does not compile.
#define VMAFX_KERNEL extern "C" __global__

// Threads of the block in one index (x fastest).
__device__ inline vx_u32 vx_block_thread() { return threadIdx.y * blockDim.x + threadIdx.x; }
__device__ inline vx_u32 vx_block_threads() { return blockDim.x * blockDim.y * blockDim.z; }

__device__ inline void vx_atomic_add_u64(vx_u64* p, vx_u64 v) { atomicAdd(p, v); }

// Sample x of a row: 8-bit, or a little-endian 16-bit word shifted right. Read byte by byte so that any pitch
// (odd ones too) is safe.
__device__ inline vx_u32 vx_sample(const vx_u8* row, vx_u32 x, vx_u32 step, vx_u32 bytes, vx_u32 shift) {
  if (bytes == 1) return row[(vx_u64)x * step];
  const vx_u8* p = row + (vx_u64)x * step * 2u;
  return ((vx_u32)p[0] | ((vx_u32)p[1] << 8)) >> shift;
}

// Sums `value` over the block into slot[0] through `scratch` (one vx_u64 per thread; the thread count a power of
// two). Every thread of the block must call it.
__device__ inline vx_u64 vx_block_sum_u64(vx_u64 value, vx_u64* scratch) {
  const vx_u32 t = vx_block_thread();
  scratch[t] = value;
  __syncthreads();
  for (vx_u32 s = vx_block_threads() / 2; s > 0; s >>= 1) {
    if (t < s) scratch[t] += scratch[t + s];
    __syncthreads();
  }
  return scratch[0];
}
