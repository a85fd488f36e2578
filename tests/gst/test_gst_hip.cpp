// SPDX-License-Identifier: LGPL-2.1-or-later
// The element on the GPU: the public clips and the shipped sample through real pipelines with backend=hip give
// exactly the frame and pooled messages of backend=cpu (every field, ==). Skips with the reason where no GPU exists
// (CI); runs on a GPU are recorded in docs/gpu-testing.md.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "gst_harness.h"
#include "support.h"
#include "vmafx/scorer.h"

namespace vmafx::test {
namespace {

bool gpu_usable(std::string* why) {
  ScorerConfig cfg;
  cfg.backend = Backend::hip;
  std::unique_ptr<Scorer> s;
  Status st = Scorer::create(cfg, {64, 64, 8, Chroma::k420}, &s);
  if (!st.is_ok()) *why = st.message();
  return st.is_ok();
}

std::string launch(const std::string& ref, const std::string& dist, uint32_t w, uint32_t h, unsigned bpc,
                   const std::string& props) {
  return raw_yuv_source(ref, w, h, bpc) + " ! v.ref_sink " + raw_yuv_source(dist, w, h, bpc) +
         " ! v.dist_sink vmafxhip name=v " + props + " ! fakesink";
}

// Every field of every message, exactly.
void expect_same_messages(const RunResult& cpu, const RunResult& hip, const std::string& ctx) {
  ASSERT_TRUE(cpu.eos && cpu.errors.empty()) << ctx << " cpu: " << cpu.describe_errors();
  ASSERT_TRUE(hip.eos && hip.errors.empty()) << ctx << " hip: " << hip.describe_errors();
  ASSERT_EQ(cpu.frames.size(), hip.frames.size()) << ctx;
  ASSERT_GT(cpu.frames.size(), 0u) << ctx;
  size_t fields = 0;
  for (size_t i = 0; i < cpu.frames.size(); i++) {
    const GstStructure* a = cpu.frames[i].get();
    const GstStructure* b = hip.frames[i].get();
    ASSERT_EQ(gst_structure_n_fields(a), gst_structure_n_fields(b)) << ctx << " frame " << i;
    for (int k = 0; k < gst_structure_n_fields(a); k++) {
      const char* name = gst_structure_nth_field_name(a, guint(k));
      const GValue* va = gst_structure_get_value(a, name);
      const GValue* vb = gst_structure_get_value(b, name);
      ASSERT_NE(vb, nullptr) << ctx << " frame " << i << " lacks " << name << " on hip";
      EXPECT_EQ(gst_value_compare(va, vb), GST_VALUE_EQUAL)
          << ctx << " frame " << i << " " << name << ": cpu " << gst_value_serialize(va) << ", hip "
          << gst_value_serialize(vb);
      fields++;
    }
  }
  ASSERT_EQ(cpu.pooled.size(), 1u) << ctx;
  ASSERT_EQ(hip.pooled.size(), 1u) << ctx;
  EXPECT_TRUE(gst_structure_is_equal(cpu.pooled[0].get(), hip.pooled[0].get()))
      << ctx << "\ncpu: " << gst_structure_to_string(cpu.pooled[0].get())
      << "\nhip: " << gst_structure_to_string(hip.pooled[0].get());
  std::printf("[ info     ] %s: %zu frames, %zu fields identical on hip and cpu\n", ctx.c_str(), cpu.frames.size(),
              fields);
}

class ElementHip : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!gst_ready(&why)) GTEST_SKIP() << why;
    if (!gpu_usable(&why)) GTEST_SKIP() << "no usable GPU (" << why << "): backend=hip runs on a GPU machine";
  }
};

// The generated pairs (every subsampling, 8 and 10 bits, odd sizes) and the public pairs present.
TEST_F(ElementHip, PairsEqualCpu) {
  const std::string props = " psnr=true ssim=true ms-ssim=true threads=2";
  size_t pairs = 0;
  for (const Pair& p : oracle_pairs()) {
    auto pair_launch = [&](const std::string& backend) {
      return pair_source(p, false) + " ! v.ref_sink " + pair_source(p, true) + " ! v.dist_sink vmafxhip name=v " +
             backend + props + " ! fakesink";
    };
    const RunResult cpu = run_pipeline(pair_launch("backend=cpu"));
    const RunResult hip = run_pipeline(pair_launch("backend=hip"));
    expect_same_messages(cpu, hip, p.prefix + "_" + p.distorted);
    pairs++;
  }
  EXPECT_GE(pairs, generated_pairs().size());
  std::printf("[ info     ] %zu pairs compared\n", pairs);
}

TEST_F(ElementHip, SamplePairEqualsCpuWithSubsampleAndNeg) {
  const std::string dir = temp_path("sample");
  const std::string ref = dir + "_ref.yuv", dist = dir + "_dist.yuv";
  const std::string src = project_source_dir() + "/samples/sample_320x240_";
  ASSERT_EQ(std::system(("gunzip -c " + src + "ref.yuv.gz > " + ref + " && gunzip -c " + src + "dist.yuv.gz > " +
                         dist).c_str()),
            0);
  for (const std::string& props : {std::string(" subsample=2"), std::string(" model-filename=vmaf_v0.6.1neg"),
                                   std::string(" model-filename=vmaf_b_v0.6.3 conf-interval=true")}) {
    const RunResult cpu = run_pipeline(launch(ref, dist, 320, 240, 8, "backend=cpu" + props));
    const RunResult hip = run_pipeline(launch(ref, dist, 320, 240, 8, "backend=hip" + props));
    expect_same_messages(cpu, hip, "sample" + props);
  }
}

}  // namespace
}  // namespace vmafx::test
