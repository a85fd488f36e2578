// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vmafx/dmabuf.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <list>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "import/test_hooks.h"

// The dma-buf uAPI, declared here so that older kernel headers build (DMA_BUF_IOCTL_EXPORT_SYNC_FILE is Linux 6.0).
namespace vmafx::dmabuf_uapi {
struct Sync {
  uint64_t flags;
};
struct ExportSyncFile {
  uint32_t flags;
  int32_t fd;
};
constexpr uint64_t kSyncRead = 1u << 0;
constexpr uint64_t kSyncStart = 0u << 2;
constexpr uint64_t kSyncEnd = 1u << 2;
constexpr unsigned long kIoctlSync = _IOW('b', 0, Sync);
constexpr unsigned long kIoctlExportSyncFile = _IOWR('b', 2, ExportSyncFile);
constexpr long kDmaBufMagic = 0x444d4142;  // "DMAB", the dma-buf file system
}  // namespace vmafx::dmabuf_uapi

#if __has_include(<linux/dma-buf.h>)
#include <linux/dma-buf.h>
#ifdef DMA_BUF_IOCTL_SYNC
static_assert(vmafx::dmabuf_uapi::kIoctlSync == DMA_BUF_IOCTL_SYNC, "DMA_BUF_IOCTL_SYNC");
static_assert(vmafx::dmabuf_uapi::kSyncEnd == DMA_BUF_SYNC_END, "DMA_BUF_SYNC_END");
#endif
#ifdef DMA_BUF_IOCTL_EXPORT_SYNC_FILE
static_assert(vmafx::dmabuf_uapi::kIoctlExportSyncFile == DMA_BUF_IOCTL_EXPORT_SYNC_FILE,
              "DMA_BUF_IOCTL_EXPORT_SYNC_FILE");
#endif
#endif

