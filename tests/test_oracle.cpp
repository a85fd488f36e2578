// SPDX-License-Identifier: LGPL-2.1-or-later
// The engine end to end against libvmaf's own JSON: every generated pair (tests/data/generated) and every public
// pair of ../shared present, every model file given, subsample 2, 1 and 2 threads; per-frame and pooled values
// within the tolerances of tests/tolerances.h.
#include <dirent.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <set>

#include "support.h"
#include "tolerances.h"
#include "vmafx/scorer.h"

namespace vmafx::test {
namespace {

struct Case {
  Pair pair;
  std::string model;        // model version
  std::string oracle;       // oracle file suffix
  unsigned subsample = 1;
  unsigned threads = 0;
  std::string name() const {
    std::string n = pair.prefix + "_" + pair.distorted + "_" + oracle + "_t" + std::to_string(threads);
    for (auto& c : n)
      if (!isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
  }
};

// Every model oracle of every pair: the generated pairs' (tests/data/generated lists them) and those of the public
// pairs present in ../shared. The v1 and float models and the bootstrap model are built in.
std::vector<Case> cases() {
  std::vector<Case> v;
  for (const auto& p : oracle_pairs()) {
    for (unsigned t : {0u, 2u}) v.push_back({p, "vmaf_v0.6.1", "vmaf_v0.6.1", 1, t});
    if (has_oracle(p, "vmaf_4k_v0.6.1")) v.push_back({p, "vmaf_4k_v0.6.1", "vmaf_4k_v0.6.1", 1, 0});
    if (has_oracle(p, "vmaf_v0.6.1neg")) v.push_back({p, "vmaf_v0.6.1neg", "vmaf_v0.6.1neg", 1, 2});
    if (has_oracle(p, "vmaf_v0.6.1.subsample2")) {
      v.push_back({p, "vmaf_v0.6.1", "vmaf_v0.6.1.subsample2", 2, 0});
      v.push_back({p, "vmaf_v0.6.1", "vmaf_v0.6.1.subsample2", 2, 2});
    }
    for (const char* m : {"vmaf_b_v0.6.3", "vmaf_float_v0.6.1", "vmaf_float_v0.6.1neg", "vmaf_float_4k_v0.6.1",
                          "vmaf_float_b_v0.6.3", "vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_5d0h", "vmaf_v1.0.16_1d5h_2160",
                          "vmaf_v1.0.16_3d0h_2160", "vmaf_v1.0.16_hfr_3d0h", "vmaf_v1.0.16_hfr_5d0h",
                          "vmaf_v1.0.16_hfr_1d5h_2160", "vmaf_v1.0.16_hfr_3d0h_2160"})
      if (has_oracle(p, m)) v.push_back({p, m, m, 1, 2});
  }
  return v;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.name(); }

// Scores a pair with the engine; returns every frame and the scorer for pooling.
void score_pair(const Case& c, const Oracle& oracle, bool extra_features) {
  PairClips clips;
  const Status opened = open_pair_clips(c.pair, &clips);
  ASSERT_TRUE(opened.is_ok()) << opened.to_string();
  const YuvClip& ref = clips.ref;
  const YuvClip& dist = clips.dist;

  ScorerConfig cfg = extra_features ? scorer_config(c.model, {"psnr", "float_ssim", "float_ms_ssim", "cambi"})
                                     : scorer_config(c.model);
  cfg.subsample = c.subsample;
  cfg.threads = c.threads;
  const VideoGeometry g = c.pair.geometry();
  FrameLog log;
  std::unique_ptr<Scorer> scorer;
  Status s = make_scorer(cfg, g, &log, &scorer);
  ASSERT_TRUE(s.is_ok()) << s.to_string();

  for (size_t i = 0; i < ref.frames(); i++) {
    s = scorer->submit(frame_pair(ref.frame(i), dist.frame(i), int64_t(i) * 40, i));
    ASSERT_TRUE(s.is_ok()) << s.to_string();
  }
  s = scorer->flush();
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  const std::vector<FrameScore> got = log.frames();

  const auto& names = scorer->score_names();
  ASSERT_EQ(got.size(), oracle.frames.size()) << "number of scored frames";
  size_t compared = 0;
  for (size_t k = 0; k < got.size(); k++) {
    EXPECT_EQ(got[k].index, oracle.frame_num[k]);
    EXPECT_EQ(got[k].timestamp, int64_t(got[k].index) * 40) << "timestamp carried with its frame";
    for (const auto& [metric, want] : oracle.frames[k]) {
      const double have = got[k].get(metric, names);
      ASSERT_FALSE(std::isnan(have)) << metric << " missing at frame " << oracle.frame_num[k];
      EXPECT_NEAR(have, want, tolerance_for(metric)) << metric << " frame " << oracle.frame_num[k];
      compared++;
    }
  }
  EXPECT_GT(compared, got.size() * 10);
  // Pooled: min/max/mean/harmonic mean of every metric libvmaf pooled.
  const Collector& col = scorer->collector();
  for (const auto& [metric, stats] : oracle.pooled) {
    const long ci = col.find(metric);
    ASSERT_GE(ci, 0) << metric;
    const PoolStats p = col.pool(size_t(ci));
    const double tol = tolerance_for(metric);
    EXPECT_NEAR(p.min, stats.at("min"), tol) << metric << " pooled min";
    EXPECT_NEAR(p.max, stats.at("max"), tol) << metric << " pooled max";
    EXPECT_NEAR(p.mean, stats.at("mean"), tol) << metric << " pooled mean";
    EXPECT_NEAR(p.harmonic_mean, stats.at("harmonic_mean"), tol) << metric << " pooled harmonic mean";
  }
}

class OracleTest : public ::testing::TestWithParam<Case> {};

TEST_P(OracleTest, MatchesLibvmafJson) {
  const Case& c = GetParam();
  const std::string path = c.pair.oracle_path(c.oracle);
  Oracle oracle;
  Status s = load_oracle(path, &oracle);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  const bool extra = oracle.frames.front().count("psnr_y") > 0;
  score_pair(c, oracle, extra);
}

INSTANTIATE_TEST_SUITE_P(Pairs, OracleTest, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name(); });

// tests/data/generated holds exactly the JSON files has_oracle() lists for the generated pairs (a file deleted or
// added without the list would otherwise drop or never run its case).
TEST(GeneratedOracles, FolderHoldsExactlyTheListedFiles) {
  std::set<std::string> listed, found;
  std::vector<Pair> pairs = generated_pairs();
  pairs.push_back(long_pair());
  for (const Pair& p : pairs)
    for (const std::string& s : generated_oracles(p)) listed.insert(p.name() + "." + s + ".json");
  const std::string dir = project_data_dir() + "/generated";
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr) << dir;
  while (const dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0) found.insert(n);
  }
  closedir(d);
  EXPECT_EQ(listed, found);
  EXPECT_GE(listed.size(), 40u);
}

