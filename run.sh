#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what is missing, builds the product into build/ (the plugin, vmafx-score and the engine they link; no
# tests) and scores the sample pair shipped in samples/ (per-frame and pooled VMAF).
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup.sh
vmafx_install_packages
BUILD_DIR="$VMAFX_ROOT/build"
vmafx_build "$BUILD_DIR" "${VMAFX_PRODUCT_OPTIONS[*]}"

sample_dir="$BUILD_DIR/samples"
mkdir -p "$sample_dir"
for f in samples/*.yuv.gz; do
  out="$sample_dir/$(basename "$f" .gz)"
  [ -f "$out" ] || gunzip -c "$f" > "$out"
done
ref="$sample_dir/sample_320x240_ref.yuv"
dist="$sample_dir/sample_320x240_dist.yuv"

if [ -f "$BUILD_DIR/gst/libgstvmafxhip.so" ] && [ -x pipelines/score-raw-files.sh ]; then
  GST_PLUGIN_PATH="$BUILD_DIR/gst" pipelines/score-raw-files.sh "$ref" "$dist" 320 240 I420
else
  "$BUILD_DIR/tools/vmafx-score" -r "$ref" -d "$dist" -w 320 -h 240 -p 420 -b 8 \
    --feature psnr --per-frame --json -o "$BUILD_DIR/sample.vmaf.json"
  echo "results: $BUILD_DIR/sample.vmaf.json"
fi
