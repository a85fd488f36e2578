// SPDX-License-Identifier: LGPL-2.1-or-later
// CIEDE2000 colour difference, the CPU reference of libvmaf 3.2's "ciede" extractor (ciede.c): one score per frame,
// ciede2000 = 45 - 20 log10(mean over the luma grid of dE00(reference pixel, distorted pixel)). libvmaf's ciede takes
// no options.
//
// Per pixel, for both pictures:
//   chroma      4:4:4 samples as they are; 4:2:0 and 4:2:2 upsampled by libvmaf's nearest-sample copy, reproduced
//               with its quirks (ciede_chroma_source): chroma row y / 2 for both subsamplings, column x / 2 for 4:2:0
//               but column x for 4:2:2, read from libvmaf's picture layout (rows padded with zeros to a multiple of
//               32 samples and stored back to back), so 4:2:2 reads past the end of a row into the padding and the
//               next rows, as libvmaf does
//   Y'CbCr->RGB limited range scaled by 2^(bpc - 8), BT.709 matrix with libvmaf's constants
//   RGB->XYZ    sRGB transfer with libvmaf's 10/255 threshold and pow(x, 2.4), its sRGB->XYZ matrix
//   XYZ->Lab    D65 white, pow(t, 1/3) above 216/24389, rounded to float as libvmaf's xyz_to_lab_map returns it
// then dE00 with kL = 0.65, kC = 1, kH = 4 (libvmaf's weights), in libvmaf's mix of float and double. The sum over
// pixels is a double in raster order.
//
// Every expression keeps libvmaf's types (float or double), its order of operations and its library calls (pow,
// powf, atan2, sin, cos, exp, log10 of the C library; squares as products, as gcc compiles libvmaf's pow(x, 2)), and
// the engine builds with -ffp-contract=off as libvmaf's gcc -std=c11 build does not contract either, so the score is
// libvmaf's to the last bit on the same C library. There is no GPU implementation: the device's transcendental
// functions are not glibc's.
//
// Limits (ciede_check): bit depths 8, 10, 12 and 16 (libvmaf fails on others), no 4:0:0 (libvmaf needs chroma), and
// no 4:2:0 / 4:2:2 geometry where libvmaf's upsampling reads beyond the last chroma plane (odd 4:2:0 heights, among
// others): libvmaf's score then depends on memory it never wrote.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/plane.h"
#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

struct CiedeLab {
  float l = 0, a = 0, b = 0;
};

// One Y'CbCr sample triple of `bpc` bits (8..16) to L*a*b*, libvmaf's get_lab_color.
CiedeLab ciede_lab(double y, double u, double v, unsigned bpc);
// dE00 of two colours with libvmaf's weights; ciede2000(c, c) is +0.
float ciede2000(const CiedeLab& ref, const CiedeLab& dist);
// The frame's score from the raster-order sum of the w x h pixels' dE00.
double ciede_score(double de00_sum, uint32_t w, uint32_t h);

// Where libvmaf's upsampling takes output column x of a luma-sized chroma row: `rows` rows below the row it starts
// from, at `col`; col < 0 is the zero padding of libvmaf's picture rows.
struct CiedeChromaSource {
  uint32_t rows = 0;
  int32_t col = 0;
};
// libvmaf's padded chroma row length (samples): the chroma width rounded up to a multiple of 32.
uint32_t ciede_padded_chroma_width(Chroma c, uint32_t luma_width);
// The source of every output column of a w-wide picture (4:2:0 or 4:2:2).
std::vector<CiedeChromaSource> ciede_chroma_sources(Chroma c, uint32_t luma_width);

// Ok when libvmaf scores this geometry with a defined result; unsupported naming the limit otherwise.
Status ciede_check(uint32_t w, uint32_t h, Chroma c, unsigned bpc);

// The extractor: one object per thread; init sizes every buffer, compute allocates nothing.
class Ciede {
 public:
  Status init(uint32_t w, uint32_t h, Chroma c, unsigned bpc);
  // Host pictures of the geometry given to init (ref and dist layouts may differ).
  Status compute(const PictureView& ref, const PictureView& dist, double* score);
  // The frame's dE00 sum (raster order), for tests that compare sums.
  Status de00_sum(const PictureView& ref, const PictureView& dist, double* sum);

 private:
  struct Planes {
    Plane y, u, v;
  };
  Status planes_of(const PictureView& p, const char* which, Planes* out) const;
  // Row `y` of a picture's Y, U and V at luma width, as libvmaf's 4:4:4 copy holds it.
  void load_row(const Planes& p, uint32_t y, uint16_t* ys, uint16_t* us, uint16_t* vs) const;

  // L*a*b* of recently seen sample triples: a direct-mapped cache (ciede_lab is a pure function of the triple, so
  // a hit gives the same bits). Natural pictures repeat triples often: about 80 % hits on the 1080p public clip with
  // 2^14 slots (384 KiB: this and the pair cache stay in a core's L2; 2^16 slots hit about 90 % and were not
  // measurably faster).
  struct LabSlot {
    uint64_t key = ~uint64_t(0);  // Y << 32 | Cb << 16 | Cr; the initial key is no triple's
    CiedeLab lab;
  };
  static constexpr unsigned kLabCacheBits = 14;
  CiedeLab lab_of(uint64_t key);
  // dE00 of recently seen (reference triple, distorted triple) pairs, the same way (about a third hit at 1080p).
  struct PairSlot {
    uint64_t ref = ~uint64_t(0), dist = 0;
    float de00 = 0;
  };
  static constexpr unsigned kPairCacheBits = 14;

  bool ready_ = false;
  uint32_t w_ = 0, h_ = 0;
  Chroma chroma_ = Chroma::k420;
  unsigned bpc_ = 8;
  std::vector<CiedeChromaSource> sources_;
  std::vector<uint16_t> rows_;  // six rows of w samples: reference Y, U, V, distorted Y, U, V
  std::vector<LabSlot> lab_cache_;
  std::vector<PairSlot> pair_cache_;
};

}  // namespace vmafx::cpu
