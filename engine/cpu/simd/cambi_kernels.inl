// SPDX-License-Identifier: LGPL-2.1-or-later
// CAMBI's stages (cambi.h) over the vector operations of `Isa`; included after motion_psnr_kernels.inl (V, N,
// load_sample). Each function has the signature and the exact result of its scalar namesake in cambi.cpp:
//   - preprocess, spatial mask, decimation and mode filter are integer code, vectorised with 8-, 16- or 32-bit lanes
//     that hold every intermediate value exactly (the mask's counts are at most 49, the 2x2 means' sums at most
//     4 * 65535 in 32-bit lanes, the mode filter only compares);
//   - the c-values: the histogram's range updates are 16-bit vector adds (modulo 2^16, as the scalar uint16 adds);
//     the per-pixel c-value puts one pixel in each 32-bit lane and does the scalar code's operations in its order:
//     the int product, its conversion to float, the product with the reciprocal, the maximum over d with the same
//     comparison (a lane whose condition is false keeps its value).
// Rows narrower than a vector, row ends, resized or interleaved input go to the scalar code.

constexpr int kCambiB = int(sizeof(V));  // bytes per vector
constexpr int kCambiH = kCambiB / 2;     // 16-bit lanes per vector
static_assert(kCambiH <= 64, "kCambiOnes covers at most 64 16-bit lanes");

// 64 ones then 64 zeros: the first n lanes of a vector loaded at kCambiOnes + 64 - n are 1.
alignas(64) constexpr uint16_t kCambiOnes[128] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

inline V cambi_sel(V m, V a, V b) { return Isa::or_(Isa::and_(m, a), Isa::andnot(m, b)); }

// ---- Stage 1: preprocess ---------------------------------------------------------------------------------------------

// One row of samples (bytes T, step 1) brought to 10 bits as to_10bit() in cambi.cpp does, j in [0, w).
template <class T>
inline void cambi_row_to_10bit(const T* r, unsigned bpc, int shift, uint32_t w, uint16_t* o) {
  const int up = bpc <= 8 ? int(10 - bpc) : bpc == 9 ? 1 : 0;
  const int down = bpc >= 10 ? int(bpc - 10) : 0;
  const V round = Isa::set1(down == 0 ? 0 : int32_t(1) << (down - 1));
  uint32_t j = 0;
  for (; j + N <= w; j += N) {
    const V v = load_sample(r + j, shift);
    // uint16(v << up) by the truncating store; (v + round) >> down exact in 32 bits.
    Isa::store_u16(o + j, up ? Isa::sll(v, up) : Isa::srl(Isa::add(v, round), down));
  }
  for (; j < w; ++j) {
    const uint32_t v = uint32_t(r[j]) >> shift;
    if (bpc <= 8)
      o[j] = uint16_t(v << (10 - bpc));
    else if (bpc == 9)
      o[j] = uint16_t(v << 1);
    else
      o[j] = uint16_t((v + (down == 0 ? 0u : 1u << (down - 1))) >> down);
  }
}

// Anti-dithering of row r0 from r0 and r1 (r1 == nullptr: the last row), in place, reading each sample of r0 before
// it is written, as the scalar code.
inline void cambi_dither_row(uint16_t* r0, const uint16_t* r1, uint32_t w) {
  uint32_t j = 0;
  if (r1) {
    for (; j + N < w; j += N) {
      const V s = Isa::add(Isa::add(Isa::load_u16(r0 + j), Isa::load_u16(r0 + j + 1)),
                           Isa::add(Isa::load_u16(r1 + j), Isa::load_u16(r1 + j + 1)));
      Isa::store_u16(r0 + j, Isa::srli<2>(s));
    }
    for (; j + 1 < w; ++j) r0[j] = uint16_t((r0[j] + r0[j + 1] + r1[j] + r1[j + 1]) >> 2);
    r0[w - 1] = uint16_t((r0[w - 1] + r1[w - 1]) >> 1);
  } else {
    for (; j + N < w; j += N)
      Isa::store_u16(r0 + j, Isa::srli<1>(Isa::add(Isa::load_u16(r0 + j), Isa::load_u16(r0 + j + 1))));
    for (; j + 1 < w; ++j) r0[j] = uint16_t((r0[j] + r0[j + 1]) >> 1);
  }
}

