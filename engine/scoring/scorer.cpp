// SPDX-License-Identifier: LGPL-2.1-or-later
// The scoring pipeline. A frame travels one way: submit() validates the pair, gives it its index and hands the whole
// frame to the backend (CPU workers or the GPU); the backend reports the frame done from one of its threads; the
// in-order stage — run by whichever thread finds the next frame in order complete, one thread at a time and outside
// the scorer's lock — writes its scores to the collector, feeds the temporal features' ordered stages (motion2 needs
// the next frame's SAD), predicts every model's score for the frames that are final, calls on_frame, and releases
// the pictures no feature reads again (the next frame's motion reads the previous reference). So a frame crosses at
// most two threads between submit() and on_frame: the caller's, and the backend's thread that completed it.
#include "vmafx/scorer.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "cpu/scale.h"
#include "cpu/simd/cpu_features.h"
#include "features/backend.h"
#include "features/table.h"
#include "scoring/backend_select.h"
#include "scoring/plan.h"
#include "scoring/shared_reference.h"
#include "vmafx/model.h"

namespace vmafx {

double FrameScore::get(const std::string& name, const std::vector<std::string>& names) const {
  for (size_t i = 0; i < names.size() && i < values.size(); i++)
    if (names[i] == name) return values[i];
  return NAN;
}

namespace {

using Clock = std::chrono::steady_clock;

std::string geometry_text(const VideoGeometry& g) {
  return std::to_string(g.width) + "x" + std::to_string(g.height) + " " + std::to_string(g.bit_depth) + "-bit " +
         chroma_name(g.chroma);
}

// A submitted frame: the backend's frame plus what the scorer keeps of the caller's.
struct Entry {
  features::Frame frame;
  int64_t timestamp = -1;
  uint64_t user = 0;
  std::function<void()> release;  // with a shared reference, it also holds `shared`
  const SharedFrame* shared = nullptr;
  bool computed = false;
};

struct ModelSlot {
  Model model;
  ModelOptions options;
  std::vector<size_t> inputs;   // collector column of each model feature
  std::vector<size_t> outputs;  // score, then members, bagging, stddev, ci lo, ci hi for collections
};

struct StageSlot {
  std::unique_ptr<features::OrderedStage> stage;
  size_t feature = 0;           // index into plan_.features
  std::vector<size_t> columns;  // collector column of each stage output
  uint64_t final_upto = 0;      // frames [0, final_upto) have every stage value
};

class ScorerImpl final : public Scorer {
 public:
  ~ScorerImpl() override {
    {
      std::lock_guard<std::mutex> lk(mu_);
      aborted_ = true;  // frames still finishing are not handed out
    }
    if (backend_) backend_->drain();
    backend_.reset();
    std::vector<std::function<void()>> releases;
    {
      std::lock_guard<std::mutex> lk(mu_);
      for (auto& e : entries_) releases.push_back(std::move(e->release));
      entries_.clear();
    }
    for (auto& r : releases)
      if (r) r();
  }

  Status init(const ScorerConfig& cfg, const StreamGeometry& g);

  const std::vector<std::string>& score_names() const override { return score_names_; }
  const std::vector<std::string>& model_score_names() const override { return model_names_; }
  RangeContext range_context() const override;
  Backend backend() const override { return backend_kind_; }
  std::string backend_description() const override { return backend_->description(); }
  int device() const override { return backend_->device(); }

  Status submit(FramePair pair, bool block) override {
    return submit(std::move(pair), block ? Clock::time_point::max() : Clock::time_point::min());
  }
  Status submit(FramePair pair, Clock::time_point deadline) override;
  std::vector<std::string> cpu_features() const override { return backend_->cpu_features(); }
  Status flush() override;
  const Collector& collector() const override { return collector_; }
  uint64_t frames_submitted() const override {
    std::lock_guard<std::mutex> lk(mu_);
    return submitted_;
  }
  double fps() const override;
  ScorerCounters counters() const override {
    std::lock_guard<std::mutex> lk(mu_);
    ScorerCounters c = counters_;
    c.frames = submitted_;
    c.uploaded_bytes = backend_->uploaded_bytes();
    backend_->graph_counters(&c.graph_launches, &c.graph_captures, &c.graph_direct, &c.graph_calls);
    return c;
  }

