#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs pipelines/score-dmabuf-memfd.sh as a newcomer would and checks what it prints against libvmaf's JSON: the
# odd-size 8-bit pair in the planar 1.22 form and the semi-planar DMA_DRM form, the 10-bit pair as P010 in the DMA_DRM
# form. Needs the feeder (VMAFX_DMABUF_FEEDER, set by meson), GST_PLUGIN_PATH and ../shared/testdata
# (VMAFX_SHARED_DIR overrides); exits 77 without them.
#   pipelines/check-dmabuf-pipelines.sh SOURCE_ROOT
set -euo pipefail
src="$1"
data="${VMAFX_SHARED_DIR:-$src/../shared}/testdata"
[ -r "$data/c_321x241_8b_ref.yuv" ] || { echo "no oracle clips in $data"; exit 77; }
gst-inspect-1.0 vmafxhip >/dev/null 2>&1 || { echo "vmafxhip plugin not found"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail=0
compare() {  # OUTPUT ORACLE FRAMES
  python3 - "$1" "$2" "$3" <<'PY'
import json, re, sys
out = open(sys.argv[1]).read()
oracle = json.load(open(sys.argv[2]))
n = int(sys.argv[3])
frames = [float(m) for m in re.findall(r"^frame +\d+ +t= *[\d.]+s +vmaf +([\d.]+)", out, re.M)]
want = [f["metrics"]["vmaf"] for f in oracle["frames"]]
assert len(frames) == n == len(want), (len(frames), n, len(want))
for i, (a, b) in enumerate(zip(frames, want)):
    assert abs(a - b) <= 1e-6, (i, a, b)
pooled = float(re.search(r"^pooled over %d frames .*: vmaf ([\d.]+)" % n, out, re.M).group(1))
assert abs(pooled - oracle["pooled_metrics"]["vmaf"]["mean"]) <= 1e-6, pooled
PY
}
run() {  # NAME ARGS...
  local name="$1"
  shift
  if "$src/pipelines/score-dmabuf-memfd.sh" "$@" threads=1 > "$work/$name.txt" 2> "$work/$name.err" &&
     compare "$work/$name.txt" "$oracle" "$frames"; then
    echo "ok: $name ($(grep -o 'frames-copied: [0-9]*' "$work/$name.err"))"
  else
    echo "FAIL: $name"
    cat "$work/$name.err"
    fail=1
  fi
}
oracle="$data/c_321x241_8b_blurnoise.vmaf_v0.6.1.json" frames=12
run c-planar-1.22 "$data/c_321x241_8b_ref.yuv" "$data/c_321x241_8b_blurnoise.yuv" 321 241 8 planar 1.22
run c-nv12-drm "$data/c_321x241_8b_ref.yuv" "$data/c_321x241_8b_blurnoise.yuv" 321 241 8 semi drm
if [ -r "$data/b_576x324_10b_ref.yuv" ]; then
  oracle="$data/b_576x324_10b_x264crf33.vmaf_v0.6.1.json" frames=24
  run b-p010-drm "$data/b_576x324_10b_ref.yuv" "$data/b_576x324_10b_x264crf33.yuv" 576 324 10 semi drm
else
  echo "skipped: b_576x324_10b (clips absent)"
fi
exit $fail
