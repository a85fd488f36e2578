// SPDX-License-Identifier: LGPL-2.1-or-later
// SpEED's stages (speed.h) over the float and double operations of `Isa`; included after vif_kernels.inl (V, N).
// Each vector lane is one output (a column of a filter pass, one entry of the means or of the covariance) and
// performs the scalar code's operations in its order: float taps summed tap after tap from 0, double products summed
// window position after window position, so every result is the scalar one bit for bit. Signatures and results as
// speed_load, speed_antialias_dec16, speed_subtract_local_mean and speed_covariance (speed.cpp).

inline int speed_mirror(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); }

// ---- load ------------------------------------------------------------------------------------------------------------

void speed_load_k(const Plane& p, float* dst, ptrdiff_t dst_stride) {
  if (p.step != 1 || p.w < uint32_t(N)) return speed_load(p, dst, dst_stride);
  const Isa::F offset = Isa::set1f(float(-128));
  const Isa::F scaler = Isa::set1f(p.bpc == 10 ? 4.0f : p.bpc == 12 ? 16.0f : 256.0f);
  for (uint32_t y = 0; y < p.h; y++) {
    float* out = dst + ptrdiff_t(y) * dst_stride;
    // The last vector of a row overlaps the one before (it rewrites the same values).
    for (uint32_t x = 0;; x += N) {
      if (x + N > p.w) x = p.w - N;
      if (p.bytes == 1) {
        Isa::storef(out + x, Isa::addf(Isa::cvt_i32_f(Isa::load_u8(p.row<uint8_t>(y) + x)), offset));
      } else {
        const V s = Isa::srl(Isa::load_u16(p.row<uint16_t>(y) + x), p.shift);
        Isa::storef(out + x, Isa::addf(Isa::divf(Isa::cvt_i32_f(s), scaler), offset));
      }
      if (x + N >= p.w) break;
    }
  }
}

// ---- separable filters -----------------------------------------------------------------------------------------------

// out[j] = sum_k f[k] * rows[k][j] (float, from 0, k in order) for j < w, w >= N.
inline void speed_vertical(const float* const* rows, const float* f, int fw, int w, float* out) {
  for (int x = 0;; x += N) {
    if (x + N > w) x = w - N;
    Isa::F acc = Isa::set1f(0.0f);
    for (int k = 0; k < fw; k++) acc = Isa::addf(acc, Isa::mulf(Isa::set1f(f[k]), Isa::loadf(rows[k] + x)));
    Isa::storef(out + x, acc);
    if (x + N >= w) break;
  }
}

void speed_antialias_dec16_k(const SpeedFilters& f, const float* src, ptrdiff_t src_stride, int w, int h, float* dst,
                             ptrdiff_t dst_stride, float* tmp) {
  if (w < N || f.aa_width > kSpeedMaxFilter) return speed_antialias_dec16(f, src, src_stride, w, h, dst, dst_stride, tmp);
  const int fw = f.aa_width, r = fw / 2;
  const float* rows[kSpeedMaxFilter];
  for (int i = 0; i < h / 16; i++) {
    const int row = i * 16;
    for (int k = 0; k < fw; k++) rows[k] = src + ptrdiff_t(speed_mirror(row - r + k, h)) * src_stride;
    speed_vertical(rows, f.aa, fw, w, tmp);
    // Horizontally only every 16th column is kept: w / 16 outputs, scalar.
    for (int j = 0; j < w / 16; j++) {
      const int col = j * 16;
      float accum = 0;
      for (int k = 0; k < fw; k++) accum += f.aa[k] * tmp[speed_mirror(col - r + k, w)];
      dst[ptrdiff_t(i) * dst_stride + j] = accum;
    }
  }
}

