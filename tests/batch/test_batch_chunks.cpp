// SPDX-License-Identifier: LGPL-2.1-or-later
// A row scored in chunks equals the same row scored whole, bit for bit: every frame's every value and every pooled
// value (mean, harmonic mean, min, max, percentiles), for vmaf_v0.6.1, vmaf_v1.0.16 (and its HFR variant, whose
// motion reads five frames and averages), motion and float_motion with their temporal options, subsample and frame
// skips, at chunk sizes from 1 frame up. The whole row through vmafx-batch also equals a plain Scorer run. The
// context is tight: one frame less before or after a chunk changes some frame (so the test can fail).
//
// VMAFX_BATCH_TEST_BACKEND=hip scores the chunks on the GPU and compares them with whole rows on the CPU (skips,
// exit 77, without a usable GPU).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "batch/manifest.h"
#include "batch/plan.h"
#include "batch/score.h"
#include "batch/table.h"
#include "support.h"
#include "vmafx/scorer.h"
#include "yuv_reader.h"

namespace vmafx::tools::batch {
namespace {

// A folder of this process's own, removed when the tests end.
struct TempDir {
  std::string path;
  TempDir() {
    const char* t = std::getenv("TEST_TMPDIR");
    path = std::string(t && *t ? t : "/tmp") + "/vmafx_batch_chunks_" + std::to_string(getpid());
    mkdir(path.c_str(), 0777);
  }
  ~TempDir() {
    const int rc = std::system(("rm -rf '" + path + "'").c_str());
    (void)rc;
  }
};

std::string temp_dir() {
  static const TempDir d;
  return d.path;
}

// The shipped sample pair (samples/, 320x240, 24 frames) unpacked into the temporary folder.
bool sample_pair(std::string* ref, std::string* dist) {
  static const bool ok = [] {
    const std::string src = vmafx::test::project_source_dir() + "/samples/";
    const std::string cmd = "gunzip -c " + src + "sample_320x240_ref.yuv.gz > " + temp_dir() +
                            "/ref.yuv && gunzip -c " + src + "sample_320x240_dist.yuv.gz > " + temp_dir() + "/dist.yuv";
    return std::system(cmd.c_str()) == 0;
  }();
  *ref = temp_dir() + "/ref.yuv";
  *dist = temp_dir() + "/dist.yuv";
  return ok;
}

Backend chunk_backend() {
  const char* b = std::getenv("VMAFX_BATCH_TEST_BACKEND");
  return b && std::strcmp(b, "hip") == 0 ? Backend::hip : Backend::cpu;
}

// One manifest row (CSV columns after reference,distorted,width,height).
Row row_of(const std::string& ref, const std::string& dist, unsigned w, unsigned h, const std::string& header,
           const std::string& cells) {
  Manifest m;
  std::vector<std::string> errors;
  const std::string path = temp_dir() + "/row.csv";
  std::ofstream(path) << "reference,distorted,width,height" << (header.empty() ? "" : "," + header) << "\n"
                      << ref << "," << dist << "," << w << "," << h << (header.empty() ? "" : "," + cells) << "\n";
  Status s = load_manifest(path, &m, &errors);
  EXPECT_TRUE(s.is_ok()) << s.to_string() << (errors.empty() ? "" : errors[0]);
  return m.rows.empty() ? Row{} : m.rows[0];
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every scored frame and every pooled value of two merged rows, bit for bit.
void expect_same(const MergedRow& a, const MergedRow& b, const std::string& what) {
  ASSERT_EQ(a.collector.names(), b.collector.names()) << what;
  ASSERT_EQ(a.frames, b.frames) << what;
  const uint64_t frames = std::max(a.collector.frames(), b.collector.frames());
  size_t compared = 0;
  for (size_t c = 0; c < a.collector.columns(); c++) {
    for (uint64_t f = 0; f < frames; f++) {
      double va = 0, vb = 0;
      const bool ha = a.collector.get(f, c, &va), hb = b.collector.get(f, c, &vb);
      ASSERT_EQ(ha, hb) << what << ": " << a.collector.name(c) << " frame " << f;
      if (!ha) continue;
      ASSERT_TRUE(same_bits(va, vb)) << what << ": " << a.collector.name(c) << " frame " << f << ": " << va
                                     << " vs " << vb;
      compared++;
    }
    const PoolStats pa = a.collector.pool(c), pb = b.collector.pool(c);
    ASSERT_EQ(pa.count, pb.count) << what << ": " << a.collector.name(c);
    for (auto [x, y, n] : {std::tuple{pa.mean, pb.mean, "mean"}, {pa.harmonic_mean, pb.harmonic_mean, "hmean"},
                           {pa.min, pb.min, "min"}, {pa.max, pb.max, "max"}})
      EXPECT_TRUE(same_bits(x, y)) << what << ": " << a.collector.name(c) << " " << n;
    for (double p : {0.0, 1.0, 5.0, 25.0, 50.0, 95.0, 100.0})
      EXPECT_TRUE(same_bits(pa.percentile(p), pb.percentile(p))) << what << ": " << a.collector.name(c) << " p" << p;
  }
  EXPECT_GT(compared, 0u) << what;
}

// A row scored as the plan's units for `chunk` frames (0: whole) on `backend`, merged.
void score_row(const Row& row, uint64_t chunk, Backend backend, MergedRow* out, bool* skipped = nullptr) {
  Manifest m;
  m.rows = {row};
  m.rows[0].index = 0;
  BatchSettings s;
  s.chunk_frames = chunk;
  m.rows[0].chunk_given = false;
  Plan p;
  std::vector<std::string> errors;
  ASSERT_OK(make_plan(m, s, &p, &errors));
  std::vector<UnitResult> results;
  ScoreOptions o;
  o.backend = backend;
  for (const Unit& u : p.units) {
    UnitResult r;
    const Status st = score_unit(m.rows[0], u, o, &r);
    if (backend == Backend::hip && st.code() == Errc::device_unavailable) {
      if (skipped) *skipped = true;
      return;
    }
    ASSERT_OK(st);
    if (!u.whole) {
      ASSERT_EQ(r.frames, u.end - u.first);
      for (const auto& f : r.frames_scored) ASSERT_TRUE(f.index >= u.first && f.index < u.end);
    }
    results.push_back(std::move(r));
  }
  // Through the result file's text, as the merge reads it.
  for (UnitResult& r : results) {
    r.key = std::string(64, '0');
    UnitResult back;
    ASSERT_OK(parse_result(format_result(r), r.key, &back));
    r = std::move(back);
  }
  // merge_row keeps a pointer to the row: the caller's, not this function's copy.
  ASSERT_OK(merge_row(row, results, out));
}

void check_chunks_equal_whole(const Row& row, std::initializer_list<uint64_t> chunks, const std::string& what) {
  MergedRow whole;
  ASSERT_NO_FATAL_FAILURE(score_row(row, 0, Backend::cpu, &whole));
  ASSERT_GT(whole.frames, 0u);
  for (uint64_t c : chunks) {
    MergedRow chunked;
    bool skipped = false;
    ASSERT_NO_FATAL_FAILURE(score_row(row, c, chunk_backend(), &chunked, &skipped));
    if (skipped) GTEST_SKIP() << "no usable GPU: the chunks are not scored on it";
    ASSERT_NO_FATAL_FAILURE(expect_same(chunked, whole, what + ", chunks of " + std::to_string(c)));
  }
}

class Chunks : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!sample_pair(&ref_, &dist_)) GTEST_FAIL() << "could not unpack samples/ into " << temp_dir();
  }
  std::string ref_, dist_;
};

