// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu/simd/kernels.h"

// VMAFX_HAVE_AVX2 / _AVX512 / _NEON: the instruction sets this build has kernels for (engine/cpu/meson.build writes
// them to simd_config.h; scripts/check_arm64.sh passes -DVMAFX_HAVE_NEON).
#if __has_include("cpu/simd_config.h")
#include "cpu/simd_config.h"
#endif

namespace vmafx::cpu {

namespace {

const VifKernels kScalarVif = {vif_vertical_row, vif_horizontal_row, vif_accumulate, vif_decimate, vif_load_plane};
const MotionKernels kScalarMotion = {motion_blur_diff_row, motion_row_sad};
const PsnrKernels kScalarPsnr = {psnr_plane_sse_scalar};
const SsimKernels kScalarSsim = {plane_to_float_scalar, decimate_scalar, ssim_gaussian_valid_scalar,
                                 ssim_moments_scalar, ssim_pool_scalar};
const AdmKernels kScalarAdm = {adm_dwt_row_scale0,      adm_dwt_row_scale1,        adm_dwt_row_scale23,
                               adm_decouple_row_scale0, adm_decouple_row_scale123, adm_den_row_scale0,
                               adm_den_row_scale123,    adm_csf_row_scale0,        adm_csf_row_scale123,
                               adm_cm_row_scale0,       adm_cm_row_scale123};
const CambiKernels kScalarCambi = {cambi_preprocess,
                                   cambi_spatial_mask,
                                   static_cast<void (*)(uint16_t*, ptrdiff_t, uint32_t, uint32_t)>(cambi_decimate),
                                   static_cast<void (*)(uint8_t*, ptrdiff_t, uint32_t, uint32_t)>(cambi_decimate),
                                   cambi_filter_mode,
                                   cambi_c_values};
const SpeedKernels kScalarSpeed = {speed_load, speed_antialias_dec16, speed_subtract_local_mean, speed_covariance};

template <class T>
const T* pick(SimdLevel level, const T* scalar, const T* a2, const T* a512, const T* neon) {
  if (!simd_level_supported(level)) return nullptr;
  switch (level) {
    case SimdLevel::scalar: return scalar;
    case SimdLevel::avx2: return a2;
    case SimdLevel::avx512: return a512;
    case SimdLevel::neon: return neon;
  }
  return nullptr;
}

#if defined(VMAFX_HAVE_AVX2)
#define VMAFX_AVX2_TABLE(name) (&avx2::name)
#else
#define VMAFX_AVX2_TABLE(name) nullptr
#endif
#if defined(VMAFX_HAVE_AVX512)
#define VMAFX_AVX512_TABLE(name) (&avx512::name)
#else
#define VMAFX_AVX512_TABLE(name) nullptr
#endif
#if defined(VMAFX_HAVE_NEON)
#define VMAFX_NEON_TABLE(name) (&neon::name)
#else
#define VMAFX_NEON_TABLE(name) nullptr
#endif

}  // namespace

const VifKernels* vif_kernels_for(SimdLevel level) {
  return pick<VifKernels>(level, &kScalarVif, VMAFX_AVX2_TABLE(kVif), VMAFX_AVX512_TABLE(kVif),
                VMAFX_NEON_TABLE(kVif));
}
const MotionKernels* motion_kernels_for(SimdLevel level) {
  return pick<MotionKernels>(level, &kScalarMotion, VMAFX_AVX2_TABLE(kMotion), VMAFX_AVX512_TABLE(kMotion),
                VMAFX_NEON_TABLE(kMotion));
}
const PsnrKernels* psnr_kernels_for(SimdLevel level) {
  return pick<PsnrKernels>(level, &kScalarPsnr, VMAFX_AVX2_TABLE(kPsnr), VMAFX_AVX512_TABLE(kPsnr),
                VMAFX_NEON_TABLE(kPsnr));
}

const SsimKernels* ssim_kernels_for(SimdLevel level) {
  return pick<SsimKernels>(level, &kScalarSsim, VMAFX_AVX2_TABLE(kSsim), VMAFX_AVX512_TABLE(kSsim),
                           VMAFX_NEON_TABLE(kSsim));
}

const AdmKernels* adm_kernels_for(SimdLevel level) {
  return pick<AdmKernels>(level, &kScalarAdm, VMAFX_AVX2_TABLE(kAdm), VMAFX_AVX512_TABLE(kAdm),
                          VMAFX_NEON_TABLE(kAdm));
}

const CambiKernels* cambi_kernels_for(SimdLevel level) {
  return pick<CambiKernels>(level, &kScalarCambi, VMAFX_AVX2_TABLE(kCambi), VMAFX_AVX512_TABLE(kCambi),
                            VMAFX_NEON_TABLE(kCambi));
}

const SpeedKernels* speed_kernels_for(SimdLevel level) {
  return pick<SpeedKernels>(level, &kScalarSpeed, VMAFX_AVX2_TABLE(kSpeed), VMAFX_AVX512_TABLE(kSpeed),
                            VMAFX_NEON_TABLE(kSpeed));
}

const VifKernels& vif_kernels() {
  const VifKernels* k = vif_kernels_for(simd_level());
  return k ? *k : kScalarVif;
}
const MotionKernels& motion_kernels() {
  const MotionKernels* k = motion_kernels_for(simd_level());
  return k ? *k : kScalarMotion;
}
const PsnrKernels& psnr_kernels() {
  const PsnrKernels* k = psnr_kernels_for(simd_level());
  return k ? *k : kScalarPsnr;
}

const AdmKernels& adm_kernels() {
  const AdmKernels* k = adm_kernels_for(simd_level());
  return k ? *k : kScalarAdm;
}

const SsimKernels& ssim_kernels() {
  const SsimKernels* k = ssim_kernels_for(simd_level());
  return k ? *k : kScalarSsim;
}

const CambiKernels& cambi_kernels() {
  const CambiKernels* k = cambi_kernels_for(simd_level());
  return k ? *k : kScalarCambi;
}

const SpeedKernels& speed_kernels() {
  const SpeedKernels* k = speed_kernels_for(simd_level());
  return k ? *k : kScalarSpeed;
}

}  // namespace vmafx::cpu
