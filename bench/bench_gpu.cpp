// SPDX-License-Identifier: LGPL-2.1-or-later
// bench-gpu: vmaf_v0.6.1 through the public Scorer on the GPU (backend=hip) and, for comparison, on the CPU
// (threads = cores), on synthetic frames held in memory. Not a test: the tables it prints paste into
// docs/performance.md.
//
//   steady state   frames per second after a warm-up (start-up, module loads, first allocations excluded), host
//                  frames (the pipeline stages and uploads them) and device-resident frames (read in place)
//   latency        closed loop, one frame in flight: from handing frame i in to frame i's scores being computed
//                  (the scorer emits frame i - 1 then: its motion2 needs frame i; timed at the on_frame call, and
//                  at the submitting thread's wake-up), median and 99th percentile
//   breakdown      device frames, one feature at a time without a model: what each GPU feature costs per frame,
//                  and its latency with one frame in flight (which feature's chain of kernels sets the latency)
//
// Host frames are uploaded on the device's upload stream (overlapping the kernels of the frame before) or on the
// library stream (VMAFX_HIP_UPLOAD_STREAM=0: EngineTuning::upload_stream); the `upload` column says which one ran.
// --upload-stream on|off sets it
// for the whole run, --upload-stream both runs every host-frame row in both modes (library stream first).
//
//   bench-gpu [--frames N] [--warmup N] [--size WxH]... [--bitdepth B]... [--no-cpu] [--no-breakdown]
//             [--vendor auto|amd|nvidia] [--device N] [--upload-stream on|off|both] [--model VERSION]
//             [--breakdown-features NAME,NAME,...] [--lanes N,N,...]
// --model scores another built-in model (vmaf_v1.0.16_3d0h: cambi, speed_chroma, v1's ADM and motion) in the
// throughput and latency rows; --breakdown-features lists the features of the breakdown (default
// motion,vif,adm,psnr), each in libvmaf's syntax NAME[=OPT=VAL:...]. --lanes runs every throughput row once per
// lane count (VMAFX_HIP_LANES; 0: the default); the backend column says how many lanes ran.
//
//   bench-gpu --ladder WxH,WxH,... [--size WxH] [--frames N] [--warmup N] [--device N]
// --ladder instead: an encoding ladder's steady state on device frames. One reference of the first --size (default
// 1920x1080, 8 bits), one scorer per rendition size given (each scales its rendition to the reference's size), every
// scorer fed from a thread of its own with the same reference frames: rendition frames per second, beside each
// rendition alone and the reference's size alone; then the same ladder against one SharedReference fed by one thread,
// as vmafx-score's ladders are (motion computed once per reference frame).
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "hip/device.h"
#include "hip/pipeline.h"
#include "vmafx/scorer.h"

using namespace vmafx;

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  unsigned frames = 0, warmup = 0;
  std::vector<std::pair<uint32_t, uint32_t>> sizes = {{1920, 1080}, {3840, 2160}};
  std::vector<unsigned> depths = {8, 10};
  bool cpu = true, breakdown = true;
  Vendor vendor = Vendor::auto_select;
  int device = -1;
  // Upload modes of the host-frame rows: -1 as the environment says, 0 library stream, 1 upload stream.
  std::vector<int> upload_modes = {-1};
  std::string model = "vmaf_v0.6.1";
  std::vector<std::string> breakdown_features = {"motion", "vif", "adm", "psnr"};
  std::vector<unsigned> lanes = {0};  // lanes per throughput row (0: as the environment says, else the default)
  std::vector<std::pair<uint32_t, uint32_t>> ladder;  // --ladder: the renditions' sizes
};

// The tuning of the environment (vmafx/tuning.h, read when bench-gpu starts) and that of the scorers made next.
EngineTuning g_env_tuning;
EngineTuning g_tuning;

void select_lanes(unsigned n) { g_tuning.lanes = n ? n : g_env_tuning.lanes; }

// Sets the upload mode of the scorers made next (-1: as the environment says) and names the mode they will run.
const char* select_upload(int mode, const hip::Device& dev) {
  g_tuning.upload_stream = mode >= 0 ? mode : g_env_tuning.upload_stream;
  return hip::upload_stream_selected(dev, g_tuning.upload_stream) ? "upload stream" : "library stream";
}

