// SPDX-License-Identifier: LGPL-2.1-or-later
// What vmafxhip posts on the bus: the element messages named "VMAF" (type=frame per scored frame, type=pooled at the
// end), with the field names of GStreamer's `vmaf` element where the meaning is the same, and the mapping of engine
// failures to GStreamer error domains and codes (each failure posted once, short text + engine detail as debug).
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#include "vmafx/collector.h"
#include "vmafx/scorer.h"
#include "vmafx/status.h"

namespace vmafx::gst {

inline constexpr const char* kMessageName = "VMAF";

// Field name of an engine score column in the messages: libvmaf's name with '_' turned into '-' ("integer_adm2" ->
// "integer-adm2", "psnr_y" -> "psnr-y"), float_ssim -> "ssim", float_ms_ssim -> "ms-ssim", the model's score ->
// "score", and the model's extra columns without the model prefix ("vmaf_ci_p95_lo" -> "ci-p95-lo", "vmaf_stddev"
// -> "stddev", "vmaf_bagging" -> "bagging").
std::string message_field_name(const std::string& score_name, const std::string& model_score_name);
std::vector<std::string> message_field_names(const std::vector<std::string>& score_names,
                                             const std::string& model_score_name);

struct FrameTiming {
  GstClockTime timestamp = GST_CLOCK_TIME_NONE;  // the scored (distorted) buffer's PTS
  GstClockTime stream_time = GST_CLOCK_TIME_NONE;
  GstClockTime running_time = GST_CLOCK_TIME_NONE;
  GstClockTime duration = GST_CLOCK_TIME_NONE;
};

// VMAF, type=frame: index, timing, and every score of the frame that exists (NaN values are left out).
GstStructure* frame_structure(const FrameScore& score, const std::vector<std::string>& fields,
                              const FrameTiming& timing);

// VMAF, type=pooled: `score` pooled with `method`, plus mean / min / max / harmonic-mean, percentiles p1 .. p99 and
// frames for the model score; every other column pooled with `method` under its field name. Without a model the
// score fields are absent and frames counts the frames pooled for the first column.
GstStructure* pooled_structure(const Collector& collector, const std::vector<std::string>& fields,
                               const std::string& model_score_name, PoolMethod method, const FrameTiming& timing);

// GStreamer error domain and code for an engine failure (docs/architecture: "Errors, mapped once").
struct ErrorCode {
  GQuark domain;
  gint code;
};
ErrorCode error_code_for(Errc c);
// A model that does not exist is RESOURCE/NOT_FOUND, one that exists but does not load LIBRARY/INIT.
ErrorCode model_error_code(const std::string& model);

// Posts an error, warning or info message: `text` is the short user message, the status (code and engine detail)
// goes into the debug string.
void post_status(GstElement* element, GstMessageType type, ErrorCode code, const std::string& text,
                 const Status& status, const char* file, const char* function, int line);

}  // namespace vmafx::gst
