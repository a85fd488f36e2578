// SPDX-License-Identifier: LGPL-2.1-or-later
// StreamPairing on its own (no GStreamer): pairing, backpressure, the preroll hold, the live policy, the end and
// flush rules, late links, several renditions. Every wait a test starts is bounded and joined; a test that would hang
// fails through its own bound instead (kBound).
#include "stream_pairing.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

namespace vmafx::gst {
namespace {

using namespace std::chrono_literals;
constexpr Time kFrame = 40000000;  // 25 fps
constexpr auto kBound = 20s;       // what any wait in these tests may take at most

Frame frame(uint64_t i, Time duration = kFrame) {
  Frame f;
  f.pts = i * kFrame;
  f.time = f.pts;
  f.duration = duration;
  f.bytes = 100;
  f.payload = std::make_shared<int>(int(i));
  return f;
}

PairingConfig config() {
  PairingConfig c;
  c.max_frames = 8;
  c.stall_timeout = 0ms;
  c.link_bound = 0ms;
  c.preroll_hold = 200ms;
  c.max_pending_pairs = 1000;  // these tests drain the work queue themselves
  return c;
}

// Every pair the work queue holds now, and the number of stream ends.
struct Drained {
  std::vector<Pair> pairs;
  std::vector<bool> scored;
  int stream_ends = 0, segment_ends = 0;
};
Drained drain(StreamPairing& s) {
  Drained d;
  Work w;
  while (s.next_work(&w, SteadyClock::now())) {
    if (w.kind == Work::pair) {
      d.pairs.push_back(w.p);
      d.scored.push_back(w.scored);
    }
    if (w.kind == Work::stream_end) d.stream_ends++;
    if (w.kind == Work::segment_end) d.segment_ends++;
  }
  return d;
}

// Nothing is lost silently: every frame offered to a rendition is paired or counted.
void expect_accounted(const RenditionCounts& c, const char* what) {
  EXPECT_EQ(c.ref_frames, c.paired + c.ref_unpaired) << what << ": reference frames";
  EXPECT_EQ(c.dist_frames, c.paired + c.dist_unpaired) << what << ": distorted frames";
}

uint64_t skipped(const RenditionCounts& c) {
  uint64_t n = 0;
  for (uint64_t k : c.skips) n += k;
  return n;
}

TEST(StreamPairing, EqualStreamsPairFrameByFrame) {
  StreamPairing s;
  s.start(config());
  Report r;
  for (uint64_t i = 0; i < 5; i++) {
    ASSERT_EQ(s.push(kRefPad, frame(i), &r), Flow::ok);
    ASSERT_EQ(s.push(kDistPad, frame(i), &r), Flow::ok);
  }
  s.end(kRefPad, &r);
  s.end(kDistPad, &r);
  Drained d = drain(s);
  ASSERT_EQ(d.pairs.size(), 5u);
  for (uint64_t i = 0; i < 5; i++) {
    EXPECT_EQ(d.pairs[i].ref.pts, i * kFrame);
    EXPECT_EQ(d.pairs[i].dist.pts, i * kFrame);
    EXPECT_EQ(*static_cast<const int*>(d.pairs[i].ref.payload.get()), int(i));
  }
  EXPECT_EQ(d.stream_ends, 1);
  EXPECT_TRUE(r.skips.empty());
  EXPECT_EQ(s.counts(kDistPad).paired, 5u);
}

TEST(StreamPairing, AFrameIsNeverPairedWithAnotherTime) {
  StreamPairing s;
  s.start(config());
  Report r;
  // The distorted stream lacks frame 2; the reference lacks frame 4.
  for (uint64_t i : {0, 1, 2, 3, 5}) s.push(kRefPad, frame(i), &r);
  for (uint64_t i : {0, 1, 3, 4, 5}) s.push(kDistPad, frame(i), &r);
  s.end(kRefPad, &r);
  s.end(kDistPad, &r);
  Drained d = drain(s);
  ASSERT_EQ(d.pairs.size(), 4u);
  for (const Pair& p : d.pairs) EXPECT_EQ(p.ref.pts, p.dist.pts);
  const RenditionCounts c = s.counts(kDistPad);
  EXPECT_EQ(c.skips[unsigned(SkipReason::no_distorted)], 1u);
  EXPECT_EQ(c.skips[unsigned(SkipReason::no_reference)], 1u);
  expect_accounted(c, "gaps");
}

// The distorted stream runs ahead and ends first: its waiting frames still take the reference frames that come.
TEST(StreamPairing, AStreamThatEndedFirstStillPairsWhatItQueued) {
  StreamPairing s;
  s.start(config());
  Report r;
  for (uint64_t i = 0; i < 6; i++) s.push(kDistPad, frame(i), &r);
  s.end(kDistPad, &r);
  for (uint64_t i = 0; i < 6; i++) EXPECT_EQ(s.push(kRefPad, frame(i), &r), Flow::ok);
  s.end(kRefPad, &r);
  EXPECT_EQ(drain(s).pairs.size(), 6u);
  EXPECT_EQ(skipped(s.counts(kDistPad)), 0u);
}

TEST(StreamPairing, ByArrivalTheNthFramesPair) {
  PairingConfig c = config();
  c.by_timestamp = false;
  StreamPairing s;
  s.start(c);
  Report r;
  for (uint64_t i = 0; i < 4; i++) s.push(kRefPad, frame(i), &r);
  for (uint64_t i = 10; i < 13; i++) s.push(kDistPad, frame(i), &r);
  s.end(kDistPad, &r);
  s.end(kRefPad, &r);
  Drained d = drain(s);
  ASSERT_EQ(d.pairs.size(), 3u);
  EXPECT_EQ(d.pairs[2].ref.pts, 2 * kFrame);
  EXPECT_EQ(d.pairs[2].dist.pts, 12 * kFrame);
  EXPECT_EQ(s.counts(kDistPad).skips[unsigned(SkipReason::no_distorted)], 1u);
}

// A tee without queues: one thread pushes the reference, then the distorted copy, then the next frame. Nothing may
// wait for the other pad on that thread, and the ends need no second thread either.
TEST(StreamPairing, OneThreadFeedingBothPadsNeverWaitsForItself) {
  StreamPairing s;
  PairingConfig c = config();
  c.max_frames = 1;
  c.max_pending_pairs = 1000;
  s.start(c);
  auto fed = std::async(std::launch::async, [&] {
    Report r;
    FailureText f;
    for (uint64_t i = 0; i < 200; i++) {
      for (unsigned p : {kRefPad, kDistPad}) {
        if (s.push(p, frame(i), &r) != Flow::ok) return false;
        if (s.wait_for_room(p, &r, &f) != Flow::ok) return false;
      }
    }
    s.end(kRefPad, &r);
    s.end(kDistPad, &r);
    return true;
  });
  ASSERT_EQ(fed.wait_for(kBound), std::future_status::ready) << "the feeding thread waited for itself";
  EXPECT_TRUE(fed.get());
  Drained d = drain(s);
  EXPECT_EQ(d.pairs.size(), 200u);
  EXPECT_EQ(d.stream_ends, 1);
}

// Backpressure: a full pad waits until its partner delivers (not an error while the partner is merely late).
TEST(StreamPairing, AFullPadWaitsForItsPartner) {
  StreamPairing s;
  s.start(config());
  Report r;
  for (uint64_t i = 0; i < 9; i++) s.push(kRefPad, frame(i), &r);
  auto waiting = std::async(std::launch::async, [&] {
    Report rr;
    FailureText f;
    return s.wait_for_room(kRefPad, &rr, &f);
  });
  EXPECT_EQ(waiting.wait_for(100ms), std::future_status::timeout) << "a full pad must wait";
  s.push(kDistPad, frame(0), &r);
  ASSERT_EQ(waiting.wait_for(kBound), std::future_status::ready);
  EXPECT_EQ(waiting.get(), Flow::ok);
}

// Not live, the whole pipeline runs at the scorer's pace: a pad waits while the scoring queue is full.
TEST(StreamPairing, APadWaitsWhileTheScoringQueueIsFull) {
  StreamPairing s;
  PairingConfig c = config();
  c.max_pending_pairs = 2;
  s.start(c);
  Report r;
  for (uint64_t i = 0; i < 3; i++) {
    s.push(kRefPad, frame(i), &r);
    s.push(kDistPad, frame(i), &r);
  }
  auto waiting = std::async(std::launch::async, [&] {
    Report rr;
    FailureText f;
    return s.wait_for_room(kDistPad, &rr, &f);
  });
  EXPECT_EQ(waiting.wait_for(100ms), std::future_status::timeout);
  Work w;
  ASSERT_TRUE(s.next_work(&w, SteadyClock::now() + kBound));
  ASSERT_EQ(waiting.wait_for(kBound), std::future_status::ready);
  EXPECT_EQ(waiting.get(), Flow::ok);
}

// decodebin on the distorted branch: its pad is linked only once the decoder knows its caps. An unlinked partner is
// no error while the link bound runs; after it, the error names the pad and the bound.
TEST(StreamPairing, AnUnlinkedPadIsAnErrorOnlyAfterTheLinkBound) {
  StreamPairing s;
  std::atomic<bool> linked{false};
  s.is_linked = [&](unsigned p) { return p != kDistPad || linked.load(); };
  PairingConfig c = config();
  c.link_bound = 300ms;
  s.start(c);
  Report r;
  for (uint64_t i = 0; i < 9; i++) s.push(kRefPad, frame(i), &r);
  auto waiting = std::async(std::launch::async, [&] {
    Report rr;
    FailureText f;
    const Flow fl = s.wait_for_room(kRefPad, &rr, &f);
    return std::make_pair(fl, f);
  });
  EXPECT_EQ(waiting.wait_for(100ms), std::future_status::timeout) << "the decoder may still link its pad";
  ASSERT_EQ(waiting.wait_for(kBound), std::future_status::ready);
  auto [flow, failure] = waiting.get();
  EXPECT_EQ(flow, Flow::error);
  EXPECT_EQ(failure.kind, 1);
  EXPECT_NE(failure.text.find("dist_sink is not linked"), std::string::npos) << failure.text;
  EXPECT_NE(failure.text.find("waited 0.3 s for a link"), std::string::npos) << failure.text;
}

TEST(StreamPairing, ALateLinkBeforeTheBoundIsNormal) {
  StreamPairing s;
  std::atomic<bool> linked{false};
  s.is_linked = [&](unsigned p) { return p != kDistPad || linked.load(); };
  PairingConfig c = config();
  c.link_bound = 2s;
  s.start(c);
  Report r;
  for (uint64_t i = 0; i < 9; i++) s.push(kRefPad, frame(i), &r);
  auto waiting = std::async(std::launch::async, [&] {
    Report rr;
    FailureText f;
    return s.wait_for_room(kRefPad, &rr, &f);
  });
  std::this_thread::sleep_for(200ms);
  linked = true;
  for (uint64_t i = 0; i < 9; i++) s.push(kDistPad, frame(i), &r);
  ASSERT_EQ(waiting.wait_for(kBound), std::future_status::ready);
  EXPECT_EQ(waiting.get(), Flow::ok);
  EXPECT_EQ(drain(s).pairs.size(), 9u);
}

// A short reference that ended before the decoder linked the distorted pad: the end alone is no error.
TEST(StreamPairing, AReferenceThatEndsBeforeTheLinkIsNoError) {
  StreamPairing s;
  std::atomic<bool> linked{false};
  s.is_linked = [&](unsigned p) { return p != kDistPad || linked.load(); };
  PairingConfig c = config();
  c.link_bound = 200ms;
  s.start(c);
  Report r;
  for (uint64_t i = 0; i < 5; i++) s.push(kRefPad, frame(i), &r);
  s.end(kRefPad, &r);
  FailureText f;
  SteadyClock::time_point next;
  s.check_timeouts(&r, &f, &next);
  EXPECT_EQ(f.kind, 0) << "within the link bound";
  linked = true;
  for (uint64_t i = 0; i < 5; i++) s.push(kDistPad, frame(i), &r);
  s.end(kDistPad, &r);
  EXPECT_EQ(drain(s).pairs.size(), 5u);
}

TEST(StreamPairing, AStreamStillUnlinkedAfterTheOtherEndedIsAnErrorAfterTheBound) {
  StreamPairing s;
  s.is_linked = [&](unsigned p) { return p != kDistPad; };
  PairingConfig c = config();
  c.link_bound = 100ms;
  s.start(c);
  Report r;
  s.push(kRefPad, frame(0), &r);
  s.end(kRefPad, &r);
  FailureText f;
  SteadyClock::time_point next;
  const auto give_up = SteadyClock::now() + kBound;
  while (!f.kind && SteadyClock::now() < give_up) {
    s.check_timeouts(&r, &f, &next);
    std::this_thread::sleep_until(std::min(next, SteadyClock::now() + 50ms));
  }
  EXPECT_EQ(f.kind, 1);
  EXPECT_NE(f.text.find("dist_sink is not linked"), std::string::npos) << f.text;
}

TEST(StreamPairing, AStallAfterTheOtherEndedIsAnErrorNamingBoth) {
  StreamPairing s;
  PairingConfig c = config();
  c.stall_timeout = 150ms;
  s.start(c);
  Report r;
  s.push(kRefPad, frame(0), &r);
  s.push(kDistPad, frame(0), &r);
  s.end(kRefPad, &r);
  FailureText f;
  SteadyClock::time_point next;
  const auto give_up = SteadyClock::now() + kBound;
  while (!f.kind && SteadyClock::now() < give_up) {
    s.check_timeouts(&r, &f, &next);
    std::this_thread::sleep_until(std::min(next, SteadyClock::now() + 50ms));
  }
  EXPECT_EQ(f.kind, 2);
  EXPECT_NE(f.text.find("ref_sink ended and dist_sink has received nothing"), std::string::npos) << f.text;
}

// appsrc: an application pushes a batch into both pads and waits without an end of stream. The hold must release
// the output on its own (no further buffer comes to do it).
TEST(StreamPairing, TheHoldReleasesWithoutFurtherBuffers) {
  StreamPairing s;
  s.start(config());
  Report r;
  for (uint64_t i = 0; i < 3; i++) {
    OutputItem it;
    it.kind = OutputItem::buffer;
    it.payload = std::make_shared<int>(int(i));
    ASSERT_EQ(s.push_output(std::move(it)), Flow::ok);
    s.push(kRefPad, frame(i), &r);
    s.push(kDistPad, frame(i), &r);
  }
  int pushed = 0;
  auto task = std::async(std::launch::async, [&] {
    OutputItem it;
    SteadyClock::time_point deadline;
    bool check = false;
    while (pushed < 3 && s.next_output(&it, &deadline, &check)) {
      if (check) {
        s.open_output();  // the element's upstream check: nothing pending
        continue;
      }
      pushed++;
    }
    return pushed;
  });
  ASSERT_EQ(task.wait_for(kBound), std::future_status::ready) << "the held output was never released";
  EXPECT_EQ(task.get(), 3);
  EXPECT_EQ(drain(s).pairs.size(), 3u);
}

TEST(StreamPairing, TheHoldOpensAfterItsBoundWithoutAPartner) {
  StreamPairing s;
  s.start(config());  // preroll_hold 200 ms
  OutputItem it;
  it.kind = OutputItem::buffer;
  s.push_output(std::move(it));
  auto task = std::async(std::launch::async, [&] {
    OutputItem out;
    SteadyClock::time_point deadline;
    bool check = false;
    return s.next_output(&out, &deadline, &check) && !check;
  });
  EXPECT_EQ(task.wait_for(100ms), std::future_status::timeout) << "held while the partner may still come";
  ASSERT_EQ(task.wait_for(kBound), std::future_status::ready);
  EXPECT_TRUE(task.get());
}

TEST(StreamPairing, EventsBeforeTheFirstBufferAreNotHeld) {
  StreamPairing s;
  s.start(config());
  OutputItem ev;
  ev.kind = OutputItem::event;
  s.push_output(std::move(ev));
  OutputItem out;
  SteadyClock::time_point deadline;
  bool check = false;
  ASSERT_TRUE(s.next_output(&out, &deadline, &check));
  EXPECT_FALSE(check);
  EXPECT_EQ(out.kind, OutputItem::event);
}

TEST(StreamPairing, LiveOutputIsNotHeld) {
  StreamPairing s;
  s.start(config());
  s.set_live(kRefPad, true);
  OutputItem it;
  it.kind = OutputItem::buffer;
  s.push_output(std::move(it));
  OutputItem out;
  SteadyClock::time_point deadline;
  bool check = false;
  ASSERT_TRUE(s.next_output(&out, &deadline, &check));
  EXPECT_FALSE(check);
  EXPECT_TRUE(s.output_open());
}

TEST(StreamPairing, AFailedOutputIsReturnedToTheOutputPad) {
  StreamPairing s;
  s.start(config());
  s.output_failed();
  OutputItem it;
  EXPECT_EQ(s.push_output(std::move(it)), Flow::error);
}

TEST(StreamPairing, AfterTheReferenceEndedTheOtherPadIsToldEos) {
  PairingConfig c = config();
  StreamPairing s;
  s.start(c);
  Report r;
  s.push(kRefPad, frame(0), &r);
  s.push(kDistPad, frame(0), &r);
  s.end(kRefPad, &r);
  EXPECT_EQ(s.push(kDistPad, frame(1), &r), Flow::eos);
  EXPECT_FALSE(s.over()) << "not live: over once every stream ended";
  s.end(kDistPad, &r);
  EXPECT_TRUE(s.over());
}

TEST(StreamPairing, TheOutputPadIsNeverToldEosByThePairing) {
  StreamPairing s;
  s.start(config());
  Report r;
  s.end(kDistPad, &r);
  EXPECT_EQ(s.push(kRefPad, frame(0), &r), Flow::ok);
}

TEST(StreamPairing, AutoSyncSearchesAroundDistOffsetAndUsesWhatItFinds) {
  StreamPairing s;
  int centre_seen = -99;
  s.sync_search = [&](const std::vector<Frame>&, const std::vector<Frame>&, int centre, int, SyncFound* out) {
    centre_seen = centre;
    out->offset = 2;  // the whole offset
    return true;
  };
  s.add_pad(kDistPad, 2, true);
  s.start(config());
  Report r;
  // The distorted stream is two frames late: its frame i + 2 shows reference frame i (timestamps shifted too).
  for (uint64_t i = 0; i < 80; i++) {
    s.push(kRefPad, frame(i), &r);
    s.push(kDistPad, frame(i), &r);
  }
  s.end(kRefPad, &r);
  s.end(kDistPad, &r);
  Drained d = drain(s);
  EXPECT_EQ(centre_seen, 2);
  ASSERT_EQ(r.synced.size(), 1u);
  EXPECT_EQ(r.synced[0].found.offset, 2);
  ASSERT_EQ(d.pairs.size(), 78u);
  for (const Pair& p : d.pairs) EXPECT_EQ(p.dist.pts, p.ref.pts + 2 * kFrame) << "the offset counted once";
  EXPECT_EQ(s.counts(kDistPad).skips[unsigned(SkipReason::offset)], 2u);
  expect_accounted(s.counts(kDistPad), "auto-sync");
}

TEST(StreamPairing, AHugeOffsetLeavesEveryFrameOutAndSaysSo) {
  StreamPairing s;
  s.add_pad(kDistPad, 1000000, false);
  s.start(config());
  Report r;
  for (uint64_t i = 0; i < 5; i++) {
    s.push(kRefPad, frame(i), &r);
    s.push(kDistPad, frame(i), &r);
  }
  s.end(kRefPad, &r);
  s.end(kDistPad, &r);
  EXPECT_TRUE(drain(s).pairs.empty());
  EXPECT_EQ(s.counts(kDistPad).skips[unsigned(SkipReason::offset)], 5u);
  EXPECT_EQ(s.counts(kDistPad).skips[unsigned(SkipReason::no_distorted)], 5u);
  expect_accounted(s.counts(kDistPad), "huge offset");
}

TEST(StreamPairing, AFlushingSeekEndsTheSegmentOnceAndDropsTheOldFrames) {
  StreamPairing s;
  s.start(config());
  Report r;
  s.push(kRefPad, frame(0), &r);
  s.push(kDistPad, frame(0), &r);
  s.push(kRefPad, frame(1), &r);
  EXPECT_TRUE(s.flush_start(kRefPad, 7));
  // The distorted pad's flush comes later; a frame of the old segment in between is flushed, not paired or counted.
  EXPECT_EQ(s.push(kDistPad, frame(1), &r), Flow::flushing);
  EXPECT_FALSE(s.flush_start(kDistPad, 7));
  s.flush_stop(kRefPad);
  s.flush_stop(kDistPad);
  s.push(kRefPad, frame(0), &r);
  s.push(kDistPad, frame(0), &r);
  Drained d = drain(s);
  EXPECT_EQ(d.segment_ends, 1);
  EXPECT_EQ(d.pairs.size(), 1u) << "the pair formed before the seek is dropped with its segment";
  EXPECT_EQ(skipped(s.counts(kDistPad)), 0u) << "no spurious skips after a seek";
}

TEST(StreamPairing, LiveDropsTheOldestAsLateAndSaysEachReasonOnce) {
  StreamPairing s;
  s.set_live(kRefPad, true);
  s.start(config());
  s.set_live(kRefPad, true);
  Report r;
  FailureText f;
  for (uint64_t i = 0; i < 20; i++) {
    s.push(kRefPad, frame(i), &r);
    EXPECT_EQ(s.wait_for_room(kRefPad, &r, &f), Flow::ok);
  }
  EXPECT_EQ(s.counts(kDistPad).skips[unsigned(SkipReason::late)], 12u) << "8 frames held";
  ASSERT_EQ(r.first_live_skips.size(), 1u);
  // The partners of frames skipped as late are left out without a second count.
  for (uint64_t i = 0; i < 20; i++) s.push(kDistPad, frame(i), &r);
  EXPECT_EQ(s.counts(kDistPad).skips[unsigned(SkipReason::late)], 12u);
  EXPECT_EQ(drain(s).pairs.size(), 8u);
  expect_accounted(s.counts(kDistPad), "live late");
}

TEST(StreamPairing, LiveLeavesPairsTheScorerCannotTakeForTheTemporalFeatures) {
  PairingConfig c = config();
  c.live_pending_pairs = 2;
  StreamPairing s;
  s.start(c);
  s.set_live(kRefPad, true);
  Report r;
  for (uint64_t i = 0; i < 5; i++) {
    s.push(kRefPad, frame(i), &r);
    s.push(kDistPad, frame(i), &r);
  }
  Drained d = drain(s);
  ASSERT_EQ(d.pairs.size(), 5u) << "every pair still reaches the scorer (motion stays exact)";
  EXPECT_EQ(std::count(d.scored.begin(), d.scored.end(), false), 3);
  EXPECT_EQ(s.counts(kDistPad).skips[unsigned(SkipReason::busy)], 3u);
}

TEST(StreamPairing, StopWakesEveryWait) {
  StreamPairing s;
  s.start(config());
  Report r;
  for (uint64_t i = 0; i < 9; i++) s.push(kRefPad, frame(i), &r);
  auto room = std::async(std::launch::async, [&] {
    Report rr;
    FailureText f;
    return s.wait_for_room(kRefPad, &rr, &f);
  });
  auto work = std::async(std::launch::async, [&] {
    Work w;
    return s.next_work(&w, SteadyClock::time_point::max());
  });
  auto out = std::async(std::launch::async, [&] {
    OutputItem it;
    SteadyClock::time_point d;
    bool check;
    return s.next_output(&it, &d, &check);
  });
  std::this_thread::sleep_for(50ms);
  s.stop();
  ASSERT_EQ(room.wait_for(kBound), std::future_status::ready);
  ASSERT_EQ(work.wait_for(kBound), std::future_status::ready);
  ASSERT_EQ(out.wait_for(kBound), std::future_status::ready);
  EXPECT_EQ(room.get(), Flow::flushing);
  EXPECT_FALSE(work.get());
  EXPECT_FALSE(out.get());
  // The session's loop calls again until the element stops it: now the call waits (for the deadline, or for
  // wake_session) instead of returning at once, which made that loop spin (under valgrind for minutes).
  Work w;
  const auto t0 = SteadyClock::now();
  EXPECT_FALSE(s.next_work(&w, t0 + 200ms));
  EXPECT_GE(SteadyClock::now() - t0, 200ms) << "next_work returned before its deadline while stopping";
  auto woken = std::async(std::launch::async, [&] {
    Work w2;
    return s.next_work(&w2, SteadyClock::time_point::max());
  });
  std::this_thread::sleep_for(50ms);
  s.wake_session();
  ASSERT_EQ(woken.wait_for(kBound), std::future_status::ready) << "wake_session did not end the wait";
  EXPECT_FALSE(woken.get());
}

TEST(StreamPairing, FailWakesWaitsWithAnError) {
  StreamPairing s;
  s.start(config());
  Report r;
  for (uint64_t i = 0; i < 9; i++) s.push(kRefPad, frame(i), &r);
  auto room = std::async(std::launch::async, [&] {
    Report rr;
    FailureText f;
    return s.wait_for_room(kRefPad, &rr, &f);
  });
  std::this_thread::sleep_for(50ms);
  s.fail();
  ASSERT_EQ(room.wait_for(kBound), std::future_status::ready);
  EXPECT_EQ(room.get(), Flow::error);
  EXPECT_EQ(s.push(kDistPad, frame(0), &r), Flow::error);
}

// A ladder: one reference, several renditions. A reference frame waits while any rendition still needs it and is
// shared by every pair it forms; each rendition has its own pairing state and counts.
TEST(StreamPairing, RenditionsShareTheReferenceAndPairOnTheirOwn) {
  StreamPairing s;
  s.add_pad(2, 0, false);
  s.add_pad(3, 0, false);
  s.start(config());
  Report r;
  for (uint64_t i = 0; i < 6; i++) {
    s.push(kRefPad, frame(i), &r);
    s.push(kDistPad, frame(i), &r);
    if (i != 3) s.push(2, frame(i), &r);  // rendition 2 lacks frame 3
  }
  // Rendition 3 lags: the reference frames wait for it.
  for (uint64_t i = 0; i < 6; i++) s.push(3, frame(i), &r);
  for (unsigned p : {kRefPad, kDistPad, 2u, 3u}) s.end(p, &r);
  Drained d = drain(s);
  std::map<unsigned, int> per;
  for (const Pair& p : d.pairs) {
    per[p.pad]++;
    EXPECT_EQ(p.ref.pts, p.dist.pts);
  }
  EXPECT_EQ(per[kDistPad], 6);
  EXPECT_EQ(per[2], 5);
  EXPECT_EQ(per[3], 6);
  EXPECT_EQ(s.counts(2).skips[unsigned(SkipReason::no_distorted)], 1u);
  EXPECT_EQ(skipped(s.counts(3)), 0u);
  EXPECT_EQ(skipped(s.counts(kDistPad)), 0u);
  for (unsigned p : {kDistPad, 2u, 3u}) expect_accounted(s.counts(p), "ladder");
  EXPECT_EQ(d.stream_ends, 1);
}

TEST(StreamPairing, ARenditionRequestedLateStartsAtItsFirstFrame) {
  StreamPairing s;
  s.start(config());
  Report r;
  for (uint64_t i = 0; i < 4; i++) {
    s.push(kRefPad, frame(i), &r);
    s.push(kDistPad, frame(i), &r);
  }
  s.add_pad(2, 0, false);  // requested while running; its branch lags the reference by two frames
  s.push(kRefPad, frame(4), &r);
  s.push(kDistPad, frame(4), &r);
  for (uint64_t i = 5; i < 8; i++) {
    s.push(kRefPad, frame(i), &r);
    s.push(kDistPad, frame(i), &r);
  }
  for (uint64_t i = 5; i < 8; i++) s.push(2, frame(i), &r);
  for (unsigned p : {kRefPad, kDistPad, 2u}) s.end(p, &r);
  Drained d = drain(s);
  int late = 0;
  for (const Pair& p : d.pairs) late += p.pad == 2;
  EXPECT_EQ(late, 3);
  const RenditionCounts c = s.counts(2);
  EXPECT_TRUE(c.late_join);
  EXPECT_EQ(c.first_ref_pts, 5 * kFrame);
  EXPECT_EQ(c.ref_frames, 3u);
  EXPECT_EQ(skipped(c), 0u) << "frames before it joined are not its skips";
}

TEST(StreamPairing, AnUnlinkedDistSinkBesideRequestPadsIsNotWaitedFor) {
  StreamPairing s;
  s.is_linked = [](unsigned p) { return p != kDistPad; };
  s.add_pad(2, 0, false);
  s.start(config());
  Report r;
  for (uint64_t i = 0; i < 20; i++) {
    s.push(kRefPad, frame(i), &r);
    s.push(2, frame(i), &r);
    FailureText f;
    ASSERT_EQ(s.wait_for_room(kRefPad, &r, &f), Flow::ok) << "dist_sink would hold the reference";
  }
  s.end(kRefPad, &r);
  s.end(2, &r);
  EXPECT_TRUE(s.over());
  EXPECT_EQ(s.renditions(), std::vector<unsigned>{2});
}

TEST(StreamPairing, AReleasedRequestPadEndsItsRendition) {
  StreamPairing s;
  s.add_pad(2, 0, false);
  s.start(config());
  Report r;
  s.push(kRefPad, frame(0), &r);
  s.push(kDistPad, frame(0), &r);
  s.remove_pad(2);
  Work w;
  bool pad_end = false;
  while (s.next_work(&w, SteadyClock::now())) pad_end = pad_end || (w.kind == Work::pad_end && w.p.pad == 2);
  EXPECT_TRUE(pad_end);
  EXPECT_EQ(s.counts(2).skips[unsigned(SkipReason::no_distorted)], 1u) << "its counts stay for its pooled message";
  s.end(kRefPad, &r);
  s.end(kDistPad, &r);
  EXPECT_TRUE(s.over());
}

TEST(StreamPairing, GapsAndOutOfSegmentFramesAreCounted) {
  StreamPairing s;
  s.start(config());
  Report r;
  s.push(kDistPad, frame(0), &r);
  s.push(kDistPad, frame(1), &r);
  s.gap(kRefPad, 2 * kFrame, &r);  // the reference has no frames before 80 ms
  s.skip_unpaired(kDistPad, SkipReason::out_of_segment, 5 * kFrame, &r);
  const RenditionCounts c = s.counts(kDistPad);
  EXPECT_EQ(c.skips[unsigned(SkipReason::no_reference)], 2u);
  EXPECT_EQ(c.skips[unsigned(SkipReason::out_of_segment)], 1u);
}

}  // namespace
}  // namespace vmafx::gst
