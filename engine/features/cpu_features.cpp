// SPDX-License-Identifier: LGPL-2.1-or-later
// The implemented features' hooks (cpu_features.h): engine/cpu's reference behind features::CpuFeature.
#include "features/cpu_features.h"

#include "cpu/adm.h"
#include "cpu/motion.h"
#include "cpu/ms_ssim.h"
#include "cpu/plane.h"
#include "cpu/psnr.h"
#include "cpu/speed.h"
#include "cpu/ssim.h"
#include "cpu/vif.h"
#include "vmafx/picture.h"

namespace vmafx::features::hooks {

namespace {

// The one Plane every CPU feature reads: the frame's luma as the feature sees it.
vmafx::cpu::Plane luma(const PictureView* v) { return vmafx::cpu::luma_plane(*v); }

class AdmFeature final : public CpuFeature {
 public:
  vmafx::cpu::Adm adm;
  bool debug = false;
  Status compute(const FrameView& f, double* out) override {
    vmafx::cpu::AdmScores s;
    VMAFX_TRY(adm.compute(luma(f.ref), luma(f.dist), &s));
    out[0] = s.adm2;
    out[1] = s.aim;
    out[2] = s.adm3;
    for (int i = 0; i < 4; i++) out[3 + i] = s.scale[i];
    if (!debug) return Status::ok();
    // libvmaf's debug outputs, in its order: adm (= adm2), num, den, then num / den of each scale.
    out[7] = s.adm2;
    out[8] = s.num;
    out[9] = s.den;
    for (int i = 0; i < 4; i++) {
      out[10 + 2 * i] = s.num_scale[i];
      out[11 + 2 * i] = s.den_scale[i];
    }
    return Status::ok();
  }
};

class VifFeature final : public CpuFeature {
 public:
  vmafx::cpu::Vif vif;
  Status compute(const FrameView& f, double* out) override {
    vmafx::cpu::VifScores s;
    VMAFX_TRY(vif.compute(luma(f.ref), luma(f.dist), &s));
    for (int i = 0; i < 4; i++) out[i] = s.scale[i];
    return Status::ok();
  }
};

class MotionFeature final : public CpuFeature {
 public:
  std::vector<int32_t> row;
  vmafx::cpu::MotionOptions opt;
  bool debug = false;
  Status compute(const FrameView& f, double* out) override {
    double score = 0.0;
    // The five-frame window compares the reference two frames back (frame 1 has none: 0, as libvmaf).
    const PictureView* back = vmafx::cpu::motion_frame_distance(opt) == 2 ? f.prev_prev_ref : f.prev_ref;
    if (back && !opt.force_zero) {
      const vmafx::cpu::Plane cur = luma(f.ref);
      const uint64_t sad = vmafx::cpu::motion_sad(luma(back), cur, row.data());
      score = vmafx::cpu::motion_score_from_sad(sad, cur.w, cur.h, opt);
    }
    out[0] = score;
    if (debug) out[1] = score;  // libvmaf's VMAF_integer_feature_motion_score (integer_motion) in debug mode
    return Status::ok();
  }
};

class SpeedChromaFeature final : public CpuFeature {
 public:
  vmafx::cpu::SpeedChroma speed;
  Status compute(const FrameView& f, double* out) override {
    vmafx::cpu::SpeedScores s;
    VMAFX_TRY(speed.compute(vmafx::cpu::chroma_plane(*f.ref, 1), vmafx::cpu::chroma_plane(*f.ref, 2),
                            vmafx::cpu::chroma_plane(*f.dist, 1), vmafx::cpu::chroma_plane(*f.dist, 2), &s));
    out[0] = s.u;
    out[1] = s.v;
    out[2] = s.uv;
    return Status::ok();
  }
};

class PsnrFeature final : public CpuFeature {
 public:
  bool chroma = true;
  Status compute(const FrameView& f, double* out) override {
    vmafx::cpu::PsnrScores s;
    VMAFX_TRY(vmafx::cpu::psnr(*f.ref, *f.dist, &s));
    out[0] = s.y;
    if (chroma && s.planes == 3) {
      out[1] = s.cb;
      out[2] = s.cr;
    }
    return Status::ok();
  }
};

template <class Impl>
class LumaFloatFeature final : public CpuFeature {
 public:
  Impl impl;
  Status compute(const FrameView& f, double* out) override { return impl.compute(luma(f.ref), luma(f.dist), out); }
};

// integer_motion2 / integer_motion3 from the per-frame SAD scores, in frame order.
class MotionStage final : public OrderedStage {
 public:
  explicit MotionStage(const vmafx::cpu::MotionOptions& opt) : post_(opt) {}
  void push(uint64_t frame, const double* outputs, std::vector<Value>* ready) override {
    out_.clear();
    post_.push(frame, outputs[0], &out_);
    emit(ready);
  }
  void finish(std::vector<Value>* ready) override {
    out_.clear();
    post_.finish(&out_);
    emit(ready);
  }

