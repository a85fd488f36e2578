// SPDX-License-Identifier: LGPL-2.1-or-later
// VIF's hot loops over the vector operations of `Isa` (vec_x86.h). Included by one file per instruction set inside
// an anonymous namespace. Each function has the signature and exact result of its scalar namesake in vif.cpp (see
// vif.h for the integer ranges the arguments below rely on); edges, tails and rows narrower than a vector go to
// scalar code with the same arithmetic.

using V = Isa::V;
using D = Isa::D;
constexpr int N = Isa::N;

inline int64_t vmirror(int64_t i, int64_t n) {
  if (i < 0) return -i;
  if (i >= n) return 2 * (n - 1) - i;
  return i;
}

// (a * b + 2^31) >> 32 of each 32-bit lane (a, b < 2^32), through the even and odd 64-bit products.
inline V mul_q32_round(V a, V b) {
  const V half = Isa::set1_64(int64_t(1) << 31);
  const V e = Isa::add64(Isa::mul_u32(a, b), half);
  const V o = Isa::add64(Isa::mul_u32(Isa::srli64<32>(a), Isa::srli64<32>(b)), half);
  return Isa::blend_odd(Isa::srli64<32>(e), o);
}

// Taps 2j and 2j + 1 of a scale in the low and high halves of each 32-bit lane (0 past the last tap): vpmaddwd's
// operand for two taps at once.
template <int kScale>
inline V tap_pair(int j) {
  constexpr int kFw = kVifFilterWidth[kScale];
  const uint32_t lo = kVifFilter[kScale][2 * j];
  const uint32_t hi = 2 * j + 1 < kFw ? kVifFilter[kScale][2 * j + 1] : 0;
  return Isa::set1(int32_t(lo | (hi << 16)));
}

// ---- vertical pass -----------------------------------------------------------------------------------------------

// 8-bit samples at scale 0, 2N pixels in 16-bit lanes: rows 2j and 2j + 1 interleaved, times taps 2j, 2j + 1 with
// vpmaddwd. Samples (< 2^8) are exact signed operands; their products a * a, d * d, a * d (< 2^16) are stored as
// p - 2^15, which makes them signed operands too: the sum over all taps is then short by 2^15 * 2^16 = 2^31, added
// back modulo 2^32 (every true sum is below 2^32).
inline void vertical_8bit_s0_wide(const uint16_t* const* rr, const uint16_t* const* dr, uint32_t x,
                                  const VifRounding& r, const VifVerticalRow& out) {
  constexpr int kFw = kVifFilterWidth[0];
  constexpr int kPairs = (kFw + 1) / 2;
  const V bias = Isa::set1(int32_t(0x80008000u));
  V m1l = Isa::zero(), m1h = Isa::zero(), m2l = Isa::zero(), m2h = Isa::zero();
  V aal = Isa::zero(), aah = Isa::zero(), ddl = Isa::zero(), ddh = Isa::zero(), adl = Isa::zero(),
    adh = Isa::zero();
#pragma GCC unroll 9
  for (int j = 0; j < kPairs; ++j) {
    const V f = tap_pair<0>(j);
    const int k1 = 2 * j + 1 < kFw ? 2 * j + 1 : 2 * j;  // the zero tap of the last pair reads a valid row
    const V a0 = Isa::load(rr[2 * j] + x), a1 = Isa::load(rr[k1] + x);
    const V d0 = Isa::load(dr[2 * j] + x), d1 = Isa::load(dr[k1] + x);
    m1l = Isa::add(m1l, Isa::madd16(Isa::unpacklo16(a0, a1), f));
    m1h = Isa::add(m1h, Isa::madd16(Isa::unpackhi16(a0, a1), f));
    m2l = Isa::add(m2l, Isa::madd16(Isa::unpacklo16(d0, d1), f));
    m2h = Isa::add(m2h, Isa::madd16(Isa::unpackhi16(d0, d1), f));
    const V aa0 = Isa::xor_(Isa::mullo16(a0, a0), bias), aa1 = Isa::xor_(Isa::mullo16(a1, a1), bias);
    const V dd0 = Isa::xor_(Isa::mullo16(d0, d0), bias), dd1 = Isa::xor_(Isa::mullo16(d1, d1), bias);
    const V ad0 = Isa::xor_(Isa::mullo16(a0, d0), bias), ad1 = Isa::xor_(Isa::mullo16(a1, d1), bias);
    aal = Isa::add(aal, Isa::madd16(Isa::unpacklo16(aa0, aa1), f));
    aah = Isa::add(aah, Isa::madd16(Isa::unpackhi16(aa0, aa1), f));
    ddl = Isa::add(ddl, Isa::madd16(Isa::unpacklo16(dd0, dd1), f));
    ddh = Isa::add(ddh, Isa::madd16(Isa::unpackhi16(dd0, dd1), f));
    adl = Isa::add(adl, Isa::madd16(Isa::unpacklo16(ad0, ad1), f));
    adh = Isa::add(adh, Isa::madd16(Isa::unpackhi16(ad0, ad1), f));
  }
  const V mr = Isa::set1(int32_t(r.mu_round));
  const V m16 = Isa::set1(0xffff);
  const int ms = int(r.mu_shift);
  auto mu = [&](V v) { return Isa::and_(Isa::srl(Isa::add(v, mr), ms), m16); };
  const V unbias = Isa::set1(int32_t(0x80000000u));
  Isa::store_lohi(out.mu1 + x, mu(m1l), mu(m1h));
  Isa::store_lohi(out.mu2 + x, mu(m2l), mu(m2h));
  Isa::store_lohi(out.rr + x, Isa::add(aal, unbias), Isa::add(aah, unbias));  // 8-bit: sq_shift 0
  Isa::store_lohi(out.dd + x, Isa::add(ddl, unbias), Isa::add(ddh, unbias));
  Isa::store_lohi(out.rd + x, Isa::add(adl, unbias), Isa::add(adh, unbias));
}

