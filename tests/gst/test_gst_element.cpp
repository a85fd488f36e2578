// SPDX-License-Identifier: LGPL-2.1-or-later
// The vmafxhip element in real pipelines: the generated pairs (and the public pairs present) through rawvideoparse
// against libvmaf's JSON (every frame message, pooled values, results files), 10-bit and NV12/NV21/YV12/P010 inputs through videoconvert, every error
// path, unequal lengths, a flushing seek mid-stream, pass-through of the distorted frames.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "gst_harness.h"
#include "support.h"
#include "tolerances.h"
#include "vmafx/output.h"
#include "vmafx/scorer.h"

namespace vmafx::test {
namespace {

#define REQUIRE_GST()                                 \
  do {                                                \
    std::string why_;                                 \
    if (!gst_ready(&why_)) GTEST_SKIP() << why_;      \
  } while (0)

#define REQUIRE_FILE(path)                                                          \
  do {                                                                              \
    if (!file_exists(path)) GTEST_SKIP() << "oracle data missing: " << (path);      \
  } while (0)

const std::vector<std::string> kNotComputed = {"cambi"};  // in the oracle, not a vmafxhip feature

std::string pair_launch(const Pair& p, const std::string& props, const std::string& ref_chain = "",
                        const std::string& dist_chain = "", const std::string& sink = "fakesink") {
  return pair_source(p, false) + ref_chain + " ! v.ref_sink " + pair_source(p, true) + dist_chain +
         " ! v.dist_sink vmafxhip name=v " + props + " ! " + sink;
}

void print_max_diff(const std::string& what, const std::map<std::string, double>& d) {
  std::printf("max |element - libvmaf| %s:", what.c_str());
  for (const auto& [k, v] : d) std::printf(" %s=%.3g", k.c_str(), v);
  std::printf("\n");
}

// Frame messages: one per frame, in order, indices 0..n-1 (or every `step`-th), each equal to libvmaf's.
void expect_frames_match(const RunResult& r, const Oracle& o, const std::string& ctx,
                         std::map<std::string, double>* max_diff, unsigned step = 1) {
  ASSERT_EQ(r.frames.size(), o.frames.size()) << ctx;
  for (size_t i = 0; i < r.frames.size(); i++) {
    const GstStructure* f = r.frames[i].get();
    EXPECT_EQ(get_int(f, "index"), gint(o.frame_num[i])) << ctx << " message " << i;
    EXPECT_EQ(get_uint64(f, "timestamp"), guint64(o.frame_num[i]) * 40 * GST_MSECOND) << ctx;
    EXPECT_EQ(get_uint64(f, "running-time"), guint64(o.frame_num[i]) * 40 * GST_MSECOND) << ctx;
    EXPECT_EQ(get_uint64(f, "stream-time"), guint64(o.frame_num[i]) * 40 * GST_MSECOND) << ctx;
    EXPECT_EQ(get_uint64(f, "duration"), 40 * GST_MSECOND) << ctx;
    expect_frame_matches_oracle(f, o.frames[i], kNotComputed, ctx + " frame " + std::to_string(o.frame_num[i]),
                                max_diff);
  }
  (void)step;
}

void expect_pooled_matches(const RunResult& r, const Oracle& o, const std::string& ctx) {
  ASSERT_EQ(r.pooled.size(), 1u) << ctx;
  const GstStructure* p = r.pooled[0].get();
  const auto& v = o.pooled.at("vmaf");
  EXPECT_NEAR(get_double(p, "score"), v.at("mean"), kVmafTol) << ctx;
  EXPECT_NEAR(get_double(p, "mean"), v.at("mean"), kVmafTol) << ctx;
  EXPECT_NEAR(get_double(p, "min"), v.at("min"), kVmafTol) << ctx;
  EXPECT_NEAR(get_double(p, "max"), v.at("max"), kVmafTol) << ctx;
  EXPECT_NEAR(get_double(p, "harmonic-mean"), v.at("harmonic_mean"), kVmafTol) << ctx;
  EXPECT_EQ(get_uint64(p, "frames"), o.frames.size()) << ctx;
  // Percentiles lie within [min, max] and grow.
  double prev = get_double(p, "min");
  for (const char* q : {"p1", "p5", "p25", "p50", "p75", "p95", "p99"}) {
    const double x = get_double(p, q);
    EXPECT_GE(x, prev - 1e-12) << ctx << " " << q;
    prev = x;
  }
  EXPECT_LE(prev, get_double(p, "max") + 1e-12) << ctx;
  // Every other column pooled with the pool method (mean): libvmaf's pooled means.
  for (const auto& [metric, stats] : o.pooled) {
    if (metric == "vmaf" || metric == "cambi") continue;
    std::string field = metric == "float_ssim" ? "ssim" : metric == "float_ms_ssim" ? "ms-ssim" : metric;
    for (char& c : field)
      if (c == '_') c = '-';
    EXPECT_NEAR(get_double(p, field.c_str()), stats.at("mean"), tolerance_for(metric)) << ctx << " pooled " << metric;
  }
}

// A results file in libvmaf's JSON layout, compared with libvmaf's own file: same frames, same metrics (all but
// the features vmafxhip does not compute), same pooled values, same version.
void expect_json_results_match(const std::string& path, const std::string& oracle_path, const std::string& ctx) {
  std::ifstream a(path), b(oracle_path);
  ASSERT_TRUE(a.good()) << ctx << ": no results file " << path;
  nlohmann::json ja, jb;
  a >> ja;
  b >> jb;
  EXPECT_EQ(ja.at("version"), jb.at("version")) << ctx;
  ASSERT_EQ(ja.at("frames").size(), jb.at("frames").size()) << ctx;
  for (size_t i = 0; i < ja["frames"].size(); i++) {
    const auto& fa = ja["frames"][i];
    const auto& fb = jb["frames"][i];
    EXPECT_EQ(fa.at("frameNum"), fb.at("frameNum")) << ctx;
    for (auto it = fb.at("metrics").begin(); it != fb.at("metrics").end(); ++it) {
      if (it.key() == "cambi") continue;
      ASSERT_TRUE(fa.at("metrics").contains(it.key())) << ctx << " frame " << i << " lacks " << it.key();
      EXPECT_NEAR(fa["metrics"][it.key()].get<double>(), it.value().get<double>(), tolerance_for(it.key()))
          << ctx << " frame " << i << " " << it.key();
    }
    EXPECT_EQ(fa.at("metrics").size() + (fb["metrics"].contains("cambi") ? 1 : 0), fb.at("metrics").size()) << ctx;
  }
  for (auto it = jb.at("pooled_metrics").begin(); it != jb.at("pooled_metrics").end(); ++it) {
    if (it.key() == "cambi") continue;
    ASSERT_TRUE(ja.at("pooled_metrics").contains(it.key())) << ctx << " pooled lacks " << it.key();
    for (const char* s : {"min", "max", "mean", "harmonic_mean"})
      EXPECT_NEAR(ja["pooled_metrics"][it.key()][s].get<double>(), it.value()[s].get<double>(),
                  tolerance_for(it.key()))
          << ctx << " pooled " << it.key() << " " << s;
  }
  EXPECT_EQ(ja.at("aggregate_metrics"), jb.at("aggregate_metrics")) << ctx;
}

// ---------------------------------------------------------------------------------------------------------------

class PublicPairs : public ::testing::TestWithParam<Pair> {};

TEST_P(PublicPairs, EveryFrameMessageAndPooledAndJsonEqualLibvmaf) {
  REQUIRE_GST();
  const Pair& p = GetParam();
  const std::string oracle_path = p.oracle_path("vmaf_v0.6.1");
  Oracle o;
  ASSERT_TRUE(load_oracle(oracle_path, &o).is_ok());
  const std::string results = temp_path(p.prefix + "_" + p.distorted + ".json");
  const RunResult r = run_pipeline(
      pair_launch(p, "threads=1 psnr=true ssim=true ms-ssim=true results-filename=\"" + results + "\""));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
  EXPECT_TRUE(r.warnings.empty());
  std::map<std::string, double> max_diff;
  expect_frames_match(r, o, p.prefix + "_" + p.distorted, &max_diff);
  expect_pooled_matches(r, o, p.prefix + "_" + p.distorted);
  EXPECT_EQ(r.frames_scored, o.frames.size());
  expect_json_results_match(results, oracle_path, p.prefix + "_" + p.distorted);
  print_max_diff(p.prefix + "_" + p.distorted, max_diff);
}

INSTANTIATE_TEST_SUITE_P(Oracle, PublicPairs, ::testing::ValuesIn(oracle_pairs()),
                         [](const ::testing::TestParamInfo<Pair>& i) {
                           return i.param.prefix + "_" + i.param.distorted;
                         });

// The pairs the tests below use, generated (they run without ../shared): an even 8-bit, a 10-bit and an odd-sized
// 4:2:0 pair of 8 frames each.
Pair pair_a() { return *find_generated_pair("g1_"); }  // 352x320 8-bit, blur + noise
Pair pair_b() { return *find_generated_pair("g2_"); }  // 333x326 10-bit, block quantisation
Pair pair_c() { return *find_generated_pair("g5_"); }  // 321x243 8-bit, block quantisation

TEST(Models, FourKAndNegModelsEqualLibvmaf) {
  REQUIRE_GST();
  for (const Pair& p : oracle_pairs()) {
    for (const std::string model : {"vmaf_4k_v0.6.1", "vmaf_v0.6.1neg"}) {
      if (!has_oracle(p, model)) continue;
      const std::string oracle_path = p.oracle_path(model);
      Oracle o;
      ASSERT_TRUE(load_oracle(oracle_path, &o).is_ok());
      const RunResult r = run_pipeline(pair_launch(p, "threads=1 model-filename=" + model));
      ASSERT_TRUE(r.eos) << r.describe_errors();
      std::map<std::string, double> max_diff;
      expect_frames_match(r, o, p.distorted + " " + model, &max_diff);
      expect_pooled_matches(r, o, p.distorted + " " + model);
      print_max_diff(p.distorted + " " + model, max_diff);
    }
  }
}

TEST(Models, ModelFromAFilePath) {
  REQUIRE_GST();
  const Pair p = pair_c();
  const std::string model = project_models_dir() + "/vmaf_v0.6.1.json";
  REQUIRE_FILE(model);
  Oracle o;
  ASSERT_TRUE(load_oracle(p.oracle_path("vmaf_v0.6.1"), &o).is_ok());
  const RunResult r = run_pipeline(pair_launch(p, "threads=1 psnr=1 ssim=1 ms-ssim=1 model-filename=\"" + model + "\""));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  expect_frames_match(r, o, "model file", nullptr);
}

TEST(Subsample, ScoresEverySecondFrameLikeLibvmaf) {
  REQUIRE_GST();
  const Pair p = pair_a();
  const std::string oracle_path = p.oracle_path("vmaf_v0.6.1.subsample2");
  Oracle o;
  ASSERT_TRUE(load_oracle(oracle_path, &o).is_ok());
  const std::string results = temp_path("subsample2.json");
  const RunResult r = run_pipeline(pair_launch(
      p, "threads=1 subsample=2 psnr=true ssim=true ms-ssim=true results-filename=\"" + results + "\""));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  std::map<std::string, double> max_diff;
  expect_frames_match(r, o, "subsample 2", &max_diff);
  expect_pooled_matches(r, o, "subsample 2");
  expect_json_results_match(results, oracle_path, "subsample 2");
}

TEST(Threads, WorkerThreadsGiveTheSameMessages) {
  REQUIRE_GST();
  const Pair p = pair_a();
  Oracle o;
  ASSERT_TRUE(load_oracle(p.oracle_path("vmaf_v0.6.1"), &o).is_ok());
  const RunResult r = run_pipeline(pair_launch(p, "threads=3 psnr=true ssim=true ms-ssim=true"));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  expect_frames_match(r, o, "threads=3", nullptr);
  expect_pooled_matches(r, o, "threads=3");
}

TEST(PoolMethod, ScoreFollowsThePoolMethod) {
  REQUIRE_GST();
  const Pair p = pair_c();
  Oracle o;
  ASSERT_TRUE(load_oracle(p.oracle_path("vmaf_v0.6.1"), &o).is_ok());
  const auto& v = o.pooled.at("vmaf");
  // GStreamer vmaf's nicks (and its values: 1 min, 2 max, 3 mean, 4 harmonic_mean).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"min", "min"}, {"max", "max"}, {"mean", "mean"}, {"harmonic_mean", "harmonic_mean"}, {"1", "min"},
      {"2", "max"}, {"3", "mean"}, {"4", "harmonic_mean"}};
  for (const auto& [method, key] : cases) {
    const RunResult r = run_pipeline(pair_launch(p, "threads=1 psnr=1 frame-message=false pool-method=" + method));
    ASSERT_TRUE(r.eos) << method << r.describe_errors();
    EXPECT_TRUE(r.frames.empty()) << "frame-message=false";
    EXPECT_EQ(r.frames_scored, o.frames.size());
    ASSERT_EQ(r.pooled.size(), 1u);
    EXPECT_NEAR(get_double(r.pooled[0].get(), "score"), v.at(key), kVmafTol) << method;
    EXPECT_NEAR(get_double(r.pooled[0].get(), "psnr-y"), o.pooled.at("psnr_y").at(key), kPsnrTol) << method;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Formats: 10-bit from the file, NV12 / NV21 / YV12 / P010 through videoconvert (a lossless re-layout), mixed
// reference and distorted formats.

struct FormatCase {
  Pair pair;
  std::string ref_format, dist_format;  // empty: the file's planar format
};

TEST(Formats, ConvertedLayoutsEqualLibvmaf) {
  REQUIRE_GST();
  const std::vector<FormatCase> cases = {
      {pair_a(), "", "NV12"},  {pair_a(), "NV12", "NV12"}, {pair_c(), "NV21", "YV12"},
      {pair_c(), "YV12", ""},  {pair_b(), "", "P010_10LE"}, {pair_b(), "P010_10LE", "P010_10LE"},
  };
  for (const auto& c : cases) {
    Oracle o;
    ASSERT_TRUE(load_oracle(c.pair.oracle_path("vmaf_v0.6.1"), &o).is_ok());
    auto conv = [](const std::string& f) {
      // dither=none: videoconvert dithers by default when it repacks 10-bit samples, which changes them.
      return f.empty() ? std::string() : " ! videoconvert dither=none ! video/x-raw,format=" + f;
    };
    const std::string ctx = c.pair.prefix + " ref " + (c.ref_format.empty() ? "planar" : c.ref_format) + " dist " +
                            (c.dist_format.empty() ? "planar" : c.dist_format);
    const RunResult r = run_pipeline(pair_launch(c.pair, "threads=1 psnr=1 ssim=1 ms-ssim=1", conv(c.ref_format),
                                                 conv(c.dist_format)));
    ASSERT_TRUE(r.eos) << ctx << r.describe_errors();
    std::map<std::string, double> max_diff;
    expect_frames_match(r, o, ctx, &max_diff);
    expect_pooled_matches(r, o, ctx);
    print_max_diff(ctx, max_diff);
  }
}

// The output stream leaves src unchanged (same bytes, same caps, same timestamps), also when the other stream has
// another layout: the reference by default (as GStreamer's vmaf), the distorted stream with output=distorted.
void check_pass_through(bool distorted) {
  const Pair p = pair_c();
  YuvClip dist;
  FormatInfo fmt;
  ASSERT_TRUE(parse_pixel_format("420", 8, &fmt).is_ok());
  ASSERT_TRUE(dist.open(distorted ? p.dist_path() : p.ref_path(), p.width, p.height, fmt).is_ok());
  GError* err = nullptr;
  GstElement* pipeline = gst_parse_launch(
      (raw_yuv_source(p.ref_path(), p.width, p.height, 8) +
       (distorted ? " ! videoconvert ! video/x-raw,format=NV12" : "") + " ! v.ref_sink " +
       raw_yuv_source(p.dist_path(), p.width, p.height, 8) +
       (distorted ? "" : " ! videoconvert ! video/x-raw,format=NV12") +
       " ! v.dist_sink vmafxhip name=v threads=1 output=" + (distorted ? "distorted" : "reference") +
       " ! appsink name=out sync=false")
          .c_str(),
      &err);
  ASSERT_EQ(err, nullptr);
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "out");
  g_object_set(sink, "emit-signals", FALSE, "max-buffers", 0u, nullptr);
  struct Got {
    std::vector<std::vector<uint8_t>> frames;
    std::vector<GstClockTime> pts;
    std::string caps;
  } got;
  GstAppSinkCallbacks cb = {};
  cb.new_sample = [](GstAppSink* s, gpointer user) -> GstFlowReturn {
    auto* g = static_cast<Got*>(user);
    GstSample* sample = gst_app_sink_pull_sample(s);
    GstBuffer* buf = gst_sample_get_buffer(sample);
    GstVideoInfo info;
    gst_video_info_from_caps(&info, gst_sample_get_caps(sample));
    if (g->caps.empty()) {
      gchar* c = gst_caps_to_string(gst_sample_get_caps(sample));
      g->caps = c;
      g_free(c);
    }
    // Repack the planes tightly, as the .yuv file holds them.
    GstVideoFrame frame;
    std::vector<uint8_t> bytes;
    if (gst_video_frame_map(&frame, &info, buf, GST_MAP_READ)) {
      for (guint pl = 0; pl < GST_VIDEO_FRAME_N_PLANES(&frame); pl++) {
        const guint rows = GST_VIDEO_FRAME_COMP_HEIGHT(&frame, pl);
        const guint row_bytes = GST_VIDEO_FRAME_COMP_WIDTH(&frame, pl) * GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, pl);
        const auto* d = static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, pl));
        for (guint y = 0; y < rows; y++)
          bytes.insert(bytes.end(), d + size_t(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, pl),
                       d + size_t(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, pl) + row_bytes);
      }
      gst_video_frame_unmap(&frame);
    }
    g->frames.push_back(std::move(bytes));
    g->pts.push_back(GST_BUFFER_PTS(buf));
    gst_sample_unref(sample);
    return GST_FLOW_OK;
  };
  gst_app_sink_set_callbacks(GST_APP_SINK(sink), &cb, &got, nullptr);
  gst_object_unref(sink);
  const RunResult r = run_pipeline(pipeline);
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_NE(got.caps.find("format=(string)I420"), std::string::npos) << got.caps;
  EXPECT_NE(got.caps.find("width=(int)321"), std::string::npos) << got.caps;
  ASSERT_EQ(got.frames.size(), dist.frames());
  for (size_t i = 0; i < got.frames.size(); i++) {
    ASSERT_EQ(got.frames[i].size(), dist.frame_size()) << i;
    EXPECT_TRUE(std::equal(got.frames[i].begin(), got.frames[i].end(), dist.frame_data(i))) << "frame " << i;
    EXPECT_EQ(got.pts[i], GstClockTime(i * 40 * GST_MSECOND));
  }
  EXPECT_EQ(r.frames.size(), dist.frames());
}

