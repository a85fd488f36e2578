// SPDX-License-Identifier: LGPL-2.1-or-later
// Every system-memory format of the caps template, fed through appsrc in two layouts: GStreamer's default (no video
// meta) and padded strides with gaps between planes described by a GstVideoMeta. The samples come from the odd-size
// pair c (321x241), scaled to the format's bit depth and chroma layout; the element's messages must equal, bit for
// bit, the engine scoring the same samples from a plain planar layout, and for the 8-bit formats whose luma is the
// file's, libvmaf's scores of pair c.
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "gst_harness.h"
#include "support.h"
#include "tolerances.h"
#include "vmafx/scorer.h"

namespace vmafx::test {
namespace {

struct FormatCase {
  GstVideoFormat format;
  Chroma chroma;
  unsigned depth;
};

const FormatCase kFormats[] = {
    {GST_VIDEO_FORMAT_I420, Chroma::k420, 8},       {GST_VIDEO_FORMAT_YV12, Chroma::k420, 8},
    {GST_VIDEO_FORMAT_NV12, Chroma::k420, 8},       {GST_VIDEO_FORMAT_NV21, Chroma::k420, 8},
    {GST_VIDEO_FORMAT_Y42B, Chroma::k422, 8},       {GST_VIDEO_FORMAT_Y444, Chroma::k444, 8},
    {GST_VIDEO_FORMAT_GRAY8, Chroma::k400, 8},      {GST_VIDEO_FORMAT_I420_10LE, Chroma::k420, 10},
    {GST_VIDEO_FORMAT_I422_10LE, Chroma::k422, 10}, {GST_VIDEO_FORMAT_Y444_10LE, Chroma::k444, 10},
    {GST_VIDEO_FORMAT_I420_12LE, Chroma::k420, 12}, {GST_VIDEO_FORMAT_I422_12LE, Chroma::k422, 12},
    {GST_VIDEO_FORMAT_Y444_12LE, Chroma::k444, 12}, {GST_VIDEO_FORMAT_P010_10LE, Chroma::k420, 10},
    {GST_VIDEO_FORMAT_P016_LE, Chroma::k420, 16},   {GST_VIDEO_FORMAT_GRAY16_LE, Chroma::k400, 16},
};

// One picture as sample planes (Y, Cb, Cr) at a bit depth and chroma layout.
struct Samples {
  uint32_t w = 0, h = 0, cw = 0, ch = 0;
  unsigned depth = 8;
  Chroma chroma = Chroma::k420;
  std::vector<uint32_t> y, u, v;
};

// Pair c's 8-bit 4:2:0 frame, scaled to `depth` bits and upsampled (nearest) to the chroma layout.
Samples convert(const PictureView& src, Chroma chroma, unsigned depth) {
  Samples s;
  s.w = src.width;
  s.h = src.height;
  s.depth = depth;
  s.chroma = chroma;
  s.cw = chroma_width_stored(chroma, s.w);
  s.ch = chroma_height_stored(chroma, s.h);
  const unsigned shift = depth - 8;
  s.y.resize(size_t(s.w) * s.h);
  for (uint32_t r = 0; r < s.h; r++)
    for (uint32_t c = 0; c < s.w; c++) s.y[size_t(r) * s.w + c] = uint32_t(src.planes[0].data[r * src.planes[0].stride + c]) << shift;
  if (chroma == Chroma::k400) return s;
  s.u.resize(size_t(s.cw) * s.ch);
  s.v.resize(size_t(s.cw) * s.ch);
  const uint32_t sx = chroma == Chroma::k444 ? 1 : 0;  // source chroma is 4:2:0
  const uint32_t sy = chroma == Chroma::k420 ? 0 : 1;
  for (uint32_t r = 0; r < s.ch; r++) {
    for (uint32_t c = 0; c < s.cw; c++) {
      const uint32_t rr = r >> sy, cc = c >> sx;
      s.u[size_t(r) * s.cw + c] = uint32_t(src.planes[1].data[rr * src.planes[1].stride + cc]) << shift;
      s.v[size_t(r) * s.cw + c] = uint32_t(src.planes[2].data[rr * src.planes[2].stride + cc]) << shift;
    }
  }
  return s;
}

void put(uint8_t* p, unsigned bytes, uint32_t v) {
  if (bytes == 1) {
    *p = uint8_t(v);
  } else {
    p[0] = uint8_t(v & 0xff);
    p[1] = uint8_t(v >> 8);
  }
}

// The samples as a GstBuffer of `format`: GStreamer's default layout, or padded strides and plane gaps described by
// a video meta.
GstBuffer* make_buffer(const Samples& s, GstVideoFormat format, bool padded) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, s.w, s.h);
  const unsigned n_planes = GST_VIDEO_INFO_N_PLANES(&info);
  const unsigned bytes = s.depth > 8 ? 2 : 1;
  const bool semi = format == GST_VIDEO_FORMAT_NV12 || format == GST_VIDEO_FORMAT_NV21 ||
                    format == GST_VIDEO_FORMAT_P010_10LE || format == GST_VIDEO_FORMAT_P016_LE;
  const unsigned word_shift = format == GST_VIDEO_FORMAT_P010_10LE ? 6 : 0;
  gsize offsets[GST_VIDEO_MAX_PLANES] = {};
  gint strides[GST_VIDEO_MAX_PLANES] = {};
  gsize size = 0;
  for (unsigned i = 0; i < n_planes; i++) {
    if (padded) {
      const size_t row = (i == 0 ? s.w : (semi ? 2 * s.cw : s.cw)) * bytes;
      const uint32_t rows = i == 0 ? s.h : s.ch;
      offsets[i] = size + 96;
      strides[i] = gint((row + 63) / 64 * 64 + 64);
      size = offsets[i] + size_t(strides[i]) * rows;
    } else {
      offsets[i] = GST_VIDEO_INFO_PLANE_OFFSET(&info, i);
      strides[i] = GST_VIDEO_INFO_PLANE_STRIDE(&info, i);
    }
  }
  if (!padded) size = GST_VIDEO_INFO_SIZE(&info);
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, size, nullptr);
  GstMapInfo map;
  gst_buffer_map(buf, &map, GST_MAP_WRITE);
  std::memset(map.data, 0xA5, map.size);  // garbage in the padding
  auto row = [&](unsigned plane, uint32_t r) { return map.data + offsets[plane] + size_t(strides[plane]) * r; };
  for (uint32_t r = 0; r < s.h; r++)
    for (uint32_t c = 0; c < s.w; c++) put(row(0, r) + size_t(c) * bytes, bytes, s.y[size_t(r) * s.w + c] << word_shift);
  if (s.chroma != Chroma::k400) {
    const bool swap = format == GST_VIDEO_FORMAT_YV12 || format == GST_VIDEO_FORMAT_NV21;
    const std::vector<uint32_t>& first = swap ? s.v : s.u;
    const std::vector<uint32_t>& second = swap ? s.u : s.v;
    for (uint32_t r = 0; r < s.ch; r++) {
      for (uint32_t c = 0; c < s.cw; c++) {
        const size_t k = size_t(r) * s.cw + c;
        if (semi) {
          put(row(1, r) + size_t(2 * c) * bytes, bytes, first[k] << word_shift);
          put(row(1, r) + size_t(2 * c + 1) * bytes, bytes, second[k] << word_shift);
        } else {
          put(row(1, r) + size_t(c) * bytes, bytes, first[k]);
          put(row(2, r) + size_t(c) * bytes, bytes, second[k]);
        }
      }
    }
  }
  gst_buffer_unmap(buf, &map);
  if (padded)
    gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE, format, s.w, s.h, n_planes, offsets, strides);
  return buf;
}

