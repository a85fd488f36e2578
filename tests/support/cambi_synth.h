// SPDX-License-Identifier: LGPL-2.1-or-later
// Synthetic luma for the CAMBI tests: deterministic pictures with what CAMBI looks at. Regions, left to right:
//   1. a slow horizontal ramp quantized to 8-bit steps (visible banding at every depth), moving one column per frame
//   2. a vertical ramp with steps of two 8-bit levels
//   3. noise (no flat pixels: the spatial mask is 0 there)
//   4. flat blocks at the extremes of the range (0, the largest value, the limited-range foot and head) and a
//      dark ramp below the default visibility threshold
// A small pseudo-random dither (a fixed LCG, seeded by size, depth and frame) breaks the ramps in some rows so that
// partial windows appear. The same function feeds the tests and the fixture files libvmaf scored (see
// tests/data/cambi/README.md).
#pragma once

#include <cstdint>
#include <vector>

namespace vmafx::test {

inline std::vector<uint16_t> cambi_synth_luma(uint32_t w, uint32_t h, unsigned bpc, unsigned frame) {
  std::vector<uint16_t> out(size_t(w) * h);
  const uint32_t max = (1u << bpc) - 1;
  const unsigned up = bpc - 8;  // 8-bit steps at this depth
  uint32_t seed = w * 2654435761u ^ h * 40503u ^ bpc * 977u ^ frame * 7919u;
  auto rnd = [&seed]() {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
  };
  const uint32_t x1 = w * 2 / 5, x2 = w * 3 / 5, x3 = w * 4 / 5;
  for (uint32_t y = 0; y < h; ++y) {
    const bool dither_row = (y / 7) % 5 == 3;
    for (uint32_t x = 0; x < w; ++x) {
      uint32_t v;
      if (x < x1) {
        // 8-bit levels 40 .. 200 across the region.
        const uint32_t level = 40 + (x + frame) * 160 / (x1 ? x1 : 1) % 161;
        v = level << up;
        if (dither_row && (rnd() & 15) == 0) v += (rnd() & 1) << up;
      } else if (x < x2) {
        const uint32_t level = 60 + 2 * ((y + 2 * frame) * 60 / (h ? h : 1) % 61);
        v = level << up;
      } else if (x < x3) {
        v = rnd() & max;
      } else {
        const uint32_t band = (y * 6) / (h ? h : 1);
        switch (band) {
          case 0: v = 0; break;
          case 1: v = max; break;
          case 2: v = 16u << up; break;
          case 3: v = 235u << up; break;
          default: v = (17 + (x - x3) * 6 / (w - x3 ? w - x3 : 1)) << up; break;  // dark ramp
        }
      }
      out[size_t(y) * w + x] = uint16_t(v > max ? max : v);
    }
  }
  return out;
}

// A whole picture of one slow diagonal ramp quantized to 8-bit levels (16 .. 235 at any depth): strong banding
// everywhere, the largest c-values CAMBI produces on natural-looking content, and top-k sums large enough that
// libvmaf's double summation rounds (the order of its quickselect matters).
inline std::vector<uint16_t> cambi_synth_gradient(uint32_t w, uint32_t h, unsigned bpc, unsigned frame) {
  std::vector<uint16_t> out(size_t(w) * h);
  const unsigned up = bpc - 8;
  const uint64_t span = uint64_t(w) + h / 2;
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const uint64_t t = uint64_t(x) + y / 2 + frame;
      const uint32_t level = uint32_t(16 + (t * 219) / span % 220);
      out[size_t(y) * w + x] = uint16_t(level << up);
    }
  return out;
}

// Flat steps of one 8-bit level (12 columns by 6 rows each): flat windows with two or three values even in pictures
// a few samples wide or high.
inline std::vector<uint16_t> cambi_synth_steps(uint32_t w, uint32_t h, unsigned bpc, unsigned frame) {
  std::vector<uint16_t> out(size_t(w) * h);
  const unsigned up = bpc - 8;
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      out[size_t(y) * w + x] = uint16_t((60 + ((x + frame) / 12 + y / 6) % 3) << up);
  return out;
}

