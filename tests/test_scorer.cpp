// SPDX-License-Identifier: LGPL-2.1-or-later
// The Scorer's contract (vmafx/scorer.h), on the CPU backend: frames come out in order, once each, from whichever
// thread finished them and outside the scorer's locks; release callbacks run exactly once, also on failure and on
// destruction; unscored frames keep the next frame's motion exact; several models and feature options in one pass
// equal the single runs; the errors at the boundary name their cause. Synthetic pictures: runs without ../shared.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <future>
#include <random>
#include <thread>

#include "support.h"
#include "vmafx/scorer.h"

namespace vmafx::test {
namespace {

// A sequence of 8-bit 4:2:0 frames with texture and motion, and a distorted copy (quantised, with noise).
struct Synthetic {
  uint32_t w, h;
  FormatInfo fmt{PixelFormat::i420, Chroma::k420, 8};
  PlaneLayout layout[3];
  unsigned planes = 0;
  size_t size = 0;
  std::vector<std::vector<uint8_t>> ref, dist;

  Synthetic(uint32_t width, uint32_t height, unsigned frames) : w(width), h(height) {
    planes = packed_layout(fmt, w, h, layout, &size);
    std::mt19937 rng(7);
    for (unsigned f = 0; f < frames; f++) {
      std::vector<uint8_t> r(size), d(size);
      for (size_t i = 0; i < size; i++) {
        const uint32_t x = uint32_t(i % w), y = uint32_t(i / w);
        r[i] = uint8_t((x * 3 + y * 5 + f * 7 + ((x / 8 + y / 8) % 2) * 60) & 0xff);
        // Coarse quantisation plus noise: a distortion strong enough that no model saturates at 100.
        d[i] = uint8_t(std::min(255, std::max(0, int(r[i] / 24 * 24) + int(rng() % 41) - 20)));
      }
      ref.push_back(std::move(r));
      dist.push_back(std::move(d));
    }
  }
  PictureView view(const std::vector<uint8_t>& data) const {
    PictureView v;
    EXPECT_TRUE(make_picture_view(fmt, w, h, data.data(), size, layout, planes, &v).is_ok());
    return v;
  }
  VideoGeometry geometry() const { return {w, h, 8, Chroma::k420}; }
};

struct ScoreResult {
  Status status;
  std::vector<std::string> names;
  std::vector<FrameScore> frames;
};

ScoreResult run_frames(ScorerConfig cfg, const Synthetic& s, const std::vector<bool>& scored = {}) {
  ScoreResult r;
  FrameLog log;
  std::unique_ptr<Scorer> scorer;
  r.status = make_scorer(cfg, s.geometry(), &log, &scorer);
  if (!r.status) return r;
  r.names = scorer->score_names();
  for (size_t i = 0; i < s.ref.size(); i++) {
    FramePair p = frame_pair(s.view(s.ref[i]), s.view(s.dist[i]), int64_t(i) * 1000, i);
    if (!scored.empty()) p.scored = scored[i];
    r.status = scorer->submit(std::move(p));
    if (!r.status) return r;
  }
  r.status = scorer->flush();
  r.frames = log.frames();
  return r;
}

double value(const ScoreResult& r, size_t frame, const std::string& name) { return r.frames[frame].get(name, r.names); }

TEST(Scorer, FramesComeOutInOrderOnceEachForEveryThreadCount) {
  const Synthetic s(96, 64, 12);
  ScoreResult base;
  for (unsigned threads : {0u, 1u, 2u, 5u}) {
    ScorerConfig cfg = scorer_config("vmaf_v0.6.1", {"psnr", "float_ssim"});
    cfg.threads = threads;
    const ScoreResult r = run_frames(cfg, s);
    ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
    ASSERT_EQ(r.frames.size(), s.ref.size()) << "threads " << threads;
    for (size_t k = 0; k < r.frames.size(); k++) {
      EXPECT_EQ(r.frames[k].index, k);
      EXPECT_EQ(r.frames[k].timestamp, int64_t(k) * 1000) << "the timestamp travels with its frame";
      EXPECT_EQ(r.frames[k].user, k);
    }
    if (threads == 0) {
      base = r;
      continue;
    }
    ASSERT_EQ(r.names, base.names);
    for (size_t k = 0; k < r.frames.size(); k++)
      for (size_t c = 0; c < r.names.size(); c++)
        EXPECT_EQ(r.frames[k].values[c], base.frames[k].values[c]) << r.names[c] << " frame " << k << " threads "
                                                                   << threads;
  }
}

TEST(Scorer, CallbacksRunOutsideTheScorersLocksAndReleaseOnce) {
  const Synthetic s(64, 48, 10);
  // Both callbacks call back into the scorer's getters (which take its lock): under a lock this deadlocks, so the
  // run is bounded and the test says what it waited for.
  auto fut = std::async(std::launch::async, [&] {
    ScorerConfig cfg = scorer_config("vmaf_v0.6.1");
    cfg.threads = 2;
    std::atomic<Scorer*> self{nullptr};
    std::atomic<int> frames{0};
    cfg.on_frame = [&](const FrameScore&) {
      if (Scorer* sc = self.load()) (void)sc->frames_submitted();
      frames++;
    };
    std::unique_ptr<Scorer> scorer;
    StreamGeometry g;
    g.ref = s.geometry();
    EXPECT_TRUE(Scorer::create(cfg, g, &scorer).is_ok());
    self = scorer.get();
    std::vector<std::atomic<int>> released(s.ref.size());
    for (size_t i = 0; i < s.ref.size(); i++) {
      FramePair p = frame_pair(s.view(s.ref[i]), s.view(s.dist[i]), int64_t(i), i, [&, i] {
        (void)self.load()->frames_submitted();
        released[i]++;
      });
      EXPECT_TRUE(scorer->submit(std::move(p)).is_ok());
    }
    EXPECT_TRUE(scorer->flush().is_ok());
    for (size_t i = 0; i < s.ref.size(); i++) EXPECT_EQ(released[i].load(), 1) << "frame " << i << " released once";
    return frames.load();
  });
  ASSERT_EQ(fut.wait_for(std::chrono::seconds(300)), std::future_status::ready)
      << "scoring 10 small frames did not finish in 300 s: a callback ran under the scorer's lock (deadlock)";
  EXPECT_EQ(fut.get(), 10);
}

TEST(Scorer, DestroyingWithoutFlushReleasesEveryPicture) {
  const Synthetic s(64, 48, 6);
  std::atomic<int> released{0}, frames{0};
  {
    ScorerConfig cfg = scorer_config("vmaf_v0.6.1");
    cfg.threads = 2;
    cfg.on_frame = [&](const FrameScore&) { frames++; };
    std::unique_ptr<Scorer> scorer;
    StreamGeometry g;
    g.ref = s.geometry();
    ASSERT_TRUE(Scorer::create(cfg, g, &scorer).is_ok());
    for (size_t i = 0; i < s.ref.size(); i++)
      ASSERT_TRUE(
          scorer->submit(frame_pair(s.view(s.ref[i]), s.view(s.dist[i]), 0, i, [&] { released++; })).is_ok());
  }
  EXPECT_EQ(released.load(), 6);
  EXPECT_LT(frames.load(), 6) << "the last frame's motion is never final without flush";
}

TEST(Scorer, UnscoredFramesGiveNoScoreAndKeepMotionExact) {
  const Synthetic s(80, 48, 8);
  const ScorerConfig cfg = scorer_config("vmaf_v0.6.1", {"psnr"});
  const ScoreResult all = run_frames(cfg, s);
  ASSERT_TRUE(all.status.is_ok());
  std::vector<bool> scored(8, true);
  scored[2] = scored[5] = false;
  const ScoreResult some = run_frames(cfg, s, scored);
  ASSERT_TRUE(some.status.is_ok()) << some.status.to_string();
  ASSERT_EQ(some.frames.size(), 6u);
  size_t k = 0;
  for (size_t i = 0; i < 8; i++) {
    if (!scored[i]) continue;
    ASSERT_EQ(some.frames[k].index, i);
    for (size_t c = 0; c < all.names.size(); c++)
      EXPECT_EQ(some.frames[k].values[c], all.frames[i].values[c]) << all.names[c] << " frame " << i;
    k++;
  }
  EXPECT_GT(value(all, 3, "integer_motion2"), 0.0) << "the clip moves: the comparison above is not vacuous";
}

TEST(Scorer, TwoModelsInOnePassEqualTheSingleRuns) {
  const Synthetic s(96, 64, 6);
  ScorerConfig both = scorer_config("");
  both.models = {ModelRequest{"vmaf_v0.6.1", "vmaf", false, false, {}},
                 ModelRequest{"vmaf_4k_v0.6.1", "vmaf_4k", false, false, {}}};
  const ScoreResult r = run_frames(both, s);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  const ScoreResult a = run_frames(scorer_config("vmaf_v0.6.1"), s);
  ScorerConfig four_k = scorer_config("vmaf_4k_v0.6.1");
  const ScoreResult b = run_frames(four_k, s);
  ASSERT_TRUE(a.status.is_ok() && b.status.is_ok());
  for (size_t i = 0; i < r.frames.size(); i++) {
    EXPECT_EQ(value(r, i, "vmaf"), value(a, i, "vmaf")) << i;
    EXPECT_EQ(value(r, i, "vmaf_4k"), value(b, i, "vmaf")) << i;
    EXPECT_NE(value(r, i, "vmaf"), value(r, i, "vmaf_4k")) << "the two models differ";
  }
  ScorerConfig dup = scorer_config("");
  dup.models = {ModelRequest{"vmaf_v0.6.1", "", false, false, {}}, ModelRequest{"vmaf_4k_v0.6.1", "", false, false, {}}};
  const ScoreResult d = run_frames(dup, s);
  EXPECT_EQ(d.status.code(), Errc::invalid_argument) << "two models in one column are refused";
  EXPECT_NE(d.status.message().find("name them"), std::string::npos) << d.status.message();
}

TEST(Scorer, FeatureOptionsInLibvmafsSyntax) {
  const Synthetic s(64, 48, 3);
  ScorerConfig cfg = scorer_config("");
  cfg.features = {{"psnr", {{"enable_chroma", "false"}}}};
  ScoreResult r = run_frames(cfg, s);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.names, std::vector<std::string>{"psnr_y"});

