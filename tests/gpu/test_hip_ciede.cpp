// SPDX-License-Identifier: LGPL-2.1-or-later
// ciede has no GPU kernel (its per-pixel atan2, sin, cos, exp and pow would have to be glibc's to the last bit): with
// backend=hip the scorer runs it on its CPU part beside the GPU features. Its scores there are the CPU reference's
// (== libvmaf's %.17g values, tests/data/ciede) and every GPU feature of the same pass equals backend=cpu exactly.
// Skips (exit 77) without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "gpu_device.h"
#include "support.h"
#include "vmafx/scorer.h"

namespace vmafx {
namespace {

struct Scored {
  std::vector<std::string> names;
  std::vector<FrameScore> frames;
  std::string backend;
};

Status score(const test::PairClips& c, Backend b, Scored* out) {
  ScorerConfig cfg = test::scorer_config("vmaf_v0.6.1", {"ciede", "psnr"});
  cfg.backend = b;
  cfg.threads = 2;
  test::FrameLog log;
  std::unique_ptr<Scorer> scorer;
  const PictureView f0 = c.ref.frame(0);
  VMAFX_TRY(test::make_scorer(cfg, {f0.width, f0.height, f0.bit_depth, f0.chroma}, &log, &scorer));
  for (size_t i = 0; i < c.ref.frames(); i++)
    VMAFX_TRY(scorer->submit(test::frame_pair(c.ref.frame(i), c.dist.frame(i), int64_t(i), i)));
  VMAFX_TRY(scorer->flush());
  out->names = scorer->score_names();
  out->frames = log.frames();
  out->backend = scorer->backend_description();
  return Status::ok();
}

std::string g17(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

TEST(HipCiede, RunsOnTheCpuPartWithLibvmafsValues) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  test::PairClips c;
  ASSERT_OK(test::open_sample_pair(&c));
  Scored cpu, gpu;
  ASSERT_OK(score(c, Backend::cpu, &cpu));
  ASSERT_OK(score(c, Backend::hip, &gpu));
  std::printf("%s\n", gpu.backend.c_str());
  const size_t on_cpu = gpu.backend.find("on the CPU: ");
  ASSERT_NE(on_cpu, std::string::npos) << gpu.backend;
  EXPECT_NE(gpu.backend.find("ciede", on_cpu), std::string::npos) << gpu.backend;
  ASSERT_EQ(gpu.names, cpu.names);
  ASSERT_EQ(gpu.frames.size(), c.ref.frames());
  ASSERT_EQ(cpu.frames.size(), c.ref.frames());
  for (size_t k = 0; k < gpu.frames.size(); k++)
    for (size_t j = 0; j < gpu.names.size(); j++)
      EXPECT_EQ(g17(gpu.frames[k].values[j]), g17(cpu.frames[k].values[j])) << gpu.names[j] << " frame " << k;
  test::Oracle o;
  ASSERT_OK(test::load_oracle(test::project_data_dir() + "/ciede/sample_320x240_dist.ciede.json", &o));
  ASSERT_EQ(o.frames.size(), gpu.frames.size());
  for (size_t k = 0; k < o.frames.size(); k++)
    EXPECT_EQ(g17(gpu.frames[k].get("ciede2000", gpu.names)), g17(o.frames[k].at("ciede2000"))) << "frame " << k;
}

}  // namespace
}  // namespace vmafx
