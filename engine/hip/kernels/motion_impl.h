// SPDX-License-Identifier: LGPL-2.1-or-later
// Arithmetic of the GPU motion SAD (libvmaf 3.2's integer motion, plain C path; the CPU reference is
// cpu::motion_sad): the difference of the previous and the current reference luma, blurred by the 5-tap filter down
// the columns (rounded, shifted by the bit depth), then along the rows (rounded, shifted by 16), summed in absolute
// value. Each row's sum is a 32-bit wrapping sum, as libvmaf's; the rows add up in 64 bits.
//
// Only common.h is included, so the host compiler builds these functions too: tests/gpu/test_hip_motion_impl.cpp runs
// them over whole planes on the CPU and compares with the CPU reference's stage functions. kernels/motion.hip is a
// thin loop around them.
#pragma once

#include "common.h"

#define VX_MOTION_TAPS 5
#define VX_MOTION_RADIUS 2

// motion_sad_kernel's parameters (kernels/motion.hip; the host launches it as TypedKernel<motion_sad_kernel_fn>).
typedef void motion_sad_kernel_fn(VxPlane prev, VxPlane cur, vx_u32 width, vx_u32 height, vx_u32 bpc, vx_u64* sad,
                                  vx_u32* row_sums);

// The filter's taps (Q16, sum 65536), as cpu::kMotionFilter.
VX_HD vx_i32 vx_motion_tap(int k) {
  return k == 2 ? 26386 : (k == 1 || k == 3) ? 16004 : 3571;
}

// Mirror without repeating the edge: -k -> k, n-1+k -> n-1-k (valid for -n < i < 2n - 1).
VX_HD vx_i32 vx_motion_mirror(vx_i32 i, vx_i32 n) {
  if (i < 0) return -i;
  if (i >= n) return 2 * n - i - 2;
  return i;
}

// Sample x of row y. Read byte by byte so that any pitch is safe.
VX_HD vx_i32 vx_motion_sample(const VxPlane& p, vx_u32 x, vx_u32 y) {
  const vx_u8* row = (const vx_u8*)p.data + (vx_u64)y * p.pitch;
  if (p.bytes == 1) return (vx_i32)row[(vx_u64)x * p.step];
  const vx_u8* w = row + (vx_u64)x * p.step * 2u;
  return (vx_i32)(((vx_u32)w[0] | ((vx_u32)w[1] << 8)) >> p.shift);
}

// prev - cur at (x, y).
VX_HD vx_i32 vx_motion_diff(const VxPlane& prev, const VxPlane& cur, vx_u32 x, vx_u32 y) {
  return vx_motion_sample(prev, x, y) - vx_motion_sample(cur, x, y);
}

// Vertical pass: d[k] is the difference at row mirror(y - 2 + k) of the column. 64-bit accumulation, rounding by
// 2^(bpc-1) and an arithmetic shift by bpc (8-bit: 128 and 8, the same rule).
VX_HD vx_i32 vx_motion_vblur(const vx_i32* d, vx_u32 bpc) {
  vx_i64 acc = 0;
  for (int k = 0; k < VX_MOTION_TAPS; ++k) acc += (vx_i64)vx_motion_tap(k) * d[k];
  return (vx_i32)((acc + ((vx_i64)1 << (bpc - 1))) >> bpc);
}

// Horizontal pass of one output: v[k] is the vertical result at column mirror(x - 2 + k); returns the absolute
// value of the rounded Q16 sum.
VX_HD vx_u32 vx_motion_hblur_abs(const vx_i32* v) {
  vx_i64 acc = 0;
  for (int k = 0; k < VX_MOTION_TAPS; ++k) acc += (vx_i64)vx_motion_tap(k) * v[k];
  const vx_i32 r = (vx_i32)((acc + ((vx_i64)1 << 15)) >> 16);
  return (vx_u32)(r < 0 ? -r : r);
}

// The vertical pass at (x, y) straight from the planes (for host tests and simple loops).
VX_HD vx_i32 vx_motion_vblur_at(const VxPlane& prev, const VxPlane& cur, vx_u32 x, vx_u32 y, vx_u32 h,
                                vx_u32 bpc) {
  vx_i32 d[VX_MOTION_TAPS];
  for (int k = 0; k < VX_MOTION_TAPS; ++k)
    d[k] = vx_motion_diff(prev, cur, x, (vx_u32)vx_motion_mirror((vx_i32)y - VX_MOTION_RADIUS + k, (vx_i32)h));
  return vx_motion_vblur(d, bpc);
}
