// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * SECTION:element-vmafxhip
 * @title: vmafxhip
 *
 * Scores distorted video streams (dist_sink, and any number of request pads dist_sink_%u: an encoding ladder)
 * against their reference (ref_sink) with Netflix's VMAF, and optionally PSNR, SSIM, MS-SSIM and the other libvmaf
 * features, giving libvmaf's numbers. src passes the reference through unchanged (output=distorted: dist_sink's
 * stream), so the element can sit inline, also behind a live source. Frames are paired by running time (or by
 * arrival, pairing=arrival); a frame without its partner is skipped and counted, never paired with another. With
 * frame-message=true every scored frame gets an element message named "VMAF" (type=frame); at the end of the stream
 * (and at a flushing seek) a type=pooled message per distorted pad follows and the results files (libvmaf's json,
 * xml, csv or sub layout) are written. Properties, messages and examples: docs/element.md.
 *
 * |[
 * gst-launch-1.0 -m \
 *   filesrc location=ref.yuv ! rawvideoparse width=576 height=324 format=i420 ! v.ref_sink \
 *   filesrc location=dist.yuv ! rawvideoparse width=576 height=324 format=i420 ! v.dist_sink \
 *   vmafxhip name=v frame-message=true psnr=true results-filename=scores.json ! fakesink
 * ]|
 */
#include "gstvmafxhipelement.h"

#include <algorithm>

#include "gstvmafxhipconfig.h"
#include "gstvmafxhipgl.h"
#include "gstvmafxhipupstream.h"

GST_DEBUG_CATEGORY(gst_vmafxhip_debug);
#define GST_CAT_DEFAULT gst_vmafxhip_debug

#define gst_vmafxhip_parent_class parent_class
G_DEFINE_TYPE(GstVmafxhip, gst_vmafxhip, GST_TYPE_ELEMENT)
GST_ELEMENT_REGISTER_DEFINE(vmafxhip, "vmafxhip", GST_RANK_NONE, GST_TYPE_VMAFXHIP)

