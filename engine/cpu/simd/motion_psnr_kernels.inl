// SPDX-License-Identifier: LGPL-2.1-or-later
// Motion's blur and SAD and PSNR's sums over the vector operations of `Isa`; included after vif_kernels.inl (which
// defines V, N and vmirror). Same signatures and results as motion_blur_diff_row / motion_row_sad (motion.cpp) and
// psnr_plane_sse_scalar (psnr.cpp).

// ---- motion --------------------------------------------------------------------------------------------------------

inline int64_t mmirror(int64_t i, int64_t n) {
  if (i < 0) return -i;
  if (i >= n) return 2 * n - i - 2;
  return i;
}

template <class T>
inline V load_sample(const T* p, int shift) {
  if constexpr (sizeof(T) == 1) {
    (void)shift;
    return Isa::load_u8(p);
  } else {
    return Isa::srl(Isa::load_u16(p), shift);
  }
}

// Vertical pass. With at most 15 bits the difference fits a signed 16-bit operand and f * d summed over the taps
// stays below 2^31 (65536 * 32767 + 2^14), so vpmaddwd and 32-bit lanes are exact; 16-bit samples go to the
// scalar code.
template <class TP, class TC>
void blur_rows(const Plane& prev, const Plane& cur, uint32_t y, int32_t* out) {
  const TP* prow[kMotionFilterWidth];
  const TC* crow[kMotionFilterWidth];
  for (int k = 0; k < kMotionFilterWidth; ++k) {
    const uint32_t r = uint32_t(mmirror(int64_t(y) - kMotionFilterWidth / 2 + k, prev.h));
    prow[k] = prev.row<TP>(r);
    crow[k] = cur.row<TC>(r);
  }
  const int ps = sizeof(TP) == 1 ? 0 : prev.shift;
  const int cs = sizeof(TC) == 1 ? 0 : cur.shift;
  const V round = Isa::set1(int32_t(1) << (prev.bpc - 1));
  V f[kMotionFilterWidth];
  for (int k = 0; k < kMotionFilterWidth; ++k) f[k] = Isa::set1(kMotionFilter[k]);
  for (uint32_t x = 0;; x += N) {
    if (x + N > prev.w) x = prev.w - N;
    V acc = Isa::zero();
    for (int k = 0; k < kMotionFilterWidth; ++k) {
      const V d = Isa::sub(load_sample(prow[k] + x, ps), load_sample(crow[k] + x, cs));
      acc = Isa::add(acc, Isa::madd16(d, f[k]));
    }
    Isa::store(out + x, Isa::sra(Isa::add(acc, round), prev.bpc));
    if (x + N >= prev.w) break;
  }
}

void blur_diff_row(const Plane& prev, const Plane& cur, uint32_t y, int32_t* out) {
  if (prev.step != 1 || cur.step != 1 || prev.bpc > 15 || prev.w < uint32_t(N))
    return motion_blur_diff_row(prev, cur, y, out);
  if (prev.bytes == 1) {
    if (cur.bytes == 1)
      blur_rows<uint8_t, uint8_t>(prev, cur, y, out);
    else
      blur_rows<uint8_t, uint16_t>(prev, cur, y, out);
  } else {
    if (cur.bytes == 1)
      blur_rows<uint16_t, uint8_t>(prev, cur, y, out);
    else
      blur_rows<uint16_t, uint16_t>(prev, cur, y, out);
  }
}

