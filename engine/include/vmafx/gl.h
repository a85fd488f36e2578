// SPDX-License-Identifier: LGPL-2.1-or-later
// GL texture input (engine/gl; no GStreamer). Everything marked "GL thread" runs on the thread whose GL context is
// current (GStreamer: inside gst_gl_context_thread_add).
//
// The path of a frame held in GL textures:
//   1. Importer::create runs the check: a GL context is current, it is not a software renderer, its vendor and
//      platform are ones the GPU runtime's GL interop takes (NVIDIA: GLX or EGL; AMD: GLX), on EGL's device
//      platform its device is ours; only then does it ask the runtime (hipGLGetDevices / cuGLGetDevices, all
//      devices) whether the context's GPU is the scoring device, and read a probe texture through the interop (a
//      runtime that registers and maps textures but cannot read them, such as ROCm 10.1, is refused there, once,
//      before any frame). Every refusal names the renderer and the device; none calls into the interop before the
//      checks that need no interop call have passed (an older ROCm crashes after a failed set-up).
//   2. Each texture is registered read-only once (Texture, cached by the caller per GL memory) and unregistered when
//      the Texture is destroyed, on the GL thread.
//   3. Importer::import maps the frame's textures on the device's library stream, copies them into device planes
//      (RGBA is converted to luma there, rgba_to_luma's arithmetic), unmaps them on the same stream, and hands back a
//      device picture. GL work the producer issues after import() returns runs after the copies (the runtime's unmap
//      guarantees it), so a texture can go back to its producer as soon as import() has returned.
// Without a device, or when the check refuses, callers read the textures through GL into system memory and score
// that (RGBA converted on the host by rgba_to_luma, same bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "vmafx/picture.h"
#include "vmafx/devices.h"
#include "vmafx/status.h"

