#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs the GL scripts of pipelines/ as documented and checks that each scores every frame. Needs GST_PLUGIN_PATH
# (set by meson) and a GL display or EGL device; exits 77 (SKIP) without GL.
set -euo pipefail
src="$1"
gst-inspect-1.0 vmafxhip >/dev/null 2>&1 || { echo "vmafxhip plugin not found"; exit 77; }
gst-launch-1.0 -q videotestsrc num-buffers=1 ! video/x-raw,width=16,height=16 ! glupload ! fakesink >/dev/null 2>&1 \
  || { echo "no GL here (no display, no EGL device)"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail=0
check() {  # name, frames expected, command...
  local name="$1" n="$2"
  shift 2
  if "$@" > "$work/out.txt" 2>&1 && [ "$(grep -c '^frame' "$work/out.txt")" = "$n" ] \
      && grep -q "^pooled over $n frames" "$work/out.txt"; then
    echo "ok: $name scores $n frames: $(grep '^pooled' "$work/out.txt")"
  else
    echo "FAIL: $name"; tail -n 20 "$work/out.txt"; fail=1
  fi
}
check "score-gl-upload.sh videotestsrc" 8 "$src/pipelines/score-gl-upload.sh" videotestsrc 8 threads=1
check "score-gl-upload.sh gltestsrc" 8 "$src/pipelines/score-gl-upload.sh" gltestsrc 8 threads=1
check "score-gl-compositor.sh" 6 "$src/pipelines/score-gl-compositor.sh" 6 0.3 threads=1
if [ -n "${DISPLAY:-}" ]; then
  check "score-glx-capture.sh" 6 "$src/pipelines/score-glx-capture.sh" 6 threads=1
else
  echo "skip: score-glx-capture.sh (no DISPLAY)"
fi
exit $fail
