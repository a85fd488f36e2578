// SPDX-License-Identifier: LGPL-2.1-or-later
// PSNR's GPU stage (kernels/psnr.hip): the sum over a plane of (ref - dist)^2, added into one 64-bit accumulator.
// Exact for any depth up to 16 bits: a squared difference is below 2^32 and a 4K plane's sum far below 2^64. Only
// common.h is included, so the host compiler reads this header too (hip/psnr_sse.cpp launches the kernel through it).
#pragma once

#include "common.h"

#define PSNR_SSE_THREADS 256  // block size in any 2D shape (the shared-memory reduction's width)

// Sums over ref's width x height samples (ref and dist: the same size, bytes and shift; their pitches and steps may
// differ) into *sse. Grid: any, each thread strides over rows and columns.
typedef void psnr_sse_kernel_fn(VxPlane ref, VxPlane dist, vx_u64* sse);
