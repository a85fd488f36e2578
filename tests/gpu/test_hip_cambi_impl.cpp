// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU CAMBI kernels' arithmetic (engine/hip/kernels/cambi_impl.h) run on the CPU, work item by work item as the
// kernels run them, against the CPU reference (cpu/cambi.h), stage by stage and bit for bit:
//   - preprocessing (8-bit bytes, 10/12/16-bit words, P010 shifts, interleaved steps, resizes, anti-dithering) and
//     libvmaf's sample check;
//   - the spatial mask through the kernel's shared tiles (partial tiles at every edge);
//   - decimation, mode filter and keys of every scale, with and without the high-resolution speed-up;
//   - c-values through per-thread histogram columns in chunks of rows (chunk heights 1 .. the kernel's own), compared
//     as float bits;
//   - the three pooling passes (counts split over emulated blocks) and their selection: the exact top-k sum against
//     an independent sort, libvmaf's mean wherever the selection says its summation is exact;
//   - whole pictures, launch parameters as engine/hip/cambi_gpu.cpp sets them, against cpu::Cambi's scores.
// Suite 'hip': needs no GPU. Failures name the content, option set, scale and position.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cambi_synth.h"
#include "cpu/cambi.h"
#include "cpu/plane.h"
#include "hip/kernels/cambi_impl.h"
#include "support.h"

namespace vmafx {
namespace {

constexpr unsigned kScales = cpu::kCambiScales;

Status parse_options(const std::string& text, cpu::CambiOptions* o) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(':', at);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(at, end - at);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return {Errc::invalid_argument, "option without a value: " + item};
    VMAFX_TRY(cpu::cambi_set_option(o, item.substr(0, eq), item.substr(eq + 1)));
    at = end + 1;
  }
  return Status::ok();
}

// A picture stored as the GPU may see it: 8-bit bytes, or 16-bit words with a shift and a step, any pitch.
struct Stored {
  uint32_t w = 0, h = 0;
  unsigned bpc = 8;
  std::vector<uint8_t> bytes;
  size_t pitch = 0;
  unsigned word_bytes = 1, shift = 0, step = 1;

  cpu::Plane plane() const {
    cpu::Plane p;
    p.data = bytes.data();
    p.stride = ptrdiff_t(pitch);
    p.w = w;
    p.h = h;
    p.bytes = uint8_t(word_bytes);
    p.shift = uint8_t(shift);
    p.step = uint8_t(step);
    p.bpc = uint8_t(bpc);
    return p;
  }
  VxPlane arg() const { return VxPlane{bytes.data(), pitch, w, h, word_bytes, shift, step}; }
};

// Samples in a layout: shift > 0 puts the sample high in the word and garbage in the low bits; step 2 interleaves a
// garbage sample; the pitch has an odd number of padding bytes.
Stored store(const std::vector<uint16_t>& s, uint32_t w, uint32_t h, unsigned bpc, unsigned shift = 0,
             unsigned step = 1) {
  Stored st;
  st.w = w;
  st.h = h;
  st.bpc = bpc;
  st.word_bytes = bpc == 8 && shift == 0 ? 1 : 2;
  st.shift = shift;
  st.step = step;
  st.pitch = size_t(w) * step * st.word_bytes + 3;
  st.bytes.assign(st.pitch * h, 0x5A);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      uint8_t* p = st.bytes.data() + y * st.pitch + size_t(x) * step * st.word_bytes;
      if (st.word_bytes == 1) {
        p[0] = uint8_t(s[size_t(y) * w + x]);
      } else {
        const uint16_t word = uint16_t((uint32_t(s[size_t(y) * w + x]) << shift) | ((1u << shift) - 1u) / 3u);
        p[0] = uint8_t(word);
        p[1] = uint8_t(word >> 8);
      }
    }
  return st;
}

// ---- one picture, emulated as cambi_gpu.cpp launches it --------------------------------------------------------

