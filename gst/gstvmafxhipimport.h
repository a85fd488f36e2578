// SPDX-License-Identifier: LGPL-2.1-or-later
// Import of GstBuffers into engine picture views. The engine reads pictures in place and may hold one until the next
// frame arrives (motion), so an import keeps whatever makes the memory readable (a read mapping, a buffer reference)
// until the engine calls release. System memory here; the other memory kinds (gstvmafxhipinput.h) return the same
// ImportedPicture.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <functional>

#include "vmafx/picture.h"
#include "vmafx/status.h"

// Raw formats the element takes in system memory (caps template and import table agree on this list).
#define GST_VMAFXHIP_SYSMEM_FORMATS                                                                       \
  "{ I420, YV12, NV12, NV21, Y42B, Y444, GRAY8, I420_10LE, I422_10LE, Y444_10LE, I420_12LE, I422_12LE, " \
  "Y444_12LE, P010_10LE, P016_LE, GRAY16_LE }"

namespace vmafx::gst {

// The engine's view of a GStreamer raw format: layout, subsampling and significant bits. False for a format outside
// GST_VMAFXHIP_SYSMEM_FORMATS.
bool format_info_for(GstVideoFormat format, FormatInfo* out);

// A picture the engine reads in place plus what keeps its memory readable. release() gives the memory back (unmap,
// unref) and runs its work once; the destructor releases too, so an import is never leaked. Movable, not copyable.
class ImportedPicture {
 public:
  ImportedPicture() = default;
  ImportedPicture(const PictureView& view, std::function<void()> release)
      : view_(view), release_(std::move(release)) {}
  ~ImportedPicture() { release(); }
  ImportedPicture(ImportedPicture&& o) noexcept : view_(o.view_), release_(std::move(o.release_)) {
    o.release_ = nullptr;
  }
  ImportedPicture& operator=(ImportedPicture&& o) noexcept {
    if (this != &o) {
      release();
      view_ = o.view_;
      release_ = std::move(o.release_);
      o.release_ = nullptr;
    }
    return *this;
  }
  ImportedPicture(const ImportedPicture&) = delete;
  ImportedPicture& operator=(const ImportedPicture&) = delete;

  const PictureView& view() const { return view_; }
  bool holds_memory() const { return static_cast<bool>(release_); }
  void release() {
    if (release_) {
      auto r = std::move(release_);
      release_ = nullptr;
      r();
    }
  }

 private:
  PictureView view_;
  std::function<void()> release_;
};

// Bytes a buffer must hold for `info` with the given plane offsets and strides: the end of the plane that ends last.
size_t required_buffer_size(const GstVideoInfo& info, const size_t* offsets, const gint* strides, unsigned n_planes);

// System memory: plane offsets and strides come from the buffer's GstVideoMeta when it has one, else from `info`.
// The buffer size is checked against that layout first (a buffer too small for its caps is Errc::out_of_range naming
// both sizes); then the buffer is mapped read-only with gst_video_frame_map and stays mapped (and referenced) until
// the ImportedPicture is released.
Status import_system_memory(GstBuffer* buffer, const GstVideoInfo& info, ImportedPicture* out);

}  // namespace vmafx::gst
