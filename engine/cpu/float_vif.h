// SPDX-License-Identifier: LGPL-2.1-or-later
// Float VIF, the CPU reference of libvmaf 3.2's "float_vif" extractor (float_vif.c, vif.c, vif_tools.c, plain C
// path), with every option libvmaf accepts. Outputs VMAF_feature_vif_scale0..3_score and the debug outputs (vif,
// vif_num, vif_den, vif_num_scale0..3, vif_den_scale0..3).
//
// Every operation keeps libvmaf's types and order: float images and sums, the double steps where libvmaf mixes in
// a double (sigma_nsq, the gain limit test), libvmaf's polynomial log2 approximation. Per frame:
//   0. the float picture (float_picture.h), rescaled by vif_prescale with vif_prescale_method when it is not 1
//   per scale s (0..3; from 1 with vif_skip_scale0):
//   1. s > 0: the image of s - 1 filtered with the Gaussian of scale s (vertical pass, then horizontal, edges
//      mirrored without repeating the edge sample), even rows and columns kept: (w / 2) x (h / 2)
//   2. the same filter on ref, dist, ref², dist², ref·dist of the scale's image: mu1, mu2, xx, yy, xy
//   3. the per-pixel statistic (num, den), summed in float per row, the row sums summed in float
// The row sums are the only reduction; float_vif_sum_rows turns them into libvmaf's per-scale num/den, so another
// implementation that produces the same per-pixel values and row sums (the GPU) gives the same scores bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cpu/plane.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

inline constexpr unsigned kFloatVifScales = 4;
// libvmaf's filter buffer holds 128 taps; the largest kernel scale (360 / 97) needs 65.
inline constexpr int kFloatVifMaxTaps = 128;

// vif_prescale_method, in libvmaf's enum order.
enum class VifScaleMethod : uint8_t { nearest = 0, bicubic = 1, lanczos4 = 2, bilinear = 3 };
// "nearest", "bilinear", "bicubic", "lanczos4" (libvmaf's spellings); anything else is invalid_argument.
Status vif_scale_method_from_name(const std::string& name, VifScaleMethod* out);
const char* vif_scale_method_name(VifScaleMethod m);
// libvmaf's bilinear scaler keeps its column tables on the stack: outputs wider than this are refused.
inline constexpr int kVifBilinearMaxWidth = 7680;

struct FloatVifOptions {
  double enhn_gain_limit = 100.0;  // vif_enhn_gain_limit, [1, 100]
  double kernelscale = 1.0;        // vif_kernelscale: one of libvmaf's 21 accepted values (float_vif_kernelscale_ok)
  double prescale = 1.0;           // vif_prescale, [0.1, 4]: the picture is scaled to round(w * ps) x round(h * ps)
  VifScaleMethod prescale_method = VifScaleMethod::nearest;  // vif_prescale_method
  double scale_min_val[3] = {0.0, 0.0, 0.0};                 // vif_scale1..3_min_val, [0, 1]: lower clip of the score
  double sigma_nsq = 2.0;          // vif_sigma_nsq, [0, 5]: the neural noise variance
  bool skip_scale0 = false;        // vif_skip_scale0: scale 0 reports 0 (num 0, den -1) and joins no sum
};

struct FloatVifScores {
  double scale[kFloatVifScales] = {};  // VMAF_feature_vif_scale0..3_score
  double vif = 0, num = 0, den = 0;    // debug: vif, vif_num, vif_den
  double num_scale[kFloatVifScales] = {};  // debug: vif_num_scale0..3
  double den_scale[kFloatVifScales] = {};  // debug: vif_den_scale0..3
};

// ---- the filters -----------------------------------------------------------------------------------------------

// libvmaf's check of vif_kernelscale (in float, within 1e-3 of one of its 21 values).
bool float_vif_kernelscale_ok(double kernelscale);
// Taps of the Gaussian of scale s: max(odd ceiling of (2^(4-s) + 1) * ks, 3), sigma = taps / 5, normalised in float.
int float_vif_filter_width(unsigned scale, double kernelscale);
void float_vif_filter(unsigned scale, double kernelscale, float* taps);

