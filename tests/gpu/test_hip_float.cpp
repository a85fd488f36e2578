// SPDX-License-Identifier: LGPL-2.1-or-later
// Float VIF, float ADM and float motion on the GPU (hip/float_{vif,adm,motion}_gpu.h) against the CPU reference
// (cpu/float_*.h): every row sum and every output bit for bit on synthetic frames of 8, 10 (also P010-like), 12 and
// 16 bits from 17x17 to 3840x2160 with option sets that exercise each kernel path, on the public pairs (all frames;
// also within libvmaf's printed precision of tests/data/float's JSON), with frames in flight through the slots, with
// the kernels compiled at run time, and bad input refused. adm_p_norm != 3 uses the device's powf: that case is
// compared with a tolerance and its measured maximum printed. Skips (exit 77) without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/float_adm.h"
#include "cpu/float_motion.h"
#include "cpu/float_vif.h"
#include "float_test_frames.h"
#include "gpu_device.h"
#include "hip/float_adm_gpu.h"
#include "hip/float_motion_gpu.h"
#include "hip/float_vif_gpu.h"
#include "support.h"
#include "vmafx/scorer.h"

namespace vmafx::hip {
namespace {

using vmafx::test::FloatTestPlane;

struct GpuPlane {
  DeviceBuffer buffer;
  DevicePlane view;
};

// A host plane on the device, rows `extra` bytes longer than on the host.
Status upload(const std::shared_ptr<Device>& dev, const cpu::Plane& p, size_t extra, GpuPlane* out) {
  const size_t row = size_t(p.w) * p.bytes;
  const size_t pitch = row + extra;
  std::vector<uint8_t> staging(pitch * p.h, 0x3C);
  for (uint32_t y = 0; y < p.h; ++y) std::memcpy(staging.data() + size_t(y) * pitch, p.row<uint8_t>(y), row);
  VMAFX_TRY(DeviceBuffer::create(dev, staging.size(), &out->buffer));
  VMAFX_TRY(dev->copy_async(CopyKind::host_to_device, out->buffer.data(), staging.data(), staging.size()));
  VMAFX_TRY(dev->synchronize());
  out->view = {out->buffer.data(), pitch, p.w, p.h, p.bytes, p.shift, 1};
  return Status::ok();
}

struct Format {
  const char* name;
  unsigned bpc;
  uint8_t word, shift;
};
const Format kFormats[] = {{"8-bit", 8, 1, 0},   {"10-bit", 10, 2, 0}, {"10-bit P010-like", 10, 2, 6},
                           {"12-bit", 12, 2, 0}, {"16-bit", 16, 2, 0}};

// A sequence of synthetic frames (luma pairs plus a chroma pair used as the reference's U and V).
struct Frames {
  std::vector<FloatTestPlane> ref, dist, u, v;
};
Frames make_frames(uint32_t w, uint32_t h, const Format& f, uint32_t n, uint32_t seed) {
  Frames fr;
  for (uint32_t i = 0; i < n; ++i) {
    FloatTestPlane r, d, u, v;
    vmafx::test::float_test_frame(w, h, f.bpc, f.word, f.shift, 5, seed + i, &r, &d);
    vmafx::test::float_test_frame(w / 2, h / 2, f.bpc, f.word, f.shift, 2, seed + 100 + i, &u, &v);
    fr.ref.push_back(std::move(r));
    fr.dist.push_back(std::move(d));
    fr.u.push_back(std::move(u));
    fr.v.push_back(std::move(v));
  }
  return fr;
}

// ---- comparisons -------------------------------------------------------------------------------------------------

// Returns "" or the first difference. max_rel (non-null: tolerant mode) receives the largest relative difference.
std::string compare_outputs(const double* gpu, const double* cpu, unsigned n, const char* const* names,
                            double* max_rel) {
  for (unsigned k = 0; k < n; ++k) {
    if (max_rel) {
      const double d = std::fabs(gpu[k] - cpu[k]) / std::max(1.0, std::fabs(cpu[k]));
      *max_rel = std::max(*max_rel, d);
    } else if (!(gpu[k] == cpu[k]) && !(std::isnan(gpu[k]) && std::isnan(cpu[k]))) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s: GPU %.17g CPU %.17g", names[k], gpu[k], cpu[k]);
      return buf;
    }
  }
  return "";
}

std::string run_vif(const std::shared_ptr<Device>& dev, const Frames& fr, const cpu::FloatVifOptions& o,
                    const ModuleOptions& mo = {}) {
  const cpu::Plane p0 = fr.ref[0].cpu();
  cpu::FloatVif cpu_vif;
  Status s = cpu_vif.init(p0.w, p0.h, p0.bpc, o);
  if (!s) return "cpu init: " + s.to_string();
  std::unique_ptr<FloatVifGpu> g;
  if (!(s = FloatVifGpu::create(dev, p0.w, p0.h, p0.bpc, o, 1, &g, mo))) return "create: " + s.to_string();
  for (size_t i = 0; i < fr.ref.size(); ++i) {
    GpuPlane gr, gd;
    if (!(s = upload(dev, fr.ref[i].cpu(), 7, &gr)) || !(s = upload(dev, fr.dist[i].cpu(), 64, &gd)))
      return "upload: " + s.to_string();
    if (!(s = g->enqueue_planes(gr.view, gd.view, 0)) || !(s = dev->synchronize())) return "run: " + s.to_string();
    cpu::FloatVifScores want, got;
    cpu::FloatVifRowSums want_rows, got_rows;
    if (!(s = cpu_vif.compute(fr.ref[i].cpu(), fr.dist[i].cpu(), &want, &want_rows))) return s.to_string();
    if (!(s = g->scores(0, &got, &got_rows))) return s.to_string();
    for (unsigned sc = 0; sc < cpu::kFloatVifScales; ++sc)
      if (got_rows.num[sc] != want_rows.num[sc] || got_rows.den[sc] != want_rows.den[sc])
        return "frame " + std::to_string(i) + " scale " + std::to_string(sc) + ": row sums differ";
    double a[cpu::kFloatVifOutputs], b[cpu::kFloatVifOutputs];
    if (!(s = g->finish(0, a))) return s.to_string();
    cpu::float_vif_outputs(want, b);
    const std::string d = compare_outputs(a, b, cpu::kFloatVifOutputs, cpu::kFloatVifOutputNames, nullptr);
    if (!d.empty()) return "frame " + std::to_string(i) + ": " + d;
  }
  return "";
}

std::string run_adm(const std::shared_ptr<Device>& dev, const Frames& fr, const cpu::FloatAdmOptions& o,
                    double* max_rel = nullptr, const ModuleOptions& mo = {}) {
  const cpu::Plane p0 = fr.ref[0].cpu();
  cpu::FloatAdm cpu_adm;
  Status s = cpu_adm.init(p0.w, p0.h, p0.bpc, o);
  if (!s) return "cpu init: " + s.to_string();
  std::unique_ptr<FloatAdmGpu> g;
  if (!(s = FloatAdmGpu::create(dev, p0.w, p0.h, p0.bpc, o, 1, &g, mo))) return "create: " + s.to_string();
  for (size_t i = 0; i < fr.ref.size(); ++i) {
    GpuPlane gr, gd;
    if (!(s = upload(dev, fr.ref[i].cpu(), 3, &gr)) || !(s = upload(dev, fr.dist[i].cpu(), 0, &gd)))
      return "upload: " + s.to_string();
    if (!(s = g->enqueue_planes(gr.view, gd.view, 0)) || !(s = dev->synchronize())) return "run: " + s.to_string();
    cpu::FloatAdmScores want, got;
    cpu::FloatAdmRowSums want_rows, got_rows;
    if (!(s = cpu_adm.compute(fr.ref[i].cpu(), fr.dist[i].cpu(), &want, &want_rows))) return s.to_string();
    if (!(s = g->scores(0, &got, &got_rows))) return s.to_string();
    if (!max_rel)
      for (unsigned sc = 0; sc < cpu::kFloatAdmScales; ++sc)
        for (int t = 0; t < 3; ++t)
          if (got_rows.num[sc][t] != want_rows.num[sc][t] || got_rows.aim[sc][t] != want_rows.aim[sc][t] ||
              got_rows.den[sc][t] != want_rows.den[sc][t])
            return "frame " + std::to_string(i) + " scale " + std::to_string(sc) + " band " + std::to_string(t) +
                   ": row sums differ";
    double a[cpu::kFloatAdmOutputs], b[cpu::kFloatAdmOutputs];
    if (!(s = g->finish(0, a))) return s.to_string();
    cpu::float_adm_outputs(want, b);
    const std::string d = compare_outputs(a, b, cpu::kFloatAdmOutputs, cpu::kFloatAdmOutputNames, max_rel);
    if (!d.empty()) return "frame " + std::to_string(i) + ": " + d;
  }
  return "";
}

std::string run_motion(const std::shared_ptr<Device>& dev, const Frames& fr, const cpu::FloatMotionOptions& o,
                       const ModuleOptions& mo = {}) {
  const cpu::Plane p0 = fr.ref[0].cpu();
  cpu::FloatMotion cpu_motion;
  Status s = cpu_motion.init(p0.w, p0.h, p0.bpc, Chroma::k420, o);
  if (!s) return "cpu init: " + s.to_string();
  std::unique_ptr<FloatMotionGpu> g;
  if (!(s = FloatMotionGpu::create(dev, p0.w, p0.h, p0.bpc, Chroma::k420, o, 1, &g, mo)))
    return "create: " + s.to_string();
  std::vector<cpu::FloatMotionOut> ready;
  for (size_t i = 0; i < fr.ref.size(); ++i) {
    const cpu::Plane pu = fr.u[i].cpu(), pv = fr.v[i].cpu();
    const cpu::Plane* uv[2] = {&pu, &pv};
    if (!(s = cpu_motion.compute(i, fr.ref[i].cpu(), uv, &ready))) return s.to_string();
    GpuPlane gr, gu, gv;
    if (!(s = upload(dev, fr.ref[i].cpu(), 1, &gr)) || !(s = upload(dev, pu, 9, &gu)) || !(s = upload(dev, pv, 0, &gv)))
      return "upload: " + s.to_string();
    const DevicePlane guv[2] = {gu.view, gv.view};
    if (!(s = g->enqueue_planes(gr.view, guv, i == 0, 0)) || !(s = dev->synchronize()))
      return "run: " + s.to_string();
    double score;
    if (!(s = g->finish(0, &score))) return s.to_string();
    if (score != cpu_motion.last_score()) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "frame %zu: GPU %.17g CPU %.17g", i, score, cpu_motion.last_score());
      return buf;
    }
  }
  return "";
}

