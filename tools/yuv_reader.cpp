// SPDX-License-Identifier: LGPL-2.1-or-later
#include "yuv_reader.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14
#endif

namespace vmafx::tools {

namespace {

// The magic a .y4m stream starts with.
constexpr char kY4mMagic[] = "YUV4MPEG2";
constexpr size_t kY4mMagicSize = sizeof kY4mMagic - 1;

// A y4m header dimension: decimal digits only, 1..kMaxDimension.
bool parse_dimension(const std::string& digits, uint32_t* out) {
  if (digits.empty() || digits.size() > 6 || digits[0] == '0') return false;
  uint32_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + uint32_t(c - '0');
  }
  if (v > kMaxDimension) return false;
  *out = v;
  return true;
}

std::string describe(const FormatInfo& f) {
  const char* layout = "";
  switch (f.format) {
    case PixelFormat::gray: layout = "gray"; break;
    case PixelFormat::i420: layout = "planar"; break;
    case PixelFormat::yv12: layout = "yv12"; break;
    case PixelFormat::nv12: layout = "nv12"; break;
    case PixelFormat::nv21: layout = "nv21"; break;
    case PixelFormat::p010: layout = "p010"; break;
    case PixelFormat::p016: layout = "p016"; break;
  }
  return std::string(layout) + " " + chroma_name(f.chroma) + " " + std::to_string(f.bit_depth) + "-bit";
}

// ---- SIGBUS on a mapping whose file shrank ----
// A fixed table the handler can read without locks or allocation: the address range of each mapping and the line
// to print when a fault lands in it.
constexpr int kGuardSlots = 16;
constexpr size_t kGuardMessage = 640;

struct GuardSlot {
  std::atomic<bool> used{false};
  std::atomic<uintptr_t> begin{0}, end{0};
  char message[kGuardMessage];
  size_t length = 0;
};

GuardSlot g_guard[kGuardSlots];
struct sigaction g_previous_sigbus;
std::once_flag g_sigbus_installed;

void on_sigbus(int sig, siginfo_t* info, void* context) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(info->si_addr);
  for (const GuardSlot& g : g_guard) {
    const uintptr_t b = g.begin.load(std::memory_order_acquire);
    if (b && addr >= b && addr < g.end.load(std::memory_order_acquire)) {
      ssize_t w = ::write(STDERR_FILENO, g.message, g.length);
      (void)w;
      _exit(1);
    }
  }
  // Not ours: whatever was installed before, or the default action (the faulting access runs again and the
  // restored disposition applies).
  if ((g_previous_sigbus.sa_flags & SA_SIGINFO) && g_previous_sigbus.sa_sigaction) {
    g_previous_sigbus.sa_sigaction(sig, info, context);
  } else if (g_previous_sigbus.sa_handler != SIG_DFL && g_previous_sigbus.sa_handler != SIG_IGN) {
    g_previous_sigbus.sa_handler(sig);
  } else {
    sigaction(SIGBUS, &g_previous_sigbus, nullptr);
  }
}

// Registers [base, base + size) and returns its slot, or -1 when the table is full (the mapping then has no
// message: a shrinking file would end the process with the default SIGBUS action).
int guard_mapping(const void* base, uint64_t size, const std::string& path, uint64_t file_size) {
  std::call_once(g_sigbus_installed, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &g_previous_sigbus);
  });
  for (int i = 0; i < kGuardSlots; i++) {
    bool expected = false;
    if (!g_guard[i].used.compare_exchange_strong(expected, true)) continue;
    GuardSlot& g = g_guard[i];
    // The program's own name (vmafx-score, vmafx-batch) in front, as its other messages.
    std::string msg = std::string(program_invocation_short_name) + ": " + path + " shrank while being read (it had " + std::to_string(file_size) +
                      " bytes when opened)\n";
    if (msg.size() > kGuardMessage) msg = msg.substr(0, kGuardMessage - 1) + "\n";
    std::memcpy(g.message, msg.data(), msg.size());
    g.length = msg.size();
    g.end.store(reinterpret_cast<uintptr_t>(base) + size, std::memory_order_release);
    g.begin.store(reinterpret_cast<uintptr_t>(base), std::memory_order_release);
    return i;
  }
  return -1;
}

void unguard_mapping(int slot) {
  if (slot < 0) return;
  g_guard[slot].begin.store(0, std::memory_order_release);
  g_guard[slot].end.store(0, std::memory_order_release);
  g_guard[slot].used.store(false, std::memory_order_release);
}

}  // namespace

const char* read_mode_name(ReadMode m) { return m == ReadMode::mmap ? "mmap" : "read"; }

