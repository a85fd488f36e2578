// SPDX-License-Identifier: LGPL-2.1-or-later
// dma-bufs on a GPU machine. Device memory is exported as dma-bufs with the runtime's own export
// (cuMemGetHandleForAddressRange / hipMemGetHandleForAddressRange, DMA_BUF_FD; resolved with dlsym here, the engine's
// dispatch table has no export entry) and fed to the engine's importer:
//   - what the runtime does with them, as measured: duplicated and sized, the fence export, the runtime's import
//     (NVIDIA: refused with CUDA_ERROR_UNKNOWN), the host mapping (NVIDIA: mmap fails), and what the importer makes of
//     that with allow-copy true and false (fallback, or a clear error naming both reasons);
//   - the range / modifier / format refusals on real dma-bufs, before any runtime call;
//   - scores of the oracle clips through dma-buf frames equal to system memory, bit for bit: on the zero-copy path
//     (the import stood in by a lookup of the exported memory where the runtime refuses dma-bufs, so the cache,
//     offsets, pitches and device-view reading still run on the device) and on the host-mapping fallback (memfds);
//   - the release order on the library stream, with a planted early release that must be seen;
//   - no fd and no device memory leaked over 1,000 frames.
// Skips (exit 77) without a device.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "assert_ok.h"
#include "gpu_device.h"
#include "hip/dmabuf_import.h"
#include "import/test_hooks.h"
#include "support.h"
#include "../test_dmabuf_frames.h"
#include "vmafx/dmabuf.h"
#include "vmafx/scorer.h"

