// SPDX-License-Identifier: LGPL-2.1-or-later
// make_fixtures [--libvmaf-layout] DIR: writes every generated test pair (tests/support/fixtures.h) into DIR and
// prints, one line per pair, what libvmaf's CLI needs to read it: reference, distorted, width, height, pixel
// format, bit depth, frames. --libvmaf-layout writes the chroma planes floor-sized, the layout libvmaf 3.2's CLI
// reads at odd sizes (the same scores: libvmaf never reads the last chroma column or row there).
#include <cstdio>
#include <cstring>
#include <vector>

#include "fixtures.h"
#include "support.h"

int main(int argc, char** argv) {
  using namespace vmafx::test;
  const bool floor_chroma = argc == 3 && std::strcmp(argv[1], "--libvmaf-layout") == 0;
  if (argc != 2 && !floor_chroma) {
    std::fprintf(stderr, "usage: make_fixtures [--libvmaf-layout] DIR\n");
    return 2;
  }
  const char* dir = argv[argc - 1];
  std::vector<FixtureSpec> all = fixture_specs();
  all.push_back(long_fixture_spec());
  for (const FixtureSpec& s : all) {
    const vmafx::Status st = write_fixture(s, dir, floor_chroma);
    if (!st) {
      std::fprintf(stderr, "make_fixtures: %s\n", st.message().c_str());
      return 1;
    }
    std::printf("%s_ref.yuv %s_%s.yuv %u %u %s %u %u\n", s.prefix, s.prefix, distortion_name(s.distortion), s.width,
                s.height, chroma_arg(s.chroma), s.bpc, s.frames);
  }
  return 0;
}
