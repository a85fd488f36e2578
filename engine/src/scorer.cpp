// SPDX-License-Identifier: LGPL-2.1-or-later
// The scoring pipeline. Frames enter in display order; the extractors of each frame run on worker threads (or, for
// asynchronous GPU extractors, on the device); a single in-order stage then collects each frame's scores, derives the
// temporal motion scores, predicts the model score and hands the frame back. A frame's pictures are released as
// soon as no extractor reads them again (the next frame's motion reads the previous reference).
#include "vmafx/scorer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "cpu/motion.h"
#include "src/extractor.h"
#include "src/scorer_backends.h"
#include "src/thread_pool.h"
#include "vmafx/model.h"

namespace vmafx {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::auto_select: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::hip: return "hip";
  }
  return "?";
}

const char* vendor_name(Vendor v) {
  switch (v) {
    case Vendor::auto_select: return "auto";
    case Vendor::amd: return "amd";
    case Vendor::nvidia: return "nvidia";
  }
  return "?";
}

double FrameScore::get(const std::string& name, const std::vector<std::string>& names) const {
  for (size_t i = 0; i < names.size() && i < values.size(); i++)
    if (names[i] == name) return values[i];
  return NAN;
}

namespace {

using Clock = std::chrono::steady_clock;

struct ExtractorSlot {
  std::unique_ptr<Extractor> extractor;
  size_t first_value = 0;            // offset of its outputs in Frame::raw
  std::vector<size_t> columns;       // collector column of each output
};

struct Frame {
  uint64_t index = 0;
  int64_t timestamp = -1;
  uint64_t user = 0;
  bool scored = true;
  PictureView ref, dist;
  std::function<void()> release;
  std::vector<double> raw;
  std::vector<uint8_t> ran;  // per extractor: ran on this frame
  int pending = 0;
  bool computed = false;
  bool collected = false;
};

class ScorerImpl final : public Scorer {
 public:
  ~ScorerImpl() override {
    Status s = drain_all();
    (void)s;
    pool_.reset();
    std::lock_guard<std::mutex> lk(mu_);
    for (auto& f : frames_) release_frame(*f);
  }

  Status init(const ScorerConfig& cfg, const VideoGeometry& g);

  const std::vector<std::string>& score_names() const override { return score_names_; }
  const std::string& model_score_name() const override { return model_score_name_; }
  Backend backend() const override { return backend_; }
  std::string backend_description() const override { return backend_description_; }

  Status submit(const PictureView& ref, const PictureView& dist, int64_t timestamp, uint64_t user,
                std::function<void()> release) override;
  bool next(FrameScore* out) override;
  bool wait_next(FrameScore* out) override;
  Status flush() override;
  const Collector& collector() const override { return collector_; }
  uint64_t frames_submitted() const override { return submitted_; }
  double fps() const override;

 private:
  Status error_status() {
    std::lock_guard<std::mutex> lk(mu_);
    return error_;
  }
  void run_sync_task(Frame* f, size_t slot, unsigned worker);
  void task_done(Frame* f, const Status& s);
  // Under mu_: moves computed frames through the in-order stage.
  void advance_locked();
  void collect_locked(Frame& f);
  void emit_ready_locked();
  Status emit_locked(uint64_t index);
  void release_frame(Frame& f);
  Status drain_all();

  ScorerConfig cfg_;
  VideoGeometry geometry_;
  Backend backend_ = Backend::cpu;
  std::string backend_description_ = "cpu";
  // The GPU backend's per-scorer state (one frame pipeline shared by the GPU extractors); outlives slots_.
  std::unique_ptr<BackendSession> session_;
  std::vector<ExtractorSlot> slots_;
  size_t raw_size_ = 0;
  long motion_slot_ = -1;
  bool needs_prev_ref_ = false;
  cpu::MotionPost motion_post_;
  size_t col_motion2_ = 0, col_motion3_ = 0;

  bool has_model_ = false;
  Model model_;
  ModelOptions model_opts_;
  std::vector<size_t> model_inputs_;  // collector column of each model feature
  std::vector<size_t> model_outputs_;  // score, then bagging, stddev, ci lo, ci hi when reported
  std::string model_score_name_;

  std::vector<std::string> score_names_;
  std::vector<size_t> score_columns_;

