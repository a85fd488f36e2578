// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx-score as users run it: its JSON equals libvmaf's for the public pairs, y4m input equals raw input, the
// other results formats are written, and every bad input exits non-zero with one line naming the cause. Inputs are
// mapped (VMAFX_READER unset: mmap) or read (VMAFX_READER=read, pipes): both give the same scores and messages.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>
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

// `prefix` goes before the program in the shell command: environment settings, or a pipe into it.
CliRun run_with(const std::string& prefix, const std::string& args) {
  CliRun r;
  const std::string cmd = prefix + std::string(VMAFX_SCORE_PATH) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

CliRun run(const std::string& args) { return run_with("", args); }

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
      {"unknown feature", "-r " + ref + " -d " + dist + common + " --feature psnr_hvs", "unknown feature 'psnr_hvs'"},
  };
  for (const auto& c : cases) {
    CliRun r = run(c.args);
    EXPECT_EQ(r.status, 1) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.name << ": got\n" << r.output;
    EXPECT_EQ(r.output.find("Segmentation"), std::string::npos) << c.name;
  }
}

// ---- Mapped input (default) against read() (VMAFX_READER=read) ----

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The trace line that says how an input was opened ("mmap" or "read: <why>").
std::string opened_as(const std::string& output, const std::string& path) {
  const std::string key = "input " + path + " opened: ";
  const size_t at = output.find(key);
  if (at == std::string::npos) return "(no trace line for " + path + ")";
  const size_t from = at + key.size();
  return output.substr(from, output.find(',', from) - from);
}

// Scores of a JSON results file, frames and pooled (the fps field, a timing, left out).
void expect_same_scores(const std::string& a, const std::string& b) {
  Oracle x, y;
  ASSERT_TRUE(load_oracle(a, &x).is_ok()) << a;
  ASSERT_TRUE(load_oracle(b, &y).is_ok()) << b;
  ASSERT_FALSE(x.frames.empty());
  EXPECT_EQ(x.frames, y.frames);
  EXPECT_EQ(x.frame_num, y.frame_num);
  EXPECT_EQ(x.pooled, y.pooled);
}

TEST(CliMapped, MappedAndReadInputsScoreTheSame) {
  const std::string ref = sample("ref"), dist = sample("dist");
  // Chroma (psnr), skips on both sides, a frame count and subsampling: every path through the frame loop.
  const std::string args = "-r " + ref + " -d " + dist + " -w 320 -h 240 --feature psnr --feature float_ssim "
                           "--frame_skip_ref 1 --frame_skip_dist 2 --frame_cnt 15 --subsample 2 --json -o ";
  CliRun m = run_with("VMAFX_TRACE=1 ", args + tmp("mapped.json"));
  CliRun r = run_with("VMAFX_TRACE=1 VMAFX_READER=read ", args + tmp("read.json"));
  ASSERT_EQ(m.status, 0) << m.output;
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(opened_as(m.output, ref), "mmap") << m.output;
  EXPECT_EQ(opened_as(m.output, dist), "mmap") << m.output;
  EXPECT_EQ(opened_as(r.output, ref), "read: VMAFX_READER=read") << r.output;
  expect_same_scores(tmp("mapped.json"), tmp("read.json"));
  Oracle got;
  ASSERT_TRUE(load_oracle(tmp("mapped.json"), &got).is_ok());
  EXPECT_EQ(got.frame_num, (std::vector<unsigned>{0, 2, 4, 6, 8, 10, 12, 14}));
  ASSERT_TRUE(got.frames[0].count("psnr_cb"));
}

TEST(CliMapped, TruncatedFileSameMessageBothWays) {
  const std::string ref = sample("ref"), dist = sample("dist");
  const std::string trunc = tmp("trunc_mapped.yuv");
  // 200000 bytes: frame 0 whole, frame 1 holds 84800 of its 115200 bytes (inside its chroma, luma is 76800).
  ASSERT_EQ(std::system(("head -c 200000 " + dist + " > " + trunc).c_str()), 0);
  const std::string want = trunc + ": frame 1 is truncated (84800 of 115200 bytes)";
  for (const char* env : {"VMAFX_TRACE=1 ", "VMAFX_TRACE=1 VMAFX_READER=read "}) {
    CliRun r = run_with(env, "-r " + ref + " -d " + trunc + " -w 320 -h 240 -q");
    EXPECT_EQ(r.status, 1) << env << r.output;
    EXPECT_NE(r.output.find(want), std::string::npos) << env << r.output;
  }
  // Cut inside the luma, and shorter than one frame: nothing to map, still truncated.
  ASSERT_EQ(std::system(("head -c 50000 " + dist + " > " + trunc).c_str()), 0);
  for (const char* env : {"", "VMAFX_READER=read "}) {
    CliRun r = run_with(env, "-r " + ref + " -d " + trunc + " -w 320 -h 240 -q");
    EXPECT_EQ(r.status, 1) << env << r.output;
    EXPECT_NE(r.output.find(trunc + ": frame 0 is truncated (50000 of 115200 bytes)"), std::string::npos)
        << env << r.output;
  }
}

