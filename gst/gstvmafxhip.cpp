// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * SECTION:element-vmafxhip
 * @title: vmafxhip
 *
 * Scores a distorted video stream (dist_sink) against its reference (ref_sink) with Netflix's VMAF, and optionally
 * PSNR, SSIM and MS-SSIM, giving libvmaf's numbers. Frames are paired by timestamp; src outputs the distorted frames
 * unchanged, so the element can sit inline. Every scored frame gets one element message named "VMAF" (type=frame)
 * as soon as the features it needs exist; at the end of the stream a type=pooled message follows and the results
 * file (libvmaf's json, xml, csv or sub layout) is written. Properties, message fields and examples:
 * docs/element.md.
 *
 * |[
 * gst-launch-1.0 -m \
 *   filesrc location=ref.yuv ! rawvideoparse width=576 height=324 format=i420 ! v.ref_sink \
 *   filesrc location=dist.yuv ! rawvideoparse width=576 height=324 format=i420 ! v.dist_sink \
 *   vmafxhip name=v psnr=true results-filename=scores.json ! fakesink
 * ]|
 */
#include "gstvmafxhip.h"

#include <glib/gstdio.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gstvmafxhipcuda.h"  // CUDA hook: memory:CUDAMemory input
#include "gstvmafxhipdmabuf.h"
#include "gstvmafxhipgl.h"
#include "gstvmafxhipimport.h"
#include "gstvmafxhipmessages.h"
#include "gstvmafxhippad.h"
#include "vmafx/model.h"
#include "vmafx/output.h"
#include "vmafx/scorer.h"

GST_DEBUG_CATEGORY(gst_vmafxhip_debug);
#define GST_CAT_DEFAULT gst_vmafxhip_debug

namespace {

using vmafx::Errc;
using vmafx::Status;
namespace vg = vmafx::gst;

// ---------------------------------------------------------------------------------------------------------------
// Properties

enum {
  PROP_0,
  PROP_MODEL_FILENAME,
  PROP_DISABLE_CLIP,
  PROP_ENABLE_TRANSFORM,
  PROP_PHONE_MODEL,
  PROP_PSNR,
  PROP_SSIM,
  PROP_MS_SSIM,
  PROP_POOL_METHOD,
  PROP_THREADS,
  PROP_SUBSAMPLE,
  PROP_CONF_INTERVAL,
  PROP_FRAME_MESSAGE,
  PROP_RESULTS_FILENAME,
  PROP_RESULTS_FORMAT,
  PROP_LOG_LEVEL,
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_VENDOR,
  PROP_FRAMES_SCORED,
  PROP_ALLOW_COPY,
  PROP_FRAMES_COPIED,
  PROP_GL_STATS,
  PROP_CUDA_STATS,  // CUDA hook
};

// GEnum values of the enum properties; their nicks are what gst-launch and gst_util_set_object_arg take.
enum PoolMethodValue { POOL_MIN, POOL_MAX, POOL_MEAN, POOL_HARMONIC_MEAN };
enum ResultsFormatValue { RESULTS_NONE, RESULTS_XML, RESULTS_CSV, RESULTS_JSON, RESULTS_SUB };
enum BackendValue { BACKEND_AUTO, BACKEND_CPU, BACKEND_HIP };
enum VendorValue { VENDOR_AUTO, VENDOR_AMD, VENDOR_NVIDIA };
enum LogLevelValue { LOG_NONE, LOG_ERROR, LOG_WARNING, LOG_INFO, LOG_DEBUG };

constexpr const char* kDefaultModel = "vmaf_v0.6.1";

GType pool_method_get_type() {
  static gsize id = 0;
  static const GEnumValue values[] = {
      {POOL_MIN, "Minimum", "min"},
      {POOL_MAX, "Maximum", "max"},
      {POOL_MEAN, "Arithmetic mean", "mean"},
      {POOL_HARMONIC_MEAN, "Harmonic mean", "harmonic-mean"},
      // GStreamer's vmaf element spells it harmonic_mean: accepted so its pipelines run unchanged.
      {POOL_HARMONIC_MEAN, "Harmonic mean (vmaf's spelling)", "harmonic_mean"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&id)) g_once_init_leave(&id, g_enum_register_static("GstVmafxhipPoolMethod", values));
  return GType(id);
}

GType results_format_get_type() {
  static gsize id = 0;
  static const GEnumValue values[] = {
      {RESULTS_NONE, "No results file (json when results-filename is set)", "none"},
      {RESULTS_XML, "libvmaf XML", "xml"},
      {RESULTS_CSV, "libvmaf CSV", "csv"},
      {RESULTS_JSON, "libvmaf JSON", "json"},
      {RESULTS_SUB, "libvmaf subtitles (MicroDVD .sub)", "sub"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&id)) g_once_init_leave(&id, g_enum_register_static("GstVmafxhipResultsFormat", values));
  return GType(id);
}

GType backend_get_type() {
  static gsize id = 0;
  static const GEnumValue values[] = {
      {BACKEND_AUTO, "GPU when one is usable, else the CPU (says so once)", "auto"},
      {BACKEND_CPU, "CPU reference", "cpu"},
      {BACKEND_HIP, "GPU through HIP (error when no device is usable)", "hip"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&id)) g_once_init_leave(&id, g_enum_register_static("GstVmafxhipBackend", values));
  return GType(id);
}

GType vendor_get_type() {
  static gsize id = 0;
  static const GEnumValue values[] = {
      {VENDOR_AUTO, "Any", "auto"},
      {VENDOR_AMD, "AMD (ROCm)", "amd"},
      {VENDOR_NVIDIA, "NVIDIA (CUDA)", "nvidia"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&id)) g_once_init_leave(&id, g_enum_register_static("GstVmafxhipVendor", values));
  return GType(id);
}

GType log_level_get_type() {
  static gsize id = 0;
  static const GEnumValue values[] = {
      {LOG_NONE, "Leave the vmafxhip debug category as GST_DEBUG set it", "none"},
      {LOG_ERROR, "Error", "error"},
      {LOG_WARNING, "Warning", "warning"},
      {LOG_INFO, "Info", "info"},
      {LOG_DEBUG, "Debug", "debug"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&id)) g_once_init_leave(&id, g_enum_register_static("GstVmafxhipLogLevel", values));
  return GType(id);
}

struct Settings {
  std::string model = kDefaultModel;
  bool disable_clip = false;
  bool enable_transform = false;
  bool phone_model = false;
  bool psnr = false;
  bool ssim = false;
  bool ms_ssim = false;
  PoolMethodValue pool_method = POOL_MEAN;
  unsigned threads = 0;
  unsigned subsample = 1;
  bool conf_interval = false;
  bool frame_message = true;
  std::string results_filename;
  ResultsFormatValue results_format = RESULTS_NONE;
  LogLevelValue log_level = LOG_NONE;
  BackendValue backend = BACKEND_AUTO;
  int device_id = -1;
  VendorValue vendor = VENDOR_AUTO;
  bool allow_copy = true;
};

vmafx::PoolMethod to_pool_method(PoolMethodValue v) {
  switch (v) {
    case POOL_MIN: return vmafx::PoolMethod::min;
    case POOL_MAX: return vmafx::PoolMethod::max;
    case POOL_MEAN: return vmafx::PoolMethod::mean;
    case POOL_HARMONIC_MEAN: return vmafx::PoolMethod::harmonic_mean;
  }
  return vmafx::PoolMethod::mean;
}

vmafx::ResultsFormat to_results_format(ResultsFormatValue v) {
  switch (v) {
    case RESULTS_NONE: return vmafx::ResultsFormat::none;
    case RESULTS_XML: return vmafx::ResultsFormat::xml;
    case RESULTS_CSV: return vmafx::ResultsFormat::csv;
    case RESULTS_JSON: return vmafx::ResultsFormat::json;
    case RESULTS_SUB: return vmafx::ResultsFormat::sub;
  }
  return vmafx::ResultsFormat::none;
}

vmafx::Backend to_backend(BackendValue v) {
  switch (v) {
    case BACKEND_AUTO: return vmafx::Backend::auto_select;
    case BACKEND_CPU: return vmafx::Backend::cpu;
    case BACKEND_HIP: return vmafx::Backend::hip;
  }
  return vmafx::Backend::auto_select;
}

vmafx::Vendor to_vendor(VendorValue v) {
  switch (v) {
    case VENDOR_AUTO: return vmafx::Vendor::auto_select;
    case VENDOR_AMD: return vmafx::Vendor::amd;
    case VENDOR_NVIDIA: return vmafx::Vendor::nvidia;
  }
  return vmafx::Vendor::auto_select;
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

// ---------------------------------------------------------------------------------------------------------------
// Element state. `settings` is what the properties hold (guarded by settings_mu); everything else belongs to the
// streaming (aggregator source-pad task) thread, or to start / stop / flush, which run while that task does not.

struct Session {
  Settings active;  // settings snapshot taken at start
  bool failed = false;    // an error was posted: every later call returns GST_FLOW_ERROR, nothing is posted twice
  bool finished = false;  // engine flushed, pooled message posted, results written
  bool notice_posted = false;

  std::unique_ptr<vmafx::Scorer> scorer;
  std::unique_ptr<vg::DmaBufInput> dmabuf;  // memory:DMABuf import, made at the first dma-buf frame
  vg::GlInputs gl;  // memory:GLMemory input, per pad, made at its first GL frame (gstvmafxhipgl.h)
  vg::CudaInputs cuda;  // CUDA hook: memory:CUDAMemory input, made at the first CUDA frame (gstvmafxhipcuda.h)
  vmafx::VideoGeometry geometry;
  std::vector<std::string> fields;  // message field of each engine score column

  // The distorted buffer output last (identity only, never dereferenced): a buffer the aggregator hands out again
  // for a second output period is neither output nor scored twice.
  const GstBuffer* last_dist = nullptr;
  GstClockTime last_dist_pts = GST_CLOCK_TIME_NONE;
  uint64_t unpaired_dist = 0;  // distorted frames with no reference frame to pair with

  GstClockTime first_pts = GST_CLOCK_TIME_NONE;  // span of the scored frames, for the pooled message
  GstClockTime end_pts = GST_CLOCK_TIME_NONE;

  bool results_written = false;
  bool results_file_existed = false;
};

struct ElementState {
  std::mutex settings_mu;
  Settings settings;
  std::atomic<uint64_t> frames_scored{0};
  std::atomic<uint64_t> frames_copied{0};
  Session session;
};

}  // namespace

struct _GstVmafxhip {
  GstVideoAggregator parent;
  GstVmafxhipPad* ref_pad;
  GstVmafxhipPad* dist_pad;
  ElementState* state;
};

#define gst_vmafxhip_parent_class parent_class
G_DEFINE_TYPE(GstVmafxhip, gst_vmafxhip, GST_TYPE_VIDEO_AGGREGATOR)
GST_ELEMENT_REGISTER_DEFINE(vmafxhip, "vmafxhip", GST_RANK_NONE, GST_TYPE_VMAFXHIP)

namespace {

constexpr const char* kCaps =
    GST_VIDEO_CAPS_MAKE(GST_VMAFXHIP_SYSMEM_FORMATS) "; " GST_VMAFXHIP_DMABUF_CAPS GST_VMAFXHIP_GL_CAPS_APPEND;

// CUDA hook: the pad templates are made at class_init, with memory:CUDAMemory only where GStreamer's CUDA library
// opens (gstvmafxhipcuda.h).
void add_pad_template(GstElementClass* klass, const char* name, GstPadDirection dir, GType pad_type) {
  GstCaps* caps = gst_caps_from_string((std::string(kCaps) + vg::cuda_caps_append()).c_str());
  gst_element_class_add_pad_template(klass, gst_pad_template_new_with_gtype(name, dir, GST_PAD_ALWAYS, caps, pad_type));
  gst_caps_unref(caps);
}

Session& session(GstVmafxhip* self) { return self->state->session; }

bool pad_has_caps(GstVmafxhipPad* pad) {
  const GstVideoInfo& info = GST_VIDEO_AGGREGATOR_PAD(pad)->info;
  return info.finfo && GST_VIDEO_INFO_FORMAT(&info) != GST_VIDEO_FORMAT_UNKNOWN;
}

bool pad_is_eos(GstVmafxhipPad* pad) { return gst_aggregator_pad_is_eos(GST_AGGREGATOR_PAD(pad)); }

bool is_gap(GstBuffer* buf) {
  return buf && gst_buffer_get_size(buf) == 0 && GST_BUFFER_FLAG_IS_SET(buf, GST_BUFFER_FLAG_GAP);
}

// The pad's current frame, or null (none, or a gap).
GstBuffer* current_frame(GstVmafxhipPad* pad) {
  GstBuffer* buf = gst_video_aggregator_pad_get_current_buffer(GST_VIDEO_AGGREGATOR_PAD(pad));
  return is_gap(buf) ? nullptr : buf;
}

std::string caps_string(const GstVideoInfo& info) {
  GstCaps* caps = gst_video_info_to_caps(&info);
  gchar* s = gst_caps_to_string(caps);
  std::string out = s ? s : "";
  g_free(s);
  gst_caps_unref(caps);
  return out;
}

std::string geometry_string(const vmafx::VideoGeometry& g) {
  return std::to_string(g.width) + "x" + std::to_string(g.height) + " " + std::to_string(g.bit_depth) + "-bit " +
         vmafx::chroma_name(g.chroma);
}

bool geometry_for(const GstVideoInfo& info, vmafx::VideoGeometry* out) {
  vmafx::FormatInfo fmt;
  // RGBA only comes in GL memory (scored as its luma).
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT(&info);
  if (!vg::format_info_for(format, &fmt) && !vg::gl_format_info_for(format, &fmt)) return false;
  out->width = GST_VIDEO_INFO_WIDTH(&info);
  out->height = GST_VIDEO_INFO_HEIGHT(&info);
  out->bit_depth = fmt.bit_depth;
  out->chroma = fmt.chroma;
  return true;
}

std::string model_score_name(const vmafx::Scorer& scorer) {
  return scorer.model_score_names().empty() ? std::string() : scorer.model_score_names()[0];
}

bool same_geometry(const vmafx::VideoGeometry& a, const vmafx::VideoGeometry& b) {
  return a.width == b.width && a.height == b.height && a.bit_depth == b.bit_depth && a.chroma == b.chroma;
}

// Posts an error once per stream (later failures are consequences of the first); file, function and line are
// those of the caller.
void post_error_at(const char* file, const char* function, int line, GstVmafxhip* self, vg::ErrorCode code,
                   const std::string& text, const Status& status) {
  Session& s = session(self);
  if (s.failed) return;
  s.failed = true;
  vg::post_status(GST_ELEMENT(self), GST_MESSAGE_ERROR, code, text, status, file, function, line);
}
#define VMAFXHIP_POST_ERROR(...) post_error_at(__FILE__, GST_FUNCTION, __LINE__, __VA_ARGS__)

vg::FrameTiming timing_for(GstVmafxhip* self, GstClockTime pts, GstClockTime duration) {
  vg::FrameTiming t;
  t.timestamp = pts;
  t.duration = duration;
  if (GST_CLOCK_TIME_IS_VALID(pts)) {
    GstAggregatorPad* pad = GST_AGGREGATOR_PAD(self->dist_pad);
    GST_OBJECT_LOCK(pad);
    const GstSegment seg = pad->segment;
    GST_OBJECT_UNLOCK(pad);
    if (seg.format == GST_FORMAT_TIME) {
      t.stream_time = gst_segment_to_stream_time(&seg, GST_FORMAT_TIME, pts);
      t.running_time = gst_segment_to_running_time(&seg, GST_FORMAT_TIME, pts);
    }
  }
  return t;
}

// Runs on the engine thread that finished the frame (the scorer's on_frame).
void post_frame(GstVmafxhip* self, bool frame_message, const std::vector<std::string>& fields,
                const vmafx::FrameScore& fs) {
  self->state->frames_scored.fetch_add(1, std::memory_order_relaxed);
  GST_LOG_OBJECT(self, "frame %" G_GUINT64_FORMAT " scored", fs.index);
  if (!frame_message) return;
  const vg::FrameTiming t = timing_for(self, GstClockTime(fs.timestamp), GstClockTime(fs.user));
  GstStructure* st = vg::frame_structure(fs, fields, t);
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), st));
}

