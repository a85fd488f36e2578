// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer VIF, the CPU reference of libvmaf's "vif" extractor (integer_vif.c, plain C path), bit-exact for 8..16-bit
// luma. Outputs integer_vif_scale0..3 (with vif_enhn_gain_limit != 100 libvmaf suffixes them, e.g. "_egl_1").
//
// The computation is split into stages that work on plain buffers with explicit strides, so a GPU port can be checked
// stage by stage against them. All images below are uint16 samples; strides are counted in elements, not bytes.
//
//   scale 0 image: the luma samples (bpc bits).   scale s > 0 image: the decimated mean of scale s-1 (16 bits).
//   For each scale s (0..3):
//     1. vif_vertical_row    column filter with kVifFilter[s] of ref, dist, ref², dist², ref·dist
//     2. vif_horizontal_row  row filter of those five rows with the same taps: the local means mu1/mu2 (Q16) and
//                            the filtered second moments xx/yy/xy; (1 + 2 = vif_filter_plane for a whole plane)
//     3. vif_accumulate      per-pixel statistic (variances, gain, log2 table) summed into a VifAccum of integers;
//                            vif_num_den turns the sums into libvmaf's float num/den, vif_scale_score into the score
//     4. vif_decimate        (s < 3) filter ref/dist with kVifFilter[s + 1], keep even rows and columns:
//                            the (w/2) x (h/2) image of scale s + 1
// Edges are mirrored without repeating the edge sample: index -k reads k, index n-1+k reads n-1-k.
// The VifAccum members are exact integers, so partial sums (rows, tiles, GPU blocks) may be added in any order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpu/plane.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

inline constexpr unsigned kVifScales = 4;
// Smallest luma size accepted: at scale 3 (w/8 x h/8) the 3-tap filter must find a mirrored neighbour, so both
// sides need at least 2 samples there. libvmaf itself has no check and reads outside the picture below this size.
inline constexpr uint32_t kVifMinSize = 16;
inline constexpr double kVifDefaultEnhnGainLimit = 100.0;
// Noise variance of the model in the Q16 variance domain (2.0 in pixel units squared).
inline constexpr int32_t kVifSigmaNsq = 65536 << 1;

// Filter taps of each scale, Q16 (each row sums to 65536); kVifFilterWidth[s] taps are used, the rest are 0.
inline constexpr int kVifFilterWidth[kVifScales] = {17, 9, 5, 3};
inline constexpr uint16_t kVifFilter[kVifScales][17] = {
    {489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640, 935, 489},
    {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244},
    {3571, 16004, 26386, 16004, 3571},
    {10904, 43728, 10904},
};

// libvmaf's fixed-point log2 table: 65536 entries, entry i for 32767 <= i <= 65535 is round(log2(i) * 2048) computed
// in float as libvmaf does, the others 0 (never read). Built once, shared, read-only.
const uint16_t* vif_log2_table();

// Rounding of the vertical pass of a scale: mu = (sum + mu_round) >> mu_shift, sq = (sum + sq_round) >> sq_shift.
// Scale 0 brings bpc-bit samples to 16-bit means and 16-bit·16-bit moments (8-bit: no shift of the moments);
// higher scales read 16-bit images and shift both by 16.
struct VifRounding {
  unsigned mu_shift;
  uint32_t mu_round;
  unsigned sq_shift;
  uint64_t sq_round;
};
VifRounding vif_vertical_rounding(unsigned scale, unsigned bpc);

// Output of the vertical pass for one row, w entries each.
//   mu1, mu2: (sum f·x + mu_round) >> mu_shift, stored as uint16 then widened (< 2^16)
//   rr, dd, rd: (sum f·x·y + sq_round) >> sq_shift, kept to 32 bits (< 2^32)
struct VifVerticalRow {
  uint32_t* mu1;
  uint32_t* mu2;
  uint32_t* rr;
  uint32_t* dd;
  uint32_t* rd;
};
struct VifVerticalRowConst {
  const uint32_t* mu1;
  const uint32_t* mu2;
  const uint32_t* rr;
  const uint32_t* dd;
  const uint32_t* rd;
};

// Output of the horizontal pass, per pixel:
//   mu1, mu2: sum f·mu (Q16 local mean, not shifted: < 2^32)
//   xx, yy, xy: (sum f·rr + 32768) >> 16 (and dd, rd), truncated to 32 bits
struct VifFilteredRow {
  uint32_t* mu1;
  uint32_t* mu2;
  uint32_t* xx;
  uint32_t* yy;
  uint32_t* xy;
};
struct VifFilteredRowConst {
  const uint32_t* mu1;
  const uint32_t* mu2;
  const uint32_t* xx;
  const uint32_t* yy;
  const uint32_t* xy;
};

