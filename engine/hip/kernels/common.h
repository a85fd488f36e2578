// SPDX-License-Identifier: LGPL-2.1-or-later
// Types and qualifiers shared by kernel sources and by host code. Kernel arithmetic lives in VX_HD functions of
// <feature>_impl.h headers that include only this file, so the same functions also compile with the host compiler:
// tests/ run them on the CPU against the CPU reference (on CI, without a GPU), and the kernels are thin loops around
// them.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
#define VX_HD __host__ __device__ inline
#define VX_DEVICE_COMPILE 1
#else
#define VX_HD inline
#endif

typedef unsigned char vx_u8;
typedef unsigned short vx_u16;
typedef short vx_i16;
typedef unsigned int vx_u32;
typedef int vx_i32;
typedef unsigned long long vx_u64;
typedef long long vx_i64;

// A plane of samples in device memory, the one plane type of kernel arguments and of host code (hip/plane.h calls it
// DevicePlane; the pipeline's FramePlanes hold it). Rows `pitch` bytes apart; a sample every `step` samples along a
// row (2: interleaved chroma); each sample an 8-bit byte (bytes 1) or a little-endian 16-bit word (bytes 2) shifted
// right by `shift` (P010: 6). C layout, 40 bytes, no implicit padding: passed to kernels by value, so host and device
// compilers must agree on it (hip/plane.h checks the offsets).
struct VxPlane {
  const void* data = 0;  // first sample of row 0
  vx_u64 pitch = 0;      // bytes between rows
  vx_u32 width = 0;      // samples per row the reader uses
  vx_u32 height = 0;
  vx_u32 bytes = 1;      // bytes per stored word: 1 or 2
  vx_u32 shift = 0;      // right shift from a 16-bit word to the sample
  vx_u32 step = 1;       // samples from one sample of a row to the next
  vx_u32 reserved = 0;
};

// The plane's 16-bit words lie at even addresses on every row (even data and pitch): they may be read as words
// instead of byte by byte. Both reads give the same sample; the word read is faster.
VX_HD bool vx_plane_words_aligned(const VxPlane& p) {
  return p.bytes == 2 && ((((unsigned long long)p.data) | p.pitch) & 1ull) == 0;
}
