// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx-score: scores a reference/distorted pair of .yuv or .y4m files with the vmafx engine, with options modelled
// on libvmaf's `vmaf` tool, and writes libvmaf's results files.
#include <dlfcn.h>
#include <getopt.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "vmafx/model.h"
#include "vmafx/output.h"
#include "vmafx/scorer.h"
#include "trace.h"
#include "yuv_reader.h"

using namespace vmafx;

namespace {

constexpr const char* kVersion = "0.1.0";

void usage(FILE* out) {
  std::fprintf(out,
               "usage: vmafx-score -r REF -d DIST [options]\n\n"
               " --reference/-r PATH        reference .yuv or .y4m\n"
               " --distorted/-d PATH        distorted .yuv or .y4m\n"
               " --width/-w N --height/-h N picture size (raw .yuv)\n"
               " --pixel_format/-p FMT      420, 422, 444, 400, or a layout: i420 yv12 nv12 nv21 p010 p016\n"
               " --bitdepth/-b N            8, 10, 12 or 16 (default 8)\n"
               " --model/-m PARAMS          colon-separated: version=NAME | path=FILE, name=LABEL, disable_clip,\n"
               "                            enable_transform (default version=vmaf_v0.6.1); a bare NAME or FILE works\n"
               " --feature NAME             extra feature: psnr, float_ssim, float_ms_ssim (repeatable)\n"
               " --subsample N              score every N-th frame\n"
               " --threads N                CPU worker threads\n"
               " --frame_cnt N              score at most N frames\n"
               " --frame_skip_ref N         skip the first N reference frames\n"
               " --frame_skip_dist N        skip the first N distorted frames\n"
               " --output/-o PATH           results file\n"
               " --xml | --json | --csv | --sub   results format (default xml, as libvmaf)\n"
               " --no_prediction/-n         features only, no model\n"
               " --backend auto|cpu|hip     where features run (default auto)\n"
               " --vendor auto|amd|nvidia   GPU runtime (default auto)\n"
               " --device N                 GPU index (default: first usable)\n"
               " --per-frame                print every frame's scores\n"
               " --quiet/-q                 print nothing but errors\n"
               " --version/-v               print the version\n");
}

int fail(const std::string& msg) {
  std::fprintf(stderr, "vmafx-score: %s\n", msg.c_str());
  return 1;
}

bool parse_uint(const char* s, unsigned long* out) {
  char* end = nullptr;
  errno = 0;
  unsigned long v = std::strtoul(s, &end, 10);
  if (errno || !end || *end || s[0] == '-' || s[0] == 0) return false;
  *out = v;
  return true;
}

// A free list of frame buffers: the scorer returns each buffer through the release callback of its frame.
class BufferPool {
 public:
  explicit BufferPool(size_t size) : size_(size) {}
  std::unique_ptr<uint8_t[]> get() {
    std::lock_guard<std::mutex> lk(mu_);
    if (free_.empty()) return std::unique_ptr<uint8_t[]>(new uint8_t[size_]);
    auto b = std::move(free_.back());
    free_.pop_back();
    return b;
  }
  void put(std::unique_ptr<uint8_t[]> b) {
    std::lock_guard<std::mutex> lk(mu_);
    free_.push_back(std::move(b));
  }

