// SPDX-License-Identifier: LGPL-2.1-or-later
// dma-buf input on machines without a GPU (CI). This machine kind has no dma-buf producer (/dev/udmabuf and
// /dev/dma_heap are absent, checked and printed by DmaBufEnvironment.ReportsProducers), so the frames live in memfds:
// a memfd behaves like a dma-buf for everything but the dma-buf ioctls (DMA_BUF_IOCTL_SYNC and
// DMA_BUF_IOCTL_EXPORT_SYNC_FILE fail with ENOTTY), which the tests check is handled. The device importer runs over a
// fake device (host memory, a queue of "device work" the test completes), so its cache, fallback, allow-copy and
// release order are exercised here; tests/gpu/test_hip_dmabuf.cpp runs the same importer on a real device.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "support.h"
#include "import/test_hooks.h"
#include "test_dmabuf_frames.h"
#include "vmafx/dmabuf.h"
#include "vmafx/scorer.h"

namespace vmafx::test {

// gtest prints test parameters; without this it dumps Pair's bytes, padding included.
void PrintTo(const Pair& p, std::ostream* os) { *os << p.prefix << "_" << p.distorted; }

namespace {

// ---- memfd frames -------------------------------------------------------------------------------------------------

// An fd we own, closed at scope end.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
};

Fd memfd_with(const std::vector<uint8_t>& bytes) {
  const int fd = ::memfd_create("vmafx-test-dmabuf", MFD_CLOEXEC);
  if (fd < 0) return Fd();
  if (!bytes.empty() && ::pwrite(fd, bytes.data(), bytes.size(), 0) != ssize_t(bytes.size())) {
    ::close(fd);
    return Fd();
  }
  return Fd(fd);
}

// A frame laid out (test_dmabuf_frames.h) in memfds.
struct MemfdFrame {
  std::vector<Fd> fds;
  DmaBufFrame frame;
};

Status make_memfd_frame(const PictureView& src, const Layout& layout, MemfdFrame* out) {
  LaidOutFrame lf;
  VMAFX_TRY(lay_out_frame(src, layout, &lf));
  MemfdFrame f;
  for (const auto& b : lf.buffers) {
    f.fds.push_back(memfd_with(b));
    if (f.fds.back().fd < 0) return {Errc::io_error, "memfd_create failed"};
  }
  f.frame = lf.frame;
  for (unsigned i = 0; i < f.frame.n_planes; i++) f.frame.planes[i].fd = f.fds[lf.buffer_of[i]].fd;
  *out = std::move(f);
  return Status::ok();
}

// ---- scoring ------------------------------------------------------------------------------------------------------

struct Scores {
  std::vector<std::string> names;
  std::vector<FrameScore> frames;
};

// Scores a pair given as pictures from `get(i, &ref, &dist, &release)`.
using GetPair = std::function<Status(size_t i, PictureView* ref, PictureView* dist, std::function<void()>* release)>;

Status score(const Pair& pair, size_t frames, const GetPair& get, Scores* out) {
  ScorerConfig cfg = scorer_config("vmaf_v0.6.1", {"psnr"});
  cfg.backend = Backend::cpu;
  VideoGeometry g{pair.width, pair.height, uint8_t(pair.bpc), Chroma::k420};
  FrameLog log;
  std::unique_ptr<Scorer> scorer;
  VMAFX_TRY(make_scorer(cfg, g, &log, &scorer));
  for (size_t i = 0; i < frames; i++) {
    PictureView r, d;
    std::function<void()> release;
    VMAFX_TRY(get(i, &r, &d, &release));
    VMAFX_TRY(scorer->submit(frame_pair(r, d, int64_t(i), i, release)));
  }
  VMAFX_TRY(scorer->flush());
  out->frames = log.frames();
  out->names = scorer->score_names();
  return Status::ok();
}

// Exact equality of every score (bit for bit; NaN equals NaN). Returns the number of values compared.
size_t expect_identical(const Scores& want, const Scores& got, const std::string& what) {
  EXPECT_EQ(want.names, got.names) << what;
  EXPECT_EQ(want.frames.size(), got.frames.size()) << what;
  size_t n = 0;
  for (size_t k = 0; k < std::min(want.frames.size(), got.frames.size()); k++) {
    const auto& a = want.frames[k].values;
    const auto& b = got.frames[k].values;
    EXPECT_EQ(a.size(), b.size());
    for (size_t j = 0; j < std::min(a.size(), b.size()); j++, n++) {
      if (std::isnan(a[j]) && std::isnan(b[j])) continue;
      if (std::memcmp(&a[j], &b[j], sizeof(double)) != 0) {
        ADD_FAILURE() << what << ": frame " << k << " " << want.names[j] << " system memory " << a[j] << " dma-buf "
                      << b[j];
        return n;
      }
    }
  }
  return n;
}

// ---- a fake device: host memory standing for device memory, and a queue of device work the test completes -------

class FakeDevice final : public DmaBufDevice {
 public:
  int index() const override { return 7; }
  std::string name() const override { return "fake FakeGPU"; }
  std::string vendor() const override { return "fake"; }

  Status import(int fd, uint64_t size, DeviceMemory* out) override {
    import_calls++;
    if (refuse) return {Errc::unsupported, "fakeImportExternalMemory failed: FAKE_ERROR_UNKNOWN"};
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return {Errc::device_error, "fake mmap failed"};
    live++;
    out->data = p;
    out->release = [this, p, size] {
      ::munmap(p, size);
      live--;
      freed++;
    };
    return Status::ok();
  }
  Status defer(std::function<void()> release) override {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back({nullptr, std::move(release)});
    return Status::ok();
  }
  Status collect() override {
    collects++;
    std::vector<std::function<void()>> run;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      run.swap(finished_);
    }
    for (auto& r : run) r();
    return Status::ok();
  }
  // Sleeps until the oldest release not yet collected can run: at once when one has finished (the test advanced the
  // device), else until advance() finishes one; *none when there is no release to wait for.
  Status wait_oldest(bool* none) override {
    std::unique_lock<std::mutex> lock(mutex_);
    auto queued_release = [&] {
      for (const auto& item : queue_)
        if (item.release) return true;
      return false;
    };
    *none = finished_.empty() && !queued_release();
    if (*none) return Status::ok();
    waits++;
    advanced_.wait(lock, [&] { return !finished_.empty() || !queued_release(); });
    return Status::ok();
  }
  Status drain() override {
    advance();
    return collect();
  }
  bool failed() const override { return false; }

