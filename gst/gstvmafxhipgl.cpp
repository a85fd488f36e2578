// SPDX-License-Identifier: LGPL-2.1-or-later
// Two builds in one file, chosen at the top level: with GL input (VMAFX_HAVE_GST_GL: libepoxy and gstreamer-gl-1.0
// found) and without (every GL entry point answers that this build has no GL input; GL caps are not offered).
#include "gstvmafxhipgl.h"

#if defined(VMAFX_HAVE_GST_GL)
#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

GST_DEBUG_CATEGORY_EXTERN(gst_vmafxhip_debug);
#define GST_CAT_DEFAULT gst_vmafxhip_debug

namespace vmafx::gst {

namespace {

// ---- Element GL state -------------------------------------------------------------------------------------------

// The display and application context an element was given or found. Kept on the element (qdata) so that the
// element's own state needs no GL member.
struct ElementGl {
  std::mutex mu;
  GstGLDisplay* display = nullptr;
  GstGLContext* other_context = nullptr;
  ~ElementGl() {
    if (display) gst_object_unref(display);
    if (other_context) gst_object_unref(other_context);
  }
};

GQuark element_gl_quark() {
  static GQuark q = g_quark_from_static_string("vmafxhip-gl-element");
  return q;
}

ElementGl* element_gl(GstElement* element) {
  static std::mutex create_mu;
  std::lock_guard<std::mutex> lk(create_mu);
  auto* s = static_cast<ElementGl*>(g_object_get_qdata(G_OBJECT(element), element_gl_quark()));
  if (!s) {
    s = new ElementGl();
    g_object_set_qdata_full(G_OBJECT(element), element_gl_quark(), s,
                            [](gpointer p) { delete static_cast<ElementGl*>(p); });
  }
  return s;
}

template <class T>
T* ref_or_null(T* o) {
  return o ? static_cast<T*>(gst_object_ref(o)) : nullptr;
}

// ---- Textures cached on their GstMemory -------------------------------------------------------------------------

// A texture's registration, kept as qdata of its GstMemory (GL memory lives in pools, so one registration serves
// many frames, and both pads and later sessions on the same device). Destroyed on the GL thread of its context when
// the memory goes, or when an importer of another device replaces it.
struct CachedTexture {
  std::unique_ptr<gl::Texture> texture;
  GstGLContext* context = nullptr;  // a reference: its GL thread unregisters
  Vendor vendor = Vendor::auto_select;  // the device it is registered with
  int device = -1;
};

GQuark texture_quark() {
  static GQuark q = g_quark_from_static_string("vmafxhip-gl-texture");
  return q;
}

void destroy_cached_texture(gpointer p) {
  auto* c = static_cast<CachedTexture*>(p);
  GstGLContext* ctx = c->context;
  // Synchronous; runs directly when this already is the GL thread.
  gst_gl_context_thread_add(
      ctx, [](GstGLContext*, gpointer d) { delete static_cast<CachedTexture*>(d); }, c);
  gst_object_unref(ctx);
}

bool texel_for(GstVideoFormat vf, GstGLFormat f, gl::TexelFormat* out) {
  switch (f) {
    case GST_GL_R8:
    case GST_GL_RED:
    case GST_GL_LUMINANCE: *out = gl::TexelFormat::r8; return true;
    case GST_GL_RG8:
    case GST_GL_RG:
    case GST_GL_LUMINANCE_ALPHA:
      // GRAY16 is held as two 8-bit components: the same bytes as one 16-bit word.
      *out = vf == GST_VIDEO_FORMAT_GRAY16_LE ? gl::TexelFormat::r16 : gl::TexelFormat::rg8;
      return true;
    case GST_GL_R16: *out = gl::TexelFormat::r16; return true;
    case GST_GL_RG16: *out = gl::TexelFormat::rg16; return true;
    case GST_GL_RGBA8:
    case GST_GL_RGBA: *out = gl::TexelFormat::rgba8; return true;
    default: return false;
  }
}

std::string describe(const GstVideoInfo& info) {
  return std::string(gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info))) + " " +
         std::to_string(GST_VIDEO_INFO_WIDTH(&info)) + "x" + std::to_string(GST_VIDEO_INFO_HEIGHT(&info));
}

