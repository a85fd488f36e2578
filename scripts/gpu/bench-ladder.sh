#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# An encoding ladder on the GPU, whole process, files in the page cache, side by side in one run:
#   scripts/gpu/bench-ladder.sh BUILD_DIR LOG_DIR [LIBVMAF_VMAF]
# Inputs (made once in ${VMAFX_BENCH_INPUTS:-/tmp/vmafx-bench-inputs}/ladder, with GStreamer's videotestsrc,
# rawvideoparse and videoscale): a 1920x1080 8-bit 4:2:0 reference of FRAMES frames (default 300; moving noise,
# `videotestsrc pattern=snow`) and six renditions, 1080p (the reference through 1600x900 and back), 720p, 540p, 432p,
# 360p and 270p (the reference scaled down, bilinear), as .y4m at their own size, and the same renditions scaled back
# to 1080p (bilinear) as raw files for tools that need the reference's size (libvmaf). Then, median of 3 runs each:
#   ladder, one pass     vmafx-score -r ref -d 1080p.y4m -d 720p.y4m ... --backend hip (scaled in the engine)
#   six vmafx runs       vmafx-score -r ref -d R.y4m --backend hip, one rendition after the other
#   the same two on the 1080p raw renditions (the inputs libvmaf reads)
#   six libvmaf runs     LIBVMAF_VMAF (a libvmaf `vmaf` built with CUDA; not part of vmafxhip) on the 1080p raw
#                        renditions, one after the other, its default GPU mask (CUDA); a run that fell back to the
#                        CPU is reported as such
#   the element          gst-launch-1.0: the reference and six rawvideoparse renditions at their own size into
#                        request pads, against six single-rendition pipelines
# and bench-gpu --ladder (device frames, steady state). stdout and LOG_DIR/bench_ladder.txt.
USAGE_MORE="[LIBVMAF_VMAF]"
source "$(dirname "$0")/common.sh"
LIBVMAF=${1:-}
N=${FRAMES:-300}
IN=${VMAFX_BENCH_INPUTS:-${TMPDIR:-/tmp}/vmafx-bench-inputs}/ladder
mkdir -p "$IN"
RUNGS="1920x1080 1280x720 960x540 768x432 640x360 480x270"
REF=$IN/ref_$N.yuv