TEST(PassThrough, SrcOutputsTheReferenceFramesUnchanged) {
  REQUIRE_GST();
  check_pass_through(false);
}

TEST(PassThrough, OutputDistortedOutputsTheDistortedFramesUnchanged) {
  REQUIRE_GST();
  check_pass_through(true);
}

// ---------------------------------------------------------------------------------------------------------------
// A frame's message comes as soon as the features it needs exist: frame k's once frame k + 1 arrived (motion), the
// last frame's at end of stream. Frames are fed one pair at a time through appsrc while the pipeline plays.

GstBuffer* clip_buffer(const YuvClip& clip, size_t i) {
  GstBuffer* b = gst_buffer_new_memdup(clip.frame_data(i), clip.frame_size());
  GST_BUFFER_PTS(b) = i * 40 * GST_MSECOND;
  GST_BUFFER_DURATION(b) = 40 * GST_MSECOND;
  return b;
}

// Pops bus messages for up to `ms`; returns the frame messages seen and fails on errors.
std::vector<Structure> frames_within(GstBus* bus, int ms) {
  std::vector<Structure> out;
  const gint64 end = g_get_monotonic_time() + gint64(ms) * 1000;
  while (g_get_monotonic_time() < end) {
    GstMessage* m = gst_bus_timed_pop(bus, 10 * GST_MSECOND);
    if (!m) continue;
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) ADD_FAILURE() << "error on the bus";
    const GstStructure* st = gst_message_get_structure(m);
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ELEMENT && st && gst_structure_has_name(st, "VMAF") &&
        g_strcmp0(gst_structure_get_string(st, "type"), "frame") == 0)
      out.push_back(copy_structure(st));
    gst_message_unref(m);
    if (!out.empty()) break;
  }
  return out;
}

