// SPDX-License-Identifier: LGPL-2.1-or-later
// The GL context check on real GL (CI: Mesa llvmpipe through GLX on Xvfb and through EGL's device platform): what
// the context is, that a software renderer is refused with a message naming the renderer and the device, that no
// call reaches the runtime's interop before the check passes, and the check's rules on described contexts.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <thread>

#include "gl/test_hooks.h"
#include "gl_test_context.h"
#include "vmafx/gl.h"

namespace {

using vmafx::Errc;
using vmafx::Status;
using vmafx::Vendor;
using vmafx::gl::ContextInfo;
using vmafx::gl::DeviceIdentity;
using vmafx::gl::Platform;
using vmafx::gl::test::TestGlContext;

DeviceIdentity h200() {
  DeviceIdentity d;
  d.vendor = Vendor::nvidia;
  d.index = 0;
  d.name = "NVIDIA H200";
  d.pci_bus_id = "0000:00:06.0";
  return d;
}

DeviceIdentity mi210() {
  DeviceIdentity d;
  d.vendor = Vendor::amd;
  d.index = 1;
  d.name = "AMD Instinct MI210";
  d.pci_bus_id = "0000:83:00.0";
  d.vendor_devices = 1;
  return d;
}

ContextInfo described(Platform p, const char* vendor, const char* renderer, int cuda = -1) {
  ContextInfo c;
  c.platform = p;
  c.vendor = vendor;
  c.renderer = renderer;
  c.version = "4.6";
  c.software = vmafx::gl::is_software_renderer(renderer);
  c.egl_cuda_device = cuda;
  return c;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// What a real context of this machine says about itself, and how the check treats it (a software renderer here).
void check_real_context(const TestGlContext& ctx, Platform expected) {
  ContextInfo info;
  Status st = vmafx::gl::query_current_context(&info);
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  std::printf("%s: %s\n", ctx.description().c_str(), info.describe().c_str());
  std::printf("identity: pci '%s', device uuid '%s' (%s)\n", info.pci_bus_id.c_str(), info.device_uuid.c_str(),
              info.identity.empty() ? "nothing names the GPU" : info.identity.c_str());
  EXPECT_EQ(info.platform, expected);
  EXPECT_FALSE(info.renderer.empty());
  EXPECT_FALSE(info.version.empty());
  if (!info.software) {
    std::printf("renderer '%s' is a hardware renderer: the software-renderer refusal is not shown here\n",
                info.renderer.c_str());
    return;
  }
  // The refusal names the renderer and the device it was meant for.
  const DeviceIdentity dev = h200();
  st = vmafx::gl::check_context(info, &dev, "");
  EXPECT_EQ(st.code(), Errc::device_unavailable);
  EXPECT_TRUE(contains(st.message(), info.renderer)) << st.message();
  EXPECT_TRUE(contains(st.message(), "NVIDIA H200")) << st.message();
  EXPECT_TRUE(contains(st.message(), "software renderer")) << st.message();
  std::printf("refusal: %s\n", st.to_string().c_str());

  // The importer runs the same check first: refused, and the runtime's interop was never called.
  const uint64_t calls = vmafx::gl::interop_counters().interop_calls;
  std::unique_ptr<vmafx::gl::Importer> importer;
  ContextInfo seen;
  st = vmafx::gl::Importer::create(Vendor::auto_select, -1, &importer, &seen);
  EXPECT_FALSE(st.is_ok());
  EXPECT_FALSE(importer);
  EXPECT_EQ(st.code(), Errc::device_unavailable) << st.to_string();
  EXPECT_TRUE(contains(st.message(), info.renderer)) << st.message();
  EXPECT_EQ(seen.renderer, info.renderer);
  EXPECT_EQ(vmafx::gl::interop_counters().interop_calls, calls) << "an interop call preceded the refusal";
  std::printf("importer: %s\n", st.to_string().c_str());
}

TEST(GlContext, GlxContextIsIdentifiedAndASoftwareRendererRefused) {
  TestGlContext ctx;
  Status st = TestGlContext::create_glx(&ctx);
  if (st.code() == Errc::device_unavailable) GTEST_SKIP() << "no GLX context: " << st.message();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  check_real_context(ctx, Platform::glx);
}

TEST(GlContext, EglDeviceContextIsIdentifiedAndASoftwareRendererRefused) {
  for (const std::string& d : vmafx::gl::test::list_egl_devices()) std::printf("EGL device %s\n", d.c_str());
  TestGlContext ctx;
  Status st = TestGlContext::create_egl_device(-1, &ctx);
  if (st.code() == Errc::device_unavailable) GTEST_SKIP() << "no EGL device context: " << st.message();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  check_real_context(ctx, Platform::egl);
  ContextInfo info;
  ASSERT_TRUE(vmafx::gl::query_current_context(&info).is_ok());
  EXPECT_FALSE(info.egl_device.empty()) << "the EGL display's device is named in messages";
}

TEST(GlContext, NoCurrentContextIsRefusedWithoutAnInteropCall) {
  // A fresh thread has no current context, whatever other threads hold.
  std::thread([] {
    const uint64_t calls = vmafx::gl::interop_counters().interop_calls;
    ContextInfo info;
    Status st = vmafx::gl::query_current_context(&info);
    EXPECT_EQ(st.code(), Errc::unsupported) << st.to_string();
    EXPECT_EQ(info.platform, Platform::none);
    std::unique_ptr<vmafx::gl::Importer> importer;
    st = vmafx::gl::Importer::create(Vendor::auto_select, -1, &importer, nullptr);
    EXPECT_EQ(st.code(), Errc::unsupported) << st.to_string();
    EXPECT_TRUE(contains(st.message(), "no GLX or EGL context")) << st.message();
    EXPECT_EQ(vmafx::gl::interop_counters().interop_calls, calls);
  }).join();
}

TEST(GlContext, SoftwareRenderersAreRecognised) {
  for (const char* r : {"llvmpipe (LLVM 15.0.6, 256 bits)", "softpipe", "Software Rasterizer", "swrast",
                        "SWR (LLVM 12, 256 bits)", "Microsoft Basic Render Driver"})
    EXPECT_TRUE(vmafx::gl::is_software_renderer(r)) << r;
  for (const char* r : {"NVIDIA H200/PCIe/SSE2", "AMD Radeon Graphics (radeonsi, gfx1036, LLVM 15.0.7)",
                        "AMD Instinct MI210", "Mesa Intel(R) UHD Graphics 630 (CFL GT2)"})
    EXPECT_FALSE(vmafx::gl::is_software_renderer(r)) << r;
}

TEST(GlContext, CheckRulesOnDescribedContexts) {
  const DeviceIdentity nv = h200(), amd = mi210();
  // Accepted: NVIDIA on GLX and on EGL (its own EGL device or an unknown one); AMD on GLX.
  EXPECT_TRUE(vmafx::gl::check_context(described(Platform::glx, "NVIDIA Corporation", "NVIDIA H200/PCIe/SSE2"), &nv,
                                       "")
                  .is_ok());
  EXPECT_TRUE(vmafx::gl::check_context(described(Platform::egl, "NVIDIA Corporation", "NVIDIA H200/PCIe/SSE2", 0),
                                       &nv, "")
                  .is_ok());
  EXPECT_TRUE(
      vmafx::gl::check_context(described(Platform::egl, "NVIDIA Corporation", "NVIDIA H200/PCIe/SSE2"), &nv, "")
          .is_ok());
  EXPECT_TRUE(vmafx::gl::check_context(described(Platform::glx, "AMD", "AMD Instinct MI210 (radeonsi, gfx90a)"),
                                       &amd, "")
                  .is_ok());
  // An AMD renderer that does not name the device: accepted only where its PCI address is known to be the device's.
  ContextInfo w6800 = described(Platform::glx, "X.Org", "AMD Radeon Pro W6800 (radeonsi, navi21)");
  w6800.pci_bus_id = "0000:83:00.0";
  w6800.identity = "GL_EXT_memory_object device UUID (Mesa: PCI 0000:83:00.0)";
  EXPECT_TRUE(vmafx::gl::check_context(w6800, &amd, "").is_ok());

  struct Refusal {
    ContextInfo ctx;
    const DeviceIdentity* dev;
    Errc code;
    const char* says;
  } refusals[] = {
      {described(Platform::none, "", ""), &nv, Errc::unsupported, "no GLX or EGL context"},
      {described(Platform::glx, "Mesa", "llvmpipe (LLVM 15.0.6, 256 bits)"), &nv, Errc::device_unavailable,
       "software renderer"},
      {described(Platform::glx, "Mesa", "llvmpipe (LLVM 15.0.6, 256 bits)"), nullptr, Errc::device_unavailable,
       "no GPU (no runtime here)"},
      {described(Platform::glx, "NVIDIA Corporation", "NVIDIA H200/PCIe/SSE2"), nullptr, Errc::device_unavailable,
       "no runtime here"},
      // Another vendor's context: never handed to the runtime (hipGLGetDevices crashes under NVIDIA's GLX on ROCm 7).
      {described(Platform::glx, "NVIDIA Corporation", "NVIDIA RTX A4000/PCIe/SSE2"), &amd, Errc::device_unavailable,
       "AMD Instinct MI210"},
      {described(Platform::glx, "AMD", "AMD Radeon RX 7900 XTX (radeonsi, navi31)"), &nv, Errc::device_unavailable,
       "NVIDIA H200"},
      {described(Platform::glx, "Intel", "Mesa Intel(R) UHD Graphics 630 (CFL GT2)"), &nv, Errc::device_unavailable,
       "Mesa Intel(R) UHD Graphics 630"},
      // ROCm's interop takes GLX only.
      {described(Platform::egl, "AMD", "AMD Instinct MI210 (radeonsi, gfx90a)"), &amd, Errc::unsupported,
       "GLX contexts only"},
      // An EGL context on another NVIDIA GPU.
      {described(Platform::egl, "NVIDIA Corporation", "NVIDIA H200/PCIe/SSE2", 3), &nv, Errc::device_unavailable,
       "CUDA device 3"},
      // AMD where nothing names the context's GPU and the renderer does not name the device: refused before ROCm.
      {described(Platform::glx, "X.Org", "AMD Radeon Pro W6800 (radeonsi, navi21)"), &amd, Errc::device_unavailable,
       "nothing names the GPU"},
  };
  for (const Refusal& r : refusals) {
    Status st = vmafx::gl::check_context(r.ctx, r.dev, "no runtime here");
    EXPECT_EQ(st.code(), r.code) << st.to_string();
    EXPECT_TRUE(contains(st.message(), r.says)) << "'" << r.says << "' not in: " << st.message();
    if (!r.ctx.renderer.empty()) {
      EXPECT_TRUE(contains(st.message(), r.ctx.renderer)) << st.message();
    }
    if (r.dev) {
      EXPECT_TRUE(contains(st.message(), r.dev->name)) << st.message();
    }
  }
}

// The same-GPU step: PCI bus ids, device UUIDs, the EGL CUDA ordinal, the renderer rule, then the device list.
TEST(GlContext, SameGpuByPciBusIdUuidOrRule) {
  using vmafx::gl::SameGpu;
  const DeviceIdentity amd = mi210();
  DeviceIdentity nv = h200();
  nv.uuid = "5f1c0b6e9a8d4c2b8e7f6a5d4c3b2a19";
  nv.vendor_devices = 1;

  // PCI bus ids, in CUDA's, HIP's and sysfs's spellings.
  EXPECT_EQ(vmafx::gl::normalize_pci_bus_id("0000:83:00.0"), "0000:83:00.0");
  EXPECT_EQ(vmafx::gl::normalize_pci_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(vmafx::gl::normalize_pci_bus_id("3b:00.0"), "0000:3b:00.0");
  EXPECT_EQ(vmafx::gl::normalize_pci_bus_id("renderD128"), "");
  const unsigned char mesa_uuid[16] = {0, 0, 0, 0, 0x83, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(vmafx::gl::pci_from_mesa_amd_uuid(mesa_uuid), "0000:83:00.0");
  const unsigned char nvidia_uuid[16] = {0x5f, 0x1c, 0x0b, 0x6e, 0x9a, 0x8d, 0x4c, 0x2b,
                                         0x8e, 0x7f, 0x6a, 0x5d, 0x4c, 0x3b, 0x2a, 0x19};
  EXPECT_EQ(vmafx::gl::pci_from_mesa_amd_uuid(nvidia_uuid), "") << "a UUID that is not Mesa's PCI encoding";

  SameGpu same;
  ContextInfo amd_ctx = described(Platform::glx, "AMD", "AMD Radeon Pro W6800 (radeonsi, navi21)");
  amd_ctx.pci_bus_id = "0000:83:00.0";
  amd_ctx.identity = "GL_EXT_memory_object device UUID (Mesa: PCI 0000:83:00.0)";
  ASSERT_TRUE(vmafx::gl::check_context(amd_ctx, &amd, "", &same).is_ok());
  EXPECT_EQ(same.basis, SameGpu::Basis::identity);
  EXPECT_TRUE(contains(same.text, "0000:83:00.0")) << same.text;
  amd_ctx.pci_bus_id = "0000:03:00.0";  // a second AMD GPU's GLX context
  Status st = vmafx::gl::check_context(amd_ctx, &amd, "", &same);
  EXPECT_EQ(st.code(), Errc::device_unavailable);
  EXPECT_TRUE(contains(st.message(), "PCI 0000:03:00.0") && contains(st.message(), "0000:83:00.0")) << st.message();

  // NVIDIA GLX: the device UUID of GL_EXT_memory_object against cuDeviceGetUuid.
  ContextInfo nv_ctx = described(Platform::glx, "NVIDIA Corporation", "NVIDIA H200/PCIe/SSE2");
  nv_ctx.device_uuid = nv.uuid;
  ASSERT_TRUE(vmafx::gl::check_context(nv_ctx, &nv, "", &same).is_ok());
  EXPECT_EQ(same.basis, SameGpu::Basis::identity);
  nv_ctx.device_uuid = "00112233445566778899aabbccddeeff";
  st = vmafx::gl::check_context(nv_ctx, &nv, "", &same);
  EXPECT_EQ(st.code(), Errc::device_unavailable);
  EXPECT_TRUE(contains(st.message(), nv_ctx.device_uuid) && contains(st.message(), nv.uuid)) << st.message();

  // Nothing names the GPU: the renderer names the device and it is the runtime's only one (the rule) ...
  nv_ctx.device_uuid.clear();
  ASSERT_TRUE(vmafx::gl::check_context(nv_ctx, &nv, "", &same).is_ok());
  EXPECT_EQ(same.basis, SameGpu::Basis::rule);
  EXPECT_TRUE(contains(same.text, "by rule")) << same.text;
  // ... else NVIDIA leaves it to the runtime's device list, and AMD is refused.
  nv.vendor_devices = 2;
  ASSERT_TRUE(vmafx::gl::check_context(nv_ctx, &nv, "", &same).is_ok());
  EXPECT_EQ(same.basis, SameGpu::Basis::device_list);
  DeviceIdentity two_amd = amd;
  two_amd.vendor_devices = 2;
  st = vmafx::gl::check_context(described(Platform::glx, "AMD", "AMD Instinct MI210 (radeonsi, gfx90a)"), &two_amd, "");
  EXPECT_EQ(st.code(), Errc::device_unavailable);
  EXPECT_TRUE(contains(st.message(), "2 devices")) << st.message();

  // The runtime's list against the decision (Importer::create after cuGLGetDevices succeeded).
  const std::string sym = "cuGLGetDevices_v2", what = "GLX context";
  std::string text;
  const int ours[] = {0}, others[] = {1, 2};
  SameGpu by_list{SameGpu::Basis::device_list, "nothing names it"};
  SameGpu by_id{SameGpu::Basis::identity, "device UUID is the device's"};
  SameGpu by_rule{SameGpu::Basis::rule, "by rule: ..."};
  EXPECT_TRUE(vmafx::gl::judge_device_list(by_list, nv, ours, 1, sym, what, &text).is_ok());
  EXPECT_TRUE(contains(text, "lists it [0]")) << text;
  st = vmafx::gl::judge_device_list(by_id, nv, others, 2, sym, what, &text);
  EXPECT_EQ(st.code(), Errc::device_unavailable);
  EXPECT_TRUE(contains(st.message(), "[1, 2]")) << st.message();
  // An empty list (measured on the H200 under GLX with a pbuffer) decides nothing by itself.
  EXPECT_TRUE(vmafx::gl::judge_device_list(by_id, nv, nullptr, 0, sym, what, &text).is_ok());
  EXPECT_TRUE(contains(text, "listed no device") && contains(text, "identity decided")) << text;
  EXPECT_TRUE(vmafx::gl::judge_device_list(by_rule, nv, nullptr, 0, sym, what, &text).is_ok());
  EXPECT_TRUE(contains(text, "rule decided")) << text;
  st = vmafx::gl::judge_device_list(by_list, nv, nullptr, 0, sym, what, &text);
  EXPECT_EQ(st.code(), Errc::device_unavailable);
  EXPECT_TRUE(contains(st.message(), "lists no device")) << st.message();
}

}  // namespace
