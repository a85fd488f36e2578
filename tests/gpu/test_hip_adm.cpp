// SPDX-License-Identifier: LGPL-2.1-or-later
// AdmGpu (kernels/adm.hip) against the CPU reference, exactly:
//   - stage by stage (test mode: every intermediate written out): DWT bands of ref and dist, decoupled r and a, CSF
//     and masking-filter inputs of the DLM and AIM sets, at every scale, then the den / DLM / AIM integer sums and
//     the seven scores, on seeded edge-biased pictures (random, all-min, all-max, min/max noise, near copies,
//     contrast-enhanced copies, flat/noisy regions) read in place from 8-bit bytes, 16-bit words with and without a
//     shift, odd pitches and addresses and interleaved rows, at tiny and odd sizes, 1080p and 4K;
//   - the frame mode (what the pipeline runs) on the same inputs, with options (gain limit 1, skip aim, skip scale 0,
//     view distance), through several slots in flight, and a larger instance after a smaller one;
//   - the public oracle clips: bit-exact with the CPU extractor, and within 2e-6 of libvmaf's JSON;
//   - bad planes refused with a Status; the kernels compiled at run time; the time per frame at 1080p and 4K.
// Every mismatch is printed with its seed, layout, pattern, scale, stage and position. Skips (exit 77) without a
// device.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "adm_test_util.h"
#include "cpu/adm.h"
#include "cpu/plane.h"
#include "gpu_device.h"
#include "hip/adm_gpu.h"
#include "support.h"

