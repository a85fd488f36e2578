# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the scripts of scripts/gpu/: every one takes a build directory and a log directory as its first two
# arguments, runs the binaries of that build in place and writes its logs there, and needs nothing else of the
# machine but what it checks for (a GPU driver, GStreamer, Xvfb, ...). Sets:
#   BUILD LOGS   absolute paths (LOGS created)
#   SRC          the source tree (this script's checkout), exported as VMAFX_SOURCE_DIR for the tests
#   GST_PLUGIN_PATH_1_0, GST_REGISTRY_1_0, GST_REGISTRY_FORK   the plugin of BUILD only, a registry in LOGS
# and writes LOGS/machine.txt (GPU, driver, CPU threads, kernel).
set -u
if [ $# -lt 2 ] || [ ! -d "$1" ]; then
  echo "usage: $(basename "$0") BUILD_DIR LOG_DIR ${USAGE_MORE:-}" >&2
  exit 2
fi
BUILD=$(cd "$1" && pwd)
mkdir -p "$2"
LOGS=$(cd "$2" && pwd)
shift 2
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export VMAFX_SOURCE_DIR=$SRC
export GST_PLUGIN_PATH_1_0=$BUILD/gst GST_REGISTRY_1_0=$LOGS/gst-registry.bin GST_REGISTRY_FORK=no
START=$(date +%s)
{
  date -u
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi -L
    nvidia-smi --query-gpu=name,driver_version,memory.total,pci.bus_id --format=csv,noheader
  fi
  command -v rocm-smi >/dev/null && rocm-smi --showproductname
  echo "$(nproc) CPU threads, kernel $(uname -r)"
  git -C "$SRC" rev-parse --short HEAD 2>/dev/null | sed 's/^/commit /'
} > "$LOGS/machine.txt" 2>&1

elapsed() { echo $(( $(date +%s) - START )); }

# pooled_frames LOG: the frames-paired count of the last pooled message in a `gst-launch-1.0 -m` log (0 without one).
pooled_frames() {
  grep -o 'type=(string)pooled.*frames-paired=(guint64)[0-9]*' "$1" | tail -n 1 | sed 's/.*frames-paired=(guint64)//' |
    grep . || echo 0
}

# run_test NAME BOUND BINARY [ARGS...]: runs a gtest binary under a bound (seconds), its output in LOGS/NAME.log;
# prints "NAME rc=N Ts passed=P skipped=S failed=F" and the failed tests. rc 77: every test skipped (no device).
run_test() {
  local name=$1 bound=$2 bin=$3
  shift 3
  if [ ! -x "$bin" ]; then
    echo "$name: not built ($bin)"
    return
  fi
  local t0
  t0=$(date +%s)
  timeout "$bound" "$bin" "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  local passed skipped failed
  passed=$(grep -cE '^\[       OK \]' "$LOGS/$name.log")
  skipped=$(grep -cE '^\[  SKIPPED \] [A-Za-z].* \([0-9]+ ms\)$' "$LOGS/$name.log")
  failed=$(grep -cE '^\[  FAILED  \] [A-Za-z].* \([0-9]+ ms\)$' "$LOGS/$name.log")
  echo "$name rc=$rc $(( $(date +%s) - t0 ))s passed=$passed skipped=$skipped failed=$failed$([ $rc = 124 ] && echo " (ran past ${bound}s)")"
  grep -E '^\[  FAILED  \] [A-Za-z].* \([0-9]+ ms\)$' "$LOGS/$name.log" | head -8
}

# bench_inputs FRAMES_1080 FRAMES_4K: raw 8-bit 4:2:0 inputs for the whole-process benchmarks, made once in
# ${VMAFX_BENCH_INPUTS:-${TMPDIR:-/tmp}/vmafx-bench-inputs} and read once into the page cache. 1080p: the public
# pair d (../shared/testdata, or $VMAFX_SHARED_DIR/testdata) repeated when it is there, else random bytes; 4K: random
# bytes. Sets IN (the folder) and IN_1080 (which 1080p content was used).
bench_inputs() {
  local n1080=$1 n4k=$2
  IN=${VMAFX_BENCH_INPUTS:-${TMPDIR:-/tmp}/vmafx-bench-inputs}
  mkdir -p "$IN"
  local d="${VMAFX_SHARED_DIR:-$SRC/../shared}/testdata"
  local f1080=3110400 f4k=12441600
  for s in ref dist; do
    local dest="$IN/1080_${n1080}_$s.yuv"
    if [ ! -s "$dest" ]; then
      local src="$d/d_1920x1080_8b_$([ $s = ref ] && echo ref || echo x264crf35).yuv"
      if [ -s "$src" ]; then
        for i in $(seq $(( n1080 / 8 + 1 ))); do cat "$src"; done | head -c $(( f1080 * n1080 )) > "$dest"
      else
        head -c $(( f1080 * n1080 )) /dev/urandom > "$dest"
      fi
    fi
    [ -s "$IN/4k_${n4k}_$s.yuv" ] || head -c $(( f4k * n4k )) /dev/urandom > "$IN/4k_${n4k}_$s.yuv"
  done
  IN_1080=$([ -s "$d/d_1920x1080_8b_ref.yuv" ] && echo "pair d repeated" || echo "random bytes")
  cat "$IN"/1080_${n1080}_*.yuv "$IN"/4k_${n4k}_*.yuv > /dev/null
  echo "inputs in $IN: 1080p ${n1080} frames ($IN_1080), 4K ${n4k} frames (random bytes)"
}