void cambi_preprocess_simd(const Plane& in, const CambiGeometry& g, unsigned enc_bitdepth, uint16_t* out,
                           ptrdiff_t stride) {
  if (g.resized || in.step != 1 || g.w < uint32_t(N) + 1 || g.h < 2)
    return cambi_preprocess(in, g, enc_bitdepth, out, stride);
  const bool dither = enc_bitdepth < 10;
  // Row i is converted, then row i - 1 filtered (it reads rows i - 1 and i, neither filtered yet): the scalar
  // code's two passes in one.
  for (uint32_t i = 0; i < g.h; ++i) {
    uint16_t* o = out + ptrdiff_t(i) * stride;
    if (in.bytes == 1)
      cambi_row_to_10bit(in.row<uint8_t>(i), in.bpc, 0, g.w, o);
    else
      cambi_row_to_10bit(in.row<uint16_t>(i), in.bpc, in.shift, g.w, o);
    if (dither && i > 0) cambi_dither_row(o - stride, o, g.w);
  }
  if (dither) cambi_dither_row(out + ptrdiff_t(g.h - 1) * stride, nullptr, g.w);
}

// ---- Stage 2: spatial mask -------------------------------------------------------------------------------------------

// Flat indicator (1 / 0 bytes) of row p (below: the next row, or p itself for the last row) at dst[0 .. w).
inline void cambi_flat_row(const uint16_t* p, const uint16_t* below, uint32_t w, uint8_t* dst) {
  const V one = Isa::set1_8(1);
  uint32_t j = 0;
  for (; j + kCambiB < w; j += kCambiB) {  // reads p[j .. j + kCambiB], inside the row
    const V a0 = Isa::load(p + j), a1 = Isa::load(p + j + kCambiH);
    const V f0 = Isa::and_(Isa::cmpeq16(a0, Isa::load(p + j + 1)), Isa::cmpeq16(a0, Isa::load(below + j)));
    const V f1 = Isa::and_(Isa::cmpeq16(a1, Isa::load(p + j + kCambiH + 1)),
                           Isa::cmpeq16(a1, Isa::load(below + j + kCambiH)));
    Isa::store(dst + j, Isa::and_(Isa::narrow16(f0, f1), one));
  }
  for (; j < w; ++j) {
    const bool horizontal = j == w - 1 || p[j] == p[j + 1];
    dst[j] = (horizontal && p[j] == below[j]) ? 1 : 0;
  }
}

void cambi_spatial_mask_simd(const uint16_t* img, ptrdiff_t stride, uint32_t w, uint32_t h, uint16_t mask_index,
                             uint8_t* mask, ptrdiff_t mask_stride, uint32_t* scratch) {
  if (w < uint32_t(2 * kCambiB)) return cambi_spatial_mask(img, stride, w, h, mask_index, mask, mask_stride, scratch);
  // Bytes: the column sums (rw) then a ring of 8 indicator rows (rw each), every row with 3 zero columns on both
  // sides; 9 * (w + 6) bytes of the (w + 7) * 32 of the scratch. The counts stay below 50.
  const int pad = int(kCambiMaskFilter / 2);
  const uint32_t rw = w + 2 * pad;
  uint8_t* colsum = reinterpret_cast<uint8_t*>(scratch);
  uint8_t* ring = colsum + rw;
  std::memset(colsum, 0, size_t(rw) * 9);
  auto slot = [&](int r) { return ring + size_t(r & 7) * rw; };
  auto flat = [&](int r) {
    const uint16_t* p = img + ptrdiff_t(r) * stride;
    cambi_flat_row(p, uint32_t(r) + 1 == h ? p : p + stride, w, slot(r) + pad);
  };
  // colsum += enter - leave (either may be null).
  auto update = [&](const uint8_t* enter, const uint8_t* leave) {
    uint32_t x = 0;
    for (; x + kCambiB <= rw; x += kCambiB) {
      V s = Isa::load(colsum + x);
      if (enter) s = Isa::add8(s, Isa::load(enter + x));
      if (leave) s = Isa::sub8(s, Isa::load(leave + x));
      Isa::store(colsum + x, s);
    }
    for (; x < rw; ++x) colsum[x] = uint8_t(colsum[x] + (enter ? enter[x] : 0) - (leave ? leave[x] : 0));
  };
  for (int r = 0; r < pad && r < int(h); ++r) {
    flat(r);
    update(slot(r), nullptr);
  }
  // Sums of at most 49 against the threshold as signed bytes (a threshold of 127 or more: never exceeded).
  const V thr = Isa::set1_8(uint8_t(mask_index < 127 ? mask_index : 127)), one = Isa::set1_8(1);
  for (int i = 0; i < int(h); ++i) {
    const int enter = i + pad, leave = i - pad - 1;
    if (enter < int(h)) flat(enter);
    if (enter < int(h) || leave >= 0) update(enter < int(h) ? slot(enter) : nullptr, leave >= 0 ? slot(leave) : nullptr);
    uint8_t* m = mask + ptrdiff_t(i) * mask_stride;
    uint32_t j = 0;
    for (; j + kCambiB <= w; j += kCambiB) {
      V s = Isa::load(colsum + j);
      for (int k = 1; k < 2 * pad + 1; ++k) s = Isa::add8(s, Isa::load(colsum + j + k));
      Isa::store(m + j, Isa::and_(Isa::cmpgt_i8(s, thr), one));
    }
    for (; j < w; ++j) {
      unsigned s = 0;
      for (int k = 0; k < 2 * pad + 1; ++k) s += colsum[j + k];
      m[j] = s > mask_index ? 1 : 0;
    }
  }
}

