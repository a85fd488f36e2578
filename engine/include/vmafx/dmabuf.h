// SPDX-License-Identifier: LGPL-2.1-or-later
// dma-buf input, without GStreamer: a frame described as planes on dma-buf fds (DRM fourcc, modifier, offset and
// pitch per plane), checked against the dma-bufs' own sizes, and turned into a picture view the engine reads —
// imported on the GPU (engine/hip/dmabuf_import.*) or mapped on the host.
//
// Every path applies the same checks before anything reads the memory: the format is one we read, the modifier is
// linear, and every plane ends inside its dma-buf (the size the dma-buf reports through lseek(SEEK_END), never the
// producer's). The caller's fds stay the caller's: each is duplicated (F_DUPFD_CLOEXEC) for as long as the engine
// reads it. An implicit fence of the producer is exported as a sync_file and polled before any read; an unsignalled
// fence is waited for with a bounded timeout, and a frame whose fence never signals is refused, never read early.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "vmafx/picture.h"
#include "vmafx/devices.h"
#include "vmafx/status.h"

namespace vmafx {

// ---- DRM formats -----------------------------------------------------------------------------------------------

constexpr uint32_t drm_fourcc(char a, char b, char c, char d) {
  return uint32_t(uint8_t(a)) | uint32_t(uint8_t(b)) << 8 | uint32_t(uint8_t(c)) << 16 | uint32_t(uint8_t(d)) << 24;
}

// The formats the engine reads (values of the kernel's drm_fourcc.h).
inline constexpr uint32_t kDrmFormatR8 = drm_fourcc('R', '8', ' ', ' ');       // gray, 8-bit
inline constexpr uint32_t kDrmFormatR16 = drm_fourcc('R', '1', '6', ' ');      // gray, 16-bit words
inline constexpr uint32_t kDrmFormatNV12 = drm_fourcc('N', 'V', '1', '2');     // Y + CbCr, 4:2:0
inline constexpr uint32_t kDrmFormatNV21 = drm_fourcc('N', 'V', '2', '1');     // Y + CrCb, 4:2:0
inline constexpr uint32_t kDrmFormatP010 = drm_fourcc('P', '0', '1', '0');     // NV12 layout, 10 bits high in words
inline constexpr uint32_t kDrmFormatP016 = drm_fourcc('P', '0', '1', '6');     // NV12 layout, 16-bit words
inline constexpr uint32_t kDrmFormatYUV420 = drm_fourcc('Y', 'U', '1', '2');   // I420: Y, Cb, Cr
inline constexpr uint32_t kDrmFormatYVU420 = drm_fourcc('Y', 'V', '1', '2');   // YV12: Y, Cr, Cb
inline constexpr uint32_t kDrmFormatYUV422 = drm_fourcc('Y', 'U', '1', '6');   // planar 4:2:2, 8-bit
inline constexpr uint32_t kDrmFormatYUV444 = drm_fourcc('Y', 'U', '2', '4');   // planar 4:4:4, 8-bit
// Planar Y, Cb, Cr in 16-bit words, samples in the low bits (what GStreamer calls I420_10LE, I422_12LE, ...).
inline constexpr uint32_t kDrmFormatS010 = drm_fourcc('S', '0', '1', '0');
inline constexpr uint32_t kDrmFormatS210 = drm_fourcc('S', '2', '1', '0');
inline constexpr uint32_t kDrmFormatS410 = drm_fourcc('S', '4', '1', '0');
inline constexpr uint32_t kDrmFormatS012 = drm_fourcc('S', '0', '1', '2');
inline constexpr uint32_t kDrmFormatS212 = drm_fourcc('S', '2', '1', '2');
inline constexpr uint32_t kDrmFormatS412 = drm_fourcc('S', '4', '1', '2');
inline constexpr uint32_t kDrmFormatS016 = drm_fourcc('S', '0', '1', '6');
inline constexpr uint32_t kDrmFormatS216 = drm_fourcc('S', '2', '1', '6');
inline constexpr uint32_t kDrmFormatS416 = drm_fourcc('S', '4', '1', '6');

inline constexpr uint64_t kDrmModLinear = 0;
inline constexpr uint64_t kDrmModInvalid = 0x00ffffffffffffffULL;  // "implicit": the layout is the driver's secret

// "NV12", "S010", "R8"; unprintable codes as 0x%08x.
std::string drm_fourcc_name(uint32_t fourcc);
// Parses a fourcc name as drm_fourcc_name() prints it ("NV12", "R8").
Status parse_drm_fourcc(const std::string& name, uint32_t* out);

// The engine's layout of a DRM format and how many planes (memory planes) it has. Errc::unsupported naming the
// drm-format for a format the engine does not read.
Status drm_format_info(uint32_t drm_format, FormatInfo* out, unsigned* n_planes);

// ---- Frames ----------------------------------------------------------------------------------------------------

struct DmaBufPlane {
  int fd = -1;          // the dma-buf holding this plane; stays the caller's
  uint64_t offset = 0;  // bytes from the start of the dma-buf to the plane's first row
  uint64_t pitch = 0;   // bytes from one row to the next
};

struct DmaBufFrame {
  uint32_t drm_format = 0;
  uint64_t modifier = kDrmModLinear;
  uint32_t width = 0, height = 0;  // luma size
  unsigned n_planes = 0;           // memory planes: 1 (gray), 2 (NV12, P010), 3 (planar)
  DmaBufPlane planes[3];
};

// Where each plane of a checked frame lies.
struct DmaBufPlaneExtent {
  unsigned buffer = 0;     // index of the plane's dma-buf among the frame's distinct dma-bufs
  uint64_t offset = 0;
  uint64_t pitch = 0;
  uint64_t row_bytes = 0;  // bytes of one row the engine reads
  uint32_t rows = 0;
  uint64_t end = 0;        // one past the plane's last byte
};

struct DmaBufLayout {
  FormatInfo format;
  uint32_t width = 0, height = 0;
  unsigned n_planes = 0;
  DmaBufPlaneExtent planes[3];
};

// Checks a frame against the sizes of its dma-bufs: `buffer_of[i]` is the index of plane i's dma-buf and `sizes[b]`
// that dma-buf's size. Refusals name the field: drm-format (Errc::unsupported), modifier (Errc::unsupported),
// n_planes, width/height, plane[i].pitch (Errc::invalid_argument), plane[i].offset or plane[i].size when the plane
// does not end inside its dma-buf (Errc::out_of_range).
Status check_dmabuf_frame(const DmaBufFrame& frame, const unsigned buffer_of[3], const uint64_t* sizes,
                          unsigned n_buffers, DmaBufLayout* out);

// The picture of a checked layout whose dma-buf b starts at base[b] (a host mapping or a device pointer).
PictureView dmabuf_picture_view(const DmaBufLayout& layout, const uint8_t* const* base, MemoryKind memory,
                                int device);

// ---- File descriptors ------------------------------------------------------------------------------------------

// Identity of a dma-buf (the import cache's key): the inode behind the fd, and its size.
struct DmaBufId {
  uint64_t dev = 0, inode = 0, size = 0;
  bool operator==(const DmaBufId& o) const { return dev == o.dev && inode == o.inode && size == o.size; }
  bool operator<(const DmaBufId& o) const {
    return dev != o.dev ? dev < o.dev : inode != o.inode ? inode < o.inode : size < o.size;
  }
};

// Our own duplicate of a caller's fd (F_DUPFD_CLOEXEC), with the dma-buf's size (lseek(SEEK_END); the caller's file
// position is restored where the file has one) and identity. Closes the duplicate on destruction.
class DmaBufFd {
 public:
  DmaBufFd() = default;
  ~DmaBufFd() { reset(); }
  DmaBufFd(DmaBufFd&& o) noexcept { *this = std::move(o); }
  DmaBufFd& operator=(DmaBufFd&& o) noexcept;
  DmaBufFd(const DmaBufFd&) = delete;
  DmaBufFd& operator=(const DmaBufFd&) = delete;

