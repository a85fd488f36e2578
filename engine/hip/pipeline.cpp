// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/pipeline.h"

#include <algorithm>
#include <cassert>
#include <atomic>
#include <functional>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace vmafx::hip {

namespace {

constexpr size_t kRowAlignment = 64;                // pitch of the pipeline's planes (staging and device)
constexpr size_t kPlaneAlignment = 256;             // start of each plane in a plane set
constexpr size_t kParallelCopyMin = size_t(1) << 20;  // smaller frames are copied by the submitting thread alone
constexpr unsigned kGraphsPerSlot = 8;             // frame graphs cached per slot (hip/graph.h)
constexpr size_t kCopyChunk = size_t(256) << 10;     // bytes per piece of work of a parallel copy

size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

// Bytes from the first to the last sample of a row of `w` samples.
size_t row_extent(uint32_t w, unsigned step, unsigned word) { return (size_t(w - 1) * step + 1) * word; }

}  // namespace

bool upload_stream_selected(const Device& device, int upload_stream) {
  return upload_stream != 0 && device.can_order_streams();
}

unsigned default_lanes(const Device& device) { return device.info().vendor == Vendor::nvidia ? 6u : 1u; }

unsigned requested_lanes(const Device& device, unsigned requested) {
  const unsigned n = requested ? requested : default_lanes(device);
  return std::max(1u, std::min(n, Device::kMaxLanes - 1));  // one more lane runs the serial features
}

#if VMAFX_TEST_HOOKS
namespace hip_hooks {

Plant planted_defect() {
  const char* v = std::getenv("VMAFX_HIP_PLANT");
  if (!v || !*v) return Plant::none;
  if (!std::strcmp(v, "clear_before_upload")) return Plant::clear_before_upload;
  if (!std::strcmp(v, "skip_wait")) return Plant::skip_wait;
  if (!std::strcmp(v, "skip_upload_submit")) return Plant::skip_upload_submit;
  if (!std::strcmp(v, "skip_gate")) return Plant::skip_gate;
  return Plant::none;
}

const char* plant_name(Plant p) {
  switch (p) {
    case Plant::none: return "none";
    case Plant::clear_before_upload: return "clear_before_upload";
    case Plant::skip_wait: return "skip_wait";
    case Plant::skip_upload_submit: return "skip_upload_submit";
    case Plant::skip_gate: return "skip_gate";
  }
  return "?";
}

}  // namespace hip_hooks
#endif

// ---- CopyPool: host copies into the pinned ring, split over helper threads -------------------------------------

class HipPipeline::CopyPool {
 public:
  using Job = CopyJob;

  explicit CopyPool(unsigned helpers) {
    for (unsigned i = 0; i < helpers; ++i) threads_.emplace_back([this] { work(); });
  }
  ~CopyPool() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  unsigned helpers() const { return unsigned(threads_.size()); }

  // Copies every job; large ones are cut into pieces that the helpers and this thread take in turn.
  void run(const std::vector<Job>& jobs) {
    if (start(jobs, nullptr)) finish();
  }
  // Whether start() would hand these jobs to the helpers (else it copies them itself).
  bool parallel(const std::vector<Job>& jobs) const {
    size_t total = 0;
    for (const Job& j : jobs) total += j.row_bytes * j.rows;
    return !threads_.empty() && total >= kParallelCopyMin;
  }
  // Starts copying every job and returns: the helpers copy, and the one that copies the last piece calls `done`
  // (under the pool's lock; it must not block). Small copies are made here at once (then `done` runs here too, and
  // start returns false). After true, finish() must be called before the next start.
  bool start(const std::vector<Job>& jobs, std::function<void()> done) {
    if (!parallel(jobs)) {
      for (const Job& j : jobs) copy(j);
      if (done) done();
      return false;
    }
    pieces_.clear();
    for (const Job& j : jobs) {
      const size_t rows_per_piece = std::max<size_t>(1, kCopyChunk / std::max<size_t>(1, j.row_bytes));
      for (size_t r = 0; r < j.rows; r += rows_per_piece) {
        Job p = j;
        p.dst = j.dst + r * j.dst_pitch;
        p.src = j.src + ptrdiff_t(r) * j.src_stride;
        p.rows = std::min(rows_per_piece, j.rows - r);
        pieces_.push_back(p);
      }
    }
    // No helper touches pieces_ between runs: helpers join a run only while it is open, and a run closes once
    // every piece is copied and every helper that joined has left.
    {
      std::lock_guard<std::mutex> lk(mu_);
      next_.store(0);
      remaining_ = pieces_.size();
      done_ = std::move(done);
      open_ = true;
      ++generation_;
    }
    cv_.notify_all();
    return true;
  }
  // The calling thread takes pieces too, then waits until every piece is copied and every helper has left the run.
  void finish() {
    take_pieces();
    std::unique_lock<std::mutex> lk(mu_);
    done_cv_.wait(lk, [&] { return remaining_ == 0 && active_ == 0; });
    open_ = false;
  }

