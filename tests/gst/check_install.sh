#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Where `meson install` puts the plugin, checked twice:
#  1. this build, installed into a DESTDIR: the plugin lands in <prefix>/<libdir>/gstreamer-1.0, or in
#     gstreamer-1.0's pkg-config pluginsdir when the prefix is /usr;
#  2. a configuration of this source tree with Debian's prefix (/usr): its install plan puts the plugin in that
#     pluginsdir, where gst-inspect-1.0 looks; the plugin of step 1, placed there inside the DESTDIR, is found by
#     gst-inspect-1.0 searching only that directory.
#   tests/gst/check_install.sh SOURCE_ROOT BUILD_ROOT
set -euo pipefail
src="$1" build="$2"
command -v meson >/dev/null || { echo "meson not found"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail=0
pluginsdir="$(pkg-config --variable=pluginsdir gstreamer-1.0)"
opt() { meson introspect "$1" --buildoptions | python3 -c "import json,sys; print([o['value'] for o in json.load(sys.stdin) if o['name']=='$2'][0])"; }

# 1. This build into a DESTDIR.
prefix="$(opt "$build" prefix)" libdir="$(opt "$build" libdir)"
if [ "$prefix" = /usr ]; then want="$pluginsdir"; else want="$prefix/$libdir/gstreamer-1.0"; fi
meson install -C "$build" --no-rebuild --destdir "$work/root" --tags gst-plugin >"$work/install.log"
if [ -f "$work/root$want/libgstvmafxhip.so" ]; then
  echo "ok: prefix $prefix installs the plugin in $want"
else
  echo "FAIL: prefix $prefix: no $want/libgstvmafxhip.so in the DESTDIR; installed:"
  find "$work/root" -name '*.so' | sed 's/^/  /'
  fail=1
fi

# 2. Debian's prefix: the install plan, and gst-inspect-1.0 finding the plugin there.
meson setup "$work/usr-build" "$src" --prefix=/usr -Dtests=false -Dhip=disabled -Dgl=disabled \
  -Dhip-amd-targets= -Dhip-nvidia-archs= >"$work/setup.log" 2>&1 || { cat "$work/setup.log"; exit 1; }
planned="$(meson introspect "$work/usr-build" --installed | python3 -c \
  "import json,sys; print('\n'.join(v for k, v in json.load(sys.stdin).items() if k.endswith('libgstvmafxhip.so')))")"
if [ "$planned" = "$pluginsdir/libgstvmafxhip.so" ]; then
  echo "ok: --prefix=/usr installs the plugin in gstreamer-1.0's pluginsdir $pluginsdir"
else
  echo "FAIL: --prefix=/usr installs the plugin at '$planned', not in $pluginsdir"
  fail=1
fi
so="$(find "$work/root" -name libgstvmafxhip.so | head -1)"
mkdir -p "$work/sys$pluginsdir"
cp "$so" "$work/sys$pluginsdir/"
if GST_PLUGIN_PATH= GST_PLUGIN_PATH_1_0= GST_PLUGIN_SYSTEM_PATH_1_0="$work/sys$pluginsdir" \
   GST_REGISTRY_1_0="$work/registry.bin" gst-inspect-1.0 vmafxhip >"$work/inspect.txt" 2>&1; then
  echo "ok: gst-inspect-1.0 finds vmafxhip in the pluginsdir ($(grep -m1 'Origin URL' "$work/inspect.txt" | sed 's/  */ /g'))"
else
  echo "FAIL: gst-inspect-1.0 does not find vmafxhip in $pluginsdir:"
  cat "$work/inspect.txt"
  fail=1
fi
exit $fail
