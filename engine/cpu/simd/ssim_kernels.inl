// SPDX-License-Identifier: LGPL-2.1-or-later
// Float SSIM / MS-SSIM over the float operations of `Isa`; included after vif_kernels.inl. Each vector lane is one
// output pixel and performs the scalar code's operations in the scalar code's order (float products widened to
// double and summed tap by tap, the same float and double roundings), so every float is the scalar one. The pooled
// sums, which the scalar code adds pixel after pixel, are still added pixel after pixel. Signatures and results as
// plane_to_float_scalar, decimate_scalar, ssim_gaussian_valid_scalar, ssim_moments_scalar, ssim_pool_scalar.

using F = Isa::F;

void ssim_plane_to_float(const Plane& p, float divisor, float* dst, size_t dst_stride) {
  if (p.step != 1 || p.w < uint32_t(N)) return plane_to_float_scalar(p, divisor, dst, dst_stride);
  const F div = Isa::set1f(divisor);
  for (uint32_t y = 0; y < p.h; ++y) {
    float* o = dst + size_t(y) * dst_stride;
    for (uint32_t x = 0;; x += N) {
      if (x + N > p.w) x = p.w - N;
      const V v = p.bytes == 1 ? Isa::load_u8(p.row<uint8_t>(y) + x)
                               : Isa::srl(Isa::load_u16(p.row<uint16_t>(y) + x), p.shift);
      Isa::storef(o + x, Isa::divf(Isa::cvt_i32_f(v), div));
      if (x + N >= p.w) break;
    }
  }
}

// sum_t double(in[t * step] * g[t]) for N consecutive outputs at `in`, rounded to float.
inline F gaussian_at(const float* in, ptrdiff_t step) {
  D lo = Isa::set1d(0.0), hi = Isa::set1d(0.0);
#pragma GCC unroll 11
  for (int t = 0; t < kSsimWindow; ++t) {
    const F p = Isa::mulf(Isa::loadf(in + t * step), Isa::set1f(kSsimGaussian[t]));
    lo = Isa::addd(lo, Isa::cvtf_lo(p));
    hi = Isa::addd(hi, Isa::cvtf_hi(p));
  }
  return Isa::narrowd(lo, hi);
}

void gaussian_valid(const float* src, int w, int h, float* tmp, float* dst) {
  const int dw = w - kSsimWindow + 1;
  const int dh = h - kSsimWindow + 1;
  if (dw < N) return ssim_gaussian_valid_scalar(src, w, h, tmp, dst);
  // The last vector of a row overlaps the one before (it rewrites the same values).
  for (int y = 0; y < h; ++y) {
    const float* in = src + ptrdiff_t(y) * w;
    float* out = tmp + ptrdiff_t(y) * dw;
    for (int x = 0;; x += N) {
      if (x + N > dw) x = dw - N;
      Isa::storef(out + x, gaussian_at(in + x, 1));
      if (x + N >= dw) break;
    }
  }
  for (int y = 0; y < dh; ++y) {
    float* out = dst + ptrdiff_t(y) * dw;
    const float* in = tmp + ptrdiff_t(y) * dw;
    for (int x = 0;; x += N) {
      if (x + N > dw) x = dw - N;
      Isa::storef(out + x, gaussian_at(in + x, dw));
      if (x + N >= dw) break;
    }
  }
}

