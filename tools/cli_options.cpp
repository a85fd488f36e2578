// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cli_options.h"

#include <cctype>
#include <limits>

namespace vmafx::tools {

namespace {

Status bad(std::string message) { return {Errc::invalid_argument, std::move(message)}; }

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// Splits at every `sep`, keeping empty pieces ("a::b" -> a, "", b).
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  for (;;) {
    const size_t end = s.find(sep, pos);
    out.push_back(s.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    if (end == std::string_view::npos) return out;
    pos = end + 1;
  }
}

}  // namespace

Status parse_uint(std::string_view text, uint64_t min, uint64_t max, const std::string& what, uint64_t* out) {
  auto range = [&] {
    return bad(what + " must be a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
               ", not " + quoted(text));
  };
  if (text.empty()) return range();
  unsigned base = 10;
  std::string_view digits = text;
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    digits = text.substr(2);
    if (digits.empty()) return range();
  } else if (text.size() > 1 && text[0] == '0') {
    return bad(what + ": " + quoted(text) + " has a leading zero (libvmaf would read it as octal); write it without");
  }
  uint64_t v = 0;
  for (char c : digits) {
    unsigned d;
    if (c >= '0' && c <= '9') d = unsigned(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f') d = unsigned(c - 'a' + 10);
    else if (base == 16 && c >= 'A' && c <= 'F') d = unsigned(c - 'A' + 10);
    else return range();
    if (v > (std::numeric_limits<uint64_t>::max() - d) / base) return range();
    v = v * base + d;
  }
  if (v < min || v > max) return range();
  *out = v;
  return Status::ok();
}

const std::vector<EnvironmentVariable>& cli_environment_table() {
  static const std::vector<EnvironmentVariable> table = {
      {"VMAFX_READER", "read or mmap",
       "mmap (default): regular files are mapped and read in place; read: read() into buffers, always"},
      {"VMAFX_PREFETCH", "an integer 0..16",
       "helper threads per mapped input that touch frames ahead of the scorer and drop the page-table entries of "
       "frames it released (default 2; 0: none)"},
      {"VMAFX_TRACE", "0 or 1",
       "1: the phases of the run (open, scorer ready, first and last frame, flush, exit) with their times on stderr"},
  };
  return table;
}

Status parse_environment(const std::function<const char*(const char*)>& lookup, CliEnvironment* out) {
  CliEnvironment e;
  auto get = [&](const char* name) -> const char* {
    const char* v = lookup(name);
    return v && *v ? v : nullptr;
  };
  auto refused = [](const char* name, const char* accepts, const char* value) {
    return Status{Errc::invalid_argument, std::string(name) + " must be " + accepts + ", not '" + value + "'"};
  };
  if (const char* v = get("VMAFX_READER")) {
    if (std::string_view(v) != "read" && std::string_view(v) != "mmap")
      return refused("VMAFX_READER", "read or mmap", v);
    e.mmap = std::string_view(v) == "mmap";
  }
  if (const char* v = get("VMAFX_PREFETCH")) {
    uint64_t n = 0;
    if (!parse_uint(v, 0, 16, "VMAFX_PREFETCH", &n)) return refused("VMAFX_PREFETCH", "an integer 0..16", v);
    e.prefetch = unsigned(n);
  }
  if (const char* v = get("VMAFX_TRACE")) {
    if (std::string_view(v) != "0" && std::string_view(v) != "1") return refused("VMAFX_TRACE", "0 or 1", v);
    e.trace = std::string_view(v) == "1";
  }
  VMAFX_TRY(tuning_from(lookup, &e.tuning));
  *out = std::move(e);
  return Status::ok();
}

bool is_valid_name(std::string_view name) { return is_valid_score_name(name); }

size_t find_option(const OptionList& opts, std::string_view key) {
  for (size_t i = 0; i < opts.size(); i++)
    if (opts[i].first == key) return i;
  return opts.size();
}

void set_option(OptionList* opts, std::string key, std::string value) {
  const size_t at = find_option(*opts, key);
  if (at < opts->size()) (*opts)[at].second = std::move(value);
  else opts->emplace_back(std::move(key), std::move(value));
}

Status parse_feature_spec(std::string_view spec, FeatureRequest* out) {
  const std::string where = "--feature " + quoted(spec);
  const size_t eq = spec.find('=');
  const std::string_view name = spec.substr(0, eq);
  if (name.empty()) return bad(spec.empty() ? "--feature needs a feature name" : where + ": no feature name");
  if (!is_valid_name(name)) return bad(where + ": " + quoted(name) + " is not a feature name");
  FeatureRequest f;
  f.name = std::string(name);
  if (eq != std::string_view::npos) {
    for (std::string_view kv : split(spec.substr(eq + 1), ':')) {
      if (kv.empty()) return bad(where + ": empty option (after '=', two ':' in a row, or one at the end)");
      const size_t e = kv.find('=');
      if (e == std::string_view::npos) return bad(where + ": option " + quoted(kv) + " needs a value (OPTION=VALUE)");
      const std::string_view key = kv.substr(0, e), val = kv.substr(e + 1);
      if (key.empty()) return bad(where + ": option " + quoted(kv) + " has no name");
      if (!is_valid_name(key)) return bad(where + ": " + quoted(key) + " is not an option name");
      if (val.empty()) return bad(where + ": option " + quoted(key) + " has an empty value");
      if (val.find('=') != std::string_view::npos)
        return bad(where + ": option " + quoted(kv) + " has more than one '='");
      set_option(&f.options, std::string(key), std::string(val));
    }
  }
  *out = std::move(f);
  return Status::ok();
}

Status add_model(std::string_view spec, Selection* sel) {
  ModelSpec m;
  VMAFX_TRY(parse_model_spec(spec, &m));
  sel->models.push_back(std::move(m));
  return Status::ok();
}

Status add_feature(std::string_view spec, Selection* sel) {
  FeatureRequest f;
  VMAFX_TRY(parse_feature_spec(spec, &f));
  sel->features.push_back(std::move(f));
  return Status::ok();
}

namespace {

void preset_model(Selection* sel, const char* version, const char* column) {
  ModelSpec m;
  m.version = version;
  m.request.model = version;
  m.request.name = column;
  sel->models.push_back(std::move(m));
}

void preset_feature(Selection* sel, std::string_view spec) {
  FeatureRequest f;
  Status s = parse_feature_spec(spec, &f);
  (void)s;  // the presets below are well formed (the unit tests parse each)
  sel->features.push_back(std::move(f));
}

// libvmaf's CHECKED_REPLACE: the first feature of that name is replaced, else the feature is appended.
void preset_replace_feature(Selection* sel, std::string_view spec) {
  FeatureRequest f;
  Status s = parse_feature_spec(spec, &f);
  (void)s;
  for (auto& have : sel->features) {
    if (have.name == f.name) {
      have = std::move(f);
      return;
    }
  }
  sel->features.push_back(std::move(f));
}

// libvmaf 3.2's aom_ctc_v1_0 .. v7_0: each version is the previous one plus what it adds.
void aom_ctc(unsigned major, Selection* sel) {
  preset_model(sel, "vmaf_v0.6.1", "vmaf");
  preset_model(sel, "vmaf_v0.6.1neg", "vmaf_neg");
  preset_feature(sel, "psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5");
  preset_feature(sel, "ciede");
  preset_feature(sel, "float_ssim=enable_db=true:clip_db=true");
  preset_feature(sel, "float_ms_ssim=enable_db=true:clip_db=true");
  preset_feature(sel, "psnr_hvs");
  if (major >= 3) preset_feature(sel, "cambi");
  if (major >= 6) sel->common_bitdepth = true;
  if (major >= 7) preset_replace_feature(sel, "float_ssim=scale=1:enable_db=true:clip_db=true");
}

void nflx_ctc_v1(Selection* sel) {
  preset_model(sel, "vmaf_4k_v0.6.1", "vmaf");
  preset_model(sel, "vmaf_4k_v0.6.1neg", "vmaf_neg");
  preset_feature(sel, "psnr=enable_chroma=true:enable_apsnr=true");
  preset_feature(sel, "float_ssim=enable_db=true:clip_db=true");
  preset_feature(sel, "cambi");
}

constexpr const char* kAomVersions[] = {"v1.0", "v2.0", "v3.0", "v4.0", "v5.0", "v6.0", "v7.0"};

}  // namespace

std::string ctc_versions(Ctc which) {
  if (which == Ctc::nflx) return "v1.0";
  std::string all;
  for (const char* v : kAomVersions) all += (all.empty() ? "" : ", ") + std::string(v);
  return all;
}

Status apply_ctc(Ctc which, std::string_view version, Selection* sel) {
  if (which == Ctc::nflx) {
    if (version != "v1.0") return bad("--nflx_ctc: unknown version " + quoted(version) + " (known: v1.0)");
    nflx_ctc_v1(sel);
    return Status::ok();
  }
  if (version == "proposed") return bad("--aom_ctc proposed is deprecated (libvmaf refuses it too); use v1.0 or later");
  for (unsigned i = 0; i < sizeof kAomVersions / sizeof kAomVersions[0]; i++) {
    if (version == kAomVersions[i]) {
      aom_ctc(i + 1, sel);
      return Status::ok();
    }
  }
  return bad("--aom_ctc: unknown version " + quoted(version) + " (known: " + ctc_versions(Ctc::aom) + ")");
}

Status finish_selection(bool no_prediction, Selection* sel) {
  if (sel->models.empty() && !no_prediction) {
    ModelSpec m;
    m.version = "vmaf_v0.6.1";
    m.request.model = m.version;
    sel->models.push_back(std::move(m));
  }
  for (size_t i = 0; i < sel->models.size(); i++) {
    for (size_t j = 0; j < i; j++) {
      if (sel->models[i].column() == sel->models[j].column())
        return bad("models " + sel->models[j].label() + " and " + sel->models[i].label() +
                   " both score into the column '" + sel->models[i].column() +
                   "': each model needs its own name (--model ...:name=COLUMN), as in libvmaf");
    }
  }
  return Status::ok();
}

Status add_model_features(const std::vector<ModelFeatureUse>& uses, const ModelSpec& model,
                          std::vector<FeatureRequest>* out) {
  for (const auto& [key, value] : model.request.overrides) {
    const std::string ext = key.substr(0, key.find('.'));
    bool used = false;
    std::string all;
    for (const auto& u : uses) {
      used = used || u.extractor == ext;
      if (all.find("'" + u.extractor + "'") == std::string::npos) all += (all.empty() ? "'" : ", '") + u.extractor + "'";
    }
    if (!used)
      return bad("--model " + model.label() + ": " + key + "=" + value + " names extractor '" + ext +
                 "', which the model does not use (its extractors: " + all + ")");
  }
  std::vector<FeatureRequest> add;
  for (const auto& u : uses) {
    FeatureRequest f{u.extractor, u.options};
    for (const auto& [key, value] : model.request.overrides)
      if (key.compare(0, u.extractor.size() + 1, u.extractor + ".") == 0)
        set_option(&f.options, key.substr(u.extractor.size() + 1), value);
    bool have = false;
    for (const auto* list : {out, &add})
      for (const auto& g : *list) have = have || (g.name == f.name && g.options == f.options);
    if (!have) add.push_back(std::move(f));
  }
  for (auto& f : add) out->push_back(std::move(f));
  return Status::ok();
}


Status parse_distorted_list(std::string_view text, const std::string& name, std::vector<std::string>* out) {
  if (text.find('\0') != std::string_view::npos)
    return bad("--distorted-list " + name + " holds a NUL byte: it must be a text file, one path per line");
  std::vector<std::string> paths;
  for (std::string_view line : split(text, '\n')) {
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;
    const size_t last = line.find_last_not_of(" \t\r");
    paths.emplace_back(line.substr(first, last - first + 1));
  }
  if (paths.empty())
    return bad("--distorted-list " + name + " names no distorted input (one path per line; '#' starts a comment)");
  out->insert(out->end(), paths.begin(), paths.end());
  return Status::ok();
}

std::string distorted_stem(const std::string& path) {
  const size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot > 0) name.erase(dot);
  return name;
}

