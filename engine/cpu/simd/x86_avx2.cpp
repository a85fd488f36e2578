// SPDX-License-Identifier: LGPL-2.1-or-later
// AVX2 (+ FMA, BMI2: x86-64-v3) kernels.
#define VMAFX_SIMD_NS avx2
#include "cpu/simd/x86_impl.inl"
