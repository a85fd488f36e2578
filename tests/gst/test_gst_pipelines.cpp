// SPDX-License-Identifier: LGPL-2.1-or-later
// The element in the pipelines users build (issue 11): live sources, a slowed or encoded branch behind a tee, a
// reference that ends first, buffers without or with broken timestamps, different frame rates, an unlinked pad,
// properties changed while playing, interlaced caps, offsets between the streams. Each case asserts the right pairs
// (identical content: PSNR-Y 60 dB, libvmaf's cap, or more and VMAF >= 97 on every scored frame), the skip counts and
// warnings, or the error; every wait is bounded and a run that reaches its bound fails saying what it waited for.
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gst_harness.h"
#include "support.h"

namespace vmafx::test {
namespace {

#define REQUIRE_GST()                            \
  do {                                           \
    std::string why_;                            \
    if (!gst_ready(&why_)) GTEST_SKIP() << why_; \
  } while (0)

#define REQUIRE_ELEMENTS(...)                                                                   \
  do {                                                                                          \
    for (const char* e_ : {__VA_ARGS__}) {                                                      \
      GstElementFactory* f_ = gst_element_factory_find(e_);                                     \
      if (!f_) GTEST_SKIP() << "GStreamer element " << e_ << " is missing (scripts/setup.sh)";   \
      gst_object_unref(f_);                                                                     \
    }                                                                                           \
  } while (0)

// Generous: CI is two loaded cores. A run that reaches it fails as "timed out" with the pipeline named.
constexpr double kRunBound = 300;

RunResult run(const std::string& launch, RunOptions o = {}) {
  o.timeout_s = kRunBound;
  RunResult r = run_pipeline(launch, o);
  EXPECT_FALSE(r.timed_out) << "no end of stream or error within " << kRunBound << " s from:\n" << launch;
  return r;
}

guint64 pooled_u64(const RunResult& r, const char* field) {
  return r.pooled.empty() ? G_MAXUINT64 : get_uint64(r.pooled.back().get(), field);
}

// Identical content on both pads: every scored frame has libvmaf's PSNR cap and a VMAF of an exact copy.
void expect_identical_pairs(const RunResult& r, const std::string& ctx) {
  for (const auto& f : r.frames) {
    const double psnr = get_double(f.get(), "psnr-y");
    const double vmaf = get_double(f.get(), "score");
    EXPECT_TRUE(std::isinf(psnr) || psnr >= 60.0) << ctx << " frame " << get_int(f.get(), "index") << ": psnr-y "
                                                  << psnr << " (a mispaired frame)";
    EXPECT_GE(vmaf, 97.0) << ctx << " frame " << get_int(f.get(), "index");
    // Frames of the same time: within half a frame (two live sources stamp their frames a little apart).
    const double dt = double(get_uint64(f.get(), "reference-timestamp")) -
                      double(get_uint64(f.get(), "distorted-timestamp"));
    EXPECT_LT(std::fabs(dt), 20e6) << ctx;
  }
}

// Live: on a machine busy with other work the scorer (at the lowest CPU priority, so that capture keeps real time)
// may fall behind and whole pairs are skipped as busy. Every frame is then scored or skipped-busy, nothing else.
void expect_scored_or_busy(const RunResult& r, guint64 total, const std::string& ctx) {
  ASSERT_EQ(r.pooled.size(), 1u) << ctx;
  const guint64 busy = get_uint64(r.pooled[0].get(), "skipped-busy");
  EXPECT_EQ(get_uint64(r.pooled[0].get(), "frames") + busy, total) << ctx;
  EXPECT_EQ(get_uint64(r.pooled[0].get(), "frames-skipped"), busy) << ctx << ": a skip other than skipped-busy";
  EXPECT_GT(r.frames.size(), 0u) << ctx;
  if (busy) std::printf("%s: %llu of %llu pairs skipped-busy (machine load)\n", ctx.c_str(),
                        (unsigned long long)busy, (unsigned long long)total);
}

std::vector<BusMessage> element_warnings(const RunResult& r) {
  std::vector<BusMessage> out;
  for (const auto& w : r.warnings)
    if (w.source == "v") out.push_back(w);
  return out;
}

// What the element says as INFO (what GStreamer's vmaf does without a word is no WARNING).
std::vector<BusMessage> element_infos(const RunResult& r, const std::string& containing = "") {
  std::vector<BusMessage> out;
  for (const auto& w : r.infos)
    if (w.source == "v" && w.text.find(containing) != std::string::npos) out.push_back(w);
  return out;
}

std::string all_text(const std::vector<BusMessage>& ms) {
  std::string s;
  for (const auto& m : ms) s += m.text + " | " + m.debug + "\n";
  return s;
}

const char* kLive320 = "video/x-raw,format=I420,width=320,height=240,framerate=25/1";

// ---------------------------------------------------------------------------------------------------------------
// 1. Live, one branch slowed: every frame pairs with its own copy (the aggregator paired frames of other times).

TEST(Live, SlowedBranchBehindATeePairsEveryFrameWithItsCopy) {
  REQUIRE_GST();
  const RunResult r = run(std::string("videotestsrc is-live=true num-buffers=50 pattern=ball ! ") + kLive320 +
                          " ! tee name=t t. ! queue ! v.ref_sink t. ! queue ! identity sleep-time=50000 ! "
                          "v.dist_sink vmafxhip name=v psnr=true ! fakesink sync=true");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
  expect_identical_pairs(r, "identity sleep-time");
  expect_scored_or_busy(r, 50, "identity sleep-time");
  for (const auto& w : element_warnings(r))
    EXPECT_NE(w.text.find("skipped-busy"), std::string::npos) << w.text;
}

// 1b. Live, an encoder on the fly: each distorted frame is the decode of the reference frame of its time.
TEST(Live, EncoderBranchPairsEachDecodedFrameWithItsSource) {
  REQUIRE_GST();
  REQUIRE_ELEMENTS("x264enc", "avdec_h264");
  const RunResult r =
      run(std::string("videotestsrc is-live=true num-buffers=50 pattern=ball ! ") + kLive320 +
          " ! tee name=t t. ! queue ! v.ref_sink t. ! queue ! x264enc tune=zerolatency speed-preset=ultrafast "
          "bitrate=3000 ! avdec_h264 ! v.dist_sink vmafxhip name=v psnr=true ! fakesink sync=true");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
  // A frame scored against a neighbour of the moving ball gives 17 to 24 dB; its own decode well above 30.
  for (const auto& f : r.frames)
    EXPECT_GT(get_double(f.get(), "psnr-y"), 30.0) << "frame " << get_int(f.get(), "index");
  expect_scored_or_busy(r, 50, "x264 branch");
}

// 2. A live reference that ends first: its 20 frames are scored (never 21), the distorted frames after it are
// skipped and said or refused.
TEST(Live, ReferenceThatEndsFirstScoresItsFramesOnly) {
  REQUIRE_GST();
  const RunResult r = run(std::string("videotestsrc is-live=true num-buffers=20 pattern=ball ! ") + kLive320 +
                          " ! v.ref_sink videotestsrc is-live=true num-buffers=25 pattern=ball ! " + kLive320 +
                          " ! v.dist_sink vmafxhip name=v psnr=true ! fakesink sync=true");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  expect_identical_pairs(r, "short live reference");
  // Never 21: no distorted frame paired with a repeated reference frame.
  EXPECT_EQ(pooled_u64(r, "frames") + pooled_u64(r, "skipped-busy"), 20u);
  // Distorted frames that arrived before the element finished are counted and said; those after it are refused
  // (GST_FLOW_EOS upstream) and not counted.
  size_t said = 0;
  for (const auto& w : element_warnings(r))
    said += w.text.find("skipped-no-reference") != std::string::npos &&
            w.text.find("reference ended first") != std::string::npos;
  EXPECT_EQ(said, pooled_u64(r, "skipped-no-reference") ? 1u : 0u) << all_text(element_warnings(r));
}

// The same without a live source: the longer stream is drained, the warning has both lengths.
TEST(EndOfStream, ReferenceThatEndsFirstNotLive) {
  REQUIRE_GST();
  const RunResult r = run(std::string("videotestsrc num-buffers=20 pattern=ball ! ") + kLive320 +
                          " ! v.ref_sink videotestsrc num-buffers=25 pattern=ball ! " + kLive320 +
                          " ! v.dist_sink vmafxhip name=v psnr=true ! fakesink");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 20u);
  expect_identical_pairs(r, "short reference");
  // The distorted stream is read until the reference ended (then told EOS: its frames can no longer pair); a length
  // difference is said as INFO (GStreamer's vmaf says nothing).
  EXPECT_TRUE(element_warnings(r).empty()) << all_text(element_warnings(r));
  std::vector<BusMessage> w;
  for (const auto& m : r.infos)
    if (m.source == "v" && m.text.find("reference had 20 frames") != std::string::npos) w.push_back(m);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].text.find("ended first"), std::string::npos) << w[0].text;
  ASSERT_TRUE(w[0].details);
  EXPECT_EQ(get_uint64(w[0].details.get(), "frames-paired"), 20u);
  EXPECT_EQ(r.frames_skipped, pooled_u64(r, "skipped-no-reference"));
}

