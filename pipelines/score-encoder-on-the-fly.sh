#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scores an encoder on the fly: a raw reference file is encoded and decoded in one branch of a tee and scored against
# itself. The encoder's lookahead holds frames (x264enc's default settings: about 50); vmafxhip's reference pad holds
# the frames that wait for their encoded partner (max-reference-frames, default 120), so default queues are enough.
#   pipelines/score-encoder-on-the-fly.sh REF.yuv WIDTH HEIGHT FORMAT [vmafxhip property=value ...]
# ENCODE sets the encode and decode (default: x264enc bitrate=500 ! avdec_h264; e.g. "jpegenc quality=50 ! jpegdec").
# FPS sets the frame rate of the raw file (default 25/1). x264enc takes even widths and heights (4:2:0).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -lt 4 ]; then
  sed -n '3,8p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
ref="$1" width="$2" height="$3" format="$4"
shift 4
source "$here/raw-layout.sh"
raw_layout "$format" "$width" "$height"
[ -r "$ref" ] || { echo "cannot read $ref" >&2; exit 1; }
encode="${ENCODE:-x264enc bitrate=500 ! avdec_h264}"

# shellcheck disable=SC2086
gst-launch-1.0 -m \
  filesrc location="$ref" ! $RAW_PARSE ! tee name=t \
  t. ! queue ! v.ref_sink \
  t. ! queue ! $encode ! videoconvert dither=none ! "video/x-raw,format=$format" ! v.dist_sink \
  vmafxhip name=v frame-message=true "$@" ! fakesink | "$here/format-vmaf-messages.sh"
