// SPDX-License-Identifier: LGPL-2.1-or-later
// Shared by the ADM kernel tests (tests/gpu/test_hip_adm_impl.cpp on the CPU, tests/gpu/test_hip_adm.cpp on a GPU):
// seeded, edge-biased picture pairs in every stored layout the kernel reads in place; the CPU reference run stage by
// stage into the kernel's test-mode ("dump") layout; comparisons that name the first mismatch.
#pragma once

#include <gtest/gtest.h>

#include <math.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu/adm.h"
#include "cpu/plane.h"
#include "hip/adm_gpu.h"
#include "hip/kernels/adm_impl.h"

namespace vmafx::adm_test {

namespace K = hip::adm;

// ---- inputs ------------------------------------------------------------------------------------------------------

enum Pattern { kRandom, kAllMin, kAllMax, kMinMaxNoise, kNear, kEnhanced, kMixed, kPatternCount };
inline const char* const kPatternNames[kPatternCount] = {"random", "all-min",  "all-max",      "min/max noise",
                                                  "near copy", "enhanced", "flat/noisy regions"};

// How a picture is stored: the kernel reads all of these in place.
struct Layout {
  const char* name;
  unsigned bpc;
  uint8_t bytes, shift, step;
  size_t pad;     // bytes after each row
  size_t offset;  // bytes before the first sample (1: 16-bit words at odd addresses)
};
inline const Layout kLayouts[] = {
    {"8-bit", 8, 1, 0, 1, 3, 0},
    {"10-bit", 10, 2, 0, 1, 0, 0},
    {"12-bit, odd pitch and address", 12, 2, 0, 1, 1, 1},
    {"16-bit", 16, 2, 0, 1, 6, 0},
    {"10-bit in high bits (P010)", 10, 2, 6, 1, 2, 0},
    {"8-bit interleaved", 8, 1, 0, 2, 5, 0},
    {"16-bit interleaved, odd address", 16, 2, 0, 2, 1, 1},
};

struct HostPicture {
  std::vector<uint8_t> mem;
  size_t offset = 0, pitch = 0;
  uint32_t w = 0, h = 0;
  Layout layout{};

  const uint8_t* data() const { return mem.data() + offset; }
  // Writes sample v; the bits below the shift and the bytes between interleaved samples hold noise.
  void put(uint32_t x, uint32_t y, uint32_t v, uint32_t noise) {
    uint8_t* row = mem.data() + offset + size_t(y) * pitch;
    const size_t at = size_t(x) * layout.step;
    if (layout.bytes == 1) {
      row[at] = uint8_t(v);
      return;
    }
    const uint32_t low = layout.shift ? (noise & ((1u << layout.shift) - 1)) : 0;
    const uint32_t word = (v << layout.shift) | low;
    row[2 * at] = uint8_t(word);
    row[2 * at + 1] = uint8_t(word >> 8);
  }
  cpu::Plane plane() const {
    cpu::Plane p;
    p.data = data();
    p.stride = ptrdiff_t(pitch);
    p.w = w;
    p.h = h;
    p.bytes = layout.bytes;
    p.shift = layout.shift;
    p.step = layout.step;
    p.bpc = uint8_t(layout.bpc);
    return p;
  }
  // As the pipeline describes a device plane to the kernel (its address and pitch say whether words are read whole).
  VxPlane arg() const { return VxPlane{data(), pitch, w, h, layout.bytes, layout.shift, layout.step}; }
};

struct PicturePair {
  HostPicture ref, dist;
};

inline PicturePair make_pair(uint32_t w, uint32_t h, const Layout& lay, Pattern pattern, uint32_t seed) {
  std::mt19937 rng(seed);
  const int max = int((1u << lay.bpc) - 1);
  PicturePair pp;
  for (HostPicture* p : {&pp.ref, &pp.dist}) {
    p->w = w;
    p->h = h;
    p->layout = lay;
    p->offset = lay.offset;
    p->pitch = size_t(w) * lay.step * lay.bytes + lay.pad;
    p->mem.resize(p->offset + p->pitch * h + 8);
    for (auto& b : p->mem) b = uint8_t(rng());
  }
  auto uni = [&] { return int(rng() % uint32_t(max + 1)); };
  auto clamp = [&](double v) { return uint32_t(std::clamp(int(std::lround(v)), 0, max)); };
  // Smooth content for the copies: a random walk per row, blended with the row above.
  std::vector<int> smooth(size_t(w) * h);
  for (uint32_t y = 0; y < h; ++y) {
    int v = uni();
    for (uint32_t x = 0; x < w; ++x) {
      v = std::clamp(v + int(rng() % 9) - 4 - (max / 64) * (int(rng() % 3) - 1), 0, max);
      smooth[size_t(y) * w + x] = y ? (v + smooth[size_t(y - 1) * w + x]) / 2 : v;
    }
  }
  std::vector<int> kind((w / 8 + 1) * (h / 8 + 1));
  for (auto& k : kind) k = int(rng() % 4);
  const double mid = max / 2.0;
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      uint32_t r = 0, d = 0;
      const int s = smooth[size_t(y) * w + x];
      switch (pattern) {
        case kRandom: r = uint32_t(uni()); d = uint32_t(uni()); break;
        case kAllMin: r = d = 0; break;
        case kAllMax: r = d = uint32_t(max); break;
        case kMinMaxNoise:
          r = rng() & 1 ? uint32_t(max) : 0;
          d = rng() & 1 ? uint32_t(max) : 0;
          break;
        case kNear: r = uint32_t(s); d = clamp(s + int(rng() % 7) - 3); break;
        case kEnhanced: r = uint32_t(s); d = clamp(mid + 1.3 * (s - mid) + int(rng() % 3) - 1); break;
        case kMixed: {
          const int k = kind[(y / 8) * (w / 8 + 1) + x / 8];
          if (k == 0) r = d = uint32_t(max / 3);                               // flat, equal
          if (k == 1) { r = uint32_t(uni()); d = r; }                          // noisy, equal
          if (k == 2) { r = uint32_t(s); d = clamp(0.7 * s); }                 // attenuated
          if (k == 3) { r = rng() & 1 ? uint32_t(max) : 0; d = uint32_t(max) - r; }  // inverted extremes
          break;
        }
        default: break;
      }
      pp.ref.put(x, y, r, rng());
      pp.dist.put(x, y, d, rng());
    }
  }
  return pp;
}

