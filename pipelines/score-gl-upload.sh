#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GL memory input: a test source in GL textures is the reference, its JPEG round trip uploaded back into GL the
# distorted stream; vmafxhip takes both as video/x-raw(memory:GLMemory).
#   pipelines/score-gl-upload.sh [videotestsrc|gltestsrc (default videotestsrc)] [FRAMES (default 50)] \
#       [vmafxhip property=value ...]
# videotestsrc: I420 frames uploaded by glupload (three R8 textures per frame);
# gltestsrc:    RGBA textures rendered by GL (scored as their BT.601 limited-range luma, docs/gl.md).
# Headless GPU machines: GST_GL_WINDOW=egl-device puts GStreamer's GL on EGL's device platform (device 0).
# With the scorer on the GPU and a GL context of that GPU the textures are read through the runtime's GL interop
# (zero-copy); otherwise they are downloaded through GL and the element says why once (an INFO message), unless
# allow-copy=false, which makes that an error. frames-copied counts the downloaded frames.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source="${1:-videotestsrc}"
frames="${2:-50}"
shift $(( $# > 2 ? 2 : $# ))

case "$source" in
  videotestsrc)
    gst-launch-1.0 -m \
      videotestsrc num-buffers="$frames" pattern=smpte horizontal-speed=3 \
        ! video/x-raw,format=I420,width=640,height=360,framerate=25/1 ! tee name=t \
      t. ! queue ! glupload ! "video/x-raw(memory:GLMemory),format=I420" ! v.ref_sink \
      t. ! queue ! jpegenc quality=40 ! jpegdec ! glupload ! "video/x-raw(memory:GLMemory),format=I420" ! v.dist_sink \
      vmafxhip name=v frame-message=true "$@" ! fakesink | "$here/format-vmaf-messages.sh"
    ;;
  gltestsrc)
    gst-launch-1.0 -m \
      gltestsrc num-buffers="$frames" pattern=mandelbrot \
        ! "video/x-raw(memory:GLMemory),format=RGBA,width=640,height=360,framerate=25/1" ! tee name=t \
      t. ! queue ! v.ref_sink \
      t. ! queue ! gldownload ! videoconvert ! jpegenc quality=40 ! jpegdec ! glupload ! glcolorconvert \
        ! "video/x-raw(memory:GLMemory),format=RGBA" ! v.dist_sink \
      vmafxhip name=v frame-message=true "$@" ! fakesink | "$here/format-vmaf-messages.sh"
    ;;
  *)
    echo "usage: $0 [videotestsrc|gltestsrc] [FRAMES] [vmafxhip property=value ...]" >&2
    exit 2
    ;;
esac