namespace vmafx::hip {
namespace {

using namespace adm_test;  // NOLINT: the shared test vocabulary

// A host picture on the device: the same bytes per row, `extra` more bytes of pitch (odd for some), the first sample
// at the host picture's offset from an aligned base (odd addresses stay odd).
struct DevicePicture {
  DeviceBuffer buffer;
  DevicePlane plane;
};

Status upload(const std::shared_ptr<Device>& dev, const HostPicture& p, size_t extra, DevicePicture* out) {
  const size_t pitch = p.pitch + extra;
  VMAFX_TRY(DeviceBuffer::create(dev, p.offset + pitch * p.h + 16, &out->buffer));
  uint8_t* base = out->buffer.as<uint8_t>() + p.offset;
  VMAFX_TRY(dev->copy_2d_async({CopyKind::host_to_device, base, pitch, p.data(), p.pitch, p.pitch, p.h}));
  out->plane = {base, pitch, p.w, p.h, p.layout.bytes, p.layout.shift, p.layout.step};
  return Status::ok();
}

FramePlanes frame_of(const DevicePicture& r, const DevicePicture& d, unsigned bpc) {
  FramePlanes f;
  f.ref[0] = r.plane;
  f.dist[0] = d.plane;
  f.planes = 1;
  f.width = r.plane.width;
  f.height = r.plane.height;
  f.bpc = bpc;
  return f;
}

template <class T>
StagePlanes<T> as_planes(const std::vector<T>& v, int w, int h) {
  StagePlanes<T> sp;
  sp.w = w;
  sp.h = h;
  sp.v = v;
  return sp;
}

::testing::AssertionResult cpu_scores(const PicturePair& pp, const cpu::AdmOptions& opt, cpu::AdmScores* out) {
  cpu::Adm adm;
  Status s = adm.init(pp.ref.w, pp.ref.h, pp.ref.layout.bpc, opt);
  if (s) s = adm.compute(pp.ref.plane(), pp.dist.plane(), out);
  if (!s) return ::testing::AssertionFailure() << "CPU reference: " << s.to_string();
  return ::testing::AssertionSuccess();
}

// The sums the frame mode produces: the CPU's, without the parts an option switches off.
AdmFrameSums expected_sums(const Reference& want, const cpu::AdmOptions& opt) {
  AdmFrameSums s = want.sums;
  if (opt.skip_scale0) s.den[0] = {}, s.dlm[0] = {}, s.aim[0] = {};
  if (opt.skip_aim)
    for (auto& a : s.aim) a = {};
  return s;
}

// One pair on the GPU in test mode (every stage) and in frame mode, against the CPU.
void check_pair_gpu(const std::shared_ptr<Device>& dev, const PicturePair& pp, const cpu::AdmOptions& opt,
                    size_t extra_pitch, bool stages, const std::string& what) {
  SCOPED_TRACE(what);
  std::unique_ptr<AdmGpu> adm;
  ASSERT_OK(AdmGpu::create(dev, pp.ref.w, pp.ref.h, pp.ref.layout.bpc, opt, 2, &adm));
  DevicePicture r, d;
  ASSERT_OK(upload(dev, pp.ref, extra_pitch, &r));
  ASSERT_OK(upload(dev, pp.dist, extra_pitch + 1, &d));  // the two pitches differ
  const FramePlanes frame = frame_of(r, d, pp.ref.layout.bpc);
  const Reference want = run_reference(pp, opt);
  const AdmFrameSums want_sums = expected_sums(want, opt);
  AdmFrameSums got;
  if (stages) {
    AdmStageDump dump;
    ASSERT_OK(adm->run_with_dump(frame, 1, &dump));
    ASSERT_TRUE(same_stages(as_planes(dump.scale0, dump.w[0], dump.h[0]), want.s0, 0)) << " (test mode)";
    for (int s = 1; s < 4; ++s)
      ASSERT_TRUE(same_stages(as_planes(dump.scale123[s - 1], dump.w[s], dump.h[s]), want.s123[s - 1], s))
          << " (test mode)";
    ASSERT_OK(adm->sums(1, &got));
    ASSERT_TRUE(same_sums(got, want_sums)) << " (test mode)";
  }
  ASSERT_OK(adm->enqueue(frame, 0));
  ASSERT_OK(dev->synchronize());
  ASSERT_OK(adm->sums(0, &got));
  ASSERT_TRUE(same_sums(got, want_sums)) << " (frame mode)";
  cpu::AdmScores cs, gs;
  ASSERT_TRUE(cpu_scores(pp, opt, &cs));
  ASSERT_OK(adm->scores(0, &gs));
  ASSERT_TRUE(same_scores(gs, cs));
  double out[AdmGpu::kOutputs];
  ASSERT_OK(adm->finish(0, out));
  // Bit for bit, NaN included (Barten's CSF at some sizes gives NaN scores, on the CPU as in libvmaf).
  cpu::AdmScores finished;
  finished.adm2 = out[0];
  finished.aim = out[1];
  finished.adm3 = out[2];
  for (int k = 0; k < 4; ++k) finished.scale[k] = out[3 + k];
  EXPECT_TRUE(same_scores(finished, cs)) << " (finish)";
}

TEST(HipAdm, StagesMatchCpuOnSeededPictures) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  {
    std::unique_ptr<AdmGpu> probe;
    ASSERT_OK(AdmGpu::create(dev, 64, 64, 8, cpu::AdmOptions{}, 1, &probe));
    std::printf("adm kernels from %s on %s\n", probe->module().origin().c_str(), dev->info().name.c_str());
  }
  // 17..32 on an axis: libvmaf's reads before its buffers at scale 3 (adm_small_row_kernel and the small DWT).
  const Size sizes[] = {{17, 17}, {24, 31}, {300, 18}, {19, 150}, {33, 33}, {47, 35}, {97, 67}, {161, 121},
                        {333, 197}};
  uint32_t seed = 20261201;
  int pairs = 0;
  for (const Layout& lay : kLayouts) {
    for (const Size& sz : sizes) {
      for (int pat = 0; pat < kPatternCount; ++pat) {
        const PicturePair pp = make_pair(sz.w, sz.h, lay, Pattern(pat), seed);
        const std::string what = std::string(lay.name) + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) +
                                 " " + kPatternNames[pat] + " seed " + std::to_string(seed);
        check_pair_gpu(dev, pp, cpu::AdmOptions{}, (seed % 3 == 0) ? 0 : 3, true, what);
        ++seed;
        ++pairs;
        if (HasFailure()) return;
      }
    }
  }
  std::printf("%d picture pairs (%zu layouts x %zu sizes x %d patterns): every stage, sum and score equal to the "
              "CPU\n", pairs, std::size(kLayouts), std::size(sizes), int(kPatternCount));
}