TEST_F(Chunks, VmafV061EqualsWholeRow) {
  const Row row = row_of(ref_, dist_, 320, 240, "", "");
  check_chunks_equal_whole(row, {1, 2, 5, 7, 23, 24, 100}, "vmaf_v0.6.1");
}

TEST_F(Chunks, VmafV1EqualsWholeRow) {
  const Row row = row_of(ref_, dist_, 320, 240, "model", "vmaf_v1.0.16_3d0h");
  check_chunks_equal_whole(row, {1, 5}, "vmaf_v1.0.16_3d0h");
}

TEST_F(Chunks, VmafV1HfrEqualsWholeRow) {
  // motion_five_frame_window and motion_moving_average: four frames of context before each chunk.
  const Row row = row_of(ref_, dist_, 320, 240, "model", "vmaf_v1.0.16_hfr_3d0h");
  check_chunks_equal_whole(row, {1, 2, 3, 6}, "vmaf_v1.0.16_hfr_3d0h");
}

TEST_F(Chunks, TemporalFeaturesSubsampleAndSkipsEqualWholeRow) {
  const Row row = row_of(ref_, dist_, 320, 240, "model,feature,subsample,frame_skip_ref,frame_skip_dist,frame_cnt",
                         "vmaf_v0.6.1,motion=motion_five_frame_window=true;motion=motion_moving_average=true:"
                         "motion_blend_factor=0.5;float_motion=motion_add_scale1=true;psnr,3,2,1,20");
  check_chunks_equal_whole(row, {1, 4, 6}, "motion options, subsample 3, skips 2/1, 20 frames");
}

