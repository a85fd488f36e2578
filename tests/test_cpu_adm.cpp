// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU reference of integer ADM against libvmaf: the JSON scores of every generated pair and every public pair present
// (default model, the neg model's gain limit 1, the v1 models' options), exact doubles of a scratch libvmaf (C path) for synthetic 8..16-bit content, P010 words,
// padded and interleaved rows, the stage functions composed by hand, and size and option limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "assert_ok.h"
#include "cpu/adm.h"
#include "cpu/plane.h"
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

const char* const kOutputs[7] = {"integer_adm2",       "integer_aim",        "integer_adm3",      "integer_adm_scale0",
                                 "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3"};

double output(const cpu::AdmScores& s, int k) {
  switch (k) {
    case 0: return s.adm2;
    case 1: return s.aim;
    case 2: return s.adm3;
    default: return s.scale[k - 3];
  }
}

// Scores every frame of a pair and compares the seven outputs (names + suffix) with the oracle; prints the largest
// difference per output.
void expect_pair_matches(const Pair& p, const std::string& model, const cpu::AdmOptions& opt,
                         const std::string& suffix) {
  test::PairClips c;
  ASSERT_OK(test::open_pair_clips(p, &c));
  test::Oracle o;
  ASSERT_OK(test::load_pair_oracle(p, model, c.ref.frames(), &o));
  cpu::Adm adm;
  ASSERT_TRUE(adm.init(p.width, p.height, p.bpc, opt).is_ok());
  double max_diff[7] = {0, 0, 0, 0, 0, 0, 0};
  for (size_t f = 0; f < c.ref.frames(); f++) {
    cpu::AdmScores s;
    const Status st = adm.compute(cpu::luma_plane(c.ref.frame(f)), cpu::luma_plane(c.dist.frame(f)), &s);
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    for (int k = 0; k < 7; k++) {
      const std::string name = std::string(kOutputs[k]) + suffix;
      const auto it = o.frames[f].find(name);
      ASSERT_NE(it, o.frames[f].end()) << "oracle lacks " << name;
      const double diff = std::fabs(output(s, k) - it->second);
      max_diff[k] = std::max(max_diff[k], diff);
      EXPECT_LE(diff, kTol) << name << " frame " << f << ": ours " << output(s, k) << ", libvmaf " << it->second;
    }
  }
  std::printf("  %s_%s (%s, %zu frames) max |ours - libvmaf|:", p.prefix.c_str(), p.distorted.c_str(), model.c_str(),
              c.ref.frames());
  for (int k = 0; k < 7; k++) std::printf(" %s%s %.2g", kOutputs[k] + 8, suffix.c_str(), max_diff[k]);
  std::printf("\n");
}

class AdmOraclePair : public ::testing::TestWithParam<Pair> {};

// The generated pairs (8/10-bit, odd sizes, 4:2:0/4:2:2/4:4:4), and the public pairs a, b (10-bit), c (321x241,
// against the C-path file) and d when ../shared is there.
TEST_P(AdmOraclePair, MatchesLibvmafJsonEveryFrame) {
  expect_pair_matches(GetParam(), "vmaf_v0.6.1", cpu::AdmOptions{}, "");
}

INSTANTIATE_TEST_SUITE_P(Oracle, AdmOraclePair, ::testing::ValuesIn(test::oracle_pairs()),
                         [](const ::testing::TestParamInfo<Pair>& i) { return i.param.test_name(); });

TEST(CpuAdm, GainLimitOneMatchesNegModelJson) {
  unsigned n = 0;
  for (const Pair& p : test::oracle_pairs()) {
    if (!test::has_oracle(p, "vmaf_v0.6.1neg")) continue;
    cpu::AdmOptions opt;
    opt.enhn_gain_limit = 1.0;
    expect_pair_matches(p, "vmaf_v0.6.1neg", opt, "_egl_1");
    n++;
  }
  EXPECT_GE(n, test::generated_pairs().size()) << "every generated pair has a neg-model oracle";
}

// The VMAF v1 models' ADM (adm_csf_mode 2, dlm weight 0.7, gain limit 1, min 0.5, noise weight 0.02; viewing
// distance and display height per model) against the v1 oracle files, under libvmaf's option-suffixed names.
struct V1AdmModel {
  const char* model;  // oracle file's model part
  double nvd;
  int rdh;
  const char* suffix;
};
const V1AdmModel kV1AdmModels[] = {
    {"vmaf_v1.0.16_3d0h", 3.0, 1080, "_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02"},
    {"vmaf_v1.0.16_5d0h", 5.0, 1080, "_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_nvd_5"},
    {"vmaf_v1.0.16_1d5h_2160", 1.5, 2160, "_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_nvd_1.5_rdh_2160"},
    {"vmaf_v1.0.16_3d0h_2160", 3.0, 2160, "_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_rdh_2160"},
};

TEST(CpuAdm, V1ModelOptionsMatchV1OracleJson) {
  unsigned n = 0, generated = 0;
  for (const Pair& p : test::oracle_pairs()) {
    for (const V1AdmModel& c : kV1AdmModels) {
      if (!test::has_oracle(p, c.model)) continue;
      SCOPED_TRACE(p.name() + " " + c.model);
      cpu::AdmOptions opt;
      opt.csf_mode = cpu::kAdmCsfBlend;
      opt.dlm_weight = 0.7;
      opt.enhn_gain_limit = 1.0;
      opt.min_val = 0.5;
      opt.noise_weight = 0.02;
      opt.norm_view_dist = c.nvd;
      opt.ref_display_height = c.rdh;
      expect_pair_matches(p, c.model, opt, c.suffix);
      n++;
      generated += p.generated;
    }
  }
  // Every generated pair has the 3d0h oracle, g1 and g2 the other three models' too.
  EXPECT_EQ(generated, test::generated_pairs().size() + 6);
  std::printf("  %u v1 oracle files checked\n", n);
}

