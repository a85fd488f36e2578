// SPDX-License-Identifier: LGPL-2.1-or-later
#include "stream_pairing.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace vmafx::gst {

const char* skip_reason_field(SkipReason r) {
  switch (r) {
    case SkipReason::no_reference: return "skipped-no-reference";
    case SkipReason::no_distorted: return "skipped-no-distorted";
    case SkipReason::late: return "skipped-late";
    case SkipReason::busy: return "skipped-busy";
    case SkipReason::duplicate: return "skipped-duplicate";
    case SkipReason::non_monotonic: return "skipped-non-monotonic";
    case SkipReason::out_of_segment: return "skipped-out-of-segment";
    case SkipReason::offset: return "skipped-offset";
    case SkipReason::count_: break;
  }
  return "skipped-?";
}

const char* skip_reason_name(SkipReason r) { return skip_reason_field(r) + 8; }

void Report::append(Report&& o) {
  for (auto& s : o.skips) skips.push_back(s);
  for (auto& s : o.synced) synced.push_back(s);
  for (auto& s : o.first_live_skips) first_live_skips.push_back(s);
}

namespace {

constexpr size_t kMaxTombstones = 4096;
// auto-sync: frames of each stream the search reads (window either way plus the pairs per offset).
constexpr int kSyncWindow = 30;
constexpr unsigned kSyncPairs = 5;

// Half the shorter duration of two frames (equal times only when neither has one).
Time tolerance(Time da, Time db) {
  Time d = kNoTime;
  for (Time x : {da, db})
    if (x != kNoTime && x > 0 && (d == kNoTime || x < d)) d = x;
  return d == kNoTime ? 1 : d / 2;
}

using Tombstones = std::deque<std::pair<Time, Time>>;  // time, duration of frames skipped as late

std::string seconds(std::chrono::milliseconds d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", double(d.count()) / 1000.0);
  return buf;
}

}  // namespace

struct StreamPairing::Impl {
  struct RefEntry {
    Frame f;
    SteadyClock::time_point at{};   // when it arrived
    std::vector<unsigned> needers;  // renditions that still need this frame
    bool needs(unsigned d) const { return std::find(needers.begin(), needers.end(), d) != needers.end(); }
    void unneed(unsigned d) { needers.erase(std::remove(needers.begin(), needers.end(), d), needers.end()); }
  };

  struct PadState {
    // settings
    int offset = 0;
    bool auto_sync = false;
    // stream state (since the start or the last flush)
    std::deque<Frame> q;  // distorted frames waiting for their reference (renditions only)
    SteadyClock::time_point queued_since{};  // when the oldest of them arrived
    SteadyClock::time_point awaited_unlinked{};  // since when other pads wait for it while it is not linked
    uint64_t bytes = 0;
    bool eos = false;
    bool flushing = false;
    uint32_t seek_seq = 0;
    Time last_time = kNoTime;
    uint64_t in = 0;        // frames offered
    uint64_t ref_seen = 0;  // rendition: reference frames offered to it
    bool live = false;
    bool had_frame = false;
    SteadyClock::time_point last_activity{};
    // rendition
    bool started = true;    // false: requested after the reference started, not yet received a frame
    bool inactive = false;  // dist_sink unlinked beside request pads: not waited for until it gets a frame
    bool removed = false;   // a released request pad (kept until the next start for its counts)
    bool sync_done = true;
    bool sync_running = false;
    std::vector<Frame> sync_hold;
    int applied_offset = 0;  // the offset in effect (dist-offset, or what auto-sync found)
    RenditionCounts counts;
    Tombstones ref_late, dist_late;  // frames skipped as late: the reference's for this rendition, its own
    unsigned warned_live = 0;
    SteadyClock::time_point ended_at{};
  };

  PairingConfig cfg;
  mutable std::mutex mu;
  std::condition_variable cv;
  std::map<unsigned, PadState> pads;
  std::deque<RefEntry> ref_q;
  uint64_t ref_bytes = 0;
  std::deque<Work> work;
  std::deque<OutputItem> out_q;
  unsigned out_buffers = 0;
  bool out_open = false;
  bool out_flushing = false;
  bool out_failed = false;
  SteadyClock::time_point out_hold_since{};
  SteadyClock::time_point started_at{};  // start(): an unlinked pad's bound counts from then at the earliest
  bool stopping = false;
  bool stop_told_session = false;  // next_work has returned false once since stop()
  bool failed_ = false;
  bool over_ = false;       // the stream's end is queued
  bool ref_started = false;  // the reference has had a frame (later pads join late)
  uint32_t seek_seq = 0;
  uint32_t flush_seqnum = 0;
  bool have_flush_seqnum = false;
  bool session_wake = false;

  bool is_rendition(unsigned p) const { return p != kRefPad; }
  bool live_locked() const {
    if (cfg.force_live) return true;
    for (const auto& [id, ps] : pads)
      if (ps.live) return true;
    return false;
  }
  // Renditions that take reference frames now (a late one from its request on: its branch may lag the reference).
  // An ended rendition still takes them while frames of its own wait for theirs.
  bool takes_ref(const PadState& d) const { return !d.inactive && (!d.eos || !d.q.empty() || !d.sync_hold.empty()); }

  std::string name(unsigned p, StreamPairing* self) const {
    if (self->pad_name) return self->pad_name(p);
    return p == kRefPad ? "ref_sink" : p == kDistPad ? "dist_sink" : "dist_sink_" + std::to_string(p - 2);
  }

