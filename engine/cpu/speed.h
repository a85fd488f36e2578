// SPDX-License-Identifier: LGPL-2.1-or-later
// SpEED on the chroma planes, the CPU reference of libvmaf 3.2's "speed_chroma" extractor (speed.c, plain C path):
// speed_chroma_u, speed_chroma_v and speed_chroma_uv, with every option of libvmaf's table.
//
// Per chroma plane, for the reference and the distorted picture alike (an "image"):
//   load        samples to float, minus 128 (10/12/16-bit samples divided by 4/16/256 first), as libvmaf's
//               picture_copy
//   prescale    optional resampling by speed_prescale (nearest, bilinear, bicubic, lanczos4 as libvmaf's vif_tools)
//   antialias   a Gaussian of the scale-1 VIF filter size (9 taps at kernel scale 1, sigma 2 * 9 / 5), vertical then
//               horizontal with mirrored edges, kept only at every 16th row and column (libvmaf's vif_dec16)
//   local mean  the decimated image minus itself filtered by the scale-4 VIF filter (3 taps at kernel scale 1)
//   estimate    on the largest multiple-of-5 part: the 25 x 25 covariance of the 5x5 block positions, its
//               eigenvalues (Householder tridiagonalisation, implicit QR steps), and per block the variance
//               S = sum(K^-1 y .* y) / 25 from the linear system K X = Y (Householder QR, back substitution),
//               or S = 0 when K is singular (an eigenvalue below 1e-6)
//   finish      per block the entropy sum_k (log2(max(L_k, 0) * S + sigma_nn) + log2(2 pi e)), and the score: the
//               mean over blocks of |E_ref w_ref - E_dis w_dis|, where w = log2(1 + variance) with the variance
//               chosen by speed_weight_var_mode, blocks where both entropies are below
//               25 (log2((1 + nn_floor) sigma_nn) + log2(2 pi e)) counting 0
// Each channel score is clipped to speed_max_val; uv is their mean, or the other channel's score when exactly one
// channel's covariance is singular (a flat plane). A channel whose reference and distorted images disagree in
// singularity scores 0.
//
// Every float and double expression keeps libvmaf's types and order, and its double library calls (sqrt, log2,
// exp, sin), so the scores equal libvmaf's C path up to the C library's rounding. The stages before `finish` are
// the oracle of the GPU kernels (engine/hip/kernels/speed_impl.h), which compute them bit for bit; finish runs on
// the host for both.
//
// libvmaf's speed_temporal extractor shares this core on luma frame differences (SpeedTemporal, at the end).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cpu/plane.h"
#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

enum class SpeedScaleMethod : int { nearest = 0, bilinear = 1, bicubic = 2, lanczos4 = 3 };
// "nearest", "bilinear", "bicubic", "lanczos4" (libvmaf's names); unsupported otherwise.
Status speed_scale_method_from_name(const std::string& name, SpeedScaleMethod* out);
const char* speed_scale_method_name(SpeedScaleMethod m);

// libvmaf's speed_chroma options, defaults and ranges.
struct SpeedOptions {
  double kernelscale = 1.0;  // speed_kernelscale, [0.1, 4] and one of libvmaf's 21 kernel scales (within 1e-3)
  double prescale = 1.0;     // speed_prescale, [0.1, 4]; within 1e-3 of 1: no resampling
  SpeedScaleMethod prescale_method = SpeedScaleMethod::nearest;  // speed_prescale_method
  double sigma_nn = 0.29;    // speed_sigma_nn, [0.1, 2]: neural noise
  double nn_floor = 0.0;     // speed_nn_floor, [0, 1]: noise floor as a fraction of sigma_nn
  double max_val = 1000.0;   // speed_max_val, [0, 1000]: upper clip of each score
  int weight_var_mode = 0;   // speed_weight_var_mode, 0..6
};
Status speed_check_options(const SpeedOptions& opt);

inline constexpr int kSpeedBlock = 5;                            // block size
inline constexpr int kSpeedBlockElems = kSpeedBlock * kSpeedBlock;  // 25
inline constexpr int kSpeedScales = 4;                           // decimation 2^4 = 16
inline constexpr int kSpeedMaxFilter = 128;                      // filter buffers of libvmaf

// libvmaf's SpeedDimensions for one chroma plane of w x h.
struct SpeedDims {
  int orig_w = 0, orig_h = 0;
  int scaled_w = 0, scaled_h = 0;  // int(orig * prescale + 0.5)
  bool rescale = false;            // prescale not within 1e-3 of 1
  int dec_w = 0, dec_h = 0;        // scaled >> 4
  int trunc_w = 0, trunc_h = 0;    // dec rounded down to multiples of 5
  int blocks_w = 0, blocks_h = 0, blocks = 0;
  int sub_w = 0, sub_h = 0;        // trunc - 4: the covariance window
};
// The dimensions of a w x h chroma plane; unsupported (naming the minimum) when fewer than 5 x 5 decimated samples
// remain, where libvmaf fails ("SpEED: image too small") and then reads out of its buffers. `feature` and `planes`
// name the extractor and its planes in the message (speed_temporal: "luma").
Status speed_dims(uint32_t w, uint32_t h, const SpeedOptions& opt, SpeedDims* out,
                  const char* feature = "speed_chroma", const char* planes = "chroma");