// The same samples as a tightly packed planar picture the engine reads directly.
struct Planar {
  std::vector<uint8_t> data;
  PictureView view;
};
Planar planar(const Samples& s) {
  FormatInfo fmt{s.chroma == Chroma::k400 ? PixelFormat::gray : PixelFormat::i420, s.chroma, uint8_t(s.depth)};
  PlaneLayout layout[3];
  size_t size;
  const unsigned n = packed_layout(fmt, s.w, s.h, layout, &size);
  Planar p;
  p.data.assign(size, 0);
  const unsigned bytes = s.depth > 8 ? 2 : 1;
  const std::vector<uint32_t>* src[3] = {&s.y, &s.u, &s.v};
  for (unsigned i = 0; i < n; i++) {
    const uint32_t w = i ? s.cw : s.w, h = i ? s.ch : s.h;
    for (uint32_t r = 0; r < h; r++)
      for (uint32_t c = 0; c < w; c++)
        put(p.data.data() + layout[i].offset + size_t(layout[i].stride) * r + size_t(c) * bytes, bytes,
            (*src[i])[size_t(r) * w + c]);
  }
  Status st = make_picture_view(fmt, s.w, s.h, p.data.data(), size, layout, n, &p.view);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  return p;
}

struct Clip {
  std::vector<Samples> ref, dist;
};

