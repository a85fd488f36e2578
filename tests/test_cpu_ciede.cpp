// SPDX-License-Identifier: LGPL-2.1-or-later
// ciede (CIEDE2000) against libvmaf 3.2 bit for bit: the CPU reference (cpu/ciede.h) on the sample pair, on
// synthetic clips of every depth and subsampling libvmaf takes (odd sizes, 4:2:2's over-long rows) and on the public
// pairs of ../shared when present; the scorer and vmafx-score --feature ciede against libvmaf's JSON; the geometries
// libvmaf cannot score refused by name. Oracles: tests/data/ciede (README there says how they were made).
//
// VMAFX_DUMP_CIEDE_CLIPS=<dir> writes the synthetic clips there as <name>_ref.yuv / <name>_dist.yuv in the layout
// libvmaf's raw reader takes (chroma planes floor(W/2) x floor(H/2) or full, 16-bit little-endian words above 8
// bits), prints one line per clip (name, width, height, subsampling, bits) and skips the comparisons.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/ciede.h"
#include "support.h"
#include "vmafx/scorer.h"

namespace vmafx {
namespace {

std::string ciede_data(const std::string& file) { return test::project_data_dir() + "/ciede/" + file; }

// The per-frame ciede2000 values of a libvmaf JSON, in frame order.
Status load_ciede_oracle(const std::string& path, size_t frames, std::vector<double>* out) {
  test::Oracle o;
  VMAFX_TRY(test::load_oracle(path, &o));
  if (o.frames.size() != frames)
    return {Errc::invalid_argument, path + ": " + std::to_string(o.frames.size()) + " frames, expected " +
                                        std::to_string(frames)};
  out->clear();
  for (size_t k = 0; k < o.frames.size(); k++) {
    if (o.frame_num[k] != k) return {Errc::invalid_argument, path + ": frames out of order"};
    auto it = o.frames[k].find("ciede2000");
    if (it == o.frames[k].end()) return {Errc::invalid_argument, path + ": no ciede2000 in frame " + std::to_string(k)};
    out->push_back(it->second);
  }
  return Status::ok();
}

std::string g17(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// Every frame of a clip pair through cpu::Ciede, compared with the oracle's %.17g values (equal doubles print the
// same; the printed text is compared so a failure shows both). Returns the largest |difference| seen.
double expect_clip_equals(const test::PairClips& c, const std::vector<double>& want) {
  const PictureView f0 = c.ref.frame(0);
  cpu::Ciede ciede;
  Status s = ciede.init(f0.width, f0.height, f0.chroma, f0.bit_depth);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  if (!s) return INFINITY;
  double worst = 0;
  EXPECT_EQ(c.ref.frames(), want.size());
  for (size_t i = 0; i < c.ref.frames() && i < want.size(); i++) {
    double got = 0;
    s = ciede.compute(c.ref.frame(i), c.dist.frame(i), &got);
    EXPECT_TRUE(s.is_ok()) << s.to_string();
    EXPECT_EQ(g17(got), g17(want[i])) << "frame " << i;
    worst = std::max(worst, std::fabs(got - want[i]));
  }
  return worst;
}

// ---- CIEDE2000 itself ----------------------------------------------------------------------------------------------

TEST(CpuCiede, EqualColoursDifferByExactlyZero) {
  // Every 8-bit triple on a coarse grid, and the extremes of the deep ranges.
  for (unsigned bpc : {8u, 10u, 12u, 16u}) {
    const uint32_t maxv = (1u << bpc) - 1, step = std::max(1u, maxv / 17);
    for (uint32_t y = 0; y <= maxv; y += step)
      for (uint32_t u = 0; u <= maxv; u += step)
        for (uint32_t v = 0; v <= maxv; v += step) {
          const cpu::CiedeLab c = cpu::ciede_lab(y, u, v, bpc);
          ASSERT_TRUE(std::isfinite(c.l) && std::isfinite(c.a) && std::isfinite(c.b)) << y << " " << u << " " << v;
          const float d = cpu::ciede2000(c, c);
          ASSERT_EQ(d, 0.0f) << y << " " << u << " " << v << " " << bpc;
          ASSERT_FALSE(std::signbit(d));
        }
  }
}

TEST(CpuCiede, ScoreOfIdenticalPicturesIsInfinite) {
  // libvmaf's 45 - 20 log10(0 / n).
  EXPECT_EQ(cpu::ciede_score(0.0, 320, 240), INFINITY);
  EXPECT_DOUBLE_EQ(cpu::ciede_score(320.0 * 240.0, 320, 240), 45.0);
}

// ---- libvmaf's chroma upsampling ----------------------------------------------------------------------------------

TEST(CpuCiede, ChromaSourcesFollowLibvmafsPictureLayout) {
  // 4:2:0: column x / 2 of the row; an odd width's last column reads the padding after the 48 samples of a 64-long
  // row (zero).
  auto s420 = cpu::ciede_chroma_sources(Chroma::k420, 97);
  EXPECT_EQ(cpu::ciede_padded_chroma_width(Chroma::k420, 97), 64u);
  EXPECT_EQ(s420[0].col, 0);
  EXPECT_EQ(s420[95].col, 47);
  EXPECT_EQ(s420[96].col, -1);
  for (const auto& s : s420) EXPECT_EQ(s.rows, 0u);
  // 4:2:2 is read as long as a luma row: 64 wide, chroma rows of exactly 32 samples: columns 32..63 are the next row.
  auto s422 = cpu::ciede_chroma_sources(Chroma::k422, 64);
  EXPECT_EQ(s422[31].rows, 0u);
  EXPECT_EQ(s422[31].col, 31);
  EXPECT_EQ(s422[40].rows, 1u);
  EXPECT_EQ(s422[40].col, 8);
  // 100 wide: 50 samples padded to 64; columns 50..63 are padding, 64..99 the next row's first 36.
  auto w100 = cpu::ciede_chroma_sources(Chroma::k422, 100);
  EXPECT_EQ(w100[49].col, 49);
  EXPECT_EQ(w100[50].col, -1);
  EXPECT_EQ(w100[63].col, -1);
  EXPECT_EQ(w100[64].rows, 1u);
  EXPECT_EQ(w100[64].col, 0);
  EXPECT_EQ(w100[99].col, 35);
  // 65 wide: 32 samples, no padding; the last column is two rows down.
  auto w65 = cpu::ciede_chroma_sources(Chroma::k422, 65);
  EXPECT_EQ(w65[64].rows, 2u);
  EXPECT_EQ(w65[64].col, 0);
}

TEST(CpuCiede, RefusesWhatLibvmafCannotScore) {
  struct Case {
    uint32_t w, h;
    Chroma c;
    unsigned bpc;
    const char* says;  // part of the message; null: accepted
  };
  const Case cases[] = {
      {64, 64, Chroma::k400, 8, "4:0:0"},
      {64, 64, Chroma::k420, 9, "9-bit"},
      {64, 64, Chroma::k444, 14, "14-bit"},
      {321, 241, Chroma::k420, 8, "past its Cr plane"},   // odd 4:2:0 height
      {65, 64, Chroma::k420, 8, "past its Cr plane"},     // odd width, chroma width 32: no padding to read
      {64, 1, Chroma::k422, 10, "past its Cr plane"},     // the row's second half is past the only chroma row
      {1, 8, Chroma::k422, 8, "empty chroma"},
      {8, 1, Chroma::k420, 8, "empty chroma"},
      {97, 64, Chroma::k420, 8, nullptr},
      {321, 240, Chroma::k420, 8, "past its Cr plane"},   // chroma width 160 = 5 x 32: the last row overruns
      {323, 240, Chroma::k420, 8, nullptr},               // 161 samples padded to 192: reads zeros
      {64, 2, Chroma::k422, 8, nullptr},
      {65, 9, Chroma::k422, 12, nullptr},
      {1, 1, Chroma::k444, 16, nullptr},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(std::to_string(k.w) + "x" + std::to_string(k.h) + " " + chroma_name(k.c) + " " +
                 std::to_string(k.bpc) + "-bit");
    const Status s = cpu::ciede_check(k.w, k.h, k.c, k.bpc);
    if (!k.says) {
      EXPECT_TRUE(s.is_ok()) << s.to_string();
      continue;
    }
    EXPECT_EQ(s.code(), Errc::unsupported);
    EXPECT_NE(s.message().find(k.says), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("ciede"), std::string::npos) << s.message();
    // The scorer refuses it at creation, naming the feature's limit.
    ScorerConfig cfg = test::scorer_config("", {"ciede"});
    cfg.on_frame = [](const FrameScore&) {};
    StreamGeometry g;
    g.ref = {k.w, k.h, uint8_t(k.bpc), k.c};
    g.dist = g.ref;
    std::unique_ptr<Scorer> scorer;
    const Status sc = Scorer::create(cfg, g, &scorer);
    EXPECT_FALSE(sc.is_ok());
    EXPECT_NE(sc.message().find("ciede"), std::string::npos) << sc.message();
  }
}

// ---- the sample pair ----------------------------------------------------------------------------------------------

TEST(CpuCiede, SamplePairEqualsLibvmafBitForBit) {
  test::PairClips c;
  ASSERT_OK(test::open_sample_pair(&c));
  std::vector<double> want;
  ASSERT_OK(load_ciede_oracle(ciede_data("sample_320x240_dist.ciede.json"), c.ref.frames(), &want));
  const double worst = expect_clip_equals(c, want);
  std::printf("sample pair, %zu frames: max |ours - libvmaf| %.3g\n", want.size(), worst);
}

// ---- synthetic clips ----------------------------------------------------------------------------------------------

struct SynthClip {
  const char* name;
  uint32_t w, h;
  Chroma chroma;
  unsigned bpc;
  unsigned frames;
};

// Depths 8 to 16; odd sizes; 4:2:2 widths whose rows libvmaf reads into the padding (100, 49), into the next chroma
// row (64, 100) and two rows down (65); a 4:2:0 odd width reading the padding (97).
const SynthClip kClips[] = {
    {"s420_160x90_10b", 160, 90, Chroma::k420, 10, 3},
    {"s420_97x64_8b", 97, 64, Chroma::k420, 8, 3},
    {"s420_128x72_12b", 128, 72, Chroma::k420, 12, 2},
    {"s420_66x34_16b", 66, 34, Chroma::k420, 16, 2},
    {"s422_64x40_8b", 64, 40, Chroma::k422, 8, 3},
    {"s422_100x50_10b", 100, 50, Chroma::k422, 10, 2},
    {"s422_49x30_16b", 49, 30, Chroma::k422, 16, 2},
    {"s422_65x9_12b", 65, 9, Chroma::k422, 12, 2},
    {"s444_75x43_8b", 75, 43, Chroma::k444, 8, 3},
    {"s444_33x17_16b", 33, 17, Chroma::k444, 16, 2},
    {"s444_48x32_10b", 48, 32, Chroma::k444, 10, 2},
};

uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x21f0aaadu;
  x ^= x >> 15;
  x *= 0x735a2d97u;
  x ^= x >> 15;
  return x;
}

// Sample (x, y) of plane p (0 Y, 1 Cb, 2 Cr) of frame f. 8x8 tiles of four kinds: smooth ramps over the whole range
// (out-of-gamut colours included), independent noise over the whole range (every hue, both far apart and wrapping
// round), near-grey colours (chroma near and at the middle) and tiles where the distorted picture equals the
// reference. Distortion: the reference plus small noise, or independent values in the noise tiles.
uint32_t synth_sample(const SynthClip& c, unsigned p, bool dist, uint32_t x, uint32_t y, unsigned f) {
  const int64_t maxv = (int64_t(1) << c.bpc) - 1, mid = int64_t(1) << (c.bpc - 1);
  // Tiles by luma position, so a chroma sample shares its tile with the luma samples it belongs to.
  const uint32_t lx = p && c.chroma != Chroma::k444 ? x * 2 : x, ly = p && c.chroma == Chroma::k420 ? y * 2 : y;
  const uint32_t kind = (lx / 8 + (ly / 8) * 3 + f) % 4;
  const uint32_t seed = x * 73856093u ^ y * 19349663u ^ f * 83492791u ^ p * 2654435761u;
  int64_t v = 0;
  switch (kind) {
    case 0:  // ramps
      v = (int64_t(x) * 37 + int64_t(y) * 11 * (p + 1) + f * 29 + p * 101) % 256 * maxv / 255;
      break;
    case 1:  // noise, independent in the distorted picture
      v = int64_t(hash32(seed ^ (dist ? 0x9e3779b9u : 0u)) % uint32_t(maxv + 1));
      return uint32_t(v);
    case 2:  // near grey
      v = p == 0 ? int64_t(hash32(seed) % uint32_t(maxv + 1)) : mid + int64_t(hash32(seed) % 7) - 3;
      break;
    default:  // mid-range texture, identical in the distorted picture
      return uint32_t(maxv / 4 + int64_t(hash32(seed) % uint32_t(maxv / 2 + 1)));
  }
  if (dist) v += int64_t(hash32(seed + 12345u) % 9) - 4 + (p == 1 ? maxv / 64 : 0);
  return uint32_t(std::clamp<int64_t>(v, 0, maxv));
}

uint32_t chroma_w(const SynthClip& c) { return chroma_width(c.chroma, c.w); }
uint32_t chroma_h(const SynthClip& c) { return chroma_height(c.chroma, c.h); }

void put(std::vector<uint8_t>* out, uint32_t v, bool wide) {
  out->push_back(uint8_t(v & 0xff));
  if (wide) out->push_back(uint8_t(v >> 8));
}

// libvmaf's raw layout: planes of libvmaf's own sizes (floor for subsampled chroma), one after another.
std::vector<uint8_t> libvmaf_file(const SynthClip& c, bool dist) {
  std::vector<uint8_t> out;
  for (unsigned f = 0; f < c.frames; f++)
    for (unsigned p = 0; p < 3; p++) {
      const uint32_t pw = p ? chroma_w(c) : c.w, ph = p ? chroma_h(c) : c.h;
      for (uint32_t y = 0; y < ph; y++)
        for (uint32_t x = 0; x < pw; x++) put(&out, synth_sample(c, p, dist, x, y, f), c.bpc > 8);
    }
  return out;
}

// The same frames in the engine's .yuv layout (stored chroma rounded up, chroma_width_stored): the extra column and
// row of odd sizes hold values libvmaf never sees (ciede must not read them).
std::vector<uint8_t> engine_file(const SynthClip& c, bool dist) {
  std::vector<uint8_t> out;
  for (unsigned f = 0; f < c.frames; f++)
    for (unsigned p = 0; p < 3; p++) {
      const uint32_t pw = p ? chroma_width_stored(c.chroma, c.w) : c.w;
      const uint32_t ph = p ? chroma_height_stored(c.chroma, c.h) : c.h;
      const uint32_t fw = p ? chroma_w(c) : c.w, fh = p ? chroma_h(c) : c.h;
      for (uint32_t y = 0; y < ph; y++)
        for (uint32_t x = 0; x < pw; x++) {
          const uint32_t junk = (1u << c.bpc) - 1 - (x + y) % 5;
          put(&out, x < fw && y < fh ? synth_sample(c, p, dist, x, y, f) : junk, c.bpc > 8);
        }
    }
  return out;
}

Status open_synth(const SynthClip& c, test::PairClips* out) {
  const std::string base = ::testing::TempDir() + "/vmafx_ciede_" + std::to_string(::getpid()) + "_" + c.name;
  VMAFX_TRY(test::write_file(base + "_ref.yuv", engine_file(c, false)));
  VMAFX_TRY(test::write_file(base + "_dist.yuv", engine_file(c, true)));
  FormatInfo fmt;
  VMAFX_TRY(parse_pixel_format(test::chroma_arg(c.chroma), c.bpc, &fmt));
  Status s = out->ref.open(base + "_ref.yuv", c.w, c.h, fmt);
  if (s) s = out->dist.open(base + "_dist.yuv", c.w, c.h, fmt);
  std::remove((base + "_ref.yuv").c_str());
  std::remove((base + "_dist.yuv").c_str());
  return s;
}

TEST(CpuCiede, SyntheticClipsEqualLibvmafBitForBit) {
  const char* dump = std::getenv("VMAFX_DUMP_CIEDE_CLIPS");
  if (dump && *dump) {
    for (const SynthClip& c : kClips) {
      ASSERT_OK(test::write_file(std::string(dump) + "/" + c.name + "_ref.yuv", libvmaf_file(c, false)));
      ASSERT_OK(test::write_file(std::string(dump) + "/" + c.name + "_dist.yuv", libvmaf_file(c, true)));
      std::printf("%s %u %u %s %u\n", c.name, c.w, c.h, test::chroma_arg(c.chroma), c.bpc);
    }
    GTEST_SKIP() << "clips written to " << dump;
  }
  double worst = 0;
  size_t frames = 0;
  for (const SynthClip& c : kClips) {
    SCOPED_TRACE(c.name);
    ASSERT_OK(cpu::ciede_check(c.w, c.h, c.chroma, c.bpc));
    test::PairClips clips;
    ASSERT_OK(open_synth(c, &clips));
    std::vector<double> want;
    ASSERT_OK(load_ciede_oracle(ciede_data(std::string(c.name) + ".ciede.json"), c.frames, &want));
    worst = std::max(worst, expect_clip_equals(clips, want));
    frames += want.size();
  }
  std::printf("%zu synthetic clips, %zu frames: max |ours - libvmaf| %.3g\n", sizeof(kClips) / sizeof(kClips[0]),
              frames, worst);
}

// ---- through the scorer ---------------------------------------------------------------------------------------

// Scores every frame of a clip pair with `features` on the CPU backend with two worker threads; the ciede2000
// column of each frame.
Status score_ciede(const test::PairClips& c, std::vector<double>* out, std::string* description = nullptr) {
  const PictureView f0 = c.ref.frame(0);
  ScorerConfig cfg = test::scorer_config("", {"ciede"});
  cfg.threads = 2;
  test::FrameLog log;
  std::unique_ptr<Scorer> scorer;
  VMAFX_TRY(test::make_scorer(cfg, {f0.width, f0.height, f0.bit_depth, f0.chroma}, &log, &scorer));
  for (size_t i = 0; i < c.ref.frames(); i++)
    VMAFX_TRY(scorer->submit(test::frame_pair(c.ref.frame(i), c.dist.frame(i), int64_t(i), i)));
  VMAFX_TRY(scorer->flush());
  const std::vector<std::string> names = scorer->score_names();
  if (description) *description = scorer->backend_description();
  out->clear();
  for (const FrameScore& fs : log.frames()) out->push_back(fs.get("ciede2000", names));
  return Status::ok();
}

TEST(CpuCiede, ScorerGivesTheReferencesValues) {
  test::PairClips c;
  ASSERT_OK(test::open_sample_pair(&c));
  std::vector<double> want, got;
  ASSERT_OK(load_ciede_oracle(ciede_data("sample_320x240_dist.ciede.json"), c.ref.frames(), &want));
  ASSERT_OK(score_ciede(c, &got));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); i++) EXPECT_EQ(g17(got[i]), g17(want[i])) << "frame " << i;
  // A 4:2:2 clip too (the scorer hands the feature its chroma planes as they are).
  test::PairClips k;
  ASSERT_OK(open_synth(kClips[5], &k));
  ASSERT_OK(load_ciede_oracle(ciede_data(std::string(kClips[5].name) + ".ciede.json"), kClips[5].frames, &want));
  ASSERT_OK(score_ciede(k, &got));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); i++) EXPECT_EQ(g17(got[i]), g17(want[i])) << kClips[5].name << " frame " << i;
}

