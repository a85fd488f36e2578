// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafxhip with GL input on a GPU machine: GStreamer's GL on EGL's device platform (a GstGLDisplayEGLDevice of the
// scoring GPU, given to the pipeline as a GstContext), backend=hip.
//   - the public clips through glupload (I420, NV12, P010 textures) are read zero-copy (frames-copied 0, gl-stats says
//     zero-copy) and every field of every frame message equals the system-memory run on the same backend, and the
//     model score equals libvmaf's JSON;
//   - gltestsrc RGBA textures (distorted: a down- and up-scaled copy) zero-copy score exactly as the same textures
//     downloaded and scored on the CPU (only -base and GL elements: a GPU machine may lack -good);
//   - the registration cache: one registration per pooled texture, the hit rate printed;
//   - float_adm with adm_p_norm=2.5 (that option has no GPU version: a CPU feature reading host memory) makes the
//     frames go through the download, with that reason;
//   - glupload's raw upload (GL memory wrapping system memory, GStreamer's own allocation, no element): the texture
//     read through the interop holds the frame only after a GL map (GST_MAP_GL) whose upload raised no GL error;
//     what it holds before is printed (without a GL map it holds nothing defined: zeros or an earlier frame). The element reads
//     such YUV frames from system memory, and RGBA ones, or any with VMAFX_GL_FORCE_INTEROP, after the GL map;
//   - a GPU-rendered reference (interop) with a raw-uploaded distorted (system memory) in the same frames;
//   - VMAFX_GL_VERIFY=1 runs: the element compares each imported device frame with the same buffer downloaded through
//     GL, every sample.
// With VMAFX_TEST_GL_PLATFORM=glx the same runs on GLX: a GstGLDisplayX11 of $DISPLAY (on a GPU machine Xvfb with
// NVIDIA's GLX client library, `vmafx_start_glx`; run with GST_GL_PLATFORM=glx GST_GL_WINDOW=x11), whose contexts the
// GPU renders. Skips (exit 77) without a GPU or without an EGL device (GLX: an X display) of it.
#include <gst/gl/egl/gstgldisplay_egl_device.h>
#include <gst/gl/gstglfuncs.h>
#include <gst/gl/gl.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gl_test_context.h"
#include "gpu_device.h"
#include "gst_gl_harness.h"
#include "support.h"
#include "vmafx/gl.h"

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
  const char* platform = std::getenv("VMAFX_TEST_GL_PLATFORM");
  if (platform && std::string(platform) == "glx") {
    GstGLDisplay* x = gst_gl_display_new_with_type(GST_GL_DISPLAY_TYPE_X11);  // $DISPLAY
    const char* name = std::getenv("DISPLAY");
    if (!x) return "no X display for GLX (DISPLAY=" + std::string(name ? name : "") + ")";
    g->display = x;
    std::printf("GPU %s (%s), GL display %s (GLX on %s)\n", di.name.c_str(), di.pci_bus_id.c_str(),
                GST_OBJECT_NAME(x), name);
    return "";
  }
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