void moments(const float* ref, const float* dist, int w, int h, SsimMoments* m) {
  const size_t n = size_t(w) * size_t(h);
  gaussian_valid(ref, w, h, m->tmp.data(), m->mu_ref.data());
  gaussian_valid(dist, w, h, m->tmp.data(), m->mu_dist.data());
  float* rr = m->var_ref.data();
  float* dd = m->var_dist.data();
  float* rd = m->cov.data();
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const F a = Isa::loadf(ref + i), b = Isa::loadf(dist + i);
    Isa::storef(rr + i, Isa::mulf(a, a));
    Isa::storef(dd + i, Isa::mulf(b, b));
    Isa::storef(rd + i, Isa::mulf(a, b));
  }
  for (; i < n; ++i) {
    rr[i] = ref[i] * ref[i];
    dd[i] = dist[i] * dist[i];
    rd[i] = ref[i] * dist[i];
  }
  gaussian_valid(rr, w, h, m->tmp.data(), rr);
  gaussian_valid(dd, w, h, m->tmp.data(), dd);
  gaussian_valid(rd, w, h, m->tmp.data(), rd);
  m->w = w - kSsimWindow + 1;
  m->h = h - kSsimWindow + 1;

  const float* mr = m->mu_ref.data();
  const float* md = m->mu_dist.data();
  const size_t nv = size_t(m->w) * size_t(m->h);
  const F zero = Isa::set1f(0.0f);
  i = 0;
  for (; i + N <= nv; i += N) {
    const F a = Isa::loadf(mr + i), b = Isa::loadf(md + i);
    F vr = Isa::subf(Isa::loadf(rr + i), Isa::mulf(a, a));
    F vd = Isa::subf(Isa::loadf(dd + i), Isa::mulf(b, b));
    // 0.0 > double(v) is v < 0 (false for -0.0 and NaN, which stay).
    vr = Isa::selectf(Isa::cmpltf(vr, zero), zero, vr);
    vd = Isa::selectf(Isa::cmpltf(vd, zero), zero, vd);
    Isa::storef(rr + i, vr);
    Isa::storef(dd + i, vd);
    Isa::storef(rd + i, Isa::subf(Isa::loadf(rd + i), Isa::mulf(a, b)));
  }
  for (; i < nv; ++i) {
    rr[i] -= mr[i] * mr[i];
    dd[i] -= md[i] * md[i];
    if (0.0 > double(rr[i])) rr[i] = 0.0f;
    if (0.0 > double(dd[i])) dd[i] = 0.0f;
    rd[i] -= mr[i] * md[i];
  }
}

SsimMeans pool(const SsimMoments& m) {
  // IQA's constants, computed in float as ssim.cpp does.
  const float k1 = 0.01f, k2 = 0.03f;
  const int range = 255;
  const float c1 = (k1 * range) * (k1 * range);
  const float c2 = (k2 * range) * (k2 * range);
  const float c3 = c2 / 2.0f;
  const size_t n = size_t(m.w) * size_t(m.h);
  const float* mr = m.mu_ref.data();
  const float* md = m.mu_dist.data();
  const float* vr = m.var_ref.data();
  const float* vd = m.var_dist.data();
  const float* cv = m.cov.data();
  double ssim_sum = 0.0, l_sum = 0.0, c_sum = 0.0, s_sum = 0.0;
  const F c1f = Isa::set1f(c1), c2f = Isa::set1f(c2), c3f = Isa::set1f(c3), zf = Isa::set1f(0.0f);
  const D c1d = Isa::set1d(double(c1)), c2d = Isa::set1d(double(c2)), two = Isa::set1d(2.0);
  double lb[N], cb[N], sb[N], pb[N];
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const F a = Isa::loadf(mr + i), b = Isa::loadf(md + i), x = Isa::loadf(vr + i), y = Isa::loadf(vd + i);
    const F xy = Isa::mulf(x, y);
    const F sd = Isa::narrowd(Isa::sqrtd(Isa::cvtf_lo(xy)), Isa::sqrtd(Isa::cvtf_hi(xy)));
    const F lden = Isa::addf(Isa::addf(Isa::mulf(a, a), Isa::mulf(b, b)), c1f);
    const F cden = Isa::addf(Isa::addf(x, y), c2f);
    const F c = Isa::loadf(cv + i);
    const F cov = Isa::selectf(Isa::andf(Isa::cmpltf(c, zf), Isa::cmplef(sd, zf)), zf, c);
    const F s = Isa::divf(Isa::addf(cov, c3f), Isa::addf(sd, c3f));
    const D halves_l[2] = {
        Isa::divd(Isa::addd(Isa::muld(Isa::muld(two, Isa::cvtf_lo(a)), Isa::cvtf_lo(b)), c1d), Isa::cvtf_lo(lden)),
        Isa::divd(Isa::addd(Isa::muld(Isa::muld(two, Isa::cvtf_hi(a)), Isa::cvtf_hi(b)), c1d), Isa::cvtf_hi(lden))};
    const D halves_c[2] = {Isa::divd(Isa::addd(Isa::muld(two, Isa::cvtf_lo(sd)), c2d), Isa::cvtf_lo(cden)),
                           Isa::divd(Isa::addd(Isa::muld(two, Isa::cvtf_hi(sd)), c2d), Isa::cvtf_hi(cden))};
    const D halves_s[2] = {Isa::cvtf_lo(s), Isa::cvtf_hi(s)};
    for (int k = 0; k < 2; ++k) {
      Isa::stored(lb + k * (N / 2), halves_l[k]);
      Isa::stored(cb + k * (N / 2), halves_c[k]);
      Isa::stored(sb + k * (N / 2), halves_s[k]);
      Isa::stored(pb + k * (N / 2), Isa::muld(Isa::muld(halves_l[k], halves_c[k]), halves_s[k]));
    }
    for (int k = 0; k < N; ++k) {
      ssim_sum += pb[k];
      l_sum += lb[k];
      c_sum += cb[k];
      s_sum += sb[k];
    }
  }
  for (; i < n; ++i) {
    const float sd_prod = float(__builtin_sqrt(double(vr[i] * vd[i])));
    const double l = (2.0 * double(mr[i]) * double(md[i]) + double(c1)) / double(mr[i] * mr[i] + md[i] * md[i] + c1);
    const double c = (2.0 * double(sd_prod) + double(c2)) / double(vr[i] + vd[i] + c2);
    const float cov = (cv[i] < 0.0f && sd_prod <= 0.0f) ? 0.0f : cv[i];
    const double s = double((cov + c3) / (sd_prod + c3));
    ssim_sum += l * c * s;
    l_sum += l;
    c_sum += c;
    s_sum += s;
  }
  const double count = double(int(n));
  SsimMeans r;
  r.l = float(l_sum / count);
  r.c = float(c_sum / count);
  r.s = float(s_sum / count);
  r.ssim = float(ssim_sum / count);
  return r;
}

