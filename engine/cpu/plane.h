// SPDX-License-Identifier: LGPL-2.1-or-later
// Host plane as the CPU reference reads it: rows of 8-bit bytes or 16-bit little-endian words, read in place.
// A sample is `word >> shift` (P010 keeps its 10 bits high); interleaved chroma has step 2.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vmafx/picture.h"

namespace vmafx::cpu {

struct Plane {
  const uint8_t* data = nullptr;
  ptrdiff_t stride = 0;   // bytes
  uint32_t w = 0, h = 0;  // samples the feature uses (libvmaf's size: floor for subsampled chroma)
  uint8_t bytes = 1;      // 1 or 2
  uint8_t shift = 0;
  uint8_t step = 1;       // samples between neighbours in a row
  uint8_t bpc = 8;        // bit depth of the sample

  template <class T>
  const T* row(uint32_t y) const {
    return reinterpret_cast<const T*>(data + ptrdiff_t(y) * stride);
  }
  // Sample at (x, y), for code that is not on a hot path.
  uint32_t at(uint32_t x, uint32_t y) const {
    if (bytes == 1) return row<uint8_t>(y)[size_t(x) * step];
    return uint32_t(row<uint16_t>(y)[size_t(x) * step]) >> shift;
  }
};

inline Plane luma_plane(const PictureView& v) {
  Plane p;
  p.data = v.planes[0].data;
  p.stride = v.planes[0].stride;
  p.w = v.width;
  p.h = v.height;
  p.bytes = v.bytes_per_sample;
  p.shift = v.shift;
  p.step = 1;
  p.bpc = v.bit_depth;
  return p;
}

// Chroma plane i (1 = Cb, 2 = Cr) at libvmaf's size.
inline Plane chroma_plane(const PictureView& v, unsigned i) {
  Plane p;
  p.data = v.planes[i].data;
  p.stride = v.planes[i].stride;
  p.w = chroma_width(v.chroma, v.width);
  p.h = chroma_height(v.chroma, v.height);
  p.bytes = v.bytes_per_sample;
  p.shift = v.shift;
  p.step = v.planes[i].step;
  p.bpc = v.bit_depth;
  return p;
}

}  // namespace vmafx::cpu