namespace vmafx::hip {
namespace {

using vmafx::test::count_open_fds;
using vmafx::test::Layout;
using vmafx::test::LaidOutFrame;

// ---- the runtime's dma-buf export and memory query (not in the dispatch table) -----------------------------------

struct Extras {
  int (*get_handle)(void* handle, unsigned long long dptr, size_t size, int type, unsigned long long flags) = nullptr;
  int (*mem_info)(size_t* free_bytes, size_t* total_bytes) = nullptr;
  std::string why;  // what is missing
};

Extras load_extras(const Device& dev) {
  Extras e;
  const bool nv = dev.api().vendor == Vendor::nvidia;
  void* lib = ::dlopen(dev.api().library.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (!lib) {
    e.why = "dlopen(" + dev.api().library + ", RTLD_NOLOAD) failed";
    return e;
  }
  const char* export_sym = nv ? "cuMemGetHandleForAddressRange" : "hipMemGetHandleForAddressRange";
  const char* info_sym = nv ? "cuMemGetInfo_v2" : "hipMemGetInfo";
  e.get_handle = reinterpret_cast<decltype(e.get_handle)>(::dlsym(lib, export_sym));
  e.mem_info = reinterpret_cast<decltype(e.mem_info)>(::dlsym(lib, info_sym));
  if (!e.get_handle) e.why += std::string(export_sym) + " not exported by " + dev.api().library + "; ";
  if (!e.mem_info) e.why += std::string(info_sym) + " not exported by " + dev.api().library;
  return e;
}

constexpr int kRangeHandleDmaBufFd = 1;  // CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, hipMemRangeHandleTypeDmaBufFd
constexpr size_t kExportGranule = size_t(2) << 20;

size_t free_device_memory(const Device& dev, const Extras& x) {
  ContextScope scope(dev);
  size_t free_bytes = 0, total = 0;
  if (!x.mem_info || x.mem_info(&free_bytes, &total) != 0) return 0;
  return free_bytes;
}

// Device memory exported as a dma-buf. The fd is ours (closed in the destructor).
struct Exported {
  DeviceBuffer memory;
  int fd = -1;
  uint64_t inode = 0;
  size_t size = 0;
  ~Exported() {
    if (fd >= 0) ::close(fd);
  }
};

Status export_dmabuf(const std::shared_ptr<Device>& dev, const Extras& x, size_t bytes, Exported* out) {
  if (!x.get_handle) return {Errc::unsupported, x.why};
  out->size = (bytes + kExportGranule - 1) / kExportGranule * kExportGranule;
  VMAFX_TRY(DeviceBuffer::create(dev, out->size, &out->memory));
  ContextScope scope(*dev);
  VMAFX_TRY(scope.status());
  int fd = -1;
  const int rc = x.get_handle(&fd, static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(out->memory.data())),
                              out->size, kRangeHandleDmaBufFd, 0);
  if (rc != 0) return {Errc::unsupported, "dma-buf export failed: " + dev->api().describe(rc)};
  out->fd = fd;
  struct stat st;
  if (::fstat(fd, &st) != 0) return {Errc::io_error, "fstat of the exported dma-buf failed"};
  out->inode = uint64_t(st.st_ino);
  return Status::ok();
}

// The test's own producer stream: writes into exported memory the way a producer on the same GPU would, finished
// before the frame is handed over (its "fence" has signalled).
struct Producer {
  std::shared_ptr<Device> dev;
  StreamHandle stream = nullptr;
  explicit Producer(std::shared_ptr<Device> d) : dev(std::move(d)) {
    ContextScope scope(*dev);
    if (dev->api().stream_create.fn(&stream) != 0) stream = nullptr;
  }
  ~Producer() {
    if (stream) {
      ContextScope scope(*dev);
      dev->api().stream_destroy.fn(stream);
    }
  }
  Status write(void* dst, const void* src, size_t bytes) {
    ContextScope scope(*dev);
    VMAFX_HIP_CHECK_API(dev->api(), copy_h2d_async, dst, src, bytes, stream);
    VMAFX_HIP_CHECK_API(dev->api(), stream_synchronize, stream);
    return Status::ok();
  }
  Status fill(void* dst, uint8_t value, size_t bytes) {
    ContextScope scope(*dev);
    VMAFX_HIP_CHECK_API(dev->api(), memset_d8_async, dst, value, bytes, stream);
    VMAFX_HIP_CHECK_API(dev->api(), stream_synchronize, stream);
    return Status::ok();
  }
};

// Stands in for a runtime that imports dma-bufs: the exported memory, found by the dma-buf's inode.
struct LookupImport {
  std::mutex mutex;
  std::map<uint64_t, std::pair<void*, size_t>> by_inode;
  std::atomic<int> imports{0}, releases{0};
  void add(const Exported& e) {
    std::lock_guard<std::mutex> lock(mutex);
    by_inode[e.inode] = {e.memory.data(), e.size};
  }
  DmaBufImportFn fn() {
    return [this](const std::shared_ptr<Device>&, int fd, uint64_t size, DeviceMemory* out) -> Status {
      struct stat st;
      if (::fstat(fd, &st) != 0) return {Errc::invalid_argument, "fstat failed"};
      std::lock_guard<std::mutex> lock(mutex);
      auto it = by_inode.find(uint64_t(st.st_ino));
      if (it == by_inode.end()) return {Errc::unsupported, "lookup import: not an exported dma-buf of this test"};
      if (size > it->second.second) return {Errc::out_of_range, "lookup import: size past the export"};
      imports++;
      out->data = it->second.first;
      out->release = [this] { releases++; };
      return Status::ok();
    };
  }
};

std::string vendor_of(const Device& d) { return vendor_name(d.info().vendor); }

// ---- measured behaviour of the runtime ----------------------------------------------------------------------------

TEST(HipDmaBuf, ExportedDmaBufIsDuplicatedSizedAndFenced) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Extras x = load_extras(*dev);
  Exported e;
  ASSERT_OK(export_dmabuf(dev, x, 3 << 20, &e));
  DmaBufFd d;
  ASSERT_OK(DmaBufFd::dup(e.fd, "plane[0].fd", &d));
  std::printf("[ measured ] %s: exported %zu bytes as dma-buf fd %d: lseek(SEEK_END) %llu, dmabuf fs %s, inode %llu\n",
              dev->info().name.c_str(), e.size, e.fd, (unsigned long long)d.size(), d.is_dmabuf() ? "yes" : "no",
              (unsigned long long)d.id().inode);
  EXPECT_EQ(d.size(), e.size);
  EXPECT_TRUE(d.is_dmabuf());
  EXPECT_TRUE(::fcntl(d.fd(), F_GETFD) & FD_CLOEXEC);
  int sync_file = -1;
  std::string how;
  ASSERT_OK(export_dmabuf_fence(d.fd(), &sync_file, &how));
  std::printf("[ measured ] fence export: %s, sync_file fd %d\n", how.c_str(), sync_file);
  if (sync_file >= 0) ::close(sync_file);
  FenceWait w;
  ASSERT_OK(wait_dmabuf_fence(d, 1000, &w));
  std::printf("[ measured ] implicit fence: %s (%s)\n",
              w.kind == FenceWait::Kind::none ? "none" : w.kind == FenceWait::Kind::signalled ? "signalled" : "waited",
              w.how.c_str());
  bool supported = false;
  Status s = dmabuf_sync_read(d.fd(), true, &supported);
  std::printf("[ measured ] DMA_BUF_IOCTL_SYNC start: %s%s\n", s.is_ok() ? "ok" : s.to_string().c_str(),
              s.is_ok() && !supported ? " (ENOTTY)" : "");
  if (s.is_ok() && supported) (void)dmabuf_sync_read(d.fd(), false, &supported);
}

TEST(HipDmaBuf, RuntimeImportAndHostMappingAsMeasured) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Extras x = load_extras(*dev);
  Exported e;
  ASSERT_OK(export_dmabuf(dev, x, 1 << 20, &e));
  std::vector<uint8_t> pattern(e.size);
  for (size_t i = 0; i < pattern.size(); i++) pattern[i] = uint8_t(i * 7 + (i >> 12));
  Producer producer(dev);
  ASSERT_OK(producer.write(e.memory.data(), pattern.data(), pattern.size()));

