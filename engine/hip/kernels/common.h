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
