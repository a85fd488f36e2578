// SPDX-License-Identifier: LGPL-2.1-or-later
// The engine's tuning: how the GPU backend schedules its work and which instruction sets the CPU code may use, for
// measurements and diagnosis. Scores never depend on it. A program hands it to the engine in ScorerConfig::tuning;
// nothing inside the engine reads the environment for it.
//
// Each setting has a documented environment variable (docs/cli.md, "Environment"; engine_environment() is the same
// table). tuning_from_environment() reads them all, in this one place; vmafx-score calls it when it starts and the
// element when it creates its scorer. Unset or empty: the engine's default. A value the variable does not accept is
// an error naming the variable and what it accepts.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "vmafx/status.h"

namespace vmafx {

struct EngineTuning {
  // GPU backend. Each default (-1 or 0) leaves the engine's own choice.
  int upload_stream = -1;       // 1: host frames uploaded on the device's upload stream, 0: on the library stream
                                // (one lane); -1: 1 where the runtime can order streams
  unsigned lanes = 0;           // frames run on this many device streams at once, 1..7; 0: 6 on NVIDIA, 1 on AMD
  int upload_gate = -1;         // 1: a host frame's staging copy overlaps the queueing of its kernels, 0: not;
                                // -1: 1 on NVIDIA, 0 on AMD
  int graphs = -1;              // 1: a frame's GPU work is queued as one graph launch (where the same work was
                                // captured before), 0: call by call; -1: 1 on NVIDIA, 0 on AMD
  int copy_threads = -1;        // helper threads for the staging copies, 0..63; -1: from the number of cores
  unsigned slots = 0;           // frames in flight on the GPU, 2..64; 0: from the frame size and the lanes
  int64_t cambi_block_below = -1;  // cambi's c-values of a scale with fewer column threads than this run one block
                                   // per column; 0: never; -1: 4096
  unsigned cambi_rows = 0;      // cambi's column kernel rows per chunk, 1..4096; 0: from the scale's size
  bool sync_launches = false;   // every kernel launch waits for its kernel (debugging: a fault names its launch);
                                // turns it on for the process's device, which other scorers share
  // CPU code.
  int64_t cpu_mask = -1;        // libvmaf's --cpumask bits (a set bit leaves that instruction set out), set for the
                                // whole process when the scorer is created; -1: leave the process's mask as it is
};

// One documented environment variable of the engine.
struct EnvironmentVariable {
  const char* name;     // "VMAFX_HIP_LANES"
  const char* accepts;  // "an integer 1..7"
  const char* effect;   // one line for the documentation
};

// The engine's variables, in documentation order.
const std::vector<EnvironmentVariable>& engine_environment();

// Reads every variable of engine_environment() into *out (defaults where unset or empty). Errc::invalid_argument
// "VMAFX_HIP_LANES must be an integer 1..7, not 'x'" for the first value that is not accepted; *out is then
// unchanged.
Status tuning_from_environment(EngineTuning* out);
// The same with another source of values (`lookup` returns nullptr for an unset name): tests.
Status tuning_from(const std::function<const char*(const char*)>& lookup, EngineTuning* out);

}  // namespace vmafx
