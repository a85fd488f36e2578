// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/scale_gpu.h"

#include <algorithm>
#include <cassert>
#include <string>

#include "hip/kernels/scale_impl.h"

namespace vmafx::hip {

static_assert(ScaleGpu::kBlockX == SCALE_BLOCK_X && ScaleGpu::kBlockY == SCALE_BLOCK_Y,
              "ScaleGpu's launch geometry must match kernels/scale_impl.h");

namespace {

Status upload_axis(const std::shared_ptr<Device>& device, const cpu::ScaleAxis& a, DeviceBuffer* pos,
                   DeviceBuffer* coef) {
  VMAFX_TRY(DeviceBuffer::create(device, a.pos.size() * sizeof(int32_t), pos));
  VMAFX_TRY(DeviceBuffer::create(device, a.coef.size() * sizeof(int16_t), coef));
  VMAFX_TRY(device->copy_async(CopyKind::host_to_device, pos->data(), a.pos.data(), a.pos.size() * sizeof(int32_t)));
  VMAFX_TRY(
      device->copy_async(CopyKind::host_to_device, coef->data(), a.coef.data(), a.coef.size() * sizeof(int16_t)));
  return Status::ok();
}

}  // namespace

Status ScaleGpu::create(std::shared_ptr<Device> device, const cpu::Scaler& scaler, std::unique_ptr<ScaleGpu>* out,
                        const ModuleOptions& module_options) {
  if (!out) return {Errc::invalid_argument, "scale (gpu): no output"};
  out->reset();
  if (!device) return {Errc::invalid_argument, "scale (gpu): no device"};
  if (scaler.bpc() == 0) return {Errc::invalid_argument, "scale (gpu): the scaler is not initialised"};
  const unsigned planes = scaler.chroma() == Chroma::k400 ? 1u : 3u;
  for (unsigned i = 0; i < planes; ++i) {
    const cpu::ScaleAxis& h = scaler.horizontal(i);
    const cpu::ScaleAxis& v = scaler.vertical(i);
    // Grid rows within the launch limit; sample indices in 32 bits.
    if (h.dst > (1u << 28) || std::max(v.src, v.dst) > 65535u * kBlockY)
      return {Errc::unsupported, "scale (gpu): a " + std::to_string(h.dst) + "x" + std::to_string(v.dst) +
                                     " plane is too large"};
  }

  std::unique_ptr<ScaleGpu> s(new ScaleGpu());
  s->bpc_ = scaler.bpc();
  s->planes_ = planes;
  s->luma_rows_ = scaler.dst_height();
  VMAFX_TRY(Module::load(device, "scale", &s->module_, module_options));
  VMAFX_TRY(s->module_.function("scale_h_kernel", &s->h_kernel_));
  VMAFX_TRY(s->module_.function("scale_v_kernel", &s->v_kernel_));
  for (unsigned k = 0; k < (planes == 1 ? 1u : 2u); ++k) {
    const unsigned plane = k;  // 0: luma, 1: chroma (planes 1 and 2 share the filters)
    const cpu::ScaleAxis& h = scaler.horizontal(plane);
    const cpu::ScaleAxis& v = scaler.vertical(plane);
    VMAFX_TRY(upload_axis(device, h, &s->h_[k].pos, &s->h_[k].coef));
    VMAFX_TRY(upload_axis(device, v, &s->v_[k].pos, &s->v_[k].coef));
    s->h_[k].src = h.src;
    s->h_[k].dst = h.dst;
    s->h_[k].taps = h.taps;
    s->v_[k].src = v.src;
    s->v_[k].dst = v.dst;
    s->v_[k].taps = v.taps;
  }
  size_t tmp_values = 0;
  for (unsigned i = 0; i < planes; ++i) {
    const Axis& h = s->h_[i == 0 ? 0 : 1];
    const Axis& v = s->v_[i == 0 ? 0 : 1];
    s->vsub_[i] = scaler.vsub(i);
    s->tmp_pitch_[i] = (size_t(h.dst) + 63) / 64 * 64;
    tmp_values = std::max(tmp_values, s->tmp_pitch_[i] * v.src);
    s->out_w_[i] = h.dst;
    s->out_h_[i] = v.dst;
    VMAFX_TRY(DeviceBuffer::create_2d(device, size_t(h.dst) * (s->bpc_ > 8 ? 2 : 1), v.dst, &s->out_[i]));
  }
  VMAFX_TRY(DeviceBuffer::create(device, tmp_values * sizeof(int32_t), &s->tmp_));
  VMAFX_TRY(device->synchronize());  // the filters' uploads (from pageable memory) have finished
  s->device_ = std::move(device);
  *out = std::move(s);
  return Status::ok();
}

DevicePlane ScaleGpu::output(unsigned i) const {
  if (i >= planes_ || !out_[i]) return {};
  return {out_[i].data(), out_[i].pitch(), out_w_[i], out_h_[i], uint8_t(bpc_ > 8 ? 2 : 1), 0, 1};
}

Status ScaleGpu::check_plane(unsigned i, const DevicePlane& p) const {
  const Axis& h = h_[i == 0 ? 0 : 1];
  const Axis& v = v_[i == 0 ? 0 : 1];
  return check_device_plane(p, h.src, v.src, bpc_, "scale (gpu): source plane " + std::to_string(i));
}

Status ScaleGpu::enqueue(const DevicePlane* src, unsigned planes) {
  if (!device_) return {Errc::invalid_argument, "scale (gpu): not created"};
  if (!src) return {Errc::invalid_argument, "scale (gpu): no planes"};
  if (planes != 1 && planes != planes_)
    return {Errc::invalid_argument, "scale (gpu): " + std::to_string(planes) + " planes of a " +
                                        std::to_string(planes_) + "-plane format"};
  for (unsigned i = 0; i < planes; ++i) VMAFX_TRY(check_plane(i, src[i]));
  return launch(src, planes);
}

Status ScaleGpu::launch(const DevicePlane* src, unsigned planes) {
  assert(device_ && src && (planes == 1 || planes == planes_));
  if (device_->failed()) return device_->status();
  for (unsigned i = 0; i < planes; ++i) {
    assert(check_plane(i, src[i]).is_ok());
    const Axis& h = h_[i == 0 ? 0 : 1];
    const Axis& v = v_[i == 0 ? 0 : 1];
    ScaleHArgs ha{};
    ha.src = src[i];
    ha.src.width = h.src;  // the filters' source size (the plane's, as checked)
    ha.src.height = v.src;
    ha.bpc = bpc_;
    ha.dst_w = h.dst;
    ha.taps = vx_u32(h.taps);
    ha.pos = h.pos.as<const vx_i32>();
    ha.coef = h.coef.as<const vx_i16>();
    ha.tmp = tmp_.as<vx_i32>();
    ha.tmp_pitch = tmp_pitch_[i];
    VMAFX_TRY(device_->launch(h_kernel_, Dim3{(h.dst + kBlockX - 1) / kBlockX, (v.src + kBlockY - 1) / kBlockY, 1},
                              Dim3{kBlockX, kBlockY, 1}, 0, ha));

    ScaleVArgs va{};
    va.tmp = tmp_.as<const vx_i32>();
    va.tmp_pitch = tmp_pitch_[i];
    va.src_h = v.src;
    va.dst_w = h.dst;
    va.dst_h = v.dst;
    va.taps = vx_u32(v.taps);
    va.pos = v.pos.as<const vx_i32>();
    va.coef = v.coef.as<const vx_i16>();
    va.bpc = bpc_;
    va.vsub = vsub_[i];
    va.luma_rows = luma_rows_;
    va.dst = out_[i].as<vx_u8>();
    va.dst_pitch = out_[i].pitch();
    VMAFX_TRY(device_->launch(v_kernel_, Dim3{(h.dst + kBlockX - 1) / kBlockX, (v.dst + kBlockY - 1) / kBlockY, 1},
                              Dim3{kBlockX, kBlockY, 1}, 0, va));
  }
  return Status::ok();
}

}  // namespace vmafx::hip