// 8-bit samples at scale 0: f * x fits 16-bit signed operands (taps < 2^15, samples < 2^8), so vpmaddwd gives it;
// every sum of the pass fits 32 bits.
inline void vertical_8bit_s0(const uint16_t* const* rr, const uint16_t* const* dr, uint32_t x,
                             const VifRounding& r, const VifVerticalRow& out) {
  constexpr int kFw = kVifFilterWidth[0];
  V mu1 = Isa::zero(), mu2 = Isa::zero(), s11 = Isa::zero(), s22 = Isa::zero(), s12 = Isa::zero();
#pragma GCC unroll 17
  for (int k = 0; k < kFw; ++k) {
    const V f = Isa::set1(kVifFilter[0][k]);
    const V a = Isa::load_u16(rr[k] + x);
    const V b = Isa::load_u16(dr[k] + x);
    const V fa = Isa::madd16(a, f);
    const V fb = Isa::madd16(b, f);
    mu1 = Isa::add(mu1, fa);
    mu2 = Isa::add(mu2, fb);
    s11 = Isa::add(s11, Isa::mullo(fa, a));
    s22 = Isa::add(s22, Isa::mullo(fb, b));
    s12 = Isa::add(s12, Isa::mullo(fa, b));
  }
  const V mr = Isa::set1(int32_t(r.mu_round));
  const V m16 = Isa::set1(0xffff);
  Isa::store(out.mu1 + x, Isa::and_(Isa::srl(Isa::add(mu1, mr), int(r.mu_shift)), m16));
  Isa::store(out.mu2 + x, Isa::and_(Isa::srl(Isa::add(mu2, mr), int(r.mu_shift)), m16));
  Isa::store(out.rr + x, s11);  // 8-bit: no rounding of the second moments (sq_shift 0)
  Isa::store(out.dd + x, s22);
  Isa::store(out.rd + x, s12);
}

// (even + odd 64-bit sums + round) >> shift, low 32 bits of each lane, back in lane order.
inline V finish64(V e, V o, V round, int shift) {
  e = Isa::srl64(Isa::add64(e, round), shift);
  o = Isa::srl64(Isa::add64(o, round), shift);
  return Isa::blend_odd(e, Isa::slli64<32>(o));
}