// Writes a .y4m copy of a raw 4:2:0 8-bit clip whose FRAME lines carry parameters of varying length.
void write_y4m_frame_params(const std::string& yuv, const std::string& y4m, unsigned w, unsigned h) {
  std::ifstream in(yuv, std::ios::binary);
  std::ofstream out(y4m, std::ios::binary);
  out << "YUV4MPEG2 W" << w << " H" << h << " F25:1 Ip A1:1 C420jpeg XYSCSS=420JPEG\n";
  const size_t frame = size_t(w) * h * 3 / 2;
  std::string buf(frame, '\0');
  for (int k = 0; in.read(&buf[0], std::streamsize(frame)); k++) {
    out << "FRAME";
    for (int i = 0; i < k % 4; i++) out << " Xk" << std::string(size_t(k), 'a');
    out << "\n" << buf;
  }
}

TEST(CliMapped, Y4mMappedEqualsRawWithAndWithoutFrameParameters) {
  const std::string ref = sample("ref"), dist = sample("dist");
  write_y4m(ref, tmp("m_ref.y4m"), 320, 240, 8);
  write_y4m_frame_params(dist, tmp("m_dist.y4m"), 320, 240);
  CliRun raw = run_with("VMAFX_READER=read ", "-r " + ref + " -d " + dist + " -w 320 -h 240 --json -o " +
                                                   tmp("m_raw.json"));
  CliRun y = run_with("VMAFX_TRACE=1 ", "-r " + tmp("m_ref.y4m") + " -d " + tmp("m_dist.y4m") + " --frame_skip_ref 3 "
                      "--frame_skip_dist 3 --json -o " + tmp("m_y4m.json"));
  CliRun raw_skip = run_with("VMAFX_READER=read ", "-r " + ref + " -d " + dist + " -w 320 -h 240 --frame_skip_ref 3 "
                             "--frame_skip_dist 3 --json -o " + tmp("m_raw_skip.json"));
  CliRun y0 = run("-r " + tmp("m_ref.y4m") + " -d " + tmp("m_dist.y4m") + " --json -o " + tmp("m_y4m0.json"));
  ASSERT_EQ(raw.status, 0) << raw.output;
  ASSERT_EQ(y.status, 0) << y.output;
  ASSERT_EQ(raw_skip.status, 0) << raw_skip.output;
  ASSERT_EQ(y0.status, 0) << y0.output;
  EXPECT_EQ(opened_as(y.output, tmp("m_ref.y4m")), "mmap") << y.output;
  EXPECT_EQ(opened_as(y.output, tmp("m_dist.y4m")), "mmap") << y.output;
  expect_same_scores(tmp("m_raw.json"), tmp("m_y4m0.json"));
  expect_same_scores(tmp("m_raw_skip.json"), tmp("m_y4m.json"));
  Oracle got;
  ASSERT_TRUE(load_oracle(tmp("m_y4m.json"), &got).is_ok());
  EXPECT_EQ(got.frames.size(), 21u);
}

