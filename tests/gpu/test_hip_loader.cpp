// SPDX-License-Identifier: LGPL-2.1-or-later
// The loader without a GPU: every vendor answers with a clean Status that names each library tried and why it was
// not used; checked calls name the runtime symbol, its error, file and line; the embedded kernel sources compile
// with hiprtc / nvrtc where those are installed. Needs no device: runs on CI.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hip/api.h"
#include "hip/device.h"
#include "hip/embedded.h"
#include "hip/kernels/motion_impl.h"
#include "hip/kernels/psnr_impl.h"
#include "hip/kernels/vif_impl.h"
#include "hip/module.h"
#include "hip/plane.h"

namespace vmafx::hip {
namespace {

// What dlopen says about a library on this machine: "" when it opens.
std::string dlopen_error(const std::string& lib) {
  dlerror();
  void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h) return "";  // left open: a GPU runtime must not be unloaded
  const char* e = dlerror();
  return e ? e : "dlopen failed";
}

// Typed launches are checked when they compile: Device::launch static_asserts launch_args_fit, and these are the
// cases it tells apart (the right arguments, converted without narrowing; a missing or extra argument; a size_t for
// a 32-bit parameter; a pointer of another type).
TEST(HipLoader, TypedLaunchesTakeOnlyTheKernelsParameters) {
  using Psnr = psnr_sse_kernel_fn;
  static_assert(launch_args_fit<Psnr, DevicePlane, DevicePlane, vx_u64*>::value);
  static_assert(launch_args_fit<Psnr, const DevicePlane&, DevicePlane&, std::nullptr_t>::value);
  static_assert(!launch_args_fit<Psnr, DevicePlane, DevicePlane>::value, "an argument missing");
  static_assert(!launch_args_fit<Psnr, DevicePlane, DevicePlane, vx_u64*, int>::value, "an argument too many");
  static_assert(!launch_args_fit<Psnr, DevicePlane, DevicePlane, void*>::value, "an untyped pointer");
  static_assert(!launch_args_fit<Psnr, DevicePlane, DevicePlane, uint32_t*>::value, "a pointer of another type");
  using Motion = motion_sad_kernel_fn;
  static_assert(launch_args_fit<Motion, DevicePlane, DevicePlane, uint32_t, uint32_t, unsigned, vx_u64*,
                                vx_u32*>::value);
  static_assert(!launch_args_fit<Motion, DevicePlane, DevicePlane, size_t, uint32_t, unsigned, vx_u64*,
                                 vx_u32*>::value,
                "a size_t for a 32-bit parameter narrows");
  static_assert(!launch_args_fit<Motion, DevicePlane, DevicePlane, uint32_t, uint32_t, unsigned, vx_u32*,
                                 vx_u64*>::value,
                "the accumulators swapped");
  static_assert(launch_args_fit<vif_scale_kernel_fn, VifScaleArgs&>::value);
  static_assert(!launch_args_fit<vif_scale_kernel_fn, DevicePlane>::value, "another struct");
  SUCCEED() << "checked at compile time";
}

TEST(HipLoader, ParsesVendorNames) {
  for (Vendor v : {Vendor::auto_select, Vendor::amd, Vendor::nvidia}) {
    Vendor parsed = Vendor::amd;
    ASSERT_TRUE(parse_vendor(vendor_name(v), &parsed).is_ok()) << vendor_name(v);
    EXPECT_EQ(parsed, v);
  }
  Vendor parsed = Vendor::amd;
  Status s = parse_vendor("intel", &parsed);
  EXPECT_EQ(s.code(), Errc::invalid_argument);
  EXPECT_NE(s.message().find("intel"), std::string::npos) << s.message();
}

TEST(HipLoader, TriesTheDocumentedLibrariesInOrder) {
  EXPECT_EQ(default_libraries(Vendor::amd),
            (std::vector<std::string>{"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
                                      "/opt/rocm/lib/libamdhip64.so"}));
  EXPECT_EQ(default_libraries(Vendor::nvidia), (std::vector<std::string>{"libcuda.so.1"}));
}

// Checks a failed load of `vendor`: device_unavailable, and every library named with the reason this machine gives.
void expect_names_every_library(Vendor vendor, const Status& s) {
  EXPECT_EQ(s.code(), Errc::device_unavailable) << s.to_string();
  for (const std::string& lib : default_libraries(vendor)) {
    EXPECT_NE(s.message().find(lib), std::string::npos) << "library " << lib << " not named in: " << s.message();
    const std::string err = dlopen_error(lib);
    if (!err.empty()) {
      // It does not open here: the message carries dlopen's own reason.
      EXPECT_NE(s.message().find(err), std::string::npos) << "dlopen reason '" << err << "' missing: " << s.message();
    } else {
      // It opens but was not used: the message says what failed after loading (init, device count, 0 devices).
      EXPECT_NE(s.message().find(lib + ": loaded, "), std::string::npos) << s.message();
    }
  }
}

TEST(HipLoader, AmdWithoutDeviceIsACleanStatus) {
  const Api* api = nullptr;
  Status s = load_api(Vendor::amd, &api);
  if (s) GTEST_SKIP() << "an AMD GPU is present (" << api->library << "): the no-device path cannot be shown here";
  EXPECT_EQ(api, nullptr);
  std::printf("amd: %s\n", s.to_string().c_str());
  expect_names_every_library(Vendor::amd, s);
  // Debian's libamdhip64.so.5 (installed on CI) loads and fails at hipInit: the runtime's error is named.
  if (dlopen_error("libamdhip64.so.5").empty()) {
    EXPECT_NE(s.message().find("libamdhip64.so.5: loaded, hip"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("hipError"), std::string::npos) << s.message();
  }
  // A second load answers the same, from the cached probe.
  Status again = load_api(Vendor::amd, &api);
  EXPECT_EQ(again.message(), s.message());
}

TEST(HipLoader, NvidiaWithoutDriverIsACleanStatus) {
  const Api* api = nullptr;
  Status s = load_api(Vendor::nvidia, &api);
  if (s) GTEST_SKIP() << "an NVIDIA GPU is present (" << api->library << "): the no-device path cannot be shown here";
  EXPECT_EQ(api, nullptr);
  std::printf("nvidia: %s\n", s.to_string().c_str());
  expect_names_every_library(Vendor::nvidia, s);
}

TEST(HipLoader, AutoWithoutDeviceNamesBothVendors) {
  const Api* api = nullptr;
  Status s = load_api(Vendor::auto_select, &api);
  if (s) GTEST_SKIP() << "a GPU is present (" << vendor_name(api->vendor) << ", " << api->library << ")";
  std::printf("auto: %s\n", s.to_string().c_str());
  EXPECT_EQ(s.code(), Errc::device_unavailable);
  // AMD is tried first, then NVIDIA; both explanations are kept.
  const size_t amd = s.message().find("no amd GPU");
  const size_t nvidia = s.message().find("no nvidia GPU");
  ASSERT_NE(amd, std::string::npos) << s.message();
  ASSERT_NE(nvidia, std::string::npos) << s.message();
  EXPECT_LT(amd, nvidia);
  for (Vendor v : {Vendor::amd, Vendor::nvidia}) {
    for (const std::string& lib : default_libraries(v)) EXPECT_NE(s.message().find(lib), std::string::npos) << lib;
  }
}

TEST(HipLoader, DeviceGetWithoutDeviceIsACleanStatus) {
  const Api* api = nullptr;
  if (load_api(Vendor::auto_select, &api)) GTEST_SKIP() << "a GPU is present";
  for (Vendor v : {Vendor::auto_select, Vendor::amd, Vendor::nvidia}) {
    std::shared_ptr<Device> dev;
    Status s = Device::get(v, -1, &dev);
    EXPECT_EQ(s.code(), Errc::device_unavailable) << vendor_name(v) << ": " << s.to_string();
    EXPECT_EQ(dev, nullptr);
    EXPECT_FALSE(s.message().empty());
  }
}

TEST(HipLoader, ProbeNamesALibraryThatIsNotThere) {
  ProbeReport report;
  Status s = probe_runtime(Vendor::nvidia, {"/nonexistent/libcuda.so.1"}, &report);
  EXPECT_EQ(s.code(), Errc::device_unavailable);
  ASSERT_EQ(report.attempts.size(), 1u);
  EXPECT_NE(report.attempts[0].find("/nonexistent/libcuda.so.1"), std::string::npos) << report.attempts[0];
  EXPECT_NE(s.message().find("/nonexistent/libcuda.so.1"), std::string::npos) << s.message();
  EXPECT_TRUE(report.library.empty());
}

TEST(HipLoader, ProbeRefusesALibraryThatIsNoRuntime) {
  // libm opens but exports neither hipInit nor cuInit.
  for (Vendor v : {Vendor::amd, Vendor::nvidia}) {
    ProbeReport report;
    Status s = probe_runtime(v, {"libm.so.6"}, &report);
    EXPECT_EQ(s.code(), Errc::device_unavailable);
    EXPECT_NE(s.message().find("libm.so.6: loaded, symbol "), std::string::npos) << s.message();
  }
  ProbeReport report;
  EXPECT_EQ(probe_runtime(Vendor::auto_select, {"libm.so.6"}, &report).code(), Errc::invalid_argument);
}

// A table with fake entries: the checked-call macro without any runtime.
const char* fake_name(int code) { return code == 700 ? "FAKE_ERROR_ILLEGAL_ADDRESS" : nullptr; }
const char* fake_string(int code) { return code == 700 ? "an illegal memory access was encountered" : nullptr; }
int fake_sync_fails(StreamHandle) { return 700; }
int fake_sync_ok(StreamHandle) { return 0; }

Status checked_sync(const Api& api) {
  VMAFX_HIP_CHECK_API(api, stream_synchronize, nullptr);
  return Status::ok();
}

TEST(HipLoader, CheckedCallNamesSymbolErrorFileAndLine) {
  Api api;
  api.library = "libfake.so";
  api.error_name = fake_name;
  api.error_string = fake_string;
  api.stream_synchronize.symbol = "cuStreamSynchronize";

  Status missing = checked_sync(api);
  EXPECT_EQ(missing.code(), Errc::unsupported);
  EXPECT_EQ(missing.message(), "cuStreamSynchronize is not exported by libfake.so");

  api.stream_synchronize.fn = fake_sync_fails;
  Status failed = checked_sync(api);
  EXPECT_EQ(failed.code(), Errc::device_error);
  EXPECT_NE(failed.message().find("cuStreamSynchronize failed: FAKE_ERROR_ILLEGAL_ADDRESS (an illegal memory access "
                                  "was encountered) at "),
            std::string::npos)
      << failed.message();
  EXPECT_NE(failed.message().find("test_hip_loader.cpp:"), std::string::npos) << failed.message();

  api.stream_synchronize.fn = fake_sync_ok;
  EXPECT_TRUE(checked_sync(api).is_ok());

  // A code without a name still says which code it was.
  EXPECT_EQ(api.describe(5), "error 5");
}

// Run-time compilation of every embedded kernel source, without a device: the text is self-contained and compiles
// with the run-time compiler of each vendor where one is installed.
void compile_embedded_sources(Vendor vendor, const char* lib_hint, const std::string& arch) {
  Api api;
  api.vendor = vendor;
  api.library = lib_hint;
  const Rtc* rtc = nullptr;
  Status s = load_rtc(api, &rtc);
  if (!s) GTEST_SKIP() << "no run-time compiler for " << vendor_name(vendor) << " here: " << s.message();
  size_t n = 0;
  const EmbeddedSource* sources = embedded_sources(&n);
  ASSERT_GT(n, 0u);
  for (size_t i = 0; i < n; ++i) {
    std::vector<uint8_t> image;
    std::string log;
    const char* symbol = "";
    const std::string text(sources[i].text, sources[i].size);
    const int rc = rtc->compile(text, std::string(sources[i].kernel) + ".hip", arch, &image, &log, &symbol);
    EXPECT_EQ(rc, 0) << rtc->version << " (" << rtc->library << "): " << symbol << " failed on " << sources[i].kernel
                     << ": " << (rtc->error_string ? rtc->error_string(rc) : "") << "\n" << log;
    ASSERT_GT(image.size(), 64u);
    // A loadable ELF image (AMD code object / NVIDIA cubin) of the requested target holding the kernel.
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(image.data()), 4), "\x7f" "ELF");
    const std::string body(reinterpret_cast<const char*>(image.data()), image.size());
    EXPECT_NE(body.find(std::string(sources[i].kernel) + "_"), std::string::npos) << sources[i].kernel;
    if (vendor == Vendor::amd) {
      EXPECT_NE(body.find(arch), std::string::npos) << "target " << arch << " not in image";
    }
    std::printf("%s (%s) compiled %s.hip for %s: %zu bytes\n", rtc->version.c_str(), rtc->library.c_str(),
                sources[i].kernel, arch.c_str(), image.size());
  }
}

TEST(HipLoader, EmbeddedSourcesCompileWithNvrtc) {
  compile_embedded_sources(Vendor::nvidia, "libcuda.so.1", "sm_90");
}

TEST(HipLoader, EmbeddedSourcesCompileWithHiprtc) {
  compile_embedded_sources(Vendor::amd, "libamdhip64.so.5", "gfx1030");
}

}  // namespace
}  // namespace vmafx::hip
