// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer VIF on the GPU (hip/vif_gpu.h) against the CPU reference (cpu/vif.h), exactly: seeded edge-biased planes
// of 8, 10, 12 and 16 bits (16-bit words, P010-like shifted words with noise below, unaligned words, odd pitches)
// from 16x16 to 3840x2160, stage by stage (each scale's filtered planes, each block's sums, each scale's sums, each
// next-scale image) and as scores; bad input refused; frames in flight through the slots; the kernels compiled at run
// time; the oracle clips against libvmaf's JSON (default and neg model); throughput with frames on the device.
// A mismatch is printed with its seed, format, pattern, scale and first position. Skips (exit 77) without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/plane.h"
#include "cpu/vif.h"
#include "gpu_device.h"
#include "hip/vif_gpu.h"
#include "support.h"

namespace vmafx::hip {
namespace {

constexpr unsigned kScales = cpu::kVifScales;

// ---- inputs ------------------------------------------------------------------------------------------------------

enum Pattern { kRandom, kAllMin, kAllMax, kMinMaxNoise, kCorrelated, kMixed, kPatternCount };
const char* const kPatternNames[kPatternCount] = {"random",        "all-min",    "all-max",
                                                  "min/max noise", "correlated", "mixed regions"};

// Samples of a pair, w per row.
struct Samples {
  uint32_t w = 0, h = 0;
  std::vector<uint16_t> ref, dist;
};

Samples make_samples(uint32_t w, uint32_t h, unsigned bpc, Pattern pattern, uint32_t seed) {
  std::mt19937 rng(seed);
  const int max = int((1u << bpc) - 1);
  Samples im;
  im.w = w;
  im.h = h;
  im.ref.resize(size_t(w) * h);
  im.dist.resize(size_t(w) * h);
  auto uni = [&] { return int(rng() % uint32_t(max + 1)); };
  auto clamp = [&](int v) { return uint16_t(std::clamp(v, 0, max)); };
  std::vector<int> kind((w / 8 + 1) * (h / 8 + 1)), level(kind.size());
  for (size_t i = 0; i < kind.size(); ++i) {
    kind[i] = int(rng() % 5);
    level[i] = uni();
  }
  for (uint32_t y = 0; y < h; ++y) {
    const bool inverted = y % 4 == 3, equal = y % 7 == 0;
    for (uint32_t x = 0; x < w; ++x) {
      int r = 0, d = 0;
      switch (pattern) {
        case kRandom: r = uni(); d = uni(); break;
        case kAllMin: r = d = 0; break;
        case kAllMax: r = d = max; break;
        case kMinMaxNoise: r = (rng() & 1) ? max : 0; d = (rng() & 1) ? max : 0; break;
        case kCorrelated:
          r = uni();
          d = equal ? r : inverted ? max - r : r + int(rng() % 33) - 16;
          break;
        default: {
          const size_t b = (y / 8) * (w / 8 + 1) + x / 8;
          const int l = level[b];
          switch (kind[b]) {
            case 0: r = l; d = l; break;
            case 1: r = l + int(rng() % 9) - 4; d = r + int(rng() % 5) - 2; break;
            case 2: r = int((uint64_t(x + y) * uint64_t(max)) / (w + h)); d = max - r; break;
            case 3: r = uni(); d = max - r; break;
            default: r = (rng() & 1) ? max : 0; d = r ? max - int(rng() % 3) : int(rng() % 3); break;
          }
        }
      }
      im.ref[size_t(y) * w + x] = clamp(r);
      im.dist[size_t(y) * w + x] = clamp(d);
    }
  }
  return im;
}

// How a plane is stored, on the host and on the device.
struct Format {
  const char* name;
  unsigned bpc;
  uint8_t word, shift;
  size_t dev_offset;  // bytes from the buffer's start to the plane on the device (odd: unaligned 16-bit words)
  size_t dev_pad;     // bytes after each row on the device (odd: odd pitch)
};

const Format kFormats[] = {
    {"8-bit", 8, 1, 0, 0, 0},
    {"10-bit words", 10, 2, 0, 0, 0},
    {"12-bit words", 12, 2, 0, 0, 6},
    {"16-bit words", 16, 2, 0, 0, 0},
    {"10-bit in high bits (P010), noise below", 10, 2, 6, 0, 0},
    {"8-bit, odd pitch and start", 8, 1, 0, 3, 5},
    {"10-bit words at odd addresses (byte reads)", 10, 2, 0, 1, 3},
};

// A plane in host memory laid out as the GPU will read it.
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

HostPlane store(const std::vector<uint16_t>& img, uint32_t w, uint32_t h, const Format& f, size_t pad,
                uint32_t seed) {
  std::mt19937 rng(seed);
  HostPlane p;
  p.w = w;
  p.h = h;
  p.word = f.word;
  p.shift = f.shift;
  p.bpc = f.bpc;
  p.pitch = size_t(w) * f.word + pad;
  p.bytes.resize(p.pitch * h);
  for (auto& b : p.bytes) b = uint8_t(rng());
  for (uint32_t y = 0; y < h; ++y) {
    uint8_t* row = p.bytes.data() + size_t(y) * p.pitch;
    for (uint32_t x = 0; x < w; ++x) {
      const uint32_t v = img[size_t(y) * w + x];
      if (f.word == 1) {
        row[x] = uint8_t(v);
      } else {
        const uint32_t word = (v << f.shift) | (f.shift ? (rng() & ((1u << f.shift) - 1)) : 0);
        row[2 * size_t(x)] = uint8_t(word);
        row[2 * size_t(x) + 1] = uint8_t(word >> 8);
      }
    }
  }
  return p;
}

struct GpuPlane {
  DeviceBuffer buffer;
  DevicePlane view;
};

// The device layout (offset, pitch) is built on the host and copied linearly, so that odd offsets and pitches depend
// on nothing but the kernel.
Status upload(const std::shared_ptr<Device>& dev, const HostPlane& p, const Format& f, GpuPlane* out) {
  const size_t row = size_t(p.w) * p.word;
  const size_t pitch = row + f.dev_pad;
  const size_t bytes = f.dev_offset + pitch * p.h;
  std::vector<uint8_t> staging(bytes, 0x5A);
  for (uint32_t y = 0; y < p.h; ++y)
    std::memcpy(staging.data() + f.dev_offset + size_t(y) * pitch, p.bytes.data() + size_t(y) * p.pitch, row);
  VMAFX_TRY(DeviceBuffer::create(dev, bytes, &out->buffer));
  VMAFX_TRY(dev->copy_async(CopyKind::host_to_device, out->buffer.data(), staging.data(), bytes));
  VMAFX_TRY(dev->synchronize());  // staging is freed on return
  uint8_t* base = out->buffer.as<uint8_t>() + f.dev_offset;
  out->view = {base, pitch, p.w, p.h, p.word, p.shift, 1};
  return Status::ok();
}

std::string accum_text(const cpu::VifAccum& a) {
  return "{num_log " + std::to_string(a.num_log) + ", den_log " + std::to_string(a.den_log) + ", num_non_log " +
         std::to_string(a.num_non_log) + ", den_non_log " + std::to_string(a.den_non_log) + "}";
}

bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// ---- the CPU reference, stage by stage ---------------------------------------------------------------------------

struct CpuStages {
  cpu::VifScores scores;
  cpu::VifAccum accums[kScales];
  Samples images[kScales];                 // each scale's image (scale 0: the samples)
  std::vector<uint32_t> filtered[kScales];  // mu1, mu2, xx, yy, xy planes (w_s per row), when asked for
};

Status cpu_stages(const HostPlane& r, const HostPlane& d, unsigned bpc, double egl, bool filtered, CpuStages* out) {
  cpu::Vif vif;
  cpu::VifOptions opts;
  opts.enhn_gain_limit = egl;
  VMAFX_TRY(vif.init(r.w, r.h, bpc, opts));
  VMAFX_TRY(vif.compute(r.cpu(), d.cpu(), &out->scores, out->accums));
  Samples cur;
  cur.w = r.w;
  cur.h = r.h;
  cur.ref.resize(size_t(r.w) * r.h);
  cur.dist.resize(size_t(r.w) * r.h);
  cpu::vif_load_plane(r.cpu(), cur.ref.data(), r.w);
  cpu::vif_load_plane(d.cpu(), cur.dist.data(), r.w);
  for (unsigned s = 0; s < kScales; ++s) {
    const uint32_t w = cur.w, h = cur.h;
    if (filtered) {
      const size_t plane = size_t(w) * h;
      auto& f = out->filtered[s];
      f.resize(5 * plane);
      std::vector<uint32_t> scratch(5 * size_t(w));
      cpu::vif_filter_plane(s, bpc, cur.ref.data(), cur.dist.data(), w, w, h,
                            {f.data(), f.data() + plane, f.data() + 2 * plane, f.data() + 3 * plane,
                             f.data() + 4 * plane, ptrdiff_t(w)},
                            scratch.data());
    }
    Samples next;
    if (s + 1 < kScales) {
      next.w = w / 2;
      next.h = h / 2;
      next.ref.resize(size_t(next.w) * next.h);
      next.dist.resize(size_t(next.w) * next.h);
      std::vector<uint32_t> scratch(2 * size_t(w));
      cpu::vif_decimate(s, bpc, cur.ref.data(), cur.dist.data(), w, w, h, next.ref.data(), next.dist.data(), next.w,
                        scratch.data());
    }
    out->images[s] = std::move(cur);
    cur = std::move(next);
  }
  return Status::ok();
}

// The CPU's sums over the pixels of block b of scale s (a tile of VifGpu::kTileW x kTileH).
cpu::VifAccum cpu_block_sums(const CpuStages& c, unsigned s, uint32_t bx, uint32_t by, double egl) {
  const Samples& im = c.images[s];
  const uint32_t w = im.w, h = im.h;
  const size_t plane = size_t(w) * h;
  const auto& f = c.filtered[s];
  cpu::VifAccum a;
  const uint32_t x0 = bx * VifGpu::kTileW, y0 = by * VifGpu::kTileH;
  for (uint32_t y = y0; y < std::min(h, y0 + VifGpu::kTileH); ++y) {
    const size_t o = size_t(y) * w + x0;
    cpu::vif_accumulate({f.data() + o, f.data() + plane + o, f.data() + 2 * plane + o, f.data() + 3 * plane + o,
                         f.data() + 4 * plane + o},
                        std::min(w - x0, VifGpu::kTileW), egl, &a);
  }
  return a;
}

// ---- one pair on the GPU against the CPU -------------------------------------------------------------------------

struct Case {
  uint32_t seed;
  Format format;
  uint32_t w, h;
  Pattern pattern;
  double egl = cpu::kVifDefaultEnhnGainLimit;
  bool stages = true;  // filtered planes and block sums too (memory: 20 bytes per pixel)
  VifMoments moments = VifMoments::automatic;
  std::string name() const {
    return std::string(format.name) + " " + std::to_string(w) + "x" + std::to_string(h) + " " +
           kPatternNames[pattern] + " seed " + std::to_string(seed) + " egl " + std::to_string(egl) +
           (moments == VifMoments::float64 ? " float64 moments" : moments == VifMoments::integer ? " integer moments"
                                                                                                 : "");
  }
};

// Runs one case; returns "" or the first mismatch, stage by stage.
std::string run_case(const std::shared_ptr<Device>& dev, const Case& c, const ModuleOptions& mo = {}) {
  const Samples im = make_samples(c.w, c.h, c.format.bpc, c.pattern, c.seed);
  // Host rows padded too (even for 16-bit words: the CPU reference reads aligned words).
  const HostPlane hr = store(im.ref, c.w, c.h, c.format, c.format.word == 1 ? 5 : 4, c.seed * 3 + 1);
  const HostPlane hd = store(im.dist, c.w, c.h, c.format, 2, c.seed * 3 + 2);
  CpuStages want;
  Status s = cpu_stages(hr, hd, c.format.bpc, c.egl, c.stages, &want);
  if (!s) return "CPU reference: " + s.to_string();

  cpu::VifOptions opts;
  opts.enhn_gain_limit = c.egl;
  std::unique_ptr<VifGpu> vif;
  s = VifGpu::create(dev, c.w, c.h, c.format.bpc, opts, 2, &vif, mo, c.moments);
  if (!s) return "create: " + s.to_string();
  GpuPlane gr, gd;
  if (!(s = upload(dev, hr, c.format, &gr))) return "upload: " + s.to_string();
  if (!(s = upload(dev, hd, c.format, &gd))) return "upload: " + s.to_string();

  VifDebugOutputs dbg;
  DeviceBuffer filtered[kScales], blocks[kScales];
  uint32_t nblocks[kScales] = {};
  for (unsigned sc = 0; sc < kScales; ++sc) {
    const Dim3 g = vif->grid(sc);
    nblocks[sc] = g.x * g.y;
    if (!c.stages) continue;
    if (!(s = DeviceBuffer::create(dev, 5 * size_t(vif->width(sc)) * vif->height(sc) * 4, &filtered[sc])))
      return "debug buffer: " + s.to_string();
    if (!(s = DeviceBuffer::create(dev, 4 * size_t(nblocks[sc]) * 8, &blocks[sc])))
      return "debug buffer: " + s.to_string();
    dbg.filtered[sc] = filtered[sc].data();
    dbg.block_sums[sc] = blocks[sc].data();
  }
  // Slot 1, so that slot indexing is exercised.
  if (!(s = vif->enqueue_planes(gr.view, gd.view, 1, c.stages ? &dbg : nullptr))) return "enqueue: " + s.to_string();
  if (!(s = dev->synchronize())) return "synchronize: " + s.to_string();
  cpu::VifAccum got[kScales];
  if (!(s = vif->sums(1, got))) return "sums: " + s.to_string();
  double scores[kScales];
  if (!(s = vif->finish(1, scores))) return "finish: " + s.to_string();

  for (unsigned sc = 0; sc < kScales; ++sc) {
    const uint32_t w = vif->width(sc), h = vif->height(sc);
    const std::string at = c.name() + ", scale " + std::to_string(sc) + " (" + std::to_string(w) + "x" +
                           std::to_string(h) + ")";
    if (c.stages) {
      // 1. The filtered planes (vertical + horizontal pass).
      const size_t plane = size_t(w) * h;
      std::vector<uint32_t> f(5 * plane);
      if (!(s = dev->copy_async(CopyKind::device_to_host, f.data(), filtered[sc].data(), f.size() * 4)) ||
          !(s = dev->synchronize()))
        return at + ": read-back: " + s.to_string();
      for (size_t i = 0; i < f.size(); ++i) {
        if (f[i] != want.filtered[sc][i]) {
          const char* names[5] = {"mu1", "mu2", "xx", "yy", "xy"};
          const size_t o = i % plane;
          return at + ": filtered " + names[i / plane] + " differs first at x=" + std::to_string(o % w) + " y=" +
                 std::to_string(o / w) + ": GPU " + std::to_string(f[i]) + " CPU " +
                 std::to_string(want.filtered[sc][i]);
        }
      }
      // 2. Each block's sums.
      std::vector<int64_t> b(4 * size_t(nblocks[sc]));
      if (!(s = dev->copy_async(CopyKind::device_to_host, b.data(), blocks[sc].data(), b.size() * 8)) ||
          !(s = dev->synchronize()))
        return at + ": read-back: " + s.to_string();
      const uint32_t gx = vif->grid(sc).x;
      for (uint32_t i = 0; i < nblocks[sc]; ++i) {
        cpu::VifAccum g;
        g.num_log = b[4 * i];
        g.den_log = b[4 * i + 1];
        g.num_non_log = b[4 * i + 2];
        g.den_non_log = b[4 * i + 3];
        const cpu::VifAccum e = cpu_block_sums(want, sc, i % gx, i / gx, c.egl);
        if (!(g == e))
          return at + ": block (" + std::to_string(i % gx) + ", " + std::to_string(i / gx) + ") sums GPU " +
                 accum_text(g) + " CPU " + accum_text(e);
      }
    }
    // 3. The scale's sums.
    if (!(got[sc] == want.accums[sc]))
      return at + ": sums GPU " + accum_text(got[sc]) + " CPU " + accum_text(want.accums[sc]);
    // 4. The next scale's image, written by this scale's kernel.
    if (sc + 1 < kScales) {
      const Samples& next = want.images[sc + 1];
      for (int which = 0; which < 2; ++which) {
        const DevicePlane p = vif->image(sc + 1, which == 1);
        std::vector<uint16_t> img(size_t(p.width) * p.height);
        if (p.width != next.w || p.height != next.h)
          return at + ": next image is " + std::to_string(p.width) + "x" + std::to_string(p.height);
        if (!(s = dev->copy_2d_async({CopyKind::device_to_host, img.data(), size_t(p.width) * 2, p.data, p.pitch,
                                      size_t(p.width) * 2, p.height})) ||
            !(s = dev->synchronize()))
          return at + ": read-back: " + s.to_string();
        const std::vector<uint16_t>& e = which ? next.dist : next.ref;
        for (size_t i = 0; i < img.size(); ++i)
          if (img[i] != e[i])
            return at + ": decimated " + (which ? "distorted" : "reference") + " differs first at x=" +
                   std::to_string(i % p.width) + " y=" + std::to_string(i / p.width) + ": GPU " +
                   std::to_string(img[i]) + " CPU " + std::to_string(e[i]);
      }
    }
    // 5. The score.
    if (!same_double(scores[sc], want.scores.scale[sc])) {
      char buf[160];
      std::snprintf(buf, sizeof buf, ": score GPU %.17g CPU %.17g", scores[sc], want.scores.scale[sc]);
      return at + buf;
    }
  }
  return "";
}

struct Size {
  uint32_t w, h;
};

TEST(HipVif, MatchesCpuStageByStageOnSeededPlanes) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  {
    std::unique_ptr<VifGpu> probe;
    ASSERT_OK(VifGpu::create(dev, 64, 64, 8, {}, 1, &probe));
    std::printf("vif kernels from %s on %s (%s), %s moments by default\n", probe->module().origin().c_str(),
                dev->info().name.c_str(), dev->info().arch.c_str(),
                probe->moments() == VifMoments::float64 ? "float64" : "integer");
  }
  // Both forms of the horizontal moments on every case (the default is one of them).
  const VifMoments kBoth[] = {VifMoments::integer, VifMoments::float64};
  const Size sizes[] = {{16, 16}, {17, 23}, {65, 33}, {333, 197}, {1919, 1079}, {1920, 1080}};
  uint32_t seed = 20261201;
  int runs = 0;
  for (const Format& f : kFormats) {
    for (const Size& sz : sizes) {
      for (VifMoments m : kBoth) {
        Case c{seed, f, sz.w, sz.h, Pattern(seed % kPatternCount)};
        if (seed % 5 == 2) c.egl = 1.0;
        c.moments = m;
        const std::string e = run_case(dev, c);
        ASSERT_EQ(e, "");
        ++runs;
      }
      ++seed;
    }
  }
  // Every pattern at a small odd size for each depth.
  for (const Format& f : kFormats) {
    for (int p = 0; p < kPatternCount; ++p) {
      Case c{seed++, f, 97, 61, Pattern(p)};
      c.moments = kBoth[p % 2];
      const std::string e = run_case(dev, c);
      ASSERT_EQ(e, "");
      ++runs;
    }
  }
  std::printf("%d plane pairs: filtered planes, block sums, scale sums, decimated images and scores equal to the CPU "
              "at every scale\n", runs);
}

// The float64 moments are the default only where float64 runs at half the float32 rate (no GPU needed).
TEST(HipVif, Float64MomentsOnlyWhereFloat64IsFullRate) {
  for (const char* a : {"sm_60", "sm_70", "sm_80", "sm_90", "sm_100", "gfx90a:sramecc+:xnack-", "gfx942", "gfx908"})
    EXPECT_TRUE(vif_fast_float64(a)) << a;
  for (const char* a : {"sm_61", "sm_75", "sm_86", "sm_89", "sm_120", "gfx1030", "gfx1100", "gfx906", "", "sm_9"})
    EXPECT_FALSE(vif_fast_float64(a)) << a;
}

TEST(HipVif, MatchesCpuAt4K) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  uint32_t seed = 4000;
  int runs = 0;
  for (const Format& f : {kFormats[0], kFormats[1], kFormats[3], kFormats[4]}) {
    for (VifMoments m : {VifMoments::integer, VifMoments::float64}) {
      Case c{seed, f, 3840, 2160, (seed % 2) ? kMixed : kCorrelated};
      c.stages = false;  // sums, images and scores
      c.moments = m;
      const std::string e = run_case(dev, c);
      ASSERT_EQ(e, "");
      ++runs;
    }
    ++seed;
  }
  std::printf("%d 4K plane pairs: scale sums, decimated images and scores equal to the CPU\n", runs);
}

