// SPDX-License-Identifier: LGPL-2.1-or-later
// float_ssim's and float_ms_ssim's kernel arithmetic, shared by kernels/ssim.hip and by host tests (it includes only
// common.h). Every per-pixel value is computed with the CPU reference's operations in its order (engine/cpu/ssim.cpp,
// ms_ssim.cpp: float products rounded to float before double sums, the same taps in the same order, the same
// comparisons), so converted images, decimated images, Gaussian moments and each pixel's luminance, contrast and
// structure terms equal the CPU's bit for bit (kernels are compiled without FMA contraction).
//
// What differs is the order of the four sums over pixels (ssim, l, c, s): the CPU adds pixel after pixel in row-major
// order; the GPU adds within a block of SSIM_BLOCK_X x SSIM_BLOCK_Y pixels as a pairwise tree over the thread index
// (ssim_tree_sum), writes one partial per block, and ssim_final_kernel adds the partials in a fixed order (thread t
// sums blocks t, t + SSIM_FINAL_THREADS, ... in order, then a pairwise tree). The result is deterministic and the
// host tests reproduce it exactly; it differs from the CPU's sum by rounding only (relative 1e-13 or less), so the
// float means usually come out identical and otherwise differ by one float step.
//
// Launches per frame: ssim_convert_kernel (samples to float, both pictures), then per scale: ssim_decimate_kernel
// (the box low-pass of float_ssim, or MS-SSIM's 9x9 low-pass, at every factor-th pixel, mirrored borders),
// ssim_rows_kernel (the 11-tap Gaussian along rows of ref, dist, ref^2, dist^2 and ref * dist),
// ssim_pool_kernel (along columns, then moments and the per-pixel terms, summed per block), ssim_final_kernel.
#pragma once

#include "common.h"

#if !defined(VX_DEVICE_COMPILE)
#include <cmath>
using std::sqrt;
#endif

#define SSIM_WINDOW 11
#define SSIM_BLOCK_X 64  // block of every per-pixel kernel: 64 x 4 threads
#define SSIM_BLOCK_Y 4
#define SSIM_THREADS (SSIM_BLOCK_X * SSIM_BLOCK_Y)
#define SSIM_FINAL_THREADS 256
#define SSIM_MAPS 5  // mu_ref, mu_dist, ref^2, dist^2, ref * dist (row-filtered, then moments)

// libvmaf's Gaussian taps (sigma 1.5), as literals so that each becomes an immediate in an unrolled loop.
VX_HD float ssim_gaussian_tap(int t) {
  switch (t) {
    case 0: case 10: return 0.001028f;
    case 1: case 9: return 0.007599f;
    case 2: case 8: return 0.036001f;
    case 3: case 7: return 0.109361f;
    case 4: case 6: return 0.213006f;
    default: return 0.266012f;
  }
}

// IQA's mirror at the borders: -1 -> 0, n -> n - 1.
VX_HD int ssim_mirror(int i, int n) {
  if (i < 0) return -1 - i;
  if (i >= n) return n - (i - n) - 1;
  return i;
}

// ---- convert ----------------------------------------------------------------------------------------------------

struct SsimConvertArgs {
  VxPlane ref;                 // w x h luma planes (ref's width and height)
  VxPlane dist;
  float divisor;               // 2^(bpc - 8): 1, 4, 16, 256
  vx_u32 reserved;
  float* ref_out;              // w x h floats, packed
  float* dist_out;
};

VX_HD float ssim_sample_to_float(const vx_u8* row, vx_u32 x, vx_u32 step, vx_u32 bytes, vx_u32 shift,
                                 float divisor) {
  vx_u32 v;
  if (bytes == 1) {
    v = row[(vx_u64)x * step];
  } else {
    const vx_u8* p = row + (vx_u64)x * step * 2u;
    v = ((vx_u32)p[0] | ((vx_u32)p[1] << 8)) >> shift;
  }
  return (float)v / divisor;
}

VX_HD float ssim_plane_to_float(const VxPlane& p, vx_u32 x, vx_u32 y, float divisor) {
  return ssim_sample_to_float((const vx_u8*)p.data + (vx_u64)y * p.pitch, x, p.step, p.bytes, p.shift, divisor);
}

