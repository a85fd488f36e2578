#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Reads `gst-launch-1.0 -m` output on stdin and prints vmafxhip's VMAF messages readably: one line per scored frame
# (index, timestamp, VMAF and the PSNR / SSIM / MS-SSIM that were asked for), the pooled result and the frames left
# unscored with their reasons. Errors and warnings from the pipeline go to stderr.
#   gst-launch-1.0 -m ... vmafxhip ... | pipelines/format-vmaf-messages.sh
set -euo pipefail
exec awk '
function field(line, name,    re, m) {
  # name=(type)value, value up to the next comma or semicolon
  re = "[ ,]" name "=\\([a-z0-9]+\\)[^,;]*"
  if (match(line, re)) {
    m = substr(line, RSTART + 1, RLENGTH - 1)
    sub(/^[^)]*\)/, "", m)
    return m
  }
  return ""
}
function extras(line,    out, k, v, names, n) {
  n = split("psnr-y psnr-cb psnr-cr ssim ms-ssim ci-p95-lo ci-p95-hi", names, " ")
  out = ""
  for (k = 1; k <= n; k++) {
    v = field(line, names[k])
    if (v != "") out = out sprintf("  %s %.6f", names[k], v)
  }
  return out
}
/VMAF, type=\(string\)frame/ {
  ts = field($0, "timestamp")
  score = field($0, "score")
  printf "frame %5d  t=%9.3fs  vmaf %10.6f%s\n", field($0, "index"), ts / 1e9, score, extras($0)
  fflush()
  next
}
/VMAF, type=\(string\)pooled/ {
  pad = field($0, "pad")
  printf "pooled over %d frames (pool-method %s%s): vmaf %.6f  mean %.6f  min %.6f  max %.6f  harmonic-mean %.6f\n", \
    field($0, "frames"), field($0, "pool-method"), (pad == "" || pad == "dist_sink") ? "" : ", " pad, field($0, "score"), field($0, "mean"), field($0, "min"), \
    field($0, "max"), field($0, "harmonic-mean")
  printf "percentiles: p1 %.6f  p5 %.6f  p25 %.6f  p50 %.6f  p75 %.6f  p95 %.6f  p99 %.6f\n", \
    field($0, "p1"), field($0, "p5"), field($0, "p25"), field($0, "p50"), field($0, "p75"), field($0, "p95"), \
    field($0, "p99")
  x = extras($0)
  if (x != "") printf "pooled features:%s\n", x
  if (field($0, "frames-skipped") + 0 > 0) {
    n = split("no-reference no-distorted late busy duplicate non-monotonic out-of-segment offset renegotiated", rs, " ")
    x = ""
    for (k = 1; k <= n; k++) {
      v = field($0, "skipped-" rs[k])
      if (v + 0 > 0) x = x sprintf("  %s %d", rs[k], v)
    }
    printf "skipped %d frames:%s\n", field($0, "frames-skipped"), x
  }
  fflush()
  next
}
# gst-launch prints an error, warning or info as a header line and its debug text on the following lines.
/^(Got message|Setting pipeline|Pipeline is|Execution ended|Redistribute|New clock|Freeing|Got EOS)/ { problem = 0 }
/^(ERROR|WARNING|INFO)/ { problem = 1 }
problem { print > "/dev/stderr" }
'
