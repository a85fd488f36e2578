// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/vif_gpu.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>

namespace vmafx::hip {

static_assert(VifGpu::kThreads == VIF_THREADS && VifGpu::kTileW == VIF_TILE_W && VifGpu::kTileH == VIF_TILE_H,
              "VifGpu's launch geometry must match kernels/vif_impl.h");
static_assert(cpu::kVifScales == VIF_SCALES, "scale count");

namespace {

constexpr size_t kSumsPerSlot = cpu::kVifScales * 4;  // uint64 each
constexpr size_t kSlotBytes = kSumsPerSlot * sizeof(uint64_t);

}  // namespace

bool vif_fast_float64(const std::string& arch) {
  const std::string base = arch.substr(0, arch.find(':'));  // "gfx90a:sramecc+:xnack-"
  static const char* const kFast[] = {"sm_60", "sm_70", "sm_80", "sm_90", "sm_90a", "sm_100", "sm_100a",
                                      "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950"};
  for (const char* a : kFast)
    if (base == a) return true;
  return false;
}

Status VifGpu::create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc,
                      const cpu::VifOptions& options, unsigned slots, std::unique_ptr<VifGpu>* out,
                      const ModuleOptions& module_options, VifMoments moments) {
  if (!out) return {Errc::invalid_argument, "vif (gpu): no output"};
  out->reset();
  if (!device) return {Errc::invalid_argument, "vif (gpu): no device"};
  VMAFX_TRY(cpu::Vif::check_size(w, h));
  if (bpc < 8 || bpc > 16)
    return {Errc::unsupported, "vif (gpu): bit depth " + std::to_string(bpc) + " is outside 8..16"};
  if (!(options.enhn_gain_limit >= 1.0 && options.enhn_gain_limit <= cpu::kVifDefaultEnhnGainLimit))
    return {Errc::invalid_argument,
            "vif (gpu): vif_enhn_gain_limit " + std::to_string(options.enhn_gain_limit) + " is outside 1.0..100.0"};
  if (slots == 0) return {Errc::invalid_argument, "vif (gpu): 0 slots"};
  if (w > (1u << 30) || h > 65535u * kTileH)  // sample indices in int; grid rows within the launch limit
    return {Errc::unsupported, "vif (gpu): " + std::to_string(w) + "x" + std::to_string(h) + " is too large"};

  std::unique_ptr<VifGpu> v(new VifGpu());
  v->w_ = w;
  v->h_ = h;
  v->bpc_ = bpc;
  v->enhn_gain_limit_ = options.enhn_gain_limit;
  v->slots_ = slots;
  if (moments == VifMoments::automatic)
    moments = vif_fast_float64(device->info().arch) ? VifMoments::float64 : VifMoments::integer;
  v->moments_ = moments;
  VMAFX_TRY(Module::load(device, "vif", &v->module_, module_options));
  const std::string suffix = moments == VifMoments::float64 ? "_f64_kernel" : "_kernel";
  const std::string names[cpu::kVifScales] = {bpc == 8 ? "vif_scale0" : "vif_scale0_hbd", "vif_scale1", "vif_scale2",
                                              "vif_scale3"};
  for (unsigned s = 0; s < cpu::kVifScales; ++s)
    VMAFX_TRY(v->module_.function((names[s] + suffix).c_str(), &v->kernels_[s]));

  // libvmaf's log2 table, read by every kernel.
  const size_t table_bytes = 65536 * sizeof(uint16_t);
  VMAFX_TRY(DeviceBuffer::create(device, table_bytes, &v->log2_table_));
  VMAFX_TRY(device->copy_async(CopyKind::host_to_device, v->log2_table_.data(), cpu::vif_log2_table(), table_bytes));

  // Images of scales 1..3, rows of a multiple of 64 samples (128 bytes).
  size_t bytes = 0;
  for (unsigned s = 1; s < cpu::kVifScales; ++s) {
    const size_t ws = w >> s, hs = h >> s;
    v->image_pitch_[s] = (ws + 63) / 64 * 64;
    v->image_offset_[s] = bytes;
    bytes += 2 * v->image_pitch_[s] * hs * sizeof(uint16_t);
  }
  VMAFX_TRY(DeviceBuffer::create(device, bytes, &v->images_));
  VMAFX_TRY(DeviceBuffer::create(device, slots * kSlotBytes, &v->accum_));
  VMAFX_TRY(PinnedBuffer::create(device, slots * kSlotBytes, &v->readback_));
  std::memset(v->readback_.data(), 0, slots * kSlotBytes);
  v->enqueued_.reset(new bool[slots]());
  VMAFX_TRY(device->synchronize());  // the table's upload (from pageable memory) has finished
  v->device_ = std::move(device);
  *out = std::move(v);
  return Status::ok();
}

Dim3 VifGpu::grid(unsigned scale) const {
  return {(width(scale) + kTileW - 1) / kTileW, (height(scale) + kTileH - 1) / kTileH, 1};
}

