// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx-score with several distorted inputs (a ladder: -d repeated, --distorted-list): every rendition's results file,
// pooled lines and per-frame lines equal those of a run with that rendition alone, bit for bit; the reference is read
// once (a pipe); a .y4m rendition of another size is scaled to the reference's and said so; -o's %s / %d, their
// errors before any scoring; a shorter rendition, one without frames, one of another bit depth; --gpu.
//
// Inputs: generated 8-bit 4:2:0 clips (tests/support/fixtures.h) of 128x96, 6 frames: the reference, three
// distortions and a 64x48 rendition (the blocky one halved by 2x2 means) as .y4m; small so that the suite stays
// quick on a loaded machine.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures.h"
#include "support.h"

namespace vmafx::test {
namespace {

constexpr uint32_t kW = 128, kH = 96;
constexpr unsigned kFrames = 6;
// The long clips: more frames than vmafx-score reads ahead of the scorers (64 at most), so that frame buffers are
// reused while the ladder runs.
constexpr unsigned kLongFrames = 80;

struct CliRun {
  int status = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

bool g_dir_made = false;

std::string dir() {
  static const std::string d = [] {
    const std::string p = ::testing::TempDir() + "/vmafx_ladder_" + std::to_string(::getpid());
    EXPECT_EQ(std::system(("rm -rf '" + p + "' && mkdir -p '" + p + "'").c_str()), 0);
    g_dir_made = true;
    return p;
  }();
  return d;
}

// The folder and everything in it go once every test ran.
class RemoveDir : public ::testing::Environment {
 public:
  void TearDown() override {
    if (g_dir_made) {
      EXPECT_EQ(std::system(("rm -rf '" + dir() + "'").c_str()), 0);
    }
  }
};
[[maybe_unused]] ::testing::Environment* const g_remove_dir = ::testing::AddGlobalTestEnvironment(new RemoveDir);

// `prefix` is shell text before the program (environment, a pipe into it); stdout and stderr apart.
CliRun run(const std::string& prefix, const std::string& args) {
  static int n = 0;
  const std::string base = dir() + "/run" + std::to_string(n++);
  const std::string cmd =
      prefix + std::string(VMAFX_SCORE_PATH) + " " + args + " >" + base + ".out 2>" + base + ".err";
  const int st = std::system(cmd.c_str());
  CliRun r;
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  return r;
}
CliRun run(const std::string& args) { return run("", args); }

FixtureSpec spec(Distortion d, unsigned frames = kFrames) { return {"ladder", d, kW, kH, 8, Chroma::k420, frames}; }

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
  ASSERT_TRUE(f.good()) << path;
}

// A 4:2:0 8-bit frame halved in both directions: each sample the rounded mean of its 2x2 block (even sizes).
std::string halve(const std::vector<uint8_t>& frame, uint32_t w, uint32_t h) {
  std::string out;
  size_t at = 0;
  for (int plane = 0; plane < 3; plane++) {
    const uint32_t pw = plane ? w / 2 : w, ph = plane ? h / 2 : h;
    for (uint32_t y = 0; y < ph / 2; y++)
      for (uint32_t x = 0; x < pw / 2; x++) {
        const uint8_t* p = frame.data() + at + size_t(2 * y) * pw + 2 * x;
        out += char((unsigned(p[0]) + p[1] + p[pw] + p[pw + 1] + 2) / 4);
      }
    at += size_t(pw) * ph;
  }
  return out;
}

struct Clips {
  std::string ref;       // raw 128x96
  std::string blur;      // raw
  std::string blocky;    // .y4m, 128x96
  std::string ringing;   // raw
  std::string small;     // .y4m, 64x48
  std::string short3;    // raw, the first 3 frames of ringing
  std::string empty;     // raw, no frames
  std::string deep;      // .y4m, 10-bit
  std::string long_ref, long_blur, long_small, long_ringing;  // kLongFrames frames
};

const Clips& clips() {
  static const Clips c = [] {
    Clips c;
    const std::string d = dir();
    c.ref = d + "/ref.yuv";
    c.blur = d + "/blur.yuv";
    c.blocky = d + "/blocky.y4m";
    c.ringing = d + "/ringing.yuv";
    c.small = d + "/small.y4m";
    c.short3 = d + "/short3.yuv";
    c.empty = d + "/empty.yuv";
    c.deep = d + "/deep.y4m";
    std::string ref, blur, blocky = "YUV4MPEG2 W128 H96 F25:1 Ip A0:0 C420jpeg\n", ringing, short3,
                           small = "YUV4MPEG2 W64 H48 F25:1 Ip A0:0 C420jpeg\n",
                           deep = "YUV4MPEG2 W128 H96 F25:1 Ip A0:0 C420p10\n";
    for (unsigned k = 0; k < kFrames; k++) {
      auto text = [](const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); };
      ref += text(fixture_frame(spec(Distortion::blurnoise), k, false));
      blur += text(fixture_frame(spec(Distortion::blurnoise), k, true));
      const std::vector<uint8_t> b = fixture_frame(spec(Distortion::blocky), k, true);
      blocky += "FRAME\n" + text(b);
      small += "FRAME\n" + halve(b, kW, kH);
      const std::string r = text(fixture_frame(spec(Distortion::ringing), k, true));
      ringing += r;
      if (k < 3) short3 += r;
      FixtureSpec s10 = spec(Distortion::ringing);
      s10.bpc = 10;
      deep += "FRAME\n" + text(fixture_frame(s10, k, true));
    }
    write_bytes(c.ref, ref);
    write_bytes(c.blur, blur);
    write_bytes(c.blocky, blocky);
    write_bytes(c.ringing, ringing);
    write_bytes(c.small, small);
    write_bytes(c.short3, short3);
    write_bytes(c.empty, "");
    write_bytes(c.deep, deep);
    c.long_ref = d + "/long_ref.yuv";
    c.long_blur = d + "/long_blur.yuv";
    c.long_small = d + "/long_small.y4m";
    c.long_ringing = d + "/long_ringing.yuv";
    std::string lref, lblur, lsmall = "YUV4MPEG2 W64 H48 F25:1 Ip A0:0 C420jpeg\n", lringing;
    for (unsigned k = 0; k < kLongFrames; k++) {
      auto text = [](const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); };
      lref += text(fixture_frame(spec(Distortion::blurnoise, kLongFrames), k, false));
      lblur += text(fixture_frame(spec(Distortion::blurnoise, kLongFrames), k, true));
      lsmall += "FRAME\n" + halve(fixture_frame(spec(Distortion::blocky, kLongFrames), k, true), kW, kH);
      lringing += text(fixture_frame(spec(Distortion::ringing, kLongFrames), k, true));
    }
    write_bytes(c.long_ref, lref);
    write_bytes(c.long_blur, lblur);
    write_bytes(c.long_small, lsmall);
    write_bytes(c.long_ringing, lringing);
    return c;
  }();
  return c;
}

