// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU features' SIMD kernels (engine/cpu/simd/kernels.h) against the scalar functions, for every SIMD level this
// CPU supports.
#include <cstring>
#include <string>
#include <vector>

#include "checkasm.h"
#include "cpu/motion.h"
#include "cpu/psnr.h"
#include "cpu/simd/kernels.h"
#include "cpu/ms_ssim.h"
#include "cpu/ssim.h"
#include "cpu/vif.h"

namespace vmafx::checkasm {

namespace {

using namespace vmafx::cpu;
using test::EdgePattern;

std::string size_text(uint32_t w, uint32_t h) { return std::to_string(w) + "x" + std::to_string(h); }

// ---- images of one VIF scale ---------------------------------------------------------------------------------------

// bench: the input of --bench; outputs then go to one row buffer, reused for every row, as the features use them
// (a whole output plane would time memory traffic, not the function).
struct Images {
  bool bench = false;
  unsigned scale = 0, bpc = 8;
  uint32_t w = 0, h = 0;
  ptrdiff_t stride = 0;
  std::vector<uint16_t> ref, dist;
};

// Scale 0 holds bpc-bit samples; higher scales hold 16-bit means (any value).
// depth 0: any of 8..16.
Images gen_images(EdgeRng& rng, unsigned scale, unsigned min_size, std::string* desc, unsigned depth = 0) {
  Images im;
  im.scale = scale;
  im.bpc = depth ? depth : test::edge_bit_depth(rng, true);
  test::edge_size(rng, min_size, 150, min_size, 40, kVifFilterWidth[scale] / 2, &im.w, &im.h);
  im.stride = ptrdiff_t(im.w) + rng.below(6);
  const uint32_t max = scale == 0 ? (1u << im.bpc) - 1 : 65535;
  im.ref.assign(size_t(im.stride) * im.h, 0xBEEF);
  im.dist.assign(size_t(im.stride) * im.h, 0xBEEF);
  const EdgePattern p = test::random_edge_pattern(rng);
  test::fill_edge_plane(rng, p, max, im.w, im.h, im.ref.data(), im.stride);
  test::fill_edge_distorted(rng, im.ref.data(), max, im.w, im.h, im.stride, im.dist.data());
  *desc = size_text(im.w, im.h) + " " + std::to_string(im.bpc) + "-bit " + test::edge_pattern_name(p);
  return im;
}

Images bench_images(unsigned scale, unsigned bpc, uint32_t w, uint32_t h) {
  EdgeRng rng(42);
  Images im;
  im.bench = true;
  im.scale = scale;
  im.bpc = bpc;
  im.w = w;
  im.h = h;
  im.stride = w;
  im.ref.resize(size_t(w) * h);
  im.dist.resize(size_t(w) * h);
  const uint32_t max = scale == 0 ? (1u << bpc) - 1 : 65535;
  test::fill_edge_plane(rng, EdgePattern::ramp, max, w, h, im.ref.data(), w);
  test::fill_edge_distorted(rng, im.ref.data(), max, w, h, w, im.dist.data());
  return im;
}

struct Five {
  uint32_t w = 0, h = 0;
  std::vector<uint32_t> v[5];
  void resize(uint32_t ww, uint32_t hh) {
    if (w == ww && h == hh && v[0].size() == size_t(w) * h) return;
    w = ww;
    h = hh;
    for (auto& a : v) a.assign(size_t(w) * h, 0);
  }
};

Mismatch compare_five(const Five& a, const Five& b, const char* const names[5]) {
  for (int i = 0; i < 5; ++i)
    if (Mismatch m = first_mismatch(names[i], a.v[i].data(), b.v[i].data(), a.w, a.h, a.w)) return m;
  return {};
}

const char* const kVerticalNames[5] = {"mu1", "mu2", "rr", "dd", "rd"};
const char* const kFilteredNames[5] = {"mu1", "mu2", "xx", "yy", "xy"};

void run_vertical(decltype(&vif_vertical_row) f, const Images& im, Five* o) {
  o->resize(im.w, im.bench ? 1 : im.h);
  for (uint32_t y = 0; y < im.h; ++y) {
    const size_t r = im.bench ? 0 : size_t(y) * im.w;
    f(im.scale, im.bpc, im.ref.data(), im.dist.data(), im.stride, im.w, im.h, y,
      {o->v[0].data() + r, o->v[1].data() + r, o->v[2].data() + r, o->v[3].data() + r, o->v[4].data() + r});
  }
}

// ---- rows of the vertical pass (input of the horizontal pass) ---------------------------------------------------------

struct Rows {
  bool bench = false;
  unsigned scale = 0;
  uint32_t w = 0, h = 0;
  std::vector<uint32_t> v[5];
};

Rows rows_from(const Images& im) {
  Five f;
  run_vertical(vif_vertical_row, im, &f);
  Rows r;
  r.scale = im.scale;
  r.w = im.w;
  r.h = im.h;
  for (int i = 0; i < 5; ++i) r.v[i] = std::move(f.v[i]);
  return r;
}
Rows bench_rows(unsigned scale, uint32_t w, uint32_t h) {
  Images im = bench_images(scale, 8, w, h);
  im.bench = false;
  Rows r = rows_from(im);
  r.bench = true;
  return r;
}

Rows gen_rows(EdgeRng& rng, unsigned scale, std::string* desc) {
  const unsigned half = kVifFilterWidth[scale] / 2;
  if (rng.chance(50)) {
    Rows r = rows_from(gen_images(rng, scale, half + 1, desc));
    *desc += " (vertical pass)";
    return r;
  }
  // Any value in the documented ranges: means < 2^16, moments < 2^32.
  Rows r;
  r.scale = scale;
  test::edge_size(rng, half + 1, 300, 1, 3, half, &r.w, &r.h);
  for (int i = 0; i < 5; ++i) {
    r.v[i].resize(size_t(r.w) * r.h);
    const uint32_t max = i < 2 ? 65535u : 0xffffffffu;
    const bool flat = rng.chance(20);
    const uint32_t level = test::edge_u32(rng, max);
    for (uint32_t& x : r.v[i]) x = flat ? level : test::edge_u32(rng, max);
  }
  *desc = size_text(r.w, r.h) + " random rows";
  return r;
}

void run_horizontal(decltype(&vif_horizontal_row) f, const Rows& in, Five* o) {
  o->resize(in.w, in.bench ? 1 : in.h);
  for (uint32_t y = 0; y < in.h; ++y) {
    const size_t r = size_t(y) * in.w, ro = in.bench ? 0 : r;
    f(in.scale, {in.v[0].data() + r, in.v[1].data() + r, in.v[2].data() + r, in.v[3].data() + r, in.v[4].data() + r},
      in.w, {o->v[0].data() + ro, o->v[1].data() + ro, o->v[2].data() + ro, o->v[3].data() + ro, o->v[4].data() + ro});
  }
}

// ---- filtered rows (input of the statistic) ---------------------------------------------------------------------------

struct Filtered {
  uint32_t n = 0;
  double limit = kVifDefaultEnhnGainLimit;
  std::vector<uint32_t> v[5];
};

Filtered gen_filtered(EdgeRng& rng, std::string* desc) {
  Filtered f;
  f.limit = rng.chance(50) ? kVifDefaultEnhnGainLimit : (rng.chance(50) ? 1.0 : 1.0 + rng.below(990) / 10.0);
  if (rng.chance(60)) {
    Images im = gen_images(rng, rng.below(kVifScales), 9, desc);
    Rows r = rows_from(im);
    Five o;
    run_horizontal(vif_horizontal_row, r, &o);
    f.n = uint32_t(o.v[0].size());
    for (int i = 0; i < 5; ++i) f.v[i] = std::move(o.v[i]);
    *desc += " (filtered)";
  } else {
    f.n = test::EdgeRng(rng.next()).range(1, 600);
    for (int i = 0; i < 5; ++i) f.v[i].resize(f.n);
    for (uint32_t x = 0; x < f.n; ++x) {
      // Means and moments that make every branch likely: sigma near 0, near the noise floor, negative, large.
      const uint32_t mu1 = test::edge_u32(rng, 0xffffffffu), mu2 = test::edge_u32(rng, 0xffffffffu);
      const uint64_t m11 = (uint64_t(mu1) * mu1 + 2147483648u) >> 32, m22 = (uint64_t(mu2) * mu2 + 2147483648u) >> 32;
      const uint64_t m12 = (uint64_t(mu1) * mu2 + 2147483648u) >> 32;
      auto around = [&](uint64_t base) {
        switch (rng.below(4)) {
          case 0: return uint32_t(base + rng.below(1u << 18));
          case 1: return uint32_t(base + kVifSigmaNsq - 2 + rng.below(4));
          case 2: return uint32_t(base - rng.below(1000));
          default: return test::edge_u32(rng, 0xffffffffu);
        }
      };
      f.v[0][x] = mu1;
      f.v[1][x] = mu2;
      f.v[2][x] = around(m11);
      f.v[3][x] = around(m22);
      f.v[4][x] = around(m12);
    }
    *desc = std::to_string(f.n) + " random pixels";
  }
  *desc += ", gain limit " + std::to_string(f.limit);
  return f;
}

Mismatch compare_accum(const VifAccum& a, const VifAccum& b) {
  if (Mismatch m = value_mismatch("num_log", a.num_log, b.num_log)) return m;
  if (Mismatch m = value_mismatch("den_log", a.den_log, b.den_log)) return m;
  if (Mismatch m = value_mismatch("num_non_log", a.num_non_log, b.num_non_log)) return m;
  return value_mismatch("den_non_log", a.den_non_log, b.den_non_log);
}

// ---- host planes (conversion, motion, psnr) ---------------------------------------------------------------------------

struct HostPlane {
  test::EdgeLayout layout;
  uint32_t w = 0, h = 0;
  unsigned bpc = 8;
  size_t stride = 0;
  std::vector<uint8_t> bytes;
  Plane plane() const {
    Plane p;
    p.data = bytes.data();
    p.stride = ptrdiff_t(stride);
    p.w = w;
    p.h = h;
    p.bytes = uint8_t(layout.bytes);
    p.shift = uint8_t(layout.shift);
    p.step = uint8_t(layout.step);
    p.bpc = uint8_t(bpc);
    return p;
  }
};

HostPlane host_plane(EdgeRng& rng, const uint16_t* samples, uint32_t w, uint32_t h, unsigned bpc, bool any_layout) {
  HostPlane p;
  p.layout = any_layout ? test::random_edge_layout(rng, bpc) : test::EdgeLayout{bpc > 8 ? 2u : 1u, 0, 1, 0};
  p.w = w;
  p.h = h;
  p.bpc = bpc;
  p.stride = test::store_edge_layout(rng, p.layout, samples, w, h, &p.bytes);
  return p;
}

struct PlanePair {
  HostPlane a, b;
  bool bench = false;
};

PlanePair gen_pair(EdgeRng& rng, unsigned bpc, uint32_t min_size, bool same_layout, std::string* desc) {
  uint32_t w, h;
  test::edge_size(rng, min_size, 140, min_size, 30, 2, &w, &h);
  const uint32_t max = (1u << bpc) - 1;
  std::vector<uint16_t> s(size_t(w) * h), t(size_t(w) * h);
  const EdgePattern p = test::random_edge_pattern(rng);
  test::fill_edge_plane(rng, p, max, w, h, s.data(), w);
  test::fill_edge_distorted(rng, s.data(), max, w, h, w, t.data());
  PlanePair pp;
  pp.a = host_plane(rng, s.data(), w, h, bpc, true);
  pp.b = host_plane(rng, t.data(), w, h, bpc, true);
  if (same_layout && rng.chance(60)) {
    pp.b = host_plane(rng, t.data(), w, h, bpc, false);
    pp.b.layout = pp.a.layout;
    pp.b.stride = test::store_edge_layout(rng, pp.b.layout, t.data(), w, h, &pp.b.bytes);
  }
  *desc = size_text(w, h) + " " + std::to_string(bpc) + "-bit " + test::edge_pattern_name(p) + ", layouts " +
          test::edge_layout_name(pp.a.layout) + " / " + test::edge_layout_name(pp.b.layout);
  return pp;
}

PlanePair bench_pair(unsigned bpc, uint32_t w, uint32_t h) {
  EdgeRng rng(7);
  const uint32_t max = (1u << bpc) - 1;
  std::vector<uint16_t> s(size_t(w) * h), t(size_t(w) * h);
  test::fill_edge_plane(rng, EdgePattern::ramp, max, w, h, s.data(), w);
  test::fill_edge_distorted(rng, s.data(), max, w, h, w, t.data());
  return {host_plane(rng, s.data(), w, h, bpc, false), host_plane(rng, t.data(), w, h, bpc, false), true};
}

// ---- float images (SSIM, MS-SSIM) ------------------------------------------------------------------------------------

// Floats are compared as bit patterns: -0.0 against 0.0 and NaN payloads count.
std::vector<uint32_t> float_bits(const float* f, size_t n) {
  std::vector<uint32_t> b(n);
  std::memcpy(b.data(), f, n * sizeof(float));
  return b;
}

struct FloatPair {
  bool bench = false;
  int w = 0, h = 0;
  std::vector<float> a, b;
};

// Converted samples of any depth (libvmaf's divisors), or arbitrary floats (negative, tiny, large, -0.0).
FloatPair gen_floats(EdgeRng& rng, int min_w, int min_h, int max_w, int max_h, std::string* desc) {
  FloatPair f;
  uint32_t w, h;
  test::edge_size(rng, uint32_t(min_w), uint32_t(max_w), uint32_t(min_h), uint32_t(max_h), 5, &w, &h);
  f.w = int(w);
  f.h = int(h);
  const size_t n = size_t(w) * h;
  f.a.resize(n);
  f.b.resize(n);
  if (rng.chance(70)) {
    static const unsigned kDepths[] = {8, 10, 12, 16};
    const unsigned bpc = kDepths[rng.below(4)];
    const uint32_t max = (1u << bpc) - 1;
    const float div = float(1u << (bpc - 8));
    std::vector<uint16_t> s(n), t(n);
    const EdgePattern p = test::random_edge_pattern(rng);
    test::fill_edge_plane(rng, p, max, w, h, s.data(), w);
    test::fill_edge_distorted(rng, s.data(), max, w, h, w, t.data());
    for (size_t i = 0; i < n; ++i) {
      f.a[i] = float(s[i]) / div;
      f.b[i] = float(t[i]) / div;
    }
    *desc = size_text(w, h) + " " + std::to_string(bpc) + "-bit " + test::edge_pattern_name(p);
  } else {
    auto any = [&]() {
      switch (rng.below(6)) {
        case 0: return 0.0f;
        case 1: return -0.0f;
        case 2: return float(int(rng.below(2001)) - 1000) * 1e-30f;
        case 3: return float(rng.below(1u << 24)) / 65536.0f;
        default: return float(int(rng.below(2000001)) - 1000000) / 997.0f;
      }
    };
    for (size_t i = 0; i < n; ++i) {
      f.a[i] = any();
      f.b[i] = any();
    }
    *desc = size_text(w, h) + " arbitrary floats";
  }
  return f;
}

FloatPair bench_floats(int w, int h) {
  EdgeRng rng(11);
  FloatPair f;
  f.bench = true;
  f.w = w;
  f.h = h;
  std::vector<uint16_t> s(size_t(w) * h), t(size_t(w) * h);
  test::fill_edge_plane(rng, EdgePattern::ramp, 255, uint32_t(w), uint32_t(h), s.data(), uint32_t(w));
  test::fill_edge_distorted(rng, s.data(), 255, uint32_t(w), uint32_t(h), w, t.data());
  f.a.assign(s.begin(), s.end());
  f.b.assign(t.begin(), t.end());
  return f;
}

struct Bits {
  int w = 0, h = 0;
  std::vector<uint32_t> v;
};
Mismatch compare_bits(const char* what, const Bits& a, const Bits& b) {
  if (a.w != b.w || a.h != b.h) return value_mismatch("output size", a.w * 100000 + a.h, b.w * 100000 + b.h);
  return first_mismatch(what, a.v.data(), b.v.data(), uint32_t(a.w), uint32_t(a.h), a.w);
}

Mismatch compare_means(const SsimMeans& a, const SsimMeans& b) {
  const float fa[4] = {a.ssim, a.l, a.c, a.s}, fb[4] = {b.ssim, b.l, b.c, b.s};
  const char* names[4] = {"ssim (bits)", "l (bits)", "c (bits)", "s (bits)"};
  for (int i = 0; i < 4; ++i)
    if (Mismatch m = value_mismatch(names[i], float_bits(fa + i, 1)[0], float_bits(fb + i, 1)[0])) return m;
  return {};
}

struct MomentsOut {
  Bits maps[5];
};

void run_moments(decltype(&ssim_moments_scalar) f, const FloatPair& in, MomentsOut* o) {
  thread_local SsimMoments m;
  (void)m.reserve(in.w, in.h);
  f(in.a.data(), in.b.data(), in.w, in.h, &m);
  if (in.bench) return;
  const std::vector<float>* v[5] = {&m.mu_ref, &m.mu_dist, &m.var_ref, &m.var_dist, &m.cov};
  for (int i = 0; i < 5; ++i) o->maps[i] = {m.w, m.h, float_bits(v[i]->data(), size_t(m.w) * m.h)};
}

// ---- registration -----------------------------------------------------------------------------------------------------

void add_level(Registry& reg, SimdLevel level) {
  const VifKernels& s = *vif_kernels_for(SimdLevel::scalar);
  const VifKernels* v = vif_kernels_for(level);
  const MotionKernels& ms = *motion_kernels_for(SimdLevel::scalar);
  const MotionKernels* mv = motion_kernels_for(level);
  const PsnrKernels& ps = *psnr_kernels_for(SimdLevel::scalar);
  const PsnrKernels* pv = psnr_kernels_for(level);
  const std::string isa = simd_level_name(level);
  const std::string ref = "scalar";

  if (v) {
    for (unsigned scale = 0; scale < kVifScales; ++scale) {
      const std::string sfx = "/s" + std::to_string(scale);
      const uint32_t bw = 1920 >> scale, bh = 1080 >> scale;
      const unsigned min_size = kVifFilterWidth[scale] / 2 + 1;
      for (unsigned bench_bpc : {8u, 10u}) {
        if (scale > 0 && bench_bpc == 10) continue;  // scales > 0 read 16-bit means whatever the depth
        const std::string name = "vif_vertical_row" + sfx + (scale == 0 ? "/" + std::to_string(bench_bpc) + "b" : "");
        // Scale 0: 8-bit samples (32-bit sums) apart from deeper ones (64-bit sums).
        auto gen = [scale, min_size, bench_bpc](EdgeRng& rng, std::string* d) {
          const unsigned depth = scale > 0 ? 0 : bench_bpc == 8 ? 8 : rng.range(9, 16);
          return gen_images(rng, scale, min_size, d, depth);
        };
        reg.add(make_check<Images, Five>(
            name, ref, isa, gen, [f = s.vertical_row](const Images& i, Five* o) { run_vertical(f, i, o); },
            [f = v->vertical_row](const Images& i, Five* o) { run_vertical(f, i, o); },
            [](const Five& a, const Five& b) { return compare_five(a, b, kVerticalNames); },
            [scale, bench_bpc, bw, bh]() { return bench_images(scale, bench_bpc, bw, bh); }));
      }
      reg.add(make_check<Rows, Five>(
          "vif_horizontal_row" + sfx, ref, isa, [scale](EdgeRng& rng, std::string* d) { return gen_rows(rng, scale, d); },
          [f = s.horizontal_row](const Rows& i, Five* o) { run_horizontal(f, i, o); },
          [f = v->horizontal_row](const Rows& i, Five* o) { run_horizontal(f, i, o); },
          [](const Five& a, const Five& b) { return compare_five(a, b, kFilteredNames); },
          [scale, bw, bh]() { return bench_rows(scale, bw, bh); }));
      if (scale < kVifScales - 1) {
        const unsigned dmin = kVifFilterWidth[scale + 1] / 2 + 1;
        auto run_dec = [](decltype(&vif_decimate) f, const Images& im, Five* o) {
          o->resize(im.w / 2, im.h / 2);
          std::vector<uint32_t> scratch(2 * size_t(im.w));
          std::vector<uint16_t> r(size_t(o->w) * o->h + 1, 0xAAAA), d(size_t(o->w) * o->h + 1, 0x5555);
          f(im.scale, im.bpc, im.ref.data(), im.dist.data(), im.stride, im.w, im.h, r.data(), d.data(), o->w,
            scratch.data());
          for (size_t i = 0; i < o->v[0].size(); ++i) {
            o->v[0][i] = r[i];
            o->v[1][i] = d[i];
          }
          o->v[2].assign(1, r.back());  // the sentinels past the output must survive
          o->v[3].assign(1, d.back());
        };
        reg.add(make_check<Images, Five>(
            "vif_decimate" + sfx, ref, isa,
            [scale, dmin](EdgeRng& rng, std::string* d) { return gen_images(rng, scale, std::max(dmin, 2u), d); },
            [f = s.decimate, run_dec](const Images& i, Five* o) { run_dec(f, i, o); },
            [f = v->decimate, run_dec](const Images& i, Five* o) { run_dec(f, i, o); },
            [](const Five& a, const Five& b) {
              const char* names[5] = {"ref_out", "dist_out", "ref sentinel", "dist sentinel", "-"};
              for (int i = 0; i < 2; ++i)
                if (Mismatch m = first_mismatch(names[i], a.v[i].data(), b.v[i].data(), a.w, a.h, a.w)) return m;
              for (int i = 2; i < 4; ++i)
                if (Mismatch m = value_mismatch(names[i], a.v[i][0], b.v[i][0])) return m;
              return Mismatch{};
            },
            [scale, bw, bh]() { return bench_images(scale, 8, bw, bh); }));
      }
    }
    reg.add(make_check<Filtered, VifAccum>(
        "vif_accumulate", ref, isa, gen_filtered,
        [f = s.accumulate](const Filtered& i, VifAccum* a) {
          f({i.v[0].data(), i.v[1].data(), i.v[2].data(), i.v[3].data(), i.v[4].data()}, i.n, i.limit, a);
        },
        [f = v->accumulate](const Filtered& i, VifAccum* a) {
          f({i.v[0].data(), i.v[1].data(), i.v[2].data(), i.v[3].data(), i.v[4].data()}, i.n, i.limit, a);
        },
        compare_accum,
        []() {
          Rows r = bench_rows(0, 1920, 1080);
          r.bench = false;
          Five o;
          run_horizontal(vif_horizontal_row, r, &o);
          Filtered f;
          f.n = uint32_t(o.v[0].size());
          for (int i = 0; i < 5; ++i) f.v[i] = std::move(o.v[i]);
          return f;
        }));
    auto run_load = [](decltype(&vif_load_plane) f, const HostPlane& p, Five* o) {
      thread_local std::vector<uint16_t> out;
      out.assign(size_t(p.w + 3) * p.h, 0xCDCD);
      f(p.plane(), out.data(), p.w + 3);
      o->resize(p.w + 3, p.h);
      for (size_t i = 0; i < out.size(); ++i) o->v[0][i] = out[i];
    };
    reg.add(make_check<HostPlane, Five>(
        "vif_load_plane", ref, isa,
        [](EdgeRng& rng, std::string* d) {
          PlanePair pp = gen_pair(rng, test::edge_bit_depth(rng, true), 1, false, d);
          return std::move(pp.a);
        },
        [f = s.load_plane, run_load](const HostPlane& p, Five* o) { run_load(f, p, o); },
        [f = v->load_plane, run_load](const HostPlane& p, Five* o) { run_load(f, p, o); },
        [](const Five& a, const Five& b) { return first_mismatch("sample", a.v[0].data(), b.v[0].data(), a.w, a.h, a.w); },
        []() { return bench_pair(8, 1920, 1080).a; }));
  }

  if (mv) {
    auto run_blur = [](decltype(&motion_blur_diff_row) f, const PlanePair& pp, Five* o) {
      o->resize(pp.a.w, pp.bench ? 1 : pp.a.h);
      thread_local std::vector<int32_t> row;
      row.resize(pp.a.w);
      for (uint32_t y = 0; y < pp.a.h; ++y) {
        f(pp.a.plane(), pp.b.plane(), y, row.data());
        if (pp.bench) continue;
        for (uint32_t x = 0; x < pp.a.w; ++x) o->v[0][size_t(y) * pp.a.w + x] = uint32_t(row[x]);
      }
    };
    reg.add(make_check<PlanePair, Five>(
        "motion_blur_diff_row", ref, isa,
        [](EdgeRng& rng, std::string* d) { return gen_pair(rng, test::edge_bit_depth(rng, true), kMotionMinSize, false, d); },
        [f = ms.blur_diff_row, run_blur](const PlanePair& p, Five* o) { run_blur(f, p, o); },
        [f = mv->blur_diff_row, run_blur](const PlanePair& p, Five* o) { run_blur(f, p, o); },
        [](const Five& a, const Five& b) { return first_mismatch("blurred difference", a.v[0].data(), b.v[0].data(), a.w, a.h, a.w); },
        []() { return bench_pair(8, 1920, 1080); }));
    struct SadRow {
      std::vector<int32_t> v;
    };
    reg.add(make_check<SadRow, uint32_t>(
        "motion_row_sad", ref, isa,
        [](EdgeRng& rng, std::string* d) {
          uint32_t w, h;
          test::edge_size(rng, kMotionMinSize, 400, 1, 1, 2, &w, &h);
          SadRow r;
          r.v.resize(w);
          const bool extreme = rng.chance(30);
          for (int32_t& x : r.v)
            x = extreme ? (rng.chance(50) ? 65536 : -65536) : int32_t(rng.below(131073)) - 65536;
          *d = std::to_string(w) + (extreme ? " samples at +-2^16" : " random samples");
          return r;
        },
        [f = ms.row_sad](const SadRow& r, uint32_t* o) { *o = f(r.v.data(), uint32_t(r.v.size())); },
        [f = mv->row_sad](const SadRow& r, uint32_t* o) { *o = f(r.v.data(), uint32_t(r.v.size())); },
        [](const uint32_t& a, const uint32_t& b) { return value_mismatch("row sad", a, b); },
        []() {
          EdgeRng rng(3);
          SadRow r;
          r.v.resize(1920 * 1080);
          for (int32_t& x : r.v) x = int32_t(rng.below(2001)) - 1000;
          return r;
        }));
  }

  if (const SsimKernels* sv = ssim_kernels_for(level)) {
    const SsimKernels& ss = *ssim_kernels_for(SimdLevel::scalar);
    auto run_convert = [](decltype(&plane_to_float_scalar) f, const HostPlane& p, Bits* o) {
      thread_local std::vector<float> out;
      out.assign(size_t(p.w + 2) * p.h, -1.0f);
      f(p.plane(), float(1u << (p.bpc - 8)), out.data(), p.w + 2);
      if (p.h == 1080) return;  // the --bench input
      *o = {int(p.w + 2), int(p.h), float_bits(out.data(), out.size())};
    };
    reg.add(make_check<HostPlane, Bits>(
        "ssim_plane_to_float", ref, isa,
        [](EdgeRng& rng, std::string* d) {
          static const unsigned kDepths[] = {8, 10, 12, 16};
          PlanePair pp = gen_pair(rng, kDepths[rng.below(4)], 1, false, d);
          return std::move(pp.a);
        },
        [f = ss.plane_to_float, run_convert](const HostPlane& p, Bits* o) { run_convert(f, p, o); },
        [f = sv->plane_to_float, run_convert](const HostPlane& p, Bits* o) { run_convert(f, p, o); },
        [](const Bits& a, const Bits& b) { return compare_bits("float (bits)", a, b); },
        []() { return bench_pair(8, 1920, 1080).a; }));
    auto run_gauss = [](decltype(&ssim_gaussian_valid_scalar) f, const FloatPair& in, Bits* o) {
      thread_local std::vector<float> tmp, out;
      tmp.assign(in.a.size(), 0.f);
      out.assign(in.a.size(), 0.f);
      f(in.a.data(), in.w, in.h, tmp.data(), out.data());
      if (in.bench) return;
      const int dw = in.w - kSsimWindow + 1, dh = in.h - kSsimWindow + 1;
      *o = {dw, dh, float_bits(out.data(), size_t(dw) * dh)};
    };
    reg.add(make_check<FloatPair, Bits>(
        "ssim_gaussian_valid", ref, isa,
        [](EdgeRng& rng, std::string* d) { return gen_floats(rng, kSsimWindow, kSsimWindow, 160, 40, d); },
        [f = ss.gaussian_valid, run_gauss](const FloatPair& p, Bits* o) { run_gauss(f, p, o); },
        [f = sv->gaussian_valid, run_gauss](const FloatPair& p, Bits* o) { run_gauss(f, p, o); },
        [](const Bits& a, const Bits& b) { return compare_bits("filtered (bits)", a, b); },
        []() { return bench_floats(960, 540); }));
    reg.add(make_check<FloatPair, MomentsOut>(
        "ssim_moments", ref, isa,
        [](EdgeRng& rng, std::string* d) { return gen_floats(rng, kSsimWindow, kSsimWindow, 160, 40, d); },
        [f = ss.moments](const FloatPair& p, MomentsOut* o) { run_moments(f, p, o); },
        [f = sv->moments](const FloatPair& p, MomentsOut* o) { run_moments(f, p, o); },
        [](const MomentsOut& a, const MomentsOut& b) {
          const char* names[5] = {"mu_ref (bits)", "mu_dist (bits)", "var_ref (bits)", "var_dist (bits)",
                                  "cov (bits)"};
          for (int i = 0; i < 5; ++i)
            if (Mismatch m = compare_bits(names[i], a.maps[i], b.maps[i])) return m;
          return Mismatch{};
        },
        []() { return bench_floats(480, 270); }));
    // Pooling: moments of real and arbitrary images (the scalar moments), sometimes with negated covariances.
    struct PoolIn {
      SsimMoments m;
    };
    reg.add(make_check<std::shared_ptr<PoolIn>, SsimMeans>(
        "ssim_pool", ref, isa,
        [](EdgeRng& rng, std::string* d) {
          FloatPair f = gen_floats(rng, kSsimWindow, kSsimWindow, 160, 40, d);
          auto p = std::make_shared<PoolIn>();
          (void)p->m.reserve(f.w, f.h);
          ssim_moments_scalar(f.a.data(), f.b.data(), f.w, f.h, &p->m);
          if (rng.chance(30)) {
            for (size_t i = 0; i < size_t(p->m.w) * p->m.h; ++i)
              if (rng.chance(30)) p->m.cov[i] = -p->m.cov[i];
            *d += ", covariances negated";
          }
          return p;
        },
        [f = ss.pool](const std::shared_ptr<PoolIn>& p, SsimMeans* o) { *o = f(p->m); },
        [f = sv->pool](const std::shared_ptr<PoolIn>& p, SsimMeans* o) { *o = f(p->m); }, compare_means,
        []() {
          FloatPair f = bench_floats(480, 270);
          auto p = std::make_shared<PoolIn>();
          (void)p->m.reserve(f.w, f.h);
          ssim_moments_scalar(f.a.data(), f.b.data(), f.w, f.h, &p->m);
          return p;
        }));
    // Decimation: MS-SSIM's 9x9 low-pass at factor 2 and SSIM's box kernels at factors 2..8.
    struct DecIn {
      FloatPair img;
      int factor = 2;
      std::vector<float> kernel;
      int kw = 0, kh = 0;
    };
    auto run_dec = [](decltype(&decimate_scalar) f, const DecIn& in, Bits* o) {
      const int sw = decimated_size(in.img.w, in.factor), sh = decimated_size(in.img.h, in.factor);
      thread_local std::vector<float> out;
      out.assign(size_t(sw) * sh + 1, 12345.0f);
      int dw = 0, dh = 0;
      f(in.img.a.data(), in.img.w, in.img.h, in.factor, in.kernel.data(), in.kw, in.kh, out.data(), &dw, &dh);
      if (in.img.bench) return;
      *o = {dw, dh + 1, float_bits(out.data(), out.size())};  // plus the sentinel after the output
      o->v.resize(size_t(dw) * (dh + 1), 0);
    };
    for (int ms : {1, 0}) {
      reg.add(make_check<DecIn, Bits>(
          ms ? "ms_ssim_decimate" : "ssim_box_decimate", ref, isa,
          [ms](EdgeRng& rng, std::string* d) {
            DecIn in;
            if (ms) {
              in.factor = 2;
              in.kernel.assign(kMsSsimLpf, kMsSsimLpf + kMsSsimLpfLen * kMsSsimLpfLen);
              in.kw = in.kh = kMsSsimLpfLen;
            } else {
              in.factor = int(rng.range(2, 8));
              in.kernel = ssim_box_kernel(in.factor);
              in.kw = in.kh = in.factor;
            }
            // IQA's mirror reflects once: below kw / 2 + 1 samples per axis it reads outside the image (never
            // reached: MS-SSIM needs 176x176, SSIM decimates from 384 on).
            const int min = in.kw / 2 + 1;
            in.img = gen_floats(rng, min, min, 200, 40, d);
            *d += ", factor " + std::to_string(in.factor);
            return in;
          },
          [f = ss.decimate, run_dec](const DecIn& in, Bits* o) { run_dec(f, in, o); },
          [f = sv->decimate, run_dec](const DecIn& in, Bits* o) { run_dec(f, in, o); },
          [](const Bits& a, const Bits& b) { return compare_bits("decimated (bits)", a, b); },
          [ms]() {
            DecIn in;
            in.img = bench_floats(1920, 1080);
            in.factor = ms ? 2 : 4;
            in.kernel = ms ? std::vector<float>(kMsSsimLpf, kMsSsimLpf + 81) : ssim_box_kernel(4);
            in.kw = in.kh = ms ? kMsSsimLpfLen : 4;
            return in;
          }));
    }
  }

  if (pv) {
    reg.add(make_check<PlanePair, uint64_t>(
        "psnr_plane_sse", ref, isa,
        [](EdgeRng& rng, std::string* d) {
          static const unsigned kDepths[] = {8, 10, 12, 16};
          return gen_pair(rng, kDepths[rng.below(4)], 1, true, d);
        },
        [f = ps.plane_sse](const PlanePair& p, uint64_t* o) { *o = f(p.a.plane(), p.b.plane()); },
        [f = pv->plane_sse](const PlanePair& p, uint64_t* o) { *o = f(p.a.plane(), p.b.plane()); },
        [](const uint64_t& a, const uint64_t& b) { return value_mismatch("sse", a, b); },
        []() { return bench_pair(8, 1920, 1080); }));
  }
}

}  // namespace

// The mask's meaning (libvmaf's --cpumask bits) and that every level's tables exist where the level is supported.
// Returns the number of failures.
int check_cpu_selection() {
  int failed = 0;
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) {
      std::printf("FAIL cpu selection: %s\n", what.c_str());
      ++failed;
    }
  };
  const unsigned saved = cpu_mask();
  const bool a2 = simd_level_supported(SimdLevel::avx2), a5 = simd_level_supported(SimdLevel::avx512),
             ne = simd_level_supported(SimdLevel::neon);
  set_cpu_mask(0xffffffffu);
  expect(simd_level() == SimdLevel::scalar, "mask 0xffffffff gives scalar");
  expect(&vif_kernels() == vif_kernels_for(SimdLevel::scalar), "mask 0xffffffff uses the scalar VIF table");
  expect(&cambi_kernels() == cambi_kernels_for(SimdLevel::scalar), "mask 0xffffffff uses the scalar CAMBI table");
  set_cpu_mask(0);
  const SimdLevel best = a5 ? SimdLevel::avx512 : a2 ? SimdLevel::avx2 : ne ? SimdLevel::neon : SimdLevel::scalar;
  expect(simd_level() == best, std::string("mask 0 gives the best level, ") + simd_level_name(best));
  set_cpu_mask(kCpuMaskAvx512);
  expect(simd_level() == (a2 ? SimdLevel::avx2 : ne ? SimdLevel::neon : SimdLevel::scalar),
         "mask 16 forbids AVX-512 only");
  set_cpu_mask(kCpuMaskAvx2 | kCpuMaskAvx512 | kCpuMaskNeon);
  expect(simd_level() == SimdLevel::scalar, "mask 25 forbids every SIMD level");
  for (SimdLevel l : {SimdLevel::scalar, SimdLevel::avx2, SimdLevel::avx512, SimdLevel::neon}) {
    const bool sup = simd_level_supported(l);
    expect((vif_kernels_for(l) != nullptr) == sup && (motion_kernels_for(l) != nullptr) == sup &&
               (psnr_kernels_for(l) != nullptr) == sup && (ssim_kernels_for(l) != nullptr) == sup &&
               (adm_kernels_for(l) != nullptr) == sup && (cambi_kernels_for(l) != nullptr) == sup &&
               (speed_kernels_for(l) != nullptr) == sup,
           std::string("tables of ") + simd_level_name(l) + " exist exactly where it is supported");
  }
  set_cpu_mask(saved);
  std::printf("%s  cpu selection (mask bits, tables): level now %s\n", failed ? "FAIL" : "ok", simd_level_name(simd_level()));
  return failed;
}

void register_cpu_kernels(Registry& reg) {
  for (SimdLevel l : {SimdLevel::avx2, SimdLevel::avx512, SimdLevel::neon}) {
    if (simd_level_supported(l)) {
      add_level(reg, l);
    } else {
      std::printf("checkasm: %s not supported here (CPU or build): skipped\n", simd_level_name(l));
    }
  }
}

}  // namespace vmafx::checkasm
