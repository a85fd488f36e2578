// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gst_harness.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <chrono>
#include <cstdlib>
#include <cmath>
#include <mutex>

#include "tolerances.h"

namespace vmafx::test {

bool gst_ready(std::string* why) {
  static std::once_flag once;
  static bool ok = false;
  static std::string reason;
  std::call_once(once, [] {
    gst_init(nullptr, nullptr);
    GstElementFactory* f = gst_element_factory_find("vmafxhip");
    if (!f) {
      reason = "the vmafxhip plugin is not in GST_PLUGIN_PATH";
      return;
    }
    gst_object_unref(f);
    for (const char* needed : {"rawvideoparse", "filesrc", "fakesink", "appsrc", "appsink", "videoconvert"}) {
      GstElementFactory* n = gst_element_factory_find(needed);
      if (!n) {
        reason = std::string("GStreamer element ") + needed + " is missing";
        return;
      }
      gst_object_unref(n);
    }
    ok = true;
  });
  if (why) *why = reason;
  return ok;
}

Structure copy_structure(const GstStructure* s) {
  return Structure(gst_structure_copy(s), gst_structure_free);
}

std::vector<BusMessage> RunResult::element_errors() const {
  std::vector<BusMessage> out;
  for (const auto& e : errors)
    if (e.source == "v") out.push_back(e);
  return out;
}

std::string RunResult::describe_errors() const {
  std::string s;
  for (const auto& e : errors) s += "[" + e.source + "] " + e.text + " | " + e.debug + "\n";
  return s;
}

namespace {

BusMessage parse_problem(GstMessage* msg) {
  BusMessage b;
  b.type = GST_MESSAGE_TYPE(msg);
  b.source = GST_MESSAGE_SRC_NAME(msg) ? GST_MESSAGE_SRC_NAME(msg) : "";
  GError* err = nullptr;
  gchar* debug = nullptr;
  const GstStructure* details = nullptr;
  if (b.type == GST_MESSAGE_ERROR) {
    gst_message_parse_error(msg, &err, &debug);
    gst_message_parse_error_details(msg, &details);
  } else if (b.type == GST_MESSAGE_WARNING) {
    gst_message_parse_warning(msg, &err, &debug);
    gst_message_parse_warning_details(msg, &details);
  } else {
    gst_message_parse_info(msg, &err, &debug);
    gst_message_parse_info_details(msg, &details);
  }
  if (err) {
    b.domain = err->domain;
    b.code = err->code;
    b.text = err->message ? err->message : "";
    g_error_free(err);
  }
  if (debug) {
    b.debug = debug;
    g_free(debug);
  }
  if (details) b.details = copy_structure(details);
  return b;
}

// Handles one message; returns false when the run is over.
bool handle(GstElement* pipeline, GstMessage* msg, RunResult* r, const RunOptions& o, bool* saw_error) {
  switch (GST_MESSAGE_TYPE(msg)) {
    case GST_MESSAGE_ELEMENT: {
      const GstStructure* s = gst_message_get_structure(msg);
      if (!s || !gst_structure_has_name(s, "VMAF")) break;
      const gchar* type = gst_structure_get_string(s, "type");
      if (type && std::string(type) == "frame") {
        r->frames.push_back(copy_structure(s));
        if (o.on_frame) o.on_frame(pipeline, s);
      } else if (type && std::string(type) == "pooled") {
        r->pooled.push_back(copy_structure(s));
      } else {
        r->others.push_back(copy_structure(s));
      }
      break;
    }
    case GST_MESSAGE_ERROR:
      r->errors.push_back(parse_problem(msg));
      *saw_error = true;
      break;
    case GST_MESSAGE_WARNING: r->warnings.push_back(parse_problem(msg)); break;
    case GST_MESSAGE_INFO: r->infos.push_back(parse_problem(msg)); break;
    case GST_MESSAGE_EOS:
      r->eos = true;
      return false;
    default: break;
  }
  return true;
}

}  // namespace

RunResult run_pipeline(const std::string& launch, const RunOptions& options) {
  GError* err = nullptr;
  GstElement* pipeline = gst_parse_launch(launch.c_str(), &err);
  if (err) {
    ADD_FAILURE() << "cannot parse pipeline: " << err->message << "\n" << launch;
    g_error_free(err);
    if (pipeline) gst_object_unref(pipeline);
    return {};
  }
  RunOptions o = options;
  // A launch line that sets frame-message itself keeps its value.
  if (launch.find("frame-message=") != std::string::npos) o.frame_messages = false;
  return run_pipeline(pipeline, o);
}

RunResult run_pipeline(GstElement* pipeline, const RunOptions& options) {
  RunResult r;
  r.parsed = true;
  if (options.frame_messages) {
    if (GstElement* v = gst_bin_get_by_name(GST_BIN(pipeline), "v")) {
      g_object_set(v, "frame-message", TRUE, nullptr);
      gst_object_unref(v);
    }
  }
  if (options.setup) options.setup(pipeline);
  GstBus* bus = gst_element_get_bus(pipeline);
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(options.timeout_s * 1000));
  bool saw_error = false;
  if (gst_element_set_state(pipeline, options.via_paused ? GST_STATE_PAUSED : GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    r.state_change_failed = true;
  bool running = true;
  auto error_deadline = Clock::time_point::max();
  while (running) {
    const auto now = Clock::now();
    if (now >= deadline) {
      r.timed_out = true;
      break;
    }
    // After the first error keep listening briefly: every failure must be posted exactly once.
    if (saw_error && error_deadline == Clock::time_point::max())
      error_deadline = now + std::chrono::milliseconds(300);
    if (now >= error_deadline) break;
    if (r.state_change_failed && !saw_error && error_deadline == Clock::time_point::max())
      error_deadline = now + std::chrono::milliseconds(500);
    GstMessage* msg = gst_bus_timed_pop(bus, 20 * GST_MSECOND);
    if (!msg) continue;
    if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_STATE_CHANGED && GST_MESSAGE_SRC(msg) == GST_OBJECT(pipeline)) {
      GstState old_state, new_state, pending;
      gst_message_parse_state_changed(msg, &old_state, &new_state, &pending);
      if (new_state == GST_STATE_PLAYING) r.reached_playing = true;
      // gst-launch-1.0 sets PLAYING on the pipeline's PAUSED state-changed message.
      if (options.via_paused && new_state == GST_STATE_PAUSED && old_state == GST_STATE_READY)
        gst_element_set_state(pipeline, GST_STATE_PLAYING);
    }
    running = handle(pipeline, msg, &r, options, &saw_error);
    gst_message_unref(msg);
  }
  if (options.at_end) options.at_end(pipeline);
  if (GstElement* v = gst_bin_get_by_name(GST_BIN(pipeline), "v")) {
    g_object_get(v, "frames-scored", &r.frames_scored, "frames-skipped", &r.frames_skipped, nullptr);
    gst_object_unref(v);
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  // Whatever was posted up to the stop (a second error would show here).
  while (GstMessage* msg = gst_bus_pop(bus)) {
    bool dummy = false;
    if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR || GST_MESSAGE_TYPE(msg) == GST_MESSAGE_WARNING ||
        GST_MESSAGE_TYPE(msg) == GST_MESSAGE_INFO || GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ELEMENT)
      handle(pipeline, msg, &r, RunOptions{}, &dummy);
    gst_message_unref(msg);
  }
  gst_object_unref(bus);
  gst_object_unref(pipeline);
  return r;
}

std::string raw_yuv_source(const std::string& path, uint32_t width, uint32_t height, unsigned bpc, Chroma chroma) {
  const uint32_t bps = bpc > 8 ? 2 : 1;
  const uint32_t ys = width * bps, cs = chroma_width_stored(chroma, width) * bps,
                 ch = chroma_height_stored(chroma, height);
  const uint64_t o1 = uint64_t(ys) * height, o2 = o1 + uint64_t(cs) * ch, size = o2 + uint64_t(cs) * ch;
  const char* format = chroma == Chroma::k444   ? (bpc > 8 ? "y444-10le" : "y444")
                       : chroma == Chroma::k422 ? (bpc > 8 ? "i422-10le" : "y42b")
                                                : (bpc > 8 ? "i420-10le" : "i420");
  return "filesrc location=\"" + path + "\" ! rawvideoparse width=" + std::to_string(width) +
         " height=" + std::to_string(height) + " format=" + format +
         " framerate=25/1 plane-strides=\"<" + std::to_string(ys) + "," + std::to_string(cs) + "," +
         std::to_string(cs) + ">\" plane-offsets=\"<0," + std::to_string(o1) + "," + std::to_string(o2) +
         ">\" frame-size=" + std::to_string(size);
}

std::string pair_source(const Pair& p, bool distorted) {
  return raw_yuv_source(distorted ? p.dist_path() : p.ref_path(), p.width, p.height, p.bpc, p.chroma);
}

std::string libvmaf_name(const std::string& field) {
  if (field == "score") return "vmaf";
  if (field == "ssim") return "float_ssim";
  if (field == "ms-ssim") return "float_ms_ssim";
  std::string s = field;
  for (char& c : s)
    if (c == '-') c = '_';
  return s;
}

bool is_timing_field(const std::string& f) {
  return f == "type" || f == "index" || f == "timestamp" || f == "stream-time" || f == "running-time" ||
         f == "duration" || f == "reference-timestamp" || f == "distorted-timestamp" || f == "scaled-from" ||
         f == "pad";
}

double get_double(const GstStructure* s, const char* field) {
  double v;
  return gst_structure_get_double(s, field, &v) ? v : NAN;
}

gint get_int(const GstStructure* s, const char* field, gint fallback) {
  gint v;
  return gst_structure_get_int(s, field, &v) ? v : fallback;
}

guint64 get_uint64(const GstStructure* s, const char* field, guint64 fallback) {
  guint64 v;
  return gst_structure_get_uint64(s, field, &v) ? v : fallback;
}

void expect_frame_matches_oracle(const GstStructure* frame, const std::map<std::string, double>& oracle,
                                 const std::vector<std::string>& absent_ok, const std::string& context,
                                 std::map<std::string, double>* max_diff) {
  std::map<std::string, bool> seen;
  const int n = gst_structure_n_fields(frame);
  for (int i = 0; i < n; i++) {
    const std::string field = gst_structure_nth_field_name(frame, i);
    if (is_timing_field(field)) continue;
    const std::string name = libvmaf_name(field);
    auto it = oracle.find(name);
    if (it == oracle.end()) {
      ADD_FAILURE() << context << ": field " << field << " (" << name << ") is not in libvmaf's output";
      continue;
    }
    seen[name] = true;
    const double v = get_double(frame, field.c_str());
    const double d = std::fabs(v - it->second);
    EXPECT_LE(d, tolerance_for(name)) << context << ": " << field << " = " << v << ", libvmaf " << it->second;
    if (max_diff) (*max_diff)[name] = std::max((*max_diff)[name], d);
  }
  for (const auto& [name, v] : oracle) {
    if (seen.count(name)) continue;
    bool ok = false;
    for (const auto& a : absent_ok) ok = ok || a == name;
    EXPECT_TRUE(ok) << context << ": libvmaf's " << name << " is missing from the frame message";
  }
}

namespace {
std::string& scratch_dir() {
  static std::string dir;
  return dir;
}
// Removes the scratch directory and what the tests left in it (files and empty directories) at exit.
void remove_scratch_dir() {
  const std::string& dir = scratch_dir();
  if (dir.empty()) return;
  if (GDir* d = g_dir_open(dir.c_str(), 0, nullptr)) {
    while (const gchar* name = g_dir_read_name(d)) {
      const std::string path = dir + "/" + name;
      if (g_remove(path.c_str()) != 0) g_rmdir(path.c_str());
    }
    g_dir_close(d);
  }
  g_rmdir(dir.c_str());
}
}  // namespace

std::string temp_path(const std::string& name) {
  static const std::string dir = [] {
    std::string tmpl = std::string(g_get_tmp_dir()) + "/vmafxhip-gst-XXXXXX";
    gchar* d = g_mkdtemp(&tmpl[0]);
    if (!d) return std::string(g_get_tmp_dir());
    scratch_dir() = d;
    std::atexit(remove_scratch_dir);
    return scratch_dir();
  }();
  static int counter = 0;
  return dir + "/" + std::to_string(++counter) + "-" + name;
}

}  // namespace vmafx::test