// ---- synthetic frames --------------------------------------------------------------------------------------------

TEST(HipFloat, VifMatchesCpuBitForBit) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::vector<std::pair<std::string, cpu::FloatVifOptions>> sets = {{"default", {}}};
  {
    cpu::FloatVifOptions o;
    o.kernelscale = 0.5;
    o.enhn_gain_limit = 1.0;
    o.sigma_nsq = 1.0;
    o.skip_scale0 = true;
    sets.push_back({"ks 0.5, egl 1, snsq 1, skip scale 0", o});
    o = {};
    o.kernelscale = 360.0 / 97.0;
    sets.push_back({"ks 360/97 (65 taps)", o});
    for (auto m : {cpu::VifScaleMethod::nearest, cpu::VifScaleMethod::bilinear, cpu::VifScaleMethod::bicubic,
                   cpu::VifScaleMethod::lanczos4}) {
      cpu::FloatVifOptions p;
      p.prescale = m == cpu::VifScaleMethod::bicubic ? 0.7 : 1.3;
      p.prescale_method = m;
      sets.push_back({std::string("prescale ") + cpu::vif_scale_method_name(m), p});
    }
  }
  int n = 0;
  for (const Format& f : kFormats)
    for (const auto& [name, o] : sets) {
      const uint32_t w = name.find("360") != std::string::npos ? 600 : 333, h = name.find("360") != std::string::npos ? 400 : 197;
      const Frames fr = make_frames(w, h, f, 2, 11);
      EXPECT_EQ(run_vif(dev, fr, o), "") << f.name << " " << w << "x" << h << " " << name;
      ++n;
    }
  // Sizes at the edges: the smallest picture, odd sizes, 1080p, 4K (one frame).
  const uint32_t sizes[][2] = {{16, 16}, {17, 33}, {1920, 1080}, {3840, 2160}};
  for (const auto& sz : sizes) {
    const Frames fr = make_frames(sz[0], sz[1], kFormats[sz[0] > 1000 ? 2 : 0], sz[0] > 2000 ? 1 : 2, 23);
    EXPECT_EQ(run_vif(dev, fr, {}), "") << sz[0] << "x" << sz[1];
    ++n;
  }
  std::printf("%d float_vif cases bit for bit\n", n);
}