const std::string kGeometry = " -w 128 -h 96";
// psnr reads chroma (the chroma planes of the shared reference frames), float_ssim one more extractor.
const std::string kFeatures = " --feature psnr --feature float_ssim";

// A results file without its "fps" line (a timing): everything else must be equal, byte for byte.
std::string without_fps(const std::string& path) {
  std::istringstream in(slurp(path));
  std::string line, out;
  while (std::getline(in, line))
    if (line.find("\"fps\"") == std::string::npos) out += line + "\n";
  return out;
}

// The lines of `text` that start with `prefix`, the prefix taken off.
std::string lines_with(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (line.compare(0, prefix.size(), prefix) == 0) out += line.substr(prefix.size()) + "\n";
  return out;
}

// The pooled lines ("vmaf_v0.6.1: 71.234567") of a run's stderr.
std::string pooled(const std::string& err, const std::string& prefix = "") {
  return lines_with(err, prefix + "vmaf_v0.6.1: ");
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) n++;
  return n;
}

// One rendition alone: its results file, stdout (per-frame) and stderr.
struct Single {
  std::string json;
  CliRun run;
};

Single single(const std::string& dist, const std::string& extra = "", const std::string& ref = clips().ref) {
  static int n = 0;
  Single s;
  s.json = dir() + "/single" + std::to_string(n++) + ".json";
  s.run = run("-r " + ref + " -d " + dist + kGeometry + kFeatures + extra + " --per-frame --json -o " + s.json);
  return s;
}

