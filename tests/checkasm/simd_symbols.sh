#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The SIMD files (engine/cpu/simd/x86_*.cpp) are compiled for AVX2 / AVX-512. Any function they define with external
# or weak linkage (an inline function of a header, a template instance) could be the copy the linker keeps for the
# whole program, and then run on a CPU without those instructions. So they may export data only (the kernel tables
# and header constants): this test fails on any global or weak code symbol of those archive members.
# usage: simd_symbols.sh NM ARCHIVE MEMBER...   (a member is matched by the end of its name: x86_avx2.cpp.o)
set -eu
nm_tool=$1
archive=$2
shift 2
status=0
for member in "$@"; do
  listing=$("$nm_tool" -C "$archive" | awk -v m="$member" '
    /:$/ { cur = $0; sub(/:$/, "", cur); n = split(cur, parts, "/"); cur = parts[n]; next }
    length(cur) >= length(m) && substr(cur, length(cur) - length(m) + 1) == m { print }')
  if [ -z "$listing" ]; then
    echo "FAIL $member not found in $archive"
    status=1
    continue
  fi
  # T/W/i: global, weak and indirect code. Data (D, R, B, V, u) is fine.
  bad=$(printf '%s\n' "$listing" | awk '$2 ~ /^[TWi]$/ { $1 = ""; $2 = ""; print }')
  if [ -n "$bad" ]; then
    echo "FAIL $member exports code compiled for its instruction set:"
    echo "$bad"
    status=1
  else
    echo "ok   $member: no exported code"
  fi
done
exit $status
