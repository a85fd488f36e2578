// SPDX-License-Identifier: LGPL-2.1-or-later
// The SSIM kernels of engine/hip/kernels/ssim_impl.h emulated on the host work item by work item, with the kernels'
// own order of the sums: what the GPU must produce bit for bit (tests/gpu/test_hip_ssim_impl.cpp compares it with the
// CPU reference, tests/gpu/test_hip_ssim.cpp with the device).
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/ms_ssim.h"
#include "cpu/ssim.h"
#include "hip/kernels/ssim_impl.h"

namespace vmafx::test {

inline std::vector<float> decimate(const std::vector<float>& img, uint32_t w, uint32_t h, const float* kernel, int kw,
                            int kh, int factor, uint32_t* dw, uint32_t* dh) {
  *dw = uint32_t(cpu::decimated_size(int(w), factor));
  *dh = uint32_t(cpu::decimated_size(int(h), factor));
  std::vector<float> out(size_t(*dw) * *dh), unused(out.size());
  SsimDecimateArgs a{};
  a.ref = img.data();
  a.dist = img.data();
  a.kernel = kernel;
  a.ref_out = out.data();
  a.dist_out = unused.data();
  a.w = w;
  a.h = h;
  a.kw = vx_u32(kw);
  a.kh = vx_u32(kh);
  a.factor = vx_u32(factor);
  a.dw = *dw;
  a.dh = *dh;
  for (uint32_t y = 0; y < *dh; ++y)
    for (uint32_t x = 0; x < *dw; ++x) ssim_decimate_item(a, x, y);
  return out;
}

// Row pass of one scale into the five maps.
inline std::vector<float> rows(const std::vector<float>& ref, const std::vector<float>& dist, uint32_t w, uint32_t h) {
  const uint32_t dw = w - SSIM_WINDOW + 1;
  std::vector<float> tmp(size_t(SSIM_MAPS) * dw * h);
  SsimRowsArgs a{};
  a.ref = ref.data();
  a.dist = dist.data();
  a.tmp = tmp.data();
  a.map_stride = size_t(dw) * h;
  a.w = w;
  a.h = h;
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < dw; ++x) ssim_rows_item(a, x, y);
  return tmp;
}

inline SsimPoolArgs pool_args(const std::vector<float>& tmp, uint32_t w, uint32_t h, float* moments) {
  SsimPoolArgs a{};
  a.tmp = tmp.data();
  a.dw = w - SSIM_WINDOW + 1;
  a.dh = h - SSIM_WINDOW + 1;
  a.map_stride = size_t(a.dw) * h;
  a.moments = moments;
  return a;
}

// The four sums in the kernels' order: per block a tree over the thread index (threads outside add 0.0), then the
// final kernel's strided sums and tree.
inline void gpu_order_sums(const std::vector<float>& tmp, uint32_t w, uint32_t h, double out[4]) {
  const SsimPoolArgs a = pool_args(tmp, w, h, nullptr);
  const uint32_t gx = (a.dw + SSIM_BLOCK_X - 1) / SSIM_BLOCK_X, gy = (a.dh + SSIM_BLOCK_Y - 1) / SSIM_BLOCK_Y;
  std::vector<double> partials(size_t(4) * gx * gy);
  std::vector<double> v[4];
  for (auto& e : v) e.resize(SSIM_THREADS);
  for (uint32_t by = 0; by < gy; ++by)
    for (uint32_t bx = 0; bx < gx; ++bx) {
      for (uint32_t ty = 0; ty < SSIM_BLOCK_Y; ++ty)
        for (uint32_t tx = 0; tx < SSIM_BLOCK_X; ++tx) {
          const uint32_t x = bx * SSIM_BLOCK_X + tx, y = by * SSIM_BLOCK_Y + ty, t = ty * SSIM_BLOCK_X + tx;
          SsimTerms s{0.0, 0.0, 0.0, 0.0};
          if (x < a.dw && y < a.dh) s = ssim_pool_item(a, x, y);
          v[0][t] = s.ssim;
          v[1][t] = s.l;
          v[2][t] = s.c;
          v[3][t] = s.s;
        }
      for (int k = 0; k < 4; ++k) partials[4 * (size_t(by) * gx + bx) + k] = ssim_tree_sum(v[k].data(), SSIM_THREADS);
    }
  const size_t blocks = size_t(gx) * gy;
  for (int k = 0; k < 4; ++k) {
    std::vector<double> acc(SSIM_FINAL_THREADS, 0.0);
    for (size_t t = 0; t < SSIM_FINAL_THREADS; ++t)
      for (size_t i = t; i < blocks; i += SSIM_FINAL_THREADS) acc[t] += partials[4 * i + k];
    out[k] = ssim_tree_sum(acc.data(), SSIM_FINAL_THREADS);
  }
}

inline cpu::SsimMeans means_of(const double s[4], uint32_t w, uint32_t h) {
  const double count = double(int((w - SSIM_WINDOW + 1) * (h - SSIM_WINDOW + 1)));
  cpu::SsimMeans m;
  m.ssim = float(s[0] / count);
  m.l = float(s[1] / count);
  m.c = float(s[2] / count);
  m.s = float(s[3] / count);
  return m;
}

inline cpu::SsimMeans gpu_scale_means(const std::vector<float>& ref, const std::vector<float>& dist, uint32_t w,
                               uint32_t h) {
  double s[4];
  gpu_order_sums(rows(ref, dist, w, h), w, h, s);
  return means_of(s, w, h);
}

// float_ssim of two converted w x h images as SsimGpu computes it.
inline double gpu_ssim_of(std::vector<float> r, std::vector<float> d, uint32_t w, uint32_t h) {
  const int scale = cpu::ssim_scale_factor(int(w), int(h));
  if (scale > 1) {
    const std::vector<float> box = cpu::ssim_box_kernel(scale);
    uint32_t dw, dh;
    r = decimate(r, w, h, box.data(), scale, scale, scale, &dw, &dh);
    d = decimate(d, w, h, box.data(), scale, scale, scale, &dw, &dh);
    w = dw;
    h = dh;
  }
  return double(gpu_scale_means(r, d, w, h).ssim);
}

// float_ms_ssim of two converted w x h images as MsSsimGpu computes it; the per-scale sums in *sums when not null.
inline double gpu_ms_ssim_of(std::vector<float> r, std::vector<float> d, uint32_t w, uint32_t h,
                             double (*sums)[4] = nullptr) {
  cpu::SsimMeans means[cpu::kMsSsimScales];
  for (int s = 0; s < cpu::kMsSsimScales; ++s) {
    double v[4];
    gpu_order_sums(rows(r, d, w, h), w, h, v);
    if (sums)
      for (int k = 0; k < 4; ++k) sums[s][k] = v[k];
    means[s] = means_of(v, w, h);
    if (s + 1 < cpu::kMsSsimScales) {
      uint32_t dw, dh;
      r = decimate(r, w, h, cpu::kMsSsimLpf, cpu::kMsSsimLpfLen, cpu::kMsSsimLpfLen, 2, &dw, &dh);
      d = decimate(d, w, h, cpu::kMsSsimLpf, cpu::kMsSsimLpfLen, cpu::kMsSsimLpfLen, 2, &dw, &dh);
      w = dw;
      h = dh;
    }
  }
  return cpu::ms_ssim_combine(means);
}

}  // namespace vmafx::test
