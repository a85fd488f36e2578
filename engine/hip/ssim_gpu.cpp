// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/ssim_gpu.h"

#include <cassert>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "hip/kernels/ssim_impl.h"

namespace vmafx::hip {

static_assert(SsimKernels::kBlockX == SSIM_BLOCK_X && SsimKernels::kBlockY == SSIM_BLOCK_Y,
              "SsimKernels' launch geometry must match kernels/ssim_impl.h");
static_assert(cpu::kSsimWindow == SSIM_WINDOW, "window");

namespace {

Dim3 grid_of(uint32_t w, uint32_t h) {
  return {(w + SsimKernels::kBlockX - 1) / SsimKernels::kBlockX, (h + SsimKernels::kBlockY - 1) / SsimKernels::kBlockY,
          1};
}

// A luma plane the kernels can read: w x h samples of bpc bits.
Status check_luma(const char* feature, const char* which, const DevicePlane& p, uint32_t w, uint32_t h,
                  unsigned bpc) {
  return check_device_plane(p, w, h, bpc, std::string(feature) + " (gpu): " + which + " plane");
}

Status check_slot(const char* feature, unsigned slot, unsigned slots) {
  if (slot >= slots)
    return {Errc::invalid_argument, std::string(feature) + " (gpu): slot " + std::to_string(slot) + " of " +
                                        std::to_string(slots) + " slots"};
  return Status::ok();
}

// The means of one scale as the CPU's ssim_pool rounds them.
cpu::SsimMeans means_of(const double s[4], uint32_t w, uint32_t h) {
  const double count = double(int((w - cpu::kSsimWindow + 1) * (h - cpu::kSsimWindow + 1)));
  cpu::SsimMeans m;
  m.l = float(s[1] / count);
  m.c = float(s[2] / count);
  m.s = float(s[3] / count);
  m.ssim = float(s[0] / count);
  return m;
}

}  // namespace

// ---- SsimKernels ------------------------------------------------------------------------------------------------

Status SsimKernels::load(std::shared_ptr<Device> device, const ModuleOptions& options, SsimKernels* out) {
  VMAFX_TRY(Module::load(device, "ssim", &out->module_, options));
  VMAFX_TRY(out->module_.function("ssim_convert_kernel", &out->convert_));
  VMAFX_TRY(out->module_.function("ssim_decimate_kernel", &out->decimate_));
  VMAFX_TRY(out->module_.function("ssim_rows_kernel", &out->rows_));
  VMAFX_TRY(out->module_.function("ssim_pool_kernel", &out->pool_));
  VMAFX_TRY(out->module_.function("ssim_final_kernel", &out->final_));
  out->device_ = std::move(device);
  return Status::ok();
}

size_t SsimKernels::tmp_floats(uint32_t w, uint32_t h) { return size_t(SSIM_MAPS) * (w - SSIM_WINDOW + 1) * h; }

size_t SsimKernels::partial_doubles(uint32_t w, uint32_t h) {
  const Dim3 g = grid_of(w - SSIM_WINDOW + 1, h - SSIM_WINDOW + 1);
  return 4 * size_t(g.x) * g.y;
}

Status SsimKernels::convert(const DevicePlane& ref, const DevicePlane& dist, float divisor, float* ref_out,
                            float* dist_out) const {
  assert(ref.width == dist.width && ref.height == dist.height);
  SsimConvertArgs a{};
  a.ref = ref;
  a.dist = dist;
  a.divisor = divisor;
  a.ref_out = ref_out;
  a.dist_out = dist_out;
  return device_->launch(convert_, grid_of(ref.width, ref.height), Dim3{kBlockX, kBlockY, 1}, 0, a);
}

Status SsimKernels::decimate(const float* ref, const float* dist, uint32_t w, uint32_t h, const float* kernel, int kw,
                             int kh, int factor, float* ref_out, float* dist_out, uint32_t dw, uint32_t dh) const {
  SsimDecimateArgs a{};
  a.ref = ref;
  a.dist = dist;
  a.kernel = kernel;
  a.ref_out = ref_out;
  a.dist_out = dist_out;
  a.w = w;
  a.h = h;
  a.kw = vx_u32(kw);
  a.kh = vx_u32(kh);
  a.factor = vx_u32(factor);
  a.dw = dw;
  a.dh = dh;
  return device_->launch(decimate_, grid_of(dw, dh), Dim3{kBlockX, kBlockY, 1}, 0, a);
}

Status SsimKernels::scale_sums(const float* ref, const float* dist, uint32_t w, uint32_t h, float* tmp,
                               double* partials, double* sums, float* moments) const {
  const uint32_t dw = w - SSIM_WINDOW + 1, dh = h - SSIM_WINDOW + 1;
  SsimRowsArgs r{};
  r.ref = ref;
  r.dist = dist;
  r.tmp = tmp;
  r.map_stride = size_t(dw) * h;
  r.w = w;
  r.h = h;
  VMAFX_TRY(device_->launch(rows_, grid_of(dw, h), Dim3{kBlockX, kBlockY, 1}, 0, r));

  SsimPoolArgs p{};
  p.tmp = tmp;
  p.map_stride = size_t(dw) * h;
  p.partials = partials;
  p.moments = moments;
  p.dw = dw;
  p.dh = dh;
  const Dim3 g = grid_of(dw, dh);
  VMAFX_TRY(device_->launch(pool_, g, Dim3{kBlockX, kBlockY, 1}, 0, p));

  SsimFinalArgs f{};
  f.partials = partials;
  f.out = sums;
  f.blocks = g.x * g.y;
  return device_->launch(final_, Dim3{1, 1, 1}, Dim3{SSIM_FINAL_THREADS, 1, 1}, 0, f);
}

// ---- SsimGpu ----------------------------------------------------------------------------------------------------

Status SsimGpu::create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc, unsigned slots,
                       std::unique_ptr<SsimGpu>* out, const ModuleOptions& module_options, int scale) {
  if (!out) return {Errc::invalid_argument, "float_ssim (gpu): no output"};
  out->reset();
  if (!device) return {Errc::invalid_argument, "float_ssim (gpu): no device"};
  if (slots == 0) return {Errc::invalid_argument, "float_ssim (gpu): 0 slots"};
  VMAFX_TRY(cpu::Ssim::check_size(w, h, scale).prepend("float_ssim (gpu)"));
  std::unique_ptr<SsimGpu> s(new SsimGpu());
  VMAFX_TRY(cpu::ssim_float_divisor(bpc, &s->divisor_));
  if (h > 65535u * SSIM_BLOCK_Y) return {Errc::unsupported, "float_ssim (gpu): " + std::to_string(h) + " rows"};
  s->w_ = w;
  s->h_ = h;
  s->bpc_ = bpc;
  s->slots_ = slots;
  s->scale_ = cpu::ssim_scale_for(int(w), int(h), scale);
  s->sw_ = w;
  s->sh_ = h;
  VMAFX_TRY(SsimKernels::load(device, module_options, &s->k_));
  VMAFX_TRY(DeviceBuffer::create(device, 2 * size_t(w) * h * sizeof(float), &s->converted_));
  if (s->scale_ > 1) {
    s->sw_ = uint32_t(cpu::decimated_size(int(w), s->scale_));
    s->sh_ = uint32_t(cpu::decimated_size(int(h), s->scale_));
    const std::vector<float> box = cpu::ssim_box_kernel(s->scale_);
    VMAFX_TRY(DeviceBuffer::create(device, box.size() * sizeof(float), &s->box_));
    VMAFX_TRY(device->copy_async(CopyKind::host_to_device, s->box_.data(), box.data(), box.size() * sizeof(float)));
    VMAFX_TRY(DeviceBuffer::create(device, 2 * size_t(s->sw_) * s->sh_ * sizeof(float), &s->small_));
  }
  if (s->sw_ < uint32_t(cpu::kSsimWindow) || s->sh_ < uint32_t(cpu::kSsimWindow))
    return {Errc::internal, "float_ssim (gpu): decimated image smaller than the window"};
  VMAFX_TRY(DeviceBuffer::create(device, SsimKernels::tmp_floats(s->sw_, s->sh_) * sizeof(float), &s->tmp_));
  VMAFX_TRY(
      DeviceBuffer::create(device, SsimKernels::partial_doubles(s->sw_, s->sh_) * sizeof(double), &s->partials_));
  VMAFX_TRY(DeviceBuffer::create(device, size_t(slots) * 4 * sizeof(double), &s->sums_));
  VMAFX_TRY(PinnedBuffer::create(device, size_t(slots) * 4 * sizeof(double), &s->readback_));
  std::memset(s->readback_.data(), 0, s->readback_.size());
  s->enqueued_.reset(new bool[slots]());
  VMAFX_TRY(device->synchronize());  // the box kernel's upload (from pageable memory) has finished
  s->device_ = std::move(device);
  *out = std::move(s);
  return Status::ok();
}

