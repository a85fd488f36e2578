// SPDX-License-Identifier: LGPL-2.1-or-later
// The feature table (table.h): every libvmaf 3.2 feature extractor with the features it provides and its options
// as libvmaf declares them, the implementation (features/cpu_features.h); and SSIMULACRA 2, which is not libvmaf's.
#include "features/table.h"

#include <limits>

#include "features/cpu_features.h"

namespace vmafx::features {

namespace {

constexpr double kDblMax = std::numeric_limits<double>::max();

}  // namespace

const std::vector<FeatureDesc>& table() {
  // libvmaf's registry order: a model feature resolves to the first extractor that provides it.
  static const std::vector<FeatureDesc> kTable = {
  {
    "float_psnr",
    {"float_psnr"},
    {},
    &hooks::float_psnr_outputs, {}, kReadsRefLuma | kReadsDistLuma, false, &hooks::float_psnr_check,
    &hooks::float_psnr_make, nullptr,
  },
  {
    "float_ansnr",
    {"float_ansnr"},
    {},
    &hooks::float_ansnr_outputs, {}, kReadsRefLuma | kReadsDistLuma, false, &hooks::float_ansnr_check,
    &hooks::float_ansnr_make, nullptr,
  },
  {
    "float_adm",
    {"VMAF_feature_adm2_score", "VMAF_feature_aim_score", "VMAF_feature_adm3_score", "VMAF_feature_adm_scale0_score",
     "VMAF_feature_adm_scale1_score", "VMAF_feature_adm_scale2_score", "VMAF_feature_adm_scale3_score", "adm_num",
     "adm_den", "adm_scale0", "adm_num_scale0", "adm_den_scale0", "adm_num_scale1", "adm_den_scale1",
     "adm_num_scale2", "adm_den_scale2", "adm_num_scale3", "adm_den_scale3"},
    {
      {"debug", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
      {"adm_enhn_gain_limit", "egl", OptType::real, true, 100, nullptr, 1, 100, true},
      {"adm_norm_view_dist", "nvd", OptType::real, true, 3, nullptr, 0.75, 24, true},
      {"adm_noise_weight", "nw", OptType::real, true, 0.03125, nullptr, 0, 1500, true},
      {"adm_csf_scale", "scf", OptType::real, true, 1, nullptr, 0, 50, true},
      {"adm_csf_diag_scale", "scfd", OptType::real, true, 1, nullptr, 0, 50, true},
      {"adm_ref_display_height", "rdf", OptType::integer, true, 1080, nullptr, 1, 4320, true},
      {"adm_csf_mode", "csf", OptType::integer, true, 0, nullptr, 0, 9, true},
      {"adm_bypass_cm", "bcm", OptType::integer, true, 0, nullptr, 0, 1, true},
      {"adm_adm3_apply_hm", "aah", OptType::boolean, true, 0, nullptr, 0, 0, true},
      {"adm_p_norm", "apn", OptType::real, true, 3, nullptr, 1, 20, true},
      {"adm_dlm_weight", "dlmw", OptType::real, true, 0.5, nullptr, 0, 1, true},
      {"adm_min_val", "min", OptType::real, true, 0, nullptr, 0, 1, true},
      {"adm_f1s0", "f1s0", OptType::real, true, -1, nullptr, -1, 10, true},
      {"adm_f1s1", "f1s1", OptType::real, true, -1, nullptr, -1, 10, true},
      {"adm_f1s2", "f1s2", OptType::real, true, -1, nullptr, -1, 10, true},
      {"adm_f1s3", "f1s3", OptType::real, true, -1, nullptr, -1, 10, true},
      {"adm_f2s0", "f2s0", OptType::real, true, -1, nullptr, -1, 10, true},
      {"adm_f2s1", "f2s1", OptType::real, true, -1, nullptr, -1, 10, true},
      {"adm_f2s2", "f2s2", OptType::real, true, -1, nullptr, -1, 10, true},
      {"adm_f2s3", "f2s3", OptType::real, true, -1, nullptr, -1, 10, true},
      {"adm_skip_aim_scale", "sasc", OptType::integer, true, -1, nullptr, 0, 3, true},
      {"adm_skip_scale0", "ssz", OptType::boolean, true, 0, nullptr, 0, 0, true},
    },
    &hooks::float_adm_outputs, {}, kReadsRefLuma | kReadsDistLuma, false, &hooks::float_adm_check,
    &hooks::float_adm_make, nullptr,
  },
  {
    "float_vif",
    {"VMAF_feature_vif_scale0_score", "VMAF_feature_vif_scale1_score", "VMAF_feature_vif_scale2_score",
     "VMAF_feature_vif_scale3_score", "vif", "vif_num", "vif_den", "vif_num_scale0", "vif_den_scale0",
     "vif_num_scale1", "vif_den_scale1", "vif_num_scale2", "vif_den_scale2", "vif_num_scale3", "vif_den_scale3"},
    {
      {"debug", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
      {"vif_enhn_gain_limit", "egl", OptType::real, true, 100, nullptr, 1, 100, true},
      {"vif_kernelscale", "ks", OptType::real, true, 1, nullptr, 0.1, 4, true},
      {"vif_prescale", "ps", OptType::real, true, 1, nullptr, 0.1, 4, true},
      {"vif_scale1_min_val", "s1miv", OptType::real, true, 0, nullptr, 0, 1, true},
      {"vif_scale2_min_val", "s2miv", OptType::real, true, 0, nullptr, 0, 1, true},
      {"vif_scale3_min_val", "s3miv", OptType::real, true, 0, nullptr, 0, 1, true},
      {"vif_prescale_method", "pm", OptType::text, true, 0, "nearest", 0, 0, true},
      {"vif_sigma_nsq", "snsq", OptType::real, true, 2, nullptr, 0, 5, true},
      {"vif_skip_scale0", "ssclz", OptType::boolean, true, 0, nullptr, 0, 0, true},
    },
    &hooks::float_vif_outputs, {}, kReadsRefLuma | kReadsDistLuma, false, &hooks::float_vif_check,
    &hooks::float_vif_make, nullptr,
  },
  {
    "float_motion",
    {"VMAF_feature_motion_score", "VMAF_feature_motion2_score", "VMAF_feature_motion3_score"},
    {
      {"debug", nullptr, OptType::boolean, false, 1, nullptr, 0, 0, true},
      {"motion_force_zero", "force_0", OptType::boolean, true, 0, nullptr, 0, 0, true},
      {"motion_fps_weight", "mfw", OptType::real, true, 1, nullptr, 0, 5, true},
      {"motion_blend_factor", "mbf", OptType::real, true, 1, nullptr, 0, 1, true},
      {"motion_blend_offset", "mbo", OptType::real, true, 40, nullptr, 0, 1000, true},
      {"motion_add_scale1", "mdc", OptType::boolean, true, 0, nullptr, 0, 0, true},
      {"motion_filter_size", "mfs", OptType::integer, true, 5, nullptr, 0, 9, true},
      {"motion_add_uv", "mau", OptType::boolean, true, 0, nullptr, 0, 0, true},
      {"motion_max_val", "mmxv", OptType::real, true, 10000, nullptr, 0, 10000, true},
    },
    &hooks::float_motion_outputs, {"motion2", "motion3"}, kReadsRefLuma | kReadsPrevRef, true,
    &hooks::float_motion_check, &hooks::float_motion_make, &hooks::float_motion_stage, nullptr, ~0u, 1, nullptr,
    nullptr, &hooks::float_motion_range_window,
  },
  {
    "float_moment",
    {"float_moment"},
    {},
    &hooks::float_moment_outputs, {}, kReadsRefLuma | kReadsDistLuma, false, &hooks::float_moment_check,
    &hooks::float_moment_make, nullptr,
  },
  {
    "speed_chroma",
    {"Speed_chroma_feature_speed_chroma_u_score", "Speed_chroma_feature_speed_chroma_v_score",
     "Speed_chroma_feature_speed_chroma_uv_score"},
    {
      {"speed_kernelscale", "ks", OptType::real, true, 1, nullptr, 0.1, 4, true},
      {"speed_prescale", "ps", OptType::real, true, 1, nullptr, 0.1, 4, true},
      {"speed_prescale_method", "psm", OptType::text, true, 0, "nearest", 0, 0, true},
      {"speed_sigma_nn", "snn", OptType::real, true, 0.29, nullptr, 0.1, 2, true},
      {"speed_nn_floor", "nnf", OptType::real, true, 0, nullptr, 0, 1, true},
      {"speed_max_val", "mxv", OptType::real, true, 1000, nullptr, 0, 1000, true},
      {"speed_weight_var_mode", "wvm", OptType::integer, true, 0, nullptr, 0, 6, true},
    },
    &hooks::speed_chroma_outputs, {}, kReadsChroma, false, &hooks::speed_chroma_check, &hooks::speed_chroma_make,
    nullptr,
  },
  {
    "speed_temporal",
    {"Speed_temporal_feature_speed_temporal_score"},
    {
      {"speed_kernelscale", "ks", OptType::real, true, 1, nullptr, 0.1, 4, true},
      {"speed_prescale", "ps", OptType::real, true, 1, nullptr, 0.1, 4, true},
      {"speed_prescale_method", "psm", OptType::text, true, 0, "nearest", 0, 0, true},
      {"speed_sigma_nn", "snn", OptType::real, true, 0.29, nullptr, 0.1, 2, true},
      {"speed_nn_floor", "nnf", OptType::real, true, 0, nullptr, 0, 1, true},
      // libvmaf's speed_temporal declares it (it names scores) but never clips with it.
      {"speed_max_val", "mxv", OptType::real, true, 1000, nullptr, 0, 1000, true},
      {"speed_use_ref_diff", "urd", OptType::boolean, true, 0, nullptr, 0, 0, true},
    },
    // Frame i reads frame i - 1's reference and distorted luma; temporal: libvmaf runs it on every frame.
    &hooks::speed_temporal_outputs, {}, kReadsRefLuma | kReadsDistLuma | kReadsPrevRef | kReadsPrevDist, true,
    &hooks::speed_temporal_check, &hooks::speed_temporal_make, nullptr, nullptr, ~0u, 0, nullptr, nullptr,
    // Frame i reads frame i - 1 only: a part of a stream scores as the whole run with one frame before it.
    [](const Options&) { return RangeWindow{1, 0, false, ""}; },
  },
  {
    "float_ms_ssim",
    {"float_ms_ssim"},
    {
      {"enable_lcs", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
      {"enable_db", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
      {"clip_db", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
    },
    &hooks::float_ms_ssim_outputs, {}, kReadsRefLuma | kReadsDistLuma, false, &hooks::float_ms_ssim_check,
    &hooks::float_ms_ssim_make, nullptr,
  },
  {
    "float_ssim",
    {"float_ssim"},
    {
      {"enable_lcs", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
      {"enable_db", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
      {"clip_db", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
      {"scale", nullptr, OptType::integer, false, 0, nullptr, 0, 10, true},
    },
    &hooks::float_ssim_outputs, {}, kReadsRefLuma | kReadsDistLuma, false, &hooks::float_ssim_check,
    &hooks::float_ssim_make, nullptr,
  },
  {
    "ciede",
    {"ciede2000"},
    {},
    &hooks::ciede_outputs, {}, kReadsRefLuma | kReadsDistLuma | kReadsChroma, false, &hooks::ciede_check,
    &hooks::ciede_make, nullptr,
  },
  {
    "psnr",
    {"psnr_y", "psnr_cb", "psnr_cr"},
    {
      {"enable_chroma", nullptr, OptType::boolean, false, 1, nullptr, 0, 0, true},
      {"enable_mse", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
      {"enable_apsnr", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
      {"reduced_hbd_peak", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
      {"min_sse", nullptr, OptType::real, false, 0, nullptr, 0, kDblMax, true},
    },
    &hooks::psnr_outputs, {}, kReadsRefLuma | kReadsDistLuma | kReadsChroma, false, &hooks::psnr_check, &hooks::psnr_make,
    // enable_apsnr: every frame (libvmaf's psnr is temporal), its SSE handed to the stage that sums it.
    &hooks::psnr_stage, nullptr, ~0u, 0, &hooks::psnr_temporal, &hooks::psnr_stage_inputs, &hooks::psnr_range_window,
  },
  {
    "psnr_hvs",
    {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"},
    {},
    &hooks::psnr_hvs_outputs, {}, kReadsRefLuma | kReadsDistLuma | kReadsChroma, false, &hooks::psnr_hvs_check,
    &hooks::psnr_hvs_make, nullptr,
  },
  {
    "adm",
    {"VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score", "VMAF_integer_feature_adm3_score",
     "integer_adm_scale0", "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3", "integer_adm",
     "integer_adm_num", "integer_adm_den", "integer_adm_num_scale0", "integer_adm_den_scale0",
     "integer_adm_num_scale1", "integer_adm_den_scale1", "integer_adm_num_scale2", "integer_adm_den_scale2",
     "integer_adm_num_scale3", "integer_adm_den_scale3"},
    {
      {"debug", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
      {"adm_csf_scale", "scf", OptType::real, true, 1, nullptr, 0, 50, true},
      {"adm_csf_diag_scale", "scfd", OptType::real, true, 1, nullptr, 0, 50, true},
      {"adm_dlm_weight", "dlmw", OptType::real, true, 0.5, nullptr, 0, 1, true},
      {"adm_enhn_gain_limit", "egl", OptType::real, true, 100, nullptr, 1, 100, true},
      {"adm_norm_view_dist", "nvd", OptType::real, true, 3, nullptr, 0.75, 24, true},
      {"adm_ref_display_height", "rdh", OptType::integer, true, 1080, nullptr, 1, 4320, true},
      {"adm_csf_mode", "csf", OptType::integer, true, 0, nullptr, 0, 3, true},
      {"adm_noise_weight", "nw", OptType::real, true, 0.03125, nullptr, 0, 1500, true},
      {"adm_skip_aim", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
      {"adm_skip_scale0", "ssz", OptType::boolean, true, 0, nullptr, 0, 0, true},
      {"adm_min_val", "min", OptType::real, true, 0, nullptr, 0, 1, true},
    },
    &hooks::adm_outputs, {}, kReadsRefLuma | kReadsDistLuma, false, &hooks::adm_check, &hooks::adm_make, nullptr,
  },
  {
    "motion",
    {"VMAF_integer_feature_motion_sad_score", "VMAF_integer_feature_motion_score",
     "VMAF_integer_feature_motion2_score", "VMAF_integer_feature_motion3_score"},
    {
      {"motion_force_zero", "force_0", OptType::boolean, true, 0, nullptr, 0, 0, true},
      {"motion_blend_factor", "mbf", OptType::real, true, 1, nullptr, 0, 1, true},
      {"motion_blend_offset", "mbo", OptType::real, true, 40, nullptr, 0, 1000, true},
      {"motion_fps_weight", "mfw", OptType::real, true, 1, nullptr, 0, 5, true},
      {"motion_max_val", "mmxv", OptType::real, true, 10000, nullptr, 0, 10000, true},
      // Needs the reference two frames back, which the frame paths do not keep yet (cpu::MotionPost and
      // hip::MotionGpu implement it).
      {"motion_five_frame_window", "mffw", OptType::boolean, true, 0, nullptr, 0, 0, true},
      {"motion_moving_average", "mma", OptType::boolean, true, 0, nullptr, 0, 0, true},
      {"debug", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
    },
    &hooks::motion_outputs, {"integer_motion2", "integer_motion3"}, kReadsRefLuma | kReadsPrevRef, true,
    &hooks::motion_check, &hooks::motion_make, &hooks::motion_stage, &hooks::motion_frames_back, ~0u, 0, nullptr,
    nullptr, &hooks::motion_range_window,
  },
  {
    "vif",
    {"VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
     "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score", "integer_vif",
     "integer_vif_num", "integer_vif_den", "integer_vif_num_scale0", "integer_vif_den_scale0",
     "integer_vif_num_scale1", "integer_vif_den_scale1", "integer_vif_num_scale2", "integer_vif_den_scale2",
     "integer_vif_num_scale3", "integer_vif_den_scale3"},
    {
      {"debug", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, false},
      {"vif_enhn_gain_limit", "egl", OptType::real, true, 100, nullptr, 1, 100, true},
      {"vif_skip_scale0", "ssclz", OptType::boolean, true, 0, nullptr, 0, 0, false},
    },
    &hooks::vif_outputs, {}, kReadsRefLuma | kReadsDistLuma, false, &hooks::vif_check, &hooks::vif_make, nullptr,
  },
  {
    "cambi",
    {"Cambi_feature_cambi_score"},
    {
      {"cambi_max_val", "cmxv", OptType::real, true, 1000, nullptr, 0, 1000, true},
      {"enc_width", "encw", OptType::integer, true, 0, nullptr, 180, 7680, true},
      {"enc_height", "ench", OptType::integer, true, 0, nullptr, 150, 7680, true},
      {"enc_bitdepth", "encbd", OptType::integer, true, 0, nullptr, 6, 16, true},
      {"src_width", "srcw", OptType::integer, true, 0, nullptr, 320, 7680, true},
      {"src_height", "srch", OptType::integer, true, 0, nullptr, 200, 4320, true},
      {"window_size", "ws", OptType::integer, true, 65, nullptr, 15, 127, true},
      {"topk", nullptr, OptType::real, true, 0.6, nullptr, 0.0001, 1, true},
      {"cambi_topk", "ctpk", OptType::real, true, 0.6, nullptr, 0.0001, 1, true},
      {"tvi_threshold", "tvit", OptType::real, true, 0.019, nullptr, 0.0001, 1, true},
      {"cambi_vis_lum_threshold", "vlt", OptType::real, true, 0, nullptr, 0, 300, true},
      {"max_log_contrast", "mlc", OptType::integer, true, 2, nullptr, 0, 5, true},
      // Only writes heatmap side files: cambi_check refuses any value, naming why.
      {"heatmaps_path", nullptr, OptType::text, false, 0, nullptr, 0, 0, true},
      {"full_ref", nullptr, OptType::boolean, false, 0, nullptr, 0, 0, true},
      {"eotf", nullptr, OptType::text, true, 0, "bt1886", 0, 0, true},
      {"cambi_eotf", "ceot", OptType::text, true, 0, "bt1886", 0, 0, true},
      {"cambi_high_res_speedup", "hrs", OptType::integer, true, 0, nullptr, 0, 2160, true},
    },
    &hooks::cambi_outputs, {}, kReadsRefLuma | kReadsDistLuma, false, &hooks::cambi_check, &hooks::cambi_make, nullptr,
    nullptr, 1,  // cambi_source and cambi_full_reference are written verbatim
  },
  // Not a libvmaf extractor: SSIMULACRA 2.1 (cpu/ssimulacra2.h). Its options do not name the score.
  {
    "ssimulacra2",
    {"ssimulacra2"},
    {
      {"yuv_matrix", nullptr, OptType::text, false, 0, "auto", 0, 0, true},  // auto, bt601, bt709, bt2020
      {"yuv_range", nullptr, OptType::text, false, 0, "auto", 0, 0, true},   // auto, limited, full
    },
    &hooks::ssimulacra2_outputs, {}, kReadsRefLuma | kReadsDistLuma | kReadsChroma, false, &hooks::ssimulacra2_check,
    &hooks::ssimulacra2_make, nullptr,
  },
  };
  return kTable;
}

const FeatureDesc* find(std::string_view extractor) {
  for (const FeatureDesc& d : table())
    if (extractor == d.name) return &d;
  return nullptr;
}

const FeatureDesc* provider_of(std::string_view feature_name) {
  for (const FeatureDesc& d : table())
    for (const char* f : d.provides)
      if (feature_name == f) return &d;
  return nullptr;
}

std::string implemented_names() {
  std::string s;
  for (const FeatureDesc& d : table())
    if (d.implemented()) s += (s.empty() ? "" : ", ") + std::string(d.name);
  return s;
}

Status make_instance(const FeatureDesc& desc, const Options& options, const VideoGeometry& geometry, Instance* out) {
  if (!desc.implemented())
    return {Errc::unsupported, "feature '" + std::string(desc.name) + "' is a libvmaf feature vmafx does not compute "
                               "(vmafx computes: " + implemented_names() + ")"};
  for (size_t i = 0; i < desc.options.size(); i++) {
    const OptionDesc& o = desc.options[i];
    if (o.honoured || !options.given(o.name)) continue;
    const bool at_default = o.type == OptType::text ? (o.def_text && options.text(o.name) == o.def_text)
                                                    : options.num(o.name) == o.def;
    if (!at_default)
      return {Errc::unsupported, "option " + std::string(o.name) + " of feature '" + desc.name +
                                     "' is supported at its default only"};
  }
  if (desc.check) VMAFX_TRY(desc.check(options, geometry).prepend(desc.name));
  Instance inst;
  inst.desc = &desc;
  inst.options = options;
  inst.temporal = desc.temporal_with ? desc.temporal_with(options) : desc.temporal;
  inst.stage_inputs = desc.stage_inputs_with ? desc.stage_inputs_with(options) : desc.stage_inputs;
  const std::string suffix = options.score_suffix();
  for (const std::string& n : desc.outputs(options, geometry))
    inst.outputs.push_back(inst.outputs.size() < desc.suffixed_outputs ? n + suffix : n);
  for (const char* n : desc.stage_outputs) inst.stage_outputs.push_back(n + suffix);
  *out = std::move(inst);
  return Status::ok();
}

}  // namespace vmafx::features