VideoReader::~VideoReader() {
  if (map_) {
    unguard_mapping(guard_slot_);
    munmap(const_cast<uint8_t*>(map_), map_size_);
  }
  if (f_) std::fclose(f_);
}

Status VideoReader::open(const std::string& path, const InputParams& given, ReadMode want) {
  path_ = path;
  f_ = std::fopen(path.c_str(), "rb");
  if (!f_) return {Errc::io_error, "cannot open " + path + ": " + std::strerror(errno)};
  struct stat st;
  if (fstat(fileno(f_), &st) == 0 && S_ISREG(st.st_mode)) {
    regular_file_ = true;
    file_size_ = uint64_t(st.st_size);
  }
  // Raw or .y4m by the first bytes, not the name (pipes too).
  char magic[kY4mMagicSize];
  const size_t got = std::fread(magic, 1, sizeof magic, f_);
  if (std::ferror(f_)) return {Errc::io_error, path_ + ": " + std::strerror(errno)};
  y4m_ = got == kY4mMagicSize && std::memcmp(magic, kY4mMagic, kY4mMagicSize) == 0;
  if (y4m_) {
    VMAFX_TRY(parse_y4m_header());
    VMAFX_TRY(check_given(given));
  } else {
    if (regular_file_) {
      if (std::fseek(f_, 0, SEEK_SET) != 0) return {Errc::io_error, path_ + ": " + std::strerror(errno)};
    } else {
      pending_.assign(magic, got);  // the start of frame 0
    }
    if (!given.width || !given.height)
      return {Errc::invalid_argument,
              path + " is raw video (no YUV4MPEG2 header): give --width and --height (and --pixel_format and "
                     "--bitdepth unless 420 8-bit)"};
    width_ = given.width;
    height_ = given.height;
    VMAFX_TRY(parse_pixel_format(given.pixel_format.empty() ? "420" : given.pixel_format, given.bit_depth, &fmt_));
  }
  n_planes_ = packed_layout(fmt_, width_, height_, layout_, &frame_size_);

  if (regular_file_) {
    const long pos = std::ftell(f_);  // after a .y4m header: where the first FRAME line starts
    if (pos < 0) return {Errc::io_error, path_ + ": " + std::strerror(errno)};
    data_start_ = uint64_t(pos);
    cursor_.pos = data_start_;
  }
  mode_ = ReadMode::read;
  if (want == ReadMode::read) {
    mode_note_ = "VMAFX_READER=read";
  } else if (!regular_file_) {
    mode_note_ = "not a regular file";
  } else {
    Status s = map_file(fileno(f_));
    if (s) {
      mode_ = ReadMode::mmap;
      mode_note_ = "mmap";
    } else {
      mode_note_ = s.message();  // the read path still works
    }
  }
  return Status::ok();
}