namespace {

using namespace vmafx::gst::element;

GQuark pad_id_quark() {
  static GQuark q = g_quark_from_static_string("vmafxhip-pad-id");
  return q;
}
unsigned pad_id(GstPad* pad) { return GPOINTER_TO_UINT(g_object_get_qdata(G_OBJECT(pad), pad_id_quark())) - 1; }

// ---------------------------------------------------------------------------------------------------------------
// The output: the source task pushes what the output pad queued, in order, after the preroll hold.

void src_loop(GstVmafxhip* self) {
  ElementState& s = state(self);
  vg::OutputItem item;
  vg::SteadyClock::time_point deadline;
  bool check = false;
  if (!s.pairing.next_output(&item, &deadline, &check)) {
    gst_pad_pause_task(self->src);
    return;
  }
  if (check) {
    // The other pads' upstream elements commit their state change first (gstvmafxhipupstream.h says why).
    const gint64 until =
        g_get_monotonic_time() +
        std::chrono::duration_cast<std::chrono::microseconds>(deadline - vg::SteadyClock::now()).count();
    std::vector<GstPad*> others;
    {
      std::lock_guard<std::mutex> lk(s.mu);
      for (auto& [id, p] : s.pads)
        if (id != s.out_pad) others.push_back(GST_PAD(gst_object_ref(p.pad)));
    }
    bool committed = true;
    for (GstPad* p : others) {
      committed = vg::wait_upstream_committed(p, until, [&s] { return s.failed.load() || s.pairing.failed(); }) &&
                  committed;
      gst_object_unref(p);
    }
    committed = vg::wait_pad_adders_committed(GST_ELEMENT(self), self->src, until,
                                              [&s] { return s.failed.load() || s.pairing.failed(); }) &&
                committed;
    GST_DEBUG_OBJECT(self, "preroll: the other pads' upstream and the pipeline's decoding bins %s",
                     committed ? "committed its state" : "still changes state; the output opens anyway");
    s.pairing.open_output();
    return;
  }
  GstFlowReturn flow = GST_FLOW_OK;
  auto* obj = static_cast<GstMiniObject*>(item.payload.get());
  switch (item.kind) {
    case vg::OutputItem::buffer: flow = gst_pad_push(self->src, GST_BUFFER(gst_mini_object_ref(obj))); break;
    case vg::OutputItem::gap:
    case vg::OutputItem::event:
      if (!gst_pad_push_event(self->src, GST_EVENT(gst_mini_object_ref(obj))))
        GST_DEBUG_OBJECT(self, "a %s event was refused downstream", GST_EVENT_TYPE_NAME(obj));
      break;
    case vg::OutputItem::eos: gst_pad_push_event(self->src, gst_event_new_eos()); break;
  }
  if (flow == GST_FLOW_OK) return;
  if (flow == GST_FLOW_FLUSHING) {
    gst_pad_pause_task(self->src);
    return;
  }
  GST_DEBUG_OBJECT(self, "output: %s", gst_flow_get_name(flow));
  s.out_flow = flow;
  s.pairing.output_failed();  // the output pad's next buffer returns it upstream
  // Not linked or an error downstream: said here, as GStreamer's aggregators say it from their source task (an
  // upstream that is not told — a tee whose other branch is fine — would otherwise go on without an error).
  if ((flow == GST_FLOW_NOT_LINKED || flow < GST_FLOW_EOS) && !s.error_claimed.exchange(true)) {
    GST_ELEMENT_FLOW_ERROR(self, flow);  // before the pads fail: the cause reaches the bus first
    s.failed = true;
    s.pairing.fail();
  }
  gst_pad_pause_task(self->src);
}

gboolean src_activate_mode(GstPad* pad, GstObject* parent, GstPadMode mode, gboolean active) {
  auto* self = GST_VMAFXHIP(parent);
  if (mode != GST_PAD_MODE_PUSH) return FALSE;
  if (active) return gst_pad_start_task(pad, GstTaskFunction(src_loop), self, nullptr);
  state(self).pairing.stop();  // wakes the task
  return gst_pad_stop_task(pad);
}

vg::OutputItem output_item(vg::OutputItem::Kind kind, GstMiniObject* obj) {
  vg::OutputItem it;
  it.kind = kind;
  it.payload = std::shared_ptr<void>(obj, [](void* o) { gst_mini_object_unref(GST_MINI_OBJECT(o)); });
  return it;
}

GstFlowReturn to_flow(GstVmafxhip* self, vg::Flow f) {
  switch (f) {
    case vg::Flow::ok: return GST_FLOW_OK;
    case vg::Flow::flushing: return GST_FLOW_FLUSHING;
    case vg::Flow::eos: return GST_FLOW_EOS;
    case vg::Flow::error: break;
  }
  const GstFlowReturn out = state(self).out_flow;
  return out != GST_FLOW_OK ? out : GST_FLOW_ERROR;
}

// ---------------------------------------------------------------------------------------------------------------
// Sink pads

// Upstream latency of a sink pad (live or not), asked once per pad.
void learn_liveness(GstVmafxhip* self, unsigned id, GstPad* pad) {
  ElementState& s = state(self);
  {
    std::lock_guard<std::mutex> lk(s.mu);
    auto it = s.pads.find(id);
    if (it == s.pads.end() || it->second.live_known) return;
    it->second.live_known = true;
  }
  GstQuery* q = gst_query_new_latency();
  gboolean live = FALSE;
  if (gst_pad_peer_query(pad, q)) gst_query_parse_latency(q, &live, nullptr, nullptr);
  gst_query_unref(q);
  s.pairing.set_live(id, live);
  GST_DEBUG_OBJECT(self, "%s: upstream %s", pad_name(self, id).c_str(), live ? "live" : "not live");
}

void fail_with(GstVmafxhip* self, const vg::FailureText& f) {
  if (!f.kind) return;
  const vg::ErrorCode code = f.kind == 1 ? vg::ErrorCode{GST_CORE_ERROR, GST_CORE_ERROR_PAD}
                                         : vg::ErrorCode{GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED};
  VMAFXHIP_ERROR(self, code, f.text, f.detail);
}

GstFlowReturn sink_chain(GstPad* pad, GstObject* parent, GstBuffer* buf) {
  auto* self = GST_VMAFXHIP(parent);
  ElementState& s = state(self);
  const unsigned id = pad_id(pad);
  if (s.failed) {
    gst_buffer_unref(buf);
    return to_flow(self, vg::Flow::error);
  }
  learn_liveness(self, id, pad);
  std::shared_ptr<const PadEpoch> epoch;
  bool output, by_timestamp;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    epoch = s.pads.count(id) ? s.pads[id].epoch : nullptr;
    output = id == s.out_pad;
    by_timestamp = s.active.pairing == vg::PAIRING_TIMESTAMP;
    if (output && GST_BUFFER_PTS_IS_VALID(buf))
      s.last_output_end = GST_BUFFER_PTS(buf) + (GST_BUFFER_DURATION_IS_VALID(buf) ? GST_BUFFER_DURATION(buf) : 0);
  }
  if (!epoch || !epoch->caps) {
    gst_buffer_unref(buf);
    VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION}),
                   pad_name(self, id) + " received a buffer before its caps", "");
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (output) {
    // The output goes on at once, in order, before any scoring work on this frame.
    const vg::Flow f = s.pairing.push_output(output_item(vg::OutputItem::buffer, GST_MINI_OBJECT(gst_buffer_ref(buf))));
    if (f != vg::Flow::ok) {
      gst_buffer_unref(buf);
      return to_flow(self, f);
    }
  }
  vg::Frame fr;
  fr.pts = GST_BUFFER_PTS(buf);
  fr.duration = GST_BUFFER_DURATION_IS_VALID(buf) ? GST_BUFFER_DURATION(buf) : frame_period(epoch->info);
  fr.bytes = gst_buffer_get_size(buf);
  vg::Report rep;
  vg::Flow f = vg::Flow::ok;
  if (by_timestamp && !GST_CLOCK_TIME_IS_VALID(fr.pts)) {
    gst_buffer_unref(buf);
    VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT}),
                   pad_name(self, id) + " received a buffer without a timestamp (PTS)",
                   "pairing=timestamp pairs the frames of the same running time; set pairing=arrival to pair the "
                   "n-th buffer of each pad whatever its timestamp");
    return GST_FLOW_ERROR;
  }
  if (by_timestamp) fr.time = gst_segment_to_running_time(&epoch->segment, GST_FORMAT_TIME, fr.pts);
  const bool gap = GST_BUFFER_FLAG_IS_SET(buf, GST_BUFFER_FLAG_GAP) && fr.bytes == 0;
  if (by_timestamp && !GST_CLOCK_TIME_IS_VALID(fr.time)) {
    gst_buffer_unref(buf);
    f = s.pairing.skip_unpaired(id, SkipReason::out_of_segment, fr.pts, &rep);
  } else if (gap) {
    // A gap buffer holds no picture: the time passes without a frame.
    gst_buffer_unref(buf);
    if (by_timestamp) f = s.pairing.gap(id, fr.time + (GST_CLOCK_TIME_IS_VALID(fr.duration) ? fr.duration : 0), &rep);
  } else {
    fr.payload = std::make_shared<BufferHold>(buf);
    fr.meta = epoch;
    f = s.pairing.push(id, std::move(fr), &rep);
  }
  vg::FailureText failure;
  if (f == vg::Flow::ok) f = s.pairing.wait_for_room(id, &rep, &failure);
  report(self, std::move(rep));
  fail_with(self, failure);
  if (output && f == vg::Flow::eos) f = vg::Flow::ok;  // the output stream goes on downstream
  return to_flow(self, f);
}

