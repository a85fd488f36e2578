// SPDX-License-Identifier: LGPL-2.1-or-later
#include "scoring_session.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#endif

#include "vmafx/model.h"

namespace vmafx::gst {

namespace {

using Clock = std::chrono::steady_clock;

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

std::string size_text(const VideoGeometry& g) { return std::to_string(g.width) + "x" + std::to_string(g.height); }

std::string dir_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Proves that `path` can be written the way write_atomically writes it: a new file in its directory.
Status check_writable(const std::string& path) {
  std::string tmp = dir_of(path) + "/.vmafxhip-check-XXXXXX";
  std::vector<char> buf(tmp.begin(), tmp.end());
  buf.push_back('\0');
  const int fd = mkstemp(buf.data());
  if (fd < 0) return {Errc::io_error, path + ": cannot create a file in " + dir_of(path) + ": " + std::strerror(errno)};
  close(fd);
  unlink(buf.data());
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return {Errc::io_error, path + " is a directory"};
  return Status::ok();
}

// A temporary file in the target's directory, fsync, rename over the target, fsync the directory: a reader sees the
// old file or the whole new one, never a part, also after a crash or a full disk.
Status write_atomically(const std::string& path, const std::string& bytes) {
  std::string tmp = path + ".XXXXXX";
  std::vector<char> buf(tmp.begin(), tmp.end());
  buf.push_back('\0');
  const int fd = mkstemp(buf.data());
  if (fd < 0) return {Errc::io_error, path + ": " + std::strerror(errno)};
  const std::string tmp_path(buf.data());
  size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      unlink(tmp_path.c_str());
      return {Errc::io_error, path + ": " + std::strerror(err ? err : ENOSPC)};
    }
    off += size_t(n);
  }
  (void)fchmod(fd, 0644 & ~[] {
    const mode_t m = umask(0);
    umask(m);
    return m;
  }());
  if (fsync(fd) != 0 || close(fd) != 0) {
    const int err = errno;
    unlink(tmp_path.c_str());
    return {Errc::io_error, path + ": " + std::strerror(err)};
  }
  if (rename(tmp_path.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(tmp_path.c_str());
    return {Errc::io_error, path + ": " + std::strerror(err)};
  }
  const int dfd = open(dir_of(path).c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    (void)fsync(dfd);
    close(dfd);
  }
  return Status::ok();
}

double display_aspect(const FrameShape& s) {
  return double(s.geometry.width) * s.par_n / (double(s.geometry.height) * s.par_d);
}

}  // namespace

struct ScoringSession::Rendition {
  unsigned pad = 0;
  std::unique_ptr<Scorer> scorer;
  FrameShape ref_shape, dist_shape;
  Collector merged;          // the finished parts
  uint64_t base = 0;         // frames of the finished parts (the index of this part's first frame)
  uint64_t parts_frames = 0;
  double parts_seconds = 0;
  std::vector<std::string> names, model_names;
  std::shared_ptr<SharedReference> shared;  // the shared reference this part's scorer reads, or null
  std::string scaled_from;
  bool said_scaling = false;
  bool ended = false;
  RenditionCounts counts;  // when its pad was removed
  ScorerCounters counters;  // of the finished parts
};

ScoringSession::ScoringSession(StreamPairing* pairing, SessionCallbacks callbacks)
    : pairing_(pairing), cb_(std::move(callbacks)) {}

ScoringSession::~ScoringSession() { stop(); }

std::string short_reason(const std::string& m) {
  std::string s = m.substr(0, m.find("; "));
  if (s.size() < m.size() && m.find("allow-copy=false") != std::string::npos &&
      s.find("allow-copy=false") == std::string::npos)
    s += " (allow-copy=false forbids a copy)";
  return s;
}

std::string ScoringSession::pad_name(unsigned pad) {
  std::lock_guard<std::mutex> lk(names_mu_);
  auto it = pad_names_.find(pad);
  if (it != pad_names_.end()) return it->second;
  return pad == kRefPad ? "ref_sink" : "dist_sink";
}

std::string ScoringSession::results_path_for(unsigned pad, const std::string& name, size_t renditions) const {
  const std::string& p = cfg_.results_path;
  if (p.empty()) return "";
  const size_t at = p.find("%s");
  if (at != std::string::npos) return p.substr(0, at) + name + p.substr(at + 2);
  if (renditions <= 1 || pad == kDistPad) return p;
  const size_t slash = p.find_last_of('/');
  const size_t dot = p.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return p + "." + name;
  return p.substr(0, dot) + "." + name + p.substr(dot);
}

