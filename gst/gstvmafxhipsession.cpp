// SPDX-License-Identifier: LGPL-2.1-or-later
// The element's side of its scoring session (gstvmafxhipelement.h): how a frame is read, and what the session's
// results become on the bus.
#include <algorithm>

#include "gstvmafxhipconfig.h"
#include "gstvmafxhipelement.h"
#include "gstvmafxhipsync.h"

#define GST_CAT_DEFAULT gst_vmafxhip_debug

namespace vmafx::gst::element {

std::string pad_name(GstVmafxhip* self, unsigned id) {
  ElementState& s = state(self);
  std::lock_guard<std::mutex> lk(s.mu);
  auto it = s.pads.find(id);
  return it == s.pads.end() ? "dist_sink" : it->second.name;
}

// Posts an error once per run (later failures are consequences of the first), then fails the pairing: in that
// order, so the cause is on the bus before the pads return GST_FLOW_ERROR and their upstream posts its own error.
void post_error_at(const char* file, const char* function, int line, GstVmafxhip* self, vg::ErrorCode code,
                   const std::string& text, const std::string& debug) {
  ElementState& s = state(self);
  if (s.error_claimed.exchange(true)) return;
  vg::post_text(GST_ELEMENT(self), GST_MESSAGE_ERROR, code, text, debug, file, function, line);
  s.failed = true;
  s.pairing.fail();
}

void post_message(GstVmafxhip* self, GstMessageType type, const std::string& text, const std::string& debug,
                  GstStructure* details) {
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

// Posts the inputs' notices (the INFO / WARNING that a frame was copied, and why); said once each. Device input is
// imported on the scorer's GPU (`device`: where device-id, the CUDA context or automatic placement put it).
vg::InputConfig input_config(GstVmafxhip* self, vmafx::Backend scorer, const std::vector<std::string>& on_cpu,
                             int device) {
  ElementState& s = state(self);
  vg::InputConfig ic;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    ic.requested = vg::to_backend(s.active.backend);
    ic.vendor = vg::to_vendor(s.active.vendor);
    ic.device_id = s.active.device_id;
    ic.allow_copy = s.active.allow_copy;
  }
  if (scorer == vmafx::Backend::hip && device >= 0) ic.device_id = device;
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
  const PadEpoch& e = epoch_of(f);
  auto pic = std::make_shared<vg::ImportedPicture>();
  VMAFX_TRY(state(self).inputs.import(pad, buffer_of(f), e.info, e.caps, pic.get()));
  out->view = pic->view();
  out->keep = pic;
  return Status::ok();
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
    std::vector<std::string> choices;
    const PadEpoch& e = epoch_of(ref_frame);
    VMAFX_TRY(vg::apply_reference_caps(a, e.caps, e.info, ref.height, cfg, &choices));
    for (const auto& c : choices) post_notice(self, false, c, c);
    return Status::ok();
  };
  cb.read = [self](unsigned pad, const vg::Frame& f, vg::ReadPicture* out) { return read_frame(self, pad, f, out); };
  cb.on_scorer = [self](unsigned pad, const std::vector<std::string>& on_cpu, vmafx::Backend backend, int device,
                        const std::string& description) {
    GST_INFO_OBJECT(self, "%s: scoring on %s", pad_name(self, pad).c_str(), description.c_str());
    // Placed among several GPUs: said once, so that the spread of pipelines over the GPUs can be seen.
    if (description.find("placed automatically") != std::string::npos)
      post_notice(self, false, "scoring on GPU " + std::to_string(device) + " (placed automatically)", description);
    const vg::InputConfig ic = input_config(self, backend, on_cpu, device);
    for (unsigned p : {kRefPad, pad}) state(self).inputs.configure(p, ic);
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


// A latency query on src: the output's upstream latency (the element adds nothing), its maximum grown by the hold
// window (max-reference-frames frames + latency); live, a branch whose latency exceeds the output's by more than that
// window is said once (WARNING naming the max-reference-frames needed).
bool answer_latency(GstVmafxhip* self, GstPad* out_pad, GstQuery* query) {
  ElementState& s = state(self);
  gboolean ret = FALSE;
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
    return ret;
}

}  // namespace vmafx::gst::element
