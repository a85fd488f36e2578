// SPDX-License-Identifier: LGPL-2.1-or-later
// psnr_sse_kernel against the CPU, exactly: seeded random planes of 8, 10, 12 and 16 bits (16-bit words shifted,
// interleaved chroma, odd pitches) at odd, 1080p and 4K sizes; a frame pipeline through pinned rings; the kernel
// compiled at run time; and the public oracle clips, whose PSNR computed from the GPU sums is compared with
// libvmaf's. A mismatch is located on the GPU row by row and sample by sample and printed with its seed.
// Skips (exit 77) without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/plane.h"
#include "gpu_device.h"
#include "hip/psnr_sse.h"
#include "support.h"

namespace vmafx::hip {
namespace {

// A plane in host memory laid out like the GPU will read it.
struct HostPlane {
  std::vector<uint8_t> bytes;
  size_t pitch = 0;
  uint32_t width = 0, height = 0;
  uint8_t word = 1, shift = 0, step = 1;

  uint32_t at(uint32_t x, uint32_t y) const {
    const uint8_t* row = bytes.data() + size_t(y) * pitch;
    if (word == 1) return row[size_t(x) * step];
    const uint8_t* p = row + size_t(x) * step * 2;
    return uint32_t(p[0] | (p[1] << 8)) >> shift;
  }
};

struct Format {
  const char* name;
  unsigned bpc;
  uint8_t word, shift, step;
};

const Format kFormats[] = {
    {"8-bit", 8, 1, 0, 1},          {"10-bit", 10, 2, 0, 1},           {"12-bit", 12, 2, 0, 1},
    {"16-bit", 16, 2, 0, 1},        {"10-bit in high bits (P010)", 10, 2, 6, 1},
    {"8-bit interleaved (NV12 chroma)", 8, 1, 0, 2}, {"16-bit interleaved (P016 chroma)", 16, 2, 0, 2},
};

// Reference uniform over the depth; distorted near it, with one sample in eight at the opposite extreme (the
// largest squared differences) and one row in sixteen equal. Bits below the shift and the bytes between the
// interleaved samples hold noise the kernel must ignore.
void make_pair(uint32_t seed, const Format& f, uint32_t w, uint32_t h, size_t pad, HostPlane* ref, HostPlane* dist) {
  std::mt19937 rng(seed);
  const uint32_t max = (1u << f.bpc) - 1;
  for (HostPlane* p : {ref, dist}) {
    p->width = w;
    p->height = h;
    p->word = f.word;
    p->shift = f.shift;
    p->step = f.step;
    p->pitch = size_t(w) * f.step * f.word + pad;
    p->bytes.resize(p->pitch * h);
    for (auto& b : p->bytes) b = uint8_t(rng());
  }
  auto put = [&](HostPlane* p, uint32_t x, uint32_t y, uint32_t v) {
    uint8_t* row = p->bytes.data() + size_t(y) * p->pitch;
    if (f.word == 1) {
      row[size_t(x) * f.step] = uint8_t(v);
    } else {
      const uint32_t low = f.shift ? (rng() & ((1u << f.shift) - 1)) : 0;
      const uint32_t word = (v << f.shift) | low;
      row[size_t(x) * f.step * 2] = uint8_t(word);
      row[size_t(x) * f.step * 2 + 1] = uint8_t(word >> 8);
    }
  };
  for (uint32_t y = 0; y < h; ++y) {
    const bool equal_row = rng() % 16 == 0;
    for (uint32_t x = 0; x < w; ++x) {
      const uint32_t r = rng() & max;
      uint32_t d = r;
      if (!equal_row) {
        if (rng() % 8 == 0) {
          d = r > max / 2 ? 0 : max;
        } else {
          const int noise = int(rng() % 17) - 8;
          d = uint32_t(std::clamp(int(r) + noise, 0, int(max)));
        }
      }
      put(ref, x, y, r);
      put(dist, x, y, d);
    }
  }
}

uint64_t cpu_sse(const HostPlane& a, const HostPlane& b, uint32_t x0 = 0, uint32_t y0 = 0, uint32_t w = 0,
                 uint32_t h = 0) {
  if (!w) w = a.width;
  if (!h) h = a.height;
  uint64_t sum = 0;
  for (uint32_t y = y0; y < y0 + h; ++y) {
    for (uint32_t x = x0; x < x0 + w; ++x) {
      const int64_t e = int64_t(a.at(x, y)) - int64_t(b.at(x, y));
      sum += uint64_t(e * e);
    }
  }
  return sum;
}

// A host plane uploaded to a device buffer with `dev_pitch` between rows.
struct GpuPlane {
  DeviceBuffer buffer;
  DevicePlane view;
};

Status upload(const std::shared_ptr<Device>& dev, const HostPlane& p, size_t dev_pitch, GpuPlane* out) {
  const size_t row = size_t(p.width) * p.step * p.word;
  VMAFX_TRY(DeviceBuffer::create(dev, dev_pitch * p.height, &out->buffer));
  VMAFX_TRY(dev->copy_2d_async({CopyKind::host_to_device, out->buffer.data(), dev_pitch, p.bytes.data(), p.pitch,
                                row, p.height}));
  out->view = {out->buffer.data(), dev_pitch, p.width, p.height, p.word, p.shift, p.step};
  return Status::ok();
}

DevicePlane sub_plane(const DevicePlane& p, uint32_t x, uint32_t y, uint32_t w, uint32_t h) {
  DevicePlane s = p;
  s.data = static_cast<const uint8_t*>(p.data) + size_t(y) * p.pitch + size_t(x) * p.step * p.bytes;
  s.width = w;
  s.height = h;
  return s;
}

// Runs the kernel on `n` sub-planes, one accumulator each, and reads the sums back.
Status gpu_sums(const std::shared_ptr<Device>& dev, const PsnrSse& k, const std::vector<DevicePlane>& refs,
                const std::vector<DevicePlane>& dists, std::vector<uint64_t>* sums) {
  DeviceBuffer acc;
  VMAFX_TRY(DeviceBuffer::create(dev, refs.size() * 8, &acc));
  VMAFX_TRY(dev->memset_d32_async(acc.data(), 0, refs.size() * 2));
  for (size_t i = 0; i < refs.size(); ++i) VMAFX_TRY(k.enqueue(refs[i], dists[i], acc.as<uint64_t>() + i));
  sums->assign(refs.size(), 0);
  VMAFX_TRY(dev->copy_async(CopyKind::device_to_host, sums->data(), acc.data(), refs.size() * 8));
  return dev->synchronize();
}

// After a whole-plane mismatch: the first row whose sum differs, then the first sample of that row.
std::string locate_mismatch(const std::shared_ptr<Device>& dev, const PsnrSse& k, const GpuPlane& r,
                            const GpuPlane& d, const HostPlane& hr, const HostPlane& hd) {
  std::vector<DevicePlane> rr, dd;
  for (uint32_t y = 0; y < hr.height; ++y) {
    rr.push_back(sub_plane(r.view, 0, y, hr.width, 1));
    dd.push_back(sub_plane(d.view, 0, y, hr.width, 1));
  }
  std::vector<uint64_t> rows;
  Status s = gpu_sums(dev, k, rr, dd, &rows);
  if (!s) return "rows could not be checked: " + s.to_string();
  for (uint32_t y = 0; y < hr.height; ++y) {
    const uint64_t want_row = cpu_sse(hr, hd, 0, y, hr.width, 1);
    if (rows[y] == want_row) continue;
    std::vector<DevicePlane> pr, pd;
    for (uint32_t x = 0; x < hr.width; ++x) {
      pr.push_back(sub_plane(r.view, x, y, 1, 1));
      pd.push_back(sub_plane(d.view, x, y, 1, 1));
    }
    std::vector<uint64_t> px;
    s = gpu_sums(dev, k, pr, pd, &px);
    if (!s) return "row " + std::to_string(y) + " differs; samples could not be checked: " + s.to_string();
    for (uint32_t x = 0; x < hr.width; ++x) {
      const uint64_t want = cpu_sse(hr, hd, x, y, 1, 1);
      if (px[x] != want) {
        return "first mismatch at x=" + std::to_string(x) + " y=" + std::to_string(y) + ": ref " +
               std::to_string(hr.at(x, y)) + " dist " + std::to_string(hd.at(x, y)) + ", GPU " +
               std::to_string(px[x]) + " CPU " + std::to_string(want);
      }
    }
    return "row " + std::to_string(y) + " sums differ (GPU " + std::to_string(rows[y]) + ", CPU " +
           std::to_string(want_row) + ") but no single sample does";
  }
  return "every row matches alone: the mismatch is in the accumulation across rows";
}

// One plane pair: uploaded with the given device pitches, summed on the GPU, compared with the CPU.
void check_pair(const std::shared_ptr<Device>& dev, const PsnrSse& k, uint32_t seed, const Format& f, uint32_t w,
                uint32_t h, size_t host_pad, size_t dev_pad) {
  HostPlane hr, hd;
  make_pair(seed, f, w, h, host_pad, &hr, &hd);
  const size_t row = size_t(w) * f.step * f.word;
  GpuPlane r, d;
  ASSERT_OK(upload(dev, hr, row + dev_pad, &r));
  ASSERT_OK(upload(dev, hd, row + dev_pad + 1, &d));  // reference and distorted pitches differ
  std::vector<uint64_t> got;
  ASSERT_OK(gpu_sums(dev, k, {r.view}, {d.view}, &got));
  const uint64_t want = cpu_sse(hr, hd);
  if (got[0] != want) {
    ADD_FAILURE() << f.name << " " << w << "x" << h << " seed " << seed << " pitches " << r.view.pitch << "/"
                  << d.view.pitch << ": GPU " << got[0] << " CPU " << want << "; "
                  << locate_mismatch(dev, k, r, d, hr, hd);
  }
}

struct Size {
  uint32_t w, h;
};
const Size kSizes[] = {{1, 1}, {2, 3}, {17, 13}, {333, 197}, {1919, 1079}, {1920, 1080}, {3840, 2160}};

TEST(HipPsnrSse, MatchesCpuOnRandomPlanes) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  PsnrSse k;
  ASSERT_OK(PsnrSse::create(dev, &k));
  std::printf("psnr_sse_kernel from %s on %s\n", k.module().origin().c_str(), dev->info().name.c_str());
  uint32_t seed = 20261130;
  int runs = 0;
  for (const Format& f : kFormats) {
    for (const Size& s : kSizes) {
      // Odd host padding; device pitches odd for most, 256-aligned for some.
      const size_t dev_pad = (seed % 3 == 0) ? (256 - (size_t(s.w) * f.step * f.word) % 256) % 256 : 3;
      check_pair(dev, k, seed, f, s.w, s.h, 5, dev_pad);
      ++seed;
      ++runs;
      if (HasFailure()) return;
    }
  }
  std::printf("%d plane pairs (%zu formats x %zu sizes) equal to the CPU sum\n", runs, std::size(kFormats),
              std::size(kSizes));
}

// Each plane is read in its own layout: a planar 10-bit reference against the same distorted samples as P010
// (16-bit words, value in the top 10 bits, noise below), as the element gets them from two different producers.
TEST(HipPsnrSse, PlanesOfDifferentLayoutsAreReadEachInItsOwn) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  PsnrSse k;
  ASSERT_OK(PsnrSse::create(dev, &k));
  const Format planar{"10-bit", 10, 2, 0, 1};
  for (const Size& sz : {Size{333, 197}, Size{1920, 1080}}) {
    HostPlane hr, hd;
    make_pair(20261201 + sz.w, planar, sz.w, sz.h, 5, &hr, &hd);
    HostPlane p010 = hd;
    p010.shift = 6;
    std::mt19937 rng(sz.w);
    for (uint32_t y = 0; y < hd.height; ++y) {
      for (uint32_t x = 0; x < hd.width; ++x) {
        const uint32_t word = (hd.at(x, y) << 6) | (rng() & 63);
        uint8_t* q = p010.bytes.data() + size_t(y) * p010.pitch + size_t(x) * 2;
        q[0] = uint8_t(word);
        q[1] = uint8_t(word >> 8);
      }
    }
    const uint64_t want = cpu_sse(hr, hd);
    ASSERT_EQ(cpu_sse(hr, p010), want) << "the P010 copy holds the same samples";
    GpuPlane r, d;
    ASSERT_OK(upload(dev, hr, size_t(sz.w) * 2 + 3, &r));
    ASSERT_OK(upload(dev, p010, size_t(sz.w) * 2 + 7, &d));
    std::vector<uint64_t> got;
    ASSERT_OK(gpu_sums(dev, k, {r.view}, {d.view}, &got));
    EXPECT_EQ(got[0], want) << sz.w << "x" << sz.h << ": planar reference, P010 distorted";
    ASSERT_OK(gpu_sums(dev, k, {d.view}, {r.view}, &got));
    EXPECT_EQ(got[0], want) << sz.w << "x" << sz.h << ": P010 reference, planar distorted";
  }
  std::printf("planar 10-bit against P010: the CPU sums, both ways round\n");
}

