// SPDX-License-Identifier: LGPL-2.1-or-later
// RGBA (8 bits per channel) to 8-bit luma, the one conversion of GL RGBA input. Shared by kernels/rgba_luma.hip
// (GL textures scored on the GPU) and by the host (the GL download fallback, engine/gl/rgba_luma.cpp), so both
// paths produce the same bytes. It includes only common.h: g++ compiles it too.
//
// The conversion, in integers only (Q16 coefficients, one rounding):
//
//     Y = (cr * R + cg * G + cb * B + offset) >> 16
//
// with (cr, cg, cb) = round(65536 * scale * (Kr, Kg, Kb)) where cg takes the remainder so that the three sum to
// round(65536 * scale) exactly (a grey R = G = B = v maps to the same Y under both matrices), and
//
//   input RGB range | scale     | offset             | Y range
//   full (0..255)   | 219 / 255 | 16 * 65536 + 32768 | 16..235 (limited, what VMAF's models were trained on)
//   limited (16..235)| 1        | 32768              | R = G = B = v gives Y = v
//
//   matrix  | Kr     | Kb     | full-range input (cr, cg, cb) | limited-range input (cr, cg, cb)
//   BT.601  | 0.299  | 0.114  | 16829, 33039, 6416            | 19595, 38470, 7471
//   BT.709  | 0.2126 | 0.0722 | 11966, 40254, 4064            | 13933, 46871, 4732
//
// Y never leaves 0..255 (the coefficients are non-negative and sum to at most 65536), so nothing is clamped. Alpha
// is ignored.
#pragma once

#include "common.h"

#define RGBA_LUMA_THREADS_X 64  // block of rgba_luma_kernel: 64 x 4 threads
#define RGBA_LUMA_THREADS_Y 4

enum { RGBA_LUMA_BT601 = 0, RGBA_LUMA_BT709 = 1 };
enum { RGBA_LUMA_FULL_RANGE = 0, RGBA_LUMA_LIMITED_RANGE = 1 };

struct RgbaLumaCoeffs {
  vx_u32 cr, cg, cb;
  vx_u32 offset;
};

// rgba_luma_kernel's parameters (kernels/rgba_luma.hip; the host launches it as TypedKernel<rgba_luma_kernel_fn>):
// width x height RGBA pixels, rows rgba_pitch bytes apart, into luma rows luma_pitch bytes apart, with the
// coefficients of rgba_luma_coeffs().
typedef void rgba_luma_kernel_fn(const vx_u8* rgba, vx_u64 rgba_pitch, vx_u8* luma, vx_u64 luma_pitch, vx_u32 width,
                                 vx_u32 height, vx_u32 cr, vx_u32 cg, vx_u32 cb, vx_u32 offset);

// The table above. Unknown values select BT.601 / full range.
VX_HD RgbaLumaCoeffs rgba_luma_coeffs(int matrix, int range) {
  RgbaLumaCoeffs c;
  const bool limited = range == RGBA_LUMA_LIMITED_RANGE;
  if (matrix == RGBA_LUMA_BT709) {
    c.cr = limited ? 13933u : 11966u;
    c.cg = limited ? 46871u : 40254u;
    c.cb = limited ? 4732u : 4064u;
  } else {
    c.cr = limited ? 19595u : 16829u;
    c.cg = limited ? 38470u : 33039u;
    c.cb = limited ? 7471u : 6416u;
  }
  c.offset = limited ? 32768u : (16u << 16) + 32768u;
  return c;
}

// One pixel: p points at its R, G, B, A bytes.
VX_HD vx_u8 rgba_luma_pixel(const vx_u8* p, const RgbaLumaCoeffs& c) {
  const vx_u32 y = c.cr * (vx_u32)p[0] + c.cg * (vx_u32)p[1] + c.cb * (vx_u32)p[2] + c.offset;
  return (vx_u8)(y >> 16);
}

// Pixels [x0, x1) of one row.
VX_HD void rgba_luma_row(const vx_u8* rgba, vx_u8* luma, vx_u32 x0, vx_u32 x1, const RgbaLumaCoeffs& c) {
  for (vx_u32 x = x0; x < x1; x++) luma[x] = rgba_luma_pixel(rgba + (vx_u64)x * 4u, c);
}
