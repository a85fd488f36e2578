// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/speed_gpu.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>

namespace vmafx::hip {

namespace {

Dim3 grid_2d(int w, int h, unsigned z) {
  return {unsigned((w + speed::kTileW - 1) / speed::kTileW), unsigned((h + speed::kTileH - 1) / speed::kTileH), z};
}


speed::ImageArg image_arg(const DevicePlane& p, unsigned bpc) {
  speed::ImageArg a{};
  a.plane = p;
  a.bpc = bpc;
  return a;
}

}  // namespace

Status speed_gpu_params(uint32_t luma_w, uint32_t luma_h, Chroma chroma, unsigned bpc, const cpu::SpeedOptions& opt,
                        SpeedGpuParams* out) {
  if (!out) return {Errc::invalid_argument, "speed_chroma: no output"};
  if (chroma == Chroma::k400) return {Errc::unsupported, "speed_chroma needs chroma planes (the picture is 4:0:0)"};
  if (bpc != 8 && bpc != 10 && bpc != 12 && bpc != 16)
    return {Errc::unsupported, "speed_chroma: bit depth " + std::to_string(bpc) +
                                   " (libvmaf's speed_chroma reads 8, 10, 12 and 16 bits)"};
  VMAFX_TRY(cpu::speed_check_options(opt));
  cpu::SpeedDims dims;
  VMAFX_TRY(cpu::speed_dims(chroma_width(chroma, luma_w), chroma_height(chroma, luma_h), opt, &dims));
  return speed_gpu_params_for(dims, opt, out);
}

Status speed_gpu_params_for(const cpu::SpeedDims& dims, const cpu::SpeedOptions& opt, SpeedGpuParams* out) {
  SpeedGpuParams p;
  p.dims = dims;
  const cpu::SpeedDims& d = p.dims;
  p.kdims = {d.orig_w,  d.orig_h,  d.scaled_w, d.scaled_h, d.rescale ? 1 : 0, d.dec_w, d.dec_h,
             d.trunc_w, d.trunc_h, d.blocks_w, d.blocks_h, d.blocks,          d.sub_w, d.sub_h};
  cpu::SpeedFilters f;
  cpu::speed_filters(opt.kernelscale, &f);
  if (f.aa_width > speed::kMaxAa || f.mean_width > speed::kMaxMean)
    return {Errc::internal, "speed_chroma: filter longer than the kernel's"};
  p.filters.aa_width = f.aa_width;
  p.filters.mean_width = f.mean_width;
  std::copy(f.aa, f.aa + f.aa_width, p.filters.aa);
  std::copy(f.mean, f.mean + f.mean_width, p.filters.mean);
  if (d.rescale) cpu::speed_scale_tables(d, opt.prescale_method, &p.tables);
  p.out_floats = size_t(speed::kOutVariance) + size_t(d.blocks);
  *out = std::move(p);
  return Status::ok();
}

void speed_gpu_estimate(const float* out, const SpeedGpuParams& p, cpu::SpeedEstimate* e) {
  std::copy(out + speed::kOutEigen, out + speed::kOutEigen + speed::kN, e->eigen);
  e->singular = out[speed::kOutSingular] != 0.0f;
  e->variance.assign(out + speed::kOutVariance, out + speed::kOutVariance + p.dims.blocks);
}

Status SpeedGpu::create(std::shared_ptr<Device> device, uint32_t luma_w, uint32_t luma_h, Chroma chroma,
                        unsigned bpc, const cpu::SpeedOptions& opt, unsigned slots, std::unique_ptr<SpeedGpu>* out,
                        const ModuleOptions& module_options) {
  if (!out) return {Errc::invalid_argument, "speed_chroma: no output"};
  out->reset();
  if (!device) return {Errc::invalid_argument, "speed_chroma: no device"};
  if (slots == 0) return {Errc::invalid_argument, "speed_chroma: 0 slots"};
  std::unique_ptr<SpeedGpu> s(new SpeedGpu());
  VMAFX_TRY(speed_gpu_params(luma_w, luma_h, chroma, bpc, opt, &s->params_));
  s->luma_w_ = luma_w;
  s->luma_h_ = luma_h;
  s->bpc_ = bpc;
  s->opt_ = opt;
  s->slots_ = slots;
  VMAFX_TRY(Module::load(device, "speed", &s->module_, module_options));
  VMAFX_TRY(s->module_.function("speed_prescale_kernel", &s->prescale_k_));
  VMAFX_TRY(s->module_.function("speed_dec_kernel", &s->dec_k_));
  VMAFX_TRY(s->module_.function("speed_mean_kernel", &s->mean_k_));
  VMAFX_TRY(s->module_.function("speed_estimate_kernel", &s->estimate_k_));
  const cpu::SpeedDims& d = s->params_.dims;
  const size_t dec = size_t(d.dec_w) * size_t(d.dec_h) * speed::kImages;
  const size_t ny = size_t(speed::kN) * size_t(d.blocks);
  VMAFX_TRY(DeviceBuffer::create(device, dec * 4, &s->dec_));
  VMAFX_TRY(DeviceBuffer::create(device, dec * 4, &s->ms_));
  VMAFX_TRY(DeviceBuffer::create(device, 3 * ny * speed::kImages * 4, &s->work_));
  VMAFX_TRY(DeviceBuffer::create(device, s->params_.out_floats * speed::kImages * 4, &s->out_));
  VMAFX_TRY(PinnedBuffer::create(device, s->params_.out_floats * speed::kImages * 4 * slots, &s->readback_));
  std::memset(s->readback_.data(), 0, s->readback_.size());
  if (d.rescale) {
    const cpu::SpeedScaleTables& t = s->params_.tables;
    VMAFX_TRY(DeviceBuffer::create(device, size_t(d.scaled_w) * d.scaled_h * speed::kImages * 4, &s->scaled_));
    const size_t bytes[4] = {t.x.index.size() * 4, t.x.weight.size() * 4, t.y.index.size() * 4, t.y.weight.size() * 4};
    VMAFX_TRY(DeviceBuffer::create(device, bytes[0] + bytes[1] + bytes[2] + bytes[3] + 16, &s->tables_));
    uint8_t* base = s->tables_.as<uint8_t>();
    const void* src[4] = {t.x.index.data(), t.x.weight.data(), t.y.index.data(), t.y.weight.data()};
    size_t at = 0;
    for (int k = 0; k < 4; ++k) {
      if (bytes[k]) VMAFX_TRY(device->copy_async(CopyKind::host_to_device, base + at, src[k], bytes[k]));
      at += bytes[k];
    }
    VMAFX_TRY(device->synchronize());  // the host tables may go; create() only
  }
  s->device_ = std::move(device);
  *out = std::move(s);
  return Status::ok();
}

Status SpeedGpu::check_frame(const FramePlanes& frame, unsigned slot) const {
  if (slot >= slots_)
    return {Errc::invalid_argument, "speed_chroma: slot " + std::to_string(slot) + " of " + std::to_string(slots_)};
  if (frame.width != luma_w_ || frame.height != luma_h_ || frame.bpc != bpc_)
    return {Errc::unsupported, "speed_chroma: frame geometry differs from the one it was created for"};
  if (frame.planes < 3)
    return {Errc::invalid_argument, "speed_chroma: the frame carries no chroma planes (FeatureNeeds::chroma)"};
  const cpu::SpeedDims& d = params_.dims;
  const uint32_t cw = uint32_t(d.orig_w), ch = uint32_t(d.orig_h);
  const char* names[4] = {"speed_chroma: reference Cb plane", "speed_chroma: reference Cr plane",
                          "speed_chroma: distorted Cb plane", "speed_chroma: distorted Cr plane"};
  const DevicePlane* planes[4] = {&frame.ref[1], &frame.ref[2], &frame.dist[1], &frame.dist[2]};
  for (int i = 0; i < 4; ++i) {
    VMAFX_TRY(check_device_plane(*planes[i], cw, ch, bpc_, names[i]));
    // The kernels' load() scales by the depth only for 16-bit words: 8-bit samples must be bytes.
    if (planes[i]->bytes != (bpc_ > 8 ? 2u : 1u))
      return {Errc::unsupported, std::string(names[i]) + ": " + std::to_string(bpc_) + "-bit samples in " +
                                     std::to_string(planes[i]->bytes) + "-byte words"};
  }
  return Status::ok();
}

Status SpeedGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  assert(check_frame(frame, slot).is_ok());  // the pipeline made the frame for this geometry and checked its planes
  const cpu::SpeedDims& d = params_.dims;
  speed::Images imgs;
  imgs.img[0] = image_arg(frame.ref[1], bpc_);
  imgs.img[1] = image_arg(frame.ref[2], bpc_);
  imgs.img[2] = image_arg(frame.dist[1], bpc_);
  imgs.img[3] = image_arg(frame.dist[2], bpc_);
  speed::Dims kd = params_.kdims;
  speed::Filters f = params_.filters;
  const Dim3 tile{speed::kTileW, speed::kTileH, 1};
  float* scaled = nullptr;
  if (d.rescale) {
    const cpu::SpeedScaleTables& t = params_.tables;
    const uint8_t* base = tables_.as<uint8_t>();
    speed::ScaleTables kt{};
    kt.method = int(t.method);
    kt.taps = t.x.taps;
    kt.x_index = reinterpret_cast<const vx_i32*>(base);
    kt.x_weight = reinterpret_cast<const float*>(base + t.x.index.size() * 4);
    kt.y_index = reinterpret_cast<const vx_i32*>(base + (t.x.index.size() + t.x.weight.size()) * 4);
    kt.y_weight = reinterpret_cast<const float*>(base + (t.x.index.size() + t.x.weight.size() + t.y.index.size()) * 4);
    scaled = scaled_.as<float>();
    VMAFX_TRY(
        device_->launch(prescale_k_, grid_2d(d.scaled_w, d.scaled_h, speed::kImages), tile, 0, imgs, kt, kd, scaled));
  }
  {
    const float* src = scaled;
    float* dec = dec_.as<float>();
    VMAFX_TRY(device_->launch(dec_k_, grid_2d(d.dec_w, d.dec_h, speed::kImages), tile, 0, imgs, kd, f, src, dec));
  }
  {
    const float* dec = dec_.as<float>();
    float* ms = ms_.as<float>();
    VMAFX_TRY(device_->launch(mean_k_, grid_2d(d.dec_w, d.dec_h, speed::kImages), tile, 0, kd, f, dec, ms));
  }
  {
    const float* ms = ms_.as<float>();
    float* work = work_.as<float>();
    float* o = out_.as<float>();
    VMAFX_TRY(
        device_->launch(estimate_k_, Dim3{speed::kImages, 1, 1}, Dim3{speed::kThreads, 1, 1}, 0, kd, ms, work, o));
  }
  const size_t bytes = params_.out_floats * speed::kImages * 4;
  return device_->copy_async(CopyKind::device_to_host, readback_.data() + size_t(slot) * bytes, out_.data(), bytes);
}

