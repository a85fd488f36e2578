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
#include "gstvmafxhip.h"

#include <gst/video/video.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gstvmafxhipcuda.h"
#include "gstvmafxhipgl.h"
#include "gstvmafxhipimport.h"
#include "gstvmafxhipinput.h"
#include "gstvmafxhipmessages.h"
#include "gstvmafxhipsettings.h"
#include "gstvmafxhipsync.h"
#include "gstvmafxhipupstream.h"
#include "scoring_session.h"
#include "stream_pairing.h"
#include "vmafx/model.h"

GST_DEBUG_CATEGORY(gst_vmafxhip_debug);
#define GST_CAT_DEFAULT gst_vmafxhip_debug

// ---- Distorted pads: dist_sink and dist_sink_%u, each with its own dist-offset ------------------------------------

struct GstVmafxhipDistPad {
  GstPad parent;
  gint offset;
};
struct GstVmafxhipDistPadClass {
  GstPadClass parent_class;
};
G_DEFINE_TYPE(GstVmafxhipDistPad, gst_vmafxhip_dist_pad, GST_TYPE_PAD)
#define kInheritOffset G_MININT

static void dist_pad_set_property(GObject* o, guint id, const GValue* v, GParamSpec* ps) {
  if (id == 1) {
    GST_OBJECT_LOCK(o);
    reinterpret_cast<GstVmafxhipDistPad*>(o)->offset = g_value_get_int(v);
    GST_OBJECT_UNLOCK(o);
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(o, id, ps);
  }
}
static void dist_pad_get_property(GObject* o, guint id, GValue* v, GParamSpec* ps) {
  if (id == 1) {
    GST_OBJECT_LOCK(o);
    g_value_set_int(v, reinterpret_cast<GstVmafxhipDistPad*>(o)->offset);
    GST_OBJECT_UNLOCK(o);
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(o, id, ps);
  }
}
static void gst_vmafxhip_dist_pad_class_init(GstVmafxhipDistPadClass* k) {
  GObjectClass* g = G_OBJECT_CLASS(k);
  g->set_property = dist_pad_set_property;
  g->get_property = dist_pad_get_property;
  g_object_class_install_property(
      g, 1,
      g_param_spec_int("dist-offset", "Distorted offset",
                       "Frames this stream is late by (as the element's dist-offset, for this pad alone); "
                       "-2147483648: the element's dist-offset",
                       G_MININT, G_MAXINT, kInheritOffset,
                       GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
}
static void gst_vmafxhip_dist_pad_init(GstVmafxhipDistPad* p) { p->offset = kInheritOffset; }

namespace {

using vmafx::Errc;
using vmafx::Status;
namespace vg = vmafx::gst;
using vg::kDistPad;
using vg::kRefPad;
using vg::SkipReason;

// What a frame carries besides its buffer: the caps and segment its pad had when it arrived.
struct PadEpoch {
  GstCaps* caps = nullptr;
  GstVideoInfo info;
  vmafx::VideoGeometry geometry;
  GstSegment segment;
  PadEpoch() {
    gst_video_info_init(&info);
    gst_segment_init(&segment, GST_FORMAT_TIME);
  }
  PadEpoch(const PadEpoch& o) : info(o.info), geometry(o.geometry), segment(o.segment) {
    caps = o.caps ? gst_caps_ref(o.caps) : nullptr;
  }
  PadEpoch& operator=(const PadEpoch&) = delete;
  ~PadEpoch() {
    if (caps) gst_caps_unref(caps);
  }
};

struct BufferHold {
  GstBuffer* buf;
  explicit BufferHold(GstBuffer* b) : buf(b) {}
  ~BufferHold() { gst_buffer_unref(buf); }
};

struct SinkPad {
  GstPad* pad = nullptr;
  std::string name;
  std::shared_ptr<const PadEpoch> epoch;  // the pad's caps and segment now (under mu)
  bool live_known = false;
  // Its input (under inputs_mu): made at its first frame, made anew for another memory kind or configuration.
  std::unique_ptr<vg::Input> input;
  const vg::InputKind* kind = nullptr;
  vg::InputConfig config;
  bool config_changed = false;
};

struct ElementState {
  std::mutex settings_mu;
  vg::Settings settings;  // the properties

  std::mutex mu;  // pads, the active settings, the output position, what was said
  vg::Settings active;
  unsigned out_pad = kRefPad;
  std::map<unsigned, SinkPad> pads;
  unsigned next_request = 0;
  GstClockTime last_output_end = GST_CLOCK_TIME_NONE;
  std::string said;  // notices said this run
  bool warned_colour = false;
  std::map<std::vector<std::string>, std::vector<std::string>> fields;  // message field names per score names

  vg::StreamPairing pairing;
  std::unique_ptr<vg::ScoringSession> session;
  std::atomic<bool> failed{false};
  std::atomic<GstFlowReturn> out_flow{GST_FLOW_OK};

  std::mutex inputs_mu;
  std::map<const vg::InputKind*, std::shared_ptr<void>> input_shared;
  std::vector<std::unique_ptr<vg::Input>> retired_inputs;
  std::atomic<uint64_t> frames_copied{0};
};

}  // namespace

struct _GstVmafxhip {
  GstElement parent;
  GstPad* src;
  ElementState* st;
};

#define gst_vmafxhip_parent_class parent_class
G_DEFINE_TYPE(GstVmafxhip, gst_vmafxhip, GST_TYPE_ELEMENT)
GST_ELEMENT_REGISTER_DEFINE(vmafxhip, "vmafxhip", GST_RANK_NONE, GST_TYPE_VMAFXHIP)

namespace {

GQuark pad_id_quark() {
  static GQuark q = g_quark_from_static_string("vmafxhip-pad-id");
  return q;
}
unsigned pad_id(GstPad* pad) { return GPOINTER_TO_UINT(g_object_get_qdata(G_OBJECT(pad), pad_id_quark())) - 1; }

ElementState& state(GstVmafxhip* self) { return *self->st; }

std::string pad_name(GstVmafxhip* self, unsigned id) {
  ElementState& s = state(self);
  std::lock_guard<std::mutex> lk(s.mu);
  auto it = s.pads.find(id);
  return it == s.pads.end() ? "dist_sink" : it->second.name;
}

std::string caps_string(const GstCaps* caps) {
  if (!caps) return "(none)";
  gchar* c = gst_caps_to_string(caps);
  std::string out = c ? c : "";
  g_free(c);
  return out;
}

std::string geometry_string(const vmafx::VideoGeometry& g) {
  return std::to_string(g.width) + "x" + std::to_string(g.height) + " " + std::to_string(g.bit_depth) + "-bit " +
         vmafx::chroma_name(g.chroma);
}

GstClockTime frame_period(const GstVideoInfo& info) {
  if (GST_VIDEO_INFO_FPS_N(&info) <= 0 || GST_VIDEO_INFO_FPS_D(&info) <= 0) return GST_CLOCK_TIME_NONE;
  return gst_util_uint64_scale_int(GST_SECOND, GST_VIDEO_INFO_FPS_D(&info), GST_VIDEO_INFO_FPS_N(&info));
}

std::string short_reason(const std::string& m) {
  std::string s = m.substr(0, m.find("; "));
  if (s.size() < m.size() && m.find("allow-copy=false") != std::string::npos &&
      s.find("allow-copy=false") == std::string::npos)
    s += " (allow-copy=false forbids a copy)";
  return s;
}

// Posts an error once per run (later failures are consequences of the first) and fails the pairing.
void post_error_at(const char* file, const char* function, int line, GstVmafxhip* self, vg::ErrorCode code,
                   const std::string& text, const std::string& debug) {
  ElementState& s = state(self);
  if (s.failed.exchange(true)) return;
  s.pairing.fail();
  vg::post_text(GST_ELEMENT(self), GST_MESSAGE_ERROR, code, text, debug, file, function, line);
}
#define VMAFXHIP_ERROR(self, code, text, debug) post_error_at(__FILE__, GST_FUNCTION, __LINE__, self, code, text, debug)

void post_message(GstVmafxhip* self, GstMessageType type, const std::string& text, const std::string& debug,
                  GstStructure* details = nullptr) {
  vg::post_text(GST_ELEMENT(self), type, {GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED}, text, debug, __FILE__,
                GST_FUNCTION, __LINE__, details);
}

// Said once per run and text.
void post_notice(GstVmafxhip* self, bool warning, const std::string& text, const std::string& detail) {
  ElementState& s = state(self);
  {
    std::lock_guard<std::mutex> lk(s.mu);
    if (s.said.find("\n" + text + "\n") != std::string::npos) return;
    s.said += "\n" + text + "\n";
  }
  GST_INFO_OBJECT(self, "%s", vg::sanitize_utf8(detail).c_str());
  // gst-launch prints an INFO message's debug text only: both carry the one line.
  vg::post_text(GST_ELEMENT(self), warning ? GST_MESSAGE_WARNING : GST_MESSAGE_INFO,
                {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS}, text, text, __FILE__, GST_FUNCTION, __LINE__);
}

bool frame_messages(ElementState& s) {
  std::lock_guard<std::mutex> lk(s.settings_mu);
  return s.settings.frame_message;
}

vg::CudaSettings cuda_settings(GstVmafxhip* self) {
  ElementState& s = state(self);
  std::lock_guard<std::mutex> lk(s.settings_mu);
  return {vg::to_backend(s.settings.backend), vg::to_vendor(s.settings.vendor), s.settings.device_id};
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

const PadEpoch& epoch_of(const vg::Frame& f) { return *static_cast<const PadEpoch*>(f.meta.get()); }
GstBuffer* buffer_of(const vg::Frame& f) { return static_cast<const BufferHold*>(f.payload.get())->buf; }

vg::SkipReport skip_report(GstVmafxhip* self, unsigned pad, const vg::RenditionCounts& c) {
  ElementState& s = state(self);
  vg::SkipReport r;
  r.skips = c.skips;
  r.ref_frames = c.ref_frames;
  r.dist_frames = c.dist_frames;
  r.paired = c.paired;
  r.dist_cut = c.cut;
  r.live = s.pairing.live();
  std::lock_guard<std::mutex> lk(s.mu);
  r.max_reference_frames = s.active.max_reference_frames;
  r.dist_pad = s.pads.count(pad) ? s.pads[pad].name : "dist_sink";
  return r;
}

// What the pairing decided: skip messages, auto-sync's result, the first live skip of each reason.
void report(GstVmafxhip* self, vg::Report&& r) {
  ElementState& s = state(self);
  if (r.empty()) return;
  if (frame_messages(s)) {
    for (const vg::Skip& k : r.skips) {
      GstSegment seg;
      std::string pad, rendition;
      {
        std::lock_guard<std::mutex> lk(s.mu);
        auto it = s.pads.find(k.pad);
        if (it == s.pads.end() || !it->second.epoch) continue;
        seg = it->second.epoch->segment;
        pad = it->second.name;
        rendition = s.pads.count(k.rendition) ? s.pads[k.rendition].name : pad;
      }
      GstStructure* st = vg::skip_structure(pad, rendition, k.reason, timing_in(seg, k.pts, GST_CLOCK_TIME_NONE));
      gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), st));
    }
  }
  for (const auto& sy : r.synced) {
    if (!sy.ok) continue;
    GstStructure* st = vg::sync_structure(pad_name(self, sy.pad), sy.found.offset, sy.found.psnr_y,
                                          vg::kAutoSyncWindow, sy.found.compared);
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), st));
  }
  // A live pipeline may never end: each cause of skips is said once, when it first happens.
  for (const auto& [pad, reason] : r.first_live_skips) {
    const vg::SkipReport sr = skip_report(self, pad, s.pairing.counts(pad));
    const bool warn = reason == SkipReason::late || reason == SkipReason::busy;
    post_message(self, warn ? GST_MESSAGE_WARNING : GST_MESSAGE_INFO, vg::skip_warning_text(sr, nullptr, reason),
                 "live pipeline: frames are skipped rather than delaying the source", vg::skip_warning_details(sr));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading frames (the session thread)

// Posts the inputs' notices (the INFO / WARNING that a frame was copied, and why); said once each.
vg::InputConfig input_config(GstVmafxhip* self, vmafx::Backend scorer, const std::vector<std::string>& on_cpu) {
  ElementState& s = state(self);
  vg::InputConfig ic;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    ic.requested = vg::to_backend(s.active.backend);
    ic.vendor = vg::to_vendor(s.active.vendor);
    ic.device_id = s.active.device_id;
    ic.allow_copy = s.active.allow_copy;
  }
  vg::cuda_scorer_device(GST_ELEMENT(self), &ic.vendor, &ic.device_id);
  ic.scorer = scorer;
  if (scorer == vmafx::Backend::hip && !on_cpu.empty()) {
    std::string names;
    for (const auto& n : on_cpu) names += (names.empty() ? "" : ", ") + n;
    ic.host_reason = "features on the CPU beside the GPU (" + names + ") read host memory";
  }
  ic.on_notice = [self](const std::string& text, bool warning) { post_notice(self, warning, short_reason(text), text); };
  return ic;
}

