#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The NVDEC / GL benchmarks (NVIDIA; GStreamer 1.22's nvcodec and GL):
#   scripts/gpu/bench-nvdec.sh BUILD_DIR LOG_DIR STREAM_DIR [SECTION...]
# STREAM_DIR: the streams of scripts/make-nvdec-streams.sh. Sections (default: nvdec many gl): nvdec (decode alone vs
# decode + scoring through memory:CUDAMemory vs the system-memory path, both streams decoded on the GPU, per size and
# codec found), many (eight 1080p pipelines in one process: every stream's scores against its single run, aggregate
# frames per second, device memory per stream), gl (GL zero-copy vs gldownload at 1080p on EGL's device platform, and
# on GLX when DISPLAY is set). Every run is timed as the whole gst-launch process (start-up included) and repeated
# (VMAFX_BENCH_REPS, default 3; the median is printed); VMAFX_BENCH_LIMIT_S (default 3600) bounds the whole (later measurements are skipped, saying so). One
# line per measurement on stdout; logs in LOG_DIR.
USAGE_MORE="STREAM_DIR [SECTION...]"
source "$(dirname "$0")/common.sh"
[ $# -ge 1 ] && [ -d "$1" ] || { echo "usage: $(basename "$0") BUILD_DIR LOG_DIR STREAM_DIR [SECTION...]" >&2; exit 2; }
S=$(cd "$1" && pwd)
shift
command -v gst-launch-1.0 >/dev/null || { echo "bench-nvdec: gst-launch-1.0 missing"; exit 77; }
REPS=${VMAFX_BENCH_REPS:-3}
LIMIT=${VMAFX_BENCH_LIMIT_S:-3600}
sections=${*:-nvdec many gl}
cp "$LOGS/machine.txt" "$LOGS/bench_machine.txt"
gst-inspect-1.0 vmafxhip > "$LOGS/bench_inspect.txt" 2>&1  # warms the registry outside the timed runs
gst-inspect-1.0 nvh264dec > /dev/null 2>&1 || { echo "nvh264dec not registered: no nvcodec"; exit 77; }

left() { echo $(( LIMIT - ($(date +%s) - START) )); }
# Runs "$@" (a gst-launch line) REPS times; prints the median wall time in ms; the last run's log in $log.
timed() {  # $1 name, rest: command
  local name=$1; shift
  local times=() t0 rc
  for r in $(seq "$REPS"); do
    t0=$(date +%s%N)
    timeout "$(left)" "$@" > "$LOGS/$name.log" 2>&1; rc=$?
    times+=($(( ($(date +%s%N) - t0) / 1000000 )))
    [ $rc = 0 ] || { echo "$name: rc=$rc (see $name.log)" >&2; echo -1; return; }
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (REPS + 1) / 2 ))p"
}
dec() {  # $1 stream file, $2 tail
  case $1 in *.h265) echo "filesrc location=$1 ! h265parse ! nvh265dec ! $2" ;;
             *) echo "filesrc location=$1 ! h264parse ! nvh264dec ! $2" ;; esac
}
frames_of() { pooled_frames "$LOGS/$1.log"; }

