// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU reference of libvmaf's psnr_hvs (psnr_hvs_y, _cb, _cr, psnr_hvs) against libvmaf's full-precision JSON
// (tests/data/psnr_hvs/, written with %.17g), every frame bit for bit: the shipped sample pair, synthetic clips of this
// file (8 to 12 bits; 4:2:0, 4:2:2, 4:4:4; sizes that are not multiples of 8 or 7; planes too small for a
// block, whose scores are NaN; identical planes, whose scores are infinite; full-scale patterns) and, when
// ../shared is present, the public pairs. Plus layouts (NV12, P010), the refusals libvmaf makes, and the table entry.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <unistd.h>

#include "assert_ok.h"
#include "cpu/plane.h"
#include "cpu/psnr_hvs.h"
#include "features/table.h"
#include "support.h"

namespace vmafx {
namespace {

constexpr const char* kNames[4] = {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"};

// libvmaf's JSON frames as name -> value; libvmaf writes NaN and infinities as null, read here as NaN.
struct HvsOracle {
  std::vector<std::map<std::string, double>> frames;
};

Status load_hvs_oracle(const std::string& path, HvsOracle* out) {
  std::ifstream f(path);
  if (!f) return {Errc::io_error, "cannot open " + path};
  nlohmann::json j;
  try {
    f >> j;
    HvsOracle o;
    unsigned n = 0;
    for (const auto& fr : j.at("frames")) {
      if (fr.at("frameNum").get<unsigned>() != n++) return {Errc::io_error, path + ": frames out of order"};
      std::map<std::string, double> m;
      for (auto it = fr.at("metrics").begin(); it != fr.at("metrics").end(); ++it)
        m[it.key()] = it.value().is_null() ? NAN : it.value().get<double>();
      o.frames.push_back(std::move(m));
    }
    *out = std::move(o);
  } catch (const std::exception& e) {
    return {Errc::io_error, path + ": " + e.what()};
  }
  return Status::ok();
}

// Compares every frame of a clip pair with its oracle: numbers bit for bit, null where ours is not finite.
struct Tally {
  unsigned frames = 0, values = 0, nulls = 0;
  double worst = 0;  // largest |ours - libvmaf| over finite values (0 when exact)
};

void expect_clip_matches(const test::PairClips& c, const HvsOracle& o, const std::string& what, Tally* t) {
  ASSERT_EQ(c.ref.frames(), o.frames.size()) << what;
  for (size_t f = 0; f < c.ref.frames(); f++) {
    cpu::PsnrHvsScores s;
    ASSERT_OK(cpu::psnr_hvs(c.ref.frame(f), c.dist.frame(f), &s));
    const double ours[4] = {s.y, s.cb, s.cr, s.psnr_hvs};
    for (int i = 0; i < 4; i++) {
      const auto it = o.frames[f].find(kNames[i]);
      ASSERT_NE(it, o.frames[f].end()) << what << " frame " << f << " lacks " << kNames[i];
      const double want = it->second;
      if (std::isnan(want)) {
        EXPECT_FALSE(std::isfinite(ours[i])) << what << " frame " << f << " " << kNames[i] << ": libvmaf null, ours "
                                             << ours[i];
        t->nulls++;
      } else {
        EXPECT_EQ(ours[i], want) << what << " frame " << f << " " << kNames[i];
        if (std::isfinite(ours[i])) t->worst = std::max(t->worst, std::fabs(ours[i] - want));
        else t->worst = INFINITY;
      }
      t->values++;
    }
    t->frames++;
  }
}

std::string hvs_data(const std::string& name) { return test::project_data_dir() + "/psnr_hvs/" + name + ".json"; }

TEST(CpuPsnrHvs, SamplePairMatchesLibvmafBitForBit) {
  test::PairClips c;
  ASSERT_OK(test::open_sample_pair(&c));
  HvsOracle o;
  ASSERT_OK(load_hvs_oracle(hvs_data("sample_320x240"), &o));
  Tally t;
  expect_clip_matches(c, o, "sample", &t);
  EXPECT_EQ(t.frames, 24u);
  EXPECT_GT(t.nulls, 0u);  // frames whose Cb planes are equal: +infinity, null in libvmaf's JSON
  std::printf("  sample 320x240: %u frames, %u values (%u null), max |ours - libvmaf| %.3g\n", t.frames, t.values,
              t.nulls, t.worst);
}

// ---------------------------------------------------------------------------------------------------------------
// Synthetic clips; their content is this file's, their oracle tests/data/psnr_hvs/<name>.json. Running this binary
// with VMAFX_DUMP_PSNR_HVS_CLIPS=<dir> writes them there as <name>_ref.yuv / <name>_dist.yuv (planar, in the
// layout libvmaf's CLI reads, 16-bit little-endian words above 8 bits), prints the sizes, and skips the comparison.

uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}
int64_t tri(int64_t t, int64_t p) {
  const int64_t m = ((t % p) + p) % p;
  return m <= p / 2 ? m : p - m;
}

struct SynthClip {
  const char* name;
  uint32_t w, h;
  unsigned bpc;
  Chroma chroma;
  unsigned frames;
  int full_scale_frame;  // this frame holds full-scale patterns (-1: none)
  int equal_cr_frame;    // in this frame the distorted Cr plane equals the reference's (-1: none)
};

const SynthClip kClips[] = {
    {"s420_333x217_8b", 333, 217, 8, Chroma::k420, 4, 3, -1},
    {"s422_202x118_10b", 202, 118, 10, Chroma::k422, 4, 2, -1},
    {"s444_150x94_8b", 150, 94, 8, Chroma::k444, 3, -1, 1},
    {"s420_256x144_12b", 256, 144, 12, Chroma::k420, 4, 1, -1},
    {"s422_99x71_12b", 99, 71, 12, Chroma::k422, 3, 0, 2},
    {"s444_64x64_10b", 64, 64, 10, Chroma::k444, 3, 1, -1},
    {"s420_20x14_8b", 20, 14, 8, Chroma::k420, 2, -1, -1},   // chroma 10x7: no chroma block (NaN)
    {"s444_7x40_8b", 7, 40, 8, Chroma::k444, 2, -1, -1},     // no block at all
    {"s420_15x16_10b", 15, 16, 10, Chroma::k420, 2, 1, -1},  // luma 1x2 blocks, chroma 7x8: none
    // Depths libvmaf's CLI does not take but its psnr_hvs does (oracle from the library's API, see the README).
    {"s420_118x66_9b", 118, 66, 9, Chroma::k420, 3, 1, -1},
    {"s444_90x57_11b", 90, 57, 11, Chroma::k444, 3, 2, 0},
};

// Plane sample (x, y) of frame f. Natural frames: moving waves, a texture and hashed noise; the distorted picture
// adds contrast change, an averaged band, blocky quantisation, an offset and its own noise. Full-scale frames:
// patterns of 0 and 2^bpc - 1 (checkerboards, stripes, binary noise) that drive the DCT to its largest coefficients.
uint32_t synth_sample(const SynthClip& c, unsigned plane, bool dist, uint32_t x, uint32_t y, unsigned f) {
  const int64_t maxv = (int64_t(1) << c.bpc) - 1;
  if (dist && int(f) == c.equal_cr_frame && plane == 2) dist = false;
  if (int(f) == c.full_scale_frame) {
    const unsigned kind = (plane + (dist ? 1 : 0) + (x / 24 + y / 16) % 3) % 4;
    bool on;
    switch (kind) {
      case 0: on = ((x + y) & 1) != 0; break;                        // checkerboard
      case 1: on = (x & 1) != 0; break;                               // columns
      case 2: on = (hash32(x * 2654435761u + y * 40503u + plane + (dist ? 77u : 0u)) & 1) != 0; break;
      default: on = ((x >> 2) + (y >> 2)) % 2 != 0; break;            // 4x4 checkerboard
    }
    return on ? uint32_t(maxv) : 0u;
  }
  const int64_t k = int64_t(plane) * 13 + 5;
  int64_t v = tri(int64_t(x) * 3 + int64_t(y) * (plane + 1) + f * 11 + k, 140) * 4 +
              tri(int64_t(y) * 5 - int64_t(x) * 2 + f * 7, 90) * 3 +
              tri(int64_t(x) * int64_t(y) / 37 + f * 5 + k, 46) * 2 +
              int64_t(hash32(x * 7919u + y * 104729u + f * 131u + plane * 17u) % 40u);  // 0..500
  if ((x / 40 + y / 30 + f) % 5 == 0) v = 250;  // flat patches: blocks without variance
  v = v * maxv / 560 + maxv / 20;
  if (dist) {
    const int64_t mid = maxv / 2;
    if (y % 64 < 40) v = mid + (v - mid) * 5 / 4;
    if (x % 96 < 30) v = (v * 3 + int64_t(tri(int64_t(x) + y, 20)) * maxv / 256) / 3;
    if ((x / 16 + y / 16) % 3 == 1) {  // coarse quantisation
      const int64_t q = std::max<int64_t>(1, maxv / 24);
      v = (v / q) * q + q / 2;
    }
    v += int64_t(hash32(x * 31u + y * 1009u + f * 7u + plane * 3u + 99u) % 23u) * maxv / 1024 - maxv / 96;
  }
  return uint32_t(std::clamp<int64_t>(v, 0, maxv));
}

// A clip as a .yuv file: chroma planes of the rounded-up size (the project's layout, and GStreamer's), or for
// libvmaf 3.2's CLI, whose raw reader reads floor(W/2) x floor(H/2) chroma planes, of the rounded-down size. Both
// hold the same samples where the features read.
std::vector<uint8_t> synth_file(const SynthClip& c, bool dist, bool libvmaf_layout = false) {
  std::vector<uint8_t> out;
  const bool wide = c.bpc > 8;
  const uint32_t cw = libvmaf_layout ? chroma_width(c.chroma, c.w) : chroma_width_stored(c.chroma, c.w);
  const uint32_t ch = libvmaf_layout ? chroma_height(c.chroma, c.h) : chroma_height_stored(c.chroma, c.h);
  for (unsigned f = 0; f < c.frames; f++)
    for (unsigned p = 0; p < 3; p++) {
      const uint32_t pw = p ? cw : c.w, ph = p ? ch : c.h;
      for (uint32_t y = 0; y < ph; y++)
        for (uint32_t x = 0; x < pw; x++) {
          const uint32_t v = synth_sample(c, p, dist, x, y, f);
          out.push_back(uint8_t(v & 0xff));
          if (wide) out.push_back(uint8_t(v >> 8));
        }
    }
  return out;
}

Status open_synth(const SynthClip& c, test::PairClips* out) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string base =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/vmafx_hvs_" + std::to_string(::getpid()) + "_" + c.name;
  VMAFX_TRY(test::write_file(base + "_ref.yuv", synth_file(c, false)));
  VMAFX_TRY(test::write_file(base + "_dist.yuv", synth_file(c, true)));
  FormatInfo fmt;
  VMAFX_TRY(parse_pixel_format(test::chroma_arg(c.chroma), c.bpc, &fmt));
  Status s = out->ref.open(base + "_ref.yuv", c.w, c.h, fmt);
  if (s.is_ok()) s = out->dist.open(base + "_dist.yuv", c.w, c.h, fmt);
  std::remove((base + "_ref.yuv").c_str());
  std::remove((base + "_dist.yuv").c_str());
  return s;
}

TEST(CpuPsnrHvs, SyntheticClipsMatchLibvmafBitForBit) {
  const char* dump = std::getenv("VMAFX_DUMP_PSNR_HVS_CLIPS");
  if (dump && *dump) {
    for (const SynthClip& c : kClips) {
      ASSERT_OK(test::write_file(std::string(dump) + "/" + c.name + "_ref.yuv", synth_file(c, false, true)));
      ASSERT_OK(test::write_file(std::string(dump) + "/" + c.name + "_dist.yuv", synth_file(c, true, true)));
      std::printf("%s %u %u %s %u\n", c.name, c.w, c.h, test::chroma_arg(c.chroma), c.bpc);
    }
    GTEST_SKIP() << "clips written to " << dump;
  }
  Tally all;
  for (const SynthClip& c : kClips) {
    SCOPED_TRACE(c.name);
    test::PairClips clips;
    ASSERT_OK(open_synth(c, &clips));
    HvsOracle o;
    ASSERT_OK(load_hvs_oracle(hvs_data(c.name), &o));
    Tally t;
    expect_clip_matches(clips, o, c.name, &t);
    EXPECT_EQ(t.frames, c.frames);
    std::printf("  %-18s %u frames, %2u values null, max |ours - libvmaf| %.3g\n", c.name, t.frames, t.nulls, t.worst);
    all.frames += t.frames;
    all.values += t.values;
    all.nulls += t.nulls;
    all.worst = std::max(all.worst, t.worst);
  }
  std::printf("  %zu clips, %u frames, %u values (%u null): max |ours - libvmaf| %.3g\n",
              sizeof(kClips) / sizeof(kClips[0]), all.frames, all.values, all.nulls, all.worst);
}

// The generated pairs (8 and 10 bits; 4:2:0, 4:2:2, 4:4:4; odd sizes) against libvmaf's JSON at its printed
// precision (6 decimals; null where libvmaf's value is not finite).
TEST(CpuPsnrHvs, GeneratedPairsMatchLibvmafJson) {
  double worst = 0;
  size_t frames = 0;
  for (const test::Pair& p : test::generated_pairs()) {
    SCOPED_TRACE(p.name());
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(p, &c));
    HvsOracle o;
    ASSERT_OK(load_hvs_oracle(p.oracle_path("psnr_hvs"), &o));
    ASSERT_EQ(c.ref.frames(), o.frames.size());
    for (size_t f = 0; f < c.ref.frames(); f++) {
      cpu::PsnrHvsScores s;
      ASSERT_OK(cpu::psnr_hvs(c.ref.frame(f), c.dist.frame(f), &s));
      const double ours[4] = {s.y, s.cb, s.cr, s.psnr_hvs};
      for (int i = 0; i < 4; i++) {
        const double want = o.frames[f].at(kNames[i]);
        ASSERT_FALSE(std::isnan(want)) << kNames[i] << " frame " << f << ": no finite oracle value";
        EXPECT_NEAR(ours[i], want, 5e-7 + 1e-12) << kNames[i] << " frame " << f;
        worst = std::max(worst, std::fabs(ours[i] - want));
      }
      frames++;
    }
  }
  std::printf("  generated pairs: %zu frames, max |ours - libvmaf json| %.3g\n", frames, worst);
}