// ---------------------------------------------------------------------------------------------------------------
// 3. An encoder on the fly with default queues: the reference frames wait in the element while x264enc's lookahead
// fills, so the pipeline completes (it deadlocked in preroll).

std::string encoder_launch(const std::string& props) {
  const Pair p = long_pair();  // 256x144, 32 frames
  return "filesrc location=\"" + p.ref_path() + "\" ! rawvideoparse width=" + std::to_string(p.width) +
         " height=" + std::to_string(p.height) +
         " format=i420 framerate=25/1 ! tee name=t t. ! queue ! v.ref_sink "
         "t. ! queue ! x264enc bitrate=300 ! avdec_h264 ! v.dist_sink vmafxhip name=v psnr=true " +
         props + " ! fakesink";
}

TEST(Encoder, OnTheFlyWithDefaultQueuesCompletes) {
  REQUIRE_GST();
  REQUIRE_ELEMENTS("x264enc", "avdec_h264");
  const RunResult r = run(encoder_launch(""));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 32u);
  EXPECT_EQ(pooled_u64(r, "frames-skipped"), 0u);
  for (const auto& f : r.frames) EXPECT_GT(get_double(f.get(), "psnr-y"), 25.0) << get_int(f.get(), "index");
}

// Beyond the bound the element says which property to raise instead of deadlocking.
TEST(Encoder, TooSmallAHoldIsAnErrorNamingTheProperty) {
  REQUIRE_GST();
  REQUIRE_ELEMENTS("x264enc", "avdec_h264");
  const RunResult r = run(encoder_launch("max-reference-frames=2 stall-timeout=3"));
  const auto e = r.element_errors();
  ASSERT_EQ(e.size(), 1u) << r.describe_errors();
  EXPECT_NE(e[0].text.find("max-reference-frames"), std::string::npos) << e[0].text;
}

// ---------------------------------------------------------------------------------------------------------------
// appsrc feeders: frames of a videotestsrc-like gray ramp, with the timestamps a test asks for.

GstBuffer* ramp_frame(unsigned w, unsigned h, unsigned i, GstClockTime pts, GstClockTime duration) {
  const gsize size = gsize(w) * h * 3 / 2;
  GstBuffer* b = gst_buffer_new_allocate(nullptr, size, nullptr);
  GstMapInfo m;
  gst_buffer_map(b, &m, GST_MAP_WRITE);
  for (gsize k = 0; k < size; k++) m.data[k] = guint8((k * 7 + i * 13) & 0xff);
  gst_buffer_unmap(b, &m);
  GST_BUFFER_PTS(b) = pts;
  GST_BUFFER_DURATION(b) = duration;
  return b;
}

struct Feed {
  std::vector<GstClockTime> pts;  // per buffer (GST_CLOCK_TIME_NONE: none)
  std::vector<unsigned> content;  // frame content index per buffer
};

Feed regular(unsigned n) {
  Feed f;
  for (unsigned i = 0; i < n; i++) {
    f.pts.push_back(i * 40 * GST_MSECOND);
    f.content.push_back(i);
  }
  return f;
}

RunResult run_appsrc(const Feed& ref, const Feed& dist, const std::string& props,
                     const std::string& caps = "video/x-raw,format=I420,width=64,height=48,framerate=25/1",
                     const std::string& dist_caps = "") {
  RunOptions opt;
  opt.setup = [&](GstElement* pipeline) {
    for (int k = 0; k < 2; k++) {
      const Feed& feed = k == 0 ? ref : dist;
      GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), k == 0 ? "r" : "d");
      for (size_t i = 0; i < feed.pts.size(); i++) {
        GstBuffer* b = ramp_frame(64, 48, feed.content[i], feed.pts[i],
                                  GST_CLOCK_TIME_IS_VALID(feed.pts[i]) ? 40 * GST_MSECOND : GST_CLOCK_TIME_NONE);
        gst_app_src_push_buffer(GST_APP_SRC(src), b);
      }
      gst_app_src_end_of_stream(GST_APP_SRC(src));
      gst_object_unref(src);
    }
  };
  const std::string dc = dist_caps.empty() ? caps : dist_caps;
  return run("appsrc name=r format=time caps=\"" + caps + "\" ! v.ref_sink appsrc name=d format=time caps=\"" + dc +
                 "\" ! v.dist_sink vmafxhip name=v psnr=true " + props + " ! fakesink",
             opt);
}

// 4. Buffers without timestamps: an error naming the pad and pairing=arrival; pairing=arrival scores them.
TEST(Timestamps, BuffersWithoutPtsAreAnErrorNamingThePadAndPairingArrival) {
  REQUIRE_GST();
  Feed none = regular(10);
  for (auto& t : none.pts) t = GST_CLOCK_TIME_NONE;
  for (int which = 0; which < 3; which++) {  // 0: both pads, 1: ref_sink only, 2: dist_sink only
    const RunResult r = run_appsrc(which == 2 ? regular(10) : none, which == 1 ? regular(10) : none, "");
    const auto e = r.element_errors();
    ASSERT_EQ(e.size(), 1u) << which << r.describe_errors();
    EXPECT_EQ(e[0].domain, GST_STREAM_ERROR);
    EXPECT_NE(e[0].text.find("without a timestamp"), std::string::npos) << e[0].text;
    if (which == 1) {
      EXPECT_NE(e[0].text.find("ref_sink"), std::string::npos) << e[0].text;
    }
    if (which == 2) {
      EXPECT_NE(e[0].text.find("dist_sink"), std::string::npos) << e[0].text;
    }
    EXPECT_NE(e[0].debug.find("pairing=arrival"), std::string::npos) << e[0].debug;
    EXPECT_TRUE(r.frames.empty());
  }
  const RunResult r = run_appsrc(none, none, "pairing=arrival");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 10u);
  expect_identical_pairs(r, "pairing=arrival");
}

// 6. Non-monotonic and duplicate PTS: counted, said, and their frames' partners not reused.
TEST(Timestamps, DuplicateAndBackwardsPtsAreCountedAndWarned) {
  REQUIRE_GST();
  Feed dist = regular(20);
  dist.pts[5] = dist.pts[4];   // duplicate
  dist.pts[10] = dist.pts[8];  // backwards
  const RunResult r = run_appsrc(regular(20), dist, "");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 18u);
  expect_identical_pairs(r, "broken timestamps");
  EXPECT_EQ(pooled_u64(r, "skipped-duplicate"), 1u);
  EXPECT_EQ(pooled_u64(r, "skipped-non-monotonic"), 1u);
  EXPECT_EQ(pooled_u64(r, "skipped-no-distorted"), 2u);  // reference frames 5 and 10
  EXPECT_TRUE(element_warnings(r).empty()) << all_text(element_warnings(r));
  const auto w = element_infos(r, "not scored");
  ASSERT_EQ(w.size(), 1u) << all_text(w);
  EXPECT_NE(w[0].text.find("skipped-duplicate"), std::string::npos) << w[0].text;
  EXPECT_NE(w[0].text.find("skipped-non-monotonic"), std::string::npos) << w[0].text;
}