  // Device work: a read of `bytes` at `src` into `dst`, run when the test advances the device.
  void enqueue_read(const void* src, size_t bytes, uint8_t* dst) {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back({[src, bytes, dst] { std::memcpy(dst, src, bytes); }, nullptr});
  }
  // The device finishes everything queued so far, in order; releases behind it become collectable.
  void advance() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& item : queue_) {
        if (item.work) item.work();
        if (item.release) finished_.push_back(std::move(item.release));
      }
      queue_.clear();
    }
    advanced_.notify_all();
  }
  size_t queued() {
    std::lock_guard<std::mutex> lock(mutex_);
    return queue_.size();
  }

  std::atomic<int> import_calls{0}, live{0}, freed{0};
  std::atomic<int> waits{0};     // wait_oldest calls that had a release to wait for
  std::atomic<int> collects{0};  // collect calls
  bool refuse = false;

 private:
  struct Item {
    std::function<void()> work;
    std::function<void()> release;
  };
  std::mutex mutex_;
  std::condition_variable advanced_;
  std::deque<Item> queue_;
  std::vector<std::function<void()>> finished_;
};

bool wait_until(const std::function<bool()>& cond, int ms = 2000) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!cond()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// A small synthetic I420 picture with a recognisable pattern.
struct Synthetic {
  std::vector<uint8_t> bytes;
  PictureView view;
  Synthetic(uint32_t w, uint32_t h, unsigned bpc = 8, uint32_t seed = 1) {
    FormatInfo f;
    (void)parse_pixel_format("420", bpc, &f);
    PlaneLayout l[3];
    size_t size = 0;
    const unsigned n = packed_layout(f, w, h, l, &size);
    bytes.resize(size);
    uint32_t s = seed * 2654435761u + 1;
    const unsigned bps = bpc > 8 ? 2 : 1;
    for (size_t i = 0; i + bps <= size; i += bps) {
      s = s * 1664525u + 1013904223u;
      write_sample(&bytes[i], bps, (s >> 8) & ((1u << bpc) - 1));
    }
    (void)make_picture_view(f, w, h, bytes.data(), size, l, n, &view);
  }
};

// ---- DRM formats and checks ---------------------------------------------------------------------------------------

