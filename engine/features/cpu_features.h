// SPDX-License-Identifier: LGPL-2.1-or-later
// The hooks of the implemented features in the feature table (table.cpp): per-frame output columns, size checks,
// the CPU implementation (engine/cpu/'s reference wrapped as a features::CpuFeature) and temporal stages.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu/adm.h"
#include "cpu/motion.h"
#include "cpu/speed.h"
#include "cpu/ssimulacra2.h"
#include "cpu/cambi.h"
#include "cpu/float_adm.h"
#include "cpu/float_motion.h"
#include "cpu/float_vif.h"
#include "cpu/psnr.h"
#include "cpu/ssim.h"
#include "features/table.h"

namespace vmafx::features::hooks {

#define VMAFX_CPU_FEATURE_HOOKS(f)                                                                      \
  std::vector<std::string> f##_outputs(const Options& o, const VideoGeometry& g);                      \
  Status f##_check(const Options& o, const VideoGeometry& g);                                           \
  Status f##_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out);

VMAFX_CPU_FEATURE_HOOKS(adm)
VMAFX_CPU_FEATURE_HOOKS(vif)
VMAFX_CPU_FEATURE_HOOKS(motion)
VMAFX_CPU_FEATURE_HOOKS(psnr)
VMAFX_CPU_FEATURE_HOOKS(psnr_hvs)
VMAFX_CPU_FEATURE_HOOKS(float_ssim)
VMAFX_CPU_FEATURE_HOOKS(float_ms_ssim)
VMAFX_CPU_FEATURE_HOOKS(speed_chroma)
VMAFX_CPU_FEATURE_HOOKS(cambi)
VMAFX_CPU_FEATURE_HOOKS(float_vif)
VMAFX_CPU_FEATURE_HOOKS(float_adm)
VMAFX_CPU_FEATURE_HOOKS(float_motion)
VMAFX_CPU_FEATURE_HOOKS(ciede)
VMAFX_CPU_FEATURE_HOOKS(float_psnr)
VMAFX_CPU_FEATURE_HOOKS(float_ansnr)
VMAFX_CPU_FEATURE_HOOKS(float_moment)
VMAFX_CPU_FEATURE_HOOKS(speed_temporal)
VMAFX_CPU_FEATURE_HOOKS(ssimulacra2)

#undef VMAFX_CPU_FEATURE_HOOKS

std::unique_ptr<OrderedStage> motion_stage(const Options& o, const VideoGeometry& g);
unsigned motion_frames_back(const Options& o);
// The frames around a range that motion, float_motion and psnr (enable_apsnr: none suffices) read.
RangeWindow motion_range_window(const Options& o);
RangeWindow float_motion_range_window(const Options& o);
RangeWindow psnr_range_window(const Options& o);

// The CPU reference's option structs of a configured feature (shared with the GPU implementations).
vmafx::cpu::AdmOptions adm_cpu_options(const Options& o);
vmafx::cpu::MotionOptions motion_cpu_options(const Options& o);
Status speed_cpu_options(const Options& o, vmafx::cpu::SpeedOptions* out);
// ssimulacra2's yuv_matrix and yuv_range at this geometry (auto resolved).
Status ssimulacra2_cpu_options(const Options& o, const VideoGeometry& g, vmafx::cpu::Ssimulacra2Options* out);
// speed_temporal's options as cpu::SpeedTemporal takes them (speed_max_val is read but, as in libvmaf, unused).
Status speed_temporal_cpu_options(const Options& o, vmafx::cpu::SpeedOptions* out, bool* use_ref_diff);

// psnr: libvmaf's init of these options at this geometry; its temporal flag, stage inputs and stage (enable_apsnr).
Status psnr_cpu_plan(const Options& o, const VideoGeometry& g, vmafx::cpu::PsnrPlan* out);
bool psnr_temporal(const Options& o);
unsigned psnr_stage_inputs(const Options& o);
std::unique_ptr<OrderedStage> psnr_stage(const Options& o, const VideoGeometry& g);
// float_ssim / float_ms_ssim: what enable_db, clip_db and enable_lcs make of the means at this geometry.
vmafx::cpu::SsimReport ssim_cpu_report(const Options& o, const VideoGeometry& g);

// cambi's options of the table as the CPU reference (and the GPU feature) take them.
vmafx::cpu::CambiOptions cambi_options(const Options& o);
std::unique_ptr<OrderedStage> float_motion_stage(const Options& o, const VideoGeometry& g);

// The engine/cpu options of the float features from their table options (also used by the GPU implementations).
Status float_vif_options(const Options& o, vmafx::cpu::FloatVifOptions* out);
void float_adm_options(const Options& o, vmafx::cpu::FloatAdmOptions* out);
void float_motion_options(const Options& o, vmafx::cpu::FloatMotionOptions* out);

}  // namespace vmafx::features::hooks
