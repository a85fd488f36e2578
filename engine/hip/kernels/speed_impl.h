// SPDX-License-Identifier: LGPL-2.1-or-later
// SpEED chroma (libvmaf's speed_chroma) for kernels/speed.hip, bit-exact with engine/cpu/speed.cpp: the stages before
// the host finishing (load, prescale, antialias at every 16th sample, local-mean subtraction, the 25 x 25
// covariance, its eigenvalues, the linear system and the block variances), one output element or one serial step at
// a time. Includes only common.h, so the same functions compile with the host compiler: the 'hip' suite runs them
// over whole images on the CPU and compares every stage with the CPU reference.
//
// Float and double expressions keep the CPU reference's (libvmaf's) types and order; every multiply-add is two
// rounded operations (kernels are built with -ffp-contract=off / --fmad=false). The only library function is the
// double sqrt, which IEEE 754 (and CUDA, HIP and glibc) round correctly. The filters and the resampling weights
// (exp, sin) come from the host (cpu::speed_filters, cpu::speed_scale_tables), and the log2 of the finishing runs on
// the host (cpu::speed_channel_score), so no device transcendental is involved.
#pragma once

#include "common.h"

#if !defined(VX_DEVICE_COMPILE)
#include <math.h>
#endif

namespace vmafx {
namespace hip {
namespace speed {

enum {
  kBlock = 5,
  kN = 25,            // elements of a block: the matrices are kN x kN
  kScales = 4,        // decimation by 2^4
  kMaxAa = 40,        // antialias taps (37 at kernel scale 4)
  kMaxMean = 12,      // local-mean taps (9 at kernel scale 4)
  kThreads = 256,     // block size of every speed kernel
  kImages = 4,        // ref U, ref V, dist U, dist V
  kTileW = 32,        // 2-D kernels: threads of a block in x and y
  kTileH = 8,
  // The estimate kernel's output per image: eigenvalues, the singular flag (as a float 0 / 1), block variances.
  kOutEigen = 0,
  kOutSingular = kN,
  kOutVariance = kN + 1,
};

// A chroma plane as the kernels read it: 8-bit bytes or little-endian 16-bit words shifted right.
struct ImageArg {
  VxPlane plane;  // common.h
  vx_u32 bpc;
  vx_u32 reserved;
};
struct Images {
  ImageArg img[kImages];
};

// cpu::SpeedDims.
struct Dims {
  vx_i32 orig_w, orig_h, scaled_w, scaled_h, rescale;
  vx_i32 dec_w, dec_h, trunc_w, trunc_h, blocks_w, blocks_h, blocks, sub_w, sub_h;
};

// cpu::SpeedFilters.
struct Filters {
  vx_i32 aa_width, mean_width;
  float aa[kMaxAa];
  float mean[kMaxMean];
};

// cpu::SpeedScaleTables in device memory: per output column / row `taps` indices and (bilinear: 1, bicubic and
// lanczos4: taps) weights.
struct ScaleTables {
  vx_i32 method;  // cpu::SpeedScaleMethod: 0 nearest, 1 bilinear, 2 bicubic, 3 lanczos4
  vx_i32 taps;
  const vx_i32* x_index;
  const float* x_weight;
  const vx_i32* y_index;
  const float* y_weight;
};

VX_HD double sqrt_d(double x) {
#if defined(VX_DEVICE_COMPILE)
  return sqrt(x);
#else
  return ::sqrt(x);
#endif
}
VX_HD float abs_f(float x) {
#if defined(VX_DEVICE_COMPILE)
  return fabsf(x);
#else
  return ::fabsf(x);
#endif
}

// ---- load, prescale, antialias, local mean ---------------------------------------------------------------------

// Sample (x, y) as float minus 128 (10/12/16-bit divided by 4/16/256 first): cpu::speed_load.
VX_HD float load(const ImageArg& a, int x, int y) {
  const vx_u8* row = (const vx_u8*)a.plane.data + (vx_u64)y * a.plane.pitch;
  const vx_u64 at = (vx_u64)x * a.plane.step;
  if (a.plane.bytes == 1) return (float)row[at] + (float)(-128);
  const vx_u32 word = ((vx_u32)row[2 * at] | ((vx_u32)row[2 * at + 1] << 8)) >> a.plane.shift;
  const float scaler = a.bpc == 10 ? 4.0f : a.bpc == 12 ? 16.0f : 256.0f;
  return (float)(vx_u16)word / scaler + (float)(-128);
}

// Pixel (x, y) of the prescaled image of src (src(x, y): a float value): cpu::speed_prescale.
template <class Src>
VX_HD float prescale_from(const Src& src, const ScaleTables& t, int x, int y) {
  if (t.method == 0) return src(t.x_index[x], t.y_index[y]);
  if (t.method == 1) {
    const int y1 = t.y_index[2 * y], y2 = t.y_index[2 * y + 1];
    const int x1 = t.x_index[2 * x], x2 = t.x_index[2 * x + 1];
    const float dy = t.y_weight[y], dx = t.x_weight[x];
    return (1 - dy) * (1 - dx) * src(x1, y1) + (1 - dy) * dx * src(x2, y1) + dy * (1 - dx) * src(x1, y2) +
           dy * dx * src(x2, y2);
  }
  const int taps = t.taps;
  const bool lanczos = t.method == 3;
  const vx_i32* yi = t.y_index + (vx_i64)y * taps;
  const float* yw = t.y_weight + (vx_i64)y * taps;
  const vx_i32* xi = t.x_index + (vx_i64)x * taps;
  const float* xw = t.x_weight + (vx_i64)x * taps;
  float value = 0.0f, weight_sum = 0.0f;
  for (int j = 0; j < taps; j++) {
    for (int i = 0; i < taps; i++) {
      const float w = xw[i] * yw[j];
      if (lanczos) weight_sum += w;
      value += src(xi[i], yi[j]) * w;
    }
  }
  return lanczos ? value / weight_sum : value;
}

// vif_filter1d_s's mirror: -i below 0, 2 n - i - 2 from n on.
VX_HD int mirror(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); }

// The source of the antialias filter: the loaded plane, or the prescaled image (w x h floats at stride).
struct FloatSource {
  const float* p;
  vx_i64 stride;
  VX_HD float operator()(int x, int y) const { return p[(vx_i64)y * stride + x]; }
};
struct PlaneSource {
  ImageArg a;
  VX_HD float operator()(int x, int y) const { return load(a, x, y); }
};

// Pixel (x, y) of a plane's prescaled image.
VX_HD float prescale_at(const ImageArg& a, const ScaleTables& t, int x, int y) {
  PlaneSource src;
  src.a = a;
  return prescale_from(src, t, x, y);
}

// speed_temporal (cpu::SpeedTemporal): the two images of a frame, previous minus current loaded sample (the
// distorted image's current sample is the reference's with use_ref_diff).
VX_HD void temporal_difference(const ImageArg& ref, const ImageArg& dist, int use_ref_diff, int x, int y,
                               const float prev[2], float cur[2], float diff[2]) {
  cur[0] = load(ref, x, y);
  cur[1] = load(dist, x, y);
  diff[0] = prev[0] - cur[0];
  diff[1] = prev[1] - (use_ref_diff ? cur[0] : cur[1]);
}

// Decimated pixel (i, j): the antialias filter of the w x h image at (16 i, 16 j), vertical sums first
// (cpu::speed_antialias_dec16).
template <class Src>
VX_HD float antialias_dec16_at(const Src& src, const Filters& f, int w, int h, int i, int j) {
  const int fw = f.aa_width, r = fw / 2;
  const int row = i * 16, col = j * 16;
  float accum = 0;
  for (int kh = 0; kh < fw; kh++) {
    const int c = mirror(col - r + kh, w);
    float v = 0;
    for (int kv = 0; kv < fw; kv++) v += f.aa[kv] * src(c, mirror(row - r + kv, h));
    accum += f.aa[kh] * v;
  }
  return accum;
}

// The local mean at (i, j) of the decimated image (w x h at stride): cpu::speed_subtract_local_mean's filter.
VX_HD float local_mean_at(const float* img, vx_i64 stride, const Filters& f, int w, int h, int i, int j) {
  const int fw = f.mean_width, r = fw / 2;
  float accum = 0;
  for (int kh = 0; kh < fw; kh++) {
    const int c = mirror(j - r + kh, w);
    float v = 0;
    for (int kv = 0; kv < fw; kv++) v += f.mean[kv] * img[(vx_i64)mirror(i - r + kv, h) * stride + c];
    accum += f.mean[kh] * v;
  }
  return accum;
}

// ---- the estimate: covariance, eigenvalues, linear system (cpu::speed_estimate) ---------------------------------

// Mean k (0..24: block position (k / 5, k % 5)) over the covariance window.
VX_HD float window_mean(const Dims& d, const float* img, vx_i64 stride, int k) {
  const int sr = k / kBlock, sc = k % kBlock;
  float result = 0;
  for (int i = 0; i < d.sub_h; i++)
    for (int j = 0; j < d.sub_w; j++) result += img[(vx_i64)(sr + i) * stride + (sc + j)];
  return result / (float)((vx_u64)d.sub_w * (vx_u64)d.sub_h);
}

// Covariance of positions xi >= yi (the matrix is symmetric).
VX_HD float covariance(const Dims& d, const float* img, vx_i64 stride, const float* means, int xi, int yi) {
  const int rx = xi / kBlock, cx = xi % kBlock, ry = yi / kBlock, cy = yi % kBlock;
  const double mx = means[rx * kBlock + cx], my = means[ry * kBlock + cy];
  const float* px = img + (vx_i64)rx * stride + cx;
  const float* py = img + (vx_i64)ry * stride + cy;
  double result = 0;
  for (int i = 0; i < d.sub_h; i++) {
    for (int j = 0; j < d.sub_w; j++) {
      const double vx = px[(vx_i64)i * stride + j];
      const double vy = py[(vx_i64)i * stride + j];
      result += (vx - mx) * (vy - my);
    }
  }
  return (float)(result / (double)((vx_u64)d.sub_w * (vx_u64)d.sub_h));
}

// Element (row, col) of the independent term Y (kN x blocks): block col's sample at block position row.
VX_HD float independent_term(const Dims& d, const float* img, vx_i64 stride, int row, int col) {
  const int si = row / kBlock, sj = row % kBlock;
  const int bi = col / d.blocks_w, bj = col % d.blocks_w;
  return img[(vx_i64)(si + kBlock * bi) * stride + (sj + kBlock * bj)];
}

// -- eigenvalues of the symmetric kN x kN matrix: Householder tridiagonalisation, implicit QR steps (serial) --

VX_HD int sign_of(float x) { return x >= 0 ? 1 : -1; }
VX_HD float hypot_f(float x, float y) { return (float)sqrt_d((double)(x * x + y * y)); }

VX_HD float householder(float* A, int col, int start_row, int size) {
  if (size - start_row == 1) return 0.0f;
  float norm = 0;
  for (int i = start_row + 1; i < size; i++) norm += A[i * size + col] * A[i * size + col];
  const float xnorm = (float)sqrt_d((double)norm);
  if (xnorm == 0.0f) return 0.0f;
  const float alpha = A[start_row * size + col];
  const float beta = (float)(-sign_of(alpha)) * hypot_f(alpha, xnorm);
  const float tau = (beta - alpha) / beta;
  const float s = alpha - beta;
  if (s != 0.0f) {
    for (int i = start_row; i < size; i++) A[i * size + col] /= s;
    A[start_row * size + col] = beta;
  }
  return tau;
}

VX_HD void chop_small(float* d, float* sd, int size) {
  for (int i = 0; i < size - 1; i++)
    if ((double)abs_f(sd[i]) < 1e-6 * (double)(abs_f(d[i]) + abs_f(d[i + 1]))) sd[i] = 0.0f;
}

VX_HD void givens(float a, float b, float* c, float* s) {
  if (b == 0) {
    *c = 1;
    *s = 0;
  } else if (abs_f(b) > abs_f(a)) {
    const float t = -a / b;
    const float s1 = (float)(1.0 / sqrt_d((double)(1 + t * t)));
    *s = s1;
    *c = s1 * t;
  } else {
    const float t = -b / a;
    const float c1 = (float)(1.0 / sqrt_d((double)(1 + t * t)));
    *c = c1;
    *s = c1 * t;
  }
}

VX_HD void qr_step(float* d, float* sd, int n) {
  const float ta = d[n - 2], tb = d[n - 1], tab = sd[n - 2];
  const float dt = (float)((double)(ta - tb) / 2.0);
  float mu;
  if (dt > 0)
    mu = tb - tab * (tab / (dt + hypot_f(dt, tab)));
  else if (dt == 0)
    mu = tb - abs_f(tab);
  else
    mu = tb + tab * (tab / (-dt + hypot_f(dt, tab)));
  if (1e-6 * (double)abs_f(mu) > (double)(abs_f(d[0]) + abs_f(sd[0]))) mu = 0;
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

// Eigenvalues of cov (kN x kN, row-major); a: kN * kN scratch.
VX_HD void eigenvalues(const float* cov, float* eigen, float* a) {
  const int size = kN;
  float d[kN], sd[kN], v[kN], x[kN];
  for (int i = 0; i < kN * kN; i++) a[i] = cov[i];
  for (int i = 0; i < size - 2; i++) {
    const float tau = householder(a, i, i + 1, size);
    for (int j = i + 1; j < size; j++) v[j] = a[j * size + i];
    if (tau != 0.0f) {
      a[(i + 1) * size + i] = v[i + 1];
      v[i + 1] = 1.0f;
      const int s = i + 1;
      for (int r = s; r < size; r++) {
        x[r] = 0.0f;
        for (int c = s; c < size; c++) x[r] += tau * a[r * size + c] * v[c];
      }
      float xv = 0;
      for (int r = s; r < size; r++) xv += x[r] * v[r];
      const float alpha = (float)(-0.5 * (double)tau * (double)xv);
      for (int r = s; r < size; r++) x[r] += alpha * v[r];
      for (int r = s; r < size; r++)
        for (int c = s; c < size; c++) a[r * size + c] -= x[r] * v[c] + v[r] * x[c];
    }
  }
  for (int i = 0; i < size; i++) d[i] = a[i * size + i];
  for (int i = 0; i < size - 1; i++) sd[i] = a[(i + 1) * size + i];
  chop_small(d, sd, size);
  int b = size - 1, iter = 0;
  while (b > 0 && iter < 500) {
    if (sd[b - 1] == 0.0f) {
      b--;
      continue;
    }
    int q = b - 1;
    while (q > 0) {
      if (sd[q - 1] == 0.0f) break;
      q--;
    }
    const int nb = b - q + 1;
    qr_step(d + q, sd + q, nb);
    chop_small(d + q, sd + q, nb);
    iter++;
  }
  for (int i = 0; i < size; i++) eigen[i] = d[i];
}

// K regular: every eigenvalue at least 1e-6.
VX_HD bool regular(const float* eigen) {
  for (int i = 0; i < kN; i++)
    if ((double)eigen[i] < 1e-6) return false;
  return true;
}

// -- the linear system K X = Y through libvmaf's Householder QR of K (cpu::speed_solve). A block of threads runs
// each step over its elements (element e of a kN x kN step: row e / kN, column e % kN) between barriers. --

// Step k's first part on tmp_z: the leading rows and columns become the identity's.
VX_HD void qr_minor(float* tmp_z, int k, int e) {
  const int i = e / kN, j = e % kN;
  if (i < k || j < k) tmp_z[e] = i == j ? 1.0f : 0.0f;
}
// Then (one thread) the Householder vector of column k: vec = tmp_z[:, k], vec[k] += sign(a_kk) * |vec|, normalised.
VX_HD void qr_vector(const float* tmp_z, const float* a, int k, float* vec) {
  for (int i = 0; i < kN; i++) vec[i] = tmp_z[i * kN + k];
  float sum = 0;
  for (int i = 0; i < kN; i++) sum += vec[i] * vec[i];
  const float norm = (float)sqrt_d((double)sum);
  vec[k] += (float)sign_of(a[k * kN + k]) * norm;
  float sum2 = 0;
  for (int i = 0; i < kN; i++) sum2 += vec[i] * vec[i];
  const float len = (float)sqrt_d((double)sum2);
  for (int i = 0; i < kN; i++) vec[i] = vec[i] / len;
}
// The reflector I - 2 v v^T.
VX_HD float qr_reflector(const float* vec, int e) {
  const int i = e / kN, j = e % kN;
  float v = -2 * vec[i] * vec[j];
  if (i == j) v += 1;
  return v;
}
// Element e of x y (kN x kN), accumulated as libvmaf's matrix_mul.
VX_HD float mat_mul_at(const float* x, const float* y, int e) {
  const int i = e / kN, j = e % kN;
  float acc = 0;
  for (int k = 0; k < kN; k++) acc += x[i * kN + k] * y[k * kN + j];
  return acc;
}
// Element (i, j) of rhs = Q^T Y where qt is Q^T (kN x kN) and Y kN x blocks.
VX_HD float rhs_at(const float* qt, const float* y, int blocks, int i, int j) {
  float acc = 0;
  for (int k = 0; k < kN; k++) acc += qt[i * kN + k] * y[(vx_i64)k * blocks + j];
  return acc;
}
// Row i of the back substitution, column j (rows above i already solved).
VX_HD float back_substitute(const float* r, const float* rhs, const float* x, int blocks, int i, int j) {
  float t = rhs[(vx_i64)i * blocks + j];
  for (int k = i + 1; k < kN; k++) t -= x[(vx_i64)k * blocks + j] * r[i * kN + k];
  return t / r[i * kN + i];
}
// The pivot test of row i.
VX_HD bool pivot_ok(const float* r, int i) { return !((double)abs_f(r[i * kN + i]) < 1e-6); }

// Block variance S_j = sum_i (X_ij Y_ij) / 25 in libvmaf's order (cpu::speed_block_variance).
VX_HD float block_variance(const float* x, const float* y, int blocks, int j) {
  const float den = (float)(vx_u64)kN;
  float v = (x[j] * y[j]) / den;
  for (int i = 1; i < kN; i++) v += (x[(vx_i64)i * blocks + j] * y[(vx_i64)i * blocks + j]) / den;
  return v;
}

// The kernels' parameters (kernels/speed.hip declares each kernel with its type; the host launches them as
// TypedKernel<...>).
typedef void speed_prescale_kernel_fn(Images imgs, ScaleTables t, Dims d, float* scaled);
typedef void speed_dec_kernel_fn(Images imgs, Dims d, Filters f, const float* scaled, float* dec);
typedef void speed_mean_kernel_fn(Dims d, Filters f, const float* dec, float* ms);
typedef void speed_estimate_kernel_fn(Dims d, const float* ms, float* work, float* out);
// speed_temporal: cur and prev hold a frame's loaded ref and dist images (orig_w x orig_h floats each); diff gets
// the two difference images (first: a stream's first frame, only cur is written). imgs.img[0..1]: ref, dist luma.
typedef void speed_temporal_diff_kernel_fn(Images imgs, vx_i32 w, vx_i32 h, vx_i32 use_ref_diff, vx_i32 first,
                                           float* cur, const float* prev, float* diff);
// The prescale of float images (orig_w x orig_h each, blockIdx.z picks one) into scaled_w x scaled_h each.
typedef void speed_prescale_float_kernel_fn(const float* src, ScaleTables t, Dims d, float* scaled);

}  // namespace speed
}  // namespace hip
}  // namespace vmafx
