// SPDX-License-Identifier: LGPL-2.1-or-later
#include "derived_clips.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace vmafx::test {

const std::vector<DerivedClip>& derived_clips() {
  static const std::vector<DerivedClip> kClips = {
      {"sample", 320, 240, 8, "420", 24, false},
      {"sample_same", 320, 240, 8, "420", 6, true},
      {"d10", 320, 240, 10, "420", 6, false},
      {"d10_same", 320, 240, 10, "420", 3, true},
      {"d12", 320, 240, 12, "422", 4, false},
      {"d16", 320, 240, 16, "444", 4, false},
      {"d16_same", 320, 240, 16, "444", 2, true},
      {"x2", 640, 480, 8, "420", 3, false},
  };
  return kClips;
}

const DerivedClip* find_derived_clip(const std::string& name) {
  for (const DerivedClip& c : derived_clips())
    if (name == c.name) return &c;
  return nullptr;
}

namespace {

Chroma chroma_of(const DerivedClip& c) {
  const std::string s = c.chroma;
  return s == "444" ? Chroma::k444 : s == "422" ? Chroma::k422 : Chroma::k420;
}

// The new low bits: a fixed hash of the position, frame, plane and picture.
uint32_t pattern(uint32_t x, uint32_t y, uint32_t f, uint32_t plane, uint32_t dist) {
  uint32_t h = x * 73856093u ^ y * 19349663u ^ f * 83492791u ^ plane * 2654435761u ^ dist * 0x9e3779b9u;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  return h;
}

// One picture of the clip as file bytes.
void append_picture(const DerivedClip& c, const PictureView& src, unsigned f, bool dist, std::string* out) {
  const Chroma ch = chroma_of(c);
  const unsigned shift = c.bpc - 8;
  const uint32_t low_mask = (1u << shift) - 1u;
  const uint32_t up = c.width / src.width;  // 1, or 2 for x2
  for (unsigned p = 0; p < 3; p++) {
    const uint32_t w = p ? chroma_width_stored(ch, c.width) : c.width;
    const uint32_t h = p ? chroma_height_stored(ch, c.height) : c.height;
    const PlaneView& sp = src.planes[p];
    for (uint32_t y = 0; y < h; y++) {
      for (uint32_t x = 0; x < w; x++) {
        uint32_t sx = x / up, sy = y / up;  // the sample's 4:2:0 chroma is 160x120
        if (p && ch == Chroma::k422) sy = y / 2;
        if (p && ch == Chroma::k444) sx = x / 2, sy = y / 2;
        const uint32_t v8 = sp.data[ptrdiff_t(sy) * sp.stride + sx];
        const uint32_t v = (v8 << shift) | (pattern(x, y, f, p, dist ? 1 : 0) & low_mask);
        if (c.bpc == 8) {
          out->push_back(char(v));
        } else {
          out->push_back(char(v & 0xff));
          out->push_back(char(v >> 8));
        }
      }
    }
  }
}

}  // namespace

VideoGeometry derived_geometry(const DerivedClip& c) {
  return {c.width, c.height, uint8_t(c.bpc), chroma_of(c)};
}

Status write_derived_clip(const DerivedClip& c, const std::string& dir) {
  PairClips sample;
  VMAFX_TRY(open_sample_pair(&sample));
  if (sample.ref.frames() < c.frames) return {Errc::io_error, "the sample pair has too few frames"};
  std::string ref, dist;
  for (unsigned f = 0; f < c.frames; f++) {
    append_picture(c, sample.ref.frame(f), f, false, &ref);
    // An identical pair repeats the reference (its pattern too).
    append_picture(c, c.identical ? sample.ref.frame(f) : sample.dist.frame(f), f, !c.identical, &dist);
  }
  VMAFX_TRY(write_file(dir + "/" + c.name + "_ref.yuv", ref.data(), ref.size()));
  return write_file(dir + "/" + c.name + "_dist.yuv", dist.data(), dist.size());
}

Status open_derived_clip(const DerivedClip& c, PairClips* out) {
  static std::mutex mu;
  static std::map<std::string, bool> written;
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/vmafx_derived_" + std::to_string(::getpid());
  {
    std::lock_guard<std::mutex> lk(mu);
    if (!written[c.name]) {
      if (std::system(("mkdir -p " + dir).c_str()) != 0) return {Errc::io_error, "cannot create " + dir};
      VMAFX_TRY(write_derived_clip(c, dir));
      written[c.name] = true;
    }
  }
  FormatInfo fmt;
  VMAFX_TRY(parse_pixel_format(c.chroma, c.bpc, &fmt));
  VMAFX_TRY(out->ref.open(dir + "/" + c.name + "_ref.yuv", c.width, c.height, fmt));
  VMAFX_TRY(out->dist.open(dir + "/" + c.name + "_dist.yuv", c.width, c.height, fmt));
  if (out->ref.frames() != c.frames || out->dist.frames() != c.frames)
    return {Errc::io_error, std::string(c.name) + ": the written clip does not hold " + std::to_string(c.frames) +
                                " frames"};
  return Status::ok();
}

}  // namespace vmafx::test
