// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafxhip as a drop-in for GStreamer 1.28's `vmaf` (gst-plugins-bad ext/vmaf): that element's own check test
// (tests/check/elements/vmaf.c, test_vmaf_identical_frames) and the launch line of its documentation, each run with
// only the element name changed, asserting what they assert; then the fields and values vmaf's documentation gives
// its messages, against libvmaf's JSON of the same clips (vmaf computes with libvmaf, so libvmaf's numbers are
// vmaf's). Written from those sources' behaviour, not copied.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "gst_harness.h"
#include "support.h"
#include "tolerances.h"

namespace vmafx::test {
namespace {

#define REQUIRE_GST()                            \
  do {                                           \
    std::string why_;                            \
    if (!gst_ready(&why_)) GTEST_SKIP() << why_; \
  } while (0)

// What vmaf's check test does: run on a GMainLoop with a signal watch until EOS, any ERROR or WARNING on the bus is a
// failure, keep the last "VMAF" element message.
struct CheckRun {
  GMainLoop* loop = nullptr;
  bool eos = false;
  bool score_received = false;
  GstStructure* last = nullptr;
  std::vector<std::string> problems;  // errors and warnings (vmaf's test asserts there are none)
  std::vector<Structure> messages;    // every VMAF message
};

void on_message(GstBus*, GstMessage* m, gpointer user) {
  auto* r = static_cast<CheckRun*>(user);
  switch (GST_MESSAGE_TYPE(m)) {
    case GST_MESSAGE_ERROR:
    case GST_MESSAGE_WARNING: {
      GError* err = nullptr;
      gchar* dbg = nullptr;
      if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR)
        gst_message_parse_error(m, &err, &dbg);
      else
        gst_message_parse_warning(m, &err, &dbg);
      r->problems.push_back(std::string(GST_MESSAGE_SRC_NAME(m)) + ": " + (err ? err->message : "") + " | " +
                            (dbg ? dbg : ""));
      if (err) g_error_free(err);
      g_free(dbg);
      if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) g_main_loop_quit(r->loop);
      break;
    }
    case GST_MESSAGE_EOS:
      r->eos = true;
      g_main_loop_quit(r->loop);
      break;
    case GST_MESSAGE_ELEMENT: {
      const GstStructure* s = gst_message_get_structure(m);
      if (s && gst_structure_has_name(s, "VMAF")) {
        r->score_received = true;
        if (r->last) gst_structure_free(r->last);
        r->last = gst_structure_copy(s);
        r->messages.push_back(copy_structure(s));
      }
      break;
    }
    default: break;
  }
}

gboolean give_up(gpointer user) {
  auto* r = static_cast<CheckRun*>(user);
  r->problems.push_back("no end of stream within the bound");
  g_main_loop_quit(r->loop);
  return G_SOURCE_REMOVE;
}