Status ScoringSession::start(const SessionConfig& config) {
  stop();
  cfg_ = config;
  stop_ = false;
  failed_ = false;
  scored_ = 0;
  renditions_.clear();
  recent_.clear();
  shared_.reset();
  // What can fail before the first frame fails here: the results files.
  if (!cfg_.results_path.empty()) {
    std::lock_guard<std::mutex> lk(names_mu_);
    size_t renditions = 0;
    for (const auto& [pad, name] : pad_names_) renditions += pad != kRefPad;
    for (const auto& [pad, name] : pad_names_)
      if (pad != kRefPad) VMAFX_TRY(check_writable(results_path_for(pad, name, renditions)));
    if (renditions == 0) VMAFX_TRY(check_writable(results_path_for(kDistPad, "dist_sink", 1)));
  }
  thread_ = std::thread([this] { run(); });
  return Status::ok();
}

Status ScoringSession::add_rendition(unsigned pad, const std::string& name, bool running) {
  size_t n;
  {
    std::lock_guard<std::mutex> lk(names_mu_);
    pad_names_[pad] = name;
    n = pad_names_.size();
  }
  if (running && pad != kRefPad && !cfg_.results_path.empty()) return check_writable(results_path_for(pad, name, n));
  return Status::ok();
}

void ScoringSession::stop() {
  stop_ = true;
  if (thread_.joinable()) {
    pairing_->wake_session();
    if (thread_.get_id() == std::this_thread::get_id())
      thread_.detach();  // stopped from one of its own callbacks (an application's synchronous bus handler)
    else
      thread_.join();
  }
  renditions_.clear();  // the scorers release every picture they hold
}

void ScoringSession::error(int kind, Errc code, const std::string& text, const std::string& detail) {
  if (failed_.exchange(true)) return;
  // The error first: once the pairing fails, the pads return GST_FLOW_ERROR and their upstream posts its own
  // "Internal data stream error", which must not reach the bus before the cause.
  if (cb_.on_error) cb_.on_error(kind, code, text, detail);
  pairing_->fail();
}

void ScoringSession::run() {
  auto next = Clock::time_point::max();
  while (!stop_) {
    Work w;
    // The time rules are checked when they are due, and at least every second (a pad's end makes no work).
    const auto wake = std::min(next, Clock::now() + std::chrono::seconds(1));
    if (!pairing_->next_work(&w, wake)) {
      if (stop_) break;
      Report rep;
      FailureText f;
      pairing_->check_timeouts(&rep, &f, &next);
      if (!rep.empty() && cb_.on_report) cb_.on_report(std::move(rep));
      if (f.kind) error(f.kind, Errc::internal, f.text, f.detail);
      continue;
    }
    if (failed_) continue;  // the work is dropped; the element is stopping
    switch (w.kind) {
      case Work::pair: handle_pair(w); break;
      case Work::segment_end: end_segment(false, &w.counts); break;
      case Work::stream_end:
        end_segment(true, nullptr);
        pairing_->finish_output();
        break;
      case Work::pad_end: end_rendition(w.p.pad); break;
    }
    Report rep;
    FailureText f;
    pairing_->check_timeouts(&rep, &f, &next);
    if (!rep.empty() && cb_.on_report) cb_.on_report(std::move(rep));
    if (f.kind) error(f.kind, Errc::internal, f.text, f.detail);
  }
}

