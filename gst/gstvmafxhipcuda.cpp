// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhipcuda.h"
#include "gstvmafxhipcuda_abi.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

GST_DEBUG_CATEGORY_EXTERN(gst_vmafxhip_debug);
#define GST_CAT_DEFAULT gst_vmafxhip_debug

namespace vmafx::gst {

namespace {

// ---- GStreamer's CUDA library, opened at run time ------------------------------------------------------------

using cuda_abi::CudaMemoryHead;
using cuda_abi::kCapsFeature;
using cuda_abi::kContextType;
using cuda_abi::kMemoryNeedSync;
using cuda_abi::kMemoryType;
constexpr GstMapFlags kMapCuda = GstMapFlags(cuda_abi::kMapCuda);

struct GstCudaLib {
  bool open = false;
  std::string library, why;
  gboolean (*load_library)() = nullptr;
  GType (*context_get_type)() = nullptr;
  GstObject* (*context_new_wrapped)(void* handle, int device) = nullptr;
  void* (*context_get_handle)(GstObject* ctx) = nullptr;
  gboolean (*handle_context_query)(GstElement*, GstQuery*, GstObject* ctx) = nullptr;
  gboolean (*handle_set_context)(GstElement*, GstContext*, gint device_id, GstObject** ctx) = nullptr;
  GstContext* (*context_new_cuda_context)(GstObject* ctx) = nullptr;
  // GStreamer 1.24+ (absent from 1.22): the stream a memory was written on, and its CUstream.
  void* (*memory_get_stream)(GstMemory* mem) = nullptr;
  void* (*stream_get_handle)(void* stream) = nullptr;
};

const GstCudaLib& gst_cuda_lib() {
  static GstCudaLib lib;
  static std::once_flag once;
  std::call_once(once, [] {
    // Tests name a library that does not exist (the element without GStreamer's CUDA library); only a build with
    // test hooks reads the variable (meson defines VMAFX_TEST_HOOKS), so no installed plugin has it.
    const char* env = VMAFX_TEST_HOOKS ? std::getenv("VMAFX_GST_CUDA_LIBRARY") : nullptr;
    lib.library = env && *env ? env : "libgstcuda-1.0.so.0";
    void* h = dlopen(lib.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      lib.why = e ? e : lib.library + ": cannot be opened";
      return;
    }
    auto sym = [&](const char* name, auto* slot) {
      *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(dlsym(h, name));
      return *slot != nullptr;
    };
    std::string absent;
    for (auto [name, ok] : {std::pair{"gst_cuda_load_library", sym("gst_cuda_load_library", &lib.load_library)},
                            {"gst_cuda_context_get_type", sym("gst_cuda_context_get_type", &lib.context_get_type)},
                            {"gst_cuda_context_new_wrapped",
                             sym("gst_cuda_context_new_wrapped", &lib.context_new_wrapped)},
                            {"gst_cuda_context_get_handle",
                             sym("gst_cuda_context_get_handle", &lib.context_get_handle)},
                            {"gst_cuda_handle_context_query",
                             sym("gst_cuda_handle_context_query", &lib.handle_context_query)},
                            {"gst_cuda_handle_set_context",
                             sym("gst_cuda_handle_set_context", &lib.handle_set_context)}})
      if (!ok) absent += std::string(absent.empty() ? "" : ", ") + name;
    if (!absent.empty()) {
      lib.why = lib.library + " lacks " + absent;
      return;
    }
    sym("gst_context_new_cuda_context", &lib.context_new_cuda_context);
    sym("gst_cuda_memory_get_stream", &lib.memory_get_stream);
    sym("gst_cuda_stream_get_handle", &lib.stream_get_handle);
    lib.open = true;
  });
  return lib;
}

// libcuda through GStreamer's loader (needed before GStreamer makes or wraps a context); once.
bool gst_cuda_ready(std::string* why) {
  const GstCudaLib& lib = gst_cuda_lib();
  if (!lib.open) {
    if (why) *why = lib.why;
    return false;
  }
  static const bool ok = lib.load_library() != FALSE;
  if (!ok && why) *why = "gst_cuda_load_library failed (no libcuda.so.1 for GStreamer)";
  return ok;
}

bool may_use_nvidia(const CudaSettings& s) { return s.backend != Backend::cpu && s.vendor != Vendor::amd; }

guint context_device(GstObject* ctx) {
  guint dev = 0;
  g_object_get(ctx, "cuda-device-id", &dev, nullptr);
  return dev;
}

std::string peer_name(GstPad* pad) {
  std::string s = "upstream";
  if (!pad) return s;
  GstPad* peer = gst_pad_get_peer(pad);
  if (!peer) return s;
  GstElement* parent = gst_pad_get_parent_element(peer);
  if (parent) {
    s = GST_OBJECT_NAME(parent);
    gst_object_unref(parent);
  }
  gst_object_unref(peer);
  return s;
}

// ---- The element's context (qdata) ---------------------------------------------------------------------------

struct ElementCuda {
  std::mutex mu;
  GstObject* context = nullptr;  // GstCudaContext, a reference
  int device = -1;               // its cuda-device-id (a CUDA ordinal)
  cuda::EngineContext engine;    // the engine's device while it runs on `context`
  std::string how;               // how the element got `context`
  ~ElementCuda() {
    engine = {};
    if (context) gst_object_unref(context);
  }
};

GQuark element_cuda_quark() {
  static GQuark q = g_quark_from_static_string("vmafxhip-cuda-element");
  return q;
}

ElementCuda* element_cuda(GstElement* element) {
  GST_OBJECT_LOCK(element);
  auto* s = static_cast<ElementCuda*>(g_object_get_qdata(G_OBJECT(element), element_cuda_quark()));
  if (!s) {
    s = new ElementCuda();
    g_object_set_qdata_full(G_OBJECT(element), element_cuda_quark(), s,
                            [](gpointer p) { delete static_cast<ElementCuda*>(p); });
  }
  GST_OBJECT_UNLOCK(element);
  return s;
}

// The device-id property as GStreamer's CUDA calls take it: a CUDA ordinal (-1: any).
int cuda_device_id(const CudaSettings& settings) {
  return settings.device_id < 0 ? -1 : cuda::cuda_device_ordinal(settings.device_id);
}

// Keeps `ctx` as the element's context and, when the settings let the scorer use an NVIDIA GPU, makes the engine run
// on it where it can. The caller holds s->mu.
void take_context(GstElement* element, ElementCuda* s, GstObject* ctx, const std::string& how,
                  const CudaSettings& settings) {
  const GstCudaLib& lib = gst_cuda_lib();
  s->context = GST_OBJECT(gst_object_ref(ctx));
  s->device = int(context_device(ctx));
  s->how = how;
  if (!may_use_nvidia(settings)) {
    s->how += "; not adopted (the scorer does not run on an NVIDIA GPU)";
    GST_INFO_OBJECT(element, "CUDA context: %s", s->how.c_str());
    return;
  }
  void* handle = lib.context_get_handle(ctx);
  std::shared_ptr<void> owner(gst_object_ref(ctx), [](void* p) { gst_object_unref(p); });
  cuda::EngineContext ec;
  Status st = cuda::adopt_context(handle, s->device, std::move(owner), &ec);
  if (st) {
    s->engine = std::move(ec);
    s->how += s->engine.adopted ? "; the engine runs on it" : "; it is the engine's own context";
  } else {
    // The engine already runs on another context of that GPU (or has none): that producer's frames are copied.
    s->how += "; the engine cannot run on it (" + st.message() + ")";
  }
  GST_INFO_OBJECT(element, "CUDA context: %s", s->how.c_str());
}

// A GstCudaContext wrapping the context the engine's device runs on. The caller holds s->mu.
bool make_own_context(GstElement* element, ElementCuda* s, const CudaSettings& settings, const std::string& for_whom) {
  std::string why;
  if (!gst_cuda_ready(&why)) {
    GST_INFO_OBJECT(element, "no CUDA context to offer: %s", why.c_str());
    return false;
  }
  cuda::EngineContext ec;
  Status st = cuda::engine_context(settings.device_id, &ec);
  if (!st) {
    GST_INFO_OBJECT(element, "no CUDA context to offer: %s", st.to_string().c_str());
    return false;
  }
  GstObject* ctx = gst_cuda_lib().context_new_wrapped(ec.context, ec.device);
  if (!ctx) {
    GST_WARNING_OBJECT(element, "gst_cuda_context_new_wrapped failed for %s",
                       cuda::describe_cuda_context(ec.context, ec.device).c_str());
    return false;
  }
  // The wrapped context may outlive the element (decoders keep it): it keeps the engine's device, and so the
  // context it wraps, alive.
  g_object_set_data_full(G_OBJECT(ctx), "vmafxhip-engine-device", new std::shared_ptr<void>(ec.hold),
                         [](gpointer p) { delete static_cast<std::shared_ptr<void>*>(p); });
  s->context = ctx;  // the reference of new_wrapped
  s->device = ec.device;
  s->how = for_whom + " with the engine's " + cuda::describe_cuda_context(ec.context, ec.device) + " (" + ec.name +
           (ec.adopted ? ", adopted" : ", primary context") + ")";
  s->engine = std::move(ec);
  GST_INFO_OBJECT(element, "CUDA context: %s", s->how.c_str());
  return true;
}

}  // namespace

// ---- Caps -------------------------------------------------------------------------------------------------------

bool gst_cuda_available(std::string* why) {
  const GstCudaLib& lib = gst_cuda_lib();
  if (!lib.open && why) *why = lib.why;
  return lib.open;
}

std::string cuda_template_caps() {
  if (!cuda::cuda_import_built() || !gst_cuda_available()) return "";
  return GST_VIDEO_CAPS_MAKE_WITH_FEATURES("memory:CUDAMemory", GST_VMAFXHIP_CUDA_FORMATS);
}

bool is_cuda_caps(const GstCaps* caps) {
  if (!caps || gst_caps_is_empty(caps) || gst_caps_is_any(caps)) return false;
  GstCapsFeatures* f = gst_caps_get_features(caps, 0);
  return f && gst_caps_features_contains(f, kCapsFeature);
}

// ---- Context sharing --------------------------------------------------------------------------------------------

void cuda_set_context(GstElement* element, GstContext* context, const CudaSettings& settings) {
  if (!context || g_strcmp0(gst_context_get_context_type(context), kContextType) != 0) return;
  const GstCudaLib& lib = gst_cuda_lib();
  if (!lib.open) return;
  ElementCuda* s = element_cuda(element);
  std::lock_guard<std::mutex> lk(s->mu);
  if (s->context) return;  // as GStreamer's CUDA elements do: a context once set is kept
  GstObject* ctx = nullptr;
  if (!lib.handle_set_context(element, context, cuda_device_id(settings), &ctx) || !ctx) return;
  take_context(element, s, ctx, "given a CUDA context (set_context) of device " + std::to_string(context_device(ctx)),
               settings);
  gst_object_unref(ctx);
}

bool cuda_pad_query(GstElement* element, GstPad* pad, GstQuery* query, const CudaSettings& settings) {
  if (GST_QUERY_TYPE(query) != GST_QUERY_CONTEXT) return false;
  const gchar* type = nullptr;
  if (!gst_query_parse_context_type(query, &type) || g_strcmp0(type, kContextType) != 0) return false;
  const GstCudaLib& lib = gst_cuda_lib();
  if (!lib.open) return false;
  // backend=cpu (or an AMD-only choice) shares no CUDA context, also not one the element still holds from before.
  if (!may_use_nvidia(settings)) return false;
  ElementCuda* s = element_cuda(element);
  std::lock_guard<std::mutex> lk(s->mu);
  if (!s->context) {
    if (!make_own_context(element, s, settings, "answered " + peer_name(pad) + "'s CUDA context query")) return false;
  }
  return lib.handle_context_query(element, query, s->context) != FALSE;
}

void cuda_sink_event(GstElement* element, GstPad* pad, GstEvent* event, const CudaSettings& settings) {
  if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS) return;
  GstCaps* caps = nullptr;
  gst_event_parse_caps(event, &caps);
  if (!is_cuda_caps(caps) || !gst_cuda_lib().open) return;
  ElementCuda* s = element_cuda(element);
  {
    std::lock_guard<std::mutex> lk(s->mu);
    if (s->context) return;
  }
  // 1) the producer's own context (a decoder that opened before it was linked to us made one).
  GstQuery* q = gst_query_new_context(kContextType);
  if (gst_pad_peer_query(pad, q)) {
    GstContext* ctx = nullptr;
    gst_query_parse_context(q, &ctx);
    if (ctx && gst_cuda_lib().open) {
      ElementCuda* e = element_cuda(element);
      std::lock_guard<std::mutex> lk(e->mu);
      GstObject* cuda_ctx = nullptr;
      if (!e->context && gst_cuda_lib().handle_set_context(element, ctx, cuda_device_id(settings), &cuda_ctx) &&
          cuda_ctx) {
        take_context(element, e, cuda_ctx, "found " + peer_name(pad) + "'s CUDA context (context query upstream)",
                     settings);
        gst_object_unref(cuda_ctx);
      }
    }
  }
  gst_query_unref(q);
  {
    std::lock_guard<std::mutex> lk(s->mu);
    if (s->context) return;
  }
  // 2) the application's (the bin answers from the contexts its elements announced): set_context runs meanwhile.
  gst_element_post_message(element, gst_message_new_need_context(GST_OBJECT(element), kContextType));
  std::lock_guard<std::mutex> lk(s->mu);
  if (s->context || !may_use_nvidia(settings)) return;
  // 3) our own, announced so that producers made later share it.
  if (!make_own_context(element, s, settings, "made for CUDA caps from " + peer_name(pad))) return;
  if (gst_cuda_lib().context_new_cuda_context) {
    GstContext* c = gst_cuda_lib().context_new_cuda_context(s->context);
    gst_element_post_message(element, gst_message_new_have_context(GST_OBJECT(element), c));
  }
}