std::string stem(const std::string& path) {
  const std::string name = path.substr(path.rfind('/') + 1);
  return name.substr(0, name.rfind('.'));
}

// The ladder against the runs of each rendition alone: results files (but fps), pooled lines and per-frame lines.
void expect_ladder_equals_singles(const CliRun& ladder, const std::vector<std::string>& dists,
                                  const std::vector<std::string>& files, const std::string& what,
                                  const std::vector<unsigned>& frames = {}, const std::string& extra = "",
                                  const std::string& ref = clips().ref) {
  ASSERT_EQ(ladder.status, 0) << what << "\n" << ladder.err;
  for (size_t i = 0; i < dists.size(); i++) {
    const Single s = single(dists[i], extra, ref);
    ASSERT_EQ(s.run.status, 0) << dists[i] << "\n" << s.run.err;
    const std::string a = without_fps(files[i]), b = without_fps(s.json);
    ASSERT_NE(a.find("\"frames\""), std::string::npos) << what << ": " << files[i] << " holds no frames";
    EXPECT_EQ(a, b) << what << ": " << files[i] << " and the single run's " << s.json << " differ";
    EXPECT_NE(pooled(s.run.err), "") << s.run.err;
    EXPECT_EQ(pooled(ladder.err, dists[i] + ": "), pooled(s.run.err)) << what << "\n" << ladder.err;
    EXPECT_EQ(lines_with(ladder.out, dists[i] + ": frame "), lines_with(s.run.out, "frame ")) << what << " "
                                                                                               << dists[i];
    EXPECT_EQ(occurrences(s.run.out, "frame "), frames.empty() ? kFrames : frames[i]) << s.run.out;
  }
}

TEST(CliLadder, EveryRenditionEqualsItsSingleRun) {
  const Clips& c = clips();
  const std::vector<std::string> dists = {c.blur, c.blocky, c.ringing, c.small};
  std::string args = "-r " + c.ref + kGeometry + kFeatures + " --per-frame --json -o " + dir() + "/l_%s.json";
  for (const auto& d : dists) args += " -d " + d;
  const CliRun ladder = run("VMAFX_TRACE=1 ", args);
  std::vector<std::string> files;
  for (const auto& d : dists) files.push_back(dir() + "/l_" + stem(d) + ".json");
  expect_ladder_equals_singles(ladder, dists, files, "ladder");
  // One shared reference: the reference's motion computed once per frame, never by a rendition's scorer.
  EXPECT_NE(ladder.err.find("shared reference: 6 frames, 0 copied to the device (0 bytes), reference features "
                            "(motion) on 6 frames"), std::string::npos) << ladder.err;
  for (const auto& d : dists)
    EXPECT_NE(ladder.err.find(d + ": 6 frames, reference features computed on 0 and shared on 6"), std::string::npos)
        << ladder.err;
  // Every per-frame line carries its rendition: none without.
  EXPECT_EQ(occurrences(ladder.out, "\n"), dists.size() * kFrames) << ladder.out;
  EXPECT_EQ(lines_with(ladder.out, "frame "), "") << ladder.out;
  // The smaller rendition is scaled, said once; the others are not.
  EXPECT_EQ(occurrences(ladder.err, "vmafx-score: " + c.small + ": 64x48 scaled to 128x96 (bicubic)\n"), 1u)
      << ladder.err;
  EXPECT_EQ(occurrences(ladder.err, "scaled to"), 1u) << ladder.err;
  // The results files name the reference's size, as the element's and libvmaf's do.
  const CliRun x = run("-r " + c.ref + kGeometry + " -d " + c.small + " -d " + c.blur + " --xml -q -o " + dir() +
                    "/x_%d.xml");
  ASSERT_EQ(x.status, 0) << x.err;
  EXPECT_NE(slurp(dir() + "/x_0.xml").find("qualityWidth=\"128\" qualityHeight=\"96\""), std::string::npos)
      << slurp(dir() + "/x_0.xml").substr(0, 400);
  EXPECT_EQ(x.err, "") << "-q with -o: nothing on stderr";
}

