// SPDX-License-Identifier: LGPL-2.1-or-later
// The features a scorer configuration asks for, as the scorer and a shared reference both compute them.
#pragma once

#include <vector>

#include "features/backend.h"
#include "features/table.h"
#include "vmafx/model.h"
#include "vmafx/scorer.h"

namespace vmafx::scoring {

// The features `cfg` asks for at `geometry` into plan->features, in the scorer's order: each model's (cfg.models
// order), then the extra ones, one instance per extractor and options. *models gets each model, loaded, in cfg.models
// order. An extra feature the picture is too small for is left out with a notice through cfg.on_notice when `notify`
// (or fails the plan: ScorerConfig::leave_out_unfit_features).
// The table's extractor for a feature asked for and its parsed options: Errc::unsupported for an unknown name
// (listing the known ones) and for options it does not take.
Status resolve_feature(const FeatureRequest& request, const features::FeatureDesc** desc, features::Options* options);

Status plan_features(const ScorerConfig& cfg, const VideoGeometry& geometry, bool notify, features::Plan* plan,
                     std::vector<Model>* models);

}  // namespace vmafx::scoring