const float* SsimGpu::converted(bool distorted) const {
  return converted_ ? converted_.as<const float>() + (distorted ? size_t(w_) * h_ : 0) : nullptr;
}

const float* SsimGpu::image(bool distorted) const {
  if (scale_ == 1) return converted(distorted);
  return small_ ? small_.as<const float>() + (distorted ? size_t(sw_) * sh_ : 0) : nullptr;
}

Status SsimGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  // The pipeline made the frame for this geometry and checked its planes.
  assert(frame.bpc == bpc_ && device_plane_fits(frame.ref[0], w_, h_, bpc_) &&
         device_plane_fits(frame.dist[0], w_, h_, bpc_));
  return launch(frame.ref[0], frame.dist[0], slot, nullptr);
}

Status SsimGpu::enqueue_planes(const DevicePlane& ref, const DevicePlane& dist, unsigned slot,
                               const SsimDebugOutputs* debug) {
  if (!device_) return {Errc::invalid_argument, "float_ssim (gpu): not created"};
  VMAFX_TRY(check_slot("float_ssim", slot, slots_));
  VMAFX_TRY(check_luma("float_ssim", "reference", ref, w_, h_, bpc_));
  VMAFX_TRY(check_luma("float_ssim", "distorted", dist, w_, h_, bpc_));
  return launch(ref, dist, slot, debug);
}

