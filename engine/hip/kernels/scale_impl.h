// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU scaler's arithmetic, shared by kernels/scale.hip and by host tests (it includes only common.h). It is the
// CPU scaler's (engine/cpu/scale.h: FFmpeg 5.1's swscale on x86-64) written once more for one work item at a time,
// with the filters the CPU scaler built (uploaded as they are): the GPU writes the same samples.
//
// A plane is scaled by two launches:
//   scale_h_kernel: one work item per intermediate value (x of the output width, y of the source height): the
//                   horizontal tap sum of source row y, shifted to 15 bits (8..14-bit input) or 19 bits (16-bit);
//   scale_v_kernel: one work item per output sample: the vertical taps over the intermediate rows with the filter
//                   FFmpeg uses for that row (one tap; 8-bit: the x86 filter before the last two luma rows, the C
//                   filter on them; deeper samples: the C filter), clamped to the sample range.
#pragma once

#include "common.h"

#define SCALE_BLOCK_X 64  // block of both kernels: 64 x 4 work items
#define SCALE_BLOCK_Y 4

// Vertical filter of a row (cpu::ScaleVMode).
#define SCALE_V_ONE_TAP 0u
#define SCALE_V_X86 1u
#define SCALE_V_C 2u

struct ScaleHArgs {
  VxPlane src;         // the source plane (width x height: the scaler's source size; chroma may be interleaved)
  vx_u32 bpc;
  vx_u32 dst_w;        // intermediate values per row
  vx_u32 taps;
  const vx_i32* pos;   // dst_w first source samples
  const vx_i16* coef;  // dst_w * taps weights (14-bit)
  vx_i32* tmp;         // src_h rows of dst_w values, tmp_pitch values apart
  vx_u64 tmp_pitch;
};

struct ScaleVArgs {
  const vx_i32* tmp;   // the intermediate rows of ScaleHArgs
  vx_u64 tmp_pitch;
  vx_u32 src_h;        // intermediate rows
  vx_u32 dst_w, dst_h;
  vx_u32 taps;
  const vx_i32* pos;   // dst_h first intermediate rows
  const vx_i16* coef;  // dst_h * taps weights (12-bit)
  vx_u32 bpc;
  vx_u32 vsub;         // 1: 4:2:0 chroma, whose row r is written with luma row 2r; else 0
  vx_u32 luma_rows;    // output rows of the luma plane
  vx_u32 reserved;
  vx_u8* dst;          // output plane: bytes (8-bit) or 16-bit words (dst, dst_pitch even), rows dst_pitch bytes apart
  vx_u64 dst_pitch;
};

// The kernels' parameters (kernels/scale.hip; the host launches them as TypedKernel<...>).
typedef void scale_h_kernel_fn(ScaleHArgs a);
typedef void scale_v_kernel_fn(ScaleVArgs a);

VX_HD vx_u32 scale_read(const vx_u8* row, vx_u32 x, vx_u32 step, vx_u32 bytes, vx_u32 shift) {
  if (bytes == 1) return row[(vx_u64)x * step];
  const vx_u8* p = row + (vx_u64)x * step * 2u;
  return ((vx_u32)p[0] | ((vx_u32)p[1] << 8)) >> shift;
}

VX_HD vx_i32 scale_h_finish(vx_i32 sum, vx_u32 bpc) {
  if (bpc == 8) {
    const vx_i32 v = sum >> 7;
    return v < 32767 ? v : 32767;
  }
  if (bpc <= 14) {
    const vx_i32 v = sum >> (bpc - 1);
    return v < 32767 ? v : 32767;
  }
  const vx_i32 v = sum >> 11;
  return v < (1 << 19) - 1 ? v : (1 << 19) - 1;
}

// Intermediate value x of source row y.
VX_HD vx_i32 scale_h_value(const ScaleHArgs& a, vx_u32 x, vx_u32 y) {
  const vx_u8* row = (const vx_u8*)a.src.data + (vx_u64)y * a.src.pitch;
  const vx_i32 pos = a.pos[x];
  const vx_i16* c = a.coef + (vx_u64)x * a.taps;
  vx_u32 sum = 0;  // wraps as swscale's 32-bit int does (16-bit input)
  for (vx_u32 t = 0; t < a.taps; ++t) {
    const vx_u32 sx = (vx_u32)(pos + (vx_i32)t);
    if (sx >= a.src.width) break;  // past the end: weight 0
    sum += scale_read(row, sx, a.src.step, a.src.bytes, a.src.shift) * (vx_u32)(vx_i32)c[t];
  }
  return scale_h_finish((vx_i32)sum, a.bpc);
}