// A gap in one stream (frames it dropped): the other stream's frames of that time are skipped, never paired with a
// neighbour.
TEST(Timestamps, MissingFramesAreSkippedNotPairedWithNeighbours) {
  REQUIRE_GST();
  Feed dist;
  for (unsigned i = 0; i < 20; i++) {
    if (i == 7 || i == 8 || i == 13) continue;
    dist.pts.push_back(i * 40 * GST_MSECOND);
    dist.content.push_back(i);
  }
  const RunResult r = run_appsrc(regular(20), dist, "");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 17u);
  expect_identical_pairs(r, "dropped distorted frames");
  EXPECT_EQ(pooled_u64(r, "skipped-no-distorted"), 3u);
}

// 5. Frame rates that differ: refused naming both and videorate, unless pairing=arrival.
TEST(Caps, DifferentFrameRatesAreRefusedNamingBothAndVideorate) {
  REQUIRE_GST();
  const std::string c25 = "video/x-raw,format=I420,width=64,height=48,framerate=25/1";
  const std::string c30 = "video/x-raw,format=I420,width=64,height=48,framerate=30/1";
  RunResult r = run_appsrc(regular(10), regular(10), "", c25, c30);
  auto e = r.element_errors();
  ASSERT_EQ(e.size(), 1u) << r.describe_errors();
  EXPECT_EQ(e[0].domain, GST_CORE_ERROR);
  EXPECT_EQ(e[0].code, GST_CORE_ERROR_NEGOTIATION);
  for (const char* needle : {"25/1", "30/1", "videorate", "pairing=arrival"})
    EXPECT_NE(e[0].text.find(needle), std::string::npos) << needle << " not in: " << e[0].text;
  r = run_appsrc(regular(10), regular(12), "pairing=arrival", c25, c30);
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 10u);
  expect_identical_pairs(r, "arrival at two rates");
  // The fix the error names: videorate on the distorted branch.
  r = run("videotestsrc num-buffers=60 pattern=ball ! video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! "
          "videorate ! video/x-raw,framerate=25/1 ! v.dist_sink videotestsrc num-buffers=50 pattern=ball ! "
          "video/x-raw,format=I420,width=64,height=48,framerate=25/1 ! v.ref_sink vmafxhip name=v ! fakesink");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_GE(r.frames.size(), 49u);
}

// 9. Interlaced caps: refused naming deinterlace.
TEST(Caps, InterlacedVideoIsRefusedNamingDeinterlace) {
  REQUIRE_GST();
  const std::string c = "video/x-raw,format=I420,width=64,height=48,framerate=25/1,interlace-mode=interleaved";
  const RunResult r = run_appsrc(regular(4), regular(4), "", c);
  const auto e = r.element_errors();
  ASSERT_EQ(e.size(), 1u) << r.describe_errors();
  EXPECT_NE(e[0].text.find("deinterlace"), std::string::npos) << e[0].text;
  EXPECT_NE(e[0].text.find("interleaved"), std::string::npos) << e[0].text;
}

// Colorimetry or range that differ between the pads: one warning, the scores as they are.
TEST(Caps, DifferentColorimetryIsWarnedOnce) {
  REQUIRE_GST();
  const RunResult r = run_appsrc(regular(5), regular(5), "",
                                 "video/x-raw,format=I420,width=64,height=48,framerate=25/1,colorimetry=bt709",
                                 "video/x-raw,format=I420,width=64,height=48,framerate=25/1,colorimetry=bt601");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_TRUE(element_warnings(r).empty()) << all_text(element_warnings(r));
  const auto w = element_infos(r, "colorimetry");
  ASSERT_EQ(w.size(), 1u) << all_text(w);
  EXPECT_EQ(r.frames.size(), 5u);
}

// dist_sink offers the reference's size first: videoscale upstream scales to it without a caps filter when the
// reference's caps are known first; otherwise the element scales the distorted frames itself (bicubic, said once).
// Either way every frame is scored, none is left out for a renegotiation.
TEST(Caps, VideoscaleBeforeDistSinkAdaptsToTheReferenceSize) {
  REQUIRE_GST();
  const RunResult r = run(
      "videotestsrc num-buffers=10 ! video/x-raw,format=I420,width=320,height=240,framerate=25/1 ! v.ref_sink "
      "videotestsrc num-buffers=10 ! video/x-raw,format=I420,width=160,height=120,framerate=25/1 ! videoscale ! "
      "v.dist_sink vmafxhip name=v ! fakesink");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 10u);
  EXPECT_EQ(r.frames_skipped, 0u);
}

// With scale-method=none the sizes must agree: a distorted stream that negotiated another size before the reference's
// caps came is one clear error naming both sizes (no frame is scored at a size it does not have).
TEST(Caps, WithoutScalingAnotherSizeIsAnErrorNamingBoth) {
  REQUIRE_GST();
  RunOptions opt;
  std::thread feeder;
  opt.setup = [&](GstElement* pipeline) {
    feeder = std::thread([pipeline] {
      GstElement* v = gst_bin_get_by_name(GST_BIN(pipeline), "v");
      GstPad* dist = gst_element_get_static_pad(v, "dist_sink");
      for (int k = 0; k < 5000; k++) {  // up to 50 s
        GstCaps* c = gst_pad_get_current_caps(dist);
        if (c) {
          gst_caps_unref(c);
          break;
        }
        g_usleep(10000);
      }
      gst_object_unref(dist);
      gst_object_unref(v);
      GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "r");
      GstCaps* caps = gst_caps_from_string("video/x-raw,format=I420,width=64,height=48,framerate=25/1");
      g_object_set(src, "caps", caps, nullptr);
      gst_caps_unref(caps);
      for (unsigned i = 0; i < 30; i++)
        gst_app_src_push_buffer(GST_APP_SRC(src), ramp_frame(64, 48, i, i * 40 * GST_MSECOND, 40 * GST_MSECOND));
      gst_app_src_end_of_stream(GST_APP_SRC(src));
      gst_object_unref(src);
    });
  };
  const RunResult r =
      run("appsrc name=r format=time ! v.ref_sink "
          "videotestsrc num-buffers=30 ! video/x-raw,format=I420,width=32,height=24,framerate=25/1 ! videoscale ! "
          "v.dist_sink vmafxhip name=v scale-method=none ! fakesink",
          opt);
  feeder.join();
  const auto e = r.element_errors();
  ASSERT_EQ(e.size(), 1u) << r.describe_errors();
  EXPECT_EQ(e[0].domain, GST_CORE_ERROR);
  EXPECT_EQ(e[0].code, GST_CORE_ERROR_NEGOTIATION);
  EXPECT_NE(e[0].text.find("32x24"), std::string::npos) << e[0].text;
  EXPECT_NE(e[0].text.find("64x48"), std::string::npos) << e[0].text;
  EXPECT_EQ(e[0].text.find("videoscale"), std::string::npos) << "no videoscale advice: " << e[0].text;
}

// ---------------------------------------------------------------------------------------------------------------
// 7. An unlinked sink pad: an error naming it, not a hang.

