// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_test_context.h"

#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <epoxy/glx.h>
// Xlib defines Status as a macro; this file means vmafx::Status.
#undef Status

#include <cstdlib>
#include <string>

namespace vmafx::gl::test {

namespace {

std::string egl_error() {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%04x", unsigned(eglGetError()));
  return buf;
}

bool client_has(const char* ext) { return epoxy_has_egl_extension(EGL_NO_DISPLAY, ext); }

std::vector<EGLDeviceEXT> egl_devices(std::string* why) {
  std::vector<EGLDeviceEXT> out;
  if (!epoxy_has_egl()) {
    *why = "no EGL library";
    return out;
  }
  if (!client_has("EGL_EXT_device_enumeration") && !client_has("EGL_EXT_device_base")) {
    *why = "EGL has no EGL_EXT_device_enumeration";
    return out;
  }
  EGLint n = 0;
  if (!eglQueryDevicesEXT(0, nullptr, &n) || n <= 0) {
    *why = "eglQueryDevicesEXT found no device (" + egl_error() + ")";
    return out;
  }
  out.resize(size_t(n));
  eglQueryDevicesEXT(n, out.data(), &n);
  out.resize(size_t(n));
  return out;
}

std::string device_extensions(EGLDeviceEXT d) {
  const char* s = eglQueryDeviceStringEXT(d, EGL_EXTENSIONS);
  return s ? s : "";
}

}  // namespace

TestGlContext::~TestGlContext() { reset(); }

void TestGlContext::reset() {
  if (egl_display_) {
    eglMakeCurrent(egl_display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (egl_surface_) eglDestroySurface(egl_display_, egl_surface_);
    if (egl_context_) eglDestroyContext(egl_display_, egl_context_);
    eglTerminate(egl_display_);
  }
  egl_display_ = egl_context_ = egl_surface_ = nullptr;
  if (x_display_) {
    auto* dpy = static_cast<Display*>(x_display_);
    glXMakeContextCurrent(dpy, None, None, nullptr);
    if (glx_pbuffer_) glXDestroyPbuffer(dpy, glx_pbuffer_);
    if (glx_context_) glXDestroyContext(dpy, static_cast<GLXContext>(glx_context_));
    XCloseDisplay(dpy);
  }
  x_display_ = glx_context_ = glx_config_ = nullptr;
  glx_pbuffer_ = 0;
}

Status TestGlContext::create_glx(TestGlContext* out) {
  out->reset();
  const char* name = std::getenv("DISPLAY");
  if (!name || !*name) return {Errc::device_unavailable, "DISPLAY is not set (run under Xvfb: ./test.sh does)"};
  Display* dpy = XOpenDisplay(nullptr);
  if (!dpy) return {Errc::device_unavailable, std::string("cannot open X display ") + name};
  out->x_display_ = dpy;
  if (!epoxy_has_glx(dpy)) return {Errc::device_unavailable, std::string("X display ") + name + " has no GLX"};
  const int attrs[] = {GLX_DRAWABLE_TYPE, GLX_PBUFFER_BIT, GLX_RENDER_TYPE, GLX_RGBA_BIT, None};
  int n = 0;
  GLXFBConfig* cfgs = glXChooseFBConfig(dpy, DefaultScreen(dpy), attrs, &n);
  if (!cfgs || n == 0) return {Errc::device_unavailable, "no GLX pbuffer config on display " + std::string(name)};
  GLXFBConfig cfg = cfgs[0];
  XFree(cfgs);
  out->glx_config_ = cfg;
  GLXContext ctx = glXCreateNewContext(dpy, cfg, GLX_RGBA_TYPE, nullptr, True);
  if (!ctx) return {Errc::device_unavailable, "glXCreateNewContext failed on display " + std::string(name)};
  out->glx_context_ = ctx;
  const int pb_attrs[] = {GLX_PBUFFER_WIDTH, 16, GLX_PBUFFER_HEIGHT, 16, None};
  out->glx_pbuffer_ = glXCreatePbuffer(dpy, cfg, pb_attrs);
  VMAFX_TRY(out->make_current());
  out->description_ = std::string("GLX on ") + name;
  return Status::ok();
}

Status TestGlContext::create_egl_on(void* device, const std::string& what) {
  EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, device, nullptr);
  if (dpy == EGL_NO_DISPLAY) return {Errc::device_unavailable, "no EGL display for " + what + " (" + egl_error() + ")"};
  EGLint major = 0, minor = 0;
  if (!eglInitialize(dpy, &major, &minor))
    return {Errc::device_unavailable, "eglInitialize failed for " + what + " (" + egl_error() + ")"};
  egl_display_ = dpy;
  const bool desktop = eglBindAPI(EGL_OPENGL_API);
  if (!desktop && !eglBindAPI(EGL_OPENGL_ES_API))
    return {Errc::device_unavailable, "neither OpenGL nor OpenGL ES on " + what};
  const bool surfaceless = epoxy_has_egl_extension(dpy, "EGL_KHR_surfaceless_context");
  const EGLint renderable = desktop ? EGL_OPENGL_BIT : EGL_OPENGL_ES2_BIT;
  const EGLint with_pbuffer[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, renderable, EGL_NONE};
  const EGLint any_surface[] = {EGL_SURFACE_TYPE, EGL_DONT_CARE, EGL_RENDERABLE_TYPE, renderable, EGL_NONE};
  EGLConfig cfg = nullptr;
  EGLint n = 0;
  bool pbuffer = eglChooseConfig(dpy, with_pbuffer, &cfg, 1, &n) && n > 0;
  if (!pbuffer && !(surfaceless && eglChooseConfig(dpy, any_surface, &cfg, 1, &n) && n > 0))
    return {Errc::device_unavailable, "no EGL config on " + what + " (" + egl_error() + ")"};
  const EGLint ctx_attrs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
  egl_context_ = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, desktop ? nullptr : ctx_attrs);
  egl_config_ = cfg;
  egl_desktop_ = desktop;
  if (!egl_context_) return {Errc::device_unavailable, "eglCreateContext failed on " + what + " (" + egl_error() + ")"};
  if (!surfaceless && pbuffer) {
    const EGLint pb_attrs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    egl_surface_ = eglCreatePbufferSurface(dpy, cfg, pb_attrs);
  }
  VMAFX_TRY(make_current());
  description_ = "EGL " + std::to_string(major) + "." + std::to_string(minor) + " device platform, " + what +
                 (desktop ? ", OpenGL" : ", OpenGL ES");
  return Status::ok();
}