namespace vmafx {

namespace uapi = dmabuf_uapi;

namespace {

std::string errno_text(int e) { return std::string(strerrordesc_np(e) ? strerrordesc_np(e) : "?") + " (" +
                                       (strerrorname_np(e) ? strerrorname_np(e) : std::to_string(e).c_str()) + ")"; }

std::string hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

bool semi_planar(PixelFormat f) {
  return f == PixelFormat::nv12 || f == PixelFormat::nv21 || f == PixelFormat::p010 || f == PixelFormat::p016;
}

struct DrmFormatEntry {
  uint32_t fourcc;
  PixelFormat format;
  Chroma chroma;
  uint8_t bit_depth;
  unsigned planes;
};

constexpr DrmFormatEntry kDrmFormats[] = {
    {kDrmFormatR8, PixelFormat::gray, Chroma::k400, 8, 1},
    {kDrmFormatR16, PixelFormat::gray, Chroma::k400, 16, 1},
    {kDrmFormatNV12, PixelFormat::nv12, Chroma::k420, 8, 2},
    {kDrmFormatNV21, PixelFormat::nv21, Chroma::k420, 8, 2},
    {kDrmFormatP010, PixelFormat::p010, Chroma::k420, 10, 2},
    {kDrmFormatP016, PixelFormat::p016, Chroma::k420, 16, 2},
    {kDrmFormatYUV420, PixelFormat::i420, Chroma::k420, 8, 3},
    {kDrmFormatYVU420, PixelFormat::yv12, Chroma::k420, 8, 3},
    {kDrmFormatYUV422, PixelFormat::i420, Chroma::k422, 8, 3},
    {kDrmFormatYUV444, PixelFormat::i420, Chroma::k444, 8, 3},
    {kDrmFormatS010, PixelFormat::i420, Chroma::k420, 10, 3},
    {kDrmFormatS210, PixelFormat::i420, Chroma::k422, 10, 3},
    {kDrmFormatS410, PixelFormat::i420, Chroma::k444, 10, 3},
    {kDrmFormatS012, PixelFormat::i420, Chroma::k420, 12, 3},
    {kDrmFormatS212, PixelFormat::i420, Chroma::k422, 12, 3},
    {kDrmFormatS412, PixelFormat::i420, Chroma::k444, 12, 3},
    {kDrmFormatS016, PixelFormat::i420, Chroma::k420, 16, 3},
    {kDrmFormatS216, PixelFormat::i420, Chroma::k422, 16, 3},
    {kDrmFormatS416, PixelFormat::i420, Chroma::k444, 16, 3},
};

std::string supported_formats() {
  std::string s;
  for (const auto& e : kDrmFormats) s += (s.empty() ? "" : ", ") + drm_fourcc_name(e.fourcc);
  return s;
}

}  // namespace

// ---- DRM formats -----------------------------------------------------------------------------------------------

std::string drm_fourcc_name(uint32_t fourcc) {
  std::string s;
  for (int i = 0; i < 4; i++) {
    const char c = char((fourcc >> (8 * i)) & 0xff);
    if (c < 0x20 || c > 0x7e) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%08x", fourcc);
      return buf;
    }
    s += c;
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

Status parse_drm_fourcc(const std::string& name, uint32_t* out) {
  if (name.empty() || name.size() > 4) return {Errc::invalid_argument, "drm-format '" + name + "' is not a fourcc"};
  char c[4] = {' ', ' ', ' ', ' '};
  for (size_t i = 0; i < name.size(); i++) c[i] = name[i];
  *out = drm_fourcc(c[0], c[1], c[2], c[3]);
  return Status::ok();
}

Status drm_format_info(uint32_t drm_format, FormatInfo* out, unsigned* n_planes) {
  for (const auto& e : kDrmFormats) {
    if (e.fourcc != drm_format) continue;
    out->format = e.format;
    out->chroma = e.chroma;
    out->bit_depth = e.bit_depth;
    if (n_planes) *n_planes = e.planes;
    return Status::ok();
  }
  return {Errc::unsupported, "drm-format " + drm_fourcc_name(drm_format) + " is not one the engine reads (" +
                                 supported_formats() + ")"};
}

// ---- Frames ----------------------------------------------------------------------------------------------------

Status check_dmabuf_frame(const DmaBufFrame& frame, const unsigned buffer_of[3], const uint64_t* sizes,
                          unsigned n_buffers, DmaBufLayout* out) {
  DmaBufLayout l;
  unsigned need = 0;
  VMAFX_TRY(drm_format_info(frame.drm_format, &l.format, &need));
  const std::string fmt_name = drm_fourcc_name(frame.drm_format);
  if (frame.modifier != kDrmModLinear) {
    return {Errc::unsupported,
            "modifier " + hex64(frame.modifier) +
                (frame.modifier == kDrmModInvalid ? " (DRM_FORMAT_MOD_INVALID: a layout only the driver knows)"
                                                  : "") +
                " of drm-format " + fmt_name + " is not linear (" + hex64(kDrmModLinear) +
                "): tiled or compressed layouts are not read"};
  }
  if (frame.width == 0 || frame.height == 0)
    return {Errc::invalid_argument, "width/height " + std::to_string(frame.width) + "x" +
                                        std::to_string(frame.height) + " is empty"};
  if (frame.n_planes != need)
    return {Errc::invalid_argument, "n_planes is " + std::to_string(frame.n_planes) + " but drm-format " + fmt_name +
                                        " has " + std::to_string(need)};
  l.width = frame.width;
  l.height = frame.height;
  l.n_planes = need;
  const uint64_t bps = l.format.bit_depth > 8 ? 2 : 1;
  const uint64_t cw = chroma_width_stored(l.format.chroma, frame.width);
  const uint64_t ch = chroma_height_stored(l.format.chroma, frame.height);
  for (unsigned i = 0; i < need; i++) {
    const DmaBufPlane& p = frame.planes[i];
    DmaBufPlaneExtent& e = l.planes[i];
    const std::string field = "plane[" + std::to_string(i) + "]";
    if (i == 0) {
      e.row_bytes = uint64_t(frame.width) * bps;
      e.rows = frame.height;
    } else {
      e.row_bytes = (semi_planar(l.format.format) ? 2 * cw : cw) * bps;
      e.rows = uint32_t(ch);
    }
    if (buffer_of[i] >= n_buffers)
      return {Errc::invalid_argument, field + " has no dma-buf (buffer " + std::to_string(buffer_of[i]) + ")"};
    e.buffer = buffer_of[i];
    e.offset = p.offset;
    e.pitch = p.pitch;
    if (p.pitch < e.row_bytes)
      return {Errc::invalid_argument, field + ".pitch " + std::to_string(p.pitch) + " is smaller than a row of " +
                                          std::to_string(e.row_bytes) + " bytes"};
    if (p.pitch > uint64_t(INT32_MAX))
      return {Errc::invalid_argument, field + ".pitch " + std::to_string(p.pitch) + " is too large"};
    const uint64_t size = sizes[e.buffer];
    if (p.offset >= size)
      return {Errc::out_of_range, field + ".offset " + std::to_string(p.offset) +
                                      " is past the end of its dma-buf of " + std::to_string(size) + " bytes"};
    uint64_t extent = 0;
    if (__builtin_mul_overflow(p.pitch, uint64_t(e.rows - 1), &extent) ||
        __builtin_add_overflow(extent, e.row_bytes, &extent) || extent > size - p.offset) {
      return {Errc::out_of_range, field + ".size: " + std::to_string(e.rows) + " rows of pitch " +
                                      std::to_string(p.pitch) + " from offset " + std::to_string(p.offset) +
                                      " run past the end of its dma-buf of " + std::to_string(size) + " bytes"};
    }
    e.end = p.offset + extent;
  }
  *out = l;
  return Status::ok();
}

PictureView dmabuf_picture_view(const DmaBufLayout& l, const uint8_t* const* base, MemoryKind memory, int device) {
  PictureView v;
  v.memory = memory;
  v.device = memory == MemoryKind::device ? device : -1;
  v.chroma = l.format.chroma;
  v.bit_depth = l.format.bit_depth;
  v.bytes_per_sample = l.format.bit_depth > 8 ? 2 : 1;
  v.shift = l.format.format == PixelFormat::p010 ? 6 : 0;
  v.width = l.width;
  v.height = l.height;
  auto at = [&](unsigned i) { return base[l.planes[i].buffer] + l.planes[i].offset; };
  const uint32_t cw = chroma_width_stored(l.format.chroma, l.width);
  const uint32_t ch = chroma_height_stored(l.format.chroma, l.height);
  v.planes[0] = {at(0), ptrdiff_t(l.planes[0].pitch), l.width, l.height, 1};
  if (l.format.chroma == Chroma::k400) return v;
  if (semi_planar(l.format.format)) {
    const uint8_t* uv = at(1);
    const unsigned bps = v.bytes_per_sample;
    const bool vu = l.format.format == PixelFormat::nv21;
    v.planes[1] = {uv + (vu ? bps : 0), ptrdiff_t(l.planes[1].pitch), cw, ch, 2};
    v.planes[2] = {uv + (vu ? 0 : bps), ptrdiff_t(l.planes[1].pitch), cw, ch, 2};
  } else {
    const bool swap = l.format.format == PixelFormat::yv12;
    v.planes[swap ? 2 : 1] = {at(1), ptrdiff_t(l.planes[1].pitch), cw, ch, 1};
    v.planes[swap ? 1 : 2] = {at(2), ptrdiff_t(l.planes[2].pitch), cw, ch, 1};
  }
  return v;
}

// ---- File descriptors ------------------------------------------------------------------------------------------

DmaBufFd& DmaBufFd::operator=(DmaBufFd&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = std::exchange(o.fd_, -1);
    id_ = std::exchange(o.id_, DmaBufId{});
    is_dmabuf_ = std::exchange(o.is_dmabuf_, false);
  }
  return *this;
}

void DmaBufFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  id_ = {};
  is_dmabuf_ = false;
}