// Stops the scorer (dropping frames not posted yet, releasing every picture it holds).
void end_session_scoring(Session& s) {
  s.scorer.reset();
  if (s.dmabuf) (void)s.dmabuf->close();  // after the scorer let go: releases behind the GPU run
  s.dmabuf.reset();
  s.gl.reset();
  s.cuda.reset();  // CUDA hook: after the scorer let go: releases behind the GPU run
  s.fields.clear();
  s.last_dist = nullptr;
  s.last_dist_pts = GST_CLOCK_TIME_NONE;
  s.first_pts = s.end_pts = GST_CLOCK_TIME_NONE;
  s.unpaired_dist = 0;
  s.finished = false;
}

vmafx::ScorerConfig scorer_config(GstVmafxhip* self) {
  const Settings& a = session(self).active;
  vmafx::ScorerConfig cfg;
  cfg.models.clear();
  if (!a.model.empty()) {
    vmafx::ModelRequest mr;
    mr.model = a.model;
    mr.disable_clip = a.disable_clip;
    mr.enable_transform = a.enable_transform || a.phone_model;
    cfg.models.push_back(mr);
  }
  cfg.conf_interval = a.conf_interval;
  if (a.psnr) cfg.features.push_back({"psnr", {}});
  if (a.ssim) cfg.features.push_back({"float_ssim", {}});
  if (a.ms_ssim) cfg.features.push_back({"float_ms_ssim", {}});
  cfg.threads = a.threads ? a.threads : g_get_num_processors();
  cfg.subsample = a.subsample ? a.subsample : 1;
  cfg.backend = to_backend(a.backend);
  cfg.vendor = to_vendor(a.vendor);
  cfg.device_id = a.device_id;
  vg::cuda_scorer_device(GST_ELEMENT(self), &cfg.vendor, &cfg.device_id);  // CUDA hook: score where CUDA frames are
  cfg.on_notice = [self](vmafx::NoticeLevel, const std::string& notice, const std::string&) {
    Session& s = session(self);
    if (s.notice_posted) return;
    s.notice_posted = true;
    // gst-launch prints an info message's debug string only: the notice goes into both.
    vg::post_status(GST_ELEMENT(self), GST_MESSAGE_INFO, {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND}, notice,
                    Status(Errc::device_unavailable, notice), __FILE__, "scorer_config", __LINE__);
  };
  return cfg;
}