// The GL maps (GST_MAP_READ | GST_MAP_GL) of a frame's plane memories, held while the interop's copies are queued and
// undone when this goes (on the GL thread). Reading a GstGLMemory's texture needs such a map: memory whose content
// was written on the CPU (glupload's raw upload wraps the system memory it was given; any CPU write map) holds it
// only in system memory until a GL map uploads it into the texture, and until then the texture's content is
// undefined (on the H200: zeros or an earlier frame's bytes).
class GlPlaneMaps {
 public:
  GlPlaneMaps() = default;
  GlPlaneMaps(const GlPlaneMaps&) = delete;
  GlPlaneMaps& operator=(const GlPlaneMaps&) = delete;
  ~GlPlaneMaps() {
    for (unsigned i = 0; i < n_; i++) gst_memory_unmap(mem_[i], &map_[i]);
  }
  // False when GStreamer cannot map the memory for GL (its upload failed).
  bool map(GstMemory* mem) {
    if (n_ == 3 || !gst_memory_map(mem, &map_[n_], GstMapFlags(GST_MAP_READ | GST_MAP_GL))) return false;
    mem_[n_++] = mem;
    return true;
  }

 private:
  GstMemory* mem_[3] = {nullptr, nullptr, nullptr};
  GstMapInfo map_[3] = {};
  unsigned n_ = 0;
};

// True when every plane of `buffer` is GL memory whose content is still only in system memory (GStreamer's
// NEED_UPLOAD flag: written on the CPU, or wrapped system memory not yet uploaded, as glupload's raw upload leaves it).
// Such a frame is read there: a host map of it involves no GL transfer.
bool content_in_system_memory(GstBuffer* buffer, const GstVideoInfo& info) {
  const unsigned n = GST_VIDEO_INFO_N_PLANES(&info);
  if (n == 0 || gst_buffer_n_memory(buffer) < n) return false;
  for (unsigned i = 0; i < n; i++) {
    GstMemory* mem = gst_buffer_peek_memory(buffer, i);
    if (!gst_is_gl_memory(mem) || !GST_MEMORY_FLAG_IS_SET(mem, GST_GL_BASE_MEMORY_TRANSFER_NEED_UPLOAD)) return false;
  }
  return true;
}

// Compares every sample of every plane of a device picture (read back through `importer`) with a host picture of the
// same layout; `*first` receives the first mismatch ("plane 1 sample (3, 7): device 16, GL 235"), empty when equal.
Status compare_with_device(gl::Importer& importer, const PictureView& host, const PictureView& device,
                           std::string* first) {
  first->clear();
  if (host.width != device.width || host.height != device.height || host.chroma != device.chroma ||
      host.bytes_per_sample != device.bytes_per_sample)
    return {Errc::internal, "the downloaded and the device frame differ in layout"};
  const unsigned bps = device.bytes_per_sample;
  std::vector<uint8_t> rows;
  for (unsigned p = 0; p < device.plane_count(); p++) {
    const PlaneView& d = device.planes[p];
    const PlaneView& h = host.planes[p];
    if (d.width != h.width || d.height != h.height || d.width == 0 || d.height == 0)
      return {Errc::internal, "plane " + std::to_string(p) + " differs in size between the downloaded and the device "
                                                             "frame"};
    const size_t span = (size_t(d.width - 1) * d.step + 1) * bps;
    rows.assign(span * d.height, 0);
    VMAFX_TRY(importer.read_plane(device, p, span, d.height, rows.data(), span));
    for (uint32_t y = 0; y < d.height; y++) {
      const uint8_t* dr = rows.data() + size_t(y) * span;
      const uint8_t* hr = h.data + ptrdiff_t(y) * h.stride;
      for (uint32_t x = 0; x < d.width; x++) {
        const uint8_t* ds = dr + size_t(x) * d.step * bps;
        const uint8_t* hs = hr + size_t(x) * (h.step ? h.step : 1) * bps;
        if (std::memcmp(ds, hs, bps) != 0) {
          const unsigned dv = bps == 1 ? ds[0] : unsigned(ds[0] | (ds[1] << 8));
          const unsigned hv = bps == 1 ? hs[0] : unsigned(hs[0] | (hs[1] << 8));
          *first = "plane " + std::to_string(p) + " sample (" + std::to_string(x) + ", " + std::to_string(y) +
                   "): device " + std::to_string(dv) + ", GL " + std::to_string(hv);
          return Status::ok();
        }
      }
    }
  }
  return Status::ok();
}

}  // namespace

bool is_gl_caps(const GstCaps* caps) {
  if (!caps || gst_caps_is_empty(caps) || gst_caps_is_any(caps)) return false;
  GstCapsFeatures* f = gst_caps_get_features(caps, 0);
  return f && gst_caps_features_contains(f, GST_CAPS_FEATURE_MEMORY_GL_MEMORY);
}

