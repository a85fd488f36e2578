// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu/simd/cpu_features.h"

// VMAFX_HAVE_AVX2 / _AVX512 / _NEON: the instruction sets this build has kernels for (engine/cpu/meson.build writes
// them to simd_config.h; scripts/check_arm64.sh passes -DVMAFX_HAVE_NEON).
#if __has_include("cpu/simd_config.h")
#include "cpu/simd_config.h"
#endif

#include <atomic>
#include <cstdlib>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define VMAFX_CPU_X86 1
#endif

namespace vmafx::cpu {

namespace {

struct Detected {
  bool avx2 = false;
  bool avx512 = false;
  bool neon = false;
};

#if VMAFX_CPU_X86
// The OS must save the wide registers (XCR0) as well as the CPU having the instructions.
uint64_t xgetbv0() {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t(hi) << 32) | lo;
}
#endif

Detected detect() {
  Detected d;
#if VMAFX_CPU_X86
  unsigned a, b, c, e;
  if (!__get_cpuid(1, &a, &b, &c, &e)) return d;
  const bool osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1;
  if (!osxsave || !avx) return d;
  const uint64_t xcr0 = xgetbv0();
  const bool ymm = (xcr0 & 0x6) == 0x6;
  const bool zmm = (xcr0 & 0xe6) == 0xe6;
  if (__get_cpuid_max(0, nullptr) < 7) return d;
  __cpuid_count(7, 0, a, b, c, e);
  const bool avx2 = (b >> 5) & 1, bmi2 = (b >> 8) & 1;
  const bool f = (b >> 16) & 1, dq = (b >> 17) & 1, cd = (b >> 28) & 1, bw = (b >> 30) & 1, vl = (b >> 31) & 1;
  d.avx2 = ymm && avx2 && fma && bmi2;
  d.avx512 = d.avx2 && zmm && f && dq && cd && bw && vl;
#elif defined(__aarch64__)
  d.neon = true;  // Advanced SIMD is part of every AArch64 CPU
#endif
  return d;
}

const Detected& detected() {
  static const Detected d = detect();
  return d;
}

std::atomic<unsigned>& mask_ref() {
  static std::atomic<unsigned> m{0};
  return m;
}

}  // namespace

bool simd_level_supported(SimdLevel level) {
  const Detected& d = detected();
  switch (level) {
    case SimdLevel::scalar: return true;
#if defined(VMAFX_HAVE_AVX2)
    case SimdLevel::avx2: return d.avx2;
#endif
#if defined(VMAFX_HAVE_AVX512)
    case SimdLevel::avx512: return d.avx512;
#endif
#if defined(VMAFX_HAVE_NEON)
    case SimdLevel::neon: return d.neon;
#endif
    default: (void)d; return false;
  }
}

SimdLevel simd_level() {
  const unsigned m = mask_ref().load(std::memory_order_relaxed);
  if (!(m & kCpuMaskAvx512) && simd_level_supported(SimdLevel::avx512)) return SimdLevel::avx512;
  if (!(m & kCpuMaskAvx2) && simd_level_supported(SimdLevel::avx2)) return SimdLevel::avx2;
  if (!(m & kCpuMaskNeon) && simd_level_supported(SimdLevel::neon)) return SimdLevel::neon;
  return SimdLevel::scalar;
}

void set_cpu_mask(unsigned mask) { mask_ref().store(mask, std::memory_order_relaxed); }
unsigned cpu_mask() { return mask_ref().load(std::memory_order_relaxed); }

const char* simd_level_name(SimdLevel level) {
  switch (level) {
    case SimdLevel::scalar: return "scalar";
    case SimdLevel::avx2: return "avx2";
    case SimdLevel::avx512: return "avx512";
    case SimdLevel::neon: return "neon";
  }
  return "?";
}

}  // namespace vmafx::cpu