 private:
  // Copies the shared reference's values of a frame marked reference_shared (waits for them).
  Status take_shared(features::Frame* f);
  void frame_done(features::Frame* f, Status s);
  // Runs the in-order stage if no other thread does; returns with the lock held.
  void advance(std::unique_lock<std::mutex>& lk);
  void collect(Entry& e);
  void emit_final(uint64_t upto);
  Status predict(uint64_t frame);
  void fail_locked(const Status& s) {
    if (error_.is_ok()) error_ = s;
    cv_.notify_all();
  }

  ScorerConfig cfg_;
  StreamGeometry geometry_;
  features::Plan plan_;
  std::vector<std::vector<size_t>> feature_columns_;  // per plan feature: collector column of each output
  std::vector<StageSlot> stages_;
  std::vector<ModelSlot> models_;
  std::vector<std::string> score_names_, model_names_;
  unsigned frames_back_ = 0;  // previous references the temporal features read: 0, 1 or 2
  Backend backend_kind_ = Backend::cpu;
  std::unique_ptr<features::Backend> backend_;
  size_t capacity_ = 3;
  // ScorerConfig::shared_reference: per plan feature the shared plan's instance (-1: computed here), how many
  // previous references the shared features read.
  std::shared_ptr<SharedReference> shared_owner_;
  const scoring::SharedReferenceImpl* shared_ = nullptr;
  std::vector<int> shared_slot_;
  unsigned shared_back_ = 0;
  bool any_shared_ = false;
  std::deque<int64_t> recent_shared_;  // the shared frames of the last shared_back_ frames (-1: none)