// Skips, a frame count and subsampling apply to every rendition as to a run of it alone (--frame_skip_dist: the
// same skip for each).
TEST(CliLadder, SkipsAndCountsApplyToEveryRendition) {
  const Clips& c = clips();
  const std::vector<std::string> dists = {c.blocky, c.small, c.ringing};
  const std::string extra = " --frame_skip_ref 1 --frame_skip_dist 2 --frame_cnt 3 --subsample 2";
  std::string args = "-r " + c.ref + kGeometry + kFeatures + extra + " --per-frame --json -o " + dir() + "/k_%d.json";
  for (const auto& d : dists) args += " -d " + d;
  const CliRun ladder = run(args);
  expect_ladder_equals_singles(ladder, dists, {dir() + "/k_0.json", dir() + "/k_1.json", dir() + "/k_2.json"}, "skips",
                               {2, 2, 2}, extra);
}

// A single -d of another size (.y4m) is scaled too (libvmaf refuses different sizes).
TEST(CliLadder, OneSmallerY4mIsScaled) {
  const Single s = single(clips().small);
  ASSERT_EQ(s.run.status, 0) << s.run.err;
  EXPECT_NE(s.run.err.find("vmafx-score: " + clips().small + ": 64x48 scaled to 128x96 (bicubic)"),
            std::string::npos)
      << s.run.err;
  EXPECT_EQ(occurrences(slurp(s.json), "\"frameNum\""), kFrames);
  // -q: no notice.
  const CliRun q = run("-r " + clips().ref + kGeometry + " -d " + clips().small + " -q");
  ASSERT_EQ(q.status, 0) << q.err;
  EXPECT_EQ(q.err.find("scaled"), std::string::npos) << q.err;
}

// The reference from a pipe: it can be read only once, so a ladder that scores every rendition whole (equal to the
// runs that read the reference from its file) read it once. The trace names its opening once too. Both reader paths,
// without and with worker threads; the long clips, so that a reference buffer given back before every scorer
// released it would be read into again under the scorers still reading it.
TEST(CliLadder, ReferenceFromAPipeIsReadOnce) {
  const Clips& c = clips();
  const std::vector<std::string> dists = {c.long_blur, c.long_small, c.long_ringing};
  std::vector<unsigned> frames(dists.size(), kLongFrames);
  for (const char* env : {"VMAFX_TRACE=1 ", "VMAFX_TRACE=1 VMAFX_READER=read "}) {
    for (const char* threads : {"", " --threads 2"}) {
      std::string args = "-r /dev/stdin" + kGeometry + kFeatures + threads + " --per-frame --json -o " + dir() +
                         "/p_%d.json";
      for (const auto& d : dists) args += " -d " + d;
      const CliRun ladder = run("cat " + c.long_ref + " | " + env, args);
      std::vector<std::string> files;
      for (size_t i = 0; i < dists.size(); i++) files.push_back(dir() + "/p_" + std::to_string(i) + ".json");
      expect_ladder_equals_singles(ladder, dists, files, std::string(env) + threads, frames, "", c.long_ref);
      EXPECT_EQ(occurrences(ladder.err, "input /dev/stdin opened: read: "), 1u) << ladder.err;
    }
  }
}

