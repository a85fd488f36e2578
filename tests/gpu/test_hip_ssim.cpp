// SPDX-License-Identifier: LGPL-2.1-or-later
// float_ssim and float_ms_ssim on the GPU (hip/ssim_gpu.h):
//   - every device stage bit for bit against the CPU reference: converted images, decimated images (box and 9x9),
//     moment maps of every scale;
//   - the device's sums bit for bit against the host emulation of the kernels' order (gpu/ssim_test_util.h), so the
//     device computes each per-pixel term as the host does (division, square root, no contraction);
//   - scores against the CPU reference within 1e-7 (the largest difference and the count of differing frames
//     printed) on seeded pictures of 8, 10, 12 and 16 bits (16-bit words shifted, interleaved samples, odd pitches)
//     and on every frame of the public pairs in ../shared, where libvmaf's scores are within 1e-5;
//   - frames in flight in several slots; the kernels compiled at run time; refusals (MS-SSIM below 176x176, other
//     plane sizes, depths libvmaf does not convert).
// Skips (exit 77) without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/ms_ssim.h"
#include "cpu/plane.h"
#include "cpu/ssim.h"
#include "gpu_device.h"
#include "hip/ssim_gpu.h"
#include "ssim_test_util.h"
#include "support.h"

namespace vmafx::hip {
namespace {

constexpr double kTolerance = 1e-7;  // GPU against the CPU reference (only the order of the sums differs)

double diff(double a, double b) { return std::isnan(a) && std::isnan(b) ? 0.0 : std::fabs(a - b); }

struct HostPlane {
  std::vector<uint8_t> bytes;
  size_t pitch = 0;
  uint32_t w = 0, h = 0;
  uint8_t word = 1, shift = 0, step = 1;
  unsigned bpc = 8;

