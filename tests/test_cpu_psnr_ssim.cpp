// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU reference of psnr, float_ssim and float_ms_ssim against libvmaf's JSON scores of the generated pairs and of the
// public pairs present, plus
// layout equivalence (NV12 interleaved chroma, P010 shifted words), 4:0:0 and size limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "assert_ok.h"
#include "cpu/ms_ssim.h"
#include "cpu/plane.h"
#include "cpu/psnr.h"
#include "cpu/ssim.h"
#include "derived_clips.h"
#include "option_runs.h"
#include "support.h"
#include "vmafx/output.h"
#include "vmafx/scorer.h"

namespace vmafx {
namespace {

using test::Pair;

// libvmaf prints 6 decimals: an exact reproduction is within half a unit of the last digit.
constexpr double kPrinted = 5e-7 + 1e-12;
// The brief's limits; the checks below use the tighter kPrinted where our arithmetic is exact.
constexpr double kPsnrTol = 1e-4;
constexpr double kSsimTol = 1e-5;

// A pair's clips and its libvmaf JSON (default model).
struct LoadedPair : test::PairClips {
  test::Oracle oracle;
};

Status load_pair(const Pair& p, LoadedPair* out) {
  VMAFX_TRY(test::open_pair_clips(p, out));
  return test::load_pair_oracle(p, "vmaf_v0.6.1", out->ref.frames(), &out->oracle);
}

double metric(const test::Oracle& o, size_t frame, const char* name) {
  const auto& m = o.frames.at(frame);
  auto it = m.find(name);
  EXPECT_NE(it, m.end()) << "oracle lacks " << name;
  return it == m.end() ? NAN : it->second;
}

class OraclePairs : public ::testing::TestWithParam<Pair> {};

TEST_P(OraclePairs, PsnrMatchesLibvmafFrameByFrame) {
  const Pair p = GetParam();
  LoadedPair lp;
  ASSERT_OK(load_pair(p, &lp));
  double max_diff[3] = {0, 0, 0};
  const char* names[3] = {"psnr_y", "psnr_cb", "psnr_cr"};
  for (size_t i = 0; i < lp.ref.frames(); i++) {
    cpu::PsnrScores s;
    ASSERT_TRUE(cpu::psnr(lp.ref.frame(i), lp.dist.frame(i), &s).is_ok());
    ASSERT_EQ(s.planes, 3u);
    const double got[3] = {s.y, s.cb, s.cr};
    for (int c = 0; c < 3; c++) {
      const double want = metric(lp.oracle, i, names[c]);
      const double d = std::fabs(got[c] - want);
      max_diff[c] = std::max(max_diff[c], d);
      EXPECT_LE(d, kPsnrTol) << names[c] << " frame " << i;
      EXPECT_LE(d, kPrinted) << names[c] << " frame " << i << ": " << got[c] << " vs " << want;
    }
  }
  std::printf("[ %s_%s ] %zu frames, max |diff| psnr_y %.3g psnr_cb %.3g psnr_cr %.3g\n", p.prefix.c_str(),
              p.distorted.c_str(), lp.ref.frames(), max_diff[0], max_diff[1], max_diff[2]);
}

TEST_P(OraclePairs, SsimAndMsSsimMatchLibvmafFrameByFrame) {
  const Pair p = GetParam();
  LoadedPair lp;
  ASSERT_OK(load_pair(p, &lp));
  cpu::Ssim ssim;
  cpu::MsSsim ms;
  ASSERT_TRUE(ssim.init(p.width, p.height, p.bpc).is_ok());
  ASSERT_TRUE(ms.init(p.width, p.height, p.bpc).is_ok());
  double max_ssim = 0, max_ms = 0;
  for (size_t i = 0; i < lp.ref.frames(); i++) {
    const cpu::Plane r = cpu::luma_plane(lp.ref.frame(i));
    const cpu::Plane d = cpu::luma_plane(lp.dist.frame(i));
    double s = NAN, m = NAN;
    ASSERT_TRUE(ssim.compute(r, d, &s).is_ok());
    ASSERT_TRUE(ms.compute(r, d, &m).is_ok());
    const double ds = std::fabs(s - metric(lp.oracle, i, "float_ssim"));
    const double dm = std::fabs(m - metric(lp.oracle, i, "float_ms_ssim"));
    max_ssim = std::max(max_ssim, ds);
    max_ms = std::max(max_ms, dm);
    EXPECT_LE(ds, kSsimTol) << "float_ssim frame " << i;
    EXPECT_LE(dm, kSsimTol) << "float_ms_ssim frame " << i;
    EXPECT_LE(ds, kPrinted) << "float_ssim frame " << i;
    EXPECT_LE(dm, kPrinted) << "float_ms_ssim frame " << i;
  }
  std::printf("[ %s_%s ] %zu frames, ssim scale %d, max |diff| float_ssim %.3g float_ms_ssim %.3g\n",
              p.prefix.c_str(), p.distorted.c_str(), lp.ref.frames(), ssim.scale(), max_ssim, max_ms);
}

INSTANTIATE_TEST_SUITE_P(Pairs, OraclePairs, ::testing::ValuesIn(test::oracle_pairs()),
                         [](const ::testing::TestParamInfo<Pair>& i) { return i.param.test_name(); });

// Semi-planar copy of a planar 4:2:0 frame: Y, then CbCr interleaved; 16-bit words shifted left by `shift`
// (P010: 6). Rows get `pad` extra bytes so the strides differ from the packed layout.
struct SemiPlanar {
  std::vector<uint8_t> buf;
  PictureView view;
};

SemiPlanar to_semi_planar(const PictureView& src, PixelFormat fmt, unsigned shift, size_t pad) {
  SemiPlanar out;
  const unsigned bps = src.bytes_per_sample;
  const uint32_t w = src.width, h = src.height;
  const uint32_t cw = chroma_width_stored(src.chroma, w), ch = chroma_height_stored(src.chroma, h);
  const size_t y_stride = size_t(w) * bps + pad;
  const size_t uv_stride = size_t(2 * cw) * bps + pad;
  out.buf.assign(y_stride * h + uv_stride * ch, 0xA5);  // fill: padding must never be read as samples
  auto put = [&](uint8_t* dst, uint32_t v) {
    if (bps == 1) {
      *dst = uint8_t(v);
    } else {
      const uint16_t word = uint16_t(v << shift);
      std::memcpy(dst, &word, 2);
    }
  };
  auto get = [&](const PlaneView& pv, uint32_t x, uint32_t y) -> uint32_t {
    const uint8_t* row = pv.data + ptrdiff_t(y) * pv.stride;
    if (bps == 1) return row[x];
    uint16_t word;
    std::memcpy(&word, row + 2 * size_t(x), 2);
    return word;
  };
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++) put(&out.buf[y * y_stride + x * bps], get(src.planes[0], x, y));
  uint8_t* uv = out.buf.data() + y_stride * h;
  for (uint32_t y = 0; y < ch; y++)
    for (uint32_t x = 0; x < cw; x++) {
      put(&uv[y * uv_stride + (2 * x) * bps], get(src.planes[1], x, y));
      put(&uv[y * uv_stride + (2 * x + 1) * bps], get(src.planes[2], x, y));
    }
  FormatInfo f;
  f.format = fmt;
  f.chroma = Chroma::k420;
  f.bit_depth = src.bit_depth;
  PlaneLayout layout[2] = {{0, ptrdiff_t(y_stride)}, {y_stride * h, ptrdiff_t(uv_stride)}};
  Status s = make_picture_view(f, w, h, out.buf.data(), out.buf.size(), layout, 2, &out.view);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  return out;
}

void expect_same_scores(const PictureView& r0, const PictureView& d0, const PictureView& r1, const PictureView& d1,
                        unsigned bpc) {
  cpu::PsnrScores a, b;
  ASSERT_TRUE(cpu::psnr(r0, d0, &a).is_ok());
  ASSERT_TRUE(cpu::psnr(r1, d1, &b).is_ok());
  EXPECT_EQ(a.planes, 3u);
  EXPECT_EQ(b.planes, 3u);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.cb, b.cb);
  EXPECT_EQ(a.cr, b.cr);
  for (unsigned c = 0; c < 3; c++) {
    const cpu::Plane p0 = c ? cpu::chroma_plane(r0, c) : cpu::luma_plane(r0);
    const cpu::Plane q0 = c ? cpu::chroma_plane(d0, c) : cpu::luma_plane(d0);
    const cpu::Plane p1 = c ? cpu::chroma_plane(r1, c) : cpu::luma_plane(r1);
    const cpu::Plane q1 = c ? cpu::chroma_plane(d1, c) : cpu::luma_plane(d1);
    const uint64_t sse0 = cpu::psnr_plane_sse(p0, q0);
    EXPECT_EQ(sse0, cpu::psnr_plane_sse(p1, q1)) << "plane " << c;
    EXPECT_GT(sse0, 0u) << "plane " << c << ": a zero SSE would not exercise the layout";
    // Mixed layouts pair up too: planar ref against semi-planar dist.
    EXPECT_EQ(sse0, cpu::psnr_plane_sse(p0, q1)) << "plane " << c;
  }
  cpu::Ssim s0, s1;
  cpu::MsSsim m0, m1;
  ASSERT_TRUE(s0.init(r0.width, r0.height, bpc).is_ok());
  ASSERT_TRUE(s1.init(r0.width, r0.height, bpc).is_ok());
  ASSERT_TRUE(m0.init(r0.width, r0.height, bpc).is_ok());
  ASSERT_TRUE(m1.init(r0.width, r0.height, bpc).is_ok());
  double x0, x1, y0, y1;
  ASSERT_TRUE(s0.compute(cpu::luma_plane(r0), cpu::luma_plane(d0), &x0).is_ok());
  ASSERT_TRUE(s1.compute(cpu::luma_plane(r1), cpu::luma_plane(d1), &x1).is_ok());
  ASSERT_TRUE(m0.compute(cpu::luma_plane(r0), cpu::luma_plane(d0), &y0).is_ok());
  ASSERT_TRUE(m1.compute(cpu::luma_plane(r1), cpu::luma_plane(d1), &y1).is_ok());
  EXPECT_EQ(x0, x1);
  EXPECT_EQ(y0, y1);
  EXPECT_LT(x0, 1.0);  // distorted frames: a score of exactly 1 would hide a reader that ignores its input
  EXPECT_LT(y0, 1.0);
}