TEST(CliLadder, DistortedListAddsInputsInOrder) {
  const Clips& c = clips();
  const std::string list = dir() + "/list.txt";
  write_bytes(list, "# the ladder\n\n  " + c.blocky + "  \r\n\t# not this one: " + c.ringing + "\n" + c.small +
                        "\n\n");
  const CliRun ladder = run("-r " + c.ref + kGeometry + kFeatures + " -d " + c.blur + " --distorted-list " + list +
                         " --per-frame --json -o " + dir() + "/list_%d.json");
  expect_ladder_equals_singles(ladder, {c.blur, c.blocky, c.small},
                               {dir() + "/list_0.json", dir() + "/list_1.json", dir() + "/list_2.json"}, "list");
  EXPECT_FALSE(file_exists(dir() + "/list_3.json"));
  EXPECT_EQ(ladder.err.find(c.ringing), std::string::npos) << "a commented-out path was scored\n" << ladder.err;

  const std::string empty_list = dir() + "/empty_list.txt";
  write_bytes(empty_list, "# nothing\n\n");
  const CliRun e = run("-r " + c.ref + kGeometry + " --distorted-list " + empty_list);
  EXPECT_EQ(e.status, 1);
  EXPECT_NE(e.err.find("--distorted-list " + empty_list + " names no distorted input"), std::string::npos) << e.err;
  const CliRun m = run("-r " + c.ref + kGeometry + " --distorted-list " + dir() + "/no_such_list.txt");
  EXPECT_EQ(m.status, 1);
  EXPECT_NE(m.err.find("cannot open --distorted-list " + dir() + "/no_such_list.txt"), std::string::npos) << m.err;
}

// -o's errors come before any scoring: no pooled line, no per-frame line, no file.
TEST(CliLadder, OutputPatternErrorsBeforeScoring) {
  const Clips& c = clips();
  const std::string two = "-r " + c.ref + kGeometry + " --per-frame -d " + c.blur + " -d " + c.ringing;
  const CliRun plain = run(two + " --json -o " + dir() + "/one.json");
  EXPECT_EQ(plain.status, 1);
  EXPECT_NE(plain.err.find("--output " + dir() + "/one.json names one file for 2 distorted inputs: put %s"),
            std::string::npos)
      << plain.err;
  EXPECT_EQ(plain.out, "");
  EXPECT_FALSE(file_exists(dir() + "/one.json"));
  // Two folders holding the same name: %s alone cannot tell them apart.
  const std::string copies = "mkdir -p " + dir() + "/a " + dir() + "/b && cp " + c.blur + " " + dir() +
                             "/a/enc.yuv && cp " + c.ringing + " " + dir() + "/b/enc.yuv";
  ASSERT_EQ(std::system(copies.c_str()), 0);
  const CliRun same = run("-r " + c.ref + kGeometry + " --per-frame -d " + dir() + "/a/enc.yuv -d " + dir() +
                       "/b/enc.yuv --json -o " + dir() + "/s_%s.json");
  EXPECT_EQ(same.status, 1);
  EXPECT_NE(same.err.find("gives " + dir() + "/a/enc.yuv and " + dir() + "/b/enc.yuv the same results file " +
                          dir() + "/s_enc.json: use %d"),
            std::string::npos)
      << same.err;
  EXPECT_EQ(same.out, "");
  EXPECT_EQ(pooled(same.err), "");
  // %s and %d together tell them apart.
  const CliRun both = run("-r " + c.ref + kGeometry + " -q -d " + dir() + "/a/enc.yuv -d " + dir() +
                       "/b/enc.yuv --json -o " + dir() + "/s_%s_%d.json");
  EXPECT_EQ(both.status, 0) << both.err;
  EXPECT_TRUE(file_exists(dir() + "/s_enc_0.json"));
  EXPECT_TRUE(file_exists(dir() + "/s_enc_1.json"));
  // A results path that is one of the distorted inputs.
  const CliRun input = run("-r " + c.ref + kGeometry + " -d " + c.blur + " -d " + dir() + "/a/enc.yuv -o " + dir() +
                        "/a/%s.yuv");
  EXPECT_EQ(input.status, 1);
  EXPECT_NE(input.err.find("is one of the inputs"), std::string::npos) << input.err;
}

