// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU reference of integer VIF and integer motion against libvmaf: the JSON scores of every public pair (default and
// neg model), exact doubles of a scratch libvmaf (C path) for cut clips and synthetic 12/16-bit content, P010 words,
// padded strides, the stage functions, MotionPost's timing, and size limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/motion.h"
#include "cpu/plane.h"
#include "cpu/vif.h"
#include "support.h"

namespace vmafx {
namespace test {
// Names the pair in gtest's messages instead of dumping its bytes.
void PrintTo(const Pair& p, std::ostream* os) { *os << p.prefix << "_" << p.distorted; }
}  // namespace test

namespace {

using test::Pair;

// The brief's limit against the JSON files (printed with 6 decimals, so exact arithmetic is within 5e-7).
constexpr double kTol = 2e-6;
constexpr double kPrinted = 5e-7 + 1e-12;

double metric(const test::Oracle& o, size_t frame, const std::string& name) {
  const auto& m = o.frames.at(frame);
  auto it = m.find(name);
  EXPECT_NE(it, m.end()) << "oracle lacks " << name << " in frame " << frame;
  return it == m.end() ? NAN : it->second;
}

// Scores of a whole clip pair, computed the way a stream would: VIF per frame, the sad score from the previous and
// current reference, MotionPost for motion2/motion3.
struct ClipScores {
  std::vector<cpu::VifScores> vif;
  std::vector<double> sad;
  std::vector<cpu::MotionOut> motion;
};

::testing::AssertionResult score_clips(const test::PairClips& c, double egl, ClipScores* out) {
  const PictureView first = c.ref.frame(0);
  cpu::Vif vif;
  cpu::VifOptions opts;
  opts.enhn_gain_limit = egl;
  Status s = vif.init(first.width, first.height, first.bit_depth, opts);
  if (!s) return ::testing::AssertionFailure() << s.to_string();
  std::vector<int32_t> row(first.width);
  cpu::MotionPost post;
  for (size_t i = 0; i < c.ref.frames(); i++) {
    const cpu::Plane ref = cpu::luma_plane(c.ref.frame(i));
    cpu::VifScores v;
    s = vif.compute(ref, cpu::luma_plane(c.dist.frame(i)), &v);
    if (!s) return ::testing::AssertionFailure() << "frame " << i << ": " << s.to_string();
    out->vif.push_back(v);
    double sad = 0.0;
    if (i > 0) {
      const cpu::Plane prev = cpu::luma_plane(c.ref.frame(i - 1));
      s = cpu::motion_check_planes(prev, ref);
      if (!s) return ::testing::AssertionFailure() << "frame " << i << ": " << s.to_string();
      sad = cpu::motion_score_from_sad(cpu::motion_sad(prev, ref, row.data()), ref.w, ref.h);
    }
    out->sad.push_back(sad);
    post.push(i, sad, &out->motion);
  }
  post.finish(&out->motion);
  if (out->motion.size() != c.ref.frames())
    return ::testing::AssertionFailure() << "MotionPost gave " << out->motion.size() << " frames of "
                                         << c.ref.frames();
  for (size_t i = 0; i < out->motion.size(); i++)
    if (out->motion[i].index != i)
      return ::testing::AssertionFailure() << "MotionPost output " << i << " is frame " << out->motion[i].index;
  return ::testing::AssertionSuccess();
}

// ---- every generated pair, and every public pair present, against <dist>.vmaf_v0.6.1.json -------------------------

class OraclePairs : public ::testing::TestWithParam<Pair> {};

TEST_P(OraclePairs, VifAndMotionMatchLibvmafFrameByFrame) {
  const Pair p = GetParam();
  test::PairClips c;
  ASSERT_OK(test::open_pair_clips(p, &c));
  test::Oracle o;
  ASSERT_OK(test::load_pair_oracle(p, "vmaf_v0.6.1", c.ref.frames(), &o));
  ClipScores sc;
  ASSERT_TRUE(score_clips(c, cpu::kVifDefaultEnhnGainLimit, &sc));

  const std::string names[7] = {"integer_vif_scale0", "integer_vif_scale1", "integer_vif_scale2",
                                "integer_vif_scale3", "VMAF_integer_feature_motion_sad_score", "integer_motion2",
                                "integer_motion3"};
  double max_diff[7] = {};
  for (size_t i = 0; i < c.ref.frames(); i++) {
    const double got[7] = {sc.vif[i].scale[0], sc.vif[i].scale[1], sc.vif[i].scale[2], sc.vif[i].scale[3],
                           sc.sad[i],          sc.motion[i].motion2, sc.motion[i].motion3};
    for (int k = 0; k < 7; k++) {
      const double want = metric(o, i, names[k]);
      const double d = std::fabs(got[k] - want);
      EXPECT_LE(d, kTol) << names[k] << " frame " << i << ": got " << got[k] << ", libvmaf " << want;
      EXPECT_LE(d, kPrinted) << names[k] << " frame " << i << " is not libvmaf's value rounded to 6 decimals";
      if (d > max_diff[k] || std::isnan(d)) max_diff[k] = d;
    }
  }
  // libvmaf's fixed values of the first frame.
  EXPECT_EQ(sc.sad[0], 0.0);
  EXPECT_EQ(sc.motion[0].motion2, 0.0);
  std::printf("%s_%s (%u-bit, %zu frames) max |ours - libvmaf json|:", p.prefix.c_str(), p.distorted.c_str(), p.bpc,
              c.ref.frames());
  for (int k = 0; k < 7; k++) std::printf(" %s %.2g", names[k].c_str(), max_diff[k]);
  std::printf("\n");
}

INSTANTIATE_TEST_SUITE_P(Pairs, OraclePairs, ::testing::ValuesIn(test::oracle_pairs()),
                         [](const ::testing::TestParamInfo<Pair>& i) { return i.param.test_name(); });

TEST(CpuVifMotion, CoversOddSizeTenBitAndEveryChromaPair) {
  // The oracle suite above must include odd sizes, 10-bit and every subsampling without ../shared; guard against a
  // shrunken list.
  bool odd = false, ten = false, c422 = false, c444 = false;
  for (const Pair& p : test::generated_pairs()) {
    odd |= (p.width % 2 == 1 && p.height % 2 == 1);
    ten |= p.bpc == 10;
    c422 |= p.chroma == Chroma::k422;
    c444 |= p.chroma == Chroma::k444;
  }
  EXPECT_TRUE(odd);
  EXPECT_TRUE(ten);
  EXPECT_TRUE(c422);
  EXPECT_TRUE(c444);
}

// ---- vif_enhn_gain_limit = 1 against the neg model's _egl_1 features ---------------------------------------------

TEST(CpuVifMotion, GainLimitOneMatchesNegModelOracle) {
  size_t pairs = 0;
  for (const Pair& p : test::oracle_pairs()) {
    if (!test::has_oracle(p, "vmaf_v0.6.1neg")) continue;  // every generated pair, public pair a
    SCOPED_TRACE(p.prefix + "_" + p.distorted);
    ++pairs;
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(p, &c));
    test::Oracle neg;
    ASSERT_OK(test::load_pair_oracle(p, "vmaf_v0.6.1neg", c.ref.frames(), &neg));
    ClipScores egl1, dflt;
    ASSERT_TRUE(score_clips(c, 1.0, &egl1));
    ASSERT_TRUE(score_clips(c, cpu::kVifDefaultEnhnGainLimit, &dflt));
    double max_diff[4] = {};
    bool option_matters = false;
    for (size_t i = 0; i < c.ref.frames(); i++) {
      for (int k = 0; k < 4; k++) {
        const std::string name = "integer_vif_scale" + std::to_string(k) + "_egl_1";
        const double want = metric(neg, i, name);
        const double d = std::fabs(egl1.vif[i].scale[k] - want);
        EXPECT_LE(d, kPrinted) << name << " frame " << i;
        if (d > max_diff[k] || std::isnan(d)) max_diff[k] = d;
        option_matters |= egl1.vif[i].scale[k] != dflt.vif[i].scale[k];
      }
      // The neg model does not change motion.
      EXPECT_LE(std::fabs(egl1.sad[i] - metric(neg, i, "VMAF_integer_feature_motion_sad_score")), kPrinted);
      EXPECT_LE(std::fabs(egl1.motion[i].motion2 - metric(neg, i, "integer_motion2")), kPrinted);
      EXPECT_LE(std::fabs(egl1.motion[i].motion3 - metric(neg, i, "integer_motion3")), kPrinted);
    }
    EXPECT_TRUE(option_matters) << "gain limit 1 gave the default scores on every frame";
    std::printf("%s_%s egl 1: max |ours - libvmaf json| vif0 %.2g vif1 %.2g vif2 %.2g vif3 %.2g\n", p.prefix.c_str(),
                p.distorted.c_str(), max_diff[0], max_diff[1], max_diff[2], max_diff[3]);
  }
  EXPECT_GE(pairs, test::generated_pairs().size());
}

// ---- layouts -------------------------------------------------------------------------------------------------------

// A 10-bit pair's luma (g2; pair b too when ../shared is there) rewritten as P010 words (sample << 6) with a padded
// stride: the same scores to the bit.
void expect_p010_like_planar(const Pair& b) {
  ASSERT_EQ(b.bpc, 10u);
  test::PairClips c;
  ASSERT_OK(test::open_pair_clips(b, &c));
  const uint32_t w = b.width, h = b.height;
  const ptrdiff_t stride = ptrdiff_t(w) * 2 + 64;
  auto to_p010 = [&](const PictureView& v, std::vector<uint8_t>* buf) {
    buf->assign(size_t(stride) * h, 0xff);  // padding bytes are garbage on purpose
    const cpu::Plane src = cpu::luma_plane(v);
    for (uint32_t y = 0; y < h; y++) {
      uint16_t* row = reinterpret_cast<uint16_t*>(buf->data() + ptrdiff_t(y) * stride);
      for (uint32_t x = 0; x < w; x++) row[x] = uint16_t(src.at(x, y) << 6 | 0x15);  // low bits must be ignored
    }
    cpu::Plane p;
    p.data = buf->data();
    p.stride = stride;
    p.w = w;
    p.h = h;
    p.bytes = 2;
    p.shift = 6;
    p.bpc = 10;
    return p;
  };
  cpu::Vif planar, p010;
  ASSERT_TRUE(planar.init(w, h, 10, {}).is_ok());
  ASSERT_TRUE(p010.init(w, h, 10, {}).is_ok());
  std::vector<int32_t> row(w);
  std::vector<uint8_t> prev_buf, ref_buf, dist_buf;
  const size_t frames = std::min<size_t>(c.ref.frames(), 6);
  for (size_t i = 0; i < frames; i++) {
    const cpu::Plane ref_p = to_p010(c.ref.frame(i), &ref_buf);
    const cpu::Plane dist_p = to_p010(c.dist.frame(i), &dist_buf);
    cpu::VifScores a, s;
    ASSERT_TRUE(planar.compute(cpu::luma_plane(c.ref.frame(i)), cpu::luma_plane(c.dist.frame(i)), &a).is_ok());
    ASSERT_TRUE(p010.compute(ref_p, dist_p, &s).is_ok());
    for (int k = 0; k < 4; k++) EXPECT_EQ(a.scale[k], s.scale[k]) << "scale " << k << " frame " << i;
    if (i > 0) {
      const cpu::Plane prev_p = to_p010(c.ref.frame(i - 1), &prev_buf);
      const uint64_t sad_planar =
          cpu::motion_sad(cpu::luma_plane(c.ref.frame(i - 1)), cpu::luma_plane(c.ref.frame(i)), row.data());
      EXPECT_GT(sad_planar, 0u);
      EXPECT_EQ(cpu::motion_sad(prev_p, ref_p, row.data()), sad_planar) << "frame " << i;
      // Mixed layouts (previous planar, current P010) are read sample by sample too.
      EXPECT_EQ(cpu::motion_sad(cpu::luma_plane(c.ref.frame(i - 1)), ref_p, row.data()), sad_planar);
    }
  }
}

TEST(CpuVifMotion, P010ShiftedInputMatchesPlanar) {
  for (const Pair& p : test::pairs_of_kind("g2_", "b_")) {
    SCOPED_TRACE(p.name());
    expect_p010_like_planar(p);
  }
}

// 8-bit samples of an odd-sized pair (g5; c too when ../shared is there) at a padded stride and as 16-bit words give
// the same scores as the packed bytes.
void expect_layouts_like_packed(const Pair& c_pair) {
  ASSERT_EQ(c_pair.bpc, 8u);
  test::PairClips c;
  ASSERT_OK(test::open_pair_clips(c_pair, &c));
  const uint32_t w = c_pair.width, h = c_pair.height;
  const cpu::Plane ref = cpu::luma_plane(c.ref.frame(5)), dist = cpu::luma_plane(c.dist.frame(5));
  std::vector<uint8_t> rpad(size_t(w + 13) * h, 7), dpad(size_t(w + 13) * h, 7);
  std::vector<uint16_t> rword(size_t(w) * h), dword(size_t(w) * h);
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++) {
      rpad[size_t(y) * (w + 13) + x] = uint8_t(ref.at(x, y));
      dpad[size_t(y) * (w + 13) + x] = uint8_t(dist.at(x, y));
      rword[size_t(y) * w + x] = uint16_t(ref.at(x, y));
      dword[size_t(y) * w + x] = uint16_t(dist.at(x, y));
    }
  cpu::Plane rp = ref, dp = dist, rw = ref, dw = dist;
  rp.data = rpad.data();
  dp.data = dpad.data();
  rp.stride = dp.stride = w + 13;
  rw.data = reinterpret_cast<const uint8_t*>(rword.data());
  dw.data = reinterpret_cast<const uint8_t*>(dword.data());
  rw.stride = dw.stride = ptrdiff_t(w) * 2;
  rw.bytes = dw.bytes = 2;
  cpu::Vif vif;
  ASSERT_TRUE(vif.init(w, h, 8, {}).is_ok());
  cpu::VifScores a, b, d;
  ASSERT_TRUE(vif.compute(ref, dist, &a).is_ok());
  ASSERT_TRUE(vif.compute(rp, dp, &b).is_ok());
  ASSERT_TRUE(vif.compute(rw, dw, &d).is_ok());
  for (int k = 0; k < 4; k++) {
    EXPECT_EQ(a.scale[k], b.scale[k]);
    EXPECT_EQ(a.scale[k], d.scale[k]);
  }
  std::vector<int32_t> row(w);
  const uint64_t sad = cpu::motion_sad(ref, dist, row.data());
  EXPECT_GT(sad, 0u);
  EXPECT_EQ(cpu::motion_sad(rp, dp, row.data()), sad);
  EXPECT_EQ(cpu::motion_sad(rw, dw, row.data()), sad);
}

