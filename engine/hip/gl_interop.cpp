// SPDX-License-Identifier: LGPL-2.1-or-later
// GL textures into device frames through the GPU runtime's GL interop (built with the HIP engine).
#include <epoxy/gl.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "gl/frame.h"
#include "gl/test_hooks.h"
#include "hip/cuda_memory.h"
#include "hip/device.h"
#include "hip/kernels/rgba_luma_impl.h"
#include "hip/module.h"
#include "vmafx/gl.h"

namespace vmafx::gl {

namespace {

constexpr unsigned kGlTexture2D = 0x0DE1;  // GL_TEXTURE_2D
// Result codes with which a runtime declines a request rather than failing: CUDA_ERROR_INVALID_VALUE /
// hipErrorInvalidValue (1), CUDA_ERROR_NOT_SUPPORTED / hipErrorNotSupported (801).
constexpr int kCodeInvalidValue = 1;
constexpr int kCodeNotSupported = 801;

hip::Vendor to_hip(Vendor v) {
  switch (v) {
    case Vendor::amd: return hip::Vendor::amd;
    case Vendor::nvidia: return hip::Vendor::nvidia;
    case Vendor::auto_select: break;
  }
  return hip::Vendor::auto_select;
}

Vendor from_hip(hip::Vendor v) {
  switch (v) {
    case hip::Vendor::amd: return Vendor::amd;
    case hip::Vendor::nvidia: return Vendor::nvidia;
    case hip::Vendor::auto_select: break;
  }
  return Vendor::auto_select;
}

// One call into the runtime's GL interop: counted for tests (they prove that none happens before a passed check).
template <class Entry, class... Args>
int interop(const Entry& e, Args... args) {
  gl_hooks::count(gl_hooks::Count::interop_call);
  return e.fn(args...);
}

bool declined(int code) { return code == kCodeInvalidValue || code == kCodeNotSupported; }

// A device frame of the pool: one allocation, planes at the plan's offsets.
struct PoolFrame {
  hip::DeviceBuffer memory;
  FormatInfo format;
  uint32_t width = 0, height = 0;
  bool in_use = false;
};

// Device frames shared by the importer and the release callbacks it hands out (which may run after it is gone).
struct FramePool {
  std::mutex mutex;
  std::vector<std::unique_ptr<PoolFrame>> frames;

  void put(PoolFrame* f) {
    std::lock_guard<std::mutex> lk(mutex);
    f->in_use = false;
  }
};

bool same_layout(const PoolFrame& f, const FramePlan& p, uint32_t w, uint32_t h) {
  return f.width == w && f.height == h && f.format.format == p.format.format && f.format.chroma == p.format.chroma &&
         f.format.bit_depth == p.format.bit_depth && f.memory.size() >= p.bytes;
}

// GL state the probe changes, restored after it.
class GlTextureStateSaver {
 public:
  GlTextureStateSaver() {
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &texture_);
    glGetIntegerv(GL_UNPACK_ALIGNMENT, &alignment_);
    has_pbo_ = epoxy_is_desktop_gl() ? epoxy_gl_version() >= 21 : epoxy_gl_version() >= 30;
    if (has_pbo_) {
      glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &pbo_);
      glGetIntegerv(GL_UNPACK_ROW_LENGTH, &row_length_);
      if (pbo_) glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
      glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    }
  }
  ~GlTextureStateSaver() {
    glBindTexture(GL_TEXTURE_2D, GLuint(texture_));
    glPixelStorei(GL_UNPACK_ALIGNMENT, alignment_);
    if (has_pbo_) {
      glPixelStorei(GL_UNPACK_ROW_LENGTH, row_length_);
      if (pbo_) glBindBuffer(GL_PIXEL_UNPACK_BUFFER, GLuint(pbo_));
    }
  }

 private:
  GLint texture_ = 0, alignment_ = 4, pbo_ = 0, row_length_ = 0;
  bool has_pbo_ = false;
};

}  // namespace

// ---- Texture ----------------------------------------------------------------------------------------------------

struct Texture::Impl {
  std::shared_ptr<hip::Device> device;
  hip::GraphicsResource resource = nullptr;
  unsigned id = 0;
  uint32_t width = 0, height = 0;
  TexelFormat texel = TexelFormat::r8;

