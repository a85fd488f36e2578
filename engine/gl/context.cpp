// SPDX-License-Identifier: LGPL-2.1-or-later
// What the current GL context is, and the checks that need no call into the GPU runtime's interop.
#include <dlfcn.h>
#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <algorithm>
#include <cctype>
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
  std::string s = std::string(vendor_name(vendor)) + " device " + std::to_string(index) + " '" + name + "'";
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
  *out = info;
  return Status::ok();
}

Status check_context(const ContextInfo& ctx, const DeviceIdentity* device, const std::string& no_device_reason) {
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
      ctx.egl_cuda_device != device->index)
    return {Errc::device_unavailable, "the EGL context's device is CUDA device " +
                                          std::to_string(ctx.egl_cuda_device) + " (renderer '" + ctx.renderer +
                                          "'), not " + dev};
  return Status::ok();
}

}  // namespace vmafx::gl