void speed_subtract_local_mean_k(const SpeedFilters& f, float* img, ptrdiff_t stride, int w, int h, float* tmp) {
  if (w < N || f.mean_width > kSpeedMaxFilter || w < f.mean_width)
    return speed_subtract_local_mean(f, img, stride, w, h, tmp);
  const int fw = f.mean_width, r = fw / 2;
  float* mean = tmp;
  float* row_tmp = tmp + ptrdiff_t(w) * h;
  const float* rows[kSpeedMaxFilter];
  // Columns whose taps need no mirroring: r <= j and j - r + fw - 1 < w.
  const int lo = r, hi = w - fw + r;  // j in [lo, hi)
  for (int i = 0; i < h; i++) {
    for (int k = 0; k < fw; k++) rows[k] = img + ptrdiff_t(speed_mirror(i - r + k, h)) * stride;
    speed_vertical(rows, f.mean, fw, w, row_tmp);
    float* m = mean + ptrdiff_t(i) * w;
    auto scalar_at = [&](int j) {
      float accum = 0;
      for (int k = 0; k < fw; k++) accum += f.mean[k] * row_tmp[speed_mirror(j - r + k, w)];
      m[j] = accum;
    };
    int j = 0;
    for (; j < lo && j < w; j++) scalar_at(j);
    for (; j + N <= hi; j += N) {
      Isa::F acc = Isa::set1f(0.0f);
      for (int k = 0; k < fw; k++) acc = Isa::addf(acc, Isa::mulf(Isa::set1f(f.mean[k]), Isa::loadf(row_tmp + j - r + k)));
      Isa::storef(m + j, acc);
    }
    for (; j < w; j++) scalar_at(j);
  }
  for (int i = 0; i < h; i++) {
    float* o = img + ptrdiff_t(i) * stride;
    const float* m = mean + ptrdiff_t(i) * w;
    int j = 0;
    for (; j + N <= w; j += N) Isa::storef(o + j, Isa::subf(Isa::loadf(o + j), Isa::loadf(m + j)));
    for (; j < w; j++) o[j] -= m[j];
  }
}

// ---- covariance ----------------------------------------------------------------------------------------------------------

// The 25 samples of the 5x5 block at each window position are gathered into one row (entry e = row * 5 + column),
// kSpeedChunk positions at a time, so that the 25 sums (means) or the sums of one covariance row run in vector
// lanes. Padding entries are 0 and their lanes are dropped.
constexpr int kSpeedDN = N / 2;                                                  // doubles per vector
constexpr int kSpeedPadF = (kSpeedBlockElems + N - 1) / N * N;                   // floats per position
constexpr int kSpeedPadD = kSpeedPadF;                                            // doubles per position
constexpr int kSpeedVF = kSpeedPadF / N;                                          // float vectors per position
constexpr int kSpeedVD = (kSpeedBlockElems + kSpeedDN - 1) / kSpeedDN;           // double vectors of entries

constexpr int kSpeedChunk = 64;  // window positions gathered at a time

// Rows of entries of the positions p0 .. p0 + n - 1 (p = i * sub_w + j, the scalar loop order).
inline void speed_gather(const float* img, ptrdiff_t stride, int sub_w, int p0, int n, float* rowf) {
  int i = p0 / sub_w, j = p0 % sub_w;
  for (int q = 0; q < n; q++) {
    float* e = rowf + ptrdiff_t(q) * kSpeedPadF;
    for (int br = 0; br < kSpeedBlock; br++)
      for (int bc = 0; bc < kSpeedBlock; bc++) e[br * kSpeedBlock + bc] = img[ptrdiff_t(br + i) * stride + (bc + j)];
    for (int k = kSpeedBlockElems; k < kSpeedPadF; k++) e[k] = 0.0f;
    if (++j == sub_w) {
      j = 0;
      i++;
    }
  }
}

// acc (lanes y = 0 .. NV * DN - 1) += dx * dev[p][y] over the n positions of a chunk, for entry x
// (dx = dev[p][x], the first operand as in the scalar (vx - mx) * (vy - my) with y <= x).
template <int NV>
inline void speed_cov_row(const double* dev, int n, int x, double* acc) {
  D a[NV];
  for (int v = 0; v < NV; v++) a[v] = Isa::loadd(acc + v * kSpeedDN);
  for (int j = 0; j < n; j++) {
    const double* e = dev + ptrdiff_t(j) * kSpeedPadD;
    const D dx = Isa::set1d(e[x]);
    for (int v = 0; v < NV; v++) a[v] = Isa::addd(a[v], Isa::muld(dx, Isa::loadd(e + v * kSpeedDN)));
  }
  for (int v = 0; v < NV; v++) Isa::stored(acc + v * kSpeedDN, a[v]);
}

