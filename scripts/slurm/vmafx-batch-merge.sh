#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# vmafx-batch's merge job, chained after the array job (sbatch --dependency=afterany:ARRAY_JOB, or afterok):
# merges every result into TABLE (.csv or .json). When tasks are missing or failed it writes no table, prints
# vmafx-batch status (what failed, and the sbatch line that resubmits the missing tasks) and fails.
#
#   sbatch --dependency=afterany:JOB vmafx-batch-merge.sh MANIFEST OUT_DIR TABLE [options of every command]
#          [-- merge options: --per-frame --percentiles 1,5,50]
#SBATCH --job-name=vmafx-batch-merge
set -uo pipefail
if [ $# -lt 3 ]; then
  echo "usage: sbatch vmafx-batch-merge.sh MANIFEST OUT_DIR TABLE [--chunk-frames N ...] [-- merge options]" >&2
  exit 2
fi
manifest=$1
out_dir=$2
table=$3
shift 3
common=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  common+=("$1")
  shift
done
[ $# -gt 0 ] && shift
batch=${VMAFX_BATCH:-vmafx-batch}
"$batch" merge "$manifest" --out-dir "$out_dir" -o "$table" "${common[@]}" "$@"
rc=$?
[ "$rc" = 0 ] && exit 0
echo "vmafx-batch-merge: the merge failed (exit $rc); the state of the tasks:"
"$batch" status "$manifest" --out-dir "$out_dir" "${common[@]}" || true
exit "$rc"