 private:
  static void copy(const Job& j) {
    if (j.src_stride == ptrdiff_t(j.row_bytes) && j.dst_pitch == j.row_bytes) {
      std::memcpy(j.dst, j.src, j.row_bytes * j.rows);
      return;
    }
    for (size_t r = 0; r < j.rows; ++r)
      std::memcpy(j.dst + r * j.dst_pitch, j.src + ptrdiff_t(r) * j.src_stride, j.row_bytes);
  }

  void take_pieces() {
    size_t done = 0;
    for (;;) {
      const size_t i = next_.fetch_add(1);
      if (i >= pieces_.size()) break;
      copy(pieces_[i]);
      ++done;
    }
    if (done) {
      std::lock_guard<std::mutex> lk(mu_);
      remaining_ -= done;
      if (remaining_ == 0) {
        if (done_) done_();
        done_ = nullptr;
        done_cv_.notify_all();
      }
    }
  }

  void work() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return stop_ || (open_ && generation_ != seen); });
        if (stop_) return;
        seen = generation_;
        ++active_;
      }
      take_pieces();
      std::lock_guard<std::mutex> lk(mu_);
      if (--active_ == 0 && remaining_ == 0) done_cv_.notify_all();
    }
  }

  std::vector<std::thread> threads_;
  std::vector<Job> pieces_;
  std::atomic<size_t> next_{0};
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  size_t remaining_ = 0;   // pieces not yet copied
  std::function<void()> done_;  // start()'s callback for the last piece
  unsigned active_ = 0;    // helpers inside the open run
  bool open_ = false;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

// ---- HipPipeline ---------------------------------------------------------------------------------------------

Status HipPipeline::create(std::shared_ptr<Device> device, const PipelineConfig& cfg,
                           std::shared_ptr<HipPipeline>* out) {
  if (!device) return {Errc::invalid_argument, "HIP pipeline without a device"};
  if (cfg.width == 0 || cfg.height == 0) return {Errc::invalid_argument, "HIP pipeline for an empty picture"};
  if (cfg.bpc < 8 || cfg.bpc > 16) return {Errc::unsupported, "HIP pipeline: bit depth " + std::to_string(cfg.bpc)};
  if (cfg.slots < 2 || cfg.slots > 64)
    return {Errc::invalid_argument, "HIP pipeline: " + std::to_string(cfg.slots) + " slots (2..64)"};
  if (cfg.upload_stream < -1 || cfg.upload_stream > 1)
    return {Errc::invalid_argument, "HIP pipeline: upload_stream " + std::to_string(cfg.upload_stream) +
                                        " (-1: the default, on; 0: off, 1: on)"};
  if (cfg.graphs < -1 || cfg.graphs > 1)
    return {Errc::invalid_argument, "HIP pipeline: graphs " + std::to_string(cfg.graphs) +
                                        " (-1: the default, on NVIDIA; 0: off, 1: on)"};
  if (cfg.upload_gate < -1 || cfg.upload_gate > 1)
    return {Errc::invalid_argument, "HIP pipeline: upload_gate " + std::to_string(cfg.upload_gate) +
                                        " (-1: the default, on NVIDIA; 0: off, 1: on)"};
  if (cfg.copy_threads > 63)
    return {Errc::invalid_argument, "HIP pipeline: " + std::to_string(cfg.copy_threads) + " copy threads (0..63, -1: "
                                        "from the number of cores)"};
  std::shared_ptr<HipPipeline> p(new HipPipeline());
  p->device_ = device;
  p->cfg_ = cfg;
  if (!cfg.scaler) {
    p->cfg_.dist_width = cfg.width;
    p->cfg_.dist_height = cfg.height;
  }
  p->plant_ = hip_hooks::planted_defect();
  p->upload_stream_ = upload_stream_selected(*device, cfg.upload_stream);
  // The default: on NVIDIA (measured), not on AMD (not run: no AMD GPU was at hand).
  const bool gate_wanted = cfg.upload_gate >= 0 ? cfg.upload_gate == 1 : device->info().vendor == Vendor::nvidia;
  p->gate_uploads_ = p->upload_stream_ && device->can_gate_uploads() && gate_wanted;
  if (cfg.lanes > Device::kMaxLanes - 1)
    return {Errc::invalid_argument, "HIP pipeline: " + std::to_string(cfg.lanes) + " lanes (1.." +
                                        std::to_string(Device::kMaxLanes - 1) + ", 0: the default)"};
  // Lanes order their reads of the plane sets by slot events, which needs the upload stream's one set per slot.
  p->lanes_ = p->upload_stream_ ? requested_lanes(*device, cfg.lanes) : 1u;
  if (p->lanes_ > 1) VMAFX_TRY(device->ensure_lanes(p->lanes_ + 1));
  if (cfg.scaler) {
    // One scaler per lane (its output planes are the frame's distorted planes until the frame's work is done); a
    // frame is scaled on its lane, so the scaling of one frame overlaps the features of the frames before it.
    p->scales_.resize(p->lanes_);
    for (auto& s : p->scales_) VMAFX_TRY(ScaleGpu::create(device, *cfg.scaler, &s));
  }
  // The default: on NVIDIA (measured), not on AMD (not run: no AMD GPU was at hand). A capture cannot hold the
  // synchronisation after each launch that sync_launches asks for.
  const bool graphs_wanted = cfg.graphs >= 0 ? cfg.graphs == 1 : device->info().vendor == Vendor::nvidia;
  p->graphs_wanted_ = graphs_wanted && device->api().has_graphs() && !device->sync_launches();
  // Per slot: 8 graphs, room for one per lane the slot's frames meet (lanes / gcd(slots, lanes)) and for device
  // frames whose pictures come from a small pool (a decoder's). The cache gives up after as many captures in a row,
  // without a replay, as it holds graphs.
  VMAFX_TRY(p->graphs_.init(device, cfg.slots, kGraphsPerSlot, cfg.slots * kGraphsPerSlot, p->graphs_wanted_));
  p->slots_.resize(cfg.slots);
  for (Slot& s : p->slots_) {
    VMAFX_TRY(Event::create(device, &s.event));
    if (p->lanes_ > 1) {
      VMAFX_TRY(Event::create(device, &s.fork));
      VMAFX_TRY(Event::create(device, &s.join));
      if (cfg.scaler) VMAFX_TRY(Event::create(device, &s.scaled));
    }
  }
  unsigned helpers = 0;
  if (cfg.copy_threads >= 0) {
    helpers = unsigned(cfg.copy_threads);
  } else {
    // Half the cores, up to 8 copying threads with this one: a 4K 10-bit frame pair is 33 MB of memcpy.
    const unsigned hw = std::thread::hardware_concurrency();
    helpers = hw >= 4 ? std::min(7u, hw / 2 - 1) : 0u;
  }
  p->copy_pool_ = std::make_unique<CopyPool>(helpers);
  p->completion_ = std::thread([raw = p.get()] { raw->completion_loop(); });
  *out = std::move(p);
  return Status::ok();
}

