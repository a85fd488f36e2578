// SPDX-License-Identifier: LGPL-2.1-or-later
// CAMBI's stages (engine/cpu/cambi.h, simd/kernels.h CambiKernels) of every SIMD level this CPU supports against the
// scalar ones: preprocessing of 8..16-bit pictures in every layout (shifted words, interleaved samples, padded rows,
// arbitrary words) with and without anti-dithering and resizing; the spatial mask of flat, stepped, checkered and
// random images at every threshold; decimation of images and masks; the mode filter; the c-values under plans of
// every option that changes them (window sizes, tvi thresholds, max_log_contrast 0..5, visibility thresholds that
// move the band, both EOTFs) on values near the band's edges with every mask pattern. Widths from 1 up to several
// vectors, odd, and next to vector multiples plus the filter radii. Outputs are compared whole (rows' padding
// included, filled with a sentinel beforehand), floats as bit patterns.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "checkasm.h"
#include "cpu/cambi.h"
#include "cpu/simd/kernels.h"

namespace vmafx::checkasm {

namespace {

using namespace vmafx::cpu;
using test::EdgePattern;

std::string wh(uint32_t w, uint32_t h) { return std::to_string(w) + "x" + std::to_string(h); }

// ---- 10-bit images (the stages after preprocessing) ---------------------------------------------------------------

struct Image {
  uint32_t w = 0, h = 0;
  ptrdiff_t stride = 0;
  std::vector<uint16_t> px;  // stride * h, sentinel past w
};

// Values of a 10-bit image, biased to few distinct values (flat runs, equal neighbours, modes) or to a band.
void fill_image(EdgeRng& rng, Image* im, uint32_t lo, uint32_t hi, std::string* desc) {
  const uint32_t span = hi - lo;
  switch (rng.below(4)) {
    case 0: {  // a few levels: most neighbours equal
      const uint32_t levels = rng.range(1, 4);
      std::vector<uint16_t> pick(levels);
      for (auto& p : pick) p = uint16_t(lo + rng.below(span + 1));
      const unsigned flat = rng.range(0, 95);
      uint16_t cur = pick[0];
      for (uint32_t y = 0; y < im->h; ++y)
        for (uint32_t x = 0; x < im->w; ++x) {
          if (!rng.chance(flat)) cur = pick[rng.below(levels)];
          im->px[size_t(y) * im->stride + x] = cur;
        }
      *desc += " levels " + std::to_string(levels) + " flat " + std::to_string(flat) + "%";
      break;
    }
    default: {
      const EdgePattern p = test::random_edge_pattern(rng);
      std::vector<uint16_t> s(size_t(im->w) * im->h);
      test::fill_edge_plane(rng, p, span, im->w, im->h, s.data(), im->w);
      for (uint32_t y = 0; y < im->h; ++y)
        for (uint32_t x = 0; x < im->w; ++x) im->px[size_t(y) * im->stride + x] = uint16_t(lo + s[size_t(y) * im->w + x]);
      *desc += std::string(" ") + test::edge_pattern_name(p);
      break;
    }
  }
  *desc += " values " + std::to_string(lo) + ".." + std::to_string(hi);
}

Image gen_image(EdgeRng& rng, uint32_t min_w, uint32_t max_w, uint32_t max_h, uint32_t radius, std::string* desc) {
  Image im;
  test::edge_size(rng, min_w, max_w, 1, max_h, radius, &im.w, &im.h);
  im.stride = ptrdiff_t(im.w) + (rng.chance(50) ? rng.range(1, 40) : 0);
  im.px.assign(size_t(im.stride) * im.h + 64, 0xBEEF);
  *desc = wh(im.w, im.h) + " stride " + std::to_string(im.stride);
  const uint32_t lo = rng.chance(30) ? 0 : rng.below(1000), hi = rng.chance(20) ? 65535 : lo + rng.below(1024 - lo);
  fill_image(rng, &im, lo, std::max(lo, hi), desc);
  return im;
}

Image bench_image(uint32_t w, uint32_t h) {
  // Flat steps of a slow gradient (banding), 10 bit.
  Image im;
  im.w = w;
  im.h = h;
  im.stride = w;
  im.px.assign(size_t(w) * h + 64, 0);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) im.px[size_t(y) * w + x] = uint16_t(64 + (x / 37 + y / 23) % 700);
  return im;
}

template <class T>
struct Buffer {
  uint32_t w = 0, h = 0;  // compared: h rows of w entries (the whole stride)
  std::vector<T> v;
};

template <class T>
Mismatch compare_buffer(const char* what, const Buffer<T>& a, const Buffer<T>& b) {
  if (a.v.size() != b.v.size()) return {std::string(what) + ": sizes differ"};
  return first_mismatch(what, a.v.data(), b.v.data(), a.w, a.h, a.w);
}

// ---- preprocess ------------------------------------------------------------------------------------------------------

struct PreIn {
  test::EdgeLayout layout;
  uint32_t w = 0, h = 0;
  unsigned bpc = 8, enc_bitdepth = 8;
  size_t stride = 0;
  std::vector<uint8_t> bytes;
  CambiGeometry g;
  ptrdiff_t out_stride = 0;
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

PreIn gen_pre(EdgeRng& rng, std::string* desc) {
  PreIn in;
  in.bpc = test::edge_bit_depth(rng, true);
  test::edge_size(rng, 1, 200, 1, 12, 1, &in.w, &in.h);
  std::vector<uint16_t> s(size_t(in.w) * in.h);
  const EdgePattern p = test::random_edge_pattern(rng);
  test::fill_edge_plane(rng, p, (1u << in.bpc) - 1, in.w, in.h, s.data(), in.w);
  in.layout = test::random_edge_layout(rng, in.bpc);
  in.stride = test::store_edge_layout(rng, in.layout, s.data(), in.w, in.h, &in.bytes);
  const bool any_word = in.layout.bytes == 2 && rng.chance(15);  // the stage takes any word (no sample check)
  if (any_word)
    for (auto& b : in.bytes) b = uint8_t(rng.next());
  static const unsigned kEnc[] = {6, 7, 8, 9, 10, 12, 16};
  in.enc_bitdepth = rng.chance(50) ? in.bpc : kEnc[rng.below(7)];
  in.g.in_w = in.w;
  in.g.in_h = in.h;
  in.g.w = in.w;
  in.g.h = in.h;
  if (rng.chance(15)) {  // resized: nearest-neighbour indices, non-decreasing, inside the picture
    in.g.resized = true;
    in.g.w = rng.range(1, in.w);
    in.g.h = rng.range(1, in.h);
    for (uint32_t j = 0; j < in.g.w; ++j) in.g.src_x.push_back(uint32_t(uint64_t(j) * in.w / in.g.w));
    for (uint32_t i = 0; i < in.g.h; ++i) in.g.src_y.push_back(uint32_t(uint64_t(i) * in.h / in.g.h));
  }
  in.out_stride = ptrdiff_t(in.g.w) + (rng.chance(50) ? rng.range(1, 40) : 0);
  *desc = wh(in.w, in.h) + (in.g.resized ? " to " + wh(in.g.w, in.g.h) : "") + " " + std::to_string(in.bpc) +
          "-bit enc " + std::to_string(in.enc_bitdepth) + " " + test::edge_pattern_name(p) + " " +
          test::edge_layout_name(in.layout) + (any_word ? " any words" : "");
  return in;
}

PreIn bench_pre() {
  EdgeRng rng(5);
  PreIn in;
  in.bpc = 8;
  in.enc_bitdepth = 8;
  in.w = 1920;
  in.h = 1080;
  std::vector<uint16_t> s(size_t(in.w) * in.h);
  test::fill_edge_plane(rng, EdgePattern::ramp, 255, in.w, in.h, s.data(), in.w);
  in.layout = test::EdgeLayout{1, 0, 1, 0};
  in.stride = test::store_edge_layout(rng, in.layout, s.data(), in.w, in.h, &in.bytes);
  in.g.in_w = in.g.w = in.w;
  in.g.in_h = in.g.h = in.h;
  in.out_stride = in.w;
  return in;
}

void run_pre(decltype(&cambi_preprocess) f, const PreIn& in, Buffer<uint16_t>* o) {
  o->w = uint32_t(in.out_stride);
  o->h = in.g.h;
  o->v.assign(size_t(in.out_stride) * in.g.h + 64, 0xA5A5);
  f(in.plane(), in.g, in.enc_bitdepth, o->v.data(), in.out_stride);
  o->h += 1;  // the sentinels past the last row too
  o->v.resize(size_t(o->w) * o->h, 0xA5A5);
}

// ---- spatial mask --------------------------------------------------------------------------------------------------

struct MaskIn {
  Image im;
  uint16_t mask_index = 0;
  ptrdiff_t mask_stride = 0;
};

MaskIn gen_mask(EdgeRng& rng, std::string* desc) {
  MaskIn in;
  in.im = gen_image(rng, 1, 300, 40, kCambiMaskFilter / 2, desc);
  switch (rng.below(4)) {
    case 0: in.mask_index = cambi_mask_index(in.im.w, in.im.h); break;
    case 1: in.mask_index = uint16_t(rng.range(7, 34)); break;  // libvmaf's range
    case 2: in.mask_index = uint16_t(rng.below(52)); break;     // every count, 0 .. 49 and above
    default: in.mask_index = uint16_t(test::edge_u32(rng, 65535)); break;
  }
  in.mask_stride = ptrdiff_t(in.im.w) + (rng.chance(50) ? rng.range(1, 40) : 0);
  *desc += " mask_index " + std::to_string(in.mask_index);
  return in;
}

void run_mask(decltype(&cambi_spatial_mask) f, const MaskIn& in, Buffer<uint8_t>* o) {
  o->w = uint32_t(in.mask_stride);
  o->h = in.im.h + 1;
  o->v.assign(size_t(o->w) * o->h, 0x5A);
  std::vector<uint32_t> scratch(size_t(in.im.w + kCambiMaskFilter) * 8, 0xDEADBEEF);
  f(in.im.px.data(), in.im.stride, in.im.w, in.im.h, in.mask_index, o->v.data(), in.mask_stride, scratch.data());
}

// ---- decimation, mode filter -------------------------------------------------------------------------------------

struct MaskImage {  // an image and a 0/1 (or any byte) mask of the same geometry
  Image im;
  std::vector<uint8_t> mask;
};

void fill_mask(EdgeRng& rng, const Image& im, std::vector<uint8_t>* mask, std::string* desc) {
  mask->assign(size_t(im.stride) * im.h + 64, 0x77);
  const unsigned kind = rng.below(6);
  std::vector<uint32_t> scratch(size_t(im.w + kCambiMaskFilter) * 8);
  if (kind == 0) {
    cambi_spatial_mask(im.px.data(), im.stride, im.w, im.h, uint16_t(rng.range(7, 34)), mask->data(), im.stride,
                       scratch.data());
  } else {
    for (uint32_t y = 0; y < im.h; ++y)
      for (uint32_t x = 0; x < im.w; ++x) {
        uint8_t m = 0;
        switch (kind) {
          case 1: m = 1; break;
          case 2: m = 0; break;
          case 3: m = uint8_t((x + y) & 1); break;
          case 4: m = uint8_t(rng.chance(70)); break;
          default: m = uint8_t(rng.next()); break;  // any byte: "not 0" is masked
        }
        (*mask)[size_t(y) * im.stride + x] = m;
      }
  }
  static const char* const kNames[6] = {"spatial", "ones", "zeros", "checker", "random", "any byte"};
  *desc += std::string(" mask ") + kNames[kind];
}

void run_filter(decltype(&cambi_filter_mode) f, const Image& in, Buffer<uint16_t>* o) {
  o->w = uint32_t(in.stride);
  o->h = in.h;
  o->v = in.px;
  std::vector<uint16_t> scratch(3 * size_t(in.w), 0x1234);
  f(o->v.data(), in.stride, in.w, in.h, scratch.data());
  o->h += 1;
  o->v.resize(size_t(o->w) * o->h);
}

// ---- c-values ------------------------------------------------------------------------------------------------------

struct CvalIn {
  CambiPlan plan;
  uint16_t pad = 0;
  Image im;
  std::vector<uint8_t> mask;
};

// A plan under random options (cambi_plan at 1920x1080, 10 bit), its window replaced by pad.
CambiPlan gen_plan(EdgeRng& rng, std::string* desc) {
  static const double kTvi[] = {0.019, 0.0001, 0.005, 0.1, 0.5, 1.0};
  static const double kVlt[] = {0.0, 0.0, 0.01, 1.0, 10.0, 80.0, 200.0, 300.0};
  for (;;) {
    CambiOptions o;
    o.tvi_threshold = rng.chance(70) ? kTvi[rng.below(6)] : 0.0001 + rng.below(10000) / 10000.0;
    o.max_log_contrast = rng.chance(40) ? 2 : int(rng.below(6));
    o.cambi_vis_lum_threshold = rng.chance(60) ? kVlt[rng.below(8)] : rng.below(3000) / 10.0;
    o.eotf = rng.chance(70) ? "bt1886" : "pq";
    CambiPlan p;
    if (!cambi_plan(1920, 1080, 10, o, &p).is_ok()) continue;  // options libvmaf cannot run: draw again
    char buf[160];
    std::snprintf(buf, sizeof buf, " tvi %.4g mlc %d vlt %.4g %s (band %u+%u, vlt_luma %u)", o.tvi_threshold,
                  o.max_log_contrast, o.cambi_vis_lum_threshold, o.eotf.c_str(), unsigned(p.band_base),
                  unsigned(p.band_size), unsigned(p.vlt_luma));
    *desc += buf;
    return p;
  }
}

CvalIn gen_cval(EdgeRng& rng, std::string* desc) {
  CvalIn in;
  std::string pd;
  in.plan = gen_plan(rng, &pd);
  // Windows of 3 .. 65 (cambi_plan keeps window^2 below the reciprocal table), pictures at least pad on each side.
  in.pad = uint16_t(rng.chance(30) ? 16 : rng.range(1, 32));
  Image& im = in.im;
  test::edge_size(rng, in.pad, 160, in.pad, std::max<uint32_t>(in.pad, 48), in.pad, &im.w, &im.h);
  im.stride = ptrdiff_t(im.w) + (rng.chance(50) ? rng.range(1, 40) : 0);
  im.px.assign(size_t(im.stride) * im.h + 64, 0xBEEF);
  *desc = wh(im.w, im.h) + " pad " + std::to_string(in.pad) + pd;
  // Values around the band's edges (below, at and above base and base + size - 1), or inside it, or anywhere.
  const int base = in.plan.band_base, top = int(in.plan.band_base) + int(in.plan.band_size) - 1;
  int lo = 0, hi = 1023;
  switch (rng.below(5)) {
    case 0: lo = base - 6, hi = base + 6; break;
    case 1: lo = top - 6, hi = top + 6; break;
    case 2: lo = base, hi = std::max(base, top); break;
    case 3: {
      const int c = base + int(rng.below(uint32_t(std::max(1, top - base + 1))));
      lo = c - 4, hi = c + 4;  // a few values close together: many differences of 1 .. num_diffs
      break;
    }
    default: break;
  }
  lo = std::clamp(lo, 0, 1023);
  hi = std::clamp(hi, lo, 1023);
  fill_image(rng, &im, uint32_t(lo), uint32_t(hi), desc);
  fill_mask(rng, im, &in.mask, desc);
  return in;
}

CvalIn bench_cval() {
  CvalIn in;
  std::string d;
  if (!cambi_plan(1920, 1080, 10, CambiOptions{}, &in.plan).is_ok()) std::abort();
  in.pad = 16;
  in.im = bench_image(1920, 1080);
  std::vector<uint32_t> scratch(size_t(1920 + kCambiMaskFilter) * 8);
  in.mask.assign(size_t(1920) * 1080 + 64, 0);
  cambi_spatial_mask(in.im.px.data(), 1920, 1920, 1080, cambi_mask_index(1920, 1080), in.mask.data(), 1920,
                     scratch.data());
  return in;
}

void run_cval(decltype(&cambi_c_values) f, const CvalIn& in, Buffer<uint32_t>* o) {
  const uint32_t w = in.im.w, h = in.im.h;
  std::vector<float> out(size_t(w) * (h + 1), -1.5f);  // every entry of the h rows must be written, no other
  std::vector<uint16_t> hist(size_t(in.plan.band_size) * w + kCambiHistPad, 0x3C3C);
  f(in.plan, in.im.px.data(), in.mask.data(), in.im.stride, w, h, in.pad, out.data(), hist.data());
  o->w = w;
  o->h = h + 1;
  o->v.resize(out.size());
  std::memcpy(o->v.data(), out.data(), out.size() * sizeof(float));
}

// ---- registration --------------------------------------------------------------------------------------------------

void add_level(Registry& reg, SimdLevel level) {
  const CambiKernels& s = *cambi_kernels_for(SimdLevel::scalar);
  const CambiKernels* k = cambi_kernels_for(level);
  if (!k) return;
  const std::string isa = simd_level_name(level);
  const std::string ref = "scalar";

  reg.add(make_check<PreIn, Buffer<uint16_t>>(
      "cambi_preprocess", ref, isa, gen_pre, [f = s.preprocess](const PreIn& i, Buffer<uint16_t>* o) { run_pre(f, i, o); },
      [f = k->preprocess](const PreIn& i, Buffer<uint16_t>* o) { run_pre(f, i, o); },
      [](const Buffer<uint16_t>& a, const Buffer<uint16_t>& b) { return compare_buffer("image (whole stride)", a, b); },
      bench_pre));

  reg.add(make_check<MaskIn, Buffer<uint8_t>>(
      "cambi_spatial_mask", ref, isa, gen_mask,
      [f = s.spatial_mask](const MaskIn& i, Buffer<uint8_t>* o) { run_mask(f, i, o); },
      [f = k->spatial_mask](const MaskIn& i, Buffer<uint8_t>* o) { run_mask(f, i, o); },
      [](const Buffer<uint8_t>& a, const Buffer<uint8_t>& b) { return compare_buffer("mask (whole stride)", a, b); },
      []() {
        MaskIn in;
        in.im = bench_image(1920, 1080);
        in.mask_index = cambi_mask_index(1920, 1080);
        in.mask_stride = 1920;
        return in;
      }));

  // Decimation in place: the buffer of a (2w - 1 or 2w) x (2h - 1 or 2h) picture, compared whole.
  auto gen_dec = [](EdgeRng& rng, std::string* d) {
    MaskImage in;
    in.im = gen_image(rng, 1, 300, 30, 0, d);
    fill_mask(rng, in.im, &in.mask, d);
    return in;
  };
  auto run_dec_img = [](decltype(CambiKernels::decimate_image) f, const MaskImage& in, Buffer<uint16_t>* o) {
    o->w = uint32_t(in.im.stride);
    o->h = in.im.h + 1;
    o->v = in.im.px;
    f(o->v.data(), in.im.stride, (in.im.w + 1) / 2, (in.im.h + 1) / 2);
    o->v.resize(size_t(o->w) * o->h);
  };
  auto run_dec_mask = [](decltype(CambiKernels::decimate_mask) f, const MaskImage& in, Buffer<uint8_t>* o) {
    o->w = uint32_t(in.im.stride);
    o->h = in.im.h + 1;
    o->v = in.mask;
    f(o->v.data(), in.im.stride, (in.im.w + 1) / 2, (in.im.h + 1) / 2);
    o->v.resize(size_t(o->w) * o->h);
  };
  auto bench_dec = []() {
    MaskImage in;
    in.im = bench_image(1920, 1080);
    in.mask.assign(in.im.px.size(), 1);
    return in;
  };
  reg.add(make_check<MaskImage, Buffer<uint16_t>>(
      "cambi_decimate_image", ref, isa, gen_dec,
      [f = s.decimate_image, run_dec_img](const MaskImage& i, Buffer<uint16_t>* o) { run_dec_img(f, i, o); },
      [f = k->decimate_image, run_dec_img](const MaskImage& i, Buffer<uint16_t>* o) { run_dec_img(f, i, o); },
      [](const Buffer<uint16_t>& a, const Buffer<uint16_t>& b) { return compare_buffer("image buffer", a, b); },
      bench_dec));
  reg.add(make_check<MaskImage, Buffer<uint8_t>>(
      "cambi_decimate_mask", ref, isa, gen_dec,
      [f = s.decimate_mask, run_dec_mask](const MaskImage& i, Buffer<uint8_t>* o) { run_dec_mask(f, i, o); },
      [f = k->decimate_mask, run_dec_mask](const MaskImage& i, Buffer<uint8_t>* o) { run_dec_mask(f, i, o); },
      [](const Buffer<uint8_t>& a, const Buffer<uint8_t>& b) { return compare_buffer("mask buffer", a, b); },
      bench_dec));

  reg.add(make_check<Image, Buffer<uint16_t>>(
      "cambi_filter_mode", ref, isa, [](EdgeRng& rng, std::string* d) { return gen_image(rng, 1, 300, 30, 1, d); },
      [f = s.filter_mode](const Image& i, Buffer<uint16_t>* o) { run_filter(f, i, o); },
      [f = k->filter_mode](const Image& i, Buffer<uint16_t>* o) { run_filter(f, i, o); },
      [](const Buffer<uint16_t>& a, const Buffer<uint16_t>& b) { return compare_buffer("image (whole stride)", a, b); },
      []() { return bench_image(1920, 1080); }));

  reg.add(make_check<CvalIn, Buffer<uint32_t>>(
      "cambi_c_values", ref, isa, gen_cval,
      [f = s.c_values](const CvalIn& i, Buffer<uint32_t>* o) { run_cval(f, i, o); },
      [f = k->c_values](const CvalIn& i, Buffer<uint32_t>* o) { run_cval(f, i, o); },
      [](const Buffer<uint32_t>& a, const Buffer<uint32_t>& b) { return compare_buffer("c-values (bits)", a, b); },
      bench_cval));
}

}  // namespace

void register_cambi_kernels(Registry& reg) {
  for (SimdLevel l : {SimdLevel::avx2, SimdLevel::avx512, SimdLevel::neon})
    if (simd_level_supported(l)) add_level(reg, l);
}

}  // namespace vmafx::checkasm
