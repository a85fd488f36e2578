#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Scores two raw 4:2:0 .yuv files through vmafxhip with memory:DMABuf input made in-process (memfd-backed
# GstDmaBufAllocator memory, laid out like a GPU allocator: 256-byte pitches, 4096-aligned planes): the test path of
# the dma-buf input, runnable without a dma-buf producer.
#   pipelines/score-dmabuf-memfd.sh REF.yuv DIST.yuv WIDTH HEIGHT BITS [LAYOUT] [FORM] [vmafxhip property=value ...]
# BITS is 8 (I420 files) or 10 (I420_10LE files); LAYOUT planar (default) or semi (NV12 / P010); FORM 1.22
# (default: format=NV12 ...) or drm (format=DMA_DRM, drm-format=NV12). Needs the feeder built with the tests
# (build-tests/tests/gst/dmabuf-memfd-feeder; VMAFX_DMABUF_FEEDER overrides). RAW=1 prints the raw messages.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ $# -lt 5 ]; then
  sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
ref="$1" dist="$2" width="$3" height="$4" bits="$5"
shift 5
layout=planar form=1.22
if [ $# -gt 0 ] && { [ "$1" = planar ] || [ "$1" = semi ]; }; then layout="$1"; shift; fi
if [ $# -gt 0 ] && { [ "$1" = 1.22 ] || [ "$1" = drm ]; }; then form="$1"; shift; fi
feeder="${VMAFX_DMABUF_FEEDER:-}"
if [ -z "$feeder" ]; then
  for candidate in "${GST_PLUGIN_PATH:-}/../tests/gst/dmabuf-memfd-feeder" \
                   "$here/../build-tests/tests/gst/dmabuf-memfd-feeder"; do
    if [ -x "$candidate" ]; then feeder="$candidate"; break; fi
  done
fi
[ -n "$feeder" ] && [ -x "$feeder" ] || { echo "dmabuf-memfd-feeder not found: build the tests or set VMAFX_DMABUF_FEEDER" >&2; exit 1; }
if [ "${RAW:-0}" = 1 ]; then
  exec "$feeder" "$ref" "$dist" "$width" "$height" "$bits" "$layout" "$form" "$@"
fi
"$feeder" "$ref" "$dist" "$width" "$height" "$bits" "$layout" "$form" "$@" | "$here/format-vmaf-messages.sh"
