#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GPU batch "gl": the GL interop on the GPU machine (NVIDIA, EGL's device platform; no GLX there). Run from the tree's
# root there, after `scripts/device/stage.sh gl` here (it copies this script to .devrun/), carrying
# [".devrun", ".devdata", ".devcarry"]:   bash .devrun/batch-gl.sh
# Logs go to $OUT; the summary lines go to stdout. Budgeted to end inside one 10-minute call (VMAFX_GL_BATCH_BUDGET_S:
# seconds after which the example pipelines are skipped, 570 by default).
set -u
START=$(date +%s)
python3 .devdata/unpack.py .devdata
source .devcarry/env.sh
export VMAFX_SHARED_DIR=$PWD/.devdata VMAFX_SOURCE_DIR=$PWD
export GST_PLUGIN_PATH_1_0=$PWD/.devrun/gst GST_REGISTRY_1_0=/tmp/gst-registry-gl-$$.bin GST_REGISTRY_FORK=no
R=.devrun
{ nvidia-smi -L; nproc; } > "$OUT/gl_machine.txt" 2>&1
# GStreamer's GL on the EGL device platform, as GStreamer sees it (renderer, API).
GST_GL_WINDOW=egl-device GST_DEBUG=glcontext:4,gldisplay:4 timeout 60 gst-launch-1.0 gltestsrc num-buffers=1 \
  ! fakesink > "$OUT/gl_egl_device.log" 2>&1
echo "egl-device gltestsrc rc=$? $(grep -m1 -o 'GL_RENDERER: .*' "$OUT/gl_egl_device.log")"
# test_gst_gl is CI's element test; on EGL's device platform here its clip comparisons run zero-copy.
export GST_GL_WINDOW=egl-device
for t in "tests/gl/test_gl_import_gpu 200" "tests/gl/test_gst_gl_gpu 150" "tests/gl/test_gst_gl 120"; do
  set -- $t
  name=$(basename "$1")
  if [ ! -x "$R/$1" ]; then echo "$name: not staged"; continue; fi
  timeout "$2" "$R/$1" > "$OUT/$name.log" 2>&1; echo "$name rc=$? $(( $(date +%s) - START ))s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^[0-9]+ tests? " "$OUT/$name.log" | head -12
done
# The example pipeline on the EGL device platform (distortion: a scaled copy; -good is not there), zero-copy through
# glupload and, for comparison, the same frames from system memory; wall time of each whole pipeline (start-up incl.).
pipeline() {  # $1: "" (system memory) or " ! glupload" (GL textures)
  gst-launch-1.0 -m \
    videotestsrc num-buffers=100 pattern=smpte horizontal-speed=3 \
    ! video/x-raw,format=I420,width=1920,height=1080,framerate=25/1 \
    ! tee name=t t. ! queue $1 ! v.ref_sink \
    t. ! queue ! videoscale ! video/x-raw,width=960,height=540 ! videoscale ! video/x-raw,width=1920,height=1080 \
    $1 ! v.dist_sink vmafxhip name=v backend=hip ! fakesink
}
for run in "zero_copy| ! glupload" "system_memory|"; do
  name=${run%%|*}; chain=${run#*|}
  left=$(( ${VMAFX_GL_BATCH_BUDGET_S:-570} - ($(date +%s) - START) ))
  if [ "$left" -le 30 ]; then echo "$name pipeline: skipped (budget)"; continue; fi
  t0=$(date +%s%N)
  timeout "$left" bash -c "$(declare -f pipeline); pipeline '$chain'" > "$OUT/gl_pipeline_$name.log" 2>&1
  rc=$?
  echo "$name pipeline rc=$rc frames=$(grep -c 'type=(string)frame' "$OUT/gl_pipeline_$name.log")" \
       "wall=$(( ($(date +%s%N) - t0) / 1000000 ))ms" \
       "downloaded-notice=$(grep -c 'GL frames are downloaded' "$OUT/gl_pipeline_$name.log")"
done
echo "gl batch done $(( $(date +%s) - START ))s"
