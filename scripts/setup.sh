# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by ./run.sh and ./test.sh (and the install test): the Debian 12 packages the project needs and the two
# build directories.
#   build/        the product: the plugin, vmafx-score and the engine they link, no tests, no test hooks, GPU code
#                 as -Dgpu-targets=portable says (meson_options.txt); what the README installs. ./run.sh builds it.
#   build-tests/  the test suites with the test hooks they need (installs nothing). ./test.sh builds and runs it.
# VMAFX_CI=1 compiles the GPU kernels ahead of time for one target per vendor in build-tests (compile errors of the
# kernels surface on a machine without a GPU; CI has 2 cores).
set -euo pipefail

VMAFX_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

VMAFX_PACKAGES=(
  # build
  meson ninja-build pkg-config g++ python3 nlohmann-json3-dev googletest libgtest-dev
  # GStreamer element and the pipelines
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-tools gstreamer1.0-plugins-base
  gstreamer1.0-plugins-good gstreamer1.0-gl libepoxy-dev
  # memory:CUDAMemory: GStreamer's CUDA library (libgstcuda-1.0, opened at run time; its headers for the build-only
  # ABI check) and -bad's x265enc / h264parse / h265parse for the NVDEC test streams (scripts/make-nvdec-streams.sh);
  # live and encoder-on-the-fly pipeline tests: x264enc (plugins-ugly), avdec_h264 (libav)
  libgstreamer-plugins-bad1.0-dev gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
  # GL tests (Mesa under Xvfb), leak checks
  xvfb xauth libgl1-mesa-dri valgrind
  # AMD kernels (hipcc --genco) and HIP headers; NVIDIA kernels use nvcc from /usr/local/cuda when present
  hipcc libamdhip64-dev
  # arm64 NEON kernels: cross-built and checked under qemu-user (scripts/check_arm64.sh, suite checkasm)
  g++-aarch64-linux-gnu qemu-user-static
  # vmafx-batch on a real Slurm cluster of three slurmd on this host (tests/slurm, suite slurm)
  slurmctld slurmd slurm-client munge
)
# The Debian package build test (VMAFX_TEST_DEB=1, tests/cli/test_debian.py) runs dpkg-buildpackage.
if [ "${VMAFX_TEST_DEB:-0}" = 1 ]; then
  VMAFX_PACKAGES+=(debhelper dpkg-dev)
fi

vmafx_missing_packages() {
  local p missing=()
  for p in "${VMAFX_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  echo "${missing[@]:-}"
}

vmafx_install_packages() {
  local missing
  missing="$(vmafx_missing_packages)"
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "vmafxhip: missing Debian packages: $missing" >&2
    echo "vmafxhip: run as root (or: sudo apt-get install $missing)" >&2
    return 1
  fi
  echo "vmafxhip: installing $missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# Meson options of the product build (build/, the install test's build): the defaults.
VMAFX_PRODUCT_OPTIONS=(--buildtype=release)
# Meson options of the test build (build-tests/).
vmafx_test_options() {
  local opts=(--buildtype=release -Dtests=true)
  if [ "${VMAFX_CI:-0}" = 1 ]; then
    opts+=(-Dhip-amd-targets=gfx1030 -Dhip-nvidia-archs=sm_90)
  fi
  echo "${opts[@]}"
}

# Configures DIR (once: an existing configuration is kept, `meson configure DIR` changes it) and builds the given
# ninja targets (default: all of DIR's default targets).
#   vmafx_build DIR "MESON OPTIONS" [TARGET...]
vmafx_build() {
  local dir="$1" options="$2"
  shift 2
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH="$PATH:/usr/local/cuda/bin"
  fi
  if [ ! -f "$dir/build.ninja" ]; then
    # shellcheck disable=SC2086
    meson setup "$dir" "$VMAFX_ROOT" $options
  fi
  ninja -C "$dir" "$@"
}
