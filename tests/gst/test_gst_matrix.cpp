// SPDX-License-Identifier: LGPL-2.1-or-later
// The pipeline shapes people write, with real elements: the reference and the distorted stream each from a raw file,
// decodebin, decodebin3, uridecodebin, a live videotestsrc, an appsrc that pushes a batch and waits, or an encoder on
// the fly; one source teed to both pads with and without queues; src to fakesink, fakesink sync=true or nothing; the
// streams ending together, the reference alone (the distorted stream never ends), or the application ending them.
// Every run is started as gst-launch-1.0 starts it (PAUSED, then PLAYING on the pipeline's PAUSED message) and is
// bounded; a run that does not come back within its bound aborts the program naming its cell (a hang is a failure,
// never a skip). Each cell ends with the expected pairs — every frame paired or counted — or with one clear error.
// The matrix is printed with its counts.
//
//   Matrix.*          every reference x distorted pair of kinds once (src to fakesink, both EOS), and every src and
//                     end variant on the raw and decodebin shapes
//   Stress.*          the race-prone shapes (decoder bins, a tee without queues, live, appsrc) and the setup errors,
//                     VMAFX_STRESS_RUNS times each (default 20)
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <future>
#include <map>
#include <thread>
#include <sys/wait.h>

#include "gst_harness.h"

namespace {

using namespace vmafx::test;

constexpr unsigned kW = 160, kH = 120, kFrames = 30;
constexpr double kRunBoundS = 120;  // one pipeline; its teardown has as long again before the program aborts

#define REQUIRE_GST()                                \
  do {                                               \
    std::string why;                                 \
    if (!gst_ready(&why)) GTEST_SKIP() << why;       \
  } while (0)

std::string caps() {
  return "video/x-raw,format=I420,width=" + std::to_string(kW) + ",height=" + std::to_string(kH) +
         ",framerate=25/1";
}

bool has_element(const char* name) {
  GstElementFactory* f = gst_element_factory_find(name);
  if (!f) return false;
  gst_object_unref(f);
  return true;
}

// The media every cell reads: a raw clip and the same clip encoded to H.264 in Matroska (made once per process).
struct Media {
  std::string raw, mkv;
  bool ok = false;
  std::string why;
};
const Media& media() {
  static Media m = [] {
    Media x;
    x.raw = temp_path("matrix.yuv");
    x.mkv = temp_path("matrix.mkv");
    for (const char* e : {"x264enc", "avdec_h264", "matroskamux", "matroskademux", "h264parse"})
      if (!has_element(e)) {
        x.why = std::string(e) + " is not installed";
        return x;
      }
    RunOptions o;
    o.frame_messages = false;
    RunResult a = run_pipeline("videotestsrc num-buffers=" + std::to_string(kFrames) + " pattern=ball ! " + caps() +
                                   " ! filesink location=\"" + x.raw + "\"",
                               o);
    RunResult b = run_pipeline("filesrc location=\"" + x.raw + "\" ! rawvideoparse width=" + std::to_string(kW) +
                                   " height=" + std::to_string(kH) +
                                   " format=i420 framerate=25/1 ! x264enc speed-preset=ultrafast bitrate=1000 ! "
                                   "h264parse ! matroskamux ! filesink location=\"" + x.mkv + "\"",
                               o);
    x.ok = a.eos && b.eos;
    if (!x.ok) x.why = "making the test media failed: " + a.describe_errors() + b.describe_errors();
    return x;
  }();
  return m;
}

// One way to produce a stream for a pad.
struct Kind {
  const char* name;
  bool live;
  bool app;  // an appsrc the run feeds
  std::string (*chain)(const std::string& pad, bool endless);
};

std::string raw_chain(const std::string&, bool endless) {
  if (endless) return "videotestsrc pattern=ball ! " + caps();
  return "filesrc location=\"" + media().raw + "\" ! rawvideoparse width=" + std::to_string(kW) +
         " height=" + std::to_string(kH) + " format=i420 framerate=25/1";
}
std::string decodebin_chain(const std::string&, bool) { return "filesrc location=\"" + media().mkv + "\" ! decodebin"; }
std::string decodebin3_chain(const std::string&, bool) {
  return "filesrc location=\"" + media().mkv + "\" ! decodebin3";
}
std::string uridecodebin_chain(const std::string&, bool) { return "uridecodebin uri=\"file://" + media().mkv + "\""; }
std::string live_chain(const std::string&, bool endless) {
  return "videotestsrc is-live=true pattern=ball " + (endless ? std::string() : "num-buffers=" + std::to_string(kFrames)) +
         " ! " + caps();
}
std::string appsrc_chain(const std::string& pad, bool) {
  return "appsrc name=app_" + pad + " format=time caps=\"" + caps() + "\"";
}
std::string encoder_chain(const std::string& pad, bool endless) {
  return raw_chain(pad, endless) + " ! x264enc speed-preset=ultrafast bitrate=800 ! avdec_h264";
}

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> k = {
      {"raw", false, false, raw_chain},
      {"decodebin", false, false, decodebin_chain},
      {"decodebin3", false, false, decodebin3_chain},
      {"uridecodebin", false, false, uridecodebin_chain},
      {"live", true, false, live_chain},
      {"appsrc", false, true, appsrc_chain},
      {"encoder", false, false, encoder_chain},
  };
  return k;
}
const Kind& kind(const std::string& name) {
  for (const Kind& k : kinds())
    if (name == k.name) return k;
  std::abort();
}