TEST(HipPsnrSse, RefusesInconsistentPlanes) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  PsnrSse k;
  ASSERT_OK(PsnrSse::create(dev, &k));
  DeviceBuffer b;
  ASSERT_OK(DeviceBuffer::create(dev, 4096, &b));
  DevicePlane p{b.data(), 64, 64, 4, 1, 0, 1};
  DevicePlane q = p;
  q.width = 63;
  EXPECT_EQ(k.enqueue(p, q, b.data()).code(), Errc::invalid_argument);
  q = p;
  q.pitch = 63;
  EXPECT_EQ(k.enqueue(p, q, b.data()).code(), Errc::invalid_argument);  // a row does not fit the pitch
  q = p;
  q.shift = 2;
  EXPECT_EQ(k.enqueue(q, q, b.data()).code(), Errc::unsupported);
  q.bytes = 4;
  EXPECT_EQ(k.enqueue(q, q, b.data()).code(), Errc::unsupported);
  EXPECT_EQ(k.enqueue(p, p, nullptr).code(), Errc::invalid_argument);
  EXPECT_TRUE(dev->status().is_ok());
}

// A steady-state frame pipeline: buffers sized once; each frame's planes staged through a 3-slot pinned ring,
// uploaded, the accumulators cleared after the upload, the kernel run, the sums read back into a 3-slot pinned ring
// and polled later. No allocation and no device-wide wait inside the loop.
TEST(HipPsnrSse, FramePipelineThroughPinnedRings) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  PsnrSse k;
  ASSERT_OK(PsnrSse::create(dev, &k));
  const Format f = kFormats[1];  // 10-bit
  const uint32_t w = 1920, h = 1080;
  const size_t row = size_t(w) * 2, plane_bytes = row * h;
  PinnedRing staging, readback;
  ASSERT_OK(PinnedRing::create(dev, 3, 2 * plane_bytes, &staging));
  ASSERT_OK(PinnedRing::create(dev, 3, 16, &readback));
  DeviceBuffer ref_dev, dist_dev, acc;
  ASSERT_OK(DeviceBuffer::create_2d(dev, row, h, &ref_dev));
  ASSERT_OK(DeviceBuffer::create_2d(dev, row, h, &dist_dev));
  ASSERT_OK(DeviceBuffer::create(dev, 8, &acc));
  const int frames = 10;
  std::vector<HostPlane> refs(frames), dists(frames);
  std::vector<uint64_t> want(frames);
  for (int i = 0; i < frames; ++i) {
    make_pair(777 + uint32_t(i), f, w, h, 0, &refs[i], &dists[i]);
    want[i] = cpu_sse(refs[i], dists[i]);
  }
  std::vector<std::pair<PinnedRing::Slot, int>> in_flight;
  int checked = 0;
  const auto start = std::chrono::steady_clock::now();
  auto finish = [&](const PinnedRing::Slot& slot, int i) {
    ASSERT_OK(readback.wait(slot));
    uint64_t got = 0;
    std::memcpy(&got, slot.host, 8);
    EXPECT_EQ(got, want[i]) << "frame " << i << " seed " << 777 + i;
    ++checked;
  };
  for (int i = 0; i < frames; ++i) {
    PinnedRing::Slot in;
    ASSERT_OK(staging.acquire(&in));
    std::memcpy(in.host, refs[i].bytes.data(), plane_bytes);
    std::memcpy(in.host + plane_bytes, dists[i].bytes.data(), plane_bytes);
    ASSERT_OK(dev->copy_2d_async({CopyKind::host_to_device, ref_dev.data(), ref_dev.pitch(), in.host, row, row, h}));
    ASSERT_OK(dev->copy_2d_async(
        {CopyKind::host_to_device, dist_dev.data(), dist_dev.pitch(), in.host + plane_bytes, row, row, h}));
    ASSERT_OK(staging.submit(in));
    ASSERT_OK(dev->memset_d32_async(acc.data(), 0, 2));  // cleared after the upload (hip/feature.h says why)
    ASSERT_OK(k.enqueue({ref_dev.data(), ref_dev.pitch(), w, h, 2, 0, 1}, {dist_dev.data(), dist_dev.pitch(), w, h, 2, 0, 1},
                        acc.data()));
    if (in_flight.size() == readback.slots()) {
      finish(in_flight.front().first, in_flight.front().second);
      in_flight.erase(in_flight.begin());
    }
    PinnedRing::Slot out;
    ASSERT_OK(readback.try_acquire(&out));  // its previous readback was consumed above: never busy
    ASSERT_OK(dev->copy_async(CopyKind::device_to_host, out.host, acc.data(), 8));
    ASSERT_OK(readback.submit(out));
    in_flight.emplace_back(out, i);
  }
  for (auto& [slot, i] : in_flight) finish(slot, i);
  EXPECT_EQ(checked, frames);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("%d frames of 1080p 10-bit (two 4 MB planes each, staged, uploaded, summed, read back): %.2f ms/frame "
              "(host copies into the staging slots included)\n",
              frames, ms / frames);
}

