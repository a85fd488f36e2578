// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gst_gl_harness.h"

#include <cmath>
#include <mutex>

namespace vmafx::gl::test {

bool gst_gl_ready(std::string* why) {
  static std::once_flag once;
  std::call_once(once, [] { gst_init(nullptr, nullptr); });
  for (const char* e : {"vmafxhip", "glupload", "gldownload", "videotestsrc"}) {
    GstElementFactory* f = gst_element_factory_find(e);
    if (!f) {
      *why = std::string("GStreamer element '") + e + "' not found (plugin path: " +
             (g_getenv("GST_PLUGIN_PATH_1_0") ? g_getenv("GST_PLUGIN_PATH_1_0") : "unset") + ")";
      return false;
    }
    gst_object_unref(f);
  }
  return true;
}

std::string GlRun::describe() const {
  std::string s;
  if (!parsed) s += "parse error: " + parse_error + "; ";
  if (timed_out) s += "timed out; ";
  for (const Message& m : errors) s += "ERROR from " + m.source + ": " + m.text + " (" + m.debug + "); ";
  for (const Message& m : warnings) s += "WARNING from " + m.source + ": " + m.text + " (" + m.debug + "); ";
  return s;
}

bool GlRun::info_contains(const std::string& text) const {
  for (const Message& m : infos)
    if (m.text.find(text) != std::string::npos || m.debug.find(text) != std::string::npos) return true;
  return false;
}

namespace {

Message to_message(GstMessage* msg) {
  Message m;
  m.type = GST_MESSAGE_TYPE(msg);
  m.source = GST_MESSAGE_SRC(msg) ? GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)) : "?";
  GError* err = nullptr;
  gchar* dbg = nullptr;
  if (m.type == GST_MESSAGE_ERROR) gst_message_parse_error(msg, &err, &dbg);
  if (m.type == GST_MESSAGE_WARNING) gst_message_parse_warning(msg, &err, &dbg);
  if (m.type == GST_MESSAGE_INFO) gst_message_parse_info(msg, &err, &dbg);
  if (err) m.text = err->message;
  if (dbg) m.debug = dbg;
  if (err) g_error_free(err);
  g_free(dbg);
  return m;
}

std::string pad_caps(GstElement* v, const char* pad) {
  GstPad* p = gst_element_get_static_pad(v, pad);
  if (!p) return "";
  GstCaps* c = gst_pad_get_current_caps(p);
  gst_object_unref(p);
  if (!c) return "";
  gchar* s = gst_caps_to_string(c);
  std::string out = s;
  g_free(s);
  gst_caps_unref(c);
  return out;
}

}  // namespace

GlRun run_gl_pipeline(const std::string& launch, const GlRunOptions& options) {
  GlRun r;
  GError* err = nullptr;
  GstElement* pipeline = gst_parse_launch(launch.c_str(), &err);
  if (!pipeline || err) {
    r.parse_error = err ? err->message : "no pipeline";
    if (err) g_error_free(err);
    if (pipeline) gst_object_unref(pipeline);
    return r;
  }
  r.parsed = true;
  // The tests read per-frame messages: frame-message=true unless the launch line sets it (its default is false, as
  // GStreamer's vmaf).
  if (launch.find("frame-message=") == std::string::npos) {
    if (GstElement* v = gst_bin_get_by_name(GST_BIN(pipeline), "v")) {
      g_object_set(v, "frame-message", TRUE, nullptr);
      gst_object_unref(v);
    }
  }
  if (options.setup) options.setup(pipeline);
  GstBus* bus = gst_element_get_bus(pipeline);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  const gint64 deadline = g_get_monotonic_time() + gint64(options.timeout_s * 1e6);
  for (bool done = false; !done;) {
    const gint64 left = deadline - g_get_monotonic_time();
    if (left <= 0) {
      r.timed_out = true;
      break;
    }
    GstMessage* msg = gst_bus_timed_pop(bus, GstClockTime(left) * 1000);
    if (!msg) continue;
    switch (GST_MESSAGE_TYPE(msg)) {
      case GST_MESSAGE_EOS: r.eos = true; done = true; break;
      case GST_MESSAGE_ERROR: r.errors.push_back(to_message(msg)); done = true; break;
      case GST_MESSAGE_WARNING: r.warnings.push_back(to_message(msg)); break;
      case GST_MESSAGE_INFO: r.infos.push_back(to_message(msg)); break;
      case GST_MESSAGE_ELEMENT: {
        const GstStructure* s = gst_message_get_structure(msg);
        if (s && gst_structure_has_name(s, "VMAF") && field_string(s, "type") == "frame")
          r.frames.emplace_back(gst_structure_copy(s), gst_structure_free);
        break;
      }
      default: break;
    }
    gst_message_unref(msg);
  }
  GstElement* v = gst_bin_get_by_name(GST_BIN(pipeline), "v");
  if (v) {
    g_object_get(v, "frames-scored", &r.frames_scored, "frames-copied", &r.frames_copied, nullptr);
    GstStructure* st = nullptr;
    g_object_get(v, "gl-stats", &st, nullptr);
    if (st) r.gl_stats = Structure(st, gst_structure_free);
    r.ref_caps = pad_caps(v, "ref_sink");
    r.dist_caps = pad_caps(v, "dist_sink");
    r.src_caps = pad_caps(v, "src");
  }
  if (r.eos && options.at_eos) options.at_eos(pipeline);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  // Messages posted on the way down (none expected to matter) are dropped with the bus.
  if (v) gst_object_unref(v);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
  return r;
}

std::string raw_clip_source(const std::string& path, uint32_t width, uint32_t height, unsigned bpc) {
  const unsigned bps = bpc > 8 ? 2 : 1;
  const size_t cw = (width + 1) / 2, ch = (height + 1) / 2;
  const size_t y_size = size_t(width) * height * bps, c_size = cw * ch * bps;
  return "filesrc location=\"" + path + "\" ! rawvideoparse format=" + (bpc > 8 ? "i420-10le" : "i420") +
         " width=" + std::to_string(width) + " height=" + std::to_string(height) +
         " framerate=25/1 plane-strides=\"<" + std::to_string(width * bps) + "," + std::to_string(cw * bps) + "," +
         std::to_string(cw * bps) + ">\" plane-offsets=\"<0," + std::to_string(y_size) + "," +
         std::to_string(y_size + c_size) + ">\" frame-size=" + std::to_string(y_size + 2 * c_size);
}

double field_double(const GstStructure* s, const char* field) {
  double v;
  return s && gst_structure_get_double(s, field, &v) ? v : std::nan("");
}

guint64 field_uint64(const GstStructure* s, const char* field, guint64 fallback) {
  guint64 v;
  return s && gst_structure_get_uint64(s, field, &v) ? v : fallback;
}

std::string field_string(const GstStructure* s, const char* field) {
  const gchar* v = s ? gst_structure_get_string(s, field) : nullptr;
  return v ? v : "";
}

bool field_bool(const GstStructure* s, const char* field) {
  gboolean v = FALSE;
  return s && gst_structure_get_boolean(s, field, &v) && v;
}

}  // namespace vmafx::gl::test
