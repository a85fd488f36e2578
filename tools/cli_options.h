// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx-score's option values in libvmaf's syntax, parsed by pure functions (no I/O, no engine calls), so that each
// spelling is unit-tested (tests/cli/test_cli_options.cpp) apart from scoring:
//   numbers             strict: decimal or 0x hex, range-checked, never wrapped
//   --model SPEC        the engine's parser (vmafx/model_spec.h): version=NAME | path=FILE, name=COLUMN, disable_clip,
//                       enable_transform, EXTRACTOR.OPTION=VALUE
//   --feature SPEC      NAME or NAME=OPTION=VALUE:OPTION=VALUE...
//   --aom_ctc V, --nflx_ctc V   libvmaf's presets: lists of models and features
//   -n                  no prediction (the models still say which features to compute)
// Everything libvmaf 3.2's CLI accepts with a meaning is accepted with the same meaning; what it accepts and then
// ignores or misreads (a value after a second '=', "disable_clip=yes", an empty option) is an error here.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vmafx/model_spec.h"
#include "vmafx/scorer.h"  // ModelRequest, FeatureRequest, OptionList
#include "vmafx/status.h"
#include "vmafx/tuning.h"

namespace vmafx::tools {

// A whole unsigned number in [min, max]: decimal, or hexadecimal after 0x / 0X (libvmaf reads numbers with
// strtoul(..., 0) too). No sign, no blanks, no leading zeros (libvmaf would read "010" as octal 8), no wrap: anything
// else is Errc::invalid_argument naming `what` ("--width") and the range.
Status parse_uint(std::string_view text, uint64_t min, uint64_t max, const std::string& what, uint64_t* out);

// vmafx-score's environment (docs/cli.md, Environment): its own variables (cli_environment_table()) and the
// engine's (vmafx/tuning.h), read once when it starts. Unset or empty: the default; anything a variable does not
// accept is Errc::invalid_argument "NAME must be ..., not '...'".
struct CliEnvironment {
  bool mmap = true;       // VMAFX_READER: mmap (default: regular files mapped) or read (read() always)
  unsigned prefetch = 2;  // VMAFX_PREFETCH: helper threads per mapped input, 0..16
  bool trace = false;     // VMAFX_TRACE: the phases of the run on stderr
  EngineTuning tuning;    // the engine's variables (tuning_from)
};
const std::vector<EnvironmentVariable>& cli_environment_table();
Status parse_environment(const std::function<const char*(const char*)>& lookup, CliEnvironment* out);

// A column or feature name: letters, digits, '_', '-', '.', not starting with a digit, '-' or '.' (it becomes an
// XML attribute name and a CSV header). The engine's is_valid_score_name().
bool is_valid_name(std::string_view name);

// One --model, and libvmaf's --model syntax: the engine's parser (vmafx/model_spec.h), which the element's
// model-filename uses too. parse_model_spec(spec, &m) names "--model" in its messages.
using vmafx::ModelSpec;
using vmafx::parse_model_spec;

// libvmaf's --feature syntax: NAME, or NAME=OPTION=VALUE:OPTION=VALUE... (a repeated OPTION: the last value, in the
// first one's place, as libvmaf's dictionary keeps it).
Status parse_feature_spec(std::string_view spec, FeatureRequest* out);

// What the command line asks to score, in command-line order (libvmaf's order: models, then features).
struct Selection {
  std::vector<ModelSpec> models;
  std::vector<FeatureRequest> features;
  // Set by --aom_ctc v6.0 and later: libvmaf then scores inputs of different bit depths at the higher one.
  bool common_bitdepth = false;
};

Status add_model(std::string_view spec, Selection* sel);
Status add_feature(std::string_view spec, Selection* sel);

enum class Ctc { aom, nflx };
// libvmaf 3.2's presets, appended to what is there (as libvmaf does): --aom_ctc v1.0 .. v7.0, --nflx_ctc v1.0.
// "proposed" (deprecated in libvmaf) and unknown versions are errors listing the known ones.
Status apply_ctc(Ctc which, std::string_view version, Selection* sel);
// The versions apply_ctc() knows, "v1.0, v2.0, ...".
std::string ctc_versions(Ctc which);

// After every option: without a model and without -n, libvmaf's default model (version vmaf_v0.6.1, column "vmaf");
// every model's column must be unique (libvmaf's rule, also with -n).
Status finish_selection(bool no_prediction, Selection* sel);

// One feature of a loaded model as libvmaf's vmaf_use_features_from_model() asks for it: its extractor ("adm") and
// the model's options for it (feature_opts_dicts, as libvmaf's dictionary holds them).
struct ModelFeatureUse {
  std::string extractor;
  OptionList options;
};

// -n with a model: what the model would have computed, as feature requests. Each of `uses` becomes its extractor
// with its options, the model's EXTRACTOR.OPTION overloads merged in (an overload's value replaces the model's);
// it is appended to *out unless the same extractor with the same options is there already (libvmaf computes it
// once). An overload naming an extractor the model does not use is an error (libvmaf ignores it silently).
Status add_model_features(const std::vector<ModelFeatureUse>& uses, const ModelSpec& model,
                          std::vector<FeatureRequest>* out);

// ---- ladders: several distorted inputs against one reference ----

// --distorted-list: the text of the list file `name`, one path per line, in order. Blank lines and lines whose first
// non-blank character is '#' are left out; blanks around a path (spaces, tabs, the CR of a CRLF file) are dropped.
// A NUL byte, or a list without any path, is Errc::invalid_argument naming `name`.
Status parse_distorted_list(std::string_view text, const std::string& name, std::vector<std::string>* out);

// What %s in --output stands for: the distorted path's file name without its folder and its last extension
// ("enc/720p.y4m" -> "720p"; a leading dot is no extension: ".clip" stays ".clip").
std::string distorted_stem(const std::string& path);

// The results file of each distorted input: `pattern` (--output) with every "%s" replaced by distorted_stem() of its
// path and every "%d" by its index (0-based, command-line order); any other '%' is kept. With several inputs the
// pattern must hold %s or %d, and no two inputs may get the same file (two folders holding "enc.y4m" under %s):
// both Errc::invalid_argument saying what to write. One input with neither: the pattern itself, as given.
Status results_paths(const std::string& pattern, const std::vector<std::string>& dists, std::vector<std::string>* out);

// Where `key` is in `opts` (opts.size() if not there).
size_t find_option(const OptionList& opts, std::string_view key);
// Sets key to value: replaces an existing value in place, else appends.
void set_option(OptionList* opts, std::string key, std::string value);

}  // namespace vmafx::tools
