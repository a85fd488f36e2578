// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA memory input on an NVIDIA GPU (vmafx/cuda.h, engine/hip/cuda_memory.cpp), without GStreamer:
//   - the engine runs on a CUDA context it is given (a second context made with cuCtxCreate, as GStreamer 1.22 makes
//     them): the device and its kernels live there, scores equal the CPU reference bit for bit, and a second context
//     for the same GPU is refused (busy) naming both while the first is adopted;
//   - NV12 frames in the scorer's context are read in place (the picture's pointers are the frame's) and score
//     exactly as the same frames from host memory (I420);
//   - frames of another context are copied device to device (cuMemcpyPeerAsync) and score the same; with
//     allow_copy false they are refused naming both contexts;
//   - a producer stream with writes still queued is waited for on the device (the frame read afterwards holds the
//     producer's last write); a planted import without the wait is run beside it and says whether the race shows;
//   - a release runs only after the library stream passed the point of release (an event recorded there is complete
//     when the release runs); the planted early release shows the difference when the GPU is still busy.
// Skips (exit 77) without an NVIDIA device.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_device.h"
#include "hip/cuda_memory.h"
#include "hip/device.h"
#include "import/test_hooks.h"
#include "support.h"
#include "vmafx/cuda.h"
#include "vmafx/scorer.h"

