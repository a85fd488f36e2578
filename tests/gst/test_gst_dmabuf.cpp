// SPDX-License-Identifier: LGPL-2.1-or-later
// memory:DMABuf input of the element. On this machine kind there is no dma-buf producer (no /dev/udmabuf, no
// /dev/dma_heap: printed by DmaBufCaps.ProducersOnThisMachine), so the buffers are GstDmaBufAllocator memories over
// memfds: GStreamer treats them as dma-buf memory (gst_is_dmabuf_memory), the engine duplicates, sizes and maps them,
// and the dma-buf ioctls fail with ENOTTY on them (handled: read without the SYNC bracket). Both caps forms are fed:
// GStreamer 1.22's (format=NV12, ...) and the DMA_DRM form (format=DMA_DRM, drm-format=NV12). Scores must equal the
// system-memory path exactly, for every public pair present. On a machine with a GPU the same tests run the HIP
// backend (the runtime's import attempted; the host-mapping fallback or its refusal as measured), and
// GpuDmaBuf.CudaExportedDmaBufsThroughTheElement feeds dma-bufs exported from device memory.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gst/allocators/allocators.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../test_dmabuf_frames.h"
#include "gst_harness.h"
#include "vmafx/dmabuf.h"

namespace vmafx::test {

// gtest prints test parameters; without this it dumps Pair's bytes, padding included.
void PrintTo(const Pair& p, std::ostream* os) { *os << p.prefix << "_" << p.distorted; }

namespace {

#define REQUIRE_GST()                           \
  do {                                          \
    std::string why_;                           \
    if (!gst_ready(&why_)) GTEST_SKIP() << why_; \
  } while (0)

// How one stream is fed.
struct Feed {
  bool dmabuf = true;
  bool drm_form = false;         // caps in the DMA_DRM form
  Layout layout;                 // dma-buf layout (drm format, offsets, pitches, fds)
  bool memory_per_plane = false; // one memfd, a GstMemory per plane on duplicates of its fd (as v4l2 hands them out)
  std::string drm_format_field;  // overrides drm-format in the caps (refusal tests)
  // Changes a buffer before it is pushed (refusal tests).
  std::function<void(GstBuffer*, size_t)> mutate;
  std::string name() const {
    if (!dmabuf) return "system memory";
    return std::string(drm_form ? "DMA_DRM " : "1.22 ") + layout.name() + (memory_per_plane ? "/memory-per-plane" : "");
  }
};

GstVideoFormat gst_format_of(uint32_t fourcc) {
  struct {
    uint32_t fourcc;
    GstVideoFormat f;
  } map[] = {{kDrmFormatYUV420, GST_VIDEO_FORMAT_I420},    {kDrmFormatYVU420, GST_VIDEO_FORMAT_YV12},
             {kDrmFormatNV12, GST_VIDEO_FORMAT_NV12},      {kDrmFormatNV21, GST_VIDEO_FORMAT_NV21},
             {kDrmFormatS010, GST_VIDEO_FORMAT_I420_10LE}, {kDrmFormatP010, GST_VIDEO_FORMAT_P010_10LE}};
  for (const auto& m : map)
    if (m.fourcc == fourcc) return m.f;
  return GST_VIDEO_FORMAT_UNKNOWN;
}

std::string caps_for(const Pair& p, const Feed& f) {
  const std::string size = ",width=" + std::to_string(p.width) + ",height=" + std::to_string(p.height) +
                           ",framerate=25/1";
  if (!f.dmabuf)
    return std::string("video/x-raw,format=") + (p.bpc > 8 ? "I420_10LE" : "I420") + size;
  if (f.drm_form) {
    const std::string drm = f.drm_format_field.empty() ? drm_fourcc_name(f.layout.drm_format) : f.drm_format_field;
    return "video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=" + drm + size;
  }
  return std::string("video/x-raw(memory:DMABuf),format=") + gst_video_format_to_string(gst_format_of(f.layout.drm_format)) +
         size;
}

int memfd_with(const std::vector<uint8_t>& bytes) {
  const int fd = ::memfd_create("vmafx-gst-dmabuf", MFD_CLOEXEC);
  if (fd >= 0 && ::pwrite(fd, bytes.data(), bytes.size(), 0) != ssize_t(bytes.size())) {
    ::close(fd);
    return -1;
  }
  return fd;
}

GstAllocator* dmabuf_allocator() {
  static GstAllocator* a = gst_dmabuf_allocator_new();  // lives for the process
  return a;
}

// A buffer of one frame: dma-buf memories over memfds (the memories own their fds) with a video meta, or system
// memory in the file's packed layout with a video meta.
GstBuffer* make_buffer(const PictureView& frame, const Pair& p, const Feed& f) {
  GstBuffer* b = gst_buffer_new();
  gsize offsets[GST_VIDEO_MAX_PLANES] = {};
  gint strides[GST_VIDEO_MAX_PLANES] = {};
  GstVideoFormat format;
  unsigned n_planes;
  if (!f.dmabuf) {
    FormatInfo fmt;
    (void)parse_pixel_format("420", p.bpc, &fmt);
    PlaneLayout l[3];
    size_t size = 0;
    n_planes = packed_layout(fmt, p.width, p.height, l, &size);
    guint8* copy = static_cast<guint8*>(g_memdup2(frame.planes[0].data, size));
    gst_buffer_append_memory(b, gst_memory_new_wrapped(GstMemoryFlags(0), copy, size, 0, size, copy, g_free));
    for (unsigned i = 0; i < n_planes; i++) {
      offsets[i] = l[i].offset;
      strides[i] = gint(l[i].stride);
    }
    format = p.bpc > 8 ? GST_VIDEO_FORMAT_I420_10LE : GST_VIDEO_FORMAT_I420;
  } else {
    LaidOutFrame lf;
    Status s = lay_out_frame(frame, f.layout, &lf);
    EXPECT_TRUE(s.is_ok()) << s.to_string();
    n_planes = lf.frame.n_planes;
    format = gst_format_of(f.layout.drm_format);
    if (f.memory_per_plane) {
      const int fd = memfd_with(lf.buffers[0]);
      gsize pos = 0;
      for (unsigned i = 0; i < n_planes; i++) {
        const uint64_t rows = i == 0 ? p.height : (p.height + 1) / 2;
        const gsize extent = gsize(lf.frame.planes[i].pitch * rows);
        GstMemory* m = gst_dmabuf_allocator_alloc(dmabuf_allocator(), ::fcntl(fd, F_DUPFD_CLOEXEC, 0),
                                                  lf.buffers[0].size());
        gst_memory_resize(m, gssize(lf.frame.planes[i].offset), extent);
        gst_buffer_append_memory(b, m);
        offsets[i] = pos;
        strides[i] = gint(lf.frame.planes[i].pitch);
        pos += extent;
      }
      ::close(fd);
    } else {
      std::vector<gsize> start(lf.buffers.size());
      gsize pos = 0;
      for (size_t k = 0; k < lf.buffers.size(); k++) {
        start[k] = pos;
        gst_buffer_append_memory(
            b, gst_dmabuf_allocator_alloc(dmabuf_allocator(), memfd_with(lf.buffers[k]), lf.buffers[k].size()));
        pos += lf.buffers[k].size();
      }
      for (unsigned i = 0; i < n_planes; i++) {
        offsets[i] = start[lf.buffer_of[i]] + lf.frame.planes[i].offset;
        strides[i] = gint(lf.frame.planes[i].pitch);
      }
    }
  }
  gst_buffer_add_video_meta_full(b, GST_VIDEO_FRAME_FLAG_NONE, format, p.width, p.height, n_planes, offsets, strides);
  return b;
}

struct Clips {
  YuvClip ref, dist;
};

bool open_pair(const Pair& p, Clips* c) {
  FormatInfo fmt;
  if (!parse_pixel_format("420", p.bpc, &fmt).is_ok()) return false;
  return c->ref.open(p.ref_path(), p.width, p.height, fmt).is_ok() &&
         c->dist.open(p.dist_path(), p.width, p.height, fmt).is_ok();
}

RunResult run_feeds(const Pair& p, const Clips& clips, const Feed& ref, const Feed& dist, const std::string& props,
                    size_t frames = SIZE_MAX) {
  RunOptions opt;
  opt.setup = [&](GstElement* pipeline) {
    for (const bool is_ref : {true, false}) {
      const Feed& f = is_ref ? ref : dist;
      GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), is_ref ? "r" : "d");
      GstCaps* caps = gst_caps_from_string(caps_for(p, f).c_str());
      g_object_set(src, "caps", caps, "format", GST_FORMAT_TIME, nullptr);
      gst_caps_unref(caps);
      const YuvClip& clip = is_ref ? clips.ref : clips.dist;
      for (size_t i = 0; i < std::min(frames, clip.frames()); i++) {
        GstBuffer* b = make_buffer(clip.frame(i), p, f);
        if (f.mutate) f.mutate(b, i);
        GST_BUFFER_PTS(b) = i * 40 * GST_MSECOND;
        GST_BUFFER_DURATION(b) = 40 * GST_MSECOND;
        EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), b), GST_FLOW_OK);
      }
      gst_app_src_end_of_stream(GST_APP_SRC(src));
      gst_object_unref(src);
    }
  };
  return run_pipeline("appsrc name=r ! v.ref_sink appsrc name=d ! v.dist_sink vmafxhip name=v " + props +
                          " ! fakesink",
                      opt);
}

