// SPDX-License-Identifier: LGPL-2.1-or-later
// Model loading follows libvmaf's read_json_model.c (keys, defaults, which flags act when) and prediction follows its
// predict.c step by step; the arithmetic is written in the same order so every score is the same double.
#include "vmafx/model.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "features/table.h"
#include "scoring/svm.h"

namespace vmafx {

// Generated at build time by tools/embed_models.py from engine/models/*.json; ends with {nullptr, nullptr, 0}.
struct BuiltinModelData {
  const char* name;
  const unsigned char* data;
  size_t size;
};
extern const BuiltinModelData kBuiltinModels[];

namespace {

using Json = nlohmann::ordered_json;  // a collection's members are read in file order, as libvmaf does

// printf("%g") in the C locale, whatever the process locale is.
std::string format_g(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
  return std::string(buf, r.ptr);
}

// libvmaf's dictionary normalises a numeric option through float and "%g" (VMAF_DICT_NORMALIZE_NUMERICAL_VALUES).
std::string normalized_number(double v) { return format_g(double(float(v))); }

// Resolves a model feature through the feature table: its extractor, the options it ends up with (libvmaf's option
// parser, so a bad value refuses the model as libvmaf does), and the score name.
Status resolve_feature(const std::string& name, const std::vector<std::pair<std::string, std::string>>& dict,
                       ModelFeature* out) {
  const features::FeatureDesc* ex = features::provider_of(name);
  if (!ex) return {Errc::model_error, "feature '" + name + "' is not provided by any libvmaf feature extractor"};
  features::Options opts;
  Status s = features::parse_options(*ex, dict, &opts);
  if (!s) return Status(Errc::model_error, s.message()).prepend("feature '" + name + "'");
  ModelFeature f;
  f.name = name;
  f.extractor = ex->name;
  for (const auto& kv : dict) {
    f.text_opts[kv.first] = kv.second;
    for (const auto& o : ex->options)
      if (kv.first == o.name && o.type != features::OptType::text) f.opts[kv.first] = opts.num(o.name);
  }
  f.score_name = features::alias_of(name) + opts.score_suffix();
  *out = std::move(f);
  return Status::ok();
}

// ---- one model of a file ------------------------------------------------------------------------------------

enum class ModelType { svr, bootstrap, residue_bootstrap };

struct Transform {
  bool present = false;  // the file has a score_transform object
  bool enabled = false;  // its "enabled" key
  bool p0_on = false, p1_on = false, p2_on = false;
  double p0 = 0, p1 = 0, p2 = 0;
  bool knots_on = false;
  std::vector<std::pair<double, double>> knots;
  bool out_lte_in = false, out_gte_in = false;
};

struct Submodel {
  ModelType type = ModelType::svr;
  bool linear_rescale = false;
  double slope = 0, intercept = 0;
  std::vector<std::string> feature_names;
  std::vector<double> f_slope, f_intercept;
  std::vector<size_t> input;  // index in Model::features() of each of this model's features
  bool has_clip = false;
  double clip_min = 0, clip_max = 0;
  Transform transform;
  bool chroma_correction = false;
  double chroma_param = 0;
  size_t guiding = 0, guided = 0;  // features holding "adm3" and "speed_chroma"
  SvrModel svr;

