// SPDX-License-Identifier: LGPL-2.1-or-later
// The float features' kernel arithmetic (engine/hip/kernels/float_{vif,adm,motion}_impl.h) run on the CPU, kernel
// by kernel in the order float_{vif,adm,motion}_gpu.cpp queues them, against the CPU reference (cpu/float_*.h):
// every scale's image, every row sum and every score bit for bit, on synthetic frames of 8, 10 (plain and P010-like
// shifted words with noise below), 12 and 16 bits at odd and even sizes with padded rows, for option sets that
// exercise each code path (prescaling with every method, kernel scales, skip scale 0, each CSF mode, bypassed
// masking, p-norm, the motion filters, half size, chroma), and on pair c's first frames when ../shared is present.
// Needs no GPU (suite 'hip').
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/float_adm.h"
#include "cpu/float_motion.h"
#include "cpu/float_vif.h"
#include "float_test_frames.h"
#include "hip/kernels/float_adm_impl.h"
#include "hip/kernels/float_motion_impl.h"
#include "hip/kernels/float_vif_impl.h"
#include "support.h"

namespace vmafx {
namespace {

using test::FloatTestPlane;

VxPlane fx_plane(const cpu::Plane& p) {
  return VxPlane{p.data, uint64_t(p.stride), p.w, p.h, p.bytes, p.shift, p.step};
}

// float_*_picture_kernel: w x h floats, pitch w.
std::vector<float> picture(const cpu::Plane& p) {
  const VxPlane f = fx_plane(p);
  std::vector<float> out(size_t(p.w) * p.h);
  for (uint32_t y = 0; y < p.h; ++y)
    for (uint32_t x = 0; x < p.w; ++x) out[size_t(y) * p.w + x] = fx_picture_sample(fx_read_sample(f, x, y), p.bpc);
  return out;
}

// ---- float VIF, kernel by kernel (float_vif_gpu.cpp's order) ---------------------------------------------------

struct VifRun {
  std::vector<float> img[cpu::kFloatVifScales][2];
  cpu::FloatVifRowSums rows;
  cpu::FloatVifScores scores;
};

void emulate_vif(const cpu::Plane& ref, const cpu::Plane& dist, const cpu::FloatVifOptions& o, VifRun* e) {
  cpu::FloatVifGeometry g;
  ASSERT_OK(cpu::FloatVif::check(ref.w, ref.h, ref.bpc, o, &g));
  const std::vector<float> pic[2] = {picture(ref), picture(dist)};
  const int w0 = g.w[0], h0 = g.h[0];
  if (w0 != int(ref.w) || h0 != int(ref.h)) {  // float_vif_scale_kernel
    std::vector<int32_t> ci, ri;
    std::vector<float> cw, rw;
    int kx, ky;
    cpu::float_vif_scale_tables(o.prescale_method, int(ref.w), w0, &ci, &cw, &kx);
    cpu::float_vif_scale_tables(o.prescale_method, int(ref.h), h0, &ri, &rw, &ky);
    ASSERT_EQ(kx, ky);
    for (int c = 0; c < 2; ++c) {
      const float* src = pic[c].data();
      const size_t sp = ref.w;
      e->img[0][c].assign(size_t(w0) * h0, 0.0f);
      for (int y = 0; y < h0; ++y)
        for (int x = 0; x < w0; ++x) {
          float v;
          if (o.prescale_method == cpu::VifScaleMethod::nearest)
            v = src[size_t(ri[y]) * sp + size_t(ci[x])];
          else if (o.prescale_method == cpu::VifScaleMethod::bilinear)
            v = fvif_bilinear_px(src + size_t(ri[2 * y]) * sp, src + size_t(ri[2 * y + 1]) * sp, ci[2 * x],
                                 ci[2 * x + 1], cw[x], rw[y]);
          else
            v = fvif_interp_px(src, sp, &ci[size_t(kx) * x], &cw[size_t(kx) * x], &ri[size_t(kx) * y],
                               &rw[size_t(kx) * y], kx, o.prescale_method == cpu::VifScaleMethod::lanczos4);
          e->img[0][c][size_t(y) * w0 + x] = v;
        }
    }
  } else {
    e->img[0][0] = pic[0];
    e->img[0][1] = pic[1];
  }
  const FvifStat c = [&] {
    const cpu::FloatVifStatConsts k = cpu::float_vif_stat_consts(o.enhn_gain_limit, o.sigma_nsq);
    return FvifStat{k.sigma_nsq, k.enhn_gain_limit, k.sigma_max_inv};
  }();
  float num[cpu::kFloatVifScales] = {}, den[cpu::kFloatVifScales] = {};
  const unsigned start = o.skip_scale0 ? 1 : 0;
  for (unsigned s = 0; s < cpu::kFloatVifScales; ++s) {
    float taps[FVIF_MAX_TAPS];
    cpu::float_vif_filter(s, o.kernelscale, taps);
    const int fw = g.taps[s], w = g.w[s], h = g.h[s];
    if (s > 0) {  // float_vif_decimate_v_kernel, float_vif_decimate_h_kernel
      const int pw = g.w[s - 1], ph = g.h[s - 1];
      for (int k = 0; k < 2; ++k) {
        std::vector<float> tmp(size_t(pw) * h);
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < pw; ++x)
            tmp[size_t(y) * pw + x] = fvif_vertical1(taps, fw, e->img[s - 1][k].data(), pw, ph, x, 2 * y);
        e->img[s][k].assign(size_t(w) * h, 0.0f);
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x)
            e->img[s][k][size_t(y) * w + x] = fvif_horizontal(taps, fw, tmp.data() + size_t(y) * pw, pw, 2 * x);
      }
    }
    e->rows.num[s].clear();
    e->rows.den[s].clear();
    if (s < start) continue;
    std::vector<float> f[5];
    for (auto& v : f) v.assign(size_t(w) * h, 0.0f);
    for (int y = 0; y < h; ++y)  // float_vif_vertical_kernel
      for (int x = 0; x < w; ++x) {
        float v[5];
        fvif_vertical5(taps, fw, e->img[s][0].data(), e->img[s][1].data(), w, h, x, y, v);
        for (int k = 0; k < 5; ++k) f[k][size_t(y) * w + x] = v[k];
      }
    std::vector<float> pn(size_t(w) * h), pd(size_t(w) * h);
    for (int y = 0; y < h; ++y)  // float_vif_stat_kernel
      for (int x = 0; x < w; ++x) {
        float hv[5];
        for (int k = 0; k < 5; ++k) hv[k] = fvif_horizontal(taps, fw, f[k].data() + size_t(y) * w, w, x);
        fvif_stat(hv[0], hv[1], hv[2], hv[3], hv[4], c, &pn[size_t(y) * w + x], &pd[size_t(y) * w + x]);
      }
    for (int y = 0; y < h; ++y) {  // float_vif_rowsum_kernel
      e->rows.num[s].push_back(fx_row_sum(pn.data() + size_t(y) * w, w));
      e->rows.den[s].push_back(fx_row_sum(pd.data() + size_t(y) * w, w));
    }
    num[s] = cpu::float_vif_sum_rows(e->rows.num[s].data(), h);
    den[s] = cpu::float_vif_sum_rows(e->rows.den[s].data(), h);
  }
  cpu::float_vif_scores(num, den, o, &e->scores);
}