TEST(DmaBufFormats, EveryListedFormatMapsAndOthersAreNamed) {
  struct Want {
    uint32_t fourcc;
    PixelFormat format;
    Chroma chroma;
    unsigned bits, planes;
  } want[] = {
      {kDrmFormatNV12, PixelFormat::nv12, Chroma::k420, 8, 2},   {kDrmFormatP010, PixelFormat::p010, Chroma::k420, 10, 2},
      {kDrmFormatYUV420, PixelFormat::i420, Chroma::k420, 8, 3}, {kDrmFormatYVU420, PixelFormat::yv12, Chroma::k420, 8, 3},
      {kDrmFormatNV21, PixelFormat::nv21, Chroma::k420, 8, 2},   {kDrmFormatYUV422, PixelFormat::i420, Chroma::k422, 8, 3},
      {kDrmFormatYUV444, PixelFormat::i420, Chroma::k444, 8, 3}, {kDrmFormatR8, PixelFormat::gray, Chroma::k400, 8, 1},
      {kDrmFormatR16, PixelFormat::gray, Chroma::k400, 16, 1},   {kDrmFormatP016, PixelFormat::p016, Chroma::k420, 16, 2},
      {kDrmFormatS010, PixelFormat::i420, Chroma::k420, 10, 3},  {kDrmFormatS412, PixelFormat::i420, Chroma::k444, 12, 3},
  };
  for (const auto& w : want) {
    FormatInfo f;
    unsigned planes = 0;
    ASSERT_TRUE(drm_format_info(w.fourcc, &f, &planes).is_ok()) << drm_fourcc_name(w.fourcc);
    EXPECT_EQ(f.format, w.format) << drm_fourcc_name(w.fourcc);
    EXPECT_EQ(f.chroma, w.chroma) << drm_fourcc_name(w.fourcc);
    EXPECT_EQ(f.bit_depth, w.bits) << drm_fourcc_name(w.fourcc);
    EXPECT_EQ(planes, w.planes) << drm_fourcc_name(w.fourcc);
  }
  EXPECT_EQ(drm_fourcc_name(kDrmFormatNV12), "NV12");
  EXPECT_EQ(drm_fourcc_name(kDrmFormatR8), "R8");
  uint32_t c = 0;
  ASSERT_TRUE(parse_drm_fourcc("R8", &c).is_ok());
  EXPECT_EQ(c, kDrmFormatR8);
  // The kernel's values (drm_fourcc.h), spelled out.
  EXPECT_EQ(kDrmFormatNV12, 0x3231564eu);
  EXPECT_EQ(kDrmFormatP010, 0x30313050u);
  EXPECT_EQ(kDrmFormatYUV420, 0x32315559u);
  EXPECT_EQ(kDrmFormatS010, 0x30313053u);
  FormatInfo f;
  Status s = drm_format_info(drm_fourcc('Y', 'U', 'Y', 'V'), &f, nullptr);
  EXPECT_EQ(s.code(), Errc::unsupported);
  EXPECT_NE(s.message().find("drm-format YUYV"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("NV12"), std::string::npos) << "lists what is read: " << s.message();
}

DmaBufFrame nv12_frame(uint32_t w, uint32_t h, uint64_t pitch) {
  DmaBufFrame f;
  f.drm_format = kDrmFormatNV12;
  f.width = w;
  f.height = h;
  f.n_planes = 2;
  f.planes[0] = {3, 0, pitch};
  f.planes[1] = {3, pitch * h, pitch};
  return f;
}

TEST(DmaBufCheck, RefusalsNameTheField) {
  const unsigned one[3] = {0, 0, 0};
  const uint64_t exact = 64 * 32 + 64 * 16;
  DmaBufLayout l;
  ASSERT_TRUE(check_dmabuf_frame(nv12_frame(64, 32, 64), one, &exact, 1, &l).is_ok());
  EXPECT_EQ(l.planes[1].end, exact);
  EXPECT_EQ(l.planes[1].row_bytes, 64u);

  auto expect = [&](const DmaBufFrame& f, uint64_t size, Errc code, const char* field) {
    Status s = check_dmabuf_frame(f, one, &size, 1, &l);
    EXPECT_EQ(s.code(), code) << field << ": " << s.to_string();
    EXPECT_NE(s.message().find(field), std::string::npos) << "names " << field << ": " << s.message();
  };
  expect(nv12_frame(64, 32, 64), exact - 1, Errc::out_of_range, "plane[1].size");  // one byte short
  DmaBufFrame f = nv12_frame(64, 32, 64);
  f.planes[1].offset = exact;
  expect(f, exact, Errc::out_of_range, "plane[1].offset");
  f = nv12_frame(64, 32, 64);
  f.planes[0].pitch = 63;
  expect(f, exact, Errc::invalid_argument, "plane[0].pitch");
  f = nv12_frame(64, 32, 64);
  f.planes[1].pitch = uint64_t(1) << 62;  // would overflow pitch * rows
  expect(f, exact, Errc::invalid_argument, "plane[1].pitch");
  f = nv12_frame(64, 32, 64);
  f.planes[0].pitch = 1u << 30;
  expect(f, exact, Errc::out_of_range, "plane[0].size");
  f = nv12_frame(64, 32, 64);
  f.modifier = 0x0100000000000001ULL;  // I915_FORMAT_MOD_X_TILED
  expect(f, exact, Errc::unsupported, "modifier 0x0100000000000001");
  f.modifier = kDrmModInvalid;
  expect(f, exact, Errc::unsupported, "DRM_FORMAT_MOD_INVALID");
  f = nv12_frame(64, 32, 64);
  f.drm_format = drm_fourcc('A', 'R', '2', '4');
  expect(f, exact, Errc::unsupported, "drm-format AR24");
  f = nv12_frame(64, 32, 64);
  f.n_planes = 3;
  expect(f, exact, Errc::invalid_argument, "n_planes");
  f = nv12_frame(0, 32, 64);
  expect(f, exact, Errc::invalid_argument, "width/height");
  // Odd sizes: the stored chroma rounds up (33x17 NV12: 17 rows of 34 bytes... 9 chroma rows).
  f = nv12_frame(33, 17, 34);
  f.planes[1].offset = 34 * 17;
  const uint64_t odd = 34 * 17 + 34 * 9;
  ASSERT_TRUE(check_dmabuf_frame(f, one, &odd, 1, &l).is_ok());
  expect(f, odd - 1, Errc::out_of_range, "plane[1].size");
}

// ---- fds -----------------------------------------------------------------------------------------------------------

TEST(DmaBufEnvironment, ReportsProducers) {
  const bool udmabuf = ::access("/dev/udmabuf", F_OK) == 0;
  const bool heap = ::access("/dev/dma_heap", F_OK) == 0;
  std::printf("[ info     ] /dev/udmabuf %s, /dev/dma_heap %s: frames in these tests are memfds%s\n",
              udmabuf ? "present" : "absent", heap ? "present" : "absent",
              udmabuf || heap ? " (a real producer exists here but these tests do not use it)" : "");
  SUCCEED();
}

TEST(DmaBufFd, DuplicatesWithCloexecSizesAndKeepsTheCallersPosition) {
  Fd m = memfd_with(std::vector<uint8_t>(12345, 7));
  ASSERT_GE(m.fd, 0);
  ASSERT_EQ(::lseek(m.fd, 100, SEEK_SET), 100);
  DmaBufFd d;
  ASSERT_TRUE(DmaBufFd::dup(m.fd, "plane[0].fd", &d).is_ok());
  EXPECT_NE(d.fd(), m.fd);
  EXPECT_TRUE(::fcntl(d.fd(), F_GETFD) & FD_CLOEXEC) << "duplicated with F_DUPFD_CLOEXEC";
  EXPECT_EQ(d.size(), 12345u) << "size from lseek(SEEK_END)";
  EXPECT_EQ(::lseek(m.fd, 0, SEEK_CUR), 100) << "the caller's file position is restored";
  EXPECT_FALSE(d.is_dmabuf()) << "a memfd is not a dma-buf";
  struct stat st;
  ASSERT_EQ(::fstat(m.fd, &st), 0);
  EXPECT_EQ(d.id().inode, uint64_t(st.st_ino));
  // The duplicate outlives the caller's fd.
  const int dup_fd = d.fd();
  m = Fd();
  EXPECT_EQ(::fcntl(dup_fd, F_GETFD) >= 0, true);
  d.reset();
  EXPECT_EQ(::fcntl(dup_fd, F_GETFD), -1) << "closed on reset";

  Status s = DmaBufFd::dup(-1, "plane[2].fd", &d);
  EXPECT_EQ(s.code(), Errc::invalid_argument);
  EXPECT_NE(s.message().find("plane[2].fd"), std::string::npos) << s.message();
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  s = DmaBufFd::dup(p[0], "plane[1].fd", &d);
  EXPECT_EQ(s.code(), Errc::invalid_argument) << "a pipe has no size";
  EXPECT_NE(s.message().find("lseek(SEEK_END)"), std::string::npos) << s.message();
  ::close(p[0]);
  ::close(p[1]);
  Fd empty = memfd_with({});
  s = DmaBufFd::dup(empty.fd, "plane[0].fd", &d);
  EXPECT_EQ(s.code(), Errc::invalid_argument);
  EXPECT_NE(s.message().find("empty"), std::string::npos) << s.message();
}

TEST(DmaBufFd, PlanesOnOneDmaBufShareOneBuffer) {
  Fd a = memfd_with(std::vector<uint8_t>(4096, 1));
  Fd b = memfd_with(std::vector<uint8_t>(4096, 2));
  Fd a2(::fcntl(a.fd, F_DUPFD_CLOEXEC, 0));  // another fd of the same memfd, as GStreamer gives per memory
  DmaBufFrame f;
  f.n_planes = 3;
  f.planes[0].fd = a.fd;
  f.planes[1].fd = a2.fd;
  f.planes[2].fd = b.fd;
  DmaBufFd fds[3];
  unsigned of[3], n = 0;
  ASSERT_TRUE(dup_frame_fds(f, fds, of, &n).is_ok());
  EXPECT_EQ(n, 2u) << "same inode, one buffer";
  EXPECT_EQ(of[0], of[1]);
  EXPECT_NE(of[0], of[2]);
  f.planes[2].fd = a.fd;
  ASSERT_TRUE(dup_frame_fds(f, fds, of, &n).is_ok());
  EXPECT_EQ(n, 1u);
}

// ---- fences --------------------------------------------------------------------------------------------------------

TEST(DmaBufFence, MemfdHasNoImplicitFence) {
  Fd m = memfd_with(std::vector<uint8_t>(64, 0));
  int sync_file = 123;
  std::string how;
  ASSERT_TRUE(export_dmabuf_fence(m.fd, &sync_file, &how).is_ok());
  EXPECT_EQ(sync_file, -1) << "DMA_BUF_IOCTL_EXPORT_SYNC_FILE is ENOTTY on a memfd";
  EXPECT_NE(how.find("EXPORT_SYNC_FILE"), std::string::npos) << how;
  DmaBufFd d;
  ASSERT_TRUE(DmaBufFd::dup(m.fd, "fd", &d).is_ok());
  FenceWait w;
  ASSERT_TRUE(wait_dmabuf_fence(d, 10, &w).is_ok());
  EXPECT_EQ(w.kind, FenceWait::Kind::none);
  std::printf("[ info     ] memfd fence: %s; export: %s\n", w.how.c_str(), how.c_str());
}

// A pipe stands for a sync_file: readable = signalled.
TEST(DmaBufFence, UnsignalledFenceIsWaitedForWithABoundAndNeverPassedEarly) {
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  FenceWait w;
  const auto t0 = std::chrono::steady_clock::now();
  Status s = poll_fence(p[0], 60, &w);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(s.code(), Errc::busy) << s.to_string();
  EXPECT_NE(s.message().find("60 ms"), std::string::npos) << s.message();
  EXPECT_GE(ms, 59.0) << "waited the whole bound";
  EXPECT_LT(ms, 1000.0) << "and not much longer";

  std::thread producer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    (void)!::write(p[1], "x", 1);
  });
  s = poll_fence(p[0], 2000, &w);
  producer.join();
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(w.kind, FenceWait::Kind::waited);
  EXPECT_GE(w.waited_ms, 20.0);
  std::printf("[ info     ] fence signalled after %.1f ms of waiting\n", w.waited_ms);

  s = poll_fence(p[0], 0, &w);  // already signalled
  ASSERT_TRUE(s.is_ok());
  EXPECT_EQ(w.kind, FenceWait::Kind::signalled);
  ::close(p[0]);
  ::close(p[1]);
  s = poll_fence(p[0], 0, &w);
  EXPECT_FALSE(s.is_ok()) << "a closed fence fd is an error, not a signal";
}