bool gl_format_info_for(GstVideoFormat format, FormatInfo* out) {
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA: *out = {PixelFormat::gray, Chroma::k400, 8}; return true;
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_YV12:
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_NV21:
    case GST_VIDEO_FORMAT_Y42B:
    case GST_VIDEO_FORMAT_Y444:
    case GST_VIDEO_FORMAT_GRAY8:
    case GST_VIDEO_FORMAT_P010_10LE:
    case GST_VIDEO_FORMAT_P016_LE:
    case GST_VIDEO_FORMAT_GRAY16_LE: return format_info_for(format, out);
    default: return false;
  }
}

gl::LumaConversion luma_conversion_for(const GstVideoInfo& info) {
  gl::LumaConversion c;
  const GstVideoColorimetry& cm = info.colorimetry;
  if (cm.matrix == GST_VIDEO_COLOR_MATRIX_BT709) {
    c.matrix = gl::RgbMatrix::bt709;
  } else if (cm.matrix == GST_VIDEO_COLOR_MATRIX_BT601) {
    c.matrix = gl::RgbMatrix::bt601;
  } else {
    c.matrix = GST_VIDEO_INFO_HEIGHT(&info) > 576 ? gl::RgbMatrix::bt709 : gl::RgbMatrix::bt601;
  }
  c.range = cm.range == GST_VIDEO_COLOR_RANGE_16_235 ? gl::RgbRange::limited : gl::RgbRange::full;
  return c;
}

// ---- Context negotiation ------------------------------------------------------------------------------------------

void gl_set_context(GstElement* element, GstContext* context) {
  ElementGl* s = element_gl(element);
  std::lock_guard<std::mutex> lk(s->mu);
  gst_gl_handle_set_context(element, context, &s->display, &s->other_context);
}

bool gl_pad_query(GstElement* element, GstPad* pad, GstQuery* query) {
  if (GST_QUERY_TYPE(query) == GST_QUERY_ALLOCATION) {
    GstCaps* caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    if (is_gl_caps(caps) && !gst_query_find_allocation_meta(query, GST_GL_SYNC_META_API_TYPE, nullptr))
      gst_query_add_allocation_meta(query, GST_GL_SYNC_META_API_TYPE, nullptr);
    return false;
  }
  if (GST_QUERY_TYPE(query) != GST_QUERY_CONTEXT) return false;
  (void)pad;
  ElementGl* s = element_gl(element);
  GstGLDisplay* display;
  GstGLContext* other;
  {
    std::lock_guard<std::mutex> lk(s->mu);
    display = ref_or_null(s->display);
    other = ref_or_null(s->other_context);
  }
  // The element keeps no GL context of its own (it reads the frames' contexts): it answers with the display and the
  // application's context.
  const bool answered = gst_gl_handle_context_query(element, query, display, nullptr, other);
  if (display) gst_object_unref(display);
  if (other) gst_object_unref(other);
  return answered;
}

void gl_sink_event(GstElement* element, GstEvent* event) {
  if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS) return;
  GstCaps* caps = nullptr;
  gst_event_parse_caps(event, &caps);
  if (!is_gl_caps(caps)) return;
  ElementGl* s = element_gl(element);
  // The element's own fields, without the lock: the search sets what it finds on the element (gst_element_set_context
  // -> gl_set_context, which takes the lock and writes these fields) and reads them back; it may also post
  // NEED_CONTEXT, which the application answers through set_context. The caller is the streaming thread of a pad.
  if (!gst_gl_ensure_element_data(element, &s->display, &s->other_context))
    GST_WARNING_OBJECT(element, "no GL display found or made for %" GST_PTR_FORMAT, caps);
}

// ---- GlInput ----------------------------------------------------------------------------------------------------

struct GlInput::State {
  Config cfg;

  enum class Mode { undecided, zero_copy, download, refused };
  Mode mode = Mode::undecided;
  GstGLContext* decided_on = nullptr;  // the GL context the mode was decided on (a reference)
  Status refusal;                      // mode == refused
  std::string reason;                  // why frames are downloaded, or refused
  std::string description;
  std::unique_ptr<gl::Importer> importer;
  mutable std::mutex mu;  // description, mode (read by stats / description from other threads)

