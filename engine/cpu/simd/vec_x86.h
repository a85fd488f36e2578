// SPDX-License-Identifier: LGPL-2.1-or-later
// The few vector operations the SIMD kernels use, for one x86 instruction set: `Isa` is the AVX2 or the AVX-512 one,
// as the including file says (VMAFX_SIMD_AVX2 / VMAFX_SIMD_AVX512, with its target pragma). Kernels are written
// against Isa (simd/*_kernels.inl), so one source serves both widths. V holds N unsigned 32-bit lanes; "64-bit" operations treat it as N / 2 lanes; D
// holds N / 2 doubles. Everything is exact integer or IEEE arithmetic: no operation here rounds differently from
// the scalar C++ it replaces (the project builds with -ffp-contract=off, so mul + add never becomes an FMA).
//
// Included only by x86_impl.inl, inside an anonymous namespace of a file compiled for one instruction set, so no
// inline function compiled with wide instructions can be picked by the linker for code that runs on a CPU without
// them. <immintrin.h> and <cstdint> are included before that namespace opens.

#if defined(VMAFX_SIMD_AVX512)

struct Isa {
  using V = __m512i;
  using D = __m512d;
  static constexpr int N = 16;
  static constexpr const char* kName = "avx512";

  static V zero() { return _mm512_setzero_si512(); }
  static V set1(int32_t v) { return _mm512_set1_epi32(v); }
  static V set1_64(int64_t v) { return _mm512_set1_epi64(v); }
  static V load(const void* p) { return _mm512_loadu_si512(p); }
  static void store(void* p, V v) { _mm512_storeu_si512(p, v); }
  static V load_u16(const uint16_t* p) { return _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)p)); }
  static V load_u8(const uint8_t* p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i*)p)); }
  static void store_u16(uint16_t* p, V v) { _mm256_storeu_si256((__m256i*)p, _mm512_cvtepi32_epi16(v)); }

  static V add(V a, V b) { return _mm512_add_epi32(a, b); }
  static V sub(V a, V b) { return _mm512_sub_epi32(a, b); }
  static V mullo(V a, V b) { return _mm512_mullo_epi32(a, b); }
  static V madd16(V a, V b) { return _mm512_madd_epi16(a, b); }
  static V and_(V a, V b) { return _mm512_and_si512(a, b); }
  static V andnot(V a, V b) { return _mm512_andnot_si512(a, b); }  // ~a & b
  static V or_(V a, V b) { return _mm512_or_si512(a, b); }
  static V xor_(V a, V b) { return _mm512_xor_si512(a, b); }
  template <int n> static V srli(V a) { return _mm512_srli_epi32(a, n); }
  template <int n> static V srai(V a) { return _mm512_srai_epi32(a, n); }
  static V srl(V a, int n) { return _mm512_srl_epi32(a, _mm_cvtsi32_si128(n)); }
  static V sra(V a, int n) { return _mm512_sra_epi32(a, _mm_cvtsi32_si128(n)); }
  static V srlv(V a, V n) { return _mm512_srlv_epi32(a, n); }
  static V max_i32(V a, V b) { return _mm512_max_epi32(a, b); }
  static V abs_i32(V a) { return _mm512_abs_epi32(a); }
  static V cmpgt_i32(V a, V b) { return _mm512_movm_epi32(_mm512_cmpgt_epi32_mask(a, b)); }
  static bool any(V m) { return _mm512_test_epi32_mask(m, m) != 0; }

  static V mul_u32(V a, V b) { return _mm512_mul_epu32(a, b); }
  static V mul_i32(V a, V b) { return _mm512_mul_epi32(a, b); }
  static V add64(V a, V b) { return _mm512_add_epi64(a, b); }
  template <int n> static V srli64(V a) { return _mm512_srli_epi64(a, n); }
  template <int n> static V slli64(V a) { return _mm512_slli_epi64(a, n); }
  static V srl64(V a, int n) { return _mm512_srl_epi64(a, _mm_cvtsi32_si128(n)); }
  static V srlv64(V a, V n) { return _mm512_srlv_epi64(a, n); }
  static V sub64(V a, V b) { return _mm512_sub_epi64(a, b); }
  // Even 32-bit lanes of a, odd ones of b.
  static V blend_odd(V a, V b) { return _mm512_mask_blend_epi32(0xAAAA, a, b); }
  // Lanes 0..N/2-1 (lo) or N/2..N-1 (hi) zero-extended to 64 bits, in order.
  static V zext_lo(V a) { return _mm512_cvtepu32_epi64(_mm512_castsi512_si256(a)); }
  static V zext_hi(V a) { return _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(a, 1)); }
  // Low 32 bits of the 64-bit lanes of lo then hi, in order (inverse of zext_lo / zext_hi).
  static V narrow64(V lo, V hi) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(lo)), _mm512_cvtepi64_epi32(hi), 1);
  }
  // Lanes 0, 2, 4, ... of the 2N lanes a:b.
  static V even_lanes(V a, V b) {
    const V idx = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    return _mm512_permutex2var_epi32(a, idx, b);
  }
  // 16-bit lanes (2N per vector).
  static V unpacklo16(V a, V b) { return _mm512_unpacklo_epi16(a, b); }
  static V unpackhi16(V a, V b) { return _mm512_unpackhi_epi16(a, b); }
  static V mullo16(V a, V b) { return _mm512_mullo_epi16(a, b); }
  // Stores the 2N lanes of lo and hi as unpacklo/unpackhi left them (128-bit blocks of lo and hi alternate) in order.
  static void store_lohi(uint32_t* p, V lo, V hi) {
    _mm512_storeu_si512(p, _mm512_permutex2var_epi64(lo, _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), hi));
    _mm512_storeu_si512(p + 16, _mm512_permutex2var_epi64(lo, _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4), hi));
  }
  // Stores e0 o0 e1 o1 ... (2N lanes) at p.
  static void store_interleaved(uint32_t* p, V e, V o) {
    store_lohi(p, _mm512_unpacklo_epi32(e, o), _mm512_unpackhi_epi32(e, o));
  }
  static uint32_t hsum_u32(V a) { return uint32_t(_mm512_reduce_add_epi32(a)); }
  static uint64_t hsum_u64(V a) { return uint64_t(_mm512_reduce_add_epi64(a)); }
  static int64_t hsum_i32_to_i64(V a) {
    return _mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_cvtepi32_epi64(_mm512_castsi512_si256(a)),
                                                    _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(a, 1))));
  }
  // Entries table[idx] of a uint16 table (one entry readable past the largest index).
  static V gather_u16(const uint16_t* table, V idx) {
    return _mm512_and_si512(_mm512_i32gather_epi32(idx, (const void*)table, 2), _mm512_set1_epi32(0xffff));
  }
  // floor(log2(v)) of lanes v >= 256 (< 2^32): v >> 8 converts to float exactly, its exponent is the answer - 8.
  static V floor_log2_u32(V v) {
    const V f = _mm512_castps_si512(_mm512_cvtepi32_ps(_mm512_srli_epi32(v, 8)));
    return _mm512_sub_epi32(_mm512_srli_epi32(f, 23), _mm512_set1_epi32(127 - 8));
  }
  // floor(log2(v)) of 64-bit lanes 0 < v < 2^52, as 64-bit lanes.
  static V floor_log2_u64(V v) {
    const __m512d magic = _mm512_set1_pd(4503599627370496.0);  // 2^52
    const __m512d d = _mm512_sub_pd(_mm512_castsi512_pd(_mm512_or_si512(v, _mm512_castpd_si512(magic))), magic);
    return _mm512_sub_epi64(_mm512_srli_epi64(_mm512_castpd_si512(d), 52), _mm512_set1_epi64(1023));
  }

  static D cvt_lo(V a) { return _mm512_cvtepi32_pd(_mm512_castsi512_si256(a)); }
  static D cvt_hi(V a) { return _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(a, 1)); }
  static D set1d(double v) { return _mm512_set1_pd(v); }
  static D addd(D a, D b) { return _mm512_add_pd(a, b); }
  static D subd(D a, D b) { return _mm512_sub_pd(a, b); }
  static D muld(D a, D b) { return _mm512_mul_pd(a, b); }
  static D divd(D a, D b) { return _mm512_div_pd(a, b); }
  static D mind(D a, D b) { return _mm512_min_pd(a, b); }  // a < b ? a : b (b when either is NaN)
  // cvttsd2si of each double of lo then hi: truncation, INT32_MIN for NaN and out-of-range values.
  static V trunc_i32(D lo, D hi) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvttpd_epi32(lo)), _mm512_cvttpd_epi32(hi), 1);
  }
  // Truncation to int64 of doubles 0 <= d < 2^52 (other lanes: unspecified).
  static V trunc_i64_small(D d) { return _mm512_cvttpd_epi64(d); }

  // ---- float lanes (N floats; halves widen to D) ----
  using F = __m512;
  static F loadf(const float* p) { return _mm512_loadu_ps(p); }
  static void storef(float* p, F v) { _mm512_storeu_ps(p, v); }
  static void stored(double* p, D v) { _mm512_storeu_pd(p, v); }
  static D loadd(const double* p) { return _mm512_loadu_pd(p); }
  static F set1f(float v) { return _mm512_set1_ps(v); }
  static F addf(F a, F b) { return _mm512_add_ps(a, b); }
  static F subf(F a, F b) { return _mm512_sub_ps(a, b); }
  static F mulf(F a, F b) { return _mm512_mul_ps(a, b); }
  static F divf(F a, F b) { return _mm512_div_ps(a, b); }
  static D cvtf_lo(F a) { return _mm512_cvtps_pd(_mm512_castps512_ps256(a)); }
  static D cvtf_hi(F a) { return _mm512_cvtps_pd(_mm512_extractf32x8_ps(a, 1)); }
  static F narrowd(D lo, D hi) {
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
  }
  static D sqrtd(D a) { return _mm512_sqrt_pd(a); }
  // Ordered comparisons (false with a NaN), as all-ones lanes.
  static F cmpltf(F a, F b) { return _mm512_castsi512_ps(_mm512_movm_epi32(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ))); }
  static F cmplef(F a, F b) { return _mm512_castsi512_ps(_mm512_movm_epi32(_mm512_cmp_ps_mask(a, b, _CMP_LE_OQ))); }
  static F andf(F a, F b) { return _mm512_and_ps(a, b); }
  static F selectf(F m, F a, F b) { return _mm512_mask_blend_ps(_mm512_movepi32_mask(_mm512_castps_si512(m)), b, a); }
  static F cvt_i32_f(V a) { return _mm512_cvtepi32_ps(a); }
  // p[0], p[stride], p[2 stride], ...
  static F loadf_stride(const float* p, int stride) {
    if (stride == 1) return loadf(p);
    const V idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                     _mm512_set1_epi32(stride));
    return _mm512_i32gather_ps(idx, p, 4);
  }

  // ---- for ADM ----
  template <int n> static V slli(V a) { return _mm512_slli_epi32(a, n); }
  static V load_i16(const int16_t* p) { return _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i*)p)); }
  static V gather_i32(const int32_t* table, V idx) { return _mm512_i32gather_epi32(idx, (const void*)table, 4); }
  static V min_i32(V a, V b) { return _mm512_min_epi32(a, b); }
  static V cmpeq_i32(V a, V b) { return _mm512_movm_epi32(_mm512_cmpeq_epi32_mask(a, b)); }
  static V sra64(V a, int n) { return _mm512_sra_epi64(a, _mm_cvtsi32_si128(n)); }
  static D maxd(D a, D b) { return _mm512_max_pd(a, b); }  // a > b ? a : b
  static V cmpgt64(V a, V b) { return _mm512_movm_epi64(_mm512_cmpgt_epi64_mask(a, b)); }
  // int64 lanes |x| < 2^51 to double (exact).
  static D cvt_i64_d_small(V a) { return _mm512_cvtepi64_pd(a); }
  // a >= b (ordered) of each double, as an all-ones 64-bit lane.
  static V cmpged64(D a, D b) { return _mm512_movm_epi64(_mm512_cmp_pd_mask(a, b, _CMP_GE_OQ)); }
  // a >= b (ordered) of the N doubles alo:ahi against blo:bhi, as all-ones 32-bit lanes.
  static V cmpged(D alo, D blo, D ahi, D bhi) {
    const __mmask16 m = __mmask16(_mm512_cmp_pd_mask(alo, blo, _CMP_GE_OQ) | (_mm512_cmp_pd_mask(ahi, bhi, _CMP_GE_OQ) << 8));
    return _mm512_movm_epi32(m);
  }

  // ---- 16- and 8-bit lanes (for CAMBI) ----
  static V set1_16(uint16_t v) { return _mm512_set1_epi16(short(v)); }
  static V set1_8(uint8_t v) { return _mm512_set1_epi8(char(v)); }
  static V add16(V a, V b) { return _mm512_add_epi16(a, b); }
  static V sub16(V a, V b) { return _mm512_sub_epi16(a, b); }
  static V min_i16(V a, V b) { return _mm512_min_epi16(a, b); }
  static V max_i16(V a, V b) { return _mm512_max_epi16(a, b); }
  static V cmpgt_i16(V a, V b) { return _mm512_movm_epi16(_mm512_cmpgt_epi16_mask(a, b)); }
  static V add8(V a, V b) { return _mm512_add_epi8(a, b); }
  static V sub8(V a, V b) { return _mm512_sub_epi8(a, b); }
  static V min_u16(V a, V b) { return _mm512_min_epu16(a, b); }
  static V cmpeq16(V a, V b) { return _mm512_movm_epi16(_mm512_cmpeq_epi16_mask(a, b)); }
  static V cmpgt_i8(V a, V b) { return _mm512_movm_epi8(_mm512_cmpgt_epi8_mask(a, b)); }
  // The low bytes of the 16-bit lanes of a, then of b (truncation).
  static V narrow16(V a, V b) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi16_epi8(a)), _mm512_cvtepi16_epi8(b), 1);
  }
  // The low 16 bits of the 32-bit lanes of a, then of b (truncation).
  static V narrow32(V a, V b) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi32_epi16(a)), _mm512_cvtepi32_epi16(b), 1);
  }
  static V sll(V a, int n) { return _mm512_sll_epi32(a, _mm_cvtsi32_si128(n)); }
  static F castf(V a) { return _mm512_castsi512_ps(a); }
  static F gatherf(const float* table, V idx) { return _mm512_i32gather_ps(idx, table, 4); }
  // 2N bytes at p, zero-extended to the 2N 16-bit lanes.
  static V load_u8_16(const uint8_t* p) { return _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i*)p)); }
  // One bit per byte (its top bit), byte 0 in bit 0.
  static uint64_t movemask8(V a) { return _mm512_movepi8_mask(a); }
};

