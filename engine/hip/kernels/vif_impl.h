// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer VIF's kernel arithmetic, shared by kernels/vif.hip and by host tests (it includes only common.h, so g++
// compiles it too). The integer widths, shifts, rounding and floating-point operations are those of the CPU
// reference (engine/cpu/vif.cpp), which follows libvmaf's C path: the GPU produces the same integer sums.
//
// One kernel launch per scale; one block per tile of kVifTileW x kVifTileH output pixels. A block
//   1. loads the tile's reference and distorted samples with a halo of the filter's half width into shared memory,
//      mirroring rows and columns at the picture's edges (index -k reads k, n-1+k reads n-1-k), so every later
//      stage reads the tile without edge cases; a tile whose halo lies inside the picture, on planes whose rows
//      are aligned, reads 2 or 4 samples per load instead, with no mirroring;
//   2. runs the vertical filter over every column of the tile (halo columns included): mu1, mu2 and the moments
//      rr, dd, rd;                                      (scale < 3: also the vertical pass of the decimation filter
//                                                        of scale + 1 on the tile's even rows)
//   3. runs the horizontal filter for runs of kVifRun adjacent output pixels (one window of the vertical results
//      read with wide loads serves the whole run) and adds the statistic of each pixel inside the picture to the
//      thread's four integer sums; the three moments are summed as 64-bit integers or, on GPUs with full-rate
//      float64, as float64 fused multiply-adds (every product and partial sum is an integer below 2^53, so both
//      give the same integer);                      (scale < 3: the horizontal decimation pass at even columns,
//                                                        written to the next scale's image)
//   4. sums the threads' integers through shared memory and adds them to the scale's four 64-bit accumulators.
// The stages are VX_HD functions of one work item each, so a host test can run a tile item by item exactly as a
// block does, and compare every stage with the CPU reference's stage functions.
#pragma once

#include "common.h"

#define VIF_SCALES 4
#define VIF_THREADS 256   // block size of the vif kernels (a multiple of 64; the reduction needs a power of two)
#define VIF_TILE_W 64     // output pixels of a tile (both even: decimation keeps even rows and columns)
#define VIF_TILE_H 16
#define VIF_RUN 4         // adjacent output pixels of one horizontal work item (VIF_TILE_W is a multiple)

// Loops over filter taps are unrolled so that the taps become immediates (device compilers; g++ does it at -O2).
#if defined(VX_DEVICE_COMPILE)
#define VIF_UNROLL _Pragma("unroll")
#else
#define VIF_UNROLL
#endif

// Filter tap k of scale s (Q16; each filter sums to 65536). Written as a switch of literals so that, in a loop
// unrolled over k, every tap becomes an immediate operand on every compiler (host, nvcc, hipcc, the run-time ones).
VX_HD vx_u32 vif_tap(unsigned scale, int k) {
  if (scale == 0) {
    const vx_u16 t[17] = {489,  935,  1640, 2640, 3896, 5274, 6547, 7455, 7784,
                          7455, 6547, 5274, 3896, 2640, 1640, 935,  489};
    return t[k];
  }
  if (scale == 1) {
    const vx_u16 t[9] = {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244};
    return t[k];
  }
  if (scale == 2) {
    const vx_u16 t[5] = {3571, 16004, 26386, 16004, 3571};
    return t[k];
  }
  const vx_u16 t[3] = {10904, 43728, 10904};
  return t[k];
}

VX_HD int vif_filter_width(unsigned scale) { return scale == 0 ? 17 : scale == 1 ? 9 : scale == 2 ? 5 : 3; }

// Geometry of the tile of scale kScale.
template <unsigned kScale>
struct VifShape {
  static constexpr int kWidth = kScale == 0 ? 17 : kScale == 1 ? 9 : kScale == 2 ? 5 : 3;
  static constexpr int kHalf = kWidth / 2;
  // The decimation filter (that of scale + 1); scale 3 does not decimate.
  static constexpr bool kDecimates = kScale + 1 < VIF_SCALES;
  static constexpr int kDecWidth = kScale == 0 ? 9 : kScale == 1 ? 5 : kScale == 2 ? 3 : 1;
  static constexpr int kDecHalf = kDecWidth / 2;
  static constexpr int kTileW = VIF_TILE_W;
  static constexpr int kTileH = VIF_TILE_H;
  static constexpr int kInW = kTileW + 2 * kHalf;  // loaded samples per row (halo on both sides)
  static constexpr int kInH = kTileH + 2 * kHalf;
  static constexpr int kDecW = kTileW + 2 * kDecHalf;  // columns of the vertical decimation pass
  static constexpr int kDecH = kTileH / 2;             // even rows only
  // The horizontal pass of a run of VIF_RUN outputs reads kWidth + VIF_RUN - 1 vertical results, as kChunks aligned
  // groups of 4; rows of the vertical results are kVertW long (>= kInW) so that the last run's groups stay inside.
  static constexpr int kChunks = (kWidth + VIF_RUN - 1 + 3) / 4;
  static constexpr int kVertW = kTileW - VIF_RUN + 4 * kChunks;
};

