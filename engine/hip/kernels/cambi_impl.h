// SPDX-License-Identifier: LGPL-2.1-or-later
// CAMBI's kernel arithmetic, shared by kernels/cambi.hip and by host tests (only common.h is included, so g++
// compiles it too). The stages and the integer and float operations are those of the CPU reference
// (engine/cpu/cambi.cpp, libvmaf's C path); every function here computes one work item exactly as a thread does, so a
// host test can run a whole frame item by item and compare each stage with the CPU's.
//
// Per picture, one launch each:
//   cambi_preprocess_kernel  one thread per output sample: the luma at the processing size in 10 bits, the 2x2
//                            anti-dithering mean folded in (each output reads the up to four converted samples it
//                            averages, so the in-place filter of libvmaf becomes a pure function); libvmaf's sample
//                            check when the picture is not resized (cambi_check_kernel otherwise)
//   cambi_mask_kernel        a tile of the flat indicator in shared memory, then the 7x7 count of each output
// Per scale, one launch each:
//   cambi_filter_kernel      one thread per output: decimation (the mask read at (x << t, y << t) of the full-size
//                            mask, t = scale + speed-up) and the 3x3 mode filter; writes the filtered image (read by
//                            the next scale) and the key plane: value - band_base where the mask is 1 and the value
//                            is in the band, else CAMBI_KEY_NONE
//   cambi_c_values_kernel    one thread per column of a chunk of rows: the thread's own histogram of the window's
//                            keys (band_size counters in shared memory, strided by the block's width), built for the
//                            chunk's first row and slid down row by row; each row's c-value from the counts
//                            (cambi_c_values_column). The most work done per instruction, for scales with columns
//                            enough to fill the GPU.
//   cambi_c_values_block_kernel  the same c-values with one block of CAMBI_CVAL_THREADS threads per column and chunk:
//                            the column's window histogram (band_size 32-bit counts in shared memory), every thread
//                            adding and removing a share of the keys entering and leaving the window (shared atomics:
//                            counts, so the order does not matter); each row's c-value: thread d < num_diffs computes
//                            difference d's candidate (cambi_c_value_diff), thread 0 takes their maximum in d order,
//                            which is cambi_c_value's loop. A shorter chain per thread, for the small scales, where
//                            one thread per column leaves the GPU idle.
//   cambi_pool{1,2,3}_kernel the top-k sum by three levels of radix selection on the c-values' float bits (16, 8 and 8
//                            bits): per-block counts (and sums) in shared memory added into the scale's state; the
//                            last block of each pass selects the bin holding the k-th largest value. The sum is an
//                            exact integer in units of 2^-24 (every non-zero c-value is a float >= 0.5 below 2^14).
// The host turns the exact sum into libvmaf's mean where libvmaf's double summation is exact too (the sum is below
// 2^53 units of the smallest value's last bit), and otherwise runs the CPU reference's quickselect and summation on
// the read-back c-values (engine/hip/cambi_gpu.cpp).
#pragma once

#include "common.h"

#define CAMBI_SCALES 5
#define CAMBI_MAX_DIFFS 32
#define CAMBI_KEY_NONE 0xFFFFu
#define CAMBI_PRE_BLOCK 16           // cambi_preprocess_kernel and cambi_filter_kernel: 16 x 16 threads
#define CAMBI_MASK_TILE_W 32         // cambi_mask_kernel: a block of 32 x 8 threads, one output each
#define CAMBI_MASK_TILE_H 8
#define CAMBI_MASK_PAD 3             // half of the 7x7 window
#define CAMBI_CVAL_THREADS 32        // cambi_c_values_block_kernel: one column per block
#define CAMBI_POOL_THREADS 256
#define CAMBI_POOL_ITEMS 8           // values per thread per grid step
#define CAMBI_COARSE_BASE 0x3F00u    // float bits >> 16 of 0.5, the smallest non-zero c-value
#define CAMBI_COARSE_BINS 2048u      // bits >> 16 up to 0x3F00 + 2047 (16384 > any c-value: 0x4680)
#define CAMBI_FINE_BINS 256u