HipPipeline::~HipPipeline() {
  Status s = drain();
  // Work of a frame that failed half-way has no slot event: wait for the streams before the features and the plane
  // sets free the memory they use (teardown only; also after a sticky failure, so the calls are made directly). The
  // upload stream too: an upload whose frame failed before the library stream waited for it may still be running.
  if (device_ && device_->api().stream_synchronize.fn) {
    ContextScope scope(*device_);
    if (scope.status()) {
      (void)device_->api().stream_synchronize.fn(device_->stream());
      for (unsigned i = 0; lanes_ > 1 && i <= lanes_; ++i)
        (void)device_->api().stream_synchronize.fn(device_->lane_stream(i));
      if (device_->upload_stream()) (void)device_->api().stream_synchronize.fn(device_->upload_stream());
    }
  }
  (void)s;
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (completion_.joinable()) completion_.join();
}

Status HipPipeline::add_feature(std::unique_ptr<GpuFeature> feature, const FeatureNeeds& needs, unsigned* id) {
  std::vector<std::unique_ptr<GpuFeature>> one;
  one.push_back(std::move(feature));
  return add_feature(std::move(one), needs, id);
}

Status HipPipeline::add_feature(std::vector<std::unique_ptr<GpuFeature>> instances, const FeatureNeeds& needs,
                                unsigned* id) {
  if (instances.empty() || std::any_of(instances.begin(), instances.end(), [](const auto& f) { return !f; }))
    return {Errc::invalid_argument, "HIP pipeline: null feature"};
  if (instances.size() != 1 && instances.size() != lanes_)
    return {Errc::invalid_argument, "HIP pipeline: " + std::to_string(instances.size()) + " instances of " +
                                        instances[0]->name() + " for " + std::to_string(lanes_) + " lanes"};
  if (instances.size() > 1 && !instances[0]->frame_independent())
    return {Errc::invalid_argument, std::string("HIP pipeline: ") + instances[0]->name() +
                                        " carries state between frames and cannot run on several lanes"};
  if (allocated_ || stats_.frames > 0)
    return {Errc::invalid_argument, "HIP pipeline: features are added before the first frame"};
  *id = unsigned(features_.size());
  needs_prev_ = needs_prev_ || needs.prev_ref;
  needs_chroma_ = needs_chroma_ || needs.chroma;
  features_.push_back({std::move(instances), needs});
  return Status::ok();
}

