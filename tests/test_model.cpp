// SPDX-License-Identifier: LGPL-2.1-or-later
// Model loading and prediction against libvmaf: its score names, its predictions as exact doubles (from the scratch
// libvmaf build, see tests/data/model/README.md), the scores of the oracle JSONs, and every way a model can be bad.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "scoring/svm.h"
#include "support.h"
#include "vmafx/model.h"

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;
using vmafx::Errc;
using vmafx::Model;
using vmafx::ModelOptions;
using vmafx::Prediction;
using vmafx::Status;

namespace {

json read_json(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << "cannot open " << path;
  json j;
  f >> j;
  return j;
}

ordered_json read_ordered(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << "cannot open " << path;
  ordered_json j;
  f >> j;
  return j;
}

std::string engine_model(const std::string& version) {
  return vmafx::test::project_models_dir() + "/" + version + ".json";
}

// A scratch directory for model files written by a test, removed at the end.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/vmafx_test_model_XXXXXX";
    const char* d = mkdtemp(tmpl);
    EXPECT_NE(d, nullptr);
    path_ = d ? d : "/tmp";
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = path_ + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<std::string> model_files_under(const std::string& dir) {
  std::vector<std::string> v;
  if (!fs::is_directory(dir)) return v;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") v.push_back(e.path().string());
  std::sort(v.begin(), v.end());
  return v;
}

// Loads a reference model: "vmaf_v0.6.1" (built in), "shared:<path in libvmaf's model/ folder>" (the same file,
// unchanged, is engine/models/<its name>) or "variant:<name>" (vmaf_v0.6.1 with the entry's patch, written to `tmp`).
Status load_reference_model(const json& entry, const TempDir& tmp, Model* m) {
  const std::string id = entry.at("model").get<std::string>();
  if (id.rfind("shared:", 0) == 0)
    return Model::load(vmafx::test::project_models_dir() + "/" + fs::path(id.substr(7)).filename().string(), m);
  if (id.rfind("variant:", 0) == 0) {
    ordered_json base = read_ordered(engine_model("vmaf_v0.6.1"));
    for (auto it = entry.at("patch").begin(); it != entry.at("patch").end(); ++it)
      base["model_dict"][it.key()] = it.value();
    for (const auto& k : entry.at("remove")) base["model_dict"].erase(k.get<std::string>());
    return Model::load(tmp.write(id.substr(8) + ".json", base.dump()), m);
  }
  return Model::load(id, m);
}

}  // namespace

TEST(Model, BuiltinNamesAreTheEngineModelFiles) {
  std::set<std::string> files;
  for (const auto& p : model_files_under(vmafx::test::project_models_dir())) files.insert(fs::path(p).stem().string());
  const auto names = Model::builtin_names();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), files);
  EXPECT_EQ(names.size(), 17u);  // v0.6.1, neg, 4k, 4k neg, b, the four float models and the eight v1 models
  for (const auto& n : names) EXPECT_TRUE(Model::is_builtin(n)) << n;
  EXPECT_FALSE(Model::is_builtin("vmaf_v0.6.2"));
}

TEST(Model, EveryModelFileLoads) {
  std::vector<std::string> files = model_files_under(vmafx::test::project_models_dir());
  ASSERT_EQ(files.size(), 17u);
  // libvmaf's model files beside the checkout (../shared/models), when there.
  const std::vector<std::string> shared = model_files_under(vmafx::test::shared_models_dir());
  std::printf("model files: %zu of engine/models, %zu of %s\n", files.size(), shared.size(),
              vmafx::test::shared_models_dir().c_str());
  files.insert(files.end(), shared.begin(), shared.end());
  for (const auto& path : files) {
    Model m;
    Status s = Model::load(path, &m);
    ASSERT_TRUE(s.is_ok()) << path << ": " << s.to_string();
    EXPECT_EQ(m.name(), path);
    EXPECT_FALSE(m.features().empty()) << path;
    const bool bootstrap = path.find("_b_v0.6.3") != std::string::npos;
    EXPECT_EQ(m.is_collection(), bootstrap) << path;
    EXPECT_EQ(m.member_count(), bootstrap ? 20u : 0u) << path;
    for (const auto& f : m.features()) {
      EXPECT_FALSE(f.extractor.empty()) << path << " " << f.name;
      EXPECT_FALSE(f.score_name.empty()) << path << " " << f.name;
    }
  }
}