// Any depth, any scale: f * x < 2^32 in 32 bits, f * x * y < 2^48 summed in 64-bit lanes.
template <int kScale>
inline void vertical_wide(const uint16_t* const* rr, const uint16_t* const* dr, uint32_t x, const VifRounding& r,
                          const VifVerticalRow& out) {
  constexpr int kFw = kVifFilterWidth[kScale];
  V mu1 = Isa::zero(), mu2 = Isa::zero();
  V s11e = Isa::zero(), s11o = Isa::zero(), s22e = Isa::zero(), s22o = Isa::zero(), s12e = Isa::zero(),
    s12o = Isa::zero();
#pragma GCC unroll 17
  for (int k = 0; k < kFw; ++k) {
    const V f = Isa::set1(kVifFilter[kScale][k]);
    const V a = Isa::load_u16(rr[k] + x);
    const V b = Isa::load_u16(dr[k] + x);
    const V fa = Isa::mullo(a, f);
    const V fb = Isa::mullo(b, f);
    mu1 = Isa::add(mu1, fa);
    mu2 = Isa::add(mu2, fb);
    const V ao = Isa::srli64<32>(a), bo = Isa::srli64<32>(b);
    const V fao = Isa::srli64<32>(fa), fbo = Isa::srli64<32>(fb);
    s11e = Isa::add64(s11e, Isa::mul_u32(fa, a));
    s11o = Isa::add64(s11o, Isa::mul_u32(fao, ao));
    s22e = Isa::add64(s22e, Isa::mul_u32(fb, b));
    s22o = Isa::add64(s22o, Isa::mul_u32(fbo, bo));
    s12e = Isa::add64(s12e, Isa::mul_u32(fa, b));
    s12o = Isa::add64(s12o, Isa::mul_u32(fao, bo));
  }
  const V mr = Isa::set1(int32_t(r.mu_round));
  const V m16 = Isa::set1(0xffff);
  Isa::store(out.mu1 + x, Isa::and_(Isa::srl(Isa::add(mu1, mr), int(r.mu_shift)), m16));
  Isa::store(out.mu2 + x, Isa::and_(Isa::srl(Isa::add(mu2, mr), int(r.mu_shift)), m16));
  const V sr = Isa::set1_64(int64_t(r.sq_round));
  const int ss = int(r.sq_shift);
  Isa::store(out.rr + x, finish64(s11e, s11o, sr, ss));
  Isa::store(out.dd + x, finish64(s22e, s22o, sr, ss));
  Isa::store(out.rd + x, finish64(s12e, s12o, sr, ss));
}

void vertical_row(unsigned scale, unsigned bpc, const uint16_t* ref, const uint16_t* dist, ptrdiff_t stride,
                  uint32_t w, uint32_t h, uint32_t y, const VifVerticalRow& out) {
  if (w < uint32_t(N)) return vif_vertical_row(scale, bpc, ref, dist, stride, w, h, y, out);
  const int fw = kVifFilterWidth[scale];
  const int half = fw / 2;
  const VifRounding r = vif_vertical_rounding(scale, bpc);
  const uint16_t* rr[17];
  const uint16_t* dr[17];
  for (int k = 0; k < fw; ++k) {
    const ptrdiff_t o = vmirror(int64_t(y) - half + k, h) * stride;
    rr[k] = ref + o;
    dr[k] = dist + o;
  }
  // The last vector overlaps the one before it when w is not a multiple of N (it writes the same values again).
  auto run = [&](auto body) {
    for (uint32_t x = 0;; x += N) {
      if (x + N > w) x = w - N;
      body(x);
      if (x + N >= w) break;
    }
  };
  switch (scale) {
    case 0:
      if (bpc == 8 && w >= uint32_t(2 * N)) {
        for (uint32_t x = 0;; x += 2 * N) {
          if (x + 2 * N > w) x = w - 2 * N;
          vertical_8bit_s0_wide(rr, dr, x, r, out);
          if (x + 2 * N >= w) break;
        }
      } else if (bpc == 8)
        run([&](uint32_t x) { vertical_8bit_s0(rr, dr, x, r, out); });
      else
        run([&](uint32_t x) { vertical_wide<0>(rr, dr, x, r, out); });
      break;
    case 1: run([&](uint32_t x) { vertical_wide<1>(rr, dr, x, r, out); }); break;
    case 2: run([&](uint32_t x) { vertical_wide<2>(rr, dr, x, r, out); }); break;
    default: run([&](uint32_t x) { vertical_wide<3>(rr, dr, x, r, out); }); break;
  }
}

// ---- horizontal pass ---------------------------------------------------------------------------------------------

template <int kScale>
inline void horizontal_scalar_at(const VifVerticalRowConst& in, uint32_t w, uint32_t x, const VifFilteredRow& out) {
  constexpr int kFw = kVifFilterWidth[kScale];
  constexpr int kHalf = kFw / 2;
  uint32_t mu1 = 0, mu2 = 0;
  uint64_t xx = 0, yy = 0, xy = 0;
  for (int k = 0; k < kFw; ++k) {
    const int64_t j = vmirror(int64_t(x) - kHalf + k, w);
    const uint32_t f = kVifFilter[kScale][k];
    mu1 += f * in.mu1[j];
    mu2 += f * in.mu2[j];
    xx += uint64_t(f) * in.rr[j];
    yy += uint64_t(f) * in.dd[j];
    xy += uint64_t(f) * in.rd[j];
  }
  out.mu1[x] = mu1;
  out.mu2[x] = mu2;
  out.xx[x] = uint32_t((xx + 32768) >> 16);
  out.yy[x] = uint32_t((yy + 32768) >> 16);
  out.xy[x] = uint32_t((xy + 32768) >> 16);
}

