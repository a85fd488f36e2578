// SPDX-License-Identifier: LGPL-2.1-or-later
// The float picture libvmaf's float features (float_vif, float_adm, float_motion) start from, and the plane checks
// they share. libvmaf (picture_copy) turns a sample into float as
//   8 bits:  float(s) - 128                 10 bits: float(s) / 4 - 128
//   12 bits: float(s) / 16 - 128            16 bits: float(s) / 256 - 128
// (the division in float, then the offset added as a float). Other depths are read as 8-bit bytes by libvmaf,
// which is not a picture at all, so the float features accept only these four.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cpu/plane.h"
#include "vmafx/status.h"

namespace vmafx::cpu {

inline bool float_feature_depth_ok(unsigned bpc) { return bpc == 8 || bpc == 10 || bpc == 12 || bpc == 16; }

// The divisor of a depth (1 for 8 bits: libvmaf adds the offset to the sample without dividing).
inline float float_picture_divisor(unsigned bpc) {
  return bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : bpc == 16 ? 256.0f : 1.0f;
}

// One sample as libvmaf's picture_copy converts it.
inline float float_picture_sample(uint32_t s, unsigned bpc) {
  if (bpc == 8) return float(s) + -128.0f;
  return float(s) / float_picture_divisor(bpc) + -128.0f;
}

// The float picture of a plane, `stride` floats per row.
inline void float_picture_copy(const Plane& p, float* out, ptrdiff_t stride) {
  for (uint32_t y = 0; y < p.h; ++y) {
    float* o = out + ptrdiff_t(y) * stride;
    if (p.bytes == 1) {
      const uint8_t* s = p.row<uint8_t>(y);
      for (uint32_t x = 0; x < p.w; ++x) o[x] = float_picture_sample(s[size_t(x) * p.step], 8);
    } else {
      const uint16_t* s = p.row<uint16_t>(y);
      for (uint32_t x = 0; x < p.w; ++x) o[x] = float_picture_sample(uint32_t(s[size_t(x) * p.step]) >> p.shift, p.bpc);
    }
  }
}

// The checks of a plane handed to a float feature: data, the size and depth the feature was set up for, and a
// layout whose rows hold w samples.
inline Status float_check_plane(const char* feature, const char* what, const Plane& p, uint32_t w, uint32_t h,
                                unsigned bpc) {
  const std::string name = std::string(feature) + ": " + what;
  if (!p.data) return {Errc::invalid_argument, name + " plane has no data"};
  if (p.w != w || p.h != h)
    return {Errc::unsupported, name + " is " + std::to_string(p.w) + "x" + std::to_string(p.h) +
                                   ", the extractor was set up for " + std::to_string(w) + "x" + std::to_string(h)};
  if (p.bpc != bpc)
    return {Errc::unsupported, name + " has bit depth " + std::to_string(p.bpc) + ", the extractor was set up for " +
                                   std::to_string(bpc)};
  if (p.bytes != 1 && p.bytes != 2)
    return {Errc::invalid_argument, name + " has " + std::to_string(p.bytes) + " bytes per sample"};
  if (p.bytes == 1 && bpc > 8)
    return {Errc::invalid_argument, name + ": a " + std::to_string(bpc) + "-bit sample needs 2 bytes"};
  if (p.step == 0 || p.shift > 15) return {Errc::invalid_argument, name + " has an invalid step or shift"};
  const uint64_t row_bytes = (uint64_t(w - 1) * p.step + 1) * p.bytes;
  const uint64_t abs_stride = p.stride < 0 ? uint64_t(-p.stride) : uint64_t(p.stride);
  if (abs_stride < row_bytes)
    return {Errc::invalid_argument,
            name + " stride " + std::to_string(p.stride) + " does not hold a row of " + std::to_string(row_bytes) +
                " bytes"};
  return Status::ok();
}

inline Status float_check_depth(const char* feature, unsigned bpc) {
  if (!float_feature_depth_ok(bpc))
    return {Errc::unsupported, std::string(feature) + ": bit depth " + std::to_string(bpc) +
                                   " (libvmaf's float features read 8, 10, 12 and 16 bits only)"};
  return Status::ok();
}

}  // namespace vmafx::cpu
