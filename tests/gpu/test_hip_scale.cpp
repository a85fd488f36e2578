// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU scaler (hip/scale_gpu.h) against the CPU scaler, sample for sample: seeded planes of 8, 10, 12 and 16 bits
// (16-bit words shifted, interleaved chroma, odd pitches) of 4:2:0, 4:2:2, 4:4:4 and gray pictures, up and down, with
// each kernel; FFmpeg's own output (tests/data/scale); the public 288x162 clip of ../shared upscaled to 576x324
// (FFmpeg's upscale, every frame; skipped when ../shared is absent); the kernels compiled at run time; and refusals
// of planes of another geometry. Skips (exit 77) without a device.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/scale.h"
#include "gpu_device.h"
#include "hip/scale_gpu.h"
#include "support.h"

namespace vmafx::hip {
namespace {

using cpu::ScaleKernel;

struct Layout {
  const char* name;
  unsigned bpc;
  uint8_t shift, chroma_step;  // chroma_step 2: Cb and Cr interleaved in one plane (NV12 / P010 / P016)
};

const Layout kLayouts[] = {
    {"8-bit planar", 8, 0, 1},  {"8-bit NV12", 8, 0, 2},     {"10-bit planar", 10, 0, 1},
    {"10-bit P010", 10, 6, 2},  {"12-bit planar", 12, 0, 1}, {"16-bit P016", 16, 0, 2},
};

// A host picture laid out as the device copy will be: luma, then chroma (planar, or one interleaved plane).
struct HostPicture {
  std::vector<uint8_t> plane[3];
  size_t pitch[3] = {};
  uint32_t w[3] = {}, h[3] = {};
  unsigned planes = 3;
  uint8_t word = 1, shift = 0, chroma_step = 1;
  unsigned bpc = 8;
  Chroma chroma = Chroma::k420;