  std::unique_ptr<ThreadPool> pool_;
  std::vector<std::vector<std::unique_ptr<ExtractorWorker>>> workers_;  // [worker][slot]
  std::unique_ptr<ExtractorWorker>* inline_workers_ = nullptr;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<Frame>> frames_;  // submitted, not yet retired
  std::deque<FrameScore> ready_;
  Collector collector_;
  Status error_;
  uint64_t submitted_ = 0;
  uint64_t next_collect_ = 0;
  uint64_t next_emit_ = 0;
  uint64_t motion_final_ = 0;  // frames [0, motion_final_) have their motion2/motion3
  struct Meta {
    int64_t timestamp;
    uint64_t user;
  };
  std::deque<Meta> meta_;  // from next_emit_
  bool flushed_ = false;
  size_t max_in_flight_ = 2;
  Clock::time_point t_first_{}, t_end_{};
};

Status ScorerImpl::init(const ScorerConfig& cfg, const VideoGeometry& g) {
  cfg_ = cfg;
  geometry_ = g;
  if (g.width == 0 || g.height == 0) return {Errc::invalid_argument, "video has zero width or height"};
  if (g.bit_depth < 8 || g.bit_depth > 16)
    return {Errc::unsupported, "bit depth " + std::to_string(g.bit_depth) + " is outside 8..16"};
  if (cfg.subsample == 0) return {Errc::invalid_argument, "subsample must be at least 1"};
  collector_.set_subsample(cfg.subsample);

  VMAFX_TRY(select_backend(cfg_, g, &backend_, &backend_description_, &session_));

  // Features the model needs, in the model's order, then the extra ones.
  std::vector<std::pair<std::string, FeatureOptions>> wanted;
  if (!cfg.model.empty()) {
    VMAFX_TRY(Model::load(cfg.model, &model_));
    has_model_ = true;
    model_opts_.disable_clip = cfg.disable_clip;
    model_opts_.enable_transform = cfg.enable_transform;
    for (const auto& mf : model_.features()) {
      if (feature_family(mf.extractor).empty())
        return {Errc::unsupported, "model " + cfg.model + " needs " + mf.name + " (libvmaf extractor '" +
                                       mf.extractor + "'), which vmafx does not provide"};
      wanted.emplace_back(mf.extractor, FeatureOptions(mf.opts.begin(), mf.opts.end()));
    }
  }
  for (const auto& name : cfg.features) {
    const std::string fam = feature_family(name);
    if (fam.empty())
      return {Errc::unsupported, "unknown feature '" + name +
                                     "' (known: psnr, float_ssim, float_ms_ssim, adm, vif, motion)"};
    wanted.emplace_back(fam, FeatureOptions{});
  }
  for (const auto& [fam, opts] : wanted) {
    // The same family with the same options writes the same columns: one instance serves both.
    const std::vector<std::string> outs = extractor_outputs(fam, opts, g.chroma);
    bool dup = false;
    for (const auto& s : slots_) dup = dup || s.extractor->outputs() == outs;
    if (dup) continue;
    std::unique_ptr<Extractor> ex;
    VMAFX_TRY(create_extractor(cfg_, backend_, session_.get(), fam, opts, geometry_, &ex));
    ExtractorSlot slot;
    slot.first_value = raw_size_;
    raw_size_ += ex->outputs().size();
    for (const auto& o : ex->outputs()) slot.columns.push_back(collector_.add_column(o));
    if (ex->needs_prev_ref()) needs_prev_ref_ = true;
    if (fam == "motion") motion_slot_ = long(slots_.size());
    slot.extractor = std::move(ex);
    slots_.push_back(std::move(slot));
  }
  if (motion_slot_ >= 0) {
    col_motion2_ = collector_.add_column("integer_motion2");
    col_motion3_ = collector_.add_column("integer_motion3");
  }
  if (has_model_) {
    for (const auto& mf : model_.features()) {
      long c = collector_.find(mf.score_name);
      if (c < 0) return {Errc::internal, "model feature " + mf.score_name + " has no column"};
      model_inputs_.push_back(size_t(c));
    }
    model_score_name_ = cfg.model_name.empty() ? "vmaf" : cfg.model_name;
    // libvmaf's columns for the model: the score; for a bootstrap collection also each member, the bagged score,
    // its standard deviation and the 95 % interval.
    for (const auto& n : model_.score_names(model_score_name_)) model_outputs_.push_back(collector_.add_column(n));
  }
  // Every column is a per-frame score (libvmaf prints the motion SAD under its long name too).
  for (size_t c = 0; c < collector_.columns(); c++) {
    score_names_.push_back(collector_.name(c));
    score_columns_.push_back(c);
  }

  // Workers: threads > 1 gives a pool; otherwise extractors run in the caller's thread.
  const unsigned n_threads = cfg.threads > 1 ? cfg.threads : 0;
  workers_.resize(std::max(1u, n_threads));
  for (auto& per_thread : workers_) {
    per_thread.resize(slots_.size());
    for (size_t i = 0; i < slots_.size(); i++)
      if (!slots_[i].extractor->is_async()) VMAFX_TRY(slots_[i].extractor->make_worker(&per_thread[i]));
  }
  if (n_threads) pool_ = std::make_unique<ThreadPool>(n_threads);
  max_in_flight_ = std::max<size_t>(3, 3 * size_t(n_threads));
  for (const auto& s : slots_)
    if (s.extractor->is_async()) max_in_flight_ = std::max<size_t>(max_in_flight_, 8);
  return Status::ok();
}

void ScorerImpl::release_frame(Frame& f) {
  if (f.release) {
    auto r = std::move(f.release);
    f.release = nullptr;
    r();
  }
}

Status ScorerImpl::submit(const PictureView& ref, const PictureView& dist, int64_t timestamp, uint64_t user,
                          std::function<void()> release) {
  auto fail = [&](Status s) {
    if (release) release();
    return s;
  };
  {
    std::unique_lock<std::mutex> lk(mu_);
    if (!error_.is_ok()) return fail(error_);
    if (flushed_) return fail({Errc::invalid_argument, "submit after flush"});
  }
  if (Status s = check_pair(ref, dist); !s.is_ok()) return fail(s);
  if (ref.width != geometry_.width || ref.height != geometry_.height || ref.bit_depth != geometry_.bit_depth ||
      ref.chroma != geometry_.chroma)
    return fail({Errc::unsupported, "picture " + std::to_string(ref.width) + "x" + std::to_string(ref.height) + " " +
                                        std::to_string(ref.bit_depth) + "-bit " + chroma_name(ref.chroma) +
                                        " does not match the stream's " + std::to_string(geometry_.width) + "x" +
                                        std::to_string(geometry_.height) + " " +
                                        std::to_string(geometry_.bit_depth) + "-bit " + chroma_name(geometry_.chroma)});
  for (const auto& s : slots_) {
    if (!s.extractor->reads(ref.memory) || !s.extractor->reads(dist.memory))
      return fail({Errc::unsupported, "feature " + s.extractor->family() + " on the " + backend_description_ +
                                          " backend cannot read " +
                                          (ref.memory == MemoryKind::device ? "device" : "host") + " memory"});
  }

  auto frame = std::make_unique<Frame>();
  Frame* f = frame.get();
  const Frame* prev = nullptr;
  {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return frames_.size() < max_in_flight_ || !error_.is_ok(); });
    if (!error_.is_ok()) return fail(error_);
    if (submitted_ == 0) t_first_ = Clock::now();
    f->index = submitted_++;
    f->timestamp = timestamp;
    f->user = user;
    f->scored = collector_.is_scored(f->index);
    f->ref = ref;
    f->dist = dist;
    f->release = std::move(release);
    f->raw.assign(raw_size_, NAN);
    f->ran.assign(slots_.size(), 0);
    for (size_t i = 0; i < slots_.size(); i++) {
      if (f->scored || slots_[i].extractor->every_frame()) {
        f->ran[i] = 1;
        f->pending++;
      }
    }
    if (!frames_.empty() && frames_.back()->index + 1 == f->index) prev = frames_.back().get();
    meta_.push_back({timestamp, user});
    frames_.push_back(std::move(frame));
  }

  FrameInput in;
  in.index = f->index;
  in.ref = &f->ref;
  in.dist = &f->dist;
  in.prev_ref = prev ? &prev->ref : nullptr;

  if (f->pending == 0) {
    task_done(f, Status::ok());
    return error_status();
  }
  // Asynchronous extractors first: they only enqueue. The backend session then queues the frame on the device once
  // for all of them (one upload of its planes), so the GPU works while the CPU extractors below run.
  bool started_async = false;
  for (size_t i = 0; i < slots_.size(); i++) {
    if (!f->ran[i]) continue;
    if (slots_[i].extractor->is_async()) {
      Status s = slots_[i].extractor->start(in, f->raw.data() + slots_[i].first_value,
                                            [this, f](Status st) { task_done(f, st); });
      if (!s.is_ok()) {
        task_done(f, s);
      } else {
        started_async = true;
      }
    }
  }
  if (started_async && session_) {
    // A failure here has already reached every started extractor's `done`; keep the first error.
    Status s = session_->end_frame();
    if (!s.is_ok()) {
      std::lock_guard<std::mutex> lk(mu_);
      if (error_.is_ok()) error_ = s;
      cv_.notify_all();
    }
  }
  for (size_t i = 0; i < slots_.size(); i++) {
    if (!f->ran[i] || slots_[i].extractor->is_async()) continue;
    if (pool_) {
      pool_->push([this, f, i](unsigned worker) { run_sync_task(f, i, worker); });
    } else {
      run_sync_task(f, i, 0);
    }
  }
  return error_status();
}