// N outputs from x on, every tap inside the row. The means use the filter's symmetry (f[k] = f[fw-1-k]); their
// sums are exact modulo 2^32 and below it. The moments sum f * m < 2^48 in 64-bit lanes.
template <int kScale>
inline void horizontal_vec(const VifVerticalRowConst& in, uint32_t x, const VifFilteredRow& out) {
  constexpr int kFw = kVifFilterWidth[kScale];
  constexpr int kHalf = kFw / 2;
  const int64_t b = int64_t(x) - kHalf;
  const V fc = Isa::set1(kVifFilter[kScale][kHalf]);
  V mu1 = Isa::mullo(Isa::load(in.mu1 + x), fc);
  V mu2 = Isa::mullo(Isa::load(in.mu2 + x), fc);
  for (int k = 0; k < kHalf; ++k) {
    const V f = Isa::set1(kVifFilter[kScale][k]);
    mu1 = Isa::add(mu1, Isa::mullo(Isa::add(Isa::load(in.mu1 + b + k), Isa::load(in.mu1 + b + kFw - 1 - k)), f));
    mu2 = Isa::add(mu2, Isa::mullo(Isa::add(Isa::load(in.mu2 + b + k), Isa::load(in.mu2 + b + kFw - 1 - k)), f));
  }
  Isa::store(out.mu1 + x, mu1);
  Isa::store(out.mu2 + x, mu2);
  const uint32_t* src[3] = {in.rr, in.dd, in.rd};
  uint32_t* dst[3] = {out.xx, out.yy, out.xy};
  const V round = Isa::set1_64(32768);
  for (int q = 0; q < 3; ++q) {
    V e = Isa::zero(), o = Isa::zero();
#pragma GCC unroll 17
    for (int k = 0; k < kFw; ++k) {
      const V f = Isa::set1(kVifFilter[kScale][k]);
      const V m = Isa::load(src[q] + b + k);
      e = Isa::add64(e, Isa::mul_u32(m, f));
      o = Isa::add64(o, Isa::mul_u32(Isa::srli64<32>(m), f));
    }
    Isa::store(dst[q] + x, finish64(e, o, round, 16));
  }
}

// Scales whose taps are all below 2^15 (0, 1, 2) filter 16-bit values with vpmaddwd, two taps per instruction:
// a value v < 2^16 is stored as the signed v - 2^15, so sum f * (v - 2^15) = sum f * v - 2^31 (the taps sum to
// 2^16) fits 32 signed bits, and adding 2^31 back modulo 2^32 gives the exact sum (< 2^32). The moments m < 2^32
// split into hi = m >> 16 and lo = m & 0xffff:  (sum f m + 2^15) >> 16 = sum f hi + ((sum f lo + 2^15) >> 16),
// which is exact (both sums < 2^32) and wraps modulo 2^32 as the scalar truncation to 32 bits does.
// A 32-bit lane loaded at s + j holds s[j + 2i], s[j + 2i + 1]: one load gives the tap pair of the even outputs,
// the load one sample later that of the odd outputs. Scale 3 (a tap of 43728) uses horizontal_vec.
constexpr uint32_t kChunk = 256;  // outputs per chunk (a multiple of 2N)