TEST(HipFloat, AdmMatchesCpuBitForBit) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::vector<std::pair<std::string, cpu::FloatAdmOptions>> sets = {{"default", {}}};
  {
    cpu::FloatAdmOptions o;
    o.csf_mode = 1;
    o.enhn_gain_limit = 1.0;
    sets.push_back({"barten csf, egl 1", o});
    o = {};
    o.csf_mode = 2;
    o.ref_display_height = 2160;
    sets.push_back({"dlm csf, 2160", o});
    o = {};
    o.bypass_cm = 1;
    o.skip_scale0 = true;
    o.skip_aim_scale = 1;
    o.f2[2] = 0.25;
    o.noise_weight = 0.0;
    sets.push_back({"bypass cm, skip scale 0, f2s2, nw 0", o});
  }
  int n = 0;
  for (const Format& f : kFormats)
    for (const auto& [name, o] : sets) {
      const Frames fr = make_frames(333, 197, f, 2, 31);
      EXPECT_EQ(run_adm(dev, fr, o), "") << f.name << " " << name;
      ++n;
    }
  const uint32_t sizes[][2] = {{17, 17}, {18, 35}, {1920, 1080}, {3840, 2160}};
  for (const auto& sz : sizes) {
    const Frames fr = make_frames(sz[0], sz[1], kFormats[sz[0] > 1000 ? 1 : 0], sz[0] > 2000 ? 1 : 2, 37);
    EXPECT_EQ(run_adm(dev, fr, {}), "") << sz[0] << "x" << sz[1];
    ++n;
  }
  std::printf("%d float_adm cases bit for bit\n", n);
}

