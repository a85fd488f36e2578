// SPDX-License-Identifier: LGPL-2.1-or-later
// AVX-512 (F, CD, BW, DQ, VL: x86-64-v4) kernels.
#define VMAFX_SIMD_NS avx512
#include "cpu/simd/x86_impl.inl"