struct Emulated {
  std::vector<uint16_t> img0;
  std::vector<uint8_t> mask0;
  std::vector<uint16_t> image[kScales], key[kScales];
  std::vector<float> c_values[kScales];
  CambiPoolResult pool[kScales] = {};
  double mean[kScales] = {};
  bool host_pooled[kScales] = {};
  double raw = 0;
  uint32_t sample_error = 0;
};

void emulate_pool(const CambiPoolArgs& a_in, unsigned blocks) {
  CambiPoolArgs a = a_in;
  CambiPoolState* st = a.state;
  for (unsigned pass = 1; pass <= 3; ++pass) {
    if (st->done) break;
    const vx_u32 bins = cambi_pool_bins(pass);
    vx_u32* count = pass == 1 ? st->count1 : pass == 2 ? st->count2 : st->count3;
    vx_u64* units = pass == 1 ? st->sum1 : pass == 2 ? st->sum2 : nullptr;
    // Each emulated block counts a strided share of the values into its own bins, then adds them into the state.
    for (unsigned b = 0; b < blocks; ++b) {
      std::vector<vx_u32> c(bins, 0);
      std::vector<vx_u64> u(bins, 0);
      bool bad = false;
      for (vx_u32 i = b * CAMBI_POOL_THREADS; i < a.n; i += blocks * CAMBI_POOL_THREADS)
        for (vx_u32 t = 0; t < CAMBI_POOL_THREADS && i + t < a.n; ++t)
          bad |= !cambi_pool_count_value(pass, a.values[i + t], st->prefix, c.data(), pass < 3 ? u.data() : nullptr);
      for (vx_u32 j = 0; j < bins; ++j) {
        count[j] += c[j];
        if (units) units[j] += u[j];
      }
      if (bad) st->bad = 1;
    }
    cambi_pool_select(pass, a, st);
  }
}

