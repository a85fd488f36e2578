// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx-score never gives a silent wrong result: every case here once exited 0 with a wrong or missing score (or
// lost a results file), and now either scores right or exits 1 with one line naming the cause.
//   a model column named like a feature's score, two results formats, a results file on a full disk, a libsvm model
//   with non-finite parameters, a feature the pictures are too small for, chroma PSNR of pictures without chroma
//   samples (libvmaf's floor-sized planes), VMAFX_PREFETCH out of range.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support.h"

namespace vmafx::test {
namespace {

struct CliResult {
  int status = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string scratch_dir(const std::string& name) {
  const std::string d = ::testing::TempDir() + "/vmafx_silent_" + name + "_" + std::to_string(::getpid());
  EXPECT_EQ(std::system(("rm -rf '" + d + "' && mkdir -p '" + d + "'").c_str()), 0);
  return d;
}

// `prefix` is shell text before the program (environment, ulimit); stdout and stderr are kept apart.
CliResult run(const std::string& prefix, const std::string& args) {
  static int n = 0;
  const std::string base = ::testing::TempDir() + "/vmafx_silent_run" + std::to_string(::getpid()) + "_" +
                           std::to_string(n++);
  const std::string cmd = prefix + std::string(VMAFX_SCORE_PATH) + " " + args + " >" + base + ".out 2>" + base + ".err";
  const int st = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

void expect_refused(const CliResult& r, const std::vector<std::string>& words, const std::string& what) {
  EXPECT_EQ(r.status, 1) << what << "\n" << r.err;
  for (const auto& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << what << ": expected '" << w << "' in\n" << r.err;
  EXPECT_EQ(r.out, "") << what;
}

// The sample pair of samples/, unpacked once.
const std::string& sample_args() {
  static const std::string args = [] {
    const std::string d = scratch_dir("sample");
    for (const char* w : {"ref", "dist"}) {
      const std::string cmd = "gunzip -c " + project_source_dir() + "/samples/sample_320x240_" + w + ".yuv.gz > " +
                              d + "/" + w + ".yuv";
      EXPECT_EQ(std::system(cmd.c_str()), 0);
    }
    return "-r " + d + "/ref.yuv -d " + d + "/dist.yuv -w 320 -h 240 -p 420 -b 8";
  }();
  return args;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> v;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") v.push_back(e->d_name);
    closedir(d);
  }
  return v;
}

// ---- a model column that is a feature's score ----------------------------------------------------------------------

// libvmaf writes psnr's value and drops the model's; vmafx wrote the model's score into psnr_y. Now refused.
TEST(CliSilent, ModelNamedLikeAFeatureScoreIsRefused) {
  const std::string out = scratch_dir("collide") + "/r.json";
  expect_refused(run("", sample_args() + " --model version=vmaf_v0.6.1:name=psnr_y --feature psnr --json -o " + out),
                 {"psnr_y", "feature psnr", "name="}, "name=psnr_y with psnr");
  EXPECT_FALSE(file_exists(out));
  // A column of the model's own features too (the model computes integer_adm2).
  expect_refused(run("", sample_args() + " --model version=vmaf_v0.6.1:name=integer_adm2 --json -o " + out),
                 {"integer_adm2", "feature adm"}, "name=integer_adm2");
  // Another name is fine, and both columns are there with their own values.
  const CliResult ok = run("", sample_args() + " --model version=vmaf_v0.6.1:name=score --feature psnr --json -o " + out);
  ASSERT_EQ(ok.status, 0) << ok.err;
  const auto j = nlohmann::json::parse(slurp(out));
  const auto& m = j.at("frames")[0].at("metrics");
  EXPECT_NE(m.at("score").get<double>(), m.at("psnr_y").get<double>());
}

// ---- one results format --------------------------------------------------------------------------------------------

// libvmaf keeps the last of --xml --json --csv --sub without a word.
TEST(CliSilent, TwoResultsFormatsAreRefused) {
  const std::string out = scratch_dir("formats") + "/r";
  expect_refused(run("", sample_args() + " --json --csv -o " + out), {"--json and --csv both given"}, "--json --csv");
  expect_refused(run("", sample_args() + " --sub --xml -o " + out), {"--sub and --xml both given"}, "--sub --xml");
  EXPECT_FALSE(file_exists(out));
  const CliResult twice = run("", sample_args() + " --frame_cnt 2 --json --json -o " + out);
  EXPECT_EQ(twice.status, 0) << "the same format twice is one format\n" << twice.err;
}

// ---- results files on a full disk ----------------------------------------------------------------------------------

const char kOld[] = "the previous results\n";

// Runs vmafx-score writing into dir/r.json where an older r.json exists and the new one cannot be written whole;
// the run fails naming the file and the cause, the old file survives unchanged and nothing else is left in dir.
void expect_old_file_survives(const std::string& dir, const std::string& prefix, const std::string& cause) {
  const std::string out = dir + "/r.json";
  {
    std::ofstream f(out, std::ios::binary);
    f << kOld;
  }
  ::chmod(out.c_str(), 0640);
  const CliResult r = run(prefix, sample_args() + " --json -o " + out);
  expect_refused(r, {"results file", out, cause}, "full disk");
  EXPECT_EQ(slurp(out), kOld) << "the old results file changed";
  EXPECT_EQ(entries(dir), std::vector<std::string>{"r.json"}) << "a temporary file was left behind";
  struct stat st;
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

// A tmpfs of 8 KiB (the results need about 20 KiB): ENOSPC, as on a full disk. Needs the right to mount (root
// outside a container that forbids it); the file-size limit below covers the same path without it.
TEST(CliSilent, ResultsFileOnAFullFilesystemKeepsTheOldOne) {
  const std::string dir = scratch_dir("tmpfs");
  if (::geteuid() != 0 || ::mount("vmafx-test", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=8k,mode=0755") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (" << (::geteuid() ? "not root" : std::strerror(errno))
                 << "); CliSilent.ResultsFileOverTheFileSizeLimitKeepsTheOldOne checks the same without it";
  struct Unmount {
    std::string d;
    ~Unmount() { ::umount2(d.c_str(), MNT_DETACH); }
  } unmount{dir};
  expect_old_file_survives(dir, "", "No space left on device");
  // With room, the same run replaces the file whole.
  ASSERT_EQ(::umount2(dir.c_str(), 0), 0);
  ASSERT_EQ(::mount("vmafx-test", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755"), 0);
  const CliResult ok = run("", sample_args() + " --json -o " + dir + "/r.json");
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_FALSE(nlohmann::json::parse(slurp(dir + "/r.json")).is_null());
  EXPECT_EQ(entries(dir), std::vector<std::string>{"r.json"});
}

// The process's file-size limit (ulimit -f, SIGXFSZ ignored): every write past 2 KiB fails with EFBIG, the same
// failure path as a full disk, without privileges.
TEST(CliSilent, ResultsFileOverTheFileSizeLimitKeepsTheOldOne) {
  expect_old_file_survives(scratch_dir("fsize"), "trap '' XFSZ; ulimit -f 4; ", "File too large");
}

// ---- models with nonsense parameters -------------------------------------------------------------------------------

// vmaf_v0.6.1.json with one libsvm header value (or a support vector's first number) replaced.
std::string model_with(const std::string& dir, const std::string& name, const std::string& from,
                       const std::string& to) {
  auto j = nlohmann::ordered_json::parse(slurp(project_models_dir() + "/vmaf_v0.6.1.json"));
  std::string svm = j["model_dict"]["model"].get<std::string>();
  const size_t at = svm.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) svm.replace(at, from.size(), to);
  j["model_dict"]["model"] = svm;
  const std::string path = dir + "/" + name + ".json";
  std::ofstream(path) << j.dump();
  return path;
}

// libvmaf loads such models and scores -nan with exit 0; here the load fails naming the parameter.
TEST(CliSilent, ModelsWithNonFiniteParametersAreRefused) {
  const std::string dir = scratch_dir("models");
  auto j = nlohmann::ordered_json::parse(slurp(project_models_dir() + "/vmaf_v0.6.1.json"));
  const std::string svm = j["model_dict"]["model"].get<std::string>();
  const size_t g = svm.find("gamma "), r = svm.find("rho "), sv = svm.find("SV\n");
  ASSERT_NE(g, std::string::npos);
  ASSERT_NE(r, std::string::npos);
  ASSERT_NE(sv, std::string::npos);
  const std::string gamma = svm.substr(g, svm.find('\n', g) - g), rho = svm.substr(r, svm.find('\n', r) - r);
  const size_t coef_at = sv + 3, coef_end = svm.find(' ', coef_at);
  const std::string first_sv = svm.substr(coef_at, coef_end - coef_at);
  struct Case {
    std::string from, to, expect;
  };
  const Case cases[] = {
      {gamma, "gamma nan", "gamma 'nan'"},
      {gamma, "gamma inf", "gamma 'inf'"},
      {gamma, "gamma -0.04", "gamma '-0.04'"},
      {rho, "rho -nan", "rho '-nan'"},
      {"SV\n" + first_sv, "SV\ninf", "coefficient 'inf'"},
  };
  const std::string out = dir + "/r.json";
  for (const Case& c : cases) {
    const std::string path = model_with(dir, "m", c.from, c.to);
    expect_refused(run("", sample_args() + " --model path=" + path + " --json -o " + out), {path, c.expect}, c.to);
    EXPECT_FALSE(file_exists(out)) << c.to;
  }
  // The unchanged model scores.
  const std::string same = model_with(dir, "same", gamma, gamma);
  const CliResult ok = run("", sample_args() + " --frame_cnt 2 --model path=" + same + " --json -o " + out);
  EXPECT_EQ(ok.status, 0) << ok.err;
}

// ---- a feature the pictures are too small for ----------------------------------------------------------------------

// libvmaf stops ("scale below 1x1"); vmafx-score wrote an empty results file and exited 0.
TEST(CliSilent, MsSsimOnPicturesTooSmallFails) {
  const std::string dir = scratch_dir("small");
  for (const char* w : {"ref", "dist"}) {
    std::ofstream f(dir + "/" + w + ".yuv", std::ios::binary);
    for (int i = 0; i < 64 * 64 * 3 / 2 * 2; i++) f.put(char((i * (w[0] == 'r' ? 7 : 11)) & 0xff));
  }
  const std::string io = "-r " + dir + "/ref.yuv -d " + dir + "/dist.yuv -w 64 -h 64 ";
  const std::string out = dir + "/r.json";
  expect_refused(run("", io + "-n --feature float_ms_ssim --json -o " + out), {"float_ms_ssim", "176x176"}, "-n");
  EXPECT_FALSE(file_exists(out));
  expect_refused(run("", io + "-n --feature psnr --feature float_ms_ssim --json -o " + out), {"float_ms_ssim"},
                 "with psnr");
  const CliResult ok = run("", io + "-n --feature psnr --json -o " + out);
  EXPECT_EQ(ok.status, 0) << ok.err;
}

// ---- chroma PSNR where libvmaf's chroma planes are empty -----------------------------------------------------------

// 1x1 frames: Y 0x50, Cb 0x80, Cr 0x80 against Y 0x60, Cb 0x10, Cr 0xf0. At 4:2:0 and 4:2:2 libvmaf's chroma planes
// (floor(w / 2) wide) hold no sample and it writes 60 dB, the cap of identical planes, however the chroma differs:
// refused, naming the way out; at 4:4:4 the chroma planes are 1x1 and score.
TEST(CliSilent, ChromaPsnrOfPicturesWithoutChromaSamplesIsRefused) {
  const std::string dir = scratch_dir("tiny");
  for (const auto& [name, bytes] : {std::pair<const char*, const char*>{"ref", "\x50\x80\x80"}, {"dist", "\x60\x10\xf0"}})
    std::ofstream(dir + "/" + name + ".yuv", std::ios::binary).write(bytes, 3);
  const std::string io = "-r " + dir + "/ref.yuv -d " + dir + "/dist.yuv -w 1 -h 1 -b 8 -n ";
  const std::string out = dir + "/r.json";
  for (const char* p : {"420", "422"})
    expect_refused(run("", io + "-p " + p + " --feature psnr --json -o " + out), {"1x1", "enable_chroma=false"}, p);
  EXPECT_FALSE(file_exists(out));
  auto db = [](double diff) { return 10 * std::log10(255.0 * 255.0 / (diff * diff)); };
  // Luma alone.
  CliResult r = run("", io + "-p 420 --feature psnr=enable_chroma=false --json -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(out));
  EXPECT_NEAR(j.at("frames")[0].at("metrics").at("psnr_y").get<double>(), db(16), 5e-7);
  EXPECT_FALSE(j.at("frames")[0].at("metrics").contains("psnr_cb"));
  // 4:4:4: the chroma differences 112 and 112.
  r = run("", io + "-p 444 --feature psnr --json -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  j = nlohmann::json::parse(slurp(out));
  EXPECT_NEAR(j.at("frames")[0].at("metrics").at("psnr_cb").get<double>(), db(112), 5e-7);
  EXPECT_NEAR(j.at("frames")[0].at("metrics").at("psnr_cr").get<double>(), db(112), 5e-7);
}

// ---- VMAFX_PREFETCH ------------------------------------------------------------------------------------------------

TEST(CliSilent, PrefetchVariableIsValidated) {
  const std::string out = scratch_dir("prefetch") + "/r.json";
  for (const char* v : {"abc", "17", "-1", "2x", "010"})
    expect_refused(run(std::string("VMAFX_PREFETCH=") + v + " ", sample_args() + " --frame_cnt 2 --json -o " + out),
                   {"VMAFX_PREFETCH"}, v);
  for (const char* v : {"0", "16", ""}) {
    const CliResult r = run(std::string("VMAFX_PREFETCH=") + v + " ", sample_args() + " --frame_cnt 2 --json -o " + out);
    EXPECT_EQ(r.status, 0) << "VMAFX_PREFETCH='" << v << "'\n" << r.err;
  }
}

}  // namespace
}  // namespace vmafx::test
