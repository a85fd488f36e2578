// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU ADM kernel's arithmetic (engine/hip/kernels/adm_impl.h) run on the CPU against the CPU reference
// (cpu/adm.h), exactly:
//   - the kernel's tiles emulated block by block and thread by thread, phase by phase as adm.hip runs them (shared
//     memory filled with a poison pattern per block, row sums added where the kernel adds them atomically, the
//     finishing kernel's per-row rounding), on pictures read in place (8-bit, 16-bit words with and without a
//     shift, odd pitches and addresses, interleaved samples), seeded edge-biased content (random, all-min, all-max,
//     min/max noise, near copies, contrast-enhanced copies, flat/noisy regions) at tiny and odd sizes and
//     8/10/12/16 bits; compared scale by scale with the CPU's stage functions: DWT bands, decoupled r and a, CSF
//     and masking-filter inputs of the DLM and AIM sets, the den / DLM / AIM integer sums; and the scores finished
//     on the host equal cpu::Adm::compute's;
//   - the per-position functions on raw bands at the edges of their ranges (int16 and int32 extremes) against the
//     CPU's decouple, CSF, DWT and sums;
//   - the public oracle clips through the emulated kernel: bit-exact with cpu::Adm, within 2e-6 of libvmaf's JSON.
// Suite 'hip': needs no GPU. A mismatch is printed with its seed, layout, pattern, scale, stage and position.
#include <gtest/gtest.h>

#include <math.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "adm_test_util.h"  // tests/gpu: inputs, CPU stage reference, comparisons (shared with the GPU test)
#include "assert_ok.h"
#include "cpu/adm.h"
#include "cpu/plane.h"
#include "hip/adm_gpu.h"
#include "hip/kernels/adm_impl.h"
#include "support.h"

