// SPDX-License-Identifier: LGPL-2.1-or-later
// The vmafxhip plugin: one element, vmafxhip.
#include <gst/gst.h>

#include "gstvmafxhip.h"

#ifndef PACKAGE
#define PACKAGE "vmafxhip"
#endif
#ifndef VERSION
#define VERSION "0.1.0"
#endif
#ifndef GST_PACKAGE_NAME
#define GST_PACKAGE_NAME "vmafxhip"
#endif
#ifndef GST_PACKAGE_ORIGIN
#define GST_PACKAGE_ORIGIN "https://github.com/vmafxhip/vmafxhip"
#endif

static gboolean plugin_init(GstPlugin* plugin) { return GST_ELEMENT_REGISTER(vmafxhip, plugin); }

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, vmafxhip,
                  "VMAF, PSNR, SSIM and MS-SSIM with libvmaf's numbers, on the CPU or the GPU (HIP)", plugin_init,
                  VERSION, "LGPL", GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