TEST(HipPsnrSse, RunTimeCompiledKernelMatchesCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Rtc* rtc = nullptr;
  Status rs = load_rtc(dev->api(), &rtc);
  if (!rs) GTEST_SKIP() << "no run-time compiler on this machine: " << rs.message();
  ModuleOptions rtc_only;
  rtc_only.use_embedded = false;
  rtc_only.use_cache = false;
  PsnrSse k;
  ASSERT_OK(PsnrSse::create(dev, &k, rtc_only));
  std::printf("psnr_sse_kernel from %s\n", k.module().origin().c_str());
  EXPECT_EQ(k.module().origin().rfind(rtc->version, 0), 0u);
  check_pair(dev, k, 4242, kFormats[2], 1920, 1080, 1, 7);
  check_pair(dev, k, 4243, kFormats[0], 333, 197, 3, 0);
  check_pair(dev, k, 4244, kFormats[6], 3840, 2160, 0, 0);
}

// libvmaf's integer PSNR from a plane's sum of squared differences.
double libvmaf_psnr(uint64_t sse, uint32_t w, uint32_t h, unsigned bpc) {
  const double peak_sq = bpc == 8 ? 255.0 * 255.0 : double(((1u << bpc) - 1) * ((1u << bpc) - 1));
  const double mse = double(sse) / double(w * h);
  return std::min(10. * std::log10(peak_sq / std::max(mse, 1e-16)), double(6 * bpc + 12));
}

