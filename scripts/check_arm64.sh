#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Cross-builds tests/checkasm for arm64 (the NEON kernels of engine/cpu/simd against the scalar functions) with
# Debian's aarch64-linux-gnu-g++, statically linked, and runs it under qemu-user. Exit 77 (skip) when the cross
# compiler or qemu is missing (scripts/setup.sh installs both).
#   check_arm64.sh SOURCE_DIR BUILD_DIR [checkasm arguments]
set -eu
src=$(cd "$1" && pwd)
dest=$2
shift 2
cxx=${VMAFX_ARM64_CXX:-aarch64-linux-gnu-g++}
qemu=${VMAFX_ARM64_QEMU:-qemu-aarch64-static}
if ! command -v "$cxx" >/dev/null 2>&1 || ! command -v "$qemu" >/dev/null 2>&1; then
  echo "check_arm64: $cxx or $qemu not found (install g++-aarch64-linux-gnu qemu-user-static): skipped"
  exit 77
fi
mkdir -p "$dest"
flags="-std=c++17 -O2 -ffp-contract=off -fno-fast-math -Wall -Wextra -DVMAFX_HAVE_NEON
  -I$src/engine/include -I$src/engine -I$src/tests/support -I$src/tests/checkasm"
sources="engine/cpu/vif.cpp engine/cpu/motion.cpp engine/cpu/psnr.cpp engine/cpu/ssim.cpp engine/cpu/ms_ssim.cpp engine/cpu/adm.cpp engine/cpu/cambi.cpp
  engine/cpu/speed.cpp
  engine/cpu/simd/cpu_features.cpp
  engine/cpu/simd/kernels.cpp engine/cpu/simd/neon_impl.cpp engine/core/status.cpp engine/core/picture.cpp
  tests/support/edge_inputs.cpp tests/checkasm/checkasm.cpp tests/checkasm/cpu_kernels.cpp tests/checkasm/adm_kernels.cpp tests/checkasm/cambi_kernels.cpp tests/checkasm/speed_kernels.cpp
  tests/checkasm/main.cpp"
objs=""
for s in $sources; do
  o="$dest/$(echo "$s" | tr '/' '_').o"
  objs="$objs $o"
  # Rebuilt when the source or any header of the tree is newer than the object.
  if [ ! -f "$o" ] || [ -n "$(find "$src/engine" "$src/tests/support" "$src/tests/checkasm" -newer "$o" \
        \( -name '*.h' -o -name '*.inl' -o -name '*.cpp' \) -print -quit)" ]; then
    echo "check_arm64: compiling $s"
    # shellcheck disable=SC2086
    "$cxx" $flags -c "$src/$s" -o "$o"
  fi
done
# shellcheck disable=SC2086
"$cxx" -static -o "$dest/checkasm-arm64" $objs -lpthread
echo "check_arm64: running under $qemu"
exec "$qemu" "$dest/checkasm-arm64" "$@"