void expect_same_vif(const cpu::FloatVifScores& a, const cpu::FloatVifScores& b) {
  double x[cpu::kFloatVifOutputs], y[cpu::kFloatVifOutputs];
  cpu::float_vif_outputs(a, x);
  cpu::float_vif_outputs(b, y);
  for (unsigned k = 0; k < cpu::kFloatVifOutputs; ++k) EXPECT_EQ(x[k], y[k]) << cpu::kFloatVifOutputNames[k];
}

// ---- float ADM, kernel by kernel (float_adm_gpu.cpp's order) ---------------------------------------------------

struct AdmRun {
  cpu::FloatAdmRowSums rows;
  cpu::FloatAdmScores scores;
};

void emulate_adm(const cpu::Plane& ref, const cpu::Plane& dist, const cpu::FloatAdmOptions& o, AdmRun* e) {
  ASSERT_OK(cpu::FloatAdm::check(ref.w, ref.h, ref.bpc, o));
  std::vector<float> src[2] = {picture(ref), picture(dist)};
  int iw = int(ref.w), ih = int(ref.h);
  float num[cpu::kFloatAdmScales] = {}, den[cpu::kFloatAdmScales] = {}, aim[cpu::kFloatAdmScales] = {};
  const float cos1 = cpu::float_adm_cos_1deg_sq();
  for (unsigned s = 0; s < cpu::kFloatAdmScales; ++s) {
    const bool skip = s == 0 && o.skip_scale0;
    const int bw = (iw + 1) / 2, bh = (ih + 1) / 2;
    const size_t bn = size_t(bw) * bh;
    // Bands [stream][a, h, v, d].
    std::vector<float> band[2][4];
    for (int z = 0; z < 2; ++z) {
      std::vector<float> lo(size_t(iw) * bh), hi(size_t(iw) * bh);
      for (int i = 0; i < bh; ++i)  // float_adm_dwt_v_kernel
        for (int j = 0; j < iw; ++j) {
          float t[4];
          for (int k = 0; k < 4; ++k) t[k] = src[z][size_t(fadm_dwt_tap(i, k, ih)) * iw + j];
          lo[size_t(i) * iw + j] = fadm_lo(t[0], t[1], t[2], t[3]);
          hi[size_t(i) * iw + j] = fadm_hi(t[0], t[1], t[2], t[3]);
        }
      for (auto& b : band[z]) b.assign(bn, 0.0f);
      for (int i = 0; i < bh; ++i)  // float_adm_dwt_h_kernel
        for (int j = 0; j < bw; ++j) {
          int jx[4];
          for (int k = 0; k < 4; ++k) jx[k] = fadm_dwt_tap(j, k, iw);
          const float* l = lo.data() + size_t(i) * iw;
          const float* hh = hi.data() + size_t(i) * iw;
          const size_t q = size_t(i) * bw + j;
          band[z][0][q] = fadm_lo(l[jx[0]], l[jx[1]], l[jx[2]], l[jx[3]]);
          band[z][2][q] = fadm_hi(l[jx[0]], l[jx[1]], l[jx[2]], l[jx[3]]);
          band[z][1][q] = fadm_lo(hh[jx[0]], hh[jx[1]], hh[jx[2]], hh[jx[3]]);
          band[z][3][q] = fadm_hi(hh[jx[0]], hh[jx[1]], hh[jx[2]], hh[jx[3]]);
        }
    }
    for (int t = 0; t < 3; ++t) {
      e->rows.num[s][t].clear();
      e->rows.aim[s][t].clear();
      e->rows.den[s][t].clear();
    }
    if (skip) {
      den[s] = static_cast<float>(1e-10);
    } else {
      float rf[3];
      cpu::float_adm_csf_factors(int(s), o, rf);
      // r, a, csf_a, flt_a, csf_r, flt_r: [kind][band] planes (float_adm_decouple_kernel over the tap rectangle).
      std::vector<float> pl[6][3];
      for (auto& k : pl)
        for (auto& b : k) b.assign(bn, 0.0f);
      const cpu::FloatAdmRect tr = cpu::float_adm_tap_rect(bw, bh);
      for (int i = tr.top; i < tr.bottom; ++i)
        for (int j = tr.left; j < tr.right; ++j) {
          const size_t q = size_t(i) * bw + j;
          float r[3], a[3];
          fadm_decouple_px(band[0][1][q], band[0][2][q], band[0][3][q], band[1][1][q], band[1][2][q], band[1][3][q],
                           o.enhn_gain_limit, cos1, r, a);
          for (int t = 0; t < 3; ++t) {
            pl[0][t][q] = r[t];
            pl[1][t][q] = a[t];
            pl[2][t][q] = rf[t] * a[t];
            pl[3][t][q] = fadm_flt(pl[2][t][q]);
            pl[4][t][q] = rf[t] * r[t];
            pl[5][t][q] = fadm_flt(pl[4][t][q]);
          }
        }
      auto cb = [&](int kind) {
        return FadmConstBands3{{pl[kind][0].data(), pl[kind][1].data(), pl[kind][2].data()}};
      };
      const cpu::FloatAdmRect sr = cpu::float_adm_score_rect(bw, bh);
      const int n = sr.bottom - sr.top, rwid = sr.right - sr.left;
      std::vector<float> out[9];
      for (auto& v : out) v.assign(size_t(n) * rwid, 0.0f);
      for (int i = sr.top; i < sr.bottom; ++i)  // float_adm_cm_kernel
        for (int j = sr.left; j < sr.right; ++j) {
          const size_t q = size_t(i) * bw + j, u = size_t(i - sr.top) * rwid + size_t(j - sr.left);
          const float thr_a = o.bypass_cm ? 0.0f : fadm_cm_thresh(cb(2), cb(3), bw, bw, bh, i, j);
          const float thr_r = o.bypass_cm ? 0.0f : fadm_cm_thresh(cb(4), cb(5), bw, bw, bh, i, j);
          for (int t = 0; t < 3; ++t) {
            out[t][u] = fadm_cm_value(pl[0][t][q], rf[t], thr_a, o.p_norm);
            out[3 + t][u] = fadm_cm_value(pl[1][t][q], rf[t], thr_r, o.p_norm);
            out[6 + t][u] = fadm_den_value(band[0][1 + t][q], rf[t], o.p_norm);
          }
        }
      for (int t = 0; t < 3; ++t)  // float_adm_rowsum_kernel
        for (int y = 0; y < n; ++y) {
          e->rows.num[s][t].push_back(fx_row_sum(out[t].data() + size_t(y) * rwid, rwid));
          e->rows.aim[s][t].push_back(fx_row_sum(out[3 + t].data() + size_t(y) * rwid, rwid));
          e->rows.den[s][t].push_back(fx_row_sum(out[6 + t].data() + size_t(y) * rwid, rwid));
        }
      const float* nr[3] = {e->rows.num[s][0].data(), e->rows.num[s][1].data(), e->rows.num[s][2].data()};
      const float* ar[3] = {e->rows.aim[s][0].data(), e->rows.aim[s][1].data(), e->rows.aim[s][2].data()};
      const float* dr[3] = {e->rows.den[s][0].data(), e->rows.den[s][1].data(), e->rows.den[s][2].data()};
      num[s] = cpu::float_adm_scale_total(nr, n, rwid, n, o.noise_weight, o.p_norm);
      aim[s] = cpu::float_adm_scale_total(ar, n, rwid, n, 0.0, o.p_norm);
      den[s] = cpu::float_adm_scale_total(dr, n, rwid, n, o.noise_weight, o.p_norm);
    }
    src[0] = band[0][0];
    src[1] = band[1][0];
    iw = bw;
    ih = bh;
  }
  cpu::float_adm_combine(num, den, aim, ref.w, ref.h, o, &e->scores);
}