namespace vmafx::gl {

// ---- The GL context ------------------------------------------------------------------------------------------

enum class Platform : uint8_t { none, glx, egl };
const char* platform_name(Platform p);  // "none", "GLX", "EGL"

struct ContextInfo {
  Platform platform = Platform::none;
  std::string vendor;    // GL_VENDOR
  std::string renderer;  // GL_RENDERER
  std::string version;   // GL_VERSION
  bool software = false;     // a software rasteriser (llvmpipe, softpipe, swrast, ...)
  int egl_cuda_device = -1;  // EGL: the CUDA ordinal of the display's EGLDevice (EGL_NV_device_cuda), else -1
  std::string egl_device;    // EGL: the display's device (DRM node or its extensions), for messages
  // Which GPU the context renders on, where GL or the window system says (the same-GPU check; GL calls only):
  std::string pci_bus_id;   // "0000:41:00.0": EGL_EXT_device_drm's node in sysfs, or Mesa's AMD device UUID
  std::string device_uuid;  // GL_EXT_memory_object's GL_DEVICE_UUID_EXT as 32 hex digits (NVIDIA: CUDA's UUID)
  std::string identity;     // how pci_bus_id / device_uuid were found, for messages
  // "EGL context, renderer 'NVIDIA H200/PCIe/SSE2' (vendor 'NVIDIA Corporation')"
  std::string describe() const;
};

// GL thread. What the current context is; Errc::unsupported when no GLX or EGL context is current on this thread.
// Asks GL and the window system only (no GPU runtime call).
Status query_current_context(ContextInfo* out);

// True for renderers that rasterise on the CPU: llvmpipe, softpipe, swrast, "Software Rasterizer", lavapipe, SWR.
bool is_software_renderer(std::string_view renderer);

// The GPU the engine scores on, as the check sees it.
struct DeviceIdentity {
  Vendor vendor = Vendor::auto_select;  // amd or nvidia
  int index = -1;                       // the engine's device index (the picture's device)
  // The runtime's own ordinal of the device (CUDA's: what EGL_NV_device_cuda and cuGLGetDevices name), which
  // HIP_VISIBLE_DEVICES on NVIDIA makes differ from `index`; -1: the same as `index`.
  int runtime_ordinal = -1;
  std::string name;                     // "NVIDIA H200"
  std::string pci_bus_id;               // "0000:00:06.0"
  std::string runtime;                  // "libcuda.so.1 (driver 13000)"
  std::string uuid;                     // NVIDIA: cuDeviceGetUuid as 32 hex digits, else ""
  int vendor_devices = 0;               // devices the runtime has (the renderer-name rule needs it to be 1)
  int ordinal() const { return runtime_ordinal >= 0 ? runtime_ordinal : index; }
  // "nvidia device 0 'NVIDIA H200' (PCI 0000:00:06.0)"
  std::string describe() const;
};

// The checks that need no call into the GPU runtime's interop, in order: a context is current; it is not a
// software renderer; there is a device (`device` null: none, `no_device_reason` says why); the GL vendor is the
// device's vendor; the platform is one that vendor's interop takes (NVIDIA: GLX, EGL; AMD: GLX only); on EGL with a
// known CUDA ordinal, it is the device's. A refusal is Errc::device_unavailable (not our GPU) or Errc::unsupported
// (a platform the runtime does not take), and its message names the renderer and the device.
//
// The same-GPU step, before any interop call: the context's PCI bus id (or, on NVIDIA, its device UUID, or on EGL its
// CUDA ordinal) must be the device's; a mismatch is refused naming both. Where nothing names the context's GPU, the
// rule (docs/gl.md): the renderer must name the device ("NVIDIA H200/PCIe/SSE2" names "NVIDIA H200") and the runtime
// must have only that one device; otherwise NVIDIA leaves the decision to the runtime's GL device list and AMD is
// refused (ROCm must not see another GPU's context). `same_gpu` (may be null) receives the decision and its grounds.
struct SameGpu {
  enum class Basis : uint8_t { identity, rule, device_list } basis = Basis::device_list;
  std::string text;  // "PCI bus id 0000:41:00.0 (EGL_EXT_device_drm ...) is the device's", "by rule: ...", ...
};
Status check_context(const ContextInfo& ctx, const DeviceIdentity* device, const std::string& no_device_reason,
                     SameGpu* same_gpu = nullptr);
// The PCI address Mesa's AMD drivers (radeonsi, radv) encode as their device UUID (four little-endian 32-bit words:
// domain, bus, device, function), "" when the 16 bytes are not of that shape.
std::string pci_from_mesa_amd_uuid(const unsigned char uuid[16]);
// "0000:41:00.0" from any of "41:00.0", "0000:41:00.0", "00000000:41:00.0" (CUDA's and HIP's spellings), lower case;
// "" when `id` is not a PCI address.
std::string normalize_pci_bus_id(std::string_view id);
// The runtime's GL device list (count `count` of `devices`) against the decision `same` for `device` (Importer::create,
// after cuGLGetDevices / hipGLGetDevices returned success): ok when the list has the device, or is empty while the
// identity or the rule decided; Errc::device_unavailable naming the list otherwise. `*text` says what was decided.
Status judge_device_list(const SameGpu& same, const DeviceIdentity& device, const int* devices, unsigned count,
                         const std::string& symbol, const std::string& context, std::string* text);

// ---- RGBA to luma (GPU kernel and host, same integers) ---------------------------------------------------------

enum class RgbMatrix : uint8_t { bt601, bt709 };
enum class RgbRange : uint8_t { full, limited };  // range of the RGB input; the luma is always limited (16..235)

struct LumaConversion {
  RgbMatrix matrix = RgbMatrix::bt601;
  RgbRange range = RgbRange::full;
};
const char* matrix_name(RgbMatrix m);  // "bt601", "bt709"
const char* range_name(RgbRange r);    // "full", "limited"

// Host: Y = (cr R + cg G + cb B + offset) >> 16 per pixel, the coefficients of engine/hip/kernels/rgba_luma_impl.h.
// `rgba` holds width x height pixels of 4 bytes (R, G, B, A) per row of `rgba_stride` bytes.
Status rgba_to_luma(const uint8_t* rgba, ptrdiff_t rgba_stride, uint32_t width, uint32_t height,
                    const LumaConversion& conversion, uint8_t* luma, ptrdiff_t luma_stride);

// ---- Registered textures and the import -------------------------------------------------------------------------

// What a texture holds, per texel.
enum class TexelFormat : uint8_t { r8, rg8, r16, rg16, rgba8 };
unsigned texel_bytes(TexelFormat f);
const char* texel_format_name(TexelFormat f);

// A GL texture registered read-only with the GPU runtime. Destroy it on the GL thread (it unregisters there), before
// the texture is deleted. It keeps its device alive, so it may outlive the Importer that made it.
class Texture {
 public:
  ~Texture();
  Texture(const Texture&) = delete;
  Texture& operator=(const Texture&) = delete;
  unsigned id() const;
  uint32_t width() const;   // texels, as given at registration
  uint32_t height() const;
  TexelFormat texel() const;

