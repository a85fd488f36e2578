// SPDX-License-Identifier: LGPL-2.1-or-later
// Clips derived from the shipped sample pair (samples/, 8-bit 4:2:0 320x240) for the tests of psnr's and the float
// SSIMs' options: deeper samples (10-bit 4:2:0, 12-bit 4:2:2, 16-bit 4:4:4; the sample's values shifted up with a
// fixed pattern in the new low bits), a 640x480 copy (each sample repeated 2x2, so float_ssim's automatic scale is 2),
// and identical pairs (the reference against itself: infinite PSNR, SSIM 1). Their libvmaf scores are
// tests/data/psnr_ssim_options.json (tests/data/README.md says how they were made); VMAFX_DUMP_DERIVED_CLIPS=<dir>
// makes test_cpu_psnr_ssim write the clips there for libvmaf.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support.h"
#include "vmafx/status.h"

namespace vmafx::test {

struct DerivedClip {
  const char* name;    // "d10", "d10_same", ...
  uint32_t width, height;
  unsigned bpc;
  const char* chroma;  // libvmaf's -p: "420", "422", "444"
  unsigned frames;     // the first frames of the sample pair
  bool identical;      // dist = ref
};

const std::vector<DerivedClip>& derived_clips();
const DerivedClip* find_derived_clip(const std::string& name);

// Writes <dir>/<name>_ref.yuv and <dir>/<name>_dist.yuv: planar, 16-bit little-endian words above 8 bits.
Status write_derived_clip(const DerivedClip& c, const std::string& dir);
// The clip written once per process into a temporary folder and opened.
Status open_derived_clip(const DerivedClip& c, PairClips* out);
// The clip's geometry.
VideoGeometry derived_geometry(const DerivedClip& c);

}  // namespace vmafx::test
