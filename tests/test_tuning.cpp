// SPDX-License-Identifier: LGPL-2.1-or-later
// The environment table (vmafx/tuning.h, tools/cli_options.h): every variable read into its setting, defaults where
// unset or empty, every refused value an error naming the variable and what it accepts; docs/cli.md's table lists
// exactly the programs' variables; vmafx-score and the element refuse a bad value at their edge.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_options.h"
#include "support.h"
#include "vmafx/tuning.h"

namespace vmafx {
namespace {

using Env = std::map<std::string, std::string>;

Status read(const Env& env, EngineTuning* out) {
  return tuning_from([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  }, out);
}

TEST(Tuning, DefaultsWhenUnsetOrEmpty) {
  EngineTuning t;
  ASSERT_TRUE(read({}, &t));
  const EngineTuning d;
  EXPECT_EQ(t.upload_stream, d.upload_stream);
  EXPECT_EQ(t.lanes, d.lanes);
  EXPECT_EQ(t.cpu_mask, -1);
  Env empty;
  for (const EnvironmentVariable& v : engine_environment()) empty[v.name] = "";
  EngineTuning e;
  ASSERT_TRUE(read(empty, &e));
  EXPECT_EQ(e.upload_stream, -1);
  EXPECT_EQ(e.lanes, 0u);
  EXPECT_EQ(e.upload_gate, -1);
  EXPECT_EQ(e.graphs, -1);
  EXPECT_EQ(e.copy_threads, -1);
  EXPECT_EQ(e.slots, 0u);
  EXPECT_EQ(e.cambi_block_below, -1);
  EXPECT_EQ(e.cambi_rows, 0u);
  EXPECT_FALSE(e.sync_launches);
  EXPECT_EQ(e.cpu_mask, -1);
}

TEST(Tuning, ReadsEveryVariableIntoItsSetting) {
  EngineTuning t;
  ASSERT_TRUE(read({{"VMAFX_HIP_UPLOAD_STREAM", "0"}, {"VMAFX_HIP_LANES", "3"}, {"VMAFX_HIP_UPLOAD_GATE", "1"},
                    {"VMAFX_HIP_GRAPHS", "0"}, {"VMAFX_HIP_COPY_THREADS", "0"}, {"VMAFX_HIP_SLOTS", "64"}, {"VMAFX_HIP_CAMBI_BLOCK_BELOW", "0"},
                    {"VMAFX_HIP_CAMBI_ROWS", "4096"}, {"VMAFX_HIP_SYNC_LAUNCHES", "1"}, {"VMAFX_CPUMASK", "0xffff"}},
                   &t));
  EXPECT_EQ(t.upload_stream, 0);
  EXPECT_EQ(t.lanes, 3u);
  EXPECT_EQ(t.upload_gate, 1);
  EXPECT_EQ(t.graphs, 0);
  EXPECT_EQ(t.copy_threads, 0);
  EXPECT_EQ(t.slots, 64u);
  EXPECT_EQ(t.cambi_block_below, 0);
  EXPECT_EQ(t.cambi_rows, 4096u);
  EXPECT_TRUE(t.sync_launches);
  EXPECT_EQ(t.cpu_mask, 0xffff);
  ASSERT_TRUE(read({{"VMAFX_CPUMASK", "16"}, {"VMAFX_HIP_UPLOAD_STREAM", "1"}}, &t));
  EXPECT_EQ(t.cpu_mask, 16);
  EXPECT_EQ(t.upload_stream, 1);
  EXPECT_EQ(t.lanes, 0u) << "a read starts from the defaults";
}

TEST(Tuning, RefusesWhatAVariableDoesNotAccept) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"VMAFX_HIP_UPLOAD_STREAM", "yes"}, {"VMAFX_HIP_UPLOAD_STREAM", "2"}, {"VMAFX_HIP_LANES", "0"},
      {"VMAFX_HIP_LANES", "8"},           {"VMAFX_HIP_LANES", "3x"},        {"VMAFX_HIP_LANES", "-1"},
      {"VMAFX_HIP_LANES", " 3"},          {"VMAFX_HIP_UPLOAD_GATE", "on"},  {"VMAFX_HIP_COPY_THREADS", "64"},
      {"VMAFX_HIP_GRAPHS", "2"},
      {"VMAFX_HIP_SLOTS", "1"},           {"VMAFX_HIP_SLOTS", "65"},
      {"VMAFX_HIP_CAMBI_BLOCK_BELOW", "4294967296"},
      {"VMAFX_HIP_CAMBI_ROWS", "0"},      {"VMAFX_HIP_SYNC_LAUNCHES", "true"}, {"VMAFX_CPUMASK", "0xg"},
      {"VMAFX_CPUMASK", "avx2"},          {"VMAFX_CPUMASK", "99999999999999999999"},
  };
  for (const auto& [name, value] : bad) {
    EngineTuning t;
    t.lanes = 5;
    Status s = read({{name, value}}, &t);
    ASSERT_FALSE(s) << name << "=" << value;
    EXPECT_EQ(s.code(), Errc::invalid_argument);
    const char* accepts = nullptr;
    for (const EnvironmentVariable& v : engine_environment())
      if (name == v.name) accepts = v.accepts;
    ASSERT_NE(accepts, nullptr) << name;
    EXPECT_EQ(s.message(), name + " must be " + accepts + ", not '" + value + "'");
    EXPECT_EQ(t.lanes, 5u) << "a refused read leaves *out alone";
  }
}

