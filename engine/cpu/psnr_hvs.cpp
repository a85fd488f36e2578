// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu/psnr_hvs.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace vmafx::cpu {

namespace {

// CSF weights at the point of transparency (the PSNR-HVS-M tables of Daala's tools; symmetric), row-major by
// (vertical, horizontal) frequency. The values are the float nearest to each decimal.
constexpr float kCsfLuma[64] = {
    1.6193873005f,  2.2901594831f,  2.08509755623f, 1.48366094411f, 1.00227514334f, 0.678296995242f, 0.466224900598f, 0.3265091542f,
    2.2901594831f,  1.94321815382f, 2.04793073064f, 1.68731108984f, 1.2305666963f,  0.868920337363f, 0.61280991668f,  0.436405793551f,
    2.08509755623f, 2.04793073064f, 1.34329019223f, 1.09205635862f, 0.875748795257f, 0.670882927016f, 0.501731932449f, 0.372504254596f,
    1.48366094411f, 1.68731108984f, 1.09205635862f, 0.772819797575f, 0.605636379554f, 0.48309405692f,  0.380429446972f, 0.295774038565f,
    1.00227514334f, 1.2305666963f,  0.875748795257f, 0.605636379554f, 0.448996256676f, 0.352889268808f, 0.283006984131f, 0.226951348204f,
    0.678296995242f, 0.868920337363f, 0.670882927016f, 0.48309405692f, 0.352889268808f, 0.27032073436f,  0.215017739696f, 0.17408067321f,
    0.466224900598f, 0.61280991668f, 0.501731932449f, 0.380429446972f, 0.283006984131f, 0.215017739696f, 0.168869545842f, 0.136153931001f,
    0.3265091542f,  0.436405793551f, 0.372504254596f, 0.295774038565f, 0.226951348204f, 0.17408067321f,  0.136153931001f, 0.109083846276f,
};
constexpr float kCsfCb[64] = {
    1.91113096927f,  2.46074210438f, 1.18284184739f,  1.14982565193f,  1.05017074788f,  0.898018824055f, 0.74725392039f,  0.615105596242f,
    2.46074210438f,  1.58529308355f, 1.21363250036f,  1.38190029285f,  1.33100189972f,  1.17428548929f,  0.996404342439f, 0.830890433625f,
    1.18284184739f,  1.21363250036f, 0.978712413627f, 1.02624506078f,  1.03145147362f,  0.960060382087f, 0.849823426169f, 0.731221236837f,
    1.14982565193f,  1.38190029285f, 1.02624506078f,  0.861317501629f, 0.801821139099f, 0.751437590932f, 0.685398513368f, 0.608694761374f,
    1.05017074788f,  1.33100189972f, 1.03145147362f,  0.801821139099f, 0.676555426187f, 0.605503172737f, 0.55002013668f,  0.495804539034f,
    0.898018824055f, 1.17428548929f, 0.960060382087f, 0.751437590932f, 0.605503172737f, 0.514674450957f, 0.454353482512f, 0.407050308965f,
    0.74725392039f,  0.996404342439f, 0.849823426169f, 0.685398513368f, 0.55002013668f, 0.454353482512f, 0.389234902883f, 0.342353999733f,
    0.615105596242f, 0.830890433625f, 0.731221236837f, 0.608694761374f, 0.495804539034f, 0.407050308965f, 0.342353999733f, 0.295530605237f,
};
constexpr float kCsfCr[64] = {
    2.03871978502f,  2.62502345193f, 1.26180942886f,  1.11019789803f,  1.01397751469f,  0.867069376285f, 0.721500455585f, 0.593906509971f,
    2.62502345193f,  1.69112867013f, 1.17180569821f,  1.3342742857f,   1.28513006198f,  1.13381474809f,  0.962064122248f, 0.802254508198f,
    1.26180942886f,  1.17180569821f, 0.944981930573f, 0.990876405848f, 0.995903384143f, 0.926972725286f, 0.820534991409f, 0.706020324706f,
    1.11019789803f,  1.3342742857f,  0.990876405848f, 0.831632933426f, 0.77418706195f,  0.725539939514f, 0.661776842059f, 0.587716619023f,
    1.01397751469f,  1.28513006198f, 0.995903384143f, 0.77418706195f,  0.653238524286f, 0.584635025748f, 0.531064164893f, 0.478717061273f,
    0.867069376285f, 1.13381474809f, 0.926972725286f, 0.725539939514f, 0.584635025748f, 0.496936637883f, 0.438694579826f, 0.393021669543f,
    0.721500455585f, 0.962064122248f, 0.820534991409f, 0.661776842059f, 0.531064164893f, 0.438694579826f, 0.375820256136f, 0.330555063063f,
    0.593906509971f, 0.802254508198f, 0.706020324706f, 0.587716619023f, 0.478717061273f, 0.393021669543f, 0.330555063063f, 0.285345396658f,
};

// The masking table is the CSF scaled by this constant and squared (Daala's empirical fit to the PSNR-HVS-M table).
constexpr double kMaskScale = 0.3885746225901003;

PsnrHvsTables make_tables(const float* csf) {
  PsnrHvsTables t;
  for (int k = 0; k < 64; k++) {
    t.csf[k] = csf[k];
    const double scaled = double(csf[k]) * kMaskScale;
    t.mask[k] = float(scaled * scaled);
  }
  return t;
}

// a / 2 rounded toward zero (Daala's unbiased right shift by one).
inline int32_t half_toward_zero(int32_t a) { return (a + int32_t(uint32_t(a) >> 31)) >> 1; }
// (a * m + 2^(s-1)) >> s: one lifting step's rounded product. With samples of at most 12 bits every product stays
// inside int32.
inline int32_t lift(int32_t a, int32_t m, int s) { return (a * m + (int32_t(1) << (s - 1))) >> s; }

// Daala's 8-point forward DCT (od_bin_fdct8): in[k * stride] -> out[0..7], a lifting structure of butterflies and
// rounded products, exactly invertible in integers.
void fdct8(const int32_t* in, int stride, int32_t* out) {
  // Inputs in the butterfly order of the lifting structure.
  int32_t a0 = in[0 * stride], a4 = in[1 * stride], a2 = in[2 * stride], a6 = in[3 * stride];
  int32_t a7 = in[4 * stride], a3 = in[5 * stride], a5 = in[6 * stride], a1 = in[7 * stride];
  // Sums and differences of mirrored pairs.
  a1 = a0 - a1;
  const int32_t a1h = half_toward_zero(a1);
  a0 -= a1h;
  a4 += a5;
  const int32_t a4h = half_toward_zero(a4);
  a5 -= a4h;
  a3 = a2 - a3;
  a2 -= half_toward_zero(a3);
  a6 += a7;
  const int32_t a6h = half_toward_zero(a6);
  a7 = a6h - a7;
  // The even half: a 4-point DCT.
  a0 += a6h;
  a6 = a0 - a6;
  a2 = a4h - a2;
  a4 = a2 - a4;
  // Its 2-point DCT (rotation by pi/4): tan(pi/8) = 13573/32768, sin(pi/4) = 11585/16384.
  a0 -= lift(a4, 13573, 15);
  a4 += lift(a0, 11585, 14);
  a0 -= lift(a4, 13573, 15);
  // Its 2-point DST-IV (rotation by 3pi/8): 21895/32768, 15137/16384.
  a6 -= lift(a2, 21895, 15);
  a2 += lift(a6, 15137, 14);
  a6 -= lift(a2, 21895, 15);
  // The odd half: a 4-point DST-IV.
  a3 += lift(a5, 19195, 15);
  a5 += lift(a3, 11585, 14);
  a3 -= lift(a5, 7489, 13);
  a7 = half_toward_zero(a5) - a7;
  a5 -= a7;
  a3 = a1h - a3;
  a1 -= a3;
  // Rotation by pi/16: 3227/32768, 6393/32768.
  a7 += lift(a1, 3227, 15);
  a1 -= lift(a7, 6393, 15);
  a7 += lift(a1, 3227, 15);
  // Rotation by 3pi/16: 2485/8192, 18205/32768.
  a5 += lift(a3, 2485, 13);
  a3 -= lift(a5, 18205, 15);
  a5 += lift(a3, 2485, 13);
  out[0] = a0;
  out[1] = a1;
  out[2] = a2;
  out[3] = a3;
  out[4] = a4;
  out[5] = a5;
  out[6] = a6;
  out[7] = a7;
}

// Sub-block (4x4 quadrant) of row i, column j: 0 top-left, 1 bottom-left, 2 top-right, 3 bottom-right.
inline int quadrant(int i, int j) { return (i >> 2) + ((j >> 2) << 1); }

// libvmaf's variance scales (float constants as C evaluates them: 1 / 63.f * 64 and 1 / 15.f * 16).
constexpr float kVarScale64 = 1 / 63.f * 64;
constexpr float kVarScale16 = 1 / 15.f * 16;

// One picture's block: the masking strength, and its DCT in `dct`. The strength is the mask-weighted energy of the
// AC coefficients scaled by how much of the block's variance its four quadrants keep: sqrt(energy * ratio) / 32.
float block_mask(const int32_t in[64], const float* mask, int32_t dct[64]) {
  float gmean = 0;
  float means[4] = {0, 0, 0, 0};
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) {
      const float v = float(in[i * 8 + j]);
      gmean += v;
      means[quadrant(i, j)] += v;
    }
  gmean /= 64.f;
  for (float& m : means) m /= 16.f;
  float gvar = 0;
  float vars[4] = {0, 0, 0, 0};
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) {
      const int q = quadrant(i, j);
      const float v = float(in[i * 8 + j]);
      gvar += (v - gmean) * (v - gmean);
      vars[q] += (v - means[q]) * (v - means[q]);
    }
  gvar *= kVarScale64;
  for (float& v : vars) v *= kVarScale16;
  if (gvar > 0) gvar = (vars[0] + vars[1] + vars[2] + vars[3]) / gvar;

  for (int k = 0; k < 64; k++) dct[k] = in[k];
  psnr_hvs_fdct8x8(dct);
  float energy = 0;
  for (int k = 1; k < 64; k++) energy += float(dct[k] * dct[k]) * mask[k];
  // sqrt of the float product in double, divided in double, rounded to float (libvmaf's C types).
  return float(std::sqrt(double(energy * gvar)) / 32.0);
}