// ---- host mapping --------------------------------------------------------------------------------------------------

TEST(DmaBufHost, MemfdRefusesTheSyncIoctlAndIsStillMapped) {
  Synthetic pic(37, 21);
  MemfdFrame mf;
  Layout layout;
  layout.drm_format = kDrmFormatNV12;
  layout.first_offset = 4096 + 3;
  layout.pitch_pad = 27;
  ASSERT_TRUE(make_memfd_frame(pic.view, layout, &mf).is_ok());
  bool supported = true;
  ASSERT_TRUE(dmabuf_sync_read(mf.fds[0].fd, true, &supported).is_ok());
  EXPECT_FALSE(supported) << "DMA_BUF_IOCTL_SYNC fails with ENOTTY on a memfd";

  std::unique_ptr<DmaBufHostFrame> hf;
  Status s = DmaBufHostFrame::map(mf.frame, {}, &hf);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_FALSE(hf->synced());
  EXPECT_NE(hf->notes().find("memfd"), std::string::npos) << hf->notes();
  const PictureView& v = hf->view();
  EXPECT_EQ(v.memory, MemoryKind::host);
  for (uint32_t y = 0; y < 21; y++)
    for (uint32_t x = 0; x < 37; x++) ASSERT_EQ(read_sample(v.planes[0], 1, x, y), read_sample(pic.view.planes[0], 1, x, y));
  for (unsigned c = 1; c <= 2; c++)
    for (uint32_t y = 0; y < 11; y++)
      for (uint32_t x = 0; x < 19; x++)
        ASSERT_EQ(read_sample(v.planes[c], 1, x, y), read_sample(pic.view.planes[c], 1, x, y)) << c << " " << x << "," << y;
  std::printf("[ info     ] host mapping of a memfd: %s\n", hf->notes().c_str());
}

TEST(DmaBufHost, ChecksHoldBeforeAnythingIsMapped) {
  Synthetic pic(32, 16);
  MemfdFrame mf;
  ASSERT_TRUE(make_memfd_frame(pic.view, Layout{}, &mf).is_ok());
  std::unique_ptr<DmaBufHostFrame> hf;
  DmaBufFrame f = mf.frame;
  f.planes[2].offset += 1;  // the last plane now ends one byte past the memfd
  Status s = DmaBufHostFrame::map(f, {}, &hf);
  EXPECT_EQ(s.code(), Errc::out_of_range);
  EXPECT_NE(s.message().find("plane[2].size"), std::string::npos) << s.message();
  f = mf.frame;
  f.modifier = 1;
  s = DmaBufHostFrame::map(f, {}, &hf);
  EXPECT_EQ(s.code(), Errc::unsupported);
  EXPECT_NE(s.message().find("modifier"), std::string::npos) << s.message();
  // A write-only fd of the same memfd: it has a size but cannot be mapped for reading.
  Fd wo(::open(("/proc/self/fd/" + std::to_string(mf.fds[0].fd)).c_str(), O_WRONLY | O_CLOEXEC));
  ASSERT_GE(wo.fd, 0);
  f = mf.frame;
  for (unsigned i = 0; i < 3; i++) f.planes[i].fd = wo.fd;
  s = DmaBufHostFrame::map(f, {}, &hf);
  EXPECT_EQ(s.code(), Errc::unsupported);
  EXPECT_NE(s.message().find("mmap"), std::string::npos) << s.message();
}

// ---- scores through dma-bufs equal system memory -----------------------------------------------------------------

class DmaBufScores : public ::testing::TestWithParam<Pair> {};