// Outputs x0 .. x0 + n - 1 (n a multiple of 2N, at most kChunk, x0 + n <= w). The samples the taps read are copied
// first, mirrored at the row's ends as the scalar code reads them, so the edges need no code of their own.
template <int kScale>
void horizontal_chunk(const VifVerticalRowConst& in, uint32_t w, uint32_t x0, uint32_t n, const VifFilteredRow& out) {
  constexpr int kFw = kVifFilterWidth[kScale];
  constexpr int kHalf = kFw / 2;
  constexpr int kPairs = (kFw + 1) / 2;
  // Samples x0 - kHalf .. x0 + n + kHalf, plus one read by the zero tap of the last pair, and room for a vector.
  constexpr uint32_t kLen = kChunk + 2 * kHalf + 2 + 2 * N;
  alignas(64) uint16_t s[8][kLen];
  const int64_t first = int64_t(x0) - kHalf;
  const uint32_t len = n + 2 * kHalf + 2;
  // Copied with vectors: the part of [first, first + len) inside the row.
  const uint32_t i_lo = first < 0 ? uint32_t(-first) : 0;
  const uint32_t i_hi = uint32_t(int64_t(w) - first < int64_t(len) ? int64_t(w) - first : int64_t(len));
  auto put = [&](uint32_t i) {
    const int64_t j0 = first + int64_t(i);
    if (j0 > 2 * (int64_t(w) - 1)) {  // only the zero tap reads it
      for (auto& a : s) a[i] = 0x8000;
      return;
    }
    const int64_t j = vmirror(j0, w);
    s[0][i] = uint16_t(in.mu1[j] ^ 0x8000);
    s[1][i] = uint16_t(in.mu2[j] ^ 0x8000);
    s[2][i] = uint16_t((in.rr[j] >> 16) ^ 0x8000);
    s[3][i] = uint16_t((in.rr[j] & 0xffff) ^ 0x8000);
    s[4][i] = uint16_t((in.dd[j] >> 16) ^ 0x8000);
    s[5][i] = uint16_t((in.dd[j] & 0xffff) ^ 0x8000);
    s[6][i] = uint16_t((in.rd[j] >> 16) ^ 0x8000);
    s[7][i] = uint16_t((in.rd[j] & 0xffff) ^ 0x8000);
  };
  const V m16 = Isa::set1(0xffff), bias = Isa::set1(0x8000);
  uint32_t i = 0;
  for (; i < i_lo; ++i) put(i);
  for (; i + N <= i_hi; i += N) {
    const int64_t j = first + int64_t(i);
    Isa::store_u16(s[0] + i, Isa::xor_(Isa::load(in.mu1 + j), bias));
    Isa::store_u16(s[1] + i, Isa::xor_(Isa::load(in.mu2 + j), bias));
    const uint32_t* m[3] = {in.rr, in.dd, in.rd};
    for (int q = 0; q < 3; ++q) {
      const V v = Isa::load(m[q] + j);
      Isa::store_u16(s[2 + 2 * q] + i, Isa::xor_(Isa::srli<16>(v), bias));
      Isa::store_u16(s[3 + 2 * q] + i, Isa::xor_(Isa::and_(v, m16), bias));
    }
  }
  for (; i < len; ++i) put(i);
  V f[kPairs];
  for (int j = 0; j < kPairs; ++j) f[j] = tap_pair<kScale>(j);
  const V unbias = Isa::set1(int32_t(0x80000000u));
  const V round = Isa::set1(32768);
  for (uint32_t o = 0; o < n; o += 2 * N) {
    V e[8], od[8];
    for (int a = 0; a < 8; ++a) {
      const uint16_t* p = s[a] + o;
      V ev = unbias, ov = unbias;
#pragma GCC unroll 9
      for (int j = 0; j < kPairs; ++j) {
        ev = Isa::add(ev, Isa::madd16(Isa::load(p + 2 * j), f[j]));
        ov = Isa::add(ov, Isa::madd16(Isa::load(p + 2 * j + 1), f[j]));
      }
      e[a] = ev;
      od[a] = ov;
    }
    const uint32_t x = x0 + o;
    Isa::store_interleaved(out.mu1 + x, e[0], od[0]);
    Isa::store_interleaved(out.mu2 + x, e[1], od[1]);
    uint32_t* dst[3] = {out.xx, out.yy, out.xy};
    for (int q = 0; q < 3; ++q) {
      const V ev = Isa::add(e[2 + 2 * q], Isa::srli<16>(Isa::add(e[3 + 2 * q], round)));
      const V ov = Isa::add(od[2 + 2 * q], Isa::srli<16>(Isa::add(od[3 + 2 * q], round)));
      Isa::store_interleaved(dst[q] + x, ev, ov);
    }
  }
}

