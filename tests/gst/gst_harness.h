// SPDX-License-Identifier: LGPL-2.1-or-later
// Runs real pipelines with the vmafxhip element (named "v" in every launch line) and collects what it posts: frame
// and pooled VMAF messages, errors, warnings and infos, EOS, and the frames-scored / frames-skipped properties at the
// end.
#pragma once

#include <gst/gst.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support.h"

namespace vmafx::test {

// gst_init once; false (with the reason) when the vmafxhip plugin cannot be found.
bool gst_ready(std::string* why);

using Structure = std::shared_ptr<GstStructure>;
Structure copy_structure(const GstStructure* s);

struct BusMessage {
  GstMessageType type;
  std::string source;  // name of the posting object
  GQuark domain = 0;
  int code = 0;
  std::string text, debug;
  Structure details;  // error/warning details, when any
};

struct RunResult {
  bool parsed = false;
  bool state_change_failed = false;
  bool eos = false;
  bool timed_out = false;
  std::vector<Structure> frames;  // VMAF type=frame, in bus order
  std::vector<Structure> pooled;  // VMAF type=pooled
  std::vector<Structure> others;  // the other VMAF messages (type=skipped, type=sync)
  std::vector<BusMessage> errors, warnings, infos;
  guint64 frames_scored = 0;
  bool reached_playing = false;  // the pipeline's PLAYING state-changed message was seen
  guint64 frames_skipped = 0;
  // Errors posted by the element itself ("v").
  std::vector<BusMessage> element_errors() const;
  std::string describe_errors() const;
};

struct RunOptions {
  double timeout_s = 600;
  // Called on the test thread for each frame message, with the pipeline (e.g. to seek).
  std::function<void(GstElement* pipeline, const GstStructure* frame)> on_frame;
  // Called after the pipeline is built, before it starts (e.g. to feed appsrc elements).
  std::function<void(GstElement* pipeline)> setup;
  // The tests read per-frame messages: the element "v" gets frame-message=true (its default is false, as
  // GStreamer's vmaf) unless this is false or the launch line sets frame-message itself.
  bool frame_messages = true;
  // Called when the run is over (end of stream, error or timeout), before the pipeline goes to NULL.
  std::function<void(GstElement* pipeline)> at_end;
  // As gst-launch-1.0 does: PAUSED first, PLAYING once the pipeline prerolled (its PAUSED state-changed message),
  // instead of PLAYING at once. `reached_playing` tells whether it got there.
  bool via_paused = false;
};

RunResult run_pipeline(const std::string& launch, const RunOptions& options = {});
// Same, for a pipeline built by the caller (takes ownership).
RunResult run_pipeline(GstElement* pipeline, const RunOptions& options = {});

// filesrc + rawvideoparse for a tightly packed planar .yuv file (4:2:0, 4:2:2 or 4:4:4; 8 or 10 bits), 25 fps, with
// explicit plane strides and offsets so odd sizes keep the file's layout.
std::string raw_yuv_source(const std::string& path, uint32_t width, uint32_t height, unsigned bpc,
                           Chroma chroma = Chroma::k420);
// The same for a test pair's reference or distorted clip (its size, depth and subsampling).
std::string pair_source(const Pair& p, bool distorted);

// libvmaf's name of a message field ("integer-adm2" -> "integer_adm2", "score" -> "vmaf", "ssim" -> "float_ssim").
std::string libvmaf_name(const std::string& field);
bool is_timing_field(const std::string& field);
double get_double(const GstStructure* s, const char* field);  // NaN when absent
gint get_int(const GstStructure* s, const char* field, gint fallback = -1);
guint64 get_uint64(const GstStructure* s, const char* field, guint64 fallback = G_MAXUINT64);

// Compares every score field of a frame message with libvmaf's metrics (tolerances.h), and checks that every
// metric of `oracle` not in `absent_ok` is present. Tracks the largest difference per metric in `max_diff`.
void expect_frame_matches_oracle(const GstStructure* frame, const std::map<std::string, double>& oracle,
                                 const std::vector<std::string>& absent_ok, const std::string& context,
                                 std::map<std::string, double>* max_diff);

std::string temp_path(const std::string& name);  // a fresh path in a per-process scratch directory

}  // namespace vmafx::test