// The public pairs of ../shared/testdata (their oracle JSONs are in tests/data/psnr_hvs/; the clips are not).
TEST(CpuPsnrHvs, PublicPairsMatchLibvmafBitForBit) {
  std::vector<std::string> absent;
  const std::vector<test::Pair> pairs = test::present_pairs(&absent);
  if (pairs.empty())
    GTEST_SKIP() << "../shared/testdata absent: the public pairs' bit-exact check does not run (the generated pairs: "
                    "GeneratedPairsMatchLibvmafJson)";
  std::vector<std::string> checked;
  for (const test::Pair& p : pairs) {
    SCOPED_TRACE(p.name());
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(p, &c));
    HvsOracle o;
    ASSERT_OK(load_hvs_oracle(hvs_data(p.name()), &o));
    Tally t;
    expect_clip_matches(c, o, p.name(), &t);
    std::printf("  %s: %u frames, max |ours - libvmaf| %.3g\n", p.name().c_str(), t.frames, t.worst);
    checked.push_back(p.name());
  }
  test::print_pair_coverage(checked, absent);
}

// ---------------------------------------------------------------------------------------------------------------

// The same samples stored as NV12 (interleaved chroma) and as P010 (10 bits high in 16-bit words) score as planar.
TEST(CpuPsnrHvs, LayoutsScoreTheSame) {
  const uint32_t w = 70, h = 46;
  const SynthClip c = {"layout", w, h, 10, Chroma::k420, 1, -1, -1};
  const uint32_t cw = w / 2, ch = h / 2;
  for (unsigned bpc : {8u, 10u}) {
    SynthClip cc = c;
    cc.bpc = bpc;
    std::vector<uint8_t> planar[2], semi[2];
    PictureView pv[2], sv[2];
    for (int d = 0; d < 2; d++) {
      const size_t bytes = bpc > 8 ? 2 : 1;
      planar[d].resize((size_t(w) * h + 2 * size_t(cw) * ch) * bytes);
      semi[d].resize((size_t(w) * h + 2 * size_t(cw) * ch) * bytes);
      auto put = [&](std::vector<uint8_t>& v, size_t i, uint32_t s) {
        if (bytes == 1) v[i] = uint8_t(s);
        else {
          v[2 * i] = uint8_t(s & 0xff);
          v[2 * i + 1] = uint8_t(s >> 8);
        }
      };
      for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
          const uint32_t s = synth_sample(cc, 0, d, x, y, 0);
          put(planar[d], size_t(y) * w + x, s);
          put(semi[d], size_t(y) * w + x, bpc == 10 ? s << 6 : s);
        }
      for (unsigned p = 1; p < 3; p++)
        for (uint32_t y = 0; y < ch; y++)
          for (uint32_t x = 0; x < cw; x++) {
            const uint32_t s = synth_sample(cc, p, d, x, y, 0);
            put(planar[d], size_t(w) * h + (p - 1) * size_t(cw) * ch + size_t(y) * cw + x, s);
            put(semi[d], size_t(w) * h + size_t(y) * cw * 2 + x * 2 + (p - 1), bpc == 10 ? s << 6 : s);
          }
      FormatInfo fp, fs;
      ASSERT_OK(parse_pixel_format("420", bpc, &fp));
      ASSERT_OK(parse_pixel_format(bpc == 8 ? "nv12" : "p010", bpc, &fs));
      const PlaneLayout lp[3] = {{0, ptrdiff_t(w * bytes)},
                                 {size_t(w) * h * bytes, ptrdiff_t(cw * bytes)},
                                 {(size_t(w) * h + size_t(cw) * ch) * bytes, ptrdiff_t(cw * bytes)}};
      const PlaneLayout ls[2] = {{0, ptrdiff_t(w * bytes)}, {size_t(w) * h * bytes, ptrdiff_t(2 * cw * bytes)}};
      ASSERT_OK(make_picture_view(fp, w, h, planar[d].data(), planar[d].size(), lp, 3, &pv[d]));
      ASSERT_OK(make_picture_view(fs, w, h, semi[d].data(), semi[d].size(), ls, 2, &sv[d]));
    }
    cpu::PsnrHvsScores a, b;
    ASSERT_OK(cpu::psnr_hvs(pv[0], pv[1], &a));
    ASSERT_OK(cpu::psnr_hvs(sv[0], sv[1], &b));
    EXPECT_EQ(a.y, b.y) << bpc;
    EXPECT_EQ(a.cb, b.cb) << bpc;
    EXPECT_EQ(a.cr, b.cr) << bpc;
    EXPECT_EQ(a.psnr_hvs, b.psnr_hvs) << bpc;
    EXPECT_TRUE(std::isfinite(a.psnr_hvs));
  }
}