Status DmaBufFd::dup(int fd, const std::string& what, DmaBufFd* out) {
  out->reset();
  if (fd < 0) return {Errc::invalid_argument, what + " is " + std::to_string(fd) + ", not a file descriptor"};
  const int d = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (d < 0) {
    return {errno == EMFILE ? Errc::out_of_memory : Errc::invalid_argument,
            what + " " + std::to_string(fd) + ": F_DUPFD_CLOEXEC failed: " + errno_text(errno)};
  }
  DmaBufFd f;
  f.fd_ = d;
  struct stat st;
  if (::fstat(d, &st) != 0)
    return {Errc::invalid_argument, what + " " + std::to_string(fd) + ": fstat failed: " + errno_text(errno)};
  // The duplicate shares the caller's file position: put it back where the file has one (a dma-buf has none and
  // refuses SEEK_CUR).
  const off_t position = ::lseek(d, 0, SEEK_CUR);
  const off_t end = ::lseek(d, 0, SEEK_END);
  const int end_errno = errno;
  if (position >= 0) (void)::lseek(d, position, SEEK_SET);
  if (end < 0) {
    return {Errc::invalid_argument, what + " " + std::to_string(fd) +
                                        ": lseek(SEEK_END) failed, so it has no size (not a dma-buf): " +
                                        errno_text(end_errno)};
  }
  if (end == 0) return {Errc::invalid_argument, what + " " + std::to_string(fd) + ": the dma-buf is empty (0 bytes)"};
  f.id_ = {uint64_t(st.st_dev), uint64_t(st.st_ino), uint64_t(end)};
  struct statfs sfs;
  f.is_dmabuf_ = ::fstatfs(d, &sfs) == 0 && long(sfs.f_type) == uapi::kDmaBufMagic;
  *out = std::move(f);
  return Status::ok();
}

