// SPDX-License-Identifier: LGPL-2.1-or-later
// The distorted picture brought to the reference's size as FFmpeg's swscale does it (scale_impl.h describes the two
// passes). One work item per thread, blocks of SCALE_BLOCK_X x SCALE_BLOCK_Y.
#include "device.h"
#include "scale_impl.h"

VMAFX_KERNEL scale_h_kernel_fn scale_h_kernel;
VMAFX_KERNEL scale_v_kernel_fn scale_v_kernel;

VMAFX_KERNEL __launch_bounds__(SCALE_BLOCK_X * SCALE_BLOCK_Y) void scale_h_kernel(ScaleHArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < a.dst_w && y < a.src.height) scale_h_item(a, x, y);
}

VMAFX_KERNEL __launch_bounds__(SCALE_BLOCK_X * SCALE_BLOCK_Y) void scale_v_kernel(ScaleVArgs a) {
  const vx_u32 x = blockIdx.x * blockDim.x + threadIdx.x;
  const vx_u32 y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < a.dst_w && y < a.dst_h) scale_v_item(a, x, y);
}