template <class T>
void load_block(const Plane& p, uint32_t x0, uint32_t y0, int32_t out[64]) {
  for (uint32_t i = 0; i < 8; i++) {
    const T* row = p.row<T>(y0 + i);
    for (uint32_t j = 0; j < 8; j++) out[i * 8 + j] = int32_t(uint32_t(row[size_t(x0 + j) * p.step]) >> p.shift);
  }
}

template <class R, class D>
float plane_error(const Plane& ref, const Plane& dist, const PsnrHvsTables& t, unsigned bpc) {
  const uint32_t bx = psnr_hvs_blocks(ref.w), by = psnr_hvs_blocks(ref.h);
  float sum = 0;
  int32_t r[64], d[64];
  float terms[64];
  for (uint32_t y = 0; y < by; y++)
    for (uint32_t x = 0; x < bx; x++) {
      load_block<R>(ref, x * kPsnrHvsStep, y * kPsnrHvsStep, r);
      load_block<D>(dist, x * kPsnrHvsStep, y * kPsnrHvsStep, d);
      psnr_hvs_block_terms(r, d, t, terms);
      sum = psnr_hvs_sum_terms(sum, terms, 64);
    }
  return psnr_hvs_error(sum, uint64_t(bx) * by * 64, bpc);
}

}  // namespace