TEST_F(Chunks, PublicPairEqualsWholeRow) {
  const vmafx::test::Pair* p = vmafx::test::find_public_pair("a_576x324_8b");
  if (!p || !vmafx::test::file_exists(p->ref_path()) || !vmafx::test::file_exists(p->dist_path()))
    GTEST_SKIP() << "../shared/testdata's pair a is not here";
  const Row row = row_of(p->ref_path(), p->dist_path(), p->width, p->height, "model",
                         "vmaf_v0.6.1;vmaf_v1.0.16_3d0h:name=v1");
  check_chunks_equal_whole(row, {7, 16}, p->name());
}

// The batch path (every frame submitted, the row's subsample deciding which are scored) equals a plain Scorer run
// with ScorerConfig::subsample, frame skips included.
TEST_F(Chunks, WholeRowEqualsAPlainScorerRun) {
  if (chunk_backend() != Backend::cpu) GTEST_SKIP() << "a CPU comparison";
  const Row row = row_of(ref_, dist_, 320, 240, "model,feature,subsample,frame_skip_ref,frame_skip_dist",
                         "vmaf_v0.6.1,float_ssim,2,1,3");
  MergedRow batch;
  ASSERT_NO_FATAL_FAILURE(score_row(row, 0, Backend::cpu, &batch));

  VideoReader ref, dist;
  ASSERT_OK(ref.open(ref_, row.given, ReadMode::read));
  ASSERT_OK(dist.open(dist_, row.given, ReadMode::read));
  ASSERT_OK(ref.skip(1));
  ASSERT_OK(dist.skip(3));
  ScoreOptions o;
  o.backend = Backend::cpu;
  ScorerConfig cfg = scorer_config(row, o);
  cfg.subsample = 2;
  StreamGeometry g;
  g.ref = {320, 240, 8, Chroma::k420};
  g.dist = g.ref;
  std::unique_ptr<Scorer> s;
  ASSERT_OK(Scorer::create(cfg, g, &s));
  std::vector<std::vector<uint8_t>> frames;
  uint64_t n = 0;
  for (;; n++) {
    std::vector<uint8_t> r(ref.frame_size()), d(dist.frame_size());
    bool gr = false, gd = false;
    ASSERT_OK(ref.read(r.data(), &gr));
    ASSERT_OK(dist.read(d.data(), &gd));
    if (!gr || !gd) break;
    FramePair pair;
    ASSERT_OK(make_picture_view(ref.format(), 320, 240, r.data(), r.size(), ref.layout(), ref.planes(), &pair.ref));
    ASSERT_OK(make_picture_view(dist.format(), 320, 240, d.data(), d.size(), dist.layout(), dist.planes(), &pair.dist));
    frames.push_back(std::move(r));
    frames.push_back(std::move(d));
    ASSERT_OK(s->submit(std::move(pair)));
  }
  ASSERT_OK(s->flush());
  EXPECT_EQ(batch.frames, n);
  const Collector& c = s->collector();
  ASSERT_EQ(c.names(), batch.collector.names());
  for (size_t k = 0; k < c.columns(); k++) {
    for (uint64_t f = 0; f < n; f++) {
      if (!c.is_scored(f)) continue;
      double a = 0, b = 0;
      ASSERT_EQ(c.get(f, k, &a), batch.collector.get(f, k, &b)) << c.name(k) << " " << f;
      EXPECT_TRUE(same_bits(a, b)) << c.name(k) << " frame " << f;
    }
    const PoolStats pa = c.pool(k), pb = batch.collector.pool(k);
    EXPECT_EQ(pa.count, pb.count);
    EXPECT_TRUE(same_bits(pa.mean, pb.mean)) << c.name(k);
    EXPECT_TRUE(same_bits(pa.harmonic_mean, pb.harmonic_mean)) << c.name(k);
  }
}

