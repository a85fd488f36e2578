// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/adm_gpu.h"

#include <math.h>

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>

namespace vmafx::hip {

namespace {

// ceil(log2(x)) and 2^(s - 1) as the CPU reference computes them (double log2 / pow, truncated to uint32).
uint32_t ceil_log2(double x) { return static_cast<uint32_t>(ceil(log2(x))); }
uint32_t half_pow2(uint32_t s) { return s == 0 ? 0 : static_cast<uint32_t>(pow(2, (s - 1))); }

}  // namespace

Status adm_gpu_params(uint32_t w, uint32_t h, unsigned bpc, const cpu::AdmOptions& opt, AdmGpuParams* out) {
  if (!out) return {Errc::invalid_argument, "adm: no output"};
  VMAFX_TRY(cpu::Adm::check_size(w, h));
  if (bpc < 8 || bpc > 16) return {Errc::unsupported, "adm: bit depth " + std::to_string(bpc) + " is not 8..16"};
  VMAFX_TRY(cpu::adm_check_options(opt));

  AdmGpuParams p;
  int in_w = int(w), in_h = int(h);
  size_t rows = 0;
  for (int s = 0; s < 4; ++s) {
    adm::ScaleParams& sp = p.scale[s];
    sp.in_w = in_w;
    sp.in_h = in_h;
    sp.w = (in_w + 1) / 2;
    sp.h = (in_h + 1) / 2;
    in_w = sp.w;
    in_h = sp.h;
    const cpu::AdmRect rc = cpu::adm_score_rect(sp.w, sp.h);
    sp.left = rc.left;
    sp.top = rc.top;
    sp.right = rc.right;
    sp.bottom = rc.bottom;
    sp.bpc = int(bpc);
    sp.scale = s;
    sp.full = (s == 0 && opt.skip_scale0) ? 0 : 1;
    sp.aim = opt.skip_aim ? 0 : 1;
    sp.gain = opt.enhn_gain_limit;
    sp.rows_offset = rows;
    rows += size_t(adm::kKinds) * size_t(sp.h);

    cpu::adm_csf_factors(s, opt, p.rfactor[s]);
    adm::FinishParams& f = p.finish;
    f.rows_offset[s] = sp.rows_offset;
    f.h[s] = sp.h;
    f.top[s] = rc.top;
    f.bottom[s] = rc.bottom;
    const uint32_t inner = ceil_log2(sp.h);
    f.cm_shift[s] = int32_t(inner);
    f.cm_round[s] = half_pow2(inner);
    if (s == 0) {
      uint16_t fixed0[3];
      cpu::adm_fixed_factors_scale0(p.rfactor[0], opt, fixed0);
      for (int t = 0; t < 3; ++t) sp.fixed[t] = fixed0[t];
      // ceil(log2(w) - 4) for h, v and ceil(log2(w) - 3) for d, as libvmaf (not ceil(log2(w)) - 4).
      sp.cm_cub[0] = int32_t(static_cast<uint32_t>(ceil(log2(double(sp.w)) - 4)));
      sp.cm_cub[1] = int32_t(static_cast<uint32_t>(ceil(log2(double(sp.w)) - 3)));
      sp.cm_cub_round[0] = half_pow2(uint32_t(sp.cm_cub[0]));
      sp.cm_cub_round[1] = half_pow2(uint32_t(sp.cm_cub[1]));
      int32_t shift = static_cast<int32_t>(ceil(log2((rc.bottom - rc.top) * (rc.right - rc.left)) - 20));
      shift = shift > 0 ? shift : 0;
      f.den_shift[s] = shift;
      f.den_round[s] = shift > 0 ? (uint64_t(1) << (shift - 1)) : 0;
    } else {
      cpu::adm_fixed_factors_scale123(p.rfactor[s], sp.fixed);
      static constexpr int32_t kDenSq[3] = {31, 30, 31};
      sp.cm_cub[0] = int32_t(ceil_log2(sp.w));
      sp.cm_cub_round[0] = half_pow2(uint32_t(sp.cm_cub[0]));
      sp.den_sq = kDenSq[s - 1];
      sp.den_cub = int32_t(ceil_log2(rc.right - rc.left));
      sp.den_cub_round = half_pow2(uint32_t(sp.den_cub));
      const uint32_t accum = ceil_log2(rc.bottom - rc.top);
      f.den_shift[s] = int32_t(accum);
      f.den_round[s] = half_pow2(accum);
    }
  }
  p.row_sums = rows;
  // Scale 3 of a picture of 17..32 samples on an axis: libvmaf's reads before its buffers (cpu::adm_small_axis).
  adm::ScaleParams& s3 = p.scale[3];
  if (cpu::adm_small_axis(s3.in_w) || cpu::adm_small_axis(s3.in_h)) {
    s3.small = 1;
    adm::SmallRowParams& q = p.small_row;
    const adm::ScaleParams& s0 = p.scale[0];
    const cpu::AdmRect tap = cpu::adm_tap_rect(s0.w, s0.h);
    q.w0 = s0.w;
    q.h0 = s0.h;
    q.row_len = (s0.w + 7) / 8 * 8;
    q.count = s3.in_w;
    q.left = tap.left;
    q.top = tap.top;
    q.right = tap.right;
    q.bottom = tap.bottom;
    q.mode = opt.skip_scale0 ? 0 : opt.skip_aim ? 2 : 1;
  }
  *out = p;
  return Status::ok();
}

cpu::AdmScores adm_gpu_scores(const AdmFrameSums& sums, const AdmGpuParams& params, uint32_t w, uint32_t h,
                              const cpu::AdmOptions& opt) {
  float num[4] = {0, 0, 0, 0}, den[4] = {0, 0, 0, 0}, aim[4] = {0, 0, 0, 0};
  for (int s = 0; s < 4; ++s) {
    const int bw = params.scale[s].w, bh = params.scale[s].h;
    if (s == 0 && opt.skip_scale0) {
      den[0] = 1e-10f;
      continue;
    }
    den[s] = cpu::adm_den_finish(sums.den[s], bw, bh, s, params.rfactor[s], opt.noise_weight);
    num[s] = cpu::adm_cm_finish(sums.dlm[s], bw, bh, s, opt.noise_weight);
    if (!opt.skip_aim) aim[s] = cpu::adm_cm_finish(sums.aim[s], bw, bh, s, 0.0);
  }
  return cpu::adm_combine(num, den, aim, w, h, opt);
}

// ------------------------------------------------------------------------------------------------------------------

Status AdmGpu::create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc,
                      const cpu::AdmOptions& opt, unsigned slots, std::unique_ptr<AdmGpu>* out) {
  return create(std::move(device), w, h, bpc, opt, slots, ModuleOptions{}, out);
}

