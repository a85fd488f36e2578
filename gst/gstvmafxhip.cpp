// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * SECTION:element-vmafxhip
 * @title: vmafxhip
 *
 * Scores a distorted video stream (dist_sink) against its reference (ref_sink) with Netflix's VMAF, and optionally
 * PSNR, SSIM and MS-SSIM, giving libvmaf's numbers. src passes the reference through unchanged and at once
 * (output=distorted: the distorted stream), so the element can sit inline, also behind a live source. Frames are
 * paired by running time (or by arrival, pairing=arrival); a frame without its partner is skipped and counted, never
 * paired with another. With frame-message=true every scored frame gets an element message named "VMAF"
 * (type=frame); at the end of the stream (and at a flushing seek) a type=pooled message follows and the results
 * file (libvmaf's json, xml, csv or sub layout) is written. Properties, messages and examples: docs/element.md.
 *
 * |[
 * gst-launch-1.0 -m \
 *   filesrc location=ref.yuv ! rawvideoparse width=576 height=324 format=i420 ! v.ref_sink \
 *   filesrc location=dist.yuv ! rawvideoparse width=576 height=324 format=i420 ! v.dist_sink \
 *   vmafxhip name=v frame-message=true psnr=true results-filename=scores.json ! fakesink
 * ]|
 */
#include "gstvmafxhip.h"

#include <gst/video/video.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gstvmafxhipcuda.h"
#include "gstvmafxhipgl.h"
#include "gstvmafxhipimport.h"
#include "gstvmafxhipinput.h"
#include "gstvmafxhipmessages.h"
#include "gstvmafxhippad.h"
#include "gstvmafxhipresults.h"
#include "gstvmafxhipscoring.h"
#include "gstvmafxhipsettings.h"
#include "gstvmafxhipsync.h"
#include "gstvmafxhipupstream.h"
#include "vmafx/model.h"

GST_DEBUG_CATEGORY(gst_vmafxhip_debug);
#define GST_CAT_DEFAULT gst_vmafxhip_debug

namespace {

using vmafx::Errc;
using vmafx::Status;
namespace vg = vmafx::gst;
using vg::kDistPad;
using vg::kRefPad;
using vg::SkipReason;

// What a frame message needs of the pair it reports.
struct FrameMeta {
  GstClockTime out_pts = GST_CLOCK_TIME_NONE;
  GstClockTime out_duration = GST_CLOCK_TIME_NONE;
  GstClockTime ref_pts = GST_CLOCK_TIME_NONE;
  GstClockTime dist_pts = GST_CLOCK_TIME_NONE;
  GstSegment segment;  // the output pad's, for stream and running time
};

struct PadState {
  GstCaps* caps = nullptr;
  GstVideoInfo info;
  bool has_info = false;
  vmafx::VideoGeometry geometry;
  GstSegment segment;
  bool flushing = false;
  bool eos = false;
  bool live_known = false;
  bool live = false;
  GstClockTime upstream_min = 0;
  gint64 last_activity_us = 0;  // monotonic time of its last buffer or event
  uint64_t received = 0;        // buffers since the start or the last flush
};

// All C++ state of one element. `mu` guards the stream state (pads, pairer, flags, counts); `submit_mu` serialises
// importing and submitting pairs (and the session's lifetime); `inputs_mu` the inputs' lifetime (read by gl-stats);
// `meta_mu` the per-frame metadata the message callback reads. Order: submit_mu, then mu / inputs_mu / meta_mu.
struct ElementState {
  std::mutex settings_mu;
  vg::Settings settings;  // the properties

  std::mutex mu;
  std::condition_variable cv;
  vg::Settings active;  // read when the element starts: what this run uses for READY-mutable properties
  unsigned out_pad = kRefPad;
  PadState pads[2];
  vg::Pairer pairer;
  vg::SkipCounts skips{};
  std::deque<vg::FramePairOut> to_submit;
  uint64_t paired = 0;
  bool stopping = false;
  bool failed = false;        // an error was posted: everything after returns GST_FLOW_ERROR, nothing is posted twice
  bool engine_done = false;   // the session is flushed (every frame message is out)
  bool finished = false;      // pooled message posted and EOS pushed
  bool warned_skip = false, warned_colour = false, warned_latency = false;
  unsigned warned_reasons = 0;  // live: the skip reasons said so far (bit per SkipReason)
  guint32 flush_seqnum = GST_SEQNUM_INVALID;
  GstClockTime last_output_end = GST_CLOCK_TIME_NONE;
  std::thread::id output_thread;  // the output pad's streaming thread (seen at its last buffer)
  bool draining = false;          // finish_engine submits what is left in line before the engine's flush
  bool dist_renegotiating = false;  // dist_sink was asked for the reference's size; frames of another size wait
  bool sync_done = false;
  std::vector<vg::PadFrame> sync_frames[2];
  // Preroll: in a non-live pipeline the output's first buffer, and what follows it on the output pad, wait here
  // (the output pad's thread still pairs and returns at once) until the other pad has its first frame and its
  // upstream has committed its state, for at most kPrerollHoldUs (gstvmafxhipupstream.h says why). Pushed, in
  // order, by the output pad's thread only.
  std::deque<GstMiniObject*> out_held;
  bool out_open = false;
  gint64 out_hold_since = 0;                // monotonic time of the first held buffer
  GstFlowReturn out_flow = GST_FLOW_OK;     // the first failed push of held buffers, returned by the next chain

  std::mutex submit_mu;
  std::unique_ptr<vg::ScoringSession> session;  // created at the first pair; pointer changes under submit_mu and mu
  std::unique_ptr<vg::ScoringSession> created;  // made by make_session, taken over under submit_mu
  std::thread creator;                          // live: makes the session off the streaming threads
  std::atomic<bool> creator_done{false};
  std::vector<std::string> fields;
  std::string first_model_column;
  vmafx::VideoGeometry session_geometry[2];
  vg::InputConfig input_config;
  vg::ResultsFile results;
  std::string notices_said;

  std::mutex inputs_mu;  // taken through InputsLock
  // The inputs' notices said by a thread holding inputs_mu wait here and are posted once it is released: an
  // application's synchronous bus handler may read gl-stats / cuda-stats (which take inputs_mu) on such a message.
  // Notices from other threads (an importer's completion thread) are posted at once.
  std::mutex input_notices_mu;
  std::vector<std::pair<bool, std::string>> input_notices;
  std::unique_ptr<vg::Input> inputs[2];
  const vg::InputKind* input_kinds[2] = {nullptr, nullptr};
  std::map<const vg::InputKind*, std::shared_ptr<void>> input_shared;
  std::vector<std::unique_ptr<vg::Input>> retired_inputs;

  std::mutex meta_mu;
  std::map<uint64_t, FrameMeta> meta;
  uint64_t next_user = 0;

  std::atomic<uint64_t> frames_scored{0};
  std::atomic<uint64_t> frames_skipped{0};
  std::atomic<uint64_t> frames_copied{0};
};

}  // namespace

struct _GstVmafxhip {
  GstElement parent;
  GstPad* sink[2];  // ref_sink, dist_sink
  GstPad* src;
  ElementState* st;
};

#define gst_vmafxhip_parent_class parent_class
G_DEFINE_TYPE(GstVmafxhip, gst_vmafxhip, GST_TYPE_ELEMENT)
GST_ELEMENT_REGISTER_DEFINE(vmafxhip, "vmafxhip", GST_RANK_NONE, GST_TYPE_VMAFXHIP)

namespace {

ElementState& state(GstVmafxhip* self) { return *self->st; }

// inputs_mu, held by this thread: the inputs' notices said meanwhile wait for flush_input_notices.
class InputsLock {
 public:
  explicit InputsLock(ElementState& s) : lk_(s.inputs_mu) { ++depth_; }
  ~InputsLock() { --depth_; }
  InputsLock(const InputsLock&) = delete;
  InputsLock& operator=(const InputsLock&) = delete;
  static bool held_here() { return depth_ > 0; }

 private:
  std::lock_guard<std::mutex> lk_;
  static thread_local int depth_;
};
thread_local int InputsLock::depth_ = 0;
unsigned pad_index(GstVmafxhip* self, GstPad* pad) { return pad == self->sink[kDistPad] ? kDistPad : kRefPad; }
const char* pad_name(unsigned p) { return p == kRefPad ? "ref_sink" : "dist_sink"; }

std::string caps_string(const GstCaps* caps) {
  if (!caps) return "(none)";
  gchar* s = gst_caps_to_string(caps);
  std::string out = s ? s : "";
  g_free(s);
  return out;
}

std::string geometry_string(const vmafx::VideoGeometry& g) {
  return std::to_string(g.width) + "x" + std::to_string(g.height) + " " + std::to_string(g.bit_depth) + "-bit " +
         vmafx::chroma_name(g.chroma);
}

std::string fps_string(const GstVideoInfo& info) {
  return std::to_string(GST_VIDEO_INFO_FPS_N(&info)) + "/" + std::to_string(GST_VIDEO_INFO_FPS_D(&info));
}

GstClockTime frame_period(const GstVideoInfo& info) {
  if (GST_VIDEO_INFO_FPS_N(&info) <= 0 || GST_VIDEO_INFO_FPS_D(&info) <= 0) return GST_CLOCK_TIME_NONE;
  return gst_util_uint64_scale_int(GST_SECOND, GST_VIDEO_INFO_FPS_D(&info), GST_VIDEO_INFO_FPS_N(&info));
}

// The first clause of an engine message, for an error's one-line text (the whole message goes into its debug text);
// a refusal because of allow-copy=false says so.
std::string short_reason(const std::string& m) {
  std::string s = m.substr(0, m.find("; "));
  if (s.size() < m.size() && m.find("allow-copy=false") != std::string::npos &&
      s.find("allow-copy=false") == std::string::npos)
    s += " (allow-copy=false forbids a copy)";
  return s;
}

// Posts an error once per run (later failures are consequences of the first); marks the element failed.
void post_error_at(const char* file, const char* function, int line, GstVmafxhip* self, vg::ErrorCode code,
                   const std::string& text, const std::string& debug) {
  ElementState& s = state(self);
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (s.failed) return;
    s.failed = true;
    s.cv.notify_all();
  }
  vg::post_text(GST_ELEMENT(self), GST_MESSAGE_ERROR, code, text, debug, file, function, line);
}
#define VMAFXHIP_ERROR(self, code, text, debug) post_error_at(__FILE__, GST_FUNCTION, __LINE__, self, code, text, debug)

void post_warning(GstVmafxhip* self, const std::string& text, const std::string& debug,
                  GstStructure* details = nullptr) {
  vg::post_text(GST_ELEMENT(self), GST_MESSAGE_WARNING, {GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED}, text, debug,
                __FILE__, GST_FUNCTION, __LINE__, details);
}

bool is_live_locked(const ElementState& s) { return s.active.force_live || s.pads[0].live || s.pads[1].live; }

// Upstream latency of a sink pad (live or not), asked once per pad at its first buffer.
void learn_liveness(GstVmafxhip* self, unsigned p) {
  ElementState& s = state(self);
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (s.pads[p].live_known) return;
  }
  GstQuery* q = gst_query_new_latency();
  gboolean live = FALSE;
  GstClockTime min = 0, max = GST_CLOCK_TIME_NONE;
  if (gst_pad_peer_query(self->sink[p], q)) gst_query_parse_latency(q, &live, &min, &max);
  gst_query_unref(q);
  std::lock_guard<std::mutex> lk(s.mu);
  s.pads[p].live_known = true;
  s.pads[p].live = live;
  s.pads[p].upstream_min = GST_CLOCK_TIME_IS_VALID(min) ? min : 0;
  GST_DEBUG_OBJECT(self, "%s: upstream %s, latency %" GST_TIME_FORMAT, pad_name(p), live ? "live" : "not live",
                   GST_TIME_ARGS(min));
}