// Runs `launch` with VMAFX_GL_VERIFY=1: the element compares every zero-copy frame with its GL download. Checks that
// both pads compared `frames` frames and found no difference; prints the counts and the first difference.
void expect_verified(const std::string& what, const std::string& launch, GstGLDisplay* display, size_t frames) {
  g_setenv("VMAFX_GL_VERIFY", "1", TRUE);
  GlRun r = run_gl_pipeline(launch, with_display(display));
  g_unsetenv("VMAFX_GL_VERIFY");
  ASSERT_TRUE(r.eos) << what << " (VMAFX_GL_VERIFY run): " << r.describe();
  ASSERT_TRUE(r.gl_stats) << what << ": no gl-stats";
  for (const char* pad : {"ref", "dist"}) {
    const std::string p = pad;
    const guint64 verified = field_uint64(r.gl_stats.get(), (p + "-verified").c_str());
    const guint64 mismatches = field_uint64(r.gl_stats.get(), (p + "-verify-mismatches").c_str());
    const std::string first = field_string(r.gl_stats.get(), (p + "-verify-first").c_str());
    std::printf("%s, VMAFX_GL_VERIFY: %s device frames compared with their GL download: %llu, different %llu%s%s; "
                "textures filled from system memory at the element's GL map: %llu\n",
                what.c_str(), pad, (unsigned long long)verified, (unsigned long long)mismatches,
                first.empty() ? "" : ", first: ", first.c_str(),
                (unsigned long long)field_uint64(r.gl_stats.get(), (p + "-texture-uploads").c_str()));
    EXPECT_TRUE(field_bool(r.gl_stats.get(), (p + "-zero-copy").c_str())) << what << " " << pad;
    EXPECT_EQ(verified, guint64(frames)) << what << " " << pad;
    EXPECT_EQ(mismatches, 0u) << what << " " << pad << ": " << first;
  }
}

