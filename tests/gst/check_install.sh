#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's install lines, run as they are on a product build, and what they install.
#   1. A product build like ./run.sh's build/ (scripts/setup.sh's product options; -Dgpu-targets=none, which
#      installing does not depend on) in BUILD_ROOT/install-check/build, kept between runs. The lines between the
#      README's `install-lines` markers then run in BUILD_ROOT/install-check (so `build` is that build), with
#      DESTDIR set and sudo doing nothing but running its command.
#   2. The plugin lands in gstreamer-1.0's pluginsdir inside the DESTDIR, and gst-inspect-1.0 with a private registry
#      and only that directory to search finds vmafxhip there; the installed vmafx-score runs.
#   3. The installed plugin and vmafx-score hold no test seam (check_product_strings.sh), and this test build's
#      binaries hold them all (the check can fail).
#   4. This build (test hooks) refuses `meson install`, with its message, and installs nothing.
#   tests/gst/check_install.sh SOURCE_ROOT BUILD_ROOT
set -euo pipefail
src="$(cd "$1" && pwd)" build="$(cd "$2" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
command -v meson >/dev/null || { echo "meson not found"; exit 77; }
command -v gst-inspect-1.0 >/dev/null || { echo "gst-inspect-1.0 not found"; exit 77; }
pluginsdir="$(pkg-config --variable=pluginsdir gstreamer-1.0)"
work="$build/install-check"
mkdir -p "$work"
rm -rf "$work/root" "$work/hooks-root" "$work/registry.bin"
fail=0

# 1. The README's lines.
lines="$(sed -n '/^<!-- install-lines/,/^<!-- end of install-lines -->/p' "$src/README.md" | sed '1d;$d' |
         sed -n 's/^    //p')"
if [ -z "$lines" ] || ! grep -q "meson install" <<<"$lines"; then
  echo "FAIL: README.md has no install lines between <!-- install-lines ... --> and <!-- end of install-lines -->"
  exit 1
fi
echo "README's install lines:"
sed 's/^/  /' <<<"$lines"
# shellcheck source=../../scripts/setup.sh
source "$src/scripts/setup.sh"
if [ ! -f "$work/build/build.ninja" ]; then
  meson setup "$work/build" "$src" "${VMAFX_PRODUCT_OPTIONS[@]}" -Dgpu-targets=none >"$work/setup.log" 2>&1 ||
    { cat "$work/setup.log"; echo "FAIL: meson setup of the product build"; exit 1; }
fi
# Each run starts from the configuration ./run.sh leaves (the lines change the prefix).
meson configure "$work/build" --prefix=/usr/local >/dev/null
if ! (cd "$work" && export DESTDIR="$work/root" && sudo() { "$@"; } && eval "set -e; $lines") >"$work/install.log" 2>&1
then
  tail -40 "$work/install.log"
  echo "FAIL: the README's install lines failed (log: $work/install.log)"
  exit 1
fi

# 2. Where GStreamer looks.
plugin="$work/root$pluginsdir/libgstvmafxhip.so"
if [ -f "$plugin" ]; then
  echo "ok: the plugin is installed in gstreamer-1.0's pluginsdir $pluginsdir"
else
  echo "FAIL: no $pluginsdir/libgstvmafxhip.so in the DESTDIR; installed:"
  (cd "$work/root" && find . -type f | sed 's/^/  /')
  fail=1
fi
if env -u GST_PLUGIN_PATH -u GST_PLUGIN_PATH_1_0 GST_PLUGIN_SYSTEM_PATH_1_0="$work/root$pluginsdir" \
     GST_REGISTRY_1_0="$work/registry.bin" GST_REGISTRY_FORK=no gst-inspect-1.0 vmafxhip >"$work/inspect.txt" 2>&1 &&
   grep -q "Filename.*$work/root$pluginsdir/libgstvmafxhip.so" "$work/inspect.txt"; then
  echo "ok: gst-inspect-1.0 finds vmafxhip there ($(grep -m1 'Filename' "$work/inspect.txt" | sed 's/  */ /g'))"
else
  echo "FAIL: gst-inspect-1.0 does not find vmafxhip in $pluginsdir:"
  cat "$work/inspect.txt"
  fail=1
fi
score="$work/root/usr/bin/vmafx-score"
if [ -x "$score" ] && "$score" -v 2>&1 | grep -q '^vmafx-score '; then
  echo "ok: /usr/bin/vmafx-score installed and runs ($("$score" -v 2>&1 | head -1))"
else
  echo "FAIL: /usr/bin/vmafx-score not installed or does not run"
  fail=1
fi

# 3. No test seam in what was installed; all of them in this test build.
"$here/check_product_strings.sh" "$plugin" "$score" || fail=1
"$here/check_product_strings.sh" --present "$build/gst/libgstvmafxhip.so" "$build/tools/vmafx-score" || fail=1

# 4. A build with test hooks installs nothing.
if meson install -C "$build" --no-rebuild --destdir "$work/hooks-root" >"$work/hooks-install.log" 2>&1; then
  echo "FAIL: meson install of this build (test hooks) succeeded"
  fail=1
elif ! grep -q "^vmafxhip: this build has test hooks" "$work/hooks-install.log"; then
  echo "FAIL: meson install of this build failed without saying why:"
  tail -20 "$work/hooks-install.log"
  fail=1
elif [ -n "$(find "$work/hooks-root" -type f 2>/dev/null | head -1)" ]; then
  echo "FAIL: meson install of this build (test hooks) installed files:"
  find "$work/hooks-root" -type f | sed 's/^/  /'
  fail=1
else
  echo "ok: this build (test hooks) refuses meson install:" \
       "$(grep -m1 '^vmafxhip: this build has test hooks' "$work/hooks-install.log" | cut -c1-100)..."
fi
exit $fail
