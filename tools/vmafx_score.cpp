// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx-score: scores a reference/distorted pair of raw or .y4m videos with the vmafx engine, with libvmaf's `vmaf`
// tool's options (docs/cli.md lists each with its status) and its results files. Several distorted inputs (a ladder:
// -d repeated, --distorted-list) are each scored by a scorer of their own against one read of the reference, one
// results file per distorted input.
//
// Streams as libvmaf's: stderr carries everything a person reads (errors, notices, the progress meter on a
// terminal, the pooled scores); stdout only what --per-frame asks for. Exit status 0, or 1 with one line naming the
// cause.
#include <dlfcn.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cli_options.h"
#include "trace.h"
#include "vmafx/model.h"
#include "vmafx/output.h"
#include "vmafx/scorer.h"
#include "yuv_reader.h"

using namespace vmafx;

namespace {

constexpr const char* kVersion = "0.1.0";

// A model file is read whole before it is parsed: only a regular file of at most this size (the largest model
// libvmaf ships, vmaf_b_v0.6.3.json, has 0.4 MB), so that "-m path=/dev/zero" fails at once instead of filling
// the memory.
constexpr uint64_t kMaxModelFileBytes = uint64_t(16) << 20;

// A --distorted-list file is read whole: at most this size (a path a line: hundreds of thousands of inputs).
constexpr uint64_t kMaxListFileBytes = uint64_t(16) << 20;

constexpr uint64_t kMaxThreads = 4096;  // sanity bound of --threads; the engine caps it further (with a notice)

void usage(FILE* out) {
  std::fprintf(out,
               "usage: vmafx-score -r REF -d DIST [-d DIST ...] [options]\n\n"
               " --reference/-r PATH        reference: raw video or .y4m (told apart by the header, not the name)\n"
               " --distorted/-d PATH        distorted: raw video or .y4m; repeatable (a ladder: each one is scored\n"
               "                            against the same frames of one read of the reference); a .y4m of\n"
               "                            another size than the reference is scaled to it (bicubic)\n"
               " --width/-w N --height/-h N picture size of raw input (1..%u; checked against a .y4m header)\n"
               " --pixel_format/-p FMT      420 (default), 422, 444, 400, or a layout: i420 yv12 nv12 nv21 p010 p016\n"
               " --bitdepth/-b N            8, 10, 12 or 16 (default: 8; 10 for p010, 16 for p016)\n"
               " --model/-m PARAMS          colon-separated, repeatable: version=NAME | path=FILE, name=COLUMN,\n"
               "                            disable_clip, enable_transform, EXTRACTOR.OPTION=VALUE\n"
               "                            (default version=vmaf_v0.6.1)\n"
               " --feature NAME[=OPT=VAL:OPT=VAL...]  extra feature extractor (repeatable)\n"
               " --aom_ctc VERSION          AOM CTC preset (v1.0 .. v7.0), as libvmaf defines it\n"
               " --nflx_ctc VERSION         Netflix CTC preset (v1.0), as libvmaf defines it\n"
               " --subsample N              score every N-th frame (default 1)\n"
               " --threads N                CPU worker threads of each distorted input's scorer, not shared\n"
               "                            (default 0: the calling thread scores each in turn)\n"
               " --cpumask MASK             CPU instruction sets to leave out (libvmaf's bits: 1 SSE2, 2 SSSE3,\n"
               "                            4 SSE4.1, 8 AVX2, 16 AVX-512, 32 AVX-512 ICL)\n"
               " --gpumask MASK             non-zero: no GPU (libvmaf's meaning); 0: default\n"
               " --frame_cnt N              score at most N frames (default 0: all)\n"
               " --frame_skip_ref N         skip the first N reference frames\n"
               " --frame_skip_dist N        skip the first N distorted frames\n"
               " --output/-o PATH           results file; with several distorted inputs one file each, PATH holding\n"
               "                            %%s (the distorted file's name, no folder or extension) or %%d (its\n"
               "                            index from 0)\n"
               " --xml | --json | --csv | --sub   results format (default xml, as libvmaf)\n"
               " --no_prediction/-n         features only: the models' features, no score\n"
               " --quiet/-q                 no progress meter; no pooled scores when -o is given\n"
               " --version/-v               print the version and exit\n"
               "vmafx-score's own:\n"
               " --backend auto|cpu|hip     where features run (default auto)\n"
               " --vendor auto|amd|nvidia   GPU runtime (default auto)\n"
               " --device/--gpu auto|N      GPU index (default auto: each scorer on the visible GPU with the fewest\n"
               "                            scorers, then the most free memory)\n"
               " --distorted-list FILE      more distorted inputs: one path per line ('#' comments and blank lines\n"
               "                            are left out)\n"
               " --per-frame                print every frame's scores to stdout (several distorted inputs: each\n"
               "                            line starts with the distorted path)\n"
               " --help                     print this and exit\n",
               unsigned(tools::kMaxDimension));
}

// Set while the progress meter's line is open on stderr (no newline after it yet).
bool g_meter_line_open = false;

void close_meter_line() {
  if (g_meter_line_open) std::fputc('\n', stderr);
  g_meter_line_open = false;
}

int fail(const std::string& msg) {
  close_meter_line();
  std::fprintf(stderr, "vmafx-score: %s\n", msg.c_str());
  return 1;
}

void warn(const std::string& msg) {
  close_meter_line();
  std::fprintf(stderr, "vmafx-score: %s\n", msg.c_str());
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
    if (free_.size() < keep_) free_.push_back(std::move(b));  // else freed: fewer frames are read ahead now
  }
  // Buffers kept for reuse at most (the rest are freed as they come back).
  void set_keep(size_t n) {
    std::lock_guard<std::mutex> lk(mu_);
    keep_ = n;
    if (free_.size() > keep_) free_.resize(keep_);
  }

 private:
  size_t size_;
  std::mutex mu_;
  std::vector<std::unique_ptr<uint8_t[]>> free_;
  size_t keep_ = SIZE_MAX;
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
  // A new bound for the frames read ahead (from the next one read).
  void set_ahead(size_t ahead) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      ahead_ = std::max<size_t>(1, ahead);
    }
    cv_.notify_all();
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
  size_t ahead_;  // under mu_
  const char* name_;
  std::atomic<uint64_t> frames_read_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool stop_ = false, finished_ = false;
  std::thread thread_;
};


