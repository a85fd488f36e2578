// SPDX-License-Identifier: LGPL-2.1-or-later
// SpEED's stages (engine/cpu/speed.h, simd/kernels.h SpeedKernels) of every SIMD level this CPU supports against the
// scalar ones, floats compared as bit patterns: the load of 8..16-bit planes in every layout; the antialias filter
// and the local mean at every kernel scale on loaded, prescaled (every method) and arbitrary float images (tiny,
// -0.0, large, flat); the means and covariance of decimated images of the pipeline and of arbitrary ones. Output
// buffers carry sentinels past the written area, so a write outside it shows.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "checkasm.h"
#include "cpu/simd/kernels.h"
#include "cpu/speed.h"

namespace vmafx::checkasm {

namespace {

using namespace vmafx::cpu;
using test::EdgePattern;

std::string wh(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

constexpr float kSentinel = -12345.678f;

// libvmaf's kernel scales (speed_check_options accepts these).
const double kKernelScales[] = {1.0,       0.5,         1.5,   2.0,         2.0 / 3.0,   2.4,        360.0 / 97.0,
                                4.0 / 3.0, 3.5 / 3.0,   3.75 / 3.0, 4.25 / 3.0, 5.0 / 3.0, 3.0,      1.0 / 2.25,
                                1.4746,    1.54,        1.6,   1.06667,     0.711111,    0.740740,   1.111111};
double random_kernelscale(EdgeRng& rng) {
  if (rng.chance(40)) return 1.0;
  return kKernelScales[rng.below(sizeof(kKernelScales) / sizeof(kKernelScales[0]))];
}

std::vector<uint32_t> bits_of(const float* f, size_t n) {
  std::vector<uint32_t> b(n);
  std::memcpy(b.data(), f, n * sizeof(float));
  return b;
}

struct Bits {
  int w = 0, h = 0;
  std::vector<uint32_t> v;
};
Mismatch compare_bits(const char* what, const Bits& a, const Bits& b) {
  if (a.w != b.w || a.h != b.h) return value_mismatch("output size", a.w * 100000 + a.h, b.w * 100000 + b.h);
  return first_mismatch(what, a.v.data(), b.v.data(), uint32_t(a.w), uint32_t(a.h), a.w);
}

// ---- planes --------------------------------------------------------------------------------------------------------

struct Picture {
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

// bpc: 0 for any of 8..16 (speed reads 8, 10, 12, 16; the others take the 16-bit divisor).
Picture gen_picture(EdgeRng& rng, uint32_t min_w, uint32_t max_w, uint32_t min_h, uint32_t max_h, std::string* desc,
                    bool any_layout = true) {
  static const unsigned kDepths[] = {8, 10, 12, 16};
  Picture pic;
  pic.bpc = rng.chance(80) ? kDepths[rng.below(4)] : test::edge_bit_depth(rng, true);
  test::edge_size(rng, min_w, max_w, min_h, max_h, 4, &pic.w, &pic.h);
  std::vector<uint16_t> s(size_t(pic.w) * pic.h);
  const EdgePattern p = test::random_edge_pattern(rng);
  test::fill_edge_plane(rng, p, (1u << pic.bpc) - 1, pic.w, pic.h, s.data(), pic.w);
  pic.layout = any_layout ? test::random_edge_layout(rng, pic.bpc) : test::EdgeLayout{pic.bpc > 8 ? 2u : 1u, 0, 1, 0};
  pic.stride = test::store_edge_layout(rng, pic.layout, s.data(), pic.w, pic.h, &pic.bytes);
  *desc = wh(int(pic.w), int(pic.h)) + " " + std::to_string(pic.bpc) + "-bit " + test::edge_pattern_name(p) + " " +
          test::edge_layout_name(pic.layout);
  return pic;
}

Picture bench_picture(uint32_t w, uint32_t h) {
  EdgeRng rng(5);
  Picture pic;
  pic.w = w;
  pic.h = h;
  std::vector<uint16_t> s(size_t(w) * h);
  test::fill_edge_plane(rng, EdgePattern::ramp, 255, w, h, s.data(), w);
  pic.layout = test::EdgeLayout{1, 0, 1, 0};
  pic.stride = test::store_edge_layout(rng, pic.layout, s.data(), w, h, &pic.bytes);
  return pic;
}

// ---- float images --------------------------------------------------------------------------------------------------

struct Image {
  int w = 0, h = 0;
  ptrdiff_t stride = 0;
  std::vector<float> v;  // h rows of stride
  SpeedFilters f;
  double ks = 1.0;
  bool bench = false;
};

float any_float(EdgeRng& rng) {
  switch (rng.below(8)) {
    case 0: return 0.0f;
    case 1: return -0.0f;
    case 2: return float(int(rng.below(2001)) - 1000) * 1e-38f;  // subnormal and tiny
    case 3: return float(int(rng.below(2001)) - 1000) * 1e30f;
    case 4: return float(int(rng.below(256)) - 128);
    default: return float(int(rng.below(2000001)) - 1000000) / 997.0f;
  }
}

// A w x h image: loaded samples (speed_load of a random plane), prescaled by a random method, or arbitrary floats.
Image gen_image(EdgeRng& rng, uint32_t min_w, uint32_t max_w, uint32_t min_h, uint32_t max_h, std::string* desc) {
  Image im;
  im.ks = random_kernelscale(rng);
  speed_filters(im.ks, &im.f);
  const unsigned mode = rng.below(10);
  if (mode < 6) {
    Picture pic = gen_picture(rng, min_w, max_w, min_h, max_h, desc, true);
    std::vector<float> load(size_t(pic.w) * pic.h);
    speed_load(pic.plane(), load.data(), pic.w);
    im.w = int(pic.w);
    im.h = int(pic.h);
    if (mode >= 3) {
      // Prescaled: a random factor and method; the result must still be at least min_w x min_h.
      static const double kFactors[] = {0.5, 0.6, 0.75, 0.9, 1.25, 1.5, 2.0};
      SpeedOptions o;
      o.prescale = kFactors[rng.below(7)];
      o.prescale_method = SpeedScaleMethod(rng.below(4));
      SpeedDims d;
      if (speed_dims(pic.w, pic.h, o, &d).is_ok() && d.rescale && d.scaled_w >= int(min_w) && d.scaled_h >= int(min_h)) {
        SpeedScaleTables t;
        speed_scale_tables(d, o.prescale_method, &t);
        std::vector<float> scaled(size_t(d.scaled_w) * d.scaled_h);
        speed_prescale(t, d, load.data(), pic.w, scaled.data(), d.scaled_w);
        load = std::move(scaled);
        im.w = d.scaled_w;
        im.h = d.scaled_h;
        *desc += ", prescale " + std::to_string(o.prescale) + " " + speed_scale_method_name(o.prescale_method);
      }
    }
    im.stride = im.w + ptrdiff_t(rng.below(3)) * int(rng.below(9));
    im.v.assign(size_t(im.stride) * im.h, kSentinel);
    for (int y = 0; y < im.h; y++)
      std::memcpy(im.v.data() + ptrdiff_t(y) * im.stride, load.data() + size_t(y) * im.w, size_t(im.w) * sizeof(float));
  } else {
    uint32_t w, h;
    test::edge_size(rng, min_w, max_w, min_h, max_h, uint32_t(im.f.aa_width / 2), &w, &h);
    im.w = int(w);
    im.h = int(h);
    im.stride = im.w + ptrdiff_t(rng.below(5));
    im.v.assign(size_t(im.stride) * im.h, kSentinel);
    const bool flat = rng.chance(20);
    const float level = any_float(rng);
    for (int y = 0; y < im.h; y++)
      for (int x = 0; x < im.w; x++) im.v[size_t(y) * im.stride + x] = flat ? level : any_float(rng);
    *desc = wh(im.w, im.h) + (flat ? " flat floats" : " arbitrary floats");
  }
  *desc += ", kernelscale " + std::to_string(im.ks);
  return im;
}

Image bench_image(int w, int h) {
  EdgeRng rng(9);
  Image im;
  im.bench = true;
  speed_filters(1.0, &im.f);
  im.w = w;
  im.h = h;
  im.stride = w;
  Picture pic = bench_picture(uint32_t(w), uint32_t(h));
  im.v.resize(size_t(w) * h);
  speed_load(pic.plane(), im.v.data(), w);
  return im;
}

// ---- decimated images (covariance) -----------------------------------------------------------------------------------

struct Decimated {
  SpeedDims d;
  ptrdiff_t stride = 0;
  std::vector<float> v;
};

Decimated gen_decimated(EdgeRng& rng, std::string* desc) {
  Decimated dc;
  if (rng.chance(50)) {
    // The pipeline: load, prescale, antialias, local mean of a random plane with random options.
    Picture pic = gen_picture(rng, 80, 700, 80, 260, desc, true);
    SpeedOptions o;
    o.kernelscale = random_kernelscale(rng);
    if (rng.chance(40)) {
      static const double kFactors[] = {0.75, 0.9, 1.25, 1.5, 2.0};
      o.prescale = kFactors[rng.below(5)];
      o.prescale_method = SpeedScaleMethod(rng.below(4));
    }
    SpeedDims d;
    if (!speed_dims(pic.w, pic.h, o, &d).is_ok()) {
      o.prescale = 1.0;
      (void)speed_dims(pic.w, pic.h, o, &d);
    }
    SpeedFilters f;
    speed_filters(o.kernelscale, &f);
    std::vector<float> load(size_t(d.orig_w) * d.orig_h);
    speed_load(pic.plane(), load.data(), d.orig_w);
    if (d.rescale) {
      SpeedScaleTables t;
      speed_scale_tables(d, o.prescale_method, &t);
      std::vector<float> scaled(size_t(d.scaled_w) * d.scaled_h);
      speed_prescale(t, d, load.data(), d.orig_w, scaled.data(), d.scaled_w);
      load = std::move(scaled);
    }
    std::vector<float> tmp(size_t(d.scaled_w) + size_t(d.dec_w) * d.dec_h);
    dc.stride = d.dec_w;
    dc.v.assign(size_t(d.dec_w) * d.dec_h, 0.0f);
    speed_antialias_dec16(f, load.data(), d.scaled_w, d.scaled_w, d.scaled_h, dc.v.data(), d.dec_w, tmp.data());
    speed_subtract_local_mean(f, dc.v.data(), d.dec_w, d.dec_w, d.dec_h, tmp.data());
    dc.d = d;
    *desc += ", kernelscale " + std::to_string(o.kernelscale) + ", prescale " + std::to_string(o.prescale) + " " +
             speed_scale_method_name(o.prescale_method) + " (decimated " + wh(d.dec_w, d.dec_h) + ")";
    return dc;
  }
  SpeedDims& d = dc.d;
  uint32_t bw, bh;
  test::edge_size(rng, 1, 30, 1, 14, 0, &bw, &bh);
  d.blocks_w = int(bw);
  d.blocks_h = int(bh);
  d.blocks = d.blocks_w * d.blocks_h;
  d.trunc_w = d.blocks_w * kSpeedBlock;
  d.trunc_h = d.blocks_h * kSpeedBlock;
  d.dec_w = d.trunc_w + int(rng.below(5));
  d.dec_h = d.trunc_h + int(rng.below(5));
  d.sub_w = d.trunc_w - kSpeedBlock + 1;
  d.sub_h = d.trunc_h - kSpeedBlock + 1;
  dc.stride = d.dec_w + ptrdiff_t(rng.below(4));
  dc.v.assign(size_t(dc.stride) * d.dec_h, kSentinel);
  const unsigned mode = rng.below(4);
  const float level = any_float(rng);
  for (int y = 0; y < d.dec_h; y++)
    for (int x = 0; x < d.dec_w; x++) {
      float& v = dc.v[size_t(y) * dc.stride + x];
      switch (mode) {
        case 0: v = level; break;                                                          // flat
        case 1: v = float(int(rng.below(2001)) - 1000) / 64.0f; break;                      // moderate
        case 2: v = rng.chance(90) ? level : any_float(rng); break;                         // impulses
        default: v = any_float(rng); break;                                                 // anything
      }
    }
  *desc = wh(d.dec_w, d.dec_h) + " decimated, " + std::to_string(d.blocks) + " blocks, mode " + std::to_string(mode);
  return dc;
}

Decimated bench_decimated() {
  // A 1080p 4:2:0 chroma plane's decimated image (60 x 33).
  EdgeRng rng(13);
  Decimated dc;
  SpeedOptions o;
  (void)speed_dims(960, 540, o, &dc.d);
  dc.stride = dc.d.dec_w;
  dc.v.resize(size_t(dc.d.dec_w) * dc.d.dec_h);
  for (float& v : dc.v) v = float(int(rng.below(2001)) - 1000) / 64.0f;
  return dc;
}

struct CovOut {
  std::vector<uint32_t> means, cov;
};

// ---- registration -----------------------------------------------------------------------------------------------------

void add_level(Registry& reg, SimdLevel level) {
  const SpeedKernels* k = speed_kernels_for(level);
  if (!k) return;
  const SpeedKernels& s = *speed_kernels_for(SimdLevel::scalar);
  const std::string isa = simd_level_name(level);
  const std::string ref = "scalar";

  auto run_load = [](decltype(&speed_load) f, const Picture& p, Bits* o) {
    const int stride = int(p.w) + 3;
    thread_local std::vector<float> out;
    out.assign(size_t(stride) * p.h, kSentinel);
    f(p.plane(), out.data(), stride);
    if (p.h == 540 && p.w == 960) return;  // the --bench input
    *o = {stride, int(p.h), bits_of(out.data(), out.size())};
  };
  reg.add(make_check<Picture, Bits>(
      "speed_load", ref, isa, [](EdgeRng& rng, std::string* d) { return gen_picture(rng, 1, 300, 1, 12, d); },
      [f = s.load, run_load](const Picture& p, Bits* o) { run_load(f, p, o); },
      [f = k->load, run_load](const Picture& p, Bits* o) { run_load(f, p, o); },
      [](const Bits& a, const Bits& b) { return compare_bits("loaded (bits)", a, b); },
      []() { return bench_picture(960, 540); }));

  auto run_aa = [](decltype(&speed_antialias_dec16) f, const Image& im, Bits* o) {
    const int dw = im.w / 16, dh = im.h / 16, ds = dw + 2;
    thread_local std::vector<float> tmp, out;
    tmp.assign(size_t(im.w) + 8, kSentinel);
    out.assign(size_t(ds) * dh + 1, kSentinel);
    f(im.f, im.v.data(), im.stride, im.w, im.h, out.data(), ds, tmp.data());
    if (im.bench) return;
    *o = {int(out.size()), 1, bits_of(out.data(), out.size())};  // rows of w / 16 + 2, then a sentinel
  };
  // 80 x 80: speed_dims' smallest image (the filter's mirror reaches at most 18 samples).
  reg.add(make_check<Image, Bits>(
      "speed_antialias_dec16", ref, isa, [](EdgeRng& rng, std::string* d) { return gen_image(rng, 80, 400, 80, 120, d); },
      [f = s.antialias_dec16, run_aa](const Image& im, Bits* o) { run_aa(f, im, o); },
      [f = k->antialias_dec16, run_aa](const Image& im, Bits* o) { run_aa(f, im, o); },
      [](const Bits& a, const Bits& b) { return compare_bits("decimated (bits; x = row * (w / 16 + 2) + column)", a, b); },
      []() { return bench_image(960, 540); }));

  auto run_mean = [](decltype(&speed_subtract_local_mean) f, const Image& im, Bits* o) {
    thread_local std::vector<float> img, tmp;
    img = im.v;
    tmp.assign(size_t(im.w) * im.h + im.w, kSentinel);
    f(im.f, img.data(), im.stride, im.w, im.h, tmp.data());
    if (im.bench) return;
    *o = {int(im.stride), im.h, bits_of(img.data(), img.size())};  // the padding past w must stay
  };
  reg.add(make_check<Image, Bits>(
      "speed_subtract_local_mean", ref, isa, [](EdgeRng& rng, std::string* d) { return gen_image(rng, 5, 120, 5, 40, d); },
      [f = s.subtract_local_mean, run_mean](const Image& im, Bits* o) { run_mean(f, im, o); },
      [f = k->subtract_local_mean, run_mean](const Image& im, Bits* o) { run_mean(f, im, o); },
      [](const Bits& a, const Bits& b) { return compare_bits("mean-subtracted (bits)", a, b); },
      []() { return bench_image(60, 33); }));

  auto run_cov = [](decltype(&speed_covariance) f, const Decimated& dc, CovOut* o) {
    float means[kSpeedBlockElems + 1], cov[kSpeedBlockElems * kSpeedBlockElems + 1];
    means[kSpeedBlockElems] = kSentinel;
    cov[kSpeedBlockElems * kSpeedBlockElems] = kSentinel;
    f(dc.d, dc.v.data(), dc.stride, means, cov);
    o->means = bits_of(means, kSpeedBlockElems + 1);
    o->cov = bits_of(cov, kSpeedBlockElems * kSpeedBlockElems + 1);
  };
  reg.add(make_check<Decimated, CovOut>(
      "speed_covariance", ref, isa, gen_decimated,
      [f = s.covariance, run_cov](const Decimated& d, CovOut* o) { run_cov(f, d, o); },
      [f = k->covariance, run_cov](const Decimated& d, CovOut* o) { run_cov(f, d, o); },
      [](const CovOut& a, const CovOut& b) {
        if (Mismatch m = first_mismatch("means (bits; x = entry, 25 = sentinel)", a.means.data(), b.means.data(),
                                        uint32_t(a.means.size()), 1, 0))
          return m;
        return first_mismatch("covariance (bits; x = row * 25 + column, 625 = sentinel)", a.cov.data(), b.cov.data(),
                              uint32_t(a.cov.size()), 1, 0);
      },
      bench_decimated));
}

}  // namespace

void register_speed_kernels(Registry& reg) {
  for (SimdLevel l : {SimdLevel::avx2, SimdLevel::avx512, SimdLevel::neon})
    if (simd_level_supported(l)) add_level(reg, l);
}

}  // namespace vmafx::checkasm