  void count(const Skip& s, Report* r) {
    auto it = pads.find(s.rendition);
    if (it == pads.end()) return;
    PadState& d = it->second;
    d.counts.skips[unsigned(s.reason)]++;
    // A pair left unscored (busy) is a pair, not an unpaired frame.
    if (s.reason != SkipReason::busy) (s.pad == kRefPad ? d.counts.ref_unpaired : d.counts.dist_unpaired)++;
    r->skips.push_back(s);
    if (live_locked() && s.reason != SkipReason::offset) {
      const unsigned bit = 1u << unsigned(s.reason);
      if (!(d.warned_live & bit)) {
        d.warned_live |= bit;
        r->first_live_skips.emplace_back(s.rendition, s.reason);
      }
    }
  }
  void skip(unsigned pad, unsigned rendition, SkipReason reason, const Frame& f, Report* r) {
    count({pad, rendition, reason, f.pts}, r);
  }
  void skip_late(unsigned pad, unsigned rendition, const Frame& f, Report* r) {
    PadState& d = pads[rendition];
    Tombstones& t = pad == kRefPad ? d.ref_late : d.dist_late;
    if (t.size() < kMaxTombstones) t.emplace_back(f.time, f.duration);
    skip(pad, rendition, SkipReason::late, f, r);
  }
  // A frame whose partner was skipped as late goes with it, counted once.
  bool consume_tombstone(Tombstones& t, const Frame& f) {
    if (t.empty()) return false;
    if (!cfg.by_timestamp) {
      t.pop_front();
      return true;
    }
    while (!t.empty()) {
      const Time tol = tolerance(t.front().second, f.duration);
      if (t.front().first + tol <= f.time) {
        t.pop_front();
        continue;
      }
      if (t.front().first < f.time + tol) {
        t.pop_front();
        return true;
      }
      return false;
    }
    return false;
  }

  void form(unsigned d, const Frame& ref, Frame dist) {
    PadState& ds = pads[d];
    ds.counts.paired++;
    if (ds.counts.first_ref_pts == kNoTime) ds.counts.first_ref_pts = ref.pts;
    Work w;
    w.kind = Work::pair;
    w.p.pad = d;
    w.p.ref = ref;
    w.p.dist = std::move(dist);
    work.push_back(std::move(w));
    cv.notify_all();
  }

  void pop_dist(PadState& d) {
    d.bytes -= std::min(d.bytes, d.q.front().bytes);
    d.q.pop_front();
  }
  void drop_unneeded_refs() {
    while (!ref_q.empty() && ref_q.front().needers.empty()) {
      ref_bytes -= std::min(ref_bytes, ref_q.front().f.bytes);
      ref_q.pop_front();
    }
  }

  // A new reference frame offered to rendition d: paired, skipped for d, or needed by d.
  void offer_ref(unsigned did, RefEntry& e, Report* r) {
    PadState& d = pads[did];
    const Frame& R = e.f;
    d.counts.ref_frames++;
    const uint64_t n = d.ref_seen++;
    if (!d.sync_done) {  // held for auto-sync's search
      e.needers.push_back(did);
      return;
    }
    if (d.applied_offset < 0 && n < uint64_t(-int64_t(d.applied_offset))) {
      skip(kRefPad, did, SkipReason::offset, R, r);
      return;
    }
    if (consume_tombstone(d.dist_late, R)) {
      d.counts.ref_unpaired++;  // its partner was skipped as late: the pair is counted once, there
      return;
    }
    if (cfg.by_timestamp) {
      while (!d.q.empty() && d.q.front().time + tolerance(d.q.front().duration, R.duration) <= R.time) {
        Frame old = std::move(d.q.front());
        pop_dist(d);
        skip(did, did, SkipReason::no_reference, old, r);
      }
      if (!d.q.empty()) {
        if (d.q.front().time < R.time + tolerance(d.q.front().duration, R.duration)) {
          Frame df = std::move(d.q.front());
          pop_dist(d);
          form(did, R, std::move(df));
        } else {
          skip(kRefPad, did, SkipReason::no_distorted, R, r);  // the rendition is past this time
        }
        return;
      }
      if (d.eos) {
        skip(kRefPad, did, SkipReason::no_distorted, R, r);
        return;
      }
      if (d.last_time != kNoTime && R.time + tolerance(kNoTime, R.duration) <= d.last_time) {
        skip(kRefPad, did, SkipReason::no_distorted, R, r);
        return;
      }
      e.needers.push_back(did);
      return;
    }
    if (!d.q.empty()) {
      Frame df = std::move(d.q.front());
      pop_dist(d);
      form(did, R, std::move(df));
      return;
    }
    if (d.eos) {
      skip(kRefPad, did, SkipReason::no_distorted, R, r);
      return;
    }
    e.needers.push_back(did);
  }

  // A distorted frame of rendition d, after its offset: paired with the first reference frame d needs, skipped, or
  // queued.
  void offer_dist(unsigned did, Frame f, Report* r) {
    PadState& d = pads[did];
    PadState& ref = pads[kRefPad];
    if (cfg.by_timestamp) {
      if (d.applied_offset != 0) {
        const Time dur = f.duration != kNoTime ? f.duration : 0;
        const int64_t shift = int64_t(d.applied_offset) * int64_t(dur);
        if (shift > 0 && Time(shift) > f.time) {
          skip(did, did, SkipReason::offset, f, r);
          return;
        }
        f.time = Time(int64_t(f.time) - shift);
      }
      if (d.last_time != kNoTime && f.time <= d.last_time) {
        skip(did, did, f.time == d.last_time ? SkipReason::duplicate : SkipReason::non_monotonic, f, r);
        return;
      }
      d.last_time = f.time;
      if (consume_tombstone(d.ref_late, f)) {
      d.counts.dist_unpaired++;  // its partner was skipped as late: the pair is counted once, there
      return;
    }
      RefEntry* match = nullptr;
      for (RefEntry& e : ref_q) {
        if (!e.needs(did)) continue;
        if (e.f.time + tolerance(e.f.duration, f.duration) <= f.time) {
          e.unneed(did);
          skip(kRefPad, did, SkipReason::no_distorted, e.f, r);
          continue;
        }
        match = &e;
        break;
      }
      if (match) {
        if (match->f.time < f.time + tolerance(match->f.duration, f.duration)) {
          match->unneed(did);
          form(did, match->f, std::move(f));
        } else {
          skip(did, did, SkipReason::no_reference, f, r);  // the reference is past this time
        }
        drop_unneeded_refs();
        return;
      }
      drop_unneeded_refs();
      if (ref.eos || (ref.last_time != kNoTime && f.time + tolerance(kNoTime, f.duration) <= ref.last_time)) {
        skip(did, did, SkipReason::no_reference, f, r);
        return;
      }
      if (d.q.empty()) d.queued_since = SteadyClock::now();
      d.bytes += f.bytes;
      d.q.push_back(std::move(f));
      return;
    }
    if (consume_tombstone(d.ref_late, f)) {
      d.counts.dist_unpaired++;  // its partner was skipped as late: the pair is counted once, there
      return;
    }
    for (RefEntry& e : ref_q) {
      if (!e.needs(did)) continue;
      e.unneed(did);
      form(did, e.f, std::move(f));
      drop_unneeded_refs();
      return;
    }
    if (ref.eos) {
      skip(did, did, SkipReason::no_reference, f, r);
      return;
    }
    if (d.q.empty()) d.queued_since = SteadyClock::now();
    d.bytes += f.bytes;
    d.q.push_back(std::move(f));
  }

