// SPDX-License-Identifier: LGPL-2.1-or-later
// float_ssim's and float_ms_ssim's GPU arithmetic (engine/hip/kernels/ssim_impl.h) run on the CPU against the CPU
// reference (cpu/ssim.h, cpu/ms_ssim.h):
//   - each per-pixel stage bit for bit: the Gaussian taps, sample conversion (8..16-bit, shifted words, interleaved
//     samples, odd pitches), the box and 9x9 decimations with mirrored borders, the row pass and the moments;
//   - the per-pixel terms summed in the CPU's order give the CPU's means bit for bit;
//   - the kernels' own order of the sums (blocks of SSIM_BLOCK_X x SSIM_BLOCK_Y as pairwise trees, then the final
//     kernel's order) emulated exactly: scores against the CPU's, |difference| at most 1e-7, with the largest
//     difference and the number of differing frames printed, on seeded pictures and on every frame of the public
//     pairs in ../shared (skipped when absent), where libvmaf's scores are also within 1e-5.
// Suite 'hip': needs no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/ms_ssim.h"
#include "cpu/plane.h"
#include "cpu/ssim.h"
#include "ssim_test_util.h"
#include "hip/kernels/ssim_impl.h"
#include "support.h"

namespace vmafx {
namespace {

bool same_float(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A luma plane in host memory as the kernels read it.
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

enum Pattern { kNoise, kSmooth, kFlat, kExtremes };

// Reference and distorted: `pattern` for the reference, the distorted a noisy, blurred or inverted version.
void make_pair(uint32_t w, uint32_t h, unsigned bpc, uint8_t shift, uint8_t step, size_t pad, Pattern pat,
               uint32_t seed, HostPlane* ref, HostPlane* dist) {
  std::mt19937 rng(seed);
  const int max = int((1u << bpc) - 1);
  for (HostPlane* p : {ref, dist}) {
    p->w = w;
    p->h = h;
    p->bpc = bpc;
    p->word = bpc > 8 ? 2 : 1;
    p->shift = shift;
    p->step = step;
    p->pitch = size_t(w) * step * p->word + pad;
    p->bytes.resize(p->pitch * h);
    for (auto& b : p->bytes) b = uint8_t(rng());
  }
  auto put = [&](HostPlane* p, uint32_t x, uint32_t y, int v) {
    v = std::clamp(v, 0, max);
    uint8_t* s = p->bytes.data() + size_t(y) * p->pitch + size_t(x) * step * p->word;
    if (p->word == 1) {
      s[0] = uint8_t(v);
    } else {
      const uint32_t word = (uint32_t(v) << shift) | (shift ? (rng() & ((1u << shift) - 1)) : 0);
      s[0] = uint8_t(word);
      s[1] = uint8_t(word >> 8);
    }
  };
  const int kind = int(seed % 3);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      int r = 0;
      switch (pat) {
        case kNoise: r = int(rng() % uint32_t(max + 1)); break;
        case kSmooth: r = int((0.5 + 0.4 * std::sin(x * 0.07) * std::cos(y * 0.05)) * max); break;
        case kFlat: r = max / 3; break;
        case kExtremes: r = (rng() & 1) ? max : 0; break;
      }
      int d = r;
      if (kind == 0) d = r + int(rng() % 31) - 15;
      if (kind == 1) d = (r * 3 + int(rng() % uint32_t(max + 1))) / 4;
      if (kind == 2) d = max - r;
      put(ref, x, y, r);
      put(dist, x, y, d);
    }
}

// ---- the kernels emulated (the rest in ssim_test_util.h) ----------------------------------------------------------

using test::decimate;
using test::means_of;
using test::pool_args;
using test::rows;

std::vector<float> convert(const HostPlane& p, float divisor) {
  std::vector<float> out(size_t(p.w) * p.h), unused(out.size());
  SsimConvertArgs a{};
  a.ref = VxPlane{p.bytes.data(), p.pitch, p.w, p.h, p.word, p.shift, p.step};
  a.dist = a.ref;
  a.divisor = divisor;
  a.ref_out = out.data();
  a.dist_out = unused.data();
  for (uint32_t y = 0; y < p.h; ++y)
    for (uint32_t x = 0; x < p.w; ++x) ssim_convert_item(a, x, y);
  return out;
}

// float_ssim as SsimGpu computes it.
double gpu_ssim(const HostPlane& ref, const HostPlane& dist) {
  float divisor = 1.f;
  EXPECT_TRUE(cpu::ssim_float_divisor(ref.bpc, &divisor).is_ok());
  return test::gpu_ssim_of(convert(ref, divisor), convert(dist, divisor), ref.w, ref.h);
}

// float_ms_ssim as MsSsimGpu computes it.
double gpu_ms_ssim(const HostPlane& ref, const HostPlane& dist) {
  float divisor = 1.f;
  EXPECT_TRUE(cpu::ssim_float_divisor(ref.bpc, &divisor).is_ok());
  return test::gpu_ms_ssim_of(convert(ref, divisor), convert(dist, divisor), ref.w, ref.h);
}

// ---- tests ------------------------------------------------------------------------------------------------------

struct Layout {
  const char* name;
  unsigned bpc;
  uint8_t shift, step;
  size_t pad;
};
const Layout kLayouts[] = {
    {"8-bit", 8, 0, 1, 0},   {"8-bit interleaved, odd pitch", 8, 0, 2, 3}, {"10-bit", 10, 0, 1, 2},
    {"10-bit P010", 10, 6, 1, 0}, {"12-bit", 12, 0, 1, 1},               {"16-bit", 16, 0, 1, 0},
};

TEST(HipSsimImpl, GaussianTapsAreTheCpus) {
  for (int t = 0; t < SSIM_WINDOW; ++t) EXPECT_TRUE(same_float(ssim_gaussian_tap(t), cpu::kSsimGaussian[t])) << t;
}

TEST(HipSsimImpl, ConversionAndDecimationMatchCpuBitForBit) {
  uint32_t seed = 1;
  for (const Layout& l : kLayouts)
    for (const auto& sz : {std::pair<uint32_t, uint32_t>{37, 23}, {400, 390}, {11, 11}, {1030, 777}}) {
      HostPlane r, d;
      make_pair(sz.first, sz.second, l.bpc, l.shift, l.step, l.pad, Pattern(seed % 4), seed, &r, &d);
      ++seed;
      float divisor;
      ASSERT_OK(cpu::ssim_float_divisor(l.bpc, &divisor));
      const std::vector<float> g = convert(r, divisor);
      std::vector<float> c(g.size());
      cpu::plane_to_float(r.plane(), divisor, c.data(), r.w);
      ASSERT_EQ(std::memcmp(g.data(), c.data(), g.size() * sizeof(float)), 0) << l.name << " conversion";
      // Box decimation by 2..10 (what float_ssim's `scale` option allows; its automatic factor is 8 at 2160 lines),
      // and MS-SSIM's low-pass.
      for (int f = 2; f <= 10; ++f) {
        const std::vector<float> box = cpu::ssim_box_kernel(f);
        uint32_t dw, dh;
        const std::vector<float> gd = decimate(c, r.w, r.h, box.data(), f, f, f, &dw, &dh);
        std::vector<float> cd(gd.size());
        int cw, ch;
        cpu::decimate(c.data(), int(r.w), int(r.h), f, box.data(), f, f, cd.data(), &cw, &ch);
        ASSERT_EQ(uint32_t(cw), dw);
        ASSERT_EQ(uint32_t(ch), dh);
        ASSERT_EQ(std::memcmp(gd.data(), cd.data(), gd.size() * sizeof(float)), 0) << l.name << " box " << f;
      }
      uint32_t dw, dh;
      const std::vector<float> gl =
          decimate(c, r.w, r.h, cpu::kMsSsimLpf, cpu::kMsSsimLpfLen, cpu::kMsSsimLpfLen, 2, &dw, &dh);
      std::vector<float> cl(gl.size());
      cpu::ms_ssim_decimate(c.data(), int(r.w), int(r.h), cl.data(), nullptr, nullptr);
      ASSERT_EQ(std::memcmp(gl.data(), cl.data(), gl.size() * sizeof(float)), 0) << l.name << " 9x9 low-pass";
    }
}

// Moments bit for bit, and the per-pixel terms summed in the CPU's order give the CPU's means bit for bit.
TEST(HipSsimImpl, MomentsAndTermsMatchCpuBitForBit) {
  uint32_t seed = 50;
  double max_rel = 0.0;
  for (const auto& sz : {std::pair<uint32_t, uint32_t>{11, 11}, {12, 40}, {67, 29}, {321, 241}, {576, 324}})
    for (int pat = 0; pat < 4; ++pat) {
      HostPlane hr, hd;
      make_pair(sz.first, sz.second, 8, 0, 1, 0, Pattern(pat), seed++, &hr, &hd);
      const uint32_t w = hr.w, h = hr.h;
      const std::vector<float> r = convert(hr, 1.f), d = convert(hd, 1.f);
      const std::vector<float> tmp = rows(r, d, w, h);
      const uint32_t dw = w - 10, dh = h - 10;
      std::vector<float> mom(size_t(5) * dw * dh);
      const SsimPoolArgs a = pool_args(tmp, w, h, mom.data());
      double ssim = 0.0, l = 0.0, c = 0.0, s = 0.0;
      for (uint32_t y = 0; y < dh; ++y)
        for (uint32_t x = 0; x < dw; ++x) {
          const SsimTerms t = ssim_pool_item(a, x, y);
          ssim += t.ssim;
          l += t.l;
          c += t.c;
          s += t.s;
        }
      cpu::SsimMoments m;
      ASSERT_OK(m.reserve(int(w), int(h)));
      cpu::ssim_moments(r.data(), d.data(), int(w), int(h), &m);
      const size_t n = size_t(dw) * dh;
      const std::vector<float>* maps[5] = {&m.mu_ref, &m.mu_dist, &m.var_ref, &m.var_dist, &m.cov};
      for (int k = 0; k < 5; ++k)
        ASSERT_EQ(std::memcmp(mom.data() + k * n, maps[k]->data(), n * sizeof(float)), 0)
            << w << "x" << h << " pattern " << pat << " moment map " << k;
      const cpu::SsimMeans cm = cpu::ssim_pool(m);
      const double sums[4] = {ssim, l, c, s};
      const cpu::SsimMeans gm = means_of(sums, w, h);
      EXPECT_TRUE(same_float(gm.ssim, cm.ssim) && same_float(gm.l, cm.l) && same_float(gm.c, cm.c) &&
                  same_float(gm.s, cm.s))
          << w << "x" << h << " pattern " << pat;
      // The kernels' order of the same terms: the sums differ by rounding only, within the bound of the CPU's own
      // row-major rounding ((n - 1) * 2^-53 of the sum of magnitudes; the terms here are positive but for s).
      double tree[4];
      test::gpu_order_sums(tmp, w, h, tree);
      for (int k = 0; k < 4; ++k) {
        const double rel = sums[k] == 0.0 ? std::fabs(tree[k]) : std::fabs(tree[k] - sums[k]) / std::fabs(sums[k]);
        EXPECT_LE(rel, double(n) * 0x1p-53 * 2) << w << "x" << h << " pattern " << pat << " sum " << k;
        max_rel = std::max(max_rel, rel);
      }
    }
  std::printf("largest relative difference of a sum, kernels' order against the CPU's: %.3g\n", max_rel);
}

// |a - b|, 0 when both are NaN (MS-SSIM of a picture and its negative: a negative structure term to a fractional
// power, in libvmaf too).
double diff(double a, double b) { return std::isnan(a) && std::isnan(b) ? 0.0 : std::fabs(a - b); }

// Largest |GPU - CPU| seen, and in how many of the scores any bit differed.
struct Stats {
  double max_ssim = 0.0, max_ms = 0.0;
  int frames = 0, ssim_differ = 0, ms_differ = 0;
  void add(double g_ssim, double c_ssim, double g_ms, double c_ms) {
    ++frames;
    max_ssim = std::max(max_ssim, diff(g_ssim, c_ssim));
    max_ms = std::max(max_ms, diff(g_ms, c_ms));
    ssim_differ += std::memcmp(&g_ssim, &c_ssim, sizeof(double)) != 0;
    ms_differ += std::memcmp(&g_ms, &c_ms, sizeof(double)) != 0;
  }
  void print(const char* what) const {
    std::printf("%s: %d frames; float_ssim max |GPU - CPU| %.3g (%d differ), float_ms_ssim %.3g (%d differ)\n", what,
                frames, max_ssim, ssim_differ, max_ms, ms_differ);
  }
};

constexpr double kGpuOrderTolerance = 1e-7;

TEST(HipSsimImpl, GpuSumOrderStaysWithin1e7OfCpu) {
  Stats st;
  uint32_t seed = 200;
  for (const Layout& l : kLayouts)
    for (const auto& sz : {std::pair<uint32_t, uint32_t>{176, 176}, {200, 391}, {777, 385}, {640, 360}}) {
      HostPlane r, d;
      make_pair(sz.first, sz.second, l.bpc, l.shift, l.step, l.pad, Pattern(seed % 4), seed, &r, &d);
      ++seed;
      cpu::Ssim ssim;
      cpu::MsSsim ms;
      ASSERT_OK(ssim.init(r.w, r.h, l.bpc));
      ASSERT_OK(ms.init(r.w, r.h, l.bpc));
      double cs, cm;
      ASSERT_OK(ssim.compute(r.plane(), d.plane(), &cs));
      ASSERT_OK(ms.compute(r.plane(), d.plane(), &cm));
      const double gs = gpu_ssim(r, d), gm = gpu_ms_ssim(r, d);
      EXPECT_LE(diff(gs, cs), kGpuOrderTolerance) << l.name << " " << r.w << "x" << r.h;
      EXPECT_LE(diff(gm, cm), kGpuOrderTolerance) << l.name << " " << r.w << "x" << r.h;
      st.add(gs, cs, gm, cm);
    }
  st.print("seeded pictures");
}

TEST(HipSsimImpl, GpuSumOrderOnPublicPairs) {
  std::vector<std::string> absent;
  const std::vector<test::Pair> pairs = test::oracle_pairs_420(&absent);
  if (pairs.empty()) GTEST_SKIP() << "no public pair in ../shared";
  std::vector<std::string> checked;
  for (const test::Pair& p : pairs) {
    test::PairClips clips;
    ASSERT_OK(test::open_pair_clips(p, &clips));
    test::Oracle oracle;
    ASSERT_OK(test::load_pair_oracle(p, "vmaf_v0.6.1", clips.ref.frames(), &oracle));
    cpu::Ssim ssim;
    cpu::MsSsim ms;
    ASSERT_OK(ssim.init(p.width, p.height, p.bpc));
    ASSERT_OK(ms.init(p.width, p.height, p.bpc));
    Stats st;
    for (size_t i = 0; i < clips.ref.frames(); ++i) {
      const cpu::Plane rp = cpu::luma_plane(clips.ref.frame(i)), dp = cpu::luma_plane(clips.dist.frame(i));
      double cs, cm;
      ASSERT_OK(ssim.compute(rp, dp, &cs));
      ASSERT_OK(ms.compute(rp, dp, &cm));
      // The same planes as the kernels read them.
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
      const double gs = gpu_ssim(hr, hd), gm = gpu_ms_ssim(hr, hd);
      EXPECT_LE(diff(gs, cs), kGpuOrderTolerance) << p.name() << " frame " << i;
      EXPECT_LE(diff(gm, cm), kGpuOrderTolerance) << p.name() << " frame " << i;
      EXPECT_LE(std::fabs(gs - oracle.frames[i].at("float_ssim")), 1e-5) << p.name() << " frame " << i;
      EXPECT_LE(std::fabs(gm - oracle.frames[i].at("float_ms_ssim")), 1e-5) << p.name() << " frame " << i;
      st.add(gs, cs, gm, cm);
    }
    st.print(p.name().c_str());
    checked.push_back(p.name());
  }
  test::print_pair_coverage(checked, absent);
}

}  // namespace
}  // namespace vmafx