  // The host view the CPU scaler reads.
  PictureView view() const {
    PictureView v;
    v.chroma = chroma;
    v.bit_depth = uint8_t(bpc);
    v.bytes_per_sample = word;
    v.shift = shift;
    v.width = w[0];
    v.height = h[0];
    v.planes[0] = {plane[0].data(), ptrdiff_t(pitch[0]), w[0], h[0], 1};
    if (planes == 3) {
      if (chroma_step == 2) {
        v.planes[1] = {plane[1].data(), ptrdiff_t(pitch[1]), w[1], h[1], 2};
        v.planes[2] = {plane[1].data() + word, ptrdiff_t(pitch[1]), w[1], h[1], 2};
      } else {
        v.planes[1] = {plane[1].data(), ptrdiff_t(pitch[1]), w[1], h[1], 1};
        v.planes[2] = {plane[2].data(), ptrdiff_t(pitch[2]), w[2], h[2], 1};
      }
    }
    return v;
  }
};

HostPicture make_picture(uint32_t w, uint32_t h, Chroma c, const Layout& l, uint32_t seed) {
  std::mt19937 rng(seed);
  HostPicture p;
  p.chroma = c;
  p.bpc = l.bpc;
  p.word = l.bpc > 8 ? 2 : 1;
  p.shift = l.shift;
  p.chroma_step = l.chroma_step;
  p.planes = c == Chroma::k400 ? 1 : 3;
  const uint32_t max = (1u << l.bpc) - 1;
  for (unsigned i = 0; i < p.planes; ++i) {
    p.w[i] = i ? chroma_width_stored(c, w) : w;
    p.h[i] = i ? chroma_height_stored(c, h) : h;
  }
  const unsigned stored = (p.planes == 3 && l.chroma_step == 2) ? 2 : p.planes;
  for (unsigned i = 0; i < stored; ++i) {
    const unsigned step = i == 1 && l.chroma_step == 2 ? 2 : 1;
    p.pitch[i] = size_t(p.w[i]) * step * p.word + 1 + i;  // odd pitches
    p.plane[i].resize(p.pitch[i] * p.h[i]);
    for (auto& b : p.plane[i]) b = uint8_t(rng());
    // One row in eight at an extreme, the others noise: overshoot clamps at both ends.
    for (uint32_t y = 0; y < p.h[i]; ++y) {
      const int kind = int(rng() % 8);
      for (uint32_t x = 0; x < p.w[i] * step; ++x) {
        const uint32_t v = kind == 0 ? ((x & 1) ? max : 0) : (rng() & max);
        uint8_t* s = p.plane[i].data() + size_t(y) * p.pitch[i] + size_t(x) * p.word;
        if (p.word == 1) {
          s[0] = uint8_t(v);
        } else {
          const uint32_t word = (v << l.shift) | (l.shift ? (rng() & ((1u << l.shift) - 1)) : 0);
          s[0] = uint8_t(word);
          s[1] = uint8_t(word >> 8);
        }
      }
    }
  }
  return p;
}

// A host picture copied to the device with other (odd) pitches; the planes as the GPU scaler reads them.
struct DevicePicture {
  DeviceBuffer buffer[3];
  DevicePlane planes[3];
};

Status upload(const std::shared_ptr<Device>& dev, const HostPicture& p, DevicePicture* out) {
  const unsigned stored = (p.planes == 3 && p.chroma_step == 2) ? 2 : p.planes;
  for (unsigned i = 0; i < stored; ++i) {
    const unsigned step = i == 1 && p.chroma_step == 2 ? 2 : 1;
    const size_t row = size_t(p.w[i]) * step * p.word;
    const size_t pitch = row + 3;
    VMAFX_TRY(DeviceBuffer::create(dev, pitch * p.h[i] + 16, &out->buffer[i]));
    // Start one byte in: the kernel must not assume aligned rows.
    uint8_t* base = out->buffer[i].as<uint8_t>() + 1;
    VMAFX_TRY(dev->copy_2d_async({CopyKind::host_to_device, base, pitch, p.plane[i].data(), p.pitch[i], row, p.h[i]}));
    out->planes[i] = {base, pitch, p.w[i], p.h[i], p.word, p.shift, uint8_t(step)};
  }
  if (p.planes == 3 && p.chroma_step == 2) {
    out->planes[2] = out->planes[1];
    out->planes[2].data = static_cast<const uint8_t*>(out->planes[1].data) + p.word;
  }
  return Status::ok();
}

// The scaler's output planes read back, each packed (width * bytes per row).
Status read_back(const std::shared_ptr<Device>& dev, const ScaleGpu& g, unsigned planes,
                 std::vector<uint8_t> out[3]) {
  for (unsigned i = 0; i < planes; ++i) {
    const DevicePlane o = g.output(i);
    const size_t row = size_t(o.width) * o.bytes;
    out[i].assign(row * o.height, 0);
    VMAFX_TRY(dev->copy_2d_async({CopyKind::device_to_host, out[i].data(), row, o.data, o.pitch, row, o.height}));
  }
  return dev->synchronize();
}

// "" when the GPU planes equal the CPU scaler's, else the first difference.
std::string compare(const std::vector<uint8_t> gpu[3], const PictureView& cpu, unsigned planes) {
  const unsigned b = cpu.bytes_per_sample;
  for (unsigned i = 0; i < planes; ++i) {
    const PlaneView& p = cpu.planes[i];
    for (uint32_t y = 0; y < p.height; ++y)
      for (uint32_t x = 0; x < p.width; ++x) {
        const uint8_t* c = p.data + ptrdiff_t(y) * p.stride + size_t(x) * b;
        const uint8_t* g = gpu[i].data() + (size_t(y) * p.width + x) * b;
        if (std::memcmp(c, g, b) != 0) {
          const unsigned cv = b == 1 ? c[0] : c[0] | (c[1] << 8);
          const unsigned gv = b == 1 ? g[0] : g[0] | (g[1] << 8);
          return "plane " + std::to_string(i) + " (" + std::to_string(x) + ", " + std::to_string(y) + "): GPU " +
                 std::to_string(gv) + ", CPU " + std::to_string(cv);
        }
      }
  }
  return "";
}

std::string run_case(const std::shared_ptr<Device>& dev, ScaleKernel k, uint32_t sw, uint32_t sh, uint32_t dw,
                     uint32_t dh, Chroma c, const Layout& l, uint32_t seed, const ModuleOptions& mo = {}) {
  cpu::Scaler s;
  Status st = s.init(k, sw, sh, dw, dh, c, l.bpc);
  if (!st) return st.to_string();
  const HostPicture hp = make_picture(sw, sh, c, l, seed);
  cpu::ScaledPicture want;
  st = s.scale(hp.view(), &want);
  if (!st) return "cpu: " + st.to_string();
  std::unique_ptr<ScaleGpu> g;
  st = ScaleGpu::create(dev, s, &g, mo);
  if (!st) return "create: " + st.to_string();
  DevicePicture dp;
  st = upload(dev, hp, &dp);
  if (!st) return "upload: " + st.to_string();
  st = g->enqueue(dp.planes, hp.planes);
  if (!st) return "enqueue: " + st.to_string();
  std::vector<uint8_t> got[3];
  st = read_back(dev, *g, hp.planes, got);
  if (!st) return "read back: " + st.to_string();
  return compare(got, want.view, hp.planes);
}

TEST(HipScale, MatchesCpuScaler) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const ScaleKernel kernels[] = {ScaleKernel::bicubic, ScaleKernel::bilinear, ScaleKernel::lanczos};
  const uint32_t sizes[][4] = {{45, 27, 96, 54}, {96, 54, 45, 27}, {960, 540, 1920, 1080}, {1280, 720, 1920, 1080},
                               {1921, 1081, 3840, 2160}, {640, 360, 640, 720}, {17, 9, 3, 3}};
  const Chroma chromas[] = {Chroma::k420, Chroma::k422, Chroma::k444, Chroma::k400};
  uint32_t seed = 100;
  int cases = 0;
  for (const Layout& l : kLayouts)
    for (ScaleKernel k : kernels)
      for (const auto& sz : sizes)
        for (Chroma c : chromas) {
          if (l.chroma_step == 2 && c != Chroma::k420) continue;  // interleaved layouts are 4:2:0
          const std::string d = run_case(dev, k, sz[0], sz[1], sz[2], sz[3], c, l, seed);
          EXPECT_EQ(d, "") << l.name << " " << cpu::scale_kernel_name(k) << " " << sz[0] << "x" << sz[1] << " -> "
                           << sz[2] << "x" << sz[3] << " " << chroma_name(c) << " seed " << seed;
          ++seed;
          ++cases;
        }
  std::printf("%d pictures scaled\n", cases);
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::vector<uint8_t> d;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return d;
  uint8_t buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) d.insert(d.end(), buf, buf + n);
  std::fclose(f);
  return d;
}