const PsnrHvsTables& psnr_hvs_tables(unsigned plane) {
  static const PsnrHvsTables kTables[3] = {make_tables(kCsfLuma), make_tables(kCsfCb), make_tables(kCsfCr)};
  return kTables[plane < 3 ? plane : 0];
}

Status psnr_hvs_check(unsigned bpc, Chroma chroma) {
  if (bpc < 8 || bpc > 12)
    return {Errc::unsupported, "samples of 8 to 12 bits only (libvmaf refuses deeper ones), not " +
                                   std::to_string(bpc) + "-bit"};
  if (chroma == Chroma::k400) return {Errc::unsupported, "needs the chroma planes (libvmaf refuses 4:0:0 pictures)"};
  return Status::ok();
}

void psnr_hvs_fdct8x8(int32_t block[64]) {
  // Columns first, each written out as a row of `tmp`; then the columns of `tmp`, each written as a row of the block.
  int32_t tmp[64];
  for (int i = 0; i < 8; i++) fdct8(block + i, 8, tmp + 8 * i);
  for (int i = 0; i < 8; i++) fdct8(tmp + i, 8, block + 8 * i);
}

void psnr_hvs_block_terms(const int32_t ref[64], const int32_t dist[64], const PsnrHvsTables& t, float terms[64]) {
  int32_t dct_ref[64], dct_dist[64];
  float strength = block_mask(ref, t.mask, dct_ref);
  const float strength_dist = block_mask(dist, t.mask, dct_dist);
  if (strength_dist > strength) strength = strength_dist;
  for (int k = 0; k < 64; k++) {
    float err = float(std::abs(dct_ref[k] - dct_dist[k]));
    if (k != 0) {
      const float threshold = strength / t.mask[k];
      err = err < threshold ? 0.f : err - threshold;
    }
    terms[k] = (err * t.csf[k]) * (err * t.csf[k]);
  }
}

