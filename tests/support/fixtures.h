// SPDX-License-Identifier: LGPL-2.1-or-later
// Generated test pairs: reference and distorted clips made by integer arithmetic alone (no floating point, no C
// library maths), so every build on every machine writes the same bytes. The suites' oracle tests run on them
// without ../shared; libvmaf's JSON for each is committed in tests/data/generated/ (its README.md gives the libvmaf
// commit and the command lines). The clips themselves are never committed: the suites write them at run time, and
// `make_fixtures DIR` (built beside the tests) writes them for libvmaf.
//
// Content: a panning scene (vertical luma gradient, value noise at two scales, diagonal stripes, a moving
// checkered disc; chroma gradients and noise) at 12-bit precision, cut down to the clip's depth, so a 10-bit clip
// has real low bits. Distortions: blur + temporal noise, block quantisation (blocking, banding, lost detail:
// compression-like), and sharpening + posterisation (ringing, banding).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::test {

enum class Distortion { blurnoise, blocky, ringing };

struct FixtureSpec {
  const char* prefix;      // "g1_352x320_8b_420": the reference is <prefix>_ref.yuv
  Distortion distortion;   // the distorted clip is <prefix>_<distortion_name()>.yuv
  uint32_t width, height;
  unsigned bpc;            // 8 or 10
  Chroma chroma;           // 4:2:0, 4:2:2 or 4:4:4
  unsigned frames;
};

const char* distortion_name(Distortion d);

// Every generated pair the oracle suites run, in a fixed order.
const std::vector<FixtureSpec>& fixture_specs();
// A longer pair (32 frames, with libvmaf's vmaf_v0.6.1 + psnr JSON only) for the tests that need frames to seek to,
// cut or drop; not among fixture_specs().
const FixtureSpec& long_fixture_spec();

// One frame as a .yuv file holds it: planar Y, Cb, Cr (chroma planes ceil-sized), one byte a sample at 8 bits,
// little-endian 16-bit words above. floor_chroma: the chroma planes cut to floor(w / 2) (and floor(h / 2) for
// 4:2:0), the layout libvmaf 3.2's CLI reads (it loses framing on the ceil-sized planes of odd sizes; the library
// never reads the last chroma column or row of an odd size, so its scores are those of the ceil-sized clip).
std::vector<uint8_t> fixture_frame(const FixtureSpec& spec, unsigned frame, bool distorted, bool floor_chroma = false);

// Writes <dir>/<prefix>_ref.yuv and <dir>/<prefix>_<distortion>.yuv (through a temporary name and a rename, so
// processes writing the same clip at once never see a partial file).
Status write_fixture(const FixtureSpec& spec, const std::string& dir, bool floor_chroma = false);

// A folder holding every generated clip (long_fixture_spec()'s too), written once per process (removed when the
// process ends).
const std::string& fixture_dir();

}  // namespace vmafx::test
