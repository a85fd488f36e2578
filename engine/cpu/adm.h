// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU reference of libvmaf's integer ADM ("adm": integer_adm2, integer_aim, integer_adm3, integer_adm_scale0..3),
// bit-exact with libvmaf's plain C path for 8..16-bit luma.
//
// The computation is split into stage functions on plain buffers with explicit strides (in elements, not bytes);
// they are the oracle of the GPU kernels, which are tested stage by stage against them. Every integer intermediate
// keeps libvmaf's width: scale 0 works on int16 bands, scales 1..3 on int32 bands.
//
// Per scale s (0..3) the pipeline is
//   dwt        input (picture at s = 0, band a of scale s-1 otherwise) -> bands a, h, v, d of ref and dist
//   decouple   ref/dist h, v, d -> restored r = k * ref (k = dist/ref clamped to [0, 1], or dist itself when the
//              angle between the (h, v) vectors is under 1 degree, with the enhancement gain limit) and additive
//              impairment a = dist - r
//   den        ref h, v, d -> the CSF-weighted 3-norm of the reference (the denominator of the scale)
//   csf        a (DLM) or r (AIM) -> csf values and their 1/30 (the masking filter input)
//   cm         r (DLM) or a (AIM), masked by the csf of the other -> the 3-norm of the visible part (numerator)
// and the four per-scale numerators and denominators combine into the scores (adm_combine).
//
// Band names follow libvmaf: a = low-pass V + low-pass H, v = low-pass V + high-pass H, h = high-pass V + low-pass
// H, d = high-pass V + high-pass H. A DWT of a w x h input gives (w + 1) / 2 x (h + 1) / 2 bands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "cpu/plane.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

// libvmaf's adm_csf_mode: which contrast sensitivity function weights the bands.
enum AdmCsfMode : int {
  kAdmCsfWatson97 = 0,   // Watson et al. (1997) DWT quantisation steps (libvmaf's default)
  kAdmCsfBarten = 1,     // Barten's CSF as in HDR-VDP 2.2.1, scaled by adm_csf_scale / adm_csf_diag_scale
  kAdmCsfBlend = 2,      // libvmaf's tabulated Barten-Watson blend (the VMAF v1 models)
  kAdmCsfBlendMae = 3,   // the same blend refitted (libvmaf's "MAE" tables)
};

// libvmaf's ADM options (integer_adm.c's option table; the output-only "debug" is the caller's business: every
// debug score is in AdmScores).
struct AdmOptions {
  double enhn_gain_limit = 100.0;  // adm_enhn_gain_limit, [1, 100]; the neg models use 1.0 (names end in _egl_1)
  double norm_view_dist = 3.0;     // adm_norm_view_dist, [0.75, 24]
  int ref_display_height = 1080;   // adm_ref_display_height, [1, 4320]; norm_view_dist * height must be >= 3240
  double noise_weight = 0.03125;   // adm_noise_weight, [0, 1500]
  double dlm_weight = 0.5;         // adm_dlm_weight, [0, 1]: weight of adm2 against 1 - aim in adm3
  double min_val = 0.0;            // adm_min_val, [0, 1]: lower clip of adm3
  bool skip_aim = false;           // adm_skip_aim: aim is then 0
  bool skip_scale0 = false;        // adm_skip_scale0: scale 0 contributes num 0 and den 1e-10
  int csf_mode = kAdmCsfWatson97;  // adm_csf_mode, 0..3
  double csf_scale = 1.0;          // adm_csf_scale, [0, 50]: Barten's factor of the h and v bands (mode 1 only)
  double csf_diag_scale = 1.0;     // adm_csf_diag_scale, [0, 50]: Barten's factor of the d band (mode 1 only)
};

