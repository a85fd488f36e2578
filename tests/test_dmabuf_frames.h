// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper shared by the dma-buf suites (engine, gpu, gst): a host picture laid out as the bytes of one or more
// dma-bufs in a DRM format, at chosen offsets and pitches, with recognisable padding between rows and planes. The
// suites then put those bytes where their dma-bufs live (memfds here, exported device memory on a GPU machine).
#pragma once

#include <dirent.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "vmafx/dmabuf.h"
#include "vmafx/picture.h"

namespace vmafx::test {

// Number of open fds of this process (/proc/self/fd), for leak checks; -1 when /proc is not there.
inline int count_open_fds() {
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return -1;
  int n = 0;
  while (struct dirent* e = ::readdir(dir)) {
    if (e->d_name[0] != '.') n++;
  }
  ::closedir(dir);
  return n - 1;  // the directory's own fd
}

inline uint32_t read_sample(const PlaneView& p, unsigned bps, uint32_t x, uint32_t y) {
  const uint8_t* row = p.data + ptrdiff_t(y) * p.stride;
  if (bps == 1) return row[size_t(x) * p.step];
  uint16_t w;
  std::memcpy(&w, row + 2 * size_t(x) * p.step, 2);
  return w;
}

inline void write_sample(uint8_t* at, unsigned bps, uint32_t v) {
  if (bps == 1) {
    *at = uint8_t(v);
  } else {
    const uint16_t w = uint16_t(v);
    std::memcpy(at, &w, 2);
  }
}

// How a frame is laid out in its dma-bufs.
struct Layout {
  uint32_t drm_format = kDrmFormatYUV420;
  uint64_t first_offset = 0;  // where plane 0 starts in its dma-buf
  uint64_t pitch_pad = 0;     // bytes added to each row's pitch
  uint64_t gap = 0;           // bytes between planes in one dma-buf
  bool fd_per_plane = false;  // each plane in its own dma-buf
  std::string name() const {
    return drm_fourcc_name(drm_format) + (fd_per_plane ? "/fd-per-plane" : "/one-fd") + "/off" +
           std::to_string(first_offset) + "/pad" + std::to_string(pitch_pad);
  }
};

// The bytes of each dma-buf and the frame description; planes[i].fd is left -1 for the caller, whose dma-buf
// buffer_of[i] holds plane i.
struct LaidOutFrame {
  std::vector<std::vector<uint8_t>> buffers;
  unsigned buffer_of[3] = {0, 0, 0};
  DmaBufFrame frame;
};

// `src`: a planar host picture with low-bit samples (YuvClip frames). Semi-planar formats interleave its chroma;
// P010 shifts the samples into the high bits; YVU420 / NV21 swap the chroma order.
inline Status lay_out_frame(const PictureView& src, const Layout& layout, LaidOutFrame* out) {
  FormatInfo fmt;
  unsigned n_planes = 0;
  VMAFX_TRY(drm_format_info(layout.drm_format, &fmt, &n_planes));
  if (fmt.bit_depth != src.bit_depth && !(fmt.bit_depth == 16 && src.bit_depth > 8))
    return {Errc::invalid_argument, "layout " + layout.name() + " does not hold " + std::to_string(src.bit_depth) +
                                        "-bit samples"};
  const unsigned bps = fmt.bit_depth > 8 ? 2 : 1;
  const unsigned shift = fmt.format == PixelFormat::p010 ? 6 : 0;
  const bool sp = n_planes == 2;
  const uint32_t cw = chroma_width_stored(fmt.chroma, src.width), ch = chroma_height_stored(fmt.chroma, src.height);
  LaidOutFrame f;
  f.buffers.resize(layout.fd_per_plane ? n_planes : 1);
  f.frame.drm_format = layout.drm_format;
  f.frame.width = src.width;
  f.frame.height = src.height;
  f.frame.n_planes = n_planes;
  for (unsigned i = 0; i < n_planes; i++) {
    const uint32_t samples = i == 0 ? src.width : (sp ? 2 * cw : cw);
    const uint32_t rows = i == 0 ? src.height : ch;
    const uint64_t pitch = uint64_t(samples) * bps + layout.pitch_pad;
    f.buffer_of[i] = layout.fd_per_plane ? i : 0;
    std::vector<uint8_t>& buf = f.buffers[f.buffer_of[i]];
    const uint64_t offset = buf.empty() ? layout.first_offset : buf.size() + layout.gap;
    buf.resize(offset + pitch * rows, 0xa5);  // padding bytes that are not samples
    for (uint32_t y = 0; y < rows; y++) {
      uint8_t* row = buf.data() + offset + y * pitch;
      for (uint32_t x = 0; x < samples; x++) {
        uint32_t v;
        if (i == 0) {
          v = read_sample(src.planes[0], src.bytes_per_sample, x, y);
        } else if (sp) {
          const bool cr_first = layout.drm_format == kDrmFormatNV21;
          const unsigned plane = (x & 1) ? (cr_first ? 1 : 2) : (cr_first ? 2 : 1);
          v = read_sample(src.planes[plane], src.bytes_per_sample, x / 2, y);
        } else {
          const bool swap = layout.drm_format == kDrmFormatYVU420;
          v = read_sample(src.planes[swap ? 3 - i : i], src.bytes_per_sample, x, y);
        }
        write_sample(row + size_t(x) * bps, bps, v << shift);
      }
    }
    f.frame.planes[i].fd = -1;
    f.frame.planes[i].offset = offset;
    f.frame.planes[i].pitch = pitch;
  }
  *out = std::move(f);
  return Status::ok();
}

}  // namespace vmafx::test
