// SPDX-License-Identifier: LGPL-2.1-or-later
// What the element's sink pads carry into the scheduling: the distorted pads' GObject type (dist_sink and
// dist_sink_%u, each with a dist-offset of its own), and a frame's payloads for StreamPairing — the buffer, and the
// caps and segment its pad had when it arrived (a frame is always read with its own caps).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "stream_pairing.h"
#include "vmafx/picture.h"

namespace vmafx::gst {

// GstVmafxhipDistPad: a GstPad with a "dist-offset" property (G_MININT, the default, means the element's).
GType dist_pad_get_type();
inline constexpr int kInheritOffset = G_MININT;
int dist_pad_offset(GstPad* pad, int element_offset);

// The caps and segment of a pad from one caps or segment event to the next: shared by every frame that arrived
// under them.
struct PadEpoch {
  GstCaps* caps = nullptr;
  GstVideoInfo info;
  VideoGeometry geometry;
  GstSegment segment;
  PadEpoch();
  PadEpoch(const PadEpoch& o);
  PadEpoch& operator=(const PadEpoch&) = delete;
  ~PadEpoch();
};

// A frame's buffer (one reference, released with the last holder).
struct BufferHold {
  GstBuffer* buf;
  explicit BufferHold(GstBuffer* b) : buf(b) {}
  ~BufferHold() { gst_buffer_unref(buf); }
  BufferHold(const BufferHold&) = delete;
  BufferHold& operator=(const BufferHold&) = delete;
};

inline const PadEpoch& epoch_of(const Frame& f) { return *static_cast<const PadEpoch*>(f.meta.get()); }
inline GstBuffer* buffer_of(const Frame& f) { return static_cast<const BufferHold*>(f.payload.get())->buf; }

// The frame period of caps with a frame rate (GST_CLOCK_TIME_NONE without one).
GstClockTime frame_period(const GstVideoInfo& info);

}  // namespace vmafx::gst