void expect_same_adm(const cpu::FloatAdmScores& a, const cpu::FloatAdmScores& b) {
  double x[cpu::kFloatAdmOutputs], y[cpu::kFloatAdmOutputs];
  cpu::float_adm_outputs(a, x);
  cpu::float_adm_outputs(b, y);
  for (unsigned k = 0; k < cpu::kFloatAdmOutputs; ++k) EXPECT_EQ(x[k], y[k]) << cpu::kFloatAdmOutputNames[k];
}

// ---- float motion (float_motion_gpu.cpp's order) ----------------------------------------------------------------

struct MotionPlaneState {
  std::vector<float> blur[2], half[2];
};

// One plane of one frame: blur (and half size) into `parity`, and the score against the other parity when `prev`.
double emulate_motion_plane(const cpu::Plane& p, const cpu::FloatMotionOptions& o, MotionPlaneState* st,
                            unsigned parity, bool prev, std::vector<float>* blurred) {
  const float* taps;
  const int fw = cpu::float_motion_filter(o.filter_size, &taps);
  const int w = int(p.w), h = int(p.h);
  const std::vector<float> pic = picture(p);
  std::vector<float> tmp(size_t(w) * h);
  for (int y = 0; y < h; ++y)  // float_motion_blur_v_kernel
    for (int x = 0; x < w; ++x) tmp[size_t(y) * w + x] = fvif_vertical1(taps, fw, pic.data(), w, h, x, y);
  std::vector<float>& b = st->blur[parity];
  b.assign(size_t(w) * h, 0.0f);
  for (int y = 0; y < h; ++y)  // float_motion_blur_h_kernel
    for (int x = 0; x < w; ++x) b[size_t(y) * w + x] = fvif_horizontal(taps, fw, tmp.data() + size_t(y) * w, w, x);
  if (blurred) *blurred = b;
  const int hw = cpu::float_motion_half(w), hh = cpu::float_motion_half(h);
  if (o.add_scale1) {  // float_motion_half_kernel
    std::vector<int32_t> ci, ri;
    std::vector<float> cw, rw;
    int k;
    cpu::float_vif_scale_tables(cpu::VifScaleMethod::bilinear, w, hw, &ci, &cw, &k);
    cpu::float_vif_scale_tables(cpu::VifScaleMethod::bilinear, h, hh, &ri, &rw, &k);
    st->half[parity].assign(size_t(hw) * hh, 0.0f);
    for (int y = 0; y < hh; ++y)
      for (int x = 0; x < hw; ++x)
        st->half[parity][size_t(y) * hw + x] = fvif_bilinear_px(b.data() + size_t(ri[2 * y]) * w,
                                                                b.data() + size_t(ri[2 * y + 1]) * w, ci[2 * x],
                                                                ci[2 * x + 1], cw[x], rw[y]);
  }
  if (!prev) return 0.0;
  std::vector<float> rows(h);  // float_motion_rowsad_kernel
  for (int y = 0; y < h; ++y)
    rows[y] = fmot_row_sad(st->blur[parity ^ 1].data() + size_t(y) * w, b.data() + size_t(y) * w, w);
  const float s0 = cpu::float_motion_mean(rows.data(), w, h);
  if (!o.add_scale1) return s0;
  rows.assign(hh, 0.0f);
  for (int y = 0; y < hh; ++y)
    rows[y] = fmot_row_sad(st->half[parity ^ 1].data() + size_t(y) * hw, st->half[parity].data() + size_t(y) * hw, hw);
  const float s1 = cpu::float_motion_mean(rows.data(), hw, hh);
  return s0 + s1;
}

