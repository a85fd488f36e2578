// SPDX-License-Identifier: LGPL-2.1-or-later
// GL textures into device frames through the GPU runtime's GL interop, on a GL context of the scoring GPU (NVIDIA:
// EGL's device platform, the EGLDevice whose CUDA ordinal is the device's, or GLX on $DISPLAY with
// VMAFX_TEST_GL_PLATFORM=glx, e.g. Xvfb with NVIDIA's GLX client library; AMD: GLX on $DISPLAY). Checks, printing
// the first mismatch with its seed and position:
//   - the importer accepts the GPU's own context (and says what it checked, probe read included);
//   - every layout (R8 x3, R8 + RG8, R16 + RG16, R8 / R16 gray, RGBA8) lands in the device frame byte for byte, on
//     seeded edge-biased planes at tiny, odd, 1080p and 4K sizes and on the public clips; RGBA becomes the luma the
//     host conversion computes;
//   - scores of imported device frames equal the scores of the same frames from host memory, every frame, every
//     score (skips, naming why, while the scorer takes no device pictures);
//   - a texture is registered once however often it is imported, the frame pool stops growing, and every
//     registration is undone when its Texture goes;
//   - a producer in another GL context: with the wait on its fence the frame is the new content; a planted missing
//     wait either reads stale content, or (NVIDIA, measured on the H200) the runtime's map orders the copy after the
//     producer's still-running draw by itself: the test says which, and fails when neither can be shown.
// Skips (exit 77) without a device or without a GL context on it.
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gl_test_context.h"
#include "gl/test_hooks.h"
#include "gpu_device.h"
#include "hip/cuda_memory.h"
#include "hip/kernels/rgba_luma_impl.h"
#include "hip/module.h"
#include "support.h"
#include "vmafx/gl.h"
#include "vmafx/scorer.h"