// adm_p_norm != 3: powf per sample, the device's against glibc's.
TEST(HipFloat, AdmPNormWithinMeasuredLimit) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  cpu::FloatAdmOptions o;
  o.p_norm = 2.5;
  double max_rel = 0;
  for (const Format& f : {kFormats[0], kFormats[1]}) {
    const Frames fr = make_frames(576, 324, f, 2, 41);
    EXPECT_EQ(run_adm(dev, fr, o, &max_rel), "") << f.name;
  }
  std::printf("adm_p_norm 2.5: largest relative difference GPU vs CPU over every output: %.3g\n", max_rel);
  EXPECT_LE(max_rel, 1e-6);  // within libvmaf's printed precision
}

TEST(HipFloat, MotionMatchesCpuBitForBit) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::vector<std::pair<std::string, cpu::FloatMotionOptions>> sets = {{"default", {}}};
  {
    cpu::FloatMotionOptions o;
    o.filter_size = 3;
    sets.push_back({"3-tap", o});
    o = {};
    o.filter_size = 1;
    o.add_scale1 = true;
    sets.push_back({"identity filter, half size", o});
    o = {};
    o.add_uv = true;
    sets.push_back({"chroma", o});
  }
  int n = 0;
  for (const Format& f : kFormats)
    for (const auto& [name, o] : sets) {
      const Frames fr = make_frames(333, 197, f, 4, 51);
      EXPECT_EQ(run_motion(dev, fr, o), "") << f.name << " " << name;
      ++n;
    }
  const Frames big = make_frames(3840, 2160, kFormats[0], 2, 53);
  EXPECT_EQ(run_motion(dev, big, {}), "") << "4K";
  std::printf("%d float_motion cases bit for bit\n", n + 1);
}

// ---- slots, run-time compilation, bad input -------------------------------------------------------------------