Status AdmGpu::create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc,
                      const cpu::AdmOptions& opt, unsigned slots, const ModuleOptions& module_options,
                      std::unique_ptr<AdmGpu>* out) {
  if (!out) return {Errc::invalid_argument, "adm: no output"};
  out->reset();
  if (!device) return {Errc::invalid_argument, "adm: no device"};
  if (slots == 0) return {Errc::invalid_argument, "adm: 0 slots"};
  std::unique_ptr<AdmGpu> a(new AdmGpu());
  VMAFX_TRY(adm_gpu_params(w, h, bpc, opt, &a->params_));
  a->w_ = w;
  a->h_ = h;
  a->bpc_ = bpc;
  a->opt_ = opt;
  a->slots_ = slots;
  VMAFX_TRY(Module::load(device, "adm", &a->module_, module_options));
  VMAFX_TRY(a->module_.function("adm_scale0_kernel", &a->scale0_));
  VMAFX_TRY(a->module_.function("adm_scale1_kernel", &a->scale1_));
  VMAFX_TRY(a->module_.function("adm_scale23_kernel", &a->scale23_));
  VMAFX_TRY(a->module_.function("adm_finish_kernel", &a->finish_));
  VMAFX_TRY(a->module_.function("adm_small_row_kernel", &a->small_row_kernel_));
  if (a->params_.small_row.count > 0)
    VMAFX_TRY(DeviceBuffer::create(device, size_t(a->params_.small_row.count) * 4, &a->small_row_));
  for (int s = 0; s < 3; ++s) {
    const size_t n = size_t(a->params_.scale[s].w) * size_t(a->params_.scale[s].h);
    VMAFX_TRY(DeviceBuffer::create(device, 2 * n * (s == 0 ? 2 : 4), &a->band_a_[s]));
  }
  VMAFX_TRY(DeviceBuffer::create(device, a->params_.row_sums * 8, &a->rows_));
  VMAFX_TRY(DeviceBuffer::create(device, kSumsPerFrame * 8, &a->totals_));
  VMAFX_TRY(PinnedBuffer::create(device, kSumsPerFrame * 8 * slots, &a->readback_));
  std::memset(a->readback_.data(), 0, a->readback_.size());
  a->device_ = std::move(device);
  *out = std::move(a);
  return Status::ok();
}