Emulated emulate_picture(const cpu::CambiPlan& plan, const cpu::CambiGeometry& g, const Stored& in,
                         unsigned pool_blocks = 3, unsigned rows_override = 0) {
  Emulated e;
  const size_t pitch = (size_t(g.w) + 63) / 64 * 64;
  e.img0.assign(pitch * g.h, 0xEEEE);
  e.mask0.assign(pitch * g.h, 0xEE);
  CambiPreArgs pre{};
  pre.in = in.arg();
  pre.src_x = g.resized ? g.src_x.data() : nullptr;
  pre.src_y = g.resized ? g.src_y.data() : nullptr;
  pre.out = e.img0.data();
  pre.out_pitch = pitch;
  pre.in_w = g.in_w;
  pre.in_h = g.in_h;
  pre.w = g.w;
  pre.h = g.h;
  pre.bpc = plan.bpc;
  pre.dither = plan.enc_bitdepth < 10;
  pre.max_sample = plan.bpc > 8 && plan.bpc < 16 ? (1u << plan.bpc) - 1 : 0;
  for (uint32_t y = 0; y < g.h; ++y)
    for (uint32_t x = 0; x < g.w; ++x) e.img0[y * pitch + x] = cambi_pre_value(pre, x, y);
  if (pre.max_sample)
    for (uint32_t y = 0; y < g.in_h; ++y)
      for (uint32_t x = 0; x < g.in_w; ++x) e.sample_error = std::max(e.sample_error, cambi_check_value(pre, x, y));

  CambiMaskArgs m{};
  m.img = e.img0.data();
  m.mask = e.mask0.data();
  m.pitch = pitch;
  m.w = g.w;
  m.h = g.h;
  m.mask_index = g.mask_index;
  for (uint32_t by = 0; by < (g.h + CAMBI_MASK_TILE_H - 1) / CAMBI_MASK_TILE_H; ++by)
    for (uint32_t bx = 0; bx < (g.w + CAMBI_MASK_TILE_W - 1) / CAMBI_MASK_TILE_W; ++bx) {
      CambiMaskTile tile;
      std::memset(&tile, 0xCC, sizeof tile);
      const int x0 = int(bx * CAMBI_MASK_TILE_W), y0 = int(by * CAMBI_MASK_TILE_H);
      for (int i = 0; i < cambi_mask_load_items(); ++i) cambi_mask_load(tile, m, x0, y0, i);
      for (int ty = 0; ty < CAMBI_MASK_TILE_H; ++ty)
        for (int tx = 0; tx < CAMBI_MASK_TILE_W; ++tx) {
          const uint32_t x = uint32_t(x0 + tx), y = uint32_t(y0 + ty);
          if (x < g.w && y < g.h) e.mask0[y * pitch + x] = cambi_mask_value(tile, m, tx, ty);
        }
    }

  std::vector<uint16_t> filtered[kScales], keys[kScales];
  for (unsigned s = 0; s < kScales; ++s) {
    const uint32_t sw = g.scale_w[s], sh = g.scale_h[s];
    filtered[s].assign(pitch * sh, 0xDDDD);
    keys[s].assign(pitch * sh, 0xDDDD);
    CambiFilterArgs f{};
    f.src = s == 0 ? e.img0.data() : filtered[s - 1].data();
    f.mask = e.mask0.data();
    f.out = filtered[s].data();
    f.key = keys[s].data();
    f.pitch = pitch;
    f.w = sw;
    f.h = sh;
    f.factor = (s > 0 || plan.high_res_speedup) ? 2 : 1;
    f.mask_shift = s + (plan.high_res_speedup ? 1 : 0);
    f.band_base = plan.band_base;
    f.band_size = plan.band_size;
    for (uint32_t y = 0; y < sh; ++y)
      for (uint32_t x = 0; x < sw; ++x) {
        const uint16_t v = cambi_filter_value(f, x, y);
        filtered[s][y * pitch + x] = v;
        keys[s][y * pitch + x] = cambi_key_of(f, v, x, y);
      }
    e.image[s].resize(size_t(sw) * sh);
    e.key[s].resize(size_t(sw) * sh);
    for (uint32_t y = 0; y < sh; ++y) {
      std::memcpy(e.image[s].data() + size_t(y) * sw, filtered[s].data() + y * pitch, sw * 2);
      std::memcpy(e.key[s].data() + size_t(y) * sw, keys[s].data() + y * pitch, sw * 2);
    }

    e.c_values[s].assign(size_t(sw) * sh, 0.0f);
    const uint32_t k = cpu::cambi_topk_count(sw * sh, plan.topk);
    if (plan.band_empty) continue;
    e.c_values[s].assign(size_t(sw) * sh, -1.0f);  // every entry must be written
    CambiCvalArgs cv{};
    cv.key = keys[s].data();
    cv.recip = cpu::cambi_reciprocals();
    cv.out = e.c_values[s].data();
    cv.pitch = pitch;
    cv.w = sw;
    cv.h = sh;
    cv.pad = g.pad;
    cv.rows = rows_override ? rows_override : std::max<uint32_t>(32, g.window);
    cv.band_base = plan.band_base;
    cv.band_size = plan.band_size;
    cv.num_diffs = plan.num_diffs;
    cv.vlt_luma = plan.vlt_luma;
    for (unsigned d = 0; d < cpu::kCambiMaxDiffs; ++d) cv.tvi[d] = plan.tvi_for_diff[d];
    // Histogram columns interleaved as in shared memory (stride 3: three threads), starting dirty.
    const unsigned stride = 3;
    std::vector<uint16_t> hist(size_t(plan.band_size) * stride, 0x7777);
    for (uint32_t y0 = 0; y0 < sh; y0 += cv.rows)
      for (uint32_t x = 0; x < sw; ++x)
        cambi_c_values_column(cv, hist.data() + x % stride, stride, x, y0, std::min(y0 + cv.rows, sh));

    std::vector<CambiPoolState> state(1);
    std::memset(state.data(), 0, sizeof(CambiPoolState));
    CambiPoolResult result{};
    CambiPoolArgs pa{};
    pa.values = e.c_values[s].data();
    pa.state = state.data();
    pa.result = &result;
    pa.n = sw * sh;
    pa.k = k;
    emulate_pool(pa, pool_blocks);
    e.pool[s] = result;
    if (cambi_pool_exact(result)) {
      e.mean[s] = std::ldexp(double(result.total), -24) / k;
    } else {
      std::vector<float> v(e.c_values[s]);
      e.mean[s] = cpu::cambi_pool(v.data(), sw * sh, plan.topk);
      e.host_pooled[s] = true;
    }
  }
  e.raw = cpu::cambi_combine(e.mean, g.window);
  return e;
}