// libvmaf's psnr_hvs refuses samples deeper than 12 bits and 4:0:0 pictures (its init fails): refused here with the
// limit named, by the reference and by the feature table (so a request never reaches a frame).
TEST(CpuPsnrHvs, RefusesWhatLibvmafRefuses) {
  for (unsigned bpc : {8u, 9u, 10u, 11u, 12u}) EXPECT_TRUE(cpu::psnr_hvs_check(bpc, Chroma::k420).is_ok()) << bpc;
  for (unsigned bpc : {13u, 14u, 16u}) {
    const Status s = cpu::psnr_hvs_check(bpc, Chroma::k444);
    EXPECT_EQ(s.code(), Errc::unsupported) << bpc;
    EXPECT_NE(s.message().find("12 bits"), std::string::npos) << s.message();
  }
  const Status s400 = cpu::psnr_hvs_check(8, Chroma::k400);
  EXPECT_EQ(s400.code(), Errc::unsupported);
  EXPECT_NE(s400.message().find("4:0:0"), std::string::npos) << s400.message();

  const features::FeatureDesc* d = features::find("psnr_hvs");
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(d->implemented());
  features::Options o;
  ASSERT_OK(features::parse_options(*d, {}, &o));
  features::Instance inst;
  Status st = features::make_instance(*d, o, VideoGeometry{64, 64, 16, Chroma::k420}, &inst);
  EXPECT_EQ(st.code(), Errc::unsupported);
  EXPECT_NE(st.message().find("psnr_hvs"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("12 bits"), std::string::npos) << st.message();
  st = features::make_instance(*d, o, VideoGeometry{64, 64, 8, Chroma::k400}, &inst);
  EXPECT_EQ(st.code(), Errc::unsupported);
  ASSERT_OK(features::make_instance(*d, o, VideoGeometry{64, 64, 10, Chroma::k422}, &inst));
  ASSERT_EQ(inst.outputs.size(), 4u);
  for (int i = 0; i < 4; i++) EXPECT_EQ(inst.outputs[i], kNames[i]);
  // libvmaf's psnr_hvs has no options.
  EXPECT_EQ(features::parse_options(*d, {{"enable_chroma", "false"}}, &o).code(), Errc::unsupported);

  // The reference itself refuses a 16-bit pair too.
  std::vector<uint8_t> buf(64 * 64 * 2 * 2, 0);
  FormatInfo f16;
  ASSERT_OK(parse_pixel_format("420", 16, &f16));
  PlaneLayout l[3];
  size_t fs = 0;
  const unsigned n = packed_layout(f16, 64, 64, l, &fs);
  PictureView v;
  ASSERT_OK(make_picture_view(f16, 64, 64, buf.data(), fs, l, n, &v));
  cpu::PsnrHvsScores sc;
  EXPECT_EQ(cpu::psnr_hvs(v, v, &sc).code(), Errc::unsupported);
}

// Blocks: corners 7 apart, only whole blocks.
TEST(CpuPsnrHvs, BlockCountsAlongAnAxis) {
  EXPECT_EQ(cpu::psnr_hvs_blocks(0), 0u);
  EXPECT_EQ(cpu::psnr_hvs_blocks(7), 0u);
  EXPECT_EQ(cpu::psnr_hvs_blocks(8), 1u);
  EXPECT_EQ(cpu::psnr_hvs_blocks(14), 1u);
  EXPECT_EQ(cpu::psnr_hvs_blocks(15), 2u);
  EXPECT_EQ(cpu::psnr_hvs_blocks(1920), 274u);  // last corner 1911: 1911 + 8 <= 1920
  EXPECT_EQ(cpu::psnr_hvs_blocks(1080), 154u);
}

// The DCT of a flat block has only a DC term (sqrt(8) x sqrt(8) = 8 times the sample, up to the integer rounding),
// and the transform is linear in sign: -x gives -X where no rounding intervenes (a flat block).
TEST(CpuPsnrHvs, FlatBlockHasOnlyDc) {
  for (int32_t v : {0, 1, 100, 255, 1023, 4095}) {
    int32_t b[64];
    for (int32_t& x : b) x = v;
    cpu::psnr_hvs_fdct8x8(b);
    for (int k = 1; k < 64; k++) EXPECT_EQ(b[k], 0) << "value " << v << " coefficient " << k;
    EXPECT_NEAR(double(b[0]), 8.0 * v, 1.0 + 1e-3 * v) << v;
  }
}

}  // namespace
}  // namespace vmafx