// A scorer for `g`: the existing one when it fits, a new one when nothing was submitted yet.
bool ensure_scorer(GstVmafxhip* self, const vmafx::VideoGeometry& g) {
  Session& s = session(self);
  if (s.scorer) {
    if (same_geometry(s.geometry, g)) return true;
    if (s.scorer->frames_submitted() > 0) {
      VMAFXHIP_POST_ERROR(self, {GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT}, "Video geometry changed mid-stream",
                 Status(Errc::unsupported, "scoring " + geometry_string(s.geometry) + ", new caps are " +
                                               geometry_string(g) + "; vmafxhip scores one geometry per stream"));
      return false;
    }
    end_session_scoring(s);
  }
  vmafx::ScorerConfig cfg = scorer_config(self);
  // Frame messages go out from the engine thread that finished each frame, in order.
  const bool frame_message = s.active.frame_message;
  auto fields = std::make_shared<std::vector<std::string>>();
  cfg.on_frame = [self, frame_message, fields](const vmafx::FrameScore& fs) {
    post_frame(self, frame_message, *fields, fs);
  };
  std::unique_ptr<vmafx::Scorer> scorer;
  vmafx::StreamGeometry sg;
  sg.ref = g;
  sg.dist = g;
  Status st = vmafx::Scorer::create(cfg, sg, &scorer);
  if (!st.is_ok()) {
    vg::ErrorCode code = vg::error_code_for(st.code());
    std::string text = "Could not set up scoring";
    if (st.code() == Errc::model_error) {
      code = vg::model_error_code(s.active.model);
      text = "Could not load VMAF model '" + s.active.model + "'";
    } else if (st.code() == Errc::device_unavailable) {
      text = "No usable GPU for backend=hip";
    }
    VMAFXHIP_POST_ERROR(self, code, text, st);
    return false;
  }
  GST_INFO_OBJECT(self, "scoring %s on %s, %u thread(s), scores: %zu", geometry_string(g).c_str(),
                  scorer->backend_description().c_str(), cfg.threads, scorer->score_names().size());
  s.geometry = g;
  s.fields = vg::message_field_names(scorer->score_names(), model_score_name(*scorer));
  *fields = s.fields;  // before the first submit: on_frame runs only after one
  s.scorer = std::move(scorer);
  return true;
}

// Posts the pooled message and writes the results file. Runs once per stream, after the last pair was submitted.
bool finish_scoring(GstVmafxhip* self) {
  Session& s = session(self);
  if (s.finished || s.failed) return !s.failed;
  s.finished = true;
  if (!s.scorer) {
    GST_ELEMENT_WARNING(self, STREAM, FAILED, ("No frame pairs were scored"),
                        ("one stream ended before any reference and distorted frame could be paired"));
    const vg::FrameTiming none;
    GstStructure* st = vg::pooled_structure(vmafx::Collector(), {}, "", to_pool_method(s.active.pool_method), none);
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), st));
    return true;
  }
  Status st = s.scorer->flush();  // every frame message is posted when it returns, before the pooled one
  if (st.is_ok() && s.scorer->frames_submitted() == 0)
    GST_ELEMENT_WARNING(self, STREAM, FAILED, ("No frame pairs were scored"),
                        ("one stream ended before any reference and distorted frame could be paired"));
  if (!st.is_ok()) {
    VMAFXHIP_POST_ERROR(self, vg::error_code_for(st.code()), "Scoring failed", st);
    return false;
  }
  const vmafx::Collector& c = s.scorer->collector();
  vg::FrameTiming t = timing_for(self, s.first_pts, GST_CLOCK_TIME_NONE);
  if (GST_CLOCK_TIME_IS_VALID(s.first_pts) && GST_CLOCK_TIME_IS_VALID(s.end_pts) && s.end_pts >= s.first_pts)
    t.duration = s.end_pts - s.first_pts;
  GstStructure* pooled =
      vg::pooled_structure(c, s.fields, model_score_name(*s.scorer), to_pool_method(s.active.pool_method), t);
  GST_INFO_OBJECT(self, "pooled: %" GST_PTR_FORMAT, pooled);
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), pooled));

  vmafx::ResultsFormat fmt = to_results_format(s.active.results_format);
  if (!s.active.results_filename.empty()) {
    if (fmt == vmafx::ResultsFormat::none) fmt = vmafx::ResultsFormat::json;
    vmafx::ResultsInfo info;
    info.width = s.geometry.width;
    info.height = s.geometry.height;
    info.fps = s.scorer->fps();
    info.frame_count = s.scorer->frames_submitted();
    Status w = vmafx::write_results(c, fmt, info, s.active.results_filename);
    if (!w.is_ok()) {
      VMAFXHIP_POST_ERROR(self, {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE},
                 "Could not write results file '" + s.active.results_filename + "'", w);
      return false;
    }
    s.results_written = true;
    GST_INFO_OBJECT(self, "wrote %s results to %s", vmafx::results_format_name(fmt),
                    s.active.results_filename.c_str());
  }
  return true;
}

