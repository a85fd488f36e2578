// SPDX-License-Identifier: LGPL-2.1-or-later
// Internal: which backend a scorer runs on, and the extractor of a feature on that backend. The CPU reference serves
// every feature; the HIP engine (engine/hip) serves the features it has kernels for and the CPU the rest.
#pragma once

#include <memory>
#include <string>

#include "src/extractor.h"
#include "vmafx/scorer.h"

namespace vmafx {

// Resolves Backend::auto_select (GPU when a device is usable, else CPU, said once through cfg.on_notice) and checks
// that an explicit Backend::hip has a usable device.
Status select_backend(const ScorerConfig& cfg, const VideoGeometry& g, Backend* chosen, std::string* description);

Status create_extractor(const ScorerConfig& cfg, Backend backend, const std::string& family,
                        const FeatureOptions& opts, const VideoGeometry& g, std::unique_ptr<Extractor>* out);

// Hooks the HIP engine fills in when it is built (engine/hip, which then defines VMAFX_HAVE_HIP_BACKEND); null
// otherwise.
struct HipBackendHooks {
  Status (*probe)(const ScorerConfig& cfg, std::string* description) = nullptr;
  // Returns ok with *out == nullptr when the family has no GPU implementation (the CPU one is used).
  Status (*create)(const ScorerConfig& cfg, const std::string& family, const FeatureOptions& opts,
                   const VideoGeometry& g, std::unique_ptr<Extractor>* out) = nullptr;
};
const HipBackendHooks* hip_backend_hooks();

}  // namespace vmafx
