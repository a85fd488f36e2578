// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU reference of CAMBI (cpu/cambi.h) against libvmaf:
//   - every public pair's JSON: default options (*.vmaf_v0.6.1.json, key "cambi") and the v1 models' options
//     (*.vmaf_v1.0.16_*.json, key "cambi_hrs_1080_cmxv_17_vlt_0.06"), frame by frame within 2e-6 (6 printed decimals);
//   - synthetic pictures (tests/support/cambi_synth.h) scored by a scratch libvmaf (C path) with printed doubles
//     (tests/data/cambi/*.json): every option, 8/10/12/16 bits, odd, thin and tiny sizes, sample extremes, the
//     high-resolution speed-ups, resizes, full-reference mode; compared bit for bit;
//   - what libvmaf does that needs no oracle: 9-bit and 8-bit input equal to 10-bit input shifted up, P010 words,
//     padded strides and interleaved steps, option parsing, refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cambi_synth.h"
#include "cpu/cambi.h"
#include "cpu/plane.h"
#include "support.h"
#include "tolerances.h"

namespace vmafx {
namespace {

using test::Pair;

// ---- helpers -------------------------------------------------------------------------------------------------------

// Options in libvmaf's --feature syntax: "name=value:name=value".
Status parse_options(const std::string& text, cpu::CambiOptions* o) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(':', at);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(at, end - at);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return {Errc::invalid_argument, "option without a value: " + item};
    VMAFX_TRY(cpu::cambi_set_option(o, item.substr(0, eq), item.substr(eq + 1)));
    at = end + 1;
  }
  return Status::ok();
}

// A plane over 16-bit samples (bpc > 8) or their low bytes copied into `bytes8` (bpc 8).
cpu::Plane plane_of(const std::vector<uint16_t>& luma, uint32_t w, uint32_t h, unsigned bpc,
                    std::vector<uint8_t>* bytes8) {
  cpu::Plane p;
  p.w = w;
  p.h = h;
  p.bpc = uint8_t(bpc);
  if (bpc == 8) {
    bytes8->resize(luma.size());
    for (size_t i = 0; i < luma.size(); ++i) (*bytes8)[i] = uint8_t(luma[i]);
    p.data = bytes8->data();
    p.stride = w;
    p.bytes = 1;
  } else {
    p.data = reinterpret_cast<const uint8_t*>(luma.data());
    p.stride = ptrdiff_t(w) * 2;
    p.bytes = 2;
  }
  return p;
}

// The cambi scores of one libvmaf JSON frame: the distorted score (the key that starts with "cambi" and is neither of
// the full-reference ones), cambi_source and cambi_full_reference where present.
struct OracleFrame {
  double cambi = NAN, source = NAN, full_reference = NAN;
  std::string key;
};
OracleFrame oracle_frame(const test::Oracle& o, size_t i) {
  OracleFrame f;
  for (const auto& [k, v] : o.frames.at(i)) {
    if (k == "cambi_source")
      f.source = v;
    else if (k == "cambi_full_reference")
      f.full_reference = v;
    else if (k.rfind("cambi", 0) == 0) {
      f.cambi = v;
      f.key = k;
    }
  }
  return f;
}

// ---- generated pairs, and the public pairs present -----------------------------------------------------------------

struct OracleCase {
  Pair pair;
  std::string model;    // the JSON's model part
  std::string options;  // cambi's options in that run
  std::string key;      // the score's name in it
};

std::vector<OracleCase> oracle_cases() {
  std::vector<OracleCase> v;
  const std::string v1 = "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17";
  const std::string v1_key = "cambi_hrs_1080_cmxv_17_vlt_0.06";
  const std::vector<Pair> pairs = test::oracle_pairs();
  for (const Pair& p : pairs) v.push_back({p, "vmaf_v0.6.1", "", "cambi"});
  for (const Pair& p : pairs)
    for (const char* m : {"vmaf_v1.0.16_3d0h", "vmaf_v1.0.16_5d0h", "vmaf_v1.0.16_1d5h_2160", "vmaf_v1.0.16_3d0h_2160"})
      if (test::has_oracle(p, m)) v.push_back({p, m, v1, v1_key});
  return v;
}

class CambiOracle : public ::testing::TestWithParam<OracleCase> {};