namespace vmafx {
namespace {

namespace K = hip::adm;

using namespace adm_test;  // NOLINT: the shared test vocabulary

// ---- the kernel, emulated ------------------------------------------------------------------------------------------

struct Terms {
  vx_u64 v[K::kRowsPerThread][K::kKinds];
};

// One scale kernel's grid, block by block, each phase for every thread of the block before the next phase (the
// kernel's barriers). Shared memory is poisoned per block, so a read of flt that phase A did not write shows.
template <class T, class Src>
void emulate_scale(const Src& ref, const Src& dist, const K::ScaleParams& p, T* ref_a, T* dist_a,
                   std::vector<uint64_t>* rows, T* dump, uint64_t dump_plane) {
  constexpr int kThreads = K::kBlockW * K::kBlockH;
  const int gx = (p.w + K::kTileW - 1) / K::kTileW, gy = (p.h + K::kTileH - 1) / K::kTileH;
  std::vector<vx_u64> smem(K::kSmemU64);
  std::vector<K::TileRegs<T>> regs(kThreads);
  std::vector<Terms> terms(kThreads);
  for (int by = 0; by < gy; ++by) {
    for (int bx = 0; bx < gx; ++bx) {
      if (!dump && !K::tile_scores(p, bx, by)) {
        for (int ty = 0; ty < K::kBlockH; ++ty)
          for (int tx = 0; tx < K::kBlockW; ++tx) K::tile_band_a<T>(ref, dist, p, bx, by, tx, ty, ref_a, dist_a);
        continue;
      }
      std::fill(smem.begin(), smem.end(), 0xa5c3a5c3a5c3a5c3ull);
      T* flt = reinterpret_cast<T*>(smem.data());
      for (int ty = 0; ty < K::kBlockH; ++ty)
        for (int tx = 0; tx < K::kBlockW; ++tx)
          K::tile_phase_a<T>(ref, dist, p, bx, by, tx, ty, flt, ref_a, dist_a, dump, dump_plane,
                             &regs[ty * K::kBlockW + tx]);
      for (int ty = 0; ty < K::kBlockH; ++ty)
        for (int tx = 0; tx < K::kBlockW; ++tx)
          K::tile_phase_b<T>(p, bx, by, tx, ty, flt, regs[ty * K::kBlockW + tx], terms[ty * K::kBlockW + tx].v);
      for (int ty = 0; ty < K::kBlockH; ++ty)
        for (int tx = 0; tx < K::kBlockW; ++tx) K::tile_store_terms(tx, ty, terms[ty * K::kBlockW + tx].v, smem.data());
      for (int tid = 0; tid < K::kKinds * K::kTileH; ++tid) {
        vx_u64 index = 0, sum = 0;
        if (K::tile_row_sum(p, by, tid, smem.data(), &index, &sum)) {
          EXPECT_LT(index, rows->size());
          if (index < rows->size()) (*rows)[index] += sum;
        }
      }
    }
  }
}

// The finishing kernel: per (scale, kind) the rounded row sums of the score rectangle's rows.
hip::AdmFrameSums emulate_finish(const std::vector<uint64_t>& rows, const K::FinishParams& f) {
  uint64_t v[4 * K::kKinds] = {};
  for (int s = 0; s < 4; ++s) {
    for (int q = 0; q < K::kKinds; ++q) {
      uint64_t acc = 0;
      for (int i = f.top[s]; i < f.bottom[s]; ++i)
        acc += K::row_round(rows[f.rows_offset[s] + uint64_t(q) * f.h[s] + i], q, f, s);
      v[s * K::kKinds + q] = acc;
    }
  }
  hip::AdmFrameSums out;
  for (int s = 0; s < 4; ++s) {
    const uint64_t* k = v + s * K::kKinds;
    out.den[s] = {k[0], k[1], k[2]};
    out.dlm[s] = {int64_t(k[3]), int64_t(k[4]), int64_t(k[5])};
    out.aim[s] = {int64_t(k[6]), int64_t(k[7]), int64_t(k[8])};
  }
  return out;
}

struct Emulated {
  StagePlanes<int16_t> s0;
  StagePlanes<int32_t> s123[3];
  hip::AdmFrameSums sums;
};

// The four scale kernels and the finishing kernel, as AdmGpu queues them. dump: the test mode.
Emulated emulate(const VxPlane& ref, const VxPlane& dist, const hip::AdmGpuParams& gp, bool dump) {
  Emulated e;
  std::vector<uint64_t> rows(gp.row_sums, 0);
  std::vector<int16_t> a0[2];
  std::vector<int32_t> a123[2][2];
  {
    const K::ScaleParams& p = gp.scale[0];
    const size_t n = size_t(p.w) * size_t(p.h);
    for (auto& v : a0) v.assign(n, int16_t(0x7777));
    K::PictureSource rs{ref, p.in_w, p.in_h, p.bpc}, ds{dist, p.in_w, p.in_h, p.bpc};
    if (dump) e.s0.alloc(p.w, p.h, int16_t(0x7eed));
    emulate_scale<int16_t>(rs, ds, p, a0[0].data(), a0[1].data(), &rows, dump ? e.s0.v.data() : nullptr, n);
  }
  for (int s = 1; s < 4; ++s) {
    const K::ScaleParams& p = gp.scale[s];
    const size_t n = size_t(p.w) * size_t(p.h);
    std::vector<int32_t>* out = a123[(s - 1) % 2];
    if (s < 3)
      for (int k = 0; k < 2; ++k) out[k].assign(n, int32_t(0x77777777));
    int32_t* ref_a = s < 3 ? out[0].data() : nullptr;
    int32_t* dist_a = s < 3 ? out[1].data() : nullptr;
    int32_t* d = nullptr;
    if (dump) {
      e.s123[s - 1].alloc(p.w, p.h, int32_t(0x7eed7eed));
      d = e.s123[s - 1].v.data();
    }
    if (s == 1) {
      K::BandSource<int16_t> rs{a0[0].data(), p.in_w, p.in_h, s, 0, nullptr, nullptr, 0},
          ds{a0[1].data(), p.in_w, p.in_h, s, 0, nullptr, nullptr, 0};
      emulate_scale<int32_t>(rs, ds, p, ref_a, dist_a, &rows, d, n);
    } else {
      std::vector<int32_t>* in = a123[(s - 2) % 2];
      K::BandSource<int32_t> rs{in[0].data(), p.in_w, p.in_h, s, 0, nullptr, nullptr, 0},
          ds{in[1].data(), p.in_w, p.in_h, s, 0, nullptr, nullptr, 0};
      std::vector<int32_t> small_row;
      if (p.small) {
        // adm_small_row_kernel, then scale 3 with libvmaf's reads before its buffers.
        const K::SmallRowParams& q = gp.small_row;
        const K::ScaleParams& p0 = gp.scale[0];
        K::PictureSource r0{ref, p0.in_w, p0.in_h, p0.bpc}, d0{dist, p0.in_w, p0.in_h, p0.bpc};
        small_row.assign(size_t(q.count), 0x7eed7eed);
        for (int j = 0; j < q.count; ++j) small_row[size_t(j)] = q.mode ? K::small_row_value(r0, d0, p0, q, j) : 0;
        rs.small = ds.small = 1;
        rs.ref_band = ds.ref_band = in[0].data();
        rs.row_above = ds.row_above = small_row.data();
        ds.dist = 1;
      }
      emulate_scale<int32_t>(rs, ds, p, ref_a, dist_a, &rows, d, n);
    }
  }
  e.sums = emulate_finish(rows, gp.finish);
  return e;
}

Emulated emulate(const PicturePair& pp, const hip::AdmGpuParams& gp, bool dump) {
  return emulate(pp.ref.arg(), pp.dist.arg(), gp, dump);
}

// One picture pair through everything; returns false after the first failure.
bool check_pair(const PicturePair& pp, const cpu::AdmOptions& opt, const std::string& what) {
  SCOPED_TRACE(what);
  hip::AdmGpuParams gp;
  const Status ps = hip::adm_gpu_params(pp.ref.w, pp.ref.h, pp.ref.layout.bpc, opt, &gp);
  EXPECT_TRUE(ps.is_ok()) << ps.to_string();
  if (!ps) return false;
  const Reference want = run_reference(pp, opt);

  const Emulated staged = emulate(pp, gp, true);
  EXPECT_TRUE(same_stages(staged.s0, want.s0, 0));
  for (int s = 1; s < 4; ++s) EXPECT_TRUE(same_stages(staged.s123[s - 1], want.s123[s - 1], s));
  // The test mode's sums; with adm_skip_scale0 the kernel sums nothing at scale 0 (the CPU reference skips it).
  hip::AdmFrameSums want_sums = want.sums;
  if (opt.skip_scale0) {
    want_sums.den[0] = {};
    want_sums.dlm[0] = {};
    want_sums.aim[0] = {};
  }
  if (opt.skip_aim)
    for (auto& a : want_sums.aim) a = {};
  EXPECT_TRUE(same_sums(staged.sums, want_sums)) << "(test mode)";

  const Emulated run = emulate(pp, gp, false);
  EXPECT_TRUE(same_sums(run.sums, want_sums)) << "(frame mode)";

  cpu::Adm adm;
  const Status is = adm.init(pp.ref.w, pp.ref.h, pp.ref.layout.bpc, opt);
  EXPECT_TRUE(is.is_ok()) << is.to_string();
  cpu::AdmScores cpu_scores;
  const Status cs = adm.compute(pp.ref.plane(), pp.dist.plane(), &cpu_scores);
  EXPECT_TRUE(cs.is_ok()) << cs.to_string();
  EXPECT_TRUE(same_scores(hip::adm_gpu_scores(run.sums, gp, pp.ref.w, pp.ref.h, opt), cpu_scores));
  return !::testing::Test::HasFailure();
}

// ---- tests -----------------------------------------------------------------------------------------------------

TEST(HipAdmImpl, AngleConstantIsLibvmafs) {
  const double pi = 3.14159265358979323846;
  const float want = static_cast<float>(cos(1.0 * pi / 180.0) * cos(1.0 * pi / 180.0));
  const float got = VX_ADM_COS_1DEG_SQ;
  EXPECT_EQ(std::memcmp(&got, &want, sizeof got), 0) << got << " vs " << want;
}

TEST(HipAdmImpl, ParamsMatchTheCpuReference) {
  // Fixed-point factors from the CPU's functions; shifts cross-checked by the sums tests below.
  for (const auto& [nvd, rdh] : std::vector<std::pair<double, int>>{{3.0, 1080}, {1.5, 2160}, {4.0, 1080}, {24, 4320}}) {
    cpu::AdmOptions opt;
    opt.norm_view_dist = nvd;
    opt.ref_display_height = rdh;
    hip::AdmGpuParams gp;
    ASSERT_TRUE(hip::adm_gpu_params(1920, 1080, 8, opt, &gp).is_ok());
    float rf[3];
    cpu::adm_csf_factors(0, opt, rf);
    uint16_t f0[3];
    cpu::adm_fixed_factors_scale0(rf, opt, f0);
    for (int t = 0; t < 3; ++t) EXPECT_EQ(gp.scale[0].fixed[t], f0[t]) << nvd << " x " << rdh;
    for (int s = 1; s < 4; ++s) {
      cpu::adm_csf_factors(s, opt, rf);
      uint32_t f[3];
      cpu::adm_fixed_factors_scale123(rf, f);
      for (int t = 0; t < 3; ++t) EXPECT_EQ(gp.scale[s].fixed[t], f[t]) << "scale " << s;
    }
    EXPECT_EQ(gp.scale[0].w, 960);
    EXPECT_EQ(gp.scale[3].h, 68);
    const cpu::AdmRect rc = cpu::adm_score_rect(480, 270);
    EXPECT_EQ(gp.scale[1].left, rc.left);
    EXPECT_EQ(gp.scale[1].bottom, rc.bottom);
  }
  cpu::AdmOptions opt;
  EXPECT_EQ(hip::adm_gpu_params(1920, 1080, 8, opt, nullptr).code(), Errc::invalid_argument);
  hip::AdmGpuParams gp;
  EXPECT_EQ(hip::adm_gpu_params(16, 1080, 8, opt, &gp).code(), Errc::unsupported);
  ASSERT_TRUE(hip::adm_gpu_params(17, 1080, 8, opt, &gp).is_ok());
  EXPECT_EQ(gp.scale[3].small, 1);
  EXPECT_EQ(gp.small_row.count, 3);
  ASSERT_TRUE(hip::adm_gpu_params(33, 1080, 8, opt, &gp).is_ok());
  EXPECT_EQ(gp.scale[3].small, 0);
  EXPECT_EQ(gp.small_row.count, 0);
  EXPECT_EQ(hip::adm_gpu_params(64, 64, 7, opt, &gp).code(), Errc::unsupported);
  EXPECT_EQ(hip::adm_gpu_params(64, 64, 17, opt, &gp).code(), Errc::unsupported);
  opt.enhn_gain_limit = 0.5;
  EXPECT_EQ(hip::adm_gpu_params(64, 64, 8, opt, &gp).code(), Errc::invalid_argument);
  opt = {};
  opt.norm_view_dist = 1.0;
  EXPECT_EQ(hip::adm_gpu_params(64, 64, 8, opt, &gp).code(), Errc::unsupported);
}

// The whole matrix: every layout, tiny and odd sizes (several tiles, partial tiles, the minimum picture), every
// pattern; the largest size for fewer patterns.
TEST(HipAdmImpl, TilesMatchCpuStageByStage) {
  const Size sizes[] = {{33, 33}, {34, 37}, {47, 35}, {66, 41}, {97, 67}, {161, 121}};
  uint32_t seed = 20261130;
  int pairs = 0;
  for (const Layout& lay : kLayouts) {
    for (const Size& sz : sizes) {
      for (int pat = 0; pat < kPatternCount; ++pat) {
        const PicturePair pp = make_pair(sz.w, sz.h, lay, Pattern(pat), seed);
        const std::string what = std::string(lay.name) + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) +
                                 " " + kPatternNames[pat] + " seed " + std::to_string(seed);
        ++seed;
        ++pairs;
        if (!check_pair(pp, cpu::AdmOptions{}, what)) return;
      }
    }
  }
  std::printf("%d picture pairs (%zu layouts x %zu sizes x %d patterns): every stage and sum equal to the CPU\n",
              pairs, std::size(kLayouts), std::size(sizes), int(kPatternCount));
}

// Pictures of 17..32 on an axis (libvmaf's reads before its buffers at scale 3), every layout and pattern, with the
// options that change what libvmaf finds there (adm_skip_aim, adm_skip_scale0) and the v1 models'.
TEST(HipAdmImpl, SmallPicturesMatchCpu) {
  const Size sizes[] = {{17, 17}, {18, 23}, {32, 32}, {17, 64}, {70, 20}, {33, 32}, {300, 18}, {19, 150}};
  std::vector<cpu::AdmOptions> opts(4);
  opts[1].skip_aim = true;
  opts[2].skip_scale0 = true;
  opts[3].csf_mode = cpu::kAdmCsfBlend;
  opts[3].dlm_weight = 0.7;
  opts[3].enhn_gain_limit = 1.0;
  opts[3].noise_weight = 0.02;
  opts[3].min_val = 0.5;
  uint32_t seed = 1717;
  int pairs = 0;
  for (const Layout& lay : kLayouts) {
    for (const Size& sz : sizes) {
      for (int pat = 0; pat < kPatternCount; ++pat) {
        const cpu::AdmOptions& opt = opts[size_t(pairs) % opts.size()];
        const PicturePair pp = make_pair(sz.w, sz.h, lay, Pattern(pat), seed);
        const std::string what = std::string(lay.name) + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) +
                                 " " + kPatternNames[pat] + " options " + std::to_string(pairs % 4) + " seed " +
                                 std::to_string(seed);
        ++seed;
        ++pairs;
        if (!check_pair(pp, opt, what)) return;
      }
    }
  }
  std::printf("%d small picture pairs: every stage and sum equal to the CPU\n", pairs);
}

