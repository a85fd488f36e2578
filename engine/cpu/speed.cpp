// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU reference of libvmaf's speed_chroma. See speed.h for the stages.
//
// Bit-exactness notes. libvmaf is C: a float expression stays float, a double operand or a call of sqrt / log2 /
// exp / sin / floor / ceil (double functions) promotes it. The code below spells every promotion out
// (double(...) around the argument, float(...) around the stored result) so that no C++ overload of <cmath> picks a
// float function, and keeps libvmaf's operation order; the build disables FMA contraction.
#include "cpu/speed.h"

#include "cpu/simd/kernels.h"

#include <math.h>

#include <algorithm>
#include <cstring>

namespace vmafx::cpu {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kE = 2.7182818284590452354;
constexpr double kEigenEps = 1e-6;
constexpr int kEigenMaxIters = 500;
constexpr int N = kSpeedBlockElems;

// libvmaf's list of kernel scales (vif_tools.h), as float.
const float kKernelScales[21] = {1.0f,          1.0f / 2.0f,   3.0f / 2.0f,  2.0f,       2.0f / 3.0f, 24.0f / 10.0f,
                                 360.0f / 97.0f, 4.0f / 3.0f,  3.5f / 3.0f,  3.75f / 3.0f, 4.25f / 3.0f,
                                 5.0f / 3.0f,   3.0f,          1.0f / 2.25f, 1.4746f,    1.54f,       1.6f,
                                 1.06667f,      0.711111f,     0.740740f,    1.111111f};

bool valid_kernelscale(float ks) {
  for (float v : kKernelScales)
    if (fabsf(ks - v) < 1e-3) return true;
  return false;
}

bool almost_one(double v) { return fabs(v - 1.0) < 1.0e-3; }

// ---- filters (vif_tools.c) ----

int round_up_to_odd(float f) {
  const int c = int(ceil(double(f)));
  return c % 2 == 0 ? c + 1 : c;
}

int filter_size(int scale, float kernelscale) {
  const int n = (1 << (4 - scale)) + 1;
  return std::max(round_up_to_odd(float(n) * kernelscale), 3);
}

float gaussian_pdf(float x, float mean, float stdev) {
  const float num = float(exp(-0.5 * double(x - mean) / double(stdev) * double(x - mean) / double(stdev)));
  const float den = float(1 / (double(stdev) * sqrt(2 * kPi)));
  return num / den;
}

void gaussian_kernel(float* out, int size, float stdev) {
  float sum = 0;
  const int k = (size - 1) / 2;
  for (int i = 0; i < size; i++) {
    out[i] = gaussian_pdf(float(i - k), 0, stdev);
    sum += out[i];
  }
  for (int i = 0; i < size; i++) out[i] /= sum;
}

// libvmaf's float mirror of the resamplers: -i below left, 2 right - i above right.
float mirror_f(float i, float left, float right) { return i < left ? -i : i > right ? 2 * right - i : i; }

// The mirror of vif_filter1d_s: -i below 0, 2 n - i - 2 from n on.
inline int mirror_filter(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); }

float bicubic_kernel(float t) {
  const float a = -0.75;
  if (t < 0) t = -t;
  if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
  return 0;
}

float lanczos4_kernel(float x, float a) {
  if (x == 0.0) return 1.0;
  if (x > -a && x < a)
    return float(double(a) * sin(kPi * double(x)) * sin(kPi * double(x) / double(a)) /
                 (kPi * kPi * double(x) * double(x)));
  return 0.0;
}

// One axis of the resampling tables.
void scale_axis(int src_n, int dst_n, SpeedScaleMethod m, SpeedScaleAxis* a) {
  const float ratio = float(src_n) / float(dst_n);
  switch (m) {
    case SpeedScaleMethod::nearest:
      a->taps = 1;
      a->index.resize(size_t(dst_n));
      a->weight.clear();
      for (int x = 0; x < dst_n; x++) a->index[size_t(x)] = int(float(x) * ratio);
      break;
    case SpeedScaleMethod::bilinear:
      a->taps = 2;
      a->index.resize(size_t(dst_n) * 2);
      a->weight.resize(size_t(dst_n));
      for (int x = 0; x < dst_n; x++) {
        const float xx = float((x + 0.5) * double(ratio) - 0.5);
        const int x1 = int(mirror_f(float(floor(double(xx))), 0, float(src_n - 1)));
        const int x2 = int(mirror_f(float(ceil(double(xx))), 0, float(src_n - 1)));
        a->index[size_t(x) * 2] = x1;
        a->index[size_t(x) * 2 + 1] = x2;
        a->weight[size_t(x)] = xx - float(x1);
      }
      break;
    case SpeedScaleMethod::bicubic:
    case SpeedScaleMethod::lanczos4: {
      const bool cubic = m == SpeedScaleMethod::bicubic;
      const int r = cubic ? 1 : 4;           // taps from x0 - r ...
      const int taps = cubic ? 4 : 9;        // ... to x0 - r + taps - 1
      a->taps = taps;
      a->index.resize(size_t(dst_n) * size_t(taps));
      a->weight.resize(size_t(dst_n) * size_t(taps));
      for (int x = 0; x < dst_n; x++) {
        const float xx = float((x + 0.5) * double(ratio) - 0.5);
        const int x0 = int(floor(double(xx)));
        const float dx = xx - float(x0);
        for (int t = 0; t < taps; t++) {
          const int i = t - r;
          a->weight[size_t(x) * taps + t] = cubic ? bicubic_kernel(float(i) - dx) : lanczos4_kernel(float(i) - dx, 4.0f);
          a->index[size_t(x) * taps + t] = int(mirror_f(float(x0 + i), 0, float(src_n - 1)));
        }
      }
      break;
    }
  }
}

