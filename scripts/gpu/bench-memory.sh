#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Peak resident memory (and wall time) of whole vmafx-score runs on the CPU, beside libvmaf's CLI where one is given:
#   scripts/gpu/bench-memory.sh BUILD_DIR LOG_DIR [LIBVMAF_VMAF]
# vmaf_v0.6.1 and vmaf_v1.0.16_3d0h, 1080p (60 frames) and 4K (20 frames), --threads 1 and 16, --backend cpu; for
# vmafx-score also its input readers (default: mapped input with prefetch; VMAFX_PREFETCH=0; VMAFX_READER=read).
# Peak RSS is the child's ru_maxrss (getrusage of the waited-for process). Needs no GPU; run it on a GPU machine too,
# where a GPU driver is installed. Table in LOG_DIR/bench_memory.md.
source "$(dirname "$0")/common.sh"
VMAF=${1:-}
dest="$LOGS/bench_memory.md"
cat "$LOGS/machine.txt" > "$dest"
bench_inputs 60 20 >> "$dest"
V1=$SRC/engine/models/vmaf_v1.0.16_3d0h.json
# peak LABEL ENV... -- COMMAND...: one line "| LABEL | peak MB | wall s | exit |"
peak() {
  python3 - "$@" <<'EOF' >> "$dest"
import os, sys, time
args = sys.argv[1:]
label = args.pop(0)
env = dict(os.environ)
while args and args[0] != "--":
    k, v = args.pop(0).split("=", 1)
    env[k] = v
args.pop(0)
t = time.monotonic()
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.execvpe(args[0], args, env)
_, status, ru = os.wait4(pid, 0)
print("| %s | %.1f | %.2f | %d |" % (label, ru.ru_maxrss / 1024.0, time.monotonic() - t, os.waitstatus_to_exitcode(status)))
EOF
}
{
  echo
  echo "| run | peak RSS MB | wall s | exit |"
  echo "|---|---|---|---|"
} >> "$dest"
for size in 1080 4k; do
  if [ $size = 1080 ]; then geo=(-w 1920 -h 1080); r=$IN/1080_60_ref.yuv; d=$IN/1080_60_dist.yuv
  else geo=(-w 3840 -h 2160); r=$IN/4k_20_ref.yuv; d=$IN/4k_20_dist.yuv; fi
  for model in v0.6.1 v1; do
    if [ $model = v0.6.1 ]; then mx=(--model version=vmaf_v0.6.1); ml=(--model version=vmaf_v0.6.1)
    else mx=(--model "path=$V1"); ml=(--model "path=$V1"); fi
    for t in 1 16; do
      a=(-r "$r" -d "$d" "${geo[@]}" -p 420 -b 8 --threads $t --json -o "$LOGS/mem.json" -q)
      peak "vmafx $size $model t$t" -- "$BUILD/tools/vmafx-score" "${a[@]}" "${mx[@]}" --backend cpu
      peak "vmafx $size $model t$t prefetch=0" VMAFX_PREFETCH=0 -- "$BUILD/tools/vmafx-score" "${a[@]}" "${mx[@]}" \
        --backend cpu
      peak "vmafx $size $model t$t reader=read" VMAFX_READER=read -- "$BUILD/tools/vmafx-score" "${a[@]}" "${mx[@]}" \
        --backend cpu
      [ -n "$VMAF" ] && peak "libvmaf $size $model t$t" -- "$VMAF" "${a[@]}" "${ml[@]}"
    done
  done
done
cat "$dest"
echo "done in $(elapsed)s"
