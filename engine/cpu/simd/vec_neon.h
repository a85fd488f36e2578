// SPDX-License-Identifier: LGPL-2.1-or-later
// The vector operations of vec_x86.h for AArch64's Advanced SIMD (NEON, 128-bit): the same names and the same
// results lane by lane, so the kernels (vif_kernels.inl, motion_psnr_kernels.inl) compile unchanged. Where x86 has
// a particular rule the NEON instruction lacks (vpmaddwd, cvttpd2dq's INT32_MIN for NaN and out-of-range values,
// minpd returning its second operand for NaN, a gather) the rule is spelled out here. Included by neon_impl.cpp
// inside an anonymous namespace after <arm_neon.h> and <cstdint>.

struct Isa {
  using V = uint32x4_t;
  using D = float64x2_t;
  static constexpr int N = 4;
  static constexpr const char* kName = "neon";

  static V zero() { return vdupq_n_u32(0); }
  static V set1(int32_t v) { return vdupq_n_u32(uint32_t(v)); }
  static V set1_64(int64_t v) { return vreinterpretq_u32_s64(vdupq_n_s64(v)); }
  static V load(const void* p) { return vreinterpretq_u32_u8(vld1q_u8(static_cast<const uint8_t*>(p))); }
  static void store(void* p, V v) { vst1q_u8(static_cast<uint8_t*>(p), vreinterpretq_u8_u32(v)); }
  static V load_u16(const uint16_t* p) { return vmovl_u16(vld1_u16(p)); }
  static V load_u8(const uint8_t* p) {
    uint32_t t;
    __builtin_memcpy(&t, p, 4);  // exactly N bytes
    return vmovl_u16(vget_low_u16(vmovl_u8(vcreate_u8(t))));
  }
  static void store_u16(uint16_t* p, V v) { vst1_u16(p, vmovn_u32(v)); }

  static V add(V a, V b) { return vaddq_u32(a, b); }
  static V sub(V a, V b) { return vsubq_u32(a, b); }
  static V mullo(V a, V b) { return vmulq_u32(a, b); }
  // vpmaddwd: signed 16-bit halves multiplied, the two products of each 32-bit lane added.
  static V madd16(V a, V b) {
    const int16x8_t x = vreinterpretq_s16_u32(a), y = vreinterpretq_s16_u32(b);
    const int32x4_t lo = vmull_s16(vget_low_s16(x), vget_low_s16(y));
    const int32x4_t hi = vmull_high_s16(x, y);
    return vreinterpretq_u32_s32(vpaddq_s32(lo, hi));
  }
  static V and_(V a, V b) { return vandq_u32(a, b); }
  static V andnot(V a, V b) { return vbicq_u32(b, a); }  // ~a & b
  static V or_(V a, V b) { return vorrq_u32(a, b); }
  static V xor_(V a, V b) { return veorq_u32(a, b); }
  template <int n> static V srli(V a) { return vshrq_n_u32(a, n); }
  template <int n> static V srai(V a) { return vreinterpretq_u32_s32(vshrq_n_s32(vreinterpretq_s32_u32(a), n)); }
  static V srl(V a, int n) { return vshlq_u32(a, vdupq_n_s32(-n)); }
  static V sra(V a, int n) { return vreinterpretq_u32_s32(vshlq_s32(vreinterpretq_s32_u32(a), vdupq_n_s32(-n))); }
  // Per-lane logical right shift; counts of 32 or more give 0 (as vpsrlvd). Lanes with a "negative" count (the
  // kernels only produce those in lanes whose result they discard) shift left instead.
  static V srlv(V a, V n) { return vshlq_u32(a, vnegq_s32(vreinterpretq_s32_u32(n))); }
  static V max_i32(V a, V b) {
    return vreinterpretq_u32_s32(vmaxq_s32(vreinterpretq_s32_u32(a), vreinterpretq_s32_u32(b)));
  }
  static V abs_i32(V a) { return vreinterpretq_u32_s32(vabsq_s32(vreinterpretq_s32_u32(a))); }
  static V cmpgt_i32(V a, V b) { return vcgtq_s32(vreinterpretq_s32_u32(a), vreinterpretq_s32_u32(b)); }
  static bool any(V m) { return vmaxvq_u32(m) != 0; }