TEST(HipAdmImpl, LargerPicturesMatchCpu) {
  const Size sizes[] = {{321, 241}, {576, 324}, {333, 197}};
  uint32_t seed = 777;
  int pairs = 0;
  for (const Size& sz : sizes) {
    for (const Layout* lay : {&kLayouts[0], &kLayouts[3], &kLayouts[4]}) {
      for (Pattern pat : {kNear, kEnhanced, kMixed}) {
        const PicturePair pp = make_pair(sz.w, sz.h, *lay, pat, seed);
        const std::string what = std::string(lay->name) + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) +
                                 " " + kPatternNames[pat] + " seed " + std::to_string(seed);
        ++seed;
        ++pairs;
        if (!check_pair(pp, cpu::AdmOptions{}, what)) return;
      }
    }
  }
  std::printf("%d larger picture pairs equal to the CPU at every stage\n", pairs);
}

TEST(HipAdmImpl, OptionsMatchCpu) {
  struct Case {
    const char* name;
    cpu::AdmOptions opt;
  };
  std::vector<Case> cases;
  cpu::AdmOptions o;
  o.enhn_gain_limit = 1.0;
  cases.push_back({"gain limit 1 (neg models)", o});
  o = {};
  o.enhn_gain_limit = 1.7;
  cases.push_back({"gain limit 1.7", o});
  o = {};
  o.skip_aim = true;
  cases.push_back({"skip aim", o});
  o = {};
  o.skip_scale0 = true;
  cases.push_back({"skip scale 0", o});
  o = {};
  o.norm_view_dist = 4.0;
  o.ref_display_height = 1080;
  cases.push_back({"view distance 4 (computed scale-0 factors)", o});
  o = {};
  o.noise_weight = 0.5;
  o.dlm_weight = 0.8;
  o.min_val = 0.3;
  cases.push_back({"noise weight, dlm weight, min val", o});
  o = {};
  o.csf_mode = cpu::kAdmCsfBlend;
  o.dlm_weight = 0.7;
  o.enhn_gain_limit = 1.0;
  o.noise_weight = 0.02;
  o.min_val = 0.5;
  o.norm_view_dist = 5.0;
  cases.push_back({"v1 5d0h options (blend CSF)", o});
  o = {};
  o.csf_mode = cpu::kAdmCsfBlendMae;
  o.ref_display_height = 2160;
  o.norm_view_dist = 1.5;
  cases.push_back({"refitted blend CSF, 2160 at 1.5H", o});
  o = {};
  o.csf_mode = cpu::kAdmCsfBarten;
  o.csf_scale = 0.02;
  o.csf_diag_scale = 0.005;
  cases.push_back({"Barten CSF", o});
  uint32_t seed = 4242;
  for (const Case& c : cases) {
    for (const Layout* lay : {&kLayouts[0], &kLayouts[3]}) {
      for (Pattern pat : {kRandom, kNear, kEnhanced, kMixed}) {
        const PicturePair pp = make_pair(97, 67, *lay, pat, seed);
        const std::string what = std::string(c.name) + ", " + lay->name + " 97x67 " + kPatternNames[pat] +
                                 " seed " + std::to_string(seed);
        ++seed;
        if (!check_pair(pp, c.opt, what)) return;
      }
    }
  }
}