TEST(Model, BuiltinAndFileGiveTheSameModel) {
  for (const auto& name : Model::builtin_names()) {
    Model a, b;
    ASSERT_TRUE(Model::load(name, &a).is_ok()) << name;
    ASSERT_TRUE(Model::load(engine_model(name), &b).is_ok()) << name;
    EXPECT_EQ(a.name(), name);
    ASSERT_EQ(a.features().size(), b.features().size());
    for (size_t i = 0; i < a.features().size(); i++) EXPECT_EQ(a.features()[i].score_name, b.features()[i].score_name);
    const double x[6] = {0.93, 3.5, 0.51, 0.88, 0.93, 0.96};
    Prediction pa, pb;
    ASSERT_TRUE(a.predict(x, {}, &pa).is_ok());
    ASSERT_TRUE(b.predict(x, {}, &pb).is_ok());
    EXPECT_EQ(pa.score, pb.score) << name;
  }
}

TEST(Model, FeatureOptionsReachTheExtractor) {
  Model neg;
  ASSERT_TRUE(Model::load("vmaf_v0.6.1neg", &neg).is_ok());
  const auto& f = neg.features();
  ASSERT_EQ(f.size(), 6u);
  EXPECT_EQ(f[0].name, "VMAF_integer_feature_adm2_score");
  EXPECT_EQ(f[0].extractor, "adm");
  EXPECT_EQ(f[0].score_name, "integer_adm2_egl_1");
  EXPECT_EQ(f[0].opts.at("adm_enhn_gain_limit"), 1.0);
  EXPECT_EQ(f[0].text_opts.at("adm_enhn_gain_limit"), "1");
  EXPECT_EQ(f[1].extractor, "motion");
  EXPECT_EQ(f[1].score_name, "integer_motion2");
  EXPECT_TRUE(f[1].opts.empty());
  EXPECT_EQ(f[2].extractor, "vif");
  EXPECT_EQ(f[2].opts.at("vif_enhn_gain_limit"), 1.0);

  // Values pass through float and "%g" like libvmaf's dictionary; strings and booleans stay text.
  Model hfr;
  ASSERT_TRUE(Model::load(engine_model("vmaf_v1.0.16_hfr_5d0h"), &hfr).is_ok());
  const auto& h = hfr.features();
  ASSERT_EQ(h.size(), 4u);
  EXPECT_EQ(h[1].extractor, "speed_chroma");
  EXPECT_EQ(h[1].text_opts.at("speed_prescale_method"), "bilinear");
  EXPECT_EQ(h[1].opts.count("speed_prescale_method"), 0u);
  EXPECT_EQ(h[1].opts.at("speed_sigma_nn"), 0.19);
  EXPECT_EQ(h[3].text_opts.at("motion_five_frame_window"), "true");
  EXPECT_EQ(h[3].opts.at("motion_five_frame_window"), 1.0);
}

// Score names: what libvmaf's predict looks up in its collector, aliased as its output writes them (the reference
// tool asked libvmaf itself for these names).
TEST(Model, ScoreNamesMatchLibvmaf) {
  const json ref = read_json(vmafx::test::project_data_dir() + "/model/libvmaf_predictions.json");
  TempDir tmp;
  size_t checked = 0;
  for (const auto& entry : ref.at("models")) {
    Model m;
    Status s = load_reference_model(entry, tmp, &m);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    const auto& names = entry.at("score_names");
    ASSERT_EQ(m.features().size(), names.size()) << entry.at("model");
    for (size_t i = 0; i < names.size(); i++) {
      EXPECT_EQ(m.features()[i].score_name, names[i].get<std::string>()) << entry.at("model");
      checked++;
    }
  }
  EXPECT_EQ(checked, 5u * 6 + 8u * 4);
}

