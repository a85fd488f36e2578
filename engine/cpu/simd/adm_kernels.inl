// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer ADM's row functions (adm.h, "Row functions") over the vector operations of `Isa`; included after
// motion_psnr_kernels.inl (V, N, load_sample). Each has the signature and the exact result of its scalar namesake
// in adm.cpp: the same integer operations lane by lane, 64-bit lanes where libvmaf's C uses int64, and the float
// and double steps of the decouple's angle test in the same order. Row ends, rows narrower than a vector and, in the
// decouple of scales 1..3, vectors whose int64 dot products reach 2^51 (no exact conversion to float on AVX2) go to
// the scalar code.

constexpr int32_t kAdmLo[4] = {15826, 27411, 7345, -4240};
constexpr int32_t kAdmHi[4] = {-4240, -7345, 27411, -15826};
constexpr int32_t kAdmLoSum = 46342;

inline V adm_select(V m, V a, V b) { return Isa::or_(Isa::and_(m, a), Isa::andnot(m, b)); }
// int16_t(x) of each lane, sign-extended back to 32 bits.
inline V adm_sext16(V x) { return Isa::srai<16>(Isa::slli<16>(x)); }
// Two int16 taps in one 32-bit lane: lo at the lower address (vpmaddwd's operand).
inline V adm_tap_pair(int32_t lo, int32_t hi) {
  return Isa::set1(int32_t(uint32_t(uint16_t(lo)) | (uint32_t(uint16_t(hi)) << 16)));
}

// ---- DWT -----------------------------------------------------------------------------------------------------------

template <class T>
inline void adm_pad_row(T* row, int n) {
  row[-1] = row[1];
  row[n] = row[n - 1];
  row[n + 1] = row[n - 2];
}

// Horizontal pass of scale 0 from padded int16 rows. Two int16 neighbours per 32-bit lane times two taps (vpmaddwd):
// every partial sum is below 54822 * 2^15 < 2^31, as in the scalar int32 code.
inline void adm_dwt_h0(const int16_t* lo, const int16_t* hi, int ow, AdmRow<int16_t> out) {
  const V l01 = adm_tap_pair(kAdmLo[0], kAdmLo[1]), l23 = adm_tap_pair(kAdmLo[2], kAdmLo[3]);
  const V h01 = adm_tap_pair(kAdmHi[0], kAdmHi[1]), h23 = adm_tap_pair(kAdmHi[2], kAdmHi[3]);
  const V rnd = Isa::set1(32768);
  auto two = [&](V x0, V x1, V c01, V c23) {
    return Isa::srai<16>(Isa::add(Isa::add(Isa::madd16(x0, c01), Isa::madd16(x1, c23)), rnd));
  };
  int j = 0;
  for (; j + N <= ow; j += N) {
    const V a0 = Isa::load(lo + 2 * j - 1), a1 = Isa::load(lo + 2 * j + 1);
    const V b0 = Isa::load(hi + 2 * j - 1), b1 = Isa::load(hi + 2 * j + 1);
    Isa::store_u16(reinterpret_cast<uint16_t*>(out.a + j), two(a0, a1, l01, l23));
    Isa::store_u16(reinterpret_cast<uint16_t*>(out.v + j), two(a0, a1, h01, h23));
    Isa::store_u16(reinterpret_cast<uint16_t*>(out.h + j), two(b0, b1, l01, l23));
    Isa::store_u16(reinterpret_cast<uint16_t*>(out.d + j), two(b0, b1, h01, h23));
  }
  for (; j < ow; ++j) {
    const int32_t* k0 = kAdmLo;
    const int32_t* k1 = kAdmHi;
    auto dot = [&](const int16_t* p, const int32_t* k) {
      return int16_t((k[0] * p[2 * j - 1] + k[1] * p[2 * j] + k[2] * p[2 * j + 1] + k[3] * p[2 * j + 2] + 32768) >> 16);
    };
    out.a[j] = dot(lo, k0);
    out.v[j] = dot(lo, k1);
    out.h[j] = dot(hi, k0);
    out.d[j] = dot(hi, k1);
  }
}