// Shared memory of one block. mu1/mu2 of the vertical pass are 16-bit values (libvmaf stores them as uint16).
// The vertical results come first, each row a multiple of 16 bytes (u32) / 8 bytes (u16), so that groups of 4
// starting at a multiple of 4 can be read with one 128-bit / 64-bit load.
template <unsigned kScale>
struct alignas(16) VifTile {
  typedef VifShape<kScale> S;
  vx_u32 rr[S::kTileH][S::kVertW];
  vx_u32 dd[S::kTileH][S::kVertW];
  vx_u32 rd[S::kTileH][S::kVertW];
  vx_u16 mu1[S::kTileH][S::kVertW];
  vx_u16 mu2[S::kTileH][S::kVertW];
  vx_u16 ref[S::kInH][S::kInW];
  vx_u16 dist[S::kInH][S::kInW];
  vx_u16 dec_ref[S::kDecimates ? S::kDecH : 1][S::kDecimates ? S::kDecW : 1];
  vx_u16 dec_dist[S::kDecimates ? S::kDecH : 1][S::kDecimates ? S::kDecW : 1];
};

struct alignas(16) VifU32x4 {
  vx_u32 v[4];
};
struct alignas(8) VifU16x4 {
  vx_u16 v[4];
};

// Everything a scale's kernel needs, passed by value as its one argument.
struct VifScaleArgs {
  VxPlane ref;               // this scale's input: the picture's luma at scale 0, the previous scale's image after
  VxPlane dist;
  const vx_u16* log2_table;  // 65536 entries (vmafx::cpu::vif_log2_table())
  vx_u16* next_ref;          // scale < 3: the (w/2) x (h/2) image of the next scale, next_pitch elements per row
  vx_u16* next_dist;
  vx_u64* accum;             // the scale's four sums: num_log, den_log, num_non_log, den_non_log (two's complement)
  vx_u64* block_sums;        // tests: when not null, each block's four sums at [4 * block index]
  vx_u32* filtered;          // tests: when not null, mu1, mu2, xx, yy, xy as five w x h planes (w per row)
  double enhn_gain_limit;
  vx_u64 next_pitch;
  vx_u64 sq_round;           // vertical rounding of this scale (vmafx::cpu::vif_vertical_rounding)
  vx_u32 mu_round;
  vx_u32 mu_shift;
  vx_u32 sq_shift;
  vx_u32 w, h;               // this scale's size
  vx_u32 reserved;
};

// The kernels of every scale take the scale's arguments by value (kernels/vif.hip; the host launches them as
// TypedKernel<vif_scale_kernel_fn>).
typedef void vif_scale_kernel_fn(VifScaleArgs a);

// libvmaf's four integer sums of a scale.
struct VifSums {
  vx_i64 num_log;
  vx_i64 den_log;
  vx_i64 num_non_log;
  vx_i64 den_non_log;
};

struct VifVertical {
  vx_u32 mu1, mu2;     // (sum f x + mu_round) >> mu_shift, < 2^16
  vx_u32 rr, dd, rd;   // (sum f x y + sq_round) >> sq_shift, kept to 32 bits
};

struct VifFiltered {
  vx_u32 mu1, mu2;     // sum f mu (Q16 local mean)
  vx_u32 xx, yy, xy;   // (sum f rr + 32768) >> 16, kept to 32 bits
};

// ---- helpers -----------------------------------------------------------------------------------------------------