// An odd-sized 8-bit 4:2:0 pair (generated: g5), converted to each format.
Clip load_pair_c(Chroma chroma, unsigned depth) {
  const Pair p = *find_generated_pair("g5_");
  FormatInfo fmt;
  EXPECT_TRUE(parse_pixel_format("420", 8, &fmt).is_ok());
  YuvClip ref, dist;
  EXPECT_TRUE(ref.open(p.ref_path(), p.width, p.height, fmt).is_ok());
  EXPECT_TRUE(dist.open(p.dist_path(), p.width, p.height, fmt).is_ok());
  Clip c;
  for (size_t i = 0; i < ref.frames(); i++) {
    c.ref.push_back(convert(ref.frame(i), chroma, depth));
    c.dist.push_back(convert(dist.frame(i), chroma, depth));
  }
  return c;
}

const char* kFeatures = "threads=1 psnr=true ssim=true";

std::vector<FrameScore> engine_scores(const Clip& clip, std::vector<std::string>* names) {
  ScorerConfig cfg = ::vmafx::test::scorer_config("vmaf_v0.6.1", {"psnr", "float_ssim"});
  cfg.threads = 1;
  cfg.backend = Backend::cpu;
  const Samples& s0 = clip.ref[0];
  ::vmafx::test::FrameLog log;
  std::unique_ptr<Scorer> scorer;
  Status st = ::vmafx::test::make_scorer(cfg, {s0.w, s0.h, uint8_t(s0.depth), s0.chroma}, &log, &scorer);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  if (!st.is_ok()) return {};
  std::vector<Planar> keep;
  keep.reserve(2 * clip.ref.size());
  for (size_t i = 0; i < clip.ref.size(); i++) {
    keep.push_back(planar(clip.ref[i]));
    keep.push_back(planar(clip.dist[i]));
    EXPECT_TRUE(scorer->submit(::vmafx::test::frame_pair(keep[2 * i].view, keep[2 * i + 1].view, int64_t(i), 0)).is_ok());
  }
  EXPECT_TRUE(scorer->flush().is_ok());
  std::vector<FrameScore> out = log.frames();
  *names = scorer->score_names();
  return out;
}

RunResult run_appsrc(const Clip& clip, GstVideoFormat ref_format, bool ref_padded, GstVideoFormat dist_format,
                     bool dist_padded) {
  RunOptions opt;
  opt.setup = [&](GstElement* pipeline) {
    for (const bool is_ref : {true, false}) {
      GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), is_ref ? "r" : "d");
      GstVideoInfo info;
      gst_video_info_set_format(&info, is_ref ? ref_format : dist_format, clip.ref[0].w, clip.ref[0].h);
      GST_VIDEO_INFO_FPS_N(&info) = 25;
      GST_VIDEO_INFO_FPS_D(&info) = 1;
      GstCaps* caps = gst_video_info_to_caps(&info);
      g_object_set(src, "caps", caps, "format", GST_FORMAT_TIME, nullptr);
      gst_caps_unref(caps);
      const auto& frames = is_ref ? clip.ref : clip.dist;
      for (size_t i = 0; i < frames.size(); i++) {
        GstBuffer* b = make_buffer(frames[i], is_ref ? ref_format : dist_format, is_ref ? ref_padded : dist_padded);
        GST_BUFFER_PTS(b) = i * 40 * GST_MSECOND;
        GST_BUFFER_DURATION(b) = 40 * GST_MSECOND;
        EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), b), GST_FLOW_OK);
      }
      gst_app_src_end_of_stream(GST_APP_SRC(src));
      gst_object_unref(src);
    }
  };
  return run_pipeline(std::string("appsrc name=r ! v.ref_sink appsrc name=d ! v.dist_sink vmafxhip name=v ") +
                          kFeatures + " ! fakesink",
                      opt);
}

void expect_equal_to_engine(const RunResult& r, const std::vector<FrameScore>& expected,
                            const std::vector<std::string>& names, const std::string& ctx) {
  ASSERT_EQ(r.frames.size(), expected.size()) << ctx << r.describe_errors();
  for (size_t i = 0; i < expected.size(); i++) {
    const GstStructure* f = r.frames[i].get();
    EXPECT_EQ(get_int(f, "index"), gint(i)) << ctx;
    size_t compared = 0;
    for (size_t k = 0; k < names.size(); k++) {
      const double want = expected[i].values[k];
      if (std::isnan(want)) continue;
      std::string field;
      // The element's field of this column: the harness maps fields back to libvmaf names, so search that way.
      for (int j = 0; j < gst_structure_n_fields(f); j++) {
        const std::string fn = gst_structure_nth_field_name(f, j);
        if (!is_timing_field(fn) && libvmaf_name(fn) == names[k]) field = fn;
      }
      ASSERT_FALSE(field.empty()) << ctx << ": no field for " << names[k];
      EXPECT_EQ(get_double(f, field.c_str()), want) << ctx << " frame " << i << " " << names[k];
      compared++;
    }
    EXPECT_GE(compared, 10u) << ctx;
  }
}