// A pad's new caps: checked, made into the epoch its frames carry from now on, and checked against the reference's
// (every distorted pad's, for the reference's own). False after posting the error.
bool handle_caps(GstVmafxhip* self, unsigned id, GstCaps* caps) {
  ElementState& s = state(self);
  const std::string name = pad_name(self, id);
  vg::CapsProblem problem;
  std::shared_ptr<PadEpoch> e;
  std::shared_ptr<const PadEpoch> previous, ref;
  std::vector<std::pair<std::string, std::shared_ptr<const PadEpoch>>> dists;
  bool by_timestamp;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (s.pads.count(id)) previous = s.pads[id].epoch;
  }
  if (!vg::epoch_from_caps(caps, name, previous.get(), &e, &problem)) {
    VMAFXHIP_ERROR(self, problem.code, problem.text, problem.debug);
    return false;
  }
  {
    std::lock_guard<std::mutex> lk(s.mu);
    auto it = s.pads.find(id);
    if (it == s.pads.end()) return false;
    it->second.epoch = e;  // frames before the change keep their own epoch
    ref = s.pads[kRefPad].epoch;
    for (auto& [pid, p] : s.pads)
      if (pid != kRefPad && (id == kRefPad || pid == id) && p.epoch) dists.emplace_back(p.name, p.epoch);
    by_timestamp = s.active.pairing == vg::PAIRING_TIMESTAMP;
  }
  if (!ref) return true;
  for (const auto& [dname, d] : dists) {
    std::string note, debug;
    if (!vg::check_pair_caps(*ref, *d, dname, by_timestamp, &problem, &note, &debug)) {
      VMAFXHIP_ERROR(self, problem.code, problem.text, problem.debug);
      return false;
    }
    if (!note.empty()) post_notice(self, false, note, debug);
  }
  return true;
}

void set_segment(ElementState& s, unsigned id, const GstSegment* seg) {
  std::lock_guard<std::mutex> lk(s.mu);
  auto it = s.pads.find(id);
  if (it == s.pads.end()) return;
  auto e = it->second.epoch ? std::make_shared<PadEpoch>(*it->second.epoch) : std::make_shared<PadEpoch>();
  gst_segment_copy_into(seg, &e->segment);
  it->second.epoch = e;
}

