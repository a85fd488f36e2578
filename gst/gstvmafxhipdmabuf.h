// SPDX-License-Identifier: LGPL-2.1-or-later
// memory:DMABuf input of vmafxhip: caps in both forms, GstBuffer -> engine dma-buf frame, and the per-stream importer
// (engine: vmafx/dmabuf.h, which does the checks, fences, GPU import or host mapping and the deferred release).
//
// Caps. The GStreamer 1.22 form, video/x-raw(memory:DMABuf) with format=NV12 etc. (a linear layout by convention),
// and the DMA_DRM form of GStreamer 1.24, format=DMA_DRM with drm-format=NV12 or NV12:0x<modifier>. The input kind
// (dmabuf_input_kind) reads the DMA_DRM form itself, whatever GStreamer it is built against: its video info is that
// of the equivalent 1.22-form caps, the pad keeps the DMA_DRM caps as its current caps (and the output pad passes
// them on unchanged), and the import reads drm-format from them. A drm-format the engine does not read, or a modifier
// other than linear, is refused at the CAPS event with an error naming the field (the caps query offers only the
// linear formats, so negotiating producers pick one of those).
//
// Import. Planes, offsets and strides come from the buffer's GstVideoMeta (else from the caps); each plane's fd and its
// offset inside that dma-buf from the GstMemory that holds the plane (gst_dmabuf_memory_get_fd, memory offset + skip).
// The engine checks every plane against the dma-buf's own size (lseek), never the GstMemory's. The GstBuffer stays
// referenced until the engine releases the picture; for a GPU import that is after the GPU finished reading it.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "gstvmafxhipimport.h"
#include "gstvmafxhipinput.h"
#include "vmafx/dmabuf.h"
#include "vmafx/scorer.h"

// Formats taken in memory:DMABuf, 1.22 form: the system-memory list (each has a DRM fourcc, listed below).
#define GST_VMAFXHIP_DMABUF_FORMATS GST_VMAFXHIP_SYSMEM_FORMATS
// DMA_DRM form: the same formats as DRM fourccs, linear (no modifier suffix).
#define GST_VMAFXHIP_DMABUF_DRM_FORMATS \
  "{ YU12, YV12, NV12, NV21, YU16, YU24, R8, S010, S210, S410, S012, S212, S412, P010, P016, R16 }"
// Both forms, for the pad templates (append to the system-memory caps with "; ").
#define GST_VMAFXHIP_DMABUF_CAPS                                                                       \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES("memory:DMABuf", GST_VMAFXHIP_DMABUF_FORMATS)                      \
  "; video/x-raw(memory:DMABuf), format=(string)DMA_DRM, drm-format=(string)" GST_VMAFXHIP_DMABUF_DRM_FORMATS \
  ", width=" GST_VIDEO_SIZE_RANGE ", height=" GST_VIDEO_SIZE_RANGE ", framerate=" GST_VIDEO_FPS_RANGE

namespace vmafx::gst {

// DRM fourcc of a GStreamer format (0 when it has none the engine reads) and back (GST_VIDEO_FORMAT_UNKNOWN).
uint32_t drm_fourcc_for(GstVideoFormat format);
GstVideoFormat video_format_for_drm(uint32_t fourcc);

// True for caps in the DMA_DRM form (memory:DMABuf, format=DMA_DRM).
bool is_dma_drm_caps(const GstCaps* caps);
// drm-format of DMA_DRM caps: "NV12" (linear) or "NV12:0x0100000000000002". Errc::invalid_argument naming
// drm-format when it is missing or malformed. Does not judge whether the engine reads it.
Status parse_dma_drm_caps(const GstCaps* caps, uint32_t* fourcc, uint64_t* modifier);
// The 1.22-form caps equivalent to DMA_DRM caps (format=NV12 instead of format=DMA_DRM + drm-format). Refuses, naming
// the field, a drm-format the engine does not read and a modifier other than linear.
Status dma_drm_to_video_caps(const GstCaps* caps, GstCaps** out);
// The drm fourcc and modifier of a pad's current caps in either dma-buf form (1.22 form: the format's fourcc, linear).
Status dmabuf_format_of_caps(const GstCaps* caps, const GstVideoInfo& info, uint32_t* fourcc, uint64_t* modifier);

// The engine's description of a GstBuffer on dma-bufs: fds, offsets inside each dma-buf and pitches from the video
// meta (else `info`); Errc::unsupported naming plane[i] when its memory is not a dma-buf, Errc::out_of_range when a
// plane's offset lies past the buffer. The fds stay the buffer's.
Status describe_dmabuf_buffer(GstBuffer* buffer, const GstVideoInfo& info, uint32_t fourcc, uint64_t modifier,
                              DmaBufFrame* out);

// One per scoring session: the engine importer for the scorer's backend, and what the element reports about it.
class DmaBufInput {
 public:
  struct Config {
    Backend backend = Backend::cpu;  // the scorer's backend (cpu: host mapping; hip: import, fallback per allow_copy)
    Vendor vendor = Vendor::auto_select;
    int device_id = -1;
    bool allow_copy = true;
    int fence_timeout_ms = 1000;
    // hip: import nothing, map every frame on the host for this reason (features the scorer runs on the CPU).
    std::string host_reason;
    // A notice to post once (the copy fallback and its reason, the first fence that had to be waited for).
    std::function<void(const std::string&)> on_notice;
  };

  static Status create(const Config& config, std::unique_ptr<DmaBufInput>* out);
  ~DmaBufInput();

  // Imports a buffer whose pad has the dma-buf caps `caps`. The picture holds a reference on the buffer until the
  // engine releases it (a GPU import: until the GPU finished reading it).
  Status import(GstBuffer* buffer, const GstVideoInfo& info, const GstCaps* caps, ImportedPicture* out);

  uint64_t frames_copied() const;
  uint64_t frames() const;
  std::string description() const;
  // After the scorer has released every picture: waits for releases still behind the GPU, drops cached imports.
  Status close();

 private:
  DmaBufInput() = default;
  std::unique_ptr<DmaBufImporter> importer_;
  bool closed_ = false;
};

}  // namespace vmafx::gst
