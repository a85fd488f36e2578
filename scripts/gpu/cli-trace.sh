#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Where the wall time of `vmafx-score --backend hip` goes, on 300 frames of 1080p and 120 frames of 4K 8-bit
# (common.sh's bench_inputs; files in the page cache), for each way of reading the inputs:
#   mmap        the default: inputs mapped, frames handed to the scorer in place, 2 prefetch helpers per input
#   mmap-nopf   mapped, no prefetch helpers (VMAFX_PREFETCH=0): page faults happen in the engine's staging copy
#   read        VMAFX_READER=read: read() into pooled buffers on a read-ahead thread
# Each traced run (VMAFX_TRACE=1) prints its phases with ms since start and the process's user / sys time;
# untraced runs give the headline times; the last check compares the JSON of the two readers.
#   scripts/gpu/cli-trace.sh BUILD_DIR LOG_DIR        -> LOG_DIR/cli_trace.txt, a summary on stdout
source "$(dirname "$0")/common.sh"
B=$BUILD/tools/vmafx-score
bench_inputs 300 120
A1080="-r $IN/1080_300_ref.yuv -d $IN/1080_300_dist.yuv -w 1920 -h 1080 -p 420 -b 8 --backend hip"
A4K="-r $IN/4k_120_ref.yuv -d $IN/4k_120_dist.yuv -w 3840 -h 2160 -p 420 -b 8 --backend hip"
TIMEFORMAT='time: %R s wall, %U s user, %S s sys'
mode_env() {
  case $1 in
    mmap) echo "VMAFX_READER=mmap" ;;
    mmap-nopf) echo "VMAFX_READER=mmap VMAFX_PREFETCH=0" ;;
    read) echo "VMAFX_READER=read" ;;
  esac
}
{
  cat "$LOGS/machine.txt"
  echo "== /tmp on $(stat -f -c %T /tmp), THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
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
  echo "== 1080p, --backend cpu --threads $(nproc)"
  { time $B ${A1080/--backend hip/--backend cpu --threads $(nproc)}; } 2>&1
  # Same scores whichever way the inputs are read (the fps field is a timing).
  for mode in mmap read; do
    rm -f "$LOGS/cli_$mode.json"
    env $(mode_env $mode) $B $A1080 --json -o "$LOGS/cli_$mode.json" > /dev/null 2>&1
    echo "== 1080p --json with $mode: rc=$?, $(grep -c '"frameNum"' "$LOGS/cli_$mode.json" 2>/dev/null) frames"
  done
  if [ ! -s "$LOGS/cli_mmap.json" ] || [ ! -s "$LOGS/cli_read.json" ]; then
    echo "== 1080p JSON: a results file is missing"
  elif diff <(grep -v '"fps"' "$LOGS/cli_mmap.json") <(grep -v '"fps"' "$LOGS/cli_read.json") > /dev/null; then
    echo "== 1080p JSON: mmap and read scores identical"
  else
    echo "== 1080p JSON: mmap and read scores DIFFER"
  fi
} > "$LOGS/cli_trace.txt" 2>&1
awk '/^== / { h = substr($0, 4) } /^time:/ { print h ": " substr($0, 7) }' "$LOGS/cli_trace.txt"
grep -E "^== 1080p (--json|JSON)" "$LOGS/cli_trace.txt"
echo "cli trace done in $(elapsed)s"