TEST(CliMapped, Y4mTruncatedOrWithoutMarkerSameMessageBothWays) {
  const std::string ref = sample("ref"), dist = sample("dist");
  write_y4m(ref, tmp("t_ref.y4m"), 320, 240, 8);
  write_y4m(dist, tmp("t_dist.y4m"), 320, 240, 8);
  const std::string y4m = slurp(tmp("t_dist.y4m"));
  const size_t header = y4m.find('\n') + 1, frame = 6 + 115200;
  {
    // Frame 5 cut 1000 bytes into its data.
    std::ofstream out(tmp("t_cut.y4m"), std::ios::binary);
    out << y4m.substr(0, header + 5 * frame + 6 + 1000);
  }
  {
    // Frame 3's marker damaged.
    std::string bad = y4m;
    bad.replace(header + 3 * frame, 5, "FRAMX");
    std::ofstream out(tmp("t_nomark.y4m"), std::ios::binary);
    out << bad;
  }
  {
    // Frame 7's marker without its newline at the end of the file: no frame data at all.
    std::ofstream out(tmp("t_marker_only.y4m"), std::ios::binary);
    out << y4m.substr(0, header + 7 * frame + 5);
  }
  const struct {
    std::string path, want;
  } cases[] = {
      {tmp("t_cut.y4m"), tmp("t_cut.y4m") + ": frame 5 is truncated (1000 of 115200 bytes)"},
      {tmp("t_nomark.y4m"), tmp("t_nomark.y4m") + ": frame 3 lacks its FRAME marker"},
      {tmp("t_marker_only.y4m"), tmp("t_marker_only.y4m") + ": frame 7 is truncated (0 of 115200 bytes)"},
  };
  for (const auto& c : cases) {
    for (const char* env : {"VMAFX_TRACE=1 ", "VMAFX_TRACE=1 VMAFX_READER=read "}) {
      CliRun r = run_with(env, "-r " + tmp("t_ref.y4m") + " -d " + c.path + " -q");
      EXPECT_EQ(r.status, 1) << env << r.output;
      EXPECT_NE(r.output.find(c.want), std::string::npos) << env << c.want << "\n" << r.output;
      const std::string mode = opened_as(r.output, c.path);
      EXPECT_EQ(mode, std::strstr(env, "read") ? "read: VMAFX_READER=read" : "mmap") << r.output;
    }
  }
}

TEST(CliMapped, SameFileAsReferenceAndDistorted) {
  const std::string ref = sample("ref");
  const std::string args = "-r " + ref + " -d " + ref + " -w 320 -h 240 --feature psnr --json -o ";
  CliRun m = run_with("VMAFX_TRACE=1 ", args + tmp("same_m.json"));
  CliRun r = run_with("VMAFX_READER=read ", args + tmp("same_r.json"));
  ASSERT_EQ(m.status, 0) << m.output;
  ASSERT_EQ(r.status, 0) << r.output;
  // Both inputs mapped (two mappings of one file).
  const size_t first = m.output.find("input " + ref + " opened: mmap");
  ASSERT_NE(first, std::string::npos) << m.output;
  EXPECT_NE(m.output.find("input " + ref + " opened: mmap", first + 1), std::string::npos) << m.output;
  expect_same_scores(tmp("same_m.json"), tmp("same_r.json"));
  Oracle got;
  ASSERT_TRUE(load_oracle(tmp("same_m.json"), &got).is_ok());
  ASSERT_EQ(got.frames.size(), 24u);
  for (const auto& f : got.frames) {
    EXPECT_EQ(f.at("psnr_y"), 60.0);  // identical pictures: libvmaf's 8-bit ceiling
    EXPECT_NEAR(f.at("integer_vif_scale0"), 1.0, 1e-5);
  }
}

TEST(CliMapped, PipeAndDevStdinFallBackToRead) {
  const std::string ref = sample("ref"), dist = sample("dist");
  CliRun piped = run_with("cat " + ref + " | VMAFX_TRACE=1 ", "-r /dev/stdin -d " + dist +
                          " -w 320 -h 240 --feature psnr --json -o " + tmp("pipe.json"));
  CliRun mapped = run("-r " + ref + " -d " + dist + " -w 320 -h 240 --feature psnr --json -o " + tmp("nopipe.json"));
  ASSERT_EQ(piped.status, 0) << piped.output;
  ASSERT_EQ(mapped.status, 0) << mapped.output;
  EXPECT_EQ(opened_as(piped.output, "/dev/stdin"), "read: not a regular file") << piped.output;
  EXPECT_EQ(opened_as(piped.output, dist), "mmap") << piped.output;
  expect_same_scores(tmp("pipe.json"), tmp("nopipe.json"));
  // A pipe cut inside a frame is truncated too.
  CliRun cut = run_with("head -c 200000 " + dist + " | ", "-r " + ref + " -d /dev/stdin -w 320 -h 240 -q");
  EXPECT_EQ(cut.status, 1) << cut.output;
  EXPECT_NE(cut.output.find("/dev/stdin: frame 1 is truncated (84800 of 115200 bytes)"), std::string::npos)
      << cut.output;
}

TEST(CliMapped, UnknownReaderModeFails) {
  const std::string ref = sample("ref"), dist = sample("dist");
  CliRun r = run_with("VMAFX_READER=fast ", "-r " + ref + " -d " + dist + " -w 320 -h 240 -q");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("VMAFX_READER must be read or mmap, not 'fast'"), std::string::npos) << r.output;
}