TEST(Model, ScoreColumnsFollowTheCli) {
  Model b, v;
  ASSERT_TRUE(Model::load("vmaf_b_v0.6.3", &b).is_ok());
  ASSERT_TRUE(Model::load("vmaf_v0.6.1", &v).is_ok());
  EXPECT_EQ(v.score_names(), std::vector<std::string>{"vmaf"});
  const auto n = b.score_names();
  ASSERT_EQ(n.size(), 1u + 20 + 4);
  EXPECT_EQ(n[0], "vmaf");
  EXPECT_EQ(n[1], "vmaf_0001");
  EXPECT_EQ(n[20], "vmaf_0020");
  EXPECT_EQ(n[21], "vmaf_bagging");
  EXPECT_EQ(n[22], "vmaf_stddev");
  EXPECT_EQ(n[23], "vmaf_ci_p95_lo");
  EXPECT_EQ(n[24], "vmaf_ci_p95_hi");
  // The CLI's name= parameter renames every column alike.
  EXPECT_EQ(b.score_names("neg")[3], "neg_0003");
  EXPECT_EQ(b.score_names("neg")[24], "neg_ci_p95_hi");
}

namespace {

struct DiffStats {
  double max_abs = 0;
  size_t compared = 0;
  void add(double ours, double theirs) {
    const double d = std::fabs(ours - theirs);
    if (d > max_abs || std::isnan(d)) max_abs = std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
    compared++;
  }
};

void compare_entry(const json& entry, const json& vectors, const TempDir& tmp, DiffStats* score,
                   DiffStats* members, DiffStats* ci) {
  Model m;
  Status s = load_reference_model(entry, tmp, &m);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  const std::string id = entry.at("model").get<std::string>();
  for (const auto& r : entry.at("results")) {
    ModelOptions o;
    o.disable_clip = r.at("disable_clip").get<bool>();
    o.enable_transform = r.at("enable_transform").get<bool>();
    for (size_t v = 0; v < vectors.size(); v++) {
      const std::vector<double> x = vectors[v].get<std::vector<double>>();
      ASSERT_EQ(x.size(), m.features().size());
      Prediction p;
      ASSERT_TRUE(m.predict(x.data(), o, &p).is_ok());
      const double want = r.at("scores")[v].get<double>();
      score->add(p.score, want);
      EXPECT_EQ(p.score, want) << id << " clip off " << o.disable_clip << " transform " << o.enable_transform
                               << " vector " << v;
      EXPECT_EQ(p.has_ci, r.contains("bagging"));
      if (!r.contains("bagging")) continue;
      ASSERT_EQ(p.members.size(), r.at("members").size());
      for (size_t k = 0; k < p.members.size(); k++) {
        members->add(p.members[k], r.at("members")[k][v].get<double>());
        EXPECT_EQ(p.members[k], r.at("members")[k][v].get<double>()) << id << " member " << k + 1 << " vector " << v;
      }
      const std::pair<double, const char*> stats[] = {
          {p.bagging, "bagging"}, {p.stddev, "stddev"}, {p.ci_lo, "ci_lo"}, {p.ci_hi, "ci_hi"}};
      for (const auto& [ours, key] : stats) {
        ci->add(ours, r.at(key)[v].get<double>());
        EXPECT_EQ(ours, r.at(key)[v].get<double>()) << id << " " << key << " vector " << v;
      }
    }
  }
}

}  // namespace