  bool transform_on(const ModelOptions& o) const {
    return transform.present && (transform.enabled || o.enable_transform);
  }
  bool clip_on(const ModelOptions& o) const { return has_clip && !o.disable_clip; }
};

constexpr size_t kMaxFeatures = 64;  // libvmaf's MAX_FEATURE_COUNT
constexpr size_t kMaxKnots = 10;     // libvmaf's MAX_KNOT_COUNT

Status bad(const std::string& what) { return {Errc::model_error, what}; }

Status number_at(const Json& j, const std::string& where, double* out) {
  if (!j.is_number()) return bad(where + " is not a number");
  *out = j.get<double>();
  if (!std::isfinite(*out)) return bad(where + " is not finite");
  return Status::ok();
}

Status parse_transform(const Json& t, Transform* out) {
  if (!t.is_object()) return bad("model_dict.score_transform is not an object");
  Transform tr;
  tr.present = true;
  for (auto it = t.begin(); it != t.end(); ++it) {
    const std::string& key = it.key();
    const Json& v = it.value();
    const std::string where = "model_dict.score_transform." + key;
    if (key == "enabled") {
      if (!v.is_boolean()) return bad(where + " is not true or false");
      tr.enabled = v.get<bool>();
    } else if (key == "p0" || key == "p1" || key == "p2") {
      bool& on = key == "p0" ? tr.p0_on : key == "p1" ? tr.p1_on : tr.p2_on;
      double& val = key == "p0" ? tr.p0 : key == "p1" ? tr.p1 : tr.p2;
      on = !v.is_null();
      if (on) VMAFX_TRY(number_at(v, where, &val));
    } else if (key == "knots") {
      tr.knots.clear();
      tr.knots_on = false;
      if (v.is_null()) continue;
      if (!v.is_array()) return bad(where + " is neither null nor an array");
      if (v.size() > kMaxKnots) return bad(where + " has more than " + std::to_string(kMaxKnots) + " knots");
      for (size_t k = 0; k < v.size(); k++) {
        const Json& p = v[k];
        const std::string pw = where + "[" + std::to_string(k) + "]";
        if (!p.is_array() || p.size() > 2) return bad(pw + " is not an [x, y] pair");
        std::pair<double, double> xy{0, 0};  // libvmaf leaves a missing coordinate at 0
        if (p.size() > 0) VMAFX_TRY(number_at(p[0], pw + "[0]", &xy.first));
        if (p.size() > 1) VMAFX_TRY(number_at(p[1], pw + "[1]", &xy.second));
        tr.knots.push_back(xy);
      }
      tr.knots_on = true;
    } else if (key == "out_lte_in" || key == "out_gte_in") {
      if (!v.is_string()) return bad(where + " is not a string (\"true\" or \"false\")");
      if (v.get<std::string>() == "true") (key == "out_lte_in" ? tr.out_lte_in : tr.out_gte_in) = true;
    }
  }
  *out = std::move(tr);
  return Status::ok();
}

// Parses {"model_dict": {...}}. Feature names are resolved by the caller.
Status parse_model(const Json& top, Submodel* out,
                   std::vector<std::vector<std::pair<std::string, std::string>>>* dicts) {
  if (!top.is_object()) return bad("a model is not a JSON object");
  auto md = top.find("model_dict");
  if (md == top.end()) return bad("no model_dict");
  const Json& d = *md;
  if (!d.is_object()) return bad("model_dict is not an object");

  Submodel m;
  auto need = [&](const char* key) -> const Json* {
    auto it = d.find(key);
    return it == d.end() ? nullptr : &*it;
  };

  const Json* type = need("model_type");
  if (!type) return bad("model_dict has no model_type");
  if (!type->is_string()) return bad("model_dict.model_type is not a string");
  const std::string ts = type->get<std::string>();
  if (ts == "LIBSVMNUSVR") m.type = ModelType::svr;
  else if (ts == "BOOTSTRAP_LIBSVMNUSVR") m.type = ModelType::bootstrap;
  else if (ts == "RESIDUEBOOTSTRAP_LIBSVMNUSVR") m.type = ModelType::residue_bootstrap;
  else return bad("unknown model_type '" + ts + "' (LIBSVMNUSVR, BOOTSTRAP_LIBSVMNUSVR, RESIDUEBOOTSTRAP_LIBSVMNUSVR)");

  const Json* norm = need("norm_type");
  if (!norm) return bad("model_dict has no norm_type");
  if (!norm->is_string()) return bad("model_dict.norm_type is not a string");
  const std::string ns = norm->get<std::string>();
  if (ns == "linear_rescale") m.linear_rescale = true;
  else if (ns != "none") return bad("unknown norm_type '" + ns + "' (linear_rescale, none)");

  const Json* names = need("feature_names");
  if (!names) return bad("model_dict has no feature_names");
  if (!names->is_array()) return bad("model_dict.feature_names is not an array");
  if (names->empty()) return bad("model_dict.feature_names is empty");
  if (names->size() > kMaxFeatures) return bad("model_dict.feature_names has more than 64 features");
  for (size_t i = 0; i < names->size(); i++) {
    if (!(*names)[i].is_string()) return bad("model_dict.feature_names[" + std::to_string(i) + "] is not a string");
    m.feature_names.push_back((*names)[i].get<std::string>());
  }
  const size_t n = m.feature_names.size();

  if (m.linear_rescale) {
    for (const char* key : {"slopes", "intercepts"}) {
      const Json* a = need(key);
      const std::string where = std::string("model_dict.") + key;
      if (!a) return bad(std::string("model_dict has no ") + key + " (norm_type linear_rescale needs them)");
      if (!a->is_array()) return bad(where + " is not an array");
      if (a->size() != n + 1)
        return bad(where + " has " + std::to_string(a->size()) + " values, expected " + std::to_string(n + 1) +
                   " (the score's, then one per feature)");
      std::vector<double> v(n + 1);
      for (size_t i = 0; i <= n; i++) VMAFX_TRY(number_at((*a)[i], where + "[" + std::to_string(i) + "]", &v[i]));
      const bool slopes = std::strcmp(key, "slopes") == 0;
      // The score is denormalised as (x - intercept) / slope.
      if (slopes && v[0] == 0) return bad(where + "[0] is 0: the score cannot be denormalised");
      (slopes ? m.slope : m.intercept) = v[0];
      (slopes ? m.f_slope : m.f_intercept).assign(v.begin() + 1, v.end());
    }
  }

  dicts->assign(n, {});
  if (const Json* od = need("feature_opts_dicts")) {
    if (!od->is_array()) return bad("model_dict.feature_opts_dicts is not an array");
    if (od->size() > kMaxFeatures) return bad("model_dict.feature_opts_dicts has more than 64 entries");
    for (size_t i = 0; i < od->size(); i++) {
      const Json& e = (*od)[i];
      const std::string where = "model_dict.feature_opts_dicts[" + std::to_string(i) + "]";
      if (!e.is_object()) return bad(where + " is not an object");
      if (i >= n) continue;  // libvmaf reads entries past the last feature and never uses them
      for (auto it = e.begin(); it != e.end(); ++it) {
        std::string text;
        if (it.value().is_number()) text = normalized_number(it.value().get<double>());
        else if (it.value().is_boolean()) text = it.value().get<bool>() ? "true" : "false";
        else if (it.value().is_string()) text = it.value().get<std::string>();
        else return bad(where + "." + it.key() + " is not a number, boolean or string");
        (*dicts)[i].emplace_back(it.key(), text);
      }
    }
  }

  if (const Json* c = need("score_clip")) {
    if (!c->is_array()) return bad("model_dict.score_clip is not an array");
    if (c->size() < 2) return bad("model_dict.score_clip needs [min, max]");
    VMAFX_TRY(number_at((*c)[0], "model_dict.score_clip[0]", &m.clip_min));
    VMAFX_TRY(number_at((*c)[1], "model_dict.score_clip[1]", &m.clip_max));
    m.has_clip = true;
  }

  if (const Json* t = need("score_transform")) VMAFX_TRY(parse_transform(*t, &m.transform));

  if (const Json* c = need("chroma_correction_parameter")) {
    VMAFX_TRY(number_at(*c, "model_dict.chroma_correction_parameter", &m.chroma_param));
    // libvmaf produces no score at all when the parameter is 0; refuse that here.
    if (m.chroma_param == 0) return bad("model_dict.chroma_correction_parameter is 0");
    int n_guiding = 0, n_guided = 0;
    for (size_t i = 0; i < n; i++) {
      if (m.feature_names[i].find("adm3") != std::string::npos) m.guiding = i, n_guiding++;
      if (m.feature_names[i].find("speed_chroma") != std::string::npos) m.guided = i, n_guided++;
    }
    if (n_guiding != 1 || n_guided != 1)
      return bad("chroma_correction_parameter needs exactly one feature named *adm3* and one *speed_chroma*");
    m.chroma_correction = true;
  }

  const Json* svm = need("model");
  if (!svm) return bad("model_dict has no model (the libsvm text)");
  if (!svm->is_string()) return bad("model_dict.model is not a string");
  Status s = SvrModel::parse(svm->get<std::string>(), &m.svr);
  if (!s) return s.prepend("model_dict.model");
  if (size_t(m.svr.max_index()) > n)
    return bad("model_dict.model uses feature index " + std::to_string(m.svr.max_index()) + " but the model has " +
               std::to_string(n) + " features");

  *out = std::move(m);
  return Status::ok();
}

// ---- prediction: libvmaf's predict.c, in its order -----------------------------------------------------------

double normalize(const Submodel& m, double slope, double intercept, double v) {
  return m.linear_rescale ? slope * v + intercept : v;
}
double denormalize(const Submodel& m, double slope, double intercept, double v) {
  return m.linear_rescale ? (v - intercept) / slope : v;
}

// The line through two knots (both coordinates ascending); a degenerate pair gives the identity.
void line_through(std::pair<double, double> a, std::pair<double, double> b, double* slope, double* offset) {
  if (b.first - a.first == 0 || b.second - a.second == 0) {
    *slope = 1.0;
    *offset = 0.0;
  } else if (a.first == 0) {
    *offset = a.second;
    *slope = (b.second - *offset) / b.first;
  } else {
    *slope = (b.second - a.second) / (b.first - a.first);
    *offset = a.second - (a.first * (*slope));
  }
}

// Piecewise-linear mapping through the knots, extended linearly (or flat) beyond the ends. Like libvmaf, a knot
// list that stops ascending ends the mapping with the value reached so far.
void piecewise_linear(double x, const std::vector<std::pair<double, double>>& k, double* y) {
  if (k.size() <= 1) return;
  const size_t n_seg = k.size() - 1;
  *y = 0.0;
  for (size_t i = 0; i < n_seg; i++) {
    if (!(k[i].first < k[i + 1].first && k[i].second <= k[i + 1].second)) return;
    const bool inside = k[i].first <= x && x <= k[i + 1].first;
    if (k[i].second == k[i + 1].second) {
      if (inside) *y = k[i].second;
      if (i == 0 && x < k[i].first) *y = k[i].second;
      if (i == n_seg - 1 && x > k[i + 1].first) *y = k[i].second;
    } else {
      double slope = 0.0, offset = 0.0;
      line_through(k[i], k[i + 1], &slope, &offset);
      if (inside) *y = slope * x + offset;
      if (i == 0 && x < k[i].first) *y = slope * x + offset;
      if (i == n_seg - 1 && x > k[i + 1].first) *y = slope * x + offset;
    }
  }
}

// Polynomial, then piecewise-linear, then rectification against the input.
double transform(const Transform& t, double y_in) {
  double y_out;
  if (t.p0_on || t.p1_on || t.p2_on) {
    y_out = 0.;
    if (t.p0_on) y_out += t.p0;
    if (t.p1_on) y_out += t.p1 * y_in;
    if (t.p2_on) y_out += t.p2 * y_in * y_in;
  } else {
    y_out = y_in;
  }
  if (t.knots_on) {
    const double y_stage = y_out;
    piecewise_linear(y_stage, t.knots, &y_out);
  }
  if (t.out_lte_in) y_out = (y_out > y_in) ? y_in : y_out;
  if (t.out_gte_in) y_out = (y_out < y_in) ? y_in : y_out;
  return y_out;
}

double clip(const Submodel& m, double v) {
  v = (v < m.clip_min) ? m.clip_min : v;
  v = (v > m.clip_max) ? m.clip_max : v;
  return v;
}

double finish(const Submodel& m, double v, bool do_transform, bool do_clip) {
  if (do_transform) v = transform(m.transform, v);
  if (do_clip) v = clip(m, v);
  return v;
}

// Normalise the features, evaluate the SVR, denormalise: the score before transform and clip.
double raw_score(const Submodel& m, const double* values) {
  double x[kMaxFeatures];
  const size_t n = m.feature_names.size();
  for (size_t i = 0; i < n; i++) {
    const double v = values[m.input[i]];
    x[i] = m.linear_rescale ? normalize(m, m.f_slope[i], m.f_intercept[i], v) : v;
  }
  if (m.chroma_correction) {
    // A chroma speed of exactly 0 (no chroma) is replaced by one guided by luma adm3.
    const double fs = m.linear_rescale ? m.f_slope[m.guided] : 0, fi = m.linear_rescale ? m.f_intercept[m.guided] : 0;
    const double gs = m.linear_rescale ? m.f_slope[m.guiding] : 0, gi = m.linear_rescale ? m.f_intercept[m.guiding] : 0;
    const double guided = denormalize(m, fs, fi, x[m.guided]);
    if (guided == 0.0) {
      const double guiding = denormalize(m, gs, gi, x[m.guiding]);
      const double corrected = (-m.chroma_param * guiding) + m.chroma_param;
      x[m.guided] = normalize(m, fs, fi, corrected);
    }
  }
  const double p = m.svr.predict(x, n);
  return denormalize(m, m.slope, m.intercept, p);
}

double percentile(const std::vector<double>& sorted, double perc) {
  const double p = perc * double(sorted.size() - 1) / 100.;
  const int lo = int(std::floor(p));
  const int hi = int(std::ceil(p));
  return lo == hi ? sorted[size_t(lo)] : sorted[size_t(lo)] * (hi - p) + sorted[size_t(hi)] * (p - lo);
}

// `sys_error` receives the errno of a failure.
Status read_file(const std::string& path, std::string* out, int* sys_error) {
  errno = 0;
  FILE* f = std::fopen(path.c_str(), "rb");
  *sys_error = errno;
  if (!f) return bad("cannot open model file " + path + ": " + std::strerror(*sys_error));
  std::string data;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    data.append(buf, n);
    if (data.size() > Model::kMaxFileBytes) {
      std::fclose(f);
      *sys_error = EFBIG;
      return bad("model file " + path + " is larger than " + std::to_string(Model::kMaxFileBytes >> 20) +
                 " MiB (the largest libvmaf model is under 1 MiB): not a model");
    }
  }
  const int err = std::ferror(f) ? errno : 0;
  *sys_error = err;
  std::fclose(f);
  if (err) return bad("cannot read model file " + path + ": " + std::strerror(err));
  *out = std::move(data);
  return Status::ok();
}

}  // namespace

