// SPDX-License-Identifier: LGPL-2.1-or-later
// Shared by the SpEED kernel tests (tests/gpu/test_hip_speed_impl.cpp on the CPU, tests/gpu/test_hip_speed.cpp on a
// GPU): seeded chroma planes in the layouts the kernels read in place, the option sets they are checked under, and
// comparisons of estimates that name the first difference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu/plane.h"
#include "cpu/speed.h"

namespace vmafx::speed_test {

// How a chroma plane is stored.
struct Layout {
  const char* name;
  unsigned bpc;
  uint8_t bytes, shift, step;
  size_t pad;  // bytes after each row
};
inline const Layout kLayouts[] = {
    {"8-bit", 8, 1, 0, 1, 3},
    {"8-bit interleaved (NV12)", 8, 1, 0, 2, 1},
    {"10-bit", 10, 2, 0, 1, 2},
    {"10-bit in high bits, interleaved (P010)", 10, 2, 6, 2, 0},
    {"12-bit", 12, 2, 0, 1, 0},
    {"16-bit", 16, 2, 0, 1, 4},
};

enum Content { kTexture, kNoise, kFlat, kExtremes, kContentCount };
inline const char* const kContentNames[kContentCount] = {"texture", "noise", "flat", "min/max"};

struct HostPlane {
  std::vector<uint8_t> mem;
  size_t pitch = 0;
  uint32_t w = 0, h = 0;
  Layout layout{};
  cpu::Plane plane() const {
    cpu::Plane p;
    p.data = mem.data();
    p.stride = ptrdiff_t(pitch);
    p.w = w;
    p.h = h;
    p.bytes = layout.bytes;
    p.shift = layout.shift;
    p.step = layout.step;
    p.bpc = uint8_t(layout.bpc);
    return p;
  }
};

// A w x h plane: the bytes between interleaved samples and below the shift hold noise.
inline HostPlane make_plane(uint32_t w, uint32_t h, const Layout& lay, Content c, uint32_t seed) {
  std::mt19937 rng(seed);
  HostPlane p;
  p.w = w;
  p.h = h;
  p.layout = lay;
  p.pitch = size_t(w) * lay.step * lay.bytes + lay.pad;
  p.mem.resize(p.pitch * h + 8);
  for (auto& b : p.mem) b = uint8_t(rng());
  const int max = int((1u << lay.bpc) - 1);
  std::vector<int> walk(w);
  int v = max / 2;
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      int s = 0;
      switch (c) {
        case kTexture:
          v = std::clamp(v + int(rng() % 33) - 16 - (v - max / 2) / 64, 0, max);
          walk[x] = y ? (walk[x] * 3 + v) / 4 : v;
          s = std::clamp(walk[x] + int(rng() % 9) - 4, 0, max);
          break;
        case kNoise: s = int(rng() % uint32_t(max + 1)); break;
        case kFlat: s = max / 3; break;
        case kExtremes: s = (rng() % 2) ? max : 0; break;
        default: break;
      }
      uint8_t* row = p.mem.data() + size_t(y) * p.pitch;
      const size_t at = size_t(x) * lay.step;
      if (lay.bytes == 1) {
        row[at] = uint8_t(s);
      } else {
        const uint32_t low = lay.shift ? (rng() & ((1u << lay.shift) - 1)) : 0;
        const uint32_t word = (uint32_t(s) << lay.shift) | low;
        row[2 * at] = uint8_t(word);
        row[2 * at + 1] = uint8_t(word >> 8);
      }
    }
  }
  return p;
}

// The distorted plane of a pair: the reference blurred horizontally and noised (or, for kFlat, flat as well).
inline HostPlane distort(const HostPlane& ref, uint32_t seed) {
  std::mt19937 rng(seed);
  HostPlane d = ref;
  const cpu::Plane rp = ref.plane();
  const int max = int((1u << ref.layout.bpc) - 1);
  for (uint32_t y = 0; y < ref.h; ++y) {
    for (uint32_t x = 0; x < ref.w; ++x) {
      const int a = int(rp.at(x > 0 ? x - 1 : x, y)), b = int(rp.at(x, y)), c = int(rp.at(x + 1 < ref.w ? x + 1 : x, y));
      const int s = std::clamp((a + 2 * b + c) / 4 + int(rng() % 7) - 3, 0, max);
      uint8_t* row = d.mem.data() + size_t(y) * d.pitch;
      const size_t at = size_t(x) * d.layout.step;
      if (d.layout.bytes == 1) {
        row[at] = uint8_t(s);
      } else {
        const uint32_t word = uint32_t(s) << d.layout.shift;
        row[2 * at] = uint8_t(word);
        row[2 * at + 1] = uint8_t(word >> 8);
      }
    }
  }
  return d;
}

