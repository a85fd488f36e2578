#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What the portable GPU code (-Dgpu-targets=portable: NVIDIA PTX compiled by the driver at first use, AMD kernel
# sources compiled by hiprtc at first use) costs at the first start, and that the cache makes later starts as quick
# as code compiled ahead of time. Needs a GPU (exit 77 without one) and, for the ahead-of-time build, the GPU's
# compiler (nvcc / hipcc).
#   scripts/gpu/jit-cache.sh BUILD_DIR LOG_DIR
# BUILD_DIR is a portable build (./run.sh's build/). The script builds vmafx-score there and in BUILD_DIR-aot, a
# build of the same source with code for this GPU's architecture only (-Dhip-nvidia-archs=sm_NN or
# -Dhip-amd-targets=gfxN), then times `vmafx-score --backend hip` on the sample pair of samples/ (24 frames,
# vmaf_v0.6.1), RUNS times each (default 3), each run in a fresh process:
#   aot, first start        empty caches (the engine's and the NVIDIA driver's)
#   portable, first start   empty caches: the driver (or hiprtc) compiles every kernel
#   portable, second start  the caches of the first start kept
#   portable, second start, engine cache only    the driver's own cache disabled (CUDA_CACHE_DISABLE=1)
#   portable, second start, driver cache only    the engine's cache out of reach (HOME and XDG_CACHE_HOME unset)
# For each: the wall time of the process and the time Scorer::create took (VMAFX_TRACE=1: device start, module
# loads, allocations), min / median / max in ms. LOG_DIR gets every run's output, the caches and the table
# (jit-cache.txt, with the files the engine's cache holds after a portable first start). Passing: "portable, second
# start" within a few per cent of "aot, first start" (and the engine's cache holding one psnr-ptx-...cubin etc. per
# kernel on NVIDIA, one <kernel>-...-hiprtc...bin per kernel on AMD).
set -euo pipefail
[ $# -ge 2 ] || { sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
build="$(cd "$1" && pwd)"
mkdir -p "$2"
logs="$(cd "$2" && pwd)"
runs="${RUNS:-3}"
src="$(cd "$(dirname "$0")/../.." && pwd)"
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"

# This GPU's architecture.
amd="" nvidia=""
if command -v nvidia-smi >/dev/null && cc="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
                                            head -1)" && [ -n "$cc" ]; then
  nvidia="sm_${cc/./}"
elif command -v rocminfo >/dev/null && gfx="$(rocminfo 2>/dev/null | grep -o -m1 'gfx[0-9a-f]*')" && [ -n "$gfx" ]; then
  amd="$gfx"
else
  echo "jit-cache: no GPU found (nvidia-smi, rocminfo): nothing to measure"
  exit 77
fi
echo "jit-cache: GPU architecture ${nvidia}${amd}; source $src; logs in $logs"

# The two builds.
ninja -C "$build" tools/vmafx-score >"$logs/build-portable.log" 2>&1 || { tail -30 "$logs/build-portable.log"; exit 1; }
targets="$(meson introspect "$build" --buildoptions | python3 -c \
  "import json,sys; print([o['value'] for o in json.load(sys.stdin) if o['name']=='gpu-targets'][0])")"
[ "$targets" = portable ] || echo "jit-cache: warning: $build has -Dgpu-targets=$targets, not portable"
aot="$build-aot"
if [ ! -f "$aot/build.ninja" ]; then
  meson setup "$aot" "$src" --buildtype=release -Dgst=disabled -Dhip-nvidia-archs="$nvidia" -Dhip-amd-targets="$amd" \
    >"$logs/setup-aot.log" 2>&1 || { tail -30 "$logs/setup-aot.log"; exit 1; }
fi
ninja -C "$aot" tools/vmafx-score >"$logs/build-aot.log" 2>&1 || { tail -30 "$logs/build-aot.log"; exit 1; }
if ! grep -q "${nvidia}${amd}" <(meson introspect "$aot" --buildoptions); then
  echo "jit-cache: $aot does not compile for ${nvidia}${amd}"; exit 1
fi

