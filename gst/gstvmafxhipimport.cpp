// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhipimport.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

namespace vmafx::gst {

namespace {

bool semi_planar(PixelFormat f) {
  return f == PixelFormat::nv12 || f == PixelFormat::nv21 || f == PixelFormat::p010 || f == PixelFormat::p016;
}

// Samples per stored row of plane i and stored rows, as GStreamer lays the planes out (chroma sizes rounded up).
void plane_extent(const FormatInfo& fmt, uint32_t width, uint32_t height, unsigned i, size_t* row_bytes,
                  uint32_t* rows) {
  const size_t bps = fmt.bit_depth > 8 ? 2 : 1;
  if (i == 0) {
    *row_bytes = size_t(width) * bps;
    *rows = height;
    return;
  }
  const size_t cw = chroma_width_stored(fmt.chroma, width);
  *row_bytes = (semi_planar(fmt.format) ? 2 * cw : cw) * bps;
  *rows = chroma_height_stored(fmt.chroma, height);
}

std::string describe(const GstVideoInfo& info) {
  return std::string(gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info))) + " " +
         std::to_string(GST_VIDEO_INFO_WIDTH(&info)) + "x" + std::to_string(GST_VIDEO_INFO_HEIGHT(&info));
}

}  // namespace

bool format_info_for(GstVideoFormat format, FormatInfo* out) {
  FormatInfo f;
  switch (format) {
    case GST_VIDEO_FORMAT_I420: f = {PixelFormat::i420, Chroma::k420, 8}; break;
    case GST_VIDEO_FORMAT_YV12: f = {PixelFormat::yv12, Chroma::k420, 8}; break;
    case GST_VIDEO_FORMAT_NV12: f = {PixelFormat::nv12, Chroma::k420, 8}; break;
    case GST_VIDEO_FORMAT_NV21: f = {PixelFormat::nv21, Chroma::k420, 8}; break;
    case GST_VIDEO_FORMAT_Y42B: f = {PixelFormat::i420, Chroma::k422, 8}; break;
    case GST_VIDEO_FORMAT_Y444: f = {PixelFormat::i420, Chroma::k444, 8}; break;
    case GST_VIDEO_FORMAT_GRAY8: f = {PixelFormat::gray, Chroma::k400, 8}; break;
    case GST_VIDEO_FORMAT_I420_10LE: f = {PixelFormat::i420, Chroma::k420, 10}; break;
    case GST_VIDEO_FORMAT_I422_10LE: f = {PixelFormat::i420, Chroma::k422, 10}; break;
    case GST_VIDEO_FORMAT_Y444_10LE: f = {PixelFormat::i420, Chroma::k444, 10}; break;
    case GST_VIDEO_FORMAT_I420_12LE: f = {PixelFormat::i420, Chroma::k420, 12}; break;
    case GST_VIDEO_FORMAT_I422_12LE: f = {PixelFormat::i420, Chroma::k422, 12}; break;
    case GST_VIDEO_FORMAT_Y444_12LE: f = {PixelFormat::i420, Chroma::k444, 12}; break;
    case GST_VIDEO_FORMAT_P010_10LE: f = {PixelFormat::p010, Chroma::k420, 10}; break;
    case GST_VIDEO_FORMAT_P016_LE: f = {PixelFormat::p016, Chroma::k420, 16}; break;
    case GST_VIDEO_FORMAT_GRAY16_LE: f = {PixelFormat::gray, Chroma::k400, 16}; break;
    default: return false;
  }
  *out = f;
  return true;
}

size_t required_buffer_size(const GstVideoInfo& info, const size_t* offsets, const gint* strides,
                            unsigned n_planes) {
  FormatInfo fmt;
  if (!format_info_for(GST_VIDEO_INFO_FORMAT(&info), &fmt)) return 0;
  size_t end = 0;
  for (unsigned i = 0; i < n_planes; i++) {
    size_t row_bytes;
    uint32_t rows;
    plane_extent(fmt, GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info), i, &row_bytes, &rows);
    if (rows == 0) continue;
    const size_t stride = strides[i] > 0 ? size_t(strides[i]) : row_bytes;
    end = std::max(end, offsets[i] + stride * (rows - 1) + row_bytes);
  }
  return end;
}

