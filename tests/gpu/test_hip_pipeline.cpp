// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU motion kernel and the HIP frame pipeline against the CPU reference, exactly.
//
// motion_sad_kernel: seeded, edge-biased plane pairs (random, all-min against all-max, min/max noise, small
// differences) of 8, 10, 12 and 16 bits (16-bit words, the sample in the high bits with noise below, interleaved
// samples), previous and current in different layouts and pitches, 3x3 to 3840x2160, a row whose 32-bit sum wraps,
// and the run-time compiled kernel. A mismatch is located by the kernel's per-row sums and printed with its seed.
//
// HipPipeline: host frames (staged through the pinned ring, one upload per frame) and device frames (read in place,
// no upload) give the CPU's motion and PSNR scores; motion's previous reference survives host/device changes; a frame
// of motion alone uploads only the reference luma; a feature failing in enqueue or finish reaches every `done` of
// its frame; submit_frame blocks only when every slot is busy. Skips (exit 77) without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <future>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "assert_ok.h"
#include "cpu/motion.h"
#include "cpu/plane.h"
#include "cpu/psnr.h"
#include "gpu_device.h"
#include "hip/backend.h"
#include "hip/motion_gpu.h"
#include "hip/pipeline.h"
#include "hip/psnr_gpu.h"
#include "hip/test_hooks.h"

namespace vmafx::hip {
namespace {

// ---- motion_sad_kernel ---------------------------------------------------------------------------------------

struct HostPlane {
  std::vector<uint8_t> bytes;
  size_t pitch = 0;
  uint32_t w = 0, h = 0;
  unsigned bpc = 8;
  uint8_t word = 1, shift = 0, step = 1;

  void put(uint32_t x, uint32_t y, uint32_t v, uint32_t noise) {
    uint8_t* row = bytes.data() + size_t(y) * pitch;
    if (word == 1) {
      row[size_t(x) * step] = uint8_t(v);
      return;
    }
    const uint32_t w16 = (v << shift) | (shift ? (noise & ((1u << shift) - 1)) : 0);
    row[size_t(x) * step * 2] = uint8_t(w16);
    row[size_t(x) * step * 2 + 1] = uint8_t(w16 >> 8);
  }
  cpu::Plane cpu() const {
    cpu::Plane p;
    p.data = bytes.data();
    p.stride = ptrdiff_t(pitch);
    p.w = w;
    p.h = h;
    p.bytes = word;
    p.shift = shift;
    p.step = step;
    p.bpc = uint8_t(bpc);
    return p;
  }
};

struct Format {
  const char* name;
  unsigned bpc;
  uint8_t word, shift, step;
};
const Format kFormats[] = {
    {"8-bit", 8, 1, 0, 1},
    {"10-bit", 10, 2, 0, 1},
    {"12-bit", 12, 2, 0, 1},
    {"16-bit", 16, 2, 0, 1},
    {"10-bit in the high bits (P010)", 10, 2, 6, 1},
    {"8-bit interleaved", 8, 1, 0, 2},
    {"16-bit interleaved", 16, 2, 0, 2},
};

enum class Content { random, extremes, noise, near };
const char* content_name(Content c) {
  switch (c) {
    case Content::random: return "random";
    case Content::extremes: return "all-max against all-min";
    case Content::noise: return "min/max noise";
    case Content::near: return "small differences";
  }
  return "?";
}

HostPlane make_plane(const Format& f, uint32_t w, uint32_t h, size_t pad, std::mt19937* rng) {
  HostPlane p;
  p.w = w;
  p.h = h;
  p.bpc = f.bpc;
  p.word = f.word;
  p.shift = f.shift;
  p.step = f.step;
  p.pitch = size_t(w) * f.step * f.word + pad;
  p.bytes.resize(p.pitch * h);
  for (auto& b : p.bytes) b = uint8_t((*rng)());
  return p;
}

void fill_pair(Content c, std::mt19937* rng, HostPlane* prev, HostPlane* cur) {
  const uint32_t max = (1u << cur->bpc) - 1;
  for (uint32_t y = 0; y < cur->h; ++y) {
    for (uint32_t x = 0; x < cur->w; ++x) {
      uint32_t a = 0, b = 0;
      switch (c) {
        case Content::random: a = (*rng)() & max; b = (*rng)() & max; break;
        case Content::extremes: a = max; b = 0; break;
        case Content::noise: a = ((*rng)() & 1) ? max : 0; b = ((*rng)() & 1) ? max : 0; break;
        case Content::near:
          a = (*rng)() & max;
          b = uint32_t(std::clamp(int(a) + int((*rng)() % 9) - 4, 0, int(max)));
          break;
      }
      prev->put(x, y, a, (*rng)());
      cur->put(x, y, b, (*rng)());
    }
  }
}

struct GpuPlane {
  DeviceBuffer buffer;
  DevicePlane view;
};

Status upload(const std::shared_ptr<Device>& dev, const HostPlane& p, size_t dev_pitch, GpuPlane* out) {
  const size_t row = size_t(p.w) * p.step * p.word;
  VMAFX_TRY(DeviceBuffer::create(dev, dev_pitch * p.h, &out->buffer));
  VMAFX_TRY(dev->copy_2d_async({CopyKind::host_to_device, out->buffer.data(), dev_pitch, p.bytes.data(), p.pitch,
                                row, p.h}));
  out->view = {out->buffer.data(), dev_pitch, p.w, p.h, p.word, p.shift, p.step};
  return Status::ok();
}

// Runs the kernel once; *sad and the per-row sums come back.
Status gpu_motion(const std::shared_ptr<Device>& dev, const MotionSad& k, const DevicePlane& prev,
                  const DevicePlane& cur, unsigned bpc, uint64_t* sad, std::vector<uint32_t>* rows) {
  DeviceBuffer acc, row_sums;
  VMAFX_TRY(DeviceBuffer::create(dev, 8, &acc));
  VMAFX_TRY(DeviceBuffer::create(dev, size_t(cur.height) * 4, &row_sums));
  VMAFX_TRY(dev->memset_d32_async(acc.data(), 0, 2));
  VMAFX_TRY(dev->memset_d32_async(row_sums.data(), 0xdeadbeef, cur.height));
  VMAFX_TRY(k.enqueue(prev, cur, bpc, acc.data(), row_sums.data()));
  rows->assign(cur.height, 0);
  VMAFX_TRY(dev->copy_async(CopyKind::device_to_host, sad, acc.data(), 8));
  VMAFX_TRY(dev->copy_async(CopyKind::device_to_host, rows->data(), row_sums.data(), size_t(cur.height) * 4));
  return dev->synchronize();
}

// One pair: GPU SAD against cpu::motion_sad; on a mismatch the first row whose sum differs.
void check_motion(const std::shared_ptr<Device>& dev, const MotionSad& k, uint32_t seed, const Format& f,
                  const Format& cur_f, Content c, uint32_t w, uint32_t h) {
  std::mt19937 rng(seed);
  HostPlane prev = make_plane(f, w, h, seed % 5, &rng);
  HostPlane cur = make_plane(cur_f, w, h, (seed / 5) % 3, &rng);
  fill_pair(c, &rng, &prev, &cur);
  GpuPlane gp, gc;
  const size_t prow = size_t(w) * f.step * f.word, crow = size_t(w) * cur_f.step * cur_f.word;
  ASSERT_OK(upload(dev, prev, prow + 3, &gp));                       // odd pitch
  ASSERT_OK(upload(dev, cur, (crow + 255) / 256 * 256, &gc));        // aligned pitch
  uint64_t got = 0;
  std::vector<uint32_t> rows;
  ASSERT_OK(gpu_motion(dev, k, gp.view, gc.view, f.bpc, &got, &rows));
  std::vector<int32_t> scratch(w);
  const uint64_t want = cpu::motion_sad(prev.cpu(), cur.cpu(), scratch.data());
  if (got == want) return;
  std::string where = "no single row differs";
  for (uint32_t y = 0; y < h; ++y) {
    cpu::motion_blur_diff_row(prev.cpu(), cur.cpu(), y, scratch.data());
    const uint32_t want_row = cpu::motion_row_sad(scratch.data(), w);
    if (rows[y] != want_row) {
      where = "first row that differs: y=" + std::to_string(y) + " GPU " + std::to_string(rows[y]) + " CPU " +
              std::to_string(want_row);
      break;
    }
  }
  ADD_FAILURE() << content_name(c) << " " << f.name << " (current: " << cur_f.name << ") " << w << "x" << h
                << " seed " << seed << ": GPU SAD " << got << ", CPU " << want << "; " << where;
}

struct Size {
  uint32_t w, h;
};
const Size kSizes[] = {{3, 3}, {4, 3}, {3, 9}, {17, 13}, {257, 5}, {333, 197}, {1919, 1079}, {1920, 1080},
                       {3840, 2160}};

TEST(HipMotionSad, MatchesCpuOnEdgeBiasedPlanes) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  MotionSad k;
  ASSERT_OK(MotionSad::create(dev, &k));
  std::printf("motion_sad_kernel from %s on %s\n", k.module().origin().c_str(), dev->info().name.c_str());
  uint32_t seed = 20261202;
  int runs = 0;
  for (const Format& f : kFormats) {
    // The current plane in the packed layout of the same depth (the previous one in the format under test).
    const Format packed = f.bpc == 8 ? kFormats[0] : Format{"16-bit words", f.bpc, 2, 0, 1};
    for (const Size& s : kSizes) {
      for (Content c : {Content::random, Content::extremes, Content::noise, Content::near}) {
        check_motion(dev, k, seed, f, (seed & 1) ? f : packed, c, s.w, s.h);
        ++seed;
        ++runs;
        if (HasFailure()) return;
      }
    }
  }
  std::printf("%d plane pairs (%zu formats x %zu sizes x 4 contents): GPU SAD equal to cpu::motion_sad\n", runs,
              std::size(kFormats), std::size(kSizes));
}

TEST(HipMotionSad, RowSumWrapsLikeLibvmaf) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  MotionSad k;
  ASSERT_OK(MotionSad::create(dev, &k));
  // 70000 * 65535 > 2^32: libvmaf's 32-bit row sum wraps; so must the kernel's.
  check_motion(dev, k, 99, kFormats[0], kFormats[0], Content::extremes, 70000, 3);
  check_motion(dev, k, 100, kFormats[1], kFormats[1], Content::extremes, 70000, 5);
  check_motion(dev, k, 101, kFormats[1], kFormats[1], Content::random, 70001, 4);
}