// ---------------------------------------------------------------------------------------------------------------
// Preroll hold (ElementState::out_held)

constexpr gint64 kPrerollHoldUs = 2 * G_USEC_PER_SEC;

void drop_held_output_locked(ElementState& s) {
  for (GstMiniObject* o : s.out_held) gst_mini_object_unref(o);
  s.out_held.clear();
}

// Opens the output when its time has come (or at once with `force`) and pushes what was held, in order. Called by
// the output pad's streaming thread, without `mu`.
GstFlowReturn release_output(GstVmafxhip* self, bool force) {
  ElementState& s = state(self);
  const unsigned o = 1 - s.out_pad;
  bool wait_upstream;
  gint64 deadline;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (s.out_open) return GST_FLOW_OK;
    const gint64 now = g_get_monotonic_time();
    if (!s.out_hold_since) s.out_hold_since = now;
    deadline = s.out_hold_since + kPrerollHoldUs;
    const bool partner = s.pads[o].received > 0 || s.pads[o].eos;
    const bool open_now = force || is_live_locked(s) || s.stopping || s.failed || now >= deadline;
    if (!partner && !open_now) return GST_FLOW_OK;
    wait_upstream = partner && !open_now;
  }
  if (wait_upstream) {
    const bool committed = vg::wait_upstream_committed(self->sink[o], deadline, [&s, o] {
      std::lock_guard<std::mutex> lk(s.mu);
      return s.stopping || s.failed || s.pads[s.out_pad].flushing || s.pads[o].flushing;
    });
    GST_DEBUG_OBJECT(self, "preroll: %s's upstream %s", pad_name(o),
                     committed ? "committed its state" : "still changing state; the output opens anyway");
  } else {
    GST_DEBUG_OBJECT(self, "preroll: the output opens without waiting for %s", pad_name(o));
  }
  std::deque<GstMiniObject*> held;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.out_open = true;
    held.swap(s.out_held);
  }
  GstFlowReturn flow = GST_FLOW_OK;
  for (GstMiniObject* obj : held) {
    if (flow != GST_FLOW_OK) {
      gst_mini_object_unref(obj);
    } else if (GST_IS_BUFFER(obj)) {
      flow = gst_pad_push(self->src, GST_BUFFER_CAST(obj));
    } else if (!gst_pad_push_event(self->src, GST_EVENT_CAST(obj))) {
      GST_DEBUG_OBJECT(self, "a held event was refused downstream");
    }
  }
  if (flow != GST_FLOW_OK) {
    std::lock_guard<std::mutex> lk(s.mu);
    if (s.out_flow == GST_FLOW_OK) s.out_flow = flow;
  }
  return flow;
}

// The output pad's thread, waiting in the element with `mu` held (`lk`) while the output is not open: pushes what the
// hold keeps once its time has come, else waits a little (nothing signals the other branch's state change).
void release_output_waiting(GstVmafxhip* self, std::unique_lock<std::mutex>& lk) {
  ElementState& s = state(self);
  lk.unlock();
  (void)release_output(self, false);
  lk.lock();
  if (!s.out_open) s.cv.wait_for(lk, std::chrono::milliseconds(50));
}

// The output's buffer: pushed, or held while the output is not open. Output pad's thread.
GstFlowReturn push_output(GstVmafxhip* self, GstBuffer* buf) {
  ElementState& s = state(self);
  // Once open (every frame but the first few), one look under `mu`; before that, one release attempt first.
  for (bool tried_release = false;; tried_release = true) {
    {
      std::lock_guard<std::mutex> lk(s.mu);
      if (s.out_flow != GST_FLOW_OK) {
        const GstFlowReturn failed = s.out_flow;
        s.out_flow = GST_FLOW_OK;
        gst_buffer_unref(buf);
        return failed;
      }
      if (s.out_open) break;
      if (tried_release) {
        s.out_held.push_back(GST_MINI_OBJECT_CAST(buf));
        return GST_FLOW_OK;
      }
    }
    (void)release_output(self, false);
  }
  return gst_pad_push(self->src, buf);
}

// A serialized event of the output pad: pushed, or held behind held buffers (a GAP prerolls like a buffer).
gboolean push_output_event(GstVmafxhip* self, GstEvent* event) {
  ElementState& s = state(self);
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (!s.out_open && GST_EVENT_IS_SERIALIZED(event) &&
        (!s.out_held.empty() || GST_EVENT_TYPE(event) == GST_EVENT_GAP)) {
      if (!s.out_hold_since) s.out_hold_since = g_get_monotonic_time();
      s.out_held.push_back(GST_MINI_OBJECT_CAST(event));
      return TRUE;
    }
  }
  return gst_pad_push_event(self->src, event);
}

vg::FrameTiming timing_in(const GstSegment& seg, GstClockTime pts, GstClockTime duration) {
  vg::FrameTiming t;
  t.timestamp = pts;
  t.duration = duration;
  if (GST_CLOCK_TIME_IS_VALID(pts) && seg.format == GST_FORMAT_TIME) {
    t.stream_time = gst_segment_to_stream_time(&seg, GST_FORMAT_TIME, pts);
    t.running_time = gst_segment_to_running_time(&seg, GST_FORMAT_TIME, pts);
  }
  return t;
}

// ---------------------------------------------------------------------------------------------------------------
// Skips: counted under the lock, reported outside it.

struct SkipNotes {
  std::vector<std::pair<vg::Skip, vg::FrameTiming>> messages;
  std::vector<std::string> live_warnings;
  std::vector<GstStructure*> live_details;  // taken by the warnings
};

vg::SkipReport skip_report_locked(const ElementState& s) {
  vg::SkipReport r;
  r.skips = s.skips;
  r.ref_frames = s.pads[kRefPad].received;
  r.dist_frames = s.pads[kDistPad].received;
  r.paired = s.paired;
  r.live = is_live_locked(s);
  r.max_reference_frames = s.active.max_reference_frames;
  return r;
}

void count_skips_locked(GstVmafxhip* self, const std::vector<vg::Skip>& skips, bool frame_message, SkipNotes* notes) {
  ElementState& s = state(self);
  unsigned new_reasons = 0;
  for (const auto& k : skips) {
    s.skips[unsigned(k.reason)]++;
    s.frames_skipped.fetch_add(1, std::memory_order_relaxed);
    if (k.reason != SkipReason::offset) new_reasons |= 1u << unsigned(k.reason);
    GST_DEBUG_OBJECT(self, "%s frame %" GST_TIME_FORMAT " not scored: %s", pad_name(k.pad), GST_TIME_ARGS(k.pts),
                     vg::skip_reason_field(k.reason));
    if (frame_message)
      notes->messages.emplace_back(k, timing_in(s.pads[k.pad].segment, k.pts, GST_CLOCK_TIME_NONE));
  }
  // A live pipeline may never end: each cause of skips is said once, when it first happens.
  new_reasons &= ~s.warned_reasons;
  if (!new_reasons || !is_live_locked(s)) return;
  s.warned_reasons |= new_reasons;
  s.warned_skip = true;
  for (unsigned r = 0; r < vg::kSkipReasons; r++) {
    if (!(new_reasons & (1u << r))) continue;
    notes->live_warnings.push_back(vg::skip_warning_text(skip_report_locked(s), nullptr, SkipReason(r)));
    notes->live_details.push_back(vg::skip_warning_details(skip_report_locked(s)));
  }
}

void report_skips(GstVmafxhip* self, SkipNotes* notes) {
  for (const auto& [k, t] : notes->messages)
    gst_element_post_message(GST_ELEMENT(self),
                             gst_message_new_element(GST_OBJECT(self), vg::skip_structure(k.pad, k.reason, t)));
  for (size_t i = 0; i < notes->live_warnings.size(); i++)
    post_warning(self, notes->live_warnings[i], "live pipeline: frames are skipped rather than delaying the source",
                 notes->live_details[i]);
  notes->live_warnings.clear();
  notes->live_details.clear();
}

bool frame_message_enabled(ElementState& s) {
  std::lock_guard<std::mutex> lk(s.settings_mu);
  return s.settings.frame_message;
}

// What CUDA context sharing needs of the properties (gstvmafxhipcuda.h), read now: contexts are negotiated before the
// element starts (a decoder asks when it opens).
vg::CudaSettings cuda_settings(GstVmafxhip* self) {
  ElementState& s = state(self);
  std::lock_guard<std::mutex> lk(s.settings_mu);
  return {vg::to_backend(s.settings.backend), vg::to_vendor(s.settings.vendor), s.settings.device_id};
}

// ---------------------------------------------------------------------------------------------------------------
// The scoring session: created at the first pair, ended at the end of the stream, a flushing seek or stop.

void post_frame(GstVmafxhip* self, const vmafx::FrameScore& fs) {
  ElementState& s = state(self);
  s.frames_scored.fetch_add(1, std::memory_order_relaxed);
  FrameMeta m;
  bool found = false;
  {
    std::lock_guard<std::mutex> lk(s.meta_mu);
    auto it = s.meta.find(fs.user);
    if (it != s.meta.end()) {
      m = it->second;
      found = true;
    }
    // Frames before this one that produced no score (subsample) are done too.
    s.meta.erase(s.meta.begin(), s.meta.upper_bound(fs.user));
  }
  GST_LOG_OBJECT(self, "frame %" G_GUINT64_FORMAT " scored", fs.index);
  if (!frame_message_enabled(s) || !found) return;
  vg::FrameExtras x;
  x.ref_pts = m.ref_pts;
  x.dist_pts = m.dist_pts;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    const vmafx::VideoGeometry& rg = s.session_geometry[kRefPad];
    const vmafx::VideoGeometry& dg = s.session_geometry[kDistPad];
    // The engine brings a distorted stream of another size to the reference's.
    if (rg.width != dg.width || rg.height != dg.height)
      x.scaled_from = std::to_string(dg.width) + "x" + std::to_string(dg.height);
  }
  GstStructure* st = vg::frame_structure(fs, s.fields, timing_in(m.segment, m.out_pts, m.out_duration), x);
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), st));
}

void post_notice(GstVmafxhip* self, bool warning, const std::string& text, const std::string& detail) {
  ElementState& s = state(self);
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (s.notices_said.find("\n" + text + "\n") != std::string::npos) return;
    s.notices_said += "\n" + text + "\n";
  }
  GST_INFO_OBJECT(self, "%s", vg::sanitize_utf8(detail).c_str());
  // gst-launch prints an INFO message's debug text only: both carry the one line.
  vg::post_text(GST_ELEMENT(self), warning ? GST_MESSAGE_WARNING : GST_MESSAGE_INFO,
                {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS}, text, text, __FILE__, GST_FUNCTION, __LINE__);
}

// Posts the inputs' notices said while inputs_mu was held (call with it released).
void flush_input_notices(GstVmafxhip* self) {
  ElementState& s = state(self);
  std::vector<std::pair<bool, std::string>> notices;
  {
    std::lock_guard<std::mutex> lk(s.input_notices_mu);
    notices.swap(s.input_notices);
  }
  for (const auto& [warning, text] : notices) post_notice(self, warning, short_reason(text), text);
}