  // A score-naming option appends libvmaf's suffix; the neg model's features are the same columns.
  cfg.features = {{"adm", {{"adm_enhn_gain_limit", "1.0"}}}};
  r = run_frames(cfg, s);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.names.front(), "integer_adm2_egl_1");
  const ScoreResult neg = run_frames(scorer_config("vmaf_v0.6.1neg"), s);
  ASSERT_TRUE(neg.status.is_ok());
  for (size_t i = 0; i < r.frames.size(); i++)
    EXPECT_EQ(value(r, i, "integer_adm2_egl_1"), value(neg, i, "integer_adm2_egl_1"));

  cfg.features = {{"psnr", {{"no_such_option", "1"}}}};
  r = run_frames(cfg, s);
  EXPECT_EQ(r.status.code(), Errc::unsupported);
  EXPECT_NE(r.status.message().find("no_such_option"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("enable_chroma"), std::string::npos) << "lists the options: " << r.status.message();

  cfg.features = {{"adm", {{"adm_enhn_gain_limit", "1000"}}}};
  r = run_frames(cfg, s);
  EXPECT_EQ(r.status.code(), Errc::invalid_argument) << r.status.to_string();
  EXPECT_NE(r.status.message().find("[1, 100]"), std::string::npos) << r.status.message();

  cfg.features = {{"no_such_feature", {}}};
  r = run_frames(cfg, s);
  EXPECT_EQ(r.status.code(), Errc::unsupported);
  EXPECT_NE(r.status.message().find("known: "), std::string::npos) << r.status.message();
}

TEST(Scorer, ModelFeatureOverloadsRenameAndChangeTheFeature) {
  const Synthetic s(64, 48, 3);
  ScorerConfig cfg = scorer_config("");
  cfg.models = {ModelRequest{"vmaf_v0.6.1", "", false, false, {{"adm.adm_enhn_gain_limit", "1.0"}}}};
  const ScoreResult r = run_frames(cfg, s);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_NE(std::find(r.names.begin(), r.names.end(), "integer_adm2_egl_1"), r.names.end());
  EXPECT_EQ(std::find(r.names.begin(), r.names.end(), "integer_adm2"), r.names.end());
  cfg.models[0].overrides = {{"nonsense", "1"}};
  EXPECT_EQ(run_frames(cfg, s).status.code(), Errc::model_error);
}

TEST(Scorer, ThreadsAreCappedWithANotice) {
  const Synthetic s(48, 40, 3);
  ScorerConfig cfg = scorer_config("vmaf_v0.6.1");
  cfg.threads = 100000;
  std::vector<std::string> notices;
  cfg.on_notice = [&](NoticeLevel, const std::string& text, const std::string&) { notices.push_back(text); };
  const ScoreResult r = run_frames(cfg, s);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find(std::to_string(Scorer::kMaxThreads)), std::string::npos) << notices[0];
}

