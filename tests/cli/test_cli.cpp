// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx-score as users run it: its JSON equals libvmaf's for the public pairs, y4m input equals raw input, the
// other results formats are written, and every bad input exits non-zero with one line naming the cause.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support.h"
#include "tolerances.h"

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

std::string tmp(const std::string& name) { return ::testing::TempDir() + "/vmafx_cli_" + name; }

// Writes a .y4m copy of a raw 4:2:0 clip.
void write_y4m(const std::string& yuv, const std::string& y4m, unsigned w, unsigned h, unsigned bpc) {
  std::ifstream in(yuv, std::ios::binary);
  std::ofstream out(y4m, std::ios::binary);
  out << "YUV4MPEG2 W" << w << " H" << h << " F25:1 Ip A0:0 " << (bpc == 8 ? "C420jpeg" : "C420p10") << "\n";
  const size_t frame = size_t(w) * h * (bpc > 8 ? 2 : 1) + 2 * size_t((w + 1) / 2) * ((h + 1) / 2) * (bpc > 8 ? 2 : 1);
  std::string buf(frame, '\0');
  while (in.read(&buf[0], std::streamsize(frame))) out << "FRAME\n" << buf;
}

class CliPairs : public ::testing::TestWithParam<Pair> {};

TEST_P(CliPairs, JsonMatchesLibvmaf) {
  const Pair& p = GetParam();
  const std::string oracle_path = p.oracle_path("vmaf_v0.6.1");
  if (!file_exists(oracle_path)) GTEST_SKIP() << "oracle " << oracle_path << " not present (../shared missing)";
  Oracle oracle;
  ASSERT_TRUE(load_oracle(oracle_path, &oracle).is_ok());
  const std::string out = tmp(p.prefix + "_" + p.distorted + ".json");
  const std::string args = "-r " + p.ref_path() + " -d " + p.dist_path() + " -w " + std::to_string(p.width) +
                           " -h " + std::to_string(p.height) + " -p 420 -b " + std::to_string(p.bpc) +
                           " --feature psnr --feature float_ssim --feature float_ms_ssim --threads 2 --json -o " + out;
  CliRun r = run(args);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("vmaf_v0.6.1: "), std::string::npos) << r.output;
  Oracle got;
  Status s = load_oracle(out, &got);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  ASSERT_EQ(got.frames.size(), oracle.frames.size());
  for (size_t k = 0; k < got.frames.size(); k++) {
    for (const auto& [metric, want] : oracle.frames[k]) {
      if (metric == "cambi") continue;
      ASSERT_TRUE(got.frames[k].count(metric)) << metric;
      EXPECT_NEAR(got.frames[k].at(metric), want, tolerance_for(metric)) << metric << " frame " << k;
    }
  }
  for (const auto& [metric, stats] : oracle.pooled) {
    if (metric == "cambi") continue;
    for (const auto& [stat, want] : stats) EXPECT_NEAR(got.pooled.at(metric).at(stat), want, tolerance_for(metric));
  }
}

INSTANTIATE_TEST_SUITE_P(PublicPairs, CliPairs, ::testing::ValuesIn(public_pairs()), [](const auto& info) {
  return info.param.prefix + "_" + info.param.distorted;
});

// The shipped sample, unpacked, for tests that must run without ../shared.
std::string sample(const char* which) {
  const std::string path = tmp(std::string("sample_") + which + ".yuv");
  if (!file_exists(path)) {
    const std::string cmd = "gunzip -c " + project_source_dir() + "/samples/sample_320x240_" + which +
                            ".yuv.gz > " + path;
    if (std::system(cmd.c_str()) != 0) return "";
  }
  return path;
}

TEST(Cli, Y4mInputEqualsRawInput) {
  const std::string ref = sample("ref"), dist = sample("dist");
  write_y4m(ref, tmp("ref.y4m"), 320, 240, 8);
  write_y4m(dist, tmp("dist.y4m"), 320, 240, 8);
  CliRun a = run("-r " + ref + " -d " + dist + " -w 320 -h 240 -p 420 -b 8 --json -o " + tmp("raw.json"));
  CliRun b = run("-r " + tmp("ref.y4m") + " -d " + tmp("dist.y4m") + " --json -o " + tmp("y4m.json"));
  ASSERT_EQ(a.status, 0) << a.output;
  ASSERT_EQ(b.status, 0) << b.output;
  Oracle x, y;
  ASSERT_TRUE(load_oracle(tmp("raw.json"), &x).is_ok());
  ASSERT_TRUE(load_oracle(tmp("y4m.json"), &y).is_ok());
  ASSERT_EQ(x.frames.size(), 24u);
  EXPECT_EQ(x.frames, y.frames);
}