TEST(CpuVifMotion, StrideAndWordLayoutsMatchPackedBytes) {
  for (const Pair& p : test::pairs_of_kind("g5_", "c_")) {
    SCOPED_TRACE(p.name());
    expect_layouts_like_packed(p);
  }
}

// ---- stages --------------------------------------------------------------------------------------------------------

// The whole-plane stage functions (what a GPU port is checked against) give Vif::compute's sums and scores.
TEST(CpuVifMotion, StageFunctionsReproduceCompute) {
  std::vector<Pair> pairs = test::pairs_of_kind("g2_", "b_");  // 10-bit
  for (const Pair& p : test::pairs_of_kind("g5_", "c_")) pairs.push_back(p);  // odd-sized
  for (const Pair& p : pairs) {
    SCOPED_TRACE(p.prefix);
    ASSERT_TRUE(p.bpc == 10 || p.width % 2 == 1);
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(p, &c));
    const cpu::Plane ref = cpu::luma_plane(c.ref.frame(1)), dist = cpu::luma_plane(c.dist.frame(1));
    cpu::Vif vif;
    ASSERT_TRUE(vif.init(p.width, p.height, p.bpc, {}).is_ok());
    cpu::VifScores want;
    cpu::VifAccum want_acc[cpu::kVifScales];
    ASSERT_TRUE(vif.compute(ref, dist, &want, want_acc).is_ok());

    uint32_t w = p.width, h = p.height;
    std::vector<uint16_t> r(size_t(w) * h), d(size_t(w) * h);
    cpu::vif_load_plane(ref, r.data(), w);
    cpu::vif_load_plane(dist, d.data(), w);
    for (unsigned s = 0; s < cpu::kVifScales; s++) {
      std::vector<uint32_t> planes(5 * size_t(w) * h), scratch(5 * size_t(w));
      uint32_t* b = planes.data();
      const size_t n = size_t(w) * h;
      const cpu::VifFilteredPlanes fp{b, b + n, b + 2 * n, b + 3 * n, b + 4 * n, ptrdiff_t(w)};
      cpu::vif_filter_plane(s, p.bpc, r.data(), d.data(), w, w, h, fp, scratch.data());
      // Sums of two halves of the rows equal the sum of the whole plane (order-free integer sums).
      const cpu::VifAccum acc = cpu::vif_accumulate_plane(fp, w, h, cpu::kVifDefaultEnhnGainLimit);
      const uint32_t top = h / 2;
      cpu::VifAccum split = cpu::vif_accumulate_plane(fp, w, top, cpu::kVifDefaultEnhnGainLimit);
      const cpu::VifFilteredPlanes bottom{b + top * w, b + n + top * w, b + 2 * n + top * w, b + 3 * n + top * w,
                                          b + 4 * n + top * w, ptrdiff_t(w)};
      split += cpu::vif_accumulate_plane(bottom, w, h - top, cpu::kVifDefaultEnhnGainLimit);
      EXPECT_TRUE(acc == want_acc[s]) << "scale " << s;
      EXPECT_TRUE(split == acc) << "scale " << s;
      EXPECT_GT(acc.den_log + acc.den_non_log, 0);
      float num, den;
      cpu::vif_num_den(acc, &num, &den);
      EXPECT_EQ(cpu::vif_scale_score(num, den), want.scale[s]) << "scale " << s;
      if (s + 1 < cpu::kVifScales) {
        std::vector<uint16_t> r2(size_t(w / 2) * (h / 2)), d2(r2.size());
        cpu::vif_decimate(s, p.bpc, r.data(), d.data(), w, w, h, r2.data(), d2.data(), w / 2, scratch.data());
        r.swap(r2);
        d.swap(d2);
        w /= 2;
        h /= 2;
      }
    }
  }
}