// ---- parameters ----------------------------------------------------------------------------------------------------

// A plane as the kernels read it: rows `pitch` bytes apart, a sample every `step` samples, 8-bit bytes or 16-bit
// little-endian words shifted right by `shift` (read byte by byte: any pitch and alignment).
struct CambiPreArgs {
  VxPlane in;  // the picture's plane (common.h)
  const vx_u32* src_x;  // resize: the input column of each output column (null: no resize)
  const vx_u32* src_y;  // the input row of each output row
  vx_u16* out;          // w x h, out_pitch elements per row
  vx_u32* error;        // check: the largest sample above max_sample is atomically maxed in (0: none)
  vx_u64 out_pitch;
  vx_u32 in_w, in_h;    // the picture
  vx_u32 w, h;          // the processing size
  vx_u32 bpc;
  vx_u32 dither;        // 1: the encode depth is below 10
  vx_u32 max_sample;    // check: 2^bpc - 1 for 9..15 bits, else 0 (no check)
  vx_u32 reserved;
};

struct CambiMaskArgs {
  const vx_u16* img;  // the preprocessed image, pitch elements per row
  vx_u8* mask;        // w x h, pitch elements per row
  vx_u64 pitch;
  vx_u32 w, h;
  vx_u32 mask_index;
  vx_u32 reserved;
};

struct CambiFilterArgs {
  const vx_u16* src;  // the image the scale decimates (the preprocessed one, or the previous scale's filtered one)
  const vx_u8* mask;  // the full-size mask
  vx_u16* out;        // the scale's filtered image
  vx_u16* key;        // the scale's key plane
  vx_u64 pitch;       // elements per row of src, mask, out and key (every buffer is as wide as the picture)
  vx_u32 w, h;        // the scale's size
  vx_u32 factor;      // 1 (scale 0 without the speed-up) or 2
  vx_u32 mask_shift;  // the mask sample of (x, y) is mask[(y << s) * pitch + (x << s)]
  vx_u32 band_base;
  vx_u32 band_size;
};

struct CambiCvalArgs {
  const vx_u16* key;    // the scale's key plane, pitch elements per row
  const float* recip;   // libvmaf's reciprocal table (vmafx::cpu::cambi_reciprocals())
  float* out;           // w x h c-values, w per row (libvmaf's layout)
  vx_u64 pitch;
  vx_u32 w, h;
  vx_u32 pad;           // half the window
  vx_u32 rows;          // rows per chunk (gridDim.y chunks)
  vx_u32 band_base, band_size;
  vx_u32 num_diffs;
  vx_u32 vlt_luma;
  vx_u16 tvi[CAMBI_MAX_DIFFS];
};

// The selection state of one scale of one picture: cleared (all zero) before the first pass.
struct CambiPoolState {
  vx_u32 count1[CAMBI_COARSE_BINS];
  vx_u64 sum1[CAMBI_COARSE_BINS];
  vx_u32 count2[CAMBI_FINE_BINS];
  vx_u64 sum2[CAMBI_FINE_BINS];
  vx_u32 count3[CAMBI_FINE_BINS];
  vx_u32 blocks_done[3];
  vx_u32 done;        // the selection is complete (the top-k holds every non-zero value, or pass 3 ran)
  vx_u32 prefix;      // bits of the bin selected so far: bits >> 16 after pass 1, bits >> 8 after pass 2
  vx_u32 need;        // values still to take from the selected bin
  vx_u32 bad;         // a c-value outside [0.5, 16384) or negative was seen (never, by construction)
  vx_u32 reserved;
  vx_u64 above;       // units of the values above the selected bin
};

// What the host reads back per scale.
struct CambiPoolResult {
  vx_u64 total;   // the top-k sum in units of 2^-24
  vx_i32 min_exp; // exponent of the smallest non-zero value in the top-k (floor(log2)), -127 when there is none
  vx_u32 flags;   // CAMBI_POOL_*
};
#define CAMBI_POOL_DONE 1u
#define CAMBI_POOL_BAD 2u