// libvmaf's vmaf_score_at_index / vmaf_score_at_index_model_collection on the same doubles (imported with
// vmaf_import_feature_score under the names above), for every model, disable_clip and enable_transform. The
// arithmetic is the same, so the doubles must be equal; the tolerance the brief allows (1e-9) is not needed.
TEST(Model, PredictionsEqualLibvmaf) {
  const json ref = read_json(vmafx::test::project_data_dir() + "/model/libvmaf_predictions.json");
  TempDir tmp;
  DiffStats score, members, ci;
  for (const auto& entry : ref.at("models")) {
    const bool four = entry.at("score_names").size() == 4;
    compare_entry(entry, ref.at(four ? "vectors4" : "vectors6"), tmp, &score, &members, &ci);
  }
  std::printf("model scores: %zu compared, max |ours - libvmaf| = %.3g\n", score.compared, score.max_abs);
  std::printf("bootstrap members: %zu compared, max |diff| = %.3g\n", members.compared, members.max_abs);
  std::printf("bagging/stddev/ci: %zu compared, max |diff| = %.3g\n", ci.compared, ci.max_abs);
  EXPECT_EQ(score.compared, 5u * 4 * 28 + 8u * 4 * 16);
  EXPECT_EQ(members.compared, 20u * 4 * 28);
  EXPECT_EQ(ci.compared, 4u * 4 * 28);
  EXPECT_LE(score.max_abs, 1e-9);
  EXPECT_LE(members.max_abs, 1e-9);
  EXPECT_LE(ci.max_abs, 1e-9);
}

// score_transform paths the built-in models do not use: knots (with a flat segment, with x0 = 0, out of order),
// out_lte_in, a transform enabled only by enable_transform, norm_type none without score_clip.
TEST(Model, TransformVariantsEqualLibvmaf) {
  const json ref = read_json(vmafx::test::project_data_dir() + "/model/libvmaf_predictions.json");
  TempDir tmp;
  DiffStats score, members, ci;
  ASSERT_EQ(ref.at("variants").size(), 4u);
  for (const auto& entry : ref.at("variants")) compare_entry(entry, ref.at("vectors6"), tmp, &score, &members, &ci);
  std::printf("transform variants: %zu compared, max |diff| = %.3g\n", score.compared, score.max_abs);
  EXPECT_EQ(score.compared, 4u * 4 * 28);
  EXPECT_LE(score.max_abs, 1e-9);
}

// The full-precision features of the CLI run on pair c (tests/data/output, dumped from libvmaf's collector) give
// the CLI's own vmaf per frame, exactly.
TEST(Model, ReproducesCliScoresOfPairC) {
  for (const char* name : {"c_blurnoise_v061", "c_blurnoise_v061_sub2"}) {
    const json d = read_json(vmafx::test::project_data_dir() + "/output/" + name + ".values.json");
    std::map<std::string, std::vector<json>> col;
    for (const auto& c : d.at("columns"))
      col[c.at("name").get<std::string>()] = c.at("values").get<std::vector<json>>();
    Model m;
    ASSERT_TRUE(Model::load("vmaf_v0.6.1", &m).is_ok());
    size_t frames = 0;
    for (size_t i = 0; i < d.at("frames").get<size_t>(); i++) {
      if (col.at("vmaf")[i].is_null()) continue;
      std::vector<double> x;
      for (const auto& f : m.features()) x.push_back(col.at(f.score_name)[i].get<double>());
      Prediction p;
      ASSERT_TRUE(m.predict(x.data(), {}, &p).is_ok());
      EXPECT_EQ(p.score, col.at("vmaf")[i].get<double>()) << name << " frame " << i;
      frames++;
    }
    EXPECT_EQ(frames, std::string(name).find("sub2") != std::string::npos ? 6u : 12u);
  }
}

