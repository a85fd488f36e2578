// SPDX-License-Identifier: LGPL-2.1-or-later
#include "support.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "fixtures.h"
#include "cpu/simd/cpu_features.h"
#include "vmafx/tuning.h"

namespace vmafx::test {

#ifndef VMAFX_SOURCE_DIR
#error "tests need VMAFX_SOURCE_DIR"
#endif

namespace {

// A test program's edge, as vmafx-score's and the element's: the engine's tuning variables (vmafx/tuning.h), read
// once. VMAFX_CPUMASK picks the instruction sets of the CPU code for the whole run, so each suite can be run on every
// SIMD path (docs/performance.md); scorer_config() starts from the rest (VMAFX_HIP_UPLOAD_STREAM=0 test_hip_scorer).
const EngineTuning& environment_tuning() {
  static const EngineTuning t = [] {
    EngineTuning r;
    if (Status s = tuning_from_environment(&r); !s) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      std::exit(2);
    }
    if (r.cpu_mask >= 0) cpu::set_cpu_mask(unsigned(r.cpu_mask));
    return r;
  }();
  return t;
}
const bool kTuningFromEnvironment = (environment_tuning(), true);

}  // namespace

std::string shared_testdata_dir() {
  if (const char* s = std::getenv("VMAFX_SHARED_DIR")) return std::string(s) + "/testdata";
  return project_source_dir() + "/../shared/testdata";
}
std::string shared_models_dir() {
  if (const char* s = std::getenv("VMAFX_SHARED_DIR")) return std::string(s) + "/models";
  return project_source_dir() + "/../shared/models";
}
std::string project_source_dir() {
  if (const char* s = std::getenv("VMAFX_SOURCE_DIR")) return s;
  return VMAFX_SOURCE_DIR;
}
std::string project_data_dir() { return project_source_dir() + "/tests/data"; }
std::string project_models_dir() { return project_source_dir() + "/engine/models"; }

bool file_exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string beside_test_binary(const std::string& relative, const std::string& built_at) {
  char self[4096] = {0};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    std::string dir(self, size_t(n));
    dir = dir.substr(0, dir.rfind('/') + 1);
    if (file_exists(dir + relative)) return dir + relative;
  }
  return built_at;
}

Status write_file(const std::string& path, const void* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return {Errc::io_error, "cannot write " + path + ": " + std::strerror(errno)};
  const size_t n = std::fwrite(data, 1, size, f);
  const bool ok = std::fclose(f) == 0 && n == size;
  if (!ok) return {Errc::io_error, "writing " + path + " failed"};
  return Status::ok();
}

const char* chroma_arg(Chroma c) { return c == Chroma::k420 ? "420" : c == Chroma::k422 ? "422" : "444"; }

Status load_oracle(const std::string& path, Oracle* out) {
  std::ifstream f(path);
  if (!f) return {Errc::io_error, "cannot open " + path};
  nlohmann::json j;
  try {
    f >> j;
  } catch (const std::exception& e) {
    return {Errc::io_error, path + ": " + e.what()};
  }
  Oracle o;
  for (const auto& fr : j.at("frames")) {
    std::map<std::string, double> m;
    for (auto it = fr.at("metrics").begin(); it != fr.at("metrics").end(); ++it) m[it.key()] = it.value().get<double>();
    o.frames.push_back(std::move(m));
    o.frame_num.push_back(fr.at("frameNum").get<unsigned>());
  }
  for (auto it = j.at("pooled_metrics").begin(); it != j.at("pooled_metrics").end(); ++it) {
    for (auto s = it.value().begin(); s != it.value().end(); ++s) o.pooled[it.key()][s.key()] = s.value().get<double>();
  }
  *out = std::move(o);
  return Status::ok();
}

Status YuvClip::open(const std::string& path, uint32_t width, uint32_t height, const FormatInfo& fmt) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {Errc::io_error, "cannot open " + path};
  data_.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  width_ = width;
  height_ = height;
  fmt_ = fmt;
  n_planes_ = packed_layout(fmt, width, height, layout_, &frame_size_);
  if (data_.size() % frame_size_)
    return {Errc::truncated, path + " is not a whole number of " + std::to_string(frame_size_) + "-byte frames"};
  return Status::ok();
}

PictureView YuvClip::frame(size_t i) const {
  PictureView v;
  Status s = make_picture_view(fmt_, width_, height_, frame_data(i), frame_size_, layout_, n_planes_, &v);
  (void)s;
  return v;
}

std::string Pair::ref_path() const {
  return (generated ? fixture_dir() : shared_testdata_dir()) + "/" + prefix + "_ref.yuv";
}
std::string Pair::dist_path() const {
  return (generated ? fixture_dir() : shared_testdata_dir()) + "/" + prefix + "_" + distorted + ".yuv";
}
std::string Pair::oracle_path(const std::string& model_suffix) const {
  return (generated ? project_data_dir() + "/generated" : shared_testdata_dir()) + "/" + prefix + "_" + distorted +
         "." + model_suffix + ".json";
}

