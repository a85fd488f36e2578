// SPDX-License-Identifier: LGPL-2.1-or-later
// What vmafxhip posts on the bus: element messages named "VMAF" (type=frame per scored frame, type=skipped per
// skipped frame, type=sync for auto-sync's offset, type=pooled at the end and at a flushing seek) with the field
// names of GStreamer's `vmaf` element where the meaning is the same; the end-of-stream WARNING that names skipped
// frames, their cause and the fix; and the mapping of engine failures to GStreamer error domains and codes (each
// failure posted once, a short text plus the engine's detail as debug text, both made valid UTF-8).
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#include "stream_pairing.h"
#include "vmafx/collector.h"
#include "vmafx/scorer.h"
#include "vmafx/status.h"

namespace vmafx::gst {

inline constexpr const char* kMessageName = "VMAF";

// Field name of an engine score column: libvmaf's name with '_' turned into '-' ("integer_adm2" -> "integer-adm2"),
// float_ssim -> "ssim", float_ms_ssim -> "ms-ssim", the first model's score -> "score" and its extra columns without
// the model prefix ("vmaf_ci_p95_lo" -> "ci-p95-lo"); the columns of the other models keep their names
// ("vmaf_4k_v0.6.1", "vmaf_4k_v0.6.1_stddev").
std::vector<std::string> message_field_names(const std::vector<std::string>& score_names,
                                             const std::vector<std::string>& model_score_names);

struct FrameTiming {
  GstClockTime timestamp = GST_CLOCK_TIME_NONE;  // the output stream's frame
  GstClockTime stream_time = GST_CLOCK_TIME_NONE;
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
  GstClockTime duration = GST_CLOCK_TIME_NONE;
};

struct FrameExtras {
  GstClockTime ref_pts = GST_CLOCK_TIME_NONE;
  GstClockTime dist_pts = GST_CLOCK_TIME_NONE;
  std::string scaled_from;  // "WxH" when the distorted frame was scaled to the reference's size
  std::string pad;          // the distorted pad (rendition)
};

struct PooledExtras {
  std::string pad;          // the distorted pad (rendition)
  std::string scaled_from;  // "WxH" when its frames were scaled
  bool late_join = false;   // requested after the reference started: scored from `first_ref_pts` on
  uint64_t first_ref_pts = ~uint64_t(0);
  uint64_t ref_frames = 0, dist_frames = 0, paired = 0;
};

// type=frame: index, timing, the PTS of both frames, and every score of the frame that exists (NaN left out).
GstStructure* frame_structure(const FrameScore& score, const std::vector<std::string>& fields,
                              const FrameTiming& timing, const FrameExtras& extras);

// type=skipped: the pad and PTS of a frame left unscored, and why; `rendition` the distorted pad it was counted for
// (a field of its own when it is not `pad`).
GstStructure* skip_structure(const std::string& pad, const std::string& rendition, SkipReason reason,
                             const FrameTiming& timing);

// type=sync: the offset auto-sync found (frames the distorted stream is late by) and the luma PSNR it gave.
GstStructure* sync_structure(const std::string& pad, int offset, double psnr_y, int window,
                             unsigned frames_compared);

// type=pooled: `score` pooled with `method`, plus mean / min / max / harmonic-mean, percentiles p1 .. p99 and
// frames for the first model's score; every other column pooled with `method` under its field name; the collector's
// finite aggregate metrics (apsnr-y, apsnr-cb, apsnr-cr); the skip counts (skipped-*) and frames-skipped.
GstStructure* pooled_structure(const Collector& collector, const std::vector<std::string>& fields,
                               const std::string& model_score_name, PoolMethod method, const FrameTiming& timing,
                               const SkipCounts& skips, const PooledExtras& extras);

// The WARNING posted when frames went unscored: one line naming the counts, the likely cause and the fix, and a
// details structure (reference-frames, distorted-frames, frames-paired, skipped-*). Empty text: nothing to say.
struct SkipReport {
  SkipCounts skips{};
  uint64_t ref_frames = 0, dist_frames = 0, paired = 0;
  bool live = false;
  unsigned max_reference_frames = 0;
  bool dist_cut = false;  // the distorted stream was read only until the reference ended
  std::string ref_pad = "ref_sink", dist_pad = "dist_sink";
};
// `about`: the reason whose cause and fix the text names (count_: the reason with the most frames).
std::string skip_warning_text(const SkipReport& r, SkipReason* main_reason, SkipReason about = SkipReason::count_);
GstStructure* skip_warning_details(const SkipReport& r);

// GStreamer error domain and code for an engine failure (docs/architecture: "Errors, mapped once").
struct ErrorCode {
  GQuark domain;
  gint code;
};
ErrorCode error_code_for(Errc c);
// A model that does not exist is RESOURCE/NOT_FOUND, one that exists but does not load LIBRARY/INIT.
ErrorCode model_error_code(const std::string& model);

// Valid UTF-8 (GStreamer drops debug text that is not): invalid bytes become U+FFFD.
std::string sanitize_utf8(const std::string& s);

// Posts an error, warning or info message: `text` is the short user message, the status (code and engine detail)
// goes into the debug string; both are sanitised. `details` (may be null) is taken.
void post_status(GstElement* element, GstMessageType type, ErrorCode code, const std::string& text,
                 const Status& status, const char* file, const char* function, int line,
                 GstStructure* details = nullptr);
// Same with a plain debug string.
void post_text(GstElement* element, GstMessageType type, ErrorCode code, const std::string& text,
               const std::string& debug, const char* file, const char* function, int line,
               GstStructure* details = nullptr);

}  // namespace vmafx::gst
