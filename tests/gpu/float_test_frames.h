// SPDX-License-Identifier: LGPL-2.1-or-later
// Deterministic frames for the float features' kernel tests (host: tests/gpu/test_hip_float_impl.cpp, GPU:
// tests/gpu/test_hip_float.cpp): a moving texture (gradient, sharp edges, flat areas, hashed noise) as the reference
// and a blurred, contrast-changed, noisy copy as the distorted picture, in 8-bit bytes or 16-bit words (the sample
// `shift` bits up, noise below it), rows padded.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cpu/plane.h"

namespace vmafx::test {

struct FloatTestPlane {
  std::vector<uint8_t> bytes;
  uint32_t w = 0, h = 0;
  unsigned bpc = 8;
  uint8_t word = 1, shift = 0;
  size_t pitch = 0;

  cpu::Plane cpu() const {
    cpu::Plane p;
    p.data = bytes.data();
    p.stride = ptrdiff_t(pitch);
    p.w = w;
    p.h = h;
    p.bytes = word;
    p.shift = shift;
    p.step = 1;
    p.bpc = uint8_t(bpc);
    return p;
  }
};

inline uint32_t float_test_mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// Frame `i` of a w x h pair. word 2 stores each sample `shift` bits up with noise below; pad bytes end each row.
inline void float_test_frame(uint32_t w, uint32_t h, unsigned bpc, uint8_t word, uint8_t shift, size_t pad,
                             uint32_t i, FloatTestPlane* ref, FloatTestPlane* dist) {
  const int maxv = (1 << bpc) - 1;
  std::vector<int> r(size_t(w) * h), d(size_t(w) * h);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const int xx = int(x + 3 * i), yy = int(y + i);
      int v;
      if ((xx / 19 + yy / 13) % 4 == 0)
        v = maxv / 3;  // flat areas
      else if ((xx / 7) % 5 == 0)
        v = (yy % 11 < 5) ? maxv : 0;  // sharp edges
      else
        v = (xx * 5 + yy * 3) % (maxv + 1);  // gradient
      v += int(float_test_mix(x + 131 * y + 7919 * i) % uint32_t(maxv / 16 + 1)) - maxv / 32;
      r[size_t(y) * w + x] = std::clamp(v, 0, maxv);
    }
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      int sum = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int yy = std::clamp(int(y) + dy, 0, int(h) - 1), xx = std::clamp(int(x) + dx, 0, int(w) - 1);
          sum += r[size_t(yy) * w + xx];
        }
      int v = sum / 9;
      if (i % 2) v = maxv / 2 + (v - maxv / 2) * 3 / 2;  // more contrast: VIF gain above 1
      v += int(float_test_mix(x * 17 + y * 1009 + 104729 * i) % uint32_t(maxv / 32 + 1)) - maxv / 64;
      d[size_t(y) * w + x] = std::clamp(v, 0, maxv);
    }
  for (int k = 0; k < 2; ++k) {
    FloatTestPlane* p = k ? dist : ref;
    const std::vector<int>& s = k ? d : r;
    p->w = w;
    p->h = h;
    p->bpc = bpc;
    p->word = word;
    p->shift = shift;
    p->pitch = size_t(w) * word + pad;
    p->bytes.assign(p->pitch * h, 0xA5);
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        const uint32_t v = uint32_t(s[size_t(y) * w + x]);
        uint8_t* o = p->bytes.data() + size_t(y) * p->pitch + size_t(x) * word;
        if (word == 1) {
          o[0] = uint8_t(v);
        } else {
          const uint32_t noise = shift ? float_test_mix(x + 7 * y) & ((1u << shift) - 1) : 0;
          const uint32_t w16 = (v << shift) | noise;
          o[0] = uint8_t(w16);
          o[1] = uint8_t(w16 >> 8);
        }
      }
  }
}

}  // namespace vmafx::test