// Entry x needs the lanes y <= x: x / DN + 1 vectors.
template <int NV>
inline void speed_cov_row_n(int nv, const double* dev, int n, int x, double* acc) {
  if constexpr (NV < kSpeedVD) {
    if (nv != NV) return speed_cov_row_n<NV + 1>(nv, dev, n, x, acc);
  }
  speed_cov_row<NV>(dev, n, x, acc);
}

void speed_covariance_k(const SpeedDims& d, const float* img, ptrdiff_t stride, float means[kSpeedBlockElems],
                        float cov[kSpeedBlockElems * kSpeedBlockElems]) {
  constexpr int E = kSpeedBlockElems;
  if (d.sub_w < 1 || d.sub_h < 1) return speed_covariance(d, img, stride, means, cov);
  const size_t count = size_t(d.sub_w) * size_t(d.sub_h);
  const int positions = int(count);
  alignas(64) float rowf[kSpeedChunk * kSpeedPadF];
  alignas(64) double rowd[kSpeedChunk * kSpeedPadD];
  // Means: float sums over the window positions in the scalar (i, j) order, one entry per lane.
  Isa::F sum[kSpeedVF];
  for (int v = 0; v < kSpeedVF; v++) sum[v] = Isa::set1f(0.0f);
  for (int p0 = 0; p0 < positions; p0 += kSpeedChunk) {
    const int n = positions - p0 < kSpeedChunk ? positions - p0 : kSpeedChunk;
    speed_gather(img, stride, d.sub_w, p0, n, rowf);
    for (int j = 0; j < n; j++) {
      const float* e = rowf + ptrdiff_t(j) * kSpeedPadF;
      for (int v = 0; v < kSpeedVF; v++) sum[v] = Isa::addf(sum[v], Isa::loadf(e + v * N));
    }
  }
  alignas(64) float mf[kSpeedPadF];
  const Isa::F cnt = Isa::set1f(float(count));
  for (int v = 0; v < kSpeedVF; v++) Isa::storef(mf + v * N, Isa::divf(sum[v], cnt));
  for (int e = 0; e < E; e++) means[e] = mf[e];
  for (int e = E; e < kSpeedPadF; e++) mf[e] = 0.0f;
  // Covariance: the deviations double(sample) - double(mean) of each position, then per entry x the sums over
  // positions of dev[x] * dev[y] (y = 0 .. x in lanes), carried from chunk to chunk in acc.
  alignas(64) double acc[E][kSpeedPadD];
  for (auto& a : acc)
    for (double& v : a) v = 0.0;
  D md[2 * kSpeedVF];
  for (int v = 0; v < kSpeedVF; v++) {
    const Isa::F m = Isa::loadf(mf + v * N);
    md[2 * v] = Isa::cvtf_lo(m);
    md[2 * v + 1] = Isa::cvtf_hi(m);
  }
  for (int p0 = 0; p0 < positions; p0 += kSpeedChunk) {
    const int n = positions - p0 < kSpeedChunk ? positions - p0 : kSpeedChunk;
    speed_gather(img, stride, d.sub_w, p0, n, rowf);
    for (int j = 0; j < n; j++) {
      const float* e = rowf + ptrdiff_t(j) * kSpeedPadF;
      double* o = rowd + ptrdiff_t(j) * kSpeedPadD;
      for (int v = 0; v < kSpeedVF; v++) {
        const Isa::F f = Isa::loadf(e + v * N);
        Isa::stored(o + v * N, Isa::subd(Isa::cvtf_lo(f), md[2 * v]));
        Isa::stored(o + v * N + kSpeedDN, Isa::subd(Isa::cvtf_hi(f), md[2 * v + 1]));
      }
    }
    for (int x = 0; x < E; x++) speed_cov_row_n<1>(x / kSpeedDN + 1, rowd, n, x, acc[x]);
  }
  for (int x = 0; x < E; x++)
    for (int y = 0; y <= x; y++) {
      const float c = float(acc[x][y] / double(count));
      cov[x * E + y] = c;
      cov[y * E + x] = c;
    }
}
