#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The element's bus messages as gst-launch-1.0 -m prints them (every field), for a videotestsrc against its JPEG
# round trip with PSNR, SSIM and MS-SSIM on: the raw material for applications that read the "VMAF" messages.
#   pipelines/print-messages.sh [FRAMES (default 5)] [vmafxhip property=value ...]
set -euo pipefail
frames="${1:-5}"
shift $(( $# > 0 ? 1 : 0 ))
gst-launch-1.0 -m \
  videotestsrc num-buffers="$frames" pattern=smpte horizontal-speed=3 \
    ! video/x-raw,format=I420,width=320,height=240,framerate=25/1 ! tee name=t \
  t. ! queue ! v.ref_sink \
  t. ! queue ! jpegenc quality=40 ! jpegdec ! v.dist_sink \
  vmafxhip name=v frame-message=true psnr=true ssim=true ms-ssim=true "$@" ! fakesink | grep -E '"v" \(element\): VMAF' | sed 's/^Got message #[0-9]* from element "v" (element): //'
