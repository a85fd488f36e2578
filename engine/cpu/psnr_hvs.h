// SPDX-License-Identifier: LGPL-2.1-or-later
// PSNR-HVS as libvmaf's "psnr_hvs" extractor reports it (psnr_hvs_y, psnr_hvs_cb, psnr_hvs_cr, psnr_hvs; libvmaf takes
// it from Xiph's Daala tools). For each plane, 8x8 blocks whose top-left corners lie 7 samples apart (blocks overlap by
// one row and column; only blocks wholly inside the plane count) are transformed with Daala's integer 8x8 DCT; each
// coefficient's |ref - dist| is lowered by a contrast-masking threshold (the DC term is not), weighted by a CSF table
// and squared. The plane's error is the mean of those squares over every coefficient of every block, divided by
// (2^bpc - 1)^2, and its score is -10 log10(error). psnr_hvs is the score of 0.8 * error_y + 0.1 * (error_cb +
// error_cr). Chroma uses the 4:2:0 CSF tables whatever the subsampling, as libvmaf does.
//
// Every operation has libvmaf's type (int32 samples and DCT, float statistics and sums, double sqrt, log10 and
// combination) and its order; the build adds no FMA contraction, so the scores equal libvmaf's bit for bit. The error
// of a plane is one float sum of all its blocks' terms in block-row, block, coefficient order: a GPU port computes
// the terms (psnr_hvs_block_terms) and adds them in that order (psnr_hvs_sum_terms).
//
// libvmaf refuses samples deeper than 12 bits and 4:0:0 pictures; so does this. A plane without a whole block (fewer
// than 8 samples on an axis) has no terms: its error is 0 / 0, NaN, and its score and psnr_hvs are NaN, as in
// libvmaf (its JSON writes null). Identical planes give error 0 and a score of +infinity (null as well).
#pragma once

#include <cstdint>

#include "cpu/plane.h"
#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

inline constexpr int kPsnrHvsBlock = 8;
inline constexpr int kPsnrHvsStep = 7;  // distance between the corners of neighbouring blocks

// The CSF weights of one plane and its masking weights, row-major by (vertical, horizontal) frequency.
struct PsnrHvsTables {
  float csf[64];
  float mask[64];  // float((csf * 0.3885746225901003)^2), computed in double
};
// 0: luma, 1: Cb, 2: Cr.
const PsnrHvsTables& psnr_hvs_tables(unsigned plane);

// Blocks along an axis of n samples: corners at 0, 7, 14, ... while corner + 8 <= n.
inline uint32_t psnr_hvs_blocks(uint32_t n) { return n < 8 ? 0u : (n - 8) / kPsnrHvsStep + 1; }

// Ok for 4:2:0, 4:2:2 and 4:4:4 pictures of 8 to 12 bits; unsupported (naming libvmaf's limit) otherwise. The
// message does not name the feature (callers prepend it).
Status psnr_hvs_check(unsigned bpc, Chroma chroma);

// Daala's integer 8x8 forward DCT (od_bin_fdct8x8) in place: rows of 8 int32, vertical frequency first.
void psnr_hvs_fdct8x8(int32_t block[64]);

// The 64 terms one block adds, in the order they are added (row-major): ref and dist are its samples, row-major.
void psnr_hvs_block_terms(const int32_t ref[64], const int32_t dist[64], const PsnrHvsTables& t, float terms[64]);

// Adds n terms to `sum` one after another in float (the order of the plane's sum).
float psnr_hvs_sum_terms(float sum, const float* terms, uint64_t n);

// A plane's error from its float sum of `terms` terms (64 per block): sum / terms / (2^bpc - 1)^2 in float.
float psnr_hvs_error(float sum, uint64_t terms, unsigned bpc);

// A plane's error: every block of a w x h plane pair (ref and dist of the same size; their layouts may differ).
float psnr_hvs_plane_error(const Plane& ref, const Plane& dist, const PsnrHvsTables& t, unsigned bpc);

// -10 log10(error) as libvmaf writes it (10 * (-1 * log10(1.0 * error))).
double psnr_hvs_db(double error);
// psnr_hvs from the three planes' errors: 0.8 * y + 0.1 * (cb + cr), in decibels.
double psnr_hvs_combined_db(double error_y, double error_cb, double error_cr);

struct PsnrHvsScores {
  double y = 0.0, cb = 0.0, cr = 0.0, psnr_hvs = 0.0;  // libvmaf's psnr_hvs_y, _cb, _cr, psnr_hvs
};

// Scores a picture pair (host memory; must pass check_pair and psnr_hvs_check).
Status psnr_hvs(const PictureView& ref, const PictureView& dist, PsnrHvsScores* out);

}  // namespace vmafx::cpu
