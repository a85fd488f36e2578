// SPDX-License-Identifier: LGPL-2.1-or-later
// Float ADM, the CPU reference of libvmaf 3.2's "float_adm" extractor (float_adm.c, adm.c, adm_tools.c, plain C
// path), with every option libvmaf accepts. Outputs VMAF_feature_adm2_score, VMAF_feature_aim_score,
// VMAF_feature_adm3_score, VMAF_feature_adm_scale0..3_score and the debug outputs (adm, adm_num, adm_den,
// adm_num_scale0..3, adm_den_scale0..3).
//
// Per scale s (0..3), on float bands of (w + 1) / 2 x (h + 1) / 2 (w x h: the picture at s = 0, band a of s - 1):
//   dwt        db2 wavelet of ref and dist (vertical pass, then horizontal): bands a, h, v, d
//   decouple   over the tap rectangle: restored r = clamp(dist / ref, 0, 1) * ref (or, within 1 degree of the
//              reference's angle, dist limited by the enhancement gain) and additive impairment a = dist - r
//   csf        over the tap rectangle: c = rfactor * x and its masking input |c| / 30, of a (for DLM) and of r (AIM)
//   den        over the score rectangle: |rfactor * ref|^p, summed in float per row
//   cm         over the score rectangle: max(|rfactor * x| - thr, 0)^p with the 3x3 masking threshold thr of the
//              other one's csf, summed in float per row: x = r (DLM numerator), x = a (AIM numerator)
// The row sums are the only reductions; float_adm_scale_total turns them into libvmaf's per-scale values, so another
// implementation that produces the same bands and row sums (the GPU) gives the same scores bit for bit.
//
// libvmaf's x86 build divides with an approximate reciprocal (rcpss and one Newton step, whose last bit differs
// between CPU vendors) in decouple; this reference divides exactly, as libvmaf does on every other architecture.
// The two agree to libvmaf's printed precision (tests/test_cpu_float.cpp measures it on the public pairs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpu/plane.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

inline constexpr unsigned kFloatAdmScales = 4;

struct FloatAdmOptions {
  double enhn_gain_limit = 100.0;  // adm_enhn_gain_limit, [1, 100]
  double norm_view_dist = 3.0;     // adm_norm_view_dist, [0.75, 24]
  double noise_weight = 0.03125;   // adm_noise_weight, [0, 1500]
  double csf_scale = 1.0;          // adm_csf_scale, [0, 50] (Barten mode)
  double csf_diag_scale = 1.0;     // adm_csf_diag_scale, [0, 50] (Barten mode)
  int ref_display_height = 1080;   // adm_ref_display_height, [1, 4320]
  int csf_mode = 0;                // adm_csf_mode, [0, 9]: 1 Barten, 2 the DLM paper's CSF, any other Watson
  int bypass_cm = 0;               // adm_bypass_cm, [0, 1]: no masking threshold
  bool adm3_apply_hm = false;      // adm_adm3_apply_hm: adm3 as the harmonic mean of adm2 and aim
  double p_norm = 3.0;             // adm_p_norm, [1, 20]
  double dlm_weight = 0.5;         // adm_dlm_weight, [0, 1]
  double min_val = 0.0;            // adm_min_val, [0, 1]: lower clip of adm3
  double f1[kFloatAdmScales] = {-1, -1, -1, -1};  // adm_f1s0..3, [-1, 10]: >= 0 replaces the h/v CSF factor
  double f2[kFloatAdmScales] = {-1, -1, -1, -1};  // adm_f2s0..3, [-1, 10]: >= 0 replaces the diagonal factor
  int skip_aim_scale = -1;         // adm_skip_aim_scale, [0, 3] (-1: none): that scale joins no AIM sum
  bool skip_scale0 = false;        // adm_skip_scale0: scale 0 gives num 0 and den 1e-10
};

