// SPDX-License-Identifier: LGPL-2.1-or-later
// ScoringSession with a real StreamPairing and the engine's CPU scorer, on generated pictures (no GStreamer): scores
// equal the engine's own, a caps change scores each part with its own geometry, aspect ratios, results files, errors,
// a flushing seek's segment end, and stop() while work waits. Every wait is bounded (kBoundS).
#include "scoring_session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "support.h"

namespace vmafx::gst {
namespace {

using namespace std::chrono_literals;
constexpr Time kFrame = 40000000;
constexpr double kBoundS = 120;

// A generated 8-bit 4:2:0 picture (textured, different per frame and per "distortion").
struct Picture {
  std::vector<uint8_t> bytes;
  PictureView view;
};
std::shared_ptr<Picture> make_picture(uint32_t w, uint32_t h, uint32_t seed, int noise) {
  auto p = std::make_shared<Picture>();
  FormatInfo fmt;
  PlaneLayout layout[3];
  size_t size = 0;
  const unsigned n = packed_layout(fmt, w, h, layout, &size);
  p->bytes.resize(size);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < size; i++) {
    x = x * 1664525u + 1013904223u;
    const int base = int((i * 7 + seed * 13) % 200) + 20;
    p->bytes[i] = uint8_t(std::clamp(base + (noise ? int(x >> 27) % (2 * noise + 1) - noise : 0), 0, 255));
  }
  EXPECT_TRUE(make_picture_view(fmt, w, h, p->bytes.data(), size, layout, n, &p->view));
  return p;
}

// The element's stand-in: frames carry their picture as payload and their shape as meta.
Frame frame(uint64_t i, std::shared_ptr<Picture> pic, int par_n = 1, int par_d = 1) {
  Frame f;
  f.pts = i * kFrame;
  f.time = f.pts;
  f.duration = kFrame;
  f.bytes = pic->bytes.size();
  auto shape = std::make_shared<FrameShape>();
  shape->geometry = {pic->view.width, pic->view.height, 8, Chroma::k420};
  shape->par_n = par_n;
  shape->par_d = par_d;
  f.meta = shape;
  f.payload = std::move(pic);
  return f;
}

struct Collected {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<ScoredFrame, FrameScore>> frames;
  std::vector<std::string> names;
  std::vector<std::vector<RenditionResult>> ends;  // copies of the results (collectors copied below)
  std::vector<Collector> end_collectors;
  std::vector<bool> finals;
  std::vector<std::string> errors, notices;
  int error_kinds = 0;
  bool wait_end(size_t n) {
    std::unique_lock<std::mutex> lk(mu);
    return cv.wait_for(lk, std::chrono::duration<double>(kBoundS), [&] { return ends.size() >= n || !errors.empty(); });
  }
};

SessionCallbacks callbacks(Collected* c) {
  SessionCallbacks cb;
  cb.shape = [](unsigned, const Frame& f) { return *static_cast<const FrameShape*>(f.meta.get()); };
  cb.read = [](unsigned, const Frame& f, ReadPicture* out) {
    auto pic = std::static_pointer_cast<const Picture>(f.payload);
    out->view = pic->view;
    out->keep = std::const_pointer_cast<Picture>(pic);
    return Status::ok();
  };
  cb.on_frame = [c](const ScoredFrame& f, const FrameScore& s, const std::vector<std::string>& names,
                    const std::vector<std::string>&) {
    std::lock_guard<std::mutex> lk(c->mu);
    c->frames.emplace_back(f, s);
    c->names = names;
  };
  cb.on_notice = [c](NoticeLevel, const std::string& text, const std::string&) {
    std::lock_guard<std::mutex> lk(c->mu);
    c->notices.push_back(text);
  };
  cb.on_error = [c](int kind, Errc, const std::string& text, const std::string&) {
    std::lock_guard<std::mutex> lk(c->mu);
    c->errors.push_back(text);
    c->error_kinds += kind;
    c->cv.notify_all();
  };
  cb.on_end = [c](const std::vector<RenditionResult>& r, bool final) {
    std::lock_guard<std::mutex> lk(c->mu);
    for (const auto& x : r) c->end_collectors.push_back(*x.collector);
    c->ends.push_back(r);
    c->finals.push_back(final);
    c->cv.notify_all();
  };
  return cb;
}

SessionConfig session_config() {
  SessionConfig sc;
  sc.scorer.models = {ModelRequest{}};
  sc.scorer.features = {{"psnr", {}}};
  sc.scorer.threads = 2;
  return sc;
}

PairingConfig pairing_config() {
  PairingConfig c;
  c.stall_timeout = 0ms;
  c.link_bound = 0ms;
  return c;
}

// The engine's own scores of the same pictures, for comparison.
std::vector<FrameScore> direct(const std::vector<std::shared_ptr<Picture>>& ref,
                               const std::vector<std::shared_ptr<Picture>>& dist, std::vector<std::string>* names) {
  test::FrameLog log;
  ScorerConfig cfg = session_config().scorer;
  cfg.on_frame = [&](const FrameScore& fs) { log.add(fs); };
  std::unique_ptr<Scorer> s;
  StreamGeometry g{{ref[0]->view.width, ref[0]->view.height, 8, Chroma::k420},
                   {dist[0]->view.width, dist[0]->view.height, 8, Chroma::k420}};
  EXPECT_TRUE(Scorer::create(cfg, g, &s));
  for (size_t i = 0; i < ref.size(); i++) {
    FramePair p;
    p.ref = ref[i]->view;
    p.dist = dist[i]->view;
    EXPECT_TRUE(s->submit(std::move(p)));
  }
  EXPECT_TRUE(s->flush());
  *names = s->score_names();
  return log.frames();
}

void expect_same(const FrameScore& a, const FrameScore& b, const std::vector<std::string>& names) {
  ASSERT_EQ(a.values.size(), b.values.size());
  for (size_t k = 0; k < a.values.size(); k++) {
    if (std::isnan(a.values[k]) && std::isnan(b.values[k])) continue;
    EXPECT_EQ(a.values[k], b.values[k]) << names[k] << " frame " << a.index;
  }
}

TEST(ScoringSession, ScoresEqualTheEnginesOwnBitForBit) {
  StreamPairing pairing;
  Collected c;
  ScoringSession session(&pairing, callbacks(&c));
  pairing.start(pairing_config());
  ASSERT_TRUE(session.start(session_config()));
  std::vector<std::shared_ptr<Picture>> ref, dist;
  Report r;
  for (uint32_t i = 0; i < 8; i++) {
    ref.push_back(make_picture(64, 48, i, 0));
    dist.push_back(make_picture(64, 48, i, 6));
    pairing.push(kRefPad, frame(i, ref.back()), &r);
    pairing.push(kDistPad, frame(i, dist.back()), &r);
  }
  pairing.end(kRefPad, &r);
  pairing.end(kDistPad, &r);
  ASSERT_TRUE(c.wait_end(1));
  session.stop();
  ASSERT_TRUE(c.errors.empty()) << c.errors[0];
  std::vector<std::string> names;
  const std::vector<FrameScore> want = direct(ref, dist, &names);
  ASSERT_EQ(c.frames.size(), want.size());
  for (size_t i = 0; i < want.size(); i++) {
    EXPECT_EQ(c.frames[i].second.index, i);
    EXPECT_EQ(c.frames[i].first.ref.pts, i * kFrame) << "the frame's own timing comes back with its score";
    expect_same(c.frames[i].second, want[i], names);
  }
  EXPECT_TRUE(c.finals.at(0));
  EXPECT_EQ(c.ends[0].at(0).frames, 8u);
}

// A caps change mid-stream: the frames before it are read and scored with their own caps; the new geometry gets a
// scorer of its own; frame indices go on and the pooled collector holds both parts.
TEST(ScoringSession, ACapsChangeScoresEachPartWithItsOwnGeometry) {
  StreamPairing pairing;
  Collected c;
  ScoringSession session(&pairing, callbacks(&c));
  pairing.start(pairing_config());
  ASSERT_TRUE(session.start(session_config()));
  std::vector<std::shared_ptr<Picture>> ref_a, dist_a, ref_b, dist_b;
  Report r;
  for (uint32_t i = 0; i < 10; i++) {
    const bool first = i < 5;
    auto rp = make_picture(first ? 64 : 48, first ? 48 : 36, i, 0);
    auto dp = make_picture(first ? 64 : 48, first ? 48 : 36, i, 5);
    (first ? ref_a : ref_b).push_back(rp);
    (first ? dist_a : dist_b).push_back(dp);
    pairing.push(kRefPad, frame(i, rp), &r);
    pairing.push(kDistPad, frame(i, dp), &r);
  }
  pairing.end(kRefPad, &r);
  pairing.end(kDistPad, &r);
  ASSERT_TRUE(c.wait_end(1));
  session.stop();
  ASSERT_TRUE(c.errors.empty()) << c.errors[0];
  std::vector<std::string> names;
  std::vector<FrameScore> want = direct(ref_a, dist_a, &names);
  const std::vector<FrameScore> want_b = direct(ref_b, dist_b, &names);
  want.insert(want.end(), want_b.begin(), want_b.end());
  ASSERT_EQ(c.frames.size(), 10u);
  for (size_t i = 0; i < 10; i++) {
    EXPECT_EQ(c.frames[i].second.index, i);
    expect_same(c.frames[i].second, want[i], names);
  }
  const Collector& pooled = c.end_collectors.at(0);
  EXPECT_EQ(pooled.frames(), 10u);
  const long vmaf = pooled.find("vmaf");
  ASSERT_GE(vmaf, 0);
  double v;
  ASSERT_TRUE(pooled.get(7, size_t(vmaf), &v));
  EXPECT_EQ(v, want[7].get("vmaf", names));
  bool said = false;
  for (const auto& n : c.notices) said = said || n.find("caps change") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(ScoringSession, ASmallerDistortedStreamIsScaledAndSaidOnce) {
  StreamPairing pairing;
  Collected c;
  ScoringSession session(&pairing, callbacks(&c));
  pairing.start(pairing_config());
  ASSERT_TRUE(session.start(session_config()));
  Report r;
  for (uint32_t i = 0; i < 4; i++) {
    pairing.push(kRefPad, frame(i, make_picture(64, 48, i, 0)), &r);
    pairing.push(kDistPad, frame(i, make_picture(32, 24, i, 3)), &r);
  }
  pairing.end(kRefPad, &r);
  pairing.end(kDistPad, &r);
  ASSERT_TRUE(c.wait_end(1));
  session.stop();
  ASSERT_TRUE(c.errors.empty()) << c.errors[0];
  ASSERT_EQ(c.frames.size(), 4u);
  EXPECT_EQ(c.frames[0].first.scaled_from, "32x24");
  EXPECT_EQ(c.ends[0].at(0).scaled_from, "32x24");
  int said = 0;
  for (const auto& n : c.notices) said += n.find("are scaled to the reference's 64x48") != std::string::npos;
  EXPECT_EQ(said, 1) << "announced once";
}

TEST(ScoringSession, AnotherAspectRatioIsAnErrorUnlessStretchingIsAllowed) {
  for (bool stretch : {false, true}) {
    StreamPairing pairing;
    Collected c;
    ScoringSession session(&pairing, callbacks(&c));
    pairing.start(pairing_config());
    SessionConfig sc = session_config();
    sc.allow_stretch = stretch;
    ASSERT_TRUE(session.start(sc));
    Report r;
    for (uint32_t i = 0; i < 3; i++) {
      pairing.push(kRefPad, frame(i, make_picture(64, 48, i, 0)), &r);
      pairing.push(kDistPad, frame(i, make_picture(64, 24, i, 3)), &r);
    }
    pairing.end(kRefPad, &r);
    pairing.end(kDistPad, &r);
    ASSERT_TRUE(c.wait_end(1));
    session.stop();
    if (stretch) {
      EXPECT_TRUE(c.errors.empty());
      EXPECT_EQ(c.frames.size(), 3u);
    } else {
      ASSERT_EQ(c.errors.size(), 1u);
      EXPECT_NE(c.errors[0].find("display aspect ratio"), std::string::npos) << c.errors[0];
      EXPECT_NE(c.errors[0].find("64x24"), std::string::npos) << c.errors[0];
      EXPECT_TRUE(pairing.failed());
    }
  }
}

// Anamorphic: the same display aspect through the pixel aspect ratio is no stretch.
TEST(ScoringSession, PixelAspectRatioCountsInTheAspectCheck) {
  StreamPairing pairing;
  Collected c;
  ScoringSession session(&pairing, callbacks(&c));
  pairing.start(pairing_config());
  ASSERT_TRUE(session.start(session_config()));
  Report r;
  for (uint32_t i = 0; i < 3; i++) {
    pairing.push(kRefPad, frame(i, make_picture(64, 48, i, 0)), &r);
    pairing.push(kDistPad, frame(i, make_picture(32, 48, i, 3), 2, 1), &r);
  }
  pairing.end(kRefPad, &r);
  pairing.end(kDistPad, &r);
  ASSERT_TRUE(c.wait_end(1));
  session.stop();
  EXPECT_TRUE(c.errors.empty());
  EXPECT_EQ(c.frames.size(), 3u);
}

TEST(ScoringSession, AGeometryTheEngineRefusesIsOneErrorNamingIt) {
  StreamPairing pairing;
  Collected c;
  ScoringSession session(&pairing, callbacks(&c));
  pairing.start(pairing_config());
  ASSERT_TRUE(session.start(session_config()));
  Report r;
  for (uint32_t i = 0; i < 3; i++) {
    pairing.push(kRefPad, frame(i, make_picture(7, 7, i, 0)), &r);
    pairing.push(kDistPad, frame(i, make_picture(7, 7, i, 3)), &r);
  }
  pairing.end(kRefPad, &r);
  pairing.end(kDistPad, &r);
  {
    std::unique_lock<std::mutex> lk(c.mu);
    ASSERT_TRUE(c.cv.wait_for(lk, std::chrono::duration<double>(kBoundS), [&] { return !c.errors.empty(); }));
  }
  session.stop();
  ASSERT_EQ(c.errors.size(), 1u) << "posted once";
  EXPECT_NE(c.errors[0].find("7x7"), std::string::npos) << c.errors[0];
  EXPECT_TRUE(c.frames.empty());
}

TEST(ScoringSession, ResultsFilesAreWrittenPerRenditionWithAPattern) {
  const std::string dir = test::project_source_dir().empty() ? "/tmp" : std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp");
  const std::string pattern = dir + "/session-%s.json";
  std::remove((dir + "/session-dist_sink.json").c_str());
  std::remove((dir + "/session-dist_sink_0.json").c_str());
  StreamPairing pairing;
  pairing.add_pad(2, 0, false);
  Collected c;
  ScoringSession session(&pairing, callbacks(&c));
  pairing.start(pairing_config());
  SessionConfig sc = session_config();
  sc.results_path = pattern;
  ASSERT_TRUE(session.add_rendition(kDistPad, "dist_sink", false));
  ASSERT_TRUE(session.add_rendition(2, "dist_sink_0", false));
  ASSERT_TRUE(session.start(sc));
  Report r;
  for (uint32_t i = 0; i < 4; i++) {
    pairing.push(kRefPad, frame(i, make_picture(64, 48, i, 0)), &r);
    pairing.push(kDistPad, frame(i, make_picture(64, 48, i, 3)), &r);
    pairing.push(2, frame(i, make_picture(64, 48, i, 9)), &r);
  }
  for (unsigned p : {kRefPad, kDistPad, 2u}) pairing.end(p, &r);
  ASSERT_TRUE(c.wait_end(1));
  session.stop();
  ASSERT_TRUE(c.errors.empty()) << c.errors[0];
  for (const char* name : {"dist_sink", "dist_sink_0"}) {
    std::ifstream f(dir + "/session-" + name + ".json");
    ASSERT_TRUE(f.good()) << name;
    std::stringstream ss;
    ss << f.rdbuf();
    EXPECT_NE(ss.str().find("\"pooled_metrics\""), std::string::npos) << name;
    EXPECT_NE(ss.str().find("\"frameNum\": 3"), std::string::npos) << name;
  }
  EXPECT_EQ(session.results_path_for(kDistPad, "dist_sink", 1), dir + "/session-dist_sink.json");
}

// Several renditions read one shared reference: each rendition's scores equal the engine's own run of it bit for bit,
// and none of their scorers computes the reference's motion (it is computed once per reference frame). One smaller
// rendition (scaled) and one whose frames start later.
TEST(ScoringSession, RenditionsShareTheReferencesMotionAndScoreAsAlone) {
  StreamPairing pairing;
  pairing.add_pad(2, 0, false);
  pairing.add_pad(3, 0, false);
  Collected c;
  ScoringSession session(&pairing, callbacks(&c));
  pairing.start(pairing_config());
  ASSERT_TRUE(session.add_rendition(kDistPad, "dist_sink", false));
  ASSERT_TRUE(session.add_rendition(2, "dist_sink_0", false));
  ASSERT_TRUE(session.add_rendition(3, "dist_sink_1", false));
  ASSERT_TRUE(session.start(session_config()));
  std::vector<std::shared_ptr<Picture>> ref;
  std::map<unsigned, std::vector<std::shared_ptr<Picture>>> dist;
  Report r;
  constexpr uint32_t kN = 10, kLate = 3;
  for (uint32_t i = 0; i < kN; i++) {
    ref.push_back(make_picture(64, 48, i, 0));
    pairing.push(kRefPad, frame(i, ref.back()), &r);
    dist[kDistPad].push_back(make_picture(64, 48, i, 6));
    pairing.push(kDistPad, frame(i, dist[kDistPad].back()), &r);
    dist[2].push_back(make_picture(32, 24, i, 3));
    pairing.push(2, frame(i, dist[2].back()), &r);
    if (i >= kLate) {
      dist[3].push_back(make_picture(64, 48, i, 9));
      pairing.push(3, frame(i, dist[3].back()), &r);
    }
  }
  for (unsigned p : {kRefPad, kDistPad, 2u, 3u}) pairing.end(p, &r);
  ASSERT_TRUE(c.wait_end(1));
  session.stop();
  ASSERT_TRUE(c.errors.empty()) << c.errors[0];
  ASSERT_EQ(c.ends[0].size(), 3u);
  for (const RenditionResult& res : c.ends[0]) {
    const std::vector<std::shared_ptr<Picture>> refs(ref.begin() + (res.pad == 3 ? kLate : 0), ref.end());
    std::vector<std::string> names;
    const std::vector<FrameScore> want = direct(refs, dist[res.pad], &names);
    std::vector<FrameScore> got;
    for (const auto& [f, s] : c.frames)
      if (f.pad == res.pad) got.push_back(s);
    ASSERT_EQ(got.size(), want.size()) << "pad " << res.pad;
    // The late pad's pairing may hold reference frames before its first (pairing by time): the engine's run starts
    // where the session's did.
    for (size_t i = 0; i < want.size(); i++) expect_same(got[i], want[i], names);
    EXPECT_EQ(res.counters.frames, want.size()) << "pad " << res.pad;
    // Motion of the late rendition's first frame reads no reference before it: computed by its own scorer.
    const uint64_t local = res.pad == 3 ? 1 : 0;
    EXPECT_EQ(res.counters.reference_feature_frames, local) << "pad " << res.pad;
    EXPECT_EQ(res.counters.shared_frames, want.size() - local) << "pad " << res.pad;
  }
}

TEST(ScoringSession, WithoutAPatternOtherRenditionsGetThePadNameBeforeTheExtension) {
  StreamPairing pairing;
  Collected c;
  ScoringSession session(&pairing, callbacks(&c));
  SessionConfig sc = session_config();
  sc.results_path = "/nonexistent-dir-for-this-test/scores.json";
  EXPECT_FALSE(session.start(sc).is_ok()) << "an unwritable results file fails the start";
  StreamPairing p2;
  ScoringSession s2(&p2, callbacks(&c));
  sc.results_path = "out/scores.json";
  (void)s2.start(sc);
  s2.stop();
  EXPECT_EQ(s2.results_path_for(kDistPad, "dist_sink", 3), "out/scores.json");
  EXPECT_EQ(s2.results_path_for(3, "dist_sink_1", 3), "out/scores.dist_sink_1.json");
}

TEST(ScoringSession, AFlushingSeekEndsTheSegmentAndScoringStartsAgain) {
  StreamPairing pairing;
  Collected c;
  ScoringSession session(&pairing, callbacks(&c));
  pairing.start(pairing_config());
  ASSERT_TRUE(session.start(session_config()));
  Report r;
  for (uint32_t i = 0; i < 4; i++) {
    pairing.push(kRefPad, frame(i, make_picture(64, 48, i, 0)), &r);
    pairing.push(kDistPad, frame(i, make_picture(64, 48, i, 3)), &r);
  }
  // Give the session the pairs before the seek drops what it has not taken yet.
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (session.frames_scored() < 3 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
  pairing.flush_start(kRefPad, 1);
  pairing.flush_start(kDistPad, 1);
  pairing.flush_stop(kRefPad);
  pairing.flush_stop(kDistPad);
  ASSERT_TRUE(c.wait_end(1));
  EXPECT_FALSE(c.finals[0]);
  for (uint32_t i = 0; i < 3; i++) {
    pairing.push(kRefPad, frame(i, make_picture(64, 48, i, 0)), &r);
    pairing.push(kDistPad, frame(i, make_picture(64, 48, i, 3)), &r);
  }
  pairing.end(kRefPad, &r);
  pairing.end(kDistPad, &r);
  ASSERT_TRUE(c.wait_end(2));
  session.stop();
  EXPECT_TRUE(c.finals[1]);
  EXPECT_EQ(c.ends[1].at(0).frames, 3u);
  EXPECT_EQ(c.frames.back().second.index, 2u) << "indices restart at the seek";
}

TEST(ScoringSession, StopWhileWorkWaitsReturns) {
  StreamPairing pairing;
  Collected c;
  ScoringSession session(&pairing, callbacks(&c));
  PairingConfig pc = pairing_config();
  pc.max_pending_pairs = 1000;
  pairing.start(pc);
  ASSERT_TRUE(session.start(session_config()));
  Report r;
  for (uint32_t i = 0; i < 40; i++) {
    pairing.push(kRefPad, frame(i, make_picture(160, 120, i, 0)), &r);
    pairing.push(kDistPad, frame(i, make_picture(160, 120, i, 4)), &r);
  }
  pairing.stop();
  session.stop();  // must not wait for the 40 pairs
  SUCCEED();
}

}  // namespace
}  // namespace vmafx::gst