bool ScoringSession::make_scorer(Rendition& r, const Frame& ref_frame, const FrameShape& ref, const FrameShape& dist) {
  const std::string name = pad_name(r.pad);
  const VideoGeometry& rg = ref.geometry;
  const VideoGeometry& dg = dist.geometry;
  const bool scaled = rg.width != dg.width || rg.height != dg.height;
  if (scaled && !cfg_.allow_stretch && cfg_.scorer.scale != ScaleMethod::none) {
    const double a = display_aspect(ref), b = display_aspect(dist);
    if (std::fabs(a / b - 1.0) > 0.01) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.4g against %.4g", b, a);
      error(3, Errc::unsupported,
            name + " (" + size_text(dg) + ") has another display aspect ratio than the reference (" + size_text(rg) +
                "): " + buf,
            "the element scales a distorted stream of another size to the reference's, but does not stretch it; "
            "set allow-stretch=true to scale it anyway, or crop/pad it to the reference's aspect");
      return false;
    }
  }
  ScorerConfig sc = cfg_.scorer;
  if (sc.device_id < 0 && placed_device_ >= 0) sc.device_id = placed_device_;
  if (cb_.prepare) {
    Status st = cb_.prepare(ref_frame, rg, &sc);
    if (!st) {
      error(0, st.code(), "Invalid settings", st.to_string());
      return false;
    }
  }
  // Several renditions: their scorers read one shared reference.
  r.shared.reset();
  if (pairing_->renditions().size() > 1) {
    if (!ensure_shared(sc, ref)) return false;
    sc.shared_reference = shared_;
    r.shared = shared_;
  }
  const uint64_t base = r.base;
  Rendition* rp = &r;
  sc.on_frame = [this, rp, base](const FrameScore& fs) {
    scored_.fetch_add(1, std::memory_order_relaxed);
    if (!cb_.on_frame || !fs.tag) return;
    FrameScore out = fs;
    out.index += base;
    cb_.on_frame(*static_cast<const ScoredFrame*>(fs.tag.get()), out, rp->names, rp->model_names);
  };
  sc.on_notice = cb_.on_notice;
  StreamGeometry g{rg, dg};
  Status st = create_engine_object([&] { return Scorer::create(sc, g, &r.scorer); });
  if (!st) {
    std::string text = "Could not set up scoring for " + name;
    int kind = 0;
    if (st.code() == Errc::device_unavailable) {
      text = "No usable GPU for backend=hip";
    } else if (st.code() == Errc::unsupported || st.code() == Errc::out_of_range ||
               st.code() == Errc::invalid_argument) {
      text = "Cannot score " + name + " (" + size_text(dg) + ") against the reference (" + size_text(rg) +
             "): " + st.message().substr(0, st.message().find("; "));
      kind = 3;
    }
    error(kind, st.code(), text, st.to_string());
    r.scorer.reset();
    return false;
  }
  r.ref_shape = ref;
  r.dist_shape = dist;
  r.names = r.scorer->score_names();
  r.model_names = r.scorer->model_score_names();
  r.scaled_from = scaled ? size_text(dg) : std::string();
  if (r.scorer->backend() == Backend::hip && placed_device_ < 0) placed_device_ = r.scorer->device();
  if (cb_.on_scorer)
    cb_.on_scorer(r.pad, r.scorer->cpu_features(), r.scorer->backend(), r.scorer->device(),
                  r.scorer->backend_description());
  if (scaled && !r.said_scaling && cb_.on_notice) {
    r.said_scaling = true;
    const char* method = cfg_.scorer.scale == ScaleMethod::bilinear  ? "bilinear"
                         : cfg_.scorer.scale == ScaleMethod::lanczos ? "lanczos"
                                                                     : "bicubic";
    cb_.on_notice(NoticeLevel::info,
                  name + ": " + size_text(dg) + " frames are scaled to the reference's " + size_text(rg) + " (" +
                      method + ") before scoring",
                  "scale-method sets the filter; libvmaf's own practice is to upscale a smaller rendition with "
                  "bicubic to the reference's size");
  }
  return true;
}

Status ScoringSession::create_engine_object(const std::function<Status()>& create) {
  const bool background = cfg_.background_priority || pairing_->live();
  if (background && !lowered_) {
    lower_thread_priority();  // this thread too: it reads frames and submits them
    lowered_ = true;
  }
  if (!background) return create();
  // Made on a thread of the lowest priority: the engine's worker threads inherit it.
  Status st;
  std::thread t([&] {
    lower_thread_priority();
    st = create();
  });
  t.join();
  return st;
}

bool ScoringSession::ensure_shared(const ScorerConfig& cfg, const FrameShape& ref) {
  if (shared_ && shared_shape_ == ref) return true;
  shared_.reset();
  recent_.clear();
  ScorerConfig sc = cfg;
  sc.on_frame = nullptr;
  const Status st = create_engine_object([&] { return SharedReference::create(sc, ref.geometry, &shared_); });
  if (!st) {
    error(st.code() == Errc::device_unavailable ? 0 : 3, st.code(),
          st.code() == Errc::device_unavailable ? "No usable GPU for backend=hip"
                                                : "Could not set up scoring for " + pad_name(kRefPad),
          st.to_string());
    shared_.reset();
    return false;
  }
  shared_shape_ = ref;
  if (shared_->backend() == Backend::hip && placed_device_ < 0) placed_device_ = shared_->device();
  return true;
}