// The exact top-k sum in units of 2^-24, by sorting.
unsigned __int128 sorted_topk_units(std::vector<float> v, uint32_t k) {
  std::sort(v.begin(), v.end(), [](float a, float b) { return a > b; });
  unsigned __int128 sum = 0;
  for (uint32_t i = 0; i < k; ++i) sum += (unsigned __int128)(uint64_t)std::ldexp(double(v[i]), 24);
  return sum;
}

// Compares the emulation of one picture with the CPU reference, stage by stage.
void check_picture(const std::string& what, const cpu::CambiPlan& plan, const cpu::CambiGeometry& g,
                   const Stored& in, unsigned* host_pooled = nullptr, unsigned rows_override = 0) {
  SCOPED_TRACE(what);
  const Emulated e = emulate_picture(plan, g, in, 3, rows_override);

  // Stage 1 and 2 against the CPU's stage functions.
  std::vector<uint16_t> img(size_t(g.w) * g.h);
  cpu::cambi_preprocess(in.plane(), g, plan.enc_bitdepth, img.data(), g.w);
  std::vector<uint8_t> mask(size_t(g.w) * g.h);
  std::vector<uint32_t> scratch((g.w + cpu::kCambiMaskFilter) * 8);
  cpu::cambi_spatial_mask(img.data(), g.w, g.w, g.h, g.mask_index, mask.data(), g.w, scratch.data());
  const size_t pitch = (size_t(g.w) + 63) / 64 * 64;
  for (uint32_t y = 0; y < g.h; ++y)
    for (uint32_t x = 0; x < g.w; ++x) {
      ASSERT_EQ(e.img0[y * pitch + x], img[size_t(y) * g.w + x]) << "preprocessed (" << x << ", " << y << ")";
      ASSERT_EQ(e.mask0[y * pitch + x], mask[size_t(y) * g.w + x]) << "mask (" << x << ", " << y << ")";
    }
  const Status checked = cpu::cambi_check_samples(in.plane());
  EXPECT_EQ(e.sample_error != 0, !checked.is_ok());

  // The scales, with the stage functions in the order cpu::Cambi::score_picture runs them.
  for (unsigned s = 0; s < kScales; ++s) {
    const uint32_t sw = g.scale_w[s], sh = g.scale_h[s];
    if (s > 0 || plan.high_res_speedup) {
      cpu::cambi_decimate(img.data(), g.w, sw, sh);
      cpu::cambi_decimate(mask.data(), g.w, sw, sh);
    }
    std::vector<uint16_t> mode(3 * size_t(sw));
    cpu::cambi_filter_mode(img.data(), g.w, sw, sh, mode.data());
    for (uint32_t y = 0; y < sh; ++y)
      for (uint32_t x = 0; x < sw; ++x) {
        const uint16_t v = img[size_t(y) * g.w + x];
        ASSERT_EQ(e.image[s][size_t(y) * sw + x], v) << "filtered, scale " << s << " (" << x << ", " << y << ")";
        const bool in_band = uint16_t(v - plan.band_base) < plan.band_size;
        const uint16_t want = mask[size_t(y) * g.w + x] && in_band ? uint16_t(v - plan.band_base) : CAMBI_KEY_NONE;
        ASSERT_EQ(e.key[s][size_t(y) * sw + x], want) << "key, scale " << s << " (" << x << ", " << y << ")";
      }
    std::vector<float> cv(size_t(sw) * sh);
    std::vector<uint16_t> hist(size_t(plan.band_size) * sw + 1);
    cpu::cambi_c_values(plan, img.data(), mask.data(), g.w, sw, sh, g.pad, cv.data(), hist.data());
    ASSERT_EQ(std::memcmp(cv.data(), e.c_values[s].data(), cv.size() * sizeof(float)), 0)
        << "c-values, scale " << s << " (first difference at "
        << (std::mismatch(cv.begin(), cv.end(), e.c_values[s].begin()).first - cv.begin()) << ")";
    const uint32_t k = cpu::cambi_topk_count(sw * sh, plan.topk);
    if (!plan.band_empty) {
      ASSERT_EQ(e.pool[s].flags, CAMBI_POOL_DONE) << "scale " << s;
      EXPECT_TRUE(e.pool[s].total == sorted_topk_units(cv, k)) << "top-k units, scale " << s;
    }
    std::vector<float> pooled(cv);
    const double want_mean = cpu::cambi_pool(pooled.data(), sw * sh, plan.topk);
    EXPECT_EQ(e.mean[s], want_mean) << "mean, scale " << s << (e.host_pooled[s] ? " (host pooled)" : "");
    if (host_pooled && e.host_pooled[s]) ++*host_pooled;
  }
}

