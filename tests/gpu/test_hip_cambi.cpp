// SPDX-License-Identifier: LGPL-2.1-or-later
// CAMBI on the GPU (hip/cambi_gpu.h) against the CPU reference (cpu/cambi.h), exactly: synthetic and noise pictures
// of 8..16 bits in several storage layouts (bytes, 16-bit words, P010-like shifted words with noise below, odd
// pitches and start addresses), every option family, stage by stage (each scale's filtered image, keys, c-values as
// float bits, pooling sums) and as scores; the host pooling path (4K content and forced); full-reference mode;
// bad input refused; frames in flight through the slots; the kernels compiled at run time; libvmaf's JSONs (public
// pairs, default and v1 options; the synthetic fixtures of tests/data/cambi bit for bit); throughput with frames on
// the device; the Scorer with backend=hip against backend=cpu. Skips (exit 77) without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cambi_synth.h"
#include "cpu/cambi.h"
#include "cpu/plane.h"
#include "gpu_device.h"
#include "hip/cambi_gpu.h"
#include "support.h"
#include "vmafx/scorer.h"

namespace vmafx::hip {
namespace {

constexpr unsigned kScales = cpu::kCambiScales;

Status parse_options(const std::string& text, cpu::CambiOptions* o) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(':', at);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(at, end - at);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return {Errc::invalid_argument, "option without a value: " + item};
    VMAFX_TRY(cpu::cambi_set_option(o, item.substr(0, eq), item.substr(eq + 1)));
    at = end + 1;
  }
  return Status::ok();
}

bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// How a plane is stored on the host (for the CPU) and on the device.
struct Format {
  const char* name;
  uint8_t word, shift;
  size_t dev_offset;  // bytes before the plane on the device (odd: unaligned words)
  size_t dev_pad;     // bytes after each row on the device
};
const Format kBytes{"bytes", 1, 0, 0, 0};
const Format kWords{"16-bit words", 2, 0, 0, 0};
const Format kP010{"shifted words (P010), noise below", 2, 6, 0, 0};
const Format kOddBytes{"bytes, odd pitch and start", 1, 0, 3, 5};
const Format kOddWords{"16-bit words at odd addresses", 2, 0, 1, 3};

struct HostPlane {
  std::vector<uint8_t> bytes;
  size_t pitch = 0;
  uint32_t w = 0, h = 0;
  uint8_t word = 1, shift = 0;
  unsigned bpc = 8;
  cpu::Plane cpu() const {
    cpu::Plane p;
    p.data = bytes.data();
    p.stride = ptrdiff_t(pitch);
    p.w = w;
    p.h = h;
    p.bytes = word;
    p.shift = shift;
    p.step = 1;
    p.bpc = uint8_t(bpc);
    return p;
  }
};

HostPlane store(const std::vector<uint16_t>& img, uint32_t w, uint32_t h, unsigned bpc, const Format& f,
                uint32_t seed) {
  std::mt19937 rng(seed);
  HostPlane p;
  p.w = w;
  p.h = h;
  p.word = f.word;
  p.shift = f.shift;
  p.bpc = bpc;
  p.pitch = size_t(w) * f.word;
  p.bytes.resize(p.pitch * h);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const uint32_t v = img[size_t(y) * w + x];
      uint8_t* q = p.bytes.data() + y * p.pitch + size_t(x) * f.word;
      if (f.word == 1) {
        q[0] = uint8_t(v);
      } else {
        const uint32_t word = (v << f.shift) | (f.shift ? (rng() & ((1u << f.shift) - 1)) : 0);
        q[0] = uint8_t(word);
        q[1] = uint8_t(word >> 8);
      }
    }
  return p;
}

struct GpuPlane {
  DeviceBuffer buffer;
  DevicePlane view;
};