enum class Src { fakesink, sync, none };
enum class End { both, ref_only, app };
const char* src_name(Src s) { return s == Src::fakesink ? "fakesink" : s == Src::sync ? "fakesink sync=true" : "nothing"; }
const char* end_name(End e) { return e == End::both ? "both EOS" : e == End::ref_only ? "reference EOS" : "app stops"; }

struct Cell {
  std::string ref, dist;  // kinds; "tee" / "tee-noq" for one source teed to both
  Src src = Src::fakesink;
  End end = End::both;
  std::string props;
  std::string label() const {
    return ref + " x " + dist + ", src to " + src_name(src) + ", " + end_name(end) + (props.empty() ? "" : ", " + props);
  }
};

struct Outcome {
  RunResult r;
  guint64 paired = 0, ref_frames = 0, dist_frames = 0, scored = 0, skipped = 0;
  std::string verdict;
};

// Pushes kFrames ramp frames into an appsrc, then waits (no EOS) until the run ends it.
GstBuffer* frame_buffer(unsigned i) {
  const gsize size = gsize(kW) * kH * 3 / 2;
  GstBuffer* b = gst_buffer_new_allocate(nullptr, size, nullptr);
  GstMapInfo map;
  gst_buffer_map(b, &map, GST_MAP_WRITE);
  for (gsize k = 0; k < size; k++) map.data[k] = guint8((k * 7 + i * 13) & 0xff);
  gst_buffer_unmap(b, &map);
  GST_BUFFER_PTS(b) = i * 40 * GST_MSECOND;
  GST_BUFFER_DURATION(b) = 40 * GST_MSECOND;
  return b;
}

