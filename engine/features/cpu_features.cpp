// SPDX-License-Identifier: LGPL-2.1-or-later
// The implemented features' hooks (cpu_features.h): engine/cpu's reference behind features::CpuFeature.
#include "features/cpu_features.h"

#include <cmath>

#include "cpu/adm.h"
#include "cpu/cambi.h"
#include "cpu/ciede.h"
#include "cpu/float_adm.h"
#include "cpu/float_ansnr.h"
#include "cpu/float_psnr.h"
#include "cpu/float_motion.h"
#include "cpu/float_vif.h"
#include "cpu/motion.h"
#include "cpu/ms_ssim.h"
#include "cpu/plane.h"
#include "cpu/psnr.h"
#include "cpu/psnr_hvs.h"
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
  vmafx::cpu::PsnrPlan plan;
  Status compute(const FrameView& f, double* out) override {
    uint64_t sse[3];
    VMAFX_TRY(vmafx::cpu::psnr_sse(*f.ref, *f.dist, plan, sse));
    vmafx::cpu::psnr_values(plan, sse, out);
    return Status::ok();
  }
};

class PsnrHvsFeature final : public CpuFeature {
 public:
  Status compute(const FrameView& f, double* out) override {
    vmafx::cpu::PsnrHvsScores s;
    VMAFX_TRY(vmafx::cpu::psnr_hvs(*f.ref, *f.dist, &s));
    out[0] = s.y;
    out[1] = s.cb;
    out[2] = s.cr;
    out[3] = s.psnr_hvs;
    return Status::ok();
  }
};

// enable_apsnr: every frame's SSE (the values after psnr's columns) summed in frame order; the aggregates at the end.
class PsnrStage final : public OrderedStage {
 public:
  explicit PsnrStage(const vmafx::cpu::PsnrPlan& plan) : plan_(plan), totals_(plan) {}
  void push(uint64_t, const double* outputs, std::vector<Value>*) override {
    if (std::isnan(outputs[plan_.output_count()])) return;  // not computed (the scorer runs psnr on every frame)
    uint64_t sse[3];
    for (unsigned p = 0; p < 3; p++) sse[p] = vmafx::cpu::psnr_sse_of(plan_, outputs, p);
    totals_.add(sse);
  }
  void finish(std::vector<Value>*) override {}
  void aggregates(std::vector<std::pair<std::string, double>>* out) const override {
    for (unsigned p = 0; p < 3; p++) out->push_back({vmafx::cpu::PsnrTotals::kNames[p], totals_.apsnr(p)});
  }

 private:
  vmafx::cpu::PsnrPlan plan_;
  vmafx::cpu::PsnrTotals totals_;
};

// float_ssim: the CPU reference's means, reported as libvmaf's options say.
class SsimFeature final : public CpuFeature {
 public:
  vmafx::cpu::Ssim ssim;
  vmafx::cpu::SsimReport report;
  Status compute(const FrameView& f, double* out) override {
    double score;
    VMAFX_TRY(ssim.compute(luma(f.ref), luma(f.dist), &score));
    vmafx::cpu::ssim_values(report, ssim.last_means(), out);
    return Status::ok();
  }
};

class MsSsimFeature final : public CpuFeature {
 public:
  vmafx::cpu::MsSsim ms;
  vmafx::cpu::SsimReport report;
  Status compute(const FrameView& f, double* out) override {
    double score;
    VMAFX_TRY(ms.compute(luma(f.ref), luma(f.dist), &score));
    vmafx::cpu::ms_ssim_values(report, score, ms.last_scales(), out);
    return Status::ok();
  }
};