TEST(Scorer, BadPairsAreRefusedAtTheBoundaryAndReleased) {
  const Synthetic s(64, 48, 2), other(32, 32, 1);
  ScorerConfig cfg = scorer_config("vmaf_v0.6.1");
  FrameLog log;
  std::unique_ptr<Scorer> scorer;
  ASSERT_TRUE(make_scorer(cfg, s.geometry(), &log, &scorer).is_ok());
  int released = 0;
  Status st = scorer->submit(frame_pair(s.view(s.ref[0]), other.view(other.dist[0]), 0, 0, [&] { released++; }));
  EXPECT_EQ(st.code(), Errc::unsupported);
  EXPECT_EQ(released, 1);
  // Host-only backend, device picture: refused by name, never read.
  PictureView dev = s.view(s.dist[0]);
  dev.memory = MemoryKind::device;
  st = scorer->submit(frame_pair(s.view(s.ref[0]), dev, 0, 0, [&] { released++; }));
  EXPECT_EQ(st.code(), Errc::unsupported);
  EXPECT_NE(st.message().find("device"), std::string::npos) << st.message();
  EXPECT_EQ(released, 2);
  // A refused pair does not poison the stream.
  EXPECT_TRUE(scorer->submit(frame_pair(s.view(s.ref[0]), s.view(s.dist[0]), 0, 0)).is_ok());
  EXPECT_TRUE(scorer->flush().is_ok());
  EXPECT_EQ(log.size(), 1u);
  st = scorer->submit(frame_pair(s.view(s.ref[1]), s.view(s.dist[1]), 1, 1, [&] { released++; }));
  EXPECT_FALSE(st.is_ok()) << "submit after flush";
  EXPECT_EQ(released, 3);
}