void cuda_scorer_device(GstElement* element, Vendor* vendor, int* device_id) {
  auto* s = static_cast<ElementCuda*>(g_object_get_qdata(G_OBJECT(element), element_cuda_quark()));
  if (!s) return;
  std::lock_guard<std::mutex> lk(s->mu);
  if (!s->context) return;
  if (*vendor == Vendor::auto_select) *vendor = Vendor::nvidia;
  if (*vendor != Vendor::nvidia || *device_id >= 0) return;
  // The context's GPU as the engine numbers it (HIP_VISIBLE_DEVICES may renumber, or hide it: then the scorer is
  // placed as without a context, and the frames are copied to its GPU).
  const int index = s->engine.context ? s->engine.index : cuda::engine_device_index(s->device);
  if (index >= 0) *device_id = index;
  else GST_INFO_OBJECT(element, "the CUDA context's device %d is not one the engine sees: the scorer is placed", s->device);
}

std::string cuda_context_description(GstElement* element) {
  auto* s = static_cast<ElementCuda*>(g_object_get_qdata(G_OBJECT(element), element_cuda_quark()));
  if (!s) return "";
  std::lock_guard<std::mutex> lk(s->mu);
  return s->how;
}

// ---- The input --------------------------------------------------------------------------------------------------

struct CudaInput::State {
  Config config;
  std::mutex mu;
  std::unique_ptr<cuda::CudaImporter> importer;
  bool importer_tried = false;
  Status importer_status;
  std::string host_why;  // non-empty: frames are downloaded for this reason
  bool notice_posted = false;
  std::atomic<uint64_t> frames{0}, host_copies{0};
  std::string path;  // for stats and description