struct Model::Impl {
  std::string name;
  std::vector<ModelFeature> features;
  std::vector<Submodel> models;  // a collection: [0] gives the score, the rest are the bootstrap members
  bool collection = false;
};

namespace {

// Adds a model's features to the union (same score name: same input) and records where each one is.
// Overloads "<extractor>.<option>" -> value replace or add that option in the dictionary of every feature of that
// extractor (libvmaf's vmaf_model_feature_overload).
using Overrides = std::vector<std::pair<std::string, std::string>>;

Status link_features(const std::vector<std::vector<std::pair<std::string, std::string>>>& dicts, Submodel* m,
                     const Overrides& overrides, Model::Impl* impl) {
  m->input.clear();
  for (size_t i = 0; i < m->feature_names.size(); i++) {
    ModelFeature f;
    std::vector<std::pair<std::string, std::string>> dict = dicts[i];
    if (const features::FeatureDesc* ex = features::provider_of(m->feature_names[i])) {
      const std::string prefix = std::string(ex->name) + ".";
      for (const auto& [key, value] : overrides) {
        if (key.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string opt = key.substr(prefix.size());
        bool replaced = false;
        for (auto& kv : dict)
          if (kv.first == opt) kv.second = value, replaced = true;
        if (!replaced) dict.emplace_back(opt, value);
      }
    }
    VMAFX_TRY(resolve_feature(m->feature_names[i], dict, &f));
    size_t at = impl->features.size();
    for (size_t k = 0; k < impl->features.size(); k++)
      if (impl->features[k].score_name == f.score_name) at = k;
    if (at == impl->features.size()) impl->features.push_back(std::move(f));
    m->input.push_back(at);
  }
  return Status::ok();
}

Status parse_document(const std::string& source, const char* data, size_t size, const Overrides& overrides,
                      Model::Impl* impl) {
  Json doc;
  try {
    doc = Json::parse(data, data + size);
  } catch (const std::exception& e) {
    return bad("malformed JSON: " + std::string(e.what()));
  }
  if (!doc.is_object()) return bad("the top level is not a JSON object");
  impl->name = source;

  if (doc.contains("model_dict")) {
    Submodel m;
    std::vector<std::vector<std::pair<std::string, std::string>>> dicts;
    VMAFX_TRY(parse_model(doc, &m, &dicts));
    VMAFX_TRY(link_features(dicts, &m, overrides, impl));
    impl->models.push_back(std::move(m));
    return Status::ok();
  }

  // A bootstrap collection: members keyed "0", "1", ... in file order (a key out of sequence is skipped, as in
  // libvmaf). "0" is the model whose score is reported; "1".. are the bootstrap members.
  size_t next = 0;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (it.key() != std::to_string(next)) continue;
    Submodel m;
    std::vector<std::vector<std::pair<std::string, std::string>>> dicts;
    Status s = parse_model(it.value(), &m, &dicts);
    if (s) s = link_features(dicts, &m, overrides, impl);
    if (!s) return s.prepend("model \"" + it.key() + "\"");
    impl->models.push_back(std::move(m));
    next++;
  }
  if (next == 0) return bad("no model_dict and no bootstrap models (\"0\", \"1\", ...)");
  if (next < 2) return bad("a bootstrap collection needs models \"0\" and at least \"1\"");
  const ModelType t = impl->models[1].type;
  if (t == ModelType::svr)
    return bad("model \"1\": model_type LIBSVMNUSVR in a collection (expected BOOTSTRAP_LIBSVMNUSVR or "
               "RESIDUEBOOTSTRAP_LIBSVMNUSVR)");
  for (size_t i = 2; i < impl->models.size(); i++)
    if (impl->models[i].type != t)
      return bad("model \"" + std::to_string(i) + "\": model_type differs from model \"1\"");
  impl->collection = true;
  return Status::ok();
}

const BuiltinModelData* find_builtin(const std::string& name) {
  for (const BuiltinModelData* b = kBuiltinModels; b->name; b++)
    if (name == b->name) return b;
  return nullptr;
}

const std::vector<ModelFeature> kNoFeatures;
const std::string kNoName;

}  // namespace

