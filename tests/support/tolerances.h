// SPDX-License-Identifier: LGPL-2.1-or-later
// Every tolerance the suites use against libvmaf's JSON, with its reason. GPU-vs-CPU comparisons use none: they
// are exact.
#pragma once

#include <string>

namespace vmafx::test {

// libvmaf prints 6 decimals: a value equal to ours prints within 5e-7 of it; 2e-6 leaves room for the rounding of
// the printed value only, not for a different computation.
constexpr double kIntegerFeatureTol = 2e-6;
// VMAF: the SVM and transforms run in double in both; 1e-4 is the product requirement.
constexpr double kVmafTol = 1e-4;
// PSNR in dB.
constexpr double kPsnrTol = 1e-4;
// float SSIM / MS-SSIM (float arithmetic, same order as libvmaf).
constexpr double kSsimTol = 1e-5;

// SSIMULACRA 2 against its reference tool (run on the engine's own R'G'B', tests/data/ssimulacra2/README.md): the
// tool prints 8 decimals, and the score's sums over a scale are added in another order (segments of rows, in double):
// measured within 5e-9 on every oracle frame; 1e-6 leaves room for the printed rounding and that order, not for a
// different computation (the product requirement is 1e-4).
constexpr double kSsimulacra2VsReference = 1e-6;

inline double tolerance_for(const std::string& metric) {
  if (metric.rfind("vmaf", 0) == 0) return kVmafTol;
  if (metric.rfind("psnr", 0) == 0) return kPsnrTol;
  if (metric.find("ssim") != std::string::npos) return kSsimTol;
  return kIntegerFeatureTol;
}

}  // namespace vmafx::test
