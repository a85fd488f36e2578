// SPDX-License-Identifier: LGPL-2.1-or-later
// cambi through the Scorer (the feature table's entry, libvmaf's option syntax and score names, the CPU backend):
//   - `--feature cambi=cambi_high_res_speedup=1080:...` (the v1 models' options) on the public pairs against the v1
//     JSONs' cambi_hrs_1080_cmxv_17_vlt_0.06, 1 and 2 threads;
//   - every synthetic fixture of tests/data/cambi: the score names libvmaf wrote (option suffixes, the verbatim
//     cambi_source / cambi_full_reference of full_ref) and their values bit for bit;
//   - refusals at create naming the cause.
// (tests/test_oracle.cpp checks default-option cambi in the v0.6.1 JSONs, scaled input included.)
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cambi_synth.h"
#include "support.h"
#include "tolerances.h"
#include "vmafx/scorer.h"

namespace vmafx::test {
namespace {

OptionList option_list(const std::string& text) {
  OptionList l;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(':', at);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(at, end - at);
    const size_t eq = item.find('=');
    l.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    at = end + 1;
  }
  return l;
}

ScorerConfig cambi_config(const std::string& options, unsigned threads = 0) {
  ScorerConfig cfg = scorer_config("");
  cfg.features.push_back({"cambi", option_list(options)});
  cfg.threads = threads;
  return cfg;
}

const char* kV1 = "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17";

TEST(ScorerCambi, V1OptionsMatchTheV1Jsons) {
  std::vector<std::string> checked, absent;
  std::vector<Pair> pairs = generated_pairs();
  for (const Pair& p : present_pairs(&absent)) pairs.push_back(p);
  for (const Pair& p : pairs) {
    std::string model;
    for (const char* m : {"vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_5d0h"})
      if (has_oracle(p, m)) model = m;
    if (model.empty()) continue;
    PairClips c;
    ASSERT_TRUE(open_pair_clips(p, &c).is_ok());
    Oracle o;
    ASSERT_TRUE(load_pair_oracle(p, model, c.ref.frames(), &o).is_ok());
    for (unsigned threads : {0u, 2u}) {
      FrameLog log;
      std::unique_ptr<Scorer> scorer;
      const Status s = make_scorer(cambi_config(kV1, threads), p.geometry(), &log, &scorer);
      ASSERT_TRUE(s.is_ok()) << s.to_string();
      ASSERT_EQ(scorer->score_names(), std::vector<std::string>{"cambi_hrs_1080_cmxv_17_vlt_0.06"});
      for (size_t i = 0; i < c.ref.frames(); i++)
        ASSERT_TRUE(scorer->submit(frame_pair(c.ref.frame(i), c.dist.frame(i), int64_t(i), i)).is_ok());
      ASSERT_TRUE(scorer->flush().is_ok());
      const auto frames = log.frames();
      ASSERT_EQ(frames.size(), o.frames.size());
      for (size_t k = 0; k < frames.size(); k++) {
        const double want = o.frames[k].at("cambi_hrs_1080_cmxv_17_vlt_0.06");
        EXPECT_NEAR(frames[k].values[0], want, kIntegerFeatureTol) << p.name() << " frame " << k;
      }
    }
    checked.push_back(p.name());
  }
  print_pair_coverage(checked, absent);
  EXPECT_GE(checked.size(), generated_pairs().size()) << "every generated pair has a v1 oracle";
}

// A synthetic fixture's pictures as planar 4:4:4 (what libvmaf read), chroma mid-grey.
struct Picture {
  std::vector<uint8_t> bytes;
  PictureView view;
};
Status make_picture(const std::vector<uint16_t>& luma, uint32_t w, uint32_t h, unsigned bpc, Picture* out) {
  FormatInfo fmt;
  VMAFX_TRY(parse_pixel_format("444", bpc, &fmt));
  PlaneLayout layout[3];
  size_t size = 0;
  const unsigned n = packed_layout(fmt, w, h, layout, &size);
  out->bytes.assign(size, 0);
  const size_t bps = bpc > 8 ? 2 : 1;
  for (unsigned p = 0; p < n; ++p)
    for (size_t i = 0; i < size_t(w) * h; ++i) {
      const uint32_t v = p == 0 ? luma[i] : 1u << (bpc - 1);
      uint8_t* d = out->bytes.data() + layout[p].offset + i * bps;
      d[0] = uint8_t(v);
      if (bps == 2) d[1] = uint8_t(v >> 8);
    }
  return make_picture_view(fmt, w, h, out->bytes.data(), size, layout, n, &out->view);
}

TEST(ScorerCambi, SyntheticFixturesGiveLibvmafsNamesAndValues) {
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(f.name);
    Oracle o;
    ASSERT_TRUE(load_oracle(project_data_dir() + "/cambi/" + f.name + ".json", &o).is_ok());
    FrameLog log;
    std::unique_ptr<Scorer> scorer;
    const Status s = make_scorer(cambi_config(f.options), {f.w, f.h, uint8_t(f.bpc), Chroma::k444}, &log, &scorer);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    std::set<std::string> want_names, names(scorer->score_names().begin(), scorer->score_names().end());
    for (const auto& [k, v] : o.frames.front()) want_names.insert(k);
    EXPECT_EQ(names, want_names);
    std::vector<Picture> pics(2 * f.frames);
    for (unsigned i = 0; i < f.frames; ++i) {
      ASSERT_TRUE(make_picture(fixture_luma(f, i, true), f.w, f.h, f.bpc, &pics[2 * i]).is_ok());
      ASSERT_TRUE(make_picture(fixture_luma(f, i, false), f.w, f.h, f.bpc, &pics[2 * i + 1]).is_ok());
      ASSERT_TRUE(scorer->submit(frame_pair(pics[2 * i].view, pics[2 * i + 1].view, int64_t(i), i)).is_ok());
    }
    ASSERT_TRUE(scorer->flush().is_ok());
    const auto frames = log.frames();
    ASSERT_EQ(frames.size(), o.frames.size());
    for (size_t k = 0; k < frames.size(); k++)
      for (const auto& [metric, want] : o.frames[k])
        EXPECT_EQ(frames[k].get(metric, scorer->score_names()), want) << metric << " frame " << k;
  }
}

TEST(ScorerCambi, RefusesAtCreateNamingTheCause) {
  struct Case {
    const char* options;
    uint32_t w, h;
    Errc code;
    const char* says;
  };
  const Case cases[] = {
      {"heatmaps_path=/tmp/h", 640, 360, Errc::unsupported, "heatmap"},
      {"windowsize=20", 640, 360, Errc::unsupported, "window_size"},
      {"window_size=200", 640, 360, Errc::invalid_argument, "window_size"},
      {"eotf=hlg", 640, 360, Errc::invalid_argument, "hlg"},
      {"", 4000, 216, Errc::unsupported, "window"},
      {"", 200, 200, Errc::invalid_argument, "216"},
      {"cambi_vis_lum_threshold=300", 640, 360, Errc::unsupported, "cambi_vis_lum_threshold"},
  };
  for (const Case& c : cases) {
    FrameLog log;
    std::unique_ptr<Scorer> scorer;
    const Status s = make_scorer(cambi_config(c.options), {c.w, c.h, 8, Chroma::k420}, &log, &scorer);
    EXPECT_EQ(s.code(), c.code) << c.options << ": " << s.to_string();
    EXPECT_NE(s.message().find(c.says), std::string::npos) << c.options << ": " << s.message();
  }
}

}  // namespace
}  // namespace vmafx::test
