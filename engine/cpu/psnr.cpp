// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu/psnr.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "cpu/simd/kernels.h"

namespace vmafx::cpu {

namespace {

// One row of `w` samples: element x sits at row[x * step] and holds its sample in the bits above `shift`.
template <class T>
inline uint32_t sample(const T* row, uint32_t x, unsigned step, unsigned shift) {
  return uint32_t(row[size_t(x) * step]) >> shift;
}

// libvmaf's two accumulations. 8-bit: squares of differences summed per row in 32 bits, rows in 64 bits. Deeper
// samples: |difference| squared in 32 bits, summed in 64 bits.
template <class R, class D>
uint64_t plane_sse(const Plane& ref, const Plane& dist) {
  uint64_t sse = 0;
  for (uint32_t y = 0; y < ref.h; y++) {
    const R* r = ref.row<R>(y);
    const D* d = dist.row<D>(y);
    if (ref.bpc == 8) {
      uint32_t row_sse = 0;
      for (uint32_t x = 0; x < ref.w; x++) {
        const int16_t e = int16_t(int(sample(r, x, ref.step, ref.shift)) - int(sample(d, x, dist.step, dist.shift)));
        row_sse += uint32_t(int(e) * int(e));
      }
      sse += row_sse;
    } else {
      for (uint32_t x = 0; x < ref.w; x++) {
        const uint32_t e =
            uint32_t(std::abs(int(sample(r, x, ref.step, ref.shift)) - int(sample(d, x, dist.step, dist.shift))));
        sse += uint32_t(e * e);
      }
    }
  }
  return sse;
}

}  // namespace

Status psnr_check_depth(unsigned bpc) {
  if (bpc == 8 || bpc == 10 || bpc == 12 || bpc == 16) return Status::ok();
  return {Errc::unsupported, "psnr handles 8, 10, 12 and 16-bit samples (as libvmaf), not " + std::to_string(bpc) +
                                 "-bit"};
}

uint64_t psnr_plane_sse(const Plane& ref, const Plane& dist) { return psnr_kernels().plane_sse(ref, dist); }

uint64_t psnr_plane_sse_scalar(const Plane& ref, const Plane& dist) {
  if (ref.bytes == 1 && dist.bytes == 1) return plane_sse<uint8_t, uint8_t>(ref, dist);
  if (ref.bytes == 1) return plane_sse<uint8_t, uint16_t>(ref, dist);
  if (dist.bytes == 1) return plane_sse<uint16_t, uint8_t>(ref, dist);
  return plane_sse<uint16_t, uint16_t>(ref, dist);
}

double psnr_max_db(unsigned bpc) { return double(6 * bpc + 12); }

double psnr_from_sse(uint64_t sse, uint32_t w, uint32_t h, unsigned bpc) {
  PsnrPlan plan;
  plan.w[0] = w;
  plan.h[0] = h;
  plan.bpc = bpc;
  plan.peak = bpc == 8 ? 255u : (1u << bpc) - 1u;
  plan.max_db[0] = psnr_max_db(bpc);
  return psnr_db(plan, 0, sse);
}

Status psnr_check_chroma(uint32_t width, uint32_t height, Chroma chroma) {
  if (chroma == Chroma::k400 || chroma == Chroma::k444) return Status::ok();
  const uint32_t cw = chroma_width(chroma, width), ch = chroma_height(chroma, height);
  if (cw > 0 && ch > 0) return Status::ok();
  return {Errc::unsupported,
          "a " + std::to_string(width) + "x" + std::to_string(height) + (chroma == Chroma::k420 ? " 4:2:0" : " 4:2:2") +
              " picture has no chroma sample to score: libvmaf's chroma planes are floor-sized (" + std::to_string(cw) +
              "x" + std::to_string(ch) + " here), and libvmaf reports the cap of identical planes for them whatever "
              "they hold; score the luma alone with enable_chroma=false"};
}

Status psnr_plan(uint32_t width, uint32_t height, unsigned bpc, Chroma chroma, const PsnrOptions& o, PsnrPlan* out) {
  VMAFX_TRY(psnr_check_depth(bpc));
  if (o.enable_chroma) VMAFX_TRY(psnr_check_chroma(width, height, chroma));
  if (!(o.min_sse >= 0.0)) return {Errc::invalid_argument, "psnr: min_sse must be at least 0"};
  PsnrPlan p;
  p.bpc = bpc;
  p.planes = (chroma == Chroma::k400 || !o.enable_chroma) ? 1 : 3;
  p.mse = o.enable_mse;
  p.apsnr = o.enable_apsnr;
  // libvmaf: reduced_hbd_peak ? 255 * 1 << (bpc - 8) : (1 << bpc) - 1, in 32 bits.
  p.peak = o.reduced_hbd_peak ? 255u << (bpc - 8) : (1u << bpc) - 1u;
  p.w[0] = width;
  p.h[0] = height;
  for (unsigned i = 1; i < 3; i++) {
    p.w[i] = chroma == Chroma::k400 ? 0 : chroma_width(chroma, width);
    p.h[i] = chroma == Chroma::k400 ? 0 : chroma_height(chroma, height);
  }
  for (unsigned i = 0; i < 3; i++) {
    if (o.min_sse != 0.0) {
      // libvmaf's sample count: chroma w / 2 unless 4:4:4, h / 2 for 4:2:0 (the floor sizes of the planes scored).
      const bool ss_hor = chroma != Chroma::k444;
      const bool ss_ver = chroma == Chroma::k420;
      const uint32_t n = ((i && ss_hor) ? width / 2 : width) * ((i && ss_ver) ? height / 2 : height);
      const double mse = o.min_sse / n;
      const uint32_t peak_sq = p.peak * p.peak;  // fits 32 bits up to 16-bit samples
      p.max_db[i] = std::ceil(10. * std::log10(peak_sq / mse));
    } else {
      p.max_db[i] = psnr_max_db(bpc);
    }
  }
  *out = p;
  return Status::ok();
}

double psnr_db(const PsnrPlan& plan, unsigned plane, uint64_t sse) {
  const uint32_t peak = plan.bpc == 8 ? 255u : plan.peak;
  const uint32_t peak_sq = peak * peak;  // fits 32 bits up to 16-bit samples
  const uint32_t n = plan.w[plane] * plan.h[plane];
  const double mse = double(sse) / double(n);
  const double floor_mse = mse > 1e-16 ? mse : 1e-16;  // a NaN mse (no samples) takes the floor
  const double db = 10. * std::log10(double(peak_sq) / floor_mse);
  const double cap = plan.max_db[plane];
  return db < cap ? db : cap;
}

void psnr_values(const PsnrPlan& plan, const uint64_t sse[3], double* out) {
  size_t k = 0;
  for (unsigned p = 0; p < plan.planes; p++) {
    out[k++] = psnr_db(plan, p, sse[p]);
    if (plan.mse) out[k++] = double(sse[p]) / double(uint32_t(plan.w[p] * plan.h[p]));
  }
  if (!plan.apsnr) return;
  for (unsigned p = 0; p < 3; p++) {
    const uint64_t v = p < plan.planes ? sse[p] : 0;
    out[k++] = double(uint32_t(v >> 32));
    out[k++] = double(uint32_t(v));
  }
}

uint64_t psnr_sse_of(const PsnrPlan& plan, const double* values, unsigned p) {
  const double* v = values + plan.output_count() + 2 * p;
  return (uint64_t(v[0]) << 32) | uint64_t(v[1]);
}

void PsnrTotals::add(const uint64_t sse[3]) {
  for (unsigned p = 0; p < plan_.planes; p++) {
    sse_[p] += sse[p];
    n_[p] += uint32_t(plan_.w[p] * plan_.h[p]);  // libvmaf adds h * w computed in 32 bits
  }
}

double PsnrTotals::apsnr(unsigned p) const {
  const uint32_t peak_sq = plan_.peak * plan_.peak;
  // libvmaf's flush, in its types: the sums as uint64, the cap's product in 64-bit unsigned arithmetic.
  const double apsnr = 10 * (std::log10(double(peak_sq)) + std::log10(double(n_[p])) - std::log10(double(sse_[p])));
  const double max_apsnr = std::ceil(10 * std::log10(double(uint64_t(peak_sq) * n_[p] * 2u)));
  return apsnr < max_apsnr ? apsnr : max_apsnr;  // libvmaf's MIN: NaN (no samples) takes the cap, -infinity
}

Status psnr(const PictureView& ref, const PictureView& dist, PsnrScores* out) {
  if (!out) return {Errc::invalid_argument, "psnr: no output"};
  VMAFX_TRY(check_pair(ref, dist).prepend("psnr"));
  if (ref.memory != MemoryKind::host || dist.memory != MemoryKind::host)
    return {Errc::unsupported, "psnr: the CPU reference reads host memory only"};
  VMAFX_TRY(psnr_check_depth(ref.bit_depth));
  VMAFX_TRY(psnr_check_chroma(ref.width, ref.height, ref.chroma));

  PsnrScores s;
  s.planes = ref.plane_count();
  double* dst[3] = {&s.y, &s.cb, &s.cr};
  for (unsigned p = 0; p < s.planes; p++) {
    const Plane r = p == 0 ? luma_plane(ref) : chroma_plane(ref, p);
    const Plane d = p == 0 ? luma_plane(dist) : chroma_plane(dist, p);
    *dst[p] = psnr_from_sse(psnr_plane_sse(r, d), r.w, r.h, ref.bit_depth);
  }
  *out = s;
  return Status::ok();
}

Status psnr_sse(const PictureView& ref, const PictureView& dist, const PsnrPlan& plan, uint64_t sse[3]) {
  VMAFX_TRY(check_pair(ref, dist).prepend("psnr"));
  if (ref.memory != MemoryKind::host || dist.memory != MemoryKind::host)
    return {Errc::unsupported, "psnr: the CPU reference reads host memory only"};
  if (ref.bit_depth != plan.bpc || ref.width != plan.w[0] || ref.height != plan.h[0] ||
      plan.planes > ref.plane_count())
    return {Errc::invalid_argument, "psnr: the picture does not match the plan"};
  for (unsigned p = 0; p < 3; p++) {
    sse[p] = 0;
    if (p >= plan.planes) continue;
    const Plane r = p == 0 ? luma_plane(ref) : chroma_plane(ref, p);
    const Plane d = p == 0 ? luma_plane(dist) : chroma_plane(dist, p);
    sse[p] = psnr_plane_sse(r, d);
  }
  return Status::ok();
}

}  // namespace vmafx::cpu