Status dup_frame_fds(const DmaBufFrame& frame, DmaBufFd fds[3], unsigned buffer_of[3], unsigned* n_buffers) {
  if (frame.n_planes == 0 || frame.n_planes > 3)
    return {Errc::invalid_argument, "n_planes is " + std::to_string(frame.n_planes) + " (1..3)"};
  unsigned n = 0;
  for (unsigned i = 0; i < frame.n_planes; i++) {
    bool shared = false;
    for (unsigned j = 0; j < i && !shared; j++) {
      if (frame.planes[j].fd == frame.planes[i].fd) {
        buffer_of[i] = buffer_of[j];
        shared = true;
      }
    }
    if (shared) continue;
    DmaBufFd f;
    VMAFX_TRY(DmaBufFd::dup(frame.planes[i].fd, "plane[" + std::to_string(i) + "].fd", &f));
    for (unsigned b = 0; b < n && !shared; b++) {
      if (fds[b].id() == f.id()) {  // another fd of the same dma-buf
        buffer_of[i] = b;
        shared = true;
      }
    }
    if (shared) continue;
    buffer_of[i] = n;
    fds[n++] = std::move(f);
  }
  *n_buffers = n;
  return Status::ok();
}

// ---- Fences ----------------------------------------------------------------------------------------------------

Status export_dmabuf_fence(int fd, int* sync_file, std::string* how) {
  *sync_file = -1;
  uapi::ExportSyncFile req{};
  req.flags = uint32_t(uapi::kSyncRead);  // the fences a reader waits for: the producer's writes
  req.fd = -1;
  int rc;
  do {
    rc = ::ioctl(fd, uapi::kIoctlExportSyncFile, &req);
  } while (rc != 0 && (errno == EINTR || errno == EAGAIN));
  if (rc == 0) {
    *sync_file = req.fd;
    if (how) *how = "sync_file (DMA_BUF_IOCTL_EXPORT_SYNC_FILE)";
    return Status::ok();
  }
  if (errno == ENOTTY) {
    if (how) *how = "no DMA_BUF_IOCTL_EXPORT_SYNC_FILE (not a dma-buf, or Linux < 6.0)";
    return Status::ok();
  }
  return {Errc::io_error, "DMA_BUF_IOCTL_EXPORT_SYNC_FILE failed: " + errno_text(errno)};
}

Status poll_fence(int fence_fd, int timeout_ms, FenceWait* out) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto once = [&](int ms, bool* ready) -> Status {
    struct pollfd p {};
    p.fd = fence_fd;
    p.events = POLLIN;
    int rc;
    do {
      rc = ::poll(&p, 1, ms);
    } while (rc < 0 && errno == EINTR);  // a signal restarts the wait; the bound below stays the total
    if (rc < 0) return {Errc::io_error, "poll of a fence failed: " + errno_text(errno)};
    if (rc > 0 && (p.revents & POLLNVAL)) return {Errc::invalid_argument, "fence fd " + std::to_string(fence_fd) + " is not open"};
    *ready = rc > 0 && (p.revents & (POLLIN | POLLERR)) != 0;
    return Status::ok();
  };
  bool ready = false;
  VMAFX_TRY(once(0, &ready));
  if (ready) {
    out->kind = FenceWait::Kind::signalled;
    out->waited_ms = 0;
    return Status::ok();
  }
  for (;;) {
    const double spent = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    const int left = timeout_ms - int(spent);
    if (left <= 0) break;
    VMAFX_TRY(once(left, &ready));
    if (ready) {
      out->kind = FenceWait::Kind::waited;
      out->waited_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      return Status::ok();
    }
  }
  return {Errc::busy, "the producer's fence has not signalled after " + std::to_string(timeout_ms) +
                          " ms: the frame is not read before its writes are done"};
}

Status wait_dmabuf_fence(const DmaBufFd& fd, int timeout_ms, FenceWait* out) {
  *out = {};
  if (!fd.is_dmabuf()) {
    out->how = "not a dma-buf (no implicit fence)";
    return Status::ok();
  }
  int sync_file = -1;
  std::string how;
  VMAFX_TRY(export_dmabuf_fence(fd.fd(), &sync_file, &how));
  Status s;
  if (sync_file >= 0) {
    s = poll_fence(sync_file, timeout_ms, out);
    ::close(sync_file);
  } else {
    // Kernels before 6.0: a dma-buf fd polls readable once its exclusive (write) fence has signalled.
    how = "poll on the dma-buf (" + how + ")";
    s = poll_fence(fd.fd(), timeout_ms, out);
  }
  out->how = how;
  return s;
}