// The oracle JSONs print every feature and the score with 6 decimals. Feeding the printed features back cannot
// reproduce the printed score exactly: each input is off by up to 5e-7 and the score's own print by 5e-7. The
// allowed difference per frame is that propagated error, sum_k |d score / d x_k| * 5e-7 + 5e-7, with the gradient
// measured on our model by central differences (plus 5 % for the estimate): tight where the model is flat, looser
// where it is steep (motion2 and vif_scale0 move the score most).
TEST(Model, PredictsOracleFramesWithinPrintPrecision) {
  struct Case {
    std::string suffix, model;
  };
  const std::vector<Case> cases = {{"vmaf_v0.6.1", "vmaf_v0.6.1"},
                                   {"vmaf_v0.6.1.subsample2", "vmaf_v0.6.1"},
                                   {"vmaf_4k_v0.6.1", "vmaf_4k_v0.6.1"},
                                   {"vmaf_v0.6.1neg", "vmaf_v0.6.1neg"},
                                   {"vmaf_v0.6.1.simd_avx512", "vmaf_v0.6.1"},
                                   {"vmaf_v0.6.1.simd_avx2", "vmaf_v0.6.1"}};
  double max_diff = 0, max_bound = 0, max_ratio = 0;
  size_t frames = 0, files = 0, generated_files = 0;
  for (const auto& pair : vmafx::test::oracle_pairs()) {
    for (const auto& c : cases) {
      if (!vmafx::test::has_oracle(pair, c.suffix)) continue;
      const std::string path = pair.oracle_path(c.suffix);
      files++;
      generated_files += pair.generated;
      vmafx::test::Oracle o;
      ASSERT_TRUE(vmafx::test::load_oracle(path, &o).is_ok()) << path;
      Model m;
      ASSERT_TRUE(Model::load(c.model, &m).is_ok());
      for (size_t f = 0; f < o.frames.size(); f++) {
        std::vector<double> x;
        for (const auto& feat : m.features()) {
          auto it = o.frames[f].find(feat.score_name);
          ASSERT_NE(it, o.frames[f].end()) << path << " lacks " << feat.score_name;
          x.push_back(it->second);
        }
        Prediction p;
        ASSERT_TRUE(m.predict(x.data(), {}, &p).is_ok());
        double grad = 0;
        for (size_t k = 0; k < x.size(); k++) {
          const double h = 1e-5;
          std::vector<double> a = x, b = x;
          a[k] += h;
          b[k] -= h;
          Prediction pa, pb;
          ASSERT_TRUE(m.predict(a.data(), {}, &pa).is_ok());
          ASSERT_TRUE(m.predict(b.data(), {}, &pb).is_ok());
          grad += std::fabs(pa.score - pb.score) / (2 * h);
        }
        const double bound = (grad * 5e-7 + 5e-7) * 1.05;
        const double diff = std::fabs(p.score - o.frames[f].at("vmaf"));
        EXPECT_LE(diff, bound) << path << " frame " << o.frame_num[f];
        max_diff = std::max(max_diff, diff);
        max_bound = std::max(max_bound, bound);
        max_ratio = std::max(max_ratio, diff / bound);
        frames++;
      }
    }
  }
  std::printf("oracle frames: %zu in %zu files, max |ours - oracle| = %.3g (largest allowed %.3g, worst diff/bound "
              "%.2f)\n",
              frames, files, max_diff, max_bound, max_ratio);
  // The generated pairs: v0.6.1, 4k and neg each, subsample 2 for g1 and g2.
  EXPECT_EQ(generated_files, 3 * vmafx::test::generated_pairs().size() + 2);
  EXPECT_GT(frames, 100u);
}

TEST(Model, ResidueBootstrapPredictsLikeBootstrap) {
  TempDir tmp;
  ordered_json j = read_ordered(engine_model("vmaf_b_v0.6.3"));
  for (auto& [k, v] : j.items()) v["model_dict"]["model_type"] = "RESIDUEBOOTSTRAP_LIBSVMNUSVR";
  Model a, b;
  ASSERT_TRUE(Model::load("vmaf_b_v0.6.3", &a).is_ok());
  Status s = Model::load(tmp.write("residue.json", j.dump()), &b);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  const double x[6] = {0.9, 4.0, 0.5, 0.85, 0.92, 0.95};
  Prediction pa, pb;
  ASSERT_TRUE(a.predict(x, {}, &pa).is_ok());
  ASSERT_TRUE(b.predict(x, {}, &pb).is_ok());
  EXPECT_EQ(pa.score, pb.score);
  EXPECT_EQ(pa.ci_lo, pb.ci_lo);
  EXPECT_EQ(pa.ci_hi, pb.ci_hi);
}

