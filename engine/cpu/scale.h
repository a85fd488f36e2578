// SPDX-License-Identifier: LGPL-2.1-or-later
// The scaler VMAF users apply to a smaller distorted rendition before scoring it: FFmpeg's swscale as Debian 12's
// FFmpeg 5.1 runs `-vf scale=W:H:flags=bicubic` (or bilinear, lanczos) from a planar YUV format to the same format
// on x86-64, reproduced output sample for output sample. Each plane is scaled on its own at its stored size (chroma:
// ceil(w / 2) for subsampled axes); swscale's default chroma siting centres every plane's samples, so chroma is
// scaled exactly as luma is, with its own sizes.
//
// Stages, as swscale runs them:
//   1. filters (init): one per axis and plane size, integer coefficients built as swscale builds them (bicubic
//      B = 0, C = 0.6; bilinear; Lanczos with 3 lobes), trimmed of near-zero taps, padded to x86's tap alignment
//      (4 horizontally, 2 vertically), folded at the borders and normalised to 14-bit (horizontal) and 12-bit
//      (vertical) fixed point with error diffusion;
//   2. horizontal: every source row is filtered into an intermediate row of the output width: 15-bit for 8..14-bit
//      input (8-bit: sum >> 7; 9..14-bit: sum >> (bpc - 1)), 19-bit for 16-bit input (sum >> 11), clamped above;
//   3. vertical: each output row combines `taps` intermediate rows. 8-bit output below the last two luma rows uses
//      the x86 filter FFmpeg selects there (16-bit products keeping their high half, a per-tap-count rounding term,
//      >> 3); the last two luma rows (and the chroma rows written with them) use swscale's C filter (32-bit sums,
//      rounding 2^18, >> 19), as FFmpeg switches to it there. 9..14-bit and 16-bit output use the C filters, which
//      FFmpeg's SIMD versions equal. Results are clamped to the sample range; no dithering applies (same depth).
// Everything is integer except Lanczos's coefficients (double sin, as swscale), so results are exact on any host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpu/plane.h"
#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

enum class ScaleKernel : uint8_t { bicubic, bilinear, lanczos };
const char* scale_kernel_name(ScaleKernel k);

inline constexpr int kScaleHorizontalOne = 1 << 14;  // sum of a horizontal filter's coefficients
inline constexpr int kScaleVerticalOne = 1 << 12;    // sum of a vertical filter's coefficients
// swscale's longest filter (a longer one makes it cascade two scalers, which this scaler does not reproduce):
// downscaling by more than about 60x (bicubic) is refused.
inline constexpr int kScaleMaxTaps = 255;

// One axis of the separable filter: output n reads `taps` source samples from pos[n] on, weights coef[n * taps ..].
// Taps past the end of the source carry weight 0.
struct ScaleAxis {
  uint32_t src = 0, dst = 0;
  int taps = 0;
  std::vector<int32_t> pos;   // dst entries, 0 <= pos < src
  std::vector<int16_t> coef;  // dst * taps entries
};

// Stage 1: swscale's filter of one axis from `src` samples to `dst` samples. vertical: the 12-bit vertical filter,
// else the 14-bit horizontal one.
Status scale_build_axis(ScaleKernel k, uint32_t src, uint32_t dst, bool vertical, ScaleAxis* out);

// ---- Stage 2: horizontal ------------------------------------------------------------------------------------------

// Intermediate values are 15-bit for 8..14-bit samples, 19-bit for 16-bit samples.
inline bool scale_wide(unsigned bpc) { return bpc > 14; }

// The intermediate value of a horizontal tap sum `sum` (sum of sample * coefficient; for 16-bit samples the sum
// wraps as a 32-bit int, as swscale's does).
inline int32_t scale_h_finish(int32_t sum, unsigned bpc) {
  if (bpc == 8) {
    const int32_t v = sum >> 7;
    return v < 32767 ? v : 32767;
  }
  if (bpc <= 14) {
    const int32_t v = sum >> (bpc - 1);
    return v < 32767 ? v : 32767;
  }
  const int32_t v = sum >> 11;
  return v < (1 << 19) - 1 ? v : (1 << 19) - 1;
}

