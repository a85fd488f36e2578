// SPDX-License-Identifier: LGPL-2.1-or-later
// The device layer on a real GPU: device info, one Device per GPU, memory round trips, 2D copies with odd pitches,
// ordering on the library stream and through events, the pinned ring, deferred release, context binding on other
// threads, module loading from embedded images and from run-time compilation (with its cache), sticky errors.
// Skips (exit 77) without a device.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "assert_ok.h"
#include "gpu_device.h"
#include "hip/kernels/psnr_impl.h"
#include "hip/module.h"
#include "hip/plane.h"

namespace vmafx::hip {
namespace {

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(rng());
  return v;
}

TEST(HipDevice, ReportsWhatItIs) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const DeviceInfo& i = dev->info();
  std::printf("device %d: %s, %s, arch %s, PCI %s, %zu MiB, %s, driver %d\n", i.index, vendor_name(i.vendor),
              i.name.c_str(), i.arch.c_str(), i.pci_bus_id.c_str(), i.total_memory >> 20, i.library.c_str(),
              i.driver_version);
  EXPECT_FALSE(i.name.empty());
  EXPECT_FALSE(i.pci_bus_id.empty());
  EXPECT_GT(i.total_memory, size_t(0));
  if (i.vendor == Vendor::nvidia) {
    EXPECT_EQ(i.arch.rfind("sm_", 0), 0u) << i.arch;
  } else {
    EXPECT_EQ(i.arch.rfind("gfx", 0), 0u) << i.arch;
  }
  std::string missing;
  for (const auto& m : dev->api().missing) missing += m + " ";
  std::printf("symbols the runtime lacks: %s\n", missing.empty() ? "none" : missing.c_str());
  EXPECT_TRUE(dev->status().is_ok());
}

TEST(HipDevice, OneObjectPerDevice) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::shared_ptr<Device> again;
  ASSERT_OK(Device::get(dev->info().vendor, dev->info().index, &again));
  EXPECT_EQ(again.get(), dev.get());
  EXPECT_EQ(again->stream(), dev->stream());
  std::shared_ptr<Device> past_end;
  Status s = Device::get(dev->info().vendor, 1000, &past_end);
  EXPECT_EQ(s.code(), Errc::device_unavailable);
  EXPECT_NE(s.message().find("device 1000 requested"), std::string::npos) << s.message();
}

TEST(HipDevice, RoundTripsDeviceMemory) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  for (size_t n : {size_t(1), size_t(3), size_t(4097), size_t(1) << 20, (size_t(1) << 24) + 7}) {
    const auto src = random_bytes(n, uint32_t(n));
    DeviceBuffer a, b;
    ASSERT_OK(DeviceBuffer::create(dev, n, &a));
    ASSERT_OK(DeviceBuffer::create(dev, n, &b));
    PinnedBuffer back;
    ASSERT_OK(PinnedBuffer::create(dev, n, &back));
    std::memset(back.data(), 0xa5, n);
    ASSERT_OK(dev->copy_async(CopyKind::host_to_device, a.data(), src.data(), n));
    ASSERT_OK(dev->copy_async(CopyKind::device_to_device, b.data(), a.data(), n));
    ASSERT_OK(dev->copy_async(CopyKind::device_to_host, back.data(), b.data(), n));
    ASSERT_OK(dev->synchronize());
    ASSERT_EQ(std::memcmp(back.data(), src.data(), n), 0) << n << " bytes";
  }
}

TEST(HipDevice, RefusesEmptyAndHugeAllocations) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  DeviceBuffer b;
  EXPECT_EQ(DeviceBuffer::create(dev, 0, &b).code(), Errc::invalid_argument);
  Status s = DeviceBuffer::create(dev, size_t(1) << 50, &b);  // 1 PiB
  EXPECT_EQ(s.code(), Errc::out_of_memory) << s.to_string();
  EXPECT_FALSE(b);
  EXPECT_TRUE(dev->status().is_ok()) << "an allocation failure must not poison the device";
}

