#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GPU batch "vmafx-score whole process, traced": where the wall time of `vmafx-score --backend hip` goes on 300 frames
# of 1080p 8-bit (pair d's 8 frames repeated) and 120 frames of 4K 8-bit (random bytes), files in the page cache,
# for each way of reading the inputs:
#   mmap        the default: inputs mapped, frames handed to the scorer in place, 2 prefetch helpers per input
#   mmap-nopf   mapped, no prefetch helpers (VMAFX_PREFETCH=0): page faults happen in the engine's staging copy
#   read        VMAFX_READER=read: read() into pooled buffers on a read-ahead thread (the previous behaviour)
# Each traced run (VMAFX_TRACE=1) prints its phases with ms since start and the process's user/sys time; untraced
# runs give the headline times. Targets: 1080p <= 0.353 s (850 fps), 4K <= 0.5 s (240 fps).
# Run from the root of the staged tree (scripts/device/stage.sh engine; carry .devrun and .devdata):
#   bash scripts/device/batch-cli-trace.sh        -> $OUT/cli_trace.txt
# R is the build directory (stripped binaries), D the test data (unpacked here when still compressed).
set -u
R=${R:-.devrun}
D=${D:-.devdata/testdata}
OUT=${OUT:-/tmp}
B=$R/tools/vmafx-score
START=$(date +%s)
if [ ! -s $D/d_1920x1080_8b_ref.yuv ] && [ -f .devdata/unpack.py ]; then python3 .devdata/unpack.py .devdata; fi
if [ ! -s /tmp/d1080_ref.yuv ] || [ ! -s /tmp/d1080_x264crf35.yuv ]; then
  for s in ref x264crf35; do
    for i in $(seq 38); do cat $D/d_1920x1080_8b_$s.yuv; done | head -c $((3110400 * 300)) > /tmp/d1080_$s.yuv
  done
fi
if [ ! -s /tmp/r4k.yuv ] || [ ! -s /tmp/d4k.yuv ]; then
  head -c $((12441600 * 120)) /dev/urandom > /tmp/r4k.yuv
  head -c $((12441600 * 120)) /dev/urandom > /tmp/d4k.yuv
fi
cat /tmp/d1080_*.yuv /tmp/r4k.yuv /tmp/d4k.yuv > /dev/null
A1080="-r /tmp/d1080_ref.yuv -d /tmp/d1080_x264crf35.yuv -w 1920 -h 1080 -p 420 -b 8 --backend hip"
A4K="-r /tmp/r4k.yuv -d /tmp/d4k.yuv -w 3840 -h 2160 -p 420 -b 8 --backend hip"
TIMEFORMAT='time: %R s wall, %U s user, %S s sys'
mode_env() {
  case $1 in
    mmap) echo "VMAFX_READER=mmap" ;;
    mmap-nopf) echo "VMAFX_READER=mmap VMAFX_PREFETCH=0" ;;
    read) echo "VMAFX_READER=read" ;;
  esac
}
{
  echo "== machine: $(nproc) threads, kernel $(uname -r), /tmp on $(stat -f -c %T /tmp), THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
  free -g | head -2
  for size in 1080 4K; do
    if [ $size = 1080 ]; then A=$A1080; else A=$A4K; fi
    for mode in mmap read mmap-nopf; do
      for k in 1 2; do
        echo "== $size, $mode, traced run $k: $(mode_env $mode) VMAFX_TRACE=1"
        { time env $(mode_env $mode) VMAFX_TRACE=1 $B $A; } 2>&1
      done
    done
    for mode in mmap read; do
      for k in 1 2 3; do
        echo "== $size, $mode, untraced run $k: $(mode_env $mode)"
        { time env $(mode_env $mode) $B $A; } 2>&1
      done
    done
  done
  # Same scores whichever way the inputs are read (the fps field is a timing).
  for mode in mmap read; do
    rm -f /tmp/cli_$mode.json
    env $(mode_env $mode) $B $A1080 --json -o /tmp/cli_$mode.json > /dev/null 2>&1
    echo "== 1080p --json with $mode: rc=$?, $(grep -c '"frameNum"' /tmp/cli_$mode.json 2>/dev/null) frames"
  done
  if [ ! -s /tmp/cli_mmap.json ] || [ ! -s /tmp/cli_read.json ]; then
    echo "== 1080p JSON: a results file is missing"
  elif diff <(grep -v '"fps"' /tmp/cli_mmap.json) <(grep -v '"fps"' /tmp/cli_read.json) > /dev/null; then
    echo "== 1080p JSON: mmap and read scores identical"
  else
    echo "== 1080p JSON: mmap and read scores DIFFER"
  fi
} > "$OUT/cli_trace.txt" 2>&1
echo "cli trace done $(( $(date +%s) - START ))s"
