// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/float_vif_gpu.h"

#include <cassert>
#include <cstring>
#include <string>

#include "hip/kernels/float_vif_impl.h"

namespace vmafx::hip {

static_assert(FloatVifGpu::kBlockX == FVIF_BLOCK_X && FloatVifGpu::kBlockY == FVIF_BLOCK_Y &&
                  FloatVifGpu::kRowThreads == FVIF_ROW_THREADS,
              "FloatVifGpu's launch geometry must match kernels/float_vif_impl.h");
static_assert(cpu::kFloatVifMaxTaps == FVIF_MAX_TAPS && cpu::kFloatVifScales == FVIF_SCALES, "taps and scales");
static_assert(int(cpu::VifScaleMethod::nearest) == FVIF_NEAREST && int(cpu::VifScaleMethod::bicubic) == FVIF_BICUBIC &&
                  int(cpu::VifScaleMethod::lanczos4) == FVIF_LANCZOS4 &&
                  int(cpu::VifScaleMethod::bilinear) == FVIF_BILINEAR,
              "scaling methods");

namespace {

size_t round64(size_t n) { return (n + 63) / 64 * 64; }

Dim3 grid_2d(uint32_t w, uint32_t h, unsigned z) {
  return {(w + FVIF_BLOCK_X - 1) / FVIF_BLOCK_X, (h + FVIF_BLOCK_Y - 1) / FVIF_BLOCK_Y, z};
}

}  // namespace

Status FloatVifGpu::create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc,
                           const cpu::FloatVifOptions& options, unsigned slots, std::unique_ptr<FloatVifGpu>* out,
                           const ModuleOptions& module_options) {
  if (!out) return {Errc::invalid_argument, "float_vif (gpu): no output"};
  out->reset();
  if (!device) return {Errc::invalid_argument, "float_vif (gpu): no device"};
  if (slots == 0) return {Errc::invalid_argument, "float_vif (gpu): 0 slots"};
  cpu::FloatVifGeometry g;
  VMAFX_TRY(cpu::FloatVif::check(w, h, bpc, options, &g));

  std::unique_ptr<FloatVifGpu> v(new FloatVifGpu());
  v->w_ = w;
  v->h_ = h;
  v->bpc_ = bpc;
  v->opts_ = options;
  v->geo_ = g;
  v->consts_ = cpu::float_vif_stat_consts(options.enhn_gain_limit, options.sigma_nsq);
  v->slots_ = slots;
  v->rescale_ = g.w[0] != int(w) || g.h[0] != int(h);
  VMAFX_TRY(Module::load(device, "float_vif", &v->module_, module_options));
  const std::pair<const char*, Kernel*> kernels[] = {
      {"float_vif_picture_kernel", &v->picture_.kernel},  {"float_vif_scale_kernel", &v->scale_.kernel},
      {"float_vif_vertical_kernel", &v->vertical_.kernel}, {"float_vif_stat_kernel", &v->stat_.kernel},
      {"float_vif_decimate_v_kernel", &v->dec_v_.kernel},  {"float_vif_decimate_h_kernel", &v->dec_h_.kernel},
      {"float_vif_rowsum_kernel", &v->rowsum_.kernel}};
  for (const auto& k : kernels) VMAFX_TRY(v->module_.function(k.first, k.second));

  // Filter taps of every scale, made by the CPU reference.
  std::vector<float> taps(size_t(cpu::kFloatVifScales) * FVIF_MAX_TAPS, 0.0f);
  for (unsigned s = 0; s < cpu::kFloatVifScales; ++s)
    cpu::float_vif_filter(s, options.kernelscale, taps.data() + size_t(s) * FVIF_MAX_TAPS);
  VMAFX_TRY(DeviceBuffer::create(device, taps.size() * sizeof(float), &v->taps_));
  VMAFX_TRY(device->copy_async(CopyKind::host_to_device, v->taps_.data(), taps.data(), taps.size() * sizeof(float)));

  size_t image_floats = 0;
  for (unsigned s = 0; s < cpu::kFloatVifScales; ++s) {
    v->pitch_[s] = round64(size_t(g.w[s]));
    v->image_offset_[s] = image_floats;
    image_floats += 2 * v->pitch_[s] * size_t(g.h[s]);
    v->row_offset_[s] = v->row_floats_;
    v->row_floats_ += 2 * size_t(g.h[s]);
  }
  const size_t n0 = v->pitch_[0] * size_t(g.h[0]);
  VMAFX_TRY(DeviceBuffer::create(device, image_floats * sizeof(float), &v->images_));
  VMAFX_TRY(DeviceBuffer::create(device, 7 * n0 * sizeof(float), &v->filt_));
  VMAFX_TRY(DeviceBuffer::create(device, 2 * v->pitch_[0] * size_t(g.h[1]) * sizeof(float), &v->dec_));
  VMAFX_TRY(DeviceBuffer::create(device, v->row_floats_ * sizeof(float), &v->rows_));
  VMAFX_TRY(PinnedBuffer::create(device, size_t(slots) * v->row_floats_ * sizeof(float), &v->readback_));
  std::memset(v->readback_.data(), 0, v->readback_.size());

  std::vector<std::vector<int32_t>> idx(2);
  std::vector<std::vector<float>> wt(2);
  if (v->rescale_) {
    v->in_pitch_ = round64(w);
    VMAFX_TRY(DeviceBuffer::create(device, 2 * v->in_pitch_ * h * sizeof(float), &v->in_));
    cpu::float_vif_scale_tables(options.prescale_method, int(w), g.w[0], &idx[0], &wt[0], &v->scale_k_[0]);
    cpu::float_vif_scale_tables(options.prescale_method, int(h), g.h[0], &idx[1], &wt[1], &v->scale_k_[1]);
    const size_t parts[4] = {idx[0].size() * 4, wt[0].size() * 4, idx[1].size() * 4, wt[1].size() * 4};
    size_t bytes = 0;
    for (int i = 0; i < 4; ++i) {
      v->table_offset_[i] = bytes;
      bytes += (parts[i] + 255) / 256 * 256 + 256;
    }
    VMAFX_TRY(DeviceBuffer::create(device, bytes, &v->tables_));
    uint8_t* base = v->tables_.as<uint8_t>();
    const void* src[4] = {idx[0].data(), wt[0].data(), idx[1].data(), wt[1].data()};
    for (int i = 0; i < 4; ++i)
      if (parts[i]) VMAFX_TRY(device->copy_async(CopyKind::host_to_device, base + v->table_offset_[i], src[i], parts[i]));
  }
  v->enqueued_.assign(slots, 0);
  VMAFX_TRY(device->synchronize());  // the tables' uploads (from pageable memory) have finished
  v->device_ = std::move(device);
  *out = std::move(v);
  return Status::ok();
}

