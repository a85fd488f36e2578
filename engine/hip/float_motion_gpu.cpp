// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/float_motion_gpu.h"

#include <cassert>
#include <cstring>
#include <string>

#include "hip/kernels/float_motion_impl.h"

namespace vmafx::hip {

static_assert(FloatMotionGpu::kBlockX == FMOT_BLOCK_X && FloatMotionGpu::kBlockY == FMOT_BLOCK_Y &&
                  FloatMotionGpu::kRowThreads == FMOT_ROW_THREADS,
              "FloatMotionGpu's launch geometry must match kernels/float_motion_impl.h");

namespace {

size_t round64(size_t n) { return (n + 63) / 64 * 64; }

Dim3 grid_2d(uint32_t w, uint32_t h) {
  return {(w + FMOT_BLOCK_X - 1) / FMOT_BLOCK_X, (h + FMOT_BLOCK_Y - 1) / FMOT_BLOCK_Y, 1};
}

size_t align256(size_t b) { return (b + 255) / 256 * 256; }

}  // namespace

Status FloatMotionGpu::create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc, Chroma chroma,
                              const cpu::FloatMotionOptions& options, unsigned slots,
                              std::unique_ptr<FloatMotionGpu>* out, const ModuleOptions& module_options) {
  if (!out) return {Errc::invalid_argument, "float_motion (gpu): no output"};
  out->reset();
  if (!device) return {Errc::invalid_argument, "float_motion (gpu): no device"};
  if (slots == 0) return {Errc::invalid_argument, "float_motion (gpu): 0 slots"};
  VMAFX_TRY(cpu::FloatMotion::check(w, h, bpc, chroma, options));

  std::unique_ptr<FloatMotionGpu> m(new FloatMotionGpu());
  m->w_ = w;
  m->h_ = h;
  m->bpc_ = bpc;
  m->opts_ = options;
  m->planes_ = options.add_uv ? 3 : 1;
  m->state_.assign(slots, 0);
  if (!options.force_zero) {
    VMAFX_TRY(Module::load(device, "float_motion", &m->module_, module_options));
    const std::pair<const char*, Kernel*> kernels[] = {
        {"float_motion_picture_kernel", &m->picture_.kernel}, {"float_motion_blur_v_kernel", &m->blur_v_.kernel},
        {"float_motion_blur_h_kernel", &m->blur_h_.kernel},   {"float_motion_half_kernel", &m->half_.kernel},
        {"float_motion_rowsad_kernel", &m->rowsad_.kernel}};
    for (const auto& k : kernels) VMAFX_TRY(m->module_.function(k.first, k.second));

    const float* taps;
    m->fw_ = cpu::float_motion_filter(options.filter_size, &taps);
    VMAFX_TRY(DeviceBuffer::create(device, size_t(m->fw_) * sizeof(float), &m->taps_));
    VMAFX_TRY(device->copy_async(CopyKind::host_to_device, m->taps_.data(), taps, size_t(m->fw_) * sizeof(float)));

    size_t work = 0, table_bytes = 0;
    std::vector<int32_t> idx[3][2];
    std::vector<float> wt[3][2];
    for (unsigned p = 0; p < m->planes_; ++p) {
      m->pw_[p] = p == 0 ? w : chroma_width(chroma, w);
      m->ph_[p] = p == 0 ? h : chroma_height(chroma, h);
      m->pitch_[p] = round64(m->pw_[p]);
      const size_t plane = m->pitch_[p] * m->ph_[p];
      for (int k = 0; k < 4; ++k) m->work_offset_[p][k] = work + size_t(k) * plane;
      work += 4 * plane;
      m->row_offset_[p][0] = m->row_floats_;
      m->row_floats_ += m->ph_[p];
      if (options.add_scale1) {
        m->hw_[p] = uint32_t(cpu::float_motion_half(int(m->pw_[p])));
        m->hh_[p] = uint32_t(cpu::float_motion_half(int(m->ph_[p])));
        m->half_pitch_[p] = round64(m->hw_[p]);
        const size_t hp = m->half_pitch_[p] * m->hh_[p];
        m->work_offset_[p][4] = work;
        m->work_offset_[p][5] = work + hp;
        work += 2 * hp;
        m->row_offset_[p][1] = m->row_floats_;
        m->row_floats_ += m->hh_[p];
        int k;
        cpu::float_vif_scale_tables(cpu::VifScaleMethod::bilinear, int(m->pw_[p]), int(m->hw_[p]), &idx[p][0],
                                    &wt[p][0], &k);
        cpu::float_vif_scale_tables(cpu::VifScaleMethod::bilinear, int(m->ph_[p]), int(m->hh_[p]), &idx[p][1],
                                    &wt[p][1], &k);
        const size_t parts[4] = {idx[p][0].size() * 4, wt[p][0].size() * 4, idx[p][1].size() * 4,
                                 wt[p][1].size() * 4};
        for (int i = 0; i < 4; ++i) {
          m->table_offset_[p][i] = table_bytes;
          table_bytes += align256(parts[i]);
        }
      }
    }
    VMAFX_TRY(DeviceBuffer::create(device, work * sizeof(float), &m->work_));
    VMAFX_TRY(DeviceBuffer::create(device, m->row_floats_ * sizeof(float), &m->rows_));
    VMAFX_TRY(PinnedBuffer::create(device, size_t(slots) * m->row_floats_ * sizeof(float), &m->readback_));
    std::memset(m->readback_.data(), 0, m->readback_.size());
    if (options.add_scale1) {
      VMAFX_TRY(DeviceBuffer::create(device, table_bytes, &m->tables_));
      for (unsigned p = 0; p < m->planes_; ++p) {
        const void* src[4] = {idx[p][0].data(), wt[p][0].data(), idx[p][1].data(), wt[p][1].data()};
        const size_t parts[4] = {idx[p][0].size() * 4, wt[p][0].size() * 4, idx[p][1].size() * 4,
                                 wt[p][1].size() * 4};
        for (int i = 0; i < 4; ++i)
          VMAFX_TRY(device->copy_async(CopyKind::host_to_device, m->tables_.as<uint8_t>() + m->table_offset_[p][i],
                                       src[i], parts[i]));
      }
    }
    VMAFX_TRY(device->synchronize());  // the taps' and tables' uploads (pageable memory) have finished
  }
  m->device_ = std::move(device);
  *out = std::move(m);
  return Status::ok();
}

