// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU kernels of float_psnr, float_moment, float_ansnr, speed_temporal and ssimulacra2 run on the CPU, launch by
// launch in the order and buffer layout their GpuFeatures use (hip/float_psnr_gpu.cpp, hip/speed_gpu.cpp,
// hip/ssimulacra2_gpu.cpp), every thread's work through the same _impl functions, against the CPU reference bit for
// bit: the 64-bit counts and the scores finished from them, the rows' float sums of float_ansnr, speed_temporal's
// difference images and their prescale from float images, and ssimulacra2's row sums of every scale and its score;
// on the derived clips of the sample pair (8 to 16 bits, 4:2:0 / 4:2:2 / 4:4:4), a 4:0:0 and odd sizes, and the
// 16-bit worst case of the sums' bound. Suite 'hip': needs no GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <tuple>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/float_ansnr.h"
#include "cpu/float_psnr.h"
#include "cpu/plane.h"
#include "cpu/speed.h"
#include "cpu/ssimulacra2.h"
#include "derived_clips.h"
#include "hip/kernels/float_ansnr_impl.h"
#include "hip/kernels/float_psnr_impl.h"
#include "hip/kernels/speed_impl.h"
#include "hip/kernels/ssimulacra2_impl.h"
#include "hip/speed_gpu.h"
#include "support.h"