namespace vmafx::gl {
namespace {

using test::TestGlContext;

#define ASSERT_OK(expr)                                         \
  do {                                                          \
    ::vmafx::Status s_ = (expr);                                \
    ASSERT_TRUE(s_.is_ok()) << #expr << ": " << s_.to_string(); \
  } while (0)

Vendor public_vendor(hip::Vendor v) { return v == hip::Vendor::amd ? Vendor::amd : Vendor::nvidia; }

// The device of the gpu suite, a GL context on it made current on this thread, and an importer; or a skip.
struct GlGpu {
  std::shared_ptr<hip::Device> device;
  TestGlContext gl;
  std::unique_ptr<Importer> importer;
};

Status open_gl_gpu(GlGpu* g, std::string* skip) {
  Status s = hip::test::test_device(&g->device);
  if (s.code() == Errc::device_unavailable) {
    *skip = "no GPU device: " + s.message();
    return s;
  }
  VMAFX_TRY(s);
  const hip::DeviceInfo& di = g->device->info();
  const char* platform = std::getenv("VMAFX_TEST_GL_PLATFORM");
  const bool glx = di.vendor != hip::Vendor::nvidia || (platform && std::string(platform) == "glx");
  s = glx ? TestGlContext::create_glx(&g->gl) : TestGlContext::create_egl_cuda(di.index, &g->gl);
  if (s.code() == Errc::device_unavailable) {
    *skip = "no GL context on " + di.name + ": " + s.message();
    return s;
  }
  VMAFX_TRY(s);
  ContextInfo info;
  s = Importer::create(public_vendor(di.vendor), di.index, &g->importer, &info);
  std::printf("GL: %s\ncontext: %s\ndevice: %s %s (%s)\n", g->gl.description().c_str(), info.describe().c_str(),
              di.name.c_str(), di.pci_bus_id.c_str(), di.library.c_str());
  // What names the context's GPU, beside the device's own identity (the same-GPU rule of docs/gl.md, measured here).
  std::printf("context identity: pci '%s', device uuid '%s' (%s); device uuid '%s'\n", info.pci_bus_id.c_str(),
              info.device_uuid.c_str(), info.identity.empty() ? "nothing names it" : info.identity.c_str(),
              di.vendor == hip::Vendor::nvidia ? hip::cuda_device_uuid(g->device->api(), di.index).c_str() : "");
  if (!s.is_ok() && di.vendor == hip::Vendor::amd) {
    // ROCm's interop refuses what it cannot read (ROCm 10.1: every read of a mapped texture); the refusal is the
    // documented outcome there, and it must name the renderer.
    *skip = "AMD runtime refused GL interop: " + s.message();
    return s;
  }
  if (s.is_ok()) std::printf("importer: %s\n", g->importer->probe_report().c_str());
  return s;
}

#define GL_GPU_OR_SKIP(g)                         \
  GlGpu g;                                        \
  do {                                            \
    std::string skip_;                            \
    ::vmafx::Status s_ = open_gl_gpu(&g, &skip_); \
    if (!skip_.empty()) GTEST_SKIP() << skip_;    \
    ASSERT_TRUE(s_.is_ok()) << s_.to_string();    \
  } while (0)

// A plane in host memory: rows of `row_bytes` (of `texel` texels), `pitch` apart.
struct HostTex {
  TexelFormat texel = TexelFormat::r8;
  uint32_t width = 0, height = 0;  // texels
  size_t pitch = 0;
  std::vector<uint8_t> bytes;
  size_t row_bytes() const { return size_t(width) * texel_bytes(texel); }
};

struct GlFormatOf {
  unsigned internal, format, type;
};

GlFormatOf gl_format(TexelFormat t) {
  switch (t) {
    case TexelFormat::r8:
      return {GL_R8, GL_RED, GL_UNSIGNED_BYTE};
    case TexelFormat::rg8:
      return {GL_RG8, GL_RG, GL_UNSIGNED_BYTE};
    case TexelFormat::r16:
      return {GL_R16, GL_RED, GL_UNSIGNED_SHORT};
    case TexelFormat::rg16:
      return {GL_RG16, GL_RG, GL_UNSIGNED_SHORT};
    case TexelFormat::rgba8:
      return {GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE};
  }
  return {0, 0, 0};
}

// A GL texture holding `h`, registered with the importer; deleted (after its registration) when it goes.
struct GlTexture {
  unsigned id = 0;
  std::unique_ptr<Texture> reg;
  ~GlTexture() {
    reg.reset();
    if (id) test::delete_texture(id);
  }
};

Status upload(Importer& imp, const HostTex& h, GlTexture* out) {
  const GlFormatOf f = gl_format(h.texel);
  const unsigned bpt = texel_bytes(h.texel);
  VMAFX_TRY(
      test::make_texture(f.internal, f.format, f.type, h.width, h.height, h.bytes.data(), h.pitch, bpt, &out->id));
  return imp.register_texture(out->id, GL_TEXTURE_2D, h.width, h.height, h.texel, &out->reg);
}

// Edge-biased bytes: one in eight is 0x00, one in eight 0xff, the rest random; for 16-bit words (`bits` < 16 with
// `shift`), the value in the high bits and noise below.
HostTex random_tex(std::mt19937& rng, TexelFormat t, uint32_t w, uint32_t h) {
  HostTex x;
  x.texel = t;
  x.width = w;
  x.height = h;
  x.pitch = x.row_bytes() + (rng() % 3) * 4;  // GL unpack rows are whole texels
  x.bytes.resize(x.pitch * h);
  for (auto& b : x.bytes) {
    const uint32_t r = rng();
    b = (r & 7) == 0 ? 0 : (r & 7) == 1 ? 0xff : uint8_t(r >> 8);
  }
  return x;
}

// Reads plane `plane` of a device picture the importer made back into host rows: `rows` rows of `row_bytes`.
Status read_back(Importer& imp, const PictureView& v, unsigned plane, size_t row_bytes, uint32_t rows,
                 std::vector<uint8_t>* out) {
  out->assign(row_bytes * rows, 0);
  return imp.read_plane(v, plane, row_bytes, rows, out->data(), row_bytes);
}

// Compares `got` (rows of row_bytes) with the texture's top-left region; prints the first mismatch.
::testing::AssertionResult same_bytes(const HostTex& want, const std::vector<uint8_t>& got, size_t row_bytes,
                                      uint32_t rows, const std::string& what) {
  for (uint32_t y = 0; y < rows; y++)
    for (size_t x = 0; x < row_bytes; x++)
      if (got[y * row_bytes + x] != want.bytes[y * want.pitch + x])
        return ::testing::AssertionFailure()
               << what << ": first mismatch at byte " << x << " of row " << y << ": device "
               << int(got[y * row_bytes + x]) << ", texture " << int(want.bytes[y * want.pitch + x]);
  return ::testing::AssertionSuccess();
}

TEST(GlImportGpu, ImporterAcceptsTheGpusOwnContext) {
  GL_GPU_OR_SKIP(g);
  const InteropCounters c = interop_counters();
  std::printf("interop calls so far %llu, registrations %llu, live %llu\n", (unsigned long long)c.interop_calls,
              (unsigned long long)c.registrations, (unsigned long long)c.live_registrations);
  EXPECT_EQ(c.live_registrations, 0u) << "the probe texture's registration was undone";
  EXPECT_FALSE(g.importer->probe_report().empty());
  EXPECT_EQ(g.importer->device().index, g.device->info().index);
  EXPECT_FALSE(g.importer->context().software);
}

struct Layout {
  const char* name;
  FormatInfo format;
  TexelFormat luma, chroma;
  unsigned textures;
};

const Layout kLayouts[] = {
    {"I420 (R8 x3)", {PixelFormat::i420, Chroma::k420, 8}, TexelFormat::r8, TexelFormat::r8, 3},
    {"Y42B (R8 x3)", {PixelFormat::i420, Chroma::k422, 8}, TexelFormat::r8, TexelFormat::r8, 3},
    {"Y444 (R8 x3)", {PixelFormat::i420, Chroma::k444, 8}, TexelFormat::r8, TexelFormat::r8, 3},
    {"YV12 (R8 x3)", {PixelFormat::yv12, Chroma::k420, 8}, TexelFormat::r8, TexelFormat::r8, 3},
    {"NV12 (R8 + RG8)", {PixelFormat::nv12, Chroma::k420, 8}, TexelFormat::r8, TexelFormat::rg8, 2},
    {"NV21 (R8 + RG8)", {PixelFormat::nv21, Chroma::k420, 8}, TexelFormat::r8, TexelFormat::rg8, 2},
    {"P010 (R16 + RG16)", {PixelFormat::p010, Chroma::k420, 10}, TexelFormat::r16, TexelFormat::rg16, 2},
    {"P016 (R16 + RG16)", {PixelFormat::p016, Chroma::k420, 16}, TexelFormat::r16, TexelFormat::rg16, 2},
    {"GRAY8 (R8)", {PixelFormat::gray, Chroma::k400, 8}, TexelFormat::r8, TexelFormat::r8, 1},
    {"GRAY16 (R16)", {PixelFormat::gray, Chroma::k400, 16}, TexelFormat::r16, TexelFormat::r16, 1},
};

// Imports the textures of one frame and compares every plane of the device frame with the frame's region of them:
// the top-left w x h (luma) or stored chroma size texels; a texture may be larger than that (GStreamer pads rows),
// and the texels beyond the frame are not part of it.
void check_layout_frame(GlGpu& g, const Layout& l, const std::vector<HostTex>& tex, uint32_t w, uint32_t h,
                        const std::string& what) {
  std::vector<std::unique_ptr<GlTexture>> gl;
  TextureFrame f;
  f.format = l.format;
  f.width = w;
  f.height = h;
  f.n_planes = unsigned(tex.size());
  for (size_t i = 0; i < tex.size(); i++) {
    gl.push_back(std::make_unique<GlTexture>());
    ASSERT_OK(upload(*g.importer, tex[i], gl.back().get()));
    f.planes[i] = gl.back()->reg.get();
  }
  PictureView v;
  std::function<void()> release;
  ASSERT_OK(g.importer->import(f, &v, &release));
  EXPECT_EQ(v.memory, MemoryKind::device);
  ASSERT_OK(validate_view(v));
  // Device plane of texture i: for YV12 the second texture is Cr (view plane 2); semi-planar chroma starts at the
  // lower of planes 1 and 2.
  for (size_t i = 0; i < tex.size(); i++) {
    PictureView pv = v;
    unsigned vp = unsigned(i);
    if (l.format.format == PixelFormat::yv12 && i > 0) vp = i == 1 ? 2 : 1;
    if (l.textures == 2 && i == 1) {
      pv.planes[1].data = std::min(v.planes[1].data, v.planes[2].data);
      vp = 1;
    }
    const uint32_t texels = i == 0 ? w : chroma_width_stored(l.format.chroma, w);
    const uint32_t rows = i == 0 ? h : chroma_height_stored(l.format.chroma, h);
    ASSERT_LE(texels, tex[i].width);
    ASSERT_LE(rows, tex[i].height);
    const size_t row_bytes = size_t(texels) * texel_bytes(tex[i].texel);
    std::vector<uint8_t> got;
    ASSERT_OK(read_back(*g.importer, pv, vp, row_bytes, rows, &got));
    ASSERT_TRUE(same_bytes(tex[i], got, row_bytes, rows,
                           what + " " + l.name + " texture " + std::to_string(i) + " (" + std::to_string(texels) +
                               "x" + std::to_string(rows) + " of " + std::to_string(tex[i].width) + "x" +
                               std::to_string(tex[i].height) + " texels)"));
  }
  release();
}

TEST(GlImportGpu, EveryLayoutLandsByteForByteAtAnySize) {
  GL_GPU_OR_SKIP(g);
  const uint32_t sizes[][2] = {{1, 1}, {2, 2}, {3, 5}, {17, 9}, {321, 241}, {1920, 1080}, {3840, 2160}};
  uint32_t seed = 100;
  unsigned frames = 0;
  for (const Layout& l : kLayouts) {
    for (const auto& s : sizes) {
      const uint32_t w = s[0], h = s[1];
      std::mt19937 rng(++seed);
      const uint32_t cw = chroma_width_stored(l.format.chroma, w), ch = chroma_height_stored(l.format.chroma, h);
      std::vector<HostTex> tex;
      tex.push_back(random_tex(rng, l.luma, w, h));
      for (unsigned i = 1; i < l.textures; i++) tex.push_back(random_tex(rng, l.chroma, cw, ch));
      check_layout_frame(g, l, tex, w, h,
                         "seed " + std::to_string(seed) + " " + std::to_string(w) + "x" + std::to_string(h));
      if (HasFatalFailure()) return;
      frames++;
    }
  }
  std::printf("%u frames of %zu layouts at %zu sizes imported byte for byte\n", frames,
              sizeof kLayouts / sizeof kLayouts[0], sizeof sizes / sizeof sizes[0]);
}

TEST(GlImportGpu, TexturesLargerThanTheFrameAreReadFromTheirTopLeft) {
  GL_GPU_OR_SKIP(g);
  std::mt19937 rng(7);
  // GStreamer pads texture rows (a 321-wide I420 luma texture may be 324 texels wide).
  std::vector<HostTex> tex = {random_tex(rng, TexelFormat::r8, 324, 242), random_tex(rng, TexelFormat::r8, 164, 122),
                              random_tex(rng, TexelFormat::r8, 164, 122)};
  check_layout_frame(g, kLayouts[0], tex, 321, 241, "padded textures");
}

// The kernel alone (no GL): rgba_luma_kernel over seeded edge-biased RGBA at odd, 1080p and 4K sizes, odd pitches,
// every conversion, against the host function byte for byte. Runs wherever there is a device, GL or not.
TEST(GlImportGpu, RgbaLumaKernelEqualsTheHostWithoutGl) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  hip::Module module;
  ASSERT_OK(hip::Module::load(dev, "rgba_luma", &module));
  hip::TypedKernel<rgba_luma_kernel_fn> kernel;
  ASSERT_OK(module.function("rgba_luma_kernel", &kernel));
  std::printf("rgba_luma module: %s\n", module.origin().c_str());
  const uint32_t sizes[][2] = {{1, 1}, {3, 7}, {65, 5}, {321, 241}, {1920, 1080}, {3840, 2160}};
  const LumaConversion convs[] = {{RgbMatrix::bt601, RgbRange::full},
                                  {RgbMatrix::bt601, RgbRange::limited},
                                  {RgbMatrix::bt709, RgbRange::full},
                                  {RgbMatrix::bt709, RgbRange::limited}};
  uint32_t seed = 900;
  for (const LumaConversion& c : convs) {
    for (const auto& sz : sizes) {
      std::mt19937 rng(++seed);
      const uint32_t w = sz[0], h = sz[1];
      HostTex t = random_tex(rng, TexelFormat::rgba8, w, h);
      t.pitch = size_t(w) * 4 + 36;  // an odd-looking pitch (not a multiple of 64)
      t.bytes.resize(t.pitch * h);
      for (auto& b : t.bytes) b = (rng() & 7) == 0 ? 0 : (rng() & 7) == 1 ? 255 : uint8_t(rng());
      const size_t lpitch = size_t(w) + 3;
      std::vector<uint8_t> want(lpitch * h, 0);
      ASSERT_OK(rgba_to_luma(t.bytes.data(), ptrdiff_t(t.pitch), w, h, c, want.data(), ptrdiff_t(lpitch)));
      hip::DeviceBuffer src, dst;
      ASSERT_OK(hip::DeviceBuffer::create(dev, t.bytes.size(), &src));
      ASSERT_OK(hip::DeviceBuffer::create(dev, want.size(), &dst));
      ASSERT_OK(dev->copy_async(hip::CopyKind::host_to_device, src.data(), t.bytes.data(), t.bytes.size()));
      ASSERT_OK(dev->memset_d32_async(dst.data(), 0, want.size() / 4));
      const RgbaLumaCoeffs k = rgba_luma_coeffs(c.matrix == RgbMatrix::bt709 ? RGBA_LUMA_BT709 : RGBA_LUMA_BT601,
                                                c.range == RgbRange::limited ? RGBA_LUMA_LIMITED_RANGE
                                                                             : RGBA_LUMA_FULL_RANGE);
      ASSERT_OK(dev->launch(kernel,
                            {(w + RGBA_LUMA_THREADS_X - 1) / RGBA_LUMA_THREADS_X,
                             (h + RGBA_LUMA_THREADS_Y - 1) / RGBA_LUMA_THREADS_Y, 1},
                            {RGBA_LUMA_THREADS_X, RGBA_LUMA_THREADS_Y, 1}, 0, src.as<const vx_u8>(), vx_u64(t.pitch),
                            dst.as<vx_u8>(), vx_u64(lpitch), vx_u32(w), vx_u32(h), k.cr, k.cg, k.cb, k.offset));
      std::vector<uint8_t> got(want.size());
      ASSERT_OK(dev->copy_async(hip::CopyKind::device_to_host, got.data(), dst.data(), got.size()));
      ASSERT_OK(dev->synchronize());
      for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
          ASSERT_EQ(got[y * lpitch + x], want[y * lpitch + x])
              << "seed " << seed << " " << matrix_name(c.matrix) << "/" << range_name(c.range) << " " << w << "x"
              << h << " at " << x << "," << y;
    }
  }
  std::printf("rgba_luma_kernel equals the host on %zu planes\n",
              sizeof convs / sizeof convs[0] * sizeof sizes / sizeof sizes[0]);
}

TEST(GlImportGpu, RgbaBecomesTheHostLuma) {
  GL_GPU_OR_SKIP(g);
  const uint32_t sizes[][2] = {{1, 1}, {7, 3}, {321, 241}, {1920, 1080}, {3840, 2160}};
  const LumaConversion convs[] = {{RgbMatrix::bt601, RgbRange::full},
                                  {RgbMatrix::bt601, RgbRange::limited},
                                  {RgbMatrix::bt709, RgbRange::full},
                                  {RgbMatrix::bt709, RgbRange::limited}};
  uint32_t seed = 500;
  for (const LumaConversion& c : convs) {
    for (const auto& s : sizes) {
      std::mt19937 rng(++seed);
      const uint32_t w = s[0], h = s[1];
      HostTex t = random_tex(rng, TexelFormat::rgba8, w, h);
      std::vector<uint8_t> want(size_t(w) * h);
      ASSERT_OK(rgba_to_luma(t.bytes.data(), ptrdiff_t(t.pitch), w, h, c, want.data(), w));
      GlTexture gt;
      ASSERT_OK(upload(*g.importer, t, &gt));
      TextureFrame f;
      f.rgba = true;
      f.conversion = c;
      f.width = w;
      f.height = h;
      f.n_planes = 1;
      f.planes[0] = gt.reg.get();
      PictureView v;
      std::function<void()> release;
      ASSERT_OK(g.importer->import(f, &v, &release));
      EXPECT_EQ(v.chroma, Chroma::k400);
      EXPECT_EQ(v.bit_depth, 8);
      std::vector<uint8_t> got;
      ASSERT_OK(read_back(*g.importer, v, 0, w, h, &got));
      release();
      for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
          ASSERT_EQ(got[size_t(y) * w + x], want[size_t(y) * w + x])
              << "seed " << seed << " " << matrix_name(c.matrix) << "/" << range_name(c.range) << " " << w << "x" << h
              << " at " << x << "," << y << " RGBA " << int(t.bytes[y * t.pitch + x * 4]) << ","
              << int(t.bytes[y * t.pitch + x * 4 + 1]) << "," << int(t.bytes[y * t.pitch + x * 4 + 2]);
    }
  }
}

// ---- The public clips ------------------------------------------------------------------------------------------

// A clip frame (planar host picture) as the textures of `l`: I420 as it is, NV12 / P010 interleaved, P010 with the
// 10 bits high and noise in the low 6.
std::vector<HostTex> clip_textures(const PictureView& p, const Layout& l, std::mt19937& rng) {
  std::vector<HostTex> out;
  const uint32_t w = p.width, h = p.height;
  const uint32_t cw = chroma_width_stored(p.chroma, w), ch = chroma_height_stored(p.chroma, h);
  const unsigned bps = p.bytes_per_sample;
  auto sample = [&](unsigned plane, uint32_t x, uint32_t y) -> uint32_t {
    const uint8_t* row = p.planes[plane].data + ptrdiff_t(y) * p.planes[plane].stride;
    return bps == 1 ? row[x] : uint32_t(row[2 * x] | (row[2 * x + 1] << 8));
  };
  const bool wide = l.format.bit_depth > 8;
  auto put = [&](HostTex& t, size_t at, uint32_t v) {
    if (!wide) {
      t.bytes[at] = uint8_t(v);
    } else {
      const uint32_t word = l.format.format == PixelFormat::p010 ? (v << 6) | (rng() & 63) : v;
      t.bytes[at] = uint8_t(word);
      t.bytes[at + 1] = uint8_t(word >> 8);
    }
  };
  HostTex y;
  y.texel = l.luma;
  y.width = w;
  y.height = h;
  y.pitch = y.row_bytes();
  y.bytes.resize(y.pitch * h);
  const unsigned tb = texel_bytes(l.luma);
  for (uint32_t r = 0; r < h; r++)
    for (uint32_t x = 0; x < w; x++) put(y, r * y.pitch + size_t(x) * tb, sample(0, x, r));
  out.push_back(std::move(y));
  if (l.textures == 3) {
    for (unsigned c = 1; c <= 2; c++) {
      HostTex t;
      t.texel = l.chroma;
      t.width = cw;
      t.height = ch;
      t.pitch = t.row_bytes();
      t.bytes.resize(t.pitch * ch);
      for (uint32_t r = 0; r < ch; r++)
        for (uint32_t x = 0; x < cw; x++) put(t, r * t.pitch + size_t(x) * texel_bytes(l.chroma), sample(c, x, r));
      out.push_back(std::move(t));
    }
  } else if (l.textures == 2) {
    HostTex t;
    t.texel = l.chroma;
    t.width = cw;
    t.height = ch;
    t.pitch = t.row_bytes();
    t.bytes.resize(t.pitch * ch);
    const unsigned half = texel_bytes(l.chroma) / 2;
    for (uint32_t r = 0; r < ch; r++)
      for (uint32_t x = 0; x < cw; x++) {
        put(t, r * t.pitch + size_t(x) * 2 * half, sample(1, x, r));
        put(t, r * t.pitch + size_t(x) * 2 * half + half, sample(2, x, r));
      }
    out.push_back(std::move(t));
  }
  return out;
}

// The same frames scored from host memory (the clip) and from imported device frames: every score of every frame
// equal. The host side is the CPU reference, already checked against libvmaf's JSON by the oracle suite.
TEST(GlImportGpu, ClipScoresFromTexturesEqualTheHostPath) {
  GL_GPU_OR_SKIP(g);
  unsigned pairs = 0;
  for (const ::vmafx::test::Pair& pair : ::vmafx::test::oracle_pairs_420(nullptr)) {
    FormatInfo planar;
    ASSERT_OK(parse_pixel_format("420", pair.bpc, &planar));
    ::vmafx::test::YuvClip ref, dist;
    ASSERT_OK(ref.open(pair.ref_path(), pair.width, pair.height, planar));
    ASSERT_OK(dist.open(pair.dist_path(), pair.width, pair.height, planar));
    const Layout& l = pair.bpc == 8 ? kLayouts[4] : kLayouts[6];  // NV12 / P010: two textures, interleaved chroma
    ScorerConfig cfg = ::vmafx::test::scorer_config("vmaf_v0.6.1", {"psnr"});
    cfg.backend = Backend::hip;
    cfg.vendor = public_vendor(g.device->info().vendor);
    cfg.device_id = g.device->info().index;
    VideoGeometry geo{pair.width, pair.height, uint8_t(pair.bpc), Chroma::k420};
    ::vmafx::test::FrameLog host_log, gl_log;
    std::unique_ptr<Scorer> from_host, from_gl;
    ASSERT_OK(::vmafx::test::make_scorer(cfg, geo, &host_log, &from_host));
    ASSERT_OK(::vmafx::test::make_scorer(cfg, geo, &gl_log, &from_gl));
    std::mt19937 rng(99);
    const size_t n = std::min(ref.frames(), dist.frames());
    for (size_t i = 0; i < n; i++) {
      ASSERT_OK(from_host->submit(::vmafx::test::frame_pair(ref.frame(i), dist.frame(i), int64_t(i), 0)));
      std::vector<HostTex> rt = clip_textures(ref.frame(i), l, rng), dt = clip_textures(dist.frame(i), l, rng);
      auto textures = std::make_shared<std::vector<std::unique_ptr<GlTexture>>>();
      TextureFrame rf, df;
      for (TextureFrame* f : {&rf, &df}) {
        f->format = l.format;
        f->width = pair.width;
        f->height = pair.height;
        f->n_planes = l.textures;
      }
      for (unsigned k = 0; k < l.textures; k++) {
        for (int side = 0; side < 2; side++) {
          textures->push_back(std::make_unique<GlTexture>());
          ASSERT_OK(upload(*g.importer, side ? dt[k] : rt[k], textures->back().get()));
          (side ? df : rf).planes[k] = textures->back()->reg.get();
        }
      }
      PictureView rv, dv;
      std::function<void()> rrel, drel;
      ASSERT_OK(g.importer->import(rf, &rv, &rrel));
      ASSERT_OK(g.importer->import(df, &dv, &drel));
      textures.reset();  // the copies are queued; GL may reuse the textures now
      Status st = from_gl->submit(::vmafx::test::frame_pair(rv, dv, int64_t(i), 0, [rrel, drel] {
        rrel();
        drel();
      }));
      if (st.code() == Errc::unsupported && i == 0)
        GTEST_SKIP() << "the scorer takes no device pictures yet: " << st.message();
      ASSERT_OK(st);
    }
    ASSERT_OK(from_host->flush());
    ASSERT_OK(from_gl->flush());
    const auto& names = from_host->score_names();
    ASSERT_EQ(names, from_gl->score_names());
    size_t frames = 0, values = 0;
    const std::vector<FrameScore> host_frames = host_log.frames(), gl_frames = gl_log.frames();
    ASSERT_EQ(host_frames.size(), gl_frames.size()) << "frames missing from the GL path";
    for (size_t f = 0; f < host_frames.size(); f++) {
      const FrameScore& a = host_frames[f];
      const FrameScore& b = gl_frames[f];
      ASSERT_EQ(a.index, b.index);
      for (size_t k = 0; k < names.size(); k++) {
        if (std::isnan(a.values[k]) && std::isnan(b.values[k])) continue;
        ASSERT_EQ(a.values[k], b.values[k])
            << pair.prefix << "_" << pair.distorted << " frame " << a.index << " " << names[k] << " via " << l.name;
        values++;
      }
      frames++;
    }
    std::printf("%s_%s via %s: %zu frames, %zu scores equal the host path (%s)\n", pair.prefix.c_str(),
                pair.distorted.c_str(), l.name, frames, values, from_gl->backend_description().c_str());
    EXPECT_EQ(frames, n);
    pairs++;
  }
  if (pairs == 0) GTEST_SKIP() << "no public clip present (VMAFX_SHARED_DIR)";
}

TEST(GlImportGpu, RegistrationsAreCachedAndUndoneAndThePoolStopsGrowing) {
  GL_GPU_OR_SKIP(g);
  const InteropCounters before = interop_counters();
  const ImporterStats s0 = g.importer->stats();
  std::mt19937 rng(3);
  // Four "pool buffers" of an NV12 1080p producer, each registered once, imported 200 times in turn.
  std::vector<std::vector<std::unique_ptr<GlTexture>>> pool(4);
  std::vector<TextureFrame> frames(4);
  for (size_t b = 0; b < pool.size(); b++) {
    for (auto [t, w, h] : {std::tuple{TexelFormat::r8, 1920u, 1080u}, std::tuple{TexelFormat::rg8, 960u, 540u}}) {
      pool[b].push_back(std::make_unique<GlTexture>());
      ASSERT_OK(upload(*g.importer, random_tex(rng, t, w, h), pool[b].back().get()));
    }
    frames[b].format = kLayouts[4].format;
    frames[b].width = 1920;
    frames[b].height = 1080;
    frames[b].n_planes = 2;
    frames[b].planes[0] = pool[b][0]->reg.get();
    frames[b].planes[1] = pool[b][1]->reg.get();
  }
  std::vector<std::function<void()>> held;  // a scorer holding up to 6 frames
  const auto t0 = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < 200; i++) {
    PictureView v;
    std::function<void()> release;
    ASSERT_OK(g.importer->import(frames[i % 4], &v, &release));
    held.push_back(release);
    if (held.size() > 6) {
      held.front()();
      held.erase(held.begin());
    }
  }
  ASSERT_OK(g.importer->synchronize());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (auto& r : held) r();
  const ImporterStats s1 = g.importer->stats();
  const InteropCounters mid = interop_counters();
  std::printf(
      "200 NV12 1080p imports in %.1f ms (%.3f ms/frame incl. host waits at the end): registrations %llu "
      "(cache hits %u of %u lookups), device frames %llu, interop calls %llu\n",
      ms, ms / 200, (unsigned long long)(s1.registrations - s0.registrations), 200 * 2 - 8, 200 * 2,
      (unsigned long long)(s1.device_frames - s0.device_frames),
      (unsigned long long)(mid.interop_calls - before.interop_calls));
  EXPECT_EQ(s1.registrations - s0.registrations, 8u) << "each texture is registered once";
  EXPECT_EQ(s1.frames - s0.frames, 200u);
  EXPECT_LE(s1.device_frames - s0.device_frames, 7u) << "frames are reused once released";
  EXPECT_EQ(mid.live_registrations - before.live_registrations, 8u);
  pool.clear();
  EXPECT_EQ(interop_counters().live_registrations, before.live_registrations) << "every registration undone";
}