// ---- Host mapping ----------------------------------------------------------------------------------------------

Status dmabuf_sync_read(int fd, bool start, bool* supported) {
  uapi::Sync sync{};
  sync.flags = uapi::kSyncRead | (start ? uapi::kSyncStart : uapi::kSyncEnd);
  int rc;
  do {
    rc = ::ioctl(fd, uapi::kIoctlSync, &sync);
  } while (rc != 0 && (errno == EINTR || errno == EAGAIN));
  if (rc == 0) {
    *supported = true;
    return Status::ok();
  }
  if (errno == ENOTTY) {
    *supported = false;
    return Status::ok();
  }
  *supported = true;
  return {Errc::io_error, std::string("DMA_BUF_IOCTL_SYNC (") + (start ? "SYNC_START" : "SYNC_END") +
                              " | SYNC_READ) failed: " + errno_text(errno)};
}

DmaBufHostFrame::~DmaBufHostFrame() {
  for (unsigned b = 0; b < n_buffers_; b++) {
    if (sync_started_[b]) {
      bool supported = false;
      (void)dmabuf_sync_read(fds_[b].fd(), false, &supported);
    }
    if (maps_[b]) ::munmap(maps_[b], size_t(fds_[b].size()));
  }
}

Status DmaBufHostFrame::map(const DmaBufFrame& frame, const Options& options, std::unique_ptr<DmaBufHostFrame>* out) {
  out->reset();
  std::unique_ptr<DmaBufHostFrame> f(new DmaBufHostFrame());
  unsigned buffer_of[3] = {0, 0, 0};
  VMAFX_TRY(dup_frame_fds(frame, f->fds_, buffer_of, &f->n_buffers_));
  uint64_t sizes[3] = {0, 0, 0};
  for (unsigned b = 0; b < f->n_buffers_; b++) sizes[b] = f->fds_[b].size();
  VMAFX_TRY(check_dmabuf_frame(frame, buffer_of, sizes, f->n_buffers_, &f->layout_));

  for (unsigned b = 0; b < f->n_buffers_; b++) {
    FenceWait w;
    Status s = wait_dmabuf_fence(f->fds_[b], options.fence_timeout_ms, &w);
    if (!s) return s.prepend("dma-buf " + std::to_string(b) + " of the frame");
    if (w.kind == FenceWait::Kind::waited && options.on_warning) {
      options.on_warning("the producer's fence of dma-buf " + std::to_string(b) + " had not signalled; waited " +
                         std::to_string(int(w.waited_ms)) + " ms (" + w.how + ")");
    }
  }

  f->synced_ = true;
  const uint8_t* base[3] = {nullptr, nullptr, nullptr};
  for (unsigned b = 0; b < f->n_buffers_; b++) {
    void* p = ::mmap(nullptr, size_t(f->fds_[b].size()), PROT_READ, MAP_SHARED, f->fds_[b].fd(), 0);
    if (p == MAP_FAILED) {
      return {Errc::unsupported, "mmap of dma-buf " + std::to_string(b) + " (" + std::to_string(f->fds_[b].size()) +
                                     " bytes) for reading failed: " + errno_text(errno)};
    }
    f->maps_[b] = p;
    base[b] = static_cast<const uint8_t*>(p);
    bool supported = false;
    Status s = dmabuf_sync_read(f->fds_[b].fd(), true, &supported);
    if (!s) return s.prepend("dma-buf " + std::to_string(b) + " of the frame");
    f->sync_started_[b] = supported;
    if (!supported) {
      f->synced_ = false;
      f->notes_ += std::string(f->notes_.empty() ? "" : "; ") + "dma-buf " + std::to_string(b) +
                   " refused DMA_BUF_IOCTL_SYNC as not a dma-buf (" +
                   (f->fds_[b].is_dmabuf() ? "dma-buf file system" : "memfd or plain file") +
                   "): read without a CPU-access bracket";
    }
  }
  f->view_ = dmabuf_picture_view(f->layout_, base, MemoryKind::host, -1);
  *out = std::move(f);
  return Status::ok();
}

// ---- Host importer (backend cpu) --------------------------------------------------------------------------------

namespace {

class HostPicture final : public DmaBufPicture {
 public:
  HostPicture(std::unique_ptr<DmaBufHostFrame> frame, bool copied) : frame_(std::move(frame)), copied_(copied) {}
  ~HostPicture() override { release(nullptr); }
  const PictureView& view() const override { return frame_ ? frame_->view() : empty_; }
  bool copied() const override { return copied_; }
  void release(std::function<void()> then) override {
    if (released_) return;
    released_ = true;
    frame_.reset();
    if (then) then();
  }

