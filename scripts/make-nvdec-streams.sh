#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Makes the H.264 / HEVC streams the NVDEC tests and benchmarks decode (tests/gst/test_gst_cuda.cpp,
# scripts/gpu/cuda.sh, scripts/gpu/bench-nvdec.sh): generated, never committed. The content is the public clip
# a_576x324_8b_ref.yuv of ../shared/testdata (48 frames; $VMAFX_SHARED_DIR/testdata overrides) played forwards and
# backwards until 300 frames, scaled to 1920x1080 and 3840x2160, then encoded on the CPU (x264enc, x265enc):
#   ref_<size>.h264    the reference at a high bit rate (1080p 1800 kbit/s, 4K 4000 kbit/s: the content is a scaled
#                      576x324 clip), decoded on the GPU too
#   dist_<size>.h264   the distorted stream, x264 at a low bit rate (1080p 700 kbit/s, 4K 2000 kbit/s)
#   dist_<size>.h265   the same with x265 (where x265enc exists: Debian's gstreamer1.0-plugins-bad)
# About 4 MB for 1080p and 10 MB for 4K; on 2 CPU cores 1080p takes about 4 minutes, 4K about 7 minutes more.
# Usage: scripts/make-nvdec-streams.sh [out-dir] [sizes]   (default ${XDG_CACHE_HOME:-~/.cache}/vmafxhip-nvdec,
# sizes "1080p 2160p"). Prints each file's size; re-running skips files that exist (delete them to remake).
set -euo pipefail
top=$(git rev-parse --show-toplevel)
dest=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/vmafxhip-nvdec}
sizes=${2:-1080p 2160p}
shared=${VMAFX_SHARED_DIR:-$top/../shared}
src=$shared/testdata/a_576x324_8b_ref.yuv
frames=${VMAFX_NVDEC_FRAMES:-300}
[ -f "$src" ] || { echo "no $src" >&2; exit 1; }
command -v gst-launch-1.0 >/dev/null || { echo "gst-launch-1.0 missing (gstreamer1.0-tools)" >&2; exit 1; }
gst-inspect-1.0 x264enc >/dev/null 2>&1 || { echo "x264enc missing (gstreamer1.0-plugins-ugly)" >&2; exit 1; }
gst-inspect-1.0 h264parse >/dev/null 2>&1 || { echo "h264parse missing (gstreamer1.0-plugins-bad)" >&2; exit 1; }
mkdir -p "$dest"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# 300 frames of 576x324 I420: forwards, backwards, forwards, ... (no jump at the loop points); made when first needed.
make_loop() {
  [ -f "$tmp/loop.yuv" ] && return
  python3 - "$src" "$tmp/loop.yuv" "$frames" <<'PY'
import sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
fs = 576 * 324 * 3 // 2
data = open(src, "rb").read()
clip = [data[i * fs:(i + 1) * fs] for i in range(len(data) // fs)]
order = []
while len(order) < n:
    order += clip if (len(order) // len(clip)) % 2 == 0 else clip[::-1]
with open(dst, "wb") as f:
    for fr in order[:n]:
        f.write(fr)
PY
}
raw="filesrc location=$tmp/loop.yuv ! rawvideoparse width=576 height=324 format=i420 framerate=25/1"
have_x265=0
gst-inspect-1.0 x265enc >/dev/null 2>&1 && gst-inspect-1.0 h265parse >/dev/null 2>&1 && have_x265=1
for size in $sizes; do
  case $size in
    1080p) w=1920 h=1080 ref_kbps=1800 kbps=700 hevc_kbps=500 preset=veryfast ;;
    2160p) w=3840 h=2160 ref_kbps=4000 kbps=2000 hevc_kbps=1400 preset=superfast ;;
    *) echo "unknown size $size (1080p, 2160p)" >&2; exit 2 ;;
  esac
  scale="videoscale method=bilinear ! video/x-raw,width=$w,height=$h,format=I420"
  enc() {  # $1 file, $2 encoder chain, $3 parser chain
    [ -s "$dest/$1" ] && { echo "$1 exists ($(stat -c %s "$dest/$1") bytes)"; return; }
    make_loop
    gst-launch-1.0 -q $raw ! $scale ! $2 ! $3 ! filesink location="$dest/$1.part" >/dev/null
    mv "$dest/$1.part" "$dest/$1"
    echo "$1: $(stat -c %s "$dest/$1") bytes, $frames frames ${w}x$h"
  }
  enc ref_$size.h264 "x264enc bitrate=$ref_kbps speed-preset=$preset key-int-max=50" \
    "h264parse ! video/x-h264,stream-format=byte-stream"
  enc dist_$size.h264 "x264enc bitrate=$kbps speed-preset=$preset key-int-max=50" \
    "h264parse ! video/x-h264,stream-format=byte-stream"
  if [ $have_x265 = 1 ]; then
    enc dist_$size.h265 "x265enc bitrate=$hevc_kbps speed-preset=$preset key-int-max=50" \
      "h265parse ! video/x-h265,stream-format=byte-stream"
  else
    echo "dist_$size.h265: not made (no x265enc / h265parse)"
  fi
done
du -sh "$dest"
