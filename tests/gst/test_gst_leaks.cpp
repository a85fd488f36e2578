// SPDX-License-Identifier: LGPL-2.1-or-later
// Leak check of the element: every path (scores and results file, errors at start and mid-stream, a flushing seek,
// unequal lengths, worker threads) on the small odd-size pair, then
//  - GStreamer's leaks tracer (GST_TRACERS=leaks, set by meson): no GstObject or mini object (buffer, memory, caps,
//    event, message) created during the scenarios may still be alive once their pipelines are gone;
//  - the same binary runs under valgrind as a second meson test (test_gst_leaks_valgrind): no definite leak.
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "gst_harness.h"
#include "support.h"

namespace vmafx::test {
namespace {

GstTracer* leaks_tracer() {
  GList* tracers = gst_tracing_get_active_tracers();
  GstTracer* found = nullptr;
  for (GList* l = tracers; l; l = l->next) {
    if (!found && g_str_equal(G_OBJECT_TYPE_NAME(l->data), "GstLeaksTracer"))
      found = GST_TRACER(gst_object_ref(l->data));
  }
  g_list_free_full(tracers, gst_object_unref);
  return found;
}

// Objects and mini objects the tracer sees alive: address -> "type (refcount n)".
std::map<const void*, std::string> live_objects(GstTracer* tracer) {
  GstStructure* info = nullptr;
  g_signal_emit_by_name(tracer, "get-live-objects", &info);
  std::map<const void*, std::string> out;
  if (!info) return out;
  const GValue* list = gst_structure_get_value(info, "live-objects-list");
  for (guint i = 0; list && i < gst_value_list_get_size(list); i++) {
    const GstStructure* o = gst_value_get_structure(gst_value_list_get_value(list, i));
    const GValue* obj = gst_structure_get_value(o, "object");
    if (!obj) continue;
    const void* ptr = G_VALUE_HOLDS_OBJECT(obj) ? static_cast<const void*>(g_value_get_object(obj))
                                                : static_cast<const void*>(g_value_get_boxed(obj));
    guint refs = 0;
    gst_structure_get_uint(o, "ref-count", &refs);
    out[ptr] = std::string(G_VALUE_TYPE_NAME(obj)) + " (refcount " + std::to_string(refs) + ")";
  }
  gst_structure_free(info);
  return out;
}

std::string pair_c_launch(const std::string& props, const std::string& dist_path = "",
                          const std::string& dist_chain = "") {
  const Pair p = *find_generated_pair("g5_");
  return raw_yuv_source(p.ref_path(), p.width, p.height, 8) + " ! v.ref_sink " +
         raw_yuv_source(dist_path.empty() ? p.dist_path() : dist_path, p.width, p.height, 8) + dist_chain +
         " ! v.dist_sink vmafxhip name=v " + props + " ! fakesink";
}

void run_scenarios() {
  const Pair p = *find_generated_pair("g5_");
  // Scores, every feature, results file.
  RunResult r = run_pipeline(pair_c_launch("threads=1 psnr=1 ssim=1 ms-ssim=1 results-filename=\"" +
                                           temp_path("leak.json") + "\""));
  EXPECT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames.size(), 8u);
  // Worker threads, subsampling, no frame messages.
  r = run_pipeline(pair_c_launch("threads=2 subsample=3 frame-message=false"));
  EXPECT_TRUE(r.eos) << r.describe_errors();
  EXPECT_EQ(r.frames_scored, 3u);  // frames 0, 3, 6 of 8
  // Errors at start: missing model, unwritable results file.
  r = run_pipeline(pair_c_launch("model-filename=/nonexistent/model.json"));
  EXPECT_EQ(r.element_errors().size(), 1u);
  r = run_pipeline(pair_c_launch("results-filename=/nonexistent/dir/x.json"));
  EXPECT_EQ(r.element_errors().size(), 1u);
  // Error at negotiation: geometry mismatch.
  r = run_pipeline(
      "videotestsrc num-buffers=4 ! video/x-raw,format=I420,width=64,height=48 ! v.ref_sink "
      "videotestsrc num-buffers=4 ! video/x-raw,format=NV12,width=48,height=48 ! v.dist_sink vmafxhip name=v "
      "scale-method=none ! "
      "fakesink");
  EXPECT_EQ(r.element_errors().size(), 1u);
  // Error mid-stream: a distorted buffer smaller than its caps after two good ones (pictures held by the engine
  // must be released).
  RunOptions opt;
  opt.setup = [](GstElement* pipeline) {
    for (const char* name : {"r", "d"}) {
      GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), name);
      for (int i = 0; i < 4; i++) {
        const gsize size = (std::string(name) == "d" && i == 2) ? 100 : 4608;
        GstBuffer* b = gst_buffer_new_allocate(nullptr, size, nullptr);
        gst_buffer_memset(b, 0, guint8(0x40 + 9 * i), size);
        GST_BUFFER_PTS(b) = i * 40 * GST_MSECOND;
        GST_BUFFER_DURATION(b) = 40 * GST_MSECOND;
        gst_app_src_push_buffer(GST_APP_SRC(src), b);
      }
      gst_app_src_end_of_stream(GST_APP_SRC(src));
      gst_object_unref(src);
    }
  };
  const char* caps = "caps=\"video/x-raw,format=I420,width=64,height=48,framerate=25/1\" format=time";
  r = run_pipeline(std::string("appsrc name=r ") + caps + " ! v.ref_sink appsrc name=d " + caps +
                       " ! v.dist_sink vmafxhip name=v threads=1 ! fakesink",
                   opt);
  EXPECT_EQ(r.element_errors().size(), 1u) << r.describe_errors();
  // Unequal lengths.
  {
    const size_t frame = size_t(p.width) * p.height + 2 * size_t((p.width + 1) / 2) * ((p.height + 1) / 2);
    std::ifstream in(p.dist_path(), std::ios::binary);
    std::vector<char> data(frame * 5);
    in.read(data.data(), std::streamsize(data.size()));
    const std::string path = temp_path("short.yuv");
    std::ofstream(path, std::ios::binary).write(data.data(), std::streamsize(data.size()));
    r = run_pipeline(pair_c_launch("threads=1", path));
    EXPECT_TRUE(r.eos);
    EXPECT_EQ(r.frames.size(), 5u);
  }
  // Flushing seek mid-stream.
  bool seeked = false;
  RunOptions seek;
  seek.on_frame = [&](GstElement* pipeline, const GstStructure*) {
    if (seeked) return;
    seeked = true;
    gst_element_seek_simple(pipeline, GST_FORMAT_TIME, GstSeekFlags(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE),
                            6 * 40 * GST_MSECOND);
  };
  r = run_pipeline(pair_c_launch("threads=1", "", " ! identity sleep-time=20000"), seek);
  EXPECT_TRUE(seeked);
  EXPECT_TRUE(r.eos) << r.describe_errors();
  // Stopped mid-stream (no EOS): held pictures are released at the state change.
  RunOptions stop_early;
  stop_early.timeout_s = 0.3;
  r = run_pipeline(pair_c_launch("threads=1", "", " ! identity sleep-time=100000"), stop_early);
  EXPECT_TRUE(r.timed_out);
}