// At the final EOS: the two streams' lengths when they differ, or distorted frames that found no reference frame.
void report_lengths(GstVmafxhip* self) {
  const guint64 n_ref = gst_vmafxhip_pad_get_buffers_received(self->ref_pad);
  const guint64 n_dist = gst_vmafxhip_pad_get_buffers_received(self->dist_pad);
  Session& s = session(self);
  const guint64 scored = s.scorer ? s.scorer->frames_submitted() : 0;
  gchar* text;
  if (n_ref != n_dist) {
    text = g_strdup_printf("Reference and distorted streams differ in length: reference had %" G_GUINT64_FORMAT
                           " frames, distorted had %" G_GUINT64_FORMAT,
                           n_ref, n_dist);
  } else if (s.unpaired_dist > 0) {
    text = g_strdup_printf("%" G_GUINT64_FORMAT " distorted frames had no reference frame at their time (are the "
                           "streams aligned?)",
                           s.unpaired_dist);
  } else {
    return;
  }
  gchar* debug = g_strdup_printf("%" G_GUINT64_FORMAT " frame pairs scored", scored);
  GstStructure* details = gst_structure_new("details", "reference-frames", G_TYPE_UINT64, n_ref, "distorted-frames",
                                            G_TYPE_UINT64, n_dist, "frames-paired", G_TYPE_UINT64, scored, nullptr);
  GST_WARNING_OBJECT(self, "%s (%s)", text, debug);
  gst_element_message_full_with_details(GST_ELEMENT(self), GST_MESSAGE_WARNING, GST_STREAM_ERROR,
                                        GST_STREAM_ERROR_FAILED, text, debug, __FILE__, GST_FUNCTION, __LINE__,
                                        details);
}

// No more pairs can form: a stream that ended has no frame left (the other's remaining frames match nothing).
bool pairing_over(GstVmafxhip* self) {
  auto over = [](GstVmafxhipPad* pad) {
    return pad_is_eos(pad) && !gst_video_aggregator_pad_has_current_buffer(GST_VIDEO_AGGREGATOR_PAD(pad));
  };
  return over(self->ref_pad) || over(self->dist_pad);
}

// ---------------------------------------------------------------------------------------------------------------
// GstAggregator / GstVideoAggregator virtual methods

gboolean vmafxhip_start(GstAggregator* agg) {
  auto* self = GST_VMAFXHIP(agg);
  Session& s = session(self);
  end_session_scoring(s);
  {
    std::lock_guard<std::mutex> lk(self->state->settings_mu);
    s.active = self->state->settings;
  }
  s.failed = false;
  s.notice_posted = false;
  s.results_written = false;
  self->state->frames_scored.store(0);
  self->state->frames_copied.store(0);
  gst_vmafxhip_pad_reset_buffers_received(self->ref_pad);
  gst_vmafxhip_pad_reset_buffers_received(self->dist_pad);
  if (s.active.log_level != LOG_NONE)
    gst_debug_category_set_threshold(gst_vmafxhip_debug, to_debug_level(s.active.log_level));

  // Everything that can be checked before the first frame fails here, at the state change.
  const Settings& a = s.active;
  if (!a.model.empty()) {
    vmafx::Model model;
    Status st = vmafx::Model::load(a.model, &model);
    if (!st.is_ok()) {
      VMAFXHIP_POST_ERROR(self, vg::model_error_code(a.model), "Could not load VMAF model '" + a.model + "'", st);
      return FALSE;
    }
    if (a.conf_interval && !model.is_collection()) {
      VMAFXHIP_POST_ERROR(self, {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS},
                 "conf-interval needs a bootstrap model such as vmaf_b_v0.6.3",
                 Status(Errc::invalid_argument, "model '" + a.model + "' is a single model, not a collection"));
      return FALSE;
    }
  } else if (a.conf_interval) {
    VMAFXHIP_POST_ERROR(self, {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS},
               "conf-interval needs a bootstrap model such as vmaf_b_v0.6.3",
               Status(Errc::invalid_argument, "model-filename is empty"));
    return FALSE;
  }
  if (a.results_filename.empty() && a.results_format != RESULTS_NONE) {
    VMAFXHIP_POST_ERROR(self, {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS},
               "results-format is set but results-filename is not",
               Status(Errc::invalid_argument, "set results-filename to the file to write"));
    return FALSE;
  }
  if (!a.results_filename.empty()) {
    // Open for append: creates the file when missing and proves it writable without truncating an existing one.
    // It is written at the end of the stream; stop() removes it when it was created here but never written.
    s.results_file_existed = g_file_test(a.results_filename.c_str(), G_FILE_TEST_EXISTS);
    FILE* f = g_fopen(a.results_filename.c_str(), "a");
    if (!f) {
      const int err = errno;
      VMAFXHIP_POST_ERROR(self, {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE},
                 "Could not open results file '" + a.results_filename + "' for writing",
                 Status(Errc::io_error, a.results_filename + ": " + g_strerror(err)));
      return FALSE;
    }
    fclose(f);
  }
  return GST_AGGREGATOR_CLASS(parent_class)->start(agg);
}

gboolean vmafxhip_stop(GstAggregator* agg) {
  auto* self = GST_VMAFXHIP(agg);
  Session& s = session(self);
  end_session_scoring(s);
  if (!s.active.results_filename.empty() && !s.results_written && !s.results_file_existed)
    g_unlink(s.active.results_filename.c_str());
  s.results_file_existed = true;  // removed at most once
  return GST_AGGREGATOR_CLASS(parent_class)->stop(agg);
}

GstFlowReturn vmafxhip_flush(GstAggregator* agg) {
  auto* self = GST_VMAFXHIP(agg);
  GST_DEBUG_OBJECT(self, "flushing: scoring restarts with the new segment");
  end_session_scoring(session(self));
  self->state->frames_scored.store(0);
  self->state->frames_copied.store(0);
  return GST_AGGREGATOR_CLASS(parent_class)->flush(agg);
}