TEST(HipVif, RefusesBadInput) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::unique_ptr<VifGpu> v;
  EXPECT_EQ(VifGpu::create(dev, 15, 64, 8, {}, 1, &v).code(), Errc::unsupported);
  EXPECT_EQ(VifGpu::create(dev, 64, 64, 7, {}, 1, &v).code(), Errc::unsupported);
  EXPECT_EQ(VifGpu::create(dev, 64, 64, 17, {}, 1, &v).code(), Errc::unsupported);
  cpu::VifOptions bad;
  bad.enhn_gain_limit = 0.5;
  EXPECT_EQ(VifGpu::create(dev, 64, 64, 8, bad, 1, &v).code(), Errc::invalid_argument);
  EXPECT_EQ(VifGpu::create(dev, 64, 64, 8, {}, 0, &v).code(), Errc::invalid_argument);
  EXPECT_EQ(VifGpu::create(nullptr, 64, 64, 8, {}, 1, &v).code(), Errc::invalid_argument);
  EXPECT_FALSE(v);

  ASSERT_OK(VifGpu::create(dev, 64, 32, 10, {}, 2, &v));
  DeviceBuffer b;
  ASSERT_OK(DeviceBuffer::create(dev, 64 * 2 * 32, &b));
  const DevicePlane p{b.data(), 128, 64, 32, 2, 0, 1};
  double out[kScales];
  EXPECT_EQ(v->finish(0, out).code(), Errc::invalid_argument);  // nothing queued
  DevicePlane q = p;
  q.width = 63;
  EXPECT_EQ(v->enqueue_planes(p, q, 0).code(), Errc::unsupported);
  q = p;
  q.pitch = 127;
  EXPECT_EQ(v->enqueue_planes(p, q, 0).code(), Errc::invalid_argument);  // a row does not fit the pitch
  q = p;
  q.bytes = 1;
  EXPECT_EQ(v->enqueue_planes(q, p, 0).code(), Errc::unsupported);  // 10-bit samples in bytes
  q = p;
  q.bytes = 4;
  EXPECT_EQ(v->enqueue_planes(q, p, 0).code(), Errc::unsupported);
  q = p;
  q.shift = 7;
  EXPECT_EQ(v->enqueue_planes(p, q, 0).code(), Errc::unsupported);  // 10 + 7 bits
  q = p;
  q.data = nullptr;
  EXPECT_EQ(v->enqueue_planes(p, q, 0).code(), Errc::invalid_argument);
  q = p;
  q.step = 0;
  EXPECT_EQ(v->enqueue_planes(p, q, 0).code(), Errc::invalid_argument);
  EXPECT_EQ(v->enqueue_planes(p, p, 2).code(), Errc::invalid_argument);  // slot 2 of 2
  FramePlanes frame;
  frame.ref[0] = p;
  frame.dist[0] = p;
  frame.width = 64;
  frame.height = 32;
  // A frame of another depth never reaches enqueue(): HipPipeline::submit refuses it (test_hip_pipeline).
  EXPECT_EQ(v->finish(0, nullptr).code(), Errc::invalid_argument);
  EXPECT_TRUE(dev->status().is_ok()) << dev->status().to_string();
  // The refusals left it usable.
  ASSERT_OK(dev->memset_d32_async(b.data(), 0, 64 * 32 / 2));
  frame.bpc = 10;
  ASSERT_OK(v->enqueue(frame, 0));
  ASSERT_OK(dev->synchronize());
  ASSERT_OK(v->finish(0, out));
  EXPECT_EQ(std::string(v->name()), "vif");
  EXPECT_EQ(v->output_count(), size_t(kScales));
}