  void notice(const std::string& text, bool warning) {
    if (notice_posted) return;
    notice_posted = true;
    if (config.on_notice) config.on_notice(text, warning);
  }
};

namespace {

// One mapped memory of a buffer (GST_MAP_CUDA: its device pointer) and the buffer, released together.
struct HeldBuffer {
  GstBuffer* buffer = nullptr;
  std::vector<std::pair<GstMemory*, GstMapInfo>> maps;
  ~HeldBuffer() {
    for (auto& m : maps) gst_memory_unmap(m.first, &m.second);
    if (buffer) gst_buffer_unref(buffer);
  }
};

// The engine's description of a buffer of CUDA memory: planes from the video meta (else the caps), each in the
// GstCudaMemory that holds it, mapped for CUDA. `held` keeps the mappings and a reference on the buffer.
Status describe_cuda_buffer(GstBuffer* buffer, const GstVideoInfo& info, cuda::CudaFrame* out,
                            std::shared_ptr<HeldBuffer>* held) {
  const GstCudaLib& lib = gst_cuda_lib();
  FormatInfo fmt;
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT(&info);
  if (!format_info_for(format, &fmt))
    return {Errc::unsupported, std::string("format ") + gst_video_format_to_string(format) +
                                   " is not read from CUDA memory"};
  cuda::CudaFrame f;
  f.format = fmt;
  f.width = GST_VIDEO_INFO_WIDTH(&info);
  f.height = GST_VIDEO_INFO_HEIGHT(&info);
  f.n_planes = GST_VIDEO_INFO_N_PLANES(&info);
  if (f.n_planes > 3) return {Errc::unsupported, "CUDA frame with " + std::to_string(f.n_planes) + " planes"};
  const GstVideoMeta* meta = gst_buffer_get_video_meta(buffer);
  if (meta && (meta->format != format || meta->width != f.width || meta->height != f.height ||
               meta->n_planes != f.n_planes))
    return {Errc::invalid_argument, std::string("the buffer's video meta (") +
                                        gst_video_format_to_string(meta->format) + " " + std::to_string(meta->width) +
                                        "x" + std::to_string(meta->height) + ") does not match its caps"};
  auto h = std::make_shared<HeldBuffer>();
  for (unsigned i = 0; i < f.n_planes; i++) {
    const size_t offset = meta ? meta->offset[i] : GST_VIDEO_INFO_PLANE_OFFSET(&info, i);
    const gint stride = meta ? meta->stride[i] : GST_VIDEO_INFO_PLANE_STRIDE(&info, i);
    guint idx = 0, len = 0;
    gsize skip = 0;
    if (!gst_buffer_find_memory(buffer, offset, 1, &idx, &len, &skip))
      return {Errc::out_of_range, "plane " + std::to_string(i) + " starts at byte " + std::to_string(offset) +
                                      ", past the end of the " + std::to_string(gst_buffer_get_size(buffer)) +
                                      "-byte buffer"};
    GstMemory* mem = gst_buffer_peek_memory(buffer, idx);
    if (!gst_memory_is_type(mem, kMemoryType))
      return {Errc::unsupported, "plane " + std::to_string(i) + " of a buffer with memory:CUDAMemory caps is in " +
                                     std::string(mem->allocator && mem->allocator->mem_type ? mem->allocator->mem_type
                                                                                           : "unknown") +
                                     " memory, not CUDA memory (" + kMemoryType + ")"};
    GstObject* ctx = reinterpret_cast<CudaMemoryHead*>(mem)->context;
    if (!ctx || !G_TYPE_CHECK_INSTANCE_TYPE(ctx, lib.context_get_type()))
      return {Errc::invalid_argument, "plane " + std::to_string(i) + "'s CUDA memory has no GstCudaContext"};
    void* handle = lib.context_get_handle(ctx);
    const int dev = int(context_device(ctx));
    if (i == 0) {
      f.context = handle;
      f.device = dev;
    } else if (handle != f.context) {
      return {Errc::unsupported, "the planes of one frame are in CUDA memory of two contexts (" +
                                     cuda::describe_cuda_context(f.context, f.device) + ", " +
                                     cuda::describe_cuda_context(handle, dev) + ")"};
    }
    // 1.24+: writes still queued on the memory's stream.
    if (lib.memory_get_stream && lib.stream_get_handle && GST_MEMORY_FLAG_IS_SET(mem, kMemoryNeedSync)) {
      void* stream = lib.memory_get_stream(mem);
      if (stream) f.stream = lib.stream_get_handle(stream);
    }
    const GstMapInfo* mapped = nullptr;
    for (auto& m : h->maps)
      if (m.first == mem) mapped = &m.second;
    if (!mapped) {
      GstMapInfo mi;
      if (!gst_memory_map(mem, &mi, GstMapFlags(GST_MAP_READ | kMapCuda)))
        return {Errc::io_error, "could not map plane " + std::to_string(i) + "'s CUDA memory (GST_MAP_CUDA)"};
      h->maps.emplace_back(mem, mi);
      mapped = &h->maps.back().second;
    }
    if (skip > mapped->size)
      return {Errc::out_of_range, "plane " + std::to_string(i) + " starts past the end of its CUDA memory"};
    f.planes[i].data = uint64_t(reinterpret_cast<uintptr_t>(mapped->data)) + skip;
    f.planes[i].stride = stride;
    f.planes[i].available = mapped->size - skip;
  }
  h->buffer = gst_buffer_ref(buffer);
  *out = f;
  *held = std::move(h);
  return Status::ok();
}

}  // namespace