gboolean sink_event(GstPad* pad, GstObject* parent, GstEvent* event) {
  auto* self = GST_VMAFXHIP(parent);
  ElementState& s = state(self);
  const unsigned id = pad_id(pad);
  bool output;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    output = id == s.out_pad;
  }
  vg::gl_sink_event(GST_ELEMENT(self), event);  // GL caps: find the GL display / application context
  vg::cuda_sink_event(GST_ELEMENT(self), pad, event, cuda_settings(self));  // CUDA caps: find or make a context
  auto forward = [&](vg::OutputItem::Kind kind) -> gboolean {
    if (!output) {
      gst_event_unref(event);
      return TRUE;
    }
    return s.pairing.push_output(output_item(kind, GST_MINI_OBJECT(event))) == vg::Flow::ok;
  };
  vg::Report rep;
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_CAPS: {
      GstCaps* caps = nullptr;
      gst_event_parse_caps(event, &caps);
      learn_liveness(self, id, pad);
      if (!handle_caps(self, id, caps)) {
        gst_event_unref(event);
        return FALSE;
      }
      return forward(vg::OutputItem::event);  // the output passes through unchanged: its caps go on as they came
    }
    case GST_EVENT_SEGMENT: {
      const GstSegment* seg = nullptr;
      gst_event_parse_segment(event, &seg);
      if (seg->format != GST_FORMAT_TIME) {
        VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT}),
                       pad_name(self, id) + " received a " + gst_format_get_name(seg->format) +
                           " segment; video is paired in TIME",
                       "");
        gst_event_unref(event);
        return FALSE;
      }
      set_segment(s, id, seg);
      return forward(vg::OutputItem::event);
    }
    case GST_EVENT_GAP: {
      GstClockTime ts, dur;
      gst_event_parse_gap(event, &ts, &dur);
      GstClockTime end = GST_CLOCK_TIME_NONE;
      {
        std::lock_guard<std::mutex> lk(s.mu);
        if (GST_CLOCK_TIME_IS_VALID(ts) && s.pads[id].epoch)
          end = gst_segment_to_running_time(&s.pads[id].epoch->segment, GST_FORMAT_TIME,
                                            ts + (GST_CLOCK_TIME_IS_VALID(dur) ? dur : 0));
      }
      (void)s.pairing.gap(id, end, &rep);
      report(self, std::move(rep));
      return forward(vg::OutputItem::gap);
    }
    case GST_EVENT_EOS:
      // The output's EOS goes downstream once the stream's end is scored (ScoringSession).
      (void)s.pairing.end(id, &rep);
      report(self, std::move(rep));
      gst_event_unref(event);
      return TRUE;
    case GST_EVENT_FLUSH_START: {
      (void)s.pairing.flush_start(id, gst_event_get_seqnum(event));
      if (!output) {
        gst_event_unref(event);
        return TRUE;
      }
      const gboolean ret = gst_pad_push_event(self->src, event);  // unblocks a push downstream
      gst_pad_pause_task(self->src);
      return ret;
    }
    case GST_EVENT_FLUSH_STOP:
      s.pairing.flush_stop(id);
      if (!output) {
        gst_event_unref(event);
        return TRUE;
      }
      {
        const gboolean ret = gst_pad_push_event(self->src, event);
        s.out_flow = GST_FLOW_OK;
        gst_pad_start_task(self->src, GstTaskFunction(src_loop), self, nullptr);
        return ret;
      }
    default: break;
  }
  // Everything else follows the output stream; the other pads' events stop here.
  if (output && !GST_EVENT_IS_SERIALIZED(event)) return gst_pad_event_default(pad, parent, event);
  return forward(vg::OutputItem::event);
}

// Caps a sink pad takes: the template (the output pad: what downstream takes too). A distorted pad offers the
// reference's size (and frame rate) first, so that videoscale / videorate upstream adapt without a caps filter.
GstCaps* sink_caps(GstVmafxhip* self, GstPad* pad, unsigned id, GstCaps* filter) {
  ElementState& s = state(self);
  GstCaps* base = gst_pad_get_pad_template_caps(pad);
  unsigned out;
  std::shared_ptr<const PadEpoch> ref;
  bool by_timestamp;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    out = s.out_pad;
    ref = s.pads[kRefPad].epoch;
    by_timestamp = s.active.pairing == vg::PAIRING_TIMESTAMP;
  }
  if (id == out) {
    GstCaps* peer = gst_pad_peer_query_caps(self->src, base);
    GstCaps* both = gst_caps_intersect_full(peer, base, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(peer);
    gst_caps_unref(base);
    base = both;
  }
  if (id != kRefPad && ref && ref->caps) base = vg::prefer_reference_size(base, *ref, by_timestamp);
  if (filter) {
    GstCaps* t = gst_caps_intersect_full(filter, base, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(base);
    base = t;
  }
  return base;
}

gboolean sink_query(GstPad* pad, GstObject* parent, GstQuery* query) {
  auto* self = GST_VMAFXHIP(parent);
  ElementState& s = state(self);
  const unsigned id = pad_id(pad);
  unsigned out;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    out = s.out_pad;
  }
  switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CAPS: {
      GstCaps* filter = nullptr;
      gst_query_parse_caps(query, &filter);
      GstCaps* caps = sink_caps(self, pad, id, filter);
      gst_query_set_caps_result(query, caps);
      gst_caps_unref(caps);
      return TRUE;
    }
    case GST_QUERY_ACCEPT_CAPS: {
      GstCaps* caps = nullptr;
      gst_query_parse_accept_caps(query, &caps);
      bool accept = false;
      const vg::InputKind& kind = vg::input_kind_for_caps(caps);
      if (!kind.accept_caps || !kind.accept_caps(caps, &accept)) {
        GstCaps* allowed = sink_caps(self, pad, id, nullptr);
        accept = gst_caps_is_fixed(caps) && gst_caps_can_intersect(caps, allowed);
        gst_caps_unref(allowed);
      }
      gst_query_set_accept_caps_result(query, accept);
      return TRUE;
    }
    case GST_QUERY_ALLOCATION:
      if (id == out && gst_pad_peer_query(self->src, query)) {
        // Downstream decides for the output (its buffers go there); the element also reads GL sync metas.
        (void)vg::gl_pad_query(GST_ELEMENT(self), pad, query);
        return TRUE;
      }
      // The other pads' frames are read in place and dropped: any layout a video meta describes.
      gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
      (void)vg::gl_pad_query(GST_ELEMENT(self), pad, query);
      return TRUE;
    case GST_QUERY_CONTEXT:
      if (vg::gl_pad_query(GST_ELEMENT(self), pad, query)) return TRUE;
      if (vg::cuda_pad_query(GST_ELEMENT(self), pad, query, cuda_settings(self))) return TRUE;
      break;
    default: break;
  }
  if (id == out) return gst_pad_query_default(pad, parent, query);
  return FALSE;
}