// A mapped file that shrinks while it is scored: one line naming the file and exit status 1, not a SIGBUS death.
// Deterministic: per-frame lines go to a pipe this test does not read until the file is cut, so the tool blocks
// writing long before its last frame (480 frames of ~400 bytes, the pipe holds 64 KB); cut to 100 frames, the frames
// it still has to score are past the new end of the file whether it stopped before or after frame 100.
TEST(CliMapped, FileShrinkingUnderTheMappingFailsCleanly) {
  const std::string ref = sample("ref");
  const std::string big = tmp("shrink.yuv");
  ASSERT_EQ(std::system(("rm -f " + big + "; for i in $(seq 20); do cat " + ref + " >> " + big + "; done").c_str()),
            0);
  ASSERT_EQ(slurp(big).size(), 480u * 115200u);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    unsetenv("VMAFX_READER");
    execl(VMAFX_SCORE_PATH, VMAFX_SCORE_PATH, "-r", big.c_str(), "-d", big.c_str(), "-w", "320", "-h", "240",
          "--backend", "cpu", "--per-frame", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  // Wait until the file is mapped (/proc names it without the doubled slashes TempDir() may leave).
  const std::string name = big.substr(big.rfind('/') + 1);
  bool mapped = false;
  for (int i = 0; i < 20000 && !mapped; i++) {
    mapped = slurp("/proc/" + std::to_string(pid) + "/maps").find(name) != std::string::npos;
    if (!mapped) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(mapped) << "the tool never mapped " << big;
  EXPECT_EQ(truncate(big.c_str(), off_t(100) * 115200), 0) << std::strerror(errno);
  std::string out;
  std::array<char, 4096> buf;
  ssize_t n;
  while ((n = read(fds[0], buf.data(), buf.size())) > 0) out.append(buf.data(), size_t(n));
  close(fds[0]);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st)) << "killed by signal " << (WIFSIGNALED(st) ? WTERMSIG(st) : 0) << "\n"
                             << out.substr(out.size() > 2000 ? out.size() - 2000 : 0);
  EXPECT_EQ(WEXITSTATUS(st), 1);
  EXPECT_NE(out.find("vmafx-score: " + big + " shrank while being read (it had 55296000 bytes when opened)"),
            std::string::npos)
      << out.substr(out.size() > 2000 ? out.size() - 2000 : 0);
  EXPECT_EQ(out.find("frame 479:"), std::string::npos) << "scored to the end of a file that shrank";
  std::remove(big.c_str());
}

// VMAFX_TRACE=1: every phase on stderr in order; stdout as without it.
TEST(CliMapped, TracePrintsThePhasesInOrder) {
  const std::string ref = sample("ref"), dist = sample("dist");
  const std::string args = "-r " + ref + " -d " + dist + " -w 320 -h 240 --json -o " + tmp("trace.json");
  CliRun plain = run(args);
  ASSERT_EQ(plain.status, 0) << plain.output;
  auto score_line = [](const std::string& out) {
    const size_t at = out.find("\nvmaf_v0.6.1: ");
    return at == std::string::npos ? std::string("(none)") : out.substr(at + 1, out.find('\n', at + 1) - at - 1);
  };
  ASSERT_NE(score_line(plain.output), "(none)") << plain.output;
  for (const char* env : {"VMAFX_TRACE=1 ", "VMAFX_TRACE=1 VMAFX_READER=read "}) {
    CliRun t = run_with(env, args);
    ASSERT_EQ(t.status, 0) << t.output;
    const std::string phases[] = {"| main",
                            "| options parsed",
                            "opened: ",
                            "| scorer thread started",
                            "| waiting for the scorer",
                            "| scorer ready; by now ref ",
                            "| first frame submitted",
                            "| last frame submitted (24 frames)",
                            "| flush done",
                            "| results printed",
                            "| results written to " + tmp("trace.json"),
                            "| resources: page faults minor ",
                            "| exit: "};
    size_t at = 0;
    for (const std::string& p : phases) {
      const size_t found = t.output.find(p, at);
      ASSERT_NE(found, std::string::npos) << env << "phase '" << p << "' missing or out of order:\n" << t.output;
      at = found;
    }
    const size_t begin = t.output.find("| scorer thread: Scorer::create begin");
    const size_t end = t.output.find("| scorer thread: Scorer::create end: ");
    ASSERT_NE(begin, std::string::npos) << t.output;
    ASSERT_NE(end, std::string::npos) << t.output;
    EXPECT_LT(begin, end);
    EXPECT_LT(end, t.output.find("| scorer ready"));
    // The score line as without the trace.
    EXPECT_EQ(score_line(t.output), score_line(plain.output)) << t.output;
  }
  EXPECT_EQ(plain.output.find("trace"), std::string::npos) << plain.output;
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