Status SpeedGpu::estimates(unsigned slot, cpu::SpeedEstimate out[speed::kImages]) const {
  if (slot >= slots_) return {Errc::invalid_argument, "speed_chroma: slot out of range"};
  std::vector<float> v(params_.out_floats * speed::kImages);
  std::memcpy(v.data(), readback_.data() + size_t(slot) * v.size() * 4, v.size() * 4);
  for (int k = 0; k < speed::kImages; ++k) speed_gpu_estimate(v.data() + size_t(k) * params_.out_floats, params_, &out[k]);
  return Status::ok();
}

Status SpeedGpu::finish(unsigned slot, double* out) {
  if (!out) return {Errc::invalid_argument, "speed_chroma: no output"};
  cpu::SpeedEstimate e[speed::kImages];
  VMAFX_TRY(estimates(slot, e));
  bool err_u = false, err_v = false;
  const float su = cpu::speed_channel_score(e[0], e[2], opt_, &err_u);
  const float sv = cpu::speed_channel_score(e[1], e[3], opt_, &err_v);
  const cpu::SpeedScores s = cpu::speed_combine(su, err_u, sv, err_v, opt_.max_val);
  out[0] = s.u;
  out[1] = s.v;
  out[2] = s.uv;
  return Status::ok();
}

Status SpeedGpu::read_stages(std::vector<float>* dec, std::vector<float>* ms) {
  VMAFX_TRY(device_->synchronize());
  dec->assign(dec_.size() / 4, 0.0f);
  ms->assign(ms_.size() / 4, 0.0f);
  VMAFX_TRY(device_->copy_async(CopyKind::device_to_host, dec->data(), dec_.data(), dec_.size()));
  VMAFX_TRY(device_->copy_async(CopyKind::device_to_host, ms->data(), ms_.data(), ms_.size()));
  return device_->synchronize();
}

