#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GL input on EGL's device platform (no display needed; NVIDIA's EGL, or Mesa's on AMD): the importer and element GL
# tests, then the example pipeline at 1080p read zero-copy through glupload and, for comparison, from system memory.
#   scripts/gpu/gl.sh BUILD_DIR LOG_DIR
# Needs GStreamer 1.22 with its GL library (gst-launch-1.0, gltestsrc / glupload of -base). One line per test binary
# and per pipeline on stdout; logs in LOG_DIR. (GLX: scripts/gpu/glx.sh.)
source "$(dirname "$0")/common.sh"
command -v gst-launch-1.0 >/dev/null || { echo "gl: gst-launch-1.0 missing (GStreamer's tools)"; exit 77; }
cat "$LOGS/machine.txt"
# GStreamer's GL on the EGL device platform, as GStreamer sees it (renderer, API).
GST_GL_WINDOW=egl-device GST_DEBUG=glcontext:4,gldisplay:4 timeout 60 gst-launch-1.0 gltestsrc num-buffers=1 \
  ! fakesink > "$LOGS/gl_egl_device.log" 2>&1
echo "egl-device gltestsrc rc=$? $(grep -m1 -o 'GL_RENDERER: .*' "$LOGS/gl_egl_device.log")"
export GST_GL_WINDOW=egl-device
run_test test_gl_import_gpu 300 "$BUILD/tests/gl/test_gl_import_gpu"
run_test test_gst_gl_gpu 300 "$BUILD/tests/gl/test_gst_gl_gpu"
run_test test_gst_gl 300 "$BUILD/tests/gl/test_gst_gl"
# The example pipeline (distortion: a scaled copy), zero-copy through glupload and the same frames from system
# memory; wall time of each whole pipeline, start-up included.
pipeline() {  # $1: "" (system memory) or " ! glupload" (GL textures)
  gst-launch-1.0 -m \
    videotestsrc num-buffers=100 pattern=smpte horizontal-speed=3 \
    ! video/x-raw,format=I420,width=1920,height=1080,framerate=25/1 \
    ! tee name=t t. ! queue $1 ! v.ref_sink \
    t. ! queue ! videoscale ! video/x-raw,width=960,height=540 ! videoscale ! video/x-raw,width=1920,height=1080 \
    $1 ! v.dist_sink vmafxhip name=v backend=hip ! fakesink
}
for run in "zero_copy| ! glupload" "system_memory|"; do
  name=${run%%|*} chain=${run#*|}
  t0=$(date +%s%N)
  timeout 300 bash -c "$(declare -f pipeline); pipeline '$chain'" > "$LOGS/gl_pipeline_$name.log" 2>&1
  rc=$?
  echo "$name pipeline rc=$rc frames=$(pooled_frames "$LOGS/gl_pipeline_$name.log")" \
       "wall=$(( ($(date +%s%N) - t0) / 1000000 ))ms" \
       "downloaded-notice=$(grep -c 'GL frames are downloaded' "$LOGS/gl_pipeline_$name.log")"
done
echo "gl done in $(elapsed)s"