// Output caps: the distorted stream's caps, once both sides are known and agree.
GstFlowReturn vmafxhip_update_src_caps(GstAggregator* agg, GstCaps* downstream, GstCaps** ret) {
  auto* self = GST_VMAFXHIP(agg);
  Session& s = session(self);
  if (s.failed) return GST_FLOW_ERROR;
  if (!pad_has_caps(self->ref_pad) || !pad_has_caps(self->dist_pad)) return GST_AGGREGATOR_FLOW_NEED_DATA;
  const GstVideoInfo& ref = GST_VIDEO_AGGREGATOR_PAD(self->ref_pad)->info;
  const GstVideoInfo& dist = GST_VIDEO_AGGREGATOR_PAD(self->dist_pad)->info;
  vmafx::VideoGeometry gr, gd;
  if (!geometry_for(ref, &gr) || !geometry_for(dist, &gd)) {
    VMAFXHIP_POST_ERROR(self, {GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION}, "Unsupported video format",
               Status(Errc::unsupported, "reference caps " + caps_string(ref) + ", distorted caps " +
                                             caps_string(dist)));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (!same_geometry(gr, gd)) {
    VMAFXHIP_POST_ERROR(self, {GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION},
               "Reference (" + geometry_string(gr) + ") and distorted (" + geometry_string(gd) +
                   ") video must agree in width, height, bit depth and chroma subsampling",
               Status(Errc::unsupported, "reference caps " + caps_string(ref) + ", distorted caps " +
                                             caps_string(dist)));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  GstVideoInfo out = dist;
  if (GST_VIDEO_INFO_FPS_N(&out) <= 0 || GST_VIDEO_INFO_FPS_D(&out) <= 0) {
    // The aggregator pairs frames on the output frame grid; a variable-rate distorted stream takes the reference's.
    if (GST_VIDEO_INFO_FPS_N(&ref) <= 0 || GST_VIDEO_INFO_FPS_D(&ref) <= 0) {
      VMAFXHIP_POST_ERROR(self, {GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION}, "Both streams have no frame rate",
                 Status(Errc::unsupported, "reference caps " + caps_string(ref) + ", distorted caps " +
                                               caps_string(dist) +
                                               "; frames are paired by timestamp on a fixed frame grid (videorate "
                                               "can give a stream a frame rate)"));
      return GST_FLOW_NOT_NEGOTIATED;
    }
    GST_VIDEO_INFO_FPS_N(&out) = GST_VIDEO_INFO_FPS_N(&ref);
    GST_VIDEO_INFO_FPS_D(&out) = GST_VIDEO_INFO_FPS_D(&ref);
  }
  GstCaps* dist_caps = gst_pad_get_current_caps(GST_PAD(self->dist_pad));
  GstCaps* caps = vg::output_caps_with_features(dist_caps, out);  // keeps memory:DMABuf
  vg::gl_complete_output_caps(caps);                               // memory:GLMemory: texture-target
  if (dist_caps) gst_caps_unref(dist_caps);
  if (!gst_caps_can_intersect(caps, downstream)) {
    gchar* d = gst_caps_to_string(downstream);
    VMAFXHIP_POST_ERROR(self, {GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION}, "Downstream does not accept the distorted video",
               Status(Errc::unsupported, "output caps " + caps_string(out) + ", downstream accepts " + d));
    g_free(d);
    gst_caps_unref(caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (!ensure_scorer(self, gd)) {
    gst_caps_unref(caps);
    return GST_FLOW_ERROR;
  }
  *ret = caps;
  return GST_FLOW_OK;
}

// The output buffer is the distorted frame itself: a new GstBuffer sharing its memory (the aggregator restamps it).
GstFlowReturn vmafxhip_create_output_buffer(GstVideoAggregator* vagg, GstBuffer** outbuf) {
  auto* self = GST_VMAFXHIP(vagg);
  Session& s = session(self);
  *outbuf = nullptr;
  if (s.failed) return GST_FLOW_ERROR;
  GstBuffer* dist = current_frame(self->dist_pad);
  if (!dist) return GST_FLOW_OK;
  if (dist == s.last_dist && GST_BUFFER_PTS(dist) == s.last_dist_pts) return GST_FLOW_OK;
  s.last_dist = dist;
  s.last_dist_pts = GST_BUFFER_PTS(dist);
  *outbuf = gst_buffer_copy(dist);
  return *outbuf ? GST_FLOW_OK : GST_FLOW_ERROR;
}

// GL frames of pad `pad` (0 ref, 1 dist) through the session's GL inputs (gstvmafxhipgl.h).
Status import_gl(GstVmafxhip* self, unsigned pad, GstBuffer* buf, const GstVideoInfo& info, vg::ImportedPicture* out) {
  Session& s = session(self);
  vg::GlInput::Config c;
  c.requested = to_backend(s.active.backend);
  c.scorer = s.scorer->backend();
  c.vendor = to_vendor(s.active.vendor);
  c.device_id = s.active.device_id;
  c.allow_copy = s.active.allow_copy;
  if (c.scorer == vmafx::Backend::hip && (s.active.ssim || s.active.ms_ssim))
    c.host_reason = "ssim and ms-ssim run on the CPU, which reads host memory";
  c.on_notice = [self](const std::string& text, bool warning) {
    vg::post_status(GST_ELEMENT(self), warning ? GST_MESSAGE_WARNING : GST_MESSAGE_INFO,
                    {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS}, text, Status(Errc::unsupported, text),
                    __FILE__, "import_gl", __LINE__);
  };
  const uint64_t copied = s.gl.frames_copied();
  Status st = s.gl.import(pad, c, buf, info, out);
  self->state->frames_copied.fetch_add(s.gl.frames_copied() - copied, std::memory_order_relaxed);
  return st;
}

// CUDA hook: CUDA frames of either pad through the session's CUDA input (gstvmafxhipcuda.h).
Status import_cuda(GstVmafxhip* self, GstBuffer* buf, const GstVideoInfo& info, vg::ImportedPicture* out) {
  Session& s = session(self);
  vg::CudaInput::Config c;
  c.scorer = s.scorer->backend();
  c.vendor = to_vendor(s.active.vendor);
  c.device_id = s.active.device_id;
  vg::cuda_scorer_device(GST_ELEMENT(self), &c.vendor, &c.device_id);
  c.allow_copy = s.active.allow_copy;
  if (c.scorer == vmafx::Backend::hip && (s.active.ssim || s.active.ms_ssim))
    c.host_reason = "ssim and ms-ssim run on the CPU, which reads host memory";
  c.on_notice = [self](const std::string& text, bool warning) {
    vg::post_status(GST_ELEMENT(self), warning ? GST_MESSAGE_WARNING : GST_MESSAGE_INFO,
                    {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS}, text, Status(Errc::unsupported, text),
                    __FILE__, "import_cuda", __LINE__);
  };
  const uint64_t copied = s.cuda.frames_copied();
  Status st = s.cuda.import(c, buf, info, out);
  self->state->frames_copied.fetch_add(s.cuda.frames_copied() - copied, std::memory_order_relaxed);
  return st;
}

// The element's CUDA settings (context sharing), read under the settings lock.
vg::CudaSettings cuda_settings(GstVmafxhip* self) {  // CUDA hook
  std::lock_guard<std::mutex> lk(self->state->settings_mu);
  const Settings& s = self->state->settings;
  return {to_backend(s.backend), to_vendor(s.vendor), s.device_id};
}

// dma-buf frames go through the session's importer (gstvmafxhipdmabuf.h), GL frames through the session's GL inputs,
// other memory through import_picture.
Status import_any(GstVmafxhip* self, unsigned pad, GstCaps* caps, GstBuffer* buf, const GstVideoInfo& info,
                  vg::ImportedPicture* out) {
  if (vg::is_cuda_caps(caps)) return import_cuda(self, buf, info, out);  // CUDA hook
  const vg::MemoryPath path = vg::memory_path_for_caps(caps);
  if (path == vg::MemoryPath::gl) return import_gl(self, pad, buf, info, out);
  if (path != vg::MemoryPath::dmabuf) return vg::import_picture(path, buf, info, out);
  Session& s = session(self);
  if (!s.dmabuf) {
    vg::DmaBufInput::Config c;
    c.backend = s.scorer->backend();
    c.vendor = to_vendor(s.active.vendor);
    c.device_id = s.active.device_id;
    c.allow_copy = s.active.allow_copy;
    if (c.backend == vmafx::Backend::hip && (s.active.ssim || s.active.ms_ssim))
      c.host_reason = "ssim and ms-ssim run on the CPU, which reads host memory";
    c.on_notice = [self](const std::string& text) {
      vg::post_status(GST_ELEMENT(self), GST_MESSAGE_WARNING, {GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS},
                      text, Status(Errc::unsupported, text), __FILE__, "import_any", __LINE__);
    };
    VMAFX_TRY(vg::DmaBufInput::create(c, &s.dmabuf));
    GST_INFO_OBJECT(self, "dma-buf input: %s", s.dmabuf->description().c_str());
  }
  const uint64_t copied = s.dmabuf->frames_copied();
  Status st = s.dmabuf->import(buf, info, caps, out);
  self->state->frames_copied.fetch_add(s.dmabuf->frames_copied() - copied, std::memory_order_relaxed);
  return st;
}

GstFlowReturn vmafxhip_aggregate_frames(GstVideoAggregator* vagg, GstBuffer*) {
  auto* self = GST_VMAFXHIP(vagg);
  Session& s = session(self);
  if (s.failed) return GST_FLOW_ERROR;
  if (s.finished) return GST_FLOW_OK;  // scoring is over; distorted frames still pass through
  GstBuffer* dist = current_frame(self->dist_pad);
  GstBuffer* ref = current_frame(self->ref_pad);
  if (!dist) return GST_FLOW_OK;
  if (!ref) {
    s.unpaired_dist++;
    GST_DEBUG_OBJECT(self, "no reference frame for distorted frame %" GST_TIME_FORMAT ", not scored",
                     GST_TIME_ARGS(GST_BUFFER_PTS(dist)));
    return GST_FLOW_OK;
  }
  GstVideoAggregatorPad* rpad = GST_VIDEO_AGGREGATOR_PAD(self->ref_pad);
  GstVideoAggregatorPad* dpad = GST_VIDEO_AGGREGATOR_PAD(self->dist_pad);
  vmafx::VideoGeometry g;
  if (!geometry_for(dpad->info, &g)) {
    VMAFXHIP_POST_ERROR(self, {GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT}, "Unsupported distorted format",
               Status(Errc::unsupported, caps_string(dpad->info)));
    return GST_FLOW_ERROR;
  }
  if (!ensure_scorer(self, g)) return GST_FLOW_ERROR;

  auto pair = std::make_shared<std::pair<vg::ImportedPicture, vg::ImportedPicture>>();
  GstCaps* rcaps = gst_pad_get_current_caps(GST_PAD(rpad));
  GstCaps* dcaps = gst_pad_get_current_caps(GST_PAD(dpad));
  Status st = import_any(self, 0, rcaps, ref, rpad->info, &pair->first);
  const bool ref_ok = st.is_ok();
  if (ref_ok) st = import_any(self, 1, dcaps, dist, dpad->info, &pair->second);
  if (rcaps) gst_caps_unref(rcaps);
  if (dcaps) gst_caps_unref(dcaps);
  if (!st.is_ok()) {
    const std::string which = ref_ok ? "distorted" : "reference";
    VMAFXHIP_POST_ERROR(self, vg::error_code_for(st.code()), "Invalid " + which + " buffer", st);
    return GST_FLOW_ERROR;
  }

  const GstClockTime pts = GST_BUFFER_PTS(dist);
  const GstClockTime duration = GST_BUFFER_DURATION(dist);
  vmafx::FramePair fp;
  fp.ref = pair->first.view();
  fp.dist = pair->second.view();
  fp.timestamp = int64_t(pts);
  fp.user = uint64_t(duration);
  fp.release = [pair] {
    pair->first.release();
    pair->second.release();
  };
  st = s.scorer->submit(std::move(fp));
  pair.reset();  // the scorer's release callback owns the pictures now
  if (!st.is_ok()) {
    VMAFXHIP_POST_ERROR(self, vg::error_code_for(st.code()), "Scoring failed", st);
    return GST_FLOW_ERROR;
  }
  if (GST_CLOCK_TIME_IS_VALID(pts)) {
    if (!GST_CLOCK_TIME_IS_VALID(s.first_pts)) s.first_pts = pts;
    s.end_pts = pts + (GST_CLOCK_TIME_IS_VALID(duration) ? duration : 0);
  }
  return GST_FLOW_OK;
}

GstFlowReturn vmafxhip_aggregate(GstAggregator* agg, gboolean timeout) {
  auto* self = GST_VMAFXHIP(agg);
  Session& s = session(self);
  if (s.failed) return GST_FLOW_ERROR;
  // A stream that ended before its caps: nothing can ever pair (the base class would wait for caps forever).
  const bool negotiated = GST_VIDEO_INFO_FORMAT(&GST_VIDEO_AGGREGATOR(agg)->info) != GST_VIDEO_FORMAT_UNKNOWN;
  if (!negotiated && ((pad_is_eos(self->ref_pad) && !pad_has_caps(self->ref_pad)) ||
                      (pad_is_eos(self->dist_pad) && !pad_has_caps(self->dist_pad)))) {
    if (!finish_scoring(self)) return GST_FLOW_ERROR;
    report_lengths(self);
    return GST_FLOW_EOS;
  }
  GstFlowReturn ret = GST_AGGREGATOR_CLASS(parent_class)->aggregate(agg, timeout);
  if (s.failed) return GST_FLOW_ERROR;
  if (ret == GST_FLOW_EOS) {
    if (!finish_scoring(self)) return GST_FLOW_ERROR;
    report_lengths(self);
    return GST_FLOW_EOS;
  }
  if (ret == GST_FLOW_OK && !s.finished && pairing_over(self)) {
    // One stream is over: score what was paired now; the other stream drains (and passes through) until its EOS.
    if (!finish_scoring(self)) return GST_FLOW_ERROR;
  }
  return ret;
}

GstCaps* allowed_caps(GstVmafxhip* self, GstPad* pad, GstCaps* filter) {
  GstCaps* templ = gst_pad_get_pad_template_caps(pad);
  GstCaps* caps;
  if (pad == GST_PAD(self->dist_pad)) {
    // The distorted frames go out unchanged: what downstream takes (at any frame rate) is what dist_sink takes.
    GstPad* src = GST_AGGREGATOR_SRC_PAD(self);
    GstCaps* src_templ = gst_pad_get_pad_template_caps(src);
    GstCaps* peer = gst_pad_peer_query_caps(src, src_templ);
    gst_caps_unref(src_templ);
    peer = gst_caps_make_writable(peer);
    for (guint i = 0; i < gst_caps_get_size(peer); i++)
      gst_structure_set(gst_caps_get_structure(peer, i), "framerate", GST_TYPE_FRACTION_RANGE, 0, 1, G_MAXINT, 1,
                        nullptr);
    caps = gst_caps_intersect_full(templ, peer, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(peer);
    gst_caps_unref(templ);
  } else {
    // The reference is read and dropped: any format of the template (agreement with dist is checked on
    // negotiation, with an error naming both caps).
    caps = templ;
  }
  if (filter) {
    GstCaps* t = gst_caps_intersect_full(filter, caps, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref(caps);
    caps = t;
  }
  return caps;
}

gboolean vmafxhip_sink_query(GstAggregator* agg, GstAggregatorPad* pad, GstQuery* query) {
  auto* self = GST_VMAFXHIP(agg);
  if (vg::gl_pad_query(GST_ELEMENT(agg), GST_PAD(pad), query)) return TRUE;  // GL context; GL sync meta: chains on
  if (vg::cuda_pad_query(GST_ELEMENT(agg), GST_PAD(pad), query, cuda_settings(self))) return TRUE;  // CUDA hook
  switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CAPS: {
      GstCaps* filter;
      gst_query_parse_caps(query, &filter);
      GstCaps* caps = allowed_caps(self, GST_PAD(pad), filter);
      gst_query_set_caps_result(query, caps);
      gst_caps_unref(caps);
      return TRUE;
    }
    case GST_QUERY_ACCEPT_CAPS: {
      GstCaps* caps;
      gst_query_parse_accept_caps(query, &caps);
      GstCaps* allowed = allowed_caps(self, GST_PAD(pad), nullptr);
      gst_query_set_accept_caps_result(query, gst_caps_is_fixed(caps) && gst_caps_can_intersect(caps, allowed));
      gst_caps_unref(allowed);
      return TRUE;
    }
    default: break;
  }
  return GST_AGGREGATOR_CLASS(parent_class)->sink_query(agg, pad, query);
}

// GL context negotiation (gstvmafxhipgl.h): CONTEXT queries on the src pad, GL caps arriving, set_context.
gboolean vmafxhip_src_query(GstAggregator* agg, GstQuery* query) {
  if (vg::gl_pad_query(GST_ELEMENT(agg), GST_AGGREGATOR_SRC_PAD(agg), query)) return TRUE;
  if (vg::cuda_pad_query(GST_ELEMENT(agg), GST_AGGREGATOR_SRC_PAD(agg), query, cuda_settings(GST_VMAFXHIP(agg))))
    return TRUE;  // CUDA hook
  return GST_AGGREGATOR_CLASS(parent_class)->src_query(agg, query);
}

gboolean vmafxhip_sink_event(GstAggregator* agg, GstAggregatorPad* pad, GstEvent* event) {
  vg::gl_sink_event(GST_ELEMENT(agg), event);
  vg::cuda_sink_event(GST_ELEMENT(agg), GST_PAD(pad), event, cuda_settings(GST_VMAFXHIP(agg)));  // CUDA hook
  return GST_AGGREGATOR_CLASS(parent_class)->sink_event(agg, pad, event);
}

void vmafxhip_set_context(GstElement* element, GstContext* context) {
  vg::gl_set_context(element, context);
  vg::cuda_set_context(element, context, cuda_settings(GST_VMAFXHIP(element)));  // CUDA hook
  GST_ELEMENT_CLASS(parent_class)->set_context(element, context);
}

gboolean vmafxhip_src_event(GstAggregator* agg, GstEvent* event) {
  if (GST_EVENT_TYPE(event) == GST_EVENT_QOS) {
    // An analyser scores every frame: QoS would make the base class drop late frames unscored.
    gst_event_unref(event);
    return TRUE;
  }
  return GST_AGGREGATOR_CLASS(parent_class)->src_event(agg, event);
}

// No output buffer pool: the output buffers are the distorted buffers.
gboolean vmafxhip_decide_allocation(GstAggregator*, GstQuery*) { return TRUE; }

// ---------------------------------------------------------------------------------------------------------------
// GObject

void vmafxhip_set_property(GObject* object, guint prop_id, const GValue* value, GParamSpec* pspec) {
  auto* self = GST_VMAFXHIP(object);
  std::lock_guard<std::mutex> lk(self->state->settings_mu);
  Settings& s = self->state->settings;
  switch (prop_id) {
    case PROP_MODEL_FILENAME: {
      const gchar* v = g_value_get_string(value);
      s.model = v ? v : "";
      break;
    }
    case PROP_DISABLE_CLIP: s.disable_clip = g_value_get_boolean(value); break;
    case PROP_ENABLE_TRANSFORM: s.enable_transform = g_value_get_boolean(value); break;
    case PROP_PHONE_MODEL: s.phone_model = g_value_get_boolean(value); break;
    case PROP_PSNR: s.psnr = g_value_get_boolean(value); break;
    case PROP_SSIM: s.ssim = g_value_get_boolean(value); break;
    case PROP_MS_SSIM: s.ms_ssim = g_value_get_boolean(value); break;
    case PROP_POOL_METHOD: s.pool_method = PoolMethodValue(g_value_get_enum(value)); break;
    case PROP_THREADS: s.threads = g_value_get_uint(value); break;
    case PROP_SUBSAMPLE: s.subsample = g_value_get_uint(value); break;
    case PROP_CONF_INTERVAL: s.conf_interval = g_value_get_boolean(value); break;
    case PROP_FRAME_MESSAGE: s.frame_message = g_value_get_boolean(value); break;
    case PROP_RESULTS_FILENAME: {
      const gchar* v = g_value_get_string(value);
      s.results_filename = v ? v : "";
      break;
    }
    case PROP_RESULTS_FORMAT: s.results_format = ResultsFormatValue(g_value_get_enum(value)); break;
    case PROP_LOG_LEVEL: s.log_level = LogLevelValue(g_value_get_enum(value)); break;
    case PROP_BACKEND: s.backend = BackendValue(g_value_get_enum(value)); break;
    case PROP_DEVICE_ID: s.device_id = g_value_get_int(value); break;
    case PROP_VENDOR: s.vendor = VendorValue(g_value_get_enum(value)); break;
    case PROP_ALLOW_COPY: s.allow_copy = g_value_get_boolean(value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec); break;
  }
}

void vmafxhip_get_property(GObject* object, guint prop_id, GValue* value, GParamSpec* pspec) {
  auto* self = GST_VMAFXHIP(object);
  if (prop_id == PROP_CUDA_STATS) {  // CUDA hook
    g_value_take_boxed(value, self->state->session.cuda.stats_structure());
    return;
  }
  if (prop_id == PROP_GL_STATS) {
    g_value_take_boxed(value, self->state->session.gl.stats_structure());
    return;
  }
  if (prop_id == PROP_FRAMES_COPIED) {
    g_value_set_uint64(value, self->state->frames_copied.load(std::memory_order_relaxed));
    return;
  }
  if (prop_id == PROP_FRAMES_SCORED) {
    g_value_set_uint64(value, self->state->frames_scored.load(std::memory_order_relaxed));
    return;
  }
  std::lock_guard<std::mutex> lk(self->state->settings_mu);
  const Settings& s = self->state->settings;
  switch (prop_id) {
    case PROP_MODEL_FILENAME: g_value_set_string(value, s.model.c_str()); break;
    case PROP_DISABLE_CLIP: g_value_set_boolean(value, s.disable_clip); break;
    case PROP_ENABLE_TRANSFORM: g_value_set_boolean(value, s.enable_transform); break;
    case PROP_PHONE_MODEL: g_value_set_boolean(value, s.phone_model); break;
    case PROP_PSNR: g_value_set_boolean(value, s.psnr); break;
    case PROP_SSIM: g_value_set_boolean(value, s.ssim); break;
    case PROP_MS_SSIM: g_value_set_boolean(value, s.ms_ssim); break;
    case PROP_POOL_METHOD: g_value_set_enum(value, s.pool_method); break;
    case PROP_THREADS: g_value_set_uint(value, s.threads); break;
    case PROP_SUBSAMPLE: g_value_set_uint(value, s.subsample); break;
    case PROP_CONF_INTERVAL: g_value_set_boolean(value, s.conf_interval); break;
    case PROP_FRAME_MESSAGE: g_value_set_boolean(value, s.frame_message); break;
    case PROP_RESULTS_FILENAME:
      g_value_set_string(value, s.results_filename.empty() ? nullptr : s.results_filename.c_str());
      break;
    case PROP_RESULTS_FORMAT: g_value_set_enum(value, s.results_format); break;
    case PROP_LOG_LEVEL: g_value_set_enum(value, s.log_level); break;
    case PROP_BACKEND: g_value_set_enum(value, s.backend); break;
    case PROP_DEVICE_ID: g_value_set_int(value, s.device_id); break;
    case PROP_VENDOR: g_value_set_enum(value, s.vendor); break;
    case PROP_ALLOW_COPY: g_value_set_boolean(value, s.allow_copy); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec); break;
  }
}

void vmafxhip_finalize(GObject* object) {
  auto* self = GST_VMAFXHIP(object);
  end_session_scoring(session(self));
  delete self->state;
  self->state = nullptr;
  G_OBJECT_CLASS(parent_class)->finalize(object);
}

constexpr GParamFlags kRw = GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

void install_bool(GObjectClass* klass, guint id, const char* name, const char* blurb, bool def) {
  g_object_class_install_property(klass, id, g_param_spec_boolean(name, name, blurb, def, kRw));
}

}  // namespace

static void gst_vmafxhip_class_init(GstVmafxhipClass* klass) {
  auto* gobject_class = G_OBJECT_CLASS(klass);
  auto* element_class = GST_ELEMENT_CLASS(klass);
  auto* agg_class = GST_AGGREGATOR_CLASS(klass);
  auto* vagg_class = GST_VIDEO_AGGREGATOR_CLASS(klass);

  GST_DEBUG_CATEGORY_INIT(gst_vmafxhip_debug, "vmafxhip", 0, "VMAF scoring element");

  gobject_class->set_property = vmafxhip_set_property;
  gobject_class->get_property = vmafxhip_get_property;
  gobject_class->finalize = vmafxhip_finalize;

  g_object_class_install_property(
      gobject_class, PROP_MODEL_FILENAME,
      g_param_spec_string("model-filename", "Model",
                          "Built-in model version (vmaf_v0.6.1, vmaf_v0.6.1neg, vmaf_4k_v0.6.1, vmaf_4k_v0.6.1neg, "
                          "vmaf_b_v0.6.3) or path to a libvmaf JSON model file; empty: features only",
                          kDefaultModel, kRw));
  install_bool(gobject_class, PROP_DISABLE_CLIP, "disable-clip", "Do not clip VMAF scores to the model's range",
               false);
  install_bool(gobject_class, PROP_ENABLE_TRANSFORM, "enable-transform",
               "Apply the model's score transform (the phone model)", false);
  install_bool(gobject_class, PROP_PHONE_MODEL, "phone-model", "Use the VMAF phone model (same as enable-transform)",
               false);
  install_bool(gobject_class, PROP_PSNR, "psnr", "Also compute PSNR (psnr-y, psnr-cb, psnr-cr)", false);
  install_bool(gobject_class, PROP_SSIM, "ssim", "Also compute SSIM (libvmaf float_ssim)", false);
  install_bool(gobject_class, PROP_MS_SSIM, "ms-ssim", "Also compute MS-SSIM (libvmaf float_ms_ssim)", false);
  g_object_class_install_property(
      gobject_class, PROP_POOL_METHOD,
      g_param_spec_enum("pool-method", "Pool method", "Pooling of the per-frame scores into the pooled score",
                        pool_method_get_type(), POOL_MEAN, kRw));
  g_object_class_install_property(
      gobject_class, PROP_THREADS,
      g_param_spec_uint("threads", "Threads", "CPU worker threads (0 = one per processor)", 0, G_MAXINT, 0, kRw));
  g_object_class_install_property(
      gobject_class, PROP_SUBSAMPLE,
      g_param_spec_uint("subsample", "Subsample",
                        "Score one of every N frames (motion still uses every frame), as libvmaf --subsample", 1, 128,
                        1, kRw));
  install_bool(gobject_class, PROP_CONF_INTERVAL, "conf-interval",
               "Report the 95 % confidence interval and standard deviation (needs a bootstrap model such as "
               "vmaf_b_v0.6.3)",
               false);
  install_bool(gobject_class, PROP_FRAME_MESSAGE, "frame-message", "Post a VMAF element message for every scored frame",
               true);
  g_object_class_install_property(
      gobject_class, PROP_RESULTS_FILENAME,
      g_param_spec_string("results-filename", "Results file",
                          "File written at end of stream in results-format (json when results-format is none)",
                          nullptr, kRw));
  g_object_class_install_property(
      gobject_class, PROP_RESULTS_FORMAT,
      g_param_spec_enum("results-format", "Results format", "Layout of the results file (libvmaf's)",
                        results_format_get_type(), RESULTS_NONE, kRw));
  g_object_class_install_property(
      gobject_class, PROP_LOG_LEVEL,
      g_param_spec_enum("log-level", "Log level",
                        "Threshold of the vmafxhip debug category (none: as GST_DEBUG sets it)", log_level_get_type(),
                        LOG_NONE, kRw));
  g_object_class_install_property(
      gobject_class, PROP_BACKEND,
      g_param_spec_enum("backend", "Backend", "Where the features are computed", backend_get_type(), BACKEND_AUTO,
                        kRw));
  g_object_class_install_property(
      gobject_class, PROP_DEVICE_ID,
      g_param_spec_int("device-id", "Device", "GPU index for the HIP backend (-1 = first usable)", -1, G_MAXINT, -1,
                       kRw));
  g_object_class_install_property(
      gobject_class, PROP_VENDOR,
      g_param_spec_enum("vendor", "Vendor", "GPU vendor runtime for the HIP backend", vendor_get_type(), VENDOR_AUTO,
                        kRw));
  g_object_class_install_property(
      gobject_class, PROP_FRAMES_SCORED,
      g_param_spec_uint64("frames-scored", "Frames scored",
                          "Frames scored since the start or the last flushing seek", 0, G_MAXUINT64,
                          0, GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  install_bool(gobject_class, PROP_ALLOW_COPY, "allow-copy",
               "Copy frames the GPU cannot import (a dma-buf the runtime refuses: mapped on the host and uploaded; GL "
               "textures the GL check refuses: downloaded through GL; CUDA memory of another context or GPU: copied "
               "on the device, or downloaded for a CPU scorer); false: such input is an error naming the reason",
               true);
  g_object_class_install_property(
      gobject_class, PROP_FRAMES_COPIED,
      g_param_spec_uint64("frames-copied", "Frames copied",
                          "Input frames (reference and distorted each) copied because the GPU could not import them",
                          0, G_MAXUINT64, 0, GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  g_object_class_install_property(
      gobject_class, PROP_GL_STATS,
      g_param_spec_boxed("gl-stats", "GL input statistics",
                         "Per sink pad (ref-*, dist-*): the GL path and why (path, zero-copy), frames, frames-copied, "
                         "texture-lookups, texture-hits, registrations, texture-uploads (textures GStreamer filled "
                         "from system memory when the element mapped them); null before any GL frame",
                         GST_TYPE_STRUCTURE, GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  g_object_class_install_property(  // CUDA hook
      gobject_class, PROP_CUDA_STATS,
      g_param_spec_boxed("cuda-stats", "CUDA input statistics",
                         "memory:CUDAMemory input of both pads: path (in place / device copy / download and why), "
                         "frames, in-place, device-copies, host-copies, stream-waits, host-waits, pending-releases; "
                         "null before any CUDA frame",
                         GST_TYPE_STRUCTURE, GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  add_pad_template(element_class, "src", GST_PAD_SRC, GST_TYPE_AGGREGATOR_PAD);  // CUDA hook (pad templates)
  add_pad_template(element_class, "ref_sink", GST_PAD_SINK, GST_TYPE_VMAFXHIP_PAD);
  add_pad_template(element_class, "dist_sink", GST_PAD_SINK, GST_TYPE_VMAFXHIP_PAD);
  gst_element_class_set_static_metadata(element_class, "VMAF video quality", "Filter/Analyzer/Video",
                                        "Scores distorted video against its reference with VMAF, PSNR, SSIM and "
                                        "MS-SSIM (libvmaf's numbers), on the CPU or the GPU",
                                        "vmafxhip developers");

  agg_class->start = vmafxhip_start;
  agg_class->stop = vmafxhip_stop;
  agg_class->flush = vmafxhip_flush;
  agg_class->aggregate = vmafxhip_aggregate;
  agg_class->update_src_caps = vmafxhip_update_src_caps;
  agg_class->sink_query = vmafxhip_sink_query;
  agg_class->src_query = vmafxhip_src_query;
  agg_class->sink_event = vmafxhip_sink_event;
  element_class->set_context = vmafxhip_set_context;
  agg_class->src_event = vmafxhip_src_event;
  agg_class->decide_allocation = vmafxhip_decide_allocation;
  vagg_class->create_output_buffer = vmafxhip_create_output_buffer;
  vagg_class->aggregate_frames = vmafxhip_aggregate_frames;
  vg::dmabuf_class_init(agg_class);  // DMA_DRM caps (gstvmafxhipdmabuf.h)

  gst_type_mark_as_plugin_api(GST_TYPE_VMAFXHIP_PAD, GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(pool_method_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(results_format_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(backend_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(vendor_get_type(), GstPluginAPIFlags(0));
  gst_type_mark_as_plugin_api(log_level_get_type(), GstPluginAPIFlags(0));
}

static void gst_vmafxhip_init(GstVmafxhip* self) {
  self->state = new ElementState();
  GstElementClass* klass = GST_ELEMENT_GET_CLASS(self);
  auto make_pad = [&](const char* name) {
    GstPadTemplate* templ = gst_element_class_get_pad_template(klass, name);
    auto* pad = GST_VMAFXHIP_PAD(
        g_object_new(GST_TYPE_VMAFXHIP_PAD, "name", name, "direction", GST_PAD_SINK, "template", templ, nullptr));
    gst_element_add_pad(GST_ELEMENT(self), GST_PAD(pad));
    return pad;
  };
  self->ref_pad = make_pad("ref_sink");
  self->dist_pad = make_pad("dist_sink");
}
