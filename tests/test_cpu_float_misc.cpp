// SPDX-License-Identifier: LGPL-2.1-or-later
// float_psnr, float_ansnr, float_moment and speed_temporal (libvmaf 3.2's extractors) through the scorer's CPU
// backend against libvmaf's full-precision JSON (tests/data/float_misc/, tests/data/speed_temporal/; %.17g), every
// value of every frame bit for bit: the clips tests/support/derived_clips.cpp derives from the sample pair (8, 10,
// 12, 16 bits; 4:2:0, 4:2:2, 4:4:4; identical pairs; a 640x480 copy), speed_temporal's options, and the public pairs
// when ../shared is present (also the 288x162 clip scaled up, which reads the previous distorted frame through the
// scaler). Plus the refusals (sizes, depths, speed_temporal's enlarging prescale) and the table entries.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/float_ansnr.h"
#include "cpu/float_psnr.h"
#include "cpu/speed.h"
#include "derived_clips.h"
#include "features/table.h"
#include "support.h"

namespace vmafx {
namespace {

const std::vector<FeatureRequest>& float_misc_features() {
  static const std::vector<FeatureRequest> f = {{"float_psnr", {}}, {"float_ansnr", {}}, {"float_moment", {}}};
  return f;
}

// The option sets of tests/data/speed_temporal/sample.options.json and x2.options.json, in the file's order.
std::vector<FeatureRequest> speed_option_features(const std::string& clip) {
  if (clip == "x2")
    return {{"speed_temporal", {{"speed_prescale", "0.25"}, {"speed_prescale_method", "bilinear"}}},
            {"speed_temporal", {{"speed_kernelscale", "1.5"}, {"speed_use_ref_diff", "true"}}}};
  return {
      {"speed_temporal", {{"speed_prescale", "0.5"}, {"speed_prescale_method", "bilinear"}}},
      {"speed_temporal", {{"speed_prescale", "0.7"}, {"speed_prescale_method", "lanczos4"}, {"speed_max_val", "2"}}},
      {"speed_temporal", {{"speed_prescale", "0.6"}, {"speed_prescale_method", "bicubic"}}},
      {"speed_temporal", {{"speed_prescale", "0.8"}}},
      {"speed_temporal", {{"speed_kernelscale", "2"}, {"speed_sigma_nn", "0.5"}}},
      {"speed_temporal", {{"speed_kernelscale", "0.5"}, {"speed_nn_floor", "0.3"}}},
      {"speed_temporal", {{"speed_use_ref_diff", "true"}}},
      {"speed_temporal", {{"speed_use_ref_diff", "true"}, {"speed_prescale", "0.5"}, {"speed_prescale_method",
                                                                                     "nearest"}}},
  };
}

struct Tally {
  unsigned frames = 0, values = 0, differ = 0;
  double worst = 0;
};

// Scores every frame of ref/dist (dist at dist_g) with `features` on the CPU backend and compares each value the
// oracle holds with ours, bit for bit.
void expect_matches(const test::YuvClip& ref, const test::YuvClip& dist, const VideoGeometry& g,
                    const VideoGeometry& dist_g, const std::vector<FeatureRequest>& features, const test::Oracle& o,
                    unsigned threads, const std::string& what, Tally* t) {
  ScorerConfig cfg;
  cfg.models.clear();
  cfg.features = features;
  cfg.threads = threads;
  test::FrameLog log;
  cfg.on_frame = [&log](const FrameScore& fs) { log.add(fs); };
  StreamGeometry sg;
  sg.ref = g;
  sg.dist = dist_g;
  std::unique_ptr<Scorer> scorer;
  ASSERT_OK(Scorer::create(cfg, sg, &scorer));
  ASSERT_EQ(ref.frames(), o.frames.size()) << what;
  for (size_t i = 0; i < ref.frames(); i++)
    ASSERT_OK(scorer->submit(test::frame_pair(ref.frame(i), dist.frame(i), int64_t(i), i)));
  ASSERT_OK(scorer->flush());
  const std::vector<FrameScore> frames = log.frames();
  ASSERT_EQ(frames.size(), o.frames.size()) << what;
  for (size_t f = 0; f < frames.size(); f++) {
    ASSERT_FALSE(o.frames[f].empty()) << what;
    for (const auto& [name, want] : o.frames[f]) {
      const double ours = frames[f].get(name, scorer->score_names());
      EXPECT_EQ(ours, want) << what << " frame " << f << " " << name;
      if (ours != want) t->differ++;
      t->worst = std::max(t->worst, std::fabs(ours - want));
      t->values++;
    }
    t->frames++;
  }
}

std::string oracle_path(const std::string& folder, const std::string& name) {
  return test::project_data_dir() + "/" + folder + "/" + name + ".json";
}

void check_derived(const std::string& folder, const std::string& clip, const std::string& file,
                   const std::vector<FeatureRequest>& features, unsigned threads, Tally* t) {
  const test::DerivedClip* c = test::find_derived_clip(clip);
  ASSERT_NE(c, nullptr) << clip;
  test::PairClips pc;
  ASSERT_OK(test::open_derived_clip(*c, &pc));
  test::Oracle o;
  ASSERT_OK(test::load_oracle(oracle_path(folder, file), &o));
  const VideoGeometry g = test::derived_geometry(*c);
  expect_matches(pc.ref, pc.dist, g, g, features, o, threads, file, t);
}

TEST(CpuFloatMisc, DerivedClipsMatchLibvmafBitForBit) {
  Tally t;
  unsigned threads = 0;
  for (const test::DerivedClip& c : test::derived_clips()) {
    check_derived("float_misc", c.name, c.name, float_misc_features(), threads, &t);
    threads = threads ? 0 : 2;  // alternately on the caller's thread and on two workers
  }
  EXPECT_EQ(t.differ, 0u);
  EXPECT_GE(t.values, 7u * 50);
  std::printf("  float_psnr, float_ansnr, float_moment on %zu derived clips: %u frames, %u values, max |ours - "
              "libvmaf| %.3g\n", test::derived_clips().size(), t.frames, t.values, t.worst);
}

TEST(CpuSpeedTemporal, DerivedClipsMatchLibvmafBitForBit) {
  Tally t;
  unsigned threads = 2;
  for (const test::DerivedClip& c : test::derived_clips()) {
    check_derived("speed_temporal", c.name, c.name, {{"speed_temporal", {}}}, threads, &t);
    threads = threads ? 0 : 2;
  }
  EXPECT_EQ(t.differ, 0u);
  std::printf("  speed_temporal on %zu derived clips: %u frames, max |ours - libvmaf| %.3g\n",
              test::derived_clips().size(), t.frames, t.worst);
}

TEST(CpuSpeedTemporal, OptionsMatchLibvmafBitForBit) {
  Tally t;
  check_derived("speed_temporal", "sample", "sample.options", speed_option_features("sample"), 2, &t);
  check_derived("speed_temporal", "x2", "x2.options", speed_option_features("x2"), 0, &t);
  EXPECT_EQ(t.differ, 0u);
  EXPECT_EQ(t.values, 24u * 8 + 3u * 2);
  std::printf("  speed_temporal, 10 option sets: %u values, max |ours - libvmaf| %.3g\n", t.values, t.worst);
}

TEST(CpuFloatMisc, PublicPairsMatchLibvmafBitForBit) {
  std::vector<std::string> absent, checked;
  Tally t;
  unsigned threads = 0;
  for (const test::Pair& p : test::present_pairs(&absent)) {
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(p, &c));
    const VideoGeometry g{p.width, p.height, uint8_t(p.bpc), Chroma::k420};
    test::Oracle o;
    ASSERT_OK(test::load_oracle(oracle_path("float_misc", p.name()), &o));
    expect_matches(c.ref, c.dist, g, g, float_misc_features(), o, threads, p.name(), &t);
    ASSERT_OK(test::load_oracle(oracle_path("speed_temporal", p.name()), &o));
    expect_matches(c.ref, c.dist, g, g, {{"speed_temporal", {}}}, o, threads ? 0 : 2, p.name(), &t);
    threads = threads ? 0 : 2;
    checked.push_back(p.name());
  }
  test::print_pair_coverage(checked, absent);
  if (checked.empty()) GTEST_SKIP() << "no public pair in ../shared/testdata";
  EXPECT_EQ(t.differ, 0u);
  std::printf("  public pairs: %u frames, %u values, max |ours - libvmaf| %.3g\n", t.frames, t.values, t.worst);
}

// speed_temporal reads the previous distorted picture: with a distorted stream of another size the CPU backend scales
// it too. The 288x162 clip scaled up with bicubic is, sample for sample, a_576x324_8b_down288 (docs/features.md).
TEST(CpuSpeedTemporal, ScaledDistortedStreamReadsThePreviousFrameScaled) {
  const std::string small = test::shared_testdata_dir() + "/a_288x162_8b_down288_small.yuv";
  const test::Pair* p = test::find_public_pair("a_576x324_8b");
  if (!p || !test::file_exists(small) || !test::file_exists(p->ref_path()))
    GTEST_SKIP() << "needs a_576x324_8b_ref.yuv and a_288x162_8b_down288_small.yuv in ../shared/testdata";
  FormatInfo fmt;
  ASSERT_OK(parse_pixel_format("420", 8, &fmt));
  test::YuvClip ref, dist;
  ASSERT_OK(ref.open(p->ref_path(), 576, 324, fmt));
  ASSERT_OK(dist.open(small, 288, 162, fmt));
  test::Oracle o;
  ASSERT_OK(test::load_oracle(oracle_path("speed_temporal", "a_576x324_8b_down288"), &o));
  Tally t;
  expect_matches(ref, dist, {576, 324, 8, Chroma::k420}, {288, 162, 8, Chroma::k420}, {{"speed_temporal", {}}}, o, 2,
                 "a down288 (scaled)", &t);
  EXPECT_EQ(t.differ, 0u);
  EXPECT_EQ(t.frames, 48u);
}

// ---- refusals and the table -----------------------------------------------------------------------------------

Status make_with(const FeatureRequest& f, const VideoGeometry& g) {
  ScorerConfig cfg;
  cfg.models.clear();
  cfg.features = {f};
  StreamGeometry sg;
  sg.ref = g;
  sg.dist = g;
  std::unique_ptr<Scorer> s;
  return Scorer::create(cfg, sg, &s);
}

TEST(CpuFloatMisc, RefusesWhatLibvmafCannotScore) {
  for (const char* f : {"float_psnr", "float_ansnr", "float_moment", "speed_temporal"}) {
    const Status s = make_with({f, {}}, {320, 240, 9, Chroma::k420});
    EXPECT_EQ(s.code(), Errc::unsupported) << f << ": " << s.message();
    EXPECT_NE(s.message().find("bit depth 9"), std::string::npos) << s.message();
  }
  const Status tiny = make_with({"float_ansnr", {}}, {2, 8, 8, Chroma::k444});
  EXPECT_EQ(tiny.code(), Errc::unsupported) << tiny.message();
  EXPECT_NE(tiny.message().find("3x3"), std::string::npos) << tiny.message();
  { const Status s_ = make_with({"float_ansnr", {}}, {3, 3, 8, Chroma::k444}); EXPECT_TRUE(s_.is_ok()) << s_.message(); }
  { const Status s_ = make_with({"float_psnr", {}}, {1, 1, 8, Chroma::k444}); EXPECT_TRUE(s_.is_ok()) << s_.message(); }
  const Status small = make_with({"speed_temporal", {}}, {79, 240, 8, Chroma::k420});
  EXPECT_EQ(small.code(), Errc::unsupported) << small.message();
  EXPECT_NE(small.message().find("80x80"), std::string::npos) << small.message();
  { const Status s_ = make_with({"speed_temporal", {}}, {80, 80, 8, Chroma::k420}); EXPECT_TRUE(s_.is_ok()) << s_.message(); }
  // An enlarging prescale makes libvmaf write past its frame buffers.
  const Status up = make_with({"speed_temporal", {{"speed_prescale", "1.5"}}}, {320, 240, 8, Chroma::k420});
  EXPECT_EQ(up.code(), Errc::unsupported) << up.message();
  EXPECT_NE(up.message().find("past its frame buffers"), std::string::npos) << up.message();
  EXPECT_EQ(make_with({"speed_temporal", {{"speed_prescale", "5"}}}, {320, 240, 8, Chroma::k420}).code(),
            Errc::invalid_argument);
  EXPECT_EQ(make_with({"float_psnr", {{"enable_chroma", "true"}}}, {320, 240, 8, Chroma::k420}).code(),
            Errc::unsupported);
}

TEST(CpuFloatMisc, TableHasEveryLibvmafExtractorImplemented) {
  for (const features::FeatureDesc& d : features::table()) EXPECT_TRUE(d.implemented()) << d.name;
  const features::FeatureDesc* st = features::find("speed_temporal");
  ASSERT_NE(st, nullptr);
  EXPECT_TRUE(st->temporal);
  EXPECT_EQ(st->references_back(features::Options()), 1u);
  EXPECT_EQ(features::provider_of("Speed_temporal_feature_speed_temporal_score"), st);
  EXPECT_EQ(features::provider_of("float_ansnr"), features::find("float_ansnr"));
}

// The first frame of speed_temporal is 0 (no difference yet), also when it is the only one.
TEST(CpuSpeedTemporal, FirstFrameScoresZero) {
  test::PairClips c;
  ASSERT_OK(test::open_sample_pair(&c));
  ScorerConfig cfg;
  cfg.models.clear();
  cfg.features = {{"speed_temporal", {}}};
  test::FrameLog log;
  std::unique_ptr<Scorer> s;
  ASSERT_OK(test::make_scorer(cfg, {320, 240, 8, Chroma::k420}, &log, &s));
  ASSERT_OK(s->submit(test::frame_pair(c.ref.frame(5), c.dist.frame(5), 0, 0)));
  ASSERT_OK(s->flush());
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log.frames()[0].get("speed_temporal", s->score_names()), 0.0);
}