TEST(HipMotionSad, RunTimeCompiledKernelMatchesCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Rtc* rtc = nullptr;
  Status rs = load_rtc(dev->api(), &rtc);
  if (!rs) GTEST_SKIP() << "no run-time compiler on this machine: " << rs.message();
  ModuleOptions rtc_only;
  rtc_only.use_embedded = false;
  rtc_only.use_cache = false;
  MotionSad k;
  ASSERT_OK(MotionSad::create(dev, &k, rtc_only));
  std::printf("motion_sad_kernel from %s\n", k.module().origin().c_str());
  check_motion(dev, k, 4242, kFormats[0], kFormats[0], Content::random, 1920, 1080);
  check_motion(dev, k, 4243, kFormats[4], kFormats[1], Content::near, 333, 197);
  check_motion(dev, k, 4244, kFormats[3], kFormats[3], Content::noise, 3840, 2160);
}

TEST(HipMotionSad, KernelTime) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  MotionSad k;
  ASSERT_OK(MotionSad::create(dev, &k));
  DeviceBuffer acc;
  ASSERT_OK(DeviceBuffer::create(dev, 8, &acc));
  for (const Size& s : {Size{1920, 1080}, Size{3840, 2160}}) {
    for (unsigned word : {1u, 2u}) {
      DeviceBuffer a, b;
      const size_t pitch = size_t(s.w) * word;
      ASSERT_OK(DeviceBuffer::create(dev, pitch * s.h, &a));
      ASSERT_OK(DeviceBuffer::create(dev, pitch * s.h, &b));
      ASSERT_OK(dev->memset_d32_async(a.data(), 0x01020304, pitch * s.h / 4));
      ASSERT_OK(dev->memset_d32_async(b.data(), 0x04030201, pitch * s.h / 4));
      const DevicePlane pa{a.data(), pitch, s.w, s.h, uint8_t(word), 0, 1}, pb{b.data(), pitch, s.w, s.h,
                                                                                uint8_t(word), 0, 1};
      const unsigned bpc = word == 1 ? 8 : 10;
      ASSERT_OK(k.enqueue(pa, pb, bpc, acc.data()));  // warm-up
      ASSERT_OK(dev->synchronize());
      const int n = 200;
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < n; ++i) ASSERT_OK(k.enqueue(pa, pb, bpc, acc.data()));
      ASSERT_OK(dev->synchronize());
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
      std::printf("motion_sad_kernel %ux%u %u-bit: %.1f us per launch (%d back to back)\n", s.w, s.h, bpc, us, n);
    }
  }
}

// ---- HipPipeline ---------------------------------------------------------------------------------------------

// A host picture in one buffer (I420 / yuv420p10le layout), and the CPU's scores of a stream of them.
struct TestFrame {
  std::vector<uint8_t> bytes;
  PictureView view;
};

void make_frame(const FormatInfo& fmt, uint32_t w, uint32_t h, uint32_t seed, const TestFrame* like, TestFrame* out) {
  PlaneLayout layout[3];
  size_t size = 0;
  const unsigned n = packed_layout(fmt, w, h, layout, &size);
  out->bytes.assign(size, 0);
  std::mt19937 rng(seed);
  const uint32_t max = (1u << fmt.bit_depth) - 1;
  const bool words = fmt.bit_depth > 8;
  const size_t samples = words ? size / 2 : size;
  for (size_t i = 0; i < samples; ++i) {
    uint32_t v;
    if (like) {
      const uint32_t base = words ? uint32_t(like->bytes[2 * i] | (like->bytes[2 * i + 1] << 8)) : like->bytes[i];
      v = uint32_t(std::clamp(int(base) + int(rng() % 13) - 6, 0, int(max)));
    } else {
      v = rng() & max;
    }
    if (words) {
      out->bytes[2 * i] = uint8_t(v);
      out->bytes[2 * i + 1] = uint8_t(v >> 8);
    } else {
      out->bytes[i] = uint8_t(v);
    }
  }
  ASSERT_OK(make_picture_view(fmt, w, h, out->bytes.data(), size, layout, n, &out->view));
}

