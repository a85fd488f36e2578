#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Generates the sample pair that ./run.sh scores: synthetic content, no third-party material.

Reference: moving colour gradients, a drifting checker texture and two moving discs, 4:2:0 8-bit.
Distorted: the reference through a 3x3 blur, 8x8 block quantisation of luma (a crude codec) and a little
deterministic noise. Deterministic: the same bytes on every run.

    python3 scripts/make_sample.py samples/   ->  sample_320x240_ref.yuv, sample_320x240_dist.yuv
"""
import math
import os
import sys

W, H, FRAMES = 320, 240, 24


def clamp(v, lo=16, hi=235):
    return lo if v < lo else hi if v > hi else int(v)


def lcg(seed):
    s = seed & 0xFFFFFFFF
    while True:
        s = (s * 1664525 + 1013904223) & 0xFFFFFFFF
        yield (s >> 24) - 128


def reference_frame(n):
    y = bytearray(W * H)
    cx1, cy1 = 80 + 6 * n, 120 + 40 * math.sin(n / 5.0)
    cx2, cy2 = 240 - 4 * n, 80 + 3 * n
    for j in range(H):
        for i in range(W):
            v = 40 + 0.45 * i + 0.25 * j + 20 * math.sin((i + 3 * n) / 17.0) * math.cos((j - 2 * n) / 23.0)
            if ((i + 2 * n) // 8 + (j + n) // 8) % 2 and 180 < j < 230:
                v += 35
            if (i - cx1) ** 2 + (j - cy1) ** 2 < 30 ** 2:
                v = 200 - 0.5 * abs(i - cx1)
            if (i - cx2) ** 2 + (j - cy2) ** 2 < 18 ** 2:
                v = 50 + 2 * abs(j - cy2)
            y[j * W + i] = clamp(v)
    cw, ch = W // 2, H // 2
    u = bytearray(cw * ch)
    v = bytearray(cw * ch)
    for j in range(ch):
        for i in range(cw):
            u[j * cw + i] = clamp(128 + 40 * math.sin((i + n) / 20.0), 16, 240)
            v[j * cw + i] = clamp(128 + 40 * math.cos((j - n) / 15.0), 16, 240)
    return y, u, v


def blur(plane, w, h):
    out = bytearray(w * h)
    for j in range(h):
        for i in range(w):
            s = 0
            for dj in (-1, 0, 1):
                jj = min(max(j + dj, 0), h - 1)
                row = jj * w
                for di in (-1, 0, 1):
                    ii = min(max(i + di, 0), w - 1)
                    s += plane[row + ii]
            out[j * w + i] = (s + 4) // 9
    return out


def distort(y, u, v, n):
    y = blur(y, W, H)
    noise = lcg(1234 + n)
    out = bytearray(W * H)
    for bj in range(0, H, 8):
        for bi in range(0, W, 8):
            total = sum(y[(bj + j) * W + bi + i] for j in range(8) for i in range(8))
            mean = total / 64.0
            for j in range(8):
                for i in range(8):
                    p = (bj + j) * W + bi + i
                    detail = (y[p] - mean) * 0.85
                    q = round(detail / 4.0) * 4.0
                    out[p] = clamp(mean + q + next(noise) / 96.0)
    cw, ch = W // 2, H // 2
    return out, blur(u, cw, ch), blur(v, cw, ch)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "samples"
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, f"sample_{W}x{H}_ref.yuv"), "wb") as fr, \
         open(os.path.join(outdir, f"sample_{W}x{H}_dist.yuv"), "wb") as fd:
        for n in range(FRAMES):
            y, u, v = reference_frame(n)
            fr.write(y + u + v)
            dy, du, dv = distort(y, u, v, n)
            fd.write(dy + du + dv)


if __name__ == "__main__":
    main()
