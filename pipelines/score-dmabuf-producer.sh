#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# vmafxhip fed by a real dma-buf producer: the reference stream arrives as video/x-raw(memory:DMABuf), the distorted
# one in system memory. Needs the producer's hardware and drivers; neither the project's CI machines nor its GPU
# machine have one (no /dev/dri: see docs/dmabuf.md), where pipelines/score-dmabuf-memfd.sh is the runnable example.
#   pipelines/score-dmabuf-producer.sh gl [vmafxhip property=value ...]
#       videotestsrc -> glupload -> gldownload exporting dma-bufs (EGL with EGL_MESA_image_dma_buf_export), against
#       the same pattern through a JPEG round trip
#   pipelines/score-dmabuf-producer.sh vaapi FILE [vmafxhip property=value ...]
#       FILE decoded by VA-API into dma-bufs, against the same FILE decoded in software
# FRAMES (default 100), WIDTH and HEIGHT (default 640x480; gl only) bound the run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -lt 1 ]; then
  sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
mode="$1"
shift
frames="${FRAMES:-100}" w="${WIDTH:-640}" h="${HEIGHT:-480}"
case "$mode" in
  gl)
    pattern="videotestsrc num-buffers=$frames pattern=ball ! video/x-raw,format=NV12,width=$w,height=$h,framerate=25/1"
    ref="$pattern ! glupload ! gldownload ! video/x-raw(memory:DMABuf),format=NV12"
    dist="$pattern ! jpegenc quality=50 ! jpegdec ! videoconvert dither=none ! video/x-raw,format=NV12" ;;
  vaapi)
    [ $# -gt 0 ] || { echo "vaapi needs a FILE" >&2; exit 2; }
    file="$1"
    shift
    ref="filesrc location=$file ! parsebin ! vaapidecodebin ! vaapipostproc ! video/x-raw(memory:DMABuf),format=NV12"
    dist="filesrc location=$file ! decodebin ! videoconvert dither=none ! video/x-raw,format=NV12" ;;
  *) echo "unknown producer '$mode' (gl, vaapi)" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086  # the launch lines are split into gst-launch arguments on purpose
gst-launch-1.0 -m $ref ! v.ref_sink $dist ! v.dist_sink vmafxhip name=v frame-message=true "$@" ! fakesink | "$here/format-vmaf-messages.sh"