// ---- Stage 3a, 3b: decimation, mode filter ---------------------------------------------------------------------------

// Rows 2i are read in increasing j before row i's same columns are written (row 0 in place: j < 2j).
void cambi_decimate_image_simd(uint16_t* img, ptrdiff_t stride, uint32_t w, uint32_t h) {
  for (uint32_t i = 0; i < h; ++i) {
    const uint16_t* s = img + ptrdiff_t(2 * i) * stride;
    uint16_t* d = img + ptrdiff_t(i) * stride;
    uint32_t j = 0;
    for (; j + kCambiH < w; j += kCambiH)  // reads s[2j .. 2j + 2 kCambiH - 1] <= s[2w - 3]
      Isa::store(d + j, Isa::narrow32(Isa::load(s + 2 * j), Isa::load(s + 2 * j + kCambiH)));
    for (; j < w; ++j) d[j] = s[2 * j];
  }
}

void cambi_decimate_mask_simd(uint8_t* mask, ptrdiff_t stride, uint32_t w, uint32_t h) {
  for (uint32_t i = 0; i < h; ++i) {
    const uint8_t* s = mask + ptrdiff_t(2 * i) * stride;
    uint8_t* d = mask + ptrdiff_t(i) * stride;
    uint32_t j = 0;
    for (; j + kCambiB < w; j += kCambiB)
      Isa::store(d + j, Isa::narrow16(Isa::load(s + 2 * j), Isa::load(s + 2 * j + kCambiB)));
    for (; j < w; ++j) d[j] = s[2 * j];
  }
}

// cambi_mode3 lane by lane: a where a equals b or c, else b where b equals c, else the smallest.
inline V cambi_mode3_v(V a, V b, V c) {
  const V mn = Isa::min_u16(Isa::min_u16(a, b), c);
  const V r = cambi_sel(Isa::cmpeq16(b, c), b, mn);
  return cambi_sel(Isa::or_(Isa::cmpeq16(a, b), Isa::cmpeq16(a, c)), a, r);
}

void cambi_filter_mode_simd(uint16_t* img, ptrdiff_t stride, uint32_t w, uint32_t h, uint16_t* buf) {
  if (w < uint32_t(kCambiH) + 2) return cambi_filter_mode(img, stride, w, h, buf);
  unsigned line = 0;
  for (uint32_t i = 0; i < h; ++i) {
    const uint16_t* r = img + ptrdiff_t(i) * stride;
    uint16_t* b = buf + size_t(line) * w;
    b[0] = r[0];
    uint32_t j = 1;
    for (; j + kCambiH < w; j += kCambiH)  // reads r[j - 1 .. j + kCambiH] <= r[w - 1]
      Isa::store(b + j, cambi_mode3_v(Isa::load(r + j - 1), Isa::load(r + j), Isa::load(r + j + 1)));
    for (; j + 1 < w; ++j) b[j] = cambi_mode3(r[j - 1], r[j], r[j + 1]);
    b[w - 1] = r[w - 1];
    if (i > 1) {
      uint16_t* o = img + ptrdiff_t(i - 1) * stride;
      const uint16_t *b0 = buf, *b1 = buf + w, *b2 = buf + 2 * size_t(w);
      j = 0;
      for (; j + kCambiH <= w; j += kCambiH)
        Isa::store(o + j, cambi_mode3_v(Isa::load(b0 + j), Isa::load(b1 + j), Isa::load(b2 + j)));
      for (; j < w; ++j) o[j] = cambi_mode3(b0[j], b1[j], b2[j]);
    }
    line = line + 1 == 3 ? 0 : line + 1;
  }
}

