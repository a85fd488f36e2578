#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Stages what a GPU-machine batch needs (the machine has no GStreamer, no HIP for AMD, and nothing can be installed;
# ../shared does not travel; 64 MiB may be sent per call):
#   build-gpudev/  release build, NVIDIA sm_90 kernels only
#   .devrun/       stripped binaries + the batch scripts of scripts/device/
#   .devdata/      ../shared's oracle clips, xz-compressed (unpacked there by .devdata/unpack.py), and their JSON;
#                  nvdec/: the H.264 / HEVC streams of the NVDEC kinds (scripts/make-nvdec-streams.sh, made once and
#                  cached in ${XDG_CACHE_HOME:-~/.cache}/vmafxhip-nvdec: about 4 minutes for 1080p here, more for 4K)
# Usage: scripts/device/stage.sh engine|gst|gl|glx|cuda|nvdec4k ... (several kinds: the union of their binaries, clips
# and streams; keep one NVDEC kind per call: 1080p and 4K streams together do not fit 64 MiB with the runtime)
# Then run through the device tool, e.g. carry [".devrun", ".devdata"] and `bash .devrun/batch-engine.sh`, or
# carry [".devrun", ".devdata", ".devcarry"] and `bash .devrun/batch-gst.sh` (.devcarry from
# ../shared/device/prepare-runtime.sh).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
for d in /.devrun/ /.devdata/; do grep -qx "$d" .git/info/exclude || echo "$d" >> .git/info/exclude; done
if [ ! -f build-gpudev/build.ninja ]; then
  meson setup build-gpudev -Dhip-nvidia-archs=sm_90 -Dhip-amd-targets= --buildtype=release
fi
ninja -C build-gpudev
rm -rf .devrun && mkdir -p .devrun
bins="" clips="" streams="" packed=0
for kind in "${@:-engine}"; do
  case "$kind" in
    engine)  # GPU features, pipeline, scorer, bench, CLI: no GStreamer, all clips
      bins="$bins tests/gpu/test_hip_device tests/gpu/test_hip_psnr_sse tests/gpu/test_hip_vif tests/gpu/test_hip_adm
            tests/gpu/test_hip_pipeline tests/gpu/test_hip_scorer tests/gpu/test_hip_dmabuf $(cd build-gpudev &&
            ls tests/gpu/test_hip_* 2>/dev/null | grep -v '\.p$') bench/bench-gpu bench/bench-cpu tools/vmafx-score"
      clips="$clips a_ b_ c_ d_" ;;
    gst)     # the element on the GPU, dma-buf (engine and element), the CLI trace; needs .devcarry
      bins="$bins gst/libgstvmafxhip.so tests/gst/test_gst_hip tests/gst/test_gst_dmabuf tests/gpu/test_hip_dmabuf
            tools/vmafx-score"
      clips="$clips b_ c_" ;;
    gl)      # GL interop on EGL's device platform; needs .devcarry
      bins="$bins gst/libgstvmafxhip.so tests/gl/test_gl_import_gpu tests/gl/test_gst_gl_gpu tests/gl/test_gst_gl"
      clips="$clips c_" ;;
    glx)     # GL interop on GLX (Xvfb + NVIDIA's GLX), llvmpipe refused, GL benchmark; needs the packed runtime
      bins="$bins gst/libgstvmafxhip.so tests/gl/test_gl_import_gpu tests/gl/test_gst_gl_gpu tests/gl/test_gst_gl
            tests/gl/test_gl_context"
      clips="$clips c_" packed=1 ;;
    cuda)    # memory:CUDAMemory: engine import test, NVDEC element tests, 1080p benchmark; needs the packed runtime
      bins="$bins gst/libgstvmafxhip.so tests/gpu/test_cuda_import_gpu tests/gst/test_gst_cuda tests/gst/test_gst_cuda_caps"
      clips="$clips c_" streams="$streams 1080p" packed=1 ;;
    nvdec4k) # the NVDEC benchmark on 4K streams (bash .devrun/bench-nvdec.sh nvdec); needs the packed runtime
      bins="$bins gst/libgstvmafxhip.so" streams="$streams 2160p" packed=1 ;;
    *) echo "usage: $0 engine|gst|gl|glx|cuda|nvdec4k ..." >&2; exit 2 ;;
  esac
done
bins=$(echo $bins | tr ' ' '\n' | sort -u)
clips=$(echo $clips | tr ' ' '\n' | sort -u)
for b in $bins; do
  if [ -f "build-gpudev/$b" ]; then mkdir -p ".devrun/$(dirname "$b")"; strip -o ".devrun/$b" "build-gpudev/$b"; fi
done
# The binaries travel xz-compressed (their embedded kernels compress about 15:1); .devdata/unpack.py unpacks them.
staged=$(cd .devrun && find . -type f | sort)
if [ -n "$staged" ]; then
  (cd .devrun && tar -cJf bins.tar.xz $staged && rm -f $staged && find . -mindepth 1 -type d -empty -delete)
fi
cp scripts/device/batch-*.sh scripts/device/bench-*.sh .devrun/
mkdir -p .devdata/testdata
rm -f .devdata/testdata/*.xz
for p in $clips; do
  for f in ../shared/testdata/${p}*.yuv; do xz -6 -T2 -c "$f" > ".devdata/testdata/$(basename "$f").xz"; done
done
cp ../shared/testdata/*.json .devdata/testdata/
rm -rf .devdata/nvdec
if [ -n "$streams" ]; then
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/vmafxhip-nvdec"
  scripts/make-nvdec-streams.sh "$cache" "$(echo $streams | tr ' ' '\n' | sort -u | tr '\n' ' ')"
  mkdir -p .devdata/nvdec
  for size in $streams; do cp "$cache"/*_"$size".h26? .devdata/nvdec/; done
fi
if [ "$packed" = 1 ] && [ ! -f .devcarry/runtime.tar.xz ]; then
  echo "note: these kinds need the packed runtime: ../shared/device/prepare-runtime.sh --glx" >&2
fi
cat > .devdata/unpack.py <<'PY'
# Unpacks the staged binaries (.devrun/bins.tar.xz) and the xz-compressed oracle clips next to themselves (the GPU
# machine may lack the xz tool).
import glob, lzma, os, sys, tarfile
d = sys.argv[1]
if os.path.exists(".devrun/bins.tar.xz") and not os.path.exists(".devrun/.unpacked"):
    with tarfile.open(".devrun/bins.tar.xz") as t:
        t.extractall(".devrun")
    open(".devrun/.unpacked", "w").close()
for f in glob.glob(os.path.join(d, "testdata", "*.xz")):
    out = f[:-3]
    if not os.path.exists(out):
        with lzma.open(f) as src, open(out, "wb") as dst:
            while True:
                b = src.read(1 << 22)
                if not b:
                    break
                dst.write(b)
print("unpacked", len(glob.glob(os.path.join(d, "testdata", "*.yuv"))), "clips")
PY
du -sh .devrun .devdata