  const int fds_before = count_open_fds();
  DmaBufFd d;
  ASSERT_OK(DmaBufFd::dup(e.fd, "plane[0].fd", &d));
  DeviceMemory m;
  Status s = import_dmabuf_external_memory(dev, d.fd(), d.size(), &m);
  std::printf("[ measured ] %s runtime import of the dma-buf (opaque fd, %llu bytes): %s\n", vendor_of(*dev).c_str(),
              (unsigned long long)d.size(), s.is_ok() ? "imported" : s.to_string().c_str());
  if (s.is_ok()) {
    std::vector<uint8_t> back(pattern.size());
    ASSERT_OK(dev->copy_async(CopyKind::device_to_host, back.data(), m.data, back.size()));
    ASSERT_OK(dev->synchronize());
    EXPECT_EQ(back, pattern) << "the imported mapping reads the exported memory";
    m.release();
  } else {
    EXPECT_EQ(s.code(), Errc::unsupported) << "a refused import is 'unsupported', not a device failure";
    EXPECT_TRUE(dev->status().is_ok()) << "and not sticky: " << dev->status().to_string();
    uint32_t probe = 0;
    ASSERT_OK(dev->copy_async(CopyKind::device_to_host, &probe, e.memory.data(), 4));
    ASSERT_OK(dev->synchronize());
    EXPECT_EQ(std::memcmp(&probe, pattern.data(), 4), 0) << "the device still works after the refusal";
  }
  d.reset();
  EXPECT_EQ(count_open_fds(), fds_before) << "no fd left behind by the import attempt";

  DmaBufFrame f;
  f.drm_format = kDrmFormatR8;
  f.width = 1024;
  f.height = 64;
  f.n_planes = 1;
  f.planes[0] = {e.fd, 4096, 2048};
  std::unique_ptr<DmaBufHostFrame> hf;
  s = DmaBufHostFrame::map(f, {}, &hf);
  std::printf("[ measured ] host mapping of the dma-buf: %s\n",
              s.is_ok() ? (hf->synced() ? "mapped, DMA_BUF_IOCTL_SYNC ok" : "mapped, no SYNC") : s.to_string().c_str());
  if (s.is_ok()) {
    EXPECT_EQ(std::memcmp(hf->view().planes[0].data, pattern.data() + 4096, 1024), 0);
  } else {
    EXPECT_EQ(s.code(), Errc::unsupported);
    EXPECT_NE(s.message().find("mmap"), std::string::npos) << s.message();
  }
}

TEST(HipDmaBuf, ImporterOnExportedDmaBufsAsMeasured) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Extras x = load_extras(*dev);
  Exported e;
  ASSERT_OK(export_dmabuf(dev, x, 1 << 20, &e));
  DmaBufFrame f;
  f.drm_format = kDrmFormatNV12;
  f.width = 256;
  f.height = 128;
  f.n_planes = 2;
  f.planes[0] = {e.fd, 0, 512};
  f.planes[1] = {e.fd, 512 * 128 + 64, 512};
  for (bool allow_copy : {true, false}) {
    std::vector<std::string> warnings;
    DmaBufImporterConfig cfg;
    cfg.backend = Backend::hip;
    cfg.allow_copy = allow_copy;
    cfg.on_warning = [&](const std::string& w) { warnings.push_back(w); };
    std::unique_ptr<DmaBufImporter> importer;
    ASSERT_OK(create_dmabuf_device_importer(cfg, make_dmabuf_device(dev), &importer));
    std::unique_ptr<DmaBufPicture> p;
    Status s = importer->import(f, &p);
    const char* path = !s.is_ok() ? "refused" : p->copied() ? "host mapping + upload" : "zero-copy import";
    std::printf("[ measured ] %s, allow-copy=%s: %s%s%s\n", dev->info().name.c_str(), allow_copy ? "true" : "false",
                path, s.is_ok() ? "" : ": ", s.is_ok() ? "" : s.message().c_str());
    for (const auto& w : warnings) std::printf("[ measured ]   said once: %s\n", w.c_str());
    std::printf("[ measured ]   %s\n", importer->description().c_str());
    if (s.is_ok()) {
      EXPECT_EQ(p->view().memory, p->copied() ? MemoryKind::host : MemoryKind::device);
      EXPECT_EQ(importer->stats().frames_copied, p->copied() ? 1u : 0u);
      p->release(nullptr);
    } else {
      EXPECT_EQ(s.code(), Errc::unsupported);
      if (allow_copy) {
        EXPECT_NE(s.message().find("neither be imported"), std::string::npos) << s.message();
        EXPECT_NE(s.message().find("mmap"), std::string::npos) << s.message();
      } else {
        EXPECT_NE(s.message().find("allow-copy=false"), std::string::npos) << s.message();
      }
    }
    ASSERT_OK(importer->close());
    EXPECT_TRUE(dev->status().is_ok()) << dev->status().to_string();
  }
}