  cpu::Plane plane() const {
    cpu::Plane p;
    p.data = bytes.data();
    p.stride = ptrdiff_t(pitch);
    p.w = w;
    p.h = h;
    p.bytes = word;
    p.shift = shift;
    p.step = step;
    p.bpc = uint8_t(bpc);
    return p;
  }
};

struct Layout {
  const char* name;
  unsigned bpc;
  uint8_t shift, step;
  size_t pad;
};
const Layout kLayouts[] = {
    {"8-bit", 8, 0, 1, 0},        {"8-bit interleaved, odd pitch", 8, 0, 2, 3}, {"10-bit", 10, 0, 1, 2},
    {"10-bit P010", 10, 6, 1, 0}, {"12-bit", 12, 0, 1, 1},                      {"16-bit", 16, 0, 1, 0},
};

// A smooth reference and a distorted version (noise, blur-like mix or a darker copy), with noise in the padding,
// between interleaved samples and below the shift.
void make_pair(uint32_t w, uint32_t h, const Layout& l, uint32_t seed, HostPlane* ref, HostPlane* dist) {
  std::mt19937 rng(seed);
  const int max = int((1u << l.bpc) - 1);
  for (HostPlane* p : {ref, dist}) {
    p->w = w;
    p->h = h;
    p->bpc = l.bpc;
    p->word = l.bpc > 8 ? 2 : 1;
    p->shift = l.shift;
    p->step = l.step;
    p->pitch = size_t(w) * l.step * p->word + l.pad;
    p->bytes.resize(p->pitch * h);
    for (auto& b : p->bytes) b = uint8_t(rng());
  }
  auto put = [&](HostPlane* p, uint32_t x, uint32_t y, int v) {
    v = std::clamp(v, 0, max);
    uint8_t* s = p->bytes.data() + size_t(y) * p->pitch + size_t(x) * l.step * p->word;
    if (p->word == 1) {
      s[0] = uint8_t(v);
    } else {
      const uint32_t word = (uint32_t(v) << l.shift) | (l.shift ? (rng() & ((1u << l.shift) - 1)) : 0);
      s[0] = uint8_t(word);
      s[1] = uint8_t(word >> 8);
    }
  };
  const int kind = int(seed % 3);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const int r = int((0.5 + 0.45 * std::sin(x * 0.05 + seed) * std::cos(y * 0.03)) * max) + int(rng() % 9) - 4;
      int d = r;
      if (kind == 0) d = r + int(rng() % 41) - 20;
      if (kind == 1) d = (3 * r + int(rng() % uint32_t(max + 1))) / 4;
      if (kind == 2) d = r * 3 / 4;
      put(ref, x, y, r);
      put(dist, x, y, d);
    }
}

// The host plane in device memory with another (odd) pitch, starting one byte in.
struct GpuPlane {
  DeviceBuffer buffer;
  DevicePlane view;
};

Status upload(const std::shared_ptr<Device>& dev, const HostPlane& p, GpuPlane* out) {
  const size_t row = size_t(p.w) * p.step * p.word;
  const size_t pitch = row + 5;
  VMAFX_TRY(DeviceBuffer::create(dev, pitch * p.h + 8, &out->buffer));
  uint8_t* base = out->buffer.as<uint8_t>() + 1;
  VMAFX_TRY(dev->copy_2d_async({CopyKind::host_to_device, base, pitch, p.bytes.data(), p.pitch, row, p.h}));
  out->view = {base, pitch, p.w, p.h, p.word, p.shift, p.step};
  return Status::ok();
}

Status read_floats(const std::shared_ptr<Device>& dev, const float* src, size_t n, std::vector<float>* out) {
  out->assign(n, 0.f);
  VMAFX_TRY(dev->copy_async(CopyKind::device_to_host, out->data(), src, n * sizeof(float)));
  return dev->synchronize();
}

bool same_floats(const std::vector<float>& a, const float* b, size_t n) {
  return a.size() >= n && std::memcmp(a.data(), b, n * sizeof(float)) == 0;
}

// First index where two float arrays differ, for messages.
std::string where(const std::vector<float>& g, const float* c, size_t n, uint32_t w) {
  for (size_t i = 0; i < n; ++i)
    if (std::memcmp(&g[i], &c[i], sizeof(float)) != 0)
      return "(" + std::to_string(i % w) + ", " + std::to_string(i / w) + "): GPU " + std::to_string(g[i]) +
             ", CPU " + std::to_string(c[i]);
  return "none";
}

struct Stats {
  double max_ssim = 0.0, max_ms = 0.0;
  int frames = 0, ssim_differ = 0, ms_differ = 0;
  void add(double gs, double cs, double gm, double cm) {
    ++frames;
    max_ssim = std::max(max_ssim, diff(gs, cs));
    max_ms = std::max(max_ms, diff(gm, cm));
    ssim_differ += std::memcmp(&gs, &cs, sizeof(double)) != 0;
    ms_differ += std::memcmp(&gm, &cm, sizeof(double)) != 0;
  }
  void print(const std::string& what) const {
    std::printf("%s: %d frames; float_ssim max |GPU - CPU| %.3g (%d differ), float_ms_ssim %.3g (%d differ)\n",
                what.c_str(), frames, max_ssim, ssim_differ, max_ms, ms_differ);
  }
};

// One pair through both GPU features with every stage checked; the scores in *gs / *gm.
void check_pair(const std::shared_ptr<Device>& dev, const HostPlane& hr, const HostPlane& hd, const std::string& what,
                double* gs, double* gm, double* cs, double* cm) {
  const uint32_t w = hr.w, h = hr.h;
  const unsigned bpc = hr.bpc;
  GpuPlane r, d;
  ASSERT_OK(upload(dev, hr, &r));
  ASSERT_OK(upload(dev, hd, &d));

  // CPU reference and its stages.
  cpu::Ssim cssim;
  cpu::MsSsim cms;
  ASSERT_OK(cssim.init(w, h, bpc));
  ASSERT_OK(cssim.compute(hr.plane(), hd.plane(), cs));
  const bool ms_ok = cpu::MsSsim::check_size(w, h).is_ok();
  if (ms_ok) {
    ASSERT_OK(cms.init(w, h, bpc));
    ASSERT_OK(cms.compute(hr.plane(), hd.plane(), cm));
  }
  float divisor;
  ASSERT_OK(cpu::ssim_float_divisor(bpc, &divisor));
  std::vector<float> cref(size_t(w) * h), cdist(size_t(w) * h);
  cpu::plane_to_float(hr.plane(), divisor, cref.data(), w);
  cpu::plane_to_float(hd.plane(), divisor, cdist.data(), w);

  // float_ssim.
  std::unique_ptr<SsimGpu> ssim;
  ASSERT_OK(SsimGpu::create(dev, w, h, bpc, 2, &ssim));
  const uint32_t sw = ssim->image_width(), sh = ssim->image_height();
  DeviceBuffer moments;
  ASSERT_OK(DeviceBuffer::create(dev, size_t(5) * (sw - 10) * (sh - 10) * sizeof(float), &moments));
  SsimDebugOutputs dbg;
  dbg.moments[0] = moments.data();
  ASSERT_OK(ssim->enqueue_planes(r.view, d.view, 1, &dbg));
  ASSERT_OK(dev->synchronize());
  std::vector<float> g;
  ASSERT_OK(read_floats(dev, ssim->converted(false), size_t(w) * h, &g));
  ASSERT_TRUE(same_floats(g, cref.data(), cref.size())) << what << " converted reference " << where(g, cref.data(), cref.size(), w);
  ASSERT_OK(read_floats(dev, ssim->converted(true), size_t(w) * h, &g));
  ASSERT_TRUE(same_floats(g, cdist.data(), cdist.size())) << what << " converted distorted";
  std::vector<float> ir = cref, id = cdist;
  if (ssim->scale() > 1) {
    const std::vector<float> box = cpu::ssim_box_kernel(ssim->scale());
    ir.assign(size_t(sw) * sh, 0.f);
    id.assign(size_t(sw) * sh, 0.f);
    int dw, dh;
    cpu::decimate(cref.data(), int(w), int(h), ssim->scale(), box.data(), ssim->scale(), ssim->scale(), ir.data(),
                  &dw, &dh);
    cpu::decimate(cdist.data(), int(w), int(h), ssim->scale(), box.data(), ssim->scale(), ssim->scale(), id.data(),
                  &dw, &dh);
    ASSERT_OK(read_floats(dev, ssim->image(false), ir.size(), &g));
    ASSERT_TRUE(same_floats(g, ir.data(), ir.size())) << what << " decimated reference " << where(g, ir.data(), ir.size(), sw);
    ASSERT_OK(read_floats(dev, ssim->image(true), id.size(), &g));
    ASSERT_TRUE(same_floats(g, id.data(), id.size())) << what << " decimated distorted";
  }
  {
    cpu::SsimMoments m;
    ASSERT_OK(m.reserve(int(sw), int(sh)));
    cpu::ssim_moments(ir.data(), id.data(), int(sw), int(sh), &m);
    const size_t n = size_t(sw - 10) * (sh - 10);
    ASSERT_OK(read_floats(dev, moments.as<const float>(), 5 * n, &g));
    const std::vector<float>* maps[5] = {&m.mu_ref, &m.mu_dist, &m.var_ref, &m.var_dist, &m.cov};
    for (int k = 0; k < 5; ++k)
      ASSERT_EQ(std::memcmp(g.data() + k * n, maps[k]->data(), n * sizeof(float)), 0) << what << " moment map " << k;
  }
  double sums[4];
  ASSERT_OK(ssim->sums(1, sums));
  double emu[4];
  ::vmafx::test::gpu_order_sums(::vmafx::test::rows(ir, id, sw, sh), sw, sh, emu);
  ASSERT_EQ(std::memcmp(sums, emu, sizeof sums), 0) << what << " float_ssim sums differ from the kernels' emulation";
  ASSERT_OK(ssim->finish(1, gs));
  EXPECT_LE(diff(*gs, *cs), kTolerance) << what << " float_ssim";

  // float_ms_ssim.
  if (!ms_ok) {
    *gm = *cm = 0.0;
    return;
  }
  std::unique_ptr<MsSsimGpu> ms;
  ASSERT_OK(MsSsimGpu::create(dev, w, h, bpc, 1, &ms));
  DeviceBuffer mom[cpu::kMsSsimScales];
  SsimDebugOutputs mdbg;
  for (int s = 0; s < cpu::kMsSsimScales; ++s) {
    ASSERT_OK(DeviceBuffer::create(dev, size_t(5) * (ms->width(s) - 10) * (ms->height(s) - 10) * sizeof(float),
                                   &mom[s]));
    mdbg.moments[s] = mom[s].data();
  }
  ASSERT_OK(ms->enqueue_planes(r.view, d.view, 0, &mdbg));
  ASSERT_OK(dev->synchronize());
  std::vector<float> sr = cref, sd = cdist;
  uint32_t cw = w, ch = h;
  for (int s = 0; s < cpu::kMsSsimScales; ++s) {
    ASSERT_EQ(ms->width(s), cw);
    ASSERT_EQ(ms->height(s), ch);
    ASSERT_OK(read_floats(dev, ms->image(s, false), sr.size(), &g));
    ASSERT_TRUE(same_floats(g, sr.data(), sr.size())) << what << " MS-SSIM scale " << s << " reference "
                                                      << where(g, sr.data(), sr.size(), cw);
    ASSERT_OK(read_floats(dev, ms->image(s, true), sd.size(), &g));
    ASSERT_TRUE(same_floats(g, sd.data(), sd.size())) << what << " MS-SSIM scale " << s << " distorted";
    cpu::SsimMoments m;
    ASSERT_OK(m.reserve(int(cw), int(ch)));
    cpu::ssim_moments(sr.data(), sd.data(), int(cw), int(ch), &m);
    const size_t n = size_t(cw - 10) * (ch - 10);
    ASSERT_OK(read_floats(dev, mom[s].as<const float>(), 5 * n, &g));
    const std::vector<float>* maps[5] = {&m.mu_ref, &m.mu_dist, &m.var_ref, &m.var_dist, &m.cov};
    for (int k = 0; k < 5; ++k)
      ASSERT_EQ(std::memcmp(g.data() + k * n, maps[k]->data(), n * sizeof(float)), 0)
          << what << " MS-SSIM scale " << s << " moment map " << k;
    if (s + 1 < cpu::kMsSsimScales) {
      int nw, nh;
      std::vector<float> nr(size_t(cpu::decimated_size(int(cw), 2)) * cpu::decimated_size(int(ch), 2));
      std::vector<float> nd(nr.size());
      cpu::ms_ssim_decimate(sr.data(), int(cw), int(ch), nr.data(), &nw, &nh);
      cpu::ms_ssim_decimate(sd.data(), int(cw), int(ch), nd.data(), &nw, &nh);
      sr.swap(nr);
      sd.swap(nd);
      cw = uint32_t(nw);
      ch = uint32_t(nh);
    }
  }
  double msums[cpu::kMsSsimScales][4], memu[cpu::kMsSsimScales][4];
  ASSERT_OK(ms->sums(0, msums));
  ::vmafx::test::gpu_ms_ssim_of(cref, cdist, w, h, memu);
  ASSERT_EQ(std::memcmp(msums, memu, sizeof msums), 0) << what << " float_ms_ssim sums differ from the emulation";
  ASSERT_OK(ms->finish(0, gm));
  EXPECT_LE(diff(*gm, *cm), kTolerance) << what << " float_ms_ssim";
}

TEST(HipSsim, StagesMatchCpuAndScoresAreWithin1e7) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const uint32_t sizes[][2] = {{176, 176}, {321, 241}, {400, 384}, {1920, 1080}, {1081, 777}, {11, 11}, {3840, 2160}};
  Stats st;
  uint32_t seed = 1;
  for (const Layout& l : kLayouts)
    for (const auto& sz : sizes) {
      if (sz[0] == 3840 && l.bpc != 8) continue;  // one 4K picture (decimation by 8) is enough
      HostPlane r, d;
      make_pair(sz[0], sz[1], l, seed, &r, &d);
      const std::string what = std::string(l.name) + " " + std::to_string(sz[0]) + "x" + std::to_string(sz[1]) +
                               " seed " + std::to_string(seed);
      ++seed;
      double gs = 0, gm = 0, cs = 0, cm = 0;
      check_pair(dev, r, d, what, &gs, &gm, &cs, &cm);
      if (HasFatalFailure()) return;
      st.add(gs, cs, gm, cm);
    }
  st.print("seeded pictures");
}