// The shipped sample pair against libvmaf's scores in tests/data (runs without ../shared): the default model with the
// extra features, and the bootstrap model with its members, bagging, stddev and 95 % interval.
class SampleOracleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleOracleTest, MatchesLibvmafWithoutShared) {
  const std::string model = GetParam();
  Oracle oracle;
  Status s = load_oracle(project_data_dir() + "/sample_320x240_dist." + model + ".json", &oracle);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  const std::string tmp = ::testing::TempDir() + "/vmafx_sample";
  std::string cmd = "mkdir -p " + tmp + " && gunzip -c " + project_source_dir() +
                    "/samples/sample_320x240_ref.yuv.gz > " + tmp + "/ref.yuv && gunzip -c " +
                    project_source_dir() + "/samples/sample_320x240_dist.yuv.gz > " + tmp + "/dist.yuv";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  FormatInfo fmt;
  ASSERT_TRUE(parse_pixel_format("420", 8, &fmt).is_ok());
  YuvClip ref, dist;
  ASSERT_TRUE(ref.open(tmp + "/ref.yuv", 320, 240, fmt).is_ok());
  ASSERT_TRUE(dist.open(tmp + "/dist.yuv", 320, 240, fmt).is_ok());
  ScorerConfig cfg = oracle.frames.front().count("psnr_y") ? scorer_config(model, {"psnr", "float_ssim", "float_ms_ssim"})
                                                           : scorer_config(model);
  FrameLog log;
  std::unique_ptr<Scorer> scorer;
  s = make_scorer(cfg, {320, 240, 8, Chroma::k420}, &log, &scorer);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  for (size_t i = 0; i < ref.frames(); i++)
    ASSERT_TRUE(scorer->submit(frame_pair(ref.frame(i), dist.frame(i), int64_t(i), i)).is_ok());
  ASSERT_TRUE(scorer->flush().is_ok());
  const std::vector<FrameScore> got = log.frames();
  ASSERT_EQ(got.size(), oracle.frames.size());
  for (size_t k = 0; k < got.size(); k++) {
    EXPECT_EQ(oracle.frames[k].size(), scorer->score_names().size()) << "same columns as libvmaf";
    for (const auto& [metric, want] : oracle.frames[k])
      EXPECT_NEAR(got[k].get(metric, scorer->score_names()), want, tolerance_for(metric)) << metric << " " << k;
  }
  for (const auto& [metric, stats] : oracle.pooled) {
    const PoolStats p = scorer->collector().pool(size_t(scorer->collector().find(metric)));
    EXPECT_NEAR(p.mean, stats.at("mean"), tolerance_for(metric)) << metric;
    EXPECT_NEAR(p.harmonic_mean, stats.at("harmonic_mean"), tolerance_for(metric)) << metric;
  }
}

