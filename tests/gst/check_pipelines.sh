#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs the scripts in pipelines/ as a newcomer would and checks what they print: the raw-file script on an odd-size
# pair must print libvmaf's per-frame and pooled VMAF; the encoded, videotestsrc and encoder-on-the-fly scripts must
# score every frame, the live-capture one score or count every frame. The clips are the generated pairs
# (VMAFX_MAKE_FIXTURES: the make_fixtures binary, set by meson; libvmaf's JSON in tests/data/generated), and the
# public pair c of ../shared/testdata too when present (VMAFX_SHARED_DIR overrides).
# Needs GST_PLUGIN_PATH (set by meson); exits 77 without it or without make_fixtures.
set -euo pipefail
src="$1"
data="${VMAFX_SHARED_DIR:-$src/../shared}/testdata"
[ -x "${VMAFX_MAKE_FIXTURES:-}" ] || { echo "VMAFX_MAKE_FIXTURES (the make_fixtures binary) not given"; exit 77; }
gst-inspect-1.0 vmafxhip >/dev/null 2>&1 || { echo "vmafxhip plugin not found"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi; }
fx="$work/fixtures"
mkdir -p "$fx"
"$VMAFX_MAKE_FIXTURES" "$fx" > /dev/null
gen="$src/tests/data/generated"
# The odd-size pair: g5, 321x243 8-bit 4:2:0, 8 frames (chroma planes 161x122 in the file).
ref="$fx/g5_321x243_8b_420_ref.yuv" dist="$fx/g5_321x243_8b_420_blocky.yuv" w=321 h=243 n=8
source "$src/pipelines/raw-layout.sh"

# 1. Raw files: every frame and the pooled score equal libvmaf's JSON (printed with 6 decimals by both).
raw_check() {  # REF DIST W H ORACLE FRAMES
  "$src/pipelines/score-raw-files.sh" "$1" "$2" "$3" "$4" I420 threads=1 > "$work/raw.txt"
  python3 - "$work/raw.txt" "$5" "$6" <<'PY' || fail=1
import json, re, sys
out = open(sys.argv[1]).read()
oracle = json.load(open(sys.argv[2]))
n = int(sys.argv[3])
frames = [float(m) for m in re.findall(r"^frame +\d+ +t= *[\d.]+s +vmaf +([\d.]+)", out, re.M)]
want = [f["metrics"]["vmaf"] for f in oracle["frames"]]
assert len(frames) == len(want) == n, (len(frames), len(want), n)
for i, (a, b) in enumerate(zip(frames, want)):
    assert abs(a - b) <= 1e-6, (i, a, b)
pooled = float(re.search(r"^pooled over %d frames .*: vmaf ([\d.]+)" % n, out, re.M).group(1))
assert abs(pooled - oracle["pooled_metrics"]["vmaf"]["mean"]) <= 1e-6, pooled
print("ok: score-raw-files.sh prints libvmaf's %d frame scores and pooled mean %s (%s)" % (n, pooled, sys.argv[2]))
PY
}
raw_check "$ref" "$dist" $w $h "$gen/g5_321x243_8b_420_blocky.vmaf_v0.6.1.json" $n
if [ -r "$data/c_321x241_8b_ref.yuv" ]; then
  raw_check "$data/c_321x241_8b_ref.yuv" "$data/c_321x241_8b_blurnoise.yuv" 321 241 \
    "$data/c_321x241_8b_blurnoise.vmaf_v0.6.1.json" 12
else
  echo "not checked: the public pair c ($data absent)"
fi

# 2. An encoded distorted clip (MJPEG in AVI, made here) decoded on the fly.
raw_layout I420 $w $h
gst-launch-1.0 -q filesrc location="$dist" ! $RAW_PARSE ! jpegenc quality=70 ! avimux ! filesink location="$work/dist.avi"
"$src/pipelines/score-encoded.sh" "$ref" $w $h I420 "$work/dist.avi" threads=1 psnr=true > "$work/enc.txt"
check "score-encoded.sh scores $n frames" '[ "$(grep -c "^frame" "$work/enc.txt")" = $n ] && grep -q "^pooled over $n frames" "$work/enc.txt"'

# 2b. The same with decodebin (GStreamer 1.22 could leave such a gst-launch run hanging after EOS: docs/element.md,
# "Preroll"); five runs, each bounded.
hung=0
for i in 1 2 3 4 5; do
  if ! timeout 120 gst-launch-1.0 -q filesrc location="$ref" ! $RAW_PARSE ! v.ref_sink \
      filesrc location="$work/dist.avi" ! decodebin ! videoconvert dither=none ! video/x-raw,format=I420 ! v.dist_sink \
      vmafxhip name=v threads=1 ! fakesink > "$work/decodebin.txt" 2>&1; then
    hung=$((hung + 1))
  fi
done
check "decodebin: 5 gst-launch runs end within 120 s each (did not: $hung)" '[ "$hung" = 0 ]'

# 3. videotestsrc against its JPEG round trip.
"$src/pipelines/score-videotestsrc-jpeg.sh" 8 40 threads=1 > "$work/vts.txt"
check "score-videotestsrc-jpeg.sh scores 8 frames" '[ "$(grep -c "^frame" "$work/vts.txt")" = 8 ] && grep -q "^pooled over 8 frames" "$work/vts.txt"'

# 4. Raw messages.
"$src/pipelines/print-messages.sh" 3 threads=1 > "$work/msg.txt"
check "print-messages.sh prints 3 frame messages and the pooled one" \
  '[ "$(grep -c "type=(string)frame" "$work/msg.txt")" = 3 ] && grep -q "type=(string)pooled" "$work/msg.txt"'

# 5. An encoder on the fly in one branch of a tee, default queues: every frame scored.
if gst-inspect-1.0 x264enc >/dev/null 2>&1 && gst-inspect-1.0 avdec_h264 >/dev/null 2>&1; then
  # The longer generated pair: g6, 256x144, 32 frames.
  "$src/pipelines/score-encoder-on-the-fly.sh" "$fx/g6_256x144_8b_420_ref.yuv" 256 144 I420 > "$work/otf.txt"
  check "score-encoder-on-the-fly.sh scores 32 frames" \
    '[ "$(grep -c "^frame" "$work/otf.txt")" = 32 ] && grep -q "^pooled over 32 frames" "$work/otf.txt"'
  # 6. Live capture for 3 s: the 90 frames are scored or skipped as busy, nothing else.
  "$src/pipelines/score-live-capture.sh" 3 > "$work/live.txt"
  check "score-live-capture.sh scores or counts all 90 frames" \
    'python3 - "$work/live.txt" <<'"'"'PY'"'"'
import re, sys
out = open(sys.argv[1]).read()
scored = int(re.search(r"^pooled over (\d+) frames", out, re.M).group(1))
m = re.search(r"^skipped (\d+) frames:(.*)$", out, re.M)
skipped = int(m.group(1)) if m else 0
assert scored > 0 and scored + skipped == 90, (scored, skipped)
assert not m or m.group(2).split()[::2] == ["busy"], m.group(2)
PY'
else
  echo "skipped: x264enc / avdec_h264 missing (scripts/setup.sh installs them)"
fi

# 7. A file that is not a whole number of frames is refused with a readable reason.
check "score-raw-files.sh refuses a wrong frame size" \
  '! "$src/pipelines/score-raw-files.sh" "$ref" "$dist" 320 $h I420 2>"$work/err.txt" >/dev/null && grep -q "not a whole number" "$work/err.txt"'
exit $fail
