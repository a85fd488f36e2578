// SPDX-License-Identifier: LGPL-2.1-or-later
// Scores one unit of a row through the engine's public Scorer: the whole pair, or frames [first, end) with the
// frames before and after them that the temporal features read (Scorer::range_context), submitted unscored, so that
// every frame of the chunk gets the values of a whole run bit for bit.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "batch/manifest.h"
#include "batch/plan.h"
#include "batch/result.h"
#include "vmafx/devices.h"
#include "vmafx/scorer.h"

namespace vmafx::tools::batch {

struct ScoreOptions {
  Backend backend = Backend::auto_select;
  Vendor vendor = Vendor::auto_select;
  int device = -1;       // -1: automatic placement among the visible GPUs (ScorerConfig::device_id; under Slurm
                         // those CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES leave visible)
  unsigned threads = 0;  // CPU worker threads (0: the calling thread)
  // Called as frames are submitted: frames of the unit done so far (context frames included) and their total
  // (0 when not known: a whole row read to its end).
  std::function<void(uint64_t done, uint64_t total)> progress;
  // The engine's notices ("no usable GPU: scoring on the CPU").
  std::function<void(const std::string&)> notice;
  // Set: the unit's scorer is left here when it scored on the GPU, and the one there before is dropped only once
  // the next unit's scorer exists, so that the GPU runtime (device, context, modules) stays up across the units of
  // one process (a pack) instead of starting again for each.
  std::shared_ptr<Scorer>* keep_warm = nullptr;
};

// The engine's configuration for a row (its models and features; threads, backend, device from `o`).
ScorerConfig scorer_config(const Row& row, const ScoreOptions& o);

// Fills *out's columns, frames, aggregates (whole rows), range, frame count and backend; the caller adds the key
// and where it ran.
Status score_unit(const Row& row, const Unit& unit, const ScoreOptions& o, UnitResult* out);

}  // namespace vmafx::tools::batch
