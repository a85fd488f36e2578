// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx-score as users run it: its JSON equals libvmaf's for the generated pairs (and the public pairs present), y4m input equals raw input, the
// other results formats are written, and every bad input exits non-zero with one line naming the cause. Inputs are
// mapped (VMAFX_READER unset: mmap) or read (VMAFX_READER=read, pipes): both give the same scores and messages.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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
  Oracle oracle;
  ASSERT_TRUE(load_oracle(oracle_path, &oracle).is_ok());
  const std::string out = tmp(p.prefix + "_" + p.distorted + ".json");
  const std::string args = "-r " + p.ref_path() + " -d " + p.dist_path() + " -w " + std::to_string(p.width) +
                           " -h " + std::to_string(p.height) + " -p " + chroma_arg(p.chroma) + " -b " + std::to_string(p.bpc) +
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

INSTANTIATE_TEST_SUITE_P(Pairs, CliPairs, ::testing::ValuesIn(oracle_pairs()), [](const auto& info) {
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
      {"bad depth", "-r " + ref + " -d " + dist + " -w 320 -h 240 -b 9", "--bitdepth must be 8, 10, 12 or 16, not '9'"},
      {"depth of layout", "-r " + ref + " -d " + dist + " -w 320 -h 240 -b 10 -p nv12", "8-bit layout"},
      {"geometry mismatch", "-r " + tmp("ref.y4m") + " -d " + dist + " -w 320 -h 200",
       "is 320x240 (its y4m header), not the 320x200 given"},
      {"truncated", "-r " + ref + " -d " + trunc + common, "is truncated"},
      {"missing model", "-r " + ref + " -d " + dist + common + " -m path=/nonexistent/model.json",
       "/nonexistent/model.json"},
      {"malformed model", "-r " + ref + " -d " + dist + common + " -m path=" + tmp("bad_model.json"),
       "bad_model.json"},
      {"too small", "-r " + ref + " -d " + dist + " -w 16 -h 16 -q", "16x16"},
      {"unwritable output", "-r " + ref + " -d " + dist + common + " --frame_cnt 2 --json -o /nonexistent/dir/x.json",
       "/nonexistent/dir/x.json"},
      {"bad number", "-r " + ref + " -d " + dist + " -w abc -h 240", "--width must be a whole number from 1 to"},
      {"unknown feature", "-r " + ref + " -d " + dist + common + " --feature nosuchfeature",
       "unknown feature 'nosuchfeature'"},
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
    const std::string text = "\n" + out;
    const size_t at = text.find("\nvmaf_v0.6.1: ");
    return at == std::string::npos ? std::string("(none)") : text.substr(at + 1, text.find('\n', at + 1) - at - 1);
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

// ---- libvmaf's tool as users run it: streams, terminal, checks before scoring (issue 16), option syntax (issue 14) ----

// stdout and stderr apart.
struct Streams {
  int status = -1;
  std::string out, err;
};

Streams run_streams(const std::string& prefix, const std::string& args) {
  const std::string o = tmp("stdout.txt"), e = tmp("stderr.txt");
  const std::string cmd = prefix + std::string(VMAFX_SCORE_PATH) + " " + args + " >" + o + " 2>" + e;
  const int st = std::system(cmd.c_str());
  Streams r;
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(o);
  r.err = slurp(e);
  return r;
}

// Runs the tool with stdout and stderr on a pseudo-terminal; what it wrote there, and its exit status.
CliRun run_on_terminal(const std::vector<std::string>& args) {
  CliRun r;
  std::vector<char*> argv;
  std::string prog = VMAFX_SCORE_PATH;
  argv.push_back(&prog[0]);
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid < 0) return r;
  if (pid == 0) {
    execv(argv[0], argv.data());
    _exit(127);
  }
  std::array<char, 4096> buf;
  for (;;) {
    const ssize_t n = read(master, buf.data(), buf.size());
    if (n > 0) r.output.append(buf.data(), size_t(n));
    else if (n < 0 && errno == EINTR) continue;
    else break;  // EIO: the child closed the terminal
  }
  close(master);
  int st = 0;
  waitpid(pid, &st, 0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string raw_args(const std::string& ref, const std::string& dist) {
  return "-r " + ref + " -d " + dist + " -w 320 -h 240 --backend cpu";
}

TEST(CliTerminal, ProgressMeterOnATerminalOnly) {
  const std::string ref = sample("ref"), dist = sample("dist");
  CliRun t = run_on_terminal({"-r", ref, "-d", dist, "-w", "320", "-h", "240", "--backend", "cpu"});
  ASSERT_EQ(t.status, 0) << t.output;
  // The last redraw: every frame of the 24, with the rate and the time left; then the pooled score on its own line.
  EXPECT_NE(t.output.find("\r24/24 frames  "), std::string::npos) << t.output;
  EXPECT_NE(t.output.find(" FPS  ETA 0:00:00\033[K"), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("\r\nvmaf_v0.6.1: "), std::string::npos) << t.output;  // the terminal's CR LF
  EXPECT_NE(t.output.find("vmafx-score version "), std::string::npos) << t.output;
  // -q: no meter.
  CliRun q = run_on_terminal({"-r", ref, "-d", dist, "-w", "320", "-h", "240", "--backend", "cpu", "-q"});
  ASSERT_EQ(q.status, 0) << q.output;
  EXPECT_EQ(q.output.find("frames"), std::string::npos) << q.output;
  EXPECT_NE(q.output.find("vmaf_v0.6.1: "), std::string::npos) << q.output;  // -q without -o: still the score
  // Not a terminal: no meter, no banner.
  Streams p = run_streams("", raw_args(ref, dist));
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_EQ(p.err.find('\r'), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("frames"), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("version"), std::string::npos) << p.err;
}

TEST(CliTerminal, MeterWithoutTotalOnAPipe) {
  const std::string ref = sample("ref"), dist = sample("dist");
  // A pipe has no size: frames and rate, no total and no ETA.
  const std::string script = tmp("pipe_meter.sh");
  {
    std::ofstream sh(script);
    sh << "#!/bin/sh\ncat " << dist << " | exec " << VMAFX_SCORE_PATH << " -r " << ref
       << " -d /dev/stdin -w 320 -h 240 --backend cpu\n";
  }
  ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl(script.c_str(), script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  std::string out;
  std::array<char, 4096> buf;
  for (;;) {
    const ssize_t n = read(master, buf.data(), buf.size());
    if (n > 0) out.append(buf.data(), size_t(n));
    else if (n < 0 && errno == EINTR) continue;
    else break;
  }
  close(master);
  int st = 0;
  waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << out;
  EXPECT_NE(out.find("\r24 frames"), std::string::npos) << out;
  EXPECT_EQ(out.find("ETA"), std::string::npos) << out;
  EXPECT_EQ(out.find("/24 frames"), std::string::npos) << out;
}

TEST(CliStreams, PooledScoresOnStderrAsLibvmaf) {
  const std::string ref = sample("ref"), dist = sample("dist");
  Streams r = run_streams("", raw_args(ref, dist) + " --json -o " + tmp("streams.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("vmaf_v0.6.1: "), std::string::npos) << r.err;
  // -q with a results file: nothing at all; -q without one: the score (libvmaf's rule).
  Streams q = run_streams("", raw_args(ref, dist) + " -q --json -o " + tmp("streams.json"));
  ASSERT_EQ(q.status, 0) << q.err;
  EXPECT_EQ(q.out + q.err, "");
  Streams q2 = run_streams("", raw_args(ref, dist) + " -q");
  EXPECT_NE(q2.err.find("vmaf_v0.6.1: "), std::string::npos) << q2.err;
  EXPECT_EQ(q2.out, "");
  // --per-frame (ours) is the one thing on stdout.
  Streams f = run_streams("", raw_args(ref, dist) + " -q --per-frame --frame_cnt 2");
  ASSERT_EQ(f.status, 0) << f.err;
  EXPECT_EQ(f.out.rfind("frame 0: ", 0), 0u) << f.out;
  EXPECT_NE(f.out.find("\nframe 1: "), std::string::npos) << f.out;
  EXPECT_EQ(f.out.find("vmaf_v0.6.1: "), std::string::npos) << f.out;
  // -v: the version on stderr, as libvmaf.
  Streams v = run_streams("", "-v");
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(v.out, "");
  EXPECT_EQ(v.err.rfind("vmafx-score ", 0), 0u) << v.err;
}

// The printed pooled scores are the results file's, under libvmaf's labels: the version or the path; a bootstrap
// model adds its interval line after every model's plain line.
TEST(CliStreams, PooledLinesLabelledAsLibvmaf) {
  const std::string ref = sample("ref"), dist = sample("dist");
  const std::string model_path = project_models_dir() + "/vmaf_v0.6.1.json";
  ASSERT_TRUE(file_exists(model_path)) << model_path;
  Streams p = run_streams("", raw_args(ref, dist) + " -m path=" + model_path + ":name=mine --json -o " +
                                  tmp("label.json"));
  ASSERT_EQ(p.status, 0) << p.err;
  Oracle j;
  ASSERT_TRUE(load_oracle(tmp("label.json"), &j).is_ok());
  char want[256];
  std::snprintf(want, sizeof want, "%s: %f\n", model_path.c_str(), j.pooled.at("mine").at("mean"));
  EXPECT_NE(p.err.find(want), std::string::npos) << want << "\n" << p.err;

  Streams b = run_streams("", raw_args(ref, dist) + " -m version=vmaf_b_v0.6.3 --json -o " + tmp("boot.json"));
  ASSERT_EQ(b.status, 0) << b.err;
  Oracle k;
  ASSERT_TRUE(load_oracle(tmp("boot.json"), &k).is_ok());
  char plain[128], ci[256];
  std::snprintf(plain, sizeof plain, "vmaf_b_v0.6.3: %f\n", k.pooled.at("vmaf").at("mean"));
  std::snprintf(ci, sizeof ci, "vmaf_b_v0.6.3: %f, ci.p95: [%f, %f], stddev: %f\n",
                k.pooled.at("vmaf_bagging").at("mean"), k.pooled.at("vmaf_ci_p95_lo").at("mean"),
                k.pooled.at("vmaf_ci_p95_hi").at("mean"), k.pooled.at("vmaf_stddev").at("mean"));
  const size_t a = b.err.find(plain), c = b.err.find(ci);
  EXPECT_NE(a, std::string::npos) << plain << "\n" << b.err;
  EXPECT_NE(c, std::string::npos) << ci << "\n" << b.err;
  EXPECT_LT(a, c) << b.err;
}

// A run that fails: exit status 1 and the line naming the cause on stderr, nothing on stdout.
void expect_refused(const std::string& prefix, const std::string& args, const std::string& expect) {
  Streams r = run_streams(prefix, args);
  EXPECT_EQ(r.status, 1) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(expect), std::string::npos) << args << ": expected '" << expect << "' in\n" << r.err;
  EXPECT_EQ(r.out, "") << args;
}

TEST(CliNumbers, StrictRangeCheckedNeverWrapped) {
  const std::string ref = sample("ref"), dist = sample("dist");
  const std::string io = "-r " + ref + " -d " + dist;
  // 4294967617 = 2^32 + 321: libvmaf scores it as width 321.
  expect_refused("", io + " -w 4294967617 -h 240", "--width must be a whole number from 1 to 32768, not '4294967617'");
  expect_refused("", io + " -w 320 -h -240", "--height must be a whole number from 1 to 32768, not '-240'");
  expect_refused("", io + " -w 320 -h 240 --frame_cnt -1", "--frame_cnt must be a whole number");
  expect_refused("", io + " -w 320 -h 240 --threads 2x", "--threads must be a whole number");
  expect_refused("", io + " -w 320 -h 240 --frame_skip_ref 18446744073709551616", "--frame_skip_ref must be");
  expect_refused("", io + " -w 0320 -h 240", "leading zero");
  expect_refused("", io + " -w 320 -h 240 --device 99999", "--device must be a whole number from 0 to 255");
  // Hexadecimal, as libvmaf's strtoul(..., 0) reads it.
  Streams hex = run_streams("", io + " -w 0x140 -h 0xF0 --backend cpu -q --frame_cnt 0x2 --json -o " +
                                    tmp("hex.json"));
  ASSERT_EQ(hex.status, 0) << hex.err;
  Oracle o;
  ASSERT_TRUE(load_oracle(tmp("hex.json"), &o).is_ok());
  EXPECT_EQ(o.frames.size(), 2u);
}

TEST(CliNumbers, Y4mHeaderNumbersChecked) {
  const std::string dist = sample("dist");
  write_y4m(dist, tmp("n_ok.y4m"), 320, 240, 8);
  std::string y = slurp(tmp("n_ok.y4m"));
  const struct {
    const char* name;
    const char* from;
    const char* to;
    const char* expect;
  } cases[] = {
      {"n_neg.y4m", "W320", "W-5", "y4m header width 'W-5' is not a whole number from 1 to 32768"},
      {"n_wrap.y4m", "W320", "W4294967617", "y4m header width 'W4294967617'"},
      {"n_empty.y4m", "H240", "H", "y4m header height 'H'"},
      {"n_junk.y4m", "H240", "H240x", "y4m header height 'H240x'"},
      {"n_depth.y4m", "C420jpeg", "C420p1x", "C420p1x"},
      {"n_chroma.y4m", "C420jpeg", "C411", "C411 is not supported"},
  };
  for (const auto& c : cases) {
    std::string bad = y;
    bad.replace(bad.find(c.from), std::strlen(c.from), c.to);
    {
      std::ofstream out(tmp(c.name), std::ios::binary);
      out << bad;
    }
    expect_refused("", "-r " + tmp(c.name) + " -d " + tmp("n_ok.y4m"), c.expect);
  }
}

TEST(CliY4m, DetectedByItsHeaderNotItsName) {
  const std::string ref = sample("ref"), dist = sample("dist");
  write_y4m(ref, tmp("UPPER.Y4M"), 320, 240, 8);
  write_y4m(dist, tmp("no_extension"), 320, 240, 8);
  CliRun raw = run(raw_args(ref, dist) + " -q --json -o " + tmp("d_raw.json"));
  ASSERT_EQ(raw.status, 0) << raw.output;
  CliRun y = run("-r " + tmp("UPPER.Y4M") + " -d " + tmp("no_extension") + " --backend cpu -q --json -o " +
                 tmp("d_y4m.json"));
  ASSERT_EQ(y.status, 0) << y.output;
  expect_same_scores(tmp("d_raw.json"), tmp("d_y4m.json"));
  // A .y4m stream through a pipe, read and mapped inputs mixed.
  CliRun p = run_with("cat " + tmp("no_extension") + " | ", "-r " + tmp("UPPER.Y4M") +
                                                                " -d /dev/stdin --backend cpu -q --json -o " +
                                                                tmp("d_pipe.json"));
  ASSERT_EQ(p.status, 0) << p.output;
  expect_same_scores(tmp("d_raw.json"), tmp("d_pipe.json"));
  // Raw video named .y4m is raw video; a raw pipe keeps the bytes read to tell (frame 0 starts with them).
  ASSERT_EQ(std::system(("cp " + dist + " " + tmp("raw_named.y4m")).c_str()), 0);
  CliRun r = run(raw_args(ref, tmp("raw_named.y4m")) + " -q --json -o " + tmp("d_named.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  expect_same_scores(tmp("d_raw.json"), tmp("d_named.json"));
  CliRun rp = run_with("cat " + dist + " | ", raw_args(ref, "/dev/stdin") + " -q --json -o " + tmp("d_rawpipe.json"));
  ASSERT_EQ(rp.status, 0) << rp.output;
  expect_same_scores(tmp("d_raw.json"), tmp("d_rawpipe.json"));
  // Raw input without a size says what it needs.
  expect_refused("", "-r " + ref + " -d " + dist, "is raw video (no YUV4MPEG2 header): give --width and --height");
}

TEST(CliY4m, FlagsCheckedAgainstTheHeader) {
  const std::string ref = sample("ref"), dist = sample("dist");
  write_y4m(ref, tmp("f_ref.y4m"), 320, 240, 8);
  write_y4m(dist, tmp("f_dist.y4m"), 320, 240, 8);
  const std::string io = "-r " + tmp("f_ref.y4m") + " -d " + tmp("f_dist.y4m") + " --backend cpu -q";
  expect_refused("", io + " -b 10", "is planar 4:2:0 8-bit (its y4m header: C420jpeg), not what --bitdepth 10 says");
  expect_refused("", io + " -p 422", "not what --pixel_format 422 says");
  expect_refused("", io + " -p nv12", "not what --pixel_format nv12 says");
  expect_refused("", io + " -p 444 -b 8", "not what --pixel_format 444 --bitdepth 8 says");
  expect_refused("", io + " -w 300", "is 320x240 (its y4m header), not the 300x240 given");
  // Flags that agree are fine (libvmaf would read the file as raw video instead).
  CliRun ok = run(io + " -w 320 -h 240 -p 420 -b 8 --frame_cnt 2");
  EXPECT_EQ(ok.status, 0) << ok.output;
  CliRun ok2 = run(io + " -p i420 --frame_cnt 2");
  EXPECT_EQ(ok2.status, 0) << ok2.output;
}

TEST(CliOutput, CheckedBeforeScoring) {
  const std::string ref = sample("ref"), dist = sample("dist");
  const std::string io = raw_args(ref, dist) + " -q";
  // Fails before the scorer starts (the trace shows no scorer thread).
  Streams r = run_streams("VMAFX_TRACE=1 ", io + " --json -o /nonexistent/dir/x.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("cannot write results file /nonexistent/dir/x.json: No such file or directory"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("scorer thread started"), std::string::npos) << r.err;
  expect_refused("", io + " -o " + ::testing::TempDir(), "is a directory");
  // Never over an input (a copy of the sample: a tool without the check would overwrite it).
  const std::string victim = tmp("o_victim.yuv");
  ASSERT_EQ(std::system(("cp " + dist + " " + victim).c_str()), 0);
  const std::string before = slurp(victim);
  expect_refused("", raw_args(ref, victim) + " -q -o " + victim, "results file " + victim + " is one of the inputs");
  EXPECT_EQ(slurp(victim), before);
  // A new path tried before a run that then fails is not left behind.
  const std::string fresh = tmp("never_written.json");
  std::remove(fresh.c_str());
  expect_refused("", raw_args(ref, dist) + " -q -m version=nosuchmodel -o " + fresh, "nosuchmodel");
  const std::string trunc = tmp("o_trunc.yuv");
  ASSERT_EQ(std::system(("head -c 200000 " + dist + " > " + trunc).c_str()), 0);
  expect_refused("", raw_args(ref, trunc) + " -q -o " + fresh, "is truncated");
  EXPECT_FALSE(file_exists(fresh));
  // An existing file is left as it was when the run fails.
  {
    std::ofstream keep(fresh);
    keep << "keep";
  }
  expect_refused("", raw_args(ref, trunc) + " -q -o " + fresh, "is truncated");
  EXPECT_EQ(slurp(fresh), "keep");
}

TEST(CliDefaults, NoSilentDefaults) {
  const std::string ref = sample("ref"), dist = sample("dist");
  const std::string io = raw_args(ref, dist) + " -q";
  expect_refused("", io + " -b 0", "--bitdepth must be 8, 10, 12 or 16, not '0'");
  expect_refused("", io + " --subsample 0", "--subsample must be a whole number from 1 to");
  expect_refused("", io + " -m ''", "--model needs version=NAME or path=FILE, got an empty string");
  expect_refused("", io + " -o ''", "--output needs a value, got an empty string");
  expect_refused("", io + " -p ''", "--pixel_format needs a value");
  expect_refused("", "-r '' -d " + dist + " -w 320 -h 240", "--reference needs a value");
  expect_refused("", io + " --feature ''", "--feature needs a feature name");
  expect_refused("", io + " --nosuchoption", "unknown option --nosuchoption");  // libvmaf ignores it
  expect_refused("", io + " extra_argument", "unexpected argument 'extra_argument'");
  // A results format without a results file: said, not silently nothing.
  Streams w = run_streams("", raw_args(ref, dist) + " --json --frame_cnt 1");
  EXPECT_EQ(w.status, 0) << w.err;
  EXPECT_NE(w.err.find("a results format without --output: no results file is written"), std::string::npos) << w.err;
}

TEST(CliModel, FileSizeAndKindLimited) {
  const std::string ref = sample("ref"), dist = sample("dist");
  const std::string io = raw_args(ref, dist) + " -q";
  expect_refused("", io + " -m path=/dev/zero", "model file /dev/zero is not a regular file");
  const std::string big = tmp("big_model.json");
  {
    std::ofstream f(big);
  }
  ASSERT_EQ(truncate(big.c_str(), off_t(17) << 20), 0);
  expect_refused("", io + " -m path=" + big, "has 17825792 bytes, more than the 16 MiB a model file may have");
  expect_refused("", io + " -m path=" + ::testing::TempDir(), "is not a regular file");
  expect_refused("", io + " -m version=vmaf_v9", "'vmaf_v9' is not a built-in model version (built in: ");
  std::remove(big.c_str());
}

TEST(CliMasks, CpumaskReachesTheEngineAndGpumaskMeansNoGpu) {
  const std::string ref = sample("ref"), dist = sample("dist");
  const std::string io = "-r " + ref + " -d " + dist + " -w 320 -h 240 -q --frame_cnt 3";
  Streams c = run_streams("VMAFX_TRACE=1 ", io + " --backend cpu --cpumask 0x3f --json -o " + tmp("cpumask.json"));
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_NE(c.err.find("--cpumask: mask 63 for the engine"), std::string::npos) << c.err;
  // Without SIMD the scores are the same (SIMD equals the scalar reference bit for bit).
  CliRun plain = run(io + " --backend cpu --json -o " + tmp("nomask.json"));
  ASSERT_EQ(plain.status, 0) << plain.output;
  expect_same_scores(tmp("cpumask.json"), tmp("nomask.json"));
  expect_refused("", io + " --cpumask -1", "--cpumask must be a whole number");
  // --gpumask non-zero: the CPU, chosen (no fallback notice); with --backend hip a contradiction.
  Streams g = run_streams("VMAFX_TRACE=1 ", io + " --gpumask 1");
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_NE(g.err.find("Scorer::create end: cpu"), std::string::npos) << g.err;
  EXPECT_EQ(g.err.find("no usable GPU"), std::string::npos) << g.err;
  expect_refused("", io + " --gpumask 1 --backend hip", "--gpumask 1 leaves the GPU out");
}

TEST(CliModel, SeveralModelsNeedTheirOwnNames) {
  const std::string ref = sample("ref"), dist = sample("dist");
  expect_refused("", raw_args(ref, dist) + " -m version=vmaf_v0.6.1 -m version=vmaf_4k_v0.6.1",
                 "both score into the column 'vmaf'");
  expect_refused("", raw_args(ref, dist) + " -m version=vmaf_v0.6.1:disable_clip=yes", "true or false, not 'yes'");
  expect_refused("", raw_args(ref, dist) + " --aom_ctc v9.0", "--aom_ctc: unknown version 'v9.0'");
  expect_refused("", raw_args(ref, dist) + " --nflx_ctc v2.0", "--nflx_ctc: unknown version 'v2.0'");
}

// -n with a model: the model's features, no score (libvmaf); -n alone has nothing to compute.
TEST(CliNoPrediction, WritesTheModelsFeatures) {
  const std::string ref = sample("ref"), dist = sample("dist");
  CliRun full = run(raw_args(ref, dist) + " -q --json -o " + tmp("np_full.json"));
  ASSERT_EQ(full.status, 0) << full.output;
  Streams n = run_streams("", raw_args(ref, dist) + " -n -m version=vmaf_v0.6.1 --json -o " + tmp("np.json"));
  ASSERT_EQ(n.status, 0) << n.err;
  EXPECT_EQ(n.err.find("vmaf_v0.6.1: "), std::string::npos) << "no pooled score with -n\n" << n.err;
  Oracle a, b;
  ASSERT_TRUE(load_oracle(tmp("np_full.json"), &a).is_ok());
  ASSERT_TRUE(load_oracle(tmp("np.json"), &b).is_ok());
  ASSERT_EQ(b.frames.size(), 24u);
  for (size_t k = 0; k < a.frames.size(); k++) {
    std::map<std::string, double> want = a.frames[k];
    want.erase("vmaf");
    EXPECT_EQ(b.frames[k], want) << "frame " << k;
  }
  EXPECT_EQ(b.frames[0].count("vmaf"), 0u);
  EXPECT_EQ(b.frames[0].count("integer_adm2"), 1u);
  EXPECT_EQ(b.frames[0].count("integer_vif_scale3"), 1u);
  EXPECT_EQ(b.frames[0].count("integer_motion2"), 1u);
  expect_refused("", raw_args(ref, dist) + " -n", "--no_prediction without --model or --feature");
  expect_refused("", raw_args(ref, dist) + " -n -m version=vmaf_v0.6.1:float_vif.vif_enhn_gain_limit=1.0",
                 "names extractor 'float_vif', which the model does not use");
}

// Several models in one pass: each model's column as libvmaf names it, each equal to the model scored alone; the
// pooled lines in the models' order.
TEST(CliModels, SeveralModelsInOnePassEqualSingleRuns) {
  const std::string ref = sample("ref"), dist = sample("dist");
  Streams both = run_streams("", raw_args(ref, dist) + " -m version=vmaf_v0.6.1 -m version=vmaf_4k_v0.6.1:name=vmaf_4k "
                                 "-m version=vmaf_b_v0.6.3:name=boot --json -o " + tmp("m_both.json"));
  ASSERT_EQ(both.status, 0) << both.err;
  CliRun a = run(raw_args(ref, dist) + " -q -m version=vmaf_v0.6.1 --json -o " + tmp("m_a.json"));
  CliRun b = run(raw_args(ref, dist) + " -q -m version=vmaf_4k_v0.6.1 --json -o " + tmp("m_b.json"));
  CliRun c = run(raw_args(ref, dist) + " -q -m version=vmaf_b_v0.6.3 --json -o " + tmp("m_c.json"));
  ASSERT_EQ(a.status, 0) << a.output;
  ASSERT_EQ(b.status, 0) << b.output;
  ASSERT_EQ(c.status, 0) << c.output;
  Oracle m, x, y, z;
  ASSERT_TRUE(load_oracle(tmp("m_both.json"), &m).is_ok());
  ASSERT_TRUE(load_oracle(tmp("m_a.json"), &x).is_ok());
  ASSERT_TRUE(load_oracle(tmp("m_b.json"), &y).is_ok());
  ASSERT_TRUE(load_oracle(tmp("m_c.json"), &z).is_ok());
  ASSERT_EQ(m.frames.size(), 24u);
  for (size_t k = 0; k < m.frames.size(); k++) {
    EXPECT_EQ(m.frames[k].at("vmaf"), x.frames[k].at("vmaf")) << k;
    EXPECT_EQ(m.frames[k].at("vmaf_4k"), y.frames[k].at("vmaf")) << k;
    for (const char* col : {"", "_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi", "_0001", "_0020"})
      EXPECT_EQ(m.frames[k].at(std::string("boot") + col), z.frames[k].at(std::string("vmaf") + col)) << col << k;
  }
  const std::string err = "\n" + both.err;
  const size_t p1 = err.find("\nvmaf_v0.6.1: "), p2 = err.find("\nvmaf_4k_v0.6.1: "),
               p3 = err.find("\nvmaf_b_v0.6.3: "), p4 = err.find(", ci.p95: [");
  ASSERT_NE(p1, std::string::npos) << both.err;
  ASSERT_NE(p2, std::string::npos) << both.err;
  ASSERT_NE(p3, std::string::npos) << both.err;
  ASSERT_NE(p4, std::string::npos) << both.err;
  EXPECT_TRUE(p1 < p2 && p2 < p3 && p3 < p4) << both.err;
}

// libvmaf's feature options and model overloads reach the engine: psnr without chroma, an ADM option of the model
// under libvmaf's suffixed names; -n with the same overload writes the same features.
TEST(CliModels, FeatureOptionsAndModelOverloads) {
  const std::string ref = sample("ref"), dist = sample("dist");
  CliRun f = run(raw_args(ref, dist) + " -q --feature psnr=enable_chroma=false --json -o " + tmp("fo.json"));
  ASSERT_EQ(f.status, 0) << f.output;
  Oracle fo;
  ASSERT_TRUE(load_oracle(tmp("fo.json"), &fo).is_ok());
  EXPECT_EQ(fo.frames[0].count("psnr_y"), 1u);
  EXPECT_EQ(fo.frames[0].count("psnr_cb"), 0u);

  const std::string model = " -m version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=1.0";
  CliRun plain = run(raw_args(ref, dist) + " -q --json -o " + tmp("ov_plain.json"));
  CliRun ov = run(raw_args(ref, dist) + " -q" + model + " --json -o " + tmp("ov.json"));
  CliRun ovn = run(raw_args(ref, dist) + " -q -n" + model + " --json -o " + tmp("ov_n.json"));
  ASSERT_EQ(plain.status, 0) << plain.output;
  ASSERT_EQ(ov.status, 0) << ov.output;
  ASSERT_EQ(ovn.status, 0) << ovn.output;
  Oracle p, o, n;
  ASSERT_TRUE(load_oracle(tmp("ov_plain.json"), &p).is_ok());
  ASSERT_TRUE(load_oracle(tmp("ov.json"), &o).is_ok());
  ASSERT_TRUE(load_oracle(tmp("ov_n.json"), &n).is_ok());
  EXPECT_EQ(o.frames[0].count("integer_adm2"), 0u);
  ASSERT_EQ(o.frames[0].count("integer_adm2_egl_1"), 1u);
  EXPECT_NE(o.pooled.at("vmaf").at("mean"), p.pooled.at("vmaf").at("mean"));
  for (size_t k = 0; k < o.frames.size(); k++) {
    std::map<std::string, double> want = o.frames[k];
    want.erase("vmaf");
    EXPECT_EQ(n.frames[k], want) << k;
  }
}

// A libvmaf results file with its "version" and "fps" (the build's name and a timing) blanked.
std::string without_version_and_fps(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    for (const char* key : {"\"version\": ", "\"fps\": ", "<VMAF version=\"", "<fyi fps=\""}) {
      const size_t at = line.find(key);
      if (at == std::string::npos) continue;
      const size_t from = at + std::strlen(key);
      size_t end = from;
      while (end < line.size() && line[end] != ',' && line[end] != '"' && line[end] != ' ') end++;
      if (line.compare(from, 1, "\"") == 0) end = line.find('"', from + 1) + 1;  // a quoted JSON version
      line = line.substr(0, from) + "#" + line.substr(end);
    }
    out += line + "\n";
  }
  return out;
}

// libvmaf's results files of psnr / float_ssim / float_ms_ssim options (tests/data/output/README.md): ours the same
// bytes in every format, but for the version and the fps: aggregate metrics (apsnr; -inf as XML writes it, null in
// JSON), dB with and without a cap (inf), mse and l / c / s columns, luma only.
TEST(CliFeatureOptions, ResultsFilesEqualLibvmafsInEveryFormat) {
  const std::string ref = sample("ref"), dist = sample("dist");
  const struct {
    const char* stem;
    std::string args;
  } cases[] = {
      {"sample_ctc", raw_args(ref, dist) + " -n --frame_cnt 4 --feature psnr=enable_apsnr=true:reduced_hbd_peak=true:"
                     "min_sse=0.5 --feature float_ssim=enable_db=true:clip_db=true --feature float_ms_ssim="
                     "enable_db=true:clip_db=true"},
      {"sample_same_luma", raw_args(ref, ref) + " -n --frame_cnt 3 --feature psnr=enable_apsnr=true:enable_chroma="
                           "false:enable_mse=true --feature float_ssim=enable_db=true:enable_lcs=true"},
  };
  unsigned files = 0;
  for (const auto& c : cases) {
    for (const char* fmt : {"json", "xml", "csv", "sub"}) {
      const std::string want_path = project_data_dir() + "/output/" + c.stem + "." + fmt;
      const std::string out = tmp(std::string(c.stem) + "." + fmt);
      Streams r = run_streams("", c.args + " --" + fmt + " -o " + out + " -q");
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_EQ(without_version_and_fps(slurp(out)), without_version_and_fps(slurp(want_path))) << want_path;
      files++;
    }
  }
  std::printf("%u results files equal to libvmaf's (version and fps aside)\n", files);
}

// The presets as libvmaf 3.2 runs them on the sample pair: --nflx_ctc v1.0 (both 4K models, psnr with apsnr,
// float_ssim in clipped dB, cambi), --aom_ctc v1.0 (both models, psnr with reduced_hbd_peak, apsnr and min_sse, ciede,
// float_ssim and float_ms_ssim in clipped dB, psnr_hvs) and v7.0 (cambi, float_ssim scale=1): libvmaf's JSON, the
// same bytes but for version and fps.
TEST(CliFeatureOptions, CtcPresetsWriteLibvmafsJson) {
  const std::string ref = sample("ref"), dist = sample("dist");
  const struct {
    const char* args;
    const char* oracle;
  } cases[] = {
      {"--nflx_ctc v1.0", "sample_nflx_ctc.json"},
      {"--aom_ctc v1.0", "sample_aom_ctc.json"},
      {"--aom_ctc v7.0", "sample_aom_ctc_v7.json"},
  };
  for (const auto& c : cases) {
    const std::string out = tmp(std::string(c.oracle));
    Streams r = run_streams("", raw_args(ref, dist) + " -q " + c.args + " --json -o " + out);
    ASSERT_EQ(r.status, 0) << c.args << ": " << r.err;
    EXPECT_EQ(without_version_and_fps(slurp(out)), without_version_and_fps(slurp(project_data_dir() + "/output/" +
                                                                              c.oracle)))
        << c.args;
  }
}

}  // namespace
}  // namespace vmafx::test