// Mirror without repeating the edge sample; indices farther out (only read for tile positions outside the picture,
// whose results are discarded) are clamped so that every read stays inside the plane.
VX_HD int vif_mirror(int i, int n) {
  if (i < 0) i = -i;
  if (i >= n) i = 2 * (n - 1) - i;
  if (i < 0) i = 0;
  if (i > n - 1) i = n - 1;
  return i;
}

// Sample x of row y: a byte, or a 16-bit word read whole where the plane's words are aligned, else byte by byte.
VX_HD vx_u32 vif_read_sample(const VxPlane& p, vx_u32 x, vx_u32 y) {
  const vx_u8* row = (const vx_u8*)p.data + (vx_u64)y * p.pitch;
  const vx_u64 i = (vx_u64)x * p.step;
  if (p.bytes == 1) return row[i];
  if (vx_plane_words_aligned(p)) return (vx_u32)((const vx_u16*)row)[i] >> p.shift;
  const vx_u8* b = row + 2 * i;
  return ((vx_u32)b[0] | ((vx_u32)b[1] << 8)) >> p.shift;
}

VX_HD int vif_clz32(vx_u32 v) {
#if defined(__CUDA_ARCH__)
  return __clz((int)v);
#else
  return __builtin_clz(v);
#endif
}

VX_HD int vif_clz64(vx_u64 v) {
#if defined(__CUDA_ARCH__)
  return __clzll((long long)v);
#else
  return __builtin_clzll(v);
#endif
}

// Double operations that no compiler may fuse into an FMA (libvmaf rounds each one). The build passes
// --fmad=false / -ffp-contract=off as well; on NVIDIA the _rn intrinsics make it independent of that.
VX_HD double vif_dadd(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
VX_HD double vif_dsub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
VX_HD double vif_dmul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
VX_HD double vif_ddiv(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

// double -> int32 / int64 as x86's cvttsd2si: truncation, and the minimum for NaN and values out of range (GPUs
// saturate instead, so the range is checked explicitly).
VX_HD vx_i32 vif_to_i32(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0)) return (vx_i32)(-2147483647 - 1);
  return (vx_i32)v;
}
VX_HD vx_i64 vif_to_i64(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return (vx_i64)(-9223372036854775807LL - 1);
  return (vx_i64)v;
}

// log2 in Q11 of a value >= 2^17 (32-bit) or >= 2^16 (64-bit) from its 16 leading bits.
VX_HD vx_i32 vif_log2_q11_32(const vx_u16* table, vx_u32 v) {
  const int k = 16 - vif_clz32(v);
  return (vx_i32)table[v >> k] + 2048 * k;
}
VX_HD vx_i32 vif_log2_q11_64(const vx_u16* table, vx_u64 v) {
  const int k = 48 - vif_clz64(v);
  return (vx_i32)table[v >> k] + 2048 * k;
}

// ---- per-point stages --------------------------------------------------------------------------------------------

// Vertical pass of kScale at one column: ref[k * stride], dist[k * stride] for k = 0 .. width-1 are the rows of
// the taps (already mirrored). kWide: the moments are summed in 64 bits (samples above 8 bits or scale > 0), else
// in 32 bits (exact for 8-bit samples: 65536 * 255^2 < 2^32).
template <unsigned kScale, bool kWide>
VX_HD VifVertical vif_vertical_point(const vx_u16* ref, const vx_u16* dist, int stride, vx_u32 mu_round,
                                     vx_u32 mu_shift, vx_u64 sq_round, vx_u32 sq_shift) {
  const int fw = VifShape<kScale>::kWidth;
  vx_u32 mu1 = 0, mu2 = 0;
  VifVertical out;
  if (kWide) {
    vx_u64 rr = 0, dd = 0, rd = 0;
    VIF_UNROLL
    for (int k = 0; k < fw; ++k) {
      const vx_u32 a = ref[k * stride];
      const vx_u32 b = dist[k * stride];
      const vx_u32 fa = vif_tap(kScale, k) * a;  // < 2^32
      const vx_u32 fb = vif_tap(kScale, k) * b;
      mu1 += fa;
      mu2 += fb;
      rr += (vx_u64)fa * a;
      dd += (vx_u64)fb * b;
      rd += (vx_u64)fa * b;
    }
    out.rr = (vx_u32)((rr + sq_round) >> sq_shift);
    out.dd = (vx_u32)((dd + sq_round) >> sq_shift);
    out.rd = (vx_u32)((rd + sq_round) >> sq_shift);
  } else {
    vx_u32 rr = 0, dd = 0, rd = 0;
    VIF_UNROLL
    for (int k = 0; k < fw; ++k) {
      const vx_u32 a = ref[k * stride];
      const vx_u32 b = dist[k * stride];
      const vx_u32 fa = vif_tap(kScale, k) * a;
      const vx_u32 fb = vif_tap(kScale, k) * b;
      mu1 += fa;
      mu2 += fb;
      rr += fa * a;
      dd += fb * b;
      rd += fa * b;
    }
    out.rr = (vx_u32)(((vx_u64)rr + sq_round) >> sq_shift);
    out.dd = (vx_u32)(((vx_u64)dd + sq_round) >> sq_shift);
    out.rd = (vx_u32)(((vx_u64)rd + sq_round) >> sq_shift);
  }
  out.mu1 = (vx_u16)((mu1 + mu_round) >> mu_shift);
  out.mu2 = (vx_u16)((mu2 + mu_round) >> mu_shift);
  return out;
}