// The public clips through the emulated kernel (a spread of frames of every pair; pair a also with the neg model's
// gain limit 1): the scores bit-exact with cpu::Adm, and within 2e-6 of libvmaf's JSON (printed with 6 decimals).
TEST(HipAdmImpl, OracleClipsThroughTheEmulatedKernel) {
  const char* names[7] = {"integer_adm2",       "integer_aim",        "integer_adm3",      "integer_adm_scale0",
                          "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3"};
  double max_diff[7] = {0, 0, 0, 0, 0, 0, 0};
  int frames = 0;
  std::vector<std::string> checked, absent;
  for (const auto& pair : test::oracle_pairs_420(&absent)) {
    test::PairClips clips;
    ASSERT_OK(test::open_pair_clips(pair, &clips));
    const test::YuvClip &ref = clips.ref, &dist = clips.dist;
    struct Model {
      const char* oracle;
      const char* suffix;
      double gain;
    };
    std::vector<Model> models = {{"vmaf_v0.6.1", "", 100.0}};
    if (test::file_exists(pair.oracle_path("vmaf_v0.6.1neg"))) models.push_back({"vmaf_v0.6.1neg", "_egl_1", 1.0});
    for (const Model& m : models) {
      test::Oracle oracle;
      ASSERT_TRUE(test::load_oracle(pair.oracle_path(m.oracle), &oracle).is_ok());
      ASSERT_EQ(oracle.frames.size(), ref.frames());
      cpu::AdmOptions opt;
      opt.enhn_gain_limit = m.gain;
      hip::AdmGpuParams gp;
      ASSERT_TRUE(hip::adm_gpu_params(pair.width, pair.height, pair.bpc, opt, &gp).is_ok());
      cpu::Adm adm;
      ASSERT_TRUE(adm.init(pair.width, pair.height, pair.bpc, opt).is_ok());
      const size_t step = std::max<size_t>(1, ref.frames() / 5);
      for (size_t i = 0; i < ref.frames(); i += step) {
        const cpu::Plane cr = cpu::luma_plane(ref.frame(i)), cd = cpu::luma_plane(dist.frame(i));
        auto arg = [](const cpu::Plane& c) {
          return VxPlane{c.data, uint64_t(c.stride), c.w, c.h, c.bytes, c.shift, c.step};
        };
        const Emulated e = emulate(arg(cr), arg(cd), gp, false);
        const cpu::AdmScores got = hip::adm_gpu_scores(e.sums, gp, pair.width, pair.height, opt);
        cpu::AdmScores want;
        ASSERT_TRUE(adm.compute(cr, cd, &want).is_ok());
        ASSERT_TRUE(same_scores(got, want)) << pair.prefix << "_" << pair.distorted << " " << m.oracle << " frame "
                                            << i;
        const double g[7] = {got.adm2, got.aim, got.adm3, got.scale[0], got.scale[1], got.scale[2], got.scale[3]};
        for (int k = 0; k < 7; ++k) {
          const double expect = oracle.frames[i].at(std::string(names[k]) + m.suffix);
          max_diff[k] = std::max(max_diff[k], std::abs(g[k] - expect));
          EXPECT_NEAR(g[k], expect, 2e-6) << pair.prefix << "_" << pair.distorted << " frame " << i << " " << names[k]
                                          << m.suffix;
        }
        ++frames;
      }
      checked.push_back(pair.name() + "(" + m.oracle + ")");
    }
  }
  test::print_pair_coverage(checked, absent);
  ASSERT_FALSE(checked.empty()) << "no oracle clip under " << test::shared_testdata_dir();
  std::printf("%d oracle frames through the emulated kernel bit-exact with cpu::Adm; max |emulated - libvmaf JSON|:",
              frames);
  for (int k = 0; k < 7; ++k) std::printf(" %s %.3g", names[k], max_diff[k]);
  std::printf("\n");
}

