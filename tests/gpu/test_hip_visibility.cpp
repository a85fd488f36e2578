// SPDX-License-Identifier: LGPL-2.1-or-later
// Device visibility without a GPU: HIP_VISIBLE_DEVICES as the NVIDIA path applies it (select_visible, with device
// counts given), the message of an empty visible set, which variables each vendor's runtime reads, and the loader's
// probe against a stand-in runtime library (fake_runtime.cpp) that reports no device, or N, as the environment says.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hip/api.h"
#include "hip/visibility.h"
#include "support.h"

namespace vmafx::hip {
namespace {

std::vector<int> selected(const std::string& value, int count) {
  std::vector<int> ordinals{-7};
  Status s = select_visible(value, count, &ordinals);
  EXPECT_TRUE(s.is_ok()) << value << ": " << s.to_string();
  return ordinals;
}

Status refused(const std::string& value, int count) {
  std::vector<int> ordinals{-7};
  Status s = select_visible(value, count, &ordinals);
  EXPECT_FALSE(s.is_ok()) << value << " with " << count << " device(s) was taken";
  EXPECT_TRUE(ordinals.empty()) << value;
  return s;
}

TEST(HipVisibility, HipVisibleDevicesSelectsAmongTheCudaDevicesByIndex) {
  EXPECT_EQ(selected("1", 2), (std::vector<int>{1}));
  EXPECT_EQ(selected("0,1", 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(selected("2,0", 3), (std::vector<int>{2, 0})) << "in the order listed";
  EXPECT_EQ(selected(" 1 , 0 ", 2), (std::vector<int>{1, 0})) << "spaces around entries";
  EXPECT_EQ(selected("3", 4), (std::vector<int>{3}));
}

// CUDA's rules for CUDA_VISIBLE_DEVICES: the first negative or out-of-range entry ends the list.
TEST(HipVisibility, TheFirstNegativeOrAbsentIndexEndsTheList) {
  EXPECT_EQ(selected("0,-1,1", 2), (std::vector<int>{0}));
  EXPECT_EQ(selected("1,5,0", 2), (std::vector<int>{1})) << "5 is past the two devices";
  EXPECT_EQ(selected("0,2", 2), (std::vector<int>{0}));
}

TEST(HipVisibility, AnEmptySelectionNamesTheVariableAndItsValue) {
  Status s = refused("", 2);
  EXPECT_EQ(s.code(), Errc::device_unavailable);
  EXPECT_EQ(s.message(), "no GPU visible: HIP_VISIBLE_DEVICES=\"\" hides every device");
  s = refused("-1", 2);
  EXPECT_EQ(s.code(), Errc::device_unavailable);
  EXPECT_EQ(s.message(), "no GPU visible: HIP_VISIBLE_DEVICES=\"-1\" hides every device; the negative entry -1 ends "
                         "the list");
  s = refused("2", 2);
  EXPECT_EQ(s.code(), Errc::device_unavailable);
  EXPECT_EQ(s.message(), "no GPU visible: HIP_VISIBLE_DEVICES=\"2\" names no device; index 2 is past the 2 device(s) "
                         "CUDA shows, which ends the list");
  s = refused("  ", 1);
  EXPECT_EQ(s.message(), "no GPU visible: HIP_VISIBLE_DEVICES=\"  \" hides every device");
}

// CUDA's rule: an index listed twice leaves no device visible.
TEST(HipVisibility, ARepeatedIndexLeavesNothingVisible) {
  for (const char* v : {"0,0", "1,0,1"}) {
    Status s = refused(v, 2);
    EXPECT_EQ(s.code(), Errc::device_unavailable) << v;
    EXPECT_EQ(s.message().rfind("no GPU visible: HIP_VISIBLE_DEVICES=\"" + std::string(v) + "\"", 0), 0u)
        << s.message();
    EXPECT_NE(s.message().find("listed twice"), std::string::npos) << s.message();
  }
}

// Stricter than CUDA (which reads "1gpu" as 1): an entry that is no index is an error naming it, wherever it is.
TEST(HipVisibility, AnEntryThatIsNoIndexIsAnErrorNamingIt) {
  const std::map<std::string, std::string> cases = {
      {"x", "x"}, {"1gpu", "1gpu"}, {"0,,1", ""}, {"0,", ""}, {"GPU-8f2a", "GPU-8f2a"},
      {"0,5,y", "y"}, {"1.5", "1.5"}, {"0x1", "0x1"}, {"99999999999", "99999999999"}};
  for (const auto& [value, entry] : cases) {
    Status s = refused(value, 2);
    EXPECT_EQ(s.code(), Errc::invalid_argument) << value << ": " << s.to_string();
    EXPECT_EQ(s.message().rfind("HIP_VISIBLE_DEVICES=\"" + value + "\": entry \"" + entry + "\" is not a device index",
                                0),
              0u)
        << s.message();
  }
}

TEST(HipVisibility, EmptySetErrorText) {
  Status s = no_gpu_visible({{"CUDA_VISIBLE_DEVICES", ""}}, "");
  EXPECT_EQ(s.code(), Errc::device_unavailable);
  EXPECT_EQ(s.message(), "no GPU visible: CUDA_VISIBLE_DEVICES=\"\" hides every device");
  s = no_gpu_visible({{"CUDA_VISIBLE_DEVICES", "-1"}}, "libcuda.so.1: loaded, cuInit failed: CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(s.message(), "no GPU visible: CUDA_VISIBLE_DEVICES=\"-1\" hides every device; libcuda.so.1: loaded, "
                         "cuInit failed: CUDA_ERROR_NO_DEVICE");
  s = no_gpu_visible({{"CUDA_VISIBLE_DEVICES", "7"}}, "");
  EXPECT_EQ(s.message(), "no GPU visible: CUDA_VISIBLE_DEVICES=\"7\" names no device");
  // Several set: the one that hides everything is named; else all of them.
  s = no_gpu_visible({{"ROCR_VISIBLE_DEVICES", "0"}, {"HIP_VISIBLE_DEVICES", ""}}, "");
  EXPECT_EQ(s.message(), "no GPU visible: HIP_VISIBLE_DEVICES=\"\" hides every device");
  s = no_gpu_visible({{"ROCR_VISIBLE_DEVICES", "3"}, {"HIP_VISIBLE_DEVICES", "1"}}, "");
  EXPECT_EQ(s.message(), "no GPU visible: ROCR_VISIBLE_DEVICES=\"3\", HIP_VISIBLE_DEVICES=\"1\" leave no device "
                         "visible");
}

TEST(HipVisibility, HidesEveryDevice) {
  for (const char* v : {"", " ", "-1", "-1,0", " -2 ,1"}) EXPECT_TRUE(hides_every_device(v)) << '"' << v << '"';
  for (const char* v : {"0", "1,-1", "GPU-1234", "x"}) EXPECT_FALSE(hides_every_device(v)) << '"' << v << '"';
}

// Which variables count, per vendor, in the order they apply: the HIP runtime reads three, the CUDA driver one
// (HIP_VISIBLE_DEVICES on NVIDIA is the loader's own, select_visible).
TEST(HipVisibility, EachRuntimesVariables) {
  EXPECT_EQ(visibility_variables(Vendor::amd),
            (std::vector<std::string>{"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}));
  EXPECT_EQ(visibility_variables(Vendor::nvidia), (std::vector<std::string>{"CUDA_VISIBLE_DEVICES"}));
  const std::map<std::string, std::string> env = {{"CUDA_VISIBLE_DEVICES", ""}, {"ROCR_VISIBLE_DEVICES", "1"}};
  auto getenv = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  const auto amd = visibility_settings(Vendor::amd, getenv);
  ASSERT_EQ(amd.size(), 2u);
  EXPECT_EQ(amd[0].name, "ROCR_VISIBLE_DEVICES");
  EXPECT_EQ(amd[1].name, "CUDA_VISIBLE_DEVICES");
  EXPECT_EQ(amd[1].value, "") << "set to the empty string is set";
  EXPECT_EQ(describe_settings(amd), "ROCR_VISIBLE_DEVICES=\"1\", CUDA_VISIBLE_DEVICES=\"\"");
  const auto nvidia = visibility_settings(Vendor::nvidia, getenv);
  ASSERT_EQ(nvidia.size(), 1u);
  EXPECT_EQ(nvidia[0].name, "CUDA_VISIBLE_DEVICES");
}

TEST(HipVisibility, OrdinalsMapBothWays) {
  Api api;
  api.ordinals = {2, 0};
  EXPECT_EQ(api.ordinal_of(0), 2);
  EXPECT_EQ(api.ordinal_of(1), 0);
  EXPECT_EQ(api.ordinal_of(2), -1);
  EXPECT_EQ(api.ordinal_of(-1), -1);
  EXPECT_EQ(api.index_of(2), 0);
  EXPECT_EQ(api.index_of(0), 1);
  EXPECT_EQ(api.index_of(1), -1) << "CUDA device 1 is hidden";
}

// ---- The loader's probe against the stand-in runtime ------------------------------------------------------------

// Sets (or, with nullopt, unsets) environment variables for the scope and restores them after.
class Env {
 public:
  Env(std::initializer_list<std::pair<const char*, std::optional<std::string>>> vars) {
    for (const auto& [name, value] : vars) {
      const char* old = std::getenv(name);
      saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
      set(name, value);
    }
  }
  ~Env() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) set(it->first.c_str(), it->second);
  }

 private:
  static void set(const char* name, const std::optional<std::string>& value) {
    if (value) setenv(name, value->c_str(), 1);
    else unsetenv(name);
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

const std::optional<std::string> kUnset = std::nullopt;

// The stand-in library: beside this binary (a build directory copied elsewhere), else where it was built.
std::string fake_runtime() { return ::vmafx::test::beside_test_binary("libvmafx-fake-runtime.so", VMAFX_FAKE_RUNTIME); }

Status probe_fake(Vendor vendor, ProbeReport* report) { return probe_runtime(vendor, {fake_runtime()}, report); }

TEST(HipVisibility, NvidiaCudaVisibleDevicesHidingEverythingIsSaid) {
  Env env{{"FAKE_RUNTIME_INIT_RC", "100"}, {"CUDA_VISIBLE_DEVICES", ""}, {"HIP_VISIBLE_DEVICES", kUnset}};
  ProbeReport report;
  Status s = probe_fake(Vendor::nvidia, &report);
  EXPECT_EQ(s.code(), Errc::device_unavailable);
  EXPECT_EQ(s.message().rfind("no GPU visible: CUDA_VISIBLE_DEVICES=\"\" hides every device; ", 0), 0u) << s.message();
  EXPECT_NE(s.message().find(fake_runtime() + ": loaded, cuInit failed: NO_DEVICE (100)"),
            std::string::npos)
      << s.message();
}

TEST(HipVisibility, NvidiaZeroDevicesWithAVariableSetIsSaid) {
  Env env{{"FAKE_RUNTIME_DEVICES", "0"}, {"CUDA_VISIBLE_DEVICES", "7"}, {"HIP_VISIBLE_DEVICES", kUnset}};
  ProbeReport report;
  Status s = probe_fake(Vendor::nvidia, &report);
  EXPECT_EQ(s.code(), Errc::device_unavailable);
  EXPECT_EQ(s.message().rfind("no GPU visible: CUDA_VISIBLE_DEVICES=\"7\" names no device; ", 0), 0u) << s.message();
}

// Without a visibility variable, no device is the plain "no nvidia GPU" (nothing was hidden).
TEST(HipVisibility, NoDeviceWithoutVariablesIsThePlainMessage) {
  Env env{{"FAKE_RUNTIME_INIT_RC", "100"}, {"CUDA_VISIBLE_DEVICES", kUnset}, {"HIP_VISIBLE_DEVICES", kUnset}};
  ProbeReport report;
  Status s = probe_fake(Vendor::nvidia, &report);
  EXPECT_EQ(s.code(), Errc::device_unavailable);
  EXPECT_EQ(s.message().rfind("no nvidia GPU: ", 0), 0u) << s.message();
  EXPECT_EQ(s.message().find("visible"), std::string::npos) << s.message();
}

// HIP_VISIBLE_DEVICES does not explain a failed cuInit (CUDA does not read it); it applies after.
TEST(HipVisibility, NvidiaInitFailureIsNotBlamedOnHipVisibleDevices) {
  Env env{{"FAKE_RUNTIME_INIT_RC", "100"}, {"CUDA_VISIBLE_DEVICES", kUnset}, {"HIP_VISIBLE_DEVICES", "0"}};
  ProbeReport report;
  Status s = probe_fake(Vendor::nvidia, &report);
  EXPECT_EQ(s.message().rfind("no nvidia GPU: ", 0), 0u) << s.message();
}

TEST(HipVisibility, NvidiaProbeAppliesHipVisibleDevices) {
  {
    Env env{{"FAKE_RUNTIME_DEVICES", "3"}, {"CUDA_VISIBLE_DEVICES", kUnset}, {"HIP_VISIBLE_DEVICES", "2,0"}};
    ProbeReport report;
    Status s = probe_fake(Vendor::nvidia, &report);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    EXPECT_EQ(report.runtime_device_count, 3);
    EXPECT_EQ(report.device_count, 2);
    EXPECT_EQ(report.ordinals, (std::vector<int>{2, 0}));
    EXPECT_EQ(report.visibility, "HIP_VISIBLE_DEVICES=\"2,0\"");
    EXPECT_NE(report.summary().find("3 device(s), 2 of them visible (HIP_VISIBLE_DEVICES=\"2,0\")"), std::string::npos)
        << report.summary();
  }
  {
    Env env{{"FAKE_RUNTIME_DEVICES", "2"}, {"CUDA_VISIBLE_DEVICES", kUnset}, {"HIP_VISIBLE_DEVICES", kUnset}};
    ProbeReport report;
    ASSERT_TRUE(probe_fake(Vendor::nvidia, &report).is_ok());
    EXPECT_EQ(report.ordinals, (std::vector<int>{0, 1}));
    EXPECT_EQ(report.visibility, "");
  }
}

TEST(HipVisibility, NvidiaProbeRefusesAnEmptyOrMalformedHipVisibleDevices) {
  {
    Env env{{"FAKE_RUNTIME_DEVICES", "1"}, {"CUDA_VISIBLE_DEVICES", kUnset}, {"HIP_VISIBLE_DEVICES", "1"}};
    ProbeReport report;
    Status s = probe_fake(Vendor::nvidia, &report);
    EXPECT_EQ(s.code(), Errc::device_unavailable);
    EXPECT_EQ(s.message(), "no GPU visible: HIP_VISIBLE_DEVICES=\"1\" names no device; index 1 is past the 1 "
                           "device(s) CUDA shows, which ends the list");
  }
  {
    // What CUDA shows was narrowed by CUDA_VISIBLE_DEVICES: said too.
    Env env{{"FAKE_RUNTIME_DEVICES", "1"}, {"CUDA_VISIBLE_DEVICES", "3"}, {"HIP_VISIBLE_DEVICES", "-1"}};
    ProbeReport report;
    Status s = probe_fake(Vendor::nvidia, &report);
    EXPECT_EQ(s.code(), Errc::device_unavailable);
    EXPECT_EQ(s.message().rfind("no GPU visible: HIP_VISIBLE_DEVICES=\"-1\" hides every device", 0), 0u)
        << s.message();
    EXPECT_NE(s.message().find("the CUDA devices are those CUDA_VISIBLE_DEVICES=\"3\" leaves"), std::string::npos)
        << s.message();
  }
  {
    Env env{{"FAKE_RUNTIME_DEVICES", "2"}, {"CUDA_VISIBLE_DEVICES", kUnset}, {"HIP_VISIBLE_DEVICES", "0,one"}};
    ProbeReport report;
    Status s = probe_fake(Vendor::nvidia, &report);
    EXPECT_EQ(s.code(), Errc::invalid_argument);
    EXPECT_EQ(s.message().rfind("HIP_VISIBLE_DEVICES=\"0,one\": entry \"one\" is not a device index", 0), 0u)
        << s.message();
  }
}

// AMD: the HIP runtime applies all three variables itself; the loader only says which hid everything.
TEST(HipVisibility, AmdVariablesHidingEverythingAreSaid) {
  {
    Env env{{"FAKE_RUNTIME_DEVICES", "0"}, {"ROCR_VISIBLE_DEVICES", kUnset}, {"HIP_VISIBLE_DEVICES", "-1"},
            {"CUDA_VISIBLE_DEVICES", kUnset}};
    ProbeReport report;
    Status s = probe_fake(Vendor::amd, &report);
    EXPECT_EQ(s.code(), Errc::device_unavailable);
    EXPECT_EQ(s.message().rfind("no GPU visible: HIP_VISIBLE_DEVICES=\"-1\" hides every device; ", 0), 0u)
        << s.message();
    EXPECT_NE(s.message().find("hipGetDeviceCount failed: NO_DEVICE (100)"), std::string::npos) << s.message();
  }
  {
    // ROCm 5's hipInit answers hipErrorInvalidDevice when it finds no device.
    Env env{{"FAKE_RUNTIME_INIT_RC", "101"}, {"ROCR_VISIBLE_DEVICES", "7"}, {"HIP_VISIBLE_DEVICES", kUnset},
            {"CUDA_VISIBLE_DEVICES", kUnset}};
    ProbeReport report;
    Status s = probe_fake(Vendor::amd, &report);
    EXPECT_EQ(s.code(), Errc::device_unavailable);
    EXPECT_EQ(s.message().rfind("no GPU visible: ROCR_VISIBLE_DEVICES=\"7\" names no device; ", 0), 0u)
        << s.message();
    EXPECT_NE(s.message().find("hipInit failed: INVALID_DEVICE (101)"), std::string::npos) << s.message();
  }
  {
    // Another init failure is no visibility matter.
    Env env{{"FAKE_RUNTIME_INIT_RC", "999"}, {"ROCR_VISIBLE_DEVICES", "7"}, {"HIP_VISIBLE_DEVICES", kUnset},
            {"CUDA_VISIBLE_DEVICES", kUnset}};
    ProbeReport report;
    Status s = probe_fake(Vendor::amd, &report);
    EXPECT_EQ(s.message().rfind("no amd GPU: ", 0), 0u) << s.message();
  }
  {
    // The HIP runtime applied HIP_VISIBLE_DEVICES itself: the loader does not select again.
    Env env{{"FAKE_RUNTIME_DEVICES", "2"}, {"ROCR_VISIBLE_DEVICES", "0,1"}, {"HIP_VISIBLE_DEVICES", "1"},
            {"CUDA_VISIBLE_DEVICES", kUnset}};
    ProbeReport report;
    ASSERT_TRUE(probe_fake(Vendor::amd, &report).is_ok());
    EXPECT_EQ(report.ordinals, (std::vector<int>{0, 1}));
    EXPECT_EQ(report.visibility, "ROCR_VISIBLE_DEVICES=\"0,1\", HIP_VISIBLE_DEVICES=\"1\"");
  }
}

}  // namespace
}  // namespace vmafx::hip