TEST(GstGlGpu, PublicClipsThroughGluploadAreReadZeroCopyAndScoreAsSystemMemory) {
  GPU_GL_OR_SKIP(g);
  const std::string props = "backend=hip vendor=" + g.vendor + " device-id=" + std::to_string(g.device->info().index);
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
      ASSERT_TRUE(sys.eos) << sys.describe();
      const std::string what = p.prefix + "_" + p.distorted + " via " + v.name;
      // glupload's raw upload leaves the frames in the system memory its GL memory wraps: the element reads them
      // there (no GL transfer), and with VMAFX_GL_FORCE_INTEROP through GStreamer's upload into the textures and the
      // interop, each frame also compared with its GL download (VMAFX_GL_VERIFY).
      for (const bool interop : {false, true}) {
        if (interop) {
          g_setenv("VMAFX_GL_FORCE_INTEROP", "1", TRUE);
          g_setenv("VMAFX_GL_VERIFY", "1", TRUE);
        }
        GlRun gl = run_gl_pipeline(launch(v.gl), with_display(g.display));
        g_unsetenv("VMAFX_GL_FORCE_INTEROP");
        g_unsetenv("VMAFX_GL_VERIFY");
        const std::string route = what + (interop ? " (upload into GL + interop)" : " (system memory of GL buffers)");
        ASSERT_TRUE(gl.eos) << route << ": " << gl.describe();
        std::printf("%s: gl-stats %s\n", route.c_str(), stats_string(gl).c_str());
        for (const char* pad : {"ref", "dist"}) {
          const std::string pf = pad;
          EXPECT_TRUE(field_bool(gl.gl_stats.get(), (pf + "-zero-copy").c_str())) << route << " " << pad;
          const guint64 sysmem = field_uint64(gl.gl_stats.get(), (pf + "-system-memory-frames").c_str());
          EXPECT_EQ(sysmem, interop ? 0u : guint64(sys.frames.size())) << route << " " << pad;
          if (interop) {
            // Frames whose upload into GL failed (a GL error at GStreamer's upload) are read from system memory; the
            // others through the interop, each compared with its GL download.
            const guint64 verified = field_uint64(gl.gl_stats.get(), (pf + "-verified").c_str());
            const guint64 mismatches = field_uint64(gl.gl_stats.get(), (pf + "-verify-mismatches").c_str());
            const guint64 upload_errors = field_uint64(gl.gl_stats.get(), (pf + "-upload-errors").c_str());
            std::printf("  %s: %llu frames through the interop (verified), %llu with a failed upload into GL\n", pad,
                        (unsigned long long)verified, (unsigned long long)upload_errors);
            EXPECT_EQ(verified + upload_errors, guint64(sys.frames.size())) << route << " " << pad;
            EXPECT_EQ(mismatches, 0u) << route << " " << pad << ": "
                                      << field_string(gl.gl_stats.get(), (pf + "-verify-first").c_str());
          }
        }
        EXPECT_EQ(gl.frames_copied, 0u);
        ASSERT_EQ(sys.frames.size(), gl.frames.size());
        double max_abs = 0, max_oracle = 0;
        for (size_t i = 0; i < gl.frames.size(); i++) {
          const std::string d = first_difference(sys.frames[i].get(), gl.frames[i].get(), &max_abs);
          ASSERT_TRUE(d.empty()) << route << " frame " << i << ": " << d;
          if (os.is_ok() && i < oracle.frames.size() && oracle.frames[i].count("vmaf"))
            max_oracle = std::max(max_oracle, std::fabs(field_double(gl.frames[i].get(), "score") -
                                                            oracle.frames[i].at("vmaf")));
        }
        const guint64 lookups = field_uint64(gl.gl_stats.get(), "dist-texture-lookups");
        const guint64 hits = field_uint64(gl.gl_stats.get(), "dist-texture-hits");
        std::printf("  %zu frames, every field equal to system memory (max abs diff %.3g), vmaf vs libvmaf max abs "
                    "diff %.3g, dist texture cache: %llu hits of %llu lookups, %llu registrations\n",
                    gl.frames.size(), max_abs, max_oracle, (unsigned long long)hits, (unsigned long long)lookups,
                    (unsigned long long)field_uint64(gl.gl_stats.get(), "dist-registrations"));
        if (os.is_ok()) {
          EXPECT_LE(max_oracle, 1e-6);
        }
        EXPECT_EQ(hits + field_uint64(gl.gl_stats.get(), "dist-registrations"), lookups);
      }
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
  // SSIM and MS-SSIM run on the GPU: asking for them keeps the textures in place (and their scores equal the CPU's).
  GlRun gpu =
      run_gl_pipeline(launch("backend=hip ssim=true ms-ssim=true vendor=" + g.vendor), with_display(g.display));
  const auto t1 = std::chrono::steady_clock::now();
  GlRun cpu = run_gl_pipeline(launch("backend=cpu ssim=true ms-ssim=true"), with_display(g.display));
  const auto t2 = std::chrono::steady_clock::now();
  std::printf("wall time of the whole pipeline (60 frames incl. start-up, the scaled copy and its download/upload): "
              "zero-copy + GPU %.0f ms, download + CPU %.0f ms\n",
              std::chrono::duration<double, std::milli>(t1 - t0).count(),
              std::chrono::duration<double, std::milli>(t2 - t1).count());
  ASSERT_TRUE(gpu.eos) << gpu.describe();
  ASSERT_TRUE(cpu.eos) << cpu.describe();
  std::printf("zero-copy run gl-stats %s\ndownload run gl-stats %s\n", stats_string(gpu).c_str(),
              stats_string(cpu).c_str());
  expect_verified("gltestsrc RGBA", launch("backend=hip vendor=" + g.vendor), g.display, 60);
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
  std::printf("60 RGBA 1080p frames, ssim and ms-ssim on: GPU luma conversion + zero-copy equal the host conversion "
              "on the CPU in every field; ref texture cache %llu registrations for %llu lookups (hit rate %.1f %%)\n",
              (unsigned long long)regs, (unsigned long long)lookups,
              lookups ? 100.0 * double(lookups - regs) / double(lookups) : 0.0);
  EXPECT_LT(regs, lookups / 2) << "textures of a pool are registered once, not per frame";
}