// ---- contents -------------------------------------------------------------------------------------------------------

std::vector<uint16_t> noise(uint32_t w, uint32_t h, unsigned bpc, uint32_t seed, bool extremes) {
  std::mt19937 rng(seed);
  const uint32_t max = (1u << bpc) - 1;
  std::vector<uint16_t> v(size_t(w) * h);
  for (auto& x : v) x = uint16_t(extremes ? ((rng() & 1) ? max : 0) : rng() % (max + 1));
  return v;
}

// Flat blocks of random levels near each other (many masked pixels, windows with several values).
std::vector<uint16_t> blocks(uint32_t w, uint32_t h, unsigned bpc, uint32_t seed) {
  std::mt19937 rng(seed);
  const uint32_t max = (1u << bpc) - 1;
  std::vector<uint16_t> v(size_t(w) * h);
  const uint32_t base = rng() % (max / 2);
  const unsigned up = bpc - 8;
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const uint32_t b = (x / 9) * 31 + (y / 5) * 17;
      v[size_t(y) * w + x] = uint16_t(std::min(max, base + ((b * 2654435761u >> 28) << up)));
    }
  return v;
}

struct Case {
  const char* name;
  uint32_t w, h;
  unsigned bpc;
  std::function<std::vector<uint16_t>(uint32_t, uint32_t, unsigned)> content;
  const char* options;
  unsigned shift = 0, step = 1;
};