// ---- the 25 x 25 linear algebra (speed.c) ----

int sign_of(float x) { return x >= 0 ? 1 : -1; }
float hypot_f(float x, float y) { return float(sqrt(double(x * x + y * y))); }

float column_norm(const float* A, int col, int start_row, int size) {
  float norm = 0;
  for (int i = start_row; i < size; i++) norm += A[i * size + col] * A[i * size + col];
  return float(sqrt(double(norm)));
}

float householder(float* A, int col, int start_row, int size) {
  if (size - start_row == 1) return 0.0f;
  const float xnorm = column_norm(A, col, start_row + 1, size);
  if (xnorm == 0.0f) return 0.0f;
  const float alpha = A[start_row * size + col];
  const float beta = float(-sign_of(alpha)) * hypot_f(alpha, xnorm);
  const float tau = (beta - alpha) / beta;
  const float s = alpha - beta;
  if (s != 0.0f) {
    for (int i = start_row; i < size; i++) A[i * size + col] /= s;
    A[start_row * size + col] = beta;
  }
  return tau;
}

void tridiagonalize(float* A, int size, float* d, float* sd) {
  float v[N], x[N];
  for (int i = 0; i < size - 2; i++) {
    const float tau = householder(A, i, i + 1, size);
    for (int j = i + 1; j < size; j++) v[j] = A[j * size + i];
    if (tau != 0.0f) {
      A[(i + 1) * size + i] = v[i + 1];
      v[i + 1] = 1.0f;
      const int s = i + 1;
      for (int r = s; r < size; r++) {
        x[r] = 0.0f;
        for (int c = s; c < size; c++) x[r] += tau * A[r * size + c] * v[c];
      }
      float xv = 0;
      for (int r = s; r < size; r++) xv += x[r] * v[r];
      const float alpha = float(-0.5 * double(tau) * double(xv));
      for (int r = s; r < size; r++) x[r] += alpha * v[r];
      for (int r = s; r < size; r++)
        for (int c = s; c < size; c++) A[r * size + c] -= x[r] * v[c] + v[r] * x[c];
    }
  }
  for (int i = 0; i < size; i++) d[i] = A[i * size + i];
  for (int i = 0; i < size - 1; i++) sd[i] = A[(i + 1) * size + i];
}

void chop_small(float* d, float* sd, int size) {
  for (int i = 0; i < size - 1; i++)
    if (double(fabsf(sd[i])) < kEigenEps * double(fabsf(d[i]) + fabsf(d[i + 1]))) sd[i] = 0.0f;
}

float trailing_eigenvalue(const float* d, const float* sd, int n) {
  const float ta = d[n - 2], tb = d[n - 1], tab = sd[n - 2];
  const float dt = float(double(ta - tb) / 2.0);
  if (dt > 0) return tb - tab * (tab / (dt + hypot_f(dt, tab)));
  if (dt == 0) return tb - fabsf(tab);
  return tb + tab * (tab / (-dt + hypot_f(dt, tab)));
}

void givens(float a, float b, float* c, float* s) {
  if (b == 0) {
    *c = 1;
    *s = 0;
  } else if (fabsf(b) > fabsf(a)) {
    const float t = -a / b;
    const float s1 = float(1.0 / sqrt(double(1 + t * t)));
    *s = s1;
    *c = s1 * t;
  } else {
    const float t = -b / a;
    const float c1 = float(1.0 / sqrt(double(1 + t * t)));
    *c = c1;
    *s = c1 * t;
  }
}

void qr_step(float* d, float* sd, int n) {
  float mu = trailing_eigenvalue(d, sd, n);
  if (kEigenEps * double(fabsf(mu)) > double(fabsf(d[0]) + fabsf(sd[0]))) mu = 0;
  float x = d[0] - mu;
  float z = sd[0];
  float bk = 0, zk = 0;
  float ap = d[0], bp = sd[0], aq = d[1];
  if (n == 2) {
    float c, s;
    givens(x, z, &c, &s);
    const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
    const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
    const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
    d[0] = ap1;
    sd[0] = bp1;
    d[1] = aq1;
    return;
  }
  float bq = sd[1];
  for (int k = 0; k < n - 1; k++) {
    float c, s;
    givens(x, z, &c, &s);
    const float bk1 = c * bk - s * zk;
    const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
    const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
    const float zp1 = -s * bq;
    const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
    const float bq1 = c * bq;
    const float ak = ap1;
    bk = bp1;
    zk = zp1;
    ap = aq1;
    bp = bq1;
    if (k < n - 2) aq = d[k + 2];
    if (k < n - 3) bq = sd[k + 2];
    d[k] = ak;
    if (k > 0) sd[k - 1] = bk1;
    if (k < n - 2) sd[k + 1] = bp;
    x = bk;
    z = zk;
  }
  d[n - 1] = ap;
  sd[n - 2] = bk;
}

void tridiagonal_eigenvalues(float* d, float* sd, float* eigen, int size) {
  chop_small(d, sd, size);
  int b = size - 1;
  int iter = 0;
  while (b > 0 && iter < kEigenMaxIters) {
    if (sd[b - 1] == 0.0f) {
      b--;
      continue;
    }
    int a = b - 1;
    while (a > 0) {
      if (sd[a - 1] == 0.0f) break;
      a--;
    }
    const int nb = b - a + 1;
    qr_step(d + a, sd + a, nb);
    chop_small(d + a, sd + a, nb);
    iter++;
  }
  for (int i = 0; i < size; i++) eigen[i] = d[i];
}

