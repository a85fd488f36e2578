// SPDX-License-Identifier: LGPL-2.1-or-later
#include "support.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

namespace vmafx::test {

#ifndef VMAFX_SOURCE_DIR
#error "tests need VMAFX_SOURCE_DIR"
#endif

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

std::string Pair::ref_path() const { return shared_testdata_dir() + "/" + prefix + "_ref.yuv"; }
std::string Pair::dist_path() const { return shared_testdata_dir() + "/" + prefix + "_" + distorted + ".yuv"; }
std::string Pair::oracle_path(const std::string& model_suffix) const {
  return shared_testdata_dir() + "/" + prefix + "_" + distorted + "." + model_suffix + ".json";
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

}  // namespace vmafx::test