// ---- Fences ----------------------------------------------------------------------------------------------------

// A fragment shader that loops `iterations` times before writing `color`: GPU work that takes long enough for a
// reader that does not wait to overtake it.
const char* kVertex = R"(#version 130
void main() {
  vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID & 2) * 2 - 1));
  gl_Position = vec4(p, 0.0, 1.0);
})";
const char* kFragment = R"(#version 130
uniform int iterations;
uniform vec4 color;
out vec4 frag;
void main() {
  float a = gl_FragCoord.x * 1e-7;
  for (int i = 0; i < iterations; i++) a = fract(a * 1.000001 + 1e-7);
  frag = color + vec4(a * 1e-9);
})";

GLuint compile(GLenum type, const char* src, std::string* log) {
  GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char buf[2048] = {0};
    glGetShaderInfoLog(s, sizeof buf - 1, nullptr, buf);
    *log += buf;
  }
  return s;
}

// The heavy draw into `texture` on the current context: program, vertex array and framebuffer of this context.
struct Painter {
  GLuint prog = 0, vao = 0, fbo = 0;
  std::string error;
  bool init(GLuint texture) {
    std::string log;
    GLuint vs = compile(GL_VERTEX_SHADER, kVertex, &log), fs = compile(GL_FRAGMENT_SHADER, kFragment, &log);
    prog = glCreateProgram();
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    glLinkProgram(prog);
    glDeleteShader(vs);
    glDeleteShader(fs);
    glGenVertexArrays(1, &vao);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
    const GLenum fb = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (!log.empty() || fb != GL_FRAMEBUFFER_COMPLETE)
      error = "GL set-up failed: " + log + " fbo " + std::to_string(fb);
    return error.empty();
  }
  void draw(float value, int iterations, uint32_t w, uint32_t h) {
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glViewport(0, 0, GLsizei(w), GLsizei(h));
    glUseProgram(prog);
    glUniform1i(glGetUniformLocation(prog, "iterations"), iterations);
    glUniform4f(glGetUniformLocation(prog, "color"), value, value, value, 1.0f);
    glBindVertexArray(vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glUseProgram(0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
  }
  ~Painter() {
    if (fbo) glDeleteFramebuffers(1, &fbo);
    if (vao) glDeleteVertexArrays(1, &vao);
    if (prog) glDeleteProgram(prog);
  }
};

// The producer side of "GL waits for our read": right after import() returns, the producer overwrites the texture
// with a long draw in the same context; the device frame must still be the content the import read.
TEST(GlImportGpu, AProducerOverwritingRightAfterImportDoesNotOvertakeTheRead) {
  GL_GPU_OR_SKIP(g);
  constexpr uint32_t kW = 3840, kH = 2160;
  GlTexture target;
  {
    HostTex t;
    t.texel = TexelFormat::rgba8;
    t.width = kW;
    t.height = kH;
    t.pitch = size_t(kW) * 4;
    t.bytes.assign(t.pitch * kH, 0);
    ASSERT_OK(upload(*g.importer, t, &target));
  }
  Painter painter;
  ASSERT_TRUE(painter.init(target.id)) << painter.error;
  unsigned right = 0;
  for (int a = 0; a < 6; a++) {
    const float before = (a % 2) ? 1.0f : 0.0f, after = 1.0f - before;
    painter.draw(before, 1, kW, kH);  // quick: the content the import must see
    TextureFrame f;
    f.rgba = true;
    f.width = kW;
    f.height = kH;
    f.n_planes = 1;
    f.planes[0] = target.reg.get();
    PictureView v;
    std::function<void()> release;
    ASSERT_OK(g.importer->import(f, &v, &release));
    painter.draw(after, 20000, kW, kH);  // long, issued right after import() returned
    glFlush();
    std::vector<uint8_t> got;
    ASSERT_OK(read_back(*g.importer, v, 0, kW, kH, &got));
    release();
    const uint8_t want = before > 0.5f ? 235 : 16;
    size_t wrong = 0;
    for (uint8_t y : got) wrong += y != want;
    std::printf("round %d: imported frame holds %u where %zu of %zu pixels differ (the producer then drew %u)\n", a,
                want, wrong, got.size(), after > 0.5f ? 235u : 16u);
    EXPECT_EQ(wrong, 0u) << "the producer's later draw overtook the import's copy";
    right += wrong == 0;
  }
  glFinish();
  std::printf("%u of 6 rounds read the texture before the producer's next draw\n", right);
}

TEST(GlImportGpu, AProducersFenceIsWaitedForAndAMissingWaitIsSeenOrOrderedByTheRuntime) {
  GL_GPU_OR_SKIP(g);
  // A producer thread with a second context sharing this one's textures (GLX or EGL, as the test's context).
  constexpr uint32_t kW = 3840, kH = 2160;
  std::vector<uint8_t> old_content(size_t(kW) * kH * 4, 0x11);
  GlTexture target;
  {
    HostTex t;
    t.texel = TexelFormat::rgba8;
    t.width = kW;
    t.height = kH;
    t.pitch = size_t(kW) * 4;
    t.bytes = old_content;
    ASSERT_OK(upload(*g.importer, t, &target));
  }
  glFinish();

  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    int request = 0, done = 0;  // round numbers
    bool stop = false;
    GLsync fence = nullptr;
    float value = 0;
    std::string error;
    double gpu_ms = 0;
  } sh;
  const int iterations = 20000;
  std::thread producer([&] {
    TestGlContext::Shared ctx;
    if (Status cs = g.gl.make_shared_current(&ctx); !cs.is_ok()) {
      g.gl.release_shared(&ctx);
      std::lock_guard<std::mutex> lk(sh.mu);
      sh.error = "producer context: " + cs.to_string();
      sh.done = -1;
      sh.cv.notify_all();
      return;
    }
    std::string log;
    GLuint vs = compile(GL_VERTEX_SHADER, kVertex, &log), fs = compile(GL_FRAGMENT_SHADER, kFragment, &log);
    GLuint prog = glCreateProgram();
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    glLinkProgram(prog);
    GLuint vao = 0, fbo = 0;
    glGenVertexArrays(1, &vao);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target.id, 0);
    if (!log.empty() || glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      std::lock_guard<std::mutex> lk(sh.mu);
      sh.error = "producer GL set-up failed: " + log;
      sh.done = -1;
      sh.cv.notify_all();
      return;
    }
    for (int round = 1;; round++) {
      float value;
      {
        std::unique_lock<std::mutex> lk(sh.mu);
        sh.cv.wait(lk, [&] { return sh.stop || sh.request >= round; });
        if (sh.stop) break;
        value = sh.value;
      }
      glViewport(0, 0, kW, kH);
      glUseProgram(prog);
      glUniform1i(glGetUniformLocation(prog, "iterations"), iterations);
      glUniform4f(glGetUniformLocation(prog, "color"), value, value, value, 1.0f);
      glBindVertexArray(vao);
      glDrawArrays(GL_TRIANGLES, 0, 3);
      GLsync fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
      glFlush();  // as GstGLSyncMeta does for a shared context: the fence is visible to the reader's context
      std::lock_guard<std::mutex> lk(sh.mu);
      sh.fence = fence;
      sh.done = round;
      sh.cv.notify_all();
    }
    glDeleteFramebuffers(1, &fbo);
    glDeleteVertexArrays(1, &vao);
    glDeleteProgram(prog);
    glFinish();
    g.gl.release_shared(&ctx);
  });