Status upload(const std::shared_ptr<Device>& dev, const HostPlane& p, const Format& f, GpuPlane* out) {
  const size_t row = size_t(p.w) * p.word, pitch = row + f.dev_pad, bytes = f.dev_offset + pitch * p.h;
  std::vector<uint8_t> staging(bytes, 0x5A);
  for (uint32_t y = 0; y < p.h; ++y)
    std::memcpy(staging.data() + f.dev_offset + size_t(y) * pitch, p.bytes.data() + size_t(y) * p.pitch, row);
  VMAFX_TRY(DeviceBuffer::create(dev, bytes, &out->buffer));
  VMAFX_TRY(dev->copy_async(CopyKind::host_to_device, out->buffer.data(), staging.data(), bytes));
  VMAFX_TRY(dev->synchronize());
  out->view = {out->buffer.as<uint8_t>() + f.dev_offset, pitch, p.w, p.h, p.word, p.shift, 1};
  return Status::ok();
}

std::vector<uint16_t> noise(uint32_t w, uint32_t h, unsigned bpc, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint16_t> v(size_t(w) * h);
  for (auto& x : v) x = uint16_t(rng() % (1u << bpc));
  return v;
}

// Flat blocks of nearby levels: many masked pixels, windows with several values.
std::vector<uint16_t> blocks(uint32_t w, uint32_t h, unsigned bpc, uint32_t seed) {
  std::mt19937 rng(seed);
  const uint32_t max = (1u << bpc) - 1, base = rng() % (max / 2);
  std::vector<uint16_t> v(size_t(w) * h);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const uint32_t b = (x / 9) * 31 + (y / 5) * 17;
      v[size_t(y) * w + x] = uint16_t(std::min(max, base + ((b * 2654435761u >> 28) << (bpc - 8))));
    }
  return v;
}

// Steps of one 10-bit value (what max_log_contrast 0 sees), at 10 bits and up.
std::vector<uint16_t> fine_steps(uint32_t w, uint32_t h, unsigned bpc, unsigned frame) {
  std::vector<uint16_t> v(size_t(w) * h);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      v[size_t(y) * w + x] = uint16_t((100u + ((x + frame) / 12 + y / 6) % 3) << (bpc - 10));
  return v;
}

struct Case {
  const char* name;
  uint32_t w, h;
  unsigned bpc;
  int content;  // 0 synth, 1 gradient, 2 blocks, 3 noise, 4 steps, 5 single-value steps (10 bits and up)
  Format format;
  const char* options;
};

std::vector<uint16_t> content_of(const Case& c, unsigned frame) {
  switch (c.content) {
    case 0: return vmafx::test::cambi_synth_luma(c.w, c.h, c.bpc, frame);
    case 1: return vmafx::test::cambi_synth_gradient(c.w, c.h, c.bpc, frame);
    case 2: return blocks(c.w, c.h, c.bpc, c.w + frame);
    case 4: return vmafx::test::cambi_synth_steps(c.w, c.h, c.bpc, frame);
    case 5: return fine_steps(c.w, c.h, c.bpc, frame);
    default: return noise(c.w, c.h, c.bpc, c.h + frame);
  }
}