// ---- SVR text ---------------------------------------------------------------------------------------------------

TEST(Svr, SparseSupportVectorsMergeLikeLibsvm) {
  const std::string text =
      "svm_type nu_svr\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho -0.25\nSV\n"
      "1.5 1:0.5 3:0.25 \n-2 2:1 \n";
  vmafx::SvrModel m;
  Status s = vmafx::SvrModel::parse(text, &m);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(m.support_vectors(), 2u);
  EXPECT_EQ(m.max_index(), 3);
  const double x[3] = {0.1, 0.2, 0.3};
  // libsvm's merge: matched indices as (x - sv)^2, unmatched entries as squares, in index order.
  const double d0 = (0.1 - 0.5) * (0.1 - 0.5) + 0.2 * 0.2 + (0.3 - 0.25) * (0.3 - 0.25);
  const double d1 = 0.1 * 0.1 + (0.2 - 1) * (0.2 - 1) + 0.3 * 0.3;
  const double want = 1.5 * std::exp(-0.5 * d0) + -2 * std::exp(-0.5 * d1) - -0.25;
  EXPECT_EQ(m.predict(x, 3), want);
}

TEST(Svr, RejectsWhatItCannotEvaluate) {
  const std::string head = "svm_type nu_svr\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n";
  struct Bad {
    std::string text, needle;
  };
  const std::vector<Bad> bad = {
      {"svm_type c_svc\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 0\nrho 0\nSV\n", "c_svc"},
      {"svm_type nu_svr\nkernel_type linear\ngamma 1\nnr_class 2\ntotal_sv 0\nrho 0\nSV\n", "linear"},
      {"svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 0\nrho 0\nSV\n", "no gamma"},
      {"svm_type nu_svr\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 0\nSV\n", "no rho"},
      {"svm_type nu_svr\nkernel_type rbf\ngamma x\n", "gamma"},
      {"svm_type nu_svr\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 1\nrho 0\n", "no SV"},
      {"svm_type nu_svr\nfoo 1\n", "foo"},
      {head, "ends after 0 of 1"},
      {head + "1 1:0.5 2=3\n", "index:value"},
      {head + "1 2:0.5 1:3\n", "ascend"},
      {head + "abc 1:0.5\n", "coefficient"},
  };
  for (const auto& b : bad) {
    vmafx::SvrModel m;
    Status s = vmafx::SvrModel::parse(b.text, &m);
    EXPECT_EQ(s.code(), Errc::model_error) << b.text;
    EXPECT_NE(s.message().find(b.needle), std::string::npos) << s.message();
  }
}

// ---- every way a model can be bad ------------------------------------------------------------------------------

namespace {

void expect_model_error(const std::string& path, const std::string& needle, const std::string& what) {
  Model m;
  Status s = Model::load(path, &m);
  EXPECT_EQ(s.code(), Errc::model_error) << what << ": " << s.to_string();
  EXPECT_NE(s.message().find(path), std::string::npos) << what << ": message does not name the file: " << s.message();
  EXPECT_NE(s.message().find(needle), std::string::npos) << what << ": message lacks '" << needle << "': "
                                                         << s.message();
  EXPECT_FALSE(m.loaded()) << what;
}

}  // namespace

