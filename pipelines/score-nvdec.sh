#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# NVIDIA: the distorted stream decoded by NVDEC (nvh264dec / nvh265dec, GStreamer's nvcodec plugin) straight into
# vmafxhip as video/x-raw(memory:CUDAMemory): the frames are scored on the GPU where the decoder wrote them.
#   pipelines/score-nvdec.sh REF DIST [vmafxhip property=value ...]
# DIST (and REF, unless it is a raw .yuv): an H.264 or HEVC elementary stream (.h264 .264 .h265 .265 .hevc) or a
# container (.mp4 .mkv ...; CODEC=h265 when it holds HEVC), decoded by NVDEC. A raw reference: REF.yuv with
# REF_RAW="WIDTH HEIGHT FORMAT" (FPS= its rate, default 25/1). SYSMEM=1 makes the decoders download into system
# memory first (video/x-raw,format=NV12: the path without CUDA memory input, for comparison). The decoders take the
# element's CUDA context (it answers their context query), so nothing is copied; the element says once how the CUDA
# frames were read (printed after the scores). Streams for a try: scripts/make-nvdec-streams.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -lt 2 ]; then
  sed -n '3,11p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
ref="$1" dist="$2"
shift 2
[ -r "$ref" ] || { echo "cannot read $ref" >&2; exit 1; }
[ -r "$dist" ] || { echo "cannot read $dist" >&2; exit 1; }
gst-inspect-1.0 nvh264dec >/dev/null 2>&1 || { echo "no nvh264dec (GStreamer's nvcodec plugin, an NVIDIA GPU)" >&2; exit 1; }
down=""
[ "${SYSMEM:-0}" = 1 ] && down='video/x-raw,format=NV12 ! '
decoder() {  # $1 file: the parse + decode chain for it
  case "$1" in
    *.h264|*.264) echo "h264parse ! nvh264dec" ;;
    *.h265|*.265|*.hevc) echo "h265parse ! nvh265dec" ;;
    *) if [ "${CODEC:-h264}" = h265 ]; then echo "parsebin ! nvh265dec"; else echo "parsebin ! nvh264dec"; fi ;;
  esac
}
if [ -n "${REF_RAW:-}" ]; then
  source "$here/raw-layout.sh"
  read -r rw rh rf <<< "$REF_RAW"
  raw_layout "$rf" "$rw" "$rh"
  ref_chain="filesrc location=$ref ! $RAW_PARSE"
else
  ref_chain="filesrc location=$ref ! $(decoder "$ref") ! $down"
fi
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# shellcheck disable=SC2086
gst-launch-1.0 -m \
  $ref_chain v.ref_sink \
  filesrc location="$dist" ! $(decoder "$dist") ! $down v.dist_sink \
  vmafxhip name=v frame-message=true "$@" ! fakesink | tee "$log" | "$here/format-vmaf-messages.sh"
grep -o 'CUDA frames are [^"]*' "$log" | head -1 | sed 's/\\//g' >&2 || true
