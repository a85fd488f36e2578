#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GPU batch "glx": GL input on GLX on the GPU machine (NVIDIA), the companion of batch-gl.sh (EGL's device platform).
# Needs the packed runtime (`../shared/device/prepare-runtime.sh --glx`: Xvfb, Mesa's swrast for the X server). Run
# from the tree's root there, after `scripts/device/stage.sh glx` here, carrying [".devrun", ".devdata", ".devcarry"]:
#   bash .devrun/batch-glx.sh
# 1. Xvfb + NVIDIA's GLX client library (`vmafx_start_glx`): the GL GPU suites on GLX (VMAFX_TEST_GL_PLATFORM=glx;
#    GStreamer with GST_GL_PLATFORM=glx GST_GL_WINDOW=x11): every layout, clip scores zero-copy equal to host /
#    system memory, the registration cache, the producer's fence; the same-GPU decision printed by each.
# 2. The same display with Mesa's llvmpipe (without __GLX_VENDOR_LIBRARY_NAME): refused naming the renderer, no
#    interop call before the refusal (test_gl_context), the element downloads with that reason (test_gst_gl).
# 3. pipelines/score-glx-capture.sh on both, then the GL benchmark (bench-nvdec.sh gl: GLX and EGL zero-copy vs
#    gldownload at 1080p) with what is left of the call (VMAFX_GLX_BATCH_BUDGET_S, 570 s by default).
# The summary lines go to stdout.
set -u
START=$(date +%s)
# Logs go to one folder, packed into $OUT/glx-logs.tar.xz at the end (the device tool returns at most 8 files);
# a caller that passes VMAFX_LOGS gets them in its folder instead, and packs them itself.
own_logs=0
[ -n "${VMAFX_LOGS:-}" ] || { VMAFX_LOGS=/tmp/glx-logs-$$; own_logs=1; }
LOGS=$VMAFX_LOGS; mkdir -p "$LOGS"; export VMAFX_LOGS
python3 .devdata/unpack.py .devdata
source .devcarry/env.sh
export VMAFX_SHARED_DIR=$PWD/.devdata VMAFX_SOURCE_DIR=$PWD
export GST_PLUGIN_PATH_1_0=$PWD/.devrun/gst GST_REGISTRY_1_0=/tmp/gst-registry-glx-$$.bin GST_REGISTRY_FORK=no
R=.devrun
BUDGET=${VMAFX_GLX_BATCH_BUDGET_S:-570}
declare -f vmafx_start_glx >/dev/null && [ -f .devcarry/runtime.tar.xz ] \
  || { echo "glx batch: needs the packed runtime (prepare-runtime.sh --glx)"; exit 1; }
vmafx_start_glx
{ nvidia-smi -L; nproc; echo "DISPLAY=$DISPLAY __GLX_VENDOR_LIBRARY_NAME=${__GLX_VENDOR_LIBRARY_NAME:-}"; } \
  > "$LOGS/glx_machine.txt" 2>&1
export GST_GL_PLATFORM=glx GST_GL_WINDOW=x11
GST_DEBUG=glcontext:4,gldisplay:4 timeout 60 gst-launch-1.0 gltestsrc num-buffers=1 ! fakesink > "$LOGS/glx_gltestsrc.log" 2>&1
echo "glx gltestsrc rc=$? $(grep -m1 -o 'GL_RENDERER: .*' "$LOGS/glx_gltestsrc.log")"

run() {  # name timeout binary [args...]: runs with the current environment, prints rc and the gtest summary
  local name=$1 limit=$2 bin=$3; shift 3
  if [ ! -x "$R/$bin" ]; then echo "$name: not staged"; return; fi
  timeout "$limit" "$R/$bin" "$@" > "$LOGS/$name.log" 2>&1; echo "$name rc=$? $(( $(date +%s) - START ))s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^[0-9]+ tests? |^context( identity)?:|^importer:|same GPU|refusal:|rounds|differ|hit" \
    "$LOGS/$name.log" | head -16
}
# 1. NVIDIA's GLX.
export VMAFX_TEST_GL_PLATFORM=glx
run glx_test_gl_import_gpu 200 tests/gl/test_gl_import_gpu
run glx_test_gst_gl_gpu 150 tests/gl/test_gst_gl_gpu
run glx_test_gst_gl 120 tests/gl/test_gst_gl
timeout 60 pipelines/score-glx-capture.sh 50 backend=hip allow-copy=false > "$LOGS/glx_capture_gpu.log" 2>&1
echo "score-glx-capture.sh (NVIDIA GLX, allow-copy=false) rc=$? frames=$(grep -c '^frame' "$LOGS/glx_capture_gpu.log")"
# 2. Mesa's llvmpipe on the same display: refused by name, frames downloaded.
unset VMAFX_TEST_GL_PLATFORM
(
  unset __GLX_VENDOR_LIBRARY_NAME
  run llvmpipe_test_gl_context 60 tests/gl/test_gl_context --gtest_filter='*Glx*:*NoCurrent*'
  run llvmpipe_test_gst_gl 120 tests/gl/test_gst_gl --gtest_filter='*Refused*:*AllowCopy*'
  timeout 60 pipelines/score-glx-capture.sh 10 backend=hip > "$LOGS/glx_capture_llvmpipe.log" 2>&1
  echo "score-glx-capture.sh (llvmpipe) rc=$? frames=$(grep -c '^frame' "$LOGS/glx_capture_llvmpipe.log")" \
       "downloaded-notice=$(grep -c 'GL frames are downloaded' "$LOGS/glx_capture_llvmpipe.log")"
)
left=$(( BUDGET - ($(date +%s) - START) ))
if [ "$left" -gt 90 ]; then
  VMAFX_BENCH_BUDGET_S=$left bash $R/bench-nvdec.sh gl
else
  echo "bench-nvdec gl: skipped (budget, ${left}s left)"
fi
[ -n "${VMAFX_XVFB_PID:-}" ] && kill "$VMAFX_XVFB_PID" 2>/dev/null
[ $own_logs = 1 ] && python3 -c 'import sys, tarfile; t = tarfile.open(sys.argv[1], "w:xz"); t.add(sys.argv[2], arcname="."); t.close()' \
  "$OUT/glx-logs.tar.xz" "$LOGS" && rm -rf "$LOGS"
echo "glx batch done $(( $(date +%s) - START ))s"