std::vector<Case> cases() {
  auto synth = [](uint32_t w, uint32_t h, unsigned b) { return test::cambi_synth_luma(w, h, b, 2); };
  auto grad = [](uint32_t w, uint32_t h, unsigned b) { return test::cambi_synth_gradient(w, h, b, 1); };
  auto blk = [](uint32_t w, uint32_t h, unsigned b) { return blocks(w, h, b, w * 31 + h); };
  auto rnd = [](uint32_t w, uint32_t h, unsigned b) { return noise(w, h, b, w + h, false); };
  auto ext = [](uint32_t w, uint32_t h, unsigned b) { return noise(w, h, b, w * h, true); };
  auto steps = [](uint32_t w, uint32_t h, unsigned b) { return test::cambi_synth_steps(w, h, b, 3); };
  auto fine = [](uint32_t w, uint32_t h, unsigned b) {
    std::vector<uint16_t> v(size_t(w) * h);
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) v[size_t(y) * w + x] = uint16_t((100u + (x / 12 + y / 6) % 3) << (b - 10));
    return v;
  };
  auto flat_max = [](uint32_t w, uint32_t h, unsigned b) {
    return std::vector<uint16_t>(size_t(w) * h, uint16_t((1u << b) - 1));
  };
  return {
      {"synth 640x360 8-bit", 640, 360, 8, synth, ""},
      {"synth 333x217 8-bit", 333, 217, 8, synth, ""},
      {"synth 333x217 10-bit P010 step 2", 333, 217, 10, synth, "", 6, 2},
      {"blocks 640x360 10-bit", 640, 360, 10, blk, "max_log_contrast=5"},
      {"fine steps 640x360 10-bit mlc 0", 640, 360, 10, fine, "max_log_contrast=0:window_size=15"},
      {"blocks 400x300 12-bit pq", 400, 300, 12, blk, "eotf=pq:tvi_threshold=0.005:max_log_contrast=3"},
      {"gradient 400x300 16-bit vlt", 400, 300, 16, grad, "cambi_vis_lum_threshold=20"},
      {"synth 640x360 10-bit dithered", 640, 360, 10, synth, "enc_bitdepth=8"},
      {"synth 640x360 8-bit resized", 640, 360, 8, synth, "enc_width=500:enc_height=281"},
      {"synth 640x360 10-bit topk", 640, 360, 10, synth, "topk=0.05:cambi_topk=0.9"},
      {"synth 640x360 8-bit all pixels", 640, 360, 8, synth, "cambi_topk=1"},
      {"noise 300x220 10-bit", 300, 220, 10, rnd, ""},
      {"extremes 300x220 8-bit", 300, 220, 8, ext, ""},
      {"max 300x220 10-bit", 300, 220, 10, flat_max, ""},
      {"max 300x220 16-bit", 300, 220, 16, flat_max, ""},
      {"thin 216x2", 216, 2, 8, steps, ""},
      {"thin 1x216", 1, 216, 8, steps, ""},
      {"thin 217x3 10-bit", 217, 3, 10, steps, ""},
      {"steps 220x40 10-bit ws 127", 220, 40, 10, steps, "window_size=127:topk=1"},
      {"thin 216x16", 216, 16, 8, blk, ""},
      {"gradient 1920x1080 hrs", 1920, 1080, 8, grad, "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06"},
      {"gradient 1920x1080", 1920, 1080, 10, grad, ""},
  };
}

class CambiImpl : public ::testing::TestWithParam<Case> {};

TEST_P(CambiImpl, EveryStageEqualsTheCpuReference) {
  const Case& c = GetParam();
  cpu::CambiOptions o;
  ASSERT_OK(parse_options(c.options, &o));
  cpu::CambiPlan plan;
  ASSERT_OK(cpu::cambi_plan(c.w, c.h, c.bpc, o, &plan));
  const std::vector<uint16_t> samples = c.content(c.w, c.h, c.bpc);
  const Stored in = store(samples, c.w, c.h, c.bpc, c.shift, c.step);
  check_picture(c.name, plan, plan.dist, in);
}