  // Written by the in-order stage only (one thread at a time), read by the caller after flush().
  Collector collector_;
  uint64_t emitted_ = 0;  // frames [0, emitted_) went through on_frame (or were unscored)

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<Entry>> entries_;  // submitted, not yet retired, in index order
  struct Meta {
    int64_t timestamp;
    uint64_t user;
    bool scored;
    std::shared_ptr<const void> tag;
  };
  std::deque<Meta> meta_;   // frames [emitted_, ...) not yet emitted
  uint64_t submitted_ = 0;
  ScorerCounters counters_;  // its reference_feature_frames and shared_frames
  uint64_t collected_ = 0;  // frames [0, collected_) are in the collector
  bool emitting_ = false;   // a thread runs the in-order stage
  bool flushing_ = false;
  bool flushed_ = false;
  bool aborted_ = false;
  Status error_;
  Clock::time_point t_first_{}, t_end_{};
};

Status ScorerImpl::init(const ScorerConfig& cfg, const StreamGeometry& g) {
  cfg_ = cfg;
  geometry_ = g;
  if (cfg.shared_reference) {
    shared_ = dynamic_cast<const scoring::SharedReferenceImpl*>(cfg.shared_reference.get());
    if (!shared_) return {Errc::invalid_argument, "the shared reference was not made by SharedReference::create"};
    shared_owner_ = cfg.shared_reference;
    const VideoGeometry& sg = shared_->geometry();
    if (sg.width != g.ref.width || sg.height != g.ref.height || sg.bit_depth != g.ref.bit_depth ||
        sg.chroma != g.ref.chroma)
      return {Errc::invalid_argument, "the shared reference is " + geometry_text(sg) + ", the stream's reference " +
                                          geometry_text(g.ref)};
    // Where the shared reference runs (its device copies are on that GPU).
    cfg_.backend = shared_->backend();
    cfg_.device_id = shared_->device();
  }
  if (geometry_.dist.width == 0 && geometry_.dist.height == 0) geometry_.dist = geometry_.ref;
  const VideoGeometry& r = geometry_.ref;
  const VideoGeometry& d = geometry_.dist;
  if (r.width == 0 || r.height == 0) return {Errc::invalid_argument, "video has zero width or height"};
  if (r.bit_depth < 8 || r.bit_depth > 16)
    return {Errc::unsupported, "bit depth " + std::to_string(r.bit_depth) + " is outside 8..16"};
  if (d.bit_depth != r.bit_depth || d.chroma != r.chroma)
    return {Errc::unsupported, "reference " + geometry_text(r) + " and distorted " + geometry_text(d) +
                                   " differ in bit depth or chroma subsampling"};
  plan_.dist_geometry = d;
  if (d.width != r.width || d.height != r.height) {
    if (cfg.scale == ScaleMethod::none)
      return {Errc::unsupported, "distorted " + geometry_text(d) + " differs in size from the reference " +
                                     geometry_text(r) + " and scaling is off (choose bicubic, bilinear or lanczos)"};
    const cpu::ScaleKernel k = cfg.scale == ScaleMethod::bilinear  ? cpu::ScaleKernel::bilinear
                               : cfg.scale == ScaleMethod::lanczos ? cpu::ScaleKernel::lanczos
                                                                   : cpu::ScaleKernel::bicubic;
    auto scaler = std::make_shared<cpu::Scaler>();
    VMAFX_TRY(scaler->init(k, d.width, d.height, r.width, r.height, r.chroma, r.bit_depth)
                  .prepend("scaling the distorted " + geometry_text(d) + " to the reference's " +
                           std::to_string(r.width) + "x" + std::to_string(r.height)));
    plan_.scaler = std::move(scaler);
  }
  if (cfg.subsample == 0) return {Errc::invalid_argument, "subsample must be at least 1"};
  collector_.set_subsample(cfg.subsample);
  plan_.geometry = r;
  plan_.threads = std::min(cfg.threads, kMaxThreads);
  if (cfg.threads > kMaxThreads && cfg_.on_notice)
    cfg_.on_notice(NoticeLevel::warning, "threads limited to " + std::to_string(kMaxThreads),
                   std::to_string(cfg.threads) + " threads asked for; the CPU backend uses at most " +
                       std::to_string(kMaxThreads));

  // The models' features in model order, then the extra ones.
  std::vector<Model> loaded;
  VMAFX_TRY(scoring::plan_features(cfg_, geometry_.ref, true, &plan_, &loaded));
  for (size_t m = 0; m < loaded.size(); m++) {
    ModelSlot slot;
    slot.model = std::move(loaded[m]);
    slot.options.disable_clip = cfg.models[m].disable_clip;
    slot.options.enable_transform = cfg.models[m].enable_transform;
    models_.push_back(std::move(slot));
  }

  // With a shared reference, the reference-only features it computes are taken from it.
  shared_slot_.assign(plan_.features.size(), -1);
  if (shared_)
    for (size_t i = 0; i < plan_.features.size(); i++) {
      features::Instance& inst = plan_.features[i];
      if (!inst.reference_only()) continue;
      shared_slot_[i] = shared_->find(inst);
      if (shared_slot_[i] < 0) continue;
      inst.from_shared = true;
      any_shared_ = true;
      shared_back_ = std::max(shared_back_, inst.desc->references_back(inst.options));
    }

  // Columns: every feature's per-frame outputs in order, then the ordered stages', then the models' scores.
  for (size_t i = 0; i < plan_.features.size(); i++) {
    const features::Instance& inst = plan_.features[i];
    std::vector<size_t> cols;
    for (const auto& o : inst.outputs) cols.push_back(collector_.add_column(o));
    feature_columns_.push_back(std::move(cols));
    frames_back_ = std::max(frames_back_, inst.desc->references_back(inst.options));
  }
  for (size_t i = 0; i < plan_.features.size(); i++) {
    const features::Instance& inst = plan_.features[i];
    if (!inst.desc->make_stage) continue;
    StageSlot st;
    st.stage = inst.desc->make_stage(inst.options, geometry_.ref);
    if (!st.stage) continue;  // these options need none
    st.feature = i;
    for (const auto& o : inst.stage_outputs) st.columns.push_back(collector_.add_column(o));
    stages_.push_back(std::move(st));
  }
  for (size_t m = 0; m < models_.size(); m++) {
    ModelSlot& slot = models_[m];
    for (const ModelFeature& mf : slot.model.features()) {
      const long c = collector_.find(mf.score_name);
      assert(c >= 0);  // the instance made for this feature writes its score name
      slot.inputs.push_back(size_t(c));
    }
    std::string name = cfg.models[m].name.empty() ? "vmaf" : cfg.models[m].name;
    for (const std::string& n : model_names_)
      if (n == name) return {Errc::invalid_argument, "two models score into the column '" + name + "': name them"};
    model_names_.push_back(name);
    for (const auto& n : slot.model.score_names(name)) {
      // A column already there belongs to a feature or to another model's collection columns: the model's score
      // would overwrite those values (libvmaf drops the model's instead). Refused, naming both.
      if (collector_.find(n) >= 0) {
        std::string owner = "another model";
        for (const features::Instance& inst : plan_.features)
          for (const auto* cols : {&inst.outputs, &inst.stage_outputs})
            if (std::find(cols->begin(), cols->end(), n) != cols->end()) owner = "feature " + std::string(inst.desc->name);
        return {Errc::invalid_argument, "model " + cfg.models[m].model + " scores into the column '" + n +
                                            "', which " + owner + " writes: give the model another name (name=...)"};
      }
      slot.outputs.push_back(collector_.add_column(n));
    }
  }
  score_names_ = collector_.names();

  // The CPU code's instruction sets are the process's (cpu/simd/cpu_features.h): set here, before any feature runs.
  if (cfg.tuning.cpu_mask >= 0) cpu::set_cpu_mask(unsigned(cfg.tuning.cpu_mask));
  VMAFX_TRY(scoring::select_backend(
      cfg_, plan_, [this](features::Frame* f, Status s) { frame_done(f, std::move(s)); }, &backend_,
      &backend_kind_));
  capacity_ = std::max<size_t>(frames_back_ + 2, backend_->capacity());
  return Status::ok();
}

Status ScorerImpl::submit(FramePair pair, Clock::time_point deadline) {
  auto fail = [&](Status s) {
    if (pair.release) pair.release();
    return s;
  };
  // A shared reference's frame: the reference is its device copy where the backend reads device memory. A pair
  // without one brings its own reference.
  std::shared_ptr<const SharedFrame> sf = std::move(pair.shared);
  if (sf && !shared_)
    return fail({Errc::invalid_argument, "the pair has a shared frame but the scorer has no shared reference"});
  if (sf) {
    if (sf->owner != shared_) return fail({Errc::invalid_argument, "the pair's shared frame is of another shared reference"});
    const bool device_copy = sf->device.memory == MemoryKind::device && backend_->accepts(MemoryKind::device) &&
                             !(sf->luma_only && (plan_.reads() & features::kReadsChroma));
    pair.ref = device_copy ? sf->device : sf->host;
  }
  if (Status s = validate_view(pair.ref); !s) return fail(s.prepend("reference"));
  if (Status s = validate_view(pair.dist); !s) return fail(s.prepend("distorted"));
  const VideoGeometry& r = geometry_.ref;
  const VideoGeometry& d = geometry_.dist;
  auto matches = [](const PictureView& v, const VideoGeometry& g) {
    return v.width == g.width && v.height == g.height && v.bit_depth == g.bit_depth && v.chroma == g.chroma;
  };
  if (!matches(pair.ref, r) || !matches(pair.dist, d))
    return fail({Errc::unsupported, "pair of " + std::to_string(pair.ref.width) + "x" +
                                        std::to_string(pair.ref.height) + " and " + std::to_string(pair.dist.width) +
                                        "x" + std::to_string(pair.dist.height) + " pictures does not match the "
                                        "stream's reference " + geometry_text(r) + " and distorted " +
                                        geometry_text(d)});
  for (const PictureView* v : {&pair.ref, &pair.dist})
    if (!backend_->accepts(v->memory))
      return fail({Errc::unsupported, "the " + backend_->description() + " backend cannot read " +
                                          (v->memory == MemoryKind::device ? "device" : "host") +
                                          " memory for every feature asked for"});

  auto e = std::make_unique<Entry>();
  Entry* entry = e.get();
  {
    std::unique_lock<std::mutex> lk(mu_);
    if (!error_.is_ok()) return fail(error_);
    if (flushed_ || flushing_) return fail({Errc::invalid_argument, "submit after flush"});
    auto has_room = [&] { return entries_.size() < capacity_ || !error_.is_ok(); };
    if (!has_room()) {
      if (deadline == Clock::time_point::max()) {
        cv_.wait(lk, has_room);
      } else if (deadline <= Clock::now() || !cv_.wait_until(lk, deadline, has_room)) {
        return fail({Errc::busy, "the scorer has " + std::to_string(entries_.size()) + " frames in flight"});
      }
      if (!error_.is_ok()) return fail(error_);
    }
    if (submitted_ == 0) t_first_ = Clock::now();
    features::Frame& f = entry->frame;
    f.index = submitted_++;
    // The shared values are those of a run of this scorer alone when the references the shared reference's frame
    // read before it are the ones this scorer was given before this frame: the last shared_back_ frames took the
    // shared frames just before (or, at both streams' start, neither has them).
    bool take_shared = sf && any_shared_;
    for (unsigned k = 1; take_shared && k <= shared_back_; k++) {
      const int64_t mine = int64_t(f.index) - k, theirs = int64_t(sf->index) - k;
      if (mine < 0 || theirs < 0) take_shared = mine < 0 && theirs < 0;
      else take_shared = recent_shared_[recent_shared_.size() - k] == theirs;
    }
    if (shared_back_ > 0) {
      recent_shared_.push_back(sf ? int64_t(sf->index) : -1);
      if (recent_shared_.size() > shared_back_) recent_shared_.pop_front();
    }
    f.reference_shared = take_shared;
    bool local_reference = false;
    for (const auto& inst : plan_.features) local_reference = local_reference || (inst.reference_only() && f.runs(inst));
    if (f.reference_shared) counters_.shared_frames++;
    if (local_reference) counters_.reference_feature_frames++;
    f.scored = pair.scored && collector_.is_scored(f.index);
    f.ref = pair.ref;
    f.dist = pair.dist;
    f.values.assign(plan_.value_count, NAN);
    // The previous entries stay until this frame is computed when a temporal feature reads them (advance()).
    const size_t n = entries_.size();
    if (frames_back_ >= 1 && n >= 1 && entries_[n - 1]->frame.index + 1 == f.index) {
      f.prev_ref = &entries_[n - 1]->frame.ref;
      f.prev_dist = &entries_[n - 1]->frame.dist;
    }
    if (frames_back_ >= 2 && n >= 2 && entries_[n - 2]->frame.index + 2 == f.index)
      f.prev_prev_ref = &entries_[n - 2]->frame.ref;
    entry->timestamp = pair.timestamp;
    entry->user = pair.user;
    entry->release = std::move(pair.release);
    if (sf) {
      entry->shared = sf.get();
      entry->release = [r = std::move(entry->release), sf]() {
        if (r) r();
      };
    }
    meta_.push_back({pair.timestamp, pair.user, f.scored, std::move(pair.tag)});
    entries_.push_back(std::move(e));
  }
  // Outside the lock: the backend may report the frame done from inside submit (CPU backend, no worker threads).
  Status s = backend_->submit(&entry->frame);
  if (!s) {
    std::unique_lock<std::mutex> lk(mu_);
    fail_locked(s.prepend("frame " + std::to_string(entry->frame.index)));
    entry->computed = true;
    advance(lk);
    return error_;
  }
  std::lock_guard<std::mutex> lk(mu_);
  return error_;
}

Status ScorerImpl::take_shared(features::Frame* f) {
  const SharedFrame* sf = nullptr;
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (auto& p : entries_)
      if (&p->frame == f) sf = p->shared;
  }
  assert(sf);
  VMAFX_TRY(shared_->wait(*sf));
  const features::Plan& sp = shared_->plan();
  for (size_t i = 0; i < plan_.features.size(); i++) {
    if (shared_slot_[i] < 0) continue;
    const size_t from = sp.first_value[size_t(shared_slot_[i])];
    const size_t n = plan_.features[i].value_count();
    if (from + n > sf->values.size()) return {Errc::internal, "the shared reference has too few values"};
    std::copy(sf->values.begin() + from, sf->values.begin() + from + n, f->values.begin() + plan_.first_value[i]);
  }
  return Status::ok();
}

void ScorerImpl::frame_done(features::Frame* f, Status s) {
  if (s && f->reference_shared) s = take_shared(f);
  std::unique_lock<std::mutex> lk(mu_);
  Entry* e = nullptr;
  for (auto& p : entries_)
    if (&p->frame == f) e = p.get();
  assert(e);
  if (!s) fail_locked(s);
  e->computed = true;
  cv_.notify_all();
  advance(lk);
}

void ScorerImpl::advance(std::unique_lock<std::mutex>& lk) {
  if (emitting_) return;  // that thread will see this frame before it stops
  emitting_ = true;
  for (;;) {
    Entry* next = nullptr;
    for (auto& p : entries_)
      if (p->frame.index == collected_) next = p.get();
    if (!next || !next->computed || !error_.is_ok() || aborted_) break;
    lk.unlock();
    collect(*next);
    uint64_t final_upto = collected_ + 1;
    for (const StageSlot& st : stages_) final_upto = std::min(final_upto, st.final_upto);
    emit_final(final_upto);
    lk.lock();
    collected_++;
    // Retire what nobody reads any more: every collected frame, except one that a temporal feature of a frame not
    // computed yet reads as its previous reference (frames_back_ frames later).
    std::vector<std::function<void()>> releases;
    while (!entries_.empty()) {
      Entry& front = *entries_.front();
      if (front.frame.index >= collected_) break;
      if (frames_back_ > 0 && !flushing_) {
        bool readers_done = true;
        for (size_t k = 1; k <= frames_back_; k++)
          readers_done = readers_done && entries_.size() > k && entries_[k]->computed;
        if (!readers_done) break;
      }
      releases.push_back(std::move(front.release));
      entries_.pop_front();
    }
    cv_.notify_all();
    if (!releases.empty()) {
      lk.unlock();
      for (auto& r : releases)
        if (r) r();
      lk.lock();
    }
  }
  emitting_ = false;
  cv_.notify_all();
}

// In-order stage: the thread holding emitting_ only.
void ScorerImpl::collect(Entry& e) {
  const features::Frame& f = e.frame;
  for (size_t i = 0; i < plan_.features.size(); i++) {
    if (!f.has_values(plan_.features[i])) continue;
    const std::vector<size_t>& cols = feature_columns_[i];
    for (size_t k = 0; k < cols.size(); k++) collector_.set(f.index, cols[k], f.values[plan_.first_value[i] + k]);
  }
  if (!f.scored) collector_.set_unscored(f.index);
  std::vector<features::OrderedStage::Value> ready;
  for (StageSlot& st : stages_) {
    ready.clear();
    st.stage->push(f.index, f.values.data() + plan_.first_value[st.feature], &ready);
    for (const auto& v : ready) {
      collector_.set(v.frame, st.columns[v.column], v.value);
      st.final_upto = std::max(st.final_upto, v.frame + 1);
    }
    if (st.columns.empty()) st.final_upto = f.index + 1;  // a stage of aggregates only holds no frame back
  }
}

Status ScorerImpl::predict(uint64_t frame) {
  for (const ModelSlot& m : models_) {
    std::vector<double> in(m.inputs.size());
    for (size_t k = 0; k < m.inputs.size(); k++) {
      if (!collector_.get(frame, m.inputs[k], &in[k]))
        return {Errc::internal, "frame " + std::to_string(frame) + " lacks " + collector_.name(m.inputs[k])};
    }
    Prediction p;
    VMAFX_TRY(m.model.predict(in.data(), m.options, &p).prepend("frame " + std::to_string(frame)));
    collector_.set(frame, m.outputs[0], p.score);
    if (p.has_ci) {
      size_t k = 1;
      for (double v : p.members)
        if (k < m.outputs.size()) collector_.set(frame, m.outputs[k++], v);
      for (double v : {p.bagging, p.stddev, p.ci_lo, p.ci_hi})
        if (k < m.outputs.size()) collector_.set(frame, m.outputs[k++], v);
    }
  }
  return Status::ok();
}

// Frames below `upto` have every value: predict, hand out, in order. In-order stage only.
void ScorerImpl::emit_final(uint64_t upto) {
  while (emitted_ < upto) {
    Meta meta;
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (!error_.is_ok() || meta_.empty()) return;
      meta = meta_.front();
    }
    if (meta.scored) {
      if (Status s = predict(emitted_); !s) {
        std::lock_guard<std::mutex> lk(mu_);
        fail_locked(s);
        return;
      }
      if (cfg_.on_frame) {
        FrameScore fs;
        fs.index = emitted_;
        fs.timestamp = meta.timestamp;
        fs.user = meta.user;
        fs.tag = meta.tag;
        fs.values.assign(score_names_.size(), NAN);
        for (size_t c = 0; c < score_names_.size(); c++) {
          double v;
          if (collector_.get(emitted_, c, &v)) fs.values[c] = v;
        }
        cfg_.on_frame(fs);
      }
    }
    emitted_++;
    std::lock_guard<std::mutex> lk(mu_);
    meta_.pop_front();
  }
}