  std::atomic<uint64_t> frames{0}, frames_copied{0}, lookups{0}, hits{0}, registrations{0}, uploads{0},
      system_memory_frames{0}, upload_errors{0};
  // Diagnostics (vmafx/gl.h's DiagnosticSwitches; both false in a build without test hooks). verify: every
  // zero-copy frame is also downloaded through GL and compared with the device frame the scorer reads, after a host
  // wait; frames compared, of which different, and the first difference (under mu) go into gl-stats.
  const gl::DiagnosticSwitches diagnostics = gl::diagnostic_switches();
  const bool verify = diagnostics.verify;
  const bool force_interop = diagnostics.force_interop;
  std::atomic<uint64_t> verified{0}, verify_mismatches{0};
  std::string verify_first;

  ~State() {
    // The importer and its device frames need no GL thread (the textures it registered are owned by their memories).
    importer.reset();
    if (decided_on) gst_object_unref(decided_on);
  }

  // Runs on the GL thread of `ctx`: the engine's check and, when it passes, the importer.
  struct CheckJob {
    State* self;
    Status status;
    gl::ContextInfo info;
    std::unique_ptr<gl::Importer> importer;
  };

  void decide(GstGLContext* ctx) {
    std::string why;
    std::unique_ptr<gl::Importer> imp;
    Status refused_code;
    if (cfg.requested == Backend::cpu) {
      why = "backend=cpu scores in system memory";
      refused_code = Status(Errc::unsupported, why);
    } else {
      CheckJob job{this, Status::ok(), {}, nullptr};
      gst_gl_context_thread_add(
          ctx,
          [](GstGLContext*, gpointer d) {
            auto* j = static_cast<CheckJob*>(d);
            j->status = gl::Importer::create(j->self->cfg.vendor, j->self->cfg.device_id, &j->importer, &j->info);
          },
          &job);
      GST_INFO("GL check on %s: %s", job.info.describe().c_str(),
               job.status.is_ok() ? job.importer->probe_report().c_str() : job.status.to_string().c_str());
      if (!job.status.is_ok()) {
        why = job.status.message();
        refused_code = job.status;
      } else if (cfg.scorer != Backend::hip) {
        why = "the GL check passed on " + job.info.describe() + " but the scorer runs on the CPU";
        refused_code = Status(Errc::unsupported, why);
      } else if (!cfg.host_reason.empty()) {
        why = cfg.host_reason;
        refused_code = Status(Errc::unsupported, why);
      } else {
        imp = std::move(job.importer);
      }
    }
    std::lock_guard<std::mutex> lk(mu);
    if (decided_on) gst_object_unref(decided_on);
    decided_on = GST_GL_CONTEXT(gst_object_ref(ctx));
    importer = std::move(imp);
    if (importer) {
      mode = Mode::zero_copy;
      reason.clear();
      description = "zero-copy through the GL interop of " + importer->device().describe() + " (" +
                    importer->context().describe() + "; " + importer->probe_report() + ")";
      return;
    }
    reason = why;
    if (cfg.allow_copy) {
      mode = Mode::download;
      description = "download through GL into system memory: " + why;
    } else {
      mode = Mode::refused;
      refusal = Status(refused_code.code() == Errc::ok ? Errc::unsupported : refused_code.code(),
                       why + "; allow-copy=false forbids downloading GL frames into system memory");
      description = "refused: " + refusal.message();
    }
  }

  // ---- zero-copy ----

  struct ImportJob {
    State* self;
    GstBuffer* buffer;
    const GstVideoInfo* info;
    PictureView view;
    std::function<void()> release;
    Status status;
    std::string upload_failed;  // why the textures do not hold the frame (read from system memory instead)
  };

