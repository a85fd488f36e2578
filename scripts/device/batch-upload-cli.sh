#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# GPU batch "upload + cli" (after scripts/device/stage.sh engine): the pipeline and scorer parity tests with the
# upload stream on and off, bench-gpu in both modes, and vmafx-score's whole-process speed on 300 frames of 1080p
# (pair d's 8 frames repeated, page cache warm) and 120 frames of 4K (random bytes), GPU and CPU.
set -u
START=$(date +%s)
python3 .devdata/unpack.py .devdata
export VMAFX_SHARED_DIR=$PWD/.devdata VMAFX_SOURCE_DIR=$PWD
R=.devrun
for m in 1 0; do
  VMAFX_HIP_UPLOAD_STREAM=$m timeout 80 $R/tests/gpu/test_hip_pipeline > "$OUT/pipeline.upload$m.log" 2>&1
  echo "pipeline upload=$m rc=$? $(( $(date +%s) - START ))s"
  VMAFX_HIP_UPLOAD_STREAM=$m timeout 150 $R/tests/gpu/test_hip_scorer > "$OUT/scorer.upload$m.log" 2>&1
  echo "scorer upload=$m rc=$? $(( $(date +%s) - START ))s"
done
timeout 150 $R/bench/bench-gpu --upload-stream both --no-cpu --no-breakdown > "$OUT/bench_gpu_upload.md" 2>&1
echo "bench rc=$? $(( $(date +%s) - START ))s"
D=.devdata/testdata
for s in ref x264crf35; do
  for i in $(seq 38); do cat $D/d_1920x1080_8b_$s.yuv; done | head -c $((3110400 * 300)) > /tmp/d1080_$s.yuv
done
head -c $((12441600 * 120)) /dev/urandom > /tmp/r4k.yuv; head -c $((12441600 * 120)) /dev/urandom > /tmp/d4k.yuv
cat /tmp/d1080_*.yuv /tmp/r4k.yuv /tmp/d4k.yuv > /dev/null
TIMEFORMAT='%R s wall, %U s user, %S s sys'
{
  for k in 1 2 3; do
    echo "== 1080p 300 frames, --backend hip, run $k"
    { time $R/tools/vmafx-score -r /tmp/d1080_ref.yuv -d /tmp/d1080_x264crf35.yuv -w 1920 -h 1080 -p 420 -b 8 --backend hip; } 2>&1
  done
  for k in 1 2 3; do
    echo "== 4K 120 frames (random), --backend hip, run $k"
    { time $R/tools/vmafx-score -r /tmp/r4k.yuv -d /tmp/d4k.yuv -w 3840 -h 2160 -p 420 -b 8 --backend hip; } 2>&1
  done
  echo "== 1080p 300 frames, --backend cpu --threads 16"
  { time $R/tools/vmafx-score -r /tmp/d1080_ref.yuv -d /tmp/d1080_x264crf35.yuv -w 1920 -h 1080 -p 420 -b 8 --backend cpu --threads 16; } 2>&1
  echo "== 1080p 300 frames, --backend hip --json (results file)"
  { time $R/tools/vmafx-score -r /tmp/d1080_ref.yuv -d /tmp/d1080_x264crf35.yuv -w 1920 -h 1080 -p 420 -b 8 --backend hip --json -o /tmp/o.json; } 2>&1
} > "$OUT/cli_timing.txt" 2>&1
echo "cli done $(( $(date +%s) - START ))s"