TEST(HipDmaBuf, RefusalsOnRealDmaBufsComeBeforeAnyRuntimeCall) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Extras x = load_extras(*dev);
  Exported e;
  ASSERT_OK(export_dmabuf(dev, x, 1 << 20, &e));
  std::atomic<int> calls{0};
  auto counting = [&](const std::shared_ptr<Device>& d, int fd, uint64_t size, DeviceMemory* out) {
    calls++;
    return import_dmabuf_external_memory(d, fd, size, out);
  };
  DmaBufImporterConfig cfg;
  cfg.backend = Backend::hip;
  std::unique_ptr<DmaBufImporter> importer;
  ASSERT_OK(create_dmabuf_device_importer(cfg, make_dmabuf_device(dev, counting), &importer));
  DmaBufFrame f;
  f.drm_format = kDrmFormatR8;
  f.width = 1024;
  f.height = 1024;
  f.n_planes = 1;
  f.planes[0] = {e.fd, e.size, 1024};
  std::unique_ptr<DmaBufPicture> p;
  Status s = importer->import(f, &p);
  EXPECT_EQ(s.code(), Errc::out_of_range);
  EXPECT_NE(s.message().find("plane[0].offset"), std::string::npos) << s.message();
  f.planes[0] = {e.fd, e.size - 1024 * 1024 + 1, 1024};  // one byte past the end
  s = importer->import(f, &p);
  EXPECT_EQ(s.code(), Errc::out_of_range);
  EXPECT_NE(s.message().find("plane[0].size"), std::string::npos) << s.message();
  std::printf("[ info     ] %s\n", s.message().c_str());
  f.planes[0] = {e.fd, 0, 1024};
  f.modifier = 0x0300000000000001ULL;  // an NVIDIA block-linear modifier
  s = importer->import(f, &p);
  EXPECT_EQ(s.code(), Errc::unsupported);
  EXPECT_NE(s.message().find("modifier"), std::string::npos) << s.message();
  f.modifier = kDrmModLinear;
  f.drm_format = drm_fourcc('X', 'R', '2', '4');
  s = importer->import(f, &p);
  EXPECT_EQ(s.code(), Errc::unsupported);
  EXPECT_NE(s.message().find("drm-format XR24"), std::string::npos) << s.message();
  EXPECT_EQ(calls.load(), 0) << "no refused frame reached the runtime";
}

// ---- scores through dma-bufs ---------------------------------------------------------------------------------------

struct Scores {
  std::vector<std::string> names;
  std::vector<FrameScore> frames;
  std::string backend;
};

using Feed = std::function<Status(size_t i, PictureView* ref, PictureView* dist, std::function<void()>* release)>;

Status score(const vmafx::test::Pair& pair, size_t frames, Backend backend, const Feed& feed, Scores* out) {
  // Every feature here has a GPU kernel: device pictures are read by all of them.
  ScorerConfig cfg = vmafx::test::scorer_config("vmaf_v0.6.1", {"psnr"});
  cfg.backend = backend;
  VideoGeometry g{pair.width, pair.height, uint8_t(pair.bpc), Chroma::k420};
  vmafx::test::FrameLog log;
  std::unique_ptr<Scorer> scorer;
  VMAFX_TRY(vmafx::test::make_scorer(cfg, g, &log, &scorer));
  out->backend = scorer->backend_description();
  for (size_t i = 0; i < frames; i++) {
    PictureView r, d;
    std::function<void()> release;
    VMAFX_TRY(feed(i, &r, &d, &release));
    VMAFX_TRY(scorer->submit(vmafx::test::frame_pair(r, d, int64_t(i), i, release)));
  }
  VMAFX_TRY(scorer->flush());
  out->frames = log.frames();
  out->names = scorer->score_names();
  return Status::ok();
}

