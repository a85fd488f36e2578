// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafxhip with memory:GLMemory input in real GL pipelines (CI: Mesa llvmpipe on the Xvfb display that ./test.sh
// starts, GLX; or EGL's device platform with GST_GL_WINDOW=egl-device):
//   - caps and GL context negotiation with glupload: GL caps on both sink pads, the element answers CONTEXT queries
//     with the display glupload uses, and an application's display (GstContext) reaches both;
//   - the check refuses the software renderer by name, the frames are downloaded through GL, the reason is posted
//     once (INFO) and frames-copied counts every frame;
//   - the downloaded frames score exactly as the same frames from system memory (every field of every frame message)
//     for every public pair present (I420 and NV12 textures, 10-bit as P010 textures), and libvmaf's JSON;
//   - RGBA textures score as their luma converted on the host (rgba_to_luma) scored by the engine directly;
//   - allow-copy=false makes the refused GL input an error naming the renderer;
//   - backend=cpu downloads with that reason.
// A test whose GL is absent (no display) skips with the reason.
#include <gst/app/gstappsink.h>
#include <gst/gl/gl.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "gst_gl_harness.h"
#include "support.h"
#include "vmafx/gl.h"
#include "vmafx/scorer.h"

namespace vmafx::gl::test {
namespace {

#define GST_GL_OR_SKIP()                                          \
  do {                                                            \
    std::string why_;                                             \
    if (!gst_gl_ready(&why_)) GTEST_SKIP() << why_;               \
    if (!gl_works(&why_)) GTEST_SKIP() << "no GL here: " << why_; \
  } while (0)

// Whether GStreamer's GL runs here at all (a display or EGL device), asked once with a tiny upload.
bool gl_works(std::string* why) {
  static int state = -1;
  static std::string reason;
  if (state < 0) {
    GlRun r = run_gl_pipeline("videotestsrc num-buffers=1 ! video/x-raw,width=16,height=16 ! glupload ! fakesink", {});
    state = r.eos ? 1 : 0;
    reason = r.describe();
  }
  *why = reason;
  return state == 1;
}

// Every double field of two frame messages, exactly; the first difference is returned.
std::string first_difference(const GstStructure* a, const GstStructure* b, double* max_abs) {
  const gint n = gst_structure_n_fields(a);
  if (n != gst_structure_n_fields(b))
    return "field count " + std::to_string(n) + " vs " + std::to_string(gst_structure_n_fields(b));
  std::string first;
  for (gint i = 0; i < n; i++) {
    const char* name = gst_structure_nth_field_name(a, guint(i));
    const GValue* va = gst_structure_get_value(a, name);
    const GValue* vb = gst_structure_get_value(b, name);
    if (!vb) return std::string("field ") + name + " missing";
    if (G_VALUE_TYPE(va) == G_TYPE_DOUBLE && G_VALUE_TYPE(vb) == G_TYPE_DOUBLE) {
      const double x = g_value_get_double(va), y = g_value_get_double(vb);
      *max_abs = std::max(*max_abs, std::fabs(x - y));
      if (x != y && first.empty()) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s: %.17g vs %.17g", name, x, y);
        first = buf;
      }
    } else if (gst_value_compare(va, vb) != GST_VALUE_EQUAL && first.empty()) {
      first = std::string("field ") + name + " differs";
    }
  }
  return first;
}

std::string launch_pair(const std::string& ref_src, const std::string& dist_src, const std::string& chain,
                        const std::string& props) {
  return ref_src + chain + " ! v.ref_sink " + dist_src + chain + " ! v.dist_sink vmafxhip name=v " + props +
         " ! fakesink";
}

TEST(GstGl, GluploadNegotiatesGlCapsAndShareTheDisplay) {
  GST_GL_OR_SKIP();
  const std::string src =
      "videotestsrc num-buffers=5 pattern=smpte ! video/x-raw,format=I420,width=320,height=240,"
      "framerate=25/1";
  GstObject* v_display = nullptr;
  GstObject* up_display = nullptr;
  // The display a pad's element answers a CONTEXT query with (what a neighbour asking it would get).
  auto display_of = [](GstElement* e, const char* pad) -> GstObject* {
    GstPad* p = gst_element_get_static_pad(e, pad);
    GstQuery* q = gst_query_new_context("gst.gl.GLDisplay");
    GstObject* d = nullptr;
    if (p && gst_pad_query(p, q)) {
      GstContext* c = nullptr;
      gst_query_parse_context(q, &c);
      GstGLDisplay* gd = nullptr;
      if (c && gst_context_get_gl_display(c, &gd)) d = GST_OBJECT(gd);
    }
    gst_query_unref(q);
    if (p) gst_object_unref(p);
    return d;
  };
  GlRunOptions o;
  o.at_eos = [&](GstElement* p) {
    GstElement* v = gst_bin_get_by_name(GST_BIN(p), "v");
    GstElement* up = gst_bin_get_by_name(GST_BIN(p), "up");
    v_display = display_of(v, "ref_sink");
    up_display = display_of(up, "src");
    gst_object_unref(v);
    gst_object_unref(up);
  };
  GlRun r = run_gl_pipeline(
      src + " ! glupload name=up ! v.ref_sink " + src + " ! glupload ! v.dist_sink " + "vmafxhip name=v ! fakesink", o);
  ASSERT_TRUE(r.eos) << r.describe();
  EXPECT_EQ(r.frames.size(), 5u);
  std::printf("ref_sink caps: %s\ndist_sink caps: %s\n", r.ref_caps.c_str(), r.dist_caps.c_str());
  EXPECT_NE(r.ref_caps.find("memory:GLMemory"), std::string::npos);
  EXPECT_NE(r.dist_caps.find("memory:GLMemory"), std::string::npos);
  // The distorted GL buffers go out as they came: GL caps, complete (texture-target) like the pad templates'.
  std::printf("src caps: %s\n", r.src_caps.c_str());
  EXPECT_NE(r.src_caps.find("memory:GLMemory"), std::string::npos);
  EXPECT_NE(r.src_caps.find("texture-target=(string)2D"), std::string::npos);
  ASSERT_TRUE(v_display) << "vmafxhip did not answer the GL display context query";
  EXPECT_EQ(v_display, up_display) << "vmafxhip and glupload use different GL displays";
  std::printf("display: %s (shared with glupload)\n", GST_OBJECT_NAME(v_display));
  if (v_display) gst_object_unref(v_display);
  if (up_display) gst_object_unref(up_display);

  // An application's display, set on the pipeline, is the one both use.
  GstGLDisplay* app = gst_gl_display_new();
  GlRunOptions o2;
  o2.setup = [&](GstElement* p) {
    GstContext* c = gst_context_new(GST_GL_DISPLAY_CONTEXT_TYPE, TRUE);
    gst_context_set_gl_display(c, app);
    gst_element_set_context(p, c);
    gst_context_unref(c);
  };
  o2.at_eos = o.at_eos;
  v_display = up_display = nullptr;
  r = run_gl_pipeline(
      src + " ! glupload name=up ! v.ref_sink " + src + " ! glupload ! v.dist_sink " + "vmafxhip name=v ! fakesink",
      o2);
  ASSERT_TRUE(r.eos) << r.describe();
  EXPECT_EQ(v_display, GST_OBJECT(app)) << "vmafxhip ignored the application's display";
  EXPECT_EQ(up_display, GST_OBJECT(app));
  if (v_display) gst_object_unref(v_display);
  if (up_display) gst_object_unref(up_display);
  gst_object_unref(app);
}

// An application's synchronous bus handler that reads gl-stats on the element's own notices (the download's reason
// is posted from the import path) gets its answer: the notices are posted after the element's input lock is released.
// backend=cpu makes the GL frames download with a notice on every machine (a GPU reads them zero-copy, silently).
TEST(GstGl, ABusHandlerReadingGlStatsOnTheNoticesDoesNotDeadlock) {
  GST_GL_OR_SKIP();
  const std::string src = "videotestsrc num-buffers=6 ! video/x-raw,format=I420,width=160,height=96,framerate=25/1";
  GError* err = nullptr;
  GstElement* pipe = gst_parse_launch(launch_pair(src, src, " ! glupload", "backend=cpu").c_str(), &err);
  ASSERT_TRUE(pipe) << (err ? err->message : "parse failed");
  struct Seen {
    GstElement* v;
    unsigned reads = 0;
  } seen{gst_bin_get_by_name(GST_BIN(pipe), "v")};
  ASSERT_TRUE(seen.v);
  GstBus* bus = gst_element_get_bus(pipe);
  gst_bus_set_sync_handler(
      bus,
      [](GstBus*, GstMessage* m, gpointer data) {
        auto* sn = static_cast<Seen*>(data);
        const bool notice = GST_MESSAGE_TYPE(m) == GST_MESSAGE_INFO || GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING;
        if (notice && GST_MESSAGE_SRC(m) == GST_OBJECT(sn->v)) {
          GstStructure* st = nullptr;
          g_object_get(sn->v, "gl-stats", &st, nullptr);  // takes the input lock
          if (st) gst_structure_free(st);
          sn->reads++;
        }
        return GST_BUS_PASS;
      },
      &seen, nullptr);
  ASSERT_NE(gst_element_set_state(pipe, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstMessage* m = gst_bus_timed_pop_filtered(bus, 120 * GST_SECOND,
                                             GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (!m) {
    // The streaming threads are stuck; tearing the pipeline down would hang too.
    std::fprintf(stderr, "waited 120 s for EOS or an error: the element deadlocked with a bus handler reading "
                         "gl-stats\n");
    std::fflush(nullptr);
    std::_Exit(1);
  }
  EXPECT_EQ(GST_MESSAGE_TYPE(m), GST_MESSAGE_EOS);
  gst_message_unref(m);
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_bus_set_sync_handler(bus, nullptr, nullptr, nullptr);
  gst_object_unref(bus);
  EXPECT_GE(seen.reads, 1u) << "the element posted no notice to read gl-stats on";
  std::printf("gl-stats read %u time(s) from a synchronous bus handler on the element's notices\n", seen.reads);
  gst_object_unref(seen.v);
  gst_object_unref(pipe);
}

TEST(GstGl, ASoftwareRendererIsRefusedByNameAndFramesAreDownloaded) {
  GST_GL_OR_SKIP();
  const std::string src = "videotestsrc num-buffers=6 ! video/x-raw,format=I420,width=160,height=96,framerate=25/1";
  GlRun r = run_gl_pipeline(launch_pair(src, src, " ! glupload", ""));
  ASSERT_TRUE(r.eos) << r.describe();
  ASSERT_TRUE(r.gl_stats) << "no gl-stats after GL frames";
  gchar* st = gst_structure_to_string(r.gl_stats.get());
  std::printf("gl-stats: %s\n", st);
  g_free(st);
  const std::string path = field_string(r.gl_stats.get(), "dist-path");
  if (field_bool(r.gl_stats.get(), "dist-zero-copy"))
    GTEST_SKIP() << "this machine reads GL textures zero-copy: " << path;
  EXPECT_EQ(r.frames_copied, 12u) << "frames-copied counts the frames of both pads";
  EXPECT_EQ(r.frames_scored, 6u);
  // The reason names the renderer (llvmpipe on CI) and is posted once: an INFO where the scorer runs on the CPU
  // anyway (CI), a WARNING where a GPU scorer had to take the download (llvmpipe on a GPU machine).
  unsigned notices = 0;
  for (const auto* list : {&r.infos, &r.warnings})
    for (const Message& m : *list)
      if (m.debug.find("GL frames are downloaded") != std::string::npos) {
        notices++;
        std::printf("notice: %s\n", m.debug.c_str());
      }
  EXPECT_GE(notices, 1u);
  EXPECT_LE(notices, 2u) << "once per pad at most";
  EXPECT_NE(path.find("renderer '"), std::string::npos) << path;
  // The platform the check saw: EGL when GStreamer's GL runs on EGL's device platform (the test_gst_gl_egl run).
  const char* window = g_getenv("GST_GL_WINDOW");
  if (window && std::string(window) == "egl-device") {
    EXPECT_NE(path.find("EGL context"), std::string::npos) << path;
  }
  if (path.find("llvmpipe") == std::string::npos) std::printf("(renderer is not llvmpipe here: %s)\n", path.c_str());
  EXPECT_TRUE(path.find("llvmpipe") != std::string::npos || path.find("software") != std::string::npos ||
              path.find("no GPU") != std::string::npos)
      << path;
}

TEST(GstGl, AllowCopyFalseMakesTheRefusalAnError) {
  GST_GL_OR_SKIP();
  const std::string src = "videotestsrc num-buffers=4 ! video/x-raw,format=I420,width=64,height=48,framerate=25/1";
  GlRun r = run_gl_pipeline(launch_pair(src, src, " ! glupload", "allow-copy=false"));
  if (r.errors.empty() && field_bool(r.gl_stats.get(), "dist-zero-copy"))
    GTEST_SKIP() << "GL frames are read zero-copy here, nothing is refused: "
                 << field_string(r.gl_stats.get(), "dist-path");
  ASSERT_FALSE(r.errors.empty()) << "allow-copy=false with a refused GL context must fail";
  const Message& e = r.errors.front();
  std::printf("error from %s: %s\n  %s\n", e.source.c_str(), e.text.c_str(), e.debug.c_str());
  EXPECT_EQ(e.source, "v");
  EXPECT_NE(e.debug.find("allow-copy=false"), std::string::npos) << e.debug;
  EXPECT_NE(e.debug.find("renderer '"), std::string::npos) << e.debug;
  // The one-line text names the pad, the memory and the cause (it once said "Invalid reference buffer").
  EXPECT_EQ(e.text.find("Invalid"), std::string::npos) << e.text;
  EXPECT_NE(e.text.find("memory:GLMemory"), std::string::npos) << e.text;
  EXPECT_NE(e.text.find("allow-copy=false"), std::string::npos) << e.text;
  EXPECT_LT(e.text.size(), 300u) << e.text;
  EXPECT_EQ(r.frames.size(), 0u);
  EXPECT_EQ(r.frames_copied, 0u);
}

TEST(GstGl, BackendCpuDownloadsAndSaysSo) {
  GST_GL_OR_SKIP();
  const std::string src = "videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=64,height=48,framerate=25/1";
  GlRun r = run_gl_pipeline(launch_pair(src, src, " ! glupload", "backend=cpu"));
  ASSERT_TRUE(r.eos) << r.describe();
  EXPECT_EQ(r.frames_copied, 6u);
  EXPECT_NE(field_string(r.gl_stats.get(), "ref-path").find("backend=cpu"), std::string::npos);
  EXPECT_TRUE(r.info_contains("backend=cpu"));
  r = run_gl_pipeline(launch_pair(src, src, " ! glupload", "backend=cpu allow-copy=false"));
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors.front().debug.find("backend=cpu"), std::string::npos) << r.errors.front().debug;
}

// The public clips through GL (download on CI) against the same clips from system memory, field by field, and the
// model score against libvmaf's JSON.
TEST(GstGl, DownloadedClipsScoreAsSystemMemoryAndLibvmaf) {
  GST_GL_OR_SKIP();
  unsigned pairs = 0;
  for (const ::vmafx::test::Pair& p : ::vmafx::test::oracle_pairs_420(nullptr)) {
    ::vmafx::test::Oracle oracle;
    const Status os = ::vmafx::test::load_oracle(p.oracle_path("vmaf_v0.6.1"), &oracle);
    struct Variant {
      const char* name;
      std::string sys, gl;
    };
    std::vector<Variant> variants;
    if (p.bpc == 8) {
      variants.push_back({"I420 textures", "", " ! glupload ! video/x-raw(memory:GLMemory),format=I420"});
      if (p.width < 1000)
        variants.push_back({"NV12 textures", " ! videoconvert ! video/x-raw,format=NV12",
                            " ! videoconvert ! video/x-raw,format=NV12 ! glupload ! "
                            "video/x-raw(memory:GLMemory),format=NV12"});
    } else {
      variants.push_back({"P010 textures", " ! videoconvert dither=none ! video/x-raw,format=P010_10LE",
                          " ! videoconvert dither=none ! video/x-raw,format=P010_10LE ! glupload ! "
                          "video/x-raw(memory:GLMemory),format=P010_10LE"});
    }
    const std::string rs = raw_clip_source(p.ref_path(), p.width, p.height, p.bpc);
    const std::string ds = raw_clip_source(p.dist_path(), p.width, p.height, p.bpc);
    for (const Variant& var : variants) {
      GlRun sys = run_gl_pipeline(launch_pair(rs, ds, var.sys, "threads=2"));
      GlRun gl = run_gl_pipeline(launch_pair(rs, ds, var.gl, "threads=2"));
      ASSERT_TRUE(sys.eos) << sys.describe();
      ASSERT_TRUE(gl.eos) << p.prefix << " " << var.name << ": " << gl.describe();
      ASSERT_EQ(sys.frames.size(), gl.frames.size());
      ASSERT_GT(gl.frames.size(), 0u);
      double max_abs = 0, max_oracle = 0;
      for (size_t i = 0; i < gl.frames.size(); i++) {
        const std::string d = first_difference(sys.frames[i].get(), gl.frames[i].get(), &max_abs);
        ASSERT_TRUE(d.empty()) << p.prefix << "_" << p.distorted << " " << var.name << " frame " << i << ": " << d;
        if (os.is_ok() && i < oracle.frames.size() && oracle.frames[i].count("vmaf"))
          max_oracle =
              std::max(max_oracle, std::fabs(field_double(gl.frames[i].get(), "score") - oracle.frames[i].at("vmaf")));
      }
      std::printf(
          "%s_%s via %s: %zu frames, every field equal to system memory (max abs diff %.3g), vmaf vs "
          "libvmaf JSON max abs diff %.3g, frames-copied %llu\n",
          p.prefix.c_str(), p.distorted.c_str(), var.name, gl.frames.size(), max_abs, max_oracle,
          (unsigned long long)gl.frames_copied);
      if (os.is_ok()) {
        EXPECT_LE(max_oracle, 1e-6) << "libvmaf's JSON has six decimals";
      }
      if (!field_bool(gl.gl_stats.get(), "dist-zero-copy")) {
        EXPECT_EQ(gl.frames_copied, 2 * gl.frames.size());
      }
    }
    pairs++;
  }
  if (pairs == 0) GTEST_SKIP() << "no public clip in " << ::vmafx::test::shared_testdata_dir();
}

// RGBA textures: the element's frames equal the engine's scores of the host conversion of the same RGBA frames.
TEST(GstGl, RgbaScoresAsTheHostLumaConversion) {
  GST_GL_OR_SKIP();
  const ::vmafx::test::Pair p = ::vmafx::test::public_pairs()[3];  // c_321x241_8b: odd size
  if (!::vmafx::test::file_exists(p.ref_path()) || !::vmafx::test::file_exists(p.dist_path()))
    GTEST_SKIP() << "clip " << p.ref_path() << " not present";
  const std::string rgba = " ! videoconvert ! video/x-raw,format=RGBA";
  const std::string launch =
      raw_clip_source(p.ref_path(), p.width, p.height, 8) + rgba +
      " ! tee name=rt rt. ! queue ! appsink name=ra sync=false wait-on-eos=false rt. ! queue ! glupload ! "
      "v.ref_sink " +
      raw_clip_source(p.dist_path(), p.width, p.height, 8) + rgba +
      " ! tee name=dt dt. ! queue ! appsink name=da sync=false wait-on-eos=false dt. ! queue ! glupload ! "
      "v.dist_sink vmafxhip name=v ! fakesink";
  std::vector<std::vector<uint8_t>> luma[2];
  LumaConversion conv{};
  GlRunOptions o;
  o.at_eos = [&](GstElement* pipeline) {
    const char* names[2] = {"ra", "da"};
    for (int k = 0; k < 2; k++) {
      GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), names[k]);
      while (GstSample* s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 0)) {
        GstVideoInfo info;
        gst_video_info_from_caps(&info, gst_sample_get_caps(s));
        conv = vmafx::gl::LumaConversion{};
        GstVideoFrame f;
        if (gst_video_frame_map(&f, &info, gst_sample_get_buffer(s), GST_MAP_READ)) {
          std::vector<uint8_t> y(size_t(p.width) * p.height);
          // The element's rule (gstvmafxhipgl.h): BT.601 up to 576 lines, the caps' RGB range.
          conv.matrix = RgbMatrix::bt601;
          conv.range = info.colorimetry.range == GST_VIDEO_COLOR_RANGE_16_235 ? RgbRange::limited : RgbRange::full;
          Status st =
              rgba_to_luma(static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)),
                           GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0), p.width, p.height, conv, y.data(), ptrdiff_t(p.width));
          EXPECT_TRUE(st.is_ok()) << st.to_string();
          luma[k].push_back(std::move(y));
          gst_video_frame_unmap(&f);
        }
        gst_sample_unref(s);
      }
      gst_object_unref(sink);
    }
  };
  GlRun r = run_gl_pipeline(launch, o);
  ASSERT_TRUE(r.eos) << r.describe();
  ASSERT_EQ(luma[0].size(), r.frames.size());
  ASSERT_EQ(luma[1].size(), r.frames.size());

  ScorerConfig cfg = ::vmafx::test::scorer_config("vmaf_v0.6.1");
  cfg.backend = Backend::cpu;
  ::vmafx::test::FrameLog log;
  std::unique_ptr<Scorer> scorer;
  ASSERT_TRUE(::vmafx::test::make_scorer(cfg, {p.width, p.height, 8, Chroma::k400}, &log, &scorer).is_ok());
  const FormatInfo gray{PixelFormat::gray, Chroma::k400, 8};
  const PlaneLayout layout[1] = {{0, ptrdiff_t(p.width)}};
  for (size_t i = 0; i < luma[0].size(); i++) {
    PictureView rv, dv;
    ASSERT_TRUE(
        make_picture_view(gray, p.width, p.height, luma[0][i].data(), luma[0][i].size(), layout, 1, &rv).is_ok());
    ASSERT_TRUE(
        make_picture_view(gray, p.width, p.height, luma[1][i].data(), luma[1][i].size(), layout, 1, &dv).is_ok());
    ASSERT_TRUE(scorer->submit(::vmafx::test::frame_pair(rv, dv, int64_t(i), 0)).is_ok());
  }
  ASSERT_TRUE(scorer->flush().is_ok());
  const auto& names = scorer->score_names();
  size_t n = 0, values = 0;
  for (const FrameScore& fs : log.frames()) {
    ASSERT_LT(fs.index, r.frames.size());
    for (size_t k = 0; k < names.size(); k++) {
      if (std::isnan(fs.values[k])) continue;
      std::string field = names[k] == scorer->model_score_names()[0] ? "score" : names[k];
      for (char& c : field) c = c == '_' ? '-' : c;
      const double got = field_double(r.frames[fs.index].get(), field.c_str());
      ASSERT_EQ(got, fs.values[k]) << "frame " << fs.index << " " << field;
      values++;
    }
    n++;
  }
  std::printf("RGBA %ux%u (%s, %s range): %zu frames, %zu scores equal the engine's scores of the host luma\n", p.width,
              p.height, matrix_name(conv.matrix), range_name(conv.range), n, values);
  EXPECT_EQ(n, r.frames.size());
}

}  // namespace
}  // namespace vmafx::gl::test
