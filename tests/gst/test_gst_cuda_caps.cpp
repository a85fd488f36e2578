// SPDX-License-Identifier: LGPL-2.1-or-later
// memory:CUDAMemory input without a GPU (CI), the parts that need none:
//   - the pad templates offer memory:CUDAMemory exactly when GStreamer's CUDA library opens (run twice by meson: as
//     installed, and with VMAFX_GST_CUDA_LIBRARY naming a library that does not exist, where they must not);
//   - a caps query with a CUDA filter is empty without the library;
//   - CUDA frames for a scorer on the CPU are downloaded through GstCudaMemory's own CPU map (a stand-in allocator of
//     the same memory type here), score exactly as system memory, and are counted in frames-copied and cuda-stats,
//     with the reason said once; with allow-copy=false they are an error naming the cause;
//   - CONTEXT queries and set_context for gst.cuda.context without a device: not answered, nothing breaks.
// Each test skips (naming why) where the library's presence does not match what it needs.
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gst_harness.h"
#include "support.h"

namespace vmafx::test {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Whether this process is meant to see GStreamer's CUDA library (the meson test without the override).
bool library_expected() {
  const char* env = std::getenv("VMAFX_GST_CUDA_LIBRARY");
  return !(env && *env);
}

// ---- A stand-in for GstCudaMemory: the memory type name GStreamer's CUDA allocator uses, host memory behind it,
// mapped for the CPU the way GstCudaMemory's CPU map hands out its staging copy. No GstCudaContext (the download path
// never needs one).
struct FakeCudaMemory {
  GstMemory mem;
  GstObject* context;  // the layout of GstCudaMemory's head; null here
  guint8* data;
};

struct FakeCudaAllocator {
  GstAllocator parent;
};
struct FakeCudaAllocatorClass {
  GstAllocatorClass parent_class;
};

G_DEFINE_TYPE(FakeCudaAllocator, fake_cuda_allocator, GST_TYPE_ALLOCATOR)

gpointer fake_map(GstMemory* mem, gsize, GstMapFlags flags) {
  if (flags & (GST_MAP_FLAG_LAST << 1)) return nullptr;  // GST_MAP_CUDA: there is no device here
  return reinterpret_cast<FakeCudaMemory*>(mem)->data;
}
void fake_unmap(GstMemory*) {}
void fake_free(GstAllocator*, GstMemory* mem) {
  auto* m = reinterpret_cast<FakeCudaMemory*>(mem);
  g_free(m->data);
  g_free(m);
}
GstMemory* fake_alloc(GstAllocator*, gsize, GstAllocationParams*) { return nullptr; }

void fake_cuda_allocator_class_init(FakeCudaAllocatorClass* klass) {
  GST_ALLOCATOR_CLASS(klass)->alloc = fake_alloc;
  GST_ALLOCATOR_CLASS(klass)->free = fake_free;
}
void fake_cuda_allocator_init(FakeCudaAllocator* self) {
  GstAllocator* a = GST_ALLOCATOR(self);
  a->mem_type = "gst.cuda.memory";
  a->mem_map = fake_map;
  a->mem_unmap = fake_unmap;
  GST_OBJECT_FLAG_SET(self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator* fake_allocator() {
  static GstAllocator* a = GST_ALLOCATOR(g_object_ref_sink(g_object_new(fake_cuda_allocator_get_type(), nullptr)));
  return a;
}

// An I420 clip frame as NV12 in one stand-in CUDA memory with a 512-byte pitch (NVDEC's layout), with a video meta.
GstBuffer* cuda_nv12_buffer(const PictureView& v) {
  const size_t pitch = (size_t(v.width) + 511) / 512 * 512;
  const uint32_t cw = (v.width + 1) / 2, ch = (v.height + 1) / 2;
  const size_t size = pitch * (v.height + ch);
  auto* m = static_cast<FakeCudaMemory*>(g_malloc0(sizeof(FakeCudaMemory)));
  m->data = static_cast<guint8*>(g_malloc0(size));
  for (uint32_t y = 0; y < v.height; y++)
    std::memcpy(m->data + y * pitch, v.planes[0].data + y * v.planes[0].stride, v.width);
  for (uint32_t y = 0; y < ch; y++)
    for (uint32_t x = 0; x < cw; x++) {
      m->data[(v.height + y) * pitch + 2 * x] = v.planes[1].data[y * v.planes[1].stride + x];
      m->data[(v.height + y) * pitch + 2 * x + 1] = v.planes[2].data[y * v.planes[2].stride + x];
    }
  gst_memory_init(GST_MEMORY_CAST(m), GstMemoryFlags(0), fake_allocator(), nullptr, size, 0, 0, size);
  GstBuffer* b = gst_buffer_new();
  gst_buffer_append_memory(b, GST_MEMORY_CAST(m));
  gsize offsets[4] = {0, pitch * v.height, 0, 0};
  gint strides[4] = {gint(pitch), gint(pitch), 0, 0};
  gst_buffer_add_video_meta_full(b, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, v.width, v.height, 2, offsets,
                                 strides);
  return b;
}

// The clip's packed I420 frame (odd sizes keep the file's layout: a video meta says where the planes are).
GstBuffer* system_i420_buffer(const YuvClip& clip, size_t i) {
  GstBuffer* b = gst_buffer_new_memdup(clip.frame_data(i), clip.frame_size());
  const PictureView v = clip.frame(i);
  gsize offsets[4] = {0, gsize(v.planes[1].data - v.planes[0].data), gsize(v.planes[2].data - v.planes[0].data), 0};
  gint strides[4] = {gint(v.planes[0].stride), gint(v.planes[1].stride), gint(v.planes[2].stride), 0};
  gst_buffer_add_video_meta_full(b, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_I420, v.width, v.height, 3, offsets,
                                 strides);
  return b;
}

bool template_has_cuda(const char* pad) {
  GstElement* v = gst_element_factory_make("vmafxhip", nullptr);
  if (!v) return false;
  GstPadTemplate* t = gst_element_class_get_pad_template(GST_ELEMENT_GET_CLASS(v), pad);
  GstCaps* caps = gst_pad_template_get_caps(t);
  bool has = false;
  for (guint i = 0; i < gst_caps_get_size(caps); i++) {
    GstCapsFeatures* f = gst_caps_get_features(caps, i);
    if (f && gst_caps_features_contains(f, "memory:CUDAMemory")) has = true;
  }
  gst_caps_unref(caps);
  gst_object_unref(v);
  return has;
}

TEST(GstCudaCaps, TemplatesOfferCudaMemoryOnlyWithTheLibrary) {
  std::string why;
  if (!gst_ready(&why)) GTEST_SKIP() << why;
  const bool expected = library_expected();
  for (const char* pad : {"ref_sink", "dist_sink", "src"})
    EXPECT_EQ(template_has_cuda(pad), expected) << pad << (expected ? ": libgstcuda-1.0.so.0 should open here"
                                                                    : ": VMAFX_GST_CUDA_LIBRARY names no library");
  // A caps query filtered to CUDA memory is empty without the library, NV12 with it.
  GstElement* v = gst_element_factory_make("vmafxhip", nullptr);
  ASSERT_TRUE(v);
  GstPad* sink = gst_element_get_static_pad(v, "ref_sink");
  GstCaps* filter = gst_caps_from_string("video/x-raw(memory:CUDAMemory), format=NV12, width=64, height=64");
  GstCaps* got = gst_pad_query_caps(sink, filter);
  EXPECT_EQ(gst_caps_is_empty(got), !expected) << "caps query result: " << gst_caps_to_string(got);
  std::printf("library %s: ref_sink caps for CUDA NV12: %s\n", expected ? "expected" : "absent",
              gst_caps_to_string(got));
  gst_caps_unref(got);
  gst_caps_unref(filter);
  gst_object_unref(sink);
  gst_object_unref(v);
}

struct CudaRun {
  RunResult r;
  guint64 frames_copied = 0;
  std::string stats;  // cuda-stats, serialised
  bool gl_stats = false;  // gl-stats was not null (it must not report CUDA input)
};

// Reference from the clip in system memory (I420); distorted as stand-in CUDA NV12 (cuda) or system I420.
CudaRun run(const Pair& p, const PairClips& clips, bool cuda, const std::string& props) {
  CudaRun out;
  RunOptions opt;
  opt.setup = [&](GstElement* pipeline) {
    for (const bool is_ref : {true, false}) {
      GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), is_ref ? "r" : "d");
      const bool as_cuda = cuda && !is_ref;
      const std::string caps_text = std::string("video/x-raw") + (as_cuda ? "(memory:CUDAMemory)" : "") +
                                    ", format=" + (as_cuda ? "NV12" : "I420") + ", width=" + std::to_string(p.width) +
                                    ", height=" + std::to_string(p.height) + ", framerate=25/1";
      GstCaps* caps = gst_caps_from_string(caps_text.c_str());
      g_object_set(src, "caps", caps, "format", GST_FORMAT_TIME, nullptr);
      gst_caps_unref(caps);
      const YuvClip& clip = is_ref ? clips.ref : clips.dist;
      for (size_t i = 0; i < clip.frames(); i++) {
        GstBuffer* b = as_cuda ? cuda_nv12_buffer(clip.frame(i)) : system_i420_buffer(clip, i);
        GST_BUFFER_PTS(b) = i * 40 * GST_MSECOND;
        GST_BUFFER_DURATION(b) = 40 * GST_MSECOND;
        EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), b), GST_FLOW_OK);
      }
      gst_app_src_end_of_stream(GST_APP_SRC(src));
      gst_object_unref(src);
    }
  };
  opt.on_frame = [&](GstElement* pipeline, const GstStructure*) {
    GstElement* v = gst_bin_get_by_name(GST_BIN(pipeline), "v");
    GstStructure* st = nullptr;
    GstStructure* gl = nullptr;
    g_object_get(v, "frames-copied", &out.frames_copied, "cuda-stats", &st, "gl-stats", &gl, nullptr);
    if (st) {
      gchar* s = gst_structure_to_string(st);
      out.stats = s;
      g_free(s);
      gst_structure_free(st);
    }
    if (gl) {
      out.gl_stats = true;
      gst_structure_free(gl);
    }
    gst_object_unref(v);
  };
  out.r = run_pipeline("appsrc name=r ! v.ref_sink appsrc name=d ! v.dist_sink vmafxhip name=v psnr=true " + props +
                           " ! fakesink",
                       opt);
  return out;
}

