#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs pipelines/score-dmabuf-memfd.sh as a newcomer would and checks what it prints against libvmaf's JSON: an
# odd-size 8-bit pair in the planar 1.22 form and the semi-planar DMA_DRM form, a 10-bit pair as P010 in the DMA_DRM
# form. The pairs: the generated g5 (321x243) and g2 (333x326, 10-bit) written by VMAFX_MAKE_FIXTURES (the
# make_fixtures binary, set by meson; libvmaf's JSON in tests/data/generated), and the public pairs c and b of
# ../shared/testdata too when present (VMAFX_SHARED_DIR overrides). Needs the feeder (VMAFX_DMABUF_FEEDER, set by
# meson) and GST_PLUGIN_PATH; exits 77 without them.
#   pipelines/check-dmabuf-pipelines.sh SOURCE_ROOT
set -euo pipefail
src="$1"
data="${VMAFX_SHARED_DIR:-$src/../shared}/testdata"
[ -x "${VMAFX_MAKE_FIXTURES:-}" ] || { echo "VMAFX_MAKE_FIXTURES (the make_fixtures binary) not given"; exit 77; }
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
fx="$work/fixtures"
mkdir -p "$fx"
"$VMAFX_MAKE_FIXTURES" "$fx" > /dev/null
gen="$src/tests/data/generated"
oracle="$gen/g5_321x243_8b_420_blocky.vmaf_v0.6.1.json" frames=8
run g5-planar-1.22 "$fx/g5_321x243_8b_420_ref.yuv" "$fx/g5_321x243_8b_420_blocky.yuv" 321 243 8 planar 1.22
run g5-nv12-drm "$fx/g5_321x243_8b_420_ref.yuv" "$fx/g5_321x243_8b_420_blocky.yuv" 321 243 8 semi drm
oracle="$gen/g2_333x326_10b_420_blocky.vmaf_v0.6.1.json" frames=8
run g2-p010-drm "$fx/g2_333x326_10b_420_ref.yuv" "$fx/g2_333x326_10b_420_blocky.yuv" 333 326 10 semi drm
if [ -r "$data/c_321x241_8b_ref.yuv" ]; then
  oracle="$data/c_321x241_8b_blurnoise.vmaf_v0.6.1.json" frames=12
  run c-planar-1.22 "$data/c_321x241_8b_ref.yuv" "$data/c_321x241_8b_blurnoise.yuv" 321 241 8 planar 1.22
  run c-nv12-drm "$data/c_321x241_8b_ref.yuv" "$data/c_321x241_8b_blurnoise.yuv" 321 241 8 semi drm
else
  echo "not checked: the public pair c ($data absent)"
fi
if [ -r "$data/b_576x324_10b_ref.yuv" ]; then
  oracle="$data/b_576x324_10b_x264crf33.vmaf_v0.6.1.json" frames=24
  run b-p010-drm "$data/b_576x324_10b_ref.yuv" "$data/b_576x324_10b_x264crf33.yuv" 576 324 10 semi drm
else
  echo "not checked: the public pair b ($data absent)"
fi
exit $fail
