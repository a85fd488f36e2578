// SPDX-License-Identifier: LGPL-2.1-or-later
// ScoringSession on the engine's submit + next/wait_next Scorer (one model per scorer). See the header for what
// changes with the callback API.
#include "gstvmafxhipscoring.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace vmafx::gst {

namespace {

// Pairs waiting for the feeder thread, on top of what the engine holds in flight. Small: in a live pipeline a full
// session makes the element skip the pair, and every waiting pair holds two buffers.
constexpr size_t kQueueDepth = 2;

std::string geometry_text(const VideoGeometry& g) {
  return std::to_string(g.width) + "x" + std::to_string(g.height) + " " + std::to_string(g.bit_depth) + "-bit " +
         chroma_name(g.chroma);
}

// Columns of `names` that belong to the model whose score column is `model` ("vmaf", "vmaf_bagging", ...).
std::vector<size_t> model_columns(const std::vector<std::string>& names, const std::string& model) {
  std::vector<size_t> out;
  const std::string prefix = model + "_";
  for (size_t i = 0; i < names.size(); i++)
    if (names[i] == model || names[i].compare(0, prefix.size(), prefix) == 0) out.push_back(i);
  return out;
}

// Gives the calling thread the lowest CPU priority (Linux: each thread has its own nice value, and the threads it
// starts inherit it). Elsewhere nothing changes.
void lower_thread_priority() {
#if defined(__linux__)
  const pid_t tid = pid_t(syscall(SYS_gettid));
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, id_t(tid));
  if (errno == 0) (void)setpriority(PRIO_PROCESS, id_t(tid), std::max(now, 19));
#endif
}

}  // namespace

const char* scaling_name(Scaling s) {
  switch (s) {
    case Scaling::none: return "none";
    case Scaling::bicubic: return "bicubic";
    case Scaling::bilinear: return "bilinear";
    case Scaling::lanczos: return "lanczos";
  }
  return "?";
}

struct ScoringSession::Impl {
  ScoringConfig cfg;
  // [0]: the first model (or none) and the extra features; [i > 0]: model i alone.
  std::vector<std::unique_ptr<Scorer>> scorers;
  std::vector<std::vector<size_t>> take;  // per scorer: its columns in the merged row, in order
  std::vector<std::string> names;
  std::vector<std::string> model_names;
  Collector merged;

  struct Pending {
    ImportedPicture ref, dist;
    int64_t timestamp = -1;
    uint64_t user = 0;
  };

  mutable std::mutex mu;
  std::condition_variable cv;
  std::deque<Pending> queue;
  bool stop = false;
  bool interrupted = false;
  bool flush_requested = false;
  bool flushed = false;
  Status error;        // the first engine failure (sticky)
  Status flush_status;
  uint64_t submitted = 0;
  std::thread feeder;

  // Frames some scorers finished and others not yet: values so far and how many scorers gave them.
  std::map<uint64_t, std::pair<FrameScore, size_t>> partial;

  void run();
  void hand_to_engines(Pending p);
  void drain(bool wait);
  void add(size_t scorer, const FrameScore& fs);
  void set_error(const Status& s) {
    std::lock_guard<std::mutex> lk(mu);
    if (error.is_ok()) error = s;
    cv.notify_all();
  }
};

