// SPDX-License-Identifier: LGPL-2.1-or-later
// float_psnr and float_moment (libvmaf 3.2's float_psnr.c / psnr.c and float_moment.c / moment.c): a sample as
// libvmaf's picture_copy gives it with offset 0, and the terms libvmaf adds up per pixel:
//   float_psnr    (r - d)^2 in float, added to a double
//   float_moment  v and v * v (float), added to a double, for the reference and the distorted picture
// The CPU reference (engine/cpu/float_psnr.cpp) and the kernels (float_psnr.hip) both compute the terms here.
//
// Every term is an exact multiple of a power of two: a value is a multiple of 1 / div (div 1, 4, 16, 256 for 8, 10,
// 12, 16 bits: the division is exact), a product of two values a multiple of 1 / div^2 (rounding a float keeps that:
// a rounded integer is still an integer). So term * unit (unit div or div^2) is an integer, and the kernels add those
// integers in 64 bits, exactly, in any order. libvmaf's double sum is exact too while the total stays below 2^53
// units (all its partial sums are then representable: the terms are not negative); the host then gets libvmaf's
// double from the integer (cpu::float_sums_exact says where that holds).
#pragma once

#include "float_impl.h"

enum {
  FPS_THREADS = 256,  // block size of float_psnr_sums_kernel (its reduction's width)
  // The sums, in this order: psnr's noise, then the moments ref 1st, dist 1st, ref 2nd, dist 2nd.
  FPS_NOISE = 0,
  FPS_REF1 = 1,
  FPS_DIS1 = 2,
  FPS_REF2 = 3,
  FPS_DIS2 = 4,
  FPS_SUMS = 5,
  // float_psnr_sums_kernel's `what`: the noise, the moments, or both.
  FPS_WANT_NOISE = 1,
  FPS_WANT_MOMENTS = 2,
};

// libvmaf's picture_copy with offset 0: float(s) + 0 for 8 bits, float(s) / 4, 16, 256 + 0 for 10, 12, 16 bits.
VX_HD float fps_value(vx_u32 s, vx_u32 bpc) {
  if (bpc == 8) return (float)s + (float)0;
  const float div = bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
  return (float)s / div + (float)0;
}

// float_psnr's term of a pixel.
VX_HD float fps_noise_term(float ref, float dist) {
  const float diff = ref - dist;
  return diff * diff;
}
// float_moment's second-moment term of a value.
VX_HD float fps_square(float v) { return v * v; }

// The unit of a value (first powers) and of a product (second powers) at a depth: term * unit is an integer.
VX_HD float fps_unit(vx_u32 bpc, bool square) {
  const float div = bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : bpc == 16 ? 256.0f : 1.0f;
  return square ? div * div : div;
}
// A term as the integer count of its unit (exact: the unit is a power of two and the product an integer below
// 2^32).
VX_HD vx_u64 fps_count(float term, float unit) { return (vx_u64)(term * unit); }

typedef void float_psnr_sums_kernel_fn(VxPlane ref, VxPlane dist, vx_u32 bpc, vx_u32 what, vx_u64* sums);
