// SPDX-License-Identifier: LGPL-2.1-or-later
// Picture views: the engine reads caller memory in place. A view describes where each plane starts, how far apart
// its rows and samples are, and how to turn a stored word into a sample; nothing is converted or copied to make one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "vmafx/status.h"

namespace vmafx {

enum class Chroma : uint8_t { k400, k420, k422, k444 };

// Where a picture's memory lives. Extractors refuse memory they cannot read.
enum class MemoryKind : uint8_t { host, device };

// Storage layouts the engine reads in place.
enum class PixelFormat : uint8_t {
  gray,        // Y only
  i420,        // planar Y, Cb, Cr (4:2:0); also 4:2:2 / 4:4:4 with the matching Chroma
  yv12,        // planar Y, Cr, Cb
  nv12,        // Y + interleaved CbCr (4:2:0)
  nv21,        // Y + interleaved CrCb (4:2:0)
  p010,        // NV12 layout, 16-bit words with the 10-bit sample in the high bits
  p016,        // NV12 layout, 16-bit samples
};

struct PlaneView {
  const uint8_t* data = nullptr;  // first sample of the plane
  ptrdiff_t stride = 0;           // bytes from one row to the next
  uint32_t width = 0;             // samples per row held in memory
  uint32_t height = 0;            // rows held in memory
  uint8_t step = 1;               // samples from one sample of the plane to the next in a row (2: interleaved CbCr)
};

struct PictureView {
  MemoryKind memory = MemoryKind::host;
  int device = -1;               // device index when memory == device
  Chroma chroma = Chroma::k420;
  uint8_t bit_depth = 8;          // significant bits of a sample, 8..16
  uint8_t bytes_per_sample = 1;   // 1 when bit_depth == 8, else 2 (little-endian words)
  uint8_t shift = 0;              // right shift from the stored word to the sample (P010: 6)
  uint32_t width = 0;             // luma width
  uint32_t height = 0;            // luma height
  PlaneView planes[3];            // Y, Cb, Cr (for semi-planar formats Cb and Cr point into the same rows)

  unsigned plane_count() const { return chroma == Chroma::k400 ? 1u : 3u; }
};

// Chroma plane size as the features see it: libvmaf's floor(w / 2) for subsampled axes.
uint32_t chroma_width(Chroma c, uint32_t luma_width);
uint32_t chroma_height(Chroma c, uint32_t luma_height);
// Chroma plane size as memory holds it (ceil), the layout of .yuv files and GStreamer.
uint32_t chroma_width_stored(Chroma c, uint32_t luma_width);
uint32_t chroma_height_stored(Chroma c, uint32_t luma_height);

// A video stream's picture geometry as the features see it.
struct VideoGeometry {
  uint32_t width = 0, height = 0;
  uint8_t bit_depth = 8;
  Chroma chroma = Chroma::k420;
};

struct FormatInfo {
  PixelFormat format = PixelFormat::i420;
  Chroma chroma = Chroma::k420;
  uint8_t bit_depth = 8;
};

// Layout of one plane within a buffer: offset from the buffer start and row stride in bytes.
struct PlaneLayout {
  size_t offset = 0;
  ptrdiff_t stride = 0;
};

// Builds a view of a picture held in `size` bytes at `base` with the given plane offsets and strides. Checks that
// every plane lies inside the buffer, that strides hold a row, and that the format and depth agree.
Status make_picture_view(const FormatInfo& fmt, uint32_t width, uint32_t height, const uint8_t* base, size_t size,
                         const PlaneLayout* planes, unsigned n_planes, PictureView* out);

// The tightly packed layout (.yuv files): planes one after another, stored chroma sizes rounded up.
unsigned packed_layout(const FormatInfo& fmt, uint32_t width, uint32_t height, PlaneLayout planes[3], size_t* frame_size);

// Checks a view against itself: planes present, sizes consistent with the chroma subsampling.
Status validate_view(const PictureView& v);

// Reference and distorted must agree in width, height, bit depth and chroma subsampling; layouts may differ.
Status check_pair(const PictureView& ref, const PictureView& dist);

// Parses "420", "422", "444", "400" (libvmaf's --pixel_format) or a layout name (i420, yv12, nv12, nv21, p010, p016,
// gray) with a bit depth into a FormatInfo.
Status parse_pixel_format(std::string_view name, unsigned bit_depth, FormatInfo* out);
const char* chroma_name(Chroma c);

}  // namespace vmafx