// A GPU-rendered reference (glcolorconvert's NV12 textures: the interop) against a distorted copy from glupload's
// raw upload (content in system memory: read there), psnr included (chroma): each frame holds one device and one host
// picture. Every field equals the run that downloads both and scores on the CPU.
TEST(GstGlGpu, AGpuRenderedReferenceAndARawUploadedDistortedScoreAsTheCpuDownload) {
  GPU_GL_OR_SKIP(g);
  const std::string nv12 = "video/x-raw(memory:GLMemory),format=NV12,width=640,height=360";
  auto launch = [&](const std::string& props) {
    return "gltestsrc num-buffers=30 pattern=mandelbrot ! video/x-raw(memory:GLMemory),format=RGBA,width=640,"
           "height=360,framerate=25/1 ! glcolorconvert ! " + nv12 + " ! tee name=t t. ! queue ! v.ref_sink "
           "t. ! queue ! gldownload ! video/x-raw,format=NV12 ! videoscale ! video/x-raw,width=320,height=180 ! "
           "videoscale ! video/x-raw,width=640,height=360 ! glupload ! " + nv12 +
           " ! v.dist_sink vmafxhip name=v psnr=true " + props + " ! fakesink";
  };
  g_setenv("VMAFX_GL_VERIFY", "1", TRUE);
  GlRun gpu = run_gl_pipeline(launch("backend=hip vendor=" + g.vendor), with_display(g.display));
  g_unsetenv("VMAFX_GL_VERIFY");
  GlRun cpu = run_gl_pipeline(launch("backend=cpu"), with_display(g.display));
  ASSERT_TRUE(gpu.eos) << gpu.describe();
  ASSERT_TRUE(cpu.eos) << cpu.describe();
  std::printf("GPU-rendered ref + raw-uploaded dist, gl-stats %s\n", stats_string(gpu).c_str());
  EXPECT_TRUE(field_bool(gpu.gl_stats.get(), "ref-zero-copy"));
  EXPECT_EQ(field_uint64(gpu.gl_stats.get(), "ref-system-memory-frames"), 0u) << "rendered textures: the interop";
  EXPECT_EQ(field_uint64(gpu.gl_stats.get(), "ref-verified"), 30u);
  EXPECT_EQ(field_uint64(gpu.gl_stats.get(), "ref-verify-mismatches"), 0u)
      << field_string(gpu.gl_stats.get(), "ref-verify-first");
  EXPECT_EQ(field_uint64(gpu.gl_stats.get(), "dist-system-memory-frames"), 30u) << "raw upload: system memory";
  EXPECT_EQ(gpu.frames_copied, 0u);
  EXPECT_EQ(cpu.frames_copied, 60u);
  ASSERT_EQ(gpu.frames.size(), 30u);
  ASSERT_EQ(cpu.frames.size(), 30u);
  double max_abs = 0;
  for (size_t i = 0; i < gpu.frames.size(); i++) {
    const std::string d = first_difference(cpu.frames[i].get(), gpu.frames[i].get(), &max_abs);
    ASSERT_TRUE(d.empty()) << "frame " << i << ": " << d;
  }
  std::printf("30 NV12 640x360 frames, one device and one host picture each: every field (vmaf, features, psnr "
              "y/cb/cr) equals the CPU scores of the downloaded frames\n");
}

TEST(GstGlGpu, CpuFeaturesReadingHostMemoryMakeTheFramesDownloadWithThatReason) {
  GPU_GL_OR_SKIP(g);
  const std::string src = "videotestsrc num-buffers=5 ! video/x-raw,format=I420,width=320,height=240,framerate=25/1";
  GlRun r = run_gl_pipeline(src + " ! glupload ! v.ref_sink " + src + " ! glupload ! v.dist_sink vmafxhip name=v " +
                                "backend=hip features=\"float_adm=adm_p_norm=2.5\" ! fakesink",
                            with_display(g.display));
  ASSERT_TRUE(r.eos) << r.describe();
  std::printf("gl-stats %s\n", stats_string(r).c_str());
  EXPECT_FALSE(field_bool(r.gl_stats.get(), "dist-zero-copy"));
  EXPECT_NE(field_string(r.gl_stats.get(), "dist-path").find("float_adm"), std::string::npos);
  EXPECT_EQ(r.frames_copied, 10u);
  bool warned = false;
  for (const Message& m : r.warnings) warned = warned || m.debug.find("GL frames are downloaded") != std::string::npos;
  EXPECT_TRUE(warned) << "the download with a GPU scorer is a warning";
}

