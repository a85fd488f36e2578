// SPDX-License-Identifier: LGPL-2.1-or-later
// The HIP backend (hip/backend.h). One HipPipeline per scorer runs every GPU feature of a frame in one submission
// (the frame's planes uploaded once, or read in place for device pictures); features without a GPU implementation
// run on a CPU backend beside it, reading the caller's host pictures in place. The frame is done when both parts
// are: the last part to finish reports it.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "hip/backend.h"
#include "hip/device.h"
#include "hip/gpu_features.h"
#include "hip/pipeline.h"
#include "hip/placement.h"

namespace vmafx::hip {

namespace {

// Frames in flight: EngineTuning::slots (2..64) where set; else six, or four where a slot's staging memory (both
// lumas, and chroma) is large (4K 16-bit), and at least two more than the lanes, so that every lane has a frame while
// finished ones wait for their completion.
unsigned slots_for(const VideoGeometry& g, unsigned lanes, unsigned requested) {
  if (requested) return std::max(2u, std::min(64u, requested));
  const size_t word = g.bit_depth > 8 ? 2 : 1;
  const size_t slot_bytes = size_t(g.width) * g.height * word * 3;
  return std::max(slot_bytes > (size_t(32) << 20) ? 4u : 6u, lanes + 2);
}

class HipBackend final : public features::Backend {
 public:
  explicit HipBackend(Done done) : done_(std::move(done)) {}
  ~HipBackend() override { drain(); }

  Status init(const features::Plan& plan, const BackendOptions& opt) {
    plan_ = plan;
    std::string placed;
    if (opt.device_id < 0) {
      // Automatic placement (placement.h): the session is counted on its device before the Device is opened, so
      // that sessions set up at the same time spread.
      const Api* api = nullptr;
      VMAFX_TRY(load_api(opt.vendor, &api));
      Placement p;
      VMAFX_TRY(place_session(*api, &p));
      VMAFX_TRY(Device::get(api->vendor, p.session.index(), &device_));
      session_ = std::move(p.session);
      placed = p.reason;
    } else {
      VMAFX_TRY(Device::get(opt.vendor, opt.device_id, &device_));
      session_ = DeviceSession::count(device_->info().vendor, device_->info().index);
    }
    const EngineTuning& tuning = opt.tuning;
    if (tuning.sync_launches) device_->set_sync_launches(true);
    const DeviceInfo& info = device_->info();
    // Where the session went: "device 0", or with several visible devices "placed automatically on device 1 of 2
    // (what was compared)".
    description_ = std::string("hip: ") + vendor_name(info.vendor) + " " + info.name + " (" + info.arch + "), " +
                   (placed.empty() ? "device " + std::to_string(info.index) : placed);
    PipelineConfig pc;
    pc.width = plan.geometry.width;
    pc.height = plan.geometry.height;
    pc.bpc = plan.geometry.bit_depth;
    pc.chroma = plan.geometry.chroma;
    pc.upload_stream = tuning.upload_stream;
    pc.upload_gate = tuning.upload_gate;
    pc.graphs = tuning.graphs;
    pc.copy_threads = tuning.copy_threads;
    pc.lanes = tuning.lanes;
    pc.slots = slots_for(plan.geometry, requested_lanes(*device_, tuning.lanes), tuning.slots);
    pc.scaler = plan.scaler.get();  // the plan (kept in plan_) owns it
    pc.dist_width = plan.dist_geometry.width;
    pc.dist_height = plan.dist_geometry.height;
    VMAFX_TRY(HipPipeline::create(device_, pc, &pipeline_));
    if (pipeline_->lanes() > 1) description_ += ", " + std::to_string(pipeline_->lanes()) + " lanes";

    features::Plan cpu_plan;
    cpu_plan.geometry = plan.geometry;
    cpu_plan.threads = plan.threads;
    cpu_plan.value_count = plan.value_count;
    for (size_t i = 0; i < plan.features.size(); i++) {
      const features::Instance& inst = plan.features[i];
      std::unique_ptr<GpuFeature> g;
      FeatureNeeds needs;
      VMAFX_TRY(make_gpu_feature(inst, plan.geometry, device_, pc.slots, &g, &needs, tuning).prepend(inst.desc->name));
      if (g) {
        assert(g->output_count() == inst.value_count());
        // One instance per lane where the feature keeps no state between frames, else one (the serial lane).
        std::vector<std::unique_ptr<GpuFeature>> instances;
        const bool per_lane = pipeline_->lanes() > 1 && g->frame_independent();
        instances.push_back(std::move(g));
        for (unsigned lane = 1; per_lane && lane < pipeline_->lanes(); ++lane) {
          std::unique_ptr<GpuFeature> more;
          FeatureNeeds same;
          VMAFX_TRY(make_gpu_feature(inst, plan.geometry, device_, pc.slots, &more, &same, tuning)
                        .prepend(inst.desc->name));
          if (!more) return {Errc::internal, std::string(inst.desc->name) + ": no GPU instance for lane " + std::to_string(lane)};
          instances.push_back(std::move(more));
        }
        unsigned id = 0;
        VMAFX_TRY(pipeline_->add_feature(std::move(instances), needs, &id));
        gpu_.push_back({i, id});
      } else {
        cpu_plan.features.push_back(inst);
        cpu_plan.first_value.push_back(plan.first_value[i]);
      }
    }
    if (!cpu_plan.features.empty()) {
      // The CPU part reports to part_done when the frame also has GPU work, else straight to the scorer.
      VMAFX_TRY(features::create_cpu_backend(
          cpu_plan,
          [this](features::Frame* f, Status s) {
            if (has_gpu_work(*f)) part_done(f, std::move(s));
            else done_(f, std::move(s));
          },
          &cpu_));
      cpu_names_.clear();
      std::string names;
      for (const auto& inst : cpu_plan.features) {
        cpu_names_.push_back(inst.desc->name);
        names += (names.empty() ? "" : ", ") + std::string(inst.desc->name);
      }
      description_ += " (on the CPU: " + names + ")";
    }
    return Status::ok();
  }