# y4m WIDTH HEIGHT < raw > y4m: wraps raw 8-bit 4:2:0 frames in a YUV4MPEG2 stream.
y4m() {
  python3 -c '
import sys
w, h = int(sys.argv[1]), int(sys.argv[2])
size = w * h + 2 * ((w + 1) // 2) * ((h + 1) // 2)
i, o = sys.stdin.buffer, sys.stdout.buffer
o.write(b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n" % (w, h))
while True:
    f = i.read(size)
    if len(f) < size:
        break
    o.write(b"FRAME\n")
    o.write(f)
' "$1" "$2"
}
parse() { echo "filesrc location=$1 ! rawvideoparse width=$2 height=$3 format=i420 framerate=25/1"; }

make_inputs() {
  [ -s "$REF" ] || gst-launch-1.0 -q videotestsrc pattern=snow num-buffers="$N" ! \
    video/x-raw,format=I420,width=1920,height=1080,framerate=25/1 ! filesink location="$REF" || return 1
  for r in $RUNGS; do
    local w=${r%x*} h=${r#*x} down=$r
    [ "$r" = 1920x1080 ] && down=1600x900
    local small=$IN/${h}p_$N.yuv
    if [ ! -s "$IN/${h}p_$N.y4m" ]; then
      # shellcheck disable=SC2046
      gst-launch-1.0 -q $(parse "$REF" 1920 1080) ! videoscale method=bilinear ! \
        video/x-raw,width=${down%x*},height=${down#*x} ! videoscale method=bilinear ! \
        video/x-raw,width="$w",height="$h" ! filesink location="$small" || return 1
      y4m "$w" "$h" < "$small" > "$IN/${h}p_$N.y4m"
    fi
    if [ ! -s "$IN/${h}p_up_$N.yuv" ]; then
      # shellcheck disable=SC2046
      gst-launch-1.0 -q $(parse "$small" "$w" "$h") ! videoscale method=bilinear ! \
        video/x-raw,width=1920,height=1080 ! filesink location="$IN/${h}p_up_$N.yuv" || return 1
    fi
  done
}

# since T0: the seconds from T0 (date +%s.%N) until now.
since() { python3 -c "import sys; print('%.3f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$(date +%s.%N)"; }
# wall CMD...: prints the wall seconds of the command (its output in LOGS/ladder.out; a failure is said on stderr).
wall() {
  local t0
  t0=$(date +%s.%N)
  "$@" > "$LOGS/ladder.out" 2>&1 || { echo "FAILED: $*" >&2; tail -3 "$LOGS/ladder.out" >&2; }
  since "$t0"
}
# median3 FUNCTION: runs it 3 times, prints "MEDIAN (a b c)".
median3() {
  local ts=()
  for rep in 1 2 3; do ts+=($("$@")); done
  echo "$(printf '%s\n' "${ts[@]}" | sort -n | sed -n 2p) (${ts[*]})"
}
raw=(-w 1920 -h 1080 -p 420 -b 8)
y4ms() { for r in $RUNGS; do echo "$IN/${r#*x}p_$N.y4m"; done; }
ups() { for r in $RUNGS; do echo "$IN/${r#*x}p_up_$N.yuv"; done; }
vmafx() { "$BUILD/tools/vmafx-score" -r "$REF" "${raw[@]}" --backend hip -q "$@"; }
ladder_y4m() { local d=(); for f in $(y4ms); do d+=(-d "$f"); done; wall vmafx "${d[@]}" --json -o "$LOGS/lad_%d.json"; }
ladder_up() { local d=(); for f in $(ups); do d+=(-d "$f"); done; wall vmafx "${d[@]}" --json -o "$LOGS/ladup_%d.json"; }
six() {  # six FILES_FUNCTION TOOL
  local t0
  t0=$(date +%s.%N)
  for f in $($1); do
    if [ "$2" = vmafx ]; then
      vmafx -d "$f" --json -o "$LOGS/one.json" > "$LOGS/ladder.out" 2>&1 || echo "FAILED: vmafx-score $f" >&2
    else
      "$LIBVMAF" -r "$REF" -d "$f" "${raw[@]}" -m version=vmaf_v0.6.1 --json -o "$LOGS/lv.json" -q \
        > "$LOGS/libvmaf.out" 2>&1 || echo "FAILED: libvmaf $f" >&2
      grep -q "using CPU" "$LOGS/libvmaf.out" && echo "libvmaf fell back to the CPU: $(head -2 "$LOGS/libvmaf.out")" >&2
    fi
  done
  since "$t0"
}
element_pipeline() {  # element_pipeline [RUNG]: the ladder (no argument) or one rendition through dist_sink
  local p k=0
  p="$(parse "$REF" 1920 1080) ! v.ref_sink "
  for r in ${1:-$RUNGS}; do
    p+="$(parse "$IN/${r#*x}p_$N.yuv" "${r%x*}" "${r#*x}") ! v.dist_sink$([ -z "${1:-}" ] && echo "_$k") "
    k=$((k + 1))
  done
  echo "$p vmafxhip name=v backend=hip ! fakesink"
}
# shellcheck disable=SC2046
element_ladder() { wall gst-launch-1.0 -q $(element_pipeline); }
element_six() {
  local t0
  t0=$(date +%s.%N)
  # shellcheck disable=SC2046
  for r in $RUNGS; do gst-launch-1.0 -q $(element_pipeline "$r") > "$LOGS/ladder.out" 2>&1 || echo "FAILED: element $r" >&2; done
  since "$t0"
}

{
  cat "$LOGS/machine.txt"
  make_inputs || { echo "could not make the inputs"; exit 1; }
  cat "$REF" "$IN"/*_"$N".y4m "$IN"/*_up_"$N".yuv "$IN"/[0-9]*p_"$N".yuv > /dev/null
  echo "inputs: $IN, reference 1920x1080 $N frames (videotestsrc pattern=snow), renditions $RUNGS"
  echo "== whole process, median of 3 (seconds)"
  echo "vmafx ladder, one pass, renditions at their own size: $(median3 ladder_y4m)"
  echo "six vmafx runs, renditions at their own size:        $(median3 six y4ms vmafx)"
  echo "vmafx ladder, one pass, renditions scaled to 1080p:  $(median3 ladder_up)"
  echo "six vmafx runs, renditions scaled to 1080p:          $(median3 six ups vmafx)"
  if [ -n "$LIBVMAF" ] && [ -x "$LIBVMAF" ]; then
    "$LIBVMAF" --version 2>&1 | head -1 | sed 's/^/libvmaf: /'
    echo "six libvmaf runs (CUDA), renditions scaled to 1080p: $(median3 six ups libvmaf)"
  fi
  if command -v gst-launch-1.0 > /dev/null; then
    echo "element ladder, one pipeline, six request pads:      $(median3 element_ladder)"
    echo "six element pipelines:                               $(median3 element_six)"
  fi
  echo "== bench-gpu --ladder (device frames)"
  "$BUILD/bench/bench-gpu" --ladder "$(echo "$RUNGS" | tr ' ' ',')" --size 1920x1080 --bitdepth 8 --frames 600
} 2>&1 | tee "$LOGS/bench_ladder.txt"
