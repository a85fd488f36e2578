// SPDX-License-Identifier: LGPL-2.1-or-later
// AVX-512 (F, CD, BW, DQ, VL: x86-64-v4) kernels. The target switch comes after every header with inline code, so only this file's own functions
// are compiled for avx512 (tests/checkasm/simd_symbols.sh checks that none of them is exported).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cpu/simd/kernels.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512cd,avx512bw,avx512dq,avx512vl,avx2,fma,bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512cd,avx512bw,avx512dq,avx512vl,avx2,fma,bmi2")
#endif
// GCC 12 warns about the undefined source operand inside its own AVX-512 headers.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#define VMAFX_SIMD_AVX512 1
#define VMAFX_SIMD_NS avx512
#include "cpu/simd/x86_impl.inl"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