  // Frames of each stream auto-sync's search reads for rendition d: its window either way of its dist-offset, plus
  // the pairs compared per offset.
  static size_t sync_need(const PadState& d) { return size_t(std::abs(d.offset)) + size_t(kSyncWindow) + kSyncPairs; }

  // Rendition d's frames in the auto-sync hold and the reference's are enough (or a stream ended) for the search.
  bool sync_ready(unsigned did) const {
    const PadState& d = pads.at(did);
    const PadState& ref = pads.at(kRefPad);
    size_t held_refs = 0;
    for (const RefEntry& e : ref_q) held_refs += e.needs(did) ? 1 : 0;
    return (d.sync_hold.size() >= sync_need(d) || d.eos) && (held_refs >= sync_need(d) || ref.eos);
  }

  // Applies what auto-sync found (or the plain offset when it found nothing) and pairs what it held.
  void apply_sync(unsigned did, int offset, Report* r) {
    PadState& d = pads[did];
    d.sync_done = true;
    d.sync_running = false;
    d.applied_offset = offset;
    // The reference frames held for it, as if offered now.
    uint64_t n = 0;
    for (RefEntry& e : ref_q) {
      if (!e.needs(did)) continue;
      e.unneed(did);
      if (offset < 0 && n++ < uint64_t(-int64_t(offset))) {
        skip(kRefPad, did, SkipReason::offset, e.f, r);
        continue;
      }
      e.needers.push_back(did);  // needed again, in order, for offer_dist below
    }
    // Its own frames through the normal path, leading ones left out by the offset.
    std::vector<Frame> held = std::move(d.sync_hold);
    d.sync_hold.clear();
    uint64_t k = 0;
    for (Frame& f : held) {
      if (offset > 0 && k++ < uint64_t(offset)) {
        skip(did, did, SkipReason::offset, f, r);
        continue;
      }
      offer_dist(did, std::move(f), r);
    }
    if (d.eos) end_rendition(did, r);
    drop_unneeded_refs();
  }

  void end_rendition(unsigned did, Report* r) {
    for (RefEntry& e : ref_q) {
      if (!e.needs(did)) continue;
      e.unneed(did);
      skip(kRefPad, did, SkipReason::no_distorted, e.f, r);
    }
    drop_unneeded_refs();
  }

  bool pad_full(unsigned p) const {
    const PadState& ps = pads.at(p);
    const unsigned max_frames = cfg.max_frames;
    if (p == kRefPad) {
      // auto-sync holds the first frames of each stream itself, as many as its search reads.
      size_t bound = max_frames;
      for (const auto& [id, d] : pads)
        if (id != kRefPad && !d.sync_done) bound = std::max(bound, sync_need(d));
      return ref_q.size() > bound || (cfg.max_bytes && ref_bytes > cfg.max_bytes && ref_q.size() > 1);
    }
    if (!ps.sync_done) return ps.sync_hold.size() > std::max<size_t>(max_frames, sync_need(ps));
    return ps.q.size() > max_frames || (cfg.max_bytes && ps.bytes > cfg.max_bytes && ps.q.size() > 1);
  }

  // Live: the oldest frame of a pad over its bound is skipped as late.
  void drop_oldest(unsigned p, Report* r) {
    if (p == kRefPad) {
      if (ref_q.empty()) return;
      RefEntry e = std::move(ref_q.front());
      ref_bytes -= std::min(ref_bytes, e.f.bytes);
      ref_q.pop_front();
      for (unsigned d : e.needers) skip_late(kRefPad, d, e.f, r);
      return;
    }
    PadState& d = pads[p];
    if (!d.sync_done) {
      // A live source does not wait for the other stream's first frames: the search takes what there is.
      return;
    }
    if (d.q.empty()) return;
    Frame f = std::move(d.q.front());
    pop_dist(d);
    skip_late(p, p, f, r);
  }

  // The pads `p` waits for when it is full: the renditions the oldest reference frame needs, or the reference.
  std::vector<unsigned> waited_for(unsigned p) const {
    if (p != kRefPad) return {kRefPad};
    if (ref_q.empty()) return {};
    return ref_q.front().needers;
  }

  // Non-output pads answer eos once their frames can no longer pair.
  bool cannot_pair(unsigned p) const {
    if (over_) return true;
    if (p == cfg.out_pad) return false;
    const PadState& ref = pads.at(kRefPad);
    if (p == kRefPad) {
      for (const auto& [id, d] : pads)
        if (id != kRefPad && takes_ref(d)) return false;
      return true;
    }
    if (!ref.eos) return false;
    for (const RefEntry& e : ref_q)
      if (e.needs(p)) return false;
    return pads.at(p).sync_done;
  }

  bool anything_waits() const {
    if (!ref_q.empty()) return true;
    for (const auto& [id, d] : pads)
      if (!d.q.empty() || !d.sync_hold.empty()) return true;
    return false;
  }