Status ScorerImpl::flush() {
  backend_->drain();
  std::unique_lock<std::mutex> lk(mu_);
  if (flushed_) return error_;
  // Every frame is computed; let a thread still in the in-order stage finish, then take it over for the end.
  cv_.wait(lk, [&] { return !emitting_; });
  advance(lk);
  cv_.wait(lk, [&] { return !emitting_; });
  flushing_ = true;
  emitting_ = true;
  if (error_.is_ok()) {
    lk.unlock();
    std::vector<features::OrderedStage::Value> ready;
    for (StageSlot& st : stages_) {
      ready.clear();
      st.stage->finish(&ready);
      for (const auto& v : ready) collector_.set(v.frame, st.columns[v.column], v.value);
      st.final_upto = collected_;
    }
    std::vector<std::pair<std::string, double>> aggregates;
    for (const StageSlot& st : stages_) st.stage->aggregates(&aggregates);
    for (const auto& [name, v] : aggregates) collector_.set_aggregate(name, v);
    emit_final(collected_);
    lk.lock();
  }
  emitting_ = false;
  flushed_ = true;
  std::vector<std::function<void()>> releases;
  for (auto& e : entries_) releases.push_back(std::move(e->release));
  entries_.clear();
  t_end_ = Clock::now();
  cv_.notify_all();
  lk.unlock();
  for (auto& r : releases)
    if (r) r();
  lk.lock();
  return error_;
}