namespace {

Dim3 scale_grid(const adm::ScaleParams& p) {
  return {unsigned((p.w + adm::kTileW - 1) / adm::kTileW), unsigned((p.h + adm::kTileH - 1) / adm::kTileH), 1};
}

}  // namespace

Status AdmGpu::check_frame(const FramePlanes& frame, unsigned slot) const {
  if (slot >= slots_)
    return {Errc::invalid_argument, "adm: slot " + std::to_string(slot) + " of " + std::to_string(slots_)};
  if (frame.width != w_ || frame.height != h_)
    return {Errc::unsupported, "adm: frame is " + std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                                   ", created for " + std::to_string(w_) + "x" + std::to_string(h_)};
  if (frame.bpc != bpc_)
    return {Errc::unsupported,
            "adm: frame has " + std::to_string(frame.bpc) + " bits, created for " + std::to_string(bpc_)};
  VMAFX_TRY(check_device_plane(frame.ref[0], w_, h_, bpc_, "adm: reference plane"));
  VMAFX_TRY(check_device_plane(frame.dist[0], w_, h_, bpc_, "adm: distorted plane"));
  return Status::ok();
}

Status AdmGpu::launch(const FramePlanes& frame, unsigned slot, void* const dump[4]) {
  const Dim3 block{adm::kBlockW, adm::kBlockH, 1};
  // Cleared after the frame's uploads, which the pipeline queued before this call (feature.h).
  VMAFX_TRY(device_->memset_d32_async(rows_.data(), 0, params_.row_sums * 2));
  vx_u64* rows = rows_.as<vx_u64>();
  {
    const adm::ScaleParams& p = params_.scale[0];
    const size_t n = size_t(p.w) * size_t(p.h);
    vx_i16* ref_a = band_a_[0].as<vx_i16>();
    vx_i16* dist_a = ref_a + n;
    VMAFX_TRY(device_->launch(scale0_, scale_grid(p), block, 0, frame.ref[0], frame.dist[0], p, ref_a, dist_a, rows,
                              static_cast<vx_i16*>(dump[0]), vx_u64(n)));
  }
  const vx_i32* small_row = nullptr;
  if (params_.small_row.count > 0) {
    adm::SmallRowParams q = params_.small_row;
    if (q.mode == 0) {
      VMAFX_TRY(device_->memset_d32_async(small_row_.data(), 0, size_t(q.count)));
    } else {
      VMAFX_TRY(device_->launch(small_row_kernel_, Dim3{1, 1, 1}, Dim3{256, 1, 1}, 0, frame.ref[0], frame.dist[0],
                                params_.scale[0], q, small_row_.as<vx_i32>()));
    }
    small_row = small_row_.as<vx_i32>();
  }
  for (int s = 1; s < 4; ++s) {
    const adm::ScaleParams& p = params_.scale[s];
    const size_t n_in = size_t(p.in_w) * size_t(p.in_h);
    const size_t n = size_t(p.w) * size_t(p.h);
    vx_i32* ref_a = s < 3 ? band_a_[s].as<vx_i32>() : nullptr;
    vx_i32* dist_a = s < 3 ? ref_a + n : nullptr;
    vx_i32* d = static_cast<vx_i32*>(dump[s]);
    if (s == 1) {
      const vx_i16* in = band_a_[0].as<const vx_i16>();
      VMAFX_TRY(device_->launch(scale1_, scale_grid(p), block, 0, in, in + n_in, p, ref_a, dist_a, rows, d, vx_u64(n)));
    } else {
      const vx_i32* in = band_a_[s - 1].as<const vx_i32>();
      VMAFX_TRY(device_->launch(scale23_, scale_grid(p), block, 0, in, in + n_in, p, ref_a, dist_a, rows, d,
                                vx_u64(n), small_row));
    }
  }
  {
    VMAFX_TRY(device_->launch(finish_, Dim3{unsigned(kSumsPerFrame), 1, 1}, Dim3{adm::kFinishThreads, 1, 1}, 0,
                              static_cast<const vx_u64*>(rows), params_.finish, totals_.as<vx_u64>()));
  }
  return device_->copy_async(CopyKind::device_to_host, readback_.data() + size_t(slot) * kSumsPerFrame * 8,
                             totals_.data(), kSumsPerFrame * 8);
}