Status CudaInput::create(const Config& config, std::unique_ptr<CudaInput>* out) {
  std::unique_ptr<CudaInput> in(new CudaInput());
  in->state_ = std::make_shared<State>();
  State& s = *in->state_;
  s.config = config;
  if (config.scorer == Backend::cpu) {
    s.host_why = "the scorer runs on the CPU";
  } else if (!config.host_reason.empty()) {
    s.host_why = config.host_reason;
  } else if (config.vendor == Vendor::amd) {
    s.host_why = "the scorer runs on an AMD GPU; CUDA memory is NVIDIA's";
  }
  *out = std::move(in);
  return Status::ok();
}

CudaInput::~CudaInput() { (void)close(); }

Status CudaInput::import(GstBuffer* buffer, const GstVideoInfo& info, ImportedPicture* out) {
  State& s = *state_;
  std::unique_lock<std::mutex> lk(s.mu);
  if (s.host_why.empty() && !s.importer_tried) {
    s.importer_tried = true;
    cuda::CudaImporterConfig c;
    c.device_id = s.config.device_id;
    c.allow_copy = s.config.allow_copy;
    std::weak_ptr<State> weak = state_;
    c.on_warning = [weak](const std::string& text) {
      if (auto st = weak.lock()) {
        if (st->config.on_notice) st->config.on_notice(text, true);
      }
    };
    s.importer_status = cuda::CudaImporter::create(c, &s.importer);
    if (!s.importer_status) {
      s.host_why = "no usable NVIDIA device for the CUDA frames (" + s.importer_status.message() + ")";
    } else {
      s.path = "device: " + s.importer->description();
      s.notice("CUDA frames are read on the GPU: " + s.importer->description(), false);
    }
  }
  if (!s.host_why.empty()) {
    const std::string text = "CUDA frames are downloaded into system memory (allow-copy=" +
                             std::string(s.config.allow_copy ? "true" : "false") + "): " + s.host_why;
    if (!s.config.allow_copy) return {Errc::unsupported, text + "; allow-copy=false forbids the download"};
    s.path = "download: " + s.host_why;
    s.notice(text, s.config.scorer == Backend::hip);
    lk.unlock();
    // GstCudaMemory's own CPU map downloads the frame into its staging memory.
    VMAFX_TRY(import_system_memory(buffer, info, out).prepend("CUDA frame download"));
    s.frames++;
    s.host_copies++;
    return Status::ok();
  }
  cuda::CudaImporter* importer = s.importer.get();
  lk.unlock();

  cuda::CudaFrame frame;
  std::shared_ptr<HeldBuffer> held;
  VMAFX_TRY(describe_cuda_buffer(buffer, info, &frame, &held));
  std::unique_ptr<cuda::CudaPicture> pic;
  VMAFX_TRY(importer->import(frame, &pic));
  s.frames++;
  const PictureView view = pic->view();
  std::shared_ptr<cuda::CudaPicture> shared(std::move(pic));
  *out = ImportedPicture(view, [shared, held]() mutable {
    shared->release([held]() mutable { held.reset(); });
    held.reset();
  });
  return Status::ok();
}

