// SPDX-License-Identifier: LGPL-2.1-or-later
// Test seams of the GL input (core/test_hooks.h explains test hooks): process-wide counters of the runtime's GL
// interop, kept by hip/gl_interop.cpp. Included by engine/hip's GL half and by tests only; without test hooks the
// counting compiles to nothing and interop_counters() does not exist.
#pragma once

#include <cstdint>

#include "core/test_hooks.h"

namespace vmafx::gl {

#if VMAFX_TEST_HOOKS
// For leak checks and for the rule that no interop call precedes a passed check.
struct InteropCounters {
  uint64_t interop_calls = 0;          // calls into the runtime's GL interop (device list, register, map, ...)
  uint64_t live_registrations = 0;     // textures registered and not yet unregistered
  uint64_t registrations = 0;
  uint64_t unregistrations = 0;
};
InteropCounters interop_counters();
#endif

namespace gl_hooks {

enum class Count { interop_call, registration, unregistration };
#if VMAFX_TEST_HOOKS
void count(Count what);
#else
inline void count(Count) {}
#endif

}  // namespace gl_hooks
}  // namespace vmafx::gl
