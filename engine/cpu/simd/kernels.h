// SPDX-License-Identifier: LGPL-2.1-or-later
// Tables of the CPU features' hot loops, one per instruction set. Every entry has the signature and the exact result
// of the scalar function it replaces (vif.h, motion.h, psnr.h, ssim.h, adm.h, cambi.h, speed.h): the scalar one is the oracle, tests/checkasm
// compares them on edge-biased inputs. An implementation may hand inputs it does not vectorise (tiny rows, chroma
// interleaved with a step of 2, mixed byte widths, 16-bit samples where 32-bit lanes would overflow) to the scalar
// function; the result is the same either way.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/adm.h"
#include "cpu/cambi.h"
#include "cpu/motion.h"
#include "cpu/plane.h"
#include "cpu/psnr.h"
#include "cpu/speed.h"
#include "cpu/simd/cpu_features.h"
#include "cpu/ssim.h"
#include "cpu/vif.h"

namespace vmafx::cpu {

struct VifKernels {
  decltype(&vif_vertical_row) vertical_row;
  decltype(&vif_horizontal_row) horizontal_row;
  decltype(&vif_accumulate) accumulate;
  decltype(&vif_decimate) decimate;
  decltype(&vif_load_plane) load_plane;
};

struct MotionKernels {
  decltype(&motion_blur_diff_row) blur_diff_row;
  decltype(&motion_row_sad) row_sad;
};

struct PsnrKernels {
  decltype(&psnr_plane_sse_scalar) plane_sse;
};

// Float SSIM / MS-SSIM (ssim.h): vectors across output pixels, every lane with the scalar order of operations.
struct SsimKernels {
  decltype(&plane_to_float_scalar) plane_to_float;
  decltype(&decimate_scalar) decimate;
  decltype(&ssim_gaussian_valid_scalar) gaussian_valid;
  decltype(&ssim_moments_scalar) moments;
  decltype(&ssim_pool_scalar) pool;
};

// Integer ADM's row functions (adm.h, "Row functions").
struct AdmKernels {
  decltype(&adm_dwt_row_scale0) dwt_row_scale0;
  decltype(&adm_dwt_row_scale1) dwt_row_scale1;
  decltype(&adm_dwt_row_scale23) dwt_row_scale23;
  decltype(&adm_decouple_row_scale0) decouple_row_scale0;
  decltype(&adm_decouple_row_scale123) decouple_row_scale123;
  decltype(&adm_den_row_scale0) den_row_scale0;
  decltype(&adm_den_row_scale123) den_row_scale123;
  decltype(&adm_csf_row_scale0) csf_row_scale0;
  decltype(&adm_csf_row_scale123) csf_row_scale123;
  decltype(&adm_cm_row_scale0) cm_row_scale0;
  decltype(&adm_cm_row_scale123) cm_row_scale123;
};

// CAMBI's stages (cambi.h, "Stages"); c_values needs kCambiHistPad entries past the histogram.
struct CambiKernels {
  decltype(&cambi_preprocess) preprocess;
  decltype(&cambi_spatial_mask) spatial_mask;
  void (*decimate_image)(uint16_t* img, ptrdiff_t stride, uint32_t w, uint32_t h);
  void (*decimate_mask)(uint8_t* mask, ptrdiff_t stride, uint32_t w, uint32_t h);
  decltype(&cambi_filter_mode) filter_mode;
  decltype(&cambi_c_values) c_values;
};

// SpEED's stages (speed.h): float and double lanes, one output per lane in the scalar order of operations.
struct SpeedKernels {
  decltype(&speed_load) load;
  decltype(&speed_antialias_dec16) antialias_dec16;
  decltype(&speed_subtract_local_mean) subtract_local_mean;
  decltype(&speed_covariance) covariance;
};

// The table of one level; nullptr when this build or this CPU lacks it. kernels_for(SimdLevel::scalar) is the
// scalar functions themselves.
const VifKernels* vif_kernels_for(SimdLevel level);
const MotionKernels* motion_kernels_for(SimdLevel level);
const PsnrKernels* psnr_kernels_for(SimdLevel level);
const SsimKernels* ssim_kernels_for(SimdLevel level);
const AdmKernels* adm_kernels_for(SimdLevel level);
const CambiKernels* cambi_kernels_for(SimdLevel level);
const SpeedKernels* speed_kernels_for(SimdLevel level);

// The table of simd_level() (never nullptr).
const VifKernels& vif_kernels();
const MotionKernels& motion_kernels();
const PsnrKernels& psnr_kernels();
const SsimKernels& ssim_kernels();
const AdmKernels& adm_kernels();
const CambiKernels& cambi_kernels();
const SpeedKernels& speed_kernels();

// Per instruction set, defined in the files compiled for it (simd/x86_avx2.cpp, ...); only called when supported.
namespace avx2 {
extern const VifKernels kVif;
extern const MotionKernels kMotion;
extern const PsnrKernels kPsnr;
extern const SsimKernels kSsim;
extern const AdmKernels kAdm;
extern const CambiKernels kCambi;
extern const SpeedKernels kSpeed;
}  // namespace avx2
namespace avx512 {
extern const VifKernels kVif;
extern const MotionKernels kMotion;
extern const PsnrKernels kPsnr;
extern const SsimKernels kSsim;
extern const AdmKernels kAdm;
extern const CambiKernels kCambi;
extern const SpeedKernels kSpeed;
}  // namespace avx512
namespace neon {
extern const VifKernels kVif;
extern const MotionKernels kMotion;
extern const PsnrKernels kPsnr;
extern const SsimKernels kSsim;
extern const AdmKernels kAdm;
extern const CambiKernels kCambi;
extern const SpeedKernels kSpeed;
}  // namespace neon

}  // namespace vmafx::cpu