// 8-bit 4:2:0 pairs of even and odd sizes: g1, g5 (a and c too when ../shared is there).
std::vector<Pair> eight_bit_420_pairs() {
  std::vector<Pair> v = test::pairs_of_kind("g1_", "a_576x324_8b");
  for (const Pair& p : test::pairs_of_kind("g5_", "c_321x241_8b")) v.push_back(p);
  return v;
}

TEST(PsnrSsimLayouts, Nv12InterleavedChromaGivesIdenticalScores) {
  for (const Pair& pair : eight_bit_420_pairs()) {
    SCOPED_TRACE(pair.name());
    const Pair* p = &pair;
    LoadedPair lp;
    ASSERT_OK(load_pair(*p, &lp));
    for (size_t i : {size_t(0), lp.ref.frames() - 1}) {
      const PictureView r = lp.ref.frame(i), d = lp.dist.frame(i);
      SemiPlanar rs = to_semi_planar(r, PixelFormat::nv12, 0, 8);
      SemiPlanar ds = to_semi_planar(d, PixelFormat::nv12, 0, 3);
      ASSERT_EQ(rs.view.planes[1].step, 2);
      expect_same_scores(r, d, rs.view, ds.view, 8);
    }
  }
}

void expect_p010_like_planar(const Pair* p) {
  LoadedPair lp;
  ASSERT_OK(load_pair(*p, &lp));
  for (size_t i : {size_t(0), lp.ref.frames() - 1}) {
    const PictureView r = lp.ref.frame(i), d = lp.dist.frame(i);
    SemiPlanar rs = to_semi_planar(r, PixelFormat::p010, 6, 4);
    SemiPlanar ds = to_semi_planar(d, PixelFormat::p010, 6, 0);
    ASSERT_EQ(rs.view.shift, 6);
    ASSERT_EQ(rs.view.planes[2].step, 2);
    expect_same_scores(r, d, rs.view, ds.view, 10);
    // The oracle still holds for the shifted layout.
    cpu::PsnrScores s;
    ASSERT_TRUE(cpu::psnr(rs.view, ds.view, &s).is_ok());
    EXPECT_LE(std::fabs(s.y - metric(lp.oracle, i, "psnr_y")), kPrinted);
    EXPECT_LE(std::fabs(s.cr - metric(lp.oracle, i, "psnr_cr")), kPrinted);
  }
}