// ---- per-position functions at the edges of their ranges ---------------------------------------------------------

template <class T>
T edge_value(std::mt19937& rng) {
  if constexpr (sizeof(T) == 2) {
    static const int16_t kEdges[] = {0, 1, -1, 2, -2, 32767, -32768, -32767, 16384, -16384, 255, -256, 23000, -23000};
    if (rng() % 3 == 0) return int16_t(rng());
    return kEdges[rng() % std::size(kEdges)];
  } else {
    static const int32_t kEdges[] = {0,          1,           -1,          32767,       -32767,       32768,
                                     -32768,     65535,       -65536,      1 << 30,     -(1 << 30),   2147483647,
                                     -2147483647, int32_t(-2147483647 - 1), 98765,     -123457};
    if (rng() % 3 == 0) return int32_t(rng());
    if (rng() % 4 == 0) return int32_t(int32_t(rng()) >> (rng() % 31));
    return kEdges[rng() % std::size(kEdges)];
  }
}

// A band set (a, h, v, d) of w x h filled with edge values.
template <class T>
StagePlanes<T> edge_bands(int w, int h, std::mt19937& rng) {
  StagePlanes<T> sp;
  sp.alloc(w, h, T(0));
  for (auto& v : sp.v) v = edge_value<T>(rng);
  // Some positions where dist is a scaled copy of ref (the angle test and the gain limit).
  for (int i = 0; i < h; ++i) {
    for (int j = 0; j < w; ++j) {
      if (rng() % 3) continue;
      const size_t at = size_t(i) * w + j;
      const double k = (rng() % 200) / 100.0;
      for (int b = 1; b < 4; ++b) {
        const double v = double(sp.plane(K::kDumpRefA + b)[at]) * k + double(int(rng() % 3) - 1);
        const double lim = double(std::numeric_limits<T>::max());
        sp.plane(K::kDumpDistA + b)[at] = T(std::clamp(v, -lim, lim));
      }
    }
  }
  return sp;
}