  // Errc::invalid_argument naming `what` (e.g. "plane[1].fd") for a closed fd, a file without a size (pipe, socket)
  // or an empty one.
  static Status dup(int fd, const std::string& what, DmaBufFd* out);

  int fd() const { return fd_; }
  uint64_t size() const { return id_.size; }
  const DmaBufId& id() const { return id_; }
  // True when the kernel says this is a dma-buf (its file system is dmabuf); false for a memfd or a plain file, where
  // the dma-buf ioctls are not available (ENOTTY) and are skipped.
  bool is_dmabuf() const { return is_dmabuf_; }
  void reset();

 private:
  int fd_ = -1;
  DmaBufId id_;
  bool is_dmabuf_ = false;
};

// ---- Fences ----------------------------------------------------------------------------------------------------

struct FenceWait {
  enum class Kind : uint8_t {
    none,       // no implicit fence to wait for (not a dma-buf, or nothing pending)
    signalled,  // a fence was there and had signalled
    waited,     // a fence had not signalled; it did within the timeout
  };
  Kind kind = Kind::none;
  double waited_ms = 0;
  std::string how;  // "sync_file", "poll on the dma-buf", "not a dma-buf", ...
};

// The implicit fence a reader must wait for (the producer's writes), exported as a sync_file
// (DMA_BUF_IOCTL_EXPORT_SYNC_FILE, Linux >= 6.0). *sync_file is -1 with ok when `fd` is not a dma-buf or the kernel
// predates the ioctl (Errc::unsupported is never returned for those: there is nothing to export).
Status export_dmabuf_fence(int fd, int* sync_file, std::string* how);

// Polls a fence fd (a sync_file, or a dma-buf fd itself: POLLIN once its writers are done). Not signalled now: waits
// up to `timeout_ms` (Kind::waited); still not signalled: Errc::busy naming the timeout.
Status poll_fence(int fence_fd, int timeout_ms, FenceWait* out);

// Waits for the producer's implicit fence of a dma-buf: export + poll; kernels without the export ioctl poll the
// dma-buf fd itself. Not a dma-buf: Kind::none at once.
Status wait_dmabuf_fence(const DmaBufFd& fd, int timeout_ms, FenceWait* out);

// ---- Host mapping ----------------------------------------------------------------------------------------------

// CPU access bracket around reads of a mapped dma-buf (DMA_BUF_IOCTL_SYNC, SYNC_START / SYNC_END with SYNC_READ).
// ok with *supported = false on a file that is not a dma-buf (a memfd: ENOTTY); EINTR / EAGAIN are retried.
Status dmabuf_sync_read(int fd, bool start, bool* supported);

// A frame's dma-bufs mapped read-only on the host, inside DMA_BUF_IOCTL_SYNC (read) brackets, as a host picture.
// Checks first (check_dmabuf_frame), then waits for the fences, then maps. Unmaps and closes its fds when destroyed.
class DmaBufHostFrame {
 public:
  struct Options {
    int fence_timeout_ms = 1000;
    std::function<void(const std::string&)> on_warning;  // an unsignalled fence that had to be waited for
  };