TEST(HipFloat, FramesInFlightThroughSlots) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const uint32_t w = 576, h = 324;
  const unsigned slots = 3;
  const int frames = 7;
  const Frames fr = make_frames(w, h, kFormats[0], frames, 61);
  std::unique_ptr<FloatVifGpu> vif;
  std::unique_ptr<FloatAdmGpu> adm;
  std::unique_ptr<FloatMotionGpu> motion;
  ASSERT_OK(FloatVifGpu::create(dev, w, h, 8, {}, slots, &vif));
  ASSERT_OK(FloatAdmGpu::create(dev, w, h, 8, {}, slots, &adm));
  ASSERT_OK(FloatMotionGpu::create(dev, w, h, 8, Chroma::k420, {}, slots, &motion));
  cpu::FloatVif cv;
  cpu::FloatAdm ca;
  cpu::FloatMotion cm;
  ASSERT_OK(cv.init(w, h, 8, {}));
  ASSERT_OK(ca.init(w, h, 8, {}));
  ASSERT_OK(cm.init(w, h, 8, Chroma::k420, {}));
  std::vector<GpuPlane> gr(frames), gd(frames);
  for (int i = 0; i < frames; ++i) {
    ASSERT_OK(upload(dev, fr.ref[i].cpu(), 0, &gr[i]));
    ASSERT_OK(upload(dev, fr.dist[i].cpu(), 0, &gd[i]));
  }
  std::vector<Event> events(slots);
  for (auto& e : events) ASSERT_OK(Event::create(dev, &e));
  std::vector<int> in_slot(slots, -1);
  std::vector<double> want_motion;
  std::vector<cpu::FloatMotionOut> ready;
  for (int i = 0; i < frames; ++i) {
    ASSERT_OK(cm.compute(uint64_t(i), fr.ref[i].cpu(), nullptr, &ready));
    want_motion.push_back(cm.last_score());
  }
  int checked = 0;
  auto finish = [&](unsigned slot) {
    if (in_slot[slot] < 0) return;
    ASSERT_OK(events[slot].synchronize());
    const int i = in_slot[slot];
    double v[cpu::kFloatVifOutputs], a[cpu::kFloatAdmOutputs], m;
    ASSERT_OK(vif->finish(slot, v));
    ASSERT_OK(adm->finish(slot, a));
    ASSERT_OK(motion->finish(slot, &m));
    cpu::FloatVifScores vs;
    cpu::FloatAdmScores as;
    ASSERT_OK(cv.compute(fr.ref[i].cpu(), fr.dist[i].cpu(), &vs));
    ASSERT_OK(ca.compute(fr.ref[i].cpu(), fr.dist[i].cpu(), &as));
    double wv[cpu::kFloatVifOutputs], wa[cpu::kFloatAdmOutputs];
    cpu::float_vif_outputs(vs, wv);
    cpu::float_adm_outputs(as, wa);
    EXPECT_EQ(compare_outputs(v, wv, cpu::kFloatVifOutputs, cpu::kFloatVifOutputNames, nullptr), "") << i;
    EXPECT_EQ(compare_outputs(a, wa, cpu::kFloatAdmOutputs, cpu::kFloatAdmOutputNames, nullptr), "") << i;
    EXPECT_EQ(m, want_motion[size_t(i)]) << "motion frame " << i;
    in_slot[slot] = -1;
    ++checked;
  };
  for (int i = 0; i < frames; ++i) {
    const unsigned slot = unsigned(i) % slots;
    finish(slot);
    ASSERT_OK(vif->enqueue_planes(gr[i].view, gd[i].view, slot));
    ASSERT_OK(adm->enqueue_planes(gr[i].view, gd[i].view, slot));
    ASSERT_OK(motion->enqueue_planes(gr[i].view, nullptr, i == 0, slot));
    ASSERT_OK(events[slot].record());
    in_slot[slot] = i;
  }
  for (unsigned s = 0; s < slots; ++s) finish(s);
  EXPECT_EQ(checked, frames);
}

TEST(HipFloat, RunTimeCompiledKernelsMatchCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Rtc* rtc = nullptr;
  Status rs = load_rtc(dev->api(), &rtc);
  if (!rs) GTEST_SKIP() << "no run-time compiler on this machine: " << rs.message();
  ModuleOptions rtc_only;
  rtc_only.use_embedded = false;
  rtc_only.use_cache = false;
  const Frames fr = make_frames(333, 197, kFormats[2], 3, 71);
  cpu::FloatVifOptions vo;
  vo.prescale = 1.3;
  vo.prescale_method = cpu::VifScaleMethod::lanczos4;
  EXPECT_EQ(run_vif(dev, fr, vo, rtc_only), "");
  EXPECT_EQ(run_adm(dev, fr, {}, nullptr, rtc_only), "");
  cpu::FloatMotionOptions mo;
  mo.add_scale1 = true;
  EXPECT_EQ(run_motion(dev, fr, mo, rtc_only), "");
  std::unique_ptr<FloatVifGpu> probe;
  ASSERT_OK(FloatVifGpu::create(dev, 64, 64, 8, {}, 1, &probe, rtc_only));
  std::printf("float_vif kernels from %s\n", probe->module().origin().c_str());
  EXPECT_EQ(probe->module().origin().rfind(rtc->version, 0), 0u);
}

