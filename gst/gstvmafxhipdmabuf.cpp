// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhipdmabuf.h"

#include <gst/allocators/allocators.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "gstvmafxhipmessages.h"

GST_DEBUG_CATEGORY_EXTERN(gst_vmafxhip_debug);
#define GST_CAT_DEFAULT gst_vmafxhip_debug

namespace vmafx::gst {

namespace {

struct FormatPair {
  GstVideoFormat format;
  uint32_t fourcc;
};

const FormatPair kFormats[] = {
    {GST_VIDEO_FORMAT_I420, kDrmFormatYUV420},      {GST_VIDEO_FORMAT_YV12, kDrmFormatYVU420},
    {GST_VIDEO_FORMAT_NV12, kDrmFormatNV12},        {GST_VIDEO_FORMAT_NV21, kDrmFormatNV21},
    {GST_VIDEO_FORMAT_Y42B, kDrmFormatYUV422},      {GST_VIDEO_FORMAT_Y444, kDrmFormatYUV444},
    {GST_VIDEO_FORMAT_GRAY8, kDrmFormatR8},         {GST_VIDEO_FORMAT_GRAY16_LE, kDrmFormatR16},
    {GST_VIDEO_FORMAT_I420_10LE, kDrmFormatS010},   {GST_VIDEO_FORMAT_I422_10LE, kDrmFormatS210},
    {GST_VIDEO_FORMAT_Y444_10LE, kDrmFormatS410},   {GST_VIDEO_FORMAT_I420_12LE, kDrmFormatS012},
    {GST_VIDEO_FORMAT_I422_12LE, kDrmFormatS212},   {GST_VIDEO_FORMAT_Y444_12LE, kDrmFormatS412},
    {GST_VIDEO_FORMAT_P010_10LE, kDrmFormatP010},   {GST_VIDEO_FORMAT_P016_LE, kDrmFormatP016},
};

std::string hex_modifier(uint64_t m) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(m));
  return buf;
}

// The element's own handlers, wrapped by dmabuf_class_init.
gboolean (*element_sink_event)(GstAggregator*, GstAggregatorPad*, GstEvent*) = nullptr;
gboolean (*element_sink_query)(GstAggregator*, GstAggregatorPad*, GstQuery*) = nullptr;

gboolean dmabuf_sink_event(GstAggregator* agg, GstAggregatorPad* pad, GstEvent* event) {
  if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
    GstCaps* caps = nullptr;
    gst_event_parse_caps(event, &caps);
    if (is_dma_drm_caps(caps)) {
      GstCaps* video = nullptr;
      Status s = dma_drm_to_video_caps(caps, &video);
      if (!s) {
        gchar* c = gst_caps_to_string(caps);
        s.prepend(std::string(GST_PAD_NAME(pad)) + " caps " + c);
        g_free(c);
        post_status(GST_ELEMENT(agg), GST_MESSAGE_ERROR, error_code_for(s.code()),
                    std::string("Unsupported dma-buf layout on ") + GST_PAD_NAME(pad), s, __FILE__, GST_FUNCTION,
                    __LINE__);
        gst_event_unref(event);
        return FALSE;
      }
      GST_DEBUG_OBJECT(pad, "DMA_DRM caps handed to the base class as %" GST_PTR_FORMAT, video);
      GstEvent* translated = gst_event_new_caps(video);
      gst_event_set_seqnum(translated, gst_event_get_seqnum(event));
      gst_caps_unref(video);
      gst_event_unref(event);
      event = translated;
    }
  }
  return element_sink_event(agg, pad, event);
}

gboolean dmabuf_sink_query(GstAggregator* agg, GstAggregatorPad* pad, GstQuery* query) {
  if (GST_QUERY_TYPE(query) == GST_QUERY_ACCEPT_CAPS) {
    GstCaps* caps = nullptr;
    gst_query_parse_accept_caps(query, &caps);
    if (is_dma_drm_caps(caps) && gst_caps_is_fixed(caps)) {
      GstCaps* video = nullptr;
      if (!dma_drm_to_video_caps(caps, &video).is_ok()) {
        // Accepted here so that the CAPS event refuses it with an error naming drm-format or the modifier.
        uint32_t fourcc = 0;
        uint64_t modifier = 0;
        gst_query_set_accept_caps_result(query, parse_dma_drm_caps(caps, &fourcc, &modifier).is_ok());
        return TRUE;
      }
      GstQuery* q = gst_query_new_accept_caps(video);
      const gboolean handled = element_sink_query(agg, pad, q);
      gboolean result = FALSE;
      if (handled) gst_query_parse_accept_caps_result(q, &result);
      gst_query_set_accept_caps_result(query, handled && result);
      gst_query_unref(q);
      gst_caps_unref(video);
      return TRUE;
    }
  }
  return element_sink_query(agg, pad, query);
}

}  // namespace

uint32_t drm_fourcc_for(GstVideoFormat format) {
  for (const auto& f : kFormats)
    if (f.format == format) return f.fourcc;
  return 0;
}