// Square matrices of N x N, row-major.
void mat_mul(float* dst, const float* x, const float* y) {
  for (int i = 0; i < N * N; i++) dst[i] = 0;
  for (int i = 0; i < N; i++)
    for (int k = 0; k < N; k++)
      for (int j = 0; j < N; j++) dst[i * N + j] += x[i * N + k] * y[k * N + j];
}

void mat_transpose(float* m) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < i; j++) std::swap(m[i * N + j], m[j * N + i]);
}

float vec_norm(const float* x) {
  float sum = 0;
  for (int i = 0; i < N; i++) sum += x[i] * x[i];
  return float(sqrt(double(sum)));
}

// Householder QR of a (N x N): q (orthogonal, returned transposed back as libvmaf does) and r.
void qr_decompose(const float* a, float* q, float* r) {
  float tmp_q[N * N], tmp_z[N * N];
  float* tmp_mul = r;  // libvmaf uses R as scratch, and its first row as the vector
  float* vec = r;
  std::memcpy(tmp_z, a, sizeof(tmp_z));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) q[i * N + j] = i == j ? 1 : 0;
  for (int k = 0; k < N - 1; k++) {
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        if (i < k || j < k) tmp_z[i * N + j] = i == j ? 1 : 0;
    for (int i = 0; i < N; i++) vec[i] = tmp_z[i * N + k];
    const float norm = vec_norm(vec);
    const int sign = sign_of(a[k * N + k]);
    vec[k] += float(sign) * norm;
    const float len = vec_norm(vec);
    for (int i = 0; i < N; i++) vec[i] = vec[i] / len;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) tmp_q[i * N + j] = -2 * vec[i] * vec[j];
    for (int i = 0; i < N; i++) tmp_q[i * N + i] += 1;
    mat_mul(tmp_mul, tmp_q, tmp_z);
    std::memcpy(tmp_z, tmp_mul, sizeof(tmp_z));
    mat_mul(tmp_mul, tmp_q, q);
    std::memcpy(q, tmp_mul, sizeof(tmp_z));
  }
  mat_mul(r, q, a);
  mat_transpose(q);
}

}  // namespace

// ------------------------------------------------------------------------------------------------------------------

Status speed_scale_method_from_name(const std::string& name, SpeedScaleMethod* out) {
  if (name == "nearest") {
    *out = SpeedScaleMethod::nearest;
  } else if (name == "bilinear") {
    *out = SpeedScaleMethod::bilinear;
  } else if (name == "bicubic") {
    *out = SpeedScaleMethod::bicubic;
  } else if (name == "lanczos4") {
    *out = SpeedScaleMethod::lanczos4;
  } else {
    return {Errc::unsupported,
            "speed_prescale_method \"" + name + "\" is not one of nearest, bilinear, bicubic, lanczos4"};
  }
  return Status::ok();
}

const char* speed_scale_method_name(SpeedScaleMethod m) {
  switch (m) {
    case SpeedScaleMethod::nearest: return "nearest";
    case SpeedScaleMethod::bilinear: return "bilinear";
    case SpeedScaleMethod::bicubic: return "bicubic";
    case SpeedScaleMethod::lanczos4: return "lanczos4";
  }
  return "?";
}

Status speed_check_options(const SpeedOptions& opt) {
  auto out_of = [](const char* name, double v, double lo, double hi) -> Status {
    if (v >= lo && v <= hi) return Status::ok();
    return {Errc::invalid_argument, std::string("speed_chroma: ") + name + " " + std::to_string(v) +
                                        " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]"};
  };
  VMAFX_TRY(out_of("speed_kernelscale", opt.kernelscale, 0.1, 4.0));
  VMAFX_TRY(out_of("speed_prescale", opt.prescale, 0.1, 4.0));
  VMAFX_TRY(out_of("speed_sigma_nn", opt.sigma_nn, 0.1, 2.0));
  VMAFX_TRY(out_of("speed_nn_floor", opt.nn_floor, 0.0, 1.0));
  VMAFX_TRY(out_of("speed_max_val", opt.max_val, 0.0, 1000.0));
  VMAFX_TRY(out_of("speed_weight_var_mode", opt.weight_var_mode, 0, 6));
  if (!valid_kernelscale(float(opt.kernelscale)))
    return {Errc::invalid_argument, "speed_chroma: speed_kernelscale " + std::to_string(opt.kernelscale) +
                                        " is not one of libvmaf's kernel scales (1, 1/2, 3/2, 2, 2/3, 2.4, 360/97, "
                                        "4/3, 3.5/3, 3.75/3, 4.25/3, 5/3, 3, 1/2.25, 1.4746, 1.54, 1.6, 1.06667, "
                                        "0.711111, 0.74074, 1.111111)"};
  const int m = int(opt.prescale_method);
  if (m < 0 || m > 3) return {Errc::invalid_argument, "speed_chroma: unknown speed_prescale_method"};
  return Status::ok();
}

