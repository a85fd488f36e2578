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
  const uint32_t peak = bpc == 8 ? 255u : (1u << bpc) - 1u;
  const uint32_t peak_sq = peak * peak;  // fits 32 bits up to 16-bit samples
  const uint32_t n = w * h;
  const double mse = double(sse) / double(n);
  const double floor_mse = mse > 1e-16 ? mse : 1e-16;  // a NaN mse (no samples) takes the floor
  const double db = 10. * std::log10(double(peak_sq) / floor_mse);
  const double cap = psnr_max_db(bpc);
  return db < cap ? db : cap;
}

Status psnr(const PictureView& ref, const PictureView& dist, PsnrScores* out) {
  if (!out) return {Errc::invalid_argument, "psnr: no output"};
  VMAFX_TRY(check_pair(ref, dist).prepend("psnr"));
  if (ref.memory != MemoryKind::host || dist.memory != MemoryKind::host)
    return {Errc::unsupported, "psnr: the CPU reference reads host memory only"};
  VMAFX_TRY(psnr_check_depth(ref.bit_depth));

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

}  // namespace vmafx::cpu