INSTANTIATE_TEST_SUITE_P(Contents, CambiImpl, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           std::string n = i.param.name;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// A visibility threshold exactly at the value where the band closes: a band of 0 values, every c-value 0.
TEST(CambiImplBand, EmptyBandGivesZero) {
  cpu::CambiOptions o;
  o.max_log_contrast = 0;
  cpu::CambiPlan plan;
  ASSERT_OK(cpu::cambi_plan(640, 360, 8, o, &plan));
  const int closing = int(plan.tvi_for_diff[0]) + 3;  // vlt_luma - 3 * num_diffs + 1 = tvi + 1
  o.cambi_vis_lum_threshold = cpu::cambi_luminance(closing, false);
  ASSERT_OK(cpu::cambi_plan(640, 360, 8, o, &plan));
  ASSERT_EQ(plan.vlt_luma, closing);
  ASSERT_TRUE(plan.band_empty);
  const Stored in = store(test::cambi_synth_luma(640, 360, 8, 0), 640, 360, 8);
  check_picture("empty band", plan, plan.dist, in);
  EXPECT_EQ(emulate_picture(plan, plan.dist, in).raw, 0.0);
}

TEST(CambiImplRows, ChunksOfAnyHeightGiveTheSameCValues) {
  cpu::CambiPlan plan;
  ASSERT_OK(cpu::cambi_plan(400, 300, 8, cpu::CambiOptions{}, &plan));
  const Stored in = store(test::cambi_synth_luma(400, 300, 8, 5), 400, 300, 8);
  for (unsigned rows : {1u, 2u, 7u, 13u, 300u}) check_picture("rows " + std::to_string(rows), plan, plan.dist, in,
                                                             nullptr, rows);
}

// The top-k sum of 4K content large enough that libvmaf's double sum rounds: the host pools that scale, and the
// emulated GPU still equals the CPU.
TEST(CambiImplPool, FourKContentTakesTheHostPoolingAndStillMatches) {
  cpu::CambiPlan plan;
  ASSERT_OK(cpu::cambi_plan(3840, 2160, 8, cpu::CambiOptions{}, &plan));
  const Stored in = store(test::cambi_synth_luma(3840, 2160, 8, 0), 3840, 2160, 8);
  unsigned host = 0;
  check_picture("synth 3840x2160", plan, plan.dist, in, &host);
  EXPECT_GE(host, 1u) << "expected scale 0 to need libvmaf's summation order";
  std::printf("synth 3840x2160 8-bit: %u of %u scales pooled on the host\n", host, kScales);
}

// Selection corner cases on synthetic c-value lists: ties at the threshold, k equal to the non-zero count, fewer
// non-zero values than k, all zeros, one value, values in one coarse bin, the largest and smallest c-values.
TEST(CambiImplPool, SelectionEdges) {
  std::mt19937 rng(7);
  auto run = [&](const std::vector<float>& v, uint32_t k, const char* what) {
    SCOPED_TRACE(what);
    CambiPoolState st;
    std::memset(&st, 0, sizeof st);
    CambiPoolResult r{};
    CambiPoolArgs a{};
    a.values = v.data();
    a.state = &st;
    a.result = &r;
    a.n = uint32_t(v.size());
    a.k = k;
    for (unsigned blocks : {1u, 2u, 5u}) {
      std::memset(&st, 0, sizeof st);
      r = CambiPoolResult{};
      emulate_pool(a, blocks);
      ASSERT_EQ(r.flags, CAMBI_POOL_DONE);
      EXPECT_TRUE(r.total == sorted_topk_units(v, k)) << "blocks " << blocks;
    }
    // libvmaf's mean where the selection says the summation is exact.
    if (cambi_pool_exact(r)) {
      std::vector<float> w(v);
      double topk = double(k) / double(v.size());
      // cambi_pool takes topk; choose inputs where k = topk * n exactly.
      if (cpu::cambi_topk_count(uint32_t(v.size()), topk) == k) {
        EXPECT_EQ(std::ldexp(double(r.total), -24) / k, cpu::cambi_pool(w.data(), uint32_t(w.size()), topk));
      }
    }
  };
  std::vector<float> ties(4096, 3.5f);
  for (size_t i = 0; i < ties.size(); i += 3) ties[i] = 7.25f;
  run(ties, 2000, "ties");
  std::vector<float> sparse(5000, 0.0f);
  for (size_t i = 0; i < sparse.size(); i += 7) sparse[i] = 0.5f + float(rng() % 1000) / 8.0f;
  run(sparse, 3000, "fewer non-zero than k");
  run(sparse, 715, "k equal to the non-zero count");
  run(std::vector<float>(1000, 0.0f), 600, "zeros");
  run(std::vector<float>(1, 9506.25f), 1, "one value");
  std::vector<float> one_bin(3000);
  for (auto& x : one_bin) x = 100.0f + float(rng() % 128) / 256.0f;  // bits >> 16 all alike
  run(one_bin, 1777, "one coarse bin");
  std::vector<float> extremes(3000);
  for (auto& x : extremes) x = (rng() & 1) ? 0.5f : 16383.99f;
  run(extremes, 1500, "smallest and largest");
  // A negative value is out of range (never produced; the selection must flag it, not count it).
  std::vector<float> neg(100, 1.0f);
  neg[50] = -1.0f;
  CambiPoolState st;
  std::memset(&st, 0, sizeof st);
  CambiPoolResult r{};
  CambiPoolArgs a{neg.data(), &st, &r, 100, 10};
  emulate_pool(a, 1);
  EXPECT_EQ(r.flags, CAMBI_POOL_DONE | CAMBI_POOL_BAD);
}

TEST(CambiImplPool, ExactnessBound) {
  CambiPoolResult r{};
  r.total = (uint64_t(1) << 53) - 1;
  r.min_exp = -1;  // values >= 0.5: multiples of 2^-24 = 1 unit
  EXPECT_TRUE(cambi_pool_exact(r));
  r.total = uint64_t(1) << 53;
  EXPECT_FALSE(cambi_pool_exact(r));
  r.min_exp = 0;  // multiples of 2 units
  EXPECT_TRUE(cambi_pool_exact(r));
  r.min_exp = 13;
  r.total = ~uint64_t(0);
  EXPECT_TRUE(cambi_pool_exact(r));
  r.total = 0;
  r.min_exp = -127;
  EXPECT_TRUE(cambi_pool_exact(r));
}

// Whole pictures: the emulated kernels' score equals cpu::Cambi's for the public pairs' first frames and for full
// reference and resized options.
TEST(CambiImplScore, PicturesScoreAsTheCpuReference) {
  std::vector<std::string> absent;
  const std::vector<test::Pair> pairs = test::oracle_pairs_420(&absent);
  std::vector<std::string> checked;
  for (const test::Pair& p : pairs) {
    test::PairClips c;
    ASSERT_OK(test::open_pair_clips(p, &c));
    for (const char* options :
         {"", "cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17",
          "full_ref=true:enc_width=300:enc_height=200:src_width=400:src_height=240"}) {
      cpu::CambiOptions o;
      ASSERT_OK(parse_options(options, &o));
      cpu::Cambi cambi;
      ASSERT_OK(cambi.init(p.width, p.height, p.bpc, o));
      const size_t frame = c.ref.frames() / 2;
      const cpu::Plane dist = cpu::luma_plane(c.dist.frame(frame)), ref = cpu::luma_plane(c.ref.frame(frame));
      cpu::CambiScores want;
      ASSERT_OK(cambi.compute(ref, dist, &want));
      auto as_stored = [&](const cpu::Plane& pl) {
        std::vector<uint16_t> s(size_t(pl.w) * pl.h);
        for (uint32_t y = 0; y < pl.h; ++y)
          for (uint32_t x = 0; x < pl.w; ++x) s[size_t(y) * pl.w + x] = uint16_t(pl.at(x, y));
        return store(s, pl.w, pl.h, p.bpc);
      };
      const cpu::CambiPlan& plan = cambi.plan();
      const Emulated ed = emulate_picture(plan, plan.dist, as_stored(dist));
      double ref_raw = 0;
      if (plan.full_ref) ref_raw = emulate_picture(plan, plan.ref, as_stored(ref)).raw;
      cpu::CambiScores got;
      cpu::cambi_finish_scores(plan, ed.raw, ref_raw, &got);
      EXPECT_EQ(got.cambi, want.cambi) << p.name() << " " << options;
      EXPECT_EQ(got.source, want.source) << p.name() << " " << options;
      EXPECT_EQ(got.full_reference, want.full_reference) << p.name() << " " << options;
    }
    checked.push_back(p.name());
  }
  test::print_pair_coverage(checked, absent);
}

}  // namespace
}  // namespace vmafx