// The generated pairs (4:2:0 of 8 and 10 bits, 4:2:2 of an odd size, 4:4:4), through cpu::Ciede and the scorer,
// against libvmaf's JSON at its printed precision (6 decimals; its %.17g oracles are the sample pair's, the synthetic
// clips' and the public pairs'); g5, 4:2:0 of an odd height, is refused as pair c is.
TEST(CpuCiede, GeneratedPairsMatchLibvmafJson) {
  size_t checked = 0, refused = 0;
  double worst = 0;
  for (const test::Pair& p : test::generated_pairs()) {
    SCOPED_TRACE(p.name());
    const Status check = cpu::ciede_check(p.width, p.height, p.chroma, p.bpc);
    if (!test::has_oracle(p, "ciede")) {
      EXPECT_EQ(check.code(), Errc::unsupported) << "a generated pair without a ciede oracle must be one ciede refuses";
      EXPECT_TRUE(p.chroma == Chroma::k420 && p.height % 2 == 1);
      refused++;
      continue;
    }
    ASSERT_OK(check);
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(p, &c));
    std::vector<double> want, direct, scored;
    ASSERT_OK(load_ciede_oracle(p.oracle_path("ciede"), c.ref.frames(), &want));
    const PictureView f0 = c.ref.frame(0);
    cpu::Ciede ciede;
    ASSERT_OK(ciede.init(f0.width, f0.height, f0.chroma, f0.bit_depth));
    for (size_t i = 0; i < c.ref.frames(); i++) {
      double v = 0;
      ASSERT_OK(ciede.compute(c.ref.frame(i), c.dist.frame(i), &v));
      direct.push_back(v);
    }
    ASSERT_OK(score_ciede(c, &scored));
    ASSERT_EQ(scored.size(), want.size());
    for (size_t i = 0; i < want.size(); i++) {
      EXPECT_NEAR(direct[i], want[i], 5e-7 + 1e-12) << "frame " << i;
      EXPECT_EQ(scored[i], direct[i]) << "the scorer's value is the reference's, frame " << i;
      worst = std::max(worst, std::fabs(direct[i] - want[i]));
    }
    checked++;
  }
  EXPECT_EQ(checked, test::generated_pairs().size() - 1);
  EXPECT_EQ(refused, 1u);
  std::printf("generated pairs: %zu checked, %zu refused; max |ours - libvmaf json| %.3g\n", checked, refused, worst);
}

