// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhipcaps.h"

#include "gstvmafxhipinput.h"

namespace vmafx::gst {

std::string caps_string(const GstCaps* caps) {
  if (!caps) return "(none)";
  gchar* c = gst_caps_to_string(caps);
  std::string out = c ? c : "";
  g_free(c);
  return out;
}

std::string geometry_string(const VideoGeometry& g) {
  return std::to_string(g.width) + "x" + std::to_string(g.height) + " " + std::to_string(g.bit_depth) + "-bit " +
         chroma_name(g.chroma);
}

bool epoch_from_caps(GstCaps* caps, const std::string& pad, const PadEpoch* previous,
                     std::shared_ptr<PadEpoch>* out, CapsProblem* problem) {
  auto e = std::make_shared<PadEpoch>();
  Status st = video_info_from_caps(caps, &e->info);
  if (!st) {
    *problem = {error_code_for(st.code()), "Unsupported video caps on " + pad, st.to_string() + "; caps " + caps_string(caps)};
    return false;
  }
  if (GST_VIDEO_INFO_IS_INTERLACED(&e->info)) {
    *problem = {{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION},
                "Interlaced video on " + pad + " (interlace-mode=" +
                    gst_video_interlace_mode_to_string(GST_VIDEO_INFO_INTERLACE_MODE(&e->info)) +
                    "): vmafxhip scores progressive frames; put deinterlace before the pad",
                "caps " + caps_string(caps)};
    return false;
  }
  if (!geometry_for(caps, e->info, &e->geometry)) {
    *problem = {{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION},
                "Unsupported video format " + std::string(gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&e->info))) +
                    " on " + pad + " (" + input_kind_for_caps(caps).name + ")",
                "caps " + caps_string(caps)};
    return false;
  }
  e->caps = gst_caps_ref(caps);
  if (previous) e->segment = previous->segment;
  *out = std::move(e);
  return true;
}

bool check_pair_caps(const PadEpoch& ref, const PadEpoch& dist, const std::string& dist_pad, bool by_timestamp,
                     CapsProblem* problem, std::string* colour_note, std::string* colour_debug) {
  const std::string both = "reference caps " + caps_string(ref.caps) + ", " + dist_pad + " caps " + caps_string(dist.caps);
  const VideoGeometry& g0 = ref.geometry;
  const VideoGeometry& g1 = dist.geometry;
  if (g0.bit_depth != g1.bit_depth || g0.chroma != g1.chroma) {
    *problem = {{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION},
                "Reference (" + geometry_string(g0) + ") and " + dist_pad + " (" + geometry_string(g1) +
                    ") must agree in bit depth and chroma subsampling",
                both};
    return false;
  }
  const int n0 = GST_VIDEO_INFO_FPS_N(&ref.info), d0 = GST_VIDEO_INFO_FPS_D(&ref.info);
  const int n1 = GST_VIDEO_INFO_FPS_N(&dist.info), d1 = GST_VIDEO_INFO_FPS_D(&dist.info);
  if (by_timestamp && n0 > 0 && n1 > 0 && d0 > 0 && d1 > 0 && gst_util_fraction_compare(n0, d0, n1, d1) != 0) {
    const std::string r0 = std::to_string(n0) + "/" + std::to_string(d0), r1 = std::to_string(n1) + "/" + std::to_string(d1);
    *problem = {{GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION},
                "Reference (" + r0 + ") and " + dist_pad + " (" + r1 +
                    ") frame rates differ: convert one with videorate (... ! videorate ! video/x-raw,framerate=" + r0 +
                    " ! v." + dist_pad + "), or set pairing=arrival",
                both + "; pairing=timestamp pairs frames of the same time, which streams of different rates do not have"};
    return false;
  }
  colour_note->clear();
  const bool yuv = GST_VIDEO_INFO_IS_YUV(&ref.info) && GST_VIDEO_INFO_IS_YUV(&dist.info);
  if (yuv && !gst_video_colorimetry_is_equal(&ref.info.colorimetry, &dist.info.colorimetry)) {
    gchar* c0 = gst_video_colorimetry_to_string(&ref.info.colorimetry);
    gchar* c1 = gst_video_colorimetry_to_string(&dist.info.colorimetry);
    const bool range = ref.info.colorimetry.range != dist.info.colorimetry.range;
    *colour_note = "Reference and " + dist_pad + " differ in " + (range ? "range" : "colorimetry") + " (" +
                   (c0 ? c0 : "?") + " against " + (c1 ? c1 : "?") +
                   "): the scores compare the samples as they are; if both show the same picture, convert one "
                   "(videoconvert ! video/x-raw,colorimetry=" + (c0 ? c0 : "...") + ")";
    *colour_debug = both;
    g_free(c0);
    g_free(c1);
  }
  return true;
}

GstCaps* prefer_reference_size(GstCaps* base, const PadEpoch& ref, bool by_timestamp) {
  GstCaps* preferred = gst_caps_copy(base);
  for (guint i = 0; i < gst_caps_get_size(preferred); i++) {
    GstStructure* st = gst_caps_get_structure(preferred, i);
    gst_structure_set(st, "width", G_TYPE_INT, GST_VIDEO_INFO_WIDTH(&ref.info), "height", G_TYPE_INT,
                      GST_VIDEO_INFO_HEIGHT(&ref.info), nullptr);
    if (by_timestamp && GST_VIDEO_INFO_FPS_N(&ref.info) > 0)
      gst_structure_set(st, "framerate", GST_TYPE_FRACTION, GST_VIDEO_INFO_FPS_N(&ref.info),
                        GST_VIDEO_INFO_FPS_D(&ref.info), nullptr);
  }
  GstCaps* first = gst_caps_intersect_full(preferred, base, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref(preferred);
  return gst_caps_merge(first, base);
}

}  // namespace vmafx::gst