TEST(PsnrSsimLayouts, P010ShiftedWordsGiveIdenticalScores) {
  for (const Pair& p : test::pairs_of_kind("g2_", "b_576x324_10b")) {
    SCOPED_TRACE(p.name());
    expect_p010_like_planar(&p);
  }
}

// Odd 4:2:0 sizes (g5 321x243; c 321x241 when ../shared is there): chroma planes of floor(w / 2) x floor(h / 2), as
// libvmaf; the stored ceil-sized planes score differently (about 0.03 dB on c), the oracle agrees with the floor size.
void expect_floor_chroma(const Pair* p) {
  ASSERT_TRUE(p->width % 2 == 1 && p->height % 2 == 1);
  LoadedPair lp;
  ASSERT_OK(load_pair(*p, &lp));
  const uint32_t fw = p->width / 2, fh = p->height / 2;
  const PictureView r = lp.ref.frame(0), d = lp.dist.frame(0);
  const cpu::Plane cb_r = cpu::chroma_plane(r, 1), cb_d = cpu::chroma_plane(d, 1);
  EXPECT_EQ(cb_r.w, fw);
  EXPECT_EQ(cb_r.h, fh);
  cpu::PsnrScores s;
  ASSERT_TRUE(cpu::psnr(r, d, &s).is_ok());
  EXPECT_EQ(s.cb, cpu::psnr_from_sse(cpu::psnr_plane_sse(cb_r, cb_d), fw, fh, 8));
  cpu::Plane full_r = cb_r, full_d = cb_d;
  full_r.w = full_d.w = fw + 1;
  full_r.h = full_d.h = fh + 1;
  const double full = cpu::psnr_from_sse(cpu::psnr_plane_sse(full_r, full_d), fw + 1, fh + 1, 8);
  const double want = metric(lp.oracle, 0, "psnr_cb");
  EXPECT_LE(std::fabs(s.cb - want), kPrinted);
  EXPECT_GT(std::fabs(full - want), 10 * kPrinted) << "the oracle does not tell the two plane sizes apart";
}

