// SPDX-License-Identifier: LGPL-2.1-or-later
// Synthetic luma for the CAMBI tests: deterministic pictures with what CAMBI looks at. Regions, left to right:
//   1. a slow horizontal ramp quantized to 8-bit steps (visible banding at every depth), moving one column per frame
//   2. a vertical ramp with steps of two 8-bit levels
//   3. noise (no flat pixels: the spatial mask is 0 there)
//   4. flat blocks at the extremes of the range (0, the largest value, the limited-range foot and head) and a
//      dark ramp below the default visibility threshold
// A small pseudo-random dither (a fixed LCG, seeded by size, depth and frame) breaks the ramps in some rows so that
// partial windows appear. The same function feeds the tests and the fixture files libvmaf scored (see
// tests/data/cambi/README.md).
#pragma once

#include <cstdint>
#include <vector>

namespace vmafx::test {

inline std::vector<uint16_t> cambi_synth_luma(uint32_t w, uint32_t h, unsigned bpc, unsigned frame) {
  std::vector<uint16_t> out(size_t(w) * h);
  const uint32_t max = (1u << bpc) - 1;
  const unsigned up = bpc - 8;  // 8-bit steps at this depth
  uint32_t seed = w * 2654435761u ^ h * 40503u ^ bpc * 977u ^ frame * 7919u;
  auto rnd = [&seed]() {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
  };
  const uint32_t x1 = w * 2 / 5, x2 = w * 3 / 5, x3 = w * 4 / 5;
  for (uint32_t y = 0; y < h; ++y) {
    const bool dither_row = (y / 7) % 5 == 3;
    for (uint32_t x = 0; x < w; ++x) {
      uint32_t v;
      if (x < x1) {
        // 8-bit levels 40 .. 200 across the region.
        const uint32_t level = 40 + (x + frame) * 160 / (x1 ? x1 : 1) % 161;
        v = level << up;
        if (dither_row && (rnd() & 15) == 0) v += (rnd() & 1) << up;
      } else if (x < x2) {
        const uint32_t level = 60 + 2 * ((y + 2 * frame) * 60 / (h ? h : 1) % 61);
        v = level << up;
      } else if (x < x3) {
        v = rnd() & max;
      } else {
        const uint32_t band = (y * 6) / (h ? h : 1);
        switch (band) {
          case 0: v = 0; break;
          case 1: v = max; break;
          case 2: v = 16u << up; break;
          case 3: v = 235u << up; break;
          default: v = (17 + (x - x3) * 6 / (w - x3 ? w - x3 : 1)) << up; break;  // dark ramp
        }
      }
      out[size_t(y) * w + x] = uint16_t(v > max ? max : v);
    }
  }
  return out;
}

// A whole picture of one slow diagonal ramp quantized to 8-bit levels (16 .. 235 at any depth): strong banding
// everywhere, the largest c-values CAMBI produces on natural-looking content, and top-k sums large enough that
// libvmaf's double summation rounds (the order of its quickselect matters).
inline std::vector<uint16_t> cambi_synth_gradient(uint32_t w, uint32_t h, unsigned bpc, unsigned frame) {
  std::vector<uint16_t> out(size_t(w) * h);
  const unsigned up = bpc - 8;
  const uint64_t span = uint64_t(w) + h / 2;
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const uint64_t t = uint64_t(x) + y / 2 + frame;
      const uint32_t level = uint32_t(16 + (t * 219) / span % 220);
      out[size_t(y) * w + x] = uint16_t(level << up);
    }
  return out;
}

}  // namespace vmafx::test