 private:
  void emit(std::vector<Value>* ready) {
    for (const auto& m : out_) {
      ready->push_back({m.index, 0, m.motion2});
      ready->push_back({m.index, 1, m.motion3});
    }
  }
  vmafx::cpu::MotionPost post_;
  std::vector<vmafx::cpu::MotionOut> out_;
};

}  // namespace

// ---- adm ----
namespace {
vmafx::cpu::AdmOptions adm_options(const Options& o) {
  vmafx::cpu::AdmOptions a;
  a.enhn_gain_limit = o.num("adm_enhn_gain_limit");
  a.norm_view_dist = o.num("adm_norm_view_dist");
  a.ref_display_height = int(o.num("adm_ref_display_height"));
  a.noise_weight = o.num("adm_noise_weight");
  a.dlm_weight = o.num("adm_dlm_weight");
  a.min_val = o.num("adm_min_val");
  a.skip_aim = o.flag("adm_skip_aim");
  a.skip_scale0 = o.flag("adm_skip_scale0");
  a.csf_mode = int(o.num("adm_csf_mode"));
  a.csf_scale = o.num("adm_csf_scale");
  a.csf_diag_scale = o.num("adm_csf_diag_scale");
  return a;
}
}  // namespace
vmafx::cpu::AdmOptions adm_cpu_options(const Options& o) { return adm_options(o); }
std::vector<std::string> adm_outputs(const Options& o, const VideoGeometry&) {
  std::vector<std::string> v = {"integer_adm2",       "integer_aim",        "integer_adm3",      "integer_adm_scale0",
                                "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3"};
  if (o.flag("debug")) {
    for (const char* n : {"integer_adm", "integer_adm_num", "integer_adm_den"}) v.push_back(n);
    for (int i = 0; i < 4; i++) {
      v.push_back("integer_adm_num_scale" + std::to_string(i));
      v.push_back("integer_adm_den_scale" + std::to_string(i));
    }
  }
  return v;
}
Status adm_check(const Options& o, const VideoGeometry& g) {
  VMAFX_TRY(vmafx::cpu::Adm::check_size(g.width, g.height));
  return vmafx::cpu::adm_check_options(adm_options(o));
}
Status adm_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<AdmFeature>();
  f->debug = o.flag("debug");
  VMAFX_TRY(f->adm.init(g.width, g.height, g.bit_depth, adm_options(o)));
  *out = std::move(f);
  return Status::ok();
}

// ---- vif ----
std::vector<std::string> vif_outputs(const Options&, const VideoGeometry&) {
  return {"integer_vif_scale0", "integer_vif_scale1", "integer_vif_scale2", "integer_vif_scale3"};
}
Status vif_check(const Options&, const VideoGeometry& g) { return vmafx::cpu::Vif::check_size(g.width, g.height); }
Status vif_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<VifFeature>();
  vmafx::cpu::VifOptions vo;
  vo.enhn_gain_limit = o.num("vif_enhn_gain_limit");
  VMAFX_TRY(f->vif.init(g.width, g.height, g.bit_depth, vo));
  *out = std::move(f);
  return Status::ok();
}

