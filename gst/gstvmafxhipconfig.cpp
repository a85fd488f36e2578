// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhipconfig.h"

#include "vmafx/model.h"
#include "vmafx/tuning.h"

namespace vmafx::gst {

ScorerConfig scorer_config(const Settings& a, const std::vector<ScoringModel>& models,
                           std::vector<ScoringFeature> features) {
  ScorerConfig sc;
  sc.models.clear();
  for (const auto& m : models) {
    ModelRequest r;
    r.model = m.model;
    r.name = m.name;
    r.overrides = m.overrides;
    r.disable_clip = a.disable_clip || m.disable_clip;
    r.enable_transform = a.enable_transform || a.phone_model || m.enable_transform;
    sc.models.push_back(r);
  }
  auto add_feature = [&](const char* name) {
    for (const auto& f : features)
      if (f.name == name && f.options.empty()) return;
    features.push_back({name, {}});
  };
  if (a.psnr) add_feature("psnr");
  if (a.ssim) add_feature("float_ssim");
  if (a.ms_ssim) add_feature("float_ms_ssim");
  for (const auto& f : features) sc.features.push_back({f.name, f.options});
  sc.conf_interval = a.conf_interval;
  sc.threads = a.threads ? a.threads : g_get_num_processors();
  sc.subsample = a.subsample ? a.subsample : 1;
  sc.backend = to_backend(a.backend);
  sc.vendor = to_vendor(a.vendor);
  sc.device_id = a.device_id;
  sc.scale = to_scale_method(to_scaling(a.scale_method));
  return sc;
}

bool check_settings(const Settings& a, ScorerConfig* out, CapsProblem* problem) {
  const ErrorCode settings_error{GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS};
  std::vector<ScoringModel> models;
  Status st = parse_models(a.model, 0, &models, nullptr);
  std::vector<ScoringFeature> features;
  if (st) st = parse_features(a.features, &features);
  if (!st) {
    *problem = {settings_error, "Invalid settings", st.to_string()};
    return false;
  }
  bool any_collection = false;
  for (const auto& entry : models) {
    Model model;
    Status ms = Model::load(entry.model, &model);
    if (!ms) {
      *problem = {model_error_code(entry.model), "Could not load VMAF model '" + entry.model + "'", ms.to_string()};
      return false;
    }
    any_collection = any_collection || model.is_collection();
  }
  if (a.conf_interval && !any_collection) {
    *problem = {settings_error, "conf-interval needs a bootstrap model such as vmaf_b_v0.6.3",
                models.empty() ? "model-filename is empty" : "model '" + a.model + "' is a single model, not a collection"};
    return false;
  }
  *out = scorer_config(a, models, features);
  // The engine's tuning variables (docs/cli.md, Environment), read here, where the element makes its scorers.
  st = tuning_from_environment(&out->tuning);
  if (!st) {
    *problem = {settings_error, st.message(), "the engine's tuning variables: docs/cli.md, Environment"};
    return false;
  }
  st = Scorer::validate(*out);
  if (!st) {
    *problem = {settings_error, "Invalid settings: " + st.message().substr(0, st.message().find(" (")), st.to_string()};
    return false;
  }
  return true;
}

Status apply_reference_caps(const Settings& a, const GstCaps* caps, const GstVideoInfo& info, unsigned height,
                            ScorerConfig* cfg, std::vector<std::string>* choices) {
  const GstStructure* cs = caps ? gst_caps_get_structure(caps, 0) : nullptr;
  if (cs && gst_structure_has_field(cs, "colorimetry")) {
    const GstVideoColorMatrix m = info.colorimetry.matrix;
    const char* matrix = m == GST_VIDEO_COLOR_MATRIX_BT709    ? "bt709"
                         : m == GST_VIDEO_COLOR_MATRIX_BT601  ? "bt601"
                         : m == GST_VIDEO_COLOR_MATRIX_BT2020 ? "bt2020"
                                                              : nullptr;
    const GstVideoColorRange r = info.colorimetry.range;
    const char* range = r == GST_VIDEO_COLOR_RANGE_0_255 ? "full" : r == GST_VIDEO_COLOR_RANGE_16_235 ? "limited" : nullptr;
    for (auto& f : cfg->features) {
      if (f.name != "ssimulacra2") continue;
      auto given = [&f](const char* opt) {
        for (const auto& o : f.options)
          if (o.first == opt) return true;
        return false;
      };
      if (matrix && !given("yuv_matrix")) f.options.push_back({"yuv_matrix", matrix});
      if (range && !given("yuv_range")) f.options.push_back({"yuv_range", range});
    }
  }
  if (a.model.find("auto") == std::string::npos) return Status::ok();
  std::vector<ScoringModel> models;
  VMAFX_TRY(parse_models(a.model, height, &models, choices));
  cfg->models = scorer_config(a, models, {}).models;
  return Status::ok();
}

}  // namespace vmafx::gst