float* FloatMotionGpu::blur(unsigned plane, unsigned parity) const {
  return work_.as<float>() + work_offset_[plane][2 + parity];
}
float* FloatMotionGpu::half(unsigned plane, unsigned parity) const {
  return work_.as<float>() + work_offset_[plane][4 + parity];
}
const float* FloatMotionGpu::blurred() const { return work_ ? blur(0, cur_) : nullptr; }

Status FloatMotionGpu::check_plane(const char* what, const DevicePlane& p, uint32_t w, uint32_t h) const {
  return check_device_plane(p, w, h, bpc_, std::string("float_motion (gpu): ") + what + " plane");
}

Status FloatMotionGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  // The pipeline made the frame for this geometry (with chroma when motion_add_uv reads it) and checked its planes.
  assert(frame.bpc == bpc_ && (planes_ == 1 || frame.planes >= 3) && device_plane_fits(frame.ref[0], w_, h_, bpc_));
  return launch(frame.ref[0], planes_ == 3 ? frame.ref + 1 : nullptr, frame.prev_ref == nullptr, slot);
}

Status FloatMotionGpu::enqueue_planes(const DevicePlane& ref, const DevicePlane* uv, bool first, unsigned slot) {
  if (!device_) return {Errc::invalid_argument, "float_motion (gpu): not created"};
  if (slot >= state_.size())
    return {Errc::invalid_argument,
            "float_motion (gpu): slot " + std::to_string(slot) + " of " + std::to_string(state_.size()) + " slots"};
  if (!opts_.force_zero) {
    VMAFX_TRY(check_plane("reference", ref, w_, h_));
    if (planes_ == 3) {
      if (!uv) return {Errc::invalid_argument, "float_motion (gpu): motion_add_uv needs the two chroma planes"};
      VMAFX_TRY(check_plane("reference Cb", uv[0], pw_[1], ph_[1]));
      VMAFX_TRY(check_plane("reference Cr", uv[1], pw_[2], ph_[2]));
    }
  }
  return launch(ref, uv, first, slot);
}

