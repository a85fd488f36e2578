// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhippad.h"

struct _GstVmafxhipPad {
  GstVideoAggregatorPad parent;
  guint64 buffers_received;  // atomic: written by the upstream streaming thread
  gulong probe_id;
};

G_DEFINE_TYPE(GstVmafxhipPad, gst_vmafxhip_pad, GST_TYPE_VIDEO_AGGREGATOR_PAD)

namespace {

gboolean prepare_nothing(GstVideoAggregatorPad*, GstVideoAggregator*, GstBuffer*, GstVideoFrame*) { return TRUE; }
void clean_nothing(GstVideoAggregatorPad*, GstVideoAggregator*, GstVideoFrame*) {}

GstPadProbeReturn count_buffers(GstPad* pad, GstPadProbeInfo* info, gpointer) {
  auto* self = GST_VMAFXHIP_PAD(pad);
  if (info->type & GST_PAD_PROBE_TYPE_EVENT_FLUSH) {
    // A flush starts a new count (before any buffer of the new segment reaches this pad).
    if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) == GST_EVENT_FLUSH_STOP)
      __atomic_store_n(&self->buffers_received, guint64(0), __ATOMIC_RELAXED);
    return GST_PAD_PROBE_OK;
  }
  guint n = 0;
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) n = 1;
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) n = gst_buffer_list_length(GST_PAD_PROBE_INFO_BUFFER_LIST(info));
  // 64-bit atomics: GLib has none for guint64 on every target, a GCC builtin does.
  __atomic_add_fetch(&self->buffers_received, guint64(n), __ATOMIC_RELAXED);
  return GST_PAD_PROBE_OK;
}

void pad_constructed(GObject* object) {
  G_OBJECT_CLASS(gst_vmafxhip_pad_parent_class)->constructed(object);
  auto* self = GST_VMAFXHIP_PAD(object);
  self->probe_id = gst_pad_add_probe(GST_PAD(object),
                                     GstPadProbeType(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST |
                                                     GST_PAD_PROBE_TYPE_EVENT_FLUSH),
                                     count_buffers, nullptr, nullptr);
}

}  // namespace

static void gst_vmafxhip_pad_class_init(GstVmafxhipPadClass* klass) {
  auto* vpad_class = GST_VIDEO_AGGREGATOR_PAD_CLASS(klass);
  vpad_class->prepare_frame = prepare_nothing;
  vpad_class->clean_frame = clean_nothing;
  G_OBJECT_CLASS(klass)->constructed = pad_constructed;
}

static void gst_vmafxhip_pad_init(GstVmafxhipPad* self) {
  self->buffers_received = 0;
  self->probe_id = 0;
}

guint64 gst_vmafxhip_pad_get_buffers_received(GstVmafxhipPad* pad) {
  return __atomic_load_n(&pad->buffers_received, __ATOMIC_RELAXED);
}

void gst_vmafxhip_pad_reset_buffers_received(GstVmafxhipPad* pad) {
  __atomic_store_n(&pad->buffers_received, guint64(0), __ATOMIC_RELAXED);
}