class CambiFeature final : public CpuFeature {
 public:
  vmafx::cpu::Cambi cambi;
  Status compute(const FrameView& f, double* out) override {
    vmafx::cpu::CambiScores s;
    VMAFX_TRY(cambi.compute(luma(f.ref), luma(f.dist), &s));
    out[0] = s.cambi;
    if (cambi.plan().full_ref) {
      out[1] = s.source;
      out[2] = s.full_reference;
    }
    return Status::ok();
  }
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
// From cpu::MotionPost's definition, with d the frame distance: motion2 of frame i >= d is min(s[i - d + 1],
// s[i + 1]) and s[j] reads the references j - d and j, so frame i reads i - 2d + 1 .. i + 1; the moving average adds
// motion2 of i - 1 (one more frame back). The stream's first frames (i < d) take motion3 from s[d]: frame 0 reads up
// to frame d. A range's first frame then also lies past MotionPost's start-up cases (i < 2d - 1), which only the
// stream's own first frames take.
RangeWindow motion_range_window(const Options& o) {
  const vmafx::cpu::MotionOptions m = motion_cpu_options(o);
  const unsigned d = vmafx::cpu::motion_frame_distance(m);
  return {2 * d - 1 + (m.moving_average ? 1u : 0u), d, false, ""};
}
std::unique_ptr<OrderedStage> motion_stage(const Options& o, const VideoGeometry&) {
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
namespace {
vmafx::cpu::PsnrOptions psnr_options(const Options& o) {
  vmafx::cpu::PsnrOptions p;
  p.enable_chroma = o.flag("enable_chroma");
  p.enable_mse = o.flag("enable_mse");
  p.enable_apsnr = o.flag("enable_apsnr");
  p.reduced_hbd_peak = o.flag("reduced_hbd_peak");
  p.min_sse = o.num("min_sse");
  return p;
}
}  // namespace
Status psnr_cpu_plan(const Options& o, const VideoGeometry& g, vmafx::cpu::PsnrPlan* out) {
  return vmafx::cpu::psnr_plan(g.width, g.height, g.bit_depth, g.chroma, psnr_options(o), out);
}
std::vector<std::string> psnr_outputs(const Options& o, const VideoGeometry& g) {
  // libvmaf reports luma only for 4:0:0 and with enable_chroma=false; enable_mse follows each plane's psnr with its
  // mse (the order libvmaf's collector first sees them in).
  const bool chroma = g.chroma != Chroma::k400 && o.flag("enable_chroma");
  const char* psnr[3] = {"psnr_y", "psnr_cb", "psnr_cr"};
  const char* mse[3] = {"mse_y", "mse_cb", "mse_cr"};
  std::vector<std::string> v;
  for (unsigned p = 0; p < (chroma ? 3u : 1u); p++) {
    v.push_back(psnr[p]);
    if (o.flag("enable_mse")) v.push_back(mse[p]);
  }
  return v;
}
Status psnr_check(const Options& o, const VideoGeometry& g) {
  vmafx::cpu::PsnrPlan plan;
  return psnr_cpu_plan(o, g, &plan);
}
Status psnr_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<PsnrFeature>();
  VMAFX_TRY(psnr_cpu_plan(o, g, &f->plan));
  *out = std::move(f);
  return Status::ok();
}
bool psnr_temporal(const Options& o) { return o.flag("enable_apsnr"); }
// Per frame psnr reads that frame alone; enable_apsnr's aggregates sum the SSE of every frame of the stream.
RangeWindow psnr_range_window(const Options& o) {
  if (o.flag("enable_apsnr")) return {0, 0, true, "psnr's enable_apsnr sums the SSE of the whole stream"};
  return {};
}
unsigned psnr_stage_inputs(const Options& o) { return o.flag("enable_apsnr") ? 6 : 0; }
std::unique_ptr<OrderedStage> psnr_stage(const Options& o, const VideoGeometry& g) {
  vmafx::cpu::PsnrPlan plan;
  if (!o.flag("enable_apsnr") || !psnr_cpu_plan(o, g, &plan)) return nullptr;
  return std::make_unique<PsnrStage>(plan);
}

// ---- psnr_hvs ----
std::vector<std::string> psnr_hvs_outputs(const Options&, const VideoGeometry&) {
  return {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"};
}
Status psnr_hvs_check(const Options&, const VideoGeometry& g) { return vmafx::cpu::psnr_hvs_check(g.bit_depth, g.chroma); }
Status psnr_hvs_make(const Options&, const VideoGeometry&, std::unique_ptr<CpuFeature>* out) {
  *out = std::make_unique<PsnrHvsFeature>();
  return Status::ok();
}

// ---- float_ssim / float_ms_ssim ----
vmafx::cpu::SsimReport ssim_cpu_report(const Options& o, const VideoGeometry& g) {
  return vmafx::cpu::ssim_report(o.flag("enable_db"), o.flag("clip_db"), o.flag("enable_lcs"), g.width, g.height,
                                 g.bit_depth);
}
std::vector<std::string> float_ssim_outputs(const Options& o, const VideoGeometry&) {
  if (o.flag("enable_lcs")) return {"float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s"};
  return {"float_ssim"};
}
Status float_ssim_check(const Options& o, const VideoGeometry& g) {
  return vmafx::cpu::Ssim::check_size(g.width, g.height, int(o.num("scale")));
}
Status float_ssim_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<SsimFeature>();
  VMAFX_TRY(f->ssim.init(g.width, g.height, g.bit_depth, int(o.num("scale"))));
  f->report = ssim_cpu_report(o, g);
  *out = std::move(f);
  return Status::ok();
}

std::vector<std::string> float_ms_ssim_outputs(const Options& o, const VideoGeometry&) {
  std::vector<std::string> v = {"float_ms_ssim"};
  if (!o.flag("enable_lcs")) return v;
  for (const char* term : {"l", "c", "s"})
    for (int i = 0; i < vmafx::cpu::kMsSsimScales; i++)
      v.push_back(std::string("float_ms_ssim_") + term + "_scale" + std::to_string(i));
  return v;
}
// Below MS-SSIM's smallest picture the check says out_of_range: the scorer leaves an extra float_ms_ssim out (with a
// warning) instead of failing.
Status float_ms_ssim_check(const Options&, const VideoGeometry& g) {
  Status s = vmafx::cpu::MsSsim::check_size(g.width, g.height);
  if (s.code() == Errc::unsupported) return {Errc::out_of_range, s.message()};
  return s;
}
Status float_ms_ssim_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<MsSsimFeature>();
  VMAFX_TRY(f->ms.init(g.width, g.height, g.bit_depth));
  f->report = ssim_cpu_report(o, g);
  *out = std::move(f);
  return Status::ok();
}

