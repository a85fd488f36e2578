// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafxhip's properties: their GEnum types (GStreamer's `vmaf` values and nicks first, ours after), the Settings
// they fill, installation with nick, blurb and mutability, and the parsing of the list-valued ones.
//
// Mutability. A property that configures the engine, the inputs or the pairing is GST_PARAM_MUTABLE_READY: a change
// in PAUSED or PLAYING is refused with a GLib warning and the old value stays. The others
// (GST_PARAM_MUTABLE_PLAYING) take effect from the next frame: frame-message, pool-method (read when the pooled
// message is made), log-level, max-reference-frames, max-reference-bytes, latency, stall-timeout.
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#include "gstvmafxhipscoring.h"
#include "vmafx/output.h"

namespace vmafx::gst {

// Values as GStreamer's vmaf element (libvmaf's enum VmafPoolingMethod) numbers them.
enum PoolMethodValue { POOL_MIN = 1, POOL_MAX = 2, POOL_MEAN = 3, POOL_HARMONIC_MEAN = 4 };
// libvmaf's enum VmafOutputFormat, as vmaf numbers it; sub is libvmaf's too (vmaf does not list it).
enum ResultsFormatValue { RESULTS_NONE = 0, RESULTS_XML = 1, RESULTS_JSON = 2, RESULTS_CSV = 3, RESULTS_SUB = 4 };
enum LogLevelValue { LOG_NONE = 0, LOG_ERROR = 1, LOG_WARNING = 2, LOG_INFO = 3, LOG_DEBUG = 4 };
enum BackendValue { BACKEND_AUTO, BACKEND_CPU, BACKEND_HIP };
enum VendorValue { VENDOR_AUTO, VENDOR_AMD, VENDOR_NVIDIA };
enum OutputValue { OUTPUT_REFERENCE, OUTPUT_DISTORTED };
enum PairingValue { PAIRING_TIMESTAMP, PAIRING_ARRIVAL };
enum ScaleMethodValue { SCALE_NONE, SCALE_BICUBIC, SCALE_BILINEAR, SCALE_LANCZOS };

GType pool_method_get_type();
GType results_format_get_type();
GType log_level_get_type();
GType backend_get_type();
GType vendor_get_type();
GType output_get_type();
GType pairing_get_type();
GType scale_method_get_type();

enum PropertyId {
  PROP_0,
  // GStreamer vmaf's properties.
  PROP_MODEL_FILENAME,
  PROP_DISABLE_CLIP,
  PROP_ENABLE_TRANSFORM,
  PROP_PHONE_MODEL,
  PROP_PSNR,
  PROP_SSIM,
  PROP_MS_SSIM,
  PROP_THREADS,
  PROP_SUBSAMPLE,
  PROP_CONF_INTERVAL,
  PROP_POOL_METHOD,
  PROP_FRAME_MESSAGE,
  PROP_RESULTS_FORMAT,
  PROP_RESULTS_FILENAME,
  PROP_LOG_LEVEL,
  // vmafxhip's.
  PROP_FEATURES,
  PROP_OUTPUT,
  PROP_PAIRING,
  PROP_DIST_OFFSET,
  PROP_AUTO_SYNC,
  PROP_MAX_REFERENCE_FRAMES,
  PROP_MAX_REFERENCE_BYTES,
  PROP_LATENCY,
  PROP_FORCE_LIVE,
  PROP_STALL_TIMEOUT,
  PROP_SCALE_METHOD,
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_VENDOR,
  PROP_ALLOW_COPY,
  PROP_ALLOW_STRETCH,
  // Read-only.
  PROP_FRAMES_SCORED,
  PROP_FRAMES_SKIPPED,
  PROP_FRAMES_COPIED,
  PROP_GL_STATS,
  PROP_CUDA_STATS,
};

constexpr const char* kDefaultModel = "vmaf_v0.6.1";
constexpr guint kDefaultMaxReferenceFrames = 120;
constexpr guint64 kDefaultMaxReferenceBytes = guint64(1) << 30;
constexpr guint kDefaultStallTimeout = 30;  // seconds
constexpr gint kAutoSyncWindow = 30;        // frames either way

struct Settings {
  std::string model = kDefaultModel;
  bool disable_clip = false;
  bool enable_transform = false;
  bool phone_model = false;
  bool psnr = false;
  bool ssim = false;
  bool ms_ssim = false;
  unsigned threads = 0;
  unsigned subsample = 1;
  bool conf_interval = false;
  PoolMethodValue pool_method = POOL_MEAN;
  bool frame_message = false;
  ResultsFormatValue results_format = RESULTS_NONE;
  std::string results_filename;
  LogLevelValue log_level = LOG_NONE;
  std::string features;
  OutputValue output = OUTPUT_REFERENCE;
  PairingValue pairing = PAIRING_TIMESTAMP;
  int dist_offset = 0;
  bool auto_sync = false;
  unsigned max_reference_frames = kDefaultMaxReferenceFrames;
  guint64 max_reference_bytes = kDefaultMaxReferenceBytes;
  GstClockTime latency = 0;
  bool force_live = false;
  unsigned stall_timeout = kDefaultStallTimeout;
  ScaleMethodValue scale_method = SCALE_BICUBIC;
  BackendValue backend = BACKEND_AUTO;
  int device_id = -1;
  VendorValue vendor = VENDOR_AUTO;
  bool allow_copy = true;
  bool allow_stretch = false;
};

// Installs every writable property; the read-only counters too (their values come from the element).
void install_properties(GObjectClass* klass);
// Stores a property value. The element has checked mutability (property_change_allowed).
void settings_set(Settings* s, guint prop_id, const GValue* value);
// Reads one; false for ids this module does not hold (the read-only counters).
bool settings_get(const Settings& s, guint prop_id, GValue* value);
// False (after a GLib warning naming the property and the state) when `pspec` may not change in `state`.
bool property_change_allowed(GstElement* element, GParamSpec* pspec, GstState state);

// model-filename: a comma-separated list of models, each in vmafx-score's --model syntax (vmafx/model_spec.h: a
// built-in version or a libvmaf JSON file, alone or as version=NAME / path=FILE with name=COLUMN, disable_clip,
// enable_transform and EXTRACTOR.OPTION=VALUE overloads), or "auto" (vmaf_4k_v0.6.1 for references of 2160 lines or
// more, else vmaf_v0.6.1). A model's score column is its name=; without one, the first model's is "vmaf" (message
// field "score"), another's its version or its file name without ".json". Two models of one column, or a bad key,
// are Errc::invalid_argument naming it. Empty: no model.
Status parse_models(const std::string& text, unsigned ref_height, std::vector<ScoringModel>* out,
                    std::vector<std::string>* auto_choices);
// features: libvmaf's --feature syntax, entries separated by commas: "psnr", "float_ssim",
// "psnr=enable_chroma=false:enable_mse=true".
Status parse_features(const std::string& text, std::vector<ScoringFeature>* out);

PoolMethod to_pool_method(PoolMethodValue v);
ResultsFormat to_results_format(ResultsFormatValue v);
Backend to_backend(BackendValue v);
Vendor to_vendor(VendorValue v);
Scaling to_scaling(ScaleMethodValue v);
GstDebugLevel to_debug_level(LogLevelValue v);

}  // namespace vmafx::gst