// Decouple, CSF, den and cm of raw bands, position by position with the kernel's functions, against the CPU.
template <class T>
::testing::AssertionResult raw_bands_match(int scale, StagePlanes<T>& sp, const K::ScaleParams& p, double gain,
                                           const K::FinishParams& f, const float rfactor[3],
                                           const cpu::AdmOptions& opt) {
  typedef K::Ops<T> O;
  const int w = sp.w, h = sp.h;
  // CPU
  StagePlanes<T> cpu_sp = sp;
  hip::AdmFrameSums want;
  if constexpr (sizeof(T) == 2) {
    uint16_t fixed0[3];
    cpu::adm_fixed_factors_scale0(rfactor, opt, fixed0);
    reference_scale(
        cpu_sp, gain, cpu::adm_decouple_scale0,
        [&](cpu::AdmBands<const int16_t> src, int bw, int bh, cpu::AdmBands<int16_t> c, cpu::AdmBands<int16_t> fl) {
          cpu::adm_csf_scale0(src, bw, bh, fixed0, c, fl);
        },
        cpu::adm_den_sums_scale0,
        [&](cpu::AdmBands<const int16_t> x, cpu::AdmBands<const int16_t> c, cpu::AdmBands<const int16_t> fl, int bw,
            int bh) { return cpu::adm_cm_sums_scale0(x, c, fl, bw, bh, fixed0); },
        &want.den[0], &want.dlm[0], &want.aim[0]);
  } else {
    uint32_t fixed[3];
    cpu::adm_fixed_factors_scale123(rfactor, fixed);
    reference_scale(
        cpu_sp, gain, cpu::adm_decouple_scale123,
        [&](cpu::AdmBands<const int32_t> src, int bw, int bh, cpu::AdmBands<int32_t> c, cpu::AdmBands<int32_t> fl) {
          cpu::adm_csf_scale123(src, bw, bh, fixed, c, fl);
        },
        [&](cpu::AdmBands<const int32_t> b, int bw, int bh) { return cpu::adm_den_sums_scale123(b, bw, bh, scale); },
        [&](cpu::AdmBands<const int32_t> x, cpu::AdmBands<const int32_t> c, cpu::AdmBands<const int32_t> fl, int bw,
            int bh) { return cpu::adm_cm_sums_scale123(x, c, fl, bw, bh, fixed); },
        &want.den[0], &want.dlm[0], &want.aim[0]);
  }
  // Kernel functions
  for (int i = 0; i < h; ++i) {
    for (int j = 0; j < w; ++j) {
      const size_t at = size_t(i) * w + j;
      T ob[4], tb[4], r[3], a[3];
      for (int b = 0; b < 4; ++b) {
        ob[b] = sp.plane(K::kDumpRefA + b)[at];
        tb[b] = sp.plane(K::kDumpDistA + b)[at];
      }
      const T o[3] = {ob[1], ob[2], ob[3]}, t[3] = {tb[1], tb[2], tb[3]};
      O::decouple(o, t, gain, r, a);
      for (int b = 0; b < 3; ++b) {
        sp.plane(K::kDumpR + b)[at] = r[b];
        sp.plane(K::kDumpAdd + b)[at] = a[b];
        sp.plane(K::kDumpCsfDlm + b)[at] = O::csf(a[b], p, b);
        sp.plane(K::kDumpFltDlm + b)[at] = O::flt(O::csf(a[b], p, b));
        sp.plane(K::kDumpCsfAim + b)[at] = O::csf(r[b], p, b);
        sp.plane(K::kDumpFltAim + b)[at] = O::flt(O::csf(r[b], p, b));
      }
    }
  }
  ::testing::AssertionResult stages = same_stages(sp, cpu_sp, scale);
  if (!stages) return stages;
  // Sums: per row over the score rectangle, then the finishing kernel's rounding.
  std::vector<uint64_t> rows(size_t(K::kKinds) * h, 0);
  for (int i = p.top; i < p.bottom; ++i) {
    for (int j = p.left; j < p.right; ++j) {
      const size_t at = size_t(i) * w + j;
      const int rr[3] = {K::cm_up(i), i, K::cm_down(i, h)};
      const int cc[3] = {K::cm_up(j), j, K::cm_down(j, w)};
      for (int set = 0; set < 2; ++set) {
        const int flt_first = set == 0 ? K::kDumpFltDlm : K::kDumpFltAim;
        const int csf_first = set == 0 ? K::kDumpCsfDlm : K::kDumpCsfAim;
        const int x_first = set == 0 ? K::kDumpR : K::kDumpAdd;
        auto nb = [&](int b, int dy, int dx) {
          return vx_i32(sp.plane(flt_first + b)[size_t(rr[dy + 1]) * w + cc[dx + 1]]);
        };
        vx_i32 centre[3];
        T x[3];
        for (int b = 0; b < 3; ++b) {
          centre[b] = O::centre(sp.plane(csf_first + b)[at]);
          x[b] = sp.plane(x_first + b)[at];
        }
        vx_i64 cm[3];
        O::cm(x, K::cm_threshold(nb, centre), p, cm);
        for (int b = 0; b < 3; ++b) rows[size_t(3 + 3 * set + b) * h + i] += uint64_t(cm[b]);
      }
      for (int b = 0; b < 3; ++b) rows[size_t(b) * h + i] += O::den(sp.plane(K::kDumpRefA + 1 + b)[at], p);
    }
  }
  K::FinishParams one = f;
  const int s = scale;
  hip::AdmFrameSums got;
  uint64_t tot[K::kKinds] = {};
  one.rows_offset[s] = 0;
  for (int q = 0; q < K::kKinds; ++q)
    for (int i = p.top; i < p.bottom; ++i) tot[q] += K::row_round(rows[size_t(q) * h + i], q, one, s);
  got.den[0] = {tot[0], tot[1], tot[2]};
  got.dlm[0] = {int64_t(tot[3]), int64_t(tot[4]), int64_t(tot[5])};
  got.aim[0] = {int64_t(tot[6]), int64_t(tot[7]), int64_t(tot[8])};
  for (int k = 1; k < 4; ++k) got.den[k] = want.den[k], got.dlm[k] = want.dlm[k], got.aim[k] = want.aim[k];
  return same_sums(got, want);
}