// libvmaf's log2 table: our build of it equals the float formula libvmaf uses and libvmaf's own table (FNV-1a of
// its 65536 entries, little-endian, dumped from the formula compiled in C against glibc 2.36).
TEST(CpuVifMotion, Log2TableIsLibvmafs) {
  const uint16_t* t = cpu::vif_log2_table();
  uint64_t hash = 1469598103934665603ull;
  int diffs = 0;
  for (uint32_t i = 0; i < 65536; i++) {
    hash = (hash ^ (t[i] & 0xff)) * 1099511628211ull;
    hash = (hash ^ (t[i] >> 8)) * 1099511628211ull;
    if (i >= 32767) diffs += t[i] != uint16_t(std::round(std::log2(float(i)) * 2048));
  }
  EXPECT_EQ(diffs, 0);
  EXPECT_EQ(hash, 0xeb81490ab2d29a03ull);
  EXPECT_EQ(t[32768], 30720);
  EXPECT_EQ(t[65535], 32768);
}

// ---- exact doubles of the scratch libvmaf (C path, enable_asm=false) ---------------------------------------------

// Short streams cut from the start of a pair: libvmaf's flush with 1, 2 and 3 frames, and MotionPost's timing: each
// frame as soon as the next sad score exists. The generated pairs g1 (1, 2, 3 frames) and g2 (2) against libvmaf's
// --frame_cnt JSON at its printed precision; pairs a and b of ../shared, when there, against the %.17g values its
// vmaf_feature_score_at_index returned (equal doubles).
struct ShortStream {
  Pair pair;
  size_t frames;
  double sad[3];
  double motion2[3];
  double motion3[3];
  double tol;  // 0: equal doubles
};