TEST(PsnrSsimLayouts, OddSizeUsesFloorChromaPlanes) {
  for (const Pair& p : test::pairs_of_kind("g5_", "c_321x241_8b")) {
    SCOPED_TRACE(p.name());
    expect_floor_chroma(&p);
  }
}

void expect_gray_luma_only(const Pair* p) {
  LoadedPair lp;
  ASSERT_OK(load_pair(*p, &lp));
  PictureView r = lp.ref.frame(3), d = lp.dist.frame(3);
  r.chroma = d.chroma = Chroma::k400;
  r.planes[1] = r.planes[2] = d.planes[1] = d.planes[2] = PlaneView{};  // chroma must not be touched
  cpu::PsnrScores s;
  ASSERT_TRUE(cpu::psnr(r, d, &s).is_ok());
  EXPECT_EQ(s.planes, 1u);
  EXPECT_LE(std::fabs(s.y - metric(lp.oracle, 3, "psnr_y")), kPrinted);
  EXPECT_EQ(s.cb, 0.0);
  EXPECT_EQ(s.cr, 0.0);
}

TEST(PsnrSsimLayouts, Gray400GivesLumaOnly) {
  for (const Pair& p : test::pairs_of_kind("g1_", "a_576x324_8b")) {
    SCOPED_TRACE(p.name());
    expect_gray_luma_only(&p);
  }
}

TEST(PsnrFormula, CapsAndPeaks) {
  // Identical planes: mse 0 takes the 1e-16 floor, then the 6 * bpc + 12 dB cap.
  EXPECT_EQ(cpu::psnr_from_sse(0, 16, 16, 8), 60.0);
  EXPECT_EQ(cpu::psnr_from_sse(0, 16, 16, 10), 72.0);
  EXPECT_EQ(cpu::psnr_from_sse(0, 16, 16, 16), 108.0);
  // One unit of error per sample: 10 log10(peak^2).
  EXPECT_DOUBLE_EQ(cpu::psnr_from_sse(256, 16, 16, 8), 10.0 * std::log10(255.0 * 255.0));
  EXPECT_DOUBLE_EQ(cpu::psnr_from_sse(256, 16, 16, 10), 10.0 * std::log10(1023.0 * 1023.0));
  // An empty plane gives the cap, as libvmaf's NaN mse does.
  EXPECT_EQ(cpu::psnr_from_sse(0, 0, 0, 8), 60.0);
}

TEST(PsnrFormula, EightBitRowsWrapLikeLibvmaf) {
  // A row of 70000 samples differing by 255 exceeds 32 bits (70000 * 65025 = 4551750000); libvmaf's 8-bit path
  // keeps the row sum in 32 bits, so it wraps.
  const uint32_t w = 70000;
  std::vector<uint8_t> a(w, 255), b(w, 0);
  cpu::Plane pa, pb;
  pa.data = a.data();
  pb.data = b.data();
  pa.stride = pb.stride = w;
  pa.w = pb.w = w;
  pa.h = pb.h = 1;
  EXPECT_EQ(cpu::psnr_plane_sse(pa, pb), uint64_t(uint32_t(uint64_t(w) * 65025u)));
  // Deeper samples sum in 64 bits.
  std::vector<uint16_t> c(w, 1023), e(w, 0);
  pa.data = reinterpret_cast<const uint8_t*>(c.data());
  pb.data = reinterpret_cast<const uint8_t*>(e.data());
  pa.stride = pb.stride = 2 * w;
  pa.bytes = pb.bytes = 2;
  pa.bpc = pb.bpc = 10;
  EXPECT_EQ(cpu::psnr_plane_sse(pa, pb), uint64_t(w) * 1023u * 1023u);
}

