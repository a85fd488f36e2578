// SPDX-License-Identifier: LGPL-2.1-or-later
// Sink pad of vmafxhip (ref_sink, dist_sink). It replaces GstVideoAggregatorPad's frame preparation with nothing:
// the base class would map every buffer for reading, while the element imports only what the engine reads (and,
// for GPU memory, must never CPU-map it). It also counts the buffers that arrive, for the end-of-stream report.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_VMAFXHIP_PAD (gst_vmafxhip_pad_get_type())
G_DECLARE_FINAL_TYPE(GstVmafxhipPad, gst_vmafxhip_pad, GST, VMAFXHIP_PAD, GstVideoAggregatorPad)

// Buffers that reached the pad since start or the last flush (FLUSH_STOP resets the count).
guint64 gst_vmafxhip_pad_get_buffers_received(GstVmafxhipPad* pad);
void gst_vmafxhip_pad_reset_buffers_received(GstVmafxhipPad* pad);

G_END_DECLS