// Horizontal pass of kScale at one pixel: element k = 0 .. width-1 of each row is a tap (already mirrored).
template <unsigned kScale>
VX_HD VifFiltered vif_horizontal_point(const vx_u16* mu1, const vx_u16* mu2, const vx_u32* rr, const vx_u32* dd,
                                       const vx_u32* rd) {
  const int fw = VifShape<kScale>::kWidth;
  vx_u32 m1 = 0, m2 = 0;
  vx_u64 xx = 0, yy = 0, xy = 0;
  VIF_UNROLL
  for (int k = 0; k < fw; ++k) {
    const vx_u32 f = vif_tap(kScale, k);
    m1 += f * mu1[k];
    m2 += f * mu2[k];
    xx += (vx_u64)f * rr[k];
    yy += (vx_u64)f * dd[k];
    xy += (vx_u64)f * rd[k];
  }
  VifFiltered out;
  out.mu1 = m1;
  out.mu2 = m2;
  out.xx = (vx_u32)((xx + 32768) >> 16);
  out.yy = (vx_u32)((yy + 32768) >> 16);
  out.xy = (vx_u32)((xy + 32768) >> 16);
  return out;
}

// Four values from a 16-byte (u32) / 8-byte (u16) aligned address: one wide load on the device.
VX_HD void vif_load4(const vx_u32* p, vx_u32* out) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  const VifU32x4 v = *reinterpret_cast<const VifU32x4*>(p);
  out[0] = v.v[0];
  out[1] = v.v[1];
  out[2] = v.v[2];
  out[3] = v.v[3];
#else
  for (int i = 0; i < 4; ++i) out[i] = p[i];
#endif
}
VX_HD void vif_load4(const vx_u16* p, vx_u32* out) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  const VifU16x4 v = *reinterpret_cast<const VifU16x4*>(p);
  out[0] = v.v[0];
  out[1] = v.v[1];
  out[2] = v.v[2];
  out[3] = v.v[3];
#else
  for (int i = 0; i < 4; ++i) out[i] = p[i];
#endif
}

// Horizontal pass of kScale at VIF_RUN adjacent pixels: out[o] is vif_horizontal_point at the arrays + o. The arrays
// are read in VifShape<kScale>::kChunks groups of 4 from an address aligned for vif_load4 (the values past the
// last tap of the last pixel are read and not used).
// kF64: the moments summed as float64 (vif_exact_fma) instead of 64-bit integers: f < 2^16 and the vertical
// moments < 2^32, so each product is below 2^48 and the sum of at most 17 below 2^53: exact either way.
template <bool kF64>
struct VifMomentSum {
  typedef vx_u64 type;
};
template <>
struct VifMomentSum<true> {
  typedef double type;
};

// a * b + c for integer-valued doubles whose exact result is below 2^53 (no rounding happens, fused or not).
VX_HD double vif_exact_fma(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#elif defined(__HIP_DEVICE_COMPILE__)
  return __builtin_fma(a, b, c);
#else
  return a * b + c;
#endif
}
VX_HD vx_u64 vif_moment_add(vx_u64 acc, vx_u32 f, vx_u32 v) { return acc + (vx_u64)f * v; }
VX_HD double vif_moment_add(double acc, vx_u32 f, vx_u32 v) { return vif_exact_fma((double)f, (double)v, acc); }

