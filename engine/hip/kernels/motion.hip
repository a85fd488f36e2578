// SPDX-License-Identifier: LGPL-2.1-or-later
// Motion's GPU stage: the SAD of the blurred difference of two reference lumas (cpu::motion_sad), fused in one
// kernel. A block takes MOTION_ROWS whole rows and walks along them in chunks of MOTION_THREADS columns: the vertical
// pass of the chunk (plus two mirrored columns each side) goes to shared memory, the horizontal pass reads it there.
// Whole rows per block keep libvmaf's per-row 32-bit wrapping sum exact for any width; the rows of a block then add
// up in 64 bits into one accumulator.
#include "device.h"
#include "motion_impl.h"

#define MOTION_THREADS 256
#define MOTION_ROWS 4

VMAFX_KERNEL motion_sad_kernel_fn motion_sad_kernel;

// Block: MOTION_THREADS x 1 threads; grid: any number of blocks in x (each strides over the row groups).
// The planes must be at least 3x3 (the mirror of the 5-tap filter). `row_sums` (tests; null otherwise) receives each
// row's 32-bit sum.
VMAFX_KERNEL void motion_sad_kernel(VxPlane prev, VxPlane cur, vx_u32 width, vx_u32 height, vx_u32 bpc,
                                    vx_u64* sad, vx_u32* row_sums) {
  __shared__ vx_i32 tile[MOTION_ROWS][MOTION_THREADS + 2 * VX_MOTION_RADIUS];
  __shared__ vx_u32 row_scratch[MOTION_ROWS][MOTION_THREADS];
  const vx_u32 t = threadIdx.x;
  for (vx_u32 y0 = blockIdx.x * MOTION_ROWS; y0 < height; y0 += gridDim.x * MOTION_ROWS) {
    const int rows = (int)(height - y0 < MOTION_ROWS ? height - y0 : MOTION_ROWS);
    vx_u32 row_sum[MOTION_ROWS];
    for (int r = 0; r < MOTION_ROWS; ++r) row_sum[r] = 0;
    for (vx_u32 x0 = 0; x0 < width; x0 += MOTION_THREADS) {
      // Vertical pass of columns x0-2 .. x0+MOTION_THREADS+1 (mirrored at the plane's edges); columns past width+1
      // are read by no output.
      for (vx_u32 j = t; j < MOTION_THREADS + 2 * VX_MOTION_RADIUS; j += MOTION_THREADS) {
        const vx_i32 xx = (vx_i32)x0 - VX_MOTION_RADIUS + (vx_i32)j;
        if (xx > (vx_i32)width + 1) continue;
        const vx_u32 c = (vx_u32)vx_motion_mirror(xx, (vx_i32)width);
        vx_i32 d[MOTION_ROWS + 2 * VX_MOTION_RADIUS];
        for (int i = 0; i < MOTION_ROWS + 2 * VX_MOTION_RADIUS; ++i) {
          d[i] = 0;
          if (i < rows + 2 * VX_MOTION_RADIUS) {
            const vx_i32 yy = vx_motion_mirror((vx_i32)y0 - VX_MOTION_RADIUS + i, (vx_i32)height);
            d[i] = vx_motion_diff(prev, cur, c, (vx_u32)yy);
          }
        }
        for (int r = 0; r < MOTION_ROWS; ++r)
          if (r < rows) tile[r][j] = vx_motion_vblur(d + r, bpc);
      }
      __syncthreads();
      if (x0 + t < width) {
        for (int r = 0; r < MOTION_ROWS; ++r)
          if (r < rows) row_sum[r] += vx_motion_hblur_abs(&tile[r][t]);
      }
      __syncthreads();
    }
    // Each row's sum over the block, wrapping in 32 bits as libvmaf's row sum.
    for (int r = 0; r < MOTION_ROWS; ++r) row_scratch[r][t] = row_sum[r];
    __syncthreads();
    for (vx_u32 s = MOTION_THREADS / 2; s > 0; s >>= 1) {
      if (t < s) {
        for (int r = 0; r < MOTION_ROWS; ++r) row_scratch[r][t] += row_scratch[r][t + s];
      }
      __syncthreads();
    }
    if (t == 0) {
      vx_u64 total = 0;
      for (int r = 0; r < rows; ++r) {
        total += row_scratch[r][0];
        if (row_sums) row_sums[y0 + r] = row_scratch[r][0];
      }
      if (total != 0) vx_atomic_add_u64(sad, total);
    }
    __syncthreads();
  }
}
