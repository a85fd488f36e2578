// SPDX-License-Identifier: LGPL-2.1-or-later
// Test seams of the importers of device memory (core/test_hooks.h explains test hooks). Included by
// import/dmabuf.cpp, hip/cuda_memory.cpp and tests only.
#pragma once

#include "core/test_hooks.h"

namespace vmafx::import_hooks {

#if VMAFX_TEST_HOOKS
// The defect the release-order tests must see: pictures of the dma-buf and CUDA importers created while this is on
// give their memory back at once instead of behind the device's reads. Process-wide; a test turns it on around the
// importer's creation and off after (EarlyReleasePlanted does both).
void set_planted_early_release(bool on);
bool planted_early_release();

class EarlyReleasePlanted {
 public:
  explicit EarlyReleasePlanted(bool on) { set_planted_early_release(on); }
  ~EarlyReleasePlanted() { set_planted_early_release(false); }
  EarlyReleasePlanted(const EarlyReleasePlanted&) = delete;
  EarlyReleasePlanted& operator=(const EarlyReleasePlanted&) = delete;
};
#else
constexpr bool planted_early_release() { return false; }
#endif

}  // namespace vmafx::import_hooks