// Runs one cell, bounded: a run that does not return within its bound (teardown included) aborts the program with
// the cell's name, so that a hang can never pass.
Outcome run_cell(const Cell& c) {
  const Media& m = media();
  std::string launch;
  const bool teed = c.ref == "tee" || c.ref == "tee-noq";
  const bool endless_dist = c.end == End::ref_only || c.end == End::app;
  const bool endless_ref = c.end == End::app;
  if (teed) {
    const std::string q = c.ref == "tee" ? " ! queue" : "";
    launch = raw_chain("", endless_ref) + " ! tee name=t t." + q + " ! v.ref_sink t." + q + " ! v.dist_sink ";
  } else {
    launch = kind(c.ref).chain("ref", endless_ref) + " ! v.ref_sink " + kind(c.dist).chain("dist", endless_dist) +
             " ! v.dist_sink ";
  }
  launch += "vmafxhip name=v threads=2 " + c.props;
  if (c.src == Src::fakesink) launch += " ! fakesink";
  if (c.src == Src::sync) launch += " ! fakesink sync=true";
  (void)m;
  RunOptions opt;
  opt.via_paused = true;
  opt.timeout_s = kRunBoundS;
  std::vector<std::thread> feeders;
  std::atomic<bool> stop{false};
  opt.setup = [&](GstElement* pipeline) {
    for (const char* pad : {"ref", "dist"}) {
      GstElement* app = gst_bin_get_by_name(GST_BIN(pipeline), (std::string("app_") + pad).c_str());
      if (!app) continue;
      const bool endless = std::string(pad) == "ref" ? endless_ref : endless_dist;
      feeders.emplace_back([app, pipeline, endless, &stop] {
        // A batch, then a wait: the element must preroll and play without more buffers.
        for (unsigned i = 0; i < kFrames; i++) gst_app_src_push_buffer(GST_APP_SRC(app), frame_buffer(i));
        GstState st = GST_STATE_NULL;
        for (int k = 0; k < 200 && !stop; k++) {  // up to 20 s for PLAYING
          gst_element_get_state(pipeline, &st, nullptr, 100 * GST_MSECOND);
          if (st == GST_STATE_PLAYING) break;
        }
        g_usleep(300000);
        if (endless) {
          for (unsigned i = kFrames; !stop && i < 100000; i++) {
            if (gst_app_src_push_buffer(GST_APP_SRC(app), frame_buffer(i)) != GST_FLOW_OK) break;
            g_usleep(40000);
          }
        }
        gst_app_src_end_of_stream(GST_APP_SRC(app));
        gst_object_unref(app);
      });
    }
  };
  guint frames_seen = 0;
  bool eos_sent = false;
  opt.on_frame = [&](GstElement* pipeline, const GstStructure*) {
    if (c.end == End::app && ++frames_seen == 10 && !eos_sent) {
      eos_sent = true;
      gst_element_send_event(pipeline, gst_event_new_eos());
    }
  };
  auto fut = std::async(std::launch::async, [&] { return run_pipeline(launch, opt); });
  if (fut.wait_for(std::chrono::duration<double>(kRunBoundS * 2)) != std::future_status::ready) {
    std::fprintf(stderr, "HANG: %s did not return within %.0f s (teardown included)\n  %s\n", c.label().c_str(),
                 kRunBoundS * 2, launch.c_str());
    std::fflush(stderr);
    std::abort();
  }
  Outcome o;
  o.r = fut.get();
  stop = true;
  for (auto& t : feeders) t.join();
  if (!o.r.pooled.empty()) {
    const GstStructure* p = o.r.pooled.back().get();
    o.paired = get_uint64(p, "frames-paired", 0);
    o.ref_frames = get_uint64(p, "reference-frames", 0);
    o.dist_frames = get_uint64(p, "distorted-frames", 0);
    o.scored = get_uint64(p, "frames", 0);
    o.skipped = get_uint64(p, "frames-skipped", 0);
  }
  return o;
}

// The expectations of a cell; true when it is green. `why` says what failed.
bool judge(const Cell& c, Outcome* o, std::string* why) {
  const RunResult& r = o->r;
  const auto errors = r.errors;
  if (r.timed_out) {
    *why = "did not end within " + std::to_string(int(kRunBoundS)) + " s";
    return false;
  }
  if (c.src == Src::none) {
    // GStreamer's not-linked error (from upstream or the element), once per stream at most; never a hang.
    bool not_linked = false;
    for (const auto& e : errors) not_linked = not_linked || e.debug.find("not-linked") != std::string::npos;
    if (!not_linked && !r.eos) {
      *why = "no not-linked error: " + r.describe_errors();
      return false;
    }
    o->verdict = "not-linked error";
    return true;
  }
  if (!r.eos || !errors.empty()) {
    *why = "no EOS or an error: " + r.describe_errors();
    return false;
  }
  if (r.pooled.empty()) {
    *why = "no pooled message";
    return false;
  }
  for (const auto& w : r.warnings)
    if (w.source == "v" && w.text.find("No frame pairs") != std::string::npos) {
      *why = "nothing paired: " + w.text;
      return false;
    }
  // Nothing lost silently: every frame each pad received is paired or counted.
  std::string accounted;
  const GstStructure* p = r.pooled.back().get();
  const guint64 ref_skips = o->ref_frames - std::min(o->ref_frames, o->paired);
  (void)ref_skips;
  if (o->scored + get_uint64(p, "skipped-busy", 0) != o->paired) {
    *why = "scored + busy != paired";
    return false;
  }
  const bool live = (!c.ref.empty() && c.ref != "tee" && c.ref != "tee-noq" && kind(c.ref).live) ||
                    (!c.dist.empty() && c.dist != "tee" && c.dist != "tee-noq" && kind(c.dist).live);
  if (c.end == End::app) {
    if (o->paired < 10) {
      *why = "fewer than the 10 pairs seen before the stop";
      return false;
    }
  } else if (!live) {
    // Not live: every frame of the shorter stream pairs (the streams hold the same 30 frames).
    if (o->paired != kFrames) {
      *why = "paired " + std::to_string(o->paired) + " of " + std::to_string(kFrames);
      return false;
    }
  } else if (o->paired < kFrames / 2) {
    *why = "live: only " + std::to_string(o->paired) + " pairs";
    return false;
  }
  if (r.frames.size() != o->scored) {
    *why = "frame messages " + std::to_string(r.frames.size()) + " != frames " + std::to_string(o->scored);
    return false;
  }
  // A pair is never of two times: pairs are of the same running time, so the two PTS differ by one constant (an
  // encoder may move its segment: x264enc's output runs from 1000 hours) in a stream that is not live.
  bool first = true;
  gint64 offset = 0;
  for (const auto& f : r.frames) {
    const gint64 d = gint64(get_uint64(f.get(), "distorted-timestamp")) - gint64(get_uint64(f.get(), "reference-timestamp"));
    if (first) offset = d;
    first = false;
    if (!live && d != offset) {
      *why = "pairs of different running times";
      return false;
    }
  }
  o->verdict = std::to_string(o->paired) + " pairs";
  return true;
}

