// SPDX-License-Identifier: LGPL-2.1-or-later
// Internal: what each texture of a TextureFrame must hold and where it lands in a device frame. No GPU, no GL.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vmafx/gl.h"

namespace vmafx::gl {

struct PlaneCopy {
  TexelFormat texel = TexelFormat::r8;  // what the texture must hold
  uint32_t texels = 0;                  // texels of a row to copy
  uint32_t rows = 0;
  size_t row_bytes = 0;                 // texels * texel_bytes
};

// The textures a frame needs (n planes) and, per texture, what is copied. Errc::unsupported / invalid_argument
// naming the plane when the frame's textures do not fit its format.
struct FramePlan {
  FormatInfo format;       // the imported picture's layout
  unsigned n_planes = 0;   // textures
  PlaneCopy copy[3];
  // Device frame: plane i at offset[i] with pitch[i] bytes (pitches kPitchAlignment-aligned), `bytes` in all. For
  // RGBA, plane 0 is the luma; the RGBA rows go through a scratch buffer of rgba_pitch * height bytes.
  size_t offset[3] = {0, 0, 0};
  size_t pitch[3] = {0, 0, 0};
  unsigned layout_planes = 0;
  size_t bytes = 0;
  size_t rgba_pitch = 0;
  static constexpr size_t kPitchAlignment = 256;
};

Status plan_frame(const TextureFrame& frame, FramePlan* out);

}  // namespace vmafx::gl