TEST(Pads, UnlinkedSinkPadIsAnErrorNamingIt) {
  REQUIRE_GST();
  RunResult r = run("videotestsrc num-buffers=30 ! video/x-raw,format=I420,width=64,height=48,framerate=25/1 ! "
                    "v.dist_sink vmafxhip name=v ! fakesink");
  auto e = r.element_errors();
  ASSERT_EQ(e.size(), 1u) << r.describe_errors();
  EXPECT_NE(e[0].text.find("ref_sink is not linked"), std::string::npos) << e[0].text;
  // Live: once the link bound has passed with frames waiting for the unlinked pad (the documented time).
  r = run("videotestsrc is-live=true num-buffers=300 ! video/x-raw,format=I420,width=64,height=48,framerate=25/1 ! "
          "v.ref_sink vmafxhip name=v max-reference-frames=10 ! fakesink");
  e = r.element_errors();
  ASSERT_EQ(e.size(), 1u) << r.describe_errors();
  EXPECT_NE(e[0].text.find("dist_sink is not linked"), std::string::npos) << e[0].text;
}

// ---------------------------------------------------------------------------------------------------------------
// 8. Properties while PLAYING: what the element reads at the start is refused with GLib's warning and keeps its
// value; what applies from the next frame changes.

struct LogCapture {
  std::mutex mu;
  std::vector<std::string> warnings;
};

void capture_log(const gchar*, GLogLevelFlags level, const gchar* message, gpointer user) {
  if (!(level & G_LOG_LEVEL_WARNING)) return;
  auto* c = static_cast<LogCapture*>(user);
  std::lock_guard<std::mutex> lk(c->mu);
  c->warnings.push_back(message);
}

TEST(Properties, ChangesWhilePlayingAreRefusedOrApplyFromTheNextFrame) {
  REQUIRE_GST();
  LogCapture log;
  const guint handler = g_log_set_handler(nullptr, G_LOG_LEVEL_WARNING, capture_log, &log);
  RunOptions opt;
  opt.frame_messages = false;
  bool changed = false;
  gboolean psnr_after = TRUE;
  gchar* results_after = nullptr;
  opt.on_frame = [&](GstElement* pipeline, const GstStructure* f) {
    if (changed || get_int(f, "index") < 2) return;
    changed = true;
    GstElement* v = gst_bin_get_by_name(GST_BIN(pipeline), "v");
    g_object_set(v, "psnr", TRUE, "results-filename", "/tmp/never-written.json", "frame-message", FALSE, nullptr);
    g_object_get(v, "psnr", &psnr_after, "results-filename", &results_after, nullptr);
    gst_object_unref(v);
  };
  const RunResult r = run("videotestsrc num-buffers=40 ! video/x-raw,format=I420,width=64,height=48,framerate=25/1 ! "
                          "tee name=t t. ! queue ! v.ref_sink t. ! queue ! identity sleep-time=20000 ! v.dist_sink "
                          "vmafxhip name=v frame-message=true ! fakesink",
                          opt);
  g_log_remove_handler(nullptr, handler);
  ASSERT_TRUE(changed);
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_FALSE(psnr_after) << "psnr changed while PLAYING";
  EXPECT_EQ(results_after, nullptr);
  g_free(results_after);
  size_t refused = 0;
  for (const auto& w : log.warnings)
    refused += w.find("cannot change in the PLAYING state") != std::string::npos;
  EXPECT_EQ(refused, 2u) << "one GLib warning for psnr, one for results-filename";
  // frame-message=false applied from the next frame: far fewer than 40 frame messages, the pooled one still.
  EXPECT_LT(r.frames.size(), 20u);
  EXPECT_EQ(pooled_u64(r, "frames"), 40u);
  for (const auto& f : r.frames) EXPECT_TRUE(std::isnan(get_double(f.get(), "psnr-y")));
}

// ---------------------------------------------------------------------------------------------------------------
// Offsets: a distorted stream with three leading frames (a decoder's delay) scored with dist-offset, and found by
// auto-sync.

Feed delayed(unsigned n, unsigned lead) {
  Feed f;
  for (unsigned i = 0; i < n; i++) {
    f.pts.push_back(i * 40 * GST_MSECOND);
    f.content.push_back(i < lead ? 200 + i : i - lead);
  }
  return f;
}

TEST(Offset, DistOffsetPairsTheShiftedFrames) {
  REQUIRE_GST();
  const RunResult r = run_appsrc(regular(40), delayed(40, 3), "dist-offset=3");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 37u);
  for (const auto& f : r.frames) {
    EXPECT_GE(get_double(f.get(), "psnr-y"), 60.0) << get_int(f.get(), "index");
    EXPECT_EQ(get_uint64(f.get(), "distorted-timestamp"), get_uint64(f.get(), "reference-timestamp") + 120 * GST_MSECOND);
  }
  EXPECT_EQ(pooled_u64(r, "skipped-offset"), 3u);
  // The reference's last three frames have no distorted frame once the offset moved it: counted and said.
  EXPECT_EQ(pooled_u64(r, "skipped-no-distorted"), 3u);
  EXPECT_TRUE(element_warnings(r).empty()) << all_text(element_warnings(r));
  const auto w = element_infos(r, "not scored");
  ASSERT_EQ(w.size(), 1u) << all_text(w);
  EXPECT_EQ(w[0].text.find("skipped-offset"), std::string::npos) << "the offset's own skips are intended: " << w[0].text;
}

TEST(Offset, AutoSyncFindsTheOffsetAndSaysIt) {
  REQUIRE_GST();
  const RunResult r = run_appsrc(regular(60), delayed(60, 3), "auto-sync=true");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 57u);
  for (const auto& f : r.frames) EXPECT_GE(get_double(f.get(), "psnr-y"), 60.0) << get_int(f.get(), "index");
  EXPECT_EQ(pooled_u64(r, "skipped-offset"), 3u);
  EXPECT_EQ(pooled_u64(r, "frames"), 57u);
  size_t syncs = 0;
  for (const auto& m : r.others) {
    if (g_strcmp0(gst_structure_get_string(m.get(), "type"), "sync") != 0) continue;
    syncs++;
    EXPECT_EQ(get_int(m.get(), "offset", -999), 3);
    EXPECT_GE(get_double(m.get(), "psnr-y"), 60.0);
  }
  EXPECT_EQ(syncs, 1u);
}


// ---------------------------------------------------------------------------------------------------------------
// Live, a branch one second behind: beyond max-reference-frames its frames are skipped as late (counted once per pair,
// warned, and the latency query's comparison names the frames needed); with room for the lag every frame pairs.

std::string lagging_launch(unsigned max_frames) {
  return std::string("videotestsrc is-live=true num-buffers=50 pattern=ball ! ") +
         "video/x-raw,format=I420,width=160,height=120,framerate=25/1 ! tee name=t t. ! queue ! v.ref_sink t. ! "
         "queue min-threshold-time=1000000000 max-size-time=3000000000 ! v.dist_sink vmafxhip name=v psnr=true "
         "max-reference-frames=" +
         std::to_string(max_frames) + " ! fakesink sync=true";
}

TEST(Live, ABranchBeyondTheHoldIsSkippedAsLateAndSaid) {
  REQUIRE_GST();
  RunResult r = run(lagging_launch(5));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_GT(pooled_u64(r, "skipped-late"), 30u);
  EXPECT_EQ(pooled_u64(r, "frames") + pooled_u64(r, "frames-skipped"), 50u) << "a lost pair counted twice";
  expect_identical_pairs(r, "late branch");
  const std::string w = all_text(element_warnings(r));
  EXPECT_NE(w.find("max-reference-frames=5"), std::string::npos) << w;
  EXPECT_NE(w.find("raise max-reference-frames to at least"), std::string::npos) << w;
  // A second's lag fits in 60 frames at 25 fps: every frame pairs, the burst the queue releases at its end too.
  r = run(lagging_launch(60));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  expect_identical_pairs(r, "lag within the hold");
  expect_scored_or_busy(r, 50, "lag within the hold");
}