// Deterministic content: gradients, a moving pattern and texture; the distorted copy adds noise.
void make_frame(std::vector<uint8_t>& buf, uint32_t w, uint32_t h, unsigned bpc, unsigned n, bool distort) {
  const unsigned bps = bpc > 8 ? 2 : 1;
  const uint32_t cw = (w + 1) / 2, ch = (h + 1) / 2;
  buf.assign((size_t(w) * h + 2 * size_t(cw) * ch) * bps, 0);
  uint32_t seed = 12345u + n * 7919u + (distort ? 1u : 0u);
  const unsigned maxv = (1u << bpc) - 1;
  auto put = [&](size_t i, unsigned v) {
    if (v > maxv) v = maxv;
    if (bps == 1) {
      buf[i] = uint8_t(v);
    } else {
      buf[2 * i] = uint8_t(v & 0xff);
      buf[2 * i + 1] = uint8_t(v >> 8);
    }
  };
  for (uint32_t y = 0; y < h; y++) {
    for (uint32_t x = 0; x < w; x++) {
      seed = seed * 1664525u + 1013904223u;
      unsigned v = ((x + 3 * n) * 3 + y * 2 + (((x + n) / 16 + y / 16) % 2) * 40) % 220 + 16;
      if (distort) v = v + ((seed >> 28) & 7) - 3;
      put(size_t(y) * w + x, v << (bpc - 8));
    }
  }
  for (size_t i = 0; i < 2 * size_t(cw) * ch; i++) put(size_t(w) * h + i, 128u << (bpc - 8));
}

[[noreturn]] void die(const std::string& what, const Status& s) {
  std::fprintf(stderr, "bench-gpu: %s: %s\n", what.c_str(), s.to_string().c_str());
  std::exit(1);
}

// Eight distinct frame pairs, in host memory and (for the GPU) copied once to device memory.
struct Frames {
  FormatInfo fmt;
  uint32_t w = 0, h = 0;
  unsigned bpc = 8;
  std::vector<std::vector<uint8_t>> ref, dist;
  std::vector<PictureView> host_ref, host_dist, dev_ref, dev_dist;
  std::vector<hip::DeviceBuffer> dev_buffers;
};

void make_frames(uint32_t w, uint32_t h, unsigned bpc, const std::shared_ptr<hip::Device>& dev, Frames* f) {
  constexpr unsigned kDistinct = 8;
  f->w = w;
  f->h = h;
  f->bpc = bpc;
  if (Status s = parse_pixel_format("420", bpc, &f->fmt); !s) die("format", s);
  PlaneLayout lay[3];
  size_t size = 0;
  const unsigned np = packed_layout(f->fmt, w, h, lay, &size);
  f->ref.resize(kDistinct);
  f->dist.resize(kDistinct);
  for (unsigned i = 0; i < kDistinct; i++) {
    make_frame(f->ref[i], w, h, bpc, i, false);
    make_frame(f->dist[i], w, h, bpc, i, true);
    for (int d = 0; d < 2; ++d) {
      const std::vector<uint8_t>& buf = d ? f->dist[i] : f->ref[i];
      PictureView v;
      if (Status s = make_picture_view(f->fmt, w, h, buf.data(), size, lay, np, &v); !s) die("view", s);
      (d ? f->host_dist : f->host_ref).push_back(v);
      if (!dev) continue;
      hip::DeviceBuffer b;
      if (Status s = hip::DeviceBuffer::create(dev, size, &b); !s) die("device frame", s);
      if (Status s = dev->copy_async(hip::CopyKind::host_to_device, b.data(), buf.data(), size); !s) die("copy", s);
      PictureView dv = v;
      dv.memory = MemoryKind::device;
      dv.device = dev->info().index;
      for (auto& p : dv.planes)
        if (p.data) p.data = b.as<uint8_t>() + (p.data - buf.data());
      (d ? f->dev_dist : f->dev_ref).push_back(dv);
      f->dev_buffers.push_back(std::move(b));
    }
  }
  if (dev) {
    if (Status s = dev->synchronize(); !s) die("copy", s);
  }
}

ScorerConfig config(const Options& o, Backend b) {
  ScorerConfig cfg;
  cfg.backend = b;
  cfg.vendor = o.vendor;
  cfg.device_id = o.device;
  cfg.threads = b == Backend::cpu ? std::max(1u, std::thread::hardware_concurrency()) : 0;
  cfg.models[0].model = o.model;
  cfg.tuning = g_tuning;
  return cfg;
}