// Bit-exact equality; prints the first mismatch.
bool identical(const Scores& want, const Scores& got, const std::string& what, size_t* compared) {
  *compared = 0;
  if (want.names != got.names || want.frames.size() != got.frames.size()) {
    ADD_FAILURE() << what << ": " << got.frames.size() << " frames / " << got.names.size() << " scores, want "
                  << want.frames.size() << " / " << want.names.size();
    return false;
  }
  for (size_t k = 0; k < want.frames.size(); k++) {
    for (size_t j = 0; j < want.names.size(); j++, (*compared)++) {
      const double a = want.frames[k].values[j], b = got.frames[k].values[j];
      if ((std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0) continue;
      ADD_FAILURE() << what << ": first mismatch at frame " << k << " " << want.names[j] << ": " << want.backend
                    << " on system memory " << a << ", dma-buf " << b;
      return false;
    }
  }
  return true;
}

Feed system_memory(const vmafx::test::PairClips& c) {
  return [&c](size_t i, PictureView* r, PictureView* d, std::function<void()>*) {
    *r = c.ref.frame(i);
    *d = c.dist.frame(i);
    return Status::ok();
  };
}

// A producer's pool of exported dma-bufs, recycled once the engine releases a frame.
struct Pool {
  std::vector<std::unique_ptr<Exported>> buffers;  // kSlots per stream x planes' buffers
  std::vector<std::atomic<bool>> busy;
  explicit Pool(size_t n) : busy(n) {
    for (auto& b : busy) b = false;
  }
};

TEST(HipDmaBuf, OracleClipsThroughDmaBufsScoreLikeSystemMemory) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Extras x = load_extras(*dev);
  ASSERT_TRUE(x.get_handle) << x.why;
  std::vector<std::string> checked, absent;
  for (const auto& pair : vmafx::test::oracle_pairs_420(&absent)) {
    checked.push_back(pair.name());
    vmafx::test::PairClips clips;
    ASSERT_OK(vmafx::test::open_pair_clips(pair, &clips));
    const size_t frames = clips.ref.frames();
    Scores cpu, hip_sys;
    ASSERT_OK(score(pair, frames, Backend::cpu, system_memory(clips), &cpu));
    ASSERT_OK(score(pair, frames, Backend::hip, system_memory(clips), &hip_sys));
    size_t n = 0;
    EXPECT_TRUE(identical(cpu, hip_sys, pair.prefix + " hip on system memory", &n));

    const bool ten = pair.bpc > 8;
    const Layout layouts[] = {
        {ten ? kDrmFormatP010 : kDrmFormatNV12, 4096 + 256, 64, 4096 - 128, false},  // one dma-buf, offsets, pitches
        {ten ? kDrmFormatS010 : kDrmFormatYUV420, 0, 0, 0, true},                    // a dma-buf per plane
    };
    for (const Layout& layout : layouts) {
      // Zero-copy path: the importer on the library stream; the runtime's import stood in by the lookup where the
      // runtime refuses dma-bufs (measured on NVIDIA), the runtime's own import otherwise.
      for (bool runtime_import : {true, false}) {
        LookupImport lookup;
        DmaBufImporterConfig cfg;
        cfg.backend = Backend::hip;
        cfg.allow_copy = false;  // this arm is about the device path: a refusal must not turn into a copy
        std::unique_ptr<DmaBufImporter> importer;
        ASSERT_OK(create_dmabuf_device_importer(cfg, make_dmabuf_device(dev, runtime_import ? DmaBufImportFn{} : lookup.fn()),
                                                &importer));
        constexpr size_t kSlots = 6;
        LaidOutFrame probe;
        ASSERT_OK(vmafx::test::lay_out_frame(clips.ref.frame(0), layout, &probe));
        const size_t per_frame = probe.buffers.size();
        Pool pool(2 * kSlots * per_frame);
        for (size_t b = 0; b < pool.busy.size(); b++) {
          pool.buffers.push_back(std::make_unique<Exported>());
          ASSERT_OK(export_dmabuf(dev, x, probe.buffers[b % per_frame].size(), pool.buffers.back().get()));
          lookup.add(*pool.buffers.back());
        }
        Producer producer(dev);
        std::atomic<size_t> released{0};
        Status refused;
        auto feed = [&](size_t i, PictureView* r, PictureView* d, std::function<void()>* release) -> Status {
          std::shared_ptr<DmaBufPicture> pics[2];
          for (unsigned side = 0; side < 2; side++) {
            const size_t slot = (side * kSlots + i % kSlots) * per_frame;
            // The producer reuses a buffer only once the engine has released it (bounded: a starved pool is an error).
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
            while (pool.busy[slot]) {
              (void)importer->collect();
              if (std::chrono::steady_clock::now() > deadline)
                return {Errc::internal, "pool starved: frame " + std::to_string(i) + " waits for slot " +
                                            std::to_string(slot) + " the engine never released"};
              std::this_thread::sleep_for(std::chrono::microseconds(100));
            }
            LaidOutFrame lf;
            VMAFX_TRY(vmafx::test::lay_out_frame(side ? clips.dist.frame(i) : clips.ref.frame(i), layout, &lf));
            for (size_t b = 0; b < per_frame; b++) {
              Exported& buf = *pool.buffers[slot + b];
              VMAFX_TRY(producer.write(buf.memory.data(), lf.buffers[b].data(), lf.buffers[b].size()));
            }
            for (unsigned p = 0; p < lf.frame.n_planes; p++)
              lf.frame.planes[p].fd = pool.buffers[slot + lf.buffer_of[p]]->fd;
            std::unique_ptr<DmaBufPicture> pic;
            Status s = importer->import(lf.frame, &pic);
            if (!s) {
              refused = s;
              return s;
            }
            pool.busy[slot] = true;
            pics[side] = std::shared_ptr<DmaBufPicture>(std::move(pic));
          }
          *r = pics[0]->view();
          *d = pics[1]->view();
          const size_t rs = (i % kSlots) * per_frame, ds = (kSlots + i % kSlots) * per_frame;
          *release = [pics, &pool, rs, ds, &released] {
            pics[0]->release([&pool, rs] { pool.busy[rs] = false; });
            pics[1]->release([&pool, ds, &released] {
              pool.busy[ds] = false;
              released++;
            });
          };
          return Status::ok();
        };
        Scores got;
        Status s = score(pair, frames, Backend::hip, feed, &got);
        const std::string what = pair.prefix + "_" + pair.distorted + " " + layout.name() +
                                 (runtime_import ? " (runtime import)" : " (lookup import)");
        if (runtime_import && !refused.is_ok()) {
          std::printf("[ measured ] %s: the runtime refuses: %s\n", what.c_str(), refused.message().c_str());
          EXPECT_EQ(refused.code(), Errc::unsupported);
          continue;
        }
        ASSERT_OK(s);
        size_t compared = 0;
        const bool same = identical(cpu, got, what, &compared);
        ASSERT_OK(importer->close());
        const auto st = importer->stats();
        std::printf("[ %s ] %s: %zu frames, %zu scores %s the CPU on system memory; %llu imports, %llu cache hits, "
                    "%zu released, %llu live after close\n", same ? "ok      " : "MISMATCH", what.c_str(),
                    got.frames.size(), compared, same ? "identical to" : "DIFFER from",
                    (unsigned long long)st.imports, (unsigned long long)st.cache_hits, released.load(),
                    (unsigned long long)st.live_imports);
        EXPECT_EQ(released.load(), frames);
        EXPECT_EQ(st.live_imports, 0u);
        EXPECT_EQ(st.frames_copied, 0u);
        if (!runtime_import) {
          EXPECT_EQ(lookup.imports.load(), lookup.releases.load()) << "every import released";
          EXPECT_LE(st.imports, pool.busy.size()) << "a recycled buffer is imported once (cache by inode, size)";
        }
      }

      // Fallback path: memfd frames, the runtime's import attempted, the host mapping uploaded.
      if (!layout.fd_per_plane) {
        DmaBufImporterConfig cfg;
        cfg.backend = Backend::hip;
        std::vector<std::string> warnings;
        cfg.on_warning = [&](const std::string& w) { warnings.push_back(w); };
        std::unique_ptr<DmaBufImporter> importer;
        ASSERT_OK(create_dmabuf_device_importer(cfg, make_dmabuf_device(dev), &importer));
        auto feed = [&](size_t i, PictureView* r, PictureView* d, std::function<void()>* release) -> Status {
          std::shared_ptr<DmaBufPicture> pics[2];
          for (unsigned side = 0; side < 2; side++) {
            LaidOutFrame lf;
            VMAFX_TRY(vmafx::test::lay_out_frame(side ? clips.dist.frame(i) : clips.ref.frame(i), layout, &lf));
            std::vector<int> fds;
            for (const auto& b : lf.buffers) {
              const int fd = ::memfd_create("vmafx-gpu-test", MFD_CLOEXEC);
              if (fd < 0 || ::pwrite(fd, b.data(), b.size(), 0) != ssize_t(b.size()))
                return {Errc::io_error, "memfd"};
              fds.push_back(fd);
            }
            for (unsigned p = 0; p < lf.frame.n_planes; p++) lf.frame.planes[p].fd = fds[lf.buffer_of[p]];
            std::unique_ptr<DmaBufPicture> pic;
            Status s = importer->import(lf.frame, &pic);
            for (int fd : fds) ::close(fd);  // the importer holds its own duplicates
            VMAFX_TRY(s);
            pics[side] = std::shared_ptr<DmaBufPicture>(std::move(pic));
          }
          *r = pics[0]->view();
          *d = pics[1]->view();
          *release = [pics] {
            pics[0]->release(nullptr);
            pics[1]->release(nullptr);
          };
          return Status::ok();
        };
        Scores got;
        ASSERT_OK(score(pair, frames, Backend::hip, feed, &got));
        size_t compared = 0;
        const std::string what = pair.prefix + "_" + pair.distorted + " " + layout.name() + " (memfd)";
        const bool same = identical(cpu, got, what, &compared);
        const auto st = importer->stats();
        std::printf("[ %s ] %s: %s; %zu scores %s the CPU; frames copied %llu of %llu\n",
                    same ? "ok      " : "MISMATCH", what.c_str(), importer->description().c_str(), compared,
                    same ? "identical to" : "DIFFER from", (unsigned long long)st.frames_copied,
                    (unsigned long long)st.frames);
        for (const auto& w : warnings) std::printf("[ measured ]   said once: %s\n", w.c_str());
        ASSERT_OK(importer->close());
      }
    }
  }
  vmafx::test::print_pair_coverage(checked, absent);
  ASSERT_FALSE(checked.empty()) << "no oracle clip found under " << vmafx::test::shared_testdata_dir();
}