// ---- speed_temporal -------------------------------------------------------------------------------------------

Status SpeedTemporalGpu::create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc,
                                const cpu::SpeedOptions& opt, bool use_ref_diff, unsigned slots,
                                std::unique_ptr<SpeedTemporalGpu>* out, const ModuleOptions& module_options) {
  if (!out || !device || slots == 0) return {Errc::invalid_argument, "speed_temporal: bad arguments"};
  out->reset();
  cpu::SpeedOptions o = opt;
  o.weight_var_mode = 0;  // as cpu::SpeedTemporal
  VMAFX_TRY(cpu::speed_temporal_check(w, h, bpc, o));
  std::unique_ptr<SpeedTemporalGpu> s(new SpeedTemporalGpu());
  cpu::SpeedDims dims;
  VMAFX_TRY(cpu::speed_dims(w, h, o, &dims, "speed_temporal", "luma"));
  VMAFX_TRY(speed_gpu_params_for(dims, o, &s->params_));
  s->w_ = w;
  s->h_ = h;
  s->bpc_ = bpc;
  s->opt_ = o;
  s->use_ref_diff_ = use_ref_diff;
  s->slots_ = slots;
  s->first_.assign(slots, true);
  VMAFX_TRY(Module::load(device, "speed", &s->module_, module_options));
  VMAFX_TRY(s->module_.function("speed_temporal_diff_kernel", &s->diff_k_));
  VMAFX_TRY(s->module_.function("speed_prescale_float_kernel", &s->prescale_k_));
  VMAFX_TRY(s->module_.function("speed_dec_kernel", &s->dec_k_));
  VMAFX_TRY(s->module_.function("speed_mean_kernel", &s->mean_k_));
  VMAFX_TRY(s->module_.function("speed_estimate_kernel", &s->estimate_k_));
  const cpu::SpeedDims& d = s->params_.dims;
  const size_t n = size_t(w) * h;
  const size_t dec = size_t(d.dec_w) * size_t(d.dec_h) * 2;
  const size_t ny = size_t(speed::kN) * size_t(d.blocks);
  VMAFX_TRY(DeviceBuffer::create(device, 2 * 2 * n * 4, &s->cur_));  // two sets of (ref, dist)
  VMAFX_TRY(DeviceBuffer::create(device, 2 * n * 4, &s->diff_));
  VMAFX_TRY(DeviceBuffer::create(device, dec * 4, &s->dec_));
  VMAFX_TRY(DeviceBuffer::create(device, dec * 4, &s->ms_));
  VMAFX_TRY(DeviceBuffer::create(device, 3 * ny * 2 * 4, &s->work_));
  VMAFX_TRY(DeviceBuffer::create(device, s->params_.out_floats * 2 * 4, &s->out_));
  VMAFX_TRY(PinnedBuffer::create(device, s->params_.out_floats * 2 * 4 * slots, &s->readback_));
  std::memset(s->readback_.data(), 0, s->readback_.size());
  if (d.rescale) {
    const cpu::SpeedScaleTables& t = s->params_.tables;
    VMAFX_TRY(DeviceBuffer::create(device, size_t(d.scaled_w) * d.scaled_h * 2 * 4, &s->scaled_));
    const size_t bytes[4] = {t.x.index.size() * 4, t.x.weight.size() * 4, t.y.index.size() * 4, t.y.weight.size() * 4};
    VMAFX_TRY(DeviceBuffer::create(device, bytes[0] + bytes[1] + bytes[2] + bytes[3] + 16, &s->tables_));
    uint8_t* base = s->tables_.as<uint8_t>();
    const void* src[4] = {t.x.index.data(), t.x.weight.data(), t.y.index.data(), t.y.weight.data()};
    size_t at = 0;
    for (int k = 0; k < 4; ++k) {
      if (bytes[k]) VMAFX_TRY(device->copy_async(CopyKind::host_to_device, base + at, src[k], bytes[k]));
      at += bytes[k];
    }
    VMAFX_TRY(device->synchronize());  // the host tables may go; create() only
  }
  s->device_ = std::move(device);
  *out = std::move(s);
  return Status::ok();
}

