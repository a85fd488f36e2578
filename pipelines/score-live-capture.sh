#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Live capture scored as it runs: the capture is the reference, an H.264 encode and decode of it on the fly the
# distorted stream; vmafxhip passes the capture on at once, so the sink keeps real time, and pairs frames of the same
# time. When the scorer is slower than the source (the CPU at 1080p), whole pairs are skipped and counted instead of
# delaying the capture (the pooled message's skipped-busy). Default queues are enough.
#   pipelines/score-live-capture.sh [SECONDS (default 10)] [vmafxhip property=value ...]
# CAPTURE sets the source and its caps (default: a live test source, 640x360 at 30 fps), e.g.
#   CAPTURE="v4l2src device=/dev/video0 ! videoconvert ! video/x-raw,format=I420" pipelines/score-live-capture.sh 30
# SINK sets the output (default: fakesink sync=true; autovideosink shows the capture).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
seconds="${1:-10}"
shift $(( $# > 0 ? 1 : 0 ))
capture="${CAPTURE:-videotestsrc is-live=true pattern=ball num-buffers=$((seconds * 30)) ! video/x-raw,format=I420,width=640,height=360,framerate=30/1}"
sink="${SINK:-fakesink sync=true}"

# shellcheck disable=SC2086
timeout --foreground -s INT "$((seconds + 5))" gst-launch-1.0 -e -m \
  $capture ! tee name=t \
  t. ! queue ! v.ref_sink \
  t. ! queue ! x264enc tune=zerolatency speed-preset=ultrafast bitrate=1500 ! avdec_h264 ! v.dist_sink \
  vmafxhip name=v frame-message=true psnr=true "$@" ! $sink | "$here/format-vmaf-messages.sh"