if [[ " $sections " == *" nvdec "* ]]; then
  for size in 1080p 2160p; do
    ref=$S/ref_$size.h264
    [ -f "$ref" ] || { echo "nvdec $size: no streams in $S"; continue; }
    for dist in $S/dist_$size.h264 $S/dist_$size.h265; do
      [ -f "$dist" ] || continue
      codec=${dist##*.}
      [ "$(left)" -gt 60 ] || { echo "nvdec $size $codec: skipped (time limit)"; continue; }
      # Decode alone: both streams, as the scoring pipelines decode them.
      d=$(timed "nvdec_${size}_${codec}_decode" gst-launch-1.0 $(dec $ref "fakesink") $(dec $dist "fakesink"))
      z=$(timed "nvdec_${size}_${codec}_cuda" gst-launch-1.0 -m $(dec $ref "v.ref_sink") $(dec $dist "v.dist_sink") \
            vmafxhip name=v frame-message=true backend=hip allow-copy=false ! fakesink)
      zf=$(frames_of "nvdec_${size}_${codec}_cuda")
      s=$(timed "nvdec_${size}_${codec}_sysmem" gst-launch-1.0 -m \
            $(dec $ref "video/x-raw,format=NV12 ! v.ref_sink") $(dec $dist "video/x-raw,format=NV12 ! v.dist_sink") \
            vmafxhip name=v frame-message=true backend=hip ! fakesink)
      sf=$(frames_of "nvdec_${size}_${codec}_sysmem")
      awk -v n="$size $codec" -v d="$d" -v z="$z" -v s="$s" -v zf="$zf" -v sf="$sf" 'BEGIN {
        printf "nvdec %s: decode alone %d ms; decode+score CUDAMemory %d ms (%d frames, +%.1f %% over decode); " \
               "system memory %d ms (%d frames, +%.1f %%)\n", n, d, z, zf, (d > 0 ? 100 * (z - d) / d : -1), s, sf,
               (d > 0 ? 100 * (s - d) / d : -1) }'
      grep -h -o 'CUDA frames are read on the GPU[^"]*' "$LOGS/nvdec_${size}_${codec}_cuda.log" | head -1
    done
  done
fi

# Peak device memory of the GPU while "$@" runs (nvidia-smi every 200 ms), in MiB, into $LOGS/$1.mem.
with_memory() {  # $1 name, rest: command
  local name=$1; shift
  ( while :; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null; sleep 0.2; done ) \
    > "$LOGS/$name.mem" &
  local poller=$!
  local t0=$(date +%s%N)
  timeout "$(left)" "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  echo $(( ($(date +%s%N) - t0) / 1000000 )) > "$LOGS/$name.ms"
  kill $poller 2>/dev/null; wait $poller 2>/dev/null
  return $rc
}

if [[ " $sections " == *" many "* ]]; then
  ref=$S/ref_1080p.h264 dist=$S/dist_1080p.h264
  if [ ! -f "$ref" ] || [ ! -f "$dist" ]; then
    echo "many: no 1080p streams in $S"
  elif [ "$(left)" -le 90 ]; then
    echo "many: skipped (time limit)"
  else
    idle=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1)
    with_memory many_single gst-launch-1.0 -m $(dec $ref "v0.ref_sink") $(dec $dist "v0.dist_sink") \
      vmafxhip name=v0 frame-message=true backend=hip allow-copy=false ! fakesink
    chains=""
    for i in 0 1 2 3 4 5 6 7; do
      chains="$chains $(dec $ref "v$i.ref_sink") $(dec $dist "v$i.dist_sink") vmafxhip name=v$i frame-message=true backend=hip"
      chains="$chains allow-copy=false ! fakesink"
    done
    with_memory many_eight gst-launch-1.0 -m $chains; rc=$?
    # Every frame message of every stream, all score fields as GStreamer prints them (doubles round-trip exactly).
    python3 - "$LOGS" "$idle" "$rc" <<'PY'
import os, re, sys
out, idle, rc = sys.argv[1], int(sys.argv[2]), sys.argv[3]
timing = {"type", "timestamp", "stream-time", "running-time", "duration"}
def streams(name):
    res = {}
    for line in open(os.path.join(out, name + ".log"), errors="replace"):
        m = re.search(r'from element "(v\d+)" \(element\): VMAF, type=\(string\)frame, (.*);', line)
        if not m:
            continue
        fields = dict(f.split("=", 1) for f in m.group(2).split(", ") if "=" in f)
        key = fields.pop("index", None)
        for t in timing:
            fields.pop(t, None)
        res.setdefault(m.group(1), {})[key] = fields
    return res
def peak(n):
    vals = [int(l) for l in open(os.path.join(out, n + ".mem")) if l.strip().isdigit()]
    return max(vals) if vals else -1