template <int kScale>
void horizontal_impl(const VifVerticalRowConst& in, uint32_t w, const VifFilteredRow& out) {
  constexpr uint32_t kHalf = uint32_t(kVifFilterWidth[kScale] / 2);
  if constexpr (kScale < 3) {
    // Whole row in chunks of 2N outputs; a last block that does not fit ends at w and overlaps the one before it
    // (it writes the same values again). The copy's mirroring needs w > kHalf + 1.
    if (w >= uint32_t(2 * N) && w > kHalf + 1) {
      const uint32_t body = w - w % (2 * N);
      for (uint32_t x = 0; x < body; x += kChunk) horizontal_chunk<kScale>(in, w, x, body - x < kChunk ? body - x : kChunk, out);
      if (body < w) horizontal_chunk<kScale>(in, w, w - 2 * N, 2 * N, out);
      return;
    }
  }
  if (w < 2 * kHalf + uint32_t(N)) {
    for (uint32_t x = 0; x < w; ++x) horizontal_scalar_at<kScale>(in, w, x, out);
    return;
  }
  uint32_t x = 0;
  for (; x < kHalf; ++x) horizontal_scalar_at<kScale>(in, w, x, out);
  for (; x + N <= w - kHalf; x += N) horizontal_vec<kScale>(in, x, out);
  for (; x < w; ++x) horizontal_scalar_at<kScale>(in, w, x, out);
}

void horizontal_row(unsigned scale, const VifVerticalRowConst& in, uint32_t w, const VifFilteredRow& out) {
  switch (scale) {
    case 0: horizontal_impl<0>(in, w, out); break;
    case 1: horizontal_impl<1>(in, w, out); break;
    case 2: horizontal_impl<2>(in, w, out); break;
    default: horizontal_impl<3>(in, w, out); break;
  }
}

// ---- statistic ---------------------------------------------------------------------------------------------------

// Entries 32768..65535 of libvmaf's log2 table (the only ones read: every argument is >= 2^17 and keeps its 16
// leading bits), plus one so that a 32-bit gather at the last entry stays inside.
struct HalfLog2 {
  uint16_t v[32768 + 2] = {};
  HalfLog2() {
    const uint16_t* t = vif_log2_table();
    for (uint32_t i = 0; i < 32768; ++i) v[i] = t[32768 + i];
  }
};
const uint16_t* half_log2() {
  static const HalfLog2 t;
  return t.v;
}

// log2(v) in Q11 of lanes v >= 2^17: table[v >> k] + 2048 k with k = floor(log2 v) - 15. Lanes outside that range
// read some entry of the table and give an unspecified value.
inline V log2_q11_32(const uint16_t* half, V v) {
  const V k = Isa::sub(Isa::floor_log2_u32(v), Isa::set1(15));
  const V idx = Isa::and_(Isa::sub(Isa::srlv(v, k), Isa::set1(32768)), Isa::set1(0x7fff));
  return Isa::add(Isa::gather_u16(half, idx), Isa::mullo(k, Isa::set1(2048)));
}
// The same for 64-bit values 2^17 <= v < 2^52 given as the lo / hi halves of the lanes (zext_lo / zext_hi order).
inline V log2_q11_64(const uint16_t* half, V lo, V hi) {
  const V k15 = Isa::set1_64(15);
  const V klo = Isa::sub64(Isa::floor_log2_u64(lo), k15);
  const V khi = Isa::sub64(Isa::floor_log2_u64(hi), k15);
  const V idx64 = Isa::narrow64(Isa::srlv64(lo, klo), Isa::srlv64(hi, khi));
  const V k = Isa::narrow64(klo, khi);
  const V idx = Isa::and_(Isa::sub(idx64, Isa::set1(32768)), Isa::set1(0x7fff));
  return Isa::add(Isa::gather_u16(half, idx), Isa::mullo(k, Isa::set1(2048)));
}