// A packed planar .yuv frame as a device picture (one buffer per plane, pitch = row).
Status upload_packed(const std::shared_ptr<Device>& dev, const uint8_t* data, uint32_t w, uint32_t h, Chroma c,
                     unsigned bpc, DevicePicture* out) {
  const uint8_t b = bpc > 8 ? 2 : 1;
  size_t off = 0;
  for (unsigned i = 0; i < (c == Chroma::k400 ? 1u : 3u); ++i) {
    const uint32_t pw = i ? chroma_width_stored(c, w) : w, ph = i ? chroma_height_stored(c, h) : h;
    const size_t bytes = size_t(pw) * ph * b;
    VMAFX_TRY(DeviceBuffer::create(dev, bytes, &out->buffer[i]));
    VMAFX_TRY(dev->copy_async(CopyKind::host_to_device, out->buffer[i].data(), data + off, bytes));
    out->planes[i] = {out->buffer[i].data(), size_t(pw) * b, pw, ph, b, 0, 1};
    off += bytes;
  }
  return Status::ok();
}

TEST(HipScale, ReproducesFfmpegFixtures) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  struct F {
    const char* src;
    const char* out;
    uint32_t sw, sh, dw, dh;
    Chroma c;
    unsigned bpc;
    ScaleKernel k;
  };
  const F fixtures[] = {
      {"src_45x27_8b_420.yuv", "8b_420_96x54_bicubic.yuv", 45, 27, 96, 54, Chroma::k420, 8, ScaleKernel::bicubic},
      {"src_45x27_8b_420.yuv", "8b_420_96x54_bilinear.yuv", 45, 27, 96, 54, Chroma::k420, 8, ScaleKernel::bilinear},
      {"src_45x27_8b_420.yuv", "8b_420_96x54_lanczos.yuv", 45, 27, 96, 54, Chroma::k420, 8, ScaleKernel::lanczos},
      {"src_45x27_8b_420.yuv", "8b_420_30x17_bicubic.yuv", 45, 27, 30, 17, Chroma::k420, 8, ScaleKernel::bicubic},
      {"src_45x27_8b_444.yuv", "8b_444_96x54_bicubic.yuv", 45, 27, 96, 54, Chroma::k444, 8, ScaleKernel::bicubic},
      {"src_45x27_10b_420.yuv", "10b_420_96x54_lanczos.yuv", 45, 27, 96, 54, Chroma::k420, 10, ScaleKernel::lanczos},
      {"src_45x27_12b_444.yuv", "12b_444_96x54_bicubic.yuv", 45, 27, 96, 54, Chroma::k444, 12, ScaleKernel::bicubic},
      {"src_45x27_16b_420.yuv", "16b_420_30x17_lanczos.yuv", 45, 27, 30, 17, Chroma::k420, 16, ScaleKernel::lanczos},
      {"src_24x14_8b_420_extreme.yuv", "8b_420_extreme_50x29_bicubic.yuv", 24, 14, 50, 29, Chroma::k420, 8,
       ScaleKernel::bicubic},
      {"src_24x14_16b_420_extreme.yuv", "16b_420_extreme_50x29_lanczos.yuv", 24, 14, 50, 29, Chroma::k420, 16,
       ScaleKernel::lanczos},
  };
  const std::string dir = ::vmafx::test::project_data_dir() + "/scale/";
  for (const F& f : fixtures) {
    SCOPED_TRACE(f.out);
    const std::vector<uint8_t> src = read_file(dir + f.src);
    const std::vector<uint8_t> want = read_file(dir + f.out);
    ASSERT_FALSE(src.empty());
    ASSERT_FALSE(want.empty());
    cpu::Scaler s;
    ASSERT_OK(s.init(f.k, f.sw, f.sh, f.dw, f.dh, f.c, f.bpc));
    std::unique_ptr<ScaleGpu> g;
    ASSERT_OK(ScaleGpu::create(dev, s, &g));
    DevicePicture dp;
    ASSERT_OK(upload_packed(dev, src.data(), f.sw, f.sh, f.c, f.bpc, &dp));
    const unsigned planes = f.c == Chroma::k400 ? 1 : 3;
    ASSERT_OK(g->enqueue(dp.planes, planes));
    std::vector<uint8_t> got[3];
    ASSERT_OK(read_back(dev, *g, planes, got));
    std::vector<uint8_t> packed;
    for (unsigned i = 0; i < planes; ++i) packed.insert(packed.end(), got[i].begin(), got[i].end());
    EXPECT_TRUE(packed == want) << "GPU output differs from FFmpeg's";
  }
}