TEST_P(DmaBufScores, CpuBackendEqualsSystemMemory) {
  const Pair& pair = GetParam();
  if (!file_exists(pair.ref_path())) FAIL() << "oracle clip missing: " << pair.ref_path();
  FormatInfo fmt;
  ASSERT_TRUE(parse_pixel_format("420", pair.bpc, &fmt).is_ok());
  YuvClip ref, dist;
  ASSERT_TRUE(ref.open(pair.ref_path(), pair.width, pair.height, fmt).is_ok());
  ASSERT_TRUE(dist.open(pair.dist_path(), pair.width, pair.height, fmt).is_ok());
  const size_t frames = ref.frames();

  Scores sys;
  Status s = score(pair, frames, [&](size_t i, PictureView* r, PictureView* d, std::function<void()>*) {
    *r = ref.frame(i);
    *d = dist.frame(i);
    return Status::ok();
  }, &sys);
  ASSERT_TRUE(s.is_ok()) << s.to_string();

  // Layouts: planar in one fd with an offset and padded pitches; planar, one fd per plane; semi-planar (NV12 / P010)
  // with the chroma plane after a gap; swapped chroma order for 8-bit (YV12, NV21).
  std::vector<Layout> layouts;
  const bool ten = pair.bpc > 8;
  layouts.push_back({ten ? kDrmFormatS010 : kDrmFormatYUV420, 4096, 64, 0, false});
  layouts.push_back({ten ? kDrmFormatS010 : kDrmFormatYUV420, 0, 0, 0, true});
  layouts.push_back({ten ? kDrmFormatP010 : kDrmFormatNV12, 256, 2, 333, false});
  if (!ten && pair.width % 2 == 1) {  // odd sizes: g5 (and c)
    layouts.push_back({kDrmFormatYVU420, 13, 7, 5, false});
    layouts.push_back({kDrmFormatNV21, 0, 1, 0, true});
  }

  const int fds_before = count_open_fds();
  for (const Layout& layout : layouts) {
    DmaBufImporterConfig cfg;
    cfg.backend = Backend::cpu;
    std::unique_ptr<DmaBufImporter> importer;
    ASSERT_TRUE(DmaBufImporter::create(cfg, &importer).is_ok());
    std::atomic<size_t> released{0};
    Scores got;
    s = score(pair, frames, [&](size_t i, PictureView* r, PictureView* d, std::function<void()>* release) {
      MemfdFrame rf, df;
      VMAFX_TRY(make_memfd_frame(ref.frame(i), layout, &rf));
      VMAFX_TRY(make_memfd_frame(dist.frame(i), layout, &df));
      std::unique_ptr<DmaBufPicture> rp, dp;
      VMAFX_TRY(importer->import(rf.frame, &rp));
      VMAFX_TRY(importer->import(df.frame, &dp));
      // The memfds (rf, df) close here: the importer holds its own duplicates.
      std::shared_ptr<DmaBufPicture> r_hold(std::move(rp)), d_hold(std::move(dp));
      *r = r_hold->view();
      *d = d_hold->view();
      *release = [r_hold, d_hold, &released] {
        r_hold->release(nullptr);
        d_hold->release([&released] { released++; });
      };
      return Status::ok();
    }, &got);
    ASSERT_TRUE(s.is_ok()) << layout.name() << ": " << s.to_string();
    const size_t n = expect_identical(sys, got, pair.prefix + "_" + pair.distorted + " " + layout.name());
    EXPECT_EQ(released.load(), frames) << "every frame released";
    EXPECT_EQ(importer->stats().frames, 2 * frames);
    EXPECT_EQ(importer->stats().frames_copied, 0u) << "the CPU reads host mappings in place";
    std::printf("[ info     ] %s_%s via %s: %zu frames, %zu scores identical to system memory\n", pair.prefix.c_str(),
                pair.distorted.c_str(), layout.name().c_str(), got.frames.size(), n);
  }
  EXPECT_EQ(count_open_fds(), fds_before) << "no fd leaked";

  // The system-memory path itself against libvmaf's JSON (the oracle suite checks it in full): max |diff| of vmaf.
  Oracle oracle;
  ASSERT_TRUE(load_oracle(pair.oracle_path("vmaf_v0.6.1"), &oracle).is_ok()) << pair.oracle_path("vmaf_v0.6.1");
  if (oracle.frames.size() == sys.frames.size()) {
    const auto it = std::find(sys.names.begin(), sys.names.end(), "vmaf");
    ASSERT_NE(it, sys.names.end());
    double max_diff = 0;
    for (size_t k = 0; k < sys.frames.size(); k++)
      max_diff = std::max(max_diff, std::abs(sys.frames[k].values[size_t(it - sys.names.begin())] -
                                             oracle.frames[k].at("vmaf")));
    std::printf("[ info     ] %s_%s: max |vmaf - libvmaf JSON| = %.3g over %zu frames\n", pair.prefix.c_str(),
                pair.distorted.c_str(), max_diff, sys.frames.size());
    EXPECT_LT(max_diff, 1e-4);
  }
}