Status VideoReader::map_file(int fd) {
  // Raw files: whole frames only (a partial last frame is never read, only measured). A .y4m file's FRAME lines
  // may vary in length: the whole file as it was at open.
  const uint64_t whole = frame_size_ ? (file_size_ - data_start_) / frame_size_ * frame_size_ : 0;
  const uint64_t size = y4m_ ? file_size_ : data_start_ + whole;
  if (size > uint64_t(SIZE_MAX)) return {Errc::unsupported, "mmap failed: file too large for the address space"};
  if (size == 0) return Status::ok();  // nothing to map: locate() reports the end or the truncated frame
  void* p = mmap(nullptr, size_t(size), PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return {Errc::io_error, std::string("mmap failed: ") + std::strerror(errno)};
  map_ = static_cast<const uint8_t*>(p);
  map_size_ = size;
  madvise(p, size_t(size), MADV_SEQUENTIAL);
  guard_slot_ = guard_mapping(p, size, path_, file_size_);
  return Status::ok();
}

// The header after its magic (already read): the rest of the first line.
Status VideoReader::parse_y4m_header() {
  char line[1024];
  if (!std::fgets(line, sizeof line, f_)) return {Errc::unsupported, path_ + ": y4m header ends after YUV4MPEG2"};
  const size_t len = std::strlen(line);
  if (len == 0 || line[len - 1] != '\n')
    return {Errc::unsupported, path_ + ": y4m header line is longer than " + std::to_string(sizeof line) +
                                   " bytes or not ended by a newline"};
  if (line[0] != ' ') return {Errc::unsupported, path_ + " is not a YUV4MPEG2 file (no blank after the magic)"};
  std::istringstream in(std::string(line + 1, len - 2));
  std::string tok, chroma = "420";
  bool have_w = false, have_h = false;
  while (in >> tok) {
    switch (tok[0]) {
      case 'W':
      case 'H': {
        uint32_t* dst = tok[0] == 'W' ? &width_ : &height_;
        if (!parse_dimension(tok.substr(1), dst))
          return {Errc::unsupported, path_ + ": y4m header " + (tok[0] == 'W' ? "width" : "height") + " '" + tok +
                                         "' is not a whole number from 1 to " + std::to_string(kMaxDimension)};
        (tok[0] == 'W' ? have_w : have_h) = true;
        break;
      }
      case 'C': chroma = tok.substr(1); break;
      case 'I':
        if (tok != "Ip" && tok != "I?")
          return {Errc::unsupported, path_ + ": interlaced y4m (" + tok + ") is not supported"};
        break;
      default: break;
    }
  }
  if (!have_w || !have_h) return {Errc::unsupported, path_ + ": y4m header without W/H"};
  y4m_chroma_ = chroma;
  unsigned depth = 8;
  std::string base = chroma;
  if (auto p = chroma.find('p'); p != std::string::npos && p + 1 < chroma.size() && std::isdigit(chroma[p + 1])) {
    base = chroma.substr(0, p);
    const std::string digits = chroma.substr(p + 1);
    if (digits.size() > 2 || digits.find_first_not_of("0123456789") != std::string::npos)
      return {Errc::unsupported, path_ + ": y4m colour space C" + chroma + " has no valid bit depth"};
    depth = unsigned(std::stoul(digits));
  }
  if (base.rfind("420", 0) == 0) base = "420";  // 420jpeg, 420mpeg2, 420paldv
  if (base == "mono") base = "400";
  if (base != "420" && base != "422" && base != "444" && base != "400")
    return {Errc::unsupported, path_ + ": y4m colour space C" + chroma + " is not supported (420, 422, 444, mono)"};
  return parse_pixel_format(base, depth, &fmt_).prepend(path_ + ": y4m colour space C" + chroma);
}

// Each of -w, -h, -p, -b given must agree with the header.
Status VideoReader::check_given(const InputParams& given) const {
  if (!given.size_from_y4m_header &&
      ((given.width && given.width != width_) || (given.height && given.height != height_)))
    return {Errc::invalid_argument, path_ + " is " + std::to_string(width_) + "x" + std::to_string(height_) +
                                        " (its y4m header), not the " +
                                        std::to_string(given.width ? given.width : width_) + "x" +
                                        std::to_string(given.height ? given.height : height_) + " given"};
  if (given.pixel_format.empty() && !given.bit_depth) return Status::ok();
  FormatInfo want;
  Status s = parse_pixel_format(given.pixel_format.empty() ? "420" : given.pixel_format,
                                given.bit_depth ? given.bit_depth : fmt_.bit_depth, &want);
  if (!s) return s;
  const bool format_ok = given.pixel_format.empty() || (want.format == fmt_.format && want.chroma == fmt_.chroma);
  const bool depth_ok = !given.bit_depth || want.bit_depth == fmt_.bit_depth;
  if (format_ok && depth_ok) return Status::ok();
  std::string asked;
  if (!given.pixel_format.empty()) asked += "--pixel_format " + given.pixel_format;
  if (given.bit_depth) asked += std::string(asked.empty() ? "" : " ") + "--bitdepth " + std::to_string(given.bit_depth);
  return {Errc::invalid_argument, path_ + " is " + describe(fmt_) + " (its y4m header: C" + y4m_chroma_ +
                                      "), not what " + asked + " says"};
}

uint64_t VideoReader::frames_estimate() const {
  if (!regular_file_ || !frame_size_ || file_size_ < data_start_) return 0;
  const uint64_t per_frame = frame_size_ + (y4m_ ? 6 : 0);
  return (file_size_ - data_start_) / per_frame;
}

Status VideoReader::truncated_error(uint64_t index, uint64_t have) const {
  return {Errc::truncated, path_ + ": frame " + std::to_string(index) + " is truncated (" + std::to_string(have) +
                               " of " + std::to_string(frame_size_) + " bytes)"};
}

Status VideoReader::skip(uint64_t n) {
  std::vector<uint8_t> tmp(mode_ == ReadMode::mmap ? 0 : frame_size_);
  for (uint64_t i = 0; i < n; i++) {
    bool got = false;
    if (mode_ == ReadMode::mmap) {
      const uint8_t* frame = nullptr;
      VMAFX_TRY(next_mapped(&frame, &got));
    } else {
      VMAFX_TRY(read(tmp.data(), &got));
    }
    if (!got) return {Errc::truncated, path_ + " has fewer than " + std::to_string(n) + " frames to skip"};
  }
  return Status::ok();
}

// The rules of the read path below, on the mapping: a .y4m frame starts with a line of at most 255 bytes (what
// fgets() into 256 bytes takes) that begins with FRAME; no line at all is the clean end; data cut short is truncated.
Status VideoReader::locate(Cursor* c, const uint8_t** frame, bool* got) const {
  *got = false;
  *frame = nullptr;
  uint64_t pos = c->pos;
  if (pos >= file_size_) return Status::ok();
  if (y4m_) {
    const uint64_t max_line = std::min<uint64_t>(255, file_size_ - pos);
    const uint8_t* line = map_ + pos;
    const void* nl = std::memchr(line, '\n', size_t(max_line));
    const uint64_t len = nl ? uint64_t(static_cast<const uint8_t*>(nl) - line) + 1 : max_line;
    if (len < 5 || std::memcmp(line, "FRAME", 5) != 0)
      return {Errc::unsupported, path_ + ": frame " + std::to_string(c->index) + " lacks its FRAME marker"};
    pos += len;
  }
  const uint64_t have = file_size_ - pos;
  if (have < frame_size_) return truncated_error(c->index, have);
  *frame = map_ + pos;
  c->pos = pos + frame_size_;
  c->index++;
  *got = true;
  return Status::ok();
}

Status VideoReader::next_mapped(const uint8_t** frame, bool* got) { return locate(&cursor_, frame, got); }

Status VideoReader::read(uint8_t* buf, bool* got) {
  *got = false;
  // Luma only: the chroma planes follow the luma plane in the file (packed layout) and are skipped.
  const size_t want = luma_only_.load() ? luma_size() : frame_size_;
  if (mode_ == ReadMode::mmap) {
    const uint8_t* frame = nullptr;
    VMAFX_TRY(next_mapped(&frame, got));
    if (*got) std::memcpy(buf, frame, want);
    return Status::ok();
  }
  if (y4m_) {
    char hdr[256];
    if (!std::fgets(hdr, sizeof hdr, f_)) {
      if (std::ferror(f_)) return {Errc::io_error, path_ + ": " + std::strerror(errno)};
      return Status::ok();
    }
    if (std::strncmp(hdr, "FRAME", 5) != 0)
      return {Errc::unsupported, path_ + ": frame " + std::to_string(frames_read_) + " lacks its FRAME marker"};
  }
  size_t n = 0;
  if (!pending_.empty()) {  // a pipe's first bytes, read to tell raw from .y4m
    n = std::min(pending_.size(), want);
    std::memcpy(buf, pending_.data(), n);
    pending_.erase(0, n);
  }
  n += std::fread(buf + n, 1, want - n, f_);
  if (n == 0 && !y4m_) {
    if (std::ferror(f_)) return {Errc::io_error, path_ + ": " + std::strerror(errno)};
    return Status::ok();
  }
  if (n == want && want < frame_size_) {
    const long pos = std::ftell(f_);
    if (pos < 0 || std::fseek(f_, long(frame_size_ - want), SEEK_CUR) != 0)
      return {Errc::io_error, path_ + ": " + std::strerror(errno)};
    // The chroma skipped must exist in the file, or the frame is truncated.
    const uint64_t end = uint64_t(pos) + (frame_size_ - want);
    n = end <= file_size_ ? frame_size_ : size_t(want + (file_size_ - uint64_t(pos)));
  }
  if (n != frame_size_) return truncated_error(frames_read_, n);
  frames_read_++;
  *got = true;
  return Status::ok();
}

// ---- MappedPrefetch ----

namespace {
// Released frames' page-table entries go in runs of this many bytes (or more): the mapped pages of an input in the
// process's resident set stay within the window ahead, the frames the scorer holds and one such run.
constexpr uintptr_t kDropChunk = uintptr_t(8) << 20;

uintptr_t page_size() {
  static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096);
  return page;
}
}  // namespace

