#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scores an encoding ladder in one pass: one reference, decoded once, against every rendition, each on its own request
# pad (dist_sink_0, dist_sink_1, ...), renditions of any size (scaled to the reference's, bicubic, said once).
#   pipelines/score-ladder.sh REF RENDITION... [-- vmafxhip property=value ...]
# REF and the renditions are encoded clips (any container and codec GStreamer decodes) or raw .yuv files with
# RAW="WIDTH HEIGHT FORMAT" (the reference only; renditions are decoded). Prints one pooled line per rendition and
# writes one libvmaf results file per rendition when results-filename is given ("%s" becomes the pad's name).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -lt 2 ]; then
  sed -n '3,8p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
ref="$1"
shift
renditions=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do renditions+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
for f in "$ref" "${renditions[@]}"; do [ -r "$f" ] || { echo "cannot read $f" >&2; exit 1; }; done

# gst-launch-1.0 takes the pipeline as words: built as an array, so that file names keep their spaces.
args=()
if [ -n "${RAW:-}" ]; then
  read -r width height format <<< "$RAW"
  source "$here/raw-layout.sh"
  raw_layout "$format" "$width" "$height"
  args+=(filesrc location="$ref" ! $RAW_PARSE ! v.ref_sink)
else
  args+=(filesrc location="$ref" ! decodebin3 ! v.ref_sink)
fi
# Each rendition is decoded in its own branch (decodebin3: see score-encoded.sh); the element pairs every rendition
# with the reference on its own and holds each reference frame until every rendition has had it.
for i in "${!renditions[@]}"; do
  args+=(filesrc location="${renditions[$i]}" ! decodebin3 ! "v.dist_sink_$i")
done
gst-launch-1.0 -m "${args[@]}" vmafxhip name=v "$@" ! fakesink | "$here/format-vmaf-messages.sh"
