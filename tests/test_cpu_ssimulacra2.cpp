// SPDX-License-Identifier: LGPL-2.1-or-later
// SSIMULACRA 2.1 (the ssimulacra2 feature) through the scorer's CPU backend against the reference tool's scores
// (tests/data/ssimulacra2/, README there: the tool run on PFM files of the engine's own R'G'B' of every frame): the
// derived clips of the sample pair (8, 10, 12, 16 bits; 4:2:0, 4:2:2, 4:4:4; identical pairs; 640x480), two
// matrix / range options, and the public pairs when ../shared is present; each frame within
// kSsimulacra2VsReference. Plus the option rules, the scales of small pictures, identical pictures and refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/ssimulacra2.h"
#include "derived_clips.h"
#include "features/table.h"
#include "support.h"
#include "tolerances.h"

namespace vmafx {
namespace {

struct Tally {
  unsigned frames = 0;
  double worst = 0;
};

void expect_near_oracle(const test::YuvClip& ref, const test::YuvClip& dist, const VideoGeometry& g,
                        const features::OptionList& opts, const std::string& oracle, unsigned threads, Tally* t) {
  test::Oracle o;
  ASSERT_OK(test::load_oracle(test::project_data_dir() + "/ssimulacra2/" + oracle + ".json", &o));
  ScorerConfig cfg;
  cfg.models.clear();
  cfg.features = {{"ssimulacra2", opts}};
  cfg.threads = threads;
  test::FrameLog log;
  std::unique_ptr<Scorer> s;
  ASSERT_OK(test::make_scorer(cfg, g, &log, &s));
  ASSERT_EQ(s->score_names(), std::vector<std::string>{"ssimulacra2"});
  ASSERT_EQ(ref.frames(), o.frames.size()) << oracle;
  for (size_t i = 0; i < ref.frames(); i++)
    ASSERT_OK(s->submit(test::frame_pair(ref.frame(i), dist.frame(i), int64_t(i), i)));
  ASSERT_OK(s->flush());
  const auto frames = log.frames();
  ASSERT_EQ(frames.size(), o.frames.size());
  for (size_t f = 0; f < frames.size(); f++) {
    const double want = o.frames[f].at("ssimulacra2");
    const double ours = frames[f].get("ssimulacra2", s->score_names());
    EXPECT_NEAR(ours, want, test::kSsimulacra2VsReference) << oracle << " frame " << f;
    t->worst = std::max(t->worst, std::fabs(ours - want));
    t->frames++;
  }
}

void check_derived(const std::string& clip, const std::string& oracle, const features::OptionList& opts,
                   unsigned threads, Tally* t) {
  const test::DerivedClip* c = test::find_derived_clip(clip);
  ASSERT_NE(c, nullptr);
  test::PairClips pc;
  ASSERT_OK(test::open_derived_clip(*c, &pc));
  expect_near_oracle(pc.ref, pc.dist, test::derived_geometry(*c), opts, oracle, threads, t);
}

TEST(CpuSsimulacra2, DerivedClipsMatchTheReferenceTool) {
  Tally t;
  unsigned threads = 0;
  for (const char* c : {"sample", "sample_same", "d10", "d12", "d16", "d16_same", "x2"}) {
    check_derived(c, c, {}, threads, &t);
    threads = threads ? 0 : 2;
  }
  EXPECT_EQ(t.frames, 24u + 6 + 6 + 4 + 4 + 2 + 3);
  std::printf("  derived clips: %u frames, max |ours - reference tool| %.3g\n", t.frames, t.worst);
}

TEST(CpuSsimulacra2, MatrixAndRangeOptionsMatchTheReferenceTool) {
  Tally t;
  check_derived("d10", "d10.bt2020_full", {{"yuv_matrix", "bt2020"}, {"yuv_range", "full"}}, 2, &t);
  check_derived("sample", "sample.bt709", {{"yuv_matrix", "bt709"}, {"yuv_range", "limited"}}, 0, &t);
  EXPECT_EQ(t.frames, 30u);
  std::printf("  bt2020 full, bt709 limited: %u frames, max |ours - reference tool| %.3g\n", t.frames, t.worst);
}

TEST(CpuSsimulacra2, PublicPairsMatchTheReferenceTool) {
  std::vector<std::string> absent, checked;
  Tally t;
  unsigned threads = 2;
  for (const test::Pair& p : test::present_pairs(&absent)) {
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(p, &c));
    expect_near_oracle(c.ref, c.dist, {p.width, p.height, uint8_t(p.bpc), Chroma::k420}, {}, p.name(), threads, &t);
    threads = threads ? 0 : 2;
    checked.push_back(p.name());
  }
  test::print_pair_coverage(checked, absent);
  if (checked.empty()) GTEST_SKIP() << "no public pair in ../shared/testdata";
  std::printf("  public pairs: %u frames, max |ours - reference tool| %.3g\n", t.frames, t.worst);
}

// Identical pictures score exactly 100 (every map is 0), whatever the content.
TEST(CpuSsimulacra2, IdenticalPicturesScore100) {
  test::PairClips c;
  ASSERT_OK(test::open_sample_pair(&c));
  cpu::Ssimulacra2 s2;
  cpu::Ssimulacra2Options o;
  ASSERT_OK(s2.init(320, 240, 8, Chroma::k420, o));
  for (size_t f : {size_t(0), size_t(7), size_t(23)}) {
    double v = 0;
    ASSERT_OK(s2.compute(c.ref.frame(f), c.ref.frame(f), &v));
    EXPECT_EQ(v, 100.0);
    ASSERT_OK(s2.compute(c.ref.frame(f), c.dist.frame(f), &v));
    EXPECT_LT(v, 100.0);
    EXPECT_GT(v, 0.0);
  }
}

TEST(CpuSsimulacra2, OptionsResolveAsDocumented) {
  cpu::Ssimulacra2Options o;
  ASSERT_OK(cpu::ssimulacra2_resolve("auto", "auto", 720, 576, &o));
  EXPECT_EQ(o.matrix, cpu::YuvMatrix::bt601);
  EXPECT_FALSE(o.full_range);
  ASSERT_OK(cpu::ssimulacra2_resolve("auto", "full", 1280, 720, &o));
  EXPECT_EQ(o.matrix, cpu::YuvMatrix::bt709);
  EXPECT_TRUE(o.full_range);
  ASSERT_OK(cpu::ssimulacra2_resolve("bt2020", "limited", 320, 240, &o));
  EXPECT_EQ(o.matrix, cpu::YuvMatrix::bt2020);
  const Status bad = cpu::ssimulacra2_resolve("smpte240m", "auto", 320, 240, &o);
  EXPECT_EQ(bad.code(), Errc::invalid_argument);
  EXPECT_NE(bad.message().find("yuv_matrix"), std::string::npos);
  EXPECT_EQ(cpu::ssimulacra2_resolve("auto", "tv", 320, 240, &o).code(), Errc::invalid_argument);
  // Limited range: black (16) and white (235) are 0 and 1; full range 0 and 2^bits - 1.
  const S2Yuv lim = cpu::ssimulacra2_yuv({cpu::YuvMatrix::bt709, false}, 10);
  float rgb[3];
  s2_yuv_encoded(lim, 940, 512, 512, rgb);
  for (int c = 0; c < 3; c++) EXPECT_NEAR(rgb[c], 1.0f, 1e-6f);
  s2_yuv_encoded(lim, 64, 512, 512, rgb);
  EXPECT_EQ(rgb[0], 0.0f);
  const S2Yuv full = cpu::ssimulacra2_yuv({cpu::YuvMatrix::bt601, true}, 8);
  s2_yuv_encoded(full, 255, 128, 128, rgb);
  EXPECT_NEAR(rgb[1], 1.0f, 1e-6f);
  s2_yuv_encoded(full, 0, 128, 128, rgb);
  EXPECT_EQ(rgb[1], 0.0f);
}

TEST(CpuSsimulacra2, SmallPicturesHaveFewerScales) {
  EXPECT_EQ(cpu::ssimulacra2_scales(1920, 1080).count, 6);
  EXPECT_EQ(cpu::ssimulacra2_scales(8, 8).count, 2);     // 8x8, then 4x4 (the 8x8 scale before it is large enough)
  EXPECT_EQ(cpu::ssimulacra2_scales(15, 200).count, 3);  // 15, 8, 4 columns
  const cpu::Ssimulacra2Scales s = cpu::ssimulacra2_scales(321, 241);
  EXPECT_EQ(s.count, 6);
  EXPECT_EQ(s.w[5], 11u);
  EXPECT_EQ(s.h[5], 8u);
}

Status make_with(const features::OptionList& opts, const VideoGeometry& g) {
  ScorerConfig cfg;
  cfg.models.clear();
  cfg.features = {{"ssimulacra2", opts}};
  StreamGeometry sg;
  sg.ref = g;
  sg.dist = g;
  std::unique_ptr<Scorer> s;
  return Scorer::create(cfg, sg, &s);
}

TEST(CpuSsimulacra2, RefusesWhatItCannotScore) {
  const Status small = make_with({}, {7, 64, 8, Chroma::k444});
  EXPECT_EQ(small.code(), Errc::unsupported) << small.message();
  EXPECT_NE(small.message().find("8x8"), std::string::npos) << small.message();
  EXPECT_EQ(make_with({{"yuv_matrix", "xyz"}}, {64, 64, 8, Chroma::k420}).code(), Errc::invalid_argument);
  EXPECT_EQ(make_with({{"yuv_gamma", "2.2"}}, {64, 64, 8, Chroma::k420}).code(), Errc::unsupported);
  const Status ok = make_with({{"yuv_range", "full"}}, {8, 8, 8, Chroma::k400});
  EXPECT_TRUE(ok.is_ok()) << ok.message();
}

// 4:0:0 is read as neutral chroma: the same as a 4:4:4 picture whose chroma planes are all mid-grey.
TEST(CpuSsimulacra2, GrayIsNeutralChroma) {
  const uint32_t w = 48, h = 40;
  std::vector<uint8_t> a(size_t(w) * h * 3), b(size_t(w) * h * 3);
  for (uint32_t i = 0; i < w * h; i++) {
    a[i] = uint8_t(16 + (i * 37) % 220);
    b[i] = uint8_t(16 + (i * 41 + 3) % 220);
    for (int p = 1; p < 3; p++) a[p * w * h + i] = b[p * w * h + i] = 128;
  }
  auto view = [&](const std::vector<uint8_t>& d, Chroma c) {
    FormatInfo fmt;
    (void)parse_pixel_format(c == Chroma::k400 ? "400" : "444", 8, &fmt);
    PlaneLayout lay[3];
    size_t fs = 0;
    const unsigned n = packed_layout(fmt, w, h, lay, &fs);
    PictureView v;
    EXPECT_TRUE(make_picture_view(fmt, w, h, d.data(), d.size(), lay, n, &v).is_ok());
    return v;
  };
  cpu::Ssimulacra2 g, c;
  ASSERT_OK(g.init(w, h, 8, Chroma::k400, {}));
  ASSERT_OK(c.init(w, h, 8, Chroma::k444, {}));
  double vg = 0, vc = 0;
  ASSERT_OK(g.compute(view(a, Chroma::k400), view(b, Chroma::k400), &vg));
  ASSERT_OK(c.compute(view(a, Chroma::k444), view(b, Chroma::k444), &vc));
  EXPECT_EQ(vg, vc);
  EXPECT_LT(vg, 100.0);
}

}  // namespace
}  // namespace vmafx