void ssim_decimate(const float* src, int w, int h, int factor, const float* kernel, int kw, int kh, float* dst,
                   int* dw, int* dh) {
  const int sw = decimated_size(w, factor);
  const int sh = decimated_size(h, factor);
  const int uc = kw / 2, vc = kh / 2;
  const int u_end = uc - ((kw & 1) ? 0 : 1);
  const int v_end = vc - ((kh & 1) ? 0 : 1);
  // Outputs whose taps stay inside without mirroring: x >= uc, x + uc + 1 < w (one sample of margin: a stride-2 load
  // reads the odd sample after the last even one).
  const int ox_lo = (uc + factor - 1) / factor;
  for (int y = 0; y < sh; ++y) {
    float* out = dst + ptrdiff_t(y) * sw;
    const int yy = y * factor;
    int x = 0;
    if (yy >= vc && yy < h - vc) {
      for (; x < ox_lo && x < sw; ++x)
        out[x] = filter_pixel_symmetric(src, w, h, x * factor, yy, kernel, kw, kh);
      for (; x + N <= sw && (x + N - 1) * factor + uc + 1 < w; x += N) {
        D lo = Isa::set1d(0.0), hi = Isa::set1d(0.0);
        const float* k = kernel;
        for (int v = -vc; v <= v_end; ++v) {
          const float* row = src + ptrdiff_t(yy + v) * w + ptrdiff_t(x) * factor;
          for (int u = -uc; u <= u_end; ++u, ++k) {
            const F p = Isa::mulf(Isa::loadf_stride(row + u, factor), Isa::set1f(*k));
            lo = Isa::addd(lo, Isa::cvtf_lo(p));
            hi = Isa::addd(hi, Isa::cvtf_hi(p));
          }
        }
        Isa::storef(out + x, Isa::narrowd(lo, hi));
      }
    }
    for (; x < sw; ++x) out[x] = filter_pixel_symmetric(src, w, h, x * factor, yy, kernel, kw, kh);
  }
  if (dw) *dw = sw;
  if (dh) *dh = sh;
}
