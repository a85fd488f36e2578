// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU motion kernel's arithmetic (engine/hip/kernels/motion_impl.h) run on the CPU against the CPU reference
// (cpu::motion_blur_diff_row, cpu::motion_row_sad, cpu::motion_sad), exactly: seeded, edge-biased planes (random,
// all-min, all-max, min/max noise, min/max stripes) at tiny and odd sizes and 8/10/12/16 bits, 16-bit words with the
// sample in the high bits, interleaved samples, previous and current planes in different layouts; and a row wide
// enough for libvmaf's 32-bit row sum to wrap. Also replays motion.hip's block/tile walk on the host, so a mistake in
// its mirrored halo columns or its row grouping shows here without a GPU. Needs no GPU (suite 'hip').
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cpu/motion.h"
#include "hip/kernels/motion_impl.h"

namespace vmafx {
namespace {

// A host plane in any of the layouts the kernel reads.
struct TestPlane {
  std::vector<uint8_t> bytes;
  uint32_t w = 0, h = 0;
  unsigned bpc = 8;
  uint8_t word = 1, shift = 0, step = 1;
  size_t pitch = 0;

  void put(uint32_t x, uint32_t y, uint32_t v, uint32_t low_noise) {
    uint8_t* row = bytes.data() + size_t(y) * pitch;
    if (word == 1) {
      row[size_t(x) * step] = uint8_t(v);
      return;
    }
    const uint32_t w16 = (v << shift) | (shift ? (low_noise & ((1u << shift) - 1)) : 0);
    row[size_t(x) * step * 2] = uint8_t(w16);
    row[size_t(x) * step * 2 + 1] = uint8_t(w16 >> 8);
  }
  cpu::Plane cpu() const {
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
  VxPlane impl() const { return VxPlane{bytes.data(), pitch, w, h, word, shift, step}; }
};

struct Layout {
  const char* name;
  uint8_t word, shift, step;
};

enum class Content { random, all_min, all_max, min_max_noise, stripes, near };
const char* content_name(Content c) {
  switch (c) {
    case Content::random: return "random";
    case Content::all_min: return "all-min";
    case Content::all_max: return "all-max";
    case Content::min_max_noise: return "min/max noise";
    case Content::stripes: return "min/max stripes";
    case Content::near: return "small differences";
  }
  return "?";
}

// Fills `p` (already sized) with content; bytes between interleaved samples and bits below the shift hold noise.
void fill(TestPlane* p, Content c, std::mt19937* rng, const TestPlane* like = nullptr) {
  const uint32_t max = (1u << p->bpc) - 1;
  for (auto& b : p->bytes) b = uint8_t((*rng)());
  for (uint32_t y = 0; y < p->h; ++y) {
    for (uint32_t x = 0; x < p->w; ++x) {
      uint32_t v = 0;
      switch (c) {
        case Content::random: v = (*rng)() & max; break;
        case Content::all_min: v = 0; break;
        case Content::all_max: v = max; break;
        case Content::min_max_noise: v = ((*rng)() & 1) ? max : 0; break;
        case Content::stripes: v = ((x / 3 + y / 2) & 1) ? max : 0; break;
        case Content::near: {
          const int base = like ? int(like->cpu().at(x, y)) : int((*rng)() & max);
          v = uint32_t(std::clamp(base + int((*rng)() % 9) - 4, 0, int(max)));
          break;
        }
      }
      p->put(x, y, v, (*rng)());
    }
  }
}

TestPlane make_plane(uint32_t w, uint32_t h, unsigned bpc, const Layout& l, size_t pad) {
  TestPlane p;
  p.w = w;
  p.h = h;
  p.bpc = bpc;
  p.word = l.word;
  p.shift = l.shift;
  p.step = l.step;
  p.pitch = size_t(w) * l.step * l.word + pad;
  p.bytes.resize(p.pitch * h);
  return p;
}

// One row through the _impl functions: the vertical pass of every column, then the wrapping row sum.
void impl_row(const TestPlane& prev, const TestPlane& cur, uint32_t y, std::vector<int32_t>* vb, uint32_t* sum) {
  const VxPlane a = prev.impl(), b = cur.impl();
  vb->resize(cur.w);
  for (uint32_t x = 0; x < cur.w; ++x) (*vb)[x] = vx_motion_vblur_at(a, b, x, y, cur.h, cur.bpc);
  uint32_t s = 0;
  for (uint32_t x = 0; x < cur.w; ++x) {
    int32_t v[VX_MOTION_TAPS];
    for (int k = 0; k < VX_MOTION_TAPS; ++k)
      v[k] = (*vb)[size_t(vx_motion_mirror(int32_t(x) - VX_MOTION_RADIUS + k, int32_t(cur.w)))];
    s += vx_motion_hblur_abs(v);
  }
  *sum = s;
}

// motion.hip's walk, replayed on the host: blocks of kRows whole rows, chunks of kThreads columns, a shared tile of
// the vertical pass over the chunk and its two mirrored halo columns each side (columns past width + 1 left
// unwritten), sliding vertical window of differences, per-row 32-bit sums, 64-bit total.
uint64_t kernel_walk(const TestPlane& prev, const TestPlane& cur) {
  constexpr int kThreads = 256, kRows = 4, kR = VX_MOTION_RADIUS;
  const VxPlane a = prev.impl(), b = cur.impl();
  const uint32_t width = cur.w, height = cur.h, bpc = cur.bpc;
  uint64_t total = 0;
  std::vector<int32_t> tile(size_t(kRows) * (kThreads + 2 * kR));
  std::vector<uint8_t> written(tile.size());
  for (uint32_t y0 = 0; y0 < height; y0 += kRows) {
    const int rows = int(std::min<uint32_t>(kRows, height - y0));
    uint32_t row_sum[kRows] = {0, 0, 0, 0};
    for (uint32_t x0 = 0; x0 < width; x0 += kThreads) {
      std::fill(written.begin(), written.end(), 0);
      for (int j = 0; j < kThreads + 2 * kR; ++j) {
        const int32_t xx = int32_t(x0) - kR + j;
        if (xx > int32_t(width) + 1) continue;
        const uint32_t c = uint32_t(vx_motion_mirror(xx, int32_t(width)));
        int32_t d[kRows + 2 * kR];
        for (int i = 0; i < kRows + 2 * kR; ++i) {
          d[i] = 0;
          if (i < rows + 2 * kR) d[i] = vx_motion_diff(a, b, c, uint32_t(vx_motion_mirror(int32_t(y0) - kR + i, int32_t(height))));
        }
        for (int r = 0; r < rows; ++r) {
          tile[size_t(r) * (kThreads + 2 * kR) + size_t(j)] = vx_motion_vblur(d + r, bpc);
          written[size_t(r) * (kThreads + 2 * kR) + size_t(j)] = 1;
        }
      }
      for (int t = 0; t < kThreads; ++t) {
        if (x0 + uint32_t(t) >= width) continue;
        for (int r = 0; r < rows; ++r) {
          const size_t base = size_t(r) * (kThreads + 2 * kR) + size_t(t);
          for (int k = 0; k < VX_MOTION_TAPS; ++k)
            if (!written[base + size_t(k)]) ADD_FAILURE() << "kernel walk reads an unwritten tile entry";
          row_sum[r] += vx_motion_hblur_abs(&tile[base]);
        }
      }
    }
    for (int r = 0; r < rows; ++r) total += row_sum[r];
  }
  return total;
}

// Compares one pair row by row, then the whole-plane SADs; returns false (with a failure naming the first mismatch)
// when anything differs.
bool check(const TestPlane& prev, const TestPlane& cur, const std::string& what) {
  const cpu::Plane cp = prev.cpu(), cc = cur.cpu();
  EXPECT_TRUE(cpu::motion_check_planes(cp, cc).is_ok()) << what;
  std::vector<int32_t> want_row(cur.w), got_row;
  uint64_t rows_total = 0;
  for (uint32_t y = 0; y < cur.h; ++y) {
    cpu::motion_blur_diff_row(cp, cc, y, want_row.data());
    uint32_t got_sum = 0;
    impl_row(prev, cur, y, &got_row, &got_sum);
    for (uint32_t x = 0; x < cur.w; ++x) {
      if (got_row[x] != want_row[x]) {
        ADD_FAILURE() << what << ": vertical pass differs at x=" << x << " y=" << y << ": impl " << got_row[x]
                      << ", CPU " << want_row[x];
        return false;
      }
    }
    const uint32_t want_sum = cpu::motion_row_sad(want_row.data(), cur.w);
    if (got_sum != want_sum) {
      ADD_FAILURE() << what << ": row " << y << " SAD differs: impl " << got_sum << ", CPU " << want_sum;
      return false;
    }
    rows_total += got_sum;
  }
  std::vector<int32_t> scratch(cur.w);
  const uint64_t want = cpu::motion_sad(cp, cc, scratch.data());
  const uint64_t walk = kernel_walk(prev, cur);
  EXPECT_EQ(rows_total, want) << what;
  if (walk != want) {
    ADD_FAILURE() << what << ": kernel walk SAD " << walk << ", CPU " << want;
    return false;
  }
  return true;
}

const Layout kLayouts[] = {
    {"8-bit", 1, 0, 1},
    {"16-bit words", 2, 0, 1},
    {"16-bit words, sample in the high bits", 2, 0, 1},  // shift set per depth below
    {"interleaved 8-bit", 1, 0, 2},
    {"interleaved 16-bit words", 2, 0, 2},
};

struct Size {
  uint32_t w, h;
};
const Size kSizes[] = {{3, 3}, {4, 3}, {3, 7}, {5, 5}, {17, 13}, {255, 9}, {256, 4}, {257, 5}, {259, 11},
                       {333, 197}, {512, 6}, {1031, 17}};

TEST(HipMotionImpl, MatchesCpuReferenceOnEdgeBiasedPlanes) {
  uint32_t seed = 20261201;
  int pairs = 0;
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    for (const Layout& base : kLayouts) {
      if (bpc == 8 && base.word == 2 && &base != &kLayouts[1]) continue;  // 8-bit words: one layout is enough
      if (bpc > 8 && base.word == 1) continue;
      Layout l = base;
      if (&base == &kLayouts[2]) {
        if (bpc == 16) continue;
        l.shift = uint8_t(16 - bpc);
      }
      for (const Size& s : kSizes) {
        for (Content c : {Content::random, Content::all_min, Content::all_max, Content::min_max_noise,
                          Content::stripes, Content::near}) {
          std::mt19937 rng(seed);
          // Previous and current in different layouts where the depth allows (cur: packed, its own padding).
          const Layout cur_layout = bpc == 8 ? Layout{"8-bit", 1, 0, 1} : Layout{"16-bit words", 2, 0, 1};
          TestPlane prev = make_plane(s.w, s.h, bpc, l, seed % 7);
          TestPlane cur = make_plane(s.w, s.h, bpc, (seed & 1) ? l : cur_layout, (seed / 7) % 5);
          // Extreme current content against opposite previous content gives the largest differences.
          const Content other = c == Content::all_min ? Content::all_max
                                : c == Content::all_max ? Content::all_min
                                                        : c;
          fill(&prev, c, &rng);
          fill(&cur, other, &rng, c == Content::near ? &prev : nullptr);
          const std::string what = std::string(content_name(c)) + " " + std::to_string(bpc) + "-bit " + l.name +
                                   " " + std::to_string(s.w) + "x" + std::to_string(s.h) + " seed " +
                                   std::to_string(seed);
          ++pairs;
          if (!check(prev, cur, what)) return;
          ++seed;
        }
      }
    }
  }
  std::printf("%d plane pairs: vertical pass, row sums and kernel-walk SAD equal to the CPU reference\n", pairs);
}

// libvmaf sums each row in 32 bits: a row of 70000 samples at the largest difference wraps (70000 * 65535 >
// 2^32). The impl and the kernel walk wrap the same way.
TEST(HipMotionImpl, RowSumWrapsLikeLibvmaf) {
  for (unsigned bpc : {8u, 10u}) {
    const Layout l = bpc == 8 ? Layout{"8-bit", 1, 0, 1} : Layout{"16-bit words", 2, 0, 1};
    TestPlane prev = make_plane(70000, 3, bpc, l, 0), cur = make_plane(70000, 3, bpc, l, 0);
    std::mt19937 rng(7);
    fill(&prev, Content::all_max, &rng);
    fill(&cur, Content::all_min, &rng);
    std::vector<int32_t> row(cur.w);
    cpu::motion_blur_diff_row(prev.cpu(), cur.cpu(), 1, row.data());
    uint64_t wide = 0;
    for (uint32_t x = 0; x < cur.w; ++x) wide += uint64_t(row[x] < 0 ? -row[x] : row[x]);
    ASSERT_GT(wide, uint64_t(UINT32_MAX)) << "the row must overflow 32 bits for this test to mean anything";
    EXPECT_TRUE(check(prev, cur, std::to_string(bpc) + "-bit 70000x3 all-max minus all-min"));
  }
}

TEST(HipMotionImpl, TapsAndMirrorAreTheReferences) {
  int sum = 0;
  for (int k = 0; k < VX_MOTION_TAPS; ++k) {
    EXPECT_EQ(vx_motion_tap(k), int(cpu::kMotionFilter[k])) << "tap " << k;
    sum += vx_motion_tap(k);
  }
  EXPECT_EQ(sum, 65536);
  EXPECT_EQ(VX_MOTION_TAPS, cpu::kMotionFilterWidth);
  EXPECT_EQ(vx_motion_mirror(-2, 5), 2);
  EXPECT_EQ(vx_motion_mirror(-1, 5), 1);
  EXPECT_EQ(vx_motion_mirror(5, 5), 3);
  EXPECT_EQ(vx_motion_mirror(6, 5), 2);
  EXPECT_EQ(vx_motion_mirror(4, 3), 0);
}

}  // namespace
}  // namespace vmafx