GpuFeature* HipPipeline::feature(unsigned id, unsigned lane) const {
  return id < features_.size() && lane < lanes_ ? features_[id].at(lane) : nullptr;
}

PipelineStats HipPipeline::stats() const {
  std::lock_guard<std::mutex> lk(mu_);
  return stats_;
}

Status HipPipeline::submit(uint64_t index, const PictureView& ref, const PictureView& dist,
                           const PictureView* prev_ref, std::vector<Part> parts, Done done) {
  assert(done);
  for (const Part& p : parts) {
    assert(p.feature < features_.size() && p.out);
    (void)p;
  }
  if (ref.width != cfg_.width || ref.height != cfg_.height || ref.bit_depth != cfg_.bpc ||
      dist.width != cfg_.dist_width || dist.height != cfg_.dist_height || dist.bit_depth != cfg_.bpc)
    return {Errc::unsupported, "HIP pipeline: frame " + std::to_string(index) + " is not the " +
                                   std::to_string(cfg_.width) + "x" + std::to_string(cfg_.height) + " (distorted " +
                                   std::to_string(cfg_.dist_width) + "x" + std::to_string(cfg_.dist_height) + ") " +
                                   std::to_string(cfg_.bpc) + "-bit video the pipeline was made for"};
  open_index_ = index;
  open_ref_ = ref;
  open_dist_ = dist;
  open_has_prev_ = prev_ref != nullptr;
  if (prev_ref) open_prev_ = *prev_ref;
  Status s = submit_locked_out(&parts, &done);
  if (!s) s.prepend("HIP pipeline, frame " + std::to_string(index));
  return s;
}

Status HipPipeline::allocate() {
  // The largest frame: both lumas, and with chroma four chroma planes with room for interleaved rows (step 2).
  // Planes are placed one after another per frame (stage()), so a frame uploads only what it holds.
  const unsigned word = cfg_.bpc > 8 ? 2 : 1;
  // Both lumas (the distorted one at its own size), and with chroma four chroma planes at their stored (rounded up)
  // sizes with room for interleaved rows (step 2).
  auto luma_bytes = [&](uint32_t w, uint32_t h) {
    return align_up(size_t(w) * word, kRowAlignment) * h + kPlaneAlignment;
  };
  auto chroma_bytes = [&](uint32_t w, uint32_t h) {
    const uint32_t cw = chroma_width_stored(cfg_.chroma, w), ch = chroma_height_stored(cfg_.chroma, h);
    return 2 * (align_up(size_t(cw) * 2 * word, kRowAlignment) * ch + kPlaneAlignment);
  };
  set_bytes_ = luma_bytes(cfg_.width, cfg_.height) + luma_bytes(cfg_.dist_width, cfg_.dist_height);
  if (needs_chroma_ && cfg_.chroma != Chroma::k400)
    set_bytes_ += chroma_bytes(cfg_.width, cfg_.height) + chroma_bytes(cfg_.dist_width, cfg_.dist_height);
  // With the upload stream one set per slot, so the upload of a frame need not wait for the frames still running
  // (only for the one `slots` frames back and its successor, which have long finished in steady state); on the
  // library stream two sets are enough: the stream's order already puts an upload after every read before it.
  const unsigned set_count = upload_stream_ ? slots() : 2u;
  sets_.resize(set_count);
  set_reader_.assign(set_count, {-1, -1});
  for (DeviceBuffer& b : sets_) {
    VMAFX_TRY(DeviceBuffer::create(device_, set_bytes_, &b));
    // Defined content before the first upload (a planted defect reads a set before it is written).
    VMAFX_TRY(device_->memset_d32_async(b.data(), 0, set_bytes_ / 4));
  }
  if (upload_stream_) {
    // The clears ran on the library stream: every later upload (into any set) follows them.
    VMAFX_TRY(Event::create(device_, &sets_cleared_));
    VMAFX_TRY(sets_cleared_.record());
    VMAFX_TRY(device_->upload_wait_event(sets_cleared_.handle()));
  }
  VMAFX_TRY(PinnedRing::create(device_, slots(), set_bytes_, &staging_));
  gates_ = std::make_unique<UploadGate[]>(slots());
  allocated_ = true;
  return Status::ok();
}