uint64_t CudaInput::frames_copied() const {
  const CudaInputStats st = stats();
  return st.device_copies + st.host_copies;
}

CudaInputStats CudaInput::stats() const {
  const State& s = *state_;
  CudaInputStats out;
  out.frames = s.frames.load();
  out.host_copies = s.host_copies.load();
  if (s.importer) {
    const cuda::CudaImportStats is = s.importer->stats();
    out.in_place = is.in_place;
    out.device_copies = is.copied;
    out.stream_waits = is.stream_waits;
    out.host_waits = is.host_waits;
    out.pending_releases = is.pending_releases;
  }
  return out;
}

std::string CudaInput::description() const {
  State& s = *state_;
  std::lock_guard<std::mutex> lk(s.mu);
  if (s.importer) return "device: " + s.importer->description();
  return s.path;
}

GstStructure* CudaInput::stats_structure() const {
  const CudaInputStats st = stats();
  const std::string path = description();
  return gst_structure_new("cuda-stats", "path", G_TYPE_STRING, path.c_str(), "frames", G_TYPE_UINT64, st.frames,
                           "in-place", G_TYPE_UINT64, st.in_place, "device-copies", G_TYPE_UINT64, st.device_copies,
                           "host-copies", G_TYPE_UINT64, st.host_copies, "stream-waits", G_TYPE_UINT64,
                           st.stream_waits, "host-waits", G_TYPE_UINT64, st.host_waits, "pending-releases",
                           G_TYPE_UINT64, st.pending_releases, nullptr);
}

