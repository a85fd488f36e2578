// SPDX-License-Identifier: LGPL-2.1-or-later
// psnr_hvs on the GPU (hip/psnr_hvs_gpu.h) against the CPU reference, bit for bit (NaN where the CPU's is NaN):
//   - every layout of psnr_hvs_test_util.h (8 to 12 bits; 4:2:0, 4:2:2, 4:4:4; sizes that are not multiples of 7
//     or 8; planes without a block; P010 words, interleaved chroma, odd pitches), plane errors and the four scores;
//   - several frames in flight in different slots; the kernel compiled at run time;
//   - the scorer with backend=hip against backend=cpu, every frame of the sample pair and of the public pairs in
//     ../shared (skipped when absent);
//   - refusals (16 bits, 4:0:0, planes of another size).
// Skips (exit 77) without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "gpu_device.h"
#include "hip/psnr_hvs_gpu.h"
#include "psnr_hvs_test_util.h"
#include "support.h"
#include "vmafx/scorer.h"

namespace vmafx::hip {
namespace {

using psnr_hvs_test::HostPicture;
using psnr_hvs_test::Layout;

bool same(double a, double b) { return psnr_hvs_test::same_bits(a, b) || (std::isnan(a) && std::isnan(b)); }

// A host plane in device memory (its own pitch plus 3, starting one byte in); interleaved chroma keeps its step.
struct GpuPlane {
  DeviceBuffer buffer;
  DevicePlane view;
};

Status upload(const std::shared_ptr<Device>& dev, const psnr_hvs_test::HostPlane& p, GpuPlane* out) {
  const size_t row = size_t(p.w ? p.w : 1) * p.step * p.word;
  const size_t pitch = row + 3;
  const uint32_t rows = p.h ? p.h : 1;
  VMAFX_TRY(DeviceBuffer::create(dev, pitch * rows + 8, &out->buffer));
  uint8_t* base = out->buffer.as<uint8_t>() + 1;
  VMAFX_TRY(dev->copy_2d_async(
      {CopyKind::host_to_device, base, pitch, p.bytes.data() + p.offset, p.pitch, row, rows}));
  out->view = {base, pitch, p.w, p.h, p.word, p.shift, p.step};
  return Status::ok();
}

struct GpuPicture {
  GpuPlane planes[3];
  DevicePlane views[3];
};

Status upload(const std::shared_ptr<Device>& dev, const HostPicture& h, GpuPicture* out) {
  for (unsigned p = 0; p < 3; p++) {
    VMAFX_TRY(upload(dev, h.planes[p], &out->planes[p]));
    out->views[p] = out->planes[p].view;
  }
  return Status::ok();
}

// Compares slot `slot` of `g` with the CPU's result; counts the values compared.
void expect_equal(PsnrHvsGpu& g, unsigned slot, const psnr_hvs_test::CpuResult& c, const std::string& what,
                  unsigned* values) {
  for (unsigned p = 0; p < 3; p++) {
    const float e = g.plane_error(slot, p);
    EXPECT_TRUE(same(e, c.error[p])) << what << " plane " << p << ": gpu " << e << ", cpu " << c.error[p];
  }
  double out[4];
  ASSERT_OK(g.finish(slot, out));
  for (int i = 0; i < 4; i++) {
    EXPECT_TRUE(same(out[i], c.scores[i])) << what << " score " << i << ": gpu " << out[i] << ", cpu " << c.scores[i];
    (*values)++;
  }
}

TEST(HipPsnrHvs, EqualsCpuOnEveryLayout) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  unsigned values = 0, layouts = 0;
  for (const Layout& l : psnr_hvs_test::layouts()) {
    SCOPED_TRACE(l.name);
    std::unique_ptr<PsnrHvsGpu> g;
    ASSERT_OK(PsnrHvsGpu::create(dev, l.w, l.h, l.bpc, l.chroma, 1, &g));
    for (uint32_t seed = 1; seed <= 3; seed++) {
      const HostPicture r = psnr_hvs_test::make_picture(l, false, seed);
      const HostPicture d = psnr_hvs_test::make_picture(l, true, seed);
      GpuPicture gr, gd;
      ASSERT_OK(upload(dev, r, &gr));
      ASSERT_OK(upload(dev, d, &gd));
      ASSERT_OK(g->enqueue_planes(gr.views, gd.views, 0));
      ASSERT_OK(dev->synchronize());
      expect_equal(*g, 0, psnr_hvs_test::cpu_scores(r, d, l.bpc), std::string(l.name) + " seed " +
                   std::to_string(seed), &values);
    }
    layouts++;
  }
  std::printf("  %u layouts x 3 seeds: %u scores equal to the CPU's\n", layouts, values);
}

// Frames in flight: slots 0..3 enqueued before any finish; each slot keeps its own read-back.
TEST(HipPsnrHvs, SlotsInFlightKeepTheirFrames) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Layout& l = psnr_hvs_test::layouts()[2];  // 4:2:2 10-bit
  std::unique_ptr<PsnrHvsGpu> g;
  ASSERT_OK(PsnrHvsGpu::create(dev, l.w, l.h, l.bpc, l.chroma, 4, &g));
  std::vector<psnr_hvs_test::CpuResult> want;
  std::vector<GpuPicture> gr(4), gd(4);
  for (unsigned s = 0; s < 4; s++) {
    const HostPicture r = psnr_hvs_test::make_picture(l, false, 10 + s);
    const HostPicture d = psnr_hvs_test::make_picture(l, true, 10 + s);
    ASSERT_OK(upload(dev, r, &gr[s]));
    ASSERT_OK(upload(dev, d, &gd[s]));
    ASSERT_OK(g->enqueue_planes(gr[s].views, gd[s].views, s));
    want.push_back(psnr_hvs_test::cpu_scores(r, d, l.bpc));
  }
  ASSERT_OK(dev->synchronize());
  unsigned values = 0;
  for (unsigned s = 0; s < 4; s++) expect_equal(*g, s, want[s], "slot " + std::to_string(s), &values);
  EXPECT_FALSE(same(want[0].scores[0], want[1].scores[0]));  // the frames differ, so a mix-up would show
  std::printf("  4 slots: %u scores equal\n", values);
}