// Filters row y of `p` (p.w samples of p.bpc bits; bytes, shift and step as Plane describes) into h.dst
// intermediate values.
void scale_h_row(const Plane& p, uint32_t y, const ScaleAxis& h, int32_t* out);

// ---- Stage 3: vertical --------------------------------------------------------------------------------------------

// Which vertical filter writes an output row.
enum class ScaleVMode : uint8_t {
  one_tap,  // one tap (no vertical scaling): the intermediate value rounded to the sample
  x86,      // 8-bit output, two or more taps, before the last two luma rows: FFmpeg's x86 filter
  c,        // swscale's C filter
};
// Mode of output row `row` of a plane whose rows are written with luma row row << vsub (vsub: 1 for 4:2:0 chroma,
// else 0) in a picture of `luma_rows` output rows.
ScaleVMode scale_v_mode(unsigned bpc, int taps, uint32_t row, unsigned vsub, uint32_t luma_rows);

// The x86 filter's rounding term for `taps` taps: (64 + 8 * (taps - 1)) >> 4.
inline int32_t scale_x86_bias(int taps) { return (64 + 8 * (taps - 1)) >> 4; }
// One tap of the x86 filter: the high 16 bits of the signed 16 x 16-bit product.
inline int32_t scale_x86_tap(int16_t coef, int32_t v) { return (int32_t(coef) * int32_t(int16_t(v))) >> 16; }
// The x86 filter's result from its 16-bit accumulator (bias + taps, wrapping at 16 bits).
inline uint32_t scale_x86_finish(int32_t acc) {
  const int32_t v = int32_t(int16_t(uint16_t(uint32_t(acc)))) >> 3;
  return v < 0 ? 0u : v > 255 ? 255u : uint32_t(v);
}

// The output sample of one column: `v[t]` is the intermediate value of tap t (rows pos .. pos + taps - 1), coef the
// row's weights.
uint32_t scale_v_sample(ScaleVMode mode, unsigned bpc, const int32_t* v, const int16_t* coef, int taps);

// ---- The scaler ---------------------------------------------------------------------------------------------------

// Output of Scaler::scale(): planar buffers of the destination size (8-bit bytes or 16-bit words, shift 0) and the
// intermediate rows. One per thread; reused from frame to frame.
struct ScaledPicture {
  std::vector<uint8_t> planes[3];
  std::vector<int32_t> tmp;
  PictureView view;  // host memory, planes above
};

// Scales pictures of one geometry to another: same chroma subsampling and bit depth. Immutable after init(), so one
// Scaler serves every thread.
class Scaler {
 public:
  Status init(ScaleKernel kernel, uint32_t src_w, uint32_t src_h, uint32_t dst_w, uint32_t dst_h, Chroma chroma,
              unsigned bpc);
  // Every plane of `src` (host memory, the source geometry) into out->view (the destination geometry).
  Status scale(const PictureView& src, ScaledPicture* out) const;
  // Plane `index` (0: luma, 1, 2: chroma) of the source size into `dst` (destination plane size; bytes or words as
  // the depth says), `tmp` holding at least tmp_size(index) values.
  void scale_plane(unsigned index, const Plane& src, uint8_t* dst, ptrdiff_t dst_stride, int32_t* tmp) const;

  size_t tmp_size(unsigned index) const;
  const ScaleAxis& horizontal(unsigned index) const { return h_[index == 0 ? 0 : 1]; }
  const ScaleAxis& vertical(unsigned index) const { return v_[index == 0 ? 0 : 1]; }
  unsigned vsub(unsigned index) const { return index == 0 ? 0u : (chroma_ == Chroma::k420 ? 1u : 0u); }
  uint32_t dst_height() const { return dst_h_; }
  unsigned bpc() const { return bpc_; }
  Chroma chroma() const { return chroma_; }
  ScaleKernel kernel() const { return kernel_; }

 private:
  ScaleKernel kernel_ = ScaleKernel::bicubic;
  uint32_t src_w_ = 0, src_h_ = 0, dst_w_ = 0, dst_h_ = 0;
  Chroma chroma_ = Chroma::k420;
  unsigned bpc_ = 0;
  ScaleAxis h_[2], v_[2];  // luma, chroma
};

}  // namespace vmafx::cpu