Status import_system_memory(GstBuffer* buffer, const GstVideoInfo& info, ImportedPicture* out) {
  FormatInfo fmt;
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT(&info);
  if (!format_info_for(format, &fmt))
    return {Errc::unsupported, std::string("format ") + gst_video_format_to_string(format) + " is not supported"};
  const uint32_t width = GST_VIDEO_INFO_WIDTH(&info), height = GST_VIDEO_INFO_HEIGHT(&info);
  const unsigned n_planes = GST_VIDEO_INFO_N_PLANES(&info);

  // The layout the buffer claims: its video meta, or the caps' default layout.
  size_t offsets[GST_VIDEO_MAX_PLANES] = {};
  gint strides[GST_VIDEO_MAX_PLANES] = {};
  const GstVideoMeta* meta = gst_buffer_get_video_meta(buffer);
  size_t need;
  if (meta) {
    if (meta->format != format || meta->width != width || meta->height != height || meta->n_planes != n_planes)
      return {Errc::invalid_argument, std::string("buffer's video meta (") + gst_video_format_to_string(meta->format) +
                                          " " + std::to_string(meta->width) + "x" + std::to_string(meta->height) +
                                          ") does not match its caps (" + describe(info) + ")"};
    for (unsigned i = 0; i < n_planes; i++) {
      offsets[i] = meta->offset[i];
      strides[i] = meta->stride[i];
    }
    need = required_buffer_size(info, offsets, strides, n_planes);
  } else {
    for (unsigned i = 0; i < n_planes; i++) {
      offsets[i] = GST_VIDEO_INFO_PLANE_OFFSET(&info, i);
      strides[i] = GST_VIDEO_INFO_PLANE_STRIDE(&info, i);
    }
    // Without a meta GStreamer's contract is the caps' whole frame size (gst_video_frame_map checks it too).
    need = std::max<size_t>(required_buffer_size(info, offsets, strides, n_planes), GST_VIDEO_INFO_SIZE(&info));
  }
  for (unsigned i = 0; i < n_planes; i++) {
    if (strides[i] <= 0)
      return {Errc::invalid_argument, "plane " + std::to_string(i) + " has stride " + std::to_string(strides[i]) +
                                          " (" + describe(info) + ")"};
  }
  const size_t have = gst_buffer_get_size(buffer);
  if (have < need)
    return {Errc::out_of_range, "buffer of " + std::to_string(have) + " bytes is smaller than the " +
                                    std::to_string(need) + " bytes its caps need (" + describe(info) +
                                    (meta ? ", layout from its video meta)" : ")")};

  auto frame = std::make_unique<GstVideoFrame>();
  std::memset(frame.get(), 0, sizeof(GstVideoFrame));
  // gst_video_frame_map reads const info and keeps its own copy; it takes a reference on the buffer.
  if (!gst_video_frame_map(frame.get(), const_cast<GstVideoInfo*>(&info), buffer, GST_MAP_READ))
    return {Errc::io_error, "could not map a " + std::to_string(have) + "-byte " + describe(info) +
                                " buffer for reading"};

  // Each plane must lie inside the mapping that holds it (one mapping without a meta, one per plane with one).
  const uint8_t* lo = nullptr;
  const uint8_t* hi = nullptr;
  const uint8_t* data[GST_VIDEO_MAX_PLANES] = {};
  for (unsigned i = 0; i < n_planes; i++) {
    data[i] = static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(frame.get(), i));
    const GstMapInfo& m = frame->map[meta ? i : 0];
    const uint8_t* m_lo = m.data;
    const uint8_t* m_hi = m.data + m.size;
    size_t row_bytes;
    uint32_t rows;
    plane_extent(fmt, width, height, i, &row_bytes, &rows);
    const size_t stride = size_t(GST_VIDEO_FRAME_PLANE_STRIDE(frame.get(), i));
    const size_t extent = rows ? stride * (rows - 1) + row_bytes : 0;
    if (data[i] < m_lo || data[i] > m_hi || extent > size_t(m_hi - data[i])) {
      gst_video_frame_unmap(frame.get());
      return {Errc::out_of_range, "plane " + std::to_string(i) + " (" + std::to_string(extent) +
                                      " bytes) runs past the end of its mapped memory (" + describe(info) + ")"};
    }
    lo = lo ? std::min(lo, m_lo) : m_lo;
    hi = hi ? std::max(hi, m_hi) : m_hi;
  }
  PlaneLayout layout[3];
  for (unsigned i = 0; i < n_planes && i < 3; i++)
    layout[i] = {size_t(data[i] - lo), static_cast<ptrdiff_t>(GST_VIDEO_FRAME_PLANE_STRIDE(frame.get(), i))};
  PictureView view;
  Status s = make_picture_view(fmt, width, height, lo, size_t(hi - lo), layout, std::min(n_planes, 3u), &view);
  if (!s.is_ok()) {
    gst_video_frame_unmap(frame.get());
    return s.prepend(describe(info));
  }
  view.memory = MemoryKind::host;
  GstVideoFrame* held = frame.release();
  *out = ImportedPicture(view, [held] {
    gst_video_frame_unmap(held);
    delete held;
  });
  return Status::ok();
}

}  // namespace vmafx::gst