  static V mul_u32(V a, V b) {
    return vreinterpretq_u32_u64(vmull_u32(vmovn_u64(vreinterpretq_u64_u32(a)), vmovn_u64(vreinterpretq_u64_u32(b))));
  }
  static V mul_i32(V a, V b) {
    const int32x2_t x = vmovn_s64(vreinterpretq_s64_u32(a)), y = vmovn_s64(vreinterpretq_s64_u32(b));
    return vreinterpretq_u32_s64(vmull_s32(x, y));
  }
  static V add64(V a, V b) { return vreinterpretq_u32_u64(vaddq_u64(vreinterpretq_u64_u32(a), vreinterpretq_u64_u32(b))); }
  static V sub64(V a, V b) { return vreinterpretq_u32_u64(vsubq_u64(vreinterpretq_u64_u32(a), vreinterpretq_u64_u32(b))); }
  template <int n> static V srli64(V a) { return vreinterpretq_u32_u64(vshrq_n_u64(vreinterpretq_u64_u32(a), n)); }
  template <int n> static V slli64(V a) { return vreinterpretq_u32_u64(vshlq_n_u64(vreinterpretq_u64_u32(a), n)); }
  static V srl64(V a, int n) {
    return vreinterpretq_u32_u64(vshlq_u64(vreinterpretq_u64_u32(a), vdupq_n_s64(-int64_t(n))));
  }
  static V srlv64(V a, V n) {
    return vreinterpretq_u32_u64(vshlq_u64(vreinterpretq_u64_u32(a), vnegq_s64(vreinterpretq_s64_u32(n))));
  }
  static V blend_odd(V a, V b) {
    const uint32x4_t odd = vreinterpretq_u32_u64(vdupq_n_u64(0xffffffff00000000ull));
    return vbslq_u32(odd, b, a);
  }
  static V zext_lo(V a) { return vreinterpretq_u32_u64(vmovl_u32(vget_low_u32(a))); }
  static V zext_hi(V a) { return vreinterpretq_u32_u64(vmovl_high_u32(a)); }
  static V narrow64(V lo, V hi) {
    return vcombine_u32(vmovn_u64(vreinterpretq_u64_u32(lo)), vmovn_u64(vreinterpretq_u64_u32(hi)));
  }
  static V even_lanes(V a, V b) { return vuzp1q_u32(a, b); }
  static V unpacklo16(V a, V b) {
    return vreinterpretq_u32_u16(vzip1q_u16(vreinterpretq_u16_u32(a), vreinterpretq_u16_u32(b)));
  }
  static V unpackhi16(V a, V b) {
    return vreinterpretq_u32_u16(vzip2q_u16(vreinterpretq_u16_u32(a), vreinterpretq_u16_u32(b)));
  }
  static V mullo16(V a, V b) {
    return vreinterpretq_u32_u16(vmulq_u16(vreinterpretq_u16_u32(a), vreinterpretq_u16_u32(b)));
  }
  // One 128-bit block: unpacklo holds lanes 0..N-1 of the pair, unpackhi the next N.
  static void store_lohi(uint32_t* p, V lo, V hi) {
    vst1q_u32(p, lo);
    vst1q_u32(p + 4, hi);
  }
  static void store_interleaved(uint32_t* p, V e, V o) { store_lohi(p, vzip1q_u32(e, o), vzip2q_u32(e, o)); }
  static uint32_t hsum_u32(V a) { return vaddvq_u32(a); }
  static uint64_t hsum_u64(V a) { return vaddvq_u64(vreinterpretq_u64_u32(a)); }
  static int64_t hsum_i32_to_i64(V a) { return vaddlvq_s32(vreinterpretq_s32_u32(a)); }
  static V gather_u16(const uint16_t* table, V idx) {
    uint32_t i[4], r[4];
    vst1q_u32(i, idx);
    for (int k = 0; k < 4; ++k) r[k] = table[i[k]];
    return vld1q_u32(r);
  }
  static V floor_log2_u32(V v) { return vsubq_u32(vdupq_n_u32(31), vreinterpretq_u32_s32(vclzq_s32(vreinterpretq_s32_u32(v)))); }
  static V floor_log2_u64(V v) {
    const float64x2_t magic = vdupq_n_f64(4503599627370496.0);  // 2^52
    const float64x2_t d = vsubq_f64(
        vreinterpretq_f64_u64(vorrq_u64(vreinterpretq_u64_u32(v), vreinterpretq_u64_f64(magic))), magic);
    return vreinterpretq_u32_u64(vsubq_u64(vshrq_n_u64(vreinterpretq_u64_f64(d), 52), vdupq_n_u64(1023)));
  }

