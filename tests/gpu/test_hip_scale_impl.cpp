// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU scaler's arithmetic (engine/hip/kernels/scale_impl.h) run on the CPU, work item by work item as the two
// kernels run them, against the CPU scaler (cpu/scale.h) with the same filters: every intermediate value and every
// output sample equal, on seeded inputs (uniform noise, 0-or-max noise, flat extremes) at 8, 10, 12 and 16 bits,
// planar and interleaved, shifted words, odd pitches, up and down, one axis only, tiny sizes, and each kernel; the
// FFmpeg fixtures of tests/data/scale through the emulated kernels. Suite 'hip': needs no GPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/scale.h"
#include "hip/kernels/scale_impl.h"
#include "support.h"

namespace vmafx {
namespace {

using cpu::ScaleKernel;

// A host plane as the kernels read it.
struct HostPlane {
  std::vector<uint8_t> bytes;
  size_t pitch = 0;
  uint32_t w = 0, h = 0;
  uint8_t word = 1, shift = 0, step = 1;
  unsigned bpc = 8;

  cpu::Plane plane() const {
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

enum Pattern { kUniform, kExtremes, kFlatMax, kFlatMin };

HostPlane make_plane(uint32_t w, uint32_t h, unsigned bpc, uint8_t shift, uint8_t step, size_t pad, Pattern pat,
                     uint32_t seed) {
  std::mt19937 rng(seed);
  HostPlane p;
  p.w = w;
  p.h = h;
  p.bpc = bpc;
  p.word = bpc > 8 ? 2 : 1;
  p.shift = shift;
  p.step = step;
  p.pitch = size_t(w) * step * p.word + pad;
  p.bytes.resize(p.pitch * h);
  for (auto& b : p.bytes) b = uint8_t(rng());  // padding, interleaved neighbours and low bits: noise to ignore
  const uint32_t max = (1u << bpc) - 1;
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      uint32_t v = 0;
      switch (pat) {
        case kUniform: v = rng() & max; break;
        case kExtremes: v = (rng() & 1) ? max : 0; break;
        case kFlatMax: v = max; break;
        case kFlatMin: v = 0; break;
      }
      uint8_t* s = p.bytes.data() + size_t(y) * p.pitch + size_t(x) * step * p.word;
      if (p.word == 1) {
        s[0] = uint8_t(v);
      } else {
        const uint32_t word = (v << shift) | (shift ? (rng() & ((1u << shift) - 1)) : 0);
        s[0] = uint8_t(word);
        s[1] = uint8_t(word >> 8);
      }
    }
  return p;
}

// The emulated kernels on one plane: intermediate values and output samples.
struct GpuResult {
  std::vector<int32_t> tmp;
  std::vector<uint8_t> out;  // dst_h rows of dst_pitch bytes
  size_t dst_pitch = 0;
};

GpuResult run_kernels(const cpu::Scaler& s, unsigned index, const HostPlane& src) {
  const cpu::ScaleAxis& h = s.horizontal(index);
  const cpu::ScaleAxis& v = s.vertical(index);
  GpuResult r;
  const size_t tmp_pitch = h.dst + 3;  // a pitch other than the width
  r.tmp.assign(tmp_pitch * v.src, 0x5a5a5a5a);
  const unsigned bytes = s.bpc() > 8 ? 2 : 1;
  r.dst_pitch = size_t(h.dst) * bytes + 6;
  r.out.assign(r.dst_pitch * v.dst, 0xa5);

  ScaleHArgs ha{};
  ha.src = VxPlane{src.bytes.data(), src.pitch, h.src, v.src, src.word, src.shift, src.step};
  ha.bpc = s.bpc();
  ha.dst_w = h.dst;
  ha.taps = vx_u32(h.taps);
  ha.pos = h.pos.data();
  ha.coef = h.coef.data();
  ha.tmp = r.tmp.data();
  ha.tmp_pitch = tmp_pitch;
  // Work items in the order of a grid of blocks (the order does not matter: each writes its own value).
  for (uint32_t by = 0; by < v.src; by += SCALE_BLOCK_Y)
    for (uint32_t bx = 0; bx < h.dst; bx += SCALE_BLOCK_X)
      for (uint32_t ty = 0; ty < SCALE_BLOCK_Y; ++ty)
        for (uint32_t tx = 0; tx < SCALE_BLOCK_X; ++tx)
          if (bx + tx < h.dst && by + ty < v.src) scale_h_item(ha, bx + tx, by + ty);

  ScaleVArgs va{};
  va.tmp = r.tmp.data();
  va.tmp_pitch = tmp_pitch;
  va.src_h = v.src;
  va.dst_w = h.dst;
  va.dst_h = v.dst;
  va.taps = vx_u32(v.taps);
  va.pos = v.pos.data();
  va.coef = v.coef.data();
  va.bpc = s.bpc();
  va.vsub = s.vsub(index);
  va.luma_rows = s.dst_height();
  va.dst = r.out.data();
  va.dst_pitch = r.dst_pitch;
  for (uint32_t y = 0; y < v.dst; ++y)
    for (uint32_t x = 0; x < h.dst; ++x) scale_v_item(va, x, y);
  return r;
}

// Compares the emulated kernels with the CPU scaler on one plane; "" when equal.
std::string compare_plane(const cpu::Scaler& s, unsigned index, const HostPlane& src) {
  const cpu::ScaleAxis& h = s.horizontal(index);
  const cpu::ScaleAxis& v = s.vertical(index);
  const cpu::Plane p = src.plane();
  // Intermediate rows.
  const GpuResult g = run_kernels(s, index, src);
  std::vector<int32_t> row(h.dst);
  for (uint32_t y = 0; y < v.src; ++y) {
    cpu::scale_h_row(p, y, h, row.data());
    for (uint32_t x = 0; x < h.dst; ++x)
      if (g.tmp[size_t(y) * (h.dst + 3) + x] != row[x])
        return "intermediate (" + std::to_string(x) + ", " + std::to_string(y) + "): kernel " +
               std::to_string(g.tmp[size_t(y) * (h.dst + 3) + x]) + ", CPU " + std::to_string(row[x]);
  }
  // Output samples.
  const unsigned bytes = s.bpc() > 8 ? 2 : 1;
  std::vector<uint8_t> want(size_t(h.dst) * bytes * v.dst);
  std::vector<int32_t> tmp(s.tmp_size(index));
  s.scale_plane(index, p, want.data(), ptrdiff_t(h.dst) * bytes, tmp.data());
  for (uint32_t y = 0; y < v.dst; ++y)
    for (uint32_t x = 0; x < h.dst; ++x) {
      const uint8_t* a = &g.out[size_t(y) * g.dst_pitch + size_t(x) * bytes];
      const uint8_t* b = &want[(size_t(y) * h.dst + x) * bytes];
      if (std::memcmp(a, b, bytes) != 0) {
        const unsigned ga = bytes == 1 ? a[0] : a[0] | (a[1] << 8);
        const unsigned gb = bytes == 1 ? b[0] : b[0] | (b[1] << 8);
        return "output (" + std::to_string(x) + ", " + std::to_string(y) + "): kernel " + std::to_string(ga) +
               ", CPU " + std::to_string(gb);
      }
    }
  // Padding after each output row untouched.
  for (uint32_t y = 0; y < v.dst; ++y)
    for (size_t i = size_t(h.dst) * bytes; i < g.dst_pitch; ++i)
      if (g.out[size_t(y) * g.dst_pitch + i] != 0xa5) return "write past the row end at row " + std::to_string(y);
  return "";
}

struct Layout {
  const char* name;
  unsigned bpc;
  uint8_t shift, step;
  size_t pad;
};

const Layout kLayouts[] = {
    {"8-bit", 8, 0, 1, 0},           {"8-bit interleaved, odd pitch", 8, 0, 2, 3},
    {"10-bit", 10, 0, 1, 2},         {"10-bit high bits (P010), interleaved", 10, 6, 2, 1},
    {"12-bit", 12, 0, 1, 0},         {"16-bit", 16, 0, 1, 4},
    {"16-bit interleaved (P016)", 16, 0, 2, 0}, {"9-bit", 9, 0, 1, 0}, {"14-bit", 14, 0, 1, 0},
};

TEST(HipScaleImpl, KernelsMatchCpuScaler) {
  const ScaleKernel kernels[] = {ScaleKernel::bicubic, ScaleKernel::bilinear, ScaleKernel::lanczos};
  const uint32_t sizes[][4] = {{45, 27, 96, 54},   {96, 54, 45, 27},  {288, 162, 576, 324}, {31, 17, 31, 40},
                               {40, 17, 63, 17},   {3, 3, 17, 9},     {17, 9, 3, 3},         {64, 36, 1920 / 8, 36},
                               {1, 1, 5, 4},       {160, 90, 1920 / 4, 1080 / 4}};
  const Pattern patterns[] = {kUniform, kExtremes, kFlatMax, kFlatMin};
  const Chroma chromas[] = {Chroma::k420, Chroma::k422, Chroma::k444, Chroma::k400};
  uint32_t seed = 1;
  int checked = 0;
  for (const Layout& l : kLayouts)
    for (ScaleKernel k : kernels)
      for (const auto& sz : sizes)
        for (Chroma c : chromas) {
          cpu::Scaler s;
          ASSERT_OK(s.init(k, sz[0], sz[1], sz[2], sz[3], c, l.bpc));
          for (unsigned i = 0; i < (c == Chroma::k400 ? 1u : 2u); ++i) {
            const Pattern pat = patterns[seed % 4];
            const uint32_t pw = i ? chroma_width_stored(c, sz[0]) : sz[0];
            const uint32_t ph = i ? chroma_height_stored(c, sz[1]) : sz[1];
            const HostPlane src = make_plane(pw, ph, l.bpc, l.shift, l.step, l.pad, pat, seed);
            const std::string d = compare_plane(s, i, src);
            EXPECT_EQ(d, "") << l.name << " " << cpu::scale_kernel_name(k) << " " << sz[0] << "x" << sz[1] << " -> "
                             << sz[2] << "x" << sz[3] << " " << chroma_name(c) << " plane " << i << " pattern "
                             << pat << " seed " << seed;
            ++seed;
            ++checked;
          }
        }
  std::printf("%d planes checked\n", checked);
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

// FFmpeg's output, through the emulated kernels (the CPU scaler's equality with it is test_cpu_scale's).
TEST(HipScaleImpl, KernelsReproduceFfmpegFixtures) {
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
      {"src_45x27_8b_420.yuv", "8b_420_30x17_lanczos.yuv", 45, 27, 30, 17, Chroma::k420, 8, ScaleKernel::lanczos},
      {"src_45x27_10b_420.yuv", "10b_420_96x54_bilinear.yuv", 45, 27, 96, 54, Chroma::k420, 10,
       ScaleKernel::bilinear},
      {"src_45x27_16b_420.yuv", "16b_420_96x54_bicubic.yuv", 45, 27, 96, 54, Chroma::k420, 16,
       ScaleKernel::bicubic},
      {"src_24x14_8b_420_extreme.yuv", "8b_420_extreme_50x29_lanczos.yuv", 24, 14, 50, 29, Chroma::k420, 8,
       ScaleKernel::lanczos},
  };
  const std::string dir = test::project_data_dir() + "/scale/";
  for (const F& f : fixtures) {
    SCOPED_TRACE(f.out);
    const std::vector<uint8_t> src = read_file(dir + f.src);
    const std::vector<uint8_t> want = read_file(dir + f.out);
    ASSERT_FALSE(src.empty());
    ASSERT_FALSE(want.empty());
    cpu::Scaler s;
    ASSERT_OK(s.init(f.k, f.sw, f.sh, f.dw, f.dh, f.c, f.bpc));
    const unsigned bytes = f.bpc > 8 ? 2 : 1;
    size_t in_off = 0;
    std::vector<uint8_t> got;
    for (unsigned i = 0; i < 3; ++i) {
      HostPlane p;
      p.w = s.horizontal(i).src;
      p.h = s.vertical(i).src;
      p.bpc = f.bpc;
      p.word = uint8_t(bytes);
      p.pitch = size_t(p.w) * bytes;
      ASSERT_LE(in_off + p.pitch * p.h, src.size());
      p.bytes.assign(src.begin() + ptrdiff_t(in_off), src.begin() + ptrdiff_t(in_off + p.pitch * p.h));
      in_off += p.pitch * p.h;
      const GpuResult r = run_kernels(s, i, p);
      for (uint32_t y = 0; y < s.vertical(i).dst; ++y)
        got.insert(got.end(), r.out.begin() + ptrdiff_t(y * r.dst_pitch),
                   r.out.begin() + ptrdiff_t(y * r.dst_pitch + size_t(s.horizontal(i).dst) * bytes));
    }
    EXPECT_TRUE(got == want) << "emulated kernels differ from FFmpeg";
  }
}

}  // namespace
}  // namespace vmafx