TEST(Scorer, NonBlockingSubmitSaysBusyInsteadOfWaiting) {
  // Large frames on two workers: twenty submits in a row outrun the scorer, and the ones it cannot take are
  // refused at once with busy (and released), never queued beyond its capacity.
  const Synthetic s(1280, 720, 2);
  ScorerConfig cfg = scorer_config("vmaf_v0.6.1");
  cfg.threads = 2;
  FrameLog log;
  std::unique_ptr<Scorer> scorer;
  ASSERT_TRUE(make_scorer(cfg, s.geometry(), &log, &scorer).is_ok());
  int busy = 0, taken = 0;
  std::atomic<int> released{0};
  for (int i = 0; i < 20; i++) {
    const Status st = scorer->submit(frame_pair(s.view(s.ref[i % 2]), s.view(s.dist[i % 2]), i, unsigned(i),
                                                [&] { released++; }),
                                     /*block=*/false);
    if (st.code() == Errc::busy) busy++;
    else if (st.is_ok()) taken++;
    else ADD_FAILURE() << st.to_string();
  }
  ASSERT_TRUE(scorer->flush().is_ok());
  EXPECT_GT(busy, 0) << "20 1280x720 frames in a row never filled a capacity of " << 6;
  EXPECT_EQ(released.load(), 20);
  EXPECT_EQ(log.size(), size_t(taken));
}

}  // namespace
}  // namespace vmafx::test