// Checks the options as libvmaf's option table and extract() do (ranges; norm_view_dist * ref_display_height at
// least 3 * 1080), and refuses what libvmaf computes with undefined results: a blend mode (2, 3) for a display
// libvmaf has no table for (libvmaf then uses -22 as the factor), and CSF factors that overflow libvmaf's fixed
// point (scale 0: factor * 2^21 (h, v) or 2^23 (d) must be below 2^16; scales 1..3: factor * 2^32 below 2^32),
// which Barten's CSF does unless adm_csf_scale and adm_csf_diag_scale are small.
Status adm_check_options(const AdmOptions& opt);

struct AdmScores {
  double adm2 = 0, aim = 0, adm3 = 0;
  double scale[4] = {0, 0, 0, 0};  // integer_adm_scale0..3 = num_scale / den_scale
  // libvmaf's debug outputs (integer_adm_num, integer_adm_den, integer_adm_{num,den}_scale0..3).
  double num = 0, den = 0;
  double num_scale[4] = {0, 0, 0, 0};
  double den_scale[4] = {0, 0, 0, 0};
};

// ---------------------------------------------------------------------------------------------------------------
// Buffers

// The four bands of one DWT level. Stage functions read or write only the bands they name; `a` may be null where
// a stage has no use for it. stride is in elements.
template <class T>
struct AdmBands {
  T* a = nullptr;
  T* h = nullptr;
  T* v = nullptr;
  T* d = nullptr;
  ptrdiff_t stride = 0;

  AdmBands() = default;
  AdmBands(T* a_, T* h_, T* v_, T* d_, ptrdiff_t stride_) : a(a_), h(h_), v(v_), d(d_), stride(stride_) {}
  // A writable set of bands reads as a read-only one.
  template <class U, class = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
  AdmBands(const AdmBands<U>& o) : a(o.a), h(o.h), v(o.v), d(o.d), stride(o.stride) {}
};

// A rectangle of band coordinates, [left, right) x [top, bottom).
struct AdmRect {
  int left = 0, top = 0, right = 0, bottom = 0;
};

// The part of a w x h band that is scored: libvmaf drops a border of 10 % (rounded: int(w * 0.1 - 0.5)) on each side.
// den and cm read only this part (cm's 3x3 masking filter also reads one sample around it).
AdmRect adm_score_rect(int w, int h);
// The score rectangle grown for the masking filter's taps, clamped to the band: libvmaf's left = int(w * 0.1 - 0.5
// - 1), right = w - left + 2 (one sample more on the near sides, three on the far sides). decouple and csf write
// this part; it covers everything cm reads.
AdmRect adm_tap_rect(int w, int h);

// ---------------------------------------------------------------------------------------------------------------
// Stage 1: DWT (Daubechies db2, 4 taps, coefficients {15826, 27411, 7345, -4240} and {-4240, -7345, 27411, -15826}).

// Source index of tap k (0..3) of output i along an axis of n input samples (n >= 5): 2i - 1 + k, reflected as
// libvmaf does: -1 reads 1, and an index m >= n reads 2n - 1 - m.
inline int adm_dwt_tap(int i, int k, int n) {
  int m = 2 * i - 1 + k;
  if (m < 0) return -m;
  if (m >= n) return 2 * n - 1 - m;
  return m;
}

// Scale 0: the picture (src.w x src.h samples of src.bpc bits, 8..16; a sample is word >> shift, read in place) to
// int16 bands a, h, v, d of (w + 1) / 2 x (h + 1) / 2.
//   vertical pass: int32 sum of 4 taps times the samples, minus 46342 * 2^(bpc-1) from the low-pass (centres the
//     range), rounded and shifted right by bpc -> int16, |value| <= 27411 (held in tmp, 2 * src.w int16)
//   horizontal pass: int32 sum of 4 taps, + 2^15, >> 16 -> int16 band, |value| < 23000
// The int32 vertical sum wraps for 16-bit input exactly as libvmaf's does; the rounded result is the true value.
void adm_dwt_scale0(const Plane& src, AdmBands<int16_t> out, int16_t* tmp);