TEST(HipFloat, RefusesBadInput) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::unique_ptr<FloatVifGpu> vif;
  std::unique_ptr<FloatAdmGpu> adm;
  std::unique_ptr<FloatMotionGpu> motion;
  cpu::FloatVifOptions vo;
  vo.kernelscale = 1.3;
  EXPECT_EQ(FloatVifGpu::create(dev, 64, 64, 8, vo, 1, &vif).code(), Errc::invalid_argument);
  EXPECT_EQ(FloatVifGpu::create(dev, 64, 64, 9, {}, 1, &vif).code(), Errc::unsupported);
  EXPECT_EQ(FloatVifGpu::create(dev, 64, 64, 8, {}, 0, &vif).code(), Errc::invalid_argument);
  EXPECT_EQ(FloatAdmGpu::create(dev, 16, 64, 8, {}, 1, &adm).code(), Errc::unsupported);
  cpu::FloatMotionOptions mo;
  mo.add_uv = true;
  EXPECT_EQ(FloatMotionGpu::create(dev, 64, 64, 8, Chroma::k400, mo, 1, &motion).code(), Errc::unsupported);
  ASSERT_OK(FloatVifGpu::create(dev, 64, 64, 8, {}, 2, &vif));
  ASSERT_OK(FloatAdmGpu::create(dev, 64, 64, 8, {}, 2, &adm));
  const Frames fr = make_frames(64, 32, kFormats[0], 1, 81);
  GpuPlane small;
  ASSERT_OK(upload(dev, fr.ref[0].cpu(), 0, &small));
  EXPECT_EQ(vif->enqueue_planes(small.view, small.view, 0).code(), Errc::unsupported);
  EXPECT_EQ(adm->enqueue_planes(small.view, small.view, 0).code(), Errc::unsupported);
  DevicePlane empty = small.view;
  empty.data = nullptr;
  empty.height = 64;
  EXPECT_EQ(vif->enqueue_planes(empty, empty, 0).code(), Errc::invalid_argument);
  double out[cpu::kFloatAdmOutputs];
  EXPECT_EQ(vif->finish(1, out).code(), Errc::invalid_argument);  // nothing queued there
  EXPECT_EQ(vif->finish(5, out).code(), Errc::invalid_argument);
}

// ---- the public pairs --------------------------------------------------------------------------------------------

// A pair's libvmaf JSON of a float model: tests/data/generated for a generated pair, tests/data/float for a public
// one; "" when there is none (g5 has none).
std::string float_oracle(const vmafx::test::Pair& p, const std::string& model) {
  if (p.generated) return vmafx::test::has_oracle(p, model) ? p.oracle_path(model) : std::string();
  return vmafx::test::project_data_dir() + "/float/" + p.name() + "." + model + ".json";
}

// The pairs with float-model oracles: the generated g1 and g2, and the public pairs present.
std::vector<vmafx::test::Pair> float_pairs(std::vector<std::string>* absent) {
  std::vector<vmafx::test::Pair> v;
  for (const auto& p : vmafx::test::oracle_pairs_420(absent))
    if (!float_oracle(p, "vmaf_float_v0.6.1").empty()) v.push_back(p);
  return v;
}

