// SPDX-License-Identifier: LGPL-2.1-or-later
// psnr_hvs on the GPU (psnr_hvs_impl.h): one thread per 8x8 block of a plane writes the block's non-zero terms and
// their number; the host adds them in the CPU reference's order (hip/psnr_hvs_gpu.cpp).
#include "device.h"
#include "psnr_hvs_impl.h"

VMAFX_KERNEL psnr_hvs_terms_kernel_fn psnr_hvs_terms_kernel;

// Block: PSNR_HVS_THREADS threads in x; grid: enough blocks in x for blocks_x * blocks_y work items.
VMAFX_KERNEL __launch_bounds__(PSNR_HVS_THREADS) void psnr_hvs_terms_kernel(PsnrHvsArgs a) {
  const vx_u32 b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < a.blocks_x * a.blocks_y) psnr_hvs_block_item(a, b);
}