TEST(RangeContext, WindowsOfTheTemporalFeatures) {
  if (chunk_backend() != Backend::cpu) GTEST_SKIP() << "a CPU test";
  struct Case {
    std::vector<FeatureRequest> features;
    std::vector<std::string> models;
    unsigned before, after;
    bool exact;
  };
  const std::vector<Case> cases = {
      {{{"psnr", {}}}, {}, 0, 0, true},
      {{{"motion", {}}}, {}, 1, 1, true},
      {{{"motion", {{"motion_moving_average", "true"}}}}, {}, 2, 1, true},
      {{{"motion", {{"motion_five_frame_window", "true"}}}}, {}, 3, 2, true},
      {{{"motion", {{"motion_five_frame_window", "true"}, {"motion_moving_average", "true"}}}}, {}, 4, 2, true},
      {{{"float_motion", {}}}, {}, 1, 1, true},
      {{}, {"vmaf_v0.6.1"}, 1, 1, true},
      {{}, {"vmaf_v1.0.16_hfr_3d0h"}, 4, 2, true},
      {{{"psnr", {{"enable_apsnr", "true"}}}}, {}, 0, 0, false},
  };
  for (const Case& c : cases) {
    ScorerConfig cfg;
    cfg.models.clear();
    for (const auto& m : c.models) cfg.models.push_back(ModelRequest{m, "", false, false, {}});
    cfg.features = c.features;
    StreamGeometry g;
    g.ref = {320, 240, 8, Chroma::k420};  // cambi (v1) needs a side of at least 216
    std::unique_ptr<Scorer> s;
    ASSERT_OK(Scorer::create(cfg, g, &s));
    const RangeContext r = s->range_context();
    const std::string what = c.models.empty() ? c.features[0].name : c.models[0];
    EXPECT_EQ(r.exact, c.exact) << what;
    if (!c.exact) {
      EXPECT_NE(r.reason.find("enable_apsnr"), std::string::npos) << r.reason;
      continue;
    }
    EXPECT_EQ(r.before, c.before) << what;
    EXPECT_EQ(r.after, c.after) << what;
  }
}

