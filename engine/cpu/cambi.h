// SPDX-License-Identifier: LGPL-2.1-or-later
// CAMBI (banding), the CPU reference of libvmaf's "cambi" extractor (feature/cambi.c, plain C path): the same integer
// arithmetic, the same float operations in the same order, the same pooling (libvmaf's quickselect, then a double
// sum in the order the quickselect leaves the values), so the scores are libvmaf's to the last bit.
//
// Per picture (the distorted one; with full_ref also the reference), in this order:
//   1. cambi_preprocess   the luma brought to 10 bits at the encode size (enc_width x enc_height; the reference at
//                         src_width x src_height): nearest-neighbour picking with libvmaf's float index walk, bit
//                         depth shifts; then, when the encode bit depth is below 10, the 2x2 anti-dithering mean
//   2. cambi_spatial_mask a pixel is "flat" when it equals its right and lower neighbours (edges count as equal);
//                         the mask is 1 where more than mask_index pixels of the 7x7 window around it (zero outside
//                         the picture) are flat
//   3. for each of the 5 scales: (scale > 0, or scale 0 with high_res_speedup) keep the even rows and columns of the
//      image and of the mask ((n + 1) / 2 each side); cambi_filter_mode (3x3 separable mode filter, the outer rows
//      and columns pass through); cambi_c_values (for every masked pixel, the contrast response of the window around
//      it: counts of its own value and of value +- d, d = 1 .. 2^max_log_contrast, among the masked pixels of the
//      window); cambi_pool (mean of the top-k c-values)
//   4. cambi_combine      weights 16, 8, 4, 2, 1 of the scales, divided by the window's pixel count, clipped to
//                         cambi_max_val
// Images are uint16 (10-bit values), masks uint8 (0/1), c-values float; strides are counted in elements.
//
// Geometries libvmaf cannot score are refused by cambi_plan(), not computed: below the window's half size at the
// smallest scale libvmaf's sliding histogram reads rows and columns outside the picture (stale buffer contents, or
// outside its allocation), and where its float index walk of the resize runs past the last input column or row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cpu/plane.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