TEST(ModelErrors, MissingUnreadableMalformed) {
  TempDir tmp;
  expect_model_error(tmp.path() + "/absent.json", "No such file", "missing file");
  expect_model_error(tmp.path(), "Is a directory", "a directory is not readable as a file");
  expect_model_error(tmp.write("broken.json", "{\"model_dict\": {\"model_type\": "), "malformed JSON", "truncated");
  expect_model_error(tmp.write("array.json", "[1, 2]"), "not a JSON object", "top level array");
  expect_model_error(tmp.write("empty.json", "{}"), "no model_dict", "no model at all");

  Model m;
  Status s = Model::load("vmaf_v9.9", &m);
  EXPECT_EQ(s.code(), Errc::model_error);
  EXPECT_NE(s.message().find("vmaf_v9.9"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("vmaf_v0.6.1neg"), std::string::npos) << "should list the built-ins: " << s.message();
  s = Model::load("", &m);
  EXPECT_EQ(s.code(), Errc::model_error);
}

TEST(ModelErrors, MissingOrBadKeys) {
  TempDir tmp;
  const ordered_json base = read_ordered(engine_model("vmaf_v0.6.1"));
  int n = 0;
  auto with = [&](const std::function<void(ordered_json&)>& edit) {
    ordered_json j = base;
    edit(j["model_dict"]);
    return tmp.write("m" + std::to_string(n++) + ".json", j.dump());
  };
  for (const char* key : {"model_type", "norm_type", "feature_names", "model", "slopes", "intercepts"})
    expect_model_error(with([&](ordered_json& d) { d.erase(key); }), key, std::string("without ") + key);
  expect_model_error(with([](ordered_json& d) { d["model_type"] = "XGBOOST"; }), "unknown model_type 'XGBOOST'",
                     "unknown model type");
  expect_model_error(with([](ordered_json& d) { d["norm_type"] = "clip_0to1"; }), "unknown norm_type", "norm");
  expect_model_error(with([](ordered_json& d) { d["slopes"].erase(d["slopes"].size() - 1); }), "slopes has 6 values",
                     "short slopes");
  expect_model_error(with([](ordered_json& d) { d["intercepts"][2] = "x"; }), "intercepts[2] is not a number",
                     "text intercept");
  expect_model_error(with([](ordered_json& d) { d["feature_names"][1] = "VMAF_integer_feature_motion9_score"; }),
                     "motion9", "unknown feature");
  expect_model_error(with([](ordered_json& d) { d["feature_names"] = ordered_json::array(); }), "empty",
                     "no features");
  expect_model_error(with([](ordered_json& d) { d["feature_opts_dicts"] = {{{"adm_enhn_gain_limit", 0.5}}}; }),
                     "adm_enhn_gain_limit", "option out of range");
  expect_model_error(with([](ordered_json& d) { d["feature_opts_dicts"] = {{{"adm_enhn_gain_limit", {1}}}}; }),
                     "not a number, boolean or string", "option of a bad type");
  expect_model_error(with([](ordered_json& d) { d["feature_opts_dicts"] = {{{"debug", "maybe"}}}; }),
                     "true or false", "bad boolean option");
  expect_model_error(with([](ordered_json& d) { d["score_clip"] = {0}; }), "score_clip", "short clip");
  expect_model_error(with([](ordered_json& d) { d["score_transform"]["knots"] = {1, 2}; }), "knots[0]", "bad knots");
  expect_model_error(with([](ordered_json& d) { d["score_transform"]["out_gte_in"] = true; }), "out_gte_in",
                     "rectification flag must be a string");
  expect_model_error(with([](ordered_json& d) { d["model"] = "svm_type nu_svr\nkernel_type poly\n"; }),
                     "model_dict.model: libsvm model: kernel_type 'poly'", "svm kernel");
  expect_model_error(with([](ordered_json& d) { d["model"] = 3; }), "model_dict.model is not a string", "svm type");
  expect_model_error(with([](ordered_json& d) { d["feature_names"].erase(5); d["slopes"].erase(6);
                                                d["intercepts"].erase(6); }),
                     "feature index 6", "svm wider than the features");
  expect_model_error(with([](ordered_json& d) { d["chroma_correction_parameter"] = 0.5; }), "speed_chroma",
                     "chroma correction without its features");
}

// Values that load but score NaN or infinity (libvmaf loads them and writes -nan with exit status 0): refused at
// load, naming the value.
TEST(ModelErrors, NonFiniteOrNonsenseParameters) {
  TempDir tmp;
  const ordered_json base = read_ordered(engine_model("vmaf_v0.6.1"));
  const std::string svm = base["model_dict"]["model"].get<std::string>();
  int n = 0;
  auto svm_with = [&](const std::string& from, const std::string& to) {
    ordered_json j = base;
    std::string t = svm;
    const size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) t.replace(at, from.size(), to);
    j["model_dict"]["model"] = t;
    return tmp.write("s" + std::to_string(n++) + ".json", j.dump());
  };
  const size_t g = svm.find("gamma "), r = svm.find("rho "), sv = svm.find("SV\n") + 3;
  const std::string gamma = svm.substr(g, svm.find('\n', g) - g), rho = svm.substr(r, svm.find('\n', r) - r);
  const std::string first = svm.substr(sv, svm.find('\n', sv) - sv);
  expect_model_error(svm_with(gamma, "gamma nan"), "gamma 'nan'", "gamma nan");
  expect_model_error(svm_with(gamma, "gamma -inf"), "gamma '-inf'", "gamma -inf");
  expect_model_error(svm_with(gamma, "gamma -1"), "gamma '-1'", "negative gamma (libsvm refuses it)");
  expect_model_error(svm_with(rho, "rho inf"), "rho 'inf'", "rho inf");
  expect_model_error(svm_with(first, "nan" + first.substr(first.find(' '))), "coefficient 'nan'", "coefficient");
  expect_model_error(svm_with(first, first.substr(0, first.find(' ')) + " 1:inf"), "'1:inf' is not finite",
                     "support vector value");
  // A zero score slope (the JSON itself cannot hold a non-finite number: 1e400 is refused as malformed).
  auto json_with = [&](const std::string& key, size_t i, const std::string& number) {
    std::string text = base.dump();
    ordered_json j = base;
    j["model_dict"][key][i] = 12345.678;
    text = j.dump();
    const size_t at = text.find("12345.678");
    text.replace(at, 9, number);
    return tmp.write("j" + std::to_string(n++) + ".json", text);
  };
  expect_model_error(json_with("slopes", 2, "1e400"), "malformed JSON", "a number past double's range");
  expect_model_error(json_with("slopes", 0, "0"), "slopes[0] is 0", "zero score slope");
  // The unchanged text still loads.
  Model ok;
  EXPECT_TRUE(Model::load(svm_with(gamma, gamma), &ok).is_ok());
}