void ScorerImpl::run_sync_task(Frame* f, size_t slot, unsigned worker) {
  FrameInput in;
  in.index = f->index;
  in.ref = &f->ref;
  in.dist = &f->dist;
  {
    // The previous frame stays in frames_ (unreleased) until this frame is collected.
    std::lock_guard<std::mutex> lk(mu_);
    for (auto& p : frames_)
      if (p->index + 1 == f->index) in.prev_ref = &p->ref;
  }
  Status s = workers_[worker][slot]->run(in, f->raw.data() + slots_[slot].first_value);
  if (!s.is_ok()) s.prepend(slots_[slot].extractor->family() + " on frame " + std::to_string(f->index));
  task_done(f, s);
}

void ScorerImpl::task_done(Frame* f, const Status& s) {
  std::lock_guard<std::mutex> lk(mu_);
  if (!s.is_ok() && error_.is_ok()) error_ = s;
  if (f->pending > 0) f->pending--;
  if (f->pending == 0) {
    f->computed = true;
    advance_locked();
  }
  cv_.notify_all();
}

void ScorerImpl::advance_locked() {
  while (!frames_.empty()) {
    // Collect in order.
    Frame* next = nullptr;
    for (auto& f : frames_)
      if (f->index == next_collect_) next = f.get();
    if (!next || !next->computed) break;
    collect_locked(*next);
    next_collect_++;
    // Retire frames nobody reads any more: everything before the newest collected frame when motion reads the
    // previous reference, every collected frame otherwise.
    while (!frames_.empty()) {
      Frame& front = *frames_.front();
      const bool needed_as_prev = needs_prev_ref_ && front.index + 1 >= next_collect_ && !flushed_;
      if (!front.collected || needed_as_prev) break;
      release_frame(front);
      frames_.pop_front();
    }
  }
  emit_ready_locked();
}