Status read_frame(GstVmafxhip* self, unsigned pad, const vg::Frame& f, vg::ReadPicture* out) {
  ElementState& s = state(self);
  const PadEpoch& e = epoch_of(f);
  const vg::InputKind& kind = vg::input_kind_for_caps(e.caps);
  auto pic = std::make_shared<vg::ImportedPicture>();
  Status st = Status::ok();
  {
    std::lock_guard<std::mutex> lk(s.inputs_mu);
    auto it = s.pads.find(pad);  // the map itself changes under mu and inputs_mu both
    if (it == s.pads.end()) return {Errc::invalid_argument, "the pad is gone"};
    SinkPad& p = it->second;
    if (!p.input || p.kind != &kind || p.config_changed) {
      if (p.input) s.retired_inputs.push_back(std::move(p.input));
      st = kind.create(p.config, pad, &s.input_shared[&kind], &p.input);
      p.kind = st ? &kind : nullptr;
      p.config_changed = false;
    }
    if (st) {
      const uint64_t before = p.input->frames_copied();
      st = p.input->import(buffer_of(f), e.info, e.caps, pic.get());
      s.frames_copied.fetch_add(p.input->frames_copied() - before, std::memory_order_relaxed);
    }
  }
  if (!st) return st.prepend(std::string(kind.name));
  out->view = pic->view();
  out->keep = pic;
  return Status::ok();
}