std::vector<ShortStream> short_streams() {
  std::vector<ShortStream> v;
  for (const auto& [prefix, n] : {std::pair<const char*, size_t>{"g1_", 1}, {"g1_", 2}, {"g1_", 3}, {"g2_", 2}}) {
    const Pair& p = *test::find_generated_pair(prefix);
    test::Oracle o;
    const Status s = test::load_pair_oracle(p, "vmaf_v0.6.1.frames" + std::to_string(n), n, &o);
    EXPECT_TRUE(s.is_ok()) << s.to_string();
    if (!s) continue;
    ShortStream k{p, n, {}, {}, {}, kPrinted};
    for (size_t i = 0; i < n; i++) {
      k.sad[i] = metric(o, i, "VMAF_integer_feature_motion_sad_score");
      k.motion2[i] = metric(o, i, "integer_motion2");
      k.motion3[i] = metric(o, i, "integer_motion3");
    }
    v.push_back(k);
  }
  const double a1 = 3.7816322232470099, a2 = 4.0901064774627054, b1 = 2.6279533396696029;
  const std::vector<Pair> pub = test::public_pairs();
  const ShortStream exact[] = {
      {pub[0], 1, {0}, {0}, {0}, 0},
      {pub[0], 2, {0, a1}, {0, a1}, {a1, a1}, 0},
      {pub[0], 3, {0, a1, a2}, {0, a1, a2}, {a1, a1, a2}, 0},
      {pub[2], 2, {0, b1}, {0, b1}, {b1, b1}, 0},
  };
  for (const ShortStream& k : exact)
    if (test::file_exists(k.pair.ref_path())) v.push_back(k);
  return v;
}

TEST(CpuVifMotion, MotionPostMatchesLibvmafOnShortStreams) {
  const std::vector<ShortStream> cases = short_streams();
  ASSERT_GE(cases.size(), 4u);
  for (const ShortStream& k : cases) {
    const Pair& p = k.pair;
    SCOPED_TRACE(p.prefix + " cut to " + std::to_string(k.frames) + " frames");
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(p, &c));
    std::vector<int32_t> row(p.width);
    cpu::MotionPost post;
    std::vector<cpu::MotionOut> out;
    for (size_t i = 0; i < k.frames; i++) {
      double sad = 0.0;
      if (i > 0)
        sad = cpu::motion_score_from_sad(
            cpu::motion_sad(cpu::luma_plane(c.ref.frame(i - 1)), cpu::luma_plane(c.ref.frame(i)), row.data()),
            p.width, p.height);
      EXPECT_NEAR(sad, k.sad[i], k.tol) << "sad frame " << i;
      const size_t before = out.size();
      post.push(100 + i, sad, &out);  // indices need not start at 0
      // Frame i-1 becomes final with frame i, nothing else.
      ASSERT_EQ(out.size(), before + (i > 0 ? 1 : 0)) << "after frame " << i;
    }
    post.finish(&out);
    ASSERT_EQ(out.size(), k.frames);
    for (size_t i = 0; i < k.frames; i++) {
      EXPECT_EQ(out[i].index, 100 + i);
      EXPECT_NEAR(out[i].motion2, k.motion2[i], k.tol) << "motion2 frame " << i;
      EXPECT_NEAR(out[i].motion3, k.motion3[i], k.tol) << "motion3 frame " << i;
    }
    // finish() resets: a second stream starts over.
    out.clear();
    post.push(7, 5.0, &out);
    EXPECT_TRUE(out.empty());
    post.finish(&out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].index, 7u);
    EXPECT_EQ(out[0].motion2, 0.0);
    EXPECT_EQ(out[0].motion3, 0.0);
  }
  // An empty stream emits nothing; reset() drops a pending frame.
  cpu::MotionPost post;
  std::vector<cpu::MotionOut> out;
  post.finish(&out);
  post.push(0, 0.0, &out);
  post.push(1, 2.0, &out);
  post.reset();
  post.finish(&out);
  ASSERT_EQ(out.size(), 1u);  // frame 0 of the dropped stream only
  EXPECT_EQ(out[0].motion3, 2.0);
}