TEST(HipAdm, FullHdAnd4KMatchCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  struct Case {
    Size size;
    const Layout* layout;
    Pattern pattern;
    bool stages;
  };
  const Case cases[] = {
      {{1920, 1080}, &kLayouts[0], kNear, true},      {{1920, 1080}, &kLayouts[0], kRandom, false},
      {{1920, 1080}, &kLayouts[1], kEnhanced, false}, {{1920, 1080}, &kLayouts[4], kMixed, true},
      {{1920, 1080}, &kLayouts[3], kMinMaxNoise, false}, {{3840, 2160}, &kLayouts[0], kEnhanced, true},
      {{3840, 2160}, &kLayouts[1], kNear, false},     {{3840, 2160}, &kLayouts[2], kMixed, false},
  };
  uint32_t seed = 1080;
  for (const Case& c : cases) {
    const PicturePair pp = make_pair(c.size.w, c.size.h, *c.layout, c.pattern, seed);
    const std::string what = std::string(c.layout->name) + " " + std::to_string(c.size.w) + "x" +
                             std::to_string(c.size.h) + " " + kPatternNames[c.pattern] + " seed " +
                             std::to_string(seed) + (c.stages ? " (stages and frame mode)" : " (frame mode)");
    check_pair_gpu(dev, pp, cpu::AdmOptions{}, 5, c.stages, what);
    ++seed;
    if (HasFailure()) return;
    std::printf("%s: equal to the CPU\n", what.c_str());
  }
}

TEST(HipAdm, OptionsMatchCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  struct Case {
    const char* name;
    cpu::AdmOptions opt;
  };
  std::vector<Case> cases;
  cpu::AdmOptions o;
  o.enhn_gain_limit = 1.0;
  cases.push_back({"gain limit 1 (neg models)", o});
  o = {};
  o.skip_aim = true;
  cases.push_back({"skip aim", o});
  o = {};
  o.skip_scale0 = true;
  cases.push_back({"skip scale 0", o});
  o = {};
  o.norm_view_dist = 4.0;
  cases.push_back({"view distance 4", o});
  o = {};
  o.noise_weight = 0.5;
  o.dlm_weight = 0.8;
  o.min_val = 0.3;
  cases.push_back({"noise weight 0.5, dlm weight 0.8, min val 0.3", o});
  o = {};
  o.csf_mode = cpu::kAdmCsfBlend;
  o.dlm_weight = 0.7;
  o.enhn_gain_limit = 1.0;
  o.noise_weight = 0.02;
  o.min_val = 0.5;
  cases.push_back({"v1 3d0h options (blend CSF)", o});
  o.norm_view_dist = 1.5;
  o.ref_display_height = 2160;
  cases.push_back({"v1 1d5h_2160 options", o});
  o = {};
  o.csf_mode = cpu::kAdmCsfBlendMae;
  o.norm_view_dist = 5.0;
  cases.push_back({"refitted blend CSF at 5H", o});
  o = {};
  o.csf_mode = cpu::kAdmCsfBarten;
  o.csf_scale = 0.02;
  o.csf_diag_scale = 0.005;
  cases.push_back({"Barten CSF", o});
  o = {};
  o.skip_aim = true;
  o.csf_mode = cpu::kAdmCsfBlend;
  cases.push_back({"skip aim, blend CSF (17..32: what libvmaf reads changes)", o});
  uint32_t seed = 31;
  for (const Case& c : cases) {
    for (const Size& sz : {Size{97, 67}, Size{576, 324}, Size{20, 29}}) {
      for (Pattern pat : {kNear, kEnhanced, kMixed}) {
        const PicturePair pp = make_pair(sz.w, sz.h, kLayouts[seed % 2 ? 0 : 4], pat, seed);
        const std::string what = std::string(c.name) + ", " + std::to_string(sz.w) + "x" + std::to_string(sz.h) +
                                 " " + kPatternNames[pat] + " seed " + std::to_string(seed);
        check_pair_gpu(dev, pp, c.opt, 0, true, what);
        ++seed;
        if (HasFailure()) return;
      }
    }
  }
}