// ---- the cases ---------------------------------------------------------------------------------------------------

struct Format {
  const char* name;
  unsigned bpc;
  uint8_t word, shift;
};
const Format kFormats[] = {{"8-bit", 8, 1, 0},   {"10-bit", 10, 2, 0}, {"10-bit P010-like", 10, 2, 6},
                           {"12-bit", 12, 2, 0}, {"16-bit", 16, 2, 0}};
const uint32_t kSizes[][2] = {{67, 45}, {96, 64}};

std::vector<std::pair<std::string, cpu::FloatVifOptions>> vif_option_sets() {
  std::vector<std::pair<std::string, cpu::FloatVifOptions>> v;
  v.push_back({"default", {}});
  cpu::FloatVifOptions o;
  o.kernelscale = 0.5;
  o.enhn_gain_limit = 1.0;
  o.sigma_nsq = 1.0;
  o.skip_scale0 = true;
  o.scale_min_val[0] = 0.9;
  v.push_back({"ks 0.5, egl 1, snsq 1, skip scale 0", o});
  const cpu::VifScaleMethod methods[] = {cpu::VifScaleMethod::nearest, cpu::VifScaleMethod::bilinear,
                                         cpu::VifScaleMethod::bicubic, cpu::VifScaleMethod::lanczos4};
  for (cpu::VifScaleMethod m : methods) {
    cpu::FloatVifOptions p;
    p.prescale = 1.3;
    p.prescale_method = m;
    v.push_back({std::string("prescale 1.3 ") + cpu::vif_scale_method_name(m), p});
  }
  cpu::FloatVifOptions q;
  q.prescale = 0.8;
  q.prescale_method = cpu::VifScaleMethod::lanczos4;
  v.push_back({"prescale 0.8 lanczos4", q});
  return v;
}

