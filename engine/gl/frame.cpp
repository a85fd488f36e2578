// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl/frame.h"

#include <string>

namespace vmafx::gl {

namespace {

bool semi_planar(PixelFormat f) {
  return f == PixelFormat::nv12 || f == PixelFormat::nv21 || f == PixelFormat::p010 || f == PixelFormat::p016;
}

size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

}  // namespace

unsigned texel_bytes(TexelFormat f) {
  switch (f) {
    case TexelFormat::r8:
      return 1;
    case TexelFormat::rg8:
      return 2;
    case TexelFormat::r16:
      return 2;
    case TexelFormat::rg16:
      return 4;
    case TexelFormat::rgba8:
      return 4;
  }
  return 0;
}

const char* texel_format_name(TexelFormat f) {
  switch (f) {
    case TexelFormat::r8:
      return "R8";
    case TexelFormat::rg8:
      return "RG8";
    case TexelFormat::r16:
      return "R16";
    case TexelFormat::rg16:
      return "RG16";
    case TexelFormat::rgba8:
      return "RGBA8";
  }
  return "?";
}

FormatInfo imported_format(const TextureFrame& frame) {
  if (frame.rgba) return {PixelFormat::gray, Chroma::k400, 8};
  return frame.format;
}

Status plan_frame(const TextureFrame& frame, FramePlan* out) {
  FramePlan plan;
  if (frame.width == 0 || frame.height == 0) return {Errc::invalid_argument, "GL frame has zero width or height"};
  const uint32_t w = frame.width, h = frame.height;
  plan.format = imported_format(frame);
  const FormatInfo& f = plan.format;
  if (frame.rgba) {
    plan.n_planes = 1;
    plan.copy[0] = {TexelFormat::rgba8, w, h, size_t(w) * 4};
    plan.layout_planes = 1;
    plan.pitch[0] = align_up(w, FramePlan::kPitchAlignment);
    plan.bytes = plan.pitch[0] * h;
    plan.rgba_pitch = align_up(size_t(w) * 4, FramePlan::kPitchAlignment);
  } else {
    if (f.bit_depth != 8 && f.bit_depth != 10 && f.bit_depth != 16)
      return {Errc::unsupported, "GL textures hold 8- or 16-bit samples; a " + std::to_string(f.bit_depth) +
                                     "-bit format cannot come from GL memory"};
    const bool wide = f.bit_depth > 8;
    if (wide && f.format != PixelFormat::p010 && f.format != PixelFormat::p016 && f.format != PixelFormat::gray)
      return {Errc::unsupported, "GL input of more than 8 bits is P010, P016 or GRAY16 (R16 + RG16 textures)"};
    if (f.format == PixelFormat::gray && wide && f.bit_depth != 16)
      return {Errc::unsupported, "GL gray input is 8 or 16 bits"};
    const TexelFormat one = wide ? TexelFormat::r16 : TexelFormat::r8;
    const TexelFormat two = wide ? TexelFormat::rg16 : TexelFormat::rg8;
    const uint32_t cw = chroma_width_stored(f.chroma, w), ch = chroma_height_stored(f.chroma, h);
    plan.copy[0] = {one, w, h, size_t(w) * texel_bytes(one)};
    if (f.chroma == Chroma::k400) {
      plan.n_planes = 1;
    } else if (semi_planar(f.format)) {
      plan.n_planes = 2;
      plan.copy[1] = {two, cw, ch, size_t(cw) * texel_bytes(two)};
    } else {
      plan.n_planes = 3;
      plan.copy[1] = {one, cw, ch, size_t(cw) * texel_bytes(one)};
      plan.copy[2] = plan.copy[1];
    }
    plan.layout_planes = plan.n_planes;
    size_t off = 0;
    for (unsigned i = 0; i < plan.n_planes; i++) {
      plan.offset[i] = off;
      plan.pitch[i] = align_up(plan.copy[i].row_bytes, FramePlan::kPitchAlignment);
      off += plan.pitch[i] * plan.copy[i].rows;
    }
    plan.bytes = off;
  }
  if (frame.n_planes != plan.n_planes)
    return {Errc::invalid_argument, "GL frame has " + std::to_string(frame.n_planes) +
                                        " texture(s), its format needs " + std::to_string(plan.n_planes)};
  for (unsigned i = 0; i < plan.n_planes; i++) {
    const Texture* t = frame.planes[i];
    if (!t) return {Errc::invalid_argument, "GL frame plane " + std::to_string(i) + " has no texture"};
    const PlaneCopy& c = plan.copy[i];
    if (t->texel() != c.texel)
      return {Errc::unsupported, "GL frame plane " + std::to_string(i) + " is a " + texel_format_name(t->texel()) +
                                     " texture, the format needs " + texel_format_name(c.texel)};
    if (t->width() < c.texels || t->height() < c.rows)
      return {Errc::out_of_range, "GL frame plane " + std::to_string(i) + ": texture of " + std::to_string(t->width()) +
                                      "x" + std::to_string(t->height()) + " texels is smaller than the " +
                                      std::to_string(c.texels) + "x" + std::to_string(c.rows) + " the frame needs"};
  }
  *out = plan;
  return Status::ok();
}

}  // namespace vmafx::gl
