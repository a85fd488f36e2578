// SPDX-License-Identifier: LGPL-2.1-or-later
// GL RGBA input to the 8-bit luma the features read (arithmetic: rgba_luma_impl.h). One thread per pixel; the RGBA
// rows are the copy of a mapped GL texture, the luma rows the frame's luma plane.
#include "device.h"
#include "rgba_luma_impl.h"

VMAFX_KERNEL rgba_luma_kernel_fn rgba_luma_kernel;

VMAFX_KERNEL void rgba_luma_kernel(const vx_u8* rgba, vx_u64 rgba_pitch, vx_u8* luma, vx_u64 luma_pitch,
                                   vx_u32 width, vx_u32 height, vx_u32 cr, vx_u32 cg, vx_u32 cb, vx_u32 offset) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  RgbaLumaCoeffs c;
  c.cr = cr;
  c.cg = cg;
  c.cb = cb;
  c.offset = offset;
  luma[(vx_u64)y * luma_pitch + x] = rgba_luma_pixel(rgba + (vx_u64)y * rgba_pitch + (vx_u64)x * 4u, c);
}