void check_posting_latency(unsigned threads) {
  const Pair p = pair_c();
  FormatInfo fmt;
  ASSERT_TRUE(parse_pixel_format("420", 8, &fmt).is_ok());
  YuvClip ref, dist;
  ASSERT_TRUE(ref.open(p.ref_path(), p.width, p.height, fmt).is_ok());
  ASSERT_TRUE(dist.open(p.dist_path(), p.width, p.height, fmt).is_ok());
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_I420, p.width, p.height);
  // The clip's tight layout differs from GStreamer's default for odd widths: describe it with a video meta.
  const std::string caps = "video/x-raw,format=I420,width=321,height=241,framerate=25/1";
  GError* err = nullptr;
  GstElement* pipeline = gst_parse_launch(
      ("appsrc name=r format=time caps=\"" + caps + "\" ! v.ref_sink appsrc name=d format=time caps=\"" + caps +
       "\" ! v.dist_sink vmafxhip name=v frame-message=true threads=" + std::to_string(threads) +
       " ! fakesink sync=false")
          .c_str(),
      &err);
  ASSERT_EQ(err, nullptr);
  GstElement* r = gst_bin_get_by_name(GST_BIN(pipeline), "r");
  GstElement* d = gst_bin_get_by_name(GST_BIN(pipeline), "d");
  GstBus* bus = gst_element_get_bus(pipeline);
  ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  auto push = [&](GstElement* src, const YuvClip& clip, size_t i) {
    GstBuffer* b = clip_buffer(clip, i);
    gsize offsets[3] = {0, 77361, 96842};
    gint strides[3] = {321, 161, 161};
    gst_buffer_add_video_meta_full(b, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_I420, 321, 241, 3, offsets,
                                   strides);
    EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), b), GST_FLOW_OK);
  };
  const size_t n = ref.frames();
  for (size_t k = 0; k < n; k++) {
    push(r, ref, k);
    push(d, dist, k);
    if (k == 0) {
      // Frame 0 needs frame 1's motion: no message yet.
      EXPECT_TRUE(frames_within(bus, 300).empty()) << "frame 0 posted before frame 1 arrived";
      continue;
    }
    // Frame k - 1 has everything once frame k is in: its message comes without any further input.
    const auto got = frames_within(bus, 10000);
    ASSERT_EQ(got.size(), 1u) << "no message for frame " << k - 1 << " after frame " << k << " arrived";
    EXPECT_EQ(get_int(got[0].get(), "index"), gint(k - 1));
  }
  EXPECT_TRUE(frames_within(bus, 300).empty()) << "the last frame posted before the end of stream";
  gst_app_src_end_of_stream(GST_APP_SRC(r));
  gst_app_src_end_of_stream(GST_APP_SRC(d));
  const auto last = frames_within(bus, 10000);
  ASSERT_EQ(last.size(), 1u) << "no message for the last frame at end of stream";
  EXPECT_EQ(get_int(last[0].get(), "index"), gint(n - 1));
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(r);
  gst_object_unref(d);
  gst_object_unref(pipeline);
}

TEST(Posting, EachFrameIsPostedAsSoonAsTheNextFrameArrives) {
  REQUIRE_GST();
  check_posting_latency(1);
}

TEST(Posting, EachFrameIsPostedAsSoonAsTheNextFrameArrivesWithWorkerThreads) {
  REQUIRE_GST();
  check_posting_latency(3);
}

TEST(EndOfStream, EmptyDistortedStreamEndsWithAWarningAndNoHang) {
  REQUIRE_GST();
  RunOptions opt;
  opt.setup = [](GstElement* pipeline) {
    GstElement* d = gst_bin_get_by_name(GST_BIN(pipeline), "d");
    gst_app_src_end_of_stream(GST_APP_SRC(d));
    gst_object_unref(d);
  };
  const RunResult r = run_pipeline(
      "videotestsrc num-buffers=5 ! video/x-raw,format=I420,width=64,height=48,framerate=25/1 ! v.ref_sink "
      "appsrc name=d format=time caps=\"video/x-raw,format=I420,width=64,height=48,framerate=25/1\" ! v.dist_sink "
      "vmafxhip name=v ! fakesink",
      opt);
  EXPECT_TRUE(r.eos) << r.describe_errors();
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
  EXPECT_TRUE(r.frames.empty());
  ASSERT_EQ(r.pooled.size(), 1u);
  EXPECT_EQ(get_uint64(r.pooled[0].get(), "frames"), 0u);
  bool no_pairs = false, lengths = false;
  for (const auto& w : r.warnings) {
    no_pairs = no_pairs || w.text.find("No frame pairs") != std::string::npos;
    lengths = lengths || w.text.find("reference had 5 frames, dist_sink had 0") != std::string::npos;
  }
  EXPECT_TRUE(no_pairs);
  EXPECT_TRUE(lengths);
}