Status results_paths(const std::string& pattern, const std::vector<std::string>& dists, std::vector<std::string>* out) {
  const bool has_name = pattern.find("%s") != std::string::npos, has_index = pattern.find("%d") != std::string::npos;
  if (dists.size() > 1 && !has_name && !has_index)
    return bad("--output " + pattern + " names one file for " + std::to_string(dists.size()) +
               " distorted inputs: put %s (each distorted file's name without folder and extension) or %d (its "
               "index, from 0) in it, e.g. scores_%s.json");
  std::vector<std::string> paths;
  for (size_t i = 0; i < dists.size(); i++) {
    std::string p;
    for (size_t k = 0; k < pattern.size(); k++) {
      if (pattern[k] == '%' && k + 1 < pattern.size() && pattern[k + 1] == 's') {
        p += distorted_stem(dists[i]);
        k++;
      } else if (pattern[k] == '%' && k + 1 < pattern.size() && pattern[k + 1] == 'd') {
        p += std::to_string(i);
        k++;
      } else {
        p += pattern[k];
      }
    }
    for (size_t j = 0; j < i; j++)
      if (paths[j] == p)
        return bad("--output " + pattern + " gives " + dists[j] + " and " + dists[i] + " the same results file " + p +
                   ": use %d (the index, from 0) beside or instead of %s");
    paths.push_back(std::move(p));
  }
  *out = std::move(paths);
  return Status::ok();
}

}  // namespace vmafx::tools