// Several frames in flight through the slots (the pipeline's use): each frame's scores come out of its own slot,
// equal to the CPU's.
TEST(HipVif, FramesInFlightThroughSlots) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Format f = kFormats[0];
  const uint32_t w = 576, h = 324;
  const unsigned slots = 3;
  const int frames = 9;
  std::vector<HostPlane> refs, dists;
  std::vector<CpuStages> want(frames);
  for (int i = 0; i < frames; ++i) {
    const Samples im = make_samples(w, h, f.bpc, Pattern(kCorrelated + i % 2), 600 + uint32_t(i));
    refs.push_back(store(im.ref, w, h, f, 0, 1));
    dists.push_back(store(im.dist, w, h, f, 0, 2));
    ASSERT_OK(cpu_stages(refs.back(), dists.back(), f.bpc, 100.0, false, &want[i]));
  }
  std::unique_ptr<VifGpu> vif;
  ASSERT_OK(VifGpu::create(dev, w, h, f.bpc, {}, slots, &vif));
  std::vector<GpuPlane> gr(frames), gd(frames);
  for (int i = 0; i < frames; ++i) {
    ASSERT_OK(upload(dev, refs[i], f, &gr[i]));
    ASSERT_OK(upload(dev, dists[i], f, &gd[i]));
  }
  std::vector<Event> events(slots);
  for (auto& e : events) ASSERT_OK(Event::create(dev, &e));
  std::vector<int> in_slot(slots, -1);
  int checked = 0;
  auto finish = [&](unsigned slot) {
    if (in_slot[slot] < 0) return;
    ASSERT_OK(events[slot].synchronize());
    double out[kScales];
    ASSERT_OK(vif->finish(slot, out));
    const int i = in_slot[slot];
    for (unsigned s = 0; s < kScales; ++s)
      EXPECT_TRUE(same_double(out[s], want[i].scores.scale[s]))
          << "frame " << i << " slot " << slot << " scale " << s << ": GPU " << out[s] << " CPU "
          << want[i].scores.scale[s];
    in_slot[slot] = -1;
    ++checked;
  };
  for (int i = 0; i < frames; ++i) {
    const unsigned slot = unsigned(i) % slots;
    finish(slot);
    ASSERT_OK(vif->enqueue_planes(gr[i].view, gd[i].view, slot));
    ASSERT_OK(events[slot].record());
    in_slot[slot] = i;
  }
  for (unsigned s = 0; s < slots; ++s) finish(s);
  EXPECT_EQ(checked, frames);
}

