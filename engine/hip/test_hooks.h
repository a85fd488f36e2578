// SPDX-License-Identifier: LGPL-2.1-or-later
// Test seams of the HIP engine (core/test_hooks.h explains test hooks): the frame pipeline's planted defects, which
// the GPU parity tests must catch, a counter of upload-stream submits, and a simulated device list for placement.
// Included by engine/hip and by tests only. Without test hooks planted_defect() is the constant Plant::none, so
// HipPipeline's planted branches are removed by the compiler, the counters are empty inline functions and
// simulated_devices() is the constant false; neither the environment variable, the counters nor the simulated list
// exists in the binary.
#pragma once

#include <cstdint>
#include <vector>

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

// A device of the simulated list that stands in for the runtime's devices in placement (placement.h): its free and
// total memory, or a memory query that fails.
struct SimulatedDevice {
  uint64_t free_bytes = 0;
  uint64_t total_bytes = 0;
  bool query_fails = false;
};

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
// While a non-empty list is set, place_session sees these devices (their number, and each one's memory query)
// instead of the runtime's; the session counts stay real. An empty list restores the runtime's devices.
void simulate_devices(std::vector<SimulatedDevice> devices);
// The simulated list (true) or none (false).
bool simulated_devices(std::vector<SimulatedDevice>* out);
// Device memory queries placement has made so far in this process (real or simulated).
uint64_t memory_queries();
void count_memory_query();
#else
constexpr Plant planted_defect() { return Plant::none; }
inline void count_upload_submit() {}
constexpr bool simulated_devices(std::vector<SimulatedDevice>*) { return false; }
inline void count_memory_query() {}
#endif

}  // namespace hip_hooks
}  // namespace vmafx::hip
