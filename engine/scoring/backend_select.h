// SPDX-License-Identifier: LGPL-2.1-or-later
// Which backend a scorer runs on: the CPU reference, or the HIP backend when a device is usable (auto falls back to
// the CPU and says so once).
#pragma once

#include <memory>
#include <string>

#include "features/backend.h"
#include "hip/backend.h"
#include "vmafx/scorer.h"

namespace vmafx::scoring {

Status select_backend(const ScorerConfig& cfg, const features::Plan& plan, features::Backend::Done done,
                      std::unique_ptr<features::Backend>* out, Backend* chosen);

// The device copies of a shared reference on GPU `device` (an index of cfg.vendor's visible devices).
Status create_uploader(const ScorerConfig& cfg, int device, std::shared_ptr<hip::FrameUploader>* out);

}  // namespace vmafx::scoring
