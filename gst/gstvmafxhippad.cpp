// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhippad.h"

struct GstVmafxhipDistPad {
  GstPad parent;
  gint offset;
};
struct GstVmafxhipDistPadClass {
  GstPadClass parent_class;
};
G_DEFINE_TYPE(GstVmafxhipDistPad, gst_vmafxhip_dist_pad, GST_TYPE_PAD)

namespace {

enum { PROP_0, PROP_DIST_OFFSET };

void set_property(GObject* o, guint id, const GValue* v, GParamSpec* ps) {
  if (id != PROP_DIST_OFFSET) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(o, id, ps);
    return;
  }
  GST_OBJECT_LOCK(o);
  reinterpret_cast<GstVmafxhipDistPad*>(o)->offset = g_value_get_int(v);
  GST_OBJECT_UNLOCK(o);
}

void get_property(GObject* o, guint id, GValue* v, GParamSpec* ps) {
  if (id != PROP_DIST_OFFSET) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(o, id, ps);
    return;
  }
  GST_OBJECT_LOCK(o);
  g_value_set_int(v, reinterpret_cast<GstVmafxhipDistPad*>(o)->offset);
  GST_OBJECT_UNLOCK(o);
}

}  // namespace

static void gst_vmafxhip_dist_pad_class_init(GstVmafxhipDistPadClass* k) {
  GObjectClass* g = G_OBJECT_CLASS(k);
  g->set_property = set_property;
  g->get_property = get_property;
  g_object_class_install_property(
      g, PROP_DIST_OFFSET,
      g_param_spec_int("dist-offset", "Distorted offset",
                       "Frames this stream is late by (as the element's dist-offset, for this pad alone); "
                       "-2147483648: the element's dist-offset",
                       G_MININT, G_MAXINT, vmafx::gst::kInheritOffset,
                       GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
}

static void gst_vmafxhip_dist_pad_init(GstVmafxhipDistPad* p) { p->offset = vmafx::gst::kInheritOffset; }

namespace vmafx::gst {

GType dist_pad_get_type() { return gst_vmafxhip_dist_pad_get_type(); }

int dist_pad_offset(GstPad* pad, int element_offset) {
  gint o = kInheritOffset;
  if (G_TYPE_CHECK_INSTANCE_TYPE(pad, gst_vmafxhip_dist_pad_get_type())) g_object_get(pad, "dist-offset", &o, nullptr);
  return o == kInheritOffset ? element_offset : o;
}

PadEpoch::PadEpoch() {
  gst_video_info_init(&info);
  gst_segment_init(&segment, GST_FORMAT_TIME);
}

PadEpoch::PadEpoch(const PadEpoch& o) : info(o.info), geometry(o.geometry), segment(o.segment) {
  caps = o.caps ? gst_caps_ref(o.caps) : nullptr;
}

PadEpoch::~PadEpoch() {
  if (caps) gst_caps_unref(caps);
}

GstClockTime frame_period(const GstVideoInfo& info) {
  if (GST_VIDEO_INFO_FPS_N(&info) <= 0 || GST_VIDEO_INFO_FPS_D(&info) <= 0) return GST_CLOCK_TIME_NONE;
  return gst_util_uint64_scale_int(GST_SECOND, GST_VIDEO_INFO_FPS_D(&info), GST_VIDEO_INFO_FPS_N(&info));
}

}  // namespace vmafx::gst