struct Stream {
  std::vector<TestFrame> ref, dist;
  std::vector<double> motion;               // the CPU's motion sad score per frame
  std::vector<cpu::PsnrScores> psnr;
};

void make_stream(unsigned bpc, uint32_t w, uint32_t h, int frames, uint32_t seed, Stream* s) {
  FormatInfo fmt;
  ASSERT_OK(parse_pixel_format("420", bpc, &fmt));
  s->ref.resize(size_t(frames));
  s->dist.resize(size_t(frames));
  for (int i = 0; i < frames; ++i) {
    // The reference moves a little from frame to frame; the distorted one is the reference with noise.
    make_frame(fmt, w, h, seed + 2 * uint32_t(i), i ? &s->ref[size_t(i) - 1] : nullptr, &s->ref[size_t(i)]);
    make_frame(fmt, w, h, seed + 2 * uint32_t(i) + 1, &s->ref[size_t(i)], &s->dist[size_t(i)]);
  }
  std::vector<int32_t> scratch(w);
  for (int i = 0; i < frames; ++i) {
    double m = 0;
    if (i) {
      const cpu::Plane cur = cpu::luma_plane(s->ref[size_t(i)].view);
      m = cpu::motion_score_from_sad(cpu::motion_sad(cpu::luma_plane(s->ref[size_t(i) - 1].view), cur,
                                                     scratch.data()),
                                     cur.w, cur.h);
    }
    s->motion.push_back(m);
    cpu::PsnrScores p;
    ASSERT_OK(cpu::psnr(s->ref[size_t(i)].view, s->dist[size_t(i)].view, &p));
    s->psnr.push_back(p);
  }
}

// A copy of a host frame in device memory, viewed as a device picture.
struct DeviceFrame {
  DeviceBuffer buffer;
  PictureView view;
};

Status to_device(const std::shared_ptr<Device>& dev, const TestFrame& f, DeviceFrame* out) {
  VMAFX_TRY(DeviceBuffer::create(dev, f.bytes.size(), &out->buffer));
  VMAFX_TRY(dev->copy_async(CopyKind::host_to_device, out->buffer.data(), f.bytes.data(), f.bytes.size()));
  VMAFX_TRY(dev->synchronize());
  out->view = f.view;
  out->view.memory = MemoryKind::device;
  out->view.device = dev->info().index;
  for (auto& p : out->view.planes)
    if (p.data) p.data = out->buffer.as<uint8_t>() + (p.data - f.bytes.data());
  return Status::ok();
}

struct Results {
  std::vector<std::vector<double>> motion, psnr;
  std::vector<Status> status;
  std::atomic<int> done{0};
  std::mutex mu;
};

struct MotionPsnrPipeline {
  std::shared_ptr<HipPipeline> pipeline;
  unsigned motion_id = 0, psnr_id = 0;
};

// Lanes of the pipelines made below: `lanes` (0: the default, default_lanes()); with per_lane_motion and
// per_lane_psnr one instance of that feature per lane, else one (the serial lane when there are lanes).
struct LaneSetup {
  unsigned lanes = 0;
  bool per_lane_motion = false, per_lane_psnr = false;
};

Status make_pipeline(const std::shared_ptr<Device>& dev, unsigned bpc, uint32_t w, uint32_t h, unsigned slots,
                     MotionPsnrPipeline* out, int copy_threads = -1, int upload_stream = -1,
                     const LaneSetup& lanes = {}, int graphs = -1) {
  PipelineConfig pc;
  pc.graphs = graphs;
  pc.width = w;
  pc.height = h;
  pc.bpc = bpc;
  pc.slots = slots;
  pc.copy_threads = copy_threads;
  pc.upload_stream = upload_stream;
  pc.lanes = lanes.lanes;
  VMAFX_TRY(HipPipeline::create(dev, pc, &out->pipeline));
  const unsigned n = out->pipeline->lanes();
  std::vector<std::unique_ptr<GpuFeature>> ms, ps;
  for (unsigned i = 0; i < (lanes.per_lane_motion ? n : 1u); ++i) {
    std::unique_ptr<MotionGpu> m;
    VMAFX_TRY(MotionGpu::create(dev, w, h, bpc, slots, &m));
    ms.push_back(std::move(m));
  }
  for (unsigned i = 0; i < (lanes.per_lane_psnr ? n : 1u); ++i) {
    std::unique_ptr<PsnrGpu> p;
    VMAFX_TRY(PsnrGpu::create(dev, w, h, bpc, Chroma::k420, slots, &p));
    ps.push_back(std::move(p));
  }
  FeatureNeeds mn;
  mn.dist = false;
  mn.prev_ref = true;
  FeatureNeeds pn;
  pn.chroma = true;
  VMAFX_TRY(out->pipeline->add_feature(std::move(ms), mn, &out->motion_id));
  VMAFX_TRY(out->pipeline->add_feature(std::move(ps), pn, &out->psnr_id));
  return Status::ok();
}

// Runs frames [0, n) through the pipeline; `device[i]` picks device pictures for frame i.
void run_stream(MotionPsnrPipeline& mp, const std::vector<const PictureView*>& refs,
                const std::vector<const PictureView*>& dists, Results* r) {
  const size_t n = refs.size();
  r->motion.assign(n, std::vector<double>(1, -1.0));
  r->psnr.assign(n, std::vector<double>(3, -1.0));
  r->status.assign(2 * n, Status::ok());
  r->done = 0;
  for (size_t i = 0; i < n; ++i) {
    // One done per frame, for both of its parts.
    auto done = [r, i](Status s) {
      std::lock_guard<std::mutex> lk(r->mu);
      r->status[2 * i] = s;
      r->status[2 * i + 1] = s;
      ++r->done;
    };
    const PictureView* prev = i ? refs[i - 1] : nullptr;
    ASSERT_OK(mp.pipeline->submit(i, *refs[i], *dists[i], prev,
                                  {{mp.motion_id, r->motion[i].data()}, {mp.psnr_id, r->psnr[i].data()}}, done));
  }
  ASSERT_OK(mp.pipeline->drain());
  EXPECT_EQ(r->done.load(), int(n)) << "every frame's done called once";
}

void expect_scores(const Stream& s, const Results& r, const std::string& what) {
  for (size_t i = 0; i < r.motion.size(); ++i) {
    EXPECT_TRUE(r.status[2 * i].is_ok()) << what << " frame " << i << ": " << r.status[2 * i].to_string();
    EXPECT_TRUE(r.status[2 * i + 1].is_ok()) << what << " frame " << i << ": " << r.status[2 * i + 1].to_string();
    EXPECT_EQ(r.motion[i][0], s.motion[i]) << what << " frame " << i << " motion sad score";
    EXPECT_EQ(r.psnr[i][0], s.psnr[i].y) << what << " frame " << i << " psnr_y";
    EXPECT_EQ(r.psnr[i][1], s.psnr[i].cb) << what << " frame " << i << " psnr_cb";
    EXPECT_EQ(r.psnr[i][2], s.psnr[i].cr) << what << " frame " << i << " psnr_cr";
  }
}