TEST(HipVif, RunTimeCompiledKernelsMatchCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Rtc* rtc = nullptr;
  Status rs = load_rtc(dev->api(), &rtc);
  if (!rs) GTEST_SKIP() << "no run-time compiler on this machine: " << rs.message();
  ModuleOptions rtc_only;
  rtc_only.use_embedded = false;
  rtc_only.use_cache = false;
  {
    std::unique_ptr<VifGpu> probe;
    ASSERT_OK(VifGpu::create(dev, 64, 64, 8, {}, 1, &probe, rtc_only));
    std::printf("vif kernels from %s\n", probe->module().origin().c_str());
    EXPECT_EQ(probe->module().origin().rfind(rtc->version, 0), 0u);
  }
  ASSERT_EQ(run_case(dev, {77, kFormats[1], 1920, 1080, kMixed}, rtc_only), "");
  ASSERT_EQ(run_case(dev, {78, kFormats[0], 333, 197, kCorrelated}, rtc_only), "");
}

// Frames already on the device, all four scales, 200 frames queued back to back (slots rotating, sums read back
// as the pipeline does); also the time of scales 0, 0-1, 0-2 alone, so the share of each scale shows.
TEST(HipVif, ThroughputWithFramesOnDevice) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  struct Run {
    const char* name;
    Format f;
    uint32_t w, h;
    int frames;
  };
  const Run runs[] = {{"1080p 8-bit", kFormats[0], 1920, 1080, 300},
                      {"1080p 10-bit", kFormats[1], 1920, 1080, 200},
                      {"4K 8-bit", kFormats[0], 3840, 2160, 100}};
  for (const Run& r : runs) {
    const Samples im = make_samples(r.w, r.h, r.f.bpc, kMixed, 99);
    const HostPlane hr = store(im.ref, r.w, r.h, r.f, 0, 1), hd = store(im.dist, r.w, r.h, r.f, 0, 2);
    CpuStages want;
    ASSERT_OK(cpu_stages(hr, hd, r.f.bpc, 100.0, false, &want));
    std::unique_ptr<VifGpu> vif;
    ASSERT_OK(VifGpu::create(dev, r.w, r.h, r.f.bpc, {}, 3, &vif));
    GpuPlane gr, gd;
    ASSERT_OK(upload(dev, hr, r.f, &gr));
    ASSERT_OK(upload(dev, hd, r.f, &gd));
    double ms[kScales] = {};
    for (unsigned scales = 1; scales <= kScales; ++scales) {
      VifDebugOutputs only;
      only.scales = scales;
      for (int i = 0; i < 5; ++i) ASSERT_OK(vif->enqueue_planes(gr.view, gd.view, unsigned(i) % 3, &only));
      ASSERT_OK(dev->synchronize());
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < r.frames; ++i) ASSERT_OK(vif->enqueue_planes(gr.view, gd.view, unsigned(i) % 3, &only));
      ASSERT_OK(dev->synchronize());
      ms[scales - 1] =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / r.frames;
    }
    double out[kScales];
    ASSERT_OK(vif->finish(unsigned(r.frames - 1) % 3, out));
    for (unsigned s = 0; s < kScales; ++s) EXPECT_TRUE(same_double(out[s], want.scores.scale[s])) << r.name;
    std::printf("%s: %.4f ms/frame (%.0f fps) for all four scales; scale 0 alone %.4f ms, +1 %.4f, +2 %.4f, +3 %.4f "
                "(includes the clear and the read-back; %d frames)\n",
                r.name, ms[3], 1000.0 / ms[3], ms[0], ms[1] - ms[0], ms[2] - ms[1], ms[3] - ms[2], r.frames);
  }
}