TEST(HipFloat, PublicPairsMatchCpuAndLibvmaf) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::vector<std::string> absent, checked;
  const std::vector<vmafx::test::Pair> pairs = float_pairs(&absent);
  ASSERT_FALSE(pairs.empty());
  double max_printed = 0;
  for (const auto& p : pairs) {
    SCOPED_TRACE(p.name());
    vmafx::test::PairClips c;
    ASSERT_OK(vmafx::test::open_pair_clips(p, &c));
    vmafx::test::Oracle o;
    ASSERT_OK(vmafx::test::load_oracle(float_oracle(p, "vmaf_float_v0.6.1"), &o));
    std::unique_ptr<FloatVifGpu> vif;
    std::unique_ptr<FloatAdmGpu> adm;
    std::unique_ptr<FloatMotionGpu> motion;
    ASSERT_OK(FloatVifGpu::create(dev, p.width, p.height, p.bpc, {}, 1, &vif));
    ASSERT_OK(FloatAdmGpu::create(dev, p.width, p.height, p.bpc, {}, 1, &adm));
    ASSERT_OK(FloatMotionGpu::create(dev, p.width, p.height, p.bpc, Chroma::k420, {}, 1, &motion));
    cpu::FloatVif cv;
    cpu::FloatAdm ca;
    cpu::FloatMotion cm;
    ASSERT_OK(cv.init(p.width, p.height, p.bpc, {}));
    ASSERT_OK(ca.init(p.width, p.height, p.bpc, {}));
    ASSERT_OK(cm.init(p.width, p.height, p.bpc, Chroma::k420, {}));
    cpu::FloatMotionPost post;
    std::vector<cpu::FloatMotionOut> motion_out, cpu_ready;
    for (size_t i = 0; i < c.ref.frames(); ++i) {
      const cpu::Plane r = cpu::luma_plane(c.ref.frame(i)), d = cpu::luma_plane(c.dist.frame(i));
      GpuPlane gr, gd;
      ASSERT_OK(upload(dev, r, 0, &gr));
      ASSERT_OK(upload(dev, d, 0, &gd));
      ASSERT_OK(vif->enqueue_planes(gr.view, gd.view, 0));
      ASSERT_OK(adm->enqueue_planes(gr.view, gd.view, 0));
      ASSERT_OK(motion->enqueue_planes(gr.view, nullptr, i == 0, 0));
      ASSERT_OK(dev->synchronize());
      double v[cpu::kFloatVifOutputs], a[cpu::kFloatAdmOutputs], m;
      ASSERT_OK(vif->finish(0, v));
      ASSERT_OK(adm->finish(0, a));
      ASSERT_OK(motion->finish(0, &m));
      cpu::FloatVifScores vs;
      cpu::FloatAdmScores as;
      ASSERT_OK(cv.compute(r, d, &vs));
      ASSERT_OK(ca.compute(r, d, &as));
      ASSERT_OK(cm.compute(i, r, nullptr, &cpu_ready));
      double wv[cpu::kFloatVifOutputs], wa[cpu::kFloatAdmOutputs];
      cpu::float_vif_outputs(vs, wv);
      cpu::float_adm_outputs(as, wa);
      EXPECT_EQ(compare_outputs(v, wv, cpu::kFloatVifOutputs, cpu::kFloatVifOutputNames, nullptr), "") << i;
      EXPECT_EQ(compare_outputs(a, wa, cpu::kFloatAdmOutputs, cpu::kFloatAdmOutputNames, nullptr), "") << i;
      EXPECT_EQ(m, cm.last_score()) << "motion frame " << i;
      post.push(i, m, &motion_out);
      // Against libvmaf's JSON (6 decimals).
      const auto& want = o.frames.at(i);
      const std::pair<const char*, double> vals[] = {{"vif_scale0", v[0]}, {"vif_scale1", v[1]}, {"vif_scale2", v[2]},
                                                     {"vif_scale3", v[3]}, {"adm2", a[0]}};
      for (const auto& [k, val] : vals) {
        const double diff = std::fabs(val - want.at(k));
        max_printed = std::max(max_printed, diff);
        EXPECT_LE(diff, 1e-6) << k << " frame " << i;
      }
    }
    post.finish(&motion_out);
    ASSERT_EQ(motion_out.size(), o.frames.size());
    for (size_t i = 0; i < motion_out.size(); ++i) {
      const double diff = std::fabs(motion_out[i].motion2 - o.frames[i].at("motion2"));
      max_printed = std::max(max_printed, diff);
      EXPECT_LE(diff, 1e-6) << "motion2 frame " << i;
    }
    checked.push_back(p.name());
  }
  std::printf("GPU float features against libvmaf's JSON: max |difference| %.3g\n", max_printed);
  vmafx::test::print_pair_coverage(checked, absent);
}

// ---- through the Scorer: the HIP backend against the CPU backend, and libvmaf ---------------------------------

// Every frame of a pair scored by one backend: the FrameScores in order and the column names.
struct Scored {
  std::vector<std::string> names;
  std::vector<FrameScore> frames;
  std::string backend;
};
Status score_pair(const vmafx::test::PairClips& c, ScorerConfig cfg, Backend backend, Scored* out) {
  cfg.backend = backend;
  vmafx::test::FrameLog log;
  std::unique_ptr<Scorer> scorer;
  const PictureView f0 = c.ref.frame(0);
  VMAFX_TRY(vmafx::test::make_scorer(cfg, {f0.width, f0.height, f0.bit_depth, Chroma::k420}, &log, &scorer));
  for (size_t i = 0; i < c.ref.frames(); i++)
    VMAFX_TRY(scorer->submit(vmafx::test::frame_pair(c.ref.frame(i), c.dist.frame(i), int64_t(i), i)));
  VMAFX_TRY(scorer->flush());
  out->names = scorer->score_names();
  out->frames = log.frames();
  out->backend = scorer->backend_description();
  return Status::ok();
}

