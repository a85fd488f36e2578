// SPDX-License-Identifier: LGPL-2.1-or-later
// Which SIMD implementation the CPU features run: the best one this CPU supports, limited by a mask that uses
// libvmaf's --cpumask bits (a set bit forbids that instruction set):
//   x86-64: 1 SSE2, 2 SSSE3, 4 SSE4.1, 8 AVX2, 16 AVX-512 (F, CD, BW, DQ, VL), 32 AVX-512 ICL
//   arm64:  1 NEON
// vmafx has AVX2 and AVX-512 code on x86-64 (NEON on arm64); the SSE bits forbid nothing here. The scalar C++ code
// (engine/cpu/*.cpp) is always built and is what runs when the mask forbids every SIMD level.
//
// The mask starts as 0 (every level allowed); set_cpu_mask() replaces it: a scorer whose EngineTuning::cpu_mask is set
// does, from the CLI's --cpumask or VMAFX_CPUMASK (vmafx/tuning.h). Change it only while no feature is computing:
// features read the level once per frame.
#pragma once

namespace vmafx::cpu {

enum class SimdLevel { scalar, avx2, avx512, neon };

inline constexpr unsigned kCpuMaskAvx2 = 1u << 3;
inline constexpr unsigned kCpuMaskAvx512 = 1u << 4;
inline constexpr unsigned kCpuMaskNeon = 1u << 0;

// The level features use now: the best of detected_simd_levels() the mask allows.
SimdLevel simd_level();
// Replaces the mask (libvmaf's meaning, see above).
void set_cpu_mask(unsigned mask);
unsigned cpu_mask();
// Whether this CPU (and this build) can run a level, whatever the mask says. scalar is always supported.
bool simd_level_supported(SimdLevel level);
const char* simd_level_name(SimdLevel level);  // "scalar", "avx2", "avx512", "neon"

}  // namespace vmafx::cpu