// Copies the planes of a host frame into the next pinned ring slot and describes them as they will lie in plane set
// `set`. The upload itself is queued by the caller.
// A device picture's plane read in place (device pictures of a frame whose other picture is staged, and frames of
// device pictures only).
Status HipPipeline::device_plane(const PictureView& v, unsigned p, DevicePlane* dp, bool stored) const {
  const int dev = device_->info().index;
  if (v.device >= 0 && v.device != dev)
    return {Errc::unsupported, "a picture in the memory of device " + std::to_string(v.device) +
                                   ", the pipeline runs on device " + std::to_string(dev)};
  const PlaneView& pv = v.planes[p];
  if (!pv.data) return {Errc::invalid_argument, "device plane " + std::to_string(p) + " has no data"};
  if (pv.stride <= 0)
    return {Errc::unsupported, "device plane " + std::to_string(p) + " with a stride of " + std::to_string(pv.stride) +
                                   " (device planes need a positive stride)"};
  uint32_t w, h;
  plane_size(v, p, stored, &w, &h);
  *dp = {pv.data, size_t(pv.stride), w, h, v.bytes_per_sample, v.shift, uint8_t(pv.step ? pv.step : 1)};
  // The one check of a device plane: every feature (and the scaler) reads it as checked here.
  return check_device_plane(*dp, w, h, cfg_.bpc, "device plane " + std::to_string(p));
}

// Stages the host pictures of a frame (at least one is); the planes of a device picture beside them (a GL texture
// frame paired with system memory, say) are read in place.
Status HipPipeline::stage(const PictureView& ref, const PictureView& dist, bool dist_needed, bool chroma_needed,
                          unsigned set, FramePlanes* planes) {
  if (!allocated_) VMAFX_TRY(allocate());
  PinnedRing::Slot slot;
  VMAFX_TRY(staging_.acquire(&slot));
  uint8_t* dev_base = sets_[set].as<uint8_t>();
  std::vector<CopyPool::Job> jobs;
  size_t end = 0;
  auto plane = [&](const PictureView& v, unsigned p, DevicePlane* dp) -> Status {
    // The scaler reads the distorted chroma planes whole (their stored size), as swscale does.
    const bool stored = !scales_.empty() && &v == &dist;
    if (v.memory == MemoryKind::device) return device_plane(v, p, dp, stored);
    const PlaneView& pv = v.planes[p];
    uint32_t w, h;
    plane_size(v, p, stored, &w, &h);
    if (!pv.data) return {Errc::invalid_argument, "plane " + std::to_string(p) + " has no data"};
    const unsigned step = pv.step ? pv.step : 1;
    const size_t extent = row_extent(w, step, v.bytes_per_sample);
    const size_t pitch = align_up(extent, kRowAlignment);
    const size_t offset = align_up(end, kPlaneAlignment);
    if (offset + pitch * h > set_bytes_)
      return {Errc::unsupported, "plane " + std::to_string(p) + " (" + std::to_string(w) + "x" + std::to_string(h) +
                                     ", step " + std::to_string(step) + ") does not fit the pipeline's " +
                                     std::to_string(set_bytes_) + "-byte plane set"};
    jobs.push_back({slot.host + offset, pitch, pv.data, pv.stride, extent, h});
    *dp = {dev_base + offset, pitch, w, h, v.bytes_per_sample, v.shift, uint8_t(step)};
    assert(device_plane_fits(*dp, w, h, cfg_.bpc));  // submit() checked the picture's depth; the layout is ours
    end = offset + pitch * h;
    return Status::ok();
  };
  VMAFX_TRY(plane(ref, 0, &planes->ref[0]));
  if (dist_needed) VMAFX_TRY(plane(dist, 0, &planes->dist[0]));
  if (chroma_needed) {
    VMAFX_TRY(plane(ref, 1, &planes->ref[1]));
    VMAFX_TRY(plane(ref, 2, &planes->ref[2]));
    VMAFX_TRY(plane(dist, 1, &planes->dist[1]));
    VMAFX_TRY(plane(dist, 2, &planes->dist[2]));
  }
  size_t staged = 0;
  for (const auto& j : jobs) staged += j.row_bytes * j.rows;
  // With the upload gate the copy runs while the frame's work is queued (upload()); else here.
  gated_ = gate_uploads_ && copy_pool_->parallel(jobs);
  if (gated_) staged_jobs_ = std::move(jobs);
  else copy_pool_->run(jobs);
  // Frame N+1's host copy overlaps the device's work on frame N; the upload is one copy of the set's prefix that
  // holds every needed plane.
  upload_src_ = slot.host;
  upload_dst_ = dev_base;
  upload_bytes_ = end;
  upload_slot_ = slot;
  std::lock_guard<std::mutex> lk(mu_);
  stats_.staged_bytes += staged;
  return Status::ok();
}

