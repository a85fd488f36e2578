#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GPU batch "gst" (after scripts/device/stage.sh gst; carry [".devrun", ".devdata", ".devcarry"]): the element with
# backend=hip against backend=cpu, dma-buf import on the GPU (engine and element).
set -u
START=$(date +%s)
python3 .devdata/unpack.py .devdata
source .devcarry/env.sh
export VMAFX_SHARED_DIR=$PWD/.devdata VMAFX_SOURCE_DIR=$PWD
export GST_PLUGIN_PATH_1_0=$PWD/.devrun/gst GST_REGISTRY_1_0=/tmp/gst-registry-gst-$$.bin GST_REGISTRY_FORK=no
R=.devrun
for t in "tests/gst/test_gst_hip 200" "tests/gpu/test_hip_dmabuf 120" "tests/gst/test_gst_dmabuf 150"; do
  set -- $t
  name=$(basename "$1")
  timeout "$2" "$R/$1" > "$OUT/$name.log" 2>&1; echo "$name rc=$? $(( $(date +%s) - START ))s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED  \]" "$OUT/$name.log" | head -8
done
# The main job of ./run.sh on the GPU: the element with backend=hip on the shipped sample pair.
gunzip -c samples/sample_320x240_ref.yuv.gz > /tmp/s_ref.yuv; gunzip -c samples/sample_320x240_dist.yuv.gz > /tmp/s_dist.yuv
GST_DEBUG=0 timeout 60 bash pipelines/score-raw-files.sh /tmp/s_ref.yuv /tmp/s_dist.yuv 320 240 I420 backend=hip \
  > "$OUT/run_sh_pipeline.log" 2>&1
echo "pipeline rc=$? $(tail -n 2 "$OUT/run_sh_pipeline.log" | tr '\n' ' ')"