  void check_over() {
    if (over_) return;
    bool all_ended = true;
    for (const auto& [id, d] : pads)
      if (!d.eos && !(id != kRefPad && d.inactive)) all_ended = false;
    const bool live = live_locked();
    const bool out_ended = pads.count(cfg.out_pad) && pads[cfg.out_pad].eos;
    if (all_ended || (live && out_ended && !anything_waits())) {
      over_ = true;
      Work w;
      w.kind = Work::stream_end;
      work.push_back(std::move(w));
      cv.notify_all();
    }
  }

  // Live: more than live_pending_pairs scored pairs wait for the scorer: the oldest is left for the temporal
  // features only (skipped-busy).
  void bound_live_work(Report* r) {
    if (!live_locked()) return;
    size_t scored = 0;
    for (const Work& w : work) scored += w.kind == Work::pair && w.scored;
    for (Work& w : work) {
      if (scored <= cfg.live_pending_pairs) break;
      if (w.kind != Work::pair || !w.scored) continue;
      w.scored = false;
      scored--;
      count({w.p.pad, w.p.pad, SkipReason::busy, w.p.dist.pts}, r);
    }
  }

  // The wait-related failures for pad p waiting since `since`; the time they are due in *next.
  FailureText wait_failure(unsigned p, StreamPairing* self, SteadyClock::time_point since,
                           SteadyClock::time_point now, SteadyClock::time_point* next) {
    FailureText f;
    for (unsigned o : waited_for(p)) {
      auto it = pads.find(o);
      if (it == pads.end()) continue;
      const PadState& os = it->second;
      if (cfg.link_bound.count() > 0) {
        const auto due = std::max(started_at, since) + cfg.link_bound;
        if (self->is_linked && !self->is_linked(o)) {
          if (now >= due) {
            f.kind = 1;
            f.text = name(o, self) + " is not linked: " + name(p, self) + " holds " +
                     std::to_string(p == kRefPad ? ref_q.size() : pads.at(p).q.size()) +
                     " frames waiting for their partners (waited " + seconds(cfg.link_bound) + " for a link)";
            f.detail = "link every sink pad of vmafxhip; a pad linked late (decodebin's, once it knows the stream) "
                       "is normal within that bound";
            return f;
          }
          *next = std::min(*next, due);
        }
      }
      if (cfg.stall_timeout.count() > 0) {
        const auto due = std::max(since, os.last_activity) + cfg.stall_timeout;
        if (now >= due) {
          f.kind = 2;
          const unsigned secs = unsigned(cfg.stall_timeout.count() / 1000);
          f.text = name(p, self) + " holds " +
                   std::to_string(p == kRefPad ? ref_q.size() : pads.at(p).q.size()) +
                   " frames (max-reference-frames=" + std::to_string(cfg.max_frames) + ") and " + name(o, self) +
                   " has received nothing for " + std::to_string(secs) + " s: raise max-reference-frames";
          f.detail = "the other branch probably waits for more input than the element holds (an encoder's "
                     "lookahead behind a tee); a larger max-reference-frames, or an unlimited queue before the pad, "
                     "lets it through (stall-timeout sets this wait)";
          return f;
        }
        *next = std::min(*next, due);
      }
    }
    return f;
  }
};

StreamPairing::StreamPairing() : impl_(std::make_unique<Impl>()) {
  impl_->pads[kRefPad];
  impl_->pads[kDistPad];  // the always pads
}
StreamPairing::~StreamPairing() = default;

void StreamPairing::start(const PairingConfig& config) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lk(m.mu);
  m.cfg = config;
  const auto now = SteadyClock::now();
  for (auto it = m.pads.begin(); it != m.pads.end();) it = it->second.removed ? m.pads.erase(it) : std::next(it);
  for (auto& [id, ps] : m.pads) {
    const int offset = ps.offset;
    const bool sync = ps.auto_sync;
    ps = Impl::PadState{};
    ps.offset = offset;
    ps.auto_sync = sync;
    ps.applied_offset = offset;
    ps.sync_done = !sync;
    ps.last_activity = now;
  }
  m.ref_q.clear();
  m.ref_bytes = 0;
  m.work.clear();
  m.out_q.clear();
  m.out_buffers = 0;
  m.out_open = false;
  m.out_flushing = false;
  m.out_failed = false;
  m.out_hold_since = {};
  m.started_at = now;
  m.stopping = false;
  m.stop_told_session = false;
  m.failed_ = false;
  m.over_ = false;
  m.ref_started = false;
  m.have_flush_seqnum = false;
  m.seek_seq = 0;
}

void StreamPairing::stop() {
  Impl& m = *impl_;
  std::deque<OutputItem> out;
  std::deque<Work> work;
  {
    std::lock_guard<std::mutex> lk(m.mu);
    m.stopping = true;
    out.swap(m.out_q);
    work.swap(m.work);
    m.out_buffers = 0;
    m.cv.notify_all();
  }
  // Released outside the lock: the payloads' deleters are the element's.
}

void StreamPairing::fail() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lk(m.mu);
  m.failed_ = true;
  m.cv.notify_all();
}

bool StreamPairing::failed() const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  return impl_->failed_;
}

void StreamPairing::add_pad(unsigned pad, int offset, bool auto_sync) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lk(m.mu);
  Impl::PadState& ps = m.pads[pad];
  ps.offset = offset;
  ps.auto_sync = auto_sync;
  ps.applied_offset = offset;
  ps.sync_done = !auto_sync;
  ps.last_activity = SteadyClock::now();
  if (pad != kRefPad && m.ref_started && !ps.had_frame) {
    // Requested after the reference started (gst-launch-1.0 requests a pad linked from decodebin only once decodebin
    // exposes its pad): it takes the reference frames still held for the others too; those older than its first
    // frame are let go at that frame, uncounted.
    ps.started = false;
    ps.counts.late_join = true;
    for (Impl::RefEntry& e : m.ref_q)
      if (!e.needs(pad)) {
        e.needers.push_back(pad);
        ps.counts.ref_frames++;
      }
    // dist_sink still unlinked beside request pads: a ladder of request pads alone; it is not waited for.
    auto d = m.pads.find(kDistPad);
    if (pad > kDistPad && d != m.pads.end() && !d->second.had_frame && !d->second.inactive && is_linked &&
        !is_linked(kDistPad)) {
      for (Impl::RefEntry& e : m.ref_q) e.unneed(kDistPad);
      d->second.counts = RenditionCounts{};
      d->second.inactive = true;
      m.drop_unneeded_refs();
    }
    m.cv.notify_all();
  }
}