TEST(HipPsnrHvs, RunTimeCompiledKernelEqualsCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Rtc* rtc = nullptr;
  Status rs = load_rtc(dev->api(), &rtc);
  if (!rs) GTEST_SKIP() << "no run-time compiler on this machine: " << rs.message();
  ModuleOptions rtc_only;
  rtc_only.use_embedded = false;
  rtc_only.use_cache = false;
  const Layout& l = psnr_hvs_test::layouts()[3];  // P010, interleaved
  std::unique_ptr<PsnrHvsGpu> g;
  ASSERT_OK(PsnrHvsGpu::create(dev, l.w, l.h, l.bpc, l.chroma, 1, &g, rtc_only));
  std::printf("  psnr_hvs kernel from %s\n", g->module().origin().c_str());
  EXPECT_EQ(g->module().origin().rfind(rtc->version, 0), 0u);
  const HostPicture r = psnr_hvs_test::make_picture(l, false, 3);
  const HostPicture d = psnr_hvs_test::make_picture(l, true, 3);
  GpuPicture gr, gd;
  ASSERT_OK(upload(dev, r, &gr));
  ASSERT_OK(upload(dev, d, &gd));
  ASSERT_OK(g->enqueue_planes(gr.views, gd.views, 0));
  ASSERT_OK(dev->synchronize());
  unsigned values = 0;
  expect_equal(*g, 0, psnr_hvs_test::cpu_scores(r, d, l.bpc), "rtc", &values);
  EXPECT_EQ(values, 4u);
}

TEST(HipPsnrHvs, RefusesWhatTheCpuRefuses) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::unique_ptr<PsnrHvsGpu> g;
  EXPECT_EQ(PsnrHvsGpu::create(dev, 64, 64, 16, Chroma::k420, 1, &g).code(), Errc::unsupported);
  EXPECT_EQ(PsnrHvsGpu::create(dev, 64, 64, 8, Chroma::k400, 1, &g).code(), Errc::unsupported);
  EXPECT_EQ(PsnrHvsGpu::create(dev, 64, 64, 8, Chroma::k420, 0, &g).code(), Errc::invalid_argument);
  ASSERT_OK(PsnrHvsGpu::create(dev, 64, 64, 8, Chroma::k420, 1, &g));
  const Layout other = {"other", 64, 62, 8, Chroma::k420, 0, false, 0};
  const HostPicture r = psnr_hvs_test::make_picture(other, false, 1);
  GpuPicture gr;
  ASSERT_OK(upload(dev, r, &gr));
  EXPECT_EQ(g->enqueue_planes(gr.views, gr.views, 0).code(), Errc::unsupported);
  EXPECT_EQ(g->enqueue_planes(gr.views, gr.views, 1).code(), Errc::invalid_argument);
}