// ---------------------------------------------------------------------------------------------------------------
// End of stream with streams of different length.

std::string truncated_copy(const Pair& p, bool ref, size_t frames) {
  const size_t frame_size =
      size_t(p.width) * p.height * (p.bpc > 8 ? 2 : 1) +
      2 * size_t((p.width + 1) / 2) * ((p.height + 1) / 2) * (p.bpc > 8 ? 2 : 1);
  std::ifstream in(ref ? p.ref_path() : p.dist_path(), std::ios::binary);
  std::vector<char> data(frame_size * frames);
  in.read(data.data(), std::streamsize(data.size()));
  const std::string path = temp_path(std::string(ref ? "ref" : "dist") + std::to_string(frames) + ".yuv");
  std::ofstream(path, std::ios::binary).write(data.data(), std::streamsize(data.size()));
  return path;
}

void check_unequal(bool shorten_ref) {
  const Pair p = long_pair();
  Oracle o;
  ASSERT_TRUE(load_oracle(p.oracle_path("vmaf_v0.6.1"), &o).is_ok());
  const size_t n = 10;
  const std::string short_path = truncated_copy(p, shorten_ref, n);
  const std::string ref_src = raw_yuv_source(shorten_ref ? short_path : p.ref_path(), p.width, p.height, 8);
  const std::string dist_src = raw_yuv_source(shorten_ref ? p.dist_path() : short_path, p.width, p.height, 8);
  const std::string results = temp_path("unequal.json");
  const RunResult r = run_pipeline(ref_src + " ! v.ref_sink " + dist_src +
                                   " ! v.dist_sink vmafxhip name=v threads=1 psnr=1 results-filename=\"" + results +
                                   "\" ! fakesink");
  const std::string ctx = shorten_ref ? "short reference" : "short distorted";
  ASSERT_TRUE(r.eos) << ctx << r.describe_errors();
  EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
  ASSERT_EQ(r.frames.size(), n) << ctx;
  for (size_t i = 0; i < n; i++) {
    auto oracle = o.frames[i];
    std::vector<std::string> absent = kNotComputed;
    for (const char* f : {"float_ssim", "float_ms_ssim"}) absent.push_back(f);
    if (i == n - 1) {
      // The last frame's motion has no next frame here (libvmaf does the same at its end of stream): compare the
      // features that do not depend on the next frame.
      // (motion3 too: it is the next frame's sad score when that is the smaller.)
      for (const char* f : {"integer_motion2", "integer_motion3", "vmaf"}) oracle.erase(f), absent.push_back(f);
    }
    GstStructure* f = gst_structure_copy(r.frames[i].get());
    if (i == n - 1) gst_structure_remove_fields(f, "integer-motion2", "integer-motion3", "score", nullptr);
    expect_frame_matches_oracle(f, oracle, absent, ctx + " frame " + std::to_string(i), nullptr);
    gst_structure_free(f);
  }
  ASSERT_EQ(r.pooled.size(), 1u);
  EXPECT_EQ(get_uint64(r.pooled[0].get(), "frames"), n);
  // One INFO with both lengths (GStreamer's vmaf says nothing; a length difference is no warning).
  for (const auto& m : r.warnings) EXPECT_NE(m.source, "v") << m.text;
  std::vector<BusMessage> w;
  for (const auto& m : r.infos)
    if (m.source == "v" && (m.text.find("not scored") != std::string::npos ||
                            m.text.find("ended first") != std::string::npos))
      w.push_back(m);
  ASSERT_EQ(w.size(), 1u) << ctx;
  // A distorted stream longer than the reference is read until the reference ended: it is told EOS then (its
  // frames can no longer pair), and the INFO says how far it was read.
  const guint64 n_ref = shorten_ref ? n : o.frames.size();
  guint64 n_dist = n;
  if (shorten_ref) {
    const size_t at = w[0].text.find("dist_sink had ");
    ASSERT_NE(at, std::string::npos) << w[0].text;
    n_dist = std::stoull(w[0].text.substr(at + 14));
    EXPECT_GE(n_dist, n);
    EXPECT_LE(n_dist, o.frames.size());
    if (n_dist < o.frames.size()) EXPECT_NE(w[0].text.find("read no further"), std::string::npos) << w[0].text;
  }
  EXPECT_NE(w[0].text.find("reference had " + std::to_string(n_ref) + " frames"), std::string::npos) << w[0].text;
  EXPECT_NE(w[0].text.find("dist_sink had " + std::to_string(n_dist)), std::string::npos) << w[0].text;
  ASSERT_TRUE(w[0].details);
  EXPECT_EQ(get_uint64(w[0].details.get(), "reference-frames"), n_ref);
  EXPECT_EQ(get_uint64(w[0].details.get(), "distorted-frames"), n_dist);
  // The results file holds the paired frames.
  std::ifstream f(results);
  nlohmann::json j;
  f >> j;
  EXPECT_EQ(j.at("frames").size(), n);
}

TEST(EndOfStream, ShorterDistortedStreamScoresThePairsAndWarns) {
  REQUIRE_GST();
  check_unequal(false);
}

TEST(EndOfStream, ShorterReferenceStreamScoresThePairsAndWarns) {
  REQUIRE_GST();
  check_unequal(true);
}

// ---------------------------------------------------------------------------------------------------------------
// A flushing seek mid-stream restarts the scoring at the new position: indices from 0, no frame of the old
// segment afterwards, the scores those of libvmaf's frames from the seek target on.

TEST(Seek, FlushingSeekMidStreamRestartsScoringCleanly) {
  REQUIRE_GST();
  const Pair p = long_pair();
  Oracle o;
  ASSERT_TRUE(load_oracle(p.oracle_path("vmaf_v0.6.1"), &o).is_ok());
  const unsigned target = 20;
  bool seeked = false;
  size_t frames_before_seek = 0;
  RunOptions opt;
  opt.on_frame = [&](GstElement* pipeline, const GstStructure* f) {
    if (seeked || get_int(f, "index") < 3) return;
    seeked = true;
    ASSERT_TRUE(gst_element_seek_simple(pipeline, GST_FORMAT_TIME,
                                        GstSeekFlags(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE),
                                        target * 40 * GST_MSECOND));
  };
  // The distorted branch is slowed down so the seek lands mid-stream.
  const RunResult r = run_pipeline(
      raw_yuv_source(p.ref_path(), p.width, p.height, 8) + " ! v.ref_sink " +
          raw_yuv_source(p.dist_path(), p.width, p.height, 8) +
          " ! identity sleep-time=15000 ! v.dist_sink vmafxhip name=v threads=1 psnr=1 ! fakesink",
      opt);
  ASSERT_TRUE(seeked);
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
  // A flushing seek says nothing (the frames before the seek target lie outside the new segment and are clipped).
  for (const auto& w : r.warnings) EXPECT_NE(w.source, "v") << w.text;
  for (const auto& m : r.infos) EXPECT_EQ(m.text.find("out-of-segment"), std::string::npos) << m.text;
  // The new session starts with index 0 at the seek target.
  size_t start = r.frames.size();
  for (size_t i = 0; i < r.frames.size(); i++) {
    if (get_int(r.frames[i].get(), "index") == 0 &&
        get_uint64(r.frames[i].get(), "timestamp") == target * 40 * GST_MSECOND) {
      start = i;
      break;
    }
  }
  ASSERT_LT(start, r.frames.size()) << "no frame message from the seek target";
  frames_before_seek = start;
  EXPECT_GE(frames_before_seek, 3u);
  for (size_t i = 0; i < start; i++) {  // old session: consistent index/timestamp pairs, before the target
    const GstStructure* f = r.frames[i].get();
    EXPECT_EQ(get_uint64(f, "timestamp"), guint64(get_int(f, "index")) * 40 * GST_MSECOND);
  }
  const size_t after = r.frames.size() - start;
  ASSERT_EQ(after, o.frames.size() - target);
  for (size_t k = 0; k < after; k++) {
    const GstStructure* f = r.frames[start + k].get();
    const std::string ctx = "after seek, frame " + std::to_string(k);
    EXPECT_EQ(get_int(f, "index"), gint(k)) << ctx;
    EXPECT_EQ(get_uint64(f, "timestamp"), (target + k) * 40 * GST_MSECOND) << ctx;
    EXPECT_EQ(get_uint64(f, "stream-time"), (target + k) * 40 * GST_MSECOND) << ctx;
    auto oracle = o.frames[target + k];
    std::vector<std::string> absent = {"cambi", "float_ssim", "float_ms_ssim"};
    GstStructure* g = gst_structure_copy(f);
    if (k == 0) {
      // The first frame after the seek has no previous frame: motion 0 as at a stream start.
      EXPECT_EQ(get_double(f, "integer-motion2"), 0.0);
      for (const char* x : {"integer_motion2", "integer_motion3", "VMAF_integer_feature_motion_sad_score", "vmaf"})
        oracle.erase(x), absent.push_back(x);
      gst_structure_remove_fields(g, "integer-motion2", "integer-motion3", "VMAF-integer-feature-motion-sad-score",
                                  "score", nullptr);
    }
    expect_frame_matches_oracle(g, oracle, absent, ctx, nullptr);
    gst_structure_free(g);
  }
  // As GStreamer's vmaf, the flushing seek posts a pooled message for the frames before it; the end of the stream
  // posts the one of the frames after it.
  ASSERT_EQ(r.pooled.size(), 2u);
  EXPECT_GE(get_uint64(r.pooled[0].get(), "frames"), frames_before_seek);
  EXPECT_LT(get_uint64(r.pooled[0].get(), "frames"), guint64(target));
  EXPECT_EQ(get_uint64(r.pooled[1].get(), "frames"), o.frames.size() - target);
  EXPECT_EQ(r.frames_scored, o.frames.size() - target);
}

