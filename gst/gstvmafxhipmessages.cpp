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

}  // namespace

std::string message_field_name(const std::string& score_name, const std::string& model_score_name) {
  if (!model_score_name.empty()) {
    if (score_name == model_score_name) return "score";
    const std::string prefix = model_score_name + "_";
    if (score_name.size() > prefix.size() && score_name.compare(0, prefix.size(), prefix) == 0)
      return dashes(score_name.substr(prefix.size()));
  }
  if (score_name == "float_ssim") return "ssim";
  if (score_name == "float_ms_ssim") return "ms-ssim";
  return dashes(score_name);
}

std::vector<std::string> message_field_names(const std::vector<std::string>& score_names,
                                             const std::string& model_score_name) {
  std::vector<std::string> out;
  out.reserve(score_names.size());
  for (const auto& n : score_names) out.push_back(message_field_name(n, model_score_name));
  return out;
}

GstStructure* frame_structure(const FrameScore& score, const std::vector<std::string>& fields,
                              const FrameTiming& timing) {
  GstStructure* s = gst_structure_new(kMessageName, "type", G_TYPE_STRING, "frame", "index", G_TYPE_INT,
                                      gint(score.index), nullptr);
  set_timing(s, timing);
  for (size_t i = 0; i < fields.size() && i < score.values.size(); i++) set_double(s, fields[i], score.values[i]);
  return s;
}

GstStructure* pooled_structure(const Collector& collector, const std::vector<std::string>& fields,
                               const std::string& model_score_name, PoolMethod method, const FrameTiming& timing) {
  GstStructure* s = gst_structure_new(kMessageName, "type", G_TYPE_STRING, "pooled", "pool-method", G_TYPE_STRING,
                                      pool_method_name(method), nullptr);
  set_timing(s, timing);
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
  gst_structure_set(s, "frames", G_TYPE_UINT64, frames, nullptr);
  return s;
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

void post_status(GstElement* element, GstMessageType type, ErrorCode code, const std::string& text,
                 const Status& status, const char* file, const char* function, int line) {
  gchar* debug = status.is_ok() ? nullptr : g_strdup(status.to_string().c_str());
  if (type == GST_MESSAGE_ERROR)
    GST_ERROR_OBJECT(element, "%s: %s", text.c_str(), debug ? debug : "");
  else if (type == GST_MESSAGE_WARNING)
    GST_WARNING_OBJECT(element, "%s: %s", text.c_str(), debug ? debug : "");
  else
    GST_INFO_OBJECT(element, "%s: %s", text.c_str(), debug ? debug : "");
  gst_element_message_full(element, type, code.domain, code.code, g_strdup(text.c_str()), debug, file, function,
                           line);
}

}  // namespace vmafx::gst
