// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhippad.h"

#include <algorithm>

namespace vmafx::gst {

namespace {
constexpr size_t kMaxTombstones = 4096;
}

const char* pad_role(unsigned pad) { return pad == kRefPad ? "reference" : "distorted"; }

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
    case SkipReason::renegotiated: return "skipped-renegotiated";
    case SkipReason::count_: break;
  }
  return "skipped-?";
}

PadFrame& PadFrame::operator=(PadFrame&& o) noexcept {
  if (this != &o) {
    reset();
    buffer = o.buffer;
    pts = o.pts;
    duration = o.duration;
    time = o.time;
    bytes = o.bytes;
    o.buffer = nullptr;
  }
  return *this;
}

void PadFrame::reset() {
  if (buffer) gst_buffer_unref(buffer);
  buffer = nullptr;
}

void Pairer::configure(bool by_timestamp, int offset) {
  by_timestamp_ = by_timestamp;
  offset_ = offset;
}

void Pairer::reset() {
  reset_pad(kRefPad);
  reset_pad(kDistPad);
}

void Pairer::reset_pad(unsigned pad) {
  q_[pad].clear();
  bytes_[pad] = 0;
  eos_[pad] = false;
  last_time_[pad] = GST_CLOCK_TIME_NONE;
  in_[pad] = 0;
  tombstones_[pad].clear();
}

GstClockTime Pairer::tolerance(const PadFrame& a, const PadFrame& b) {
  GstClockTime d = GST_CLOCK_TIME_NONE;
  for (GstClockTime x : {a.duration, b.duration})
    if (GST_CLOCK_TIME_IS_VALID(x) && x > 0 && (!GST_CLOCK_TIME_IS_VALID(d) || x < d)) d = x;
  // Without any duration only equal times pair.
  return GST_CLOCK_TIME_IS_VALID(d) ? d / 2 : 1;
}

void Pairer::skip(unsigned pad, PadFrame f, SkipReason r, std::vector<Skip>* skips) {
  if (r == SkipReason::late && tombstones_[pad].size() < kMaxTombstones)
    tombstones_[pad].emplace_back(f.time, f.duration);
  skips->push_back({pad, r, f.pts});
}

void Pairer::pop_front(unsigned pad) {
  bytes_[pad] -= std::min(bytes_[pad], guint64(q_[pad].front().bytes));
  q_[pad].pop_front();
}

bool Pairer::consume_tombstone(unsigned pad, const PadFrame& f) {
  const unsigned o = 1 - pad;
  auto& t = tombstones_[o];
  if (t.empty()) return false;
  if (!by_timestamp_) {
    t.pop_front();
    return true;
  }
  PadFrame probe;
  while (!t.empty()) {
    probe.time = t.front().first;
    probe.duration = t.front().second;
    const GstClockTime tol = tolerance(probe, f);
    if (probe.time + tol <= f.time) {
      t.pop_front();  // older than this frame: its partner will not come any more
      continue;
    }
    if (probe.time < f.time + tol) {
      t.pop_front();
      return true;
    }
    return false;
  }
  return false;
}