template <unsigned kScale, bool kF64 = false>
VX_HD void vif_horizontal_run(const vx_u16* mu1, const vx_u16* mu2, const vx_u32* rr, const vx_u32* dd,
                              const vx_u32* rd, VifFiltered* out) {
  typedef typename VifMomentSum<kF64>::type Moment;
  const int fw = VifShape<kScale>::kWidth;
  const int chunks = VifShape<kScale>::kChunks;
  vx_u32 m1[VIF_RUN], m2[VIF_RUN];
  Moment xx[VIF_RUN], yy[VIF_RUN], xy[VIF_RUN];
  VIF_UNROLL
  for (int o = 0; o < VIF_RUN; ++o) {
    m1[o] = m2[o] = 0;
    xx[o] = yy[o] = xy[o] = 0;
  }
  VIF_UNROLL
  for (int g = 0; g < chunks; ++g) {
    vx_u32 a[4], b[4], c[4], d[4], e[4];
    vif_load4(mu1 + 4 * g, a);
    vif_load4(mu2 + 4 * g, b);
    vif_load4(rr + 4 * g, c);
    vif_load4(dd + 4 * g, d);
    vif_load4(rd + 4 * g, e);
    VIF_UNROLL
    for (int i = 0; i < 4; ++i) {
      const int j = 4 * g + i;  // position in the window
      VIF_UNROLL
      for (int o = 0; o < VIF_RUN; ++o) {
        const int k = j - o;  // tap of output o
        if (k >= 0 && k < fw) {
          const vx_u32 f = vif_tap(kScale, k);
          m1[o] += f * a[i];
          m2[o] += f * b[i];
          xx[o] = vif_moment_add(xx[o], f, c[i]);
          yy[o] = vif_moment_add(yy[o], f, d[i]);
          xy[o] = vif_moment_add(xy[o], f, e[i]);
        }
      }
    }
  }
  VIF_UNROLL
  for (int o = 0; o < VIF_RUN; ++o) {
    out[o].mu1 = m1[o];
    out[o].mu2 = m2[o];
    out[o].xx = (vx_u32)(((vx_u64)xx[o] + 32768) >> 16);
    out[o].yy = (vx_u32)(((vx_u64)yy[o] + 32768) >> 16);
    out[o].xy = (vx_u32)(((vx_u64)xy[o] + 32768) >> 16);
  }
}

// The statistic of one pixel added to *s (libvmaf's per-pixel step of its four accumulators).
VX_HD void vif_statistic(const VifFiltered& f, const vx_u16* log2_table, double enhn_gain_limit, VifSums* s) {
  const vx_i32 kSigmaNsq = 65536 << 1;
  const double eps = 65536 * 1.0e-10;
  const vx_u32 mu1_sq = (vx_u32)(((vx_u64)f.mu1 * f.mu1 + 2147483648u) >> 32);
  const vx_u32 mu2_sq = (vx_u32)(((vx_u64)f.mu2 * f.mu2 + 2147483648u) >> 32);
  const vx_u32 mu1_mu2 = (vx_u32)(((vx_u64)f.mu1 * f.mu2 + 2147483648u) >> 32);
  // Differences wrap in 32 bits and are read as signed.
  const vx_i32 sigma1_sq = (vx_i32)(f.xx - mu1_sq);
  vx_i32 sigma2_sq = (vx_i32)(f.yy - mu2_sq);
  const vx_i32 sigma12 = (vx_i32)(f.xy - mu1_mu2);
  if (sigma2_sq < 0) sigma2_sq = 0;
  if (sigma1_sq >= kSigmaNsq) {
    s->den_log += vif_log2_q11_32(log2_table, (vx_u32)kSigmaNsq + (vx_u32)sigma1_sq) - 2048 * 17;
    if (sigma12 > 0 && sigma2_sq > 0) {
      double g = vif_ddiv((double)sigma12, vif_dadd((double)sigma1_sq, eps));
      vx_i32 sv_sq = vif_to_i32(vif_dsub((double)sigma2_sq, vif_dmul(g, (double)sigma12)));
      if (sv_sq < 0) sv_sq = 0;
      g = g < enhn_gain_limit ? g : enhn_gain_limit;
      const vx_u32 numer1 = (vx_u32)sv_sq + (vx_u32)kSigmaNsq;
      const vx_i64 numer1_tmp = vif_to_i64(vif_dmul(vif_dmul(g, g), (double)sigma1_sq)) + numer1;
      s->num_log += vif_log2_q11_64(log2_table, (vx_u64)numer1_tmp) - vif_log2_q11_64(log2_table, numer1);
    }
  } else {
    s->num_non_log += sigma2_sq;
    s->den_non_log += 1;
  }
}