Status SsimGpu::launch(const DevicePlane& ref, const DevicePlane& dist, unsigned slot, const SsimDebugOutputs* debug) {
  assert(device_ && slot < slots_);
  if (device_->failed()) return device_->status();
  float* conv = converted_.as<float>();
  VMAFX_TRY(k_.convert(ref, dist, divisor_, conv, conv + size_t(w_) * h_));
  if (scale_ > 1) {
    float* small = small_.as<float>();
    VMAFX_TRY(k_.decimate(conv, conv + size_t(w_) * h_, w_, h_, box_.as<const float>(), scale_, scale_, scale_, small,
                          small + size_t(sw_) * sh_, sw_, sh_));
  }
  double* sums = sums_.as<double>() + size_t(slot) * 4;
  VMAFX_TRY(k_.scale_sums(image(false), image(true), sw_, sh_, tmp_.as<float>(), partials_.as<double>(), sums,
                          debug ? static_cast<float*>(debug->moments[0]) : nullptr));
  VMAFX_TRY(device_->copy_async(CopyKind::device_to_host, readback_.data() + size_t(slot) * 4 * sizeof(double), sums,
                                4 * sizeof(double)));
  enqueued_[slot] = true;
  return Status::ok();
}

Status SsimGpu::sums(unsigned slot, double out[4]) const {
  if (!device_) return {Errc::invalid_argument, "float_ssim (gpu): not created"};
  VMAFX_TRY(check_slot("float_ssim", slot, slots_));
  if (!enqueued_[slot])
    return {Errc::invalid_argument, "float_ssim (gpu): nothing was queued in slot " + std::to_string(slot)};
  if (device_->failed()) return device_->status();
  std::memcpy(out, readback_.data() + size_t(slot) * 4 * sizeof(double), 4 * sizeof(double));
  return Status::ok();
}

