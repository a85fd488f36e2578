#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# memory:CUDAMemory input (NVIDIA; GStreamer 1.22's nvcodec, from gstreamer1.0-plugins-bad):
#   scripts/gpu/cuda.sh BUILD_DIR LOG_DIR STREAM_DIR
# STREAM_DIR holds the H.264 / HEVC streams of scripts/make-nvdec-streams.sh (ref_1080p.h264, dist_1080p.h264, ...).
# Runs the engine's CUDA import test, the element's NVDEC tests (VMAFX_NVDEC_DIR=STREAM_DIR), the caps test (with a
# GPU: the context query is answered), and pipelines/score-nvdec.sh. The benchmark: scripts/gpu/bench-nvdec.sh.
USAGE_MORE="STREAM_DIR"
source "$(dirname "$0")/common.sh"
[ $# -ge 1 ] && [ -d "$1" ] || { echo "usage: $(basename "$0") BUILD_DIR LOG_DIR STREAM_DIR" >&2; exit 2; }
S=$(cd "$1" && pwd)
export VMAFX_NVDEC_DIR=$S
cat "$LOGS/machine.txt"
ls -la "$S" > "$LOGS/cuda_streams.txt" 2>&1
if command -v gst-inspect-1.0 >/dev/null; then
  gst-inspect-1.0 nvh264dec > "$LOGS/nvh264dec.txt" 2>&1; echo "nvh264dec registered: rc=$?"
  echo "vmafxhip templates with memory:CUDAMemory: $(gst-inspect-1.0 vmafxhip 2>/dev/null | grep -c 'memory:CUDAMemory')"
fi
run_test test_cuda_import_gpu 300 "$BUILD/tests/gpu/test_cuda_import_gpu"
run_test test_gst_cuda 600 "$BUILD/tests/gst/test_gst_cuda"
run_test test_gst_cuda_caps 300 "$BUILD/tests/gst/test_gst_cuda_caps"
# The example, as documented (a distorted H.264 against its H.264 reference, both decoded by NVDEC).
if [ -f "$S/ref_1080p.h264" ] && [ -f "$S/dist_1080p.h264" ]; then
  timeout 300 "$SRC/pipelines/score-nvdec.sh" "$S/ref_1080p.h264" "$S/dist_1080p.h264" > "$LOGS/score_nvdec.log" 2>&1
  echo "score-nvdec.sh rc=$? frames=$(grep -c '^frame' "$LOGS/score_nvdec.log") $(grep -m1 '^pooled' "$LOGS/score_nvdec.log")"
else
  echo "score-nvdec.sh: no 1080p streams in $S"
fi
echo "cuda done in $(elapsed)s"