// ---- motion ----
vmafx::cpu::MotionOptions motion_cpu_options(const Options& o) {
  vmafx::cpu::MotionOptions m;
  m.max_val = o.num("motion_max_val");
  m.blend_factor = o.num("motion_blend_factor");
  m.blend_offset = o.num("motion_blend_offset");
  m.fps_weight = o.num("motion_fps_weight");
  m.five_frame_window = o.flag("motion_five_frame_window");
  m.moving_average = o.flag("motion_moving_average");
  m.force_zero = o.flag("motion_force_zero");
  return m;
}
std::vector<std::string> motion_outputs(const Options& o, const VideoGeometry&) {
  if (o.flag("debug")) return {"VMAF_integer_feature_motion_sad_score", "VMAF_integer_feature_motion_score"};
  return {"VMAF_integer_feature_motion_sad_score"};
}
Status motion_check(const Options& o, const VideoGeometry& g) {
  VMAFX_TRY(vmafx::cpu::motion_check_size(g.width, g.height));
  return vmafx::cpu::motion_check_options(motion_cpu_options(o));
}
Status motion_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<MotionFeature>();
  f->row.resize(g.width);
  f->opt = motion_cpu_options(o);
  f->debug = o.flag("debug");
  *out = std::move(f);
  return Status::ok();
}
unsigned motion_frames_back(const Options& o) {
  return vmafx::cpu::motion_frame_distance(motion_cpu_options(o));
}
std::unique_ptr<OrderedStage> motion_stage(const Options& o) {
  return std::make_unique<MotionStage>(motion_cpu_options(o));
}

// ---- speed_chroma ----
Status speed_cpu_options(const Options& o, vmafx::cpu::SpeedOptions* out) {
  vmafx::cpu::SpeedOptions s;
  s.kernelscale = o.num("speed_kernelscale");
  s.prescale = o.num("speed_prescale");
  VMAFX_TRY(vmafx::cpu::speed_scale_method_from_name(o.text("speed_prescale_method"), &s.prescale_method));
  s.sigma_nn = o.num("speed_sigma_nn");
  s.nn_floor = o.num("speed_nn_floor");
  s.max_val = o.num("speed_max_val");
  s.weight_var_mode = int(o.num("speed_weight_var_mode"));
  VMAFX_TRY(vmafx::cpu::speed_check_options(s));
  *out = s;
  return Status::ok();
}
std::vector<std::string> speed_chroma_outputs(const Options&, const VideoGeometry&) {
  return {"speed_chroma_u", "speed_chroma_v", "speed_chroma_uv"};
}
Status speed_chroma_check(const Options& o, const VideoGeometry& g) {
  vmafx::cpu::SpeedOptions s;
  VMAFX_TRY(speed_cpu_options(o, &s));
  vmafx::cpu::SpeedChroma probe;  // sizes its buffers: the checks are init's
  return probe.init(g.width, g.height, g.chroma, g.bit_depth, s);
}
Status speed_chroma_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  vmafx::cpu::SpeedOptions s;
  VMAFX_TRY(speed_cpu_options(o, &s));
  auto f = std::make_unique<SpeedChromaFeature>();
  VMAFX_TRY(f->speed.init(g.width, g.height, g.chroma, g.bit_depth, s));
  *out = std::move(f);
  return Status::ok();
}

// ---- psnr ----
std::vector<std::string> psnr_outputs(const Options& o, const VideoGeometry& g) {
  // libvmaf reports luma only for 4:0:0 and with enable_chroma=false.
  if (g.chroma == Chroma::k400 || !o.flag("enable_chroma")) return {"psnr_y"};
  return {"psnr_y", "psnr_cb", "psnr_cr"};
}
Status psnr_check(const Options&, const VideoGeometry& g) { return vmafx::cpu::psnr_check_depth(g.bit_depth); }
Status psnr_make(const Options& o, const VideoGeometry&, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<PsnrFeature>();
  f->chroma = o.flag("enable_chroma");
  *out = std::move(f);
  return Status::ok();
}

// ---- float_ssim / float_ms_ssim ----
std::vector<std::string> float_ssim_outputs(const Options&, const VideoGeometry&) { return {"float_ssim"}; }
Status float_ssim_check(const Options&, const VideoGeometry& g) {
  return vmafx::cpu::Ssim::check_size(g.width, g.height);
}
Status float_ssim_make(const Options&, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<LumaFloatFeature<vmafx::cpu::Ssim>>();
  VMAFX_TRY(f->impl.init(g.width, g.height, g.bit_depth));
  *out = std::move(f);
  return Status::ok();
}

std::vector<std::string> float_ms_ssim_outputs(const Options&, const VideoGeometry&) { return {"float_ms_ssim"}; }
Status float_ms_ssim_check(const Options&, const VideoGeometry& g) {
  return vmafx::cpu::MsSsim::check_size(g.width, g.height);
}
Status float_ms_ssim_make(const Options&, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<LumaFloatFeature<vmafx::cpu::MsSsim>>();
  VMAFX_TRY(f->impl.init(g.width, g.height, g.bit_depth));
  *out = std::move(f);
  return Status::ok();
}

}  // namespace vmafx::features::hooks