// Vertical pass of the decimation filter (that of scale kFilter) at one column, narrowed to 16 bits.
template <unsigned kFilter>
VX_HD vx_u32 vif_decimate_vertical_point(const vx_u16* col, int stride, vx_u32 mu_round, vx_u32 mu_shift) {
  const int fw = VifShape<kFilter>::kWidth;
  vx_u32 acc = 0;
  VIF_UNROLL
  for (int k = 0; k < fw; ++k) acc += vif_tap(kFilter, k) * col[k * stride];
  return (vx_u16)((acc + mu_round) >> mu_shift);
}

// Horizontal pass of the decimation filter at one output sample.
template <unsigned kFilter>
VX_HD vx_u16 vif_decimate_horizontal_point(const vx_u16* row) {
  const int fw = VifShape<kFilter>::kWidth;
  vx_u32 acc = 0;
  VIF_UNROLL
  for (int k = 0; k < fw; ++k) acc += vif_tap(kFilter, k) * row[k];
  return (vx_u16)((acc + 32768) >> 16);
}

// ---- tile work items (what one thread does in one step of a block) -----------------------------------------------

template <unsigned kScale>
VX_HD int vif_load_items() {
  return VifShape<kScale>::kInH * VifShape<kScale>::kInW;
}
template <unsigned kScale>
VX_HD int vif_vertical_items() {
  return VifShape<kScale>::kTileH * VifShape<kScale>::kInW;
}
template <unsigned kScale>
VX_HD int vif_dec_vertical_items() {
  return VifShape<kScale>::kDecimates ? VifShape<kScale>::kDecH * VifShape<kScale>::kDecW : 0;
}
template <unsigned kScale>
VX_HD int vif_output_items() {
  return VifShape<kScale>::kTileH * (VifShape<kScale>::kTileW / VIF_RUN);
}
template <unsigned kScale>
VX_HD int vif_dec_output_items() {
  return VifShape<kScale>::kDecimates ? (VifShape<kScale>::kTileH / 2) * (VifShape<kScale>::kTileW / 2) : 0;
}

// Stage 1: sample (item % kInW, item / kInW) of the tile whose first output pixel is (x0, y0).
template <unsigned kScale>
VX_HD void vif_tile_load(VifTile<kScale>& t, const VifScaleArgs& a, int x0, int y0, int item) {
  typedef VifShape<kScale> S;
  const int r = item / S::kInW;
  const int c = item - r * S::kInW;
  const vx_u32 y = (vx_u32)vif_mirror(y0 - S::kHalf + r, (int)a.h);
  const vx_u32 x = (vx_u32)vif_mirror(x0 - S::kHalf + c, (int)a.w);
  t.ref[r][c] = (vx_u16)vif_read_sample(a.ref, x, y);
  t.dist[r][c] = (vx_u16)vif_read_sample(a.dist, x, y);
}

// Stage 1 away from the picture's edges: samples kVector at a time. The tile's first loaded column, x0 - kHalf, is
// a multiple of kVector (x0 is a multiple of 64), and so is a row of the tile (kInW).
template <unsigned kScale>
struct VifVector {
  static constexpr int kHalf = VifShape<kScale>::kHalf;
  static constexpr int kSamples = kHalf % 4 == 0 ? 4 : kHalf % 2 == 0 ? 2 : 1;
};

// A plane the vector loads can read: kBytes per sample, consecutive samples, rows and the first sample aligned to
// a vector.
template <unsigned kScale, unsigned kBytes>
VX_HD bool vif_plane_vector_ok(const VxPlane& p) {
  const vx_u64 align = (vx_u64)VifVector<kScale>::kSamples * kBytes;
  return p.bytes == kBytes && p.step == 1 && ((((vx_u64)p.data) | p.pitch) % align) == 0;
}

