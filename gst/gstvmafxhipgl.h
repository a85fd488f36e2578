// SPDX-License-Identifier: LGPL-2.1-or-later
// memory:GLMemory input of vmafxhip: caps, GL context negotiation, and the per-stream GL input (engine: vmafx/gl.h).
//
// Caps. video/x-raw(memory:GLMemory), texture-target=2D, in the layouts glupload / glcolorconvert produce: RGBA (one
// RGBA8 texture, scored as 8-bit luma), I420 / YV12 / Y42B / Y444 (three R8), NV12 / NV21 (R8 + RG8), GRAY8 (R8),
// P010_10LE / P016_LE (R16 + RG16), GRAY16_LE (RG8 holding the 16-bit words).
//
// Context negotiation. The element takes part as GL elements do: it keeps the GL display and the application's
// other-context it is given (GstElement::set_context: the application's GstGLDisplay, e.g. an EGL device display, and
// "gst.gl.app_context"), answers CONTEXT queries with them so that glupload / gltestsrc upstream use the same display,
// looks for them (neighbours, then a NEED_CONTEXT message to the application) when GL caps arrive, and announces in
// the ALLOCATION query that it reads GstGLSyncMeta so that GL producers attach it.
//
// Import. The first GL frame of a stream decides the path, on the GL thread of the frame's GL context:
//   - zero-copy (scorer on the GPU): the engine's check passes (vmafx::gl::Importer::create: context current, not a
//     software renderer, the device's vendor and a platform its interop takes, the runtime's GL device list, a probe
//     read). Each frame: the producer's GstGLSyncMeta is waited for in the GL context (server side), each plane's
//     texture is mapped for GL through GStreamer (GST_MAP_READ | GST_MAP_GL: content still in system memory is
//     uploaded into the texture there), registered once and the registration cached on its GstMemory (qdata;
//     unregistered on the GL thread when the memory goes), and the textures are copied into a device frame on the
//     library stream. The buffer goes back to its producer at once: GL work issued after the runtime's unmap runs
//     after the copies.
//     A YUV or gray frame whose every plane still holds its content only in system memory (glupload's raw upload
//     wraps the system memory it is given and uploads it at the first GL map) is read there instead, with no GL
//     transfer at all, and uploaded by the engine like a system-memory frame (system-memory-frames counts them):
//     cheaper than an upload into GL followed by the interop's copy. RGBA frames take the GL map: the luma
//     conversion runs on the GPU.
//   - download (anything else): with allow-copy=true the frame is read through GL into system memory (GstGLMemory's
//     own download, after a host wait on the sync meta) and scored from there, RGBA converted to luma on the host with
//     the kernel's integer arithmetic; the reason is posted once and frames-copied counts the frames. With
//     allow-copy=false the first frame fails with that reason.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "gstvmafxhipimport.h"
#include "gstvmafxhipinput.h"
#include "vmafx/gl.h"
#include "vmafx/scorer.h"

// Formats taken in memory:GLMemory.
#define GST_VMAFXHIP_GL_FORMATS \
  "{ RGBA, I420, YV12, NV12, NV21, Y42B, Y444, GRAY8, P010_10LE, P016_LE, GRAY16_LE }"
// The pad templates carry these caps only in a build with GL input (gst/meson.build defines VMAFX_HAVE_GST_GL when
// libepoxy and gstreamer-gl-1.0 are found); the input kind is gl_input_kind (gstvmafxhipinput.h).

namespace vmafx::gst {

// True for caps with the memory:GLMemory feature.
bool is_gl_caps(const GstCaps* caps);

// The engine's layout of a format in GL memory: RGBA is scored as 8-bit gray (its luma); the YUV formats as in
// system memory. False for a format outside GST_VMAFXHIP_GL_FORMATS.
bool gl_format_info_for(GstVideoFormat format, FormatInfo* out);

// RGBA to luma: the caps' matrix when it is BT.601 or BT.709, else BT.709 above 576 lines and BT.601 up to 576 (the
// rule GStreamer applies to YUV caps without colorimetry); the caps' RGB range (full when unknown).
gl::LumaConversion luma_conversion_for(const GstVideoInfo& info);

// ---- GL context negotiation (state kept on the element as qdata) ----------------------------------------------

// GstElement::set_context: keeps a GL display / application context; call before chaining up.
void gl_set_context(GstElement* element, GstContext* context);
// A query on any pad of the element. CONTEXT: answered with the display / other context when the element has them
// (returns true: answered, do not chain up). ALLOCATION on a pad with GL caps: adds GstGLSyncMeta to the metas the
// element reads (returns false: chain up).
bool gl_pad_query(GstElement* element, GstPad* pad, GstQuery* query);
// An event on a sink pad, observed before the element handles it: GL caps make the element find the display and
// other context (neighbours, then the application) or make a display. Never consumes the event.
void gl_sink_event(GstElement* element, GstEvent* event);

// ---- The input ----------------------------------------------------------------------------------------------------

struct GlInputStats {
  uint64_t frames = 0;          // GL frames imported
  uint64_t frames_copied = 0;   // of which downloaded through GL into system memory
  uint64_t texture_lookups = 0; // zero-copy: plane textures looked up in the per-memory cache
  uint64_t texture_hits = 0;    // of which already registered
  uint64_t registrations = 0;
  uint64_t texture_uploads = 0;  // zero-copy: plane textures GStreamer filled from system memory at the element's GL map
  uint64_t system_memory_frames = 0;  // zero-copy mode: frames read from the system memory their GL memory wraps
  uint64_t upload_errors = 0;  // zero-copy mode: frames whose upload into GL (GStreamer's, at the GL map) raised a GL
                               // error, read from system memory instead
  // VMAFX_GL_VERIFY set (diagnostics): zero-copy frames compared with their GL download, of which different, and the
  // first difference ("frame 0: plane 0 sample (3, 7): device 0, GL 235"); verify false otherwise.
  bool verify = false;
  uint64_t verified = 0, verify_mismatches = 0;
  std::string verify_first;
};

class GlInput {
 public:
  struct Config {
    Backend requested = Backend::auto_select;  // the element's backend property
    Backend scorer = Backend::cpu;             // what the scorer runs on
    // Non-empty: a feature of the scorer reads host memory (one the GPU has no implementation of, run on the CPU
    // beside it), so frames are downloaded for this reason.
    std::string host_reason;
    Vendor vendor = Vendor::auto_select;
    int device_id = -1;
    bool allow_copy = true;
    // Posted once: the download fallback and its reason; `warning` when the scorer runs on the GPU (zero-copy was
    // wanted and refused), else it is information (a CPU scorer reads system memory anyway).
    std::function<void(const std::string& text, bool warning)> on_notice;
  };

  static Status create(const Config& config, std::unique_ptr<GlInput>* out);
  ~GlInput();
  GlInput(const GlInput&) = delete;
  GlInput& operator=(const GlInput&) = delete;

  // Imports a buffer of GL memory whose pad has `info`. Zero-copy: a device picture (the buffer is not held); download:
  // a host picture holding the buffer's mapping until the engine releases it.
  Status import(GstBuffer* buffer, const GstVideoInfo& info, ImportedPicture* out);

  GlInputStats stats() const;
  // "zero-copy through the GL interop of <device> (<context>)" or "download through GL: <reason>"; empty before the
  // first frame.
  std::string description() const;
  bool zero_copy() const;

 private:
  GlInput() = default;
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace vmafx::gst