Status Model::load_from_buffer(const std::string& source, const char* data, size_t size, Model* out) {
  return load_from_buffer(source, data, size, {}, out);
}

Status Model::load_from_buffer(const std::string& source, const char* data, size_t size, const Overrides& overrides,
                               Model* out) {
  if (!out) return {Errc::invalid_argument, "Model::load_from_buffer: no output"};
  if (!data && size) return {Errc::invalid_argument, "Model::load_from_buffer: no data"};
  for (const auto& kv : overrides) {
    const size_t dot = kv.first.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == kv.first.size() ||
        !features::find(kv.first.substr(0, dot)))
      return {Errc::model_error, "model " + source + ": overload '" + kv.first + "=" + kv.second +
                                     "' is not <feature extractor>.<option>=<value>"};
  }
  auto impl = std::make_shared<Impl>();
  Status s = parse_document(source, data ? data : "", size, overrides, impl.get());
  if (!s) return s.prepend("model " + source);
  out->impl_ = std::move(impl);
  return Status::ok();
}

Status Model::load(const std::string& version_or_path, Model* out) { return load(version_or_path, {}, out); }

Status Model::load(const std::string& version_or_path, const Overrides& overrides, Model* out) {
  if (!out) return {Errc::invalid_argument, "Model::load: no output"};
  if (version_or_path.empty()) return {Errc::model_error, "model: no version or path given"};
  if (const BuiltinModelData* b = find_builtin(version_or_path))
    return load_from_buffer(version_or_path, reinterpret_cast<const char*>(b->data), b->size, overrides, out);
  std::string data;
  int sys_error = 0;
  Status s = read_file(version_or_path, &data, &sys_error);
  if (!s && sys_error == ENOENT && version_or_path.find('/') == std::string::npos &&
      version_or_path.find(".json") == std::string::npos) {
    // Looks like a version name: say which ones exist.
    std::string all;
    for (const auto& n : builtin_names()) all += (all.empty() ? "" : ", ") + n;
    return s.prepend("'" + version_or_path + "' is neither a built-in model (" + all + ") nor a file");
  }
  VMAFX_TRY(s);
  return load_from_buffer(version_or_path, data.data(), data.size(), overrides, out);
}