void ScorerImpl::collect_locked(Frame& f) {
  if (!error_.is_ok()) {
    f.collected = true;
    return;
  }
  for (size_t i = 0; i < slots_.size(); i++) {
    if (!f.ran[i]) continue;
    const ExtractorSlot& s = slots_[i];
    for (size_t k = 0; k < s.columns.size(); k++) collector_.set(f.index, s.columns[k], f.raw[s.first_value + k]);
  }
  if (motion_slot_ >= 0) {
    std::vector<cpu::MotionOut> out;
    motion_post_.push(f.index, f.raw[slots_[size_t(motion_slot_)].first_value], &out);
    for (const auto& m : out) {
      collector_.set(m.index, col_motion2_, m.motion2);
      collector_.set(m.index, col_motion3_, m.motion3);
      motion_final_ = std::max(motion_final_, m.index + 1);
    }
  }
  f.collected = true;
}

void ScorerImpl::emit_ready_locked() {
  const uint64_t limit = motion_slot_ >= 0 ? std::min(motion_final_, next_collect_) : next_collect_;
  while (next_emit_ < limit && error_.is_ok()) {
    Status s = emit_locked(next_emit_);
    if (!s.is_ok()) {
      error_ = s;
      break;
    }
    next_emit_++;
    meta_.pop_front();
  }
}

