// SPDX-License-Identifier: LGPL-2.1-or-later
// PSNR of Y, Cb and Cr as libvmaf's "psnr" extractor reports it (psnr_y, psnr_cb, psnr_cr) with its default options:
// chroma on (off for 4:0:0), min_sse 0 so each plane is capped at 6 * bpc + 12 dB, peak 255 for 8-bit samples and
// 2^bpc - 1 for deeper ones. libvmaf handles 8, 10, 12 and 16 bits; other depths are refused as libvmaf refuses them.
//
// The work splits into an integer stage (the sum of squared differences of one plane pair) and a double stage (SSE
// to dB). A GPU port computes the first and must match psnr_plane_sse() bit for bit; both then share psnr_from_sse().
#pragma once

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

// Sum of squared sample differences over ref.w x ref.h, accumulated in libvmaf's integer widths: 8-bit samples sum
// each row in 32 bits (wrapping as libvmaf does for rows wider than 66052 samples) and the rows in 64 bits; deeper
// samples square in 32 bits and sum in 64 bits. Planes must agree in size; layouts (step, shift) may differ.
// Runs the implementation of cpu::simd_level() (simd/kernels.h); psnr_plane_sse_scalar is the plain C++ one, the
// oracle of the others.
uint64_t psnr_plane_sse(const Plane& ref, const Plane& dist);
uint64_t psnr_plane_sse_scalar(const Plane& ref, const Plane& dist);

// The cap libvmaf applies with min_sse = 0: 6 * bpc + 12 dB.
double psnr_max_db(unsigned bpc);

// 10 log10(peak^2 / max(mse, 1e-16)) with mse = sse / (w * h), capped at psnr_max_db(bpc); the peak is 255 for
// 8-bit and 2^bpc - 1 otherwise. A plane of zero samples gives the cap, as in libvmaf.
double psnr_from_sse(uint64_t sse, uint32_t w, uint32_t h, unsigned bpc);

// Scores every plane libvmaf scores: Y only for 4:0:0, else Y, Cb, Cr (chroma at libvmaf's floor size).
// Host memory only; ref and dist must pass check_pair().
Status psnr(const PictureView& ref, const PictureView& dist, PsnrScores* out);

}  // namespace vmafx::cpu