struct FloatAdmScores {
  double adm2 = 0, aim = 0, adm3 = 0;
  double scale[kFloatAdmScales] = {};  // VMAF_feature_adm_scale0..3_score = num_scale / den_scale
  double adm = 0, num = 0, den = 0;    // debug: adm, adm_num, adm_den
  double num_scale[kFloatAdmScales] = {};
  double den_scale[kFloatAdmScales] = {};
};

// ---- buffers and rectangles ----------------------------------------------------------------------------------

// Bands of one DWT level; a may be null where a stage has no use for it. stride in floats.
struct FloatAdmBands {
  float* a = nullptr;
  float* h = nullptr;
  float* v = nullptr;
  float* d = nullptr;
  ptrdiff_t stride = 0;
};

struct FloatAdmRect {
  int left = 0, top = 0, right = 0, bottom = 0;
};
// libvmaf's rectangles of a w x h band: the scored part (10 % border dropped: int(w * 0.1 - 0.5) on each side) and
// the part decouple and csf write (int(w * 0.1 - 0.5 - 1) .. w - that + 2, clamped), which holds every sample cm's
// 3x3 filter reads.
FloatAdmRect float_adm_score_rect(int w, int h);
FloatAdmRect float_adm_tap_rect(int w, int h);

// ---- stages ----------------------------------------------------------------------------------------------------

// Source index of tap k (0..3) of output i over n inputs: 2i - 1 + k, -1 reading 1 and m >= n reading 2n - 1 - m.
inline int float_adm_dwt_tap(int i, int k, int n) {
  const int m = 2 * i - 1 + k;
  if (m < 0) return -m;
  if (m >= n) return 2 * n - 1 - m;
  return m;
}
// libvmaf's db2 coefficients (double literals stored as float).
extern const float kFloatAdmDwtLo[4];
extern const float kFloatAdmDwtHi[4];
// The DWT of a w x h float image (w, h >= 2) into bands of (w + 1) / 2 x (h + 1) / 2; only band a when lo_only.
// tmp holds 2 * w floats.
void float_adm_dwt(const float* src, ptrdiff_t src_stride, int w, int h, const FloatAdmBands& out, bool lo_only,
                   float* tmp);

// cos(1 degree)², in float, as libvmaf's decouple compares angles.
float float_adm_cos_1deg_sq();
// Decouple of one sample; returns r and a of the three bands (h, v, d order).
void float_adm_decouple_px(float oh, float ov, float od, float th, float tv, float td, double enhn_gain_limit,
                           float cos_1deg_sq, float r[3], float a[3]);
// Decouple over float_adm_tap_rect(w, h): ref, dist bands h, v, d -> r and a.
void float_adm_decouple(const FloatAdmBands& ref, const FloatAdmBands& dist, int w, int h, double enhn_gain_limit,
                        const FloatAdmBands& r, const FloatAdmBands& a);

// The CSF factors of a scale: rfactor[0] = rfactor[1] (h, v), rfactor[2] (d), per the options' csf mode and
// overrides.
void float_adm_csf_factors(int scale, const FloatAdmOptions& o, float rfactor[3]);
// libvmaf's masking input of a csf value: float(0.0333333351 * |c|) (the constant is a double).
float float_adm_flt(float c);
// CSF over float_adm_tap_rect(w, h) of bands h, v, d: csf = rfactor * src, flt = float_adm_flt(csf).
void float_adm_csf(const FloatAdmBands& src, int w, int h, const float rfactor[3], const FloatAdmBands& csf,
                   const FloatAdmBands& flt);

// The masking threshold at (i, j): over h, v, d, the 8 neighbours of flt plus 0.0666666701 * |csf| at the centre
// (summed in float with the centre term added in double); neighbours outside the band: row/column -1 reads 1, row h
// reads h - 1, column w reads w - 1.
float float_adm_cm_thresh(const FloatAdmBands& csf, const FloatAdmBands& flt, int w, int h, int i, int j);
// One contribution: max(|x * rfactor| - thr, 0) cubed (p_norm 3) or to the power p_norm.
float float_adm_cm_value(float x, float rfactor, float thr, double p_norm);
// The den contribution of one reference sample: |rfactor * x| cubed or to the power p_norm.
float float_adm_den_value(float x, float rfactor, double p_norm);