// The public pairs (../shared, when present): every frame bit for bit. Pair c (321x241) is refused: at an odd 4:2:0
// height libvmaf's upsampling reads past its Cr plane.
TEST(CpuCiede, PublicPairsEqualLibvmafBitForBit) {
  std::vector<std::string> absent, checked;
  const std::vector<test::Pair> pairs = test::present_pairs(&absent);
  if (pairs.empty())
    GTEST_SKIP() << "../shared/testdata absent: the public pairs' bit-exact check does not run (the generated pairs: "
                    "GeneratedPairsMatchLibvmafJson)";
  double worst = 0;
  size_t frames = 0;
  for (const test::Pair& p : pairs) {
    SCOPED_TRACE(p.name());
    const Status check = cpu::ciede_check(p.width, p.height, Chroma::k420, p.bpc);
    if (p.height % 2) {
      EXPECT_EQ(check.code(), Errc::unsupported);
      EXPECT_NE(check.message().find("past its Cr plane"), std::string::npos) << check.message();
      std::printf("%s: refused (%s)\n", p.name().c_str(), check.message().c_str());
      checked.push_back(p.name() + "(refused)");
      continue;
    }
    ASSERT_OK(check);
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(p, &c));
    std::vector<double> want, got;
    ASSERT_OK(load_ciede_oracle(ciede_data(p.name() + ".ciede.json"), c.ref.frames(), &want));
    ASSERT_OK(score_ciede(c, &got));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); i++) {
      EXPECT_EQ(g17(got[i]), g17(want[i])) << "frame " << i;
      worst = std::max(worst, std::fabs(got[i] - want[i]));
    }
    frames += got.size();
    checked.push_back(p.name());
  }
  std::printf("public pairs, %zu frames: max |ours - libvmaf| %.3g\n", frames, worst);
  test::print_pair_coverage(checked, absent);
}