std::string pair_name(const ::testing::TestParamInfo<Pair>& info) {
  std::string n = info.param.prefix + "_" + info.param.distorted;
  for (auto& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

// The 4:2:0 pairs (the dma-buf layouts above are 4:2:0): g1, g2 (10-bit), g5 (odd), and the public pairs present.
std::vector<Pair> pairs_420() {
  std::vector<Pair> v;
  for (const Pair& p : oracle_pairs())
    if (p.chroma == Chroma::k420) v.push_back(p);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Pairs, DmaBufScores, ::testing::ValuesIn(pairs_420()), pair_name);

// ---- the device importer over a fake device -----------------------------------------------------------------------

struct FakeImporter {
  std::shared_ptr<FakeDevice> device = std::make_shared<FakeDevice>();
  std::unique_ptr<DmaBufImporter> importer;
  std::vector<std::string> warnings;
  std::mutex warnings_mutex;
  explicit FakeImporter(DmaBufImporterConfig cfg = {}, bool refuse = false) {
    device->refuse = refuse;
    cfg.backend = Backend::hip;
    cfg.on_warning = [this](const std::string& w) {
      std::lock_guard<std::mutex> lock(warnings_mutex);
      warnings.push_back(w);
    };
    Status s = create_dmabuf_device_importer(cfg, device, &importer);
    EXPECT_TRUE(s.is_ok()) << s.to_string();
  }
};

TEST(DmaBufDeviceImport, PlanesAreTheWholeImportAtTheirOffsetsAndShareIt) {
  FakeImporter fi;
  Synthetic pic(50, 30);
  MemfdFrame mf;
  ASSERT_TRUE(make_memfd_frame(pic.view, {kDrmFormatNV12, 8192 + 64, 14, 100, false}, &mf).is_ok());
  std::unique_ptr<DmaBufPicture> p;
  Status s = fi.importer->import(mf.frame, &p);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  const PictureView& v = p->view();
  EXPECT_EQ(v.memory, MemoryKind::device);
  EXPECT_EQ(v.device, 7);
  EXPECT_FALSE(p->copied());
  EXPECT_EQ(fi.device->import_calls.load(), 1) << "two planes on one dma-buf: one import";
  EXPECT_EQ(v.planes[0].stride, ptrdiff_t(mf.frame.planes[0].pitch));
  EXPECT_EQ(v.planes[1].data - v.planes[0].data, ptrdiff_t(mf.frame.planes[1].offset - mf.frame.planes[0].offset));
  EXPECT_EQ(v.planes[2].data, v.planes[1].data + 1);
  EXPECT_EQ(v.planes[1].step, 2);
  // The "device" memory is the memfd mapped whole: the samples are there, at the offsets.
  for (uint32_t y = 0; y < 30; y += 7)
    for (uint32_t x = 0; x < 50; x += 3) ASSERT_EQ(read_sample(v.planes[0], 1, x, y), read_sample(pic.view.planes[0], 1, x, y));
  EXPECT_EQ(fi.importer->stats().live_imports, 1u);
  p->release(nullptr);
  fi.device->advance();
  ASSERT_TRUE(wait_until([&] { return fi.importer->stats().pending_releases == 0; }));
  EXPECT_EQ(fi.importer->stats().live_imports, 1u) << "the cache keeps the import for the pool's next round";
  ASSERT_TRUE(fi.importer->close().is_ok());
  EXPECT_EQ(fi.importer->stats().live_imports, 0u);
  EXPECT_EQ(fi.device->live.load(), 0);
}

TEST(DmaBufDeviceImport, CacheIsKeyedByInodeAndSize) {
  DmaBufImporterConfig cfg;
  cfg.cache_entries = 2;
  FakeImporter fi(cfg);
  Synthetic pic(16, 8);
  MemfdFrame a, b, c;
  ASSERT_TRUE(make_memfd_frame(pic.view, Layout{}, &a).is_ok());
  ASSERT_TRUE(make_memfd_frame(pic.view, Layout{}, &b).is_ok());
  ASSERT_TRUE(make_memfd_frame(pic.view, Layout{}, &c).is_ok());
  auto import = [&](const DmaBufFrame& f) {
    std::unique_ptr<DmaBufPicture> p;
    Status s = fi.importer->import(f, &p);
    EXPECT_TRUE(s.is_ok()) << s.to_string();
    if (p) p->release(nullptr);
  };
  import(a.frame);
  // The same memfd through another fd number (a pool handing the buffer out again, duplicated): a cache hit.
  Fd again(::fcntl(a.fds[0].fd, F_DUPFD_CLOEXEC, 0));
  DmaBufFrame a2 = a.frame;
  for (auto& p : a2.planes) p.fd = again.fd;
  import(a2);
  EXPECT_EQ(fi.importer->stats().imports, 1u);
  EXPECT_EQ(fi.importer->stats().cache_hits, 1u);
  import(b.frame);
  EXPECT_EQ(fi.importer->stats().imports, 2u);
  // Same inode, new size: a different key.
  ASSERT_EQ(::ftruncate(a.fds[0].fd, 1 << 16), 0);
  import(a.frame);
  EXPECT_EQ(fi.importer->stats().imports, 3u) << "(inode, size) changed";
  import(c.frame);  // evicts the least recently used (b)
  import(b.frame);
  EXPECT_EQ(fi.importer->stats().imports, 5u) << "evicted entry imported again";
  fi.device->advance();
  ASSERT_TRUE(wait_until([&] { return fi.importer->stats().pending_releases == 0; }));
  EXPECT_EQ(fi.importer->stats().live_imports, 2u) << "cache of 2";
  EXPECT_EQ(fi.device->freed.load(), 3) << "evicted imports freed once no frame held them";
}

TEST(DmaBufDeviceImport, ReleaseWaitsForTheDeviceAndAPlantedEarlyReleaseIsSeen) {
  // Each attempt: the device reads plane 0 (queued, not yet run); the frame is released with a `then` that plays the
  // producer reusing its buffer (it overwrites the memfd); then the device runs. Correct order: the read saw the
  // frame. Planted early release: `then` ran before the read, which saw the overwrite. Up to 3 attempts each.
  for (bool planted : {false, true}) {
    int differed = 0;
    const int attempts = 3;
    for (int attempt = 0; attempt < attempts; attempt++) {
      DmaBufImporterConfig cfg;
      cfg.cache_entries = 1;  // the cache keeps the mapping: what the early release lets through is the producer
      const import_hooks::EarlyReleasePlanted plant(planted);  // read when the importer is created
      FakeImporter fi(cfg);
      Synthetic pic(64, 16, 8, 3 + attempt);
      MemfdFrame mf;
      ASSERT_TRUE(make_memfd_frame(pic.view, Layout{}, &mf).is_ok());
      std::unique_ptr<DmaBufPicture> p;
      ASSERT_TRUE(fi.importer->import(mf.frame, &p).is_ok());
      std::vector<uint8_t> seen(64 * 16, 0);
      fi.device->enqueue_read(p->view().planes[0].data, seen.size(), seen.data());
      std::atomic<bool> then_ran{false};
      const int producer_fd = mf.fds[0].fd;
      p->release([&then_ran, producer_fd] {
        const std::vector<uint8_t> poison(64 * 16, 0xee);
        (void)!::pwrite(producer_fd, poison.data(), poison.size(), 0);
        then_ran = true;
      });
      if (!planted) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        EXPECT_FALSE(then_ran) << "released while the device had not read yet";
      }
      fi.device->advance();
      ASSERT_TRUE(wait_until([&] { return then_ran.load(); })) << "the collector ran the release";
      const bool same = std::memcmp(seen.data(), pic.view.planes[0].data, seen.size()) == 0;
      std::printf("[ info     ] %s release, attempt %d: the device read %s\n", planted ? "planted early" : "deferred",
                  attempt + 1, same ? "the frame" : "the producer's overwrite");
      if (!same) differed++;
      if (!planted && same) break;
    }
    if (planted) {
      EXPECT_EQ(differed, attempts) << "the planted early release must be seen in every attempt";
    } else {
      EXPECT_LT(differed, attempts) << "the deferred release let the device read the frame";
    }
  }
}

TEST(DmaBufDeviceImport, RefusedImportFallsBackToTheHostMappingAndSaysSoOnce) {
  FakeImporter fi({}, /*refuse=*/true);
  Synthetic pic(40, 20);
  MemfdFrame mf;
  ASSERT_TRUE(make_memfd_frame(pic.view, {kDrmFormatYUV420, 100, 3, 0, true}, &mf).is_ok());
  for (int i = 0; i < 3; i++) {
    std::unique_ptr<DmaBufPicture> p;
    Status s = fi.importer->import(mf.frame, &p);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    EXPECT_TRUE(p->copied());
    EXPECT_EQ(p->view().memory, MemoryKind::host);
    EXPECT_EQ(read_sample(p->view().planes[2], 1, 19, 9), read_sample(pic.view.planes[2], 1, 19, 9));
  }
  const auto st = fi.importer->stats();
  EXPECT_EQ(st.frames_copied, 3u);
  EXPECT_EQ(fi.device->import_calls.load(), 1) << "the refusal is remembered";
  ASSERT_EQ(fi.warnings.size(), 1u) << "said once";
  EXPECT_NE(fi.warnings[0].find("FAKE_ERROR_UNKNOWN"), std::string::npos) << fi.warnings[0];
  EXPECT_NE(fi.importer->copy_reason().find("FAKE_ERROR_UNKNOWN"), std::string::npos);
  EXPECT_NE(fi.importer->description().find("cannot import"), std::string::npos) << fi.importer->description();
  std::printf("[ info     ] fallback said once: %s\n", fi.warnings[0].c_str());
}

TEST(DmaBufDeviceImport, HostReasonTakesTheFallbackWithoutImporting) {
  DmaBufImporterConfig cfg;
  cfg.host_reason = "float_ssim runs on the CPU";
  FakeImporter fi(cfg);
  Synthetic pic(40, 20);
  MemfdFrame mf;
  ASSERT_TRUE(make_memfd_frame(pic.view, Layout{}, &mf).is_ok());
  std::unique_ptr<DmaBufPicture> p;
  ASSERT_TRUE(fi.importer->import(mf.frame, &p).is_ok());
  EXPECT_TRUE(p->copied());
  EXPECT_EQ(fi.device->import_calls.load(), 0);
  ASSERT_EQ(fi.warnings.size(), 1u);
  EXPECT_NE(fi.warnings[0].find("float_ssim runs on the CPU"), std::string::npos) << fi.warnings[0];
  cfg.allow_copy = false;
  FakeImporter strict(cfg);
  Status s = strict.importer->import(mf.frame, &p);
  EXPECT_EQ(s.code(), Errc::unsupported);
  EXPECT_NE(s.message().find("float_ssim runs on the CPU"), std::string::npos) << s.message();
}

TEST(DmaBufDeviceImport, AllowCopyFalseRefusesNamingTheReason) {
  DmaBufImporterConfig cfg;
  cfg.allow_copy = false;
  FakeImporter fi(cfg, /*refuse=*/true);
  Synthetic pic(40, 20);
  MemfdFrame mf;
  ASSERT_TRUE(make_memfd_frame(pic.view, Layout{}, &mf).is_ok());
  std::unique_ptr<DmaBufPicture> p;
  Status s = fi.importer->import(mf.frame, &p);
  EXPECT_EQ(s.code(), Errc::unsupported);
  EXPECT_NE(s.message().find("FAKE_ERROR_UNKNOWN"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("allow-copy=false"), std::string::npos) << s.message();
  EXPECT_FALSE(p);
  EXPECT_EQ(fi.importer->stats().frames_copied, 0u);
}

TEST(DmaBufDeviceImport, NeitherImportableNorMappableIsAClearError) {
  FakeImporter fi({}, /*refuse=*/true);
  Synthetic pic(40, 20);
  MemfdFrame mf;
  ASSERT_TRUE(make_memfd_frame(pic.view, Layout{}, &mf).is_ok());
  Fd wo(::open(("/proc/self/fd/" + std::to_string(mf.fds[0].fd)).c_str(), O_WRONLY | O_CLOEXEC));
  DmaBufFrame f = mf.frame;
  for (unsigned i = 0; i < 3; i++) f.planes[i].fd = wo.fd;
  std::unique_ptr<DmaBufPicture> p;
  Status s = fi.importer->import(f, &p);
  EXPECT_EQ(s.code(), Errc::unsupported);
  EXPECT_NE(s.message().find("neither be imported"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("FAKE_ERROR_UNKNOWN"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("mmap"), std::string::npos) << s.message();
  std::printf("[ info     ] %s\n", s.message().c_str());
}

TEST(DmaBufDeviceImport, ChecksHoldOnEveryPathBeforeAnyImport) {
  Synthetic pic(32, 16);
  MemfdFrame mf;
  ASSERT_TRUE(make_memfd_frame(pic.view, Layout{}, &mf).is_ok());
  DmaBufFrame past = mf.frame;
  past.planes[1].offset = 1 << 20;
  DmaBufFrame tiled = mf.frame;
  tiled.modifier = 0x0100000000000002ULL;
  DmaBufFrame yuyv = mf.frame;
  yuyv.drm_format = drm_fourcc('Y', 'U', 'Y', 'V');
  for (int path = 0; path < 3; path++) {  // device import, device fallback (refused), host (cpu backend)
    std::unique_ptr<FakeImporter> fi;
    std::unique_ptr<DmaBufImporter> host;
    DmaBufImporter* importer;
    if (path < 2) {
      fi = std::make_unique<FakeImporter>(DmaBufImporterConfig{}, path == 1);
      importer = fi->importer.get();
    } else {
      ASSERT_TRUE(DmaBufImporter::create({}, &host).is_ok());
      importer = host.get();
    }
    std::unique_ptr<DmaBufPicture> p;
    if (path == 1) {
      ASSERT_TRUE(importer->import(mf.frame, &p).is_ok());  // the refusal is now remembered
    }
    p.reset();
    const int calls = fi ? fi->device->import_calls.load() : 0;
    Status s = importer->import(past, &p);
    EXPECT_EQ(s.code(), Errc::out_of_range) << path;
    EXPECT_NE(s.message().find("plane[1].offset"), std::string::npos) << s.message();
    s = importer->import(tiled, &p);
    EXPECT_EQ(s.code(), Errc::unsupported) << path;
    EXPECT_NE(s.message().find("modifier"), std::string::npos) << s.message();
    s = importer->import(yuyv, &p);
    EXPECT_EQ(s.code(), Errc::unsupported) << path;
    EXPECT_NE(s.message().find("drm-format"), std::string::npos) << s.message();
    if (fi) {
      EXPECT_EQ(fi->device->import_calls.load(), calls) << "nothing reached the runtime";
    }
  }
}

TEST(DmaBufDeviceImport, CollectorReleasesWithoutAnotherFrame) {
  FakeImporter fi;
  Synthetic pic(16, 16);
  MemfdFrame mf;
  ASSERT_TRUE(make_memfd_frame(pic.view, Layout{}, &mf).is_ok());
  std::unique_ptr<DmaBufPicture> p;
  ASSERT_TRUE(fi.importer->import(mf.frame, &p).is_ok());
  std::atomic<bool> released{false};
  p->release([&] { released = true; });
  EXPECT_EQ(fi.importer->stats().pending_releases, 1u);
  fi.device->advance();  // the device finishes; nobody imports or collects any more
  EXPECT_TRUE(wait_until([&] { return released.load(); })) << "a pool of buffers is not starved at end of stream";
}

// The collector sleeps on the oldest pending release (DmaBufDevice::wait_oldest) instead of polling: while the device
// has not finished, it calls collect() no more. A polling collector (one collect() every 250 us, as before) makes
// dozens of calls in the pause below; the pause only gives such a loop time to show, the assertion counts calls.
TEST(DmaBufDeviceImport, CollectorSleepsOnThePendingReleaseInsteadOfPolling) {
  FakeImporter fi;
  Synthetic pic(16, 16);
  MemfdFrame mf;
  ASSERT_TRUE(make_memfd_frame(pic.view, Layout{}, &mf).is_ok());
  std::unique_ptr<DmaBufPicture> p;
  ASSERT_TRUE(fi.importer->import(mf.frame, &p).is_ok());
  std::atomic<bool> released{false};
  p->release([&] { released = true; });
  ASSERT_TRUE(wait_until([&] { return fi.device->waits.load() >= 1; })) << "the collector waits on the release";
  const int collects = fi.device->collects.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(fi.device->collects.load(), collects) << "collect() called while the device had finished nothing";
  EXPECT_EQ(fi.device->waits.load(), 1) << "one wait for one pending release";
  EXPECT_FALSE(released.load());
  fi.device->advance();
  EXPECT_TRUE(wait_until([&] { return released.load(); })) << "the collector ran the release once it could";
  EXPECT_EQ(fi.importer->stats().pending_releases, 0u);
}

TEST(DmaBufDeviceImport, NoFdOrImportLeakedOverManyFrames) {
  const int before = count_open_fds();
  {
    DmaBufImporterConfig cfg;
    cfg.cache_entries = 4;
    FakeImporter fi(cfg);
    FakeImporter refused({}, true);
    std::vector<MemfdFrame> pool(6);
    Synthetic pic(24, 12);
    for (auto& f : pool) ASSERT_TRUE(make_memfd_frame(pic.view, {kDrmFormatNV12, 0, 0, 0, false}, &f).is_ok());
    for (int i = 0; i < 1000; i++) {
      std::unique_ptr<DmaBufPicture> p, q;
      // First a pool smaller than the cache (hits), then a bigger one (imports come and go).
      ASSERT_TRUE(fi.importer->import(pool[i < 500 ? i % 3 : i % pool.size()].frame, &p).is_ok());
      ASSERT_TRUE(refused.importer->import(pool[(i * 7) % pool.size()].frame, &q).is_ok());
      p->release(nullptr);
      q->release(nullptr);
      if (i % 3 == 0) fi.device->advance();
    }
    fi.device->advance();
    ASSERT_TRUE(wait_until([&] { return fi.importer->stats().pending_releases == 0; }));
    const auto st = fi.importer->stats();
    std::printf("[ info     ] 1000 frames: %llu imports, %llu cache hits, %llu live; fallback: %llu copied\n",
                (unsigned long long)st.imports, (unsigned long long)st.cache_hits,
                (unsigned long long)st.live_imports, (unsigned long long)refused.importer->stats().frames_copied);
    EXPECT_LE(st.live_imports, 4u);
    EXPECT_GE(st.cache_hits, 497u) << "the small pool is imported once per buffer";
    ASSERT_TRUE(fi.importer->close().is_ok());
    EXPECT_EQ(fi.importer->stats().live_imports, 0u);
    EXPECT_EQ(fi.device->live.load(), 0) << "every import freed";
  }
  EXPECT_EQ(count_open_fds(), before) << "no fd leaked";
}

TEST(DmaBufImporterCreate, HipWithoutADeviceIsACleanStatusAndAutoMapsOnTheHost) {
  DmaBufImporterConfig cfg;
  cfg.backend = Backend::hip;
  std::unique_ptr<DmaBufImporter> importer;
  Status s = DmaBufImporter::create(cfg, &importer);
  if (s.is_ok()) GTEST_SKIP() << "this machine has a GPU: " << importer->description();
  EXPECT_EQ(s.code(), Errc::device_unavailable) << s.to_string();
  std::vector<std::string> warnings;
  cfg.backend = Backend::auto_select;
  cfg.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  ASSERT_TRUE(DmaBufImporter::create(cfg, &importer).is_ok());
  EXPECT_EQ(importer->backend(), Backend::cpu);
  EXPECT_EQ(warnings.size(), 1u);
}

}  // namespace
}  // namespace vmafx::test
