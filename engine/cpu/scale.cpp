// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu/scale.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <new>
#include <string>

namespace vmafx::cpu {

namespace {

// swscale drops leading and trailing taps whose magnitudes sum to at most this fraction of one.
constexpr double kReduceCutoff = 0.002;
// Every plane's first sample sits half a sample from its left (top) edge: 128/256 in swscale's units.
constexpr int64_t kSitePos = 128;

int log2_floor(uint32_t v) {
  int n = 0;
  while (v > 1) {
    v >>= 1;
    ++n;
  }
  return n;
}

int64_t rounded_div(int64_t a, int64_t b) { return a >= 0 ? (a + (b >> 1)) / b : (a - (b >> 1)) / b; }

// swscale's step between output samples in 1/65536 source samples, rounded.
int64_t step_q16(uint32_t src, uint32_t dst) { return ((int64_t(src) << 16) + (dst >> 1)) / dst; }

// The unnormalised weight of a tap at distance d (1/2^30 source samples, already scaled to the source's grid when
// downscaling), with `fone` the weight of distance 0.
int64_t kernel_weight(ScaleKernel k, int64_t d, int64_t fone) {
  switch (k) {
    case ScaleKernel::bicubic: {
      // B and C in 8.24 fixed point, converted from double as swscale converts them (C = 0.6 truncates).
      const int64_t B = int64_t(0.0 * (1 << 24));
      const int64_t C = int64_t(0.6 * (1 << 24));
      int64_t coeff;
      if (d >= (int64_t(1) << 31)) {
        coeff = 0;
      } else {
        const int64_t dd = (d * d) >> 30;
        const int64_t ddd = (dd * d) >> 30;
        if (d < (int64_t(1) << 30))
          coeff = (12 * (1 << 24) - 9 * B - 6 * C) * ddd + (-18 * (1 << 24) + 12 * B + 6 * C) * dd +
                  (6 * (1 << 24) - 2 * B) * (int64_t(1) << 30);
        else
          coeff = (-B - 6 * C) * ddd + (6 * B + 30 * C) * dd + (-12 * B - 48 * C) * d +
                  (8 * B + 24 * C) * (int64_t(1) << 30);
      }
      return coeff / ((int64_t(1) << 54) / fone);
    }
    case ScaleKernel::bilinear: {
      int64_t coeff = (int64_t(1) << 30) - d;
      if (coeff < 0) coeff = 0;
      return coeff * (fone >> 30);
    }
    case ScaleKernel::lanczos: {
      const double p = 3.0;
      const double floatd = double(d) * (1.0 / (1 << 30));
      if (floatd > p) return 0;
      const double w =
          d ? std::sin(floatd * M_PI) * std::sin(floatd * M_PI / p) / (floatd * floatd * M_PI * M_PI / p) : 1.0;
      return int64_t(w * double(fone));
    }
  }
  return 0;
}

int size_factor(ScaleKernel k) {
  switch (k) {
    case ScaleKernel::bicubic: return 4;
    case ScaleKernel::bilinear: return 2;
    case ScaleKernel::lanczos: return 6;  // 2 x 3 lobes
  }
  return 4;
}

template <class T>
int32_t h_sum(const T* row, size_t step, unsigned shift, uint32_t n, int32_t pos, const int16_t* coef, int taps) {
  // Unsigned so that 16-bit sums wrap as swscale's 32-bit int does; the value is the same two's complement.
  uint32_t sum = 0;
  for (int t = 0; t < taps; ++t) {
    const uint32_t x = uint32_t(pos + t);
    if (x >= n) break;  // past the end: weight 0 (the filter's border folding guarantees it)
    const uint32_t s = uint32_t(row[size_t(x) * step]) >> shift;
    sum += s * uint32_t(int32_t(coef[t]));
  }
  return int32_t(sum);
}

}  // namespace

const char* scale_kernel_name(ScaleKernel k) {
  switch (k) {
    case ScaleKernel::bicubic: return "bicubic";
    case ScaleKernel::bilinear: return "bilinear";
    case ScaleKernel::lanczos: return "lanczos";
  }
  return "?";
}

Status scale_build_axis(ScaleKernel k, uint32_t src_n, uint32_t dst_n, bool vertical, ScaleAxis* out) {
  if (!out) return {Errc::invalid_argument, "scale: no output"};
  if (src_n == 0 || dst_n == 0 || src_n > (1u << 24) || dst_n > (1u << 24))
    return {Errc::unsupported, "scale: cannot scale " + std::to_string(src_n) + " samples to " +
                                   std::to_string(dst_n)};
  const int64_t inc = step_q16(src_n, dst_n);
  const int64_t one = vertical ? kScaleVerticalOne : kScaleHorizontalOne;
  const int64_t fone = int64_t(1) << (54 - std::min(log2_floor(src_n / dst_n), 8));
  const int src = int(src_n), dst = int(dst_n);

  // Unnormalised weights (int64, `fone` is 1.0).
  int size;
  std::vector<int32_t> pos(dst);
  std::vector<int64_t> w;
  if (std::llabs(inc - 0x10000) < 10) {
    // Same size (up to rounding of the step): one tap of weight 1 per sample.
    size = 1;
    w.assign(size_t(dst), fone);
    for (int i = 0; i < dst; ++i) pos[i] = i;
  } else {
    const int factor = size_factor(k);
    size = inc <= (1 << 16) ? 1 + factor : 1 + (factor * src + dst - 1) / dst;
    size = std::max(std::min(size, src - 2), 1);
    w.assign(size_t(dst) * size, 0);
    // Position of output i's centre in the source, in 1/2^17 samples.
    int64_t centre = ((kSitePos * inc) >> 7) - ((kSitePos * 0x10000) >> 7);
    for (int i = 0; i < dst; ++i) {
      int xx = int((centre - int64_t(size - 2) * (int64_t(1) << 16)) / (int64_t(1) << 17));  // truncates to 0
      pos[i] = xx;
      for (int j = 0; j < size; ++j, ++xx) {
        int64_t d = std::llabs(int64_t(xx) * (int64_t(1) << 17) - centre) << 13;
        if (inc > (1 << 16)) d = d * dst / src;
        w[size_t(i) * size + j] = kernel_weight(k, d, fone);
      }
      centre += 2 * inc;
    }
  }

  // Trim: shift out near-zero leading taps (keeping positions increasing), find the longest needed length.
  const double cutoff = kReduceCutoff * double(fone);
  int min_size = 0;
  for (int i = dst - 1; i >= 0; --i) {
    int64_t* f = &w[size_t(i) * size];
    int keep = size;
    int64_t acc = 0;
    for (int j = 0; j < size; ++j) {
      acc += std::llabs(f[0]);
      if (double(acc) > cutoff) break;
      if (i < dst - 1 && pos[i] >= pos[i + 1]) break;
      for (int t = 1; t < size; ++t) f[t - 1] = f[t];
      f[size - 1] = 0;
      pos[i]++;
    }
    acc = 0;
    for (int j = size - 1; j > 0; --j) {
      acc += std::llabs(f[j]);
      if (double(acc) > cutoff) break;
      keep--;
    }
    min_size = std::max(min_size, keep);
  }

  // x86 alignment: 4 taps horizontally, 2 vertically (a single vertical tap stays single).
  int align = vertical ? 2 : 4;
  if (vertical && min_size == 1) align = 1;
  const int taps = (min_size + align - 1) & ~(align - 1);
  if (taps > kScaleMaxTaps)
    return {Errc::unsupported, "scale: " + std::to_string(src_n) + " to " + std::to_string(dst_n) +
                                   " samples needs a " + std::to_string(taps) + "-tap filter (at most " +
                                   std::to_string(kScaleMaxTaps) + "; swscale would cascade two scalers)"};

  std::vector<int64_t> f(size_t(dst) * taps, 0);
  for (int i = 0; i < dst; ++i)
    for (int j = 0; j < taps && j < size; ++j) f[size_t(i) * taps + j] = w[size_t(i) * size + j];

  // Fold taps outside the source onto the edge samples.
  for (int i = 0; i < dst; ++i) {
    int64_t* c = &f[size_t(i) * taps];
    if (pos[i] < 0) {
      for (int j = 1; j < taps; ++j) {
        const int left = std::max(j + pos[i], 0);
        c[left] += c[j];
        c[j] = 0;
      }
      pos[i] = 0;
    }
    if (pos[i] + taps > src) {
      const int shift = pos[i] + std::min(taps - src, 0);
      int64_t acc = 0;
      for (int j = taps - 1; j >= 0; --j) {
        if (pos[i] + j >= src) {
          acc += c[j];
          c[j] = 0;
        }
      }
      for (int j = taps - 1; j >= 0; --j) c[j] = j < shift ? 0 : c[j - shift];
      pos[i] -= shift;
      c[src - 1 - pos[i]] += acc;
    }
    if (pos[i] < 0 || pos[i] >= src)
      return {Errc::internal, "scale: filter position " + std::to_string(pos[i]) + " outside the source"};
  }

  // Normalise to `one`, carrying each tap's rounding error into the next.
  out->src = src_n;
  out->dst = dst_n;
  out->taps = taps;
  out->pos = pos;
  out->coef.assign(size_t(dst) * taps, 0);
  for (int i = 0; i < dst; ++i) {
    const int64_t* c = &f[size_t(i) * taps];
    int64_t sum = 0;
    for (int j = 0; j < taps; ++j) sum += c[j];
    sum = (sum + one / 2) / one;
    if (sum == 0) sum = 1;
    int64_t error = 0;
    for (int j = 0; j < taps; ++j) {
      const int64_t v = c[j] + error;
      const int64_t q = rounded_div(v, sum);
      out->coef[size_t(i) * taps + j] = int16_t(q);
      error = v - q * sum;
    }
  }
  return Status::ok();
}

void scale_h_row(const Plane& p, uint32_t y, const ScaleAxis& h, int32_t* out) {
  // Four taps of 8-bit samples, the filter inside the row (every upscale but its last outputs): unrolled.
  uint32_t i = 0;
  if (p.bytes == 1 && p.step == 1 && h.taps == 4) {
    const uint8_t* row = p.row<uint8_t>(y);
    for (; i < h.dst && uint32_t(h.pos[i]) + 4 <= p.w; ++i) {
      const uint8_t* s = row + h.pos[i];
      const int16_t* c = &h.coef[size_t(i) * 4];
      const int32_t sum = s[0] * c[0] + s[1] * c[1] + s[2] * c[2] + s[3] * c[3];
      out[i] = scale_h_finish(sum, 8);
    }
  }
  for (; i < h.dst; ++i) {
    const int16_t* c = &h.coef[size_t(i) * h.taps];
    const int32_t sum = p.bytes == 1 ? h_sum(p.row<uint8_t>(y), p.step, 0, p.w, h.pos[i], c, h.taps)
                                     : h_sum(p.row<uint16_t>(y), p.step, p.shift, p.w, h.pos[i], c, h.taps);
    out[i] = scale_h_finish(sum, p.bpc);
  }
}

ScaleVMode scale_v_mode(unsigned bpc, int taps, uint32_t row, unsigned vsub, uint32_t luma_rows) {
  if (taps == 1) return ScaleVMode::one_tap;
  if (bpc != 8) return ScaleVMode::c;
  return int64_t(row) << vsub >= int64_t(luma_rows) - 2 ? ScaleVMode::c : ScaleVMode::x86;
}

uint32_t scale_v_sample(ScaleVMode mode, unsigned bpc, const int32_t* v, const int16_t* coef, int taps) {
  if (bpc == 8) {
    if (mode == ScaleVMode::one_tap) {
      const int32_t s = (v[0] + 64) >> 7;
      return s < 0 ? 0u : s > 255 ? 255u : uint32_t(s);
    }
    if (mode == ScaleVMode::x86) {
      int32_t acc = scale_x86_bias(taps);
      for (int t = 0; t < taps; ++t) acc += scale_x86_tap(coef[t], v[t]);
      return scale_x86_finish(acc);
    }
    uint32_t sum = 64u << 12;
    for (int t = 0; t < taps; ++t) sum += uint32_t(v[t] * int32_t(coef[t]));
    const int32_t s = int32_t(sum) >> 19;
    return s < 0 ? 0u : s > 255 ? 255u : uint32_t(s);
  }
  if (bpc <= 14) {
    const int32_t max = (1 << bpc) - 1;
    int32_t s;
    if (mode == ScaleVMode::one_tap) {
      const int shift = 15 - int(bpc);
      s = (v[0] + (1 << (shift - 1))) >> shift;
    } else {
      const int shift = 27 - int(bpc);
      int32_t sum = 1 << (shift - 1);
      for (int t = 0; t < taps; ++t) sum += v[t] * int32_t(coef[t]);
      s = sum >> shift;
    }
    return s < 0 ? 0u : s > max ? uint32_t(max) : uint32_t(s);
  }
  // 16-bit: 19-bit intermediates, sums offset by 2^30 to stay in range (swscale's arithmetic, wrapping as it does).
  if (mode == ScaleVMode::one_tap) {
    const int32_t s = (v[0] + 4) >> 3;
    return s < 0 ? 0u : s > 65535 ? 65535u : uint32_t(s);
  }
  uint32_t sum = uint32_t((1 << 14) - 0x40000000);
  for (int t = 0; t < taps; ++t) sum += uint32_t(v[t]) * uint32_t(int32_t(coef[t]));
  int32_t s = int32_t(sum) >> 15;
  s = s < -32768 ? -32768 : s > 32767 ? 32767 : s;
  return uint32_t(s + 0x8000);
}

Status Scaler::init(ScaleKernel kernel, uint32_t src_w, uint32_t src_h, uint32_t dst_w, uint32_t dst_h,
                    Chroma chroma, unsigned bpc) {
  bpc_ = 0;
  if (!(bpc == 8 || (bpc >= 9 && bpc <= 14) || bpc == 16))
    return {Errc::unsupported, "scale: " + std::to_string(bpc) + "-bit samples (8..14 and 16 are handled)"};
  if (src_w == 0 || src_h == 0 || dst_w == 0 || dst_h == 0)
    return {Errc::invalid_argument, "scale: empty picture"};
  const std::string what = std::to_string(src_w) + "x" + std::to_string(src_h) + " to " + std::to_string(dst_w) +
                           "x" + std::to_string(dst_h);
  try {
    VMAFX_TRY(scale_build_axis(kernel, src_w, dst_w, false, &h_[0]).prepend("scale " + what));
    VMAFX_TRY(scale_build_axis(kernel, src_h, dst_h, true, &v_[0]).prepend("scale " + what));
    if (chroma != Chroma::k400) {
      VMAFX_TRY(scale_build_axis(kernel, chroma_width_stored(chroma, src_w), chroma_width_stored(chroma, dst_w),
                                 false, &h_[1])
                    .prepend("scale " + what + " (chroma)"));
      VMAFX_TRY(scale_build_axis(kernel, chroma_height_stored(chroma, src_h), chroma_height_stored(chroma, dst_h),
                                 true, &v_[1])
                    .prepend("scale " + what + " (chroma)"));
    }
  } catch (const std::bad_alloc&) {
    return {Errc::out_of_memory, "scale " + what + ": cannot allocate the filters"};
  }
  kernel_ = kernel;
  src_w_ = src_w;
  src_h_ = src_h;
  dst_w_ = dst_w;
  dst_h_ = dst_h;
  chroma_ = chroma;
  bpc_ = bpc;
  return Status::ok();
}

size_t Scaler::tmp_size(unsigned index) const {
  const ScaleAxis& h = horizontal(index);
  const ScaleAxis& v = vertical(index);
  return size_t(h.dst) * v.src;
}

void Scaler::scale_plane(unsigned index, const Plane& src, uint8_t* dst, ptrdiff_t dst_stride, int32_t* tmp) const {
  const ScaleAxis& h = horizontal(index);
  const ScaleAxis& v = vertical(index);
  for (uint32_t y = 0; y < v.src; ++y) scale_h_row(src, y, h, tmp + size_t(y) * h.dst);
  // Row by row, tap by tap over the whole row: the arithmetic of scale_v_sample(), in an order compilers vectorise.
  const uint32_t n = h.dst;
  std::vector<uint32_t> acc(n);
  std::vector<const int32_t*> rows(size_t(v.taps));
  const unsigned sub = vsub(index);
  for (uint32_t y = 0; y < v.dst; ++y) {
    const ScaleVMode mode = scale_v_mode(bpc_, v.taps, y, sub, dst_h_);
    const int16_t* c = &v.coef[size_t(y) * v.taps];
    for (int t = 0; t < v.taps; ++t)  // rows past the end carry weight 0
      rows[t] = tmp + size_t(std::min<uint32_t>(uint32_t(v.pos[y] + t), v.src - 1)) * n;
    uint8_t* out = dst + ptrdiff_t(y) * dst_stride;
    uint16_t* out16 = reinterpret_cast<uint16_t*>(out);
    if (mode == ScaleVMode::one_tap) {
      for (uint32_t x = 0; x < n; ++x) {
        const uint32_t s = scale_v_sample(mode, bpc_, rows[0] + x, c, 1);
        if (bpc_ == 8)
          out[x] = uint8_t(s);
        else
          out16[x] = uint16_t(s);
      }
      continue;
    }
    if (mode == ScaleVMode::x86) {
      std::fill(acc.begin(), acc.end(), uint32_t(scale_x86_bias(v.taps)));
      for (int t = 0; t < v.taps; ++t) {
        const int32_t* r = rows[t];
        const int16_t ct = c[t];
        for (uint32_t x = 0; x < n; ++x) acc[x] += uint32_t(scale_x86_tap(ct, r[x]));
      }
      for (uint32_t x = 0; x < n; ++x) out[x] = uint8_t(scale_x86_finish(int32_t(acc[x])));
      continue;
    }
    // swscale's C filters; 32-bit sums that wrap as its do (only the 16-bit one can).
    const uint32_t init = bpc_ == 8 ? 64u << 12
                          : bpc_ <= 14 ? 1u << (26 - bpc_)
                                       : uint32_t((1 << 14) - 0x40000000);
    std::fill(acc.begin(), acc.end(), init);
    for (int t = 0; t < v.taps; ++t) {
      const int32_t* r = rows[t];
      const uint32_t ct = uint32_t(int32_t(c[t]));
      for (uint32_t x = 0; x < n; ++x) acc[x] += uint32_t(r[x]) * ct;
    }
    if (bpc_ == 8) {
      for (uint32_t x = 0; x < n; ++x) {
        const int32_t s = int32_t(acc[x]) >> 19;
        out[x] = uint8_t(s < 0 ? 0 : s > 255 ? 255 : s);
      }
    } else if (bpc_ <= 14) {
      const int32_t max = (1 << bpc_) - 1;
      const int shift = 27 - int(bpc_);
      for (uint32_t x = 0; x < n; ++x) {
        const int32_t s = int32_t(acc[x]) >> shift;
        out16[x] = uint16_t(s < 0 ? 0 : s > max ? max : s);
      }
    } else {
      for (uint32_t x = 0; x < n; ++x) {
        int32_t s = int32_t(acc[x]) >> 15;
        s = s < -32768 ? -32768 : s > 32767 ? 32767 : s;
        out16[x] = uint16_t(s + 0x8000);
      }
    }
  }
}

Status Scaler::scale(const PictureView& src, ScaledPicture* out) const {
  if (!out) return {Errc::invalid_argument, "scale: no output"};
  if (bpc_ == 0) return {Errc::invalid_argument, "scale: not initialised"};
  if (src.memory != MemoryKind::host) return {Errc::unsupported, "scale: the CPU scaler reads host memory only"};
  if (src.width != src_w_ || src.height != src_h_ || src.chroma != chroma_ || src.bit_depth != bpc_)
    return {Errc::invalid_argument, "scale: picture is " + std::to_string(src.width) + "x" +
                                        std::to_string(src.height) + " " + chroma_name(src.chroma) + " " +
                                        std::to_string(src.bit_depth) + "-bit, the scaler was set up for " +
                                        std::to_string(src_w_) + "x" + std::to_string(src_h_) + " " +
                                        chroma_name(chroma_) + " " + std::to_string(bpc_) + "-bit"};
  const unsigned bytes = bpc_ > 8 ? 2 : 1;
  if (src.bytes_per_sample != bytes || src.shift + bpc_ > 8u * bytes)
    return {Errc::invalid_argument, "scale: inconsistent sample layout"};
  const unsigned n = src.plane_count();
  PictureView& v = out->view;
  v = PictureView{};
  v.memory = MemoryKind::host;
  v.chroma = chroma_;
  v.bit_depth = uint8_t(bpc_);
  v.bytes_per_sample = uint8_t(bytes);
  v.shift = 0;
  v.width = dst_w_;
  v.height = dst_h_;
  try {
    size_t tmp = 0;
    for (unsigned i = 0; i < n; ++i) tmp = std::max(tmp, tmp_size(i));
    if (out->tmp.size() < tmp) out->tmp.resize(tmp);
    for (unsigned i = 0; i < n; ++i) {
      const size_t bytes_needed = size_t(horizontal(i).dst) * vertical(i).dst * bytes;
      if (out->planes[i].size() < bytes_needed) out->planes[i].resize(bytes_needed);
    }
  } catch (const std::bad_alloc&) {
    return {Errc::out_of_memory, "scale: cannot allocate " + std::to_string(dst_w_) + "x" + std::to_string(dst_h_) +
                                     " planes"};
  }
  for (unsigned i = 0; i < n; ++i) {
    const PlaneView& sp = src.planes[i];
    Plane p;
    p.data = sp.data;
    p.stride = sp.stride;
    p.w = horizontal(i).src;
    p.h = vertical(i).src;
    p.bytes = uint8_t(bytes);
    p.shift = src.shift;
    p.step = sp.step;
    p.bpc = uint8_t(bpc_);
    if (!p.data || p.step == 0) return {Errc::invalid_argument, "scale: plane " + std::to_string(i) + " is empty"};
    if (sp.width < p.w || sp.height < p.h)
      return {Errc::invalid_argument, "scale: plane " + std::to_string(i) + " holds " + std::to_string(sp.width) +
                                          "x" + std::to_string(sp.height) + " samples, " + std::to_string(p.w) +
                                          "x" + std::to_string(p.h) + " are needed"};
    if (p.stride < ptrdiff_t((size_t(p.w) - 1) * p.step + 1) * ptrdiff_t(bytes))
      return {Errc::invalid_argument, "scale: plane " + std::to_string(i) + " stride is shorter than a row"};
    const ptrdiff_t stride = ptrdiff_t(horizontal(i).dst) * bytes;
    scale_plane(i, p, out->planes[i].data(), stride, out->tmp.data());
    v.planes[i].data = out->planes[i].data();
    v.planes[i].stride = stride;
    v.planes[i].width = horizontal(i).dst;
    v.planes[i].height = vertical(i).dst;
    v.planes[i].step = 1;
  }
  return Status::ok();
}

}  // namespace vmafx::cpu
