// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhipsettings.h"

#include <cstring>

#include "vmafx/model.h"
#include "vmafx/model_spec.h"

namespace vmafx::gst {

namespace {

// The three enum types GStreamer's vmaf registers carry its type names, so that code written for vmaf finds them.
// GLib refuses a type name twice, and the element registered second would lose its properties: when vmaf is
// installed too (it may be loaded into the same process, e.g. by gst-inspect-1.0 -a) or has registered the names
// already, vmafxhip registers its own names (GstVmafxhip...) instead. Values and nicks are the same either way.
bool vmaf_installed() {
  GstPluginFeature* f = gst_registry_lookup_feature(gst_registry_get(), "vmaf");
  if (f) gst_object_unref(f);
  return f != nullptr;
}

GType register_enum(const char* vmaf_name, const char* own_name, const GEnumValue* values) {
  const bool use_vmaf_name = vmaf_name && !g_type_from_name(vmaf_name) && !vmaf_installed();
  return g_enum_register_static(use_vmaf_name ? vmaf_name : own_name, values);
}

#define VMAFXHIP_ENUM_TYPE(fn, vmaf_name, own_name, ...)                                                     \
  GType fn() {                                                                                              \
    static gsize id = 0;                                                                                    \
    static const GEnumValue values[] = {__VA_ARGS__, {0, nullptr, nullptr}};                                \
    if (g_once_init_enter(&id)) g_once_init_leave(&id, register_enum(vmaf_name, own_name, values));         \
    return GType(id);                                                                                       \
  }

void set_string(std::string* field, const GValue* value) {
  const gchar* v = g_value_get_string(value);
  *field = v ? v : "";
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t");
  return s.substr(a, b - a + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return out;
}

constexpr GParamFlags kReady = GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
constexpr GParamFlags kPlaying =
    GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
constexpr GParamFlags kReadOnly = GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

void bool_prop(GObjectClass* k, guint id, const char* name, const char* nick, const char* blurb, bool def,
               GParamFlags flags = kReady) {
  g_object_class_install_property(k, id, g_param_spec_boolean(name, nick, blurb, def, flags));
}

}  // namespace

// GStreamer vmaf's order and descriptions are its own; ours follow the same pattern.
VMAFXHIP_ENUM_TYPE(pool_method_get_type, "GstVmafPoolMethod", "GstVmafxhipPoolMethod",
                   {POOL_MIN, "Minimum value", "min"}, {POOL_MAX, "Maximum value", "max"},
                   {POOL_MEAN, "Arithmetic mean", "mean"}, {POOL_HARMONIC_MEAN, "Harmonic mean", "harmonic_mean"})

VMAFXHIP_ENUM_TYPE(results_format_get_type, "GstVmafResultsFormat", "GstVmafxhipResultsFormat",
                   {RESULTS_NONE, "None", "none"}, {RESULTS_XML, "XML", "xml"},
                   {RESULTS_CSV, "Comma Separated File (csv)", "csv"}, {RESULTS_JSON, "JSON", "json"},
                   {RESULTS_SUB, "MicroDVD subtitles (sub), libvmaf's --sub", "sub"})

VMAFXHIP_ENUM_TYPE(log_level_get_type, "GstVmafLogLevel", "GstVmafxhipLogLevel",
                   {LOG_NONE, "No logging (the vmafxhip debug category as GST_DEBUG sets it)", "none"},
                   {LOG_ERROR, "Error", "error"}, {LOG_WARNING, "Warning", "warning"}, {LOG_INFO, "Info", "info"},
                   {LOG_DEBUG, "Debug", "debug"})

VMAFXHIP_ENUM_TYPE(backend_get_type, nullptr, "GstVmafxhipBackend",
                   {BACKEND_AUTO, "The GPU when one is usable, else the CPU (said once)", "auto"},
                   {BACKEND_CPU, "The CPU reference", "cpu"},
                   {BACKEND_HIP, "The GPU through HIP (an error when no device is usable)", "hip"})

VMAFXHIP_ENUM_TYPE(vendor_get_type, nullptr, "GstVmafxhipVendor", {VENDOR_AUTO, "Any", "auto"},
                   {VENDOR_AMD, "AMD (ROCm)", "amd"}, {VENDOR_NVIDIA, "NVIDIA (CUDA)", "nvidia"})

VMAFXHIP_ENUM_TYPE(output_get_type, nullptr, "GstVmafxhipOutput",
                   {OUTPUT_REFERENCE, "The reference frames, as GStreamer's vmaf", "reference"},
                   {OUTPUT_DISTORTED, "The distorted frames", "distorted"})

VMAFXHIP_ENUM_TYPE(pairing_get_type, nullptr, "GstVmafxhipPairing",
                   {PAIRING_TIMESTAMP, "Frames of the same running time (within half a frame)", "timestamp"},
                   {PAIRING_ARRIVAL, "The n-th buffer of each pad, whatever its timestamp", "arrival"})

VMAFXHIP_ENUM_TYPE(scale_method_get_type, nullptr, "GstVmafxhipScaleMethod",
                   {SCALE_NONE, "None: the distorted size must equal the reference's", "none"},
                   {SCALE_BICUBIC, "Bicubic, as FFmpeg's scale flags=bicubic", "bicubic"},
                   {SCALE_BILINEAR, "Bilinear", "bilinear"}, {SCALE_LANCZOS, "Lanczos", "lanczos"})

void install_properties(GObjectClass* k) {
  g_object_class_install_property(
      k, PROP_MODEL_FILENAME,
      g_param_spec_string("model-filename", "Model files",
                          "Comma-separated VMAF models, each a built-in version (vmaf_v0.6.1, vmaf_4k_v0.6.1, "
                          "vmaf_v1.0.16_3d0h, ...), the path of a libvmaf JSON model file, auto (vmaf_4k_v0.6.1 "
                          "from 2160 lines up, else vmaf_v0.6.1), or libvmaf's --model syntax "
                          "(version=NAME|path=FILE[:name=COLUMN][:disable_clip][:enable_transform]"
                          "[:EXTRACTOR.OPTION=VALUE]); score is the first model's (unless named), the others' "
                          "under their names; empty: features only",
                          kDefaultModel, kReady));
  bool_prop(k, PROP_DISABLE_CLIP, "disable-clip", "Disable clipping", "Do not clip VMAF scores to the model's range",
            false);
  bool_prop(k, PROP_ENABLE_TRANSFORM, "enable-transform", "Enable transform",
            "Apply the model's score transform (the phone model)", false);
  bool_prop(k, PROP_PHONE_MODEL, "phone-model", "Phone model", "Use the VMAF phone model (same as enable-transform)",
            false);
  bool_prop(k, PROP_PSNR, "psnr", "PSNR", "Also compute PSNR (psnr-y, psnr-cb, psnr-cr)", false);
  bool_prop(k, PROP_SSIM, "ssim", "SSIM", "Also compute SSIM (libvmaf's float_ssim)", false);
  bool_prop(k, PROP_MS_SSIM, "ms-ssim", "MS-SSIM", "Also compute MS-SSIM (libvmaf's float_ms_ssim)", false);
  g_object_class_install_property(
      k, PROP_THREADS,
      g_param_spec_uint("threads", "Threads", "Engine worker threads (0: one per processor)", 0, G_MAXINT, 0,
                        kReady));
  g_object_class_install_property(
      k, PROP_SUBSAMPLE,
      g_param_spec_uint("subsample", "Subsample",
                        "Score one frame in N (motion still reads every frame), as libvmaf's --subsample", 1, 128, 1,
                        kReady));
  bool_prop(k, PROP_CONF_INTERVAL, "conf-interval", "Confidence interval",
            "Report the 95 % confidence interval and standard deviation (a bootstrap model such as vmaf_b_v0.6.3)",
            false);
  g_object_class_install_property(
      k, PROP_POOL_METHOD,
      g_param_spec_enum("pool-method", "Pool method",
                        "How the per-frame scores are pooled into the pooled message's score (read at its time)",
                        pool_method_get_type(), POOL_MEAN, kPlaying));
  bool_prop(k, PROP_FRAME_MESSAGE, "frame-message", "Frame messages",
            "Post a VMAF element message for every scored frame (and every skipped one)", false, kPlaying);
  g_object_class_install_property(
      k, PROP_RESULTS_FORMAT,
      g_param_spec_enum("results-format", "Results format",
                        "Layout of the results file (libvmaf's); none with results-filename set: json",
                        results_format_get_type(), RESULTS_NONE, kReady));
  g_object_class_install_property(
      k, PROP_RESULTS_FILENAME,
      g_param_spec_string("results-filename", "Results file",
                          "File written at the end of the stream, in results-format", nullptr, kReady));
  g_object_class_install_property(
      k, PROP_LOG_LEVEL,
      g_param_spec_enum("log-level", "Log level", "Threshold of the vmafxhip debug category (none: as GST_DEBUG)",
                        log_level_get_type(), LOG_NONE, kPlaying));
  g_object_class_install_property(
      k, PROP_FEATURES,
      g_param_spec_string("features", "Features",
                          "Extra features in libvmaf's --feature syntax, comma-separated (psnr, float_ssim, "
                          "float_ms_ssim, motion, adm, vif, ssimulacra2, ...; options: name=opt=value:opt=value)",
                          nullptr, kReady));
  g_object_class_install_property(
      k, PROP_OUTPUT,
      g_param_spec_enum("output", "Output", "Which stream src passes through, unchanged and at once",
                        output_get_type(), OUTPUT_REFERENCE, kReady));
  g_object_class_install_property(
      k, PROP_PAIRING,
      g_param_spec_enum("pairing", "Pairing", "How reference and distorted frames are paired", pairing_get_type(),
                        PAIRING_TIMESTAMP, kReady));
  g_object_class_install_property(
      k, PROP_DIST_OFFSET,
      g_param_spec_int("dist-offset", "Distorted offset",
                       "Frames the distorted stream is late by: N > 0 leaves out its first N frames (leading "
                       "frames, decoder delay), N < 0 the reference's first -N frames",
                       G_MININT, G_MAXINT, 0, kReady));
  bool_prop(k, PROP_AUTO_SYNC, "auto-sync", "Automatic synchronisation",
            "Find the offset between the streams within 30 frames either way of dist-offset from the first frames' "
            "luma PSNR, post it (VMAF type=sync) and score with it (the offset found is the whole offset)",
            false);
  g_object_class_install_property(
      k, PROP_MAX_REFERENCE_FRAMES,
      g_param_spec_uint("max-reference-frames", "Frames held",
                        "Frames a sink pad holds while they wait for their partner (an encoder's lookahead on the "
                        "distorted branch must fit); beyond it a live pipeline skips the oldest, others wait",
                        1, 100000, kDefaultMaxReferenceFrames, kPlaying));
  g_object_class_install_property(
      k, PROP_MAX_REFERENCE_BYTES,
      g_param_spec_uint64("max-reference-bytes", "Bytes held",
                          "Bytes a sink pad holds while its frames wait for their partner (0: no byte limit)", 0,
                          G_MAXUINT64, kDefaultMaxReferenceBytes, kPlaying));
  g_object_class_install_property(
      k, PROP_LATENCY,
      g_param_spec_uint64("latency", "Latency",
                          "Live: extra time (ns) added to the hold window that the latency query reports", 0,
                          G_MAXUINT64, 0, kPlaying));
  bool_prop(k, PROP_FORCE_LIVE, "force-live", "Force live",
            "Pair as in a live pipeline (never block a streaming thread; skip and count) even without a live "
            "source",
            false);
  g_object_class_install_property(
      k, PROP_STALL_TIMEOUT,
      g_param_spec_uint("stall-timeout", "Stall timeout",
                        "Not live: seconds a full sink pad waits without its partner pad receiving anything before "
                        "an error names max-reference-frames (0: wait for ever)",
                        0, G_MAXUINT, kDefaultStallTimeout, kPlaying));
  g_object_class_install_property(
      k, PROP_SCALE_METHOD,
      g_param_spec_enum("scale-method", "Scale method",
                        "How a distorted stream of another size is brought to the reference's size",
                        scale_method_get_type(), SCALE_BICUBIC, kReady));
  g_object_class_install_property(
      k, PROP_BACKEND,
      g_param_spec_enum("backend", "Backend", "Where the features are computed", backend_get_type(), BACKEND_AUTO,
                        kReady));
  g_object_class_install_property(
      k, PROP_DEVICE_ID,
      g_param_spec_int("device-id", "Device",
                       "GPU index for the HIP backend, among the visible GPUs (CUDA_VISIBLE_DEVICES, "
                       "HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES); -1: automatic placement: the GPU of CUDA input "
                       "memory, else the visible GPU with the fewest scoring sessions of this process, then the most "
                       "free memory",
                       -1, G_MAXINT, -1, kReady));
  g_object_class_install_property(
      k, PROP_VENDOR,
      g_param_spec_enum("vendor", "Vendor", "GPU runtime of the HIP backend", vendor_get_type(), VENDOR_AUTO,
                        kReady));
  bool_prop(k, PROP_ALLOW_COPY, "allow-copy", "Allow copies",
            "Copy frames the GPU cannot import (a dma-buf the runtime refuses: mapped and uploaded; GL textures the "
            "GL check refuses: downloaded through GL; CUDA memory of another context or GPU: copied on the device; "
            "device memory a CPU scorer reads: downloaded); false: such input is an error naming the reason",
            true);
  bool_prop(k, PROP_ALLOW_STRETCH, "allow-stretch", "Allow stretching",
            "Scale a distorted stream of another display aspect ratio than the reference's to the reference's size "
            "(false: such a stream is an error; streams of the same aspect ratio are always scaled)",
            false);
  g_object_class_install_property(
      k, PROP_FRAMES_SCORED,
      g_param_spec_uint64("frames-scored", "Frames scored", "Frames scored since the start or the last flushing seek",
                          0, G_MAXUINT64, 0, kReadOnly));
  g_object_class_install_property(
      k, PROP_FRAMES_SKIPPED,
      g_param_spec_uint64("frames-skipped", "Frames skipped",
                          "Frames left unscored since the start or the last flushing seek (reasons: the pooled "
                          "message's skipped-* fields)",
                          0, G_MAXUINT64, 0, kReadOnly));
  g_object_class_install_property(
      k, PROP_FRAMES_COPIED,
      g_param_spec_uint64("frames-copied", "Frames copied",
                          "Input frames (reference and distorted each) copied because the scorer could not read them "
                          "where they are",
                          0, G_MAXUINT64, 0, kReadOnly));
  g_object_class_install_property(
      k, PROP_GL_STATS,
      g_param_spec_boxed("gl-stats", "GL input statistics",
                         "Per sink pad (ref-*, dist-*): the GL path and why (path, zero-copy), frames, frames-copied, "
                         "texture-lookups, texture-hits, registrations, texture-uploads, system-memory-frames, "
                         "upload-errors; null before any GL frame",
                         GST_TYPE_STRUCTURE, kReadOnly));
  g_object_class_install_property(
      k, PROP_CUDA_STATS,
      g_param_spec_boxed("cuda-stats", "CUDA input statistics",
                         "memory:CUDAMemory input of both sink pads: path (in place / device copy / download and why), "
                         "frames, in-place, device-copies, host-copies, stream-waits, host-waits, pending-releases; "
                         "per sink pad (ref-*, dist-*): frames, in-place, device-copies, host-copies; null before any "
                         "CUDA frame",
                         GST_TYPE_STRUCTURE, kReadOnly));
}

void settings_set(Settings* s, guint id, const GValue* v) {
  switch (id) {
    case PROP_MODEL_FILENAME: set_string(&s->model, v); break;
    case PROP_DISABLE_CLIP: s->disable_clip = g_value_get_boolean(v); break;
    case PROP_ENABLE_TRANSFORM: s->enable_transform = g_value_get_boolean(v); break;
    case PROP_PHONE_MODEL: s->phone_model = g_value_get_boolean(v); break;
    case PROP_PSNR: s->psnr = g_value_get_boolean(v); break;
    case PROP_SSIM: s->ssim = g_value_get_boolean(v); break;
    case PROP_MS_SSIM: s->ms_ssim = g_value_get_boolean(v); break;
    case PROP_THREADS: s->threads = g_value_get_uint(v); break;
    case PROP_SUBSAMPLE: s->subsample = g_value_get_uint(v); break;
    case PROP_CONF_INTERVAL: s->conf_interval = g_value_get_boolean(v); break;
    case PROP_POOL_METHOD: s->pool_method = PoolMethodValue(g_value_get_enum(v)); break;
    case PROP_FRAME_MESSAGE: s->frame_message = g_value_get_boolean(v); break;
    case PROP_RESULTS_FORMAT: s->results_format = ResultsFormatValue(g_value_get_enum(v)); break;
    case PROP_RESULTS_FILENAME: set_string(&s->results_filename, v); break;
    case PROP_LOG_LEVEL: s->log_level = LogLevelValue(g_value_get_enum(v)); break;
    case PROP_FEATURES: set_string(&s->features, v); break;
    case PROP_OUTPUT: s->output = OutputValue(g_value_get_enum(v)); break;
    case PROP_PAIRING: s->pairing = PairingValue(g_value_get_enum(v)); break;
    case PROP_DIST_OFFSET: s->dist_offset = g_value_get_int(v); break;
    case PROP_AUTO_SYNC: s->auto_sync = g_value_get_boolean(v); break;
    case PROP_MAX_REFERENCE_FRAMES: s->max_reference_frames = g_value_get_uint(v); break;
    case PROP_MAX_REFERENCE_BYTES: s->max_reference_bytes = g_value_get_uint64(v); break;
    case PROP_LATENCY: s->latency = g_value_get_uint64(v); break;
    case PROP_FORCE_LIVE: s->force_live = g_value_get_boolean(v); break;
    case PROP_STALL_TIMEOUT: s->stall_timeout = g_value_get_uint(v); break;
    case PROP_SCALE_METHOD: s->scale_method = ScaleMethodValue(g_value_get_enum(v)); break;
    case PROP_BACKEND: s->backend = BackendValue(g_value_get_enum(v)); break;
    case PROP_DEVICE_ID: s->device_id = g_value_get_int(v); break;
    case PROP_VENDOR: s->vendor = VendorValue(g_value_get_enum(v)); break;
    case PROP_ALLOW_COPY: s->allow_copy = g_value_get_boolean(v); break;
    case PROP_ALLOW_STRETCH: s->allow_stretch = g_value_get_boolean(v); break;
    default: break;
  }
}

bool settings_get(const Settings& s, guint id, GValue* v) {
  switch (id) {
    case PROP_MODEL_FILENAME: g_value_set_string(v, s.model.c_str()); break;
    case PROP_DISABLE_CLIP: g_value_set_boolean(v, s.disable_clip); break;
    case PROP_ENABLE_TRANSFORM: g_value_set_boolean(v, s.enable_transform); break;
    case PROP_PHONE_MODEL: g_value_set_boolean(v, s.phone_model); break;
    case PROP_PSNR: g_value_set_boolean(v, s.psnr); break;
    case PROP_SSIM: g_value_set_boolean(v, s.ssim); break;
    case PROP_MS_SSIM: g_value_set_boolean(v, s.ms_ssim); break;
    case PROP_THREADS: g_value_set_uint(v, s.threads); break;
    case PROP_SUBSAMPLE: g_value_set_uint(v, s.subsample); break;
    case PROP_CONF_INTERVAL: g_value_set_boolean(v, s.conf_interval); break;
    case PROP_POOL_METHOD: g_value_set_enum(v, s.pool_method); break;
    case PROP_FRAME_MESSAGE: g_value_set_boolean(v, s.frame_message); break;
    case PROP_RESULTS_FORMAT: g_value_set_enum(v, s.results_format); break;
    case PROP_RESULTS_FILENAME:
      g_value_set_string(v, s.results_filename.empty() ? nullptr : s.results_filename.c_str());
      break;
    case PROP_LOG_LEVEL: g_value_set_enum(v, s.log_level); break;
    case PROP_FEATURES: g_value_set_string(v, s.features.empty() ? nullptr : s.features.c_str()); break;
    case PROP_OUTPUT: g_value_set_enum(v, s.output); break;
    case PROP_PAIRING: g_value_set_enum(v, s.pairing); break;
    case PROP_DIST_OFFSET: g_value_set_int(v, s.dist_offset); break;
    case PROP_AUTO_SYNC: g_value_set_boolean(v, s.auto_sync); break;
    case PROP_MAX_REFERENCE_FRAMES: g_value_set_uint(v, s.max_reference_frames); break;
    case PROP_MAX_REFERENCE_BYTES: g_value_set_uint64(v, s.max_reference_bytes); break;
    case PROP_LATENCY: g_value_set_uint64(v, s.latency); break;
    case PROP_FORCE_LIVE: g_value_set_boolean(v, s.force_live); break;
    case PROP_STALL_TIMEOUT: g_value_set_uint(v, s.stall_timeout); break;
    case PROP_SCALE_METHOD: g_value_set_enum(v, s.scale_method); break;
    case PROP_BACKEND: g_value_set_enum(v, s.backend); break;
    case PROP_DEVICE_ID: g_value_set_int(v, s.device_id); break;
    case PROP_VENDOR: g_value_set_enum(v, s.vendor); break;
    case PROP_ALLOW_COPY: g_value_set_boolean(v, s.allow_copy); break;
    case PROP_ALLOW_STRETCH: g_value_set_boolean(v, s.allow_stretch); break;
    default: return false;
  }
  return true;
}

bool property_change_allowed(GstElement* element, GParamSpec* pspec, GstState state) {
  if (state <= GST_STATE_READY || (pspec->flags & GST_PARAM_MUTABLE_PLAYING)) return true;
  g_warning("%s: property '%s' cannot change in the %s state (the element reads it when it starts); set it in the "
            "NULL or READY state. The change is ignored.",
            GST_ELEMENT_NAME(element), pspec->name, gst_element_state_get_name(state));
  return false;
}

Status parse_models(const std::string& text, unsigned ref_height, std::vector<ScoringModel>* out,
                    std::vector<std::string>* auto_choices) {
  out->clear();
  if (auto_choices) auto_choices->clear();
  if (trim(text).empty()) return Status::ok();
  std::vector<ScoringModel> models;
  for (const std::string& raw : split(text, ',')) {
    std::string entry = trim(raw);
    if (entry.empty()) return {Errc::invalid_argument, "model-filename '" + text + "' has an empty entry"};
    if (entry == "auto") {
      entry = ref_height >= 2160 ? "vmaf_4k_v0.6.1" : "vmaf_v0.6.1";
      if (auto_choices)
        auto_choices->push_back("model-filename=auto: " + entry + " for " + std::to_string(ref_height) +
                                "-line video");
    }
    // vmafx-score's --model syntax (the engine's parser): "vmaf_v0.6.1", "version=vmaf_v0.6.1:name=hd",
    // "path=/m.json:vif.vif_enhn_gain_limit=1.0", "vmaf_4k_v0.6.1:disable_clip".
    vmafx::ModelSpec spec;
    VMAFX_TRY(vmafx::parse_model_spec(entry, &spec, "model-filename"));
    ScoringModel m;
    m.model = spec.request.model;
    m.overrides = spec.request.overrides;
    m.disable_clip = spec.request.disable_clip;
    m.enable_transform = spec.request.enable_transform;
    if (spec.name_given) {
      m.name = spec.request.name;
    } else if (models.empty()) {
      m.name = "vmaf";
    } else if (!spec.version.empty()) {
      m.name = spec.version;
    } else {
      gchar* base = g_path_get_basename(spec.path.c_str());
      std::string b = base;
      g_free(base);
      if (b.size() > 5 && b.compare(b.size() - 5, 5, ".json") == 0) b.resize(b.size() - 5);
      m.name = b;
    }
    for (const auto& other : models)
      if (other.name == m.name)
        return {Errc::invalid_argument, "model-filename '" + text + "': two models score into the column '" +
                                            m.name + "': give one another name (name=COLUMN)"};
    models.push_back(std::move(m));
  }
  *out = std::move(models);
  return Status::ok();
}

Status parse_features(const std::string& text, std::vector<ScoringFeature>* out) {
  out->clear();
  if (trim(text).empty()) return Status::ok();
  for (const std::string& raw : split(text, ',')) {
    const std::string entry = trim(raw);
    if (entry.empty()) return {Errc::invalid_argument, "features '" + text + "' has an empty entry"};
    ScoringFeature f;
    const size_t eq = entry.find('=');
    f.name = trim(entry.substr(0, eq));
    if (f.name.empty()) return {Errc::invalid_argument, "feature '" + entry + "' has no name"};
    if (eq != std::string::npos) {
      for (const std::string& opt : split(entry.substr(eq + 1), ':')) {
        const size_t oeq = opt.find('=');
        if (oeq == std::string::npos || oeq == 0 || oeq + 1 == opt.size())
          return {Errc::invalid_argument, "feature '" + entry + "': option '" + opt + "' is not name=value"};
        f.options.emplace_back(trim(opt.substr(0, oeq)), trim(opt.substr(oeq + 1)));
      }
    }
    bool dup = false;
    for (const auto& o : *out) dup = dup || (o.name == f.name && o.options == f.options);
    if (!dup) out->push_back(std::move(f));
  }
  return Status::ok();
}

PoolMethod to_pool_method(PoolMethodValue v) {
  switch (v) {
    case POOL_MIN: return PoolMethod::min;
    case POOL_MAX: return PoolMethod::max;
    case POOL_MEAN: return PoolMethod::mean;
    case POOL_HARMONIC_MEAN: return PoolMethod::harmonic_mean;
  }
  return PoolMethod::mean;
}

ResultsFormat to_results_format(ResultsFormatValue v) {
  switch (v) {
    case RESULTS_NONE: return ResultsFormat::none;
    case RESULTS_XML: return ResultsFormat::xml;
    case RESULTS_JSON: return ResultsFormat::json;
    case RESULTS_CSV: return ResultsFormat::csv;
    case RESULTS_SUB: return ResultsFormat::sub;
  }
  return ResultsFormat::none;
}

Backend to_backend(BackendValue v) {
  switch (v) {
    case BACKEND_AUTO: return Backend::auto_select;
    case BACKEND_CPU: return Backend::cpu;
    case BACKEND_HIP: return Backend::hip;
  }
  return Backend::auto_select;
}

Vendor to_vendor(VendorValue v) {
  switch (v) {
    case VENDOR_AUTO: return Vendor::auto_select;
    case VENDOR_AMD: return Vendor::amd;
    case VENDOR_NVIDIA: return Vendor::nvidia;
  }
  return Vendor::auto_select;
}

Scaling to_scaling(ScaleMethodValue v) {
  switch (v) {
    case SCALE_NONE: return Scaling::none;
    case SCALE_BICUBIC: return Scaling::bicubic;
    case SCALE_BILINEAR: return Scaling::bilinear;
    case SCALE_LANCZOS: return Scaling::lanczos;
  }
  return Scaling::bicubic;
}

GstDebugLevel to_debug_level(LogLevelValue v) {
  switch (v) {
    case LOG_NONE: return GST_LEVEL_NONE;
    case LOG_ERROR: return GST_LEVEL_ERROR;
    case LOG_WARNING: return GST_LEVEL_WARNING;
    case LOG_INFO: return GST_LEVEL_INFO;
    case LOG_DEBUG: return GST_LEVEL_DEBUG;
  }
  return GST_LEVEL_NONE;
}

}  // namespace vmafx::gst