Status CudaInput::close() {
  if (!state_) return Status::ok();
  std::lock_guard<std::mutex> lk(state_->mu);
  return state_->importer ? state_->importer->close() : Status::ok();
}

// ---- The memory:CUDAMemory input kind ------------------------------------------------------------------------

namespace {

// One per pad; both pads of a session share the session's CudaInput (one importer on the scorer's device). The
// element imports one frame at a time (its inputs lock), so the shared counters' growth during a pad's import is that
// pad's.
class CudaPadInput final : public Input {
 public:
  explicit CudaPadInput(std::shared_ptr<CudaInput> shared) : shared_(std::move(shared)) {}
  Status import(GstBuffer* buffer, const GstVideoInfo& info, const GstCaps*, ImportedPicture* out) override {
    const CudaInputStats before = shared_->stats();
    Status st = shared_->import(buffer, info, out);
    const CudaInputStats after = shared_->stats();
    own_.frames += after.frames - before.frames;
    own_.in_place += after.in_place - before.in_place;
    own_.device_copies += after.device_copies - before.device_copies;
    own_.host_copies += after.host_copies - before.host_copies;
    return st;
  }
  uint64_t frames_copied() const override { return own_.device_copies + own_.host_copies; }
  std::string description() const override { return "memory:CUDAMemory, " + shared_->description(); }
  // The session's input (both pads) unprefixed, this pad's own frames under `p`.
  bool add_stats(GstStructure* st, const std::string& p) const override {
    GstStructure* all = shared_->stats_structure();
    gst_structure_foreach(
        all,
        [](GQuark field, const GValue* value, gpointer to) -> gboolean {
          gst_structure_id_set_value(static_cast<GstStructure*>(to), field, value);
          return TRUE;
        },
        st);
    gst_structure_free(all);
    gst_structure_set(st, (p + "-frames").c_str(), G_TYPE_UINT64, guint64(own_.frames), (p + "-in-place").c_str(),
                      G_TYPE_UINT64, guint64(own_.in_place), (p + "-device-copies").c_str(), G_TYPE_UINT64,
                      guint64(own_.device_copies), (p + "-host-copies").c_str(), G_TYPE_UINT64,
                      guint64(own_.host_copies), nullptr);
    return true;
  }
  Status close() override { return shared_->close(); }