struct CambiPoolArgs {
  const float* values;  // n c-values
  CambiPoolState* state;
  CambiPoolResult* result;
  vx_u32 n;
  vx_u32 k;             // values pooled (vmafx::cpu::cambi_topk_count)
};

// ---- helpers -------------------------------------------------------------------------------------------------------

VX_HD vx_u32 cambi_read_sample(const VxPlane& p, vx_u32 x, vx_u32 y) {
  const vx_u8* row = (const vx_u8*)p.data + (vx_u64)y * p.pitch;
  if (p.bytes == 1) return row[(vx_u64)x * p.step];
  const vx_u8* b = row + (vx_u64)x * p.step * 2u;
  return ((vx_u32)b[0] | ((vx_u32)b[1] << 8)) >> p.shift;
}

// libvmaf's conversion of a bpc-bit sample to 10 bits.
VX_HD vx_u32 cambi_to_10bit(vx_u32 v, vx_u32 bpc) {
  if (bpc <= 8) return (v << (10 - bpc)) & 0xFFFFu;
  if (bpc == 9) return (v << 1) & 0xFFFFu;
  const vx_u32 shift = bpc - 10;
  const vx_u32 round = shift == 0 ? 0u : 1u << (shift - 1);
  return ((v + round) >> shift) & 0xFFFFu;
}

VX_HD vx_u32 cambi_min_u32(vx_u32 a, vx_u32 b) { return a < b ? a : b; }
VX_HD vx_i32 cambi_max_i32(vx_i32 a, vx_i32 b) { return a > b ? a : b; }
VX_HD vx_i32 cambi_min_i32(vx_i32 a, vx_i32 b) { return a < b ? a : b; }

// ---- stage 1: preprocessing ------------------------------------------------------------------------------------

// The converted (not yet dithered) sample of output (x, y).
VX_HD vx_u32 cambi_pre_converted(const CambiPreArgs& a, vx_u32 x, vx_u32 y) {
  const vx_u32 sx = a.src_x ? a.src_x[x] : x;
  const vx_u32 sy = a.src_y ? a.src_y[y] : y;
  return cambi_to_10bit(cambi_read_sample(a.in, sx, sy), a.bpc);
}

// Output (x, y): libvmaf's anti-dithering reads only samples it has not yet written (right, below, below right), so
// its in-place filter is this function of the converted samples.
VX_HD vx_u16 cambi_pre_value(const CambiPreArgs& a, vx_u32 x, vx_u32 y) {
  const vx_u32 v = cambi_pre_converted(a, x, y);
  if (!a.dither) return (vx_u16)v;
  const bool right = x + 1 < a.w, below = y + 1 < a.h;
  if (right && below)
    return (vx_u16)((v + cambi_pre_converted(a, x + 1, y) + cambi_pre_converted(a, x, y + 1) +
                     cambi_pre_converted(a, x + 1, y + 1)) >> 2);
  if (below) return (vx_u16)((v + cambi_pre_converted(a, x, y + 1)) >> 1);  // last column
  if (right) return (vx_u16)((v + cambi_pre_converted(a, x + 1, y)) >> 1);  // last row
  return (vx_u16)v;                                                          // the last sample
}

// libvmaf's sample check of input (x, y): the sample, when it is above max_sample (0 otherwise).
VX_HD vx_u32 cambi_check_value(const CambiPreArgs& a, vx_u32 x, vx_u32 y) {
  const vx_u32 v = cambi_read_sample(a.in, x, y);
  return v > a.max_sample ? v : 0u;
}

// ---- stage 2: the spatial mask -----------------------------------------------------------------------------------

