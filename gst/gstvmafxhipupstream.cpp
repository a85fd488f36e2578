// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhipupstream.h"

#include <algorithm>
#include <vector>

namespace vmafx::gst {

namespace {

constexpr size_t kMaxElements = 64;

void add_unique(std::vector<GstElement*>* v, GstElement* e) {
  if (std::find(v->begin(), v->end(), e) != v->end() || v->size() >= kMaxElements) {
    gst_object_unref(e);
    return;
  }
  v->push_back(e);
}

// The element owning the peer of `pad` (for a ghost pad: its bin), referenced, or null.
GstElement* upstream_of(GstPad* pad) {
  GstPad* peer = gst_pad_get_peer(pad);
  if (!peer) return nullptr;
  GstElement* e = gst_pad_get_parent_element(peer);
  gst_object_unref(peer);
  return e;
}

// Every element upstream of `sink_pad`, referenced.
std::vector<GstElement*> upstream_elements(GstPad* sink_pad) {
  std::vector<GstElement*> found;
  if (GstElement* e = upstream_of(sink_pad)) add_unique(&found, e);
  for (size_t i = 0; i < found.size(); i++) {
    GstIterator* it = gst_element_iterate_sink_pads(found[i]);
    GValue v = G_VALUE_INIT;
    bool done = false;
    while (!done) {
      switch (gst_iterator_next(it, &v)) {
        case GST_ITERATOR_OK:
          if (GstElement* e = upstream_of(GST_PAD(g_value_get_object(&v)))) add_unique(&found, e);
          g_value_reset(&v);
          break;
        case GST_ITERATOR_RESYNC: gst_iterator_resync(it); break;
        default: done = true; break;
      }
    }
    g_value_unset(&v);
    gst_iterator_free(it);
  }
  return found;
}

}  // namespace

bool wait_upstream_committed(GstPad* sink_pad, gint64 deadline_us, const std::function<bool()>& cancelled) {
  for (;;) {
    std::vector<GstElement*> elements = upstream_elements(sink_pad);
    GstElement* pending = nullptr;
    for (GstElement* e : elements) {
      if (!pending && gst_element_get_state(e, nullptr, nullptr, 0) == GST_STATE_CHANGE_ASYNC)
        pending = GST_ELEMENT(gst_object_ref(e));
      gst_object_unref(e);
    }
    if (!pending) return true;
    // Waiting in get_state returns once the element has posted its ASYNC_DONE (GStreamer signals the state
    // change after posting), not merely once its state is set.
    const gint64 left = deadline_us - g_get_monotonic_time();
    if (left > 0 && !cancelled())
      (void)gst_element_get_state(pending, nullptr, nullptr, std::min<gint64>(left, 50000) * GST_USECOND);
    gst_object_unref(pending);
    if (cancelled() || g_get_monotonic_time() >= deadline_us) return false;
  }
}

}  // namespace vmafx::gst