void close_inputs(ElementState& s) {
  std::lock_guard<std::mutex> lk(s.inputs_mu);
  for (auto& [id, p] : s.pads) {
    if (p.input) (void)p.input->close();
    p.input.reset();
    p.kind = nullptr;
  }
  for (auto& in : s.retired_inputs) (void)in->close();
  s.retired_inputs.clear();
  s.input_shared.clear();
}

// auto-sync's search: the first frames' luma PSNR (system memory; frames it cannot map are left out).
bool sync_search(const std::vector<vg::Frame>& ref, const std::vector<vg::Frame>& dist, int centre, int window,
                 vg::SyncFound* out) {
  std::vector<vg::ImportedPicture> held;
  std::vector<vmafx::PictureView> views[2];
  for (int k = 0; k < 2; k++) {
    for (const vg::Frame& f : k == 0 ? ref : dist) {
      vg::ImportedPicture pic;
      if (!vg::import_system_memory(buffer_of(f), epoch_of(f).info, &pic)) break;
      views[k].push_back(pic.view());
      held.push_back(std::move(pic));
    }
  }
  vg::SyncResult r;
  if (!vg::find_offset(views[0], views[1], centre, window, &r)) return false;
  out->offset = r.offset;
  out->psnr_y = r.psnr_y;
  out->compared = r.compared;
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// The session's callbacks

void on_frame(GstVmafxhip* self, const vg::ScoredFrame& f, const vmafx::FrameScore& score,
              const std::vector<std::string>& names, const std::vector<std::string>& models) {
  ElementState& s = state(self);
  if (!frame_messages(s)) return;
  std::vector<std::string> fields;
  vg::FrameExtras x;
  const vg::Frame* out;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    auto it = s.fields.find(names);
    if (it == s.fields.end()) it = s.fields.emplace(names, vg::message_field_names(names, models)).first;
    fields = it->second;
    out = s.out_pad == kRefPad || f.pad != kDistPad ? &f.ref : &f.dist;
    x.pad = s.pads.count(f.pad) ? s.pads[f.pad].name : "dist_sink";
  }
  x.ref_pts = f.ref.pts;
  x.dist_pts = f.dist.pts;
  x.scaled_from = f.scaled_from;
  GstStructure* st = vg::frame_structure(score, fields, timing_in(epoch_of(*out).segment, out->pts, out->duration), x);
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), st));
}

