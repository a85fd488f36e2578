#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Debian packaging (debian/) against the meson build.

  test_debian.py layout SRC [BUILD]   cheap, always on: debian/control, rules, changelog and the .install files agree
                                      with each other and with the build (version, installed files, dependencies)
  test_debian.py build SRC            VMAFX_TEST_DEB=1 only (else exit 77, skipped): the README's deb-lines on a
                                      copy of the tree (scripts/build-deb.sh), then the .debs' contents, apt's view of
                                      their dependencies, the plugin loaded by gst-inspect-1.0, no test seam in the
                                      packaged binaries and, as root with unshare(1), the README's `sudo apt install`
                                      line for real in a throw-away overlay of /usr, /var and /etc.
Environment of `build`: VMAFX_DEB_MESON_ARGS (extra meson options for the package build; unset: -Dgpu-targets=portable,
quicker than the packages' full set, or with VMAFX_CI=1 one kernel target per vendor as scripts/setup.sh's test
build; set it empty for the packages' own -Dgpu-targets=all), VMAFX_TEST_JOBS (parallel jobs, default 2).
"""
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

PACKAGES = ["gstreamer1.0-vmafxhip", "vmafx-tools"]

# Every dependency('NAME') / find_program('NAME') of the build outside tests/, and the Debian package that provides
# it at build time ("" when none is needed or it is optional and not in Debian: nvcc).
BUILD_DEPENDS_OF = {
    "threads": "",
    "nlohmann_json": "nlohmann-json3-dev",
    "epoxy": "libepoxy-dev",
    "gstreamer-1.0": "libgstreamer1.0-dev",
    "gstreamer-base-1.0": "libgstreamer1.0-dev",
    "gstreamer-video-1.0": "libgstreamer-plugins-base1.0-dev",
    "gstreamer-allocators-1.0": "libgstreamer-plugins-base1.0-dev",
    "gstreamer-gl-1.0": "libgstreamer-plugins-base1.0-dev",
    # Optional: only a build-time check of the few GstCudaMemory fields the element reads (libgstcuda is opened at
    # run time), so the package builds without it.
    "gstreamer-cuda-1.0": "",
    "hipcc": "hipcc",
    "nvcc": "",
    "python3": "python3",
}

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def paragraphs(text):
    """deb822 paragraphs as dicts (continuation lines joined with newlines)."""
    out, cur, key = [], {}, None
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        if not line.strip():
            if cur:
                out.append(cur)
            cur, key = {}, None
        elif line[0] in " \t" and key:
            cur[key] += "\n" + line.strip()
        else:
            key, _, value = line.partition(":")
            key = key.strip()
            cur[key] = value.strip()
    if cur:
        out.append(cur)
    return out


def package_names(field):
    """Package names of a relationship field, architecture qualifiers and versions dropped."""
    names = set()
    for part in field.replace("\n", " ").split(","):
        for alt in part.split("|"):
            alt = re.sub(r"\(.*?\)|\[.*?\]|<.*?>", "", alt).strip()
            if alt:
                names.add(alt)
    return names


def build_needs(src):
    """dependency() and find_program() names of every meson.build outside tests/."""
    needs = set()
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        dirs[:] = [d for d in dirs if not d.startswith((".", "build", "obj-")) and d != "debian"
                   and not (rel == "." and d == "tests")]
        if "meson.build" in files:
            text = open(os.path.join(root, "meson.build")).read()
            needs.update(re.findall(r"dependency\(\s*'([^']+)'", text))
            needs.update(re.findall(r"find_program\(\s*'([^']+)'", text))
            if "find_installation(" in text:
                needs.add("python3")
    return needs


def layout(src, build):
    deb = os.path.join(src, "debian")
    control = paragraphs(open(os.path.join(deb, "control")).read())
    source, binaries = control[0], control[1:]
    names = [p.get("Package", "(paragraph without Package)") for p in binaries]
    if names != PACKAGES:
        fail(f"debian/control builds {names}, expected {PACKAGES}")
    for p in binaries:
        for field in ("Architecture", "Depends", "Description"):
            if field not in p:
                fail(f"debian/control: {p.get('Package')} has no {field}")
    if source.get("Rules-Requires-Root") != "no":
        fail("debian/control: Rules-Requires-Root should be no (the build needs no fakeroot)")
    build_depends = package_names(source.get("Build-Depends", ""))
    if "debhelper-compat" not in build_depends:
        fail("debian/control: Build-Depends lacks debhelper-compat")
    for need in sorted(build_needs(src)):
        if need not in BUILD_DEPENDS_OF:
            fail(f"the build uses '{need}': add its Debian package to debian/control's Build-Depends and to "
                 f"BUILD_DEPENDS_OF in {os.path.basename(__file__)}")
        elif BUILD_DEPENDS_OF[need] and BUILD_DEPENDS_OF[need] not in build_depends:
            fail(f"the build uses '{need}' but Build-Depends lacks {BUILD_DEPENDS_OF[need]}")

    # One .install (and optional .docs) file per package, each for a package of control; docs files exist.
    for f in os.listdir(deb):
        m = re.match(r"(.+)\.(install|docs)$", f)
        if m and m.group(1) not in names:
            fail(f"debian/{f} belongs to no package of debian/control")
        if m and m.group(2) == "docs":
            for line in open(os.path.join(deb, f)).read().split():
                if not os.path.exists(os.path.join(src, line)):
                    fail(f"debian/{f} lists {line}, which does not exist")
    patterns = {}
    for p in names:
        path = os.path.join(deb, p + ".install")
        if not os.path.exists(path):
            fail(f"debian/{p}.install is missing")
            continue
        patterns[p] = [l.split()[0] for l in open(path).read().splitlines() if l.strip() and not l.startswith("#")]

    rules = os.path.join(deb, "rules")
    if not os.access(rules, os.X_OK):
        fail("debian/rules is not executable")
    text = open(rules).read()
    if not re.search(r"^\tdh \$@ --buildsystem=meson", text, re.M):
        fail("debian/rules does not run dh with the meson build system")
    if "-Dtests=false" not in text:
        fail("debian/rules should configure -Dtests=false (the GPU suites need a GPU, and the suites take long)")
    if "-Dgpu-targets=all" not in text:
        fail("debian/rules should configure -Dgpu-targets=all (packages carry every GPU target ahead of time)")
    if open(os.path.join(deb, "source", "format")).read().strip() != "3.0 (native)":
        fail("debian/source/format is not 3.0 (native)")

    first = open(os.path.join(deb, "changelog")).readline()
    m = re.match(r"(\S+) \((\S+)\)", first)
    if not m:
        fail(f"debian/changelog: first line '{first.strip()}' is not 'SOURCE (VERSION) ...'")
    elif m.group(1) != source.get("Source"):
        fail(f"debian/changelog names {m.group(1)}, debian/control {source.get('Source')}")
    meson_version = re.search(r"version:\s*'([^']+)'", open(os.path.join(src, "meson.build")).read())
    if m and meson_version and m.group(2).split("-")[0] != meson_version.group(1):
        fail(f"debian/changelog is at {m.group(2)}, meson.build at {meson_version.group(1)}")

    if not build:
        print("no build directory given: installed files not compared")
        return
    intro = lambda what: json.loads(subprocess.run(["meson", "introspect", what, build], check=True,
                                                   capture_output=True, text=True).stdout)
    options = {o["name"]: o["value"] for o in intro("--buildoptions")}
    if options.get("tests") or options.get("test-hooks") == "enabled":
        # A build with test hooks installs nothing: compare with the install plan of debian/rules' configuration
        # instead (configured only, never compiled; kept in the build directory between runs).
        product = os.path.join(build, "debian-layout-check")
        if not os.path.exists(os.path.join(product, "build.ninja")):
            r = subprocess.run(["meson", "setup", product, src, "--prefix=/usr", "-Dgst=enabled", "-Dtests=false",
                                "-Dgpu-targets=none"], capture_output=True, text=True)
            if r.returncode != 0:
                fail("meson setup of debian/rules' configuration failed:\n" + r.stdout[-3000:] + r.stderr)
                return
        print(f"{build} has test hooks (installs nothing): comparing with {product}, configured as debian/rules does")
        build = product
        options = {o["name"]: o["value"] for o in intro("--buildoptions")}
    prefix = options["prefix"]
    installed = []
    for dest in intro("--installed").values():
        # As Debian's prefix /usr would place it.
        rel = os.path.relpath(dest, prefix) if dest.startswith(prefix.rstrip("/") + "/") else None
        installed.append("usr/" + rel if rel else dest.lstrip("/"))
    targets = {t["name"] for t in intro("--targets")}
    claimed = {f: [] for f in installed}
    for p, pats in patterns.items():
        for pat in pats:
            hits = [f for f in installed if fnmatch.fnmatch(f, pat)]
            for f in hits:
                claimed[f].append(p)
            if not hits:
                if "gstreamer-1.0" in pat and "gstvmafxhip" not in targets:
                    print(f"{pat}: not built here (GStreamer element disabled in {build}); not compared")
                else:
                    fail(f"debian/{p}.install: {pat} matches nothing the build installs ({sorted(installed)})")
    for f, owners in claimed.items():
        if len(owners) != 1:
            fail(f"installed file {f} is in {len(owners)} packages ({owners}): every installed file needs one")
    print("installed files:", ", ".join(sorted(installed)))


def run(cmd, **kw):
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, **kw)


def copy_tree(src, dst):
    """The tracked and untracked-but-not-ignored files of the checkout (as git sees them), else all but builds."""
    os.makedirs(dst)
    listed = None
    if shutil.which("git"):
        r = subprocess.run(["git", "-C", src, "ls-files", "-co", "--exclude-standard", "-z"], capture_output=True)
        if r.returncode == 0:
            listed = [f for f in r.stdout.decode().split("\0") if f]
    if listed is None:
        shutil.copytree(src, dst, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("build*", "obj-*", ".git"))
        return
    for f in listed:
        s = os.path.join(src, f)
        if not os.path.isfile(s):
            continue
        os.makedirs(os.path.dirname(os.path.join(dst, f)), exist_ok=True)
        shutil.copy2(s, os.path.join(dst, f))


def readme_lines(src, marker):
    """The indented lines of README.md between `<!-- MARKER` and `<!-- end of MARKER -->`, unindented."""
    lines, inside = [], False
    for line in open(os.path.join(src, "README.md")):
        if line.startswith("<!-- end of " + marker):
            return lines
        if inside and line.startswith("    ") and line.strip():
            lines.append(line[4:].rstrip("\n"))
        if line.startswith("<!-- " + marker):
            inside = True
    return []


def package_build(src):
    """The README's deb-lines in a copy of the tree: scripts/build-deb.sh as it is, then (as root, with unshare) the
    `sudo apt install` line inside a throw-away overlay of /usr, /var and /etc."""
    if os.environ.get("VMAFX_TEST_DEB") != "1":
        print("package build skipped: set VMAFX_TEST_DEB=1 to run the README's package lines (minutes; docs/cli.md)")
        return 77
    lines = readme_lines(src, "deb-lines")
    build_lines = [l for l in lines if not l.startswith("sudo ")]
    install_lines = [l[len("sudo "):] for l in lines if l.startswith("sudo ")]
    if not build_lines or not any("apt install" in l for l in install_lines):
        fail("README.md has no deb-lines (a build line and a `sudo apt install` line between <!-- deb-lines and "
             "<!-- end of deb-lines -->)")
        return 1
    work = tempfile.mkdtemp(prefix="vmafx-deb-")
    try:
        tree = os.path.join(work, "vmafxhip")
        copy_tree(src, tree)
        env = dict(os.environ)
        jobs = env.get("VMAFX_TEST_JOBS", "2")
        env["DEB_BUILD_OPTIONS"] = (env.get("DEB_BUILD_OPTIONS", "") + f" parallel={jobs}").strip()
        # A quicker GPU target list than the packages' (-Dgpu-targets=all) unless one is given: PTX only, or with
        # VMAFX_CI=1 one target per vendor as scripts/setup.sh's test build.
        if "VMAFX_DEB_MESON_ARGS" not in env:
            env["VMAFX_DEB_MESON_ARGS"] = ("-Dhip-amd-targets=gfx1030 -Dhip-nvidia-archs=sm_90"
                                           if env.get("VMAFX_CI") == "1" else "-Dgpu-targets=portable")
        t0 = time.monotonic()
        for line in build_lines:
            r = run(["bash", "-c", "set -euo pipefail; " + line], cwd=tree, env=env)
            if r.returncode != 0:
                fail(f"README's `{line}` failed (exit {r.returncode}) after {time.monotonic() - t0:.0f} s")
                return 1
        print(f"the package build took {time.monotonic() - t0:.0f} s "
              f"(VMAFX_DEB_MESON_ARGS='{env.get('VMAFX_DEB_MESON_ARGS', '')}')")
        debs = {}
        outdir = os.path.join(tree, "build-deb")
        for p in PACKAGES:
            found = [f for f in os.listdir(outdir) if f.startswith(p + "_") and f.endswith(".deb")]
            if len(found) != 1:
                fail(f"expected one {p}_*.deb in build-deb/, found {found}")
                return 1
            debs[p] = os.path.join(outdir, found[0])
            print(f"{found[0]}: {os.path.getsize(debs[p])} bytes")

        plugins = subprocess.run(["pkg-config", "--variable=pluginsdir", "gstreamer-1.0"], capture_output=True,
                                 text=True).stdout.strip() or "/usr/lib/x86_64-linux-gnu/gstreamer-1.0"
        contents = {p: subprocess.run(["dpkg-deb", "-c", d], capture_output=True, text=True, check=True).stdout
                    for p, d in debs.items()}
        want = {"gstreamer1.0-vmafxhip": "." + plugins + "/libgstvmafxhip.so", "vmafx-tools": "./usr/bin/vmafx-score"}
        for p, path in want.items():
            if not re.search(r"\s" + re.escape(path) + r"$", contents[p], re.M):
                fail(f"{os.path.basename(debs[p])} lacks {path}:\n{contents[p]}")

        if shutil.which("apt-get"):
            r = run(["apt-get", "-s", "install"] + list(debs.values()), capture_output=True, text=True)
            if r.returncode != 0:
                fail("apt-get cannot install the packages:\n" + r.stdout + r.stderr)

        root = os.path.join(work, "root")
        for d in debs.values():
            subprocess.run(["dpkg-deb", "-x", d, root], check=True)
        r = subprocess.run([root + "/usr/bin/vmafx-score", "-v"], capture_output=True, text=True)
        if r.returncode != 0 or not r.stderr.startswith("vmafx-score "):
            fail(f"the packaged vmafx-score -v: exit {r.returncode}, '{r.stderr.strip()}'")
        genv = dict(os.environ, GST_REGISTRY=os.path.join(work, "registry.bin"),
                    GST_PLUGIN_PATH=root + plugins, GST_PLUGIN_SYSTEM_PATH_1_0=plugins)
        r = subprocess.run(["gst-inspect-1.0", "vmafxhip"], capture_output=True, text=True, env=genv)
        if r.returncode != 0 or root + plugins + "/libgstvmafxhip.so" not in r.stdout:
            fail("gst-inspect-1.0 does not load the packaged plugin:\n" + r.stdout + r.stderr)
        strings = os.path.join(src, "tests", "gst", "check_product_strings.sh")
        r = subprocess.run(["bash", strings, root + plugins + "/libgstvmafxhip.so", root + "/usr/bin/vmafx-score"],
                           capture_output=True, text=True)
        print(r.stdout.strip())
        if r.returncode != 0:
            fail("the packaged binaries hold test seams")

        overlay_install(work, tree, install_lines, plugins)
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


# The README's install line (sudo left out), run as root in a private mount namespace with copy-on-write overlays of
# /usr, /var and /etc: gst-inspect-1.0 with GStreamer's default paths must find the plugin; the host is left as it
# was.
OVERLAY_SCRIPT = r"""
set -e
d="$1"; tree="$2"; shift 2
for p in usr var etc; do
  mkdir -p "$d/$p.up" "$d/$p.work"
  mount -t overlay overlay -o "lowerdir=/$p,upperdir=$d/$p.up,workdir=$d/$p.work" "/$p"
done
cd "$tree"
export DEBIAN_FRONTEND=noninteractive
for line in "$@"; do
  echo "+ $line" >&2
  bash -c "set -euo pipefail; $line" >"$d/install.log" 2>&1 || { cat "$d/install.log" >&2; exit 1; }
done
unset GST_PLUGIN_PATH GST_PLUGIN_PATH_1_0 GST_PLUGIN_SYSTEM_PATH GST_PLUGIN_SYSTEM_PATH_1_0
GST_REGISTRY="$d/registry.bin" gst-inspect-1.0 vmafxhip
vmafx-score -v
"""


def overlay_install(work, tree, lines, plugins):
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("the README's `sudo apt install` line in an overlay: skipped (needs root and unshare)")
        return
    d = os.path.join(work, "overlay")
    os.makedirs(d)
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", OVERLAY_SCRIPT, "sh", d, tree]
                       + lines, capture_output=True, text=True)
    if r.returncode != 0 and "mount" in r.stderr and "+ " not in r.stderr:
        print("the README's `sudo apt install` line in an overlay: skipped (no overlay mount here: " +
              r.stderr.strip() + ")")
        return
    # usrmerge: /lib is /usr/lib, so gst-inspect may name either.
    found = re.search(r"Filename\s+(\S+)", r.stdout)
    if r.returncode != 0 or not found or not found.group(1).endswith(plugins.replace("/usr/", "/", 1) +
                                                                      "/libgstvmafxhip.so"):
        fail("installed with the README's line, the plugin is not found by gst-inspect-1.0:\n" + r.stdout + r.stderr)
    else:
        print("README's " + "; ".join(lines) + " in an overlay: gst-inspect-1.0 finds " + found.group(1))


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("layout", "build"):
        print(__doc__)
        return 2
    src = os.path.abspath(sys.argv[2])
    if sys.argv[1] == "layout":
        layout(src, sys.argv[3] if len(sys.argv) > 3 else None)
        rc = 0
    else:
        rc = package_build(src)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