// ---------------------------------------------------------------------------------------------------------------
// Errors: one GST_ELEMENT_ERROR each, naming the cause; no hang.

void expect_one_element_error(const RunResult& r, GQuark domain, int code, const std::string& needle,
                              const std::string& ctx) {
  EXPECT_FALSE(r.timed_out) << ctx;
  const auto errs = r.element_errors();
  ASSERT_EQ(errs.size(), 1u) << ctx << "\n" << r.describe_errors();
  EXPECT_EQ(errs[0].domain, domain) << ctx << ": " << errs[0].text;
  EXPECT_EQ(errs[0].code, code) << ctx << ": " << errs[0].text;
  EXPECT_NE((errs[0].text + " " + errs[0].debug).find(needle), std::string::npos)
      << ctx << ": '" << needle << "' not in: " << errs[0].text << " | " << errs[0].debug;
  EXPECT_TRUE(r.pooled.empty()) << ctx;
}

// ---------------------------------------------------------------------------------------------------------------
// model-filename takes vmafx-score's --model syntax (FFmpeg's libvmaf filter passes the same): name=, path=,
// EXTRACTOR.OPTION overloads, disable_clip / enable_transform, several models; a bad key is a settings error naming it.

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream f(path);
  nlohmann::json j;
  if (f) f >> j;
  return j;
}

TEST(ModelSyntax, VersionAndNameAsFfmpegPassesThem) {
  REQUIRE_GST();
  const Pair p = pair_a();
  Oracle o;
  ASSERT_TRUE(load_oracle(p.oracle_path("vmaf_v0.6.1"), &o).is_ok());
  const std::string results = temp_path("named.json");
  const RunResult r = run_pipeline(
      pair_launch(p, "threads=1 model-filename=\"version=vmaf_v0.6.1:name=hd\" results-filename=\"" + results + "\""));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
  ASSERT_EQ(r.frames.size(), o.frames.size());
  for (size_t i = 0; i < o.frames.size(); i++)
    EXPECT_NEAR(get_double(r.frames[i].get(), "score"), o.frames[i].at("vmaf"), kVmafTol) << "frame " << i;
  // The results file names the column as asked.
  const nlohmann::json j = read_json_file(results);
  ASSERT_FALSE(j.is_null()) << results;
  const auto& m = j.at("frames")[0].at("metrics");
  EXPECT_TRUE(m.contains("hd"));
  EXPECT_FALSE(m.contains("vmaf"));
  EXPECT_NEAR(m.at("hd").get<double>(), o.frames[0].at("vmaf"), kVmafTol);
}

TEST(ModelSyntax, PathAndOverloadsScoreAsTheModelTheyDescribe) {
  REQUIRE_GST();
  const Pair p = pair_a();
  Oracle neg;
  ASSERT_TRUE(load_oracle(p.oracle_path("vmaf_v0.6.1neg"), &neg).is_ok());
  // vmaf_v0.6.1neg is vmaf_v0.6.1 with the gain limits at 1: the same model from a path, and vmaf_v0.6.1 with the
  // overloads, both score as libvmaf scores the neg model.
  const std::string neg_path = project_models_dir() + "/vmaf_v0.6.1neg.json";
  for (const std::string spec :
       {"path=" + neg_path,
        std::string("version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=1.0:adm.adm_enhn_gain_limit=1.0")}) {
    SCOPED_TRACE(spec);
    const RunResult r = run_pipeline(pair_launch(p, "threads=1 model-filename=\"" + spec + "\""));
    ASSERT_TRUE(r.eos) << r.describe_errors();
    EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
    std::map<std::string, double> max_diff;
    expect_frames_match(r, neg, spec, &max_diff);
    expect_pooled_matches(r, neg, spec);
  }
}

TEST(ModelSyntax, SeveralModelsWithTheirOwnKeys) {
  REQUIRE_GST();
  const Pair p = pair_a();
  Oracle v, four;
  ASSERT_TRUE(load_oracle(p.oracle_path("vmaf_v0.6.1"), &v).is_ok());
  ASSERT_TRUE(load_oracle(p.oracle_path("vmaf_4k_v0.6.1"), &four).is_ok());
  const RunResult r = run_pipeline(pair_launch(
      p, "threads=1 model-filename=\"version=vmaf_v0.6.1:name=hd,version=vmaf_4k_v0.6.1:name=uhd:disable_clip\""));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
  ASSERT_EQ(r.frames.size(), v.frames.size());
  for (size_t i = 0; i < v.frames.size(); i++) {
    EXPECT_NEAR(get_double(r.frames[i].get(), "score"), v.frames[i].at("vmaf"), kVmafTol) << "frame " << i;
    // disable_clip changes nothing inside [0, 100]: libvmaf's clipped 4k scores.
    const double uhd = get_double(r.frames[i].get(), "uhd");
    ASSERT_FALSE(std::isnan(uhd)) << "no field uhd in frame " << i;
    if (four.frames[i].at("vmaf") < 100) EXPECT_NEAR(uhd, four.frames[i].at("vmaf"), kVmafTol) << "frame " << i;
  }
}

TEST(ModelSyntax, ABadKeyIsASettingsErrorNamingIt) {
  REQUIRE_GST();
  const struct {
    const char* spec;
    const char* needle;
  } cases[] = {
      {"version=vmaf_v0.6.1:foo=bar", "'foo'"},
      {"version=vmaf_v0.6.1:disable_clip=yes", "disable_clip takes true or false"},
      {"version=vmaf_v0.6.1:name=1x", "'1x' is not a column name"},
      {"name=hd", "needs version=NAME or path=FILE"},
      {"version=vmaf_v0.6.1:name=a,version=vmaf_4k_v0.6.1:name=a", "two models score into the column 'a'"},
  };
  for (const auto& c : cases) {
    const RunResult r = run_pipeline(pair_launch(pair_c(), std::string("model-filename=\"") + c.spec + "\""));
    expect_one_element_error(r, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, c.needle, c.spec);
    EXPECT_TRUE(r.frames.empty()) << c.spec;
  }
}

TEST(Errors, MissingModelFile) {
  REQUIRE_GST();
  const std::string missing = temp_path("no-such-model.json");
  const RunResult r = run_pipeline(pair_launch(pair_c(), "model-filename=\"" + missing + "\""));
  EXPECT_TRUE(r.state_change_failed);
  expect_one_element_error(r, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, missing, "missing model");
  EXPECT_TRUE(r.frames.empty());
}

TEST(Errors, MalformedModelFile) {
  REQUIRE_GST();
  const std::string bad = temp_path("bad-model.json");
  std::ofstream(bad) << "{ \"model_dict\": { \"model_type\": \"LIBSVMNUSVR\", ";
  const RunResult r = run_pipeline(pair_launch(pair_c(), "model-filename=\"" + bad + "\""));
  EXPECT_TRUE(r.state_change_failed);
  expect_one_element_error(r, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, bad, "malformed model");
}