TEST(PsnrSsimLimits, RejectsBadInput) {
  const Pair* p = test::find_generated_pair("g1_");
  ASSERT_NE(p, nullptr);
  const uint32_t w = p->width, h = p->height;
  LoadedPair lp;
  ASSERT_OK(load_pair(*p, &lp));
  const PictureView r = lp.ref.frame(0);
  PictureView d = lp.dist.frame(0);
  cpu::PsnrScores s;
  EXPECT_EQ(cpu::psnr(r, d, nullptr).code(), Errc::invalid_argument);
  d.width = w - 32;
  EXPECT_EQ(cpu::psnr(r, d, &s).code(), Errc::unsupported);
  d = lp.dist.frame(0);
  d.memory = MemoryKind::device;
  PictureView r2 = r;
  r2.memory = MemoryKind::device;
  EXPECT_EQ(cpu::psnr(r2, d, &s).code(), Errc::unsupported);
  EXPECT_EQ(cpu::psnr_check_depth(9).code(), Errc::unsupported);
  EXPECT_TRUE(cpu::psnr_check_depth(12).is_ok());

  cpu::Ssim ssim;
  cpu::MsSsim ms;
  double out;
  // Not initialised.
  EXPECT_FALSE(ssim.compute(cpu::luma_plane(r), cpu::luma_plane(r), &out).is_ok());
  EXPECT_FALSE(ms.compute(cpu::luma_plane(r), cpu::luma_plane(r), &out).is_ok());
  EXPECT_EQ(ssim.init(w, h, 9).code(), Errc::unsupported);
  EXPECT_EQ(ms.init(w, h, 11).code(), Errc::unsupported);
  ASSERT_TRUE(ssim.init(w, h, 8).is_ok());
  ASSERT_TRUE(ms.init(w, h, 8).is_ok());
  // Wrong size or depth for the initialised object.
  cpu::Plane small = cpu::luma_plane(r);
  small.w = w - 52;
  EXPECT_EQ(ssim.compute(small, cpu::luma_plane(r), &out).code(), Errc::invalid_argument);
  EXPECT_EQ(ms.compute(cpu::luma_plane(r), small, &out).code(), Errc::invalid_argument);
  cpu::Plane deep = cpu::luma_plane(r);
  deep.bpc = 10;
  deep.bytes = 2;
  EXPECT_EQ(ssim.compute(deep, deep, &out).code(), Errc::invalid_argument);
  EXPECT_EQ(ssim.compute(cpu::luma_plane(r), cpu::luma_plane(r), nullptr).code(), Errc::invalid_argument);
  // Identical pictures score exactly 1.
  ASSERT_TRUE(ssim.compute(cpu::luma_plane(r), cpu::luma_plane(r), &out).is_ok());
  EXPECT_EQ(out, 1.0);
  ASSERT_TRUE(ms.compute(cpu::luma_plane(r), cpu::luma_plane(r), &out).is_ok());
  EXPECT_EQ(out, 1.0);
}

// libvmaf's chroma planes are floor-sized: a picture one sample wide (4:2:0, 4:2:2) or, at 4:2:0, one high has no
// chroma sample, and libvmaf writes the cap for psnr_cb / psnr_cr whatever they hold. Refused unless the chroma is
// not scored.
TEST(PsnrSsimLimits, PicturesWithoutChromaSamplesAreRefused) {
  cpu::PsnrOptions o;
  cpu::PsnrPlan plan;
  for (const auto& [w, h, c] : {std::tuple<uint32_t, uint32_t, Chroma>{1, 1, Chroma::k420}, {1, 8, Chroma::k420},
                                {8, 1, Chroma::k420}, {1, 8, Chroma::k422}}) {
    const Status s = cpu::psnr_plan(w, h, 8, c, o, &plan);
    EXPECT_EQ(s.code(), Errc::unsupported) << w << "x" << h;
    EXPECT_NE(s.message().find("enable_chroma=false"), std::string::npos) << s.message();
  }
  for (const auto& [w, h, c] : {std::tuple<uint32_t, uint32_t, Chroma>{2, 2, Chroma::k420}, {8, 1, Chroma::k422},
                                {1, 1, Chroma::k444}, {1, 1, Chroma::k400}})
    EXPECT_TRUE(cpu::psnr_plan(w, h, 8, c, o, &plan).is_ok()) << w << "x" << h;
  o.enable_chroma = false;
  ASSERT_TRUE(cpu::psnr_plan(1, 1, 8, Chroma::k420, o, &plan).is_ok());
  EXPECT_EQ(plan.planes, 1u);
}