// The GPU's exactness rule: the sums of every picture the bound allows stay exact doubles.
TEST(CpuFloatMisc, SumsAreExactWhereTheBoundSaysSo) {
  EXPECT_TRUE(cpu::float_sums_exact(7680, 4320, 12));
  EXPECT_TRUE(cpu::float_sums_exact(1920, 1080, 16));
  EXPECT_FALSE(cpu::float_sums_exact(2048, 1024, 16));  // 2^21 pixels
  EXPECT_TRUE(cpu::float_sums_exact(2047, 1024, 16));
  // The worst case below the bound: every squared 16-bit difference at its largest, added as libvmaf adds them,
  // equals the integer sum.
  const uint32_t w = 2047, h = 1024;
  std::vector<uint16_t> a(size_t(w) * h, 65535), b(size_t(w) * h, 0);
  cpu::Plane pa;
  pa.data = reinterpret_cast<const uint8_t*>(a.data());
  pa.stride = ptrdiff_t(w) * 2;
  pa.w = w;
  pa.h = h;
  pa.bytes = 2;
  pa.bpc = 16;
  cpu::Plane pb = pa;
  pb.data = reinterpret_cast<const uint8_t*>(b.data());
  const double sum = cpu::float_psnr_noise_sum(pa, pb);
  const float term = (65535.0f / 256.0f) * (65535.0f / 256.0f);
  const uint64_t units = uint64_t(term * 65536.0f) * uint64_t(w) * h;
  EXPECT_LT(units, uint64_t(1) << 53);
  EXPECT_EQ(sum, double(units) / 65536.0);
}

}  // namespace
}  // namespace vmafx