TEST(HipAdmImpl, RawBandsAtRangeEdgesMatchCpu) {
  // Band sizes of these pictures cover 3..41 positions per side at the four scales.
  const Size pictures[] = {{33, 33}, {41, 57}, {81, 65}};
  std::mt19937 rng(9001);
  int sets = 0;
  for (const Size& pic : pictures) {
    for (double gain : {100.0, 1.0, 3.5}) {
      cpu::AdmOptions opt;
      opt.enhn_gain_limit = gain;
      hip::AdmGpuParams gp;
      ASSERT_TRUE(hip::adm_gpu_params(pic.w, pic.h, 8, opt, &gp).is_ok());
      for (int rep = 0; rep < 6; ++rep) {
        for (int s = 0; s < 4; ++s) {
          const K::ScaleParams& p = gp.scale[s];
          SCOPED_TRACE("picture " + std::to_string(pic.w) + "x" + std::to_string(pic.h) + " scale " +
                       std::to_string(s) + " gain " + std::to_string(gain) + " repetition " + std::to_string(rep));
          if (s == 0) {
            StagePlanes<int16_t> sp = edge_bands<int16_t>(p.w, p.h, rng);
            ASSERT_TRUE(raw_bands_match(0, sp, p, gain, gp.finish, gp.rfactor[0], opt));
          } else {
            StagePlanes<int32_t> sp = edge_bands<int32_t>(p.w, p.h, rng);
            ASSERT_TRUE(raw_bands_match(s, sp, p, gain, gp.finish, gp.rfactor[s], opt));
          }
          ++sets;
        }
      }
    }
  }
  std::printf("%d band sets of int16/int32 edge values: decouple, CSF, flt, den and cm sums equal to the CPU\n",
              sets);
}