 private:
  size_t size_;
  std::mutex mu_;
  std::vector<std::unique_ptr<uint8_t[]>> free_;
};

// Reads one input on its own thread, up to `ahead` frames ahead of the scorer, into buffers of a pool: the two
// inputs are read in parallel with each other and with the scoring (a GPU scores faster than one thread reads).
// Frames, the end of the input and read errors come out of next() in file order.
class ReadAhead {
 public:
  ReadAhead(tools::VideoReader& reader, BufferPool& pool, uint64_t limit, size_t ahead, const char* name)
      : reader_(reader), pool_(pool), limit_(limit), ahead_(ahead), name_(name) {
    thread_ = std::thread([this] { run(); });
  }
  ~ReadAhead() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  // The next frame into *buf; *got false at the end of the input (or of `limit` frames).
  Status next(std::unique_ptr<uint8_t[]>* buf, bool* got) {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return !queue_.empty() || finished_; });
    if (queue_.empty()) {
      *got = false;
      return Status::ok();
    }
    Item item = std::move(queue_.front());
    queue_.pop_front();
    cv_.notify_all();
    *buf = std::move(item.buf);
    *got = item.got;
    return item.status;
  }

 private:
  struct Item {
    std::unique_ptr<uint8_t[]> buf;
    bool got = false;
    Status status;
  };
  void run() {
    uint64_t n = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return stop_ || queue_.size() < ahead_; });
        if (stop_ || (limit_ && n >= limit_)) break;
      }
      Item item;
      item.buf = pool_.get();
      item.status = reader_.read(item.buf.get(), &item.got);
      const bool last = !item.got || !item.status.is_ok();
      if (item.got) frames_read_.fetch_add(1);
      if (n == 0 && item.got) tools::trace::event("%s reader: first frame read", name_);
      if (last)
        tools::trace::event("%s reader: stops after %" PRIu64 " frames (%s)", name_, n,
                            item.status.is_ok() ? "end of input" : item.status.message().c_str());
      {
        std::lock_guard<std::mutex> lk(mu_);
        queue_.push_back(std::move(item));
      }
      cv_.notify_all();
      if (last) break;
      n++;
    }
    if (limit_ && n >= limit_) tools::trace::event("%s reader: stops after %" PRIu64 " frames (--frame_cnt)", name_, n);
    std::lock_guard<std::mutex> lk(mu_);
    finished_ = true;
    cv_.notify_all();
  }

 public:
  uint64_t frames_read() const { return frames_read_.load(); }

 private:
  tools::VideoReader& reader_;
  BufferPool& pool_;
  const uint64_t limit_;
  const size_t ahead_;
  const char* name_;
  std::atomic<uint64_t> frames_read_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool stop_ = false, finished_ = false;
  std::thread thread_;
};

struct Options {
  std::string ref, dist, output, pix_fmt = "420";
  unsigned long width = 0, height = 0, bitdepth = 8;
  std::string model = "vmaf_v0.6.1", model_label;
  bool disable_clip = false, enable_transform = false, no_prediction = false;
  std::vector<std::string> features;
  unsigned long subsample = 1, threads = 0, frame_cnt = 0, skip_ref = 0, skip_dist = 0;
  ResultsFormat format = ResultsFormat::xml;
  Backend backend = Backend::auto_select;
  Vendor vendor = Vendor::auto_select;
  long device = -1;
  bool per_frame = false, quiet = false;
};

// Parses libvmaf's --model syntax.
bool parse_model(const std::string& arg, Options* o, std::string* err) {
  size_t pos = 0;
  while (pos <= arg.size()) {
    size_t end = arg.find(':', pos);
    if (end == std::string::npos) end = arg.size();
    const std::string kv = arg.substr(pos, end - pos);
    pos = end + 1;
    if (kv.empty()) continue;
    const size_t eq = kv.find('=');
    const std::string key = kv.substr(0, eq);
    const std::string val = eq == std::string::npos ? "" : kv.substr(eq + 1);
    if (key == "version" || key == "path") {
      o->model = val;
    } else if (key == "name") {
      o->model_label = val;
    } else if (key == "disable_clip") {
      o->disable_clip = val.empty() || val == "true";
    } else if (key == "enable_transform") {
      o->enable_transform = val.empty() || val == "true";
    } else if (eq == std::string::npos) {
      o->model = key;  // bare version name or path
    } else {
      *err = "unsupported model parameter '" + key + "'";
      return false;
    }
  }
  return true;
}

// Notices of the scorer (e.g. "no GPU: scoring on the CPU"), held while the scorer starts on its own thread and
// printed once main() has it, so that stderr reads as when the scorer was created in main().
class Notices {
 public:
  explicit Notices(bool quiet) : quiet_(quiet) {}
  void post(const std::string& m) {
    if (quiet_) return;
    std::lock_guard<std::mutex> lk(mu_);
    if (hold_) {
      held_.push_back(m);
      return;
    }
    std::fprintf(stderr, "vmafx-score: %s\n", m.c_str());
  }
  void release() {
    std::lock_guard<std::mutex> lk(mu_);
    hold_ = false;
    for (const auto& m : held_) std::fprintf(stderr, "vmafx-score: %s\n", m.c_str());
    held_.clear();
  }

 private:
  const bool quiet_;
  std::mutex mu_;
  bool hold_ = true;
  std::vector<std::string> held_;
};