TEST(Cli, MatchesShippedOracleAndWritesEveryFormat) {
  const std::string ref = sample("ref"), dist = sample("dist");
  Oracle oracle;
  ASSERT_TRUE(load_oracle(project_data_dir() + "/sample_320x240_dist.vmaf_v0.6.1.json", &oracle).is_ok());
  CliRun r = run("-r " + ref + " -d " + dist + " -w 320 -h 240 -p 420 -b 8 --feature psnr --feature float_ssim "
              "--feature float_ms_ssim --json -o " + tmp("s.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  Oracle got;
  ASSERT_TRUE(load_oracle(tmp("s.json"), &got).is_ok());
  ASSERT_EQ(got.frames.size(), oracle.frames.size());
  for (size_t k = 0; k < got.frames.size(); k++)
    for (const auto& [metric, want] : oracle.frames[k])
      EXPECT_NEAR(got.frames[k].at(metric), want, tolerance_for(metric)) << metric;
  for (const char* fmt : {"xml", "csv", "sub"}) {
    const std::string out = tmp(std::string("s.") + fmt);
    CliRun f = run("-r " + ref + " -d " + dist + " -w 320 -h 240 --" + fmt + " -o " + out);
    ASSERT_EQ(f.status, 0) << f.output;
    std::ifstream in(out);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("62.502458"), std::string::npos) << fmt << ": frame 0's VMAF missing\n" << text.substr(0, 400);
  }
}

TEST(Cli, SubsampleAndFrameCount) {
  const std::string ref = sample("ref"), dist = sample("dist");
  CliRun r = run("-r " + ref + " -d " + dist + " -w 320 -h 240 --subsample 3 --frame_cnt 10 --json -o " + tmp("ss.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  Oracle got;
  ASSERT_TRUE(load_oracle(tmp("ss.json"), &got).is_ok());
  ASSERT_EQ(got.frame_num, (std::vector<unsigned>{0, 3, 6, 9}));
}

struct BadCase {
  const char* name;
  std::string args;
  const char* expect;  // part of the one-line error
};

TEST(Cli, BadInputFailsWithTheCause) {
  const std::string ref = sample("ref"), dist = sample("dist");
  const std::string trunc = tmp("trunc.yuv");
  ASSERT_EQ(std::system(("head -c 200000 " + dist + " > " + trunc).c_str()), 0);
  {
    std::ofstream bad(tmp("bad_model.json"));
    bad << "{ \"model_dict\": { oops";
  }
  write_y4m(ref, tmp("ref.y4m"), 320, 240, 8);
  const std::string common = " -w 320 -h 240 -p 420 -b 8 -q";
  const BadCase cases[] = {
      {"missing input", "-r /nonexistent.yuv -d " + dist + common, "cannot open /nonexistent.yuv"},
      {"no distorted", "-r " + ref, "--reference and --distorted are required"},
      {"unknown format", "-r " + ref + " -d " + dist + " -w 320 -h 240 -p 411", "unknown pixel format '411'"},
      {"bad depth", "-r " + ref + " -d " + dist + " -w 320 -h 240 -b 9 -p nv12", "8-bit layout"},
      {"geometry mismatch", "-r " + tmp("ref.y4m") + " -d " + dist + " -w 320 -h 200", "is 320x240, not the 320x200"},
      {"truncated", "-r " + ref + " -d " + trunc + common, "is truncated"},
      {"missing model", "-r " + ref + " -d " + dist + common + " -m path=/nonexistent/model.json",
       "/nonexistent/model.json"},
      {"malformed model", "-r " + ref + " -d " + dist + common + " -m path=" + tmp("bad_model.json"),
       "bad_model.json"},
      {"too small", "-r " + ref + " -d " + dist + " -w 16 -h 16 -q", "16x16"},
      {"unwritable output", "-r " + ref + " -d " + dist + common + " --frame_cnt 2 --json -o /nonexistent/dir/x.json",
       "/nonexistent/dir/x.json"},
      {"bad number", "-r " + ref + " -d " + dist + " -w abc -h 240", "--width needs a non-negative integer"},
      {"unknown feature", "-r " + ref + " -d " + dist + common + " --feature cambi", "unknown feature 'cambi'"},
  };
  for (const auto& c : cases) {
    CliRun r = run(c.args);
    EXPECT_EQ(r.status, 1) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.name << ": got\n" << r.output;
    EXPECT_EQ(r.output.find("Segmentation"), std::string::npos) << c.name;
  }
}

// No GPU runtime for the vendor asked for: a clean error naming what was tried (on CI: Debian's libamdhip64 loads
// but finds no device; on the NVIDIA GPU machine no AMD runtime exists).
TEST(Cli, HipBackendWithoutDeviceFailsCleanly) {
  const std::string ref = sample("ref"), dist = sample("dist");
  CliRun r = run("-r " + ref + " -d " + dist + " -w 320 -h 240 -q --backend hip --vendor amd");
  EXPECT_EQ(r.status, 1) << r.output;
  const bool names_runtime = r.output.find("libamdhip64") != std::string::npos ||
                             r.output.find("no HIP engine") != std::string::npos;
  EXPECT_TRUE(names_runtime) << r.output;
}

}  // namespace
}  // namespace vmafx::test