// An odd-sized 8-bit 4:2:0 pair (generated: g5).
const Pair* small_pair(std::string* why) {
  const Pair* p = find_generated_pair("g5_");
  if (!p) *why = "no generated 8-bit pair";
  return p;
}

TEST(GstCudaCaps, CpuScorerDownloadsCudaFramesAndScoresAsSystemMemory) {
  std::string why;
  if (!gst_ready(&why)) GTEST_SKIP() << why;
  if (!library_expected()) GTEST_SKIP() << "GStreamer's CUDA library is hidden in this run";
  if (!template_has_cuda("dist_sink")) GTEST_SKIP() << "libgstcuda-1.0.so.0 does not open here";
  const Pair* p = small_pair(&why);
  if (!p) GTEST_SKIP() << why;
  PairClips clips;
  Status s = open_pair_clips(*p, &clips);
  ASSERT_TRUE(s.is_ok()) << s.to_string();

  const CudaRun sys = run(*p, clips, false, "backend=cpu");
  const CudaRun cuda = run(*p, clips, true, "backend=cpu");
  ASSERT_TRUE(sys.r.eos) << sys.r.describe_errors();
  ASSERT_TRUE(cuda.r.eos) << cuda.r.describe_errors();
  ASSERT_EQ(sys.r.frames.size(), clips.ref.frames());
  ASSERT_EQ(cuda.r.frames.size(), sys.r.frames.size());
  size_t differ = 0;
  for (size_t i = 0; i < sys.r.frames.size(); i++) {
    const GstStructure* a = sys.r.frames[i].get();
    const GstStructure* b = cuda.r.frames[i].get();
    for (int k = 0; k < gst_structure_n_fields(a); k++) {
      const char* f = gst_structure_nth_field_name(a, k);
      if (is_timing_field(f)) continue;
      const double x = get_double(a, f), y = get_double(b, f);
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) differ++;
    }
  }
  EXPECT_EQ(differ, 0u) << "CUDA NV12 downloads score exactly as I420 system memory";
  // Every distorted frame counted as copied, by frames-copied and by cuda-stats; the reason said once.
  EXPECT_GE(cuda.frames_copied, clips.ref.frames() - 1);
  GstStructure* st = gst_structure_from_string(cuda.stats.c_str(), nullptr);
  ASSERT_TRUE(st) << "cuda-stats: " << cuda.stats;
  EXPECT_EQ(get_uint64(st, "host-copies"), guint64(clips.ref.frames())) << cuda.stats;
  EXPECT_EQ(get_uint64(st, "in-place"), 0u) << cuda.stats;
  // Per pad: the distorted pad read every CUDA frame; the reference pad is in system memory (no ref-* fields).
  EXPECT_STREQ(gst_structure_get_name(st), "cuda-stats");
  EXPECT_EQ(get_uint64(st, "dist-frames"), guint64(clips.ref.frames())) << cuda.stats;
  EXPECT_EQ(get_uint64(st, "dist-host-copies"), guint64(clips.ref.frames())) << cuda.stats;
  EXPECT_FALSE(gst_structure_has_field(st, "ref-frames")) << cuda.stats;
  EXPECT_FALSE(cuda.gl_stats) << "gl-stats reports GL input only";
  EXPECT_TRUE(sys.stats.empty()) << "system memory has no cuda-stats: " << sys.stats;
  const char* path = gst_structure_get_string(st, "path");
  EXPECT_TRUE(path && contains(path, "download: the scorer runs on the CPU")) << cuda.stats;
  gst_structure_free(st);
  size_t said = 0;
  for (const auto& m : cuda.r.infos)
    if (contains(m.text, "CUDA frames are downloaded into system memory")) said++;
  EXPECT_EQ(said, 1u);
  std::printf("%s: %zu frames equal; frames-copied %" G_GUINT64_FORMAT "; %s\n", p->name().c_str(),
              cuda.r.frames.size(), cuda.frames_copied, cuda.stats.c_str());

  // allow-copy=false: the download is a copy, refused naming the cause.
  const CudaRun strict = run(*p, clips, true, "backend=cpu allow-copy=false");
  EXPECT_FALSE(strict.r.eos);
  const std::vector<BusMessage> errs = strict.r.element_errors();
  ASSERT_FALSE(errs.empty()) << "no error for a refused download";
  const std::string all = errs[0].text + " " + errs[0].debug;
  EXPECT_TRUE(contains(all, "allow-copy=false forbids the download")) << all;
  EXPECT_TRUE(contains(all, "the scorer runs on the CPU")) << all;
  std::printf("allow-copy=false: %s | %s\n", errs[0].text.c_str(), errs[0].debug.c_str());
}