// The filters: the antialias Gaussian (libvmaf's speed_get_antialias_filter) and the local-mean Gaussian
// (vif_get_filter at scale 4), float taps.
struct SpeedFilters {
  int aa_width = 0, mean_width = 0;
  float aa[kSpeedMaxFilter] = {};
  float mean[kSpeedMaxFilter] = {};
};
void speed_filters(double kernelscale, SpeedFilters* out);

// Resampling tables of the prescale, per output column and per output row (libvmaf computes the same values per
// pixel): nearest: the source index; bilinear: two indices and the fraction; bicubic: 4 mirrored indices and
// weights; lanczos4: 9 mirrored indices and weights.
struct SpeedScaleAxis {
  int taps = 0;                 // 1, 2, 4 or 9
  std::vector<int32_t> index;   // out * taps
  std::vector<float> weight;    // bilinear: out (the fraction d); bicubic, lanczos4: out * taps
};
struct SpeedScaleTables {
  SpeedScaleMethod method = SpeedScaleMethod::nearest;
  SpeedScaleAxis x, y;
};
void speed_scale_tables(const SpeedDims& d, SpeedScaleMethod method, SpeedScaleTables* out);

// ---- stages on one image (float planes with explicit strides in elements) ----

// Samples of a chroma plane to float: (float)s - 128 for 8-bit, (float)s / k - 128 with k = 4, 16, 256 for 10, 12,
// 16 bits (bit depth 8, 10, 12 or 16 only: libvmaf reads any other depth as bytes).
void speed_load(const Plane& p, float* dst, ptrdiff_t dst_stride);
// The prescale: src (orig_w x orig_h) to dst (scaled_w x scaled_h).
void speed_prescale(const SpeedScaleTables& t, const SpeedDims& d, const float* src, ptrdiff_t src_stride, float* dst,
                    ptrdiff_t dst_stride);
// The antialias filter of a w x h image at every 16th row and column: dst (w / 16 x h / 16). tmp holds w floats.
void speed_antialias_dec16(const SpeedFilters& f, const float* src, ptrdiff_t src_stride, int w, int h, float* dst,
                           ptrdiff_t dst_stride, float* tmp);
// img (w x h) minus its local mean (the scale-4 filter, mirrored edges), in place. tmp holds w * h + w floats.
void speed_subtract_local_mean(const SpeedFilters& f, float* img, ptrdiff_t stride, int w, int h, float* tmp);

// The estimate of one image from its mean-subtracted decimated plane (dec_w x dec_h, of which trunc_w x trunc_h is
// read): the eigenvalues of the covariance and the per-block variances S (0 where K is singular).
struct SpeedEstimate {
  float eigen[kSpeedBlockElems] = {};
  std::vector<float> variance;  // blocks, row-major (blocks_h rows of blocks_w)
  bool singular = false;        // K not invertible: libvmaf's est_params error
};
// Sub-stages (GPU oracles): the 25 means and the 25 x 25 covariance (row-major, symmetric); the eigenvalues;
// the independent term Y (25 x blocks); the solution of K X = Y (false where K is singular or R has a pivot below
// 1e-6; x then untouched); S from X and Y.
void speed_covariance(const SpeedDims& d, const float* img, ptrdiff_t stride, float means[kSpeedBlockElems],
                      float cov[kSpeedBlockElems * kSpeedBlockElems]);
void speed_eigenvalues(const float cov[kSpeedBlockElems * kSpeedBlockElems], float eigen[kSpeedBlockElems]);
bool speed_regular(const float eigen[kSpeedBlockElems]);
void speed_independent_term(const SpeedDims& d, const float* img, ptrdiff_t stride, float* y);
bool speed_solve(const float cov[kSpeedBlockElems * kSpeedBlockElems], const float* y, int blocks, float* x);
void speed_block_variance(const float* x, const float* y, int blocks, float* variance);
// speed_estimate takes the covariance from speed_kernels() (simd/kernels.h: the CPU's SIMD level, bit for bit
// speed_covariance); SpeedChroma and SpeedTemporal likewise run load, antialias and local mean through it.
void speed_estimate(const SpeedDims& d, const float* img, ptrdiff_t stride, SpeedEstimate* out);

