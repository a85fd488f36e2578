#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The GPU test suites of a build, on a machine with a GPU (AMD with ROCm's libamdhip64, or NVIDIA with libcuda):
#   scripts/gpu/run-tests.sh BUILD_DIR LOG_DIR [TEST...]
# TEST: a binary's path under BUILD_DIR (tests/gpu/test_hip_adm, tests/gst/test_gst_hip, ...); default: every binary of
# tests/gpu, the element's GPU tests (tests/gst/test_gst_hip, test_gst_dmabuf, test_gst_cuda, test_gst_cuda_caps) and
# the GL ones (tests/gl/test_gl_import_gpu, test_gst_gl_gpu, test_gst_gl), then ./run.sh's pipeline with
# backend=hip. Each binary runs under its own bound (VMAFX_TEST_BOUND seconds, default 600). Prints one line per
# binary (rc, time, passed / skipped / failed); logs in LOG_DIR. Environment passed on: VMAFX_HIP_VENDOR,
# VMAFX_HIP_DEVICE, VMAFX_HIP_LANES, VMAFX_HIP_UPLOAD_STREAM, VMAFX_HIP_SYNC_LAUNCHES (docs/gpu-testing.md), and
# VMAFX_SHARED_DIR (the public clips; without them the tests use the generated pairs only).
USAGE_MORE="[TEST...]"
source "$(dirname "$0")/common.sh"
BOUND=${VMAFX_TEST_BOUND:-600}
tests=("$@")
if [ ${#tests[@]} = 0 ]; then
  for t in "$BUILD"/tests/gpu/test_* "$BUILD"/tests/gst/test_gst_{hip,dmabuf,cuda,cuda_caps} \
           "$BUILD"/tests/gl/test_{gl_import_gpu,gst_gl_gpu,gst_gl}; do
    [ -x "$t" ] && [ -f "$t" ] && tests+=("${t#$BUILD/}")
  done
fi
cat "$LOGS/machine.txt"
for t in "${tests[@]}"; do run_test "$(basename "$t")" "$BOUND" "$BUILD/$t"; done
if [ $# = 0 ] && command -v gst-launch-1.0 >/dev/null && [ -f "$BUILD/gst/libgstvmafxhip.so" ]; then
  # ./run.sh's job with backend=hip: the shipped sample pair through pipelines/score-raw-files.sh.
  gunzip -c "$SRC/samples/sample_320x240_ref.yuv.gz" > "$LOGS/sample_ref.yuv"
  gunzip -c "$SRC/samples/sample_320x240_dist.yuv.gz" > "$LOGS/sample_dist.yuv"
  timeout 120 bash "$SRC/pipelines/score-raw-files.sh" "$LOGS/sample_ref.yuv" "$LOGS/sample_dist.yuv" 320 240 I420 \
    backend=hip > "$LOGS/run_sh_pipeline.log" 2>&1
  echo "run.sh pipeline (backend=hip) rc=$? $(tail -n 2 "$LOGS/run_sh_pipeline.log" | tr '\n' ' ')"
  rm -f "$LOGS/sample_ref.yuv" "$LOGS/sample_dist.yuv"
fi
echo "done in $(elapsed)s"
