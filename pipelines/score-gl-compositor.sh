#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Compositor QA: how much does a GL mixer's output (glvideomixer: the programme with a semi-transparent picture-in-
# picture over it) differ from the programme itself? Both are RGBA GL textures, scored as their luma.
#   pipelines/score-gl-compositor.sh [FRAMES (default 50)] [ALPHA of the overlay (default 0.3)] \
#       [vmafxhip property=value ...]
# Headless GPU machines: GST_GL_WINDOW=egl-device (see score-gl-upload.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
frames="${1:-50}"
alpha="${2:-0.3}"
shift $(( $# > 2 ? 2 : $# ))

caps="video/x-raw(memory:GLMemory),format=RGBA,width=1280,height=720,framerate=25/1"
gst-launch-1.0 -m \
  videotestsrc num-buffers="$frames" pattern=smpte horizontal-speed=2 \
    ! video/x-raw,width=1280,height=720,framerate=25/1 ! glupload ! glcolorconvert ! "$caps" ! tee name=programme \
  videotestsrc num-buffers="$frames" pattern=ball ! video/x-raw,width=480,height=270,framerate=25/1 \
    ! glupload ! m.sink_1 \
  programme. ! queue ! v.ref_sink \
  programme. ! queue ! m.sink_0 \
  glvideomixer name=m background=black sink_0::zorder=0 sink_1::zorder=1 sink_1::xpos=760 sink_1::ypos=410 \
    sink_1::alpha="$alpha" ! "$caps" ! v.dist_sink \
  vmafxhip name=v frame-message=true "$@" ! fakesink | "$here/format-vmaf-messages.sh"