Status speed_dims(uint32_t w, uint32_t h, const SpeedOptions& opt, SpeedDims* out, const char* feature,
                  const char* planes) {
  SpeedDims d;
  d.orig_w = int(w);
  d.orig_h = int(h);
  d.scaled_w = int(double(w) * opt.prescale + 0.5);
  d.scaled_h = int(double(h) * opt.prescale + 0.5);
  // libvmaf resamples unless the prescale is within 1e-3 of 1; to the same size its resamplers copy.
  d.rescale = !almost_one(opt.prescale) && (d.scaled_w != d.orig_w || d.scaled_h != d.orig_h);
  d.dec_w = d.scaled_w >> kSpeedScales;
  d.dec_h = d.scaled_h >> kSpeedScales;
  d.trunc_w = d.dec_w / kSpeedBlock * kSpeedBlock;
  d.trunc_h = d.dec_h / kSpeedBlock * kSpeedBlock;
  d.blocks_w = d.trunc_w / kSpeedBlock;
  d.blocks_h = d.trunc_h / kSpeedBlock;
  d.blocks = d.blocks_w * d.blocks_h;
  d.sub_w = d.trunc_w - kSpeedBlock + 1;
  d.sub_h = d.trunc_h - kSpeedBlock + 1;
  if (d.trunc_w == 0 || d.trunc_h == 0) {
    const int need = int(ceil(80.0 / opt.prescale));
    return {Errc::unsupported, std::string(feature) + " needs " + planes +
                                   " planes of at least 80x80 samples after the prescale (" +
                                   std::to_string(need) + "x" + std::to_string(need) + " at speed_prescale " +
                                   std::to_string(opt.prescale) + "), got " + std::to_string(w) + "x" +
                                   std::to_string(h)};
  }
  if (almost_one(opt.prescale) && (d.scaled_w != d.orig_w || d.scaled_h != d.orig_h))
    return {Errc::unsupported, std::string(feature) + ": speed_prescale " + std::to_string(opt.prescale) +
                                   " is within 1e-3 of 1 (no resampling) but changes the size of a " +
                                   std::to_string(w) + "x" + std::to_string(h) +
                                   " plane; libvmaf then filters past the plane"};
  *out = d;
  return Status::ok();
}

void speed_filters(double kernelscale, SpeedFilters* out) {
  const float ks = float(kernelscale);
  out->aa_width = filter_size(1, ks);
  gaussian_kernel(out->aa, out->aa_width, float(sqrt(double(kSpeedScales)) * out->aa_width / 5.0f));
  out->mean_width = filter_size(kSpeedScales, ks);
  gaussian_kernel(out->mean, out->mean_width, float(out->mean_width) / 5.0f);
}

void speed_scale_tables(const SpeedDims& d, SpeedScaleMethod method, SpeedScaleTables* out) {
  out->method = method;
  scale_axis(d.orig_w, d.scaled_w, method, &out->x);
  scale_axis(d.orig_h, d.scaled_h, method, &out->y);
}

// ------------------------------------------------------------------------------------------------------------------

void speed_load(const Plane& p, float* dst, ptrdiff_t dst_stride) {
  const int offset = -128;
  for (uint32_t y = 0; y < p.h; y++) {
    float* out = dst + ptrdiff_t(y) * dst_stride;
    if (p.bytes == 1) {
      const uint8_t* row = p.row<uint8_t>(y);
      for (uint32_t x = 0; x < p.w; x++) out[x] = float(row[size_t(x) * p.step]) + float(offset);
    } else {
      const float scaler = p.bpc == 10 ? 4.0f : p.bpc == 12 ? 16.0f : 256.0f;
      const uint16_t* row = p.row<uint16_t>(y);
      for (uint32_t x = 0; x < p.w; x++)
        out[x] = float(uint16_t(row[size_t(x) * p.step] >> p.shift)) / scaler + float(offset);
    }
  }
}

void speed_prescale(const SpeedScaleTables& t, const SpeedDims& d, const float* src, ptrdiff_t src_stride, float* dst,
                    ptrdiff_t dst_stride) {
  const int W = d.scaled_w, H = d.scaled_h;
  for (int y = 0; y < H; y++) {
    float* drow = dst + ptrdiff_t(y) * dst_stride;
    switch (t.method) {
      case SpeedScaleMethod::nearest: {
        const float* r = src + ptrdiff_t(t.y.index[size_t(y)]) * src_stride;
        for (int x = 0; x < W; x++) drow[x] = r[t.x.index[size_t(x)]];
        break;
      }
      case SpeedScaleMethod::bilinear: {
        const float* r1 = src + ptrdiff_t(t.y.index[size_t(y) * 2]) * src_stride;
        const float* r2 = src + ptrdiff_t(t.y.index[size_t(y) * 2 + 1]) * src_stride;
        const float dy = t.y.weight[size_t(y)];
        for (int x = 0; x < W; x++) {
          const int x1 = t.x.index[size_t(x) * 2], x2 = t.x.index[size_t(x) * 2 + 1];
          const float dx = t.x.weight[size_t(x)];
          drow[x] = (1 - dy) * (1 - dx) * r1[x1] + (1 - dy) * dx * r1[x2] + dy * (1 - dx) * r2[x1] + dy * dx * r2[x2];
        }
        break;
      }
      case SpeedScaleMethod::bicubic:
      case SpeedScaleMethod::lanczos4: {
        const int taps = t.x.taps;
        const bool lanczos = t.method == SpeedScaleMethod::lanczos4;
        const int32_t* yi = &t.y.index[size_t(y) * taps];
        const float* yw = &t.y.weight[size_t(y) * taps];
        for (int x = 0; x < W; x++) {
          const int32_t* xi = &t.x.index[size_t(x) * taps];
          const float* xw = &t.x.weight[size_t(x) * taps];
          float value = 0.0f, weight_sum = 0.0f;
          for (int j = 0; j < taps; j++) {
            const float* r = src + ptrdiff_t(yi[j]) * src_stride;
            for (int i = 0; i < taps; i++) {
              const float w = xw[i] * yw[j];
              if (lanczos) weight_sum += w;
              value += r[xi[i]] * w;
            }
          }
          drow[x] = lanczos ? value / weight_sum : value;
        }
        break;
      }
    }
  }
}