void HipPipeline::plane_size(const PictureView& v, unsigned p, bool stored, uint32_t* w, uint32_t* h) {
  if (p == 0) {
    *w = v.width;
    *h = v.height;
  } else if (stored) {
    *w = chroma_width_stored(v.chroma, v.width);
    *h = chroma_height_stored(v.chroma, v.height);
  } else {
    *w = chroma_width(v.chroma, v.width);
    *h = chroma_height(v.chroma, v.height);
  }
}

Status HipPipeline::enqueue_features(const std::vector<Part>& parts, const FramePlanes& in, unsigned slot) {
  FramePlanes planes = in;
  const bool scaled = !scales_.empty() && planes.dist[0].data;
  // The distorted planes at the reference's size first, by the scaler of `lane` on the current stream; the features
  // read its output after it.
  auto scale_on = [&](unsigned lane) -> Status {
    ScaleGpu& sc = *scales_[lane];
    VMAFX_TRY(sc.launch(in.dist, planes.planes).prepend("scaling the distorted frame"));
    for (unsigned i = 0; i < planes.planes; ++i) {
      planes.dist[i] = sc.output(i);
      planes.dist[i].width = i == 0 ? cfg_.width : chroma_width(cfg_.chroma, cfg_.width);
      planes.dist[i].height = i == 0 ? cfg_.height : chroma_height(cfg_.chroma, cfg_.height);
    }
    return Status::ok();
  };
  Slot& sl = slots_[slot];
  auto run = [&](bool serial, unsigned lane) -> Status {
    for (const Part& p : parts) {
      const Registered& r = features_[p.feature];
      if (lanes_ > 1 && r.serial() != serial) continue;
      GpuFeature* f = r.at(lane);
      recorder_.begin_group();  // each feature's calls are independent of the others' (graph.h); no-op unless recording
      Status s = f->enqueue(planes, slot);
      if (!s) return s.prepend(f->name());
    }
    return Status::ok();
  };
  // The frame's (non-serial) features on `lane`'s stream: recorded and queued through the graph cache.
  auto run_lane = [&](unsigned lane) -> Status {
    if (!graphs_.enabled()) {
      if (graphs_wanted_) graphs_.count_direct();
      return run(false, lane);
    }
    {
      RecordScope record(*device_, &recorder_);
      VMAFX_TRY(run(false, lane));
    }
    return graphs_.run(slot, recorder_);
  };
  if (lanes_ == 1) {
    sl.lane = 0;
    if (scaled) VMAFX_TRY(scale_on(0));
    VMAFX_TRY(run_lane(0));
    return sl.event.record();
  }
  // Lanes: fork on the library stream (after the upload wait and whatever the caller queued there for this frame's
  // pictures), the scaling (with a scaler) on this frame's lane, the serial features on the serial lane (after the
  // scaling), the others on this frame's lane, which records the slot event after the serial lane's join. The lane's
  // scaler output is overwritten by the lane's next frame only: that is queued after this frame's slot event, which
  // follows the serial lane's reads.
  const unsigned lane = next_lane_;
  next_lane_ = (lane + 1) % lanes_;
  sl.lane = lane;
  VMAFX_TRY(sl.fork.record());
  const bool any_serial =
      std::any_of(parts.begin(), parts.end(), [&](const Part& p) { return features_[p.feature].serial(); });
  if (scaled) {
    StreamScope scope(*device_, device_->lane_stream(lane));
    VMAFX_TRY(device_->wait_event(sl.fork.handle()));
    VMAFX_TRY(scale_on(lane));
    if (any_serial) VMAFX_TRY(sl.scaled.record());
  }
  if (any_serial) {
    StreamScope scope(*device_, device_->lane_stream(lanes_));
    VMAFX_TRY(device_->wait_event((scaled ? sl.scaled : sl.fork).handle()));
    VMAFX_TRY(run(true, 0));
    VMAFX_TRY(sl.join.record());
  }
  StreamScope scope(*device_, device_->lane_stream(lane));
  if (!scaled) VMAFX_TRY(device_->wait_event(sl.fork.handle()));
  VMAFX_TRY(run_lane(lane));
  if (any_serial) VMAFX_TRY(device_->wait_event(sl.join.handle()));
  return sl.event.record();
}