// Makes the session (into s.created, under mu). False after posting the error.
bool make_session(GstVmafxhip* self) {
  ElementState& s = state(self);
  vg::Settings a;
  vmafx::VideoGeometry g[2];
  GstCaps* caps[2];
  {
    std::lock_guard<std::mutex> lk(s.mu);
    a = s.active;
    for (unsigned i = 0; i < 2; i++) {
      g[i] = s.pads[i].geometry;
      caps[i] = s.pads[i].caps ? gst_caps_ref(s.pads[i].caps) : nullptr;
    }
  }
  auto unref_caps = [&] {
    for (auto* c : caps)
      if (c) gst_caps_unref(c);
  };
  vg::ScoringConfig cfg;
  std::vector<std::string> auto_choices;
  Status st = vg::parse_models(a.model, g[kRefPad].height, &cfg.models, &auto_choices);
  for (const auto& c : auto_choices) post_notice(self, false, c, c);
  if (st.is_ok()) st = vg::parse_features(a.features, &cfg.features);
  if (!st.is_ok()) {
    unref_caps();
    VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS}), "Invalid settings",
                   st.to_string());
    return false;
  }
  auto add_feature = [&](const char* name) {
    for (const auto& f : cfg.features)
      if (f.name == name && f.options.empty()) return;
    cfg.features.push_back({name, {}});
  };
  // ssimulacra2 converts Y'CbCr to RGB with the stream's matrix and range: those of the reference pad's caps when they
  // carry a colorimetry and no option says otherwise (without one the engine assumes BT.709 above 576 rows, BT.601
  // up to 576, limited range: GStreamer's own defaults).
  for (auto& f : cfg.features) {
    if (f.name != "ssimulacra2" || !caps[kRefPad]) continue;
    const GstStructure* cs = gst_caps_get_structure(caps[kRefPad], 0);
    GstVideoInfo info;
    if (!cs || !gst_structure_has_field(cs, "colorimetry") || !gst_video_info_from_caps(&info, caps[kRefPad])) continue;
    auto given = [&f](const char* opt) {
      for (const auto& o : f.options)
        if (o.first == opt) return true;
      return false;
    };
    const GstVideoColorMatrix m = info.colorimetry.matrix;
    const char* matrix = m == GST_VIDEO_COLOR_MATRIX_BT709 ? "bt709"
                         : m == GST_VIDEO_COLOR_MATRIX_BT601 ? "bt601"
                         : m == GST_VIDEO_COLOR_MATRIX_BT2020 ? "bt2020"
                                                              : nullptr;
    const GstVideoColorRange r = info.colorimetry.range;
    const char* range = r == GST_VIDEO_COLOR_RANGE_0_255 ? "full" : r == GST_VIDEO_COLOR_RANGE_16_235 ? "limited" : nullptr;
    if (matrix && !given("yuv_matrix")) f.options.push_back({"yuv_matrix", matrix});
    if (range && !given("yuv_range")) f.options.push_back({"yuv_range", range});
  }
  if (a.psnr) add_feature("psnr");
  if (a.ssim) add_feature("float_ssim");
  if (a.ms_ssim) add_feature("float_ms_ssim");
  cfg.disable_clip = a.disable_clip;
  cfg.enable_transform = a.enable_transform || a.phone_model;
  cfg.conf_interval = a.conf_interval;
  cfg.threads = a.threads ? a.threads : g_get_num_processors();
  cfg.subsample = a.subsample ? a.subsample : 1;
  cfg.backend = vg::to_backend(a.backend);
  cfg.vendor = vg::to_vendor(a.vendor);
  cfg.device_id = a.device_id;
  // Holding a CUDA context (shared with a decoder), the scorer runs on that context's GPU unless told otherwise.
  vg::cuda_scorer_device(GST_ELEMENT(self), &cfg.vendor, &cfg.device_id);
  cfg.scaling = vg::to_scaling(a.scale_method);
  {
    std::lock_guard<std::mutex> lk(s.mu);
    cfg.background_priority = is_live_locked(s);
  }
  cfg.on_frame = [self](const vmafx::FrameScore& fs) { post_frame(self, fs); };
  cfg.on_notice = [self](bool warning, const std::string& text, const std::string& detail) {
    post_notice(self, warning, text, detail);
  };
  std::unique_ptr<vg::ScoringSession> session;
  st = vg::ScoringSession::create(cfg, {g[kRefPad], g[kDistPad]}, &session);
  if (!st.is_ok()) {
    vg::ErrorCode code = vg::error_code_for(st.code());
    std::string text = "Could not set up scoring";
    if (st.code() == Errc::model_error) {
      std::string model = cfg.models.empty() ? a.model : cfg.models[0].model;
      for (const auto& m : cfg.models)
        if (st.message().find(m.model) != std::string::npos) model = m.model;
      code = vg::model_error_code(model);
      text = "Could not load VMAF model '" + model + "'";
    } else if (st.code() == Errc::device_unavailable) {
      text = "No usable GPU for backend=hip";
    }
    unref_caps();
    VMAFXHIP_ERROR(self, code, text, st.to_string());
    return false;
  }
  GST_INFO_OBJECT(self, "scoring %s on %s, %u thread(s), %zu scores", geometry_string(g[kRefPad]).c_str(),
                  session->backend_description().c_str(), cfg.threads, session->score_names().size());
  vg::InputConfig ic;
  ic.requested = cfg.backend;
  ic.scorer = session->backend();
  ic.vendor = cfg.vendor;
  ic.device_id = cfg.device_id;
  ic.allow_copy = a.allow_copy;
  // Features without a GPU implementation run on the CPU beside the GPU and read host memory: device input is then
  // brought to the host (each input kind under allow-copy).
  const std::string on_cpu = session->cpu_features();
  if (ic.scorer == vmafx::Backend::hip && !on_cpu.empty())
    ic.host_reason = "features on the CPU beside the GPU (" + on_cpu + ") read host memory";
  // One line on the bus (the reason's first clause); the whole reason, probes included, in the debug log.
  ic.on_notice = [self](const std::string& text, bool warning) {
    if (!InputsLock::held_here()) {
      post_notice(self, warning, short_reason(text), text);
      return;
    }
    ElementState& es = state(self);
    std::lock_guard<std::mutex> lk(es.input_notices_mu);
    es.input_notices.emplace_back(warning, text);
  };
  unref_caps();
  std::lock_guard<std::mutex> lk(s.mu);
  s.input_config = ic;
  s.fields = vg::message_field_names(session->score_names(), session->model_score_names());
  s.first_model_column = session->model_score_names().empty() ? "" : session->model_score_names()[0];
  s.session_geometry[0] = g[0];
  s.session_geometry[1] = g[1];
  s.created = std::move(session);
  return true;
}

enum class SessionReady { yes, not_yet, failed };

// Under submit_mu. Not live: the session is made here, at the first pair. Live: on a thread of its own (loading the
// model and probing the GPU takes longer than a frame), while the pairs before it is ready are skipped as busy.
SessionReady ensure_session(GstVmafxhip* self, bool live) {
  ElementState& s = state(self);
  if (s.session) return SessionReady::yes;
  if (!live && !s.creator.joinable()) {
    if (!make_session(self)) return SessionReady::failed;
  } else {
    if (!s.creator.joinable()) {
      s.creator_done = false;
      s.creator = std::thread([self] {
        (void)make_session(self);
        state(self).creator_done = true;
      });
      return SessionReady::not_yet;
    }
    if (!s.creator_done) return SessionReady::not_yet;
    s.creator.join();
  }
  std::lock_guard<std::mutex> lk(s.mu);
  s.session = std::move(s.created);
  return s.session ? SessionReady::yes : SessionReady::failed;
}

// Imports one frame of pad `p` through the input of its caps' kind (made once per session and pad).
Status import_frame(GstVmafxhip* self, unsigned p, GstBuffer* buf, vg::ImportedPicture* out,
                    const vg::InputKind** kind_out) {
  ElementState& s = state(self);
  GstCaps* caps;
  GstVideoInfo info;
  vg::InputConfig cfg;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    caps = gst_caps_ref(s.pads[p].caps);
    info = s.pads[p].info;
    cfg = s.input_config;
  }
  const vg::InputKind& kind = vg::input_kind_for_caps(caps);
  *kind_out = &kind;
  Status st = Status::ok();
  {
    InputsLock lk(s);
    if (!s.inputs[p] || s.input_kinds[p] != &kind) {
      if (s.inputs[p]) s.retired_inputs.push_back(std::move(s.inputs[p]));
      st = kind.create(cfg, p, &s.input_shared[&kind], &s.inputs[p]);
      s.input_kinds[p] = st.is_ok() ? &kind : nullptr;
    }
    if (st.is_ok()) {
      const uint64_t before = s.inputs[p]->frames_copied();
      st = s.inputs[p]->import(buf, info, caps, out);
      s.frames_copied.fetch_add(s.inputs[p]->frames_copied() - before, std::memory_order_relaxed);
    }
  }
  flush_input_notices(self);
  gst_caps_unref(caps);
  return st;
}

// Live: pairs the output's thread leaves in line for the next submitter when the scorer has no room.
constexpr size_t kLivePendingPairs = 2;

// Live: whether the calling thread may wait a little for the scorer (not the output stream's thread, unless that
// stream ended), and how long: one output frame.
bool may_wait_for_scorer(GstVmafxhip* self) {
  ElementState& s = state(self);
  std::lock_guard<std::mutex> lk(s.mu);
  return s.draining || std::this_thread::get_id() != s.output_thread || s.pads[s.out_pad].eos;
}

GstClockTime wait_budget_us(GstVmafxhip* self) {
  ElementState& s = state(self);
  std::lock_guard<std::mutex> lk(s.mu);
  const GstClockTime period = s.pads[s.out_pad].has_info ? frame_period(s.pads[s.out_pad].info) : GST_CLOCK_TIME_NONE;
  return GST_CLOCK_TIME_IS_VALID(period) ? period / GST_USECOND : 40000;
}