Status SpeedTemporalGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  assert(slot < slots_ && frame.bpc == bpc_ && device_plane_fits(frame.ref[0], w_, h_, bpc_) &&
         device_plane_fits(frame.dist[0], w_, h_, bpc_));
  const cpu::SpeedDims& d = params_.dims;
  const bool first = frame.prev_ref == nullptr;
  first_[slot] = first;
  speed::Images imgs{};
  imgs.img[0] = image_arg(frame.ref[0], bpc_);
  imgs.img[1] = image_arg(frame.dist[0], bpc_);
  const size_t n = size_t(w_) * h_;
  float* set0 = cur_.as<float>();
  float* cur = set0 + (first ? 0 : size_t(1 - parity_)) * 2 * n;
  const float* prev = set0 + size_t(parity_) * 2 * n;
  parity_ = first ? 0 : 1 - parity_;
  float* diff = diff_.as<float>();
  const Dim3 tile{speed::kTileW, speed::kTileH, 1};
  VMAFX_TRY(device_->launch(diff_k_, grid_2d(int(w_), int(h_), 1), tile, 0, imgs, vx_i32(w_), vx_i32(h_),
                            vx_i32(use_ref_diff_ ? 1 : 0), vx_i32(first ? 1 : 0), cur, prev, diff));
  if (first) return Status::ok();
  speed::Dims kd = params_.kdims;
  speed::Filters f = params_.filters;
  const float* src = diff;
  if (d.rescale) {
    const cpu::SpeedScaleTables& t = params_.tables;
    const uint8_t* base = tables_.as<uint8_t>();
    speed::ScaleTables kt{};
    kt.method = int(t.method);
    kt.taps = t.x.taps;
    kt.x_index = reinterpret_cast<const vx_i32*>(base);
    kt.x_weight = reinterpret_cast<const float*>(base + t.x.index.size() * 4);
    kt.y_index = reinterpret_cast<const vx_i32*>(base + (t.x.index.size() + t.x.weight.size()) * 4);
    kt.y_weight = reinterpret_cast<const float*>(base + (t.x.index.size() + t.x.weight.size() + t.y.index.size()) * 4);
    float* scaled = scaled_.as<float>();
    const float* csrc = diff;
    VMAFX_TRY(device_->launch(prescale_k_, grid_2d(d.scaled_w, d.scaled_h, 2), tile, 0, csrc, kt, kd, scaled));
    src = scaled;
  }
  {
    float* dec = dec_.as<float>();
    VMAFX_TRY(device_->launch(dec_k_, grid_2d(d.dec_w, d.dec_h, 2), tile, 0, imgs, kd, f, src, dec));
  }
  {
    const float* dec = dec_.as<float>();
    float* ms = ms_.as<float>();
    VMAFX_TRY(device_->launch(mean_k_, grid_2d(d.dec_w, d.dec_h, 2), tile, 0, kd, f, dec, ms));
  }
  {
    const float* ms = ms_.as<float>();
    float* work = work_.as<float>();
    float* o = out_.as<float>();
    VMAFX_TRY(device_->launch(estimate_k_, Dim3{2, 1, 1}, Dim3{speed::kThreads, 1, 1}, 0, kd, ms, work, o));
  }
  const size_t bytes = params_.out_floats * 2 * 4;
  return device_->copy_async(CopyKind::device_to_host, readback_.data() + size_t(slot) * bytes, out_.data(), bytes);
}

bool SpeedTemporalGpu::estimates(unsigned slot, cpu::SpeedEstimate out[2]) const {
  if (slot >= slots_ || first_[slot]) return false;
  std::vector<float> v(params_.out_floats * 2);
  std::memcpy(v.data(), readback_.data() + size_t(slot) * v.size() * 4, v.size() * 4);
  for (int k = 0; k < 2; ++k) speed_gpu_estimate(v.data() + size_t(k) * params_.out_floats, params_, &out[k]);
  return true;
}

Status SpeedTemporalGpu::finish(unsigned slot, double* out) {
  if (slot >= slots_ || !out) return {Errc::invalid_argument, "speed_temporal: bad slot or output"};
  cpu::SpeedEstimate e[2];
  if (!estimates(slot, e)) {
    out[0] = 0.0;  // a stream's first frame
    return Status::ok();
  }
  bool singular = false;
  out[0] = double(cpu::speed_channel_score(e[0], e[1], opt_, &singular));
  return Status::ok();
}

}  // namespace vmafx::hip