// ---- the CPU reference, stage by stage, in the kernel's dump layout -----------------------------------------------

// One scale: kDumpPlanes planes of w x h, and its sums.
template <class T>
struct StagePlanes {
  int w = 0, h = 0;
  std::vector<T> v;
  T* plane(int k) { return v.data() + size_t(k) * size_t(w) * size_t(h); }
  const T* plane(int k) const { return v.data() + size_t(k) * size_t(w) * size_t(h); }
  void alloc(int w_, int h_, T fill) {
    w = w_;
    h = h_;
    v.assign(size_t(K::kDumpPlanes) * size_t(w) * size_t(h), fill);
  }
  cpu::AdmBands<T> bands(int first, bool with_a) {
    return cpu::AdmBands<T>(with_a ? plane(first) : nullptr, plane(first + (with_a ? 1 : 0)),
                            plane(first + (with_a ? 2 : 1)), plane(first + (with_a ? 3 : 2)), w);
  }
};

struct Reference {
  StagePlanes<int16_t> s0;
  StagePlanes<int32_t> s123[3];
  hip::AdmFrameSums sums;
};

template <class T, class DecoupleFn, class CsfFn, class DenFn, class CmFn>
void reference_scale(StagePlanes<T>& sp, double gain, DecoupleFn decouple, CsfFn csf, DenFn den, CmFn cm,
                     cpu::AdmDenSums* den_out, cpu::AdmCmSums* dlm_out, cpu::AdmCmSums* aim_out) {
  const int w = sp.w, h = sp.h;
  decouple(sp.bands(K::kDumpRefA, true), sp.bands(K::kDumpDistA, true), w, h, gain, sp.bands(K::kDumpR, false),
           sp.bands(K::kDumpAdd, false));
  *den_out = den(sp.bands(K::kDumpRefA, true), w, h);
  csf(sp.bands(K::kDumpAdd, false), w, h, sp.bands(K::kDumpCsfDlm, false), sp.bands(K::kDumpFltDlm, false));
  *dlm_out = cm(sp.bands(K::kDumpR, false), sp.bands(K::kDumpCsfDlm, false), sp.bands(K::kDumpFltDlm, false), w, h);
  csf(sp.bands(K::kDumpR, false), w, h, sp.bands(K::kDumpCsfAim, false), sp.bands(K::kDumpFltAim, false));
  *aim_out = cm(sp.bands(K::kDumpAdd, false), sp.bands(K::kDumpCsfAim, false), sp.bands(K::kDumpFltAim, false), w, h);
}