CheckRun run_like_vmaf_check(const std::string& launch) {
  CheckRun r;
  GError* err = nullptr;
  GstElement* pipeline = gst_parse_launch(launch.c_str(), &err);
  EXPECT_EQ(err, nullptr) << (err ? err->message : "");
  if (!pipeline) return r;
  g_object_set(G_OBJECT(pipeline), "async-handling", TRUE, nullptr);
  r.loop = g_main_loop_new(nullptr, FALSE);
  GstBus* bus = gst_element_get_bus(pipeline);
  gst_bus_add_signal_watch(bus);
  g_signal_connect(bus, "message", G_CALLBACK(on_message), &r);
  const guint timer = g_timeout_add_seconds(300, give_up, &r);
  const GstStateChangeReturn ret = gst_element_set_state(pipeline, GST_STATE_PLAYING);
  EXPECT_TRUE(ret == GST_STATE_CHANGE_SUCCESS || ret == GST_STATE_CHANGE_ASYNC);
  g_main_loop_run(r.loop);
  g_source_remove(timer);
  EXPECT_EQ(gst_element_set_state(pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  gst_bus_remove_signal_watch(bus);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
  g_main_loop_unref(r.loop);
  r.loop = nullptr;
  return r;
}

// tests/check/elements/vmaf.c, test_vmaf_identical_frames, with "vmaf" -> "vmafxhip".
TEST(VmafCheckTest, IdenticalFrames) {
  REQUIRE_GST();
  CheckRun r = run_like_vmaf_check(
      "videotestsrc num-buffers=5 pattern=solid-color foreground-color=0x00ff0000 ! "
      "video/x-raw,format=I420,width=320,height=180,framerate=25/1 ! v.ref_sink "
      "vmafxhip name=v frame-message=true threads=0 ! fakesink "
      "videotestsrc num-buffers=5 pattern=solid-color foreground-color=0x00ff0000 ! "
      "video/x-raw,format=I420,width=320,height=180,framerate=25/1 ! v.dist_sink");
  EXPECT_TRUE(r.problems.empty()) << r.problems.front();
  EXPECT_TRUE(r.eos);
  ASSERT_TRUE(r.score_received) << "Score message was not received";
  ASSERT_NE(r.last, nullptr);
  EXPECT_TRUE(gst_structure_has_name(r.last, "VMAF"));
  for (const char* f : {"timestamp", "stream-time", "running-time", "duration"})
    EXPECT_TRUE(gst_structure_has_field_typed(r.last, f, G_TYPE_UINT64)) << f;
  EXPECT_TRUE(gst_structure_has_field_typed(r.last, "score", G_TYPE_DOUBLE));
  EXPECT_TRUE(gst_structure_has_field_typed(r.last, "type", G_TYPE_STRING));
  // The last message is the pooled one (vmaf posts it at the reference's end), after one per frame.
  EXPECT_STREQ(gst_structure_get_string(r.last, "type"), "pooled");
  EXPECT_EQ(r.messages.size(), 6u);
  gst_structure_free(r.last);
}

// The launch line of vmaf's documentation (its SECTION comment), with "vmaf" -> "vmafxhip", an even-sized 8-bit
// 4:2:0 pair as test1.yuv / test2.yuv (generated g1; the 1080p pair d too when ../shared is there), and fakesink
// for autovideosink where there is no display.
void expect_doc_pipeline(const Pair* p) {
  Oracle o;
  ASSERT_TRUE(load_oracle(p->oracle_path("vmaf_v0.6.1"), &o).is_ok());
  const bool display = g_getenv("DISPLAY") || g_getenv("WAYLAND_DISPLAY");
  const std::string results = temp_path("scores.json");
  const std::string size = "width=" + std::to_string(p->width) + " height=" + std::to_string(p->height);
  CheckRun r = run_like_vmaf_check(
      "filesrc location=\"" + p->ref_path() + "\" ! rawvideoparse " + size + " ! v.ref_sink "
      "filesrc location=\"" + p->dist_path() + "\" ! rawvideoparse " + size + " ! v.dist_sink "
      "vmafxhip name=v frame-message=true results-filename=\"" + results +
      "\" psnr=true ssim=true ms-ssim=true ! " + (display ? "autovideosink" : "fakesink"));
  EXPECT_TRUE(r.eos);
  for (const auto& m : r.problems) ADD_FAILURE() << m;
  if (r.last) gst_structure_free(r.last);
  std::vector<const GstStructure*> frames;
  const GstStructure* pooled = nullptr;
  for (const auto& m : r.messages) {
    const std::string type = gst_structure_get_string(m.get(), "type");
    if (type == "frame") frames.push_back(m.get());
    if (type == "pooled") pooled = m.get();
  }
  ASSERT_EQ(frames.size(), o.frames.size());
  const GstClockTime d = 40 * GST_MSECOND;  // rawvideoparse's default 25/1
  for (size_t i = 0; i < frames.size(); i++) {
    const GstStructure* f = frames[i];
    // vmaf's documented frame fields and types.
    for (const char* k : {"timestamp", "stream-time", "running-time", "duration"})
      EXPECT_TRUE(gst_structure_has_field_typed(f, k, G_TYPE_UINT64)) << k;
    for (const char* k : {"score", "psnr-y", "ssim", "ms-ssim"})
      EXPECT_TRUE(gst_structure_has_field_typed(f, k, G_TYPE_DOUBLE)) << k;
    EXPECT_TRUE(gst_structure_has_field_typed(f, "index", G_TYPE_INT));
    EXPECT_EQ(get_int(f, "index"), gint(i));
    EXPECT_EQ(get_uint64(f, "timestamp"), i * d);
    EXPECT_EQ(get_uint64(f, "duration"), d);
    // libvmaf's numbers, which are vmaf's.
    EXPECT_NEAR(get_double(f, "score"), o.frames[i].at("vmaf"), kVmafTol) << i;
    EXPECT_NEAR(get_double(f, "psnr-y"), o.frames[i].at("psnr_y"), tolerance_for("psnr_y")) << i;
    EXPECT_NEAR(get_double(f, "ssim"), o.frames[i].at("float_ssim"), tolerance_for("float_ssim")) << i;
    EXPECT_NEAR(get_double(f, "ms-ssim"), o.frames[i].at("float_ms_ssim"), tolerance_for("float_ms_ssim")) << i;
  }
  // The pooled message as vmaf posts it: the output's position at the end (the stream's end) and the duration of
  // the frames scored; the pooled score and features with the pool method.
  ASSERT_NE(pooled, nullptr);
  const guint64 n = o.frames.size();
  EXPECT_EQ(get_uint64(pooled, "timestamp"), n * d);
  EXPECT_EQ(get_uint64(pooled, "running-time"), n * d);
  EXPECT_EQ(get_uint64(pooled, "duration"), n * d);
  EXPECT_NEAR(get_double(pooled, "score"), o.pooled.at("vmaf").at("mean"), kVmafTol);
  EXPECT_NEAR(get_double(pooled, "psnr-y"), o.pooled.at("psnr_y").at("mean"), tolerance_for("psnr_y"));
  // results-filename without results-format: json, as vmaf.
  std::ifstream f(results);
  ASSERT_TRUE(f.good());
  nlohmann::json j;
  f >> j;
  EXPECT_EQ(j.at("frames").size(), o.frames.size());
  EXPECT_TRUE(j.at("pooled_metrics").contains("vmaf"));
}

TEST(VmafDocPipeline, FieldsAndValuesAsVmafDocumentsThem) {
  REQUIRE_GST();
  for (const Pair& p : pairs_of_kind("g1_", "d_1920x1080")) {
    SCOPED_TRACE(p.name());
    expect_doc_pipeline(&p);
  }
}

// A flushing seek posts a pooled message, as vmaf's flush does.
TEST(VmafBehaviour, FlushingSeekPostsAPooledMessage) {
  REQUIRE_GST();
  const Pair p = long_pair();  // 32 frames
  bool seeked = false;
  RunOptions opt;
  opt.on_frame = [&](GstElement* pipeline, const GstStructure* f) {
    if (seeked || get_int(f, "index") < 2) return;
    seeked = true;
    gst_element_seek_simple(pipeline, GST_FORMAT_TIME, GstSeekFlags(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE),
                            20 * 40 * GST_MSECOND);
  };
  const RunResult r = run_pipeline(raw_yuv_source(p.ref_path(), p.width, p.height, 8) + " ! v.ref_sink " +
                                       raw_yuv_source(p.dist_path(), p.width, p.height, 8) +
                                       " ! identity sleep-time=10000 ! v.dist_sink vmafxhip name=v threads=1 ! "
                                       "fakesink",
                                   opt);
  ASSERT_TRUE(seeked);
  ASSERT_TRUE(r.eos) << r.describe_errors();
  ASSERT_EQ(r.pooled.size(), 2u);
  EXPECT_GT(get_uint64(r.pooled[0].get(), "frames"), 0u);
  EXPECT_EQ(get_uint64(r.pooled[1].get(), "frames"), 12u);
}

// Settings vmaf tolerates: results-format without results-filename scores on; vmaf says nothing, vmafxhip says as an
// INFO that nothing is written (applications that treat warnings as failures keep working).
TEST(VmafBehaviour, HarmlessSettingsAreToleratedWithAnInfo) {
  REQUIRE_GST();
  const RunResult r = run_pipeline(
      "videotestsrc num-buffers=5 ! video/x-raw,format=I420,width=64,height=48,framerate=25/1 ! v.ref_sink "
      "videotestsrc num-buffers=5 ! video/x-raw,format=I420,width=64,height=48,framerate=25/1 ! v.dist_sink "
      "vmafxhip name=v results-format=csv ! fakesink");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  ASSERT_EQ(r.pooled.size(), 1u);
  EXPECT_EQ(get_uint64(r.pooled[0].get(), "frames"), 5u);
  EXPECT_TRUE(r.warnings.empty());
  size_t said = 0;
  for (const auto& m : r.infos) said += m.source == "v" && m.text.find("results-filename") != std::string::npos;
  EXPECT_EQ(said, 1u);
}

// No GPU: one short line, not the list of library probes (those go to the debug log at INFO).
TEST(VmafBehaviour, TheNoGpuNoticeIsOneShortLine) {
  REQUIRE_GST();
  const RunResult r = run_pipeline(
      "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,height=48,framerate=25/1 ! v.ref_sink "
      "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,height=48,framerate=25/1 ! v.dist_sink "
      "vmafxhip name=v ! fakesink");
  ASSERT_TRUE(r.eos) << r.describe_errors();
  for (const auto& m : r.infos) {
    if (m.source != "v") continue;
    EXPECT_LT(m.text.size(), 80u) << m.text;
    // GStreamer puts the source location and the element's path before the debug text (gst-launch prints both).
    const std::string own = m.debug.substr(m.debug.rfind('\n') == std::string::npos ? 0 : m.debug.rfind('\n') + 1);
    EXPECT_LT(own.size(), 80u) << m.debug;
    EXPECT_EQ(m.text.find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace vmafx::test