std::shared_ptr<const SharedFrame> ScoringSession::find_shared(const SharedReference* shared, const Frame& ref) {
  if (shared != shared_.get()) return nullptr;
  for (auto it = recent_.rbegin(); it != recent_.rend(); ++it)
    if (it->payload == ref.payload.get() && it->pts == ref.pts) return it->frame.lock();
  return nullptr;
}

void ScoringSession::finish_part(Rendition& r) {
  if (!r.scorer) return;
  Status st = r.scorer->flush();
  if (!st) error(0, st.code(), "Scoring failed on " + pad_name(r.pad), st.to_string());
  const uint64_t n = r.scorer->frames_submitted();
  const ScorerCounters c = r.scorer->counters();
  r.counters.frames += c.frames;
  r.counters.reference_feature_frames += c.reference_feature_frames;
  r.counters.shared_frames += c.shared_frames;
  r.counters.uploaded_bytes += c.uploaded_bytes;
  r.merged.append(r.scorer->collector(), r.base);
  const double fps = r.scorer->fps();
  if (n && fps > 0) r.parts_seconds += double(n) / fps;
  r.parts_frames += n;
  r.base += n;
  r.scorer.reset();
}

void ScoringSession::handle_pair(Work& w) {
  const unsigned pad = w.p.pad;
  auto& slot = renditions_[pad];
  if (!slot) {
    slot = std::make_unique<Rendition>();
    slot->pad = pad;
  }
  Rendition& r = *slot;
  if (r.ended) return;
  const FrameShape rs = cb_.shape(kRefPad, w.p.ref);
  const FrameShape ds = cb_.shape(pad, w.p.dist);
  if (r.scorer && (rs != r.ref_shape || ds != r.dist_shape)) {
    // A caps change: the frames before it were scored with their caps; a scorer for the new geometry goes on.
    if (cb_.on_notice)
      cb_.on_notice(NoticeLevel::info,
                    pad_name(pad) + ": scoring restarts at a caps change (" + size_text(r.ref_shape.geometry) + " / " +
                        size_text(r.dist_shape.geometry) + " -> " + size_text(rs.geometry) + " / " +
                        size_text(ds.geometry) + ")",
                    "the first frame after the change has motion 0, as at a stream start");
    finish_part(r);
  }
  if (!r.scorer && !make_scorer(r, w.p.ref, rs, ds)) return;

  auto held = std::make_shared<std::pair<ReadPicture, ReadPicture>>();
  // With a shared reference: the reference frame another rendition already handed to it, else read here and handed
  // to it now (kept readable until the shared reference and every scorer let go of it).
  std::shared_ptr<const SharedFrame> shared_frame = r.shared ? find_shared(r.shared.get(), w.p.ref) : nullptr;
  Status st;
  if (!shared_frame) {
    st = cb_.read(kRefPad, w.p.ref, &held->first);
    if (!st) {
      error(0, st.code(), "Cannot read the reference frame on " + pad_name(kRefPad) + ": " +
                              short_reason(st.message()),
            st.to_string());
      return;
    }
    if (r.shared && r.shared == shared_) {
      auto keep = std::make_shared<ReadPicture>(held->first);
      auto payload = w.p.ref.payload;
      st = shared_->submit(keep->view, [keep, payload]() mutable {
        keep.reset();
        payload.reset();
      }, &shared_frame);
      if (!st) {
        error(0, st.code(), "Scoring failed on " + pad_name(kRefPad), st.to_string());
        return;
      }
      while (!recent_.empty() && (recent_.size() >= 256 || recent_.front().frame.expired())) recent_.pop_front();
      recent_.push_back({w.p.ref.payload.get(), w.p.ref.pts, shared_frame});
      held->first = ReadPicture{};  // the shared frame holds it
    }
  }
  st = cb_.read(pad, w.p.dist, &held->second);
  if (!st) {
    error(0, st.code(), "Cannot read the distorted frame on " + pad_name(pad) + ": " +
                            short_reason(st.message()),
          st.to_string());
    return;
  }
  auto tag = std::make_shared<ScoredFrame>();
  tag->pad = pad;
  tag->ref = w.p.ref;
  tag->ref.payload.reset();
  tag->dist = w.p.dist;
  tag->dist.payload.reset();
  tag->scaled_from = r.scaled_from;
  // The pair's pictures: the engine drops its copy when it no longer reads them; they go with the last copy.
  auto make = [&](bool scored) {
    FramePair fp;
    if (shared_frame) fp.shared = shared_frame;
    else fp.ref = held->first.view;
    fp.dist = held->second.view;
    const Frame& out = pad == kRefPad ? w.p.dist : w.p.ref;
    fp.timestamp = out.pts == kNoTime ? -1 : int64_t(out.pts);
    fp.tag = tag;
    fp.scored = scored;
    auto copy = held;
    fp.release = [copy]() mutable { copy.reset(); };
    return fp;
  };
  if (!pairing_->live()) {
    // Not live: waits for room as long as it takes, in slices, so that stop() is never kept waiting.
    for (;;) {
      st = r.scorer->submit(make(w.scored), Clock::now() + std::chrono::milliseconds(200));
      if (st.code() != Errc::busy || stop_ || failed_) break;
    }
  } else {
    // Live: one frame's time at most for room; then the pair goes in for the temporal features only (the next
    // frame's motion stays exact), or, without room even for that, is left out. Both are skipped-busy.
    const Time d = w.p.dist.duration != kNoTime ? w.p.dist.duration
                   : w.p.ref.duration != kNoTime ? w.p.ref.duration
                                                 : Time(40000000);
    if (w.scored) {
      st = r.scorer->submit(make(true), Clock::now() + std::chrono::nanoseconds(d));
      if (st.code() == Errc::busy) {
        st = r.scorer->submit(make(false), Clock::now());
        Report rep;
        pairing_->count_busy(pad, w.p.dist.pts, &rep);
        if (cb_.on_report) cb_.on_report(std::move(rep));
        if (st.code() == Errc::busy) st = Status::ok();
      }
    } else {
      st = r.scorer->submit(make(false), Clock::now());
      if (st.code() == Errc::busy) st = Status::ok();
    }
  }
  if (!st && st.code() != Errc::busy) error(0, st.code(), "Scoring failed on " + pad_name(pad), st.to_string());
}

