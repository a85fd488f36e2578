// SPDX-License-Identifier: LGPL-2.1-or-later
// The kernels for AArch64's Advanced SIMD (part of every AArch64 CPU, so no flags and no symbol concerns here).
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "cpu/simd/kernels.h"

namespace vmafx::cpu::neon {

namespace {
#include "cpu/simd/vec_neon.h"
#include "cpu/simd/vif_kernels.inl"
#include "cpu/simd/motion_psnr_kernels.inl"
#include "cpu/simd/ssim_kernels.inl"
}  // namespace

extern const VifKernels kVif = {vertical_row, horizontal_row, accumulate, decimate, load_plane};
extern const MotionKernels kMotion = {blur_diff_row, row_sad};
extern const PsnrKernels kPsnr = {plane_sse};
extern const SsimKernels kSsim = {ssim_plane_to_float, ssim_decimate, gaussian_valid, moments, pool};

}  // namespace vmafx::cpu::neon