TEST(Leaks, NothingCreatedByThePipelinesOutlivesThem) {
  std::string why;
  if (!gst_ready(&why)) GTEST_SKIP() << why;
  const Pair p = *find_generated_pair("g5_");
  // A first pass creates GStreamer's one-time objects (static caps and pad templates of each element, plugin
  // features, type classes); the second pass is the one checked.
  run_scenarios();

  GstTracer* tracer = leaks_tracer();
  std::map<const void*, std::string> before;
  if (tracer) before = live_objects(tracer);
  run_scenarios();
  if (!tracer) {
    // Under valgrind the tracer is off on purpose (valgrind does the checking): say which check ran.
    std::printf("leaks tracer not active (GST_TRACERS=leaks not set): GStreamer object check skipped\n");
    return;
  }
  // A streaming thread drops its last reference to its GstTask a moment after the task was joined: give such
  // stragglers up to two seconds; a real leak stays.
  std::string leaked;
  for (int attempt = 0; attempt < 40; attempt++) {
    leaked.clear();
    for (const auto& [ptr, what] : live_objects(tracer))
      if (!before.count(ptr)) leaked += what + "\n";
    if (leaked.empty()) break;
    g_usleep(50000);
  }
  gst_object_unref(tracer);
  EXPECT_TRUE(leaked.empty()) << "alive after the scenarios, not before:\n" << leaked;
}

}  // namespace
}  // namespace vmafx::test