// glupload's raw upload, reproduced with GStreamer's GL library and the engine's importer (no element): GL memory
// wrapping system memory (gst_gl_memory_setup_buffer with the wrapped pointers, as glupload does) is imported
//   1. its texture registered and read without a GL map (what gives undefined content): printed, not checked
//      (the texture's content is undefined until GStreamer uploads it);
//   2. after gst_memory_map(GST_MAP_READ | GST_MAP_GL), as the element's RGBA and forced-interop routes do: every
//      plane equals the system memory when GStreamer's upload raised no GL error (the GL errors are printed; on the
//      H200 the 161x121 R8 chroma uploads of I420 321x241 raise GL_INVALID_OPERATION, which the element detects).
struct RawUploadCase {
  GstVideoFormat format;
  uint32_t width, height;
  FormatInfo engine;
  gl::TexelFormat luma, chroma;
};

struct RawUploadJob {
  GstBuffer* buffer = nullptr;
  const GstVideoInfo* info = nullptr;
  const RawUploadCase* c = nullptr;
  const std::vector<uint8_t>* host = nullptr;
  int device = -1;
  std::string before_map, after_map;  // "equal" or the first difference
  Status status;
  uint64_t uploads_pending = 0;       // planes flagged NEED_UPLOAD before the GL map
  GstGLContext* ctx = nullptr;
  std::string gl_errors;              // GL errors around the maps (diagnostics)
};