// Every motion option against tests/data's full-precision oracle of the sample pair (libvmaf's JSON writer printing
// %.17g): the sad score (from the frame `motion_frame_distance` back), motion2 and motion3, equal doubles, and each
// frame out of MotionPost no later than libvmaf's rule makes it final.
struct MotionOptionCase {
  const char* suffix;
  cpu::MotionOptions opt;
};
std::vector<MotionOptionCase> motion_option_cases() {
  std::vector<MotionOptionCase> v;
  cpu::MotionOptions o;
  o.five_frame_window = true;
  o.moving_average = true;
  o.max_val = 18;
  v.push_back({"_mffw_mmxv_18_mma", o});  // the VMAF v1 HFR models' options
  o = {};
  o.blend_factor = 0.5;
  o.blend_offset = 1;
  o.fps_weight = 2.5;
  v.push_back({"_mbf_0.5_mbo_1_mfw_2.5", o});
  o = {};
  o.force_zero = true;
  v.push_back({"_force_0", o});
  o = {};
  o.moving_average = true;
  o.max_val = 1.5;
  v.push_back({"_mmxv_1.5_mma", o});
  o = {};
  o.five_frame_window = true;
  v.push_back({"_mffw", o});
  return v;
}

// Sad scores of the first `frames` reference frames of a clip under `opt`, as a stream computes them.
std::vector<double> sad_scores(const test::YuvClip& ref, size_t frames, const cpu::MotionOptions& opt) {
  const unsigned d = cpu::motion_frame_distance(opt);
  std::vector<int32_t> row(ref.width());
  std::vector<double> out;
  for (size_t i = 0; i < frames; i++) {
    double sad = 0.0;
    if (i >= d && !opt.force_zero)
      sad = cpu::motion_score_from_sad(
          cpu::motion_sad(cpu::luma_plane(ref.frame(i - d)), cpu::luma_plane(ref.frame(i)), row.data()),
          ref.width(), ref.height(), opt);
    out.push_back(sad);
  }
  return out;
}

TEST(CpuVifMotion, EveryMotionOptionMatchesScratchLibvmafExactly) {
  test::PairClips c;
  ASSERT_OK(test::open_sample_pair(&c));
  test::Oracle o;
  ASSERT_OK(test::load_oracle(test::project_data_dir() + "/sample_320x240_dist.adm_motion_options.json", &o));
  const size_t n = o.frames.size();
  ASSERT_EQ(n, 10u);
  for (const MotionOptionCase& k : motion_option_cases()) {
    SCOPED_TRACE(k.suffix);
    ASSERT_OK(cpu::motion_check_options(k.opt));
    const std::vector<double> sad = sad_scores(c.ref, n, k.opt);
    cpu::MotionPost post(k.opt);
    std::vector<cpu::MotionOut> out;
    const unsigned d = cpu::motion_frame_distance(k.opt);
    for (size_t i = 0; i < n; i++) {
      EXPECT_EQ(sad[i], metric(o, i, std::string("VMAF_integer_feature_motion_sad_score") + k.suffix)) << i;
      post.push(i, sad[i], &out);
      // Frames before d are final with frame d, frame j >= d with frame j + 1.
      const size_t want = i < d ? 0 : i == d ? d : i;
      EXPECT_EQ(out.size(), want) << "after frame " << i;
    }
    post.finish(&out);
    ASSERT_EQ(out.size(), n);
    for (size_t i = 0; i < n; i++) {
      EXPECT_EQ(out[i].index, i);
      EXPECT_EQ(out[i].motion2, metric(o, i, std::string("integer_motion2") + k.suffix)) << "frame " << i;
      EXPECT_EQ(out[i].motion3, metric(o, i, std::string("integer_motion3") + k.suffix)) << "frame " << i;
    }
  }
}

// The five-frame window with the moving average and a blend on streams of 1 to 4 frames of the sample pair (the
// %.17g values of the scratch libvmaf with --frame_cnt 1..4 and motion_five_frame_window, motion_moving_average,
// motion_blend_factor=0.5, motion_blend_offset=3).
TEST(CpuVifMotion, FiveFrameWindowOnShortStreamsMatchesLibvmaf) {
  test::PairClips c;
  ASSERT_OK(test::open_sample_pair(&c));
  cpu::MotionOptions opt;
  opt.five_frame_window = true;
  opt.moving_average = true;
  opt.blend_factor = 0.5;
  opt.blend_offset = 3;
  const double s2 = 8.736151733398437, s3 = 8.52012186686198;
  const double stamp = 5.868075866699218;
  struct Case {
    size_t frames;
    double motion2[4], motion3[4];
  };
  const Case cases[] = {
      {1, {0}, {0}},
      {2, {0, 0}, {0, 0}},
      {3, {0, 0, s2}, {stamp, stamp, stamp}},
      {4, {0, 0, s3, s3}, {stamp, stamp, 5.8140684000651035, 5.76006093343099}},
  };
  const std::vector<double> sad = sad_scores(c.ref, 4, opt);
  EXPECT_EQ(sad[0], 0.0);
  EXPECT_EQ(sad[1], 0.0);
  EXPECT_EQ(sad[2], s2);
  EXPECT_EQ(sad[3], s3);
  for (const Case& k : cases) {
    SCOPED_TRACE(std::to_string(k.frames) + " frames");
    cpu::MotionPost post(opt);
    std::vector<cpu::MotionOut> out;
    for (size_t i = 0; i < k.frames; i++) post.push(50 + i, sad[i], &out);
    post.finish(&out);
    ASSERT_EQ(out.size(), k.frames);
    for (size_t i = 0; i < k.frames; i++) {
      EXPECT_EQ(out[i].index, 50 + i);
      EXPECT_EQ(out[i].motion2, k.motion2[i]) << "motion2 frame " << i;
      EXPECT_EQ(out[i].motion3, k.motion3[i]) << "motion3 frame " << i;
    }
  }
}