// Mirror without repeating the edge sample: -k reads k, n - 1 + k reads n - 1 - k (valid while k < n).
inline int float_vif_mirror(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); }

// What each filter pass sums: the image, its square, or the product of two images (ref·dist).
enum class VifFilterKind : uint8_t { plain, square, product };

// One row of the vertical pass: out[x] = sum_k taps[k] * v(mirror(y - fw/2 + k), x) for x < w, where v is src, src²
// or src·src2 (src2 only for `product`).
void float_vif_vertical_row(const float* taps, int fw, VifFilterKind kind, const float* src, const float* src2,
                            ptrdiff_t stride, int w, int h, int y, float* out);
// One row of the horizontal pass over a vertical row: out[x] = sum_k taps[k] * row[mirror(x - fw/2 + k)].
void float_vif_horizontal_row(const float* taps, int fw, const float* row, int w, float* out);
// The same for one column x.
float float_vif_horizontal_at(const float* taps, int fw, const float* row, int w, int x);
// Both passes over a w x h image (libvmaf's vif_filter1d_s / _sq_s / _xy_s); `tmp` holds w floats.
void float_vif_filter_plane(const float* taps, int fw, VifFilterKind kind, const float* src, const float* src2,
                            ptrdiff_t src_stride, int w, int h, float* dst, ptrdiff_t dst_stride, float* tmp);

// ---- the statistic -------------------------------------------------------------------------------------------

// Constants of the statistic derived once from the options, as libvmaf derives them.
struct FloatVifStatConsts {
  float enhn_gain_limit;  // (float) vif_enhn_gain_limit
  double sigma_nsq;
  float sigma_max_inv;    // powf(sigma_nsq, 2) / 255²
};
FloatVifStatConsts float_vif_stat_consts(double enhn_gain_limit, double sigma_nsq);
// libvmaf's log2 approximation (a degree-8 polynomial of the mantissa, in float).
float float_vif_log2(float x);
// The statistic of one pixel from its filtered values.
void float_vif_stat(float mu1, float mu2, float xx, float yy, float xy, const FloatVifStatConsts& c, float* num,
                    float* den);
// The num and den sums of a scale from its row sums: accum = 0, accum += row[i] in float, in row order.
float float_vif_sum_rows(const float* rows, int n);

// ---- prescaling ----------------------------------------------------------------------------------------------

// libvmaf's vif_scale_frame_s: src (sw x sh) to dst (dw x dh) with the method; equal sizes copy.
void float_vif_scale_frame(VifScaleMethod m, const float* src, int sw, int sh, ptrdiff_t src_stride, float* dst,
                           int dw, int dh, ptrdiff_t dst_stride);
// Per output column (or row) of the bilinear scaler: the two source indices and the weight of the second, exactly
// as libvmaf's table (the weight is taken against the mirrored first index).
void float_vif_bilinear_taps(int src_n, int dst_n, int i, int* i1, int* i2, float* d);
// The bilinear value from two source rows and a column's taps (libvmaf's order of products and sums).
inline float float_vif_bilinear_value(const float* r1, const float* r2, int x1, int x2, float dx, float dy) {
  return (1 - dy) * (1 - dx) * r1[x1] + (1 - dy) * dx * r1[x2] + dy * (1 - dx) * r2[x1] + dy * dx * r2[x2];
}
// Per output column (or row) of the bicubic and lanczos4 scalers: the first source index (before mirroring) and the
// kernel weights of taps -1..2 (bicubic) or -4..4 (lanczos4), computed as libvmaf computes them per pixel.
void float_vif_bicubic_taps(int src_n, int dst_n, int i, int* base, float w[4]);
void float_vif_lanczos_taps(int src_n, int dst_n, int i, int* base, float w[9]);
// The source index of position i of a row of n samples in the interpolating scalers (mirrored in float: -k reads k,
// n - 1 + k reads n - 1 - k).
int float_vif_scaler_mirror(int i, int n);
// The scaler's per-position tables along one axis (src_n samples to dst_n), for implementations that apply them
// pixel by pixel (the GPU): nearest: idx[i] = (int)(i * ratio), k = 1; bilinear: idx[2 i], idx[2 i + 1] and
// w[i] (float_vif_bilinear_taps), k = 2; bicubic / lanczos4: the k = 4 / 9 mirrored source indices idx[k i + j] and
// weights w[k i + j]. Equal sizes need no table (the scaler copies).
void float_vif_scale_tables(VifScaleMethod m, int src_n, int dst_n, std::vector<int32_t>* idx, std::vector<float>* w,
                            int* k);
