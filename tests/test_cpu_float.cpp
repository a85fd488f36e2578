// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU references of libvmaf's float features (float_vif, float_adm, float_motion) against libvmaf 3.2 itself
// (tests/data/float/README.md says how every file was made):
//   * bit for bit against libvmaf's C path in its portable form (the division of float_adm's decouple exact, as on
//     every non-x86 build; printed with %.17g): every output of every frame of every public pair, and 15 option
//     sets on pair c;
//   * within libvmaf's printed precision (1e-6) against the x86 CLI's JSON of the float models (vmaf_float_v0.6.1,
//     neg, 4k, b) and of the option sets: the measured maxima are printed;
//   * float motion's temporal outputs on 1-, 2- and 3-frame streams; option and size checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "assert_ok.h"
#include "cpu/float_adm.h"
#include "cpu/float_motion.h"
#include "cpu/float_picture.h"
#include "cpu/float_vif.h"
#include "cpu/plane.h"
#include "support.h"
#include "vmafx/scorer.h"

namespace vmafx {
namespace {

using test::Pair;

#define EXPECT_OK(expr)                                          \
  do {                                                           \
    ::vmafx::Status s_ = (expr);                                 \
    EXPECT_TRUE(s_.is_ok()) << #expr << ": " << s_.to_string(); \
  } while (0)

// libvmaf prints 6 decimals: our value is within 5e-7 of the printed one when it equals libvmaf's; libvmaf's x86
// float_adm divides through an approximate reciprocal (measured: up to 2e-7 from the exact division on these
// clips), so 1e-6 is the printed precision with that margin. The debug sums (adm_num, vif_den, ...) are floats of
// magnitude 10 .. 10^6, where the reciprocal moves the last bits (measured: 2 float ulps, 1.5e-7 relative): there
// the limit is 1e-6 relative.
constexpr double kPrintedTol = 1e-6;
double printed_tol(double want) { return kPrintedTol * std::max(1.0, std::fabs(want)); }

std::string data_file(const std::string& name) { return test::project_data_dir() + "/float/" + name; }
// A pair's libvmaf JSON of `what` ("vmaf_float_v0.6.1", "float_options"): tests/data/generated for a generated
// pair, tests/data/float for a public one.
std::string oracle_file(const Pair& p, const std::string& what) {
  return p.generated ? p.oracle_path(what) : data_file(p.name() + "." + what + ".json");
}
bool has_float_oracle(const Pair& p, const std::string& what) {
  return p.generated ? test::has_oracle(p, what) : test::file_exists(oracle_file(p, what));
}

// ---- computing a clip pair --------------------------------------------------------------------------------------

struct FrameValues {
  cpu::FloatVifScores vif;
  cpu::FloatAdmScores adm;
  cpu::FloatMotionOut motion{};
};

struct Options {
  cpu::FloatVifOptions vif;
  cpu::FloatAdmOptions adm;
  cpu::FloatMotionOptions motion;
};

::testing::AssertionResult score_pair(const test::PairClips& c, const Options& o, size_t frames,
                                      std::vector<FrameValues>* out) {
  const PictureView first = c.ref.frame(0);
  cpu::FloatVif vif;
  cpu::FloatAdm adm;
  cpu::FloatMotion motion;
  Status s = vif.init(first.width, first.height, first.bit_depth, o.vif);
  if (s) s = adm.init(first.width, first.height, first.bit_depth, o.adm);
  if (s) s = motion.init(first.width, first.height, first.bit_depth, first.chroma, o.motion);
  if (!s) return ::testing::AssertionFailure() << s.to_string();
  const size_t n = std::min(frames, c.ref.frames());
  out->assign(n, FrameValues{});
  std::vector<cpu::FloatMotionOut> ready;
  for (size_t i = 0; i < n; i++) {
    const PictureView rv = c.ref.frame(i), dv = c.dist.frame(i);
    const cpu::Plane ref = cpu::luma_plane(rv), dist = cpu::luma_plane(dv);
    s = vif.compute(ref, dist, &(*out)[i].vif);
    if (s) s = adm.compute(ref, dist, &(*out)[i].adm);
    const cpu::Plane u = cpu::chroma_plane(rv, 1), v = cpu::chroma_plane(rv, 2);
    const cpu::Plane* uv[2] = {&u, &v};
    if (s) s = motion.compute(i, ref, uv, &ready);
    if (!s) return ::testing::AssertionFailure() << "frame " << i << ": " << s.to_string();
  }
  motion.finish(&ready);
  if (ready.size() != n) return ::testing::AssertionFailure() << "motion gave " << ready.size() << " frames of " << n;
  for (size_t i = 0; i < n; i++) {
    if (ready[i].index != i) return ::testing::AssertionFailure() << "motion frame " << i << " out of order";
    (*out)[i].motion = ready[i];
  }
  return ::testing::AssertionSuccess();
}

// Our values under libvmaf's (aliased) output names, each name followed by `suffix` (libvmaf's option suffix).
void add_vif(const cpu::FloatVifScores& v, const std::string& sfx, std::map<std::string, double>* m) {
  for (int s = 0; s < 4; s++) {
    const std::string k = std::to_string(s);
    (*m)["vif_scale" + k + sfx] = v.scale[s];
    (*m)["vif_num_scale" + k + sfx] = v.num_scale[s];
    (*m)["vif_den_scale" + k + sfx] = v.den_scale[s];
  }
  (*m)["vif" + sfx] = v.vif;
  (*m)["vif_num" + sfx] = v.num;
  (*m)["vif_den" + sfx] = v.den;
}
void add_adm(const cpu::FloatAdmScores& a, const std::string& sfx, std::map<std::string, double>* m) {
  (*m)["adm2" + sfx] = a.adm2;
  (*m)["aim" + sfx] = a.aim;
  (*m)["adm3" + sfx] = a.adm3;
  (*m)["adm" + sfx] = a.adm;
  (*m)["adm_num" + sfx] = a.num;
  (*m)["adm_den" + sfx] = a.den;
  for (int s = 0; s < 4; s++) {
    const std::string k = std::to_string(s);
    (*m)["adm_scale" + k + sfx] = a.scale[s];
    (*m)["adm_num_scale" + k + sfx] = a.num_scale[s];
    (*m)["adm_den_scale" + k + sfx] = a.den_scale[s];
  }
}
void add_motion(const cpu::FloatMotionOut& o, const std::string& sfx, std::map<std::string, double>* m) {
  (*m)["motion" + sfx] = o.motion;
  (*m)["motion2" + sfx] = o.motion2;
  (*m)["motion3" + sfx] = o.motion3;
}

// The feature an output name belongs to (for the maxima table).
std::string feature_of(const std::string& key) {
  if (key.rfind("vif", 0) == 0) return "float_vif";
  if (key.rfind("adm", 0) == 0 || key.rfind("aim", 0) == 0) return "float_adm";
  if (key.rfind("motion", 0) == 0) return "float_motion";
  return "";
}

// Every pair's frames with default options and with the neg models' gain limits, computed once per process.
const std::vector<FrameValues>& pair_values(const Pair& p, bool egl1) {
  static std::map<std::string, std::vector<FrameValues>> cache;
  const std::string key = p.name() + (egl1 ? "/egl1" : "");
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  std::vector<FrameValues>& v = cache[key];
  test::PairClips c;
  Status s = test::open_pair_clips(p, &c);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  if (!s) return v;
  Options o;
  if (egl1) {
    o.vif.enhn_gain_limit = 1.0;
    o.adm.enhn_gain_limit = 1.0;
  }
  EXPECT_TRUE(score_pair(c, o, c.ref.frames(), &v)) << p.name();
  return v;
}

// Compares the oracle's entries that we produce; returns how many were compared. exact: EXPECT_EQ, else within
// printed_tol (the maxima per output name go to *max_diff).
size_t compare_frames(const test::Oracle& o, const std::vector<std::map<std::string, double>>& ours, bool exact,
                      std::map<std::string, double>* max_diff, const std::string& what) {
  size_t compared = 0, failures = 0;
  EXPECT_EQ(o.frames.size(), ours.size()) << what;
  for (size_t i = 0; i < std::min(o.frames.size(), ours.size()); i++) {
    EXPECT_EQ(o.frame_num[i], i) << what;
    for (const auto& [name, want] : o.frames[i]) {
      auto it = ours[i].find(name);
      if (it == ours[i].end()) continue;
      const double got = it->second;
      compared++;
      const double d = std::fabs(got - want);
      if (max_diff) (*max_diff)[name] = std::max((*max_diff)[name], d);
      const bool ok = exact ? got == want : d <= printed_tol(want);
      if (!ok && ++failures <= 10)
        ADD_FAILURE() << what << " frame " << i << " " << name << ": ours " << got << " libvmaf " << want
                      << " (diff " << d << ")";
    }
  }
  EXPECT_EQ(failures, 0u) << what;
  return compared;
}

std::vector<std::map<std::string, double>> named(const std::vector<FrameValues>& v, const std::string& vif_sfx,
                                                 const std::string& adm_sfx, const std::string& motion_sfx) {
  std::vector<std::map<std::string, double>> out(v.size());
  for (size_t i = 0; i < v.size(); i++) {
    add_vif(v[i].vif, vif_sfx, &out[i]);
    add_adm(v[i].adm, adm_sfx, &out[i]);
    add_motion(v[i].motion, motion_sfx, &out[i]);
  }
  return out;
}

void print_maxima(const char* title, const std::map<std::string, double>& max_diff) {
  std::printf("%s\n", title);
  std::map<std::string, std::pair<std::string, double>> per_feature;
  for (const auto& [name, d] : max_diff) {
    std::printf("  %-40s max |ours - libvmaf| = %.3g\n", name.c_str(), d);
    auto& f = per_feature[feature_of(name)];
    if (d >= f.second) f = {name, d};
  }
  for (const auto& [feat, v] : per_feature)
    std::printf("  => %-14s maximum %.3g (%s)\n", feat.c_str(), v.second, v.first.c_str());
}

// ---- bit for bit with libvmaf's portable C path ----------------------------------------------------------------

// The %.17g oracle of a libvmaf build with an exact division exists for the public pairs only (tests/data/float); the
// generated pairs are checked at the printed precision below.
TEST(CpuFloat, FeaturesEqualLibvmafCPathBitForBit) {
  std::vector<std::string> absent, checked;
  const std::vector<Pair> pairs = test::present_pairs(&absent);
  if (pairs.empty())
    GTEST_SKIP() << "the bit-exact float oracles are of the public pairs, and ../shared/testdata is absent (the "
                    "generated pairs: FeaturesMatchFloatModelOraclesToPrintedPrecision)";
  size_t compared = 0;
  for (const Pair& p : pairs) {
    SCOPED_TRACE(p.name());
    test::Oracle o;
    ASSERT_OK(test::load_oracle(data_file(p.prefix + "_" + p.distorted + ".float_features.exact.json"), &o));
    const auto& v = pair_values(p, false);
    ASSERT_EQ(v.size(), o.frames.size());
    compared += compare_frames(o, named(v, "", "", ""), true, nullptr, p.name());
    checked.push_back(p.name());
  }
  // 15 vif + 18 adm + 3 motion outputs per frame, 140 frames over the five pairs.
  std::printf("%zu values equal to libvmaf's bit for bit\n", compared);
  EXPECT_GT(compared, 0u);
  test::print_pair_coverage(checked, absent);
}

// ---- the float models' JSON of the x86 CLI ---------------------------------------------------------------------

const char* const kFloatModels[] = {"vmaf_float_v0.6.1", "vmaf_float_v0.6.1neg", "vmaf_float_4k_v0.6.1",
                                    "vmaf_float_b_v0.6.3"};

TEST(CpuFloat, FeaturesMatchFloatModelOraclesToPrintedPrecision) {
  std::vector<std::string> absent, checked;
  const std::vector<Pair> pairs = test::oracle_pairs();
  test::present_pairs(&absent);
  std::map<std::string, double> max_diff;
  size_t compared = 0, generated_files = 0;
  for (const Pair& p : pairs) {
    for (const char* model : kFloatModels) {
      if (!has_float_oracle(p, model)) continue;
      generated_files += p.generated;
      SCOPED_TRACE(p.name() + " " + model);
      test::Oracle o;
      ASSERT_OK(test::load_oracle(oracle_file(p, model), &o));
      const bool neg = std::string(model).find("neg") != std::string::npos;
      const auto& v = pair_values(p, neg);
      const std::string sfx = neg ? "_egl_1" : "";
      const size_t n = compare_frames(o, named(v, sfx, sfx, ""), false, &max_diff,
                                      p.name() + " " + model);
      EXPECT_GT(n, 0u);
      compared += n;
    }
    checked.push_back(p.name());
  }
  EXPECT_EQ(generated_files, 5u) << "g1's four float models, g2's vmaf_float_v0.6.1";
  std::printf("%zu values compared\n", compared);
  print_maxima("float features against the float models' JSON (libvmaf x86 CLI, --cpumask 255):", max_diff);
  test::print_pair_coverage(checked, absent);
}

// ---- options ---------------------------------------------------------------------------------------------------

// The option sets of c_321x241_8b_blurnoise.float_options[.exact].json, with libvmaf's name suffix of each.
struct OptionSet {
  const char* feature;  // "vif", "adm", "motion"
  const char* suffix;
  Options opts;
};

std::vector<OptionSet> option_sets() {
  std::vector<OptionSet> v;
  auto vif = [&](const char* sfx, auto f) {
    Options o;
    f(o.vif);
    v.push_back({"vif", sfx, o});
  };
  auto adm = [&](const char* sfx, auto f) {
    Options o;
    f(o.adm);
    v.push_back({"adm", sfx, o});
  };
  auto motion = [&](const char* sfx, auto f) {
    Options o;
    f(o.motion);
    v.push_back({"motion", sfx, o});
  };
  vif("", [](cpu::FloatVifOptions&) {});
  vif("_egl_1_ks_1.5_s1miv_0.999_snsq_1_ssclz", [](cpu::FloatVifOptions& o) {
    o.kernelscale = 1.5;
    o.enhn_gain_limit = 1;
    o.sigma_nsq = 1;
    o.scale_min_val[0] = 0.999;
    o.skip_scale0 = true;
  });
  vif("_ks_3.71134_ps_0.7", [](cpu::FloatVifOptions& o) {
    o.prescale = 0.7;
    o.kernelscale = 3.7113402;
  });
  vif("_ks_0.5_ps_1.3_pm_bilinear", [](cpu::FloatVifOptions& o) {
    o.prescale = 1.3;
    o.prescale_method = cpu::VifScaleMethod::bilinear;
    o.kernelscale = 0.5;
  });
  vif("_ps_0.7_pm_bicubic", [](cpu::FloatVifOptions& o) {
    o.prescale = 0.7;
    o.prescale_method = cpu::VifScaleMethod::bicubic;
  });
  vif("_ps_1.3_pm_lanczos4_s2miv_0.99_s3miv_0.995", [](cpu::FloatVifOptions& o) {
    o.prescale = 1.3;
    o.prescale_method = cpu::VifScaleMethod::lanczos4;
    o.scale_min_val[1] = 0.99;
    o.scale_min_val[2] = 0.995;
  });
  adm("", [](cpu::FloatAdmOptions&) {});
  adm("_scfd_0.5_csf_1_scf_2_egl_1", [](cpu::FloatAdmOptions& o) {
    o.csf_mode = 1;
    o.csf_scale = 2;
    o.csf_diag_scale = 0.5;
    o.enhn_gain_limit = 1;
  });
  adm("_csf_2_nvd_5_apn_2.5_rdf_2160", [](cpu::FloatAdmOptions& o) {
    o.csf_mode = 2;
    o.norm_view_dist = 5;
    o.ref_display_height = 2160;
    o.p_norm = 2.5;
  });
  adm("_aah_bcm_1_csf_5_dlmw_0.7_f1s0_0.5_f2s3_2_min_0.95_nw_0_sasc_2_ssz", [](cpu::FloatAdmOptions& o) {
    o.csf_mode = 5;
    o.bypass_cm = 1;
    o.adm3_apply_hm = true;
    o.f1[0] = 0.5;
    o.f2[3] = 2;
    o.skip_aim_scale = 2;
    o.skip_scale0 = true;
    o.noise_weight = 0;
    o.dlm_weight = 0.7;
    o.min_val = 0.95;
  });
  motion("", [](cpu::FloatMotionOptions&) {});
  motion("_mbf_0.3_mbo_2_mfs_3_mfw_2.5_mmxv_9", [](cpu::FloatMotionOptions& o) {
    o.filter_size = 3;
    o.fps_weight = 2.5;
    o.blend_factor = 0.3;
    o.blend_offset = 2;
    o.max_val = 9;
  });
  motion("_mdc_mfs_1", [](cpu::FloatMotionOptions& o) {
    o.filter_size = 1;
    o.add_scale1 = true;
  });
  motion("_mau_mfs_0", [](cpu::FloatMotionOptions& o) {
    o.add_uv = true;
    o.filter_size = 0;
  });
  motion("_force_0", [](cpu::FloatMotionOptions& o) { o.force_zero = true; });
  return v;
}

// The 15 option sets on an odd-sized pair: g5 against libvmaf's x86 JSON; pair c, when there, also against the
// bit-exact oracle.
void expect_options_match(const Pair& p) {
  test::PairClips c;
  ASSERT_OK(test::open_pair_clips(p, &c));
  const bool have_exact = !p.generated;
  test::Oracle exact, printed;
  if (have_exact) ASSERT_OK(test::load_oracle(oracle_file(p, "float_options.exact"), &exact));
  ASSERT_OK(test::load_oracle(oracle_file(p, "float_options"), &printed));
  std::map<std::string, double> max_diff;
  size_t n_exact = 0, n_printed = 0;
  for (const OptionSet& set : option_sets()) {
    SCOPED_TRACE(std::string(set.feature) + set.suffix);
    std::vector<FrameValues> v;
    ASSERT_TRUE(score_pair(c, set.opts, c.ref.frames(), &v));
    std::vector<std::map<std::string, double>> ours(v.size());
    for (size_t i = 0; i < v.size(); i++) {
      if (std::string(set.feature) == "vif") add_vif(v[i].vif, set.suffix, &ours[i]);
      if (std::string(set.feature) == "adm") add_adm(v[i].adm, set.suffix, &ours[i]);
      if (std::string(set.feature) == "motion") add_motion(v[i].motion, set.suffix, &ours[i]);
    }
    const std::string what = std::string(set.feature) + set.suffix;
    if (have_exact) {
      const size_t a = compare_frames(exact, ours, true, nullptr, what + " (exact)");
      EXPECT_GT(a, 0u);
      n_exact += a;
    }
    const size_t b = compare_frames(printed, ours, false, &max_diff, what + " (x86 JSON)");
    EXPECT_GT(b, 0u);
    n_printed += b;
  }
  std::printf("%s: %zu option-set values equal to libvmaf's C path bit for bit, %zu within %.0e (relative above 1) "
              "of its x86 JSON\n", p.name().c_str(), n_exact, n_printed, kPrintedTol);
  print_maxima("float features with options against the x86 JSON:", max_diff);
}

TEST(CpuFloat, OptionsMatchLibvmaf) {
  for (const Pair& pair : test::pairs_of_kind("g5_", "c_321x241_8b")) {
    SCOPED_TRACE(pair.name());
    expect_options_match(pair);
  }
}

// ---- through the Scorer: the float models and the option sets --------------------------------------------------

// Scores a pair through the Scorer (CPU backend) and compares every value of the oracle: vmaf and its bootstrap
// columns within 1e-4, features within printed_tol; the same columns as libvmaf's JSON; pooled values too.
void score_through_scorer(const Pair& p, ScorerConfig cfg, const test::Oracle& oracle, std::map<std::string, double>* max_diff) {
  test::PairClips c;
  ASSERT_OK(test::open_pair_clips(p, &c));
  test::FrameLog log;
  std::unique_ptr<Scorer> scorer;
  ASSERT_OK(test::make_scorer(cfg, p.geometry(), &log, &scorer));
  for (size_t i = 0; i < c.ref.frames(); i++)
    ASSERT_OK(scorer->submit(test::frame_pair(c.ref.frame(i), c.dist.frame(i), int64_t(i), i)));
  ASSERT_OK(scorer->flush());
  const std::vector<FrameScore> got = log.frames();
  ASSERT_EQ(got.size(), oracle.frames.size());
  const auto& names = scorer->score_names();
  for (size_t k = 0; k < got.size(); k++) {
    EXPECT_EQ(oracle.frames[k].size(), names.size()) << "the same columns as libvmaf, frame " << k;
    for (const auto& [metric, want] : oracle.frames[k]) {
      const double have = got[k].get(metric, names);
      ASSERT_FALSE(std::isnan(have)) << metric << " missing at frame " << k;
      const double d = std::fabs(have - want);
      const bool is_vmaf = metric.rfind("vmaf", 0) == 0;
      (*max_diff)[is_vmaf ? "vmaf (and its bootstrap columns)" : metric] =
          std::max((*max_diff)[is_vmaf ? "vmaf (and its bootstrap columns)" : metric], d);
      EXPECT_LE(d, is_vmaf ? 1e-4 : printed_tol(want)) << metric << " frame " << k;
    }
  }
  for (const auto& [metric, stats] : oracle.pooled) {
    const long ci = scorer->collector().find(metric);
    ASSERT_GE(ci, 0) << metric;
    const PoolStats ps = scorer->collector().pool(size_t(ci));
    const double tol = metric.rfind("vmaf", 0) == 0 ? 1e-4 : printed_tol(stats.at("mean"));
    EXPECT_NEAR(ps.mean, stats.at("mean"), tol) << metric << " pooled mean";
    EXPECT_NEAR(ps.min, stats.at("min"), tol) << metric << " pooled min";
    EXPECT_NEAR(ps.max, stats.at("max"), tol) << metric << " pooled max";
  }
}

TEST(CpuFloat, FloatModelsThroughScorerMatchLibvmaf) {
  std::vector<std::string> absent, checked;
  const std::vector<Pair> pairs = test::oracle_pairs();
  test::present_pairs(&absent);
  size_t generated_files = 0;
  for (const char* model : kFloatModels) {
    std::map<std::string, double> max_diff;
    for (const Pair& p : pairs) {
      if (!has_float_oracle(p, model)) continue;
      generated_files += p.generated;
      SCOPED_TRACE(p.name() + " " + model);
      test::Oracle o;
      ASSERT_OK(test::load_oracle(oracle_file(p, model), &o));
      ScorerConfig cfg = test::scorer_config(model);  // the built-in version
      cfg.threads = p.prefix[0] == 'a' ? 2 : 0;
      score_through_scorer(p, cfg, o, &max_diff);
    }
    std::printf("%s, every present pair, through the Scorer:\n", model);
    for (const auto& [k, d] : max_diff) std::printf("  %-36s max |ours - libvmaf| = %.3g\n", k.c_str(), d);
  }
  EXPECT_EQ(generated_files, 5u);
  for (const Pair& p : pairs) checked.push_back(p.name());
  test::print_pair_coverage(checked, absent);
}

// The 15 option sets as --feature requests (libvmaf's option syntax): every column libvmaf writes, named as it
// names them, with its values.
TEST(CpuFloat, FeatureOptionsThroughScorerMatchLibvmaf) {
  for (const Pair& pair : test::pairs_of_kind("g5_", "c_321x241_8b")) {
    const Pair* p = &pair;
    SCOPED_TRACE(p->name());
    test::Oracle o;
    ASSERT_OK(test::load_oracle(oracle_file(*p, "float_options"), &o));
    ScorerConfig cfg = test::scorer_config("");
    const std::vector<std::pair<const char*, OptionList>> requests = {
        {"float_vif", {{"debug", "true"}}},
        {"float_vif", {{"vif_kernelscale", "1.5"}, {"vif_enhn_gain_limit", "1"}, {"vif_sigma_nsq", "1"},
                       {"vif_scale1_min_val", "0.999"}, {"vif_skip_scale0", "true"}}},
        {"float_vif", {{"vif_prescale", "0.7"}, {"vif_prescale_method", "nearest"}, {"vif_kernelscale", "3.7113402"}}},
        {"float_vif", {{"vif_prescale", "1.3"}, {"vif_prescale_method", "bilinear"}, {"vif_kernelscale", "0.5"}}},
        {"float_vif", {{"vif_prescale", "0.7"}, {"vif_prescale_method", "bicubic"}}},
        {"float_vif", {{"vif_prescale", "1.3"}, {"vif_prescale_method", "lanczos4"}, {"vif_scale2_min_val", "0.99"},
                       {"vif_scale3_min_val", "0.995"}}},
        {"float_adm", {{"debug", "true"}}},
        {"float_adm", {{"adm_csf_mode", "1"}, {"adm_csf_scale", "2"}, {"adm_csf_diag_scale", "0.5"},
                       {"adm_enhn_gain_limit", "1"}}},
        {"float_adm", {{"adm_csf_mode", "2"}, {"adm_norm_view_dist", "5"}, {"adm_ref_display_height", "2160"},
                       {"adm_p_norm", "2.5"}}},
        {"float_adm", {{"adm_csf_mode", "5"}, {"adm_bypass_cm", "1"}, {"adm_adm3_apply_hm", "true"}, {"adm_f1s0", "0.5"},
                       {"adm_f2s3", "2"}, {"adm_skip_aim_scale", "2"}, {"adm_skip_scale0", "true"},
                       {"adm_noise_weight", "0"}, {"adm_dlm_weight", "0.7"}, {"adm_min_val", "0.95"}}},
        {"float_motion", {}},
        {"float_motion", {{"motion_filter_size", "3"}, {"motion_fps_weight", "2.5"}, {"motion_blend_factor", "0.3"},
                          {"motion_blend_offset", "2"}, {"motion_max_val", "9"}}},
        {"float_motion", {{"motion_filter_size", "1"}, {"motion_add_scale1", "true"}}},
        {"float_motion", {{"motion_add_uv", "true"}, {"motion_filter_size", "0"}}},
        {"float_motion", {{"motion_force_zero", "true"}}},
    };
    for (const auto& [name, opts] : requests) cfg.features.push_back({name, opts});
    std::map<std::string, double> max_diff;
    score_through_scorer(*p, cfg, o, &max_diff);
    std::printf("%s: %zu columns of 15 option sets through the Scorer\n", p->name().c_str(), max_diff.size());
    print_maxima("the option sets through the Scorer against libvmaf's x86 JSON:", max_diff);
  }
}

// ---- motion's temporal outputs ---------------------------------------------------------------------------------

// libvmaf (C path, %.17g) on the first 1, 2 and 3 frames of pair c: motion3 of frame 0 comes from frame 1's score,
// motion2 of the last frame is its own score, one frame alone gives zeros.
struct MotionWant {
  double motion, motion2, motion3;
};

// One short stream of a pair's first n frames against `want` (tol 0: equal doubles).
void expect_short_stream(const test::PairClips& c, size_t n, const std::vector<MotionWant>& want, double tol) {
  SCOPED_TRACE(std::to_string(n) + " frames");
  const PictureView first = c.ref.frame(0);
  cpu::FloatMotion m;
  ASSERT_OK(m.init(first.width, first.height, first.bit_depth, first.chroma, {}));
  std::vector<cpu::FloatMotionOut> out;
  for (size_t i = 0; i < n; i++) {
    const size_t before = out.size();
    ASSERT_OK(m.compute(10 + i, cpu::luma_plane(c.ref.frame(i)), nullptr, &out));
    EXPECT_EQ(out.size(), before + (i > 0 ? 1 : 0)) << "frame i - 1 is final with frame i, nothing else";
  }
  m.finish(&out);
  ASSERT_EQ(out.size(), n);
  ASSERT_EQ(want.size(), n);
  for (size_t i = 0; i < n; i++) {
    EXPECT_EQ(out[i].index, 10 + i);
    EXPECT_NEAR(out[i].motion, want[i].motion, tol) << "frame " << i;
    EXPECT_NEAR(out[i].motion2, want[i].motion2, tol) << "frame " << i;
    EXPECT_NEAR(out[i].motion3, want[i].motion3, tol) << "frame " << i;
  }
}

// libvmaf on the first 1, 2 and 3 frames of a pair: motion3 of frame 0 comes from frame 1's score, motion2 of the
// last frame is its own score, one frame alone gives zeros. g5 against libvmaf's -n --frame_cnt N JSON (printed
// precision); pair c, when there, against the C path's %.17g values (equal doubles).
TEST(CpuFloat, MotionShortStreamsMatchLibvmaf) {
  const Pair* g = test::find_generated_pair("g5_");
  ASSERT_NE(g, nullptr);
  test::PairClips gc;
  ASSERT_OK(test::open_pair_clips(*g, &gc));
  for (size_t n = 1; n <= 3; n++) {
    test::Oracle o;
    ASSERT_OK(test::load_pair_oracle(*g, "float_motion.frames" + std::to_string(n), n, &o));
    std::vector<MotionWant> want;
    for (size_t i = 0; i < n; i++)
      want.push_back({o.frames[i].at("motion"), o.frames[i].at("motion2"), o.frames[i].at("motion3")});
    expect_short_stream(gc, n, want, 5e-7 + 1e-12);
  }
  const Pair* p = test::find_public_pair("c_321x241_8b");
  ASSERT_NE(p, nullptr);
  test::PairClips c;
  if (!test::open_pair_clips(*p, &c)) {
    std::printf("pair c not checked: ../shared/testdata absent\n");
    return;
  }
  const double s1 = 4.683201313018799, s2 = 4.690336227416992;
  const std::vector<std::vector<MotionWant>> want = {
      {{0, 0, 0}},
      {{0, 0, s1}, {s1, s1, s1}},
      {{0, 0, s1}, {s1, s1, s1}, {s2, s2, s2}},
  };
  for (size_t n = 1; n <= 3; n++) expect_short_stream(c, n, want[n - 1], 0);
}

TEST(CpuFloat, MotionPostBlendsAndClips) {
  cpu::FloatMotionOptions o;
  o.fps_weight = 2.0;
  o.blend_factor = 0.5;
  o.blend_offset = 3.0;
  o.max_val = 7.0;
  cpu::FloatMotionPost post;
  post.set_options(o);
  std::vector<cpu::FloatMotionOut> out;
  post.push(0, 123.0, &out);  // the first frame's score is never used
  post.push(1, 1.0, &out);
  post.push(2, 5.0, &out);
  post.push(3, 2.0, &out);
  post.finish(&out);
  ASSERT_EQ(out.size(), 4u);
  auto blend = [](double x) { return x * 0.5 + 0.5 * std::min(3.0, x); };
  EXPECT_EQ(out[0].motion2, 0.0);
  EXPECT_EQ(out[0].motion3, blend(2.0));
  EXPECT_EQ(out[1].motion, 2.0);
  EXPECT_EQ(out[1].motion2, 2.0);  // min(1, 5) * 2
  EXPECT_EQ(out[2].motion, 7.0);   // 10 clipped
  EXPECT_EQ(out[2].motion2, 4.0);  // min(5, 2) * 2
  EXPECT_EQ(out[2].motion3, blend(4.0));
  EXPECT_EQ(out[3].motion2, 4.0);  // the last frame: its own score
  EXPECT_EQ(out[3].motion3, std::min(7.0, blend(4.0)));
  // force_zero: every frame at once, all zero.
  o.force_zero = true;
  post.set_options(o);
  out.clear();
  post.push(0, 5.0, &out);
  post.push(1, 5.0, &out);
  ASSERT_EQ(out.size(), 2u);
  post.finish(&out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].motion + out[1].motion2 + out[1].motion3, 0.0);
}

// ---- stages, options and limits -----------------------------------------------------------------------------

TEST(CpuFloat, VifFiltersAndLog2) {
  const int widths[4] = {17, 9, 5, 3};
  for (unsigned s = 0; s < 4; s++) {
    EXPECT_EQ(cpu::float_vif_filter_width(s, 1.0), widths[s]);
    float t[cpu::kFloatVifMaxTaps];
    cpu::float_vif_filter(s, 1.0, t);
    float sum = 0;
    for (int k = 0; k < widths[s]; k++) sum += t[k];
    EXPECT_NEAR(sum, 1.0f, 1e-6f);
    EXPECT_EQ(t[0], t[widths[s] - 1]);  // symmetric
  }
  EXPECT_EQ(cpu::float_vif_filter_width(0, 360.0 / 97.0), 65);
  EXPECT_EQ(cpu::float_vif_filter_width(3, 0.5), 3);
  EXPECT_TRUE(cpu::float_vif_kernelscale_ok(1.0));
  EXPECT_TRUE(cpu::float_vif_kernelscale_ok(0.7111115));
  EXPECT_FALSE(cpu::float_vif_kernelscale_ok(1.25 + 0.01));
  EXPECT_FALSE(cpu::float_vif_kernelscale_ok(4.0));
  EXPECT_EQ(cpu::float_vif_log2(0.0f), -INFINITY);
  EXPECT_TRUE(std::isnan(cpu::float_vif_log2(-1.0f)));
  EXPECT_EQ(cpu::float_vif_log2(1.0f), 0.0f);
  EXPECT_EQ(cpu::float_vif_log2(8.0f), 3.0f);
  EXPECT_NEAR(cpu::float_vif_log2(3.0f), std::log2(3.0f), 1e-6f);
  cpu::VifScaleMethod m;
  for (const char* name : {"nearest", "bilinear", "bicubic", "lanczos4"}) {
    ASSERT_OK(cpu::vif_scale_method_from_name(name, &m));
    EXPECT_STREQ(cpu::vif_scale_method_name(m), name);
  }
  EXPECT_EQ(cpu::vif_scale_method_from_name("lanczos", &m).code(), Errc::invalid_argument);
}

TEST(CpuFloat, PictureCopyFollowsLibvmaf) {
  EXPECT_EQ(cpu::float_picture_sample(0, 8), -128.0f);
  EXPECT_EQ(cpu::float_picture_sample(255, 8), 127.0f);
  EXPECT_EQ(cpu::float_picture_sample(1023, 10), 1023.0f / 4.0f - 128.0f);
  EXPECT_EQ(cpu::float_picture_sample(4095, 12), 4095.0f / 16.0f - 128.0f);
  EXPECT_EQ(cpu::float_picture_sample(65535, 16), 65535.0f / 256.0f - 128.0f);
}

TEST(CpuFloat, RejectsBadOptionsDepthsAndSizes) {
  cpu::FloatVif vif;
  cpu::FloatVifOptions vo;
  EXPECT_EQ(vif.init(64, 64, 9, vo).code(), Errc::unsupported);
  EXPECT_EQ(vif.init(64, 64, 14, vo).code(), Errc::unsupported);
  vo.kernelscale = 1.3;
  EXPECT_EQ(vif.init(64, 64, 8, vo).code(), Errc::invalid_argument);
  vo = {};
  vo.enhn_gain_limit = 0.5;
  EXPECT_EQ(vif.init(64, 64, 8, vo).code(), Errc::invalid_argument);
  vo = {};
  vo.prescale = 4.5;
  EXPECT_EQ(vif.init(64, 64, 8, vo).code(), Errc::invalid_argument);
  vo = {};
  vo.sigma_nsq = 6;
  EXPECT_EQ(vif.init(64, 64, 8, vo).code(), Errc::invalid_argument);
  vo = {};
  EXPECT_EQ(vif.init(15, 64, 8, vo).code(), Errc::unsupported);
  EXPECT_OK(vif.init(16, 16, 8, vo));
  vo.kernelscale = 3.0;  // 9 taps at scale 3: a 16x16 picture has 2x2 there
  EXPECT_EQ(vif.init(16, 16, 8, vo).code(), Errc::unsupported);
  vo = {};
  vo.prescale = 2.0;
  vo.prescale_method = cpu::VifScaleMethod::bilinear;
  EXPECT_EQ(vif.init(4000, 64, 8, vo).code(), Errc::unsupported);  // 8000 columns: libvmaf's bilinear limit
  EXPECT_OK(vif.init(8, 8, 8, vo));                             // 16x16 after prescaling

  cpu::FloatAdm adm;
  cpu::FloatAdmOptions ao;
  EXPECT_EQ(adm.init(16, 64, 8, ao).code(), Errc::unsupported);
  EXPECT_OK(adm.init(17, 17, 8, ao));
  ao.p_norm = 0.5;
  EXPECT_EQ(adm.init(64, 64, 8, ao).code(), Errc::invalid_argument);
  ao = {};
  ao.skip_aim_scale = 4;
  EXPECT_EQ(adm.init(64, 64, 8, ao).code(), Errc::invalid_argument);
  ao = {};
  ao.csf_mode = 10;
  EXPECT_EQ(adm.init(64, 64, 8, ao).code(), Errc::invalid_argument);

  cpu::FloatMotion motion;
  cpu::FloatMotionOptions mo;
  mo.add_uv = true;
  EXPECT_EQ(motion.init(64, 64, 8, Chroma::k400, mo).code(), Errc::unsupported);
  mo.add_scale1 = true;
  EXPECT_EQ(motion.init(64, 64, 8, Chroma::k420, mo).code(), Errc::unsupported);
  mo = {};
  mo.filter_size = 10;
  EXPECT_EQ(motion.init(64, 64, 8, Chroma::k420, mo).code(), Errc::invalid_argument);
  mo = {};
  EXPECT_EQ(motion.init(2, 64, 8, Chroma::k420, mo).code(), Errc::unsupported);

  // Planes that do not fit the set-up: a named error, nothing computed.
  ASSERT_OK(vif.init(64, 64, 8, {}));
  std::vector<uint8_t> buf(64 * 64, 100);
  cpu::Plane p;
  p.data = buf.data();
  p.stride = 64;
  p.w = 64;
  p.h = 64;
  cpu::FloatVifScores s;
  cpu::Plane small = p;
  small.w = 32;
  EXPECT_EQ(vif.compute(p, small, &s).code(), Errc::unsupported);
  cpu::Plane deep = p;
  deep.bpc = 10;
  EXPECT_EQ(vif.compute(deep, p, &s).code(), Errc::unsupported);
  cpu::Plane narrow = p;
  narrow.stride = 32;
  EXPECT_EQ(vif.compute(p, narrow, &s).code(), Errc::invalid_argument);
  cpu::FloatVif fresh;
  EXPECT_EQ(fresh.compute(p, p, &s).code(), Errc::invalid_argument);
  ASSERT_OK(vif.compute(p, p, &s));
  // A flat picture against itself: no information, libvmaf's statistic gives 1 per pixel.
  for (int k = 0; k < 4; k++) EXPECT_NEAR(s.scale[k], 1.0, 1e-6) << k;
}

}  // namespace
}  // namespace vmafx