// ---- vmafx-score --feature ciede ----------------------------------------------------------------------------------

struct CliRun {
  int status = -1;
  std::string output;  // stdout and stderr
};

CliRun run_cli(const std::string& args) {
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

std::string unpacked_sample(const char* which) {
  const std::string path = ::testing::TempDir() + "/vmafx_ciede_sample_" + which + ".yuv";
  const std::string cmd = "gunzip -c " + test::project_source_dir() + "/samples/sample_320x240_" + which +
                          ".yuv.gz > " + path;
  return std::system(cmd.c_str()) == 0 ? path : std::string();
}

// The JSON of vmafx-score equals libvmaf's as printed (6 decimals), every frame and the pooled values.
TEST(CliCiede, JsonEqualsLibvmafsPrintedJson) {
  const std::string ref = unpacked_sample("ref"), dist = unpacked_sample("dist");
  ASSERT_FALSE(ref.empty() || dist.empty());
  const std::string out = ::testing::TempDir() + "/vmafx_ciede_cli.json";
  const CliRun r = run_cli("-r " + ref + " -d " + dist + " -w 320 -h 240 -p 420 -b 8 --no_prediction " +
                           "--feature ciede --threads 2 --json -o " + out + " -q");
  ASSERT_EQ(r.status, 0) << r.output;
  test::Oracle got, want;
  ASSERT_OK(test::load_oracle(out, &got));
  ASSERT_OK(test::load_oracle(ciede_data("sample_320x240_dist.ciede.printed.json"), &want));
  ASSERT_EQ(got.frames.size(), want.frames.size());
  for (size_t k = 0; k < got.frames.size(); k++) {
    EXPECT_EQ(got.frame_num[k], want.frame_num[k]);
    EXPECT_EQ(got.frames[k], want.frames[k]) << "frame " << k;
  }
  ASSERT_TRUE(got.pooled.count("ciede2000"));
  EXPECT_EQ(got.pooled.at("ciede2000"), want.pooled.at("ciede2000"));
  std::remove(out.c_str());
}

TEST(CliCiede, RefusedGeometryNamesTheLimit) {
  const std::string ref = unpacked_sample("ref"), dist = unpacked_sample("dist");
  ASSERT_FALSE(ref.empty() || dist.empty());
  // The sample's bytes read as 4:0:0 pictures (libvmaf's ciede needs chroma).
  const CliRun r = run_cli("-r " + ref + " -d " + dist + " -w 320 -h 240 -p 400 -b 8 --no_prediction " +
                           "--feature ciede -q");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("ciede needs chroma"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace vmafx
