// SPDX-License-Identifier: LGPL-2.1-or-later
// The feature registry: libvmaf's feature names, which extractor provides each, the option suffixes libvmaf appends
// to score names, and the CPU extractors. GPU extractors register through engine/hip.
#include <cstdio>
#include <cstring>

#include "cpu/adm.h"
#include "cpu/motion.h"
#include "cpu/ms_ssim.h"
#include "cpu/plane.h"
#include "cpu/psnr.h"
#include "cpu/ssim.h"
#include "cpu/vif.h"
#include "src/extractor.h"

namespace vmafx {

namespace {

struct NameEntry {
  const char* name;    // as models and libvmaf's collector spell it
  const char* alias;   // as results files spell it
  const char* family;  // extractor that provides it
};

constexpr NameEntry kNames[] = {
    {"VMAF_integer_feature_adm2_score", "integer_adm2", "adm"},
    {"VMAF_integer_feature_aim_score", "integer_aim", "adm"},
    {"VMAF_integer_feature_adm3_score", "integer_adm3", "adm"},
    {"integer_adm_scale0", "integer_adm_scale0", "adm"},
    {"integer_adm_scale1", "integer_adm_scale1", "adm"},
    {"integer_adm_scale2", "integer_adm_scale2", "adm"},
    {"integer_adm_scale3", "integer_adm_scale3", "adm"},
    {"VMAF_integer_feature_motion_sad_score", "VMAF_integer_feature_motion_sad_score", "motion"},
    {"VMAF_integer_feature_motion_score", "integer_motion", "motion"},
    {"VMAF_integer_feature_motion2_score", "integer_motion2", "motion"},
    {"VMAF_integer_feature_motion3_score", "integer_motion3", "motion"},
    {"VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0", "vif"},
    {"VMAF_integer_feature_vif_scale1_score", "integer_vif_scale1", "vif"},
    {"VMAF_integer_feature_vif_scale2_score", "integer_vif_scale2", "vif"},
    {"VMAF_integer_feature_vif_scale3_score", "integer_vif_scale3", "vif"},
    {"psnr_y", "psnr_y", "psnr"},
    {"psnr_cb", "psnr_cb", "psnr"},
    {"psnr_cr", "psnr_cr", "psnr"},
    {"float_ssim", "float_ssim", "float_ssim"},
    {"float_ms_ssim", "float_ms_ssim", "float_ms_ssim"},
};

// Options that change scores, as libvmaf declares them (name, alias used in score names, default).
struct OptionEntry {
  const char* family;
  const char* name;
  const char* alias;
  double default_value;
};

constexpr OptionEntry kOptions[] = {
    {"adm", "adm_enhn_gain_limit", "egl", 100.0},
    {"vif", "vif_enhn_gain_limit", "egl", 100.0},
};

const OptionEntry* find_option(const std::string& family, const std::string& name) {
  for (const auto& o : kOptions)
    if (family == o.family && name == o.name) return &o;
  return nullptr;
}

double option_or_default(const std::string& family, const FeatureOptions& opts, const char* name) {
  auto it = opts.find(name);
  if (it != opts.end()) return it->second;
  const OptionEntry* o = find_option(family, name);
  return o ? o->default_value : 0.0;
}

// Output columns of an extractor, in libvmaf's order, with the option suffix.
std::vector<std::string> outputs_of(const std::string& family, const std::string& suffix, Chroma chroma) {
  std::vector<std::string> v;
  if (family == "adm") {
    for (const char* n : {"integer_adm2", "integer_aim", "integer_adm3", "integer_adm_scale0", "integer_adm_scale1",
                          "integer_adm_scale2", "integer_adm_scale3"})
      v.push_back(n + suffix);
  } else if (family == "vif") {
    for (const char* n : {"integer_vif_scale0", "integer_vif_scale1", "integer_vif_scale2", "integer_vif_scale3"})
      v.push_back(n + suffix);
  } else if (family == "motion") {
    v.push_back("VMAF_integer_feature_motion_sad_score" + suffix);
  } else if (family == "psnr") {
    // libvmaf reports luma only for 4:0:0.
    v = chroma == Chroma::k400 ? std::vector<std::string>{"psnr_y"}
                               : std::vector<std::string>{"psnr_y", "psnr_cb", "psnr_cr"};
  } else if (family == "float_ssim") {
    v = {"float_ssim"};
  } else if (family == "float_ms_ssim") {
    v = {"float_ms_ssim"};
  }
  return v;
}

// ---- CPU extractors -------------------------------------------------------------------------------------------

class CpuExtractorBase : public Extractor {
 public:
  CpuExtractorBase(std::string family, std::vector<std::string> outputs)
      : family_(std::move(family)), outputs_(std::move(outputs)) {}
  const std::string& family() const override { return family_; }
  const std::vector<std::string>& outputs() const override { return outputs_; }