// VMAFX_TRACE only: the CUDA driver's cuInit and the device's primary context, called here before the scorer so
// that the trace shows them apart from the rest of the scorer's start-up (module loads, pinned and device
// allocations). The engine's own calls then find both done: the same work, split for the record. Never fails: the
// engine reports any problem itself.
void trace_cuda_startup(int device) {
  using Init = int (*)(unsigned);
  using DeviceGet = int (*)(int*, int);
  using Retain = int (*)(void**, int);
  auto t = tools::trace::ms_since_start();
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    tools::trace::event("scorer thread: driver split: libcuda.so.1 not loadable, skipped");
    return;
  }
  tools::trace::event("scorer thread: driver split: dlopen libcuda.so.1 took %.1f ms",
                      tools::trace::ms_since_start() - t);
  auto init = reinterpret_cast<Init>(dlsym(lib, "cuInit"));
  auto get = reinterpret_cast<DeviceGet>(dlsym(lib, "cuDeviceGet"));
  auto retain = reinterpret_cast<Retain>(dlsym(lib, "cuDevicePrimaryCtxRetain"));
  if (!init || !get || !retain) return;
  t = tools::trace::ms_since_start();
  int rc = init(0);
  tools::trace::event("scorer thread: driver split: cuInit rc=%d took %.1f ms", rc, tools::trace::ms_since_start() - t);
  if (rc != 0) return;
  int dev = 0;
  if (get(&dev, device < 0 ? 0 : device) != 0) return;
  void* ctx = nullptr;
  t = tools::trace::ms_since_start();
  rc = retain(&ctx, dev);  // left retained: the process ends with the context, as the engine's
  tools::trace::event("scorer thread: driver split: cuDevicePrimaryCtxRetain(device %d) rc=%d took %.1f ms",
                      device < 0 ? 0 : device, rc, tools::trace::ms_since_start() - t);
}

// Creates the scorer on its own thread from the moment the inputs' geometry is known, so that the GPU runtime's
// start-up (driver, context, modules, pinned memory) overlaps skipping, mapping and prefetching the inputs. The
// destructor joins the thread, so every way out of main() waits for it.
class ScorerStartup {
 public:
  ScorerStartup(ScorerConfig cfg, StreamGeometry g) {
    thread_ = std::thread([this, cfg = std::move(cfg), g] {
      tools::trace::event("scorer thread: Scorer::create begin");
      if (tools::trace::enabled() && cfg.backend != Backend::cpu &&
          (cfg.vendor == Vendor::nvidia || cfg.vendor == Vendor::auto_select))
        trace_cuda_startup(cfg.device_id);
      status_ = Scorer::create(cfg, g, &scorer_);
      if (status_)
        tools::trace::event("scorer thread: Scorer::create end: %s", scorer_->backend_description().c_str());
      else
        tools::trace::event("scorer thread: Scorer::create failed: %s", status_.message().c_str());
    });
  }
  ~ScorerStartup() {
    if (thread_.joinable()) thread_.join();
  }
  ScorerStartup(const ScorerStartup&) = delete;
  ScorerStartup& operator=(const ScorerStartup&) = delete;

  Status wait(std::unique_ptr<Scorer>* out) {
    if (thread_.joinable()) thread_.join();
    *out = std::move(scorer_);
    return status_;
  }

 private:
  Status status_;
  std::unique_ptr<Scorer> scorer_;
  std::thread thread_;  // last: started once the members it writes exist
};

// One input: frames out of the mapping (with a prefetch ahead of the scorer) or read() into pooled buffers on a
// read-ahead thread.
struct Input {
  const char* name = "";  // "ref" / "dist", for the trace
  tools::VideoReader* reader = nullptr;
  std::unique_ptr<BufferPool> pool;
  std::unique_ptr<ReadAhead> read_ahead;
  std::unique_ptr<tools::MappedPrefetch> prefetch;
  bool mapped() const { return reader->mode() == tools::ReadMode::mmap; }

  // The next frame: *data points at frame_size() bytes (inside the mapping, or in *buf for read()).
  Status next(const uint8_t** data, std::unique_ptr<uint8_t[]>* buf, bool* got) {
    if (mapped()) return reader->next_mapped(data, got);
    Status s = read_ahead->next(buf, got);
    *data = buf->get();
    return s;
  }
  std::string progress() const {
    if (mapped())
      return std::string(name) + " prefetched " + std::to_string(prefetch->frames_done()) + " frames (" +
             std::to_string(prefetch->bytes_done() >> 20) + " MB" +
             (prefetch->populate_used() ? "" : ", without MADV_POPULATE_READ") + "), " +
             std::to_string(prefetch->bytes_dropped() >> 20) + " MB of page-table entries dropped";
    return std::string(name) + " read ahead " + std::to_string(read_ahead->frames_read()) + " frames";
  }
};