Status FloatMotionGpu::launch(const DevicePlane& ref, const DevicePlane* uv, bool first, unsigned slot) {
  assert(device_ && slot < state_.size() && (planes_ == 1 || opts_.force_zero || uv));
  state_[slot] = 0;
  if (opts_.force_zero) {
    state_[slot] = 1;
    return Status::ok();
  }
  if (device_->failed()) return device_->status();
  if (first) have_prev_ = false;
  cur_ ^= 1;
  const Dim3 block{FMOT_BLOCK_X, FMOT_BLOCK_Y, 1};
  float* rows = rows_.as<float>();
  for (unsigned p = 0; p < planes_; ++p) {
    const DevicePlane& src = p == 0 ? ref : uv[p - 1];
    float* pic = work_.as<float>() + work_offset_[p][0];
    float* tmp = work_.as<float>() + work_offset_[p][1];
    FmotPictureArgs pa{};
    pa.src = src;
    pa.bpc = bpc_;
    pa.out = pic;
    pa.out_pitch = pitch_[p];
    pa.w = pw_[p];
    pa.h = ph_[p];
    VMAFX_TRY(device_->launch(picture_, grid_2d(pw_[p], ph_[p]), block, 0, pa));
    FmotBlurArgs ba{};
    ba.src = pic;
    ba.tmp = tmp;
    ba.dst = blur(p, cur_);
    ba.pitch = pitch_[p];
    ba.taps = taps_.as<float>();
    ba.fw = fw_;
    ba.w = pw_[p];
    ba.h = ph_[p];
    {
      VMAFX_TRY(device_->launch(blur_v_, grid_2d(pw_[p], ph_[p]), block, 0, ba));
      VMAFX_TRY(device_->launch(blur_h_, grid_2d(pw_[p], ph_[p]), block, 0, ba));
    }
    if (opts_.add_scale1) {
      FmotHalfArgs ha{};
      ha.src = blur(p, cur_);
      ha.src_pitch = pitch_[p];
      ha.dst = half(p, cur_);
      ha.dst_pitch = half_pitch_[p];
      const uint8_t* base = tables_.as<uint8_t>();
      ha.col_idx = reinterpret_cast<const vx_i32*>(base + table_offset_[p][0]);
      ha.col_w = reinterpret_cast<const float*>(base + table_offset_[p][1]);
      ha.row_idx = reinterpret_cast<const vx_i32*>(base + table_offset_[p][2]);
      ha.row_w = reinterpret_cast<const float*>(base + table_offset_[p][3]);
      ha.dw = hw_[p];
      ha.dh = hh_[p];
      VMAFX_TRY(device_->launch(half_, grid_2d(hw_[p], hh_[p]), block, 0, ha));
    }
    if (have_prev_) {
      FmotRowArgs ra{};
      ra.prev = blur(p, cur_ ^ 1);
      ra.cur = blur(p, cur_);
      ra.pitch = pitch_[p];
      ra.out = rows + row_offset_[p][0];
      ra.w = pw_[p];
      ra.h = ph_[p];
      VMAFX_TRY(device_->launch(rowsad_, Dim3{(ph_[p] + FMOT_ROW_THREADS - 1) / FMOT_ROW_THREADS, 1, 1},
                                Dim3{FMOT_ROW_THREADS, 1, 1}, 0, ra));
      if (opts_.add_scale1) {
        ra.prev = half(p, cur_ ^ 1);
        ra.cur = half(p, cur_);
        ra.pitch = half_pitch_[p];
        ra.out = rows + row_offset_[p][1];
        ra.w = hw_[p];
        ra.h = hh_[p];
        VMAFX_TRY(device_->launch(rowsad_, Dim3{(hh_[p] + FMOT_ROW_THREADS - 1) / FMOT_ROW_THREADS, 1, 1},
                                  Dim3{FMOT_ROW_THREADS, 1, 1}, 0, ra));
      }
    }
  }
  if (have_prev_) {
    VMAFX_TRY(device_->copy_async(CopyKind::device_to_host, readback_.data() + slot * row_floats_ * sizeof(float),
                                  rows, row_floats_ * sizeof(float)));
    state_[slot] = 2;
  } else {
    state_[slot] = 1;
  }
  have_prev_ = true;
  return Status::ok();
}

Status FloatMotionGpu::finish(unsigned slot, double* out) {
  if (!out) return {Errc::invalid_argument, "float_motion (gpu): no output"};
  if (slot >= state_.size() || !state_[slot])
    return {Errc::invalid_argument, "float_motion (gpu): nothing was queued in slot " + std::to_string(slot)};
  if (device_->failed()) return device_->status();
  double* raw = motion_column_ ? out + 1 : out;
  if (state_[slot] == 1) {
    *raw = 0.0;
    if (motion_column_) out[0] = cpu::float_motion_column(0.0, true, opts_);
    return Status::ok();
  }
  const float* rows = reinterpret_cast<const float*>(readback_.data()) + slot * row_floats_;
  double score = 0.0;
  for (unsigned p = 0; p < planes_; ++p) {
    const float s0 = cpu::float_motion_mean(rows + row_offset_[p][0], int(pw_[p]), int(ph_[p]));
    double plane = s0;
    if (opts_.add_scale1) {
      const float s1 = cpu::float_motion_mean(rows + row_offset_[p][1], int(hw_[p]), int(hh_[p]));
      plane = s0 + s1;
    }
    score = p == 0 ? plane : score + plane;
  }
  *raw = score;
  if (motion_column_) out[0] = cpu::float_motion_column(score, false, opts_);
  return Status::ok();
}

}  // namespace vmafx::hip