RangeContext ScorerImpl::range_context() const {
  RangeContext c;
  for (const features::Instance& inst : plan_.features) {
    if (!inst.temporal) continue;
    if (!inst.desc->range_window) {
      c.exact = false;
      c.reason = std::string(inst.desc->name) + " reads other frames and declares no window";
      return c;
    }
    const features::RangeWindow w = inst.desc->range_window(inst.options);
    if (w.whole_stream) {
      c.exact = false;
      c.reason = w.why;
      return c;
    }
    c.before = std::max(c.before, w.before);
    c.after = std::max(c.after, w.after);
  }
  return c;
}

double ScorerImpl::fps() const {
  std::lock_guard<std::mutex> lk(mu_);
  if (submitted_ == 0) return 0.0;
  const auto end = flushed_ ? t_end_ : Clock::now();
  const double secs = std::chrono::duration<double>(end - t_first_).count();
  return secs > 0 ? double(submitted_) / secs : 0.0;
}

}  // namespace

Status Scorer::validate(const ScorerConfig& cfg) {
  for (const ModelRequest& mr : cfg.models) {
    Model model;
    VMAFX_TRY(Model::load(mr.model, mr.overrides, &model));
  }
  for (const FeatureRequest& fr : cfg.features) {
    const features::FeatureDesc* desc = nullptr;
    features::Options o;
    VMAFX_TRY(scoring::resolve_feature(fr, &desc, &o));
  }
  return Status::ok();
}

Status Scorer::create(const ScorerConfig& cfg, const StreamGeometry& geometry, std::unique_ptr<Scorer>* out) {
  auto s = std::make_unique<ScorerImpl>();
  VMAFX_TRY(s->init(cfg, geometry));
  *out = std::move(s);
  return Status::ok();
}

}  // namespace vmafx