// The v1 models' motion (motion_max_val 18) against the v1 oracle files, at their printed precision.
TEST(CpuVifMotion, V1ModelMotionMatchesV1OracleJson) {
  const char* const models[] = {"vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_5d0h", "vmaf_v1.0.16_1d5h_2160",
                                "vmaf_v1.0.16_3d0h_2160"};
  cpu::MotionOptions opt;
  opt.max_val = 18;
  size_t checked = 0;
  for (const char* model : models) {
    for (const Pair& p : test::oracle_pairs()) {
      if (!test::has_oracle(p, model)) continue;
      const std::string name = p.name();
      SCOPED_TRACE(name + " " + model);
      test::PairClips c;
      ASSERT_OK(test::open_pair_clips(p, &c));
      test::Oracle o;
      ASSERT_OK(test::load_pair_oracle(p, model, c.ref.frames(), &o));
      const std::vector<double> sad = sad_scores(c.ref, c.ref.frames(), opt);
      cpu::MotionPost post(opt);
      std::vector<cpu::MotionOut> out;
      for (size_t i = 0; i < sad.size(); i++) post.push(i, sad[i], &out);
      post.finish(&out);
      ASSERT_EQ(out.size(), sad.size());
      double worst = 0;
      for (size_t i = 0; i < sad.size(); i++) {
        const double d[3] = {std::fabs(sad[i] - metric(o, i, "VMAF_integer_feature_motion_sad_score_mmxv_18")),
                             std::fabs(out[i].motion2 - metric(o, i, "integer_motion2_mmxv_18")),
                             std::fabs(out[i].motion3 - metric(o, i, "integer_motion3_mmxv_18"))};
        for (double x : d) {
          EXPECT_LE(x, kPrinted) << "frame " << i;
          worst = std::max(worst, x);
        }
      }
      std::printf("  %s %s: motion (mmxv 18) max |ours - libvmaf json| %.2g\n", name.c_str(), model, worst);
      checked++;
    }
  }
  EXPECT_GE(checked, test::generated_pairs().size() + 6) << "the generated pairs' v1 oracle files";
}

// The small pictures ADM's tests use (17x17 .. 300x18 crops of the sample pair, tests/data/small_sizes.json): VIF and
// motion there are libvmaf's, exactly (they read nothing outside their planes at these sizes; below 16 libvmaf's VIF
// reads outside the picture, below 3 its motion does, and both are refused).
TEST(CpuVifMotion, SmallPicturesMatchLibvmaf) {
  test::PairClips c;
  ASSERT_OK(test::open_sample_pair(&c));
  test::Oracle o;
  ASSERT_OK(test::load_oracle(test::project_data_dir() + "/small_sizes.json", &o));
  const std::pair<uint32_t, uint32_t> sizes[] = {{17, 17}, {24, 24}, {32, 32}, {17, 40}, {40, 17},
                                                 {20, 200}, {200, 20}, {33, 20}, {31, 33}, {300, 18}};
  size_t first = 0;
  for (const auto& [w, h] : sizes) {
    const std::string tag = std::to_string(w) + "x" + std::to_string(h);
    SCOPED_TRACE(tag);
    cpu::Vif vif;
    ASSERT_OK(vif.init(w, h, 8, {}));
    std::vector<int32_t> row(w);
    std::vector<double> sad;
    auto crop = [&](const PictureView& v) {
      cpu::Plane p = cpu::luma_plane(v);
      p.data += 5 * p.stride + 7;
      p.w = w;
      p.h = h;
      return p;
    };
    cpu::MotionPost post;
    std::vector<cpu::MotionOut> out;
    for (size_t f = 0; f < 3; f++) {
      cpu::VifScores s;
      ASSERT_OK(vif.compute(crop(c.ref.frame(f)), crop(c.dist.frame(f)), &s));
      for (int k = 0; k < 4; k++)
        EXPECT_EQ(s.scale[k], metric(o, first + f, tag + "/integer_vif_scale" + std::to_string(k))) << f;
      const double m = f == 0 ? 0.0
                              : cpu::motion_score_from_sad(
                                    cpu::motion_sad(crop(c.ref.frame(f - 1)), crop(c.ref.frame(f)), row.data()), w, h);
      EXPECT_EQ(m, metric(o, first + f, tag + "/VMAF_integer_feature_motion_sad_score")) << f;
      post.push(f, m, &out);
    }
    post.finish(&out);
    ASSERT_EQ(out.size(), 3u);
    for (size_t f = 0; f < 3; f++) {
      EXPECT_EQ(out[f].motion2, metric(o, first + f, tag + "/integer_motion2")) << f;
      EXPECT_EQ(out[f].motion3, metric(o, first + f, tag + "/integer_motion3")) << f;
    }
    first += 3;
  }
}