template <class T>
void adm_dwt_row0_impl(const Plane& src, int i, int16_t* tmp, AdmRow<int16_t> out) {
  const int w = int(src.w), h = int(src.h);
  const int shift = sizeof(T) == 1 ? 0 : src.shift;
  const int shift_vp = src.bpc;
  const int32_t round_vp = int32_t(1) << (src.bpc - 1);
  const uint32_t lo_offset = uint32_t(kAdmLoSum) * uint32_t(round_vp);
  int16_t* lo = tmp + 1;
  int16_t* hi = tmp + w + 4;
  const T* r[4];
  for (int k = 0; k < 4; ++k) r[k] = src.row<T>(uint32_t(adm_dwt_tap(i, k, h)));
  V cl[4], ch[4];
  for (int k = 0; k < 4; ++k) {
    cl[k] = Isa::set1(kAdmLo[k]);
    ch[k] = Isa::set1(kAdmHi[k]);
  }
  const V off = Isa::set1(int32_t(lo_offset)), rnd = Isa::set1(round_vp);
  int j = 0;
  // Products and sums modulo 2^32, as the scalar code's uint32 arithmetic.
  for (; j + N <= w; j += N) {
    V u[4];
    for (int k = 0; k < 4; ++k) u[k] = load_sample(r[k] + j, shift);
    const V l = Isa::sub(Isa::add(Isa::add(Isa::mullo(cl[0], u[0]), Isa::mullo(cl[1], u[1])),
                                  Isa::add(Isa::mullo(cl[2], u[2]), Isa::mullo(cl[3], u[3]))),
                         off);
    const V hh = Isa::add(Isa::add(Isa::mullo(ch[0], u[0]), Isa::mullo(ch[1], u[1])),
                          Isa::add(Isa::mullo(ch[2], u[2]), Isa::mullo(ch[3], u[3])));
    Isa::store_u16(reinterpret_cast<uint16_t*>(lo + j), Isa::sra(Isa::add(l, rnd), shift_vp));
    Isa::store_u16(reinterpret_cast<uint16_t*>(hi + j), Isa::sra(Isa::add(hh, rnd), shift_vp));
  }
  for (; j < w; ++j) {
    uint32_t u[4];
    for (int k = 0; k < 4; ++k) u[k] = uint32_t(r[k][j]) >> shift;
    uint32_t l = 0, hh = 0;
    for (int k = 0; k < 4; ++k) {
      l += uint32_t(kAdmLo[k]) * u[k];
      hh += uint32_t(kAdmHi[k]) * u[k];
    }
    lo[j] = int16_t(int32_t(l - lo_offset + uint32_t(round_vp)) >> shift_vp);
    hi[j] = int16_t(int32_t(hh + uint32_t(round_vp)) >> shift_vp);
  }
  adm_pad_row(lo, w);
  adm_pad_row(hi, w);
  adm_dwt_h0(lo, hi, (w + 1) / 2, out);
}

void adm_dwt_row0(const Plane& src, int i, int16_t* tmp, AdmRow<int16_t> out) {
  if (src.step != 1 || int(src.w) < 2 * N + 4) return adm_dwt_row_scale0(src, i, tmp, out);
  if (src.bytes == 1)
    adm_dwt_row0_impl<uint8_t>(src, i, tmp, out);
  else
    adm_dwt_row0_impl<uint16_t>(src, i, tmp, out);
}

// sum_k c[k] * x[k] of signed 32-bit lanes in 64 bits, plus round, >> shift (<= 32), low 32 bits of each lane: the
// scalar int64 expression cast to int32 (the low 32 bits of a logical and an arithmetic shift by <= 32 agree).
inline V adm_dot4_64(const V x[4], const V c[4], V round, int shift) {
  V e = Isa::add64(Isa::add64(Isa::mul_i32(x[0], c[0]), Isa::mul_i32(x[1], c[1])),
                   Isa::add64(Isa::mul_i32(x[2], c[2]), Isa::mul_i32(x[3], c[3])));
  V o = Isa::add64(Isa::add64(Isa::mul_i32(Isa::srli64<32>(x[0]), c[0]), Isa::mul_i32(Isa::srli64<32>(x[1]), c[1])),
                   Isa::add64(Isa::mul_i32(Isa::srli64<32>(x[2]), c[2]), Isa::mul_i32(Isa::srli64<32>(x[3]), c[3])));
  e = Isa::srl64(Isa::add64(e, round), shift);
  o = Isa::srl64(Isa::add64(o, round), shift);
  return Isa::blend_odd(e, Isa::slli64<32>(o));
}

template <class In>
inline V adm_load_band(const In* p) {
  if constexpr (sizeof(In) == 2)
    return Isa::load_i16(p);
  else
    return Isa::load(p);
}

