// SPDX-License-Identifier: LGPL-2.1-or-later
// `vmafx-score --feature psnr_hvs` as users run it: its JSON equals libvmaf's as libvmaf prints it (6 decimals,
// null for the infinite scores of identical planes), frame by frame and in the pooled metrics, for the shipped
// sample pair; depths and formats libvmaf's psnr_hvs refuses fail with one line naming the limit.
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

std::string tmp(const std::string& name) { return ::testing::TempDir() + "/vmafx_cli_hvs_" + name; }

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

TEST(CliPsnrHvs, JsonEqualsLibvmafsAsPrinted) {
  const std::string ref = sample("ref"), dist = sample("dist");
  ASSERT_FALSE(ref.empty());
  ASSERT_FALSE(dist.empty());
  const std::string out = tmp("s.json");
  CliRun r = run("-r " + ref + " -d " + dist + " -w 320 -h 240 -p 420 -b 8 --no_prediction --feature psnr_hvs "
                 "--json -o " + out + " -q");
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json got, want;
  ASSERT_TRUE(read_json(out, &got)) << out;
  ASSERT_TRUE(read_json(project_data_dir() + "/psnr_hvs/sample_320x240.printed.json", &want));
  // Both printed with 6 decimals: equal numbers are equal text, so equal doubles once read.
  ASSERT_EQ(got.at("frames").size(), 24u);
  EXPECT_EQ(got.at("frames"), want.at("frames"));
  EXPECT_EQ(got.at("pooled_metrics"), want.at("pooled_metrics"));
  unsigned nulls = 0, values = 0;
  for (const auto& fr : got.at("frames")) {
    for (const char* n : {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"}) {
      ASSERT_TRUE(fr.at("metrics").contains(n)) << n;
      nulls += fr.at("metrics").at(n).is_null();
      values++;
    }
  }
  EXPECT_EQ(values, 96u);
  EXPECT_GT(nulls, 0u);  // identical Cb planes: libvmaf's null
}

TEST(CliPsnrHvs, RefusesDepthsAndFormatsLibvmafRefuses) {
  const std::string ref = sample("ref");
  ASSERT_FALSE(ref.empty());
  // The sample's bytes read as 16-bit 4:2:0 frames of 320x240.
  CliRun r = run("-r " + ref + " -d " + ref + " -w 320 -h 240 -p 420 -b 16 --no_prediction --feature psnr_hvs "
                 "--json -o " + tmp("16.json") + " -q");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("psnr_hvs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("12 bits"), std::string::npos) << r.output;
  r = run("-r " + ref + " -d " + ref + " -w 320 -h 240 -p 400 -b 8 --no_prediction --feature psnr_hvs --json -o " +
          tmp("400.json") + " -q");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("4:0:0"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace vmafx::test