TEST(HipSsim, FramesInSeveralSlots) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  constexpr unsigned kSlots = 3;
  std::unique_ptr<SsimGpu> ssim;
  std::unique_ptr<MsSsimGpu> ms;
  ASSERT_OK(SsimGpu::create(dev, 640, 480, 10, kSlots, &ssim));
  ASSERT_OK(MsSsimGpu::create(dev, 640, 480, 10, kSlots, &ms));
  HostPlane hr[kSlots], hd[kSlots];
  GpuPlane r[kSlots], d[kSlots];
  for (unsigned s = 0; s < kSlots; ++s) {
    make_pair(640, 480, kLayouts[2], 40 + s, &hr[s], &hd[s]);
    ASSERT_OK(upload(dev, hr[s], &r[s]));
    ASSERT_OK(upload(dev, hd[s], &d[s]));
    FramePlanes f;
    f.ref[0] = r[s].view;
    f.dist[0] = d[s].view;
    f.width = 640;
    f.height = 480;
    f.bpc = 10;
    ASSERT_OK(ssim->enqueue(f, s));
    ASSERT_OK(ms->enqueue(f, s));
  }
  ASSERT_OK(dev->synchronize());
  for (unsigned s = 0; s < kSlots; ++s) {
    cpu::Ssim cs;
    cpu::MsSsim cm;
    ASSERT_OK(cs.init(640, 480, 10));
    ASSERT_OK(cm.init(640, 480, 10));
    double a, b, ga, gb;
    ASSERT_OK(cs.compute(hr[s].plane(), hd[s].plane(), &a));
    ASSERT_OK(cm.compute(hr[s].plane(), hd[s].plane(), &b));
    ASSERT_OK(ssim->finish(s, &ga));
    ASSERT_OK(ms->finish(s, &gb));
    EXPECT_LE(diff(ga, a), kTolerance) << "slot " << s;
    EXPECT_LE(diff(gb, b), kTolerance) << "slot " << s;
  }
  // A frame of another depth never reaches enqueue(): HipPipeline::submit refuses it (test_hip_pipeline).
  EXPECT_EQ(ssim->enqueue_planes(r[0].view, d[0].view, kSlots).code(), Errc::invalid_argument);
}