template <class In>
void adm_dwt_row123_impl(const In* src, ptrdiff_t stride, int w, int h, int scale, int i, int32_t* tmp,
                         AdmRow<int32_t> out) {
  static constexpr int64_t kRoundVp[3] = {0, 32768, 32768};
  static constexpr int kShiftVp[3] = {0, 16, 16};
  static constexpr int64_t kRoundHp[3] = {16384, 32768, 16384};
  static constexpr int kShiftHp[3] = {15, 16, 15};
  const int64_t round_vp = kRoundVp[scale - 1], round_hp = kRoundHp[scale - 1];
  const int shift_vp = kShiftVp[scale - 1], shift_hp = kShiftHp[scale - 1];
  int32_t* lo = tmp + 1;
  int32_t* hi = tmp + w + 4;
  const In* r[4];
  for (int k = 0; k < 4; ++k) r[k] = src + adm_dwt_tap(i, k, h) * stride;
  V cl[4], ch[4];
  for (int k = 0; k < 4; ++k) {
    cl[k] = Isa::set1(kAdmLo[k]);
    ch[k] = Isa::set1(kAdmHi[k]);
  }
  const V rv = Isa::set1_64(round_vp), rh = Isa::set1_64(round_hp);
  int j = 0;
  for (; j + N <= w; j += N) {
    V u[4];
    for (int k = 0; k < 4; ++k) u[k] = adm_load_band(r[k] + j);
    Isa::store(lo + j, adm_dot4_64(u, cl, rv, shift_vp));
    Isa::store(hi + j, adm_dot4_64(u, ch, rv, shift_vp));
  }
  for (; j < w; ++j) {
    int64_t l = 0, hh = 0;
    for (int k = 0; k < 4; ++k) {
      l += int64_t(kAdmLo[k]) * r[k][j];
      hh += int64_t(kAdmHi[k]) * r[k][j];
    }
    lo[j] = int32_t((l + round_vp) >> shift_vp);
    hi[j] = int32_t((hh + round_vp) >> shift_vp);
  }
  adm_pad_row(lo, w);
  adm_pad_row(hi, w);
  const int ow = (w + 1) / 2;
  j = 0;
  // Output j reads 2j - 1 .. 2j + 2 (padded); the loads of 2N reach 2(j + N) + 1 <= w + 1.
  for (; 2 * (j + N) <= w; j += N) {
    V a[4], b[4];
    for (int k = 0; k < 4; ++k) {
      const int at = 2 * j - 1 + k;
      a[k] = Isa::even_lanes(Isa::load(lo + at), Isa::load(lo + at + N));
      b[k] = Isa::even_lanes(Isa::load(hi + at), Isa::load(hi + at + N));
    }
    Isa::store(out.a + j, adm_dot4_64(a, cl, rh, shift_hp));
    Isa::store(out.v + j, adm_dot4_64(a, ch, rh, shift_hp));
    Isa::store(out.h + j, adm_dot4_64(b, cl, rh, shift_hp));
    Isa::store(out.d + j, adm_dot4_64(b, ch, rh, shift_hp));
  }
  for (; j < ow; ++j) {
    auto dot = [&](const int32_t* p, const int32_t* k) {
      int64_t s = 0;
      for (int t = 0; t < 4; ++t) s += int64_t(k[t]) * p[2 * j - 1 + t];
      return int32_t((s + round_hp) >> shift_hp);
    };
    out.a[j] = dot(lo, kAdmLo);
    out.v[j] = dot(lo, kAdmHi);
    out.h[j] = dot(hi, kAdmLo);
    out.d[j] = dot(hi, kAdmHi);
  }
}

void adm_dwt_row1(const int16_t* src, ptrdiff_t stride, int w, int h, int i, int32_t* tmp, AdmRow<int32_t> out) {
  if (w < 2 * N + 4) return adm_dwt_row_scale1(src, stride, w, h, i, tmp, out);
  adm_dwt_row123_impl(src, stride, w, h, 1, i, tmp, out);
}
void adm_dwt_row23(const int32_t* src, ptrdiff_t stride, int w, int h, int scale, int i, int32_t* tmp,
                   AdmRow<int32_t> out) {
  if (w < 2 * N + 4) return adm_dwt_row_scale23(src, stride, w, h, scale, i, tmp, out);
  adm_dwt_row123_impl(src, stride, w, h, scale, i, tmp, out);
}

// ---- decouple ------------------------------------------------------------------------------------------------------

// Float of int32 lanes that stand for values in (-2^31, 2^31]: +2^31 arrives wrapped as INT32_MIN (only the sum of
// two products (-2^15)^2 reaches it; no sum of int16 products is -2^31, none rounds to it either).
inline Isa::F adm_float_of_wrapped(V x) {
  const Isa::F f = Isa::cvt_i32_f(x);
  return Isa::selectf(Isa::cmpltf(f, Isa::set1f(-2147450880.0f)), Isa::set1f(2147483648.0f), f);
}

// libvmaf's k of one band: 32768 for o = 0, else clamp((recip(o) * t + 2^14) >> 15, 0, 32768) in int64 (|result|
// < 2^31 before the clamp).
inline V adm_k0(const int32_t* recip, V o, V t) {
  const V r = Isa::gather_i32(recip, o);
  const V rnd = Isa::set1_64(16384);
  const V e = Isa::srli64<15>(Isa::add64(Isa::mul_i32(r, t), rnd));
  const V od = Isa::srli64<15>(Isa::add64(Isa::mul_i32(Isa::srli64<32>(r), Isa::srli64<32>(t)), rnd));
  V k = Isa::blend_odd(e, Isa::slli64<32>(od));
  k = Isa::min_i32(Isa::max_i32(k, Isa::zero()), Isa::set1(32768));
  return adm_select(Isa::cmpeq_i32(o, Isa::zero()), Isa::set1(32768), k);
}

