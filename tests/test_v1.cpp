// SPDX-License-Identifier: LGPL-2.1-or-later
// The VMAF v1 models' features through the Scorer (the feature table's names, options and suffixes) against
// libvmaf's v1 oracle files of the generated pairs and of the public pairs present: adm, motion and speed_chroma
// requested with the models' options, every column of the oracle but cambi and vmaf, under libvmaf's
// option-suffixed names; the whole built-in models (vmaf within 1e-4 per frame); and the small pictures (17x17 ..
// 300x18) scored with vmaf_v0.6.1 as libvmaf on zero-initialised memory computes them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "support.h"
#include "tolerances.h"
#include "vmafx/scorer.h"

namespace vmafx::test {
namespace {

struct V1Model {
  const char* model;
  // The model's options (model_dict.feature_opts_dicts of engine/models/<model>.json).
  OptionList adm, speed;
};

std::vector<V1Model> v1_models() {
  const OptionList adm_common = {{"adm_csf_mode", "2"},        {"adm_dlm_weight", "0.7"},
                                 {"adm_enhn_gain_limit", "1"}, {"adm_noise_weight", "0.02"},
                                 {"adm_min_val", "0.5"}};
  const OptionList speed_common = {{"speed_nn_floor", "0.1"},
                                   {"speed_sigma_nn", "0.19"},
                                   {"speed_weight_var_mode", "5"},
                                   {"speed_max_val", "45"}};
  auto with = [](OptionList base, OptionList more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
  };
  return {
      {"vmaf_v1.0.16_3d0h", adm_common, with(speed_common, {{"speed_kernelscale", "1.0"}})},
      {"vmaf_v1.0.16_5d0h", with(adm_common, {{"adm_norm_view_dist", "5"}}),
       with(speed_common, {{"speed_prescale", "0.6"}, {"speed_prescale_method", "bilinear"}})},
      {"vmaf_v1.0.16_1d5h_2160",
       with(adm_common, {{"adm_norm_view_dist", "1.5"}, {"adm_ref_display_height", "2160"}}), speed_common},
      {"vmaf_v1.0.16_3d0h_2160", with(adm_common, {{"adm_ref_display_height", "2160"}}),
       with(speed_common, {{"speed_prescale", "0.5"}, {"speed_prescale_method", "bilinear"}})},
  };
}

// Every (pair, v1 model) with an oracle: the generated pairs' and the public pairs' present.
struct V1File {
  Pair pair;
  V1Model model;
};
std::vector<V1File> v1_files() {
  std::vector<V1File> v;
  for (const Pair& p : oracle_pairs())
    for (const V1Model& m : v1_models())
      if (has_oracle(p, m.model)) v.push_back({p, m});
  return v;
}
size_t generated_v1_files() {
  size_t n = 0;
  for (const V1File& f : v1_files()) n += f.pair.generated;
  return n;
}

// Scores a pair; returns the frames and the score names.
void run(const Pair& p, ScorerConfig cfg, std::vector<FrameScore>* frames, std::vector<std::string>* names,
         Status* create) {
  PairClips c;
  ASSERT_OK(open_pair_clips(p, &c));
  FrameLog log;
  std::unique_ptr<Scorer> scorer;
  *create = make_scorer(std::move(cfg), p.geometry(), &log, &scorer);
  if (!create->is_ok()) return;
  for (size_t i = 0; i < c.ref.frames(); i++) ASSERT_OK(scorer->submit(frame_pair(c.ref.frame(i), c.dist.frame(i), 0, i)));
  ASSERT_OK(scorer->flush());
  *frames = log.frames();
  *names = scorer->score_names();
}

// Every oracle column (but `skip`) equal within the tolerances; prints the largest differences per kind.
void compare(const V1File& f, const Oracle& o, const std::vector<FrameScore>& got,
             const std::vector<std::string>& names, const std::vector<std::string>& skip) {
  ASSERT_EQ(got.size(), o.frames.size());
  double worst_int = 0, worst_speed = 0, worst_vmaf = 0;
  for (size_t k = 0; k < got.size(); k++) {
    for (const auto& [metric, want] : o.frames[k]) {
      if (std::find(skip.begin(), skip.end(), metric) != skip.end() || metric.rfind("cambi", 0) == 0) continue;
      const double have = got[k].get(metric, names);
      ASSERT_FALSE(std::isnan(have)) << metric << " missing (the scorer names: " << names.size() << " columns)";
      const double d = std::fabs(have - want);
      EXPECT_LE(d, tolerance_for(metric)) << f.pair.name() << " " << metric << " frame " << k;
      double& w = metric == "vmaf" ? worst_vmaf : metric.rfind("speed", 0) == 0 ? worst_speed : worst_int;
      w = std::max(w, d);
    }
  }
  std::printf("  %s %s: max |ours - libvmaf json|: integer features %.2g, speed_chroma %.2g, vmaf %.2g\n",
              f.pair.name().c_str(), f.model.model, worst_int, worst_speed, worst_vmaf);
}

TEST(V1, FeaturesWithTheModelsOptionsThroughTheScorer) {
  size_t checked = 0;
  for (const V1File& f : v1_files()) {
    SCOPED_TRACE(f.pair.name() + " " + f.model.model);
    Oracle o;
    ASSERT_OK(load_oracle(f.pair.oracle_path(f.model.model), &o));
    ScorerConfig cfg = scorer_config("");
    cfg.features = {{"adm", f.model.adm}, {"motion", {{"motion_max_val", "18"}}}, {"speed_chroma", f.model.speed}};
    std::vector<FrameScore> got;
    std::vector<std::string> names;
    Status create;
    run(f.pair, cfg, &got, &names, &create);
    ASSERT_OK(create);
    compare(f, o, got, names, {"vmaf"});
    checked += f.pair.generated;
  }
  // Every generated pair has the 3d0h oracle, g1 and g2 the three others too.
  EXPECT_EQ(checked, generated_pairs().size() + 6);
}

TEST(V1, ModelsScoreLikeLibvmaf) {
  for (const V1File& f : v1_files()) {
    SCOPED_TRACE(f.pair.name() + " " + f.model.model);
    Oracle o;
    ASSERT_OK(load_oracle(f.pair.oracle_path(f.model.model), &o));
    ScorerConfig cfg = scorer_config(f.model.model);  // built in
    std::vector<FrameScore> got;
    std::vector<std::string> names;
    Status create;
    run(f.pair, cfg, &got, &names, &create);
    ASSERT_OK(create);
    compare(f, o, got, names, {});
  }
  EXPECT_EQ(generated_v1_files(), generated_pairs().size() + 6);
}

// vmaf_v0.6.1 on the small crops of tests/data/small_sizes.json (luma only): VMAF within 1e-4 of libvmaf on
// zero-initialised memory (at 17..32 libvmaf's ADM reads memory it never wrote; see cpu::adm_small_axis), and the
// smallest refusal names 17x17.
TEST(V1, SmallPicturesScoreLikeLibvmaf) {
  PairClips c;
  ASSERT_OK(open_sample_pair(&c));
  Oracle o;
  ASSERT_OK(load_oracle(project_data_dir() + "/small_sizes.json", &o));
  const std::pair<uint32_t, uint32_t> sizes[] = {{17, 17}, {24, 24}, {32, 32}, {17, 40}, {40, 17},
                                                 {20, 200}, {200, 20}, {33, 20}, {31, 33}, {300, 18}};
  size_t first = 0;
  double worst = 0;
  for (const auto& [w, h] : sizes) {
    const std::string tag = std::to_string(w) + "x" + std::to_string(h);
    SCOPED_TRACE(tag);
    auto crop = [&](PictureView v) {
      v.chroma = Chroma::k400;
      v.width = w;
      v.height = h;
      v.planes[0].data += 5 * v.planes[0].stride + 7;
      v.planes[0].width = w;
      v.planes[0].height = h;
      v.planes[1] = v.planes[2] = PlaneView{};
      return v;
    };
    FrameLog log;
    std::unique_ptr<Scorer> scorer;
    ASSERT_OK(make_scorer(scorer_config("vmaf_v0.6.1"), {w, h, 8, Chroma::k400}, &log, &scorer));
    for (size_t i = 0; i < 3; i++) ASSERT_OK(scorer->submit(frame_pair(crop(c.ref.frame(i)), crop(c.dist.frame(i)), 0, i)));
    ASSERT_OK(scorer->flush());
    const std::vector<FrameScore> got = log.frames();
    ASSERT_EQ(got.size(), 3u);
    for (size_t i = 0; i < 3; i++) {
      for (const char* m : {"vmaf", "integer_adm2", "integer_vif_scale0", "integer_motion2"}) {
        const double want = o.frames[first + i].at(tag + "/" + m), have = got[i].get(m, scorer->score_names());
        EXPECT_NEAR(have, want, tolerance_for(m)) << m << " frame " << i;
        if (std::string(m) == "vmaf") worst = std::max(worst, std::fabs(have - want));
      }
    }
    first += 3;
  }
  std::printf("  vmaf_v0.6.1 at 17x17 .. 300x18: max |vmaf - libvmaf (zeroed memory)| %.2g\n", worst);
  FrameLog log;
  std::unique_ptr<Scorer> scorer;
  const Status st = make_scorer(scorer_config("vmaf_v0.6.1"), {16, 100, 8, Chroma::k400}, &log, &scorer);
  EXPECT_EQ(st.code(), Errc::unsupported);
  EXPECT_NE(st.message().find("17x17"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace vmafx::test
