// SPDX-License-Identifier: LGPL-2.1-or-later
// StreamPairing: the element's scheduling as one object, without GStreamer in its interface, so that every rule is
// unit-tested on its own (tests/gst/test_stream_pairing.cpp). One lock guards everything below.
//
// Pads. Pad 0 is the reference; every other pad is a distorted stream (a rendition): the always pad dist_sink and
// any number of request pads, added and removed at any time. One pad is the output: its frames and serialized events
// go downstream through the output queue, in order, pushed by the element's source task.
//
// Pairing, per rendition. By timestamp (the default) a distorted frame pairs with the reference frame of the same
// running time within half a frame (half the shorter of the two durations; equal times when neither has one). A
// frame whose time the partner stream has passed, or that the partner's end or a gap leaves alone, is skipped and
// counted with its reason; a frame is never repeated, reused or paired with a frame of another time. By arrival, the
// n-th frame of a rendition pairs with the n-th reference frame since the rendition started. A reference frame waits
// while any rendition still needs it, and is shared by every pair it forms. A rendition requested after the
// reference started ("late") starts at its own first frame; the others start with the stream.
//
// Offsets (dist-offset, auto-sync) are per rendition: the first |offset| frames of the stream that is ahead are left
// out (skipped-offset) and, by timestamp, the distorted frames' times move back by offset frames. auto-sync holds the
// first frames of both streams, asks the element for the best offset (SyncSearch, outside the lock; centred on the
// rendition's dist-offset, so the offset found is the whole offset), then pairs what it held.
//
// Flow. Not live: a pad whose queue is full (max_frames, max_bytes) waits for room (backpressure), and so does a pad
// that formed pairs while the scoring queue is full; a waiting pad fails after the stall timeout when the pads it
// waits for receive nothing. A pad that is not linked is normal (decodebin links its pad once it knows the stream):
// it is an error only while the other pads wait for it (frames held, or a stream ended) for longer than the link
// bound, and the error says so. Live: nothing waits; the oldest frame over the bound is skipped as late, and pairs the scorer
// cannot take are left unscored (busy). The output pad never waits for the other pads.
//
// Preroll hold (not live). The output's first buffer (or GAP) and everything after it wait in the output queue until
// some other pad has had a frame or ended, and the element's check that the other pads' upstream elements committed
// their state change, for at most the hold bound (docs/element.md, "Preroll").
//
// The end. Not live: the stream is over when every pad has ended (so every length is known); live: when the output
// has ended and nothing waits for a partner any more (waiting frames get the hold window). A pad whose frames can no
// longer pair (the reference ended with nothing waiting) is answered Flow::eos. The session thread takes the work in
// order: pairs, segment ends (flushing seeks), the stream's end; after the end it queues the output's EOS.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vmafx::gst {

using Time = uint64_t;  // nanoseconds (GstClockTime)
inline constexpr Time kNoTime = ~Time(0);
using SteadyClock = std::chrono::steady_clock;

inline constexpr unsigned kRefPad = 0;
inline constexpr unsigned kDistPad = 1;  // the always pad dist_sink

enum class SkipReason : unsigned {
  no_reference,    // a distorted frame with no reference frame at its time
  no_distorted,    // a reference frame with no distorted frame at its time
  late,            // live: its partner did not come while the pad could hold it
  busy,            // live: the scorer was still busy with earlier frames
  duplicate,       // the same PTS as the pad's previous frame
  non_monotonic,   // a PTS before the pad's previous frame
  out_of_segment,  // outside the pad's segment (no running time)
  offset,          // left out by dist-offset / auto-sync
  count_,
};
inline constexpr unsigned kSkipReasons = unsigned(SkipReason::count_);
const char* skip_reason_field(SkipReason r);  // "skipped-no-reference", ...
const char* skip_reason_name(SkipReason r);   // "no-reference", ...
using SkipCounts = std::array<uint64_t, kSkipReasons>;

enum class Flow { ok, flushing, eos, error };

// A frame as a sink pad received it. `payload` keeps the picture (the buffer); `meta` what a frame message needs of
// it (caps, segment). Both are the element's.
struct Frame {
  Time pts = kNoTime;
  Time duration = kNoTime;  // the buffer's, else the caps' frame period
  Time time = kNoTime;      // pairing key: running time (set by push; by arrival unused)
  uint64_t bytes = 0;
  std::shared_ptr<const void> payload;
  std::shared_ptr<const void> meta;
};