// Scales 1..3: band a of the previous scale (w x h, int16 at scale 1 where it is libvmaf's int16 scale-0 band a
// widened to int32, int32 after) to int32 bands a, h, v, d of (w + 1) / 2 x (h + 1) / 2.
//   vertical pass: int64 sum of 4 taps; scale 1: no shift; scales 2, 3: + 2^15, >> 16 -> int32 (tmp, 2 * w int32)
//   horizontal pass: int64 sum of 4 taps; scale 1: + 2^14, >> 15; scale 2: + 2^15, >> 16; scale 3: + 2^14, >> 15
//     -> int32 band
// out must not overlap src (libvmaf transforms band a in place; the reference uses two buffers in turn).
void adm_dwt_scale123(const int16_t* src, ptrdiff_t src_stride, int w, int h, int scale, AdmBands<int32_t> out,
                      int32_t* tmp);
void adm_dwt_scale123(const int32_t* src, ptrdiff_t src_stride, int w, int h, int scale, AdmBands<int32_t> out,
                      int32_t* tmp);

// Pictures of 17 to 32 samples on an axis. Scale 3's input then has 3 or 4 samples on that axis, and libvmaf's index
// table (dwt2_src_indices_filt) gives output 0 the taps -1, 0, 1, 2 instead of the reflected 1, 0, 1, 2: libvmaf
// reads one element before its buffers. What it finds there is its own memory layout:
//   vertical, reference: row -1 of the reference band a is the end of libvmaf's scale-0 csf_f band-d buffer (the
//     CSF of r from the AIM pass; with adm_skip_aim the masking input of a; with adm_skip_scale0 never written),
//     int16 pairs read as int32 (adm_small_ref_row_above);
//   vertical, distorted: the last row of the reference band-d buffer, which no scale writes;
//   horizontal: for the reference low-pass row, the int32 before libvmaf's row buffer (the upper half of the heap
//     chunk's size field: 0); for the rows that follow it in that buffer, the previous row's last value (reference
//     high-pass, distorted low-pass and high-pass read the reference low-pass, reference high-pass and distorted
//     low-pass value at column w - 1).
// The distorted row is uninitialised heap memory, so libvmaf's own scores at these sizes change with what the heap
// held (MALLOC_PERTURB_ moves them by tens of VMAF points); the CPU reference is libvmaf on zero-initialised memory
// (MALLOC_PERTURB_=255 makes libvmaf's allocations zero), the one deterministic case. Below 17 libvmaf crashes.
inline bool adm_small_axis(int scale3_input) { return scale3_input == 3 || scale3_input == 4; }
// Row -1 of the reference at scale 3 (count int32 values) from the scale-0 buffer libvmaf leaves there: csf_f_d is
// that band (w0 x h0 at stride, zero where libvmaf never writes it). libvmaf's int16 rows are w0 rounded up to 8
// elements long; the elements past w0 are never written.
void adm_small_ref_row_above(const int16_t* csf_f_d, ptrdiff_t stride, int w0, int h0, int count, int32_t* out);
// Scale 3 of both pictures at once (libvmaf's combined DWT) with those reads: ref / dis band a of scale 2 (w x h,
// stride), the reference's row -1, tmp of 4 * w int32.
void adm_dwt_scale3_small(const int32_t* ref, const int32_t* dis, ptrdiff_t stride, int w, int h,
                          const int32_t* ref_row_above, AdmBands<int32_t> ref_out, AdmBands<int32_t> dis_out,
                          int32_t* tmp);

