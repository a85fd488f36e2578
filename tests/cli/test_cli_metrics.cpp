// SPDX-License-Identifier: LGPL-2.1-or-later
// `vmafx-score` with float_psnr, float_ansnr, float_moment, speed_temporal and ssimulacra2 on the shipped sample pair:
// every frame's printed value within the print's rounding of libvmaf's %.17g oracles (tests/data/float_misc,
// tests/data/speed_temporal) and of the SSIMULACRA 2 reference tool's scores (tests/data/ssimulacra2), pooled
// metrics present; bad options fail naming the option.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support.h"

namespace vmafx::test {
namespace {

struct CliRun {
  int status = -1;
  std::string output;  // stdout and stderr
};

CliRun run(const std::string& args) {
  CliRun r;
  const std::string cmd = std::string(VMAFX_SCORE_PATH) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string tmp(const std::string& name) { return ::testing::TempDir() + "/vmafx_cli_metrics_" + name; }

std::string sample(const char* which) {
  const std::string path = tmp(std::string("sample_") + which + ".yuv");
  if (!file_exists(path)) {
    const std::string cmd =
        "gunzip -c " + project_source_dir() + "/samples/sample_320x240_" + which + ".yuv.gz > " + path;
    if (std::system(cmd.c_str()) != 0) return "";
  }
  return path;
}

bool read_json(const std::string& path, nlohmann::json* out) {
  std::ifstream f(path);
  if (!f) return false;
  try {
    f >> *out;
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

TEST(CliMetrics, EveryNewFeatureGivesTheOraclesNumbers) {
  const std::string ref = sample("ref"), dist = sample("dist");
  ASSERT_FALSE(ref.empty());
  ASSERT_FALSE(dist.empty());
  const std::string out = tmp("m.json");
  CliRun r = run("-r " + ref + " -d " + dist + " -w 320 -h 240 -p 420 -b 8 --no_prediction --feature float_psnr "
                 "--feature float_ansnr --feature float_moment --feature speed_temporal --feature ssimulacra2 "
                 "--threads 2 --json -o " + out + " -q");
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json got;
  ASSERT_TRUE(read_json(out, &got)) << out;
  ASSERT_EQ(got.at("frames").size(), 24u);
  // The oracles: libvmaf's %.17g JSON and the reference tool's 8 decimals; the CLI prints 6 decimals.
  struct Source {
    const char* file;
    double slack;  // beyond the CLI's rounding (5e-7)
  };
  unsigned values = 0;
  for (const Source s : {Source{"float_misc/sample.json", 1e-12}, Source{"speed_temporal/sample.json", 1e-12},
                         Source{"ssimulacra2/sample.json", 1e-6}}) {
    nlohmann::json want;
    ASSERT_TRUE(read_json(project_data_dir() + "/" + s.file, &want)) << s.file;
    ASSERT_EQ(want.at("frames").size(), 24u) << s.file;
    for (size_t i = 0; i < 24; i++) {
      const auto& w = want.at("frames")[i].at("metrics");
      const auto& g = got.at("frames")[i].at("metrics");
      for (auto it = w.begin(); it != w.end(); ++it) {
        ASSERT_TRUE(g.contains(it.key())) << it.key();
        EXPECT_NEAR(g.at(it.key()).get<double>(), it.value().get<double>(), 5e-7 + s.slack)
            << s.file << " frame " << i << " " << it.key();
        values++;
      }
    }
  }
  EXPECT_EQ(values, 24u * (7 + 1 + 1));
  for (const char* n : {"float_psnr", "float_anpsnr", "float_moment_dis2nd", "speed_temporal", "ssimulacra2"})
    EXPECT_TRUE(got.at("pooled_metrics").contains(n)) << n;
}

TEST(CliMetrics, RefusalsNameTheLimit) {
  const std::string ref = sample("ref"), dist = sample("dist");
  CliRun r = run("-r " + ref + " -d " + dist + " -w 320 -h 240 -p 420 -b 8 --no_prediction "
                 "--feature ssimulacra2=yuv_matrix=bt470 --json -o " + tmp("x.json") + " -q");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("yuv_matrix"), std::string::npos) << r.output;
  r = run("-r " + ref + " -d " + dist + " -w 320 -h 240 -p 420 -b 8 --no_prediction "
          "--feature speed_temporal=speed_prescale=2 --json -o " + tmp("y.json") + " -q");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("past its frame buffers"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace vmafx::test
