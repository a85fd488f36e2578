// SPDX-License-Identifier: LGPL-2.1-or-later
// The kernels for AArch64's Advanced SIMD (part of every AArch64 CPU, so no flags and no symbol concerns here).
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cpu/simd/kernels.h"

namespace vmafx::cpu::neon {

namespace {
#include "cpu/simd/vec_neon.h"
#include "cpu/simd/vif_kernels.inl"
#include "cpu/simd/motion_psnr_kernels.inl"
#include "cpu/simd/ssim_kernels.inl"
#include "cpu/simd/adm_kernels.inl"
#include "cpu/simd/cambi_kernels.inl"
#include "cpu/simd/speed_kernels.inl"
}  // namespace

extern const VifKernels kVif = {vertical_row, horizontal_row, accumulate, decimate, load_plane};
extern const MotionKernels kMotion = {blur_diff_row, row_sad};
extern const PsnrKernels kPsnr = {plane_sse};
extern const SsimKernels kSsim = {ssim_plane_to_float, ssim_decimate, gaussian_valid, moments, pool};
extern const AdmKernels kAdm = {adm_dwt_row0,  adm_dwt_row1, adm_dwt_row23, adm_decouple0, adm_decouple123, adm_den0,
                                adm_den123,    adm_csf0,     adm_csf123,    adm_cm0,       adm_cm123};
extern const CambiKernels kCambi = {cambi_preprocess_simd,      cambi_spatial_mask_simd, cambi_decimate_image_simd,
                                    cambi_decimate_mask_simd,   cambi_filter_mode_simd,  cambi_c_values_simd};
extern const SpeedKernels kSpeed = {speed_load_k, speed_antialias_dec16_k, speed_subtract_local_mean_k, speed_covariance_k};

}  // namespace vmafx::cpu::neon