Status SsimGpu::finish(unsigned slot, double* out) {
  if (!out) return {Errc::invalid_argument, "float_ssim (gpu): no output"};
  double s[4];
  VMAFX_TRY(sums(slot, s));
  cpu::ssim_values(report_, means_of(s, sw_, sh_), out);
  return Status::ok();
}

// ---- MsSsimGpu --------------------------------------------------------------------------------------------------

Status MsSsimGpu::create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc, unsigned slots,
                         std::unique_ptr<MsSsimGpu>* out, const ModuleOptions& module_options) {
  if (!out) return {Errc::invalid_argument, "float_ms_ssim (gpu): no output"};
  out->reset();
  if (!device) return {Errc::invalid_argument, "float_ms_ssim (gpu): no device"};
  if (slots == 0) return {Errc::invalid_argument, "float_ms_ssim (gpu): 0 slots"};
  VMAFX_TRY(cpu::MsSsim::check_size(w, h).prepend("float_ms_ssim (gpu)"));
  std::unique_ptr<MsSsimGpu> m(new MsSsimGpu());
  VMAFX_TRY(cpu::ssim_float_divisor(bpc, &m->divisor_));
  if (h > 65535u * SSIM_BLOCK_Y) return {Errc::unsupported, "float_ms_ssim (gpu): " + std::to_string(h) + " rows"};
  m->w_ = w;
  m->h_ = h;
  m->bpc_ = bpc;
  m->slots_ = slots;
  VMAFX_TRY(SsimKernels::load(device, module_options, &m->k_));
  size_t floats = 0;
  int cw = int(w), ch = int(h);
  for (int i = 0; i < cpu::kMsSsimScales; ++i) {
    m->sw_[i] = uint32_t(cw);
    m->sh_[i] = uint32_t(ch);
    m->offset_[i] = floats;
    floats += 2 * size_t(cw) * size_t(ch);
    cw = cpu::decimated_size(cw, 2);
    ch = cpu::decimated_size(ch, 2);
  }
  VMAFX_TRY(DeviceBuffer::create(device, floats * sizeof(float), &m->images_));
  VMAFX_TRY(DeviceBuffer::create(device, sizeof(cpu::kMsSsimLpf), &m->lpf_));
  VMAFX_TRY(device->copy_async(CopyKind::host_to_device, m->lpf_.data(), cpu::kMsSsimLpf, sizeof(cpu::kMsSsimLpf)));
  VMAFX_TRY(DeviceBuffer::create(device, SsimKernels::tmp_floats(w, h) * sizeof(float), &m->tmp_));
  VMAFX_TRY(DeviceBuffer::create(device, SsimKernels::partial_doubles(w, h) * sizeof(double), &m->partials_));
  const size_t slot_bytes = size_t(cpu::kMsSsimScales) * 4 * sizeof(double);
  VMAFX_TRY(DeviceBuffer::create(device, slots * slot_bytes, &m->sums_));
  VMAFX_TRY(PinnedBuffer::create(device, slots * slot_bytes, &m->readback_));
  std::memset(m->readback_.data(), 0, m->readback_.size());
  m->enqueued_.reset(new bool[slots]());
  VMAFX_TRY(device->synchronize());  // the low-pass's upload (from static memory) has finished
  m->device_ = std::move(device);
  *out = std::move(m);
  return Status::ok();
}

const float* MsSsimGpu::image(unsigned scale, bool distorted) const {
  if (scale >= unsigned(cpu::kMsSsimScales) || !images_) return nullptr;
  return images_.as<const float>() + offset_[scale] + (distorted ? size_t(sw_[scale]) * sh_[scale] : 0);
}

Status MsSsimGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  // The pipeline made the frame for this geometry and checked its planes.
  assert(frame.bpc == bpc_ && device_plane_fits(frame.ref[0], w_, h_, bpc_) &&
         device_plane_fits(frame.dist[0], w_, h_, bpc_));
  return launch(frame.ref[0], frame.dist[0], slot, nullptr);
}

