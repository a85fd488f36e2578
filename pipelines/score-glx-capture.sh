#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GLX: scores what a GL application renders in a GLX context of an X display (gltestsrc stands in for the
# application) against its capture through a lossy chain, both as video/x-raw(memory:GLMemory) textures of GLX
# contexts. With the scorer on the GPU and the display's GLX driven by that GPU, the textures are read in place
# through the runtime's GL interop (zero-copy); with a software GLX (Mesa's llvmpipe) they are downloaded, and the
# element says why once.
#   pipelines/score-glx-capture.sh [FRAMES (default 50)] [vmafxhip property=value ...]
# DISTORT=scale (default: down to half size and back up, in GL) or jpeg (read back, JPEG at quality 40, uploaded
# again; needs gst-plugins-good). Needs DISPLAY. A headless NVIDIA machine: an X server without a GPU of its own
# (Xvfb) plus NVIDIA's GLX client library, __GLX_VENDOR_LIBRARY_NAME=nvidia (docs/gl.md, "GLX on a headless GPU").
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
frames="${1:-50}"
shift $(( $# > 0 ? 1 : 0 ))
[ -n "${DISPLAY:-}" ] || { echo "DISPLAY is not set: GLX needs an X display" >&2; exit 1; }
export GST_GL_PLATFORM=glx GST_GL_WINDOW=x11
caps='video/x-raw(memory:GLMemory),format=RGBA,width=1280,height=720,framerate=25/1'
case "${DISTORT:-scale}" in
  scale) lossy="glcolorscale ! video/x-raw(memory:GLMemory),width=640,height=360 ! glcolorscale ! $caps" ;;
  jpeg)  lossy="gldownload ! videoconvert ! jpegenc quality=40 ! jpegdec ! glupload ! glcolorconvert ! $caps" ;;
  *) echo "DISTORT=scale or jpeg" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
gst-launch-1.0 -m \
  gltestsrc num-buffers="$frames" pattern=mandelbrot ! "$caps" ! tee name=t \
  t. ! queue ! v.ref_sink \
  t. ! queue ! $lossy ! v.dist_sink \
  vmafxhip name=v frame-message=true "$@" ! fakesink | "$here/format-vmaf-messages.sh"