  struct Impl;

 private:
  friend class Importer;
  explicit Texture(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// One frame in textures. YUV: planes in the video format's plane order (I420: Y, U, V as R8; NV12: Y as R8, UV as
// RG8; P010: R16 + RG16 with the 10 bits high; YV12: Y, V, U), scored in `format`. RGBA: one RGBA8 texture, scored
// as 8-bit luma (Chroma::k400) converted with `conversion`.
struct TextureFrame {
  bool rgba = false;
  LumaConversion conversion;  // rgba only
  FormatInfo format;          // YUV only
  uint32_t width = 0, height = 0;  // luma size
  const Texture* planes[3] = {nullptr, nullptr, nullptr};
  unsigned n_planes = 0;
};

// The layout a picture of `frame` has once imported: 8-bit gray for RGBA, else `frame.format`.
FormatInfo imported_format(const TextureFrame& frame);

struct ImporterStats {
  uint64_t frames = 0;         // frames imported
  uint64_t planes = 0;         // textures copied
  uint64_t registrations = 0;  // textures registered by this importer
  uint64_t device_frames = 0;  // device frames allocated (the pool's size; steady once the scorer's window is full)
};

class Importer {
 public:
  // GL thread, the context current. Opens the device (`vendor`, `device_id` -1: the first) the way the scorer does,
  // so both share its library stream, then runs the check of this header's first paragraph. `info` (may be null)
  // receives what the context is, refused or not.
  static Status create(Vendor vendor, int device_id, std::unique_ptr<Importer>* out, ContextInfo* info = nullptr);
  ~Importer();
  Importer(const Importer&) = delete;
  Importer& operator=(const Importer&) = delete;

  const DeviceIdentity& device() const;
  const ContextInfo& context() const;
  // The probe read at create(): "probe 7x3 RGBA8 texture read back exactly through cuGraphicsGLRegisterImage ...".
  const std::string& probe_report() const;

  // GL thread. Registers `texture` (GL_TEXTURE_2D, `width` x `height` texels of `texel`) read-only. A runtime that
  // declines it is Errc::unsupported, and the device stays usable.
  Status register_texture(unsigned texture, unsigned target, uint32_t width, uint32_t height, TexelFormat texel,
                          std::unique_ptr<Texture>* out);

  // GL thread. Queues on the device's library stream, per texture: map, copy into a device frame (RGBA: then the
  // luma conversion), unmap. `*out` is a device picture (MemoryKind::device) of imported_format(frame) that stays
  // valid until `*release` is called (from any thread); the frame's memory is reused after that. Never waits on the
  // host. A runtime that cannot read a mapped texture is Errc::unsupported naming the texture's extent and the
  // runtime, not a device failure.
  Status import(const TextureFrame& frame, PictureView* out, std::function<void()>* release);

  // Host waits for everything queued on the library stream (tests, teardown).
  Status synchronize();

  // Host copy of `rows` rows of `row_bytes` from the first byte of plane `plane` of a device picture this importer
  // made (rows `stride` apart there), into `dst` (rows `dst_pitch` apart). Waits for the library stream first, so the
  // copy sees every import queued before it. Diagnostics (DiagnosticSwitches::verify) and tests.
  Status read_plane(const PictureView& picture, unsigned plane, size_t row_bytes, uint32_t rows, uint8_t* dst,
                    size_t dst_pitch);

  ImporterStats stats() const;

  struct Impl;

 private:
  explicit Importer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Diagnostic switches of the GL input. Only a build with test hooks (-Dtest-hooks, on when the tests are built) reads
// them from the environment (at each call); in any other build both are false and the environment is not read.
//   verify         VMAFX_GL_VERIFY=1: every zero-copy frame is also downloaded through GL and compared with the
//                  device frame the scorer reads (the element's gl-stats: verified, verify-mismatches, verify-first)
//   force_interop  VMAFX_GL_FORCE_INTEROP=1: frames still in system memory go through GStreamer's upload into their
//                  textures and the interop too, as GPU-rendered ones do
struct DiagnosticSwitches {
  bool verify = false;
  bool force_interop = false;
};
DiagnosticSwitches diagnostic_switches();

// True when this build has the HIP engine (else Importer::create is Errc::device_unavailable and only the host path
// exists).
bool interop_built();

}  // namespace vmafx::gl