TEST(Tuning, CliReadsItsOwnVariablesAndTheEngines) {
  auto parse = [](const Env& env, tools::CliEnvironment* out) {
    return tools::parse_environment([&](const char* name) -> const char* {
      auto it = env.find(name);
      return it == env.end() ? nullptr : it->second.c_str();
    }, out);
  };
  tools::CliEnvironment e;
  ASSERT_TRUE(parse({}, &e));
  EXPECT_TRUE(e.mmap);
  EXPECT_EQ(e.prefetch, 2u);
  EXPECT_FALSE(e.trace);
  ASSERT_TRUE(parse({{"VMAFX_READER", "read"}, {"VMAFX_PREFETCH", "0"}, {"VMAFX_TRACE", "1"},
                     {"VMAFX_HIP_LANES", "2"}}, &e));
  EXPECT_FALSE(e.mmap);
  EXPECT_EQ(e.prefetch, 0u);
  EXPECT_TRUE(e.trace);
  EXPECT_EQ(e.tuning.lanes, 2u);
  for (const auto& [name, value, message] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"VMAFX_READER", "fast", "VMAFX_READER must be read or mmap, not 'fast'"},
           {"VMAFX_PREFETCH", "17", "VMAFX_PREFETCH must be an integer 0..16, not '17'"},
           {"VMAFX_TRACE", "yes", "VMAFX_TRACE must be 0 or 1, not 'yes'"},
           {"VMAFX_HIP_SLOTS", "1", "VMAFX_HIP_SLOTS must be an integer 2..64, not '1'"}}) {
    Status s = parse({{name, value}}, &e);
    ASSERT_FALSE(s) << name;
    EXPECT_EQ(s.message(), message);
  }
}

// docs/cli.md's Environment table: one row per variable of the programs' tables, in their order, and no other.
TEST(Tuning, DocumentedTableIsTheProgramsTable) {
  std::ifstream f(test::project_source_dir() + "/docs/cli.md");
  ASSERT_TRUE(f) << "docs/cli.md";
  std::vector<std::string> documented;
  bool inside = false;
  const std::regex row(R"(^\| `(VMAFX_[A-Z0-9_]+)` \|)");
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("<!-- environment table", 0) == 0) inside = true;
    if (line.rfind("<!-- end of environment table", 0) == 0) inside = false;
    std::smatch m;
    if (inside && std::regex_search(line, m, row)) documented.push_back(m[1]);
  }
  std::vector<std::string> programs;
  for (const EnvironmentVariable& v : tools::cli_environment_table()) programs.push_back(v.name);
  for (const EnvironmentVariable& v : engine_environment()) programs.push_back(v.name);
  EXPECT_EQ(documented, programs);
}

std::string run_capture(const std::string& command) {
  std::string out;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return "popen failed";
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  return out + "\n[exit " + std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1) + "]";
}

std::string tmp(const std::string& name) { return ::testing::TempDir() + "/vmafx_tuning_" + name; }

// Read before anything else: the inputs named here do not exist, and the variable is what the run stops on.
TEST(Tuning, VmafxScoreRefusesABadValueAtStart) {
  const std::string out = run_capture("VMAFX_HIP_LANES=9 " VMAFX_SCORE_PATH " -r " + tmp("absent_ref.yuv") +
                                      " -d " + tmp("absent_dist.yuv") + " -w 320 -h 240 -q");
  EXPECT_NE(out.find("vmafx-score: VMAFX_HIP_LANES must be an integer 1..7, not '9'"), std::string::npos) << out;
  EXPECT_EQ(out.find("absent_ref"), std::string::npos) << out;
  EXPECT_NE(out.find("[exit 1]"), std::string::npos) << out;
}

// gst-launch-1.0 is bounded: when a second error (the other source's not-negotiated) arrives while it reports the
// first, gst-launch 1.22 now and then stays in its main loop after printing both (seen about once in 100 runs on a
// loaded machine; every element thread was idle then), so `timeout` ends it after 60 s. The element's message is
// what is checked.
TEST(Tuning, ElementRefusesABadValueWhenItMakesItsScorer) {
#ifndef VMAFX_PLUGIN_DIR
  GTEST_SKIP() << "this build has no GStreamer element";
#else
  if (std::system("command -v gst-launch-1.0 >/dev/null 2>&1 && command -v timeout >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "gst-launch-1.0 or timeout not found";
  const std::string registry = tmp("registry.bin");
  const std::string out = run_capture(
      "GST_PLUGIN_PATH_1_0=" VMAFX_PLUGIN_DIR " GST_REGISTRY_1_0=" + registry + " GST_REGISTRY_FORK=no "
      "VMAFX_HIP_SLOTS=100 timeout -k 10 60 gst-launch-1.0 -q videotestsrc num-buffers=3 ! "
      "video/x-raw,width=64,height=64 ! v.ref_sink videotestsrc num-buffers=3 ! video/x-raw,width=64,height=64 ! "
      "v.dist_sink vmafxhip name=v backend=cpu ! fakesink");
  EXPECT_NE(out.find("VMAFX_HIP_SLOTS must be an integer 2..64, not '100'"), std::string::npos) << out;
  EXPECT_EQ(out.find("[exit 0]"), std::string::npos) << out;
  if (out.find("[exit 124]") != std::string::npos || out.find("[exit 137]") != std::string::npos)
    std::printf("gst-launch-1.0 did not end by itself after the error within 60 s (ended by timeout)\n");
  std::remove(registry.c_str());
#endif
}

}  // namespace
}  // namespace vmafx