// ---- release order on the library stream ---------------------------------------------------------------------------

TEST(HipDmaBuf, ReleaseWaitsForTheLibraryStreamAndAPlantedEarlyReleaseIsSeen) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Extras x = load_extras(*dev);
  ASSERT_TRUE(x.get_handle) << x.why;
  // Load ahead of the read: copies on the library stream that take tens of milliseconds.
  const size_t big = size_t(256) << 20;
  DeviceBuffer a, b;
  ASSERT_OK(DeviceBuffer::create(dev, big, &a));
  ASSERT_OK(DeviceBuffer::create(dev, big, &b));
  const size_t n = 64 * 1024;
  std::vector<uint8_t> frame(n);
  for (size_t i = 0; i < n; i++) frame[i] = uint8_t(i * 13 + 5);
  Producer producer(dev);
  ASSERT_NE(producer.stream, nullptr);
  DeviceBuffer result;
  ASSERT_OK(DeviceBuffer::create(dev, n, &result));
  const int attempts = 3;
  for (bool planted : {false, true}) {
    int differed = 0;
    for (int attempt = 0; attempt < attempts; attempt++) {
      Exported e;
      ASSERT_OK(export_dmabuf(dev, x, n, &e));
      ASSERT_OK(producer.write(e.memory.data(), frame.data(), n));
      LookupImport lookup;
      lookup.add(e);
      DmaBufImporterConfig cfg;
      cfg.backend = Backend::hip;
      const import_hooks::EarlyReleasePlanted plant(planted);  // read when the importer is created
      std::unique_ptr<DmaBufImporter> importer;
      ASSERT_OK(create_dmabuf_device_importer(cfg, make_dmabuf_device(dev, lookup.fn()), &importer));
      DmaBufFrame f;
      f.drm_format = kDrmFormatR8;
      f.width = 1024;
      f.height = uint32_t(n / 1024);
      f.n_planes = 1;
      f.planes[0] = {e.fd, 0, 1024};
      std::unique_ptr<DmaBufPicture> p;
      ASSERT_OK(importer->import(f, &p));
      ASSERT_EQ(p->view().memory, MemoryKind::device);
      const auto t0 = std::chrono::steady_clock::now();
      for (int k = 0; k < 200; k++)
        ASSERT_OK(dev->copy_async(CopyKind::device_to_device, (k & 1) ? a.data() : b.data(),
                                  (k & 1) ? b.data() : a.data(), big));
      ASSERT_OK(dev->copy_async(CopyKind::device_to_device, result.data(), p->view().planes[0].data, n));
      std::atomic<bool> then_ran{false};
      std::atomic<double> then_ms{0};
      // `then` plays the producer reusing its buffer once the engine lets go of it.
      p->release([&, dst = e.memory.data()] {
        (void)producer.fill(dst, 0xee, n);
        then_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        then_ran = true;
      });
      const bool early = then_ran.load();
      ASSERT_OK(dev->synchronize());
      const double stream_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (!then_ran && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ASSERT_TRUE(then_ran) << "the release never ran";
      std::vector<uint8_t> seen(n);
      ASSERT_OK(dev->copy_async(CopyKind::device_to_host, seen.data(), result.data(), n));
      ASSERT_OK(dev->synchronize());
      const bool same = seen == frame;
      std::printf("[ info     ] %s release, attempt %d: released %s the stream drained (then at %.1f ms, stream %.1f "
                  "ms); the read saw %s\n", planted ? "planted early" : "deferred", attempt + 1,
                  early ? "BEFORE" : "after", then_ms.load(), stream_ms,
                  same ? "the frame" : "the producer's overwrite");
      ASSERT_OK(importer->close());
      if (!same) differed++;
      if (!planted && same) break;
    }
    if (planted) {
      EXPECT_EQ(differed, attempts) << "the planted early release must be seen in every attempt";
    } else {
      EXPECT_LT(differed, attempts) << "the deferred release let the stream read the frame";
    }
  }
}

