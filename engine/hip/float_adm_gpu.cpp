// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/float_adm_gpu.h"

#include <cassert>
#include <cstring>
#include <string>

#include "hip/kernels/float_adm_impl.h"

namespace vmafx::hip {

static_assert(FloatAdmGpu::kBlockX == FADM_BLOCK_X && FloatAdmGpu::kBlockY == FADM_BLOCK_Y &&
                  FloatAdmGpu::kRowThreads == FADM_ROW_THREADS,
              "FloatAdmGpu's launch geometry must match kernels/float_adm_impl.h");

namespace {

size_t round64(size_t n) { return (n + 63) / 64 * 64; }

Dim3 grid_2d(uint32_t w, uint32_t h, unsigned z) {
  return {(w + FADM_BLOCK_X - 1) / FADM_BLOCK_X, (h + FADM_BLOCK_Y - 1) / FADM_BLOCK_Y, z};
}

// The band planes: a of ref and dist for two scales in turn, then h, v, d of ref, dist, r, a, csf_a, flt_a, csf_r,
// flt_r, then the nine contribution planes.
enum : unsigned {
  kRefA0 = 0, kDistA0 = 1, kRefA1 = 2, kDistA1 = 3,
  kRef = 4, kDist = 7, kR = 10, kA = 13, kCsfA = 16, kFltA = 19, kCsfR = 22, kFltR = 25, kOut = 28,
  kPlanes = 37,
};

}  // namespace

Status FloatAdmGpu::create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc,
                           const cpu::FloatAdmOptions& options, unsigned slots, std::unique_ptr<FloatAdmGpu>* out,
                           const ModuleOptions& module_options) {
  if (!out) return {Errc::invalid_argument, "float_adm (gpu): no output"};
  out->reset();
  if (!device) return {Errc::invalid_argument, "float_adm (gpu): no device"};
  if (slots == 0) return {Errc::invalid_argument, "float_adm (gpu): 0 slots"};
  VMAFX_TRY(cpu::FloatAdm::check(w, h, bpc, options));

  std::unique_ptr<FloatAdmGpu> v(new FloatAdmGpu());
  v->w_ = w;
  v->h_ = h;
  v->bpc_ = bpc;
  v->opts_ = options;
  v->slots_ = slots;
  int iw = int(w), ih = int(h);
  for (unsigned s = 0; s < cpu::kFloatAdmScales; ++s) {
    v->geo_.w[s] = (iw + 1) / 2;
    v->geo_.h[s] = (ih + 1) / 2;
    iw = v->geo_.w[s];
    ih = v->geo_.h[s];
    cpu::float_adm_csf_factors(int(s), options, v->rfactor_[s]);
    const cpu::FloatAdmRect r = cpu::float_adm_score_rect(v->geo_.w[s], v->geo_.h[s]);
    v->row_offset_[s] = v->row_floats_;
    v->row_floats_ += 9 * size_t(r.bottom - r.top);
  }
  v->cos_1deg_sq_ = cpu::float_adm_cos_1deg_sq();
  VMAFX_TRY(Module::load(device, "float_adm", &v->module_, module_options));
  const std::pair<const char*, Kernel*> kernels[] = {
      {"float_adm_picture_kernel", &v->picture_.kernel}, {"float_adm_dwt_v_kernel", &v->dwt_v_.kernel},
      {"float_adm_dwt_h_kernel", &v->dwt_h_.kernel},     {"float_adm_decouple_kernel", &v->decouple_.kernel},
      {"float_adm_cm_kernel", &v->cm_.kernel},           {"float_adm_rowsum_kernel", &v->rowsum_.kernel}};
  for (const auto& k : kernels) VMAFX_TRY(v->module_.function(k.first, k.second));

  v->pic_pitch_ = round64(w);
  v->band_pitch_ = round64(size_t(v->geo_.w[0]));
  v->band_plane_ = v->band_pitch_ * size_t(v->geo_.h[0]);
  VMAFX_TRY(DeviceBuffer::create(device, 2 * v->pic_pitch_ * h * sizeof(float), &v->pic_));
  VMAFX_TRY(DeviceBuffer::create(device, 4 * v->pic_pitch_ * size_t(v->geo_.h[0]) * sizeof(float), &v->tmp_));
  VMAFX_TRY(DeviceBuffer::create(device, kPlanes * v->band_plane_ * sizeof(float), &v->bands_));
  VMAFX_TRY(DeviceBuffer::create(device, v->row_floats_ * sizeof(float), &v->rows_));
  VMAFX_TRY(PinnedBuffer::create(device, size_t(slots) * v->row_floats_ * sizeof(float), &v->readback_));
  std::memset(v->readback_.data(), 0, v->readback_.size());
  v->enqueued_.assign(slots, 0);
  v->device_ = std::move(device);
  *out = std::move(v);
  return Status::ok();
}

Status FloatAdmGpu::check_plane(const char* what, const DevicePlane& p) const {
  return check_device_plane(p, w_, h_, bpc_, std::string("float_adm (gpu): ") + what + " plane");
}

