// SPDX-License-Identifier: LGPL-2.1-or-later
// psnr_hvs's GPU arithmetic (engine/hip/kernels/psnr_hvs_impl.h) run on the CPU against the CPU reference
// (cpu/psnr_hvs.h), bit for bit:
//   - the variance scales written out as hex floats equal C's 1 / 63.f * 64 and 1 / 15.f * 16;
//   - the integer DCT on seeded and full-scale 12-bit blocks;
//   - every block's work item: its non-zero terms in order equal the CPU's terms without the zeros;
//   - the plane errors from the work items' packed terms, summed as PsnrHvsGpu::finish sums them, equal the CPU's
//     on every layout of psnr_hvs_test_util.h and, when ../shared is present, on every frame of the public pairs.
// Suite 'hip': needs no GPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/psnr_hvs.h"
#include "hip/kernels/psnr_hvs_impl.h"
#include "psnr_hvs_test_util.h"
#include "support.h"

namespace vmafx {
namespace {

using psnr_hvs_test::HostPicture;
using psnr_hvs_test::Layout;
using psnr_hvs_test::same_bits;

TEST(HipPsnrHvsImpl, VarianceScalesAreCs) {
  EXPECT_TRUE(same_bits(PSNR_HVS_SCALE64, 1 / 63.f * 64));
  EXPECT_TRUE(same_bits(PSNR_HVS_SCALE16, 1 / 15.f * 16));
  EXPECT_EQ(PSNR_HVS_STEP, cpu::kPsnrHvsStep);
}

TEST(HipPsnrHvsImpl, DctEqualsCpu) {
  std::mt19937 rng(5);
  unsigned blocks = 0;
  for (int it = 0; it < 20000; it++) {
    int32_t a[64], b[64];
    const int mode = it % 3;
    for (int k = 0; k < 64; k++) {
      a[k] = mode == 0 ? int32_t(rng() % 4096) : mode == 1 ? ((rng() & 1) ? 4095 : 0) : (((k + k / 8) & 1) ? 4095 : 0);
      b[k] = a[k];
    }
    cpu::psnr_hvs_fdct8x8(a);
    phv_fdct8x8(b);
    ASSERT_EQ(std::memcmp(a, b, sizeof a), 0) << "block " << it;
    blocks++;
  }
  std::printf("  %u blocks transformed identically\n", blocks);
}

// The work items of one plane pair, run on the host; the error summed as PsnrHvsGpu sums the read-back.
float impl_plane_error(const psnr_hvs_test::HostPlane& r, const psnr_hvs_test::HostPlane& d, unsigned plane,
                       unsigned bpc, bool check_blocks) {
  const uint32_t bx = cpu::psnr_hvs_blocks(r.w), by = cpu::psnr_hvs_blocks(r.h);
  const size_t n = size_t(bx) * by;
  std::vector<float> terms(std::max<size_t>(n, 1) * 64, -1.f);
  std::vector<vx_u32> counts(std::max<size_t>(n, 1), 99);
  PsnrHvsArgs a{};
  a.ref = r.vx();
  a.dist = d.vx();
  a.terms = terms.data();
  a.counts = counts.data();
  a.blocks_x = bx;
  a.blocks_y = by;
  const cpu::PsnrHvsTables& t = cpu::psnr_hvs_tables(plane);
  std::memcpy(a.csf, t.csf, sizeof a.csf);
  std::memcpy(a.mask, t.mask, sizeof a.mask);
  for (vx_u32 b = 0; b < n; b++) psnr_hvs_block_item(a, b);
  if (check_blocks) {
    // Each block against the CPU's own terms with the zeros left out.
    const cpu::Plane rp = r.plane(), dp = d.plane();
    for (vx_u32 b = 0; b < n; b++) {
      int32_t rs[64], ds[64];
      const uint32_t x0 = (b % bx) * 7, y0 = (b / bx) * 7;
      for (uint32_t i = 0; i < 8; i++)
        for (uint32_t j = 0; j < 8; j++) {
          rs[i * 8 + j] = int32_t(rp.at(x0 + j, y0 + i));
          ds[i * 8 + j] = int32_t(dp.at(x0 + j, y0 + i));
        }
      float want[64];
      cpu::psnr_hvs_block_terms(rs, ds, t, want);
      unsigned m = 0;
      for (int k = 0; k < 64; k++) {
        if (want[k] == 0.f) continue;
        EXPECT_LT(m, counts[b]) << "block " << b;
        if (m < counts[b]) {
          EXPECT_TRUE(same_bits(terms[size_t(b) * 64 + m], want[k])) << "block " << b << " k " << k;
        }
        m++;
      }
      EXPECT_EQ(m, counts[b]) << "block " << b;
    }
  }
  float sum = 0;
  for (size_t b = 0; b < n; b++) sum = cpu::psnr_hvs_sum_terms(sum, terms.data() + b * 64, counts[b]);
  return cpu::psnr_hvs_error(sum, uint64_t(n) * 64, bpc);
}

TEST(HipPsnrHvsImpl, PlaneErrorsEqualCpuOnEveryLayout) {
  unsigned planes = 0, nan_planes = 0;
  for (const Layout& l : psnr_hvs_test::layouts()) {
    SCOPED_TRACE(l.name);
    for (uint32_t seed = 1; seed <= 2; seed++) {
      const HostPicture r = psnr_hvs_test::make_picture(l, false, seed);
      const HostPicture d = psnr_hvs_test::make_picture(l, true, seed);
      const psnr_hvs_test::CpuResult c = psnr_hvs_test::cpu_scores(r, d, l.bpc);
      for (unsigned p = 0; p < 3; p++) {
        const float e = impl_plane_error(r.planes[p], d.planes[p], p, l.bpc, l.w * l.h <= 400000);
        EXPECT_TRUE(same_bits(e, c.error[p]) || (std::isnan(e) && std::isnan(c.error[p])))
            << "plane " << p << ": impl " << e << ", cpu " << c.error[p];
        planes++;
        nan_planes += std::isnan(e);
      }
    }
  }
  EXPECT_GT(nan_planes, 0u);  // the layouts with planes too small for a block
  std::printf("  %u planes (%u without a block) equal the CPU's errors bit for bit\n", planes, nan_planes);
}

TEST(HipPsnrHvsImpl, PublicPairsEqualCpu) {
  std::vector<std::string> absent;
  const std::vector<test::Pair> pairs = test::oracle_pairs_420(&absent);
  if (pairs.empty()) GTEST_SKIP() << "no public pair present (../shared/testdata missing)";
  std::vector<std::string> checked;
  unsigned frames = 0;
  for (const test::Pair& p : pairs) {
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(p, &c));
    for (size_t f = 0; f < c.ref.frames(); f++) {
      const PictureView rv = c.ref.frame(f), dv = c.dist.frame(f);
      for (unsigned pl = 0; pl < 3; pl++) {
        const cpu::Plane rp = pl ? cpu::chroma_plane(rv, pl) : cpu::luma_plane(rv);
        const cpu::Plane dp = pl ? cpu::chroma_plane(dv, pl) : cpu::luma_plane(dv);
        psnr_hvs_test::HostPlane hr, hd;  // views of the clip's memory, in the helper's form
        for (auto [h, cp] : {std::pair{&hr, &rp}, std::pair{&hd, &dp}}) {
          h->bytes.assign(cp->data, cp->data + size_t(cp->stride) * cp->h);
          h->pitch = size_t(cp->stride);
          h->w = cp->w;
          h->h = cp->h;
          h->word = cp->bytes;
          h->shift = cp->shift;
          h->step = cp->step;
          h->bpc = cp->bpc;
        }
        const float want = cpu::psnr_hvs_plane_error(rp, dp, cpu::psnr_hvs_tables(pl), p.bpc);
        const float got = impl_plane_error(hr, hd, pl, p.bpc, false);
        ASSERT_TRUE(same_bits(got, want)) << p.name() << " frame " << f << " plane " << pl;
      }
      frames++;
    }
    checked.push_back(p.name());
  }
  std::printf("  %u frames of the public pairs: every plane error equal\n", frames);
  test::print_pair_coverage(checked, absent);
}

}  // namespace
}  // namespace vmafx