  ~DmaBufHostFrame();
  DmaBufHostFrame(const DmaBufHostFrame&) = delete;
  DmaBufHostFrame& operator=(const DmaBufHostFrame&) = delete;

  // Errc::unsupported naming the plane and errno when a dma-buf cannot be mapped (mmap of a CUDA-exported dma-buf
  // fails, for one).
  static Status map(const DmaBufFrame& frame, const Options& options, std::unique_ptr<DmaBufHostFrame>* out);

  const PictureView& view() const { return view_; }
  const DmaBufLayout& layout() const { return layout_; }
  unsigned buffers() const { return n_buffers_; }
  // True when every mapping is read inside DMA_BUF_IOCTL_SYNC brackets; false when a file refused them as "not a
  // dma-buf" (a memfd: ENOTTY) and is read without (notes() says which).
  bool synced() const { return synced_; }
  const std::string& notes() const { return notes_; }

 private:
  DmaBufHostFrame() = default;
  DmaBufFd fds_[3];
  void* maps_[3] = {nullptr, nullptr, nullptr};
  bool sync_started_[3] = {false, false, false};
  unsigned n_buffers_ = 0;
  bool synced_ = false;
  DmaBufLayout layout_;
  PictureView view_;
  std::string notes_;
};

// Distinct dma-bufs of a frame: planes on the same fd number, or on fds of the same dma-buf (same inode), share one.
// Fills buffer_of[plane] and dups one fd per distinct dma-buf into fds[].
Status dup_frame_fds(const DmaBufFrame& frame, DmaBufFd fds[3], unsigned buffer_of[3], unsigned* n_buffers);

// ---- Importer: the one entry point for the element ---------------------------------------------------------------

// A dma-buf frame the engine can read (device import or host mapping), holding what keeps it readable.
class DmaBufPicture {
 public:
  virtual ~DmaBufPicture() = default;  // an unreleased picture releases itself (then nothing more runs)
  virtual const PictureView& view() const = 0;
  // True when the frame is a host mapping the GPU engine uploads (the import was impossible and allow-copy let the
  // copy happen); false for a device import, and for a host mapping the CPU backend reads in place.
  virtual bool copied() const = 0;
  // Gives the memory back once nothing reads it: a device import behind an event recorded now on the library stream
  // (the import and its mapping are released, then `then` runs, in a later import or close once the GPU has finished
  // reading; never a device-wide wait); a host mapping at once. `then` (may be empty) is where the caller drops its
  // own hold (the GstBuffer). Runs once; later calls do nothing.
  virtual void release(std::function<void()> then) = 0;
};

// A host mapping of a frame (DmaBufHostFrame) as a picture; `copied` marks one a GPU engine uploads.
Status map_dmabuf_picture(const DmaBufFrame& frame, int fence_timeout_ms,
                          const std::function<void(const std::string&)>& on_warning, bool copied,
                          std::unique_ptr<DmaBufPicture>* out);

struct DmaBufImporterConfig {
  // cpu: host mapping, read in place by the CPU engine. hip: import on the device, with the host mapping as the
  // fallback where allow_copy. auto_select: hip when a device opens, else cpu.
  Backend backend = Backend::cpu;
  Vendor vendor = Vendor::auto_select;
  int device_id = -1;
  bool allow_copy = true;
  int fence_timeout_ms = 1000;
  // Imports kept for buffers a pool recycles, keyed by (inode, size). 64 covers a decoder pool of 10 frames with a
  // dma-buf per plane for both inputs (measured on the H200: 16 thrashed with 36 buffers in rotation).
  unsigned cache_entries = 64;
  // Said once per cause: the reason frames are copied, an unsignalled fence that had to be waited for.
  std::function<void(const std::string&)> on_warning;
  // hip: when set, nothing is imported and every frame takes the host-mapping path for this reason (e.g. the
  // scorer runs features on the CPU that cannot read device memory), under the same allow_copy rule.
  std::string host_reason;
};

struct DmaBufImportStats {
  uint64_t frames = 0;         // frames imported
  uint64_t frames_copied = 0;  // frames mapped on the host for the GPU engine to upload
  uint64_t imports = 0;        // dma-bufs imported as external memory
  uint64_t cache_hits = 0;     // dma-bufs found in the cache
  uint64_t fence_waits = 0;    // fences that had not signalled at the first poll
  uint64_t live_imports = 0;   // external memories alive now (cache + frames in flight)
  uint64_t pending_releases = 0;  // releases queued behind the GPU
};

class DmaBufImporter {
 public:
  virtual ~DmaBufImporter() = default;