// h2d from a host pitch, d2d to another pitch, d2h to a third; odd pitches and widths; bytes outside the rows
// stay untouched.
TEST(HipDevice, Copies2DWithOddPitches) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  struct Case {
    size_t width, height, host_pitch, dev_pitch, dev2_pitch, back_pitch;
  };
  const Case cases[] = {{1, 1, 1, 1, 1, 1},           {7, 3, 9, 11, 13, 7},
                        {999, 37, 1001, 1003, 1517, 1111}, {3841, 19, 3843, 4097, 3841, 3845},
                        {1920, 1080, 1920, 2048, 1921, 1923}, {640 * 2, 361, 1283, 1285, 1287, 1289}};
  uint32_t seed = 1;
  for (const Case& c : cases) {
    const auto host = random_bytes(c.host_pitch * c.height, seed++);
    DeviceBuffer d1, d2;
    ASSERT_OK(DeviceBuffer::create(dev, c.dev_pitch * c.height, &d1));
    ASSERT_OK(DeviceBuffer::create(dev, c.dev2_pitch * c.height, &d2));
    std::vector<uint8_t> back(c.back_pitch * c.height + 16, 0x5a);
    Copy2D up{CopyKind::host_to_device, d1.data(), c.dev_pitch, host.data(), c.host_pitch, c.width, c.height};
    Copy2D across{CopyKind::device_to_device, d2.data(), c.dev2_pitch, d1.data(), c.dev_pitch, c.width, c.height};
    Copy2D down{CopyKind::device_to_host, back.data(), c.back_pitch, d2.data(), c.dev2_pitch, c.width, c.height};
    ASSERT_OK(dev->copy_2d_async(up));
    ASSERT_OK(dev->copy_2d_async(across));
    ASSERT_OK(dev->copy_2d_async(down));
    ASSERT_OK(dev->synchronize());
    for (size_t y = 0; y < c.height; ++y) {
      ASSERT_EQ(std::memcmp(back.data() + y * c.back_pitch, host.data() + y * c.host_pitch, c.width), 0)
          << "row " << y << " of " << c.width << "x" << c.height << " pitches " << c.host_pitch << "/" << c.dev_pitch
          << "/" << c.dev2_pitch << "/" << c.back_pitch;
      for (size_t x = c.width; x < c.back_pitch && y * c.back_pitch + x < back.size(); ++x) {
        if (y + 1 == c.height && x >= c.width) break;
        ASSERT_EQ(back[y * c.back_pitch + x], 0x5a) << "padding written at row " << y << " byte " << x;
      }
    }
    for (size_t i = (c.height - 1) * c.back_pitch + c.width; i < back.size(); ++i) ASSERT_EQ(back[i], 0x5a) << i;
  }
  Copy2D bad{CopyKind::host_to_device, nullptr, 3, nullptr, 8, 4, 1};
  EXPECT_EQ(dev->copy_2d_async(bad).code(), Errc::invalid_argument);
}

// Work on the library stream runs in order; an event says when the work before it has finished.
TEST(HipDevice, OrdersWorkAndEvents) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const size_t words = size_t(64) << 20;  // 256 MiB of fills keeps the device busy for a while
  DeviceBuffer buf;
  ASSERT_OK(DeviceBuffer::create(dev, words * 4, &buf));
  PinnedBuffer first, second;
  ASSERT_OK(PinnedBuffer::create(dev, 4096, &first));
  ASSERT_OK(PinnedBuffer::create(dev, 4096, &second));
  Event e1, e2;
  ASSERT_OK(Event::create(dev, &e1));
  ASSERT_OK(Event::create(dev, &e2));
  EXPECT_TRUE(e1.query().is_ok()) << "a never-recorded event counts as reached";
  int busy_seen = 0;
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 8; ++k) ASSERT_OK(dev->memset_d32_async(buf.data(), 0x11111111u * unsigned(k), words));
    ASSERT_OK(dev->memset_d32_async(buf.data(), 0xaaaa0000u + unsigned(round), words));
    ASSERT_OK(dev->copy_async(CopyKind::device_to_host, first.data(), buf.data(), 4096));
    ASSERT_OK(e1.record());
    ASSERT_OK(dev->memset_d32_async(buf.data(), 0xbbbb0000u + unsigned(round), words));
    ASSERT_OK(dev->copy_async(CopyKind::device_to_host, second.data(), buf.data(), 4096));
    ASSERT_OK(e2.record());
    Status q = e2.query();
    ASSERT_TRUE(q.is_ok() || q.code() == Errc::busy) << q.to_string();
    busy_seen += q.code() == Errc::busy;
    ASSERT_OK(e1.synchronize());
    const uint32_t* w1 = reinterpret_cast<const uint32_t*>(first.data());
    for (int i = 0; i < 1024; ++i) ASSERT_EQ(w1[i], 0xaaaa0000u + unsigned(round)) << "round " << round << " word " << i;
    ASSERT_OK(e2.synchronize());
    EXPECT_TRUE(e2.query().is_ok());
    EXPECT_TRUE(dev->query().is_ok());
    const uint32_t* w2 = reinterpret_cast<const uint32_t*>(second.data());
    for (int i = 0; i < 1024; ++i) ASSERT_EQ(w2[i], 0xbbbb0000u + unsigned(round)) << "round " << round << " word " << i;
  }
  std::printf("event still busy right after recording behind 2.3 GiB of fills: %d of 3 rounds\n", busy_seen);
}