TEST(HipSsim, PublicPairsMatchCpuAndLibvmaf) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::vector<std::string> absent;
  const std::vector<::vmafx::test::Pair> pairs = ::vmafx::test::oracle_pairs_420(&absent);
  if (pairs.empty()) GTEST_SKIP() << "no public pair in ../shared";
  std::vector<std::string> checked;
  Stats all;
  for (const ::vmafx::test::Pair& p : pairs) {
    ::vmafx::test::PairClips clips;
    ASSERT_OK(::vmafx::test::open_pair_clips(p, &clips));
    ::vmafx::test::Oracle oracle;
    ASSERT_OK(::vmafx::test::load_pair_oracle(p, "vmaf_v0.6.1", clips.ref.frames(), &oracle));
    cpu::Ssim cssim;
    cpu::MsSsim cms;
    ASSERT_OK(cssim.init(p.width, p.height, p.bpc));
    ASSERT_OK(cms.init(p.width, p.height, p.bpc));
    std::unique_ptr<SsimGpu> ssim;
    std::unique_ptr<MsSsimGpu> ms;
    ASSERT_OK(SsimGpu::create(dev, p.width, p.height, p.bpc, 1, &ssim));
    ASSERT_OK(MsSsimGpu::create(dev, p.width, p.height, p.bpc, 1, &ms));
    Stats st;
    for (size_t i = 0; i < clips.ref.frames(); ++i) {
      const cpu::Plane rp = cpu::luma_plane(clips.ref.frame(i)), dp = cpu::luma_plane(clips.dist.frame(i));
      HostPlane hr, hd;
      for (auto [hp, pl] : {std::pair<HostPlane*, const cpu::Plane*>{&hr, &rp}, {&hd, &dp}}) {
        hp->w = pl->w;
        hp->h = pl->h;
        hp->bpc = pl->bpc;
        hp->word = pl->bytes;
        hp->shift = pl->shift;
        hp->step = pl->step;
        hp->pitch = size_t(pl->stride);
        hp->bytes.assign(pl->data, pl->data + size_t(pl->stride) * pl->h);
      }
      GpuPlane r, d;
      ASSERT_OK(upload(dev, hr, &r));
      ASSERT_OK(upload(dev, hd, &d));
      ASSERT_OK(ssim->enqueue_planes(r.view, d.view, 0));
      ASSERT_OK(ms->enqueue_planes(r.view, d.view, 0));
      ASSERT_OK(dev->synchronize());
      double gs, gm, cs, cm;
      ASSERT_OK(ssim->finish(0, &gs));
      ASSERT_OK(ms->finish(0, &gm));
      ASSERT_OK(cssim.compute(rp, dp, &cs));
      ASSERT_OK(cms.compute(rp, dp, &cm));
      EXPECT_LE(diff(gs, cs), kTolerance) << p.name() << " frame " << i;
      EXPECT_LE(diff(gm, cm), kTolerance) << p.name() << " frame " << i;
      EXPECT_LE(std::fabs(gs - oracle.frames[i].at("float_ssim")), 1e-5) << p.name() << " frame " << i;
      EXPECT_LE(std::fabs(gm - oracle.frames[i].at("float_ms_ssim")), 1e-5) << p.name() << " frame " << i;
      st.add(gs, cs, gm, cm);
      all.add(gs, cs, gm, cm);
    }
    st.print(p.name());
    checked.push_back(p.name());
  }
  all.print("all public pairs");
  ::vmafx::test::print_pair_coverage(checked, absent);
}