TEST(HipPsnrSse, OracleClipsGivePsnrOfLibvmaf) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  PsnrSse k;
  ASSERT_OK(PsnrSse::create(dev, &k));
  const char* names[3] = {"psnr_y", "psnr_cb", "psnr_cr"};
  double max_diff[3] = {0, 0, 0};
  size_t frames = 0;
  std::vector<std::string> checked, absent;
  // The generated pairs and the public pairs present; the absent public pairs are listed.
  for (const auto& pair : vmafx::test::oracle_pairs_420(&absent)) {
    checked.push_back(pair.name());
    vmafx::test::PairClips clips;
    ASSERT_OK(vmafx::test::open_pair_clips(pair, &clips));
    const vmafx::test::YuvClip &ref = clips.ref, &dist = clips.dist;
    const FormatInfo& fmt = ref.format();
    vmafx::test::Oracle oracle;
    ASSERT_OK(vmafx::test::load_oracle(pair.oracle_path("vmaf_v0.6.1"), &oracle));
    ASSERT_EQ(oracle.frames.size(), ref.frames()) << pair.prefix;
    DeviceBuffer planes, acc;
    ASSERT_OK(DeviceBuffer::create(dev, 2 * ref.frame_size(), &planes));
    ASSERT_OK(DeviceBuffer::create(dev, 3 * 8, &acc));
    for (size_t i = 0; i < ref.frames(); ++i) {
      const PictureView rv = ref.frame(i), dv = dist.frame(i);
      uint8_t* dref = planes.as<uint8_t>();
      uint8_t* ddist = dref + ref.frame_size();
      ASSERT_OK(dev->copy_async(CopyKind::host_to_device, dref, ref.frame_data(i), ref.frame_size()));
      ASSERT_OK(dev->copy_async(CopyKind::host_to_device, ddist, dist.frame_data(i), dist.frame_size()));
      ASSERT_OK(dev->memset_d32_async(acc.data(), 0, 6));
      uint64_t want[3];
      for (unsigned p = 0; p < 3; ++p) {
        const cpu::Plane cr = p == 0 ? cpu::luma_plane(rv) : cpu::chroma_plane(rv, p);
        const cpu::Plane cd = p == 0 ? cpu::luma_plane(dv) : cpu::chroma_plane(dv, p);
        auto on_device = [&](const cpu::Plane& c, const uint8_t* host_base, uint8_t* dev_base) {
          return DevicePlane{dev_base + (c.data - host_base), size_t(c.stride), c.w, c.h, c.bytes, c.shift, c.step};
        };
        ASSERT_OK(k.enqueue(on_device(cr, ref.frame_data(i), dref), on_device(cd, dist.frame_data(i), ddist),
                            acc.as<uint64_t>() + p));
        uint64_t sum = 0;
        for (uint32_t y = 0; y < cr.h; ++y) {
          for (uint32_t x = 0; x < cr.w; ++x) {
            const int64_t e = int64_t(cr.at(x, y)) - int64_t(cd.at(x, y));
            sum += uint64_t(e * e);
          }
        }
        want[p] = sum;
      }
      uint64_t got[3];
      ASSERT_OK(dev->copy_async(CopyKind::device_to_host, got, acc.data(), sizeof got));
      ASSERT_OK(dev->synchronize());
      for (unsigned p = 0; p < 3; ++p) {
        ASSERT_EQ(got[p], want[p]) << pair.prefix << "_" << pair.distorted << " frame " << i << " plane " << p;
        const uint32_t w = p ? chroma_width(fmt.chroma, pair.width) : pair.width;
        const uint32_t h = p ? chroma_height(fmt.chroma, pair.height) : pair.height;
        const double psnr = libvmaf_psnr(got[p], w, h, pair.bpc);
        const double expect = oracle.frames[i].at(names[p]);
        max_diff[p] = std::max(max_diff[p], std::abs(psnr - expect));
        // libvmaf's JSON holds six decimals.
        EXPECT_NEAR(psnr, expect, 5.000001e-7) << pair.prefix << "_" << pair.distorted << " frame " << i << " "
                                               << names[p];
      }
      ++frames;
    }
  }
  vmafx::test::print_pair_coverage(checked, absent);
  ASSERT_FALSE(checked.empty()) << "no oracle clip found under " << vmafx::test::shared_testdata_dir();
  std::printf("%zu oracle frames: max |GPU-derived PSNR - libvmaf| psnr_y %.3g, psnr_cb %.3g, psnr_cr %.3g "
              "(JSON rounding is 5e-7)\n", frames, max_diff[0], max_diff[1], max_diff[2]);
}

}  // namespace
}  // namespace vmafx::hip
