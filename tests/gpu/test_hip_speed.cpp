// SPDX-License-Identifier: LGPL-2.1-or-later
// SpeedGpu (kernels/speed.hip) against the CPU reference, exactly:
//   - the decimated and local-mean-subtracted images and the estimates (eigenvalues, singular flag, block
//     variances) of all four chroma planes, and the three scores, on seeded planes in every layout the kernels read
//     in place (8-bit, NV12 / P010 interleaved, 10/12/16-bit words) under every option set of speed_test_util.h,
//     with flat (singular) planes and the smallest plane;
//   - the public v1 pairs (4:2:0 frames as .yuv holds them): bit-exact with cpu::SpeedChroma and within 2e-6 of
//     libvmaf's v1 JSON (speed_chroma_u / _v / _uv), the 5d0h model's prescale 0.6 included;
//   - several slots in flight; frames without chroma refused; the kernels compiled at run time.
// Skips (exit 77) without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/plane.h"
#include "cpu/speed.h"
#include "gpu_device.h"
#include "hip/module.h"
#include "hip/speed_gpu.h"
#include "speed_test_util.h"
#include "support.h"
#include "vmafx/scorer.h"

namespace vmafx::hip {
namespace {

using namespace speed_test;  // NOLINT: the shared test vocabulary

struct DevicePicture {
  DeviceBuffer buffer;
  DevicePlane plane;
};

Status upload(const std::shared_ptr<Device>& dev, const HostPlane& p, DevicePicture* out) {
  VMAFX_TRY(DeviceBuffer::create(dev, p.mem.size(), &out->buffer));
  VMAFX_TRY(dev->copy_async(CopyKind::host_to_device, out->buffer.data(), p.mem.data(), p.mem.size()));
  out->plane = {out->buffer.data(), p.pitch, p.w, p.h, p.layout.bytes, p.layout.shift, p.layout.step};
  return Status::ok();
}

// A 4:4:4 frame whose chroma planes are U = (ru, du) and V = (rv, dv); the luma planes are the U planes (unread).
FramePlanes frame_of(const DevicePicture& ru, const DevicePicture& rv, const DevicePicture& du,
                     const DevicePicture& dv, unsigned bpc) {
  FramePlanes f;
  f.ref[0] = f.ref[1] = ru.plane;
  f.ref[2] = rv.plane;
  f.dist[0] = f.dist[1] = du.plane;
  f.dist[2] = dv.plane;
  f.planes = 3;
  f.width = ru.plane.width;
  f.height = ru.plane.height;
  f.bpc = bpc;
  return f;
}

// One frame of four planes: stages of the first image, the four estimates and the scores against the CPU.
void check_frame(const std::shared_ptr<Device>& dev, const HostPlane& ru, const HostPlane& rv, const HostPlane& du,
                 const HostPlane& dv, const cpu::SpeedOptions& opt, const std::string& what) {
  SCOPED_TRACE(what);
  const unsigned bpc = ru.layout.bpc;
  std::unique_ptr<SpeedGpu> sp;
  ASSERT_OK(SpeedGpu::create(dev, ru.w, ru.h, Chroma::k444, bpc, opt, 2, &sp));
  DevicePicture g[4];
  const HostPlane* h[4] = {&ru, &rv, &du, &dv};
  for (int k = 0; k < 4; k++) ASSERT_OK(upload(dev, *h[k], &g[k]));
  ASSERT_OK(sp->enqueue(frame_of(g[0], g[1], g[2], g[3], bpc), 1));
  std::vector<float> dec, ms;
  ASSERT_OK(sp->read_stages(&dec, &ms));
  cpu::SpeedChroma cpu_sp;
  ASSERT_OK(cpu_sp.init(ru.w, ru.h, Chroma::k444, bpc, opt));
  const size_t n = size_t(sp->params().dims.dec_w) * sp->params().dims.dec_h;
  cpu::SpeedEstimate got[4];
  ASSERT_OK(sp->estimates(1, got));
  for (int k = 0; k < 4; k++) {
    const CpuStages want = cpu_stages(h[k]->plane(), cpu_sp);
    ASSERT_TRUE(same_floats(std::vector<float>(dec.begin() + long(k * n), dec.begin() + long((k + 1) * n)), want.dec,
                            sp->params().dims.dec_w, "decimated image"))
        << " image " << k;
    ASSERT_TRUE(same_floats(std::vector<float>(ms.begin() + long(k * n), ms.begin() + long((k + 1) * n)), want.ms,
                            sp->params().dims.dec_w, "local-mean-subtracted image"))
        << " image " << k;
    ASSERT_TRUE(same_estimate(got[k], want.est)) << " image " << k;
  }
  cpu::SpeedScores want;
  ASSERT_OK(cpu_sp.compute(ru.plane(), rv.plane(), du.plane(), dv.plane(), &want));
  double out[3];
  ASSERT_OK(sp->finish(1, out));
  EXPECT_EQ(out[0], want.u);
  EXPECT_EQ(out[1], want.v);
  EXPECT_EQ(out[2], want.uv);
}

TEST(HipSpeed, StagesMatchCpuOnSeededPlanes) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  {
    std::unique_ptr<SpeedGpu> probe;
    ASSERT_OK(SpeedGpu::create(dev, 160, 160, Chroma::k420, 8, {}, 1, &probe));
    std::printf("speed kernels from %s on %s\n", probe->module().origin().c_str(), dev->info().name.c_str());
  }
  uint32_t seed = 808;
  int frames = 0;
  for (const Layout& lay : kLayouts) {
    for (const OptionCase& oc : option_cases()) {
      const uint32_t w = 357 + seed % 5, h = 300 + seed % 3;
      const HostPlane ru = make_plane(w, h, lay, kTexture, seed), rv = make_plane(w, h, lay, kNoise, seed + 1);
      check_frame(dev, ru, rv, distort(ru, seed + 2), distort(rv, seed + 3), oc.opt,
                  std::string(lay.name) + " " + std::to_string(w) + "x" + std::to_string(h) + ", " + oc.name +
                      ", seed " + std::to_string(seed));
      seed += 4;
      ++frames;
      if (HasFailure()) return;
    }
    // Flat planes: U flat in both (singular: uv takes V's score), V flat in the distorted picture only.
    const HostPlane flat = make_plane(200, 120, lay, kFlat, seed), tex = make_plane(200, 120, lay, kTexture, seed + 1);
    check_frame(dev, flat, tex, flat, distort(tex, seed + 2), {}, std::string(lay.name) + " flat U");
    check_frame(dev, tex, tex, distort(tex, seed + 3), flat, {}, std::string(lay.name) + " flat distorted V");
    const HostPlane small = make_plane(80, 80, lay, kExtremes, seed + 4);
    check_frame(dev, small, small, distort(small, seed + 5), small, {}, std::string(lay.name) + " 80x80");
    seed += 6;
    frames += 3;
    if (HasFailure()) return;
  }
  std::printf("%d frames: every stage, estimate and score equal to the CPU\n", frames);
}

// The public pairs with the v1 models' options (5d0h: prescale 0.6 bilinear), frames in two slots, against the CPU
// bit for bit and libvmaf's v1 JSON within 2e-6.
TEST(HipSpeed, V1PairsMatchCpuAndLibvmaf) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  struct Case {
    const char* pair;
    const char* model;
    double prescale;
    const char* suffix;
  };
  const Case cases[] = {
      {"a_576x324_8b_x264crf35", "vmaf_v1.0.16_3d0h", 1.0, "_mxv_45_nnf_0.1_snn_0.19_wvm_5"},
      {"a_576x324_8b_down288", "vmaf_v1.0.16_5d0h", 0.6, "_mxv_45_nnf_0.1_ps_0.6_psm_bilinear_snn_0.19_wvm_5"},
      {"b_576x324_10b_x264crf33", "vmaf_v1.0.16_3d0h", 1.0, "_mxv_45_nnf_0.1_snn_0.19_wvm_5"},
      {"d_1920x1080_8b_x264crf35", "vmaf_v1.0.16_3d0h", 1.0, "_mxv_45_nnf_0.1_snn_0.19_wvm_5"},
  };
  double worst = 0;
  std::vector<std::string> checked, absent;
  const std::vector<vmafx::test::Pair> pairs = vmafx::test::oracle_pairs_420(&absent);
  for (const Case& k : cases) {
    const auto it = std::find_if(pairs.begin(), pairs.end(), [&](const auto& p) { return p.name() == k.pair; });
    if (it == pairs.end()) continue;
    const vmafx::test::Pair& p = *it;
    vmafx::test::PairClips c;
    ASSERT_OK(vmafx::test::open_pair_clips(p, &c));
    vmafx::test::Oracle o;
    ASSERT_OK(vmafx::test::load_pair_oracle(p, k.model, c.ref.frames(), &o));
    cpu::SpeedOptions opt = option_cases()[1].opt;
    if (k.prescale != 1.0) {
      opt.prescale = k.prescale;
      opt.prescale_method = cpu::SpeedScaleMethod::bilinear;
    }
    std::unique_ptr<SpeedGpu> sp;
    ASSERT_OK(SpeedGpu::create(dev, p.width, p.height, Chroma::k420, p.bpc, opt, 2, &sp));
    cpu::SpeedChroma cpu_sp;
    ASSERT_OK(cpu_sp.init(p.width, p.height, Chroma::k420, p.bpc, opt));
    DeviceBuffer mem;
    ASSERT_OK(DeviceBuffer::create(dev, 2 * c.ref.frame_size(), &mem));
    for (size_t i = 0; i < c.ref.frames(); ++i) {
      uint8_t* dref = mem.as<uint8_t>();
      uint8_t* ddist = dref + c.ref.frame_size();
      ASSERT_OK(dev->copy_async(CopyKind::host_to_device, dref, c.ref.frame_data(i), c.ref.frame_size()));
      ASSERT_OK(dev->copy_async(CopyKind::host_to_device, ddist, c.dist.frame_data(i), c.dist.frame_size()));
      const PictureView rv = c.ref.frame(i), dv = c.dist.frame(i);
      auto dplane = [](const cpu::Plane& q, const uint8_t* host_base, uint8_t* dev_base) {
        return DevicePlane{dev_base + (q.data - host_base), size_t(q.stride), q.w, q.h, q.bytes, q.shift, q.step};
      };
      FramePlanes f;
      for (unsigned pl = 0; pl < 3; ++pl) {
        const cpu::Plane a = pl ? cpu::chroma_plane(rv, pl) : cpu::luma_plane(rv);
        const cpu::Plane b = pl ? cpu::chroma_plane(dv, pl) : cpu::luma_plane(dv);
        f.ref[pl] = dplane(a, c.ref.frame_data(i), dref);
        f.dist[pl] = dplane(b, c.dist.frame_data(i), ddist);
      }
      f.planes = 3;
      f.width = p.width;
      f.height = p.height;
      f.bpc = p.bpc;
      const unsigned slot = unsigned(i % 2);
      ASSERT_OK(sp->enqueue(f, slot));
      ASSERT_OK(dev->synchronize());
      double out[3];
      ASSERT_OK(sp->finish(slot, out));
      cpu::SpeedScores want;
      ASSERT_OK(cpu_sp.compute(cpu::chroma_plane(rv, 1), cpu::chroma_plane(rv, 2), cpu::chroma_plane(dv, 1),
                               cpu::chroma_plane(dv, 2), &want));
      EXPECT_EQ(out[0], want.u) << k.pair << " frame " << i;
      EXPECT_EQ(out[1], want.v) << k.pair << " frame " << i;
      EXPECT_EQ(out[2], want.uv) << k.pair << " frame " << i;
      const char* names[3] = {"speed_chroma_u", "speed_chroma_v", "speed_chroma_uv"};
      for (int q = 0; q < 3; q++) {
        const double expect = o.frames[i].at(std::string(names[q]) + k.suffix);
        worst = std::max(worst, std::abs(out[q] - expect));
        EXPECT_NEAR(out[q], expect, 2e-6) << k.pair << " frame " << i << " " << names[q];
      }
    }
    checked.push_back(std::string(k.pair) + "(" + k.model + ")");
  }
  vmafx::test::print_pair_coverage(checked, absent);
  std::printf("max |GPU - libvmaf JSON| over speed_chroma_u/v/uv: %.3g\n", worst);
}

