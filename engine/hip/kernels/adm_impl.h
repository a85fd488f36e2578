// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer ADM arithmetic for kernels/adm.hip, one position at a time, bit-exact with engine/cpu/adm.cpp (libvmaf's
// integer_adm C path). Includes only common.h, so the same functions compile with the host compiler: the 'hip'
// suite runs them over whole planes on the CPU and compares every stage with the CPU reference.
//
// Everything keeps libvmaf's integer widths: scale 0 bands are int16 with int32 arithmetic (wrapping where libvmaf's
// int32 sums wrap on 16-bit input), scales 1..3 int32 bands with int64 products. The one floating-point test
// (decouple's 1-degree angle test) is double arithmetic on float-converted integers, exactly as libvmaf writes it;
// kernels are built without contraction into FMA (-ffp-contract=off, --fmad=false).
//
// The kernel computes, per scale and per band position: the DWT bands of ref and dist (a 4x4 stencil of the input),
// decouple (restored r, additive impairment a), the CSF of a (DLM) and of r (AIM) with their masking-filter inputs
// (flt), and then, for positions of the score rectangle, the denominator term and the contrast-masking terms, whose
// 3x3 threshold reads flt of the neighbours. The per-sample terms are summed per row; each row sum is rounded and
// shifted (adm_row_round) before the rows are added, as libvmaf does.
#pragma once

#include "common.h"

#ifdef VX_DEVICE_COMPILE
#define VX_ADM_UNROLL _Pragma("unroll")
#else
#define VX_ADM_UNROLL
#endif

