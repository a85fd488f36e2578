// SPDX-License-Identifier: LGPL-2.1-or-later
// Which backend a scorer runs on: the CPU reference, or the HIP backend when a device is usable (auto falls back to
// the CPU and says so once).
#pragma once

#include <memory>
#include <string>

#include "features/backend.h"
#include "vmafx/scorer.h"

namespace vmafx::scoring {

Status select_backend(const ScorerConfig& cfg, const features::Plan& plan, features::Backend::Done done,
                      std::unique_ptr<features::Backend>* out, Backend* chosen);

}  // namespace vmafx::scoring