// Notices of the scorers (e.g. "no GPU: scoring on the CPU"), held while the scorers start on their own thread and
// printed once main() has them, so that stderr reads as when they were created in main(). A ladder's scorers say the
// same things: each text is printed once.
class Notices {
 public:
  explicit Notices(bool quiet) : quiet_(quiet) {}
  void post(const std::string& m) {
    if (quiet_) return;
    std::lock_guard<std::mutex> lk(mu_);
    if (std::find(seen_.begin(), seen_.end(), m) != seen_.end()) return;
    seen_.push_back(m);
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
  std::vector<std::string> held_, seen_;
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

// Creates the scorers (one per distorted input), one after the other on a thread of their own, from the moment the
// inputs' geometry is known, so that the GPU runtime's start-up (driver, context, modules, pinned memory) overlaps
// skipping, mapping and prefetching the inputs. The destructor joins the thread, so every way out of main() waits
// for it.
class ScorerStartup {
 public:
  // labels[i]: "" for a single distorted input, else its path (the trace names it). `share`: a ladder, whose
  // scorers read one SharedReference (made first, on the same thread).
  ScorerStartup(std::vector<ScorerConfig> cfgs, std::vector<StreamGeometry> gs, std::vector<std::string> labels,
                bool share) {
    scorers_.resize(cfgs.size());
    thread_ = std::thread([this, cfgs = std::move(cfgs), gs = std::move(gs), labels = std::move(labels), share] {
      for (size_t i = 0; i < cfgs.size(); i++) {
        ScorerConfig cfg = cfgs[i];
        const std::string for_label = labels[i].empty() ? "" : " for " + labels[i];
        if (i == 0 && tools::trace::enabled() && cfg.backend != Backend::cpu &&
            (cfg.vendor == Vendor::nvidia || cfg.vendor == Vendor::auto_select))
          trace_cuda_startup(cfg.device_id);
        if (i == 0 && share) {
          tools::trace::event("scorer thread: SharedReference::create begin");
          status_ = SharedReference::create(cfg, gs[0].ref, &shared_);
          if (!status_) {
            tools::trace::event("scorer thread: SharedReference::create failed: %s", status_.message().c_str());
            break;
          }
          tools::trace::event("scorer thread: SharedReference::create end: %s", shared_->backend_description().c_str());
        }
        cfg.shared_reference = shared_;
        tools::trace::event("scorer thread: Scorer::create begin%s", for_label.c_str());
        status_ = Scorer::create(cfg, gs[i], &scorers_[i]);
        if (!status_) {
          failed_ = i;
          tools::trace::event("scorer thread: Scorer::create failed%s: %s", for_label.c_str(),
                              status_.message().c_str());
          break;
        }
        tools::trace::event("scorer thread: Scorer::create end%s: %s", for_label.c_str(),
                            scorers_[i]->backend_description().c_str());
      }
    });
  }
  ~ScorerStartup() {
    if (thread_.joinable()) thread_.join();
  }
  ScorerStartup(const ScorerStartup&) = delete;
  ScorerStartup& operator=(const ScorerStartup&) = delete;

  // Every scorer (and a ladder's shared reference), or the first failure and *failed, the index of the distorted
  // input it was for.
  Status wait(std::vector<std::unique_ptr<Scorer>>* out, std::shared_ptr<SharedReference>* shared, size_t* failed) {
    if (thread_.joinable()) thread_.join();
    *failed = failed_;
    *out = std::move(scorers_);
    *shared = std::move(shared_);
    return status_;
  }

 private:
  Status status_;
  size_t failed_ = 0;
  std::shared_ptr<SharedReference> shared_;
  std::vector<std::unique_ptr<Scorer>> scorers_;
  std::thread thread_;  // last: started once the members it writes exist
};

// One input: frames out of the mapping (with a prefetch ahead of the scorer) or read() into pooled buffers on a
// read-ahead thread.
struct Input {
  std::string name;  // "ref", "dist" (a ladder's: "dist#0", "dist#1", ...), for the trace
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
      return name + " prefetched " + std::to_string(prefetch->frames_done()) + " frames (" +
             std::to_string(prefetch->bytes_done() >> 20) + " MB" +
             (prefetch->populate_used() ? "" : ", without MADV_POPULATE_READ") + "), " +
             std::to_string(prefetch->bytes_dropped() >> 20) + " MB of page-table entries dropped";
    return name + " read ahead " + std::to_string(read_ahead->frames_read()) + " frames";
  }
};

// How far ahead of the scorer the prefetch helpers of a mapped input touch (their number: VMAFX_PREFETCH,
// CliEnvironment::prefetch) and the read() path reads. A GPU takes frames faster than one thread touches or reads
// them, and its runtime's start-up is worth overlapping: up to kPrefetchWindow bytes of frames ahead. The CPU backend
// takes them far slower than they are read: kCpuFramesAhead frames keep it fed, and the resident set stays that of
// the scoring (libvmaf's reads hold a picture or two) rather than growing with the window.
constexpr uint64_t kPrefetchWindow = uint64_t(1) << 30;
constexpr unsigned kCpuFramesAhead = 4;

// ---- checks made before any frame is read ----

std::string errno_text() { return std::strerror(errno); }

// A model given by path: a regular file no larger than kMaxModelFileBytes.
Status check_model_file(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return {Errc::model_error, "cannot open model file " + path + ": " + errno_text()};
  if (!S_ISREG(st.st_mode)) return {Errc::model_error, "model file " + path + " is not a regular file"};
  if (uint64_t(st.st_size) > kMaxModelFileBytes)
    return {Errc::model_error, "model file " + path + " has " + std::to_string(st.st_size) + " bytes, more than the " +
                                   std::to_string(kMaxModelFileBytes >> 20) + " MiB a model file may have"};
  return Status::ok();
}

// Every model exists: a built-in version, or a path checked by check_model_file().
Status check_models(const tools::Selection& sel) {
  for (const auto& m : sel.models) {
    if (!m.version.empty()) {
      if (!Model::is_builtin(m.version)) {
        std::string all;
        for (const auto& n : Model::builtin_names()) all += (all.empty() ? "" : ", ") + n;
        return {Errc::model_error, "--model: '" + m.version + "' is not a built-in model version (built in: " + all +
                                       "; a file is path=FILE)"};
      }
    } else {
      VMAFX_TRY(check_model_file(m.path));
    }
  }
  return Status::ok();
}

bool same_file(const struct stat& a, const std::string& path) {
  struct stat b;
  return stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// The results file can be written: opened for writing now (created and removed again if it did not exist), so that
// a bad path fails before the scoring, not after it. Never one of the inputs.
Status check_output_path(const std::string& path, const std::string& ref, const std::vector<std::string>& dists) {
  struct stat st;
  const bool exists = stat(path.c_str(), &st) == 0;
  if (exists) {
    if (S_ISDIR(st.st_mode)) return {Errc::io_error, "results file " + path + " is a directory"};
    bool input = same_file(st, ref);
    for (const auto& d : dists) input = input || same_file(st, d);
    if (input)
      return {Errc::invalid_argument, "results file " + path + " is one of the inputs"};
    if (S_ISFIFO(st.st_mode)) return Status::ok();  // opening it would wait for a reader
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return {Errc::io_error, "cannot write results file " + path + ": " + errno_text()};
  ::close(fd);
  if (!exists) ::unlink(path.c_str());
  return Status::ok();
}

// ---- the progress meter ----

// On a terminal (stderr) unless -q: frames scored so far, frames per second and, when the inputs' sizes tell how
// many frames there are, the total and the time left. Redrawn in place at most every 100 ms.
class Meter {
 public:
  Meter(bool on, uint64_t total) : on_(on), total_(total) {}
  void frame(uint64_t done) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    if (done == 1) start_ = now;
    if (done != 1 && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    draw(done, now);
  }
  // After the last frame: the final count, and the line ended.
  void finish(uint64_t done) {
    if (!on_ || done == 0) return;
    if (done != drawn_) draw(done, std::chrono::steady_clock::now());
    close_meter_line();
  }

 private:
  void draw(uint64_t done, std::chrono::steady_clock::time_point now) {
    const double secs = std::chrono::duration<double>(now - start_).count();
    // Frames after the first over the time since the first.
    const double fps = done > 1 && secs > 0 ? double(done - 1) / secs : 0;
    char line[160];
    int n = 0;
    if (total_ >= done && total_ > 0)
      n = std::snprintf(line, sizeof line, "\r%" PRIu64 "/%" PRIu64 " frames", done, total_);
    else
      n = std::snprintf(line, sizeof line, "\r%" PRIu64 " frame%s", done, done == 1 ? "" : "s");
    if (fps > 0) n += std::snprintf(line + n, sizeof line - size_t(n), "  %.2f FPS", fps);
    if (fps > 0 && total_ >= done && total_ > 0) {
      const uint64_t left = uint64_t(double(total_ - done) / fps + 0.5);
      n += std::snprintf(line + n, sizeof line - size_t(n), "  ETA %" PRIu64 ":%02" PRIu64 ":%02" PRIu64, left / 3600,
                         left / 60 % 60, left % 60);
    }
    std::fprintf(stderr, "%s\033[K", line);
    std::fflush(stderr);
    g_meter_line_open = true;
    drawn_ = done;
  }

  const bool on_;
  const uint64_t total_;
  std::chrono::steady_clock::time_point start_, last_;
  uint64_t drawn_ = 0;  // the count on the line now
};

// ---- the command line ----

struct Options {
  std::string ref, output;
  std::vector<std::string> dists;  // -d and --distorted-list, in command-line order
  bool output_given = false;
  tools::InputParams given;  // -w -h -p -b
  tools::Selection sel;
  bool no_prediction = false;
  uint64_t subsample = 1, threads = 0, frame_cnt = 0, skip_ref = 0, skip_dist = 0;
  uint64_t cpumask = 0, gpumask = 0;
  bool cpumask_given = false;
  ResultsFormat format = ResultsFormat::xml;
  bool format_given = false;
  std::string format_option;  // "--json", ... as given
  Backend backend = Backend::auto_select;
  bool backend_given = false;
  Vendor vendor = Vendor::auto_select;
  int device = -1;
  bool per_frame = false, quiet = false;
};

enum class Parsed { run, exit_ok, error };

// --distorted-list FILE: its paths appended to *dists (tools::parse_distorted_list). A regular file or a pipe, read
// whole; one of more than kMaxListFileBytes is refused.
Status read_distorted_list(const std::string& path, std::vector<std::string>* dists) {
  if (path.empty()) return {Errc::invalid_argument, "--distorted-list needs a value, got an empty string"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return {Errc::io_error, "cannot open --distorted-list " + path + ": " + errno_text()};
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, size_t(in.gcount()));
    if (text.size() > kMaxListFileBytes)
      return {Errc::invalid_argument, "--distorted-list " + path + " has more than " +
                                          std::to_string(kMaxListFileBytes >> 20) + " MiB: not a list of paths"};
  }
  if (in.bad()) return {Errc::io_error, "cannot read --distorted-list " + path + ": " + errno_text()};
  return tools::parse_distorted_list(text, path, dists);
}

Parsed parse_command_line(int argc, char** argv, Options* o) {
  enum {
    kXml = 256, kJson, kCsv, kSub, kThreads, kFeature, kSubsample, kCpumask, kGpumask, kAomCtc, kNflxCtc, kFrameCnt,
    kSkipRef, kSkipDist, kBackend, kVendor, kDevice, kPerFrame, kHelp, kDistList, kGpu
  };
  static const option long_opts[] = {
      {"reference", required_argument, nullptr, 'r'},   {"distorted", required_argument, nullptr, 'd'},
      {"width", required_argument, nullptr, 'w'},       {"height", required_argument, nullptr, 'h'},
      {"pixel_format", required_argument, nullptr, 'p'}, {"bitdepth", required_argument, nullptr, 'b'},
      {"model", required_argument, nullptr, 'm'},       {"output", required_argument, nullptr, 'o'},
      {"xml", no_argument, nullptr, kXml},              {"json", no_argument, nullptr, kJson},
      {"csv", no_argument, nullptr, kCsv},              {"sub", no_argument, nullptr, kSub},
      {"threads", required_argument, nullptr, kThreads}, {"feature", required_argument, nullptr, kFeature},
      {"subsample", required_argument, nullptr, kSubsample}, {"cpumask", required_argument, nullptr, kCpumask},
      {"gpumask", required_argument, nullptr, kGpumask}, {"aom_ctc", required_argument, nullptr, kAomCtc},
      {"nflx_ctc", required_argument, nullptr, kNflxCtc}, {"frame_cnt", required_argument, nullptr, kFrameCnt},
      {"frame_skip_ref", required_argument, nullptr, kSkipRef},
      {"frame_skip_dist", required_argument, nullptr, kSkipDist},
      {"no_prediction", no_argument, nullptr, 'n'},     {"version", no_argument, nullptr, 'v'},
      {"quiet", no_argument, nullptr, 'q'},             {"backend", required_argument, nullptr, kBackend},
      {"vendor", required_argument, nullptr, kVendor},  {"device", required_argument, nullptr, kDevice},
      {"per-frame", no_argument, nullptr, kPerFrame},   {"help", no_argument, nullptr, kHelp},
      {"gpu", required_argument, nullptr, kGpu},        {"distorted-list", required_argument, nullptr, kDistList},
      {nullptr, 0, nullptr, 0}};
  // getopt's own messages ("unrecognized option") are replaced by ours.
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, ":r:d:w:h:p:b:m:o:nvq", long_opts, nullptr)) != -1) {
    const std::string name = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    Status s;
    uint64_t v = 0;
    auto number = [&](const char* what, uint64_t min, uint64_t max, uint64_t* dst) {
      s = tools::parse_uint(optarg, min, max, what, dst);
    };
    // One results format per run: libvmaf keeps the last of --xml --json --csv --sub without a word.
    auto format = [&](ResultsFormat f, const char* opt) {
      if (o->format_given && o->format != f)
        s = {Errc::invalid_argument, o->format_option + " and " + opt +
                                         " both given: one results format per run (libvmaf silently keeps the last)"};
      o->format = f;
      o->format_given = true;
      o->format_option = opt;
    };
    auto nonempty = [&](const char* what, std::string* dst) {
      if (!*optarg) s = {Errc::invalid_argument, std::string(what) + " needs a value, got an empty string"};
      else *dst = optarg;
    };
    switch (c) {
      case 'r': nonempty("--reference", &o->ref); break;
      case 'd': {
        std::string d;
        nonempty("--distorted", &d);
        if (s) o->dists.push_back(std::move(d));
        break;
      }
      case kDistList: s = read_distorted_list(optarg, &o->dists); break;
      case 'w': number("--width", 1, tools::kMaxDimension, &v); o->given.width = uint32_t(v); break;
      case 'h': number("--height", 1, tools::kMaxDimension, &v); o->given.height = uint32_t(v); break;
      case 'p': nonempty("--pixel_format", &o->given.pixel_format); break;
      case 'b':
        number("--bitdepth", 8, 16, &v);
        if (!s || (v != 8 && v != 10 && v != 12 && v != 16))
          s = {Errc::invalid_argument, std::string("--bitdepth must be 8, 10, 12 or 16, not '") + optarg + "'"};
        o->given.bit_depth = unsigned(v);
        break;
      case 'm': s = tools::add_model(optarg, &o->sel); break;
      case 'o':
        nonempty("--output", &o->output);
        o->output_given = true;
        break;
      case kXml: format(ResultsFormat::xml, "--xml"); break;
      case kJson: format(ResultsFormat::json, "--json"); break;
      case kCsv: format(ResultsFormat::csv, "--csv"); break;
      case kSub: format(ResultsFormat::sub, "--sub"); break;
      case kThreads: number("--threads", 0, kMaxThreads, &o->threads); break;
      case kFeature: s = tools::add_feature(optarg, &o->sel); break;
      case kSubsample: number("--subsample", 1, UINT32_MAX, &o->subsample); break;
      case kCpumask: number("--cpumask", 0, UINT64_MAX, &o->cpumask); o->cpumask_given = true; break;
      case kGpumask: number("--gpumask", 0, UINT64_MAX, &o->gpumask); break;
      case kAomCtc: s = tools::apply_ctc(tools::Ctc::aom, optarg, &o->sel); break;
      case kNflxCtc: s = tools::apply_ctc(tools::Ctc::nflx, optarg, &o->sel); break;
      case kFrameCnt: number("--frame_cnt", 0, UINT64_MAX, &o->frame_cnt); break;
      case kSkipRef: number("--frame_skip_ref", 0, UINT64_MAX, &o->skip_ref); break;
      case kSkipDist: number("--frame_skip_dist", 0, UINT64_MAX, &o->skip_dist); break;
      case 'n': o->no_prediction = true; break;
      case 'q': o->quiet = true; break;
      case 'v': std::fprintf(stderr, "vmafx-score %s\n", kVersion); return Parsed::exit_ok;  // stderr, as libvmaf
      case kHelp: usage(stdout); return Parsed::exit_ok;
      case kBackend:
        o->backend_given = true;
        if (!std::strcmp(optarg, "auto")) o->backend = Backend::auto_select;
        else if (!std::strcmp(optarg, "cpu")) o->backend = Backend::cpu;
        else if (!std::strcmp(optarg, "hip")) o->backend = Backend::hip;
        else s = {Errc::invalid_argument, std::string("--backend must be auto, cpu or hip, not '") + optarg + "'"};
        break;
      case kVendor:
        if (!std::strcmp(optarg, "auto")) o->vendor = Vendor::auto_select;
        else if (!std::strcmp(optarg, "amd")) o->vendor = Vendor::amd;
        else if (!std::strcmp(optarg, "nvidia")) o->vendor = Vendor::nvidia;
        else s = {Errc::invalid_argument, std::string("--vendor must be auto, amd or nvidia, not '") + optarg + "'"};
        break;
      case kDevice:
      case kGpu: {
        // --device and --gpu: auto (-1: the engine places the scorer) or an index.
        const std::string opt = c == kGpu ? "--gpu" : "--device";
        if (!std::strcmp(optarg, "auto")) {
          o->device = -1;
        } else {
          number(opt.c_str(), 0, 255, &v);
          o->device = int(v);
        }
        break;
      }
      case kPerFrame: o->per_frame = true; break;
      case ':':
        s = {Errc::invalid_argument, "option " + name + " needs a value"};
        break;
      default:
        s = {Errc::invalid_argument, "unknown option " + name + " (--help lists them)"};
        break;
    }
    if (!s) {
      fail(s.message());
      return Parsed::error;
    }
  }
  if (optind < argc) {
    fail(std::string("unexpected argument '") + argv[optind] + "'");
    return Parsed::error;
  }
  if (o->ref.empty() || o->dists.empty()) {
    usage(stderr);
    fail("--reference and --distorted are required");
    return Parsed::error;
  }
  if (Status s = tools::finish_selection(o->no_prediction, &o->sel); !s) {
    fail(s.message());
    return Parsed::error;
  }
  if (o->gpumask) {
    if (o->backend_given && o->backend == Backend::hip) {
      fail("--gpumask " + std::to_string(o->gpumask) + " leaves the GPU out (libvmaf's meaning) but --backend hip "
           "asks for it");
      return Parsed::error;
    }
    o->backend = Backend::cpu;
  }
  return Parsed::run;
}