GstVideoFormat video_format_for_drm(uint32_t fourcc) {
  for (const auto& f : kFormats)
    if (f.fourcc == fourcc) return f.format;
  return GST_VIDEO_FORMAT_UNKNOWN;
}

bool is_dma_drm_caps(const GstCaps* caps) {
  if (!caps || gst_caps_get_size(caps) == 0) return false;
  GstCapsFeatures* f = gst_caps_get_features(caps, 0);
  if (!f || !gst_caps_features_contains(f, GST_CAPS_FEATURE_MEMORY_DMABUF)) return false;
  const gchar* format = gst_structure_get_string(gst_caps_get_structure(caps, 0), "format");
  return format && g_str_equal(format, "DMA_DRM");
}

Status parse_dma_drm_caps(const GstCaps* caps, uint32_t* fourcc, uint64_t* modifier) {
  const gchar* s = gst_structure_get_string(gst_caps_get_structure(caps, 0), "drm-format");
  if (!s) return {Errc::invalid_argument, "DMA_DRM caps without a (fixed) drm-format"};
  const std::string field(s);
  const size_t colon = field.find(':');
  VMAFX_TRY(parse_drm_fourcc(field.substr(0, colon), fourcc).prepend("drm-format '" + field + "'"));
  *modifier = kDrmModLinear;
  if (colon != std::string::npos) {
    const std::string m = field.substr(colon + 1);
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(m.c_str(), &end, 16);
    if (m.size() < 3 || m.compare(0, 2, "0x") != 0 || errno || !end || *end)
      return {Errc::invalid_argument, "drm-format '" + field + "': modifier '" + m + "' is not a 0x hex number"};
    *modifier = v;
  }
  return Status::ok();
}

Status dma_drm_to_video_caps(const GstCaps* caps, GstCaps** out) {
  *out = nullptr;
  uint32_t fourcc = 0;
  uint64_t modifier = 0;
  VMAFX_TRY(parse_dma_drm_caps(caps, &fourcc, &modifier));
  FormatInfo fi;
  VMAFX_TRY(drm_format_info(fourcc, &fi, nullptr));  // names drm-format and lists what is read
  const GstVideoFormat format = video_format_for_drm(fourcc);
  if (format == GST_VIDEO_FORMAT_UNKNOWN)
    return {Errc::unsupported, "drm-format " + drm_fourcc_name(fourcc) + " has no GStreamer format"};
  if (modifier != kDrmModLinear) {
    return {Errc::unsupported, "modifier " + hex_modifier(modifier) + " of drm-format " + drm_fourcc_name(fourcc) +
                                   " is not linear: tiled or compressed layouts are not read"};
  }
  GstCaps* video = gst_caps_copy(caps);
  GstStructure* st = gst_caps_get_structure(video, 0);
  gst_structure_set(st, "format", G_TYPE_STRING, gst_video_format_to_string(format), nullptr);
  gst_structure_remove_field(st, "drm-format");
  *out = video;
  return Status::ok();
}

Status dmabuf_format_of_caps(const GstCaps* caps, const GstVideoInfo& info, uint32_t* fourcc, uint64_t* modifier) {
  if (is_dma_drm_caps(caps)) return parse_dma_drm_caps(caps, fourcc, modifier);
  *fourcc = drm_fourcc_for(GST_VIDEO_INFO_FORMAT(&info));
  *modifier = kDrmModLinear;  // the 1.22 form carries no modifier: linear by GStreamer's convention
  if (*fourcc == 0)
    return {Errc::unsupported, std::string("format ") + gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)) +
                                   " has no DRM fourcc the engine reads"};
  return Status::ok();
}

void dmabuf_class_init(GstAggregatorClass* klass) {
  element_sink_event = klass->sink_event;
  element_sink_query = klass->sink_query;
  klass->sink_event = dmabuf_sink_event;
  klass->sink_query = dmabuf_sink_query;
}