Status TestGlContext::create_egl_device(int index, TestGlContext* out) {
  out->reset();
  std::string why;
  std::vector<EGLDeviceEXT> devs = egl_devices(&why);
  if (devs.empty()) return {Errc::device_unavailable, why};
  int pick = index;
  if (pick < 0) {
    pick = 0;
    for (size_t i = 0; i < devs.size(); i++) {
      if (device_extensions(devs[i]).find("EGL_MESA_device_software") == std::string::npos) {
        pick = int(i);
        break;
      }
    }
  }
  if (pick >= int(devs.size()))
    return {Errc::device_unavailable, "EGL device " + std::to_string(pick) + " requested, " +
                                          std::to_string(devs.size()) + " found"};
  return out->create_egl_on(devs[size_t(pick)], "EGL device " + std::to_string(pick) + " (" +
                                                    device_extensions(devs[size_t(pick)]) + ")");
}

Status find_egl_device_for_cuda(int cuda_ordinal, void** out) {
  std::string why;
  std::vector<EGLDeviceEXT> devs = egl_devices(&why);
  if (devs.empty()) return {Errc::device_unavailable, why};
  for (size_t i = 0; i < devs.size(); i++) {
    if (device_extensions(devs[i]).find("EGL_NV_device_cuda") == std::string::npos) continue;
    EGLAttrib cuda = -1;
    if (eglQueryDeviceAttribEXT(devs[i], EGL_CUDA_DEVICE_NV, &cuda) && int(cuda) == cuda_ordinal) {
      *out = devs[i];
      return Status::ok();
    }
  }
  std::string all;
  for (const std::string& d : list_egl_devices()) all += (all.empty() ? "" : "; ") + d;
  return {Errc::device_unavailable, "no EGL device is CUDA device " + std::to_string(cuda_ordinal) + " (devices: " +
                                        all + ")"};
}

Status TestGlContext::create_egl_cuda(int cuda_ordinal, TestGlContext* out) {
  out->reset();
  void* dev = nullptr;
  VMAFX_TRY(find_egl_device_for_cuda(cuda_ordinal, &dev));
  return out->create_egl_on(dev, "EGL device of CUDA device " + std::to_string(cuda_ordinal));
}

Status TestGlContext::make_current() const {
  if (egl_display_) {
    if (!eglMakeCurrent(egl_display_, egl_surface_, egl_surface_, egl_context_))
      return {Errc::device_unavailable, "eglMakeCurrent failed (" + egl_error() + ")"};
    return Status::ok();
  }
  if (x_display_) {
    auto* dpy = static_cast<Display*>(x_display_);
    if (!glXMakeContextCurrent(dpy, glx_pbuffer_, glx_pbuffer_, static_cast<GLXContext>(glx_context_)))
      return {Errc::device_unavailable, "glXMakeContextCurrent failed"};
    return Status::ok();
  }
  return {Errc::invalid_argument, "no test GL context"};
}