// Every field of every frame message identical (doubles bit for bit).
void expect_identical_frames(const RunResult& want, const RunResult& got, const std::string& ctx) {
  ASSERT_EQ(want.frames.size(), got.frames.size()) << ctx << got.describe_errors();
  for (size_t i = 0; i < want.frames.size(); i++) {
    if (gst_structure_is_equal(want.frames[i].get(), got.frames[i].get())) continue;
    gchar* a = gst_structure_to_string(want.frames[i].get());
    gchar* b = gst_structure_to_string(got.frames[i].get());
    ADD_FAILURE() << ctx << ": frame " << i << " differs\n system memory: " << a << "\n dma-buf:       " << b;
    g_free(a);
    g_free(b);
    return;
  }
}

bool has_gpu() {
  static const bool gpu = [] {
    DmaBufImporterConfig cfg;
    cfg.backend = Backend::hip;
    std::unique_ptr<DmaBufImporter> importer;
    return DmaBufImporter::create(cfg, &importer).is_ok();
  }();
  return gpu;
}

const BusMessage* find_error(const RunResult& r, const std::string& needle) {
  for (const auto& e : r.errors)
    if (e.text.find(needle) != std::string::npos || e.debug.find(needle) != std::string::npos) return &e;
  return nullptr;
}

// ---- caps ----------------------------------------------------------------------------------------------------------