// Seven frames queued into three rotating slots before any is read: each slot keeps its own frame's values.
TEST(HipSpeed, SlotsInFlight) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Layout& lay = kLayouts[0];
  const unsigned slots = 3;
  std::unique_ptr<SpeedGpu> sp;
  ASSERT_OK(SpeedGpu::create(dev, 240, 176, Chroma::k444, 8, {}, slots, &sp));
  cpu::SpeedChroma cpu_sp;
  ASSERT_OK(cpu_sp.init(240, 176, Chroma::k444, 8, {}));
  std::vector<HostPlane> hp;
  hp.reserve(4 * 7);  // the planes stay where their uploads read them
  std::vector<DevicePicture> dp(4 * slots);
  auto expect_frame = [&](unsigned slot, size_t frame) {
    double out[3];
    ASSERT_OK(sp->finish(slot, out));
    cpu::SpeedScores want;
    const size_t b = frame * 4;
    ASSERT_OK(cpu_sp.compute(hp[b].plane(), hp[b + 1].plane(), hp[b + 2].plane(), hp[b + 3].plane(), &want));
    EXPECT_EQ(out[0], want.u) << "frame " << frame;
    EXPECT_EQ(out[2], want.uv) << "frame " << frame;
  };
  for (int frame = 0; frame < 7; frame++) {
    const unsigned slot = unsigned(frame) % slots;
    HostPlane ru = make_plane(240, 176, lay, kTexture, 300 + frame), rv = make_plane(240, 176, lay, kNoise, 400 + frame);
    HostPlane du = distort(ru, 500 + frame), dv = distort(rv, 600 + frame);
    if (frame >= int(slots)) {
      // The slot is reused: read the frame it held first.
      ASSERT_OK(dev->synchronize());
      expect_frame(slot, size_t(frame) - slots);
    }
    for (HostPlane* q : {&ru, &rv, &du, &dv}) hp.push_back(*q);
    DevicePicture* g = &dp[size_t(slot) * 4];
    for (int k = 0; k < 4; k++) ASSERT_OK(upload(dev, hp[hp.size() - 4 + size_t(k)], &g[k]));
    ASSERT_OK(sp->enqueue(frame_of(g[0], g[1], g[2], g[3], 8), slot));
  }
  ASSERT_OK(dev->synchronize());
  for (size_t frame = 7 - slots; frame < 7; frame++) expect_frame(unsigned(frame % slots), frame);
}