void speed_antialias_dec16(const SpeedFilters& f, const float* src, ptrdiff_t src_stride, int w, int h, float* dst,
                           ptrdiff_t dst_stride, float* tmp) {
  const int fw = f.aa_width, r = fw / 2;
  for (int i = 0; i < h / 16; i++) {
    const int row = i * 16;
    for (int j = 0; j < w; j++) {
      float accum = 0;
      for (int k = 0; k < fw; k++) accum += f.aa[k] * src[ptrdiff_t(mirror_filter(row - r + k, h)) * src_stride + j];
      tmp[j] = accum;
    }
    for (int j = 0; j < w / 16; j++) {
      const int col = j * 16;
      float accum = 0;
      for (int k = 0; k < fw; k++) accum += f.aa[k] * tmp[mirror_filter(col - r + k, w)];
      dst[ptrdiff_t(i) * dst_stride + j] = accum;
    }
  }
}

void speed_subtract_local_mean(const SpeedFilters& f, float* img, ptrdiff_t stride, int w, int h, float* tmp) {
  const int fw = f.mean_width, r = fw / 2;
  float* mean = tmp;
  float* row_tmp = tmp + ptrdiff_t(w) * h;
  for (int i = 0; i < h; i++) {
    for (int j = 0; j < w; j++) {
      float accum = 0;
      for (int k = 0; k < fw; k++) accum += f.mean[k] * img[ptrdiff_t(mirror_filter(i - r + k, h)) * stride + j];
      row_tmp[j] = accum;
    }
    for (int j = 0; j < w; j++) {
      float accum = 0;
      for (int k = 0; k < fw; k++) accum += f.mean[k] * row_tmp[mirror_filter(j - r + k, w)];
      mean[ptrdiff_t(i) * w + j] = accum;
    }
  }
  for (int i = 0; i < h; i++)
    for (int j = 0; j < w; j++) img[ptrdiff_t(i) * stride + j] -= mean[ptrdiff_t(i) * w + j];
}

// ------------------------------------------------------------------------------------------------------------------

void speed_covariance(const SpeedDims& d, const float* img, ptrdiff_t stride, float means[kSpeedBlockElems],
                      float cov[kSpeedBlockElems * kSpeedBlockElems]) {
  const size_t count = size_t(d.sub_w) * size_t(d.sub_h);
  for (int sr = 0; sr < kSpeedBlock; sr++) {
    for (int sc = 0; sc < kSpeedBlock; sc++) {
      float result = 0;
      for (int i = 0; i < d.sub_h; i++)
        for (int j = 0; j < d.sub_w; j++) result += img[ptrdiff_t(sr + i) * stride + (sc + j)];
      means[sr * kSpeedBlock + sc] = result / float(count);
    }
  }
  for (int xi = 0; xi < N; xi++) {
    for (int yi = 0; yi <= xi; yi++) {
      const int rx = xi / kSpeedBlock, cx = xi % kSpeedBlock, ry = yi / kSpeedBlock, cy = yi % kSpeedBlock;
      const double mx = means[rx * kSpeedBlock + cx], my = means[ry * kSpeedBlock + cy];
      const float* px = img + ptrdiff_t(rx) * stride + cx;
      const float* py = img + ptrdiff_t(ry) * stride + cy;
      double result = 0;
      for (int i = 0; i < d.sub_h; i++) {
        for (int j = 0; j < d.sub_w; j++) {
          const double vx = px[ptrdiff_t(i) * stride + j];
          const double vy = py[ptrdiff_t(i) * stride + j];
          result += (vx - mx) * (vy - my);
        }
      }
      const float c = float(result / double(count));
      cov[xi * N + yi] = c;
      cov[yi * N + xi] = c;
    }
  }
}

void speed_eigenvalues(const float cov[kSpeedBlockElems * kSpeedBlockElems], float eigen[kSpeedBlockElems]) {
  float a[N * N], d[N], sd[N];
  std::memcpy(a, cov, sizeof(a));
  tridiagonalize(a, N, d, sd);
  tridiagonal_eigenvalues(d, sd, eigen, N);
}

bool speed_regular(const float eigen[kSpeedBlockElems]) {
  for (int i = 0; i < N; i++)
    if (double(eigen[i]) < kEigenEps) return false;
  return true;
}

void speed_independent_term(const SpeedDims& d, const float* img, ptrdiff_t stride, float* y) {
  for (int si = 0; si < kSpeedBlock; si++)
    for (int sj = 0; sj < kSpeedBlock; sj++)
      for (int i = si; i < d.trunc_h; i += kSpeedBlock)
        for (int j = sj; j < d.trunc_w; j += kSpeedBlock) {
          const int row = si * kSpeedBlock + sj;
          const int col = ((i - si) / kSpeedBlock) * d.blocks_w + (j - sj) / kSpeedBlock;
          y[size_t(row) * d.blocks + col] = img[ptrdiff_t(i) * stride + j];
        }
}

bool speed_solve(const float cov[kSpeedBlockElems * kSpeedBlockElems], const float* y, int blocks, float* x) {
  float q[N * N], r[N * N];
  qr_decompose(cov, q, r);
  mat_transpose(q);
  // rhs = Q^T Y, accumulated as libvmaf's matrix_mul (i, k, j loops over a zeroed result).
  std::vector<float> rhs(size_t(N) * blocks, 0.0f);
  for (int i = 0; i < N; i++)
    for (int k = 0; k < N; k++)
      for (int j = 0; j < blocks; j++) rhs[size_t(i) * blocks + j] += q[i * N + k] * y[size_t(k) * blocks + j];
  for (int i = N - 1; i >= 0; i--) {
    const float den = r[i * N + i];
    if (double(fabsf(den)) < kEigenEps) return false;
    for (int j = 0; j < blocks; j++) {
      float t = rhs[size_t(i) * blocks + j];
      for (int k = i + 1; k < N; k++) t -= x[size_t(k) * blocks + j] * r[i * N + k];
      x[size_t(i) * blocks + j] = t / den;
    }
  }
  return true;
}