gboolean src_query(GstPad* pad, GstObject* parent, GstQuery* query) {
  auto* self = GST_VMAFXHIP(parent);
  ElementState& s = state(self);
  GstPad* out_pad = nullptr;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    out_pad = GST_PAD(gst_object_ref(s.pads[s.out_pad].pad));
  }
  gboolean ret = FALSE;
  bool done = true;
  switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CONTEXT:
      if (vg::gl_pad_query(GST_ELEMENT(self), pad, query)) ret = TRUE;
      else if (vg::cuda_pad_query(GST_ELEMENT(self), pad, query, cuda_settings(self))) ret = TRUE;
      else done = false;
      break;
    case GST_QUERY_CAPS: {
      GstCaps* filter = nullptr;
      gst_query_parse_caps(query, &filter);
      GstCaps* templ = gst_pad_get_pad_template_caps(pad);
      GstCaps* up = gst_pad_peer_query_caps(out_pad, filter ? filter : templ);
      GstCaps* caps = gst_caps_intersect_full(up, templ, GST_CAPS_INTERSECT_FIRST);
      gst_caps_unref(up);
      gst_caps_unref(templ);
      gst_query_set_caps_result(query, caps);
      gst_caps_unref(caps);
      ret = TRUE;
      break;
    }
    case GST_QUERY_LATENCY: ret = answer_latency(self, out_pad, query); break;
    default: done = false; break;
  }
  gst_object_unref(out_pad);
  return done ? ret : gst_pad_query_default(pad, parent, query);
}

gboolean src_event(GstPad* pad, GstObject* parent, GstEvent* event) {
  auto* self = GST_VMAFXHIP(parent);
  ElementState& s = state(self);
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_SEEK: {
      // Every stream moves: the seek goes to every sink pad's upstream.
      std::vector<GstPad*> sinks;
      {
        std::lock_guard<std::mutex> lk(s.mu);
        for (auto& [id, p] : s.pads) sinks.push_back(GST_PAD(gst_object_ref(p.pad)));
      }
      gboolean ok = TRUE;
      for (GstPad* p : sinks) {
        ok = gst_pad_push_event(p, gst_event_ref(event)) && ok;
        gst_object_unref(p);
      }
      gst_event_unref(event);
      return ok;
    }
    case GST_EVENT_QOS:
      // An analyser scores every frame: upstream must not drop late frames on downstream's word.
      gst_event_unref(event);
      return TRUE;
    default: break;
  }
  return gst_pad_event_default(pad, parent, event);
}

// src links to the output pad and back; the other sink pads link nowhere.
GstIterator* iterate_internal_links(GstPad* pad, GstObject* parent) {
  auto* self = GST_VMAFXHIP(parent);
  ElementState& s = state(self);
  GstPad* other = nullptr;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    GstPad* out = s.pads[s.out_pad].pad;
    if (pad == self->src) other = out;
    if (pad == out) other = self->src;
  }
  GValue v = G_VALUE_INIT;
  g_value_init(&v, GST_TYPE_PAD);
  if (other) g_value_set_object(&v, other);
  GstIterator* it = gst_iterator_new_single(GST_TYPE_PAD, other ? &v : nullptr);
  g_value_unset(&v);
  return it;
}

