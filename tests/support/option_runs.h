// SPDX-License-Identifier: LGPL-2.1-or-later
// The option sets of psnr, float_ssim and float_ms_ssim that the tests score on the derived clips (derived_clips.h),
// in libvmaf's --feature syntax, and libvmaf's full-precision JSON of each (tests/data/psnr_ssim_options.json,
// one entry "<clip>/<run>"). test_cpu_psnr_ssim compares the CPU with libvmaf; test_hip_scorer the GPU with the CPU.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "derived_clips.h"
#include "support.h"
#include "vmafx/scorer.h"

namespace vmafx::test {

struct OptionRun {
  const char* name;
  std::vector<const char*> features;  // libvmaf --feature arguments ("psnr=enable_apsnr=true:min_sse=0.5")
  std::vector<const char*> clips;     // derived clip names
  unsigned subsample = 1;
  unsigned threads = 0;
};
const std::vector<OptionRun>& option_runs();
// The run's libvmaf command-line arguments after the inputs ("--feature ... [--subsample N]").
std::string libvmaf_args(const OptionRun& run);
// libvmaf's "name=opt=val:opt=val" as a FeatureRequest.
FeatureRequest parse_feature_arg(const std::string& arg);

struct OptionRunResult {
  std::string backend;                 // Scorer::backend_description()
  std::vector<std::string> names;      // score columns
  std::vector<FrameScore> frames;      // the scored frames, in order
  std::vector<std::pair<std::string, double>> aggregates;
};
// Scores the clip with the run's features and no model.
Status score_option_run(const OptionRun& run, const DerivedClip& c, const PairClips& clips, Backend backend,
                        unsigned threads, OptionRunResult* out);

struct OptionRunComparison {
  unsigned values = 0;       // values compared
  double max_diff = 0;       // largest |ours - libvmaf| among finite values
  std::string max_diff_at;   // where ("frame 3 psnr_cb")
  std::string problems;      // empty: every column, frame and aggregate agrees exactly
};
// Against one entry of psnr_ssim_options.json: the same frames, the same columns in the same order with the same
// values (libvmaf's null: not finite), the same aggregate metrics. Values must be equal, not close.
OptionRunComparison compare_with_libvmaf(const OptionRunResult& got, const nlohmann::ordered_json& entry);
// Two results of the same run (GPU against CPU): names, frames and aggregates bit for bit (NaN equal to NaN).
std::string compare_results(const OptionRunResult& want, const OptionRunResult& got);

Status load_json(const std::string& path, nlohmann::ordered_json* out);

}  // namespace vmafx::test