TEST(HipPipeline, HostAndDeviceFramesGiveCpuScores) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  struct Case {
    unsigned bpc;
    uint32_t w, h;
    int frames;
    unsigned slots;
  };
  for (const Case& c : {Case{8, 333, 197, 11, 3}, Case{10, 321, 241, 9, 4}, Case{8, 1920, 1080, 10, 6},
                        Case{10, 1920, 1080, 6, 6}}) {
    const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h) + " " + std::to_string(c.bpc) +
                             "-bit, " + std::to_string(c.slots) + " slots";
    Stream s;
    make_stream(c.bpc, c.w, c.h, c.frames, 1000 + c.w, &s);
    if (HasFatalFailure()) return;
    std::vector<const PictureView*> refs, dists;
    for (int i = 0; i < c.frames; ++i) {
      refs.push_back(&s.ref[size_t(i)].view);
      dists.push_back(&s.dist[size_t(i)].view);
    }
    // Host frames; 1080p staged by 3 helper threads besides the submitting one (whatever the machine's cores).
    {
      MotionPsnrPipeline mp;
      ASSERT_OK(make_pipeline(dev, c.bpc, c.w, c.h, c.slots, &mp, c.w >= 1920 ? 3 : -1));
      Results r;
      run_stream(mp, refs, dists, &r);
      expect_scores(s, r, what + ", host frames");
      const PipelineStats st = mp.pipeline->stats();
      EXPECT_EQ(st.host_frames, uint64_t(c.frames));
      EXPECT_EQ(st.upload_calls, uint64_t(c.frames)) << "one upload per frame for both features";
      std::printf("%s, host frames: %d frames, %llu uploads, %.2f MB uploaded per frame, %llu submits waited\n",
                  what.c_str(), c.frames, (unsigned long long)st.upload_calls,
                  double(st.uploaded_bytes) / c.frames / 1e6, (unsigned long long)st.blocked_submits);
    }
    // The same frames as device pictures: read in place.
    {
      std::vector<DeviceFrame> dref(size_t(c.frames)), ddist(size_t(c.frames));
      std::vector<const PictureView*> drefs, ddists;
      for (int i = 0; i < c.frames; ++i) {
        ASSERT_OK(to_device(dev, s.ref[size_t(i)], &dref[size_t(i)]));
        ASSERT_OK(to_device(dev, s.dist[size_t(i)], &ddist[size_t(i)]));
        drefs.push_back(&dref[size_t(i)].view);
        ddists.push_back(&ddist[size_t(i)].view);
      }
      MotionPsnrPipeline mp;
      ASSERT_OK(make_pipeline(dev, c.bpc, c.w, c.h, c.slots, &mp));
      Results r;
      run_stream(mp, drefs, ddists, &r);
      expect_scores(s, r, what + ", device frames");
      const PipelineStats st = mp.pipeline->stats();
      EXPECT_EQ(st.device_frames, uint64_t(c.frames));
      EXPECT_EQ(st.upload_calls, 0u) << "device frames are read in place";
      EXPECT_EQ(st.staged_bytes, 0u);
      // Mixed: host, device, device, host, ... (motion's previous luma comes from either side).
      std::vector<const PictureView*> mrefs, mdists;
      for (int i = 0; i < c.frames; ++i) {
        const bool on_device = (i % 3) != 0;
        mrefs.push_back(on_device ? drefs[size_t(i)] : refs[size_t(i)]);
        mdists.push_back(on_device ? ddists[size_t(i)] : dists[size_t(i)]);
      }
      MotionPsnrPipeline mixed;
      ASSERT_OK(make_pipeline(dev, c.bpc, c.w, c.h, c.slots, &mixed));
      Results rm;
      run_stream(mixed, mrefs, mdists, &rm);
      expect_scores(s, rm, what + ", host and device frames mixed");
      // Mixed within a frame (a GL texture frame paired with system memory): device reference and host distorted on
      // even frames, host reference and device distorted on odd ones. The host picture is staged and uploaded, the
      // device one read in place.
      std::vector<const PictureView*> xrefs, xdists;
      for (int i = 0; i < c.frames; ++i) {
        const bool ref_on_device = (i % 2) == 0;
        xrefs.push_back(ref_on_device ? drefs[size_t(i)] : refs[size_t(i)]);
        xdists.push_back(ref_on_device ? dists[size_t(i)] : ddists[size_t(i)]);
      }
      MotionPsnrPipeline within;
      ASSERT_OK(make_pipeline(dev, c.bpc, c.w, c.h, c.slots, &within));
      Results rx;
      run_stream(within, xrefs, xdists, &rx);
      expect_scores(s, rx, what + ", one picture in host and one in device memory");
      const PipelineStats sx = within.pipeline->stats();
      EXPECT_EQ(sx.host_frames, uint64_t(c.frames));
      EXPECT_EQ(sx.mixed_frames, uint64_t(c.frames));
      EXPECT_EQ(sx.upload_calls, uint64_t(c.frames)) << "one upload per frame, of its host picture";
    }
    if (HasFailure()) return;
  }
}

