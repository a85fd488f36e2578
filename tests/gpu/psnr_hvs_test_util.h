// SPDX-License-Identifier: LGPL-2.1-or-later
// Pictures for the psnr_hvs GPU tests (test_hip_psnr_hvs_impl.cpp on the host, test_hip_psnr_hvs.cpp on a device):
// three planes of each picture in host memory in a chosen layout (8-bit bytes or 16-bit words, shifted words as
// P010, interleaved chroma, padded pitches with noise in the padding and below the shift), seeded content (smooth
// waves, texture, noise, flat patches, full-scale patterns) and a distorted copy; and the CPU reference's scores.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "cpu/plane.h"
#include "cpu/psnr_hvs.h"
#include "hip/kernels/common.h"
#include "vmafx/picture.h"

namespace vmafx::psnr_hvs_test {

struct Layout {
  const char* name;
  uint32_t w, h;
  unsigned bpc;
  Chroma chroma;
  uint8_t shift;       // of 16-bit words (P010: 6)
  bool interleaved;    // Cb and Cr in one plane, step 2
  size_t pad;          // bytes after each row
};

struct HostPlane {
  std::vector<uint8_t> bytes;  // the plane's rows (for interleaved chroma: the shared rows)
  size_t offset = 0;           // first sample of the plane in `bytes`
  size_t pitch = 0;
  uint32_t w = 0, h = 0;
  uint8_t word = 1, shift = 0, step = 1;
  unsigned bpc = 8;