// Scales 1..3 DWT on int16 and int32 inputs over their whole range (pictures never reach these), odd sizes.
TEST(HipAdmImpl, DwtOfExtremeBandsMatchesCpu) {
  std::mt19937 rng(31337);
  const Size sizes[] = {{5, 5}, {6, 7}, {9, 5}, {17, 12}, {33, 21}};
  int outputs = 0;
  for (const Size& sz : sizes) {
    const int w = int(sz.w), h = int(sz.h), ow = (w + 1) / 2, oh = (h + 1) / 2;
    for (int scale = 1; scale < 4; ++scale) {
      for (int rep = 0; rep < 10; ++rep) {
        std::vector<int16_t> in16(size_t(w) * h);
        std::vector<int32_t> in32(size_t(w) * h);
        for (auto& v : in16) v = edge_value<int16_t>(rng);
        for (auto& v : in32) v = edge_value<int32_t>(rng);
        for (int kind = 0; kind < 2; ++kind) {
          std::vector<int32_t> cpu_out(4 * size_t(ow) * oh), tmp(2 * size_t(w));
          const size_t n = size_t(ow) * oh;
          cpu::AdmBands<int32_t> b(cpu_out.data(), cpu_out.data() + n, cpu_out.data() + 2 * n,
                                   cpu_out.data() + 3 * n, ow);
          if (kind == 0)
            cpu::adm_dwt_scale123(in16.data(), w, w, h, scale, b, tmp.data());
          else
            cpu::adm_dwt_scale123(in32.data(), w, w, h, scale, b, tmp.data());
          for (int i = 0; i < oh; ++i) {
            for (int j = 0; j < ow; ++j) {
              vx_i32 out[4], a_only[4];
              if (kind == 0) {
                K::dwt123_at<true>(in16.data(), w, w, h, scale, i, j, out);
                K::dwt123_at<false>(in16.data(), w, w, h, scale, i, j, a_only);
              } else {
                K::dwt123_at<true>(in32.data(), w, w, h, scale, i, j, out);
                K::dwt123_at<false>(in32.data(), w, w, h, scale, i, j, a_only);
              }
              const int32_t want[4] = {b.a[i * ow + j], b.h[i * ow + j], b.v[i * ow + j], b.d[i * ow + j]};
              for (int k = 0; k < 4; ++k)
                ASSERT_EQ(out[k], want[k]) << "band " << "ahvd"[k] << " of " << (kind ? "int32" : "int16") << " "
                                           << w << "x" << h << " input, scale " << scale << ", at (x=" << j
                                           << ", y=" << i << "), repetition " << rep;
              ASSERT_EQ(a_only[0], want[0]) << "a-only path at (x=" << j << ", y=" << i << ")";
              ++outputs;
            }
          }
        }
      }
    }
  }
  std::printf("%d DWT outputs of extreme int16/int32 bands equal to the CPU\n", outputs);
}

}  // namespace
}  // namespace vmafx