// Option sets of the kernel tests: defaults, the v1 models', every prescale method down and up, kernel scales.
struct OptionCase {
  const char* name;
  cpu::SpeedOptions opt;
};
inline std::vector<OptionCase> option_cases() {
  using M = cpu::SpeedScaleMethod;
  std::vector<OptionCase> v;
  cpu::SpeedOptions o;
  v.push_back({"defaults", o});
  o.nn_floor = 0.1;
  o.sigma_nn = 0.19;
  o.weight_var_mode = 5;
  o.max_val = 45;
  v.push_back({"v1", o});
  o.prescale = 0.6;
  o.prescale_method = M::bilinear;
  v.push_back({"v1 prescale 0.6 bilinear", o});
  o = {};
  o.prescale = 0.7;
  v.push_back({"prescale 0.7 nearest", o});
  o.prescale = 0.8;
  o.prescale_method = M::bicubic;
  v.push_back({"prescale 0.8 bicubic", o});
  o.prescale = 0.75;
  o.prescale_method = M::lanczos4;
  v.push_back({"prescale 0.75 lanczos4", o});
  o.prescale = 1.3;
  o.prescale_method = M::bilinear;
  v.push_back({"prescale 1.3 bilinear", o});
  o.prescale_method = M::lanczos4;
  v.push_back({"prescale 1.3 lanczos4", o});
  o = {};
  o.kernelscale = 1.5;
  v.push_back({"kernel scale 1.5", o});
  o.kernelscale = 0.5;
  v.push_back({"kernel scale 0.5", o});
  o.kernelscale = 3.0;
  o.weight_var_mode = 3;
  v.push_back({"kernel scale 3, weighting 3", o});
  return v;
}

inline ::testing::AssertionResult same_estimate(const cpu::SpeedEstimate& got, const cpu::SpeedEstimate& want) {
  for (int k = 0; k < cpu::kSpeedBlockElems; ++k)
    if (std::memcmp(&got.eigen[k], &want.eigen[k], sizeof(float)) != 0)
      return ::testing::AssertionFailure() << "eigenvalue " << k << ": kernel " << got.eigen[k] << ", CPU "
                                           << want.eigen[k];
  if (got.singular != want.singular)
    return ::testing::AssertionFailure() << "singular: kernel " << got.singular << ", CPU " << want.singular;
  if (got.variance.size() != want.variance.size())
    return ::testing::AssertionFailure() << got.variance.size() << " blocks, CPU " << want.variance.size();
  for (size_t j = 0; j < want.variance.size(); ++j)
    if (std::memcmp(&got.variance[j], &want.variance[j], sizeof(float)) != 0)
      return ::testing::AssertionFailure() << "variance of block " << j << ": kernel " << got.variance[j] << ", CPU "
                                           << want.variance[j];
  return ::testing::AssertionSuccess();
}

// The CPU's stage outputs of one image (the same calls as cpu::SpeedChroma::estimate_image, kept apart).
struct CpuStages {
  std::vector<float> dec, ms;
  cpu::SpeedEstimate est;
};
inline CpuStages cpu_stages(const cpu::Plane& p, const cpu::SpeedChroma& sp) {
  const cpu::SpeedDims& d = sp.dims();
  CpuStages c;
  std::vector<float> load(size_t(d.orig_w) * d.orig_h), scaled(size_t(d.scaled_w) * d.scaled_h);
  std::vector<float> tmp(size_t(std::max(d.scaled_w, d.orig_w)) + size_t(d.dec_w) * d.dec_h);
  cpu::speed_load(p, load.data(), d.orig_w);
  const float* src = load.data();
  if (d.rescale) {
    cpu::speed_prescale(sp.scale_tables(), d, load.data(), d.orig_w, scaled.data(), d.scaled_w);
    src = scaled.data();
  }
  c.dec.assign(size_t(d.dec_w) * d.dec_h, 0);
  cpu::speed_antialias_dec16(sp.filters(), src, d.scaled_w, d.scaled_w, d.scaled_h, c.dec.data(), d.dec_w,
                             tmp.data());
  c.ms = c.dec;
  cpu::speed_subtract_local_mean(sp.filters(), c.ms.data(), d.dec_w, d.dec_w, d.dec_h, tmp.data());
  cpu::speed_estimate(d, c.ms.data(), d.dec_w, &c.est);
  return c;
}

inline ::testing::AssertionResult same_floats(const std::vector<float>& got, const std::vector<float>& want, int w,
                                       const char* what) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << what << ": sizes differ";
  for (size_t i = 0; i < want.size(); i++)
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0)
      return ::testing::AssertionFailure() << what << " at (x=" << i % size_t(w) << ", y=" << i / size_t(w)
                                           << "): kernel " << got[i] << ", CPU " << want[i];
  return ::testing::AssertionSuccess();
}

}  // namespace vmafx::speed_test
