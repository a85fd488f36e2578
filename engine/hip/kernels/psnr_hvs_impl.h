// SPDX-License-Identifier: LGPL-2.1-or-later
// psnr_hvs's kernel arithmetic (kernels/psnr_hvs.hip), also compiled by the host compiler for
// tests/gpu/test_hip_psnr_hvs_impl.cpp (it includes only common.h). One work item is one 8x8 block of one plane:
// it reads the block's samples, computes both pictures' masking strengths and integer DCTs and the block's 64 terms
// with the CPU reference's operations, types and order (engine/cpu/psnr_hvs.cpp: int32 samples and DCT, float
// statistics in row-major order, the product of two floats square-rooted in double; builds without FMA contraction,
// --fmad=false / -ffp-contract=off, and IEEE division and double sqrt on every compiler), so every term equals the
// CPU's bit for bit.
//
// The plane's error is one float sum of all terms in block-row, block, coefficient order, which no parallel
// reduction reproduces: the work item writes its block's non-zero terms, in order, to the start of the block's 64
// slots and their number to `counts`, and the host adds them in the CPU's order (cpu::psnr_hvs_sum_terms over each
// block's first counts[b] terms). Every term is >= +0 and every partial sum is finite, so leaving out the zero terms
// (about four in five on natural pictures) does not change a single rounding: s + 0 == s.
#pragma once

#include "common.h"

#if !defined(VX_DEVICE_COMPILE)
#include <math.h>
#endif

#define PSNR_HVS_THREADS 64  // work items (blocks of 8x8 samples) per thread block
#define PSNR_HVS_STEP 7      // corners of neighbouring 8x8 blocks are 7 samples apart
#define PSNR_HVS_SCALE64 0x1.041042p+0f  // float(1 / 63.f) * 64
#define PSNR_HVS_SCALE16 0x1.111112p+0f  // float(1 / 15.f) * 16

struct PsnrHvsArgs {
  VxPlane ref;        // the plane pair: the same size; layouts may differ
  VxPlane dist;
  float* terms;       // 64 floats per block, blocks in row-major order
  vx_u32* counts;     // per block: how many of its 64 slots hold its non-zero terms
  vx_u32 blocks_x;    // blocks along a row: corners 0, 7, 14, ... while corner + 8 <= width
  vx_u32 blocks_y;
  float csf[64];      // the plane's CSF weights (cpu::psnr_hvs_tables), row-major by frequency
  float mask[64];     // and its masking weights
};

// Block b of the plane (row-major over blocks_x x blocks_y).
typedef void psnr_hvs_terms_kernel_fn(PsnrHvsArgs a);

// a / 2 rounded toward zero.
VX_HD vx_i32 phv_half(vx_i32 a) { return (a + (vx_i32)((vx_u32)a >> 31)) >> 1; }
// (a * m + 2^(s-1)) >> s, in int32 (no overflow for samples of at most 12 bits).
VX_HD vx_i32 phv_lift(vx_i32 a, vx_i32 m, int s) { return (a * m + (1 << (s - 1))) >> s; }

// Daala's 8-point lifting DCT: in[k * stride] -> out[0..7].
VX_HD void phv_fdct8(const vx_i32* in, int stride, vx_i32* out) {
  vx_i32 a0 = in[0 * stride], a4 = in[1 * stride], a2 = in[2 * stride], a6 = in[3 * stride];
  vx_i32 a7 = in[4 * stride], a3 = in[5 * stride], a5 = in[6 * stride], a1 = in[7 * stride];
  a1 = a0 - a1;
  const vx_i32 a1h = phv_half(a1);
  a0 -= a1h;
  a4 += a5;
  const vx_i32 a4h = phv_half(a4);
  a5 -= a4h;
  a3 = a2 - a3;
  a2 -= phv_half(a3);
  a6 += a7;
  const vx_i32 a6h = phv_half(a6);
  a7 = a6h - a7;
  a0 += a6h;
  a6 = a0 - a6;
  a2 = a4h - a2;
  a4 = a2 - a4;
  a0 -= phv_lift(a4, 13573, 15);
  a4 += phv_lift(a0, 11585, 14);
  a0 -= phv_lift(a4, 13573, 15);
  a6 -= phv_lift(a2, 21895, 15);
  a2 += phv_lift(a6, 15137, 14);
  a6 -= phv_lift(a2, 21895, 15);
  a3 += phv_lift(a5, 19195, 15);
  a5 += phv_lift(a3, 11585, 14);
  a3 -= phv_lift(a5, 7489, 13);
  a7 = phv_half(a5) - a7;
  a5 -= a7;
  a3 = a1h - a3;
  a1 -= a3;
  a7 += phv_lift(a1, 3227, 15);
  a1 -= phv_lift(a7, 6393, 15);
  a7 += phv_lift(a1, 3227, 15);
  a5 += phv_lift(a3, 2485, 13);
  a3 -= phv_lift(a5, 18205, 15);
  a5 += phv_lift(a3, 2485, 13);
  out[0] = a0;
  out[1] = a1;
  out[2] = a2;
  out[3] = a3;
  out[4] = a4;
  out[5] = a5;
  out[6] = a6;
  out[7] = a7;
}