// Hands the formed pairs to the session in the order they were formed. The caller holds submit_mu (one submitter
// at a time).
GstFlowReturn submit_pending_held(GstVmafxhip* self) {
  ElementState& s = state(self);
  for (;;) {
    vg::FramePairOut pr;
    bool live;
    FrameMeta m;
    {
      std::lock_guard<std::mutex> lk(s.mu);
      if (s.failed) return GST_FLOW_ERROR;
      if (s.stopping) return GST_FLOW_FLUSHING;
      if (s.to_submit.empty()) return GST_FLOW_OK;
      if (s.engine_done) {
        // The session has finished: nothing more goes in (no pair forms after pairing is over).
        s.to_submit.clear();
        return GST_FLOW_OK;
      }
      pr = std::move(s.to_submit.front());
      s.to_submit.pop_front();
      live = is_live_locked(s);
      const vg::PadFrame& o = s.out_pad == kRefPad ? pr.ref : pr.dist;
      m.out_pts = o.pts;
      m.out_duration = o.duration;
      m.ref_pts = pr.ref.pts;
      m.dist_pts = pr.dist.pts;
      m.segment = s.pads[s.out_pad].segment;
    }
    SessionReady ready = ensure_session(self, live);
    if (ready == SessionReady::failed) return GST_FLOW_ERROR;
    auto skip_busy = [&] {
      SkipNotes notes;
      {
        std::lock_guard<std::mutex> lk(s.mu);
        count_skips_locked(self, {{kDistPad, SkipReason::busy, pr.dist.pts}}, frame_message_enabled(s), &notes);
      }
      report_skips(self, &notes);
    };
    if (live && (ready == SessionReady::not_yet || !s.session->has_room()) && may_wait_for_scorer(self)) {
      // The session is still being made (or stopping): a short, bounded wait for it.
      // Off the output's thread a pair may wait one frame for the scorer: a burst (a queue releasing its frames at
      // the end) is scored, a scorer slower than the source still skips.
      const gint64 until = g_get_monotonic_time() + gint64(wait_budget_us(self));
      while (g_get_monotonic_time() < until) {
        g_usleep(1000);
        {
          std::lock_guard<std::mutex> lk(s.mu);
          if (s.stopping || s.failed || s.pads[0].flushing || s.pads[1].flushing) break;
        }
        if (ready == SessionReady::not_yet) ready = ensure_session(self, live);
        if (ready == SessionReady::failed) return GST_FLOW_ERROR;
        if (ready == SessionReady::yes && s.session->has_room()) break;
      }
    }
    if (ready == SessionReady::not_yet || (live && !s.session->has_room())) {
      // The output's thread does not wait: the pair stays first in line for the next submitter (the other pad's
      // next frame), unless a few pairs wait already.
      if (!may_wait_for_scorer(self)) {
        std::lock_guard<std::mutex> lk(s.mu);
        // While the session is still being made (once, at the start) as many as a pad may hold wait for it.
        const size_t bound = ready == SessionReady::not_yet ? s.active.max_reference_frames : kLivePendingPairs;
        if (s.to_submit.size() < bound) {
          s.to_submit.push_front(std::move(pr));
          return GST_FLOW_OK;
        }
      }
      skip_busy();
      continue;
    }
    vg::ImportedPicture pic[2];
    for (unsigned p = 0; p < 2; p++) {
      const vg::InputKind* kind = nullptr;
      Status st = import_frame(self, p, p == kRefPad ? pr.ref.buffer : pr.dist.buffer, &pic[p], &kind);
      if (!st.is_ok()) {
        const std::string role = p == kRefPad ? "reference" : "distorted";
        VMAFXHIP_ERROR(self, vg::error_code_for(st.code()),
                       "Cannot read the " + role + " frame on " + pad_name(p) + " (" + (kind ? kind->name : "?") +
                           "): " + short_reason(st.message()),
                       st.to_string());
        return GST_FLOW_ERROR;
      }
    }
    uint64_t user;
    {
      std::lock_guard<std::mutex> lk(s.meta_mu);
      user = s.next_user++;
      s.meta[user] = m;
    }
    // Live: the distorted pad's thread may wait one frame for room; the output's thread does not wait, and leaves
    // the pair first in line for the next submitter while few wait. A pair that still finds no room goes in for the
    // temporal features only (skipped-busy, the next frame's motion exact), or, when even that is refused, is left
    // out (skipped-busy).
    bool defer = false;
    if (live && !may_wait_for_scorer(self)) {  // never while draining: nothing would take the pair up
      std::lock_guard<std::mutex> lk(s.mu);
      defer = s.to_submit.size() < kLivePendingPairs;
    }
    bool scored = true;
    Status st = s.session->submit(std::move(pic[0]), std::move(pic[1]), int64_t(m.out_pts), user, !live,
                                  live && !defer ? gint64(wait_budget_us(self)) : 0, live && !defer, &scored);
    if (st.is_ok() && !scored) {
      skip_busy();
      continue;
    }
    if (st.code() == Errc::busy) {
      {
        std::lock_guard<std::mutex> lk(s.meta_mu);
        s.meta.erase(user);
      }
      {
        std::lock_guard<std::mutex> lk(s.mu);
        if (s.stopping || s.pads[0].flushing || s.pads[1].flushing) return GST_FLOW_FLUSHING;
        if (defer) {
          s.to_submit.push_front(std::move(pr));
          return GST_FLOW_OK;
        }
      }
      skip_busy();
      continue;
    }
    if (!st.is_ok()) {
      VMAFXHIP_ERROR(self, vg::error_code_for(st.code()), "Scoring failed", st.to_string());
      return GST_FLOW_ERROR;
    }
  }
}

GstFlowReturn submit_pending(GstVmafxhip* self) {
  std::lock_guard<std::mutex> sub(state(self).submit_mu);
  return submit_pending_held(self);
}

// Once per session, when no further pair can form: every submitted frame is finished and its message posted.
void finish_engine(GstVmafxhip* self) {
  ElementState& s = state(self);
  std::lock_guard<std::mutex> sub(s.submit_mu);
  if (s.creator.joinable()) {
    s.creator.join();
    std::lock_guard<std::mutex> lk(s.mu);
    if (!s.session) s.session = std::move(s.created);
  }
  // Pairs another thread formed (or left in line) before pairing ended go first, none left behind.
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.draining = true;
  }
  const GstFlowReturn r = submit_pending_held(self);
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.draining = false;
  }
  if (r != GST_FLOW_OK) return;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (s.engine_done) return;
    s.engine_done = true;
  }
  if (!s.session) return;
  Status st = s.session->flush();
  if (!st.is_ok()) VMAFXHIP_ERROR(self, vg::error_code_for(st.code()), "Scoring failed", st.to_string());
}

vg::FrameTiming pooled_timing_locked(const ElementState& s, uint64_t frames) {
  // As GStreamer's vmaf: the output's position (the end of the last frame passed on), and the duration of the
  // frames scored at the output frame rate.
  const PadState& o = s.pads[s.out_pad];
  vg::FrameTiming t = timing_in(o.segment, s.last_output_end, GST_CLOCK_TIME_NONE);
  const GstClockTime period = o.has_info ? frame_period(o.info) : GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID(t.timestamp) && GST_CLOCK_TIME_IS_VALID(period)) t.duration = frames * period;
  return t;
}

void post_pooled(GstVmafxhip* self, bool write_results) {
  ElementState& s = state(self);
  vmafx::Collector empty;
  const vmafx::Collector* c = &empty;
  uint64_t frames = 0;
  double fps = 0;
  if (s.session) {
    c = &s.session->collector();
    frames = s.session->frames_submitted();
    fps = s.session->fps();
  }
  vmafx::PoolMethod method;
  {
    std::lock_guard<std::mutex> lk(s.settings_mu);
    method = vg::to_pool_method(s.settings.pool_method);
  }
  GstStructure* pooled;
  vmafx::VideoGeometry ref_geometry;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    pooled = vg::pooled_structure(*c, s.session ? s.fields : std::vector<std::string>{},
                                  s.session ? s.first_model_column : "", method, pooled_timing_locked(s, frames),
                                  s.skips);
    ref_geometry = s.session_geometry[kRefPad];
  }
  GST_INFO_OBJECT(self, "pooled: %" GST_PTR_FORMAT, pooled);
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), pooled));
  if (!write_results || !s.results.wanted() || !s.session || frames == 0) return;
  vmafx::ResultsInfo info;
  info.width = ref_geometry.width;
  info.height = ref_geometry.height;
  info.fps = fps;
  info.frame_count = frames;
  Status w = s.results.write(*c, info);
  if (!w.is_ok()) {
    VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE}),
                   "Could not write results file '" + s.results.path() + "'", w.to_string());
    return;
  }
  GST_INFO_OBJECT(self, "wrote %s results to %s", vmafx::results_format_name(s.results.format()),
                  s.results.path().c_str());
}

// The end of the output stream, once pairing is over: warning, pooled message, results file, EOS downstream.
void finish_stream(GstVmafxhip* self) {
  ElementState& s = state(self);
  finish_engine(self);
  std::lock_guard<std::mutex> sub(s.submit_mu);
  std::string warning;
  GstStructure* details = nullptr;
  bool no_pairs;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (s.finished || s.failed) return;
    s.finished = true;
    no_pairs = !s.session || s.session->frames_submitted() == 0;
    const vg::SkipReport r = skip_report_locked(s);
    if (!s.warned_skip || no_pairs) warning = vg::skip_warning_text(r, nullptr, SkipReason::count_);
    if (no_pairs) warning = "No frame pairs were scored" + (warning.empty() ? std::string() : ": " + warning);
    if (!warning.empty()) details = vg::skip_warning_details(r);
    s.warned_skip = s.warned_skip || !warning.empty();
  }
  if (!warning.empty())
    post_warning(self, warning, no_pairs ? "one stream ended before any frame could be paired" : "", details);
  post_pooled(self, true);
  GST_DEBUG_OBJECT(self, "end of stream");
  (void)release_output(self, true);
  gst_pad_push_event(self->src, gst_event_new_eos());
}

// Ends the session of a segment (flushing seek, stop). `pooled`: finish it and post its pooled message first, as
// GStreamer's vmaf does at a flushing seek.
void end_session(GstVmafxhip* self, bool pooled) {
  ElementState& s = state(self);
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (s.session) s.session->interrupt();  // wakes a submit waiting for room
    s.cv.notify_all();
  }
  std::lock_guard<std::mutex> sub(s.submit_mu);
  if (s.creator.joinable()) s.creator.join();
  bool flushed;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (!s.session) s.session = std::move(s.created);
    flushed = s.engine_done;
    s.to_submit.clear();
    s.pairer.reset();
    for (auto& v : s.sync_frames) v.clear();
    s.sync_done = false;
  }
  if (pooled && s.session) {
    if (!flushed) (void)s.session->flush();
    post_pooled(self, false);
  }
  std::unique_ptr<vg::ScoringSession> old;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    old = std::move(s.session);
    s.engine_done = false;
    s.finished = false;
    s.skips = {};
    s.paired = 0;
    s.warned_skip = false;
    s.warned_reasons = 0;
    s.last_output_end = GST_CLOCK_TIME_NONE;
    s.notices_said.clear();
  }
  old.reset();  // releases every picture the engine held
  {
    InputsLock lk(s);
    for (auto& in : s.inputs)
      if (in) (void)in->close();
    for (auto& in : s.retired_inputs)
      if (in) (void)in->close();
    s.inputs[0].reset();
    s.inputs[1].reset();
    s.input_kinds[0] = s.input_kinds[1] = nullptr;
    s.retired_inputs.clear();
    s.input_shared.clear();
  }
  flush_input_notices(self);
  {
    std::lock_guard<std::mutex> lk(s.meta_mu);
    s.meta.clear();
  }
  s.frames_scored.store(0);
  s.frames_skipped.store(0);
  s.frames_copied.store(0);
}

// ---------------------------------------------------------------------------------------------------------------
// Pairing

// Pairs join the submission queue in the critical section that formed them, so that they reach the engine in the
// order they formed, whichever streaming thread submits them.
void enqueue_pairs_locked(ElementState& s, std::vector<vg::FramePairOut>* pairs) {
  for (auto& pr : *pairs) s.to_submit.push_back(std::move(pr));
  s.paired += pairs->size();
  pairs->clear();
}

bool sync_pending_locked(const ElementState& s) { return s.active.auto_sync && !s.sync_done; }

bool pad_full_locked(const ElementState& s, unsigned p) {
  // auto-sync holds the first frames of each stream itself, as many as its search reads.
  if (sync_pending_locked(s)) return s.sync_frames[p].size() > size_t(vg::kAutoSyncWindow) + vg::kSyncPairsPerOffset;
  const guint64 max_bytes = s.active.max_reference_bytes;
  return s.pairer.held_frames(p) > s.active.max_reference_frames ||
         (max_bytes && s.pairer.held_bytes(p) > max_bytes && s.pairer.held_frames(p) > 1);
}

// Live: the oldest waiting frames are skipped. Otherwise the pad waits for its partner pad (backpressure), which
// must be linked and must make progress within stall-timeout.
void run_sync_locked(GstVmafxhip* self, std::vector<vg::FramePairOut>* pairs, std::vector<vg::Skip>* skips,
                     GstStructure** message);