TEST(HipSpeed, RefusesFramesWithoutChromaAndBadSizes) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::unique_ptr<SpeedGpu> sp;
  EXPECT_EQ(SpeedGpu::create(dev, 144, 144, Chroma::k420, 8, {}, 1, &sp).code(), Errc::unsupported);
  EXPECT_EQ(SpeedGpu::create(dev, 640, 480, Chroma::k400, 8, {}, 1, &sp).code(), Errc::unsupported);
  ASSERT_OK(SpeedGpu::create(dev, 200, 120, Chroma::k444, 8, {}, 1, &sp));
  const HostPlane p = make_plane(200, 120, kLayouts[0], kTexture, 1);
  DevicePicture g;
  ASSERT_OK(upload(dev, p, &g));
  FramePlanes f = frame_of(g, g, g, g, 8);
  // enqueue() only asserts what the pipeline checked; check_frame() is that check.
  f.planes = 1;
  EXPECT_EQ(sp->check_frame(f, 0).code(), Errc::invalid_argument);
  f = frame_of(g, g, g, g, 8);
  f.dist[2].width = 199;
  EXPECT_EQ(sp->check_frame(f, 0).code(), Errc::unsupported);
  f = frame_of(g, g, g, g, 8);
  EXPECT_EQ(sp->check_frame(f, 1).code(), Errc::invalid_argument);  // one slot
  ASSERT_OK(sp->check_frame(f, 0));
  EXPECT_TRUE(sp->enqueue(f, 0).is_ok());
  ASSERT_OK(dev->synchronize());
}