  static Status create(const DmaBufImporterConfig& config, std::unique_ptr<DmaBufImporter>* out);

  // Checks, waits for fences, imports (or maps) a frame. The frame's fds are duplicated; the caller may close its
  // own at once. A refused import with allow_copy false is Errc::unsupported naming the runtime's reason; a dma-buf
  // that can neither be imported nor mapped is Errc::unsupported naming both reasons.
  virtual Status import(const DmaBufFrame& frame, std::unique_ptr<DmaBufPicture>* out) = 0;

  virtual DmaBufImportStats stats() const = 0;
  // Why frames are copied instead of imported (the runtime's refusal); empty while every frame was imported.
  virtual std::string copy_reason() const = 0;
  // "hip: nvidia NVIDIA H200 (import refused: ...)", "cpu: host mapping".
  virtual std::string description() const = 0;
  virtual Backend backend() const = 0;

  // Runs the releases whose GPU work has finished (import() does this too).
  virtual Status collect() = 0;
  // Waits for every release still behind the GPU, runs them, empties the cache. Teardown only.
  virtual Status close() = 0;
};

// ---- Device seam -------------------------------------------------------------------------------------------------

// Device memory standing for one whole dma-buf: `data` is its byte 0 on the device; `release` frees the mapping and
// the import, called once nothing reads it any more.
struct DeviceMemory {
  void* data = nullptr;
  std::function<void()> release;
};

// What a GPU runtime gives the device importer. engine/hip implements it on the library stream
// (hip/dmabuf_import.h); tests on machines without a GPU implement it with host memory and a queue they complete.
class DmaBufDevice {
 public:
  virtual ~DmaBufDevice() = default;
  virtual int index() const = 0;
  virtual std::string name() const = 0;    // "nvidia NVIDIA H200"
  virtual std::string vendor() const = 0;  // "nvidia", "amd": the runtime named in refusals
  // Imports a whole dma-buf (`fd` is the importer's duplicate; `size` the dma-buf's own). Errc::unsupported when the
  // runtime declines it (the importer then falls back); anything else is a device error.
  virtual Status import(int fd, uint64_t size, DeviceMemory* out) = 0;
  // Runs `release` once the work queued on the device so far has finished, without waiting for it here.
  virtual Status defer(std::function<void()> release) = 0;
  // Runs the deferred releases whose work has finished.
  virtual Status collect() = 0;
  // Blocks, without spinning, until the work queued before the oldest deferred release not yet run has finished (a
  // collect() after it runs that release); runs nothing itself. *none: there was no such release (every one has run,
  // or another thread's collect() is running them now). The importer's collector thread waits here.
  virtual Status wait_oldest(bool* none) = 0;
  // Teardown: waits for the queued work, then collects.
  virtual Status drain() = 0;
  virtual bool failed() const = 0;
};

// The importer of Backend::hip over a device: checks, fences, imports whole dma-bufs (planes on one dma-buf share an
// import; a cache keyed by (inode, size) keeps `cache_entries` of them), device pictures released behind the device's
// queued work, a collector thread that sleeps on the oldest pending release (DmaBufDevice::wait_oldest) and runs
// releases as their work finishes while any are pending. The runtime's first refusal is
// remembered and later frames go straight to the host mapping (allow_copy) or fail naming it.
Status create_dmabuf_device_importer(const DmaBufImporterConfig& config, std::shared_ptr<DmaBufDevice> device,
                                     std::unique_ptr<DmaBufImporter>* out);
// The importer of Backend::cpu: every dma-buf mapped on the host (checks and fences as above).
Status create_dmabuf_host_importer(const DmaBufImporterConfig& config, std::unique_ptr<DmaBufImporter>* out);

}  // namespace vmafx