// ---- cambi ----
vmafx::cpu::CambiOptions cambi_options(const Options& o) {
  vmafx::cpu::CambiOptions c;
  c.cambi_max_val = o.num("cambi_max_val");
  c.enc_width = int(o.num("enc_width"));
  c.enc_height = int(o.num("enc_height"));
  c.enc_bitdepth = int(o.num("enc_bitdepth"));
  c.src_width = int(o.num("src_width"));
  c.src_height = int(o.num("src_height"));
  c.window_size = int(o.num("window_size"));
  c.topk = o.num("topk");
  c.cambi_topk = o.num("cambi_topk");
  c.tvi_threshold = o.num("tvi_threshold");
  c.cambi_vis_lum_threshold = o.num("cambi_vis_lum_threshold");
  c.max_log_contrast = int(o.num("max_log_contrast"));
  c.heatmaps_path = o.text("heatmaps_path");
  c.full_ref = o.flag("full_ref");
  c.eotf = o.text("eotf");
  c.cambi_eotf = o.text("cambi_eotf");
  c.cambi_high_res_speedup = int(o.num("cambi_high_res_speedup"));
  return c;
}
std::vector<std::string> cambi_outputs(const Options& o, const VideoGeometry&) {
  // libvmaf's alias of Cambi_feature_cambi_score; the full-reference scores under their own names.
  if (o.flag("full_ref")) return {"cambi", "cambi_source", "cambi_full_reference"};
  return {"cambi"};
}
Status cambi_check(const Options& o, const VideoGeometry& g) {
  vmafx::cpu::CambiPlan plan;
  return vmafx::cpu::cambi_plan(g.width, g.height, g.bit_depth, cambi_options(o), &plan);
}
Status cambi_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<CambiFeature>();
  VMAFX_TRY(f->cambi.init(g.width, g.height, g.bit_depth, cambi_options(o)));
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
std::unique_ptr<OrderedStage> float_motion_stage(const Options& o, const VideoGeometry&) {
  vmafx::cpu::FloatMotionOptions m;
  float_motion_options(o, &m);
  return std::make_unique<FloatMotionStage>(m, o.flag("debug") ? 1 : 0);
}
// motion2 and motion3 of frame i are min(s[i], s[i + 1]) (cpu::FloatMotionPost) and s[i] reads the references
// i - 1 and i: frames i - 1 .. i + 1.
RangeWindow float_motion_range_window(const Options&) { return {1, 1, false, ""}; }