// The synthetic pictures libvmaf scored for tests/data/cambi/<name>.json (see its README).
struct Fixture {
  const char* name;  // tests/data/cambi/<name>.json
  uint32_t w, h;
  unsigned bpc;
  unsigned frames;
  int kind;             // 0: cambi_synth_luma, 1: cambi_synth_gradient, 2: cambi_synth_steps
  const char* options;  // libvmaf's --feature cambi=<options>
};

// The distorted picture of frame i; the reference (read with full_ref) is another frame of the same content.
inline std::vector<uint16_t> fixture_luma(const Fixture& f, unsigned frame, bool reference) {
  const unsigned n = reference ? frame + 50 : frame;
  if (f.kind == 1) return cambi_synth_gradient(f.w, f.h, f.bpc, n);
  if (f.kind == 2) return cambi_synth_steps(f.w, f.h, f.bpc, n);
  return cambi_synth_luma(f.w, f.h, f.bpc, n);
}

inline const Fixture kFixtures[] = {
    {"synth_640x360_8b", 640, 360, 8, 3, 0, ""},
    {"synth_640x360_8b_fullref", 640, 360, 8, 2, 0, "full_ref=true"},
    {"synth_640x360_8b_fullref_srcup", 640, 360, 8, 1, 0, "full_ref=true:src_width=800:src_height=450"},
    {"synth_640x360_8b_enc", 640, 360, 8, 2, 0, "enc_width=500:enc_height=281"},
    {"synth_640x360_8b_v1", 640, 360, 8, 2, false,
     "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17"},
    {"synth_640x360_8b_topk", 640, 360, 8, 2, 0, "topk=0.05:cambi_topk=0.9:cambi_max_val=2.5"},
    {"synth_640x360_8b_ctpk", 640, 360, 8, 1, 0, "cambi_topk=1"},
    {"synth_640x360_8b_vlt", 640, 360, 8, 1, 0, "cambi_vis_lum_threshold=40:max_log_contrast=3"},
    {"synth_333x217_8b", 333, 217, 8, 2, 0, ""},
    {"synth_333x217_8b_mlc5_ws100", 333, 217, 8, 1, 0, "max_log_contrast=5:window_size=100"},
    {"synth_333x217_8b_mlc0_ws15", 333, 217, 8, 1, 0, "max_log_contrast=0:window_size=15:tvi_threshold=0.1"},
    {"synth_640x360_10b", 640, 360, 10, 2, 0, ""},
    {"synth_640x360_10b_encbd8", 640, 360, 10, 1, 0, "enc_bitdepth=8"},
    {"synth_640x360_10b_pq", 640, 360, 10, 1, 0, "eotf=pq:tvi_threshold=0.01"},
    {"synth_640x360_10b_ceot", 640, 360, 10, 1, 0, "eotf=bt1886:cambi_eotf=pq:max_log_contrast=4"},
    {"synth_640x360_10b_fullref_resize", 640, 360, 10, 1, false,
     "full_ref=true:enc_width=360:enc_height=216:src_width=480:src_height=270"},
    {"synth_640x360_12b", 640, 360, 12, 1, 0, ""},
    {"synth_640x360_16b", 640, 360, 16, 1, 0, "enc_width=400:enc_height=300"},
    {"synth_216x16_8b", 216, 16, 8, 2, 0, ""},
    {"steps_216x2_8b", 216, 2, 8, 2, 2, ""},
    {"steps_1x216_8b", 1, 216, 8, 2, 2, ""},
    {"steps_217x3_10b", 217, 3, 10, 2, 2, ""},
    {"steps_220x40_10b_ws", 220, 40, 10, 2, 2, "window_size=127:topk=1"},
    {"grad_1920x1080_10b", 1920, 1080, 10, 1, 1, ""},
    {"synth_2560x1440_8b_hrs1440", 2560, 1440, 8, 1, 0, "cambi_high_res_speedup=1440"},
    {"grad_3840x2160_8b_hrs2160", 3840, 2160, 8, 1, 1, "cambi_high_res_speedup=2160"},
    // At 4K without the speed-up the top-k sum of scale 0 is large enough that libvmaf's double summation rounds:
    // equal only in libvmaf's order.
    {"synth_3840x2160_8b", 3840, 2160, 8, 1, 0, ""},
};

}  // namespace vmafx::test