Report StreamPairing::remove_pad(unsigned pad) {
  Impl& m = *impl_;
  Report r;
  std::lock_guard<std::mutex> lk(m.mu);
  if (pad == kRefPad || !m.pads.count(pad)) return r;
  // Kept as an ended, inactive rendition: its counts stay for its pooled message.
  m.pads[pad].eos = true;
  m.pads[pad].inactive = true;
  m.pads[pad].removed = true;
  m.pads[pad].ended_at = SteadyClock::now();
  m.end_rendition(pad, &r);
  Work w;
  w.kind = Work::pad_end;
  w.p.pad = pad;
  m.work.push_back(std::move(w));
  m.check_over();
  m.cv.notify_all();
  return r;
}

void StreamPairing::set_live(unsigned pad, bool live) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lk(m.mu);
  if (m.pads.count(pad)) m.pads[pad].live = live;
}

bool StreamPairing::live() const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  return impl_->live_locked();
}

void StreamPairing::set_bounds(unsigned max_frames, uint64_t max_bytes, std::chrono::milliseconds stall_timeout) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lk(m.mu);
  m.cfg.max_frames = max_frames;
  m.cfg.max_bytes = max_bytes;
  m.cfg.stall_timeout = stall_timeout;
  m.cv.notify_all();
}

Flow StreamPairing::push(unsigned pad, Frame f, Report* r) {
  Impl& m = *impl_;
  std::vector<Frame> sync_ref, sync_dist;
  int sync_centre = 0;
  {
    std::lock_guard<std::mutex> lk(m.mu);
    if (m.failed_) return Flow::error;
    auto it = m.pads.find(pad);
    if (it == m.pads.end() || m.stopping || it->second.flushing) return Flow::flushing;
    Impl::PadState& ps = it->second;
    if (ps.seek_seq != m.seek_seq) return Flow::flushing;  // a frame of the segment a seek flushes
    ps.last_activity = SteadyClock::now();
    ps.had_frame = true;
    if (m.cannot_pair(pad)) {
      if (pad != kRefPad) ps.counts.cut = true;
      return Flow::eos;
    }
    m.cv.notify_all();
    if (pad == kRefPad) {
      if (!m.ref_started) {
        m.ref_started = true;
        // dist_sink unlinked beside request pads is not waited for (a ladder of request pads alone).
        bool requests = false;
        for (const auto& [id, d] : m.pads) requests = requests || id > kDistPad;
        if (requests && m.pads.count(kDistPad) && is_linked && !is_linked(kDistPad) &&
            !m.pads[kDistPad].had_frame)
          m.pads[kDistPad].inactive = true;
      }
      ps.in++;
      if (m.cfg.by_timestamp) {
        if (ps.last_time != kNoTime && f.time <= ps.last_time) {
          const SkipReason why = f.time == ps.last_time ? SkipReason::duplicate : SkipReason::non_monotonic;
          for (auto& [id, d] : m.pads)
            if (id != kRefPad && m.takes_ref(d)) {
              d.counts.ref_frames++;
              m.skip(kRefPad, id, why, f, r);
            }
          return Flow::ok;
        }
        ps.last_time = f.time;
      }
      Impl::RefEntry e;
      e.f = std::move(f);
      for (auto& [id, d] : m.pads) {
        if (id == kRefPad || d.inactive) continue;
        if (m.takes_ref(d)) {
          m.offer_ref(id, e, r);
        } else {  // the rendition ended: the reference frame has no partner, counted as before the end
          d.counts.ref_frames++;
          m.skip(kRefPad, id, SkipReason::no_distorted, e.f, r);
        }
      }
      if (!e.needers.empty()) {
        e.at = SteadyClock::now();
        m.ref_bytes += e.f.bytes;
        m.ref_q.push_back(std::move(e));
      }
    } else {
      ps.in++;
      ps.counts.dist_frames++;
      if (!ps.started) {
        // A rendition requested late starts here: reference frames held for it before its first frame's time
        // precede it, and are neither paired nor counted.
        ps.started = true;
        for (Impl::RefEntry& e : m.ref_q) {
          if (!e.needs(pad) || (m.cfg.by_timestamp && e.f.time + tolerance(e.f.duration, f.duration) > f.time)) continue;
          if (!m.cfg.by_timestamp) break;
          e.unneed(pad);
          ps.counts.ref_frames--;
        }
        m.drop_unneeded_refs();
      }
      ps.inactive = false;
      if (!ps.sync_done) {
        ps.sync_hold.push_back(std::move(f));
        if (!ps.sync_running && m.sync_ready(pad)) {
          ps.sync_running = true;
          sync_centre = ps.offset;
          for (const Impl::RefEntry& e : m.ref_q)
            if (e.needs(pad)) sync_ref.push_back(e.f);
          sync_dist = ps.sync_hold;
        }
      } else if (ps.applied_offset > 0 && ps.in <= uint64_t(ps.applied_offset)) {
        m.skip(pad, pad, SkipReason::offset, f, r);
      } else {
        m.offer_dist(pad, std::move(f), r);
      }
    }
    m.bound_live_work(r);
    m.check_over();
    if (sync_ref.empty() && sync_dist.empty()) return Flow::ok;
  }
  // auto-sync's search, outside the lock.
  SyncFound found;
  bool ok = sync_search && sync_search(sync_ref, sync_dist, sync_centre, kSyncWindow, &found);
  std::lock_guard<std::mutex> lk(m.mu);
  if (!m.pads.count(pad)) return Flow::ok;
  const int offset = ok ? found.offset : sync_centre;
  m.apply_sync(pad, offset, r);
  r->synced.push_back({pad, found, ok});
  m.bound_live_work(r);
  m.check_over();
  m.cv.notify_all();
  return Flow::ok;
}

