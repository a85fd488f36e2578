// SPDX-License-Identifier: LGPL-2.1-or-later
// The scorer with backend=hip against backend=cpu, exactly (==, every score of every frame): the public oracle clips
// present on this machine and the shipped sample pair, vmaf_v0.6.1 plus psnr, float_ssim and float_ms_ssim (the last
// two run on the CPU beside the GPU), threads 0 and 2, subsample 1 and 2, 8- and 10-bit; device-resident input (the
// planes copied to device memory by the test, MemoryKind::device views); and two planted pipeline defects
// (VMAFX_HIP_PLANT=clear_before_upload, skip_wait) that the same comparison must catch; libvmaf's options of psnr,
// float_ssim and float_ms_ssim on clips derived from the sample pair (option_runs.h), host and device frames. Without a device: backend=hip
// is a clean device_unavailable at Scorer::create and backend=auto scores on the CPU after exactly one notice.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "derived_clips.h"
#include "gpu_device.h"
#include "ladder_check.h"
#include "option_runs.h"
#include "support.h"
#include "vmafx/scorer.h"

namespace vmafx {
namespace {

// A clip pair in host memory.
struct Clip {
  std::string name;
  uint32_t w = 0, h = 0;
  unsigned bpc = 8;
  test::YuvClip ref, dist;
  std::string oracle;  // libvmaf's JSON for vmaf_v0.6.1, "" if none
};

Vendor test_vendor() {
  const char* v = std::getenv("VMAFX_HIP_VENDOR");
  if (v && !std::strcmp(v, "amd")) return Vendor::amd;
  if (v && !std::strcmp(v, "nvidia")) return Vendor::nvidia;
  return Vendor::auto_select;
}

int test_device_id() {
  const char* d = std::getenv("VMAFX_HIP_DEVICE");
  return d ? std::atoi(d) : -1;
}

bool have_device(std::string* why) {
  std::shared_ptr<hip::Device> dev;
  Status s = hip::test::test_device(&dev);
  if (!s) *why = s.to_string();
  return s.is_ok();
}

// The generated 4:2:0 pairs, the public pairs whose clips are present, and the shipped sample.
std::vector<std::unique_ptr<Clip>> load_clips(std::vector<std::string>* absent) {
  std::vector<std::unique_ptr<Clip>> clips;
  for (const auto& p : test::oracle_pairs_420(absent)) {
    auto c = std::make_unique<Clip>();
    c->name = p.name();
    c->w = p.width;
    c->h = p.height;
    c->bpc = p.bpc;
    FormatInfo fmt;
    EXPECT_TRUE(parse_pixel_format("420", p.bpc, &fmt).is_ok());
    EXPECT_TRUE(c->ref.open(p.ref_path(), p.width, p.height, fmt).is_ok()) << p.ref_path();
    EXPECT_TRUE(c->dist.open(p.dist_path(), p.width, p.height, fmt).is_ok()) << p.dist_path();
    if (test::file_exists(p.oracle_path("vmaf_v0.6.1"))) c->oracle = p.oracle_path("vmaf_v0.6.1");
    clips.push_back(std::move(c));
  }
  // The shipped sample pair: in this checkout, or (a build run from a copy of the tree elsewhere, as on the GPU
  // machine) beside the build directory or the working directory.
  std::string samples;
  for (const std::string& dir : {test::project_source_dir() + "/samples", std::string("../samples"),
                                std::string("samples")}) {
    if (test::file_exists(dir + "/sample_320x240_ref.yuv.gz")) {
      samples = dir;
      break;
    }
  }
  const std::string tmp = ::testing::TempDir() + "/vmafx_hip_sample";
  const std::string cmd = "mkdir -p " + tmp + " && gunzip -c " + samples + "/sample_320x240_ref.yuv.gz > " + tmp +
                          "/ref.yuv && gunzip -c " + samples + "/sample_320x240_dist.yuv.gz > " + tmp + "/dist.yuv";
  if (!samples.empty() && std::system(cmd.c_str()) == 0) {
    auto c = std::make_unique<Clip>();
    c->name = "sample_320x240";
    c->w = 320;
    c->h = 240;
    FormatInfo fmt;
    EXPECT_TRUE(parse_pixel_format("420", 8, &fmt).is_ok());
    EXPECT_TRUE(c->ref.open(tmp + "/ref.yuv", 320, 240, fmt).is_ok());
    EXPECT_TRUE(c->dist.open(tmp + "/dist.yuv", 320, 240, fmt).is_ok());
    const std::string oracle = samples + "/../tests/data/sample_320x240_dist.vmaf_v0.6.1.json";
    if (test::file_exists(oracle)) c->oracle = oracle;
    clips.push_back(std::move(c));
  } else {
    ADD_FAILURE() << "the sample pair (samples/sample_320x240_*.yuv.gz) was not found or not unpacked: " << cmd;
  }
  return clips;
}

struct ScoreRun {
  Status status;
  std::string backend;
  std::vector<std::string> names;
  std::vector<FrameScore> frames;
  std::vector<std::string> notices;
};

// Scores `refs` / `dists` with one configuration; every frame's FrameScore in order.
ScoreRun score(ScorerConfig cfg, const StreamGeometry& g, const std::vector<PictureView>& refs,
               const std::vector<PictureView>& dists) {
  ScoreRun r;
  cfg.on_notice = [&r](NoticeLevel, const std::string& m, const std::string&) { r.notices.push_back(m); };
  test::FrameLog log;
  cfg.on_frame = [&log](const FrameScore& fs) { log.add(fs); };
  std::unique_ptr<Scorer> scorer;
  r.status = Scorer::create(cfg, g, &scorer);
  if (!r.status) return r;
  r.backend = scorer->backend_description();
  r.names = scorer->score_names();
  for (size_t i = 0; i < refs.size(); ++i) {
    r.status = scorer->submit(test::frame_pair(refs[i], dists[i], int64_t(i) * 40, i));
    if (!r.status) return r;
  }
  r.status = scorer->flush();
  r.frames = log.frames();
  return r;
}

ScoreRun score(ScorerConfig cfg, const VideoGeometry& g, const std::vector<PictureView>& refs,
               const std::vector<PictureView>& dists) {
  return score(std::move(cfg), StreamGeometry{g, g}, refs, dists);
}

std::vector<PictureView> views(const test::YuvClip& c) {
  std::vector<PictureView> v;
  for (size_t i = 0; i < c.frames(); ++i) v.push_back(c.frame(i));
  return v;
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Counts the scores of `got` that differ from `want`; describes the first.
size_t count_differences(const ScoreRun& want, const ScoreRun& got, std::string* first) {
  size_t n = 0;
  if (want.names != got.names) {
    *first = "different score columns";
    return 1;
  }
  if (want.frames.size() != got.frames.size()) {
    *first = std::to_string(got.frames.size()) + " frames instead of " + std::to_string(want.frames.size());
    return 1;
  }
  for (size_t k = 0; k < want.frames.size(); ++k) {
    const FrameScore& a = want.frames[k];
    const FrameScore& b = got.frames[k];
    if (a.index != b.index || a.timestamp != b.timestamp) {
      if (!n++) *first = "frame " + std::to_string(k) + ": index/timestamp differ";
      continue;
    }
    for (size_t i = 0; i < a.values.size(); ++i) {
      if (same(a.values[i], b.values[i])) continue;
      if (!n++) {
        char buf[256];
        std::snprintf(buf, sizeof buf, "frame %llu %s: cpu %.17g, hip %.17g", (unsigned long long)a.index,
                      want.names[i].c_str(), a.values[i], b.values[i]);
        *first = buf;
      }
    }
  }
  return n;
}

ScorerConfig base_config(Backend b) {
  ScorerConfig cfg = test::scorer_config("vmaf_v0.6.1");
  cfg.backend = b;
  cfg.vendor = test_vendor();
  cfg.device_id = test_device_id();
  return cfg;
}

// Max |hip - libvmaf| per metric over a run (libvmaf prints 6 decimals: expect <= 5e-7 plus the CPU's own distance).
void print_oracle_distance(const Clip& c, const ScoreRun& hip) {
  if (c.oracle.empty()) return;
  test::Oracle o;
  if (!test::load_oracle(c.oracle, &o).is_ok() || o.frames.size() != hip.frames.size()) return;
  std::map<std::string, double> worst;
  for (size_t k = 0; k < o.frames.size(); ++k) {
    for (const auto& [metric, want] : o.frames[k]) {
      const double got = hip.frames[k].get(metric, hip.names);
      if (std::isnan(got)) continue;
      worst[metric] = std::max(worst[metric], std::abs(got - want));
    }
  }
  std::printf("  %s vs libvmaf's JSON, max |diff| per metric:", c.name.c_str());
  for (const auto& [m, d] : worst) std::printf(" %s %.3g;", m.c_str(), d);
  std::printf("\n");
}

// ---- no device (CI) ------------------------------------------------------------------------------------------

TEST(HipScorerNoDevice, HipBackendIsACleanErrorAtCreate) {
  std::string why;
  if (have_device(&why)) GTEST_SKIP() << "a device is present: the no-device path is shown on machines without one";
  ScorerConfig cfg = base_config(Backend::hip);
  std::unique_ptr<Scorer> scorer;
  test::FrameLog log;
  const Status s = test::make_scorer(cfg, {64, 48, 8, Chroma::k420}, &log, &scorer);
  EXPECT_EQ(s.code(), Errc::device_unavailable) << s.to_string();
  EXPECT_FALSE(s.message().empty());
  EXPECT_EQ(scorer, nullptr);
  std::printf("backend=hip without a device: %s\n", s.to_string().c_str());
}

TEST(HipScorerNoDevice, AutoFallsBackToCpuWithOneNotice) {
  std::string why;
  if (have_device(&why)) GTEST_SKIP() << "a device is present: the no-device path is shown on machines without one";
  std::vector<std::string> absent;
  auto clips = load_clips(&absent);
  ASSERT_FALSE(clips.empty());
  const Clip& c = *clips.back();  // the sample pair, always present
  const VideoGeometry g{c.w, c.h, uint8_t(c.bpc), Chroma::k420};
  ScorerConfig cpu_cfg = base_config(Backend::cpu);
  cpu_cfg.features = {{"psnr", {}}};
  ScorerConfig auto_cfg = base_config(Backend::auto_select);
  auto_cfg.features = {{"psnr", {}}};
  const ScoreRun want = score(cpu_cfg, g, views(c.ref), views(c.dist));
  const ScoreRun got = score(auto_cfg, g, views(c.ref), views(c.dist));
  ASSERT_OK(want.status);
  ASSERT_OK(got.status);
  EXPECT_EQ(got.backend, "cpu");
  ASSERT_EQ(got.notices.size(), 1u) << "exactly one notice";
  EXPECT_NE(got.notices[0].find("CPU"), std::string::npos) << got.notices[0];
  std::string first;
  EXPECT_EQ(count_differences(want, got, &first), 0u) << first;
  std::printf("backend=auto without a device: notice \"%s\"; %zu frames equal to backend=cpu\n",
              got.notices[0].c_str(), got.frames.size());
}

// ---- with a device -------------------------------------------------------------------------------------------

#define VMAFX_SCORER_DEVICE_OR_SKIP()                                           \
  do {                                                                          \
    std::string why_;                                                           \
    if (!have_device(&why_)) GTEST_SKIP() << "no GPU device: " << why_;        \
  } while (0)

TEST(HipScorer, HostFramesEqualCpuOnEveryClip) {
  VMAFX_SCORER_DEVICE_OR_SKIP();
  std::vector<std::string> absent;
  auto clips = load_clips(&absent);
  size_t compared = 0, runs = 0;
  for (const auto& cp : clips) {
    const Clip& c = *cp;
    const VideoGeometry g{c.w, c.h, uint8_t(c.bpc), Chroma::k420};
    const auto refs = views(c.ref), dists = views(c.dist);
    struct Variant {
      unsigned threads, subsample;
    };
    for (const Variant v : {Variant{0, 1}, Variant{2, 1}, Variant{0, 2}, Variant{2, 2}}) {
      ScorerConfig cpu_cfg = base_config(Backend::cpu), hip_cfg = base_config(Backend::hip);
      for (ScorerConfig* cfg : {&cpu_cfg, &hip_cfg}) {
        cfg->features = {{"psnr", {}}, {"float_ssim", {}}, {"float_ms_ssim", {}}};
        cfg->threads = v.threads;
        cfg->subsample = v.subsample;
      }
      const ScoreRun want = score(cpu_cfg, g, refs, dists);
      const ScoreRun got = score(hip_cfg, g, refs, dists);
      ASSERT_OK(want.status);
      ASSERT_OK(got.status);
      ASSERT_EQ(got.backend.rfind("hip: ", 0), 0u) << got.backend;
      std::string first;
      const size_t diffs = count_differences(want, got, &first);
      EXPECT_EQ(diffs, 0u) << c.name << " threads " << v.threads << " subsample " << v.subsample << ": " << diffs
                           << " scores differ; first: " << first;
      std::printf("%s (%ux%u %u-bit) threads %u subsample %u on %s: %zu frames x %zu scores, %zu differ\n",
                  c.name.c_str(), c.w, c.h, c.bpc, v.threads, v.subsample, got.backend.c_str(), got.frames.size(),
                  got.names.size(), diffs);
      if (v.threads == 0 && v.subsample == 1) print_oracle_distance(c, got);
      compared += got.frames.size();
      ++runs;
    }
  }
  std::string missing;
  for (const auto& a : absent) missing += " " + a;
  std::printf("%zu runs, %zu frames compared; public pairs NOT checked (clips absent):%s\n", runs, compared,
              missing.empty() ? " none" : missing.c_str());
  EXPECT_GT(runs, 0u);
}

// A clip's frames copied to device memory and handed to the scorer as device pictures.
struct DeviceClip {
  hip::DeviceBuffer ref, dist;
  std::vector<PictureView> refs, dists;
};

Status to_device(const std::shared_ptr<hip::Device>& dev, const test::YuvClip& clip, hip::DeviceBuffer* buf,
                 std::vector<PictureView>* out) {
  const size_t bytes = clip.frame_size() * clip.frames();
  VMAFX_TRY(hip::DeviceBuffer::create(dev, bytes, buf));
  VMAFX_TRY(dev->copy_async(hip::CopyKind::host_to_device, buf->data(), clip.frame_data(0), bytes));
  VMAFX_TRY(dev->synchronize());
  const uint8_t* host0 = clip.frame_data(0);
  for (size_t i = 0; i < clip.frames(); ++i) {
    PictureView v = clip.frame(i);
    v.memory = MemoryKind::device;
    v.device = dev->info().index;
    for (auto& p : v.planes)
      if (p.data) p.data = buf->as<uint8_t>() + (p.data - host0);
    out->push_back(v);
  }
  return Status::ok();
}

TEST(HipScorer, DeviceFramesEqualCpu) {
  VMAFX_SCORER_DEVICE_OR_SKIP();
  std::shared_ptr<hip::Device> dev;
  ASSERT_OK(hip::test::test_device(&dev));
  std::vector<std::string> absent;
  auto clips = load_clips(&absent);
  for (const auto& cp : clips) {
    const Clip& c = *cp;
    const VideoGeometry g{c.w, c.h, uint8_t(c.bpc), Chroma::k420};
    DeviceClip d;
    ASSERT_OK(to_device(dev, c.ref, &d.ref, &d.refs));
    ASSERT_OK(to_device(dev, c.dist, &d.dist, &d.dists));
    for (unsigned subsample : {1u, 2u}) {
      // Every feature asked for has a GPU kernel (float SSIM and MS-SSIM too): device pictures are read by all.
      ScorerConfig cpu_cfg = base_config(Backend::cpu), hip_cfg = base_config(Backend::hip);
      for (ScorerConfig* cfg : {&cpu_cfg, &hip_cfg}) {
        cfg->features = {{"psnr", {}}, {"float_ssim", {}}, {"float_ms_ssim", {}}};
        cfg->subsample = subsample;
      }
      const ScoreRun want = score(cpu_cfg, g, views(c.ref), views(c.dist));
      const ScoreRun got = score(hip_cfg, g, d.refs, d.dists);
      ASSERT_OK(want.status);
      ASSERT_TRUE(got.status.is_ok()) << c.name << ": " << got.status.to_string();
      std::string first;
      const size_t diffs = count_differences(want, got, &first);
      EXPECT_EQ(diffs, 0u) << c.name << " device frames, subsample " << subsample << ": first: " << first;
      std::printf("%s device frames, subsample %u: %zu frames x %zu scores, %zu differ\n", c.name.c_str(), subsample,
                  got.frames.size(), got.names.size(), diffs);
    }
  }
}

// Generated 4:2:0 frames of one size in host memory, and the same copied to device memory.
struct GeneratedClip {
  FormatInfo fmt;
  std::vector<std::vector<uint8_t>> data;
  std::vector<PictureView> host, device;
  std::vector<hip::DeviceBuffer> buffers;
};

// Gradients, a pattern moving with the frame number and seeded noise; every sample within the bit depth.
void generate_clip(const std::shared_ptr<hip::Device>& dev, uint32_t w, uint32_t h, unsigned bpc, unsigned frames,
                   uint32_t seed, GeneratedClip* c) {
  ASSERT_OK(parse_pixel_format("420", bpc, &c->fmt));
  PlaneLayout lay[3];
  size_t size = 0;
  const unsigned np = packed_layout(c->fmt, w, h, lay, &size);
  const unsigned bps = bpc > 8 ? 2 : 1, maxv = (1u << bpc) - 1;
  for (unsigned n = 0; n < frames; ++n) {
    std::vector<uint8_t> buf(size);
    uint32_t x32 = seed + 7919u * n;
    const size_t samples = size / bps;
    const size_t luma = size_t(w) * h;
    for (size_t i = 0; i < samples; ++i) {
      x32 = x32 * 1664525u + 1013904223u;
      const uint32_t x = uint32_t(i < luma ? i % w : (i - luma) % ((w + 1) / 2));
      const uint32_t y = uint32_t(i < luma ? i / w : ((i - luma) / ((w + 1) / 2)) % ((h + 1) / 2));
      unsigned v = ((x + 3 * n) * 3 + y * 2 + (((x + n) / 16 + y / 16) % 2) * 40) % 200 + 20 + ((x32 >> 27) & 15);
      v = std::min(maxv, v << (bpc - 8));
      if (bps == 1) {
        buf[i] = uint8_t(v);
      } else {
        buf[2 * i] = uint8_t(v & 0xff);
        buf[2 * i + 1] = uint8_t(v >> 8);
      }
    }
    c->data.push_back(std::move(buf));
  }
  for (unsigned n = 0; n < frames; ++n) {
    PictureView v;
    ASSERT_OK(make_picture_view(c->fmt, w, h, c->data[n].data(), size, lay, np, &v));
    c->host.push_back(v);
    hip::DeviceBuffer b;
    ASSERT_OK(hip::DeviceBuffer::create(dev, size, &b));
    ASSERT_OK(dev->copy_async(hip::CopyKind::host_to_device, b.data(), c->data[n].data(), size));
    PictureView dv = v;
    dv.memory = MemoryKind::device;
    dv.device = dev->info().index;
    for (auto& pl : dv.planes)
      if (pl.data) pl.data = b.as<uint8_t>() + (pl.data - c->data[n].data());
    c->device.push_back(dv);
    c->buffers.push_back(std::move(b));
  }
  ASSERT_OK(dev->synchronize());
}

// A distorted stream of another size than the reference's, scaled on the GPU (one scaler per frame lane) against
// the CPU scorer's scaling, bit for bit: vmaf_v0.6.1 and psnr (chroma scaled too), down and up, 8 and 10 bits, the
// default lanes and one lane, host frames and host and device frames mixed.
TEST(HipScorer, ScaledDistortedEqualsCpu) {
  VMAFX_SCORER_DEVICE_OR_SKIP();
  std::shared_ptr<hip::Device> dev;
  ASSERT_OK(hip::test::test_device(&dev));
  struct Case {
    uint32_t rw, rh, dw, dh;
    unsigned bpc, frames;
  };
  for (const Case& c : {Case{640, 360, 320, 180, 8, 13}, Case{480, 270, 720, 406, 8, 9},
                        Case{352, 288, 177, 143, 10, 9}, Case{1920, 1080, 1280, 720, 8, 10}}) {
    char what[128];
    std::snprintf(what, sizeof what, "%ux%u from %ux%u, %u-bit", c.rw, c.rh, c.dw, c.dh, c.bpc);
    GeneratedClip ref, dist;
    generate_clip(dev, c.rw, c.rh, c.bpc, c.frames, 11u + c.rw, &ref);
    generate_clip(dev, c.dw, c.dh, c.bpc, c.frames, 23u + c.dw, &dist);
    if (HasFatalFailure()) return;
    StreamGeometry g;
    g.ref = {c.rw, c.rh, uint8_t(c.bpc), Chroma::k420};
    g.dist = {c.dw, c.dh, uint8_t(c.bpc), Chroma::k420};
    ScorerConfig cpu_cfg = base_config(Backend::cpu);
    cpu_cfg.features = {{"psnr", {}}};
    const ScoreRun want = score(cpu_cfg, g, ref.host, dist.host);
    ASSERT_OK(want.status);
    std::vector<PictureView> mref, mdist;
    for (unsigned n = 0; n < c.frames; ++n) {
      mref.push_back(n % 3 == 1 ? ref.device[n] : ref.host[n]);
      mdist.push_back(n % 2 == 1 ? dist.device[n] : dist.host[n]);
    }
    for (unsigned lanes : {0u, 1u}) {
      for (int mixed = 0; mixed < 2; ++mixed) {
        ScorerConfig hip_cfg = base_config(Backend::hip);
        hip_cfg.features = {{"psnr", {}}};
        hip_cfg.tuning.lanes = lanes;
        const ScoreRun got = score(hip_cfg, g, mixed ? mref : ref.host, mixed ? mdist : dist.host);
        ASSERT_TRUE(got.status.is_ok()) << what << ": " << got.status.to_string();
        std::string first;
        const size_t diffs = count_differences(want, got, &first);
        EXPECT_EQ(diffs, 0u) << what << ", " << got.backend << (mixed ? ", device frames mixed in" : "")
                             << ": first: " << first;
        std::printf("%s, %s%s: %zu frames x %zu scores, %zu differ\n", what, got.backend.c_str(),
                    mixed ? ", device frames mixed in" : ", host frames", got.frames.size(), got.names.size(), diffs);
      }
    }
  }
}

// A ladder against one SharedReference on the GPU (tests/support/ladder_check.h: four renditions, one smaller, one
// joining at reference frame 3) equals a GPU scorer of its own per rendition and the CPU's, bit for bit, frame by
// frame and pooled; the reference is copied to the device once per frame (counted) and the renditions upload their
// own pictures only; motion runs once per reference frame.
TEST(HipScorer, SharedReferenceLadderEqualsOwnRunsWithOneUploadPerReferenceFrame) {
  VMAFX_SCORER_DEVICE_OR_SKIP();
  struct Case {
    uint32_t w, h;
    unsigned frames;
  };
  for (const Case& c : {Case{320, 240, 12}, Case{1920, 1080, 8}}) {
    const test::ladder::Clip ref = test::ladder::reference(c.w, c.h, c.frames);
    const auto rends = test::ladder::four(ref);
    // With psnr the device copy holds chroma; without, the luma alone.
    for (unsigned lanes : {0u, 1u}) {
      ScorerConfig cfg = base_config(Backend::hip);
      cfg.features = {{"float_motion", {}}};
      if (lanes == 0) cfg.features.push_back({"psnr", {}});
      cfg.tuning.lanes = lanes;
      ScorerConfig cpu = cfg;
      cpu.backend = Backend::cpu;
      const test::ladder::LadderRun lr = test::ladder::shared(cfg, ref, rends);
      ASSERT_EQ(lr.runs.size(), rends.size());
      size_t differ = 0;
      for (size_t k = 0; k < rends.size(); k++) {
        const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h) + " lanes " + std::to_string(lanes) +
                                 " rendition " + std::to_string(k);
        const test::ladder::Run own = test::ladder::alone(cfg, ref, rends[k]);
        const test::ladder::Run on_cpu = test::ladder::alone(cpu, ref, rends[k]);
        ASSERT_EQ(own.frames.size(), rends[k].clip.frames.size()) << what;
        differ += test::ladder::compare(own, lr.runs[k], what + ", GPU alone");
        differ += test::ladder::compare(on_cpu, lr.runs[k], what + ", CPU alone");
        const uint64_t local = rends[k].first == 0 ? 0 : 1;
        EXPECT_EQ(lr.runs[k].counters.reference_feature_frames, local) << what;
        EXPECT_EQ(lr.runs[k].counters.shared_frames, rends[k].clip.frames.size() - local) << what;
        // Alone, both pictures are uploaded; shared, the rendition's only (the same size for rendition 0 and 1).
        EXPECT_GT(own.counters.uploaded_bytes, 0u) << what;
        if (k < 2) {
          EXPECT_LT(lr.runs[k].counters.uploaded_bytes, own.counters.uploaded_bytes * 6 / 10) << what;
          EXPECT_GT(lr.runs[k].counters.uploaded_bytes, own.counters.uploaded_bytes * 4 / 10) << what;
        }
        std::printf("%s: %zu frames, uploaded %llu bytes alone, %llu shared; reference features on %llu frames "
                    "here, %llu from the shared reference\n",
                    what.c_str(), own.frames.size(), (unsigned long long)own.counters.uploaded_bytes,
                    (unsigned long long)lr.runs[k].counters.uploaded_bytes,
                    (unsigned long long)lr.runs[k].counters.reference_feature_frames,
                    (unsigned long long)lr.runs[k].counters.shared_frames);
      }
      EXPECT_EQ(differ, 0u);
      EXPECT_EQ(lr.shared.frames, c.frames);
      EXPECT_EQ(lr.shared.uploads, c.frames);
      // The copy's rows are 256 bytes apart: the luma, and with psnr both chroma planes.
      auto pitched = [](uint32_t w, uint32_t h) { return uint64_t((w + 255) / 256 * 256) * h; };
      const uint64_t per_frame = pitched(c.w, c.h) + (lanes == 0 ? 2 * pitched(c.w / 2, c.h / 2) : 0);
      EXPECT_EQ(lr.shared.uploaded_bytes, uint64_t(c.frames) * per_frame);
      EXPECT_EQ(lr.shared.feature_frames, c.frames);
      std::printf("%ux%u lanes %u on %s: shared reference: %llu frames, %llu uploads (%llu bytes), motion on %llu "
                  "frames; %zu values differ\n",
                  c.w, c.h, lanes, lr.backend.c_str(), (unsigned long long)lr.shared.frames,
                  (unsigned long long)lr.shared.uploads, (unsigned long long)lr.shared.uploaded_bytes,
                  (unsigned long long)lr.shared.feature_frames, differ);
    }
  }
}

// libvmaf's options of psnr (enable_apsnr, reduced_hbd_peak, min_sse, enable_mse, enable_chroma), float_ssim
// (enable_db, clip_db, enable_lcs, scale) and float_ms_ssim (enable_db, clip_db, enable_lcs): every option run of
// option_runs.h on every clip derived from the sample pair (8-, 10-, 12-, 16-bit; 4:2:0, 4:2:2, 4:4:4; identical
// pairs; 640x480), backend=hip equal to backend=cpu bit for bit, the aggregate metrics included, with every feature on
// the GPU (none left to the CPU). The CPU's equality with libvmaf is test_cpu_psnr_ssim's.
TEST(HipScorer, FeatureOptionsEqualCpuOnTheGpu) {
  VMAFX_SCORER_DEVICE_OR_SKIP();
  size_t runs = 0, frames = 0;
  for (const test::OptionRun& run : test::option_runs()) {
    for (const char* name : run.clips) {
      const test::DerivedClip* c = test::find_derived_clip(name);
      ASSERT_NE(c, nullptr);
      const std::string what = std::string(name) + "/" + run.name + " (" + test::libvmaf_args(run) + ")";
      test::PairClips clips;
      ASSERT_OK(test::open_derived_clip(*c, &clips));
      test::OptionRunResult want, got;
      ASSERT_OK(test::score_option_run(run, *c, clips, Backend::cpu, run.threads, &want));
      const Status s = test::score_option_run(run, *c, clips, Backend::hip, run.threads, &got);
      ASSERT_TRUE(s.is_ok()) << what << ": " << s.to_string();
      EXPECT_EQ(got.backend.rfind("hip: ", 0), 0u) << what << ": " << got.backend;
      EXPECT_EQ(got.backend.find("on the CPU"), std::string::npos) << what << ": " << got.backend;
      const std::string diff = test::compare_results(want, got);
      EXPECT_TRUE(diff.empty()) << what << ": " << diff;
      EXPECT_FALSE(want.frames.empty()) << what;
      std::printf("%s: %zu frames x %zu scores, %zu aggregates: %s\n", what.c_str(), got.frames.size(),
                  got.names.size(), got.aggregates.size(), diff.empty() ? "equal" : diff.c_str());
      frames += got.frames.size();
      ++runs;
    }
  }
  std::printf("%zu runs, %zu frames: GPU equal to CPU with every option\n", runs, frames);
  EXPECT_EQ(runs, 31u);
}

// The same options on device pictures (the scorer takes them only when no feature runs on the CPU).
TEST(HipScorer, FeatureOptionsOnDeviceFramesEqualCpu) {
  VMAFX_SCORER_DEVICE_OR_SKIP();
  std::shared_ptr<hip::Device> dev;
  ASSERT_OK(hip::test::test_device(&dev));
  for (const char* name : {"d10", "d16", "sample_same"}) {
    const test::DerivedClip* c = test::find_derived_clip(name);
    ASSERT_NE(c, nullptr);
    test::PairClips clips;
    ASSERT_OK(test::open_derived_clip(*c, &clips));
    DeviceClip d;
    ASSERT_OK(to_device(dev, clips.ref, &d.ref, &d.refs));
    ASSERT_OK(to_device(dev, clips.dist, &d.dist, &d.dists));
    for (const char* run_name : {"ctc", "mse"}) {
      const test::OptionRun* run = nullptr;
      for (const auto& r : test::option_runs())
        if (std::strcmp(r.name, run_name) == 0) run = &r;
      ASSERT_NE(run, nullptr);
      test::OptionRunResult want;
      ASSERT_OK(test::score_option_run(*run, *c, clips, Backend::cpu, 0, &want));
      ScorerConfig cfg = test::scorer_config("");
      for (const char* f : run->features) cfg.features.push_back(test::parse_feature_arg(f));
      cfg.backend = Backend::hip;
      cfg.vendor = test_vendor();
      cfg.device_id = test_device_id();
      test::FrameLog log;
      std::unique_ptr<Scorer> scorer;
      ASSERT_OK(test::make_scorer(cfg, test::derived_geometry(*c), &log, &scorer));
      for (size_t i = 0; i < d.refs.size(); ++i)
        ASSERT_OK(scorer->submit(test::frame_pair(d.refs[i], d.dists[i], int64_t(i), i)));
      ASSERT_OK(scorer->flush());
      test::OptionRunResult got;
      got.backend = scorer->backend_description();
      got.names = scorer->score_names();
      got.frames = log.frames();
      got.aggregates = scorer->collector().aggregates();
      const std::string diff = test::compare_results(want, got);
      EXPECT_TRUE(diff.empty()) << name << "/" << run_name << " device frames: " << diff;
      std::printf("%s/%s device frames: %zu frames, %s\n", name, run_name, got.frames.size(),
                  diff.empty() ? "equal" : diff.c_str());
    }
  }
}

// The planted defects must change scores (or fail); the same run without them must not.
TEST(HipScorer, PlantedPipelineDefectsAreCaught) {
  VMAFX_SCORER_DEVICE_OR_SKIP();
  std::vector<std::string> absent;
  auto clips = load_clips(&absent);
  ASSERT_FALSE(clips.empty());
  // The first public pair present (larger frames than the sample), else the sample.
  const Clip& c = *clips.front();
  const VideoGeometry g{c.w, c.h, uint8_t(c.bpc), Chroma::k420};
  const auto refs = views(c.ref), dists = views(c.dist);
  ScorerConfig cpu_cfg = base_config(Backend::cpu), hip_cfg = base_config(Backend::hip);
  cpu_cfg.features = hip_cfg.features = {{"psnr", {}}};
  const ScoreRun want = score(cpu_cfg, g, refs, dists);
  ASSERT_OK(want.status);
  for (const char* plant : {"clear_before_upload", "skip_wait"}) {
    ASSERT_EQ(setenv("VMAFX_HIP_PLANT", plant, 1), 0);
    const ScoreRun planted = score(hip_cfg, g, refs, dists);
    ASSERT_EQ(unsetenv("VMAFX_HIP_PLANT"), 0);
    std::string first;
    const size_t diffs = planted.status ? count_differences(want, planted, &first) : 0;
    EXPECT_TRUE(!planted.status.is_ok() || diffs > 0)
        << "planted defect " << plant << " on " << c.name << " was not seen: every score equals the CPU's";
    std::printf("VMAFX_HIP_PLANT=%s on %s: %s\n", plant, c.name.c_str(),
                planted.status ? (std::to_string(diffs) + " scores differ; first: " + first).c_str()
                               : ("failed: " + planted.status.to_string()).c_str());
    const ScoreRun clean = score(hip_cfg, g, refs, dists);
    ASSERT_OK(clean.status);
    EXPECT_EQ(count_differences(want, clean, &first), 0u) << "without the plant: " << first;
  }
}

}  // namespace
}  // namespace vmafx
