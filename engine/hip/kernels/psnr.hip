// SPDX-License-Identifier: LGPL-2.1-or-later
// PSNR's GPU stage: the sum over a plane of (ref - dist)^2, added into one 64-bit accumulator. Exact for any depth
// up to 16 bits: a squared difference is below 2^32 and a 4K plane's sum far below 2^64.
#include "device.h"

#define PSNR_SSE_THREADS 256

// Block: PSNR_SSE_THREADS threads in any 2D shape; grid: any, each thread strides over rows and columns. Pitches
// in bytes; step is the distance between samples of the plane in samples (2 for interleaved chroma).
VMAFX_KERNEL void psnr_sse_kernel(const vx_u8* ref, vx_u64 ref_pitch, vx_u32 ref_step, const vx_u8* dist,
                                  vx_u64 dist_pitch, vx_u32 dist_step, vx_u32 width, vx_u32 height, vx_u32 bytes,
                                  vx_u32 shift, vx_u64* sse) {
  __shared__ vx_u64 scratch[PSNR_SSE_THREADS];
  vx_u64 acc = 0;
  for (vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) {
    const vx_u8* r = ref + (vx_u64)y * ref_pitch;
    const vx_u8* d = dist + (vx_u64)y * dist_pitch;
    for (vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x; x < width; x += gridDim.x * blockDim.x) {
      const vx_i32 e = (vx_i32)vx_sample(r, x, ref_step, bytes, shift) - (vx_i32)vx_sample(d, x, dist_step, bytes, shift);
      acc += (vx_u64)((vx_i64)e * e);
    }
  }
  const vx_u64 block_sum = vx_block_sum_u64(acc, scratch);
  if (vx_block_thread() == 0 && block_sum != 0) vx_atomic_add_u64(sse, block_sum);
}
