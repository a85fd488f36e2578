// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/ssimulacra2_gpu.h"

#include <cassert>
#include <cstring>
#include <string>

namespace vmafx::hip {

Status Ssimulacra2Gpu::create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc, Chroma chroma,
                              const cpu::Ssimulacra2Options& opt, unsigned slots, std::unique_ptr<Ssimulacra2Gpu>* out,
                              const ModuleOptions& module_options) {
  if (!out || !device || slots == 0) return {Errc::invalid_argument, "ssimulacra2: bad arguments"};
  out->reset();
  VMAFX_TRY(cpu::ssimulacra2_check(w, h, bpc).prepend("ssimulacra2"));
  std::unique_ptr<Ssimulacra2Gpu> s(new Ssimulacra2Gpu());
  s->w_ = w;
  s->h_ = h;
  s->bpc_ = bpc;
  s->chroma_ = chroma;
  s->slots_ = slots;
  s->yuv_ = cpu::ssimulacra2_yuv(opt, bpc);
  s->scales_ = cpu::ssimulacra2_scales(w, h);
  s->row_doubles_ = size_t(s->scales_.rows()) * kS2Channels * kS2Terms;
  VMAFX_TRY(Module::load(device, "ssimulacra2", &s->module_, module_options));
  VMAFX_TRY(s->module_.function("ssimulacra2_linear_kernel", &s->linear_k_));
  VMAFX_TRY(s->module_.function("ssimulacra2_downsample_kernel", &s->down_k_));
  VMAFX_TRY(s->module_.function("ssimulacra2_xyb_kernel", &s->xyb_k_));
  VMAFX_TRY(s->module_.function("ssimulacra2_blur_rows_kernel", &s->rows_blur_k_));
  VMAFX_TRY(s->module_.function("ssimulacra2_blur_cols_kernel", &s->cols_blur_k_));
  VMAFX_TRY(s->module_.function("ssimulacra2_segments_kernel", &s->seg_k_));
  VMAFX_TRY(s->module_.function("ssimulacra2_rows_kernel", &s->rows_k_));
  const size_t n = size_t(w) * h;
  const size_t n1 = s->scales_.count > 1 ? size_t(s->scales_.w[1]) * s->scales_.h[1] : 1;
  VMAFX_TRY(DeviceBuffer::create(device, kS2LinPlanes * n * 4, &s->lin_a_));
  VMAFX_TRY(DeviceBuffer::create(device, kS2LinPlanes * n1 * 4, &s->lin_b_));
  VMAFX_TRY(DeviceBuffer::create(device, kS2LinPlanes * n * 4, &s->xyb_));
  VMAFX_TRY(DeviceBuffer::create(device, kS2ProdPlanes * n * 4, &s->prod_));
  VMAFX_TRY(DeviceBuffer::create(device, kS2BlurPlanes * n * 4, &s->tmp_));
  VMAFX_TRY(DeviceBuffer::create(device, kS2BlurPlanes * n * 4, &s->blurred_));
  VMAFX_TRY(DeviceBuffer::create(device, size_t(h) * kS2Channels * s2_segments(int(w)) * kS2Terms * 8, &s->seg_));
  VMAFX_TRY(DeviceBuffer::create(device, s->row_doubles_ * 8, &s->rows_));
  VMAFX_TRY(PinnedBuffer::create(device, s->row_doubles_ * 8 * slots, &s->readback_));
  std::memset(s->readback_.data(), 0, s->readback_.size());
  s->device_ = std::move(device);
  *out = std::move(s);
  return Status::ok();
}

namespace {

Dim3 grid2(uint32_t w, uint32_t h, unsigned z = 1) {
  return {(w + kS2TileW - 1) / kS2TileW, (h + kS2TileH - 1) / kS2TileH, z};
}

}  // namespace