Flow StreamPairing::gap(unsigned pad, Time until, Report* r) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lk(m.mu);
  if (m.failed_) return Flow::error;
  auto it = m.pads.find(pad);
  if (it == m.pads.end() || m.stopping || it->second.flushing) return Flow::flushing;
  Impl::PadState& ps = it->second;
  ps.last_activity = SteadyClock::now();
  m.cv.notify_all();
  if (!m.cfg.by_timestamp || until == kNoTime) return Flow::ok;
  if (pad == kRefPad) {
    // The renditions' frames before `until` have no reference.
    for (auto& [id, d] : m.pads) {
      if (id == kRefPad) continue;
      while (!d.q.empty() && d.q.front().time < until) {
        Frame f = std::move(d.q.front());
        m.pop_dist(d);
        m.skip(id, id, SkipReason::no_reference, f, r);
      }
    }
  } else {
    for (Impl::RefEntry& e : m.ref_q) {
      if (e.f.time >= until || !e.needs(pad)) continue;
      e.unneed(pad);
      m.skip(kRefPad, pad, SkipReason::no_distorted, e.f, r);
    }
    m.drop_unneeded_refs();
  }
  if (ps.last_time == kNoTime || until > ps.last_time) ps.last_time = until - 1;
  m.check_over();
  return Flow::ok;
}

Flow StreamPairing::skip_unpaired(unsigned pad, SkipReason reason, Time pts, Report* r) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lk(m.mu);
  if (m.failed_) return Flow::error;
  auto it = m.pads.find(pad);
  if (it == m.pads.end() || m.stopping || it->second.flushing) return Flow::flushing;
  it->second.last_activity = SteadyClock::now();
  if (it->second.seek_seq != m.seek_seq) return Flow::flushing;
  if (pad == kRefPad) {
    for (auto& [id, d] : m.pads)
      if (id != kRefPad && m.takes_ref(d)) {
        d.counts.ref_frames++;
        m.count({kRefPad, id, reason, pts}, r);
      }
  } else {
    it->second.counts.dist_frames++;
    m.count({pad, pad, reason, pts}, r);
  }
  return Flow::ok;
}

Flow StreamPairing::wait_for_room(unsigned pad, Report* r, FailureText* failure) {
  Impl& m = *impl_;
  std::unique_lock<std::mutex> lk(m.mu);
  const auto since = SteadyClock::now();
  for (;;) {
    if (m.failed_) return Flow::error;
    auto it = m.pads.find(pad);
    if (it == m.pads.end() || m.stopping || it->second.flushing) return Flow::flushing;
    const bool live = m.live_locked();
    const bool full = m.pad_full(pad);
    const bool scorer_full = !live && m.work.size() > m.cfg.max_pending_pairs;
    if (!full && !scorer_full) return Flow::ok;
    if (live) {
      const size_t before = pad == kRefPad ? m.ref_q.size() : it->second.q.size();
      m.drop_oldest(pad, r);
      const size_t after = pad == kRefPad ? m.ref_q.size() : it->second.q.size();
      if (after == before) return Flow::ok;  // nothing to drop (auto-sync's hold)
      m.check_over();
      continue;
    }
    const auto now = SteadyClock::now();
    auto next = SteadyClock::time_point::max();
    if (full) {
      FailureText f = m.wait_failure(pad, this, since, now, &next);
      if (f.kind) {
        *failure = std::move(f);
        m.failed_ = true;
        m.cv.notify_all();
        return Flow::error;
      }
    }
    if (next == SteadyClock::time_point::max())
      m.cv.wait(lk);
    else
      m.cv.wait_until(lk, next);
  }
}

Flow StreamPairing::end(unsigned pad, Report* r) {
  Impl& m = *impl_;
  std::vector<Frame> sync_ref, sync_dist;
  unsigned sync_pad = 0;
  int sync_centre = 0;
  {
    std::lock_guard<std::mutex> lk(m.mu);
    if (m.failed_) return Flow::error;
    auto it = m.pads.find(pad);
    if (it == m.pads.end()) return Flow::ok;
    Impl::PadState& ps = it->second;
    ps.eos = true;
    ps.ended_at = SteadyClock::now();
    ps.last_activity = ps.ended_at;
    m.cv.notify_all();
    if (pad == kRefPad) {
      for (auto& [id, d] : m.pads) {
        if (id == kRefPad || !d.sync_done) continue;
        while (!d.q.empty()) {
          Frame f = std::move(d.q.front());
          m.pop_dist(d);
          m.skip(id, id, SkipReason::no_reference, f, r);
        }
      }
    } else if (ps.sync_done) {
      m.end_rendition(pad, r);
    }
    // A rendition in auto-sync's hold searches with what there is once a stream ended.
    for (auto& [id, d] : m.pads) {
      if (id == kRefPad || d.sync_done || d.sync_running || !m.sync_ready(id)) continue;
      d.sync_running = true;
      sync_pad = id;
      sync_centre = d.offset;
      for (const Impl::RefEntry& e : m.ref_q)
        if (e.needs(id)) sync_ref.push_back(e.f);
      sync_dist = d.sync_hold;
      break;
    }
    if (!sync_pad) {
      m.check_over();
      return Flow::ok;
    }
  }
  SyncFound found;
  const bool ok = sync_search && sync_search(sync_ref, sync_dist, sync_centre, kSyncWindow, &found);
  std::lock_guard<std::mutex> lk(m.mu);
  if (m.pads.count(sync_pad)) {
    m.apply_sync(sync_pad, ok ? found.offset : sync_centre, r);
    r->synced.push_back({sync_pad, found, ok});
    if (m.pads[kRefPad].eos) {
      for (auto& [id, d] : m.pads) {
        if (id == kRefPad) continue;
        while (!d.q.empty()) {
          Frame f = std::move(d.q.front());
          m.pop_dist(d);
          m.skip(id, id, SkipReason::no_reference, f, r);
        }
      }
    }
  }
  m.check_over();
  m.cv.notify_all();
  return Flow::ok;
}

