// SPDX-License-Identifier: LGPL-2.1-or-later
// float_psnr, float_ansnr, float_moment, speed_temporal and ssimulacra2 on the GPU: the scorer with backend=hip
// against backend=cpu, exactly (==, every score of every frame), with every one of these features computed on the
// device (the backend's description names no CPU part): the clips derived from the sample pair (8, 10, 12, 16 bits;
// 4:2:0, 4:2:2, 4:4:4; identical pairs), speed_temporal's and ssimulacra2's options, a 4:0:0 clip, the public pairs
// present, threads 0 and 2, subsample 1 and 2, and a 4K frame pair; 16-bit pictures of 2^21 pixels or more leave
// float_psnr and float_moment to the CPU (checked too). The CPU scores themselves are checked against libvmaf and the
// reference tool by test_cpu_float_misc and test_cpu_ssimulacra2. Without a device every test skips (exit 77).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "derived_clips.h"
#include "gpu_device.h"
#include "support.h"
#include "vmafx/scorer.h"

namespace vmafx {
namespace {

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

#define VMAFX_METRICS_DEVICE_OR_SKIP()                                \
  do {                                                                \
    std::shared_ptr<hip::Device> dev_;                                \
    const Status s_ = hip::test::test_device(&dev_);                  \
    if (!s_) GTEST_SKIP() << "no GPU device: " << s_.to_string();     \
  } while (0)

struct Run {
  Status status;
  std::string backend;
  std::vector<std::string> names;
  std::vector<FrameScore> frames;
};

Run score(Backend b, const std::vector<FeatureRequest>& features, const VideoGeometry& g,
          const std::vector<PictureView>& refs, const std::vector<PictureView>& dists, unsigned threads,
          unsigned subsample) {
  Run r;
  ScorerConfig cfg;
  cfg.models.clear();
  cfg.features = features;
  cfg.backend = b;
  cfg.vendor = test_vendor();
  cfg.device_id = test_device_id();
  cfg.threads = threads;
  cfg.subsample = subsample;
  test::FrameLog log;
  std::unique_ptr<Scorer> s;
  r.status = test::make_scorer(cfg, g, &log, &s);
  if (!r.status) return r;
  r.backend = s->backend_description();
  r.names = s->score_names();
  for (size_t i = 0; i < refs.size() && r.status; ++i) r.status = s->submit(test::frame_pair(refs[i], dists[i], i, i));
  if (r.status) r.status = s->flush();
  r.frames = log.frames();
  return r;
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Scores with both backends; every value equal; the GPU run has no CPU part unless `cpu_part` names it.
void expect_gpu_equals_cpu(const std::string& what, const std::vector<FeatureRequest>& features,
                           const VideoGeometry& g, const std::vector<PictureView>& refs,
                           const std::vector<PictureView>& dists, unsigned threads, unsigned subsample,
                           size_t* values, const std::string& cpu_part = "") {
  const Run cpu = score(Backend::cpu, features, g, refs, dists, threads, subsample);
  ASSERT_TRUE(cpu.status.is_ok()) << what << ": " << cpu.status.to_string();
  const Run gpu = score(Backend::hip, features, g, refs, dists, threads, subsample);
  ASSERT_TRUE(gpu.status.is_ok()) << what << ": " << gpu.status.to_string();
  if (cpu_part.empty())
    EXPECT_EQ(gpu.backend.find("on the CPU"), std::string::npos) << what << ": " << gpu.backend;
  else
    EXPECT_NE(gpu.backend.find("on the CPU: " + cpu_part), std::string::npos) << what << ": " << gpu.backend;
  ASSERT_EQ(cpu.names, gpu.names) << what;
  ASSERT_EQ(cpu.frames.size(), gpu.frames.size()) << what;
  size_t differ = 0;
  for (size_t f = 0; f < cpu.frames.size(); ++f) {
    for (size_t i = 0; i < cpu.names.size(); ++i) {
      const double a = cpu.frames[f].values[i], b = gpu.frames[f].values[i];
      if (!same(a, b) && differ++ < 5)
        ADD_FAILURE() << what << " frame " << f << " " << cpu.names[i] << ": cpu " << a << ", hip " << b << " ("
                      << (b - a) << ")";
      ++*values;
    }
  }
  EXPECT_EQ(differ, 0u) << what;
}

std::vector<PictureView> views(const test::YuvClip& c) {
  std::vector<PictureView> v;
  for (size_t i = 0; i < c.frames(); ++i) v.push_back(c.frame(i));
  return v;
}

const std::vector<FeatureRequest> kAll = {{"float_psnr", {}},  {"float_ansnr", {}},    {"float_moment", {}},
                                          {"speed_temporal", {}}, {"ssimulacra2", {}}};

TEST(HipMetrics, DerivedClipsEqualCpu) {
  VMAFX_METRICS_DEVICE_OR_SKIP();
  size_t values = 0;
  unsigned k = 0;
  for (const test::DerivedClip& c : test::derived_clips()) {
    test::PairClips pc;
    ASSERT_OK(test::open_derived_clip(c, &pc));
    const unsigned threads = (k & 1) ? 2 : 0, subsample = (k & 2) ? 2 : 1;
    expect_gpu_equals_cpu(c.name, kAll, test::derived_geometry(c), views(pc.ref), views(pc.dist), threads, subsample,
                          &values);
    ++k;
  }
  std::printf("  derived clips: %zu values, hip == cpu\n", values);
}

TEST(HipMetrics, OptionsEqualCpu) {
  VMAFX_METRICS_DEVICE_OR_SKIP();
  const test::DerivedClip* c = test::find_derived_clip("sample");
  ASSERT_NE(c, nullptr);
  test::PairClips pc;
  ASSERT_OK(test::open_derived_clip(*c, &pc));
  const std::vector<FeatureRequest> opts = {
      {"speed_temporal", {{"speed_prescale", "0.5"}, {"speed_prescale_method", "bilinear"}}},
      {"speed_temporal", {{"speed_prescale", "0.7"}, {"speed_prescale_method", "lanczos4"}}},
      {"speed_temporal", {{"speed_prescale", "0.6"}, {"speed_prescale_method", "bicubic"}}},
      {"speed_temporal", {{"speed_prescale", "0.8"}}},
      {"speed_temporal", {{"speed_kernelscale", "2"}, {"speed_sigma_nn", "0.5"}}},
      {"speed_temporal", {{"speed_kernelscale", "0.5"}, {"speed_nn_floor", "0.3"}}},
      {"speed_temporal", {{"speed_use_ref_diff", "true"}}},
      {"ssimulacra2", {{"yuv_matrix", "bt2020"}, {"yuv_range", "full"}}},
  };
  size_t values = 0;
  expect_gpu_equals_cpu("sample, options", opts, test::derived_geometry(*c), views(pc.ref), views(pc.dist), 2, 1,
                        &values);
  std::printf("  option sets: %zu values, hip == cpu\n", values);
}

TEST(HipMetrics, PublicPairsEqualCpu) {
  VMAFX_METRICS_DEVICE_OR_SKIP();
  std::vector<std::string> absent, checked;
  size_t values = 0;
  for (const test::Pair& p : test::present_pairs(&absent)) {
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(p, &c));
    expect_gpu_equals_cpu(p.name(), kAll, {p.width, p.height, uint8_t(p.bpc), Chroma::k420}, views(c.ref),
                          views(c.dist), 2, 1, &values);
    checked.push_back(p.name());
  }
  test::print_pair_coverage(checked, absent);
  if (checked.empty()) GTEST_SKIP() << "no public pair in ../shared/testdata";
  std::printf("  public pairs: %zu values, hip == cpu\n", values);
}

// Synthetic pictures of any size and depth: a smooth gradient plus a hashed texture, the distorted one shifted and
// noisier. Planar, 16-bit little-endian words above 8 bits.
struct Synth {
  std::vector<std::vector<uint8_t>> data;
  std::vector<PictureView> ref, dist;
};
uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
void make_synth(uint32_t w, uint32_t h, unsigned bpc, const char* chroma, unsigned frames, Synth* s) {
  FormatInfo fmt;
  ASSERT_OK(parse_pixel_format(chroma, bpc, &fmt));
  PlaneLayout lay[3];
  size_t fs = 0;
  const unsigned np = packed_layout(fmt, w, h, lay, &fs);
  const uint32_t max = (1u << bpc) - 1;
  for (unsigned f = 0; f < 2 * frames; ++f) {
    const bool dist = f & 1;
    std::vector<uint8_t> buf(fs);
    for (unsigned p = 0; p < np; ++p) {
      const uint32_t pw = p ? chroma_width_stored(fmt.chroma, w) : w, ph = p ? chroma_height_stored(fmt.chroma, h) : h;
      for (uint32_t y = 0; y < ph; ++y)
        for (uint32_t x = 0; x < pw; ++x) {
          const uint32_t t = f / 2;
          double v = 0.5 + 0.3 * std::sin(0.013 * (x + 3 * t) + 0.021 * y + p) +
                     0.1 * ((hash32(x * 131 + y * 7919 + p * 17 + t) & 1023) / 1023.0 - 0.5);
          if (dist) v += 0.04 * ((hash32(x * 31 + y * 1031 + p + 977 * t) & 255) / 255.0 - 0.5);
          const uint32_t s = uint32_t(std::fmin(std::fmax(v, 0.0), 1.0) * max + 0.5);
          uint8_t* at = buf.data() + lay[p].offset + size_t(y) * lay[p].stride + size_t(x) * (bpc > 8 ? 2 : 1);
          at[0] = uint8_t(s & 0xff);
          if (bpc > 8) at[1] = uint8_t(s >> 8);
        }
    }
    s->data.push_back(std::move(buf));
  }
  for (unsigned f = 0; f < 2 * frames; ++f) {
    PictureView v;
    ASSERT_OK(make_picture_view(fmt, w, h, s->data[f].data(), s->data[f].size(), lay, np, &v));
    (f & 1 ? s->dist : s->ref).push_back(v);
  }
}

TEST(HipMetrics, GrayAndOddSizesEqualCpu) {
  VMAFX_METRICS_DEVICE_OR_SKIP();
  size_t values = 0;
  struct Case {
    uint32_t w, h;
    unsigned bpc;
    const char* chroma;
  };
  for (const Case c : {Case{333, 217, 8, "400"}, Case{97, 83, 10, "420"}, Case{130, 95, 12, "422"},
                       Case{181, 102, 16, "444"}}) {
    Synth s;
    make_synth(c.w, c.h, c.bpc, c.chroma, 3, &s);
    const Chroma ch = !std::strcmp(c.chroma, "400")   ? Chroma::k400
                      : !std::strcmp(c.chroma, "420") ? Chroma::k420
                      : !std::strcmp(c.chroma, "422") ? Chroma::k422
                                                      : Chroma::k444;
    std::vector<FeatureRequest> f = kAll;
    const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h) + " " + c.chroma;
    expect_gpu_equals_cpu(what, f, {c.w, c.h, uint8_t(c.bpc), ch}, s.ref, s.dist, 0, 1, &values);
  }
  std::printf("  gray and odd sizes: %zu values, hip == cpu\n", values);
}

TEST(HipMetrics, FourKEqualsCpu) {
  VMAFX_METRICS_DEVICE_OR_SKIP();
  size_t values = 0;
  Synth s;
  make_synth(3840, 2160, 10, "420", 2, &s);
  expect_gpu_equals_cpu("3840x2160 10-bit", kAll, {3840, 2160, 10, Chroma::k420}, s.ref, s.dist, 2, 1, &values);
  // 16 bits at 2^21 pixels and more: the double sums of float_psnr and float_moment may round, so the CPU scores
  // them (the GPU's integer sums would be exact).
  Synth b;
  make_synth(2048, 1024, 16, "420", 2, &b);
  expect_gpu_equals_cpu("2048x1024 16-bit", {{"float_psnr", {}}, {"float_moment", {}}, {"float_ansnr", {}}},
                        {2048, 1024, 16, Chroma::k420}, b.ref, b.dist, 0, 1, &values, "float_psnr, float_moment");
  std::printf("  4K and large 16-bit: %zu values, hip == cpu\n", values);
}

}  // namespace
}  // namespace vmafx