samples="$logs/samples"
mkdir -p "$samples"
for f in "$src"/samples/*.yuv.gz; do gunzip -c "$f" >"$samples/$(basename "$f" .gz)"; done
ref="$samples/sample_320x240_ref.yuv" dist="$samples/sample_320x240_dist.yuv"

# One run: `run NAME BINARY MODE K CACHE` with MODE fresh (empty caches), keep (the caches as the last run left
# them), engine-only (the driver's cache disabled), driver-only (the engine's out of reach). Prints
# "wall_ms create_ms".
run() {
  local name="$1" bin="$2" mode="$3" k="$4" cache="$logs/cache-$5"
  local log="$logs/$name-$k.log"
  if [ "$mode" = fresh ]; then rm -rf "$cache"; fi
  mkdir -p "$cache/home" "$cache/nv"
  local envs=(HOME="$cache/home" XDG_CACHE_HOME="$cache/xdg" CUDA_CACHE_PATH="$cache/nv" VMAFX_TRACE=1)
  case "$mode" in
    engine-only) envs+=(CUDA_CACHE_DISABLE=1) ;;
    driver-only) envs=(-u HOME -u XDG_CACHE_HOME CUDA_CACHE_PATH="$cache/nv" VMAFX_TRACE=1) ;;
  esac
  local t0 t1
  t0=$(date +%s%N)
  env "${envs[@]}" "$bin" -r "$ref" -d "$dist" -w 320 -h 240 -p 420 -b 8 --backend hip -q -o /dev/null --json \
    >"$log" 2>&1 || { echo "jit-cache: $name run $k failed:"; tail -20 "$log"; exit 1; }
  t1=$(date +%s%N)
  local create
  create="$(sed 's/^vmafx-score trace: *//' "$log" | awk -F'|' '
      /Scorer::create begin/ {b = $1}
      /Scorer::create end/ {e = $1}
      END {gsub(/[^0-9.]/, "", b); gsub(/[^0-9.]/, "", e); if (b != "" && e != "") printf "%.1f", e - b; else print "?"}')"
  echo "$(( (t1 - t0) / 1000000 )) $create"
}

stats() {  # min / median / max of the numbers on stdin
  sort -n | awk '{v[NR]=$1} END {if (NR == 0) {print "-"; exit} printf "%s / %s / %s", v[1], v[int((NR+1)/2)], v[NR]}'
}

table="$logs/jit-cache.txt"
{
  echo "GPU ${nvidia}${amd}, $(date -u +%Y-%m-%dT%H:%MZ), $runs runs each, vmafx-score --backend hip, 24 frames 320x240"
  echo
  echo "| start | wall ms (min / median / max) | Scorer::create ms (min / median / max) |"
  echo "|---|---|---|"
} >"$table"
row() {  # row LABEL NAME BINARY MODE CACHE
  local label="$1" name="$2" bin="$3" mode="$4" cache="$5" walls=() creates=() k out
  for k in $(seq 1 "$runs"); do
    if [ "$mode" != fresh ]; then
      # A second start: after a first start of its own with empty caches.
      run "$name-first" "$bin" fresh "$k" "$cache" >/dev/null
    fi
    out="$(run "$name" "$bin" "$mode" "$k" "$cache")"
    walls+=("${out%% *}") creates+=("${out##* }")
  done
  echo "| $label | $(printf '%s\n' "${walls[@]}" | stats) | $(printf '%s\n' "${creates[@]}" | stats) |" >>"$table"
}
row "aot (${nvidia}${amd}), first start, empty caches" aot-first "$aot/tools/vmafx-score" fresh aot
row "portable, first start, empty caches" portable-first "$build/tools/vmafx-score" fresh portable
row "portable, second start" portable-second "$build/tools/vmafx-score" keep portable
row "portable, second start, engine cache only (CUDA_CACHE_DISABLE=1)" portable-engine "$build/tools/vmafx-score" \
  engine-only portable
row "portable, second start, driver cache only (no HOME)" portable-driver "$build/tools/vmafx-score" driver-only \
  portable
{
  echo
  echo "What the engine's cache holds after a portable first start:"
  ls -l "$logs/cache-portable/xdg/vmafxhip" 2>/dev/null | sed 's/^/  /' || echo "  (nothing)"
  echo "Backends of the runs:"
  grep -h "Scorer::create end" "$logs"/aot-first-1.log "$logs"/portable-first-1.log "$logs"/portable-second-1.log |
    sed 's/^.*Scorer::create end: /  /'
} >>"$table"
cat "$table"