TEST(CpuVifMotion, MotionOptionsOutsideLibvmafsRangesAreRefused) {
  EXPECT_TRUE(cpu::motion_check_options({}).is_ok());
  cpu::MotionOptions o;
  o.max_val = 10001;
  EXPECT_EQ(cpu::motion_check_options(o).code(), Errc::invalid_argument);
  o = {};
  o.blend_factor = 1.5;
  EXPECT_EQ(cpu::motion_check_options(o).code(), Errc::invalid_argument);
  o = {};
  o.blend_offset = -1;
  EXPECT_EQ(cpu::motion_check_options(o).code(), Errc::invalid_argument);
  o = {};
  o.fps_weight = 5.5;
  const Status st = cpu::motion_check_options(o);
  EXPECT_EQ(st.code(), Errc::invalid_argument);
  EXPECT_NE(st.message().find("motion_fps_weight"), std::string::npos) << st.message();
  o.fps_weight = NAN;
  EXPECT_EQ(cpu::motion_check_options(o).code(), Errc::invalid_argument);
}

// Motion above the blend offset and the clip: blend factor 1 keeps the score, the maximum clips it.
TEST(CpuVifMotion, MotionBlendAndClipFollowLibvmaf) {
  EXPECT_EQ(cpu::motion_blend(55.5, 1.0, 40.0), 55.5);
  EXPECT_EQ(cpu::motion_blend(55.5, 0.5, 40.0), 55.5 * 0.5 + 0.5 * 40.0);
  EXPECT_EQ(cpu::motion_score_from_sad(uint64_t(256) * 100 * 100 * 20000, 100, 100), cpu::kMotionMaxVal);
  EXPECT_EQ(cpu::motion_score_from_sad(uint64_t(256) * 100 * 100 * 3, 100, 100), 3.0);
  cpu::MotionPost post;
  std::vector<cpu::MotionOut> out;
  post.push(0, 0.0, &out);
  post.push(1, 12000.0, &out);
  post.push(2, 11000.0, &out);
  post.finish(&out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].motion3, cpu::kMotionMaxVal);
  EXPECT_EQ(out[1].motion2, 11000.0);
  EXPECT_EQ(out[1].motion3, cpu::kMotionMaxVal);
}

// Deterministic integer content for 12- and 16-bit (libvmaf's tests have no such clips): a moving triangle-wave
// texture with hashed noise and sub-10-bit detail; the distorted picture is a 3x3 box blur, with 1.5x contrast on odd
// frames (VIF gain above 1), plus noise.
uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

void synthetic_frame(uint32_t w, uint32_t h, unsigned bpc, uint32_t i, std::vector<uint16_t>* ref,
                     std::vector<uint16_t>* dist) {
  const int32_t maxv = (1 << bpc) - 1, scale = (1 << bpc) / 1024, mid = 1 << (bpc - 1);
  ref->assign(size_t(w) * h, 0);
  dist->assign(size_t(w) * h, 0);
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++) {
      const int32_t t = int32_t(((x + 2 * i) * 5 + (y + i) * 3) % 256);
      const int32_t tri = t < 128 ? t : 255 - t;
      const int32_t noise = int32_t(mix(x + 131 * y + 7919 * i) % 64);
      const int32_t fine = int32_t(mix(x * 3 + y * 7001 + 31 * i) % uint32_t(scale));
      (*ref)[size_t(y) * w + x] = uint16_t((tri * 6 + noise) * scale + fine);
    }
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++) {
      int32_t sum = 0;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          const int32_t yy = std::min<int32_t>(h - 1, std::max<int32_t>(0, int32_t(y) + dy));
          const int32_t xx = std::min<int32_t>(w - 1, std::max<int32_t>(0, int32_t(x) + dx));
          sum += (*ref)[size_t(yy) * w + xx];
        }
      int32_t v = sum / 9;
      if (i % 2) v = mid + (v - mid) * 3 / 2;
      v += (int32_t(mix(x * 17 + y * 1009 + 104729 * i) % 32) - 16) * scale;
      (*dist)[size_t(y) * w + x] = uint16_t(std::min(maxv, std::max(0, v)));
    }
}

TEST(CpuVifMotion, SyntheticHighBitDepthMatchesLibvmafExactly) {
  struct Gold {
    unsigned bpc;
    double vif[3][4];
    double sad[3];
    double motion2[3];
    double motion3[3];
  };
  // %.17g values of the scratch libvmaf (vif + motion extractors) on 3 frames of 96x64 from synthetic_frame.
  const Gold golds[] = {
      {12,
       {{0.54112672805786133, 0.98307859897613525, 0.99200761318206787, 0.99517959356307983},
        {0.4722282886505127, 0.84027093648910522, 0.88687038421630859, 0.9189111590385437},
        {0.54908674955368042, 0.98235660791397095, 0.9912070631980896, 0.99409693479537964}},
       {0, 17.860010782877605, 17.831748326619465},
       {0, 17.831748326619465, 17.831748326619465},
       {17.860010782877605, 17.831748326619465, 17.831748326619465}},
      {16,
       {{0.54116082191467285, 0.98309624195098877, 0.99201691150665283, 0.99518084526062012},
        {0.47254139184951782, 0.84023922681808472, 0.88674080371856689, 0.91898179054260254},
        {0.54905086755752563, 0.982371985912323, 0.99120670557022095, 0.99405872821807861}},
       {0, 17.858075459798176, 17.831972757975262},
       {0, 17.831972757975262, 17.831972757975262},
       {17.858075459798176, 17.831972757975262, 17.831972757975262}},
  };
  const uint32_t w = 96, h = 64;
  for (const Gold& g : golds) {
    SCOPED_TRACE(std::to_string(g.bpc) + "-bit");
    cpu::Vif vif;
    ASSERT_TRUE(vif.init(w, h, g.bpc, {}).is_ok());
    std::vector<uint16_t> ref[3], dist[3];
    std::vector<int32_t> row(w);
    cpu::MotionPost post;
    std::vector<cpu::MotionOut> out;
    auto plane = [&](const std::vector<uint16_t>& v) {
      cpu::Plane p;
      p.data = reinterpret_cast<const uint8_t*>(v.data());
      p.stride = ptrdiff_t(w) * 2;
      p.w = w;
      p.h = h;
      p.bytes = 2;
      p.bpc = uint8_t(g.bpc);
      return p;
    };
    for (uint32_t i = 0; i < 3; i++) {
      synthetic_frame(w, h, g.bpc, i, &ref[i], &dist[i]);
      cpu::VifScores s;
      ASSERT_TRUE(vif.compute(plane(ref[i]), plane(dist[i]), &s).is_ok());
      for (int k = 0; k < 4; k++) EXPECT_EQ(s.scale[k], g.vif[i][k]) << "frame " << i << " scale " << k;
      const double sad =
          i ? cpu::motion_score_from_sad(cpu::motion_sad(plane(ref[i - 1]), plane(ref[i]), row.data()), w, h) : 0.0;
      EXPECT_EQ(sad, g.sad[i]) << "frame " << i;
      post.push(i, sad, &out);
    }
    post.finish(&out);
    ASSERT_EQ(out.size(), 3u);
    for (size_t i = 0; i < 3; i++) {
      EXPECT_EQ(out[i].motion2, g.motion2[i]) << "frame " << i;
      EXPECT_EQ(out[i].motion3, g.motion3[i]) << "frame " << i;
    }
  }
}