RenditionResult ScoringSession::result_of(Rendition& r) {
  RenditionResult out;
  out.pad = r.pad;
  out.collector = &r.merged;
  out.score_names = r.merged.names();
  out.model_score_names = r.model_names;
  out.frames = r.parts_frames;
  out.fps = r.parts_seconds > 0 ? double(r.parts_frames) / r.parts_seconds : 0;
  out.counts = r.ended ? r.counts : pairing_->counts(r.pad);
  out.scaled_from = r.scaled_from;
  out.ref_geometry = r.ref_shape.geometry;
  out.counters = r.counters;
  return out;
}

Status ScoringSession::write_results(const std::vector<RenditionResult>& results) {
  if (cfg_.results_path.empty()) return Status::ok();
  for (const RenditionResult& res : results) {
    if (res.frames == 0) continue;
    const std::string path = results_path_for(res.pad, pad_name(res.pad), results.size());
    ResultsInfo info;
    info.width = res.ref_geometry.width;
    info.height = res.ref_geometry.height;
    info.fps = res.fps;
    info.frame_count = res.frames;
    std::ostringstream os;
    VMAFX_TRY(vmafx::write_results(*res.collector, cfg_.results_format, info, os));
    VMAFX_TRY(write_atomically(path, os.str()));
    if (cb_.on_written) cb_.on_written(path);
  }
  return Status::ok();
}

void ScoringSession::end_segment(bool final, const std::vector<std::pair<unsigned, RenditionCounts>>* counts) {
  // Every rendition that has had a pair, and those whose pads exist but formed none (their pooled message says
  // frames=0).
  for (unsigned pad : pairing_->renditions()) {
    auto& slot = renditions_[pad];
    if (!slot) {
      slot = std::make_unique<Rendition>();
      slot->pad = pad;
    }
  }
  std::vector<RenditionResult> results;
  for (auto& [pad, r] : renditions_) {
    finish_part(*r);
    results.push_back(result_of(*r));
    if (counts)
      for (const auto& [p, c] : *counts)
        if (p == pad) results.back().counts = c;
  }
  if (failed_) return;
  if (final) {
    Status st = write_results(results);
    if (!st) {
      error(0, Errc::io_error, "Could not write the results file", st.to_string());
      return;
    }
  }
  if (cb_.on_end) cb_.on_end(results, final);
  if (!final) {
    renditions_.clear();
    scored_ = 0;  // frames-scored counts from the seek
  }
}

void ScoringSession::end_rendition(unsigned pad) {
  auto it = renditions_.find(pad);
  if (it == renditions_.end()) return;
  Rendition& r = *it->second;
  r.counts = pairing_->counts(pad);
  finish_part(r);
  r.ended = true;
}

}  // namespace vmafx::gst