// ---- Stage 3c: c-values ----------------------------------------------------------------------------------------------

// row[lo .. lo + n) += delta (modulo 2^16) in whole vectors; the last one adds 0 past lo + n (at most kCambiH - 1
// entries: inside the histogram's kCambiHistPad).
inline void cambi_range_add(uint16_t* p, int n, V delta) {
  for (; n >= kCambiH; n -= kCambiH, p += kCambiH) Isa::store(p, Isa::add16(Isa::load(p), delta));
  if (n > 0) {
    const V part = Isa::mullo16(delta, Isa::load(kCambiOnes + 64 - n));
    Isa::store(p, Isa::add16(Isa::load(p), part));
  }
}

// row[c] += delta * |[c - P, c + P] n [j0, j1]| for c in [lo, hi) = [j0 - P, j1 + P + 1] n [0, W): the boxes of a run
// of pixels j0 .. j1 of one key added at once (fewer accesses, none overlapping the previous one). Columns as signed
// 16-bit lanes: needs W + 2 P + 2 kCambiH < 2^15. Writes 0 past hi, inside kCambiHistPad.
inline void cambi_run_add(uint16_t* row, int j0, int j1, int P, int W, bool minus) {
  const int lo = j0 - P > 0 ? j0 - P : 0, hi = j1 + P + 1 < W ? j1 + P + 1 : W;
  alignas(64) uint16_t lane[kCambiH];
  for (int t = 0; t < kCambiH; ++t) lane[t] = uint16_t(lo + t);
  const V vp = Isa::set1_16(uint16_t(P)), v0 = Isa::set1_16(uint16_t(j0)), v1 = Isa::set1_16(uint16_t(j1));
  const V vhi = Isa::set1_16(uint16_t(hi)), one = Isa::set1_16(1), step = Isa::set1_16(uint16_t(kCambiH));
  V c = Isa::load(lane);
  for (int x = lo; x < hi; x += kCambiH, c = Isa::add16(c, step)) {
    const V n = Isa::add16(Isa::sub16(Isa::min_i16(Isa::add16(c, vp), v1), Isa::max_i16(Isa::sub16(c, vp), v0)), one);
    const V cnt = Isa::and_(n, Isa::cmpgt_i16(vhi, c));
    const V r = Isa::load(row + x);
    Isa::store(row + x, minus ? Isa::sub16(r, cnt) : Isa::add16(r, cnt));
  }
}