Status ScorerImpl::emit_locked(uint64_t index) {
  if (!collector_.is_scored(index)) return Status::ok();
  if (has_model_) {
    std::vector<double> in(model_inputs_.size());
    for (size_t k = 0; k < model_inputs_.size(); k++) {
      if (!collector_.get(index, model_inputs_[k], &in[k]))
        return {Errc::internal, "frame " + std::to_string(index) + " lacks " + collector_.name(model_inputs_[k])};
    }
    Prediction p;
    VMAFX_TRY(model_.predict(in.data(), model_opts_, &p).prepend("frame " + std::to_string(index)));
    collector_.set(index, model_outputs_[0], p.score);
    if (p.has_ci) {
      size_t k = 1;
      for (double m : p.members)
        if (k < model_outputs_.size()) collector_.set(index, model_outputs_[k++], m);
      const double tail[] = {p.bagging, p.stddev, p.ci_lo, p.ci_hi};
      for (double t : tail)
        if (k < model_outputs_.size()) collector_.set(index, model_outputs_[k++], t);
    }
  }
  FrameScore fs;
  fs.index = index;
  fs.timestamp = meta_.front().timestamp;
  fs.user = meta_.front().user;
  fs.values.resize(score_columns_.size(), NAN);
  for (size_t k = 0; k < score_columns_.size(); k++) {
    double v;
    if (collector_.get(index, score_columns_[k], &v)) fs.values[k] = v;
  }
  ready_.push_back(std::move(fs));
  return Status::ok();
}

bool ScorerImpl::next(FrameScore* out) {
  std::lock_guard<std::mutex> lk(mu_);
  if (ready_.empty()) return false;
  *out = std::move(ready_.front());
  ready_.pop_front();
  return true;
}

bool ScorerImpl::wait_next(FrameScore* out) {
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [&] {
    if (!ready_.empty() || !error_.is_ok()) return true;
    for (auto& f : frames_)
      if (!f->computed) return false;  // still running: it may finish a frame
    return true;
  });
  if (ready_.empty()) return false;
  *out = std::move(ready_.front());
  ready_.pop_front();
  return true;
}

Status ScorerImpl::drain_all() {
  // Keep the first failure but always wait for every frame: CPU tasks may still run on the pool.
  Status first = session_ ? session_->drain() : Status::ok();
  for (auto& s : slots_) {
    if (!s.extractor->is_async()) continue;
    Status d = s.extractor->drain();
    if (first.is_ok() && !d.is_ok()) first = d;
  }
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [&] {
    for (auto& f : frames_)
      if (!f->computed) return false;
    return true;
  });
  return first;
}

Status ScorerImpl::flush() {
  Status s = drain_all();
  std::lock_guard<std::mutex> lk(mu_);
  if (!s.is_ok() && error_.is_ok()) error_ = s;
  if (!flushed_) {
    flushed_ = true;
    if (motion_slot_ >= 0 && error_.is_ok()) {
      std::vector<cpu::MotionOut> out;
      motion_post_.finish(&out);
      for (const auto& m : out) {
        collector_.set(m.index, col_motion2_, m.motion2);
        collector_.set(m.index, col_motion3_, m.motion3);
        motion_final_ = std::max(motion_final_, m.index + 1);
      }
    }
    advance_locked();
    while (!frames_.empty()) {
      release_frame(*frames_.front());
      frames_.pop_front();
    }
    t_end_ = Clock::now();
  }
  cv_.notify_all();
  return error_;
}

double ScorerImpl::fps() const {
  std::lock_guard<std::mutex> lk(mu_);
  if (submitted_ == 0) return 0.0;
  const auto end = flushed_ ? t_end_ : Clock::now();
  const double secs = std::chrono::duration<double>(end - t_first_).count();
  return secs > 0 ? double(submitted_) / secs : 0.0;
}

}  // namespace

Status Scorer::create(const ScorerConfig& cfg, const VideoGeometry& geometry, std::unique_ptr<Scorer>* out) {
  auto s = std::make_unique<ScorerImpl>();
  VMAFX_TRY(s->init(cfg, geometry));
  *out = std::move(s);
  return Status::ok();
}

}  // namespace vmafx