Status TestGlContext::make_shared_current(Shared* out) const {
  *out = {};
  if (egl_display_) {
    eglBindAPI(egl_desktop_ ? EGL_OPENGL_API : EGL_OPENGL_ES_API);  // the bound API is per thread
    const EGLint ctx_attrs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
    out->context = eglCreateContext(egl_display_, egl_config_, egl_context_, egl_desktop_ ? nullptr : ctx_attrs);
    if (!out->context) return {Errc::device_unavailable, "shared eglCreateContext failed (" + egl_error() + ")"};
    if (egl_surface_) {
      const EGLint pb_attrs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
      out->surface = eglCreatePbufferSurface(egl_display_, egl_config_, pb_attrs);
    }
    if (!eglMakeCurrent(egl_display_, out->surface, out->surface, out->context))
      return {Errc::device_unavailable, "shared eglMakeCurrent failed (" + egl_error() + ")"};
    return Status::ok();
  }
  if (x_display_) {
    auto* dpy = static_cast<Display*>(x_display_);
    auto cfg = static_cast<GLXFBConfig>(glx_config_);
    out->context = glXCreateNewContext(dpy, cfg, GLX_RGBA_TYPE, static_cast<GLXContext>(glx_context_), True);
    if (!out->context) return {Errc::device_unavailable, "shared glXCreateNewContext failed"};
    const int pb_attrs[] = {GLX_PBUFFER_WIDTH, 16, GLX_PBUFFER_HEIGHT, 16, None};
    out->pbuffer = glXCreatePbuffer(dpy, cfg, pb_attrs);
    if (!glXMakeContextCurrent(dpy, out->pbuffer, out->pbuffer, static_cast<GLXContext>(out->context)))
      return {Errc::device_unavailable, "shared glXMakeContextCurrent failed"};
    return Status::ok();
  }
  return {Errc::invalid_argument, "no test GL context"};
}

void TestGlContext::release_shared(Shared* sh) const {
  if (egl_display_ && sh->context) {
    eglMakeCurrent(egl_display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (sh->surface) eglDestroySurface(egl_display_, sh->surface);
    eglDestroyContext(egl_display_, sh->context);
  }
  if (x_display_ && sh->context) {
    auto* dpy = static_cast<Display*>(x_display_);
    glXMakeContextCurrent(dpy, None, None, nullptr);
    if (sh->pbuffer) glXDestroyPbuffer(dpy, sh->pbuffer);
    glXDestroyContext(dpy, static_cast<GLXContext>(sh->context));
  }
  *sh = {};
}

void TestGlContext::release_current() const {
  if (egl_display_) eglMakeCurrent(egl_display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (x_display_) glXMakeContextCurrent(static_cast<Display*>(x_display_), None, None, nullptr);
}

std::vector<std::string> list_egl_devices() {
  std::vector<std::string> out;
  std::string why;
  std::vector<EGLDeviceEXT> devs = egl_devices(&why);
  if (devs.empty()) return {why};
  for (size_t i = 0; i < devs.size(); i++) {
    std::string exts = device_extensions(devs[i]);
    std::string line = std::to_string(i) + ": " + exts;
    if (exts.find("EGL_NV_device_cuda") != std::string::npos) {
      EGLAttrib cuda = -1;
      if (eglQueryDeviceAttribEXT(devs[i], EGL_CUDA_DEVICE_NV, &cuda)) line += " [cuda " + std::to_string(cuda) + "]";
    }
    if (exts.find("EGL_EXT_device_drm") != std::string::npos) {
      const char* node = eglQueryDeviceStringEXT(devs[i], EGL_DRM_DEVICE_FILE_EXT);
      if (node) line += std::string(" [drm ") + node + "]";
    }
    out.push_back(line);
  }
  return out;
}

Status make_texture(unsigned internal_format, unsigned format, unsigned type, uint32_t width, uint32_t height,
                    const void* data, size_t stride, unsigned bytes_per_texel, unsigned* out) {
  while (glGetError() != GL_NO_ERROR) {
  }
  GLuint tex = 0;
  glGenTextures(1, &tex);
  glBindTexture(GL_TEXTURE_2D, tex);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, GLint(stride / bytes_per_texel));
  glTexImage2D(GL_TEXTURE_2D, 0, GLint(internal_format), GLsizei(width), GLsizei(height), 0, format, type, data);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glBindTexture(GL_TEXTURE_2D, 0);
  const GLenum err = glGetError();
  if (err != GL_NO_ERROR) {
    glDeleteTextures(1, &tex);
    return {Errc::unsupported, "glTexImage2D of a " + std::to_string(width) + "x" + std::to_string(height) +
                                   " texture failed: GL error " + std::to_string(err)};
  }
  *out = tex;
  return Status::ok();
}

void delete_texture(unsigned texture) {
  GLuint t = texture;
  glDeleteTextures(1, &t);
}

}  // namespace vmafx::gl::test
