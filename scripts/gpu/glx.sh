#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GL input on GLX, the companion of gl.sh (EGL's device platform):
#   scripts/gpu/glx.sh BUILD_DIR LOG_DIR
# The display: $DISPLAY when set (an X server whose GLX is the GPU's), else an Xvfb started here (Xvfb on PATH). The
# GPU's GLX client library is chosen through glvnd (__GLX_VENDOR_LIBRARY_NAME, default nvidia; VMAFX_GLX_VENDOR
# overrides it).
#   1. the GL GPU suites on GLX (VMAFX_TEST_GL_PLATFORM=glx; GStreamer with GST_GL_PLATFORM=glx GST_GL_WINDOW=x11):
#      every layout, clip scores zero-copy equal to host / system memory, the registration cache, the producer's
#      fence; pipelines/score-glx-capture.sh with allow-copy=false;
#   2. the same display with Mesa's llvmpipe (__GLX_VENDOR_LIBRARY_NAME=mesa): refused naming the renderer, no
#      interop call before the refusal (test_gl_context), the element downloads with that reason (test_gst_gl).
# Needs GStreamer 1.22 with its GL library. One line per test and pipeline on stdout; logs in LOG_DIR.
source "$(dirname "$0")/common.sh"
command -v gst-launch-1.0 >/dev/null || { echo "glx: gst-launch-1.0 missing (GStreamer's tools)"; exit 77; }
xvfb_pid=""
if [ -z "${DISPLAY:-}" ]; then
  command -v Xvfb >/dev/null || { echo "glx: no DISPLAY and no Xvfb to start one"; exit 77; }
  for n in $(seq 90 99); do [ -e /tmp/.X11-unix/X$n ] || break; done
  Xvfb :$n -screen 0 1920x1080x24 +extension GLX -nolisten tcp > "$LOGS/xvfb.log" 2>&1 &
  xvfb_pid=$!
  trap '[ -n "$xvfb_pid" ] && kill $xvfb_pid 2>/dev/null' EXIT
  for i in $(seq 50); do [ -e /tmp/.X11-unix/X$n ] && break; sleep 0.1; done
  export DISPLAY=:$n
fi
vendor=${VMAFX_GLX_VENDOR:-nvidia}
{ cat "$LOGS/machine.txt"; echo "DISPLAY=$DISPLAY GLX vendor $vendor"; } | tee "$LOGS/glx_machine.txt"
export GST_GL_PLATFORM=glx GST_GL_WINDOW=x11
# 1. The GPU's GLX.
(
  export __GLX_VENDOR_LIBRARY_NAME=$vendor VMAFX_TEST_GL_PLATFORM=glx
  GST_DEBUG=glcontext:4,gldisplay:4 timeout 60 gst-launch-1.0 gltestsrc num-buffers=1 ! fakesink \
    > "$LOGS/glx_gltestsrc.log" 2>&1
  echo "glx gltestsrc rc=$? $(grep -m1 -o 'GL_RENDERER: .*' "$LOGS/glx_gltestsrc.log")"
  run_test glx_test_gl_import_gpu 300 "$BUILD/tests/gl/test_gl_import_gpu"
  run_test glx_test_gst_gl_gpu 300 "$BUILD/tests/gl/test_gst_gl_gpu"
  run_test glx_test_gst_gl 300 "$BUILD/tests/gl/test_gst_gl"
  timeout 120 "$SRC/pipelines/score-glx-capture.sh" 50 backend=hip allow-copy=false > "$LOGS/glx_capture_gpu.log" 2>&1
  echo "score-glx-capture.sh ($vendor GLX, allow-copy=false) rc=$? frames=$(grep -c '^frame' "$LOGS/glx_capture_gpu.log")"
)
# 2. Mesa's llvmpipe on the same display: refused by name, frames downloaded.
(
  export __GLX_VENDOR_LIBRARY_NAME=mesa
  run_test llvmpipe_test_gl_context 120 "$BUILD/tests/gl/test_gl_context" --gtest_filter='*Glx*:*NoCurrent*'
  run_test llvmpipe_test_gst_gl 300 "$BUILD/tests/gl/test_gst_gl" --gtest_filter='*Refused*:*AllowCopy*'
  timeout 120 "$SRC/pipelines/score-glx-capture.sh" 10 backend=hip > "$LOGS/glx_capture_llvmpipe.log" 2>&1
  echo "score-glx-capture.sh (llvmpipe) rc=$? frames=$(grep -c '^frame' "$LOGS/glx_capture_llvmpipe.log")" \
       "downloaded-notice=$(grep -c 'GL frames are downloaded' "$LOGS/glx_capture_llvmpipe.log")"
)
echo "glx done in $(elapsed)s"
