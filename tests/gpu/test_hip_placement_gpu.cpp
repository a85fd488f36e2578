// SPDX-License-Identifier: LGPL-2.1-or-later
// Automatic placement and device visibility on real devices (suite gpu; skips without a GPU). Scorers made with
// device_id -1 land on a visible device, say which, and count as a session there while they live; scorers made at
// once spread evenly over the visible GPUs (with one GPU: all on it, and no memory query is made); an explicit
// device id is used as given. vmafx-score run with the visibility variables says, in one line, when they leave no
// GPU. (test_hip_placement.cpp checks the rule on a simulated device list, without a GPU.)
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpu_device.h"
#include "hip/placement.h"
#include "hip/test_hooks.h"
#include "support.h"
#include "vmafx/scorer.h"

namespace vmafx::hip {
namespace {

struct Gpus {
  Vendor vendor = Vendor::auto_select;
  int visible = 0;
};

// The vendor and visible device count of the machine, or a skip.
#define VMAFX_GPUS_OR_SKIP(g)                                                          \
  Gpus g;                                                                              \
  do {                                                                                 \
    VMAFX_GPU_DEVICE_OR_SKIP(dev_);                                                    \
    g.vendor = dev_->info().vendor;                                                    \
    ASSERT_EQ(dev_->api().device_count.fn(&g.visible), 0);                             \
  } while (0)

::vmafx::Vendor public_vendor(Vendor v) {
  return v == Vendor::amd ? ::vmafx::Vendor::amd : ::vmafx::Vendor::nvidia;
}

ScorerConfig hip_config(const Gpus& g, int device_id) {
  ScorerConfig cfg;
  cfg.backend = Backend::hip;
  cfg.vendor = public_vendor(g.vendor);
  cfg.device_id = device_id;
  return cfg;
}

const StreamGeometry kGeometry{{320, 240, 8, Chroma::k420}, {}};

TEST(HipPlacementGpu, AScorerOnAutoLandsOnAVisibleDeviceAndSaysWhich) {
  VMAFX_GPUS_OR_SKIP(g);
  std::unique_ptr<Scorer> scorer;
  const std::vector<unsigned> before = [&] {
    std::vector<unsigned> n;
    for (int i = 0; i < g.visible; i++) n.push_back(session_count(g.vendor, i));
    return n;
  }();
  Status s = Scorer::create(hip_config(g, -1), kGeometry, &scorer);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  const int d = scorer->device();
  ASSERT_GE(d, 0);
  ASSERT_LT(d, g.visible);
  EXPECT_EQ(session_count(g.vendor, d), before[size_t(d)] + 1) << "the scorer counts as a session on its device";
  const std::string desc = scorer->backend_description();
  const std::string where = g.visible == 1 ? ", device 0" : "placed automatically on device " + std::to_string(d) +
                                                                " of " + std::to_string(g.visible) + " (";
  EXPECT_NE(desc.find(where), std::string::npos) << desc;
  scorer.reset();
  EXPECT_EQ(session_count(g.vendor, d), before[size_t(d)]) << "and no more once it is gone";
}

TEST(HipPlacementGpu, AnExplicitDeviceIsUsedAsGiven) {
  VMAFX_GPUS_OR_SKIP(g);
  for (int d = g.visible - 1; d >= 0; d--) {
    std::unique_ptr<Scorer> scorer;
    Status s = Scorer::create(hip_config(g, d), kGeometry, &scorer);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    EXPECT_EQ(scorer->device(), d);
    EXPECT_NE(scorer->backend_description().find(", device " + std::to_string(d)), std::string::npos)
        << scorer->backend_description();
    EXPECT_EQ(session_count(g.vendor, d), 1u);
  }
  std::unique_ptr<Scorer> scorer;
  EXPECT_EQ(Scorer::create(hip_config(g, g.visible), kGeometry, &scorer).code(), Errc::device_unavailable);
}

// Pipelines started at once: every visible GPU gets the same number of scorers (sessions are counted before any
// memory is allocated). With one GPU they all run there and no memory query (no extra context) is made.
TEST(HipPlacementGpu, ScorersMadeAtOnceSpreadOverTheGpus) {
  VMAFX_GPUS_OR_SKIP(g);
  const int n = 2 * g.visible;
#if VMAFX_TEST_HOOKS
  const uint64_t queries = hip_hooks::memory_queries();
#endif
  std::vector<std::unique_ptr<Scorer>> scorers(static_cast<size_t>(n));
  std::vector<Status> st(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  for (int i = 0; i < n; i++)
    threads.emplace_back([&, i] { st[size_t(i)] = Scorer::create(hip_config(g, -1), kGeometry, &scorers[size_t(i)]); });
  for (auto& t : threads) t.join();
  std::vector<int> per_device(static_cast<size_t>(g.visible), 0);
  for (int i = 0; i < n; i++) {
    ASSERT_TRUE(st[size_t(i)].is_ok()) << st[size_t(i)].to_string();
    per_device[size_t(scorers[size_t(i)]->device())]++;
  }
  for (int d = 0; d < g.visible; d++) EXPECT_EQ(per_device[size_t(d)], 2) << "device " << d;
#if VMAFX_TEST_HOOKS
  if (g.visible == 1) EXPECT_EQ(hip_hooks::memory_queries(), queries) << "one GPU: no memory query";
  else EXPECT_EQ(hip_hooks::memory_queries(), queries + uint64_t(n) * uint64_t(g.visible));
#endif
}

// ---- vmafx-score under the visibility variables ------------------------------------------------------------------

std::string sample(const char* which) {
  const std::string path = ::testing::TempDir() + "/vmafx_placement_sample_" + which + ".yuv";
  const std::string cmd = "gunzip -c " + ::vmafx::test::project_source_dir() + "/samples/sample_320x240_" + which +
                          ".yuv.gz > " + path;
  if (std::system(cmd.c_str()) != 0) ADD_FAILURE() << cmd;
  return path;
}

struct CliRun {
  int status = -1;
  std::string output;
};

// vmafx-score of this build.
std::string score_tool() { return ::vmafx::test::beside_test_binary("../../tools/vmafx-score", VMAFX_SCORE_PATH); }

CliRun score_with(const std::string& env, const std::string& vendor) {
  const std::string cmd = env + " " + score_tool() + " -r " + sample("ref") + " -d " + sample("dist") +
                          " -w 320 -h 240 -q --backend hip --vendor " + vendor + " 2>&1";
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t k;
  while ((k = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, k);
  const int rc = pclose(p);
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return r;
}

// The engine opens the CUDA driver itself: HIP_VISIBLE_DEVICES is applied by the loader among the CUDA-visible
// devices, and an empty visible set is said naming the variable. NVIDIA only (the HIP runtime applies these itself
// on AMD, and its answer to an empty set is not checked here).
TEST(HipPlacementGpu, NvidiaVisibilityVariables) {
  VMAFX_GPUS_OR_SKIP(g);
  if (g.vendor != Vendor::nvidia) GTEST_SKIP() << "NVIDIA only";
  const std::string base = "env -u HIP_VISIBLE_DEVICES -u CUDA_VISIBLE_DEVICES ";
  CliRun r = score_with(base + "CUDA_VISIBLE_DEVICES=", "nvidia");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("no GPU visible: CUDA_VISIBLE_DEVICES=\"\" hides every device"), std::string::npos)
      << r.output;
  const std::string past = std::to_string(g.visible);
  r = score_with(base + "HIP_VISIBLE_DEVICES=" + past, "nvidia");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("no GPU visible: HIP_VISIBLE_DEVICES=\"" + past + "\" names no device"), std::string::npos)
      << r.output;
  r = score_with(base + "HIP_VISIBLE_DEVICES=0,x", "nvidia");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("HIP_VISIBLE_DEVICES=\"0,x\": entry \"x\" is not a device index"), std::string::npos)
      << r.output;
  // The last visible GPU alone: it scores (as device 0 of the engine).
  r = score_with(base + "HIP_VISIBLE_DEVICES=" + std::to_string(g.visible - 1), "nvidia");
  EXPECT_EQ(r.status, 0) << r.output;
}

}  // namespace
}  // namespace vmafx::hip