// Several frames in flight in rotating slots, each cleared and read back on its own; then an instance for a larger
// picture after a smaller one (a clear lost ahead of the upload would leave a stale accumulator that adds the earlier
// frame's sums: hip/feature.h).
TEST(HipAdm, SlotsInFlightAndLargerAfterSmaller) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const unsigned slots = 3;
  const int frames = 7;
  const Layout& lay = kLayouts[1];
  std::unique_ptr<AdmGpu> adm;
  ASSERT_OK(AdmGpu::create(dev, 576, 324, lay.bpc, cpu::AdmOptions{}, slots, &adm));
  std::vector<PicturePair> pairs;
  std::vector<DevicePicture> refs(frames), dists(frames);
  for (int i = 0; i < frames; ++i) {
    pairs.push_back(make_pair(576, 324, lay, Pattern(i % kPatternCount), 500 + uint32_t(i)));
    ASSERT_OK(upload(dev, pairs[i].ref, 0, &refs[i]));
    ASSERT_OK(upload(dev, pairs[i].dist, 2, &dists[i]));
  }
  ASSERT_OK(dev->synchronize());
  int checked = 0;
  for (int first = 0; first < frames; first += int(slots)) {
    const int n = std::min(int(slots), frames - first);
    for (int k = 0; k < n; ++k) ASSERT_OK(adm->enqueue(frame_of(refs[first + k], dists[first + k], lay.bpc), unsigned(k)));
    ASSERT_OK(dev->synchronize());
    for (int k = 0; k < n; ++k) {
      cpu::AdmScores cs, gs;
      ASSERT_TRUE(cpu_scores(pairs[first + k], cpu::AdmOptions{}, &cs));
      ASSERT_OK(adm->scores(unsigned(k), &gs));
      ASSERT_TRUE(same_scores(gs, cs)) << "frame " << first + k << " in slot " << k << " (" 
                                       << kPatternNames[(first + k) % kPatternCount] << ", seed " << 500 + first + k
                                       << ")";
      ++checked;
    }
  }
  EXPECT_EQ(checked, frames);
  adm.reset();
  for (const Size& sz : {Size{64, 48}, Size{1920, 1080}}) {
    const PicturePair pp = make_pair(sz.w, sz.h, kLayouts[0], kNear, 4000 + sz.w);
    std::unique_ptr<AdmGpu> a;
    ASSERT_OK(AdmGpu::create(dev, sz.w, sz.h, 8, cpu::AdmOptions{}, 1, &a));
    DevicePicture r, d;
    ASSERT_OK(upload(dev, pp.ref, 0, &r));
    ASSERT_OK(upload(dev, pp.dist, 0, &d));
    ASSERT_OK(a->enqueue(frame_of(r, d, 8), 0));
    ASSERT_OK(dev->synchronize());
    cpu::AdmScores cs, gs;
    ASSERT_TRUE(cpu_scores(pp, cpu::AdmOptions{}, &cs));
    ASSERT_OK(a->scores(0, &gs));
    ASSERT_TRUE(same_scores(gs, cs)) << "first frame of a " << sz.w << "x" << sz.h << " instance";
  }
  std::printf("%d frames through %u slots, then 64x48 and 1920x1080 first frames: equal to the CPU\n", frames, slots);
}