TEST(PsnrSsimLimits, CheckSizeRefusesTooSmallPictures) {
  // SSIM: the 11-tap window must fit once.
  EXPECT_TRUE(cpu::Ssim::check_size(11, 11).is_ok());
  EXPECT_EQ(cpu::Ssim::check_size(10, 100).code(), Errc::unsupported);
  EXPECT_EQ(cpu::Ssim::check_size(100, 10).code(), Errc::unsupported);
  cpu::Ssim ssim;
  EXPECT_EQ(ssim.init(10, 10, 8).code(), Errc::unsupported);
  // MS-SSIM: libvmaf needs floor(n / 16) >= 11, i.e. 176 per axis.
  EXPECT_TRUE(cpu::MsSsim::check_size(176, 176).is_ok());
  EXPECT_EQ(cpu::MsSsim::check_size(175, 1080).code(), Errc::unsupported);
  EXPECT_EQ(cpu::MsSsim::check_size(1920, 175).code(), Errc::unsupported);
  cpu::MsSsim ms;
  Status s = ms.init(160, 120, 8);
  EXPECT_EQ(s.code(), Errc::unsupported);
  EXPECT_NE(s.message().find("176"), std::string::npos) << s.message();
  // Too large for IQA's int indexing.
  EXPECT_EQ(cpu::Ssim::check_size(65536, 65536).code(), Errc::unsupported);
}

TEST(PsnrSsimLimits, SmallestSizesScore) {
  // At the limits every stage runs on a 1x1 valid region (SSIM) or a 11x11 last scale (MS-SSIM).
  for (uint32_t n : {11u, 176u}) {
    std::vector<uint8_t> a(size_t(n) * n), b(size_t(n) * n);
    for (size_t i = 0; i < a.size(); i++) {
      a[i] = uint8_t((i * 37) % 251);
      b[i] = uint8_t((i * 37 + (i % 7)) % 251);
    }
    cpu::Plane pa, pb;
    pa.data = a.data();
    pb.data = b.data();
    pa.stride = pb.stride = n;
    pa.w = pb.w = pa.h = pb.h = n;
    cpu::Ssim ssim;
    double out = NAN;
    ASSERT_TRUE(ssim.init(n, n, 8).is_ok());
    ASSERT_TRUE(ssim.compute(pa, pb, &out).is_ok());
    EXPECT_TRUE(out > 0.0 && out < 1.0) << out;
    if (n >= 176) {
      cpu::MsSsim ms;
      ASSERT_TRUE(ms.init(n, n, 8).is_ok());
      ASSERT_TRUE(ms.compute(pa, pb, &out).is_ok());
      EXPECT_TRUE(out > 0.0 && out < 1.0) << out;
    }
  }
}

TEST(SsimStages, ScaleFactorFollowsIqaRounding) {
  EXPECT_EQ(cpu::ssim_scale_factor(576, 324), 1);
  EXPECT_EQ(cpu::ssim_scale_factor(1920, 1080), 4);
  EXPECT_EQ(cpu::ssim_scale_factor(383, 1000), 1);
  EXPECT_EQ(cpu::ssim_scale_factor(384, 1000), 2);  // 1.5 rounds up
  EXPECT_EQ(cpu::ssim_scale_factor(3840, 2160), 8);
  EXPECT_EQ(cpu::decimated_size(321, 2), 161);
  EXPECT_EQ(cpu::decimated_size(1080, 4), 270);
  EXPECT_EQ(cpu::decimated_size(1081, 4), 271);
}


// ---- libvmaf's options of psnr, float_ssim and float_ms_ssim ------------------------------------------------------
// The scorer (CPU) on the clips derived from the sample pair (derived_clips.h) with every option set of
// option_runs.h, against libvmaf's full-precision JSON of the same runs (tests/data/psnr_ssim_options.json): every
// column libvmaf writes, in its order, every frame, and the aggregate metrics, equal to the last bit.