// Row sums of cm over float_adm_score_rect(w, h): rows[t][i - top] for t = h, v, d. bypass_cm: thr = 0.
void float_adm_cm_rows(const FloatAdmBands& x, const FloatAdmBands& csf, const FloatAdmBands& flt, int w, int h,
                       const float rfactor[3], bool bypass_cm, double p_norm, float* rows[3]);
// Row sums of den over float_adm_score_rect(w, h).
void float_adm_den_rows(const FloatAdmBands& ref, int w, int h, const float rfactor[3], double p_norm,
                        float* rows[3]);
// A scale's value from the row sums of its three bands over a rect of rw x rh: per band, the float sum of the rows,
// powf(sum, 1 / p) + powf(rw * rh * noise_weight, 1 / p); the three added in float (libvmaf's adm_cm and
// adm_csf_den_scale return value).
float float_adm_scale_total(const float* const rows[3], int n, int rw, int rh, double noise_weight, double p_norm);

// The scores from the per-scale values of a w x h picture.
void float_adm_combine(const float num[kFloatAdmScales], const float den[kFloatAdmScales],
                       const float aim_num[kFloatAdmScales], uint32_t w, uint32_t h, const FloatAdmOptions& o,
                       FloatAdmScores* out);

// The extractor's outputs: VMAF_feature_adm2_score, VMAF_feature_aim_score, VMAF_feature_adm3_score,
// VMAF_feature_adm_scale0..3_score, then the debug outputs adm, adm_num, adm_den, adm_num_scale0, adm_den_scale0, ...,
// adm_num_scale3, adm_den_scale3 (libvmaf's names; its list also names adm_scale0, which it never writes).
inline constexpr unsigned kFloatAdmOutputs = 18;
extern const char* const kFloatAdmOutputNames[kFloatAdmOutputs];
void float_adm_outputs(const FloatAdmScores& s, double out[kFloatAdmOutputs]);

// ---- the extractor -----------------------------------------------------------------------------------------

// Band sizes of every scale for a w x h picture.
struct FloatAdmGeometry {
  int w[kFloatAdmScales], h[kFloatAdmScales];  // band size of scale s (input: the picture, then w[s - 1])
};

// Row sums of one frame, per scale (empty for a skipped scale 0): num (DLM), aim and den, per band (h, v, d).
struct FloatAdmRowSums {
  std::vector<float> num[kFloatAdmScales][3], aim[kFloatAdmScales][3], den[kFloatAdmScales][3];
};

class FloatAdm {
 public:
  // Smallest picture: 17 x 17 (the 3x3 filter of scale 3 needs bands of 2 x 2). Largest: 32768 on a side.
  static Status check(uint32_t w, uint32_t h, unsigned bpc, const FloatAdmOptions& o);

  Status init(uint32_t w, uint32_t h, unsigned bpc, const FloatAdmOptions& o);
  Status compute(const Plane& ref, const Plane& dist, FloatAdmScores* out, FloatAdmRowSums* row_sums = nullptr);

  const FloatAdmGeometry& geometry() const { return geo_; }
  const float* rfactor(unsigned scale) const { return rfactor_[scale]; }

 private:
  uint32_t w_ = 0, h_ = 0;
  unsigned bpc_ = 0;
  FloatAdmOptions opts_;
  FloatAdmGeometry geo_{};
  float rfactor_[kFloatAdmScales][3] = {};
  ptrdiff_t stride_ = 0;     // the bands (scale 0's width)
  std::vector<float> pic_;   // ref, dist float pictures
  std::vector<float> bands_;  // ref a h v d, dist a h v d, r h v d, a h v d, csf h v d, flt h v d; a's of two scales
  std::vector<float> tmp_;
  std::vector<float> rows_;
};

}  // namespace vmafx::cpu
