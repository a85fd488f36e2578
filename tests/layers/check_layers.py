#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks that the engine's layers include only layers below them, and that gst/ and tools/ include only the
engine's public headers (vmafx/*.h) and their own. Prints every violation with file, line and the layers involved;
exits 1 if there is any. Usage: check_layers.py <source root>"""
import os
import re
import sys

# Lowest first. A file may include headers of its own layer and of layers listed before it.
LAYERS = ["kernels", "core", "features", "import", "hip", "scoring"]
PUBLIC = {
    "status.h": "core", "picture.h": "core", "collector.h": "core", "devices.h": "core", "tuning.h": "core",
    "dmabuf.h": "import", "gl.h": "import", "cuda.h": "import",
    "scorer.h": "scoring", "model.h": "scoring", "model_spec.h": "scoring", "output.h": "scoring",
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of_path(rel):
    """Layer of a file under engine/ (relative to engine/), or None when it is not in a layer."""
    parts = rel.split("/")
    if parts[0] == "hip" and len(parts) > 1 and parts[1] == "kernels":
        return "kernels"
    if parts[0] in ("core",):
        return "core"
    if parts[0] in ("features", "cpu"):
        return "features"
    if parts[0] in ("import", "gl"):
        return "import"
    if parts[0] == "hip":
        return "hip"
    if parts[0] == "scoring":
        return "scoring"
    if parts[0] == "include" and len(parts) == 3 and parts[1] == "vmafx":
        return PUBLIC.get(parts[2])
    return None


def layer_of_include(inc, including_dir):
    if inc.startswith("vmafx/"):
        name = inc[len("vmafx/"):]
        return PUBLIC.get(name, "unknown public header")
    # Kernel sources include their siblings by bare name.
    if including_dir.startswith("hip/kernels") and "/" not in inc:
        return "kernels"
    return layer_of_path(inc)


def own_headers(top, inc):
    """A header of gst/ or tools/ itself: a file below `top` by that relative path, or one that meson generates there
    from a template (NAME.in, anywhere below `top`)."""
    if ".." in inc.split("/"):
        return False
    if os.path.isfile(os.path.join(top, inc)):
        return True
    if "/" not in inc:
        for dirpath, _, files in os.walk(top):
            if inc + ".in" in files:
                return True
    return False


def self_test():
    """A planted upward include, and a gst/ file reaching into the engine, must both be reported."""
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        for d in ("engine/core", "engine/scoring", "gst"):
            os.makedirs(os.path.join(t, d))
        open(os.path.join(t, "engine/core/a.cpp"), "w").write('#include "scoring/backend_select.h"\n')
        open(os.path.join(t, "engine/scoring/b.cpp"), "w").write('#include "core/thread_pool.h"\n')
        open(os.path.join(t, "gst/c.cpp"), "w").write('#include "hip/device.h"\n#include "vmafx/scorer.h"\n')
        os.makedirs(os.path.join(t, "tools/sub"))
        open(os.path.join(t, "tools/sub/x.h"), "w").write("")
        open(os.path.join(t, "tools/sub/gen.h.in"), "w").write("")
        open(os.path.join(t, "tools/d.cpp"), "w").write('#include "sub/x.h"\n#include "gen.h"\n'
                                                         '#include "features/table.h"\n')
        sys.argv = [sys.argv[0], t]
        import io
        import contextlib
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = run()
        text = out.getvalue()
        ok = rc == 1 and "core includes \"scoring/backend_select.h\"" in text and "gst/c.cpp:1" in text \
            and "gst/c.cpp:2" not in text and "tools/d.cpp:3" in text and "tools/d.cpp:1" not in text \
            and "tools/d.cpp:2" not in text and "3 violations" in text
        print(text + ("self-test: planted violations found" if ok else "self-test FAILED"))
        return 0 if ok else 1


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        return self_test()
    return run()


def run():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    errors = []
    checked = 0
    engine = os.path.join(root, "engine")
    for dirpath, _, files in os.walk(engine):
        for f in files:
            if not f.endswith((".h", ".cpp", ".hip")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, engine).replace(os.sep, "/")
            own = layer_of_path(rel)
            if own is None:
                errors.append(f"engine/{rel}: in no layer (engine/{{core,features,cpu,import,gl,hip,scoring}})")
                continue
            for n, line in enumerate(open(path, encoding="utf-8"), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                checked += 1
                inc = m.group(1)
                lay = layer_of_include(inc, os.path.dirname(rel))
                if lay is None or lay not in LAYERS:
                    errors.append(f"engine/{rel}:{n}: includes \"{inc}\", which is in no layer")
                elif LAYERS.index(lay) > LAYERS.index(own):
                    errors.append(f"engine/{rel}:{n}: {own} includes \"{inc}\" of {lay}, a layer above it")
    for top in ("gst", "tools"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                local = set(os.listdir(dirpath))
                own_top = os.path.join(root, top)
                for n, line in enumerate(open(path, encoding="utf-8"), 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    checked += 1
                    inc = m.group(1)
                    if inc.startswith("vmafx/") and inc[len("vmafx/"):] in PUBLIC:
                        continue
                    if "/" not in inc and inc in local:
                        continue  # its own folder's headers
                    if own_headers(own_top, inc):
                        continue  # headers of gst/ or tools/ themselves (tools/batch/x.h as "batch/x.h")
                    errors.append(f"{rel}:{n}: includes \"{inc}\": gst/ and tools/ use the engine's public "
                                  f"headers (vmafx/*.h) only")
    for e in errors:
        print(e)
    print(f"{checked} includes checked, {len(errors)} violations")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