TEST(HipSsim, RunTimeCompiledKernelsMatchCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Rtc* rtc = nullptr;
  Status rs = load_rtc(dev->api(), &rtc);
  if (!rs) GTEST_SKIP() << "no run-time compiler on this machine: " << rs.message();
  ModuleOptions rtc_only;
  rtc_only.use_embedded = false;
  rtc_only.use_cache = false;
  HostPlane hr, hd;
  make_pair(1280, 720, kLayouts[0], 9, &hr, &hd);
  GpuPlane r, d;
  ASSERT_OK(upload(dev, hr, &r));
  ASSERT_OK(upload(dev, hd, &d));
  std::unique_ptr<SsimGpu> ssim;
  std::unique_ptr<MsSsimGpu> ms;
  ASSERT_OK(SsimGpu::create(dev, 1280, 720, 8, 1, &ssim, rtc_only));
  ASSERT_OK(MsSsimGpu::create(dev, 1280, 720, 8, 1, &ms, rtc_only));
  std::printf("ssim kernels from %s\n", ssim->module().origin().c_str());
  EXPECT_EQ(ssim->module().origin().rfind(rtc->version, 0), 0u);
  ASSERT_OK(ssim->enqueue_planes(r.view, d.view, 0));
  ASSERT_OK(ms->enqueue_planes(r.view, d.view, 0));
  ASSERT_OK(dev->synchronize());
  double sums[4], emu[4];
  ASSERT_OK(ssim->sums(0, sums));
  std::vector<float> fr(size_t(1280) * 720), fd(fr.size());
  cpu::plane_to_float(hr.plane(), 1.f, fr.data(), 1280);
  cpu::plane_to_float(hd.plane(), 1.f, fd.data(), 1280);
  // 720 lines: float_ssim decimates by 3.
  const std::vector<float> box = cpu::ssim_box_kernel(3);
  uint32_t dw, dh;
  const std::vector<float> sr = ::vmafx::test::decimate(fr, 1280, 720, box.data(), 3, 3, 3, &dw, &dh);
  const std::vector<float> sd = ::vmafx::test::decimate(fd, 1280, 720, box.data(), 3, 3, 3, &dw, &dh);
  ::vmafx::test::gpu_order_sums(::vmafx::test::rows(sr, sd, dw, dh), dw, dh, emu);
  EXPECT_EQ(std::memcmp(sums, emu, sizeof sums), 0);
  double msums[cpu::kMsSsimScales][4], memu[cpu::kMsSsimScales][4];
  ASSERT_OK(ms->sums(0, msums));
  ::vmafx::test::gpu_ms_ssim_of(fr, fd, 1280, 720, memu);
  EXPECT_EQ(std::memcmp(msums, memu, sizeof msums), 0);
}

