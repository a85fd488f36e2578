// SPDX-License-Identifier: LGPL-2.1-or-later
// What lies upstream of a sink pad: the elements still committing an asynchronous state change.
//
// Why the element asks: GStreamer 1.22's GstBin records that it posted PLAYING only after the message has been
// delivered, in the thread that posts it. When the pipeline's last ASYNC_DONE comes from a streaming thread that the
// PAUSED -> PLAYING change does not wait for (decodebin's, once the sink prerolled earlier), an application that
// sets PLAYING on the PAUSED state-changed message (gst-launch-1.0 does) can complete PLAYING in between; the late
// "not playing" then stands and the pipeline never forwards its sinks' EOS. It happens without vmafxhip
// (`videotestsrc ! fakesink  filesrc ! decodebin ! fakesink async=false` hangs in gst-launch-1.0 about one run in
// four on a loaded machine). vmafxhip would make it likely, because its src passes the reference on at once, so the
// sink prerolls before decodebin on the distorted branch is done; the element therefore lets its first output
// through only once the other pad's upstream has committed its state (docs/element.md, "Preroll").
#pragma once

#include <gst/gst.h>

#include <functional>

namespace vmafx::gst {

// Waits until no element upstream of `sink_pad` (followed through peers and ghost pads, at most 64 elements) is
// changing state asynchronously, until `deadline_us` (g_get_monotonic_time) or until `cancelled` returns true;
// polls every 50 ms. True when nothing was pending any more.
bool wait_upstream_committed(GstPad* sink_pad, gint64 deadline_us, const std::function<bool()>& cancelled);

// The same for the elements of the whole pipeline around `element` that add source pads once they know their
// streams (decodebin, uridecodebin: a sometimes source pad template) and are not downstream of `src_pad`: a
// decodebin whose stream will be linked to a request pad of the element has no link to it yet, so the pads' peers
// do not lead to it. Its ASYNC_DONE comes once it exposed its pads.
bool wait_pad_adders_committed(GstElement* element, GstPad* src_pad, gint64 deadline_us,
                               const std::function<bool()>& cancelled);

}  // namespace vmafx::gst
