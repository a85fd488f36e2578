// SPDX-License-Identifier: LGPL-2.1-or-later
// Runs GL pipelines with the vmafxhip element (named "v") and keeps what the GL tests look at: VMAF frame messages,
// errors and infos, EOS, the element's frames-scored / frames-copied / gl-stats and its sink pads' caps at the end
// of the stream (read before the pipeline goes to NULL).
#pragma once

#include <gst/gst.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace vmafx::gl::test {

// gst_init once; false with the reason when the vmafxhip plugin or GStreamer's GL plugin is missing.
bool gst_gl_ready(std::string* why);

using Structure = std::shared_ptr<GstStructure>;

struct Message {
  GstMessageType type;
  std::string source, text, debug;
};

struct GlRun {
  bool parsed = false, eos = false, timed_out = false;
  std::string parse_error;
  std::vector<Structure> frames;  // VMAF type=frame
  std::vector<Message> errors, infos, warnings;
  guint64 frames_scored = 0, frames_copied = 0;
  Structure gl_stats;  // null when the element reports none
  std::string ref_caps, dist_caps, src_caps;
  std::string describe() const;  // errors and warnings, for failure messages
  bool info_contains(const std::string& text) const;
};

struct GlRunOptions {
  double timeout_s = 600;
  // After the pipeline is built, before it starts (set contexts, connect appsinks, ...).
  std::function<void(GstElement* pipeline)> setup;
  // At EOS, before the pipeline goes to NULL.
  std::function<void(GstElement* pipeline)> at_eos;
};

GlRun run_gl_pipeline(const std::string& launch, const GlRunOptions& options = {});

// filesrc + rawvideoparse of a tightly packed 4:2:0 clip (8 or 10 bits), 25 fps, odd sizes in the file's layout.
std::string raw_clip_source(const std::string& path, uint32_t width, uint32_t height, unsigned bpc);

double field_double(const GstStructure* s, const char* field);  // NaN when absent
guint64 field_uint64(const GstStructure* s, const char* field, guint64 fallback = 0);
std::string field_string(const GstStructure* s, const char* field);
bool field_bool(const GstStructure* s, const char* field);

}  // namespace vmafx::gl::test