void on_end(GstVmafxhip* self, const std::vector<vg::RenditionResult>& results, bool final) {
  ElementState& s = state(self);
  vmafx::PoolMethod method;
  {
    std::lock_guard<std::mutex> lk(s.settings_mu);
    method = vg::to_pool_method(s.settings.pool_method);
  }
  uint64_t scored = 0;
  for (const auto& r : results) scored += r.frames;
  for (const auto& r : results) {
    const vg::SkipReport sr = skip_report(self, r.pad, r.counts);
    if (final) {
      // Frames left out are said once at the end (live: each reason when it first happened). Lengths that differ
      // and offsets are said as GStreamer's vmaf would not: as INFO; frames lost to the scorer's or a branch's pace
      // as a WARNING.
      const bool live_said = sr.live;
      vg::SkipReason main = SkipReason::count_;
      std::string text = vg::skip_warning_text(sr, &main, SkipReason::count_);
      if (scored == 0) {
        // Nothing scored at all: one warning, with the lengths.
        post_message(self, GST_MESSAGE_WARNING,
                     "No frame pairs were scored" + (text.empty() ? std::string() : ": " + text),
                     "a stream ended before any frame could be paired with its partner", vg::skip_warning_details(sr));
        scored = 1;  // said
      } else if (!text.empty() && !live_said) {
        const bool warn = main == SkipReason::late || main == SkipReason::busy;
        post_message(self, warn ? GST_MESSAGE_WARNING : GST_MESSAGE_INFO, text, "", vg::skip_warning_details(sr));
      }
    }
    GstSegment seg;
    GstClockTime end, period = GST_CLOCK_TIME_NONE;
    vg::PooledExtras x;
    {
      std::lock_guard<std::mutex> lk(s.mu);
      auto out = s.pads.find(s.out_pad);
      gst_segment_init(&seg, GST_FORMAT_TIME);
      if (out != s.pads.end() && out->second.epoch) {
        seg = out->second.epoch->segment;
        period = frame_period(out->second.epoch->info);
      }
      end = s.last_output_end;
      x.pad = s.pads.count(r.pad) ? s.pads[r.pad].name : "dist_sink";
    }
    x.scaled_from = r.scaled_from;
    x.late_join = r.counts.late_join;
    x.first_ref_pts = r.counts.first_ref_pts;
    x.ref_frames = r.counts.ref_frames;
    x.dist_frames = r.counts.dist_frames;
    x.paired = r.counts.paired;
    // As GStreamer's vmaf: the output's position (the end of the last frame passed on), and the duration of the
    // frames scored at the output frame rate.
    vg::FrameTiming t = timing_in(seg, end, GST_CLOCK_TIME_NONE);
    if (GST_CLOCK_TIME_IS_VALID(t.timestamp) && GST_CLOCK_TIME_IS_VALID(period)) t.duration = r.frames * period;
    const std::string model = r.model_score_names.empty() ? "" : r.model_score_names[0];
    std::vector<std::string> fields = vg::message_field_names(r.score_names, r.model_score_names);
    GstStructure* pooled = vg::pooled_structure(*r.collector, fields, model, method, t, r.counts.skips, x);
    GST_INFO_OBJECT(self, "pooled: %" GST_PTR_FORMAT, pooled);
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), pooled));
  }
  if (final && results.empty())
    post_message(self, GST_MESSAGE_WARNING, "No frame pairs were scored", "no distorted stream took part");
}

void on_error(GstVmafxhip* self, int kind, Errc code, const std::string& text, const std::string& detail) {
  vg::ErrorCode ec = vg::error_code_for(code);
  std::string debug = detail;
  if (kind == 1) ec = {GST_CORE_ERROR, GST_CORE_ERROR_PAD};
  if (kind == 2) ec = {GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED};
  if (kind == 3) {
    ec = {GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION};
    ElementState& s = state(self);
    std::lock_guard<std::mutex> lk(s.mu);
    for (auto& [id, p] : s.pads)
      if (p.epoch && p.epoch->caps) debug += "; " + p.name + " caps " + caps_string(p.epoch->caps);
  }
  if (code == Errc::model_error) ec = {GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT};
  if (code == Errc::io_error) ec = {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE};
  VMAFXHIP_ERROR(self, ec, text, debug);
}

vmafx::ScorerConfig scorer_config(const vg::Settings& a, std::vector<vg::ScoringModel> models,
                                  std::vector<vg::ScoringFeature> features, GstElement* element);