// ---- ciede ----
namespace {
class CiedeFeature final : public CpuFeature {
 public:
  vmafx::cpu::Ciede ciede;
  Status compute(const FrameView& f, double* out) override { return ciede.compute(*f.ref, *f.dist, out); }
};
}  // namespace
std::vector<std::string> ciede_outputs(const Options&, const VideoGeometry&) { return {"ciede2000"}; }
Status ciede_check(const Options&, const VideoGeometry& g) {
  return vmafx::cpu::ciede_check(g.width, g.height, g.chroma, g.bit_depth);
}
Status ciede_make(const Options&, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<CiedeFeature>();
  VMAFX_TRY(f->ciede.init(g.width, g.height, g.chroma, g.bit_depth));
  *out = std::move(f);
  return Status::ok();
}

// ---- float_psnr, float_ansnr, float_moment ----
namespace {
class FloatPsnrFeature final : public CpuFeature {
 public:
  vmafx::cpu::FloatPsnr psnr;
  Status compute(const FrameView& f, double* out) override { return psnr.compute(luma(f.ref), luma(f.dist), out); }
};
class FloatAnsnrFeature final : public CpuFeature {
 public:
  vmafx::cpu::FloatAnsnr ansnr;
  Status compute(const FrameView& f, double* out) override { return ansnr.compute(luma(f.ref), luma(f.dist), out); }
};
class FloatMomentFeature final : public CpuFeature {
 public:
  vmafx::cpu::FloatMoment moment;
  Status compute(const FrameView& f, double* out) override { return moment.compute(luma(f.ref), luma(f.dist), out); }
};
}  // namespace

std::vector<std::string> float_psnr_outputs(const Options&, const VideoGeometry&) { return {"float_psnr"}; }
Status float_psnr_check(const Options&, const VideoGeometry& g) {
  vmafx::cpu::FloatPsnr probe;
  return probe.init(g.width, g.height, g.bit_depth);
}
Status float_psnr_make(const Options&, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<FloatPsnrFeature>();
  VMAFX_TRY(f->psnr.init(g.width, g.height, g.bit_depth));
  *out = std::move(f);
  return Status::ok();
}

std::vector<std::string> float_ansnr_outputs(const Options&, const VideoGeometry&) {
  return {"float_ansnr", "float_anpsnr"};
}
Status float_ansnr_check(const Options&, const VideoGeometry& g) {
  return vmafx::cpu::float_ansnr_check(g.width, g.height, g.bit_depth);
}
Status float_ansnr_make(const Options&, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<FloatAnsnrFeature>();
  VMAFX_TRY(f->ansnr.init(g.width, g.height, g.bit_depth));
  *out = std::move(f);
  return Status::ok();
}

std::vector<std::string> float_moment_outputs(const Options&, const VideoGeometry&) {
  return {"float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd", "float_moment_dis2nd"};
}
Status float_moment_check(const Options&, const VideoGeometry& g) {
  vmafx::cpu::FloatMoment probe;
  return probe.init(g.width, g.height, g.bit_depth);
}
Status float_moment_make(const Options&, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  auto f = std::make_unique<FloatMomentFeature>();
  VMAFX_TRY(f->moment.init(g.width, g.height, g.bit_depth));
  *out = std::move(f);
  return Status::ok();
}