struct Result {
  double fps = 0;
  unsigned frames = 0;
  std::string backend;
};

// Steady-state throughput: `warmup` frames, then the clock runs from the next submit until flush() has returned.
StreamGeometry geometry(const Frames& f) {
  StreamGeometry g;
  g.ref = {f.w, f.h, uint8_t(f.bpc), Chroma::k420};
  return g;
}

FramePair pair_of(const PictureView& r, const PictureView& d, unsigned i) {
  FramePair p;
  p.ref = r;
  p.dist = d;
  p.timestamp = i;
  p.user = i;
  return p;
}

Result throughput(ScorerConfig cfg, const Frames& f, bool device, unsigned frames, unsigned warmup) {
  double sink = 0;
  cfg.on_frame = [&sink](const FrameScore& fs) { sink += fs.values.back(); };
  std::unique_ptr<Scorer> s;
  if (Status st = Scorer::create(cfg, geometry(f), &s); !st) die("scorer", st);
  const auto& refs = device ? f.dev_ref : f.host_ref;
  const auto& dists = device ? f.dev_dist : f.host_dist;
  Clock::time_point t0 = Clock::now();
  for (unsigned i = 0; i < warmup + frames; i++) {
    if (i == warmup) t0 = Clock::now();
    if (Status st = s->submit(pair_of(refs[i % refs.size()], dists[i % dists.size()], i)); !st) die("submit", st);
  }
  if (Status st = s->flush(); !st) die("flush", st);
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  (void)sink;
  std::string backend = s->backend_description();
  const ScorerCounters c = s->counters();
  if (c.graph_launches + c.graph_captures + c.graph_direct > 0)
    backend += ", graphs " + std::to_string(c.graph_launches) + "/" + std::to_string(c.graph_captures) + "/" +
               std::to_string(c.graph_direct) + " (launched/captured/call by call), " +
               std::to_string(c.graph_calls / std::max<uint64_t>(1, c.frames)) + " calls per frame";
  return {frames / secs, frames, backend};
}

// Closed loop, one frame in flight: submit(i) until on_frame hands out frame i - 1 (emitted once frame i's scores
// exist). Milliseconds, sorted: `ms` to the on_frame call (on the backend's thread: the scores are computed),
// `woken` to the submitting thread's return from its wait (adds that thread's wake-up).
struct Latency {
  std::vector<double> ms, woken;
};
// delay: frames the scorer holds a frame back (1: frame i - 1 comes out with frame i, as with motion; -1: find out
// from frame 0, which then comes out within 10 s or not at all before frame 1).
Latency latency(ScorerConfig cfg, const Frames& f, bool device, unsigned frames, unsigned warmup, int delay = 1) {
  std::mutex mu;
  std::condition_variable cv;
  uint64_t emitted = 0;
  Clock::time_point emitted_at;
  cfg.on_frame = [&](const FrameScore&) {
    const auto now = Clock::now();
    std::lock_guard<std::mutex> lk(mu);
    emitted++;
    emitted_at = now;
    cv.notify_all();
  };
  std::unique_ptr<Scorer> s;
  if (Status st = Scorer::create(cfg, geometry(f), &s); !st) die("scorer", st);
  const auto& refs = device ? f.dev_ref : f.host_ref;
  const auto& dists = device ? f.dev_dist : f.host_dist;
  Latency out;
  for (unsigned i = 0; i < warmup + frames; i++) {
    const auto t0 = Clock::now();
    if (Status st = s->submit(pair_of(refs[i % refs.size()], dists[i % dists.size()], i)); !st) die("submit", st);
    if (i == 0 && delay < 0) {
      std::unique_lock<std::mutex> lk(mu);
      delay = cv.wait_for(lk, std::chrono::seconds(10), [&] { return emitted >= 1; }) ? 0 : 1;
    }
    if (i < unsigned(delay)) continue;
    const uint64_t want = i + 1 - unsigned(delay);  // frames [0, want) out: frame i's scores exist
    Clock::time_point at;
    {
      // A bounded wait, so a lost frame is an error.
      std::unique_lock<std::mutex> lk(mu);
      if (!cv.wait_for(lk, std::chrono::seconds(60), [&] { return emitted >= want; }))
        die("latency", {Errc::internal, "frame " + std::to_string(want - 1) + " did not come back within 60 s"});
      at = emitted_at;
    }
    if (i >= warmup) {
      out.ms.push_back(std::chrono::duration<double, std::milli>(at - t0).count());
      out.woken.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
  }
  if (Status st = s->flush(); !st) die("flush", st);
  std::sort(out.ms.begin(), out.ms.end());
  std::sort(out.woken.begin(), out.woken.end());
  return out;
}

double percentile(const std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  return v[std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5))];
}