// GL thread: register the planes' textures, import (without, then with the GL map), compare with the host bytes.
Status raw_upload_on_gl_thread(RawUploadJob* j) {
  std::unique_ptr<gl::Importer> imp;
  VMAFX_TRY(gl::Importer::create(Vendor::nvidia, j->device, &imp));
  const GstVideoInfo& info = *j->info;
  const unsigned n = GST_VIDEO_INFO_N_PLANES(&info);
  std::vector<std::unique_ptr<gl::Texture>> tex(n);
  gl::TextureFrame f;
  f.format = j->c->engine;
  f.width = j->c->width;
  f.height = j->c->height;
  f.n_planes = n;
  for (unsigned i = 0; i < n; i++) {
    auto* glm = reinterpret_cast<GstGLMemory*>(gst_buffer_peek_memory(j->buffer, i));
    j->uploads_pending += GST_MEMORY_FLAG_IS_SET(glm, GST_GL_BASE_MEMORY_TRANSFER_NEED_UPLOAD) ? 1 : 0;
    VMAFX_TRY(imp->register_texture(gst_gl_memory_get_texture_id(glm), 0x0DE1 /* GL_TEXTURE_2D */,
                                    uint32_t(gst_gl_memory_get_texture_width(glm)),
                                    uint32_t(gst_gl_memory_get_texture_height(glm)),
                                    i == 0 ? j->c->luma : j->c->chroma, &tex[i]));
    f.planes[i] = tex[i].get();
  }
  // Imports the frame and compares each texture's frame region in the device frame with the system memory.
  auto import_and_compare = [&](std::string* result) -> Status {
    PictureView v;
    std::function<void()> release;
    VMAFX_TRY(imp->import(f, &v, &release));
    *result = "equal";
    for (unsigned i = 0; i < n && *result == "equal"; i++) {
      const unsigned texel = gl::texel_bytes(i == 0 ? j->c->luma : j->c->chroma);
      const uint32_t texels = i == 0 ? f.width : chroma_width_stored(f.format.chroma, f.width);
      const uint32_t rows = i == 0 ? f.height : chroma_height_stored(f.format.chroma, f.height);
      const size_t row_bytes = size_t(texels) * texel;
      std::vector<uint8_t> got(row_bytes * rows);
      Status st = imp->read_plane(v, i, row_bytes, rows, got.data(), row_bytes);
      if (!st.is_ok()) {
        release();
        return st;
      }
      const uint8_t* want = j->host->data() + GST_VIDEO_INFO_PLANE_OFFSET(&info, i);
      const size_t stride = size_t(GST_VIDEO_INFO_PLANE_STRIDE(&info, i));
      size_t differ = 0;
      std::string first;
      for (uint32_t y = 0; y < rows; y++)
        for (size_t x = 0; x < row_bytes; x++)
          if (got[y * row_bytes + x] != want[y * stride + x]) {
            if (differ++ == 0)
              first = "plane " + std::to_string(i) + " byte " + std::to_string(x) + " of row " + std::to_string(y) +
                      ": device " + std::to_string(got[y * row_bytes + x]) + ", system memory " +
                      std::to_string(want[y * stride + x]);
          }
      if (differ)
        *result = first + " (" + std::to_string(differ) + " of " + std::to_string(row_bytes * rows) +
                  " bytes of the plane differ)";
    }
    release();
    return Status::ok();
  };
  VMAFX_TRY(import_and_compare(&j->before_map));
  // GL errors: those pending before the maps, and those each plane's map (GStreamer's upload) raised.
  auto gl_errors = [&]() {
    std::string e;
    for (int k = 0; k < 8; k++) {
      const unsigned err = j->ctx->gl_vtable->GetError();
      if (err == 0) break;
      e += (e.empty() ? "" : ",") + std::to_string(err);
    }
    return e.empty() ? std::string("none") : e;
  };
  j->gl_errors = "before the maps: " + gl_errors();
  std::vector<GstMapInfo> maps(n);
  for (unsigned i = 0; i < n; i++) {
    if (!gst_memory_map(gst_buffer_peek_memory(j->buffer, i), &maps[i], GstMapFlags(GST_MAP_READ | GST_MAP_GL)))
      return {Errc::io_error, "gst_memory_map(GST_MAP_READ | GST_MAP_GL) of plane " + std::to_string(i) + " failed"};
    auto* glm = reinterpret_cast<GstGLMemory*>(gst_buffer_peek_memory(j->buffer, i));
    j->gl_errors += "; plane " + std::to_string(i) + " map (texture " +
                    std::to_string(gst_gl_memory_get_texture_id(glm)) + " " +
                    std::to_string(gst_gl_memory_get_texture_width(glm)) + "x" +
                    std::to_string(gst_gl_memory_get_texture_height(glm)) + " " +
                    std::to_string(int(gst_gl_memory_get_texture_format(glm))) + "): " + gl_errors();
  }
  Status st = import_and_compare(&j->after_map);
  for (unsigned i = 0; i < n; i++) gst_memory_unmap(gst_buffer_peek_memory(j->buffer, i), &maps[i]);
  VMAFX_TRY(imp->synchronize());
  tex.clear();  // unregistered here, on the GL thread, before the textures go with the buffer
  return st;
}