// ---- leaks ----------------------------------------------------------------------------------------------------------

TEST(HipDmaBuf, NoFdOrDeviceMemoryLeakedOver1000Frames) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Extras x = load_extras(*dev);
  ASSERT_TRUE(x.get_handle && x.mem_info) << x.why;
  std::vector<std::unique_ptr<Exported>> pool;
  LookupImport lookup;
  for (int i = 0; i < 6; i++) {
    pool.push_back(std::make_unique<Exported>());
    ASSERT_OK(export_dmabuf(dev, x, 1 << 20, pool.back().get()));
    lookup.add(*pool.back());
  }
  const int memfd = ::memfd_create("vmafx-gpu-leak", MFD_CLOEXEC);
  ASSERT_EQ(::ftruncate(memfd, 1 << 20), 0);
  // Warm-up (module loads, event pools), then measure.
  ASSERT_OK(dev->synchronize());
  const int fds_before = count_open_fds();
  const size_t free_before = free_device_memory(*dev, x);

  // 1000 attempts of the runtime's own import of a dma-buf (refused on NVIDIA; imported and destroyed where it works).
  int refused = 0;
  for (int i = 0; i < 1000; i++) {
    DeviceMemory m;
    Status s = import_dmabuf_external_memory(dev, pool[size_t(i) % pool.size()]->fd, pool[0]->size, &m);
    if (s.is_ok()) {
      m.release();
    } else {
      refused++;
    }
  }
  ASSERT_TRUE(dev->status().is_ok()) << dev->status().to_string();

  // 1000 frames through the importer on the zero-copy path (lookup import, a pool bigger than the cache) and 1000
  // through the real importer on memfds (the fallback where the runtime refuses).
  {
    DmaBufImporterConfig cfg;
    cfg.backend = Backend::hip;
    cfg.cache_entries = 4;
    std::unique_ptr<DmaBufImporter> zero_copy, real;
    ASSERT_OK(create_dmabuf_device_importer(cfg, make_dmabuf_device(dev, lookup.fn()), &zero_copy));
    ASSERT_OK(create_dmabuf_device_importer(cfg, make_dmabuf_device(dev), &real));
    DeviceBuffer sink;
    ASSERT_OK(DeviceBuffer::create(dev, 4096, &sink));
    for (int i = 0; i < 1000; i++) {
      DmaBufFrame f;
      f.drm_format = kDrmFormatNV12;
      f.width = 512;
      f.height = 256;
      f.n_planes = 2;
      f.planes[0] = {pool[size_t(i) % pool.size()]->fd, 0, 512};
      f.planes[1] = {pool[size_t(i) % pool.size()]->fd, 512 * 256, 512};
      std::unique_ptr<DmaBufPicture> p;
      ASSERT_OK(zero_copy->import(f, &p));
      ASSERT_OK(dev->copy_async(CopyKind::device_to_device, sink.data(), p->view().planes[1].data, 4096));
      p->release(nullptr);
      f.planes[0].fd = f.planes[1].fd = memfd;
      Status s = real->import(f, &p);
      ASSERT_TRUE(s.is_ok() || s.code() == Errc::unsupported) << s.to_string();
      if (p) p->release(nullptr);
    }
    ASSERT_OK(zero_copy->close());
    ASSERT_OK(real->close());
    const auto z = zero_copy->stats(), r = real->stats();
    std::printf("[ measured ] zero-copy path: %llu frames, %llu imports, %llu cache hits, %llu live after close; "
                "memfd path: %s, %llu copied\n", (unsigned long long)z.frames, (unsigned long long)z.imports,
                (unsigned long long)z.cache_hits, (unsigned long long)z.live_imports, real->description().c_str(),
                (unsigned long long)r.frames_copied);
    EXPECT_EQ(z.live_imports, 0u);
    EXPECT_EQ(lookup.imports.load(), lookup.releases.load());
  }
  ASSERT_OK(dev->synchronize());
  const int fds_after = count_open_fds();
  const size_t free_after = free_device_memory(*dev, x);
  std::printf("[ measured ] 1000 runtime import attempts (%d refused) + 2 x 1000 frames: fds %d -> %d, device free "
              "memory %zu -> %zu bytes (%+lld)\n", refused, fds_before, fds_after, free_before, free_after,
              (long long)free_after - (long long)free_before);
  EXPECT_EQ(fds_after, fds_before) << "fd leaked";
  EXPECT_LE(free_before > free_after ? free_before - free_after : 0, size_t(4) << 20) << "device memory leaked";
  ::close(memfd);
}

}  // namespace
}  // namespace vmafx::hip
