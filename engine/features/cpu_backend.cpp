// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend: every feature of a frame is one task; tasks run on a pool of workers (or on the submitting
// thread when the plan has 0 or 1 threads). Each worker owns one CpuFeature per feature, so scratch memory is per
// thread and no feature object is shared. A frame is done when its last task has run.
#include <algorithm>
#include <cmath>

#include "core/thread_pool.h"
#include "features/backend.h"

namespace vmafx::features {

namespace {

class CpuBackend final : public Backend {
 public:
  CpuBackend(const Plan& plan, Done done) : plan_(plan), done_(std::move(done)) {}

  Status init() {
    const unsigned n = plan_.threads > 1 ? plan_.threads : 0;
    workers_.resize(std::max(1u, n));
    for (auto& w : workers_) {
      w.resize(plan_.features.size());
      for (size_t i = 0; i < plan_.features.size(); i++) {
        const Instance& f = plan_.features[i];
        VMAFX_TRY(f.desc->make_cpu(f.options, plan_.geometry, &w[i]).prepend(f.desc->name));
      }
    }
    if (n) pool_ = std::make_unique<ThreadPool>(n);
    capacity_ = std::max<size_t>(3, 3 * size_t(n));
    return Status::ok();
  }

  std::string description() const override { return "cpu"; }
  std::vector<std::string> cpu_features() const override {
    std::vector<std::string> names;
    for (const Instance& f : plan_.features) names.push_back(f.desc->name);
    return names;
  }
  size_t capacity() const override { return capacity_; }

  Status submit(Frame* f) override {
    int tasks = 0;
    bool reads_dist = false;
    reads_prev_dist_ = false;
    for (const Instance& inst : plan_.features) {
      if (!f->runs(inst)) continue;
      tasks++;
      reads_dist = reads_dist || (inst.desc->reads & ~(kReadsRefLuma | kReadsPrevRef));
      reads_prev_dist_ = reads_prev_dist_ || (inst.desc->reads & kReadsPrevDist);
    }
    if (tasks == 0) {
      done_(f, Status::ok());
      return Status::ok();
    }
    f->tasks.store(tasks);
    f->task_status = Status::ok();
    f->cpu_dist = f->dist;
    if (f->prev_dist) f->cpu_prev_dist = *f->prev_dist;
    {
      std::lock_guard<std::mutex> lk(mu_);
      in_flight_++;
    }
    const bool scale = plan_.scaler && reads_dist;
    scale_prev_ = scale && reads_prev_dist_ && f->prev_dist;
    if (!scale) {
      queue_features(f);
    } else if (pool_) {
      // The frame's scaling is one task; its features follow it.
      const bool prev = scale_prev_;
      pool_->push([this, f, prev](unsigned) { scale_then_queue(f, prev); });
    } else {
      scale_then_queue(f, scale_prev_);
    }
    return Status::ok();
  }

  void drain() override {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return in_flight_ == 0; });
  }

 private:
  void queue_features(Frame* f) {
    for (size_t i = 0; i < plan_.features.size(); i++) {
      if (!f->runs(plan_.features[i])) continue;
      if (pool_) {
        pool_->push([this, f, i](unsigned worker) { run(f, i, worker); });
      } else {
        run(f, i, 0);
      }
    }
  }

  // Scales the frame's distorted picture into storage of the frame (taken from a pool), then queues its features;
  // a failure fails every task of the frame.
  void scale_then_queue(Frame* f, bool scale_prev) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      for (auto* p : {&f->scaled, &f->scaled_prev}) {
        if (p == &f->scaled_prev && !scale_prev) continue;
        if (!free_scaled_.empty()) {
          *p = std::move(free_scaled_.back());
          free_scaled_.pop_back();
        }
      }
    }
    if (!f->scaled) f->scaled = std::make_unique<cpu::ScaledPicture>();
    if (scale_prev && !f->scaled_prev) f->scaled_prev = std::make_unique<cpu::ScaledPicture>();
    Status s = plan_.scaler->scale(f->dist, f->scaled.get());
    // A feature reading the previous distorted picture (speed_temporal) sees it at the scaled size too.
    if (s && scale_prev) s = plan_.scaler->scale(*f->prev_dist, f->scaled_prev.get());
    if (!s) {
      s.prepend("scaling the distorted frame " + std::to_string(f->index));
      {
        std::lock_guard<std::mutex> lk(mu_);
        f->task_status = s;
      }
      const int n = f->tasks.load();
      for (int k = 0; k < n; k++) finish_task(f);
      return;
    }
    f->cpu_dist = f->scaled->view;
    if (scale_prev) f->cpu_prev_dist = f->scaled_prev->view;
    queue_features(f);
  }

  void run(Frame* f, size_t i, unsigned worker) {
    FrameView v;
    v.index = f->index;
    v.ref = &f->ref;
    v.dist = &f->cpu_dist;
    v.prev_ref = f->prev_ref;
    v.prev_prev_ref = f->prev_prev_ref;
    v.prev_dist = f->prev_dist ? &f->cpu_prev_dist : nullptr;
    Status s = workers_[worker][i]->compute(v, f->values.data() + plan_.first_value[i]);
    if (!s) {
      s.prepend(std::string(plan_.features[i].desc->name) + " on frame " + std::to_string(f->index));
      std::lock_guard<std::mutex> lk(mu_);
      if (f->task_status) f->task_status = s;
    }
    finish_task(f);
  }

  // One task of the frame has run; the last one reports the frame (its scaled picture goes back to the pool first).
  void finish_task(Frame* f) {
    if (f->tasks.fetch_sub(1) != 1) return;
    Status st;
    {
      std::lock_guard<std::mutex> lk(mu_);
      st = f->task_status;
      if (f->scaled) free_scaled_.push_back(std::move(f->scaled));
      if (f->scaled_prev) free_scaled_.push_back(std::move(f->scaled_prev));
    }
    done_(f, st);
    std::lock_guard<std::mutex> lk(mu_);
    if (--in_flight_ == 0) cv_.notify_all();
  }

  Plan plan_;
  Done done_;
  std::vector<std::vector<std::unique_ptr<CpuFeature>>> workers_;  // [worker][feature]
  std::unique_ptr<ThreadPool> pool_;
  size_t capacity_ = 3;
  std::mutex mu_;
  std::condition_variable cv_;
  size_t in_flight_ = 0;
  bool reads_prev_dist_ = false, scale_prev_ = false;  // of the frame being submitted (submit's thread only)
  std::vector<std::unique_ptr<cpu::ScaledPicture>> free_scaled_;
};

}  // namespace

Status create_cpu_backend(const Plan& plan, Backend::Done done, std::unique_ptr<Backend>* out) {
  auto b = std::make_unique<CpuBackend>(plan, std::move(done));
  VMAFX_TRY(b->init());
  *out = std::move(b);
  return Status::ok();
}

}  // namespace vmafx::features