const float* FloatVifGpu::image(unsigned scale, bool dist) const {
  if (scale >= cpu::kFloatVifScales || !images_) return nullptr;
  return images_.as<float>() + image_offset_[scale] + (dist ? pitch_[scale] * size_t(geo_.h[scale]) : 0);
}

Status FloatVifGpu::check_plane(const char* what, const DevicePlane& p) const {
  return check_device_plane(p, w_, h_, bpc_, std::string("float_vif (gpu): ") + what + " plane");
}

Status FloatVifGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  // The pipeline made the frame for this geometry and checked its planes.
  assert(frame.bpc == bpc_ && device_plane_fits(frame.ref[0], w_, h_, bpc_) &&
         device_plane_fits(frame.dist[0], w_, h_, bpc_));
  return launch(frame.ref[0], frame.dist[0], slot);
}

Status FloatVifGpu::enqueue_planes(const DevicePlane& ref, const DevicePlane& dist, unsigned slot) {
  if (!device_) return {Errc::invalid_argument, "float_vif (gpu): not created"};
  if (slot >= slots_)
    return {Errc::invalid_argument,
            "float_vif (gpu): slot " + std::to_string(slot) + " of " + std::to_string(slots_) + " slots"};
  VMAFX_TRY(check_plane("reference", ref));
  VMAFX_TRY(check_plane("distorted", dist));
  return launch(ref, dist, slot);
}