// The same five values for a whole w x h scale, each plane `stride` elements per row.
struct VifFilteredPlanes {
  uint32_t* mu1;
  uint32_t* mu2;
  uint32_t* xx;
  uint32_t* yy;
  uint32_t* xy;
  ptrdiff_t stride;
};

// Integer sums of one scale (libvmaf's four accumulators).
//   den_log: sum over pixels with sigma1_sq >= kVifSigmaNsq of log2(kVifSigmaNsq + sigma1_sq) - 17, Q11
//   num_log: over those pixels with sigma12 > 0 and sigma2_sq > 0, log2(sv_sq + nsq + g²·sigma1_sq) - log2(sv_sq
//            + nsq), Q11
//   num_non_log: sum of sigma2_sq (>= 0) over the other pixels; den_non_log: how many they are
struct VifAccum {
  int64_t num_log = 0;
  int64_t den_log = 0;
  int64_t num_non_log = 0;
  int64_t den_non_log = 0;

  VifAccum& operator+=(const VifAccum& o) {
    num_log += o.num_log;
    den_log += o.den_log;
    num_non_log += o.num_non_log;
    den_non_log += o.den_non_log;
    return *this;
  }
  bool operator==(const VifAccum& o) const {
    return num_log == o.num_log && den_log == o.den_log && num_non_log == o.num_non_log &&
           den_non_log == o.den_non_log;
  }
};

// Stage 1: vertical pass of `scale` for output row y of a w x h image (rows mirrored at the edges).
void vif_vertical_row(unsigned scale, unsigned bpc, const uint16_t* ref, const uint16_t* dist, ptrdiff_t stride,
                      uint32_t w, uint32_t h, uint32_t y, const VifVerticalRow& out);

// Stage 2: horizontal pass of `scale` over one vertical row (columns mirrored at the edges).
void vif_horizontal_row(unsigned scale, const VifVerticalRowConst& in, uint32_t w, const VifFilteredRow& out);

// Stages 1 + 2 for every row of a scale. `scratch` holds 5 * w entries.
void vif_filter_plane(unsigned scale, unsigned bpc, const uint16_t* ref, const uint16_t* dist, ptrdiff_t stride,
                      uint32_t w, uint32_t h, const VifFilteredPlanes& out, uint32_t* scratch);

// Stage 3: adds the statistic of n pixels to *acc. enhn_gain_limit caps the gain g (libvmaf's option, >= 1).
void vif_accumulate(const VifFilteredRowConst& in, uint32_t n, double enhn_gain_limit, VifAccum* acc);
VifAccum vif_accumulate_plane(const VifFilteredPlanes& in, uint32_t w, uint32_t h, double enhn_gain_limit);

// libvmaf's num and den of a scale (computed in double from the sums, stored as float), and the score num / den,
// divided in float as libvmaf does before it widens the result to double.
void vif_num_den(const VifAccum& acc, float* num, float* den);
double vif_scale_score(float num, float den);

// Stage 4: the image of scale + 1 from the image of `scale` (0..2). Filters with kVifFilter[scale + 1] (vertical
// rounding of vif_vertical_rounding(scale > 0 ? 1 : 0, bpc) narrowed to uint16, horizontal (sum + 32768) >> 16
// narrowed to uint16) and keeps even rows and columns: out is (w / 2) x (h / 2). `scratch` holds 2 * w entries.
void vif_decimate(unsigned scale, unsigned bpc, const uint16_t* ref, const uint16_t* dist, ptrdiff_t stride,
                  uint32_t w, uint32_t h, uint16_t* ref_out, uint16_t* dist_out, ptrdiff_t out_stride,
                  uint32_t* scratch);

// Copies a host plane into uint16 samples (word >> shift, every `step`-th word), `stride` elements per row.
void vif_load_plane(const Plane& p, uint16_t* out, ptrdiff_t stride);

struct VifOptions {
  double enhn_gain_limit = kVifDefaultEnhnGainLimit;  // libvmaf's vif_enhn_gain_limit, 1.0 ..100.0
};

struct VifScores {
  double scale[kVifScales];  // integer_vif_scale0..3
};

// One object per thread: it owns the scratch images of one picture size.
class Vif {
 public:
  static Status check_size(uint32_t w, uint32_t h);

  Status init(uint32_t w, uint32_t h, unsigned bpc, const VifOptions& opts);
  // ref and dist must be w x h with the bit depth given to init. When accums is not null it receives the
  // kVifScales sums (for parity tests of other implementations).
  Status compute(const Plane& ref, const Plane& dist, VifScores* out, VifAccum* accums = nullptr);

 private:
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 0;
  double enhn_gain_limit_ = kVifDefaultEnhnGainLimit;
  std::vector<uint16_t> images_;  // ref and dist of the current scale, then ref and dist of the next one
  std::vector<uint32_t> rows_;    // 5 vertical rows + 5 filtered rows, w entries each
};

}  // namespace vmafx::cpu
