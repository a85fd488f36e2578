// SPDX-License-Identifier: LGPL-2.1-or-later
// Feature options as libvmaf's option parser (opt.c) and score-name rule (feature_name.c) treat them, and libvmaf's
// alias table (feature/alias.c).
#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstring>
#include <limits>

#include "features/table.h"

namespace vmafx::features {

namespace {

// printf("%g") in the C locale, whatever the process locale is.
std::string format_g(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
  return std::string(buf, r.ptr);
}

const char* skip_blanks(const char* s) {
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\v' || *s == '\f' || *s == '\r') s++;
  return s;
}

// C's atoi() and atof() in the C locale: leading blanks, a sign, the longest number prefix, 0 when none.
long c_atoi(const std::string& text) {
  const char* s = skip_blanks(text.c_str());
  bool neg = false;
  if (*s == '+' || *s == '-') neg = *s++ == '-';
  long v = 0;
  while (*s >= '0' && *s <= '9' && v < (1L << 40)) v = v * 10 + (*s++ - '0');
  v = neg ? -v : v;
  return std::clamp<long>(v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
}

double c_atof(const std::string& text) {
  const char* s = skip_blanks(text.c_str());
  const char* end = text.c_str() + text.size();
  bool neg = false;
  if (*s == '+' || *s == '-') neg = *s++ == '-';
  if (*s == '+' || *s == '-') return 0;
  double v = 0;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    if (std::from_chars(s + 2, end, v, std::chars_format::hex).ec != std::errc()) v = 0;
  } else if (std::from_chars(s, end, v, std::chars_format::general).ec != std::errc()) {
    v = 0;
  }
  return neg ? -v : v;
}

const char* const kAliases[][2] = {
    {"VMAF_feature_adm2_score", "adm2"},
    {"VMAF_feature_aim_score", "aim"},
    {"VMAF_feature_adm3_score", "adm3"},
    {"VMAF_feature_adm_scale0_score", "adm_scale0"},
    {"VMAF_feature_adm_scale1_score", "adm_scale1"},
    {"VMAF_feature_adm_scale2_score", "adm_scale2"},
    {"VMAF_feature_adm_scale3_score", "adm_scale3"},
    {"VMAF_feature_motion_score", "motion"},
    {"VMAF_feature_motion2_score", "motion2"},
    {"VMAF_feature_motion3_score", "motion3"},
    {"VMAF_feature_vif_scale0_score", "vif_scale0"},
    {"VMAF_feature_vif_scale1_score", "vif_scale1"},
    {"VMAF_feature_vif_scale2_score", "vif_scale2"},
    {"VMAF_feature_vif_scale3_score", "vif_scale3"},
    {"VMAF_integer_feature_adm2_score", "integer_adm2"},
    {"VMAF_integer_feature_aim_score", "integer_aim"},
    {"VMAF_integer_feature_adm3_score", "integer_adm3"},
    {"VMAF_integer_feature_motion_score", "integer_motion"},
    {"VMAF_integer_feature_motion2_score", "integer_motion2"},
    {"VMAF_integer_feature_motion3_score", "integer_motion3"},
    {"VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0"},
    {"VMAF_integer_feature_vif_scale1_score", "integer_vif_scale1"},
    {"VMAF_integer_feature_vif_scale2_score", "integer_vif_scale2"},
    {"VMAF_integer_feature_vif_scale3_score", "integer_vif_scale3"},
    {"Cambi_feature_cambi_score", "cambi"},
    {"Speed_chroma_feature_speed_chroma_u_score", "speed_chroma_u"},
    {"Speed_chroma_feature_speed_chroma_v_score", "speed_chroma_v"},
    {"Speed_chroma_feature_speed_chroma_uv_score", "speed_chroma_uv"},
    {"Speed_temporal_feature_speed_temporal_score", "speed_temporal"},
};

bool is_default(const OptionDesc& o, double num, const std::string& text) {
  if (o.type == OptType::text) return o.def_text && text == o.def_text;
  return num == o.def;
}

std::string value_text(const OptionDesc& o, double num, const std::string& text) {
  switch (o.type) {
    case OptType::boolean: return num != 0 ? "true" : "false";
    case OptType::integer: return std::to_string(long(num));
    case OptType::real: return format_g(num);
    case OptType::text: return text;
  }
  return {};
}

}  // namespace

std::string alias_of(std::string_view name) {
  for (const auto& a : kAliases)
    if (name == a[0]) return a[1];
  return std::string(name);
}

const Options::Value& Options::at(std::string_view name) const {
  assert(desc_);
  for (size_t i = 0; i < desc_->options.size(); i++)
    if (name == desc_->options[i].name) return values_[i];
  assert(!"option not declared by the feature's descriptor");
  static const Value none;
  return none;
}

double Options::num(std::string_view name) const { return at(name).num; }
const std::string& Options::text(std::string_view name) const { return at(name).text; }
bool Options::given(std::string_view name) const { return at(name).given; }

bool Options::operator==(const Options& o) const {
  if (desc_ != o.desc_ || values_.size() != o.values_.size()) return false;
  for (size_t i = 0; i < values_.size(); i++)
    if (values_[i].num != o.values_[i].num || values_[i].text != o.values_[i].text) return false;
  return true;
}

std::string Options::score_suffix() const {
  if (!desc_) return {};
  std::vector<std::pair<std::string, std::string>> named;  // option name -> appended text
  for (size_t i = 0; i < desc_->options.size(); i++) {
    const OptionDesc& o = desc_->options[i];
    const Value& v = values_[i];
    if (!o.names_score || is_default(o, v.num, v.text)) continue;
    const std::string tag = o.alias ? o.alias : o.name;
    named.emplace_back(o.name, o.type == OptType::boolean ? "_" + tag : "_" + tag + "_" + value_text(o, v.num, v.text));
  }
  std::sort(named.begin(), named.end(),
            [](const auto& a, const auto& b) { return std::strcmp(a.first.c_str(), b.first.c_str()) < 0; });
  std::string suffix;
  for (const auto& n : named) suffix += n.second;
  return suffix;
}

Status parse_options(const FeatureDesc& desc, const OptionList& given, Options* out) {
  Options opts;
  opts.desc_ = &desc;
  opts.values_.resize(desc.options.size());
  for (size_t i = 0; i < desc.options.size(); i++) {
    opts.values_[i].num = desc.options[i].def;
    opts.values_[i].text = desc.options[i].def_text ? desc.options[i].def_text : "";
  }
  for (const auto& [key, v] : given) {
    size_t i = 0;
    while (i < desc.options.size() && key != desc.options[i].name) i++;
    if (i == desc.options.size()) {
      std::string known;
      for (const auto& o : desc.options) known += (known.empty() ? "" : ", ") + std::string(o.name);
      return {Errc::unsupported, "feature '" + std::string(desc.name) + "' has no option '" + key + "'" +
                                     (known.empty() ? " (it takes none)" : " (its options: " + known + ")")};
    }
    const OptionDesc& o = desc.options[i];
    Options::Value& val = opts.values_[i];
    const std::string where = "option " + std::string(o.name) + " of feature '" + desc.name + "'";
    switch (o.type) {
      case OptType::boolean:
        if (v == "true" || v == "1") val.num = 1;
        else if (v == "false" || v == "0") val.num = 0;
        else return {Errc::invalid_argument, where + " must be true or false, not '" + v + "'"};
        break;
      case OptType::integer: {
        const long n = c_atoi(v);
        if (n == 0 && (v.empty() || v[0] != '0'))
          return {Errc::invalid_argument, where + ": '" + v + "' is not an integer"};
        if (double(n) < o.min || double(n) > o.max)
          return {Errc::invalid_argument, where + ": " + v + " is outside [" + format_g(o.min) + ", " +
                                              format_g(o.max) + "]"};
        val.num = double(n);
        break;
      }
      case OptType::real: {
        const double n = c_atof(v);
        if (n == 0 && (v.empty() || v[0] != '0'))
          return {Errc::invalid_argument, where + ": '" + v + "' is not a number"};
        if (n < o.min || n > o.max)
          return {Errc::invalid_argument, where + ": " + v + " is outside [" + format_g(o.min) + ", " +
                                              format_g(o.max) + "]"};
        val.num = n;
        break;
      }
      case OptType::text:
        val.text = v;
        break;
    }
    val.given = true;
  }
  *out = std::move(opts);
  return Status::ok();
}

}  // namespace vmafx::features
