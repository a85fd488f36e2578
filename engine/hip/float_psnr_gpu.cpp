// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/float_psnr_gpu.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>

#include "cpu/float_ansnr.h"

namespace vmafx::hip {

Status FloatSumsGpu::create(std::shared_ptr<Device> device, Kind kind, uint32_t w, uint32_t h, unsigned bpc,
                            unsigned slots, std::unique_ptr<FloatSumsGpu>* out, const ModuleOptions& module_options) {
  const char* name = kind == Kind::psnr ? "float_psnr" : "float_moment";
  if (!out || !device || slots == 0) return {Errc::invalid_argument, std::string(name) + ": bad arguments"};
  out->reset();
  auto f = std::unique_ptr<FloatSumsGpu>(new FloatSumsGpu());
  VMAFX_TRY(cpu::float_psnr_params(bpc, &f->params_).prepend(name));
  if (w == 0 || h == 0) return {Errc::invalid_argument, std::string(name) + ": picture of zero width or height"};
  if (!cpu::float_sums_exact(w, h, bpc))
    return {Errc::unsupported, std::string(name) + " on the GPU: " + std::to_string(w) + "x" + std::to_string(h) +
                                   " at " + std::to_string(bpc) +
                                   " bits (libvmaf's double sums may round there; the CPU computes them)"};
  VMAFX_TRY(Module::load(device, "float_psnr", &f->module_, module_options));
  VMAFX_TRY(f->module_.function("float_psnr_sums_kernel", &f->kernel_));
  VMAFX_TRY(DeviceBuffer::create(device, size_t(slots) * FPS_SUMS * sizeof(uint64_t), &f->acc_));
  VMAFX_TRY(PinnedBuffer::create(device, size_t(slots) * FPS_SUMS * sizeof(uint64_t), &f->readback_));
  std::memset(f->readback_.data(), 0, f->readback_.size());
  f->device_ = std::move(device);
  f->kind_ = kind;
  f->w_ = w;
  f->h_ = h;
  f->bpc_ = bpc;
  f->slots_ = slots;
  *out = std::move(f);
  return Status::ok();
}

Status FloatSumsGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  assert(slot < slots_ && frame.bpc == bpc_ && device_plane_fits(frame.ref[0], w_, h_, bpc_) &&
         device_plane_fits(frame.dist[0], w_, h_, bpc_));
  vx_u64* acc = acc_.as<vx_u64>() + size_t(slot) * FPS_SUMS;
  VMAFX_TRY(device_->memset_d32_async(acc, 0, 2 * FPS_SUMS));  // after the frame's upload (feature.h)
  const Dim3 block{64, 4, 1};
  const Dim3 grid{std::min<unsigned>((w_ + 63) / 64, 16u), std::min<unsigned>((h_ + 3) / 4, 128u), 1};
  const vx_u32 what = kind_ == Kind::psnr ? FPS_WANT_NOISE : FPS_WANT_MOMENTS;
  VMAFX_TRY(device_->launch(kernel_, grid, block, 0, frame.ref[0], frame.dist[0], vx_u32(bpc_), what, acc));
  return device_->copy_async(CopyKind::device_to_host, readback_.data() + size_t(slot) * FPS_SUMS * sizeof(uint64_t),
                             acc, FPS_SUMS * sizeof(uint64_t));
}

std::vector<uint64_t> FloatSumsGpu::sums(unsigned slot) const {
  std::vector<uint64_t> v(FPS_SUMS, 0);
  if (slot < slots_) std::memcpy(v.data(), readback_.data() + size_t(slot) * FPS_SUMS * sizeof(uint64_t), FPS_SUMS * 8);
  return v;
}

Status FloatSumsGpu::finish(unsigned slot, double* out) {
  if (slot >= slots_ || !out) return {Errc::invalid_argument, std::string(name()) + ": bad slot or output"};
  const std::vector<uint64_t> s = sums(slot);
  // Below 2^53 units (create's bound) a count is an exact double, and so is libvmaf's running sum.
  const double u1 = cpu::float_sums_unit(bpc_, false), u2 = cpu::float_sums_unit(bpc_, true);
  if (kind_ == Kind::psnr) {
    out[0] = cpu::float_psnr_from_sum(double(s[FPS_NOISE]) * u2, w_, h_, params_);
    return Status::ok();
  }
  out[0] = cpu::float_moment_from_sum(double(s[FPS_REF1]) * u1, w_, h_);
  out[1] = cpu::float_moment_from_sum(double(s[FPS_DIS1]) * u1, w_, h_);
  out[2] = cpu::float_moment_from_sum(double(s[FPS_REF2]) * u2, w_, h_);
  out[3] = cpu::float_moment_from_sum(double(s[FPS_DIS2]) * u2, w_, h_);
  return Status::ok();
}

