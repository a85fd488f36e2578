// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafxhip behind NVDEC decoders on an NVIDIA GPU (GStreamer 1.22's nvcodec: nvh264dec / nvh265dec give
// video/x-raw(memory:CUDAMemory)), both streams decoded on the GPU from the streams scripts/make-nvdec-streams.sh
// makes (VMAFX_NVDEC_DIR, default <shared>/nvdec):
//   - zero-copy: `nvh264dec ! vmafxhip backend=hip allow-copy=false` scores every frame, every field bit for bit as
//     the system-memory path (`nvh264dec ! video/x-raw,format=NV12 ! vmafxhip`), frames-copied 0, cuda-stats
//     in-place = both streams' frames: the decoders took the element's CUDA context (the element answered their
//     context query), else allow-copy=false would have failed;
//   - HEVC the same where nvh265dec and the HEVC stream exist;
//   - decoders given CUDA contexts of their own by the application (GStreamer's gst_cuda_context_new: cuCtxCreate):
//     the element adopts the first it meets (the engine runs on it) and copies the other stream device to device,
//     scores unchanged, copies counted; with allow-copy=false the second context is an error naming both contexts;
//   - backend=cpu: the frames are downloaded (counted), scores unchanged; with allow-copy=false an error naming why.
//   - a feature the GPU has no implementation of for its options (float_adm with adm_p_norm 2.5) runs on the CPU
//     beside the GPU: the CUDA frames are downloaded with a warning naming it, scores unchanged; allow-copy=false an
//     error naming it. SSIM and MS-SSIM run on the GPU: with them the frames are still read in place.
// Skips (exit 77) without a GPU, without nvh264dec or without the streams.
#include <dlfcn.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gst_harness.h"
#include "support.h"

namespace vmafx::test {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string nvdec_dir() {
  if (const char* d = std::getenv("VMAFX_NVDEC_DIR")) return d;
  std::string t = shared_testdata_dir();
  const size_t slash = t.find_last_of('/');
  return (slash == std::string::npos ? std::string(".") : t.substr(0, slash)) + "/nvdec";
}

bool has_factory(const char* name) {
  GstElementFactory* f = gst_element_factory_find(name);
  if (f) gst_object_unref(f);
  return f != nullptr;
}

// A skip reason, or "" when the GPU pipeline can run.
std::string nvdec_ready(const std::vector<std::string>& files, const char* decoder = "nvh264dec") {
  std::string why;
  if (!gst_ready(&why)) return why;
  if (!has_factory(decoder)) return std::string(decoder) + " is not registered (no nvcodec plugin or no NVDEC GPU)";
  for (const auto& f : files)
    if (!file_exists(f)) return "stream " + f + " is absent (scripts/make-nvdec-streams.sh makes it)";
  return "";
}

std::string decode(const std::string& path, const std::string& dec_name, const std::string& tail) {
  const bool hevc = path.size() > 5 && path.compare(path.size() - 5, 5, ".h265") == 0;
  return "filesrc location=\"" + path + "\" ! " + (hevc ? "h265parse ! nvh265dec" : "h264parse ! nvh264dec") +
         " name=" + dec_name + " ! " + tail;
}

struct NvRun {
  RunResult r;
  guint64 frames_copied = 0;
  std::string stats;
  double wall_s = 0;
};

NvRun run_nv(const std::string& ref, const std::string& dist, bool system_memory, const std::string& props,
             const std::function<void(GstElement*)>& setup = {}) {
  const std::string sys = system_memory ? "video/x-raw,format=NV12 ! " : "";
  const std::string launch = decode(ref, "rdec", sys + "v.ref_sink ") + decode(dist, "ddec", sys + "v.dist_sink ") +
                             "vmafxhip name=v psnr=true " + props + " ! fakesink";
  NvRun out;
  RunOptions opt;
  opt.setup = setup;
  opt.on_frame = [&](GstElement* pipeline, const GstStructure*) {
    GstElement* v = gst_bin_get_by_name(GST_BIN(pipeline), "v");
    GstStructure* st = nullptr;
    g_object_get(v, "frames-copied", &out.frames_copied, "cuda-stats", &st, nullptr);
    if (st) {
      gchar* s = gst_structure_to_string(st);
      out.stats = s;
      g_free(s);
      gst_structure_free(st);
    }
    gst_object_unref(v);
  };
  const gint64 t0 = g_get_monotonic_time();
  out.r = run_pipeline(launch, opt);
  out.wall_s = double(g_get_monotonic_time() - t0) / 1e6;
  return out;
}

guint64 stat_of(const std::string& stats, const std::string& field) {
  GstStructure* s = gst_structure_from_string(stats.c_str(), nullptr);
  if (!s) return G_MAXUINT64;
  const guint64 v = get_uint64(s, field.c_str());
  gst_structure_free(s);
  return v;
}

// Every score field of every frame identical (doubles bit for bit); prints the count.
void expect_identical(const RunResult& want, const RunResult& got, const std::string& what) {
  ASSERT_EQ(want.frames.size(), got.frames.size()) << what << ": " << got.describe_errors();
  size_t fields = 0, differ = 0;
  for (size_t i = 0; i < want.frames.size(); i++) {
    const GstStructure* a = want.frames[i].get();
    const GstStructure* b = got.frames[i].get();
    for (int k = 0; k < gst_structure_n_fields(a); k++) {
      const char* f = gst_structure_nth_field_name(a, k);
      if (is_timing_field(f)) continue;
      fields++;
      const double x = get_double(a, f), y = get_double(b, f);
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) {
        if (differ++ == 0) ADD_FAILURE() << what << ": frame " << i << " " << f << ": " << x << " vs " << y;
      }
    }
  }
  std::printf("%s: %zu frames, %zu fields compared, %zu differ\n", what.c_str(), want.frames.size(), fields, differ);
  EXPECT_EQ(differ, 0u) << what;
}