// ---------------------------------------------------------------------------------------------------------------
// Stage 2: decouple, on bands h, v, d of one scale (w x h, the DWT output size), over adm_tap_rect(w, h).
//   k = clamp(dist / ref, 0, 1) in Q15 through libvmaf's reciprocal table (2^30 / x; for |ref| >= 2^15 at scales
//   1..3 the 15 most significant bits of |ref|, rounded); r = (k * ref + 2^14) >> 15; where the (h, v) angles of
//   ref and dist differ by less than 1 degree (tested in float/double as libvmaf does) and r has the sign of ref,
//   r = min(r * enhn_gain_limit, dist) (max for negative r), truncated; a = dist - r (wrapping to the band's type).
// Scale 0: int16 in and out. Scales 1..3: int32 in and out, int64 products.
void adm_decouple_scale0(AdmBands<const int16_t> ref, AdmBands<const int16_t> dist, int w, int h,
                         double enhn_gain_limit, AdmBands<int16_t> r, AdmBands<int16_t> a);
void adm_decouple_scale123(AdmBands<const int32_t> ref, AdmBands<const int32_t> dist, int w, int h,
                           double enhn_gain_limit, AdmBands<int32_t> r, AdmBands<int32_t> a);

// ---------------------------------------------------------------------------------------------------------------
// Contrast sensitivity factors of a scale, as float like libvmaf: rfactor[0] = rfactor[1] (h, v; theta 1),
// rfactor[2] (d; theta 2). Watson: 1 / Q(scale, theta); Barten: its CSF at the scale's frequency times
// csf_scale (h, v) or csf_diag_scale (d); blend modes: libvmaf's tables (opt must pass adm_check_options).
void adm_csf_factors(int scale, const AdmOptions& opt, float rfactor[3]);
// Fixed-point factors of scale 0: rfactor * 2^21 (h, v) and * 2^23 (d) as uint16; libvmaf's constants
// {36453, 36453, 49417} for Watson when norm_view_dist * ref_display_height == 3 * 1080.
void adm_fixed_factors_scale0(const float rfactor[3], const AdmOptions& opt, uint16_t out[3]);
// Fixed-point factors of scales 1..3: rfactor * 2^32 as uint32.
void adm_fixed_factors_scale123(const float rfactor[3], uint32_t out[3]);

// ---------------------------------------------------------------------------------------------------------------
// Stage 3: denominator sums, over adm_score_rect(w, h) of the reference bands h, v, d.
struct AdmDenSums {
  uint64_t h = 0, v = 0, d = 0;
};
// Scale 0: per row, uint64 sum of |x|^3 (x int16); the row sum is rounded and shifted right by
// max(0, ceil(log2(rect area) - 20)) before it joins the total.
AdmDenSums adm_den_sums_scale0(AdmBands<const int16_t> ref, int w, int h);
// Scales 1..3: per sample ((((|x|^2 + 2^sq) >> sq) * |x|) + 2^(c-1)) >> c with sq = 31, 30, 31 for scales 1, 2, 3
// (libvmaf adds 2^sq, not 2^(sq-1)) and c = ceil(log2(rect width)); per row the uint64 sum is rounded and shifted
// right by ceil(log2(rect height)).
AdmDenSums adm_den_sums_scale123(AdmBands<const int32_t> ref, int w, int h, int scale);
// The float denominator of the scale: sum over h, v, d of cbrt(sum / 2^pending * rfactor^3) + cbrt(area * noise).
float adm_den_finish(const AdmDenSums& sums, int w, int h, int scale, const float rfactor[3], double noise_weight);

// ---------------------------------------------------------------------------------------------------------------
// Stage 4: CSF, over adm_tap_rect(w, h), of bands h, v, d (a for DLM, r for AIM); t is 0, 1, 2 for h, v, d.
// Scale 0: c = int16((int32(src * fixed[t]) + round[t]) >> shift[t]) with round {2^14, 2^14, 65535} (sic) and
//          shift {15, 15, 17};  f = int16((4369 * |c| + 2048) >> 12)   (4369 = 2^17 / 30: f = |c| * 32 / 30)
// Scales 1..3: c = int32((src * fixed[t] + 2^27) >> 28) (int64 product);
//          f = int32((143165577 * |c| - 2^31) >> 32)   (143165577 = 2^32 / 30; libvmaf's rounding term 1u << 31 is
//          stored in an int32, so it subtracts: f is -1 where c is 0)
void adm_csf_scale0(AdmBands<const int16_t> src, int w, int h, const uint16_t fixed[3], AdmBands<int16_t> csf,
                    AdmBands<int16_t> flt);
