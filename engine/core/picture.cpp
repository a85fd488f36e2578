// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vmafx/picture.h"

#include <string>

namespace vmafx {

namespace {

bool sub_x(Chroma c) { return c == Chroma::k420 || c == Chroma::k422; }
bool sub_y(Chroma c) { return c == Chroma::k420; }
bool semi_planar(PixelFormat f) {
  return f == PixelFormat::nv12 || f == PixelFormat::nv21 || f == PixelFormat::p010 || f == PixelFormat::p016;
}

}  // namespace

const char* chroma_name(Chroma c) {
  switch (c) {
    case Chroma::k400: return "4:0:0";
    case Chroma::k420: return "4:2:0";
    case Chroma::k422: return "4:2:2";
    case Chroma::k444: return "4:4:4";
  }
  return "?";
}

uint32_t chroma_width(Chroma c, uint32_t w) { return c == Chroma::k400 ? 0 : (sub_x(c) ? w >> 1 : w); }
uint32_t chroma_height(Chroma c, uint32_t h) { return c == Chroma::k400 ? 0 : (sub_y(c) ? h >> 1 : h); }
uint32_t chroma_width_stored(Chroma c, uint32_t w) { return c == Chroma::k400 ? 0 : (sub_x(c) ? (w + 1) >> 1 : w); }
uint32_t chroma_height_stored(Chroma c, uint32_t h) { return c == Chroma::k400 ? 0 : (sub_y(c) ? (h + 1) >> 1 : h); }

Status parse_pixel_format(std::string_view name, unsigned bit_depth, FormatInfo* out) {
  FormatInfo f;
  if (name == "420" || name == "i420" || name == "yuv420p") {
    f.format = PixelFormat::i420; f.chroma = Chroma::k420;
  } else if (name == "422" || name == "yuv422p") {
    f.format = PixelFormat::i420; f.chroma = Chroma::k422;
  } else if (name == "444" || name == "yuv444p") {
    f.format = PixelFormat::i420; f.chroma = Chroma::k444;
  } else if (name == "400" || name == "gray") {
    f.format = PixelFormat::gray; f.chroma = Chroma::k400;
  } else if (name == "yv12") {
    f.format = PixelFormat::yv12; f.chroma = Chroma::k420;
  } else if (name == "nv12") {
    f.format = PixelFormat::nv12; f.chroma = Chroma::k420;
  } else if (name == "nv21") {
    f.format = PixelFormat::nv21; f.chroma = Chroma::k420;
  } else if (name == "p010") {
    f.format = PixelFormat::p010; f.chroma = Chroma::k420;
    if (bit_depth == 0) bit_depth = 10;
  } else if (name == "p016") {
    f.format = PixelFormat::p016; f.chroma = Chroma::k420;
    if (bit_depth == 0) bit_depth = 16;
  } else {
    return {Errc::unsupported, "unknown pixel format '" + std::string(name) +
                                   "' (expected 420, 422, 444, 400, i420, yv12, nv12, nv21, p010 or p016)"};
  }
  if (bit_depth == 0) bit_depth = 8;
  if (bit_depth < 8 || bit_depth > 16)
    return {Errc::unsupported, "bit depth " + std::to_string(bit_depth) + " is outside 8..16"};
  if ((f.format == PixelFormat::nv12 || f.format == PixelFormat::nv21) && bit_depth != 8)
    return {Errc::unsupported, std::string(name) + " is an 8-bit layout; bit depth " + std::to_string(bit_depth) +
                                   " needs p010 or p016"};
  if (f.format == PixelFormat::p010 && bit_depth != 10)
    return {Errc::unsupported, "p010 holds 10-bit samples, not " + std::to_string(bit_depth)};
  if (f.format == PixelFormat::p016 && bit_depth != 16)
    return {Errc::unsupported, "p016 holds 16-bit samples, not " + std::to_string(bit_depth)};
  f.bit_depth = static_cast<uint8_t>(bit_depth);
  *out = f;
  return Status::ok();
}

unsigned packed_layout(const FormatInfo& fmt, uint32_t width, uint32_t height, PlaneLayout planes[3],
                       size_t* frame_size) {
  const size_t bps = fmt.bit_depth > 8 ? 2 : 1;
  const size_t cw = chroma_width_stored(fmt.chroma, width);
  const size_t ch = chroma_height_stored(fmt.chroma, height);
  planes[0] = {0, static_cast<ptrdiff_t>(width * bps)};
  size_t off = width * bps * height;
  unsigned n = 1;
  if (fmt.chroma != Chroma::k400) {
    if (semi_planar(fmt.format)) {
      planes[1] = {off, static_cast<ptrdiff_t>(2 * cw * bps)};
      off += 2 * cw * bps * ch;
      n = 2;
    } else {
      planes[1] = {off, static_cast<ptrdiff_t>(cw * bps)};
      off += cw * bps * ch;
      planes[2] = {off, static_cast<ptrdiff_t>(cw * bps)};
      off += cw * bps * ch;
      n = 3;
    }
  }
  *frame_size = off;
  return n;
}

Status make_picture_view(const FormatInfo& fmt, uint32_t width, uint32_t height, const uint8_t* base, size_t size,
                         const PlaneLayout* planes, unsigned n_planes, PictureView* out) {
  if (width == 0 || height == 0) return {Errc::invalid_argument, "picture has zero width or height"};
  PictureView v;
  v.chroma = fmt.chroma;
  v.bit_depth = fmt.bit_depth;
  v.bytes_per_sample = fmt.bit_depth > 8 ? 2 : 1;
  v.shift = fmt.format == PixelFormat::p010 ? 6 : 0;
  v.width = width;
  v.height = height;
  const unsigned bps = v.bytes_per_sample;
  const uint32_t cw = chroma_width_stored(fmt.chroma, width);
  const uint32_t ch = chroma_height_stored(fmt.chroma, height);
  const bool sp = semi_planar(fmt.format);
  const unsigned need = fmt.chroma == Chroma::k400 ? 1 : (sp ? 2 : 3);
  if (n_planes < need)
    return {Errc::invalid_argument, "format needs " + std::to_string(need) + " planes, got " + std::to_string(n_planes)};

  auto check = [&](unsigned i, uint32_t row_samples, uint32_t rows) -> Status {
    const PlaneLayout& p = planes[i];
    const size_t row_bytes = size_t(row_samples) * bps;
    if (p.stride < 0 || size_t(p.stride) < row_bytes)
      return {Errc::invalid_argument, "plane " + std::to_string(i) + " stride " + std::to_string(p.stride) +
                                          " is smaller than a row of " + std::to_string(row_bytes) + " bytes"};
    const size_t extent = size_t(p.stride) * (rows - 1) + row_bytes;
    if (p.offset > size || extent > size - p.offset)
      return {Errc::out_of_range, "plane " + std::to_string(i) + " (offset " + std::to_string(p.offset) + ", " +
                                      std::to_string(extent) + " bytes) runs past the end of the " +
                                      std::to_string(size) + "-byte buffer"};
    return Status::ok();
  };

  VMAFX_TRY(check(0, width, height));
  v.planes[0] = {base + planes[0].offset, planes[0].stride, width, height, 1};
  if (fmt.chroma != Chroma::k400) {
    if (sp) {
      VMAFX_TRY(check(1, 2 * cw, ch));
      const uint8_t* uv = base + planes[1].offset;
      const bool vu = fmt.format == PixelFormat::nv21;
      v.planes[1] = {uv + (vu ? bps : 0), planes[1].stride, cw, ch, 2};
      v.planes[2] = {uv + (vu ? 0 : bps), planes[1].stride, cw, ch, 2};
    } else {
      VMAFX_TRY(check(1, cw, ch));
      VMAFX_TRY(check(2, cw, ch));
      const bool swap = fmt.format == PixelFormat::yv12;
      v.planes[swap ? 2 : 1] = {base + planes[1].offset, planes[1].stride, cw, ch, 1};
      v.planes[swap ? 1 : 2] = {base + planes[2].offset, planes[2].stride, cw, ch, 1};
    }
  }
  *out = v;
  return Status::ok();
}

Status validate_view(const PictureView& v) {
  if (v.width == 0 || v.height == 0) return {Errc::invalid_argument, "picture has zero width or height"};
  if (v.bit_depth < 8 || v.bit_depth > 16)
    return {Errc::unsupported, "bit depth " + std::to_string(v.bit_depth) + " is outside 8..16"};
  if (v.bytes_per_sample != (v.bit_depth > 8 ? 2 : 1))
    return {Errc::invalid_argument, "bytes per sample does not match bit depth"};
  if (v.bit_depth + v.shift > 8 * v.bytes_per_sample) return {Errc::invalid_argument, "sample shift too large"};
  for (unsigned i = 0; i < v.plane_count(); i++) {
    const PlaneView& p = v.planes[i];
    if (!p.data) return {Errc::invalid_argument, "plane " + std::to_string(i) + " has no data"};
    const uint32_t need_w = i == 0 ? v.width : chroma_width(v.chroma, v.width);
    const uint32_t need_h = i == 0 ? v.height : chroma_height(v.chroma, v.height);
    if (p.width < need_w || p.height < need_h)
      return {Errc::invalid_argument, "plane " + std::to_string(i) + " is smaller than the picture needs"};
    if (p.step == 0 || (i == 0 && p.step != 1)) return {Errc::invalid_argument, "bad sample step"};
  }
  return Status::ok();
}

Status check_pair(const PictureView& ref, const PictureView& dist) {
  VMAFX_TRY(validate_view(ref).prepend("reference"));
  VMAFX_TRY(validate_view(dist).prepend("distorted"));
  if (ref.width != dist.width || ref.height != dist.height)
    return {Errc::unsupported, "reference is " + std::to_string(ref.width) + "x" + std::to_string(ref.height) +
                                   " but distorted is " + std::to_string(dist.width) + "x" +
                                   std::to_string(dist.height)};
  if (ref.bit_depth != dist.bit_depth)
    return {Errc::unsupported, "reference is " + std::to_string(ref.bit_depth) + "-bit but distorted is " +
                                   std::to_string(dist.bit_depth) + "-bit"};
  if (ref.chroma != dist.chroma)
    return {Errc::unsupported, std::string("reference chroma is ") + chroma_name(ref.chroma) + " but distorted is " +
                                   chroma_name(dist.chroma)};
  return Status::ok();
}

}  // namespace vmafx