void speed_block_variance(const float* x, const float* y, int blocks, float* variance) {
  const float den = float(size_t(N));
  for (int j = 0; j < blocks; j++) variance[j] = (x[j] * y[j]) / den;
  for (int i = 1; i < N; i++)
    for (int j = 0; j < blocks; j++) variance[j] += (x[size_t(i) * blocks + j] * y[size_t(i) * blocks + j]) / den;
}

void speed_estimate(const SpeedDims& d, const float* img, ptrdiff_t stride, SpeedEstimate* out) {
  float means[N], cov[N * N];
  speed_kernels().covariance(d, img, stride, means, cov);
  speed_eigenvalues(cov, out->eigen);
  std::vector<float> y(size_t(N) * d.blocks), x(size_t(N) * d.blocks, 0.0f);
  speed_independent_term(d, img, stride, y.data());
  bool ok = speed_regular(out->eigen);
  if (ok) ok = speed_solve(cov, y.data(), d.blocks, x.data());
  if (!ok) std::fill(x.begin(), x.end(), 0.0f);
  out->singular = !ok;
  out->variance.resize(size_t(d.blocks));
  speed_block_variance(x.data(), y.data(), d.blocks, out->variance.data());
}

// ------------------------------------------------------------------------------------------------------------------

void speed_entropies(const SpeedEstimate& e, double sigma_nn, std::vector<float>* entropies) {
  const float snn = float(sigma_nn);
  const size_t n = e.variance.size();
  entropies->assign(n, 0.0f);
  const double log2_2pie = log2(2 * kPi * kE);
  for (int k = 0; k < N; k++) {
    const float L = e.eigen[k] < 0 ? 0 : e.eigen[k];
    for (size_t i = 0; i < n; i++)
      (*entropies)[i] = float(double((*entropies)[i]) + (log2(double(L * e.variance[i] + snn)) + log2_2pie));
  }
}

float speed_channel_score(const SpeedEstimate& ref, const SpeedEstimate& dis, const SpeedOptions& opt,
                          bool* singular) {
  *singular = ref.singular || dis.singular;
  if (ref.singular != dis.singular) return 0.0f;
  std::vector<float> er, ed;
  speed_entropies(ref, opt.sigma_nn, &er);
  speed_entropies(dis, opt.sigma_nn, &ed);
  const float snn = float(opt.sigma_nn), nnf = float(opt.nn_floor);
  const double log2_2pie = log2(2 * kPi * kE);
  const float base = float(double(size_t(N)) * (log2(double((1 + nnf) * snn)) + log2_2pie));
  const size_t n = er.size();
  float score = 0;
  for (size_t i = 0; i < n; i++) {
    if (er[i] < base && ed[i] < base) continue;
    const float rv = ref.variance[i], dv = dis.variance[i];
    double wr = 0, wd = 0;
    switch (opt.weight_var_mode) {
      case 0: wr = log2(double(1 + rv)); wd = log2(double(1 + dv)); break;
      case 1: wr = log2(double(1 + rv)); wd = log2(double(1 + rv)); break;
      case 2: wr = log2(double(1 + dv)); wd = log2(double(1 + dv)); break;
      case 3: wr = wd = log2(1 + double(rv + dv) / 2.0); break;
      case 4: wr = log2(double(1 + rv)); wd = log2(1 + double(rv + dv) / 2.0); break;
      case 5: wr = log2(double(1 + rv)); wd = log2(1 + (0.75 * double(rv) + 0.25 * double(dv))); break;
      default: wr = log2(double(1 + rv)); wd = log2(1 + (0.25 * double(rv) + 0.75 * double(dv))); break;
    }
    const float sr = float(double(er[i]) * wr);
    const float sd = float(double(ed[i]) * wd);
    score += fabsf(sr - sd);
  }
  return score / float(n);
}

SpeedScores speed_combine(float score_u, bool err_u, float score_v, bool err_v, double max_val) {
  float uv;
  if (err_u && !err_v)
    uv = score_v;
  else if (err_v && !err_u)
    uv = score_u;
  else
    uv = float(double(score_u + score_v) / 2.0);
  auto clip = [max_val](float s) { return double(s) < max_val ? double(s) : max_val; };
  return {clip(score_u), clip(score_v), clip(uv)};
}

// ------------------------------------------------------------------------------------------------------------------

Status SpeedChroma::init(uint32_t luma_w, uint32_t luma_h, Chroma chroma, unsigned bpc, const SpeedOptions& opt) {
  ready_ = false;
  if (chroma == Chroma::k400) return {Errc::unsupported, "speed_chroma needs chroma planes (the picture is 4:0:0)"};
  if (bpc != 8 && bpc != 10 && bpc != 12 && bpc != 16)
    return {Errc::unsupported, "speed_chroma: bit depth " + std::to_string(bpc) +
                                   " (libvmaf's speed_chroma reads 8, 10, 12 and 16 bits)"};
  VMAFX_TRY(speed_check_options(opt));
  const uint32_t cw = chroma_width(chroma, luma_w), ch = chroma_height(chroma, luma_h);
  VMAFX_TRY(speed_dims(cw, ch, opt, &dims_));
  opt_ = opt;
  bpc_ = bpc;
  speed_filters(opt.kernelscale, &filters_);
  speed_scale_tables(dims_, opt.prescale_method, &tables_);
  load_.assign(size_t(dims_.orig_w) * dims_.orig_h, 0.0f);
  scaled_.assign(dims_.rescale ? size_t(dims_.scaled_w) * dims_.scaled_h : 0, 0.0f);
  dec_.assign(size_t(dims_.dec_w) * dims_.dec_h, 0.0f);
  tmp_.assign(std::max(size_t(dims_.scaled_w), size_t(dims_.orig_w)) + size_t(dims_.dec_w) * dims_.dec_h, 0.0f);
  load_rows_.clear();
  if (!dims_.rescale) {
    // speed_antialias_dec16 reads rows mirror(16 i - r + k) of the image; the other rows need no load.
    std::vector<bool> used(size_t(dims_.orig_h), false);
    const int h = dims_.orig_h, r = filters_.aa_width / 2;
    for (int i = 0; i < h / 16; i++)
      for (int k = 0; k < filters_.aa_width; k++) used[size_t(mirror_filter(i * 16 - r + k, h))] = true;
    for (int y = 0; y < h;) {
      if (!used[size_t(y)]) {
        y++;
        continue;
      }
      int e = y;
      while (e < h && used[size_t(e)]) e++;
      load_rows_.emplace_back(y, e);
      y = e;
    }
  }
  ready_ = true;
  return Status::ok();
}

