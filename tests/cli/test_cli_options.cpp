// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx-score's option parsers (tools/cli_options.h) against libvmaf 3.2's CLI (tools/cli_parse.c): every spelling
// libvmaf gives a meaning gets the same meaning; every one it wraps, ignores or misreads is an error naming the cause.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli_options.h"

namespace vmafx {
// Found by argument-dependent lookup from std::vector's operator== and GoogleTest's printer.
bool operator==(const FeatureRequest& a, const FeatureRequest& b) { return a.name == b.name && a.options == b.options; }
void PrintTo(const FeatureRequest& f, std::ostream* os) {
  *os << f.name;
  for (const auto& [k, v] : f.options) *os << " " << k << "=" << v;
}
}  // namespace vmafx

namespace vmafx::tools {
namespace {

using Opts = OptionList;

std::string message_of(const Status& s) { return s.is_ok() ? "(ok)" : s.message(); }

// ---- numbers ----

TEST(ParseUint, AcceptsDecimalAndHexInRange) {
  uint64_t v = 7;
  ASSERT_TRUE(parse_uint("0", 0, 10, "--x", &v).is_ok());
  EXPECT_EQ(v, 0u);
  ASSERT_TRUE(parse_uint("1920", 1, 32768, "--width", &v).is_ok());
  EXPECT_EQ(v, 1920u);
  ASSERT_TRUE(parse_uint("0x1F", 0, 1000, "--cpumask", &v).is_ok());
  EXPECT_EQ(v, 31u);
  ASSERT_TRUE(parse_uint("0Xff", 0, 1000, "--cpumask", &v).is_ok());
  EXPECT_EQ(v, 255u);
  ASSERT_TRUE(parse_uint("18446744073709551615", 0, UINT64_MAX, "--x", &v).is_ok());
  EXPECT_EQ(v, UINT64_MAX);
  ASSERT_TRUE(parse_uint("32768", 1, 32768, "--width", &v).is_ok());
  EXPECT_EQ(v, 32768u);
}

TEST(ParseUint, RefusesWhatLibvmafWrapsOrMisreads) {
  uint64_t v = 7;
  struct Case {
    const char* text;
    uint64_t min, max;
    const char* expect;
  } cases[] = {
      {"4294967617", 1, 32768, "--w must be a whole number from 1 to 32768, not '4294967617'"},  // libvmaf: 321
      {"18446744073709551616", 0, UINT64_MAX, "not '18446744073709551616'"},                    // past 2^64
      {"99999999999999999999999", 0, UINT64_MAX, "must be a whole number"},
      {"-1", 0, 100, "not '-1'"},  // strtoul: ULONG_MAX
      {"+1", 0, 100, "not '+1'"},
      {" 1", 0, 100, "not ' 1'"},
      {"1 ", 0, 100, "not '1 '"},
      {"", 0, 100, "not ''"},
      {"abc", 0, 100, "not 'abc'"},
      {"12abc", 0, 100, "not '12abc'"},
      {"1.5", 0, 100, "not '1.5'"},
      {"0x", 0, 100, "not '0x'"},
      {"0xg", 0, 100, "not '0xg'"},
      {"010", 0, 100, "leading zero"},  // libvmaf: octal 8
      {"0", 1, 100, "from 1 to 100, not '0'"},
      {"101", 1, 100, "not '101'"},
  };
  for (const auto& c : cases) {
    Status s = parse_uint(c.text, c.min, c.max, "--w", &v);
    EXPECT_FALSE(s.is_ok()) << c.text;
    EXPECT_EQ(s.code(), Errc::invalid_argument) << c.text;
    EXPECT_NE(message_of(s).find(c.expect), std::string::npos) << c.text << ": " << message_of(s);
    EXPECT_EQ(v, 7u) << c.text << ": output written on failure";
  }
}

// ---- --model ----

ModelSpec model(const std::string& spec) {
  ModelSpec m;
  Status s = parse_model_spec(spec, &m);
  EXPECT_TRUE(s.is_ok()) << spec << ": " << message_of(s);
  return m;
}

TEST(ParseModel, VersionPathNameAndFlags) {
  ModelSpec m = model("version=vmaf_4k_v0.6.1");
  EXPECT_EQ(m.request.model, "vmaf_4k_v0.6.1");
  EXPECT_EQ(m.version, "vmaf_4k_v0.6.1");
  EXPECT_EQ(m.path, "");
  EXPECT_EQ(m.label(), "vmaf_4k_v0.6.1");
  EXPECT_EQ(m.request.name, "");
  EXPECT_EQ(m.column(), "vmaf");  // libvmaf's default name
  EXPECT_FALSE(m.request.disable_clip);
  EXPECT_FALSE(m.request.enable_transform);
  EXPECT_TRUE(m.request.overrides.empty());

  m = model("path=/models/m.json:name=vmaf_custom:disable_clip:enable_transform");
  EXPECT_EQ(m.request.model, "/models/m.json");
  EXPECT_EQ(m.label(), "/models/m.json");
  EXPECT_EQ(m.column(), "vmaf_custom");
  EXPECT_TRUE(m.request.disable_clip);
  EXPECT_TRUE(m.request.enable_transform);

  m = model("name=x:version=vmaf_v0.6.1:disable_clip=true:enable_transform=false");
  EXPECT_EQ(m.request.model, "vmaf_v0.6.1");
  EXPECT_TRUE(m.request.disable_clip);
  EXPECT_FALSE(m.request.enable_transform);
}

TEST(ParseModel, PathWithoutSlashIsNeverTakenForAVersion) {
  ModelSpec m = model("path=vmaf_v0.6.1");
  EXPECT_EQ(m.request.model, "./vmaf_v0.6.1");
  EXPECT_EQ(m.label(), "vmaf_v0.6.1");  // libvmaf prints the path as given
}

TEST(ParseModel, BareModelAsFirstParameter) {
  ModelSpec m = model("vmaf_4k_v0.6.1:name=four");
  EXPECT_EQ(m.version, "vmaf_4k_v0.6.1");
  EXPECT_EQ(m.column(), "four");
  m = model("m.json");
  EXPECT_EQ(m.path, "m.json");
  EXPECT_EQ(m.request.model, "./m.json");
  m = model("/abs/model");
  EXPECT_EQ(m.path, "/abs/model");
}

TEST(ParseModel, FeatureOverloads) {
  ModelSpec m = model("version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=1.0:adm.adm_enhn_gain_limit=1.2");
  EXPECT_EQ(m.request.overrides, (Opts{{"vif.vif_enhn_gain_limit", "1.0"}, {"adm.adm_enhn_gain_limit", "1.2"}}));
  // The same key twice: the last value in the first one's place.
  m = model("version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=1.0:motion.motion_force_zero=true:vif.vif_enhn_gain_limit=1.1");
  EXPECT_EQ(m.request.overrides,
            (Opts{{"vif.vif_enhn_gain_limit", "1.1"}, {"motion.motion_force_zero", "true"}}));
}

TEST(ParseModel, RefusesWhatLibvmafMisreadsOrRefuses) {
  struct Case {
    const char* spec;
    const char* expect;
  } cases[] = {
      {"", "empty string"},                                   // libvmaf: bad option string ""
      {"version=", "empty value"},
      {"path=", "empty value"},
      {"name=x", "needs version=NAME or path=FILE"},          // libvmaf: loads path (null) and fails
      {"version=a:path=b", "not several"},                    // libvmaf: path ignored
      {"version=a:version=b", "not several"},
      {"version=a=b", "more than one '='"},                   // libvmaf: "=b" dropped
      {"version=a::name=b", "empty parameter"},
      {"version=a:", "empty parameter"},
      {":version=a", "empty parameter"},
      {"version=a:disable_clip=yes", "true or false, not 'yes'"},  // libvmaf: silently false
      {"version=a:enable_transform=1", "true or false"},
      {"version=a:foo=bar", "unknown parameter 'foo'"},       // libvmaf: "Problem parsing model"
      {"version=a:foo", "needs a value"},
      {"version=a:vif.=1", "is not EXTRACTOR.OPTION"},
      {"version=a:.x=1", "is not EXTRACTOR.OPTION"},
      {"version=a:a.b.c=1", "is not EXTRACTOR.OPTION"},       // libvmaf: ".c" dropped
      {"version=a:vif.x=", "empty value"},
      {"version=a:=1", "has no name"},
      {"version=a:name=1abc", "is not a column name"},
      {"version=a:name=a b", "is not a column name"},
      {"version=a:name=x:name=y", "name= given twice"},
  };
  for (const auto& c : cases) {
    ModelSpec m;
    m.version = "untouched";
    Status s = parse_model_spec(c.spec, &m);
    EXPECT_EQ(s.code(), Errc::invalid_argument) << c.spec;
    EXPECT_NE(message_of(s).find(c.expect), std::string::npos) << "'" << c.spec << "': " << message_of(s);
    EXPECT_EQ(m.version, "untouched") << c.spec;
  }
}

// ---- --feature ----

FeatureRequest feature(const std::string& spec) {
  FeatureRequest f;
  Status s = parse_feature_spec(spec, &f);
  EXPECT_TRUE(s.is_ok()) << spec << ": " << message_of(s);
  return f;
}

TEST(ParseFeature, NameAndOptions) {
  FeatureRequest f = feature("psnr");
  EXPECT_EQ(f.name, "psnr");
  EXPECT_TRUE(f.options.empty());
  f = feature("psnr=enable_chroma=false");
  EXPECT_EQ(f.name, "psnr");
  EXPECT_EQ(f.options, (Opts{{"enable_chroma", "false"}}));
  f = feature("float_ssim=scale=1:enable_db=true:clip_db=true");
  EXPECT_EQ(f.options, (Opts{{"scale", "1"}, {"enable_db", "true"}, {"clip_db", "true"}}));
  // libvmaf's dictionary: a repeated key keeps its place and takes the last value.
  f = feature("cambi=tvi_threshold=0.1:max_log_contrast=3:tvi_threshold=0.02");
  EXPECT_EQ(f.options, (Opts{{"tvi_threshold", "0.02"}, {"max_log_contrast", "3"}}));
}

TEST(ParseFeature, RefusesWhatLibvmafMisreadsOrRefuses) {
  struct Case {
    const char* spec;
    const char* expect;
  } cases[] = {
      {"", "needs a feature name"},
      {"=a=b", "no feature name"},
      {"psnr=", "empty option"},                        // libvmaf: bad option string ""
      {"psnr=enable_chroma", "needs a value"},          // libvmaf: bad option string
      {"psnr=enable_chroma=", "empty value"},
      {"psnr=a=b=c", "more than one '='"},              // libvmaf: "=c" dropped
      {"psnr=a=b:", "empty option"},
      {"psnr=a=b::c=d", "empty option"},
      {"psnr==b", "has no name"},
      {"ps nr", "is not a feature name"},
      {"psnr:enable_chroma=false", "is not a feature name"},
      {"psnr=en chroma=1", "is not an option name"},
  };
  for (const auto& c : cases) {
    FeatureRequest f;
    f.name = "untouched";
    Status s = parse_feature_spec(c.spec, &f);
    EXPECT_EQ(s.code(), Errc::invalid_argument) << c.spec;
    EXPECT_NE(message_of(s).find(c.expect), std::string::npos) << "'" << c.spec << "': " << message_of(s);
    EXPECT_EQ(f.name, "untouched") << c.spec;
  }
}

// ---- presets ----

struct ModelRow {
  std::string version, column;
};

std::vector<ModelRow> rows(const Selection& s) {
  std::vector<ModelRow> out;
  for (const auto& m : s.models) out.push_back({m.request.model, m.column()});
  return out;
}

bool operator==(const ModelRow& a, const ModelRow& b) { return a.version == b.version && a.column == b.column; }

void PrintTo(const ModelRow& r, std::ostream* os) { *os << r.version << " as " << r.column; }

// libvmaf 3.2's aom_ctc_v1_0: two models, five features.
const std::vector<FeatureRequest> kAomV1Features = {
    {"psnr", {{"reduced_hbd_peak", "true"}, {"enable_apsnr", "true"}, {"min_sse", "0.5"}}},
    {"ciede", {}},
    {"float_ssim", {{"enable_db", "true"}, {"clip_db", "true"}}},
    {"float_ms_ssim", {{"enable_db", "true"}, {"clip_db", "true"}}},
    {"psnr_hvs", {}},
};

TEST(Ctc, AomV1AsLibvmafDefinesIt) {
  Selection s;
  ASSERT_TRUE(apply_ctc(Ctc::aom, "v1.0", &s).is_ok());
  EXPECT_EQ(rows(s), (std::vector<ModelRow>{{"vmaf_v0.6.1", "vmaf"}, {"vmaf_v0.6.1neg", "vmaf_neg"}}));
  EXPECT_EQ(s.features, kAomV1Features);
  EXPECT_FALSE(s.common_bitdepth);
  for (const char* v : {"v2.0"}) {
    Selection t;
    ASSERT_TRUE(apply_ctc(Ctc::aom, v, &t).is_ok());
    EXPECT_EQ(t.features, kAomV1Features) << v;
  }
}

TEST(Ctc, AomLaterVersionsAddCambiCommonBitdepthAndScaledSsim) {
  std::vector<FeatureRequest> v3 = kAomV1Features;
  v3.push_back({"cambi", {}});
  for (const char* v : {"v3.0", "v4.0", "v5.0"}) {
    Selection s;
    ASSERT_TRUE(apply_ctc(Ctc::aom, v, &s).is_ok());
    EXPECT_EQ(s.features, v3) << v;
    EXPECT_FALSE(s.common_bitdepth) << v;
  }
  Selection v6;
  ASSERT_TRUE(apply_ctc(Ctc::aom, "v6.0", &v6).is_ok());
  EXPECT_EQ(v6.features, v3);
  EXPECT_TRUE(v6.common_bitdepth);
  Selection v7;
  ASSERT_TRUE(apply_ctc(Ctc::aom, "v7.0", &v7).is_ok());
  std::vector<FeatureRequest> want = v3;
  want[2] = {"float_ssim", {{"scale", "1"}, {"enable_db", "true"}, {"clip_db", "true"}}};  // replaced in place
  EXPECT_EQ(v7.features, want);
  EXPECT_TRUE(v7.common_bitdepth);
  EXPECT_EQ(v7.models.size(), 2u);
}

TEST(Ctc, AomV7ReplacesAnEarlierFloatSsimOfTheUser) {
  Selection s;
  ASSERT_TRUE(add_feature("float_ssim=enable_db=false", &s).is_ok());
  ASSERT_TRUE(apply_ctc(Ctc::aom, "v7.0", &s).is_ok());
  ASSERT_EQ(s.features[0].name, "float_ssim");
  EXPECT_EQ(s.features[0].options, (Opts{{"scale", "1"}, {"enable_db", "true"}, {"clip_db", "true"}}));
  // The preset's own float_ssim (appended by v1.0's part) stays as v1.0 defines it: libvmaf replaces the first.
  EXPECT_EQ(s.features[3], kAomV1Features[2]);
}

TEST(Ctc, NflxV1AsLibvmafDefinesIt) {
  Selection s;
  ASSERT_TRUE(apply_ctc(Ctc::nflx, "v1.0", &s).is_ok());
  EXPECT_EQ(rows(s), (std::vector<ModelRow>{{"vmaf_4k_v0.6.1", "vmaf"}, {"vmaf_4k_v0.6.1neg", "vmaf_neg"}}));
  EXPECT_EQ(s.features, (std::vector<FeatureRequest>{
                            {"psnr", {{"enable_chroma", "true"}, {"enable_apsnr", "true"}}},
                            {"float_ssim", {{"enable_db", "true"}, {"clip_db", "true"}}},
                            {"cambi", {}},
                        }));
}

TEST(Ctc, UnknownVersionsAreErrors) {
  Selection s;
  Status a = apply_ctc(Ctc::aom, "proposed", &s);
  EXPECT_NE(message_of(a).find("deprecated"), std::string::npos) << message_of(a);
  Status b = apply_ctc(Ctc::aom, "v8.0", &s);
  EXPECT_NE(message_of(b).find("unknown version 'v8.0' (known: v1.0, v2.0, v3.0, v4.0, v5.0, v6.0, v7.0)"),
            std::string::npos)
      << message_of(b);
  Status c = apply_ctc(Ctc::nflx, "v2.0", &s);
  EXPECT_NE(message_of(c).find("--nflx_ctc: unknown version 'v2.0' (known: v1.0)"), std::string::npos)
      << message_of(c);
  EXPECT_TRUE(s.models.empty());
  EXPECT_TRUE(s.features.empty());
}

// ---- the whole selection ----

TEST(Selection, DefaultModelOnlyWithoutModelsAndWithoutNoPrediction) {
  Selection s;
  ASSERT_TRUE(finish_selection(false, &s).is_ok());
  EXPECT_EQ(rows(s), (std::vector<ModelRow>{{"vmaf_v0.6.1", "vmaf"}}));
  EXPECT_EQ(s.models[0].label(), "vmaf_v0.6.1");

  Selection n;
  ASSERT_TRUE(add_feature("psnr", &n).is_ok());
  ASSERT_TRUE(finish_selection(true, &n).is_ok());
  EXPECT_TRUE(n.models.empty());  // libvmaf -n: no default model

  Selection nm;
  ASSERT_TRUE(add_model("version=vmaf_4k_v0.6.1", &nm).is_ok());
  ASSERT_TRUE(finish_selection(true, &nm).is_ok());
  EXPECT_EQ(rows(nm), (std::vector<ModelRow>{{"vmaf_4k_v0.6.1", "vmaf"}}));  // -n keeps it: its features
}

TEST(Selection, SeveralModelsNeedTheirOwnColumns) {
  Selection ok;
  ASSERT_TRUE(add_model("version=vmaf_v0.6.1", &ok).is_ok());
  ASSERT_TRUE(add_model("version=vmaf_4k_v0.6.1:name=vmaf_4k", &ok).is_ok());
  ASSERT_TRUE(add_model("version=vmaf_b_v0.6.3:name=vmaf_b", &ok).is_ok());
  ASSERT_TRUE(finish_selection(false, &ok).is_ok());
  EXPECT_EQ(rows(ok), (std::vector<ModelRow>{
                          {"vmaf_v0.6.1", "vmaf"}, {"vmaf_4k_v0.6.1", "vmaf_4k"}, {"vmaf_b_v0.6.3", "vmaf_b"}}));

  for (bool no_prediction : {false, true}) {
    Selection dup;
    ASSERT_TRUE(add_model("version=vmaf_v0.6.1", &dup).is_ok());
    ASSERT_TRUE(add_model("version=vmaf_4k_v0.6.1", &dup).is_ok());
    Status s = finish_selection(no_prediction, &dup);
    EXPECT_NE(message_of(s).find("models vmaf_v0.6.1 and vmaf_4k_v0.6.1 both score into the column 'vmaf'"),
              std::string::npos)
        << message_of(s);
  }
  // A preset after a model of the default name: three models, two named vmaf (libvmaf refuses it too).
  Selection ctc;
  ASSERT_TRUE(add_model("version=vmaf_4k_v0.6.1", &ctc).is_ok());
  ASSERT_TRUE(apply_ctc(Ctc::nflx, "v1.0", &ctc).is_ok());
  EXPECT_FALSE(finish_selection(false, &ctc).is_ok());
  // Renamed, it works: the user's model first, then the preset's.
  Selection ctc2;
  ASSERT_TRUE(add_model("version=vmaf_v0.6.1:name=hd", &ctc2).is_ok());
  ASSERT_TRUE(apply_ctc(Ctc::nflx, "v1.0", &ctc2).is_ok());
  ASSERT_TRUE(finish_selection(false, &ctc2).is_ok());
  EXPECT_EQ(rows(ctc2), (std::vector<ModelRow>{
                            {"vmaf_v0.6.1", "hd"}, {"vmaf_4k_v0.6.1", "vmaf"}, {"vmaf_4k_v0.6.1neg", "vmaf_neg"}}));
}

// ---- -n with a model ----

TEST(NoPrediction, ModelFeaturesWithOverloadsOnceEach) {
  // vmaf_v0.6.1's features: adm2, motion2, four vif scales (three extractors, no options).
  const std::vector<ModelFeatureUse> v061 = {{"adm", {}}, {"motion", {}}, {"vif", {}}, {"vif", {}}, {"vif", {}},
                                             {"vif", {}}};
  std::vector<FeatureRequest> out;
  ASSERT_TRUE(add_model_features(v061, model("version=vmaf_v0.6.1"), &out).is_ok());
  EXPECT_EQ(out, (std::vector<FeatureRequest>{{"adm", {}}, {"motion", {}}, {"vif", {}}}));
  // A second model with the same features adds nothing; one with an overload adds its own vif.
  ASSERT_TRUE(add_model_features(v061, model("version=vmaf_v0.6.1neg:name=neg"), &out).is_ok());
  EXPECT_EQ(out.size(), 3u);
  ASSERT_TRUE(add_model_features(v061, model("version=vmaf_v0.6.1:name=egl:vif.vif_enhn_gain_limit=1.0"), &out)
                  .is_ok());
  EXPECT_EQ(out, (std::vector<FeatureRequest>{
                     {"adm", {}}, {"motion", {}}, {"vif", {}}, {"vif", {{"vif_enhn_gain_limit", "1.0"}}}}));
}

TEST(NoPrediction, OverloadReplacesTheModelsValue) {
  const std::vector<ModelFeatureUse> v1 = {
      {"cambi", {{"cambi_max_val", "17"}}},
      {"adm", {{"adm_csf_mode", "2"}, {"adm_enhn_gain_limit", "1"}}},
      {"motion", {{"motion_max_val", "18"}}},
  };
  std::vector<FeatureRequest> out = {{"psnr", {}}};
  ASSERT_TRUE(add_model_features(v1, model("version=v1:adm.adm_enhn_gain_limit=1.2:adm.adm_min_val=0.4"), &out)
                  .is_ok());
  EXPECT_EQ(out, (std::vector<FeatureRequest>{
                     {"psnr", {}},
                     {"cambi", {{"cambi_max_val", "17"}}},
                     {"adm", {{"adm_csf_mode", "2"}, {"adm_enhn_gain_limit", "1.2"}, {"adm_min_val", "0.4"}}},
                     {"motion", {{"motion_max_val", "18"}}},
                 }));
}

TEST(NoPrediction, OverloadOfAnExtractorTheModelLacksIsAnError) {
  const std::vector<ModelFeatureUse> v061 = {{"adm", {}}, {"motion", {}}, {"vif", {}}};
  std::vector<FeatureRequest> out;
  Status s = add_model_features(v061, model("version=vmaf_v0.6.1:float_vif.vif_enhn_gain_limit=1.0"), &out);
  EXPECT_NE(message_of(s).find("names extractor 'float_vif', which the model does not use (its extractors: 'adm', "
                               "'motion', 'vif')"),
            std::string::npos)
      << message_of(s);
  EXPECT_TRUE(out.empty());
}

TEST(Names, ColumnNames) {
  for (const char* ok : {"vmaf", "vmaf_4k", "_x", "a-b", "v1.0", "VMAF"}) EXPECT_TRUE(is_valid_name(ok)) << ok;
  for (const char* bad : {"", "1a", "-a", ".a", "a b", "a,b", "a\"b", "a<b", "a:b", "a=b"})
    EXPECT_FALSE(is_valid_name(bad)) << bad;
}

// ---- ladders ----

TEST(Ladder, DistortedListSkipsCommentsAndBlanks) {
  std::vector<std::string> out = {"first.y4m"};
  ASSERT_TRUE(parse_distorted_list("# renditions\n\n  a/720p.y4m \r\n\t# b.y4m\nc d.yuv\n   \n#\ne.yuv", "l.txt", &out)
                  .is_ok());
  EXPECT_EQ(out, (std::vector<std::string>{"first.y4m", "a/720p.y4m", "c d.yuv", "e.yuv"}));
}

TEST(Ladder, DistortedListWithoutPathsOrWithNulIsAnError) {
  std::vector<std::string> out;
  EXPECT_NE(message_of(parse_distorted_list("# none\n\n \r\n", "l.txt", &out))
                .find("--distorted-list l.txt names no distorted input"),
            std::string::npos);
  EXPECT_NE(message_of(parse_distorted_list("", "l.txt", &out)).find("names no distorted input"), std::string::npos);
  EXPECT_NE(message_of(parse_distorted_list(std::string_view("a.yuv\0b", 7), "l.txt", &out)).find("NUL byte"),
            std::string::npos);
  EXPECT_TRUE(out.empty());
}

TEST(Ladder, StemIsTheNameWithoutFolderAndExtension) {
  EXPECT_EQ(distorted_stem("enc/720p.y4m"), "720p");
  EXPECT_EQ(distorted_stem("/a.b/c.d.yuv"), "c.d");
  EXPECT_EQ(distorted_stem("plain"), "plain");
  EXPECT_EQ(distorted_stem("dir.x/plain"), "plain");
  EXPECT_EQ(distorted_stem(".clip"), ".clip");
  EXPECT_EQ(distorted_stem("/dev/stdin"), "stdin");
}

TEST(Ladder, ResultsPathsFromThePattern) {
  std::vector<std::string> out;
  ASSERT_TRUE(results_paths("s/%s_%d.json", {"a/1080p.y4m", "b/720p.yuv"}, &out).is_ok());
  EXPECT_EQ(out, (std::vector<std::string>{"s/1080p_0.json", "s/720p_1.json"}));
  ASSERT_TRUE(results_paths("r%d-%d.xml", {"x", "y", "z"}, &out).is_ok());
  EXPECT_EQ(out, (std::vector<std::string>{"r0-0.xml", "r1-1.xml", "r2-2.xml"}));
  // Any other '%' is kept; one input without a pattern: the path as given.
  ASSERT_TRUE(results_paths("100%.json", {"a.yuv"}, &out).is_ok());
  EXPECT_EQ(out, (std::vector<std::string>{"100%.json"}));
  ASSERT_TRUE(results_paths("%s%", {"a.yuv"}, &out).is_ok());
  EXPECT_EQ(out, (std::vector<std::string>{"a%"}));
}

TEST(Ladder, ResultsPathsErrorsSayWhatToWrite) {
  std::vector<std::string> out = {"kept"};
  EXPECT_NE(message_of(results_paths("scores.json", {"a.yuv", "b.yuv"}, &out))
                .find("--output scores.json names one file for 2 distorted inputs: put %s"),
            std::string::npos);
  EXPECT_NE(message_of(results_paths("%%.json", {"a.yuv", "b.yuv"}, &out)).find("names one file"), std::string::npos);
  EXPECT_NE(message_of(results_paths("o/%s.json", {"x/enc.y4m", "y/enc.yuv"}, &out))
                .find("gives x/enc.y4m and y/enc.yuv the same results file o/enc.json: use %d"),
            std::string::npos);
  EXPECT_EQ(out, (std::vector<std::string>{"kept"}));
}

}  // namespace
}  // namespace vmafx::tools