TEST_P(CambiOracle, MatchesLibvmafJsonFrameByFrame) {
  const OracleCase& oc = GetParam();
  const Pair& p = oc.pair;
  test::PairClips c;
  ASSERT_OK(test::open_pair_clips(p, &c));
  test::Oracle o;
  ASSERT_OK(test::load_pair_oracle(p, oc.model, c.ref.frames(), &o));
  cpu::CambiOptions opts;
  ASSERT_OK(parse_options(oc.options, &opts));
  cpu::Cambi cambi;
  ASSERT_OK(cambi.init(p.width, p.height, p.bpc, opts));
  double max_diff = 0;
  bool nonzero = false;
  for (size_t i = 0; i < c.ref.frames(); i++) {
    cpu::CambiScores sc;
    ASSERT_OK(cambi.compute(cpu::luma_plane(c.ref.frame(i)), cpu::luma_plane(c.dist.frame(i)), &sc));
    const auto it = o.frames[i].find(oc.key);
    ASSERT_NE(it, o.frames[i].end()) << oc.model << " lacks " << oc.key;
    const double d = std::fabs(sc.cambi - it->second);
    EXPECT_LE(d, test::kIntegerFeatureTol) << p.name() << " frame " << i << ": " << sc.cambi << ", libvmaf "
                                           << it->second;
    max_diff = std::max(max_diff, d);
    nonzero |= sc.cambi != 0;
  }
  // Noise hides banding (pair c, the generated blurnoise pairs); the others must exercise the whole computation.
  if (p.prefix[0] != 'c' && p.distorted != "blurnoise") {
    EXPECT_TRUE(nonzero);
  }
  std::printf("%s %s (%u-bit, %zu frames): max |ours - libvmaf json| %.3g\n", p.name().c_str(), oc.key.c_str(), p.bpc,
              c.ref.frames(), max_diff);
}

INSTANTIATE_TEST_SUITE_P(Pairs, CambiOracle, ::testing::ValuesIn(oracle_cases()),
                         [](const ::testing::TestParamInfo<OracleCase>& i) {
                           return i.param.pair.test_name() + "_" +
                                  (i.param.options.empty() ? std::string("default") : std::string("v1")) + "_" +
                                  std::to_string(i.index);
                         });

TEST(CpuCambi, OracleCasesCoverTenBitOddSizeAndV1) {
  bool ten = false, odd = false, v1 = false;
  for (const auto& c : oracle_cases()) {
    if (!c.pair.generated) continue;  // without ../shared too
    ten |= c.pair.bpc == 10;
    odd |= c.pair.width % 2 == 1;
    v1 |= !c.options.empty();
  }
  EXPECT_TRUE(ten);
  EXPECT_TRUE(odd);
  EXPECT_TRUE(v1);
}

// ---- synthetic pictures against libvmaf's printed doubles ----------------------------------------------------------

using test::Fixture;
using test::fixture_luma;
using test::kFixtures;

std::string fixture_path(const Fixture& f) { return test::project_data_dir() + "/cambi/" + f.name + ".json"; }

class CambiFixture : public ::testing::TestWithParam<Fixture> {};

