// SPDX-License-Identifier: LGPL-2.1-or-later
// Seeded, edge-biased test inputs for comparing two implementations of one function (tests/checkasm, GPU parity):
// sizes just around vector widths and filter radii, odd widths and heights, samples at 0 and at the maximum of their
// bit depth, one-pixel borders that differ from the inside, flat areas, steps and noise. No gtest dependency.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vmafx::test {

// splitmix64: the same sequence on every machine for a given seed.
class EdgeRng {
 public:
  explicit EdgeRng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return n ? uint32_t(next() % n) : 0; }  // 0..n-1
  uint32_t range(uint32_t lo, uint32_t hi) { return lo + below(hi - lo + 1); }  // lo..hi
  bool chance(unsigned percent) { return below(100) < percent; }

 private:
  uint64_t s_;
};

// How a plane of samples is filled.
enum class EdgePattern {
  random,        // uniform over 0..max
  zero,          // all 0
  maximum,       // all max
  checker,       // 0 and max alternating per sample
  border,        // random inside, a one-pixel frame at max (or 0)
  steps,         // flat blocks of random height, hard edges between them
  near_flat,     // a flat level with +-1..3 noise (small variances: the statistics' thresholds)
  ramp,          // a diagonal gradient wrapping at max
  impulses,      // mostly a flat level, sparse samples at 0 or max
};
inline constexpr int kEdgePatternCount = 9;
const char* edge_pattern_name(EdgePattern p);
EdgePattern random_edge_pattern(EdgeRng& rng);

// Fills w x h samples (`stride` elements per row) with values in 0..max. Samples past w in a row are left as they
// are (callers may fill them with a sentinel to catch reads or writes past the row).
void fill_edge_plane(EdgeRng& rng, EdgePattern p, uint32_t max, uint32_t w, uint32_t h, uint16_t* out,
                     ptrdiff_t stride);
// A second plane close to `ref` (a distorted copy): noise, blur, clipping to 0..max, or an unrelated plane.
void fill_edge_distorted(EdgeRng& rng, const uint16_t* ref, uint32_t max, uint32_t w, uint32_t h, ptrdiff_t stride,
                         uint16_t* out);

// A size w x h with min_w <= w <= max_w (and likewise h), biased to the smallest sizes, odd sizes, and widths next to
// multiples of 8, 16 and 32 (vector lengths) plus `radius` (a filter's reach).
void edge_size(EdgeRng& rng, uint32_t min_w, uint32_t max_w, uint32_t min_h, uint32_t max_h, uint32_t radius,
               uint32_t* w, uint32_t* h);

// One of 8, 10, 12, 16 (and 9..15 when `any_depth`), biased to 8 and 16.
unsigned edge_bit_depth(EdgeRng& rng, bool any_depth = false);

// Edge-biased 32-bit values in 0..max (0, max, max - 1, powers of two, uniform).
uint32_t edge_u32(EdgeRng& rng, uint32_t max);

// A host plane as the CPU features read it: 1- or 2-byte samples, a shift (P010 keeps its bits high), a step (2 for
// interleaved chroma) and a stride with padding. `bytes` holds the storage; the sample at (x, y) is
// words[y * stride + x * step] >> shift.
struct EdgeLayout {
  unsigned bytes = 1;
  unsigned shift = 0;
  unsigned step = 1;
  size_t pad = 0;  // extra bytes per row
};
EdgeLayout random_edge_layout(EdgeRng& rng, unsigned bpc);
// Stores w x h samples (in `samples`, packed) in that layout; the bytes between samples and past the row get random
// filler (and with a shift, random low bits), which a correct reader ignores. Returns the stride in bytes.
size_t store_edge_layout(EdgeRng& rng, const EdgeLayout& l, const uint16_t* samples, uint32_t w, uint32_t h,
                         std::vector<uint8_t>* bytes);
std::string edge_layout_name(const EdgeLayout& l);

}  // namespace vmafx::test