Status AdmGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  assert(check_frame(frame, slot).is_ok());  // the pipeline made the frame for this geometry and checked its planes
  void* const none[4] = {nullptr, nullptr, nullptr, nullptr};
  return launch(frame, slot, none);
}

Status AdmGpu::sums(unsigned slot, AdmFrameSums* out) const {
  if (slot >= slots_)
    return {Errc::invalid_argument, "adm: slot " + std::to_string(slot) + " of " + std::to_string(slots_)};
  if (!out) return {Errc::invalid_argument, "adm: no output"};
  uint64_t v[kSumsPerFrame];
  std::memcpy(v, readback_.data() + size_t(slot) * kSumsPerFrame * 8, sizeof v);
  for (int s = 0; s < 4; ++s) {
    const uint64_t* k = v + s * adm::kKinds;
    out->den[s] = {k[0], k[1], k[2]};
    out->dlm[s] = {int64_t(k[3]), int64_t(k[4]), int64_t(k[5])};
    out->aim[s] = {int64_t(k[6]), int64_t(k[7]), int64_t(k[8])};
  }
  return Status::ok();
}

Status AdmGpu::scores(unsigned slot, cpu::AdmScores* out) const {
  if (!out) return {Errc::invalid_argument, "adm: no output"};
  AdmFrameSums s;
  VMAFX_TRY(sums(slot, &s));
  *out = adm_gpu_scores(s, params_, w_, h_, opt_);
  return Status::ok();
}

Status AdmGpu::finish(unsigned slot, double* out) {
  if (!out) return {Errc::invalid_argument, "adm: no output"};
  cpu::AdmScores s;
  VMAFX_TRY(scores(slot, &s));
  out[0] = s.adm2;
  out[1] = s.aim;
  out[2] = s.adm3;
  for (int k = 0; k < 4; ++k) out[3 + k] = s.scale[k];
  return Status::ok();
}

Status AdmGpu::run_with_dump(const FramePlanes& frame, unsigned slot, AdmStageDump* out) {
  if (!out) return {Errc::invalid_argument, "adm: no output"};
  VMAFX_TRY(check_frame(frame, slot));
  DeviceBuffer buf[4];
  void* dump[4];
  for (int s = 0; s < 4; ++s) {
    const size_t n = size_t(params_.scale[s].w) * size_t(params_.scale[s].h) * adm::kDumpPlanes;
    VMAFX_TRY(DeviceBuffer::create(device_, n * (s == 0 ? 2 : 4), &buf[s]));
    // Positions a kernel does not reach stay at this pattern, which no test mistakes for a value.
    VMAFX_TRY(device_->memset_d32_async(buf[s].data(), 0x7eed7eedu, buf[s].size() / 4));
    dump[s] = buf[s].data();
  }
  VMAFX_TRY(launch(frame, slot, dump));
  for (int s = 0; s < 4; ++s) {
    out->w[s] = params_.scale[s].w;
    out->h[s] = params_.scale[s].h;
    const size_t n = size_t(out->w[s]) * size_t(out->h[s]) * adm::kDumpPlanes;
    if (s == 0) {
      out->scale0.assign(n, 0);
      VMAFX_TRY(device_->copy_async(CopyKind::device_to_host, out->scale0.data(), buf[0].data(), n * 2));
    } else {
      out->scale123[s - 1].assign(n, 0);
      VMAFX_TRY(device_->copy_async(CopyKind::device_to_host, out->scale123[s - 1].data(), buf[s].data(), n * 4));
    }
  }
  return device_->synchronize();
}

}  // namespace vmafx::hip