DevicePlane VifGpu::image(unsigned scale, bool distorted) const {
  if (scale == 0 || scale >= cpu::kVifScales || !images_) return {};
  const size_t plane_bytes = image_pitch_[scale] * height(scale) * sizeof(uint16_t);
  const uint8_t* base = images_.as<uint8_t>() + image_offset_[scale] + (distorted ? plane_bytes : 0);
  return {base, image_pitch_[scale] * sizeof(uint16_t), width(scale), height(scale), 2, 0, 1};
}

Status VifGpu::check_plane(const char* what, const DevicePlane& p) const {
  return check_device_plane(p, w_, h_, bpc_, std::string("vif (gpu): ") + what + " plane");
}

Status VifGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  // The pipeline made the frame for this geometry and checked its planes.
  assert(frame.bpc == bpc_ && device_plane_fits(frame.ref[0], w_, h_, bpc_) &&
         device_plane_fits(frame.dist[0], w_, h_, bpc_));
  return launch(frame.ref[0], frame.dist[0], slot, nullptr);
}

Status VifGpu::enqueue_planes(const DevicePlane& ref, const DevicePlane& dist, unsigned slot,
                              const VifDebugOutputs* debug) {
  if (!device_) return {Errc::invalid_argument, "vif (gpu): not created"};
  if (slot >= slots_)
    return {Errc::invalid_argument,
            "vif (gpu): slot " + std::to_string(slot) + " of " + std::to_string(slots_) + " slots"};
  VMAFX_TRY(check_plane("reference", ref));
  VMAFX_TRY(check_plane("distorted", dist));
  return launch(ref, dist, slot, debug);
}

Status VifGpu::launch(const DevicePlane& ref, const DevicePlane& dist, unsigned slot, const VifDebugOutputs* debug) {
  assert(device_ && slot < slots_);
  if (device_->failed()) return device_->status();

  uint8_t* accum = accum_.as<uint8_t>() + slot * kSlotBytes;
  VMAFX_TRY(device_->memset_d32_async(accum, 0, kSlotBytes / 4));  // after the frame's upload (feature.h)
  const unsigned scales = debug ? std::min(debug->scales, cpu::kVifScales) : cpu::kVifScales;
  for (unsigned s = 0; s < scales; ++s) {
    VifScaleArgs a{};
    a.ref = s == 0 ? ref : image(s, false);
    a.dist = s == 0 ? dist : image(s, true);
    a.log2_table = log2_table_.as<vx_u16>();
    if (s + 1 < cpu::kVifScales) {
      a.next_ref = const_cast<vx_u16*>(static_cast<const vx_u16*>(image(s + 1, false).data));
      a.next_dist = const_cast<vx_u16*>(static_cast<const vx_u16*>(image(s + 1, true).data));
      a.next_pitch = image_pitch_[s + 1];
    }
    a.accum = reinterpret_cast<vx_u64*>(accum) + 4 * s;
    if (debug) {
      a.block_sums = static_cast<vx_u64*>(debug->block_sums[s]);
      a.filtered = static_cast<vx_u32*>(debug->filtered[s]);
    }
    a.enhn_gain_limit = enhn_gain_limit_;
    const cpu::VifRounding r = cpu::vif_vertical_rounding(s, bpc_);
    a.mu_round = r.mu_round;
    a.mu_shift = r.mu_shift;
    a.sq_round = r.sq_round;
    a.sq_shift = r.sq_shift;
    a.w = width(s);
    a.h = height(s);
    VMAFX_TRY(device_->launch(kernels_[s], grid(s), Dim3{kThreads, 1, 1}, 0, a));
  }
  VMAFX_TRY(device_->copy_async(CopyKind::device_to_host, readback_.data() + slot * kSlotBytes, accum, kSlotBytes));
  enqueued_[slot] = true;
  return Status::ok();
}

Status VifGpu::sums(unsigned slot, cpu::VifAccum* out) const {
  if (!device_) return {Errc::invalid_argument, "vif (gpu): not created"};
  if (!out) return {Errc::invalid_argument, "vif (gpu): no output"};
  if (slot >= slots_)
    return {Errc::invalid_argument,
            "vif (gpu): slot " + std::to_string(slot) + " of " + std::to_string(slots_) + " slots"};
  if (!enqueued_[slot])
    return {Errc::invalid_argument, "vif (gpu): nothing was queued in slot " + std::to_string(slot)};
  if (device_->failed()) return device_->status();
  int64_t v[kSumsPerSlot];
  std::memcpy(v, readback_.data() + slot * kSlotBytes, kSlotBytes);
  for (unsigned s = 0; s < cpu::kVifScales; ++s) {
    out[s].num_log = v[4 * s];
    out[s].den_log = v[4 * s + 1];
    out[s].num_non_log = v[4 * s + 2];
    out[s].den_non_log = v[4 * s + 3];
  }
  return Status::ok();
}

Status VifGpu::finish(unsigned slot, double* out) {
  if (!out) return {Errc::invalid_argument, "vif (gpu): no output"};
  cpu::VifAccum acc[cpu::kVifScales];
  VMAFX_TRY(sums(slot, acc));
  for (unsigned s = 0; s < cpu::kVifScales; ++s) {
    float num, den;
    cpu::vif_num_den(acc[s], &num, &den);
    out[s] = cpu::vif_scale_score(num, den);
  }
  return Status::ok();
}

}  // namespace vmafx::hip