vg::SessionCallbacks session_callbacks(GstVmafxhip* self) {
  vg::SessionCallbacks cb;
  cb.shape = [](unsigned, const vg::Frame& f) {
    const PadEpoch& e = epoch_of(f);
    vg::FrameShape sh;
    sh.geometry = e.geometry;
    sh.par_n = std::max(1, GST_VIDEO_INFO_PAR_N(&e.info));
    sh.par_d = std::max(1, GST_VIDEO_INFO_PAR_D(&e.info));
    return sh;
  };
  cb.prepare = [self](const vg::Frame& ref_frame, const vmafx::VideoGeometry& ref, vmafx::ScorerConfig* cfg) {
    ElementState& s = state(self);
    vg::Settings a;
    {
      std::lock_guard<std::mutex> lk(s.mu);
      a = s.active;
    }
    // ssimulacra2 converts Y'CbCr to RGB with the stream's matrix and range: those of the reference frame's caps
    // when they carry a colorimetry and no option says otherwise (without one the engine assumes BT.709 above 576
    // rows, BT.601 up to 576, limited range: GStreamer's own defaults).
    const PadEpoch& e = epoch_of(ref_frame);
    const GstStructure* cs = e.caps ? gst_caps_get_structure(e.caps, 0) : nullptr;
    if (cs && gst_structure_has_field(cs, "colorimetry")) {
      for (auto& f : cfg->features) {
        if (f.name != "ssimulacra2") continue;
        auto given = [&f](const char* opt) {
          for (const auto& o : f.options)
            if (o.first == opt) return true;
          return false;
        };
        const GstVideoColorMatrix m = e.info.colorimetry.matrix;
        const char* matrix = m == GST_VIDEO_COLOR_MATRIX_BT709    ? "bt709"
                             : m == GST_VIDEO_COLOR_MATRIX_BT601  ? "bt601"
                             : m == GST_VIDEO_COLOR_MATRIX_BT2020 ? "bt2020"
                                                                  : nullptr;
        const GstVideoColorRange rg = e.info.colorimetry.range;
        const char* range = rg == GST_VIDEO_COLOR_RANGE_0_255     ? "full"
                            : rg == GST_VIDEO_COLOR_RANGE_16_235 ? "limited"
                                                                 : nullptr;
        if (matrix && !given("yuv_matrix")) f.options.push_back({"yuv_matrix", matrix});
        if (range && !given("yuv_range")) f.options.push_back({"yuv_range", range});
      }
    }
    // model-filename=auto picks by the reference's height: parsed again now that it is known.
    if (a.model.find("auto") == std::string::npos) return Status::ok();
    std::vector<vg::ScoringModel> models;
    std::vector<std::string> choices;
    VMAFX_TRY(vg::parse_models(a.model, ref.height, &models, &choices));
    for (const auto& c : choices) post_notice(self, false, c, c);
    std::vector<vg::ScoringFeature> none;
    vmafx::ScorerConfig redo = scorer_config(a, models, none, GST_ELEMENT(self));
    cfg->models = redo.models;
    return Status::ok();
  };
  cb.read = [self](unsigned pad, const vg::Frame& f, vg::ReadPicture* out) { return read_frame(self, pad, f, out); };
  cb.on_scorer = [self](unsigned pad, const std::vector<std::string>& on_cpu, vmafx::Backend backend) {
    ElementState& s = state(self);
    const vg::InputConfig ic = input_config(self, backend, on_cpu);
    std::lock_guard<std::mutex> lk(s.inputs_mu);
    for (unsigned p : {kRefPad, pad}) {
      auto it = s.pads.find(p);
      if (it == s.pads.end()) continue;
      it->second.config = ic;
      it->second.config_changed = it->second.input != nullptr;
    }
  };
  cb.on_frame = [self](const vg::ScoredFrame& f, const vmafx::FrameScore& score, const std::vector<std::string>& n,
                       const std::vector<std::string>& m) { on_frame(self, f, score, n, m); };
  cb.on_notice = [self](vmafx::NoticeLevel level, const std::string& text, const std::string& detail) {
    post_notice(self, level == vmafx::NoticeLevel::warning, text, detail);
  };
  cb.on_error = [self](int kind, Errc code, const std::string& text, const std::string& detail) {
    on_error(self, kind, code, text, detail);
  };
  cb.on_report = [self](vg::Report&& r) { report(self, std::move(r)); };
  cb.on_end = [self](const std::vector<vg::RenditionResult>& r, bool final) { on_end(self, r, final); };
  cb.on_written = [self](const std::string& path) { GST_INFO_OBJECT(self, "wrote %s", path.c_str()); };
  return cb;
}

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
    GST_DEBUG_OBJECT(self, "preroll: the other pads' upstream %s",
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
  if ((flow == GST_FLOW_NOT_LINKED || flow < GST_FLOW_EOS) && !s.failed.exchange(true)) {
    s.pairing.fail();
    GST_ELEMENT_FLOW_ERROR(self, flow);
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

// Checks a pad's caps against the reference's once both are known. False after posting the error.
bool check_pair_caps(GstVmafxhip* self, unsigned id) {
  ElementState& s = state(self);
  std::shared_ptr<const PadEpoch> e[2];
  std::string names[2];
  bool by_timestamp, warn_colour;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    const unsigned ids[2] = {kRefPad, id};
    for (int i = 0; i < 2; i++) {
      if (!s.pads.count(ids[i])) return true;
      e[i] = s.pads[ids[i]].epoch;
      names[i] = s.pads[ids[i]].name;
      if (!e[i] || !e[i]->caps) return true;
    }
    by_timestamp = s.active.pairing == vg::PAIRING_TIMESTAMP;
    warn_colour = !s.warned_colour;
  }
  const std::string both = "reference caps " + caps_string(e[0]->caps) + ", " + names[1] + " caps " +
                           caps_string(e[1]->caps);
  const vmafx::VideoGeometry& g0 = e[0]->geometry;
  const vmafx::VideoGeometry& g1 = e[1]->geometry;
  if (g0.bit_depth != g1.bit_depth || g0.chroma != g1.chroma) {
    VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION}),
                   "Reference (" + geometry_string(g0) + ") and " + names[1] + " (" + geometry_string(g1) +
                       ") must agree in bit depth and chroma subsampling",
                   both);
    return false;
  }
  const GstVideoInfo& i0 = e[0]->info;
  const GstVideoInfo& i1 = e[1]->info;
  const int n0 = GST_VIDEO_INFO_FPS_N(&i0), d0 = GST_VIDEO_INFO_FPS_D(&i0);
  const int n1 = GST_VIDEO_INFO_FPS_N(&i1), d1 = GST_VIDEO_INFO_FPS_D(&i1);
  if (by_timestamp && n0 > 0 && n1 > 0 && d0 > 0 && d1 > 0 && gst_util_fraction_compare(n0, d0, n1, d1) != 0) {
    const std::string r0 = std::to_string(n0) + "/" + std::to_string(d0), r1 = std::to_string(n1) + "/" + std::to_string(d1);
    VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION}),
                   "Reference (" + r0 + ") and " + names[1] + " (" + r1 +
                       ") frame rates differ: convert one with videorate (... ! videorate ! video/x-raw,framerate=" +
                       r0 + " ! v." + names[1] + "), or set pairing=arrival",
                   both + "; pairing=timestamp pairs frames of the same time, which streams of different rates do "
                          "not have");
    return false;
  }
  const bool yuv = GST_VIDEO_INFO_IS_YUV(&i0) && GST_VIDEO_INFO_IS_YUV(&i1);
  if (warn_colour && yuv && !gst_video_colorimetry_is_equal(&i0.colorimetry, &i1.colorimetry)) {
    {
      std::lock_guard<std::mutex> lk(s.mu);
      if (s.warned_colour) return true;
      s.warned_colour = true;
    }
    gchar* c0 = gst_video_colorimetry_to_string(&i0.colorimetry);
    gchar* c1 = gst_video_colorimetry_to_string(&i1.colorimetry);
    const bool range = i0.colorimetry.range != i1.colorimetry.range;
    const std::string text = std::string("Reference and ") + names[1] + " differ in " +
                             (range ? "range" : "colorimetry") + " (" + (c0 ? c0 : "?") + " against " +
                             (c1 ? c1 : "?") +
                             "): the scores compare the samples as they are; if both show the same picture, convert "
                             "one (videoconvert ! video/x-raw,colorimetry=" + (c0 ? c0 : "...") + ")";
    g_free(c0);
    g_free(c1);
    post_message(self, GST_MESSAGE_INFO, text, both);
  }
  return true;
}