GstFlowReturn wait_for_room_locked(GstVmafxhip* self, std::unique_lock<std::mutex>& lk, unsigned p,
                                   std::vector<vg::FramePairOut>* pairs, std::vector<vg::Skip>* skips,
                                   GstStructure** sync_message) {
  ElementState& s = state(self);
  const unsigned o = 1 - p;
  const gint64 wait_start = g_get_monotonic_time();
  while (pad_full_locked(s, p)) {
    if (s.failed) return GST_FLOW_ERROR;
    if (s.pads[p].flushing || s.stopping) return GST_FLOW_FLUSHING;
    if (p == s.out_pad && !s.out_open) {
      release_output_waiting(self, lk);
      continue;
    }
    if (!gst_pad_is_linked(self->sink[o])) {
      const std::string text = std::string(pad_name(o)) + " is not linked: " + pad_name(p) + " holds " +
                               std::to_string(s.pairer.held_frames(p)) + " frames waiting for their partners";
      lk.unlock();
      VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_CORE_ERROR, GST_CORE_ERROR_PAD}), text,
                     "link both ref_sink and dist_sink (max-reference-frames bounds what one pad holds)");
      lk.lock();
      return GST_FLOW_ERROR;
    }
    if (is_live_locked(s)) {
      if (sync_pending_locked(s)) {
        // A live source does not wait for the other stream's first frames: the search takes what there is.
        run_sync_locked(self, pairs, skips, sync_message);
        enqueue_pairs_locked(s, pairs);
      } else {
        s.pairer.drop_oldest(p, SkipReason::late, skips);
      }
      continue;
    }
    unsigned timeout_s;
    {
      std::lock_guard<std::mutex> sl(s.settings_mu);
      timeout_s = s.settings.stall_timeout;
    }
    const gint64 since = std::max(wait_start, s.pads[o].last_activity_us);
    if (timeout_s && g_get_monotonic_time() - since > gint64(timeout_s) * G_USEC_PER_SEC) {
      const std::string text = std::string(pad_name(p)) + " holds " + std::to_string(s.pairer.held_frames(p)) +
                               " frames (max-reference-frames=" + std::to_string(s.active.max_reference_frames) +
                               ") and " + pad_name(o) + " has received nothing for " + std::to_string(timeout_s) +
                               " s: raise max-reference-frames";
      lk.unlock();
      VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED}), text,
                     "the other branch probably waits for more input than the element holds (an encoder's lookahead "
                     "behind a tee); a larger max-reference-frames, or an unlimited queue before the pad, lets it "
                     "through (stall-timeout sets this wait)");
      lk.lock();
      return GST_FLOW_ERROR;
    }
    s.cv.wait_for(lk, std::chrono::milliseconds(200));
  }
  return GST_FLOW_OK;
}

// auto-sync: the first frames of both streams, then the offset, then those frames go through the pairer.
void run_sync_locked(GstVmafxhip* self, std::vector<vg::FramePairOut>* pairs, std::vector<vg::Skip>* skips,
                     GstStructure** message) {
  ElementState& s = state(self);
  std::vector<vg::ImportedPicture> held;
  std::vector<vmafx::PictureView> views[2];
  for (unsigned p = 0; p < 2; p++) {
    for (auto& f : s.sync_frames[p]) {
      vg::ImportedPicture pic;
      Status st = vg::import_system_memory(f.buffer, s.pads[p].info, &pic);
      if (!st.is_ok()) break;  // compared as far as readable
      views[p].push_back(pic.view());
      held.push_back(std::move(pic));
    }
  }
  vg::SyncResult r;
  const Status st = vg::find_offset(views[kRefPad], views[kDistPad], vg::kAutoSyncWindow, &r);
  held.clear();
  const int offset = s.active.dist_offset + (st.is_ok() ? r.offset : 0);
  if (st.is_ok()) {
    *message = vg::sync_structure(r.offset, r.psnr_y, vg::kAutoSyncWindow, r.compared);
    GST_INFO_OBJECT(self, "auto-sync: offset %d (luma PSNR %.2f dB over %u pairs)", r.offset, r.psnr_y, r.compared);
  } else {
    GST_INFO_OBJECT(self, "auto-sync: %s; offset %d", st.to_string().c_str(), offset);
  }
  s.pairer.configure(s.active.pairing == vg::PAIRING_TIMESTAMP, offset);
  s.sync_done = true;
  // Interleaved, so that neither pad's queue grows beyond the offset.
  const size_t n = std::max(s.sync_frames[0].size(), s.sync_frames[1].size());
  for (size_t i = 0; i < n; i++)
    for (unsigned p = 0; p < 2; p++)
      if (i < s.sync_frames[p].size()) s.pairer.push(p, std::move(s.sync_frames[p][i]), pairs, skips);
  for (auto& v : s.sync_frames) v.clear();
  // A stream that ended while the frames were held ends in the pairer now.
  for (unsigned p = 0; p < 2; p++)
    if (s.pads[p].eos) s.pairer.end(p, skips);
}

bool sync_ready_locked(const ElementState& s) {
  const size_t need = size_t(vg::kAutoSyncWindow) + vg::kSyncPairsPerOffset;
  for (unsigned p = 0; p < 2; p++)
    if (s.sync_frames[p].size() < need && !s.pads[p].eos) return false;
  return true;
}

// After pairs or skips were made: report, submit, and finish the engine when pairing is over.
GstFlowReturn after_pairing(GstVmafxhip* self, std::vector<vg::FramePairOut>* pairs, std::vector<vg::Skip>* skips,
                            GstStructure* sync_message) {
  ElementState& s = state(self);
  SkipNotes notes;
  bool over;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    enqueue_pairs_locked(s, pairs);
    count_skips_locked(self, *skips, frame_message_enabled(s), &notes);
    over = s.pairer.over();
  }
  if (sync_message)
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), sync_message));
  report_skips(self, &notes);
  const GstFlowReturn r = submit_pending(self);
  if (r != GST_FLOW_OK) return r;
  if (over) {
    finish_engine(self);
    std::lock_guard<std::mutex> lk(s.mu);
    s.cv.notify_all();
  }
  return GST_FLOW_OK;
}

GstFlowReturn pair_buffer(GstVmafxhip* self, unsigned p, GstBuffer* buf) {
  ElementState& s = state(self);
  std::vector<vg::FramePairOut> pairs;
  std::vector<vg::Skip> skips;
  GstStructure* sync_message = nullptr;
  {
    std::unique_lock<std::mutex> lk(s.mu);
    PadState& ps = s.pads[p];
    if (p == kDistPad && s.dist_renegotiating) {
      skips.push_back({p, SkipReason::renegotiated, GST_BUFFER_PTS(buf)});
      lk.unlock();
      gst_buffer_unref(buf);
      return after_pairing(self, &pairs, &skips, nullptr);
    }
    if (!ps.has_info) {
      lk.unlock();
      gst_buffer_unref(buf);
      VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION}),
                     std::string(pad_name(p)) + " received a buffer before its caps", "");
      return GST_FLOW_NOT_NEGOTIATED;
    }
    vg::PadFrame f;
    f.buffer = buf;
    f.pts = GST_BUFFER_PTS(buf);
    f.duration = GST_BUFFER_DURATION_IS_VALID(buf) ? GST_BUFFER_DURATION(buf) : frame_period(ps.info);
    f.bytes = gst_buffer_get_size(buf);
    const bool by_timestamp = s.active.pairing == vg::PAIRING_TIMESTAMP;
    if (by_timestamp) {
      if (!GST_CLOCK_TIME_IS_VALID(f.pts)) {
        lk.unlock();
        VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT}),
                       std::string(pad_name(p)) + " received a buffer without a timestamp (PTS)",
                       "pairing=timestamp pairs the frames of the same running time; set pairing=arrival to pair "
                       "the n-th buffer of each pad whatever its timestamp");
        return GST_FLOW_ERROR;
      }
      f.time = gst_segment_to_running_time(&ps.segment, GST_FORMAT_TIME, f.pts);
      if (!GST_CLOCK_TIME_IS_VALID(f.time)) {
        skips.push_back({p, SkipReason::out_of_segment, f.pts});
        lk.unlock();
        return after_pairing(self, &pairs, &skips, nullptr);
      }
    }
    if (GST_BUFFER_FLAG_IS_SET(buf, GST_BUFFER_FLAG_GAP) && gst_buffer_get_size(buf) == 0) {
      // A gap buffer holds no picture: the time passes without a frame.
      if (by_timestamp)
        s.pairer.gap(p, f.time + (GST_CLOCK_TIME_IS_VALID(f.duration) ? f.duration : 0), &skips);
      lk.unlock();
      return after_pairing(self, &pairs, &skips, nullptr);
    }
    if (s.active.auto_sync && !s.sync_done) {
      s.sync_frames[p].push_back(std::move(f));
      if (sync_ready_locked(s)) run_sync_locked(self, &pairs, &skips, &sync_message);
    } else {
      s.pairer.push(p, std::move(f), &pairs, &skips);
    }
    enqueue_pairs_locked(s, &pairs);
    const GstFlowReturn w = wait_for_room_locked(self, lk, p, &pairs, &skips, &sync_message);
    if (w != GST_FLOW_OK) {
      if (sync_message) gst_structure_free(sync_message);
      return w;
    }
  }
  return after_pairing(self, &pairs, &skips, sync_message);
}

// ---------------------------------------------------------------------------------------------------------------
// Pad functions

GstFlowReturn vmafxhip_chain(GstPad* pad, GstObject* parent, GstBuffer* buf) {
  auto* self = GST_VMAFXHIP(parent);
  ElementState& s = state(self);
  const unsigned p = pad_index(self, pad);
  bool output;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (s.failed) {
      gst_buffer_unref(buf);
      return GST_FLOW_ERROR;
    }
    if (s.pads[p].flushing || s.stopping) {
      gst_buffer_unref(buf);
      return GST_FLOW_FLUSHING;
    }
    output = p == s.out_pad;
    if (s.finished || (!output && s.pads[s.out_pad].eos && s.pairer.over() && is_live_locked(s))) {
      // Scoring is over and the output ended: the other stream is not needed any more.
      gst_buffer_unref(buf);
      return GST_FLOW_EOS;
    }
    s.pads[p].received++;
    s.pads[p].last_activity_us = g_get_monotonic_time();
    if (output) s.output_thread = std::this_thread::get_id();
    if (output && GST_BUFFER_PTS_IS_VALID(buf))
      s.last_output_end =
          GST_BUFFER_PTS(buf) + (GST_BUFFER_DURATION_IS_VALID(buf) ? GST_BUFFER_DURATION(buf) : 0);
    s.cv.notify_all();
  }
  learn_liveness(self, p);
  GstFlowReturn out = GST_FLOW_OK;
  if (output) {
    // The output passes on at once, before any scoring work on this frame.
    out = push_output(self, gst_buffer_ref(buf));
    if (out == GST_FLOW_FLUSHING) {
      gst_buffer_unref(buf);
      return out;
    }
  }
  const GstFlowReturn scored = pair_buffer(self, p, buf);
  if (scored == GST_FLOW_ERROR || scored == GST_FLOW_FLUSHING || scored == GST_FLOW_NOT_NEGOTIATED) return scored;
  return output ? out : scored;
}

// Whether dist_sink's upstream can give the reference's size (then a renegotiation can fix a size mismatch).
bool dist_can_take_reference_size(GstVmafxhip* self, const GstVideoInfo& ref) {
  GstCaps* templ = gst_pad_get_pad_template_caps(self->sink[kDistPad]);
  GstCaps* want = gst_caps_copy(templ);
  gst_caps_unref(templ);
  for (guint i = 0; i < gst_caps_get_size(want); i++)
    gst_structure_set(gst_caps_get_structure(want, i), "width", G_TYPE_INT, GST_VIDEO_INFO_WIDTH(&ref), "height",
                      G_TYPE_INT, GST_VIDEO_INFO_HEIGHT(&ref), nullptr);
  GstCaps* up = gst_pad_peer_query_caps(self->sink[kDistPad], want);
  const bool ok = !gst_caps_is_empty(up);
  gst_caps_unref(up);
  gst_caps_unref(want);
  return ok;
}