Status FloatVifGpu::launch(const DevicePlane& ref, const DevicePlane& dist, unsigned slot) {
  assert(device_ && slot < slots_);
  if (device_->failed()) return device_->status();
  enqueued_[slot] = 0;

  // The float pictures.
  FvifPictureArgs pa{};
  pa.ref = ref;
  pa.dist = dist;
  pa.bpc = bpc_;
  float* pic = rescale_ ? in_.as<float>() : const_cast<float*>(image(0, false));
  const size_t pic_pitch = rescale_ ? in_pitch_ : pitch_[0];
  pa.out_ref = pic;
  pa.out_dist = pic + pic_pitch * (rescale_ ? h_ : size_t(geo_.h[0]));
  pa.out_pitch = pic_pitch;
  pa.w = w_;
  pa.h = h_;
  VMAFX_TRY(device_->launch(picture_, grid_2d(w_, h_, 2), Dim3{FVIF_BLOCK_X, FVIF_BLOCK_Y, 1}, 0, pa));
  if (rescale_) {
    FvifScaleArgs sa{};
    sa.src_ref = pa.out_ref;
    sa.src_dist = pa.out_dist;
    sa.src_pitch = in_pitch_;
    sa.dst_ref = const_cast<float*>(image(0, false));
    sa.dst_dist = const_cast<float*>(image(0, true));
    sa.dst_pitch = pitch_[0];
    const uint8_t* base = tables_.as<uint8_t>();
    sa.col_idx = reinterpret_cast<const vx_i32*>(base + table_offset_[0]);
    sa.col_w = reinterpret_cast<const float*>(base + table_offset_[1]);
    sa.row_idx = reinterpret_cast<const vx_i32*>(base + table_offset_[2]);
    sa.row_w = reinterpret_cast<const float*>(base + table_offset_[3]);
    sa.dw = uint32_t(geo_.w[0]);
    sa.dh = uint32_t(geo_.h[0]);
    sa.method = uint32_t(opts_.prescale_method);
    sa.k = uint32_t(scale_k_[0]);
    VMAFX_TRY(device_->launch(scale_, grid_2d(sa.dw, sa.dh, 2), Dim3{FVIF_BLOCK_X, FVIF_BLOCK_Y, 1}, 0, sa));
  }

  const size_t n0 = pitch_[0] * size_t(geo_.h[0]);
  float* f = filt_.as<float>();
  float* rows = rows_.as<float>();
  const unsigned start = opts_.skip_scale0 ? 1 : 0;
  for (unsigned s = start; s < cpu::kFloatVifScales; ++s) {
    const float* taps = taps_.as<float>() + size_t(s) * FVIF_MAX_TAPS;
    const uint32_t w = uint32_t(geo_.w[s]), h = uint32_t(geo_.h[s]);
    if (s > 0) {
      FvifDecimateArgs da{};
      da.src_ref = image(s - 1, false);
      da.src_dist = image(s - 1, true);
      da.src_pitch = pitch_[s - 1];
      da.tmp_ref = dec_.as<float>();
      da.tmp_dist = dec_.as<float>() + pitch_[0] * size_t(geo_.h[1]);
      da.tmp_pitch = pitch_[s - 1];
      da.dst_ref = const_cast<float*>(image(s, false));
      da.dst_dist = const_cast<float*>(image(s, true));
      da.dst_pitch = pitch_[s];
      da.taps = taps;
      da.fw = geo_.taps[s];
      da.src_w = uint32_t(geo_.w[s - 1]);
      da.src_h = uint32_t(geo_.h[s - 1]);
      da.dst_w = w;
      da.dst_h = h;
      VMAFX_TRY(device_->launch(dec_v_, grid_2d(da.src_w, h, 2), Dim3{FVIF_BLOCK_X, FVIF_BLOCK_Y, 1}, 0, da));
      VMAFX_TRY(device_->launch(dec_h_, grid_2d(w, h, 2), Dim3{FVIF_BLOCK_X, FVIF_BLOCK_Y, 1}, 0, da));
    }
    FvifFilterArgs fa{};
    fa.ref = image(s, false);
    fa.dist = image(s, true);
    fa.pitch = pitch_[s];
    fa.taps = taps;
    fa.mu1 = f;
    fa.mu2 = f + n0;
    fa.xx = f + 2 * n0;
    fa.yy = f + 3 * n0;
    fa.xy = f + 4 * n0;
    fa.fw = geo_.taps[s];
    fa.w = w;
    fa.h = h;
    VMAFX_TRY(device_->launch(vertical_, grid_2d(w, h, 1), Dim3{FVIF_BLOCK_X, FVIF_BLOCK_Y, 1}, 0, fa));
    FvifStatArgs st{};
    st.mu1 = fa.mu1;
    st.mu2 = fa.mu2;
    st.xx = fa.xx;
    st.yy = fa.yy;
    st.xy = fa.xy;
    st.pitch = pitch_[s];
    st.taps = taps;
    st.num = f + 5 * n0;
    st.den = f + 6 * n0;
    st.c = FvifStat{consts_.sigma_nsq, consts_.enhn_gain_limit, consts_.sigma_max_inv};
    st.fw = geo_.taps[s];
    st.w = w;
    st.h = h;
    VMAFX_TRY(device_->launch(stat_, grid_2d(w, h, 1), Dim3{FVIF_BLOCK_X, FVIF_BLOCK_Y, 1}, 0, st));
    FvifRowArgs ra{};
    ra.a = st.num;
    ra.b = st.den;
    ra.pitch = pitch_[s];
    ra.out_a = rows + row_offset_[s];
    ra.out_b = rows + row_offset_[s] + h;
    ra.w = w;
    ra.h = h;
    VMAFX_TRY(device_->launch(rowsum_, Dim3{(h + FVIF_ROW_THREADS - 1) / FVIF_ROW_THREADS, 1, 1},
                              Dim3{FVIF_ROW_THREADS, 1, 1}, 0, ra));
  }
  VMAFX_TRY(device_->copy_async(CopyKind::device_to_host, readback_.data() + slot * row_floats_ * sizeof(float), rows,
                                row_floats_ * sizeof(float)));
  enqueued_[slot] = 1;
  return Status::ok();
}