bool handle_caps(GstVmafxhip* self, unsigned id, GstCaps* caps) {
  ElementState& s = state(self);
  auto e = std::make_shared<PadEpoch>();
  Status st = vg::video_info_from_caps(caps, &e->info);
  const std::string name = pad_name(self, id);
  if (!st) {
    VMAFXHIP_ERROR(self, vg::error_code_for(st.code()), "Unsupported video caps on " + name,
                   st.to_string() + "; caps " + caps_string(caps));
    return false;
  }
  if (GST_VIDEO_INFO_IS_INTERLACED(&e->info)) {
    VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION}),
                   "Interlaced video on " + name + " (interlace-mode=" +
                       gst_video_interlace_mode_to_string(GST_VIDEO_INFO_INTERLACE_MODE(&e->info)) +
                       "): vmafxhip scores progressive frames; put deinterlace before the pad",
                   "caps " + caps_string(caps));
    return false;
  }
  if (!vg::geometry_for(caps, e->info, &e->geometry)) {
    VMAFXHIP_ERROR(self, (vg::ErrorCode{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION}),
                   "Unsupported video format " +
                       std::string(gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&e->info))) + " on " + name +
                       " (" + vg::input_kind_for_caps(caps).name + ")",
                   "caps " + caps_string(caps));
    return false;
  }
  e->caps = gst_caps_ref(caps);
  std::vector<unsigned> check;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    auto it = s.pads.find(id);
    if (it == s.pads.end()) return false;
    if (it->second.epoch) e->segment = it->second.epoch->segment;
    it->second.epoch = e;  // frames before the change keep their own epoch
    if (id == kRefPad) {
      for (auto& [pid, p] : s.pads)
        if (pid != kRefPad) check.push_back(pid);
    } else {
      check.push_back(id);
    }
  }
  for (unsigned p : check)
    if (!check_pair_caps(self, p)) return false;
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
  GstCaps* templ = gst_pad_get_pad_template_caps(pad);
  GstCaps* base;
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
    GstCaps* peer = gst_pad_peer_query_caps(self->src, templ);
    base = gst_caps_intersect_full(peer, templ, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(peer);
    gst_caps_unref(templ);
  } else {
    base = templ;
  }
  if (id != kRefPad && ref && ref->caps) {
    GstCaps* preferred = gst_caps_copy(base);
    for (guint i = 0; i < gst_caps_get_size(preferred); i++) {
      GstStructure* st = gst_caps_get_structure(preferred, i);
      gst_structure_set(st, "width", G_TYPE_INT, GST_VIDEO_INFO_WIDTH(&ref->info), "height", G_TYPE_INT,
                        GST_VIDEO_INFO_HEIGHT(&ref->info), nullptr);
      if (by_timestamp && GST_VIDEO_INFO_FPS_N(&ref->info) > 0)
        gst_structure_set(st, "framerate", GST_TYPE_FRACTION, GST_VIDEO_INFO_FPS_N(&ref->info),
                          GST_VIDEO_INFO_FPS_D(&ref->info), nullptr);
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
    case GST_QUERY_LATENCY: {
      // The output's own upstream latency; its maximum grows by the hold window (max-reference-frames frames).
      GstQuery* q = gst_query_new_latency();
      gboolean live = FALSE;
      GstClockTime min = 0, max = GST_CLOCK_TIME_NONE;
      ret = gst_pad_peer_query(out_pad, q);
      if (ret) gst_query_parse_latency(q, &live, &min, &max);
      gst_query_unref(q);
      if (ret) {
        GstClockTime hold = 0, latency, period = GST_CLOCK_TIME_NONE;
        unsigned max_frames;
        std::vector<std::pair<GstPad*, std::string>> others;
        {
          std::lock_guard<std::mutex> lk(s.mu);
          auto& e = s.pads[s.out_pad].epoch;
          period = e ? frame_period(e->info) : GST_CLOCK_TIME_NONE;
          if (GST_CLOCK_TIME_IS_VALID(period)) hold = period * s.active.max_reference_frames;
          latency = s.active.latency;
          max_frames = s.active.max_reference_frames;
          for (auto& [id, p] : s.pads)
            if (id != s.out_pad) others.emplace_back(GST_PAD(gst_object_ref(p.pad)), p.name);
        }
        const bool is_live = live || s.pairing.live();
        // Live: a branch whose latency exceeds the output's by more than the element holds is said once.
        for (auto& [p, name] : others) {
          GstQuery* oq = gst_query_new_latency();
          gboolean olive = FALSE;
          GstClockTime omin = 0, omax = GST_CLOCK_TIME_NONE;
          if (is_live && gst_pad_peer_query(p, oq)) {
            gst_query_parse_latency(oq, &olive, &omin, &omax);
            if (omin > min + hold + latency) {
              const GstClockTime lag = omin - min;
              const guint64 need = GST_CLOCK_TIME_IS_VALID(period) && period ? lag / period + 1 : 0;
              post_notice(self, true,
                          "The " + name + " branch's latency exceeds the output's by " + std::to_string(lag / GST_MSECOND) +
                              " ms, more than the element holds (" + std::to_string(hold / GST_MSECOND) +
                              " ms, max-reference-frames=" + std::to_string(max_frames) +
                              "): frames will be skipped as late; raise max-reference-frames to at least " +
                              std::to_string(need),
                          "live pipeline: the element holds max-reference-frames frames for their partners");
            }
          }
          gst_query_unref(oq);
          gst_object_unref(p);
        }
        if (GST_CLOCK_TIME_IS_VALID(max)) max += hold + latency;
        gst_query_set_latency(query, is_live, min, max);
      }
      break;
    }
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
  GstPad* pad = dist ? GST_PAD(g_object_new(gst_vmafxhip_dist_pad_get_type(), "name", name.c_str(), "direction",
                                            GST_PAD_SINK, "template", templ, nullptr))
                     : gst_pad_new_from_template(templ, name.c_str());
  g_object_set_qdata(G_OBJECT(pad), pad_id_quark(), GUINT_TO_POINTER(id + 1));
  gst_pad_set_chain_function(pad, GST_DEBUG_FUNCPTR(sink_chain));
  gst_pad_set_event_function(pad, GST_DEBUG_FUNCPTR(sink_event));
  gst_pad_set_query_function(pad, GST_DEBUG_FUNCPTR(sink_query));
  gst_pad_set_iterate_internal_links_function(pad, GST_DEBUG_FUNCPTR(iterate_internal_links));
  ElementState& s = state(self);
  std::lock_guard<std::mutex> lk(s.mu);
  std::lock_guard<std::mutex> ik(s.inputs_mu);
  SinkPad& p = s.pads[id];
  p.pad = pad;
  p.name = name;
  return pad;
}

int pad_offset(GstVmafxhip* self, unsigned id, int element_offset) {
  ElementState& s = state(self);
  GstPad* pad;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    pad = s.pads[id].pad;
  }
  gint o = kInheritOffset;
  g_object_get(pad, "dist-offset", &o, nullptr);
  return o == kInheritOffset ? element_offset : o;
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
  {
    std::lock_guard<std::mutex> lk(s.mu);
    std::lock_guard<std::mutex> ik(s.inputs_mu);
    auto it = s.pads.find(id);
    if (it != s.pads.end()) {
      if (it->second.input) s.retired_inputs.push_back(std::move(it->second.input));
      s.pads.erase(it);
    }
  }
  gst_element_remove_pad(element, pad);
}

