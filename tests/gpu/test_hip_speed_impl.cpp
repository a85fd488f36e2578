// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU SpEED kernels' arithmetic (engine/hip/kernels/speed_impl.h) run on the CPU, launch by launch and step by
// step as kernels/speed.hip orders them, against the CPU reference (cpu/speed.h), bit for bit: the decimated image,
// the local-mean-subtracted image, the covariance, eigenvalues, singular flag and block variances of every image,
// and the scores finished on the host; on seeded chroma planes in every layout the kernels read in place (8-bit,
// interleaved NV12 / P010, 10/12/16-bit words with a shift) under every option set of speed_test_util.h, at the
// smallest size and odd sizes, with flat (singular) planes; and on the public v1 pairs. Suite 'hip': needs no GPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/plane.h"
#include "cpu/speed.h"
#include "hip/kernels/speed_impl.h"
#include "hip/speed_gpu.h"
#include "speed_test_util.h"  // tests/gpu: planes, option sets, comparisons (shared with the GPU test)
#include "support.h"

namespace vmafx {
namespace {

namespace K = hip::speed;
using namespace speed_test;  // NOLINT: the shared test vocabulary

K::ImageArg arg_of(const cpu::Plane& p) {
  K::ImageArg a{};
  a.plane = VxPlane{p.data, uint64_t(p.stride), p.w, p.h, p.bytes, p.shift, p.step};
  a.bpc = p.bpc;
  return a;
}

struct Emulated {
  std::vector<float> dec, ms;
  cpu::SpeedEstimate est;
};

// One image through the four kernels: prescale (every pixel), dec (every output), mean, and the estimate kernel's
// steps in its order (each parallel loop over its elements, the serial steps where thread 0 runs them).
Emulated emulate(const cpu::Plane& plane, const hip::SpeedGpuParams& gp) {
  const K::Dims& d = gp.kdims;
  const K::Filters& f = gp.filters;
  const K::ImageArg a = arg_of(plane);
  Emulated e;
  std::vector<float> scaled;
  if (d.rescale) {
    const cpu::SpeedScaleTables& t = gp.tables;
    K::ScaleTables kt{int(t.method), t.x.taps, t.x.index.data(), t.x.weight.data(), t.y.index.data(),
                      t.y.weight.data()};
    scaled.assign(size_t(d.scaled_w) * d.scaled_h, 0x7eed);
    for (int y = 0; y < d.scaled_h; y++)
      for (int x = 0; x < d.scaled_w; x++) scaled[size_t(y) * d.scaled_w + x] = K::prescale_at(a, kt, x, y);
  }
  e.dec.assign(size_t(d.dec_w) * d.dec_h, 0);
  for (int i = 0; i < d.dec_h; i++)
    for (int j = 0; j < d.dec_w; j++) {
      float v;
      if (d.rescale) {
        K::FloatSource src{scaled.data(), d.scaled_w};
        v = K::antialias_dec16_at(src, f, d.scaled_w, d.scaled_h, i, j);
      } else {
        K::PlaneSource src{a};
        v = K::antialias_dec16_at(src, f, d.scaled_w, d.scaled_h, i, j);
      }
      e.dec[size_t(i) * d.dec_w + j] = v;
    }
  e.ms.assign(e.dec.size(), 0);
  for (int i = 0; i < d.dec_h; i++)
    for (int j = 0; j < d.dec_w; j++) {
      const size_t at = size_t(i) * d.dec_w + j;
      e.ms[at] = e.dec[at] - K::local_mean_at(e.dec.data(), d.dec_w, f, d.dec_w, d.dec_h, i, j);
    }
  // The estimate kernel.
  const int nb = d.blocks, nn = K::kN * K::kN;
  const size_t ny = size_t(K::kN) * nb;
  float cov[K::kN * K::kN], qm[K::kN * K::kN], rm[K::kN * K::kN], tmp_q[K::kN * K::kN], tmp_z[K::kN * K::kN],
      tmp_mul[K::kN * K::kN], scratch[K::kN * K::kN], means[K::kN], eigen[K::kN], vec[K::kN];
  std::vector<float> y(ny), rhs(ny), x(ny, 1234.5f);
  const float* img = e.ms.data();
  for (int t = 0; t < K::kN; t++) means[t] = K::window_mean(d, img, d.dec_w, t);
  for (int p = 0; p < K::kN * (K::kN + 1) / 2; p++) {
    int xi = 0;
    while ((xi + 1) * (xi + 2) / 2 <= p) xi++;
    const int yi = p - xi * (xi + 1) / 2;
    const float c = K::covariance(d, img, d.dec_w, means, xi, yi);
    cov[xi * K::kN + yi] = c;
    cov[yi * K::kN + xi] = c;
  }
  K::eigenvalues(cov, eigen, scratch);
  for (size_t q = 0; q < ny; q++) y[q] = K::independent_term(d, img, d.dec_w, int(q / nb), int(q % nb));
  bool ok = K::regular(eigen);
  if (ok) {
    for (int q = 0; q < nn; q++) {
      tmp_z[q] = cov[q];
      qm[q] = (q / K::kN == q % K::kN) ? 1.0f : 0.0f;
    }
    for (int k = 0; k < K::kN - 1; k++) {
      for (int q = 0; q < nn; q++) K::qr_minor(tmp_z, k, q);
      K::qr_vector(tmp_z, cov, k, vec);
      for (int q = 0; q < nn; q++) tmp_q[q] = K::qr_reflector(vec, q);
      for (int q = 0; q < nn; q++) tmp_mul[q] = K::mat_mul_at(tmp_q, tmp_z, q);
      for (int q = 0; q < nn; q++) tmp_z[q] = tmp_mul[q];
      for (int q = 0; q < nn; q++) tmp_mul[q] = K::mat_mul_at(tmp_q, qm, q);
      for (int q = 0; q < nn; q++) qm[q] = tmp_mul[q];
    }
    for (int q = 0; q < nn; q++) rm[q] = K::mat_mul_at(qm, cov, q);
    for (size_t q = 0; q < ny; q++) rhs[q] = K::rhs_at(qm, y.data(), nb, int(q / nb), int(q % nb));
    for (int i = K::kN - 1; i >= 0 && ok; i--) {
      ok = K::pivot_ok(rm, i);
      if (ok)
        for (int j = 0; j < nb; j++) x[size_t(i) * nb + j] = K::back_substitute(rm, rhs.data(), x.data(), nb, i, j);
    }
  }
  if (!ok) std::fill(x.begin(), x.end(), 0.0f);
  std::vector<float> out(gp.out_floats);
  for (int t = 0; t < K::kN; t++) out[K::kOutEigen + t] = eigen[t];
  out[K::kOutSingular] = ok ? 0.0f : 1.0f;
  for (int j = 0; j < nb; j++) out[K::kOutVariance + j] = K::block_variance(x.data(), y.data(), nb, j);
  hip::speed_gpu_estimate(out.data(), gp, &e.est);
  return e;
}

int g_regular = 0, g_singular = 0;  // estimates checked, by kind (the printout says the solve was exercised)

// A pair of planes (U or V of ref and dist) of luma_w x luma_h 4:4:4 pictures under opt: stages and estimates.
bool check_images(const HostPlane& ref, const HostPlane& dist, const cpu::SpeedOptions& opt, const std::string& what) {
  SCOPED_TRACE(what);
  cpu::SpeedChroma sp;
  const Status is = sp.init(ref.w, ref.h, Chroma::k444, ref.layout.bpc, opt);
  EXPECT_TRUE(is.is_ok()) << is.to_string();
  if (!is) return false;
  hip::SpeedGpuParams gp;
  const Status ps = hip::speed_gpu_params(ref.w, ref.h, Chroma::k444, ref.layout.bpc, opt, &gp);
  EXPECT_TRUE(ps.is_ok()) << ps.to_string();
  if (!ps) return false;
  cpu::SpeedEstimate est[2];
  for (int k = 0; k < 2; k++) {
    const cpu::Plane p = (k ? dist : ref).plane();
    const Emulated e = emulate(p, gp);
    const CpuStages c = cpu_stages(p, sp);
    EXPECT_TRUE(same_floats(e.dec, c.dec, gp.dims.dec_w, "decimated image"));
    EXPECT_TRUE(same_floats(e.ms, c.ms, gp.dims.dec_w, "local-mean-subtracted image"));
    EXPECT_TRUE(same_estimate(e.est, c.est));
    cpu::SpeedEstimate whole;
    EXPECT_TRUE(sp.estimate_image(p, &whole).is_ok());
    EXPECT_TRUE(same_estimate(e.est, whole)) << " (estimate_image)";
    est[k] = e.est;
    (e.est.singular ? g_singular : g_regular)++;
  }
  // The channel as SpeedGpu::finish scores it, against compute() with this pair as both U and V.
  bool err = false;
  const float s = cpu::speed_channel_score(est[0], est[1], opt, &err);
  const cpu::SpeedScores want_s = cpu::speed_combine(s, err, s, err, opt.max_val);
  cpu::SpeedScores got;
  const Status cs = sp.compute(ref.plane(), ref.plane(), dist.plane(), dist.plane(), &got);
  EXPECT_TRUE(cs.is_ok()) << cs.to_string();
  EXPECT_EQ(got.u, want_s.u);
  EXPECT_EQ(got.uv, want_s.uv);
  return !::testing::Test::HasFailure();
}

TEST(HipSpeedImpl, ParamsMatchTheCpuReference) {
  cpu::SpeedOptions opt;
  opt.prescale = 0.5;
  opt.prescale_method = cpu::SpeedScaleMethod::bilinear;
  hip::SpeedGpuParams gp;
  ASSERT_OK(hip::speed_gpu_params(3840, 2160, Chroma::k420, 8, opt, &gp));
  EXPECT_EQ(gp.kdims.orig_w, 1920);
  EXPECT_EQ(gp.kdims.scaled_w, 960);
  EXPECT_EQ(gp.kdims.dec_w, 60);
  EXPECT_EQ(gp.kdims.blocks, 12 * 6);
  EXPECT_EQ(gp.kdims.rescale, 1);
  EXPECT_EQ(gp.out_floats, size_t(K::kOutVariance + 72));
  cpu::SpeedFilters f;
  cpu::speed_filters(1.0, &f);
  EXPECT_EQ(gp.filters.aa_width, 9);
  EXPECT_EQ(gp.filters.mean_width, 3);
  for (int k = 0; k < 9; k++) EXPECT_EQ(gp.filters.aa[k], f.aa[k]);
  opt.kernelscale = 4.0;  // not one of libvmaf's
  EXPECT_EQ(hip::speed_gpu_params(1920, 1080, Chroma::k420, 8, opt, &gp).code(), Errc::invalid_argument);
  opt = {};
  opt.kernelscale = 3.0;  // the largest filters: 37 and 9 taps fit the kernel's
  ASSERT_OK(hip::speed_gpu_params(1920, 1080, Chroma::k420, 8, opt, &gp));
  EXPECT_EQ(gp.filters.aa_width, 27);
  EXPECT_EQ(hip::speed_gpu_params(158, 160, Chroma::k420, 8, {}, &gp).code(), Errc::unsupported);
  EXPECT_EQ(hip::speed_gpu_params(640, 480, Chroma::k400, 8, {}, &gp).code(), Errc::unsupported);
  EXPECT_EQ(hip::speed_gpu_params(640, 480, Chroma::k420, 9, {}, &gp).code(), Errc::unsupported);
}

// Every layout x option set on textured and noisy planes of an odd size; flat planes (singular covariance) and
// min/max planes; the smallest plane.
TEST(HipSpeedImpl, KernelsMatchCpuStageByStage) {
  uint32_t seed = 5150;
  int pairs = 0;
  const std::vector<OptionCase> cases = option_cases();
  for (const Layout& lay : kLayouts) {
    for (const OptionCase& oc : cases) {
      for (Content c : {kTexture, kNoise, kExtremes}) {
        // Large enough that the 0.6 prescale keeps 5 x 5 decimated samples and the covariance regular.
        const uint32_t w = 357 + seed % 7, h = 299 + seed % 5;
        const HostPlane ref = make_plane(w, h, lay, c, seed), dist = distort(ref, seed + 1);
        const std::string what = std::string(lay.name) + " " + std::to_string(w) + "x" + std::to_string(h) + " " +
                                 kContentNames[c] + ", " + oc.name + ", seed " + std::to_string(seed);
        seed += 2;
        ++pairs;
        if (!check_images(ref, dist, oc.opt, what)) return;
      }
    }
  }
  std::printf("%d plane pairs (%d regular and %d singular estimates): every stage and estimate equal to the CPU\n",
              pairs, g_regular, g_singular);
  EXPECT_GT(g_regular, pairs);  // most images have an invertible covariance
}

TEST(HipSpeedImpl, SingularAndSmallestPlanesMatchCpu) {
  uint32_t seed = 99;
  for (const Layout& lay : kLayouts) {
    const HostPlane flat = make_plane(200, 120, lay, kFlat, seed), tex = make_plane(200, 120, lay, kTexture, seed + 1);
    ASSERT_TRUE(check_images(flat, flat, {}, std::string(lay.name) + ": both flat"));
    ASSERT_TRUE(check_images(flat, tex, {}, std::string(lay.name) + ": reference flat"));
    ASSERT_TRUE(check_images(tex, flat, {}, std::string(lay.name) + ": distorted flat"));
    // 80 x 80: one block, a 1 x 1 covariance window (singular).
    const HostPlane small = make_plane(80, 80, lay, kTexture, seed + 2);
    ASSERT_TRUE(check_images(small, distort(small, seed + 3), {}, std::string(lay.name) + ": 80x80"));
    seed += 4;
  }
}

// The public v1 pairs' chroma (a spread of frames) through the emulated kernels with the v1 models' options.
TEST(HipSpeedImpl, PublicPairsThroughTheEmulatedKernels) {
  std::vector<std::string> absent, checked;
  for (const test::Pair& p : test::oracle_pairs_420(&absent)) {
    // Pair c and g5: their chroma is too small for the 0.6 prescale (fewer than 80 rows).
    if (p.prefix.rfind("c_", 0) == 0 || p.prefix.rfind("g5_", 0) == 0) continue;
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(p, &c));
    for (double prescale : {1.0, 0.6}) {
      cpu::SpeedOptions opt = option_cases()[1].opt;
      if (prescale != 1.0) {
        opt.prescale = prescale;
        opt.prescale_method = cpu::SpeedScaleMethod::bilinear;
      }
      cpu::SpeedChroma sp;
      ASSERT_OK(sp.init(p.width, p.height, Chroma::k420, p.bpc, opt));
      hip::SpeedGpuParams gp;
      ASSERT_OK(hip::speed_gpu_params(p.width, p.height, Chroma::k420, p.bpc, opt, &gp));
      for (size_t f = 0; f < c.ref.frames(); f += 7) {
        for (unsigned plane : {1u, 2u}) {
          for (const test::YuvClip* clip : {&c.ref, &c.dist}) {
            const cpu::Plane pl = cpu::chroma_plane(clip->frame(f), plane);
            cpu::SpeedEstimate want;
            ASSERT_OK(sp.estimate_image(pl, &want));
            ASSERT_TRUE(same_estimate(emulate(pl, gp).est, want))
                << p.name() << " frame " << f << " plane " << plane << " prescale " << prescale;
          }
        }
      }
    }
    checked.push_back(p.name());
  }
  test::print_pair_coverage(checked, absent);
}

}  // namespace
}  // namespace vmafx
