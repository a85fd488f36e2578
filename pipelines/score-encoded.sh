#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scores an encoded distorted clip, decoded on the fly, against a raw reference .yuv file.
#   pipelines/score-encoded.sh REF.yuv WIDTH HEIGHT FORMAT DIST.{mkv,mp4,avi,ogg,...} [vmafxhip property=value ...]
# The distorted clip is decoded by decodebin3 (any decoder GStreamer has: avdec_h264 from gst-libav, jpegdec,
# theoradec, ...; decodebin3 rather than decodebin: with decodebin, about one run in eight under load scored every
# frame and then never ended, the pipeline not forwarding fakesink's EOS, measured with GStreamer 1.22) and converted to FORMAT without dithering, so its samples are the decoder's. Frames are paired by
# timestamp: the reference gets FPS (default 25/1), which must be the clip's frame rate, and both must start at 0.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -lt 5 ]; then
  sed -n '3,8p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
ref="$1" width="$2" height="$3" format="$4" dist="$5"
shift 5
source "$here/raw-layout.sh"
raw_layout "$format" "$width" "$height"
[ -r "$ref" ] || { echo "cannot read $ref" >&2; exit 1; }
[ -r "$dist" ] || { echo "cannot read $dist" >&2; exit 1; }

gst-launch-1.0 -m \
  filesrc location="$ref" ! $RAW_PARSE ! v.ref_sink \
  filesrc location="$dist" ! decodebin3 ! videoconvert dither=none ! "video/x-raw,format=$format" ! v.dist_sink \
  vmafxhip name=v frame-message=true "$@" ! fakesink | "$here/format-vmaf-messages.sh"