// The public oracle clips: GPU scores equal to the CPU reference's bit for bit, and to libvmaf's JSON within its
// printed precision (default model; and vif_enhn_gain_limit 1 against the neg model's _egl_1 scores where present).
TEST(HipVif, OracleClipsGiveLibvmafScores) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const char* names[kScales] = {"integer_vif_scale0", "integer_vif_scale1", "integer_vif_scale2",
                                "integer_vif_scale3"};
  double max_diff[2][kScales] = {};
  size_t frames[2] = {};
  std::vector<std::string> checked, absent;
  for (const auto& pair : vmafx::test::oracle_pairs_420(&absent)) {
    checked.push_back(pair.name());
    vmafx::test::PairClips clips;
    ASSERT_OK(vmafx::test::open_pair_clips(pair, &clips));
    const vmafx::test::YuvClip &ref = clips.ref, &dist = clips.dist;
    for (int model = 0; model < 2; ++model) {
      const std::string oracle_path = pair.oracle_path(model ? "vmaf_v0.6.1neg" : "vmaf_v0.6.1");
      if (model && !vmafx::test::file_exists(oracle_path)) continue;
      vmafx::test::Oracle oracle;
      ASSERT_OK(vmafx::test::load_oracle(oracle_path, &oracle));
      ASSERT_EQ(oracle.frames.size(), ref.frames()) << oracle_path;
      cpu::VifOptions opts;
      opts.enhn_gain_limit = model ? 1.0 : 100.0;
      std::unique_ptr<VifGpu> vif;
      ASSERT_OK(VifGpu::create(dev, pair.width, pair.height, pair.bpc, opts, 1, &vif));
      cpu::Vif cpu_vif;
      ASSERT_OK(cpu_vif.init(pair.width, pair.height, pair.bpc, opts));
      DeviceBuffer planes;
      ASSERT_OK(DeviceBuffer::create(dev, 2 * ref.frame_size(), &planes));
      for (size_t i = 0; i < ref.frames(); ++i) {
        uint8_t* dref = planes.as<uint8_t>();
        uint8_t* ddist = dref + ref.frame_size();
        ASSERT_OK(dev->copy_async(CopyKind::host_to_device, dref, ref.frame_data(i), ref.frame_size()));
        ASSERT_OK(dev->copy_async(CopyKind::host_to_device, ddist, dist.frame_data(i), dist.frame_size()));
        const cpu::Plane cr = cpu::luma_plane(ref.frame(i)), cd = cpu::luma_plane(dist.frame(i));
        FramePlanes fp;
        fp.ref[0] = {dref + (cr.data - ref.frame_data(i)), size_t(cr.stride), cr.w, cr.h, cr.bytes, cr.shift, 1};
        fp.dist[0] = {ddist + (cd.data - dist.frame_data(i)), size_t(cd.stride), cd.w, cd.h, cd.bytes, cd.shift, 1};
        fp.width = pair.width;
        fp.height = pair.height;
        fp.bpc = pair.bpc;
        ASSERT_OK(vif->enqueue(fp, 0));
        ASSERT_OK(dev->synchronize());
        double got[kScales];
        ASSERT_OK(vif->finish(0, got));
        cpu::VifScores want;
        ASSERT_OK(cpu_vif.compute(cr, cd, &want));
        for (unsigned s = 0; s < kScales; ++s) {
          ASSERT_TRUE(same_double(got[s], want.scale[s]))
              << pair.prefix << "_" << pair.distorted << " frame " << i << " " << names[s] << " egl "
              << opts.enhn_gain_limit << ": GPU " << got[s] << " CPU " << want.scale[s];
          const std::string key = std::string(names[s]) + (model ? "_egl_1" : "");
          const auto it = oracle.frames[i].find(key);
          ASSERT_NE(it, oracle.frames[i].end()) << oracle_path << " lacks " << key;
          max_diff[model][s] = std::max(max_diff[model][s], std::abs(got[s] - it->second));
          // libvmaf's JSON holds six decimals.
          EXPECT_NEAR(got[s], it->second, 5.000001e-7) << pair.prefix << "_" << pair.distorted << " frame " << i
                                                       << " " << key;
        }
        ++frames[model];
      }
    }
  }
  vmafx::test::print_pair_coverage(checked, absent);
  ASSERT_FALSE(checked.empty()) << "no oracle clip found under " << vmafx::test::shared_testdata_dir();
  for (int model = 0; model < 2; ++model) {
    std::printf("%s: %zu frames equal to the CPU bit for bit; max |GPU - libvmaf JSON|", model ? "egl 1 (neg model)"
                                                                                              : "default model",
                frames[model]);
    for (unsigned s = 0; s < kScales; ++s) std::printf(" scale%u %.3g", s, max_diff[model][s]);
    std::printf(" (JSON rounding is 5e-7)\n");
  }
}

}  // namespace
}  // namespace vmafx::hip
