// SPDX-License-Identifier: LGPL-2.1-or-later
// PSNR of Y, Cb and Cr as libvmaf's "psnr" extractor reports it (psnr_y, psnr_cb, psnr_cr, and with enable_mse
// mse_y, mse_cb, mse_cr), with every option of libvmaf 3.2's extractor: enable_chroma (off for 4:0:0), enable_mse,
// reduced_hbd_peak (peak 255 << (bpc - 8) instead of 2^bpc - 1), min_sse (caps each plane at the PSNR of that SSE
// instead of 6 * bpc + 12 dB) and enable_apsnr (the PSNR of the SSE summed over every frame, one value per plane for
// the whole stream: PsnrTotals). The 8-bit path keeps libvmaf's fixed peak of 255. libvmaf handles 8, 10, 12 and 16
// bits; other depths are refused as libvmaf refuses them.
//
// The work splits into an integer stage (the sum of squared differences of one plane pair) and a double stage (SSE
// to dB). A GPU port computes the first and must match psnr_plane_sse() bit for bit; both then share PsnrPlan's
// finishing (psnr_values), so every option gives the same doubles on both.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/plane.h"
#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

struct PsnrScores {
  double y = 0.0, cb = 0.0, cr = 0.0;
  unsigned planes = 0;  // 1 for 4:0:0 (cb and cr are left 0), else 3
};

// Ok for the depths libvmaf's psnr extractor accepts (8, 10, 12, 16); unsupported otherwise.
Status psnr_check_depth(unsigned bpc);
// The chroma planes libvmaf scores are floor-sized (floor(w / 2), and floor(h / 2) for 4:2:0): a 4:2:0 or 4:2:2
// picture one sample wide, or a 4:2:0 one one sample high, has none, and libvmaf reports the cap of identical planes
// (6 bpc + 12 dB) for its chroma whatever the chroma holds. Refused here (Errc::unsupported naming the size and the
// way out, enable_chroma=false); 4:0:0 and 4:4:4 always pass.
Status psnr_check_chroma(uint32_t width, uint32_t height, Chroma chroma);

// Sum of squared sample differences over ref.w x ref.h, accumulated in libvmaf's integer widths: 8-bit samples sum
// each row in 32 bits (wrapping as libvmaf does for rows wider than 66052 samples) and the rows in 64 bits; deeper
// samples square in 32 bits and sum in 64 bits. Planes must agree in size; layouts (step, shift) may differ.
// Runs the implementation of cpu::simd_level() (simd/kernels.h); psnr_plane_sse_scalar is the plain C++ one, the
// oracle of the others.
uint64_t psnr_plane_sse(const Plane& ref, const Plane& dist);
uint64_t psnr_plane_sse_scalar(const Plane& ref, const Plane& dist);

// The cap libvmaf applies with min_sse = 0: 6 * bpc + 12 dB.
double psnr_max_db(unsigned bpc);

// psnr_db with the default options: 10 log10(peak^2 / max(mse, 1e-16)) with mse = sse / (w * h), capped at
// psnr_max_db(bpc); the peak is 255 for 8-bit and 2^bpc - 1 otherwise. A plane of zero samples gives the cap, as in
// libvmaf.
double psnr_from_sse(uint64_t sse, uint32_t w, uint32_t h, unsigned bpc);

// libvmaf's psnr options (integer_psnr.c).
struct PsnrOptions {
  bool enable_chroma = true;
  bool enable_mse = false;
  bool enable_apsnr = false;
  bool reduced_hbd_peak = false;
  double min_sse = 0.0;
};

// What libvmaf's init derives from the options and the geometry, and the per-frame finishing of the planes' SSE.
struct PsnrPlan {
  unsigned planes = 1;         // planes scored: 1 (4:0:0 or enable_chroma=false) or 3
  uint32_t w[3] = {}, h[3] = {};  // plane sizes (chroma at libvmaf's floor size)
  unsigned bpc = 8;
  uint32_t peak = 255;         // the peak of the cap and of apsnr (255 << (bpc - 8) with reduced_hbd_peak)
  double max_db[3] = {};       // per-plane cap: 6 * bpc + 12, or with min_sse ceil(10 log10(peak^2 / (min_sse / n)))
  bool mse = false;            // enable_mse: each plane's psnr is followed by its mse
  bool apsnr = false;          // enable_apsnr: the values end with the planes' SSE (psnr_sse_of reads them back)

  // Per-frame values: psnr (and mse) of each plane, then with apsnr 2 values per plane of the three (its SSE's high
  // and low 32 bits, exact in doubles; 0 for planes not scored).
  size_t output_count() const { return planes * (mse ? 2u : 1u); }
  size_t value_count() const { return output_count() + (apsnr ? 6u : 0u); }
};

// libvmaf's init; the depth must pass psnr_check_depth.
Status psnr_plan(uint32_t width, uint32_t height, unsigned bpc, Chroma chroma, const PsnrOptions& o, PsnrPlan* out);

// libvmaf's per-frame dB of one plane: 10 log10(peak^2 / max(mse, 1e-16)), mse = sse / (w * h), capped at
// plan.max_db[plane]; the peak is 255 for 8-bit samples whatever reduced_hbd_peak says (libvmaf's 8-bit path), else
// plan.peak.
double psnr_db(const PsnrPlan& plan, unsigned plane, uint64_t sse);
// Writes plan.value_count() values from the planes' SSE (sse[p] for p < plan.planes).
void psnr_values(const PsnrPlan& plan, const uint64_t sse[3], double* out);
// The SSE of plane p (0..2) from values written by psnr_values (plan.apsnr).
uint64_t psnr_sse_of(const PsnrPlan& plan, const double* values, unsigned p);

// enable_apsnr: every frame's SSE and sample count summed per plane (in libvmaf's 64-bit integers), and the PSNR of
// the totals as libvmaf's flush computes it: 10 (log10(peak^2) + log10(n) - log10(sse)), capped at
// ceil(10 log10(peak^2 n 2)). Identical streams give the cap; a plane not scored (n = 0) gives -infinity, as libvmaf
// (which writes it as null in JSON).
class PsnrTotals {
 public:
  explicit PsnrTotals(const PsnrPlan& plan) : plan_(plan) {}
  void add(const uint64_t sse[3]);
  double apsnr(unsigned plane) const;
  static constexpr const char* kNames[3] = {"apsnr_y", "apsnr_cb", "apsnr_cr"};

 private:
  PsnrPlan plan_;
  uint64_t sse_[3] = {}, n_[3] = {};
};

// Scores every plane libvmaf scores with the default options: Y only for 4:0:0, else Y, Cb, Cr (chroma at libvmaf's
// floor size). Host memory only; ref and dist must pass check_pair().
Status psnr(const PictureView& ref, const PictureView& dist, PsnrScores* out);
// The SSE of every plane `plan` scores (sse[p] for p < plan.planes; the others 0). Host memory, checked as psnr().
Status psnr_sse(const PictureView& ref, const PictureView& dist, const PsnrPlan& plan, uint64_t sse[3]);

}  // namespace vmafx::cpu
