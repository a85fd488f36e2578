// SPDX-License-Identifier: LGPL-2.1-or-later
#include <gtest/gtest.h>

#include <vector>

#include "vmafx/picture.h"

namespace vmafx {
namespace {

TEST(Picture, PackedLayoutRoundsStoredChromaUp) {
  FormatInfo f;
  ASSERT_TRUE(parse_pixel_format("420", 8, &f).is_ok());
  PlaneLayout p[3];
  size_t size = 0;
  EXPECT_EQ(packed_layout(f, 321, 241, p, &size), 3u);
  EXPECT_EQ(size, 77361u + 2 * 19481u);  // the odd-size clip's frame size
  EXPECT_EQ(p[1].offset, 77361u);
  EXPECT_EQ(p[1].stride, 161);
  // libvmaf scores floor-sized chroma.
  EXPECT_EQ(chroma_width(Chroma::k420, 321), 160u);
  EXPECT_EQ(chroma_height(Chroma::k420, 241), 120u);
}

TEST(Picture, Nv12ViewsInterleavedChromaInPlace) {
  FormatInfo f;
  ASSERT_TRUE(parse_pixel_format("nv12", 8, &f).is_ok());
  std::vector<uint8_t> buf(16 * 8 + 16 * 4);
  PlaneLayout p[3];
  size_t size;
  ASSERT_EQ(packed_layout(f, 16, 8, p, &size), 2u);
  ASSERT_EQ(size, buf.size());
  PictureView v;
  ASSERT_TRUE(make_picture_view(f, 16, 8, buf.data(), buf.size(), p, 2, &v).is_ok());
  EXPECT_EQ(v.planes[1].data, buf.data() + 128);
  EXPECT_EQ(v.planes[2].data, buf.data() + 129);
  EXPECT_EQ(v.planes[1].step, 2);
  EXPECT_TRUE(validate_view(v).is_ok());
}

TEST(Picture, P010CarriesShift) {
  FormatInfo f;
  ASSERT_TRUE(parse_pixel_format("p010", 0, &f).is_ok());
  EXPECT_EQ(f.bit_depth, 10);
  std::vector<uint8_t> buf(4 * 4 * 2 + 4 * 2 * 2);
  PlaneLayout p[3];
  size_t size;
  packed_layout(f, 4, 4, p, &size);
  PictureView v;
  ASSERT_TRUE(make_picture_view(f, 4, 4, buf.data(), buf.size(), p, 2, &v).is_ok());
  EXPECT_EQ(v.shift, 6);
  EXPECT_EQ(v.bytes_per_sample, 2);
}

TEST(Picture, RejectsPlanePastEnd) {
  FormatInfo f;
  ASSERT_TRUE(parse_pixel_format("420", 8, &f).is_ok());
  PlaneLayout p[3];
  size_t size;
  packed_layout(f, 64, 64, p, &size);
  std::vector<uint8_t> buf(size - 1);
  PictureView v;
  Status s = make_picture_view(f, 64, 64, buf.data(), buf.size(), p, 3, &v);
  EXPECT_EQ(s.code(), Errc::out_of_range);
  EXPECT_NE(s.message().find("plane 2"), std::string::npos) << s.message();
}

TEST(Picture, RejectsStrideSmallerThanRow) {
  FormatInfo f;
  ASSERT_TRUE(parse_pixel_format("400", 8, &f).is_ok());
  std::vector<uint8_t> buf(64 * 64);
  PlaneLayout p[1] = {{0, 32}};
  PictureView v;
  Status s = make_picture_view(f, 64, 32, buf.data(), buf.size(), p, 1, &v);
  EXPECT_EQ(s.code(), Errc::invalid_argument);
  EXPECT_NE(s.message().find("stride"), std::string::npos);
}

TEST(Picture, RejectsUnknownFormatAndDepth) {
  FormatInfo f;
  EXPECT_EQ(parse_pixel_format("411", 8, &f).code(), Errc::unsupported);
  EXPECT_EQ(parse_pixel_format("420", 7, &f).code(), Errc::unsupported);
  EXPECT_EQ(parse_pixel_format("420", 17, &f).code(), Errc::unsupported);
  EXPECT_EQ(parse_pixel_format("nv12", 10, &f).code(), Errc::unsupported);
}

TEST(Picture, PairMustAgreeInGeometryDepthAndChroma) {
  std::vector<uint8_t> a(64 * 64 * 2 * 3), b(a.size());
  FormatInfo f8, f10, f444;
  ASSERT_TRUE(parse_pixel_format("420", 8, &f8).is_ok());
  ASSERT_TRUE(parse_pixel_format("420", 10, &f10).is_ok());
  ASSERT_TRUE(parse_pixel_format("444", 8, &f444).is_ok());
  PlaneLayout p[3];
  size_t size;
  PictureView r, d;
  packed_layout(f8, 64, 64, p, &size);
  ASSERT_TRUE(make_picture_view(f8, 64, 64, a.data(), a.size(), p, 3, &r).is_ok());
  packed_layout(f8, 32, 64, p, &size);
  ASSERT_TRUE(make_picture_view(f8, 32, 64, b.data(), b.size(), p, 3, &d).is_ok());
  EXPECT_NE(check_pair(r, d).message().find("64x64"), std::string::npos);
  packed_layout(f10, 64, 64, p, &size);
  ASSERT_TRUE(make_picture_view(f10, 64, 64, b.data(), b.size(), p, 3, &d).is_ok());
  EXPECT_NE(check_pair(r, d).message().find("10-bit"), std::string::npos);
  packed_layout(f444, 64, 64, p, &size);
  ASSERT_TRUE(make_picture_view(f444, 64, 64, b.data(), b.size(), p, 3, &d).is_ok());
  EXPECT_NE(check_pair(r, d).message().find("4:4:4"), std::string::npos);
  // NV12 against I420: same geometry, different layout: accepted.
  FormatInfo nv;
  ASSERT_TRUE(parse_pixel_format("nv12", 8, &nv).is_ok());
  unsigned n = packed_layout(nv, 64, 64, p, &size);
  ASSERT_TRUE(make_picture_view(nv, 64, 64, b.data(), b.size(), p, n, &d).is_ok());
  EXPECT_TRUE(check_pair(r, d).is_ok());
}

}  // namespace
}  // namespace vmafx