GstPad* make_sink_pad(GstVmafxhip* self, GstPadTemplate* templ, const std::string& name, unsigned id, bool dist) {
  GstPad* pad = dist ? GST_PAD(g_object_new(vg::dist_pad_get_type(), "name", name.c_str(), "direction",
                                            GST_PAD_SINK, "template", templ, nullptr))
                     : gst_pad_new_from_template(templ, name.c_str());
  g_object_set_qdata(G_OBJECT(pad), pad_id_quark(), GUINT_TO_POINTER(id + 1));
  gst_pad_set_chain_function(pad, GST_DEBUG_FUNCPTR(sink_chain));
  gst_pad_set_event_function(pad, GST_DEBUG_FUNCPTR(sink_event));
  gst_pad_set_query_function(pad, GST_DEBUG_FUNCPTR(sink_query));
  gst_pad_set_iterate_internal_links_function(pad, GST_DEBUG_FUNCPTR(iterate_internal_links));
  ElementState& s = state(self);
  std::lock_guard<std::mutex> lk(s.mu);
  SinkPad& p = s.pads[id];
  p.pad = pad;
  p.name = name;
  return pad;
}

// ---------------------------------------------------------------------------------------------------------------
// Request pads

GstPad* request_new_pad(GstElement* element, GstPadTemplate* templ, const gchar* req_name, const GstCaps*) {
  auto* self = GST_VMAFXHIP(element);
  ElementState& s = state(self);
  unsigned n;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    n = s.next_request;
    if (req_name && sscanf(req_name, "dist_sink_%u", &n) != 1) return nullptr;
    if (s.pads.count(2 + n)) return nullptr;
    s.next_request = std::max(s.next_request, n + 1);
  }
  const unsigned id = 2 + n;
  const std::string name = "dist_sink_" + std::to_string(n);
  GstPad* pad = make_sink_pad(self, templ, name, id, true);
  vg::Settings a;
  {
    std::lock_guard<std::mutex> lk(s.settings_mu);
    a = s.settings;
  }
  GST_OBJECT_LOCK(self);
  const bool running = GST_STATE(self) >= GST_STATE_PAUSED || GST_STATE_PENDING(self) == GST_STATE_PAUSED;
  GST_OBJECT_UNLOCK(self);
  s.pairing.add_pad(id, a.dist_offset, a.auto_sync);
  if (s.session) {
    Status st = s.session->add_rendition(id, name, running);
    if (!st)
      post_message(self, GST_MESSAGE_WARNING, "The results file of " + name + " cannot be written",
                   st.to_string());
  }
  if (running) gst_pad_set_active(pad, TRUE);
  gst_element_add_pad(element, pad);
  GST_INFO_OBJECT(self, "%s requested%s", name.c_str(), running ? " while running: it joins from its first frame" : "");
  return pad;
}

void release_pad(GstElement* element, GstPad* pad) {
  auto* self = GST_VMAFXHIP(element);
  ElementState& s = state(self);
  const unsigned id = pad_id(pad);
  if (id < 2) return;
  vg::Report rep = s.pairing.remove_pad(id);  // wakes its streaming thread
  report(self, std::move(rep));
  gst_pad_set_active(pad, FALSE);
  s.inputs.forget(id);
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.pads.erase(id);
  }
  gst_element_remove_pad(element, pad);
}

// ---------------------------------------------------------------------------------------------------------------
// State changes

bool start(GstVmafxhip* self) {
  ElementState& s = state(self);
  vg::Settings a;
  {
    std::lock_guard<std::mutex> lk(s.settings_mu);
    a = s.settings;
  }
  if (a.log_level != vg::LOG_NONE) gst_debug_category_set_threshold(gst_vmafxhip_debug, vg::to_debug_level(a.log_level));
  s.error_claimed = false;
  s.failed = false;
  s.out_flow = GST_FLOW_OK;
  struct DistPad {
    unsigned id;
    std::string name;
    GstPad* pad;
  };
  std::vector<DistPad> dist_pads;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.active = a;
    s.out_pad = a.output == vg::OUTPUT_DISTORTED ? kDistPad : kRefPad;
    s.last_output_end = GST_CLOCK_TIME_NONE;
    s.said.clear();
    s.fields.clear();
    for (auto& [id, p] : s.pads) {
      p.epoch.reset();
      p.live_known = false;
      if (id != kRefPad) dist_pads.push_back({id, p.name, p.pad});
    }
  }
  vg::PairingConfig pc;
  pc.by_timestamp = a.pairing == vg::PAIRING_TIMESTAMP;
  pc.force_live = a.force_live;
  pc.out_pad = a.output == vg::OUTPUT_DISTORTED ? kDistPad : kRefPad;
  pc.max_frames = a.max_reference_frames;
  pc.max_bytes = a.max_reference_bytes;
  pc.stall_timeout = std::chrono::seconds(a.stall_timeout);
  pc.live_hold = a.latency;
  for (const DistPad& d : dist_pads) s.pairing.add_pad(d.id, vg::dist_pad_offset(d.pad, a.dist_offset), a.auto_sync);
  s.pairing.start(pc);

  // Everything that can be checked before the first frame fails here, at the state change.
  vg::SessionConfig sc;
  vg::CapsProblem problem;
  if (!vg::check_settings(a, &sc.scorer, &problem)) {
    VMAFXHIP_ERROR(self, problem.code, problem.text, problem.debug);
    return false;
  }
  // Holding a CUDA context (shared with a decoder), the scorer runs on that context's GPU unless told otherwise.
  vg::cuda_scorer_device(GST_ELEMENT(self), &sc.scorer.vendor, &sc.scorer.device_id);
  if (a.results_filename.empty() && a.results_format != vg::RESULTS_NONE)
    post_message(self, GST_MESSAGE_INFO, "results-format is set but results-filename is not: no results file is written",
                 "as GStreamer's vmaf, the element scores and writes no file; set results-filename to write one");
  sc.allow_stretch = a.allow_stretch;
  sc.results_path = a.results_filename;
  sc.results_format = vg::to_results_format(a.results_format);
  if (sc.results_format == vmafx::ResultsFormat::none) sc.results_format = vmafx::ResultsFormat::json;
  sc.background_priority = a.force_live;
  s.session = std::make_unique<vg::ScoringSession>(&s.pairing, session_callbacks(self));
  (void)s.session->add_rendition(kRefPad, "ref_sink", false);
  for (const DistPad& d : dist_pads) (void)s.session->add_rendition(d.id, d.name, false);
  const Status st = s.session->start(sc);
  if (!st) {
    s.session.reset();
    const bool file = st.code() == Errc::io_error;
    const vg::ErrorCode code = file ? vg::ErrorCode{GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE}
                                    : vg::ErrorCode{GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT};
    VMAFXHIP_ERROR(self, code,
                   file ? "Could not open results file '" + a.results_filename + "' for writing"
                        : "Could not set up scoring",
                   st.to_string());
    return false;
  }
  return true;
}