// ---------------------------------------------------------------------------------------------------------------
// Models and features (issues 14 and 15): several models in one pass, auto, the features property.

// An odd-sized 8-bit 4:2:0 pair of 8 frames (generated: g5).
std::string pair_c_launch(const std::string& props) {
  const Pair p = *find_generated_pair("g5_");
  return raw_yuv_source(p.ref_path(), p.width, p.height, 8) + " ! v.ref_sink " +
         raw_yuv_source(p.dist_path(), p.width, p.height, 8) + " ! v.dist_sink vmafxhip name=v threads=1 " + props +
         " ! fakesink";
}

TEST(Models, SeveralModelsInOnePassEqualSingleRuns) {
  REQUIRE_GST();
  const RunResult both = run(pair_c_launch("model-filename=vmaf_v0.6.1,vmaf_4k_v0.6.1"));
  const RunResult one = run(pair_c_launch("model-filename=vmaf_v0.6.1"));
  const RunResult four = run(pair_c_launch("model-filename=vmaf_4k_v0.6.1"));
  ASSERT_TRUE(both.eos && one.eos && four.eos) << both.describe_errors();
  ASSERT_EQ(both.frames.size(), 8u);
  ASSERT_EQ(one.frames.size(), 8u);
  ASSERT_EQ(four.frames.size(), 8u);
  for (size_t i = 0; i < 8; i++) {
    EXPECT_EQ(get_double(both.frames[i].get(), "score"), get_double(one.frames[i].get(), "score")) << i;
    EXPECT_EQ(get_double(both.frames[i].get(), "vmaf_4k_v0.6.1"), get_double(four.frames[i].get(), "score")) << i;
    EXPECT_EQ(get_double(both.frames[i].get(), "integer-adm2"), get_double(one.frames[i].get(), "integer-adm2"));
  }
  EXPECT_EQ(get_double(both.pooled[0].get(), "vmaf_4k_v0.6.1"), get_double(four.pooled[0].get(), "score"));
}

TEST(Models, AutoPicksByTheReferenceHeightAndSaysWhich) {
  REQUIRE_GST();
  const RunResult r = run(pair_c_launch("model-filename=auto"));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  bool said = false;
  for (const auto& m : r.infos) said = said || m.text.find("model-filename=auto: vmaf_v0.6.1") != std::string::npos;
  EXPECT_TRUE(said);
  const RunResult plain = run(pair_c_launch(""));
  ASSERT_EQ(r.frames.size(), plain.frames.size());
  for (size_t i = 0; i < r.frames.size(); i++)
    EXPECT_EQ(get_double(r.frames[i].get(), "score"), get_double(plain.frames[i].get(), "score"));
}

TEST(Features, FeaturesPropertyTakesLibvmafNames) {
  REQUIRE_GST();
  RunResult r = run(pair_c_launch("features=psnr,float_ssim"));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  ASSERT_FALSE(r.frames.empty());
  EXPECT_FALSE(std::isnan(get_double(r.frames[0].get(), "psnr-y")));
  EXPECT_FALSE(std::isnan(get_double(r.frames[0].get(), "ssim")));
  r = run(pair_c_launch("features=no_such_feature"));
  auto e = r.element_errors();
  ASSERT_EQ(e.size(), 1u) << r.describe_errors();
  EXPECT_NE((e[0].text + e[0].debug).find("no_such_feature"), std::string::npos) << e[0].debug;
  r = run(pair_c_launch("features=\"psnr=enable_chroma\""));
  e = r.element_errors();
  ASSERT_EQ(e.size(), 1u) << r.describe_errors();
  EXPECT_NE(e[0].debug.find("not name=value"), std::string::npos) << e[0].debug;
}

