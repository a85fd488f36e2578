// SPDX-License-Identifier: LGPL-2.1-or-later
// PSNR's GPU stage (psnr_impl.h): the sum over a plane of (ref - dist)^2, added into one 64-bit accumulator.
#include "device.h"
#include "psnr_impl.h"

VMAFX_KERNEL psnr_sse_kernel_fn psnr_sse_kernel;

// Each plane is read with its own layout (a planar 10-bit reference against a P010 distorted frame: shifts 0 and
// 6). Block: PSNR_SSE_THREADS threads in any 2D shape; grid: any, each thread strides over rows and columns.
VMAFX_KERNEL void psnr_sse_kernel(VxPlane ref, VxPlane dist, vx_u64* sse) {
  __shared__ vx_u64 scratch[PSNR_SSE_THREADS];
  const vx_u8* ref_data = (const vx_u8*)ref.data;
  const vx_u8* dist_data = (const vx_u8*)dist.data;
  vx_u64 acc = 0;
  for (vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y; y < ref.height; y += gridDim.y * blockDim.y) {
    const vx_u8* r = ref_data + (vx_u64)y * ref.pitch;
    const vx_u8* d = dist_data + (vx_u64)y * dist.pitch;
    for (vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x; x < ref.width; x += gridDim.x * blockDim.x) {
      const vx_i32 e = (vx_i32)vx_sample(r, x, ref.step, ref.bytes, ref.shift) -
                       (vx_i32)vx_sample(d, x, dist.step, dist.bytes, dist.shift);
      acc += (vx_u64)((vx_i64)e * e);
    }
  }
  const vx_u64 block_sum = vx_block_sum_u64(acc, scratch);
  if (vx_block_thread() == 0 && block_sum != 0) vx_atomic_add_u64(sse, block_sum);
}
