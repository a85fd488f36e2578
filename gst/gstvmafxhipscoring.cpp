// SPDX-License-Identifier: LGPL-2.1-or-later
// ScoringSession on the engine's callback Scorer.
#include "gstvmafxhipscoring.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <thread>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace vmafx::gst {

namespace {

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

ScaleMethod to_scale_method(Scaling s) {
  switch (s) {
    case Scaling::none: return ScaleMethod::none;
    case Scaling::bicubic: return ScaleMethod::bicubic;
    case Scaling::bilinear: return ScaleMethod::bilinear;
    case Scaling::lanczos: return ScaleMethod::lanczos;
  }
  return ScaleMethod::bicubic;
}

// The pictures of one pair, shared by the engine's release callback and a submit that may try again.
using HeldPair = std::shared_ptr<std::pair<ImportedPicture, ImportedPicture>>;

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
  std::unique_ptr<Scorer> scorer;
  std::atomic<bool> interrupted{false};
  std::atomic<uint64_t> submitted{0};

  Status try_submit(const HeldPair& held, int64_t timestamp, uint64_t user, bool scored, bool block) {
    FramePair fp;
    fp.ref = held->first.view();
    fp.dist = held->second.view();
    fp.timestamp = timestamp;
    fp.user = user;
    fp.scored = scored;
    // The engine drops its copy when it no longer reads the pictures (or at once when it refuses the pair); the
    // pictures go with the last copy.
    HeldPair copy = held;
    fp.release = [copy]() mutable { copy.reset(); };
    return scorer->submit(std::move(fp), block);
  }
};

Status ScoringSession::create(const ScoringConfig& cfg, const ScoringGeometry& g,
                              std::unique_ptr<ScoringSession>* out) {
  out->reset();
  ScorerConfig sc;
  sc.models.clear();
  for (const auto& m : cfg.models) {
    ModelRequest r;
    r.model = m.model;
    r.name = m.name;
    r.disable_clip = cfg.disable_clip;
    r.enable_transform = cfg.enable_transform;
    sc.models.push_back(r);
  }
  for (const auto& f : cfg.features) sc.features.push_back({f.name, f.options});
  sc.conf_interval = cfg.conf_interval;
  sc.threads = cfg.threads;
  sc.subsample = cfg.subsample;
  sc.backend = cfg.backend;
  sc.vendor = cfg.vendor;
  sc.device_id = cfg.device_id;
  sc.scale = to_scale_method(cfg.scaling);
  // The engine's tuning variables (docs/cli.md, Environment), read here, where the element makes its scorer.
  VMAFX_TRY(tuning_from_environment(&sc.tuning));
  sc.on_frame = cfg.on_frame;
  if (cfg.on_notice) {
    auto notice = cfg.on_notice;
    sc.on_notice = [notice](NoticeLevel level, const std::string& text, const std::string& detail) {
      notice(level == NoticeLevel::warning, text, detail);
    };
  }
  StreamGeometry sg;
  sg.ref = g.ref;
  sg.dist = g.dist;
  std::unique_ptr<ScoringSession> s(new ScoringSession());
  s->impl_ = std::make_unique<Impl>();
  Status st;
  if (cfg.background_priority) {
    // Made on a thread of the lowest priority: the engine's worker threads inherit it.
    std::thread t([&] {
      lower_thread_priority();
      st = Scorer::create(sc, sg, &s->impl_->scorer);
    });
    t.join();
  } else {
    st = Scorer::create(sc, sg, &s->impl_->scorer);
  }
  VMAFX_TRY(st);
  *out = std::move(s);
  return Status::ok();
}

ScoringSession::~ScoringSession() = default;  // the scorer releases every picture it still holds

const std::vector<std::string>& ScoringSession::score_names() const { return impl_->scorer->score_names(); }
const std::vector<std::string>& ScoringSession::model_score_names() const {
  return impl_->scorer->model_score_names();
}
Backend ScoringSession::backend() const { return impl_->scorer->backend(); }
std::string ScoringSession::backend_description() const { return impl_->scorer->backend_description(); }
std::string ScoringSession::cpu_features() const {
  if (backend() != Backend::hip) return "";
  // The HIP backend's description ends its GPU part with " (on the CPU: <names>)" when some features run there; the
  // Scorer API has no other way to say it.
  const std::string d = backend_description();
  static const std::string kMark = "(on the CPU: ";
  const size_t at = d.find(kMark);
  if (at == std::string::npos) return "";
  const size_t from = at + kMark.size();
  const size_t to = d.find(')', from);
  return d.substr(from, to == std::string::npos ? std::string::npos : to - from);
}
bool ScoringSession::supports_unscored() const { return true; }
bool ScoringSession::scales_distorted() { return true; }
bool ScoringSession::has_room() const { return !impl_->interrupted; }

Status ScoringSession::submit(ImportedPicture ref, ImportedPicture dist, int64_t timestamp, uint64_t user,
                              bool block, gint64 wait_us, bool unscored_fallback, bool* scored_out) {
  Impl& m = *impl_;
  if (scored_out) *scored_out = true;
  if (m.interrupted) return {Errc::busy, "scoring is stopping"};
  auto held = std::make_shared<std::pair<ImportedPicture, ImportedPicture>>(std::move(ref), std::move(dist));
  if (block) {
    Status st = m.try_submit(held, timestamp, user, true, true);
    if (st.is_ok()) m.submitted++;
    return st;
  }
  const gint64 until = g_get_monotonic_time() + wait_us;
  for (;;) {
    Status st = m.try_submit(held, timestamp, user, true, false);
    if (st.code() != Errc::busy) {
      if (st.is_ok()) m.submitted++;
      return st;
    }
    if (m.interrupted || g_get_monotonic_time() >= until) break;
    g_usleep(1000);
  }
  if (unscored_fallback && !m.interrupted) {
    Status st = m.try_submit(held, timestamp, user, false, false);
    if (st.is_ok()) {
      m.submitted++;
      if (scored_out) *scored_out = false;
    }
    return st;
  }
  return {Errc::busy, "the scorer is busy"};
}

void ScoringSession::interrupt() { impl_->interrupted = true; }

Status ScoringSession::flush() { return impl_->scorer->flush(); }
const Collector& ScoringSession::collector() const { return impl_->scorer->collector(); }
uint64_t ScoringSession::frames_submitted() const { return impl_->submitted; }
double ScoringSession::fps() const { return impl_->scorer->fps(); }

}  // namespace vmafx::gst