// One picture pair through the GPU (slot 0) and the CPU: "" or the first mismatch.
std::string run_case(const std::shared_ptr<Device>& dev, const Case& c, const ModuleOptions& mo = {},
                     const CambiGpuOptions& go = {}, uint64_t* host_pooled = nullptr) {
  cpu::CambiOptions o;
  Status s = parse_options(c.options, &o);
  if (!s) return s.to_string();
  const HostPlane hd = store(content_of(c, 0), c.w, c.h, c.bpc, c.format, 1);
  const HostPlane hr = store(content_of(c, 40), c.w, c.h, c.bpc, c.format, 2);
  std::unique_ptr<CambiGpu> g;
  s = CambiGpu::create(dev, c.w, c.h, c.bpc, o, 1, &g, mo, go);
  if (!s) return "create: " + s.to_string();
  GpuPlane gd, gr;
  if (!(s = upload(dev, hd, c.format, &gd)) || !(s = upload(dev, hr, c.format, &gr))) return s.to_string();
  if (!(s = g->enqueue_planes(gr.view, gd.view, 0))) return "enqueue: " + s.to_string();
  if (!(s = dev->synchronize())) return s.to_string();
  double got[3] = {};
  if (!(s = g->finish(0, got))) return "finish: " + s.to_string();
  if (host_pooled) *host_pooled = g->host_poolings();

  cpu::Cambi cambi;
  if (!(s = cambi.init(c.w, c.h, c.bpc, o))) return s.to_string();
  const cpu::CambiPlan& plan = cambi.plan();
  for (unsigned p = 0; p < (plan.full_ref ? 2u : 1u); ++p) {
    cpu::CambiDebug dbg;
    double raw = 0;
    if (!(s = cambi.score_picture(p ? hr.cpu() : hd.cpu(), p ? plan.ref : plan.dist, &raw, &dbg)))
      return s.to_string();
    for (unsigned sc = 0; sc < kScales; ++sc) {
      CambiScaleReadback rb;
      if (!(s = g->read_scale(0, p, sc, &rb))) return s.to_string();
      const std::string at = std::string(p ? "reference" : "distorted") + " scale " + std::to_string(sc);
      for (size_t i = 0; i < rb.image.size(); ++i) {
        if (rb.image[i] != dbg.image[sc][i])
          return at + ": filtered image differs at (" + std::to_string(i % rb.w) + ", " + std::to_string(i / rb.w) +
                 "): GPU " + std::to_string(rb.image[i]) + ", CPU " + std::to_string(dbg.image[sc][i]);
        const uint16_t v = dbg.image[sc][i];
        const bool in = uint16_t(v - plan.band_base) < plan.band_size;
        const uint16_t key = dbg.mask[sc][i] && in ? uint16_t(v - plan.band_base) : uint16_t(CAMBI_KEY_NONE);
        if (rb.key[i] != key) return at + ": key differs at " + std::to_string(i);
      }
      if (std::memcmp(rb.c_values.data(), dbg.c_values[sc].data(), rb.c_values.size() * sizeof(float)) != 0) {
        const size_t i = size_t(std::mismatch(rb.c_values.begin(), rb.c_values.end(), dbg.c_values[sc].begin()).first -
                                rb.c_values.begin());
        return at + ": c-value differs at (" + std::to_string(i % rb.w) + ", " + std::to_string(i / rb.w) + "): GPU " +
               std::to_string(rb.c_values[i]) + ", CPU " + std::to_string(dbg.c_values[sc][i]);
      }
      if (!plan.band_empty) {
        std::vector<float> sorted(dbg.c_values[sc]);
        std::sort(sorted.begin(), sorted.end(), [](float a, float b) { return a > b; });
        const uint32_t k = cpu::cambi_topk_count(uint32_t(sorted.size()), plan.topk);
        uint64_t units = 0;
        for (uint32_t i = 0; i < k; ++i) units += uint64_t(std::ldexp(double(sorted[i]), 24));
        if (rb.pool.flags != CAMBI_POOL_DONE || rb.pool.total != units)
          return at + ": top-k sum " + std::to_string(rb.pool.total) + " (flags " + std::to_string(rb.pool.flags) +
                 "), CPU " + std::to_string(units);
      }
    }
  }
  cpu::CambiScores want;
  if (!(s = cambi.compute(hr.cpu(), hd.cpu(), &want))) return s.to_string();
  if (!same_double(got[0], want.cambi))
    return "score: GPU " + std::to_string(got[0]) + ", CPU " + std::to_string(want.cambi);
  if (plan.full_ref && (!same_double(got[1], want.source) || !same_double(got[2], want.full_reference)))
    return "full-reference scores differ";
  // Noise has no flat pixels, and a picture narrower than the mask's window never has enough of them.
  if (want.cambi == 0 && c.content != 3 && c.w >= cpu::kCambiMaskFilter)
    return "score 0: the case does not exercise the computation";
  return "";
}