namespace vmafx {
namespace hip {
namespace adm {

// ---- Tiling of the fused per-scale kernel (shared with the host launcher) -------------------------------------
// A block of kBlockW x kBlockH threads scores a tile of kTileW x kTileH band positions; it computes flt on the tile
// and a ring of one position around it (the masking filter's taps).
enum {
  kTileW = 32,
  kTileH = 16,
  kBlockW = 32,
  kBlockH = 8,
  kRowsPerThread = kTileH / kBlockH,
  kHaloW = kTileW + 2,
  kHaloH = kTileH + 2,
  kHaloN = kHaloW * kHaloH,
  kRingN = kHaloN - kTileW * kTileH,
  // The nine per-row sums of a scale: den h, v, d; DLM numerator h, v, d; AIM numerator h, v, d.
  kKinds = 9,
  kFinishThreads = 256,
  // Intermediate planes written by a scale kernel in test mode ("dump"), each w x h of the scale's band type.
  kDumpRefA = 0,     // ref a, h, v, d
  kDumpDistA = 4,    // dist a, h, v, d
  kDumpR = 8,        // decoupled r h, v, d
  kDumpAdd = 11,     // additive impairment a h, v, d
  kDumpCsfDlm = 14,  // csf of a (DLM) h, v, d
  kDumpFltDlm = 17,  // its masking-filter input
  kDumpCsfAim = 20,  // csf of r (AIM) h, v, d
  kDumpFltAim = 23,  // its masking-filter input
  kDumpPlanes = 26,
};

// Everything a scale kernel needs to know about its scale; filled on the host (hip/adm_gpu.cpp).
struct ScaleParams {
  vx_i32 w, h;                      // band size of this scale
  vx_i32 in_w, in_h;                // its input (the picture at scale 0, band a of the previous scale)
  vx_i32 left, top, right, bottom;  // the score rectangle (adm_score_rect)
  vx_u32 fixed[3];                  // CSF factors h, v, d (scale 0: the uint16 values)
  vx_i32 bpc;                       // scale 0: bit depth of the samples
  vx_i32 scale;
  vx_i32 full;                      // 0: only the DWT (adm_skip_scale0 at scale 0)
  vx_i32 aim;                       // 0: no AIM numerator (adm_skip_aim)
  // Per-sample shifts. Scale 0: cm cube shift of h, v (hcub) and of d (dcub). Scales 1..3: cm cube shift (cub, in
  // cm_cub[0]), den square shift and den cube shift.
  vx_i32 cm_cub[2];
  vx_i64 cm_cub_round[2];
  vx_i32 den_sq;
  vx_i32 den_cub;
  vx_i64 den_cub_round;
  double gain;                      // adm_enhn_gain_limit
  vx_u64 rows_offset;               // this scale's first row sum in the row buffer (kKinds * h of them)
  vx_i32 small;                     // scale 3 of a picture of 17..32 on an axis: libvmaf's reads before its
                                    // buffers (cpu::adm_small_axis; dwt123_small_at)
};

// The reference's row -1 at scale 3 for pictures of 17..32 samples high or wide (cpu::adm_small_ref_row_above): int16
// pairs of libvmaf's scale-0 csf_f band d, recomputed from the pictures at the linear positions libvmaf reads.
struct SmallRowParams {
  vx_i32 w0, h0;                    // scale-0 band size
  vx_i32 row_len;                   // libvmaf's int16 row length: w0 rounded up to 8
  vx_i32 count;                     // values (scale 3's input width); 0: the picture has no small axis
  vx_i32 left, top, right, bottom;  // where libvmaf writes its scale-0 CSF (cpu::adm_tap_rect)
  vx_i32 mode;                      // 0: zeros (adm_skip_scale0); 1: csf of r (AIM pass); 2: flt of a (adm_skip_aim)
};

// The per-row rounding of the finishing kernel, for all four scales.
struct FinishParams {
  vx_u64 rows_offset[4];
  vx_i32 h[4];
  vx_i32 top[4], bottom[4];
  vx_i32 den_shift[4];  // den row shift (scale 0: may be 0)
  vx_u64 den_round[4];
  vx_i32 cm_shift[4];   // cm row shift: ceil(log2(h))
  vx_i64 cm_round[4];
};

// The kernels' parameters (kernels/adm.hip; the host launches them as TypedKernel<...>). Scale 0 reads the picture
// (ref, dist) in place and writes int16 band a; scale 1 reads that int16 band a; scales 2 and 3 read int32 band a.
// dump: null, or kDumpPlanes planes of dump_plane elements (test mode).
typedef void adm_scale0_kernel_fn(VxPlane ref, VxPlane dist, ScaleParams p, vx_i16* ref_a, vx_i16* dist_a,
                                  vx_u64* rows, vx_i16* dump, vx_u64 dump_plane);
typedef void adm_scale1_kernel_fn(const vx_i16* ref_in, const vx_i16* dist_in, ScaleParams p, vx_i32* ref_a,
                                  vx_i32* dist_a, vx_u64* rows, vx_i32* dump, vx_u64 dump_plane);
typedef void adm_scale23_kernel_fn(const vx_i32* ref_in, const vx_i32* dist_in, ScaleParams p, vx_i32* ref_a,
                                   vx_i32* dist_a, vx_u64* rows, vx_i32* dump, vx_u64 dump_plane,
                                   const vx_i32* small_row);
typedef void adm_small_row_kernel_fn(VxPlane ref, VxPlane dist, ScaleParams p0, SmallRowParams q, vx_i32* out);
typedef void adm_finish_kernel_fn(const vx_u64* rows, FinishParams p, vx_u64* out);

// ---- Integer helpers with the C compiler's wrap-around -------------------------------------------------------
VX_HD vx_i32 wrap_add(vx_i32 a, vx_i32 b) { return (vx_i32)((vx_u32)a + (vx_u32)b); }
VX_HD vx_i32 wrap_sub(vx_i32 a, vx_i32 b) { return (vx_i32)((vx_u32)a - (vx_u32)b); }
VX_HD vx_i32 wrap_mul(vx_i32 a, vx_i32 b) { return (vx_i32)((vx_u32)a * (vx_u32)b); }
VX_HD vx_i32 wrap_shl(vx_i32 a, int s) { return (vx_i32)((vx_u32)a << s); }
// C's abs() on int: INT32_MIN stays INT32_MIN.
VX_HD vx_i32 wrap_abs(vx_i32 a) { return a < 0 ? (vx_i32)(0u - (vx_u32)a) : a; }
VX_HD vx_i32 abs16(vx_i16 a) { return a < 0 ? -(vx_i32)a : (vx_i32)a; }

VX_HD int clz32(vx_u32 v) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __clz((int)v);
#else
  return __builtin_clz(v);
#endif
}

// ---- Geometry -----------------------------------------------------------------------------------------------
// Source index of DWT tap k (0..3) of output i along an axis of n >= 5 input samples: 2i - 1 + k, reflected
// (-1 reads 1, m >= n reads 2n - 1 - m).
VX_HD int dwt_tap(int i, int k, int n) {
  const int m = 2 * i - 1 + k;
  if (m < 0) return -m;
  if (m >= n) return 2 * n - 1 - m;
  return m;
}
// The masking filter's neighbour of position i along an axis of n: -1 reads 1, n reads n - 1.
VX_HD int cm_up(int i) { return i == 0 ? 1 : i - 1; }
VX_HD int cm_down(int i, int n) { return i == n - 1 ? n - 1 : i + 1; }

// ---- Stage 1: DWT (db2; low-pass taps 15826, 27411, 7345, -4240; high-pass -4240, -7345, 27411, -15826) ------

// Scale 0, vertical pass of one input column: samples s0..s3 (rows 2i-1..2i+2, reflected) of `bpc` bits to the
// int16 low- and high-pass values. int32 sums as libvmaf, wrapping for 16-bit input (computed in uint32), the
// low-pass centred by 46342 * 2^(bpc-1).
VX_HD void dwt0_vertical(vx_u32 s0, vx_u32 s1, vx_u32 s2, vx_u32 s3, int bpc, vx_i16* lo, vx_i16* hi) {
  const vx_i32 round = (vx_i32)1 << (bpc - 1);
  const vx_u32 lo_offset = 46342u * (vx_u32)round;
  const vx_i32 l = (vx_i32)(15826u * s0 + 27411u * s1 + 7345u * s2 - 4240u * s3 - lo_offset);
  const vx_i32 h = (vx_i32)(0u - 4240u * s0 - 7345u * s1 + 27411u * s2 - 15826u * s3);
  *lo = (vx_i16)((l + round) >> bpc);
  *hi = (vx_i16)((h + round) >> bpc);
}
// Scale 0, horizontal pass: int32 sums of int16 values, + 2^15, >> 16.
VX_HD vx_i16 dwt0_lo(vx_i32 t0, vx_i32 t1, vx_i32 t2, vx_i32 t3) {
  return (vx_i16)((15826 * t0 + 27411 * t1 + 7345 * t2 - 4240 * t3 + 32768) >> 16);
}
VX_HD vx_i16 dwt0_hi(vx_i32 t0, vx_i32 t1, vx_i32 t2, vx_i32 t3) {
  return (vx_i16)((-4240 * t0 - 7345 * t1 + 27411 * t2 - 15826 * t3 + 32768) >> 16);
}

// Scale 0, the horizontal pass over the vertical results of the four stencil columns: out a, h, v, d (kAll
// false: only a).
template <bool kAll>
VX_HD void dwt0_horizontal(const vx_i16 lo[4], const vx_i16 hi[4], vx_i16 out[4]) {
  out[0] = dwt0_lo(lo[0], lo[1], lo[2], lo[3]);
  if (!kAll) return;
  out[1] = dwt0_lo(hi[0], hi[1], hi[2], hi[3]);  // h: high-pass vertically, low-pass horizontally
  out[2] = dwt0_hi(lo[0], lo[1], lo[2], lo[3]);  // v: low-pass vertically, high-pass horizontally
  out[3] = dwt0_hi(hi[0], hi[1], hi[2], hi[3]);
}

// Scale 0 bands at (i, j) of a w x h picture; load(x, y) returns the sample. out: a, h, v, d (kAll false: only a).
template <bool kAll, class Load>
VX_HD void dwt0_at(const Load& load, int w, int h, int bpc, int i, int j, vx_i16 out[4]) {
  const int r0 = dwt_tap(i, 0, h), r1 = dwt_tap(i, 1, h), r2 = dwt_tap(i, 2, h), r3 = dwt_tap(i, 3, h);
  vx_i16 lo[4], hi[4];
  VX_ADM_UNROLL
  for (int k = 0; k < 4; ++k) {
    const int c = dwt_tap(j, k, w);
    dwt0_vertical(load(c, r0), load(c, r1), load(c, r2), load(c, r3), bpc, &lo[k], &hi[k]);
  }
  dwt0_horizontal<kAll>(lo, hi, out);
}

// Scales 1..3: int64 sums. Vertical: scale 1 no rounding; scales 2, 3: + 2^15, >> 16. Horizontal: scales 1, 3:
// + 2^14, >> 15; scale 2: + 2^15, >> 16.
VX_HD vx_i32 dwt123_lo(vx_i64 t0, vx_i64 t1, vx_i64 t2, vx_i64 t3, vx_i64 round, int shift) {
  return (vx_i32)((15826 * t0 + 27411 * t1 + 7345 * t2 - 4240 * t3 + round) >> shift);
}
VX_HD vx_i32 dwt123_hi(vx_i64 t0, vx_i64 t1, vx_i64 t2, vx_i64 t3, vx_i64 round, int shift) {
  return (vx_i32)((-4240 * t0 - 7345 * t1 + 27411 * t2 - 15826 * t3 + round) >> shift);
}

// Bands of scale 1..3 at (i, j) from band a of the previous scale (w x h, element type In, stride in elements; a
// band holds fewer than 2^28 elements, so int offsets).
template <bool kAll, class In>
VX_HD void dwt123_at(const In* src, int stride, int w, int h, int scale, int i, int j, vx_i32 out[4]) {
  const vx_i64 round_v = scale == 1 ? 0 : 32768;
  const int shift_v = scale == 1 ? 0 : 16;
  const vx_i64 round_h = scale == 2 ? 32768 : 16384;
  const int shift_h = scale == 2 ? 16 : 15;
  const In* p0 = src + dwt_tap(i, 0, h) * stride;
  const In* p1 = src + dwt_tap(i, 1, h) * stride;
  const In* p2 = src + dwt_tap(i, 2, h) * stride;
  const In* p3 = src + dwt_tap(i, 3, h) * stride;
  vx_i32 lo[4], hi[4];
  VX_ADM_UNROLL
  for (int k = 0; k < 4; ++k) {
    const int c = dwt_tap(j, k, w);
    const vx_i64 u0 = p0[c], u1 = p1[c], u2 = p2[c], u3 = p3[c];
    lo[k] = dwt123_lo(u0, u1, u2, u3, round_v, shift_v);
    if (kAll) hi[k] = dwt123_hi(u0, u1, u2, u3, round_v, shift_v);
  }
  out[0] = dwt123_lo(lo[0], lo[1], lo[2], lo[3], round_h, shift_h);
  if (!kAll) return;
  out[1] = dwt123_lo(hi[0], hi[1], hi[2], hi[3], round_h, shift_h);
  out[2] = dwt123_hi(lo[0], lo[1], lo[2], lo[3], round_h, shift_h);
  out[3] = dwt123_hi(hi[0], hi[1], hi[2], hi[3], round_h, shift_h);
}

// Scale 3 where an input axis has 3 or 4 samples: libvmaf's index table gives output 0 the taps -1, 0, 1, 2, and what
// it reads at -1 is its memory layout (see cpu::adm_small_axis): vertically the reference's row_above[c] and 0 for
// the distorted picture; horizontally 0 before the reference low-pass row and the previous row's value at column
// w - 1 before the others (reference high-pass, distorted low-pass, distorted high-pass). Bands at (i, j) of `dist`
// or of the reference (ref, dis: band a of scale 2, w x h, dense rows).
VX_HD int small_tap(int i, int k, int n) { return (i == 0 && k == 0 && (n == 3 || n == 4)) ? -1 : dwt_tap(i, k, n); }

VX_HD void dwt3_small_vertical(const vx_i32* band, const vx_i32* row_above, int w, int h, int i, int c, vx_i32* lo,
                               vx_i32* hi) {
  vx_i64 u[4];
  VX_ADM_UNROLL
  for (int k = 0; k < 4; ++k) {
    const int r = small_tap(i, k, h);
    u[k] = r < 0 ? (row_above ? (vx_i64)row_above[c] : 0) : (vx_i64)band[r * w + c];
  }
  *lo = dwt123_lo(u[0], u[1], u[2], u[3], 32768, 16);
  *hi = dwt123_hi(u[0], u[1], u[2], u[3], 32768, 16);
}

template <bool kAll>
VX_HD void dwt123_small_at(const vx_i32* ref, const vx_i32* dis, const vx_i32* row_above, int w, int h, bool dist,
                           int i, int j, vx_i32 out[4]) {
  const vx_i32* own = dist ? dis : ref;
  const vx_i32* own_above = dist ? 0 : row_above;
  // The values libvmaf finds before its low- and high-pass rows (only needed where output column 0 reads -1).
  vx_i32 before_lo = 0, before_hi = 0;
  if (j == 0 && (w == 3 || w == 4)) {
    vx_i32 rlo, rhi;
    dwt3_small_vertical(ref, row_above, w, h, i, w - 1, &rlo, &rhi);
    if (dist) {
      vx_i32 dlo, dhi;
      dwt3_small_vertical(dis, 0, w, h, i, w - 1, &dlo, &dhi);
      before_lo = rhi;
      before_hi = dlo;
    } else {
      before_lo = 0;
      before_hi = rlo;
    }
  }
  vx_i32 lo[4], hi[4];
  VX_ADM_UNROLL
  for (int k = 0; k < 4; ++k) {
    const int c = small_tap(j, k, w);
    if (c < 0) {
      lo[k] = before_lo;
      hi[k] = before_hi;
    } else {
      dwt3_small_vertical(own, own_above, w, h, i, c, &lo[k], &hi[k]);
    }
  }
  out[0] = dwt123_lo(lo[0], lo[1], lo[2], lo[3], 16384, 15);
  if (!kAll) return;
  out[1] = dwt123_lo(hi[0], hi[1], hi[2], hi[3], 16384, 15);
  out[2] = dwt123_hi(lo[0], lo[1], lo[2], lo[3], 16384, 15);
  out[3] = dwt123_hi(hi[0], hi[1], hi[2], hi[3], 16384, 15);
}

// ---- Stage 2: decouple ----------------------------------------------------------------------------------------

// libvmaf's reciprocal table entry for o (|o| <= 32768): 2^30 / o truncated, sign of o, 0 at 0.
VX_HD vx_i32 recip_q30(vx_i32 o) {
  if (o > 0) return (vx_i32)(1073741824u / (vx_u32)o);
  if (o < 0) return -(vx_i32)(1073741824u / (vx_u32)(-o));
  return 0;
}

// float(cos(1 degree)^2), the double product rounded to float as libvmaf stores it (a host test checks the value
// against the C library's cos).
#define VX_ADM_COS_1DEG_SQ 0.99969542f

// The (h, v) vectors of ref and dist point within 1 degree of each other; float conversions and double products
// in libvmaf's order.
VX_HD bool within_one_degree(vx_i64 ot_dp, vx_i64 o_mag_sq, vx_i64 t_mag_sq) {
  const float cos_1deg_sq = VX_ADM_COS_1DEG_SQ;
  const double dp = (double)(float)ot_dp / 4096.0;
  const double o_mag = (double)(float)o_mag_sq / 4096.0;
  const double t_mag = (double)(float)t_mag_sq / 4096.0;
  return dp >= 0.0f && dp * dp >= ((double)cos_1deg_sq * o_mag) * t_mag;
}

// Enhancement gain rule: with the angle test passed, a restored value of ref's sign may grow by the gain limit up
// to the distorted value (MIN / MAX of a double and an integer, truncated back).
template <class T>
VX_HD T apply_gain(T rst, bool angle_flag, float rst_f, T t, double gain) {
  if (angle_flag && rst_f > 0.f) {
    const double g = (double)rst * gain;
    return (T)(g < (double)t ? g : (double)t);
  }
  if (angle_flag && rst_f < 0.f) {
    const double g = (double)rst * gain;
    return (T)(g > (double)t ? g : (double)t);
  }
  return rst;
}

// Scale 0: o, t = ref and dist h, v, d -> r (restored) and a (additive impairment).
VX_HD void decouple0(const vx_i16 o[3], const vx_i16 t[3], double gain, vx_i16 r[3], vx_i16 a[3]) {
  const vx_i64 ot_dp = (vx_i64)o[0] * t[0] + (vx_i64)o[1] * t[1];
  const vx_i64 o_mag_sq = (vx_i64)o[0] * o[0] + (vx_i64)o[1] * o[1];
  const vx_i64 t_mag_sq = (vx_i64)t[0] * t[0] + (vx_i64)t[1] * t[1];
  const bool angle_flag = within_one_degree(ot_dp, o_mag_sq, t_mag_sq);
  VX_ADM_UNROLL
  for (int b = 0; b < 3; ++b) {
    vx_i32 k = 32768;
    if (o[b] != 0) k = (vx_i32)(((vx_i64)recip_q30(o[b]) * t[b] + 16384) >> 15);
    k = k < 0 ? 0 : (k > 32768 ? 32768 : k);
    vx_i16 rst = (vx_i16)((k * (vx_i32)o[b] + 16384) >> 15);
    const float rst_f = ((float)k / 32768) * ((float)o[b] / 64);
    rst = apply_gain<vx_i16>(rst, angle_flag, rst_f, t[b], gain);
    r[b] = rst;
    a[b] = (vx_i16)(t[b] - rst);
  }
}

// Scales 1..3: |o| >= 2^15 divides through the 15 most significant bits of |o|, rounded.
VX_HD vx_i64 decouple_k123(vx_i32 o, vx_i32 t) {
  if (o == 0) return 32768;
  const vx_u32 abs_o = (vx_u32)wrap_abs(o);
  int shift = 0;
  vx_u32 msb = abs_o;
  if (abs_o >= 32768u) {
    shift = 17 - clz32(abs_o);
    msb = (vx_u16)((abs_o + (1u << (shift - 1))) >> shift);
  }
  // libvmaf multiplies by the sign (+-1); |2^30 / msb * t| < 2^61, so negating is the same.
  const vx_i64 prod = (vx_i64)recip_q30((vx_i32)msb) * t;
  const vx_i64 k = ((o < 0 ? -prod : prod) + ((vx_i64)1 << (14 + shift))) >> (15 + shift);
  return k < 0 ? 0 : (k > 32768 ? 32768 : k);
}

VX_HD void decouple123(const vx_i32 o[3], const vx_i32 t[3], double gain, vx_i32 r[3], vx_i32 a[3]) {
  const vx_i64 ot_dp = (vx_i64)o[0] * t[0] + (vx_i64)o[1] * t[1];
  const vx_i64 o_mag_sq = (vx_i64)o[0] * o[0] + (vx_i64)o[1] * o[1];
  const vx_i64 t_mag_sq = (vx_i64)t[0] * t[0] + (vx_i64)t[1] * t[1];
  const bool angle_flag = within_one_degree(ot_dp, o_mag_sq, t_mag_sq);
  VX_ADM_UNROLL
  for (int b = 0; b < 3; ++b) {
    const vx_i64 k = decouple_k123(o[b], t[b]);
    vx_i32 rst = (vx_i32)(((vx_i64)(vx_i32)k * o[b] + 16384) >> 15);  // k in [0, 2^15]: a 32x32-bit product
    const float rst_f = ((float)k / 32768) * ((float)o[b] / 64);
    rst = apply_gain<vx_i32>(rst, angle_flag, rst_f, t[b], gain);
    r[b] = rst;
    a[b] = wrap_sub(t[b], rst);
  }
}

// ---- Stage 4: CSF and the masking filter's input ----------------------------------------------------------------
// Scale 0, band b (0, 1, 2 = h, v, d): round {2^14, 2^14, 65535} (sic), shift {15, 15, 17}.
VX_HD vx_i16 csf0(vx_i16 src, vx_u32 fixed, int b) {
  const vx_i32 round = b == 2 ? 65535 : 16384;
  const int shift = b == 2 ? 17 : 15;
  return (vx_i16)(wrap_add(wrap_mul((vx_i32)fixed, src), round) >> shift);
}
VX_HD vx_i16 flt0(vx_i16 c) { return (vx_i16)((4369 * abs16(c) + 2048) >> 12); }
// The masking threshold's centre term: |csf| / 15 in flt's scale.
VX_HD vx_i32 centre0(vx_i16 c) { return (vx_i32)(vx_i16)((8738 * abs16(c) + 2048) >> 12); }

// fixed * x for a uint32 factor and an int32 x, as int64: sign(x) * (fixed * |x|), a 32x32-bit unsigned product
// (below 2^63, so the same value as libvmaf's int64 product).
VX_HD vx_i64 mul_u32_i32(vx_u32 fixed, vx_i32 x) {
  const vx_i64 m = (vx_i64)((vx_u64)fixed * (vx_u32)wrap_abs(x));
  return x < 0 ? -m : m;
}
VX_HD vx_i32 csf123(vx_i32 src, vx_u32 fixed) {
  return (vx_i32)((mul_u32_i32(fixed, src) + ((vx_i64)1 << 27)) >> 28);
}
// libvmaf's rounding term 1u << 31 lives in an int32: it subtracts 2^31.
VX_HD vx_i32 flt123(vx_i32 c) { return (vx_i32)((143165577LL * wrap_abs(c) - 2147483648LL) >> 32); }
VX_HD vx_i32 centre123(vx_i32 c) { return (vx_i32)((286331153LL * wrap_abs(c) - 2147483648LL) >> 32); }

// ---- Stage 3: denominator terms (per sample; the row sums are rounded by adm_row_round) -----------------------
VX_HD vx_u64 den_term0(vx_i16 x) {
  const vx_u32 u = (vx_u16)abs16(x);
  return (vx_u64)(u * u) * u;  // u <= 2^15: the square fits 32 bits
}
VX_HD vx_u64 den_term123(vx_i32 x, int sq, int cub, vx_u64 cub_round) {
  const vx_u64 u = (vx_u32)wrap_abs(x);
  return ((((u * u + ((vx_u64)1 << sq)) >> sq) * u) + cub_round) >> cub;
}

// ---- Stage 5: contrast masking --------------------------------------------------------------------------------
// max(0, |x| - thr), squared and rounded in int32, cubed and rounded in int64.
VX_HD vx_i64 cm_term(vx_i32 x, vx_i32 thr, vx_i64 round_sq, int shift_sq, vx_i64 round_cub, int shift_cub) {
  vx_i32 y = wrap_sub(wrap_abs(x), thr);
  y = y < 0 ? 0 : y;
  const vx_i32 y_sq = (vx_i32)(((vx_i64)y * y + round_sq) >> shift_sq);
  return ((vx_i64)y_sq * y + round_cub) >> shift_cub;
}

// Threshold at a position: per band the eight neighbours of flt plus the centre term. flt(b, dy, dx) reads band b
// at the (already mirrored) neighbour (dy, dx) in {-1, 0, 1}^2 \ {(0, 0)}.
template <class Flt>
VX_HD vx_i32 cm_threshold(const Flt& flt, const vx_i32 centre[3]) {
  vx_i32 thr = 0;
  VX_ADM_UNROLL
  for (int b = 0; b < 3; ++b) {
    vx_i32 sum = 0;
    sum = wrap_add(sum, flt(b, -1, -1));
    sum = wrap_add(sum, flt(b, -1, 0));
    sum = wrap_add(sum, flt(b, -1, 1));
    sum = wrap_add(sum, flt(b, 0, -1));
    sum = wrap_add(sum, centre[b]);
    sum = wrap_add(sum, flt(b, 0, 1));
    sum = wrap_add(sum, flt(b, 1, -1));
    sum = wrap_add(sum, flt(b, 1, 0));
    sum = wrap_add(sum, flt(b, 1, 1));
    thr = wrap_add(thr, sum);
  }
  return thr;
}

// Scale 0 terms of x (r for DLM, a for AIM) under threshold thr; p.cm_cub: hcub, dcub.
VX_HD void cm_terms0(const vx_i16 x[3], vx_i32 thr, const ScaleParams& p, vx_i64 out[3]) {
  out[0] = cm_term(wrap_mul(x[0], (vx_i32)p.fixed[0]), wrap_shl(thr, 10), 268435456, 29, p.cm_cub_round[0],
                   p.cm_cub[0]);
  out[1] = cm_term(wrap_mul(x[1], (vx_i32)p.fixed[1]), wrap_shl(thr, 10), 268435456, 29, p.cm_cub_round[0],
                   p.cm_cub[0]);
  out[2] = cm_term(wrap_mul(x[2], (vx_i32)p.fixed[2]), wrap_shl(thr, 12), 536870912, 30, p.cm_cub_round[1],
                   p.cm_cub[1]);
}
VX_HD void cm_terms123(const vx_i32 x[3], vx_i32 thr, const ScaleParams& p, vx_i64 out[3]) {
  VX_ADM_UNROLL
  for (int b = 0; b < 3; ++b) {
    const vx_i32 xs = (vx_i32)((mul_u32_i32(p.fixed[b], x[b]) + ((vx_i64)1 << 27)) >> 28);
    out[b] = cm_term(xs, thr, 536870912, 30, p.cm_cub_round[0], p.cm_cub[0]);
  }
}

// ---- Per-row rounding of the sums (the finishing kernel) ----------------------------------------------------
// kind 0..2: den (uint64); 3..8: cm numerators (int64, arithmetic shift).
VX_HD vx_u64 row_round(vx_u64 row_sum, int kind, const FinishParams& p, int scale) {
  if (kind < 3) return (row_sum + p.den_round[scale]) >> p.den_shift[scale];
  return (vx_u64)(((vx_i64)row_sum + p.cm_round[scale]) >> p.cm_shift[scale]);
}

// ---- Type traits: one kernel body for int16 (scale 0) and int32 (scales 1..3) bands --------------------------
template <class T>
struct Ops;

template <>
struct Ops<vx_i16> {
  static VX_HD void decouple(const vx_i16 o[3], const vx_i16 t[3], double gain, vx_i16 r[3], vx_i16 a[3]) {
    decouple0(o, t, gain, r, a);
  }
  static VX_HD vx_i16 csf(vx_i16 s, const ScaleParams& p, int b) { return csf0(s, p.fixed[b], b); }
  static VX_HD vx_i16 flt(vx_i16 c) { return flt0(c); }
  static VX_HD vx_i32 centre(vx_i16 c) { return centre0(c); }
  static VX_HD vx_u64 den(vx_i16 x, const ScaleParams&) { return den_term0(x); }
  static VX_HD void cm(const vx_i16 x[3], vx_i32 thr, const ScaleParams& p, vx_i64 out[3]) {
    cm_terms0(x, thr, p, out);
  }
};

template <>
struct Ops<vx_i32> {
  static VX_HD void decouple(const vx_i32 o[3], const vx_i32 t[3], double gain, vx_i32 r[3], vx_i32 a[3]) {
    decouple123(o, t, gain, r, a);
  }
  static VX_HD vx_i32 csf(vx_i32 s, const ScaleParams& p, int b) { return csf123(s, p.fixed[b]); }
  static VX_HD vx_i32 flt(vx_i32 c) { return flt123(c); }
  static VX_HD vx_i32 centre(vx_i32 c) { return centre123(c); }
  static VX_HD vx_u64 den(vx_i32 x, const ScaleParams& p) {
    return den_term123(x, p.den_sq, p.den_cub, (vx_u64)p.den_cub_round);
  }
  static VX_HD void cm(const vx_i32 x[3], vx_i32 thr, const ScaleParams& p, vx_i64 out[3]) {
    cm_terms123(x, thr, p, out);
  }
};


// ---- Sources of the DWT -----------------------------------------------------------------------------------------

// Scale 0: the picture, read in place (any pitch; 16-bit words byte by byte unless aligned).
struct PictureSource {
  VxPlane pic;
  int w, h, bpc;
  VX_HD vx_u32 operator()(int x, int y) const {
    const vx_u8* row = (const vx_u8*)pic.data + (vx_u64)y * pic.pitch;
    const vx_u32 at = (vx_u32)x * pic.step;  // x < 2^15, step small
    if (pic.bytes == 1) return row[at];
    if (vx_plane_words_aligned(pic)) return (vx_u32)((const vx_u16*)row)[at] >> pic.shift;
    return ((vx_u32)row[2 * at] | ((vx_u32)row[2 * at + 1] << 8)) >> pic.shift;
  }
  // The four bytes of row y from column x (odd) on: on the device two aligned 32-bit loads (the plane's rows
  // 4-byte aligned; the second word holds byte x + 3, so it lies inside the plane's last aligned word at most),
  // byte by byte on the host.
  VX_HD vx_u32 bytes4(int x, int y) const {
    const vx_u8* p = (const vx_u8*)pic.data + (vx_u64)y * pic.pitch + (vx_u32)x;
#if defined(VX_DEVICE_COMPILE)
    const unsigned off = (unsigned)((vx_u64)p & 3u);
    const vx_u32* q = (const vx_u32*)(p - off);
    return (vx_u32)((((vx_u64)q[1] << 32) | q[0]) >> (8 * off));
#else
    return (vx_u32)p[0] | ((vx_u32)p[1] << 8) | ((vx_u32)p[2] << 16) | ((vx_u32)p[3] << 24);
#endif
  }
  template <bool kAll>
  VX_HD void dwt(int i, int j, vx_i16 out[4]) const {
    // Bytes with aligned rows, and a stencil (rows 2i-1..2i+2, columns 2j-1..2j+2) inside the picture: no
    // reflection, each row's four samples in one read; then dwt0_at's arithmetic.
    if (pic.bytes == 1 && pic.step == 1 && ((((vx_u64)pic.data) | pic.pitch) & 3u) == 0 && i >= 1 &&
        2 * i + 2 < h && j >= 1 && 2 * j + 2 < w) {
      vx_u32 rows[4];
      VX_ADM_UNROLL
      for (int k = 0; k < 4; ++k) rows[k] = bytes4(2 * j - 1, 2 * i - 1 + k);
      vx_i16 lo[4], hi[4];
      VX_ADM_UNROLL
      for (int k = 0; k < 4; ++k)
        dwt0_vertical((rows[0] >> (8 * k)) & 255u, (rows[1] >> (8 * k)) & 255u, (rows[2] >> (8 * k)) & 255u,
                      (rows[3] >> (8 * k)) & 255u, bpc, &lo[k], &hi[k]);
      dwt0_horizontal<kAll>(lo, hi, out);
      return;
    }
    dwt0_at<kAll>(*this, w, h, bpc, i, j, out);
  }
};

// Scales 1..3: band a of the previous scale, w x h with dense rows.
template <class In>
struct BandSource {
  const In* band;
  int w, h, scale;
  // Scale 3 of a picture with a small axis (ScaleParams::small): the reference's band a, the reference's row -1
  // (SmallRowParams) and which picture this is.
  int small;
  const vx_i32* ref_band;
  const vx_i32* row_above;
  int dist;
  template <bool kAll>
  VX_HD void dwt(int i, int j, vx_i32 out[4]) const {
    if (small)
      dwt123_small_at<kAll>(ref_band, (const vx_i32*)band, row_above, w, h, dist != 0, i, j, out);
    else
      dwt123_at<kAll>(band, w, w, h, scale, i, j, out);
  }
};

// Value j (0 .. count-1) of the reference's row -1 at scale 3: the int16 pair libvmaf reads as int32 at linear
// positions 2j and 2j + 1 of its scale-0 csf_f band d row h0 - 2 (rows of row_len elements), each recomputed from
// the pictures (DWT, decouple, CSF of band d), 0 where libvmaf never writes.
template <class Src>
VX_HD vx_i32 small_row_value(const Src& ref, const Src& dist, const ScaleParams& p0, const SmallRowParams& q, int j) {
  vx_u32 half[2] = {0, 0};
  VX_ADM_UNROLL
  for (int e = 0; e < 2; ++e) {
    const vx_i64 linear = (vx_i64)(q.h0 - 2) * q.row_len + 2 * j + e;
    const int r = (int)(linear / q.row_len), c = (int)(linear % q.row_len);
    if (q.mode == 0 || r >= q.h0 || c >= q.w0 || r < q.top || r >= q.bottom || c < q.left || c >= q.right) continue;
    vx_i16 ob[4], tb[4], rr[3], aa[3];
    ref.template dwt<true>(r, c, ob);
    dist.template dwt<true>(r, c, tb);
    const vx_i16 o[3] = {ob[1], ob[2], ob[3]};
    const vx_i16 t[3] = {tb[1], tb[2], tb[3]};
    decouple0(o, t, p0.gain, rr, aa);
    const vx_i16 v = q.mode == 1 ? csf0(rr[2], p0.fixed[2], 2) : flt0(csf0(aa[2], p0.fixed[2], 2));
    half[e] = (vx_u16)v;
  }
  return (vx_i32)(half[0] | (half[1] << 16));
}

// ---- The tile of the fused scale kernel, phase by phase -----------------------------------------------------
// A block (bx, by) of threads (tx, ty) runs: tile_scores (uniform); if false, tile_band_a and done; else
// tile_phase_a, barrier, tile_phase_b, barrier, tile_store_terms, barrier, tile_row_sum (threads with
// tid = ty * kBlockW + tx < kKinds * kTileH), whose sum is added atomically into rows[index]. Shared memory: kSmemU64
// uint64; phase A/B use it as flt (6 x kHaloN of T: DLM h, v, d, then AIM h, v, d), the row sums reuse it.
enum { kScratchStride = kTileW + 1, kSmemU64 = kKinds * kTileH * kScratchStride };

// The tile holds positions of the score rectangle (else it only writes band a).
VX_HD bool tile_scores(const ScaleParams& p, int bx, int by) {
  const int i0 = by * kTileH, j0 = bx * kTileW;
  return p.full && i0 < p.bottom && i0 + kTileH > p.top && j0 < p.right && j0 + kTileW > p.left;
}

// What a thread keeps of its own positions between the phases: restored r, impairment a, reference h, v, d.
template <class T>
struct TileRegs {
  T r[kRowsPerThread][3];
  T a[kRowsPerThread][3];
  T o[kRowsPerThread][3];
};

template <class T, class Src>
VX_HD void tile_band_a(const Src& ref, const Src& dist, const ScaleParams& p, int bx, int by, int tx, int ty,
                       T* ref_a, T* dist_a) {
  if (!ref_a) return;
  VX_ADM_UNROLL
  for (int k = 0; k < kRowsPerThread; ++k) {
    const int i = by * kTileH + ty + k * kBlockH, j = bx * kTileW + tx;
    if (i >= p.h || j >= p.w) continue;
    T oa[4], ta[4];
    ref.template dwt<false>(i, j, oa);
    dist.template dwt<false>(i, j, ta);
    ref_a[(vx_u64)i * p.w + j] = oa[0];
    dist_a[(vx_u64)i * p.w + j] = ta[0];
  }
}

// Decouple and CSF of a position whose ref / dist bands are ob / tb (a, h, v, d): flt of a (DLM) and, with AIM,
// of r into the halo tile at hidx; r and a out.
template <class T>
VX_HD void decouple_and_flt(const T ob[4], const T tb[4], const ScaleParams& p, T* flt, int hidx, T r[3], T a[3]) {
  typedef Ops<T> O;
  const T o[3] = {ob[1], ob[2], ob[3]};
  const T t[3] = {tb[1], tb[2], tb[3]};
  O::decouple(o, t, p.gain, r, a);
  VX_ADM_UNROLL
  for (int b = 0; b < 3; ++b) {
    flt[b * kHaloN + hidx] = O::flt(O::csf(a[b], p, b));
    if (p.aim) flt[(3 + b) * kHaloN + hidx] = O::flt(O::csf(r[b], p, b));
  }
}

// Test mode: every intermediate of a position into kDumpPlanes planes of `plane` elements.
template <class T>
VX_HD void dump_position(T* dump, vx_u64 plane, vx_u64 at, const T ob[4], const T tb[4], const T r[3], const T a[3],
                         const ScaleParams& p) {
  typedef Ops<T> O;
  VX_ADM_UNROLL
  for (int b = 0; b < 4; ++b) {
    dump[(kDumpRefA + b) * plane + at] = ob[b];
    dump[(kDumpDistA + b) * plane + at] = tb[b];
  }
  VX_ADM_UNROLL
  for (int b = 0; b < 3; ++b) {
    const T ca = O::csf(a[b], p, b), cr = O::csf(r[b], p, b);
    dump[(kDumpR + b) * plane + at] = r[b];
    dump[(kDumpAdd + b) * plane + at] = a[b];
    dump[(kDumpCsfDlm + b) * plane + at] = ca;
    dump[(kDumpFltDlm + b) * plane + at] = O::flt(ca);
    dump[(kDumpCsfAim + b) * plane + at] = cr;
    dump[(kDumpFltAim + b) * plane + at] = O::flt(cr);
  }
}

// Phase A: the thread's own positions (bands, band a out, decouple, CSF, flt; r, a, ref bands kept) and, for
// threads tid < kRingN, one position of the ring around the tile (flt only). Only positions of the score rectangle
// grown by one need flt; with `dump` every position of the band is decoupled and written out.
template <class T, class Src>
VX_HD void tile_phase_a(const Src& ref, const Src& dist, const ScaleParams& p, int bx, int by, int tx, int ty,
                        T* flt, T* ref_a, T* dist_a, T* dump, vx_u64 dump_plane, TileRegs<T>* regs) {
  const int i0 = by * kTileH, j0 = bx * kTileW;
  const bool dumping = dump != 0;
  const int fl = p.left - 1 > 0 ? p.left - 1 : 0, ft = p.top - 1 > 0 ? p.top - 1 : 0;
  const int fr = p.right + 1 < p.w ? p.right + 1 : p.w, fb = p.bottom + 1 < p.h ? p.bottom + 1 : p.h;
  VX_ADM_UNROLL
  for (int k = 0; k < kRowsPerThread; ++k) {
    const int i = i0 + ty + k * kBlockH, j = j0 + tx;
    VX_ADM_UNROLL
    for (int b = 0; b < 3; ++b) regs->r[k][b] = regs->a[k][b] = regs->o[k][b] = 0;
    if (i >= p.h || j >= p.w) continue;
    const vx_u64 at = (vx_u64)i * p.w + j;
    if (!dumping && !(i >= ft && i < fb && j >= fl && j < fr)) {
      if (!ref_a) continue;
      T oa[4], ta[4];
      ref.template dwt<false>(i, j, oa);
      dist.template dwt<false>(i, j, ta);
      ref_a[at] = oa[0];
      dist_a[at] = ta[0];
      continue;
    }
    T ob[4], tb[4];
    ref.template dwt<true>(i, j, ob);
    dist.template dwt<true>(i, j, tb);
    if (ref_a) {
      ref_a[at] = ob[0];
      dist_a[at] = tb[0];
    }
    decouple_and_flt<T>(ob, tb, p, flt, (ty + k * kBlockH + 1) * kHaloW + tx + 1, regs->r[k], regs->a[k]);
    VX_ADM_UNROLL
    for (int b = 0; b < 3; ++b) regs->o[k][b] = ob[b + 1];
    if (dumping) dump_position<T>(dump, dump_plane, at, ob, tb, regs->r[k], regs->a[k], p);
  }
  const int tid = ty * kBlockW + tx;
  if (tid >= kRingN) return;
  // The ring: the row above, the row below, then the columns left and right of the tile's rows.
  int hy, hx;
  if (tid < kHaloW) {
    hy = 0;
    hx = tid;
  } else if (tid < 2 * kHaloW) {
    hy = kHaloH - 1;
    hx = tid - kHaloW;
  } else {
    const int q = tid - 2 * kHaloW;
    hy = 1 + (q >> 1);
    hx = (q & 1) ? kHaloW - 1 : 0;
  }
  const int i = i0 - 1 + hy, j = j0 - 1 + hx;
  if (i < 0 || i >= p.h || j < 0 || j >= p.w) return;
  if (!dumping && !(i >= ft && i < fb && j >= fl && j < fr)) return;
  T ob[4], tb[4], r[3], a[3];
  ref.template dwt<true>(i, j, ob);
  dist.template dwt<true>(i, j, tb);
  decouple_and_flt<T>(ob, tb, p, flt, hy * kHaloW + hx, r, a);
}

// flt of the three bands around a position, from the halo tile (neighbours already mirrored).
template <class T>
struct HaloFlt {
  const T* base;  // band h of the DLM or AIM set; v and d follow at kHaloN
  int row[3];     // halo rows of the neighbours above, at and below
  int col[3];
  VX_HD vx_i32 operator()(int b, int dy, int dx) const {
    return (vx_i32)base[b * kHaloN + row[dy + 1] * kHaloW + col[dx + 1]];
  }
};

// Phase B: the nine terms of each of the thread's positions in the score rectangle (0 elsewhere).
template <class T>
VX_HD void tile_phase_b(const ScaleParams& p, int bx, int by, int tx, int ty, const T* flt, const TileRegs<T>& regs,
                        vx_u64 terms[kRowsPerThread][kKinds]) {
  typedef Ops<T> O;
  const int i0 = by * kTileH, j0 = bx * kTileW;
  VX_ADM_UNROLL
  for (int k = 0; k < kRowsPerThread; ++k) {
    VX_ADM_UNROLL
    for (int q = 0; q < kKinds; ++q) terms[k][q] = 0;
    const int i = i0 + ty + k * kBlockH, j = j0 + tx;
    if (!p.full || i < p.top || i >= p.bottom || j < p.left || j >= p.right) continue;
    VX_ADM_UNROLL
    for (int b = 0; b < 3; ++b) terms[k][b] = O::den(regs.o[k][b], p);
    HaloFlt<T> nb;
    nb.base = flt;
    nb.row[0] = cm_up(i) - (i0 - 1);
    nb.row[1] = i - (i0 - 1);
    nb.row[2] = cm_down(i, p.h) - (i0 - 1);
    nb.col[0] = cm_up(j) - (j0 - 1);
    nb.col[1] = j - (j0 - 1);
    nb.col[2] = cm_down(j, p.w) - (j0 - 1);
    vx_i32 centre[3];
    vx_i64 cm[3];
    VX_ADM_UNROLL
    for (int b = 0; b < 3; ++b) centre[b] = O::centre(O::csf(regs.a[k][b], p, b));
    O::cm(regs.r[k], cm_threshold(nb, centre), p, cm);
    VX_ADM_UNROLL
    for (int b = 0; b < 3; ++b) terms[k][3 + b] = (vx_u64)cm[b];
    if (!p.aim) continue;
    nb.base = flt + 3 * kHaloN;
    VX_ADM_UNROLL
    for (int b = 0; b < 3; ++b) centre[b] = O::centre(O::csf(regs.r[k][b], p, b));
    O::cm(regs.a[k], cm_threshold(nb, centre), p, cm);
    VX_ADM_UNROLL
    for (int b = 0; b < 3; ++b) terms[k][6 + b] = (vx_u64)cm[b];
  }
}

// After phase B (and a barrier): the terms into the row-sum scratch, kKinds x kTileH rows of kScratchStride.
VX_HD void tile_store_terms(int tx, int ty, const vx_u64 terms[kRowsPerThread][kKinds], vx_u64* scratch) {
  VX_ADM_UNROLL
  for (int k = 0; k < kRowsPerThread; ++k) {
    const int row = ty + k * kBlockH;
    VX_ADM_UNROLL
    for (int q = 0; q < kKinds; ++q) scratch[(q * kTileH + row) * kScratchStride + tx] = terms[k][q];
  }
}

// Thread tid < kKinds * kTileH: the tile's part of one row sum (kind tid / kTileH, row tid % kTileH). False when
// there is nothing to add (a row outside the score rectangle, or a zero sum).
VX_HD bool tile_row_sum(const ScaleParams& p, int by, int tid, const vx_u64* scratch, vx_u64* index, vx_u64* sum) {
  const int q = tid / kTileH, row = tid % kTileH;
  const int i = by * kTileH + row;
  if (i < p.top || i >= p.bottom) return false;
  const vx_u64* s = scratch + (q * kTileH + row) * kScratchStride;
  vx_u64 acc = 0;
  VX_ADM_UNROLL
  for (int c = 0; c < kTileW; ++c) acc += s[c];
  *index = p.rows_offset + (vx_u64)q * p.h + i;
  *sum = acc;
  return acc != 0;
}

}  // namespace adm
}  // namespace hip
}  // namespace vmafx
