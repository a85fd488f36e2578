// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/cambi_gpu.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

namespace vmafx::hip {

static_assert(cpu::kCambiScales == CAMBI_SCALES, "scale count");
static_assert(cpu::kCambiMaxDiffs == CAMBI_MAX_DIFFS, "difference count");
static_assert(sizeof(CambiPoolResult) == 16, "CambiPoolResult layout");

namespace {

constexpr size_t kSharedLimit = 48 * 1024;  // static + dynamic shared memory a launch may ask for on every device
// Threads a scale's c-values launch on the column kernel aims for: fewer, longer chunks build fewer histograms from
// whole windows; more give more parallelism. Measured on an H200 with 6 lanes: 4K 8-bit v1 986 fps with 32-row
// chunks (about 63000 threads at scale 0), 1219 with 96 (about 23000); 1080p best with 32 (about 16000).
constexpr uint64_t kColumnThreads = 20000;

Dim3 grid_2d(uint32_t w, uint32_t h, unsigned bw, unsigned bh) { return {(w + bw - 1) / bw, (h + bh - 1) / bh, 1}; }

std::string slot_text(unsigned slot, unsigned slots) {
  return "cambi (gpu): slot " + std::to_string(slot) + " of " + std::to_string(slots) + " slots";
}

}  // namespace

Status CambiGpu::create(std::shared_ptr<Device> device, uint32_t w, uint32_t h, unsigned bpc,
                        const cpu::CambiOptions& options, unsigned slots, std::unique_ptr<CambiGpu>* out,
                        const ModuleOptions& module_options, const CambiGpuOptions& gpu_options) {
  if (!out) return {Errc::invalid_argument, "cambi (gpu): no output"};
  out->reset();
  if (!device) return {Errc::invalid_argument, "cambi (gpu): no device"};
  if (slots == 0) return {Errc::invalid_argument, "cambi (gpu): 0 slots"};
  std::unique_ptr<CambiGpu> c(new CambiGpu());
  VMAFX_TRY(cpu::cambi_plan(w, h, bpc, options, &c->plan_));
  c->gpu_options_ = gpu_options;
  c->slots_ = slots;
  c->pictures_ = c->plan_.full_ref ? 2 : 1;
  // Each thread of cambi_c_values_kernel keeps band_size 16-bit counters in shared memory; a block of
  // cambi_c_values_block_kernel the band's 32-bit counts and a candidate per difference.
  const size_t band = c->plan_.band_size;
  c->cval_block_ = band * 32 * 2 <= kSharedLimit ? 32 : 16;
  if (band * c->cval_block_ * 2 > kSharedLimit || band * 4 + CAMBI_MAX_DIFFS * 4 > kSharedLimit)
    return {Errc::internal, "cambi (gpu): a band of " + std::to_string(band) + " values does not fit shared memory"};
  c->block_below_ = gpu_options.block_kernel_below < 0 ? 4096 : uint64_t(gpu_options.block_kernel_below);
  c->column_rows_ = std::min(4096u, gpu_options.column_rows);

  VMAFX_TRY(Module::load(device, "cambi", &c->module_, module_options));
  VMAFX_TRY(c->module_.function("cambi_preprocess_kernel", &c->k_pre_));
  VMAFX_TRY(c->module_.function("cambi_check_kernel", &c->k_check_));
  VMAFX_TRY(c->module_.function("cambi_mask_kernel", &c->k_mask_));
  VMAFX_TRY(c->module_.function("cambi_filter_kernel", &c->k_filter_));
  VMAFX_TRY(c->module_.function("cambi_c_values_kernel", &c->k_cval_));
  VMAFX_TRY(c->module_.function("cambi_c_values_block_kernel", &c->k_cval_block_));
  VMAFX_TRY(c->module_.function("cambi_pool1_kernel", &c->k_pool_[0]));
  VMAFX_TRY(c->module_.function("cambi_pool2_kernel", &c->k_pool_[1]));
  VMAFX_TRY(c->module_.function("cambi_pool3_kernel", &c->k_pool_[2]));

  const size_t recip_bytes = cpu::kCambiReciprocals * sizeof(float);
  VMAFX_TRY(DeviceBuffer::create(device, recip_bytes, &c->recip_));
  VMAFX_TRY(device->copy_async(CopyKind::host_to_device, c->recip_.data(), cpu::cambi_reciprocals(), recip_bytes));

  size_t cval_bytes = 0;
  for (unsigned p = 0; p < c->pictures_; ++p) {
    Picture& pic = c->pic_[p];
    pic.g = p == 0 ? &c->plan_.dist : &c->plan_.ref;
    const cpu::CambiGeometry& g = *pic.g;
    pic.pitch = (size_t(g.w) + 63) / 64 * 64;
    VMAFX_TRY(DeviceBuffer::create(device, pic.pitch * g.h * sizeof(uint16_t), &pic.img0));
    VMAFX_TRY(DeviceBuffer::create(device, pic.pitch * g.h, &pic.mask0));
    for (unsigned s = 0; s < cpu::kCambiScales; ++s) {
      const size_t bytes = pic.pitch * g.scale_h[s] * sizeof(uint16_t);
      VMAFX_TRY(DeviceBuffer::create(device, bytes, &pic.filtered[s]));
      VMAFX_TRY(DeviceBuffer::create(device, bytes, &pic.key[s]));
      pic.cval_offset[s] = pic.cval_bytes;
      pic.cval_bytes += (size_t(g.scale_w[s]) * g.scale_h[s] * sizeof(float) + 255) / 256 * 256;
    }
    if (g.resized) {
      VMAFX_TRY(DeviceBuffer::create(device, g.src_x.size() * sizeof(uint32_t), &pic.src_x));
      VMAFX_TRY(DeviceBuffer::create(device, g.src_y.size() * sizeof(uint32_t), &pic.src_y));
      VMAFX_TRY(device->copy_async(CopyKind::host_to_device, pic.src_x.data(), g.src_x.data(),
                                   g.src_x.size() * sizeof(uint32_t)));
      VMAFX_TRY(device->copy_async(CopyKind::host_to_device, pic.src_y.data(), g.src_y.data(),
                                   g.src_y.size() * sizeof(uint32_t)));
    }
    cval_bytes += pic.cval_bytes;
  }
  c->cvals_slot_bytes_ = cval_bytes;
  VMAFX_TRY(DeviceBuffer::create(device, cval_bytes * slots, &c->cvals_));
  VMAFX_TRY(DeviceBuffer::create(device, sizeof(CambiPoolState) * c->pictures_ * cpu::kCambiScales, &c->states_));
  c->slot_bytes_ = kResultsOffset + sizeof(CambiPoolResult) * c->pictures_ * cpu::kCambiScales;
  VMAFX_TRY(DeviceBuffer::create(device, c->slot_bytes_ * slots, &c->results_));
  VMAFX_TRY(PinnedBuffer::create(device, c->slot_bytes_ * slots, &c->readback_));
  std::memset(c->readback_.data(), 0, c->slot_bytes_ * slots);
  c->enqueued_.reset(new bool[slots]());
  VMAFX_TRY(device->synchronize());  // the tables' uploads (from pageable memory) have finished
  c->device_ = std::move(device);
  *out = std::move(c);
  return Status::ok();
}

Status CambiGpu::check_plane(const char* what, const DevicePlane& p) const {
  return check_device_plane(p, plan_.dist.in_w, plan_.dist.in_h, plan_.bpc,
                            std::string("cambi (gpu): ") + what + " plane");
}

Status CambiGpu::enqueue(const FramePlanes& frame, unsigned slot) {
  // The pipeline made the frame for this geometry and checked its planes.
  assert(frame.bpc == plan_.bpc && device_plane_fits(frame.dist[0], plan_.dist.in_w, plan_.dist.in_h, plan_.bpc) &&
         (!plan_.full_ref || device_plane_fits(frame.ref[0], plan_.dist.in_w, plan_.dist.in_h, plan_.bpc)));
  return launch(frame.ref[0], frame.dist[0], slot);
}

Status CambiGpu::enqueue_planes(const DevicePlane& ref, const DevicePlane& dist, unsigned slot) {
  if (!device_) return {Errc::invalid_argument, "cambi (gpu): not created"};
  if (slot >= slots_) return {Errc::invalid_argument, slot_text(slot, slots_)};
  VMAFX_TRY(check_plane("distorted", dist));
  if (plan_.full_ref) VMAFX_TRY(check_plane("reference", ref));
  return launch(ref, dist, slot);
}

Status CambiGpu::launch(const DevicePlane& ref, const DevicePlane& dist, unsigned slot) {
  assert(device_ && slot < slots_);
  if (device_->failed()) return device_->status();
  enqueued_[slot] = false;
  uint8_t* results = results_.as<uint8_t>() + slot * slot_bytes_;
  // Cleared after the frame's upload, which the pipeline queued before this call (hip/feature.h says why).
  VMAFX_TRY(device_->memset_d32_async(results, 0, slot_bytes_ / 4));
  VMAFX_TRY(device_->memset_d32_async(states_.data(), 0, states_.size() / 4));
  VMAFX_TRY(enqueue_picture(0, dist, slot));
  if (plan_.full_ref) VMAFX_TRY(enqueue_picture(1, ref, slot));
  VMAFX_TRY(device_->copy_async(CopyKind::device_to_host, readback_.data() + slot * slot_bytes_, results,
                                slot_bytes_));
  enqueued_[slot] = true;
  return Status::ok();
}

Status CambiGpu::enqueue_picture(unsigned p, const DevicePlane& plane, unsigned slot) {
  Picture& pic = pic_[p];
  const cpu::CambiGeometry& g = *pic.g;
  uint8_t* results = results_.as<uint8_t>() + slot * slot_bytes_;
  const unsigned bpc = plan_.bpc;
  const bool check = bpc > 8 && bpc < 16 && (16u - plane.shift > bpc || plane.bytes == 1);

  CambiPreArgs pre{};
  pre.in = plane;
  pre.src_x = g.resized ? pic.src_x.as<vx_u32>() : nullptr;
  pre.src_y = g.resized ? pic.src_y.as<vx_u32>() : nullptr;
  pre.out = pic.img0.as<vx_u16>();
  pre.error = reinterpret_cast<vx_u32*>(results) + p;
  pre.out_pitch = pic.pitch;
  pre.in_w = g.in_w;
  pre.in_h = g.in_h;
  pre.w = g.w;
  pre.h = g.h;
  pre.bpc = bpc;
  pre.dither = plan_.enc_bitdepth < 10 ? 1 : 0;
  pre.max_sample = check ? (1u << bpc) - 1 : 0;
  {
    const Dim3 block{CAMBI_PRE_BLOCK, CAMBI_PRE_BLOCK, 1};
    VMAFX_TRY(device_->launch(k_pre_, grid_2d(g.w, g.h, CAMBI_PRE_BLOCK, CAMBI_PRE_BLOCK), block, 0, pre));
    if (check && g.resized)
      VMAFX_TRY(device_->launch(k_check_, grid_2d(g.in_w, g.in_h, CAMBI_PRE_BLOCK, CAMBI_PRE_BLOCK), block, 0, pre));
  }

  CambiMaskArgs m{};
  m.img = pic.img0.as<vx_u16>();
  m.mask = pic.mask0.as<vx_u8>();
  m.pitch = pic.pitch;
  m.w = g.w;
  m.h = g.h;
  m.mask_index = g.mask_index;
  VMAFX_TRY(device_->launch(k_mask_, grid_2d(g.w, g.h, CAMBI_MASK_TILE_W, CAMBI_MASK_TILE_H),
                            Dim3{CAMBI_MASK_TILE_W, CAMBI_MASK_TILE_H, 1}, 0, m));

  uint8_t* cvals = cvals_.as<uint8_t>() + slot * cvals_slot_bytes_ + (p == 1 ? pic_[0].cval_bytes : 0);
  for (unsigned s = 0; s < cpu::kCambiScales; ++s) {
    const uint32_t sw = g.scale_w[s], sh = g.scale_h[s];
    CambiFilterArgs f{};
    f.src = s == 0 ? pic.img0.as<vx_u16>() : pic.filtered[s - 1].as<vx_u16>();
    f.mask = pic.mask0.as<vx_u8>();
    f.out = pic.filtered[s].as<vx_u16>();
    f.key = pic.key[s].as<vx_u16>();
    f.pitch = pic.pitch;
    f.w = sw;
    f.h = sh;
    f.factor = (s > 0 || plan_.high_res_speedup) ? 2 : 1;
    f.mask_shift = s + (plan_.high_res_speedup ? 1 : 0);
    f.band_base = plan_.band_base;
    f.band_size = plan_.band_size;
    VMAFX_TRY(device_->launch(k_filter_, grid_2d(sw, sh, CAMBI_PRE_BLOCK, CAMBI_PRE_BLOCK),
                              Dim3{CAMBI_PRE_BLOCK, CAMBI_PRE_BLOCK, 1}, 0, f));
    if (plan_.band_empty) continue;  // every c-value is 0: finish() pools zeros

    float* out = reinterpret_cast<float*>(cvals + pic.cval_offset[s]);
    CambiCvalArgs cv{};
    cv.key = pic.key[s].as<vx_u16>();
    cv.recip = recip_.as<float>();
    cv.out = out;
    cv.pitch = pic.pitch;
    cv.w = sw;
    cv.h = sh;
    cv.pad = g.pad;
    cv.band_base = plan_.band_base;
    cv.band_size = plan_.band_size;
    cv.num_diffs = plan_.num_diffs;
    cv.vlt_luma = plan_.vlt_luma;
    for (unsigned d = 0; d < cpu::kCambiMaxDiffs; ++d) cv.tvi[d] = plan_.tvi_for_diff[d];
    // Rows per chunk: a chunk's first row builds its histogram from the whole window, the others slide it, so long
    // chunks do less work per row and short ones give more threads (the block kernel's short chains).
    cv.rows = std::max<uint32_t>(32, g.window);
    const bool block_kernel = uint64_t(sw) * ((sh + cv.rows - 1) / cv.rows) < block_below_;
    if (!block_kernel) {
      // The column kernel: chunks as long as leave about kColumnThreads threads (long chunks on the large scales of
      // 4K, 32 rows at 1080p), or CambiGpuOptions::column_rows.
      const uint32_t chunks_wanted = std::max<uint32_t>(1, uint32_t((kColumnThreads + sw - 1) / sw));
      const uint32_t rows = column_rows_ ? column_rows_ : (sh + chunks_wanted - 1) / chunks_wanted;
      cv.rows = std::max<uint32_t>({32, uint32_t(g.window), rows});
    }
    const unsigned chunks = (sh + cv.rows - 1) / cv.rows;
    if (block_kernel) {
      const unsigned shared = unsigned(plan_.band_size) * 4 + plan_.num_diffs * 4;
      VMAFX_TRY(device_->launch(k_cval_block_, Dim3{sw, chunks, 1}, Dim3{CAMBI_CVAL_THREADS, 1, 1}, shared, cv));
    } else {
      const unsigned shared = unsigned(plan_.band_size) * cval_block_ * 2;
      VMAFX_TRY(device_->launch(k_cval_, Dim3{(sw + cval_block_ - 1) / cval_block_, chunks, 1},
                                Dim3{cval_block_, 1, 1}, shared, cv));
    }

    CambiPoolArgs pa{};
    pa.values = out;
    pa.state = states_.as<CambiPoolState>() + p * cpu::kCambiScales + s;
    pa.result = reinterpret_cast<CambiPoolResult*>(results + kResultsOffset) + p * cpu::kCambiScales + s;
    pa.n = sw * sh;
    pa.k = cpu::cambi_topk_count(pa.n, plan_.topk);
    const unsigned per_block = CAMBI_POOL_THREADS * 16;
    const unsigned blocks = std::min<unsigned>(kMaxPoolBlocks, std::max<unsigned>(1, (pa.n + per_block - 1) / per_block));
    for (unsigned pass = 0; pass < 3; ++pass)
      VMAFX_TRY(device_->launch(k_pool_[pass], Dim3{blocks, 1, 1}, Dim3{CAMBI_POOL_THREADS, 1, 1}, 0, pa));
  }
  return Status::ok();
}

Status CambiGpu::copy_back(void* dst, const void* src, size_t bytes) {
  // Host pinned memory, then a wait for the library stream up to the copy (tests and the host pooling only).
  VMAFX_TRY(device_->copy_async(CopyKind::device_to_host, dst, src, bytes));
  Event e;
  VMAFX_TRY(Event::create(device_, &e));
  VMAFX_TRY(e.record());
  return e.synchronize();
}

Status CambiGpu::pool_on_host(unsigned slot, unsigned p, unsigned s, double* mean) {
  const cpu::CambiGeometry& g = *pic_[p].g;
  const uint32_t n = g.scale_w[s] * g.scale_h[s];
  std::lock_guard<std::mutex> lk(host_mutex_);
  if (!host_values_) {
    size_t largest = 0;
    for (unsigned q = 0; q < pictures_; ++q)
      largest = std::max(largest, size_t(pic_[q].g->scale_w[0]) * pic_[q].g->scale_h[0] * sizeof(float));
    VMAFX_TRY(PinnedBuffer::create(device_, largest, &host_values_));
  }
  const uint8_t* src = cvals_.as<uint8_t>() + slot * cvals_slot_bytes_ + (p == 1 ? pic_[0].cval_bytes : 0) +
                       pic_[p].cval_offset[s];
  VMAFX_TRY(copy_back(host_values_.data(), src, n * sizeof(float)));
  *mean = cpu::cambi_pool(reinterpret_cast<float*>(host_values_.data()), n, plan_.topk);
  host_poolings_.fetch_add(1);
  return Status::ok();
}

Status CambiGpu::finish(unsigned slot, double* out) {
  if (!device_) return {Errc::invalid_argument, "cambi (gpu): not created"};
  if (!out) return {Errc::invalid_argument, "cambi (gpu): no output"};
  if (slot >= slots_) return {Errc::invalid_argument, slot_text(slot, slots_)};
  if (!enqueued_[slot]) return {Errc::invalid_argument, "cambi (gpu): nothing was queued in slot " + std::to_string(slot)};
  if (device_->failed()) return device_->status();
  const uint8_t* block = readback_.data() + slot * slot_bytes_;
  double raw[2] = {0, 0};
  for (unsigned p = 0; p < pictures_; ++p) {
    uint32_t bad = 0;
    std::memcpy(&bad, block + 4 * p, 4);
    if (bad)
      return {Errc::invalid_argument, std::string("cambi: the ") + (p ? "reference" : "distorted") +
                                          " picture holds the sample " + std::to_string(bad) + ", above " +
                                          std::to_string((1u << plan_.bpc) - 1) + ", the largest " +
                                          std::to_string(plan_.bpc) + "-bit value"};
    const cpu::CambiGeometry& g = *pic_[p].g;
    double means[cpu::kCambiScales] = {};
    for (unsigned s = 0; s < cpu::kCambiScales; ++s) {
      if (plan_.band_empty) continue;  // zeros only: libvmaf's mean is 0
      CambiPoolResult r;
      std::memcpy(&r, block + kResultsOffset + sizeof(CambiPoolResult) * (p * cpu::kCambiScales + s), sizeof r);
      if (!(r.flags & CAMBI_POOL_DONE) || (r.flags & CAMBI_POOL_BAD))
        return {Errc::internal, "cambi (gpu): the top-k selection of scale " + std::to_string(s) +
                                    (r.flags & CAMBI_POOL_BAD ? " met a c-value outside [0.5, 16384)" : " did not finish")};
      const uint32_t n = g.scale_w[s] * g.scale_h[s];
      const uint32_t k = cpu::cambi_topk_count(n, plan_.topk);
      if (cambi_pool_exact(r) && !gpu_options_.force_host_pooling)
        means[s] = std::ldexp(double(r.total), -24) / k;  // what libvmaf's sum of these values is, in any order
      else
        VMAFX_TRY(pool_on_host(slot, p, s, &means[s]));
    }
    raw[p] = cpu::cambi_combine(means, g.window);
  }
  cpu::CambiScores sc;
  cpu::cambi_finish_scores(plan_, raw[0], raw[1], &sc);
  out[0] = sc.cambi;
  if (plan_.full_ref) {
    out[1] = sc.source;
    out[2] = sc.full_reference;
  }
  return Status::ok();
}

Status CambiGpu::read_scale(unsigned slot, unsigned p, unsigned s, CambiScaleReadback* out) {
  if (!device_ || !out || slot >= slots_ || p >= pictures_ || s >= cpu::kCambiScales)
    return {Errc::invalid_argument, "cambi (gpu): read_scale arguments"};
  const Picture& pic = pic_[p];
  const uint32_t w = pic.g->scale_w[s], h = pic.g->scale_h[s];
  out->w = w;
  out->h = h;
  const size_t plane = pic.pitch * h * sizeof(uint16_t);
  PinnedBuffer tmp;
  VMAFX_TRY(PinnedBuffer::create(device_, std::max(plane, size_t(w) * h * sizeof(float)) + slot_bytes_, &tmp));
  auto rows = [&](std::vector<uint16_t>* v) {
    v->resize(size_t(w) * h);
    for (uint32_t y = 0; y < h; ++y)
      std::memcpy(v->data() + size_t(y) * w, tmp.data() + y * pic.pitch * sizeof(uint16_t), w * sizeof(uint16_t));
  };
  VMAFX_TRY(copy_back(tmp.data(), pic.filtered[s].data(), plane));
  rows(&out->image);
  VMAFX_TRY(copy_back(tmp.data(), pic.key[s].data(), plane));
  rows(&out->key);
  out->c_values.assign(size_t(w) * h, 0.0f);
  if (!plan_.band_empty) {
    const uint8_t* src = cvals_.as<uint8_t>() + slot * cvals_slot_bytes_ + (p == 1 ? pic_[0].cval_bytes : 0) +
                         pic.cval_offset[s];
    VMAFX_TRY(copy_back(tmp.data(), src, size_t(w) * h * sizeof(float)));
    std::memcpy(out->c_values.data(), tmp.data(), size_t(w) * h * sizeof(float));
  }
  VMAFX_TRY(copy_back(tmp.data(), results_.as<uint8_t>() + slot * slot_bytes_, slot_bytes_));
  std::memcpy(&out->pool, tmp.data() + kResultsOffset + sizeof(CambiPoolResult) * (p * cpu::kCambiScales + s),
              sizeof(CambiPoolResult));
  return Status::ok();
}

Status CambiGpu::read_full(unsigned p, std::vector<uint16_t>* image, std::vector<uint8_t>* mask) {
  if (!device_ || p >= pictures_ || !image || !mask) return {Errc::invalid_argument, "cambi (gpu): read_full arguments"};
  const Picture& pic = pic_[p];
  const uint32_t w = pic.g->w, h = pic.g->h;
  PinnedBuffer tmp;
  VMAFX_TRY(PinnedBuffer::create(device_, pic.pitch * h * sizeof(uint16_t), &tmp));
  VMAFX_TRY(copy_back(tmp.data(), pic.img0.data(), pic.pitch * h * sizeof(uint16_t)));
  image->resize(size_t(w) * h);
  for (uint32_t y = 0; y < h; ++y)
    std::memcpy(image->data() + size_t(y) * w, tmp.data() + y * pic.pitch * 2, w * 2);
  VMAFX_TRY(copy_back(tmp.data(), pic.mask0.data(), pic.pitch * h));
  mask->resize(size_t(w) * h);
  for (uint32_t y = 0; y < h; ++y) std::memcpy(mask->data() + size_t(y) * w, tmp.data() + y * pic.pitch, w);
  return Status::ok();
}

}  // namespace vmafx::hip