Status ScoringSession::create(const ScoringConfig& cfg, const ScoringGeometry& g,
                              std::unique_ptr<ScoringSession>* out) {
  out->reset();
  const VideoGeometry& r = g.ref;
  const VideoGeometry& d = g.dist;
  if (r.bit_depth != d.bit_depth || r.chroma != d.chroma)
    return {Errc::unsupported, "reference " + geometry_text(r) + " and distorted " + geometry_text(d) +
                                   " differ in bit depth or chroma subsampling"};
  if ((d.width && d.width != r.width) || (d.height && d.height != r.height)) {
    return {Errc::unsupported, "the distorted video is " + std::to_string(d.width) + "x" + std::to_string(d.height) +
                                   " and the reference " + std::to_string(r.width) + "x" +
                                   std::to_string(r.height) +
                                   ": this engine build scores equal sizes only (scale-method needs the engine's "
                                   "scaling); put videoscale before dist_sink, which offers the reference's size"};
  }
  for (const auto& f : cfg.features) {
    if (!f.options.empty())
      return {Errc::unsupported, "feature options (" + f.name + "=" + f.options[0].first + "=" +
                                     f.options[0].second + ") need the engine's feature options, not in this build"};
  }
  for (size_t i = 0; i < cfg.models.size(); i++)
    for (size_t j = 0; j < i; j++)
      if (cfg.models[i].name == cfg.models[j].name)
        return {Errc::invalid_argument, "two models score into the column '" + cfg.models[i].name +
                                            "' (" + cfg.models[j].model + ", " + cfg.models[i].model + ")"};

  std::unique_ptr<ScoringSession> s(new ScoringSession());
  s->impl_ = std::make_unique<Impl>();
  Impl& m = *s->impl_;
  m.cfg = cfg;
  const size_t n_scorers = std::max<size_t>(1, cfg.models.size());
  for (size_t i = 0; i < n_scorers; i++) {
    ScorerConfig sc;
    sc.model = cfg.models.empty() ? "" : cfg.models[i].model;
    sc.model_name = cfg.models.empty() ? "vmaf" : cfg.models[i].name;
    sc.disable_clip = cfg.disable_clip;
    sc.enable_transform = cfg.enable_transform;
    sc.conf_interval = cfg.conf_interval;
    if (i == 0)
      for (const auto& f : cfg.features) sc.features.push_back(f.name);
    sc.threads = cfg.threads;
    sc.subsample = cfg.subsample;
    sc.backend = cfg.backend;
    sc.vendor = cfg.vendor;
    sc.device_id = cfg.device_id;
    if (i == 0 && cfg.on_notice) {
      auto notice = cfg.on_notice;
      // The engine says "<one line> (<detail>)": the line goes to the bus, all of it to the debug log.
      sc.on_notice = [notice](const std::string& text) {
        const size_t paren = text.find(" (");
        notice(false, paren == std::string::npos ? text : text.substr(0, paren), text);
      };
    }
    std::unique_ptr<Scorer> scorer;
    Status st;
    if (cfg.background_priority) {
      // Created on a thread of lower priority: the engine's worker threads inherit it.
      std::thread t([&] {
        lower_thread_priority();
        st = Scorer::create(sc, r, &scorer);
      });
      t.join();
    } else {
      st = Scorer::create(sc, r, &scorer);
    }
    if (!st.is_ok()) return cfg.models.size() > 1 ? st.prepend("model " + cfg.models[i].model) : st;
    const auto& sn = scorer->score_names();
    std::vector<size_t> cols;
    if (i == 0) {
      for (size_t c = 0; c < sn.size(); c++) cols.push_back(c);
    } else {
      cols = model_columns(sn, sc.model_name);
    }
    for (size_t c : cols) m.names.push_back(sn[c]);
    if (!cfg.models.empty()) m.model_names.push_back(scorer->model_score_name());
    m.take.push_back(std::move(cols));
    m.scorers.push_back(std::move(scorer));
  }
  m.feeder = std::thread([&m] {
    if (m.cfg.background_priority) lower_thread_priority();
    m.run();
  });
  *out = std::move(s);
  return Status::ok();
}

ScoringSession::~ScoringSession() {
  if (!impl_) return;
  std::deque<Impl::Pending> dropped;
  {
    std::lock_guard<std::mutex> lk(impl_->mu);
    impl_->stop = true;
    impl_->interrupted = true;
    dropped.swap(impl_->queue);
    impl_->cv.notify_all();
  }
  dropped.clear();  // releases the pictures that never reached the engine
  if (impl_->feeder.joinable()) impl_->feeder.join();
  impl_->scorers.clear();  // each releases the pictures it still holds
}

const std::vector<std::string>& ScoringSession::score_names() const { return impl_->names; }
const std::vector<std::string>& ScoringSession::model_score_names() const { return impl_->model_names; }
Backend ScoringSession::backend() const { return impl_->scorers[0]->backend(); }
std::string ScoringSession::backend_description() const { return impl_->scorers[0]->backend_description(); }
bool ScoringSession::supports_unscored() const { return false; }
bool ScoringSession::scales_distorted() { return false; }

bool ScoringSession::has_room() const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  return !impl_->interrupted && !impl_->flush_requested && impl_->error.is_ok() &&
         impl_->queue.size() < kQueueDepth;
}

Status ScoringSession::submit(ImportedPicture ref, ImportedPicture dist, int64_t timestamp, uint64_t user,
                              bool scored, bool block) {
  Impl& m = *impl_;
  if (!scored) return Status(Errc::unsupported, "this engine build scores every frame it is given");
  std::unique_lock<std::mutex> lk(m.mu);
  auto refused = [&]() -> Status {
    if (!m.error.is_ok()) return m.error;
    if (m.interrupted || m.flush_requested) return {Errc::busy, "scoring is stopping"};
    return Status::ok();
  };
  Status st = refused();
  if (st.is_ok() && m.queue.size() >= kQueueDepth) {
    if (!block) {
      st = Status(Errc::busy, "the scorer is busy");
    } else {
      m.cv.wait(lk, [&] { return m.queue.size() < kQueueDepth || !refused().is_ok(); });
      st = refused();
    }
  }
  if (!st.is_ok()) {
    lk.unlock();
    ref.release();
    dist.release();
    return st;
  }
  Impl::Pending p;
  p.ref = std::move(ref);
  p.dist = std::move(dist);
  p.timestamp = timestamp;
  p.user = user;
  m.queue.push_back(std::move(p));
  m.submitted++;
  m.cv.notify_all();
  return Status::ok();
}