// The restored value of one band after the gain rule (apply_gain in adm.cpp). The float rst_f is the product of
// k / 2^15 and o / 64, exact and non-zero unless k or o is 0, so its sign is that of k * o with k >= 0.
inline V adm_gain0(V rst, V k, V o, V t, V angle, Isa::D gain) {
  const V kpos = Isa::cmpgt_i32(k, Isa::zero());
  const V pos = Isa::and_(angle, Isa::and_(kpos, Isa::cmpgt_i32(o, Isa::zero())));
  const V neg = Isa::and_(angle, Isa::and_(kpos, Isa::cmpgt_i32(Isa::zero(), o)));
  if (!Isa::any(Isa::or_(pos, neg))) return rst;
  const Isa::D glo = Isa::muld(Isa::cvt_lo(rst), gain), ghi = Isa::muld(Isa::cvt_hi(rst), gain);
  const Isa::D tlo = Isa::cvt_lo(t), thi = Isa::cvt_hi(t);
  const V up = Isa::trunc_i32(Isa::mind(glo, tlo), Isa::mind(ghi, thi));
  const V down = Isa::trunc_i32(Isa::maxd(glo, tlo), Isa::maxd(ghi, thi));
  return adm_select(pos, up, adm_select(neg, down, rst));
}

void adm_decouple0(AdmRow<const int16_t> ref, AdmRow<const int16_t> dist, int left, int right, double g,
                   AdmRow<int16_t> r, AdmRow<int16_t> a) {
  const int32_t* recip = adm_reciprocals();
  const Isa::D cos_sq = Isa::set1d(double(adm_cos_1deg_sq())), q = Isa::set1d(4096.0), dzero = Isa::set1d(0.0);
  const Isa::D gain = Isa::set1d(g);
  const V rnd = Isa::set1(16384);
  int j = left;
  for (; j + N <= right; j += N) {
    const V oh = Isa::load_i16(ref.h + j), ov = Isa::load_i16(ref.v + j), od = Isa::load_i16(ref.d + j);
    const V th = Isa::load_i16(dist.h + j), tv = Isa::load_i16(dist.v + j), td = Isa::load_i16(dist.d + j);

    // Angle test: int64 sums of int16 products (exact in 32 bits but for +2^31), float, then double.
    const Isa::F f_ot = adm_float_of_wrapped(Isa::add(Isa::mullo(oh, th), Isa::mullo(ov, tv)));
    const Isa::F f_om = adm_float_of_wrapped(Isa::add(Isa::mullo(oh, oh), Isa::mullo(ov, ov)));
    const Isa::F f_tm = adm_float_of_wrapped(Isa::add(Isa::mullo(th, th), Isa::mullo(tv, tv)));
    const Isa::D dp_lo = Isa::divd(Isa::cvtf_lo(f_ot), q), dp_hi = Isa::divd(Isa::cvtf_hi(f_ot), q);
    const Isa::D rhs_lo = Isa::muld(Isa::muld(cos_sq, Isa::divd(Isa::cvtf_lo(f_om), q)), Isa::divd(Isa::cvtf_lo(f_tm), q));
    const Isa::D rhs_hi = Isa::muld(Isa::muld(cos_sq, Isa::divd(Isa::cvtf_hi(f_om), q)), Isa::divd(Isa::cvtf_hi(f_tm), q));
    const V angle = Isa::and_(Isa::cmpged(dp_lo, dzero, dp_hi, dzero),
                              Isa::cmpged(Isa::muld(dp_lo, dp_lo), rhs_lo, Isa::muld(dp_hi, dp_hi), rhs_hi));

    auto band = [&](V o, V t, int16_t* rout, int16_t* aout) {
      const V k = adm_k0(recip, o, t);
      V rst = Isa::srai<15>(Isa::add(Isa::mullo(k, o), rnd));  // |k * o| <= 2^30: within int16 after the shift
      rst = adm_gain0(rst, k, o, t, angle, gain);
      Isa::store_u16(reinterpret_cast<uint16_t*>(rout + j), rst);
      Isa::store_u16(reinterpret_cast<uint16_t*>(aout + j), Isa::sub(t, rst));
    };
    band(oh, th, r.h, a.h);
    band(ov, tv, r.v, a.v);
    band(od, td, r.d, a.d);
  }
  if (j < right) adm_decouple_row_scale0(ref, dist, j, right, g, r, a);
}
// ---- decouple of scales 1..3: int32 bands, int64 products -----------------------------------------------------------

