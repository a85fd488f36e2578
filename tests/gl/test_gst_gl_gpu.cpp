// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafxhip with GL input on the GPU machine: GStreamer's GL on EGL's device platform (a GstGLDisplayEGLDevice of the
// scoring GPU, given to the pipeline as a GstContext, the way ../shared/device/README.md measured it), backend=hip.
//   - the public clips through glupload (I420, NV12, P010 textures) are read zero-copy (frames-copied 0, gl-stats says
//     zero-copy) and every field of every frame message equals the system-memory run on the same backend, and the
//     model score equals libvmaf's JSON;
//   - gltestsrc RGBA textures (distorted: a down- and up-scaled copy) zero-copy score exactly as the same textures
//     downloaded and scored on the CPU (only -base and GL elements: the GPU machine's runtime has no -good);
//   - the registration cache: one registration per pooled texture, the hit rate printed;
//   - ssim=true (a CPU feature reading host memory) makes the frames go through the download, with that reason.
// GLX cannot be tested there (no X server with the vendor's GLX); tests/gl/test_gl_context covers the GLX check on
// Xvfb + Mesa. Skips (exit 77) without a GPU or without an EGL device of it.
#include <gst/gl/egl/gstgldisplay_egl_device.h>
#include <gst/gl/gl.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gl_test_context.h"
#include "gpu_device.h"
#include "gst_gl_harness.h"
#include "support.h"