bool StreamPairing::flush_start(unsigned pad, uint32_t seqnum) {
  Impl& m = *impl_;
  std::deque<OutputItem> out;
  std::deque<Work> dropped;
  bool new_segment = false;
  {
    std::lock_guard<std::mutex> lk(m.mu);
    auto it = m.pads.find(pad);
    if (it == m.pads.end()) return false;
    it->second.flushing = true;
    if (!m.have_flush_seqnum || seqnum != m.flush_seqnum) {
      m.have_flush_seqnum = true;
      m.flush_seqnum = seqnum;
      m.seek_seq++;
      new_segment = true;
      // Every pad's frames belong to the segment that ends: pairs not handed to the scorer yet are dropped with it.
      m.ref_q.clear();
      m.ref_bytes = 0;
      for (auto& [id, d] : m.pads) {
        d.q.clear();
        d.bytes = 0;
        d.sync_hold.clear();
      }
      for (Work& w : m.work)
        if (w.kind != Work::pair) dropped.push_back(std::move(w));
      m.work.clear();
      for (Work& w : dropped)
        if (w.kind == Work::pad_end) m.work.push_back(std::move(w));
      dropped.clear();
      Work w;
      w.kind = Work::segment_end;
      // The segment's counts go with its end; every pad's pairing state starts again (running times restart), also
      // on the pads whose own flush comes later.
      for (auto& [id, d] : m.pads) {
        if (id != kRefPad && !d.inactive) w.counts.emplace_back(id, d.counts);
        d.counts = RenditionCounts{};
        d.last_time = kNoTime;
        d.in = 0;
        d.ref_seen = 0;
        d.ref_late.clear();
        d.dist_late.clear();
        d.sync_done = !d.auto_sync;
        d.sync_running = false;
        d.applied_offset = d.offset;
        d.warned_live = 0;
      }
      m.pads[kRefPad].eos = false;
      m.over_ = false;
      m.work.push_back(std::move(w));
    }
    it->second.seek_seq = m.seek_seq;
    it->second.q.clear();
    it->second.bytes = 0;
    if (pad == m.cfg.out_pad) {
      m.out_flushing = true;
      out.swap(m.out_q);
      m.out_buffers = 0;
    }
    m.cv.notify_all();
  }
  return new_segment;
}

void StreamPairing::flush_stop(unsigned pad) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lk(m.mu);
  auto it = m.pads.find(pad);
  if (it == m.pads.end()) return;
  Impl::PadState& ps = it->second;
  ps.flushing = false;
  ps.eos = false;
  ps.last_time = kNoTime;
  ps.in = 0;
  ps.ref_seen = 0;
  ps.q.clear();
  ps.bytes = 0;
  ps.ref_late.clear();
  ps.dist_late.clear();
  ps.sync_hold.clear();
  ps.sync_done = !ps.auto_sync;
  ps.sync_running = false;
  ps.applied_offset = ps.offset;
  ps.last_activity = SteadyClock::now();
  ps.seek_seq = m.seek_seq;
  if (pad == kRefPad) {
    m.ref_q.clear();
    m.ref_bytes = 0;
  }
  m.over_ = false;
  if (pad == m.cfg.out_pad) {
    m.out_flushing = false;
    m.out_failed = false;
  }
  m.cv.notify_all();
}

uint64_t StreamPairing::frames_received(unsigned pad) const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  auto it = impl_->pads.find(pad);
  return it == impl_->pads.end() ? 0 : it->second.in;
}

Flow StreamPairing::push_output(OutputItem item) {
  Impl& m = *impl_;
  std::unique_lock<std::mutex> lk(m.mu);
  for (;;) {
    if (m.out_failed) return Flow::error;
    if (m.stopping || m.out_flushing) return Flow::flushing;
    if (item.kind != OutputItem::buffer || !m.out_open || m.out_buffers < m.cfg.output_depth) break;
    m.cv.wait(lk);
  }
  if (item.kind == OutputItem::buffer) m.out_buffers++;
  m.out_q.push_back(std::move(item));
  m.cv.notify_all();
  return Flow::ok;
}

bool StreamPairing::next_output(OutputItem* item, SteadyClock::time_point* hold_deadline, bool* hold_check) {
  Impl& m = *impl_;
  *hold_check = false;
  std::unique_lock<std::mutex> lk(m.mu);
  for (;;) {
    if (m.stopping || m.out_flushing) return false;
    if (m.out_q.empty()) {
      m.cv.wait(lk);
      continue;
    }
    OutputItem& head = m.out_q.front();
    const bool prerolls = head.kind == OutputItem::buffer || head.kind == OutputItem::gap;
    if (!m.out_open && prerolls) {
      const auto now = SteadyClock::now();
      if (m.out_hold_since == SteadyClock::time_point{}) m.out_hold_since = now;
      const auto deadline = m.out_hold_since + m.cfg.preroll_hold;
      if (m.live_locked() || m.failed_ || now >= deadline) {
        m.out_open = true;
        m.cv.notify_all();
        continue;
      }
      bool partner = false;
      for (const auto& [id, ps] : m.pads)
        if (id != m.cfg.out_pad && (ps.had_frame || ps.eos)) partner = true;
      if (!partner) {
        m.cv.wait_until(lk, deadline);
        continue;
      }
      *hold_deadline = deadline;
      *hold_check = true;
      return true;
    }
    *item = std::move(head);
    m.out_q.pop_front();
    if (item->kind == OutputItem::buffer) m.out_buffers--;
    m.cv.notify_all();
    return true;
  }
}

void StreamPairing::open_output() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lk(m.mu);
  m.out_open = true;
  m.cv.notify_all();
}

void StreamPairing::output_failed() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lk(m.mu);
  m.out_failed = true;
  m.cv.notify_all();
}

bool StreamPairing::output_open() const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  return impl_->out_open;
}