 private:
  std::unique_ptr<DmaBufHostFrame> frame_;
  bool copied_ = false;
  bool released_ = false;
  PictureView empty_;
};

class HostImporter final : public DmaBufImporter {
 public:
  explicit HostImporter(const DmaBufImporterConfig& cfg) : cfg_(cfg) {}

  Status import(const DmaBufFrame& frame, std::unique_ptr<DmaBufPicture>* out) override {
    VMAFX_TRY(map_dmabuf_picture(frame, cfg_.fence_timeout_ms, cfg_.on_warning, false, out));
    frames_++;
    return Status::ok();
  }
  DmaBufImportStats stats() const override {
    DmaBufImportStats st;
    st.frames = frames_;
    return st;
  }
  std::string copy_reason() const override { return {}; }
  std::string description() const override { return "cpu: dma-bufs mapped on the host and read in place"; }
  Backend backend() const override { return Backend::cpu; }
  Status collect() override { return Status::ok(); }
  Status close() override { return Status::ok(); }

 private:
  DmaBufImporterConfig cfg_;
  std::atomic<uint64_t> frames_{0};
};

}  // namespace

Status map_dmabuf_picture(const DmaBufFrame& frame, int fence_timeout_ms,
                          const std::function<void(const std::string&)>& on_warning, bool copied,
                          std::unique_ptr<DmaBufPicture>* out) {
  DmaBufHostFrame::Options o;
  o.fence_timeout_ms = fence_timeout_ms;
  o.on_warning = on_warning;
  std::unique_ptr<DmaBufHostFrame> f;
  VMAFX_TRY(DmaBufHostFrame::map(frame, o, &f));
  *out = std::make_unique<HostPicture>(std::move(f), copied);
  return Status::ok();
}

// ---- Device importer ----------------------------------------------------------------------------------------------

#if VMAFX_TEST_HOOKS
namespace import_hooks {
namespace {
std::atomic<bool> g_planted_early_release{false};
}  // namespace
void set_planted_early_release(bool on) { g_planted_early_release = on; }
bool planted_early_release() { return g_planted_early_release; }
}  // namespace import_hooks
#endif

namespace {

// Counters and the collector's wake-up, shared by the importer and its pictures (which may outlive it). A release is
// counted in pending_releases from the moment it is deferred on the device until it has run, both under `mutex`, so
// the collector never sees a pending release that the device does not hold (or is not running).
struct ImportShared {
  std::atomic<uint64_t> live_imports{0};
  std::atomic<uint64_t> pending_releases{0};
  std::mutex mutex;
  std::condition_variable cv;  // a release was deferred or has run, or the importer stops
};

// One imported dma-buf: our duplicate of its fd (which keeps the dma-buf alive and is the cache key) and its device
// memory, released when the last holder (cache or frame) lets go.
struct Import {
  DmaBufFd fd;
  DeviceMemory memory;
  std::shared_ptr<ImportShared> shared;
  ~Import() {
    if (memory.release) memory.release();
    shared->live_imports--;
  }
};

class DevicePicture final : public DmaBufPicture {
 public:
  DevicePicture(std::shared_ptr<DmaBufDevice> device, std::shared_ptr<ImportShared> shared,
                std::vector<std::shared_ptr<Import>> imports, const PictureView& view, bool planted_early_release)
      : device_(std::move(device)),
        shared_(std::move(shared)),
        imports_(std::move(imports)),
        view_(view),
        planted_early_release_(planted_early_release) {}
  ~DevicePicture() override { release(nullptr); }

  const PictureView& view() const override { return view_; }
  bool copied() const override { return false; }

  void release(std::function<void()> then) override {
    if (released_) return;
    released_ = true;
    std::vector<std::shared_ptr<Import>> imports = std::move(imports_);
    if (kTestHooks && planted_early_release_) {  // the defect the release-order tests must see
      imports.clear();
      if (then) then();
      return;
    }
    std::shared_ptr<ImportShared> shared = shared_;
    Status s;
    {
      std::lock_guard<std::mutex> lock(shared_->mutex);
      s = device_->defer([imports, then, shared]() mutable {
        imports.clear();
        if (then) then();
        {
          std::lock_guard<std::mutex> done(shared->mutex);
          shared->pending_releases--;
        }
        shared->cv.notify_all();
      });
      if (s) shared_->pending_releases++;
    }
    if (!s) {
      // Only a failed device refuses: nothing runs on it any more, so nothing reads these.
      imports.clear();
      if (then) then();
      return;
    }
    shared_->cv.notify_all();
  }