namespace vmafx::gl::test {
namespace {

struct GpuGl {
  std::shared_ptr<hip::Device> device;
  GstGLDisplay* display = nullptr;
  std::string vendor;  // the element's vendor property
  ~GpuGl() {
    if (display) gst_object_unref(display);
  }
};

std::string open_gpu_gl(GpuGl* g) {
  std::string why;
  if (!gst_gl_ready(&why)) return why;
  Status s = hip::test::test_device(&g->device);
  if (!s.is_ok()) return "no GPU device: " + s.message();
  const hip::DeviceInfo& di = g->device->info();
  g->vendor = di.vendor == hip::Vendor::amd ? "amd" : "nvidia";
  if (di.vendor != hip::Vendor::nvidia)
    return "EGL device platform interop is tested on NVIDIA (ROCm takes GLX contexts only): " + di.name;
  void* egl_device = nullptr;
  s = find_egl_device_for_cuda(di.index, &egl_device);
  if (!s.is_ok()) return "no EGL device of " + di.name + ": " + s.message();
  GstGLDisplayEGLDevice* d = gst_gl_display_egl_device_new_with_egl_device(egl_device);
  if (!d) return "gst_gl_display_egl_device_new_with_egl_device failed for " + di.name;
  g->display = GST_GL_DISPLAY(d);
  std::printf("GPU %s (%s), GL display %s\n", di.name.c_str(), di.pci_bus_id.c_str(), GST_OBJECT_NAME(d));
  return "";
}

#define GPU_GL_OR_SKIP(g)                                \
  GpuGl g;                                               \
  do {                                                   \
    const std::string skip_ = open_gpu_gl(&g);           \
    if (!skip_.empty()) GTEST_SKIP() << skip_;           \
  } while (0)

GlRunOptions with_display(GstGLDisplay* display) {
  GlRunOptions o;
  o.setup = [display](GstElement* p) {
    GstContext* c = gst_context_new(GST_GL_DISPLAY_CONTEXT_TYPE, TRUE);
    gst_context_set_gl_display(c, display);
    gst_element_set_context(p, c);
    gst_context_unref(c);
  };
  return o;
}

std::string stats_string(const GlRun& r) {
  if (!r.gl_stats) return "(no gl-stats)";
  gchar* s = gst_structure_to_string(r.gl_stats.get());
  std::string out = s;
  g_free(s);
  return out;
}

// Every double field of two frame messages, exactly.
std::string first_difference(const GstStructure* a, const GstStructure* b, double* max_abs) {
  std::string first;
  for (gint i = 0; i < gst_structure_n_fields(a); i++) {
    const char* name = gst_structure_nth_field_name(a, guint(i));
    double x, y;
    if (!gst_structure_get_double(a, name, &x)) continue;
    if (!gst_structure_get_double(b, name, &y)) return std::string(name) + " missing";
    *max_abs = std::max(*max_abs, std::fabs(x - y));
    if (x != y && first.empty()) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s: %.17g vs %.17g", name, x, y);
      first = buf;
    }
  }
  return first;
}

TEST(GstGlGpu, PublicClipsThroughGluploadAreReadZeroCopyAndScoreAsSystemMemory) {
  GPU_GL_OR_SKIP(g);
  const std::string props = "backend=hip vendor=" + g.vendor + " device-id=" + std::to_string(g.device->info().index);
  unsigned pairs = 0;
  for (const ::vmafx::test::Pair& p : ::vmafx::test::public_pairs()) {
    if (!::vmafx::test::file_exists(p.ref_path()) || !::vmafx::test::file_exists(p.dist_path())) {
      std::printf("%s_%s: not present here\n", p.prefix.c_str(), p.distorted.c_str());
      continue;
    }
    ::vmafx::test::Oracle oracle;
    const Status os = ::vmafx::test::load_oracle(p.oracle_path("vmaf_v0.6.1"), &oracle);
    struct Variant {
      const char* name;
      std::string sys, gl;
    };
    std::vector<Variant> variants;
    if (p.bpc == 8) {
      variants.push_back({"I420 textures", "", " ! glupload ! video/x-raw(memory:GLMemory),format=I420"});
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
    for (const Variant& v : variants) {
      auto launch = [&](const std::string& chain) {
        return rs + chain + " ! v.ref_sink " + ds + chain + " ! v.dist_sink vmafxhip name=v " + props +
               " ! fakesink";
      };
      GlRun sys = run_gl_pipeline(launch(v.sys), with_display(g.display));
      GlRun gl = run_gl_pipeline(launch(v.gl), with_display(g.display));
      ASSERT_TRUE(sys.eos) << sys.describe();
      ASSERT_TRUE(gl.eos) << p.prefix << " " << v.name << ": " << gl.describe();
      std::printf("%s_%s via %s: gl-stats %s\n", p.prefix.c_str(), p.distorted.c_str(), v.name,
                  stats_string(gl).c_str());
      EXPECT_TRUE(field_bool(gl.gl_stats.get(), "ref-zero-copy")) << stats_string(gl);
      EXPECT_TRUE(field_bool(gl.gl_stats.get(), "dist-zero-copy")) << stats_string(gl);
      EXPECT_EQ(gl.frames_copied, 0u);
      ASSERT_EQ(sys.frames.size(), gl.frames.size());
      double max_abs = 0, max_oracle = 0;
      for (size_t i = 0; i < gl.frames.size(); i++) {
        const std::string d = first_difference(sys.frames[i].get(), gl.frames[i].get(), &max_abs);
        ASSERT_TRUE(d.empty()) << p.prefix << "_" << p.distorted << " " << v.name << " frame " << i << ": " << d;
        if (os.is_ok() && i < oracle.frames.size() && oracle.frames[i].count("vmaf"))
          max_oracle = std::max(max_oracle, std::fabs(field_double(gl.frames[i].get(), "score") -
                                                          oracle.frames[i].at("vmaf")));
      }
      const guint64 lookups = field_uint64(gl.gl_stats.get(), "dist-texture-lookups");
      const guint64 hits = field_uint64(gl.gl_stats.get(), "dist-texture-hits");
      std::printf("  %zu frames zero-copy, every field equal to system memory (max abs diff %.3g), vmaf vs libvmaf "
                  "max abs diff %.3g, dist texture cache: %llu hits of %llu lookups (%.1f %%), %llu registrations\n",
                  gl.frames.size(), max_abs, max_oracle, (unsigned long long)hits, (unsigned long long)lookups,
                  lookups ? 100.0 * double(hits) / double(lookups) : 0.0,
                  (unsigned long long)field_uint64(gl.gl_stats.get(), "dist-registrations"));
      if (os.is_ok()) {
        EXPECT_LE(max_oracle, 1e-6);
      }
      EXPECT_EQ(hits + field_uint64(gl.gl_stats.get(), "dist-registrations"), lookups);
    }
    pairs++;
  }
  if (pairs == 0) GTEST_SKIP() << "no public clip in " << ::vmafx::test::shared_testdata_dir();
}

TEST(GstGlGpu, GltestsrcRgbaZeroCopyEqualsTheDownloadScoredOnTheCpu) {
  GPU_GL_OR_SKIP(g);
  const std::string caps = "video/x-raw(memory:GLMemory),format=RGBA,width=1920,height=1080,framerate=25/1";
  auto launch = [&](const std::string& props) {
    return "gltestsrc num-buffers=60 pattern=mandelbrot ! " + caps + " ! tee name=t t. ! queue ! v.ref_sink " +
           "t. ! queue ! gldownload ! videoscale ! video/x-raw,width=480,height=270 ! videoscale ! "
           "video/x-raw,width=1920,height=1080 ! glupload ! glcolorconvert ! " +
           caps + " ! v.dist_sink vmafxhip name=v " + props + " ! fakesink";
  };
  const auto t0 = std::chrono::steady_clock::now();
  GlRun gpu = run_gl_pipeline(launch("backend=hip vendor=" + g.vendor), with_display(g.display));
  const auto t1 = std::chrono::steady_clock::now();
  GlRun cpu = run_gl_pipeline(launch("backend=cpu"), with_display(g.display));
  const auto t2 = std::chrono::steady_clock::now();
  std::printf("wall time of the whole pipeline (60 frames incl. start-up, the scaled copy and its download/upload): "
              "zero-copy + GPU %.0f ms, download + CPU %.0f ms\n",
              std::chrono::duration<double, std::milli>(t1 - t0).count(),
              std::chrono::duration<double, std::milli>(t2 - t1).count());
  ASSERT_TRUE(gpu.eos) << gpu.describe();
  ASSERT_TRUE(cpu.eos) << cpu.describe();
  std::printf("zero-copy run gl-stats %s\ndownload run gl-stats %s\n", stats_string(gpu).c_str(),
              stats_string(cpu).c_str());
  EXPECT_TRUE(field_bool(gpu.gl_stats.get(), "dist-zero-copy"));
  EXPECT_EQ(gpu.frames_copied, 0u);
  EXPECT_EQ(cpu.frames_copied, 2 * cpu.frames.size());
  ASSERT_EQ(gpu.frames.size(), cpu.frames.size());
  ASSERT_EQ(gpu.frames.size(), 60u);
  double max_abs = 0;
  for (size_t i = 0; i < gpu.frames.size(); i++) {
    const std::string d = first_difference(cpu.frames[i].get(), gpu.frames[i].get(), &max_abs);
    ASSERT_TRUE(d.empty()) << "frame " << i << ": " << d;
  }
  const guint64 lookups = field_uint64(gpu.gl_stats.get(), "ref-texture-lookups");
  const guint64 regs = field_uint64(gpu.gl_stats.get(), "ref-registrations");
  std::printf("60 RGBA 1080p frames: GPU luma conversion + zero-copy equal the host conversion on the CPU in every "
              "field; ref texture cache %llu registrations for %llu lookups (hit rate %.1f %%)\n",
              (unsigned long long)regs, (unsigned long long)lookups,
              lookups ? 100.0 * double(lookups - regs) / double(lookups) : 0.0);
  EXPECT_LT(regs, lookups / 2) << "textures of a pool are registered once, not per frame";
}

TEST(GstGlGpu, CpuFeaturesReadingHostMemoryMakeTheFramesDownloadWithThatReason) {
  GPU_GL_OR_SKIP(g);
  const std::string src = "videotestsrc num-buffers=5 ! video/x-raw,format=I420,width=320,height=240,framerate=25/1";
  GlRun r = run_gl_pipeline(src + " ! glupload ! v.ref_sink " + src + " ! glupload ! v.dist_sink vmafxhip name=v " +
                                "backend=hip ssim=true ! fakesink",
                            with_display(g.display));
  ASSERT_TRUE(r.eos) << r.describe();
  std::printf("gl-stats %s\n", stats_string(r).c_str());
  EXPECT_FALSE(field_bool(r.gl_stats.get(), "dist-zero-copy"));
  EXPECT_NE(field_string(r.gl_stats.get(), "dist-path").find("ssim"), std::string::npos);
  EXPECT_EQ(r.frames_copied, 10u);
  bool warned = false;
  for (const Message& m : r.warnings) warned = warned || m.debug.find("GL frames are downloaded") != std::string::npos;
  EXPECT_TRUE(warned) << "the download with a GPU scorer is a warning";
}

}  // namespace
}  // namespace vmafx::gl::test