TEST(HipSpeed, RunTimeCompiledKernelsMatchCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Rtc* rtc = nullptr;
  Status rs = load_rtc(dev->api(), &rtc);
  if (!rs) GTEST_SKIP() << "no run-time compiler on this machine: " << rs.message();
  ModuleOptions rtc_only;
  rtc_only.use_embedded = false;
  rtc_only.use_cache = false;
  const OptionCase oc = option_cases()[5];  // lanczos4 prescale
  const Layout& lay = kLayouts[3];
  const HostPlane ru = make_plane(230, 170, lay, kTexture, 7), rv = make_plane(230, 170, lay, kNoise, 8);
  const HostPlane du = distort(ru, 9), dv = distort(rv, 10);
  std::unique_ptr<SpeedGpu> sp;
  ASSERT_OK(SpeedGpu::create(dev, 230, 170, Chroma::k444, lay.bpc, oc.opt, 1, &sp, rtc_only));
  std::printf("speed kernels from %s\n", sp->module().origin().c_str());
  EXPECT_EQ(sp->module().origin().rfind(rtc->version, 0), 0u);
  DevicePicture g[4];
  const HostPlane* h[4] = {&ru, &rv, &du, &dv};
  for (int k = 0; k < 4; k++) ASSERT_OK(upload(dev, *h[k], &g[k]));
  ASSERT_OK(sp->enqueue(frame_of(g[0], g[1], g[2], g[3], lay.bpc), 0));
  ASSERT_OK(dev->synchronize());
  cpu::SpeedChroma cpu_sp;
  ASSERT_OK(cpu_sp.init(230, 170, Chroma::k444, lay.bpc, oc.opt));
  cpu::SpeedScores want;
  ASSERT_OK(cpu_sp.compute(ru.plane(), rv.plane(), du.plane(), dv.plane(), &want));
  double out[3];
  ASSERT_OK(sp->finish(0, out));
  EXPECT_EQ(out[0], want.u);
  EXPECT_EQ(out[1], want.v);
  EXPECT_EQ(out[2], want.uv);
}