void accumulate(const VifFilteredRowConst& in, uint32_t n, double enhn_gain_limit, VifAccum* acc) {
  const uint16_t* half = half_log2();
  const V nsq = Isa::set1(kVifSigmaNsq);
  const V nsq_m1 = Isa::set1(kVifSigmaNsq - 1);
  const V zero = Isa::zero();
  const V den_off = Isa::set1(2048 * 17);
  const V lo32 = Isa::set1_64(0xffffffffll);
  const D eps = Isa::set1d(65536 * 1.0e-10);
  const D limit = Isa::set1d(enhn_gain_limit);
  int64_t num_log = 0, den_log = 0, den_non_log = 0;
  V num_log_v = zero, den_log_v = zero, count_v = zero, non_log_v = zero;
  // 32-bit lane sums hold at most 4096 terms each (|term| < 2^17) before they are added to the 64-bit totals.
  unsigned pending = 0;
  auto flush = [&]() {
    num_log += Isa::hsum_i32_to_i64(num_log_v);
    den_log += Isa::hsum_i32_to_i64(den_log_v);
    den_non_log += Isa::hsum_i32_to_i64(count_v);
    num_log_v = den_log_v = count_v = zero;
    pending = 0;
  };
  uint32_t x = 0;
  for (; x + N <= n; x += N) {
    const V mu1 = Isa::load(in.mu1 + x);
    const V mu2 = Isa::load(in.mu2 + x);
    const V sigma1 = Isa::sub(Isa::load(in.xx + x), mul_q32_round(mu1, mu1));
    const V sigma2 = Isa::max_i32(Isa::sub(Isa::load(in.yy + x), mul_q32_round(mu2, mu2)), zero);
    const V sigma12 = Isa::sub(Isa::load(in.xy + x), mul_q32_round(mu1, mu2));
    const V mden = Isa::cmpgt_i32(sigma1, nsq_m1);  // sigma1_sq >= 2.0 (Q16)

    // Pixels below the noise floor: sigma2_sq summed in 64 bits and counted.
    const V non = Isa::andnot(mden, sigma2);
    non_log_v = Isa::add64(non_log_v, Isa::add64(Isa::and_(non, lo32), Isa::srli64<32>(non)));
    count_v = Isa::sub(count_v, Isa::andnot(mden, Isa::set1(-1)));
    if (Isa::any(mden)) {
      const V dterm = Isa::sub(log2_q11_32(half, Isa::add(sigma1, nsq)), den_off);
      den_log_v = Isa::add(den_log_v, Isa::and_(mden, dterm));
      const V mnum = Isa::and_(mden, Isa::and_(Isa::cmpgt_i32(sigma12, zero), Isa::cmpgt_i32(sigma2, zero)));
      if (Isa::any(mnum)) {
        // libvmaf's double arithmetic, lane by lane in the same order: g = sigma12 / (sigma1_sq + eps),
        // sv_sq = (int32)(sigma2_sq - g * sigma12), g capped, then (int64)(g * g * sigma1_sq).
        const D s1l = Isa::cvt_lo(sigma1), s1h = Isa::cvt_hi(sigma1);
        const D s12l = Isa::cvt_lo(sigma12), s12h = Isa::cvt_hi(sigma12);
        const D gl = Isa::divd(s12l, Isa::addd(s1l, eps));
        const D gh = Isa::divd(s12h, Isa::addd(s1h, eps));
        const V sv = Isa::trunc_i32(Isa::subd(Isa::cvt_lo(sigma2), Isa::muld(gl, s12l)),
                                    Isa::subd(Isa::cvt_hi(sigma2), Isa::muld(gh, s12h)));
        const D gcl = Isa::mind(gl, limit), gch = Isa::mind(gh, limit);
        const V numer1 = Isa::add(Isa::max_i32(sv, zero), nsq);
        const V tl = Isa::add64(Isa::trunc_i64_small(Isa::muld(Isa::muld(gcl, gcl), s1l)), Isa::zext_lo(numer1));
        const V th = Isa::add64(Isa::trunc_i64_small(Isa::muld(Isa::muld(gch, gch), s1h)), Isa::zext_hi(numer1));
        const V nterm = Isa::sub(log2_q11_64(half, tl, th), log2_q11_32(half, numer1));
        num_log_v = Isa::add(num_log_v, Isa::and_(mnum, nterm));
      }
    }
    if (++pending == 4096) flush();
  }
  flush();
  acc->num_log += num_log;
  acc->den_log += den_log;
  acc->num_non_log += int64_t(Isa::hsum_u64(non_log_v));
  acc->den_non_log += den_non_log;
  if (x < n) {
    const VifFilteredRowConst tail{in.mu1 + x, in.mu2 + x, in.xx + x, in.yy + x, in.xy + x};
    vif_accumulate(tail, n - x, enhn_gain_limit, acc);
  }
}

// ---- decimation --------------------------------------------------------------------------------------------------