TEST_P(CambiFixture, EqualsLibvmafBitForBit) {
  const Fixture& f = GetParam();
  test::Oracle o;
  ASSERT_OK(test::load_oracle(fixture_path(f), &o));
  ASSERT_EQ(o.frames.size(), f.frames);
  cpu::CambiOptions opts;
  ASSERT_OK(parse_options(f.options, &opts));
  cpu::Cambi cambi;
  ASSERT_OK(cambi.init(f.w, f.h, f.bpc, opts));
  for (unsigned i = 0; i < f.frames; ++i) {
    const std::vector<uint16_t> dist = fixture_luma(f, i, false), ref = fixture_luma(f, i, true);
    std::vector<uint8_t> b8d, b8r;
    cpu::CambiScores sc;
    ASSERT_OK(cambi.compute(plane_of(ref, f.w, f.h, f.bpc, &b8r), plane_of(dist, f.w, f.h, f.bpc, &b8d), &sc));
    const OracleFrame want = oracle_frame(o, i);
    EXPECT_EQ(sc.cambi, want.cambi) << f.name << " frame " << i << " (" << want.key << ")";
    if (opts.full_ref) {
      EXPECT_EQ(sc.source, want.source) << f.name << " frame " << i;
      EXPECT_EQ(sc.full_reference, want.full_reference) << f.name << " frame " << i;
    } else {
      EXPECT_TRUE(std::isnan(want.source)) << "the oracle has cambi_source without full_ref";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Synthetic, CambiFixture, ::testing::ValuesIn(kFixtures),
                         [](const ::testing::TestParamInfo<Fixture>& i) { return std::string(i.param.name); });

// Writes the fixtures' pictures as planar 4:4:4 (chroma mid-grey) for libvmaf's CLI, and prints its command lines:
//   VMAFX_CAMBI_DUMP_DIR=/tmp/x test_cpu_cambi --gtest_also_run_disabled_tests --gtest_filter='*DumpFixtureClips*'
TEST(CpuCambi, DISABLED_DumpFixtureClips) {
  const char* dir = std::getenv("VMAFX_CAMBI_DUMP_DIR");
  ASSERT_NE(dir, nullptr) << "set VMAFX_CAMBI_DUMP_DIR";
  for (const Fixture& f : kFixtures) {
    for (int r = 0; r < 2; ++r) {
      const std::string path = std::string(dir) + "/" + f.name + (r ? "_ref.yuv" : "_dist.yuv");
      FILE* fp = std::fopen(path.c_str(), "wb");
      ASSERT_NE(fp, nullptr) << path;
      for (unsigned i = 0; i < f.frames; ++i) {
        std::vector<uint16_t> plane = fixture_luma(f, i, r == 1);
        const uint16_t grey = uint16_t(1u << (f.bpc - 1));
        plane.resize(plane.size() * 3, grey);
        if (f.bpc == 8) {
          std::vector<uint8_t> b(plane.begin(), plane.end());
          ASSERT_EQ(std::fwrite(b.data(), 1, b.size(), fp), b.size());
        } else {
          ASSERT_EQ(std::fwrite(plane.data(), 2, plane.size(), fp), plane.size());
        }
      }
      std::fclose(fp);
    }
    std::printf("vmaf -r %s_ref.yuv -d %s_dist.yuv -w %u -h %u -p 444 -b %u --no_prediction --cpumask 255 "
                "--feature cambi%s%s --json -o %s.json -q\n",
                f.name, f.name, f.w, f.h, f.bpc, *f.options ? "=" : "", f.options, f.name);
  }
}

// ---- equivalences that need no oracle ------------------------------------------------------------------------------

// libvmaf turns 8-bit samples into 10 bits by << 2 and 9-bit ones by << 1; with the same encode depth (which decides
// the anti-dithering) a 10-bit picture of the shifted samples scores the same.
TEST(CpuCambi, EightAndNineBitEqualTenBitShiftedUp) {
  const uint32_t w = 400, h = 240;
  for (unsigned bpc : {8u, 9u}) {
    std::vector<uint16_t> low = test::cambi_synth_luma(w, h, 8, 3);
    if (bpc == 9)
      for (auto& v : low) v = uint16_t(v << 1 | (v & 1));
    std::vector<uint16_t> ten(low);
    for (auto& v : ten) v = uint16_t(v << (10 - bpc));
    cpu::CambiOptions o_low, o_ten;
    o_ten.enc_bitdepth = int(bpc);
    cpu::Cambi a, b;
    ASSERT_OK(a.init(w, h, bpc, o_low));
    ASSERT_OK(b.init(w, h, 10, o_ten));
    std::vector<uint8_t> b8;
    cpu::CambiScores sa, sb;
    ASSERT_OK(a.compute({}, plane_of(low, w, h, bpc, &b8), &sa));
    ASSERT_OK(b.compute({}, plane_of(ten, w, h, 10, &b8), &sb));
    EXPECT_EQ(sa.cambi, sb.cambi) << bpc << "-bit";
    EXPECT_GT(sa.cambi, 0.0);
  }
}

// 16-bit words holding the sample high (P010 keeps 10 bits << 6), padded strides and interleaved steps read the same
// samples as packed planes.
TEST(CpuCambi, ShiftedWordsPaddedStridesAndStepsMatchPacked) {
  const uint32_t w = 333, h = 217;
  const std::vector<uint16_t> luma = test::cambi_synth_luma(w, h, 10, 1);
  cpu::Cambi c;
  ASSERT_OK(c.init(w, h, 10, cpu::CambiOptions{}));
  std::vector<uint8_t> b8;
  cpu::CambiScores want, got;
  ASSERT_OK(c.compute({}, plane_of(luma, w, h, 10, &b8), &want));
  EXPECT_GT(want.cambi, 0.0);
  const ptrdiff_t stride = ptrdiff_t(w) * 4 + 14;  // step 2, odd number of padding words
  std::vector<uint8_t> buf(size_t(stride) * h, 0xA5);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const uint16_t word = uint16_t(luma[size_t(y) * w + x] << 6 | 0x2A);  // low bits must be ignored
      std::memcpy(buf.data() + y * stride + size_t(x) * 4, &word, 2);
    }
  cpu::Plane p;
  p.data = buf.data();
  p.stride = stride;
  p.w = w;
  p.h = h;
  p.bytes = 2;
  p.shift = 6;
  p.step = 2;
  p.bpc = 10;
  ASSERT_OK(c.compute({}, p, &got));
  EXPECT_EQ(got.cambi, want.cambi);
}

// ---- stages ----------------------------------------------------------------------------------------------------

// libvmaf's reciprocal table is 1 / i printed with 9 digits and read as float: 42 entries differ from 1.0f / i.
TEST(CpuCambi, ReciprocalTableIsLibvmafs) {
  const float* r = cpu::cambi_reciprocals();
  EXPECT_EQ(r[0], 0.0f);
  EXPECT_EQ(r[1], 1.0f);
  EXPECT_EQ(r[3], 0.333333333f);
  int differ = 0;
  for (unsigned i = 1; i < cpu::kCambiReciprocals; ++i) {
    differ += r[i] != 1.0f / float(i);
    EXPECT_LE(std::fabs(double(r[i]) * i - 1.0), 1e-7) << i;
  }
  EXPECT_EQ(differ, 42);
}

// The pooling is the mean of the k largest values, whatever the order the quickselect leaves them in.
TEST(CpuCambi, PoolingIsTheMeanOfTheTopK) {
  uint32_t seed = 12345;
  for (uint32_t n : {1u, 2u, 7u, 100u, 1001u}) {
    for (double topk : {0.0001, 0.3, 0.6, 1.0}) {
      std::vector<float> v(n);
      for (auto& x : v) {
        seed = seed * 1664525u + 1013904223u;
        x = (seed >> 9) % 4 == 0 ? 0.0f : float((seed >> 12) % 64) * 0.5f;  // small exact values, ties
      }
      std::vector<float> sorted(v);
      std::sort(sorted.begin(), sorted.end(), [](float a, float b) { return a > b; });
      const uint32_t k = cpu::cambi_topk_count(n, topk);
      EXPECT_EQ(k, std::max<uint32_t>(1, std::min<uint32_t>(n, uint32_t(topk * n))));
      double sum = 0;
      for (uint32_t i = 0; i < k; ++i) sum += sorted[i];
      EXPECT_EQ(cpu::cambi_pool(v.data(), n, topk), sum / k) << n << " " << topk;
    }
  }
}

TEST(CpuCambi, ModeOfThree) {
  EXPECT_EQ(cpu::cambi_mode3(5, 5, 1), 5);
  EXPECT_EQ(cpu::cambi_mode3(1, 5, 5), 5);
  EXPECT_EQ(cpu::cambi_mode3(5, 1, 5), 5);
  EXPECT_EQ(cpu::cambi_mode3(3, 2, 9), 2);
  EXPECT_EQ(cpu::cambi_mode3(9, 9, 9), 9);
}

// The plan's derived values for libvmaf's defaults: the mask threshold and window of a few sizes (libvmaf's integer
// formulas) and thresholds increasing with the difference.
TEST(CpuCambi, PlanFollowsLibvmafsFormulas) {
  cpu::CambiPlan p;
  ASSERT_OK(cpu::cambi_plan(1920, 1080, 8, cpu::CambiOptions{}, &p));
  EXPECT_EQ(p.dist.window, 33);  // ((65 * 3000) / 375) >> 4 = 32, | 1
  EXPECT_EQ(p.dist.mask_index, 21);  // (49 + 3 * (ceil_log2(30 * 16) - 11) - 1) >> 1
  EXPECT_EQ(p.num_diffs, 4u);
  EXPECT_EQ(p.enc_bitdepth, 8u);
  for (unsigned d = 1; d < p.num_diffs; ++d) EXPECT_GT(p.tvi_for_diff[d], p.tvi_for_diff[d - 1]);
  EXPECT_EQ(p.vlt_luma, 0);
  EXPECT_EQ(p.band_base, 0);
  EXPECT_EQ(p.band_size, p.tvi_for_diff[3] + 1);
  EXPECT_FALSE(p.high_res_speedup);
  cpu::CambiOptions v1;
  ASSERT_OK(cpu::cambi_set_option(&v1, "cambi_high_res_speedup", "1080"));
  ASSERT_OK(cpu::cambi_set_option(&v1, "cambi_vis_lum_threshold", "0.06"));
  ASSERT_OK(cpu::cambi_plan(1920, 1080, 8, v1, &p));
  EXPECT_TRUE(p.high_res_speedup);
  EXPECT_EQ(p.dist.window, 17);  // (32 + 1) >> 1, | 1
  EXPECT_EQ(p.dist.scale_w[0], 960u);
  EXPECT_EQ(p.dist.scale_h[4], 34u);
  EXPECT_GT(p.vlt_luma, 64);
  EXPECT_GE(cpu::cambi_luminance(p.vlt_luma, false), 0.06);
  EXPECT_LT(cpu::cambi_luminance(p.vlt_luma - 1, false), 0.06);
  ASSERT_OK(cpu::cambi_plan(1919, 1080, 8, v1, &p));  // below 1920x1080 pixels: no speed-up
  EXPECT_FALSE(p.high_res_speedup);
}

// ---- options -------------------------------------------------------------------------------------------------------

TEST(CpuCambi, OptionTableHasLibvmafsNamesAndDefaults) {
  const cpu::CambiOptions d;
  EXPECT_EQ(cpu::cambi_option_spec("cambi_max_val")->def, d.cambi_max_val);
  EXPECT_EQ(cpu::cambi_option_spec("window_size")->def, d.window_size);
  EXPECT_EQ(cpu::cambi_option_spec("topk")->def, d.topk);
  EXPECT_EQ(cpu::cambi_option_spec("cambi_topk")->def, d.cambi_topk);
  EXPECT_EQ(cpu::cambi_option_spec("tvi_threshold")->def, d.tvi_threshold);
  EXPECT_EQ(cpu::cambi_option_spec("max_log_contrast")->def, d.max_log_contrast);
  EXPECT_EQ(std::string(cpu::cambi_option_spec("eotf")->def_text), d.eotf);
  EXPECT_EQ(std::string(cpu::cambi_option_spec("cambi_high_res_speedup")->alias), "hrs");
  EXPECT_EQ(std::string(cpu::cambi_option_spec("cambi_vis_lum_threshold")->alias), "vlt");
  EXPECT_EQ(std::string(cpu::cambi_option_spec("cambi_max_val")->alias), "cmxv");
  EXPECT_EQ(cpu::cambi_option_spec("topk")->alias, nullptr);
  EXPECT_FALSE(cpu::cambi_option_spec("full_ref")->feature_param);
  EXPECT_EQ(cpu::cambi_option_spec("nope"), nullptr);
  unsigned refused = 0;
  for (const auto& s : cpu::kCambiOptionSpecs) refused += s.refused != nullptr;
  EXPECT_EQ(refused, 1u);  // heatmaps_path
  EXPECT_EQ(sizeof(cpu::kCambiOptionSpecs) / sizeof(cpu::kCambiOptionSpecs[0]), 17u);
}

TEST(CpuCambi, OptionTextParsesAsLibvmafDoes) {
  cpu::CambiOptions o;
  ASSERT_OK(cpu::cambi_set_option(&o, "window_size", "33"));
  EXPECT_EQ(o.window_size, 33);
  ASSERT_OK(cpu::cambi_set_option(&o, "window_size", "40px"));  // atoi stops at the first non-digit
  EXPECT_EQ(o.window_size, 40);
  ASSERT_OK(cpu::cambi_set_option(&o, "topk", "0.25"));
  EXPECT_EQ(o.topk, 0.25);
  ASSERT_OK(cpu::cambi_set_option(&o, "cambi_vis_lum_threshold", "0"));
  ASSERT_OK(cpu::cambi_set_option(&o, "full_ref", "true"));
  EXPECT_TRUE(o.full_ref);
  ASSERT_OK(cpu::cambi_set_option(&o, "eotf", "pq"));
  EXPECT_EQ(o.eotf, "pq");
  EXPECT_EQ(cpu::cambi_set_option(&o, "window_size", "abc").code(), Errc::invalid_argument);
  EXPECT_EQ(cpu::cambi_set_option(&o, "window_size", "13").code(), Errc::invalid_argument);   // below 15
  EXPECT_EQ(cpu::cambi_set_option(&o, "window_size", "128").code(), Errc::invalid_argument);  // above 127
  EXPECT_EQ(cpu::cambi_set_option(&o, "enc_width", "0").code(), Errc::invalid_argument);      // below 180
  EXPECT_EQ(cpu::cambi_set_option(&o, "topk", "0").code(), Errc::invalid_argument);
  EXPECT_EQ(cpu::cambi_set_option(&o, "cambi_max_val", "1000.5").code(), Errc::invalid_argument);
  EXPECT_EQ(cpu::cambi_set_option(&o, "full_ref", "1").code(), Errc::invalid_argument);
  const Status unknown = cpu::cambi_set_option(&o, "windowsize", "33");
  EXPECT_EQ(unknown.code(), Errc::unsupported);
  EXPECT_NE(unknown.message().find("window_size"), std::string::npos) << "lists the known options";
  const Status heat = cpu::cambi_set_option(&o, "heatmaps_path", "/tmp");
  EXPECT_EQ(heat.code(), Errc::unsupported);
  EXPECT_NE(heat.message().find("heatmap"), std::string::npos);
}

// ---- refusals ------------------------------------------------------------------------------------------------------

Errc plan_code(uint32_t w, uint32_t h, unsigned bpc, const std::string& options) {
  cpu::CambiOptions o;
  const Status s = parse_options(options, &o);
  if (!s) return s.code();
  cpu::CambiPlan p;
  return cpu::cambi_plan(w, h, bpc, o, &p).code();
}

TEST(CpuCambi, RefusesWhatLibvmafRefuses) {
  EXPECT_EQ(plan_code(215, 215, 8, ""), Errc::invalid_argument);  // neither side reaches 216
  EXPECT_EQ(plan_code(1920, 1080, 8, "enc_width=200:enc_height=200"), Errc::invalid_argument);
  EXPECT_EQ(plan_code(640, 360, 8, "src_width=800:src_height=300"), Errc::invalid_argument);  // wider, shorter
  EXPECT_EQ(plan_code(640, 360, 8, "eotf=hlg"), Errc::invalid_argument);
  EXPECT_EQ(plan_code(3840, 2160, 8, "window_size=70"), Errc::invalid_argument);  // 70 at 4K: 69 > 65
  EXPECT_EQ(plan_code(640, 360, 7, ""), Errc::unsupported);
  EXPECT_EQ(plan_code(640, 360, 17, ""), Errc::unsupported);
  cpu::CambiOptions o;
  o.heatmaps_path = "/tmp/x";
  cpu::CambiPlan p;
  EXPECT_EQ(cpu::cambi_plan(640, 360, 8, o, &p).code(), Errc::unsupported);
  o = cpu::CambiOptions{};
  o.window_size = 3;  // set directly, outside the option parser's range
  EXPECT_EQ(cpu::cambi_plan(640, 360, 8, o, &p).code(), Errc::invalid_argument);
}

// Where libvmaf reads outside its buffers or writes outside them, the engine refuses instead of computing.
TEST(CpuCambi, RefusesWhereLibvmafReadsOutsideThePicture) {
  // Aspect ratio: 4000x216's last scale is 14 rows high for a half window of 22.
  EXPECT_EQ(plan_code(4000, 216, 8, ""), Errc::unsupported);
  EXPECT_EQ(plan_code(216, 4000, 8, ""), Errc::unsupported);
  EXPECT_EQ(plan_code(216, 1, 8, ""), Errc::unsupported);
  EXPECT_EQ(plan_code(216, 2, 8, ""), Errc::ok);  // the half window is 1 there
  // A visibility threshold above every visible difference: libvmaf's band size wraps and it writes outside its
  // histogram (it crashes on it).
  EXPECT_EQ(plan_code(640, 360, 8, "cambi_vis_lum_threshold=300"), Errc::unsupported);
  EXPECT_EQ(plan_code(640, 360, 8, "cambi_vis_lum_threshold=40"), Errc::ok);
  // 10-bit full reference with a source wider than the picture: libvmaf copies the distorted picture with another
  // row pitch. The same at 8 bits, or with a downscaled encode, is well defined.
  EXPECT_EQ(plan_code(640, 360, 10, "full_ref=true:src_width=800:src_height=450"), Errc::unsupported);
  EXPECT_EQ(plan_code(640, 360, 8, "full_ref=true:src_width=800:src_height=450"), Errc::ok);
  EXPECT_EQ(plan_code(640, 360, 10, "full_ref=true:src_width=800:src_height=450:enc_width=600:enc_height=338"),
            Errc::ok);
  EXPECT_EQ(plan_code(650, 360, 10, "full_ref=true:src_width=660:src_height=370"), Errc::ok);  // same row pitch
  EXPECT_EQ(plan_code(640, 360, 10, "full_ref=true:src_width=641:src_height=361"), Errc::unsupported);
}

TEST(CpuCambi, RejectsSamplesAboveTheBitDepth) {
  const uint32_t w = 320, h = 240;
  std::vector<uint16_t> luma = test::cambi_synth_luma(w, h, 10, 0);
  cpu::Cambi c;
  ASSERT_OK(c.init(w, h, 10, cpu::CambiOptions{}));
  std::vector<uint8_t> b8;
  cpu::CambiScores sc;
  ASSERT_OK(c.compute({}, plane_of(luma, w, h, 10, &b8), &sc));
  luma[size_t(100) * w + 7] = 1024;
  const Status s = c.compute({}, plane_of(luma, w, h, 10, &b8), &sc);
  EXPECT_EQ(s.code(), Errc::invalid_argument);
  EXPECT_NE(s.message().find("1024"), std::string::npos) << s.message();
  // 16-bit pictures have no value above their depth; 8-bit ones are not checked by libvmaf either.
  std::vector<uint16_t> full(size_t(w) * h, 65535);
  ASSERT_OK(c.init(w, h, 16, cpu::CambiOptions{}));
  ASSERT_OK(c.compute({}, plane_of(full, w, h, 16, &b8), &sc));
}

TEST(CpuCambi, RejectsPlanesOfAnotherGeometry) {
  const uint32_t w = 320, h = 240;
  const std::vector<uint16_t> luma = test::cambi_synth_luma(w, h, 10, 0);
  cpu::Cambi c;
  cpu::CambiOptions o;
  o.full_ref = true;
  ASSERT_OK(c.init(w, h, 10, o));
  std::vector<uint8_t> b8;
  cpu::CambiScores sc;
  const cpu::Plane good = plane_of(luma, w, h, 10, &b8);
  cpu::Plane small = good;
  small.w = w - 1;
  EXPECT_EQ(c.compute(good, small, &sc).code(), Errc::unsupported);
  EXPECT_EQ(c.compute(small, good, &sc).code(), Errc::unsupported);  // full_ref reads the reference
  EXPECT_EQ(c.compute(cpu::Plane{}, good, &sc).code(), Errc::invalid_argument);
  cpu::Plane deep = good;
  deep.bpc = 12;
  EXPECT_EQ(c.compute(good, deep, &sc).code(), Errc::unsupported);
  cpu::Cambi fresh;
  EXPECT_EQ(fresh.compute(good, good, &sc).code(), Errc::invalid_argument);
}

// ---- speed (printed, not asserted) ---------------------------------------------------------------------------------

TEST(CpuCambi, PrintsSpeed) {
  struct Case {
    uint32_t w, h;
    const char* options;
  };
  for (const Case& k : {Case{1920, 1080, ""}, Case{1920, 1080, "cambi_high_res_speedup=1080"},
                        Case{3840, 2160, ""}, Case{3840, 2160, "cambi_high_res_speedup=1080"}}) {
    const std::vector<uint16_t> luma = test::cambi_synth_luma(k.w, k.h, 8, 0);
    cpu::CambiOptions o;
    ASSERT_OK(parse_options(k.options, &o));
    cpu::Cambi c;
    ASSERT_OK(c.init(k.w, k.h, 8, o));
    std::vector<uint8_t> b8;
    const cpu::Plane p = plane_of(luma, k.w, k.h, 8, &b8);
    cpu::CambiScores sc;
    const auto t0 = std::chrono::steady_clock::now();
    const int runs = 3;
    for (int i = 0; i < runs; ++i) ASSERT_OK(c.compute({}, p, &sc));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / runs;
    std::printf("cambi cpu %ux%u 8-bit %s: %.1f ms per frame (one thread)\n", k.w, k.h,
                *k.options ? k.options : "default options", ms);
  }
}

}  // namespace
}  // namespace vmafx
