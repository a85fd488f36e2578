// SPDX-License-Identifier: LGPL-2.1-or-later
// float_ssim and float_ms_ssim on the GPU (ssim_impl.h describes the stages and the order of the sums). Per-pixel
// kernels run one work item per thread in blocks of SSIM_BLOCK_X x SSIM_BLOCK_Y; the pool kernel writes one partial
// per block (no atomics, nothing to clear), the final kernel adds them in a fixed order.
#include "device.h"
#include "ssim_impl.h"

VMAFX_KERNEL ssim_convert_kernel_fn ssim_convert_kernel;
VMAFX_KERNEL ssim_decimate_kernel_fn ssim_decimate_kernel;
VMAFX_KERNEL ssim_rows_kernel_fn ssim_rows_kernel;
VMAFX_KERNEL ssim_pool_kernel_fn ssim_pool_kernel;
VMAFX_KERNEL ssim_final_kernel_fn ssim_final_kernel;

VMAFX_KERNEL __launch_bounds__(SSIM_THREADS) void ssim_convert_kernel(SsimConvertArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < a.ref.width && y < a.ref.height) ssim_convert_item(a, x, y);
}

VMAFX_KERNEL __launch_bounds__(SSIM_THREADS) void ssim_decimate_kernel(SsimDecimateArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < a.dw && y < a.dh) ssim_decimate_item(a, x, y);
}

VMAFX_KERNEL __launch_bounds__(SSIM_THREADS) void ssim_rows_kernel(SsimRowsArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < a.w - SSIM_WINDOW + 1 && y < a.h) ssim_rows_item(a, x, y);
}

// Block: SSIM_BLOCK_X x SSIM_BLOCK_Y threads, one pixel each; threads outside the region add 0.0.
VMAFX_KERNEL __launch_bounds__(SSIM_THREADS) void ssim_pool_kernel(SsimPoolArgs a) {
  __shared__ double sums[4][SSIM_THREADS];
  const vx_u32 x = blockIdx.x * SSIM_BLOCK_X + threadIdx.x;
  const vx_u32 y = blockIdx.y * SSIM_BLOCK_Y + threadIdx.y;
  const vx_u32 t = threadIdx.y * SSIM_BLOCK_X + threadIdx.x;
  SsimTerms v;
  v.ssim = 0.0;
  v.l = 0.0;
  v.c = 0.0;
  v.s = 0.0;
  if (x < a.dw && y < a.dh) v = ssim_pool_item(a, x, y);
  sums[0][t] = v.ssim;
  sums[1][t] = v.l;
  sums[2][t] = v.c;
  sums[3][t] = v.s;
  __syncthreads();
  for (vx_u32 s = SSIM_THREADS / 2; s > 0; s >>= 1) {
    if (t < s) {
      sums[0][t] += sums[0][t + s];
      sums[1][t] += sums[1][t + s];
      sums[2][t] += sums[2][t + s];
      sums[3][t] += sums[3][t + s];
    }
    __syncthreads();
  }
  if (t < 4) a.partials[4 * ((vx_u64)blockIdx.y * gridDim.x + blockIdx.x) + t] = sums[t][0];
}

// One block of SSIM_FINAL_THREADS threads.
VMAFX_KERNEL __launch_bounds__(SSIM_FINAL_THREADS) void ssim_final_kernel(SsimFinalArgs a) {
  __shared__ double sums[4][SSIM_FINAL_THREADS];
  const vx_u32 t = threadIdx.x;
  double acc[4] = {0.0, 0.0, 0.0, 0.0};
  for (vx_u32 i = t; i < a.blocks; i += SSIM_FINAL_THREADS)
    for (int k = 0; k < 4; ++k) acc[k] += a.partials[4 * (vx_u64)i + k];
  for (int k = 0; k < 4; ++k) sums[k][t] = acc[k];
  __syncthreads();
  for (vx_u32 s = SSIM_FINAL_THREADS / 2; s > 0; s >>= 1) {
    if (t < s)
      for (int k = 0; k < 4; ++k) sums[k][t] += sums[k][t + s];
    __syncthreads();
  }
  if (t < 4) a.out[t] = sums[t][0];
}