TEST(GstCudaCaps, ContextQueriesWithoutADeviceAreNotAnswered) {
  std::string why;
  if (!gst_ready(&why)) GTEST_SKIP() << why;
  GstElement* v = gst_element_factory_make("vmafxhip", nullptr);
  ASSERT_TRUE(v);
  for (const char* pad_name : {"dist_sink", "ref_sink", "src"}) {
    GstPad* pad = gst_element_get_static_pad(v, pad_name);
    for (const char* backend : {"cpu", "auto"}) {
      gst_util_set_object_arg(G_OBJECT(v), "backend", backend);
      GstQuery* q = gst_query_new_context("gst.cuda.context");
      const gboolean answered = gst_pad_query(pad, q);
      GstContext* ctx = nullptr;
      gst_query_parse_context(q, &ctx);
      if (std::string(backend) == "cpu" || !answered) {
        EXPECT_FALSE(answered) << pad_name << ", backend=" << backend;
        EXPECT_EQ(ctx, nullptr);
      } else {
        // A machine with an NVIDIA GPU and GStreamer's CUDA library answers with the engine's context.
        EXPECT_NE(ctx, nullptr);
      }
      std::printf("%s, backend=%s: CUDA context query %s\n", pad_name, backend,
                  answered ? "answered" : "not answered");
      gst_query_unref(q);
    }
    gst_object_unref(pad);
  }
  // A gst.cuda.context without a GstCudaContext in it (an application's mistake) is ignored.
  GstContext* bogus = gst_context_new("gst.cuda.context", TRUE);
  gst_structure_set(gst_context_writable_structure(bogus), "cuda-device-id", G_TYPE_UINT, 0u, nullptr);
  gst_element_set_context(v, bogus);
  gst_context_unref(bogus);
  gst_object_unref(v);
}

}  // namespace
}  // namespace vmafx::test