void adm_csf_scale123(AdmBands<const int32_t> src, int w, int h, const uint32_t fixed[3], AdmBands<int32_t> csf,
                      AdmBands<int32_t> flt);

// ---------------------------------------------------------------------------------------------------------------
// Stage 5: contrast masking sums, over adm_score_rect(w, h). x is r (DLM) or a (AIM); csf/flt are the csf stage's
// output for the other one. For each sample the masking threshold is
//   thr = sum over h, v, d of (the 8 neighbours in flt + a centre term from csf, |csf| / 15 in flt's scale)
// (neighbours outside the band: row/column -1 reads 1, row h reads h - 1, column w reads w - 1, as libvmaf), then
//   y = max(0, |x * fixed| - thr << shift), y2 = int32((y^2 + round) >> sq), add (y2 * y + round) >> c,
// with per-row rounding and shifting of the int64 row sums.
// Scale 0: x * fixed in int32; shift 10, 10, 12 (h, v, d); sq 29, 29, 30; c = ceil(log2(w) - 4) for h, v and
//   ceil(log2(w) - 3) for d; centre term int16((8738 * |csf| + 2048) >> 12); row shift ceil(log2(h)).
// Scales 1..3: x * fixed rounded >> 28 in int64; no threshold shift; sq 30; c = ceil(log2(w)); centre term
//   int32((286331153 * |csf| - 2^31) >> 32); row shift ceil(log2(h)).
// Integer sums wrap (int32 threshold, int32 y2) exactly where libvmaf's do.
struct AdmCmSums {
  int64_t h = 0, v = 0, d = 0;
};
AdmCmSums adm_cm_sums_scale0(AdmBands<const int16_t> x, AdmBands<const int16_t> csf, AdmBands<const int16_t> flt,
                             int w, int h, const uint16_t fixed[3]);
AdmCmSums adm_cm_sums_scale123(AdmBands<const int32_t> x, AdmBands<const int32_t> csf,
                               AdmBands<const int32_t> flt, int w, int h, const uint32_t fixed[3]);
// The float numerator of the scale: sum over h, v, d of cbrt(sum / 2^pending) + cbrt(area * noise_weight).
// libvmaf uses noise_weight 0 for the AIM numerator.
float adm_cm_finish(const AdmCmSums& sums, int w, int h, int scale, double noise_weight);

// ---------------------------------------------------------------------------------------------------------------
// Row functions: the same arithmetic one band row at a time, as Adm::compute runs it (and its SIMD versions,
// simd/kernels.h, which tests/checkasm compares with these). Each gives, element for element, what the stage
// function above gives for that row; test_cpu_adm checks that compute() equals the stages composed.

// One row of each band (a, h, v, d); a may be null where a function has no use for it.
template <class T>
struct AdmRow {
  T* a = nullptr;
  T* h = nullptr;
  T* v = nullptr;
  T* d = nullptr;

  AdmRow() = default;
  AdmRow(T* a_, T* h_, T* v_, T* d_) : a(a_), h(h_), v(v_), d(d_) {}
  template <class U, class = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
  AdmRow(const AdmRow<U>& o) : a(o.a), h(o.h), v(o.v), d(o.d) {}
};