// Frames on several lanes give the CPU's scores: per-lane and serial features, host, device and mixed frames,
// fewer slots than lanes, and the plane sets' two readers (the frame and its successor's motion) on different lanes.
TEST(HipPipeline, LanesGiveCpuScores) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  if (!dev->can_order_streams()) GTEST_SKIP() << "lanes need the upload stream, which this runtime cannot order";
  struct Case {
    unsigned bpc;
    uint32_t w, h;
    int frames;
    unsigned slots, lanes;
    bool per_lane_motion, per_lane_psnr;
  };
  for (const Case& c : {Case{8, 333, 197, 17, 6, 2, true, true}, Case{10, 640, 360, 13, 5, 3, false, true},
                        Case{8, 1920, 1080, 11, 7, 5, true, false}, Case{8, 321, 241, 9, 2, 4, true, true},
                        Case{10, 1920, 1080, 8, 6, 4, false, false}}) {
    const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h) + " " + std::to_string(c.bpc) +
                             "-bit, " + std::to_string(c.slots) + " slots, " + std::to_string(c.lanes) +
                             " lanes, motion " + (c.per_lane_motion ? "per lane" : "serial") + ", psnr " +
                             (c.per_lane_psnr ? "per lane" : "serial");
    Stream s;
    make_stream(c.bpc, c.w, c.h, c.frames, 4000 + c.w, &s);
    if (HasFatalFailure()) return;
    std::vector<DeviceFrame> dref(size_t(c.frames)), ddist(size_t(c.frames));
    std::vector<const PictureView*> refs, dists, mrefs, mdists;
    for (int i = 0; i < c.frames; ++i) {
      ASSERT_OK(to_device(dev, s.ref[size_t(i)], &dref[size_t(i)]));
      ASSERT_OK(to_device(dev, s.dist[size_t(i)], &ddist[size_t(i)]));
      refs.push_back(&s.ref[size_t(i)].view);
      dists.push_back(&s.dist[size_t(i)].view);
      const bool on_device = (i % 3) == 1;
      mrefs.push_back(on_device ? &dref[size_t(i)].view : refs.back());
      mdists.push_back(on_device ? &ddist[size_t(i)].view : dists.back());
    }
    const LaneSetup ls{c.lanes, c.per_lane_motion, c.per_lane_psnr};
    for (int pass = 0; pass < 2; ++pass) {
      MotionPsnrPipeline mp;
      ASSERT_OK(make_pipeline(dev, c.bpc, c.w, c.h, c.slots, &mp, -1, 1, ls));
      EXPECT_EQ(mp.pipeline->lanes(), c.lanes) << what;
      Results r;
      run_stream(mp, pass ? mrefs : refs, pass ? mdists : dists, &r);
      expect_scores(s, r, what + (pass ? ", host and device frames mixed" : ", host frames"));
    }
    if (HasFailure()) return;
  }
  // One lane where the upload stream is off (the library stream's two plane sets are ordered by that stream only),
  // and a serial feature offered per lane is refused.
  MotionPsnrPipeline off;
  ASSERT_OK(make_pipeline(dev, 8, 64, 48, 4, &off, -1, 0, LaneSetup{4, true, true}));
  EXPECT_EQ(off.pipeline->lanes(), 1u);
  PipelineConfig pc;
  pc.width = 64;
  pc.height = 48;
  pc.slots = 4;
  pc.upload_stream = 1;
  pc.lanes = 2;
  std::shared_ptr<HipPipeline> p;
  ASSERT_OK(HipPipeline::create(dev, pc, &p));
  ASSERT_EQ(p->lanes(), 2u);
  cpu::MotionOptions five;
  five.five_frame_window = true;
  std::vector<std::unique_ptr<GpuFeature>> two;
  for (int i = 0; i < 2; ++i) {
    std::unique_ptr<MotionGpu> m;
    ASSERT_OK(MotionGpu::create(dev, 64, 48, 8, 4, five, &m));
    two.push_back(std::move(m));
  }
  unsigned id = 0;
  const Status refused = p->add_feature(std::move(two), FeatureNeeds{}, &id);
  EXPECT_EQ(refused.code(), Errc::invalid_argument) << refused.to_string();
  pc.lanes = Device::kMaxLanes;
  EXPECT_EQ(HipPipeline::create(dev, pc, &p).code(), Errc::invalid_argument);
}

// Frame graphs: with graphs on, host frames (whose planes lie in the slot's plane set) are queued as cached graphs
// after one capture per slot and lane, device frames in their own buffers are captured until the cache gives up and
// issues them call by call; every score is the CPU's, as with graphs off.
// Pipelines on one device share its lanes. Each fed from its own thread with frame graphs on, as the element's
// sessions and a ladder's renditions are: one pipeline's capture must not take in, or be broken by, the work another
// pipeline queues on the same lane meanwhile (captures run on the cache's own streams). Every pipeline's scores equal
// the CPU's, and each captured and replayed graphs.
TEST(HipPipeline, PipelinesOnOneDeviceCaptureAndReplayFromTheirOwnThreads) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  if (!dev->api().has_graphs()) GTEST_SKIP() << "the runtime has no graphs";
  if (!dev->can_order_streams()) GTEST_SKIP() << "lanes need the upload stream, which this runtime cannot order";
  constexpr int kPipelines = 4, kFrames = 48, kRounds = 3;
  const uint32_t w = 640, h = 360;
  Stream s;
  make_stream(8, w, h, kFrames, 9400, &s);
  if (HasFatalFailure()) return;
  std::vector<const PictureView*> refs, dists;
  for (int i = 0; i < kFrames; ++i) {
    refs.push_back(&s.ref[size_t(i)].view);
    dists.push_back(&s.dist[size_t(i)].view);
  }
  for (int round = 0; round < kRounds; ++round) {
    std::vector<MotionPsnrPipeline> mp(kPipelines);
    for (auto& m : mp) ASSERT_OK(make_pipeline(dev, 8, w, h, 8, &m, -1, 1, LaneSetup{6, true, true}, 1));
    std::vector<Results> r(kPipelines);
    std::vector<std::thread> threads;
    for (int k = 0; k < kPipelines; ++k)
      threads.emplace_back([&, k] { run_stream(mp[size_t(k)], refs, dists, &r[size_t(k)]); });
    for (auto& t : threads) t.join();
    for (int k = 0; k < kPipelines; ++k) {
      const std::string what = "round " + std::to_string(round) + ", pipeline " + std::to_string(k);
      expect_scores(s, r[size_t(k)], what);
      const GraphStats g = mp[size_t(k)].pipeline->stats().graphs;
      EXPECT_GT(g.captures, 0u) << what;
      EXPECT_GT(g.launches, 0u) << what;
      EXPECT_EQ(g.launches + g.captures + g.direct, uint64_t(kFrames)) << what;
    }
    ASSERT_OK(dev->status());
    if (HasFailure()) return;
  }
}