 private:
  std::shared_ptr<DmaBufDevice> device_;
  std::shared_ptr<ImportShared> shared_;
  std::vector<std::shared_ptr<Import>> imports_;
  PictureView view_;
  bool planted_early_release_ = false;
  bool released_ = false;
};

class DeviceImporter final : public DmaBufImporter {
 public:
  DeviceImporter(const DmaBufImporterConfig& cfg, std::shared_ptr<DmaBufDevice> device)
      : cfg_(cfg), device_(std::move(device)), shared_(std::make_shared<ImportShared>()) {
    refused_ = cfg_.host_reason;
    collector_ = std::thread([this] { collector_loop(); });
  }

  ~DeviceImporter() override {
    (void)close();
    {
      std::lock_guard<std::mutex> lock(shared_->mutex);
      stop_ = true;
    }
    shared_->cv.notify_all();
    collector_.join();
  }

  Status import(const DmaBufFrame& frame, std::unique_ptr<DmaBufPicture>* out) override {
    out->reset();
    std::lock_guard<std::mutex> lock(mutex_);
    (void)device_->collect();  // releases whose work has finished (a failure stays in the device's status)
    DmaBufFd fds[3];
    unsigned buffer_of[3] = {0, 0, 0};
    unsigned n = 0;
    VMAFX_TRY(dup_frame_fds(frame, fds, buffer_of, &n));
    uint64_t sizes[3] = {0, 0, 0};
    for (unsigned b = 0; b < n; b++) sizes[b] = fds[b].size();
    DmaBufLayout layout;
    VMAFX_TRY(check_dmabuf_frame(frame, buffer_of, sizes, n, &layout));

    if (refused_.empty()) {
      for (unsigned b = 0; b < n; b++) VMAFX_TRY(wait_fence(fds[b], b));
      std::vector<std::shared_ptr<Import>> imports;
      const uint8_t* base[3] = {nullptr, nullptr, nullptr};
      Status s;
      for (unsigned b = 0; b < n && s; b++) {
        std::shared_ptr<Import> imp;
        s = find_or_import(std::move(fds[b]), &imp);
        if (s) {
          base[b] = static_cast<const uint8_t*>(imp->memory.data);
          imports.push_back(std::move(imp));
        }
      }
      if (s) {
        frames_++;
        const PictureView view = dmabuf_picture_view(layout, base, MemoryKind::device, device_->index());
        *out = std::make_unique<DevicePicture>(device_, shared_, std::move(imports), view, planted_early_release_);
        return Status::ok();
      }
      if (s.code() != Errc::unsupported) return s;
      refused_ = "the " + device_->vendor() + " runtime cannot import dma-bufs (" + s.message() + ")";
    }

    if (!cfg_.allow_copy) {
      return {Errc::unsupported,
              refused_ + ", and allow-copy=false forbids mapping the frame on the host and uploading it"};
    }
    std::unique_ptr<DmaBufPicture> mapped;
    Status m = map_dmabuf_picture(frame, cfg_.fence_timeout_ms, cfg_.on_warning, true, &mapped);
    if (!m) {
      if (m.code() != Errc::unsupported) return m;
      return {Errc::unsupported, "this dma-buf can neither be imported (" + refused_ + ") nor mapped on the host (" +
                                     m.message() + ")"};
    }
    if (!copy_said_ && cfg_.on_warning)
      cfg_.on_warning("dma-bufs are mapped on the host and uploaded (allow-copy): " + refused_);
    copy_said_ = true;
    frames_++;
    frames_copied_++;
    *out = std::move(mapped);
    return Status::ok();
  }

  DmaBufImportStats stats() const override {
    DmaBufImportStats st;
    st.frames = frames_;
    st.frames_copied = frames_copied_;
    st.imports = imports_;
    st.cache_hits = cache_hits_;
    st.fence_waits = fence_waits_;
    st.live_imports = shared_->live_imports;
    st.pending_releases = shared_->pending_releases;
    return st;
  }

  std::string copy_reason() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return frames_copied_ ? refused_ : std::string();
  }