  cpu::Plane plane() const {
    cpu::Plane p;
    p.data = bytes.data() + offset;
    p.stride = ptrdiff_t(pitch);
    p.w = w;
    p.h = h;
    p.bytes = word;
    p.shift = shift;
    p.step = step;
    p.bpc = uint8_t(bpc);
    return p;
  }
  // The plane as the kernels' VxPlane, pointing at this host memory (the host tests of the kernel arithmetic).
  VxPlane vx() const {
    VxPlane v;
    v.data = bytes.data() + offset;
    v.pitch = pitch;
    v.width = w;
    v.height = h;
    v.bytes = word;
    v.shift = shift;
    v.step = step;
    return v;
  }
};

struct HostPicture {
  HostPlane planes[3];  // Y, Cb, Cr (Cb and Cr share `bytes` when interleaved: Cr's copy is Cb's, offset by a word)
};

inline uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// Sample (x, y) of plane p: the reference or its distorted copy.
inline int sample(const Layout& l, unsigned p, bool dist, uint32_t x, uint32_t y, uint32_t seed) {
  const int max = int((1u << l.bpc) - 1);
  const uint32_t zone = hash32((x / 24) * 977u + (y / 20) * 131u + seed * 7u + p);
  if (zone % 11 == 0) {  // full-scale patterns: the DCT's largest coefficients
    const bool on = (zone / 11) % 3 == 0   ? ((x + y) & 1) != 0
                    : (zone / 11) % 3 == 1 ? (hash32(x * 31u + y * 17u + seed + (dist ? 5u : 0u)) & 1) != 0
                                           : ((x >> 2) & 1) != 0;
    return (on != (dist && zone % 2 == 0)) ? max : 0;
  }
  if (zone % 11 == 1) return max / 3;  // flat: blocks without variance (dist flat too)
  const double v = 0.5 + 0.3 * std::sin(x * 0.07 + seed + p) * std::cos(y * 0.05 - p) + 0.1 * std::sin((x + y) * 0.6);
  int r = int(v * max) + int(hash32(x * 7919u + y * 104729u + seed * 3u + p) % 17u) - 8;
  if (!dist) return std::clamp(r, 0, max);
  const int kind = int((zone / 3) % 4);
  if (kind == 0) r += int(hash32(x * 13u + y * 101u + seed) % uint32_t(max / 16 + 3)) - max / 32;
  if (kind == 1) r = (r / std::max(1, max / 24)) * std::max(1, max / 24);
  if (kind == 2) r = r * 7 / 8 + max / 20;
  return std::clamp(r, 0, max);
}

// Stores sample v at byte `at` of `bytes` as a byte, or as a little-endian word shifted up with noise below.
inline void put(std::vector<uint8_t>& bytes, size_t at, uint8_t word, uint8_t shift, int v, std::mt19937& rng) {
  if (word == 1) {
    bytes[at] = uint8_t(v);
    return;
  }
  const uint32_t w = (uint32_t(v) << shift) | (shift ? (rng() & ((1u << shift) - 1)) : 0u);
  bytes[at] = uint8_t(w);
  bytes[at + 1] = uint8_t(w >> 8);
}

inline HostPicture make_picture(const Layout& l, bool dist, uint32_t seed) {
  std::mt19937 rng(seed * 2 + (dist ? 1 : 0));
  HostPicture pic;
  const uint8_t word = l.bpc > 8 ? 2 : 1;
  const uint32_t cw = chroma_width(l.chroma, l.w), ch = chroma_height(l.chroma, l.h);
  for (unsigned p = 0; p < 3; p++) {
    HostPlane& hp = pic.planes[p];
    hp.w = p ? cw : l.w;
    hp.h = p ? ch : l.h;
    hp.word = word;
    hp.shift = l.shift;
    hp.bpc = l.bpc;
    hp.step = (p && l.interleaved) ? 2 : 1;
    hp.pitch = size_t(std::max<uint32_t>(hp.w, 1)) * hp.step * word + l.pad;
    hp.offset = (p == 2 && l.interleaved) ? word : 0;
    if (p == 2 && l.interleaved) continue;  // Cr lives in Cb's rows
    hp.bytes.resize(hp.pitch * std::max<uint32_t>(hp.h, 1) + 2 * word);
    for (auto& b : hp.bytes) b = uint8_t(rng());  // padding and the bits below the shift hold noise
  }
  for (unsigned p = 0; p < 3; p++) {
    const HostPlane& hp = pic.planes[p];
    std::vector<uint8_t>& store = (p == 2 && l.interleaved) ? pic.planes[1].bytes : pic.planes[p].bytes;
    for (uint32_t y = 0; y < hp.h; y++)
      for (uint32_t x = 0; x < hp.w; x++)
        put(store, hp.offset + size_t(y) * hp.pitch + size_t(x) * hp.step * hp.word, hp.word, hp.shift,
            sample(l, p, dist, x, y, seed), rng);
  }
  if (l.interleaved) pic.planes[2].bytes = pic.planes[1].bytes;  // Cr's view of the shared rows (a copy)
  return pic;
}

// The CPU reference's psnr_hvs_y, _cb, _cr, psnr_hvs of a pair, and its plane errors.
struct CpuResult {
  float error[3];
  double scores[4];
};
inline CpuResult cpu_scores(const HostPicture& r, const HostPicture& d, unsigned bpc) {
  CpuResult c;
  for (unsigned p = 0; p < 3; p++)
    c.error[p] = cpu::psnr_hvs_plane_error(r.planes[p].plane(), d.planes[p].plane(), cpu::psnr_hvs_tables(p), bpc);
  c.scores[0] = cpu::psnr_hvs_db(c.error[0]);
  c.scores[1] = cpu::psnr_hvs_db(c.error[1]);
  c.scores[2] = cpu::psnr_hvs_db(c.error[2]);
  c.scores[3] = cpu::psnr_hvs_combined_db(c.error[0], c.error[1], c.error[2]);
  return c;
}

inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Layouts of the tests: the depths libvmaf scores, every subsampling, sizes that are not multiples of 7 or 8, planes
// without a whole block, shifted words, interleaved chroma, padded pitches.
inline const std::vector<Layout>& layouts() {
  static const std::vector<Layout> k = {
      {"420 8-bit 333x217", 333, 217, 8, Chroma::k420, 0, false, 3},
      {"420 8-bit NV12 320x240", 320, 240, 8, Chroma::k420, 0, true, 0},
      {"422 10-bit 202x118", 202, 118, 10, Chroma::k422, 0, false, 2},
      {"420 10-bit P010 226x130", 226, 130, 10, Chroma::k420, 6, true, 4},
      {"444 8-bit 150x94", 150, 94, 8, Chroma::k444, 0, false, 0},
      {"420 12-bit 256x144", 256, 144, 12, Chroma::k420, 0, false, 6},
      {"422 12-bit 99x71", 99, 71, 12, Chroma::k422, 0, false, 1},
      {"444 11-bit 64x64", 64, 64, 11, Chroma::k444, 0, false, 0},
      {"444 9-bit word shift 3 80x50", 80, 50, 9, Chroma::k444, 3, false, 2},
      {"420 8-bit 20x14 (chroma without a block)", 20, 14, 8, Chroma::k420, 0, false, 0},
      {"444 8-bit 7x40 (no block)", 7, 40, 8, Chroma::k444, 0, false, 0},
      {"420 8-bit 1920x1080", 1920, 1080, 8, Chroma::k420, 0, false, 0},
  };
  return k;
}

}  // namespace vmafx::psnr_hvs_test