// Checks the two pads' caps against each other once both are known. False after posting the error.
bool check_pair_caps(GstVmafxhip* self) {
  ElementState& s = state(self);
  GstVideoInfo info[2];
  vmafx::VideoGeometry g[2];
  std::string caps[2];
  vg::Settings a;
  bool warn_colour = false;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (!s.pads[0].has_info || !s.pads[1].has_info) return true;
    for (unsigned i = 0; i < 2; i++) {
      info[i] = s.pads[i].info;
      g[i] = s.pads[i].geometry;
      caps[i] = caps_string(s.pads[i].caps);
    }
    a = s.active;
    warn_colour = !s.warned_colour;
  }
  const std::string both = "reference caps " + caps[0] + ", distorted caps " + caps[1];
  if (g[0].bit_depth != g[1].bit_depth || g[0].chroma != g[1].chroma) {
    VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION}),
                   "Reference (" + geometry_string(g[0]) + ") and distorted (" + geometry_string(g[1]) +
                       ") video must agree in bit depth and chroma subsampling",
                   both);
    return false;
  }
  if (g[0].width != g[1].width || g[0].height != g[1].height) {
    bool renegotiating = false;
    {
      std::lock_guard<std::mutex> lk(s.mu);
      renegotiating = s.dist_renegotiating;
    }
    const bool engine_scales = a.scale_method != vg::SCALE_NONE && vg::ScoringSession::scales_distorted();
    if (!renegotiating && !engine_scales && dist_can_take_reference_size(self, info[0])) {
      // The distorted caps were chosen before the reference's were known: upstream (videoscale) negotiates again,
      // with dist_sink offering the reference's size first. Distorted frames of the old size are not paired.
      std::vector<vg::Skip> skips;
      SkipNotes notes;
      {
        std::lock_guard<std::mutex> lk(s.mu);
        s.dist_renegotiating = true;
        while (s.pairer.held_frames(kDistPad)) s.pairer.drop_oldest(kDistPad, SkipReason::renegotiated, &skips);
        count_skips_locked(self, skips, frame_message_enabled(s), &notes);
      }
      // Asked before anything else: every distorted frame until upstream renegotiates is skipped, and a fast
      // upstream could otherwise deliver its whole stream while the skips are said.
      gst_pad_push_event(self->sink[kDistPad], gst_event_new_reconfigure());
      GST_INFO_OBJECT(self, "dist_sink: %s, the reference %s: asking upstream to renegotiate",
                      geometry_string(g[1]).c_str(), geometry_string(g[0]).c_str());
      report_skips(self, &notes);
      return true;
    }
    if (a.scale_method == vg::SCALE_NONE || !vg::ScoringSession::scales_distorted()) {
      VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION}),
                     "Reference (" + geometry_string(g[0]) + ") and distorted (" + geometry_string(g[1]) +
                         ") video must agree in width and height: put videoscale before dist_sink (it offers the "
                         "reference's size)",
                     both + (a.scale_method == vg::SCALE_NONE ? "; scale-method=none"
                                                              : "; this engine build does not scale"));
      return false;
    }
  }
  const int n0 = GST_VIDEO_INFO_FPS_N(&info[0]), d0 = GST_VIDEO_INFO_FPS_D(&info[0]);
  const int n1 = GST_VIDEO_INFO_FPS_N(&info[1]), d1 = GST_VIDEO_INFO_FPS_D(&info[1]);
  if (a.pairing == vg::PAIRING_TIMESTAMP && n0 > 0 && n1 > 0 && d0 > 0 && d1 > 0 &&
      gst_util_fraction_compare(n0, d0, n1, d1) != 0) {
    VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION}),
                   "Reference (" + fps_string(info[0]) + ") and distorted (" + fps_string(info[1]) +
                       ") frame rates differ: convert one with videorate (... ! videorate ! video/x-raw,framerate=" +
                       fps_string(info[0]) + " ! v.dist_sink), or set pairing=arrival",
                   both + "; pairing=timestamp pairs frames of the same time, which streams of different rates do "
                          "not have");
    return false;
  }
  const bool yuv = GST_VIDEO_INFO_IS_YUV(&info[0]) && GST_VIDEO_INFO_IS_YUV(&info[1]);
  if (warn_colour && yuv && !gst_video_colorimetry_is_equal(&info[0].colorimetry, &info[1].colorimetry)) {
    {
      // Both pads' caps may be checked at once: the first to get here warns.
      std::lock_guard<std::mutex> lk(s.mu);
      warn_colour = !s.warned_colour;
      s.warned_colour = true;
    }
  }
  if (warn_colour && yuv && !gst_video_colorimetry_is_equal(&info[0].colorimetry, &info[1].colorimetry)) {
    gchar* c0 = gst_video_colorimetry_to_string(&info[0].colorimetry);
    gchar* c1 = gst_video_colorimetry_to_string(&info[1].colorimetry);
    const bool range = info[0].colorimetry.range != info[1].colorimetry.range;
    const std::string text = std::string("Reference and distorted differ in ") + (range ? "range" : "colorimetry") +
                             " (" + (c0 ? c0 : "?") + " against " + (c1 ? c1 : "?") +
                             "): the scores compare the samples as they are; if both show the same picture, convert "
                             "one (videoconvert ! video/x-raw,colorimetry=" + (c0 ? c0 : "...") + ")";
    g_free(c0);
    g_free(c1);
    post_warning(self, text, both);
  }
  return true;
}

bool handle_caps(GstVmafxhip* self, unsigned p, GstCaps* caps) {
  ElementState& s = state(self);
  GstVideoInfo info;
  Status st = vg::video_info_from_caps(caps, &info);
  if (!st.is_ok()) {
    VMAFXHIP_ERROR(self, vg::error_code_for(st.code()), std::string("Unsupported video caps on ") + pad_name(p),
                   st.to_string() + "; caps " + caps_string(caps));
    return false;
  }
  if (GST_VIDEO_INFO_IS_INTERLACED(&info)) {
    VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION}),
                   std::string("Interlaced video on ") + pad_name(p) + " (interlace-mode=" +
                       gst_video_interlace_mode_to_string(GST_VIDEO_INFO_INTERLACE_MODE(&info)) +
                       "): vmafxhip scores progressive frames; put deinterlace before the pad",
                   "caps " + caps_string(caps));
    return false;
  }
  vmafx::VideoGeometry g;
  if (!vg::geometry_for(caps, info, &g)) {
    VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION}),
                   std::string("Unsupported video format ") + gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)) +
                       " on " + pad_name(p) + " (" + vg::input_kind_for_caps(caps).name + ")",
                   "caps " + caps_string(caps));
    return false;
  }
  std::string changed;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    const vmafx::VideoGeometry& was = s.session_geometry[p];
    if (s.session &&
        (was.width != g.width || was.height != g.height || was.bit_depth != g.bit_depth || was.chroma != g.chroma)) {
      changed = "Video geometry changed mid-stream on " + std::string(pad_name(p)) + ": scoring " +
                geometry_string(was) + ", new caps are " + geometry_string(g);
    } else {
      PadState& ps = s.pads[p];
      gst_caps_replace(&ps.caps, caps);
      ps.info = info;
      ps.has_info = true;
      ps.geometry = g;
      const vmafx::VideoGeometry& rg = s.pads[kRefPad].geometry;
      if (s.dist_renegotiating && s.pads[1 - p].has_info && rg.width == s.pads[kDistPad].geometry.width &&
          rg.height == s.pads[kDistPad].geometry.height)
        s.dist_renegotiating = false;
    }
  }
  if (!changed.empty()) {
    VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT}), changed,
                   "vmafxhip scores one geometry per stream; caps " + caps_string(caps));
    return false;
  }
  return check_pair_caps(self);
}

// A live pipeline starts making its session as soon as both pads have caps, so that the first pairs find it ready.
void prepare_live_session(GstVmafxhip* self, unsigned p) {
  ElementState& s = state(self);
  learn_liveness(self, p);
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (!is_live_locked(s) || !s.pads[0].has_info || !s.pads[1].has_info || s.failed) return;
  }
  std::lock_guard<std::mutex> sub(s.submit_mu);
  (void)ensure_session(self, true);
}

// The output pad ended: wait until pairing is over (non-live: until the other stream ended too, so its length is
// known), then finish.
void output_eos(GstVmafxhip* self) {
  ElementState& s = state(self);
  const unsigned p = s.out_pad, o = 1 - p;
  {
    std::unique_lock<std::mutex> lk(s.mu);
    const gint64 start = g_get_monotonic_time();
    for (;;) {
      if (s.failed || s.stopping || s.pads[p].flushing) return;
      if (!s.out_open) {
        release_output_waiting(self, lk);
        continue;
      }
      const bool live = is_live_locked(s);
      if (live ? s.pairer.over() : s.pads[o].eos) break;
      const gint64 waited = g_get_monotonic_time() - start;
      if (live) {
        // The waiting frames' partners get the hold window to arrive.
        const GstClockTime period = frame_period(s.pads[p].info);
        const GstClockTime hold =
            (GST_CLOCK_TIME_IS_VALID(period) ? period * s.active.max_reference_frames : GST_SECOND) +
            s.active.latency;
        if (GstClockTime(waited) * GST_USECOND > std::max<GstClockTime>(hold, GST_SECOND)) {
          std::vector<vg::Skip> skips;
          while (s.pairer.held_frames(p)) s.pairer.drop_oldest(p, SkipReason::late, &skips);
          SkipNotes notes;
          count_skips_locked(self, skips, frame_message_enabled(s), &notes);
          lk.unlock();
          report_skips(self, &notes);
          lk.lock();
          continue;
        }
      } else {
        unsigned timeout_s;
        {
          std::lock_guard<std::mutex> sl(s.settings_mu);
          timeout_s = s.settings.stall_timeout;
        }
        const gint64 since = std::max(start, s.pads[o].last_activity_us);
        if (timeout_s && g_get_monotonic_time() - since > gint64(timeout_s) * G_USEC_PER_SEC) {
          const std::string text = std::string(pad_name(p)) + " ended and " + pad_name(o) +
                                   " has received nothing for " + std::to_string(timeout_s) + " s";
          lk.unlock();
          VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED}), text,
                         "the other branch neither delivers frames nor ends (stall-timeout sets this wait)");
          return;
        }
      }
      s.cv.wait_for(lk, std::chrono::milliseconds(200));
    }
  }
  finish_stream(self);
}

