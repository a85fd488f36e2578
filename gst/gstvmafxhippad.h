// SPDX-License-Identifier: LGPL-2.1-or-later
// The sink pads' frame queues and the pairing of reference and distorted frames (no GStreamer threading here: the
// element calls a Pairer under its own lock).
//
// Each pad keeps the frames that wait for their partner on the other pad. By timestamp (the default), a frame pairs
// with the other pad's frame of the same running time within half a frame; a frame whose time the other pad has
// passed, or that the other pad's end of stream or a gap leaves without a partner, is skipped with its reason; a
// frame is never reused or repeated. By arrival, the n-th frame of one pad pairs with the n-th of the other. Only one
// pad holds waiting frames at a time (whatever arrives on the other pairs with them or passes them).
//
// An offset (dist-offset, auto-sync) leaves out the first |offset| frames of the stream that is ahead and, by
// timestamp, moves the distorted frames' times back by offset frames.
#pragma once

#include <gst/gst.h>

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace vmafx::gst {

enum PadIndex : unsigned { kRefPad = 0, kDistPad = 1 };
const char* pad_role(unsigned pad);  // "reference", "distorted"

enum class SkipReason : unsigned {
  no_reference,   // a distorted frame with no reference frame at its time
  no_distorted,   // a reference frame with no distorted frame at its time
  late,           // live: its partner did not come while the pad could hold it
  busy,           // live: the scorer was still busy with earlier frames
  duplicate,      // the same PTS as the pad's previous frame
  non_monotonic,  // a PTS before the pad's previous frame
  out_of_segment, // outside the pad's segment (no running time)
  offset,         // left out by dist-offset / auto-sync
  renegotiated,   // distorted frames of another size, before dist_sink's upstream renegotiated the reference's
  count_,
};
constexpr unsigned kSkipReasons = unsigned(SkipReason::count_);
const char* skip_reason_field(SkipReason r);  // "skipped-no-reference", ...

using SkipCounts = std::array<uint64_t, kSkipReasons>;

// A frame waiting for its partner. Holds one reference on the buffer (released by the destructor unless taken).
struct PadFrame {
  GstBuffer* buffer = nullptr;
  GstClockTime pts = GST_CLOCK_TIME_NONE;
  GstClockTime duration = GST_CLOCK_TIME_NONE;  // buffer duration, else the caps' frame period
  GstClockTime time = GST_CLOCK_TIME_NONE;      // pairing key: running time (distorted: minus the offset)
  gsize bytes = 0;

  PadFrame() = default;
  PadFrame(PadFrame&& o) noexcept { *this = std::move(o); }
  PadFrame& operator=(PadFrame&& o) noexcept;
  PadFrame(const PadFrame&) = delete;
  PadFrame& operator=(const PadFrame&) = delete;
  ~PadFrame() { reset(); }
  void reset();
};

struct FramePairOut {
  PadFrame ref, dist;
};

struct Skip {
  unsigned pad;
  SkipReason reason;
  GstClockTime pts;
};

class Pairer {
 public:
  void configure(bool by_timestamp, int offset);
  // Forgets every frame (releasing them) and the end of both streams.
  void reset();
  // Forgets one pad's frames and history (a flush on that pad).
  void reset_pad(unsigned pad);

  // A frame on `pad`: pairs it with a waiting frame of the other pad, queues it, or skips it.
  void push(unsigned pad, PadFrame frame, std::vector<FramePairOut>* pairs, std::vector<Skip>* skips);
  // End of stream on `pad`: the other pad's waiting frames have no partner any more.
  void end(unsigned pad, std::vector<Skip>* skips);
  // A gap on `pad` up to `until` (running time): the other pad's frames before it have no partner.
  void gap(unsigned pad, GstClockTime until, std::vector<Skip>* skips);
  // Skips the oldest waiting frame of `pad` (a live pad over its bound).
  void drop_oldest(unsigned pad, SkipReason reason, std::vector<Skip>* skips);

  // No pair can form any more: a pad ended with nothing waiting on it.
  bool over() const;
  bool ended(unsigned pad) const { return eos_[pad]; }
  size_t held_frames(unsigned pad) const { return q_[pad].size(); }
  guint64 held_bytes(unsigned pad) const { return bytes_[pad]; }
  uint64_t frames_in(unsigned pad) const { return in_[pad]; }

 private:
  static GstClockTime tolerance(const PadFrame& a, const PadFrame& b);
  void skip(unsigned pad, PadFrame f, SkipReason r, std::vector<Skip>* skips);
  void pop_front(unsigned pad);
  // A frame that matches a partner already skipped as late is left out without a second count.
  bool consume_tombstone(unsigned pad, const PadFrame& f);

  bool by_timestamp_ = true;
  int offset_ = 0;
  std::array<std::deque<PadFrame>, 2> q_;
  std::array<guint64, 2> bytes_{};
  std::array<bool, 2> eos_{};
  std::array<GstClockTime, 2> last_time_{GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_NONE};
  std::array<uint64_t, 2> in_{};  // frames offered (for the offset and the length report)
  // Times (by timestamp) or a count (by arrival) of frames skipped as late, per pad.
  std::array<std::deque<std::pair<GstClockTime, GstClockTime>>, 2> tombstones_;
};

}  // namespace vmafx::gst