// Every other ADM option (Barten CSF with its two scales, the refitted blend, blend tables of other displays,
// adm_skip_aim, adm_skip_scale0, noise and DLM weights, min, gain limit) against tests/data's full-precision
// oracle of the sample pair (libvmaf with its JSON writer printing %.17g): equal doubles.
struct AdmOptionCase {
  const char* suffix;  // libvmaf's name suffix of the instance
  cpu::AdmOptions opt;
  bool debug;          // the instance also wrote num / den
};
std::vector<AdmOptionCase> adm_option_cases() {
  std::vector<AdmOptionCase> v;
  cpu::AdmOptions o;
  o.csf_mode = cpu::kAdmCsfBarten;
  o.csf_scale = 0.02;
  o.csf_diag_scale = 0.005;
  v.push_back({"_scfd_0.005_csf_1_scf_0.02", o, true});
  o = {};
  o.csf_mode = cpu::kAdmCsfBlendMae;
  o.norm_view_dist = 5;
  v.push_back({"_csf_3_nvd_5", o, false});
  o = {};
  o.csf_mode = cpu::kAdmCsfBlendMae;
  o.ref_display_height = 2160;
  o.norm_view_dist = 1.5;
  v.push_back({"_csf_3_nvd_1.5_rdh_2160", o, false});
  o = {};
  o.csf_mode = cpu::kAdmCsfBlend;
  o.ref_display_height = 2160;
  v.push_back({"_csf_2_rdh_2160", o, false});
  o = {};
  o.skip_aim = true;
  o.csf_mode = cpu::kAdmCsfBlend;
  o.ref_display_height = 2160;
  o.norm_view_dist = 5;
  v.push_back({"_csf_2_nvd_5_rdh_2160", o, false});
  o = {};
  o.skip_scale0 = true;
  o.noise_weight = 0.5;
  o.dlm_weight = 0.2;
  o.min_val = 0.9;
  v.push_back({"_dlmw_0.2_min_0.9_nw_0.5_ssz", o, false});
  o = {};
  o.csf_mode = cpu::kAdmCsfBarten;
  o.csf_scale = 0.001;
  o.csf_diag_scale = 0.0001;
  o.enhn_gain_limit = 1.2;
  v.push_back({"_scfd_0.0001_csf_1_scf_0.001_egl_1.2", o, false});
  return v;
}

TEST(CpuAdm, EveryOptionMatchesScratchLibvmafExactly) {
  test::PairClips c;
  ASSERT_OK(test::open_sample_pair(&c));
  test::Oracle o;
  ASSERT_OK(test::load_oracle(test::project_data_dir() + "/sample_320x240_dist.adm_motion_options.json", &o));
  ASSERT_EQ(o.frames.size(), 10u);
  for (const AdmOptionCase& k : adm_option_cases()) {
    SCOPED_TRACE(k.suffix);
    cpu::Adm adm;
    ASSERT_OK(adm.init(320, 240, 8, k.opt));
    for (size_t f = 0; f < o.frames.size(); f++) {
      cpu::AdmScores s;
      ASSERT_OK(adm.compute(cpu::luma_plane(c.ref.frame(f)), cpu::luma_plane(c.dist.frame(f)), &s));
      auto want = [&](const std::string& name) {
        const auto it = o.frames[f].find(name + k.suffix);
        EXPECT_NE(it, o.frames[f].end()) << name << k.suffix;
        return it == o.frames[f].end() ? -1.0 : it->second;
      };
      for (int i = 0; i < 7; i++) EXPECT_EQ(output(s, i), want(kOutputs[i])) << kOutputs[i] << " frame " << f;
      if (!k.debug) continue;
      EXPECT_EQ(s.adm2, want("integer_adm")) << "frame " << f;
      EXPECT_EQ(s.num, want("integer_adm_num")) << "frame " << f;
      EXPECT_EQ(s.den, want("integer_adm_den")) << "frame " << f;
      for (int i = 0; i < 4; i++) {
        EXPECT_EQ(s.num_scale[i], want("integer_adm_num_scale" + std::to_string(i))) << "frame " << f;
        EXPECT_EQ(s.den_scale[i], want("integer_adm_den_scale" + std::to_string(i))) << "frame " << f;
      }
    }
  }
}

