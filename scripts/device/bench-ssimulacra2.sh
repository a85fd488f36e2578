#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# SSIMULACRA 2 and the float_psnr / float_ansnr / float_moment / speed_temporal features on the GPU machine:
#   1. bench-gpu's per-feature breakdown (device frames, each feature alone, 1080p and 4K, 8 and 10 bits; the
#      `where` column must say gpu), one and six lanes;
#   2. whole process: vmafx-score --backend hip --feature ssimulacra2 on 300 frames of 1080p (pair d repeated) and
#      60 frames of 4K (random bytes), files in the page cache; one line per run (wall seconds, frames per second).
# Run after scripts/device/stage.sh engine (carry .devrun and .devdata):  bash .devrun/bench-ssimulacra2.sh -> stdout
set -u
R=${R:-.devrun}
D=.devdata/testdata
for lanes in 1 6; do
  echo "== bench-gpu breakdown, VMAFX_HIP_LANES=$lanes"
  VMAFX_HIP_LANES=$lanes $R/bench/bench-gpu --no-cpu --frames 300 --warmup 20 --bitdepth 8 --bitdepth 10 \
    --size 1920x1080 --size 3840x2160 \
    --breakdown-features "ssimulacra2,float_psnr,float_ansnr,float_moment,speed_temporal" | sed -n '/^Per feature/,$p'
done
for s in ref x264crf35; do
  [ -s /tmp/d1080_$s.yuv ] || for i in $(seq 38); do cat $D/d_1920x1080_8b_$s.yuv; done | head -c $((3110400 * 300)) > /tmp/d1080_$s.yuv
done
[ -s /tmp/r4k.yuv ] || head -c $((12441600 * 60)) /dev/urandom > /tmp/r4k.yuv
[ -s /tmp/d4k.yuv ] || head -c $((12441600 * 60)) /dev/urandom > /tmp/d4k.yuv
cat /tmp/d1080_*.yuv /tmp/r4k.yuv /tmp/d4k.yuv > /dev/null
echo "== whole process, vmafx-score --backend hip --feature ssimulacra2"
for size in 1080 4k; do
  if [ $size = 1080 ]; then a=(-r /tmp/d1080_ref.yuv -d /tmp/d1080_x264crf35.yuv -w 1920 -h 1080); n=300
  else a=(-r /tmp/r4k.yuv -d /tmp/d4k.yuv -w 3840 -h 2160); n=60; fi
  t0=$(date +%s.%N)
  if $R/tools/vmafx-score "${a[@]}" -p 420 -b 8 --backend hip --no_prediction --feature ssimulacra2 --json \
       -o /tmp/bench-s2.json -q > /tmp/bench-s2.out 2>&1; then
    t1=$(date +%s.%N)
    python3 -c "import sys; s=float(sys.argv[2])-float(sys.argv[1]); print('%s: %d frames, %.2f s, %.1f fps' % (sys.argv[3], int(sys.argv[4]), s, int(sys.argv[4])/s))" "$t0" "$t1" $size $n
  else
    echo "FAILED: $size"; tail -3 /tmp/bench-s2.out
  fi
done