TEST(Formats, EveryTemplateFormatInBothLayoutsEqualsTheEngine) {
  std::string why;
  if (!gst_ready(&why)) GTEST_SKIP() << why;
  const Pair p = *find_generated_pair("g5_");
  Oracle oracle;
  ASSERT_TRUE(load_oracle(p.oracle_path("vmaf_v0.6.1"), &oracle).is_ok());
  for (const FormatCase& fc : kFormats) {
    const std::string name = gst_video_format_to_string(fc.format);
    const Clip clip = load_pair_c(fc.chroma, fc.depth);
    std::vector<std::string> names;
    const std::vector<FrameScore> expected = engine_scores(clip, &names);
    // Same format both sides, reference padded with a video meta, distorted in the default layout; then swapped.
    for (const bool ref_padded : {true, false}) {
      const std::string ctx = name + (ref_padded ? " (ref padded + meta)" : " (dist padded + meta)");
      const RunResult r = run_appsrc(clip, fc.format, ref_padded, fc.format, !ref_padded);
      ASSERT_TRUE(r.eos) << ctx << r.describe_errors();
      EXPECT_TRUE(r.errors.empty()) << ctx << r.describe_errors();
      expect_equal_to_engine(r, expected, names, ctx);
      if (fc.depth == 8) {
        // The luma is the file's: VMAF and every luma feature are libvmaf's; the chroma PSNRs too for 4:2:0.
        std::vector<std::string> absent = {"cambi", "float_ms_ssim"};
        for (size_t i = 0; i < r.frames.size(); i++) {
          auto o = oracle.frames[i];
          GstStructure* f = gst_structure_copy(r.frames[i].get());
          if (fc.chroma != Chroma::k420) {
            for (const char* x : {"psnr_cb", "psnr_cr"}) o.erase(x);
            gst_structure_remove_fields(f, "psnr-cb", "psnr-cr", nullptr);
          }
          expect_frame_matches_oracle(f, o, absent, ctx + " vs libvmaf frame " + std::to_string(i), nullptr);
          gst_structure_free(f);
        }
      }
    }
  }
}

TEST(Formats, ReferenceAndDistortedMayUseDifferentLayouts) {
  std::string why;
  if (!gst_ready(&why)) GTEST_SKIP() << why;
  const Pair p = *find_generated_pair("g5_");
  const struct {
    GstVideoFormat ref, dist;
    Chroma chroma;
    unsigned depth;
  } cases[] = {
      {GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, Chroma::k420, 8},
      {GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_YV12, Chroma::k420, 8},
      {GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420_10LE, Chroma::k420, 10},
      {GST_VIDEO_FORMAT_P016_LE, GST_VIDEO_FORMAT_I420_12LE, Chroma::k420, 16},  // depths differ: refused below
  };
  for (const auto& c : cases) {
    const std::string ctx = std::string(gst_video_format_to_string(c.ref)) + " vs " + gst_video_format_to_string(c.dist);
    if (c.ref == GST_VIDEO_FORMAT_P016_LE) {
      const Clip clip = load_pair_c(c.chroma, 16);
      const RunResult r = run_appsrc(clip, c.ref, false, c.dist, false);
      const auto e = r.element_errors();
      ASSERT_EQ(e.size(), 1u) << ctx << r.describe_errors();
      EXPECT_EQ(e[0].domain, GST_CORE_ERROR);
      EXPECT_EQ(e[0].code, GST_CORE_ERROR_NEGOTIATION);
      EXPECT_NE(e[0].text.find("16-bit"), std::string::npos) << e[0].text;
      EXPECT_NE(e[0].text.find("12-bit"), std::string::npos) << e[0].text;
      continue;
    }
    const Clip clip = load_pair_c(c.chroma, c.depth);
    std::vector<std::string> names;
    const std::vector<FrameScore> expected = engine_scores(clip, &names);
    const RunResult r = run_appsrc(clip, c.ref, true, c.dist, false);
    ASSERT_TRUE(r.eos) << ctx << r.describe_errors();
    expect_equal_to_engine(r, expected, names, ctx);
  }
}

}  // namespace
}  // namespace vmafx::test