// A model file of binary garbage: the error keeps its reason in valid UTF-8 (GStreamer drops text that is not).
TEST(Errors, BinaryModelFileKeepsItsReasonInValidUtf8) {
  REQUIRE_GST();
  const std::string bad = temp_path("garbage-model.json");
  {
    FILE* f = std::fopen(bad.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    const unsigned char junk[] = {0xff, 0xfe, 0x7b, 0x80, 0x81, 0xc3, 0x28, 0xa0, 0xa1, 0x00, 0xe2, 0x28, 0xa1};
    for (int k = 0; k < 50; k++) std::fwrite(junk, 1, sizeof junk, f);
    std::fclose(f);
  }
  const RunResult r = run(pair_c_launch("model-filename=\"" + bad + "\""));
  const auto e = r.element_errors();
  ASSERT_EQ(e.size(), 1u) << r.describe_errors();
  EXPECT_TRUE(g_utf8_validate(e[0].debug.c_str(), -1, nullptr));
  EXPECT_NE(e[0].debug.find("malformed JSON"), std::string::npos) << e[0].debug;
  EXPECT_NE(e[0].text.find(bad), std::string::npos) << e[0].text;
}

// Position and duration queries go to the output stream's upstream (the reference's rawvideoparse here).
TEST(Queries, PositionAndDurationComeFromTheOutputStream) {
  REQUIRE_GST();
  const Pair p = long_pair();
  gint64 duration = -1, position = -1;
  RunOptions opt;
  opt.on_frame = [&](GstElement* pipeline, const GstStructure* f) {
    if (get_int(f, "index") != 5 || duration >= 0) return;
    EXPECT_TRUE(gst_element_query_duration(pipeline, GST_FORMAT_TIME, &duration));
    EXPECT_TRUE(gst_element_query_position(pipeline, GST_FORMAT_TIME, &position));
  };
  const RunResult r = run(raw_yuv_source(p.ref_path(), p.width, p.height, 8) + " ! v.ref_sink " +
                              raw_yuv_source(p.dist_path(), p.width, p.height, 8) +
                              " ! identity sleep-time=5000 ! v.dist_sink vmafxhip name=v threads=1 ! fakesink",
                          opt);
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(duration, gint64(32 * 40 * GST_MSECOND));
  EXPECT_GT(position, 0);
}

// A distorted stream of another size is brought to the reference's size by the engine (scale-method), and the
// messages say so.
TEST(Caps, ASmallerDistortedStreamIsScaledAndSaysFromWhat) {
  REQUIRE_GST();
  const RunResult r = run(
      "videotestsrc num-buffers=10 pattern=ball ! video/x-raw,format=I420,width=320,height=240,framerate=25/1 ! "
      "tee name=t t. ! queue ! v.ref_sink t. ! queue ! videoscale ! "
      "video/x-raw,format=I420,width=160,height=120,framerate=25/1 ! v.dist_sink vmafxhip name=v "
      "scale-method=bicubic psnr=true ! fakesink");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
  ASSERT_EQ(r.frames.size(), 10u);
  for (const auto& f : r.frames) {
    const gchar* from = gst_structure_get_string(f.get(), "scaled-from");
    EXPECT_STREQ(from, "160x120");
    EXPECT_GT(get_double(f.get(), "psnr-y"), 20.0);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Preroll: the sink gets its first buffer only once the other pad has its first frame and the elements upstream of it
// have committed their state (gstvmafxhipupstream.h: GStreamer 1.22 may otherwise never forward EOS when decodebin
// finishes the preroll last), and that wait is bounded, so a producer that starts only in PLAYING still works.

// Monotonic time of the first buffer through a pad (a probe), 0 while none.
struct FirstBuffer {
  std::mutex mu;
  gint64 at = 0;
  void watch(GstElement* pipeline, const char* element, const char* pad) {
    GstElement* e = gst_bin_get_by_name(GST_BIN(pipeline), element);
    GstPad* p = gst_element_get_static_pad(e, pad);
    gst_pad_add_probe(
        p, GST_PAD_PROBE_TYPE_BUFFER,
        [](GstPad*, GstPadProbeInfo*, gpointer user) {
          auto* self = static_cast<FirstBuffer*>(user);
          std::lock_guard<std::mutex> lk(self->mu);
          if (!self->at) self->at = g_get_monotonic_time();
          return GST_PAD_PROBE_OK;
        },
        this, nullptr);
    gst_object_unref(p);
    gst_object_unref(e);
  }
  gint64 get() {
    std::lock_guard<std::mutex> lk(mu);
    return at;
  }
};

// Ten reference frames at once; the distorted ones from a thread, `delay_ms` after the pipeline is built (or, with
// `after_playing`, once the pipeline posted PLAYING).
RunResult run_late_distorted(unsigned delay_ms, bool after_playing, FirstBuffer* sink_first, FirstBuffer* dist_first) {
  RunOptions opt;
  std::thread feeder;
  std::mutex mu;
  std::condition_variable cv;
  bool playing = false;
  opt.setup = [&](GstElement* pipeline) {
    sink_first->watch(pipeline, "sink", "sink");
    dist_first->watch(pipeline, "v", "dist_sink");
    GstBus* bus = gst_element_get_bus(pipeline);
    gst_bus_enable_sync_message_emission(bus);
    struct Ctx {
      GstElement* pipeline;
      std::mutex* mu;
      std::condition_variable* cv;
      bool* playing;
    };
    auto* ctx = new Ctx{pipeline, &mu, &cv, &playing};
    g_signal_connect_data(
        bus, "sync-message::state-changed",
        G_CALLBACK((+[](GstBus*, GstMessage* m, gpointer user) {
          auto* c = static_cast<Ctx*>(user);
          GstState next;
          gst_message_parse_state_changed(m, nullptr, &next, nullptr);
          if (GST_MESSAGE_SRC(m) != GST_OBJECT(c->pipeline) || next != GST_STATE_PLAYING) return;
          std::lock_guard<std::mutex> lk(*c->mu);
          *c->playing = true;
          c->cv->notify_all();
        })),
        ctx, [](gpointer c, GClosure*) { delete static_cast<Ctx*>(c); }, GConnectFlags(0));
    gst_object_unref(bus);
    GstElement* r = gst_bin_get_by_name(GST_BIN(pipeline), "r");
    for (unsigned i = 0; i < 10; i++)
      gst_app_src_push_buffer(GST_APP_SRC(r), ramp_frame(64, 48, i, i * 40 * GST_MSECOND, 40 * GST_MSECOND));
    gst_app_src_end_of_stream(GST_APP_SRC(r));
    gst_object_unref(r);
    GstElement* d = gst_bin_get_by_name(GST_BIN(pipeline), "d");
    feeder = std::thread([d, delay_ms, after_playing, &mu, &cv, &playing] {
      if (after_playing) {
        std::unique_lock<std::mutex> lk(mu);
        // Bounded: a deadlocked preroll fails the test on the run's own bound, not here.
        cv.wait_for(lk, std::chrono::seconds(120), [&] { return playing; });
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      }
      for (unsigned i = 0; i < 10; i++)
        gst_app_src_push_buffer(GST_APP_SRC(d), ramp_frame(64, 48, i, i * 40 * GST_MSECOND, 40 * GST_MSECOND));
      gst_app_src_end_of_stream(GST_APP_SRC(d));
      gst_object_unref(d);
    });
  };
  const std::string caps = "video/x-raw,format=I420,width=64,height=48,framerate=25/1";
  RunResult r = run("appsrc name=r format=time caps=\"" + caps + "\" ! v.ref_sink appsrc name=d format=time caps=\"" +
                        caps + "\" ! v.dist_sink vmafxhip name=v psnr=true ! fakesink name=sink",
                    opt);
  if (feeder.joinable()) {
    {
      std::lock_guard<std::mutex> lk(mu);
      playing = true;  // a run that ended otherwise releases the feeder
    }
    cv.notify_all();
    feeder.join();
  }
  return r;
}

TEST(Preroll, TheFirstOutputWaitsForTheOtherPadsFirstFrame) {
  REQUIRE_GST();
  FirstBuffer sink, dist;
  const RunResult r = run_late_distorted(600, false, &sink, &dist);
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 10u);
  expect_identical_pairs(r, "late distorted");
  ASSERT_GT(dist.get(), 0);
  ASSERT_GT(sink.get(), 0);
  EXPECT_GE(sink.get(), dist.get()) << "the sink prerolled " << (dist.get() - sink.get()) / 1000
                                    << " ms before dist_sink had a frame";
}

// A producer that starts only once the pipeline plays: the hold ends after its bound and the run completes.
TEST(Preroll, TheHoldIsBoundedForAProducerThatWaitsForPlaying) {
  REQUIRE_GST();
  FirstBuffer sink, dist;
  const RunResult r = run_late_distorted(0, true, &sink, &dist);
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 10u);
  expect_identical_pairs(r, "distorted after PLAYING");
  EXPECT_GT(dist.get(), sink.get());
}

// decodebin on the distorted branch (MJPEG in AVI, made here): the sink's READY -> PAUSED comes after decodebin's.
TEST(Preroll, TheSinkPrerollsAfterDecodebinOnTheOtherBranch) {
  REQUIRE_GST();
  REQUIRE_ELEMENTS("jpegenc", "avimux", "avidemux", "jpegdec", "decodebin");
  const std::string avi = temp_path("preroll.avi");
  const std::string caps = "video/x-raw,format=I420,width=64,height=48,framerate=25/1";
  {
    GError* err = nullptr;
    GstElement* enc = gst_parse_launch(
        ("videotestsrc num-buffers=12 pattern=ball ! " + caps + " ! jpegenc ! avimux ! filesink location=\"" + avi + "\"")
            .c_str(),
        &err);
    ASSERT_NE(enc, nullptr) << (err ? err->message : "");
    gst_element_set_state(enc, GST_STATE_PLAYING);
    GstBus* bus = gst_element_get_bus(enc);
    GstMessage* m = gst_bus_timed_pop_filtered(bus, 120 * GST_SECOND, GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    ASSERT_NE(m, nullptr) << "making the AVI: no EOS within 120 s";
    EXPECT_EQ(GST_MESSAGE_TYPE(m), GST_MESSAGE_EOS);
    gst_message_unref(m);
    gst_object_unref(bus);
    gst_element_set_state(enc, GST_STATE_NULL);
    gst_object_unref(enc);
  }
  for (int run_i = 0; run_i < 3; run_i++) {
    std::mutex mu;
    std::vector<std::string> paused;  // elements in the order they posted READY -> PAUSED
    RunOptions opt;
    opt.setup = [&](GstElement* pipeline) {
      GstBus* bus = gst_element_get_bus(pipeline);
      gst_bus_enable_sync_message_emission(bus);
      struct Ctx {
        std::mutex* mu;
        std::vector<std::string>* paused;
      };
      g_signal_connect_data(
          bus, "sync-message::state-changed",
          G_CALLBACK((+[](GstBus*, GstMessage* m, gpointer user) {
            auto* c = static_cast<Ctx*>(user);
            GstState old, next;
            gst_message_parse_state_changed(m, &old, &next, nullptr);
            if (old != GST_STATE_READY || next != GST_STATE_PAUSED) return;
            std::lock_guard<std::mutex> lk(*c->mu);
            c->paused->push_back(GST_OBJECT_NAME(GST_MESSAGE_SRC(m)));
          })),
          new Ctx{&mu, &paused}, [](gpointer c, GClosure*) { delete static_cast<Ctx*>(c); }, GConnectFlags(0));
      gst_object_unref(bus);
    };
    const RunResult r =
        run("videotestsrc num-buffers=12 pattern=ball ! " + caps + " ! v.ref_sink filesrc location=\"" + avi +
                "\" ! decodebin name=dec ! videoconvert ! " + caps + " ! v.dist_sink vmafxhip name=v ! fakesink name=sink",
            opt);
    ASSERT_TRUE(r.eos) << r.describe_errors();
    EXPECT_EQ(r.frames.size(), 12u);
    std::lock_guard<std::mutex> lk(mu);
    const auto at = [&](const char* name) {
      return std::find(paused.begin(), paused.end(), name) - paused.begin();
    };
    std::string order;
    for (const auto& n : paused) order += n + " ";
    ASSERT_LT(at("dec"), long(paused.size())) << order;
    ASSERT_LT(at("sink"), long(paused.size())) << order;
    EXPECT_LT(at("dec"), at("sink")) << "run " << run_i << ": READY -> PAUSED order " << order;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The scheduling regressions: each of these failed before the element's scheduling became StreamPairing and
// ScoringSession (the matrix in test_gst_matrix.cpp covers the shapes at large).

// A buffer of w x h with content index i, for feeds whose caps change.
struct Buf {
  unsigned w, h, content;
  GstClockTime pts;
};

std::vector<Buf> bufs(unsigned from, unsigned to, unsigned w, unsigned h, unsigned content_shift = 0) {
  std::vector<Buf> v;
  for (unsigned i = from; i < to; i++) v.push_back({w, h, i + content_shift, i * 40 * GST_MSECOND});
  return v;
}

std::string caps_of(unsigned w, unsigned h) {
  return "video/x-raw,format=I420,width=" + std::to_string(w) + ",height=" + std::to_string(h) + ",framerate=25/1";
}

// Two appsrc feeds; a change of size sets new caps on the appsrc before the buffer (a caps change mid-stream).
RunResult run_feeds(const std::vector<Buf>& ref, const std::vector<Buf>& dist, const std::string& props) {
  RunOptions opt;
  std::vector<std::thread> feeders;
  opt.setup = [&](GstElement* pipeline) {
    for (int k = 0; k < 2; k++) {
      GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), k == 0 ? "r" : "d");
      const std::vector<Buf>* feed = k == 0 ? &ref : &dist;
      feeders.emplace_back([src, feed] {
        unsigned w = 0, h = 0;
        for (const Buf& b : *feed) {
          if (b.w != w || b.h != h) {
            GstCaps* c = gst_caps_from_string(caps_of(b.w, b.h).c_str());
            gst_app_src_set_caps(GST_APP_SRC(src), c);
            gst_caps_unref(c);
            w = b.w;
            h = b.h;
          }
          gst_app_src_push_buffer(GST_APP_SRC(src), ramp_frame(b.w, b.h, b.content, b.pts, 40 * GST_MSECOND));
        }
        gst_app_src_end_of_stream(GST_APP_SRC(src));
        gst_object_unref(src);
      });
    }
  };
  const RunResult r = run("appsrc name=r format=time ! v.ref_sink appsrc name=d format=time ! v.dist_sink vmafxhip "
                          "name=v threads=1 psnr=true " + props + " ! fakesink",
                          opt);
  for (auto& t : feeders) t.join();
  return r;
}

// Both pads change size at frame 10: the frames before are read and scored with their own caps, those after with
// the new ones; each part equals a run of that part alone (the second starts with motion 0, as a stream does).
TEST(Scheduling, ACapsChangeOnBothPadsScoresEachPartWithItsCaps) {
  REQUIRE_GST();
  auto join = [](std::vector<Buf> a, const std::vector<Buf>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const RunResult r = run_feeds(join(bufs(0, 10, 64, 48), bufs(10, 20, 96, 72)),
                                join(bufs(0, 10, 64, 48, 1), bufs(10, 20, 96, 72, 1)), "");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
  ASSERT_EQ(r.frames.size(), 20u);
  const RunResult a = run_feeds(bufs(0, 10, 64, 48), bufs(0, 10, 64, 48, 1), "");
  const RunResult b = run_feeds(bufs(10, 20, 96, 72), bufs(10, 20, 96, 72, 1), "");
  ASSERT_EQ(a.frames.size(), 10u);
  ASSERT_EQ(b.frames.size(), 10u);
  for (unsigned i = 0; i < 20; i++) {
    const GstStructure* want = i < 10 ? a.frames[i].get() : b.frames[i - 10].get();
    EXPECT_EQ(get_int(r.frames[i].get(), "index"), gint(i));
    for (const char* f : {"score", "psnr-y", "integer-vif-scale0", "integer-adm2", "integer-motion2"})
      EXPECT_EQ(get_double(r.frames[i].get(), f), get_double(want, f)) << "frame " << i << " " << f;
  }
  bool said = false;
  for (const auto& m : r.infos) said = said || m.text.find("caps change") != std::string::npos;
  EXPECT_TRUE(said);
}

// Only the reference changes: the distorted frames are then scaled to the reference's new size, said once; the
// frames queued before the change are still read with the caps they came with.
TEST(Scheduling, ACapsChangeOnTheReferenceKeepsTheQueuedFramesCaps) {
  REQUIRE_GST();
  std::vector<Buf> ref = bufs(0, 10, 64, 48);
  for (const Buf& b : bufs(10, 20, 128, 96)) ref.push_back(b);
  const RunResult r = run_feeds(ref, bufs(0, 20, 64, 48, 1), "");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
  ASSERT_EQ(r.frames.size(), 20u);
  const RunResult a = run_feeds(bufs(0, 10, 64, 48), bufs(0, 10, 64, 48, 1), "");
  for (unsigned i = 0; i < 10; i++) {
    EXPECT_FALSE(gst_structure_has_field(r.frames[i].get(), "scaled-from")) << i;
    EXPECT_EQ(get_double(r.frames[i].get(), "psnr-y"), get_double(a.frames[i].get(), "psnr-y")) << i;
  }
  for (unsigned i = 10; i < 20; i++) {
    const gchar* from = gst_structure_get_string(r.frames[i].get(), "scaled-from");
    EXPECT_STREQ(from, "64x48") << i;
  }
  size_t said = 0;
  for (const auto& m : r.infos) said += m.text.find("are scaled to the reference's 128x96") != std::string::npos;
  EXPECT_EQ(said, 1u);
}

// auto-sync with dist-offset: the search is centred on dist-offset and the offset it finds is the whole offset
// (it was added to dist-offset: 33 instead of 99.9).
TEST(Scheduling, AutoSyncWithDistOffsetCountsTheOffsetOnce) {
  REQUIRE_GST();
  const RunResult r = run_appsrc(regular(60), delayed(60, 2), "auto-sync=true dist-offset=2");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 58u);
  for (const auto& f : r.frames) {
    const double psnr = get_double(f.get(), "psnr-y");
    EXPECT_TRUE(std::isinf(psnr) || psnr >= 60.0) << "a mispaired frame: psnr-y " << psnr;
    EXPECT_EQ(get_uint64(f.get(), "distorted-timestamp"), get_uint64(f.get(), "reference-timestamp") + 80 * GST_MSECOND);
  }
  bool synced = false;
  for (const auto& m : r.others)
    if (std::string(gst_structure_get_string(m.get(), "type")) == "sync")
      synced = get_int(m.get(), "offset", -99) == 2;
  EXPECT_TRUE(synced);
}

// A dist-offset of a million frames is taken (it was refused with a GLib warning and stayed 0): every frame is left
// out for it and counted.
TEST(Scheduling, AHugeDistOffsetIsTakenAndCounted) {
  REQUIRE_GST();
  GstElement* v = gst_element_factory_make("vmafxhip", nullptr);
  ASSERT_TRUE(v);
  g_object_set(v, "dist-offset", 1000000, nullptr);
  gint got = 0;
  g_object_get(v, "dist-offset", &got, nullptr);
  EXPECT_EQ(got, 1000000);
  gst_object_unref(v);
  const RunResult r = run_appsrc(regular(10), regular(10), "dist-offset=1000000");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(pooled_u64(r, "skipped-offset"), 10u);
  EXPECT_TRUE(r.frames.empty());
}

// A decoder bin on the distorted branch links its pad only once it knows the stream. A short reference ended before
// that ("dist_sink is not linked" at once, 3 of 3 runs), and a long one fills the element's hold meanwhile.
TEST(Scheduling, ADecoderBinLinkedLateIsNormal) {
  REQUIRE_GST();
  REQUIRE_ELEMENTS("x264enc", "avdec_h264", "mp4mux", "h264parse");
  const std::string mp4 = temp_path("late-link.mp4"), raw = temp_path("late-link.yuv");
  const std::string caps = caps_of(320, 240);
  RunResult made = run("videotestsrc num-buffers=300 pattern=ball ! " + caps + " ! tee name=t t. ! queue ! filesink "
                       "location=\"" + raw + "\" t. ! queue ! x264enc speed-preset=ultrafast ! h264parse ! mp4mux ! "
                       "filesink location=\"" + mp4 + "\"");
  ASSERT_TRUE(made.eos) << made.describe_errors();
  const std::string short_raw = temp_path("late-link-10.yuv");
  made = run("videotestsrc num-buffers=10 pattern=ball ! " + caps + " ! filesink location=\"" + short_raw + "\"");
  ASSERT_TRUE(made.eos) << made.describe_errors();
  for (const char* bin : {"decodebin", "decodebin3"}) {
    for (bool short_ref : {true, false}) {
      const std::string ref_src = "filesrc location=\"" + (short_ref ? short_raw : raw) +
                                  "\" ! rawvideoparse width=320 height=240 format=i420 framerate=25/1";
      RunOptions o;
      o.via_paused = true;
      const RunResult r = run(ref_src + " ! v.ref_sink filesrc location=\"" + mp4 + "\" ! " + bin +
                                  " ! v.dist_sink vmafxhip name=v max-reference-frames=5 ! fakesink",
                              o);
      ASSERT_TRUE(r.eos) << bin << r.describe_errors();
      EXPECT_TRUE(r.errors.empty()) << bin << r.describe_errors();
      EXPECT_EQ(r.frames.size(), short_ref ? 10u : 300u) << bin << (short_ref ? " short reference" : "");
    }
  }
}

// One source teed to both pads without queues: one thread feeds both pads. It stalled 30 s, then failed saying
// dist_sink had received nothing.
TEST(Scheduling, ATeeWithoutQueuesPairsEveryFrame) {
  REQUIRE_GST();
  const RunResult r = run("videotestsrc num-buffers=50 pattern=ball ! " + caps_of(64, 48) +
                          " ! tee name=t t. ! v.ref_sink t. ! v.dist_sink vmafxhip name=v psnr=true ! fakesink");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 50u);
  expect_identical_pairs(r, "tee without queues");
}

// An application pushes a batch into two appsrc and waits without an end of stream: the pipeline must preroll and
// play, and the output must flow (the preroll hold never released: READY, nothing out of src).
TEST(Scheduling, AnAppsrcBatchWithoutEosPrerollsAndPlays) {
  REQUIRE_GST();
  RunOptions opt;
  opt.via_paused = true;
  std::thread feeder;
  std::atomic<guint> out{0};
  std::atomic<bool> played_before_eos{false};
  opt.setup = [&](GstElement* pipeline) {
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    GstPad* sp = gst_element_get_static_pad(sink, "sink");
    gst_pad_add_probe(sp, GST_PAD_PROBE_TYPE_BUFFER,
                      [](GstPad*, GstPadProbeInfo*, gpointer d) {
                        static_cast<std::atomic<guint>*>(d)->fetch_add(1);
                        return GST_PAD_PROBE_OK;
                      },
                      &out, nullptr);
    gst_object_unref(sp);
    gst_object_unref(sink);
    feeder = std::thread([pipeline, &played_before_eos] {
      GstElement* src[2] = {gst_bin_get_by_name(GST_BIN(pipeline), "r"), gst_bin_get_by_name(GST_BIN(pipeline), "d")};
      // The reference's whole batch first (the output's buffers then wait for the hold), the distorted one after.
      for (GstElement* e : src) {
        for (unsigned i = 0; i < 10; i++)
          gst_app_src_push_buffer(GST_APP_SRC(e), ramp_frame(64, 48, i, i * 40 * GST_MSECOND, 40 * GST_MSECOND));
        g_usleep(200000);
      }
      GstState st = GST_STATE_NULL;
      for (int k = 0; k < 300 && st != GST_STATE_PLAYING; k++) gst_element_get_state(pipeline, &st, nullptr, 100 * GST_MSECOND);
      played_before_eos = st == GST_STATE_PLAYING;
      for (GstElement* e : src) {
        gst_app_src_end_of_stream(GST_APP_SRC(e));
        gst_object_unref(e);
      }
    });
  };
  const RunResult r = run("appsrc name=r format=time caps=\"" + caps_of(64, 48) + "\" ! v.ref_sink appsrc name=d "
                          "format=time caps=\"" + caps_of(64, 48) + "\" ! v.dist_sink vmafxhip name=v ! fakesink name=sink",
                          opt);
  feeder.join();
  EXPECT_TRUE(played_before_eos) << "the pipeline did not play (within 30 s) with the batch waiting, before any EOS";
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 10u);
  EXPECT_EQ(out.load(), 10u);
}