// Whether the tile whose first output pixel is (x0, y0) loads with vectors (the same answer for every thread).
template <unsigned kScale, unsigned kBytes>
VX_HD bool vif_tile_vector_load(const VifScaleArgs& a, int x0, int y0) {
  typedef VifShape<kScale> S;
  return x0 >= S::kHalf && y0 >= S::kHalf && x0 + S::kTileW + S::kHalf <= (int)a.w &&
         y0 + S::kTileH + S::kHalf <= (int)a.h && vif_plane_vector_ok<kScale, kBytes>(a.ref) &&
         vif_plane_vector_ok<kScale, kBytes>(a.dist);
}

template <unsigned kScale>
VX_HD int vif_vector_load_items() {
  return VifShape<kScale>::kInH * (VifShape<kScale>::kInW / VifVector<kScale>::kSamples);
}

// One aligned load of a T (device); on the host, where the tests run these stages, a copy (no aliasing question).
template <class T>
VX_HD T vif_load_aligned(const vx_u8* p) {
#if defined(VX_DEVICE_COMPILE)
  return *(const T*)p;
#else
  T v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
#endif
}

// Stage 1, vector form: kSamples samples of tile row item / (kInW / kSamples) (the same values vif_tile_load
// writes: inside the picture no sample is mirrored).
template <unsigned kScale, unsigned kBytes>
VX_HD void vif_tile_load_vector(VifTile<kScale>& t, const VifScaleArgs& a, int x0, int y0, int item) {
  typedef VifShape<kScale> S;
  const int kV = VifVector<kScale>::kSamples;
  const int groups = S::kInW / kV;
  const int r = item / groups;
  const int c = (item - r * groups) * kV;
  const vx_u64 y = (vx_u64)(y0 - S::kHalf + r);
  const vx_u64 x = (vx_u64)(x0 - S::kHalf + c);
  const vx_u8* rp = (const vx_u8*)a.ref.data + y * a.ref.pitch + x * kBytes;
  const vx_u8* dp = (const vx_u8*)a.dist.data + y * a.dist.pitch + x * kBytes;
  if (kBytes == 1 && kV == 4) {
    // Little-endian: sample i in byte i.
    const vx_u32 rv = vif_load_aligned<vx_u32>(rp), dv = vif_load_aligned<vx_u32>(dp);
    VIF_UNROLL
    for (int i = 0; i < 4; ++i) {
      t.ref[r][c + i] = (vx_u16)((rv >> (8 * i)) & 255u);
      t.dist[r][c + i] = (vx_u16)((dv >> (8 * i)) & 255u);
    }
  } else if (kBytes == 2 && kV == 4) {
    const VifU16x4 rv = vif_load_aligned<VifU16x4>(rp), dv = vif_load_aligned<VifU16x4>(dp);
    VIF_UNROLL
    for (int i = 0; i < 4; ++i) {
      t.ref[r][c + i] = (vx_u16)(rv.v[i] >> a.ref.shift);
      t.dist[r][c + i] = (vx_u16)(dv.v[i] >> a.dist.shift);
    }
  } else if (kBytes == 2 && kV == 2) {
    const vx_u32 rv = vif_load_aligned<vx_u32>(rp), dv = vif_load_aligned<vx_u32>(dp);
    t.ref[r][c] = (vx_u16)((rv & 65535u) >> a.ref.shift);
    t.ref[r][c + 1] = (vx_u16)((rv >> 16) >> a.ref.shift);
    t.dist[r][c] = (vx_u16)((dv & 65535u) >> a.dist.shift);
    t.dist[r][c + 1] = (vx_u16)((dv >> 16) >> a.dist.shift);
  } else {
    for (int i = 0; i < kV; ++i) {
      t.ref[r][c + i] = (vx_u16)vif_read_sample(a.ref, (vx_u32)x + i, (vx_u32)y);
      t.dist[r][c + i] = (vx_u16)vif_read_sample(a.dist, (vx_u32)x + i, (vx_u32)y);
    }
  }
}

// Stage 2: the vertical pass at tile row item / kInW, tile column item % kInW (halo columns included).
template <unsigned kScale, bool kWide>
VX_HD void vif_tile_vertical(VifTile<kScale>& t, const VifScaleArgs& a, int item) {
  typedef VifShape<kScale> S;
  const int r = item / S::kInW;
  const int c = item - r * S::kInW;
  const VifVertical v = vif_vertical_point<kScale, kWide>(&t.ref[r][c], &t.dist[r][c], S::kInW, a.mu_round,
                                                          a.mu_shift, a.sq_round, a.sq_shift);
  t.mu1[r][c] = (vx_u16)v.mu1;
  t.mu2[r][c] = (vx_u16)v.mu2;
  t.rr[r][c] = v.rr;
  t.dd[r][c] = v.dd;
  t.rd[r][c] = v.rd;
}