  // One round: the producer draws `value`; the reader waits on its fence (or not) and imports the texture.
  // `pending` (may be null): whether the producer's draw was still running when import() was called (its fence
  // unsignaled right before), and how long import() took on the host.
  enum class Wait { server, client, none };
  struct Pending {
    bool unsignaled_before = false, unsignaled_after = false;
    double import_ms = 0;
  };
  auto round = [&](int r, float value, Wait wait, uint8_t* first_byte, Pending* pending) -> Status {
    GLsync fence;
    {
      std::unique_lock<std::mutex> lk(sh.mu);
      sh.value = value;
      sh.request = r;
      sh.cv.notify_all();
      sh.cv.wait(lk, [&] { return sh.done == r || sh.done < 0; });
      if (sh.done < 0) return {Errc::internal, sh.error};
      fence = sh.fence;
    }
    if (wait == Wait::server) glWaitSync(fence, 0, GL_TIMEOUT_IGNORED);  // in this context, before the map
    if (wait == Wait::client) glClientWaitSync(fence, GL_SYNC_FLUSH_COMMANDS_BIT, GLuint64(10) * 1000 * 1000 * 1000);
    TextureFrame f;
    f.rgba = true;
    f.width = kW;
    f.height = kH;
    f.n_planes = 1;
    f.planes[0] = target.reg.get();
    PictureView v;
    std::function<void()> release;
    auto unsignaled = [&] {
      GLint status = GL_SIGNALED;
      glGetSynciv(fence, GL_SYNC_STATUS, 1, nullptr, &status);
      return status == GL_UNSIGNALED;
    };
    if (pending) pending->unsignaled_before = unsignaled();
    const auto t0 = std::chrono::steady_clock::now();
    VMAFX_TRY(g.importer->import(f, &v, &release));
    if (pending) {
      pending->import_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      pending->unsignaled_after = unsignaled();
    }
    std::vector<uint8_t> got;
    VMAFX_TRY(read_back(*g.importer, v, 0, kW, kH, &got));
    release();
    *first_byte = got[size_t(kH / 2) * kW + kW / 2];  // the centre: drawn last by no particular order, any pixel
    glDeleteSync(fence);
    return Status::ok();
  };
  int r = 0;
  // Planted rounds: stale (the missing wait is visible), fresh although the draw was still running when import() was
  // called (the runtime ordered the copy after the producer's GL work by itself), or fresh with the draw already
  // finished (proves nothing either way).
  unsigned waited_right = 0, waited_rounds = 0, planted_stale = 0, planted_ordered = 0, planted_inconclusive = 0;
  unsigned ordered_on_host = 0;  // of the ordered: import() returned only after the draw had finished
  const int kAttempts = 5;
  for (int a = 0; a < kAttempts; a++) {
    // With the wait (server side in this context, as the element does, and on the host): the producer's new value.
    for (Wait w : {Wait::server, Wait::client}) {
      const float v1 = ((a + int(w)) % 2) ? 1.0f : 0.0f;
      uint8_t got = 0;
      const auto t0 = std::chrono::steady_clock::now();
      ASSERT_OK(round(++r, v1, w, &got, nullptr));
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      const uint8_t want = v1 > 0.5f ? 235 : 16;
      std::printf("attempt %d, %s wait: centre luma %u (producer drew %u), round %.1f ms\n", a,
                  w == Wait::server ? "server-side" : "client-side", got, want, ms);
      EXPECT_EQ(got, want) << "with the fence waited for, the import must see the producer's frame";
      waited_right += got == want;
      waited_rounds++;
      // Planted defect: the same, without the wait; the frame before holds the other value.
      const float v2 = 1.0f - v1;
      Pending pend;
      const auto t0p = std::chrono::steady_clock::now();
      ASSERT_OK(round(++r, v2, Wait::none, &got, &pend));
      const double msp = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0p).count();
      const uint8_t want2 = v2 > 0.5f ? 235 : 16;
      const bool stale = got != want2;
      const bool ordered = !stale && pend.unsignaled_before;
      std::printf(
          "attempt %d, wait skipped (planted): centre luma %u (new %u, previous %u); producer's fence %s before "
          "import(), %s after it; import() %.1f ms on the host, round %.1f ms: %s\n",
          a, got, want2, want, pend.unsignaled_before ? "unsignaled" : "signaled",
          pend.unsignaled_after ? "unsignaled" : "signaled", pend.import_ms, msp,
          stale ? "STALE (the missing wait is visible)"
                : ordered ? (pend.unsignaled_after ? "fresh: the copy was ordered after the draw on the device"
                                                   : "fresh: import() waited on the host for the draw")
                          : "fresh, but the draw had finished before import() (inconclusive)");
      planted_stale += stale;
      planted_ordered += ordered;
      ordered_on_host += ordered && !pend.unsignaled_after;
      planted_inconclusive += !stale && !ordered;
    }
  }
  {
    std::lock_guard<std::mutex> lk(sh.mu);
    sh.stop = true;
    sh.cv.notify_all();
  }
  producer.join();
  std::printf(
      "fence: %u of %u waited rounds right; planted missing wait: stale in %u, fresh with the producer's draw still "
      "running at import() in %u (%u of them: import() returned after the draw finished), inconclusive in %u of %u\n",
      waited_right, waited_rounds, planted_stale, planted_ordered, ordered_on_host, planted_inconclusive,
      waited_rounds);
  if (planted_stale > 0) {
    std::printf("this runtime reads a texture before another context's unfinished draw: the fence wait is needed\n");
  } else if (planted_ordered > 0) {
    std::printf("this runtime orders the interop's copy after another context's flushed GL work by itself; the "
                "element still waits on the producer's fence (other runtimes, unflushed producers)\n");
  }
  // The planted rounds must show something: either the stale frame of a missing wait, or the runtime's own ordering
  // (the draw provably running when import() was called). All inconclusive means the draw was too short to tell.
  EXPECT_GT(planted_stale + planted_ordered, 0u)
      << "every planted round was inconclusive: the producer's " << iterations
      << "-iteration draw had finished before import() was called";
}

}  // namespace
}  // namespace vmafx::gl