TEST(DmaBufCaps, ProducersOnThisMachine) {
  std::printf("[ info     ] /dev/udmabuf %s, /dev/dma_heap %s, GPU %s: buffers here are memfd-backed "
              "GstDmaBufAllocator memories\n",
              ::access("/dev/udmabuf", F_OK) == 0 ? "present" : "absent",
              ::access("/dev/dma_heap", F_OK) == 0 ? "present" : "absent", has_gpu() ? "present" : "absent");
  SUCCEED();
}

TEST(DmaBufCaps, TemplatesOfferBothFormsNextToSystemMemory) {
  REQUIRE_GST();
  GstElement* v = gst_element_factory_make("vmafxhip", nullptr);
  ASSERT_NE(v, nullptr);
  for (const char* pad : {"ref_sink", "dist_sink", "src"}) {
    GstPad* p = gst_element_get_static_pad(v, pad);
    GstCaps* t = gst_pad_get_pad_template_caps(p);
    GstCaps* sys = gst_caps_from_string("video/x-raw,format=NV12,width=64,height=48,framerate=25/1");
    GstCaps* old_form = gst_caps_from_string("video/x-raw(memory:DMABuf),format=NV12,width=64,height=48,framerate=25/1");
    GstCaps* drm = gst_caps_from_string(
        "video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=NV12,width=64,height=48,framerate=25/1");
    EXPECT_TRUE(gst_caps_can_intersect(t, sys)) << pad;
    EXPECT_TRUE(gst_caps_can_intersect(t, old_form)) << pad;
    if (std::string(pad) != "src") {
      EXPECT_TRUE(gst_caps_can_intersect(t, drm)) << pad;
    }
    for (GstCaps* c : {sys, old_form, drm}) gst_caps_unref(c);
    gst_caps_unref(t);
    gst_object_unref(p);
  }
  gst_object_unref(v);
}