inline constexpr unsigned kCambiScales = 5;
inline constexpr unsigned kCambiMaxDiffs = 32;        // 2^max_log_contrast, max_log_contrast <= 5
inline constexpr uint32_t kCambiMinSide = 216;        // libvmaf: enc (and src) width or height at least this
inline constexpr unsigned kCambiMaskFilter = 7;       // window of the spatial mask
inline constexpr unsigned kCambiReciprocals = 4226;   // libvmaf's reciprocal table: window pixels must stay below
inline constexpr unsigned kCambiHistPad = 64;      // entries past the c-values' histogram for vector accesses
inline constexpr int kCambiScaleWeights[kCambiScales] = {16, 8, 4, 2, 1};
// Suprathreshold contrast response of difference d + 1.
inline constexpr int kCambiContrastWeights[kCambiMaxDiffs] = {1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8,
                                                              8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
// Largest picture side and area accepted: int arithmetic in libvmaf, and the GPU's exact 64-bit sums of c-values
// (each below 2^38 units of 2^-24) stay below 2^64 for up to 2^26 pixels.
inline constexpr uint32_t kCambiMaxSide = 32768;
inline constexpr uint64_t kCambiMaxPixels = uint64_t(1) << 26;

// ---- Options ------------------------------------------------------------------------------------------------------

enum class CambiOptionType { boolean, integer, real, text };

// libvmaf's option table of cambi, as plain data: name, alias used in score names (null: the name itself), type,
// whether it takes part in the score name (libvmaf's VMAF_OPT_FLAG_FEATURE_PARAM), default (text options: def_text),
// range (integers and reals; values outside are refused as libvmaf refuses them), and, for options this engine
// refuses, why.
struct CambiOptionSpec {
  const char* name;
  const char* alias;
  CambiOptionType type;
  bool feature_param;
  double def;
  const char* def_text;
  double min, max;
  const char* refused;  // null: supported
};

inline constexpr CambiOptionSpec kCambiOptionSpecs[] = {
    {"cambi_max_val", "cmxv", CambiOptionType::real, true, 1000.0, nullptr, 0.0, 1000.0, nullptr},
    {"enc_width", "encw", CambiOptionType::integer, true, 0, nullptr, 180, 7680, nullptr},
    {"enc_height", "ench", CambiOptionType::integer, true, 0, nullptr, 150, 7680, nullptr},
    {"enc_bitdepth", "encbd", CambiOptionType::integer, true, 0, nullptr, 6, 16, nullptr},
    {"src_width", "srcw", CambiOptionType::integer, true, 0, nullptr, 320, 7680, nullptr},
    {"src_height", "srch", CambiOptionType::integer, true, 0, nullptr, 200, 4320, nullptr},
    {"window_size", "ws", CambiOptionType::integer, true, 65, nullptr, 15, 127, nullptr},
    {"topk", nullptr, CambiOptionType::real, true, 0.6, nullptr, 0.0001, 1.0, nullptr},
    {"cambi_topk", "ctpk", CambiOptionType::real, true, 0.6, nullptr, 0.0001, 1.0, nullptr},
    {"tvi_threshold", "tvit", CambiOptionType::real, true, 0.019, nullptr, 0.0001, 1.0, nullptr},
    {"cambi_vis_lum_threshold", "vlt", CambiOptionType::real, true, 0.0, nullptr, 0.0, 300.0, nullptr},
    {"max_log_contrast", "mlc", CambiOptionType::integer, true, 2, nullptr, 0, 5, nullptr},
    {"heatmaps_path", nullptr, CambiOptionType::text, false, 0, nullptr, 0, 0,
     "heatmaps_path only writes libvmaf's per-scale c-value heatmap files (a debugging side output, no score); "
     "the engine writes no side files"},
    {"full_ref", nullptr, CambiOptionType::boolean, false, 0, nullptr, 0, 1, nullptr},
    {"eotf", nullptr, CambiOptionType::text, true, 0, "bt1886", 0, 0, nullptr},
    {"cambi_eotf", "ceot", CambiOptionType::text, true, 0, "bt1886", 0, 0, nullptr},
    {"cambi_high_res_speedup", "hrs", CambiOptionType::integer, true, 0, nullptr, 0, 2160, nullptr},
};

// libvmaf's score names of cambi, in output order: the distorted picture's score (alias "cambi"), and with full_ref
// the reference's score and max(0, dist - ref), both unaliased.
inline constexpr const char* kCambiFeatureNames[3] = {"Cambi_feature_cambi_score", "cambi_source",
                                                      "cambi_full_reference"};
inline constexpr const char* kCambiScoreAlias = "cambi";

struct CambiOptions {
  double cambi_max_val = 1000.0;
  int enc_width = 0;      // 0: the picture's (either 0: both)
  int enc_height = 0;
  int enc_bitdepth = 0;   // 0: the picture's
  int src_width = 0;      // full_ref only; 0: the picture's
  int src_height = 0;
  int window_size = 65;   // at 4K; scaled to the encode size
  double topk = 0.6;      // when not 0.6 it wins over cambi_topk
  double cambi_topk = 0.6;
  double tvi_threshold = 0.019;
  double cambi_vis_lum_threshold = 0.0;
  int max_log_contrast = 2;
  std::string heatmaps_path;  // refused unless empty
  bool full_ref = false;
  std::string eotf = "bt1886";        // "bt1886" or "pq"
  std::string cambi_eotf = "bt1886";  // when not "bt1886" it wins over eotf
  int cambi_high_res_speedup = 0;     // 1080, 1440, 2160: halve before the scales from that encode size on
};

// The option's spec (by libvmaf name), or null.
const CambiOptionSpec* cambi_option_spec(const std::string& name);
// Sets one option from its text as libvmaf's option parser does (booleans "true"/"false"; integers atoi, reals
// atof, refused when the text does not start a number or the value is outside the range). Unknown names and refused
// options are errors naming them.
Status cambi_set_option(CambiOptions* opts, const std::string& name, const std::string& value);

// ---- Setup --------------------------------------------------------------------------------------------------------

// What one picture goes through: input size, processing size (enc or src), window, the mask threshold and the
// sizes of the five scales.
struct CambiGeometry {
  uint32_t in_w = 0, in_h = 0;    // the picture
  uint32_t w = 0, h = 0;          // after the resize (encode or source size)
  bool resized = false;           // w x h differs from in_w x in_h
  uint16_t window = 0;            // odd, after libvmaf's adjustment to w x h (and the speed-up)
  uint16_t pad = 0;               // window / 2
  uint16_t mask_index = 0;        // flat pixels of the 7x7 window must exceed this
  uint32_t scale_w[kCambiScales] = {}, scale_h[kCambiScales] = {};
  std::vector<uint32_t> src_x, src_y;  // resize: the input column of each output column, row of each row
};

// Everything init derives from the options, shared by the CPU reference and the GPU feature.
struct CambiPlan {
  unsigned bpc = 8;           // of the pictures
  unsigned enc_bitdepth = 8;  // below 10: anti-dithering
  bool full_ref = false;
  bool high_res_speedup = false;  // scale 0 is already halved
  double topk = 0.6;              // the one in effect
  double max_val = 1000.0;
  unsigned num_diffs = 4;         // 2^max_log_contrast
  uint16_t tvi_for_diff[kCambiMaxDiffs] = {};  // largest value + num_diffs at which difference d + 1 is visible
  uint16_t vlt_luma = 0;          // smallest 10-bit value brighter than cambi_vis_lum_threshold (0: none)
  // Values outside [band_base, band_base + band_size) can never take part in a non-zero c-value (libvmaf's band);
  // band_empty: no value can (a band of 0 values), every c-value is 0. (Where libvmaf's band size would wrap below 0,
  // cambi_plan refuses the options: libvmaf writes outside its histogram there.)
  uint16_t band_base = 0;
  uint16_t band_size = 0;
  bool band_empty = false;
  CambiGeometry dist;  // the distorted picture at the encode size
  CambiGeometry ref;   // full_ref: the reference at the source size
};

// libvmaf's init: defaults, checks and tables for w x h pictures of bpc bits. Refuses what libvmaf refuses
// (invalid_argument) and what libvmaf cannot score (unsupported, see the top of this file).
Status cambi_plan(uint32_t w, uint32_t h, unsigned bpc, const CambiOptions& opts, CambiPlan* out);

// libvmaf's table of 1 / i as float (entry 0 is 0): 1 / i in double printed with 9 significant digits and read back
// as float, which is how libvmaf's table was generated (42 entries differ from 1.0f / i). kCambiReciprocals entries.
const float* cambi_reciprocals();

// libvmaf's luminance (cd/m^2) of a 10-bit limited-range value under the EOTF (bt1886 or pq).
double cambi_luminance(int value, bool pq);

// ---- Stages -------------------------------------------------------------------------------------------------------

// libvmaf's input check: a picture of 9..15 bits must not hold a sample above 2^bpc - 1.
Status cambi_check_samples(const Plane& in);

// Stage 1: the picture brought to 10 bits at g.w x g.h (enc_bitdepth < 10: then the anti-dithering filter).
void cambi_preprocess(const Plane& in, const CambiGeometry& g, unsigned enc_bitdepth, uint16_t* out,
                      ptrdiff_t stride);

// Stage 2: the mask of a w x h image. `scratch` holds (w + 7) * 8 entries.
void cambi_spatial_mask(const uint16_t* img, ptrdiff_t stride, uint32_t w, uint32_t h, uint16_t mask_index,
                        uint8_t* mask, ptrdiff_t mask_stride, uint32_t* scratch);
// libvmaf's mask threshold of a w x h picture.
uint16_t cambi_mask_index(uint32_t w, uint32_t h);

// Stage 3a: keeps the even rows and columns, in place: out (i, j) = in (2i, 2j) for the (w, h) output.
void cambi_decimate(uint16_t* img, ptrdiff_t stride, uint32_t w, uint32_t h);
void cambi_decimate(uint8_t* mask, ptrdiff_t stride, uint32_t w, uint32_t h);
// Stage 3b: the mode filter, in place. `scratch` holds 3 * w entries.
void cambi_filter_mode(uint16_t* img, ptrdiff_t stride, uint32_t w, uint32_t h, uint16_t* scratch);
// libvmaf's mode of three values: the value two of them share, else the smallest.
inline uint16_t cambi_mode3(uint16_t a, uint16_t b, uint16_t c) {
  if (a == b || a == c) return a;
  if (b == c) return b;
  return (a <= b && a <= c) ? a : (b <= c ? b : c);
}

// Stage 3c: c-values of a w x h scale (w entries per row of `out`; 0 where the mask is 0). `hist` holds
// plan.band_size * w entries (the SIMD versions, simd/kernels.h: kCambiHistPad more, which they may read and
// rewrite unchanged). Needs w >= pad and h >= pad (cambi_plan checks it).
void cambi_c_values(const CambiPlan& plan, const uint16_t* img, const uint8_t* mask, ptrdiff_t stride, uint32_t w,
                    uint32_t h, uint16_t pad, float* out, uint16_t* hist);
// libvmaf's c-value of one pixel of 10-bit value v from the window's counts: count(u) for u = v - num_diffs ..
// v + num_diffs is counts[u - v + num_diffs] (values outside the band count 0). For the GPU's tests.
float cambi_c_value(const CambiPlan& plan, uint16_t v, const uint16_t* counts);

// Stage 3d: libvmaf's spatial pooling of n c-values: the mean of the top max(1, topk * n) values. Reorders
// `values` (libvmaf's quickselect) and sums them in that order in double.
double cambi_pool(float* values, uint32_t n, double topk);
// The number of values pooled.
uint32_t cambi_topk_count(uint32_t n, double topk);

// Stage 4: libvmaf's weighting of the five scale means, divided by the window's pixels (not yet clipped).
double cambi_combine(const double* scale_means, uint16_t window);

// ---- The extractor ------------------------------------------------------------------------------------------------

struct CambiScores {
  double cambi = 0;           // Cambi_feature_cambi_score (alias cambi), clipped to cambi_max_val
  double source = 0;          // full_ref: cambi_source
  double full_reference = 0;  // full_ref: cambi_full_reference = min(max(0, dist - ref), cambi_max_val)
};

// Intermediate values of one picture, for the GPU's tests: per scale the mean of the top-k and the c-values before
// pooling (w_s x h_s each).
struct CambiDebug {
  double scale_mean[kCambiScales] = {};
  std::vector<float> c_values[kCambiScales];
  std::vector<uint16_t> image[kCambiScales];  // the filtered image of each scale
  std::vector<uint8_t> mask[kCambiScales];
  double raw_score = 0;  // before clipping
};

// The outputs from the unclipped scores of the distorted and (full_ref) reference pictures, as libvmaf clips and
// combines them.
void cambi_finish_scores(const CambiPlan& plan, double dist_raw, double ref_raw, CambiScores* out);

// One object per thread: it owns the scratch of one picture size.
class Cambi {
 public:
  Status init(uint32_t w, uint32_t h, unsigned bpc, const CambiOptions& opts);
  const CambiPlan& plan() const { return plan_; }
  // Number of outputs: 1, or 3 with full_ref.
  size_t output_count() const { return plan_.full_ref ? 3 : 1; }

  // ref is read only with full_ref (it may be null-data otherwise). Planes: the init size and depth, 1- or 2-byte
  // words, any shift and step.
  Status compute(const Plane& ref, const Plane& dist, CambiScores* out);
  // One picture's unclipped score under geometry `g` (plan().dist or plan().ref), with its intermediates.
  Status score_picture(const Plane& pic, const CambiGeometry& g, double* raw, CambiDebug* debug = nullptr);

 private:
  CambiPlan plan_;
  bool ready_ = false;
  ptrdiff_t stride_ = 0;
  std::vector<uint16_t> image_;
  std::vector<uint8_t> mask_;
  std::vector<float> c_values_;
  std::vector<uint16_t> hist_;
  std::vector<uint32_t> mask_scratch_;
  std::vector<uint16_t> mode_scratch_;
};

}  // namespace vmafx::cpu