// ---- through the scorer --------------------------------------------------------------------------------------

struct Run {
  Status status;
  std::string backend;
  std::vector<FrameScore> frames;
};

Run score(Backend b, const ::vmafx::test::PairClips& c, const VideoGeometry& g) {
  Run r;
  ScorerConfig cfg = ::vmafx::test::scorer_config("", {"psnr_hvs"});
  cfg.backend = b;
  if (const char* v = std::getenv("VMAFX_HIP_VENDOR")) {
    if (!std::strcmp(v, "amd")) cfg.vendor = ::vmafx::Vendor::amd;
    if (!std::strcmp(v, "nvidia")) cfg.vendor = ::vmafx::Vendor::nvidia;
  }
  if (const char* d = std::getenv("VMAFX_HIP_DEVICE")) cfg.device_id = std::atoi(d);
  ::vmafx::test::FrameLog log;
  std::unique_ptr<Scorer> scorer;
  r.status = ::vmafx::test::make_scorer(cfg, g, &log, &scorer);
  if (!r.status) return r;
  r.backend = scorer->backend_description();
  for (size_t i = 0; i < c.ref.frames(); ++i) {
    r.status = scorer->submit(::vmafx::test::frame_pair(c.ref.frame(i), c.dist.frame(i), int64_t(i) * 40, i));
    if (!r.status) return r;
  }
  r.status = scorer->flush();
  r.frames = log.frames();
  return r;
}

void expect_backends_equal(const ::vmafx::test::PairClips& c, const VideoGeometry& g, const std::string& what,
                           unsigned* frames) {
  const Run cpu = score(Backend::cpu, c, g);
  const Run gpu = score(Backend::hip, c, g);
  ASSERT_OK(cpu.status);
  ASSERT_OK(gpu.status);
  ASSERT_EQ(gpu.backend.rfind("hip: ", 0), 0u) << gpu.backend;
  ASSERT_EQ(cpu.frames.size(), c.ref.frames());
  ASSERT_EQ(gpu.frames.size(), cpu.frames.size());
  for (size_t k = 0; k < cpu.frames.size(); k++) {
    ASSERT_EQ(cpu.frames[k].values.size(), 4u);
    ASSERT_EQ(gpu.frames[k].values.size(), 4u);
    for (size_t i = 0; i < 4; i++)
      EXPECT_TRUE(same(cpu.frames[k].values[i], gpu.frames[k].values[i]))
          << what << " frame " << k << " value " << i << ": cpu " << cpu.frames[k].values[i] << ", hip "
          << gpu.frames[k].values[i];
    (*frames)++;
  }
}

TEST(HipPsnrHvs, ScorerOnTheGpuEqualsCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  unsigned frames = 0;
  ::vmafx::test::PairClips sample;
  ASSERT_OK(::vmafx::test::open_sample_pair(&sample));
  expect_backends_equal(sample, VideoGeometry{320, 240, 8, Chroma::k420}, "sample", &frames);
  std::vector<std::string> absent, checked;
  for (const ::vmafx::test::Pair& p : ::vmafx::test::oracle_pairs_420(&absent)) {
    ::vmafx::test::PairClips c;
    ASSERT_OK(::vmafx::test::open_pair_clips(p, &c));
    expect_backends_equal(c, VideoGeometry{p.width, p.height, uint8_t(p.bpc), Chroma::k420}, p.name(), &frames);
    checked.push_back(p.name());
  }
  std::printf("  %u frames: backend=hip equals backend=cpu\n", frames);
  ::vmafx::test::print_pair_coverage(checked, absent);
}

}  // namespace
}  // namespace vmafx::hip