  static D cvt_lo(V a) { return vcvtq_f64_s64(vmovl_s32(vget_low_s32(vreinterpretq_s32_u32(a)))); }
  static D cvt_hi(V a) { return vcvtq_f64_s64(vmovl_high_s32(vreinterpretq_s32_u32(a))); }
  static D set1d(double v) { return vdupq_n_f64(v); }
  static D addd(D a, D b) { return vaddq_f64(a, b); }
  static D subd(D a, D b) { return vsubq_f64(a, b); }
  static D muld(D a, D b) { return vmulq_f64(a, b); }
  static D divd(D a, D b) { return vdivq_f64(a, b); }
  // x86's minpd: a < b ? a : b (b when either is NaN); vminq_f64 would return NaN.
  static D mind(D a, D b) { return vbslq_f64(vcltq_f64(a, b), a, b); }
  // x86's cvttpd2dq: truncation, INT32_MIN for NaN and values outside int32 (vcvtq saturates instead).
  static V trunc_i32(D lo, D hi) {
    auto one = [](D d) {
      const uint64x2_t ok = vandq_u64(vcgtq_f64(d, vdupq_n_f64(-2147483649.0)), vcltq_f64(d, vdupq_n_f64(2147483648.0)));
      const int64x2_t t = vbslq_s64(ok, vcvtq_s64_f64(d), vdupq_n_s64(INT32_MIN));
      return vmovn_s64(t);
    };
    return vreinterpretq_u32_s32(vcombine_s32(one(lo), one(hi)));
  }
  static V trunc_i64_small(D d) { return vreinterpretq_u32_s64(vcvtq_s64_f64(d)); }

