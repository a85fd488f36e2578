// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafxhip: VMAF (plus PSNR, SSIM, MS-SSIM) of a distorted stream against a reference, inside a pipeline. A
// GstVideoAggregator with two always sink pads, ref_sink and dist_sink, paired by timestamp; src outputs the distorted
// frames unchanged. The GObject shell is thin: properties, caps, buffer import and bus messages; the engine
// (vmafx::Scorer) computes every score.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_VMAFXHIP (gst_vmafxhip_get_type())
G_DECLARE_FINAL_TYPE(GstVmafxhip, gst_vmafxhip, GST, VMAFXHIP, GstVideoAggregator)

GST_ELEMENT_REGISTER_DECLARE(vmafxhip);

G_END_DECLS