// ---- scores equal system memory -------------------------------------------------------------------------------------

class DmaBufPairs : public ::testing::TestWithParam<Pair> {};

TEST_P(DmaBufPairs, BothCapsFormsScoreLikeSystemMemory) {
  REQUIRE_GST();
  const Pair& p = GetParam();
  Clips clips;
  ASSERT_TRUE(open_pair(p, &clips));
  const bool ten = p.bpc > 8;
  const std::string backend = has_gpu() ? "backend=hip" : "backend=cpu";
  const std::string props = backend + " threads=2 psnr=true";
  Feed sys;
  sys.dmabuf = false;
  const RunResult want = run_feeds(p, clips, sys, sys, props);
  ASSERT_TRUE(want.eos) << want.describe_errors();
  ASSERT_EQ(want.frames.size(), clips.ref.frames());

  std::vector<std::pair<Feed, Feed>> cases;
  Feed a;  // 1.22 form, planar, one fd, offset and padded pitches
  a.layout = {ten ? kDrmFormatS010 : kDrmFormatYUV420, 4096, 64, 0, false};
  Feed b;  // DMA_DRM form, semi-planar, a gap between the planes
  b.drm_form = true;
  b.layout = {ten ? kDrmFormatP010 : kDrmFormatNV12, 256, 2, 333, false};
  Feed c;  // 1.22 form, a memfd per plane
  c.layout = {ten ? kDrmFormatS010 : kDrmFormatYUV420, 0, 0, 0, true};
  Feed d;  // DMA_DRM form, one memfd, a GstMemory per plane on duplicated fds
  d.drm_form = true;
  d.layout = {ten ? kDrmFormatS010 : kDrmFormatYUV420, 128, 16, 64, false};
  d.memory_per_plane = true;
  cases = {{a, a}, {b, b}, {c, d}};
  if (!ten) {
    Feed e;  // swapped chroma orders
    e.layout = {kDrmFormatNV21, 0, 0, 0, false};
    Feed g;
    g.drm_form = true;
    g.layout = {kDrmFormatYVU420, 7, 3, 1, false};
    cases.push_back({e, g});
  }
  for (const auto& [ref, dist] : cases) {
    const int fds_before = count_open_fds();
    const RunResult got = run_feeds(p, clips, ref, dist, props);
    const std::string ctx = p.prefix + "_" + p.distorted + " ref " + ref.name() + ", dist " + dist.name();
    ASSERT_TRUE(got.eos) << ctx << "\n" << got.describe_errors();
    EXPECT_TRUE(got.errors.empty()) << ctx << got.describe_errors();
    expect_identical_frames(want, got, ctx);
    EXPECT_EQ(count_open_fds(), fds_before) << ctx << ": fds leaked";
    std::printf("[ info     ] %s (%s): %zu frames identical to system memory\n", ctx.c_str(), backend.c_str(),
                got.frames.size());
  }
}