TEST(HipFloat, ScorerOnTheGpuEqualsTheCpuAndLibvmaf) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::vector<std::string> absent, checked;
  const std::vector<vmafx::test::Pair> pairs = float_pairs(&absent);
  ASSERT_FALSE(pairs.empty());
  double max_vmaf = 0;
  for (const auto& p : pairs) {
    vmafx::test::PairClips c;
    ASSERT_OK(vmafx::test::open_pair_clips(p, &c));
    for (const char* model : {"vmaf_float_v0.6.1", "vmaf_float_b_v0.6.3"}) {
      if (float_oracle(p, model).empty()) continue;  // g2: vmaf_float_v0.6.1 only
      SCOPED_TRACE(p.name() + " " + model);
      ScorerConfig cfg = vmafx::test::scorer_config(model);
      // Debug outputs, chroma motion, the half-size motion and prescaling on top of the model's features.
      cfg.features.push_back({"float_vif", {{"debug", "true"}, {"vif_prescale", "1.3"},
                                            {"vif_prescale_method", "bicubic"}}});
      cfg.features.push_back({"float_adm", {{"debug", "true"}, {"adm_csf_mode", "1"}}});
      cfg.features.push_back({"float_motion", {{"motion_add_uv", "true"}}});
      cfg.features.push_back({"float_motion", {{"motion_add_scale1", "true"}, {"debug", "false"}}});
      Scored cpu, gpu;
      ASSERT_OK(score_pair(c, cfg, Backend::cpu, &cpu));
      ASSERT_OK(score_pair(c, cfg, Backend::hip, &gpu));
      std::printf("%s %s: %s\n", p.name().c_str(), model, gpu.backend.c_str());
      EXPECT_EQ(gpu.backend.find("on the CPU"), std::string::npos) << "every float feature runs on the GPU";
      ASSERT_EQ(gpu.names, cpu.names);
      ASSERT_EQ(gpu.frames.size(), cpu.frames.size());
      for (size_t k = 0; k < gpu.frames.size(); k++)
        for (size_t j = 0; j < gpu.names.size(); j++)
          EXPECT_EQ(gpu.frames[k].values[j], cpu.frames[k].values[j]) << gpu.names[j] << " frame " << k;
      vmafx::test::Oracle o;
      ASSERT_OK(vmafx::test::load_oracle(float_oracle(p, model), &o));
      ASSERT_EQ(o.frames.size(), gpu.frames.size());
      for (size_t k = 0; k < o.frames.size(); k++) {
        const double d = std::fabs(gpu.frames[k].get("vmaf", gpu.names) - o.frames[k].at("vmaf"));
        max_vmaf = std::max(max_vmaf, d);
        EXPECT_LE(d, 1e-4) << "vmaf frame " << k;
      }
    }
    checked.push_back(p.name());
  }
  std::printf("vmaf on the GPU against libvmaf's JSON: max |difference| %.3g\n", max_vmaf);
  vmafx::test::print_pair_coverage(checked, absent);
}

// adm_p_norm != 3 stays on the CPU (the device's powf is not glibc's); the scores are the CPU's.
TEST(HipFloat, ScorerLeavesPNormToTheCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Frames fr = make_frames(96, 64, kFormats[0], 3, 91);
  std::vector<PictureView> refs, dists;
  ScorerConfig cfg = vmafx::test::scorer_config("");
  cfg.features.push_back({"float_adm", {{"adm_p_norm", "2.5"}}});
  cfg.features.push_back({"float_vif", {}});
  for (Backend b : {Backend::cpu, Backend::hip}) {
    cfg.backend = b;
    vmafx::test::FrameLog log;
    std::unique_ptr<Scorer> scorer;
    // The synthetic planes as 4:0:0 pictures (luma only).
    ASSERT_OK(vmafx::test::make_scorer(cfg, {96, 64, 8, Chroma::k400}, &log, &scorer));
    if (b == Backend::hip) {
      std::printf("%s\n", scorer->backend_description().c_str());
      EXPECT_NE(scorer->backend_description().find("float_adm"), std::string::npos);
    }
    for (size_t i = 0; i < fr.ref.size(); i++) {
      PictureView r{}, d{};
      for (int k = 0; k < 2; ++k) {
        PictureView& v = k ? d : r;
        const FloatTestPlane& p = k ? fr.dist[i] : fr.ref[i];
        v.width = p.w;
        v.height = p.h;
        v.bit_depth = 8;
        v.bytes_per_sample = 1;
        v.chroma = Chroma::k400;
        v.planes[0].data = p.bytes.data();
        v.planes[0].stride = ptrdiff_t(p.pitch);
        v.planes[0].width = p.w;
        v.planes[0].height = p.h;
      }
      ASSERT_OK(scorer->submit(vmafx::test::frame_pair(r, d, int64_t(i), i)));
    }
    ASSERT_OK(scorer->flush());
    EXPECT_EQ(log.frames().size(), fr.ref.size());
  }
}

}  // namespace
}  // namespace vmafx::hip