gboolean vmafxhip_sink_event(GstPad* pad, GstObject* parent, GstEvent* event) {
  auto* self = GST_VMAFXHIP(parent);
  ElementState& s = state(self);
  const unsigned p = pad_index(self, pad);
  const bool output = p == s.out_pad;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.pads[p].last_activity_us = g_get_monotonic_time();
    s.cv.notify_all();
  }
  vg::gl_sink_event(GST_ELEMENT(self), event);  // GL caps: find the GL display / application context
  vg::cuda_sink_event(GST_ELEMENT(self), pad, event, cuda_settings(self));  // CUDA caps: find or make a CUDA context
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_CAPS: {
      GstCaps* caps = nullptr;
      gst_event_parse_caps(event, &caps);
      if (!handle_caps(self, p, caps)) {
        gst_event_unref(event);
        return FALSE;
      }
      prepare_live_session(self, p);
      // The output passes through unchanged: its caps go downstream as they came.
      if (output) return push_output_event(self, event);
      gst_event_unref(event);
      return TRUE;
    }
    case GST_EVENT_SEGMENT: {
      const GstSegment* seg = nullptr;
      gst_event_parse_segment(event, &seg);
      if (seg->format != GST_FORMAT_TIME) {
        VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT}),
                       std::string(pad_name(p)) + " received a " + gst_format_get_name(seg->format) +
                           " segment; video is paired in TIME",
                       "");
        gst_event_unref(event);
        return FALSE;
      }
      {
        std::lock_guard<std::mutex> lk(s.mu);
        gst_segment_copy_into(seg, &s.pads[p].segment);
      }
      if (output) return push_output_event(self, event);
      gst_event_unref(event);
      return TRUE;
    }
    case GST_EVENT_GAP: {
      GstClockTime ts, dur;
      gst_event_parse_gap(event, &ts, &dur);
      std::vector<vg::Skip> skips;
      std::vector<vg::FramePairOut> pairs;
      {
        std::lock_guard<std::mutex> lk(s.mu);
        GstClockTime end = GST_CLOCK_TIME_NONE;
        if (GST_CLOCK_TIME_IS_VALID(ts))
          end = gst_segment_to_running_time(&s.pads[p].segment, GST_FORMAT_TIME,
                                            ts + (GST_CLOCK_TIME_IS_VALID(dur) ? dur : 0));
        s.pairer.gap(p, end, &skips);
      }
      (void)after_pairing(self, &pairs, &skips, nullptr);
      if (output) return push_output_event(self, event);
      gst_event_unref(event);
      return TRUE;
    }
    case GST_EVENT_EOS: {
      std::vector<vg::Skip> skips;
      std::vector<vg::FramePairOut> pairs;
      GstStructure* sync_message = nullptr;
      SkipNotes notes;
      {
        std::lock_guard<std::mutex> lk(s.mu);
        s.pads[p].eos = true;
        if (sync_pending_locked(s)) {
          // The search runs once both streams gave their first frames or ended; it ends this stream then.
          if (sync_ready_locked(s)) run_sync_locked(self, &pairs, &skips, &sync_message);
          enqueue_pairs_locked(s, &pairs);
        } else {
          s.pairer.end(p, &skips);
        }
        // Counted with the end itself: the output pad's thread, woken by it, may finish the stream (and say the skip
        // counts) before this thread runs on.
        count_skips_locked(self, skips, frame_message_enabled(s), &notes);
        skips.clear();
        s.cv.notify_all();
      }
      gst_event_unref(event);
      report_skips(self, &notes);
      (void)after_pairing(self, &pairs, &skips, sync_message);
      if (!gst_pad_is_linked(self->sink[1 - p])) {
        // Its frames waited for a pad that never delivers anything: say so rather than wait for ever.
        VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_CORE_ERROR, GST_CORE_ERROR_PAD}),
                       std::string(pad_name(1 - p)) + " is not linked: link both ref_sink and dist_sink",
                       std::string(pad_name(p)) + " ended with " + std::to_string(s.pads[p].received) +
                           " frames and nothing to pair them with");
        return TRUE;
      }
      if (output) output_eos(self);
      return TRUE;
    }
    case GST_EVENT_FLUSH_START: {
      bool end_segment = false;
      {
        std::lock_guard<std::mutex> lk(s.mu);
        s.pads[p].flushing = true;
        const guint32 seq = gst_event_get_seqnum(event);
        if (seq != s.flush_seqnum) {
          s.flush_seqnum = seq;
          end_segment = true;
        }
        if (s.session) s.session->interrupt();
        if (output) drop_held_output_locked(s);
        s.cv.notify_all();
      }
      gboolean ret = TRUE;
      if (output) {
        ret = gst_pad_push_event(self->src, event);
      } else {
        gst_event_unref(event);
      }
      if (end_segment) end_session(self, true);
      return ret;
    }
    case GST_EVENT_FLUSH_STOP: {
      {
        std::lock_guard<std::mutex> lk(s.mu);
        PadState& ps = s.pads[p];
        ps.flushing = false;
        ps.eos = false;
        ps.received = 0;
        gst_segment_init(&ps.segment, GST_FORMAT_TIME);
        s.pairer.reset_pad(p);
        s.finished = false;
        if (output) s.out_flow = GST_FLOW_OK;
      }
      if (output) return gst_pad_push_event(self->src, event);
      gst_event_unref(event);
      return TRUE;
    }
    case GST_EVENT_STREAM_START:
      if (output) return push_output_event(self, event);
      gst_event_unref(event);
      return TRUE;
    default: break;
  }
  // Everything else follows the output stream; the other pad's events stop here.
  if (output) return GST_EVENT_IS_SERIALIZED(event) ? push_output_event(self, event) : gst_pad_event_default(pad, parent, event);
  gst_event_unref(event);
  return TRUE;
}

// Caps a sink pad takes: the template (the output pad: what downstream takes too). dist_sink offers the reference's
// size (and frame rate) first, so that videoscale / videorate upstream adapt without a caps filter.
GstCaps* sink_caps(GstVmafxhip* self, unsigned p, GstCaps* filter) {
  ElementState& s = state(self);
  GstCaps* templ = gst_pad_get_pad_template_caps(self->sink[p]);
  GstCaps* base;
  unsigned out;
  bool ref_known;
  GstVideoInfo ref_info;
  bool by_timestamp;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    out = s.out_pad;
    ref_known = s.pads[kRefPad].has_info;
    ref_info = s.pads[kRefPad].info;
    by_timestamp = s.active.pairing == vg::PAIRING_TIMESTAMP;
  }
  if (p == out) {
    GstCaps* peer = gst_pad_peer_query_caps(self->src, templ);
    base = gst_caps_intersect_full(peer, templ, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(peer);
    gst_caps_unref(templ);
  } else {
    base = templ;
  }
  if (p == kDistPad && ref_known) {
    GstCaps* preferred = gst_caps_copy(base);
    for (guint i = 0; i < gst_caps_get_size(preferred); i++) {
      GstStructure* st = gst_caps_get_structure(preferred, i);
      gst_structure_set(st, "width", G_TYPE_INT, GST_VIDEO_INFO_WIDTH(&ref_info), "height", G_TYPE_INT,
                        GST_VIDEO_INFO_HEIGHT(&ref_info), nullptr);
      if (by_timestamp && GST_VIDEO_INFO_FPS_N(&ref_info) > 0)
        gst_structure_set(st, "framerate", GST_TYPE_FRACTION, GST_VIDEO_INFO_FPS_N(&ref_info),
                          GST_VIDEO_INFO_FPS_D(&ref_info), nullptr);
    }
    GstCaps* first = gst_caps_intersect_full(preferred, base, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(preferred);
    base = gst_caps_merge(first, base);
  }
  if (filter) {
    GstCaps* t = gst_caps_intersect_full(filter, base, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(base);
    base = t;
  }
  return base;
}

gboolean vmafxhip_sink_query(GstPad* pad, GstObject* parent, GstQuery* query) {
  auto* self = GST_VMAFXHIP(parent);
  ElementState& s = state(self);
  const unsigned p = pad_index(self, pad);
  unsigned out;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    out = s.out_pad;
  }
  switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CAPS: {
      GstCaps* filter = nullptr;
      gst_query_parse_caps(query, &filter);
      GstCaps* caps = sink_caps(self, p, filter);
      gst_query_set_caps_result(query, caps);
      gst_caps_unref(caps);
      return TRUE;
    }
    case GST_QUERY_ACCEPT_CAPS: {
      GstCaps* caps = nullptr;
      gst_query_parse_accept_caps(query, &caps);
      bool accept = false;
      if (!vg::input_kind_for_caps(caps).accept_caps || !vg::input_kind_for_caps(caps).accept_caps(caps, &accept)) {
        GstCaps* allowed = sink_caps(self, p, nullptr);
        accept = gst_caps_is_fixed(caps) && gst_caps_can_intersect(caps, allowed);
        gst_caps_unref(allowed);
      }
      gst_query_set_accept_caps_result(query, accept);
      return TRUE;
    }
    case GST_QUERY_ALLOCATION: {
      if (p == out && gst_pad_peer_query(self->src, query)) {
        // Downstream decides for the output (its buffers go there); the element also reads GL sync metas.
        (void)vg::gl_pad_query(GST_ELEMENT(self), pad, query);
        return TRUE;
      }
      // The other pad's frames are read in place and dropped: any layout a video meta describes.
      gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
      (void)vg::gl_pad_query(GST_ELEMENT(self), pad, query);
      return TRUE;
    }
    case GST_QUERY_CONTEXT:
      if (vg::gl_pad_query(GST_ELEMENT(self), pad, query)) return TRUE;
      if (vg::cuda_pad_query(GST_ELEMENT(self), pad, query, cuda_settings(self))) return TRUE;
      break;
    default: break;
  }
  if (p == out) return gst_pad_query_default(pad, parent, query);
  return FALSE;
}

gboolean vmafxhip_src_query(GstPad* pad, GstObject* parent, GstQuery* query) {
  auto* self = GST_VMAFXHIP(parent);
  ElementState& s = state(self);
  unsigned out;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    out = s.out_pad;
  }
  switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CONTEXT:
      if (vg::gl_pad_query(GST_ELEMENT(self), pad, query)) return TRUE;
      if (vg::cuda_pad_query(GST_ELEMENT(self), pad, query, cuda_settings(self))) return TRUE;
      break;
    case GST_QUERY_CAPS: {
      GstCaps* filter = nullptr;
      gst_query_parse_caps(query, &filter);
      GstCaps* templ = gst_pad_get_pad_template_caps(pad);
      GstCaps* up = gst_pad_peer_query_caps(self->sink[out], filter ? filter : templ);
      GstCaps* caps = gst_caps_intersect_full(up, templ, GST_CAPS_INTERSECT_FIRST);
      gst_caps_unref(up);
      gst_caps_unref(templ);
      gst_query_set_caps_result(query, caps);
      gst_caps_unref(caps);
      return TRUE;
    }
    case GST_QUERY_LATENCY: {
      // The output's own upstream latency; the element adds nothing to it (the output passes through at once). Its
      // maximum grows by the hold window: the element holds up to max-reference-frames frames of each stream.
      gboolean live[2] = {FALSE, FALSE};
      GstClockTime min[2] = {0, 0}, max[2] = {GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_NONE};
      bool got[2] = {false, false};
      for (unsigned i = 0; i < 2; i++) {
        GstQuery* q = gst_query_new_latency();
        got[i] = gst_pad_peer_query(self->sink[i], q);
        if (got[i]) gst_query_parse_latency(q, &live[i], &min[i], &max[i]);
        gst_query_unref(q);
      }
      if (!got[out]) return FALSE;
      const unsigned o = 1 - out;
      GstClockTime hold, latency;
      bool warn = false;
      std::string text;
      gboolean is_live;
      {
        std::lock_guard<std::mutex> lk(s.mu);
        for (unsigned i = 0; i < 2; i++) {
          if (!got[i]) continue;
          s.pads[i].live_known = true;
          s.pads[i].live = live[i];
          s.pads[i].upstream_min = GST_CLOCK_TIME_IS_VALID(min[i]) ? min[i] : 0;
        }
        const GstClockTime period = s.pads[out].has_info ? frame_period(s.pads[out].info) : GST_CLOCK_TIME_NONE;
        hold = GST_CLOCK_TIME_IS_VALID(period) ? period * s.active.max_reference_frames : 0;
        latency = s.active.latency;
        is_live = is_live_locked(s);
        if (is_live && got[o] && !s.warned_latency && min[o] > min[out] + hold + latency) {
          s.warned_latency = true;
          warn = true;
          const GstClockTime lag = min[o] - min[out];
          const guint64 need = GST_CLOCK_TIME_IS_VALID(period) && period ? lag / period + 1 : 0;
          text = std::string("The ") + pad_name(o) + " branch's latency exceeds the " + pad_name(out) +
                 " branch's by " + std::to_string(lag / GST_MSECOND) + " ms, more than the element holds (" +
                 std::to_string(hold / GST_MSECOND) + " ms, max-reference-frames=" +
                 std::to_string(s.active.max_reference_frames) + "): frames will be skipped as late; raise "
                 "max-reference-frames to at least " + std::to_string(need);
        }
      }
      if (warn) post_warning(self, text, "");
      GstClockTime out_max = max[out];
      if (GST_CLOCK_TIME_IS_VALID(out_max)) out_max += hold + latency;
      gst_query_set_latency(query, is_live, min[out], out_max);
      GST_DEBUG_OBJECT(self, "latency: live %d, min %" GST_TIME_FORMAT ", max %" GST_TIME_FORMAT, is_live,
                       GST_TIME_ARGS(min[out]), GST_TIME_ARGS(out_max));
      return TRUE;
    }
    default: break;
  }
  return gst_pad_query_default(pad, parent, query);
}