single = streams("many_single").get("v0", {})
eight = streams("many_eight")
same = sum(1 for i in range(8) if eight.get("v%d" % i) == single and single)
for i in range(8):
    if eight.get("v%d" % i) != single:
        print("many: stream v%d: %d frame messages, differs from the single run's %d" %
              (i, len(eight.get("v%d" % i, {})), len(single)))
ms1 = int(open(os.path.join(out, "many_single.ms")).read())
ms8 = int(open(os.path.join(out, "many_eight.ms")).read())
m1, m8 = peak("many_single"), peak("many_eight")
n = len(single)
print("many: 8 x 1080p pipelines in one process rc=%s: %d of 8 streams' frame messages equal the single run's (%d "
      "frames each, every score field); wall %d ms (single %d ms); aggregate %.1f fps (single %.1f fps); GPU memory "
      "peak %d MiB (idle %d, single %d): %.0f MiB per added stream, %.0f MiB for the first" % (rc, same, n, ms8, ms1,
      8 * n * 1000.0 / ms8 if ms8 else 0, n * 1000.0 / ms1 if ms1 else 0, m8, idle, m1, (m8 - m1) / 7.0, m1 - idle))
PY
  fi
fi

if [[ " $sections " == *" gl "* ]]; then
  # GL at 1080p, a GPU-rendered producer: gltestsrc RGBA textures, the distorted copy scaled down and up in GL
  # (glcolorscale), scored in place through the GL interop (zero-copy) against the same with gldownload before each
  # pad (the frames then reach the element in system memory), backend=hip, on both GL platforms.
  gl_pipeline() {  # $1: "" (zero-copy) or "gldownload !"
    echo "gltestsrc num-buffers=300 pattern=circular ! video/x-raw(memory:GLMemory),format=RGBA,width=1920,height=1080,framerate=25/1
      ! tee name=t t. ! queue ! $1 v.ref_sink
      t. ! queue ! glcolorscale ! video/x-raw(memory:GLMemory),width=960,height=540 ! glcolorscale
      ! video/x-raw(memory:GLMemory),width=1920,height=1080 ! $1 v.dist_sink vmafxhip name=v frame-message=true backend=hip ! fakesink"
  }
  for platform in egl glx; do
    if [ $platform = glx ]; then
      [ -n "${DISPLAY:-}" ] || { echo "gl glx: no DISPLAY (an X server with the GPU's GLX; scripts/gpu/glx.sh)"; continue; }
      env_p="GST_GL_PLATFORM=glx GST_GL_WINDOW=x11 __GLX_VENDOR_LIBRARY_NAME=${VMAFX_GLX_VENDOR:-nvidia}"
    else
      env_p="GST_GL_PLATFORM=egl GST_GL_WINDOW=egl-device"
    fi
    [ "$(left)" -gt 60 ] || { echo "gl $platform: skipped (time limit)"; continue; }
    z=$(timed gl_${platform}_zero_copy env $env_p gst-launch-1.0 -m $(gl_pipeline ""))
    zf=$(frames_of gl_${platform}_zero_copy)
    d=$(timed gl_${platform}_download env $env_p gst-launch-1.0 -m $(gl_pipeline "gldownload !"))
    df=$(frames_of gl_${platform}_download)
    awk -v p=$platform -v z="$z" -v d="$d" -v zf="$zf" -v df="$df" 'BEGIN {
      printf "gl %s 1080p: zero-copy %d ms (%d frames, %.1f fps); gldownload %d ms (%d frames, %.1f fps)\n",
             p, z, zf, (z > 0 ? zf * 1000 / z : 0), d, df, (d > 0 ? df * 1000 / d : 0) }'
    echo "gl $platform zero-copy run: $(grep -c 'GL frames are downloaded' "$LOGS/gl_${platform}_zero_copy.log") download notices (0: every frame read through the interop)"
  done
fi
echo "bench-nvdec done in $(elapsed)s"