void stop(GstVmafxhip* self) {
  ElementState& s = state(self);
  s.pairing.stop();
  if (s.session) s.session->stop();  // joins its thread; the scorers release every picture
  s.session.reset();
  s.inputs.close();
  std::lock_guard<std::mutex> lk(s.mu);
  for (auto& [id, p] : s.pads) p.epoch.reset();
}

GstStateChangeReturn change_state(GstElement* element, GstStateChange transition) {
  auto* self = GST_VMAFXHIP(element);
  ElementState& s = state(self);
  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      if (!start(self)) {
        stop(self);
        return GST_STATE_CHANGE_FAILURE;
      }
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY: s.pairing.stop(); break;  // wakes every thread waiting in the element
    default: break;
  }
  const GstStateChangeReturn ret = GST_ELEMENT_CLASS(parent_class)->change_state(element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) stop(self);
  return ret;
}

void set_context(GstElement* element, GstContext* context) {
  vg::gl_set_context(element, context);
  vg::cuda_set_context(element, context, cuda_settings(GST_VMAFXHIP(element)));
  GST_ELEMENT_CLASS(parent_class)->set_context(element, context);
}

// ---------------------------------------------------------------------------------------------------------------
// GObject

void set_property(GObject* object, guint prop_id, const GValue* value, GParamSpec* pspec) {
  auto* self = GST_VMAFXHIP(object);
  ElementState& s = state(self);
  GST_OBJECT_LOCK(self);
  const GstState st = GST_STATE(self);
  GST_OBJECT_UNLOCK(self);
  if (!vg::property_change_allowed(GST_ELEMENT(self), pspec, st)) return;
  vg::Settings now;
  {
    std::lock_guard<std::mutex> lk(s.settings_mu);
    vg::settings_set(&s.settings, prop_id, value);
    now = s.settings;
  }
  if (prop_id == vg::PROP_LOG_LEVEL && st > GST_STATE_READY && now.log_level != vg::LOG_NONE)
    gst_debug_category_set_threshold(gst_vmafxhip_debug, vg::to_debug_level(now.log_level));
  if (prop_id == vg::PROP_MAX_REFERENCE_FRAMES || prop_id == vg::PROP_MAX_REFERENCE_BYTES ||
      prop_id == vg::PROP_STALL_TIMEOUT) {
    s.pairing.set_bounds(now.max_reference_frames, now.max_reference_bytes, std::chrono::seconds(now.stall_timeout));
    std::lock_guard<std::mutex> lk(s.mu);
    s.active.max_reference_frames = now.max_reference_frames;
  }
}

void get_property(GObject* object, guint prop_id, GValue* value, GParamSpec* pspec) {
  auto* self = GST_VMAFXHIP(object);
  ElementState& s = state(self);
  switch (prop_id) {
    case vg::PROP_FRAMES_SCORED: g_value_set_uint64(value, s.session ? s.session->frames_scored() : 0); return;
    case vg::PROP_FRAMES_SKIPPED: {
      guint64 n = 0;
      for (unsigned pad : s.pairing.renditions())
        for (uint64_t c : s.pairing.counts(pad).skips) n += c;
      g_value_set_uint64(value, n);
      return;
    }
    case vg::PROP_FRAMES_COPIED: g_value_set_uint64(value, s.inputs.frames_copied()); return;
    case vg::PROP_GL_STATS:
    case vg::PROP_CUDA_STATS: {
      // The inputs of the kind whose statistics property this is (null while no pad reads that kind).
      GstStructure* st = s.inputs.stats(pspec->name, [self](unsigned id) {
        return id == kRefPad ? std::string("ref") : id == kDistPad ? std::string("dist") : pad_name(self, id);
      });
      g_value_take_boxed(value, st);
      return;
    }
    default: break;
  }
  std::lock_guard<std::mutex> lk(s.settings_mu);
  if (!vg::settings_get(s.settings, prop_id, value)) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
}