// ---- refusals ------------------------------------------------------------------------------------------------------

TEST(CpuVifMotion, RefusesTooSmallPictureAndBadArguments) {
  EXPECT_EQ(cpu::Vif::check_size(15, 100).code(), Errc::unsupported);
  EXPECT_EQ(cpu::Vif::check_size(100, 15).code(), Errc::unsupported);
  EXPECT_EQ(cpu::Vif::check_size(0, 0).code(), Errc::unsupported);
  EXPECT_TRUE(cpu::Vif::check_size(cpu::kVifMinSize, cpu::kVifMinSize).is_ok());

  cpu::Vif vif;
  const Status small = vif.init(15, 240, 8, {});
  EXPECT_EQ(small.code(), Errc::unsupported);
  EXPECT_NE(small.message().find("15x240"), std::string::npos) << small.message();
  EXPECT_EQ(vif.init(64, 64, 7, {}).code(), Errc::unsupported);
  EXPECT_EQ(vif.init(64, 64, 17, {}).code(), Errc::unsupported);
  cpu::VifOptions bad;
  bad.enhn_gain_limit = 0.5;
  EXPECT_EQ(vif.init(64, 64, 8, bad).code(), Errc::invalid_argument);
  bad.enhn_gain_limit = NAN;
  EXPECT_EQ(vif.init(64, 64, 8, bad).code(), Errc::invalid_argument);

  // compute before a successful init, with the wrong size, depth or a stride too short.
  std::vector<uint8_t> pix(64 * 64, 128);
  cpu::Plane p;
  p.data = pix.data();
  p.stride = 64;
  p.w = 64;
  p.h = 64;
  p.bpc = 8;
  cpu::VifScores s;
  EXPECT_EQ(vif.compute(p, p, &s).code(), Errc::invalid_argument);
  ASSERT_TRUE(vif.init(64, 64, 8, {}).is_ok());
  EXPECT_TRUE(vif.compute(p, p, &s).is_ok());
  for (int k = 0; k < 4; k++) EXPECT_TRUE(std::isfinite(s.scale[k]));
  cpu::Plane q = p;
  q.w = 32;
  EXPECT_EQ(vif.compute(p, q, &s).code(), Errc::unsupported);
  q = p;
  q.bpc = 10;
  EXPECT_EQ(vif.compute(q, p, &s).code(), Errc::unsupported);
  q = p;
  q.stride = 63;
  EXPECT_EQ(vif.compute(p, q, &s).code(), Errc::invalid_argument);
  q = p;
  q.data = nullptr;
  EXPECT_EQ(vif.compute(p, q, &s).code(), Errc::invalid_argument);

  // The smallest accepted picture computes finite scores.
  std::vector<uint8_t> a(16 * 16), b(16 * 16);
  for (size_t i = 0; i < a.size(); i++) {
    a[i] = uint8_t(mix(uint32_t(i)) & 0xff);
    b[i] = uint8_t((a[i] + (mix(uint32_t(i) + 999) & 31)) & 0xff);
  }
  cpu::Plane pa = p, pb = p;
  pa.data = a.data();
  pb.data = b.data();
  pa.w = pa.h = pb.w = pb.h = 16;
  pa.stride = pb.stride = 16;
  ASSERT_TRUE(vif.init(16, 16, 8, {}).is_ok());
  ASSERT_TRUE(vif.compute(pa, pb, &s).is_ok());
  for (int k = 0; k < 4; k++) EXPECT_TRUE(std::isfinite(s.scale[k]) && s.scale[k] > 0) << "scale " << k;

  // Motion.
  EXPECT_EQ(cpu::motion_check_size(2, 3).code(), Errc::unsupported);
  EXPECT_EQ(cpu::motion_check_size(3, 2).code(), Errc::unsupported);
  EXPECT_TRUE(cpu::motion_check_size(3, 3).is_ok());
  EXPECT_EQ(cpu::motion_check_planes(pa, p).code(), Errc::unsupported);  // 16x16 vs 64x64
  q = p;
  q.bpc = 10;
  EXPECT_EQ(cpu::motion_check_planes(p, q).code(), Errc::unsupported);
  EXPECT_TRUE(cpu::motion_check_planes(pa, pb).is_ok());
  std::vector<int32_t> row(64);
  EXPECT_EQ(cpu::motion_sad(pa, p, row.data()), 0u);  // precondition broken: 0, no read past the planes
  EXPECT_GT(cpu::motion_sad(pa, pb, row.data()), 0u);
}

}  // namespace
}  // namespace vmafx