MappedPrefetch::MappedPrefetch(const VideoReader& reader, uint64_t limit, uint64_t window_bytes, unsigned threads)
    : reader_(reader), limit_(limit), window_bytes_(window_bytes), cursor_(reader.cursor()) {
  if (reader.mode() != ReadMode::mmap) return;
  for (unsigned i = 0; i < threads; i++) threads_.emplace_back([this] { run(); });
}

MappedPrefetch::~MappedPrefetch() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void MappedPrefetch::consumed(uint64_t frames) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lk(mu_);
    consumed_ = frames;
    wake = waiting_ > 0 && !prefetch_over();  // a helper may wait for room in the window
  }
  if (wake) cv_.notify_all();
}

void MappedPrefetch::set_window(uint64_t window_bytes) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    window_bytes_ = window_bytes;
  }
  cv_.notify_all();
}

void MappedPrefetch::released(uint64_t index, const uint8_t* begin, const uint8_t* end) {
  bool wake = false;
  uintptr_t drop_begin = 0, drop_end = 0;
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (!drop_from_) drop_from_ = reinterpret_cast<uintptr_t>(begin) & ~(page_size() - 1);
    if (index != next_release_) {
      early_.emplace_back(index, reinterpret_cast<uintptr_t>(end));
      return;
    }
    next_release_++;
    release_end_ = reinterpret_cast<uintptr_t>(end);
    for (bool more = !early_.empty(); more;) {
      more = false;
      for (size_t i = 0; i < early_.size(); i++) {
        if (early_[i].first != next_release_) continue;
        next_release_++;
        release_end_ = early_[i].second;
        early_.erase(early_.begin() + ptrdiff_t(i));
        more = true;
        break;
      }
    }
    wake = drop_ready();
    if (wake && threads_.empty()) {
      // No helper threads: the releasing thread drops them itself.
      drop_begin = drop_from_;
      drop_end = release_end_ & ~(page_size() - 1);
      drop_from_ = drop_end;
      wake = false;
    }
  }
  if (drop_end > drop_begin) drop(drop_begin, drop_end);
  if (wake) cv_.notify_one();
}