const Case kCases[] = {
    {"synth 640x360 8-bit", 640, 360, 8, 0, kBytes, ""},
    {"synth 333x217 8-bit odd pitch", 333, 217, 8, 0, kOddBytes, ""},
    {"synth 640x360 10-bit", 640, 360, 10, 0, kWords, ""},
    {"synth 640x360 10-bit P010", 640, 360, 10, 0, kP010, "enc_bitdepth=8"},
    {"blocks 640x360 10-bit odd words mlc 5", 640, 360, 10, 2, kOddWords, "max_log_contrast=5"},
    {"fine steps 640x360 10-bit mlc 0 ws 15", 640, 360, 10, 5, kWords, "max_log_contrast=0:window_size=15"},
    {"blocks 400x300 12-bit pq", 400, 300, 12, 2, kWords, "eotf=pq:tvi_threshold=0.005:max_log_contrast=3"},
    {"gradient 400x300 16-bit vlt", 400, 300, 16, 1, kWords, "cambi_vis_lum_threshold=20"},
    {"synth 640x360 8-bit resized", 640, 360, 8, 0, kBytes, "enc_width=500:enc_height=281"},
    {"synth 640x360 10-bit topk", 640, 360, 10, 0, kWords, "topk=0.05:cambi_topk=0.9"},
    {"synth 640x360 8-bit full_ref", 640, 360, 8, 0, kBytes,
     "full_ref=true:enc_width=400:enc_height=225:src_width=800:src_height=450"},
    {"synth 640x360 10-bit full_ref", 640, 360, 10, 0, kWords, "full_ref=true"},
    {"noise 300x220 10-bit", 300, 220, 10, 3, kWords, ""},
    {"thin 216x2", 216, 2, 8, 4, kBytes, ""},
    {"thin 1x216", 1, 216, 8, 4, kBytes, ""},
    {"thin 217x3 10-bit", 217, 3, 10, 4, kWords, ""},
    {"steps 220x40 10-bit ws 127", 220, 40, 10, 4, kOddWords, "window_size=127:topk=1"},
    {"gradient 1920x1080 v1", 1920, 1080, 8, 1, kBytes,
     "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17"},
    {"gradient 1920x1080 10-bit", 1920, 1080, 10, 1, kWords, ""},
};

const Case& find_case(const std::string& name) {
  for (const Case& c : kCases)
    if (name == c.name) return c;
  ADD_FAILURE() << "no case " << name;
  return kCases[0];
}

// Each case three times: the c-values kernels as the sizes pick them, one thread per column on every scale, and one
// block per column on every scale (kernels/cambi_impl.h): the same c-values, bit for bit.
TEST(HipCambi, MatchesCpuStageByStage) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  for (long below : {-1L, 0L, 1L << 40}) {
    CambiGpuOptions o;
    o.block_kernel_below = below;
    const char* kind = below < 0 ? "default kernels" : below == 0 ? "column kernel" : "block kernel";
    for (const Case& c : kCases) EXPECT_EQ(run_case(dev, c, {}, o), "") << c.name << " [" << c.options << "], " << kind;
  }
}

// Every scale pooled on the host (the CPU reference's quickselect on read-back c-values): the same scores.
TEST(HipCambi, HostPoolingGivesTheSameScores) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  CambiGpuOptions host;
  host.force_host_pooling = true;
  uint64_t pooled = 0;
  EXPECT_EQ(run_case(dev, find_case("synth 640x360 8-bit"), {}, host, &pooled), "");
  EXPECT_EQ(pooled, kScales);
  EXPECT_EQ(run_case(dev, find_case("synth 640x360 8-bit full_ref"), {}, host, &pooled), "");  // full_ref: both pictures
  EXPECT_EQ(pooled, 2 * kScales);
}

// 4K: without the speed-up the top-k sum of scale 0 of this content is too large for libvmaf's double summation to
// be exact, so that scale takes the host pooling; with it every scale stays on the device.
TEST(HipCambi, MatchesCpuAt4K) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  uint64_t pooled = 0;
  EXPECT_EQ(run_case(dev, {"synth 3840x2160 8-bit", 3840, 2160, 8, 0, kBytes, ""}, {}, {}, &pooled), "");
  EXPECT_GE(pooled, 1u);
  std::printf("synth 3840x2160 default options: %llu scale(s) pooled on the host\n", (unsigned long long)pooled);
  EXPECT_EQ(run_case(dev, {"gradient 3840x2160 v1", 3840, 2160, 8, 1, kBytes,
                           "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17"},
                     {}, {}, &pooled),
            "");
  EXPECT_EQ(pooled, 0u);
}