// VMAFX_DUMP_DERIVED_CLIPS=<dir> writes the derived clips there for libvmaf instead (and skips the comparison).
TEST(PsnrSsimOptions, EveryOptionMatchesLibvmafBitForBit) {
  if (const char* dump = std::getenv("VMAFX_DUMP_DERIVED_CLIPS"); dump && *dump) {
    for (const test::DerivedClip& c : test::derived_clips()) {
      ASSERT_OK(test::write_derived_clip(c, dump));
      std::printf("%s %u %u %s %u\n", c.name, c.width, c.height, c.chroma, c.bpc);
    }
    GTEST_SKIP() << "clips written to " << dump;
  }
  const std::string path = test::project_data_dir() + "/psnr_ssim_options.json";
  nlohmann::ordered_json oracle;
  ASSERT_OK(test::load_json(path, &oracle));
  unsigned runs = 0, values = 0;
  double worst = 0;
  std::string worst_at;
  for (const test::OptionRun& run : test::option_runs()) {
    for (const char* clip : run.clips) {
      const std::string key = std::string(clip) + "/" + run.name;
      SCOPED_TRACE(key + ": " + test::libvmaf_args(run));
      ASSERT_TRUE(oracle.contains(key)) << path << " lacks " << key;
      const test::DerivedClip* c = test::find_derived_clip(clip);
      ASSERT_NE(c, nullptr);
      test::PairClips clips;
      ASSERT_OK(test::open_derived_clip(*c, &clips));
      test::OptionRunResult got;
      ASSERT_OK(test::score_option_run(run, *c, clips, Backend::cpu, run.threads, &got));
      test::OptionRunComparison cmp = test::compare_with_libvmaf(got, oracle.at(key));
      EXPECT_TRUE(cmp.problems.empty()) << cmp.problems;
      values += cmp.values;
      if (cmp.max_diff > worst) {
        worst = cmp.max_diff;
        worst_at = key + " " + cmp.max_diff_at;
      }
      ++runs;
    }
  }
  std::printf("%u runs, %u values (per-frame scores and aggregates) compared with libvmaf's %%.17g JSON; max |diff| "
              "%.3g%s%s\n", runs, values, worst, worst_at.empty() ? "" : " at ", worst_at.c_str());
  EXPECT_GT(values, 0u);
}

// enable_apsnr sums every frame's SSE, as libvmaf's temporal psnr: frames --subsample leaves out and frames handed
// over unscored (a live element's skips) count; the per-frame columns of the scored frames do not change. Without
// enable_apsnr there is no aggregate.
TEST(PsnrSsimOptions, ApsnrSumsEveryFrameAlsoUnscoredOnes) {
  test::PairClips clips;
  ASSERT_OK(test::open_sample_pair(&clips));
  const VideoGeometry g{320, 240, 8, Chroma::k420};
  struct Run {
    const char* psnr;
    unsigned subsample;
    bool skip_odd;  // odd frames handed over with scored = false
  };
  auto score = [&](const Run& r, test::OptionRunResult* out) {
    ScorerConfig cfg = test::scorer_config("");
    cfg.features = {test::parse_feature_arg(r.psnr)};
    cfg.subsample = r.subsample;
    test::FrameLog log;
    std::unique_ptr<Scorer> scorer;
    ASSERT_OK(test::make_scorer(cfg, g, &log, &scorer));
    for (size_t i = 0; i < clips.ref.frames(); i++) {
      FramePair p = test::frame_pair(clips.ref.frame(i), clips.dist.frame(i), int64_t(i), i);
      p.scored = !(r.skip_odd && (i & 1));
      ASSERT_OK(scorer->submit(std::move(p)));
    }
    ASSERT_OK(scorer->flush());
    out->names = scorer->score_names();
    out->frames = log.frames();
    out->aggregates = scorer->collector().aggregates();
  };
  test::OptionRunResult all, sub3, skipped, plain;
  score({"psnr=enable_apsnr=true", 1, false}, &all);
  score({"psnr=enable_apsnr=true", 3, false}, &sub3);
  score({"psnr=enable_apsnr=true", 1, true}, &skipped);
  score({"psnr", 1, false}, &plain);
  ASSERT_EQ(all.aggregates.size(), 3u);
  EXPECT_EQ(all.aggregates, sub3.aggregates);
  EXPECT_EQ(all.aggregates, skipped.aggregates);
  EXPECT_TRUE(plain.aggregates.empty());
  ASSERT_EQ(all.frames.size(), 24u);
  ASSERT_EQ(sub3.frames.size(), 8u);
  ASSERT_EQ(skipped.frames.size(), 12u);
  for (const auto& f : sub3.frames) EXPECT_EQ(f.values, all.frames[f.index].values) << f.index;
  for (const auto& f : skipped.frames) EXPECT_EQ(f.values, all.frames[f.index].values) << f.index;
  for (const auto& f : plain.frames) EXPECT_EQ(f.values, all.frames[f.index].values) << f.index;
  // The totals over the 24 frames, by hand from the planes' SSE.
  cpu::PsnrPlan plan;
  cpu::PsnrOptions o;
  o.enable_apsnr = true;
  ASSERT_OK(cpu::psnr_plan(320, 240, 8, Chroma::k420, o, &plan));
  cpu::PsnrTotals totals(plan);
  for (size_t i = 0; i < clips.ref.frames(); i++) {
    uint64_t sse[3];
    ASSERT_OK(cpu::psnr_sse(clips.ref.frame(i), clips.dist.frame(i), plan, sse));
    totals.add(sse);
  }
  for (unsigned p = 0; p < 3; p++) EXPECT_EQ(all.aggregates[p].second, totals.apsnr(p)) << p;
}