// The CSF factors of each mode: the blend tables verbatim, Watson's constants, Barten's curve rising with the scale.
TEST(CpuAdm, CsfFactorsOfEveryMode) {
  cpu::AdmOptions o;
  o.csf_mode = cpu::kAdmCsfBlend;
  float rf[3];
  cpu::adm_csf_factors(0, o, rf);
  EXPECT_EQ(rf[0], 0.01183f);
  EXPECT_EQ(rf[1], 0.01183f);
  EXPECT_EQ(rf[2], 0.004302f);
  uint16_t f0[3];
  cpu::adm_fixed_factors_scale0(rf, o, f0);
  EXPECT_EQ(f0[0], 24809);  // not Watson's constant: that one belongs to mode 0 only
  o.csf_mode = cpu::kAdmCsfBlendMae;
  o.ref_display_height = 2160;
  cpu::adm_csf_factors(3, o, rf);
  EXPECT_EQ(rf[0], 0.035930f);
  EXPECT_EQ(rf[2], 0.021430f);
  o = {};
  cpu::adm_csf_factors(0, o, rf);
  cpu::adm_fixed_factors_scale0(rf, o, f0);
  EXPECT_EQ(f0[0], 36453);
  EXPECT_EQ(f0[2], 49417);
  o.csf_mode = cpu::kAdmCsfBarten;
  float prev = 0;
  for (int s = 0; s < 4; s++) {
    cpu::adm_csf_factors(s, o, rf);
    EXPECT_GT(rf[0], prev) << "scale " << s;
    EXPECT_EQ(rf[0], rf[2]) << "equal scales give equal h/v and d factors";
    prev = rf[0];
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Exact doubles of the scratch libvmaf (plain C, --feature adm with debug=true) for synthetic content made by
// synth_frame below; reproduced bit for bit.

uint32_t synth_hash(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
// Triangle wave of period p (p even) in [0, p / 2].
uint32_t synth_tri(int64_t t, uint32_t p) {
  const uint32_t m = uint32_t(((t % p) + p) % p);
  return m <= p / 2 ? m : p - m;
}
// kind 0: textured content, dist = ref with noise, a contrast boost in one band of rows and a flat patch.
// kind 1: extremes: ref a 0/max checkerboard of varying cell size, dist random 0/max (stresses the wide sums).
void synth_frame(unsigned kind, unsigned w, unsigned h, unsigned bpc, unsigned frame, uint16_t* ref, uint16_t* dist) {
  const uint32_t maxv = (1u << bpc) - 1;
  for (unsigned y = 0; y < h; ++y) {
    for (unsigned x = 0; x < w; ++x) {
      const size_t i = size_t(y) * w + x;
      const uint32_t n = synth_hash(uint32_t(i) * 2654435761u + frame * 40503u + kind * 977u + bpc);
      if (kind == 0) {
        const uint64_t a = synth_tri(int64_t(x) * 5 + y * 3 + frame * 7, 98);      // 0..49
        const uint64_t b = synth_tri(int64_t(y) * 11 - int64_t(x) * 2 + frame, 62); // 0..31
        const uint64_t c = synth_tri(int64_t(x) * int64_t(y) / 7 + frame * 3, 18);  // 0..9
        const uint64_t r = (a * 3 + b * 2 + c * 4 + (n & 7)) * maxv / (49 * 3 + 31 * 2 + 9 * 4 + 7);
        int64_t d = int64_t(r) + int64_t((n >> 8) % (maxv / 16 + 1)) - int64_t(maxv / 32);
        if (y > h / 3 && y < h / 2) d = int64_t(maxv / 2) + (d - int64_t(maxv / 2)) * 3 / 2;
        if (x < w / 5 && y > 2 * h / 3) d = int64_t(maxv / 3);
        ref[i] = uint16_t(r);
        dist[i] = uint16_t(std::min<int64_t>(std::max<int64_t>(d, 0), maxv));
      } else {
        const unsigned cell = 1 + (frame + x / 9) % 3;
        ref[i] = uint16_t(((x / cell + y / cell) & 1) ? maxv : 0);
        dist[i] = uint16_t((n >> 13) & 1 ? maxv : 0);
      }
    }
  }
}

struct ExactCase {
  unsigned kind, w, h, bpc, frame;
  double gain_limit;
  double v[9];  // adm2, aim, adm3, scale0..3, num, den
};

// Printed by the scratch program with %a from vmaf_feature_score_at_index.
const ExactCase kExact[] = {
    {0, 96, 72, 12, 0, 100.0, {0x1.e9ffee3ce73ap-1, 0x1.57cb20039c13ep-4, 0x1.df83451e39dbcp-1,
                               0x1.da4c6d4872905p-1, 0x1.e42208b5da812p-1,
                               0x1.e49b853320cdap-1, 0x1.f14ff7260b28ep-1, 0x1.aee8c9cp+7, 0x1.c241abcp+7}},
    {0, 96, 72, 12, 1, 100.0, {0x1.e9f99ea2b8193p-1, 0x1.079fd98c86c3ap-4, 0x1.e482d1b893a06p-1,
                               0x1.d8b71266ba374p-1, 0x1.decee250884b7p-1,
                               0x1.e8071d2d54c5ap-1, 0x1.f08be1b43a24p-1, 0x1.c403908p+7, 0x1.d8551b8p+7}},
    {0, 80, 66, 16, 0, 100.0, {0x1.d46a6225d8c34p-1, 0x1.40162a34a4852p-3, 0x1.c2326bcc57d1p-1,
                               0x1.d9e6636a82f4ep-1, 0x1.d8c38f69a035ap-1,
                               0x1.d65639e7b329dp-1, 0x1.d119cda136ab1p-1, 0x1.81061eap+7, 0x1.a4d95acp+7}},
    {0, 80, 66, 16, 1, 100.0, {0x1.d3b6a9cad823fp-1, 0x1.17edd4d859a8ap-3, 0x1.c6dd9a4a60dcep-1,
                               0x1.d7b720ccfb28dp-1, 0x1.d6660b2f9332bp-1,
                               0x1.d280bf98220dfp-1, 0x1.d3164d638dd99p-1, 0x1.963f174p+7, 0x1.bcb6788p+7}},
    {1, 64, 40, 16, 0, 100.0, {0x1.7187886140b21p-2, 0x1.27429206af129p+0, 0x1.a8fa808d08cfap-4,
                               0x1.d32cb6797a6b2p-2, 0x1.25cf90857e1ebp-2,
                               0x1.89cbb9d5d4484p-2, 0x1.85903f66ac244p-2, 0x1.a24216cp+5, 0x1.21c2091p+7}},
    {1, 64, 40, 16, 1, 100.0, {0x1.1ccd7d0e78d3dp-2, 0x1.1433ffbcd24bcp+0, 0x1.97fafc365f49ap-4,
                               0x1.bdbb0c10146ep-2, 0x1.f60e9f494d78bp-3,
                               0x1.d435312f43f1bp-4, 0x1.4a778d788f02p-2, 0x1.5bc21a4p+5, 0x1.3896b51p+7}},
    {0, 35, 33, 9, 0, 100.0, {0x1.cfa0548810654p-1, 0x1.fd898b9719279p-6, 0x1.dfda0415abcep-1,
                               0x1.dbcd6f656cbabp-1, 0x1.c182d31fb72dbp-1,
                               0x1.d555888c0a1d9p-1, 0x1.cec3984b3cae5p-1, 0x1.140ab8ap+7, 0x1.30d7edp+7}},
    {1, 33, 33, 8, 0, 100.0, {0x1.6260670c68cdcp-2, 0x1.4a3fc838a8651p+0, 0x1.cb0a314e39ccp-6,
                               0x1.93186e8fd5941p-2, 0x1.643a24eccc55ap-2,
                               0x1.5f4a29a0d0329p-2, 0x1.840f6fee8476ap-3, 0x1.5dda54fp+5, 0x1.f976d48p+6}},
    {0, 97, 45, 14, 0, 1.0, {0x1.cb37765017d4ep-1, 0x1.67dcc1bb6dfdfp-5, 0x1.da5cd51a307a8p-1,
                               0x1.d6b7e041385fep-1, 0x1.cbba5dfce93f8p-1,
                               0x1.c672d468a524ap-1, 0x1.cc01862fda33cp-1, 0x1.794169cp+7, 0x1.a49e3aap+7}},
    {0, 50, 300, 11, 0, 100.0, {0x1.dec3725dab445p-1, 0x1.94d4d61cf9f1ap-5, 0x1.e2bb127dedd2ap-1,
                               0x1.e24616edeb804p-1, 0x1.e0d2d53a72495p-1,
                               0x1.e6509273e42f6p-1, 0x1.d966e39819abep-1, 0x1.18d087p+8, 0x1.2c4f254p+8}},
};

// A plane over 16-bit words (or bytes for 8-bit content) copied from samples.
struct OwnedPlane {
  std::vector<uint8_t> mem;
  cpu::Plane plane;
};
OwnedPlane make_plane(const std::vector<uint16_t>& samples, unsigned w, unsigned h, unsigned bpc) {
  OwnedPlane p;
  const unsigned bytes = bpc > 8 ? 2 : 1;
  p.mem.resize(samples.size() * bytes);
  for (size_t i = 0; i < samples.size(); i++) {
    if (bytes == 1) {
      p.mem[i] = uint8_t(samples[i]);
    } else {
      p.mem[2 * i] = uint8_t(samples[i] & 0xff);
      p.mem[2 * i + 1] = uint8_t(samples[i] >> 8);
    }
  }
  p.plane.data = p.mem.data();
  p.plane.stride = ptrdiff_t(w) * bytes;
  p.plane.w = w;
  p.plane.h = h;
  p.plane.bytes = uint8_t(bytes);
  p.plane.bpc = uint8_t(bpc);
  return p;
}

TEST(CpuAdm, SyntheticDepthsMatchScratchLibvmafExactly) {
  for (const ExactCase& e : kExact) {
    SCOPED_TRACE("kind " + std::to_string(e.kind) + " " + std::to_string(e.w) + "x" + std::to_string(e.h) + " " +
                 std::to_string(e.bpc) + "-bit frame " + std::to_string(e.frame));
    std::vector<uint16_t> ref(size_t(e.w) * e.h), dist(ref.size());
    synth_frame(e.kind, e.w, e.h, e.bpc, e.frame, ref.data(), dist.data());
    const OwnedPlane r = make_plane(ref, e.w, e.h, e.bpc), d = make_plane(dist, e.w, e.h, e.bpc);
    cpu::AdmOptions opt;
    opt.enhn_gain_limit = e.gain_limit;
    cpu::Adm adm;
    ASSERT_TRUE(adm.init(e.w, e.h, e.bpc, opt).is_ok());
    cpu::AdmScores s;
    ASSERT_TRUE(adm.compute(r.plane, d.plane, &s).is_ok());
    const double ours[9] = {s.adm2, s.aim, s.adm3, s.scale[0], s.scale[1], s.scale[2], s.scale[3], s.num, s.den};
    const char* names[9] = {"adm2", "aim", "adm3", "scale0", "scale1", "scale2", "scale3", "num", "den"};
    for (int k = 0; k < 9; k++)
      EXPECT_EQ(ours[k], e.v[k]) << names[k] << ": ours " << ours[k] << ", libvmaf " << e.v[k];
  }
}

// ---------------------------------------------------------------------------------------------------------------

void expect_same_scores(const cpu::AdmScores& a, const cpu::AdmScores& b, const std::string& what) {
  EXPECT_EQ(a.adm2, b.adm2) << what;
  EXPECT_EQ(a.aim, b.aim) << what;
  EXPECT_EQ(a.adm3, b.adm3) << what;
  EXPECT_EQ(a.num, b.num) << what;
  EXPECT_EQ(a.den, b.den) << what;
  for (int k = 0; k < 4; k++) {
    EXPECT_EQ(a.scale[k], b.scale[k]) << what << " scale " << k;
    EXPECT_EQ(a.num_scale[k], b.num_scale[k]) << what << " scale " << k;
    EXPECT_EQ(a.den_scale[k], b.den_scale[k]) << what << " scale " << k;
  }
}

// A 10-bit pair (g2; pair b too when ../shared is there) rebuilt as P010 (NV12 layout, the 10-bit sample in the
// high bits of each word) and read through a PictureView: the shift is applied on the read and the scores equal the
// planar 10-bit ones.
void expect_p010_like_planar(const Pair& pair) {
  const Pair* p = &pair;
  test::PairClips c;
  ASSERT_OK(test::open_pair_clips(*p, &c));
  FormatInfo p010;
  ASSERT_TRUE(parse_pixel_format("p010", 10, &p010).is_ok());
  PlaneLayout layout[3];
  size_t frame_size = 0;
  const unsigned n_planes = packed_layout(p010, p->width, p->height, layout, &frame_size);
  ASSERT_GE(n_planes, 1u);

  auto to_p010 = [&](const PictureView& v, std::vector<uint8_t>* buf, PictureView* out) -> Status {
    buf->assign(frame_size, 0);
    for (uint32_t y = 0; y < v.height; y++) {
      const uint16_t* src = reinterpret_cast<const uint16_t*>(v.planes[0].data + ptrdiff_t(y) * v.planes[0].stride);
      uint16_t* dst = reinterpret_cast<uint16_t*>(buf->data() + layout[0].offset + ptrdiff_t(y) * layout[0].stride);
      for (uint32_t x = 0; x < v.width; x++) dst[x] = uint16_t(src[x] << 6);
    }
    return make_picture_view(p010, p->width, p->height, buf->data(), buf->size(), layout, n_planes, out);
  };

  cpu::Adm planar, words;
  ASSERT_TRUE(planar.init(p->width, p->height, 10, {}).is_ok());
  ASSERT_TRUE(words.init(p->width, p->height, 10, {}).is_ok());
  std::vector<uint8_t> rbuf, dbuf;
  for (size_t f = 0; f < c.ref.frames(); f++) {
    PictureView rv, dv;
    ASSERT_TRUE(to_p010(c.ref.frame(f), &rbuf, &rv).is_ok());
    ASSERT_TRUE(to_p010(c.dist.frame(f), &dbuf, &dv).is_ok());
    ASSERT_EQ(cpu::luma_plane(rv).shift, 6);
    cpu::AdmScores a, b;
    ASSERT_TRUE(planar.compute(cpu::luma_plane(c.ref.frame(f)), cpu::luma_plane(c.dist.frame(f)), &a).is_ok());
    ASSERT_TRUE(words.compute(cpu::luma_plane(rv), cpu::luma_plane(dv), &b).is_ok());
    expect_same_scores(a, b, "frame " + std::to_string(f));
  }
}

TEST(CpuAdm, P010WordsScoreLikePlanar10Bit) {
  for (const Pair& p : test::pairs_of_kind("g2_", "b_")) {
    SCOPED_TRACE(p.name());
    expect_p010_like_planar(p);
  }
}

// Rows far apart (padded stride) and samples two apart (interleaved with other data) are read in place (an odd-sized
// pair: g5, and c when ../shared is there).
TEST(CpuAdm, PaddedAndInterleavedRowsReadInPlace) {
  for (const Pair& pair : test::pairs_of_kind("g5_", "c_")) {
    SCOPED_TRACE(pair.name());
    const Pair* p = &pair;
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(*p, &c));
    const cpu::Plane r0 = cpu::luma_plane(c.ref.frame(5)), d0 = cpu::luma_plane(c.dist.frame(5));
    auto spread = [](const cpu::Plane& src, std::vector<uint8_t>* mem) {
      const ptrdiff_t stride = ptrdiff_t(src.w) * 2 + 37;
      mem->assign(size_t(stride) * src.h, 0xA5);
      for (uint32_t y = 0; y < src.h; y++)
        for (uint32_t x = 0; x < src.w; x++) (*mem)[size_t(y) * stride + 2 * x] = uint8_t(src.at(x, y));
      cpu::Plane p = src;
      p.data = mem->data();
      p.stride = stride;
      p.step = 2;
      return p;
    };
    std::vector<uint8_t> rm, dm;
    const cpu::Plane r1 = spread(r0, &rm), d1 = spread(d0, &dm);
    cpu::Adm adm;
    ASSERT_TRUE(adm.init(p->width, p->height, 8, {}).is_ok());
    cpu::AdmScores a, b;
    ASSERT_TRUE(adm.compute(r0, d0, &a).is_ok());
    ASSERT_TRUE(adm.compute(r1, d1, &b).is_ok());
    expect_same_scores(a, b, "step 2, padded stride");
  }
}

// The stage functions, composed by hand the way a GPU port schedules them, give compute()'s scores exactly.
cpu::AdmScores run_stages(const cpu::Plane& ref, const cpu::Plane& dist, const cpu::AdmOptions& opt) {
  int sw[4], sh[4];
  int cw = int(ref.w), ch = int(ref.h);
  for (int s = 0; s < 4; s++) {
    cw = (cw + 1) / 2;
    ch = (ch + 1) / 2;
    sw[s] = cw;
    sh[s] = ch;
  }
  float num[4] = {}, den[4] = {}, aim[4] = {};
  float rf[4][3];
  for (int s = 0; s < 4; s++) cpu::adm_csf_factors(s, opt, rf[s]);

  // Scale 0 on int16 bands with a stride wider than the band, to catch stride mix-ups.
  const int st0 = sw[0] + 3;
  const size_t n0 = size_t(st0) * sh[0];
  std::vector<int16_t> m16(n0 * 20, 0);
  auto b16 = [&](int k) {
    int16_t* q = m16.data() + n0 * 4 * k;
    return cpu::AdmBands<int16_t>(q, q + n0, q + 2 * n0, q + 3 * n0, st0);
  };
  cpu::AdmBands<int16_t> rb = b16(0), db = b16(1), r = b16(2), a = b16(3), csf = b16(4);
  std::vector<int16_t> fm(n0 * 3), tmp16(2 * size_t(ref.w));
  cpu::AdmBands<int16_t> flt(nullptr, fm.data(), fm.data() + n0, fm.data() + 2 * n0, st0);
  cpu::adm_dwt_scale0(ref, rb, tmp16.data());
  cpu::adm_dwt_scale0(dist, db, tmp16.data());
  uint16_t fx0[3];
  cpu::adm_fixed_factors_scale0(rf[0], opt, fx0);
  cpu::adm_decouple_scale0(rb, db, sw[0], sh[0], opt.enhn_gain_limit, r, a);
  den[0] = cpu::adm_den_finish(cpu::adm_den_sums_scale0(rb, sw[0], sh[0]), sw[0], sh[0], 0, rf[0], opt.noise_weight);
  cpu::adm_csf_scale0(a, sw[0], sh[0], fx0, csf, flt);
  num[0] = cpu::adm_cm_finish(cpu::adm_cm_sums_scale0(r, csf, flt, sw[0], sh[0], fx0), sw[0], sh[0], 0,
                              opt.noise_weight);
  cpu::adm_csf_scale0(r, sw[0], sh[0], fx0, csf, flt);
  aim[0] = cpu::adm_cm_finish(cpu::adm_cm_sums_scale0(a, csf, flt, sw[0], sh[0], fx0), sw[0], sh[0], 0, 0.0);

  // Scales 1..3: fresh int32 buffers per scale, band a handed on.
  std::vector<int32_t> prev_r, prev_d;
  for (int s = 1; s < 4; s++) {
    const int w = sw[s], h = sh[s];
    const size_t n = size_t(w) * h;
    std::vector<int32_t> m(n * 20, 0), tmp(2 * size_t(sw[s - 1]));
    auto b32 = [&](int k) {
      int32_t* q = m.data() + n * 4 * k;
      return cpu::AdmBands<int32_t>(q, q + n, q + 2 * n, q + 3 * n, w);
    };
    cpu::AdmBands<int32_t> rb3 = b32(0), db3 = b32(1), r3 = b32(2), a3 = b32(3), c3 = b32(4);
    std::vector<int32_t> f3m(n * 3);
    cpu::AdmBands<int32_t> f3(nullptr, f3m.data(), f3m.data() + n, f3m.data() + 2 * n, w);
    if (s == 1) {
      cpu::adm_dwt_scale123(rb.a, rb.stride, sw[0], sh[0], 1, rb3, tmp.data());
      cpu::adm_dwt_scale123(db.a, db.stride, sw[0], sh[0], 1, db3, tmp.data());
    } else {
      cpu::adm_dwt_scale123(prev_r.data(), sw[s - 1], sw[s - 1], sh[s - 1], s, rb3, tmp.data());
      cpu::adm_dwt_scale123(prev_d.data(), sw[s - 1], sw[s - 1], sh[s - 1], s, db3, tmp.data());
    }
    uint32_t fx[3];
    cpu::adm_fixed_factors_scale123(rf[s], fx);
    cpu::adm_decouple_scale123(rb3, db3, w, h, opt.enhn_gain_limit, r3, a3);
    den[s] = cpu::adm_den_finish(cpu::adm_den_sums_scale123(rb3, w, h, s), w, h, s, rf[s], opt.noise_weight);
    cpu::adm_csf_scale123(a3, w, h, fx, c3, f3);
    num[s] = cpu::adm_cm_finish(cpu::adm_cm_sums_scale123(r3, c3, f3, w, h, fx), w, h, s, opt.noise_weight);
    cpu::adm_csf_scale123(r3, w, h, fx, c3, f3);
    aim[s] = cpu::adm_cm_finish(cpu::adm_cm_sums_scale123(a3, c3, f3, w, h, fx), w, h, s, 0.0);
    prev_r.assign(rb3.a, rb3.a + n);
    prev_d.assign(db3.a, db3.a + n);
  }
  return cpu::adm_combine(num, den, aim, ref.w, ref.h, opt);
}

TEST(CpuAdm, StagesComposeToCompute) {
  for (const Pair& p : test::pairs_of_kind("g5_", "c_")) {  // odd sizes
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(p, &c));
    for (double gain : {100.0, 1.0}) {
      cpu::AdmOptions opt;
      opt.enhn_gain_limit = gain;
      cpu::Adm adm;
      ASSERT_TRUE(adm.init(p.width, p.height, 8, opt).is_ok());
      for (size_t f : {size_t(0), size_t(7)}) {
        const cpu::Plane r = cpu::luma_plane(c.ref.frame(f)), d = cpu::luma_plane(c.dist.frame(f));
        cpu::AdmScores a;
        ASSERT_TRUE(adm.compute(r, d, &a).is_ok());
        expect_same_scores(a, run_stages(r, d, opt),
                           p.name() + " frame " + std::to_string(f) + " gain " + std::to_string(gain));
      }
    }
  }
  // 16-bit extremes: the wide sums of every stage.
  std::vector<uint16_t> ref(64 * 40), dist(ref.size());
  synth_frame(1, 64, 40, 16, 0, ref.data(), dist.data());
  const OwnedPlane r = make_plane(ref, 64, 40, 16), d = make_plane(dist, 64, 40, 16);
  cpu::Adm adm;
  ASSERT_TRUE(adm.init(64, 40, 16, {}).is_ok());
  cpu::AdmScores a;
  ASSERT_TRUE(adm.compute(r.plane, d.plane, &a).is_ok());
  expect_same_scores(a, run_stages(r.plane, d.plane, {}), "16-bit extremes");
}

TEST(CpuAdm, DwtTapsReflectLikeLibvmaf) {
  // Output 0 reads 1, 0, 1, 2; the last output of an odd length n reads n - 2, n - 1, n - 1, n - 2.
  EXPECT_EQ(cpu::adm_dwt_tap(0, 0, 9), 1);
  EXPECT_EQ(cpu::adm_dwt_tap(0, 1, 9), 0);
  EXPECT_EQ(cpu::adm_dwt_tap(0, 2, 9), 1);
  EXPECT_EQ(cpu::adm_dwt_tap(0, 3, 9), 2);
  EXPECT_EQ(cpu::adm_dwt_tap(4, 0, 9), 7);
  EXPECT_EQ(cpu::adm_dwt_tap(4, 1, 9), 8);
  EXPECT_EQ(cpu::adm_dwt_tap(4, 2, 9), 8);
  EXPECT_EQ(cpu::adm_dwt_tap(4, 3, 9), 7);
  // Even length: the last output reads n - 3, n - 2, n - 1, n - 1.
  EXPECT_EQ(cpu::adm_dwt_tap(4, 0, 10), 7);
  EXPECT_EQ(cpu::adm_dwt_tap(4, 3, 10), 9);
  // Score and tap rectangles of a 960x540 band (1080p scale 0): 10 % borders, the tap one grown by 1 and 3.
  const cpu::AdmRect s = cpu::adm_score_rect(960, 540), t = cpu::adm_tap_rect(960, 540);
  EXPECT_EQ(s.left, 95);
  EXPECT_EQ(s.right, 865);
  EXPECT_EQ(s.top, 53);
  EXPECT_EQ(s.bottom, 487);
  EXPECT_EQ(t.left, 94);
  EXPECT_EQ(t.right, 868);
  EXPECT_EQ(t.top, 52);
  EXPECT_EQ(t.bottom, 490);
}

// ---------------------------------------------------------------------------------------------------------------

// Pictures of 17..32 samples on an axis (see cpu::adm_small_axis): libvmaf reads one element before its buffers at
// scale 3; against tests/data/small_sizes.json, libvmaf on crops of the sample pair's luma run with
// MALLOC_PERTURB_=255 (its allocations zero-initialised, the one deterministic state of that read), full precision.
// Sizes with one small axis and 33..300 on the other, the default options, adm_skip_scale0, adm_skip_aim (whose
// masking input lands in the buffer libvmaf reads) and the v1 options.
const std::pair<int, int> kSmallSizes[] = {{17, 17}, {24, 24}, {32, 32}, {17, 40}, {40, 17},
                                           {20, 200}, {200, 20}, {33, 20}, {31, 33}, {300, 18}};

TEST(CpuAdm, SmallPicturesMatchLibvmafOnZeroedMemory) {
  test::PairClips c;
  ASSERT_OK(test::open_sample_pair(&c));
  test::Oracle o;
  ASSERT_OK(test::load_oracle(test::project_data_dir() + "/small_sizes.json", &o));
  struct Variant {
    const char* prefix;
    const char* suffix;
    cpu::AdmOptions opt;
  };
  std::vector<Variant> variants(4);
  variants[0] = {"", "", {}};
  variants[1] = {"", "_ssz", {}};
  variants[1].opt.skip_scale0 = true;
  variants[2] = {"", "_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02", {}};
  variants[2].opt.csf_mode = cpu::kAdmCsfBlend;
  variants[2].opt.dlm_weight = 0.7;
  variants[2].opt.enhn_gain_limit = 1.0;
  variants[2].opt.min_val = 0.5;
  variants[2].opt.noise_weight = 0.02;
  variants[3] = {"skip_aim/", "", {}};
  variants[3].opt.skip_aim = true;
  size_t first = 0;
  for (const auto& [w, h] : kSmallSizes) {
    const std::string tag = std::to_string(w) + "x" + std::to_string(h);
    SCOPED_TRACE(tag);
    for (const Variant& v : variants) {
      SCOPED_TRACE(std::string(v.prefix) + "integer_adm" + v.suffix);
      cpu::Adm adm;
      ASSERT_OK(adm.init(uint32_t(w), uint32_t(h), 8, v.opt));
      for (size_t f = 0; f < 3; f++) {
        // The crop at (7, 5) of the 320x240 luma, read in place.
        cpu::Plane r = cpu::luma_plane(c.ref.frame(f)), d = cpu::luma_plane(c.dist.frame(f));
        for (cpu::Plane* p : {&r, &d}) {
          p->data += 5 * p->stride + 7;
          p->w = uint32_t(w);
          p->h = uint32_t(h);
        }
        cpu::AdmScores s;
        ASSERT_OK(adm.compute(r, d, &s));
        ASSERT_LT(first + f, o.frames.size());
        const auto& m = o.frames[first + f];
        for (int k = 0; k < 7; k++) {
          const std::string name = tag + "/" + v.prefix + kOutputs[k] + v.suffix;
          const auto it = m.find(name);
          ASSERT_NE(it, m.end()) << name;
          EXPECT_EQ(output(s, k), it->second) << name << " frame " << f;
        }
      }
    }
    first += 3;
  }
  EXPECT_EQ(first, o.frames.size());
}

TEST(CpuAdm, CheckSizeRefusesTooSmallPictures) {
  // libvmaf crashes below 17 on either axis (a 16x16, 16x200 or 200x16 clip segfaults the scratch libvmaf).
  const std::vector<std::pair<uint32_t, uint32_t>> sizes = {{16, 17}, {17, 16}, {0, 0}, {1, 1}, {16, 1080}};
  for (const auto& [w, h] : sizes) {
    const Status s = cpu::Adm::check_size(w, h);
    EXPECT_FALSE(s.is_ok()) << w << "x" << h;
    EXPECT_EQ(s.code(), Errc::unsupported) << w << "x" << h;
    EXPECT_NE(s.message().find("17x17"), std::string::npos) << s.message();
    cpu::Adm adm;
    EXPECT_FALSE(adm.init(w, h, 8, {}).is_ok()) << w << "x" << h;
  }
  EXPECT_TRUE(cpu::Adm::check_size(17, 17).is_ok());
  EXPECT_TRUE(cpu::Adm::check_size(1920, 1080).is_ok());
  EXPECT_TRUE(cpu::Adm::check_size(32768, 17).is_ok());
  EXPECT_FALSE(cpu::Adm::check_size(32769, 64).is_ok());
  EXPECT_FALSE(cpu::Adm::check_size(64, 40000).is_ok());
}

TEST(CpuAdm, InitRefusesOptionsLibvmafRefuses) {
  cpu::Adm adm;
  EXPECT_EQ(adm.init(64, 64, 7, {}).code(), Errc::unsupported);
  EXPECT_EQ(adm.init(64, 64, 17, {}).code(), Errc::unsupported);
  cpu::AdmOptions o;
  o.enhn_gain_limit = 0.5;
  EXPECT_EQ(adm.init(64, 64, 8, o).code(), Errc::invalid_argument);
  o = {};
  o.enhn_gain_limit = 101;
  EXPECT_EQ(adm.init(64, 64, 8, o).code(), Errc::invalid_argument);
  o = {};
  o.noise_weight = -1;
  EXPECT_EQ(adm.init(64, 64, 8, o).code(), Errc::invalid_argument);
  o = {};
  o.norm_view_dist = 1.0;  // 1 x 1080 < 3 x 1080: libvmaf's extract returns -EINVAL
  EXPECT_EQ(adm.init(64, 64, 8, o).code(), Errc::unsupported);
  o = {};
  o.norm_view_dist = 1.5;
  o.ref_display_height = 2160;
  EXPECT_TRUE(adm.init(64, 64, 8, o).is_ok());
  o = {};
  o.csf_mode = 4;
  EXPECT_EQ(adm.init(64, 64, 8, o).code(), Errc::invalid_argument);
  o.csf_mode = -1;
  EXPECT_EQ(adm.init(64, 64, 8, o).code(), Errc::invalid_argument);
  o = {};
  o.csf_scale = 51;
  EXPECT_EQ(adm.init(64, 64, 8, o).code(), Errc::invalid_argument);
  o = {};
  o.csf_diag_scale = -0.1;
  EXPECT_EQ(adm.init(64, 64, 8, o).code(), Errc::invalid_argument);
  // Blend modes: libvmaf has tables for a few displays only (elsewhere it would compute with -22 as the factor).
  for (int mode : {cpu::kAdmCsfBlend, cpu::kAdmCsfBlendMae}) {
    o = {};
    o.csf_mode = mode;
    o.norm_view_dist = 4.0;
    const Status st = adm.init(64, 64, 8, o);
    EXPECT_EQ(st.code(), Errc::unsupported) << mode;
    EXPECT_NE(st.message().find("tables"), std::string::npos) << st.message();
    o.norm_view_dist = 5.0;
    EXPECT_TRUE(adm.init(64, 64, 8, o).is_ok()) << mode;
    o.ref_display_height = 2160;
    o.norm_view_dist = 1.5;
    EXPECT_TRUE(adm.init(64, 64, 8, o).is_ok()) << mode;
  }
  // Barten at its default scales overflows libvmaf's fixed-point factors; small scales fit.
  o = {};
  o.csf_mode = cpu::kAdmCsfBarten;
  const Status st = adm.init(64, 64, 8, o);
  EXPECT_EQ(st.code(), Errc::unsupported);
  EXPECT_NE(st.message().find("adm_csf_scale"), std::string::npos) << st.message();
  o.csf_scale = 0.02;
  o.csf_diag_scale = 0.005;
  EXPECT_TRUE(adm.init(64, 64, 8, o).is_ok());
  o.csf_diag_scale = 0.01;  // d at scale 0: 1.21 * 0.01 * 2^23 > 2^16
  EXPECT_EQ(adm.init(64, 64, 8, o).code(), Errc::unsupported);
}

TEST(CpuAdm, ComputeRefusesPlanesThatDoNotFit) {
  std::vector<uint16_t> ref(64 * 40), dist(ref.size());
  synth_frame(0, 64, 40, 10, 0, ref.data(), dist.data());
  const OwnedPlane r = make_plane(ref, 64, 40, 10), d = make_plane(dist, 64, 40, 10);
  cpu::AdmScores s;
  cpu::Adm adm;
  EXPECT_EQ(adm.compute(r.plane, d.plane, &s).code(), Errc::invalid_argument);  // before init
  ASSERT_TRUE(adm.init(64, 40, 10, {}).is_ok());
  EXPECT_TRUE(adm.compute(r.plane, d.plane, &s).is_ok());
  cpu::Plane bad = d.plane;
  bad.w = 62;
  EXPECT_EQ(adm.compute(r.plane, bad, &s).code(), Errc::unsupported);
  bad = d.plane;
  bad.bpc = 12;
  EXPECT_EQ(adm.compute(r.plane, bad, &s).code(), Errc::unsupported);
  bad = d.plane;
  bad.data = nullptr;
  EXPECT_EQ(adm.compute(r.plane, bad, &s).code(), Errc::invalid_argument);
  bad = d.plane;
  bad.stride = 64;  // holds 32 words, not 64
  EXPECT_EQ(adm.compute(bad, d.plane, &s).code(), Errc::invalid_argument);
  bad = d.plane;
  bad.shift = 7;  // 10 + 7 bits do not fit a word
  EXPECT_EQ(adm.compute(r.plane, bad, &s).code(), Errc::unsupported);
  EXPECT_EQ(adm.compute(r.plane, d.plane, nullptr).code(), Errc::invalid_argument);
}

}  // namespace
}  // namespace vmafx