struct Pair {
  unsigned pad = 0;  // the rendition (distorted pad)
  Frame ref, dist;
};

struct Skip {
  unsigned pad = 0;        // whose frame
  unsigned rendition = 0;  // counted for this rendition
  SkipReason reason = SkipReason::no_reference;
  Time pts = kNoTime;
};

// Per-rendition counts (the pooled message, the skip warning).
struct RenditionCounts {
  SkipCounts skips{};
  uint64_t ref_frames = 0;   // reference frames offered to this rendition (since it started)
  uint64_t dist_frames = 0;  // frames its pad received
  uint64_t paired = 0;
  // Frames of each side left unpaired (skipped, or gone with a partner skipped as late): ref_frames = paired +
  // ref_unpaired and dist_frames = paired + dist_unpaired once nothing waits.
  uint64_t ref_unpaired = 0, dist_unpaired = 0;
  bool late_join = false;
  bool cut = false;  // told eos once the reference ended with nothing waiting: dist_frames is what it read by then
  Time first_ref_pts = kNoTime;  // the reference PTS of its first pair
};

// What the session thread takes, in order.
struct Work {
  enum Kind { pair, segment_end, stream_end, pad_end } kind = pair;
  Pair p;  // kind pair; for pad_end p.pad is the rendition that ended (released pad)
  bool scored = true;  // false: live, left for the temporal features only (skipped-busy, counted)
  std::vector<std::pair<unsigned, RenditionCounts>> counts;  // segment_end: every rendition's counts of the segment
};

// An item of the output queue: a buffer, a GAP or another serialized event, or the EOS the end adds.
struct OutputItem {
  enum Kind { buffer, gap, event, eos } kind = buffer;
  std::shared_ptr<void> payload;  // the element's (null for eos)
};

struct PairingConfig {
  bool by_timestamp = true;
  bool force_live = false;
  unsigned out_pad = kRefPad;
  unsigned max_frames = 120;       // a pad holds at most this many frames waiting (not live: backpressure)
  uint64_t max_bytes = 0;          // and at most this many bytes (0: no byte bound), at least one frame
  unsigned max_pending_pairs = 4;  // pairs waiting for the scorer before a pad waits (not live)
  unsigned live_pending_pairs = 2; // live: pairs waiting for the scorer before the oldest is left unscored
  unsigned output_depth = 4;       // output buffers queued before the output pad waits (once the output is open)
  std::chrono::milliseconds stall_timeout{30000};  // 0: none
  std::chrono::milliseconds link_bound{10000};     // an unlinked pad waited for this long is an error
  std::chrono::milliseconds preroll_hold{2000};
  Time live_hold = 0;  // live: how long a frame may wait for its partner after the output ended (hold window)
};

// auto-sync's search: the offset (frames the distorted stream is late by) from the first frames of both streams,
// searched in [centre - window, centre + window]. Returns false when no candidate formed a pair (the offset then
// stays `centre`). Called without the lock.
struct SyncFound {
  int offset = 0;
  double psnr_y = 0;
  unsigned compared = 0;
};
using SyncSearch = std::function<bool(const std::vector<Frame>& ref, const std::vector<Frame>& dist, int centre,
                                      int window, SyncFound* out)>;

// Decisions a call made that the element reports outside the lock.
struct Report {
  std::vector<Skip> skips;
  // auto-sync found an offset for a rendition.
  struct Synced {
    unsigned pad;
    SyncFound found;
    bool ok;
  };
  std::vector<Synced> synced;
  // Live: a reason whose first skip this was (said once per reason and rendition).
  std::vector<std::pair<unsigned, SkipReason>> first_live_skips;
  bool empty() const { return skips.empty() && synced.empty() && first_live_skips.empty(); }
  void append(Report&& o);
};

struct FailureText {
  int kind = 0;  // 0 none, 1 pad not linked, 2 stall
  std::string text, detail;
};

class StreamPairing {
 public:
  StreamPairing();
  ~StreamPairing();
  StreamPairing(const StreamPairing&) = delete;
  StreamPairing& operator=(const StreamPairing&) = delete;