void decimate(unsigned scale, unsigned bpc, const uint16_t* ref, const uint16_t* dist, ptrdiff_t stride, uint32_t w,
              uint32_t h, uint16_t* ref_out, uint16_t* dist_out, ptrdiff_t out_stride, uint32_t* scratch) {
  const unsigned fs = scale + 1;
  const int fw = kVifFilterWidth[fs];
  const int half = fw / 2;
  if (w < uint32_t(2 * N + 2 * half))
    return vif_decimate(scale, bpc, ref, dist, stride, w, h, ref_out, dist_out, out_stride, scratch);
  const uint16_t* filt = kVifFilter[fs];
  const VifRounding r = vif_vertical_rounding(scale == 0 ? 0 : 1, bpc);
  uint32_t* vr = scratch;
  uint32_t* vd = scratch + w;
  const uint32_t ow = w / 2, oh = h / 2;
  V fv[17];
  for (int k = 0; k < fw; ++k) fv[k] = Isa::set1(filt[k]);
  const V mr = Isa::set1(int32_t(r.mu_round));
  const V m16 = Isa::set1(0xffff);
  const V hr = Isa::set1(32768);
  // Output columns whose taps stay inside the row: 2 ox - half >= 0 and 2 ox + half <= w - 1.
  const uint32_t ox_lo = uint32_t(half + 1) / 2;
  const uint32_t ox_hi = (w - 1 - uint32_t(half)) / 2 + 1;  // first ox past the interior
  for (uint32_t oy = 0; oy < oh; ++oy) {
    const uint32_t y = 2 * oy;
    const uint16_t* rrows[17];
    const uint16_t* drows[17];
    for (int k = 0; k < fw; ++k) {
      const ptrdiff_t o = vmirror(int64_t(y) - half + k, h) * stride;
      rrows[k] = ref + o;
      drows[k] = dist + o;
    }
    for (uint32_t x = 0;; x += N) {
      if (x + N > w) x = w - N;
      V ar = Isa::zero(), ad = Isa::zero();
      for (int k = 0; k < fw; ++k) {
        ar = Isa::add(ar, Isa::mullo(Isa::load_u16(rrows[k] + x), fv[k]));
        ad = Isa::add(ad, Isa::mullo(Isa::load_u16(drows[k] + x), fv[k]));
      }
      Isa::store(vr + x, Isa::and_(Isa::srl(Isa::add(ar, mr), int(r.mu_shift)), m16));
      Isa::store(vd + x, Isa::and_(Isa::srl(Isa::add(ad, mr), int(r.mu_shift)), m16));
      if (x + N >= w) break;
    }
    uint16_t* ro = ref_out + ptrdiff_t(oy) * out_stride;
    uint16_t* dout = dist_out + ptrdiff_t(oy) * out_stride;
    auto scalar_at = [&](uint32_t ox) {
      const int64_t x = 2 * int64_t(ox);
      uint32_t a = 0, d = 0;
      for (int k = 0; k < fw; ++k) {
        const int64_t j = vmirror(x - half + k, w);
        a += uint32_t(filt[k]) * vr[j];
        d += uint32_t(filt[k]) * vd[j];
      }
      ro[ox] = uint16_t((a + 32768) >> 16);
      dout[ox] = uint16_t((d + 32768) >> 16);
    };
    uint32_t ox = 0;
    for (; ox < ox_lo && ox < ow; ++ox) scalar_at(ox);
    for (; ox + N <= ox_hi && ox + N <= ow; ox += N) {
      V a = Isa::zero(), d = Isa::zero();
      const uint32_t* pr = vr + 2 * ox - half;
      const uint32_t* pd = vd + 2 * ox - half;
      for (int k = 0; k < fw; ++k) {
        a = Isa::add(a, Isa::mullo(Isa::even_lanes(Isa::load(pr + k), Isa::load(pr + k + N)), fv[k]));
        d = Isa::add(d, Isa::mullo(Isa::even_lanes(Isa::load(pd + k), Isa::load(pd + k + N)), fv[k]));
      }
      Isa::store_u16(ro + ox, Isa::srli<16>(Isa::add(a, hr)));
      Isa::store_u16(dout + ox, Isa::srli<16>(Isa::add(d, hr)));
    }
    for (; ox < ow; ++ox) scalar_at(ox);
  }
}

// ---- conversion --------------------------------------------------------------------------------------------------

void load_plane(const Plane& p, uint16_t* out, ptrdiff_t stride) {
  if (p.step != 1 || p.w < uint32_t(N)) return vif_load_plane(p, out, stride);
  for (uint32_t y = 0; y < p.h; ++y) {
    uint16_t* o = out + ptrdiff_t(y) * stride;
    for (uint32_t x = 0;; x += N) {
      if (x + N > p.w) x = p.w - N;
      const V v = p.bytes == 1 ? Isa::load_u8(p.row<uint8_t>(y) + x)
                               : Isa::srl(Isa::load_u16(p.row<uint16_t>(y) + x), p.shift);
      Isa::store_u16(o + x, v);
      if (x + N >= p.w) break;
    }
  }
}
