// SPDX-License-Identifier: LGPL-2.1-or-later
// SharedReference on the CPU backend: a ladder of four renditions (one smaller, one joining late) scored against one
// shared reference equals a scorer of its own per rendition bit for bit, frame by frame and pooled, while the
// reference-only features run once per reference frame (counted); the pairs a shared scorer refuses. Synthetic
// pictures: runs without ../shared.
#include <gtest/gtest.h>

#include "assert_ok.h"
#include "ladder_check.h"

namespace vmafx::test {
namespace {

ScorerConfig ladder_config(unsigned threads) {
  ScorerConfig cfg = scorer_config("vmaf_v0.6.1", {"float_motion", "psnr"});
  cfg.backend = Backend::cpu;
  cfg.threads = threads;
  return cfg;
}

TEST(SharedReference, FourRenditionsEqualTheirOwnRunsWithTheReferenceFeaturesOncePerFrame) {
  const ladder::Clip ref = ladder::reference(96, 64, 12);
  const auto rends = ladder::four(ref);
  for (unsigned threads : {0u, 3u}) {
    const ScorerConfig cfg = ladder_config(threads);
    const ladder::LadderRun lr = ladder::shared(cfg, ref, rends);
    ASSERT_EQ(lr.runs.size(), rends.size());
    EXPECT_EQ(lr.backend, "cpu");
    size_t differ = 0;
    for (size_t k = 0; k < rends.size(); k++) {
      const ladder::Run own = ladder::alone(cfg, ref, rends[k]);
      ASSERT_EQ(own.frames.size(), rends[k].clip.frames.size());
      differ += ladder::compare(own, lr.runs[k], "rendition " + std::to_string(k) + ", threads " + std::to_string(threads));
      // A scorer of its own computes motion on every frame; the shared one never (from reference frame 0) or on
      // the frame before it reads a reference it was not given (the late one: its frame 0).
      EXPECT_EQ(own.counters.reference_feature_frames, own.frames.size());
      const uint64_t local = rends[k].first == 0 ? 0 : 1;
      EXPECT_EQ(lr.runs[k].counters.reference_feature_frames, local) << "rendition " << k;
      EXPECT_EQ(lr.runs[k].counters.shared_frames, rends[k].clip.frames.size() - local) << "rendition " << k;
    }
    EXPECT_EQ(differ, 0u);
    // Once per reference frame: integer_motion and float_motion on 12 frames, no device copies on the CPU.
    EXPECT_EQ(lr.shared.frames, ref.frames.size());
    EXPECT_EQ(lr.shared.feature_frames, ref.frames.size());
    EXPECT_EQ(lr.shared.uploads, 0u);
  }
}

// Pairs that skip shared frames, come without one, or start late: each rendition equals a scorer of its own fed the
// same reference frames, and computes motion itself exactly where its previous reference is not the shared one's.
TEST(SharedReference, GapsAndPairsWithoutASharedFrameEqualTheirOwnRuns) {
  const ladder::Clip ref = ladder::reference(96, 64, 14);
  const ladder::Clip dist = ladder::rendition(ref, 96, 64, 24, 1);
  struct Case {
    std::vector<size_t> frames;  // the reference frames paired, in order
    std::vector<bool> shared;    // whether the pair carries its shared frame (else its own reference)
    uint64_t local;              // frames on which the scorer computes motion itself
  };
  const std::vector<Case> cases = {
      {{0, 1, 2, 5, 6, 7, 8}, {1, 1, 1, 1, 1, 1, 1}, 1},          // a gap: frame 5 reads 2, the shared one 4
      {{0, 1, 2, 3, 4, 5, 6}, {1, 1, 0, 1, 1, 1, 1}, 2},          // one pair with its own reference: it and the next
      {{4, 5, 6, 7}, {1, 1, 1, 1}, 1},                            // a late start
      {{0, 2, 4, 6, 8, 10}, {1, 1, 1, 1, 1, 1}, 5},               // every other frame: all but frame 0 computed here
      {{3, 4, 5, 6, 7, 8, 9, 10, 11}, {0, 0, 0, 1, 1, 1, 1, 1, 1}, 4},  // its own references first
  };
  for (unsigned threads : {0u, 2u}) {
    const ScorerConfig cfg = ladder_config(threads);
    std::shared_ptr<SharedReference> sr;
    ASSERT_OK(SharedReference::create(cfg, ref.geometry(), &sr));
    std::vector<std::shared_ptr<const SharedFrame>> frames;
    for (size_t i = 0; i < ref.frames.size(); i++) {
      std::shared_ptr<const SharedFrame> sf;
      ASSERT_OK(sr->submit(ref.view(i), {}, &sf));
      frames.push_back(sf);
    }
    for (size_t k = 0; k < cases.size(); k++) {
      const Case& c = cases[k];
      const std::string what = "case " + std::to_string(k) + ", threads " + std::to_string(threads);
      FrameLog own_log, shared_log;
      ScorerConfig oc = cfg, scfg = cfg;
      oc.on_frame = [&](const FrameScore& fs) { own_log.add(fs); };
      scfg.shared_reference = sr;
      scfg.on_frame = [&](const FrameScore& fs) { shared_log.add(fs); };
      std::unique_ptr<Scorer> own, shared;
      ASSERT_OK(Scorer::create(oc, {ref.geometry(), dist.geometry()}, &own));
      ASSERT_OK(Scorer::create(scfg, {ref.geometry(), dist.geometry()}, &shared));
      for (size_t n = 0; n < c.frames.size(); n++) {
        const size_t i = c.frames[n];
        ASSERT_OK(own->submit(frame_pair(ref.view(i), dist.view(i), int64_t(n), n)));
        FramePair p = frame_pair(c.shared[n] ? PictureView{} : ref.view(i), dist.view(i), int64_t(n), n);
        if (c.shared[n]) p.shared = frames[i];
        ASSERT_OK(shared->submit(std::move(p)));
      }
      const ladder::Run a = ladder::finish(*own, own_log), b = ladder::finish(*shared, shared_log);
      EXPECT_EQ(ladder::compare(a, b, what), 0u);
      EXPECT_EQ(b.counters.reference_feature_frames, c.local) << what;
      EXPECT_EQ(b.counters.shared_frames, c.frames.size() - c.local) << what;
    }
  }
}

TEST(SharedReference, TheSharedFeaturesAreTheReferenceOnlyOnes) {
  std::shared_ptr<SharedReference> sr;
  ASSERT_OK(SharedReference::create(ladder_config(0), {96, 64, 8, Chroma::k420}, &sr));
  EXPECT_EQ(sr->features(), (std::vector<std::string>{"motion", "float_motion"}));
  ScorerConfig none = scorer_config("", {"psnr"});
  none.backend = Backend::cpu;
  ASSERT_OK(SharedReference::create(none, {96, 64, 8, Chroma::k420}, &sr));
  EXPECT_TRUE(sr->features().empty());
}

TEST(SharedReference, PairsThatDoNotFitTheSharedReferenceAreRefusedAndReleased) {
  const ladder::Clip ref = ladder::reference(96, 64, 4);
  const ladder::Clip dist = ladder::rendition(ref, 96, 64, 24, 1);
  const ScorerConfig cfg = ladder_config(0);
  std::shared_ptr<SharedReference> sr;
  ASSERT_OK(SharedReference::create(cfg, ref.geometry(), &sr));
  ScorerConfig c = cfg;
  c.shared_reference = sr;
  std::unique_ptr<Scorer> s;
  ASSERT_OK(Scorer::create(c, {ref.geometry(), dist.geometry()}, &s));
  int released = 0;
  std::vector<std::shared_ptr<const SharedFrame>> frames(3);
  for (size_t i = 0; i < frames.size(); i++) ASSERT_OK(sr->submit(ref.view(i), {}, &frames[i]));
  // Another shared reference's frame.
  std::shared_ptr<SharedReference> other;
  ASSERT_OK(SharedReference::create(cfg, ref.geometry(), &other));
  std::shared_ptr<const SharedFrame> foreign;
  ASSERT_OK(other->submit(ref.view(0), {}, &foreign));
  FramePair p = frame_pair({}, dist.view(0), 0, 0, [&] { released++; });
  p.shared = foreign;
  Status st = s->submit(std::move(p));
  EXPECT_EQ(st.code(), Errc::invalid_argument);
  EXPECT_EQ(released, 1);

  // A shared frame for a scorer without a shared reference.
  std::unique_ptr<Scorer> plain;
  ASSERT_OK(Scorer::create(cfg, {ref.geometry(), dist.geometry()}, &plain));
  p = frame_pair({}, dist.view(1), 1, 1, [&] { released++; });
  p.shared = frames[1];
  st = plain->submit(std::move(p));
  EXPECT_EQ(st.code(), Errc::invalid_argument);
  EXPECT_NE(st.message().find("no shared reference"), std::string::npos) << st.message();
  EXPECT_EQ(released, 2);

  // A picture of another size for the shared reference.
  const ladder::Clip small = ladder::reference(48, 32, 1);
  std::shared_ptr<const SharedFrame> bad;
  bool bad_released = false;
  st = sr->submit(small.view(0), [&] { bad_released = true; }, &bad);
  EXPECT_EQ(st.code(), Errc::unsupported);
  EXPECT_TRUE(bad_released);
  EXPECT_FALSE(bad);
}

TEST(SharedReference, TheCallersReleaseRunsOnceTheLastHolderIsGone) {
  const ladder::Clip ref = ladder::reference(96, 64, 3);
  const ladder::Clip dist = ladder::rendition(ref, 96, 64, 24, 1);
  const ScorerConfig cfg = ladder_config(2);
  std::shared_ptr<SharedReference> sr;
  ASSERT_OK(SharedReference::create(cfg, ref.geometry(), &sr));
  ScorerConfig c = cfg;
  c.shared_reference = sr;
  std::unique_ptr<Scorer> a, b;
  ASSERT_OK(Scorer::create(c, {ref.geometry(), dist.geometry()}, &a));
  ASSERT_OK(Scorer::create(c, {ref.geometry(), dist.geometry()}, &b));
  std::atomic<int> released{0};
  for (size_t i = 0; i < ref.frames.size(); i++) {
    std::shared_ptr<const SharedFrame> sf;
    ASSERT_OK(sr->submit(ref.view(i), [&] { released++; }, &sf));
    for (Scorer* s : {a.get(), b.get()}) {
      FramePair p = frame_pair({}, dist.view(i), int64_t(i), i);
      p.shared = sf;
      ASSERT_OK(s->submit(std::move(p)));
    }
  }
  ASSERT_OK(a->flush());
  ASSERT_OK(b->flush());
  a.reset();
  b.reset();
  // The shared reference still holds the last frame (the next one would read it as its previous reference).
  EXPECT_EQ(released.load(), 2);
  c.shared_reference.reset();
  sr.reset();
  EXPECT_EQ(released.load(), 3);
}

}  // namespace
}  // namespace vmafx::test