TEST(Errors, ResultsFileCannotBeWritten) {
  REQUIRE_GST();
  const std::string path = temp_path("no-such-dir") + "/scores.json";
  const RunResult r = run_pipeline(pair_launch(pair_c(), "results-filename=\"" + path + "\""));
  EXPECT_TRUE(r.state_change_failed);
  expect_one_element_error(r, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE, path, "unwritable results");
}

// GStreamer's vmaf scores on without a file; vmafxhip too, with a warning naming the missing property.
TEST(Settings, ResultsFormatWithoutFilenameWarnsAndScores) {
  REQUIRE_GST();
  const RunResult r = run_pipeline(pair_launch(pair_c(), "results-format=xml"));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
  size_t said = 0;
  for (const auto& w : r.warnings) EXPECT_EQ(w.text.find("results-filename"), std::string::npos) << "as vmaf: no warning";
  for (const auto& w : r.infos)
    if (w.source == "v" && w.text.find("results-filename") != std::string::npos) said++;
  EXPECT_EQ(said, 1u);
  ASSERT_EQ(r.pooled.size(), 1u);
  EXPECT_EQ(get_uint64(r.pooled[0].get(), "frames"), 8u);
}

TEST(Errors, ConfidenceIntervalNeedsABootstrapModel) {
  REQUIRE_GST();
  const RunResult r = run_pipeline(pair_launch(pair_c(), "conf-interval=true"));
  expect_one_element_error(r, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, "vmaf_v0.6.1", "conf-interval");
}

TEST(Errors, CapsMismatchNamesBothCaps) {
  REQUIRE_GST();
  const RunResult r = run_pipeline(
      "videotestsrc num-buffers=5 ! video/x-raw,format=I420,width=320,height=240,framerate=25/1 ! v.ref_sink "
      "videotestsrc num-buffers=5 ! video/x-raw,format=NV12,width=352,height=288,framerate=25/1 ! v.dist_sink "
      "vmafxhip name=v scale-method=none ! fakesink");
  expect_one_element_error(r, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, "320x240", "geometry mismatch");
  const auto e = r.element_errors();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].text.find("352x288"), std::string::npos) << e[0].text;
  EXPECT_NE(e[0].debug.find("format=(string)I420"), std::string::npos) << e[0].debug;
  EXPECT_NE(e[0].debug.find("format=(string)NV12"), std::string::npos) << e[0].debug;
  EXPECT_TRUE(r.frames.empty());
}

TEST(Errors, BitDepthMismatch) {
  REQUIRE_GST();
  const RunResult r = run_pipeline(
      "videotestsrc num-buffers=5 ! video/x-raw,format=I420,width=64,height=48 ! v.ref_sink "
      "videotestsrc num-buffers=5 ! video/x-raw,format=I420_10LE,width=64,height=48 ! v.dist_sink "
      "vmafxhip name=v ! fakesink");
  expect_one_element_error(r, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, "10-bit", "depth mismatch");
}

TEST(Errors, BufferSmallerThanItsCaps) {
  REQUIRE_GST();
  RunOptions opt;
  opt.setup = [](GstElement* pipeline) {
    for (const char* name : {"r", "d"}) {
      GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), name);
      for (int i = 0; i < 3; i++) {
        // The reference is whole (64x48 I420 = 4608 bytes); the distorted buffers hold 1000 bytes.
        const gsize size = std::string(name) == "r" ? 4608 : 1000;
        GstBuffer* b = gst_buffer_new_allocate(nullptr, size, nullptr);
        gst_buffer_memset(b, 0, 0x80, size);
        GST_BUFFER_PTS(b) = i * 40 * GST_MSECOND;
        GST_BUFFER_DURATION(b) = 40 * GST_MSECOND;
        EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), b), GST_FLOW_OK);
      }
      gst_app_src_end_of_stream(GST_APP_SRC(src));
      gst_object_unref(src);
    }
  };
  const char* caps = "caps=\"video/x-raw,format=I420,width=64,height=48,framerate=25/1\" format=time";
  const RunResult r =
      run_pipeline(std::string("appsrc name=r ") + caps + " ! v.ref_sink appsrc name=d " + caps +
                       " ! v.dist_sink vmafxhip name=v ! fakesink",
                   opt);
  expect_one_element_error(r, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, "1000 bytes", "short buffer");
  const auto e = r.element_errors();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].debug.find("4608 bytes"), std::string::npos) << e[0].debug;
  EXPECT_NE(e[0].text.find("distorted"), std::string::npos) << e[0].text;
}

TEST(Errors, HipBackendWithoutADeviceFailsCleanly) {
  REQUIRE_GST();
  const RunResult r = run_pipeline(pair_launch(pair_c(), "backend=hip"));
  if (r.eos && r.errors.empty()) GTEST_SKIP() << "a GPU is usable here: backend=hip scored the stream";
  expect_one_element_error(r, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, "GPU", "backend=hip");
  EXPECT_TRUE(r.frames.empty());
}

// On a machine with a usable GPU the element scores on it and gives libvmaf's numbers; elsewhere it is skipped (and
// HipBackendWithoutADeviceFailsCleanly checks the error instead).
TEST(Backend, HipMatchesLibvmafWhenAGpuIsUsable) {
  REQUIRE_GST();
  for (const Pair& p : {pair_a(), pair_b(), pair_c()}) {
    const std::string oracle_path = p.oracle_path("vmaf_v0.6.1");
    Oracle o;
    ASSERT_TRUE(load_oracle(oracle_path, &o).is_ok());
    const RunResult r = run_pipeline(pair_launch(p, "backend=hip threads=2 psnr=1 ssim=1 ms-ssim=1"));
    const auto e = r.element_errors();
    if (!e.empty() && e[0].domain == GST_RESOURCE_ERROR && e[0].code == GST_RESOURCE_ERROR_NOT_FOUND)
      GTEST_SKIP() << "no usable GPU: " << e[0].debug;
    ASSERT_TRUE(r.eos) << r.describe_errors();
    EXPECT_TRUE(r.errors.empty()) << r.describe_errors();
    std::map<std::string, double> max_diff;
    expect_frames_match(r, o, p.prefix + " backend=hip", &max_diff);
    expect_pooled_matches(r, o, p.prefix + " backend=hip");
    print_max_diff(p.prefix + " backend=hip", max_diff);
  }
}

TEST(Backend, AutoFallsBackToTheCpuAndSaysSoOnce) {
  REQUIRE_GST();
  const Pair p = pair_c();
  Oracle o;
  ASSERT_TRUE(load_oracle(p.oracle_path("vmaf_v0.6.1"), &o).is_ok());
  const RunResult r = run_pipeline(pair_launch(p, "backend=auto threads=1 psnr=1 ssim=1 ms-ssim=1"));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  size_t notices = 0;
  for (const auto& m : r.infos) notices += m.source == "v";
  EXPECT_LE(notices, 1u);
  if (notices == 1) {
    for (const auto& m : r.infos) {
      if (m.source == "v") {
        EXPECT_NE(m.text.find("CPU"), std::string::npos) << m.text;
      }
    }
  }
  expect_frames_match(r, o, "backend=auto", nullptr);
}

// ---------------------------------------------------------------------------------------------------------------
// Results files in every layout: JSON against libvmaf's file above; XML, CSV and SUB against the engine's writer fed
// with a direct engine run over the same frames (CSV and SUB byte for byte; XML apart from the measured fps).

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::string strip_fps(std::string s) {
  const std::string key = "fps=\"";
  const size_t a = s.find(key);
  if (a == std::string::npos) return s;
  const size_t b = s.find('"', a + key.size());
  return s.erase(a, b - a);
}