Status FloatVifGpu::scores(unsigned slot, cpu::FloatVifScores* out, cpu::FloatVifRowSums* row_sums) const {
  if (!device_) return {Errc::invalid_argument, "float_vif (gpu): not created"};
  if (!out) return {Errc::invalid_argument, "float_vif (gpu): no output"};
  if (slot >= slots_)
    return {Errc::invalid_argument,
            "float_vif (gpu): slot " + std::to_string(slot) + " of " + std::to_string(slots_) + " slots"};
  if (!enqueued_[slot])
    return {Errc::invalid_argument, "float_vif (gpu): nothing was queued in slot " + std::to_string(slot)};
  if (device_->failed()) return device_->status();
  const float* rows = reinterpret_cast<const float*>(readback_.data()) + slot * row_floats_;
  float num[cpu::kFloatVifScales] = {}, den[cpu::kFloatVifScales] = {};
  const unsigned start = opts_.skip_scale0 ? 1 : 0;
  for (unsigned s = 0; s < cpu::kFloatVifScales; ++s) {
    const int h = geo_.h[s];
    const float* rn = rows + row_offset_[s];
    const float* rd = rn + h;
    if (row_sums) {
      row_sums->num[s].clear();
      row_sums->den[s].clear();
    }
    if (s < start) continue;
    num[s] = cpu::float_vif_sum_rows(rn, h);
    den[s] = cpu::float_vif_sum_rows(rd, h);
    if (row_sums) {
      row_sums->num[s].assign(rn, rn + h);
      row_sums->den[s].assign(rd, rd + h);
    }
  }
  cpu::float_vif_scores(num, den, opts_, out);
  return Status::ok();
}

Status FloatVifGpu::finish(unsigned slot, double* out) {
  if (!out) return {Errc::invalid_argument, "float_vif (gpu): no output"};
  cpu::FloatVifScores s;
  VMAFX_TRY(scores(slot, &s));
  double all[cpu::kFloatVifOutputs];
  cpu::float_vif_outputs(s, all);
  for (size_t k = 0; k < outputs_; ++k) out[k] = all[k];
  return Status::ok();
}

}  // namespace vmafx::hip