// The flat indicator of (x, y), 0 outside the picture: equal to the right and lower neighbours (edges count as
// equal).
VX_HD vx_u32 cambi_flat(const vx_u16* img, vx_u64 pitch, vx_u32 w, vx_u32 h, vx_i32 x, vx_i32 y) {
  if (x < 0 || y < 0 || x >= (vx_i32)w || y >= (vx_i32)h) return 0;
  const vx_u16* p = img + (vx_u64)y * pitch + (vx_u32)x;
  const bool horizontal = (vx_u32)x + 1 == w || p[0] == p[1];
  const bool vertical = (vx_u32)y + 1 == h || p[0] == p[pitch];
  return (horizontal && vertical) ? 1u : 0u;
}

// The tile of flat indicators a mask block reads: rows y0 - 3 .. y0 + TILE_H + 2, columns x0 - 3 .. x0 + TILE_W + 2.
#define CAMBI_MASK_IN_W (CAMBI_MASK_TILE_W + 2 * CAMBI_MASK_PAD)
#define CAMBI_MASK_IN_H (CAMBI_MASK_TILE_H + 2 * CAMBI_MASK_PAD)
struct CambiMaskTile {
  vx_u8 flat[CAMBI_MASK_IN_H][CAMBI_MASK_IN_W];
};

VX_HD int cambi_mask_load_items() { return CAMBI_MASK_IN_W * CAMBI_MASK_IN_H; }
VX_HD void cambi_mask_load(CambiMaskTile& t, const CambiMaskArgs& a, vx_i32 x0, vx_i32 y0, int item) {
  const int r = item / CAMBI_MASK_IN_W, c = item % CAMBI_MASK_IN_W;
  t.flat[r][c] = (vx_u8)cambi_flat(a.img, a.pitch, a.w, a.h, x0 - CAMBI_MASK_PAD + c, y0 - CAMBI_MASK_PAD + r);
}
// The mask of tile position (tx, ty): more than mask_index flat pixels in the 7x7 window.
VX_HD vx_u8 cambi_mask_value(const CambiMaskTile& t, const CambiMaskArgs& a, int tx, int ty) {
  vx_u32 s = 0;
  for (int r = 0; r < 2 * CAMBI_MASK_PAD + 1; ++r)
    for (int c = 0; c < 2 * CAMBI_MASK_PAD + 1; ++c) s += t.flat[ty + r][tx + c];
  return s > a.mask_index ? 1 : 0;
}

// ---- stage 3a/b: decimation, mode filter, keys ------------------------------------------------------------------

VX_HD vx_u16 cambi_mode3(vx_u16 a, vx_u16 b, vx_u16 c) {
  if (a == b || a == c) return a;
  if (b == c) return b;
  return (a <= b && a <= c) ? a : (b <= c ? b : c);
}

// The decimated sample (x, y) of the scale.
VX_HD vx_u16 cambi_decimated(const CambiFilterArgs& a, vx_u32 x, vx_u32 y) {
  return a.src[(vx_u64)(y * a.factor) * a.pitch + x * a.factor];
}

// The horizontal mode of row y at column x (the first and last columns pass through).
VX_HD vx_u16 cambi_hmode(const CambiFilterArgs& a, vx_u32 x, vx_u32 y) {
  if (x == 0 || x + 1 >= a.w) return cambi_decimated(a, x, y);
  return cambi_mode3(cambi_decimated(a, x - 1, y), cambi_decimated(a, x, y), cambi_decimated(a, x + 1, y));
}

// libvmaf's filter_mode at (x, y): the first and last rows keep the decimated samples, the others take the vertical
// mode of the horizontal modes.
VX_HD vx_u16 cambi_filter_value(const CambiFilterArgs& a, vx_u32 x, vx_u32 y) {
  if (y == 0 || y + 1 >= a.h) return cambi_decimated(a, x, y);
  return cambi_mode3(cambi_hmode(a, x, y - 1), cambi_hmode(a, x, y), cambi_hmode(a, x, y + 1));
}

VX_HD vx_u16 cambi_key_of(const CambiFilterArgs& a, vx_u16 value, vx_u32 x, vx_u32 y) {
  const vx_u8 m = a.mask[(vx_u64)(y << a.mask_shift) * a.pitch + (x << a.mask_shift)];
  if (!m) return (vx_u16)CAMBI_KEY_NONE;
  const vx_u32 k = (vx_u32)(vx_u16)(value - (vx_u16)a.band_base);
  return k < a.band_size ? (vx_u16)k : (vx_u16)CAMBI_KEY_NONE;
}

