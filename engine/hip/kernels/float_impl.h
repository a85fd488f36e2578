// SPDX-License-Identifier: LGPL-2.1-or-later
// Arithmetic shared by the float features' kernels (float_vif.hip, float_adm.hip, float_motion.hip) and compiled by
// the host compiler for tests/gpu/test_hip_float_impl.cpp: reading a frame's luma, libvmaf's float picture, the mirror,
// and the one reduction the float features use, a row summed in float from left to right.
//
// Floating-point rules for every float kernel: each operation is the CPU reference's (engine/cpu/float_*.cpp), with
// the same types (float, and double where libvmaf widens), in the same order; the builds pass --fmad=false (nvcc,
// nvrtc) and -ffp-contract=off (hipcc, hiprtc), so nothing is fused into an FMA; division is IEEE (neither compiler
// is given a fast-math flag). Sums over pixels are done in the CPU's order only (rows, then the rows' sums on the
// host), so the GPU's values equal the CPU's bit for bit.
#pragma once

#include "common.h"

#if !defined(VX_DEVICE_COMPILE)
#include <math.h>
#endif

// Sample x of row y of a plane of the frame (common.h's VxPlane): 8-bit bytes, or little-endian 16-bit words (read
// byte by byte, any alignment) holding the sample `shift` bits up; `step` samples between neighbours of a row.
VX_HD vx_u32 fx_read_sample(const VxPlane& p, vx_u32 x, vx_u32 y) {
  const vx_u8* row = (const vx_u8*)p.data + (vx_u64)y * p.pitch;
  const vx_u64 i = (vx_u64)x * p.step;
  if (p.bytes == 1) return row[i];
  const vx_u8* b = row + 2 * i;
  return ((vx_u32)b[0] | ((vx_u32)b[1] << 8)) >> p.shift;
}

// libvmaf's picture_copy: 8 bits: float(s) - 128; 10, 12, 16 bits: float(s) / 4, 16, 256 - 128 (in float).
VX_HD float fx_picture_sample(vx_u32 s, vx_u32 bpc) {
  if (bpc == 8) return (float)s + -128.0f;
  const float div = bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
  return (float)s / div + -128.0f;
}

// Mirror without repeating the edge sample: -k reads k, n - 1 + k reads n - 1 - k (callers keep k < n).
VX_HD int fx_mirror(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); }

// A row summed in float from left to right, from 0 (libvmaf's accum_inner).
VX_HD float fx_row_sum(const float* row, int n) {
  float accum = 0.0f;
  for (int x = 0; x < n; ++x) accum += row[x];
  return accum;
}

// float <-> bits without undefined behaviour on every compiler the kernels see.
union FxBits {
  float f;
  vx_u32 u;
};
