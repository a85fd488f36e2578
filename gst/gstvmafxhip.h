// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafxhip: VMAF (plus PSNR, SSIM, MS-SSIM) of a distorted stream against a reference, inside a pipeline. A plain
// GstElement with two always sink pads, ref_sink and dist_sink, and src, which passes one of them through unchanged
// (the reference by default, as GStreamer's vmaf). The GObject shell is thin: properties (gstvmafxhipsettings.h),
// pairing (gstvmafxhippad.h), inputs (gstvmafxhipinput.h), messages, the results file; the engine
// (gstvmafxhipscoring.h) computes every score.
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_VMAFXHIP (gst_vmafxhip_get_type())
G_DECLARE_FINAL_TYPE(GstVmafxhip, gst_vmafxhip, GST, VMAFXHIP, GstElement)

GST_ELEMENT_REGISTER_DECLARE(vmafxhip);

G_END_DECLS