TEST(HipScale, ReproducesTheSharedBicubicUpscale) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const std::string dir = ::vmafx::test::shared_testdata_dir() + "/";
  const std::string small = dir + "a_288x162_8b_down288_small.yuv";
  const std::string big = dir + "a_576x324_8b_down288.yuv";
  if (!::vmafx::test::file_exists(small) || !::vmafx::test::file_exists(big)) GTEST_SKIP() << "../shared clips absent: " << small;
  const FormatInfo fmt{PixelFormat::i420, Chroma::k420, 8};
  ::vmafx::test::YuvClip in, ref;
  ASSERT_OK(in.open(small, 288, 162, fmt));
  ASSERT_OK(ref.open(big, 576, 324, fmt));
  ASSERT_EQ(in.frames(), ref.frames());
  cpu::Scaler s;
  ASSERT_OK(s.init(ScaleKernel::bicubic, 288, 162, 576, 324, Chroma::k420, 8));
  std::unique_ptr<ScaleGpu> g;
  ASSERT_OK(ScaleGpu::create(dev, s, &g));
  for (size_t i = 0; i < in.frames(); ++i) {
    DevicePicture dp;
    ASSERT_OK(upload_packed(dev, in.frame_data(i), 288, 162, Chroma::k420, 8, &dp));
    ASSERT_OK(g->enqueue(dp.planes, 3));
    std::vector<uint8_t> got[3];
    ASSERT_OK(read_back(dev, *g, 3, got));
    std::vector<uint8_t> packed;
    for (auto& p : got) packed.insert(packed.end(), p.begin(), p.end());
    ASSERT_EQ(packed.size(), ref.frame_size());
    ASSERT_EQ(std::memcmp(packed.data(), ref.frame_data(i), packed.size()), 0) << "frame " << i;
  }
  std::printf("%zu frames equal to FFmpeg's upscale\n", in.frames());
}