TEST(Results, EveryFormatMatchesTheEngineWriter) {
  REQUIRE_GST();
  const Pair p = pair_c();
  FormatInfo fmt;
  ASSERT_TRUE(parse_pixel_format("420", 8, &fmt).is_ok());
  YuvClip ref, dist;
  ASSERT_TRUE(ref.open(p.ref_path(), p.width, p.height, fmt).is_ok());
  ASSERT_TRUE(dist.open(p.dist_path(), p.width, p.height, fmt).is_ok());
  ScorerConfig cfg = ::vmafx::test::scorer_config("vmaf_v0.6.1", {"psnr"});
  cfg.threads = 1;
  ::vmafx::test::FrameLog log;
  std::unique_ptr<Scorer> scorer;
  ASSERT_TRUE(::vmafx::test::make_scorer(cfg, {p.width, p.height, 8, Chroma::k420}, &log, &scorer).is_ok());
  for (size_t i = 0; i < ref.frames(); i++)
    ASSERT_TRUE(scorer->submit(::vmafx::test::frame_pair(ref.frame(i), dist.frame(i), int64_t(i), 0)).is_ok());
  ASSERT_TRUE(scorer->flush().is_ok());
  ResultsInfo info;
  info.width = p.width;
  info.height = p.height;
  info.frame_count = ref.frames();
  info.fps = 25.0;

  for (const std::string f : {"xml", "csv", "sub", "json"}) {
    const std::string path = temp_path("results." + f);
    const RunResult r =
        run_pipeline(pair_launch(p, "threads=1 psnr=1 results-format=" + f + " results-filename=\"" + path + "\""));
    ASSERT_TRUE(r.eos) << f << r.describe_errors();
    ResultsFormat rf;
    ASSERT_TRUE(parse_results_format(f, &rf));
    std::ostringstream expected;
    ASSERT_TRUE(write_results(scorer->collector(), rf, info, expected).is_ok());
    const std::string got = read_file(path);
    ASSERT_FALSE(got.empty()) << f;
    if (f == "csv" || f == "sub") {
      EXPECT_EQ(got, expected.str()) << f;
    } else if (f == "xml") {
      EXPECT_EQ(strip_fps(got), strip_fps(expected.str())) << f;
    } else {
      nlohmann::json a = nlohmann::json::parse(got), b = nlohmann::json::parse(expected.str());
      a.erase("fps");
      b.erase("fps");
      EXPECT_EQ(a, b);
    }
  }
}

// psnr's enable_apsnr through the features property: the pooled message carries apsnr-y / -cb / -cr and the results
// file libvmaf's aggregate_metrics, both equal to libvmaf 3.2's on the sample pair (tests/data/output/
// sample_nflx_ctc.json: psnr=enable_chroma=true:enable_apsnr=true and float_ssim=enable_db=true:clip_db=true are
// that preset's); frame messages carry float_ssim in clipped dB. Luma only, the chroma aggregates (-infinity, JSON
// null) are left out of the message.
TEST(FeatureOptions, ApsnrReachesThePooledMessageAndTheResultsFile) {
  REQUIRE_GST();
  const std::string dir = temp_path("apsnr_sample");
  const std::string ref = dir + "_ref.yuv", dist = dir + "_dist.yuv";
  const std::string src = project_source_dir() + "/samples/sample_320x240_";
  ASSERT_EQ(std::system(("gunzip -c " + src + "ref.yuv.gz > " + ref + " && gunzip -c " + src + "dist.yuv.gz > " +
                         dist).c_str()),
            0);
  const nlohmann::json want = nlohmann::json::parse(read_file(project_data_dir() + "/output/sample_nflx_ctc.json"));
  auto launch = [&](const std::string& features, const std::string& results) {
    return raw_yuv_source(ref, 320, 240, 8) + " ! v.ref_sink " + raw_yuv_source(dist, 320, 240, 8) +
           " ! v.dist_sink vmafxhip name=v threads=1 model-filename=\"\" frame-message=true features=\"" + features +
           "\" results-filename=\"" + results + "\" ! fakesink";
  };
  const double printed = 5e-7 + 1e-12;  // libvmaf's %.6f
  const std::string results = temp_path("apsnr.json");
  const RunResult r =
      run_pipeline(launch("psnr=enable_chroma=true:enable_apsnr=true,float_ssim=enable_db=true:clip_db=true", results));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  ASSERT_EQ(r.pooled.size(), 1u);
  ASSERT_EQ(r.frames.size(), want.at("frames").size());
  for (size_t i = 0; i < r.frames.size(); i++) {
    const auto& m = want.at("frames")[i].at("metrics");
    for (const char* f : {"psnr-y", "psnr-cb", "psnr-cr", "ssim"})
      EXPECT_NEAR(get_double(r.frames[i].get(), f), m.at(libvmaf_name(f)).get<double>(), printed) << f << " " << i;
  }
  const nlohmann::json got = nlohmann::json::parse(read_file(results));
  EXPECT_EQ(got.at("aggregate_metrics"), want.at("aggregate_metrics"));
  for (const char* name : {"apsnr_y", "apsnr_cb", "apsnr_cr"}) {
    std::string field = name;
    field[5] = '-';
    EXPECT_NEAR(get_double(r.pooled[0].get(), field.c_str()), want.at("aggregate_metrics").at(name).get<double>(),
                printed)
        << field;
  }
  std::printf("pooled apsnr-y %.6f apsnr-cb %.6f apsnr-cr %.6f (libvmaf %s)\n",
              get_double(r.pooled[0].get(), "apsnr-y"), get_double(r.pooled[0].get(), "apsnr-cb"),
              get_double(r.pooled[0].get(), "apsnr-cr"), want.at("aggregate_metrics").dump().c_str());

  const std::string luma_results = temp_path("apsnr_luma.json");
  const RunResult l = run_pipeline(launch("psnr=enable_chroma=false:enable_apsnr=true", luma_results));
  ASSERT_TRUE(l.eos) << l.describe_errors();
  ASSERT_EQ(l.pooled.size(), 1u);
  EXPECT_EQ(get_double(l.pooled[0].get(), "apsnr-y"), get_double(r.pooled[0].get(), "apsnr-y"));
  EXPECT_FALSE(gst_structure_has_field(l.pooled[0].get(), "apsnr-cb"));
  EXPECT_FALSE(gst_structure_has_field(l.pooled[0].get(), "apsnr-cr"));
  const nlohmann::json luma = nlohmann::json::parse(read_file(luma_results));
  EXPECT_TRUE(luma.at("aggregate_metrics").at("apsnr_cb").is_null());
  EXPECT_TRUE(luma.at("aggregate_metrics").at("apsnr_cr").is_null());
}

TEST(Results, UnwrittenResultsFileIsNotLeftBehind) {
  REQUIRE_GST();
  // A pipeline that fails before the end does not leave an empty results file of its own making.
  const std::string path = temp_path("never.json");
  const RunResult r = run_pipeline(
      "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,height=48 ! v.ref_sink "
      "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=32,height=48 ! v.dist_sink "
      "vmafxhip name=v scale-method=none results-filename=\"" + path + "\" ! fakesink");
  EXPECT_EQ(r.element_errors().size(), 1u);
  EXPECT_FALSE(file_exists(path));
}

// ---------------------------------------------------------------------------------------------------------------

TEST(ConfidenceInterval, BootstrapModelAddsIntervalFields) {
  REQUIRE_GST();
  const Pair p = pair_c();
  const RunResult r = run_pipeline(pair_launch(p, "threads=1 model-filename=vmaf_b_v0.6.3 conf-interval=true"));
  ASSERT_TRUE(r.eos) << r.describe_errors();
  ASSERT_EQ(r.frames.size(), 8u);
  // The same frames straight through the engine: the element reports exactly its columns.
  FormatInfo fmt;
  ASSERT_TRUE(parse_pixel_format("420", 8, &fmt).is_ok());
  YuvClip ref, dist;
  ASSERT_TRUE(ref.open(p.ref_path(), p.width, p.height, fmt).is_ok());
  ASSERT_TRUE(dist.open(p.dist_path(), p.width, p.height, fmt).is_ok());
  ScorerConfig cfg = ::vmafx::test::scorer_config("vmaf_b_v0.6.3");
  cfg.conf_interval = true;
  cfg.threads = 1;
  ::vmafx::test::FrameLog log;
  std::unique_ptr<Scorer> scorer;
  ASSERT_TRUE(::vmafx::test::make_scorer(cfg, {p.width, p.height, 8, Chroma::k420}, &log, &scorer).is_ok());
  for (size_t i = 0; i < ref.frames(); i++)
    ASSERT_TRUE(scorer->submit(::vmafx::test::frame_pair(ref.frame(i), dist.frame(i), int64_t(i), 0)).is_ok());
  ASSERT_TRUE(scorer->flush().is_ok());
  const Collector& c = scorer->collector();
  for (size_t i = 0; i < r.frames.size(); i++) {
    const GstStructure* f = r.frames[i].get();
    for (const auto& [field, column] : std::vector<std::pair<std::string, std::string>>{
             {"score", "vmaf"}, {"ci-p95-lo", "vmaf_ci_p95_lo"}, {"ci-p95-hi", "vmaf_ci_p95_hi"},
             {"stddev", "vmaf_stddev"}, {"bagging", "vmaf_bagging"}}) {
      const long col = c.find(column);
      ASSERT_GE(col, 0) << column;
      double v;
      ASSERT_TRUE(c.get(i, size_t(col), &v));
      EXPECT_EQ(get_double(f, field.c_str()), v) << field << " frame " << i;
    }
    EXPECT_LE(get_double(f, "ci-p95-lo"), get_double(f, "ci-p95-hi"));
    EXPECT_GE(get_double(f, "stddev"), 0.0);
  }
}