// Frames [first, end) of the sample pair scored alone with `before` / `after` frames of context: the values of
// each scored frame, by frame number.
std::vector<std::vector<double>> score_range(const vmafx::test::PairClips& clips, const ScorerConfig& cfg,
                                             uint64_t first, uint64_t end, uint64_t before, uint64_t after) {
  StreamGeometry g;
  g.ref = {clips.ref.width(), clips.ref.height(), 8, Chroma::k420};
  std::unique_ptr<Scorer> s;
  Status st = Scorer::create(cfg, g, &s);
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  if (!st) return {};
  const uint64_t from = first >= before ? first - before : 0;
  const uint64_t to = std::min<uint64_t>(clips.ref.frames(), end + after);
  for (uint64_t f = from; f < to; f++) {
    FramePair p = vmafx::test::frame_pair(clips.ref.frame(f), clips.dist.frame(f), int64_t(f), f);
    p.scored = f >= first && f < end;
    EXPECT_TRUE(s->submit(std::move(p)).is_ok());
  }
  EXPECT_TRUE(s->flush().is_ok());
  std::vector<std::vector<double>> out;
  for (uint64_t f = first; f < end; f++) {
    std::vector<double> v;
    for (size_t c = 0; c < s->collector().columns(); c++) {
      double x = NAN;
      s->collector().get(f - from, c, &x);
      v.push_back(x);
    }
    out.push_back(v);
  }
  return out;
}

// With the context the scorer asks for, every chunk of 1 or 3 frames equals the whole run; with one frame less
// before (or after) some frame of some chunk does not: the windows are no wider than they must be, and the
// comparisons above would notice a missing frame.
TEST(RangeContext, OneFrameLessChangesSomeFrame) {
  if (chunk_backend() != Backend::cpu) GTEST_SKIP() << "a CPU test";
  std::string ref, dist;
  ASSERT_TRUE(sample_pair(&ref, &dist));
  vmafx::test::PairClips clips;
  FormatInfo fmt;
  ASSERT_OK(parse_pixel_format("420", 8, &fmt));
  ASSERT_OK(clips.ref.open(ref, 320, 240, fmt));
  ASSERT_OK(clips.dist.open(dist, 320, 240, fmt));
  const uint64_t n = clips.ref.frames();
  for (const char* model : {"vmaf_v0.6.1", "vmaf_v1.0.16_hfr_3d0h"}) {
    ScorerConfig cfg;
    cfg.models = {ModelRequest{model, "", false, false, {}}};
    StreamGeometry g;
    g.ref = {clips.ref.width(), clips.ref.height(), 8, Chroma::k420};
    std::unique_ptr<Scorer> probe;
    ASSERT_OK(Scorer::create(cfg, g, &probe));
    const RangeContext ctx = probe->range_context();
    ASSERT_GT(ctx.before, 0u);
    ASSERT_GT(ctx.after, 0u);
    const auto whole = score_range(clips, cfg, 0, n, 0, 0);
    bool before_matters = false, after_matters = false;
    for (uint64_t size : {1, 3})
      for (uint64_t first = 0; first + size <= n && first < 12; first += size) {
        auto same = [&](const std::vector<std::vector<double>>& part) {
          for (size_t i = 0; i < part.size(); i++)
            for (size_t c = 0; c < part[i].size(); c++) {
              const double a = part[i][c], b = whole[first + i][c];
              if (!same_bits(a, b) && !(std::isnan(a) && std::isnan(b))) return false;
            }
          return true;
        };
        EXPECT_TRUE(same(score_range(clips, cfg, first, first + size, ctx.before, ctx.after)))
            << model << " frames " << first << "+" << size;
        before_matters =
            before_matters || !same(score_range(clips, cfg, first, first + size, ctx.before - 1, ctx.after));
        after_matters = after_matters || !same(score_range(clips, cfg, first, first + size, ctx.before, ctx.after - 1));
      }
    EXPECT_TRUE(before_matters) << model << ": " << ctx.before - 1 << " frames before would do";
    EXPECT_TRUE(after_matters) << model << ": " << ctx.after - 1 << " frames after would do";
  }
}

}  // namespace
}  // namespace vmafx::tools::batch

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  const testing::UnitTest* u = testing::UnitTest::GetInstance();
  if (rc == 0 && u->successful_test_count() == 0 && u->skipped_test_count() > 0) {
    std::printf("all %d test(s) skipped: exit 77 (SKIP)\n", u->skipped_test_count());
    return 77;
  }
  return rc;
}