// Scaled size of a side: (int)(n * prescale + 0.5).
int float_vif_scaled_size(uint32_t n, double prescale);

// ---- the extractor -------------------------------------------------------------------------------------------

// The sizes of every scale's image for a (prescaled) w x h picture: (w >> s) x (h >> s).
struct FloatVifGeometry {
  int w[kFloatVifScales], h[kFloatVifScales];
  int taps[kFloatVifScales];
};

// The row sums of every scale (empty for a skipped scale 0): num[s][y], den[s][y].
struct FloatVifRowSums {
  std::vector<float> num[kFloatVifScales], den[kFloatVifScales];
};

// One object per thread; init allocates every buffer, compute allocates nothing.
class FloatVif {
 public:
  // Options and size (after prescaling, every filter's mirrored taps must stay inside its image: libvmaf reads
  // outside its buffers there). w x h is the picture's size.
  static Status check(uint32_t w, uint32_t h, unsigned bpc, const FloatVifOptions& opts, FloatVifGeometry* geo);

  Status init(uint32_t w, uint32_t h, unsigned bpc, const FloatVifOptions& opts);
  // ref and dist: luma planes of the init size and depth. When row_sums is not null it receives every scale's
  // row sums (for parity tests of other implementations).
  Status compute(const Plane& ref, const Plane& dist, FloatVifScores* out, FloatVifRowSums* row_sums = nullptr);

  const FloatVifGeometry& geometry() const { return geo_; }
  const float* taps(unsigned scale) const { return taps_[scale]; }
  // The images compute() last worked on (after prescaling), for parity tests: scale s, ref or dist.
  const float* image(unsigned scale, bool dist) const;
  ptrdiff_t image_stride() const { return stride_; }

 private:
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 0;
  FloatVifOptions opts_;
  FloatVifGeometry geo_{};
  FloatVifStatConsts consts_{};
  float taps_[kFloatVifScales][kFloatVifMaxTaps] = {};
  ptrdiff_t in_stride_ = 0;  // the picture's float copy
  ptrdiff_t stride_ = 0;     // every scale's buffers (the prescaled width)
  std::vector<float> in_;     // ref, dist before prescaling (only when prescale != 1)
  std::vector<float> img_;    // per scale: ref, dist
  std::vector<float> filt_;   // mu1, mu2, xx, yy, xy of one scale
  std::vector<float> tmp_;    // one row
  std::vector<float> rows_;   // num, den row sums of one scale
};

// The extractor's outputs in libvmaf's order (its provided_features): VMAF_feature_vif_scale0..3_score, vif,
// vif_num, vif_den, vif_num_scale0, vif_den_scale0, ..., vif_num_scale3, vif_den_scale3.
inline constexpr unsigned kFloatVifOutputs = 15;
extern const char* const kFloatVifOutputNames[kFloatVifOutputs];
void float_vif_outputs(const FloatVifScores& s, double out[kFloatVifOutputs]);

// Score of a scale from its sums, as libvmaf's extract: num / den (scale 0: 0 when skipped; scales 1..3 clipped
// below at their minimum), and the debug totals.
void float_vif_scores(const float num[kFloatVifScales], const float den[kFloatVifScales], const FloatVifOptions& o,
                      FloatVifScores* out);

}  // namespace vmafx::cpu