#elif defined(VMAFX_SIMD_AVX2)

struct Isa {
  using V = __m256i;
  using D = __m256d;
  static constexpr int N = 8;
  static constexpr const char* kName = "avx2";

  static V zero() { return _mm256_setzero_si256(); }
  static V set1(int32_t v) { return _mm256_set1_epi32(v); }
  static V set1_64(int64_t v) { return _mm256_set1_epi64x(v); }
  static V load(const void* p) { return _mm256_loadu_si256((const __m256i*)p); }
  static void store(void* p, V v) { _mm256_storeu_si256((__m256i*)p, v); }
  static V load_u16(const uint16_t* p) { return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)p)); }
  static V load_u8(const uint8_t* p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i*)p)); }
  static void store_u16(uint16_t* p, V v) {
    const V m = _mm256_and_si256(v, _mm256_set1_epi32(0xffff));
    _mm_storeu_si128((__m128i*)p, _mm_packus_epi32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1)));
  }

  static V add(V a, V b) { return _mm256_add_epi32(a, b); }
  static V sub(V a, V b) { return _mm256_sub_epi32(a, b); }
  static V mullo(V a, V b) { return _mm256_mullo_epi32(a, b); }
  static V madd16(V a, V b) { return _mm256_madd_epi16(a, b); }
  static V and_(V a, V b) { return _mm256_and_si256(a, b); }
  static V andnot(V a, V b) { return _mm256_andnot_si256(a, b); }
  static V or_(V a, V b) { return _mm256_or_si256(a, b); }
  static V xor_(V a, V b) { return _mm256_xor_si256(a, b); }
  template <int n> static V srli(V a) { return _mm256_srli_epi32(a, n); }
  template <int n> static V srai(V a) { return _mm256_srai_epi32(a, n); }
  static V srl(V a, int n) { return _mm256_srl_epi32(a, _mm_cvtsi32_si128(n)); }
  static V sra(V a, int n) { return _mm256_sra_epi32(a, _mm_cvtsi32_si128(n)); }
  static V srlv(V a, V n) { return _mm256_srlv_epi32(a, n); }
  static V max_i32(V a, V b) { return _mm256_max_epi32(a, b); }
  static V abs_i32(V a) { return _mm256_abs_epi32(a); }
  static V cmpgt_i32(V a, V b) { return _mm256_cmpgt_epi32(a, b); }
  static bool any(V m) { return !_mm256_testz_si256(m, m); }

  static V mul_u32(V a, V b) { return _mm256_mul_epu32(a, b); }
  static V mul_i32(V a, V b) { return _mm256_mul_epi32(a, b); }
  static V add64(V a, V b) { return _mm256_add_epi64(a, b); }
  template <int n> static V srli64(V a) { return _mm256_srli_epi64(a, n); }
  template <int n> static V slli64(V a) { return _mm256_slli_epi64(a, n); }
  static V srl64(V a, int n) { return _mm256_srl_epi64(a, _mm_cvtsi32_si128(n)); }
  static V srlv64(V a, V n) { return _mm256_srlv_epi64(a, n); }
  static V sub64(V a, V b) { return _mm256_sub_epi64(a, b); }
  static V blend_odd(V a, V b) { return _mm256_blend_epi32(a, b, 0xAA); }
  static V zext_lo(V a) { return _mm256_cvtepu32_epi64(_mm256_castsi256_si128(a)); }
  static V zext_hi(V a) { return _mm256_cvtepu32_epi64(_mm256_extracti128_si256(a, 1)); }
  static V narrow64(V lo, V hi) {
    const V idx = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    const V l = _mm256_permutevar8x32_epi32(lo, idx);
    const V h = _mm256_permutevar8x32_epi32(hi, idx);
    return _mm256_permute2x128_si256(l, h, 0x20);
  }
  static V even_lanes(V a, V b) {
    const __m256 s = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), 0x88);
    return _mm256_permute4x64_epi64(_mm256_castps_si256(s), 0xD8);
  }
  static V unpacklo16(V a, V b) { return _mm256_unpacklo_epi16(a, b); }
  static V unpackhi16(V a, V b) { return _mm256_unpackhi_epi16(a, b); }
  static V mullo16(V a, V b) { return _mm256_mullo_epi16(a, b); }
  static void store_lohi(uint32_t* p, V lo, V hi) {
    _mm256_storeu_si256((__m256i*)p, _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256((__m256i*)(p + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
  }
  static void store_interleaved(uint32_t* p, V e, V o) {
    store_lohi(p, _mm256_unpacklo_epi32(e, o), _mm256_unpackhi_epi32(e, o));
  }
  static uint32_t hsum_u32(V a) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return uint32_t(_mm_cvtsi128_si32(s));
  }
  static uint64_t hsum_u64(V a) {
    __m128i s = _mm_add_epi64(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    s = _mm_add_epi64(s, _mm_unpackhi_epi64(s, s));
    return uint64_t(_mm_cvtsi128_si64(s));
  }
  static int64_t hsum_i32_to_i64(V a) {
    const V s = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(a)),
                                 _mm256_cvtepi32_epi64(_mm256_extracti128_si256(a, 1)));
    return int64_t(hsum_u64(s));
  }
  static V gather_u16(const uint16_t* table, V idx) {
    return _mm256_and_si256(_mm256_i32gather_epi32((const int*)table, idx, 2), _mm256_set1_epi32(0xffff));
  }
  static V floor_log2_u32(V v) {
    const V f = _mm256_castps_si256(_mm256_cvtepi32_ps(_mm256_srli_epi32(v, 8)));
    return _mm256_sub_epi32(_mm256_srli_epi32(f, 23), _mm256_set1_epi32(127 - 8));
  }
  static V floor_log2_u64(V v) {
    const __m256d magic = _mm256_set1_pd(4503599627370496.0);
    const __m256d d = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(v, _mm256_castpd_si256(magic))), magic);
    return _mm256_sub_epi64(_mm256_srli_epi64(_mm256_castpd_si256(d), 52), _mm256_set1_epi64x(1023));
  }

  static D cvt_lo(V a) { return _mm256_cvtepi32_pd(_mm256_castsi256_si128(a)); }
  static D cvt_hi(V a) { return _mm256_cvtepi32_pd(_mm256_extracti128_si256(a, 1)); }
  static D set1d(double v) { return _mm256_set1_pd(v); }
  static D addd(D a, D b) { return _mm256_add_pd(a, b); }
  static D subd(D a, D b) { return _mm256_sub_pd(a, b); }
  static D muld(D a, D b) { return _mm256_mul_pd(a, b); }
  static D divd(D a, D b) { return _mm256_div_pd(a, b); }
  static D mind(D a, D b) { return _mm256_min_pd(a, b); }
  static V trunc_i32(D lo, D hi) {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm256_cvttpd_epi32(lo)), _mm256_cvttpd_epi32(hi), 1);
  }
  // No cvttpd2qq before AVX-512: truncate, then add 2^52 so the integer sits in the mantissa bits.
  static V trunc_i64_small(D d) {
    const __m256d magic = _mm256_set1_pd(4503599627370496.0);
    const __m256d t = _mm256_add_pd(_mm256_round_pd(d, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), magic);
    return _mm256_sub_epi64(_mm256_castpd_si256(t), _mm256_castpd_si256(magic));
  }

  using F = __m256;
  static F loadf(const float* p) { return _mm256_loadu_ps(p); }
  static void storef(float* p, F v) { _mm256_storeu_ps(p, v); }
  static void stored(double* p, D v) { _mm256_storeu_pd(p, v); }
  static D loadd(const double* p) { return _mm256_loadu_pd(p); }
  static F set1f(float v) { return _mm256_set1_ps(v); }
  static F addf(F a, F b) { return _mm256_add_ps(a, b); }
  static F subf(F a, F b) { return _mm256_sub_ps(a, b); }
  static F mulf(F a, F b) { return _mm256_mul_ps(a, b); }
  static F divf(F a, F b) { return _mm256_div_ps(a, b); }
  static D cvtf_lo(F a) { return _mm256_cvtps_pd(_mm256_castps256_ps128(a)); }
  static D cvtf_hi(F a) { return _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)); }
  static F narrowd(D lo, D hi) { return _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)); }
  static D sqrtd(D a) { return _mm256_sqrt_pd(a); }
  static F cmpltf(F a, F b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static F cmplef(F a, F b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
  static F andf(F a, F b) { return _mm256_and_ps(a, b); }
  static F selectf(F m, F a, F b) { return _mm256_blendv_ps(b, a, m); }
  static F cvt_i32_f(V a) { return _mm256_cvtepi32_ps(a); }
  static F loadf_stride(const float* p, int stride) {
    if (stride == 1) return loadf(p);
    if (stride == 2) {
      const __m256 s = _mm256_shuffle_ps(loadf(p), loadf(p + 8), 0x88);
      return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(s), 0xD8));
    }
    const V idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(stride));
    return _mm256_i32gather_ps(p, idx, 4);
  }

  // ---- for ADM ----
  template <int n> static V slli(V a) { return _mm256_slli_epi32(a, n); }
  static V load_i16(const int16_t* p) { return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i*)p)); }
  static V gather_i32(const int32_t* table, V idx) { return _mm256_i32gather_epi32((const int*)table, idx, 4); }
  static V min_i32(V a, V b) { return _mm256_min_epi32(a, b); }
  static V cmpeq_i32(V a, V b) { return _mm256_cmpeq_epi32(a, b); }
  // No vpsraq before AVX-512: the logical shift of x ^ sign, then ^ sign again.
  static V sra64(V a, int n) {
    const V s = _mm256_shuffle_epi32(_mm256_srai_epi32(a, 31), 0xF5);
    return _mm256_xor_si256(_mm256_srl_epi64(_mm256_xor_si256(a, s), _mm_cvtsi32_si128(n)), s);
  }
  static D maxd(D a, D b) { return _mm256_max_pd(a, b); }
  static V cmpgt64(V a, V b) { return _mm256_cmpgt_epi64(a, b); }
  // No vcvtqq2pd before AVX-512: x + 1.5 * 2^52 in the mantissa, minus 1.5 * 2^52 (exact for |x| < 2^51).
  static D cvt_i64_d_small(V a) {
    const __m256d magic = _mm256_set1_pd(6755399441055744.0);
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(a, _mm256_castpd_si256(magic))), magic);
  }
  static V cmpged64(D a, D b) { return _mm256_castpd_si256(_mm256_cmp_pd(a, b, _CMP_GE_OQ)); }
  static V cmpged(D alo, D blo, D ahi, D bhi) {
    return narrow64(_mm256_castpd_si256(_mm256_cmp_pd(alo, blo, _CMP_GE_OQ)),
                    _mm256_castpd_si256(_mm256_cmp_pd(ahi, bhi, _CMP_GE_OQ)));
  }

  // ---- 16- and 8-bit lanes (for CAMBI) ----
  static V set1_16(uint16_t v) { return _mm256_set1_epi16(short(v)); }
  static V set1_8(uint8_t v) { return _mm256_set1_epi8(char(v)); }
  static V add16(V a, V b) { return _mm256_add_epi16(a, b); }
  static V sub16(V a, V b) { return _mm256_sub_epi16(a, b); }
  static V min_i16(V a, V b) { return _mm256_min_epi16(a, b); }
  static V max_i16(V a, V b) { return _mm256_max_epi16(a, b); }
  static V cmpgt_i16(V a, V b) { return _mm256_cmpgt_epi16(a, b); }
  static V add8(V a, V b) { return _mm256_add_epi8(a, b); }
  static V sub8(V a, V b) { return _mm256_sub_epi8(a, b); }
  static V min_u16(V a, V b) { return _mm256_min_epu16(a, b); }
  static V cmpeq16(V a, V b) { return _mm256_cmpeq_epi16(a, b); }
  static V cmpgt_i8(V a, V b) { return _mm256_cmpgt_epi8(a, b); }
  // vpackuswb saturates and interleaves the 128-bit halves: mask to the low bytes first, reorder after.
  static V narrow16(V a, V b) {
    const V m = _mm256_set1_epi16(0xff);
    return _mm256_permute4x64_epi64(_mm256_packus_epi16(_mm256_and_si256(a, m), _mm256_and_si256(b, m)), 0xD8);
  }
  static V narrow32(V a, V b) {
    const V m = _mm256_set1_epi32(0xffff);
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_and_si256(a, m), _mm256_and_si256(b, m)), 0xD8);
  }
  static V sll(V a, int n) { return _mm256_sll_epi32(a, _mm_cvtsi32_si128(n)); }
  static F castf(V a) { return _mm256_castsi256_ps(a); }
  static F gatherf(const float* table, V idx) { return _mm256_i32gather_ps(table, idx, 4); }
  static V load_u8_16(const uint8_t* p) { return _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i*)p)); }
  static uint64_t movemask8(V a) { return uint32_t(_mm256_movemask_epi8(a)); }
};

#else
#error "vec_x86.h: define VMAFX_SIMD_AVX2 or VMAFX_SIMD_AVX512 (x86_avx2.cpp, x86_avx512.cpp)"
#endif