TEST(GstGlGpu, GluploadsRawTexturesAreReadOnlyAfterAGlMap) {
  GPU_GL_OR_SKIP(g);
  GError* err = nullptr;
  GstGLContext* ctx = gst_gl_context_new(g.display);
  ASSERT_TRUE(ctx && gst_gl_context_create(ctx, nullptr, &err)) << (err ? err->message : "gst_gl_context_new failed");
  const RawUploadCase cases[] = {
      {GST_VIDEO_FORMAT_I420, 321, 241, {PixelFormat::i420, Chroma::k420, 8}, gl::TexelFormat::r8, gl::TexelFormat::r8},
      {GST_VIDEO_FORMAT_NV12, 1920, 1080, {PixelFormat::nv12, Chroma::k420, 8}, gl::TexelFormat::r8,
       gl::TexelFormat::rg8},
  };
  GstGLMemoryAllocator* allocator = gst_gl_memory_allocator_get_default(ctx);
  uint32_t seed = 40;
  unsigned clean_cases = 0;  // cases whose upload raised no GL error (their textures must then hold the frame)
  for (const RawUploadCase& c : cases) {
    GstVideoInfo info;
    ASSERT_TRUE(gst_video_info_set_format(&info, c.format, c.width, c.height));
    // Edge-biased bytes: one in eight 0, one in eight 255, the rest random.
    std::mt19937 rng(++seed);
    std::vector<uint8_t> host(GST_VIDEO_INFO_SIZE(&info));
    for (auto& b : host) {
      const uint32_t r = rng();
      b = (r & 7) == 0 ? 0 : (r & 7) == 1 ? 255 : uint8_t(r >> 8);
    }
    GstGLVideoAllocationParams* params = gst_gl_video_allocation_params_new_wrapped_data(
        ctx, nullptr, &info, -1, nullptr, GST_GL_TEXTURE_TARGET_2D, GstGLFormat(0), nullptr, nullptr, nullptr);
    ASSERT_NE(params, nullptr);
    gpointer data[GST_VIDEO_MAX_PLANES] = {};
    for (unsigned i = 0; i < GST_VIDEO_INFO_N_PLANES(&info); i++)
      data[i] = host.data() + GST_VIDEO_INFO_PLANE_OFFSET(&info, i);
    GstBuffer* buffer = gst_buffer_new();
    const gboolean made =
        gst_gl_memory_setup_buffer(allocator, buffer, params, nullptr, data, GST_VIDEO_INFO_N_PLANES(&info));
    gst_gl_allocation_params_free(reinterpret_cast<GstGLAllocationParams*>(params));
    ASSERT_TRUE(made) << "gst_gl_memory_setup_buffer";
    RawUploadJob job;
    job.buffer = buffer;
    job.info = &info;
    job.c = &c;
    job.host = &host;
    job.device = g.device->info().index;
    job.ctx = ctx;
    gst_gl_context_thread_add(
        ctx, [](GstGLContext*, gpointer d) {
          auto* j = static_cast<RawUploadJob*>(d);
          j->status = raw_upload_on_gl_thread(j);
        },
        &job);
    gst_buffer_unref(buffer);
    const std::string what = std::string(gst_video_format_to_string(c.format)) + " " + std::to_string(c.width) + "x" +
                             std::to_string(c.height) + " (seed " + std::to_string(seed) + ")";
    ASSERT_TRUE(job.status.is_ok()) << what << ": " << job.status.to_string();
    std::printf("%s wrapped system memory, %llu of %u planes awaiting GStreamer's upload:\n"
                "  texture read without a GL map (the element before the fix): %s\n"
                "  texture read after gst_memory_map(GST_MAP_READ | GST_MAP_GL): %s\n  GL errors: %s\n",
                what.c_str(), (unsigned long long)job.uploads_pending, GST_VIDEO_INFO_N_PLANES(&info),
                job.before_map.c_str(), job.after_map.c_str(), job.gl_errors.c_str());
    EXPECT_EQ(job.uploads_pending, GST_VIDEO_INFO_N_PLANES(&info)) << what << ": glupload's raw path wraps system "
                                                                           "memory that awaits its upload";
    // Where GStreamer's upload raised no GL error the textures hold the frame; where it did (the element detects it
    // and reads such frames from system memory) their content is not defined.
    bool every_map_clean = true;
    for (size_t at = job.gl_errors.find("map ("); at != std::string::npos; at = job.gl_errors.find("map (", at + 1))
      every_map_clean = every_map_clean && job.gl_errors.compare(job.gl_errors.find("): ", at), 7, "): none") == 0;
    if (every_map_clean) {
      EXPECT_EQ(job.after_map, "equal") << what;
      clean_cases++;
    } else {
      std::printf("  GStreamer's upload raised a GL error: the textures need not hold the frame (the element reads "
                  "such frames from system memory)\n");
    }
  }
  gst_object_unref(allocator);
  gst_object_unref(ctx);
  EXPECT_GT(clean_cases, 0u) << "no case uploaded without a GL error: nothing was shown about the GL map";
}

}  // namespace
}  // namespace vmafx::gl::test