std::vector<std::string> Model::builtin_names() {
  std::vector<std::string> v;
  for (const BuiltinModelData* b = kBuiltinModels; b->name; b++) v.emplace_back(b->name);
  return v;
}

bool Model::is_builtin(const std::string& version) { return find_builtin(version) != nullptr; }

const std::string& Model::name() const { return impl_ ? impl_->name : kNoName; }
const std::vector<ModelFeature>& Model::features() const { return impl_ ? impl_->features : kNoFeatures; }
bool Model::is_collection() const { return impl_ && impl_->collection; }
size_t Model::member_count() const { return is_collection() ? impl_->models.size() - 1 : 0; }

std::vector<std::string> Model::score_names(const std::string& base) const {
  std::vector<std::string> v{base};
  if (!is_collection()) return v;
  for (size_t i = 1; i <= member_count(); i++) {
    char num[16];
    std::snprintf(num, sizeof num, "_%04zu", i);
    v.push_back(base + num);
  }
  for (const char* suffix : {"_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi"}) v.push_back(base + suffix);
  return v;
}

Status Model::predict(const double* feature_values, const ModelOptions& opts, Prediction* out) const {
  if (!impl_) return {Errc::invalid_argument, "Model::predict: no model loaded"};
  if (!feature_values || !out) return {Errc::invalid_argument, "Model::predict: null feature values or output"};
  Prediction p;
  const Submodel& m0 = impl_->models[0];
  p.score = finish(m0, raw_score(m0, feature_values), m0.transform_on(opts), m0.clip_on(opts));
  if (impl_->collection) {
    // Statistics over the members' raw scores (no transform, no clip); then the bagged score and the interval are
    // transformed and clipped like a score, with the first member's settings, and the standard deviation is scaled
    // by the slope of that mapping around the mean.
    const size_t n = impl_->models.size() - 1;
    std::vector<double> raw(n);
    p.members.resize(n);
    for (size_t i = 0; i < n; i++) {
      const Submodel& m = impl_->models[i + 1];
      raw[i] = raw_score(m, feature_values);
      p.members[i] = finish(m, raw[i], m.transform_on(opts), m.clip_on(opts));
    }
    double sum = 0.;
    for (double s : raw) sum += s;
    const double mean = sum / double(n);
    const double delta = 0.01;
    double ssd = 0.;
    for (double s : raw) ssd += (s - mean) * (s - mean);  // libvmaf's pow(x, 2), which compiles to x * x
    double stddev = std::sqrt(ssd / double(n));
    std::sort(raw.begin(), raw.end());
    const Submodel& m1 = impl_->models[1];
    const bool tr = m1.transform_on(opts), cl = m1.clip_on(opts);
    p.bagging = finish(m1, mean, tr, cl);
    p.ci_lo = finish(m1, percentile(raw, 2.5), tr, cl);
    p.ci_hi = finish(m1, percentile(raw, 97.5), tr, cl);
    const double plus = finish(m1, mean + delta, tr, cl);
    const double minus = finish(m1, mean - delta, tr, cl);
    const double slope = (plus - minus) / (2.0 * delta);
    p.stddev = stddev * slope;
    p.has_ci = true;
  }
  *out = std::move(p);
  return Status::ok();
}

}  // namespace vmafx