// ---- speed_temporal ----
namespace {
class SpeedTemporalFeature final : public CpuFeature {
 public:
  vmafx::cpu::SpeedTemporal speed;
  Status compute(const FrameView& f, double* out) override {
    // libvmaf scores its first frame 0 (there is no difference yet).
    if (f.index == 0 || !f.prev_ref || !f.prev_dist) {
      out[0] = 0.0;
      return Status::ok();
    }
    return speed.compute(luma(f.prev_ref), luma(f.prev_dist), luma(f.ref), luma(f.dist), out);
  }
};
}  // namespace

Status speed_temporal_cpu_options(const Options& o, vmafx::cpu::SpeedOptions* out, bool* use_ref_diff) {
  vmafx::cpu::SpeedOptions s;
  s.kernelscale = o.num("speed_kernelscale");
  s.prescale = o.num("speed_prescale");
  VMAFX_TRY(vmafx::cpu::speed_scale_method_from_name(o.text("speed_prescale_method"), &s.prescale_method));
  s.sigma_nn = o.num("speed_sigma_nn");
  s.nn_floor = o.num("speed_nn_floor");
  s.max_val = o.num("speed_max_val");
  s.weight_var_mode = 0;
  VMAFX_TRY(vmafx::cpu::speed_check_options(s));
  *out = s;
  *use_ref_diff = o.flag("speed_use_ref_diff");
  return Status::ok();
}
std::vector<std::string> speed_temporal_outputs(const Options&, const VideoGeometry&) { return {"speed_temporal"}; }
Status speed_temporal_check(const Options& o, const VideoGeometry& g) {
  vmafx::cpu::SpeedOptions s;
  bool urd = false;
  VMAFX_TRY(speed_temporal_cpu_options(o, &s, &urd));
  return vmafx::cpu::speed_temporal_check(g.width, g.height, g.bit_depth, s);
}
Status speed_temporal_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  vmafx::cpu::SpeedOptions s;
  bool urd = false;
  VMAFX_TRY(speed_temporal_cpu_options(o, &s, &urd));
  auto f = std::make_unique<SpeedTemporalFeature>();
  VMAFX_TRY(f->speed.init(g.width, g.height, g.bit_depth, s, urd));
  *out = std::move(f);
  return Status::ok();
}

// ---- ssimulacra2 ----
namespace {
class Ssimulacra2Feature final : public CpuFeature {
 public:
  vmafx::cpu::Ssimulacra2 s2;
  Status compute(const FrameView& f, double* out) override { return s2.compute(*f.ref, *f.dist, out); }
};
}  // namespace
Status ssimulacra2_cpu_options(const Options& o, const VideoGeometry& g, vmafx::cpu::Ssimulacra2Options* out) {
  return vmafx::cpu::ssimulacra2_resolve(o.text("yuv_matrix"), o.text("yuv_range"), g.width, g.height, out);
}
std::vector<std::string> ssimulacra2_outputs(const Options&, const VideoGeometry&) { return {"ssimulacra2"}; }
Status ssimulacra2_check(const Options& o, const VideoGeometry& g) {
  vmafx::cpu::Ssimulacra2Options s;
  VMAFX_TRY(ssimulacra2_cpu_options(o, g, &s));
  return vmafx::cpu::ssimulacra2_check(g.width, g.height, g.bit_depth);
}
Status ssimulacra2_make(const Options& o, const VideoGeometry& g, std::unique_ptr<CpuFeature>* out) {
  vmafx::cpu::Ssimulacra2Options s;
  VMAFX_TRY(ssimulacra2_cpu_options(o, g, &s));
  auto f = std::make_unique<Ssimulacra2Feature>();
  VMAFX_TRY(f->s2.init(g.width, g.height, g.bit_depth, g.chroma, s));
  *out = std::move(f);
  return Status::ok();
}

}  // namespace vmafx::features::hooks