  // GL thread: the textures of one frame into a device frame.
  Status import_on_gl_thread(GstGLContext* ctx, GstBuffer* buffer, const GstVideoInfo& info, PictureView* view,
                             std::function<void()>* release, std::string* upload_failed) {
    const GstVideoFormat vf = GST_VIDEO_INFO_FORMAT(&info);
    gl::TextureFrame f;
    f.width = GST_VIDEO_INFO_WIDTH(&info);
    f.height = GST_VIDEO_INFO_HEIGHT(&info);
    f.rgba = vf == GST_VIDEO_FORMAT_RGBA;
    if (f.rgba) {
      f.conversion = luma_conversion_for(info);
    } else if (!gl_format_info_for(vf, &f.format)) {
      return {Errc::unsupported, "GL format " + describe(info) + " is not read"};
    }
    f.n_planes = GST_VIDEO_INFO_N_PLANES(&info);
    if (f.n_planes > 3 || gst_buffer_n_memory(buffer) < f.n_planes)
      return {Errc::invalid_argument, "GL buffer has " + std::to_string(gst_buffer_n_memory(buffer)) +
                                          " memories for the " + std::to_string(f.n_planes) + " planes of " +
                                          describe(info)};
    // The producer's fence: a wait in this GL context, ahead of the interop's map (server side).
    if (GstGLSyncMeta* sync = gst_buffer_get_gl_sync_meta(buffer)) gst_gl_sync_meta_wait(sync, ctx);
    // Planes whose content is still in system memory are uploaded by GStreamer at the GL map below. A GL error that
    // upload raises means the texture does not hold the frame (measured: GStreamer 1.22 on the H200 fails R8 uploads
    // of 161-texel rows with GL_INVALID_OPERATION): the frame is then read from system memory (*upload_failed).
    // Errors pending before are someone else's and are cleared first.
    bool any_upload = false;
    for (unsigned i = 0; i < f.n_planes; i++)
      any_upload = any_upload ||
                   GST_MEMORY_FLAG_IS_SET(gst_buffer_peek_memory(buffer, i), GST_GL_BASE_MEMORY_TRANSFER_NEED_UPLOAD);
    const GstGLFuncs* gl = ctx->gl_vtable;
    if (any_upload)
      for (int k = 0; k < 16 && gl->GetError() != GL_NO_ERROR; k++) {
      }
    // Held until the copies are queued (the end of this function).
    GlPlaneMaps maps;
    for (unsigned i = 0; i < f.n_planes; i++) {
      GstMemory* mem = gst_buffer_peek_memory(buffer, i);
      if (!gst_is_gl_memory(mem))
        return {Errc::unsupported, "plane " + std::to_string(i) + " of a GLMemory buffer is " +
                                       std::string(mem->allocator ? mem->allocator->mem_type : "?") + " memory"};
      auto* glm = reinterpret_cast<GstGLMemory*>(mem);
      if (gst_gl_memory_get_texture_target(glm) != GST_GL_TEXTURE_TARGET_2D)
        return {Errc::unsupported, "plane " + std::to_string(i) + " is a " +
                                       std::string(gst_gl_texture_target_to_string(
                                           gst_gl_memory_get_texture_target(glm))) +
                                       " texture (only 2D textures are read)"};
      // The texture holds the frame only once mapped for GL: content still in system memory is uploaded here, in
      // this context, ahead of the interop's map (which orders the copy after GL work issued before it).
      if (GST_MEMORY_FLAG_IS_SET(mem, GST_GL_BASE_MEMORY_TRANSFER_NEED_UPLOAD)) uploads++;
      if (!maps.map(mem))
        return {Errc::io_error, "plane " + std::to_string(i) + ": GStreamer could not map its GL memory for GL " +
                                    "(texture " + std::to_string(gst_gl_memory_get_texture_id(glm)) + ")"};
      lookups++;
      auto* cached = static_cast<CachedTexture*>(gst_mini_object_get_qdata(GST_MINI_OBJECT(mem), texture_quark()));
      const gl::DeviceIdentity& dev = importer->device();
      if (cached && cached->vendor == dev.vendor && cached->device == dev.index &&
          cached->texture->id() == gst_gl_memory_get_texture_id(glm)) {
        hits++;
      } else {
        gl::TexelFormat texel;
        if (!texel_for(vf, gst_gl_memory_get_texture_format(glm), &texel))
          return {Errc::unsupported, "plane " + std::to_string(i) + " has GL texture format 0x" +
                                         std::to_string(unsigned(gst_gl_memory_get_texture_format(glm)))};
        auto c = std::make_unique<CachedTexture>();
        VMAFX_TRY(importer->register_texture(gst_gl_memory_get_texture_id(glm),
                                             gst_gl_texture_target_to_gl(GST_GL_TEXTURE_TARGET_2D),
                                             uint32_t(gst_gl_memory_get_texture_width(glm)),
                                             uint32_t(gst_gl_memory_get_texture_height(glm)), texel, &c->texture));
        c->context = GST_GL_CONTEXT(gst_object_ref(reinterpret_cast<GstGLBaseMemory*>(mem)->context));
        c->vendor = dev.vendor;
        c->device = dev.index;
        cached = c.release();
        registrations++;
        // Replaces (and unregisters, on this thread) a registration with another device.
        gst_mini_object_set_qdata(GST_MINI_OBJECT(mem), texture_quark(), cached, destroy_cached_texture);
      }
      f.planes[i] = cached->texture.get();
    }
    if (any_upload) {
      const GLenum e = gl->GetError();
      if (e != GL_NO_ERROR) {
        char code[16];
        std::snprintf(code, sizeof code, "0x%04x", unsigned(e));
        *upload_failed = "GStreamer's upload of the frame's system memory into its textures raised GL error " +
                         std::string(code) + " (" + describe(info) + ")";
        return Status::ok();
      }
    }
    return importer->import(f, view, release);
  }