  std::string description() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string d = "hip: " + device_->name();
    if (refused_.empty()) return d + " (dma-bufs imported as external memory, read in place)";
    return d + " (" + refused_ +
           (cfg_.allow_copy ? "; frames mapped on the host and uploaded)" : "; allow-copy=false)");
  }

  Backend backend() const override { return Backend::hip; }

  Status collect() override { return device_->collect(); }

  Status close() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      cache_.clear();  // imports no frame holds: nothing reads them
    }
    if (shared_->pending_releases == 0) return Status::ok();
    return device_->drain();  // teardown: wait for the GPU, then run the releases behind it
  }

 private:
  Status wait_fence(const DmaBufFd& fd, unsigned b) {
    FenceWait w;
    Status s = wait_dmabuf_fence(fd, cfg_.fence_timeout_ms, &w);
    if (w.kind == FenceWait::Kind::waited || s.code() == Errc::busy) fence_waits_++;
    if (!s) return s.prepend("dma-buf " + std::to_string(b) + " of the frame");
    if (w.kind == FenceWait::Kind::waited && cfg_.on_warning) {
      cfg_.on_warning("the producer's fence of dma-buf " + std::to_string(b) + " had not signalled; waited " +
                      std::to_string(int(w.waited_ms)) + " ms (" + w.how + ")");
    }
    return Status::ok();
  }

  Status find_or_import(DmaBufFd fd, std::shared_ptr<Import>* out) {
    for (auto it = cache_.begin(); it != cache_.end(); ++it) {
      if ((*it)->fd.id() == fd.id()) {
        cache_hits_++;
        *out = *it;
        cache_.splice(cache_.begin(), cache_, it);  // most recently used first
        return Status::ok();
      }
    }
    DeviceMemory memory;
    VMAFX_TRY(device_->import(fd.fd(), fd.size(), &memory));
    auto imp = std::make_shared<Import>();
    imp->fd = std::move(fd);
    imp->memory = std::move(memory);
    imp->shared = shared_;
    shared_->live_imports++;
    imports_++;
    if (cfg_.cache_entries > 0) {
      cache_.push_front(imp);
      while (cache_.size() > cfg_.cache_entries) cache_.pop_back();  // frames in flight keep their own hold
    }
    *out = std::move(imp);
    return Status::ok();
  }

  // Runs releases as their work finishes while any are pending, so GstBuffers go back to their pool even when no
  // further frame comes to call collect() (end of stream, a pool of two buffers). It sleeps: on the condition
  // variable while nothing is pending, in the device's wait on the oldest pending release otherwise; releases that
  // another thread's collect() is running are waited for on the condition variable too (each one notifies).
  void collector_loop() {
    std::unique_lock<std::mutex> lock(shared_->mutex);
    for (;;) {
      shared_->cv.wait(lock, [&] { return stop_ || shared_->pending_releases > 0; });
      if (stop_) return;
      const uint64_t pending = shared_->pending_releases;
      lock.unlock();
      bool none = false;
      Status waited = device_->wait_oldest(&none);
      if (waited) (void)device_->collect();
      lock.lock();
      if (!waited || device_->failed()) {  // nothing will finish any more: wait for the end
        shared_->cv.wait(lock, [&] { return stop_; });
        return;
      }
      if (none) shared_->cv.wait(lock, [&] { return stop_ || shared_->pending_releases < pending; });
    }
  }

  DmaBufImporterConfig cfg_;
  std::shared_ptr<DmaBufDevice> device_;
  std::shared_ptr<ImportShared> shared_;

  mutable std::mutex mutex_;
  std::list<std::shared_ptr<Import>> cache_;
  std::string refused_;  // why frames are not imported (the runtime's first refusal, or host_reason)
  bool copy_said_ = false;
  std::atomic<uint64_t> frames_{0}, frames_copied_{0}, imports_{0}, cache_hits_{0}, fence_waits_{0};

  bool stop_ = false;  // guarded by shared_->mutex
  const bool planted_early_release_ = import_hooks::planted_early_release();
  std::thread collector_;
};

}  // namespace

Status create_dmabuf_device_importer(const DmaBufImporterConfig& config, std::shared_ptr<DmaBufDevice> device,
                                     std::unique_ptr<DmaBufImporter>* out) {
  out->reset();
  if (!device) return {Errc::invalid_argument, "dma-buf importer without a device"};
  if (config.fence_timeout_ms < 0)
    return {Errc::invalid_argument, "fence timeout " + std::to_string(config.fence_timeout_ms) + " ms"};
  *out = std::make_unique<DeviceImporter>(config, std::move(device));
  return Status::ok();
}

Status create_dmabuf_host_importer(const DmaBufImporterConfig& config, std::unique_ptr<DmaBufImporter>* out) {
  out->reset();
  if (config.fence_timeout_ms < 0)
    return {Errc::invalid_argument, "fence timeout " + std::to_string(config.fence_timeout_ms) + " ms"};
  *out = std::make_unique<HostImporter>(config);
  return Status::ok();
}

}  // namespace vmafx