Status FloatAdmGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  // The pipeline made the frame for this geometry and checked its planes.
  assert(frame.bpc == bpc_ && device_plane_fits(frame.ref[0], w_, h_, bpc_) &&
         device_plane_fits(frame.dist[0], w_, h_, bpc_));
  return launch(frame.ref[0], frame.dist[0], slot);
}

Status FloatAdmGpu::enqueue_planes(const DevicePlane& ref, const DevicePlane& dist, unsigned slot) {
  if (!device_) return {Errc::invalid_argument, "float_adm (gpu): not created"};
  if (slot >= slots_)
    return {Errc::invalid_argument,
            "float_adm (gpu): slot " + std::to_string(slot) + " of " + std::to_string(slots_) + " slots"};
  VMAFX_TRY(check_plane("reference", ref));
  VMAFX_TRY(check_plane("distorted", dist));
  return launch(ref, dist, slot);
}

Status FloatAdmGpu::launch(const DevicePlane& ref, const DevicePlane& dist, unsigned slot) {
  assert(device_ && slot < slots_);
  if (device_->failed()) return device_->status();
  enqueued_[slot] = 0;
  const Dim3 block{FADM_BLOCK_X, FADM_BLOCK_Y, 1};

  FadmPictureArgs pa{};
  pa.ref = ref;
  pa.dist = dist;
  pa.bpc = bpc_;
  pa.out_ref = pic_.as<float>();
  pa.out_dist = pic_.as<float>() + pic_pitch_ * h_;
  pa.out_pitch = pic_pitch_;
  pa.w = w_;
  pa.h = h_;
  VMAFX_TRY(device_->launch(picture_, grid_2d(w_, h_, 2), block, 0, pa));

  const float* src[2] = {pa.out_ref, pa.out_dist};
  size_t src_pitch = pic_pitch_;
  uint32_t iw = w_, ih = h_;
  float* rows = rows_.as<float>();
  const size_t tmp_plane = pic_pitch_ * size_t(geo_.h[0]);
  auto bands3 = [&](unsigned first) {
    FadmBands3 b;
    for (int t = 0; t < 3; ++t) b.b[t] = plane(first + unsigned(t));
    return b;
  };
  auto cbands3 = [&](unsigned first) {
    FadmConstBands3 b;
    for (int t = 0; t < 3; ++t) b.b[t] = plane(first + unsigned(t));
    return b;
  };
  for (unsigned s = 0; s < cpu::kFloatAdmScales; ++s) {
    const bool skip = s == 0 && opts_.skip_scale0;
    const uint32_t bw = uint32_t(geo_.w[s]), bh = uint32_t(geo_.h[s]);
    FadmDwtArgs da{};
    for (unsigned z = 0; z < 2; ++z) {
      da.src[z] = src[z];
      da.lo[z] = tmp_.as<float>() + z * tmp_plane;
      da.hi[z] = tmp_.as<float>() + (2 + z) * tmp_plane;
      da.a[z] = plane((s & 1 ? kRefA1 : kRefA0) + z);
      da.h[z] = plane((z ? kDist : kRef) + 0);
      da.v[z] = plane((z ? kDist : kRef) + 1);
      da.d[z] = plane((z ? kDist : kRef) + 2);
    }
    da.src_pitch = src_pitch;
    da.tmp_pitch = pic_pitch_;
    da.band_pitch = band_pitch_;
    da.w = iw;
    da.h_in = ih;
    da.lo_only = skip ? 1 : 0;
    {
      VMAFX_TRY(device_->launch(dwt_v_, grid_2d(iw, bh, 2), block, 0, da));
      VMAFX_TRY(device_->launch(dwt_h_, grid_2d(bw, bh, 2), block, 0, da));
    }
    if (!skip) {
      const cpu::FloatAdmRect tr = cpu::float_adm_tap_rect(int(bw), int(bh));
      FadmDecoupleArgs dc{};
      dc.ref = cbands3(kRef);
      dc.dist = cbands3(kDist);
      dc.r = bands3(kR);
      dc.a = bands3(kA);
      dc.csf_a = bands3(kCsfA);
      dc.flt_a = bands3(kFltA);
      dc.csf_r = bands3(kCsfR);
      dc.flt_r = bands3(kFltR);
      dc.pitch = band_pitch_;
      dc.egl = opts_.enhn_gain_limit;
      for (int t = 0; t < 3; ++t) dc.rfactor[t] = rfactor_[s][t];
      dc.cos_1deg_sq = cos_1deg_sq_;
      dc.left = tr.left;
      dc.top = tr.top;
      dc.right = tr.right;
      dc.bottom = tr.bottom;
      VMAFX_TRY(device_->launch(decouple_, grid_2d(uint32_t(tr.right - tr.left), uint32_t(tr.bottom - tr.top), 1),
                                block, 0, dc));
      const cpu::FloatAdmRect sr = cpu::float_adm_score_rect(int(bw), int(bh));
      const uint32_t rw = uint32_t(sr.right - sr.left), n = uint32_t(sr.bottom - sr.top);
      FadmCmArgs cm{};
      cm.ref = cbands3(kRef);
      cm.r = cbands3(kR);
      cm.a = cbands3(kA);
      cm.csf_a = cbands3(kCsfA);
      cm.flt_a = cbands3(kFltA);
      cm.csf_r = cbands3(kCsfR);
      cm.flt_r = cbands3(kFltR);
      cm.pitch = band_pitch_;
      for (unsigned k = 0; k < 9; ++k) cm.out[k] = plane(kOut + k);
      cm.out_pitch = band_pitch_;
      cm.p_norm = opts_.p_norm;
      for (int t = 0; t < 3; ++t) cm.rfactor[t] = rfactor_[s][t];
      cm.w = int32_t(bw);
      cm.h = int32_t(bh);
      cm.left = sr.left;
      cm.top = sr.top;
      cm.right = sr.right;
      cm.bottom = sr.bottom;
      cm.bypass_cm = opts_.bypass_cm ? 1 : 0;
      VMAFX_TRY(device_->launch(cm_, grid_2d(rw, n, 1), block, 0, cm));
      FadmRowArgs ra{};
      for (unsigned k = 0; k < 9; ++k) ra.in[k] = plane(kOut + k);
      ra.pitch = band_pitch_;
      ra.out = rows + row_offset_[s];
      ra.rw = rw;
      ra.n = n;
      VMAFX_TRY(device_->launch(rowsum_, Dim3{(n + FADM_ROW_THREADS - 1) / FADM_ROW_THREADS, 9, 1},
                                Dim3{FADM_ROW_THREADS, 1, 1}, 0, ra));
    }
    src[0] = da.a[0];
    src[1] = da.a[1];
    src_pitch = band_pitch_;
    iw = bw;
    ih = bh;
  }
  VMAFX_TRY(device_->copy_async(CopyKind::device_to_host, readback_.data() + slot * row_floats_ * sizeof(float), rows,
                                row_floats_ * sizeof(float)));
  enqueued_[slot] = 1;
  return Status::ok();
}