  Status import_zero_copy(GstGLContext* ctx, GstBuffer* buffer, const GstVideoInfo& info, ImportedPicture* out) {
    ImportJob job{this, buffer, &info, {}, nullptr, Status::ok(), {}};
    gst_gl_context_thread_add(
        ctx,
        [](GstGLContext* c, gpointer d) {
          auto* j = static_cast<ImportJob*>(d);
          j->status = j->self->import_on_gl_thread(c, j->buffer, *j->info, &j->view, &j->release, &j->upload_failed);
        },
        &job);
    VMAFX_TRY(job.status);
    if (!job.upload_failed.empty()) {
      // The frame's content is in system memory (GStreamer's copy there stays valid): read it there.
      if (upload_errors++ == 0 && cfg.on_notice)
        cfg.on_notice(job.upload_failed + "; such frames are read from system memory", true);
      GST_DEBUG("%s", job.upload_failed.c_str());
      return import_download(ctx, buffer, info, out);
    }
    // The buffer is not held: the copies are queued on the library stream and GL work issued after their unmap runs
    // after them. The device frame is held until the engine releases the picture.
    *out = ImportedPicture(job.view, std::move(job.release));
    if (verify) verify_frame(ctx, buffer, info, job.view);
    return Status::ok();
  }

  // VMAFX_GL_VERIFY: the frame downloaded through GL (what the textures hold; for glupload's raw upload, the system
  // memory it was given) against the device frame, every sample. Host waits; diagnostics only. Never fails the frame:
  // the result goes into gl-stats and the debug log.
  void verify_frame(GstGLContext* ctx, GstBuffer* buffer, const GstVideoInfo& info, const PictureView& device) {
    ImportedPicture host;
    std::string first;
    Status st = import_download(ctx, buffer, info, &host);
    if (st.is_ok()) st = compare_with_device(*importer, host.view(), device, &first);
    if (!st.is_ok()) first = "not compared: " + st.to_string();
    const uint64_t n = verified++;
    if (first.empty()) return;
    verify_mismatches++;
    GST_WARNING("GL verification: %s frame %" G_GUINT64_FORMAT ": %s", describe(info).c_str(), n, first.c_str());
    std::lock_guard<std::mutex> lk(mu);
    if (verify_first.empty()) verify_first = "frame " + std::to_string(n) + ": " + first;
  }

  // ---- download ----

  Status import_download(GstGLContext* ctx, GstBuffer* buffer, const GstVideoInfo& info, ImportedPicture* out) {
    // A host wait on the producer's fence; GstGLMemory's download then runs in its own context.
    if (GstGLSyncMeta* sync = gst_buffer_get_gl_sync_meta(buffer)) gst_gl_sync_meta_wait_cpu(sync, ctx);
    const GstVideoFormat vf = GST_VIDEO_INFO_FORMAT(&info);
    if (vf != GST_VIDEO_FORMAT_RGBA) return import_system_memory(buffer, info, out);

    auto frame = std::make_unique<GstVideoFrame>();
    std::memset(frame.get(), 0, sizeof(GstVideoFrame));
    if (!gst_video_frame_map(frame.get(), const_cast<GstVideoInfo*>(&info), buffer, GST_MAP_READ))
      return {Errc::io_error, "could not download the " + describe(info) + " GL frame into system memory"};
    const uint32_t w = GST_VIDEO_INFO_WIDTH(&info), h = GST_VIDEO_INFO_HEIGHT(&info);
    auto luma = std::make_shared<std::vector<uint8_t>>(size_t(w) * h);
    Status st = gl::rgba_to_luma(static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(frame.get(), 0)),
                                 GST_VIDEO_FRAME_PLANE_STRIDE(frame.get(), 0), w, h, luma_conversion_for(info),
                                 luma->data(), ptrdiff_t(w));
    gst_video_frame_unmap(frame.get());
    VMAFX_TRY(st);
    const FormatInfo gray{PixelFormat::gray, Chroma::k400, 8};
    const PlaneLayout layout[1] = {{0, ptrdiff_t(w)}};
    PictureView view;
    VMAFX_TRY(make_picture_view(gray, w, h, luma->data(), luma->size(), layout, 1, &view));
    *out = ImportedPicture(view, [luma] {});
    return Status::ok();
  }
};