void cambi_c_values_simd(const CambiPlan& plan, const uint16_t* img, const uint8_t* mask, ptrdiff_t stride,
                         uint32_t w, uint32_t h, uint16_t pad, float* out, uint16_t* hist) {
  if (plan.band_empty || w < uint32_t(N)) return cambi_c_values(plan, img, mask, stride, w, h, pad, out, hist);
  const uint16_t base = plan.band_base, size = plan.band_size;
  std::memset(hist, 0, size_t(size) * w * sizeof(uint16_t));
  const int P = pad, W = int(w), H = int(h);
  auto key = [&](int r, int j) -> int {
    const ptrdiff_t at = ptrdiff_t(r) * stride + j;
    if (!mask[at]) return -1;
    const uint16_t k = uint16_t(img[at] - base);
    return k < size ? int(k) : -1;
  };
  const V plus = Isa::set1_16(1), minus = Isa::set1_16(0xffff);
  auto update = [&](int k, int j, V delta) {
    const int lo = j - P > 0 ? j - P : 0, hi = j + P + 1 < W ? j + P + 1 : W;
    cambi_range_add(hist + size_t(k) * w + lo, hi - lo, delta);
  };
  for (int r = 0; r < P; ++r)
    for (int j = 0; j < W; ++j) {
      const int k = key(r, j);
      if (k >= 0) update(k, j, plus);
    }
  const float* recip = cambi_reciprocals();
  const int nd = int(plan.num_diffs);
  const V vbase = Isa::set1(base), vsize = Isa::set1(size), vw = Isa::set1(W), zero = Isa::zero();
  const V minus_one = Isa::set1(-1);
  alignas(64) int32_t lane[N];
  for (int t = 0; t < N; ++t) lane[t] = t;
  const V iota = Isa::load(lane);
  V tvi[kCambiMaxDiffs], vlt[kCambiMaxDiffs], weight[kCambiMaxDiffs], dm[kCambiMaxDiffs], step[kCambiMaxDiffs];
  for (int d = 0; d < nd; ++d) {
    tvi[d] = Isa::set1(int32_t(plan.tvi_for_diff[d]) + 1);  // value <= tvi  <=>  tvi + 1 > value
    vlt[d] = Isa::set1(int32_t(plan.vlt_luma) - d - 1);     // value + d + 1 > vlt  <=>  value > vlt - d - 1
    weight[d] = Isa::set1(kCambiContrastWeights[d]);
    dm[d] = Isa::set1(d);                                    // compact - d - 1 >= 0  <=>  compact > d
    step[d] = Isa::set1((d + 1) * W);
  }
  // The keys of kCambiH pixels of row r as 16-bit lanes, 0xffff where the pixel takes no part.
  const V kbase = Isa::set1_16(base), klast = Isa::set1_16(uint16_t(size - 1)), none = Isa::set1_16(0xffff);
  auto keys = [&](int r, int j) {
    const ptrdiff_t at = ptrdiff_t(r) * stride + j;
    const V k = Isa::sub16(Isa::load(img + at), kbase);
    const V in = Isa::andnot(Isa::cmpeq16(Isa::load_u8_16(mask + at), zero), Isa::cmpeq16(Isa::min_u16(k, klast), k));
    return cambi_sel(in, k, none);
  };
  alignas(64) uint16_t kin[kCambiH], kout[kCambiH];
  const bool runs = W + 2 * P + 2 * kCambiH < 32768;
  // The updates of the lanes of `bits` (2 bits per lane) with keys k[]: runs of one key over adjacent lanes at once.
  auto apply = [&](const uint16_t* k, uint64_t b, int j, bool sub) {
    while (b) {
      const int t = __builtin_ctzll(b) >> 1;
      int t1 = t;
      while (t1 + 1 < kCambiH && ((b >> (2 * (t1 + 1))) & 1) && k[t1 + 1] == k[t]) ++t1;
      b &= t1 + 1 < kCambiH ? ~((uint64_t(1) << (2 * (t1 + 1))) - 1) : 0;
      if (k[t] == 0xffff) continue;
      if (runs && t1 > t) {
        cambi_run_add(hist + size_t(k[t]) * w, j + t, j + t1, P, W, sub);
      } else {
        for (int u = t; u <= t1; ++u) update(k[t], j + u, sub ? minus : plus);
      }
    }
  };
  for (int i = 0; i < H; ++i) {
    const bool enters = i + P < H, leaves = i - P - 1 >= 0;
    int j = 0;
    // Whole vectors of keys; only the columns where the entering and the leaving key differ are updated.
    for (; j + kCambiH <= W; j += kCambiH) {
      const V ka = enters ? keys(i + P, j) : none, ks = leaves ? keys(i - P - 1, j) : none;
      uint64_t bits = Isa::movemask8(Isa::andnot(Isa::cmpeq16(ka, ks), none));
      if (!bits) continue;
      Isa::store(kin, ka);
      Isa::store(kout, ks);
      apply(kout, bits, j, true);
      apply(kin, bits, j, false);
    }
    for (; j < W; ++j) {
      const int ka = enters ? key(i + P, j) : -1;
      const int ks = leaves ? key(i - P - 1, j) : -1;
      if (ka == ks) continue;
      if (ks >= 0) update(ks, j, minus);
      if (ka >= 0) update(ka, j, plus);
    }
    const uint16_t* irow = img + ptrdiff_t(i) * stride;
    const uint8_t* mrow = mask + ptrdiff_t(i) * stride;
    float* orow = out + size_t(i) * w;
    j = 0;
    for (; j + N <= W; j += N) {
      const V v = load_sample(irow + j, 0);
      const V compact = Isa::sub(v, vbase);
      const V valid = Isa::andnot(Isa::cmpeq_i32(load_sample(mrow + j, 0), zero),
                                  Isa::and_(Isa::cmpgt_i32(vsize, compact), Isa::cmpgt_i32(compact, minus_one)));
      Isa::F c = Isa::set1f(0.0f);
      const int v0 = irow[j];
      if (!Isa::any(Isa::xor_(Isa::and_(valid, Isa::cmpeq_i32(v, Isa::set1(v0))), minus_one))) {
        // Every lane masked and of the same value: its histogram rows are read as vectors.
        const int k0 = v0 - int(base), value = v0 + nd;
        const uint16_t* col = hist + size_t(k0) * w + j;
        const V p0 = Isa::load_u16(col);
        for (int d = 0; d < nd; ++d) {
          if (!(value <= int(plan.tvi_for_diff[d]) && value + d + 1 > int(plan.vlt_luma))) continue;
          const V p1 = Isa::load_u16(col + ptrdiff_t(d + 1) * W);
          const V p2 = k0 - d - 1 >= 0 ? Isa::load_u16(col - ptrdiff_t(d + 1) * W) : zero;
          const V p = Isa::max_i32(p1, p2);
          const V prod = Isa::mullo(Isa::mullo(weight[d], p0), p);
          const Isa::F val = Isa::mulf(Isa::cvt_i32_f(prod), Isa::gatherf(recip, Isa::add(p, p0)));
          c = Isa::selectf(Isa::cmpltf(c, val), val, c);
        }
      } else if (Isa::any(valid)) {
        // Invalid lanes read entry (0, column) and keep c = 0.
        const V at0 = Isa::add(Isa::mullo(Isa::and_(valid, compact), vw), Isa::add(Isa::set1(j), iota));
        const V p0 = Isa::gather_u16(hist, at0);
        const V value = Isa::add(v, Isa::set1(nd));
        for (int d = 0; d < nd; ++d) {
          const V cond = Isa::and_(valid, Isa::and_(Isa::cmpgt_i32(tvi[d], value), Isa::cmpgt_i32(value, vlt[d])));
          if (!Isa::any(cond)) continue;
          const V p1 = Isa::gather_u16(hist, cambi_sel(cond, Isa::add(at0, step[d]), at0));
          const V has2 = Isa::and_(cond, Isa::cmpgt_i32(compact, dm[d]));
          const V p2 = Isa::and_(has2, Isa::gather_u16(hist, cambi_sel(has2, Isa::sub(at0, step[d]), at0)));
          const V p = Isa::max_i32(p1, p2);  // p1 > p2 ? p1 : p2
          const V prod = Isa::mullo(Isa::mullo(weight[d], p0), p);
          const Isa::F r = Isa::gatherf(recip, Isa::and_(cond, Isa::add(p, p0)));
          const Isa::F val = Isa::mulf(Isa::cvt_i32_f(prod), r);
          c = Isa::selectf(Isa::andf(Isa::castf(cond), Isa::cmpltf(c, val)), val, c);  // val > c
        }
      }
      Isa::storef(orow + j, c);
    }
    for (; j < W; ++j) {
      orow[j] = 0.0f;
      if (!mrow[j]) continue;
      const int compact = int(irow[j]) - int(base);
      if (unsigned(compact) >= size) continue;
      const int value = int(irow[j]) + nd;
      const uint16_t p0 = hist[size_t(compact) * w + j];
      float c = 0.0f;
      for (int d = 0; d < nd; ++d) {
        if (value <= int(plan.tvi_for_diff[d]) && value + d + 1 > int(plan.vlt_luma)) {
          const int i1 = compact + d + 1, i2 = compact - d - 1;
          const uint16_t p1 = hist[size_t(i1) * w + j];
          const uint16_t p2 = i2 >= 0 ? hist[size_t(i2) * w + j] : uint16_t(0);
          float val;
          if (p1 > p2)
            val = float(kCambiContrastWeights[d] * p0 * p1) * recip[p1 + p0];
          else
            val = float(kCambiContrastWeights[d] * p0 * p2) * recip[p2 + p0];
          if (val > c) c = val;
        }
      }
      orow[j] = c;
    }
  }
}