void ScoringSession::interrupt() {
  std::lock_guard<std::mutex> lk(impl_->mu);
  impl_->interrupted = true;
  impl_->cv.notify_all();
}

Status ScoringSession::flush() {
  Impl& m = *impl_;
  std::unique_lock<std::mutex> lk(m.mu);
  m.flush_requested = true;
  m.cv.notify_all();
  m.cv.wait(lk, [&] { return m.flushed; });
  if (!m.error.is_ok()) return m.error;
  return m.flush_status;
}

const Collector& ScoringSession::collector() const { return impl_->merged; }

uint64_t ScoringSession::frames_submitted() const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  return impl_->submitted;
}

double ScoringSession::fps() const { return impl_->scorers[0]->fps(); }

void ScoringSession::Impl::run() {
  bool results_pending = false;  // frames in the engines whose results may still come without more input
  for (;;) {
    std::unique_lock<std::mutex> lk(mu);
    if (results_pending && queue.empty() && !stop && !(flush_requested && !flushed)) {
      // Idle: wait in the engine for frames still computing, so their messages go out without further input.
      results_pending = false;
      lk.unlock();
      drain(true);
      continue;
    }
    cv.wait(lk, [&] { return stop || !queue.empty() || (flush_requested && !flushed); });
    if (stop) return;
    if (!queue.empty()) {
      Pending p = std::move(queue.front());
      queue.pop_front();
      cv.notify_all();  // room for a blocked submit
      const bool failed = !error.is_ok();
      lk.unlock();
      if (failed) continue;  // released with `p`
      hand_to_engines(std::move(p));
      drain(false);
      results_pending = true;
      continue;
    }
    // Flush: the queue is empty and nothing more comes.
    lk.unlock();
    Status st = Status::ok();
    for (auto& s : scorers) {
      Status f = s->flush();
      if (st.is_ok() && !f.is_ok()) st = f;
    }
    drain(false);
    if (st.is_ok()) {
      merged = scorers[0]->collector();
      for (size_t i = 1; i < scorers.size(); i++) {
        const Collector& c = scorers[i]->collector();
        for (size_t col : take[i]) {
          const size_t to = merged.add_column(c.name(col));
          for (uint64_t f = 0; f < c.frames(); f++) {
            double v;
            if (c.get(f, col, &v)) merged.set(f, to, v);
          }
        }
      }
    }
    lk.lock();
    flush_status = st;
    flushed = true;
    cv.notify_all();
    cv.wait(lk, [&] { return stop; });
    return;
  }
}

void ScoringSession::Impl::hand_to_engines(Pending p) {
  auto held = std::make_shared<std::pair<ImportedPicture, ImportedPicture>>(std::move(p.ref), std::move(p.dist));
  const PictureView ref = held->first.view();
  const PictureView dist = held->second.view();
  for (auto& s : scorers) {
    // Each scorer drops its copy when it no longer reads the pictures; the last copy releases them.
    Status st = s->submit(ref, dist, p.timestamp, p.user, [held]() mutable { held.reset(); });
    if (!st.is_ok()) {
      set_error(st);
      break;
    }
  }
}

void ScoringSession::Impl::drain(bool wait) {
  for (size_t i = 0; i < scorers.size(); i++) {
    FrameScore fs;
    while (wait ? scorers[i]->wait_next(&fs) : scorers[i]->next(&fs)) add(i, fs);
  }
}

void ScoringSession::Impl::add(size_t scorer, const FrameScore& fs) {
  auto& slot = partial[fs.index];
  if (slot.second == 0) {
    slot.first.index = fs.index;
    slot.first.timestamp = fs.timestamp;
    slot.first.user = fs.user;
    slot.first.values.assign(names.size(), std::nan(""));
  }
  size_t at = 0;
  for (size_t i = 0; i < scorer; i++) at += take[i].size();
  for (size_t k = 0; k < take[scorer].size(); k++)
    if (take[scorer][k] < fs.values.size()) slot.first.values[at + k] = fs.values[take[scorer][k]];
  slot.second++;
  // Frames complete in order (every scorer reports the same frames in order).
  while (!partial.empty() && partial.begin()->second.second == scorers.size()) {
    if (cfg.on_frame) cfg.on_frame(partial.begin()->second.first);
    partial.erase(partial.begin());
  }
}

}  // namespace vmafx::gst