// Queues the staged frame's upload into plane set `set` and the work of the frame's `parts` (the frame in slot
// `slot`) after it.
Status HipPipeline::upload(unsigned slot, unsigned set, const std::vector<Part>& parts, const FramePlanes& planes) {
  const bool planted_early = planted(Plant::clear_before_upload);
  if (!upload_stream_) {
    // One stream: its order puts the upload after every earlier read of the set, and the features after the upload.
    if (planted_early) VMAFX_TRY(enqueue_features(parts, planes, slot));  // planted defect: work before upload
    VMAFX_TRY(device_->copy_async(CopyKind::host_to_device, upload_dst_, upload_src_, upload_bytes_));
    VMAFX_TRY(staging_.submit(upload_slot_));
    set_reader_[set] = {int(slot), -1};
    if (!planted_early) VMAFX_TRY(enqueue_features(parts, planes, slot));
    return Status::ok();
  }
  // The upload stream. First the upload waits for the last frames that read the set (the one that used it and the
  // next one, whose motion read it: with lanes they may run on different streams). A slot event re-recorded since
  // belongs to a later frame, queued after the slot's earlier frame had finished (a slot is reused only then): it
  // only makes the wait longer, never wrong, as a wait always refers to work queued before it.
  if (planted_early) {
    // Planted defect: the frame's work first and the upload after it, so its kernels read the set's old content
    // (enqueue_features records the slot event).
    VMAFX_TRY(enqueue_features(parts, planes, slot));
    VMAFX_TRY(device_->upload_wait_event(slots_[slot].event.handle()));
  } else {
    for (int reader : set_reader_[set])
      if (reader >= 0) VMAFX_TRY(device_->upload_wait_event(slots_[unsigned(reader)].event.handle()));
  }
  if (gated_) {
    // The staging copy runs on the helpers now; the upload waits on the device for the slot's gate, which the helper
    // copying the last piece opens, while this thread queues the frame's kernels; the caller's finish_copy() then
    // waits for the copy (a frame's pictures are read before submit returns, as without the gate). The slot's
    // previous gate has passed: acquiring the slot waited for its upload, which came after it.
    UploadGate& gate = gates_[upload_slot_.index];
    gate.arm();
    copy_pool_->start(staged_jobs_, [&gate] { gate.open(); });
    copying_ = true;
    if (!planted(Plant::skip_gate)) VMAFX_TRY(device_->upload_host_func(&UploadGate::wait_fn, &gate));
  }
  VMAFX_TRY(device_->upload_async(upload_dst_, upload_src_, upload_bytes_));
  // The staging slot's event, on the upload stream: the slot is free once the copy has finished, and the library
  // stream waits for it before the frame's clears and kernels (clears after the upload: feature.h).
  VMAFX_TRY(staging_.submit_upload(upload_slot_));
  // The copy and its event go to the device now, not when the runtime gets round to them: the library stream's
  // work behind them must not start first (Device::submit_upload says where that was measured).
  if (!planted(Plant::skip_upload_submit)) VMAFX_TRY(device_->submit_upload());
  set_reader_[set] = {int(slot), -1};
  if (!planted(Plant::skip_wait)) VMAFX_TRY(device_->wait_event(staging_.event(upload_slot_)));
  if (!planted_early) VMAFX_TRY(enqueue_features(parts, planes, slot));
  return Status::ok();
}

void HipPipeline::finish_copy() {
  if (!copying_) return;
  copy_pool_->finish();
  copying_ = false;
}

Status HipPipeline::device_planes(const PictureView& ref, const PictureView& dist, bool chroma_needed,
                                  FramePlanes* planes) {
  VMAFX_TRY(device_plane(ref, 0, &planes->ref[0]));
  VMAFX_TRY(device_plane(dist, 0, &planes->dist[0], !scales_.empty()));
  if (chroma_needed) {
    for (unsigned p = 1; p < 3; ++p) {
      VMAFX_TRY(device_plane(ref, p, &planes->ref[p]));
      VMAFX_TRY(device_plane(dist, p, &planes->dist[p], !scales_.empty()));
    }
  }
  return Status::ok();
}