// A pinned ring of 3 slots carries 12 frames up and back; every frame arrives intact although slots are reused
// while the device still works on earlier frames.
TEST(HipDevice, PinnedRingCarriesFramesInTurn) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const size_t frame = 1 << 20;
  PinnedRing up, down;
  ASSERT_OK(PinnedRing::create(dev, 3, frame, &up));
  ASSERT_OK(PinnedRing::create(dev, 3, frame, &down));
  EXPECT_EQ(up.slots(), 3u);
  DeviceBuffer plane;
  ASSERT_OK(DeviceBuffer::create(dev, frame, &plane));
  std::vector<PinnedRing::Slot> pending;
  std::vector<int> pending_frame;
  int checked = 0;
  auto check = [&](const PinnedRing::Slot& s, int f) {
    ASSERT_OK(down.wait(s));
    const auto want = random_bytes(frame, uint32_t(100 + f));
    ASSERT_EQ(std::memcmp(s.host, want.data(), frame), 0) << "frame " << f;
    ++checked;
  };
  for (int f = 0; f < 12; ++f) {
    PinnedRing::Slot in, out;
    ASSERT_OK(up.acquire(&in));
    EXPECT_EQ(in.index, unsigned(f % 3));
    const auto data = random_bytes(frame, uint32_t(100 + f));
    std::memcpy(in.host, data.data(), frame);
    ASSERT_OK(dev->copy_async(CopyKind::host_to_device, plane.data(), in.host, frame));
    ASSERT_OK(up.submit(in));
    if (pending.size() == 3) {  // the readback slot about to be reused: consume it first
      check(pending.front(), pending_frame.front());
      pending.erase(pending.begin());
      pending_frame.erase(pending_frame.begin());
    }
    ASSERT_OK(down.acquire(&out));
    ASSERT_OK(dev->copy_async(CopyKind::device_to_host, out.host, plane.data(), frame));
    ASSERT_OK(down.submit(out));
    pending.push_back(out);
    pending_frame.push_back(f);
  }
  for (size_t i = 0; i < pending.size(); ++i) check(pending[i], pending_frame[i]);
  EXPECT_EQ(checked, 12);
}

TEST(HipDevice, DeferredReleaseRunsOnceTheWorkHasFinished) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  DeviceBuffer buf;
  ASSERT_OK(DeviceBuffer::create(dev, size_t(256) << 20, &buf));
  int released = 0;
  ASSERT_OK(dev->memset_d32_async(buf.data(), 1, buf.size() / 4));
  ASSERT_OK(dev->defer_release([&] { ++released; }));
  ASSERT_OK(dev->defer_release([&] { released += 10; }));
  ASSERT_OK(dev->collect());  // may or may not have finished yet
  ASSERT_OK(dev->synchronize());
  ASSERT_OK(dev->collect());
  EXPECT_EQ(released, 11);
  ASSERT_OK(dev->collect());
  EXPECT_EQ(released, 11) << "a release runs once";
}

