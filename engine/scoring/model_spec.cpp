// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vmafx/model_spec.h"

#include <cctype>
#include <vector>

namespace vmafx {

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

bool is_true_false(std::string_view v, bool* out) {
  if (v == "true") *out = true;
  else if (v == "false") *out = false;
  else return false;
  return true;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

void set_override(OptionList* opts, std::string key, std::string value) {
  for (auto& [k, v] : *opts)
    if (k == key) {
      v = std::move(value);
      return;
    }
  opts->emplace_back(std::move(key), std::move(value));
}

}  // namespace

bool is_valid_score_name(std::string_view name) {
  if (name.empty()) return false;
  const unsigned char first = static_cast<unsigned char>(name[0]);
  if (!std::isalpha(first) && first != '_') return false;
  for (char ch : name) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (!std::isalnum(c) && c != '_' && c != '-' && c != '.') return false;
  }
  return true;
}

Status parse_model_spec(std::string_view spec, ModelSpec* out, std::string_view what) {
  const std::string where = std::string(what) + " " + quoted(spec);
  if (spec.empty()) return bad(std::string(what) + " needs version=NAME or path=FILE, got an empty string");
  ModelSpec m;
  bool have_version = false, have_path = false;
  const std::vector<std::string_view> keys = split(spec, ':');
  for (size_t k = 0; k < keys.size(); k++) {
    const std::string_view kv = keys[k];
    if (kv.empty()) return bad(where + ": empty parameter (two ':' in a row, or one at an end)");
    const size_t eq = kv.find('=');
    const std::string_view key = kv.substr(0, eq);
    const bool has_value = eq != std::string_view::npos;
    const std::string_view val = has_value ? kv.substr(eq + 1) : std::string_view();
    if (key.empty()) return bad(where + ": parameter " + quoted(kv) + " has no name");
    if (has_value && val.find('=') != std::string_view::npos)
      return bad(where + ": parameter " + quoted(kv) + " has more than one '='");
    if (has_value && val.empty()) return bad(where + ": parameter " + quoted(key) + " has an empty value");
    if (key == "disable_clip" || key == "enable_transform") {
      bool on = true;
      if (has_value && !is_true_false(val, &on))
        return bad(where + ": " + std::string(key) + " takes true or false, not " + quoted(val));
      (key == "disable_clip" ? m.request.disable_clip : m.request.enable_transform) = on;
    } else if (!has_value) {
      // Our addition: the model alone, as the first parameter.
      if (k != 0)
        return bad(where + ": parameter " + quoted(key) + " needs a value (" + std::string(key) + "=...)");
      if (key.find('/') != std::string_view::npos || ends_with(key, ".json")) {
        m.path = std::string(key);
        have_path = true;
      } else {
        m.version = std::string(key);
        have_version = true;
      }
    } else if (key == "version") {
      if (have_version || have_path) return bad(where + ": give one version= or path=, not several");
      m.version = std::string(val);
      have_version = true;
    } else if (key == "path") {
      if (have_version || have_path) return bad(where + ": give one version= or path=, not several");
      m.path = std::string(val);
      have_path = true;
    } else if (key == "name") {
      if (m.name_given) return bad(where + ": name= given twice");
      if (!is_valid_score_name(val))
        return bad(where + ": name " + quoted(val) +
                   " is not a column name (letters, digits, '_', '-', '.', starting with a letter or '_')");
      m.request.name = std::string(val);
      m.name_given = true;
    } else {
      // EXTRACTOR.OPTION=VALUE
      const size_t dot = key.find('.');
      if (dot == std::string_view::npos)
        return bad(where + ": unknown parameter " + quoted(key) +
                   " (known: version, path, name, disable_clip, enable_transform, EXTRACTOR.OPTION=VALUE)");
      const std::string_view ext = key.substr(0, dot), opt = key.substr(dot + 1);
      if (ext.empty() || opt.empty() || opt.find('.') != std::string_view::npos || !is_valid_score_name(ext) ||
          !is_valid_score_name(opt))
        return bad(where + ": " + quoted(key) + " is not EXTRACTOR.OPTION (e.g. vif.vif_enhn_gain_limit)");
      set_override(&m.request.overrides, std::string(key), std::string(val));
    }
  }
  if (!have_version && !have_path) return bad(where + ": needs version=NAME or path=FILE");
  if (have_version) {
    m.request.model = m.version;
  } else {
    m.request.model = m.path.find('/') == std::string::npos ? "./" + m.path : m.path;
  }
  *out = std::move(m);
  return Status::ok();
}

}  // namespace vmafx