// Prefetch helpers per mapped input (VMAFX_PREFETCH=N overrides, 0: none) and how far ahead they touch.
constexpr unsigned kPrefetchThreads = 2;
constexpr uint64_t kPrefetchWindow = uint64_t(1) << 30;

unsigned prefetch_threads() {
  const char* v = std::getenv("VMAFX_PREFETCH");
  unsigned long n = kPrefetchThreads;
  if (v && *v && parse_uint(v, &n)) return unsigned(std::min<unsigned long>(n, 16));
  return kPrefetchThreads;
}

}  // namespace

int main(int argc, char** argv) {
  tools::trace::event("main");
  Options o;
  enum {
    kXml = 1000, kJson, kCsv, kSub, kFeature, kSubsample, kThreads, kFrameCnt, kSkipRef, kSkipDist, kBackend,
    kVendor, kDevice, kPerFrame
  };
  static const option long_opts[] = {
      {"reference", required_argument, nullptr, 'r'}, {"distorted", required_argument, nullptr, 'd'},
      {"width", required_argument, nullptr, 'w'},     {"height", required_argument, nullptr, 'h'},
      {"pixel_format", required_argument, nullptr, 'p'}, {"bitdepth", required_argument, nullptr, 'b'},
      {"model", required_argument, nullptr, 'm'},     {"output", required_argument, nullptr, 'o'},
      {"xml", no_argument, nullptr, kXml},            {"json", no_argument, nullptr, kJson},
      {"csv", no_argument, nullptr, kCsv},            {"sub", no_argument, nullptr, kSub},
      {"feature", required_argument, nullptr, kFeature}, {"subsample", required_argument, nullptr, kSubsample},
      {"threads", required_argument, nullptr, kThreads}, {"frame_cnt", required_argument, nullptr, kFrameCnt},
      {"frame_skip_ref", required_argument, nullptr, kSkipRef},
      {"frame_skip_dist", required_argument, nullptr, kSkipDist},
      {"backend", required_argument, nullptr, kBackend}, {"vendor", required_argument, nullptr, kVendor},
      {"device", required_argument, nullptr, kDevice}, {"per-frame", no_argument, nullptr, kPerFrame},
      {"no_prediction", no_argument, nullptr, 'n'},   {"quiet", no_argument, nullptr, 'q'},
      {"version", no_argument, nullptr, 'v'},         {"help", no_argument, nullptr, 'H'},
      {nullptr, 0, nullptr, 0}};
  int c;
  std::string err;
  auto need_uint = [&](const char* name, unsigned long* dst) {
    if (!parse_uint(optarg, dst)) {
      err = std::string("--") + name + " needs a non-negative integer, got '" + optarg + "'";
      return false;
    }
    return true;
  };
  while ((c = getopt_long(argc, argv, "r:d:w:h:p:b:m:o:nqv", long_opts, nullptr)) != -1) {
    bool ok = true;
    switch (c) {
      case 'r': o.ref = optarg; break;
      case 'd': o.dist = optarg; break;
      case 'w': ok = need_uint("width", &o.width); break;
      case 'h': ok = need_uint("height", &o.height); break;
      case 'p': o.pix_fmt = optarg; break;
      case 'b': ok = need_uint("bitdepth", &o.bitdepth); break;
      case 'm': ok = parse_model(optarg, &o, &err); break;
      case 'o': o.output = optarg; break;
      case kXml: o.format = ResultsFormat::xml; break;
      case kJson: o.format = ResultsFormat::json; break;
      case kCsv: o.format = ResultsFormat::csv; break;
      case kSub: o.format = ResultsFormat::sub; break;
      case kFeature: o.features.push_back(optarg); break;
      case kSubsample: ok = need_uint("subsample", &o.subsample); break;
      case kThreads: ok = need_uint("threads", &o.threads); break;
      case kFrameCnt: ok = need_uint("frame_cnt", &o.frame_cnt); break;
      case kSkipRef: ok = need_uint("frame_skip_ref", &o.skip_ref); break;
      case kSkipDist: ok = need_uint("frame_skip_dist", &o.skip_dist); break;
      case kBackend:
        if (!std::strcmp(optarg, "auto")) o.backend = Backend::auto_select;
        else if (!std::strcmp(optarg, "cpu")) o.backend = Backend::cpu;
        else if (!std::strcmp(optarg, "hip")) o.backend = Backend::hip;
        else { ok = false; err = std::string("--backend must be auto, cpu or hip, not '") + optarg + "'"; }
        break;
      case kVendor:
        if (!std::strcmp(optarg, "auto")) o.vendor = Vendor::auto_select;
        else if (!std::strcmp(optarg, "amd")) o.vendor = Vendor::amd;
        else if (!std::strcmp(optarg, "nvidia")) o.vendor = Vendor::nvidia;
        else { ok = false; err = std::string("--vendor must be auto, amd or nvidia, not '") + optarg + "'"; }
        break;
      case kDevice: {
        unsigned long d;
        ok = need_uint("device", &d);
        o.device = long(d);
        break;
      }
      case kPerFrame: o.per_frame = true; break;
      case 'n': o.no_prediction = true; break;
      case 'q': o.quiet = true; break;
      case 'v': std::printf("vmafx-score %s\n", kVersion); return 0;
      case 'H': usage(stdout); return 0;
      default: usage(stderr); return 1;
    }
    if (!ok) return fail(err);
  }
  if (optind < argc) return fail(std::string("unexpected argument '") + argv[optind] + "'");
  if (o.ref.empty() || o.dist.empty()) {
    usage(stderr);
    return fail("--reference and --distorted are required");
  }

  tools::trace::event("options parsed");
  tools::ReadMode read_mode;
  if (Status s = tools::read_mode_from_env(&read_mode); !s) return fail(s.message());

  FormatInfo fmt;
  if (Status s = parse_pixel_format(o.pix_fmt, unsigned(o.bitdepth), &fmt); !s)
    return fail(s.message());
  tools::VideoReader ref, dist;
  if (Status s = ref.open(o.ref, uint32_t(o.width), uint32_t(o.height), &fmt, read_mode); !s)
    return fail(s.message());
  if (Status s = dist.open(o.dist, uint32_t(o.width), uint32_t(o.height), &fmt, read_mode); !s)
    return fail(s.message());
  if (ref.width() != dist.width() || ref.height() != dist.height())
    return fail("reference is " + std::to_string(ref.width()) + "x" + std::to_string(ref.height()) +
                " but distorted is " + std::to_string(dist.width()) + "x" + std::to_string(dist.height()));
  if (ref.format().bit_depth != dist.format().bit_depth)
    return fail("reference is " + std::to_string(ref.format().bit_depth) + "-bit but distorted is " +
                std::to_string(dist.format().bit_depth) + "-bit");
  if (ref.format().chroma != dist.format().chroma)
    return fail(std::string("reference chroma is ") + chroma_name(ref.format().chroma) + " but distorted is " +
                chroma_name(dist.format().chroma));
  for (const tools::VideoReader* r : {&ref, &dist})
    tools::trace::event("input %s opened: %s%s%s, %" PRIu64 " bytes, %zu bytes a frame (luma %zu)",
                        r->path().c_str(), tools::read_mode_name(r->mode()),
                        r->mode() == tools::ReadMode::read ? ": " : "",
                        r->mode() == tools::ReadMode::read ? r->mode_note().c_str() : "", r->file_size(),
                        r->frame_size(), r->luma_size());

  Notices notices(o.quiet);
  ScorerConfig cfg;
  cfg.models.clear();
  if (!o.no_prediction) {
    ModelRequest mr;
    mr.model = o.model;
    mr.name = o.model_label;
    mr.disable_clip = o.disable_clip;
    mr.enable_transform = o.enable_transform;
    cfg.models.push_back(mr);
  }
  for (const auto& f : o.features) cfg.features.push_back({f, {}});
  cfg.threads = unsigned(o.threads);
  cfg.subsample = unsigned(o.subsample ? o.subsample : 1);
  cfg.backend = o.backend;
  cfg.vendor = o.vendor;
  cfg.device_id = int(o.device);
  cfg.on_notice = [&notices](NoticeLevel, const std::string& m, const std::string& detail) {
    notices.post(detail.empty() ? m : m + " (" + detail + ")");
  };
  // Per-frame scores come from the scorer's thread, one at a time, after the scorer exists (it is declared after the
  // inputs, below, so that it goes first).
  const Scorer* scorer_for_names = nullptr;
  bool first_scored = false;
  cfg.on_frame = [&](const FrameScore& fs) {
    if (!first_scored) {
      first_scored = true;
      tools::trace::event("first frame scored");
    }
    if (!o.per_frame || o.quiet) return;
    const auto& names = scorer_for_names->score_names();
    std::printf("frame %" PRIu64 ":", fs.index);
    for (size_t i = 0; i < names.size(); i++)
      if (!std::isnan(fs.values[i])) std::printf(" %s=%.6f", names[i].c_str(), fs.values[i]);
    std::printf("\n");
  };
  StreamGeometry g;
  g.ref.width = ref.width();
  g.ref.height = ref.height();
  g.ref.bit_depth = ref.format().bit_depth;
  g.ref.chroma = ref.format().chroma;
  g.dist = g.ref;

  // Frame buffers of the read() path return to these pools from the scorer's release callbacks: declared before
  // the scorer, they outlive it on every path out of main. The mappings live until the readers go, after the
  // scorer; a mapped frame's release only lets the prefetch helpers drop its page-table entries.
  Input in_ref, in_dist;
  in_ref.name = "ref";
  in_ref.reader = &ref;
  in_dist.name = "dist";
  in_dist.reader = &dist;
  std::unique_ptr<Scorer> scorer;
  // The scorer starts on its own thread now; errors keep their order (skipping first, then the scorer's).
  ScorerStartup startup(cfg, g);
  tools::trace::event("scorer thread started");
  if (Status s = ref.skip(o.skip_ref); !s) return fail(s.message());
  if (Status s = dist.skip(o.skip_dist); !s) return fail(s.message());

  // Chroma is read by psnr only. A mapped input's prefetch touches the luma alone unless a psnr feature is asked for
  // (corrected below once the scorer names its scores); the read() path reads every plane until then.
  bool psnr_asked = false;
  for (const auto& f : o.features) psnr_asked = psnr_asked || f.rfind("psnr", 0) == 0;
  // The read() path reads up to 128 MB of frames ahead per input (8 to 64 frames) while the scorer starts up.
  const size_t ahead = std::min<size_t>(64, std::max<size_t>(8, (size_t(128) << 20) / ref.frame_size()));
  const unsigned helpers = prefetch_threads();
  for (Input* in : {&in_ref, &in_dist}) {
    if (in->mapped()) {
      in->reader->set_luma_only(!psnr_asked);
      in->prefetch = std::make_unique<tools::MappedPrefetch>(*in->reader, o.frame_cnt, kPrefetchWindow, helpers);
      tools::trace::event("%s prefetch started: %u threads, %" PRIu64 " MB window, %s", in->name, helpers,
                          kPrefetchWindow >> 20, in->reader->luma_only() ? "luma only" : "whole frames");
    } else {
      in->pool = std::make_unique<BufferPool>(in->reader->frame_size());
      in->read_ahead = std::make_unique<ReadAhead>(*in->reader, *in->pool, o.frame_cnt, ahead, in->name);
      tools::trace::event("%s reader thread started: read(), up to %zu frames ahead", in->name, ahead);
    }
  }
  tools::trace::event("waiting for the scorer");
  const Status created = startup.wait(&scorer);
  notices.release();  // before any error, as when the scorer was created here
  if (!created) return fail(created.message());
  scorer_for_names = scorer.get();
  tools::trace::event("scorer ready; by now %s, %s", in_ref.progress().c_str(), in_dist.progress().c_str());
  const auto& names = scorer->score_names();

  // Chroma is read by psnr only: without it the readers skip the chroma planes in the files from now on (the frames
  // read while the scorer started up hold every plane).
  bool reads_chroma = false;
  for (const auto& name : names) reads_chroma = reads_chroma || name.rfind("psnr_", 0) == 0;
  ref.set_luma_only(!reads_chroma);
  dist.set_luma_only(!reads_chroma);

  uint64_t n = 0;
  for (;;) {
    if (o.frame_cnt && n >= o.frame_cnt) break;
    const uint8_t *rp = nullptr, *dp = nullptr;
    std::unique_ptr<uint8_t[]> rb, db;
    bool got_r = false, got_d = false;
    if (Status s = in_ref.next(&rp, &rb, &got_r); !s) return fail(s.message());
    if (Status s = in_dist.next(&dp, &db, &got_d); !s) return fail(s.message());
    if (!got_r || !got_d) {
      if (got_r != got_d && !o.quiet)
        std::fprintf(stderr, "vmafx-score: %s ended before %s; scored %" PRIu64 " frames\n",
                     (got_r ? o.dist : o.ref).c_str(), (got_r ? o.ref : o.dist).c_str(), n);
      break;
    }
    PictureView rv, dv;
    if (Status s = make_picture_view(ref.format(), ref.width(), ref.height(), rp, ref.frame_size(), ref.layout(),
                                     ref.planes(), &rv); !s)
      return fail(s.message());
    if (Status s = make_picture_view(dist.format(), dist.width(), dist.height(), dp, dist.frame_size(),
                                     dist.layout(), dist.planes(), &dv); !s)
      return fail(s.message());
    // Read buffers go back to their pools once the scorer is done with them; a mapped frame tells its prefetch
    // helpers that its page-table entries may go.
    std::function<void()> release;
    if (rb || db || in_ref.prefetch || in_dist.prefetch) {
      uint8_t* r = rb.release();
      uint8_t* d = db.release();
      release = [&in_ref, &in_dist, r, d, rp, dp, n] {
        if (r) in_ref.pool->put(std::unique_ptr<uint8_t[]>(r));
        else if (in_ref.prefetch) in_ref.prefetch->released(n, rp, rp + in_ref.reader->frame_size());
        if (d) in_dist.pool->put(std::unique_ptr<uint8_t[]>(d));
        else if (in_dist.prefetch) in_dist.prefetch->released(n, dp, dp + in_dist.reader->frame_size());
      };
    }
    FramePair pair;
    pair.ref = rv;
    pair.dist = dv;
    pair.timestamp = int64_t(n);
    pair.user = n;
    pair.release = std::move(release);
    Status s = scorer->submit(std::move(pair));
    if (!s) return fail(s.message());
    if (n == 0) tools::trace::event("first frame submitted");
    n++;
    for (Input* in : {&in_ref, &in_dist})
      if (in->prefetch) in->prefetch->consumed(n);
  }
  if (n == 0) return fail("no frames to score");
  tools::trace::event("last frame submitted (%" PRIu64 " frames)", n);
  if (Status s = scorer->flush(); !s) return fail(s.message());
  tools::trace::event("flush done");

  const Collector& col = scorer->collector();
  if (!o.quiet) {
    const std::string ms = scorer->model_score_names().empty() ? "" : scorer->model_score_names()[0];
    if (!ms.empty()) {
      const PoolStats p = col.pool(size_t(col.find(ms)));
      const long lo = col.find(ms + "_ci_p95_lo");
      if (lo >= 0) {
        std::printf("%s: %f, ci.p95: [%f, %f], stddev: %f\n", o.model.c_str(),
                    col.pool(size_t(col.find(ms + "_bagging"))).mean, col.pool(size_t(lo)).mean,
                    col.pool(size_t(col.find(ms + "_ci_p95_hi"))).mean,
                    col.pool(size_t(col.find(ms + "_stddev"))).mean);
      } else {
        std::printf("%s: %f\n", o.model.c_str(), p.mean);
      }
    } else {
      for (size_t i = 0; i < col.columns(); i++) std::printf("%s: %f\n", col.name(i).c_str(), col.pool(i).mean);
    }
  }
  tools::trace::event("results printed");
  if (!o.output.empty()) {
    ResultsInfo info;
    info.width = g.ref.width;
    info.height = g.ref.height;
    info.fps = scorer->fps();
    if (Status s = write_results(col, o.format, info, o.output); !s) return fail(s.message());
    tools::trace::event("results written to %s", o.output.c_str());
  }
  tools::trace::event("inputs: %s; %s", in_ref.progress().c_str(), in_dist.progress().c_str());
  tools::trace::rusage_summary("resources");
  if (scorer->backend() == Backend::hip) {
    // Every result is out and every frame flushed: leave without tearing down the GPU context and its memory
    // (tens of milliseconds of a run of a few hundred frames); the system reclaims them.
    tools::trace::event("exit: _Exit(0) without GPU teardown (the kernel still releases the context after this)");
    std::fflush(nullptr);
    std::_Exit(0);
  }
  tools::trace::event("exit: return from main (scorer, prefetch and mappings torn down after this)");
  return 0;
}
