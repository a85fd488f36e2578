// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer ADM's row functions (engine/cpu/adm.h, simd/kernels.h AdmKernels) of every SIMD level this CPU supports
// against the scalar ones: the DWT of pictures (8..16 bit, every layout) and of int16 / int32 bands, decouple,
// denominator, CSF and masking rows on band values from real DWTs and on arbitrary ones (maximum magnitudes,
// INT32_MIN, flat rows), odd widths, every gain limit and fixed-point factor range.
#include <cstring>
#include <sstream>
#include <memory>
#include <string>
#include <vector>

#include "checkasm.h"
#include "cpu/adm.h"
#include "cpu/simd/kernels.h"

namespace vmafx::checkasm {

namespace {

using namespace vmafx::cpu;
using test::EdgePattern;

std::string wh(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

// Rows are allocated with this margin on both sides, filled with a sentinel: a read past a row's end reads garbage
// both implementations must ignore, a write past it shows as a mismatch in the margin.
constexpr int kMargin = 64;
constexpr int32_t kSentinel = 0x5A5A5A5A;

template <class T>
struct Buf {
  std::vector<T> v;
  T* p = nullptr;
  void alloc(size_t n) {
    v.assign(n + 2 * kMargin, T(kSentinel));
    p = v.data() + kMargin;
  }
};

// ---- values --------------------------------------------------------------------------------------------------------

// An edge-biased int16 / int32 value: 0, +-1, extremes, powers of two, uniform, small.
int32_t edge_i32(EdgeRng& rng, int bits) {
  const int64_t max = (int64_t(1) << (bits - 1)) - 1, min = -max - 1;
  switch (rng.below(8)) {
    case 0: return 0;
    case 1: return int32_t(rng.chance(50) ? max : min);
    case 2: return int32_t(rng.chance(50) ? 1 : -1);
    case 3: {
      const int64_t p = int64_t(1) << rng.below(uint32_t(bits - 1));
      return int32_t(rng.chance(50) ? p : -p);
    }
    case 4: return int32_t(int64_t(rng.below(2000)) - 1000);
    default: return int32_t(min + int64_t(rng.next() % uint64_t(max - min + 1)));
  }
}

template <class T>
void fill_band(EdgeRng& rng, T* p, int n, int bits) {
  const int mode = int(rng.below(4));
  const int32_t level = edge_i32(rng, bits);
  for (int j = 0; j < n; ++j) {
    switch (mode) {
      case 0: p[j] = T(level); break;                                                 // flat
      case 1: p[j] = T(rng.chance(80) ? level : edge_i32(rng, bits)); break;          // impulses
      default: p[j] = T(edge_i32(rng, bits)); break;                                  // anything
    }
  }
}

// ---- DWT of pictures (scale 0) ---------------------------------------------------------------------------------------

struct Picture {
  test::EdgeLayout layout;
  uint32_t w = 0, h = 0;
  unsigned bpc = 8;
  size_t stride = 0;
  std::vector<uint8_t> bytes;
  bool bench = false;
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

Picture gen_picture(EdgeRng& rng, std::string* desc) {
  static const unsigned kDepths[] = {8, 10, 12, 16};
  Picture pic;
  pic.bpc = rng.chance(70) ? kDepths[rng.below(4)] : test::edge_bit_depth(rng, true);
  test::edge_size(rng, 5, 200, 5, 24, 2, &pic.w, &pic.h);
  std::vector<uint16_t> s(size_t(pic.w) * pic.h);
  const EdgePattern p = test::random_edge_pattern(rng);
  test::fill_edge_plane(rng, p, (1u << pic.bpc) - 1, pic.w, pic.h, s.data(), pic.w);
  pic.layout = test::random_edge_layout(rng, pic.bpc);
  pic.stride = test::store_edge_layout(rng, pic.layout, s.data(), pic.w, pic.h, &pic.bytes);
  *desc = wh(int(pic.w), int(pic.h)) + " " + std::to_string(pic.bpc) + "-bit " + test::edge_pattern_name(p) + " " +
          test::edge_layout_name(pic.layout);
  return pic;
}

Picture bench_picture(unsigned bpc) {
  EdgeRng rng(3);
  Picture pic;
  pic.bench = true;
  pic.bpc = bpc;
  pic.w = 1920;
  pic.h = 1080;
  std::vector<uint16_t> s(size_t(pic.w) * pic.h);
  test::fill_edge_plane(rng, EdgePattern::ramp, (1u << bpc) - 1, pic.w, pic.h, s.data(), pic.w);
  pic.layout = test::EdgeLayout{bpc > 8 ? 2u : 1u, 0, 1, 0};
  pic.stride = test::store_edge_layout(rng, pic.layout, s.data(), pic.w, pic.h, &pic.bytes);
  return pic;
}

// Four output bands, oh rows of ow values each (band order a, h, v, d), plus the margins.
template <class T>
struct BandsOut {
  int w = 0, h = 0;
  std::vector<T> v[4];
};

template <class T>
Mismatch compare_bands(const BandsOut<T>& a, const BandsOut<T>& b) {
  static const char* const kNames[4] = {"band a", "band h", "band v", "band d"};
  static const char* const kMargins[4] = {"band a incl. margins (x from the left margin's start)", "band h incl. margins",
                                          "band v incl. margins", "band d incl. margins"};
  const ptrdiff_t stride = a.w + 2 * kMargin;
  for (int k = 0; k < 4; ++k)
    if (Mismatch m = first_mismatch(kNames[k], a.v[k].data() + kMargin, b.v[k].data() + kMargin, uint32_t(a.w),
                                    uint32_t(a.h), stride))
      return m;
  for (int k = 0; k < 4; ++k)
    if (Mismatch m = first_mismatch(kMargins[k], a.v[k].data(), b.v[k].data(), uint32_t(stride), uint32_t(a.h), stride))
      return m;
  return {};
}

// Runs a DWT row function over every output row: each row into fresh sentinel-framed rows, copied out whole
// (margins included, so a write past the row shows).
template <class T, class Fn>
void run_dwt_rows(int ow, int oh, bool bench, Fn row_fn, BandsOut<T>* o) {
  o->w = ow;
  o->h = bench ? 1 : oh;
  const size_t rl = size_t(ow) + 2 * kMargin;
  for (auto& b : o->v) b.assign(rl * size_t(o->h), 0);
  Buf<T> rows[4];
  for (auto& r : rows) r.alloc(size_t(ow));
  for (int i = 0; i < oh; ++i) {
    row_fn(i, AdmRow<T>(rows[0].p, rows[1].p, rows[2].p, rows[3].p));
    if (bench) continue;
    for (int k = 0; k < 4; ++k) std::memcpy(o->v[k].data() + rl * size_t(i), rows[k].v.data(), rl * sizeof(T));
  }
}

// ---- int bands (DWT input of scales 1..3, decouple, denominator, CSF, masking) ---------------------------------------

template <class T>
struct Bands {
  int w = 0, h = 0;
  std::vector<T> v;  // h rows of w
  bool bench = false;
  int scale = 1;
};

template <class T>
Bands<T> gen_bands(EdgeRng& rng, int bits, int min, std::string* desc) {
  Bands<T> b;
  uint32_t w, h;
  test::edge_size(rng, uint32_t(min), 200, uint32_t(min), 20, 2, &w, &h);
  b.w = int(w);
  b.h = int(h);
  b.v.resize(size_t(w) * h);
  for (uint32_t y = 0; y < h; ++y) fill_band(rng, b.v.data() + size_t(y) * w, int(w), bits);
  *desc = wh(b.w, b.h) + " int" + std::to_string(bits);
  return b;
}

// Several rows of the h, v, d bands of one reference and one distorted picture, from a real DWT or arbitrary.
template <class T>
struct RowSet {
  int w = 0, rows = 0;
  std::vector<T> v[6];  // ref h, v, d; dist h, v, d (rows of w each, with margins)
  bool bench = false;
  double gain = 100.0;
  int scale = 1, cub = 0, cub_d = 0, left = 0, right = 0;
  uint32_t fixed[3] = {};
  size_t row_len() const { return size_t(w) + 2 * kMargin; }
  const T* at(int band, int row) const { return v[band].data() + row_len() * size_t(row) + kMargin; }
  AdmRow<const T> ref(int row) const { return AdmRow<const T>(nullptr, at(0, row), at(1, row), at(2, row)); }
  AdmRow<const T> dist(int row) const { return AdmRow<const T>(nullptr, at(3, row), at(4, row), at(5, row)); }
};

template <class T>
RowSet<T> gen_rows(EdgeRng& rng, std::string* desc) {
  constexpr int bits = sizeof(T) == 2 ? 16 : 32;
  RowSet<T> s;
  uint32_t w, h;
  test::edge_size(rng, 3, 300, 1, 6, 1, &w, &h);
  s.w = int(w);
  s.rows = int(h);
  for (auto& b : s.v) b.assign(s.row_len() * size_t(s.rows), T(kSentinel));
  const bool related = rng.chance(60);
  for (int r = 0; r < s.rows; ++r)
    for (int k = 0; k < 3; ++k) {
      T* ref = s.v[k].data() + s.row_len() * size_t(r) + kMargin;
      T* dis = s.v[k + 3].data() + s.row_len() * size_t(r) + kMargin;
      // 8-bit-like values, the ranges real bands have (int16: 12 bits, int32: 24), or any value.
      const int range_bits[3] = {8, sizeof(T) == 2 ? 12 : 24, bits};
      fill_band(rng, ref, s.w, range_bits[rng.below(3)]);
      if (related) {
        // Distorted close to (or a multiple of) the reference: the angle test and the gain rule both pass.
        const int mode = int(rng.below(3));
        for (int j = 0; j < s.w; ++j) {
          int64_t t = mode == 0 ? int64_t(ref[j]) : mode == 1 ? int64_t(ref[j]) * 2 : int64_t(ref[j]) + rng.below(5) - 2;
          const int64_t max = (int64_t(1) << (bits - 1)) - 1;
          t = t > max ? max : t < -max - 1 ? -max - 1 : t;
          dis[j] = T(t);
        }
      } else {
        fill_band(rng, dis, s.w, range_bits[rng.below(3)]);
      }
    }
  switch (rng.below(4)) {
    case 0: s.gain = 1.0; break;
    case 1: s.gain = 1.0 + rng.below(1000) / 10.0; break;
    default: s.gain = 100.0; break;
  }
  s.scale = int(rng.range(1, 3));
  s.cub = int(rng.range(0, 14));
  s.cub_d = int(rng.range(0, 14));
  s.left = rng.chance(30) ? 0 : int(rng.below(uint32_t(s.w)));
  s.right = rng.chance(30) ? s.w : int(rng.range(uint32_t(s.left), uint32_t(s.w)));
  for (auto& f : s.fixed) {
    if (sizeof(T) == 2)
      f = rng.chance(30) ? 65535u : rng.chance(30) ? 36453u : rng.below(65536);
    else
      f = test::edge_u32(rng, 0xffffffffu);
  }
  *desc = std::to_string(s.w) + " wide, " + std::to_string(s.rows) + " rows, columns " + std::to_string(s.left) +
          ".." + std::to_string(s.right) + (related ? ", related" : "") + ", gain " + std::to_string(s.gain) +
          ", scale " + std::to_string(s.scale) + ", cub " + std::to_string(s.cub) + "/" + std::to_string(s.cub_d);
  return s;
}

template <class T>
RowSet<T> bench_rows(int w) {
  EdgeRng rng(11);
  RowSet<T> s;
  s.bench = true;
  s.w = w;
  s.rows = 3;
  for (auto& b : s.v) b.assign(s.row_len() * 3, 0);
  for (int k = 0; k < 6; ++k)
    for (size_t i = 0; i < s.v[k].size(); ++i) s.v[k][i] = T(int32_t(rng.below(4000)) - 2000);
  s.left = 0;
  s.right = w;
  s.cub = 7;
  s.cub_d = 8;
  s.scale = 1;
  s.fixed[0] = s.fixed[1] = sizeof(T) == 2 ? 36453u : 1200000000u;
  s.fixed[2] = sizeof(T) == 2 ? 49417u : 1500000000u;
  return s;
}

// Outputs of a row function over all rows of a RowSet: per row, one chunk per output row (with its margins) or one
// chunk of the three band sums. names: the chunks of one input row, in order; margin: columns before column 0 of a
// chunk (-1: the chunk is the sums of h, v, d).
struct RowOut {
  std::vector<int64_t> v;
  size_t chunk = 1;
  std::vector<const char*> names;
  int margin = -1;
};

Mismatch compare_rowout(const RowOut& a, const RowOut& b) {
  for (size_t i = 0; i < a.v.size() && i < b.v.size(); ++i) {
    if (a.v[i] == b.v[i]) continue;
    const size_t c = i / a.chunk, pos = i % a.chunk, per_row = a.names.empty() ? 1 : a.names.size();
    std::ostringstream m;
    m << "row " << c / per_row << ", ";
    if (a.margin < 0) {
      static const char* const kBand[3] = {"h", "v", "d"};
      m << "sum of band " << kBand[pos % 3];
    } else {
      const long col = long(pos) - a.margin;
      m << a.names[c % per_row] << " column " << col << (col < 0 ? " (before the row)" : "");
    }
    m << ": reference " << a.v[i] << ", candidate " << b.v[i];
    return {m.str()};
  }
  if (a.v.size() != b.v.size()) return {"output sizes differ"};
  return {};
}

template <class T>
void append_row(RowOut* o, const T* p, size_t n) {
  o->chunk = n;
  for (size_t i = 0; i < n; ++i) o->v.push_back(int64_t(p[i]));
}

}  // namespace

void register_adm_kernels(Registry& reg) {
  const AdmKernels& s = *adm_kernels_for(SimdLevel::scalar);
  for (SimdLevel level : {SimdLevel::avx2, SimdLevel::avx512, SimdLevel::neon}) {
    const AdmKernels* k = adm_kernels_for(level);
    if (!k) continue;
    const std::string isa = simd_level_name(level), ref = "scalar";

    // DWT of pictures.
    auto run_dwt0 = [](decltype(&adm_dwt_row_scale0) f, const Picture& pic, BandsOut<int16_t>* o) {
      const Plane p = pic.plane();
      Buf<int16_t> tmp;
      tmp.alloc(2 * (size_t(pic.w) + 3));
      run_dwt_rows<int16_t>(int(pic.w + 1) / 2, int(pic.h + 1) / 2, pic.bench,
                            [&](int i, AdmRow<int16_t> out) { f(p, i, tmp.p, out); }, o);
    };
    for (unsigned bb : {8u, 10u}) {
      reg.add(make_check<Picture, BandsOut<int16_t>>(
          "adm_dwt_row_scale0/" + std::to_string(bb) + "b", ref, isa,
          [bb](EdgeRng& rng, std::string* d) {
            Picture p = gen_picture(rng, d);
            (void)bb;
            return p;
          },
          [f = s.dwt_row_scale0, run_dwt0](const Picture& p, BandsOut<int16_t>* o) { run_dwt0(f, p, o); },
          [f = k->dwt_row_scale0, run_dwt0](const Picture& p, BandsOut<int16_t>* o) { run_dwt0(f, p, o); },
          compare_bands<int16_t>, [bb]() { return bench_picture(bb); }));
    }

    // DWT of int16 (scale 1) and int32 (scales 2, 3) bands.
    auto run_dwt1 = [](decltype(&adm_dwt_row_scale1) f, const Bands<int16_t>& b, BandsOut<int32_t>* o) {
      Buf<int32_t> tmp;
      tmp.alloc(2 * (size_t(b.w) + 3));
      run_dwt_rows<int32_t>((b.w + 1) / 2, (b.h + 1) / 2, b.bench,
                            [&](int i, AdmRow<int32_t> out) { f(b.v.data(), b.w, b.w, b.h, i, tmp.p, out); }, o);
    };
    reg.add(make_check<Bands<int16_t>, BandsOut<int32_t>>(
        "adm_dwt_row_scale1", ref, isa,
        [](EdgeRng& rng, std::string* d) { return gen_bands<int16_t>(rng, 16, 5, d); },
        [f = s.dwt_row_scale1, run_dwt1](const Bands<int16_t>& b, BandsOut<int32_t>* o) { run_dwt1(f, b, o); },
        [f = k->dwt_row_scale1, run_dwt1](const Bands<int16_t>& b, BandsOut<int32_t>* o) { run_dwt1(f, b, o); },
        compare_bands<int32_t>, []() {
          EdgeRng rng(5);
          Bands<int16_t> b;
          b.bench = true;
          b.w = 960;
          b.h = 540;
          b.v.resize(size_t(b.w) * b.h);
          for (auto& x : b.v) x = int16_t(int32_t(rng.below(8000)) - 4000);
          return b;
        }));
    auto run_dwt23 = [](decltype(&adm_dwt_row_scale23) f, const Bands<int32_t>& b, BandsOut<int32_t>* o) {
      Buf<int32_t> tmp;
      tmp.alloc(2 * (size_t(b.w) + 3));
      run_dwt_rows<int32_t>(
          (b.w + 1) / 2, (b.h + 1) / 2, b.bench,
          [&](int i, AdmRow<int32_t> out) { f(b.v.data(), b.w, b.w, b.h, b.scale, i, tmp.p, out); }, o);
    };
    reg.add(make_check<Bands<int32_t>, BandsOut<int32_t>>(
        "adm_dwt_row_scale23", ref, isa,
        [](EdgeRng& rng, std::string* d) {
          // Band a of scale 1 and 2 stays within +-2^15 in practice; any int32 is checked too.
          Bands<int32_t> b = gen_bands<int32_t>(rng, rng.chance(50) ? 16 : 32, 5, d);
          b.scale = int(rng.range(2, 3));
          *d += ", scale " + std::to_string(b.scale);
          return b;
        },
        [f = s.dwt_row_scale23, run_dwt23](const Bands<int32_t>& b, BandsOut<int32_t>* o) { run_dwt23(f, b, o); },
        [f = k->dwt_row_scale23, run_dwt23](const Bands<int32_t>& b, BandsOut<int32_t>* o) { run_dwt23(f, b, o); },
        compare_bands<int32_t>, []() {
          EdgeRng rng(6);
          Bands<int32_t> b;
          b.bench = true;
          b.w = 480;
          b.h = 270;
          b.scale = 2;
          b.v.resize(size_t(b.w) * b.h);
          for (auto& x : b.v) x = int32_t(rng.below(8000)) - 4000;
          return b;
        }));

    // Decouple: r and a of h, v, d, margins included.
    auto add_decouple = [&](auto tag, const char* name, auto fs, auto fk) {
      using T = decltype(tag);
      auto run = [](auto f, const RowSet<T>& rs, RowOut* o) {
        Buf<T> out[6];
        for (auto& b : out) b.alloc(size_t(rs.w));
        o->names = {"r.h", "r.v", "r.d", "a.h", "a.v", "a.d"};
        o->margin = kMargin;
        for (int r = 0; r < rs.rows; ++r) {
          f(rs.ref(r), rs.dist(r), rs.left, rs.right, rs.gain, AdmRow<T>(nullptr, out[0].p, out[1].p, out[2].p),
            AdmRow<T>(nullptr, out[3].p, out[4].p, out[5].p));
          if (rs.bench) continue;
          for (auto& b : out) append_row(o, b.v.data(), b.v.size());
        }
      };
      reg.add(make_check<RowSet<T>, RowOut>(
          name, ref, isa, [](EdgeRng& rng, std::string* d) { return gen_rows<T>(rng, d); },
          [f = fs, run](const RowSet<T>& rs, RowOut* o) { run(f, rs, o); },
          [f = fk, run](const RowSet<T>& rs, RowOut* o) { run(f, rs, o); },
          [](const RowOut& a, const RowOut& b) { return compare_rowout(a, b); },
          []() { return bench_rows<T>(960); }));
    };
    add_decouple(int16_t{}, "adm_decouple_row_scale0", s.decouple_row_scale0, k->decouple_row_scale0);
    add_decouple(int32_t{}, "adm_decouple_row_scale123", s.decouple_row_scale123, k->decouple_row_scale123);

    // Denominator sums.
    reg.add(make_check<RowSet<int16_t>, RowOut>(
        "adm_den_row_scale0", ref, isa, [](EdgeRng& rng, std::string* d) { return gen_rows<int16_t>(rng, d); },
        [f = s.den_row_scale0](const RowSet<int16_t>& rs, RowOut* o) {
          for (int r = 0; r < rs.rows; ++r) {
            uint64_t sums[3];
            f(rs.ref(r), rs.left, rs.right, sums);
            append_row(o, sums, 3);
          }
        },
        [f = k->den_row_scale0](const RowSet<int16_t>& rs, RowOut* o) {
          for (int r = 0; r < rs.rows; ++r) {
            uint64_t sums[3];
            f(rs.ref(r), rs.left, rs.right, sums);
            append_row(o, sums, 3);
          }
        },
        [](const RowOut& a, const RowOut& b) { return compare_rowout(a, b); },
        []() { return bench_rows<int16_t>(960); }));
    reg.add(make_check<RowSet<int32_t>, RowOut>(
        "adm_den_row_scale123", ref, isa, [](EdgeRng& rng, std::string* d) { return gen_rows<int32_t>(rng, d); },
        [f = s.den_row_scale123](const RowSet<int32_t>& rs, RowOut* o) {
          for (int r = 0; r < rs.rows; ++r) {
            uint64_t sums[3];
            f(rs.ref(r), rs.left, rs.right, rs.scale, rs.cub, sums);
            append_row(o, sums, 3);
          }
        },
        [f = k->den_row_scale123](const RowSet<int32_t>& rs, RowOut* o) {
          for (int r = 0; r < rs.rows; ++r) {
            uint64_t sums[3];
            f(rs.ref(r), rs.left, rs.right, rs.scale, rs.cub, sums);
            append_row(o, sums, 3);
          }
        },
        [](const RowOut& a, const RowOut& b) { return compare_rowout(a, b); },
        []() { return bench_rows<int32_t>(480); }));

    // CSF: the two band-sum rows, margins included.
    auto run_csf0 = [](decltype(&adm_csf_row_scale0) f, const RowSet<int16_t>& rs, RowOut* o) {
      const uint16_t fx[3] = {uint16_t(rs.fixed[0]), uint16_t(rs.fixed[1]), uint16_t(rs.fixed[2])};
      Buf<int32_t> fl, ce;
      fl.alloc(size_t(rs.w));
      ce.alloc(size_t(rs.w));
      o->names = {"flt_sum", "centre_sum"};
      o->margin = kMargin;
      for (int r = 0; r < rs.rows; ++r) {
        f(rs.ref(r), rs.left, rs.right, fx, fl.p, ce.p);
        if (rs.bench) continue;
        append_row(o, fl.v.data(), fl.v.size());
        append_row(o, ce.v.data(), ce.v.size());
      }
    };
    reg.add(make_check<RowSet<int16_t>, RowOut>(
        "adm_csf_row_scale0", ref, isa, [](EdgeRng& rng, std::string* d) { return gen_rows<int16_t>(rng, d); },
        [f = s.csf_row_scale0, run_csf0](const RowSet<int16_t>& rs, RowOut* o) { run_csf0(f, rs, o); },
        [f = k->csf_row_scale0, run_csf0](const RowSet<int16_t>& rs, RowOut* o) { run_csf0(f, rs, o); },
        [](const RowOut& a, const RowOut& b) { return compare_rowout(a, b); },
        []() { return bench_rows<int16_t>(960); }));
    auto run_csf123 = [](decltype(&adm_csf_row_scale123) f, const RowSet<int32_t>& rs, RowOut* o) {
      Buf<int32_t> fl, ce;
      fl.alloc(size_t(rs.w));
      ce.alloc(size_t(rs.w));
      o->names = {"flt_sum", "centre_sum"};
      o->margin = kMargin;
      for (int r = 0; r < rs.rows; ++r) {
        f(rs.ref(r), rs.left, rs.right, rs.fixed, fl.p, ce.p);
        if (rs.bench) continue;
        append_row(o, fl.v.data(), fl.v.size());
        append_row(o, ce.v.data(), ce.v.size());
      }
    };
    reg.add(make_check<RowSet<int32_t>, RowOut>(
        "adm_csf_row_scale123", ref, isa, [](EdgeRng& rng, std::string* d) { return gen_rows<int32_t>(rng, d); },
        [f = s.csf_row_scale123, run_csf123](const RowSet<int32_t>& rs, RowOut* o) { run_csf123(f, rs, o); },
        [f = k->csf_row_scale123, run_csf123](const RowSet<int32_t>& rs, RowOut* o) { run_csf123(f, rs, o); },
        [](const RowOut& a, const RowOut& b) { return compare_rowout(a, b); },
        []() { return bench_rows<int32_t>(480); }));

    // Masking sums: x = ref rows, the band sums = dist rows as int32 (any value), centre = dist h. Rows above and
    // below wrap around the row set.
    auto run_cm0 = [](decltype(&adm_cm_row_scale0) f, const RowSet<int16_t>& rs, RowOut* o) {
      const uint16_t fx[3] = {uint16_t(rs.fixed[0]), uint16_t(rs.fixed[1]), uint16_t(rs.fixed[2])};
      thread_local std::vector<int32_t> sums32;
      const size_t rl = rs.row_len();
      sums32.assign(rl * size_t(rs.rows) * 2, 0);
      for (size_t i = 0; i < sums32.size() / 2; ++i) {
        sums32[i] = int32_t(rs.v[3][i]) * 7 + rs.v[4][i];
        sums32[sums32.size() / 2 + i] = int32_t(rs.v[5][i]) * 3;
      }
      for (int r = 0; r < rs.rows; ++r) {
        const int up = (r + rs.rows - 1) % rs.rows, dn = (r + 1) % rs.rows;
        const int32_t* fl[3] = {sums32.data() + rl * up + kMargin, sums32.data() + rl * r + kMargin,
                                sums32.data() + rl * dn + kMargin};
        const int32_t* ce = sums32.data() + sums32.size() / 2 + rl * r + kMargin;
        int64_t out[3];
        f(rs.ref(r), fl, ce, rs.w, rs.left, rs.right, fx, rs.cub, rs.cub_d, out);
        append_row(o, out, 3);
      }
    };
    reg.add(make_check<RowSet<int16_t>, RowOut>(
        "adm_cm_row_scale0", ref, isa, [](EdgeRng& rng, std::string* d) { return gen_rows<int16_t>(rng, d); },
        [f = s.cm_row_scale0, run_cm0](const RowSet<int16_t>& rs, RowOut* o) { run_cm0(f, rs, o); },
        [f = k->cm_row_scale0, run_cm0](const RowSet<int16_t>& rs, RowOut* o) { run_cm0(f, rs, o); },
        [](const RowOut& a, const RowOut& b) { return compare_rowout(a, b); },
        []() { return bench_rows<int16_t>(960); }));
    auto run_cm123 = [](decltype(&adm_cm_row_scale123) f, const RowSet<int32_t>& rs, RowOut* o) {
      thread_local std::vector<int32_t> sums32;
      const size_t rl = rs.row_len();
      sums32.assign(rl * size_t(rs.rows) * 2, 0);
      const bool small = rs.cub_d % 2 == 0;  // realistic thresholds (band sums of csf values) or any int32
      for (size_t i = 0; i < sums32.size() / 2; ++i) {
        sums32[i] = small ? rs.v[3][i] >> 12 : rs.v[3][i];
        sums32[sums32.size() / 2 + i] = small ? rs.v[4][i] >> 12 : rs.v[4][i];
      }
      for (int r = 0; r < rs.rows; ++r) {
        const int up = (r + rs.rows - 1) % rs.rows, dn = (r + 1) % rs.rows;
        const int32_t* fl[3] = {sums32.data() + rl * up + kMargin, sums32.data() + rl * r + kMargin,
                                sums32.data() + rl * dn + kMargin};
        const int32_t* ce = sums32.data() + sums32.size() / 2 + rl * r + kMargin;
        int64_t out[3];
        f(rs.ref(r), fl, ce, rs.w, rs.left, rs.right, rs.fixed, rs.cub, out);
        append_row(o, out, 3);
      }
    };
    reg.add(make_check<RowSet<int32_t>, RowOut>(
        "adm_cm_row_scale123", ref, isa, [](EdgeRng& rng, std::string* d) { return gen_rows<int32_t>(rng, d); },
        [f = s.cm_row_scale123, run_cm123](const RowSet<int32_t>& rs, RowOut* o) { run_cm123(f, rs, o); },
        [f = k->cm_row_scale123, run_cm123](const RowSet<int32_t>& rs, RowOut* o) { run_cm123(f, rs, o); },
        [](const RowOut& a, const RowOut& b) { return compare_rowout(a, b); },
        []() { return bench_rows<int32_t>(480); }));
  }
}

}  // namespace vmafx::checkasm