// ---- the engine's configuration ----

// -n: the features each model would have computed (the models are loaded for their feature lists only).
Status no_prediction_features(const tools::Selection& sel, std::vector<FeatureRequest>* out) {
  for (const auto& m : sel.models) {
    Model model;
    VMAFX_TRY(Model::load(m.request.model, &model));
    std::vector<tools::ModelFeatureUse> uses;
    for (const auto& f : model.features())
      uses.push_back({f.extractor, OptionList(f.text_opts.begin(), f.text_opts.end())});
    VMAFX_TRY(tools::add_model_features(uses, m, out));
  }
  return Status::ok();
}

// The engine's requests: the models (none with -n: their features are in `features` then) and the features.
void engine_config(const tools::Selection& sel, bool no_prediction, const std::vector<FeatureRequest>& features,
                   ScorerConfig* cfg) {
  cfg->models.clear();
  if (!no_prediction)
    for (const auto& m : sel.models) cfg->models.push_back(m.request);
  cfg->features = features;
}

// printf into the end of *out.
void append_format(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void append_format(std::string* out, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list again;
  va_copy(again, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  if (n > 0) {
    const size_t at = out->size();
    out->resize(at + size_t(n) + 1);
    std::vsnprintf(&(*out)[at], size_t(n) + 1, fmt, again);
    out->resize(at + size_t(n));
  }
  va_end(again);
}

// The pooled scores as libvmaf prints them: "LABEL: MEAN" for every model, then for every bootstrap model
// "LABEL: BAGGING, ci.p95: [LO, HI], stddev: SD".
// `prefix` goes before every line (a ladder's: the distorted path and ": ").
void print_pooled(const Collector& col, const tools::Selection& sel, const std::vector<std::string>& columns,
                  const std::string& prefix) {
  close_meter_line();
  auto mean = [&](const std::string& name, double* out) {
    const long i = col.find(name);
    if (i < 0) return false;
    *out = col.pool(size_t(i)).mean;
    return true;
  };
  for (size_t i = 0; i < columns.size() && i < sel.models.size(); i++) {
    double v;
    if (mean(columns[i], &v)) std::fprintf(stderr, "%s%s: %f\n", prefix.c_str(), sel.models[i].label().c_str(), v);
  }
  for (size_t i = 0; i < columns.size() && i < sel.models.size(); i++) {
    double bag, lo, hi, sd;
    const std::string& c = columns[i];
    if (mean(c + "_bagging", &bag) && mean(c + "_ci_p95_lo", &lo) && mean(c + "_ci_p95_hi", &hi) &&
        mean(c + "_stddev", &sd))
      std::fprintf(stderr, "%s%s: %f, ci.p95: [%f, %f], stddev: %f\n", prefix.c_str(), sel.models[i].label().c_str(),
                   bag, lo, hi, sd);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The environment (docs/cli.md, Environment), read once, here: ours and the engine's variables.
  tools::CliEnvironment env;
  if (Status s = tools::parse_environment([](const char* name) -> const char* { return std::getenv(name); }, &env);
      !s)
    return fail(s.message());
  tools::trace::set_enabled(env.trace);
  tools::trace::event("main");
  Options o;
  switch (parse_command_line(argc, argv, &o)) {
    case Parsed::run: break;
    case Parsed::exit_ok: return 0;
    case Parsed::error: return 1;
  }
  const bool tty = isatty(STDERR_FILENO) == 1;
  const bool meter_on = tty && !o.quiet;
  if (meter_on) std::fprintf(stderr, "vmafx-score version %s\n", kVersion);
  tools::trace::event("options parsed");
  tools::trace::event("--device/--gpu: device_id %d for the engine%s", o.device, o.device < 0 ? " (auto)" : "");

  // Everything that can be checked before a frame is read.
  if (Status s = check_models(o.sel); !s) return fail(s.message());
  std::vector<FeatureRequest> features;
  if (o.no_prediction) {
    if (Status s = no_prediction_features(o.sel, &features); !s) return fail(s.message());
  }
  features.insert(features.end(), o.sel.features.begin(), o.sel.features.end());
  if (o.no_prediction && features.empty())
    return fail("--no_prediction without --model or --feature leaves nothing to compute");
  // Several distorted inputs: a ladder. Each has its scorer, its results file and its lines on stderr and stdout,
  // named by its path; one distorted input reads as libvmaf's tool.
  const size_t count = o.dists.size();
  const bool ladder = count > 1;
  auto about = [&](size_t i, const std::string& msg) { return ladder ? o.dists[i] + ": " + msg : msg; };
  std::vector<std::string> outputs;  // the results file of each distorted input
  if (o.output_given) {
    if (Status s = tools::results_paths(o.output, o.dists, &outputs); !s) return fail(s.message());
    for (const auto& path : outputs)
      if (Status s = check_output_path(path, o.ref, o.dists); !s) return fail(s.message());
  } else if (o.format_given && !o.quiet) {
    warn("a results format without --output: no results file is written");
  }
  ScorerConfig cfg;
  engine_config(o.sel, o.no_prediction, features, &cfg);
  cfg.tuning = env.tuning;
  if (o.cpumask_given) {
    // libvmaf's bits (a set bit leaves that instruction set out), set for the process when the scorer is created;
    // the option wins over VMAFX_CPUMASK.
    cfg.tuning.cpu_mask = int64_t(o.cpumask);
    tools::trace::event("--cpumask: mask %" PRIu64 " for the engine", uint64_t(o.cpumask));
  }

  // One distorted input and what is made for it. Members go in reverse order: the scorer first, then the input's
  // read-ahead and the buffers the scorer returned frames to, then the reader and its mapping.
  struct Rendition {
    std::string path;
    tools::VideoReader reader;
    Input in;
    bool scaled = false;  // another size than the reference's: the engine scales it (bicubic)
    uint64_t frames = 0;  // pairs submitted
    bool ended = false;   // no more frames (or the reference ended)
    std::string ended_early;
    std::unique_ptr<Scorer> scorer;
  };

  // What the scorers' callbacks use, declared before the scorers so that it outlives them on every path out of main.
  Notices notices(o.quiet);
  // Per-frame scores arrive from each scorer (the submitting thread or a worker), one at a time per scorer and only
  // after the scorer exists: its names are read through names_of[i], set once the scorers were created. The
  // scorers of a ladder call at the same time: each line is written whole under a lock.
  std::vector<const Scorer*> names_of(count, nullptr);
  std::atomic<bool> first_scored{false};
  std::mutex stdout_mu;

  const tools::ReadMode read_mode = env.mmap ? tools::ReadMode::mmap : tools::ReadMode::read;
  tools::VideoReader ref;
  if (Status s = ref.open(o.ref, o.given, read_mode); !s) return fail(s.message());
  // Frame buffers of the read() path return to the pools of these inputs from the scorers' release callbacks: the
  // reference's input, declared before the renditions, outlives every scorer on every path out of main (a scorer
  // holds reference frames until its last release); each rendition's input outlives its own scorer. The mappings
  // live until the readers go, after the scorers; a mapped frame's release only lets the prefetch helpers drop its
  // page-table entries.
  Input in_ref;
  in_ref.name = "ref";
  in_ref.reader = &ref;
  std::vector<std::unique_ptr<Rendition>> rends;
  // Raw distorted inputs take -w -h -p -b; a .y4m one its header's size (scaled when it is not the reference's).
  tools::InputParams dist_given = o.given;
  dist_given.size_from_y4m_header = true;
  for (size_t i = 0; i < count; i++) {
    auto r = std::make_unique<Rendition>();
    r->path = o.dists[i];
    tools::VideoReader& dist = r->reader;
    if (Status s = dist.open(r->path, dist_given, read_mode); !s) return fail(s.message());
    if (ref.format().bit_depth != dist.format().bit_depth)
      return fail(about(i, "reference is " + std::to_string(ref.format().bit_depth) + "-bit but distorted is " +
                               std::to_string(dist.format().bit_depth) + "-bit" +
                               (o.sel.common_bitdepth ? " (--aom_ctc v6.0 and later score such pairs at the higher "
                                                        "depth in libvmaf; vmafx-score does not)"
                                                      : "")));
    if (ref.format().chroma != dist.format().chroma)
      return fail(about(i, std::string("reference chroma is ") + chroma_name(ref.format().chroma) +
                               " but distorted is " + chroma_name(dist.format().chroma)));
    r->scaled = dist.width() != ref.width() || dist.height() != ref.height();
    r->in.name = ladder ? "dist#" + std::to_string(i) : "dist";
    r->in.reader = &dist;
    rends.push_back(std::move(r));
  }
  {
    std::vector<const tools::VideoReader*> all = {&ref};
    for (const auto& r : rends) all.push_back(&r->reader);
    for (const tools::VideoReader* r : all)
      tools::trace::event("input %s opened: %s%s%s, %" PRIu64 " bytes, %zu bytes a frame (luma %zu)",
                          r->path().c_str(), tools::read_mode_name(r->mode()),
                          r->mode() == tools::ReadMode::read ? ": " : "",
                          r->mode() == tools::ReadMode::read ? r->mode_note().c_str() : "", r->file_size(),
                          r->frame_size(), r->luma_size());
  }
  // Scaling, said once per distorted input (a notice: not with -q).
  if (!o.quiet)
    for (const auto& r : rends)
      if (r->scaled)
        warn(r->path + ": " + std::to_string(r->reader.width()) + "x" + std::to_string(r->reader.height()) +
             " scaled to " + std::to_string(ref.width()) + "x" + std::to_string(ref.height()) + " (bicubic)");

  cfg.conf_interval = true;  // libvmaf's CLI writes a bootstrap model's interval columns
  cfg.leave_out_unfit_features = false;  // a feature asked for that cannot score these pictures stops the run, as libvmaf
  // --threads N: each scorer has its own N workers (the engine's pool belongs to its scorer).
  cfg.threads = unsigned(o.threads);
  cfg.subsample = unsigned(o.subsample);
  cfg.backend = o.backend;
  cfg.vendor = o.vendor;
  cfg.device_id = o.device;
  cfg.scale = ScaleMethod::bicubic;
  // One short line per notice; its detail (the libraries tried, ...) only in the trace.
  cfg.on_notice = [&notices](NoticeLevel, const std::string& text, const std::string& detail) {
    notices.post(text);
    if (!detail.empty()) tools::trace::event("notice detail: %s", detail.c_str());
  };
  std::vector<ScorerConfig> cfgs;
  std::vector<StreamGeometry> geometries;
  std::vector<std::string> labels;
  for (size_t i = 0; i < count; i++) {
    ScorerConfig c = cfg;
    const std::string prefix = ladder ? o.dists[i] + ": " : "";
    c.on_frame = [&, i, prefix](const FrameScore& fs) {
      if (!first_scored.exchange(true)) tools::trace::event("first frame scored");
      if (!o.per_frame) return;
      const auto& names = names_of[i]->score_names();
      std::string line = prefix;
      append_format(&line, "frame %" PRIu64 ":", fs.index);
      for (size_t k = 0; k < names.size(); k++)
        if (!std::isnan(fs.values[k])) append_format(&line, " %s=%.6f", names[k].c_str(), fs.values[k]);
      line += '\n';
      std::lock_guard<std::mutex> lk(stdout_mu);
      std::fwrite(line.data(), 1, line.size(), stdout);
    };
    StreamGeometry g;
    g.ref = ref.geometry();
    g.dist = g.ref;
    g.dist.width = rends[i]->reader.width();
    g.dist.height = rends[i]->reader.height();
    cfgs.push_back(std::move(c));
    geometries.push_back(g);
    labels.push_back(ladder ? o.dists[i] : "");
  }

  // The scorers start on their own thread now; errors keep their order (skipping first, then the scorers').
  ScorerStartup startup(std::move(cfgs), geometries, std::move(labels), ladder);
  tools::trace::event("scorer thread started");
  if (Status s = ref.skip(o.skip_ref); !s) return fail(s.message());
  // --frame_skip_dist: the same skip for every distorted input.
  for (auto& r : rends)
    if (Status s = r->reader.skip(o.skip_dist); !s) return fail(s.message());

  // Chroma is read by psnr only. A mapped input's prefetch touches the luma alone unless a psnr feature is asked for
  // (corrected below once the scorer names its scores); the read() path reads every plane until then.
  bool psnr_asked = false;
  for (const auto& f : features) psnr_asked = psnr_asked || f.name.rfind("psnr", 0) == 0;
  const bool cpu_backend = cfg.backend == Backend::cpu;
  const unsigned helpers = env.prefetch;
  std::vector<Input*> inputs = {&in_ref};
  for (auto& r : rends) inputs.push_back(&r->in);
  for (Input* in : inputs) {
    if (in->mapped()) {
      in->reader->set_luma_only(!psnr_asked);
      const uint64_t window = cpu_backend ? kCpuFramesAhead * in->reader->frame_size() : kPrefetchWindow;
      in->prefetch = std::make_unique<tools::MappedPrefetch>(*in->reader, o.frame_cnt, window, helpers);
      tools::trace::event("%s prefetch started: %u threads, %" PRIu64 " MB window, %s", in->name.c_str(), helpers,
                          window >> 20, in->reader->luma_only() ? "luma only" : "whole frames");
    } else {
      // The read() path reads up to 128 MB of frames ahead per input (8 to 64 frames) while the scorer starts up;
      // with the CPU backend kCpuFramesAhead.
      const size_t ahead =
          cpu_backend ? kCpuFramesAhead
                      : std::min<size_t>(64, std::max<size_t>(8, (size_t(128) << 20) / in->reader->frame_size()));
      in->pool = std::make_unique<BufferPool>(in->reader->frame_size());
      in->read_ahead = std::make_unique<ReadAhead>(*in->reader, *in->pool, o.frame_cnt, ahead, in->name.c_str());
      tools::trace::event("%s reader thread started: read(), up to %zu frames ahead", in->name.c_str(), ahead);
    }
  }
  tools::trace::event("waiting for the scorer");
  std::vector<std::unique_ptr<Scorer>> scorers;
  // A ladder's reference: each frame handed over once, copied to the GPU once, its motion computed once.
  std::shared_ptr<SharedReference> shared_ref;
  size_t failed = 0;
  const Status created = startup.wait(&scorers, &shared_ref, &failed);
  notices.release();  // before any error, as when the scorer was created here
  if (!created) return fail(about(failed, created.message()));
  for (size_t i = 0; i < count; i++) {
    rends[i]->scorer = std::move(scorers[i]);
    names_of[i] = rends[i]->scorer.get();
  }
  Scorer& first = *rends[0]->scorer;
  {
    std::string progress = in_ref.progress();
    for (const auto& r : rends) progress += ", " + r->in.progress();
    tools::trace::event("scorer ready; by now %s", progress.c_str());
  }
  if (meter_on) {
    if (ladder)
      std::fprintf(stderr, "scoring %zu distorted inputs on %s\n", count, first.backend_description().c_str());
    else
      std::fprintf(stderr, "scoring on %s\n", first.backend_description().c_str());
  }
  const auto& names = first.score_names();

  // Chroma is read by psnr only: without it the readers skip the chroma planes in the files from now on (the frames
  // read while the scorer started up hold every plane).
  bool reads_chroma = false;
  for (const auto& name : names) reads_chroma = reads_chroma || name.rfind("psnr_", 0) == 0;
  for (Input* in : inputs) in->reader->set_luma_only(!reads_chroma);
  if (first.backend() == Backend::cpu) {  // also where auto found no GPU
    for (Input* in : inputs) {
      if (in->prefetch)
        in->prefetch->set_window(kCpuFramesAhead * (reads_chroma ? in->reader->frame_size() : in->reader->luma_size()));
      if (in->read_ahead) {
        in->read_ahead->set_ahead(kCpuFramesAhead);
        in->pool->set_keep(2 * kCpuFramesAhead);
      }
    }
  }

  // Frames the meter expects: the reference's after its skip, no more than the longest distorted input's, at most
  // --frame_cnt (0: not known).
  uint64_t total = 0;
  {
    const uint64_t r = ref.frames_estimate();
    uint64_t d = 0;
    bool known = r != 0;
    for (const auto& rd : rends) {
      const uint64_t e = rd->reader.frames_estimate();
      known = known && e != 0;
      d = std::max(d, e > o.skip_dist ? e - o.skip_dist : 0);
    }
    if (known) {
      total = std::min(r > o.skip_ref ? r - o.skip_ref : 0, d);
      if (o.frame_cnt) total = std::min(total, o.frame_cnt);
    }
  }
  Meter meter(meter_on, total);

  // A reference frame handed to every scorer: the same memory, given back (to its pool, or to the prefetch helpers)
  // once the last scorer released it.
  struct SharedRef {
    Input* in;
    std::unique_ptr<uint8_t[]> buf;  // read() path
    const uint8_t* data;
    uint64_t index;
    ~SharedRef() {
      if (buf) in->pool->put(std::move(buf));
      else if (in->prefetch) in->prefetch->released(index, data, data + in->reader->frame_size());
    }
  };

  uint64_t n = 0;  // reference frames handed to the scorers
  size_t active = count;
  for (;;) {
    if (o.frame_cnt && n >= o.frame_cnt) break;
    const uint8_t* rp = nullptr;
    std::unique_ptr<uint8_t[]> rb;
    bool got_r = false;
    if (Status s = in_ref.next(&rp, &rb, &got_r); !s) return fail(s.message());
    if (!got_r) {
      // Every distorted input with a frame left is longer than the reference.
      for (auto& r : rends) {
        if (r->ended) continue;
        const uint8_t* dp = nullptr;
        std::unique_ptr<uint8_t[]> db;
        bool got_d = false;
        if (Status s = r->in.next(&dp, &db, &got_d); !s) return fail(s.message());
        if (got_d)
          r->ended_early = o.ref + " ended before " + r->path + "; scored " + std::to_string(r->frames) + " frames";
        if (db) r->in.pool->put(std::move(db));
        r->ended = true;
      }
      break;
    }
    PictureView rv;
    if (Status s = make_picture_view(ref.format(), ref.width(), ref.height(), rp, ref.frame_size(), ref.layout(),
                                     ref.planes(), &rv); !s)
      return fail(s.message());
    auto shared = std::make_shared<SharedRef>();
    shared->in = &in_ref;
    shared->buf = std::move(rb);
    shared->data = rp;
    shared->index = n;
    std::shared_ptr<const SharedFrame> shared_frame;
    if (shared_ref) {
      if (Status s = shared_ref->submit(rv, [shared]() mutable { shared.reset(); }, &shared_frame); !s)
        return fail(s.message());
    }
    for (size_t i = 0; i < count; i++) {
      Rendition& r = *rends[i];
      if (r.ended) continue;
      const uint8_t* dp = nullptr;
      std::unique_ptr<uint8_t[]> db;
      bool got_d = false;
      if (Status s = r.in.next(&dp, &db, &got_d); !s) return fail(s.message());
      if (!got_d) {
        r.ended_early = r.path + " ended before " + o.ref + "; scored " + std::to_string(r.frames) + " frames";
        r.ended = true;
        active--;
        continue;
      }
      const tools::VideoReader& dist = r.reader;
      PictureView dv;
      if (Status s = make_picture_view(dist.format(), dist.width(), dist.height(), dp, dist.frame_size(),
                                       dist.layout(), dist.planes(), &dv); !s)
        return fail(s.message());
      // Read buffers go back to their pools once the scorer is done with them; a mapped frame tells its prefetch
      // helpers that its page-table entries may go.
      uint8_t* d = db.release();
      const uint64_t k = r.frames;
      Input* in = &r.in;
      FramePair pair;
      if (shared_frame) pair.shared = shared_frame;
      else pair.ref = rv;
      pair.dist = dv;
      pair.timestamp = int64_t(r.frames);
      pair.user = r.frames;
      pair.release = [shared, in, d, dp, k]() mutable {
        if (d) in->pool->put(std::unique_ptr<uint8_t[]>(d));
        else if (in->prefetch) in->prefetch->released(k, dp, dp + in->reader->frame_size());
        shared.reset();
      };
      if (Status s = r.scorer->submit(std::move(pair)); !s) return fail(about(i, s.message()));
      if (n == 0 && i == 0) tools::trace::event("first frame submitted");
      r.frames++;
      if (r.in.prefetch) r.in.prefetch->consumed(r.frames);
    }
    shared.reset();  // the scorers (or the shared reference) hold it now
    shared_frame.reset();
    if (active == 0) break;  // no distorted input had this frame
    n++;
    meter.frame(n);
    if (in_ref.prefetch) in_ref.prefetch->consumed(n);
  }
  meter.finish(n);
  if (!o.quiet)
    for (const auto& r : rends)
      if (!r->ended_early.empty()) warn(r->ended_early);
  for (size_t i = 0; i < count; i++)
    if (rends[i]->frames == 0) return fail(about(i, "no frames to score"));
  tools::trace::event("last frame submitted (%" PRIu64 " frames)", n);
  for (size_t i = 0; i < count; i++)
    if (Status s = rends[i]->scorer->flush(); !s) return fail(about(i, s.message()));
  tools::trace::event("flush done");
  if (shared_ref) {
    const SharedReferenceCounters c = shared_ref->counters();
    std::string motion;
    for (const auto& f : shared_ref->features()) motion += (motion.empty() ? "" : ", ") + f;
    tools::trace::event("shared reference: %" PRIu64 " frames, %" PRIu64 " copied to the device (%" PRIu64
                        " bytes), reference features (%s) on %" PRIu64 " frames",
                        c.frames, c.uploads, c.uploaded_bytes, motion.empty() ? "none" : motion.c_str(),
                        c.feature_frames);
    for (size_t i = 0; i < count; i++) {
      const ScorerCounters sc = rends[i]->scorer->counters();
      tools::trace::event("%s: %" PRIu64 " frames, reference features computed on %" PRIu64 " and shared on %" PRIu64
                          ", %" PRIu64 " bytes uploaded",
                          rends[i]->path.c_str(), sc.frames, sc.reference_feature_frames, sc.shared_frames,
                          sc.uploaded_bytes);
    }
  }

  // libvmaf: the pooled scores unless -q and a results file (-q alone still prints them); none with -n.
  if (!o.no_prediction && (!o.quiet || !o.output_given))
    for (const auto& r : rends)
      print_pooled(r->scorer->collector(), o.sel, r->scorer->model_score_names(), ladder ? r->path + ": " : "");
  tools::trace::event("results printed");
  if (o.output_given) {
    for (size_t i = 0; i < count; i++) {
      ResultsInfo info;
      info.width = ref.width();
      info.height = ref.height();
      info.fps = rends[i]->scorer->fps();
      if (Status s = write_results(rends[i]->scorer->collector(), o.format, info, outputs[i]); !s)
        return fail(s.message());
      tools::trace::event("results written to %s", outputs[i].c_str());
    }
  }
  {
    std::string progress = in_ref.progress();
    for (const auto& r : rends) progress += "; " + r->in.progress();
    tools::trace::event("inputs: %s", progress.c_str());
  }
  tools::trace::rusage_summary("resources");
  std::fflush(nullptr);
  if (first.backend() == Backend::hip) {
    // Every result is out and every frame flushed: leave without tearing down the GPU context and its memory
    // (tens of milliseconds of a run of a few hundred frames); the system reclaims them.
    tools::trace::event("exit: _Exit(0) without GPU teardown (the kernel still releases the context after this)");
    std::fflush(nullptr);
    std::_Exit(0);
  }
  tools::trace::event("exit: return from main (scorer, prefetch and mappings torn down after this)");
  return 0;
}
