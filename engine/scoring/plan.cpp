// SPDX-License-Identifier: LGPL-2.1-or-later
#include "scoring/plan.h"

#include <cassert>
#include <string>

#include "features/table.h"

namespace vmafx::scoring {

namespace {

std::string geometry_text(const VideoGeometry& g) {
  return std::to_string(g.width) + "x" + std::to_string(g.height) + " " + std::to_string(g.bit_depth) + "-bit " +
         chroma_name(g.chroma);
}

Status add_feature(const features::FeatureDesc& desc, const features::OptionList& opts, const VideoGeometry& g,
                   const std::string& why, features::Plan* plan) {
  features::Options o;
  VMAFX_TRY(features::parse_options(desc, opts, &o).prepend(why));
  // The same extractor with the same options writes the same columns: one instance serves every request.
  for (const auto& inst : plan->features)
    if (inst.desc == &desc && inst.options == o) return Status::ok();
  features::Instance inst;
  VMAFX_TRY(features::make_instance(desc, o, g, &inst).prepend(why));
  plan->add(std::move(inst));
  return Status::ok();
}

}  // namespace

Status resolve_feature(const FeatureRequest& fr, const features::FeatureDesc** desc, features::Options* options) {
  *desc = features::find(fr.name);
  if (!*desc || !(*desc)->implemented())
    return {Errc::unsupported, "unknown feature '" + fr.name + "' (known: " + features::implemented_names() + ")"};
  return features::parse_options(**desc, fr.options, options).prepend("feature " + fr.name);
}

Status plan_features(const ScorerConfig& cfg, const VideoGeometry& geometry, bool notify, features::Plan* plan,
                     std::vector<Model>* models) {
  for (const ModelRequest& mr : cfg.models) {
    Model model;
    VMAFX_TRY(Model::load(mr.model, mr.overrides, &model));
    for (const ModelFeature& mf : model.features()) {
      const features::FeatureDesc* desc = features::find(mf.extractor);
      assert(desc);  // the model loader resolved it through the table
      features::OptionList opts(mf.text_opts.begin(), mf.text_opts.end());
      VMAFX_TRY(add_feature(*desc, opts, geometry, "model " + mr.model + " needs " + mf.name, plan));
    }
    models->push_back(std::move(model));
  }
  for (const FeatureRequest& fr : cfg.features) {
    const features::FeatureDesc* desc = nullptr;
    features::Options o;
    VMAFX_TRY(resolve_feature(fr, &desc, &o));
    // An extra feature whose check says the picture is outside what it scores (Errc::out_of_range: MS-SSIM below
    // 176x176) is left out with one warning, the other scores kept (unless cfg.leave_out_unfit_features is false:
    // then an error, as libvmaf 3.2 stops the whole run); any other refusal, and every model feature, is an error.
    if (desc->check) {
      if (Status size = desc->check(o, geometry); size.code() == Errc::out_of_range) {
        if (!cfg.leave_out_unfit_features)
          return {Errc::unsupported, "feature " + fr.name + " cannot score " + geometry_text(geometry) +
                                         " pictures: " + size.message()};
        if (notify && cfg.on_notice)
          cfg.on_notice(NoticeLevel::warning, fr.name + " left out: " + size.message(),
                        "the picture is " + geometry_text(geometry) + "; the other scores are kept");
        continue;
      }
    }
    VMAFX_TRY(add_feature(*desc, fr.options, geometry, "feature " + fr.name, plan));
  }
  return Status::ok();
}

}  // namespace vmafx::scoring
