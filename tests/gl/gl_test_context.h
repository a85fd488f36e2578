// SPDX-License-Identifier: LGPL-2.1-or-later
// GL contexts for the engine's GL tests, without GStreamer: GLX on $DISPLAY (Xvfb + Mesa on CI) and EGL's device
// platform (Mesa's software device on CI, the GPU's EGLDevice on a GPU machine). Each context has a 16x16 pbuffer
// (or none where EGL_KHR_surfaceless_context exists) and is made current on the thread that creates it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vmafx/status.h"

namespace vmafx::gl::test {

class TestGlContext {
 public:
  TestGlContext() = default;
  ~TestGlContext();
  TestGlContext(const TestGlContext&) = delete;
  TestGlContext& operator=(const TestGlContext&) = delete;

  // GLX on $DISPLAY. Errc::device_unavailable naming why when there is no display or no GLX.
  static Status create_glx(TestGlContext* out);
  // EGL's device platform, device `index` of eglQueryDevicesEXT (-1: the first whose renderer is not a software one,
  // else the first). Errc::device_unavailable naming why when there is none.
  static Status create_egl_device(int index, TestGlContext* out);
  // EGL on the device whose EGL_CUDA_DEVICE_NV is `cuda_ordinal`.
  static Status create_egl_cuda(int cuda_ordinal, TestGlContext* out);

  Status make_current() const;
  void release_current() const;
  std::string description() const { return description_; }
  bool is_glx() const { return x_display_ != nullptr; }

  // A second context sharing this one's textures (a producer thread's), made current on the calling thread: GLX with
  // a pbuffer of this context's config, EGL surfaceless or with a pbuffer. release_shared() on the same thread
  // destroys it.
  struct Shared {
    void* context = nullptr;
    unsigned long pbuffer = 0;
    void* surface = nullptr;
  };
  Status make_shared_current(Shared* out) const;
  void release_shared(Shared* shared) const;

 private:
  Status create_egl_on(void* device, const std::string& what);
  void reset();

  // GLX
  void* x_display_ = nullptr;
  void* glx_context_ = nullptr;
  void* glx_config_ = nullptr;  // GLXFBConfig
  unsigned long glx_pbuffer_ = 0;
  // EGL
  void* egl_display_ = nullptr;
  void* egl_context_ = nullptr;
  void* egl_surface_ = nullptr;
  void* egl_config_ = nullptr;
  bool egl_desktop_ = true;
  std::string description_;
};

// EGL devices of this machine, "index: extensions [cuda N] [drm /dev/dri/...]" (for messages).
std::vector<std::string> list_egl_devices();
// The EGLDeviceEXT whose EGL_CUDA_DEVICE_NV is `cuda_ordinal` (for gst_gl_display_egl_device_new_with_egl_device).
Status find_egl_device_for_cuda(int cuda_ordinal, void** out);

// GL helpers on the current context: a 2D texture of `internal_format` filled from `data` (rows `stride` bytes
// apart), and deletion.
Status make_texture(unsigned internal_format, unsigned format, unsigned type, uint32_t width, uint32_t height,
                    const void* data, size_t stride, unsigned bytes_per_texel, unsigned* out);
void delete_texture(unsigned texture);

}  // namespace vmafx::gl::test