Status MsSsimGpu::enqueue_planes(const DevicePlane& ref, const DevicePlane& dist, unsigned slot,
                                 const SsimDebugOutputs* debug) {
  if (!device_) return {Errc::invalid_argument, "float_ms_ssim (gpu): not created"};
  VMAFX_TRY(check_slot("float_ms_ssim", slot, slots_));
  VMAFX_TRY(check_luma("float_ms_ssim", "reference", ref, w_, h_, bpc_));
  VMAFX_TRY(check_luma("float_ms_ssim", "distorted", dist, w_, h_, bpc_));
  return launch(ref, dist, slot, debug);
}

Status MsSsimGpu::launch(const DevicePlane& ref, const DevicePlane& dist, unsigned slot,
                         const SsimDebugOutputs* debug) {
  assert(device_ && slot < slots_);
  if (device_->failed()) return device_->status();
  auto img = [&](unsigned s, bool d) { return const_cast<float*>(image(s, d)); };
  VMAFX_TRY(k_.convert(ref, dist, divisor_, img(0, false), img(0, true)));
  for (unsigned s = 1; s < unsigned(cpu::kMsSsimScales); ++s)
    VMAFX_TRY(k_.decimate(img(s - 1, false), img(s - 1, true), sw_[s - 1], sh_[s - 1], lpf_.as<const float>(),
                          cpu::kMsSsimLpfLen, cpu::kMsSsimLpfLen, 2, img(s, false), img(s, true), sw_[s], sh_[s]));
  double* sums = sums_.as<double>() + size_t(slot) * cpu::kMsSsimScales * 4;
  for (unsigned s = 0; s < unsigned(cpu::kMsSsimScales); ++s)
    VMAFX_TRY(k_.scale_sums(image(s, false), image(s, true), sw_[s], sh_[s], tmp_.as<float>(),
                            partials_.as<double>(), sums + 4 * s,
                            debug ? static_cast<float*>(debug->moments[s]) : nullptr));
  const size_t slot_bytes = size_t(cpu::kMsSsimScales) * 4 * sizeof(double);
  VMAFX_TRY(device_->copy_async(CopyKind::device_to_host, readback_.data() + slot * slot_bytes, sums, slot_bytes));
  enqueued_[slot] = true;
  return Status::ok();
}

Status MsSsimGpu::sums(unsigned slot, double out[cpu::kMsSsimScales][4]) const {
  if (!device_) return {Errc::invalid_argument, "float_ms_ssim (gpu): not created"};
  VMAFX_TRY(check_slot("float_ms_ssim", slot, slots_));
  if (!enqueued_[slot])
    return {Errc::invalid_argument, "float_ms_ssim (gpu): nothing was queued in slot " + std::to_string(slot)};
  if (device_->failed()) return device_->status();
  const size_t slot_bytes = size_t(cpu::kMsSsimScales) * 4 * sizeof(double);
  std::memcpy(out, readback_.data() + slot * slot_bytes, slot_bytes);
  return Status::ok();
}

Status MsSsimGpu::means(unsigned slot, cpu::SsimMeans out[cpu::kMsSsimScales]) const {
  double s[cpu::kMsSsimScales][4];
  VMAFX_TRY(sums(slot, s));
  for (int i = 0; i < cpu::kMsSsimScales; ++i) out[i] = means_of(s[i], sw_[i], sh_[i]);
  return Status::ok();
}

Status MsSsimGpu::finish(unsigned slot, double* out) {
  if (!out) return {Errc::invalid_argument, "float_ms_ssim (gpu): no output"};
  cpu::SsimMeans m[cpu::kMsSsimScales];
  VMAFX_TRY(means(slot, m));
  const double product = cpu::ms_ssim_combine(m);
  if (product == HUGE_VAL) return {Errc::internal, "ms-ssim: score overflowed to infinity"};
  cpu::ms_ssim_values(report_, product, m, out);
  return Status::ok();
}

}  // namespace vmafx::hip