 private:
  std::shared_ptr<CudaInput> shared_;
  CudaInputStats own_;
};

bool cuda_handles(const GstCaps* caps) { return is_cuda_caps(caps); }

// The formats of GST_VMAFXHIP_CUDA_FORMATS, laid out as in system memory.
bool cuda_format_info(GstVideoFormat format, FormatInfo* out) {
  switch (format) {
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_P010_10LE:
    case GST_VIDEO_FORMAT_P016_LE:
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_YV12:
    case GST_VIDEO_FORMAT_NV21:
    case GST_VIDEO_FORMAT_Y42B:
    case GST_VIDEO_FORMAT_Y444:
    case GST_VIDEO_FORMAT_I420_10LE:
    case GST_VIDEO_FORMAT_I422_10LE:
    case GST_VIDEO_FORMAT_I422_12LE: return format_info_for(format, out);
    default: return false;
  }
}

Status cuda_create(const InputConfig& c, unsigned, std::shared_ptr<void>* shared, std::unique_ptr<Input>* out) {
  std::shared_ptr<CudaInput> in = std::static_pointer_cast<CudaInput>(*shared);
  if (!in) {
    CudaInput::Config cc;
    cc.scorer = c.scorer;
    cc.vendor = c.vendor;
    cc.device_id = c.device_id;
    cc.allow_copy = c.allow_copy;
    cc.host_reason = c.host_reason;
    cc.on_notice = c.on_notice;
    std::unique_ptr<CudaInput> made;
    VMAFX_TRY(CudaInput::create(cc, &made));
    in = std::shared_ptr<CudaInput>(std::move(made));
    *shared = in;
  }
  *out = std::make_unique<CudaPadInput>(in);
  return Status::ok();
}

}  // namespace

const InputKind& cuda_input_kind() {
  // The template caps depend on whether GStreamer's CUDA library opens: decided once, at the first call (class_init).
  static const std::string caps = cuda_template_caps();
  static const InputKind kind = {
      "memory:CUDAMemory", caps.c_str(), cuda_handles, nullptr, cuda_format_info, nullptr, cuda_create, "cuda-stats",
  };
  return kind;
}

}  // namespace vmafx::gst
