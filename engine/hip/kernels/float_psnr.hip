// SPDX-License-Identifier: LGPL-2.1-or-later
// float_psnr and float_moment on the GPU (float_psnr_impl.h): each pixel's terms as integer counts of their unit,
// summed in 64 bits (exact, so in any order) into FPS_SUMS accumulators.
#include "device.h"
#include "float_psnr_impl.h"

VMAFX_KERNEL float_psnr_sums_kernel_fn float_psnr_sums_kernel;

// Block: FPS_THREADS threads in any 2D shape; grid: any, each thread strides over rows and columns. `what`:
// FPS_WANT_NOISE and / or FPS_WANT_MOMENTS; sums[FPS_SUMS] cleared by the caller.
VMAFX_KERNEL void float_psnr_sums_kernel(VxPlane ref, VxPlane dist, vx_u32 bpc, vx_u32 what, vx_u64* sums) {
  __shared__ vx_u64 scratch[FPS_THREADS];
  const float u1 = fps_unit(bpc, false), u2 = fps_unit(bpc, true);
  vx_u64 acc[FPS_SUMS] = {0, 0, 0, 0, 0};
  for (vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y; y < ref.height; y += gridDim.y * blockDim.y) {
    for (vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x; x < ref.width; x += gridDim.x * blockDim.x) {
      const float r = fps_value(fx_read_sample(ref, x, y), bpc);
      const float d = fps_value(fx_read_sample(dist, x, y), bpc);
      if (what & FPS_WANT_NOISE) acc[FPS_NOISE] += fps_count(fps_noise_term(r, d), u2);
      if (what & FPS_WANT_MOMENTS) {
        acc[FPS_REF1] += fps_count(r, u1);
        acc[FPS_DIS1] += fps_count(d, u1);
        acc[FPS_REF2] += fps_count(fps_square(r), u2);
        acc[FPS_DIS2] += fps_count(fps_square(d), u2);
      }
    }
  }
  for (int k = 0; k < FPS_SUMS; ++k) {
    const vx_u64 s = vx_block_sum_u64(acc[k], scratch);
    if (vx_block_thread() == 0 && s != 0) vx_atomic_add_u64(sums + k, s);
    __syncthreads();  // scratch is reused by the next sum
  }
}