TEST(HipCambi, RefusesBadInput) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const uint32_t w = 320, h = 240;
  std::vector<uint16_t> img = vmafx::test::cambi_synth_luma(w, h, 10, 0);
  img[size_t(17) * w + 100] = 1023 + 77;
  const HostPlane hp = store(img, w, h, 10, kWords, 3);
  for (const char* options : {"", "enc_width=300:enc_height=200"}) {  // checked in place, and by the check kernel
    cpu::CambiOptions o;
    ASSERT_OK(parse_options(options, &o));
    std::unique_ptr<CambiGpu> g;
    ASSERT_OK(CambiGpu::create(dev, w, h, 10, o, 1, &g));
    GpuPlane gp;
    ASSERT_OK(upload(dev, hp, kWords, &gp));
    ASSERT_OK(g->enqueue_planes(gp.view, gp.view, 0));
    ASSERT_OK(dev->synchronize());
    double out[3];
    const Status s = g->finish(0, out);
    EXPECT_EQ(s.code(), Errc::invalid_argument) << options;
    EXPECT_NE(s.message().find("1100"), std::string::npos) << s.message();
    // Wrong geometry and layouts.
    DevicePlane small = gp.view;
    small.width = w - 1;
    EXPECT_EQ(g->enqueue_planes(gp.view, small, 0).code(), Errc::unsupported);
    DevicePlane bytes = gp.view;
    bytes.bytes = 1;
    EXPECT_EQ(g->enqueue_planes(gp.view, bytes, 0).code(), Errc::unsupported);  // 10-bit samples in bytes
    DevicePlane short_pitch = gp.view;
    short_pitch.pitch = w;
    EXPECT_EQ(g->enqueue_planes(gp.view, short_pitch, 0).code(), Errc::invalid_argument);  // a row does not fit
    EXPECT_EQ(g->enqueue_planes(gp.view, gp.view, 1).code(), Errc::invalid_argument);
    EXPECT_EQ(g->finish(1, out).code(), Errc::invalid_argument);
  }
  std::unique_ptr<CambiGpu> g;
  EXPECT_EQ(CambiGpu::create(dev, 215, 215, 8, {}, 1, &g).code(), Errc::invalid_argument);
  EXPECT_EQ(CambiGpu::create(dev, 4000, 216, 8, {}, 1, &g).code(), Errc::unsupported);
  EXPECT_EQ(CambiGpu::create(dev, 640, 360, 8, {}, 0, &g).code(), Errc::invalid_argument);
}

// Frames queued back to back in rotating slots, finished in order: each equals the CPU's score of its frame.
TEST(HipCambi, FramesInFlightThroughSlots) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const uint32_t w = 640, h = 360;
  const unsigned slots = 3, frames = 9;
  cpu::CambiOptions o;
  o.full_ref = true;
  std::unique_ptr<CambiGpu> g;
  ASSERT_OK(CambiGpu::create(dev, w, h, 8, o, slots, &g));
  cpu::Cambi cambi;
  ASSERT_OK(cambi.init(w, h, 8, o));
  std::vector<HostPlane> hd, hr;
  std::vector<GpuPlane> gd(frames), gr(frames);
  for (unsigned i = 0; i < frames; ++i) {
    hd.push_back(store(vmafx::test::cambi_synth_luma(w, h, 8, i), w, h, 8, kBytes, i));
    hr.push_back(store(vmafx::test::cambi_synth_gradient(w, h, 8, i), w, h, 8, kBytes, i));
    ASSERT_OK(upload(dev, hd[i], kBytes, &gd[i]));
    ASSERT_OK(upload(dev, hr[i], kBytes, &gr[i]));
  }
  unsigned checked = 0;
  auto finish = [&](unsigned frame) {
    double got[3];
    ASSERT_OK(g->finish(frame % slots, got));
    cpu::CambiScores want;
    ASSERT_OK(cambi.compute(hr[frame].cpu(), hd[frame].cpu(), &want));
    EXPECT_TRUE(same_double(got[0], want.cambi)) << "frame " << frame;
    EXPECT_TRUE(same_double(got[1], want.source)) << "frame " << frame;
    EXPECT_TRUE(same_double(got[2], want.full_reference)) << "frame " << frame;
    ++checked;
  };
  for (unsigned i = 0; i < frames; ++i) {
    if (i >= slots) {
      ASSERT_OK(dev->synchronize());  // the test's stand-in for the pipeline's slot event
      finish(i - slots);
    }
    ASSERT_OK(g->enqueue_planes(gr[i].view, gd[i].view, i % slots));
  }
  ASSERT_OK(dev->synchronize());
  for (unsigned i = frames - slots; i < frames; ++i) finish(i);
  EXPECT_EQ(checked, frames);
}