// ---- stage 3c: c-values ----------------------------------------------------------------------------------------

VX_HD int cambi_contrast_weight(int d) {
  const vx_u8 t[CAMBI_MAX_DIFFS] = {1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8,
                                    8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
  return t[d];
}

// Difference d's candidate of libvmaf's c_value_pixel for the pixel of key k (in the band), from its histogram
// column (entry v at hist[v * s], 16- or 32-bit counts); 0 where the difference does not apply.
template <class Count>
VX_HD float cambi_c_value_diff(const CambiCvalArgs& a, vx_u32 k, const Count* hist, vx_u32 s, int d) {
  const int value = (int)(k + a.band_base) + (int)a.num_diffs;
  if (!(value <= (int)a.tvi[d] && value + d + 1 > (int)a.vlt_luma)) return 0.0f;
  const vx_u32 p0 = hist[k * s];
  const int i1 = (int)k + d + 1, i2 = (int)k - d - 1;
  // i1 is inside the band whenever the condition holds (value + d + 1 <= tvi of the last difference); the bound
  // only keeps reads inside the histogram.
  const vx_u32 p1 = i1 < (int)a.band_size ? (vx_u32)hist[(vx_u32)i1 * s] : 0u;
  const vx_u32 p2 = i2 >= 0 ? (vx_u32)hist[(vx_u32)i2 * s] : 0u;
  if (p1 > p2) return (float)(cambi_contrast_weight(d) * (int)p0 * (int)p1) * a.recip[p1 + p0];
  return (float)(cambi_contrast_weight(d) * (int)p0 * (int)p2) * a.recip[p2 + p0];
}

// libvmaf's c_value_pixel: the largest candidate, taken in d order (candidates are >= 0, and a 0 never replaces c).
VX_HD float cambi_c_value_max(float c, float val) { return val > c ? val : c; }

template <class Count>
VX_HD float cambi_c_value(const CambiCvalArgs& a, vx_u32 k, const Count* hist, vx_u32 s) {
  float c = 0.0f;
  for (int d = 0; d < (int)a.num_diffs; ++d) c = cambi_c_value_max(c, cambi_c_value_diff(a, k, hist, s, d));
  return c;
}

VX_HD vx_u32 cambi_key_at(const CambiCvalArgs& a, vx_i32 x, vx_i32 y) {
  return a.key[(vx_u64)y * a.pitch + (vx_u32)x];
}

// One thread's work: the c-values of column x for rows y0 .. y1 - 1, with its histogram column at hist[v * s]
// (band_size entries, zeroed here unless `cleared` says the caller did). The window of (x, y) is rows y - pad .. y + pad and columns x - pad .. x + pad inside the
// picture, as libvmaf's sliding histogram counts them.
VX_HD void cambi_c_values_column(const CambiCvalArgs& a, vx_u16* hist, vx_u32 s, vx_u32 x, vx_u32 y0, vx_u32 y1,
                                  bool cleared = false) {
  if (!cleared)
    for (vx_u32 v = 0; v < a.band_size; ++v) hist[v * s] = 0;
  const vx_i32 P = (vx_i32)a.pad, W = (vx_i32)a.w, H = (vx_i32)a.h;
  const vx_i32 c0 = cambi_max_i32((vx_i32)x - P, 0), c1 = cambi_min_i32((vx_i32)x + P + 1, W);
  const vx_i32 r0 = cambi_max_i32((vx_i32)y0 - P, 0), r1 = cambi_min_i32((vx_i32)y0 + P + 1, H);
  for (vx_i32 r = r0; r < r1; ++r)
    for (vx_i32 c = c0; c < c1; ++c) {
      const vx_u32 k = cambi_key_at(a, c, r);
      if (k != CAMBI_KEY_NONE) hist[k * s] = (vx_u16)(hist[k * s] + 1);
    }
  for (vx_u32 y = y0; y < y1; ++y) {
    if (y > y0) {
      const vx_i32 leave = (vx_i32)y - P - 1, enter = (vx_i32)y + P;
      const bool leaves = leave >= 0, enters = enter < H;
      for (vx_i32 c = c0; c < c1; ++c) {
        const vx_u32 ks = leaves ? cambi_key_at(a, c, leave) : CAMBI_KEY_NONE;
        const vx_u32 ka = enters ? cambi_key_at(a, c, enter) : CAMBI_KEY_NONE;
        if (ks == ka) continue;
        if (ks != CAMBI_KEY_NONE) hist[ks * s] = (vx_u16)(hist[ks * s] - 1);
        if (ka != CAMBI_KEY_NONE) hist[ka * s] = (vx_u16)(hist[ka * s] + 1);
      }
    }
    const vx_u32 k = cambi_key_at(a, (vx_i32)x, (vx_i32)y);
    a.out[(vx_u64)y * a.w + x] = k == CAMBI_KEY_NONE ? 0.0f : cambi_c_value(a, k, hist, s);
  }
}

// ---- stage 3d: pooling -----------------------------------------------------------------------------------------

// A c-value's float bits as an integer (c-values are never negative; the sign bit is kept so that a negative value
// shows up as out of range).
VX_HD vx_u32 cambi_float_bits(float f) {
  union {
    float f;
    vx_u32 u;
  } x;
  x.f = f;
  return x.u;
}

// The value of float bits b (0 or a normal float >= 0.5) in units of 2^-24: mantissa << (exponent + 1).
VX_HD vx_u64 cambi_units(vx_u32 b) {
  if (b == 0) return 0;
  const vx_i32 e = (vx_i32)((b >> 23) & 0xFF) - 127;
  const vx_u64 m = (vx_u64)((b & 0x7FFFFFu) | 0x800000u);
  return m << (e + 1);
}

// The coarse bin of non-zero bits, or CAMBI_COARSE_BINS when they are out of range.
VX_HD vx_u32 cambi_coarse_bin(vx_u32 b) {
  const vx_u32 hi = b >> 16;
  return (hi >= CAMBI_COARSE_BASE && hi < CAMBI_COARSE_BASE + CAMBI_COARSE_BINS) ? hi - CAMBI_COARSE_BASE
                                                                                  : CAMBI_COARSE_BINS;
}

// Which bins a pass counts: pass 1 every non-zero value (by bits >> 16), pass 2 the values of the selected coarse bin
// (by bits >> 8 & 255), pass 3 those of the selected fine bin (by bits & 255). Returns the bin or -1.
VX_HD vx_i32 cambi_pool_bin(unsigned pass, vx_u32 b, vx_u32 prefix) {
  if (b == 0) return -1;
  if (pass == 1) return (vx_i32)cambi_coarse_bin(b);
  if (pass == 2) return (b >> 16) == prefix ? (vx_i32)((b >> 8) & 0xFF) : -1;
  return (b >> 8) == prefix ? (vx_i32)(b & 0xFF) : -1;
}

// The exponent (floor(log2)) of float bits b > 0.
VX_HD vx_i32 cambi_exponent(vx_u32 b) { return (vx_i32)((b >> 23) & 0xFF) - 127; }

// The selection of a pass runs in the last block of the pass: CAMBI_POOL_THREADS threads, thread t owning a chunk of
// cambi_pool_per(pass) consecutive bins (pass 1: 8 of the 2048 coarse bins; passes 2 and 3: one of 256).
VX_HD vx_u32 cambi_pool_bins(unsigned pass) { return pass == 1 ? CAMBI_COARSE_BINS : CAMBI_FINE_BINS; }
VX_HD vx_u32 cambi_pool_per(unsigned pass) { return cambi_pool_bins(pass) / CAMBI_POOL_THREADS; }
VX_HD const vx_u32* cambi_pool_counts(unsigned pass, const CambiPoolState* st) {
  return pass == 1 ? st->count1 : pass == 2 ? st->count2 : st->count3;
}
VX_HD const vx_u64* cambi_pool_units(unsigned pass, const CambiPoolState* st) {
  return pass == 1 ? st->sum1 : pass == 2 ? st->sum2 : (const vx_u64*)0;
}

// The bins of a pass as the selection reads them: counts, units per bin (passes 1 and 2; pass 3's bins are single
// values, whose units follow from the prefix), and the prefix selected so far.
struct CambiBins {
  const vx_u32* count;
  const vx_u64* units;
  vx_u32 prefix;
};

// Units of the values counted in bin j of the pass.
VX_HD vx_u64 cambi_bin_units(unsigned pass, const CambiBins& b, vx_u32 j) {
  if (pass == 3) return (vx_u64)b.count[j] * cambi_units((b.prefix << 8) | j);
  return b.units[j];
}

// Thread t's chunk: its count and units, and its lowest non-empty bin (cambi_pool_bins(pass): none).
VX_HD void cambi_chunk_total(unsigned pass, const CambiBins& b, vx_u32 t, vx_u32* count, vx_u64* units,
                             vx_u32* lowest) {
  const vx_u32 per = cambi_pool_per(pass);
  vx_u32 n = 0;
  vx_u64 u = 0;
  vx_u32 low = cambi_pool_bins(pass);
  for (vx_u32 i = 0; i < per; ++i) {
    const vx_u32 j = t * per + i;
    n += b.count[j];
    u += cambi_bin_units(pass, b, j);
    if (b.count[j] && low == cambi_pool_bins(pass)) low = j;
  }
  *count = n;
  *units = u;
  *lowest = low;
}

// Whether thread t's chunk holds the need-th largest value, given the count and units of every chunk above it
// (above_count < need <= above_count + its own count). If so: the bin, and the count and units above that bin.
VX_HD bool cambi_chunk_select(unsigned pass, const CambiBins& b, vx_u32 t, vx_u32 need, vx_u32 above_count,
                              vx_u64 above_units, vx_u32 own_count, vx_u32* bin, vx_u32* bin_above_count,
                              vx_u64* bin_above_units) {
  if (!(above_count < need && need - above_count <= own_count)) return false;
  const vx_u32 per = cambi_pool_per(pass);
  vx_u32 n = above_count;
  vx_u64 u = above_units;
  for (vx_u32 i = per; i-- > 0;) {
    const vx_u32 j = t * per + i;
    if (n + b.count[j] >= need) {
      *bin = j;
      *bin_above_count = n;
      *bin_above_units = u;
      return true;
    }
    n += b.count[j];
    u += cambi_bin_units(pass, b, j);
  }
  return false;  // not reached: the chunk holds the value
}

// The state update of a pass once the selection is known. bad: an out-of-range c-value was counted. found: a chunk
// held the need-th value (bin, and the count and units above it); else (pass 1 only: fewer non-zero values than k)
// all_units is the sum of every value and lowest the lowest non-empty coarse bin (CAMBI_COARSE_BINS: none).
VX_HD void cambi_pool_apply(unsigned pass, const CambiPoolArgs& a, CambiPoolState* st, bool bad, bool found,
                            vx_u32 bin, vx_u32 above_count, vx_u64 above_units, vx_u64 all_units, vx_u32 lowest) {
  CambiPoolResult* r = a.result;
  if (bad || (!found && pass != 1)) {
    r->flags = CAMBI_POOL_DONE | CAMBI_POOL_BAD;
    st->done = 1;
    return;
  }
  if (pass == 1) {
    if (!found) {
      r->total = all_units;
      r->min_exp = lowest >= CAMBI_COARSE_BINS ? -127 : cambi_exponent((lowest + CAMBI_COARSE_BASE) << 16);
      r->flags = CAMBI_POOL_DONE;
      st->done = 1;
      return;
    }
    st->prefix = bin + CAMBI_COARSE_BASE;
    st->need = a.k - above_count;
    st->above = above_units;
    return;
  }
  if (pass == 2) {
    st->prefix = (st->prefix << 8) | bin;
    st->need -= above_count;
    st->above += above_units;
    return;
  }
  const vx_u32 t = (st->prefix << 8) | bin;  // the k-th largest value
  r->total = st->above + above_units + (vx_u64)(st->need - above_count) * cambi_units(t);
  r->min_exp = cambi_exponent(t);
  r->flags = CAMBI_POOL_DONE;
  st->done = 1;
}

// The need of a pass (pass 1: k).
VX_HD vx_u32 cambi_pool_need(unsigned pass, const CambiPoolArgs& a, const CambiPoolState* st) {
  return pass == 1 ? a.k : st->need;
}

// What the last block of pass `pass` computes, sequentially: the same chunk functions, the suffix sums of the
// chunks in a plain loop (the kernel scans them in parallel: integer sums, the same values).
VX_HD void cambi_pool_select(unsigned pass, const CambiPoolArgs& a, CambiPoolState* st) {
  CambiBins b;
  b.count = cambi_pool_counts(pass, st);
  b.units = cambi_pool_units(pass, st);
  b.prefix = st->prefix;
  const vx_u32 need = cambi_pool_need(pass, a, st);
  vx_u32 above_count = 0;
  vx_u64 above_units = 0;
  bool found = false;
  vx_u32 bin = 0, bin_count = 0, lowest = CAMBI_COARSE_BINS;
  vx_u64 bin_units = 0;
  for (vx_u32 t = CAMBI_POOL_THREADS; t-- > 0;) {
    vx_u32 c, low;
    vx_u64 u;
    cambi_chunk_total(pass, b, t, &c, &u, &low);
    if (!found) found = cambi_chunk_select(pass, b, t, need, above_count, above_units, c, &bin, &bin_count, &bin_units);
    if (low < lowest) lowest = low;
    above_count += c;
    above_units += u;
  }
  cambi_pool_apply(pass, a, st, st->bad != 0, found, bin, bin_count, bin_units, above_units, lowest);
}

// One value of a pass's counting loop, into the block's (or a test's) bins; returns false for a value out of range
// (negative, NaN, or outside [0.5, 16384)), which is never counted.
VX_HD bool cambi_pool_count_value(unsigned pass, float v, vx_u32 prefix, vx_u32* count, vx_u64* units) {
  const vx_u32 b = cambi_float_bits(v);
  const vx_i32 bin = cambi_pool_bin(pass, b, prefix);
  if (bin < 0) return true;
  if ((vx_u32)bin >= cambi_pool_bins(pass)) return false;
  count[bin] += 1;
  if (units) units[bin] += cambi_units(b);
  return true;
}

// Whether libvmaf's double summation of the top-k (in any order) is exact: every partial sum is a multiple of the
// smallest value's last bit, 2^(min_exp - 23), and below the total.
VX_HD bool cambi_pool_exact(const CambiPoolResult& r) {
  if (r.total == 0) return true;
  const vx_i32 shift = 54 + r.min_exp;  // total < 2^53 * 2^(min_exp + 1) units
  return shift >= 64 || r.total < ((vx_u64)1 << shift);
}

// The kernels' parameters (kernels/cambi.hip declares each kernel with its type; the host launches them as
// TypedKernel<...>).
typedef void cambi_preprocess_kernel_fn(CambiPreArgs a);
typedef void cambi_check_kernel_fn(CambiPreArgs a);
typedef void cambi_mask_kernel_fn(CambiMaskArgs a);
typedef void cambi_filter_kernel_fn(CambiFilterArgs a);
typedef void cambi_c_values_kernel_fn(CambiCvalArgs a);
typedef void cambi_c_values_block_kernel_fn(CambiCvalArgs a);
typedef void cambi_pool1_kernel_fn(CambiPoolArgs a);
typedef void cambi_pool2_kernel_fn(CambiPoolArgs a);
typedef void cambi_pool3_kernel_fn(CambiPoolArgs a);