// Horizontal pass: |row| < 2^17, so f * row is summed in signed 64-bit lanes (even and odd lanes apart). The
// result (sum + 2^15) >> 16 fits 32 bits, so the low half of a logical shift is the arithmetic one.
uint32_t row_sad(const int32_t* row, uint32_t w) {
  constexpr int kR = kMotionFilterWidth / 2;
  auto scalar_at = [&](uint32_t x) {
    int64_t accum = 0;
    for (int k = 0; k < kMotionFilterWidth; ++k)
      accum += int64_t(kMotionFilter[k]) * row[mmirror(int64_t(x) - kR + k, w)];
    const int32_t v = int32_t((accum + (int64_t(1) << 15)) >> 16);
    return uint32_t(v < 0 ? -v : v);
  };
  uint32_t sad = 0;
  uint32_t x = 0;
  if (w >= uint32_t(N + 2 * kR)) {
    for (; x < uint32_t(kR); ++x) sad += scalar_at(x);
    V f[kMotionFilterWidth];
    for (int k = 0; k < kMotionFilterWidth; ++k) f[k] = Isa::set1(kMotionFilter[k]);
    const V round = Isa::set1_64(int64_t(1) << 15);
    V acc = Isa::zero();
    for (; x + N <= w - kR; x += N) {
      V e = round, o = round;
      for (int k = 0; k < kMotionFilterWidth; ++k) {
        const V v = Isa::load(row + x - kR + k);
        e = Isa::add64(e, Isa::mul_i32(v, f[k]));
        o = Isa::add64(o, Isa::mul_i32(Isa::srli64<32>(v), f[k]));
      }
      const V r = Isa::blend_odd(Isa::srli64<16>(e), Isa::slli64<16>(o));
      acc = Isa::add(acc, Isa::abs_i32(r));
    }
    sad += Isa::hsum_u32(acc);
  }
  for (; x < w; ++x) sad += scalar_at(x);
  return sad;
}

// ---- psnr ----------------------------------------------------------------------------------------------------------

// 8-bit samples: squares of a row summed in 32-bit lanes, wrapping as libvmaf's 32-bit row sum does (the sum
// modulo 2^32 does not depend on the order). Deeper samples: squares summed in 64 bits.
template <class T>
uint64_t sse_rows(const Plane& ref, const Plane& dist) {
  const int rs = sizeof(T) == 1 ? 0 : ref.shift;
  const int ds = sizeof(T) == 1 ? 0 : dist.shift;
  const uint32_t w = ref.w;
  const uint32_t vec_end = w - w % N;
  const V lo32 = Isa::set1_64(0xffffffffll);
  uint64_t sse = 0;
  for (uint32_t y = 0; y < ref.h; ++y) {
    const T* r = ref.row<T>(y);
    const T* d = dist.row<T>(y);
    if (ref.bpc == 8) {
      V acc = Isa::zero();
      for (uint32_t x = 0; x < vec_end; x += N) {
        const V e = Isa::abs_i32(Isa::sub(load_sample(r + x, rs), load_sample(d + x, ds)));
        acc = Isa::add(acc, Isa::madd16(e, e));  // |e| < 2^8: the upper 16 bits of each lane are 0
      }
      uint32_t row_sse = Isa::hsum_u32(acc);
      for (uint32_t x = vec_end; x < w; ++x) {
        const int e = int(uint32_t(r[x]) >> rs) - int(uint32_t(d[x]) >> ds);
        row_sse += uint32_t(e * e);
      }
      sse += row_sse;
    } else {
      // e * e < 2^32 per lane (vpmaddwd while |e| < 2^15, a 32-bit multiply for 16-bit samples), added to 64-bit
      // lanes each step.
      V acc = Isa::zero();
      const bool narrow = ref.bpc <= 15;
      for (uint32_t x = 0; x < vec_end; x += N) {
        const V e = Isa::abs_i32(Isa::sub(load_sample(r + x, rs), load_sample(d + x, ds)));
        const V sq = narrow ? Isa::madd16(e, e) : Isa::mullo(e, e);
        acc = Isa::add64(acc, Isa::add64(Isa::and_(sq, lo32), Isa::srli64<32>(sq)));
      }
      sse += Isa::hsum_u64(acc);
      for (uint32_t x = vec_end; x < w; ++x) {
        const int e = int(uint32_t(r[x]) >> rs) - int(uint32_t(d[x]) >> ds);
        const uint32_t a = uint32_t(e < 0 ? -e : e);
        sse += uint32_t(a * a);
      }
    }
  }
  return sse;
}

uint64_t plane_sse(const Plane& ref, const Plane& dist) {
  if (ref.step != 1 || dist.step != 1 || ref.bytes != dist.bytes || ref.w < uint32_t(N))
    return psnr_plane_sse_scalar(ref, dist);
  if (ref.bytes == 1) return sse_rows<uint8_t>(ref, dist);
  return sse_rows<uint16_t>(ref, dist);
}