INSTANTIATE_TEST_SUITE_P(Sample, SampleOracleTest, ::testing::Values("vmaf_v0.6.1", "vmaf_b_v0.6.3"));

}  // namespace
}  // namespace vmafx::test

namespace vmafx::test {
namespace {

// The 288x162 intermediate of pair a's down/up-scale, scored against the 576x324 reference with the scorer scaling
// it (bicubic, FFmpeg's swscale reproduced): libvmaf's scores of FFmpeg's upscale of the same clip
// (a_576x324_8b_down288.vmaf_v0.6.1.json). Exactly, since the upscale is byte for byte FFmpeg's; the tolerance is the
// JSON's printing.
TEST(ScaledOracle, SmallDistortedMatchesLibvmafOfTheFfmpegUpscale) {
  const std::string small = shared_testdata_dir() + "/a_288x162_8b_down288_small.yuv";
  const std::string ref_path = shared_testdata_dir() + "/a_576x324_8b_ref.yuv";
  const std::string oracle_path = shared_testdata_dir() + "/a_576x324_8b_down288.vmaf_v0.6.1.json";
  if (!file_exists(small) || !file_exists(oracle_path)) GTEST_SKIP() << "../shared/testdata missing";
  Oracle oracle;
  ASSERT_TRUE(load_oracle(oracle_path, &oracle).is_ok());
  FormatInfo fmt;
  ASSERT_TRUE(parse_pixel_format("420", 8, &fmt).is_ok());
  YuvClip ref, dist;
  ASSERT_TRUE(ref.open(ref_path, 576, 324, fmt).is_ok());
  ASSERT_TRUE(dist.open(small, 288, 162, fmt).is_ok());
  ASSERT_EQ(ref.frames(), dist.frames());
  for (unsigned threads : {0u, 2u}) {
    ScorerConfig cfg = scorer_config("vmaf_v0.6.1", {"psnr", "float_ssim", "float_ms_ssim", "cambi"});
    cfg.threads = threads;
    cfg.scale = ScaleMethod::bicubic;
    FrameLog log;
    cfg.on_frame = [&log](const FrameScore& fs) { log.add(fs); };
    StreamGeometry g;
    g.ref = {576, 324, 8, Chroma::k420};
    g.dist = {288, 162, 8, Chroma::k420};
    std::unique_ptr<Scorer> scorer;
    Status s = Scorer::create(cfg, g, &scorer);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    for (size_t i = 0; i < ref.frames(); i++)
      ASSERT_TRUE(scorer->submit(frame_pair(ref.frame(i), dist.frame(i), int64_t(i), i)).is_ok());
    ASSERT_TRUE(scorer->flush().is_ok());
    const auto frames = log.frames();
    ASSERT_EQ(frames.size(), oracle.frames.size());
    size_t compared = 0;
    for (size_t k = 0; k < frames.size(); k++) {
      for (const auto& [metric, want] : oracle.frames[k]) {
        const double have = frames[k].get(metric, scorer->score_names());
        ASSERT_FALSE(std::isnan(have)) << metric;
        EXPECT_NEAR(have, want, tolerance_for(metric)) << metric << " frame " << k << " threads " << threads;
        compared++;
      }
    }
    EXPECT_GT(compared, frames.size() * 16);
  }
  // Without a scaling method the sizes must agree, and the error says how to fix it.
  ScorerConfig cfg = scorer_config("vmaf_v0.6.1");
  cfg.scale = ScaleMethod::none;
  StreamGeometry g;
  g.ref = {576, 324, 8, Chroma::k420};
  g.dist = {288, 162, 8, Chroma::k420};
  std::unique_ptr<Scorer> scorer;
  const Status s = Scorer::create(cfg, g, &scorer);
  EXPECT_EQ(s.code(), Errc::unsupported);
  EXPECT_NE(s.message().find("bicubic"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace vmafx::test

namespace vmafx::test {
namespace {

// The HFR models' motion (five-frame window: frame i against frame i - 2, moving average, max 18) through the
// scorer, which keeps the reference two frames back: equal doubles to scratch libvmaf's full-precision oracle of the
// sample pair (tests/data, 10 frames), with and without worker threads.
TEST(MotionThroughScorer, FiveFrameWindowMatchesLibvmafExactly) {
  PairClips c;
  ASSERT_TRUE(open_sample_pair(&c).is_ok());
  Oracle o;
  ASSERT_TRUE(load_oracle(project_data_dir() + "/sample_320x240_dist.adm_motion_options.json", &o).is_ok());
  const size_t n = o.frames.size();
  for (unsigned threads : {0u, 3u}) {
    ScorerConfig cfg = scorer_config("");
    cfg.threads = threads;
    cfg.features = {{"motion",
                     {{"motion_five_frame_window", "true"}, {"motion_moving_average", "true"},
                      {"motion_max_val", "18"}}}};
    FrameLog log;
    std::unique_ptr<Scorer> scorer;
    ASSERT_TRUE(make_scorer(cfg, {c.ref.width(), c.ref.height(), 8, Chroma::k420}, &log, &scorer).is_ok());
    std::atomic<int> released{0};
    for (size_t i = 0; i < n; i++)
      ASSERT_TRUE(
          scorer->submit(frame_pair(c.ref.frame(i), c.dist.frame(i), int64_t(i), i, [&] { released++; })).is_ok());
    ASSERT_TRUE(scorer->flush().is_ok());
    EXPECT_EQ(released.load(), int(n));
    const auto frames = log.frames();
    ASSERT_EQ(frames.size(), n);
    for (size_t i = 0; i < n; i++) {
      for (const char* col : {"VMAF_integer_feature_motion_sad_score", "integer_motion2", "integer_motion3"}) {
        const std::string name = std::string(col) + "_mffw_mmxv_18_mma";
        EXPECT_EQ(frames[i].get(name, scorer->score_names()), o.frames[i].at(name)) << name << " frame " << i;
      }
    }
  }
}

}  // namespace
}  // namespace vmafx::test