const std::string kRef = "ref_1080p.h264", kDist = "dist_1080p.h264", kDistHevc = "dist_1080p.h265";

TEST(GstCuda, Nvh264decZeroCopyEqualsSystemMemory) {
  const std::string ref = nvdec_dir() + "/" + kRef, dist = nvdec_dir() + "/" + kDist;
  const std::string skip = nvdec_ready({ref, dist});
  if (!skip.empty()) GTEST_SKIP() << skip;
  const NvRun sys = run_nv(ref, dist, true, "backend=hip");
  ASSERT_TRUE(sys.r.eos) << sys.r.describe_errors();
  const NvRun zc = run_nv(ref, dist, false, "backend=hip allow-copy=false");
  ASSERT_TRUE(zc.r.eos) << zc.r.describe_errors();
  ASSERT_GT(sys.r.frames.size(), 0u);
  expect_identical(sys.r, zc.r, "nvh264dec CUDAMemory zero-copy vs system memory, 1080p");
  EXPECT_EQ(zc.frames_copied, 0u);
  const guint64 n = zc.r.frames.size();
  EXPECT_EQ(stat_of(zc.stats, "in-place"), 2 * n) << zc.stats;
  EXPECT_EQ(stat_of(zc.stats, "device-copies"), 0u) << zc.stats;
  EXPECT_EQ(stat_of(zc.stats, "host-copies"), 0u) << zc.stats;
  EXPECT_TRUE(sys.stats.empty()) << "the system-memory run has no CUDA input: " << sys.stats;
  size_t said = 0;
  for (const auto& m : zc.r.infos)
    if (contains(m.text, "CUDA frames are read on the GPU")) {
      said++;
      std::printf("info: %s\n", m.text.c_str());
    }
  EXPECT_EQ(said, 1u);
  std::printf("zero-copy: %zu frames in %.2f s; system memory: %.2f s; cuda-stats %s\n", zc.r.frames.size(),
              zc.wall_s, sys.wall_s, zc.stats.c_str());
}

TEST(GstCuda, Nvh265decZeroCopyEqualsSystemMemory) {
  const std::string ref = nvdec_dir() + "/" + kRef, dist = nvdec_dir() + "/" + kDistHevc;
  std::string skip = nvdec_ready({ref, dist});
  if (skip.empty() && !has_factory("nvh265dec")) skip = "nvh265dec is not registered";
  if (!skip.empty()) GTEST_SKIP() << skip;
  const NvRun sys = run_nv(ref, dist, true, "backend=hip");
  const NvRun zc = run_nv(ref, dist, false, "backend=hip allow-copy=false");
  ASSERT_TRUE(sys.r.eos) << sys.r.describe_errors();
  ASSERT_TRUE(zc.r.eos) << zc.r.describe_errors();
  expect_identical(sys.r, zc.r, "nvh265dec (distorted) + nvh264dec (reference) zero-copy vs system memory");
  EXPECT_EQ(zc.frames_copied, 0u);
  EXPECT_EQ(stat_of(zc.stats, "in-place"), 2 * guint64(zc.r.frames.size())) << zc.stats;
}