// DWT output row i (all four bands, (w + 1) / 2 values each) of the picture (scale 0: tmp holds 2 * (src.w + 3)
// int16), of libvmaf's int16 scale-0 band a (scale 1) or of an int32 band a (scales 2, 3; tmp: 2 * (w + 3) int32).
// Inputs of at least 5 samples on each axis (the small scale-3 inputs have their own function).
void adm_dwt_row_scale0(const Plane& src, int i, int16_t* tmp, AdmRow<int16_t> out);
void adm_dwt_row_scale1(const int16_t* src, ptrdiff_t stride, int w, int h, int i, int32_t* tmp,
                        AdmRow<int32_t> out);
void adm_dwt_row_scale23(const int32_t* src, ptrdiff_t stride, int w, int h, int scale, int i, int32_t* tmp,
                         AdmRow<int32_t> out);

// Decouple of columns [left, right) of one row (bands h, v, d).
void adm_decouple_row_scale0(AdmRow<const int16_t> ref, AdmRow<const int16_t> dist, int left, int right,
                             double enhn_gain_limit, AdmRow<int16_t> r, AdmRow<int16_t> a);
void adm_decouple_row_scale123(AdmRow<const int32_t> ref, AdmRow<const int32_t> dist, int left, int right,
                               double enhn_gain_limit, AdmRow<int32_t> r, AdmRow<int32_t> a);

// The denominator's sums of columns [left, right) of one row, before the row's rounding shift: sums[t] for h, v, d.
// Scale 0: sum of |x|^3. Scales 1..3: sum of ((((|x|^2 + 2^sq) >> sq) * |x|) + 2^(cub-1)) >> cub (adm_den_sums_scale123).
void adm_den_row_scale0(AdmRow<const int16_t> ref, int left, int right, uint64_t sums[3]);
void adm_den_row_scale123(AdmRow<const int32_t> ref, int left, int right, int scale, int cub, uint64_t sums[3]);

// The CSF of columns [left, right) of one row, reduced to what the masking reads: flt_sum[j] = the masking-filter
// inputs of h, v and d added (int32, wrapping), centre_sum[j] = their three centre terms added (the csf value's
// |c| / 15 in the masking filter's scale, see adm_cm_sums_*). The masking threshold is a 3x3 sum over the bands, so
// these two rows carry all of it.
void adm_csf_row_scale0(AdmRow<const int16_t> src, int left, int right, const uint16_t fixed[3], int32_t* flt_sum,
                        int32_t* centre_sum);
void adm_csf_row_scale123(AdmRow<const int32_t> src, int left, int right, const uint32_t fixed[3],
                          int32_t* flt_sum, int32_t* centre_sum);

// The masking sums of columns [left, right) of one row of a w-wide band, before the row's rounding shift: x is the
// row of r or a, flt_sum[0..2] the rows above, at and below (already mirrored: row -1 is row 1, row h row h - 1) and
// centre_sum the row itself of the csf of the other; columns -1 and w read 1 and w - 1. cub: the per-sample shifts
// (scale 0: ceil(log2(w) - 4) for h and v, ceil(log2(w) - 3) for d; scales 1..3: ceil(log2(w))).
void adm_cm_row_scale0(AdmRow<const int16_t> x, const int32_t* const flt_sum[3], const int32_t* centre_sum, int w,
                       int left, int right, const uint16_t fixed[3], int cub_hv, int cub_d, int64_t sums[3]);
void adm_cm_row_scale123(AdmRow<const int32_t> x, const int32_t* const flt_sum[3], const int32_t* centre_sum,
                         int w, int left, int right, const uint32_t fixed[3], int cub, int64_t sums[3]);

// libvmaf's reciprocal table from the middle: entry m (0..32768) is 2^30 / m, entry 0 is 0 (the decouple's k).
const int32_t* adm_reciprocals();
// The angle test's float cos^2(1 degree), as libvmaf computes it.
float adm_cos_1deg_sq();

// ---------------------------------------------------------------------------------------------------------------
// Stage 6: the scores from the per-scale numerators (DLM and AIM) and denominators of a width x height picture.
AdmScores adm_combine(const float num[4], const float den[4], const float aim_num[4], uint32_t width,
                      uint32_t height, const AdmOptions& opt);