// Every stage of the CPU reference. The fixed-point factors come from the CPU's own functions, not from the GPU
// parameters (which the test checks separately).
inline Reference run_reference(const PicturePair& pp, const cpu::AdmOptions& opt) {
  Reference ref;
  int w = int((pp.ref.w + 1) / 2), h = int((pp.ref.h + 1) / 2);
  float rfactor[4][3];
  for (int s = 0; s < 4; ++s) cpu::adm_csf_factors(s, opt, rfactor[s]);
  uint16_t fixed0[3];
  cpu::adm_fixed_factors_scale0(rfactor[0], opt, fixed0);

  ref.s0.alloc(w, h, int16_t(0x5a5a));
  std::vector<int16_t> tmp16(2 * size_t(pp.ref.w));
  cpu::adm_dwt_scale0(pp.ref.plane(), ref.s0.bands(K::kDumpRefA, true), tmp16.data());
  cpu::adm_dwt_scale0(pp.dist.plane(), ref.s0.bands(K::kDumpDistA, true), tmp16.data());
  reference_scale(
      ref.s0, opt.enhn_gain_limit, cpu::adm_decouple_scale0,
      [&](cpu::AdmBands<const int16_t> src, int bw, int bh, cpu::AdmBands<int16_t> c, cpu::AdmBands<int16_t> f) {
        cpu::adm_csf_scale0(src, bw, bh, fixed0, c, f);
      },
      cpu::adm_den_sums_scale0,
      [&](cpu::AdmBands<const int16_t> x, cpu::AdmBands<const int16_t> c, cpu::AdmBands<const int16_t> f, int bw,
          int bh) { return cpu::adm_cm_sums_scale0(x, c, f, bw, bh, fixed0); },
      &ref.sums.den[0], &ref.sums.dlm[0], &ref.sums.aim[0]);

  for (int s = 1; s < 4; ++s) {
    const int in_w = w, in_h = h;
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    StagePlanes<int32_t>& sp = ref.s123[s - 1];
    sp.alloc(w, h, int32_t(0x5a5a5a5a));
    uint32_t fixed[3];
    cpu::adm_fixed_factors_scale123(rfactor[s], fixed);
    std::vector<int32_t> tmp32(2 * size_t(in_w));
    if (s == 1) {
      cpu::adm_dwt_scale123(ref.s0.plane(K::kDumpRefA), in_w, in_w, in_h, s, sp.bands(K::kDumpRefA, true),
                            tmp32.data());
      cpu::adm_dwt_scale123(ref.s0.plane(K::kDumpDistA), in_w, in_w, in_h, s, sp.bands(K::kDumpDistA, true),
                            tmp32.data());
    } else if (s == 3 && (cpu::adm_small_axis(in_w) || cpu::adm_small_axis(in_h))) {
      // libvmaf's reads before its buffers: its scale-0 csf_f band d (the CSF of r, or flt of a with adm_skip_aim,
      // nothing with adm_skip_scale0), written over the tap rectangle only.
      const int w0 = ref.s0.w, h0 = ref.s0.h;
      std::vector<int16_t> csf_f(size_t(w0) * h0, 0);
      if (!opt.skip_scale0) {
        const int16_t* src = ref.s0.plane((opt.skip_aim ? K::kDumpFltDlm : K::kDumpCsfAim) + 2);
        const cpu::AdmRect tap = cpu::adm_tap_rect(w0, h0);
        for (int i = tap.top; i < tap.bottom; ++i)
          for (int j = tap.left; j < tap.right; ++j) csf_f[size_t(i) * w0 + j] = src[size_t(i) * w0 + j];
      }
      std::vector<int32_t> row(static_cast<size_t>(in_w)), tmp(4 * static_cast<size_t>(in_w));
      cpu::adm_small_ref_row_above(csf_f.data(), w0, w0, h0, in_w, row.data());
      StagePlanes<int32_t>& prev = ref.s123[s - 2];
      cpu::adm_dwt_scale3_small(prev.plane(K::kDumpRefA), prev.plane(K::kDumpDistA), in_w, in_w, in_h, row.data(),
                                sp.bands(K::kDumpRefA, true), sp.bands(K::kDumpDistA, true), tmp.data());
    } else {
      StagePlanes<int32_t>& prev = ref.s123[s - 2];
      cpu::adm_dwt_scale123(prev.plane(K::kDumpRefA), in_w, in_w, in_h, s, sp.bands(K::kDumpRefA, true),
                            tmp32.data());
      cpu::adm_dwt_scale123(prev.plane(K::kDumpDistA), in_w, in_w, in_h, s, sp.bands(K::kDumpDistA, true),
                            tmp32.data());
    }
    reference_scale(
        sp, opt.enhn_gain_limit, cpu::adm_decouple_scale123,
        [&](cpu::AdmBands<const int32_t> src, int bw, int bh, cpu::AdmBands<int32_t> c, cpu::AdmBands<int32_t> f) {
          cpu::adm_csf_scale123(src, bw, bh, fixed, c, f);
        },
        [&](cpu::AdmBands<const int32_t> b, int bw, int bh) { return cpu::adm_den_sums_scale123(b, bw, bh, s); },
        [&](cpu::AdmBands<const int32_t> x, cpu::AdmBands<const int32_t> c, cpu::AdmBands<const int32_t> f, int bw,
            int bh) { return cpu::adm_cm_sums_scale123(x, c, f, bw, bh, fixed); },
        &ref.sums.den[s], &ref.sums.dlm[s], &ref.sums.aim[s]);
  }
  return ref;
}