Status FloatAdmGpu::scores(unsigned slot, cpu::FloatAdmScores* out, cpu::FloatAdmRowSums* row_sums) const {
  if (!device_) return {Errc::invalid_argument, "float_adm (gpu): not created"};
  if (!out) return {Errc::invalid_argument, "float_adm (gpu): no output"};
  if (slot >= slots_)
    return {Errc::invalid_argument,
            "float_adm (gpu): slot " + std::to_string(slot) + " of " + std::to_string(slots_) + " slots"};
  if (!enqueued_[slot])
    return {Errc::invalid_argument, "float_adm (gpu): nothing was queued in slot " + std::to_string(slot)};
  if (device_->failed()) return device_->status();
  const float* all = reinterpret_cast<const float*>(readback_.data()) + slot * row_floats_;
  float num[cpu::kFloatAdmScales] = {}, den[cpu::kFloatAdmScales] = {}, aim[cpu::kFloatAdmScales] = {};
  for (unsigned s = 0; s < cpu::kFloatAdmScales; ++s) {
    if (row_sums)
      for (int t = 0; t < 3; ++t) {
        row_sums->num[s][t].clear();
        row_sums->aim[s][t].clear();
        row_sums->den[s][t].clear();
      }
    if (s == 0 && opts_.skip_scale0) {
      den[s] = static_cast<float>(1e-10);
      continue;
    }
    const cpu::FloatAdmRect sr = cpu::float_adm_score_rect(geo_.w[s], geo_.h[s]);
    const int n = sr.bottom - sr.top, rw = sr.right - sr.left;
    const float* r = all + row_offset_[s];
    const float* num_rows[3] = {r, r + n, r + 2 * n};
    const float* aim_rows[3] = {r + 3 * n, r + 4 * n, r + 5 * n};
    const float* den_rows[3] = {r + 6 * n, r + 7 * n, r + 8 * n};
    num[s] = cpu::float_adm_scale_total(num_rows, n, rw, n, opts_.noise_weight, opts_.p_norm);
    aim[s] = cpu::float_adm_scale_total(aim_rows, n, rw, n, 0.0, opts_.p_norm);
    den[s] = cpu::float_adm_scale_total(den_rows, n, rw, n, opts_.noise_weight, opts_.p_norm);
    if (row_sums)
      for (int t = 0; t < 3; ++t) {
        row_sums->num[s][t].assign(num_rows[t], num_rows[t] + n);
        row_sums->aim[s][t].assign(aim_rows[t], aim_rows[t] + n);
        row_sums->den[s][t].assign(den_rows[t], den_rows[t] + n);
      }
  }
  cpu::float_adm_combine(num, den, aim, w_, h_, opts_, out);
  return Status::ok();
}

Status FloatAdmGpu::finish(unsigned slot, double* out) {
  if (!out) return {Errc::invalid_argument, "float_adm (gpu): no output"};
  cpu::FloatAdmScores s;
  VMAFX_TRY(scores(slot, &s));
  double all[cpu::kFloatAdmOutputs];
  cpu::float_adm_outputs(s, all);
  for (size_t k = 0; k < outputs_; ++k) out[k] = all[k];
  return Status::ok();
}

}  // namespace vmafx::hip