std::vector<std::pair<std::string, cpu::FloatAdmOptions>> adm_option_sets() {
  std::vector<std::pair<std::string, cpu::FloatAdmOptions>> v;
  v.push_back({"default", {}});
  cpu::FloatAdmOptions a;
  a.csf_mode = 1;
  a.enhn_gain_limit = 1.0;
  a.csf_scale = 2.0;
  v.push_back({"barten csf, egl 1", a});
  cpu::FloatAdmOptions b;
  b.csf_mode = 2;
  b.p_norm = 2.5;
  b.norm_view_dist = 5.0;
  v.push_back({"dlm csf, p 2.5", b});
  cpu::FloatAdmOptions c;
  c.bypass_cm = 1;
  c.skip_scale0 = true;
  c.skip_aim_scale = 2;
  c.f1[1] = 0.5;
  c.noise_weight = 0.0;
  c.adm3_apply_hm = true;
  v.push_back({"bypass cm, skip scale 0, f1s1, nw 0, hm", c});
  return v;
}

TEST(HipFloatImpl, VifKernelsEqualCpuReference) {
  size_t cases = 0;
  for (const Format& f : kFormats)
    for (const auto& sz : kSizes)
      for (const auto& [oname, opts] : vif_option_sets()) {
        SCOPED_TRACE(std::string(f.name) + " " + std::to_string(sz[0]) + "x" + std::to_string(sz[1]) + " " + oname);
        cpu::FloatVif vif;
        ASSERT_OK(vif.init(sz[0], sz[1], f.bpc, opts));
        for (uint32_t i = 0; i < 2; ++i) {
          FloatTestPlane r, d;
          test::float_test_frame(sz[0], sz[1], f.bpc, f.word, f.shift, 3, i, &r, &d);
          cpu::FloatVifScores want;
          cpu::FloatVifRowSums want_rows;
          ASSERT_OK(vif.compute(r.cpu(), d.cpu(), &want, &want_rows));
          VifRun got;
          emulate_vif(r.cpu(), d.cpu(), opts, &got);
          for (unsigned s = 0; s < cpu::kFloatVifScales; ++s) {
            const cpu::FloatVifGeometry& g = vif.geometry();
            for (int c = 0; c < 2; ++c) {
              const float* img = vif.image(s, c == 1);
              size_t bad = 0;
              for (int y = 0; y < g.h[s]; ++y)
                for (int x = 0; x < g.w[s]; ++x)
                  bad += img[size_t(y) * vif.image_stride() + x] != got.img[s][c][size_t(y) * g.w[s] + x];
              EXPECT_EQ(bad, 0u) << "scale " << s << (c ? " dist" : " ref") << " image";
            }
            EXPECT_EQ(got.rows.num[s], want_rows.num[s]) << "scale " << s << " num rows";
            EXPECT_EQ(got.rows.den[s], want_rows.den[s]) << "scale " << s << " den rows";
          }
          expect_same_vif(got.scores, want);
          ++cases;
        }
      }
  std::printf("%zu float_vif frames equal stage by stage\n", cases);
}