// ---- finishing (host, for the CPU and the GPU) ----
// Per block entropies of an estimate.
void speed_entropies(const SpeedEstimate& e, double sigma_nn, std::vector<float>* entropies);
// The channel score from the two images' estimates (libvmaf's speed_extract_score after est_params): 0 when
// exactly one is singular; sets *singular when either is (the channel's error flag).
float speed_channel_score(const SpeedEstimate& ref, const SpeedEstimate& dis, const SpeedOptions& opt,
                          bool* singular);

struct SpeedScores {
  double u = 0, v = 0, uv = 0;  // speed_chroma_u, _v, _uv (clipped to max_val)
};
// The three outputs from the two channel scores and their error flags.
SpeedScores speed_combine(float score_u, bool err_u, float score_v, bool err_v, double max_val);

// The extractor: one object per thread; init sizes every buffer, compute allocates nothing.
class SpeedChroma {
 public:
  // luma_w x luma_h pictures of `chroma` subsampling (not 4:0:0) and `bpc` bits (8, 10, 12, 16).
  Status init(uint32_t luma_w, uint32_t luma_h, Chroma chroma, unsigned bpc, const SpeedOptions& opt);
  // The chroma planes (1 = Cb = U, 2 = Cr = V) at libvmaf's size (cpu::chroma_plane), in host memory.
  Status compute(const Plane& ref_u, const Plane& ref_v, const Plane& dist_u, const Plane& dist_v, SpeedScores* out);
  // One image through every stage but finishing (tests, and the GPU's oracle).
  Status estimate_image(const Plane& p, SpeedEstimate* out);

  const SpeedDims& dims() const { return dims_; }
  const SpeedFilters& filters() const { return filters_; }
  const SpeedScaleTables& scale_tables() const { return tables_; }

 private:
  Status check_plane(const Plane& p, const char* which) const;
  float channel(const Plane& ref, const Plane& dist, bool* err);

  bool ready_ = false;
  unsigned bpc_ = 0;
  SpeedOptions opt_;
  SpeedDims dims_;
  SpeedFilters filters_;
  SpeedScaleTables tables_;
  std::vector<float> load_, scaled_, dec_, tmp_;
  // Without a prescale, the rows the antialias filter reads ([first, end) ranges): only those are loaded.
  std::vector<std::pair<int, int>> load_rows_;
  SpeedEstimate ref_est_, dis_est_;
};

// libvmaf's speed_temporal (speed.c, its second extractor): Speed_temporal_feature_speed_temporal_score of frame i
// from the luma differences previous - current of the reference and of the distorted stream (with
// speed_use_ref_diff, the distorted one is previous distorted - current reference), each loaded as above (sample -
// 128, deeper samples divided) and subtracted in float, then the stages above on the two difference images and the
// channel score (speed_channel_score with speed_weight_var_mode 0, which speed_temporal does not set). Not clipped:
// libvmaf's speed_temporal ignores speed_max_val. Frame 0 scores 0. Its options are SpeedOptions' kernel scale,
// prescale (method), sigma_nn and nn_floor; a prescale that enlarges the height is refused (libvmaf writes the
// prescaled frame past its frame buffers, which hold the original height).
class SpeedTemporal {
 public:
  // w x h luma of `bpc` bits (8, 10, 12, 16).
  Status init(uint32_t w, uint32_t h, unsigned bpc, const SpeedOptions& opt, bool use_ref_diff);
  // The score of a frame from the previous frame's reference and distorted luma and this frame's (host memory).
  Status compute(const Plane& prev_ref, const Plane& prev_dist, const Plane& ref, const Plane& dist, double* out);
  // The difference image of a pair (prev - cur, loaded as libvmaf loads them; w x h floats, row-major): the
  // stage the GPU computes first.
  void difference(const Plane& prev, const Plane& cur, float* out) const;
  // One difference image (w x h floats) through every stage but finishing (the GPU's oracle).
  void estimate_difference(const float* diff, SpeedEstimate* out);
  // The score from the two difference images' estimates (host finishing, also the GPU's).
  double score(const SpeedEstimate& ref, const SpeedEstimate& dis) const;

  const SpeedDims& dims() const { return dims_; }
  const SpeedFilters& filters() const { return filters_; }
  const SpeedScaleTables& scale_tables() const { return tables_; }
  const SpeedOptions& options() const { return opt_; }
  bool use_ref_diff() const { return use_ref_diff_; }

 private:
  Status check_plane(const Plane& p, const char* which) const;

  bool ready_ = false;
  bool use_ref_diff_ = false;
  unsigned bpc_ = 0;
  SpeedOptions opt_;
  SpeedDims dims_;
  SpeedFilters filters_;
  SpeedScaleTables tables_;
  std::vector<float> a_, b_, scaled_, dec_, tmp_;
  SpeedEstimate ref_est_, dis_est_;
};
// speed_temporal's checks of a geometry and options (the messages name the extractor).
Status speed_temporal_check(uint32_t w, uint32_t h, unsigned bpc, const SpeedOptions& opt);

}  // namespace vmafx::cpu
