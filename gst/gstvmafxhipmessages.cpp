// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhipmessages.h"

#include <cmath>

#include "vmafx/model.h"

namespace vmafx::gst {

namespace {

std::string dashes(std::string s) {
  for (char& c : s)
    if (c == '_') c = '-';
  return s;
}

void set_double(GstStructure* s, const std::string& field, double v) {
  if (!field.empty() && !std::isnan(v)) gst_structure_set(s, field.c_str(), G_TYPE_DOUBLE, v, nullptr);
}

void set_timing(GstStructure* s, const FrameTiming& t) {
  gst_structure_set(s, "timestamp", G_TYPE_UINT64, guint64(t.timestamp), "stream-time", G_TYPE_UINT64,
                    guint64(t.stream_time), "running-time", G_TYPE_UINT64, guint64(t.running_time), "duration",
                    G_TYPE_UINT64, guint64(t.duration), nullptr);
}

bool has_prefix(const std::string& s, const std::string& p) { return s.size() > p.size() && s.compare(0, p.size(), p) == 0; }

}  // namespace

std::vector<std::string> message_field_names(const std::vector<std::string>& score_names,
                                             const std::vector<std::string>& model_score_names) {
  std::vector<std::string> out;
  out.reserve(score_names.size());
  for (const auto& n : score_names) {
    std::string field;
    // The model whose score column is the longest prefix of this column owns it ("vmaf_4k_v0.6.1_stddev" belongs to
    // vmaf_4k_v0.6.1, not to vmaf).
    size_t owner = model_score_names.size();
    for (size_t m = 0; m < model_score_names.size(); m++) {
      const std::string& model = model_score_names[m];
      if ((n == model || has_prefix(n, model + "_")) &&
          (owner == model_score_names.size() || model.size() > model_score_names[owner].size()))
        owner = m;
    }
    if (owner == 0 && !model_score_names.empty()) {  // without models every column keeps its own name
      const std::string& model = model_score_names[0];
      field = n == model ? "score" : dashes(n.substr(model.size() + 1));
    } else if (owner < model_score_names.size()) {
      field = n;
    }
    if (field.empty()) field = n == "float_ssim" ? "ssim" : n == "float_ms_ssim" ? "ms-ssim" : dashes(n);
    out.push_back(field);
  }
  return out;
}

GstStructure* frame_structure(const FrameScore& score, const std::vector<std::string>& fields,
                              const FrameTiming& timing, const FrameExtras& extras) {
  GstStructure* s = gst_structure_new(kMessageName, "type", G_TYPE_STRING, "frame", "index", G_TYPE_INT,
                                      gint(score.index), nullptr);
  set_timing(s, timing);
  gst_structure_set(s, "reference-timestamp", G_TYPE_UINT64, guint64(extras.ref_pts), "distorted-timestamp",
                    G_TYPE_UINT64, guint64(extras.dist_pts), nullptr);
  if (!extras.scaled_from.empty())
    gst_structure_set(s, "scaled-from", G_TYPE_STRING, extras.scaled_from.c_str(), nullptr);
  if (!extras.pad.empty()) gst_structure_set(s, "pad", G_TYPE_STRING, extras.pad.c_str(), nullptr);
  for (size_t i = 0; i < fields.size() && i < score.values.size(); i++) set_double(s, fields[i], score.values[i]);
  return s;
}

GstStructure* skip_structure(const std::string& pad, const std::string& rendition, SkipReason reason,
                             const FrameTiming& timing) {
  GstStructure* s = gst_structure_new(kMessageName, "type", G_TYPE_STRING, "skipped", "pad", G_TYPE_STRING,
                                      pad.c_str(), "reason", G_TYPE_STRING, skip_reason_name(reason), nullptr);
  if (pad != rendition) gst_structure_set(s, "rendition", G_TYPE_STRING, rendition.c_str(), nullptr);
  set_timing(s, timing);
  return s;
}

GstStructure* sync_structure(const std::string& pad, int offset, double psnr_y, int window,
                             unsigned frames_compared) {
  GstStructure* s = gst_structure_new(kMessageName, "type", G_TYPE_STRING, "sync", "pad", G_TYPE_STRING,
                                      pad.c_str(), "offset", G_TYPE_INT, offset, "window", G_TYPE_INT, window,
                                      "frames-compared", G_TYPE_UINT, frames_compared, "method", G_TYPE_STRING,
                                      "psnr-y", nullptr);
  set_double(s, "psnr-y", psnr_y);
  return s;
}

GstStructure* pooled_structure(const Collector& collector, const std::vector<std::string>& fields,
                               const std::string& model_score_name, PoolMethod method, const FrameTiming& timing,
                               const SkipCounts& skips, const PooledExtras& extras) {
  GstStructure* s = gst_structure_new(kMessageName, "type", G_TYPE_STRING, "pooled", "pool-method", G_TYPE_STRING,
                                      pool_method_name(method), "pad", G_TYPE_STRING, extras.pad.c_str(), nullptr);
  set_timing(s, timing);
  if (!extras.scaled_from.empty())
    gst_structure_set(s, "scaled-from", G_TYPE_STRING, extras.scaled_from.c_str(), nullptr);
  if (extras.late_join)
    gst_structure_set(s, "joined-at", G_TYPE_UINT64, guint64(extras.first_ref_pts), nullptr);
  gst_structure_set(s, "reference-frames", G_TYPE_UINT64, guint64(extras.ref_frames), "distorted-frames",
                    G_TYPE_UINT64, guint64(extras.dist_frames), "frames-paired", G_TYPE_UINT64,
                    guint64(extras.paired), nullptr);
  const long model_col = model_score_name.empty() ? -1 : collector.find(model_score_name);
  guint64 frames = 0;
  if (model_col >= 0) {
    const PoolStats st = collector.pool(size_t(model_col));
    frames = st.count;
    if (st.count > 0) {
      set_double(s, "score", st.get(method));
      set_double(s, "mean", st.mean);
      set_double(s, "min", st.min);
      set_double(s, "max", st.max);
      set_double(s, "harmonic-mean", st.harmonic_mean);
      static const struct {
        const char* field;
        double p;
      } kPercentiles[] = {{"p1", 1}, {"p5", 5}, {"p25", 25}, {"p50", 50}, {"p75", 75}, {"p95", 95}, {"p99", 99}};
      for (const auto& q : kPercentiles) set_double(s, q.field, st.percentile(q.p));
    }
  }
  for (size_t c = 0; c < collector.columns() && c < fields.size(); c++) {
    if (long(c) == model_col) continue;
    const PoolStats st = collector.pool(c);
    if (model_col < 0 && frames == 0) frames = st.count;
    if (st.count > 0) set_double(s, fields[c], st.get(method));
  }
  // libvmaf's aggregate metrics (psnr's enable_apsnr): one value for the stream; JSON's null (not finite) left out.
  for (const auto& [name, v] : collector.aggregates())
    if (std::isfinite(v)) set_double(s, dashes(name), v);
  gst_structure_set(s, "frames", G_TYPE_UINT64, frames, nullptr);
  guint64 total = 0;
  for (unsigned r = 0; r < kSkipReasons; r++) {
    gst_structure_set(s, skip_reason_field(SkipReason(r)), G_TYPE_UINT64, guint64(skips[r]), nullptr);
    total += skips[r];
  }
  gst_structure_set(s, "frames-skipped", G_TYPE_UINT64, total, nullptr);
  return s;
}

std::string skip_warning_text(const SkipReport& r, SkipReason* main_reason, SkipReason about) {
  // The reason with the most frames speaks for the cause; dist-offset's own skips are intended and frames outside
  // their segment are clipped as every element clips them (after a seek): neither says anything.
  unsigned best = kSkipReasons;
  uint64_t total = 0;
  for (unsigned i = 0; i < kSkipReasons; i++) {
    if (SkipReason(i) == SkipReason::offset || SkipReason(i) == SkipReason::out_of_segment) continue;
    total += r.skips[i];
    if (r.skips[i] && (best == kSkipReasons || r.skips[i] > r.skips[best])) best = i;
  }
  if (total == 0 && r.dist_cut) {
    // The distorted stream was longer: it was read until the reference ended, and told the stream is over.
    return (r.dist_pad == "dist_sink" ? std::string() : r.dist_pad + ": ") + "The reference ended first (reference had " +
           std::to_string(r.ref_frames) + " frames, " + r.dist_pad + " had " + std::to_string(r.dist_frames) +
           " when the reference ended (read no further)); every reference frame was scored.";
  }
  if (total == 0) return "";
  if (about != SkipReason::count_ && r.skips[unsigned(about)]) best = unsigned(about);
  if (main_reason) *main_reason = SkipReason(best);
  std::string counts;
  for (unsigned i = 0; i < kSkipReasons; i++) {
    if (!r.skips[i] || SkipReason(i) == SkipReason::offset || SkipReason(i) == SkipReason::out_of_segment) continue;
    if (!counts.empty()) counts += ", ";
    counts += std::to_string(r.skips[i]) + " " + skip_reason_field(SkipReason(i));
  }
  std::string text = (r.dist_pad == "dist_sink" ? std::string() : r.dist_pad + ": ") + std::to_string(total) +
                     " frame" + (total == 1 ? "" : "s") + " not scored (" + counts + "). ";
  const std::string lengths = "reference had " + std::to_string(r.ref_frames) + " frames, " + r.dist_pad +
                              " had " + std::to_string(r.dist_frames) +
                              (r.dist_cut ? " when the reference ended (read no further)" : "");
  switch (SkipReason(best)) {
    case SkipReason::no_distorted:
      text += "Reference frames had no distorted frame at their time: the distorted stream ended first or dropped "
              "frames (" + lengths + "). Compare streams of the same length and frame rate, or use pairing=arrival "
              "when their timestamps do not match.";
      break;
    case SkipReason::no_reference:
      text += "Distorted frames had no reference frame at their time: the reference ended first or dropped frames (" +
              lengths + "). Compare streams of the same length and frame rate, or use pairing=arrival when their "
              "timestamps do not match.";
      break;
    case SkipReason::late:
      text += "Their partner did not arrive while the element could hold them (max-reference-frames=" +
              std::to_string(r.max_reference_frames) +
              "): one branch lags the other by more than that, e.g. an encoder's lookahead. Raise "
              "max-reference-frames (or latency).";
      break;
    case SkipReason::busy:
      text += "The scorer was slower than the live source, so whole pairs were left out to keep real time. Use "
              "backend=hip, subsample=N, or a smaller picture to score every frame.";
      break;
    case SkipReason::duplicate:
    case SkipReason::non_monotonic:
      text += "Buffer timestamps repeated or went backwards. Let the producer timestamp the buffers (a parser, "
              "do-timestamp=true), or use pairing=arrival.";
      break;
    case SkipReason::out_of_segment:
      text += "Buffers lay outside their segment (no running time).";
      break;
    case SkipReason::offset:
    case SkipReason::count_: break;
  }
  if (r.live) text += " Counts so far: frames-skipped and the pooled message's skipped-* fields.";
  return text;
}

GstStructure* skip_warning_details(const SkipReport& r) {
  GstStructure* d = gst_structure_new("details", "reference-frames", G_TYPE_UINT64, guint64(r.ref_frames),
                                      "distorted-frames", G_TYPE_UINT64, guint64(r.dist_frames), "frames-paired",
                                      G_TYPE_UINT64, guint64(r.paired), nullptr);
  for (unsigned i = 0; i < kSkipReasons; i++)
    gst_structure_set(d, skip_reason_field(SkipReason(i)), G_TYPE_UINT64, guint64(r.skips[i]), nullptr);
  return d;
}

ErrorCode error_code_for(Errc c) {
  switch (c) {
    case Errc::unsupported:
    case Errc::truncated:
    case Errc::out_of_range:
    case Errc::invalid_argument: return {GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT};
    case Errc::device_unavailable: return {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND};
    case Errc::device_error: return {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED};
    case Errc::out_of_memory: return {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT};
    case Errc::model_error: return {GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT};
    case Errc::io_error: return {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED};
    case Errc::busy:
    case Errc::internal:
    case Errc::ok: break;
  }
  return {GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED};
}

ErrorCode model_error_code(const std::string& model) {
  if (!Model::is_builtin(model) && !g_file_test(model.c_str(), G_FILE_TEST_EXISTS))
    return {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND};
  return {GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT};
}

std::string sanitize_utf8(const std::string& s) {
  if (g_utf8_validate(s.data(), gssize(s.size()), nullptr)) return s;
  gchar* v = g_utf8_make_valid(s.data(), gssize(s.size()));
  std::string out = v;
  g_free(v);
  return out;
}

void post_text(GstElement* element, GstMessageType type, ErrorCode code, const std::string& text,
               const std::string& debug, const char* file, const char* function, int line, GstStructure* details) {
  const std::string t = sanitize_utf8(text);
  const std::string d = sanitize_utf8(debug);
  if (type == GST_MESSAGE_ERROR)
    GST_ERROR_OBJECT(element, "%s: %s", t.c_str(), d.c_str());
  else if (type == GST_MESSAGE_WARNING)
    GST_WARNING_OBJECT(element, "%s: %s", t.c_str(), d.c_str());
  else
    GST_INFO_OBJECT(element, "%s: %s", t.c_str(), d.c_str());
  gchar* dbg = d.empty() ? nullptr : g_strdup(d.c_str());
  if (details) {
    gst_element_message_full_with_details(element, type, code.domain, code.code, g_strdup(t.c_str()), dbg, file,
                                          function, line, details);
  } else {
    gst_element_message_full(element, type, code.domain, code.code, g_strdup(t.c_str()), dbg, file, function, line);
  }
}

void post_status(GstElement* element, GstMessageType type, ErrorCode code, const std::string& text,
                 const Status& status, const char* file, const char* function, int line, GstStructure* details) {
  post_text(element, type, code, text, status.is_ok() ? std::string() : status.to_string(), file, function, line,
            details);
}

}  // namespace vmafx::gst
