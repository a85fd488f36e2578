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