// Lanes: work queued in a StreamScope runs on that lane, query() and synchronize() see it, and a deferred release
// (record_all) waits for it although the library stream itself is idle. Without record_all covering the lanes, the
// release would run at the first collect(): the library stream has nothing queued.
TEST(HipDevice, DeferredReleaseWaitsForTheLanes) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  ASSERT_OK(dev->ensure_lanes(2));
  ASSERT_GE(dev->lanes(), 2u);
  ASSERT_NE(dev->lane_stream(1), nullptr);
  EXPECT_EQ(dev->lane_stream(Device::kMaxLanes), nullptr);
  EXPECT_EQ(dev->ensure_lanes(Device::kMaxLanes + 1).code(), Errc::invalid_argument);
  EXPECT_EQ(dev->current_stream(), dev->stream());
  DeviceBuffer buf;
  ASSERT_OK(DeviceBuffer::create(dev, size_t(512) << 20, &buf));
  ASSERT_OK(dev->synchronize());
  // Enough work on lane 1 that it is still running when the host looks (a few ms on any GPU); retried with more
  // where a GPU finished it before the host could look.
  bool seen_busy = false;
  for (unsigned rounds = 8; rounds <= 512 && !seen_busy; rounds *= 4) {
    int released = 0;
    {
      StreamScope scope(*dev, dev->lane_stream(1));
      EXPECT_EQ(dev->current_stream(), dev->lane_stream(1));
      for (unsigned i = 0; i < rounds; ++i) ASSERT_OK(dev->memset_d32_async(buf.data(), i, buf.size() / 4));
    }
    EXPECT_EQ(dev->current_stream(), dev->stream()) << "the scope restores the library stream";
    ASSERT_OK(dev->defer_release([&] { ++released; }));
    ASSERT_OK(dev->collect());
    const Status q = dev->query();
    if (q.code() == Errc::busy) {
      seen_busy = true;
      EXPECT_EQ(released, 0) << "the release ran while lane 1 still wrote the buffer";
    }
    ASSERT_OK(dev->synchronize());
    ASSERT_OK(dev->collect());
    EXPECT_EQ(released, 1);
    ASSERT_OK(dev->query());  // synchronize() waited for the lanes
  }
  EXPECT_TRUE(seen_busy) << "lane 1 never looked busy: the test proved nothing";
  // The lane's last write is what the buffer holds.
  std::vector<uint32_t> back(16);
  ASSERT_OK(dev->copy_async(CopyKind::device_to_host, back.data(), buf.data(), back.size() * 4));
  ASSERT_OK(dev->synchronize());
  EXPECT_NE(back[0], 0u);
}

// Library calls from a thread that never bound the context work, and leave that thread as they found it;
// make_current() binds it for good (the GL thread's case).
TEST(HipDevice, BindsTheContextOnOtherThreads) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  DeviceBuffer buf;
  ASSERT_OK(DeviceBuffer::create(dev, 4096, &buf));
  Status thread_status;
  Context before = reinterpret_cast<Context>(1), after = nullptr, bound = nullptr;
  std::vector<uint8_t> data(4096, 7), back(4096, 0);
  std::thread t([&] {
    const Api& api = dev->api();
    api.context_get_current.fn(&before);
    thread_status = dev->copy_async(CopyKind::host_to_device, buf.data(), data.data(), data.size());
    if (thread_status) thread_status = dev->copy_async(CopyKind::device_to_host, back.data(), buf.data(), back.size());
    if (thread_status) thread_status = dev->synchronize();
    api.context_get_current.fn(&after);
    if (thread_status) thread_status = dev->make_current();
    api.context_get_current.fn(&bound);
  });
  t.join();
  ASSERT_TRUE(thread_status.is_ok()) << thread_status.to_string();
  EXPECT_EQ(back, data);
  EXPECT_EQ(after, before) << "the calling thread's context was not restored";
  EXPECT_EQ(bound, dev->context());
}