 protected:
  std::string family_;
  std::vector<std::string> outputs_;
};

class AdmWorker : public ExtractorWorker {
 public:
  cpu::Adm adm;
  Status run(const FrameInput& in, double* out) override {
    cpu::AdmScores s;
    VMAFX_TRY(adm.compute(cpu::luma_plane(*in.ref), cpu::luma_plane(*in.dist), &s));
    out[0] = s.adm2;
    out[1] = s.aim;
    out[2] = s.adm3;
    for (int i = 0; i < 4; i++) out[3 + i] = s.scale[i];
    return Status::ok();
  }
};

class VifWorker : public ExtractorWorker {
 public:
  cpu::Vif vif;
  Status run(const FrameInput& in, double* out) override {
    cpu::VifScores s;
    VMAFX_TRY(vif.compute(cpu::luma_plane(*in.ref), cpu::luma_plane(*in.dist), &s));
    for (int i = 0; i < 4; i++) out[i] = s.scale[i];
    return Status::ok();
  }
};

class MotionWorker : public ExtractorWorker {
 public:
  std::vector<int32_t> row;
  Status run(const FrameInput& in, double* out) override {
    if (!in.prev_ref) {
      out[0] = 0.0;
      return Status::ok();
    }
    const cpu::Plane cur = cpu::luma_plane(*in.ref);
    const uint64_t sad = cpu::motion_sad(cpu::luma_plane(*in.prev_ref), cur, row.data());
    out[0] = cpu::motion_score_from_sad(sad, cur.w, cur.h);
    return Status::ok();
  }
};

class PsnrWorker : public ExtractorWorker {
 public:
  Status run(const FrameInput& in, double* out) override {
    cpu::PsnrScores s;
    VMAFX_TRY(cpu::psnr(*in.ref, *in.dist, &s));
    out[0] = s.y;
    if (s.planes == 3) {
      out[1] = s.cb;
      out[2] = s.cr;
    }
    return Status::ok();
  }
};

template <class Impl>
class FloatWorker : public ExtractorWorker {
 public:
  Impl impl;
  Status run(const FrameInput& in, double* out) override {
    return impl.compute(cpu::luma_plane(*in.ref), cpu::luma_plane(*in.dist), out);
  }
};

class CpuExtractor : public CpuExtractorBase {
 public:
  CpuExtractor(std::string family, std::vector<std::string> outputs, FeatureOptions opts, uint32_t w, uint32_t h,
               unsigned bpc)
      : CpuExtractorBase(std::move(family), std::move(outputs)), opts_(std::move(opts)), w_(w), h_(h), bpc_(bpc) {}

  bool every_frame() const override { return family_ == "motion"; }
  bool needs_prev_ref() const override { return family_ == "motion"; }

