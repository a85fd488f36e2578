// SPDX-License-Identifier: LGPL-2.1-or-later
// What the element's properties ask the engine to score: models and extra features as the settings parse them
// (gstvmafxhipsettings.h), and the scaling of a distorted stream of another size. The scoring itself is
// scoring_session.h.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "vmafx/scorer.h"

namespace vmafx::gst {

using OptionPairs = std::vector<std::pair<std::string, std::string>>;

// One model to score: a built-in version or a libvmaf JSON file, and the score column it writes.
struct ScoringModel {
  std::string model;
  std::string name;  // score column ("vmaf" for the first model)
  // From the model's spec (libvmaf's --model syntax): EXTRACTOR.OPTION overloads, and per-model disable_clip and
  // enable_transform (added to the element's properties of the same names).
  OptionPairs overrides;
  bool disable_clip = false;
  bool enable_transform = false;
};

// One feature beyond the models' (libvmaf's --feature NAME=opt=val:opt=val).
struct ScoringFeature {
  std::string name;
  OptionPairs options;
};

enum class Scaling { none, bicubic, bilinear, lanczos };
const char* scaling_name(Scaling s);
ScaleMethod to_scale_method(Scaling s);

}  // namespace vmafx::gst