struct Printed {
  std::vector<std::string> rows;
  ~Printed() {
    std::printf("\n==== pipeline-shape matrix ====\n");
    for (const auto& r : rows) std::printf("%s\n", r.c_str());
  }
};
Printed& printed() {
  static Printed p;
  return p;
}

void check(const Cell& c) {
  Outcome o = run_cell(c);
  std::string why;
  const bool ok = judge(c, &o, &why);
  char row[512];
  std::snprintf(row, sizeof row, "%-4s %-58s ref %3llu dist %3llu paired %3llu scored %3llu skipped %3llu  %s",
                ok ? "ok" : "FAIL", c.label().c_str(), (unsigned long long)o.ref_frames,
                (unsigned long long)o.dist_frames, (unsigned long long)o.paired, (unsigned long long)o.scored,
                (unsigned long long)o.skipped, ok ? o.verdict.c_str() : why.c_str());
  printed().rows.push_back(row);
  EXPECT_TRUE(ok) << c.label() << ": " << why;
}

bool kind_available(const std::string& k, std::string* why) {
  if (k == "encoder" && !(has_element("x264enc") && has_element("avdec_h264"))) {
    *why = "x264enc / avdec_h264 are not installed";
    return false;
  }
  return true;
}

#define REQUIRE_MEDIA()                                 \
  do {                                                  \
    REQUIRE_GST();                                      \
    if (!media().ok) GTEST_SKIP() << media().why;       \
  } while (0)

TEST(Matrix, EveryReferenceAndDistortedKind) {
  REQUIRE_MEDIA();
  for (const Kind& a : kinds()) {
    for (const Kind& b : kinds()) {
      std::string why;
      if (!kind_available(a.name, &why) || !kind_available(b.name, &why)) GTEST_SKIP() << why;
      check({a.name, b.name});
    }
  }
  check({"tee", "tee"});
  check({"tee-noq", "tee-noq"});
}

TEST(Matrix, SrcAndEndVariantsOnTheRawAndDecodebinShapes) {
  REQUIRE_MEDIA();
  const std::vector<std::pair<std::string, std::string>> shapes = {
      {"raw", "raw"}, {"raw", "decodebin"}, {"decodebin", "raw"}, {"tee-noq", "tee-noq"}};
  for (const auto& [a, b] : shapes) {
    for (Src s : {Src::fakesink, Src::sync, Src::none})
      for (End e : {End::both, End::ref_only, End::app}) {
        if (s == Src::fakesink && e == End::both) continue;  // the first test has it
        if (a == "decodebin" && e != End::both && e != End::app) continue;  // a file has an end: the app stops it
        Cell c{a, b, s, e};
        check(c);
      }
  }
}