// GStreamer's own context constructor (cuCtxCreate), from its CUDA library.
struct GstCudaApi {
  gboolean (*load_library)() = nullptr;
  GstObject* (*context_new)(guint device_id) = nullptr;
  GstContext* (*context_new_cuda_context)(GstObject* ctx) = nullptr;
  bool ok() const { return load_library && context_new && context_new_cuda_context && load_library(); }
};
GstCudaApi gst_cuda_api() {
  GstCudaApi a;
  void* h = dlopen("libgstcuda-1.0.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!h) return a;
  a.load_library = reinterpret_cast<gboolean (*)()>(dlsym(h, "gst_cuda_load_library"));
  a.context_new = reinterpret_cast<GstObject* (*)(guint)>(dlsym(h, "gst_cuda_context_new"));
  a.context_new_cuda_context = reinterpret_cast<GstContext* (*)(GstObject*)>(dlsym(h, "gst_context_new_cuda_context"));
  return a;
}

TEST(GstCuda, DecodersWithTheirOwnContextsAreAdoptedOrCopied) {
  const std::string ref = nvdec_dir() + "/" + kRef, dist = nvdec_dir() + "/" + kDist;
  const std::string skip = nvdec_ready({ref, dist});
  if (!skip.empty()) GTEST_SKIP() << skip;
  const GstCudaApi api = gst_cuda_api();
  if (!api.ok()) GTEST_SKIP() << "libgstcuda-1.0.so.0 lacks gst_cuda_context_new";
  // The application gives each decoder a context of its own (two cuCtxCreate contexts of the same GPU).
  auto own_contexts = [&](GstElement* pipeline) {
    for (const char* name : {"rdec", "ddec"}) {
      GstObject* ctx = api.context_new(0);
      ASSERT_NE(ctx, nullptr);
      GstContext* c = api.context_new_cuda_context(ctx);
      GstElement* dec = gst_bin_get_by_name(GST_BIN(pipeline), name);
      gst_element_set_context(dec, c);
      gst_object_unref(dec);
      gst_context_unref(c);
      gst_object_unref(ctx);
    }
  };
  const NvRun sys = run_nv(ref, dist, true, "backend=hip");
  ASSERT_TRUE(sys.r.eos) << sys.r.describe_errors();
  const NvRun two = run_nv(ref, dist, false, "backend=hip", own_contexts);
  ASSERT_TRUE(two.r.eos) << two.r.describe_errors();
  expect_identical(sys.r, two.r, "decoders on two contexts of their own (one adopted, one copied) vs system memory");
  const guint64 n = two.r.frames.size();
  const guint64 in_place = stat_of(two.stats, "in-place"), copies = stat_of(two.stats, "device-copies");
  EXPECT_EQ(in_place + copies, 2 * n) << two.stats;
  EXPECT_GE(copies, n) << "one stream's context cannot be the engine's: " << two.stats;
  EXPECT_EQ(two.frames_copied, copies);
  std::printf("own contexts: in-place %" G_GUINT64_FORMAT " (%s), device copies %" G_GUINT64_FORMAT "; %s\n", in_place,
              in_place == n ? "the first decoder's context adopted" : "no context adopted: the GPU was already open",
              copies, two.stats.c_str());
  for (const auto& w : two.r.warnings)
    if (contains(w.text, "do not share a CUDA context")) std::printf("warning: %s\n", w.text.c_str());

  const NvRun strict = run_nv(ref, dist, false, "backend=hip allow-copy=false", own_contexts);
  EXPECT_FALSE(strict.r.eos);
  const std::vector<BusMessage> errs = strict.r.element_errors();
  ASSERT_FALSE(errs.empty()) << "two foreign contexts with allow-copy=false must fail";
  const std::string all = errs[0].text + " " + errs[0].debug;
  EXPECT_TRUE(contains(all, "do not share a CUDA context") && contains(all, "allow-copy=false")) << all;
  std::printf("allow-copy=false: %s | %s\n", errs[0].text.c_str(), errs[0].debug.c_str());
}

TEST(GstCuda, CpuBackendDownloadsCudaFrames) {
  const std::string ref = nvdec_dir() + "/" + kRef, dist = nvdec_dir() + "/" + kDist;
  const std::string skip = nvdec_ready({ref, dist});
  if (!skip.empty()) GTEST_SKIP() << skip;
  const NvRun gpu = run_nv(ref, dist, false, "backend=hip allow-copy=false");
  const NvRun cpu = run_nv(ref, dist, false, "backend=cpu");
  ASSERT_TRUE(gpu.r.eos) << gpu.r.describe_errors();
  ASSERT_TRUE(cpu.r.eos) << cpu.r.describe_errors();
  expect_identical(gpu.r, cpu.r, "CUDA frames: GPU in place vs CPU after download");
  EXPECT_EQ(stat_of(cpu.stats, "host-copies"), 2 * guint64(cpu.r.frames.size())) << cpu.stats;
  const NvRun strict = run_nv(ref, dist, false, "backend=cpu allow-copy=false");
  const std::vector<BusMessage> errs = strict.r.element_errors();
  ASSERT_FALSE(errs.empty());
  EXPECT_TRUE(contains(errs[0].text + errs[0].debug, "the scorer runs on the CPU")) << errs[0].debug;
}

TEST(GstCuda, OnlyFeaturesWithoutAGpuImplementationMakeTheFramesDownload) {
  const std::string ref = nvdec_dir() + "/" + kRef, dist = nvdec_dir() + "/" + kDist;
  const std::string skip = nvdec_ready({ref, dist});
  if (!skip.empty()) GTEST_SKIP() << skip;
  // SSIM and MS-SSIM have GPU implementations: read in place, nothing copied.
  const NvRun ssim = run_nv(ref, dist, false, "backend=hip allow-copy=false ssim=true ms-ssim=true");
  ASSERT_TRUE(ssim.r.eos) << ssim.r.describe_errors();
  EXPECT_EQ(ssim.frames_copied, 0u);
  EXPECT_EQ(stat_of(ssim.stats, "in-place"), 2 * guint64(ssim.r.frames.size())) << ssim.stats;
  // float_adm with adm_p_norm other than 3 runs on the CPU beside the GPU: the frames are downloaded, said once.
  const std::string cpu_feature = "backend=hip features=\"float_adm=adm_p_norm=2.5\"";
  const NvRun sys = run_nv(ref, dist, true, cpu_feature);
  const NvRun down = run_nv(ref, dist, false, cpu_feature);
  ASSERT_TRUE(sys.r.eos) << sys.r.describe_errors();
  ASSERT_TRUE(down.r.eos) << down.r.describe_errors();
  expect_identical(sys.r, down.r, "float_adm (CPU) beside the GPU: CUDA frames downloaded vs system memory");
  const guint64 n = down.r.frames.size();
  EXPECT_EQ(stat_of(down.stats, "host-copies"), 2 * n) << down.stats;
  EXPECT_EQ(stat_of(down.stats, "dist-host-copies"), n) << down.stats;
  EXPECT_EQ(down.frames_copied, 2 * n);
  size_t warned = 0;
  for (const auto& w : down.r.warnings)
    if (contains(w.text, "CUDA frames are downloaded into system memory") && contains(w.text, "float_adm")) warned++;
  EXPECT_EQ(warned, 1u) << down.stats;
  const NvRun strict = run_nv(ref, dist, false, cpu_feature + " allow-copy=false");
  EXPECT_FALSE(strict.r.eos);
  const std::vector<BusMessage> errs = strict.r.element_errors();
  ASSERT_FALSE(errs.empty()) << "a download with allow-copy=false must fail";
  EXPECT_TRUE(contains(errs[0].text + errs[0].debug, "float_adm")) << errs[0].debug;
  std::printf("float_adm on the CPU: %" G_GUINT64_FORMAT " frames downloaded; %s\n", down.frames_copied,
              down.stats.c_str());
}

}  // namespace
}  // namespace vmafx::test
