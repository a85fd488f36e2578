// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU implementations by extractor name (gpu_features.h). Each entry takes the options its kernels honour;
// anything else leaves the instance to the CPU reference (which honours or refuses it by the feature table).
#include "hip/gpu_features.h"

#include <cstring>

#include "cpu/adm.h"
#include "cpu/motion.h"
#include "cpu/speed.h"
#include "features/cpu_features.h"
#include "cpu/vif.h"
#include "features/cpu_features.h"
#include "hip/adm_gpu.h"
#include "hip/cambi_gpu.h"
#include "hip/float_adm_gpu.h"
#include "hip/float_motion_gpu.h"
#include "hip/float_psnr_gpu.h"
#include "hip/float_vif_gpu.h"
#include "hip/motion_gpu.h"
#include "hip/psnr_gpu.h"
#include "hip/psnr_hvs_gpu.h"
#include "hip/speed_gpu.h"
#include "hip/ssim_gpu.h"
#include "hip/ssimulacra2_gpu.h"
#include "hip/vif_gpu.h"

namespace vmafx::hip {

namespace {

using features::Instance;

// True when every option given to `inst` is one of `taken` (the rest are at their defaults).
bool takes_only(const Instance& inst, std::initializer_list<const char*> taken) {
  for (const features::OptionDesc& o : inst.desc->options) {
    if (!inst.options.given(o.name)) continue;
    bool ok = false;
    for (const char* t : taken) ok = ok || std::strcmp(t, o.name) == 0;
    const bool at_default = o.type == features::OptType::text ? inst.options.text(o.name) == (o.def_text ? o.def_text : "")
                                                              : inst.options.num(o.name) == o.def;
    if (!ok && !at_default) return false;
  }
  return true;
}

using Maker = Status (*)(const Instance&, const VideoGeometry&, const std::shared_ptr<Device>&, unsigned,
                         std::unique_ptr<GpuFeature>*, FeatureNeeds*);
// A feature with settings of its own in EngineTuning.
using TunedMaker = Status (*)(const Instance&, const VideoGeometry&, const std::shared_ptr<Device>&, unsigned,
                              const EngineTuning&, std::unique_ptr<GpuFeature>*, FeatureNeeds*);

Status make_adm(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev, unsigned slots,
                std::unique_ptr<GpuFeature>* out, FeatureNeeds*) {
  // Every option but debug, whose extra outputs the kernels do not produce (the CPU reference does).
  if (!takes_only(inst, {"adm_enhn_gain_limit", "adm_csf_scale", "adm_csf_diag_scale", "adm_dlm_weight",
                         "adm_norm_view_dist", "adm_ref_display_height", "adm_csf_mode", "adm_noise_weight",
                         "adm_skip_aim", "adm_skip_scale0", "adm_min_val"}))
    return Status::ok();
  std::unique_ptr<AdmGpu> a;
  VMAFX_TRY(AdmGpu::create(dev, g.width, g.height, g.bit_depth, features::hooks::adm_cpu_options(inst.options),
                           slots, &a));
  *out = std::move(a);
  return Status::ok();
}

Status make_vif(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev, unsigned slots,
                std::unique_ptr<GpuFeature>* out, FeatureNeeds*) {
  if (!takes_only(inst, {"vif_enhn_gain_limit"})) return Status::ok();
  cpu::VifOptions o;
  o.enhn_gain_limit = inst.options.num("vif_enhn_gain_limit");
  std::unique_ptr<VifGpu> v;
  VMAFX_TRY(VifGpu::create(dev, g.width, g.height, g.bit_depth, o, slots, &v));
  *out = std::move(v);
  return Status::ok();
}

Status make_motion(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev, unsigned slots,
                   std::unique_ptr<GpuFeature>* out, FeatureNeeds* needs) {
  // The five-frame window needs the frame two back, which the pipeline does not keep (the table refuses it);
  // debug's second output is the CPU's.
  if (!takes_only(inst, {"motion_force_zero", "motion_blend_factor", "motion_blend_offset", "motion_fps_weight",
                         "motion_max_val", "motion_moving_average"}))
    return Status::ok();
  std::unique_ptr<MotionGpu> m;
  VMAFX_TRY(MotionGpu::create(dev, g.width, g.height, g.bit_depth, slots,
                              features::hooks::motion_cpu_options(inst.options), &m));
  *out = std::move(m);
  needs->dist = false;
  needs->prev_ref = true;
  return Status::ok();
}

Status make_speed_chroma(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev,
                         unsigned slots, std::unique_ptr<GpuFeature>* out, FeatureNeeds* needs) {
  cpu::SpeedOptions o;
  VMAFX_TRY(features::hooks::speed_cpu_options(inst.options, &o));
  std::unique_ptr<SpeedGpu> sp;
  VMAFX_TRY(SpeedGpu::create(dev, g.width, g.height, g.chroma, g.bit_depth, o, slots, &sp));
  *out = std::move(sp);
  needs->chroma = true;
  return Status::ok();
}

// Every option of psnr: the kernel's SSE are finished on the host by the CPU's cpu::psnr_values, whatever the
// options say (caps, peak, mse, the SSE enable_apsnr sums in the scorer's ordered stage).
Status make_psnr(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev, unsigned slots,
                 std::unique_ptr<GpuFeature>* out, FeatureNeeds* needs) {
  cpu::PsnrPlan plan;
  VMAFX_TRY(features::hooks::psnr_cpu_plan(inst.options, g, &plan));
  std::unique_ptr<PsnrGpu> p;
  Status s = PsnrGpu::create(dev, plan, slots, &p);
  if (s.code() == Errc::unsupported) return Status::ok();  // e.g. 8-bit rows too wide: the CPU's exact sums
  VMAFX_TRY(s);
  *out = std::move(p);
  needs->chroma = plan.planes == 3;
  return Status::ok();
}

// psnr_hvs has no options; it reads all three planes of both pictures.
Status make_psnr_hvs(const Instance&, const VideoGeometry& g, const std::shared_ptr<Device>& dev, unsigned slots,
                     std::unique_ptr<GpuFeature>* out, FeatureNeeds* needs) {
  std::unique_ptr<PsnrHvsGpu> p;
  Status s = PsnrHvsGpu::create(dev, g.width, g.height, g.bit_depth, g.chroma, slots, &p);
  if (s.code() == Errc::unsupported) return Status::ok();  // a geometry the kernel's grid cannot index: the CPU's
  VMAFX_TRY(s);
  *out = std::move(p);
  needs->chroma = true;
  return Status::ok();
}

// Every option of float_ssim and float_ms_ssim: the kernels give the means, the CPU's own functions report them
// (dB and its cap, the l / c / s terms); float_ssim's scale sizes the kernels' decimation.
Status make_float_ssim(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev,
                       unsigned slots, std::unique_ptr<GpuFeature>* out, FeatureNeeds*) {
  std::unique_ptr<SsimGpu> f;
  VMAFX_TRY(SsimGpu::create(dev, g.width, g.height, g.bit_depth, slots, &f, {}, int(inst.options.num("scale"))));
  f->set_report(features::hooks::ssim_cpu_report(inst.options, g));
  *out = std::move(f);
  return Status::ok();
}

Status make_float_ms_ssim(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev,
                          unsigned slots, std::unique_ptr<GpuFeature>* out, FeatureNeeds*) {
  std::unique_ptr<MsSsimGpu> f;
  VMAFX_TRY(MsSsimGpu::create(dev, g.width, g.height, g.bit_depth, slots, &f));
  f->set_report(features::hooks::ssim_cpu_report(inst.options, g));
  *out = std::move(f);
  return Status::ok();
}

// Every option of cambi is honoured by the kernels (the plan refuses what the CPU refuses); full_ref also reads the
// reference luma, which the pipeline uploads for every frame.
Status make_cambi(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev, unsigned slots,
                  const EngineTuning& tuning, std::unique_ptr<GpuFeature>* out, FeatureNeeds*) {
  std::unique_ptr<CambiGpu> c;
  CambiGpuOptions go;
  go.block_kernel_below = tuning.cambi_block_below;
  go.column_rows = tuning.cambi_rows;
  VMAFX_TRY(CambiGpu::create(dev, g.width, g.height, g.bit_depth, features::hooks::cambi_options(inst.options), slots,
                             &c, {}, go));
  *out = std::move(c);
  return Status::ok();
}

// The float features: every libvmaf option, as the CPU reference (the kernels are its arithmetic) -- except
// adm_p_norm != 3, where the kernels' powf is the device's, not glibc's: that case stays on the CPU (bit for bit).
Status make_float_vif(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev, unsigned slots,
                      std::unique_ptr<GpuFeature>* out, FeatureNeeds*) {
  cpu::FloatVifOptions o;
  VMAFX_TRY(features::hooks::float_vif_options(inst.options, &o));
  std::unique_ptr<FloatVifGpu> v;
  VMAFX_TRY(FloatVifGpu::create(dev, g.width, g.height, g.bit_depth, o, slots, &v));
  v->set_debug_outputs(inst.options.flag("debug"));
  *out = std::move(v);
  return Status::ok();
}

Status make_float_adm(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev, unsigned slots,
                      std::unique_ptr<GpuFeature>* out, FeatureNeeds*) {
  cpu::FloatAdmOptions o;
  features::hooks::float_adm_options(inst.options, &o);
  if (o.p_norm != 3.0) return Status::ok();
  std::unique_ptr<FloatAdmGpu> a;
  VMAFX_TRY(FloatAdmGpu::create(dev, g.width, g.height, g.bit_depth, o, slots, &a));
  a->set_debug_outputs(inst.options.flag("debug"));
  *out = std::move(a);
  return Status::ok();
}

Status make_float_motion(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev,
                         unsigned slots, std::unique_ptr<GpuFeature>* out, FeatureNeeds* needs) {
  cpu::FloatMotionOptions o;
  features::hooks::float_motion_options(inst.options, &o);
  std::unique_ptr<FloatMotionGpu> m;
  VMAFX_TRY(FloatMotionGpu::create(dev, g.width, g.height, g.bit_depth, g.chroma, o, slots, &m));
  m->set_motion_column(inst.options.flag("debug"));
  *out = std::move(m);
  needs->dist = false;
  needs->chroma = o.add_uv;
  needs->prev_ref = true;  // its absence marks a stream's first frame
  return Status::ok();
}

// float_psnr and float_moment have no options; 16-bit pictures of 2^21 pixels or more stay on the CPU (their double
// sums may round there, which the kernel's exact integer sums would not reproduce).
Status make_float_sums(FloatSumsGpu::Kind kind, const Instance&, const VideoGeometry& g,
                       const std::shared_ptr<Device>& dev, unsigned slots, std::unique_ptr<GpuFeature>* out) {
  std::unique_ptr<FloatSumsGpu> f;
  Status s = FloatSumsGpu::create(dev, kind, g.width, g.height, g.bit_depth, slots, &f);
  if (s.code() == Errc::unsupported) return Status::ok();
  VMAFX_TRY(s);
  *out = std::move(f);
  return Status::ok();
}
Status make_float_psnr(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev,
                       unsigned slots, std::unique_ptr<GpuFeature>* out, FeatureNeeds*) {
  return make_float_sums(FloatSumsGpu::Kind::psnr, inst, g, dev, slots, out);
}
Status make_float_moment(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev,
                         unsigned slots, std::unique_ptr<GpuFeature>* out, FeatureNeeds*) {
  return make_float_sums(FloatSumsGpu::Kind::moment, inst, g, dev, slots, out);
}
Status make_float_ansnr(const Instance&, const VideoGeometry& g, const std::shared_ptr<Device>& dev, unsigned slots,
                        std::unique_ptr<GpuFeature>* out, FeatureNeeds*) {
  std::unique_ptr<FloatAnsnrGpu> f;
  VMAFX_TRY(FloatAnsnrGpu::create(dev, g.width, g.height, g.bit_depth, slots, &f));
  *out = std::move(f);
  return Status::ok();
}

// Every option of speed_temporal: the kernels are speed_chroma's on the frames' luma differences; the feature keeps
// each frame's loaded luma for the next one (one instance, in order).
Status make_speed_temporal(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev,
                           unsigned slots, std::unique_ptr<GpuFeature>* out, FeatureNeeds* needs) {
  cpu::SpeedOptions o;
  bool urd = false;
  VMAFX_TRY(features::hooks::speed_temporal_cpu_options(inst.options, &o, &urd));
  std::unique_ptr<SpeedTemporalGpu> s;
  VMAFX_TRY(SpeedTemporalGpu::create(dev, g.width, g.height, g.bit_depth, o, urd, slots, &s));
  *out = std::move(s);
  needs->prev_ref = true;  // its absence marks a stream's first frame
  return Status::ok();
}

// Every option of ssimulacra2 (matrix and range set the conversion constants).
Status make_ssimulacra2(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& dev,
                        unsigned slots, std::unique_ptr<GpuFeature>* out, FeatureNeeds* needs) {
  cpu::Ssimulacra2Options o;
  VMAFX_TRY(features::hooks::ssimulacra2_cpu_options(inst.options, g, &o));
  std::unique_ptr<Ssimulacra2Gpu> s;
  VMAFX_TRY(Ssimulacra2Gpu::create(dev, g.width, g.height, g.bit_depth, g.chroma, o, slots, &s));
  *out = std::move(s);
  needs->chroma = g.chroma != Chroma::k400;
  return Status::ok();
}

struct GpuEntry {
  const char* name;
  Maker make;
  TunedMaker make_tuned = nullptr;  // instead of make
};

constexpr GpuEntry kGpuFeatures[] = {
    {"adm", &make_adm},
    {"vif", &make_vif},
    {"motion", &make_motion},
    {"psnr", &make_psnr},
    {"psnr_hvs", &make_psnr_hvs},
    {"float_ssim", &make_float_ssim},
    {"float_ms_ssim", &make_float_ms_ssim},
    {"speed_chroma", &make_speed_chroma},
    {"cambi", nullptr, &make_cambi},
    {"float_vif", &make_float_vif},
    {"float_adm", &make_float_adm},
    {"float_motion", &make_float_motion},
    {"float_psnr", &make_float_psnr},
    {"float_moment", &make_float_moment},
    {"float_ansnr", &make_float_ansnr},
    {"speed_temporal", &make_speed_temporal},
    {"ssimulacra2", &make_ssimulacra2},
};

}  // namespace

Status make_gpu_feature(const Instance& inst, const VideoGeometry& g, const std::shared_ptr<Device>& device,
                        unsigned slots, std::unique_ptr<GpuFeature>* out, FeatureNeeds* needs,
                        const EngineTuning& tuning) {
  out->reset();
  *needs = FeatureNeeds{};
  for (const GpuEntry& e : kGpuFeatures) {
    if (std::strcmp(e.name, inst.desc->name) != 0) continue;
    return e.make_tuned ? e.make_tuned(inst, g, device, slots, tuning, out, needs)
                        : e.make(inst, g, device, slots, out, needs);
  }
  return Status::ok();
}

}  // namespace vmafx::hip