// 64-bit lanes of the even (e) and odd (o) 32-bit lanes.
struct AdmPair64 {
  V e, o;
};
inline AdmPair64 adm_mul64(V a, V b) {
  return {Isa::mul_i32(a, b), Isa::mul_i32(Isa::srli64<32>(a), Isa::srli64<32>(b))};
}
inline AdmPair64 adm_add64(AdmPair64 a, AdmPair64 b) { return {Isa::add64(a.e, b.e), Isa::add64(a.o, b.o)}; }
// Some lane of a, b or c lies outside [-2^51, 2^51) (where the conversion to double below would not be exact).
inline bool adm_big51(AdmPair64 a, AdmPair64 b, AdmPair64 c) {
  const V bias = Isa::set1_64(int64_t(1) << 51);
  auto u = [&](V x) { return Isa::add64(x, bias); };
  const V all = Isa::or_(Isa::or_(Isa::or_(u(a.e), u(a.o)), Isa::or_(u(b.e), u(b.o))), Isa::or_(u(c.e), u(c.o)));
  return Isa::any(Isa::srli64<52>(all));
}
// libvmaf's float(int64) / 4096.0 of each lane: exact double, rounded once to float, back to double.
inline void adm_float_q(AdmPair64 x, Isa::D q, Isa::D* e, Isa::D* o) {
  const Isa::F f = Isa::narrowd(Isa::cvt_i64_d_small(x.e), Isa::cvt_i64_d_small(x.o));
  *e = Isa::divd(Isa::cvtf_lo(f), q);
  *o = Isa::divd(Isa::cvtf_hi(f), q);
}
// Arithmetic right shift of 64-bit lanes by per-lane counts.
inline V adm_srav64(V x, V n) {
  const V s = Isa::cmpgt64(Isa::zero(), x);
  return Isa::xor_(Isa::srlv64(Isa::xor_(x, s), n), s);
}
inline V adm_select64_clamp(V k) {
  const V max = Isa::set1_64(32768);
  k = adm_select(Isa::cmpgt64(Isa::zero(), k), Isa::zero(), k);
  return adm_select(Isa::cmpgt64(k, max), max, k);
}

// decouple_k_scale123 of adm.cpp: the 15 leading bits of |o| (rounded) index the reciprocals, the product with t
// (int64, negated for o < 0) is rounded and shifted back by 15 + the bits dropped, then clamped to 0..32768.
inline V adm_k123(const int32_t* recip, V o, V t) {
  const V abs_o = Isa::abs_i32(o);  // as uint32: 2^31 for INT32_MIN
  const V big = Isa::cmpgt_i32(Isa::srli<15>(abs_o), Isa::zero());
  const V shift = Isa::and_(big, Isa::sub(Isa::floor_log2_u32(abs_o), Isa::set1(14)));
  const V half = Isa::srlv(Isa::set1(int32_t(0x80000000u)), Isa::sub(Isa::set1(32), shift));
  const V msb = adm_select(big, Isa::srlv(Isa::add(abs_o, half), shift), abs_o);
  const V rc = Isa::gather_i32(recip, msb);
  AdmPair64 p = adm_mul64(rc, t);
  const V neg_e = Isa::cmpgt64(Isa::zero(), Isa::slli64<32>(o)), neg_o = Isa::cmpgt64(Isa::zero(), o);
  p.e = Isa::sub64(Isa::xor_(p.e, neg_e), neg_e);
  p.o = Isa::sub64(Isa::xor_(p.o, neg_o), neg_o);
  const V low = Isa::set1_64(0xffffffffLL);
  const V sh_e = Isa::and_(shift, low), sh_o = Isa::srli64<32>(shift);
  const V r46 = Isa::set1_64(int64_t(1) << 46), c32 = Isa::set1_64(32), c15 = Isa::set1_64(15);
  const V ke = adm_select64_clamp(
      adm_srav64(Isa::add64(p.e, Isa::srlv64(r46, Isa::sub64(c32, sh_e))), Isa::add64(sh_e, c15)));
  const V ko = adm_select64_clamp(
      adm_srav64(Isa::add64(p.o, Isa::srlv64(r46, Isa::sub64(c32, sh_o))), Isa::add64(sh_o, c15)));
  const V k = Isa::blend_odd(ke, Isa::slli64<32>(ko));
  return adm_select(Isa::cmpeq_i32(o, Isa::zero()), Isa::set1(32768), k);
}

