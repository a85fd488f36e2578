// SPDX-License-Identifier: LGPL-2.1-or-later
// The kernels of one x86 instruction set: x86_avx2.cpp and x86_avx512.cpp define VMAFX_SIMD_NS and include this
// file, each compiled with its own -m flags (engine/cpu/meson.build). Everything compiled here with wide
// instructions has internal linkage except the tables, which are only read after simd_level_supported().
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "cpu/simd/kernels.h"

namespace vmafx::cpu::VMAFX_SIMD_NS {

namespace {
#include "cpu/simd/vec_x86.h"
#include "cpu/simd/vif_kernels.inl"
#include "cpu/simd/motion_psnr_kernels.inl"
#include "cpu/simd/ssim_kernels.inl"
}  // namespace

extern const VifKernels kVif = {vertical_row, horizontal_row, accumulate, decimate, load_plane};
extern const MotionKernels kMotion = {blur_diff_row, row_sad};
extern const PsnrKernels kPsnr = {plane_sse};
extern const SsimKernels kSsim = {ssim_plane_to_float, ssim_decimate, gaussian_valid, moments, pool};

}  // namespace vmafx::cpu::VMAFX_SIMD_NS
