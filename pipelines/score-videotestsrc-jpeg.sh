#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# No files needed: videotestsrc is the reference, a JPEG round trip of it (jpegenc quality=QUALITY ! jpegdec) the
# distorted stream; vmafxhip sits inline and passes the reference on (output=distorted: the JPEG frames).
#   pipelines/score-videotestsrc-jpeg.sh [FRAMES (default 50)] [QUALITY (default 40)] [vmafxhip property=value ...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
frames="${1:-50}"
quality="${2:-40}"
shift $(( $# > 2 ? 2 : $# ))

gst-launch-1.0 -m \
  videotestsrc num-buffers="$frames" pattern=smpte horizontal-speed=3 \
    ! video/x-raw,format=I420,width=640,height=360,framerate=25/1 ! tee name=t \
  t. ! queue ! v.ref_sink \
  t. ! queue ! jpegenc quality="$quality" ! jpegdec ! v.dist_sink \
  vmafxhip name=v frame-message=true "$@" ! fakesink | "$here/format-vmaf-messages.sh"