  // The element's view of the pipeline, asked without the lock.
  std::function<bool(unsigned pad)> is_linked;  // whether a sink pad is linked (true when unset)
  std::function<std::string(unsigned pad)> pad_name;
  SyncSearch sync_search;

  // ---- Life cycle (element's state changes) ----
  // READY -> PAUSED: forgets everything; pads keep existing with their settings.
  void start(const PairingConfig& config);
  // PAUSED -> READY (before the pads deactivate): every wait returns Flow::flushing.
  void stop();
  // An error was posted: every wait and push returns Flow::error from now on.
  void fail();
  bool failed() const;

  // ---- Pads ----
  // A distorted pad (id > 0). `offset`: its dist-offset; `auto_sync`: search the offset from the first frames.
  void add_pad(unsigned pad, int offset, bool auto_sync);
  // A released request pad: as if it ended, and gone.
  Report remove_pad(unsigned pad);
  void set_live(unsigned pad, bool live);
  bool live() const;
  // Running-time-changing settings that may change while playing.
  void set_bounds(unsigned max_frames, uint64_t max_bytes, std::chrono::milliseconds stall_timeout);

  // ---- Streaming threads ----
  // A frame on `pad`: pairs it, queues it or skips it. For the output pad, the element queues the output buffer
  // first (push_output). The pairs go to the session thread's work queue.
  Flow push(unsigned pad, Frame frame, Report* report);
  // A frame that carries no picture (a GAP buffer) or a GAP event: time up to `until` passes on `pad`.
  Flow gap(unsigned pad, Time until, Report* report);
  // A frame left out before pairing (out of segment): counted.
  Flow skip_unpaired(unsigned pad, SkipReason reason, Time pts, Report* report);
  // After push/gap: waits while the pad may not go on (not live: its queue or the scoring queue is full).
  Flow wait_for_room(unsigned pad, Report* report, FailureText* failure);
  // End of stream on `pad`.
  Flow end(unsigned pad, Report* report);
  // Flushing: FLUSH_START on a pad. `seqnum`: the event's; the first flush-start of a seek ends the segment (true
  // returned: the session ends its segment). Wakes the pad's waits.
  bool flush_start(unsigned pad, uint32_t seqnum);
  void flush_stop(unsigned pad);
  uint64_t frames_received(unsigned pad) const;

  // ---- Output (the output pad's thread queues; the source task pops) ----
  // Queues an item behind what is queued. Buffers wait for room once the output is open.
  Flow push_output(OutputItem item);
  // The source task: waits for the next item to push. Returns false when the task should pause (flushing, stopped).
  // *hold_deadline is set (and no item returned) when the head is held for the preroll and the element should check
  // the upstream state until that deadline, then call open_output().
  bool next_output(OutputItem* item, SteadyClock::time_point* hold_deadline, bool* hold_check);
  void open_output();
  // The output's downstream refused a push (not-linked, error...): the output pad's thread gets Flow::error.
  void output_failed();
  bool output_open() const;

  // ---- The session thread ----
  // Waits until `deadline` for work. False on timeout (then check_timeouts), stop or flush of everything. After
  // stop() the first call returns false at once and later ones wait for wake_session() or the deadline: no work is
  // handed out while stopping, and a session that calls it in a loop until it is stopped does not spin.
  bool next_work(Work* work, SteadyClock::time_point deadline);
  // Makes a next_work() waiting now (or the next one) return false at once (the session is stopping).
  void wake_session();
  // Time rules outside the streaming threads: the stall of a stream after another ended, an unlinked pad in PLAYING,
  // live frames waiting past the hold after the output ended. The earliest time something may change is returned in
  // *next (or time_point::max()).
  void check_timeouts(Report* report, FailureText* failure, SteadyClock::time_point* next);
  // Live: a pair the scorer could not take (counted busy for its rendition).
  void count_busy(unsigned pad, Time pts, Report* report);
  // The session finished the stream's end: the output's EOS goes behind what is queued.
  void finish_output();

  // ---- Counters ----
  RenditionCounts counts(unsigned pad) const;
  std::vector<unsigned> renditions() const;  // the distorted pads, in id order
  bool over() const;
  bool pad_ended(unsigned pad) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vmafx::gst
