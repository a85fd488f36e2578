// SPDX-License-Identifier: LGPL-2.1-or-later
// RGBA to luma: the integer coefficients follow from the BT.601 / BT.709 definitions, every one of the 2^24 RGB
// triples lands within rounding of the exact conversion, greys and the extremes map where the document says, and
// the host function (the GL download fallback) writes what the kernel's per-pixel function computes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "hip/kernels/rgba_luma_impl.h"
#include "vmafx/gl.h"

namespace {

using vmafx::gl::LumaConversion;
using vmafx::gl::RgbMatrix;
using vmafx::gl::RgbRange;

struct Variant {
  RgbMatrix matrix;
  RgbRange range;
  int matrix_id, range_id;
  // Kr, Kb as exact fractions, and the range scale 219/255 or 1.
  int64_t kr_num, kb_num, k_den;
  int64_t scale_num, scale_den;
};

const Variant kVariants[] = {
    {RgbMatrix::bt601, RgbRange::full, RGBA_LUMA_BT601, RGBA_LUMA_FULL_RANGE, 299, 114, 1000, 219, 255},
    {RgbMatrix::bt601, RgbRange::limited, RGBA_LUMA_BT601, RGBA_LUMA_LIMITED_RANGE, 299, 114, 1000, 1, 1},
    {RgbMatrix::bt709, RgbRange::full, RGBA_LUMA_BT709, RGBA_LUMA_FULL_RANGE, 2126, 722, 10000, 219, 255},
    {RgbMatrix::bt709, RgbRange::limited, RGBA_LUMA_BT709, RGBA_LUMA_LIMITED_RANGE, 2126, 722, 10000, 1, 1},
};

// round(num / den) for positive values, in integers.
int64_t round_div(int64_t num, int64_t den) { return (2 * num + den) / (2 * den); }

TEST(RgbaLuma, CoefficientsFollowFromTheMatrixDefinitions) {
  for (const Variant& v : kVariants) {
    const RgbaLumaCoeffs c = rgba_luma_coeffs(v.matrix_id, v.range_id);
    const int64_t den = v.k_den * v.scale_den;
    const int64_t cr = round_div(v.kr_num * v.scale_num * 65536, den);
    const int64_t cb = round_div(v.kb_num * v.scale_num * 65536, den);
    const int64_t total = round_div(v.scale_num * 65536, v.scale_den);
    EXPECT_EQ(int64_t(c.cr), cr) << vmafx::gl::matrix_name(v.matrix) << " " << vmafx::gl::range_name(v.range);
    EXPECT_EQ(int64_t(c.cb), cb) << vmafx::gl::matrix_name(v.matrix) << " " << vmafx::gl::range_name(v.range);
    EXPECT_EQ(int64_t(c.cr) + c.cg + c.cb, total) << "the three coefficients sum to round(65536 * scale)";
    // cg is the remainder; it stays within one unit of its own rounded value.
    const int64_t cg_exact = round_div((v.k_den - v.kr_num - v.kb_num) * v.scale_num * 65536, den);
    EXPECT_LE(std::llabs(int64_t(c.cg) - cg_exact), 1);
    EXPECT_EQ(c.offset, v.range == RgbRange::full ? (16u << 16) + 32768u : 32768u);
  }
}

TEST(RgbaLuma, EveryRgbTripleIsWithinRoundingOfTheExactConversion) {
  for (const Variant& v : kVariants) {
    const RgbaLumaCoeffs c = rgba_luma_coeffs(v.matrix_id, v.range_id);
    const double kr = double(v.kr_num) / v.k_den, kb = double(v.kb_num) / v.k_den, kg = 1.0 - kr - kb;
    const double scale = double(v.scale_num) / v.scale_den;
    const double off = v.range == RgbRange::full ? 16.0 : 0.0;
    double worst = 0;
    uint32_t worst_rgb = 0;
    for (uint32_t rgb = 0; rgb < (1u << 24); rgb++) {
      const vx_u8 px[4] = {vx_u8(rgb >> 16), vx_u8(rgb >> 8), vx_u8(rgb), 255};
      const double exact = off + scale * (kr * px[0] + kg * px[1] + kb * px[2]);
      const double d = std::fabs(double(rgba_luma_pixel(px, c)) - exact);
      if (d > worst) {
        worst = d;
        worst_rgb = rgb;
      }
    }
    std::printf("%s %s: worst |Y - exact| = %.4f at RGB %06x\n", vmafx::gl::matrix_name(v.matrix),
                vmafx::gl::range_name(v.range), worst, worst_rgb);
    // Rounding to nearest gives 0.5; the Q16 coefficients add at most 255 * 3 * 0.5 / 65536 = 0.006.
    EXPECT_LE(worst, 0.5 + 0.006) << "RGB " << std::hex << worst_rgb;
  }
}

TEST(RgbaLuma, GreysAndExtremesMapAsDocumented) {
  for (const Variant& v : kVariants) {
    const RgbaLumaCoeffs c = rgba_luma_coeffs(v.matrix_id, v.range_id);
    for (unsigned g = 0; g < 256; g++) {
      const vx_u8 px[4] = {vx_u8(g), vx_u8(g), vx_u8(g), 0};
      const unsigned y = rgba_luma_pixel(px, c);
      if (v.range == RgbRange::limited) {
        ASSERT_EQ(y, g) << "limited-range grey " << g << " keeps its value";
      } else {
        ASSERT_EQ(y, unsigned((16 * 65536 + 56284 * g + 32768) >> 16));
        ASSERT_EQ(int(y), int(std::floor(16.0 + 219.0 * g / 255.0 + 0.5))) << "full-range grey " << g;
      }
    }
    const vx_u8 black[4] = {0, 0, 0, 255}, white[4] = {255, 255, 255, 255};
    EXPECT_EQ(rgba_luma_pixel(black, c), v.range == RgbRange::full ? 16 : 0);
    EXPECT_EQ(rgba_luma_pixel(white, c), v.range == RgbRange::full ? 235 : 255);
  }
  // Hand-computed values (BT.601, full range): red 16 + 219 * 0.299 = 81.48 -> 81, green 16 + 219 * 0.587 =
  // 144.55 -> 145, blue 16 + 219 * 0.114 = 40.97 -> 41.
  const RgbaLumaCoeffs c601 = rgba_luma_coeffs(RGBA_LUMA_BT601, RGBA_LUMA_FULL_RANGE);
  const vx_u8 red[4] = {255, 0, 0, 0}, green[4] = {0, 255, 0, 0}, blue[4] = {0, 0, 255, 0};
  EXPECT_EQ(rgba_luma_pixel(red, c601), (16829u * 255 + 1081344u) >> 16);
  EXPECT_EQ(rgba_luma_pixel(red, c601), 81);
  EXPECT_EQ(rgba_luma_pixel(green, c601), (33039u * 255 + 1081344u) >> 16);
  EXPECT_EQ(rgba_luma_pixel(green, c601), 145);
  EXPECT_EQ(rgba_luma_pixel(blue, c601), (6416u * 255 + 1081344u) >> 16);
  EXPECT_EQ(rgba_luma_pixel(blue, c601), 41);
}

TEST(RgbaLuma, HostConversionWritesThePerPixelFunctionAtAnyStride) {
  std::mt19937 rng(1234);
  const uint32_t sizes[][2] = {{1, 1}, {7, 3}, {321, 241}, {64, 2}, {1920, 4}};
  for (const Variant& v : kVariants) {
    const RgbaLumaCoeffs c = rgba_luma_coeffs(v.matrix_id, v.range_id);
    for (const auto& s : sizes) {
      const uint32_t w = s[0], h = s[1];
      const ptrdiff_t rs = ptrdiff_t(w) * 4 + 12, ls = ptrdiff_t(w) + 5;
      std::vector<uint8_t> rgba(size_t(rs) * h), luma(size_t(ls) * h, 0xA5);
      for (size_t i = 0; i < rgba.size(); i++) {
        const uint32_t r = rng();
        rgba[i] = (r & 7) == 0 ? 0 : (r & 7) == 1 ? 255 : uint8_t(r >> 8);  // edge-biased
      }
      LumaConversion conv{v.matrix, v.range};
      vmafx::Status st = vmafx::gl::rgba_to_luma(rgba.data(), rs, w, h, conv, luma.data(), ls);
      ASSERT_TRUE(st.is_ok()) << st.to_string();
      for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++)
          ASSERT_EQ(luma[size_t(y) * ls + x], rgba_luma_pixel(&rgba[size_t(y) * rs + size_t(x) * 4], c))
              << w << "x" << h << " at " << x << "," << y;
        for (ptrdiff_t x = w; x < ls; x++) ASSERT_EQ(luma[size_t(y) * ls + size_t(x)], 0xA5) << "padding written";
      }
    }
  }
}

TEST(RgbaLuma, RejectsShortStridesAndNullPlanes) {
  std::vector<uint8_t> rgba(64 * 4), luma(64);
  LumaConversion conv;
  EXPECT_EQ(vmafx::gl::rgba_to_luma(rgba.data(), 63 * 4, 64, 1, conv, luma.data(), 64).code(),
            vmafx::Errc::invalid_argument);
  EXPECT_EQ(vmafx::gl::rgba_to_luma(rgba.data(), 64 * 4, 64, 1, conv, luma.data(), 63).code(),
            vmafx::Errc::invalid_argument);
  EXPECT_EQ(vmafx::gl::rgba_to_luma(nullptr, 64 * 4, 64, 1, conv, luma.data(), 64).code(),
            vmafx::Errc::invalid_argument);
  EXPECT_TRUE(vmafx::gl::rgba_to_luma(rgba.data(), 64 * 4, 64, 1, conv, luma.data(), 64).is_ok());
}

}  // namespace