void finalize(GObject* object) {
  auto* self = GST_VMAFXHIP(object);
  stop(self);
  delete self->st;
  self->st = nullptr;
  G_OBJECT_CLASS(parent_class)->finalize(object);
}

}  // namespace

static void gst_vmafxhip_class_init(GstVmafxhipClass* klass) {
  auto* gobject_class = G_OBJECT_CLASS(klass);
  auto* element_class = GST_ELEMENT_CLASS(klass);
  GST_DEBUG_CATEGORY_INIT(gst_vmafxhip_debug, "vmafxhip", 0, "VMAF scoring element");
  gobject_class->set_property = GST_DEBUG_FUNCPTR(set_property);
  gobject_class->get_property = GST_DEBUG_FUNCPTR(get_property);
  gobject_class->finalize = GST_DEBUG_FUNCPTR(finalize);
  element_class->change_state = GST_DEBUG_FUNCPTR(change_state);
  element_class->set_context = GST_DEBUG_FUNCPTR(set_context);
  element_class->request_new_pad = GST_DEBUG_FUNCPTR(request_new_pad);
  element_class->release_pad = GST_DEBUG_FUNCPTR(release_pad);
  vg::install_properties(gobject_class);

  GstCaps* caps = gst_caps_from_string(vg::input_template_caps().c_str());
  gst_element_class_add_pad_template(element_class, gst_pad_template_new("ref_sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template(
      element_class, gst_pad_template_new_with_gtype("dist_sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps,
                                                      vg::dist_pad_get_type()));
  gst_element_class_add_pad_template(
      element_class, gst_pad_template_new_with_gtype("dist_sink_%u", GST_PAD_SINK, GST_PAD_REQUEST, caps,
                                                      vg::dist_pad_get_type()));
  gst_element_class_add_pad_template(element_class, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref(caps);
  gst_element_class_set_static_metadata(element_class, "VMAF video quality", "Filter/Analyzer/Video",
                                        "Scores distorted video (one stream or a ladder of them) against its "
                                        "reference with VMAF, PSNR, SSIM, MS-SSIM and libvmaf's other features "
                                        "(libvmaf's numbers), on the CPU or the GPU; passes the reference through",
                                        "vmafxhip developers");
  gst_type_mark_as_plugin_api(vg::pool_method_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::results_format_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::log_level_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::backend_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::vendor_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::output_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::pairing_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::scale_method_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::dist_pad_get_type(), GstPluginAPIFlags(0));
}

static void gst_vmafxhip_init(GstVmafxhip* self) {
  self->st = new ElementState();
  GstElementClass* klass = GST_ELEMENT_GET_CLASS(self);
  ElementState& s = *self->st;
  s.pairing.is_linked = [self](unsigned id) {
    ElementState& es = state(self);
    GstPad* pad = nullptr;
    {
      std::lock_guard<std::mutex> lk(es.mu);
      auto it = es.pads.find(id);
      if (it == es.pads.end()) return true;
      pad = GST_PAD(gst_object_ref(it->second.pad));
    }
    const bool linked = gst_pad_is_linked(pad);
    gst_object_unref(pad);
    return linked;
  };
  s.pairing.pad_name = [self](unsigned id) { return pad_name(self, id); };
  s.pairing.sync_search = sync_search;
  s.pairing.add_pad(kDistPad, 0, false);
  for (unsigned id : {kRefPad, kDistPad}) {
    const char* name = id == kRefPad ? "ref_sink" : "dist_sink";
    GstPad* pad = make_sink_pad(self, gst_element_class_get_pad_template(klass, name), name, id, id == kDistPad);
    gst_element_add_pad(GST_ELEMENT(self), pad);
  }
  self->src = gst_pad_new_from_template(gst_element_class_get_pad_template(klass, "src"), "src");
  gst_pad_set_event_function(self->src, GST_DEBUG_FUNCPTR(src_event));
  gst_pad_set_query_function(self->src, GST_DEBUG_FUNCPTR(src_query));
  gst_pad_set_activatemode_function(self->src, GST_DEBUG_FUNCPTR(src_activate_mode));
  gst_pad_set_iterate_internal_links_function(self->src, GST_DEBUG_FUNCPTR(iterate_internal_links));
  gst_element_add_pad(GST_ELEMENT(self), self->src);
}