void adm_decouple123(AdmRow<const int32_t> ref, AdmRow<const int32_t> dist, int left, int right, double g,
                     AdmRow<int32_t> r, AdmRow<int32_t> a) {
  const int32_t* recip = adm_reciprocals();
  const Isa::D cos_sq = Isa::set1d(double(adm_cos_1deg_sq())), q = Isa::set1d(4096.0), dzero = Isa::set1d(0.0);
  const Isa::D gain = Isa::set1d(g);
  const V rnd = Isa::set1_64(16384);
  int j = left;
  for (; j + N <= right; j += N) {
    const V oh = Isa::load(ref.h + j), ov = Isa::load(ref.v + j), od = Isa::load(ref.d + j);
    const V th = Isa::load(dist.h + j), tv = Isa::load(dist.v + j), td = Isa::load(dist.d + j);

    // Angle test: int64 sums (wrapping) converted to float; lanes past 2^51 go to the scalar code.
    const AdmPair64 ot = adm_add64(adm_mul64(oh, th), adm_mul64(ov, tv));
    const AdmPair64 om = adm_add64(adm_mul64(oh, oh), adm_mul64(ov, ov));
    const AdmPair64 tm = adm_add64(adm_mul64(th, th), adm_mul64(tv, tv));
    if (adm_big51(ot, om, tm)) {
      adm_decouple_row_scale123(ref, dist, j, j + N, g, r, a);
      continue;
    }
    Isa::D dpe, dpo, ome, omo, tme, tmo;
    adm_float_q(ot, q, &dpe, &dpo);
    adm_float_q(om, q, &ome, &omo);
    adm_float_q(tm, q, &tme, &tmo);
    const V ang_e = Isa::and_(Isa::cmpged64(dpe, dzero),
                              Isa::cmpged64(Isa::muld(dpe, dpe), Isa::muld(Isa::muld(cos_sq, ome), tme)));
    const V ang_o = Isa::and_(Isa::cmpged64(dpo, dzero),
                              Isa::cmpged64(Isa::muld(dpo, dpo), Isa::muld(Isa::muld(cos_sq, omo), tmo)));
    const V angle = Isa::blend_odd(ang_e, ang_o);

    auto band = [&](V o, V t, int32_t* rout, int32_t* aout) {
      const V k = adm_k123(recip, o, t);
      const AdmPair64 p = adm_mul64(k, o);
      V rst = Isa::blend_odd(Isa::srli64<15>(Isa::add64(p.e, rnd)), Isa::slli64<32>(Isa::srli64<15>(Isa::add64(p.o, rnd))));
      rst = adm_gain0(rst, k, o, t, angle, gain);
      Isa::store(rout + j, rst);
      Isa::store(aout + j, Isa::sub(t, rst));
    };
    band(oh, th, r.h, a.h);
    band(ov, tv, r.v, a.v);
    band(od, td, r.d, a.d);
  }
  if (j < right) adm_decouple_row_scale123(ref, dist, j, right, g, r, a);
}

// ---- denominator ---------------------------------------------------------------------------------------------------

void adm_den0(AdmRow<const int16_t> ref, int left, int right, uint64_t sums[3]) {
  const int16_t* b[3] = {ref.h, ref.v, ref.d};
  int j = left;
  for (int t = 0; t < 3; ++t) {
    V acc = Isa::zero();
    for (j = left; j + N <= right; j += N) {
      const V x = Isa::abs_i32(Isa::load_i16(b[t] + j));  // <= 2^15
      const V sq = Isa::mullo(x, x);                       // <= 2^30
      acc = Isa::add64(acc, Isa::mul_u32(sq, x));
      acc = Isa::add64(acc, Isa::mul_u32(Isa::srli64<32>(sq), Isa::srli64<32>(x)));
    }
    sums[t] = Isa::hsum_u64(acc);
  }
  if (j < right) {
    uint64_t rest[3];
    adm_den_row_scale0(ref, j, right, rest);
    for (int t = 0; t < 3; ++t) sums[t] += rest[t];
  }
}

void adm_den123(AdmRow<const int32_t> ref, int left, int right, int scale, int cub, uint64_t sums[3]) {
  static constexpr int kShiftSq[3] = {31, 30, 31};
  const int shift_sq = kShiftSq[scale - 1];
  const V round_sq = Isa::set1_64(int64_t(1) << shift_sq);
  const V cub_round = Isa::set1_64(int64_t(cub == 0 ? 0 : (uint64_t(1) << (cub - 1))));
  const int32_t* b[3] = {ref.h, ref.v, ref.d};
  // (((x^2 + 2^sq) >> sq) * x + round) >> cub in uint64 for x = |v| < 2^32: the first factor has up to 33 bits, so
  // the product is its low 32 bits times x plus its high bit times x << 32 (modulo 2^64 as the scalar code).
  auto term = [&](V x) {
    const V s = Isa::srl64(Isa::add64(Isa::mul_u32(x, x), round_sq), shift_sq);
    const V p = Isa::add64(Isa::mul_u32(s, x), Isa::slli64<32>(Isa::mul_u32(Isa::srli64<32>(s), x)));
    return Isa::srl64(Isa::add64(p, cub_round), cub);
  };
  int j = left;
  for (int t = 0; t < 3; ++t) {
    V acc = Isa::zero();
    for (j = left; j + N <= right; j += N) {
      const V x = Isa::abs_i32(Isa::load(b[t] + j));
      acc = Isa::add64(acc, term(x));
      acc = Isa::add64(acc, term(Isa::srli64<32>(x)));
    }
    sums[t] = Isa::hsum_u64(acc);
  }
  if (j < right) {
    uint64_t rest[3];
    adm_den_row_scale123(ref, j, right, scale, cub, rest);
    for (int t = 0; t < 3; ++t) sums[t] += rest[t];
  }
}

// ---- CSF -----------------------------------------------------------------------------------------------------------

