// SPDX-License-Identifier: LGPL-2.1-or-later
// The engine's configuration from the element's properties (gstvmafxhipsettings.h) and, where a setting depends on
// it, from the reference's caps: model-filename=auto by the reference's height, ssimulacra2's matrix and range from
// its colorimetry.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <string>
#include <vector>

#include "gstvmafxhipcaps.h"
#include "gstvmafxhipsettings.h"
#include "vmafx/scorer.h"

namespace vmafx::gst {

// Models and features as parse_models / parse_features give them, plus psnr / ssim / ms-ssim, threads (0: one per
// processor), subsample, backend, vendor, device and the scale method.
ScorerConfig scorer_config(const Settings& a, const std::vector<ScoringModel>& models,
                           std::vector<ScoringFeature> features);

// Everything that can be checked before the first frame: the models (parsed, loaded), conf-interval's bootstrap
// model, the features and their options (Scorer::validate). False with the error to post; else *out is the
// engine's configuration.
bool check_settings(const Settings& a, ScorerConfig* out, CapsProblem* problem);

// Before a scorer is made for a reference of these caps: auto's model for its height (the choices said through
// `choices`), and ssimulacra2's yuv_matrix / yuv_range from caps that carry a colorimetry, unless the features give
// them (without one the engine assumes BT.709 above 576 rows, BT.601 up to 576, limited range: GStreamer's own
// defaults).
Status apply_reference_caps(const Settings& a, const GstCaps* caps, const GstVideoInfo& info, unsigned height,
                            ScorerConfig* cfg, std::vector<std::string>* choices);

}  // namespace vmafx::gst