Status GlInput::create(const Config& config, std::unique_ptr<GlInput>* out) {
  std::unique_ptr<GlInput> in(new GlInput());
  in->state_ = std::make_shared<State>();
  in->state_->cfg = config;
  *out = std::move(in);
  return Status::ok();
}

GlInput::~GlInput() = default;

Status GlInput::import(GstBuffer* buffer, const GstVideoInfo& info, ImportedPicture* out) {
  State& s = *state_;
  if (gst_buffer_n_memory(buffer) == 0) return {Errc::invalid_argument, "GL buffer without memory"};
  GstMemory* first = gst_buffer_peek_memory(buffer, 0);
  if (!gst_is_gl_memory(first))
    return {Errc::unsupported, std::string("caps say memory:GLMemory, the buffer holds ") +
                                   (first->allocator ? first->allocator->mem_type : "?") + " memory"};
  GstGLContext* ctx = reinterpret_cast<GstGLBaseMemory*>(first)->context;
  State::Mode mode;
  {
    std::unique_lock<std::mutex> lk(s.mu);
    const bool decide = s.mode == State::Mode::undecided || s.decided_on != ctx;
    lk.unlock();
    if (decide) s.decide(ctx);
    lk.lock();
    mode = s.mode;
    if (mode == State::Mode::refused) return s.refusal;
  }
  if (mode == State::Mode::download && s.frames_copied == 0 && s.cfg.on_notice)
    s.cfg.on_notice("GL frames are downloaded into system memory (allow-copy=true): " + s.reason,
                    s.cfg.scorer == Backend::hip);

  // Zero-copy mode, a YUV / gray frame still wholly in system memory (glupload's raw upload): read there.
  const bool system_memory = mode == State::Mode::zero_copy && !s.force_interop &&
                             GST_VIDEO_INFO_FORMAT(&info) != GST_VIDEO_FORMAT_RGBA && content_in_system_memory(buffer,
                                                                                                              info);
  Status st = system_memory                     ? import_system_memory(buffer, info, out)
              : mode == State::Mode::zero_copy ? s.import_zero_copy(ctx, buffer, info, out)
                                               : s.import_download(ctx, buffer, info, out);
  VMAFX_TRY(st.prepend(std::string(system_memory                     ? "system memory of the GL buffer"
                                   : mode == State::Mode::zero_copy ? "GL interop import"
                                                                    : "GL download") +
                       " of " + describe(info)));
  s.frames++;
  if (system_memory) s.system_memory_frames++;
  if (mode == State::Mode::download) s.frames_copied++;
  return Status::ok();
}

GlInputStats GlInput::stats() const {
  GlInputStats st;
  st.frames = state_->frames;
  st.frames_copied = state_->frames_copied;
  st.texture_lookups = state_->lookups;
  st.texture_hits = state_->hits;
  st.registrations = state_->registrations;
  st.texture_uploads = state_->uploads;
  st.system_memory_frames = state_->system_memory_frames;
  st.upload_errors = state_->upload_errors;
  st.verify = state_->verify;
  st.verified = state_->verified;
  st.verify_mismatches = state_->verify_mismatches;
  std::lock_guard<std::mutex> lk(state_->mu);
  st.verify_first = state_->verify_first;
  return st;
}

std::string GlInput::description() const {
  std::lock_guard<std::mutex> lk(state_->mu);
  return state_->description;
}

bool GlInput::zero_copy() const {
  std::lock_guard<std::mutex> lk(state_->mu);
  return state_->mode == State::Mode::zero_copy;
}

}  // namespace vmafx::gst

#else  // !VMAFX_HAVE_GST_GL

