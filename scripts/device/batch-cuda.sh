#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GPU batch "cuda": memory:CUDAMemory input on the GPU machine (NVIDIA; GStreamer 1.22's nvcodec from the packed
# runtime, `../shared/device/prepare-runtime.sh --glx`). Run from the tree's root there, after
# `scripts/device/stage.sh cuda` here, carrying [".devrun", ".devdata", ".devcarry"]:   bash .devrun/batch-cuda.sh
# Runs the engine's CUDA import test, the element's NVDEC tests, the CI caps test (here with a GPU: the context query
# is answered), the pipelines/score-nvdec.sh example, then the NVDEC benchmark (bench-nvdec.sh nvdec many) with
# what is left of the call (VMAFX_CUDA_BATCH_BUDGET_S, 570 s by default). Summary lines to stdout.
set -u
START=$(date +%s)
# Logs go to one folder, packed into $OUT/cuda-logs.tar.xz at the end (the device tool returns at most 8 files);
# a caller that passes VMAFX_LOGS gets them in its folder instead, and packs them itself.
own_logs=0
[ -n "${VMAFX_LOGS:-}" ] || { VMAFX_LOGS=/tmp/cuda-logs-$$; own_logs=1; }
LOGS=$VMAFX_LOGS; mkdir -p "$LOGS"; export VMAFX_LOGS
python3 .devdata/unpack.py .devdata
source .devcarry/env.sh
export VMAFX_SHARED_DIR=$PWD/.devdata VMAFX_SOURCE_DIR=$PWD VMAFX_NVDEC_DIR=$PWD/.devdata/nvdec
export GST_PLUGIN_PATH_1_0=$PWD/.devrun/gst GST_REGISTRY_1_0=/tmp/gst-registry-cuda-$$.bin GST_REGISTRY_FORK=no
R=.devrun
BUDGET=${VMAFX_CUDA_BATCH_BUDGET_S:-570}
{ nvidia-smi -L; nproc; ls -la .devdata/nvdec; } > "$LOGS/cuda_machine.txt" 2>&1
gst-inspect-1.0 nvh264dec > "$LOGS/nvh264dec.txt" 2>&1; echo "nvh264dec registered: rc=$?"
gst-inspect-1.0 vmafxhip | grep -c 'memory:CUDAMemory' | sed 's/^/vmafxhip templates with memory:CUDAMemory: /'
for t in "tests/gpu/test_cuda_import_gpu 120" "tests/gst/test_gst_cuda 300" "tests/gst/test_gst_cuda_caps 60"; do
  set -- $t
  name=$(basename "$1")
  if [ ! -x "$R/$1" ]; then echo "$name: not staged"; continue; fi
  timeout "$2" "$R/$1" > "$LOGS/$name.log" 2>&1; echo "$name rc=$? $(( $(date +%s) - START ))s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]|^[0-9]+ tests? |differ$|in-place|own contexts|adopted:|copy:|refused:|planted|with the producer|allow-copy=false:|zero-copy:" \
    "$LOGS/$name.log" | head -24
done
# The example, as documented (a distorted H.264 against its H.264 reference, both decoded by NVDEC).
if [ -x pipelines/score-nvdec.sh ] && [ -f .devdata/nvdec/ref_1080p.h264 ]; then
  timeout 120 pipelines/score-nvdec.sh .devdata/nvdec/ref_1080p.h264 .devdata/nvdec/dist_1080p.h264 \
    > "$LOGS/score_nvdec.log" 2>&1
  echo "score-nvdec.sh rc=$? frames=$(grep -c 'type=(string)frame' "$LOGS/score_nvdec.log") $(grep -m1 -o 'pooled.*score=[^,]*' "$LOGS/score_nvdec.log" | grep -o 'score=[^,]*')"
fi
left=$(( BUDGET - ($(date +%s) - START) ))
if [ "$left" -gt 90 ]; then
  VMAFX_BENCH_BUDGET_S=$left bash $R/bench-nvdec.sh nvdec many
else
  echo "bench-nvdec: skipped (budget, ${left}s left): run it in a call of its own"
fi
[ $own_logs = 1 ] && python3 -c 'import sys, tarfile; t = tarfile.open(sys.argv[1], "w:xz"); t.add(sys.argv[2], arcname="."); t.close()' \
  "$OUT/cuda-logs.tar.xz" "$LOGS" && rm -rf "$LOGS"
echo "cuda batch done $(( $(date +%s) - START ))s"