TEST(HipPipeline, FrameGraphsReplayTheSameCallsAndGiveCpuScores) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  if (!dev->api().has_graphs()) GTEST_SKIP() << "the runtime has no graphs";
  if (!dev->can_order_streams()) GTEST_SKIP() << "lanes need the upload stream, which this runtime cannot order";
  struct Case {
    unsigned bpc;
    uint32_t w, h;
    int frames;
    unsigned slots, lanes;
  };
  for (const Case& c : {Case{8, 1920, 1080, 40, 8, 6}, Case{10, 333, 197, 37, 6, 1}, Case{8, 640, 360, 41, 5, 3}}) {
    const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h) + " " + std::to_string(c.bpc) +
                             "-bit, " + std::to_string(c.slots) + " slots, " + std::to_string(c.lanes) + " lanes";
    Stream s;
    make_stream(c.bpc, c.w, c.h, c.frames, 7000 + c.w, &s);
    if (HasFatalFailure()) return;
    std::vector<DeviceFrame> dref(size_t(c.frames)), ddist(size_t(c.frames));
    std::vector<const PictureView*> refs, dists, drefs, ddists;
    for (int i = 0; i < c.frames; ++i) {
      ASSERT_OK(to_device(dev, s.ref[size_t(i)], &dref[size_t(i)]));
      ASSERT_OK(to_device(dev, s.dist[size_t(i)], &ddist[size_t(i)]));
      refs.push_back(&s.ref[size_t(i)].view);
      dists.push_back(&s.dist[size_t(i)].view);
      drefs.push_back(&dref[size_t(i)].view);
      ddists.push_back(&ddist[size_t(i)].view);
    }
    const LaneSetup ls{c.lanes, true, true};
    for (int graphs : {1, 0}) {
      for (int device : {0, 1}) {
        const std::string run = what + (graphs ? ", graphs" : ", no graphs") + (device ? ", device frames" : ", host frames");
        MotionPsnrPipeline mp;
        ASSERT_OK(make_pipeline(dev, c.bpc, c.w, c.h, c.slots, &mp, -1, 1, ls, graphs));
        ASSERT_EQ(mp.pipeline->lanes(), c.lanes) << run;
        EXPECT_EQ(mp.pipeline->graphs(), graphs == 1) << run;
        Results r;
        run_stream(mp, device ? drefs : refs, device ? ddists : dists, &r);
        expect_scores(s, r, run);
        const GraphStats g = mp.pipeline->stats().graphs;
        // Every frame has work on its lane (psnr), run exactly one way.
        EXPECT_EQ(g.launches + g.captures + g.direct, graphs ? uint64_t(c.frames) : 0u) << run;
        if (!graphs) continue;
        if (!device) {
          // A slot meets lanes / gcd(slots, lanes) lanes; the first frame (no previous reference: no motion) and
          // the second one's graphs differ from the later ones'.
          const uint64_t per_slot = c.lanes / std::gcd(c.slots, c.lanes);
          EXPECT_LE(g.captures, c.slots * per_slot + 2) << run;
          EXPECT_GE(g.launches, uint64_t(c.frames) - c.slots * per_slot - 2) << run;
          EXPECT_EQ(g.direct, 0u) << run;
        } else {
          // Every frame's planes are new: nothing to replay; the cache gives up and issues the calls directly.
          const uint64_t give_up = mp.pipeline->graph_give_up_after();
          EXPECT_EQ(g.launches, 0u) << run;
          EXPECT_EQ(g.captures, std::min<uint64_t>(give_up, c.frames)) << run;
          EXPECT_EQ(g.direct, uint64_t(c.frames) - std::min<uint64_t>(give_up, c.frames)) << run;
        }
      }
    }
    if (HasFailure()) return;
  }
  // Device frames from a pool (a decoder's surfaces): 5 pictures over 6 slots and one lane repeat every 30 frames,
  // so after the first 30 captures every frame is a replay; every frame past the give-up count too, to see the cache
  // give up when frames never repeat.
  {
    const int frames = 100, pool = 5;
    const unsigned slots = 6;
    Stream s;
    make_stream(8, 320, 240, pool + 1, 9100, &s);
    if (HasFatalFailure()) return;
    std::vector<DeviceFrame> dref(pool + 1), ddist(pool + 1);
    for (int i = 0; i <= pool; ++i) {
      ASSERT_OK(to_device(dev, s.ref[size_t(i)], &dref[size_t(i)]));
      ASSERT_OK(to_device(dev, s.dist[size_t(i)], &ddist[size_t(i)]));
    }
    std::vector<const PictureView*> refs, dists;
    for (int i = 0; i < frames; ++i) {
      refs.push_back(&dref[size_t(i % pool)].view);
      dists.push_back(&ddist[size_t(i % pool)].view);
    }
    MotionPsnrPipeline mp;
    ASSERT_OK(make_pipeline(dev, 8, 320, 240, slots, &mp, -1, 1, LaneSetup{1, true, true}, 1));
    Results r;
    run_stream(mp, refs, dists, &r);
    for (int i = 0; i < frames; ++i) {
      const int k = i % pool;
      EXPECT_EQ(r.psnr[size_t(i)][0], s.psnr[size_t(k)].y) << "pool frame " << i;
    }
    const GraphStats g = mp.pipeline->stats().graphs;
    // Frame 0 has no previous reference; the frames after it meet 30 (slot, picture) pairs.
    EXPECT_EQ(g.captures, 31u);
    EXPECT_EQ(g.launches, uint64_t(frames) - 31u);
    EXPECT_EQ(g.direct, 0u);
  }
}

// The upload gate orders a host frame's upload after its staging copy, which runs on the helpers while the kernels are
// queued: 1080p frames (copied in parallel) give the CPU's scores with it, and planting its absence (the upload no
// longer waits) changes scores.
TEST(HipPipeline, UploadGateOrdersTheUploadAfterTheStagingCopy) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const int frames = 12;
  Stream s;
  make_stream(8, 1920, 1080, frames, 777, &s);
  if (HasFatalFailure()) return;
  std::vector<const PictureView*> refs, dists;
  for (int i = 0; i < frames; ++i) {
    refs.push_back(&s.ref[size_t(i)].view);
    dists.push_back(&s.dist[size_t(i)].view);
  }
  MotionPsnrPipeline mp;
  ASSERT_OK(make_pipeline(dev, 8, 1920, 1080, 4, &mp, 3, 1, LaneSetup{2, true, true}));
  if (!mp.pipeline->upload_gate()) GTEST_SKIP() << "no upload gate here (runtime without host functions, or AMD)";
  Results r;
  run_stream(mp, refs, dists, &r);
  expect_scores(s, r, "1080p with the upload gate");
  if (!kTestHooks) {
    std::printf("skip_gate NOT planted: a build without test hooks\n");
    return;
  }
  ASSERT_EQ(setenv("VMAFX_HIP_PLANT", "skip_gate", 1), 0);
  MotionPsnrPipeline planted;
  const Status made = make_pipeline(dev, 8, 1920, 1080, 4, &planted, 3, 1, LaneSetup{2, true, true});
  ASSERT_EQ(unsetenv("VMAFX_HIP_PLANT"), 0);
  ASSERT_OK(made);
  Results rp;
  run_stream(planted, refs, dists, &rp);
  int wrong = 0;
  for (int i = 0; i < frames; ++i)
    if (rp.psnr[size_t(i)][0] != s.psnr[size_t(i)].y || rp.motion[size_t(i)][0] != s.motion[size_t(i)]) ++wrong;
  std::printf("skip_gate planted: %d of %d frames scored wrong\n", wrong, frames);
  EXPECT_GT(wrong, 0) << "without the gate the uploads read unfilled staging memory, yet every score was right";
}

TEST(HipPipeline, MotionAloneUploadsOnlyTheReferenceLuma) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const uint32_t w = 640, h = 360;
  Stream s;
  make_stream(8, w, h, 4, 77, &s);
  MotionPsnrPipeline mp;
  ASSERT_OK(make_pipeline(dev, 8, w, h, 3, &mp));
  std::vector<std::vector<double>> out(4, std::vector<double>(4, -1));  // motion, then psnr's three
  std::atomic<int> done{0};
  for (size_t i = 0; i < 4; ++i) {
    // Frames 1 and 3 carry motion only (as --subsample 2 does for unscored frames).
    const PictureView* prev = i ? &s.ref[i - 1].view : nullptr;
    std::vector<HipPipeline::Part> parts = {{mp.motion_id, out[i].data()}};
    if (i % 2 == 0) parts.push_back({mp.psnr_id, out[i].data() + 1});
    const uint64_t before = mp.pipeline->stats().uploaded_bytes;
    ASSERT_OK(mp.pipeline->submit(i, s.ref[i].view, s.dist[i].view, prev, parts,
                                  [&, i](Status st) { EXPECT_TRUE(st.is_ok()) << st.to_string(); done += i % 2 ? 1 : 2; }));
    const uint64_t bytes = mp.pipeline->stats().uploaded_bytes - before;
    if (i % 2) {
      EXPECT_EQ(bytes, uint64_t(w) * h) << "frame " << i << ": motion reads the reference luma only";
    } else {
      EXPECT_GE(bytes, uint64_t(w) * h * 3) << "frame " << i << ": PSNR reads all planes of both pictures";
    }
  }
  ASSERT_OK(mp.pipeline->drain());
  EXPECT_EQ(done.load(), 6);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(out[i][0], s.motion[i]) << "frame " << i;
}