GstCaps* output_caps_with_features(const GstCaps* dist, const GstVideoInfo& info) {
  GstCaps* caps = gst_video_info_to_caps(&info);
  GstCapsFeatures* f = dist && gst_caps_get_size(dist) ? gst_caps_get_features(dist, 0) : nullptr;
  if (f && !gst_caps_features_is_equal(f, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
    gst_caps_set_features(caps, 0, gst_caps_features_copy(f));
  return caps;
}

Status describe_dmabuf_buffer(GstBuffer* buffer, const GstVideoInfo& info, uint32_t fourcc, uint64_t modifier,
                              DmaBufFrame* out) {
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT(&info);
  const unsigned n_planes = GST_VIDEO_INFO_N_PLANES(&info);
  if (n_planes == 0 || n_planes > 3)
    return {Errc::unsupported, std::string("format ") + gst_video_format_to_string(format) + " has " +
                                   std::to_string(n_planes) + " planes"};
  DmaBufFrame f;
  f.drm_format = fourcc;
  f.modifier = modifier;
  f.width = GST_VIDEO_INFO_WIDTH(&info);
  f.height = GST_VIDEO_INFO_HEIGHT(&info);
  f.n_planes = n_planes;
  const GstVideoMeta* meta = gst_buffer_get_video_meta(buffer);
  if (meta && (meta->format != format || meta->width != f.width || meta->height != f.height ||
               meta->n_planes != n_planes)) {
    return {Errc::invalid_argument, std::string("buffer's video meta (") + gst_video_format_to_string(meta->format) +
                                        " " + std::to_string(meta->width) + "x" + std::to_string(meta->height) +
                                        ", " + std::to_string(meta->n_planes) + " planes) does not match its caps (" +
                                        gst_video_format_to_string(format) + " " + std::to_string(f.width) + "x" +
                                        std::to_string(f.height) + ")"};
  }
  const gsize buffer_size = gst_buffer_get_size(buffer);
  for (unsigned i = 0; i < n_planes; i++) {
    const std::string field = "plane[" + std::to_string(i) + "]";
    const gsize offset = meta ? meta->offset[i] : GST_VIDEO_INFO_PLANE_OFFSET(&info, i);
    const gint stride = meta ? meta->stride[i] : GST_VIDEO_INFO_PLANE_STRIDE(&info, i);
    if (stride <= 0)
      return {Errc::invalid_argument, field + ".pitch " + std::to_string(stride) + " (GstVideoMeta stride)"};
    guint idx = 0, len = 0;
    gsize skip = 0;
    if (!gst_buffer_find_memory(buffer, offset, 1, &idx, &len, &skip)) {
      return {Errc::out_of_range, field + ".offset " + std::to_string(offset) + " is past the end of the " +
                                      std::to_string(buffer_size) + "-byte buffer"};
    }
    GstMemory* mem = gst_buffer_peek_memory(buffer, idx);
    if (!gst_is_dmabuf_memory(mem)) {
      return {Errc::unsupported, field + " is in " + std::string(mem->allocator ? mem->allocator->mem_type : "?") +
                                     " memory, not a dma-buf (caps say memory:DMABuf)"};
    }
    f.planes[i].fd = gst_dmabuf_memory_get_fd(mem);
    f.planes[i].offset = uint64_t(mem->offset) + uint64_t(skip);
    f.planes[i].pitch = uint64_t(stride);
  }
  *out = f;
  return Status::ok();
}

// ---- DmaBufInput ---------------------------------------------------------------------------------------------------

Status DmaBufInput::create(const Config& config, std::unique_ptr<DmaBufInput>* out) {
  out->reset();
  std::unique_ptr<DmaBufInput> in(new DmaBufInput());
  DmaBufImporterConfig ic;
  ic.backend = config.backend;
  ic.vendor = config.vendor;
  ic.device_id = config.device_id;
  ic.allow_copy = config.allow_copy;
  ic.fence_timeout_ms = config.fence_timeout_ms;
  ic.host_reason = config.host_reason;
  // Each kind of notice is posted once; repeats go to the log.
  auto said = std::make_shared<std::pair<std::mutex, std::set<std::string>>>();
  auto notice = config.on_notice;
  ic.on_warning = [said, notice](const std::string& text) {
    const std::string kind = text.substr(0, text.find(' ', text.find(' ') + 1));
    bool first;
    {
      std::lock_guard<std::mutex> lock(said->first);
      first = said->second.insert(kind).second;
    }
    if (first && notice) {
      notice(text);
    } else {
      GST_WARNING("%s", text.c_str());
    }
  };
  VMAFX_TRY(DmaBufImporter::create(ic, &in->importer_));
  *out = std::move(in);
  return Status::ok();
}

DmaBufInput::~DmaBufInput() {
  if (importer_) (void)importer_->close();
}

Status DmaBufInput::import(GstBuffer* buffer, const GstVideoInfo& info, const GstCaps* caps, ImportedPicture* out) {
  uint32_t fourcc = 0;
  uint64_t modifier = 0;
  VMAFX_TRY(dmabuf_format_of_caps(caps, info, &fourcc, &modifier));
  DmaBufFrame frame;
  VMAFX_TRY(describe_dmabuf_buffer(buffer, info, fourcc, modifier, &frame));
  std::unique_ptr<DmaBufPicture> picture;
  VMAFX_TRY(importer_->import(frame, &picture));
  std::shared_ptr<DmaBufPicture> held(std::move(picture));
  GstBuffer* ref = gst_buffer_ref(buffer);
  *out = ImportedPicture(held->view(), [held, ref] { held->release([ref] { gst_buffer_unref(ref); }); });
  return Status::ok();
}

uint64_t DmaBufInput::frames_copied() const { return importer_->stats().frames_copied; }
uint64_t DmaBufInput::frames() const { return importer_->stats().frames; }
std::string DmaBufInput::description() const { return importer_->description(); }
Status DmaBufInput::close() { return importer_->close(); }

}  // namespace vmafx::gst
