#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# SSIMULACRA 2 and the float_psnr / float_ansnr / float_moment / speed_temporal features on a GPU machine:
#   scripts/gpu/bench-ssimulacra2.sh BUILD_DIR LOG_DIR
# 1. bench-gpu's per-feature breakdown (device frames, each feature alone, 1080p and 4K, 8 and 10 bits; the `where`
#    column must say gpu), one and six lanes; 2. whole process: vmafx-score --backend hip --feature ssimulacra2 on 300
#    frames of 1080p and 60 frames of 4K, inputs in the page cache. Tables in LOG_DIR/bench_ssimulacra2.md.
source "$(dirname "$0")/common.sh"
dest="$LOGS/bench_ssimulacra2.md"
cat "$LOGS/machine.txt" > "$dest"
for lanes in 1 6; do
  echo "== bench-gpu breakdown, VMAFX_HIP_LANES=$lanes" >> "$dest"
  VMAFX_HIP_LANES=$lanes "$BUILD/bench/bench-gpu" --no-cpu --frames 300 --warmup 20 --bitdepth 8 --bitdepth 10 \
    --size 1920x1080 --size 3840x2160 \
    --breakdown-features "ssimulacra2,float_psnr,float_ansnr,float_moment,speed_temporal" 2>&1 |
    sed -n '/^Per feature/,$p' >> "$dest"
done
bench_inputs 300 60 >> "$dest"
echo "== whole process, vmafx-score --backend hip --feature ssimulacra2" >> "$dest"
for size in 1080 4k; do
  if [ $size = 1080 ]; then a=(-r "$IN/1080_300_ref.yuv" -d "$IN/1080_300_dist.yuv" -w 1920 -h 1080); n=300
  else a=(-r "$IN/4k_60_ref.yuv" -d "$IN/4k_60_dist.yuv" -w 3840 -h 2160); n=60; fi
  t0=$(date +%s.%N)
  if "$BUILD/tools/vmafx-score" "${a[@]}" -p 420 -b 8 --backend hip --no_prediction --feature ssimulacra2 --json \
       -o "$LOGS/bench-s2.json" -q > "$LOGS/bench-s2-$size.out" 2>&1; then
    python3 -c 'import sys; s=float(sys.argv[2])-float(sys.argv[1]); print("%s: %d frames, %.2f s, %.1f fps" % (sys.argv[3], int(sys.argv[4]), s, int(sys.argv[4])/s))' \
      "$t0" "$(date +%s.%N)" $size $n >> "$dest"
  else
    echo "FAILED: $size: $(tail -n 3 "$LOGS/bench-s2-$size.out")" >> "$dest"
  fi
done
tail -n 4 "$dest"
echo "done in $(elapsed)s"