TEST(HipDevice, LoadsTheEmbeddedImageForItsArchitecture) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const auto candidates = candidate_images(dev->info().vendor, dev->info().arch, "psnr");
  Module m;
  ASSERT_OK(Module::load(dev, "psnr", &m));
  std::printf("psnr module for %s: %s (%zu embedded candidates)\n", dev->info().arch.c_str(), m.origin().c_str(),
              candidates.size());
  if (candidates.empty()) {
    EXPECT_EQ(m.origin().find("embedded"), std::string::npos);
  } else if (candidates[0]->kind == ImageKind::nvidia_ptx) {
    // PTX: compiled by the driver now, or its compilation taken from the cache (a run before this one).
    const std::string embedded = std::string("embedded ptx ") + candidates[0]->arch;
    EXPECT_TRUE(m.origin().rfind(embedded, 0) == 0 || m.origin().rfind("cache ", 0) == 0) << m.origin();
  } else {
    EXPECT_EQ(m.origin(), std::string("embedded ") + image_kind_name(candidates[0]->kind) + " " + candidates[0]->arch);
  }
  Kernel k;
  ASSERT_OK(m.function("psnr_sse_kernel", &k));
  EXPECT_NE(k.fn, nullptr);
  Status missing = m.function("no_such_kernel", &k);
  EXPECT_EQ(missing.code(), Errc::unsupported);
  EXPECT_NE(missing.message().find("no_such_kernel"), std::string::npos);
  Module none;
  Status s = Module::load(dev, "no_such_source", &none);
  EXPECT_EQ(s.code(), Errc::unsupported);
  EXPECT_NE(s.message().find("no embedded source"), std::string::npos) << s.message();
  EXPECT_TRUE(dev->status().is_ok());
}

TEST(HipDevice, CompilesAtRunTimeAndCachesTheImage) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Rtc* rtc = nullptr;
  Status rs = load_rtc(dev->api(), &rtc);
  if (!rs) GTEST_SKIP() << "no run-time compiler on this machine: " << rs.message();
  char dir_template[] = "/tmp/vmafxhip-cache-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  ModuleOptions rtc_only;
  rtc_only.use_embedded = false;
  Module compiled, cached;
  ASSERT_OK(Module::load(dev, "psnr", &compiled, rtc_only));
  std::printf("first load: %s\n", compiled.origin().c_str());
  EXPECT_EQ(compiled.origin().rfind(rtc->version, 0), 0u) << compiled.origin();
  ASSERT_OK(Module::load(dev, "psnr", &cached, rtc_only));
  std::printf("second load: %s\n", cached.origin().c_str());
  EXPECT_EQ(cached.origin().rfind("cache " + dir + "/vmafxhip/psnr-", 0), 0u) << cached.origin();
  Kernel k;
  ASSERT_OK(cached.function("psnr_sse_kernel", &k));
  unsetenv("XDG_CACHE_HOME");
  const std::string cleanup = "rm -rf '" + dir + "'";
  EXPECT_EQ(std::system(cleanup.c_str()), 0);
}

// An embedded PTX image (the only NVIDIA image of a -Dgpu-targets=portable build) is compiled by the driver once per
// device and driver: the first load with an empty cache compiles it and stores the cubin, the second loads the cubin
// from the cache, and a damaged cache file is compiled afresh.
TEST(HipDevice, CompilesEmbeddedPtxOnceAndCachesTheCubin) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const auto candidates = candidate_images(dev->info().vendor, dev->info().arch, "psnr");
  if (candidates.empty() || candidates[0]->kind != ImageKind::nvidia_ptx)
    GTEST_SKIP() << "the first embedded image for " << dev->info().arch << " is not PTX (this build has "
                 << (candidates.empty() ? std::string("none") : image_kind_name(candidates[0]->kind)) << ")";
  if (!dev->api().link_ptx.available()) GTEST_SKIP() << "the driver has no cuLink* entry points";
  char dir_template[] = "/tmp/vmafxhip-ptx-cache-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  Module compiled, cached;
  ASSERT_OK(Module::load(dev, "psnr", &compiled));
  std::printf("first load: %s\n", compiled.origin().c_str());
  EXPECT_EQ(compiled.origin(), "embedded ptx " + std::string(candidates[0]->arch) + ", compiled by the driver for " +
                                   dev->info().arch);
  ASSERT_OK(Module::load(dev, "psnr", &cached));
  std::printf("second load: %s\n", cached.origin().c_str());
  EXPECT_EQ(cached.origin().rfind("cache " + dir + "/vmafxhip/psnr-ptx-", 0), 0u) << cached.origin();
  Kernel a, b;
  ASSERT_OK(compiled.function("psnr_sse_kernel", &a));
  ASSERT_OK(cached.function("psnr_sse_kernel", &b));
  // A damaged cache file is replaced by a fresh compilation.
  const std::string path = cached.origin().substr(6);
  cached.reset();
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("not a cubin", f);
    std::fclose(f);
  }
  Module again;
  ASSERT_OK(Module::load(dev, "psnr", &again));
  std::printf("after damaging the cache: %s\n", again.origin().c_str());
  EXPECT_EQ(again.origin(), compiled.origin());
  unsetenv("XDG_CACHE_HOME");
  const std::string cleanup = "rm -rf '" + dir + "'";
  EXPECT_EQ(std::system(cleanup.c_str()), 0);
}