// ---------------------------------------------------------------------------------------------------------------
// The extractor: one object per thread; init allocates every buffer once, compute allocates nothing. compute runs the
// row functions (the SIMD ones of simd_level()) band row by band row, so it holds band a of scales 0..2 and a few
// rows, not whole bands: about 2.6 bytes per picture sample (pictures of 17..32 samples on an axis use the stage
// functions on whole bands).
class Adm {
 public:
  // Smallest picture: 17 x 17, libvmaf's smallest (below, it crashes); from 17 to 32 on an axis see
  // adm_small_axis. Largest: 32768 on a side (libvmaf computes w * h and band offsets in int).
  static constexpr uint32_t kMinSize = 17;
  static Status check_size(uint32_t w, uint32_t h);

  Status init(uint32_t w, uint32_t h, unsigned bpc, const AdmOptions& opt);
  // ref and dist: luma planes of the init size and depth (1-byte or 2-byte words, any shift).
  Status compute(const Plane& ref, const Plane& dist, AdmScores* out);

 private:
  template <class T>
  struct BandSet {
    std::vector<T> mem;
    AdmBands<T> bands;
    void alloc(int w, int h, bool with_a);
  };
  // The rows one pass over a range of band rows needs (RowPart in adm.cpp): DWT scratch, the DWT's output row of
  // each picture, decouple outputs and the CSF's band sums in rings (the masking of row i reads rows i - 1 .. i + 1).
  struct RowBuffers {
    std::vector<int16_t> m16;
    std::vector<int32_t> m32;
    int16_t* tmp16 = nullptr;
    int32_t* tmp32 = nullptr;
    AdmRow<int16_t> ref16, dis16, r16[2], a16[2];
    AdmRow<int32_t> ref32, dis32, r32[2], a32[2];
    int32_t* flt_dlm[3] = {};  // band sums of the CSF of a (the DLM's masking), ring of 3 rows
    int32_t* flt_aim[3] = {};  // of r (the AIM's masking)
    int32_t* centre_dlm[2] = {};
    int32_t* centre_aim[2] = {};
    void alloc(int picture_w, int w0);
  };
  struct PartSums {
    AdmDenSums den;
    AdmCmSums dlm, aim;
  };

  Status compute_planes(const Plane& ref, const Plane& dist, AdmScores* out);
  // Rows [r0, r1) of scale s (their denominator and masking sums, band a for the next scale) with buffers b.
  void run_part(int s, int r0, int r1, const Plane& ref, const Plane& dist, RowBuffers& b, PartSums* out);

  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 0;
  AdmOptions opt_;
  bool ready_ = false;
  bool small_ = false;  // 17..32 samples on an axis: whole bands (see adm_small_axis)
  int sw_[4] = {}, sh_[4] = {};  // band size of each scale
  float rfactor_[4][3] = {};
  uint16_t fixed0_[3] = {};
  uint32_t fixed_[4][3] = {};

  // Row path: band a of scales 0..2 (ref, dist), the next scale's input; one set of row buffers.
  std::vector<int16_t> band_a0_[2];
  std::vector<int32_t> band_a1_[2], band_a2_[2];
  RowBuffers rows_;

  // Whole-band path (small pictures only).
  BandSet<int16_t> ref16_, dis16_, r16_, a16_, csf16_, flt16_;
  BandSet<int32_t> ref32_, dis32_, r32_, a32_, csf32_, flt32_;
  std::vector<int32_t> ref_a32_[2], dis_a32_[2];  // band a of scales 1..3, alternating
  std::vector<int16_t> tmp16_;
  std::vector<int32_t> tmp32_;
  std::vector<int32_t> small_row_;  // the reference's row -1 at scale 3 (17..32 samples high)
};

}  // namespace vmafx::cpu
