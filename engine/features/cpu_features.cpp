// SPDX-License-Identifier: LGPL-2.1-or-later
// The implemented features' hooks (cpu_features.h): engine/cpu's reference behind features::CpuFeature.
#include "features/cpu_features.h"

#include "cpu/adm.h"
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

}  // namespace vmafx::features::hooks