  using F = float32x4_t;
  static F loadf(const float* p) { return vld1q_f32(p); }
  static void storef(float* p, F v) { vst1q_f32(p, v); }
  static void stored(double* p, D v) { vst1q_f64(p, v); }
  static D loadd(const double* p) { return vld1q_f64(p); }
  static F set1f(float v) { return vdupq_n_f32(v); }
  static F addf(F a, F b) { return vaddq_f32(a, b); }
  static F subf(F a, F b) { return vsubq_f32(a, b); }
  static F mulf(F a, F b) { return vmulq_f32(a, b); }
  static F divf(F a, F b) { return vdivq_f32(a, b); }
  static D cvtf_lo(F a) { return vcvt_f64_f32(vget_low_f32(a)); }
  static D cvtf_hi(F a) { return vcvt_high_f64_f32(a); }
  static F narrowd(D lo, D hi) { return vcvt_high_f32_f64(vcvt_f32_f64(lo), hi); }
  static D sqrtd(D a) { return vsqrtq_f64(a); }
  static F cmpltf(F a, F b) { return vreinterpretq_f32_u32(vcltq_f32(a, b)); }
  static F cmplef(F a, F b) { return vreinterpretq_f32_u32(vcleq_f32(a, b)); }
  static F andf(F a, F b) {
    return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b)));
  }
  static F selectf(F m, F a, F b) { return vbslq_f32(vreinterpretq_u32_f32(m), a, b); }
  static F cvt_i32_f(V a) { return vcvtq_f32_s32(vreinterpretq_s32_u32(a)); }
  static F loadf_stride(const float* p, int stride) {
    if (stride == 1) return loadf(p);
    const float v[4] = {p[0], p[stride], p[2 * stride], p[3 * stride]};
    return vld1q_f32(v);
  }

  // ---- for ADM ----
  template <int n> static V slli(V a) { return vshlq_n_u32(a, n); }
  static V load_i16(const int16_t* p) { return vreinterpretq_u32_s32(vmovl_s16(vld1_s16(p))); }
  static V gather_i32(const int32_t* table, V idx) {
    int32_t i[4], r[4];  // signed indices, as vpgatherdd's
    vst1q_s32(i, vreinterpretq_s32_u32(idx));
    for (int k = 0; k < 4; ++k) r[k] = table[i[k]];
    return vreinterpretq_u32_s32(vld1q_s32(r));
  }
  static V min_i32(V a, V b) { return vreinterpretq_u32_s32(vminq_s32(vreinterpretq_s32_u32(a), vreinterpretq_s32_u32(b))); }
  static V cmpeq_i32(V a, V b) { return vceqq_u32(a, b); }
  static V sra64(V a, int n) {
    return vreinterpretq_u32_s64(vshlq_s64(vreinterpretq_s64_u32(a), vdupq_n_s64(-int64_t(n))));
  }
  static D maxd(D a, D b) { return vbslq_f64(vcgtq_f64(a, b), a, b); }  // maxpd: b when either is NaN
  static V cmpgt64(V a, V b) {
    return vreinterpretq_u32_u64(vcgtq_s64(vreinterpretq_s64_u32(a), vreinterpretq_s64_u32(b)));
  }
  static D cvt_i64_d_small(V a) { return vcvtq_f64_s64(vreinterpretq_s64_u32(a)); }
  static V cmpged64(D a, D b) { return vreinterpretq_u32_u64(vcgeq_f64(a, b)); }
  static V cmpged(D alo, D blo, D ahi, D bhi) {
    return vcombine_u32(vmovn_u64(vcgeq_f64(alo, blo)), vmovn_u64(vcgeq_f64(ahi, bhi)));
  }

  // ---- 16- and 8-bit lanes (for CAMBI) ----
  static uint16x8_t u16(V a) { return vreinterpretq_u16_u32(a); }
  static uint8x16_t u8(V a) { return vreinterpretq_u8_u32(a); }
  static V set1_16(uint16_t v) { return vreinterpretq_u32_u16(vdupq_n_u16(v)); }
  static V set1_8(uint8_t v) { return vreinterpretq_u32_u8(vdupq_n_u8(v)); }
  static V add16(V a, V b) { return vreinterpretq_u32_u16(vaddq_u16(u16(a), u16(b))); }
  static V sub16(V a, V b) { return vreinterpretq_u32_u16(vsubq_u16(u16(a), u16(b))); }
  static int16x8_t s16(V a) { return vreinterpretq_s16_u32(a); }
  static V min_i16(V a, V b) { return vreinterpretq_u32_s16(vminq_s16(s16(a), s16(b))); }
  static V max_i16(V a, V b) { return vreinterpretq_u32_s16(vmaxq_s16(s16(a), s16(b))); }
  static V cmpgt_i16(V a, V b) { return vreinterpretq_u32_u16(vcgtq_s16(s16(a), s16(b))); }
  static V add8(V a, V b) { return vreinterpretq_u32_u8(vaddq_u8(u8(a), u8(b))); }
  static V sub8(V a, V b) { return vreinterpretq_u32_u8(vsubq_u8(u8(a), u8(b))); }
  static V min_u16(V a, V b) { return vreinterpretq_u32_u16(vminq_u16(u16(a), u16(b))); }
  static V cmpeq16(V a, V b) { return vreinterpretq_u32_u16(vceqq_u16(u16(a), u16(b))); }
  static V cmpgt_i8(V a, V b) {
    return vreinterpretq_u32_u8(vcgtq_s8(vreinterpretq_s8_u32(a), vreinterpretq_s8_u32(b)));
  }
  // Low bytes of the 16-bit lanes (low halves of the 32-bit lanes) of a, then of b: the even elements.
  static V narrow16(V a, V b) { return vreinterpretq_u32_u8(vuzp1q_u8(u8(a), u8(b))); }
  static V narrow32(V a, V b) { return vreinterpretq_u32_u16(vuzp1q_u16(u16(a), u16(b))); }
  static V sll(V a, int n) { return vshlq_u32(a, vdupq_n_s32(n)); }
  static F castf(V a) { return vreinterpretq_f32_u32(a); }
  static F gatherf(const float* table, V idx) {
    uint32_t i[4];
    vst1q_u32(i, idx);
    const float r[4] = {table[i[0]], table[i[1]], table[i[2]], table[i[3]]};
    return vld1q_f32(r);
  }
  static V load_u8_16(const uint8_t* p) { return vreinterpretq_u32_u16(vmovl_u8(vld1_u8(p))); }
  static uint64_t movemask8(V a) {
    static const uint8_t kBit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t b = vandq_u8(vreinterpretq_u8_s8(vshrq_n_s8(vreinterpretq_s8_u32(a), 7)), vld1q_u8(kBit));
    return uint64_t(vaddv_u8(vget_low_u8(b))) | (uint64_t(vaddv_u8(vget_high_u8(b))) << 8);
  }
};
