// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU scaler (cpu/scale.h) against FFmpeg 5.1's swscale: byte for byte on the fixtures of tests/data/scale
// (8/10/12/16-bit, 4:2:0/4:2:2/4:4:4/gray, up and down, one axis only, bicubic/bilinear/lanczos, 0-or-max noise) and
// on the public down/up-scaled clip of ../shared (skipped when ../shared is absent); the filters' invariants; the
// choice of vertical filter per row; sample layouts (words with a shift, interleaved chroma, padded rows); errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/scale.h"
#include "support.h"

namespace vmafx {
namespace {

using cpu::ScaleKernel;

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

size_t frame_bytes(uint32_t w, uint32_t h, Chroma c, unsigned bpc) {
  const size_t b = bpc > 8 ? 2 : 1;
  size_t n = size_t(w) * h;
  if (c != Chroma::k400) n += 2 * size_t(chroma_width_stored(c, w)) * chroma_height_stored(c, h);
  return n * b;
}

// A packed planar picture in `data`.
PictureView packed_view(const uint8_t* data, uint32_t w, uint32_t h, Chroma c, unsigned bpc) {
  PictureView v;
  v.chroma = c;
  v.bit_depth = uint8_t(bpc);
  v.bytes_per_sample = bpc > 8 ? 2 : 1;
  v.width = w;
  v.height = h;
  const size_t b = v.bytes_per_sample;
  v.planes[0] = {data, ptrdiff_t(w * b), w, h, 1};
  if (c != Chroma::k400) {
    const uint32_t cw = chroma_width_stored(c, w), ch = chroma_height_stored(c, h);
    v.planes[1] = {data + size_t(w) * h * b, ptrdiff_t(cw * b), cw, ch, 1};
    v.planes[2] = {data + (size_t(w) * h + size_t(cw) * ch) * b, ptrdiff_t(cw * b), cw, ch, 1};
  }
  return v;
}

// The scaled picture's planes packed one after another, as .yuv files hold them.
std::vector<uint8_t> pack(const PictureView& v) {
  std::vector<uint8_t> out;
  for (unsigned i = 0; i < v.plane_count(); ++i) {
    const PlaneView& p = v.planes[i];
    for (uint32_t y = 0; y < p.height; ++y) {
      const uint8_t* row = p.data + ptrdiff_t(y) * p.stride;
      out.insert(out.end(), row, row + size_t(p.width) * v.bytes_per_sample);
    }
  }
  return out;
}

// First differing sample, as "plane p (x, y): got a, FFmpeg b", or "" when equal.
std::string first_difference(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, uint32_t w,
                             uint32_t h, Chroma c, unsigned bpc) {
  if (got.size() != want.size())
    return "sizes differ: " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
  const size_t b = bpc > 8 ? 2 : 1;
  size_t off = 0;
  for (unsigned p = 0; p < (c == Chroma::k400 ? 1u : 3u); ++p) {
    const uint32_t pw = p ? chroma_width_stored(c, w) : w, ph = p ? chroma_height_stored(c, h) : h;
    for (uint32_t y = 0; y < ph; ++y)
      for (uint32_t x = 0; x < pw; ++x, off += b) {
        const unsigned g = b == 1 ? got[off] : got[off] | (got[off + 1] << 8);
        const unsigned f = b == 1 ? want[off] : want[off] | (want[off + 1] << 8);
        if (g != f)
          return "plane " + std::to_string(p) + " (" + std::to_string(x) + ", " + std::to_string(y) +
                 "): got " + std::to_string(g) + ", FFmpeg " + std::to_string(f);
      }
  }
  return "";
}

struct Fixture {
  const char* src;
  uint32_t sw, sh;
  const char* out;
  uint32_t dw, dh;
  Chroma chroma;
  unsigned bpc;
  ScaleKernel kernel;
};

const Fixture kFixtures[] = {
    {"src_45x27_8b_420.yuv", 45, 27, "8b_420_96x54_bicubic.yuv", 96, 54, Chroma::k420, 8, ScaleKernel::bicubic},
    {"src_45x27_8b_420.yuv", 45, 27, "8b_420_96x54_bilinear.yuv", 96, 54, Chroma::k420, 8, ScaleKernel::bilinear},
    {"src_45x27_8b_420.yuv", 45, 27, "8b_420_96x54_lanczos.yuv", 96, 54, Chroma::k420, 8, ScaleKernel::lanczos},
    {"src_45x27_8b_420.yuv", 45, 27, "8b_420_30x17_bicubic.yuv", 30, 17, Chroma::k420, 8, ScaleKernel::bicubic},
    {"src_45x27_8b_420.yuv", 45, 27, "8b_420_30x17_bilinear.yuv", 30, 17, Chroma::k420, 8, ScaleKernel::bilinear},
    {"src_45x27_8b_420.yuv", 45, 27, "8b_420_30x17_lanczos.yuv", 30, 17, Chroma::k420, 8, ScaleKernel::lanczos},
    {"src_45x27_8b_420.yuv", 45, 27, "8b_420_45x54_bicubic.yuv", 45, 54, Chroma::k420, 8, ScaleKernel::bicubic},
    {"src_45x27_8b_420.yuv", 45, 27, "8b_420_96x27_bicubic.yuv", 96, 27, Chroma::k420, 8, ScaleKernel::bicubic},
    {"src_45x27_8b_422.yuv", 45, 27, "8b_422_96x54_bicubic.yuv", 96, 54, Chroma::k422, 8, ScaleKernel::bicubic},
    {"src_45x27_8b_444.yuv", 45, 27, "8b_444_96x54_bicubic.yuv", 96, 54, Chroma::k444, 8, ScaleKernel::bicubic},
    {"src_45x27_8b_400.yuv", 45, 27, "8b_400_96x54_bicubic.yuv", 96, 54, Chroma::k400, 8, ScaleKernel::bicubic},
    {"src_45x27_10b_420.yuv", 45, 27, "10b_420_96x54_bicubic.yuv", 96, 54, Chroma::k420, 10, ScaleKernel::bicubic},
    {"src_45x27_10b_420.yuv", 45, 27, "10b_420_96x54_bilinear.yuv", 96, 54, Chroma::k420, 10,
     ScaleKernel::bilinear},
    {"src_45x27_10b_420.yuv", 45, 27, "10b_420_96x54_lanczos.yuv", 96, 54, Chroma::k420, 10, ScaleKernel::lanczos},
    {"src_45x27_12b_444.yuv", 45, 27, "12b_444_96x54_bicubic.yuv", 96, 54, Chroma::k444, 12, ScaleKernel::bicubic},
    {"src_45x27_16b_420.yuv", 45, 27, "16b_420_96x54_bicubic.yuv", 96, 54, Chroma::k420, 16, ScaleKernel::bicubic},
    {"src_45x27_16b_420.yuv", 45, 27, "16b_420_30x17_lanczos.yuv", 30, 17, Chroma::k420, 16, ScaleKernel::lanczos},
    {"src_24x14_8b_420_extreme.yuv", 24, 14, "8b_420_extreme_50x29_bicubic.yuv", 50, 29, Chroma::k420, 8,
     ScaleKernel::bicubic},
    {"src_24x14_8b_420_extreme.yuv", 24, 14, "8b_420_extreme_50x29_lanczos.yuv", 50, 29, Chroma::k420, 8,
     ScaleKernel::lanczos},
    {"src_24x14_16b_420_extreme.yuv", 24, 14, "16b_420_extreme_50x29_bicubic.yuv", 50, 29, Chroma::k420, 16,
     ScaleKernel::bicubic},
    {"src_24x14_16b_420_extreme.yuv", 24, 14, "16b_420_extreme_50x29_lanczos.yuv", 50, 29, Chroma::k420, 16,
     ScaleKernel::lanczos},
};

TEST(CpuScale, MatchesFfmpegOnFixtures) {
  const std::string dir = test::project_data_dir() + "/scale/";
  for (const Fixture& f : kFixtures) {
    SCOPED_TRACE(std::string(f.src) + " -> " + f.out);
    const std::vector<uint8_t> src = read_file(dir + f.src);
    const std::vector<uint8_t> want = read_file(dir + f.out);
    ASSERT_EQ(src.size(), frame_bytes(f.sw, f.sh, f.chroma, f.bpc));
    ASSERT_EQ(want.size(), frame_bytes(f.dw, f.dh, f.chroma, f.bpc));
    cpu::Scaler s;
    ASSERT_OK(s.init(f.kernel, f.sw, f.sh, f.dw, f.dh, f.chroma, f.bpc));
    cpu::ScaledPicture out;
    ASSERT_OK(s.scale(packed_view(src.data(), f.sw, f.sh, f.chroma, f.bpc), &out));
    EXPECT_EQ(out.view.width, f.dw);
    EXPECT_EQ(out.view.height, f.dh);
    ASSERT_OK(validate_view(out.view));
    EXPECT_EQ(first_difference(pack(out.view), want, f.dw, f.dh, f.chroma, f.bpc), "");
  }
}

// The intermediate clip of ../shared upscaled as VMAF users upscale it reproduces FFmpeg's upscale, every frame.
TEST(CpuScale, ReproducesTheSharedBicubicUpscale) {
  const std::string dir = test::shared_testdata_dir() + "/";
  const std::string small = dir + "a_288x162_8b_down288_small.yuv";
  const std::string big = dir + "a_576x324_8b_down288.yuv";
  if (!test::file_exists(small) || !test::file_exists(big))
    GTEST_SKIP() << "../shared clips absent: " << small << " (FFmpeg's own outputs in tests/data/scale are checked above)";
  const FormatInfo fmt{PixelFormat::i420, Chroma::k420, 8};
  test::YuvClip in, ref;
  ASSERT_OK(in.open(small, 288, 162, fmt));
  ASSERT_OK(ref.open(big, 576, 324, fmt));
  ASSERT_EQ(in.frames(), ref.frames());
  ASSERT_GT(in.frames(), 0u);
  cpu::Scaler s;
  ASSERT_OK(s.init(ScaleKernel::bicubic, 288, 162, 576, 324, Chroma::k420, 8));
  cpu::ScaledPicture out;
  for (size_t i = 0; i < in.frames(); ++i) {
    ASSERT_OK(s.scale(in.frame(i), &out));
    const std::vector<uint8_t> got = pack(out.view);
    const std::vector<uint8_t> want(ref.frame_data(i), ref.frame_data(i) + ref.frame_size());
    ASSERT_EQ(first_difference(got, want, 576, 324, Chroma::k420, 8), "") << "frame " << i;
  }
}

TEST(CpuScale, FiltersSumToOneAndStayInside) {
  const ScaleKernel kernels[] = {ScaleKernel::bicubic, ScaleKernel::bilinear, ScaleKernel::lanczos};
  const uint32_t sizes[][2] = {{288, 576}, {576, 288}, {45, 96}, {96, 45}, {1, 7}, {7, 1}, {3, 3}, {2, 5},
                               {1920, 1921}, {162, 324}, {540, 1080}, {100, 17}};
  for (ScaleKernel k : kernels)
    for (const auto& sz : sizes)
      for (bool vertical : {false, true}) {
        SCOPED_TRACE(std::string(cpu::scale_kernel_name(k)) + " " + std::to_string(sz[0]) + " -> " +
                     std::to_string(sz[1]) + (vertical ? " vertical" : " horizontal"));
        cpu::ScaleAxis a;
        ASSERT_OK(cpu::scale_build_axis(k, sz[0], sz[1], vertical, &a));
        ASSERT_EQ(a.pos.size(), sz[1]);
        ASSERT_EQ(a.coef.size(), size_t(sz[1]) * a.taps);
        EXPECT_EQ(a.taps % (vertical ? (a.taps == 1 ? 1 : 2) : 4), 0);
        const int one = vertical ? cpu::kScaleVerticalOne : cpu::kScaleHorizontalOne;
        for (uint32_t i = 0; i < sz[1]; ++i) {
          int sum = 0;
          for (int t = 0; t < a.taps; ++t) {
            const int c = a.coef[size_t(i) * a.taps + t];
            sum += c;
            if (a.pos[i] + t >= int(sz[0])) {
              EXPECT_EQ(c, 0) << "tap past the end, output " << i;
            }
          }
          EXPECT_EQ(sum, one) << "output " << i;
          EXPECT_GE(a.pos[i], 0);
          EXPECT_LT(a.pos[i], int(sz[0]));
          if (i > 0) {
            EXPECT_GE(a.pos[i], a.pos[i - 1]);
          }
        }
      }
  // Bicubic 2x upscale: four taps; no scaling: one vertical tap, horizontally padded to four.
  cpu::ScaleAxis a;
  ASSERT_OK(cpu::scale_build_axis(ScaleKernel::bicubic, 288, 576, true, &a));
  EXPECT_EQ(a.taps, 4);
  ASSERT_OK(cpu::scale_build_axis(ScaleKernel::bicubic, 324, 324, true, &a));
  EXPECT_EQ(a.taps, 1);
  ASSERT_OK(cpu::scale_build_axis(ScaleKernel::bicubic, 324, 324, false, &a));
  EXPECT_EQ(a.taps, 4);
  EXPECT_EQ(a.coef[0], cpu::kScaleHorizontalOne);
}

TEST(CpuScale, LastTwoLumaRowsUseTheCFilter) {
  using cpu::ScaleVMode;
  // 8-bit, 324 output rows: rows 322 and 323 (and 4:2:0 chroma row 161, written with luma row 322).
  EXPECT_EQ(cpu::scale_v_mode(8, 4, 321, 0, 324), ScaleVMode::x86);
  EXPECT_EQ(cpu::scale_v_mode(8, 4, 322, 0, 324), ScaleVMode::c);
  EXPECT_EQ(cpu::scale_v_mode(8, 4, 323, 0, 324), ScaleVMode::c);
  EXPECT_EQ(cpu::scale_v_mode(8, 4, 160, 1, 324), ScaleVMode::x86);
  EXPECT_EQ(cpu::scale_v_mode(8, 4, 161, 1, 324), ScaleVMode::c);
  // Odd height 325: chroma row 162 is written with luma row 324.
  EXPECT_EQ(cpu::scale_v_mode(8, 4, 161, 1, 325), ScaleVMode::x86);
  EXPECT_EQ(cpu::scale_v_mode(8, 4, 162, 1, 325), ScaleVMode::c);
  EXPECT_EQ(cpu::scale_v_mode(8, 1, 10, 0, 324), ScaleVMode::one_tap);
  EXPECT_EQ(cpu::scale_v_mode(10, 4, 10, 0, 324), ScaleVMode::c);
  EXPECT_EQ(cpu::scale_v_mode(8, 2, 0, 0, 1), ScaleVMode::c);
  // The two 8-bit filters differ: the x86 one drops each product's low 16 bits (here 7 against 8).
  const int32_t v[4] = {888, 938, 978, 901};
  const int16_t c[4] = {-300, 2348, 2348, -300};
  EXPECT_EQ(cpu::scale_v_sample(ScaleVMode::x86, 8, v, c, 4), 7u);
  EXPECT_EQ(cpu::scale_v_sample(ScaleVMode::c, 8, v, c, 4), 8u);
}

// P010-like words (10 bits high, shift 6), interleaved chroma and padded rows give what packed planes give.
TEST(CpuScale, ReadsShiftedInterleavedPaddedPlanes) {
  const std::string dir = test::project_data_dir() + "/scale/";
  const std::vector<uint8_t> src = read_file(dir + "src_45x27_10b_420.yuv");
  ASSERT_EQ(src.size(), frame_bytes(45, 27, Chroma::k420, 10));
  const PictureView packed = packed_view(src.data(), 45, 27, Chroma::k420, 10);
  // Rebuild as NV12-like P010: luma rows of 50 words, one CbCr plane of interleaved words, rows of 49 pairs.
  const uint32_t cw = 23, ch = 14;
  std::vector<uint16_t> y(50 * 27), uv(size_t(49) * 2 * ch);
  for (uint32_t r = 0; r < 27; ++r)
    for (uint32_t x = 0; x < 45; ++x) {
      uint16_t s;
      std::memcpy(&s, packed.planes[0].data + r * packed.planes[0].stride + 2 * x, 2);
      y[r * 50 + x] = uint16_t(s << 6);
    }
  for (uint32_t r = 0; r < ch; ++r)
    for (uint32_t x = 0; x < cw; ++x)
      for (unsigned p = 1; p <= 2; ++p) {
        uint16_t s;
        std::memcpy(&s, packed.planes[p].data + r * packed.planes[p].stride + 2 * x, 2);
        uv[r * 98 + 2 * x + (p - 1)] = uint16_t(s << 6 | 0x15);  // low bits that the shift must drop
      }
  PictureView v = packed;
  v.shift = 6;
  v.planes[0] = {reinterpret_cast<const uint8_t*>(y.data()), 100, 45, 27, 1};
  v.planes[1] = {reinterpret_cast<const uint8_t*>(uv.data()), 196, cw, ch, 2};
  v.planes[2] = {reinterpret_cast<const uint8_t*>(uv.data()) + 2, 196, cw, ch, 2};
  cpu::Scaler s;
  ASSERT_OK(s.init(ScaleKernel::bicubic, 45, 27, 96, 54, Chroma::k420, 10));
  cpu::ScaledPicture a, b;
  ASSERT_OK(s.scale(packed, &a));
  ASSERT_OK(s.scale(v, &b));
  EXPECT_EQ(pack(a.view), pack(b.view));
  EXPECT_EQ(b.view.shift, 0);
  EXPECT_EQ(b.view.bytes_per_sample, 2);
}

TEST(CpuScale, RejectsWhatItCannotScale) {
  cpu::Scaler s;
  EXPECT_EQ(s.init(ScaleKernel::bicubic, 45, 27, 96, 54, Chroma::k420, 15).code(), Errc::unsupported);
  EXPECT_EQ(s.init(ScaleKernel::bicubic, 45, 27, 96, 54, Chroma::k420, 7).code(), Errc::unsupported);
  EXPECT_EQ(s.init(ScaleKernel::bicubic, 0, 27, 96, 54, Chroma::k420, 8).code(), Errc::invalid_argument);
  // A downscale that swscale would cascade is refused with the filter length in the message.
  const Status far = s.init(ScaleKernel::bicubic, 3840, 2160, 40, 22, Chroma::k420, 8);
  EXPECT_EQ(far.code(), Errc::unsupported);
  EXPECT_NE(far.message().find("cascade"), std::string::npos) << far.message();

  cpu::ScaledPicture out;
  std::vector<uint8_t> src(frame_bytes(45, 27, Chroma::k420, 8), 128);
  EXPECT_EQ(s.scale(packed_view(src.data(), 45, 27, Chroma::k420, 8), &out).code(), Errc::invalid_argument)
      << "not initialised";
  ASSERT_OK(s.init(ScaleKernel::bicubic, 45, 27, 96, 54, Chroma::k420, 8));
  EXPECT_EQ(s.scale(packed_view(src.data(), 44, 27, Chroma::k420, 8), &out).code(), Errc::invalid_argument);
  EXPECT_EQ(s.scale(packed_view(src.data(), 45, 27, Chroma::k444, 8), &out).code(), Errc::invalid_argument);
  PictureView dev = packed_view(src.data(), 45, 27, Chroma::k420, 8);
  dev.memory = MemoryKind::device;
  EXPECT_EQ(s.scale(dev, &out).code(), Errc::unsupported);
  PictureView short_rows = packed_view(src.data(), 45, 27, Chroma::k420, 8);
  short_rows.planes[0].stride = 40;
  EXPECT_EQ(s.scale(short_rows, &out).code(), Errc::invalid_argument);
  EXPECT_TRUE(s.scale(packed_view(src.data(), 45, 27, Chroma::k420, 8), &out).is_ok());
  EXPECT_EQ(s.scale(packed_view(src.data(), 45, 27, Chroma::k420, 8), nullptr).code(), Errc::invalid_argument);
}

}  // namespace
}  // namespace vmafx