namespace vmafx::cuda {
namespace {

using hip::ContextScope;
using hip::Device;
using hip::DeviceBuffer;

#define ASSERT_OK(expr)                                         \
  do {                                                          \
    ::vmafx::Status s_ = (expr);                                \
    ASSERT_TRUE(s_.is_ok()) << #expr << ": " << s_.to_string(); \
  } while (0)

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The NVIDIA device of the suite, or a skip.
Status nvidia_device(std::shared_ptr<Device>* dev, std::string* skip) {
  Status s = Device::get(hip::Vendor::nvidia, -1, dev);
  if (s.code() == Errc::device_unavailable) *skip = "no NVIDIA device: " + s.message();
  return s;
}

#define NVIDIA_OR_SKIP(dev)                        \
  std::shared_ptr<Device> dev;                     \
  do {                                             \
    std::string skip_;                             \
    ::vmafx::Status s_ = nvidia_device(&dev, &skip_); \
    if (!skip_.empty()) GTEST_SKIP() << skip_;     \
    ASSERT_TRUE(s_.is_ok()) << s_.to_string();     \
  } while (0)

// The first present 8-bit public pair, or null.
const test::Pair* eight_bit_pair() {
  std::vector<std::string> absent;
  static std::vector<test::Pair> pairs = test::oracle_pairs_420(&absent);
  for (const auto& p : pairs)
    if (p.bpc == 8) return &p;
  return nullptr;
}

// An I420 host frame as NV12 in device memory of the context current on this thread (pitch rounded to 512 like
// NVDEC's): one allocation, chroma after the luma rows.
struct DeviceNv12 {
  void* ptr = nullptr;
  size_t pitch = 0, size = 0;
  uint32_t width = 0, height = 0;
};

std::vector<uint8_t> to_nv12(const PictureView& v, size_t pitch) {
  const uint32_t cw = (v.width + 1) / 2, ch = (v.height + 1) / 2;
  std::vector<uint8_t> out(pitch * (v.height + ch), 0);
  for (uint32_t y = 0; y < v.height; y++)
    std::memcpy(&out[y * pitch], v.planes[0].data + y * v.planes[0].stride, v.width);
  for (uint32_t y = 0; y < ch; y++)
    for (uint32_t x = 0; x < cw; x++) {
      out[(v.height + y) * pitch + 2 * x] = v.planes[1].data[y * v.planes[1].stride + x];
      out[(v.height + y) * pitch + 2 * x + 1] = v.planes[2].data[y * v.planes[2].stride + x];
    }
  return out;
}

// Allocates and fills with the runtime's table on the current context (any context: ours, or another one).
Status upload_nv12(const hip::Api& api, const PictureView& v, DeviceNv12* out) {
  out->width = v.width;
  out->height = v.height;
  out->pitch = (size_t(v.width) + 511) / 512 * 512;
  out->size = out->pitch * (v.height + (v.height + 1) / 2);
  VMAFX_HIP_CHECK_API(api, malloc_device, &out->ptr, out->size);
  const std::vector<uint8_t> host = to_nv12(v, out->pitch);
  VMAFX_HIP_CHECK_API(api, copy_h2d_async, out->ptr, host.data(), out->size, nullptr);
  VMAFX_HIP_CHECK_API(api, stream_synchronize, nullptr);
  return Status::ok();
}

CudaFrame describe(const DeviceNv12& d, void* context, int device) {
  CudaFrame f;
  f.format = {PixelFormat::nv12, Chroma::k420, 8};
  f.width = d.width;
  f.height = d.height;
  f.n_planes = 2;
  const auto base = uint64_t(reinterpret_cast<uintptr_t>(d.ptr));
  f.planes[0] = {base, ptrdiff_t(d.pitch), d.size};
  f.planes[1] = {base + d.pitch * d.height, ptrdiff_t(d.pitch), d.size - d.pitch * d.height};
  f.context = context;
  f.device = device;
  return f;
}

// Scores `frames` pairs: reference from the host clip, distorted given per frame. Every value of every frame.
Status score(Backend backend, const test::PairClips& clips, size_t frames,
             const std::function<PictureView(size_t)>& dist, std::vector<FrameScore>* out) {
  ScorerConfig cfg = test::scorer_config("vmaf_v0.6.1", {"psnr"});
  cfg.backend = backend;
  cfg.vendor = Vendor::nvidia;
  test::FrameLog log;
  std::unique_ptr<Scorer> scorer;
  VideoGeometry g{clips.ref.width(), clips.ref.height(), 8, Chroma::k420};
  VMAFX_TRY(test::make_scorer(cfg, g, &log, &scorer));
  for (size_t i = 0; i < frames; i++)
    VMAFX_TRY(scorer->submit(test::frame_pair(clips.ref.frame(i), dist(i), int64_t(i), i)));
  VMAFX_TRY(scorer->flush());
  *out = log.frames();
  return Status::ok();
}

void expect_same_scores(const std::vector<FrameScore>& a, const std::vector<FrameScore>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  size_t differ = 0;
  for (size_t i = 0; i < a.size(); i++) {
    ASSERT_EQ(a[i].values.size(), b[i].values.size());
    for (size_t k = 0; k < a[i].values.size(); k++) {
      const double x = a[i].values[k], y = b[i].values[k];
      if (!(x == y || (std::isnan(x) && std::isnan(y)))) {
        if (differ++ == 0) ADD_FAILURE() << what << ": frame " << i << " column " << k << ": " << x << " vs " << y;
      }
    }
  }
  std::printf("%s: %zu frames, %zu values differ\n", what.c_str(), a.size(), differ);
  EXPECT_EQ(differ, 0u) << what;
}

// Runs first: the adoption needs the GPU not yet open in this process.
TEST(CudaImportGpu, EngineRunsOnAGivenContext) {
  const hip::Api* api = nullptr;
  Status s = hip::load_api(hip::Vendor::nvidia, &api);
  if (s.code() == Errc::device_unavailable) GTEST_SKIP() << "no NVIDIA device: " << s.message();
  ASSERT_OK(s);
  const hip::CudaDriver* drv = nullptr;
  ASSERT_OK(hip::cuda_driver(*api, &drv));
  const test::Pair* pair = eight_bit_pair();
  if (!pair) GTEST_SKIP() << "no 8-bit public pair present";
  test::PairClips clips;
  ASSERT_OK(test::open_pair_clips(*pair, &clips));
  const size_t frames = std::min<size_t>(clips.ref.frames(), 8);

  hip::Context previous = nullptr;
  api->context_get_current.fn(&previous);
  int cudev = 0;
  ASSERT_EQ(drv->device_get(&cudev, 0), 0);
  void* ctx = nullptr;
  ASSERT_EQ(drv->ctx_create(&ctx, 0, cudev), 0) << "cuCtxCreate_v2";
  // Distorted frames allocated in that context, before the engine knows it.
  std::vector<DeviceNv12> dist(frames);
  for (size_t i = 0; i < frames; i++) ASSERT_OK(upload_nv12(*api, clips.dist.frame(i), &dist[i]));
  api->context_make_current.fn(previous);
  std::shared_ptr<void> owner(ctx, [drv, api, dist](void* c) mutable {
    api->context_make_current.fn(c);
    for (auto& d : dist) api->free_device.fn(d.ptr);
    drv->ctx_destroy(c);
  });

  EngineContext ec;
  s = adopt_context(ctx, 0, owner, &ec);
  if (s.code() == Errc::busy) GTEST_SKIP() << "the GPU is already open in this process: " << s.message();
  ASSERT_OK(s);
  owner.reset();  // the engine's device holds it now
  EXPECT_TRUE(ec.adopted);
  EXPECT_EQ(ec.context, ctx);
  std::printf("adopted: %s (%s)\n", describe_cuda_context(ec.context, ec.device).c_str(), ec.name.c_str());
  {
    std::shared_ptr<Device> dev;
    ASSERT_OK(Device::get(hip::Vendor::nvidia, 0, &dev));
    EXPECT_EQ(dev->context(), ctx) << "Device::get returns the device on the adopted context";
    EXPECT_TRUE(dev->adopted());

    // A second context for the same GPU while the first is adopted: busy, naming both.
    void* other = nullptr;
    ASSERT_EQ(drv->ctx_create(&other, 0, cudev), 0);
    api->context_make_current.fn(previous);
    EngineContext ec2;
    Status busy = adopt_context(other, 0, nullptr, &ec2);
    EXPECT_EQ(busy.code(), Errc::busy) << busy.to_string();
    std::printf("second context: %s\n", busy.to_string().c_str());
    drv->ctx_destroy(other);
    // A context of device 0 claimed for another device is refused before anything else.
    EXPECT_EQ(adopt_context(ctx, 1, nullptr, &ec2).code(), Errc::invalid_argument);
  }

  // The engine's kernels on the adopted context, frames of that context read in place.
  std::unique_ptr<CudaImporter> imp;
  ASSERT_OK(CudaImporter::create({}, &imp));
  EXPECT_EQ(imp->context(), ctx);
  std::vector<std::unique_ptr<CudaPicture>> pics(frames);
  for (size_t i = 0; i < frames; i++) ASSERT_OK(imp->import(describe(dist[i], ctx, 0), &pics[i]));
  EXPECT_EQ(imp->stats().in_place, frames);
  std::vector<FrameScore> gpu, cpu;
  ASSERT_OK(score(Backend::hip, clips, frames, [&](size_t i) { return pics[i]->view(); }, &gpu));
  ASSERT_OK(score(Backend::cpu, clips, frames, [&](size_t i) { return clips.dist.frame(i); }, &cpu));
  expect_same_scores(gpu, cpu, pair->name() + " NV12 in place on the adopted context vs the CPU on I420");
  for (auto& p : pics) p->release({});
  ASSERT_OK(imp->close());
  pics.clear();  // pictures hold the importer's release queue, which holds the device
  imp.reset();
  ec = {};  // the last hold: the device goes, then the owner destroys the context
  std::shared_ptr<Device> fresh;
  ASSERT_OK(Device::get(hip::Vendor::nvidia, 0, &fresh));
  EXPECT_NE(fresh->context(), ctx);
  EXPECT_FALSE(fresh->adopted()) << "once the adopted device is gone, the primary context is used again";
}

TEST(CudaImportGpu, FramesOfTheScorersContextAreReadInPlace) {
  NVIDIA_OR_SKIP(dev);
  const test::Pair* pair = eight_bit_pair();
  if (!pair) GTEST_SKIP() << "no 8-bit public pair present";
  test::PairClips clips;
  ASSERT_OK(test::open_pair_clips(*pair, &clips));
  const size_t frames = clips.ref.frames();
  std::vector<DeviceNv12> dist(frames);
  {
    ContextScope scope(*dev);
    for (size_t i = 0; i < frames; i++) ASSERT_OK(upload_nv12(dev->api(), clips.dist.frame(i), &dist[i]));
  }
  std::unique_ptr<CudaImporter> imp;
  ASSERT_OK(CudaImporter::create({}, &imp));
  std::printf("importer: %s\n", imp->description().c_str());
  std::vector<std::unique_ptr<CudaPicture>> pics(frames);
  for (size_t i = 0; i < frames; i++) {
    ASSERT_OK(imp->import(describe(dist[i], dev->context(), dev->info().index), &pics[i]));
    EXPECT_FALSE(pics[i]->copied());
    EXPECT_EQ(reinterpret_cast<const void*>(pics[i]->view().planes[0].data), dist[i].ptr) << "in place";
  }
  const CudaImportStats st = imp->stats();
  EXPECT_EQ(st.in_place, frames);
  EXPECT_EQ(st.copied, 0u);
  std::vector<FrameScore> device, host;
  ASSERT_OK(score(Backend::hip, clips, frames, [&](size_t i) { return pics[i]->view(); }, &device));
  ASSERT_OK(score(Backend::hip, clips, frames, [&](size_t i) { return clips.dist.frame(i); }, &host));
  expect_same_scores(device, host, pair->name() + " NV12 device frames in place vs I420 host frames");
  for (auto& p : pics) p->release({});
  ASSERT_OK(imp->close());
  ContextScope scope(*dev);
  for (auto& d : dist) dev->api().free_device.fn(d.ptr);
}

TEST(CudaImportGpu, FramesOfAnotherContextAreCopiedOrRefused) {
  NVIDIA_OR_SKIP(dev);
  const hip::Api& api = dev->api();
  const hip::CudaDriver* drv = nullptr;
  ASSERT_OK(hip::cuda_driver(api, &drv));
  const test::Pair* pair = eight_bit_pair();
  if (!pair) GTEST_SKIP() << "no 8-bit public pair present";
  test::PairClips clips;
  ASSERT_OK(test::open_pair_clips(*pair, &clips));
  const size_t frames = std::min<size_t>(clips.ref.frames(), 6);

  hip::Context previous = nullptr;
  api.context_get_current.fn(&previous);
  int cudev = 0;
  ASSERT_EQ(drv->device_get(&cudev, api.ordinal_of(dev->info().index)), 0);
  void* theirs = nullptr;
  ASSERT_EQ(drv->ctx_create(&theirs, 0, cudev), 0);
  std::vector<DeviceNv12> dist(frames);
  for (size_t i = 0; i < frames; i++) ASSERT_OK(upload_nv12(api, clips.dist.frame(i), &dist[i]));
  api.context_make_current.fn(previous);

  std::vector<std::string> warnings;
  CudaImporterConfig cfg;
  cfg.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  std::unique_ptr<CudaImporter> imp;
  ASSERT_OK(CudaImporter::create(cfg, &imp));
  std::vector<std::unique_ptr<CudaPicture>> pics(frames);
  for (size_t i = 0; i < frames; i++) {
    ASSERT_OK(imp->import(describe(dist[i], theirs, dev->info().index), &pics[i]));
    EXPECT_TRUE(pics[i]->copied());
    EXPECT_NE(reinterpret_cast<const void*>(pics[i]->view().planes[0].data), dist[i].ptr);
  }
  EXPECT_EQ(imp->stats().copied, frames);
  ASSERT_EQ(warnings.size(), 1u) << "the copy is said once";
  EXPECT_TRUE(contains(warnings[0], describe_cuda_context(theirs, dev->info().index))) << warnings[0];
  std::printf("copy: %s\n", warnings[0].c_str());
  std::vector<FrameScore> copied, host;
  ASSERT_OK(score(Backend::hip, clips, frames, [&](size_t i) { return pics[i]->view(); }, &copied));
  ASSERT_OK(score(Backend::hip, clips, frames, [&](size_t i) { return clips.dist.frame(i); }, &host));
  expect_same_scores(copied, host, pair->name() + " NV12 of another context, copied, vs I420 host frames");
  for (auto& p : pics) p->release({});
  ASSERT_OK(imp->close());
  EXPECT_LE(imp->stats().copy_frames, frames) << "copy frames are pooled";

  cfg.allow_copy = false;
  std::unique_ptr<CudaImporter> strict;
  ASSERT_OK(CudaImporter::create(cfg, &strict));
  std::unique_ptr<CudaPicture> pic;
  Status s = strict->import(describe(dist[0], theirs, dev->info().index), &pic);
  EXPECT_EQ(s.code(), Errc::device_unavailable) << s.to_string();
  EXPECT_TRUE(contains(s.message(), "allow-copy=false") &&
              contains(s.message(), describe_cuda_context(theirs, dev->info().index)))
      << s.message();
  std::printf("refused: %s\n", s.to_string().c_str());

  api.context_make_current.fn(theirs);
  for (auto& d : dist) api.free_device.fn(d.ptr);
  drv->ctx_destroy(theirs);
  api.context_make_current.fn(previous);
}

TEST(CudaImportGpu, ProducerStreamIsWaitedForOnTheDevice) {
  NVIDIA_OR_SKIP(dev);
  const hip::Api& api = dev->api();
  constexpr uint32_t kW = 1920, kH = 1080;
  DeviceBuffer frame, scratch;
  const size_t pitch = 2048, bytes = pitch * (kH + kH / 2);
  ASSERT_OK(DeviceBuffer::create(dev, bytes, &frame));
  const size_t scratch_words = size_t(256) << 20;  // 1 GiB: keeps the producer's stream busy for a while
  ASSERT_OK(DeviceBuffer::create(dev, scratch_words * 4, &scratch));
  hip::PinnedBuffer readback;
  ASSERT_OK(hip::PinnedBuffer::create(dev, bytes, &readback));
  hip::StreamHandle producer = nullptr;
  {
    ContextScope scope(*dev);
    ASSERT_OK(scope.status());
    ASSERT_EQ(api.stream_create.fn(&producer), 0) << "a producer stream in the scorer's context";
  }
  std::unique_ptr<CudaImporter> imp;
  ASSERT_OK(CudaImporter::create({}, &imp));
  CudaFrame f;
  f.format = {PixelFormat::nv12, Chroma::k420, 8};
  f.width = kW;
  f.height = kH;
  f.n_planes = 2;
  const auto base = uint64_t(reinterpret_cast<uintptr_t>(frame.data()));
  f.planes[0] = {base, ptrdiff_t(pitch), bytes};
  f.planes[1] = {base + pitch * kH, ptrdiff_t(pitch), bytes - pitch * kH};
  f.context = dev->context();
  f.device = dev->info().index;

  // One round: the frame holds 0x11; the producer's stream does slow work, then writes 0x77; the frame is imported
  // (with or without the producer's stream) and read back at once on the library stream.
  auto round = [&](bool with_stream, size_t* stale) -> Status {
    {
      ContextScope scope(*dev);
      VMAFX_TRY(scope.status());
      VMAFX_HIP_CHECK_API(api, memset_d8_async, frame.data(), 0x11, bytes, nullptr);
      VMAFX_HIP_CHECK_API(api, stream_synchronize, nullptr);
      for (int k = 0; k < 8; k++)
        VMAFX_HIP_CHECK_API(api, memset_d32_async, scratch.data(), uint32_t(k), scratch_words, producer);
      VMAFX_HIP_CHECK_API(api, memset_d8_async, frame.data(), 0x77, bytes, producer);
    }
    CudaFrame g = f;
    g.stream = with_stream ? producer : nullptr;
    std::unique_ptr<CudaPicture> pic;
    VMAFX_TRY(imp->import(g, &pic));
    VMAFX_TRY(dev->copy_async(hip::CopyKind::device_to_host, readback.data(), frame.data(), bytes));
    VMAFX_TRY(dev->synchronize());
    pic->release({});
    *stale = 0;
    for (size_t i = 0; i < bytes; i++) *stale += readback.data()[i] != 0x77;
    ContextScope scope(*dev);
    VMAFX_HIP_CHECK_API(api, stream_synchronize, producer);
    return Status::ok();
  };
  size_t stale = 0;
  ASSERT_OK(round(true, &stale));
  EXPECT_EQ(stale, 0u) << "the import waited for the producer's stream on the device";
  EXPECT_EQ(imp->stats().stream_waits, 1u);
  size_t planted = 0;
  ASSERT_OK(round(false, &planted));
  std::printf("with the producer's stream: %zu stale bytes of %zu; planted import without it: %zu stale (%s)\n", stale,
              bytes, planted, planted ? "the race shows: the wait is what orders the read" : "the race did not show");
  ASSERT_OK(imp->close());
  ContextScope scope(*dev);
  api.stream_destroy.fn(producer);
}

TEST(CudaImportGpu, ReleaseRunsBehindTheLibraryStream) {
  NVIDIA_OR_SKIP(dev);
  DeviceBuffer frame, scratch;
  ASSERT_OK(DeviceBuffer::create(dev, 2048 * 1620, &frame));
  const size_t words = size_t(256) << 20;
  ASSERT_OK(DeviceBuffer::create(dev, words * 4, &scratch));
  CudaFrame f;
  f.format = {PixelFormat::nv12, Chroma::k420, 8};
  f.width = 1920;
  f.height = 1080;
  f.n_planes = 2;
  const auto base = uint64_t(reinterpret_cast<uintptr_t>(frame.data()));
  f.planes[0] = {base, 2048, 2048 * 1620};
  f.planes[1] = {base + 2048 * 1080, 2048, 2048 * 540};
  f.context = dev->context();
  f.device = dev->info().index;
  for (bool planted : {false, true}) {
    CudaImporterConfig cfg;
    const import_hooks::EarlyReleasePlanted plant(planted);  // read when the importer is created
    std::unique_ptr<CudaImporter> imp;
    ASSERT_OK(CudaImporter::create(cfg, &imp));
    std::unique_ptr<CudaPicture> pic;
    ASSERT_OK(imp->import(f, &pic));
    // The GPU is busy when the release is asked for; an event marks that point of the library stream.
    for (int k = 0; k < 8; k++) ASSERT_OK(dev->memset_d32_async(scratch.data(), uint32_t(k), words));
    hip::Event point;
    ASSERT_OK(hip::Event::create(dev, &point));
    ASSERT_OK(point.record());
    std::atomic<int> seen{-1};  // 1: the point had passed when the release ran, 0: not yet
    pic->release([&] { seen = point.query().is_ok() ? 1 : 0; });
    ASSERT_OK(imp->close());
    ASSERT_NE(seen.load(), -1) << "the release ran by close()";
    if (!planted) {
      EXPECT_EQ(seen.load(), 1) << "the release ran before the library stream passed it";
    } else {
      std::printf("planted early release: the GPU %s still busy when it ran\n", seen.load() == 0 ? "was" : "was not");
    }
  }
}

}  // namespace
}  // namespace vmafx::cuda
