// SPDX-License-Identifier: LGPL-2.1-or-later
// libvmaf's --model syntax, parsed by a pure function (no I/O, no model loaded): what vmafx-score's --model and the
// element's model-filename take, so that one spelling means the same in both.
//   version=NAME | path=FILE (exactly one)     name=COLUMN (default "vmaf")
//   disable_clip[=true|false]  enable_transform[=true|false]
//   EXTRACTOR.OPTION=VALUE     an option of one of the model's feature extractors (vif.vif_enhn_gain_limit=1.0)
// and, ours, a first key without '=' that names the model alone ("vmaf_4k_v0.6.1", "./model.json"). Everything
// libvmaf 3.2 accepts with a meaning is accepted with the same meaning; what it accepts and then ignores or misreads
// (a value after a second '=', "disable_clip=yes", an empty parameter) is an error naming the parameter.
#pragma once

#include <string>
#include <string_view>

#include "vmafx/scorer.h"  // ModelRequest
#include "vmafx/status.h"

namespace vmafx {

// A column or feature name: letters, digits, '_', '-', '.', not starting with a digit, '-' or '.' (it becomes an
// XML attribute name and a CSV header).
bool is_valid_score_name(std::string_view name);

// One model. request.model is what the engine loads: the built-in version, or the path ("./" put in front of a path
// without '/', so that a file named like a version is never taken for one).
struct ModelSpec {
  ModelRequest request;
  std::string version;  // as given with version= (or a bare NAME), empty for a path
  std::string path;     // as given with path= (or a bare FILE), empty for a version
  bool name_given = false;  // name= was part of the spec (request.name holds it)
  // What libvmaf prints before the pooled score: the version, else the path.
  const std::string& label() const { return version.empty() ? path : version; }
  // The score column: name=, or libvmaf's default "vmaf".
  std::string column() const { return request.name.empty() ? std::string("vmaf") : request.name; }
};

// Parses one model's keys, separated by ':'. EXTRACTOR.OPTION overloads are kept in request.overrides as
// {"EXTRACTOR.OPTION", "VALUE"}, later ones replacing earlier ones of the same key (the model loader checks that the
// extractor and option exist). A first key without '=' names the model alone: a path if it holds '/' or ends in
// ".json", else a version. Errors are Errc::invalid_argument, naming `what` (the setting: "--model",
// "model-filename"), the spec and the parameter; *out is left unchanged then.
Status parse_model_spec(std::string_view spec, ModelSpec* out, std::string_view what = "--model");

}  // namespace vmafx