void adm_csf0(AdmRow<const int16_t> src, int left, int right, const uint16_t fixed[3], int32_t* f, int32_t* c) {
  static constexpr int32_t kRound[3] = {16384, 16384, 65535};
  const int16_t* b[3] = {src.h, src.v, src.d};
  V fx[3], rd[3];
  for (int t = 0; t < 3; ++t) {
    fx[t] = Isa::set1(int32_t(fixed[t]));
    rd[t] = Isa::set1(kRound[t]);
  }
  const V k30 = Isa::set1(4369), k15 = Isa::set1(8738), r12 = Isa::set1(2048);
  int j = left;
  for (; j + N <= right; j += N) {
    V fs = Isa::zero(), cs = Isa::zero();
    for (int t = 0; t < 3; ++t) {
      const V p = Isa::add(Isa::mullo(fx[t], Isa::load_i16(b[t] + j)), rd[t]);  // wraps as the scalar int32
      const V cv = adm_sext16(t == 2 ? Isa::srai<17>(p) : Isa::srai<15>(p));
      const V mag = Isa::abs_i32(cv);
      fs = Isa::add(fs, adm_sext16(Isa::srai<12>(Isa::add(Isa::mullo(k30, mag), r12))));
      cs = Isa::add(cs, adm_sext16(Isa::srai<12>(Isa::add(Isa::mullo(k15, mag), r12))));
    }
    Isa::store(f + j, fs);
    Isa::store(c + j, cs);
  }
  if (j < right) adm_csf_row_scale0(src, j, right, fixed, f, c);
}

// (x * fixed + 2^27) >> 28 of int32 lanes x and a uint32 fixed, in int64, cast to int32.
inline V adm_mul_fixed_q28(V x, uint32_t fixed) {
  const V fs = Isa::set1(int32_t(fixed));
  const V rnd = Isa::set1_64(int64_t(1) << 27);
  const V xo = Isa::srli64<32>(x);
  V e = Isa::mul_i32(x, fs), o = Isa::mul_i32(xo, fs);
  if (fixed >= 0x80000000u) {  // the signed product misses x * 2^32
    e = Isa::add64(e, Isa::slli64<32>(x));
    o = Isa::add64(o, Isa::slli64<32>(xo));
  }
  e = Isa::srli64<28>(Isa::add64(e, rnd));
  o = Isa::srli64<28>(Isa::add64(o, rnd));
  return Isa::blend_odd(e, Isa::slli64<32>(o));
}

void adm_csf123(AdmRow<const int32_t> src, int left, int right, const uint32_t fixed[3], int32_t* f, int32_t* c) {
  const int32_t* b[3] = {src.h, src.v, src.d};
  const V k30 = Isa::set1(143165577), k15 = Isa::set1(286331153);
  const V rnd = Isa::set1_64(-2147483648LL);
  // int32((k * mag + INT32_MIN) >> 32) for signed mag: the high halves of the 64-bit sums.
  auto q32 = [&](V k, V mag) {
    const V e = Isa::add64(Isa::mul_i32(mag, k), rnd);
    const V o = Isa::add64(Isa::mul_i32(Isa::srli64<32>(mag), k), rnd);
    return Isa::blend_odd(Isa::srli64<32>(e), o);
  };
  int j = left;
  for (; j + N <= right; j += N) {
    V fs = Isa::zero(), cs = Isa::zero();
    for (int t = 0; t < 3; ++t) {
      const V mag = Isa::abs_i32(adm_mul_fixed_q28(Isa::load(b[t] + j), fixed[t]));
      fs = Isa::add(fs, q32(k30, mag));
      cs = Isa::add(cs, q32(k15, mag));
    }
    Isa::store(f + j, fs);
    Isa::store(c + j, cs);
  }
  if (j < right) adm_csf_row_scale123(src, j, right, fixed, f, c);
}

// ---- contrast masking ----------------------------------------------------------------------------------------------

// The masking threshold of columns j .. j + N - 1 (all within 1 .. w - 2): the 3x3 band sums with the centre term
// in place of the centre (int32, wrapping).
inline V adm_cm_threshold(const int32_t* const f[3], const int32_t* centre, int j) {
  V thr = Isa::sub(Isa::load(centre + j), Isa::load(f[1] + j));
  for (int k = 0; k < 3; ++k)
    thr = Isa::add(thr, Isa::add(Isa::add(Isa::load(f[k] + j - 1), Isa::load(f[k] + j)), Isa::load(f[k] + j + 1)));
  return thr;
}

// cm_term of adm.cpp summed into 64-bit lanes: y = max(|x| - thr, 0) (int32, wrapping), y_sq = int32((y * y +
// round_sq) >> shift_sq), then (y_sq * y + round_cub) >> cub (int64, arithmetic).
inline V adm_cm_terms(V acc, V x, V thr, V round_sq, int shift_sq, V round_cub, int cub) {
  const V y = Isa::max_i32(Isa::sub(Isa::abs_i32(x), thr), Isa::zero());
  const V yo = Isa::srli64<32>(y);
  const V se = Isa::srl64(Isa::add64(Isa::mul_u32(y, y), round_sq), shift_sq);
  const V so = Isa::srl64(Isa::add64(Isa::mul_u32(yo, yo), round_sq), shift_sq);
  acc = Isa::add64(acc, Isa::sra64(Isa::add64(Isa::mul_i32(se, y), round_cub), cub));
  return Isa::add64(acc, Isa::sra64(Isa::add64(Isa::mul_i32(so, yo), round_cub), cub));
}