namespace vmafx::gst {

namespace {
const char* kNoGl = "this build has no GL input (libepoxy or gstreamer-gl-1.0 missing, or -Dgl=disabled)";
}

bool is_gl_caps(const GstCaps* caps) {
  if (!caps || gst_caps_is_empty(caps) || gst_caps_is_any(caps)) return false;
  GstCapsFeatures* f = gst_caps_get_features(caps, 0);
  return f && gst_caps_features_contains(f, "memory:GLMemory");
}
bool gl_format_info_for(GstVideoFormat, FormatInfo*) { return false; }
gl::LumaConversion luma_conversion_for(const GstVideoInfo&) { return {}; }
void gl_set_context(GstElement*, GstContext*) {}
bool gl_pad_query(GstElement*, GstPad*, GstQuery*) { return false; }
void gl_sink_event(GstElement*, GstEvent*) {}

struct GlInput::State {};
Status GlInput::create(const Config&, std::unique_ptr<GlInput>* out) {
  out->reset();
  return {Errc::unsupported, kNoGl};
}
GlInput::~GlInput() = default;
Status GlInput::import(GstBuffer*, const GstVideoInfo&, ImportedPicture*) { return {Errc::unsupported, kNoGl}; }
GlInputStats GlInput::stats() const { return {}; }
std::string GlInput::description() const { return kNoGl; }
bool GlInput::zero_copy() const { return false; }

}  // namespace vmafx::gst

#endif  // VMAFX_HAVE_GST_GL

// ---- The memory:GLMemory input kind (both builds) ------------------------------------------------------------------

namespace vmafx::gst {

namespace {

class GlPadInput final : public Input {
 public:
  explicit GlPadInput(std::unique_ptr<GlInput> in) : in_(std::move(in)) {}
  Status import(GstBuffer* buffer, const GstVideoInfo& info, const GstCaps*, ImportedPicture* out) override {
    return in_->import(buffer, info, out);
  }
  uint64_t frames_copied() const override { return in_->stats().frames_copied; }
  std::string description() const override { return "memory:GLMemory, " + in_->description(); }
  bool add_stats(GstStructure* st, const std::string& p) const override {
    const GlInputStats s = in_->stats();
    gst_structure_set(st, (p + "-path").c_str(), G_TYPE_STRING, in_->description().c_str(),
                      (p + "-zero-copy").c_str(), G_TYPE_BOOLEAN, gboolean(in_->zero_copy()),
                      (p + "-frames").c_str(), G_TYPE_UINT64, guint64(s.frames),
                      (p + "-frames-copied").c_str(), G_TYPE_UINT64, guint64(s.frames_copied),
                      (p + "-texture-lookups").c_str(), G_TYPE_UINT64, guint64(s.texture_lookups),
                      (p + "-texture-hits").c_str(), G_TYPE_UINT64, guint64(s.texture_hits),
                      (p + "-registrations").c_str(), G_TYPE_UINT64, guint64(s.registrations),
                      (p + "-texture-uploads").c_str(), G_TYPE_UINT64, guint64(s.texture_uploads),
                      (p + "-system-memory-frames").c_str(), G_TYPE_UINT64, guint64(s.system_memory_frames),
                      (p + "-upload-errors").c_str(), G_TYPE_UINT64, guint64(s.upload_errors), nullptr);
    if (s.verify)
      gst_structure_set(st, (p + "-verified").c_str(), G_TYPE_UINT64, guint64(s.verified),
                        (p + "-verify-mismatches").c_str(), G_TYPE_UINT64, guint64(s.verify_mismatches),
                        (p + "-verify-first").c_str(), G_TYPE_STRING, s.verify_first.c_str(), nullptr);
    return true;
  }

 private:
  std::unique_ptr<GlInput> in_;
};

Status gl_create(const InputConfig& c, unsigned, std::shared_ptr<void>*, std::unique_ptr<Input>* out) {
  GlInput::Config gc;
  gc.requested = c.requested;
  gc.scorer = c.scorer;
  gc.host_reason = c.host_reason;
  gc.vendor = c.vendor;
  gc.device_id = c.device_id;
  gc.allow_copy = c.allow_copy;
  gc.on_notice = c.on_notice;
  std::unique_ptr<GlInput> in;
  VMAFX_TRY(GlInput::create(gc, &in));
  *out = std::make_unique<GlPadInput>(std::move(in));
  return Status::ok();
}

bool gl_handles(const GstCaps* caps) { return is_gl_caps(caps); }

#if defined(VMAFX_HAVE_GST_GL)
constexpr const char* kGlCaps =
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES("memory:GLMemory", GST_VMAFXHIP_GL_FORMATS) ", texture-target=(string)2D";
#else
constexpr const char* kGlCaps = "";
#endif

const InputKind kGlKind = {
    "memory:GLMemory", kGlCaps, gl_handles, nullptr, gl_format_info_for, nullptr, gl_create, "gl-stats",
};

}  // namespace

const InputKind& gl_input_kind() { return kGlKind; }

}  // namespace vmafx::gst
