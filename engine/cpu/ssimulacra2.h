// SPDX-License-Identifier: LGPL-2.1-or-later
// SSIMULACRA 2.1 (Cloudinary's perceptual metric; its reference tool is cloudinary/ssimulacra2, the same code as
// libjxl's tools/ssimulacra2.cc) on Y'CbCr video, the CPU reference of the "ssimulacra2" feature (score
// `ssimulacra2`, in -inf..100, 100 for identical pictures).
//
// Per frame, for the reference and the distorted picture:
//   1. linear RGB: each pixel's Y'CbCr (chroma of subsampled pictures by nearest sample: x >> 1, y >> 1, the last
//      sample of libvmaf's floor-size chroma for the last column / row of an odd size; 4:0:0 as neutral chroma) to
//      R'G'B' with the stream's matrix (BT.601, BT.709, BT.2020 non-constant) and range (limited: Y' 16..235, C
//      16..240 scaled by 2^(bits - 8); full: 0..2^bits - 1), clamped to [0, 1], then linearised with the sRGB
//      transfer function, as the reference tool does with a PNG of those R'G'B' values (an untagged PNG is sRGB);
//   2. six scales (fewer for small pictures: scale s > 0 exists when scale s - 1 has at least 8x8 pixels): scale
//      0 is the picture, each next one the 2x2 box average of the previous one's linear RGB;
//   3. per scale: XYB (shifted to positive values), and per channel the recursive Gaussian (sigma 1.5) of the
//      two images, their squares and their product; the SSIM' map (1 - SSIM without the luminance denominator,
//      clamped at 0) and the edge-difference map's ringing and blurring parts; the mean and the 4-norm of each;
//   4. the score: SSIMULACRA 2.1's weighted sum of the 108 norms (6 scales x 3 channels x 2 norms x 3 maps, the
//      weights taken in the reference's order, which with fewer scales shifts them as it does), times
//      0.9562382616834844, the cubic 2.326765642916932 x - 0.020884521182843837 x^2 + 6.248496625763138e-05 x^3,
//      then 100 - 10 x^0.6276336467831387 (100 when x <= 0).
// The per-pixel arithmetic is kernels/ssimulacra2_impl.h's, shared with the GPU (hip/ssimulacra2_gpu.h); the sums
// over a scale are a fixed order (segments of a row, the row, the rows in order: see that header), so the GPU's
// scores equal these bit for bit. Against the reference tool: within 1e-4 per frame (docs/features.md says how it
// was compared and the maxima). Pictures need at least 8x8 pixels (the reference tool refuses smaller ones); depths
// 8 to 16 bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hip/kernels/ssimulacra2_impl.h"
#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

enum class YuvMatrix : uint8_t { bt601, bt709, bt2020 };

struct Ssimulacra2Options {
  YuvMatrix matrix = YuvMatrix::bt709;
  bool full_range = false;
};

// The feature's options as text: yuv_matrix auto | bt601 | bt709 | bt2020, yuv_range auto | limited | full. auto
// (what the engine assumes of a stream without colour tags): BT.709 above 576 rows, BT.601 up to 576 rows (SD);
// limited range. Errc::invalid_argument naming the option for another value.
Status ssimulacra2_resolve(const std::string& matrix, const std::string& range, uint32_t width, uint32_t height,
                           Ssimulacra2Options* out);
const char* yuv_matrix_name(YuvMatrix m);

// The conversion constants for a depth, and the XYB and blur constants.
S2Yuv ssimulacra2_yuv(const Ssimulacra2Options& o, unsigned bpc);
const S2Constants& ssimulacra2_constants();

inline constexpr uint32_t kSsimulacra2MinSize = 8;
// Ok for pictures of at least 8x8 pixels and 8 to 16 bits (the message does not name the feature).
Status ssimulacra2_check(uint32_t width, uint32_t height, unsigned bpc);

// The scales of a w x h picture and their sizes (ceil halvings).
struct Ssimulacra2Scales {
  int count = 0;
  uint32_t w[kS2Scales] = {}, h[kS2Scales] = {};
  uint32_t rows() const;  // the rows of every scale together
};
Ssimulacra2Scales ssimulacra2_scales(uint32_t width, uint32_t height);

// Per scale, per channel: the averages the score weighs, from the six totals of a channel (kS2Terms doubles: the
// ssim, ssim^4, ringing, ringing^4, blurring, blurring^4 sums over the scale's w x h pixels).
struct Ssimulacra2Norms {
  double ssim[2 * kS2Channels];   // channel c: [2c] mean, [2c + 1] 4-norm
  double edge[4 * kS2Channels];   // channel c: [4c] ringing mean, [4c + 1] ringing 4-norm, [4c + 2] blurring mean,
                                  // [4c + 3] blurring 4-norm
};
void ssimulacra2_norms(const double totals[kS2Channels][kS2Terms], uint32_t w, uint32_t h, Ssimulacra2Norms* out);
double ssimulacra2_score(const Ssimulacra2Norms* scales, int count);

// From every scale's row sums (rows of scale 0, then scale 1, ...; per row kS2Channels x kS2Terms doubles, channel
// major) to the score: the rows added in order per scale, then the norms and the score (host finishing, also the
// GPU's).
double ssimulacra2_from_rows(const Ssimulacra2Scales& sc, const double* row_sums);

class Ssimulacra2 {
 public:
  static constexpr unsigned kOutputs = 1;  // ssimulacra2
  Status init(uint32_t width, uint32_t height, unsigned bpc, Chroma chroma, const Ssimulacra2Options& opt);
  // Host pictures of the geometry of init.
  Status compute(const PictureView& ref, const PictureView& dist, double* out);

  // Stages (the GPU's oracle): a picture's linear RGB (3 planes of w x h, planar); after compute, every scale's
  // row sums (ssimulacra2_from_rows' layout).
  Status linear_rgb(const PictureView& v, std::vector<float>* rgb) const;
  // The R'G'B' before linearisation (clamped to [0, 1]; same layout): what a PNG or PFM of the picture holds for
  // the reference tool.
  Status encoded_rgb(const PictureView& v, std::vector<float>* rgb) const;
  const std::vector<double>& row_sums() const { return rows_; }
  const Ssimulacra2Scales& scales() const { return scales_; }
  const S2Yuv& yuv() const { return yuv_; }

 private:
  Status check_view(const PictureView& v, const char* which) const;
  Status convert(const PictureView& v, bool linear, std::vector<float>* rgb) const;
  void blur(const float* in, float* out, uint32_t w, uint32_t h);

  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 0;
  Chroma chroma_ = Chroma::k420;
  S2Yuv yuv_{};
  Ssimulacra2Scales scales_;
  std::vector<float> lin1_, lin2_, next_, x1_, x2_, mul_, tmp_, s11_, s22_, s12_, mu1_, mu2_, colstate_;
  std::vector<double> rows_;
};

}  // namespace vmafx::cpu
