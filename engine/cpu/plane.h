// SPDX-License-Identifier: LGPL-2.1-or-later
// Host plane as the CPU reference reads it: rows of 8-bit bytes or 16-bit little-endian words, read in place.
// A sample is `word >> shift` (P010 keeps its 10 bits high); interleaved chroma has step 2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "vmafx/picture.h"
#include "vmafx/status.h"

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

// The layout check of a plane that a feature reads as w x h samples of `bpc` bits, shared by the CPU reference's
// planes and the GPU's (hip/plane.h): data present (else Errc::invalid_argument), the plane's size pw x ph equal to
// w x h (Errc::unsupported), 8-bit samples in unshifted bytes or samples in 16-bit words with bpc + shift <= 16
// (Errc::unsupported), a step of at least 1 and a pitch that holds a row of (w - 1) * step + 1 words
// (Errc::invalid_argument). `what` names the plane ("adm: reference plane").
inline Status check_plane_layout(const std::string& what, const void* data, int64_t pitch, uint32_t pw, uint32_t ph,
                                 unsigned bytes, unsigned shift, unsigned step, uint32_t w, uint32_t h, unsigned bpc) {
  const std::string& name = what;
  if (!data) return {Errc::invalid_argument, name + " has no data"};
  if (pw != w || ph != h)
    return {Errc::unsupported, name + " is " + std::to_string(pw) + "x" + std::to_string(ph) + ", set up for " +
                                   std::to_string(w) + "x" + std::to_string(h)};
  if (bytes == 1) {
    if (bpc != 8 || shift != 0)
      return {Errc::unsupported, name + ": 1-byte samples must be 8-bit and unshifted, not " + std::to_string(bpc) +
                                     "-bit shifted by " + std::to_string(shift)};
  } else if (bytes == 2) {
    if (shift + bpc > 16)
      return {Errc::unsupported, name + ": a " + std::to_string(bpc) + "-bit sample shifted by " +
                                     std::to_string(shift) + " does not fit a 16-bit word"};
  } else {
    return {Errc::unsupported, name + ": " + std::to_string(bytes) + "-byte samples"};
  }
  if (step < 1) return {Errc::invalid_argument, name + ": sample step 0"};
  const int64_t row_bytes = (int64_t(w) - 1) * int64_t(step) * int64_t(bytes) + int64_t(bytes);
  if (pitch < row_bytes)
    return {Errc::invalid_argument, name + ": pitch " + std::to_string(pitch) + " does not hold a row of " +
                                        std::to_string(row_bytes) + " bytes"};
  return Status::ok();
}

}  // namespace vmafx::cpu
