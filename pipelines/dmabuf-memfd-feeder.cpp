// SPDX-License-Identifier: LGPL-2.1-or-later
// Scores two raw .yuv files through vmafxhip with memory:DMABuf input made in this process: every frame is copied
// into a memfd laid out as a GPU allocator would (plane pitches rounded up to 256 bytes, planes 4096-aligned),
// wrapped in GstDmaBufAllocator memory with a GstVideoMeta, and pushed through appsrc with dma-buf caps. A memfd is
// not a real dma-buf (the dma-buf ioctls fail on it; the element maps it without them), but it travels the same path
// through GStreamer and the element. Prints each VMAF message as `gst-launch-1.0 -m` does (one line), so
// pipelines/format-vmaf-messages.sh can summarise it; errors and warnings go to stderr.
//
//   dmabuf-memfd-feeder REF.yuv DIST.yuv WIDTH HEIGHT BITS LAYOUT FORM [vmafxhip property=value ...]
//     BITS   8 (files are I420) or 10 (I420_10LE)
//     LAYOUT planar (I420 / I420_10LE) or semi (NV12 / P010_10LE: chroma interleaved, 10-bit samples in the high bits)
//     FORM   1.22 (format=NV12 ...) or drm (format=DMA_DRM, drm-format=NV12 ...)
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gst/allocators/allocators.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

struct Args {
  std::string ref, dist;
  unsigned width = 0, height = 0, bits = 8;
  bool semi = false, drm = false;
  std::string props;
};

size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

// One frame of a tightly packed planar 4:2:0 file into a memfd in the chosen layout; a buffer with its video meta.
GstBuffer* frame_buffer(GstAllocator* alloc, const Args& a, const uint8_t* src, GstVideoFormat format) {
  const size_t bps = a.bits > 8 ? 2 : 1;
  const size_t w = a.width, h = a.height, cw = (w + 1) / 2, ch = (h + 1) / 2;
  const uint8_t* y = src;
  const uint8_t* u = y + w * h * bps;
  const uint8_t* v = u + cw * ch * bps;
  const unsigned n_planes = a.semi ? 2 : 3;
  size_t row[3] = {w * bps, (a.semi ? 2 * cw : cw) * bps, cw * bps};
  size_t rows[3] = {h, ch, ch};
  gsize offset[4] = {0, 0, 0, 0};
  gint stride[4] = {0, 0, 0, 0};
  size_t size = 0;
  for (unsigned i = 0; i < n_planes; i++) {
    offset[i] = round_up(size, 4096);
    stride[i] = gint(round_up(row[i], 256));
    size = offset[i] + size_t(stride[i]) * rows[i];
  }
  std::vector<uint8_t> bytes(size, 0);
  auto put = [&](uint8_t* dst, const uint8_t* s, size_t n_samples, unsigned shift) {
    if (bps == 1) {
      std::memcpy(dst, s, n_samples);
      return;
    }
    for (size_t k = 0; k < n_samples; k++) {
      uint16_t x;
      std::memcpy(&x, s + 2 * k, 2);
      x = uint16_t(x << shift);
      std::memcpy(dst + 2 * k, &x, 2);
    }
  };
  const unsigned shift = a.semi && a.bits == 10 ? 6 : 0;  // P010 keeps its 10 bits high
  for (size_t r = 0; r < h; r++) put(&bytes[offset[0] + r * size_t(stride[0])], y + r * w * bps, w, shift);
  for (size_t r = 0; r < ch; r++) {
    if (a.semi) {
      uint8_t* d = &bytes[offset[1] + r * size_t(stride[1])];
      for (size_t x = 0; x < cw; x++) {
        put(d + 2 * x * bps, u + (r * cw + x) * bps, 1, shift);
        put(d + (2 * x + 1) * bps, v + (r * cw + x) * bps, 1, shift);
      }
    } else {
      put(&bytes[offset[1] + r * size_t(stride[1])], u + r * cw * bps, cw, 0);
      put(&bytes[offset[2] + r * size_t(stride[2])], v + r * cw * bps, cw, 0);
    }
  }
  const int fd = memfd_create("vmafx-dmabuf-frame", MFD_CLOEXEC);
  if (fd < 0 || pwrite(fd, bytes.data(), bytes.size(), 0) != ssize_t(bytes.size())) {
    std::perror("memfd");
    std::exit(1);
  }
  GstBuffer* b = gst_buffer_new();
  gst_buffer_append_memory(b, gst_dmabuf_allocator_alloc(alloc, fd, bytes.size()));  // the memory owns the fd
  gst_buffer_add_video_meta_full(b, GST_VIDEO_FRAME_FLAG_NONE, format, a.width, a.height, n_planes, offset, stride);
  return b;
}

struct Loop {
  GMainLoop* loop = nullptr;
  bool failed = false;
};