gboolean vmafxhip_src_event(GstPad* pad, GstObject* parent, GstEvent* event) {
  auto* self = GST_VMAFXHIP(parent);
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_SEEK: {
      // Both streams move: the seek goes to both upstreams.
      gst_event_ref(event);
      const gboolean a = gst_pad_push_event(self->sink[kRefPad], event);
      const gboolean b = gst_pad_push_event(self->sink[kDistPad], event);
      return a && b;
    }
    case GST_EVENT_QOS:
      // An analyser scores every frame: upstream must not drop late frames on downstream's word.
      gst_event_unref(event);
      return TRUE;
    default: break;
  }
  return gst_pad_event_default(pad, parent, event);
}

// src links to the output pad and back; the other sink pad links nowhere.
GstIterator* vmafxhip_iterate_internal_links(GstPad* pad, GstObject* parent) {
  auto* self = GST_VMAFXHIP(parent);
  ElementState& s = state(self);
  unsigned out;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    out = s.out_pad;
  }
  GstPad* other = nullptr;
  if (pad == self->src) other = self->sink[out];
  if (pad == self->sink[out]) other = self->src;
  GValue v = G_VALUE_INIT;
  g_value_init(&v, GST_TYPE_PAD);
  if (other) g_value_set_object(&v, other);
  GstIterator* it = other ? gst_iterator_new_single(GST_TYPE_PAD, &v) : gst_iterator_new_single(GST_TYPE_PAD, nullptr);
  g_value_unset(&v);
  return it;
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
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.active = a;
    s.out_pad = a.output == vg::OUTPUT_DISTORTED ? kDistPad : kRefPad;
    for (auto& ps : s.pads) {
      gst_caps_replace(&ps.caps, nullptr);
      ps.has_info = false;
      gst_segment_init(&ps.segment, GST_FORMAT_TIME);
      ps.flushing = false;
      ps.eos = false;
      ps.live_known = false;
      ps.live = false;
      ps.received = 0;
      ps.last_activity_us = g_get_monotonic_time();
    }
    s.pairer.reset();
    s.pairer.configure(a.pairing == vg::PAIRING_TIMESTAMP, a.dist_offset);
    s.skips = {};
    s.paired = 0;
    s.stopping = false;
    s.failed = false;
    s.engine_done = false;
    s.finished = false;
    s.warned_skip = s.warned_colour = s.warned_latency = false;
    s.warned_reasons = 0;
    s.flush_seqnum = GST_SEQNUM_INVALID;
    s.last_output_end = GST_CLOCK_TIME_NONE;
    s.sync_done = false;
    s.dist_renegotiating = false;
    s.notices_said.clear();
    drop_held_output_locked(s);
    s.out_open = false;
    s.out_hold_since = 0;
    s.out_flow = GST_FLOW_OK;
  }
  s.frames_scored.store(0);
  s.frames_skipped.store(0);
  s.frames_copied.store(0);

  // Everything that can be checked before the first frame fails here, at the state change.
  const vg::ErrorCode settings_error{GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS};
  std::vector<vg::ScoringModel> models;
  Status st = vg::parse_models(a.model, 0, &models, nullptr);
  std::vector<vg::ScoringFeature> features;
  if (st.is_ok()) st = vg::parse_features(a.features, &features);
  if (!st.is_ok()) {
    VMAFXHIP_ERROR(self, settings_error, "Invalid settings", st.to_string());
    return false;
  }
  bool any_collection = false;
  for (const auto& entry : models) {
    vmafx::Model model;
    Status ms = vmafx::Model::load(entry.model, &model);
    if (!ms.is_ok()) {
      VMAFXHIP_ERROR(self, vg::model_error_code(entry.model), "Could not load VMAF model '" + entry.model + "'",
                     ms.to_string());
      return false;
    }
    any_collection = any_collection || model.is_collection();
  }
  if (a.conf_interval && !any_collection) {
    VMAFXHIP_ERROR(self, settings_error, "conf-interval needs a bootstrap model such as vmaf_b_v0.6.3",
                   models.empty() ? "model-filename is empty"
                                  : "model '" + a.model + "' is a single model, not a collection");
    return false;
  }
  if (a.results_filename.empty() && a.results_format != vg::RESULTS_NONE) {
    // GStreamer's vmaf scores on and writes nothing: so does vmafxhip, saying why.
    post_warning(self, "results-format is set but results-filename is not: no results file is written",
                 "set results-filename to the file to write");
  }
  st = s.results.open(a.results_filename, vg::to_results_format(a.results_format));
  if (!st.is_ok()) {
    VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE}),
                   "Could not open results file '" + a.results_filename + "' for writing", st.to_string());
    return false;
  }
  return true;
}

void stop(GstVmafxhip* self) {
  ElementState& s = state(self);
  end_session(self, false);
  s.results.close();
  std::lock_guard<std::mutex> lk(s.mu);
  for (auto& ps : s.pads) {
    gst_caps_replace(&ps.caps, nullptr);
    ps.has_info = false;
  }
  drop_held_output_locked(s);
  s.stopping = false;
}

GstStateChangeReturn vmafxhip_change_state(GstElement* element, GstStateChange transition) {
  auto* self = GST_VMAFXHIP(element);
  ElementState& s = state(self);
  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      if (!start(self)) return GST_STATE_CHANGE_FAILURE;
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY: {
      // Wake every streaming thread waiting in the element before the pads are deactivated (which waits for them).
      std::lock_guard<std::mutex> lk(s.mu);
      s.stopping = true;
      if (s.session) s.session->interrupt();
      s.cv.notify_all();
      break;
    }
    default: break;
  }
  const GstStateChangeReturn ret = GST_ELEMENT_CLASS(parent_class)->change_state(element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) stop(self);
  return ret;
}

void vmafxhip_set_context(GstElement* element, GstContext* context) {
  vg::gl_set_context(element, context);
  vg::cuda_set_context(element, context, cuda_settings(GST_VMAFXHIP(element)));
  GST_ELEMENT_CLASS(parent_class)->set_context(element, context);
}

// ---------------------------------------------------------------------------------------------------------------
// GObject

void vmafxhip_set_property(GObject* object, guint prop_id, const GValue* value, GParamSpec* pspec) {
  auto* self = GST_VMAFXHIP(object);
  ElementState& s = state(self);
  GST_OBJECT_LOCK(self);
  const GstState st = GST_STATE(self);
  GST_OBJECT_UNLOCK(self);
  if (!vg::property_change_allowed(GST_ELEMENT(self), pspec, st)) return;
  std::lock_guard<std::mutex> lk(s.settings_mu);
  vg::settings_set(&s.settings, prop_id, value);
  if (prop_id == vg::PROP_LOG_LEVEL && st > GST_STATE_READY && s.settings.log_level != vg::LOG_NONE)
    gst_debug_category_set_threshold(gst_vmafxhip_debug, vg::to_debug_level(s.settings.log_level));
}

void vmafxhip_get_property(GObject* object, guint prop_id, GValue* value, GParamSpec* pspec) {
  auto* self = GST_VMAFXHIP(object);
  ElementState& s = state(self);
  switch (prop_id) {
    case vg::PROP_FRAMES_SCORED: g_value_set_uint64(value, s.frames_scored.load()); return;
    case vg::PROP_FRAMES_SKIPPED: g_value_set_uint64(value, s.frames_skipped.load()); return;
    case vg::PROP_FRAMES_COPIED: g_value_set_uint64(value, s.frames_copied.load()); return;
    case vg::PROP_GL_STATS:
    case vg::PROP_CUDA_STATS: {
      // The inputs of the kind whose statistics property this is (null while no pad reads that kind).
      std::lock_guard<std::mutex> lk(s.inputs_mu);
      GstStructure* st = nullptr;
      const char* prefix[2] = {"ref", "dist"};
      for (unsigned p = 0; p < 2; p++) {
        const vg::InputKind* kind = s.input_kinds[p];
        if (!s.inputs[p] || !kind || !kind->stats_property || g_strcmp0(kind->stats_property, pspec->name) != 0)
          continue;
        if (!st) st = gst_structure_new_empty(kind->stats_property);
        s.inputs[p]->add_stats(st, prefix[p]);
      }
      g_value_take_boxed(value, st);
      return;
    }
    default: break;
  }
  std::lock_guard<std::mutex> lk(s.settings_mu);
  if (!vg::settings_get(s.settings, prop_id, value)) G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
}

void vmafxhip_finalize(GObject* object) {
  auto* self = GST_VMAFXHIP(object);
  end_session(self, false);
  for (auto& ps : self->st->pads) gst_caps_replace(&ps.caps, nullptr);
  delete self->st;
  self->st = nullptr;
  G_OBJECT_CLASS(parent_class)->finalize(object);
}

}  // namespace

static void gst_vmafxhip_class_init(GstVmafxhipClass* klass) {
  auto* gobject_class = G_OBJECT_CLASS(klass);
  auto* element_class = GST_ELEMENT_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_vmafxhip_debug, "vmafxhip", 0, "VMAF scoring element");

  gobject_class->set_property = GST_DEBUG_FUNCPTR(vmafxhip_set_property);
  gobject_class->get_property = GST_DEBUG_FUNCPTR(vmafxhip_get_property);
  gobject_class->finalize = GST_DEBUG_FUNCPTR(vmafxhip_finalize);
  element_class->change_state = GST_DEBUG_FUNCPTR(vmafxhip_change_state);
  element_class->set_context = GST_DEBUG_FUNCPTR(vmafxhip_set_context);

  vg::install_properties(gobject_class);

  GstCaps* caps = gst_caps_from_string(vg::input_template_caps().c_str());
  gst_element_class_add_pad_template(element_class, gst_pad_template_new("ref_sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template(element_class,
                                     gst_pad_template_new("dist_sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template(element_class, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref(caps);
  gst_element_class_set_static_metadata(element_class, "VMAF video quality", "Filter/Analyzer/Video",
                                        "Scores distorted video against its reference with VMAF, PSNR, SSIM and "
                                        "MS-SSIM (libvmaf's numbers), on the CPU or the GPU; passes the reference "
                                        "through",
                                        "vmafxhip developers");

  gst_type_mark_as_plugin_api(vg::pool_method_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::results_format_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::log_level_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::backend_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::vendor_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::output_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::pairing_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vg::scale_method_get_type(), GstPluginAPIFlags(0));
}

static void gst_vmafxhip_init(GstVmafxhip* self) {
  self->st = new ElementState();
  GstElementClass* klass = GST_ELEMENT_GET_CLASS(self);
  for (unsigned p = 0; p < 2; p++) {
    GstPad* pad = gst_pad_new_from_template(gst_element_class_get_pad_template(klass, pad_name(p)), pad_name(p));
    gst_pad_set_chain_function(pad, GST_DEBUG_FUNCPTR(vmafxhip_chain));
    gst_pad_set_event_function(pad, GST_DEBUG_FUNCPTR(vmafxhip_sink_event));
    gst_pad_set_query_function(pad, GST_DEBUG_FUNCPTR(vmafxhip_sink_query));
    gst_pad_set_iterate_internal_links_function(pad, GST_DEBUG_FUNCPTR(vmafxhip_iterate_internal_links));
    gst_element_add_pad(GST_ELEMENT(self), pad);
    self->sink[p] = pad;
  }
  self->src = gst_pad_new_from_template(gst_element_class_get_pad_template(klass, "src"), "src");
  gst_pad_set_event_function(self->src, GST_DEBUG_FUNCPTR(vmafxhip_src_event));
  gst_pad_set_query_function(self->src, GST_DEBUG_FUNCPTR(vmafxhip_src_query));
  gst_pad_set_iterate_internal_links_function(self->src, GST_DEBUG_FUNCPTR(vmafxhip_iterate_internal_links));
  gst_element_add_pad(GST_ELEMENT(self), self->src);
  for (auto& ps : self->st->pads) {
    gst_video_info_init(&ps.info);
    gst_segment_init(&ps.segment, GST_FORMAT_TIME);
  }
}