// gst-launch-1.0 itself (the pipelines users type): a short raw reference ends before decodebin on the distorted
// branch has linked its pad. That was "dist_sink is not linked" in every run; now every run scores and ends.
TEST(Matrix, GstLaunchAShortReferenceBeforeADecoderLinks) {
  REQUIRE_GST();
  for (const char* e : {"x264enc", "mp4mux", "h264parse", "avdec_h264"})
    if (!has_element(e)) GTEST_SKIP() << e << " is not installed";
  const std::string raw = temp_path("launch-ref10.yuv"), mp4 = temp_path("launch-dist.mp4");
  const std::string c = "video/x-raw,format=I420,width=320,height=240,framerate=25/1";
  RunOptions o;
  o.frame_messages = false;
  ASSERT_TRUE(run_pipeline("videotestsrc num-buffers=10 pattern=ball ! " + c + " ! filesink location=\"" + raw + "\"", o).eos);
  ASSERT_TRUE(run_pipeline("videotestsrc num-buffers=300 pattern=ball ! " + c +
                               " ! x264enc speed-preset=ultrafast ! h264parse ! mp4mux ! filesink location=\"" + mp4 + "\"",
                           o)
                  .eos);
  for (const char* bin : {"decodebin", "decodebin3"}) {
    for (int i = 0; i < 3; i++) {
      const std::string out = temp_path("launch.txt");
      const std::string cmd = "timeout 120 gst-launch-1.0 -m filesrc location=\"" + raw +
                              "\" ! rawvideoparse width=320 height=240 format=i420 framerate=25/1 ! v.ref_sink "
                              "filesrc location=\"" + mp4 + "\" ! " + bin + " ! v.dist_sink vmafxhip name=v ! fakesink > \"" +
                              out + "\" 2>&1";
      const int rc = std::system(cmd.c_str());
      std::ifstream f(out);
      const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      const bool pooled = text.find("type=(string)pooled") != std::string::npos;
      char row[256];
      std::snprintf(row, sizeof row, "%-4s gst-launch-1.0: 10-frame raw reference x %s (late link), run %d", rc == 0 && pooled ? "ok" : "FAIL", bin, i + 1);
      printed().rows.push_back(row);
      EXPECT_EQ(rc, 0) << bin << " run " << i << ":\n" << text.substr(text.size() > 2000 ? text.size() - 2000 : 0);
      EXPECT_TRUE(pooled) << bin;
      EXPECT_EQ(text.find("is not linked"), std::string::npos) << bin;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Ladders: request pads dist_sink_%u, each rendition scored against the one reference as a run of its own would.

std::map<std::string, std::vector<Structure>> frames_by_pad(const RunResult& r) {
  std::map<std::string, std::vector<Structure>> out;
  for (const auto& f : r.frames) out[gst_structure_get_string(f.get(), "pad")].push_back(f);
  return out;
}

void expect_same_scores(const std::vector<Structure>& a, const std::vector<Structure>& b, const std::string& ctx) {
  ASSERT_EQ(a.size(), b.size()) << ctx;
  for (size_t i = 0; i < a.size(); i++) {
    const int n = gst_structure_n_fields(b[i].get());
    for (int k = 0; k < n; k++) {
      const char* f = gst_structure_nth_field_name(b[i].get(), k);
      if (gst_structure_get_field_type(b[i].get(), f) != G_TYPE_DOUBLE) continue;
      EXPECT_EQ(get_double(a[i].get(), f), get_double(b[i].get(), f)) << ctx << " frame " << i << " " << f;
    }
    EXPECT_EQ(get_int(a[i].get(), "index"), get_int(b[i].get(), "index")) << ctx;
  }
}

// The renditions' encoder: x264 in Matroska, else Theora in Ogg (a GStreamer with base plugins only, such as a GPU
// machine's runtime); empty when neither is installed.
std::string ladder_encoder(size_t k) {
  const std::string kbit = std::to_string(100 + 100 * k);
  if (has_element("x264enc") && has_element("matroskamux") && has_element("h264parse"))
    return "x264enc speed-preset=ultrafast bitrate=" + kbit + " ! h264parse ! matroskamux";
  if (has_element("theoraenc") && has_element("oggmux") && has_element("theoradec"))
    return "theoraenc bitrate=" + kbit + " ! oggmux";
  return "";
}

// VMAFX_TEST_BACKEND=hip runs the ladder tests' element on the GPU (every run of the comparison: the ladder and the
// single runs); unset: the element's default.
std::string ladder_backend() {
  const char* b = std::getenv("VMAFX_TEST_BACKEND");
  return b && *b ? std::string(" backend=") + b : std::string();
}

// Four renditions through request pads — one the reference's size, one half its size, one delayed behind a queue
// that releases late, one at a quarter — equal four single runs bit for bit, frame by frame and pooled.
// The ladder's clips in `dir`: ref.yuv (320x240 I420, 20 frames) and r0.mkv .. r3.mkv encoded at `sizes`.
const std::vector<std::pair<std::string, std::string>> kLadderSizes = {{"320", "240"}, {"160", "120"}, {"320", "240"},
                                                                       {"80", "60"}};
bool make_ladder_clips(const std::string& dir) {
  g_mkdir_with_parents(dir.c_str(), 0755);
  const std::string c = "video/x-raw,format=I420,width=320,height=240,framerate=25/1";
  RunOptions made;
  made.frame_messages = false;
  if (!run_pipeline("videotestsrc num-buffers=20 pattern=ball ! " + c + " ! filesink location=\"" + dir +
                        "/ref.yuv\"", made).eos)
    return false;
  for (size_t k = 0; k < kLadderSizes.size(); k++)
    if (!run_pipeline("videotestsrc num-buffers=20 pattern=ball ! " + c + " ! videoscale ! video/x-raw,width=" +
                          kLadderSizes[k].first + ",height=" + kLadderSizes[k].second + " ! " + ladder_encoder(k) +
                          " ! filesink location=\"" + dir + "/r" + std::to_string(k) + ".mkv\"", made).eos)
      return false;
  return true;
}

TEST(Ladder, FourRenditionsThroughRequestPadsEqualFourSingleRuns) {
  REQUIRE_GST();
  if (ladder_encoder(0).empty()) GTEST_SKIP() << "neither x264enc + matroskamux nor theoraenc + oggmux is installed";
  const std::string dir = temp_path("ladder");
  ASSERT_TRUE(make_ladder_clips(dir));
  const auto& sizes = kLadderSizes;
  const std::string ref = "filesrc location=\"" + dir + "/ref.yuv\" ! rawvideoparse width=320 height=240 format=i420 "
                          "framerate=25/1";
  auto rendition = [&](size_t k) {
    // decodebin3 here; Ladder.GstLaunchFourDecodebinRenditionsEnd runs decodebin (2) branches.
    return "filesrc location=\"" + dir + "/r" + std::to_string(k) + ".mkv\" ! decodebin3" +
           (k == 2 ? " ! queue min-threshold-buffers=15 max-size-buffers=0 max-size-time=0 max-size-bytes=0" : "");
  };
  std::string launch = ref + " ! v.ref_sink ";
  for (size_t k = 0; k < sizes.size(); k++) launch += rendition(k) + " ! v.dist_sink_" + std::to_string(k) + " ";
  const std::string props = "threads=2 psnr=true" + ladder_backend() + " results-filename=\"" + dir +
                            "/ladder-%s.json\"";
  RunOptions o;
  o.via_paused = true;
  const RunResult r = run_pipeline(launch + "vmafxhip name=v " + props + " ! fakesink", o);
  ASSERT_TRUE(r.eos) << r.describe_errors();
  ASSERT_EQ(r.pooled.size(), 4u);
  auto by_pad = frames_by_pad(r);
  for (size_t k = 0; k < sizes.size(); k++) {
    const std::string pad = "dist_sink_" + std::to_string(k);
    const RunResult one = run_pipeline(ref + " ! v.ref_sink " + rendition(k) + " ! v.dist_sink vmafxhip name=v " +
                                           "threads=2 psnr=true" + ladder_backend() + " ! fakesink", o);
    ASSERT_TRUE(one.eos) << one.describe_errors();
    ASSERT_EQ(by_pad[pad].size(), 20u) << pad;
    expect_same_scores(by_pad[pad], one.frames, pad);
    const GstStructure* lp = nullptr;
    for (const auto& p : r.pooled)
      if (std::string(gst_structure_get_string(p.get(), "pad")) == pad) lp = p.get();
    ASSERT_TRUE(lp) << pad;
    for (const char* f : {"score", "min", "max", "harmonic-mean", "p5", "psnr-y"})
      EXPECT_EQ(get_double(lp, f), get_double(one.pooled[0].get(), f)) << pad << " pooled " << f;
    EXPECT_TRUE(std::ifstream(dir + "/ladder-" + pad + ".json").good()) << pad << ": its results file";
    if (sizes[k].first != "320") {
      EXPECT_STREQ(gst_structure_get_string(lp, "scaled-from"), (sizes[k].first + "x" + sizes[k].second).c_str());
    }
  }
  char row[256];
  std::snprintf(row, sizeof row, "ok   ladder: 4 renditions through request pads equal 4 single runs bit for bit%s",
                ladder_backend().c_str());
  printed().rows.push_back(row);
}

// gst-launch-1.0 with four renditions each behind decodebin (2), linked to request pads once each decodebin exposes
// its stream: every run ends with EOS and four pooled messages. Before the source task waited for the pipeline's
// decoding bins to commit their state, about one run in three never saw EOS (docs/element.md, "Preroll").
TEST(Ladder, GstLaunchFourDecodebinRenditionsEnd) {
  REQUIRE_GST();
  if (ladder_encoder(0).empty()) GTEST_SKIP() << "neither x264enc + matroskamux nor theoraenc + oggmux is installed";
  const std::string dir = temp_path("ladder-launch");
  ASSERT_TRUE(make_ladder_clips(dir));
  std::string launch = "filesrc location=\"" + dir + "/ref.yuv\" ! rawvideoparse width=320 height=240 format=i420 "
                       "framerate=25/1 ! v.ref_sink ";
  for (size_t k = 0; k < kLadderSizes.size(); k++)
    launch += "filesrc location=\"" + dir + "/r" + std::to_string(k) + ".mkv\" ! decodebin ! v.dist_sink_" +
              std::to_string(k) + " ";
  launch += "vmafxhip name=v" + ladder_backend() + " ! fakesink";
  constexpr int kRuns = 10;
  int ended = 0;
  for (int i = 0; i < kRuns; i++) {
    const std::string out = dir + "/launch.txt";
    // The bound: a run takes about a second; one that hangs waits for an EOS that never comes.
    const std::string cmd = "timeout 120 gst-launch-1.0 -m " + launch + " > \"" + out + "\" 2>&1";
    const int rc = std::system(cmd.c_str());
    std::ifstream f(out);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    size_t pooled = 0;
    for (size_t at = text.find("type=(string)pooled"); at != std::string::npos;
         at = text.find("type=(string)pooled", at + 1))
      pooled++;
    const bool ok = rc == 0 && pooled == kLadderSizes.size() && text.find("Got EOS from element") != std::string::npos;
    ended += ok;
    EXPECT_TRUE(ok) << "run " << i + 1 << ": exit " << rc << (WIFEXITED(rc) && WEXITSTATUS(rc) == 124 ? " (timed out waiting for EOS)" : "")
                    << ", " << pooled << " pooled messages:\n" << text.substr(text.size() > 2000 ? text.size() - 2000 : 0);
  }
  char row[256];
  std::snprintf(row, sizeof row, "%-4s gst-launch-1.0: 4 renditions behind decodebin, %d of %d runs ended",
                ended == kRuns ? "ok" : "FAIL", ended, kRuns);
  printed().rows.push_back(row);
}

// A rendition requested while the pipeline plays joins at its first frame; its pooled message says where.
TEST(Ladder, ARenditionRequestedWhilePlayingJoinsAtItsFirstFrame) {
  REQUIRE_GST();
  const std::string c = "video/x-raw,format=I420,width=160,height=120,framerate=25/1";
  GError* err = nullptr;
  GstElement* pipeline = gst_parse_launch(("videotestsrc is-live=true num-buffers=75 pattern=ball ! " + c +
                                           " ! tee name=t t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink "
                                           "vmafxhip name=v" + ladder_backend() + " ! fakesink").c_str(), &err);
  ASSERT_TRUE(pipeline && !err);
  RunOptions o;
  o.timeout_s = kRunBoundS;
  bool added = false;
  o.on_frame = [&](GstElement* p, const GstStructure* f) {
    if (added || get_int(f, "index") < 10) return;
    added = true;
    // A second branch of the same live source, linked to a new request pad.
    GstElement* v = gst_bin_get_by_name(GST_BIN(p), "v");
    GstElement* t = gst_bin_get_by_name(GST_BIN(p), "t");
    GstElement* q = gst_element_factory_make("queue", nullptr);
    gst_bin_add(GST_BIN(p), q);
    GstPad* sink = gst_element_request_pad_simple(v, "dist_sink_%u");
    GstPad* qsrc = gst_element_get_static_pad(q, "src");
    gst_pad_link(qsrc, sink);
    gst_element_sync_state_with_parent(q);
    GstPad* tsrc = gst_element_request_pad_simple(t, "src_%u");
    GstPad* qsink = gst_element_get_static_pad(q, "sink");
    gst_pad_link(tsrc, qsink);
    for (GstObject* x : {GST_OBJECT(sink), GST_OBJECT(qsrc), GST_OBJECT(tsrc), GST_OBJECT(qsink), GST_OBJECT(v),
                         GST_OBJECT(t)})
      gst_object_unref(x);
  };
  const RunResult r = run_pipeline(pipeline, o);
  ASSERT_TRUE(added);
  ASSERT_TRUE(r.eos) << r.describe_errors();
  const GstStructure* late = nullptr;
  for (const auto& p : r.pooled)
    if (std::string(gst_structure_get_string(p.get(), "pad")) == "dist_sink_0") late = p.get();
  ASSERT_TRUE(late) << "no pooled message for the late rendition";
  EXPECT_GT(get_uint64(late, "frames-paired", 0), 20u);
  EXPECT_TRUE(gst_structure_has_field(late, "joined-at"));
  EXPECT_GE(get_uint64(late, "joined-at", 0), 10 * 40 * GST_MSECOND);
  auto by_pad = frames_by_pad(r);
  ASSERT_FALSE(by_pad["dist_sink_0"].empty());
  EXPECT_EQ(get_int(by_pad["dist_sink_0"][0].get(), "index"), 0) << "its own indices from 0";
}

// ---------------------------------------------------------------------------------------------------------------
// Stress: the race-prone shapes and the setup errors, many times each on whatever load the machine has.

unsigned stress_runs() {
  const char* v = std::getenv("VMAFX_STRESS_RUNS");
  const int n = v ? std::atoi(v) : 20;
  return n > 0 ? unsigned(n) : 20;
}

void stress(const Cell& c) {
  unsigned green = 0;
  const unsigned n = stress_runs();
  std::string first_failure;
  for (unsigned i = 0; i < n; i++) {
    Outcome o = run_cell(c);
    std::string why;
    if (judge(c, &o, &why)) green++;
    else if (first_failure.empty()) first_failure = why;
  }
  char row[512];
  std::snprintf(row, sizeof row, "%-4s %-58s %u of %u green%s%s", green == n ? "ok" : "FAIL", c.label().c_str(),
                green, n, first_failure.empty() ? "" : "; first failure: ", first_failure.c_str());
  printed().rows.push_back(row);
  EXPECT_EQ(green, n) << c.label() << ": " << first_failure;
}

TEST(Stress, RaceProneShapes) {
  REQUIRE_MEDIA();
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"raw", "decodebin"}, {"decodebin", "raw"}, {"raw", "decodebin3"}, {"raw", "uridecodebin"},
           {"tee-noq", "tee-noq"}, {"live", "live"}, {"appsrc", "appsrc"}, {"raw", "encoder"}})
    stress({a, b});
}