Status FloatAnsnrGpu::create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc, unsigned slots,
                             std::unique_ptr<FloatAnsnrGpu>* out, const ModuleOptions& module_options) {
  if (!out || !device || slots == 0) return {Errc::invalid_argument, "float_ansnr: bad arguments"};
  out->reset();
  VMAFX_TRY(cpu::float_ansnr_check(w, h, bpc).prepend("float_ansnr"));
  auto f = std::unique_ptr<FloatAnsnrGpu>(new FloatAnsnrGpu());
  VMAFX_TRY(cpu::float_psnr_params(bpc, &f->params_));
  VMAFX_TRY(Module::load(device, "float_ansnr", &f->module_, module_options));
  VMAFX_TRY(f->module_.function("float_ansnr_terms_kernel", &f->terms_));
  VMAFX_TRY(f->module_.function("float_ansnr_rows_kernel", &f->rows_));
  VMAFX_TRY(DeviceBuffer::create(device, 2 * size_t(w) * h * sizeof(float), &f->terms_buf_));
  VMAFX_TRY(DeviceBuffer::create(device, 2 * size_t(h) * sizeof(float), &f->rows_buf_));
  VMAFX_TRY(PinnedBuffer::create(device, size_t(slots) * 2 * h * sizeof(float), &f->readback_));
  std::memset(f->readback_.data(), 0, f->readback_.size());
  f->device_ = std::move(device);
  f->w_ = w;
  f->h_ = h;
  f->bpc_ = bpc;
  f->slots_ = slots;
  *out = std::move(f);
  return Status::ok();
}

Status FloatAnsnrGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  assert(slot < slots_ && frame.bpc == bpc_ && device_plane_fits(frame.ref[0], w_, h_, bpc_) &&
         device_plane_fits(frame.dist[0], w_, h_, bpc_));
  float* sig = terms_buf_.as<float>();
  float* noise = sig + size_t(w_) * h_;
  float* rows = rows_buf_.as<float>();
  const Dim3 tile{FAN_TILE_W, FAN_TILE_H, 1};
  const Dim3 grid{(w_ + FAN_TILE_W - 1) / FAN_TILE_W, (h_ + FAN_TILE_H - 1) / FAN_TILE_H, 1};
  VMAFX_TRY(device_->launch(terms_, grid, tile, 0, frame.ref[0], frame.dist[0], vx_u32(bpc_), sig, noise));
  const float* csig = sig;
  const float* cnoise = noise;
  VMAFX_TRY(device_->launch(rows_, Dim3{(h_ + FAN_ROW_THREADS - 1) / FAN_ROW_THREADS, 1, 1},
                            Dim3{FAN_ROW_THREADS, 1, 1}, 0, csig, cnoise, vx_u32(w_), vx_u32(h_), rows));
  const size_t bytes = 2 * size_t(h_) * sizeof(float);
  return device_->copy_async(CopyKind::device_to_host, readback_.data() + size_t(slot) * bytes, rows, bytes);
}

std::vector<float> FloatAnsnrGpu::row_sums(unsigned slot) const {
  std::vector<float> v(2 * size_t(h_), 0.0f);
  if (slot < slots_) std::memcpy(v.data(), readback_.data() + size_t(slot) * v.size() * 4, v.size() * 4);
  return v;
}

Status FloatAnsnrGpu::finish(unsigned slot, double* out) {
  if (slot >= slots_ || !out) return {Errc::invalid_argument, "float_ansnr: bad slot or output"};
  const std::vector<float> rows = row_sums(slot);
  cpu::float_ansnr_from_rows(rows.data(), w_, h_, params_, out);
  return Status::ok();
}

}  // namespace vmafx::hip