Status SpeedChroma::check_plane(const Plane& p, const char* which) const {
  const std::string name = std::string("speed_chroma: ") + which + " plane";
  if (!p.data) return {Errc::invalid_argument, name + " has no data"};
  if (int(p.w) != dims_.orig_w || int(p.h) != dims_.orig_h)
    return {Errc::unsupported, name + " is " + std::to_string(p.w) + "x" + std::to_string(p.h) + ", initialised for " +
                                   std::to_string(dims_.orig_w) + "x" + std::to_string(dims_.orig_h)};
  if (p.bpc != bpc_)
    return {Errc::unsupported, name + " has " + std::to_string(p.bpc) + " bits, initialised for " +
                                   std::to_string(bpc_)};
  if (p.bytes != (bpc_ == 8 ? 1 : 2) || (p.bytes == 1 && p.shift != 0) || p.shift + p.bpc > 16)
    return {Errc::unsupported, name + ": " + std::to_string(p.bytes) + "-byte samples, shift " +
                                   std::to_string(p.shift) + " for " + std::to_string(p.bpc) + " bits"};
  if (p.step < 1) return {Errc::invalid_argument, name + ": sample step 0"};
  const ptrdiff_t row_bytes = (ptrdiff_t(p.w - 1) * p.step + 1) * p.bytes;
  if (p.stride < row_bytes)
    return {Errc::invalid_argument, name + ": stride " + std::to_string(p.stride) + " does not hold a row of " +
                                        std::to_string(row_bytes) + " bytes"};
  return Status::ok();
}

Status SpeedChroma::estimate_image(const Plane& p, SpeedEstimate* out) {
  if (!ready_) return {Errc::invalid_argument, "speed_chroma: estimate before a successful init"};
  VMAFX_TRY(check_plane(p, "input"));
  const SpeedKernels& k = speed_kernels();
  if (load_rows_.empty()) {
    k.load(p, load_.data(), dims_.orig_w);
  } else {
    for (const auto& [first, end] : load_rows_) {
      Plane rows = p;
      rows.data = p.data + ptrdiff_t(first) * p.stride;
      rows.h = uint32_t(end - first);
      k.load(rows, load_.data() + ptrdiff_t(first) * dims_.orig_w, dims_.orig_w);
    }
  }
  const float* src = load_.data();
  ptrdiff_t stride = dims_.orig_w;
  if (dims_.rescale) {
    speed_prescale(tables_, dims_, load_.data(), dims_.orig_w, scaled_.data(), dims_.scaled_w);
    src = scaled_.data();
    stride = dims_.scaled_w;
  }
  k.antialias_dec16(filters_, src, stride, dims_.scaled_w, dims_.scaled_h, dec_.data(), dims_.dec_w, tmp_.data());
  k.subtract_local_mean(filters_, dec_.data(), dims_.dec_w, dims_.dec_w, dims_.dec_h, tmp_.data());
  speed_estimate(dims_, dec_.data(), dims_.dec_w, out);
  return Status::ok();
}

float SpeedChroma::channel(const Plane& ref, const Plane& dist, bool* err) {
  (void)estimate_image(ref, &ref_est_);  // planes checked by compute()
  (void)estimate_image(dist, &dis_est_);
  return speed_channel_score(ref_est_, dis_est_, opt_, err);
}

Status SpeedChroma::compute(const Plane& ref_u, const Plane& ref_v, const Plane& dist_u, const Plane& dist_v,
                            SpeedScores* out) {
  if (!ready_) return {Errc::invalid_argument, "speed_chroma: compute before a successful init"};
  if (!out) return {Errc::invalid_argument, "speed_chroma: no output"};
  VMAFX_TRY(check_plane(ref_u, "reference U"));
  VMAFX_TRY(check_plane(ref_v, "reference V"));
  VMAFX_TRY(check_plane(dist_u, "distorted U"));
  VMAFX_TRY(check_plane(dist_v, "distorted V"));
  bool err_u = false, err_v = false;
  const float su = channel(ref_u, dist_u, &err_u);
  const float sv = channel(ref_v, dist_v, &err_v);
  *out = speed_combine(su, err_u, sv, err_v, opt_.max_val);
  return Status::ok();
}

// ------------------------------------------------------------------------------------------------------------------

Status speed_temporal_check(uint32_t w, uint32_t h, unsigned bpc, const SpeedOptions& opt) {
  if (bpc != 8 && bpc != 10 && bpc != 12 && bpc != 16)
    return {Errc::unsupported, "speed_temporal: bit depth " + std::to_string(bpc) +
                                   " (libvmaf's speed_temporal reads 8, 10, 12 and 16 bits)"};
  VMAFX_TRY(speed_check_options(opt).prepend("speed_temporal"));
  SpeedDims d;
  VMAFX_TRY(speed_dims(w, h, opt, &d, "speed_temporal", "luma"));
  if (d.rescale && d.scaled_h > d.orig_h)
    return {Errc::unsupported, "speed_temporal: speed_prescale " + std::to_string(opt.prescale) + " makes the " +
                                   std::to_string(h) + " rows " + std::to_string(d.scaled_h) +
                                   " (libvmaf writes the prescaled frame past its frame buffers, which hold " +
                                   std::to_string(h) + " rows)"};
  return Status::ok();
}