// ---------------------------------------------------------------------------------------------------------------
// State changes

vmafx::ScorerConfig scorer_config(const vg::Settings& a, std::vector<vg::ScoringModel> models,
                                  std::vector<vg::ScoringFeature> features, GstElement* element) {
  vmafx::ScorerConfig sc;
  sc.models.clear();
  for (const auto& m : models) {
    vmafx::ModelRequest r;
    r.model = m.model;
    r.name = m.name;
    r.disable_clip = a.disable_clip;
    r.enable_transform = a.enable_transform || a.phone_model;
    sc.models.push_back(r);
  }
  auto add_feature = [&](const char* name) {
    for (const auto& f : features)
      if (f.name == name && f.options.empty()) return;
    features.push_back({name, {}});
  };
  if (a.psnr) add_feature("psnr");
  if (a.ssim) add_feature("float_ssim");
  if (a.ms_ssim) add_feature("float_ms_ssim");
  for (const auto& f : features) sc.features.push_back({f.name, f.options});
  sc.conf_interval = a.conf_interval;
  sc.threads = a.threads ? a.threads : g_get_num_processors();
  sc.subsample = a.subsample ? a.subsample : 1;
  sc.backend = vg::to_backend(a.backend);
  sc.vendor = vg::to_vendor(a.vendor);
  sc.device_id = a.device_id;
  // Holding a CUDA context (shared with a decoder), the scorer runs on that context's GPU unless told otherwise.
  vg::cuda_scorer_device(element, &sc.vendor, &sc.device_id);
  sc.scale = vg::to_scale_method(vg::to_scaling(a.scale_method));
  return sc;
}

