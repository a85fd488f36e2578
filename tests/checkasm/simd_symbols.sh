#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The SIMD libraries (engine/cpu/simd) are compiled with -mavx2 / -mavx512*. Any function they define with external
# or weak linkage (an inline function of a header, a template instance) could be the copy the linker keeps for the
# whole program, and then run on a CPU without those instructions. So they may export data only (the kernel tables
# and header constants): this test fails on any global or weak code symbol.
# usage: simd_symbols.sh NM LIB...
set -eu
nm_tool=$1
shift
status=0
for lib in "$@"; do
  # T/W/i: global, weak and indirect code. Data (D, R, B, V, u) is fine.
  bad=$("$nm_tool" -C "$lib" | awk '$2 ~ /^[TWi]$/ { $1 = ""; $2 = ""; print }' || true)
  if [ -n "$bad" ]; then
    echo "FAIL $lib exports code compiled for its instruction set:"
    echo "$bad"
    status=1
  else
    echo "ok   $lib: no exported code"
  fi
done
exit $status