// src not linked: GStreamer's not-linked error, never a hang (it stayed up in some runs after the pooled message).
TEST(Scheduling, AnUnlinkedSrcIsTheNotLinkedError) {
  REQUIRE_GST();
  for (int i = 0; i < 5; i++) {
    const RunResult r = run("videotestsrc num-buffers=20 ! " + caps_of(64, 48) + " ! v.ref_sink videotestsrc "
                            "num-buffers=20 ! " + caps_of(64, 48) + " ! v.dist_sink vmafxhip name=v");
    ASSERT_FALSE(r.timed_out);
    bool not_linked = false;
    for (const auto& e : r.errors) not_linked = not_linked || e.debug.find("not-linked") != std::string::npos;
    EXPECT_TRUE(not_linked) << r.describe_errors();
  }
}

// A distorted stream of another display aspect ratio is an error naming both sizes unless allow-stretch=true; of the
// same aspect it is scaled, said once as INFO, and the pooled message says from what.
TEST(Scheduling, ScalingIsAnnouncedAndStretchingNeedsAllowStretch) {
  REQUIRE_GST();
  const std::string ref = "videotestsrc num-buffers=5 ! " + caps_of(64, 48) + " ! v.ref_sink ";
  RunResult r = run(ref + "videotestsrc num-buffers=5 ! " + caps_of(32, 24) + " ! v.dist_sink vmafxhip name=v ! fakesink");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 5u);
  ASSERT_EQ(r.pooled.size(), 1u);
  EXPECT_STREQ(gst_structure_get_string(r.pooled[0].get(), "scaled-from"), "32x24");
  size_t said = 0;
  for (const auto& m : r.infos) said += m.text.find("scaled to the reference's 64x48 (bicubic)") != std::string::npos;
  EXPECT_EQ(said, 1u);
  r = run(ref + "videotestsrc num-buffers=5 ! " + caps_of(64, 24) + " ! v.dist_sink vmafxhip name=v ! fakesink");
  const auto e = r.element_errors();
  ASSERT_EQ(e.size(), 1u) << r.describe_errors();
  EXPECT_EQ(e[0].code, GST_CORE_ERROR_NEGOTIATION);
  EXPECT_NE(e[0].text.find("64x24"), std::string::npos) << e[0].text;
  EXPECT_NE(e[0].text.find("aspect"), std::string::npos) << e[0].text;
  EXPECT_EQ(e[0].text.find("videoscale"), std::string::npos) << e[0].text;
  r = run(ref + "videotestsrc num-buffers=5 ! " + caps_of(64, 24) +
          " ! v.dist_sink vmafxhip name=v allow-stretch=true ! fakesink");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 5u);
}

}  // namespace
}  // namespace vmafx::test