bool start(GstVmafxhip* self) {
  ElementState& s = state(self);
  vg::Settings a;
  {
    std::lock_guard<std::mutex> lk(s.settings_mu);
    a = s.settings;
  }
  if (a.log_level != vg::LOG_NONE) gst_debug_category_set_threshold(gst_vmafxhip_debug, vg::to_debug_level(a.log_level));
  s.failed = false;
  s.out_flow = GST_FLOW_OK;
  s.frames_copied = 0;
  std::vector<std::pair<unsigned, std::string>> dist_pads;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.active = a;
    s.out_pad = a.output == vg::OUTPUT_DISTORTED ? kDistPad : kRefPad;
    s.last_output_end = GST_CLOCK_TIME_NONE;
    s.said.clear();
    s.warned_colour = false;
    s.fields.clear();
    for (auto& [id, p] : s.pads) {
      p.epoch.reset();
      p.live_known = false;
      if (id != kRefPad) dist_pads.emplace_back(id, p.name);
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
  for (const auto& [id, name] : dist_pads) s.pairing.add_pad(id, pad_offset(self, id, a.dist_offset), a.auto_sync);
  s.pairing.start(pc);

  // Everything that can be checked before the first frame fails here, at the state change.
  const vg::ErrorCode settings_error{GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS};
  std::vector<vg::ScoringModel> models;
  Status st = vg::parse_models(a.model, 0, &models, nullptr);
  std::vector<vg::ScoringFeature> features;
  if (st) st = vg::parse_features(a.features, &features);
  if (!st) {
    VMAFXHIP_ERROR(self, settings_error, "Invalid settings", st.to_string());
    return false;
  }
  bool any_collection = false;
  for (const auto& entry : models) {
    vmafx::Model model;
    Status ms = vmafx::Model::load(entry.model, &model);
    if (!ms) {
      VMAFXHIP_ERROR(self, vg::model_error_code(entry.model), "Could not load VMAF model '" + entry.model + "'",
                     ms.to_string());
      return false;
    }
    any_collection = any_collection || model.is_collection();
  }
  if (a.conf_interval && !any_collection) {
    VMAFXHIP_ERROR(self, settings_error, "conf-interval needs a bootstrap model such as vmaf_b_v0.6.3",
                   models.empty() ? "model-filename is empty" : "model '" + a.model + "' is a single model, not a collection");
    return false;
  }
  vg::SessionConfig sc;
  sc.scorer = scorer_config(a, models, features, GST_ELEMENT(self));
  st = vmafx::Scorer::validate(sc.scorer);
  if (!st) {
    VMAFXHIP_ERROR(self, settings_error, "Invalid settings: " + st.message().substr(0, st.message().find(" (")),
                   st.to_string());
    return false;
  }
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
  for (const auto& [id, name] : dist_pads) (void)s.session->add_rendition(id, name, false);
  st = s.session->start(sc);
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
  close_inputs(s);
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
    case vg::PROP_FRAMES_COPIED: g_value_set_uint64(value, s.frames_copied.load()); return;
    case vg::PROP_GL_STATS:
    case vg::PROP_CUDA_STATS: {
      // The inputs of the kind whose statistics property this is (null while no pad reads that kind).
      std::lock_guard<std::mutex> lk(s.inputs_mu);
      GstStructure* st = nullptr;
      for (auto& [id, p] : s.pads) {
        if (!p.input || !p.kind || !p.kind->stats_property || g_strcmp0(p.kind->stats_property, pspec->name) != 0)
          continue;
        if (!st) st = gst_structure_new_empty(p.kind->stats_property);
        p.input->add_stats(st, id == kRefPad ? "ref" : id == kDistPad ? "dist" : p.name);
      }
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
                                                      gst_vmafxhip_dist_pad_get_type()));
  gst_element_class_add_pad_template(
      element_class, gst_pad_template_new_with_gtype("dist_sink_%u", GST_PAD_SINK, GST_PAD_REQUEST, caps,
                                                      gst_vmafxhip_dist_pad_get_type()));
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
  gst_type_mark_as_plugin_api(gst_vmafxhip_dist_pad_get_type(), GstPluginAPIFlags(0));
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
