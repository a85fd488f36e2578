// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU VIF kernel's arithmetic (engine/hip/kernels/vif_impl.h) run on the CPU against the CPU reference
// (cpu/vif.h), on seeded edge-biased inputs (random, all-min, all-max, min/max noise, correlated and anti-correlated
// noise, mixed flat/noisy regions) at tiny and odd sizes and 8/10/12/16 bits:
//   - each per-point stage (vertical, horizontal, statistic, decimation) against the CPU's stage functions;
//   - the statistic on raw filtered values chosen at the edges of its branches and ranges;
//   - the kernel's tiles emulated work item by work item exactly as a block runs them (mirrored halo loads from
//     8-bit, 16-bit, unaligned, shifted and interleaved planes; partial tiles; decimation into the next scale),
//     compared scale by scale with the CPU reference: filtered planes, next-scale images, per-scale integer sums.
// Suite 'hip': needs no GPU. The first mismatch is printed with its seed, pattern, scale and position.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu/plane.h"
#include "cpu/vif.h"
#include "hip/kernels/vif_impl.h"

namespace vmafx {
namespace {

constexpr unsigned kScales = cpu::kVifScales;

// ---- inputs ------------------------------------------------------------------------------------------------------

enum Pattern { kRandom, kAllMin, kAllMax, kMinMaxNoise, kCorrelated, kMixed, kPatternCount };
const char* const kPatternNames[kPatternCount] = {"random",     "all-min",    "all-max",
                                                  "min/max noise", "correlated", "mixed regions"};

// A pair of images of one size, w samples per row.
struct Image {
  uint32_t w = 0, h = 0;
  std::vector<uint16_t> ref, dist;
};

Image make_image(uint32_t w, uint32_t h, unsigned bpc, Pattern pattern, uint32_t seed) {
  std::mt19937 rng(seed);
  const int max = int((1u << bpc) - 1);
  Image im;
  im.w = w;
  im.h = h;
  im.ref.resize(size_t(w) * h);
  im.dist.resize(size_t(w) * h);
  auto uni = [&] { return int(rng() % uint32_t(max + 1)); };
  auto clamp = [&](int v) { return uint16_t(std::clamp(v, 0, max)); };
  // kMixed: a region kind per 8x8 block (flat, noise, ramp, inverted, extreme noise).
  std::vector<int> kind((w / 8 + 1) * (h / 8 + 1));
  std::vector<int> level(kind.size());
  for (size_t i = 0; i < kind.size(); ++i) {
    kind[i] = int(rng() % 5);
    level[i] = uni();
  }
  for (uint32_t y = 0; y < h; ++y) {
    // kCorrelated: distorted is the reference plus small noise, every fourth row inverted (negative covariance)
    // and every seventh identical.
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

// Mirror of the CPU reference (cpu/vif.h: index -k reads k, n-1+k reads n-1-k).
int64_t mirror(int64_t i, int64_t n) {
  if (i < 0) return -i;
  if (i >= n) return 2 * (n - 1) - i;
  return i;
}

std::string where(const char* what, uint32_t seed, Pattern p, unsigned bpc, uint32_t w, uint32_t h, unsigned s,
                  uint32_t x, uint32_t y) {
  return std::string(what) + " seed " + std::to_string(seed) + " pattern " + kPatternNames[p] + " " +
         std::to_string(bpc) + "-bit " + std::to_string(w) + "x" + std::to_string(h) + " scale " + std::to_string(s) +
         " at x=" + std::to_string(x) + " y=" + std::to_string(y);
}

// ---- per-point stages against the CPU's stage functions ----------------------------------------------------------

template <unsigned kScale, bool kWide>
VifVertical vertical_point(const uint16_t* ref, const uint16_t* dist, const cpu::VifRounding& r) {
  return vif_vertical_point<kScale, kWide>(ref, dist, 1, r.mu_round, r.mu_shift, r.sq_round, r.sq_shift);
}

VifVertical vertical_at(unsigned s, bool wide, const uint16_t* ref, const uint16_t* dist, const cpu::VifRounding& r) {
  switch (s) {
    case 0: return wide ? vertical_point<0, true>(ref, dist, r) : vertical_point<0, false>(ref, dist, r);
    case 1: return vertical_point<1, true>(ref, dist, r);
    case 2: return vertical_point<2, true>(ref, dist, r);
    default: return vertical_point<3, true>(ref, dist, r);
  }
}

VifFiltered horizontal_at(unsigned s, const vx_u16* mu1, const vx_u16* mu2, const vx_u32* rr, const vx_u32* dd,
                          const vx_u32* rd) {
  switch (s) {
    case 0: return vif_horizontal_point<0>(mu1, mu2, rr, dd, rd);
    case 1: return vif_horizontal_point<1>(mu1, mu2, rr, dd, rd);
    case 2: return vif_horizontal_point<2>(mu1, mu2, rr, dd, rd);
    default: return vif_horizontal_point<3>(mu1, mu2, rr, dd, rd);
  }
}

vx_u32 decimate_vertical_at(unsigned filter, const vx_u16* col, const cpu::VifRounding& r) {
  switch (filter) {
    case 1: return vif_decimate_vertical_point<1>(col, 1, r.mu_round, r.mu_shift);
    case 2: return vif_decimate_vertical_point<2>(col, 1, r.mu_round, r.mu_shift);
    default: return vif_decimate_vertical_point<3>(col, 1, r.mu_round, r.mu_shift);
  }
}

vx_u16 decimate_horizontal_at(unsigned filter, const vx_u16* row) {
  switch (filter) {
    case 1: return vif_decimate_horizontal_point<1>(row);
    case 2: return vif_decimate_horizontal_point<2>(row);
    default: return vif_decimate_horizontal_point<3>(row);
  }
}

cpu::VifAccum to_accum(const VifSums& s) {
  cpu::VifAccum a;
  a.num_log = s.num_log;
  a.den_log = s.den_log;
  a.num_non_log = s.num_non_log;
  a.den_non_log = s.den_non_log;
  return a;
}

std::string accum_text(const cpu::VifAccum& a) {
  return "{num_log " + std::to_string(a.num_log) + ", den_log " + std::to_string(a.den_log) + ", num_non_log " +
         std::to_string(a.num_non_log) + ", den_non_log " + std::to_string(a.den_non_log) + "}";
}

// Every stage of every scale of one image pair, point by point. Returns the first mismatch, or "".
std::string check_points(const Image& im0, unsigned bpc, Pattern pattern, uint32_t seed, double gain_limit) {
  const uint16_t* log2 = cpu::vif_log2_table();
  Image im = im0;
  for (unsigned s = 0; s < kScales; ++s) {
    const uint32_t w = im.w, h = im.h;
    const int fw = cpu::kVifFilterWidth[s], half = fw / 2;
    const bool wide = s > 0 || bpc > 8;
    const cpu::VifRounding r = cpu::vif_vertical_rounding(s, bpc);
    std::vector<uint32_t> v(5 * size_t(w)), f(5 * size_t(w));
    const cpu::VifVerticalRow vr{v.data(), v.data() + w, v.data() + 2 * w, v.data() + 3 * w, v.data() + 4 * w};
    const cpu::VifFilteredRow fr{f.data(), f.data() + w, f.data() + 2 * w, f.data() + 3 * w, f.data() + 4 * w};
    std::vector<vx_u16> mu1(w), mu2(w);
    for (uint32_t y = 0; y < h; ++y) {
      cpu::vif_vertical_row(s, bpc, im.ref.data(), im.dist.data(), w, w, h, y, vr);
      for (uint32_t x = 0; x < w; ++x) {
        uint16_t rc[17], dc[17];
        for (int k = 0; k < fw; ++k) {
          const int64_t yy = mirror(int64_t(y) - half + k, h);
          rc[k] = im.ref[size_t(yy) * w + x];
          dc[k] = im.dist[size_t(yy) * w + x];
        }
        const VifVertical g = vertical_at(s, wide, rc, dc, r);
        if (g.mu1 != vr.mu1[x] || g.mu2 != vr.mu2[x] || g.rr != vr.rr[x] || g.dd != vr.dd[x] || g.rd != vr.rd[x])
          return where("vertical", seed, pattern, bpc, im0.w, im0.h, s, x, y) + ": impl {" + std::to_string(g.mu1) +
                 "," + std::to_string(g.mu2) + "," + std::to_string(g.rr) + "," + std::to_string(g.dd) + "," +
                 std::to_string(g.rd) + "} cpu {" + std::to_string(vr.mu1[x]) + "," + std::to_string(vr.mu2[x]) +
                 "," + std::to_string(vr.rr[x]) + "," + std::to_string(vr.dd[x]) + "," + std::to_string(vr.rd[x]) +
                 "}";
        mu1[x] = vx_u16(vr.mu1[x]);
        mu2[x] = vx_u16(vr.mu2[x]);
      }
      cpu::vif_horizontal_row(s, {vr.mu1, vr.mu2, vr.rr, vr.dd, vr.rd}, w, fr);
      for (uint32_t x = 0; x < w; ++x) {
        vx_u16 m1[17], m2[17];
        vx_u32 a[17], b[17], c[17];
        for (int k = 0; k < fw; ++k) {
          const size_t j = size_t(mirror(int64_t(x) - half + k, w));
          m1[k] = mu1[j];
          m2[k] = mu2[j];
          a[k] = vr.rr[j];
          b[k] = vr.dd[j];
          c[k] = vr.rd[j];
        }
        const VifFiltered g = horizontal_at(s, m1, m2, a, b, c);
        if (g.mu1 != fr.mu1[x] || g.mu2 != fr.mu2[x] || g.xx != fr.xx[x] || g.yy != fr.yy[x] || g.xy != fr.xy[x])
          return where("horizontal", seed, pattern, bpc, im0.w, im0.h, s, x, y) + ": impl {" +
                 std::to_string(g.mu1) + "," + std::to_string(g.mu2) + "," + std::to_string(g.xx) + "," +
                 std::to_string(g.yy) + "," + std::to_string(g.xy) + "} cpu {" + std::to_string(fr.mu1[x]) + "," +
                 std::to_string(fr.mu2[x]) + "," + std::to_string(fr.xx[x]) + "," + std::to_string(fr.yy[x]) + "," +
                 std::to_string(fr.xy[x]) + "}";
        cpu::VifAccum want;
        cpu::vif_accumulate({fr.mu1 + x, fr.mu2 + x, fr.xx + x, fr.yy + x, fr.xy + x}, 1, gain_limit, &want);
        VifSums got{0, 0, 0, 0};
        vif_statistic(g, log2, gain_limit, &got);
        if (!(to_accum(got) == want))
          return where("statistic", seed, pattern, bpc, im0.w, im0.h, s, x, y) + ": impl " +
                 accum_text(to_accum(got)) + " cpu " + accum_text(want);
      }
    }
    if (s + 1 == kScales) break;
    // Decimation into scale s + 1, point by point, against vif_decimate.
    const uint32_t ow = w / 2, oh = h / 2;
    Image next;
    next.w = ow;
    next.h = oh;
    next.ref.resize(size_t(ow) * oh);
    next.dist.resize(size_t(ow) * oh);
    std::vector<uint32_t> scratch(2 * size_t(w));
    cpu::vif_decimate(s, bpc, im.ref.data(), im.dist.data(), w, w, h, next.ref.data(), next.dist.data(), ow,
                      scratch.data());
    const unsigned filt = s + 1;
    const int dfw = cpu::kVifFilterWidth[filt], dhalf = dfw / 2;
    std::vector<vx_u16> vref(w), vdist(w);
    for (uint32_t oy = 0; oy < oh; ++oy) {
      for (uint32_t x = 0; x < w; ++x) {
        vx_u16 rc[17], dc[17];
        for (int k = 0; k < dfw; ++k) {
          const int64_t yy = mirror(int64_t(2 * oy) - dhalf + k, h);
          rc[k] = im.ref[size_t(yy) * w + x];
          dc[k] = im.dist[size_t(yy) * w + x];
        }
        vref[x] = vx_u16(decimate_vertical_at(filt, rc, r));
        vdist[x] = vx_u16(decimate_vertical_at(filt, dc, r));
      }
      for (uint32_t ox = 0; ox < ow; ++ox) {
        vx_u16 a[17], b[17];
        for (int k = 0; k < dfw; ++k) {
          const size_t j = size_t(mirror(int64_t(2 * ox) - dhalf + k, w));
          a[k] = vref[j];
          b[k] = vdist[j];
        }
        const vx_u16 gr = decimate_horizontal_at(filt, a), gd = decimate_horizontal_at(filt, b);
        const size_t o = size_t(oy) * ow + ox;
        if (gr != next.ref[o] || gd != next.dist[o])
          return where("decimation", seed, pattern, bpc, im0.w, im0.h, s, ox, oy) + ": impl " + std::to_string(gr) +
                 "/" + std::to_string(gd) + " cpu " + std::to_string(next.ref[o]) + "/" +
                 std::to_string(next.dist[o]);
      }
    }
    im = std::move(next);
  }
  return "";
}

struct Size {
  uint32_t w, h;
};
// The smallest size (16x16: 2x2 at scale 3), odd sizes, one tile exactly, a tile plus one, several tiles.
const Size kPointSizes[] = {{16, 16}, {17, 19}, {31, 16}, {64, 16}, {65, 17}, {97, 53}};
const unsigned kDepths[] = {8, 10, 12, 16};

TEST(HipVifImpl, StagesMatchCpuReferencePointByPoint) {
  uint32_t seed = 9100;
  int runs = 0;
  for (unsigned bpc : kDepths) {
    for (int p = 0; p < kPatternCount; ++p) {
      for (const Size& sz : kPointSizes) {
        const Image im = make_image(sz.w, sz.h, bpc, Pattern(p), seed);
        const double limit = (seed % 3 == 0) ? 1.0 : 100.0;
        const std::string e = check_points(im, bpc, Pattern(p), seed, limit);
        ASSERT_EQ(e, "") << "gain limit " << limit;
        ++seed;
        ++runs;
      }
    }
  }
  std::printf("%d image pairs: vertical, horizontal, statistic and decimation equal to the CPU at every point of "
              "every scale\n", runs);
}

// ---- the statistic on raw filtered values ------------------------------------------------------------------------

TEST(HipVifImpl, StatisticMatchesCpuOnEdgeValues) {
  const uint16_t* log2 = cpu::vif_log2_table();
  std::mt19937_64 rng(31337);
  const uint32_t kNsq = uint32_t(cpu::kVifSigmaNsq);
  const uint32_t edges[] = {0u, 1u, 2u, kNsq - 1, kNsq, kNsq + 1, 65535u, 65536u, 1u << 24, 0x7fffffffu,
                            0x80000000u, 0xfffffffeu, 0xffffffffu};
  size_t n = 0, logs = 0, non_logs = 0;
  for (int i = 0; i < 400000; ++i) {
    VifFiltered f;
    auto pick = [&]() -> uint32_t {
      switch (rng() % 4) {
        case 0: return edges[rng() % std::size(edges)];
        case 1: return uint32_t(rng());
        case 2: return uint32_t(rng() % (1u << 20));
        default: return uint32_t(rng() % (1u << 26));
      }
    };
    // Means: arbitrary, or chosen so that the variances land near the branch edges.
    f.mu1 = (rng() & 1) ? uint32_t(rng()) : uint32_t(rng() % (1u << 24)) << 8;
    f.mu2 = (rng() & 1) ? uint32_t(rng()) : uint32_t(rng() % (1u << 24)) << 8;
    const uint32_t mu1_sq = uint32_t((uint64_t(f.mu1) * f.mu1 + 2147483648u) >> 32);
    const uint32_t mu2_sq = uint32_t((uint64_t(f.mu2) * f.mu2 + 2147483648u) >> 32);
    const uint32_t mu1_mu2 = uint32_t((uint64_t(f.mu1) * f.mu2 + 2147483648u) >> 32);
    if (rng() % 2) {
      f.xx = pick();
      f.yy = pick();
      f.xy = pick();
    } else {
      f.xx = mu1_sq + pick();
      f.yy = mu2_sq + pick();
      f.xy = mu1_mu2 + ((rng() & 1) ? pick() : uint32_t(-int64_t(pick() % 4096)));
    }
    const double limits[] = {1.0, 1.5, 100.0};
    const double limit = limits[rng() % 3];
    const cpu::VifAccum before;
    cpu::VifAccum want;
    const uint32_t mu1 = f.mu1, mu2 = f.mu2, xx = f.xx, yy = f.yy, xy = f.xy;
    cpu::vif_accumulate({&mu1, &mu2, &xx, &yy, &xy}, 1, limit, &want);
    VifSums got{0, 0, 0, 0};
    vif_statistic(f, log2, limit, &got);
    ASSERT_TRUE(to_accum(got) == want) << "draw " << i << " mu1 " << mu1 << " mu2 " << mu2 << " xx " << xx << " yy "
                                       << yy << " xy " << xy << " limit " << limit << ": impl "
                                       << accum_text(to_accum(got)) << " cpu " << accum_text(want);
    ++n;
    if (want.den_non_log) ++non_logs;
    if (want.num_log) ++logs;
  }
  // Both branches and the gain term were exercised.
  EXPECT_GT(non_logs, n / 20);
  EXPECT_GT(logs, n / 20);
  std::printf("%zu filtered values: %zu with a log term in num, %zu in the non-log branch, equal to the CPU\n", n, logs,
              non_logs);
}

TEST(HipVifImpl, ConversionsBehaveLikeX86) {
  EXPECT_EQ(vif_to_i32(std::numeric_limits<double>::quiet_NaN()), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(vif_to_i32(3e9), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(vif_to_i32(-3e9), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(vif_to_i32(2147483647.9), 2147483647);
  EXPECT_EQ(vif_to_i32(-2147483648.9), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(vif_to_i32(-7.9), -7);
  EXPECT_EQ(vif_to_i64(1e19), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(vif_to_i64(std::numeric_limits<double>::infinity()), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(vif_to_i64(-123456789012.5), -123456789012LL);
}

TEST(HipVifImpl, TapsAndWidthsAreTheCpuFilters) {
  for (unsigned s = 0; s < kScales; ++s) {
    ASSERT_EQ(vif_filter_width(s), cpu::kVifFilterWidth[s]) << "scale " << s;
    for (int k = 0; k < cpu::kVifFilterWidth[s]; ++k)
      EXPECT_EQ(vif_tap(s, k), cpu::kVifFilter[s][k]) << "scale " << s << " tap " << k;
  }
  EXPECT_EQ(VifShape<0>::kWidth, 17);
  EXPECT_EQ(VifShape<1>::kWidth, 9);
  EXPECT_EQ(VifShape<2>::kWidth, 5);
  EXPECT_EQ(VifShape<3>::kWidth, 3);
  EXPECT_EQ(VifShape<0>::kDecWidth, 9);
  EXPECT_EQ(VifShape<1>::kDecWidth, 5);
  EXPECT_EQ(VifShape<2>::kDecWidth, 3);
  EXPECT_FALSE(VifShape<3>::kDecimates);
  EXPECT_EQ(VIF_TILE_W % 2, 0);
  EXPECT_EQ(VIF_TILE_H % 2, 0);
  EXPECT_EQ(VIF_THREADS % 64, 0);
  EXPECT_EQ(VIF_TILE_W % VIF_RUN, 0);
  // Rows of the vertical results hold the halo and the last run's aligned groups; rows stay 16-byte multiples.
  auto check_shape = [](int width, int half, int chunks, int in_w, int vert_w) {
    EXPECT_EQ(half, width / 2);
    EXPECT_EQ(in_w, VIF_TILE_W + 2 * half);
    EXPECT_GE(4 * chunks, width + VIF_RUN - 1);
    EXPECT_GE(vert_w, in_w);
    EXPECT_GE(vert_w, VIF_TILE_W - VIF_RUN + 4 * chunks);
    EXPECT_EQ(vert_w % 4, 0);
  };
  check_shape(VifShape<0>::kWidth, VifShape<0>::kHalf, VifShape<0>::kChunks, VifShape<0>::kInW, VifShape<0>::kVertW);
  check_shape(VifShape<1>::kWidth, VifShape<1>::kHalf, VifShape<1>::kChunks, VifShape<1>::kInW, VifShape<1>::kVertW);
  check_shape(VifShape<2>::kWidth, VifShape<2>::kHalf, VifShape<2>::kChunks, VifShape<2>::kInW, VifShape<2>::kVertW);
  check_shape(VifShape<3>::kWidth, VifShape<3>::kHalf, VifShape<3>::kChunks, VifShape<3>::kInW, VifShape<3>::kVertW);
}

// The horizontal run (what a thread computes) equals VIF_RUN single-pixel horizontal passes, on values that reach
// the ends of their ranges.
template <unsigned kScale>
std::string check_run(std::mt19937_64& rng, int draws) {
  constexpr int kLen = 4 * VifShape<kScale>::kChunks;
  for (int d = 0; d < draws; ++d) {
    alignas(16) vx_u32 rr[kLen], dd[kLen], rd[kLen];
    alignas(16) vx_u16 mu1[kLen], mu2[kLen];
    for (int i = 0; i < kLen; ++i) {
      const bool extreme = rng() % 4 == 0;
      mu1[i] = extreme ? 0xffff : vx_u16(rng());
      mu2[i] = extreme ? vx_u16(rng() & 1 ? 0 : 0xffff) : vx_u16(rng());
      rr[i] = extreme ? 0xffffffffu : vx_u32(rng());
      dd[i] = vx_u32(rng());
      rd[i] = extreme ? 0u : vx_u32(rng());
    }
    VifFiltered run[VIF_RUN], run_f64[VIF_RUN];
    vif_horizontal_run<kScale>(mu1, mu2, rr, dd, rd, run);
    vif_horizontal_run<kScale, true>(mu1, mu2, rr, dd, rd, run_f64);
    for (int o = 0; o < VIF_RUN; ++o) {
      const VifFiltered p = vif_horizontal_point<kScale>(mu1 + o, mu2 + o, rr + o, dd + o, rd + o);
      for (const VifFiltered& q : {run[o], run_f64[o]})
        if (p.mu1 != q.mu1 || p.mu2 != q.mu2 || p.xx != q.xx || p.yy != q.yy || p.xy != q.xy)
          return "scale " + std::to_string(kScale) + " draw " + std::to_string(d) + " output " + std::to_string(o) +
                 (&q == &run[o] ? "" : " (float64 moments)");
    }
  }
  return "";
}

// The float64 moments at their largest: every vertical moment 2^32 - 1 sums to 65536 * (2^32 - 1) < 2^48, far
// below 2^53; the integer and float64 runs give the same words.
TEST(HipVifImpl, Float64MomentsAreExactAtTheRangesEnd) {
  alignas(16) vx_u32 top[4 * VifShape<0>::kChunks];
  alignas(16) vx_u16 mu[4 * VifShape<0>::kChunks];
  for (auto& v : top) v = 0xffffffffu;
  for (auto& v : mu) v = 0xffff;
  VifFiltered a[VIF_RUN], b[VIF_RUN];
  vif_horizontal_run<0>(mu, mu, top, top, top, a);
  vif_horizontal_run<0, true>(mu, mu, top, top, top, b);
  for (int o = 0; o < VIF_RUN; ++o) {
    EXPECT_EQ(a[o].xx, b[o].xx);
    EXPECT_EQ(a[o].xx, 0xffffffffu);  // (65536 * (2^32 - 1) + 32768) >> 16 = 2^32 - 1
    EXPECT_EQ(a[o].xy, b[o].xy);
  }
}

TEST(HipVifImpl, HorizontalRunEqualsSinglePixelPasses) {
  std::mt19937_64 rng(4711);
  EXPECT_EQ(check_run<0>(rng, 20000), "");
  EXPECT_EQ(check_run<1>(rng, 20000), "");
  EXPECT_EQ(check_run<2>(rng, 20000), "");
  EXPECT_EQ(check_run<3>(rng, 20000), "");
}

// ---- the kernel's tiles, emulated ------------------------------------------------------------------------------

// A stored plane as the GPU reads it: bytes, or 16-bit little-endian words with noise below the shift, `step`
// samples apart, rows `pitch` bytes apart, starting `offset` bytes into its buffer (odd: unaligned words).
struct Stored {
  std::vector<uint8_t> buf;
  size_t offset = 0, pitch = 0;
  uint8_t word = 1, shift = 0, step = 1;
  const uint8_t* data() const { return buf.data() + offset; }
};

Stored store(const std::vector<uint16_t>& img, uint32_t w, uint32_t h, uint8_t word, uint8_t shift, uint8_t step,
             size_t pad, size_t offset, uint32_t seed) {
  std::mt19937 rng(seed);
  Stored s;
  s.word = word;
  s.shift = shift;
  s.step = step;
  s.offset = offset;
  s.pitch = size_t(w) * step * word + pad;
  s.buf.resize(offset + s.pitch * h);
  for (auto& b : s.buf) b = uint8_t(rng());  // padding, gaps between interleaved samples, low bits: noise
  for (uint32_t y = 0; y < h; ++y) {
    uint8_t* row = s.buf.data() + offset + size_t(y) * s.pitch;
    for (uint32_t x = 0; x < w; ++x) {
      const uint32_t v = img[size_t(y) * w + x];
      if (word == 1) {
        row[size_t(x) * step] = uint8_t(v);
      } else {
        const uint32_t word_value = (v << shift) | (shift ? (rng() & ((1u << shift) - 1)) : 0);
        row[size_t(x) * step * 2] = uint8_t(word_value);
        row[size_t(x) * step * 2 + 1] = uint8_t(word_value >> 8);
      }
    }
  }
  return s;
}

// As the pipeline describes a device plane to the kernels: whether 16-bit words are read whole follows from the
// plane's address and pitch (vx_plane_words_aligned), as on the device.
VxPlane plane_arg(const Stored& s, uint32_t w, uint32_t h) {
  return VxPlane{s.data(), s.pitch, w, h, s.word, s.shift, s.step};
}

cpu::Plane cpu_plane(const Stored& s, uint32_t w, uint32_t h, unsigned bpc) {
  cpu::Plane p;
  p.data = s.data();
  p.stride = ptrdiff_t(s.pitch);
  p.w = w;
  p.h = h;
  p.bytes = s.word;
  p.shift = s.shift;
  p.step = s.step;
  p.bpc = uint8_t(bpc);
  return p;
}

// One launch of scale kScale, block by block and, inside a block, stage by stage and item by item as the kernel
// runs them (the threads of a block run a stage's items in any order; the stages are separated by barriers).
// kF64: the float64 moments; the loads take the vector form where the kernel does (vif_tile_vector_load).
template <unsigned kScale, bool kWide, bool kF64>
VifSums run_scale(const VifScaleArgs& a, int* vector_tiles) {
  constexpr unsigned kBytes = (kScale == 0 && !kWide) ? 1 : 2;  // as kernels/vif.hip
  auto tile = std::make_unique<VifTile<kScale>>();
  VifSums total{0, 0, 0, 0};
  const uint32_t gx = (a.w + VIF_TILE_W - 1) / VIF_TILE_W, gy = (a.h + VIF_TILE_H - 1) / VIF_TILE_H;
  for (uint32_t by = 0; by < gy; ++by) {
    for (uint32_t bx = 0; bx < gx; ++bx) {
      // Garbage in the shared memory a block starts with.
      std::memset(tile.get(), 0xA5, sizeof(VifTile<kScale>));
      const int x0 = int(bx) * VIF_TILE_W, y0 = int(by) * VIF_TILE_H;
      // Items in reverse order: nothing may depend on the order within a stage.
      if (vif_tile_vector_load<kScale, kBytes>(a, x0, y0)) {
        ++*vector_tiles;
        for (int i = vif_vector_load_items<kScale>() - 1; i >= 0; --i)
          vif_tile_load_vector<kScale, kBytes>(*tile, a, x0, y0, i);
      } else {
        for (int i = vif_load_items<kScale>() - 1; i >= 0; --i) vif_tile_load<kScale>(*tile, a, x0, y0, i);
      }
      for (int i = vif_vertical_items<kScale>() - 1; i >= 0; --i) vif_tile_vertical<kScale, kWide>(*tile, a, i);
      for (int i = vif_dec_vertical_items<kScale>() - 1; i >= 0; --i) vif_tile_decimate_vertical<kScale>(*tile, a, i);
      VifSums s{0, 0, 0, 0};
      for (int i = vif_output_items<kScale>() - 1; i >= 0; --i)
        vif_tile_output<kScale, kF64>(*tile, a, x0, y0, i, &s);
      for (int i = vif_dec_output_items<kScale>() - 1; i >= 0; --i) vif_tile_decimate_output<kScale>(*tile, a, x0, y0, i);
      if (a.block_sums) {
        const size_t b = 4 * (size_t(by) * gx + bx);
        a.block_sums[b] = vx_u64(s.num_log);
        a.block_sums[b + 1] = vx_u64(s.den_log);
        a.block_sums[b + 2] = vx_u64(s.num_non_log);
        a.block_sums[b + 3] = vx_u64(s.den_non_log);
      }
      total.num_log += s.num_log;
      total.den_log += s.den_log;
      total.num_non_log += s.num_non_log;
      total.den_non_log += s.den_non_log;
    }
  }
  return total;
}

template <bool kF64>
VifSums run_scale_as(unsigned s, bool wide, const VifScaleArgs& a, int* vector_tiles) {
  switch (s) {
    case 0: return wide ? run_scale<0, true, kF64>(a, vector_tiles) : run_scale<0, false, kF64>(a, vector_tiles);
    case 1: return run_scale<1, true, kF64>(a, vector_tiles);
    case 2: return run_scale<2, true, kF64>(a, vector_tiles);
    default: return run_scale<3, true, kF64>(a, vector_tiles);
  }
}

VifSums run_scale_at(unsigned s, bool wide, bool f64, const VifScaleArgs& a, int* vector_tiles) {
  return f64 ? run_scale_as<true>(s, wide, a, vector_tiles) : run_scale_as<false>(s, wide, a, vector_tiles);
}

int g_vector_tiles[kScales] = {};  // per scale, tiles the emulation loaded in the vector form

struct StoreFormat {
  const char* name;
  uint8_t word, shift, step;
  size_t offset;  // odd: 16-bit words at odd addresses (read byte by byte)
};

// The whole feature through the emulated kernels against cpu::Vif and the CPU's stages. Returns "" or the first
// mismatch.
// `pad`: bytes after each stored row (-1: a few, varying with the seed).
std::string check_tiles(const Image& im, unsigned bpc, const StoreFormat& fmt, Pattern pattern, uint32_t seed,
                        double gain_limit, int pad = -1) {
  const uint32_t w = im.w, h = im.h;
  const size_t rpad = pad < 0 ? 3 + seed % 5 : size_t(pad), dpad = pad < 0 ? 1 + seed % 3 : size_t(pad);
  const Stored sr = store(im.ref, w, h, fmt.word, fmt.shift, fmt.step, rpad, fmt.offset, seed * 7 + 1);
  const Stored sd = store(im.dist, w, h, fmt.word, fmt.shift, fmt.step, dpad, fmt.offset, seed * 7 + 2);

  // CPU: the feature's sums, and every scale's image and filtered planes from the stage functions.
  cpu::Vif vif;
  cpu::VifOptions opts;
  opts.enhn_gain_limit = gain_limit;
  Status st = vif.init(w, h, bpc, opts);
  if (!st) return "cpu init: " + st.to_string();
  cpu::VifScores scores;
  cpu::VifAccum want[kScales];
  st = vif.compute(cpu_plane(sr, w, h, bpc), cpu_plane(sd, w, h, bpc), &scores, want);
  if (!st) return "cpu compute: " + st.to_string();

  Image cur = im;  // the CPU's image of the current scale
  const uint16_t* log2 = cpu::vif_log2_table();
  // The emulated kernels' next-scale images, with a row pitch wider than the image (as on the device).
  std::vector<uint16_t> img_ref, img_dist;
  size_t img_pitch = 0;
  for (unsigned s = 0; s < kScales; ++s) {
    const uint32_t ws = w >> s, hs = h >> s;
    if (cur.w != ws || cur.h != hs) return "internal: scale size";
    VifScaleArgs a{};
    if (s == 0) {
      a.ref = plane_arg(sr, ws, hs);
      a.dist = plane_arg(sd, ws, hs);
    } else {
      a.ref = VxPlane{img_ref.data(), img_pitch * 2, ws, hs, 2, 0, 1};
      a.dist = VxPlane{img_dist.data(), img_pitch * 2, ws, hs, 2, 0, 1};
    }
    a.log2_table = log2;
    std::vector<uint16_t> next_ref, next_dist;
    // Next-scale rows of an odd length (the vector loads refused) or, for even seeds, of a multiple of 64 samples
    // as on the device.
    const size_t next_pitch = seed % 2 ? (ws / 2) + 5 : (ws / 2 + 63) / 64 * 64;
    if (s + 1 < kScales) {
      next_ref.assign(next_pitch * (hs / 2), 0xBEEF);
      next_dist.assign(next_pitch * (hs / 2), 0xBEEF);
      a.next_ref = next_ref.data();
      a.next_dist = next_dist.data();
      a.next_pitch = next_pitch;
    }
    std::vector<vx_u32> filtered(5 * size_t(ws) * hs, 0xDEADBEEF);
    a.filtered = filtered.data();
    const uint32_t blocks = ((ws + VIF_TILE_W - 1) / VIF_TILE_W) * ((hs + VIF_TILE_H - 1) / VIF_TILE_H);
    std::vector<vx_u64> block_sums(4 * size_t(blocks));
    a.block_sums = block_sums.data();
    a.enhn_gain_limit = gain_limit;
    const cpu::VifRounding r = cpu::vif_vertical_rounding(s, bpc);
    a.mu_round = r.mu_round;
    a.mu_shift = r.mu_shift;
    a.sq_round = r.sq_round;
    a.sq_shift = r.sq_shift;
    a.w = ws;
    a.h = hs;
    const VifSums got = run_scale_at(s, s > 0 || bpc > 8, seed % 3 == 0, a, &g_vector_tiles[s]);

    // Filtered planes against vif_filter_plane.
    std::vector<uint32_t> cf(5 * size_t(ws) * hs), scratch(5 * size_t(ws));
    const size_t plane = size_t(ws) * hs;
    cpu::vif_filter_plane(s, bpc, cur.ref.data(), cur.dist.data(), ws, ws, hs,
                          {cf.data(), cf.data() + plane, cf.data() + 2 * plane, cf.data() + 3 * plane,
                           cf.data() + 4 * plane, ptrdiff_t(ws)},
                          scratch.data());
    for (size_t i = 0; i < 5 * plane; ++i) {
      if (filtered[i] != cf[i]) {
        const char* names[5] = {"mu1", "mu2", "xx", "yy", "xy"};
        const size_t o = i % plane;
        return where("tile filtered", seed, pattern, bpc, w, h, s, uint32_t(o % ws), uint32_t(o / ws)) + " (" +
               fmt.name + ") " + names[i / plane] + ": impl " + std::to_string(filtered[i]) + " cpu " +
               std::to_string(cf[i]);
      }
    }
    // The sums, per scale.
    if (!(to_accum(got) == want[s])) {
      // Locate: the first block whose sums differ from the CPU's over the same pixels.
      std::string block;
      const uint32_t gx = (ws + VIF_TILE_W - 1) / VIF_TILE_W;
      for (uint32_t b = 0; b < blocks && block.empty(); ++b) {
        const uint32_t x0 = (b % gx) * VIF_TILE_W, y0 = (b / gx) * VIF_TILE_H;
        cpu::VifAccum cb;
        for (uint32_t y = y0; y < std::min(hs, y0 + VIF_TILE_H); ++y) {
          const size_t o = size_t(y) * ws + x0;
          cpu::vif_accumulate({cf.data() + o, cf.data() + plane + o, cf.data() + 2 * plane + o,
                               cf.data() + 3 * plane + o, cf.data() + 4 * plane + o},
                              std::min(ws - x0, uint32_t(VIF_TILE_W)), gain_limit, &cb);
        }
        VifSums gs{int64_t(block_sums[4 * b]), int64_t(block_sums[4 * b + 1]), int64_t(block_sums[4 * b + 2]),
                   int64_t(block_sums[4 * b + 3])};
        if (!(to_accum(gs) == cb))
          block = "; first differing tile at x0=" + std::to_string(x0) + " y0=" + std::to_string(y0) + ": impl " +
                  accum_text(to_accum(gs)) + " cpu " + accum_text(cb);
      }
      return where("tile sums", seed, pattern, bpc, w, h, s, 0, 0) + " (" + fmt.name + "): impl " +
             accum_text(to_accum(got)) + " cpu " + accum_text(want[s]) + block;
    }
    if (s + 1 == kScales) break;
    // Next scale's image against vif_decimate.
    Image next;
    next.w = ws / 2;
    next.h = hs / 2;
    next.ref.resize(size_t(next.w) * next.h);
    next.dist.resize(size_t(next.w) * next.h);
    std::vector<uint32_t> dscratch(2 * size_t(ws));
    cpu::vif_decimate(s, bpc, cur.ref.data(), cur.dist.data(), ws, ws, hs, next.ref.data(), next.dist.data(),
                      next.w, dscratch.data());
    for (uint32_t y = 0; y < next.h; ++y) {
      for (uint32_t x = 0; x < next.w; ++x) {
        const uint16_t gr = next_ref[y * next_pitch + x], gd = next_dist[y * next_pitch + x];
        const uint16_t cr = next.ref[size_t(y) * next.w + x], cd = next.dist[size_t(y) * next.w + x];
        if (gr != cr || gd != cd)
          return where("tile decimation", seed, pattern, bpc, w, h, s, x, y) + " (" + fmt.name + "): impl " +
                 std::to_string(gr) + "/" + std::to_string(gd) + " cpu " + std::to_string(cr) + "/" +
                 std::to_string(cd);
      }
    }
    img_ref = std::move(next_ref);
    img_dist = std::move(next_dist);
    img_pitch = next_pitch;
    cur = std::move(next);
  }
  return "";
}

const Size kTileSizes[] = {{16, 16}, {17, 23}, {64, 16}, {65, 33}, {130, 37}, {203, 150}};

TEST(HipVifImpl, EmulatedTilesMatchCpuReferenceAtEveryScale) {
  // Formats the scale-0 kernel reads in place: bytes, aligned words, unaligned words (byte reads), P010-like words
  // with noise below the shift, interleaved samples (step 2).
  const StoreFormat k8[] = {{"8-bit bytes", 1, 0, 1, 0}, {"8-bit interleaved", 1, 0, 2, 1}};
  const StoreFormat k16[] = {{"16-bit words", 2, 0, 1, 0}, {"16-bit words, unaligned", 2, 0, 1, 1},
                             {"16-bit words, interleaved", 2, 0, 2, 0}};
  uint32_t seed = 5200;
  int runs = 0;
  for (unsigned bpc : kDepths) {
    for (int p = 0; p < kPatternCount; ++p) {
      for (const Size& sz : kTileSizes) {
        const Image im = make_image(sz.w, sz.h, bpc, Pattern(p), seed);
        std::vector<StoreFormat> formats;
        if (bpc == 8) formats.assign(std::begin(k8), std::end(k8));
        formats.insert(formats.end(), std::begin(k16), std::end(k16));
        if (bpc <= 10) formats.push_back({"P010-like (shift 16-bpc, noise below)", 2, uint8_t(16 - bpc), 1, 0});
        const StoreFormat& fmt = formats[seed % formats.size()];
        const double limit = (seed % 4 == 1) ? 1.0 : 100.0;
        const std::string e = check_tiles(im, bpc, fmt, Pattern(p), seed, limit);
        ASSERT_EQ(e, "") << "gain limit " << limit;
        ++seed;
        ++runs;
      }
    }
  }
  std::printf("%d image pairs through the emulated tiles: filtered planes, next-scale images and the four sums of "
              "every scale equal to the CPU\n", runs);
}

// Planes with aligned rows, large enough for tiles whose halo lies inside the picture at every scale: those tiles
// take the vector loads (2 or 4 samples per load) and give the CPU's results, with integer and float64 moments.
TEST(HipVifImpl, EmulatedVectorLoadsMatchCpuReference) {
  const StoreFormat formats[] = {{"8-bit bytes", 1, 0, 1, 0}, {"16-bit words", 2, 0, 1, 0},
                                 {"P010-like (shift 6, noise below)", 2, 6, 1, 0}};
  uint32_t seed = 9000;  // even seeds: next-scale rows of 64-sample multiples
  for (const StoreFormat& f : formats) {
    for (bool f64 : {false, true}) {
      const unsigned bpc = f.word == 1 ? 8 : f.shift ? 10 : 12;
      const int before[kScales] = {g_vector_tiles[0], g_vector_tiles[1], g_vector_tiles[2], g_vector_tiles[3]};
      // seed % 3 == 0 selects the float64 moments in check_tiles
      while (seed % 2 != 0 || (seed % 3 == 0) != f64) ++seed;
      const Image im = make_image(1040, 272, bpc, Pattern(seed % kPatternCount), seed);
      ASSERT_EQ(check_tiles(im, bpc, f, Pattern(seed % kPatternCount), seed, 100.0, 0), "") << f.name;
      for (unsigned sc = 0; sc < kScales; ++sc)
        EXPECT_GT(g_vector_tiles[sc], before[sc]) << f.name << ": no vector-loaded tile at scale " << sc;
      ++seed;
    }
  }
}

TEST(HipVifImpl, EmulatedTilesReadEveryStoredFormat) {
  // Every format on the same content, 8 and 10 bits, a size with partial tiles in both directions.
  uint32_t seed = 7700;
  for (unsigned bpc : {8u, 10u}) {
    const Image im = make_image(150, 70, bpc, kMixed, seed);
    std::vector<StoreFormat> formats = {{"16-bit words", 2, 0, 1, 0},
                                        {"16-bit words, unaligned", 2, 0, 1, 1},
                                        {"16-bit words, interleaved", 2, 0, 2, 0},
                                        {"16-bit words, shifted", 2, uint8_t(16 - bpc), 1, 0}};
    if (bpc == 8) {
      formats.push_back({"8-bit bytes", 1, 0, 1, 0});
      formats.push_back({"8-bit bytes, odd start", 1, 0, 1, 3});
      formats.push_back({"8-bit interleaved", 1, 0, 2, 0});
    }
    for (const StoreFormat& f : formats) {
      const std::string e = check_tiles(im, bpc, f, kMixed, seed, 100.0);
      ASSERT_EQ(e, "");
    }
    ++seed;
  }
}

}  // namespace
}  // namespace vmafx