TEST(Properties, DefaultsAndDropInNames) {
  REQUIRE_GST();
  GstElement* e = gst_element_factory_make("vmafxhip", nullptr);
  ASSERT_NE(e, nullptr);
  gchar* model = nullptr;
  gboolean frame_message = TRUE;
  guint subsample = 0, threads = 7;
  gint device = 0;
  g_object_get(e, "model-filename", &model, "frame-message", &frame_message, "subsample", &subsample, "threads",
               &threads, "device-id", &device, nullptr);
  EXPECT_STREQ(model, "vmaf_v0.6.1");
  EXPECT_FALSE(frame_message) << "GStreamer's vmaf posts no frame messages by default";
  EXPECT_EQ(subsample, 1u);
  EXPECT_EQ(threads, 0u);
  EXPECT_EQ(device, -1);
  g_free(model);
  for (const char* prop : {"model-filename", "disable-clip", "enable-transform", "phone-model", "psnr", "ssim",
                           "ms-ssim", "pool-method", "threads", "subsample", "conf-interval", "frame-message",
                           "results-filename", "results-format", "log-level", "backend", "device-id", "vendor",
                           "frames-scored", "frames-skipped", "output", "pairing", "dist-offset", "auto-sync",
                           "max-reference-frames", "max-reference-bytes", "latency", "force-live", "scale-method",
                           "features"})
    EXPECT_NE(g_object_class_find_property(G_OBJECT_GET_CLASS(e), prop), nullptr) << prop;
  for (const auto& [prop, value] : std::vector<std::pair<const char*, const char*>>{
           {"pool-method", "harmonic_mean"}, {"results-format", "sub"}, {"backend", "cpu"}, {"vendor", "nvidia"},
           {"output", "distorted"}, {"pairing", "arrival"}})
    gst_util_set_object_arg(G_OBJECT(e), prop, value);
  // GStreamer vmaf's enum values: pool-method 1 min .. 4 harmonic_mean, results-format libvmaf's 0 none, 1 xml,
  // 2 json, 3 csv (sub, 4, is vmafxhip's addition).
  auto value_of = [&](const char* prop, const char* nick) {
    GParamSpec* ps = g_object_class_find_property(G_OBJECT_GET_CLASS(e), prop);
    GEnumClass* ec = G_ENUM_CLASS(g_type_class_ref(ps->value_type));
    GEnumValue* v = g_enum_get_value_by_nick(ec, nick);
    const int out = v ? v->value : -1;
    g_type_class_unref(ec);
    return out;
  };
  EXPECT_EQ(value_of("pool-method", "min"), 1);
  EXPECT_EQ(value_of("pool-method", "max"), 2);
  EXPECT_EQ(value_of("pool-method", "mean"), 3);
  EXPECT_EQ(value_of("pool-method", "harmonic_mean"), 4);
  EXPECT_EQ(value_of("pool-method", "harmonic-mean"), -1) << "one nick per value";
  EXPECT_EQ(value_of("results-format", "none"), 0);
  EXPECT_EQ(value_of("results-format", "xml"), 1);
  EXPECT_EQ(value_of("results-format", "json"), 2);
  EXPECT_EQ(value_of("results-format", "csv"), 3);
  EXPECT_EQ(value_of("results-format", "sub"), 4);
  EXPECT_EQ(value_of("log-level", "debug"), 4);
  for (const char* pad : {"ref_sink", "dist_sink", "src"}) {
    GstPad* p = gst_element_get_static_pad(e, pad);
    EXPECT_NE(p, nullptr) << pad;
    if (p) gst_object_unref(p);
  }
  GstElementFactory* f = gst_element_get_factory(e);
  EXPECT_STREQ(gst_element_factory_get_metadata(f, GST_ELEMENT_METADATA_KLASS), "Filter/Analyzer/Video");
  // Not an aggregator: no inherited properties beyond GstObject's name and parent.
  guint n = 0;
  GParamSpec** specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(e), &n);
  for (guint i = 0; i < n; i++)
    if (specs[i]->owner_type != GST_TYPE_ELEMENT && specs[i]->owner_type != GST_TYPE_OBJECT)
      EXPECT_EQ(specs[i]->owner_type, G_OBJECT_TYPE(e)) << specs[i]->name;
  g_free(specs);
  // Every property has a nick of its own and a blurb.
  specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(e), &n);
  for (guint i = 0; i < n; i++) {
    if (specs[i]->owner_type != G_OBJECT_TYPE(e)) continue;
    EXPECT_STRNE(g_param_spec_get_nick(specs[i]), g_param_spec_get_name(specs[i])) << specs[i]->name;
    EXPECT_GT(strlen(g_param_spec_get_blurb(specs[i])), 10u) << specs[i]->name;
  }
  g_free(specs);
  gst_object_unref(e);
}

// ssimulacra2 converts with the reference caps' colorimetry: full-range BT.2020 caps (rawvideoparse colorimetry
// 1:6:0:0) give the engine's yuv_matrix=bt2020:yuv_range=full scores, plain caps (GStreamer's default for 320x240,
// BT.601 limited) the reference tool's scores of tests/data/ssimulacra2/sample.json.
TEST(FeatureOptions, Ssimulacra2TakesTheCapsColorimetry) {
  REQUIRE_GST();
  const std::string dir = temp_path("s2_sample");
  const std::string ref = dir + "_ref.yuv", dist = dir + "_dist.yuv";
  const std::string src = project_source_dir() + "/samples/sample_320x240_";
  ASSERT_EQ(std::system(("gunzip -c " + src + "ref.yuv.gz > " + ref + " && gunzip -c " + src + "dist.yuv.gz > " +
                         dist).c_str()),
            0);
  auto launch = [&](const std::string& colorimetry) {
    const std::string c = colorimetry.empty() ? "" : " colorimetry=" + colorimetry;
    return raw_yuv_source(ref, 320, 240, 8) + c + " ! v.ref_sink " + raw_yuv_source(dist, 320, 240, 8) + c +
           " ! v.dist_sink vmafxhip name=v threads=2 backend=cpu model-filename=\"\" frame-message=true "
           "features=ssimulacra2 ! fakesink";
  };
  PairClips clips;
  ASSERT_TRUE(open_sample_pair(&clips).is_ok());
  ScorerConfig cfg;
  cfg.models.clear();
  cfg.features = {{"ssimulacra2", {{"yuv_matrix", "bt2020"}, {"yuv_range", "full"}}}};
  FrameLog log;
  std::unique_ptr<Scorer> scorer;
  ASSERT_TRUE(make_scorer(cfg, {320, 240, 8, Chroma::k420}, &log, &scorer).is_ok());
  for (size_t i = 0; i < clips.ref.frames(); i++)
    ASSERT_TRUE(scorer->submit(frame_pair(clips.ref.frame(i), clips.dist.frame(i), int64_t(i), i)).is_ok());
  ASSERT_TRUE(scorer->flush().is_ok());
  const RunResult full = run_pipeline(launch("1:6:0:0"));
  ASSERT_TRUE(full.eos) << full.describe_errors();
  ASSERT_EQ(full.frames.size(), log.size());
  for (size_t i = 0; i < full.frames.size(); i++)
    EXPECT_EQ(get_double(full.frames[i].get(), "ssimulacra2"), log.frames()[i].get("ssimulacra2", scorer->score_names()))
        << i;
  Oracle o;
  ASSERT_TRUE(load_oracle(project_data_dir() + "/ssimulacra2/sample.json", &o).is_ok());
  const RunResult plain = run_pipeline(launch(""));
  ASSERT_TRUE(plain.eos) << plain.describe_errors();
  ASSERT_EQ(plain.frames.size(), o.frames.size());
  for (size_t i = 0; i < plain.frames.size(); i++) {
    EXPECT_NEAR(get_double(plain.frames[i].get(), "ssimulacra2"), o.frames[i].at("ssimulacra2"),
                kSsimulacra2VsReference)
        << i;
    EXPECT_NE(get_double(plain.frames[i].get(), "ssimulacra2"), get_double(full.frames[i].get(), "ssimulacra2"));
  }
}

}  // namespace
}  // namespace vmafx::test
