// SPDX-License-Identifier: LGPL-2.1-or-later
// VMAF models: libvmaf's JSON model files (built in or from a path), the features they need under libvmaf's score
// names, and the prediction (normalise, SVR, denormalise, optional transform, clip), with libvmaf's arithmetic so the
// score is the same double. A bootstrap collection (vmaf_b_v0.6.3) also gives the bagged score, its standard
// deviation and the 95 % confidence interval.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vmafx/status.h"

namespace vmafx {

struct ModelOptions {
  bool disable_clip = false;      // libvmaf's model param disable_clip: skip score_clip
  bool enable_transform = false;  // libvmaf's enable_transform (the "phone model"): apply score_transform
};

struct ModelFeature {
  std::string name;       // as the model lists it, e.g. "VMAF_integer_feature_adm2_score"
  std::string extractor;  // the libvmaf extractor that provides it: "adm", "vif", "motion", "float_adm", "cambi", ...
  // The collector / results name, libvmaf's: the alias ("integer_adm2") plus a suffix per option that differs from
  // the extractor's default, sorted by option name ("integer_adm2_egl_1").
  std::string score_name;
  // The model's feature_opts_dicts entry as libvmaf's extractor receives it: numbers normalised through float and
  // "%g" (as libvmaf's dictionary does), booleans as 1 / 0. String options are only in text_opts.
  std::map<std::string, double> opts;
  std::map<std::string, std::string> text_opts;  // every option as libvmaf's dictionary text ("1", "true", "bilinear")
};

struct Prediction {
  double score = 0;  // the model's score (libvmaf's "vmaf" column)
  // Bootstrap collections only (has_ci): computed on the members' raw scores, then transformed and clipped like a
  // score; stddev is scaled by the transform's slope around the mean.
  bool has_ci = false;
  double bagging = 0, stddev = 0, ci_lo = 0, ci_hi = 0;
  std::vector<double> members;  // each member's score ("vmaf_0001", ...), transform and clip as for score
};

class Model {
 public:
  // Model files larger than this are refused before parsing (libvmaf's largest, vmaf_b_v0.6.3, is 0.4 MiB).
  static constexpr size_t kMaxFileBytes = size_t(16) << 20;

  // A built-in version (see builtin_names()) or, if no built-in has that name, a path to a model JSON file. Either
  // a single model ({"model_dict": ...}) or a bootstrap collection ({"0": {...}, "1": {...}, ...}). Every failure is
  // Errc::model_error naming the file (or version) and the problem.
  static Status load(const std::string& version_or_path, Model* out);
  // With libvmaf's feature overloads: {"vif.vif_enhn_gain_limit", "1.0"} sets that option of every model feature
  // the vif extractor provides (added, or replacing the model file's value).
  using Overrides = std::vector<std::pair<std::string, std::string>>;
  static Status load(const std::string& version_or_path, const Overrides& overrides, Model* out);
  // Parses model JSON held in memory; `source` names it in messages.
  static Status load_from_buffer(const std::string& source, const char* data, size_t size, Model* out);
  static Status load_from_buffer(const std::string& source, const char* data, size_t size, const Overrides& overrides,
                                 Model* out);

  static std::vector<std::string> builtin_names();
  static bool is_builtin(const std::string& version);

  bool loaded() const { return impl_ != nullptr; }
  const std::string& name() const;  // the version or path it was loaded from
  const std::vector<ModelFeature>& features() const;
  bool is_collection() const;
  // Bootstrap members (the collection's models after the first; 20 for vmaf_b_v0.6.3). 0 for a single model.
  size_t member_count() const;

  // The score columns libvmaf's CLI writes for this model, in its order: `base`; for a collection also
  // base_0001 .. base_NNNN (members), base_bagging, base_stddev, base_ci_p95_lo, base_ci_p95_hi.
  std::vector<std::string> score_names(const std::string& base = "vmaf") const;

  // `feature_values[i]` is the score of features()[i] for one frame.
  Status predict(const double* feature_values, const ModelOptions& opts, Prediction* out) const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

}  // namespace vmafx