TEST(HipCambi, RunTimeCompiledKernelsMatchCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Rtc* rtc = nullptr;
  Status rs = load_rtc(dev->api(), &rtc);
  if (!rs) GTEST_SKIP() << "no run-time compiler on this machine: " << rs.message();
  ModuleOptions rtc_only;
  rtc_only.use_embedded = false;
  rtc_only.use_cache = false;
  {
    std::unique_ptr<CambiGpu> probe;
    ASSERT_OK(CambiGpu::create(dev, 640, 360, 8, {}, 1, &probe, rtc_only));
    std::printf("cambi kernels from %s\n", probe->module().origin().c_str());
    EXPECT_EQ(probe->module().origin().rfind(rtc->version, 0), 0u);
  }
  EXPECT_EQ(run_case(dev, find_case("synth 640x360 10-bit"), rtc_only), "");
  EXPECT_EQ(run_case(dev, find_case("gradient 1920x1080 v1"), rtc_only), "");
}

// libvmaf's own scores: the public pairs (default options, v1 options) within the JSON's 6 decimals and equal to the
// CPU bit for bit; the synthetic fixtures (printed doubles) bit for bit.
TEST(HipCambi, OracleJsonsGiveLibvmafScores) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::vector<std::string> checked, absent;
  double max_diff = 0;
  size_t frames = 0;
  for (const auto& pair : vmafx::test::oracle_pairs_420(&absent)) {
    checked.push_back(pair.name());
    vmafx::test::PairClips clips;
    ASSERT_OK(vmafx::test::open_pair_clips(pair, &clips));
    struct Run {
      std::string model, options, key;
    };
    std::vector<Run> runs = {{"vmaf_v0.6.1", "", "cambi"}};
    for (const char* m : {"vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_5d0h", "vmaf_v1.0.16_1d5h_2160"})
      if (vmafx::test::file_exists(pair.oracle_path(m)))
        runs.push_back({m, "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17",
                        "cambi_hrs_1080_cmxv_17_vlt_0.06"});
    for (const Run& r : runs) {
      vmafx::test::Oracle oracle;
      ASSERT_OK(vmafx::test::load_pair_oracle(pair, r.model, clips.ref.frames(), &oracle));
      cpu::CambiOptions o;
      ASSERT_OK(parse_options(r.options, &o));
      std::unique_ptr<CambiGpu> g;
      ASSERT_OK(CambiGpu::create(dev, pair.width, pair.height, pair.bpc, o, 1, &g));
      cpu::Cambi cambi;
      ASSERT_OK(cambi.init(pair.width, pair.height, pair.bpc, o));
      DeviceBuffer planes;
      ASSERT_OK(DeviceBuffer::create(dev, clips.dist.frame_size(), &planes));
      for (size_t i = 0; i < clips.ref.frames(); ++i) {
        ASSERT_OK(dev->copy_async(CopyKind::host_to_device, planes.data(), clips.dist.frame_data(i),
                                  clips.dist.frame_size()));
        const cpu::Plane cd = cpu::luma_plane(clips.dist.frame(i));
        FramePlanes fp;
        fp.dist[0] = {planes.as<uint8_t>() + (cd.data - clips.dist.frame_data(i)), size_t(cd.stride), cd.w, cd.h,
                      cd.bytes, cd.shift, 1};
        fp.ref[0] = fp.dist[0];  // not read without full_ref
        fp.width = pair.width;
        fp.height = pair.height;
        fp.bpc = pair.bpc;
        ASSERT_OK(g->enqueue(fp, 0));
        ASSERT_OK(dev->synchronize());
        double got[3];
        ASSERT_OK(g->finish(0, got));
        cpu::CambiScores want;
        ASSERT_OK(cambi.compute(cd, cd, &want));
        ASSERT_TRUE(same_double(got[0], want.cambi)) << pair.name() << " " << r.model << " frame " << i;
        const double json = oracle.frames[i].at(r.key);
        EXPECT_NEAR(got[0], json, 5.000001e-7) << pair.name() << " " << r.model << " frame " << i;
        max_diff = std::max(max_diff, std::fabs(got[0] - json));
        ++frames;
      }
    }
  }
  vmafx::test::print_pair_coverage(checked, absent);
  ASSERT_FALSE(checked.empty());
  std::printf("public pairs: %zu frames equal to the CPU bit for bit; max |GPU - libvmaf JSON| %.3g\n", frames,
              max_diff);

  unsigned fixtures = 0;
  for (const vmafx::test::Fixture& f : vmafx::test::kFixtures) {
    vmafx::test::Oracle o;
    ASSERT_OK(vmafx::test::load_oracle(vmafx::test::project_data_dir() + "/cambi/" + f.name + ".json", &o));
    cpu::CambiOptions opts;
    ASSERT_OK(parse_options(f.options, &opts));
    std::unique_ptr<CambiGpu> g;
    ASSERT_OK(CambiGpu::create(dev, f.w, f.h, f.bpc, opts, 1, &g));
    const Format& fmt = f.bpc == 8 ? kBytes : kWords;
    for (unsigned i = 0; i < f.frames; ++i) {
      const HostPlane hd = store(vmafx::test::fixture_luma(f, i, false), f.w, f.h, f.bpc, fmt, i);
      const HostPlane hr = store(vmafx::test::fixture_luma(f, i, true), f.w, f.h, f.bpc, fmt, i);
      GpuPlane gd, gr;
      ASSERT_OK(upload(dev, hd, fmt, &gd));
      ASSERT_OK(upload(dev, hr, fmt, &gr));
      ASSERT_OK(g->enqueue_planes(gr.view, gd.view, 0));
      ASSERT_OK(dev->synchronize());
      double got[3];
      ASSERT_OK(g->finish(0, got));
      for (const auto& [key, value] : o.frames[i]) {
        const double mine = key == "cambi_source" ? got[1] : key == "cambi_full_reference" ? got[2] : got[0];
        EXPECT_TRUE(same_double(mine, value)) << f.name << " frame " << i << " " << key << ": GPU " << mine
                                              << ", libvmaf " << value;
      }
    }
    ++fixtures;
  }
  std::printf("synthetic fixtures: %u files compared bit for bit\n", fixtures);
}