// A rendition that ends early: as a run of it alone (a line naming it, its frames scored, exit 0), the others whole.
// One without any frame: an error naming it, as a run of it alone fails.
TEST(CliLadder, ShorterRenditionAsItsSingleRun) {
  const Clips& c = clips();
  const CliRun ladder = run("-r " + c.ref + kGeometry + kFeatures + " -d " + c.blur + " -d " + c.short3 +
                         " --per-frame --json -o " + dir() + "/short_%d.json");
  expect_ladder_equals_singles(ladder, {c.blur, c.short3}, {dir() + "/short_0.json", dir() + "/short_1.json"},
                               "short", {kFrames, 3});
  const std::string line = "vmafx-score: " + c.short3 + " ended before " + c.ref + "; scored 3 frames\n";
  EXPECT_EQ(occurrences(ladder.err, line), 1u) << ladder.err;
  EXPECT_EQ(occurrences(single(c.short3).run.err, line), 1u);
  EXPECT_EQ(occurrences(slurp(dir() + "/short_1.json"), "\"frameNum\""), 3u);
  EXPECT_EQ(occurrences(slurp(dir() + "/short_0.json"), "\"frameNum\""), kFrames);

  const CliRun none = run("-r " + c.ref + kGeometry + " -d " + c.blur + " -d " + c.empty + " --json -o " + dir() +
                       "/none_%d.json");
  EXPECT_EQ(none.status, 1);
  EXPECT_NE(none.err.find("vmafx-score: " + c.empty + ": no frames to score"), std::string::npos) << none.err;
  EXPECT_FALSE(file_exists(dir() + "/none_0.json"));
  const CliRun alone = run("-r " + c.ref + kGeometry + " -d " + c.empty + " -q");
  EXPECT_EQ(alone.status, 1);
  EXPECT_NE(alone.err.find("vmafx-score: no frames to score"), std::string::npos) << alone.err;
}

TEST(CliLadder, OtherBitDepthIsRefusedNamingIt) {
  const Clips& c = clips();
  const CliRun r = run("-r " + c.ref + kGeometry + " -d " + c.blur + " -d " + c.deep + " --per-frame");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("vmafx-score: " + c.deep + ": reference is 8-bit but distorted is 10-bit"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
}

// --gpu auto|N is --device: the engine gets device_id -1 for auto (the trace says which).
TEST(CliLadder, GpuOption) {
  const Clips& c = clips();
  const std::string args = "-r " + c.ref + kGeometry + " -d " + c.blur + " --backend cpu -q --frame_cnt 2";
  const struct {
    const char* option;
    const char* want;
  } cases[] = {
      {"--gpu auto", "device_id -1 for the engine (auto)"},
      {"--gpu 3", "device_id 3 for the engine\n"},
      {"--device auto", "device_id -1 for the engine (auto)"},
      {"--device 2", "device_id 2 for the engine\n"},
      {"", "device_id -1 for the engine (auto)"},
  };
  for (const auto& k : cases) {
    const CliRun r = run("VMAFX_TRACE=1 ", args + " " + k.option);
    EXPECT_EQ(r.status, 0) << k.option << "\n" << r.err;
    EXPECT_NE(r.err.find(k.want), std::string::npos) << k.option << "\n" << r.err;
  }
  const CliRun bad = run(args + " --gpu first");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("--gpu must be a whole number from 0 to 255, not 'first'"), std::string::npos) << bad.err;
}

// --help names the ladder's options, and docs/cli.md every option --help names.
TEST(CliLadder, HelpNamesTheOptionsAndTheDocsNameThem) {
  const CliRun h = run("--help");
  EXPECT_EQ(h.status, 0);
  for (const char* w : {"--distorted-list FILE", "--device/--gpu auto|N", "%s (the distorted file's name",
                        "each distorted input's scorer"})
    EXPECT_NE(h.out.find(w), std::string::npos) << w << "\n" << h.out;
  const std::string docs = slurp(project_source_dir() + "/docs/cli.md");
  ASSERT_NE(docs.find("## Ladders"), std::string::npos);
  const std::regex option("--[a-z][a-z_-]*");
  size_t checked = 0;
  for (auto it = std::sregex_iterator(h.out.begin(), h.out.end(), option); it != std::sregex_iterator(); ++it) {
    EXPECT_NE(docs.find("`" + it->str()), std::string::npos) << "docs/cli.md does not name " << it->str();
    checked++;
  }
  EXPECT_GT(checked, 30u);
}

}  // namespace
}  // namespace vmafx::test