VX_HD void ssim_convert_item(const SsimConvertArgs& a, vx_u32 x, vx_u32 y) {
  const vx_u64 o = (vx_u64)y * a.ref.width + x;
  a.ref_out[o] = ssim_plane_to_float(a.ref, x, y, a.divisor);
  a.dist_out[o] = ssim_plane_to_float(a.dist, x, y, a.divisor);
}

// ---- decimate ---------------------------------------------------------------------------------------------------

struct SsimDecimateArgs {
  const float* ref;     // w x h, packed
  const float* dist;
  const float* kernel;  // kh rows of kw taps
  float* ref_out;       // dw x dh, packed
  float* dist_out;
  vx_u32 w, h;
  vx_u32 kw, kh;
  vx_u32 factor;
  vx_u32 dw, dh;
  vx_u32 reserved;
};

// One output of a kw x kh kernel centred at (x, y): centre tap kw / 2, kh / 2 (even kernels reach one tap less to
// the right and below), mirrored borders, float products summed in double row by row.
VX_HD float ssim_filter_pixel(const float* img, int w, int h, int x, int y, const float* kernel, int kw, int kh) {
  const int uc = kw / 2, vc = kh / 2;
  const int u_end = uc - ((kw & 1) ? 0 : 1);
  const int v_end = vc - ((kh & 1) ? 0 : 1);
  double sum = 0.0;
  const float* k = kernel;
  for (int v = -vc; v <= v_end; ++v) {
    const float* row = img + (vx_i64)ssim_mirror(y + v, h) * w;
    for (int u = -uc; u <= u_end; ++u, ++k) sum += (double)(row[ssim_mirror(x + u, w)] * *k);
  }
  return (float)sum;
}

VX_HD void ssim_decimate_item(const SsimDecimateArgs& a, vx_u32 x, vx_u32 y) {
  const vx_u64 o = (vx_u64)y * a.dw + x;
  const int sx = (int)(x * a.factor), sy = (int)(y * a.factor);
  a.ref_out[o] = ssim_filter_pixel(a.ref, (int)a.w, (int)a.h, sx, sy, a.kernel, (int)a.kw, (int)a.kh);
  a.dist_out[o] = ssim_filter_pixel(a.dist, (int)a.w, (int)a.h, sx, sy, a.kernel, (int)a.kw, (int)a.kh);
}

// ---- Gaussian rows ----------------------------------------------------------------------------------------------

struct SsimRowsArgs {
  const float* ref;   // w x h, packed
  const float* dist;
  float* tmp;         // SSIM_MAPS maps of (w - 10) x h, packed, map_stride floats apart
  vx_u64 map_stride;
  vx_u32 w, h;
};

// Row pass at (x, y), x < w - 10: the Gaussian of ref, dist and of their float products.
VX_HD void ssim_rows_item(const SsimRowsArgs& a, vx_u32 x, vx_u32 y) {
  const float* r = a.ref + (vx_u64)y * a.w + x;
  const float* d = a.dist + (vx_u64)y * a.w + x;
  double s_r = 0.0, s_d = 0.0, s_rr = 0.0, s_dd = 0.0, s_rd = 0.0;
  for (int t = 0; t < SSIM_WINDOW; ++t) {
    const float g = ssim_gaussian_tap(t);
    const float rv = r[t], dv = d[t];
    const float rr = rv * rv, dd = dv * dv, rd = rv * dv;
    s_r += (double)(rv * g);
    s_d += (double)(dv * g);
    s_rr += (double)(rr * g);
    s_dd += (double)(dd * g);
    s_rd += (double)(rd * g);
  }
  const vx_u32 dw = a.w - SSIM_WINDOW + 1;
  const vx_u64 o = (vx_u64)y * dw + x;
  a.tmp[o] = (float)s_r;
  a.tmp[a.map_stride + o] = (float)s_d;
  a.tmp[2 * a.map_stride + o] = (float)s_rr;
  a.tmp[3 * a.map_stride + o] = (float)s_dd;
  a.tmp[4 * a.map_stride + o] = (float)s_rd;
}

// ---- Gaussian columns, moments, per-pixel terms -------------------------------------------------------------------

struct SsimPoolArgs {
  const float* tmp;   // the maps of ssim_rows_item: dw per row, h rows
  vx_u64 map_stride;
  double* partials;   // 4 per block (ssim, l, c, s), blocks in row-major order of the grid
  float* moments;     // tests: when not null, mu_ref, mu_dist, var_ref, var_dist, cov as 5 maps of dw x dh
  vx_u32 dw, dh;      // valid region: (w - 10) x (h - 10)
};