void MappedPrefetch::drop(uintptr_t begin, uintptr_t end) {
  if (madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED) == 0) bytes_dropped_.fetch_add(end - begin);
}

bool MappedPrefetch::room() const {
  const size_t per_frame = reader_.luma_only() ? reader_.luma_size() : reader_.frame_size();
  const uint64_t ahead_max = std::max<uint64_t>(1, window_bytes_ / std::max<size_t>(per_frame, 1));
  return taken_ < consumed_ || taken_ - consumed_ < ahead_max;
}

bool MappedPrefetch::drop_ready() const {
  return drop_from_ && release_end_ > drop_from_ && release_end_ - drop_from_ >= kDropChunk;
}

void MappedPrefetch::run() {
  for (;;) {
    const uint8_t* frame = nullptr;
    size_t bytes = 0;
    uintptr_t drop_begin = 0, drop_end = 0;
    {
      std::unique_lock<std::mutex> lk(mu_);
      waiting_++;
      cv_.wait(lk, [&] { return stop_ || drop_ready() || (!prefetch_over() && room()); });
      waiting_--;
      if (stop_) return;
      if (drop_ready()) {
        // Whole pages only: the page holding the start of the next frame may still be read.
        drop_begin = drop_from_;
        drop_end = release_end_ & ~(page_size() - 1);
        drop_from_ = drop_end;
      } else {
        // The next frame the consumer has not taken yet (frames it has taken are not worth touching).
        while (!prefetch_over()) {
          bool got = false;
          if (!reader_.locate(&cursor_, &frame, &got).is_ok() || !got) {
            end_ = true;
            frame = nullptr;
            break;
          }
          taken_++;
          if (taken_ > consumed_) break;
          frame = nullptr;
        }
        bytes = reader_.luma_only() ? reader_.luma_size() : reader_.frame_size();
      }
    }
    if (drop_end > drop_begin) {
      drop(drop_begin, drop_end);
    } else if (frame) {
      touch(frame, bytes);
      frames_done_.fetch_add(1);
      bytes_done_.fetch_add(bytes);
    }
  }
}

void MappedPrefetch::touch(const uint8_t* begin, size_t bytes) {
  const uintptr_t page = page_size();
  const uintptr_t b = reinterpret_cast<uintptr_t>(begin);
  const uintptr_t e = b + bytes;
  if (populate_ok_.load(std::memory_order_relaxed)) {
    const uintptr_t a = b & ~(page - 1);
    if (madvise(reinterpret_cast<void*>(a), e - a, MADV_POPULATE_READ) != 0 && errno == EINVAL)
      populate_ok_.store(false);  // kernel older than 5.14: the reads below fault the pages in
  }
  // One read per page: page-table entries present and first-access costs paid here, not in the scorer's copy.
  uint8_t acc = 0;
  for (uintptr_t p = b; p < e; p = (p & ~(page - 1)) + page) acc ^= *reinterpret_cast<const volatile uint8_t*>(p);
  static std::atomic<uint8_t> sink{0};
  sink.fetch_xor(acc, std::memory_order_relaxed);
}

}  // namespace vmafx::tools