// The ladder: every rung's scorer fed by its own thread, `frames` frames each after `warmup`; the clock runs from
// the moment every thread has passed its warm-up until the last flush() returned. Rendition frames per second.
double ladder_rate(const Options& o, const Frames& ref, const std::vector<const Frames*>& rungs, unsigned frames,
                   unsigned warmup) {
  std::vector<std::unique_ptr<Scorer>> scorers(rungs.size());
  for (size_t k = 0; k < rungs.size(); k++) {
    ScorerConfig cfg = config(o, Backend::hip);
    cfg.on_frame = [](const FrameScore&) {};
    StreamGeometry g = geometry(ref);
    g.dist = {rungs[k]->w, rungs[k]->h, uint8_t(rungs[k]->bpc), Chroma::k420};
    if (Status st = Scorer::create(cfg, g, &scorers[k]); !st) die("scorer", st);
  }
  std::mutex mu;
  std::condition_variable cv;
  size_t warm = 0;
  Clock::time_point t0;
  std::vector<std::thread> threads;
  for (size_t k = 0; k < rungs.size(); k++) {
    threads.emplace_back([&, k] {
      const Frames& d = *rungs[k];
      for (unsigned i = 0; i < warmup + frames; i++) {
        if (i == warmup) {
          std::unique_lock<std::mutex> lk(mu);
          if (++warm == rungs.size()) {
            t0 = Clock::now();
            cv.notify_all();
          }
          cv.wait(lk, [&] { return warm == rungs.size(); });
        }
        const PictureView& r = ref.dev_ref[i % ref.dev_ref.size()];
        if (Status st = scorers[k]->submit(pair_of(r, d.dev_dist[i % d.dev_dist.size()], i)); !st) die("submit", st);
      }
      if (Status st = scorers[k]->flush(); !st) die("flush", st);
    });
  }
  for (auto& t : threads) t.join();
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  return double(frames) * double(rungs.size()) / secs;
}

// The ladder as vmafx-score feeds it: one thread hands each reference frame to a SharedReference (motion once per
// frame; device frames are not copied) and then every rung's pair of that frame to its scorer.
double shared_ladder_rate(const Options& o, const Frames& ref, const std::vector<const Frames*>& rungs,
                          unsigned frames, unsigned warmup, SharedReferenceCounters* counters) {
  ScorerConfig base = config(o, Backend::hip);
  base.on_frame = [](const FrameScore&) {};
  std::shared_ptr<SharedReference> shared;
  if (Status st = SharedReference::create(base, geometry(ref).ref, &shared); !st) die("shared reference", st);
  std::vector<std::unique_ptr<Scorer>> scorers(rungs.size());
  for (size_t k = 0; k < rungs.size(); k++) {
    ScorerConfig cfg = base;
    cfg.shared_reference = shared;
    StreamGeometry g = geometry(ref);
    g.dist = {rungs[k]->w, rungs[k]->h, uint8_t(rungs[k]->bpc), Chroma::k420};
    if (Status st = Scorer::create(cfg, g, &scorers[k]); !st) die("scorer", st);
  }
  Clock::time_point t0 = Clock::now();
  for (unsigned i = 0; i < warmup + frames; i++) {
    if (i == warmup) t0 = Clock::now();
    std::shared_ptr<const SharedFrame> sf;
    if (Status st = shared->submit(ref.dev_ref[i % ref.dev_ref.size()], {}, &sf); !st) die("shared submit", st);
    for (size_t k = 0; k < rungs.size(); k++) {
      FramePair p = pair_of(PictureView{}, rungs[k]->dev_dist[i % rungs[k]->dev_dist.size()], i);
      p.shared = sf;
      if (Status st = scorers[k]->submit(std::move(p)); !st) die("submit", st);
    }
  }
  for (auto& s : scorers)
    if (Status st = s->flush(); !st) die("flush", st);
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  *counters = shared->counters();
  return double(frames) * double(rungs.size()) / secs;
}