namespace vmafx {
namespace {

// A plane of a host picture as the pipeline hands it to kernels (feature size: libvmaf's floor chroma).
VxPlane vx_plane(const cpu::Plane& p) { return VxPlane{p.data, uint64_t(p.stride), p.w, p.h, p.bytes, p.shift, p.step}; }

// float_psnr_sums_kernel's counts of a frame (every pixel, any order: integers).
void sums_kernel(const VxPlane& r, const VxPlane& d, unsigned bpc, uint64_t out[FPS_SUMS]) {
  const float u1 = fps_unit(bpc, false), u2 = fps_unit(bpc, true);
  for (int k = 0; k < FPS_SUMS; k++) out[k] = 0;
  for (uint32_t y = 0; y < r.height; y++)
    for (uint32_t x = 0; x < r.width; x++) {
      const float a = fps_value(fx_read_sample(r, x, y), bpc), b = fps_value(fx_read_sample(d, x, y), bpc);
      out[FPS_NOISE] += fps_count(fps_noise_term(a, b), u2);
      out[FPS_REF1] += fps_count(a, u1);
      out[FPS_DIS1] += fps_count(b, u1);
      out[FPS_REF2] += fps_count(fps_square(a), u2);
      out[FPS_DIS2] += fps_count(fps_square(b), u2);
    }
}

TEST(HipMetricsImpl, FloatSumsAndAnsnrRowsEqualCpu) {
  unsigned frames = 0;
  for (const test::DerivedClip& c : test::derived_clips()) {
    test::PairClips pc;
    ASSERT_OK(test::open_derived_clip(c, &pc));
    cpu::FloatPsnr psnr;
    cpu::FloatMoment moment;
    cpu::FloatAnsnr ansnr;
    ASSERT_OK(psnr.init(c.width, c.height, c.bpc));
    ASSERT_OK(moment.init(c.width, c.height, c.bpc));
    ASSERT_OK(ansnr.init(c.width, c.height, c.bpc));
    ASSERT_TRUE(cpu::float_sums_exact(c.width, c.height, c.bpc));
    for (size_t f = 0; f < pc.ref.frames(); f++) {
      const cpu::Plane rp = cpu::luma_plane(pc.ref.frame(f)), dp = cpu::luma_plane(pc.dist.frame(f));
      double want_p = 0, want_m[4], want_a[2];
      ASSERT_OK(psnr.compute(rp, dp, &want_p));
      ASSERT_OK(moment.compute(rp, dp, want_m));
      ASSERT_OK(ansnr.compute(rp, dp, want_a));
      // FloatSumsGpu::finish from the kernel's counts.
      uint64_t s[FPS_SUMS];
      sums_kernel(vx_plane(rp), vx_plane(dp), c.bpc, s);
      const double u1 = cpu::float_sums_unit(c.bpc, false), u2 = cpu::float_sums_unit(c.bpc, true);
      EXPECT_EQ(cpu::float_psnr_from_sum(double(s[FPS_NOISE]) * u2, c.width, c.height, psnr.params()), want_p);
      const uint64_t* m = s + FPS_REF1;
      for (int k = 0; k < 4; k++)
        EXPECT_EQ(cpu::float_moment_from_sum(double(m[k]) * (k < 2 ? u1 : u2), c.width, c.height), want_m[k])
            << c.name << " frame " << f << " moment " << k;
      // float_ansnr: the terms kernel per pixel, the rows kernel per row.
      std::vector<float> sig(size_t(c.width) * c.height), noise(sig.size()), rows(2 * size_t(c.height));
      FanTaps taps;
      fan_taps(&taps);
      FanPlaneSource rs{vx_plane(rp), c.bpc}, ds{vx_plane(dp), c.bpc};
      for (int i = 0; i < int(c.height); i++)
        for (int j = 0; j < int(c.width); j++) {
          const float a = fan_filter_at(rs, taps.ref, FAN_REF_WIDTH, int(c.width), int(c.height), i, j);
          const float b = fan_filter_at(ds, taps.dis, FAN_DIS_WIDTH, int(c.width), int(c.height), i, j);
          sig[size_t(i) * c.width + j] = fan_sig_term(a);
          noise[size_t(i) * c.width + j] = fan_noise_term(a, b);
        }
      for (uint32_t y = 0; y < c.height; y++) {
        rows[2 * y] = fx_row_sum(sig.data() + size_t(y) * c.width, int(c.width));
        rows[2 * y + 1] = fx_row_sum(noise.data() + size_t(y) * c.width, int(c.width));
      }
      ASSERT_EQ(rows, ansnr.row_sums()) << c.name << " frame " << f;
      double got_a[2];
      cpu::float_ansnr_from_rows(rows.data(), c.width, c.height, psnr.params(), got_a);
      EXPECT_EQ(got_a[0], want_a[0]);
      EXPECT_EQ(got_a[1], want_a[1]);
      frames++;
    }
  }
  std::printf("  float_psnr, float_moment, float_ansnr: %u frames, kernels' arithmetic == cpu\n", frames);
}

TEST(HipMetricsImpl, SpeedTemporalDifferencesAndFloatPrescaleEqualCpu) {
  namespace K = hip::speed;
  unsigned checked = 0;
  struct Case {
    const char* clip;
    double prescale;
    cpu::SpeedScaleMethod method;
    bool urd;
  };
  for (const Case k : {Case{"sample", 1.0, cpu::SpeedScaleMethod::nearest, false},
                       Case{"d10", 0.5, cpu::SpeedScaleMethod::bilinear, true},
                       Case{"d12", 0.7, cpu::SpeedScaleMethod::lanczos4, false},
                       Case{"d16", 0.6, cpu::SpeedScaleMethod::bicubic, true},
                       Case{"x2", 0.8, cpu::SpeedScaleMethod::nearest, false}}) {
    const test::DerivedClip* c = test::find_derived_clip(k.clip);
    ASSERT_NE(c, nullptr);
    test::PairClips pc;
    ASSERT_OK(test::open_derived_clip(*c, &pc));
    cpu::SpeedOptions o;
    o.prescale = k.prescale;
    o.prescale_method = k.method;
    cpu::SpeedTemporal st;
    ASSERT_OK(st.init(c->width, c->height, c->bpc, o, k.urd));
    cpu::SpeedDims dims;
    ASSERT_OK(cpu::speed_dims(c->width, c->height, st.options(), &dims, "speed_temporal", "luma"));
    hip::SpeedGpuParams gp;
    ASSERT_OK(hip::speed_gpu_params_for(dims, st.options(), &gp));
    const size_t n = size_t(c->width) * c->height;
    std::vector<float> prev(2 * n), cur(2 * n), diff(2 * n), want(n), want_scaled, got_scaled;
    for (size_t f = 0; f < pc.ref.frames(); f++) {
      const cpu::Plane r = cpu::luma_plane(pc.ref.frame(f)), d = cpu::luma_plane(pc.dist.frame(f));
      K::ImageArg ra{}, da{};
      ra.plane = vx_plane(r);
      ra.bpc = c->bpc;
      da.plane = vx_plane(d);
      da.bpc = c->bpc;
      for (int y = 0; y < int(c->height); y++)
        for (int x = 0; x < int(c->width); x++) {
          const size_t at = size_t(y) * c->width + x;
          const float p[2] = {prev[at], prev[n + at]};
          float cc[2], dd[2];
          K::temporal_difference(ra, da, k.urd ? 1 : 0, x, y, p, cc, dd);
          cur[at] = cc[0];
          cur[n + at] = cc[1];
          diff[at] = dd[0];
          diff[n + at] = dd[1];
        }
      if (f > 0) {
        const cpu::Plane pr = cpu::luma_plane(pc.ref.frame(f - 1)), pd = cpu::luma_plane(pc.dist.frame(f - 1));
        st.difference(pr, r, want.data());
        ASSERT_EQ(0, std::memcmp(want.data(), diff.data(), n * 4)) << k.clip << " frame " << f << " ref";
        st.difference(pd, k.urd ? r : d, want.data());
        ASSERT_EQ(0, std::memcmp(want.data(), diff.data() + n, n * 4)) << k.clip << " frame " << f << " dist";
        if (dims.rescale) {
          const cpu::SpeedScaleTables& t = gp.tables;
          K::ScaleTables kt{int(t.method), t.x.taps, t.x.index.data(), t.x.weight.data(), t.y.index.data(),
                            t.y.weight.data()};
          for (int img = 0; img < 2; img++) {
            want_scaled.assign(size_t(dims.scaled_w) * dims.scaled_h, 0);
            got_scaled.assign(want_scaled.size(), 0);
            cpu::speed_prescale(st.scale_tables(), dims, diff.data() + img * n, c->width, want_scaled.data(),
                                dims.scaled_w);
            K::FloatSource src;
            src.p = diff.data() + img * n;
            src.stride = c->width;
            for (int y = 0; y < dims.scaled_h; y++)
              for (int x = 0; x < dims.scaled_w; x++)
                got_scaled[size_t(y) * dims.scaled_w + x] = K::prescale_from(src, kt, x, y);
            ASSERT_EQ(0, std::memcmp(want_scaled.data(), got_scaled.data(), want_scaled.size() * 4))
                << k.clip << " frame " << f << " image " << img;
          }
        }
        checked++;
      }
      std::swap(prev, cur);
    }
  }
  EXPECT_GE(checked, 23u + 5 + 3 + 3 + 2);
  std::printf("  speed_temporal: %u frame differences and prescales, kernels' arithmetic == cpu\n", checked);
}

// Ssimulacra2Gpu::enqueue's launches on the host: the same buffers, layouts and per-thread calls.
std::vector<double> ssimulacra2_emulated(const PictureView& ref, const PictureView& dist, const S2Yuv& k) {
  const uint32_t W = ref.width, H = ref.height;
  const bool chroma = ref.chroma != Chroma::k400;
  const cpu::Ssimulacra2Scales sc = cpu::ssimulacra2_scales(W, H);
  const S2Constants& kc = cpu::ssimulacra2_constants();
  const size_t N = size_t(W) * H;
  std::vector<float> lin_a(kS2LinPlanes * N), lin_b(kS2LinPlanes * N), xyb(kS2LinPlanes * N),
      prod(kS2ProdPlanes * N), tmp(kS2BlurPlanes * N), blurred(kS2BlurPlanes * N);
  std::vector<double> seg(size_t(H) * 3 * s2_segments(int(W)) * kS2Terms), rows(size_t(sc.rows()) * 3 * kS2Terms);
  // ssimulacra2_linear_kernel
  const VxPlane ry = vx_plane(cpu::luma_plane(ref)), dy = vx_plane(cpu::luma_plane(dist));
  VxPlane rc[2] = {ry, ry}, dc[2] = {dy, dy};
  if (chroma)
    for (int p = 0; p < 2; p++) rc[p] = vx_plane(cpu::chroma_plane(ref, p + 1)), dc[p] = vx_plane(cpu::chroma_plane(dist, p + 1));
  const uint32_t sx = ref.chroma == Chroma::k444 || !chroma ? 0 : 1, sy = ref.chroma == Chroma::k420 ? 1 : 0;
  auto chroma_at = [&](const VxPlane& p, uint32_t x, uint32_t y) {
    uint32_t cx = x >> sx, cy = y >> sy;
    if (cx > p.width - 1) cx = p.width - 1;
    if (cy > p.height - 1) cy = p.height - 1;
    return fx_read_sample(p, cx, cy);
  };
  const uint32_t neutral = uint32_t(k.c_off);
  for (uint32_t y = 0; y < H; y++)
    for (uint32_t x = 0; x < W; x++) {
      float rgb[3];
      const size_t at = size_t(y) * W + x;
      s2_yuv_rgb(k, fx_read_sample(ry, x, y), chroma ? chroma_at(rc[0], x, y) : neutral,
                 chroma ? chroma_at(rc[1], x, y) : neutral, rgb);
      for (int c = 0; c < 3; c++) lin_a[c * N + at] = rgb[c];
      s2_yuv_rgb(k, fx_read_sample(dy, x, y), chroma ? chroma_at(dc[0], x, y) : neutral,
                 chroma ? chroma_at(dc[1], x, y) : neutral, rgb);
      for (int c = 0; c < 3; c++) lin_a[(3 + c) * N + at] = rgb[c];
    }
  double* rp = rows.data();
  for (int s = 0; s < sc.count; s++) {
    const uint32_t w = sc.w[s], h = sc.h[s];
    const size_t n = size_t(w) * h;
    std::vector<float>& lin = s % 2 ? lin_b : lin_a;
    if (s > 0) {
      const std::vector<float>& prev = s % 2 ? lin_a : lin_b;
      const uint32_t pw = sc.w[s - 1], ph = sc.h[s - 1];
      for (int z = 0; z < kS2LinPlanes; z++)
        for (uint32_t y = 0; y < h; y++)
          for (uint32_t x = 0; x < w; x++)
            lin[z * n + size_t(y) * w + x] =
                s2_downsample_at(prev.data() + z * size_t(pw) * ph, pw, int(pw), int(ph), int(x), int(y));
    }
    for (size_t i = 0; i < n; i++) {
      float a[3], b[3];
      s2_xyb(kc, lin[i], lin[n + i], lin[2 * n + i], a);
      s2_xyb(kc, lin[3 * n + i], lin[4 * n + i], lin[5 * n + i], b);
      for (int c = 0; c < 3; c++) {
        xyb[c * n + i] = a[c];
        xyb[(3 + c) * n + i] = b[c];
        prod[(3 * c) * n + i] = s2_product(a[c], a[c]);
        prod[(3 * c + 1) * n + i] = s2_product(b[c], b[c]);
        prod[(3 * c + 2) * n + i] = s2_product(a[c], b[c]);
      }
    }
    for (int q = 0; q < kS2BlurPlanes; q++) {
      const float* src = q < kS2ProdPlanes ? prod.data() + q * n : xyb.data() + (q - kS2ProdPlanes) * n;
      for (uint32_t row = 0; row < h; row++)
        s2_blur_row(kc, src + size_t(row) * w, 1, int(w), tmp.data() + q * n + size_t(row) * w, 1);
      for (uint32_t col = 0; col < w; col++)
        s2_blur_column(kc, tmp.data() + q * n + col, w, int(h), blurred.data() + q * n + col);
    }
    const int segments = s2_segments(int(w));
    for (uint32_t c = 0; c < 3; c++)
      for (uint32_t y = 0; y < h; y++)
        for (int sg = 0; sg < segments; sg++) {
          const size_t o = size_t(y) * w;
          const int x0 = sg * kS2Segment, x1 = std::min(int(w), x0 + kS2Segment);
          s2_segment_sums(blurred.data() + (9 + c) * n + o, blurred.data() + (12 + c) * n + o,
                          blurred.data() + (3 * c) * n + o, blurred.data() + (3 * c + 1) * n + o,
                          blurred.data() + (3 * c + 2) * n + o, xyb.data() + c * n + o, xyb.data() + (3 + c) * n + o,
                          x0, x1, seg.data() + ((size_t(y) * 3 + c) * segments + sg) * kS2Terms);
        }
    for (uint32_t i = 0; i < 3 * h; i++)
      s2_row_sums(seg.data() + size_t(i) * segments * kS2Terms, segments, rp + size_t(i) * kS2Terms);
    rp += size_t(h) * 3 * kS2Terms;
  }
  return rows;
}

void expect_s2_emulation_equals_cpu(const PictureView& r, const PictureView& d, const cpu::Ssimulacra2Options& o,
                                    const std::string& what) {
  cpu::Ssimulacra2 s2;
  ASSERT_OK(s2.init(r.width, r.height, r.bit_depth, r.chroma, o));
  double want = 0;
  ASSERT_OK(s2.compute(r, d, &want));
  const std::vector<double> rows = ssimulacra2_emulated(r, d, s2.yuv());
  ASSERT_EQ(rows.size(), s2.row_sums().size()) << what;
  EXPECT_EQ(0, std::memcmp(rows.data(), s2.row_sums().data(), rows.size() * 8)) << what;
  EXPECT_EQ(cpu::ssimulacra2_from_rows(s2.scales(), rows.data()), want) << what;
}

TEST(HipMetricsImpl, Ssimulacra2RowSumsEqualCpu) {
  unsigned frames = 0;
  for (const char* name : {"sample", "d10", "d12", "d16"}) {
    const test::DerivedClip* c = test::find_derived_clip(name);
    ASSERT_NE(c, nullptr);
    test::PairClips pc;
    ASSERT_OK(test::open_derived_clip(*c, &pc));
    for (size_t f : {size_t(1), size_t(3)}) {
      expect_s2_emulation_equals_cpu(pc.ref.frame(f), pc.dist.frame(f), {}, std::string(name) + " frame " +
                                     std::to_string(f));
      frames++;
    }
  }
  // Odd sizes (the clamped last chroma sample) and 4:0:0: crops of the sample pair's first frame.
  test::PairClips s;
  ASSERT_OK(test::open_sample_pair(&s));
  for (const auto& [w, h, ch] : {std::tuple<uint32_t, uint32_t, Chroma>{155, 97, Chroma::k420},
                                 {9, 33, Chroma::k420}, {8, 8, Chroma::k400}, {301, 239, Chroma::k400}}) {
    PictureView r = s.ref.frame(4), d = s.dist.frame(4);
    for (PictureView* v : {&r, &d}) {
      v->width = w;
      v->height = h;
      v->chroma = ch;
    }
    expect_s2_emulation_equals_cpu(r, d, {cpu::YuvMatrix::bt2020, true}, std::to_string(w) + "x" + std::to_string(h));
    frames++;
  }
  std::printf("  ssimulacra2: %u pictures, every scale's row sums and the score: kernels' arithmetic == cpu\n",
              frames);
}

}  // namespace
}  // namespace vmafx