// ---- comparisons -----------------------------------------------------------------------------------------------

inline const char* const kPlaneNames[K::kDumpPlanes] = {
    "ref a",       "ref h",       "ref v",       "ref d",       "dist a",      "dist h",      "dist v",
    "dist d",      "r h",         "r v",         "r d",         "a h",         "a v",         "a d",
    "csf(a) h",    "csf(a) v",    "csf(a) d",    "flt(a) h",    "flt(a) v",    "flt(a) d",    "csf(r) h",
    "csf(r) v",    "csf(r) d",    "flt(r) h",    "flt(r) v",    "flt(r) d"};

// Bands over the whole band, the decouple and CSF outputs over the CPU's tap rectangle (where it writes them).
template <class T>
::testing::AssertionResult same_stages(const StagePlanes<T>& got, const StagePlanes<T>& want, int scale) {
  if (got.w != want.w || got.h != want.h)
    return ::testing::AssertionFailure() << "scale " << scale << ": band " << got.w << "x" << got.h << ", CPU "
                                         << want.w << "x" << want.h;
  const cpu::AdmRect tap = cpu::adm_tap_rect(want.w, want.h);
  for (int k = 0; k < K::kDumpPlanes; ++k) {
    const bool band = k < K::kDumpR;
    const cpu::AdmRect rc = band ? cpu::AdmRect{0, 0, want.w, want.h} : tap;
    for (int i = rc.top; i < rc.bottom; ++i) {
      for (int j = rc.left; j < rc.right; ++j) {
        const size_t at = size_t(i) * want.w + j;
        if (got.plane(k)[at] != want.plane(k)[at])
          return ::testing::AssertionFailure()
                 << "scale " << scale << " " << kPlaneNames[k] << " at (x=" << j << ", y=" << i << ") of "
                 << want.w << "x" << want.h << ": kernel " << int64_t(got.plane(k)[at]) << ", CPU "
                 << int64_t(want.plane(k)[at]);
      }
    }
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult same_sums(const hip::AdmFrameSums& got, const hip::AdmFrameSums& want) {
  const char* band[3] = {"h", "v", "d"};
  for (int s = 0; s < 4; ++s) {
    const uint64_t gd[3] = {got.den[s].h, got.den[s].v, got.den[s].d};
    const uint64_t wd[3] = {want.den[s].h, want.den[s].v, want.den[s].d};
    const int64_t gn[3] = {got.dlm[s].h, got.dlm[s].v, got.dlm[s].d};
    const int64_t wn[3] = {want.dlm[s].h, want.dlm[s].v, want.dlm[s].d};
    const int64_t ga[3] = {got.aim[s].h, got.aim[s].v, got.aim[s].d};
    const int64_t wa[3] = {want.aim[s].h, want.aim[s].v, want.aim[s].d};
    for (int b = 0; b < 3; ++b) {
      if (gd[b] != wd[b])
        return ::testing::AssertionFailure() << "scale " << s << " den " << band[b] << ": " << gd[b] << ", CPU "
                                             << wd[b];
      if (gn[b] != wn[b])
        return ::testing::AssertionFailure() << "scale " << s << " DLM numerator " << band[b] << ": " << gn[b]
                                             << ", CPU " << wn[b];
      if (ga[b] != wa[b])
        return ::testing::AssertionFailure() << "scale " << s << " AIM numerator " << band[b] << ": " << ga[b]
                                             << ", CPU " << wa[b];
    }
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult same_scores(const cpu::AdmScores& got, const cpu::AdmScores& want) {
  const double g[7] = {got.adm2, got.aim, got.adm3, got.scale[0], got.scale[1], got.scale[2], got.scale[3]};
  const double w[7] = {want.adm2, want.aim, want.adm3, want.scale[0], want.scale[1], want.scale[2], want.scale[3]};
  const char* names[7] = {"integer_adm2",       "integer_aim",        "integer_adm3",      "integer_adm_scale0",
                          "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3"};
  for (int k = 0; k < 7; ++k) {
    if (std::memcmp(&g[k], &w[k], sizeof(double)) != 0) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "%s: %.17g, CPU %.17g", names[k], g[k], w[k]);
      return ::testing::AssertionFailure() << buf;
    }
  }
  return ::testing::AssertionSuccess();
}


struct Size {
  uint32_t w, h;
};


}  // namespace vmafx::adm_test