VX_HD void scale_h_item(const ScaleHArgs& a, vx_u32 x, vx_u32 y) {
  a.tmp[(vx_u64)y * a.tmp_pitch + x] = scale_h_value(a, x, y);
}

VX_HD vx_u32 scale_v_mode(vx_u32 bpc, vx_u32 taps, vx_u32 row, vx_u32 vsub, vx_u32 luma_rows) {
  if (taps == 1) return SCALE_V_ONE_TAP;
  if (bpc != 8) return SCALE_V_C;
  return ((vx_i64)row << vsub) >= (vx_i64)luma_rows - 2 ? SCALE_V_C : SCALE_V_X86;
}

VX_HD vx_u32 scale_clamp(vx_i32 v, vx_i32 max) { return v < 0 ? 0u : v > max ? (vx_u32)max : (vx_u32)v; }

// Output sample (x, y).
VX_HD vx_u32 scale_v_value(const ScaleVArgs& a, vx_u32 x, vx_u32 y) {
  const vx_u32 mode = scale_v_mode(a.bpc, a.taps, y, a.vsub, a.luma_rows);
  const vx_i32 pos = a.pos[y];
  const vx_i16* c = a.coef + (vx_u64)y * a.taps;
  // Rows past the end carry weight 0; read the last one instead.
  vx_i32 v0 = a.tmp[(vx_u64)pos * a.tmp_pitch + x];
  if (a.bpc == 8) {
    if (mode == SCALE_V_ONE_TAP) return scale_clamp((v0 + 64) >> 7, 255);
    if (mode == SCALE_V_X86) {
      // 16-bit lanes: each product keeps its high half, the sum wraps at 16 bits, then >> 3.
      vx_i32 acc = (64 + 8 * ((vx_i32)a.taps - 1)) >> 4;
      for (vx_u32 t = 0; t < a.taps; ++t) {
        const vx_u32 r = (vx_u32)pos + t < a.src_h ? (vx_u32)pos + t : a.src_h - 1;
        const vx_i32 v = a.tmp[(vx_u64)r * a.tmp_pitch + x];
        acc += ((vx_i32)c[t] * (vx_i32)(vx_i16)v) >> 16;
      }
      return scale_clamp((vx_i32)(vx_i16)(vx_u16)(vx_u32)acc >> 3, 255);
    }
    vx_u32 sum = 64u << 12;
    for (vx_u32 t = 0; t < a.taps; ++t) {
      const vx_u32 r = (vx_u32)pos + t < a.src_h ? (vx_u32)pos + t : a.src_h - 1;
      sum += (vx_u32)(a.tmp[(vx_u64)r * a.tmp_pitch + x] * (vx_i32)c[t]);
    }
    return scale_clamp((vx_i32)sum >> 19, 255);
  }
  if (a.bpc <= 14) {
    const vx_i32 max = (1 << a.bpc) - 1;
    if (mode == SCALE_V_ONE_TAP) {
      const vx_i32 shift = 15 - (vx_i32)a.bpc;
      return scale_clamp((v0 + (1 << (shift - 1))) >> shift, max);
    }
    const vx_i32 shift = 27 - (vx_i32)a.bpc;
    vx_i32 sum = 1 << (shift - 1);
    for (vx_u32 t = 0; t < a.taps; ++t) {
      const vx_u32 r = (vx_u32)pos + t < a.src_h ? (vx_u32)pos + t : a.src_h - 1;
      sum += a.tmp[(vx_u64)r * a.tmp_pitch + x] * (vx_i32)c[t];
    }
    return scale_clamp(sum >> shift, max);
  }
  if (mode == SCALE_V_ONE_TAP) return scale_clamp((v0 + 4) >> 3, 65535);
  vx_u32 sum = (vx_u32)((1 << 14) - 0x40000000);
  for (vx_u32 t = 0; t < a.taps; ++t) {
    const vx_u32 r = (vx_u32)pos + t < a.src_h ? (vx_u32)pos + t : a.src_h - 1;
    sum += (vx_u32)a.tmp[(vx_u64)r * a.tmp_pitch + x] * (vx_u32)(vx_i32)c[t];
  }
  vx_i32 s = (vx_i32)sum >> 15;
  s = s < -32768 ? -32768 : s > 32767 ? 32767 : s;
  return (vx_u32)(s + 0x8000);
}

VX_HD void scale_v_item(const ScaleVArgs& a, vx_u32 x, vx_u32 y) {
  const vx_u32 v = scale_v_value(a, x, y);
  vx_u8* row = a.dst + (vx_u64)y * a.dst_pitch;
  if (a.bpc == 8) {
    row[x] = (vx_u8)v;
  } else {
    ((vx_u16*)row)[x] = (vx_u16)v;  // little-endian devices; dst and dst_pitch are even
  }
}
