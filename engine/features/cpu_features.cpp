// SPDX-License-Identifier: LGPL-2.1-or-later
// The implemented features' hooks (cpu_features.h): engine/cpu's reference behind features::CpuFeature.
#include "features/cpu_features.h"

#include "cpu/adm.h"
#include "cpu/float_adm.h"
#include "cpu/float_motion.h"
#include "cpu/float_vif.h"
#include "cpu/motion.h"
#include "cpu/ms_ssim.h"
#include "cpu/plane.h"
#include "cpu/psnr.h"
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
  Status compute(const FrameView& f, double* out) override {
    vmafx::cpu::AdmScores s;
    VMAFX_TRY(adm.compute(luma(f.ref), luma(f.dist), &s));
    out[0] = s.adm2;
    out[1] = s.aim;
    out[2] = s.adm3;
    for (int i = 0; i < 4; i++) out[3 + i] = s.scale[i];
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
  Status compute(const FrameView& f, double* out) override {
    if (!f.prev_ref) {
      out[0] = 0.0;
      return Status::ok();
    }
    const vmafx::cpu::Plane cur = luma(f.ref);
    const uint64_t sad = vmafx::cpu::motion_sad(luma(f.prev_ref), cur, row.data());
    out[0] = vmafx::cpu::motion_score_from_sad(sad, cur.w, cur.h);
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

class FloatVifFeature final : public CpuFeature {
 public:
  vmafx::cpu::FloatVif vif;
  size_t outputs = 4;
  Status compute(const FrameView& f, double* out) override {
    vmafx::cpu::FloatVifScores s;
    VMAFX_TRY(vif.compute(luma(f.ref), luma(f.dist), &s));
    double all[vmafx::cpu::kFloatVifOutputs];
    vmafx::cpu::float_vif_outputs(s, all);
    for (size_t k = 0; k < outputs; ++k) out[k] = all[k];
    return Status::ok();
  }
};

class FloatAdmFeature final : public CpuFeature {
 public:
  vmafx::cpu::FloatAdm adm;
  size_t outputs = 7;
  Status compute(const FrameView& f, double* out) override {
    vmafx::cpu::FloatAdmScores s;
    VMAFX_TRY(adm.compute(luma(f.ref), luma(f.dist), &s));
    double all[vmafx::cpu::kFloatAdmOutputs];
    vmafx::cpu::float_adm_outputs(s, all);
    for (size_t k = 0; k < outputs; ++k) out[k] = all[k];
    return Status::ok();
  }
};

// Per frame: VMAF_feature_motion_score (with debug, libvmaf's default), then the frame's raw score for the stage.
// Each frame is computed from its own and the previous reference (workers take frames in any order).
class FloatMotionFeature final : public CpuFeature {
 public:
  vmafx::cpu::FloatMotion motion;
  vmafx::cpu::FloatMotionOptions opts;
  bool motion_column = true;
  Status compute(const FrameView& f, double* out) override {
    double score = 0.0;
    if (f.prev_ref) {
      const vmafx::cpu::Plane pu = vmafx::cpu::chroma_plane(*f.prev_ref, 1), pv = vmafx::cpu::chroma_plane(*f.prev_ref, 2);
      const vmafx::cpu::Plane cu = vmafx::cpu::chroma_plane(*f.ref, 1), cv = vmafx::cpu::chroma_plane(*f.ref, 2);
      const vmafx::cpu::Plane* prev_uv[2] = {&pu, &pv};
      const vmafx::cpu::Plane* cur_uv[2] = {&cu, &cv};
      VMAFX_TRY(motion.pair_score(luma(f.prev_ref), luma(f.ref), prev_uv, cur_uv, &score));
    }
    double* raw = out;
    if (motion_column) {
      out[0] = vmafx::cpu::float_motion_column(score, f.prev_ref == nullptr, opts);
      raw = out + 1;
    }
    *raw = score;
    return Status::ok();
  }
};

// float_motion's motion2 / motion3 from the raw scores (the value after the per-frame columns), in frame order.
class FloatMotionStage final : public OrderedStage {
 public:
  FloatMotionStage(const vmafx::cpu::FloatMotionOptions& o, size_t raw_index) : raw_(raw_index) {
    post_.set_options(o);
  }
  void push(uint64_t frame, const double* outputs, std::vector<Value>* ready) override {
    out_.clear();
    post_.push(frame, outputs[raw_], &out_);
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
  size_t raw_;
  vmafx::cpu::FloatMotionPost post_;
  std::vector<vmafx::cpu::FloatMotionOut> out_;
};

// integer_motion2 / integer_motion3 from the per-frame SAD scores, in frame order.
class MotionStage final : public OrderedStage {
 public:
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
std::vector<std::string> adm_outputs(const Options&, const VideoGeometry&) {
  return {"integer_adm2",       "integer_aim",        "integer_adm3",      "integer_adm_scale0",
          "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3"};
}
Status adm_check(const Options&, const VideoGeometry& g) { return vmafx::cpu::Adm::check_size(g.width, g.height); }
Status adm_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<AdmFeature>();
  vmafx::cpu::AdmOptions ao;
  ao.enhn_gain_limit = o.num("adm_enhn_gain_limit");
  VMAFX_TRY(f->adm.init(g.width, g.height, g.bit_depth, ao));
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
std::vector<std::string> motion_outputs(const Options&, const VideoGeometry&) {
  return {"VMAF_integer_feature_motion_sad_score"};
}
Status motion_check(const Options&, const VideoGeometry& g) { return vmafx::cpu::motion_check_size(g.width, g.height); }
Status motion_make(const Options&, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<MotionFeature>();
  f->row.resize(g.width);
  *out = std::move(f);
  return Status::ok();
}
std::unique_ptr<OrderedStage> motion_stage(const Options&) { return std::make_unique<MotionStage>(); }

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

// ---- float_vif / float_adm / float_motion ----
Status float_vif_options(const Options& o, vmafx::cpu::FloatVifOptions* v) {
  v->enhn_gain_limit = o.num("vif_enhn_gain_limit");
  v->kernelscale = o.num("vif_kernelscale");
  v->prescale = o.num("vif_prescale");
  v->scale_min_val[0] = o.num("vif_scale1_min_val");
  v->scale_min_val[1] = o.num("vif_scale2_min_val");
  v->scale_min_val[2] = o.num("vif_scale3_min_val");
  v->sigma_nsq = o.num("vif_sigma_nsq");
  v->skip_scale0 = o.flag("vif_skip_scale0");
  return vmafx::cpu::vif_scale_method_from_name(o.text("vif_prescale_method"), &v->prescale_method);
}

void float_adm_options(const Options& o, vmafx::cpu::FloatAdmOptions* a) {
  a->enhn_gain_limit = o.num("adm_enhn_gain_limit");
  a->norm_view_dist = o.num("adm_norm_view_dist");
  a->noise_weight = o.num("adm_noise_weight");
  a->csf_scale = o.num("adm_csf_scale");
  a->csf_diag_scale = o.num("adm_csf_diag_scale");
  a->ref_display_height = int(o.num("adm_ref_display_height"));
  a->csf_mode = int(o.num("adm_csf_mode"));
  a->bypass_cm = int(o.num("adm_bypass_cm"));
  a->adm3_apply_hm = o.flag("adm_adm3_apply_hm");
  a->p_norm = o.num("adm_p_norm");
  a->dlm_weight = o.num("adm_dlm_weight");
  a->min_val = o.num("adm_min_val");
  const char* f1[4] = {"adm_f1s0", "adm_f1s1", "adm_f1s2", "adm_f1s3"};
  const char* f2[4] = {"adm_f2s0", "adm_f2s1", "adm_f2s2", "adm_f2s3"};
  for (int s = 0; s < 4; ++s) {
    a->f1[s] = o.num(f1[s]);
    a->f2[s] = o.num(f2[s]);
  }
  a->skip_aim_scale = int(o.num("adm_skip_aim_scale"));
  a->skip_scale0 = o.flag("adm_skip_scale0");
}

void float_motion_options(const Options& o, vmafx::cpu::FloatMotionOptions* m) {
  m->force_zero = o.flag("motion_force_zero");
  m->fps_weight = o.num("motion_fps_weight");
  m->blend_factor = o.num("motion_blend_factor");
  m->blend_offset = o.num("motion_blend_offset");
  m->add_scale1 = o.flag("motion_add_scale1");
  m->filter_size = int(o.num("motion_filter_size"));
  m->add_uv = o.flag("motion_add_uv");
  m->max_val = o.num("motion_max_val");
}

std::vector<std::string> float_vif_outputs(const Options& o, const VideoGeometry&) {
  const size_t n = o.flag("debug") ? vmafx::cpu::kFloatVifOutputs : 4;
  std::vector<std::string> v;
  for (size_t k = 0; k < n; ++k) v.push_back(alias_of(vmafx::cpu::kFloatVifOutputNames[k]));
  return v;
}
Status float_vif_check(const Options& o, const VideoGeometry& g) {
  vmafx::cpu::FloatVifOptions v;
  VMAFX_TRY(float_vif_options(o, &v));
  return vmafx::cpu::FloatVif::check(g.width, g.height, g.bit_depth, v, nullptr);
}
Status float_vif_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<FloatVifFeature>();
  vmafx::cpu::FloatVifOptions v;
  VMAFX_TRY(float_vif_options(o, &v));
  VMAFX_TRY(f->vif.init(g.width, g.height, g.bit_depth, v));
  f->outputs = o.flag("debug") ? vmafx::cpu::kFloatVifOutputs : 4;
  *out = std::move(f);
  return Status::ok();
}

std::vector<std::string> float_adm_outputs(const Options& o, const VideoGeometry&) {
  const size_t n = o.flag("debug") ? vmafx::cpu::kFloatAdmOutputs : 7;
  std::vector<std::string> v;
  for (size_t k = 0; k < n; ++k) v.push_back(alias_of(vmafx::cpu::kFloatAdmOutputNames[k]));
  return v;
}
Status float_adm_check(const Options& o, const VideoGeometry& g) {
  vmafx::cpu::FloatAdmOptions a;
  float_adm_options(o, &a);
  return vmafx::cpu::FloatAdm::check(g.width, g.height, g.bit_depth, a);
}
Status float_adm_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<FloatAdmFeature>();
  vmafx::cpu::FloatAdmOptions a;
  float_adm_options(o, &a);
  VMAFX_TRY(f->adm.init(g.width, g.height, g.bit_depth, a));
  f->outputs = o.flag("debug") ? vmafx::cpu::kFloatAdmOutputs : 7;
  *out = std::move(f);
  return Status::ok();
}

std::vector<std::string> float_motion_outputs(const Options& o, const VideoGeometry&) {
  if (!o.flag("debug")) return {};
  return {alias_of("VMAF_feature_motion_score")};
}
Status float_motion_check(const Options& o, const VideoGeometry& g) {
  vmafx::cpu::FloatMotionOptions m;
  float_motion_options(o, &m);
  return vmafx::cpu::FloatMotion::check(g.width, g.height, g.bit_depth, g.chroma, m);
}
Status float_motion_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<FloatMotionFeature>();
  float_motion_options(o, &f->opts);
  VMAFX_TRY(f->motion.init(g.width, g.height, g.bit_depth, g.chroma, f->opts));
  f->motion_column = o.flag("debug");
  *out = std::move(f);
  return Status::ok();
}
std::unique_ptr<OrderedStage> float_motion_stage(const Options& o) {
  vmafx::cpu::FloatMotionOptions m;
  float_motion_options(o, &m);
  return std::make_unique<FloatMotionStage>(m, o.flag("debug") ? 1 : 0);
}

}  // namespace vmafx::features::hooks
