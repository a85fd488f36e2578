// SPDX-License-Identifier: LGPL-2.1-or-later
// Test seams of the HIP engine (core/test_hooks.h explains test hooks): the frame pipeline's planted defects, which
// the GPU parity tests must catch, and a counter of upload-stream submits. Included by engine/hip and by tests only.
// Without test hooks planted_defect() is the constant Plant::none, so HipPipeline's planted branches are removed by
// the compiler, and the counter is an empty inline function; neither the environment variable nor the counter
// exists in the binary.
#pragma once

#include <cstdint>

#include "core/test_hooks.h"

namespace vmafx::hip {

// The defects a pipeline can plant in itself:
//   clear_before_upload  every feature's work (its clears first) is queued ahead of the frame's upload (with the
//                        upload stream: the upload waits for that work, so the kernels read the set before it is
//                        written);
//   skip_wait            frames are finished without waiting for their event and, with the upload stream, the
//                        library stream does not wait for the upload, so kernels may read planes before the upload;
//   skip_upload_submit   the upload stream's work is not submitted after each upload (Device::submit_upload);
//   skip_gate            with the upload gate, the upload does not wait for the gate, so it may copy the staging
//                        slot before the helpers have filled it.
enum class Plant { none, clear_before_upload, skip_wait, skip_upload_submit, skip_gate };

namespace hip_hooks {

#if VMAFX_TEST_HOOKS
// The planted defect that VMAFX_HIP_PLANT names ("clear_before_upload", "skip_wait", "skip_upload_submit",
// "skip_gate"; anything
// else: none), read when a pipeline is created.
Plant planted_defect();
const char* plant_name(Plant p);
// Device::submit_upload calls (upload-stream submits) of this process so far.
uint64_t upload_submits();
void count_upload_submit();
#else
constexpr Plant planted_defect() { return Plant::none; }
inline void count_upload_submit() {}
#endif

}  // namespace hip_hooks
}  // namespace vmafx::hip
