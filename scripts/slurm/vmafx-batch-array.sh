#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# vmafx-batch's Slurm array job: array task k scores task k of the manifest, or with --pack P its tasks
# k*P .. k*P+P-1. A task whose result is already in OUT_DIR is a no-op, so resubmitting the whole array redoes only
# what is missing.
#
#   sbatch --array=0-N[%T] [--gres=gpu:1] [--output=OUT_DIR/logs/%A_%a.out] \
#          vmafx-batch-array.sh MANIFEST OUT_DIR [vmafx-batch run options: --pack P --backend hip ...]
#
# vmafx-batch-submit writes this line for you (and prints it). With a GPU as GRES, Slurm sets CUDA_VISIBLE_DEVICES /
# ROCR_VISIBLE_DEVICES for the task and the engine takes the first visible device. VMAFX_BATCH names the vmafx-batch
# binary when it is not on PATH.
#SBATCH --job-name=vmafx-batch
#SBATCH --requeue
#SBATCH --open-mode=append
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: sbatch --array=0-N vmafx-batch-array.sh MANIFEST OUT_DIR [vmafx-batch run options]" >&2
  exit 2
fi
manifest=$1
out_dir=$2
shift 2
exec "${VMAFX_BATCH:-vmafx-batch}" run "$manifest" --out-dir "$out_dir" "$@"