gboolean on_message(GstBus*, GstMessage* m, gpointer data) {
  auto* ctx = static_cast<Loop*>(data);
  switch (GST_MESSAGE_TYPE(m)) {
    case GST_MESSAGE_ELEMENT: {
      const GstStructure* s = gst_message_get_structure(m);
      if (s && gst_structure_has_name(s, "VMAF")) {
        gchar* str = gst_structure_to_string(s);
        std::printf("Got message from element \"%s\" (element): %s\n", GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), str);
        std::fflush(stdout);
        g_free(str);
      }
      break;
    }
    case GST_MESSAGE_ERROR:
    case GST_MESSAGE_WARNING: {
      GError* e = nullptr;
      gchar* dbg = nullptr;
      if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR)
        gst_message_parse_error(m, &e, &dbg);
      else
        gst_message_parse_warning(m, &e, &dbg);
      std::fprintf(stderr, "%s from %s: %s\n  %s\n", GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR ? "ERROR" : "WARNING",
                   GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), e ? e->message : "", dbg ? dbg : "");
      g_clear_error(&e);
      g_free(dbg);
      if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
        ctx->failed = true;
        g_main_loop_quit(ctx->loop);
      }
      break;
    }
    case GST_MESSAGE_EOS: g_main_loop_quit(ctx->loop); break;
    default: break;
  }
  return TRUE;
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  if (argc < 8) {
    std::fprintf(stderr, "usage: %s REF.yuv DIST.yuv WIDTH HEIGHT BITS(8|10) LAYOUT(planar|semi) FORM(1.22|drm) "
                         "[vmafxhip property=value ...]\n", argv[0]);
    return 2;
  }
  Args a;
  a.ref = argv[1];
  a.dist = argv[2];
  a.width = unsigned(std::atoi(argv[3]));
  a.height = unsigned(std::atoi(argv[4]));
  a.bits = unsigned(std::atoi(argv[5]));
  a.semi = std::string(argv[6]) == "semi";
  a.drm = std::string(argv[7]) == "drm";
  for (int i = 8; i < argc; i++) a.props += std::string(" ") + argv[i];
  if ((a.bits != 8 && a.bits != 10) || !a.width || !a.height) {
    std::fprintf(stderr, "BITS must be 8 or 10, WIDTH and HEIGHT positive\n");
    return 2;
  }
  const GstVideoFormat format = a.semi ? (a.bits > 8 ? GST_VIDEO_FORMAT_P010_10LE : GST_VIDEO_FORMAT_NV12)
                                       : (a.bits > 8 ? GST_VIDEO_FORMAT_I420_10LE : GST_VIDEO_FORMAT_I420);
  const char* drm_format = a.semi ? (a.bits > 8 ? "P010" : "NV12") : (a.bits > 8 ? "S010" : "YU12");
  const std::string dims = ",width=" + std::to_string(a.width) + ",height=" + std::to_string(a.height) +
                           ",framerate=25/1";
  const std::string caps = a.drm ? std::string("video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=") + drm_format + dims
                                 : std::string("video/x-raw(memory:DMABuf),format=") + gst_video_format_to_string(format) + dims;
  const size_t bps = a.bits > 8 ? 2 : 1;
  const size_t frame_size = (size_t(a.width) * a.height + 2 * size_t((a.width + 1) / 2) * ((a.height + 1) / 2)) * bps;

  const std::string launch = "appsrc name=r format=time caps=\"" + caps + "\" ! v.ref_sink appsrc name=d format=time caps=\"" +
                             caps + "\" ! v.dist_sink vmafxhip name=v frame-message=true" + a.props + " ! fakesink";
  GError* err = nullptr;
  GstElement* pipeline = gst_parse_launch(launch.c_str(), &err);
  if (!pipeline || err) {
    std::fprintf(stderr, "cannot build the pipeline: %s\n", err ? err->message : "?");
    return 1;
  }
  GstAllocator* alloc = gst_dmabuf_allocator_new();
  for (int side = 0; side < 2; side++) {
    std::ifstream in(side ? a.dist : a.ref, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", (side ? a.dist : a.ref).c_str());
      return 1;
    }
    std::vector<uint8_t> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (data.size() % frame_size) {
      std::fprintf(stderr, "%s: %zu bytes is not a whole number of %zu-byte frames\n",
                   (side ? a.dist : a.ref).c_str(), data.size(), frame_size);
      return 1;
    }
    GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), side ? "d" : "r");
    // appsrc queues everything before the pipeline runs: fine for short clips (each frame is one memfd).
    g_object_set(src, "max-bytes", guint64(0), nullptr);
    for (size_t i = 0; i < data.size() / frame_size; i++) {
      GstBuffer* b = frame_buffer(alloc, a, data.data() + i * frame_size, format);
      GST_BUFFER_PTS(b) = i * GST_SECOND / 25;
      GST_BUFFER_DURATION(b) = GST_SECOND / 25;
      gst_app_src_push_buffer(GST_APP_SRC(src), b);
    }
    gst_app_src_end_of_stream(GST_APP_SRC(src));
    gst_object_unref(src);
  }
  Loop ctx;
  ctx.loop = g_main_loop_new(nullptr, FALSE);
  GstBus* bus = gst_element_get_bus(pipeline);
  gst_bus_add_watch(bus, on_message, &ctx);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  g_main_loop_run(ctx.loop);
  const bool failed = ctx.failed;
  guint64 copied = 0;
  GstElement* v = gst_bin_get_by_name(GST_BIN(pipeline), "v");
  if (g_object_class_find_property(G_OBJECT_GET_CLASS(v), "frames-copied")) g_object_get(v, "frames-copied", &copied, nullptr);
  std::fprintf(stderr, "frames-copied: %llu\n", static_cast<unsigned long long>(copied));
  gst_object_unref(v);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_bus_remove_watch(bus);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
  gst_object_unref(alloc);
  g_main_loop_unref(ctx.loop);
  return failed ? 1 : 0;
}
