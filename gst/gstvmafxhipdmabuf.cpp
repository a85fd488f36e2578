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
Status DmaBufInput::close() {
  if (closed_) return Status::ok();
  closed_ = true;
  return importer_->close();
}

// ---- The memory:DMABuf input kind ---------------------------------------------------------------------------------

namespace {

// One per pad; both pads of a session share the session's DmaBufInput (one importer per device).
class DmaBufPadInput final : public Input {
 public:
  explicit DmaBufPadInput(std::shared_ptr<DmaBufInput> shared) : shared_(std::move(shared)) {}
  Status import(GstBuffer* buffer, const GstVideoInfo& info, const GstCaps* caps, ImportedPicture* out) override {
    const uint64_t before = shared_->frames_copied();
    Status st = shared_->import(buffer, info, caps, out);
    copied_ += shared_->frames_copied() - before;
    return st;
  }
  uint64_t frames_copied() const override { return copied_; }
  std::string description() const override { return "memory:DMABuf, " + shared_->description(); }
  Status close() override { return shared_->close(); }

 private:
  std::shared_ptr<DmaBufInput> shared_;
  uint64_t copied_ = 0;
};

bool dmabuf_handles(const GstCaps* caps) {
  if (!caps || gst_caps_is_empty(caps) || gst_caps_is_any(caps)) return false;
  GstCapsFeatures* f = gst_caps_get_features(caps, 0);
  return f && gst_caps_features_contains(f, GST_CAPS_FEATURE_MEMORY_DMABUF);
}

// The DMA_DRM form is read as its 1.22-form equivalent (gst_video_info_from_caps of GStreamer 1.22 does not take
// format=DMA_DRM); a drm-format the engine does not read, or a modifier other than linear, is refused naming it.
Status dmabuf_video_info(const GstCaps* caps, GstVideoInfo* info) {
  GstCaps* video = nullptr;
  if (is_dma_drm_caps(caps)) {
    VMAFX_TRY(dma_drm_to_video_caps(caps, &video));
  } else {
    video = gst_caps_copy(caps);
  }
  const gboolean ok = gst_video_info_from_caps(info, video);
  gchar* c = ok ? nullptr : gst_caps_to_string(video);
  gst_caps_unref(video);
  if (!ok) {
    Status s(Errc::unsupported, std::string("dma-buf caps ") + c + " are not raw video caps GStreamer can read");
    g_free(c);
    return s;
  }
  return Status::ok();
}

// DMA_DRM caps of any drm-format are accepted, so that one the engine does not read reaches the CAPS event and is
// refused there with an error naming drm-format or the modifier rather than a bare not-negotiated.
bool dmabuf_accept_caps(const GstCaps* caps, bool* accept) {
  if (!is_dma_drm_caps(caps) || !gst_caps_is_fixed(caps)) return false;
  uint32_t fourcc = 0;
  uint64_t modifier = 0;
  *accept = parse_dma_drm_caps(caps, &fourcc, &modifier).is_ok();
  return true;
}

Status dmabuf_create(const InputConfig& c, unsigned, std::shared_ptr<void>* shared, std::unique_ptr<Input>* out) {
  std::shared_ptr<DmaBufInput> in = std::static_pointer_cast<DmaBufInput>(*shared);
  if (!in) {
    DmaBufInput::Config dc;
    dc.backend = c.scorer;
    dc.vendor = c.vendor;
    dc.device_id = c.device_id;
    dc.allow_copy = c.allow_copy;
    dc.host_reason = c.host_reason;
    auto notice = c.on_notice;
    dc.on_notice = [notice](const std::string& text) {
      if (notice) notice(text, true);
    };
    std::unique_ptr<DmaBufInput> made;
    VMAFX_TRY(DmaBufInput::create(dc, &made));
    GST_INFO("dma-buf input: %s", made->description().c_str());
    in = std::shared_ptr<DmaBufInput>(std::move(made));
    *shared = in;
  }
  *out = std::make_unique<DmaBufPadInput>(in);
  return Status::ok();
}

const InputKind kDmaBufKind = {
    "memory:DMABuf",
    GST_VMAFXHIP_DMABUF_CAPS,
    dmabuf_handles,
    dmabuf_video_info,
    format_info_for,
    dmabuf_accept_caps,
    dmabuf_create,
    nullptr,
};

}  // namespace

const InputKind& dmabuf_input_kind() { return kDmaBufKind; }

}  // namespace vmafx::gst