// Frames already on the device, queued back to back (slots rotating, results read back as the pipeline does).
TEST(HipCambi, ThroughputWithFramesOnDevice) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  struct Run {
    const char* name;
    uint32_t w, h;
    const char* options;
    int frames;
  };
  const char* v1 = "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17";
  const Run runs[] = {{"1080p 8-bit, default options", 1920, 1080, "", 100},
                      {"1080p 8-bit, v1 options", 1920, 1080, v1, 200},
                      {"4K 8-bit, default options", 3840, 2160, "", 30},
                      {"4K 8-bit, v1 options", 3840, 2160, v1, 100}};
  for (const Run& r : runs) {
    cpu::CambiOptions o;
    ASSERT_OK(parse_options(r.options, &o));
    // The gradient keeps every scale on the device (the host pooling would time the CPU).
    const HostPlane hp = store(vmafx::test::cambi_synth_gradient(r.w, r.h, 8, 0), r.w, r.h, 8, kBytes, 1);
    std::unique_ptr<CambiGpu> g;
    ASSERT_OK(CambiGpu::create(dev, r.w, r.h, 8, o, 3, &g));
    GpuPlane gp;
    ASSERT_OK(upload(dev, hp, kBytes, &gp));
    for (int i = 0; i < 3; ++i) ASSERT_OK(g->enqueue_planes(gp.view, gp.view, unsigned(i)));
    ASSERT_OK(dev->synchronize());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < r.frames; ++i) ASSERT_OK(g->enqueue_planes(gp.view, gp.view, unsigned(i) % 3));
    ASSERT_OK(dev->synchronize());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
                      r.frames;
    double got[3];
    ASSERT_OK(g->finish(unsigned(r.frames - 1) % 3, got));
    cpu::Cambi cambi;
    ASSERT_OK(cambi.init(r.w, r.h, 8, o));
    cpu::CambiScores want;
    ASSERT_OK(cambi.compute(hp.cpu(), hp.cpu(), &want));
    EXPECT_TRUE(same_double(got[0], want.cambi)) << r.name;
    EXPECT_EQ(g->host_poolings(), 0u) << r.name;
    std::printf("cambi gpu %s: %.4f ms/frame (%.0f fps), %d frames\n", r.name, ms, 1000.0 / ms, r.frames);
  }
}

