// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer VIF: see vif.h for the stages and the integer ranges. Widths, shifts and the order of the floating-point
// operations follow libvmaf's C path (integer_vif.c), so the scores are the same to the last bit.
#include "cpu/vif.h"

#include <cmath>
#include <limits>
#include <new>
#include <string>

#include "cpu/simd/kernels.h"

namespace vmafx::cpu {

namespace {

// Mirror without repeating the edge: -k -> k, n-1+k -> n-1-k. Valid for k < n, which kVifMinSize guarantees.
inline int64_t mirror(int64_t i, int64_t n) {
  if (i < 0) return -i;
  if (i >= n) return 2 * (n - 1) - i;
  return i;
}

// double -> int32 as x86's cvttsd2si does (libvmaf's implicit conversion on its reference machine): truncation, and
// the "integer indefinite" INT32_MIN for NaN and out-of-range values instead of undefined behaviour.
inline int32_t to_i32_trunc(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}
// double -> int64 likewise (cvttsd2si with a 64-bit destination).
inline int64_t to_i64_trunc(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// log2 of a value >= 2^17 in Q11, from its 16 leading bits: table[v >> k] + 2048 k.
inline int32_t log2_q11_32(const uint16_t* table, uint32_t v) {
  const int k = 16 - __builtin_clz(v);
  return int32_t(table[v >> k]) + 2048 * k;
}
inline int32_t log2_q11_64(const uint16_t* table, uint64_t v) {
  const int k = 48 - __builtin_clzll(v);
  return int32_t(table[v >> k]) + 2048 * k;
}

struct Log2Table {
  uint16_t v[65536] = {};
  Log2Table() {
    // libvmaf: round(log2f((float)i) * 2048). log2 in double narrowed to float gives the same table on glibc and does
    // not depend on the accuracy of the C library's log2f (tests compare both).
    for (uint32_t i = 32767; i < 65536; ++i) {
      const float l = static_cast<float>(std::log2(static_cast<double>(i)));
      v[i] = static_cast<uint16_t>(std::round(l * 2048.0f));
    }
  }
};

// Row pointers of the fw taps of output row y, mirrored at the top and bottom edges.
inline void tap_rows(const uint16_t* img, ptrdiff_t stride, uint32_t h, uint32_t y, int fw,
                             const uint16_t** rows) {
  const int half = fw / 2;
  for (int k = 0; k < fw; ++k) rows[k] = img + mirror(int64_t(y) - half + k, h) * stride;
}

}  // namespace

const uint16_t* vif_log2_table() {
  static const Log2Table table;
  return table.v;
}

VifRounding vif_vertical_rounding(unsigned scale, unsigned bpc) {
  if (scale == 0) {
    const unsigned sq_shift = 2 * (bpc - 8);
    return {bpc, 1u << (bpc - 1), sq_shift, sq_shift ? uint64_t(1) << (sq_shift - 1) : 0};
  }
  return {16, 32768, 16, 32768};
}

namespace {

// Vertical pass with the taps of kScale known at compile time. Acc holds the sums of f·x·y: uint32_t is exact when
// samples have at most 8 bits (sum < 65536 · 255² < 2^32), uint64_t otherwise.
template <unsigned kScale, class Acc>
void vertical_impl(const uint16_t* const* rrows, const uint16_t* const* drows, uint32_t w, const VifRounding& r,
                   const VifVerticalRow& out) {
  constexpr int kFw = kVifFilterWidth[kScale];
  for (uint32_t x = 0; x < w; ++x) {
    uint32_t mu1 = 0, mu2 = 0;
    Acc rr = 0, dd = 0, rd = 0;
    for (int k = 0; k < kFw; ++k) {
      const uint32_t a = rrows[k][x];
      const uint32_t b = drows[k][x];
      const uint32_t fa = uint32_t(kVifFilter[kScale][k]) * a;  // < 2^32: taps < 2^16, samples < 2^16
      const uint32_t fb = uint32_t(kVifFilter[kScale][k]) * b;
      mu1 += fa;
      mu2 += fb;
      rr += Acc(fa) * a;
      dd += Acc(fb) * b;
      rd += Acc(fa) * b;
    }
    out.mu1[x] = uint16_t((mu1 + r.mu_round) >> r.mu_shift);
    out.mu2[x] = uint16_t((mu2 + r.mu_round) >> r.mu_shift);
    out.rr[x] = uint32_t((uint64_t(rr) + r.sq_round) >> r.sq_shift);
    out.dd[x] = uint32_t((uint64_t(dd) + r.sq_round) >> r.sq_shift);
    out.rd[x] = uint32_t((uint64_t(rd) + r.sq_round) >> r.sq_shift);
  }
}

template <unsigned kScale, bool kEdge>
inline void horizontal_at(const VifVerticalRowConst& in, uint32_t w, uint32_t x, const VifFilteredRow& out) {
  constexpr int kFw = kVifFilterWidth[kScale];
  constexpr int kHalf = kFw / 2;
  uint32_t mu1 = 0, mu2 = 0;
  uint64_t xx = 0, yy = 0, xy = 0;
  for (int k = 0; k < kFw; ++k) {
    const int64_t j = kEdge ? mirror(int64_t(x) - kHalf + k, w) : int64_t(x) - kHalf + k;
    const uint32_t f = kVifFilter[kScale][k];
    mu1 += f * in.mu1[j];
    mu2 += f * in.mu2[j];
    xx += uint64_t(f) * in.rr[j];
    yy += uint64_t(f) * in.dd[j];
    xy += uint64_t(f) * in.rd[j];
  }
  out.mu1[x] = mu1;
  out.mu2[x] = mu2;
  out.xx[x] = uint32_t((xx + 32768) >> 16);
  out.yy[x] = uint32_t((yy + 32768) >> 16);
  out.xy[x] = uint32_t((xy + 32768) >> 16);
}

template <unsigned kScale>
void horizontal_impl(const VifVerticalRowConst& in, uint32_t w, const VifFilteredRow& out) {
  constexpr uint32_t kHalf = uint32_t(kVifFilterWidth[kScale] / 2);
  const uint32_t lo = kHalf < w ? kHalf : w;
  const uint32_t hi = w > kHalf ? w - kHalf : 0;
  uint32_t x = 0;
  for (; x < lo; ++x) horizontal_at<kScale, true>(in, w, x, out);
  for (; x < hi; ++x) horizontal_at<kScale, false>(in, w, x, out);
  for (; x < w; ++x) horizontal_at<kScale, true>(in, w, x, out);
}

}  // namespace

void vif_vertical_row(unsigned scale, unsigned bpc, const uint16_t* ref, const uint16_t* dist, ptrdiff_t stride,
                      uint32_t w, uint32_t h, uint32_t y, const VifVerticalRow& out) {
  const int fw = kVifFilterWidth[scale];
  const VifRounding r = vif_vertical_rounding(scale, bpc);
  const uint16_t* rrows[17];
  const uint16_t* drows[17];
  tap_rows(ref, stride, h, y, fw, rrows);
  tap_rows(dist, stride, h, y, fw, drows);
  switch (scale) {
    case 0:
      if (bpc == 8)
        vertical_impl<0, uint32_t>(rrows, drows, w, r, out);
      else
        vertical_impl<0, uint64_t>(rrows, drows, w, r, out);
      break;
    case 1: vertical_impl<1, uint64_t>(rrows, drows, w, r, out); break;
    case 2: vertical_impl<2, uint64_t>(rrows, drows, w, r, out); break;
    default: vertical_impl<3, uint64_t>(rrows, drows, w, r, out); break;
  }
}

void vif_horizontal_row(unsigned scale, const VifVerticalRowConst& in, uint32_t w, const VifFilteredRow& out) {
  switch (scale) {
    case 0: horizontal_impl<0>(in, w, out); break;
    case 1: horizontal_impl<1>(in, w, out); break;
    case 2: horizontal_impl<2>(in, w, out); break;
    default: horizontal_impl<3>(in, w, out); break;
  }
}

void vif_filter_plane(unsigned scale, unsigned bpc, const uint16_t* ref, const uint16_t* dist, ptrdiff_t stride,
                      uint32_t w, uint32_t h, const VifFilteredPlanes& out, uint32_t* scratch) {
  const VifVerticalRow v{scratch, scratch + w, scratch + 2 * size_t(w), scratch + 3 * size_t(w),
                         scratch + 4 * size_t(w)};
  const VifVerticalRowConst vc{v.mu1, v.mu2, v.rr, v.dd, v.rd};
  for (uint32_t y = 0; y < h; ++y) {
    vif_vertical_row(scale, bpc, ref, dist, stride, w, h, y, v);
    const ptrdiff_t o = ptrdiff_t(y) * out.stride;
    vif_horizontal_row(scale, vc, w, {out.mu1 + o, out.mu2 + o, out.xx + o, out.yy + o, out.xy + o});
  }
}

void vif_accumulate(const VifFilteredRowConst& in, uint32_t n, double enhn_gain_limit, VifAccum* acc) {
  const uint16_t* log2_table = vif_log2_table();
  // libvmaf's epsilon in the gain's denominator, in the Q16 variance domain.
  const double eps = 65536 * 1.0e-10;
  int64_t num_log = 0, den_log = 0, num_non_log = 0, den_non_log = 0;
  for (uint32_t x = 0; x < n; ++x) {
    const uint32_t mu1 = in.mu1[x];
    const uint32_t mu2 = in.mu2[x];
    // Q16·Q16 = Q32 products back to Q16 (rounded), as 32-bit values.
    const uint32_t mu1_sq = uint32_t((uint64_t(mu1) * mu1 + 2147483648u) >> 32);
    const uint32_t mu2_sq = uint32_t((uint64_t(mu2) * mu2 + 2147483648u) >> 32);
    const uint32_t mu1_mu2 = uint32_t((uint64_t(mu1) * mu2 + 2147483648u) >> 32);
    // Differences wrap in 32 bits and are read as signed, as libvmaf does.
    const int32_t sigma1_sq = int32_t(in.xx[x] - mu1_sq);
    int32_t sigma2_sq = int32_t(in.yy[x] - mu2_sq);
    const int32_t sigma12 = int32_t(in.xy[x] - mu1_mu2);
    if (sigma2_sq < 0) sigma2_sq = 0;

    if (sigma1_sq >= kVifSigmaNsq) {
      den_log += log2_q11_32(log2_table, uint32_t(kVifSigmaNsq) + uint32_t(sigma1_sq)) - 2048 * 17;
      if (sigma12 > 0 && sigma2_sq > 0) {
        double g = sigma12 / (sigma1_sq + eps);
        int32_t sv_sq = to_i32_trunc(sigma2_sq - g * sigma12);
        if (sv_sq < 0) sv_sq = 0;
        g = g < enhn_gain_limit ? g : enhn_gain_limit;
        const uint32_t numer1 = uint32_t(sv_sq) + uint32_t(kVifSigmaNsq);
        const int64_t numer1_tmp = to_i64_trunc(g * g * sigma1_sq) + numer1;
        num_log += log2_q11_64(log2_table, uint64_t(numer1_tmp)) - log2_q11_64(log2_table, numer1);
      }
    } else {
      num_non_log += sigma2_sq;
      den_non_log++;
    }
  }
  acc->num_log += num_log;
  acc->den_log += den_log;
  acc->num_non_log += num_non_log;
  acc->den_non_log += den_non_log;
}

VifAccum vif_accumulate_plane(const VifFilteredPlanes& in, uint32_t w, uint32_t h, double enhn_gain_limit) {
  VifAccum acc;
  for (uint32_t y = 0; y < h; ++y) {
    const ptrdiff_t o = ptrdiff_t(y) * in.stride;
    vif_accumulate({in.mu1 + o, in.mu2 + o, in.xx + o, in.yy + o, in.xy + o}, w, enhn_gain_limit, &acc);
  }
  return acc;
}

void vif_num_den(const VifAccum& acc, float* num, float* den) {
  // 16384 * 65025: the Q16 variance of the non-log pixels relative to 255² (libvmaf's normalisation, all depths).
  *num = static_cast<float>(acc.num_log / 2048.0 +
                            (acc.den_non_log - (acc.num_non_log / 16384.0) / 65025.0));
  *den = static_cast<float>(acc.den_log / 2048.0 + acc.den_non_log);
}

double vif_scale_score(float num, float den) {
  const float score = num / den;
  return score;
}

void vif_decimate(unsigned scale, unsigned bpc, const uint16_t* ref, const uint16_t* dist, ptrdiff_t stride,
                  uint32_t w, uint32_t h, uint16_t* ref_out, uint16_t* dist_out, ptrdiff_t out_stride,
                  uint32_t* scratch) {
  const unsigned fs = scale + 1;
  const int fw = kVifFilterWidth[fs];
  const int half = fw / 2;
  const uint16_t* filt = kVifFilter[fs];
  const VifRounding r = vif_vertical_rounding(scale == 0 ? 0 : 1, bpc);
  uint32_t* vr = scratch;
  uint32_t* vd = scratch + w;
  const uint16_t* rrows[17];
  const uint16_t* drows[17];
  const uint32_t ow = w / 2, oh = h / 2;
  for (uint32_t oy = 0; oy < oh; ++oy) {
    const uint32_t y = 2 * oy;
    tap_rows(ref, stride, h, y, fw, rrows);
    tap_rows(dist, stride, h, y, fw, drows);
    for (uint32_t x = 0; x < w; ++x) {
      uint32_t ar = 0, ad = 0;
      for (int k = 0; k < fw; ++k) {
        ar += uint32_t(filt[k]) * rrows[k][x];
        ad += uint32_t(filt[k]) * drows[k][x];
      }
      vr[x] = uint16_t((ar + r.mu_round) >> r.mu_shift);
      vd[x] = uint16_t((ad + r.mu_round) >> r.mu_shift);
    }
    uint16_t* ro = ref_out + ptrdiff_t(oy) * out_stride;
    uint16_t* dout = dist_out + ptrdiff_t(oy) * out_stride;
    for (uint32_t ox = 0; ox < ow; ++ox) {
      const int64_t x = 2 * int64_t(ox);
      uint32_t ar = 0, ad = 0;
      for (int k = 0; k < fw; ++k) {
        const int64_t j = mirror(x - half + k, w);
        ar += uint32_t(filt[k]) * vr[j];
        ad += uint32_t(filt[k]) * vd[j];
      }
      ro[ox] = uint16_t((ar + 32768) >> 16);
      dout[ox] = uint16_t((ad + 32768) >> 16);
    }
  }
}

void vif_load_plane(const Plane& p, uint16_t* out, ptrdiff_t stride) {
  for (uint32_t y = 0; y < p.h; ++y) {
    uint16_t* o = out + ptrdiff_t(y) * stride;
    if (p.bytes == 1) {
      const uint8_t* s = p.row<uint8_t>(y);
      for (uint32_t x = 0; x < p.w; ++x) o[x] = s[size_t(x) * p.step];
    } else {
      const uint16_t* s = p.row<uint16_t>(y);
      for (uint32_t x = 0; x < p.w; ++x) o[x] = uint16_t(s[size_t(x) * p.step] >> p.shift);
    }
  }
}

// ---- Vif ------------------------------------------------------------------------------------------------------

Status Vif::check_size(uint32_t w, uint32_t h) {
  if (w < kVifMinSize || h < kVifMinSize)
    return {Errc::unsupported, "vif needs at least " + std::to_string(kVifMinSize) + "x" +
                                   std::to_string(kVifMinSize) + " luma samples, got " + std::to_string(w) + "x" +
                                   std::to_string(h)};
  return Status::ok();
}

Status Vif::init(uint32_t w, uint32_t h, unsigned bpc, const VifOptions& opts) {
  w_ = h_ = 0;
  VMAFX_TRY(check_size(w, h));
  if (bpc < 8 || bpc > 16)
    return {Errc::unsupported, "vif: bit depth " + std::to_string(bpc) + " is outside 8..16"};
  if (!(opts.enhn_gain_limit >= 1.0 && opts.enhn_gain_limit <= kVifDefaultEnhnGainLimit))
    return {Errc::invalid_argument,
            "vif: vif_enhn_gain_limit " + std::to_string(opts.enhn_gain_limit) + " is outside 1.0..100.0"};
  const size_t n0 = size_t(w) * h;
  const size_t n1 = size_t(w / 2) * (h / 2);
  try {
    images_.assign(2 * n0 + 2 * n1, 0);
    rows_.assign(10 * size_t(w), 0);
  } catch (const std::bad_alloc&) {
    images_.clear();
    rows_.clear();
    return {Errc::out_of_memory,
            "vif: scratch images for " + std::to_string(w) + "x" + std::to_string(h) + " do not fit in memory"};
  }
  w_ = w;
  h_ = h;
  bpc_ = bpc;
  enhn_gain_limit_ = opts.enhn_gain_limit;
  vif_log2_table();  // built here rather than on the first frame
  return Status::ok();
}

namespace {

Status check_plane(const char* what, const Plane& p, uint32_t w, uint32_t h, unsigned bpc) {
  const std::string name = std::string("vif: ") + what;
  if (!p.data) return {Errc::invalid_argument, name + " plane has no data"};
  if (p.w != w || p.h != h)
    return {Errc::unsupported, name + " is " + std::to_string(p.w) + "x" + std::to_string(p.h) +
                                   ", the extractor was set up for " + std::to_string(w) + "x" + std::to_string(h)};
  if (p.bpc != bpc)
    return {Errc::unsupported, name + " has bit depth " + std::to_string(p.bpc) + ", the extractor was set up for " +
                                   std::to_string(bpc)};
  if (p.bytes != 1 && p.bytes != 2)
    return {Errc::invalid_argument, name + " has " + std::to_string(p.bytes) + " bytes per sample"};
  if (p.bytes == 1 && bpc > 8)
    return {Errc::invalid_argument, name + ": a " + std::to_string(bpc) + "-bit sample needs 2 bytes"};
  if (p.step == 0 || p.shift > 15) return {Errc::invalid_argument, name + " has an invalid step or shift"};
  const uint64_t row_bytes = (uint64_t(w - 1) * p.step + 1) * p.bytes;
  const uint64_t abs_stride = p.stride < 0 ? uint64_t(-p.stride) : uint64_t(p.stride);
  if (abs_stride < row_bytes)
    return {Errc::invalid_argument,
            name + " stride " + std::to_string(p.stride) + " does not hold a row of " + std::to_string(row_bytes) +
                " bytes"};
  return Status::ok();
}

}  // namespace

Status Vif::compute(const Plane& ref, const Plane& dist, VifScores* out, VifAccum* accums) {
  if (!w_) return {Errc::invalid_argument, "vif: compute called before a successful init"};
  if (!out) return {Errc::invalid_argument, "vif: no output"};
  VMAFX_TRY(check_plane("reference", ref, w_, h_, bpc_));
  VMAFX_TRY(check_plane("distorted", dist, w_, h_, bpc_));

  // Two image slots: [a] holds scales 0 and 2, [b] scales 1 and 3. Each slot is ref then dist.
  const size_t n0 = size_t(w_) * h_;
  const size_t n1 = size_t(w_ / 2) * (h_ / 2);
  uint16_t* slot[2] = {images_.data(), images_.data() + 2 * n0};
  size_t slot_half[2] = {n0, n1};

  // The stage functions of cpu::simd_level() (simd/kernels.h): the same results as the scalar ones above.
  const VifKernels& k = vif_kernels();
  uint32_t w = w_, h = h_;
  k.load_plane(ref, slot[0], w);
  k.load_plane(dist, slot[0] + n0, w);

  uint32_t* r = rows_.data();
  const VifVerticalRow vrow{r, r + w_, r + 2 * size_t(w_), r + 3 * size_t(w_), r + 4 * size_t(w_)};
  const VifVerticalRowConst vrow_c{vrow.mu1, vrow.mu2, vrow.rr, vrow.dd, vrow.rd};
  uint32_t* f = r + 5 * size_t(w_);
  const VifFilteredRow frow{f, f + w_, f + 2 * size_t(w_), f + 3 * size_t(w_), f + 4 * size_t(w_)};
  const VifFilteredRowConst frow_c{frow.mu1, frow.mu2, frow.xx, frow.yy, frow.xy};

  for (unsigned s = 0; s < kVifScales; ++s) {
    const uint16_t* cur_ref = slot[s & 1];
    const uint16_t* cur_dist = slot[s & 1] + slot_half[s & 1];
    VifAccum acc;
    for (uint32_t y = 0; y < h; ++y) {
      k.vertical_row(s, bpc_, cur_ref, cur_dist, w, w, h, y, vrow);
      k.horizontal_row(s, vrow_c, w, frow);
      k.accumulate(frow_c, w, enhn_gain_limit_, &acc);
    }
    float num, den;
    vif_num_den(acc, &num, &den);
    out->scale[s] = vif_scale_score(num, den);
    if (accums) accums[s] = acc;
    if (s + 1 < kVifScales) {
      uint16_t* next = slot[(s + 1) & 1];
      const size_t next_half = size_t(w / 2) * (h / 2);
      slot_half[(s + 1) & 1] = next_half;
      k.decimate(s, bpc_, cur_ref, cur_dist, w, w, h, next, next + next_half, w / 2, r);
      w /= 2;
      h /= 2;
    }
  }
  return Status::ok();
}

}  // namespace vmafx::cpu