// Stage 2, decimation: the vertical pass of scale kScale + 1's filter at even tile row 2 * (item / kDecW), at the
// columns from kDecHalf left of the tile to kDecHalf right of it.
template <unsigned kScale>
VX_HD void vif_tile_decimate_vertical(VifTile<kScale>& t, const VifScaleArgs& a, int item) {
  typedef VifShape<kScale> S;
  const int dr = item / S::kDecW;
  const int dc = item - dr * S::kDecW;
  const int r = 2 * dr + S::kHalf - S::kDecHalf;  // first tap's row in the loaded tile
  const int c = dc + S::kHalf - S::kDecHalf;
  const unsigned kFilter = kScale + 1 < VIF_SCALES ? kScale + 1 : VIF_SCALES - 1;
  t.dec_ref[dr][dc] = (vx_u16)vif_decimate_vertical_point<kFilter>(&t.ref[r][c], S::kInW, a.mu_round, a.mu_shift);
  t.dec_dist[dr][dc] = (vx_u16)vif_decimate_vertical_point<kFilter>(&t.dist[r][c], S::kInW, a.mu_round, a.mu_shift);
}

// Stage 3: the run of VIF_RUN output pixels from (x0 + VIF_RUN * (item % (kTileW / VIF_RUN)), y0 + item / (kTileW /
// VIF_RUN)): the horizontal pass, and the statistic of each pixel that lies inside the picture.
template <unsigned kScale, bool kF64 = false>
VX_HD void vif_tile_output(const VifTile<kScale>& t, const VifScaleArgs& a, int x0, int y0, int item, VifSums* s) {
  typedef VifShape<kScale> S;
  const int runs = S::kTileW / VIF_RUN;
  const int r = item / runs;
  const int c = (item - r * runs) * VIF_RUN;
  const int y = y0 + r;
  if (y >= (int)a.h || x0 + c >= (int)a.w) return;
  VifFiltered f[VIF_RUN];
  vif_horizontal_run<kScale, kF64>(&t.mu1[r][c], &t.mu2[r][c], &t.rr[r][c], &t.dd[r][c], &t.rd[r][c], f);
  VIF_UNROLL
  for (int o = 0; o < VIF_RUN; ++o) {
    const int x = x0 + c + o;
    if (x >= (int)a.w) break;
    vif_statistic(f[o], a.log2_table, a.enhn_gain_limit, s);
    if (a.filtered) {
      const vx_u64 plane = (vx_u64)a.w * a.h;
      const vx_u64 i = (vx_u64)y * a.w + (vx_u64)x;
      a.filtered[i] = f[o].mu1;
      a.filtered[plane + i] = f[o].mu2;
      a.filtered[2 * plane + i] = f[o].xx;
      a.filtered[3 * plane + i] = f[o].yy;
      a.filtered[4 * plane + i] = f[o].xy;
    }
  }
}

// Stage 3, decimation: the horizontal pass at even column 2 * (item % (kTileW / 2)) of even row
// 2 * (item / (kTileW / 2)), written to the next scale's image when inside it.
template <unsigned kScale>
VX_HD void vif_tile_decimate_output(const VifTile<kScale>& t, const VifScaleArgs& a, int x0, int y0, int item) {
  typedef VifShape<kScale> S;
  const int half_w = S::kTileW / 2;
  const int dr = item / half_w;
  const int dcx = item - dr * half_w;
  const vx_u32 ox = (vx_u32)(x0 / 2 + dcx), oy = (vx_u32)(y0 / 2 + dr);
  if (ox >= a.w / 2 || oy >= a.h / 2) return;
  const unsigned kFilter = kScale + 1 < VIF_SCALES ? kScale + 1 : VIF_SCALES - 1;
  const vx_u64 o = (vx_u64)oy * a.next_pitch + ox;
  a.next_ref[o] = vif_decimate_horizontal_point<kFilter>(&t.dec_ref[dr][2 * dcx]);
  a.next_dist[o] = vif_decimate_horizontal_point<kFilter>(&t.dec_dist[dr][2 * dcx]);
}