Status Ssimulacra2Gpu::enqueue(const FramePlanes& frame, unsigned slot) {
  const bool chroma = chroma_ != Chroma::k400;
  assert(slot < slots_ && frame.bpc == bpc_ && frame.width == w_ && frame.height == h_ &&
         (!chroma || frame.planes == 3));
  const S2Constants& k = cpu::ssimulacra2_constants();
  const vx_u32 sx = chroma_ == Chroma::k444 || !chroma ? 0 : 1, sy = chroma_ == Chroma::k420 ? 1 : 0;
  // Without chroma the chroma arguments are not read: the luma planes stand in.
  const DevicePlane& rcb = chroma ? frame.ref[1] : frame.ref[0];
  const DevicePlane& rcr = chroma ? frame.ref[2] : frame.ref[0];
  const DevicePlane& dcb = chroma ? frame.dist[1] : frame.dist[0];
  const DevicePlane& dcr = chroma ? frame.dist[2] : frame.dist[0];
  const Dim3 tile{kS2TileW, kS2TileH, 1};
  VMAFX_TRY(device_->launch(linear_k_, grid2(w_, h_), tile, 0, frame.ref[0], rcb, rcr, frame.dist[0], dcb, dcr, yuv_,
                            vx_u32(w_), vx_u32(h_), sx, sy, vx_u32(chroma ? 1 : 0), lin_a_.as<float>()));
  double* rows = rows_.as<double>();
  for (int s = 0; s < scales_.count; ++s) {
    const uint32_t w = scales_.w[s], h = scales_.h[s];
    const size_t n = size_t(w) * h;
    float* lin = (s % 2 ? lin_b_ : lin_a_).as<float>();
    if (s > 0) {
      const float* prev = (s % 2 ? lin_a_ : lin_b_).as<float>();
      VMAFX_TRY(device_->launch(down_k_, grid2(w, h, kS2LinPlanes), tile, 0, prev, vx_u32(scales_.w[s - 1]),
                                vx_u32(scales_.h[s - 1]), lin, vx_u32(w), vx_u32(h)));
    }
    const float* clin = lin;
    float* xyb = xyb_.as<float>();
    float* prod = prod_.as<float>();
    VMAFX_TRY(device_->launch(xyb_k_, Dim3{unsigned((n + 255) / 256), 1, 1}, Dim3{256, 1, 1}, 0, clin, vx_u32(n), k,
                              xyb, prod));
    const float* cprod = prod;
    const float* cxyb = xyb;
    float* tmp = tmp_.as<float>();
    const Dim3 line{kS2LineThreads, 1, 1};
    VMAFX_TRY(device_->launch(rows_blur_k_, Dim3{(h + kS2LineThreads - 1) / kS2LineThreads, kS2BlurPlanes, 1}, line, 0,
                              cprod, cxyb, vx_u32(w), vx_u32(h), k, tmp));
    const float* ctmp = tmp;
    float* blurred = blurred_.as<float>();
    VMAFX_TRY(device_->launch(cols_blur_k_, Dim3{(w + kS2LineThreads - 1) / kS2LineThreads, kS2BlurPlanes, 1}, line, 0,
                              ctmp, vx_u32(w), vx_u32(h), k, blurred));
    const float* cblurred = blurred;
    double* seg = seg_.as<double>();
    const unsigned segments = unsigned(s2_segments(int(w)));
    VMAFX_TRY(device_->launch(seg_k_, Dim3{(segments + 7) / 8, (h + 7) / 8, kS2Channels}, Dim3{8, 8, 1}, 0, cblurred,
                              cxyb, vx_u32(w), vx_u32(h), seg));
    const double* cseg = seg;
    VMAFX_TRY(device_->launch(rows_k_, Dim3{(3 * h + 127) / 128, 1, 1}, Dim3{128, 1, 1}, 0, cseg, vx_u32(h),
                              vx_u32(segments), rows));
    rows += size_t(h) * kS2Channels * kS2Terms;
  }
  const size_t bytes = row_doubles_ * 8;
  return device_->copy_async(CopyKind::device_to_host, readback_.data() + size_t(slot) * bytes, rows_.data(), bytes);
}

std::vector<double> Ssimulacra2Gpu::row_sums(unsigned slot) const {
  std::vector<double> v(row_doubles_, 0.0);
  if (slot < slots_) std::memcpy(v.data(), readback_.data() + size_t(slot) * row_doubles_ * 8, row_doubles_ * 8);
  return v;
}

Status Ssimulacra2Gpu::finish(unsigned slot, double* out) {
  if (slot >= slots_ || !out) return {Errc::invalid_argument, "ssimulacra2: bad slot or output"};
  const std::vector<double> rows = row_sums(slot);
  out[0] = cpu::ssimulacra2_from_rows(scales_, rows.data());
  return Status::ok();
}

}  // namespace vmafx::hip