Status SpeedTemporal::init(uint32_t w, uint32_t h, unsigned bpc, const SpeedOptions& opt, bool use_ref_diff) {
  ready_ = false;
  SpeedOptions o = opt;
  o.weight_var_mode = 0;  // not an option of speed_temporal: libvmaf leaves it 0
  VMAFX_TRY(speed_temporal_check(w, h, bpc, o));
  VMAFX_TRY(speed_dims(w, h, o, &dims_, "speed_temporal", "luma"));
  opt_ = o;
  use_ref_diff_ = use_ref_diff;
  bpc_ = bpc;
  speed_filters(o.kernelscale, &filters_);
  speed_scale_tables(dims_, o.prescale_method, &tables_);
  const size_t n = size_t(dims_.orig_w) * dims_.orig_h;
  a_.assign(n, 0.0f);
  b_.assign(n, 0.0f);
  scaled_.assign(dims_.rescale ? size_t(dims_.scaled_w) * dims_.scaled_h : 0, 0.0f);
  dec_.assign(size_t(dims_.dec_w) * dims_.dec_h, 0.0f);
  tmp_.assign(std::max(size_t(dims_.scaled_w), size_t(dims_.orig_w)) + size_t(dims_.dec_w) * dims_.dec_h, 0.0f);
  ready_ = true;
  return Status::ok();
}

Status SpeedTemporal::check_plane(const Plane& p, const char* which) const {
  const std::string name = std::string("speed_temporal: ") + which + " plane";
  if (!p.data) return {Errc::invalid_argument, name + " has no data"};
  if (int(p.w) != dims_.orig_w || int(p.h) != dims_.orig_h)
    return {Errc::unsupported, name + " is " + std::to_string(p.w) + "x" + std::to_string(p.h) + ", initialised for " +
                                   std::to_string(dims_.orig_w) + "x" + std::to_string(dims_.orig_h)};
  if (p.bpc != bpc_)
    return {Errc::unsupported, name + " has " + std::to_string(p.bpc) + " bits, initialised for " +
                                   std::to_string(bpc_)};
  if (p.bytes != (bpc_ == 8 ? 1 : 2) || (p.bytes == 1 && p.shift != 0) || p.shift + p.bpc > 16)
    return {Errc::unsupported, name + ": " + std::to_string(p.bytes) + "-byte samples, shift " +
                                   std::to_string(p.shift) + " for " + std::to_string(p.bpc) + " bits"};
  if (p.step < 1) return {Errc::invalid_argument, name + ": sample step 0"};
  const ptrdiff_t row_bytes = (ptrdiff_t(p.w - 1) * p.step + 1) * p.bytes;
  if (p.stride < row_bytes)
    return {Errc::invalid_argument, name + ": stride " + std::to_string(p.stride) + " does not hold a row of " +
                                        std::to_string(row_bytes) + " bytes"};
  return Status::ok();
}

void SpeedTemporal::difference(const Plane& prev, const Plane& cur, float* out) const {
  const size_t n = size_t(dims_.orig_w) * dims_.orig_h;
  std::vector<float> c(n);
  const SpeedKernels& k = speed_kernels();
  k.load(prev, out, dims_.orig_w);
  k.load(cur, c.data(), dims_.orig_w);
  for (size_t i = 0; i < n; i++) out[i] -= c[i];  // libvmaf's subtract_image: previous -= current
}

void SpeedTemporal::estimate_difference(const float* diff, SpeedEstimate* out) {
  const SpeedKernels& k = speed_kernels();
  const float* src = diff;
  ptrdiff_t stride = dims_.orig_w;
  if (dims_.rescale) {
    speed_prescale(tables_, dims_, diff, dims_.orig_w, scaled_.data(), dims_.scaled_w);
    src = scaled_.data();
    stride = dims_.scaled_w;
  }
  k.antialias_dec16(filters_, src, stride, dims_.scaled_w, dims_.scaled_h, dec_.data(), dims_.dec_w, tmp_.data());
  k.subtract_local_mean(filters_, dec_.data(), dims_.dec_w, dims_.dec_w, dims_.dec_h, tmp_.data());
  speed_estimate(dims_, dec_.data(), dims_.dec_w, out);
}

double SpeedTemporal::score(const SpeedEstimate& ref, const SpeedEstimate& dis) const {
  bool singular = false;
  return double(speed_channel_score(ref, dis, opt_, &singular));
}

Status SpeedTemporal::compute(const Plane& prev_ref, const Plane& prev_dist, const Plane& ref, const Plane& dist,
                              double* out) {
  if (!ready_) return {Errc::invalid_argument, "speed_temporal: compute before a successful init"};
  VMAFX_TRY(check_plane(prev_ref, "previous reference"));
  VMAFX_TRY(check_plane(prev_dist, "previous distorted"));
  VMAFX_TRY(check_plane(ref, "reference"));
  VMAFX_TRY(check_plane(dist, "distorted"));
  difference(prev_ref, ref, a_.data());
  difference(prev_dist, use_ref_diff_ ? ref : dist, b_.data());
  estimate_difference(a_.data(), &ref_est_);
  estimate_difference(b_.data(), &dis_est_);
  out[0] = score(ref_est_, dis_est_);
  return Status::ok();
}

}  // namespace vmafx::cpu