TEST(HipSsim, RefusesWhatLibvmafRefuses) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::unique_ptr<MsSsimGpu> ms;
  const Status small = MsSsimGpu::create(dev, 175, 480, 8, 1, &ms);
  EXPECT_EQ(small.code(), Errc::unsupported);
  EXPECT_NE(small.message().find("176x176"), std::string::npos) << small.message();
  EXPECT_EQ(MsSsimGpu::create(dev, 480, 175, 8, 1, &ms).code(), Errc::unsupported);
  ASSERT_OK(MsSsimGpu::create(dev, 176, 176, 8, 1, &ms));
  std::unique_ptr<SsimGpu> ssim;
  EXPECT_EQ(SsimGpu::create(dev, 10, 100, 8, 1, &ssim).code(), Errc::unsupported);
  EXPECT_EQ(SsimGpu::create(dev, 100, 100, 9, 1, &ssim).code(), Errc::unsupported);
  EXPECT_EQ(SsimGpu::create(dev, 100, 100, 8, 0, &ssim).code(), Errc::invalid_argument);
  ASSERT_OK(SsimGpu::create(dev, 100, 100, 8, 1, &ssim));
  HostPlane hr, hd;
  make_pair(100, 99, kLayouts[0], 3, &hr, &hd);
  GpuPlane r, d;
  ASSERT_OK(upload(dev, hr, &r));
  ASSERT_OK(upload(dev, hd, &d));
  EXPECT_EQ(ssim->enqueue_planes(r.view, d.view, 0).code(), Errc::unsupported);
  double v;
  EXPECT_EQ(ssim->finish(0, &v).code(), Errc::invalid_argument) << "nothing queued";
  EXPECT_TRUE(dev->status().is_ok());
}

}  // namespace
}  // namespace vmafx::hip