std::string Pair::name() const { return prefix + "_" + distorted; }
std::string Pair::test_name() const {
  std::string n = name();
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

std::vector<Pair> public_pairs() {
  return {
      {"a_576x324_8b", "x264crf35", 576, 324, 8},
      {"a_576x324_8b", "down288", 576, 324, 8},
      {"b_576x324_10b", "x264crf33", 576, 324, 10},
      {"c_321x241_8b", "blurnoise", 321, 241, 8},
      {"d_1920x1080_8b", "x264crf35", 1920, 1080, 8},
  };
}

std::vector<Pair> generated_pairs() {
  std::vector<Pair> v;
  for (const FixtureSpec& f : fixture_specs())
    v.push_back({f.prefix, distortion_name(f.distortion), f.width, f.height, f.bpc, f.chroma, true});
  return v;
}

std::vector<std::string> generated_oracles(const Pair& p) {
  if (!p.generated) return {};
  const char n = p.prefix.size() > 1 ? p.prefix[1] : '?';
  if (n == '6') return {"vmaf_v0.6.1"};  // long_pair(): with psnr
  std::vector<std::string> v = {"vmaf_v0.6.1", "vmaf_v0.6.1neg", "vmaf_4k_v0.6.1", "vmaf_v1.0.16_3d0h", "psnr_hvs"};
  if (n != '5') v.push_back("ciede");  // g5 is 4:2:0 of an odd height, which ciede refuses (docs/features.md)
  if (n == '1' || n == '2')
    for (const char* s : {"vmaf_v0.6.1.subsample2", "vmaf_float_v0.6.1", "vmaf_v1.0.16_5d0h", "vmaf_v1.0.16_1d5h_2160",
                          "vmaf_v1.0.16_3d0h_2160"})
      v.push_back(s);
  // libvmaf's flush of short streams: the first 1, 2, 3 frames (--frame_cnt).
  if (n == '1') v.insert(v.end(), {"vmaf_v0.6.1.frames1", "vmaf_v0.6.1.frames2", "vmaf_v0.6.1.frames3"});
  if (n == '2') v.push_back("vmaf_v0.6.1.frames2");
  // float_vif, float_adm and float_motion under 15 option sets; float motion's flush on 1, 2, 3 frames.
  if (n == '5')
    v.insert(v.end(), {"float_options", "float_motion.frames1", "float_motion.frames2", "float_motion.frames3"});
  if (n == '1')
    for (const char* s : {"vmaf_b_v0.6.3", "vmaf_float_v0.6.1neg", "vmaf_float_4k_v0.6.1", "vmaf_float_b_v0.6.3",
                          "vmaf_v1.0.16_hfr_3d0h", "vmaf_v1.0.16_hfr_5d0h", "vmaf_v1.0.16_hfr_1d5h_2160",
                          "vmaf_v1.0.16_hfr_3d0h_2160"})
      v.push_back(s);
  return v;
}

bool has_oracle(const Pair& p, const std::string& suffix) {
  if (!p.generated) return file_exists(p.oracle_path(suffix));
  for (const auto& s : generated_oracles(p))
    if (s == suffix) return true;
  return false;
}

Pair long_pair() {
  const FixtureSpec& f = long_fixture_spec();
  return {f.prefix, distortion_name(f.distortion), f.width, f.height, f.bpc, f.chroma, true};
}

bool shared_testdata_present() {
  for (const Pair& p : public_pairs())
    if (file_exists(p.ref_path())) return true;
  return false;
}

std::vector<Pair> oracle_pairs() {
  std::vector<Pair> v = generated_pairs();
  std::vector<std::string> absent;
  for (Pair& p : present_pairs(&absent)) v.push_back(std::move(p));
  static const bool said = [&] {
    if (!absent.empty()) {
      std::string names;
      for (const auto& a : absent) names += " " + a;
      std::printf("public pairs not checked (%s/ absent or incomplete):%s\n", shared_testdata_dir().c_str(),
                  names.c_str());
    }
    return true;
  }();
  (void)said;
  return v;
}

std::vector<Pair> oracle_pairs_420(std::vector<std::string>* absent) {
  std::vector<Pair> v;
  for (const Pair& p : generated_pairs())
    if (p.chroma == Chroma::k420) v.push_back(p);
  std::vector<std::string> missing;
  for (Pair& p : present_pairs(&missing)) v.push_back(std::move(p));
  if (absent) absent->insert(absent->end(), missing.begin(), missing.end());
  return v;
}

const Pair* find_generated_pair(const std::string& prefix) {
  static const std::vector<Pair> pairs = generated_pairs();
  for (const Pair& p : pairs)
    if (p.prefix.rfind(prefix, 0) == 0) return &p;
  return nullptr;
}

std::vector<Pair> pairs_of_kind(const std::string& generated_prefix, const std::string& public_prefix) {
  std::vector<Pair> v;
  if (const Pair* g = find_generated_pair(generated_prefix)) v.push_back(*g);
  const Pair* p = find_public_pair(public_prefix);
  if (p && file_exists(p->ref_path()) && file_exists(p->dist_path())) v.push_back(*p);
  return v;
}

const Pair* find_public_pair(const std::string& prefix) {
  static const std::vector<Pair> pairs = public_pairs();
  for (const Pair& p : pairs)
    if (p.prefix.rfind(prefix, 0) == 0) return &p;
  return nullptr;
}

std::vector<Pair> present_pairs(std::vector<std::string>* absent) {
  std::vector<Pair> present;
  for (const Pair& p : public_pairs()) {
    if (file_exists(p.ref_path()) && file_exists(p.dist_path()))
      present.push_back(p);
    else
      absent->push_back(p.name());
  }
  return present;
}

void print_pair_coverage(const std::vector<std::string>& checked, const std::vector<std::string>& absent) {
  std::string list, missing;
  for (const auto& c : checked) list += " " + c;
  for (const auto& a : absent) missing += " " + a;
  std::printf("pairs checked:%s\npairs NOT checked (clips absent):%s\n", list.c_str(),
              missing.empty() ? " none" : missing.c_str());
}

Status open_pair_clips(const Pair& p, PairClips* out) {
  FormatInfo fmt;
  VMAFX_TRY(parse_pixel_format(chroma_arg(p.chroma), p.bpc, &fmt));
  VMAFX_TRY(out->ref.open(p.ref_path(), p.width, p.height, fmt));
  VMAFX_TRY(out->dist.open(p.dist_path(), p.width, p.height, fmt));
  if (out->ref.frames() == 0 || out->ref.frames() != out->dist.frames())
    return {Errc::io_error, p.prefix + ": " + std::to_string(out->ref.frames()) + " ref frames, " +
                                std::to_string(out->dist.frames()) + " dist frames"};
  return Status::ok();
}

Status load_pair_oracle(const Pair& p, const std::string& model, size_t frames, Oracle* out) {
  VMAFX_TRY(load_oracle(p.oracle_path(model), out));
  if (out->frames.size() != frames)
    return {Errc::io_error, p.oracle_path(model) + " has " + std::to_string(out->frames.size()) + " frames, clip " +
                                std::to_string(frames)};
  for (size_t i = 0; i < frames; i++)
    if (out->frame_num[i] != i)
      return {Errc::io_error, p.oracle_path(model) + ": entry " + std::to_string(i) + " is frame " +
                                  std::to_string(out->frame_num[i])};
  return Status::ok();
}

Status open_sample_pair(PairClips* out) {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    const std::string d = std::string(tmp && *tmp ? tmp : "/tmp") + "/vmafx_sample_" + std::to_string(::getpid());
    const std::string cmd = "mkdir -p " + d + " && gunzip -c " + project_source_dir() +
                            "/samples/sample_320x240_ref.yuv.gz > " + d + "/ref.yuv && gunzip -c " +
                            project_source_dir() + "/samples/sample_320x240_dist.yuv.gz > " + d + "/dist.yuv";
    return std::system(cmd.c_str()) == 0 ? d : std::string();
  }();
  if (dir.empty()) return {Errc::io_error, "could not unpack the sample pair of samples/"};
  FormatInfo fmt;
  VMAFX_TRY(parse_pixel_format("420", 8, &fmt));
  VMAFX_TRY(out->ref.open(dir + "/ref.yuv", 320, 240, fmt));
  VMAFX_TRY(out->dist.open(dir + "/dist.yuv", 320, 240, fmt));
  return Status::ok();
}

}  // namespace vmafx::test

namespace vmafx::test {

ScorerConfig scorer_config(const std::string& model, std::initializer_list<const char*> features) {
  ScorerConfig cfg;
  cfg.tuning = environment_tuning();
  cfg.models.clear();
  if (!model.empty()) {
    ModelRequest mr;
    mr.model = model;
    cfg.models.push_back(mr);
  }
  for (const char* f : features) cfg.features.push_back({f, {}});
  return cfg;
}

Status make_scorer(ScorerConfig cfg, const VideoGeometry& g, FrameLog* log, std::unique_ptr<Scorer>* out) {
  cfg.on_frame = [log](const FrameScore& fs) { log->add(fs); };
  StreamGeometry sg;
  sg.ref = g;
  sg.dist = g;
  return Scorer::create(cfg, sg, out);
}

FramePair frame_pair(const PictureView& ref, const PictureView& dist, int64_t timestamp, uint64_t user,
                     std::function<void()> release) {
  FramePair p;
  p.ref = ref;
  p.dist = dist;
  p.timestamp = timestamp;
  p.user = user;
  p.release = std::move(release);
  return p;
}

}  // namespace vmafx::test