// A setup error posts one error and the pipeline comes down, every time.
TEST(Stress, SetupErrorsPostOnceAndNeverHang) {
  REQUIRE_GST();
  struct Case {
    const char* what;
    std::string launch;
  };
  const std::string small = "video/x-raw,format=I420,width=7,height=7,framerate=25/1";
  const std::string v1 = "video/x-raw,format=I420,width=64,height=64,framerate=25/1";
  const std::vector<Case> cases = {
      {"features=bogus", "videotestsrc num-buffers=10 ! " + caps() + " ! v.ref_sink videotestsrc num-buffers=10 ! " +
                             caps() + " ! v.dist_sink vmafxhip name=v features=bogus ! fakesink"},
      {"a 7x7 input", "videotestsrc num-buffers=10 ! " + small + " ! v.ref_sink videotestsrc num-buffers=10 ! " +
                          small + " ! v.dist_sink vmafxhip name=v ! fakesink"},
      {"a v1 model on 64x64", "videotestsrc num-buffers=10 ! " + v1 + " ! v.ref_sink videotestsrc num-buffers=10 ! " +
                                  v1 + " ! v.dist_sink vmafxhip name=v model-filename=vmaf_v1.0.16_3d0h ! fakesink"},
  };
  for (const Case& c : cases) {
    unsigned green = 0;
    const unsigned n = stress_runs();
    std::string first;
    for (unsigned i = 0; i < n; i++) {
      RunOptions opt;
      opt.via_paused = true;
      opt.timeout_s = kRunBoundS;
      auto fut = std::async(std::launch::async, [&] { return run_pipeline(c.launch, opt); });
      if (fut.wait_for(std::chrono::duration<double>(kRunBoundS * 2)) != std::future_status::ready) {
        std::fprintf(stderr, "HANG after a setup error: %s\n", c.what);
        std::abort();
      }
      const RunResult r = fut.get();
      const auto e = r.element_errors();
      if (!r.timed_out && e.size() == 1) green++;
      else if (first.empty()) first = r.timed_out ? "timed out" : r.describe_errors();
    }
    char row[512];
    std::snprintf(row, sizeof row, "%-4s setup error: %-44s %u of %u: one error, no hang%s%s",
                  green == n ? "ok" : "FAIL", c.what, green, n, first.empty() ? "" : "; ", first.c_str());
    printed().rows.push_back(row);
    EXPECT_EQ(green, n) << c.what << ": " << first;
  }
}

}  // namespace
