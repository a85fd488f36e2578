#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scores a raw distorted .yuv file against a raw reference .yuv file: per-frame and pooled VMAF.
#   pipelines/score-raw-files.sh REF.yuv DIST.yuv WIDTH HEIGHT FORMAT [vmafxhip property=value ...]
# FORMAT is a GStreamer raw format (I420, I420_10LE, NV12, P010_10LE, Y444, GRAY8, ... see docs/element.md); the
# files hold the frames tightly packed (as ffmpeg -f rawvideo and libvmaf's --reference/--distorted read them),
# chroma sizes rounded up. Extra arguments go to the element, e.g. psnr=true results-filename=scores.json.
# FPS=30000/1001 sets the frame rate (default 25/1; only timestamps depend on it). RAW=1 prints the messages as
# gst-launch-1.0 -m shows them instead of the summary lines.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -lt 5 ]; then
  sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
ref="$1" dist="$2" width="$3" height="$4" format="$5"
shift 5
source "$here/raw-layout.sh"
raw_layout "$format" "$width" "$height"   # sets RAW_PARSE (rawvideoparse settings for a tight layout)

for f in "$ref" "$dist"; do
  [ -r "$f" ] || { echo "cannot read $f" >&2; exit 1; }
  size=$(stat -c %s "$f")
  if [ $(( size % RAW_FRAME_SIZE )) -ne 0 ]; then
    echo "$f: $size bytes is not a whole number of ${width}x${height} $format frames ($RAW_FRAME_SIZE bytes each)" >&2
    exit 1
  fi
done

cmd=(gst-launch-1.0 -m
  filesrc location="$ref" ! $RAW_PARSE ! v.ref_sink
  filesrc location="$dist" ! $RAW_PARSE ! v.dist_sink
  vmafxhip name=v frame-message=true "$@" ! fakesink)
if [ "${RAW:-0}" = 1 ]; then
  exec "${cmd[@]}"
fi
"${cmd[@]}" | "$here/format-vmaf-messages.sh"