std::string pair_name(const ::testing::TestParamInfo<Pair>& info) {
  std::string n = info.param.prefix + "_" + info.param.distorted;
  for (auto& ch : n)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

// The 4:2:0 pairs (the dma-buf layouts above are 4:2:0): g1, g2 (10-bit), g5 (odd), and the public pairs present.
std::vector<Pair> pairs_420() {
  std::vector<Pair> v;
  for (const Pair& p : oracle_pairs())
    if (p.chroma == Chroma::k420) v.push_back(p);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Pairs, DmaBufPairs, ::testing::ValuesIn(pairs_420()), pair_name);

// ---- refusals -------------------------------------------------------------------------------------------------------

Pair pair_c() { return *find_generated_pair("g5_"); }  // odd-sized 8-bit 4:2:0, 8 frames

void expect_refused(const RunResult& r, const std::string& field, const std::string& ctx) {
  const BusMessage* e = find_error(r, field);
  ASSERT_NE(e, nullptr) << ctx << ": no error naming " << field << "\n" << r.describe_errors();
  EXPECT_EQ(e->source, "v") << ctx;
  EXPECT_EQ(e->domain, GST_STREAM_ERROR) << ctx << ": " << e->text;
  EXPECT_TRUE(r.frames.empty() || r.frames.size() < 8) << ctx;
  std::printf("[ info     ] %s: %s | %s\n", ctx.c_str(), e->text.c_str(), e->debug.c_str());
}

TEST(DmaBufRefusals, PlanePastTheEndOfItsDmaBuf) {
  REQUIRE_GST();
  const Pair p = pair_c();
  Clips clips;
  ASSERT_TRUE(open_pair(p, &clips));
  Feed ok;
  ok.layout = {kDrmFormatYUV420, 0, 0, 0, false};
  Feed bad = ok;
  // The last plane's rows now end 1 byte past the memfd.
  bad.mutate = [](GstBuffer* b, size_t) { gst_buffer_get_video_meta(b)->offset[2] += 1; };
  expect_refused(run_feeds(p, clips, ok, bad, "backend=cpu", 3), "plane[2].size", "V plane one byte past the end");
  bad.mutate = [](GstBuffer* b, size_t) { gst_buffer_get_video_meta(b)->offset[1] = 1 << 30; };
  expect_refused(run_feeds(p, clips, bad, ok, "backend=cpu", 3), "plane[1].offset", "U plane offset past the buffer");
}

TEST(DmaBufRefusals, ModifierOtherThanLinear) {
  REQUIRE_GST();
  const Pair p = pair_c();
  Clips clips;
  ASSERT_TRUE(open_pair(p, &clips));
  Feed f;
  f.drm_form = true;
  f.layout = {kDrmFormatNV12, 0, 0, 0, false};
  f.drm_format_field = "NV12:0x0100000000000001";  // I915_FORMAT_MOD_X_TILED
  expect_refused(run_feeds(p, clips, f, f, "backend=cpu", 3), "modifier 0x0100000000000001", "X-tiled NV12");
  f.drm_format_field = "YUYV";
  expect_refused(run_feeds(p, clips, f, f, "backend=cpu", 3), "drm-format YUYV", "packed YUYV");
}

TEST(DmaBufRefusals, MemoryThatIsNotADmaBuf) {
  REQUIRE_GST();
  const Pair p = pair_c();
  Clips clips;
  ASSERT_TRUE(open_pair(p, &clips));
  Feed ok;
  ok.layout = {kDrmFormatYUV420, 0, 0, 0, false};
  Feed sysmem_in_dmabuf_caps = ok;
  sysmem_in_dmabuf_caps.mutate = [](GstBuffer* b, size_t) {
    GstMemory* m = gst_buffer_peek_memory(b, 0);
    GstMapInfo map;
    ASSERT_TRUE(gst_memory_map(m, &map, GST_MAP_READ));
    GstMemory* copy = gst_allocator_alloc(nullptr, map.size, nullptr);
    gst_memory_unmap(m, &map);
    gst_buffer_replace_memory(b, 0, copy);
  };
  expect_refused(run_feeds(p, clips, ok, sysmem_in_dmabuf_caps, "backend=cpu", 3), "not a dma-buf",
                 "system memory in memory:DMABuf caps");
}

// ---- fallback, allow-copy, frames-copied -------------------------------------------------------------------------

TEST(DmaBufFallback, PropertiesAndWhatEachBackendDoes) {
  REQUIRE_GST();
  GstElement* v = gst_element_factory_make("vmafxhip", nullptr);
  ASSERT_NE(v, nullptr);
  gboolean allow = FALSE;
  guint64 copied = 1;
  g_object_get(v, "allow-copy", &allow, "frames-copied", &copied, nullptr);
  EXPECT_TRUE(allow) << "allow-copy defaults to true";
  EXPECT_EQ(copied, 0u);
  GParamSpec* ps = g_object_class_find_property(G_OBJECT_GET_CLASS(v), "frames-copied");
  ASSERT_NE(ps, nullptr);
  EXPECT_FALSE(ps->flags & G_PARAM_WRITABLE) << "frames-copied is read-only";
  gst_object_unref(v);

  const Pair p = pair_c();
  Clips clips;
  ASSERT_TRUE(open_pair(p, &clips));
  Feed f;
  f.layout = {kDrmFormatNV12, 64, 4, 0, false};
  for (const char* allow_copy : {"true", "false"}) {
    // backend=cpu: the CPU reads the host mapping in place: not a copy, allowed either way.
    RunOptions opt;
    const std::string props = std::string("backend=cpu allow-copy=") + allow_copy;
    const RunResult r = run_feeds(p, clips, f, f, props);
    ASSERT_TRUE(r.eos) << props << r.describe_errors();
    EXPECT_EQ(r.frames.size(), clips.ref.frames());
  }
  if (!has_gpu()) {
    std::printf("[ info     ] no GPU here: backend=hip and its fallback run on a GPU machine "
                "(this test, and GpuDmaBuf.*)\n");
    return;
  }
  // backend=hip: memfds are not importable as external memory (measured on a GPU machine: see docs/dmabuf.md); with
  // allow-copy the frames are mapped and uploaded, said once and counted; without it the element errors out.
  const RunResult copied_run = run_feeds(p, clips, f, f, "backend=hip allow-copy=true");
  ASSERT_TRUE(copied_run.eos) << copied_run.describe_errors();
  size_t said = 0;
  for (const auto& w : copied_run.warnings) said += w.source == "v" && w.text.find("dma-buf") != std::string::npos;
  for (const auto& w : copied_run.warnings) std::printf("[ measured ] warning: %s | %s\n", w.text.c_str(), w.debug.c_str());
  const RunResult refused = run_feeds(p, clips, f, f, "backend=hip allow-copy=false");
  for (const auto& e : refused.errors) std::printf("[ measured ] allow-copy=false: %s | %s\n", e.text.c_str(), e.debug.c_str());
  if (said == 0) {
    std::printf("[ measured ] the runtime imported the memfds (no copy)\n");
    EXPECT_TRUE(refused.eos) << refused.describe_errors();
  } else {
    EXPECT_EQ(said, 1u) << "the fallback is said once";
    ASSERT_NE(find_error(refused, "allow-copy=false"), nullptr) << refused.describe_errors();
  }
}

// ---- GPU machine: dma-bufs exported from device memory ----------------------------------------------------------

TEST(GpuDmaBuf, CudaExportedDmaBufsThroughTheElement) {
  REQUIRE_GST();
  if (!has_gpu()) GTEST_SKIP() << "no GPU: CUDA/HIP-exported dma-bufs need one (run on a GPU machine)";
  // Export through the runtime already loaded by the engine.
  const char* libs[] = {"libcuda.so.1", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"};
  using ExportFn = int (*)(void*, unsigned long long, size_t, int, unsigned long long);
  using AllocFn = int (*)(unsigned long long*, size_t);
  using CopyFn = int (*)(unsigned long long, const void*, size_t);
  ExportFn export_fn = nullptr;
  AllocFn alloc_fn = nullptr;
  CopyFn copy_fn = nullptr;
  bool nv = false;
  for (const char* lib : libs) {
    void* h = ::dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
    if (!h) continue;
    nv = std::string(lib).find("cuda") != std::string::npos;
    export_fn = reinterpret_cast<ExportFn>(::dlsym(h, nv ? "cuMemGetHandleForAddressRange" : "hipMemGetHandleForAddressRange"));
    alloc_fn = reinterpret_cast<AllocFn>(::dlsym(h, nv ? "cuMemAlloc_v2" : "hipMalloc"));
    copy_fn = reinterpret_cast<CopyFn>(::dlsym(h, nv ? "cuMemcpyHtoD_v2" : "hipMemcpyHtoD"));
    break;
  }
  ASSERT_TRUE(export_fn && alloc_fn && copy_fn) << "runtime export / alloc / copy entry points not found";
  // The engine's device made its context current for its own calls only: make the primary context current here.
  if (nv) {
    void* h = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    auto retain = reinterpret_cast<int (*)(void**, int)>(::dlsym(h, "cuDevicePrimaryCtxRetain"));
    auto set_current = reinterpret_cast<int (*)(void*)>(::dlsym(h, "cuCtxSetCurrent"));
    void* ctx = nullptr;
    ASSERT_EQ(retain(&ctx, 0), 0);
    ASSERT_EQ(set_current(ctx), 0);
  }
  const Pair p = pair_c();
  Clips clips;
  ASSERT_TRUE(open_pair(p, &clips));
  // Each frame laid out as NV12 in device memory exported as a dma-buf (2 MiB granules).
  auto push = [&](GstElement* pipeline) {
    for (const bool is_ref : {true, false}) {
      GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), is_ref ? "r" : "d");
      Feed f;
      f.layout = {kDrmFormatNV12, 0, 0, 0, false};
      GstCaps* caps = gst_caps_from_string(caps_for(p, f).c_str());
      g_object_set(src, "caps", caps, "format", GST_FORMAT_TIME, nullptr);
      gst_caps_unref(caps);
      const YuvClip& clip = is_ref ? clips.ref : clips.dist;
      for (size_t i = 0; i < clip.frames(); i++) {
        LaidOutFrame lf;
        ASSERT_TRUE(lay_out_frame(clip.frame(i), f.layout, &lf).is_ok());
        const size_t size = (lf.buffers[0].size() + (2u << 20) - 1) / (2u << 20) * (2u << 20);
        unsigned long long dptr = 0;
        ASSERT_EQ(alloc_fn(&dptr, size), 0);
        ASSERT_EQ(copy_fn(dptr, lf.buffers[0].data(), lf.buffers[0].size()), 0);
        int fd = -1;
        ASSERT_EQ(export_fn(&fd, dptr, size, 1, 0), 0);  // DMA_BUF_FD; the device memory lives until the process ends
        GstBuffer* b = gst_buffer_new();
        gst_buffer_append_memory(b, gst_dmabuf_allocator_alloc(dmabuf_allocator(), fd, size));
        gsize offsets[4] = {0, gsize(lf.frame.planes[1].offset)};
        gint strides[4] = {gint(lf.frame.planes[0].pitch), gint(lf.frame.planes[1].pitch)};
        gst_buffer_add_video_meta_full(b, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, p.width, p.height, 2,
                                       offsets, strides);
        GST_BUFFER_PTS(b) = i * 40 * GST_MSECOND;
        GST_BUFFER_DURATION(b) = 40 * GST_MSECOND;
        EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), b), GST_FLOW_OK);
      }
      gst_app_src_end_of_stream(GST_APP_SRC(src));
      gst_object_unref(src);
    }
  };
  for (const char* allow_copy : {"true", "false"}) {
    RunOptions opt;
    opt.setup = push;
    const RunResult r = run_pipeline(std::string("appsrc name=r ! v.ref_sink appsrc name=d ! v.dist_sink vmafxhip "
                                                 "name=v backend=hip allow-copy=") +
                                         allow_copy + " ! fakesink",
                                     opt);
    std::printf("[ measured ] device-exported dma-bufs, allow-copy=%s: %s, %zu frames scored, %zu errors\n",
                allow_copy, r.eos ? "EOS" : "stopped", r.frames.size(), r.errors.size());
    for (const auto& e : r.errors) std::printf("[ measured ]   error [%s] %s | %s\n", e.source.c_str(), e.text.c_str(), e.debug.c_str());
    for (const auto& w : r.warnings) std::printf("[ measured ]   warning %s | %s\n", w.text.c_str(), w.debug.c_str());
    if (r.eos && r.errors.empty()) {
      EXPECT_EQ(r.frames.size(), clips.ref.frames()) << "imported (zero-copy) or mapped";
    } else {
      // Measured on NVIDIA: neither importable (CUDA_ERROR_UNKNOWN) nor mappable (mmap fails) - a clear error.
      const auto e = r.element_errors();
      ASSERT_EQ(e.size(), 1u) << r.describe_errors();
      const bool clear = e[0].debug.find("neither be imported") != std::string::npos ||
                         e[0].debug.find("allow-copy=false") != std::string::npos;
      EXPECT_TRUE(clear) << e[0].debug;
    }
  }
}

}  // namespace
}  // namespace vmafx::test