// After each upload the pipeline submits the upload stream's work (Device::submit_upload). What this test shows: the
// submit is made once per host frame uploaded on the upload stream, and a pipeline planted to skip it
// (VMAFX_HIP_PLANT=skip_upload_submit) is caught by the same count. What it cannot show: the reordering that the
// submit prevents. That was measured on ROCm (a gfx1036: work left unsubmitted was overtaken by work queued later on
// another stream); CUDA submits work as it is queued, so on NVIDIA the scores are right with or without the submit and
// the planted skip changes none of them. Only the count tells the two apart there.
TEST(HipPipeline, UploadStreamIsSubmittedAfterEveryUpload) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  if (!dev->can_order_streams()) GTEST_SKIP() << "this runtime cannot order two streams: no upload stream to test";
  const uint32_t w = 320, h = 180;
  const int frames = 5;
  Stream s;
  make_stream(8, w, h, frames, 31, &s);
  std::vector<const PictureView*> refs, dists;
  for (int i = 0; i < frames; ++i) {
    refs.push_back(&s.ref[size_t(i)].view);
    dists.push_back(&s.dist[size_t(i)].view);
  }
  for (const char* plant : {"", "skip_upload_submit"}) {
    const bool planted = *plant != 0;
    ASSERT_EQ(setenv("VMAFX_HIP_PLANT", plant, 1), 0);  // read when the pipeline is created
    MotionPsnrPipeline mp;
    const Status made = make_pipeline(dev, 8, w, h, 3, &mp, -1, /*upload_stream=*/1);
    ASSERT_EQ(unsetenv("VMAFX_HIP_PLANT"), 0);
    ASSERT_OK(made);
    ASSERT_TRUE(mp.pipeline->upload_stream());
    const uint64_t before = hip_hooks::upload_submits();
    Results r;
    run_stream(mp, refs, dists, &r);
    const uint64_t submits = hip_hooks::upload_submits() - before;
    const uint64_t uploads = mp.pipeline->stats().stream_uploads;
    EXPECT_EQ(uploads, uint64_t(frames)) << "every host frame uploaded on the upload stream";
    if (planted) {
      EXPECT_EQ(submits, 0u) << "the planted skip is seen: no submit after the uploads";
    } else {
      EXPECT_EQ(submits, uploads) << "one submit per upload";
      expect_scores(s, r, "upload stream");
    }
    std::printf("VMAFX_HIP_PLANT=%s: %llu uploads on the upload stream, %llu submits\n", planted ? plant : "(none)",
                static_cast<unsigned long long>(uploads), static_cast<unsigned long long>(submits));
  }
}

// A feature for the pipeline's own tests: fails in enqueue or finish on request, or holds finish() until released.
class ProbeFeature final : public GpuFeature {
 public:
  bool fail_enqueue = false, fail_finish = false, hold = false;
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  std::atomic<int> finished{0};

  const char* name() const override { return "probe"; }
  size_t output_count() const override { return 1; }
  Status enqueue(const FramePlanes&, unsigned) override {
    if (fail_enqueue) return {Errc::device_error, "planted enqueue failure"};
    return Status::ok();
  }
  Status finish(unsigned slot, double* out) override {
    if (hold) {
      std::unique_lock<std::mutex> lk(mu);
      cv.wait(lk, [&] { return released; });
    }
    ++finished;
    out[0] = slot;
    if (fail_finish) return {Errc::internal, "planted finish failure"};
    return Status::ok();
  }
  void release() {
    {
      std::lock_guard<std::mutex> lk(mu);
      released = true;
    }
    cv.notify_all();
  }
};

TEST(HipPipeline, FailuresReachTheFramesDone) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  Stream s;
  make_stream(8, 64, 48, 3, 5, &s);
  for (int mode = 0; mode < 2; ++mode) {
    MotionPsnrPipeline mp;
    ASSERT_OK(make_pipeline(dev, 8, 64, 48, 3, &mp));
    auto probe = std::make_unique<ProbeFeature>();
    ProbeFeature* pf = probe.get();
    (mode == 0 ? pf->fail_enqueue : pf->fail_finish) = true;
    unsigned probe_id = 0;
    ASSERT_OK(mp.pipeline->add_feature(std::move(probe), FeatureNeeds{}, &probe_id));
    Status got;
    std::atomic<int> calls{0};
    double out[3][3];
    const Status submitted = mp.pipeline->submit(
        0, s.ref[0].view, s.dist[0].view, nullptr, {{mp.psnr_id, out[0]}, {probe_id, out[1]}, {mp.motion_id, out[2]}},
        [&](Status st) { got = st; ++calls; });
    (void)mp.pipeline->drain();
    if (mode == 0) {
      // A failure while queueing is the submit's: done is not called.
      EXPECT_EQ(calls.load(), 0);
      EXPECT_EQ(submitted.code(), Errc::device_error) << submitted.to_string();
      EXPECT_NE(submitted.message().find("planted enqueue failure"), std::string::npos) << submitted.to_string();
      got = submitted;
    } else {
      EXPECT_TRUE(submitted.is_ok()) << submitted.to_string();
      EXPECT_EQ(calls.load(), 1) << "one done for the frame";
      EXPECT_EQ(got.code(), Errc::internal) << got.to_string();
      EXPECT_NE(got.message().find("probe finishing frame 0"), std::string::npos) << got.to_string();
    }
    std::printf("mode %d: %s\n", mode, got.to_string().c_str());
  }
  EXPECT_TRUE(dev->status().is_ok()) << "a feature's own failure is not a device failure";
}