TEST(ModelErrors, BadCollections) {
  TempDir tmp;
  const ordered_json base = read_ordered(engine_model("vmaf_b_v0.6.3"));
  ordered_json only0;
  only0["0"] = base["0"];
  expect_model_error(tmp.write("only0.json", only0.dump()), "at least \"1\"", "collection of one");
  ordered_json plain = base;
  plain["1"]["model_dict"]["model_type"] = "LIBSVMNUSVR";
  expect_model_error(tmp.write("plain.json", plain.dump()), "LIBSVMNUSVR in a collection", "single-model member");
  ordered_json mixed = base;
  mixed["7"]["model_dict"]["model_type"] = "RESIDUEBOOTSTRAP_LIBSVMNUSVR";
  expect_model_error(tmp.write("mixed.json", mixed.dump()), "model \"7\": model_type differs", "mixed member types");
  ordered_json broken = base;
  broken["3"]["model_dict"].erase("model");
  expect_model_error(tmp.write("broken.json", broken.dump()), "model \"3\": model_dict has no model", "bad member");
}

TEST(ModelErrors, PredictRefusesNoModelAndNoInput) {
  Model none;
  Prediction p;
  const double x[6] = {};
  EXPECT_EQ(none.predict(x, {}, &p).code(), Errc::invalid_argument);
  Model m;
  ASSERT_TRUE(Model::load("vmaf_v0.6.1", &m).is_ok());
  EXPECT_EQ(m.predict(nullptr, {}, &p).code(), Errc::invalid_argument);
  EXPECT_EQ(m.predict(x, {}, nullptr).code(), Errc::invalid_argument);
}