int run_ladder(const Options& o, const std::shared_ptr<hip::Device>& dev) {
  const auto [rw, rh] = o.sizes.front();
  const unsigned bpc = o.depths.front();
  const unsigned n = o.frames ? o.frames : 600, warm = o.warmup ? o.warmup : 30;
  Frames ref;
  make_frames(rw, rh, bpc, dev, &ref);
  std::vector<Frames> own(o.ladder.size());
  std::vector<const Frames*> rungs;
  for (size_t k = 0; k < o.ladder.size(); k++) {
    if (o.ladder[k].first == rw && o.ladder[k].second == rh) {
      rungs.push_back(&ref);
    } else {
      make_frames(o.ladder[k].first, o.ladder[k].second, bpc, dev, &own[k]);
      rungs.push_back(&own[k]);
    }
  }
  std::printf("Ladder on device frames: reference %ux%u %u-bit, %s, %u frames per rendition after %u\n\n", rw, rh,
              bpc, o.model.c_str(), n, warm);
  std::printf("| scored | scorers | rendition frames/s | reference frames/s |\n|---|---|---|---|\n");
  for (size_t k = 0; k < rungs.size(); k++) {
    const double r = ladder_rate(o, ref, {rungs[k]}, n, warm);
    std::printf("| %ux%u alone | 1 | %.0f | %.0f |\n", rungs[k]->w, rungs[k]->h, r, r);
    std::fflush(stdout);
  }
  const double r = ladder_rate(o, ref, rungs, n, warm);
  std::string names;
  for (const Frames* f : rungs) names += (names.empty() ? "" : ", ") + std::to_string(f->h) + "p";
  std::printf("| ladder %s | %zu | %.0f | %.0f |\n", names.c_str(), rungs.size(), r, r / double(rungs.size()));
  SharedReferenceCounters c;
  const double rs = shared_ladder_rate(o, ref, rungs, n, warm, &c);
  std::printf("| ladder %s, one shared reference, one feeding thread | %zu | %.0f | %.0f |\n", names.c_str(),
              rungs.size(), rs, rs / double(rungs.size()));
  std::printf("\nshared reference: %llu frames, motion on %llu, %llu copied to the device\n",
              (unsigned long long)c.frames, (unsigned long long)c.feature_frames, (unsigned long long)c.uploads);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (Status s = tuning_from_environment(&g_env_tuning); !s) die("environment", s);
  g_tuning = g_env_tuning;
  Options o;
  bool sizes_given = false, depths_given = false;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const bool more = i + 1 < argc;
    if (!std::strcmp(a, "--frames") && more) {
      o.frames = unsigned(std::atoi(argv[++i]));
    } else if (!std::strcmp(a, "--warmup") && more) {
      o.warmup = unsigned(std::atoi(argv[++i]));
    } else if (!std::strcmp(a, "--size") && more) {
      unsigned w, h;
      if (std::sscanf(argv[++i], "%ux%u", &w, &h) != 2) return std::fprintf(stderr, "bad --size\n"), 1;
      if (!sizes_given) o.sizes.clear();
      sizes_given = true;
      o.sizes.push_back({w, h});
    } else if (!std::strcmp(a, "--bitdepth") && more) {
      if (!depths_given) o.depths.clear();
      depths_given = true;
      o.depths.push_back(unsigned(std::atoi(argv[++i])));
    } else if (!std::strcmp(a, "--model") && i + 1 < argc) {
      o.model = argv[++i];
    } else if (!std::strcmp(a, "--breakdown-features") && i + 1 < argc) {
      o.breakdown_features.clear();
      std::string list = argv[++i];
      for (size_t at = 0; at <= list.size();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        if (comma > at) o.breakdown_features.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
    } else if (!std::strcmp(a, "--lanes") && more) {
      o.lanes.clear();
      for (const char* p = argv[++i]; *p;) {
        char* end = nullptr;
        o.lanes.push_back(unsigned(std::strtoul(p, &end, 10)));
        if (end == p) die("--lanes", {Errc::invalid_argument, "a comma-separated list of lane counts"});
        p = *end == ',' ? end + 1 : end;
      }
    } else if (!std::strcmp(a, "--ladder") && more) {
      for (const char* p = argv[++i]; *p;) {
        unsigned w = 0, h = 0;
        int used = 0;
        if (std::sscanf(p, "%ux%u%n", &w, &h, &used) != 2 || !w || !h) return std::fprintf(stderr, "bad --ladder\n"), 1;
        o.ladder.push_back({w, h});
        p += used;
        if (*p == ',') p++;
      }
    } else if (!std::strcmp(a, "--no-cpu")) {
      o.cpu = false;
    } else if (!std::strcmp(a, "--no-breakdown")) {
      o.breakdown = false;
    } else if (!std::strcmp(a, "--vendor") && more) {
      const std::string v = argv[++i];
      o.vendor = v == "amd" ? Vendor::amd : v == "nvidia" ? Vendor::nvidia : Vendor::auto_select;
    } else if (!std::strcmp(a, "--device") && more) {
      o.device = std::atoi(argv[++i]);
    } else if (!std::strcmp(a, "--upload-stream") && more) {
      const std::string v = argv[++i];
      if (v == "on") {
        o.upload_modes = {1};
      } else if (v == "off") {
        o.upload_modes = {0};
      } else if (v == "both") {
        o.upload_modes = {0, 1};
      } else {
        return std::fprintf(stderr, "bad --upload-stream (on, off or both)\n"), 1;
      }
    } else {
      std::fprintf(stderr,
                   "usage: bench-gpu [--frames N] [--warmup N] [--size WxH]... [--bitdepth B]... [--no-cpu] "
                   "[--no-breakdown] [--vendor auto|amd|nvidia] [--device N] [--upload-stream on|off|both] "
                   "[--model VERSION] [--breakdown-features NAME,...] [--lanes N,...] [--ladder WxH,...]\n");
      return 1;
    }
  }

  std::shared_ptr<hip::Device> dev;
  const hip::Vendor hv = o.vendor == Vendor::amd      ? hip::Vendor::amd
                         : o.vendor == Vendor::nvidia ? hip::Vendor::nvidia
                                                      : hip::Vendor::auto_select;
  if (Status s = hip::Device::get(hv, o.device, &dev); !s) die("no GPU", s);
  std::printf("device: %s %s (%s), %zu MiB, %s; host: %u hardware threads\n\n", hip::vendor_name(dev->info().vendor),
              dev->info().name.c_str(), dev->info().arch.c_str(), dev->info().total_memory >> 20,
              dev->info().library.c_str(), std::thread::hardware_concurrency());
  std::printf("model: %s\n\n", o.model.c_str());
  if (!o.ladder.empty()) return run_ladder(o, dev);
  {
    const std::string given = g_env_tuning.upload_stream < 0
                                  ? "VMAFX_HIP_UPLOAD_STREAM unset"
                                  : "VMAFX_HIP_UPLOAD_STREAM=" + std::to_string(g_env_tuning.upload_stream);
    std::string modes;
    for (int m : o.upload_modes) modes += std::string(modes.empty() ? "" : ", then ") + select_upload(m, *dev);
    std::printf("host frames uploaded on: %s (%s%s; the runtime %s order two streams)\n\n", modes.c_str(),
                given.c_str(), o.upload_modes[0] >= 0 ? ", overridden by --upload-stream" : "",
                dev->can_order_streams() ? "can" : "cannot");
  }

  std::printf("| size | bits | input | upload | backend | frames | fps | ms/frame |\n"
              "|---|---|---|---|---|---|---|---|\n");
  std::vector<std::string> latency_rows;
  for (auto [w, h] : o.sizes) {
    for (unsigned bpc : o.depths) {
      Frames f;
      make_frames(w, h, bpc, dev, &f);
      const bool big = size_t(w) * h > 4000000;
      const unsigned n = o.frames ? o.frames : (big ? 600 : 1500);
      const unsigned warm = o.warmup ? o.warmup : 60;
      // Host rows once per upload mode; device frames are read in place (no upload) and run once.
      struct Run {
        bool device;
        int mode;
      };
      std::vector<Run> runs;
      for (int m : o.upload_modes) runs.push_back({false, m});
      runs.push_back({true, -1});
      for (const Run& run : runs) {
        for (unsigned lanes : o.lanes) {
          select_lanes(lanes);
          const char* upload = run.device ? "-" : select_upload(run.mode, *dev);
          const Result r = throughput(config(o, Backend::hip), f, run.device, n, warm);
          std::printf("| %ux%u | %u | %s | %s | %s | %u | %.0f | %.3f |\n", w, h, bpc, run.device ? "device" : "host",
                      upload, r.backend.c_str(), r.frames, r.fps, 1000.0 / r.fps);
          std::fflush(stdout);
        }
      }
      select_lanes(o.lanes.back());  // latency and breakdown rows: the last lane count
      if (o.cpu) {
        const unsigned cn = big ? 12 : 40;
        const Result r = throughput(config(o, Backend::cpu), f, false, cn, 4);
        std::printf("| %ux%u | %u | host | - | cpu, %u threads | %u | %.1f | %.2f |\n", w, h, bpc,
                    std::max(1u, std::thread::hardware_concurrency()), r.frames, r.fps, 1000.0 / r.fps);
        std::fflush(stdout);
      }
      for (const Run& run : runs) {
        const char* upload = run.device ? "-" : select_upload(run.mode, *dev);
        const Latency l = latency(config(o, Backend::hip), f, run.device, big ? 200 : 400, 20);
        const std::vector<double>& ms = l.ms;
        char row[320];
        std::snprintf(row, sizeof row, "| %ux%u | %u | %s | %s | %zu | %.3f | %.3f | %.3f | %.3f / %.3f |", w, h, bpc,
                      run.device ? "device" : "host", upload, ms.size(), percentile(ms, 0.5), percentile(ms, 0.99),
                      ms.empty() ? 0.0 : ms.back(), percentile(l.woken, 0.5), percentile(l.woken, 0.99));
        latency_rows.push_back(row);
      }
    }
  }
  std::printf("\nLatency, one frame in flight (ms from submit of frame i to its scores computed, i.e. on_frame; last "
              "column: to the submitting thread's wake-up):\n\n");
  std::printf("| size | bits | input | upload | frames | median | p99 | max | woken median / p99 |\n"
              "|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& r : latency_rows) std::printf("%s\n", r.c_str());

  if (o.breakdown) {
    std::printf("\nPer feature, device frames, no model (frames per second with that feature alone, and its latency "
                "with one frame in flight; lanes %s):\n\n",
                g_tuning.lanes ? std::to_string(g_tuning.lanes).c_str() : "default");
    std::printf("| size | bits | feature | fps | ms/frame | latency median (ms) | where |\n"
                "|---|---|---|---|---|---|---|\n");
    for (auto [w, h] : o.sizes) {
      for (unsigned bpc : o.depths) {
        Frames f;
        make_frames(w, h, bpc, dev, &f);
        const bool big = size_t(w) * h > 4000000;
        for (const std::string& feature : o.breakdown_features) {
          ScorerConfig cfg = config(o, Backend::hip);
          cfg.models.clear();
          // libvmaf's syntax: NAME[=OPT=VAL:OPT=VAL...]
          FeatureRequest req;
          const size_t eq = feature.find('=');
          req.name = feature.substr(0, eq);
          for (size_t at = eq == std::string::npos ? feature.size() : eq + 1; at < feature.size();) {
            const size_t colon = std::min(feature.find(':', at), feature.size());
            const std::string kv = feature.substr(at, colon - at);
            const size_t e2 = kv.find('=');
            if (e2 != std::string::npos) req.options.push_back({kv.substr(0, e2), kv.substr(e2 + 1)});
            at = colon + 1;
          }
          cfg.features = {req};
          const Result r = throughput(cfg, f, true, big ? 600 : 1500, 60);
          const Latency l = latency(cfg, f, true, big ? 200 : 400, 20, -1);
          // A feature (or option) without a GPU implementation runs on the CPU part: say so instead of passing
          // its CPU rate off as the GPU's.
          const size_t cpu_at = r.backend.find("(on the CPU: ");
          const std::string where = cpu_at == std::string::npos ? "gpu" : r.backend.substr(cpu_at + 1);
          std::printf("| %ux%u | %u | %s | %.0f | %.3f | %.3f | %s |\n", w, h, bpc, feature.c_str(), r.fps,
                      1000.0 / r.fps, percentile(l.ms, 0.5), where.c_str());
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}