// libvmaf's init of psnr's caps and peak: chroma sample counts from the luma size (floor halves), the peak of
// reduced_hbd_peak, the default cap; and the checks of the options.
TEST(PsnrSsimOptions, PsnrPlanFollowsLibvmafsInit) {
  cpu::PsnrPlan p;
  cpu::PsnrOptions o;
  o.min_sse = 0.5;
  ASSERT_OK(cpu::psnr_plan(321, 241, 8, Chroma::k420, o, &p));
  EXPECT_EQ(p.w[1], 160u);
  EXPECT_EQ(p.h[1], 120u);
  EXPECT_EQ(p.max_db[0], std::ceil(10. * std::log10(65025.0 / (0.5 / (321.0 * 241.0)))));
  EXPECT_EQ(p.max_db[1], std::ceil(10. * std::log10(65025.0 / (0.5 / (160.0 * 120.0)))));
  ASSERT_OK(cpu::psnr_plan(321, 241, 10, Chroma::k422, o, &p));
  EXPECT_EQ(p.max_db[2], std::ceil(10. * std::log10(1023.0 * 1023.0 / (0.5 / (160.0 * 241.0)))));
  o.reduced_hbd_peak = true;
  ASSERT_OK(cpu::psnr_plan(64, 64, 12, Chroma::k444, o, &p));
  EXPECT_EQ(p.peak, 255u << 4);
  EXPECT_EQ(p.max_db[1], std::ceil(10. * std::log10(4080.0 * 4080.0 / (0.5 / (64.0 * 64.0)))));
  o = cpu::PsnrOptions{};
  o.enable_chroma = false;
  ASSERT_OK(cpu::psnr_plan(64, 64, 16, Chroma::k420, o, &p));
  EXPECT_EQ(p.planes, 1u);
  EXPECT_EQ(p.max_db[0], 108.0);
  EXPECT_EQ(p.peak, 65535u);
  EXPECT_EQ(cpu::psnr_plan(64, 64, 9, Chroma::k420, o, &p).code(), Errc::unsupported);
  // 8-bit: libvmaf's fixed peak of 255 for the frames, also for the reduced peak.
  o.reduced_hbd_peak = true;
  ASSERT_OK(cpu::psnr_plan(16, 16, 8, Chroma::k420, o, &p));
  EXPECT_EQ(cpu::psnr_db(p, 0, 256), 10.0 * std::log10(65025.0));
  // A plane not scored: -infinity, as libvmaf's flush gives (its JSON writes null).
  o.enable_apsnr = true;
  ASSERT_OK(cpu::psnr_plan(16, 16, 8, Chroma::k420, o, &p));
  cpu::PsnrTotals t(p);
  const uint64_t zero[3] = {0, 0, 0};
  t.add(zero);
  EXPECT_EQ(t.apsnr(0), std::ceil(10 * std::log10(65025.0 * 256 * 2)));  // identical: the cap
  EXPECT_EQ(t.apsnr(1), -INFINITY);
}

// float_ssim's scale option: the decimated picture must hold the 11x11 window; the scorer names the limit.
TEST(PsnrSsimOptions, SsimScaleTooLargeIsRefused) {
  EXPECT_TRUE(cpu::Ssim::check_size(110, 110, 10).is_ok());
  EXPECT_EQ(cpu::Ssim::check_size(100, 100, 10).code(), Errc::unsupported);
  EXPECT_TRUE(cpu::Ssim::check_size(1920, 1080, 1).is_ok());
  EXPECT_EQ(cpu::ssim_scale_for(1920, 1080, 0), 4);
  EXPECT_EQ(cpu::ssim_scale_for(1920, 1080, 1), 1);
  ScorerConfig cfg = test::scorer_config("");
  cfg.features = {test::parse_feature_arg("float_ssim=scale=10")};
  test::FrameLog log;
  std::unique_ptr<Scorer> scorer;
  const Status s = test::make_scorer(cfg, {100, 100, 8, Chroma::k420}, &log, &scorer);
  EXPECT_EQ(s.code(), Errc::unsupported) << s.to_string();
  EXPECT_NE(s.message().find("scale 10"), std::string::npos) << s.message();
  cfg.features = {test::parse_feature_arg("float_ssim=scale=11")};
  EXPECT_EQ(test::make_scorer(cfg, {320, 240, 8, Chroma::k420}, &log, &scorer).code(), Errc::invalid_argument);
}

}  // namespace
}  // namespace vmafx
