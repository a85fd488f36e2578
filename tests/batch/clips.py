# SPDX-License-Identifier: LGPL-2.1-or-later
"""Small deterministic test clips for vmafx-batch's tests: a reference with moving texture and a moving block, and
distorted versions of it (deterministic noise and block offsets), raw 4:2:0 8- or 10-bit (little-endian words) or
.y4m. The same arguments give the same bytes on every machine."""
import os
import struct


def _luma(w, h, f, seed):
    out = []
    bx, by = (f * 3 + seed) % w, (f * 2 + seed) % h
    bw, bh = max(w // 4, 1), max(h // 4, 1)
    for j in range(h):
        inside_j = by <= j < by + bh
        row = [32 + ((i * 3 + j * 2 + f * 4 + seed * 7) % 160) + (((i // 4 + j // 4 + f) & 1) * 12) +
               (40 if inside_j and bx <= i < bx + bw else 0) for i in range(w)]
        out.append(row)
    return out


def _chroma(w, h, f, seed, k):
    return [[64 + ((i * (2 + k) + j + f * (1 + k) + seed) % 128) for i in range(w)] for j in range(h)]


def _distort(plane, f, seed, strength, maxv):
    s = (seed * 2654435761 + f * 40503 + 12345) & 0xFFFFFFFF
    out = []
    for j, row in enumerate(plane):
        new = []
        for i, v in enumerate(row):
            s = (s * 1664525 + 1013904223) & 0xFFFFFFFF
            n = ((s >> 16) % (2 * strength + 1)) - strength
            block = (((i >> 3) + (j >> 3) + f) % 3 - 1) * strength // 2
            new.append(min(max(v + n + block, 0), maxv))
        out.append(new)
    return out


def _pack(plane, bitdepth):
    if bitdepth == 8:
        return bytes(v for row in plane for v in row)
    return b"".join(struct.pack("<%dH" % len(row), *row) for row in plane)


def frame_bytes(w, h, f, bitdepth=8, seed=1, strength=0):
    """One 4:2:0 frame: the reference (strength 0) or a distorted version."""
    cw, ch = (w + 1) // 2, (h + 1) // 2
    shift = bitdepth - 8
    maxv = (1 << bitdepth) - 1
    planes = [_luma(w, h, f, seed), _chroma(cw, ch, f, seed, 0), _chroma(cw, ch, f, seed, 1)]
    if shift:
        planes = [[[(v << shift) | ((i + j + f) & ((1 << shift) - 1)) for i, v in enumerate(row)]
                   for j, row in enumerate(p)] for p in planes]
    if strength:
        planes = [_distort(p, f, seed + k, strength << shift, maxv) for k, p in enumerate(planes)]
    return b"".join(_pack(p, bitdepth) for p in planes)


def write_clip(path, w, h, frames, bitdepth=8, seed=1, strength=0, y4m=False, extra=b""):
    """Writes a clip; `extra` is appended (a partial frame for truncation tests)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as out:
        if y4m:
            cs = "420jpeg" if bitdepth == 8 else "420p%d" % bitdepth
            out.write(("YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C%s\n" % (w, h, cs)).encode())
        for f in range(frames):
            if y4m:
                out.write(b"FRAME\n")
            out.write(frame_bytes(w, h, f, bitdepth, seed, strength))
        out.write(extra)
    return path


def write_pair(folder, name, w, h, frames, bitdepth=8, seed=1, strengths=(3,), y4m=False):
    """<folder>/<name>_ref.<ext> and one distorted clip per strength (<name>_d<strength>.<ext>)."""
    ext = "y4m" if y4m else "yuv"
    ref = write_clip(os.path.join(folder, "%s_ref.%s" % (name, ext)), w, h, frames, bitdepth, seed, 0, y4m)
    dists = [write_clip(os.path.join(folder, "%s_d%d.%s" % (name, s, ext)), w, h, frames, bitdepth, seed, s, y4m)
             for s in strengths]
    return ref, dists