TEST(HipAdm, RefusesBadFrames) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::unique_ptr<AdmGpu> adm;
  ASSERT_OK(AdmGpu::create(dev, 64, 48, 10, cpu::AdmOptions{}, 2, &adm));
  EXPECT_STREQ(adm->name(), "adm");
  EXPECT_EQ(adm->output_count(), 7u);
  DeviceBuffer b;
  ASSERT_OK(DeviceBuffer::create(dev, 64 * 2 * 48 + 256, &b));
  DevicePlane p{b.data(), 128, 64, 48, 2, 0, 1};
  FramePlanes f;
  f.ref[0] = f.dist[0] = p;
  f.width = 64;
  f.height = 48;
  f.bpc = 10;
  EXPECT_TRUE(adm->enqueue(f, 1).is_ok());
  // enqueue() only asserts what the pipeline checked; the checked entry point (the test mode's) refuses, allocating
  // nothing and queueing nothing.
  AdmStageDump dump;
  EXPECT_EQ(adm->run_with_dump(f, 2, &dump).code(), Errc::invalid_argument);  // slot out of range
  FramePlanes g = f;
  g.bpc = 8;
  EXPECT_EQ(adm->run_with_dump(g, 0, &dump).code(), Errc::unsupported);
  g = f;
  g.width = 65;
  EXPECT_EQ(adm->run_with_dump(g, 0, &dump).code(), Errc::unsupported);
  g = f;
  g.dist[0].height = 47;
  EXPECT_EQ(adm->run_with_dump(g, 0, &dump).code(), Errc::unsupported);
  g = f;
  g.ref[0].pitch = 127;
  EXPECT_EQ(adm->run_with_dump(g, 0, &dump).code(), Errc::invalid_argument);  // a row does not fit the pitch
  g = f;
  g.ref[0].bytes = 1;
  EXPECT_EQ(adm->run_with_dump(g, 0, &dump).code(), Errc::unsupported);
  g = f;
  g.ref[0].shift = 7;
  EXPECT_EQ(adm->run_with_dump(g, 0, &dump).code(), Errc::unsupported);
  g = f;
  g.dist[0].data = nullptr;
  EXPECT_EQ(adm->run_with_dump(g, 0, &dump).code(), Errc::invalid_argument);
  double out[7];
  EXPECT_EQ(adm->finish(5, out).code(), Errc::invalid_argument);
  std::unique_ptr<AdmGpu> bad;
  EXPECT_EQ(AdmGpu::create(dev, 16, 48, 8, cpu::AdmOptions{}, 1, &bad).code(), Errc::unsupported);  // 17 the least
  EXPECT_EQ(AdmGpu::create(dev, 64, 48, 8, cpu::AdmOptions{}, 0, &bad).code(), Errc::invalid_argument);
  cpu::AdmOptions o;
  o.enhn_gain_limit = 200;
  EXPECT_EQ(AdmGpu::create(dev, 64, 48, 8, o, 1, &bad).code(), Errc::invalid_argument);
  EXPECT_FALSE(bad);
  ASSERT_OK(dev->synchronize());
  EXPECT_TRUE(dev->status().is_ok());
}