namespace vmafx::test {
namespace {

TEST(Scorer, AnExtraFeatureTooLargeForThePictureIsLeftOutWithOneWarning) {
  const Synthetic s(160, 120, 3);  // below MS-SSIM's 176x176
  ScorerConfig cfg = scorer_config("vmaf_v0.6.1", {"psnr", "float_ms_ssim"});
  std::vector<std::pair<NoticeLevel, std::string>> notices;
  cfg.on_notice = [&](NoticeLevel l, const std::string& text, const std::string&) { notices.push_back({l, text}); };
  const ScoreResult r = run_frames(cfg, s);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0].first, NoticeLevel::warning);
  EXPECT_NE(notices[0].second.find("float_ms_ssim left out"), std::string::npos) << notices[0].second;
  EXPECT_NE(notices[0].second.find("176x176"), std::string::npos) << notices[0].second;
  EXPECT_EQ(std::find(r.names.begin(), r.names.end(), "float_ms_ssim"), r.names.end());
  EXPECT_NE(std::find(r.names.begin(), r.names.end(), "psnr_y"), r.names.end());
  EXPECT_EQ(r.frames.size(), 3u);
}

// A model column that another column already has (a feature's score, another model's collection column) would
// overwrite its values: refused naming both.
TEST(Scorer, AModelColumnNamedLikeAnotherColumnIsRefused) {
  const VideoGeometry g{64, 64, 8, Chroma::k420};
  struct Case {
    std::vector<std::pair<std::string, std::string>> models;  // version, name
    std::vector<const char*> features;
    std::string column, owner;
  };
  const Case cases[] = {
      {{{"vmaf_v0.6.1", "psnr_y"}}, {"psnr"}, "psnr_y", "feature psnr"},
      {{{"vmaf_v0.6.1", "integer_adm2"}}, {}, "integer_adm2", "feature adm"},
      {{{"vmaf_b_v0.6.3", "b"}, {"vmaf_v0.6.1", "b_bagging"}}, {}, "b_bagging", "another model"},
  };
  for (const Case& c : cases) {
    ScorerConfig cfg = scorer_config("", {});
    for (const auto& [version, name] : c.models) {
      ModelRequest m;
      m.model = version;
      m.name = name;
      cfg.models.push_back(m);
    }
    for (const char* f : c.features) cfg.features.push_back({f, {}});
    std::unique_ptr<Scorer> scorer;
    const Status s = Scorer::create(cfg, {g, {}}, &scorer);
    EXPECT_EQ(s.code(), Errc::invalid_argument) << c.column << ": " << s.to_string();
    EXPECT_NE(s.message().find("'" + c.column + "'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(c.owner), std::string::npos) << s.message();
  }
}

// Without leaving it out (vmafx-score, as libvmaf stops): create() fails naming the feature and the limit.
TEST(Scorer, AnExtraFeatureTooLargeForThePictureFailsWhenAskedTo) {
  ScorerConfig cfg = scorer_config("", {"float_ms_ssim"});
  cfg.leave_out_unfit_features = false;
  std::vector<std::string> notices;
  cfg.on_notice = [&](NoticeLevel, const std::string& text, const std::string&) { notices.push_back(text); };
  std::unique_ptr<Scorer> scorer;
  const Status s = Scorer::create(cfg, {{160, 120, 8, Chroma::k420}, {}}, &scorer);
  EXPECT_EQ(s.code(), Errc::unsupported);
  EXPECT_NE(s.message().find("float_ms_ssim"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("176x176"), std::string::npos) << s.message();
  EXPECT_TRUE(notices.empty());
}

}  // namespace
}  // namespace vmafx::test
