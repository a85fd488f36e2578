// SPDX-License-Identifier: LGPL-2.1-or-later
// The GL input's diagnostic switches (vmafx/gl.h): read from the environment in a build with test hooks only.
#include <cstdlib>
#include <cstring>

#include "core/test_hooks.h"
#include "vmafx/gl.h"

namespace vmafx::gl {

#if VMAFX_TEST_HOOKS
namespace {

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

}  // namespace

DiagnosticSwitches diagnostic_switches() {
  DiagnosticSwitches d;
  d.verify = env_flag("VMAFX_GL_VERIFY");
  d.force_interop = env_flag("VMAFX_GL_FORCE_INTEROP");
  return d;
}
#else
DiagnosticSwitches diagnostic_switches() { return {}; }
#endif

}  // namespace vmafx::gl
