#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the Debian packages gstreamer1.0-vmafxhip (the plugin, in GStreamer's plugin directory) and vmafx-tools
# (vmafx-score) with dpkg-buildpackage from a copy of this checkout (the files git tracks, and untracked ones it does
# not ignore), so the checkout and its build directories are left alone.
#   scripts/build-deb.sh [OUTDIR]    the .deb files go to OUTDIR (default: build-deb/ of the checkout)
# Every GPU target is compiled ahead of time (debian/rules: -Dgpu-targets=all; NVIDIA cubins where
# /usr/local/cuda/bin/nvcc exists). VMAFX_DEB_MESON_ARGS adds meson options (e.g. -Dgpu-targets=portable for a
# quick build); DEB_BUILD_OPTIONS="parallel=N" sets the jobs (default: the number of cores). As root, installs what
# is missing of scripts/setup.sh's packages and debhelper, dpkg-dev.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/build-deb}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"
# shellcheck source=setup.sh
source "$root/scripts/setup.sh"
for p in debhelper dpkg-dev; do
  [[ " ${VMAFX_PACKAGES[*]} " == *" $p "* ]] || VMAFX_PACKAGES+=("$p")
done
vmafx_install_packages
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"

work="$(mktemp -d "$dest/.build-XXXXXX")"
trap 'rm -rf "$work"' EXIT
tree="$work/vmafxhip"
mkdir -p "$tree"
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$root" && git ls-files -co --exclude-standard -z | while IFS= read -r -d '' f; do
     if [ -f "$f" ]; then cp --parents -P -t "$tree" -- "$f"; fi   # a tracked file deleted in the checkout is left out
   done)
else
  (cd "$root" && tar --exclude='./build*' --exclude='./obj-*' --exclude=./.git -cf - .) | tar -C "$tree" -xf -
fi
export DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=$(nproc)}"
echo "build-deb: dpkg-buildpackage in $tree (VMAFX_DEB_MESON_ARGS='${VMAFX_DEB_MESON_ARGS:-}', $DEB_BUILD_OPTIONS)"
start=$SECONDS
(cd "$tree" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 || {
  tail -60 "$work/build.log"
  echo "build-deb: dpkg-buildpackage failed after $((SECONDS - start)) s" >&2
  exit 1
}
rm -f "$dest"/gstreamer1.0-vmafxhip_*.deb "$dest"/vmafx-tools_*.deb
mv "$work"/*.deb "$dest"/
cp "$work/build.log" "$dest/build.log"
echo "build-deb: $((SECONDS - start)) s; in $dest:"
(cd "$dest" && ls -l ./*.deb)