  Status make_worker(std::unique_ptr<ExtractorWorker>* out) const override {
    if (family_ == "adm") {
      auto wk = std::make_unique<AdmWorker>();
      cpu::AdmOptions o;
      o.enhn_gain_limit = option_or_default(family_, opts_, "adm_enhn_gain_limit");
      VMAFX_TRY(wk->adm.init(w_, h_, bpc_, o));
      *out = std::move(wk);
    } else if (family_ == "vif") {
      auto wk = std::make_unique<VifWorker>();
      cpu::VifOptions o;
      o.enhn_gain_limit = option_or_default(family_, opts_, "vif_enhn_gain_limit");
      VMAFX_TRY(wk->vif.init(w_, h_, bpc_, o));
      *out = std::move(wk);
    } else if (family_ == "motion") {
      auto wk = std::make_unique<MotionWorker>();
      wk->row.resize(w_);
      *out = std::move(wk);
    } else if (family_ == "psnr") {
      *out = std::make_unique<PsnrWorker>();
    } else if (family_ == "float_ssim") {
      auto wk = std::make_unique<FloatWorker<cpu::Ssim>>();
      VMAFX_TRY(wk->impl.init(w_, h_, bpc_));
      *out = std::move(wk);
    } else if (family_ == "float_ms_ssim") {
      auto wk = std::make_unique<FloatWorker<cpu::MsSsim>>();
      VMAFX_TRY(wk->impl.init(w_, h_, bpc_));
      *out = std::move(wk);
    } else {
      return {Errc::internal, "no CPU worker for " + family_};
    }
    return Status::ok();
  }

 private:
  FeatureOptions opts_;
  uint32_t w_, h_;
  unsigned bpc_;
};

}  // namespace

std::string feature_alias(const std::string& name) {
  for (const auto& e : kNames)
    if (name == e.name || name == e.alias) return e.alias;
  return name;
}

std::string feature_family(const std::string& name) {
  for (const auto& e : kNames)
    if (name == e.name || name == e.alias) return e.family;
  if (name == "adm" || name == "vif" || name == "motion" || name == "psnr" || name == "float_ssim" ||
      name == "float_ms_ssim")
    return name;
  return {};
}

std::string feature_options_suffix(const std::string& family, const FeatureOptions& opts) {
  // libvmaf sorts the non-default options by name and appends "_<alias>_<%g value>" for each.
  std::string suffix;
  for (const auto& [name, value] : opts) {  // std::map iterates in name order
    const OptionEntry* o = find_option(family, name);
    if (!o || value == o->default_value) continue;
    char buf[64];
    std::snprintf(buf, sizeof buf, "_%s_%g", o->alias, value);
    suffix += buf;
  }
  return suffix;
}

std::vector<std::string> extractor_outputs(const std::string& family, const FeatureOptions& opts, Chroma chroma) {
  return outputs_of(family, feature_options_suffix(family, opts), chroma);
}

Status create_cpu_extractor(const std::string& family, const FeatureOptions& opts, uint32_t width, uint32_t height,
                            unsigned bit_depth, Chroma chroma, std::unique_ptr<Extractor>* out) {
  for (const auto& [name, value] : opts) {
    (void)value;
    if (!find_option(family, name))
      return {Errc::unsupported, "option '" + name + "' of feature '" + family + "' is not supported"};
  }
  if (family == "adm") {
    VMAFX_TRY(cpu::Adm::check_size(width, height));
  } else if (family == "vif") {
    VMAFX_TRY(cpu::Vif::check_size(width, height));
  } else if (family == "float_ssim") {
    VMAFX_TRY(cpu::Ssim::check_size(width, height));
  } else if (family == "float_ms_ssim") {
    VMAFX_TRY(cpu::MsSsim::check_size(width, height));
  } else if (family == "motion") {
    VMAFX_TRY(cpu::motion_check_size(width, height));
  } else if (family == "psnr") {
    VMAFX_TRY(cpu::psnr_check_depth(bit_depth));
  } else {
    return {Errc::unsupported, "unknown feature '" + family +
                                   "' (known: adm, vif, motion, psnr, float_ssim, float_ms_ssim)"};
  }
  *out = std::make_unique<CpuExtractor>(family, outputs_of(family, feature_options_suffix(family, opts), chroma), opts, width,
                                        height, bit_depth);
  return Status::ok();
}

}  // namespace vmafx
