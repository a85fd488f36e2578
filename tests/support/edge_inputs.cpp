// SPDX-License-Identifier: LGPL-2.1-or-later
#include "edge_inputs.h"

#include <algorithm>

namespace vmafx::test {

const char* edge_pattern_name(EdgePattern p) {
  switch (p) {
    case EdgePattern::random: return "random";
    case EdgePattern::zero: return "zero";
    case EdgePattern::maximum: return "maximum";
    case EdgePattern::checker: return "checker";
    case EdgePattern::border: return "border";
    case EdgePattern::steps: return "steps";
    case EdgePattern::near_flat: return "near_flat";
    case EdgePattern::ramp: return "ramp";
    case EdgePattern::impulses: return "impulses";
  }
  return "?";
}

EdgePattern random_edge_pattern(EdgeRng& rng) { return EdgePattern(rng.below(kEdgePatternCount)); }

void fill_edge_plane(EdgeRng& rng, EdgePattern p, uint32_t max, uint32_t w, uint32_t h, uint16_t* out,
                     ptrdiff_t stride) {
  const uint32_t level = rng.below(max + 1);
  const uint32_t block = rng.range(1, 9);
  std::vector<uint32_t> block_levels((w / block + 2) * (h / block + 2));
  for (uint32_t& v : block_levels) v = rng.chance(50) ? (rng.chance(50) ? 0 : max) : rng.below(max + 1);
  const bool frame_max = rng.chance(70);
  for (uint32_t y = 0; y < h; ++y) {
    uint16_t* row = out + ptrdiff_t(y) * stride;
    for (uint32_t x = 0; x < w; ++x) {
      uint32_t v = 0;
      switch (p) {
        case EdgePattern::random: v = rng.below(max + 1); break;
        case EdgePattern::zero: v = 0; break;
        case EdgePattern::maximum: v = max; break;
        case EdgePattern::checker: v = ((x + y) & 1) ? max : 0; break;
        case EdgePattern::border:
          v = (x == 0 || y == 0 || x + 1 == w || y + 1 == h) ? (frame_max ? max : 0) : rng.below(max + 1);
          break;
        case EdgePattern::steps: v = block_levels[(y / block) * (w / block + 2) + x / block]; break;
        case EdgePattern::near_flat: {
          const int64_t d = int64_t(rng.below(7)) - 3;
          v = uint32_t(std::clamp<int64_t>(int64_t(level) + d, 0, max));
          break;
        }
        case EdgePattern::ramp: v = uint32_t((uint64_t(x) * 37 + uint64_t(y) * 11) * (max / 255 + 1) % (max + 1)); break;
        case EdgePattern::impulses:
          v = rng.chance(5) ? (rng.chance(50) ? 0 : max) : level;
          break;
      }
      row[x] = uint16_t(v);
    }
  }
}

void fill_edge_distorted(EdgeRng& rng, const uint16_t* ref, uint32_t max, uint32_t w, uint32_t h, ptrdiff_t stride,
                         uint16_t* out) {
  const unsigned kind = rng.below(5);
  const int64_t amp = int64_t(rng.range(1, std::max<uint32_t>(1, max / 16)));
  for (uint32_t y = 0; y < h; ++y) {
    const uint16_t* r = ref + ptrdiff_t(y) * stride;
    uint16_t* o = out + ptrdiff_t(y) * stride;
    for (uint32_t x = 0; x < w; ++x) {
      int64_t v = r[x];
      switch (kind) {
        case 0: v += int64_t(rng.below(uint32_t(2 * amp + 1))) - amp; break;            // noise
        case 1: v = (v + r[x > 0 ? x - 1 : x] + r[x + 1 < w ? x + 1 : x]) / 3; break;  // blur
        case 2: v = v * 3 / 4 + int64_t(rng.below(3)); break;                           // contrast loss
        case 3: v = rng.below(max + 1); break;                                          // unrelated
        default: break;                                                                 // identical
      }
      o[x] = uint16_t(std::clamp<int64_t>(v, 0, max));
    }
  }
}

void edge_size(EdgeRng& rng, uint32_t min_w, uint32_t max_w, uint32_t min_h, uint32_t max_h, uint32_t radius,
               uint32_t* w, uint32_t* h) {
  auto pick = [&](uint32_t lo, uint32_t hi) {
    uint32_t v;
    switch (rng.below(6)) {
      case 0: v = lo + rng.below(4); break;  // the smallest sizes
      case 1: {                              // next to a vector multiple plus the filter's reach
        const uint32_t vec = 8u << rng.below(3);
        v = vec * rng.range(1, 4) + 2 * radius + rng.range(0, 2) - 1;
        break;
      }
      case 2: v = rng.range(lo, std::min(hi, lo + 64)) | 1; break;  // odd
      default: v = rng.range(lo, hi); break;
    }
    return std::clamp(v, lo, hi);
  };
  *w = pick(min_w, max_w);
  *h = pick(min_h, max_h);
}

unsigned edge_bit_depth(EdgeRng& rng, bool any_depth) {
  static const unsigned kDepths[] = {8, 8, 10, 12, 16, 16};
  if (any_depth && rng.chance(25)) return rng.range(9, 15);
  return kDepths[rng.below(6)];
}

uint32_t edge_u32(EdgeRng& rng, uint32_t max) {
  switch (rng.below(8)) {
    case 0: return 0;
    case 1: return max;
    case 2: return max ? max - 1 : 0;
    case 3: {
      uint32_t bits = 0;
      while (bits < 31 && (uint64_t(1) << (bits + 1)) <= max) ++bits;
      return uint32_t(1) << rng.below(bits + 1);
    }
    default: return uint32_t(rng.next() % (uint64_t(max) + 1));
  }
}

EdgeLayout random_edge_layout(EdgeRng& rng, unsigned bpc) {
  EdgeLayout l;
  l.bytes = bpc > 8 ? 2 : (rng.chance(20) ? 2 : 1);
  l.shift = l.bytes == 2 && rng.chance(30) ? rng.below(16 - bpc + 1) : 0;
  l.step = rng.chance(20) ? 2 : 1;
  l.pad = rng.chance(50) ? rng.range(1, 70) : 0;
  return l;
}

size_t store_edge_layout(EdgeRng& rng, const EdgeLayout& l, const uint16_t* samples, uint32_t w, uint32_t h,
                         std::vector<uint8_t>* bytes) {
  const size_t row = (size_t(w - 1) * l.step + 1) * l.bytes;
  const size_t stride = row + l.pad;
  bytes->assign(stride * h + 64, 0);
  for (uint8_t& b : *bytes) b = uint8_t(rng.next());
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const uint32_t v = samples[size_t(y) * w + x];
      uint8_t* p = bytes->data() + y * stride + size_t(x) * l.step * l.bytes;
      if (l.bytes == 1) {
        *p = uint8_t(v);
      } else {
        const uint32_t low = l.shift ? uint32_t(rng.next()) & ((1u << l.shift) - 1) : 0;
        const uint32_t word = (v << l.shift) | low;
        p[0] = uint8_t(word);
        p[1] = uint8_t(word >> 8);
      }
    }
  return stride;
}

std::string edge_layout_name(const EdgeLayout& l) {
  return std::to_string(l.bytes) + "B shift " + std::to_string(l.shift) + " step " + std::to_string(l.step) +
         " pad " + std::to_string(l.pad);
}

}  // namespace vmafx::test
