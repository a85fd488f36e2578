// SPDX-License-Identifier: LGPL-2.1-or-later
// The host half of CUDA memory input (vmafx/cuda.h): a frame's checks and the in-place / copy rule. No device call.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>

#include "vmafx/cuda.h"

namespace vmafx::cuda {

namespace {

bool semi_planar(PixelFormat f) {
  return f == PixelFormat::nv12 || f == PixelFormat::nv21 || f == PixelFormat::p010 || f == PixelFormat::p016;
}

std::string pointer_text(uint64_t p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, p);
  return buf;
}

}  // namespace

std::string describe_cuda_context(const void* context, int device) {
  return "CUDA context " + pointer_text(uint64_t(reinterpret_cast<uintptr_t>(context))) + " of device " +
         std::to_string(device);
}

Status plan_cuda_picture(const CudaFrame& frame, PictureView* out, size_t extent[3]) {
  const FormatInfo& fmt = frame.format;
  if (frame.width == 0 || frame.height == 0)
    return {Errc::invalid_argument, "CUDA frame of " + std::to_string(frame.width) + "x" +
                                        std::to_string(frame.height) + " pixels"};
  const bool sp = semi_planar(fmt.format);
  const unsigned need = fmt.chroma == Chroma::k400 ? 1u : (sp ? 2u : 3u);
  if (frame.n_planes < need || frame.n_planes > 3)
    return {Errc::invalid_argument, "CUDA frame has " + std::to_string(frame.n_planes) +
                                        " plane(s); its format needs " + std::to_string(need)};
  const size_t bps = fmt.bit_depth > 8 ? 2 : 1;
  const uint32_t cw = chroma_width_stored(fmt.chroma, frame.width);
  const uint32_t ch = chroma_height_stored(fmt.chroma, frame.height);
  size_t ext[3] = {0, 0, 0};
  uint64_t lo = UINT64_MAX, hi = 0;
  for (unsigned i = 0; i < need; i++) {
    const CudaPlane& p = frame.planes[i];
    const size_t row_bytes = (i == 0 ? frame.width : (sp ? 2 * size_t(cw) : cw)) * bps;
    const uint32_t rows = i == 0 ? frame.height : ch;
    const std::string name = "CUDA frame plane " + std::to_string(i);
    if (p.data == 0) return {Errc::invalid_argument, name + " has no device pointer"};
    if (p.stride <= 0 || size_t(p.stride) < row_bytes)
      return {Errc::invalid_argument, name + " stride " + std::to_string(p.stride) + " is smaller than a row of " +
                                          std::to_string(row_bytes) + " bytes"};
    ext[i] = size_t(p.stride) * (rows - 1) + row_bytes;
    if (ext[i] > p.available)
      return {Errc::out_of_range, name + " (" + std::to_string(rows) + " rows of " + std::to_string(row_bytes) +
                                      " bytes, stride " + std::to_string(p.stride) + ": " + std::to_string(ext[i]) +
                                      " bytes) runs past the end of its memory (" + std::to_string(p.available) +
                                      " bytes from the plane's start)"};
    if (p.data > UINT64_MAX - ext[i]) return {Errc::out_of_range, name + " wraps around the address space"};
    lo = std::min(lo, p.data);
    hi = std::max(hi, p.data + ext[i]);
  }
  // Every plane is inside its own allocation (checked above); one view over the span they cover places them.
  PlaneLayout layout[3];
  for (unsigned i = 0; i < need; i++) layout[i] = {size_t(frame.planes[i].data - lo), frame.planes[i].stride};
  PictureView v;
  const auto* base = reinterpret_cast<const uint8_t*>(uintptr_t(lo));
  VMAFX_TRY(make_picture_view(fmt, frame.width, frame.height, base, size_t(hi - lo), layout, need, &v)
                .prepend("CUDA frame"));
  v.memory = MemoryKind::device;
  v.device = frame.device;
  *out = v;
  if (extent)
    for (unsigned i = 0; i < 3; i++) extent[i] = ext[i];
  return Status::ok();
}

CudaPathDecision decide_cuda_path(const void* frame_context, int frame_device, const void* our_context,
                                  int our_device, bool allow_copy) {
  CudaPathDecision d;
  if (frame_context && frame_context == our_context) {
    d.path = CudaPath::in_place;
    return d;
  }
  const std::string theirs = frame_context ? describe_cuda_context(frame_context, frame_device)
                                           : "an unknown CUDA context of device " + std::to_string(frame_device);
  const std::string where = frame_device == our_device ? "the same GPU, another context" : "another GPU";
  d.reason = "the frame's memory belongs to " + theirs + ", the scorer runs on " +
             describe_cuda_context(our_context, our_device) + " (" + where +
             "): the producer and the scorer do not share a CUDA context";
  d.path = allow_copy ? CudaPath::copy : CudaPath::refuse;
  d.reason += allow_copy ? "; frames are copied device to device (allow-copy=true)"
                         : "; allow-copy=false forbids the device-to-device copy";
  return d;
}

}  // namespace vmafx::cuda