  ~Impl() {
    if (!resource) return;
    {
      hip::ContextScope scope(*device);
      if (scope.status().is_ok()) {
        // A copy out of this texture may still be queued: unregister behind it. This waits only when a texture goes
        // while the device is busy (a pool shrinking, teardown), not per frame: textures live as long as their GL
        // memory, which pools keep.
        if (device->query().code() == Errc::busy) (void)device->synchronize();
        interop(device->api().graphics_unregister, resource);
      }
    }
    gl_hooks::count(gl_hooks::Count::unregistration);
  }
};

Texture::Texture(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Texture::~Texture() = default;
unsigned Texture::id() const { return impl_->id; }
uint32_t Texture::width() const { return impl_->width; }
uint32_t Texture::height() const { return impl_->height; }
TexelFormat Texture::texel() const { return impl_->texel; }

// ---- Importer ---------------------------------------------------------------------------------------------------

struct Importer::Impl {
  std::shared_ptr<hip::Device> device;
  DeviceIdentity identity;
  ContextInfo context;
  std::string probe;
  std::string same_gpu;  // what the same-GPU check decided, and on what grounds
  std::string probe_pending_errors;  // GL errors pending in the context before the probe (not the probe's)

  hip::Module rgba_module;
  hip::TypedKernel<rgba_luma_kernel_fn> rgba_kernel;
  hip::DeviceBuffer rgba_scratch;

  std::shared_ptr<FramePool> pool = std::make_shared<FramePool>();
  ImporterStats stats;

  std::string runtime() const {
    return device->api().library + " (driver " + std::to_string(device->api().driver_version) + ")";
  }

  // Registers texture `id` read-only; unsupported (device untouched) when the runtime declines it.
  Status register_image(unsigned id, unsigned target, uint32_t w, uint32_t h, TexelFormat texel,
                        std::unique_ptr<Texture>* out) {
    if (device->failed()) return device->status();
    const hip::Api& api = device->api();
    if (!api.gl_register_image.fn) return hip::symbol_missing(api, api.gl_register_image.symbol);
    hip::ContextScope scope(*device);
    VMAFX_TRY(scope.status());
    hip::GraphicsResource res = nullptr;
    const int rc = interop(api.gl_register_image, &res, id, target);
    if (rc != 0)
      return {Errc::unsupported, std::string(api.gl_register_image.symbol) + " declined GL texture " +
                                     std::to_string(id) + " (" + std::to_string(w) + "x" + std::to_string(h) + " " +
                                     texel_format_name(texel) + "): " + api.describe(rc) + "; runtime " + runtime()};
    gl_hooks::count(gl_hooks::Count::registration);
    stats.registrations++;
    auto impl = std::make_unique<Texture::Impl>();
    impl->device = device;
    impl->resource = res;
    impl->id = id;
    impl->width = w;
    impl->height = h;
    impl->texel = texel;
    out->reset(new Texture(std::move(impl)));
    return Status::ok();
  }

  // Queues map, copy of rows x row_bytes from the texture's level 0 into dst, unmap on the library stream. The
  // caller holds a ContextScope.
  Status copy_texture(const Texture& t, void* dst, size_t dst_pitch, size_t row_bytes, size_t rows) {
    if (device->failed()) return device->status();
    const hip::Api& api = device->api();
    hip::StreamHandle s = device->stream();
    hip::GraphicsResource res = t.impl_->resource;
    int rc = interop(api.graphics_map, res, s);
    if (rc != 0) return device->fail(api.graphics_map.symbol, rc, __FILE__, __LINE__);
    hip::ArrayHandle array = nullptr;
    rc = interop(api.graphics_mapped_array, &array, res, 0u, 0u);
    const char* failed_symbol = api.graphics_mapped_array.symbol;
    if (rc == 0) {
      rc = interop(api.copy_from_array_2d_async, dst, dst_pitch, array, size_t(0), size_t(0), row_bytes, rows, s);
      failed_symbol = api.copy_from_array_2d_async.symbol;
    }
    const int unmap_rc = interop(api.graphics_unmap, res, s);
    if (rc != 0 && declined(rc))
      return {Errc::unsupported, std::string("the runtime cannot read mapped GL textures: ") + failed_symbol +
                                     " of GL texture " + std::to_string(t.impl_->id) + " (" +
                                     std::to_string(t.impl_->width) + "x" + std::to_string(t.impl_->height) + " " +
                                     texel_format_name(t.impl_->texel) + ", " + std::to_string(row_bytes) + " x " +
                                     std::to_string(rows) + " bytes read) returned " + api.describe(rc) +
                                     "; runtime " + runtime()};
    if (rc != 0) return device->fail(failed_symbol, rc, __FILE__, __LINE__);
    if (unmap_rc != 0) return device->fail(api.graphics_unmap.symbol, unmap_rc, __FILE__, __LINE__);
    return Status::ok();
  }

  Status load_rgba_kernel() {
    if (rgba_kernel) return Status::ok();
    VMAFX_TRY(hip::Module::load(device, "rgba_luma", &rgba_module));
    return rgba_module.function("rgba_luma_kernel", &rgba_kernel);
  }

  Status acquire(const FramePlan& plan, uint32_t w, uint32_t h, PoolFrame** out) {
    std::lock_guard<std::mutex> lk(pool->mutex);
    for (auto& f : pool->frames) {
      if (!f->in_use && same_layout(*f, plan, w, h)) {
        f->in_use = true;
        *out = f.get();
        return Status::ok();
      }
    }
    // A new geometry retires the idle frames of the old one.
    pool->frames.erase(std::remove_if(pool->frames.begin(), pool->frames.end(),
                                      [&](const std::unique_ptr<PoolFrame>& f) {
                                        return !f->in_use && !same_layout(*f, plan, w, h);
                                      }),
                       pool->frames.end());
    auto f = std::make_unique<PoolFrame>();
    VMAFX_TRY(hip::DeviceBuffer::create(device, plan.bytes, &f->memory));
    f->format = plan.format;
    f->width = w;
    f->height = h;
    f->in_use = true;
    *out = f.get();
    pool->frames.push_back(std::move(f));
    stats.device_frames++;
    return Status::ok();
  }

  // The probe: a 7x3 RGBA8 texture of known bytes, registered, mapped, copied, read back and compared. Runs once at
  // create(), after the checks, so that a runtime which maps textures but cannot read them is refused before any
  // frame (ROCm 10.1 returns hipErrorInvalidValue for every read of a mapped GL array).
  Status run_probe() {
    constexpr uint32_t kW = 7, kH = 3;
    uint8_t pixels[kW * kH * 4];
    for (uint32_t i = 0; i < kW * kH * 4; i++) pixels[i] = uint8_t(i * 37 + 11);
    // An error already pending in this context is someone else's (GStreamer's uploads, the runtime's interop): it is
    // read and noted here, not taken for the probe's own.
    std::string pending;
    for (int i = 0; i < 16; i++) {
      const GLenum e = glGetError();
      if (e == GL_NO_ERROR) break;
      pending += (pending.empty() ? "" : ", ") + std::to_string(e);
    }
    if (!pending.empty()) probe_pending_errors = pending;
    GLuint tex = 0;
    {
      GlTextureStateSaver saver;
      glGenTextures(1, &tex);
      glBindTexture(GL_TEXTURE_2D, tex);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
      const bool sized = epoxy_is_desktop_gl() || epoxy_gl_version() >= 30;
      glTexImage2D(GL_TEXTURE_2D, 0, sized ? GL_RGBA8 : GL_RGBA, kW, kH, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    }
    const GLenum gl_error = glGetError();
    if (!tex || gl_error != GL_NO_ERROR) {
      if (tex) glDeleteTextures(1, &tex);
      return {Errc::unsupported, "could not create the GL probe texture (GL error " + std::to_string(gl_error) + ")"};
    }
    Status st = probe_texture(tex, kW, kH, pixels);
    glDeleteTextures(1, &tex);
    return st;
  }

  Status probe_texture(GLuint tex, uint32_t w, uint32_t h, const uint8_t* expected) {
    std::unique_ptr<Texture> t;
    VMAFX_TRY(register_image(tex, kGlTexture2D, w, h, TexelFormat::rgba8, &t).prepend("probe texture"));
    constexpr size_t kPitch = 32;
    hip::DeviceBuffer dev;
    hip::PinnedBuffer host;
    VMAFX_TRY(hip::DeviceBuffer::create(device, kPitch * h, &dev));
    VMAFX_TRY(hip::PinnedBuffer::create(device, kPitch * h, &host));
    {
      hip::ContextScope scope(*device);
      VMAFX_TRY(scope.status());
      VMAFX_TRY(device->memset_d32_async(dev.data(), 0, kPitch * h / 4));
      VMAFX_TRY(copy_texture(*t, dev.data(), kPitch, size_t(w) * 4, h).prepend("probe texture"));
    }
    VMAFX_TRY(device->copy_async(hip::CopyKind::device_to_host, host.data(), dev.data(), kPitch * h));
    VMAFX_TRY(device->synchronize());
    t.reset();  // unregisters (this thread is the GL thread)
    for (uint32_t y = 0; y < h; y++) {
      for (uint32_t x = 0; x < w * 4; x++) {
        const uint8_t got = host.data()[y * kPitch + x], want = expected[y * w * 4 + x];
        if (got != want)
          return {Errc::unsupported, "the runtime reads mapped GL textures wrongly: probe texture byte " +
                                         std::to_string(x) + " of row " + std::to_string(y) + " is " +
                                         std::to_string(got) + ", GL holds " + std::to_string(want) + "; runtime " +
                                         runtime()};
      }
    }
    probe = same_gpu + "; probe " + std::to_string(w) + "x" + std::to_string(h) +
            " RGBA8 texture read back exactly through " + device->api().gl_register_image.symbol + " / " +
            device->api().copy_from_array_2d_async.symbol;
    if (!probe_pending_errors.empty()) probe += " (GL errors pending in the context before it, cleared: " +
                                                probe_pending_errors + ")";
    return Status::ok();
  }
};

Importer::Importer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Importer::~Importer() = default;

bool interop_built() { return true; }

#if VMAFX_TEST_HOOKS
namespace {
std::atomic<uint64_t> g_interop_calls{0};
std::atomic<uint64_t> g_registrations{0};
std::atomic<uint64_t> g_unregistrations{0};
}  // namespace

void gl_hooks::count(Count what) {
  std::atomic<uint64_t>& c = what == Count::interop_call   ? g_interop_calls
                             : what == Count::registration ? g_registrations
                                                           : g_unregistrations;
  c.fetch_add(1, std::memory_order_relaxed);
}

InteropCounters interop_counters() {
  InteropCounters c;
  c.interop_calls = g_interop_calls.load();
  c.registrations = g_registrations.load();
  c.unregistrations = g_unregistrations.load();
  c.live_registrations = c.registrations - c.unregistrations;
  return c;
}
#endif

Status Importer::create(Vendor vendor, int device_id, std::unique_ptr<Importer>* out, ContextInfo* info) {
  out->reset();
  ContextInfo ctx;
  Status st = query_current_context(&ctx);
  if (info) *info = ctx;
  if (!st.is_ok()) return st;

  std::shared_ptr<hip::Device> device;
  Status dev_status = hip::Device::get(to_hip(vendor), device_id, &device);
  DeviceIdentity id;
  if (dev_status.is_ok()) {
    const hip::DeviceInfo& di = device->info();
    id.vendor = from_hip(di.vendor);
    id.index = di.index;
    id.runtime_ordinal = device->api().ordinal_of(di.index);
    id.name = di.name;
    id.pci_bus_id = di.pci_bus_id;
    id.runtime = di.library + " (driver " + std::to_string(di.driver_version) + ")";
    // Same-GPU check (no interop call): the device UUID and how many devices the runtime has.
    if (di.vendor == hip::Vendor::nvidia) id.uuid = hip::cuda_device_uuid(device->api(), di.index);
    id.vendor_devices = device->api().runtime_device_count;  // also those HIP_VISIBLE_DEVICES hides from the engine
  }
  SameGpu same;
  VMAFX_TRY(check_context(ctx, dev_status.is_ok() ? &id : nullptr, dev_status.to_string(), &same));

  // The checks passed: from here on the runtime's interop may be asked.
  const hip::Api& api = device->api();
  if (!api.gl_get_devices.fn || !api.gl_register_image.fn || !api.graphics_map.fn || !api.graphics_unmap.fn ||
      !api.graphics_mapped_array.fn || !api.copy_from_array_2d_async.fn || !api.graphics_unregister.fn)
    return {Errc::unsupported, api.library + " lacks GL interop entry points (" +
                                   [&] {
                                     std::string m;
                                     for (const auto& s : api.missing) m += (m.empty() ? "" : ", ") + s;
                                     return m.empty() ? std::string("?") : m;
                                   }() +
                                   "); " + ctx.describe() + ", device " + id.describe()};
  {
    hip::ContextScope scope(*device);
    VMAFX_TRY(scope.status());
    unsigned count = 0;
    int devices[16] = {};
    const int rc = interop(api.gl_get_devices, &count, devices, 16u);
    if (rc != 0)
      return {Errc::device_unavailable, std::string(api.gl_get_devices.symbol) + " does not see a device of the " +
                                            ctx.describe() + ": " + api.describe(rc) + "; device " + id.describe() +
                                            " (" + same.text + ")"};
    // The same-GPU decision against the runtime's list (docs/gl.md: an empty list with a named GPU is not a refusal).
    VMAFX_TRY(judge_device_list(same, id, devices, std::min(count, 16u), api.gl_get_devices.symbol, ctx.describe(),
                                &same.text));
  }

  auto impl = std::make_unique<Impl>();
  impl->device = device;
  impl->identity = id;
  impl->context = ctx;
  impl->same_gpu = same.text;
  VMAFX_TRY(impl->run_probe().prepend(ctx.describe() + ", device " + id.describe()));
  out->reset(new Importer(std::move(impl)));
  return Status::ok();
}

const DeviceIdentity& Importer::device() const { return impl_->identity; }
const ContextInfo& Importer::context() const { return impl_->context; }
const std::string& Importer::probe_report() const { return impl_->probe; }
ImporterStats Importer::stats() const { return impl_->stats; }
Status Importer::synchronize() { return impl_->device->synchronize(); }

Status Importer::read_plane(const PictureView& picture, unsigned plane, size_t row_bytes, uint32_t rows, uint8_t* dst,
                            size_t dst_pitch) {
  if (picture.memory != MemoryKind::device || picture.device != impl_->identity.index)
    return {Errc::invalid_argument, "read_plane: the picture is not in the memory of " + impl_->identity.describe()};
  if (plane >= 3 || !picture.planes[plane].data || picture.planes[plane].stride <= 0)
    return {Errc::invalid_argument, "read_plane: the picture has no plane " + std::to_string(plane)};
  if (rows == 0 || row_bytes == 0) return Status::ok();
  if (row_bytes > size_t(picture.planes[plane].stride) || dst_pitch < row_bytes)
    return {Errc::invalid_argument, "read_plane: rows of " + std::to_string(row_bytes) + " bytes from a plane of stride " +
                                        std::to_string(picture.planes[plane].stride) + " into rows of " +
                                        std::to_string(dst_pitch)};
  hip::Device& dev = *impl_->device;
  VMAFX_TRY(dev.synchronize());
  hip::Copy2D c;
  c.kind = hip::CopyKind::device_to_host;
  c.dst = dst;
  c.dst_pitch = dst_pitch;
  c.src = picture.planes[plane].data;
  c.src_pitch = size_t(picture.planes[plane].stride);
  c.width_bytes = row_bytes;
  c.height = rows;
  VMAFX_TRY(dev.copy_2d_async(c));
  return dev.synchronize();
}

Status Importer::register_texture(unsigned texture, unsigned target, uint32_t width, uint32_t height,
                                  TexelFormat texel, std::unique_ptr<Texture>* out) {
  if (target != kGlTexture2D)
    return {Errc::unsupported, "GL texture target " + std::to_string(target) + " (only GL_TEXTURE_2D is imported)"};
  if (texture == 0 || width == 0 || height == 0)
    return {Errc::invalid_argument, "GL texture " + std::to_string(texture) + " of " + std::to_string(width) + "x" +
                                        std::to_string(height) + " texels"};
  return impl_->register_image(texture, target, width, height, texel, out);
}

Status Importer::import(const TextureFrame& frame, PictureView* out, std::function<void()>* release) {
  FramePlan plan;
  VMAFX_TRY(plan_frame(frame, &plan));
  for (unsigned i = 0; i < frame.n_planes; i++)
    if (frame.planes[i]->impl_->device != impl_->device)
      return {Errc::invalid_argument, "GL frame plane " + std::to_string(i) + " was registered on another device"};
  Impl& m = *impl_;
  if (frame.rgba) {
    VMAFX_TRY(m.load_rgba_kernel());
    const size_t need = plan.rgba_pitch * frame.height;
    if (m.rgba_scratch.size() < need) {
      // Work queued on the old scratch buffer still reads it: wait once (a new geometry, not a per-frame path).
      VMAFX_TRY(m.device->synchronize());
      m.rgba_scratch.reset();
      VMAFX_TRY(hip::DeviceBuffer::create(m.device, need, &m.rgba_scratch));
    }
  }
  PoolFrame* f = nullptr;
  VMAFX_TRY(m.acquire(plan, frame.width, frame.height, &f));
  std::shared_ptr<FramePool> pool = m.pool;
  auto give_back = [pool, f] { pool->put(f); };
  auto fail = [&](Status s) {
    give_back();
    return s;
  };

  uint8_t* base = f->memory.as<uint8_t>();
  {
    hip::ContextScope scope(*m.device);
    if (!scope.status().is_ok()) return fail(scope.status());
    if (frame.rgba) {
      Status s = m.copy_texture(*frame.planes[0], m.rgba_scratch.data(), plan.rgba_pitch, plan.copy[0].row_bytes,
                                plan.copy[0].rows);
      if (!s.is_ok()) return fail(s);
      const RgbaLumaCoeffs c =
          rgba_luma_coeffs(frame.conversion.matrix == RgbMatrix::bt709 ? RGBA_LUMA_BT709 : RGBA_LUMA_BT601,
                           frame.conversion.range == RgbRange::limited ? RGBA_LUMA_LIMITED_RANGE
                                                                       : RGBA_LUMA_FULL_RANGE);
      const uint32_t w = frame.width, h = frame.height;
      const hip::Dim3 block{RGBA_LUMA_THREADS_X, RGBA_LUMA_THREADS_Y, 1};
      const hip::Dim3 grid{(w + block.x - 1) / block.x, (h + block.y - 1) / block.y, 1};
      s = m.device->launch(m.rgba_kernel, grid, block, 0, m.rgba_scratch.as<const vx_u8>(), vx_u64(plan.rgba_pitch),
                           static_cast<vx_u8*>(base), vx_u64(plan.pitch[0]), w, h, c.cr, c.cg, c.cb, c.offset);
      if (!s.is_ok()) return fail(s);
    } else {
      for (unsigned i = 0; i < plan.n_planes; i++) {
        Status s = m.copy_texture(*frame.planes[i], base + plan.offset[i], plan.pitch[i], plan.copy[i].row_bytes,
                                  plan.copy[i].rows);
        if (!s.is_ok()) return fail(s.prepend("plane " + std::to_string(i)));
      }
    }
  }
  // Submits the queued work now with a query of the library stream: on ROCm 10.1 (a gfx1036, measured) the copy
  // of a texture came out wrong in 8 runs of 8 without it, its unsubmitted work overtaken by later copies.
  (void)m.device->query();
  m.stats.frames++;
  m.stats.planes += plan.n_planes;

  PlaneLayout layout[3];
  for (unsigned i = 0; i < plan.layout_planes; i++) layout[i] = {plan.offset[i], ptrdiff_t(plan.pitch[i])};
  PictureView view;
  Status s = make_picture_view(plan.format, frame.width, frame.height, base, plan.bytes, layout, plan.layout_planes,
                               &view);
  if (!s.is_ok()) return fail(s.prepend("device frame"));
  view.memory = MemoryKind::device;
  view.device = m.identity.index;
  *out = view;
  *release = give_back;
  return Status::ok();
}

}  // namespace vmafx::gl