TEST(HipPipeline, SubmitBlocksOnlyWhenEverySlotIsBusy) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const unsigned slots = 4;
  Stream s;
  make_stream(8, 64, 48, int(slots) + 2, 9, &s);
  PipelineConfig pc;
  pc.width = 64;
  pc.height = 48;
  pc.slots = slots;
  std::shared_ptr<HipPipeline> p;
  ASSERT_OK(HipPipeline::create(dev, pc, &p));
  auto probe = std::make_unique<ProbeFeature>();
  ProbeFeature* pf = probe.get();
  pf->hold = true;  // the completion thread stops in the first frame's finish()
  unsigned id = 0;
  ASSERT_OK(p->add_feature(std::move(probe), FeatureNeeds{}, &id));
  std::vector<double> out(slots + 2);
  std::atomic<int> done{0};
  auto submit = [&](size_t i) {
    return p->submit(i, s.ref[i].view, s.dist[i].view, nullptr, {{id, &out[i]}}, [&](Status) { ++done; });
  };
  // `slots` frames go in although none has finished.
  for (size_t i = 0; i < slots; ++i) ASSERT_OK(submit(i));
  EXPECT_EQ(p->stats().blocked_submits, 0u);
  // The next one waits for the first slot.
  auto blocked = std::async(std::launch::async, [&] { return submit(slots); });
  EXPECT_EQ(blocked.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout)
      << "submit_frame returned while every slot was busy";
  pf->release();
  ASSERT_EQ(blocked.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  ASSERT_OK(blocked.get());
  // Once frame 1 has finished its slot is free: the next submit must not wait.
  for (int i = 0; i < 1000 && done.load() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_GE(done.load(), 2);
  ASSERT_OK(submit(slots + 1));
  ASSERT_OK(p->drain());
  EXPECT_EQ(done.load(), int(slots) + 2);
  EXPECT_EQ(p->stats().blocked_submits, 1u);
  for (size_t i = 0; i < slots + 2; ++i) EXPECT_EQ(out[i], double(i % slots)) << "frame " << i << " in slot";
}

// A launch the runtime refuses (4096 threads per block) between two frames: the device failure is sticky, reaches
// every `done` of the frames after it and names the runtime call. Runs last (suite HipPipelineZ): it leaves this
// binary's Device failed (a new Device afterwards works, see test_hip_device).
TEST(HipPipelineZ, DeviceFailureIsStickyAndNamesTheCall) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  Stream s;
  make_stream(8, 64, 48, 3, 11, &s);
  MotionPsnrPipeline mp;
  ASSERT_OK(make_pipeline(dev, 8, 64, 48, 3, &mp));
  // Frame 0 runs; then the device fails (a refused launch on the library stream); frames 1 and 2 must fail.
  Module m;
  ASSERT_OK(Module::load(dev, "motion", &m));
  TypedKernel<motion_sad_kernel_fn> k;
  ASSERT_OK(m.function("motion_sad_kernel", &k));
  std::vector<Status> got(3);
  std::atomic<int> calls{0};
  double out[3][4];
  for (size_t i = 0; i < 3; ++i) {
    if (i == 1) {
      const DevicePlane none{};
      const Status refused = dev->launch(k, {1, 1, 1}, {4096, 1, 1}, 0, none, none, 0u, 0u, 8u, nullptr, nullptr);
      ASSERT_EQ(refused.code(), Errc::device_error) << refused.to_string();
      std::printf("refused launch: %s\n", refused.to_string().c_str());
    }
    const PictureView* prev = i ? &s.ref[i - 1].view : nullptr;
    const Status submitted =
        mp.pipeline->submit(i, s.ref[i].view, s.dist[i].view, prev, {{mp.motion_id, out[i]}, {mp.psnr_id, out[i] + 1}},
                            [&, i](Status st) { got[i] = st; ++calls; });
    if (i == 0) {
      ASSERT_OK(submitted);
      ASSERT_OK(mp.pipeline->drain());
    } else {
      // The sticky failure refuses the frame at submit (its done is not called), naming the call.
      got[i] = submitted;
    }
  }
  const Status drained = mp.pipeline->drain();
  EXPECT_EQ(calls.load(), 1);
  EXPECT_TRUE(got[0].is_ok()) << got[0].to_string();
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(got[i].code(), Errc::device_error) << "frame " << i << ": " << got[i].to_string();
    EXPECT_NE(got[i].message().find(dev->api().launch_kernel.symbol), std::string::npos)
        << "names the call: " << got[i].to_string();
  }
  EXPECT_EQ(drained.code(), Errc::device_error) << drained.to_string();
  std::printf("frame 1 after the failure: %s\n", got[1].to_string().c_str());
}


// ---- FrameUploader (hip/backend.h) ----------------------------------------------------------------------------

// Host pictures of several layouts copied to the device and read back: every sample of every plane the view names
// is where the device view says, for I420 (odd size), NV12 and NV21 (interleaved chroma: copied once), P010 and
// 4:4:4 16-bit; with luma_only the luma is exact and the chroma planes lie inside the copy. Frames are reused after
// give_back, and the counters count each upload.
TEST(FrameUploader, DeviceCopiesHoldEveryPlaneOfEveryLayout) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  std::shared_ptr<FrameUploader> up;
  ASSERT_OK(create_frame_uploader(dev->info().vendor, dev->info().index, &up));
  struct Case {
    PixelFormat format;
    Chroma chroma;
    unsigned bpc;
    uint32_t w, h;
  };
  std::mt19937 rng(5);
  uint64_t uploads = 0;
  for (const Case& c : {Case{PixelFormat::i420, Chroma::k420, 8, 321, 241}, Case{PixelFormat::nv12, Chroma::k420, 8, 320, 240},
                        Case{PixelFormat::nv21, Chroma::k420, 8, 64, 48}, Case{PixelFormat::p010, Chroma::k420, 10, 320, 180},
                        Case{PixelFormat::i420, Chroma::k444, 16, 96, 64}}) {
    for (bool luma_only : {false, true}) {
      const FormatInfo fmt{c.format, c.chroma, uint8_t(c.bpc)};
      PlaneLayout layout[3];
      size_t size = 0;
      const unsigned n = packed_layout(fmt, c.w, c.h, layout, &size);
      std::vector<uint8_t> host(size);
      for (auto& b : host) b = uint8_t(rng());
      PictureView hv;
      ASSERT_OK(make_picture_view(fmt, c.w, c.h, host.data(), size, layout, n, &hv));
      PictureView dv;
      unsigned slot = 0;
      ASSERT_OK(up->upload(hv, luma_only, &dv, &slot));
      uploads++;
      ASSERT_EQ(dv.memory, MemoryKind::device);
      ASSERT_OK(dev->synchronize());
      for (unsigned p = 0; p < (luma_only ? 1u : hv.plane_count()); p++) {
        const PlaneView& hp = hv.planes[p];
        const PlaneView& dp = dv.planes[p];
        const size_t row = size_t(hp.width) * hp.step * hv.bytes_per_sample - (hp.step - 1) * hv.bytes_per_sample;
        // Up to the plane's last byte (a Cr plane starts a byte into its rows: not a byte past the copy).
        std::vector<uint8_t> back(size_t(dp.stride) * (hp.height - 1) + row);
        ASSERT_OK(dev->copy_async(CopyKind::device_to_host, back.data(), dp.data, back.size()));
        ASSERT_OK(dev->synchronize());
        size_t differ = 0;
        for (uint32_t y = 0; y < hp.height; y++)
          for (size_t x = 0; x < row; x += size_t(hp.step) * hv.bytes_per_sample)
            for (size_t b = 0; b < hv.bytes_per_sample; b++)
              differ += back[size_t(y) * size_t(dp.stride) + x + b] != hp.data[ptrdiff_t(y) * hp.stride + ptrdiff_t(x + b)];
        EXPECT_EQ(differ, 0u) << "format " << int(c.format) << " " << c.w << "x" << c.h << " plane " << p
                              << (luma_only ? " luma only" : "");
      }
      EXPECT_EQ(dv.planes[0].stride % 256, 0);
      up->give_back(slot);
    }
  }
  EXPECT_EQ(up->uploads(), uploads);
}

}  // namespace
}  // namespace vmafx::hip