void adm_cm0(AdmRow<const int16_t> x, const int32_t* const f[3], const int32_t* c, int w, int left, int right,
             const uint16_t fixed[3], int cub_hv, int cub_d, int64_t sums[3]) {
  const int lo = std::max(left, 1), hi = std::min(right, w - 1);
  if (hi - lo < N) return adm_cm_row_scale0(x, f, c, w, left, right, fixed, cub_hv, cub_d, sums);
  int64_t pre[3] = {0, 0, 0};
  if (left < lo) adm_cm_row_scale0(x, f, c, w, left, lo, fixed, cub_hv, cub_d, pre);
  const V fh = Isa::set1(fixed[0]), fv = Isa::set1(fixed[1]), fd = Isa::set1(fixed[2]);
  const V rsq_hv = Isa::set1_64(268435456), rsq_d = Isa::set1_64(536870912);
  const V rc_hv = Isa::set1_64(int64_t(cub_hv == 0 ? 0 : (uint64_t(1) << (cub_hv - 1))));
  const V rc_d = Isa::set1_64(int64_t(cub_d == 0 ? 0 : (uint64_t(1) << (cub_d - 1))));
  V ah = Isa::zero(), av = Isa::zero(), ad = Isa::zero();
  int j = lo;
  for (; j + N <= hi; j += N) {
    const V thr = adm_cm_threshold(f, c, j);
    const V t10 = Isa::slli<10>(thr), t12 = Isa::slli<12>(thr);
    ah = adm_cm_terms(ah, Isa::mullo(Isa::load_i16(x.h + j), fh), t10, rsq_hv, 29, rc_hv, cub_hv);
    av = adm_cm_terms(av, Isa::mullo(Isa::load_i16(x.v + j), fv), t10, rsq_hv, 29, rc_hv, cub_hv);
    ad = adm_cm_terms(ad, Isa::mullo(Isa::load_i16(x.d + j), fd), t12, rsq_d, 30, rc_d, cub_d);
  }
  int64_t post[3] = {0, 0, 0};
  if (j < right) adm_cm_row_scale0(x, f, c, w, j, right, fixed, cub_hv, cub_d, post);
  sums[0] = int64_t(uint64_t(pre[0]) + Isa::hsum_u64(ah) + uint64_t(post[0]));
  sums[1] = int64_t(uint64_t(pre[1]) + Isa::hsum_u64(av) + uint64_t(post[1]));
  sums[2] = int64_t(uint64_t(pre[2]) + Isa::hsum_u64(ad) + uint64_t(post[2]));
}

void adm_cm123(AdmRow<const int32_t> x, const int32_t* const f[3], const int32_t* c, int w, int left, int right,
               const uint32_t fixed[3], int cub, int64_t sums[3]) {
  const int lo = std::max(left, 1), hi = std::min(right, w - 1);
  if (hi - lo < N) return adm_cm_row_scale123(x, f, c, w, left, right, fixed, cub, sums);
  int64_t pre[3] = {0, 0, 0};
  if (left < lo) adm_cm_row_scale123(x, f, c, w, left, lo, fixed, cub, pre);
  const V rsq = Isa::set1_64(536870912);
  const V rc = Isa::set1_64(int64_t(cub == 0 ? 0 : (uint64_t(1) << (cub - 1))));
  V ah = Isa::zero(), av = Isa::zero(), ad = Isa::zero();
  int j = lo;
  for (; j + N <= hi; j += N) {
    const V thr = adm_cm_threshold(f, c, j);
    ah = adm_cm_terms(ah, adm_mul_fixed_q28(Isa::load(x.h + j), fixed[0]), thr, rsq, 30, rc, cub);
    av = adm_cm_terms(av, adm_mul_fixed_q28(Isa::load(x.v + j), fixed[1]), thr, rsq, 30, rc, cub);
    ad = adm_cm_terms(ad, adm_mul_fixed_q28(Isa::load(x.d + j), fixed[2]), thr, rsq, 30, rc, cub);
  }
  int64_t post[3] = {0, 0, 0};
  if (j < right) adm_cm_row_scale123(x, f, c, w, j, right, fixed, cub, post);
  sums[0] = int64_t(uint64_t(pre[0]) + Isa::hsum_u64(ah) + uint64_t(post[0]));
  sums[1] = int64_t(uint64_t(pre[1]) + Isa::hsum_u64(av) + uint64_t(post[1]));
  sums[2] = int64_t(uint64_t(pre[2]) + Isa::hsum_u64(ad) + uint64_t(post[2]));
}