struct SsimMomentsAt {
  float mu_ref, mu_dist, var_ref, var_dist, cov;
};

struct SsimTerms {
  double ssim, l, c, s;
};

VX_HD SsimMomentsAt ssim_moments_item(const SsimPoolArgs& a, vx_u32 x, vx_u32 y) {
  double s[SSIM_MAPS] = {0.0, 0.0, 0.0, 0.0, 0.0};
  for (int t = 0; t < SSIM_WINDOW; ++t) {
    const float g = ssim_gaussian_tap(t);
    const vx_u64 o = (vx_u64)(y + (vx_u32)t) * a.dw + x;
    for (int m = 0; m < SSIM_MAPS; ++m) s[m] += (double)(a.tmp[(vx_u64)m * a.map_stride + o] * g);
  }
  SsimMomentsAt r;
  r.mu_ref = (float)s[0];
  r.mu_dist = (float)s[1];
  float rr = (float)s[2], dd = (float)s[3], rd = (float)s[4];
  rr -= r.mu_ref * r.mu_ref;
  dd -= r.mu_dist * r.mu_dist;
  // IQA clamps through a double comparison with 0.0; -0.0f stays -0.0f.
  if (0.0 > (double)rr) rr = 0.0f;
  if (0.0 > (double)dd) dd = 0.0f;
  rd -= r.mu_ref * r.mu_dist;
  r.var_ref = rr;
  r.var_dist = dd;
  r.cov = rd;
  return r;
}

// IQA's luminance, contrast and structure terms of one pixel (K1 0.01, K2 0.03, L 255, computed in float).
VX_HD SsimTerms ssim_terms(const SsimMomentsAt& m) {
  const float c1 = (0.01f * 255) * (0.01f * 255);
  const float c2 = (0.03f * 255) * (0.03f * 255);
  const float c3 = c2 / 2.0f;
  const float sd_prod = (float)sqrt((double)(m.var_ref * m.var_dist));
  SsimTerms t;
  t.l = (2.0 * (double)m.mu_ref * (double)m.mu_dist + (double)c1) /
        (double)(m.mu_ref * m.mu_ref + m.mu_dist * m.mu_dist + c1);
  t.c = (2.0 * (double)sd_prod + (double)c2) / (double)(m.var_ref + m.var_dist + c2);
  const float cov = (m.cov < 0.0f && sd_prod <= 0.0f) ? 0.0f : m.cov;
  t.s = (double)((cov + c3) / (sd_prod + c3));
  t.ssim = t.l * t.c * t.s;
  return t;
}

// The terms at (x, y) of the valid region; tests' moment maps written when requested.
VX_HD SsimTerms ssim_pool_item(const SsimPoolArgs& a, vx_u32 x, vx_u32 y) {
  const SsimMomentsAt m = ssim_moments_item(a, x, y);
  if (a.moments) {
    const vx_u64 n = (vx_u64)a.dw * a.dh, o = (vx_u64)y * a.dw + x;
    a.moments[o] = m.mu_ref;
    a.moments[n + o] = m.mu_dist;
    a.moments[2 * n + o] = m.var_ref;
    a.moments[3 * n + o] = m.var_dist;
    a.moments[4 * n + o] = m.cov;
  }
  return ssim_terms(m);
}

// The kernels' reduction order over n values (n a power of two): v[t] += v[t + s] for s = n / 2, ..., 1. Host
// code reproduces a block's sum with it.
VX_HD double ssim_tree_sum(double* v, vx_u32 n) {
  for (vx_u32 s = n / 2; s > 0; s >>= 1)
    for (vx_u32 t = 0; t < s; ++t) v[t] += v[t + s];
  return v[0];
}

struct SsimFinalArgs {
  const double* partials;  // 4 per block
  double* out;             // 4 sums: ssim, l, c, s
  vx_u32 blocks;
  vx_u32 reserved;
};

// The kernels' parameters (kernels/ssim.hip; the host launches them as TypedKernel<...>): each takes its stage's
// arguments by value.
typedef void ssim_convert_kernel_fn(SsimConvertArgs a);
typedef void ssim_decimate_kernel_fn(SsimDecimateArgs a);
typedef void ssim_rows_kernel_fn(SsimRowsArgs a);
typedef void ssim_pool_kernel_fn(SsimPoolArgs a);
typedef void ssim_final_kernel_fn(SsimFinalArgs a);