void Pairer::push(unsigned pad, PadFrame f, std::vector<FramePairOut>* pairs, std::vector<Skip>* skips) {
  const unsigned o = 1 - pad;
  const uint64_t n = in_[pad]++;
  // The first |offset| frames of the stream that is ahead have no partner.
  const unsigned leading = offset_ > 0 ? kDistPad : kRefPad;
  if (offset_ != 0 && pad == leading && n < uint64_t(offset_ > 0 ? offset_ : -int64_t(offset_))) {
    skip(pad, std::move(f), SkipReason::offset, skips);
    return;
  }
  if (by_timestamp_) {
    if (pad == kDistPad && offset_ != 0) {
      // Distorted times move back by `offset` frames.
      const GstClockTime d = GST_CLOCK_TIME_IS_VALID(f.duration) ? f.duration : 0;
      const int64_t shift = int64_t(offset_) * int64_t(d);
      if (shift > 0 && GstClockTime(shift) > f.time) {
        skip(pad, std::move(f), SkipReason::offset, skips);
        return;
      }
      f.time = GstClockTime(int64_t(f.time) - shift);
    }
    if (GST_CLOCK_TIME_IS_VALID(last_time_[pad]) && f.time <= last_time_[pad]) {
      skip(pad, std::move(f), f.time == last_time_[pad] ? SkipReason::duplicate : SkipReason::non_monotonic, skips);
      return;
    }
    last_time_[pad] = f.time;
    // The partner was skipped as late: this frame goes with it, counted once.
    if (consume_tombstone(pad, f)) return;
    auto& other = q_[o];
    const SkipReason no_partner_of_other = pad == kRefPad ? SkipReason::no_reference : SkipReason::no_distorted;
    const SkipReason no_partner = pad == kRefPad ? SkipReason::no_distorted : SkipReason::no_reference;
    // The other pad's frames this frame has passed have no partner.
    while (!other.empty() && other.front().time + tolerance(other.front(), f) <= f.time) {
      PadFrame old = std::move(other.front());
      pop_front(o);
      skip(o, std::move(old), no_partner_of_other, skips);
    }
    if (!other.empty()) {
      if (other.front().time < f.time + tolerance(other.front(), f)) {
        FramePairOut p;
        p.ref = pad == kRefPad ? std::move(f) : std::move(other.front());
        p.dist = pad == kRefPad ? std::move(other.front()) : std::move(f);
        pop_front(o);
        pairs->push_back(std::move(p));
      } else {
        skip(pad, std::move(f), no_partner, skips);  // the other pad is past this time
      }
      return;
    }
    // Nothing waits on the other pad: it ended, it is past this time, or its frame is still to come.
    if (eos_[o]) {
      skip(pad, std::move(f), no_partner, skips);
      return;
    }
    if (GST_CLOCK_TIME_IS_VALID(last_time_[o])) {
      PadFrame probe;
      probe.time = last_time_[o];
      if (f.time + tolerance(probe, f) <= last_time_[o]) {
        skip(pad, std::move(f), no_partner, skips);
        return;
      }
    }
    bytes_[pad] += f.bytes;
    q_[pad].push_back(std::move(f));
    return;
  }
  // By arrival.
  if (consume_tombstone(pad, f)) return;
  auto& other = q_[o];
  if (!other.empty()) {
    FramePairOut p;
    p.ref = pad == kRefPad ? std::move(f) : std::move(other.front());
    p.dist = pad == kRefPad ? std::move(other.front()) : std::move(f);
    pop_front(o);
    pairs->push_back(std::move(p));
    return;
  }
  if (eos_[o]) {
    skip(pad, std::move(f), pad == kRefPad ? SkipReason::no_distorted : SkipReason::no_reference, skips);
    return;
  }
  bytes_[pad] += f.bytes;
  q_[pad].push_back(std::move(f));
}

void Pairer::end(unsigned pad, std::vector<Skip>* skips) {
  eos_[pad] = true;
  const unsigned o = 1 - pad;
  const SkipReason r = pad == kRefPad ? SkipReason::no_reference : SkipReason::no_distorted;
  while (!q_[o].empty()) {
    PadFrame f = std::move(q_[o].front());
    pop_front(o);
    skip(o, std::move(f), r, skips);
  }
}

void Pairer::gap(unsigned pad, GstClockTime until, std::vector<Skip>* skips) {
  if (!by_timestamp_ || !GST_CLOCK_TIME_IS_VALID(until)) return;
  const unsigned o = 1 - pad;
  const SkipReason r = pad == kRefPad ? SkipReason::no_reference : SkipReason::no_distorted;
  while (!q_[o].empty() && q_[o].front().time < until) {
    PadFrame f = std::move(q_[o].front());
    pop_front(o);
    skip(o, std::move(f), r, skips);
  }
  if (!GST_CLOCK_TIME_IS_VALID(last_time_[pad]) || until > last_time_[pad]) last_time_[pad] = until - 1;
}

void Pairer::drop_oldest(unsigned pad, SkipReason reason, std::vector<Skip>* skips) {
  if (q_[pad].empty()) return;
  PadFrame f = std::move(q_[pad].front());
  pop_front(pad);
  skip(pad, std::move(f), reason, skips);
}

bool Pairer::over() const {
  return (eos_[kRefPad] && q_[kRefPad].empty()) || (eos_[kDistPad] && q_[kDistPad].empty());
}

}  // namespace vmafx::gst