bool StreamPairing::next_work(Work* w, SteadyClock::time_point deadline) {
  Impl& m = *impl_;
  std::unique_lock<std::mutex> lk(m.mu);
  for (;;) {
    // Stopping: the first call returns at once (stop() wakes every wait); later ones wait for wake_session() or the
    // deadline, so that the session's loop, which goes on until the element stops it, does not spin meanwhile.
    if (m.stopping && !m.stop_told_session) {
      m.stop_told_session = true;
      return false;
    }
    if (m.session_wake) {
      m.session_wake = false;
      return false;
    }
    if (!m.stopping && !m.work.empty()) {
      *w = std::move(m.work.front());
      m.work.pop_front();
      m.cv.notify_all();
      return true;
    }
    if (deadline == SteadyClock::time_point::max()) {
      m.cv.wait(lk);
    } else if (m.cv.wait_until(lk, deadline) == std::cv_status::timeout) {
      if (m.stopping || m.work.empty()) return false;
    }
  }
}

void StreamPairing::wake_session() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lk(m.mu);
  m.session_wake = true;
  m.cv.notify_all();
}

void StreamPairing::check_timeouts(Report* r, FailureText* failure, SteadyClock::time_point* next) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lk(m.mu);
  *next = SteadyClock::time_point::max();
  if (m.failed_ || m.stopping || m.over_) return;
  const auto now = SteadyClock::now();
  const bool live = m.live_locked();
  const unsigned out = m.cfg.out_pad;
  // Live: after the output ended, frames waiting for a partner get the hold window, then are skipped as late.
  if (live && m.pads.count(out) && m.pads[out].eos) {
    const auto hold = std::chrono::nanoseconds(std::max<Time>(m.cfg.live_hold, 1000000000ull));
    const auto due = m.pads[out].ended_at + std::chrono::duration_cast<SteadyClock::duration>(hold);
    if (now >= due) {
      while (!m.ref_q.empty()) m.drop_oldest(kRefPad, r);
      for (auto& [id, d] : m.pads)
        if (id != kRefPad)
          while (!d.q.empty()) m.drop_oldest(id, r);
      m.check_over();
      return;
    }
    *next = std::min(*next, due);
  }
  // An ended stream and one that neither delivers nor ends.
  SteadyClock::time_point ended{};
  unsigned ended_pad = 0;
  bool any_ended = false;
  for (const auto& [id, ps] : m.pads)
    if (ps.eos && (!any_ended || ps.ended_at < ended)) {
      ended = ps.ended_at;
      ended_pad = id;
      any_ended = true;
    }
  for (auto& [id, ps] : m.pads) {
    if (ps.eos || (id != kRefPad && ps.inactive)) continue;
    // An unlinked pad, while another pad ended or holds frames it waits for, after the link bound.
    bool awaited = any_ended;
    SteadyClock::time_point since = any_ended ? ended : SteadyClock::time_point::max();
    if (id == kRefPad) {
      for (const auto& [did, d] : m.pads)
        if (!d.q.empty()) {
          awaited = true;
          since = std::min(since, d.queued_since);
        }
    } else {
      for (const Impl::RefEntry& e : m.ref_q)
        if (e.needs(id)) {
          awaited = true;
          since = std::min(since, e.at);
        }
    }
    const bool unlinked = awaited && is_linked && !is_linked(id);
    if (!unlinked) ps.awaited_unlinked = {};
    else if (ps.awaited_unlinked == SteadyClock::time_point{}) ps.awaited_unlinked = std::min(since, now);
    if (unlinked && m.cfg.link_bound.count() > 0) {
      // Counted from the first time it was seen waited for (live frames that wait are skipped and replaced).
      const auto due = std::max(ps.awaited_unlinked, m.started_at) + m.cfg.link_bound;
      if (now >= due) {
        failure->kind = 1;
        failure->text = m.name(id, this) + " is not linked (waited " + seconds(m.cfg.link_bound) +
                        " for a link): link every sink pad of vmafxhip";
        failure->detail = (any_ended ? m.name(ended_pad, this) + " ended" : std::string("frames wait for it")) +
                          " and " + m.name(id, this) + " was still not linked " + seconds(m.cfg.link_bound) +
                          " later; a pad linked late (decodebin's, once it knows the stream) is normal within that bound";
        m.failed_ = true;
        m.cv.notify_all();
        return;
      }
      *next = std::min(*next, due);
    }
    if (!live && any_ended && m.cfg.stall_timeout.count() > 0) {
      const auto due = std::max(ended, ps.last_activity) + m.cfg.stall_timeout;
      if (now >= due) {
        failure->kind = 2;
        failure->text = m.name(ended_pad, this) + " ended and " + m.name(id, this) + " has received nothing for " +
                        std::to_string(m.cfg.stall_timeout.count() / 1000) + " s";
        failure->detail = "the other branch neither delivers frames nor ends (stall-timeout sets this wait)";
        m.failed_ = true;
        m.cv.notify_all();
        return;
      }
      *next = std::min(*next, due);
    }
  }
}

void StreamPairing::count_busy(unsigned pad, Time pts, Report* r) {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lk(m.mu);
  m.count({pad, pad, SkipReason::busy, pts}, r);
}

void StreamPairing::finish_output() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lk(m.mu);
  OutputItem eos;
  eos.kind = OutputItem::eos;
  m.out_open = true;  // nothing more to hold for
  m.out_q.push_back(std::move(eos));
  m.cv.notify_all();
}

RenditionCounts StreamPairing::counts(unsigned pad) const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  auto it = impl_->pads.find(pad);
  return it == impl_->pads.end() ? RenditionCounts{} : it->second.counts;
}

std::vector<unsigned> StreamPairing::renditions() const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  std::vector<unsigned> out;
  for (const auto& [id, ps] : impl_->pads)
    if (id != kRefPad && !ps.inactive) out.push_back(id);
  return out;
}

bool StreamPairing::over() const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  return impl_->over_;
}

bool StreamPairing::pad_ended(unsigned pad) const {
  std::lock_guard<std::mutex> lk(impl_->mu);
  auto it = impl_->pads.find(pad);
  return it == impl_->pads.end() || it->second.eos;
}

}  // namespace vmafx::gst
