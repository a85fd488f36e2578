#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# No test seam in a product binary: the names of the planted defects, the test counters and the diagnostic and test
# switches (engine/core/test_hooks.h and the headers it names) must not occur in the strings of the files given.
#   check_product_strings.sh FILE...             exit 1 naming each file and name found, 0 when none is
#   check_product_strings.sh --present FILE...   the other way round, for a build with test hooks: every name must
#                                                occur in at least one of the files (so the list is not stale and the
#                                                check above can fail); exit 1 naming the names not found
set -euo pipefail
names=(
  VMAFX_HIP_PLANT clear_before_upload skip_wait skip_upload_submit skip_gate  # the HIP pipeline's planted defects
  planted_early_release                                                      # the importers' planted early release
  upload_submits interop_counters                                            # counters the tests read
  VMAFX_GL_VERIFY VMAFX_GL_FORCE_INTEROP                                     # the GL input's diagnostic switches
  VMAFX_GST_CUDA_LIBRARY                                                     # the element without libgstcuda
)
present=0
if [ "${1:-}" = --present ]; then present=1; shift; fi
[ $# -gt 0 ] || { sed -n '3,9p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
command -v strings >/dev/null || { echo "strings (binutils) not found"; exit 77; }
fail=0
declare -A seen=()
for f in "$@"; do
  [ -f "$f" ] || { echo "FAIL: $f does not exist"; fail=1; continue; }
  text="$(strings -a "$f")"
  for n in "${names[@]}"; do
    if grep -qF -- "$n" <<<"$text"; then
      seen[$n]=1
      if [ $present = 0 ]; then
        echo "FAIL: $f contains '$n' ($(grep -F -m2 -- "$n" <<<"$text" | tr '\n' ' '))"
        fail=1
      fi
    fi
  done
done
if [ $present = 1 ]; then
  for n in "${names[@]}"; do
    [ -n "${seen[$n]:-}" ] || { echo "FAIL: '$n' is in none of $*: the list of seams is stale"; fail=1; }
  done
  [ $fail = 1 ] || echo "ok: all ${#names[@]} seam names occur in the build with test hooks ($*)"
else
  [ $fail = 1 ] || echo "ok: none of ${#names[@]} seam names in $*"
fi
exit $fail
