// SPDX-License-Identifier: LGPL-2.1-or-later
// What the current GL context is, and the checks that need no call into the GPU runtime's interop.
#include <dlfcn.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>

#include "vmafx/gl.h"

namespace vmafx::gl {

namespace {

// The current context of a platform, asked only of a window-system library the process has already loaded: a
// context can be current only through a library that is loaded, and asking an absent one would make libepoxy abort.
void* loaded_symbol(const char* const* libraries, const char* symbol) {
  for (const char* const* lib = libraries; *lib; lib++) {
    void* h = dlopen(*lib, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) continue;
    void* fn = dlsym(h, symbol);
    dlclose(h);  // drops the reference RTLD_NOLOAD took; the library stays loaded by whoever loaded it
    if (fn) return fn;
  }
  return nullptr;
}

bool glx_context_current() {
  static const char* const libs[] = {"libGLX.so.0", "libGL.so.1", nullptr};
  using Fn = void* (*)();
  auto fn = reinterpret_cast<Fn>(loaded_symbol(libs, "glXGetCurrentContext"));
  return fn && fn() != nullptr;
}

bool egl_context_current() {
  static const char* const libs[] = {"libEGL.so.1", nullptr};
  using Fn = void* (*)();
  auto fn = reinterpret_cast<Fn>(loaded_symbol(libs, "eglGetCurrentContext"));
  return fn && fn() != nullptr;
}

std::string gl_string(GLenum name) {
  const GLubyte* s = glGetString(name);
  return s ? reinterpret_cast<const char*>(s) : "";
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

bool contains(const std::string& haystack, const char* needle) { return haystack.find(needle) != std::string::npos; }

// The EGLDevice behind the current display: its CUDA ordinal (NVIDIA) and a name for messages.
void query_egl_device(ContextInfo* info) {
  EGLDisplay dpy = eglGetCurrentDisplay();
  if (dpy == EGL_NO_DISPLAY) return;
  if (!epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_EXT_device_query") &&
      !epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_EXT_device_base"))
    return;
  EGLAttrib attrib = 0;
  if (!eglQueryDisplayAttribEXT(dpy, EGL_DEVICE_EXT, &attrib) || !attrib) return;
  auto dev = reinterpret_cast<EGLDeviceEXT>(attrib);
  const char* ext = eglQueryDeviceStringEXT(dev, EGL_EXTENSIONS);
  const std::string exts = ext ? ext : "";
  if (epoxy_extension_in_string(exts.c_str(), "EGL_EXT_device_drm")) {
    const char* node = eglQueryDeviceStringEXT(dev, EGL_DRM_DEVICE_FILE_EXT);
    if (node) info->egl_device = node;
  }
  if (epoxy_extension_in_string(exts.c_str(), "EGL_NV_device_cuda")) {
    EGLAttrib cuda = -1;
    if (eglQueryDeviceAttribEXT(dev, EGL_CUDA_DEVICE_NV, &cuda)) info->egl_cuda_device = int(cuda);
    if (info->egl_device.empty()) info->egl_device = "CUDA device " + std::to_string(info->egl_cuda_device);
  }
  if (info->egl_device.empty()) info->egl_device = exts.empty() ? "EGL device" : "EGL device (" + exts + ")";
}

// ---- Which GPU the context renders on (the same-GPU check) --------------------------------------------------

// The PCI address of a DRM device node: /sys/dev/char/<major>:<minor>/device links to the PCI device.
std::string pci_of_drm_node(const std::string& node) {
  struct stat st;
  if (node.empty() || stat(node.c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) return "";
  char link[64];
  std::snprintf(link, sizeof link, "/sys/dev/char/%u:%u/device", major(st.st_rdev), minor(st.st_rdev));
  char target[PATH_MAX];
  if (!realpath(link, target)) return "";
  const char* base = std::strrchr(target, '/');
  return normalize_pci_bus_id(base ? base + 1 : target);
}

// Mesa's AMD drivers (radeonsi, radv) make the device UUID of the PCI address: four little-endian 32-bit words,
// domain, bus, device, function (ac_compute_device_uuid). "" when the bytes are not of that shape.
}  // namespace

std::string pci_from_mesa_amd_uuid(const unsigned char uuid[16]) {
  uint32_t w[4];
  for (int i = 0; i < 4; i++)
    w[i] = uint32_t(uuid[4 * i]) | uint32_t(uuid[4 * i + 1]) << 8 | uint32_t(uuid[4 * i + 2]) << 16 |
           uint32_t(uuid[4 * i + 3]) << 24;
  if (w[0] > 0xffff || w[1] > 0xff || w[2] > 0x1f || w[3] > 7 || (w[1] == 0 && w[2] == 0 && w[3] == 0)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", w[0], w[1], w[2], w[3]);
  return buf;
}

namespace {

void query_identity(ContextInfo* info, Vendor gl_vendor) {
  // GL_EXT_memory_object: the device UUID (NVIDIA: the one CUDA reports; Mesa AMD: the PCI address).
  // No glGetError here: with the extension both queries are valid, and an error pending in the context is someone
  // else's (the import reports GStreamer's upload errors; the probe notes what was pending).
  if (epoxy_has_gl_extension("GL_EXT_memory_object")) {
    GLint n = 0;
    glGetIntegerv(GL_NUM_DEVICE_UUIDS_EXT, &n);
    if (n >= 1) {
      unsigned char uuid[16] = {};
      glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, uuid);
      bool any = false;
      for (unsigned char b : uuid) any = any || b != 0;
      if (any) {
        char hex[33];
        for (int i = 0; i < 16; i++) std::snprintf(hex + 2 * i, 3, "%02x", uuid[i]);
        info->device_uuid = hex;
        info->identity = "GL_EXT_memory_object device UUID " + info->device_uuid;
        const std::string version = info->version;
        if (gl_vendor == Vendor::amd && version.find("Mesa") != std::string::npos) {
          info->pci_bus_id = pci_from_mesa_amd_uuid(uuid);
          if (!info->pci_bus_id.empty()) info->identity += " (Mesa: PCI " + info->pci_bus_id + ")";
        }
      }
    }
  }
  // EGL with a DRM node: the node's PCI device.
  if (info->platform == Platform::egl && info->pci_bus_id.empty() && info->egl_device.rfind("/dev/", 0) == 0) {
    info->pci_bus_id = pci_of_drm_node(info->egl_device);
    if (!info->pci_bus_id.empty())
      info->identity += std::string(info->identity.empty() ? "" : "; ") + "EGL_EXT_device_drm " + info->egl_device +
                        " is PCI " + info->pci_bus_id;
  }
}

bool names_device(const std::string& renderer, const std::string& device_name) {
  return !device_name.empty() && lower(renderer).find(lower(device_name)) != std::string::npos;
}

Vendor gl_vendor_of(const ContextInfo& ctx) {
  const std::string v = lower(ctx.vendor), r = lower(ctx.renderer);
  if (contains(v, "nvidia") || contains(r, "nvidia")) return Vendor::nvidia;
  // Mesa's radeonsi: vendor "AMD" (older: "X.Org") with renderer "AMD Radeon ..."; AMD's own driver: "ATI
  // Technologies Inc." / "Advanced Micro Devices".
  if (contains(v, "amd") || contains(v, "ati technologies") || contains(v, "advanced micro devices") ||
      contains(r, "radeon") || contains(r, "amd ") || contains(r, "instinct"))
    return Vendor::amd;
  return Vendor::auto_select;
}

}  // namespace

const char* platform_name(Platform p) {
  switch (p) {
    case Platform::none: return "none";
    case Platform::glx: return "GLX";
    case Platform::egl: return "EGL";
  }
  return "?";
}

std::string ContextInfo::describe() const {
  if (platform == Platform::none) return "no GL context";
  std::string s = std::string(platform_name(platform)) + " context, renderer '" + renderer + "' (vendor '" + vendor +
                  "', " + version + ")";
  if (!egl_device.empty()) s += " on " + egl_device;
  return s;
}

std::string DeviceIdentity::describe() const {
  std::string s = std::string(vendor_name(vendor)) + " device " + std::to_string(index) +
                  (ordinal() != index ? " (runtime ordinal " + std::to_string(ordinal()) + ")" : std::string()) +
                  " '" + name + "'";
  if (!pci_bus_id.empty()) s += " (PCI " + pci_bus_id + ")";
  return s;
}

bool is_software_renderer(std::string_view renderer) {
  const std::string r = lower(renderer);
  static const char* const kSoftware[] = {"llvmpipe", "softpipe", "swrast", "software rasterizer", "lavapipe",
                                          "swr (", "microsoft basic render"};
  for (const char* s : kSoftware)
    if (contains(r, s)) return true;
  return false;
}

Status query_current_context(ContextInfo* out) {
  ContextInfo info;
  // EGL first: a process may have both libraries loaded, and GStreamer on the EGL device platform has no GLX.
  if (egl_context_current()) {
    info.platform = Platform::egl;
  } else if (glx_context_current()) {
    info.platform = Platform::glx;
  } else {
    *out = info;
    return {Errc::unsupported, "no GLX or EGL context is current on this thread"};
  }
  info.vendor = gl_string(GL_VENDOR);
  info.renderer = gl_string(GL_RENDERER);
  info.version = gl_string(GL_VERSION);
  info.software = is_software_renderer(info.renderer);
  if (info.platform == Platform::egl) query_egl_device(&info);
  query_identity(&info, gl_vendor_of(info));  // software renderers too: refused before it matters, but named
  *out = info;
  return Status::ok();
}

std::string normalize_pci_bus_id(std::string_view id) {
  unsigned domain = 0, bus = 0, dev = 0, func = 0;
  char tail = 0;
  const std::string s(id);
  int n = std::sscanf(s.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &dev, &func, &tail);
  if (n != 4) {
    domain = 0;
    n = std::sscanf(s.c_str(), "%x:%x.%x%c", &bus, &dev, &func, &tail);
    if (n != 3) return "";
  }
  if (domain > 0xffff || bus > 0xff || dev > 0x1f || func > 7) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain, bus, dev, func);
  return buf;
}

Status check_context(const ContextInfo& ctx, const DeviceIdentity* device, const std::string& no_device_reason,
                     SameGpu* same_gpu) {
  const std::string dev = device ? device->describe() : "no GPU (" + no_device_reason + ")";
  const std::string the_context = std::string("the ") + platform_name(ctx.platform) + " context's";
  if (ctx.platform == Platform::none)
    return {Errc::unsupported, "no GLX or EGL context is current on the GL thread; device: " + dev};
  if (ctx.software)
    return {Errc::device_unavailable, the_context + " renderer '" + ctx.renderer + "' (vendor '" + ctx.vendor +
                                          "') is a software renderer, not the GPU; device: " + dev +
                                          "; GL textures cannot be shared with the device"};
  if (!device)
    return {Errc::device_unavailable, "no GPU to share the GL renderer '" + ctx.renderer + "' with: " +
                                          no_device_reason};
  const Vendor gl_vendor = gl_vendor_of(ctx);
  if (gl_vendor != device->vendor)
    return {Errc::device_unavailable,
            the_context + " renderer '" + ctx.renderer + "' (vendor '" + ctx.vendor + "') is not driven by the " +
                vendor_name(device->vendor) + " driver of " + dev +
                "; the runtime's GL interop takes contexts of its own GPU only"};
  if (device->vendor == Vendor::amd && ctx.platform != Platform::glx)
    return {Errc::unsupported, std::string("the GL context is ") + platform_name(ctx.platform) + " (renderer '" +
                                   ctx.renderer + "'); ROCm's HIP-GL interop takes GLX contexts only; device: " + dev};
  if (ctx.platform == Platform::egl && device->vendor == Vendor::nvidia && ctx.egl_cuda_device >= 0 &&
      ctx.egl_cuda_device != device->ordinal())
    return {Errc::device_unavailable, "the EGL context's device is CUDA device " +
                                          std::to_string(ctx.egl_cuda_device) + " (renderer '" + ctx.renderer +
                                          "'), not " + dev};
  // The same GPU, by what names it, before any interop call.
  SameGpu same;
  const std::string ours = normalize_pci_bus_id(device->pci_bus_id);
  if (!ctx.pci_bus_id.empty() && !ours.empty()) {
    if (ctx.pci_bus_id != ours)
      return {Errc::device_unavailable, the_context + " GPU is PCI " + ctx.pci_bus_id + " (" + ctx.identity +
                                            "; renderer '" + ctx.renderer + "'), not " + dev};
    same = {SameGpu::Basis::identity, "PCI bus id " + ours + " (" + ctx.identity + ") is the device's"};
  } else if (ctx.platform == Platform::egl && device->vendor == Vendor::nvidia && ctx.egl_cuda_device >= 0) {
    same = {SameGpu::Basis::identity, "the EGL device's CUDA ordinal " + std::to_string(ctx.egl_cuda_device) +
                                          " (EGL_NV_device_cuda) is the device's"};
  } else if (!ctx.device_uuid.empty() && !device->uuid.empty() && device->vendor == Vendor::nvidia) {
    if (ctx.device_uuid != device->uuid)
      return {Errc::device_unavailable, the_context + " GPU has device UUID " + ctx.device_uuid +
                                            " (GL_EXT_memory_object; renderer '" + ctx.renderer + "'), " + dev +
                                            " has " + device->uuid};
    same = {SameGpu::Basis::identity, "device UUID " + device->uuid + " (GL_EXT_memory_object) is the device's"};
  } else if (names_device(ctx.renderer, device->name) && device->vendor_devices == 1) {
    same = {SameGpu::Basis::rule, "by rule: nothing names the context's GPU, its renderer '" + ctx.renderer +
                                      "' names " + device->name + " and the runtime has that one device only"};
  } else if (device->vendor == Vendor::amd) {
    const std::string why = names_device(ctx.renderer, device->name)
                                ? "the renderer names the device but the runtime has " +
                                      std::to_string(device->vendor_devices) + " devices"
                                : std::string("the renderer does not name the device");
    return {Errc::device_unavailable, "nothing names the GPU of " + ctx.describe() + " (no PCI bus id, no device UUID; " +
                                          why + "), and ROCm's GL interop must not be handed another GPU's context; " +
                                          "device: " + dev};
  } else {
    same = {SameGpu::Basis::device_list, "nothing names the context's GPU (renderer '" + ctx.renderer + "', " +
                                             std::to_string(device->vendor_devices) +
                                             " device(s)): the runtime's GL device list decides"};
  }
  if (same_gpu) *same_gpu = same;
  return Status::ok();
}

Status judge_device_list(const SameGpu& same, const DeviceIdentity& device, const int* devices, unsigned count,
                         const std::string& symbol, const std::string& context, std::string* text) {
  bool ours = false;
  std::string listed;
  for (unsigned i = 0; i < count; i++) {
    ours = ours || devices[i] == device.ordinal();
    listed += (listed.empty() ? "" : ", ") + std::to_string(devices[i]);
  }
  if (ours) {
    *text = "same GPU: " + same.text + "; " + symbol + " lists it [" + listed + "]";
    return Status::ok();
  }
  if (count > 0)
    return {Errc::device_unavailable,
            symbol + " places the " + context + " on device(s) [" + listed + "], not on " + device.describe()};
  if (same.basis == SameGpu::Basis::device_list)
    return {Errc::device_unavailable, symbol + " lists no device for the " + context + " and " + same.text +
                                          "; device " + device.describe()};
  *text = "same GPU: " + same.text + "; " + symbol + " listed no device (the empty list is not taken as a refusal: " +
          (same.basis == SameGpu::Basis::identity ? "the identity decided)" : "the rule decided)");
  return Status::ok();
}

}  // namespace vmafx::gl