// An fd that is not exportable device memory is refused as unsupported, naming the runtime's answer, and leaves the
// device usable (NVIDIA cannot import dma-bufs as opaque fds at all; AMD can).
TEST(HipDevice, RefusedImportDoesNotPoisonTheDevice) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  ExternalMemory m;
  EXPECT_EQ(ExternalMemory::import_fd(dev, 3, 4096, 4000, 200, &m).code(), Errc::out_of_range);
  const int fd = memfd_create("vmafx-not-gpu-memory", 0);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 1 << 20), 0);
  Status s = ExternalMemory::import_fd(dev, fd, 1 << 20, 0, 1 << 20, &m);
  std::printf("import of a memfd: %s\n", s.to_string().c_str());
  if (s) {
    EXPECT_NE(m.data(), nullptr);
    m.reset();
  } else {
    EXPECT_EQ(s.code(), Errc::unsupported);
    EXPECT_NE(s.message().find(dev->api().external_memory_import_fd.symbol), std::string::npos) << s.message();
  }
  close(fd);
  EXPECT_TRUE(dev->status().is_ok());
  std::vector<uint8_t> v(4096, 3), back(4096, 0);
  DeviceBuffer b;
  ASSERT_OK(DeviceBuffer::create(dev, v.size(), &b));
  ASSERT_OK(dev->copy_async(CopyKind::host_to_device, b.data(), v.data(), v.size()));
  ASSERT_OK(dev->copy_async(CopyKind::device_to_host, back.data(), b.data(), v.size()));
  ASSERT_OK(dev->synchronize());
  EXPECT_EQ(back, v);
}

// Runs last in this file: it poisons the Device it holds, then drops it; a later Device::get starts afresh.
TEST(HipDevice, ZZRuntimeFailureIsStickyAndNamed) {
  std::string first_message;
  {
    VMAFX_GPU_DEVICE_OR_SKIP(dev);
    Module m;
    ASSERT_OK(Module::load(dev, "psnr", &m));
    TypedKernel<psnr_sse_kernel_fn> k;
    ASSERT_OK(m.function("psnr_sse_kernel", &k));
    // 4096 threads per block exceeds every GPU's limit: the launch is refused on the spot, without harming the
    // context (no memory is touched).
    const DevicePlane none{};
    Status s = dev->launch(k, Dim3{1, 1, 1}, Dim3{4096, 1, 1}, 0, none, none, nullptr);
    ASSERT_EQ(s.code(), Errc::device_error) << s.to_string();
    std::printf("refused launch: %s\n", s.message().c_str());
    EXPECT_NE(s.message().find("psnr_sse_kernel"), std::string::npos);
    EXPECT_NE(s.message().find(dev->api().launch_kernel.symbol), std::string::npos);
    EXPECT_NE(s.message().find("device.cpp:"), std::string::npos);
    EXPECT_TRUE(dev->failed());
    first_message = dev->status().message();
    EXPECT_NE(first_message.find(s.message()), std::string::npos);
    // Everything after is refused with the first failure, without calling the runtime.
    DeviceBuffer b;
    EXPECT_EQ(DeviceBuffer::create(dev, 16, &b).message(), first_message);
    EXPECT_EQ(dev->synchronize().message(), first_message);
    EXPECT_EQ(dev->copy_async(CopyKind::host_to_device, nullptr, nullptr, 0).message(), first_message);
    EXPECT_EQ(dev->launch(k, Dim3{}, Dim3{}, 0, none, none, nullptr).message(), first_message);
  }
  std::shared_ptr<Device> fresh;
  ASSERT_OK(test::test_device(&fresh));
  EXPECT_FALSE(fresh->failed()) << "a new Device after the failed one was released starts clean";
  ASSERT_OK(fresh->synchronize());
}

}  // namespace
}  // namespace vmafx::hip