Status HipPipeline::submit_locked_out(std::vector<Part>* parts, Done* done) {
  VMAFX_TRY(device_->status());
  // The device's context stays bound for the whole frame, so that the calls below do not each bind and unbind it.
  ContextScope context(*device_);
  VMAFX_TRY(context.status());
  const uint64_t index = open_index_;

  bool dist_needed = false, chroma_needed = false, prev_needed = false;
  for (const Part& p : *parts) {
    const FeatureNeeds& n = features_[p.feature].needs;
    dist_needed = dist_needed || n.dist || n.chroma;
    chroma_needed = chroma_needed || n.chroma;
    prev_needed = prev_needed || n.prev_ref;
  }
  chroma_needed = chroma_needed && cfg_.chroma != Chroma::k400;

  // A free slot: the frame `slots` frames back has finished (its done callbacks ran).
  const unsigned k = next_slot_;
  {
    std::unique_lock<std::mutex> lk(mu_);
    if (slots_[k].busy) {
      ++stats_.blocked_submits;
      cv_.wait(lk, [&] { return !slots_[k].busy; });
    }
  }
  VMAFX_TRY(device_->collect());

  FramePlanes planes;
  planes.width = cfg_.width;
  planes.height = cfg_.height;
  planes.bpc = cfg_.bpc;
  planes.planes = chroma_needed ? 3 : 1;

  // The previous reference luma: the previous frame's, left on the device by this pipeline, or a device picture.
  DevicePlane prev_plane;
  if (prev_needed && open_has_prev_) {
    if (have_last_ && last_index_ + 1 == index) {
      prev_plane = last_ref_;
      // This frame now reads the previous frame's plane set: an upload into it waits for this frame.
      if (last_set_ >= 0) set_reader_[unsigned(last_set_)][1] = int(k);
    } else if (open_prev_.memory == MemoryKind::device) {
      VMAFX_TRY(device_plane(open_prev_, 0, &prev_plane).prepend("the previous reference"));
    } else {
      return {Errc::internal, "the previous reference luma is not on the device (frame " + std::to_string(index - 1) +
                                  " was not submitted to this pipeline)"};
    }
    planes.prev_ref = &prev_plane;
  }

  // Staged when a picture the frame reads is in host memory; a device picture beside it is read in place.
  const bool ref_host = open_ref_.memory == MemoryKind::host;
  const bool dist_host = dist_needed && open_dist_.memory == MemoryKind::host;
  const bool host = ref_host || dist_host;
  const bool mixed = host && (!ref_host || (dist_needed && !dist_host));
  int used_set = -1;
  if (host) {
    const unsigned set = next_set_;
    VMAFX_TRY(stage(open_ref_, open_dist_, dist_needed, chroma_needed, set, &planes));
    next_set_ = (set + 1) % unsigned(sets_.size());
    used_set = int(set);
    const Status up = upload(k, set, *parts, planes);
    finish_copy();  // also when queueing failed: the helpers are done with the caller's pictures before submit returns
    VMAFX_TRY(up);
  } else {
    VMAFX_TRY(device_planes(open_ref_, open_dist_, chroma_needed, &planes));
    VMAFX_TRY(enqueue_features(*parts, planes, k));
  }
  Slot& slot = slots_[k];  // enqueue_features recorded its event

  last_ref_ = planes.ref[0];
  last_set_ = used_set;
  last_index_ = index;
  have_last_ = true;
  next_slot_ = (k + 1) % slots();
  {
    std::lock_guard<std::mutex> lk(mu_);
    ++stats_.frames;
    if (host) {
      ++stats_.host_frames;
      if (mixed) ++stats_.mixed_frames;
      ++stats_.upload_calls;
      if (upload_stream_) ++stats_.stream_uploads;
      stats_.uploaded_bytes += upload_bytes_;
    } else {
      ++stats_.device_frames;
    }
    stats_.graphs = graphs_.stats();
    slot.index = index;
    slot.busy = true;
    if (!planted(Plant::skip_wait)) {
      slot.parts = std::move(*parts);
      slot.done = std::move(*done);
      parts->clear();
      queue_.push_back(k);
    }
  }
  if (planted(Plant::skip_wait)) {
    // Planted defect: the scores are read back before the device has written them.
    Status first;
    for (Part& p : *parts) {
      Status f = features_[p.feature].at(slot.lane)->finish(k, p.out);
      if (first && !f) first = f;
    }
    parts->clear();
    {
      std::lock_guard<std::mutex> lk(mu_);
      slot.busy = false;
    }
    (*done)(first);
    return Status::ok();
  }
  cv_.notify_all();
  return Status::ok();
}

void HipPipeline::completion_loop() {
  // The device's context bound once for the thread's life (the waits and finish() calls below would each bind it).
  ContextScope context(*device_);
  for (;;) {
    unsigned k = 0;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      k = queue_.front();
    }
    Slot& slot = slots_[k];
    const Status waited = slot.event.synchronize();
    std::vector<Part> parts;
    Done done;
    {
      std::lock_guard<std::mutex> lk(mu_);
      parts = std::move(slot.parts);
      done = std::move(slot.done);
      slot.parts.clear();
    }
    Status frame_status = waited;
    for (Part& p : parts) {
      if (!frame_status) break;
      GpuFeature* f = features_[p.feature].at(slot.lane);
      Status s = f->finish(k, p.out);
      if (!s) frame_status = s.prepend(std::string(f->name()) + " finishing frame " + std::to_string(slot.index));
    }
    // The slot is free before `done` runs: the caller may submit the next frame from inside it.
    {
      std::lock_guard<std::mutex> lk(mu_);
      slot.busy = false;
      queue_.pop_front();
    }
    cv_.notify_all();
    if (done) done(frame_status);
  }
}

Status HipPipeline::drain() {
  {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return queue_.empty(); });
  }
  return device_->status();
}

}  // namespace vmafx::hip