TEST(HipFloatImpl, AdmKernelsEqualCpuReference) {
  size_t cases = 0;
  for (const Format& f : kFormats)
    for (const auto& sz : kSizes)
      for (const auto& [oname, opts] : adm_option_sets()) {
        SCOPED_TRACE(std::string(f.name) + " " + std::to_string(sz[0]) + "x" + std::to_string(sz[1]) + " " + oname);
        cpu::FloatAdm adm;
        ASSERT_OK(adm.init(sz[0], sz[1], f.bpc, opts));
        for (uint32_t i = 0; i < 2; ++i) {
          FloatTestPlane r, d;
          test::float_test_frame(sz[0], sz[1], f.bpc, f.word, f.shift, 3, i, &r, &d);
          cpu::FloatAdmScores want;
          cpu::FloatAdmRowSums want_rows;
          ASSERT_OK(adm.compute(r.cpu(), d.cpu(), &want, &want_rows));
          AdmRun got;
          emulate_adm(r.cpu(), d.cpu(), opts, &got);
          for (unsigned s = 0; s < cpu::kFloatAdmScales; ++s)
            for (int t = 0; t < 3; ++t) {
              EXPECT_EQ(got.rows.num[s][t], want_rows.num[s][t]) << "scale " << s << " band " << t << " num";
              EXPECT_EQ(got.rows.aim[s][t], want_rows.aim[s][t]) << "scale " << s << " band " << t << " aim";
              EXPECT_EQ(got.rows.den[s][t], want_rows.den[s][t]) << "scale " << s << " band " << t << " den";
            }
          expect_same_adm(got.scores, want);
          ++cases;
        }
      }
  std::printf("%zu float_adm frames equal row sum by row sum\n", cases);
}