TEST(HipAdm, RunTimeCompiledKernelsMatchCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Rtc* rtc = nullptr;
  Status rs = load_rtc(dev->api(), &rtc);
  if (!rs) GTEST_SKIP() << "no run-time compiler on this machine: " << rs.message();
  ModuleOptions rtc_only;
  rtc_only.use_embedded = false;
  rtc_only.use_cache = false;
  const PicturePair pp = make_pair(1920, 1080, kLayouts[4], kEnhanced, 77);
  std::unique_ptr<AdmGpu> adm;
  ASSERT_OK(AdmGpu::create(dev, 1920, 1080, 10, cpu::AdmOptions{}, 1, rtc_only, &adm));
  std::printf("adm kernels from %s\n", adm->module().origin().c_str());
  EXPECT_EQ(adm->module().origin().rfind(rtc->version, 0), 0u);
  DevicePicture r, d;
  ASSERT_OK(upload(dev, pp.ref, 1, &r));
  ASSERT_OK(upload(dev, pp.dist, 0, &d));
  ASSERT_OK(adm->enqueue(frame_of(r, d, 10), 0));
  ASSERT_OK(dev->synchronize());
  cpu::AdmScores cs, gs;
  ASSERT_TRUE(cpu_scores(pp, cpu::AdmOptions{}, &cs));
  ASSERT_OK(adm->scores(0, &gs));
  ASSERT_TRUE(same_scores(gs, cs));
}

// The public clips: every frame bit-exact with the CPU extractor, and libvmaf's JSON within its printed precision;
// pair a also with the neg model's gain limit 1 (its *_egl_1 columns).
TEST(HipAdm, OracleClipsMatchCpuAndLibvmaf) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const char* names[7] = {"integer_adm2",       "integer_aim",        "integer_adm3",      "integer_adm_scale0",
                          "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3"};
  double max_diff[7] = {0, 0, 0, 0, 0, 0, 0};
  size_t frames = 0;
  std::vector<std::string> checked, absent;
  for (const auto& pair : vmafx::test::oracle_pairs_420(&absent)) {
    vmafx::test::PairClips clips;
    ASSERT_OK(vmafx::test::open_pair_clips(pair, &clips));
    const vmafx::test::YuvClip &ref = clips.ref, &dist = clips.dist;
    struct Model {
      const char* oracle;
      const char* suffix;
      double gain;
    };
    std::vector<Model> models = {{"vmaf_v0.6.1", "", 100.0}};
    if (vmafx::test::file_exists(pair.oracle_path("vmaf_v0.6.1neg"))) models.push_back({"vmaf_v0.6.1neg", "_egl_1", 1.0});
    for (const Model& m : models) {
      vmafx::test::Oracle oracle;
      ASSERT_OK(vmafx::test::load_oracle(pair.oracle_path(m.oracle), &oracle));
      ASSERT_EQ(oracle.frames.size(), ref.frames()) << pair.prefix;
      cpu::AdmOptions opt;
      opt.enhn_gain_limit = m.gain;
      std::unique_ptr<AdmGpu> adm;
      ASSERT_OK(AdmGpu::create(dev, pair.width, pair.height, pair.bpc, opt, 2, &adm));
      cpu::Adm cpu_adm;
      ASSERT_OK(cpu_adm.init(pair.width, pair.height, pair.bpc, opt));
      DeviceBuffer planes;
      ASSERT_OK(DeviceBuffer::create(dev, 2 * ref.frame_size(), &planes));
      for (size_t i = 0; i < ref.frames(); ++i) {
        const PictureView rv = ref.frame(i), dv = dist.frame(i);
        uint8_t* dref = planes.as<uint8_t>();
        uint8_t* ddist = dref + ref.frame_size();
        ASSERT_OK(dev->copy_async(CopyKind::host_to_device, dref, ref.frame_data(i), ref.frame_size()));
        ASSERT_OK(dev->copy_async(CopyKind::host_to_device, ddist, dist.frame_data(i), dist.frame_size()));
        const cpu::Plane cr = cpu::luma_plane(rv), cd = cpu::luma_plane(dv);
        FramePlanes f;
        f.ref[0] = {dref + (cr.data - ref.frame_data(i)), size_t(cr.stride), cr.w, cr.h, cr.bytes, cr.shift, cr.step};
        f.dist[0] = {ddist + (cd.data - dist.frame_data(i)), size_t(cd.stride), cd.w, cd.h, cd.bytes, cd.shift,
                     cd.step};
        f.width = pair.width;
        f.height = pair.height;
        f.bpc = pair.bpc;
        const unsigned slot = unsigned(i % 2);
        ASSERT_OK(adm->enqueue(f, slot));
        ASSERT_OK(dev->synchronize());
        cpu::AdmScores want, got;
        ASSERT_OK(cpu_adm.compute(cr, cd, &want));
        ASSERT_OK(adm->scores(slot, &got));
        ASSERT_TRUE(same_scores(got, want)) << pair.prefix << "_" << pair.distorted << " " << m.oracle << " frame " << i;
        double out[7];
        ASSERT_OK(adm->finish(slot, out));
        for (int k = 0; k < 7; ++k) {
          const double expect = oracle.frames[i].at(std::string(names[k]) + m.suffix);
          max_diff[k] = std::max(max_diff[k], std::abs(out[k] - expect));
          EXPECT_NEAR(out[k], expect, 2e-6) << pair.prefix << "_" << pair.distorted << " frame " << i << " "
                                            << names[k] << m.suffix;
        }
        ++frames;
      }
      checked.push_back(pair.name() + " (" + m.oracle + ")");
    }
  }
  vmafx::test::print_pair_coverage(checked, absent);
  ASSERT_FALSE(checked.empty()) << "no oracle clip found under " << vmafx::test::shared_testdata_dir();
  std::printf("%zu oracle frames bit-exact with the CPU extractor; max |GPU - libvmaf JSON|:", frames);
  for (int k = 0; k < 7; ++k) std::printf(" %s %.3g", names[k], max_diff[k]);
  std::printf(" (JSON rounding is 5e-7)\n");
}

