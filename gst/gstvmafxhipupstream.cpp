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
GstElement* peer_element(GstPad* pad) {
  GstPad* peer = gst_pad_get_peer(pad);
  if (!peer) return nullptr;
  GstElement* e = gst_pad_get_parent_element(peer);
  gst_object_unref(peer);
  return e;
}

// Every element reached from `pad` through peers, going on through each element's sink pads (upstream, `pad` a sink
// pad) or its source pads (downstream, `pad` a source pad), referenced.
std::vector<GstElement*> linked_elements(GstPad* pad, bool upstream) {
  std::vector<GstElement*> found;
  if (GstElement* e = peer_element(pad)) add_unique(&found, e);
  for (size_t i = 0; i < found.size(); i++) {
    GstIterator* it = upstream ? gst_element_iterate_sink_pads(found[i]) : gst_element_iterate_src_pads(found[i]);
    GValue v = G_VALUE_INIT;
    bool done = false;
    while (!done) {
      switch (gst_iterator_next(it, &v)) {
        case GST_ITERATOR_OK:
          if (GstElement* e = peer_element(GST_PAD(g_value_get_object(&v)))) add_unique(&found, e);
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

// An element that adds its source pads once it knows its streams (decodebin, uridecodebin, demuxers).
bool adds_src_pads_later(GstElement* e) {
  for (GList* l = gst_element_class_get_pad_template_list(GST_ELEMENT_GET_CLASS(e)); l; l = l->next) {
    auto* t = GST_PAD_TEMPLATE(l->data);
    if (GST_PAD_TEMPLATE_DIRECTION(t) == GST_PAD_SRC && GST_PAD_TEMPLATE_PRESENCE(t) == GST_PAD_SOMETIMES) return true;
  }
  return false;
}

// The elements of the pipeline around `element` (its outermost bin, recursively) that add source pads later and
// are not downstream of `src_pad`, referenced.
std::vector<GstElement*> pad_adding_elements(GstElement* element, GstPad* src_pad) {
  std::vector<GstElement*> found;
  GstElement* top = GST_ELEMENT(gst_object_ref(element));
  while (GstObject* parent = gst_object_get_parent(GST_OBJECT(top))) {
    if (!GST_IS_BIN(parent)) {
      gst_object_unref(parent);
      break;
    }
    gst_object_unref(top);
    top = GST_ELEMENT(parent);
  }
  if (!GST_IS_BIN(top)) {
    gst_object_unref(top);
    return found;
  }
  std::vector<GstElement*> downstream = linked_elements(src_pad, false);
  GstIterator* it = gst_bin_iterate_recurse(GST_BIN(top));
  GValue v = G_VALUE_INIT;
  bool done = false;
  while (!done) {
    switch (gst_iterator_next(it, &v)) {
      case GST_ITERATOR_OK: {
        auto* e = GST_ELEMENT(g_value_get_object(&v));
        bool below = false;
        for (GstElement* d : downstream)
          below = below || e == d || gst_object_has_as_ancestor(GST_OBJECT(e), GST_OBJECT(d));
        if (!below && e != element && adds_src_pads_later(e)) add_unique(&found, GST_ELEMENT(gst_object_ref(e)));
        g_value_reset(&v);
        break;
      }
      case GST_ITERATOR_RESYNC:
        for (GstElement* e : found) gst_object_unref(e);
        found.clear();
        gst_iterator_resync(it);
        break;
      default: done = true; break;
    }
  }
  g_value_unset(&v);
  gst_iterator_free(it);
  for (GstElement* d : downstream) gst_object_unref(d);
  gst_object_unref(top);
  return found;
}

// Waits until none of what `collect` returns (referenced elements) changes state asynchronously.
bool wait_committed(const std::function<std::vector<GstElement*>()>& collect, gint64 deadline_us,
                    const std::function<bool()>& cancelled) {
  for (;;) {
    std::vector<GstElement*> elements = collect();
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

}  // namespace

bool wait_upstream_committed(GstPad* sink_pad, gint64 deadline_us, const std::function<bool()>& cancelled) {
  return wait_committed([sink_pad] { return linked_elements(sink_pad, true); }, deadline_us, cancelled);
}

bool wait_pad_adders_committed(GstElement* element, GstPad* src_pad, gint64 deadline_us,
                               const std::function<bool()>& cancelled) {
  return wait_committed([element, src_pad] { return pad_adding_elements(element, src_pad); }, deadline_us,
                        cancelled);
}

}  // namespace vmafx::gst