// The 2-D DCT in place: columns into the rows of tmp, then tmp's columns into the rows of b.
VX_HD void phv_fdct8x8(vx_i32* b) {
  vx_i32 tmp[64];
  for (int i = 0; i < 8; i++) phv_fdct8(b + i, 8, tmp + 8 * i);
  for (int i = 0; i < 8; i++) phv_fdct8(tmp + i, 8, b + 8 * i);
}

VX_HD double phv_sqrt(double x) {
#if defined(VX_DEVICE_COMPILE)
  return sqrt(x);
#else
  return ::sqrt(x);
#endif
}

// One picture's masking strength; b (the samples) becomes its DCT. The quadrant of (i, j) is (i >> 2) + 2 (j >> 2).
VX_HD float phv_block_mask(vx_i32* b, const float* mask) {
  float gmean = 0.f;
  float means[4] = {0.f, 0.f, 0.f, 0.f};
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) {
      const float v = (float)b[i * 8 + j];
      gmean += v;
      means[(i >> 2) + ((j >> 2) << 1)] += v;
    }
  gmean /= 64.f;
  for (int q = 0; q < 4; q++) means[q] /= 16.f;
  float gvar = 0.f;
  float vars[4] = {0.f, 0.f, 0.f, 0.f};
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) {
      const int q = (i >> 2) + ((j >> 2) << 1);
      const float v = (float)b[i * 8 + j];
      gvar += (v - gmean) * (v - gmean);
      vars[q] += (v - means[q]) * (v - means[q]);
    }
  // libvmaf's scales 1 / 63.f * 64 and 1 / 15.f * 16 as C folds them in float, written out so that no compiler
  // folds them otherwise (the host test checks them against the C expressions).
  const float scale64 = PSNR_HVS_SCALE64;
  const float scale16 = PSNR_HVS_SCALE16;
  gvar *= scale64;
  for (int q = 0; q < 4; q++) vars[q] *= scale16;
  if (gvar > 0.f) gvar = (vars[0] + vars[1] + vars[2] + vars[3]) / gvar;
  phv_fdct8x8(b);
  float energy = 0.f;
  for (int k = 1; k < 64; k++) energy += (float)(b[k] * b[k]) * mask[k];
  return (float)(phv_sqrt((double)(energy * gvar)) / 32.0);
}

VX_HD vx_i32 phv_read(const VxPlane& p, vx_u32 x, vx_u32 y) {
  const vx_u8* row = (const vx_u8*)p.data + (vx_u64)y * p.pitch;
  const vx_u64 i = (vx_u64)x * p.step;
  if (p.bytes == 1) return row[i];
  const vx_u8* w = row + 2 * i;
  return (vx_i32)((((vx_u32)w[0]) | ((vx_u32)w[1] << 8)) >> p.shift);
}

// Work item b: block (b % blocks_x, b / blocks_x). Writes its non-zero terms to terms[64 b ...] in coefficient order
// and their number to counts[b].
VX_HD void psnr_hvs_block_item(const PsnrHvsArgs& a, vx_u32 b) {
  const vx_u32 x0 = (b % a.blocks_x) * PSNR_HVS_STEP, y0 = (b / a.blocks_x) * PSNR_HVS_STEP;
  vx_i32 r[64], d[64];
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) {
      r[i * 8 + j] = phv_read(a.ref, x0 + j, y0 + i);
      d[i * 8 + j] = phv_read(a.dist, x0 + j, y0 + i);
    }
  float strength = phv_block_mask(r, a.mask);
  const float strength_dist = phv_block_mask(d, a.mask);
  if (strength_dist > strength) strength = strength_dist;
  float* out = a.terms + (vx_u64)b * 64;
  vx_u32 n = 0;
  for (int k = 0; k < 64; k++) {
    const vx_i32 diff = r[k] - d[k];
    float err = (float)(diff < 0 ? -diff : diff);
    if (k != 0) {
      const float threshold = strength / a.mask[k];
      err = err < threshold ? 0.f : err - threshold;
    }
    const float term = (err * a.csf[k]) * (err * a.csf[k]);
    if (term != 0.f) out[n++] = term;
  }
  a.counts[b] = n;
}