// Frames already on the device, the pipeline's order (enqueue into rotating slots, read back, finish): the time per
// frame of ADM alone at 1080p and 4K, 8-bit. The last frame's scores are checked against the CPU.
TEST(HipAdm, TimePerFrame) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  for (const Size& sz : {Size{1920, 1080}, Size{3840, 2160}}) {
    const PicturePair pp = make_pair(sz.w, sz.h, kLayouts[0], kNear, 99);
    const unsigned slots = 3;
    std::unique_ptr<AdmGpu> adm;
    ASSERT_OK(AdmGpu::create(dev, sz.w, sz.h, 8, cpu::AdmOptions{}, slots, &adm));
    DevicePicture r, d;
    ASSERT_OK(upload(dev, pp.ref, 0, &r));
    ASSERT_OK(upload(dev, pp.dist, 0, &d));
    const FramePlanes f = frame_of(r, d, 8);
    for (int i = 0; i < 5; ++i) ASSERT_OK(adm->enqueue(f, unsigned(i) % slots));  // warm-up
    ASSERT_OK(dev->synchronize());
    const int frames = sz.w > 2000 ? 100 : 300;
    Event done[3];
    for (auto& e : done) ASSERT_OK(Event::create(dev, &e));
    double out[7];
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < frames; ++i) {
      const unsigned slot = unsigned(i) % slots;
      if (i >= int(slots)) {
        ASSERT_OK(done[slot].synchronize());  // the slot's previous frame
        ASSERT_OK(adm->finish(slot, out));
      }
      ASSERT_OK(adm->enqueue(f, slot));
      ASSERT_OK(done[slot].record());
    }
    ASSERT_OK(dev->synchronize());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    cpu::AdmScores cs, gs;
    ASSERT_TRUE(cpu_scores(pp, cpu::AdmOptions{}, &cs));
    ASSERT_OK(adm->scores(unsigned(frames - 1) % slots, &gs));
    ASSERT_TRUE(same_scores(gs, cs));
    std::printf("adm %ux%u 8-bit, frames on the device: %.4f ms/frame (%.0f fps) over %d frames\n", sz.w, sz.h,
                ms / frames, 1000.0 * frames / ms, frames);
  }
}

}  // namespace
}  // namespace vmafx::hip