// The v1 models' adm, motion and speed_chroma through the Scorer on the HIP backend: every value equal to the CPU
// backend's (the feature table routes them to AdmGpu, MotionGpu and SpeedGpu with the options).
TEST(HipSpeed, V1FeaturesOnTheHipBackendEqualTheCpuBackend) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const OptionList adm = {{"adm_csf_mode", "2"},   {"adm_dlm_weight", "0.7"}, {"adm_enhn_gain_limit", "1"},
                          {"adm_noise_weight", "0.02"}, {"adm_min_val", "0.5"}};
  const OptionList speed = {{"speed_nn_floor", "0.1"}, {"speed_sigma_nn", "0.19"}, {"speed_weight_var_mode", "5"},
                            {"speed_max_val", "45"}};
  std::vector<std::string> absent;
  unsigned runs = 0;
  for (const vmafx::test::Pair& p : vmafx::test::oracle_pairs_420(&absent)) {
    for (bool prescale : {false, true}) {
      if (prescale && p.height < 324) continue;  // 0.6 of pair c's chroma leaves fewer than 5 decimated rows
      vmafx::test::PairClips c;
      ASSERT_OK(vmafx::test::open_pair_clips(p, &c));
      OptionList sp = speed;
      OptionList ad = adm;
      if (prescale) {
        sp.push_back({"speed_prescale", "0.6"});
        sp.push_back({"speed_prescale_method", "bilinear"});
        ad.push_back({"adm_norm_view_dist", "5"});
      }
      std::vector<FrameScore> frames[2];
      std::vector<std::string> names[2];
      for (int b = 0; b < 2; b++) {
        ScorerConfig cfg = vmafx::test::scorer_config("");
        cfg.features = {{"adm", ad}, {"motion", {{"motion_max_val", "18"}}}, {"speed_chroma", sp}};
        cfg.backend = b ? Backend::hip : Backend::cpu;
        std::vector<std::string> notices;
        cfg.on_notice = [&notices](NoticeLevel, const std::string& m, const std::string&) { notices.push_back(m); };
        vmafx::test::FrameLog log;
        std::unique_ptr<Scorer> scorer;
        ASSERT_OK(vmafx::test::make_scorer(cfg, {p.width, p.height, uint8_t(p.bpc), Chroma::k420}, &log, &scorer));
        for (size_t i = 0; i < c.ref.frames(); i++)
          ASSERT_OK(scorer->submit(vmafx::test::frame_pair(c.ref.frame(i), c.dist.frame(i), 0, i)));
        ASSERT_OK(scorer->flush());
        frames[b] = log.frames();
        names[b] = scorer->score_names();
        if (b) {
          std::printf("  %s%s on %s:", p.name().c_str(), prescale ? " (prescale 0.6, 5H)" : "",
                      scorer->backend_description().c_str());
          for (const std::string& n : notices) std::printf(" [%s]", n.c_str());
          std::printf("\n");
        }
      }
      ASSERT_EQ(names[0], names[1]);
      ASSERT_EQ(frames[0].size(), frames[1].size());
      size_t differ = 0;
      for (size_t k = 0; k < frames[0].size(); k++)
        for (size_t i = 0; i < frames[0][k].values.size(); i++)
          if (!(frames[0][k].values[i] == frames[1][k].values[i])) {
            if (!differ++)
              ADD_FAILURE() << p.name() << " frame " << k << " " << names[0][i] << ": cpu " << frames[0][k].values[i]
                            << ", hip " << frames[1][k].values[i];
          }
      EXPECT_EQ(differ, 0u) << p.name();
      runs++;
    }
  }
  EXPECT_GT(runs, 0u);
}

}  // namespace
}  // namespace vmafx::hip