  std::string description() const override { return description_; }
  int device() const override { return device_ ? device_->info().index : -1; }
  std::vector<std::string> cpu_features() const override { return cpu_names_; }
  size_t capacity() const override { return std::max<size_t>(8, cpu_ ? cpu_->capacity() : 0); }
  bool accepts(MemoryKind m) const override { return m == MemoryKind::host || !cpu_; }

  Status submit(features::Frame* f) override {
    std::vector<HipPipeline::Part> parts;
    for (const auto& g : gpu_)
      if (f->runs(plan_.features[g.feature]))
        parts.push_back({g.id, f->values.data() + plan_.first_value[g.feature]});
    if (parts.empty()) {
      if (cpu_) return cpu_->submit(f);  // reports the frame itself (at once when nothing of it runs there)
      done_(f, Status::ok());
      return Status::ok();
    }
    if (!cpu_) return pipeline_->submit(f->index, f->ref, f->dist, f->prev_ref, std::move(parts),
                                        [this, f](Status st) { done_(f, std::move(st)); });
    // Both parts: the second to finish reports the frame.
    f->parts.store(2);
    f->part_status = Status::ok();
    VMAFX_TRY(pipeline_->submit(f->index, f->ref, f->dist, f->prev_ref, std::move(parts),
                                [this, f](Status st) { part_done(f, std::move(st)); }));
    if (Status s = cpu_->submit(f); !s) part_done(f, std::move(s));
    return Status::ok();
  }

  void drain() override {
    if (pipeline_) (void)pipeline_->drain();
    if (cpu_) cpu_->drain();
  }
  uint64_t uploaded_bytes() const override { return pipeline_ ? pipeline_->stats().uploaded_bytes : 0; }
  void graph_counters(uint64_t* launches, uint64_t* captures, uint64_t* direct, uint64_t* calls) const override {
    const GraphStats g = pipeline_ ? pipeline_->stats().graphs : GraphStats{};
    *launches = g.launches;
    *captures = g.captures;
    *direct = g.direct;
    *calls = g.calls;
  }

 private:
  struct GpuSlot {
    size_t feature;  // index into plan_.features
    unsigned id;     // the pipeline's feature id
  };

  bool has_gpu_work(const features::Frame& f) const {
    for (const auto& g : gpu_)
      if (f.runs(plan_.features[g.feature])) return true;
    return false;
  }

  void record(features::Frame* f, const Status& s) {
    std::lock_guard<std::mutex> lk(mu_);
    if (f->part_status && !s) f->part_status = s;
  }

  void part_done(features::Frame* f, Status s) {
    record(f, s);
    if (f->parts.fetch_sub(1) != 1) return;
    Status st;
    {
      std::lock_guard<std::mutex> lk(mu_);
      st = f->part_status;
    }
    done_(f, std::move(st));
  }

  Done done_;
  features::Plan plan_;
  std::shared_ptr<Device> device_;
  DeviceSession session_;  // this session, counted on device_ while the backend lives (placement.h)
  std::shared_ptr<HipPipeline> pipeline_;
  std::unique_ptr<features::Backend> cpu_;
  std::vector<GpuSlot> gpu_;
  std::string description_;
  std::vector<std::string> cpu_names_;
  std::mutex mu_;
};

}  // namespace

Status create_backend(const features::Plan& plan, const BackendOptions& options, features::Backend::Done done,
                      std::unique_ptr<features::Backend>* out) {
  auto b = std::make_unique<HipBackend>(std::move(done));
  VMAFX_TRY(b->init(plan, options));
  *out = std::move(b);
  return Status::ok();
}

}  // namespace vmafx::hip
