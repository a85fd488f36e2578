// SPDX-License-Identifier: LGPL-2.1-or-later
// AVX2 (+ FMA, BMI2: x86-64-v3) kernels. The target switch comes after every header with inline code, so only this file's own functions
// are compiled for avx2 (tests/checkasm/simd_symbols.sh checks that none of them is exported).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cpu/simd/kernels.h"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma,bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi2")
#endif

#define VMAFX_SIMD_AVX2 1
#define VMAFX_SIMD_NS avx2
#include "cpu/simd/x86_impl.inl"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