// The Scorer with backend=hip against backend=cpu, exactly (every score of every frame): cambi with default, v1 and
// full-reference options on the public pairs present, through the pipeline's shared planes.
TEST(HipCambi, ScorerHipEqualsScorerCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::vector<std::string> checked, absent;
  size_t frames = 0;
  for (const auto& pair : vmafx::test::oracle_pairs_420(&absent)) {
    vmafx::test::PairClips clips;
    ASSERT_OK(vmafx::test::open_pair_clips(pair, &clips));
    for (const char* options :
         {"", "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17", "full_ref=true"}) {
      std::vector<FrameScore> got[2];
      std::vector<std::string> names[2];
      for (int b = 0; b < 2; ++b) {
        ScorerConfig cfg = vmafx::test::scorer_config("");
        OptionList opts;
        std::string text = options;
        while (!text.empty()) {
          const size_t end = text.find(':');
          const std::string item = text.substr(0, end);
          opts.emplace_back(item.substr(0, item.find('=')), item.substr(item.find('=') + 1));
          text = end == std::string::npos ? "" : text.substr(end + 1);
        }
        cfg.features.push_back({"cambi", opts});
        cfg.backend = b ? Backend::hip : Backend::cpu;
        if (const char* v = std::getenv("VMAFX_HIP_VENDOR")) {
          if (!std::strcmp(v, "amd")) cfg.vendor = vmafx::Vendor::amd;
          if (!std::strcmp(v, "nvidia")) cfg.vendor = vmafx::Vendor::nvidia;
        }
        if (const char* d = std::getenv("VMAFX_HIP_DEVICE")) cfg.device_id = std::atoi(d);
        vmafx::test::FrameLog log;
        std::unique_ptr<Scorer> scorer;
        ASSERT_OK(vmafx::test::make_scorer(cfg, {pair.width, pair.height, uint8_t(pair.bpc), Chroma::k420}, &log,
                                           &scorer));
        ASSERT_EQ(scorer->backend(), cfg.backend);
        names[b] = scorer->score_names();
        for (size_t i = 0; i < clips.ref.frames(); ++i)
          ASSERT_OK(scorer->submit(vmafx::test::frame_pair(clips.ref.frame(i), clips.dist.frame(i), int64_t(i), i)));
        ASSERT_OK(scorer->flush());
        got[b] = log.frames();
      }
      ASSERT_EQ(names[0], names[1]);
      ASSERT_EQ(got[0].size(), got[1].size());
      for (size_t k = 0; k < got[0].size(); ++k)
        for (size_t i = 0; i < got[0][k].values.size(); ++i)
          EXPECT_TRUE(same_double(got[0][k].values[i], got[1][k].values[i]))
              << pair.name() << " [" << options << "] frame " << k << " " << names[0][i] << ": cpu "
              << got[0][k].values[i] << ", hip " << got[1][k].values[i];
      frames += got[0].size();
    }
    checked.push_back(pair.name());
  }
  vmafx::test::print_pair_coverage(checked, absent);
  ASSERT_FALSE(checked.empty());
  std::printf("scorer: %zu frames of cambi, hip equal to cpu\n", frames);
}

}  // namespace
}  // namespace vmafx::hip