TEST(HipFloatImpl, MotionKernelsEqualCpuReference) {
  std::vector<std::pair<std::string, cpu::FloatMotionOptions>> sets;
  sets.push_back({"default", {}});
  cpu::FloatMotionOptions a;
  a.filter_size = 3;
  sets.push_back({"3-tap", a});
  cpu::FloatMotionOptions b;
  b.filter_size = 1;
  b.add_scale1 = true;
  sets.push_back({"identity filter, half size", b});
  cpu::FloatMotionOptions c;
  c.add_uv = true;
  sets.push_back({"chroma", c});
  size_t cases = 0;
  for (const Format& f : kFormats)
    for (const auto& sz : kSizes)
      for (const auto& [oname, opts] : sets) {
        SCOPED_TRACE(std::string(f.name) + " " + std::to_string(sz[0]) + "x" + std::to_string(sz[1]) + " " + oname);
        cpu::FloatMotion motion;
        ASSERT_OK(motion.init(sz[0], sz[1], f.bpc, Chroma::k420, opts));
        MotionPlaneState st[3];
        std::vector<cpu::FloatMotionOut> ready;
        for (uint32_t i = 0; i < 4; ++i) {
          FloatTestPlane r, d, u, v, unused;
          test::float_test_frame(sz[0], sz[1], f.bpc, f.word, f.shift, 3, i, &r, &d);
          test::float_test_frame(sz[0] / 2, sz[1] / 2, f.bpc, f.word, f.shift, 1, i + 5, &u, &v);
          const cpu::Plane pu = u.cpu(), pv = v.cpu();
          const cpu::Plane* uv[2] = {&pu, &pv};
          ASSERT_OK(motion.compute(i, r.cpu(), uv, &ready));
          std::vector<float> blurred;
          double score = emulate_motion_plane(r.cpu(), opts, &st[0], i & 1, i > 0, &blurred);
          if (opts.add_uv) {
            score += emulate_motion_plane(pu, opts, &st[1], i & 1, i > 0, nullptr);
            score += emulate_motion_plane(pv, opts, &st[2], i & 1, i > 0, nullptr);
          }
          EXPECT_EQ(score, motion.last_score()) << "frame " << i;
          size_t bad = 0;
          for (size_t k = 0; k < blurred.size(); ++k) bad += blurred[k] != motion.blurred()[k];
          EXPECT_EQ(bad, 0u) << "frame " << i << " blurred luma";
          ++cases;
        }
      }
  std::printf("%zu float_motion frames equal\n", cases);
}

// Pair c (odd size, real content): the default options, first frames.
TEST(HipFloatImpl, PublicPairCEqualsCpuReference) {
  const test::Pair* p = test::find_public_pair("c_321x241_8b");
  ASSERT_NE(p, nullptr);
  test::PairClips c;
  if (!test::open_pair_clips(*p, &c)) GTEST_SKIP() << "pair c is not present in ../shared/testdata";
  cpu::FloatVif vif;
  cpu::FloatAdm adm;
  ASSERT_OK(vif.init(p->width, p->height, 8, {}));
  ASSERT_OK(adm.init(p->width, p->height, 8, {}));
  for (size_t i = 0; i < 2; ++i) {
    const cpu::Plane r = cpu::luma_plane(c.ref.frame(i)), d = cpu::luma_plane(c.dist.frame(i));
    cpu::FloatVifScores vw;
    ASSERT_OK(vif.compute(r, d, &vw));
    VifRun vg;
    emulate_vif(r, d, {}, &vg);
    expect_same_vif(vg.scores, vw);
    cpu::FloatAdmScores aw;
    ASSERT_OK(adm.compute(r, d, &aw));
    AdmRun ag;
    emulate_adm(r, d, {}, &ag);
    expect_same_adm(ag.scores, aw);
  }
}

}  // namespace
}  // namespace vmafx