float psnr_hvs_sum_terms(float sum, const float* terms, uint64_t n) {
  for (uint64_t k = 0; k < n; k++) sum += terms[k];
  return sum;
}

float psnr_hvs_error(float sum, uint64_t terms, unsigned bpc) {
  // libvmaf counts the terms in an int and divides by it and by the int (2^bpc - 1)^2, both converted to float.
  const int32_t count = int32_t(terms);
  const int32_t peak = (int32_t(1) << bpc) - 1;
  sum /= float(count);
  sum /= float(peak * peak);
  return sum;
}

float psnr_hvs_plane_error(const Plane& ref, const Plane& dist, const PsnrHvsTables& t, unsigned bpc) {
  if (ref.bytes == 1 && dist.bytes == 1) return plane_error<uint8_t, uint8_t>(ref, dist, t, bpc);
  if (ref.bytes == 1) return plane_error<uint8_t, uint16_t>(ref, dist, t, bpc);
  if (dist.bytes == 1) return plane_error<uint16_t, uint8_t>(ref, dist, t, bpc);
  return plane_error<uint16_t, uint16_t>(ref, dist, t, bpc);
}

double psnr_hvs_db(double error) { return 10 * (-1 * std::log10(1.0 * error)); }

double psnr_hvs_combined_db(double error_y, double error_cb, double error_cr) {
  return psnr_hvs_db(error_y * .8 + .1 * (error_cb + error_cr));
}

Status psnr_hvs(const PictureView& ref, const PictureView& dist, PsnrHvsScores* out) {
  if (!out) return {Errc::invalid_argument, "psnr_hvs: no output"};
  VMAFX_TRY(check_pair(ref, dist).prepend("psnr_hvs"));
  if (ref.memory != MemoryKind::host || dist.memory != MemoryKind::host)
    return {Errc::unsupported, "psnr_hvs: the CPU reference reads host memory only"};
  VMAFX_TRY(psnr_hvs_check(ref.bit_depth, ref.chroma).prepend("psnr_hvs"));
  double error[3];
  for (unsigned p = 0; p < 3; p++) {
    const Plane r = p == 0 ? luma_plane(ref) : chroma_plane(ref, p);
    const Plane d = p == 0 ? luma_plane(dist) : chroma_plane(dist, p);
    error[p] = psnr_hvs_plane_error(r, d, psnr_hvs_tables(p), ref.bit_depth);
  }
  out->y = psnr_hvs_db(error[0]);
  out->cb = psnr_hvs_db(error[1]);
  out->cr = psnr_hvs_db(error[2]);
  out->psnr_hvs = psnr_hvs_combined_db(error[0], error[1], error[2]);
  return Status::ok();
}

}  // namespace vmafx::cpu
