// SPDX-License-Identifier: LGPL-2.1-or-later
// The scorer's HIP backend (src/scorer_backends.h's hooks). probe() opens the device and the scorer's one
// HipPipeline; create() gives, for adm, vif, motion and psnr, an asynchronous Extractor that is a thin view onto that
// pipeline (every GPU family of a scorer shares its uploads, slots and completion thread). float_ssim and
// float_ms_ssim have no GPU implementation: create() returns ok with no extractor and the scorer runs the CPU's,
// which reads the caller's host picture in place (the GPU gets its own single upload of the same frame).
#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "cpu/adm.h"
#include "cpu/motion.h"
#include "cpu/psnr.h"
#include "cpu/vif.h"
#include "hip/adm_gpu.h"
#include "hip/device.h"
#include "hip/motion_gpu.h"
#include "hip/pipeline.h"
#include "hip/psnr_gpu.h"
#include "hip/vif_gpu.h"
#include "src/scorer_backends.h"

namespace vmafx {

namespace {

hip::Vendor to_hip(Vendor v) {
  switch (v) {
    case Vendor::amd: return hip::Vendor::amd;
    case Vendor::nvidia: return hip::Vendor::nvidia;
    case Vendor::auto_select: break;
  }
  return hip::Vendor::auto_select;
}

class HipSession final : public BackendSession {
 public:
  std::shared_ptr<hip::Device> device;
  std::shared_ptr<hip::HipPipeline> pipeline;

  Status end_frame() override { return pipeline->submit_frame(); }
  Status drain() override { return pipeline->drain(); }
};

// One GPU family of a scorer: starts its part of each frame on the shared pipeline.
class HipExtractor final : public Extractor {
 public:
  HipExtractor(std::string family, std::vector<std::string> outputs, std::shared_ptr<hip::HipPipeline> pipeline,
               unsigned id)
      : family_(std::move(family)), outputs_(std::move(outputs)), pipeline_(std::move(pipeline)), id_(id) {}

  const std::string& family() const override { return family_; }
  const std::vector<std::string>& outputs() const override { return outputs_; }
  bool every_frame() const override { return family_ == "motion"; }
  bool needs_prev_ref() const override { return family_ == "motion"; }
  Status make_worker(std::unique_ptr<ExtractorWorker>* out) const override {
    out->reset();
    return {Errc::internal, family_ + " on the GPU has no CPU worker"};
  }
  bool is_async() const override { return true; }
  Status start(const FrameInput& in, double* out, std::function<void(Status)> done) override {
    if (!in.ref || !in.dist) return {Errc::invalid_argument, family_ + ": frame without pictures"};
    return pipeline_->add(id_, in.index, *in.ref, *in.dist, in.prev_ref, out, std::move(done));
  }
  Status drain() override { return pipeline_->drain(); }
  bool reads(MemoryKind m) const override { return m == MemoryKind::host || m == MemoryKind::device; }

 private:
  std::string family_;
  std::vector<std::string> outputs_;
  std::shared_ptr<hip::HipPipeline> pipeline_;
  unsigned id_;
};

// Frames in flight: six, or four where a slot's staging memory (both lumas, and chroma) is large (4K 16-bit).
unsigned slots_for(const VideoGeometry& g) {
  const size_t word = g.bit_depth > 8 ? 2 : 1;
  const size_t slot_bytes = size_t(g.width) * g.height * word * 3;
  return slot_bytes > (size_t(32) << 20) ? 4 : 6;
}

Status probe(const ScorerConfig& cfg, const VideoGeometry& g, std::string* description,
             std::unique_ptr<BackendSession>* session) {
  auto s = std::make_unique<HipSession>();
  VMAFX_TRY(hip::Device::get(to_hip(cfg.vendor), cfg.device_id, &s->device));
  const hip::DeviceInfo& info = s->device->info();
  hip::PipelineConfig pc;
  pc.width = g.width;
  pc.height = g.height;
  pc.bpc = g.bit_depth;
  pc.chroma = g.chroma;
  pc.slots = slots_for(g);
  VMAFX_TRY(hip::HipPipeline::create(s->device, pc, &s->pipeline));
  *description = std::string("hip: ") + hip::vendor_name(info.vendor) + " " + info.name + " (" + info.arch + ")";
  *session = std::move(s);
  return Status::ok();
}

Status create(BackendSession* session, const ScorerConfig& cfg, const std::string& family, const FeatureOptions& opts,
              const VideoGeometry& g, std::unique_ptr<Extractor>* out) {
  (void)cfg;
  out->reset();
  auto* hs = dynamic_cast<HipSession*>(session);
  if (!hs || !hs->pipeline) return {Errc::internal, "HIP extractor without the scorer's HIP session"};
  const std::shared_ptr<hip::HipPipeline>& pipeline = hs->pipeline;
  const unsigned slots = pipeline->slots();
  // Options the GPU features do not take are left to the CPU path, which names them.
  std::unique_ptr<hip::GpuFeature> feature;
  hip::FeatureNeeds needs;
  // The one option each of adm and vif takes (the registry's list); anything else goes to the CPU path.
  auto only_option = [&](const char* name, double* value) {
    for (const auto& [k, v] : opts) {
      if (k != name) return false;
      *value = v;
    }
    return true;
  };
  if (family == "adm") {
    cpu::AdmOptions o;
    if (!only_option("adm_enhn_gain_limit", &o.enhn_gain_limit)) return Status::ok();
    std::unique_ptr<hip::AdmGpu> a;
    VMAFX_TRY(hip::AdmGpu::create(hs->device, g.width, g.height, g.bit_depth, o, slots, &a));
    feature = std::move(a);
  } else if (family == "vif") {
    cpu::VifOptions o;
    if (!only_option("vif_enhn_gain_limit", &o.enhn_gain_limit)) return Status::ok();
    std::unique_ptr<hip::VifGpu> v;
    VMAFX_TRY(hip::VifGpu::create(hs->device, g.width, g.height, g.bit_depth, o, slots, &v));
    feature = std::move(v);
  } else if (family == "motion") {
    if (!opts.empty()) return Status::ok();
    VMAFX_TRY(cpu::motion_check_size(g.width, g.height));
    std::unique_ptr<hip::MotionGpu> m;
    VMAFX_TRY(hip::MotionGpu::create(hs->device, g.width, g.height, g.bit_depth, slots, &m));
    feature = std::move(m);
    needs.dist = false;
    needs.prev_ref = true;
  } else if (family == "psnr") {
    if (!opts.empty()) return Status::ok();
    VMAFX_TRY(cpu::psnr_check_depth(g.bit_depth));
    std::unique_ptr<hip::PsnrGpu> p;
    Status s = hip::PsnrGpu::create(hs->device, g.width, g.height, g.bit_depth, g.chroma, slots, &p);
    if (s.code() == Errc::unsupported) return Status::ok();  // e.g. 8-bit rows too wide: the CPU's exact sums
    VMAFX_TRY(s);
    feature = std::move(p);
    needs.chroma = g.chroma != Chroma::k400;
  } else {
    return Status::ok();  // no GPU implementation: the CPU's
  }
  unsigned id = 0;
  VMAFX_TRY(pipeline->add_feature(std::move(feature), needs, &id));
  *out = std::make_unique<HipExtractor>(family, extractor_outputs(family, opts, g.chroma), pipeline, id);
  return Status::ok();
}

}  // namespace

const HipBackendHooks* hip_backend_hooks() {
  static const HipBackendHooks hooks{&probe, &create};
  return &hooks;
}

}  // namespace vmafx