TEST(HipScale, RunTimeCompiledKernelsMatchCpu) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  const Rtc* rtc = nullptr;
  Status rs = load_rtc(dev->api(), &rtc);
  if (!rs) GTEST_SKIP() << "no run-time compiler on this machine: " << rs.message();
  ModuleOptions rtc_only;
  rtc_only.use_embedded = false;
  rtc_only.use_cache = false;
  EXPECT_EQ(run_case(dev, ScaleKernel::bicubic, 960, 540, 1920, 1080, Chroma::k420, kLayouts[0], 7, rtc_only), "");
  EXPECT_EQ(run_case(dev, ScaleKernel::lanczos, 480, 270, 1920, 1080, Chroma::k420, kLayouts[3], 8, rtc_only), "");
}

TEST(HipScale, RefusesPlanesOfAnotherGeometry) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  cpu::Scaler s;
  ASSERT_OK(s.init(ScaleKernel::bicubic, 45, 27, 96, 54, Chroma::k420, 10));
  std::unique_ptr<ScaleGpu> g;
  EXPECT_EQ(ScaleGpu::create(dev, cpu::Scaler{}, &g).code(), Errc::invalid_argument);
  ASSERT_OK(ScaleGpu::create(dev, s, &g));
  const HostPicture hp = make_picture(45, 27, Chroma::k420, kLayouts[2], 5);
  DevicePicture dp;
  ASSERT_OK(upload(dev, hp, &dp));
  DevicePlane bad[3] = {dp.planes[0], dp.planes[1], dp.planes[2]};
  bad[0].width = 44;
  EXPECT_EQ(g->enqueue(bad, 3).code(), Errc::unsupported);
  bad[0] = dp.planes[0];
  bad[1].bytes = 1;
  EXPECT_EQ(g->enqueue(bad, 3).code(), Errc::unsupported);
  bad[1] = dp.planes[1];
  bad[2].pitch = 10;
  EXPECT_EQ(g->enqueue(bad, 3).code(), Errc::invalid_argument);  // a row does not fit the pitch
  EXPECT_EQ(g->enqueue(dp.planes, 2).code(), Errc::invalid_argument);
  ASSERT_OK(g->enqueue(dp.planes, 1));  // luma only
  ASSERT_OK(dev->synchronize());
  EXPECT_TRUE(dev->status().is_ok());
  EXPECT_EQ(g->output(3).data, nullptr);
  EXPECT_EQ(g->output(0).width, 96u);
  EXPECT_EQ(g->output(1).width, 48u);
  EXPECT_EQ(g->output(1).height, 27u);
}

}  // namespace
}  // namespace vmafx::hip
