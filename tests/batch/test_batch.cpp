// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx-batch's pieces without scoring: the manifest (CSV and JSON Lines, every error with its line and column),
// SHA-256, result keys (what changes them and what does not), task and pack arithmetic and sbatch's range lists, the
// result file (lossless values, every kind of damage refused), the atomic writer, and the merge's pooling.
#include <gtest/gtest.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "batch/manifest.h"
#include "batch/plan.h"
#include "batch/result.h"
#include "batch/sha256.h"
#include "batch/table.h"

namespace vmafx::tools::batch {
namespace {

// A folder of this process's own, removed when the tests end.
struct TempDir {
  std::string path;
  TempDir() {
    const char* t = std::getenv("TEST_TMPDIR");
    path = std::string(t && *t ? t : "/tmp") + "/vmafx_batch_unit_" + std::to_string(getpid());
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

std::string write(const std::string& name, const std::string& text) {
  const std::string p = temp_dir() + "/" + name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

// A raw 8-bit 4:2:0 file of `frames` frames of w x h (values from the frame number).
std::string write_clip(const std::string& name, unsigned w, unsigned h, unsigned frames, size_t extra = 0) {
  std::string bytes;
  const size_t frame = size_t(w) * h + 2 * size_t((w + 1) / 2) * ((h + 1) / 2);
  for (unsigned f = 0; f < frames; f++)
    for (size_t i = 0; i < frame; i++) bytes += char((i * 7 + f * 13) & 0xff);
  bytes += std::string(extra, '\x10');
  return write(name, bytes);
}

Status load_text(const std::string& name, const std::string& text, Manifest* m, std::vector<std::string>* errors) {
  return load_manifest(write(name, text), m, errors);
}

bool has_error(const std::vector<std::string>& errors, const std::string& part) {
  for (const auto& e : errors)
    if (e.find(part) != std::string::npos) return true;
  return false;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& e : v) s += e + "\n";
  return s;
}

// ---- manifest ----

TEST(BatchManifest, CsvRowsWithQuotingCommentsAndSpecs) {
  Manifest m;
  std::vector<std::string> errors;
  ASSERT_OK(load_text("ok.csv",
                      "# a comment\n"
                      "reference,distorted,width,height,model,feature,tag,chunk_frames\n"
                      "\n"
                      "r.yuv,d.yuv,64,48,,,plain,\n"
                      "/abs/r.yuv,sub/../d.yuv,64,48,\"version=vmaf_v0.6.1; vmaf_4k_v0.6.1:name=k\","
                      "psnr=enable_chroma=false;float_ssim,\"a, \"\"quoted\"\"\nline\",16\n",
                      &m, &errors));
  ASSERT_TRUE(errors.empty()) << joined(errors);
  ASSERT_EQ(m.rows.size(), 2u);
  EXPECT_FALSE(m.jsonl);
  const Row& a = m.rows[0];
  EXPECT_EQ(a.index, 0u);
  EXPECT_EQ(a.line, 4u);
  EXPECT_EQ(a.ref_path, temp_dir() + "/r.yuv");
  EXPECT_EQ(a.given.width, 64u);
  ASSERT_EQ(a.sel.models.size(), 1u);  // libvmaf's default model
  EXPECT_EQ(a.sel.models[0].request.model, "vmaf_v0.6.1");
  EXPECT_FALSE(a.chunk_given);
  const Row& b = m.rows[1];
  EXPECT_EQ(b.line, 5u);
  EXPECT_EQ(b.ref_path, "/abs/r.yuv");
  EXPECT_EQ(b.dist_path, temp_dir() + "/d.yuv");
  EXPECT_EQ(b.tag, "a, \"quoted\"\nline");
  ASSERT_EQ(b.sel.models.size(), 2u);
  EXPECT_EQ(b.sel.models[1].column(), "k");
  ASSERT_EQ(b.sel.features.size(), 2u);
  EXPECT_EQ(b.sel.features[0].name, "psnr");
  EXPECT_EQ(b.sel.features[0].options[0].second, "false");
  EXPECT_TRUE(b.chunk_given);
  EXPECT_EQ(b.chunk_frames, 16u);
}

TEST(BatchManifest, ByteOrderMarkAndCrLfLines) {
  Manifest m;
  std::vector<std::string> errors;
  ASSERT_OK(load_text("bom.csv", "\xEF\xBB\xBFreference,distorted,tag\r\nr.yuv,d.yuv,\"t\"\r\nr.yuv,d.yuv,u\r\n", &m,
                      &errors));
  ASSERT_TRUE(errors.empty()) << joined(errors);
  ASSERT_EQ(m.rows.size(), 2u);
  EXPECT_EQ(m.rows[0].tag, "t");
  EXPECT_EQ(m.rows[1].tag, "u");
  EXPECT_EQ(m.rows[1].line, 3u);
}

TEST(BatchManifest, JsonLinesRowsWithArrays) {
  Manifest m;
  std::vector<std::string> errors;
  ASSERT_OK(load_text("ok.jsonl",
                      "{\"reference\": \"r.y4m\", \"distorted\": \"d.y4m\", \"tag\": \"t\"}\n"
                      "\n"
                      "{\"reference\": \"r.yuv\", \"distorted\": \"d.yuv\", \"width\": 64, \"height\": \"48\", "
                      "\"model\": [\"vmaf_4k_v0.6.1:name=k4\", \"path=m.json:name=mine\"], \"aom_ctc\": \"v1.0\", "
                      "\"subsample\": 2, \"chunk_frames\": 0}\n",
                      &m, &errors));
  ASSERT_TRUE(errors.empty()) << joined(errors);
  ASSERT_TRUE(m.jsonl);
  ASSERT_EQ(m.rows.size(), 2u);
  EXPECT_EQ(m.rows[1].line, 3u);
  EXPECT_EQ(m.rows[1].subsample, 2u);
  EXPECT_TRUE(m.rows[1].chunk_given);
  EXPECT_EQ(m.rows[1].chunk_frames, 0u);
  // aom_ctc v1.0's models first (vmaf, vmaf_neg), then the row's own; a model path is resolved against the folder.
  std::vector<std::string> cols;
  for (const auto& md : m.rows[1].sel.models) cols.push_back(md.column());
  EXPECT_EQ(cols, (std::vector<std::string>{"vmaf", "vmaf_neg", "k4", "mine"}));
  bool path_resolved = false;
  for (const auto& md : m.rows[1].sel.models)
    path_resolved = path_resolved || md.request.model == temp_dir() + "/m.json";
  EXPECT_TRUE(path_resolved);
}

TEST(BatchManifest, CsvErrorsNameTheLineAndColumn) {
  Manifest m;
  std::vector<std::string> errors;
  const Status s = load_text("bad.csv",
                             "reference,distorted,width,height,model,feature,bitdepth\n"
                             "r.yuv,d.yuv,64x,48,,,8\n"                         // line 2: width
                             "r.yuv,,64,48,,,8\n"                               // line 3: no distorted
                             "r.yuv,d.yuv,64,48,version=nope:bogus=1,,8\n"      // line 4: model spec
                             "r.yuv,d.yuv,64,48,,psnr=enable_chroma=maybe=1,9\n"  // line 5: feature, bit depth
                             "r.yuv,d.yuv,64,48,,,8,extra\n"                    // line 6: too many fields
                             "r.yuv,d.yuv,010,48,,,8\n"                         // line 7: leading zero
                             "r.yuv,d.yuv,64,48,vmaf_v0.6.1;vmaf_v0.6.1,,8\n",   // line 8: same column twice
                             &m, &errors);
  EXPECT_FALSE(s.is_ok());
  const std::string f = temp_dir() + "/bad.csv";
  EXPECT_TRUE(has_error(errors, f + ":2: column 3 (width):")) << joined(errors);
  EXPECT_TRUE(has_error(errors, f + ":3: no distorted path")) << joined(errors);
  EXPECT_TRUE(has_error(errors, f + ":4: column 5 (model):")) << joined(errors);
  EXPECT_TRUE(has_error(errors, f + ":5: column 6 (feature):")) << joined(errors);
  EXPECT_TRUE(has_error(errors, f + ":5: column 7 (bitdepth): bit depth is 8, 10, 12 or 16")) << joined(errors);
  EXPECT_TRUE(has_error(errors, f + ":6: 8 fields, but the header names 7 columns")) << joined(errors);
  EXPECT_TRUE(has_error(errors, f + ":7: column 3 (width):")) << joined(errors);
  EXPECT_TRUE(has_error(errors, f + ":8: ")) << joined(errors);
  EXPECT_EQ(errors.size(), 8u) << joined(errors);
}

TEST(BatchManifest, CsvHeaderAndQuoteErrors) {
  Manifest m;
  std::vector<std::string> errors;
  EXPECT_FALSE(load_text("h.csv", "reference,distorted,colour\n", &m, &errors).is_ok());
  EXPECT_TRUE(has_error(errors, "h.csv:1: column 3: unknown column 'colour'")) << joined(errors);
  errors.clear();
  EXPECT_FALSE(load_text("h2.csv", "reference,distorted,reference\n", &m, &errors).is_ok());
  EXPECT_TRUE(has_error(errors, "h2.csv:1: column 3: column 'reference' again (first in column 1)")) << joined(errors);
  errors.clear();
  EXPECT_FALSE(load_text("q.csv", "reference,distorted,tag\na,b,\"open\nstill open\n", &m, &errors).is_ok());
  EXPECT_TRUE(has_error(errors, "q.csv:2: a quoted field is not closed")) << joined(errors);
  errors.clear();
  EXPECT_FALSE(load_text("q2.csv", "reference,distorted,tag\na,b,x\"y\n", &m, &errors).is_ok());
  EXPECT_TRUE(has_error(errors, "q2.csv:2: column 3: a quote inside an unquoted field")) << joined(errors);
  errors.clear();
  EXPECT_FALSE(load_text("e.csv", "# nothing\n\n", &m, &errors).is_ok());
  EXPECT_TRUE(has_error(errors, "e.csv: no header line")) << joined(errors);
  errors.clear();
  EXPECT_FALSE(load_text("e2.csv", "reference,distorted\n", &m, &errors).is_ok());
  EXPECT_TRUE(has_error(errors, "e2.csv: no rows")) << joined(errors);
}

TEST(BatchManifest, JsonErrorsNameTheLineAndKey) {
  Manifest m;
  std::vector<std::string> errors;
  const Status s = load_text("bad.jsonl",
                             "{\"reference\": \"r\", \"distorted\": \"d\"}\n"
                             "{\"reference\": \"r\", \"distorted\": \"d\", }\n"     // line 2: syntax
                             "[1, 2]\n"                                            // line 3: not an object
                             "{\"reference\": \"r\", \"distorted\": \"d\", \"width\": -3}\n"  // line 4
                             "{\"reference\": \"r\", \"distorted\": \"d\", \"size\": 3}\n"    // line 5
                             "{\"reference\": \"r\", \"distorted\": \"d\", \"model\": [1]}\n" // line 6
                             "{\"reference\": \"r\", \"distorted\": \"d\", \"subsample\": 0}\n",  // line 7
                             &m, &errors);
  EXPECT_FALSE(s.is_ok());
  EXPECT_TRUE(has_error(errors, "bad.jsonl:2:")) << joined(errors);
  EXPECT_TRUE(has_error(errors, "not JSON")) << joined(errors);
  EXPECT_TRUE(has_error(errors, "bad.jsonl:3: a row is a JSON object")) << joined(errors);
  EXPECT_TRUE(has_error(errors, "bad.jsonl:4: key \"width\":")) << joined(errors);
  EXPECT_TRUE(has_error(errors, "bad.jsonl:5: key \"size\": unknown")) << joined(errors);
  EXPECT_TRUE(has_error(errors, "bad.jsonl:6: key \"model\": every element is a string")) << joined(errors);
  EXPECT_TRUE(has_error(errors, "bad.jsonl:7: key \"subsample\":")) << joined(errors);
  EXPECT_EQ(errors.size(), 6u) << joined(errors);
}

TEST(BatchManifest, PathsAndSpecSplitting) {
  EXPECT_EQ(resolve_path("/a/b", "c.yuv"), "/a/b/c.yuv");
  EXPECT_EQ(resolve_path("/a/b", "../c.yuv"), "/a/c.yuv");
  EXPECT_EQ(resolve_path("/a/b", "/x//y/./z.yuv"), "/x/y/z.yuv");
  EXPECT_EQ(resolve_path("/", "../../z"), "/z");
  EXPECT_EQ(split_specs(" a ; b;;c "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_specs(" ; ").empty());
}

// ---- SHA-256 and keys ----

TEST(BatchHash, Sha256KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // A million 'a's, fed in uneven pieces (the buffering across calls).
  Sha256 h;
  const std::string a(1000, 'a');
  size_t fed = 0;
  for (size_t piece = 1; fed < 1000000; piece = piece % 997 + 1) {
    const size_t n = std::min(piece, 1000000 - fed);
    h.update(a.data(), std::min(n, a.size()));
    fed += std::min(n, a.size());
  }
  EXPECT_EQ(h.hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

struct KeyFixture {
  Manifest m;
  Row row;
  Unit unit;
};

void key_fixture(const std::string& csv, KeyFixture* f) {
  std::vector<std::string> errors;
  ASSERT_OK(load_text("key.csv", csv, &f->m, &errors));
  f->row = f->m.rows[0];
}

std::string key_of(const Row& row, const Unit& u, Identity mode = Identity::stat) {
  IdentityCache ids(mode);
  std::string key;
  Status s = unit_key(row, u, &ids, &key);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  return key;
}

TEST(BatchHash, KeysChangeWithWhatDeterminesTheNumbersOnly) {
  write_clip("kr.yuv", 16, 16, 4);
  write_clip("kd.yuv", 16, 16, 4);
  write("km.json", std::string("{\"model_dict\": {}}"));
  KeyFixture f;
  key_fixture("reference,distorted,width,height,model,feature,tag\n"
              "kr.yuv,kd.yuv,16,16,vmaf_v0.6.1,psnr,first\n", &f);
  const std::string base = key_of(f.row, f.unit);
  EXPECT_EQ(base.size(), 64u);
  EXPECT_EQ(key_of(f.row, f.unit), base);  // deterministic

  // Not in the key: the tag, the row's place.
  Row r = f.row;
  r.tag = "another";
  r.index = 7;
  r.line = 99;
  EXPECT_EQ(key_of(r, f.unit), base);

  // In the key: options, models, geometry, frame range, chunk range, subsample.
  r = f.row;
  r.sel.features[0].options.push_back({"enable_chroma", "false"});
  EXPECT_NE(key_of(r, f.unit), base);
  r = f.row;
  r.sel.models[0].request.disable_clip = true;
  EXPECT_NE(key_of(r, f.unit), base);
  r = f.row;
  r.sel.models[0].request.name = "other";
  EXPECT_NE(key_of(r, f.unit), base);
  r = f.row;
  r.given.pixel_format = "420";
  EXPECT_NE(key_of(r, f.unit), base);
  r = f.row;
  r.skip_ref = 1;
  EXPECT_NE(key_of(r, f.unit), base);
  r = f.row;
  r.subsample = 2;
  EXPECT_NE(key_of(r, f.unit), base);
  Unit u;
  u.whole = false;
  u.first = 0;
  u.end = 2;
  u.row_frames = 4;
  const std::string chunk0 = key_of(f.row, u);
  EXPECT_NE(chunk0, base);
  u.first = 2;
  u.end = 4;
  EXPECT_NE(key_of(f.row, u), chunk0);

  // The input's identity: with stat its size and mtime, with content its bytes (not its name).
  const std::string content = key_of(f.row, f.unit, Identity::content);
  EXPECT_NE(content, base);
  struct stat st;
  ASSERT_EQ(stat(f.row.dist_path.c_str(), &st), 0);
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  times[1].tv_nsec = (times[1].tv_nsec + 1) % 1000000000;
  ASSERT_EQ(utimensat(AT_FDCWD, f.row.dist_path.c_str(), times, 0), 0);
  EXPECT_NE(key_of(f.row, f.unit), base);                          // the mtime changed
  EXPECT_EQ(key_of(f.row, f.unit, Identity::content), content);    // the bytes did not
  write_clip("kd2.yuv", 16, 16, 4);                                // the same bytes under another name
  r = f.row;
  r.dist_path = temp_dir() + "/kd2.yuv";
  EXPECT_EQ(key_of(r, f.unit, Identity::content), content);
  write_clip("kd2.yuv", 16, 16, 5);
  EXPECT_NE(key_of(r, f.unit, Identity::content), content);

  // A model given by path: its content.
  KeyFixture g;
  key_fixture("reference,distorted,width,height,model\nkr.yuv,kd.yuv,16,16,path=km.json\n", &g);
  const std::string with_file = key_of(g.row, g.unit);
  write("km.json", std::string("{\"model_dict\": {\"x\": 1}}"));
  EXPECT_NE(key_of(g.row, g.unit), with_file);

  // An input that does not exist has no key; the error names it.
  r = f.row;
  r.ref_path = temp_dir() + "/absent.yuv";
  IdentityCache ids(Identity::stat);
  std::string k;
  const Status s = unit_key(r, f.unit, &ids, &k);
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("absent.yuv"), std::string::npos);
}

// ---- tasks, packs, ranges ----

TEST(BatchTasks, PackArithmetic) {
  // 10 units, packs of 3: [0,3) [3,6) [6,9) [9,10), then nothing.
  EXPECT_EQ(pack_count(10, 3), 4u);
  EXPECT_EQ(pack_count(9, 3), 3u);
  EXPECT_EQ(pack_count(0, 3), 0u);
  EXPECT_EQ(pack_count(1, 1), 1u);
  auto r = pack_units(0, 3, 10);
  EXPECT_EQ(r.first, 0u);
  EXPECT_EQ(r.end, 3u);
  r = pack_units(3, 3, 10);
  EXPECT_EQ(r.first, 9u);
  EXPECT_EQ(r.end, 10u);
  r = pack_units(4, 3, 10);
  EXPECT_EQ(r.first, r.end);
  r = pack_units(UINT64_MAX, 1000, 10);  // no overflow into a small task number
  EXPECT_EQ(r.first, r.end);
  r = pack_units(UINT64_MAX / 2, 4, UINT64_MAX);
  EXPECT_EQ(r.first, r.end);
  // Every unit in exactly one pack.
  for (uint64_t total : {1u, 7u, 30u, 31u})
    for (uint64_t pack : {1u, 2u, 5u, 30u, 100u}) {
      std::vector<int> seen(total, 0);
      for (uint64_t k = 0; k < pack_count(total, pack); k++) {
        const UnitRange u = pack_units(k, pack, total);
        EXPECT_LT(u.first, u.end);
        for (uint64_t i = u.first; i < u.end; i++) seen[i]++;
      }
      for (uint64_t i = 0; i < total; i++) EXPECT_EQ(seen[i], 1) << total << " " << pack << " " << i;
    }
  EXPECT_EQ(packs_of({0, 1, 2, 7, 8, 29}, 3), (std::vector<uint64_t>{0, 2, 9}));
  EXPECT_EQ(packs_of({5}, 1), (std::vector<uint64_t>{5}));
}

TEST(BatchTasks, RangeLists) {
  EXPECT_EQ(compress_ranges({}), "");
  EXPECT_EQ(compress_ranges({4}), "4");
  EXPECT_EQ(compress_ranges({0, 1, 2, 3, 7, 9, 10, 11, 12}), "0-3,7,9-12");
  EXPECT_EQ(compress_ranges({1, 3, 5}), "1,3,5");
  std::vector<uint64_t> v;
  ASSERT_OK(parse_ranges("9-12,0-3,7,3", 20, "--rows", &v));
  EXPECT_EQ(v, (std::vector<uint64_t>{0, 1, 2, 3, 7, 9, 10, 11, 12}));
  EXPECT_EQ(compress_ranges(v), "0-3,7,9-12");
  EXPECT_FALSE(parse_ranges("20", 20, "--rows", &v).is_ok());
  EXPECT_FALSE(parse_ranges("5-2", 20, "--rows", &v).is_ok());
  EXPECT_FALSE(parse_ranges("", 20, "--rows", &v).is_ok());
  EXPECT_FALSE(parse_ranges("1,,2", 20, "--rows", &v).is_ok());
  EXPECT_FALSE(parse_ranges("x", 20, "--rows", &v).is_ok());
}

TEST(BatchTasks, ChunkPlanCountsFramesAsAWholeRunReadsThem) {
  write_clip("pr.yuv", 16, 16, 10);
  write_clip("pd.yuv", 16, 16, 12);
  write_clip("pt.yuv", 16, 16, 9, 100);  // 9 frames and part of a tenth
  Manifest m;
  std::vector<std::string> errors;
  ASSERT_OK(load_text("plan.csv",
                      "reference,distorted,width,height,chunk_frames,frame_skip_dist,frame_cnt\n"
                      "pr.yuv,pd.yuv,16,16,4,,\n"     // min(10, 12) = 10: chunks 4 + 4 + 2
                      "pr.yuv,pd.yuv,16,16,,,\n"      // whole (no --chunk-frames)
                      "pr.yuv,pd.yuv,16,16,3,4,\n"    // min(10, 12 - 4) = 8: 3 + 3 + 2
                      "pr.yuv,pd.yuv,16,16,5,,7\n"    // frame_cnt 7: 5 + 2
                      "pr.yuv,pd.yuv,16,16,0,,\n",    // chunk_frames 0: whole whatever --chunk-frames says
                      &m, &errors));
  BatchSettings s;
  s.chunk_frames = 6;
  Plan p;
  ASSERT_OK(make_plan(m, s, &p, &errors));
  EXPECT_EQ(p.unit_count, (std::vector<unsigned>{3, 2, 3, 2, 1}));
  EXPECT_EQ(p.first_unit, (std::vector<size_t>{0, 3, 5, 8, 10}));
  ASSERT_EQ(p.units.size(), 11u);
  EXPECT_EQ(p.units[2].first, 8u);
  EXPECT_EQ(p.units[2].end, 10u);
  EXPECT_EQ(p.units[2].chunk, 2u);
  EXPECT_EQ(p.units[2].chunks, 3u);
  EXPECT_EQ(p.units[3].end, 6u);   // --chunk-frames 6 for row 1: 6 + 4
  EXPECT_EQ(p.units[7].row_frames, 8u);
  EXPECT_EQ(p.units[9].end, 7u);
  EXPECT_TRUE(p.units[10].whole);

  // A partial frame where a whole run would read it fails the row; past frame_cnt it does not matter.
  Manifest t;
  errors.clear();
  ASSERT_OK(load_text("trunc.csv",
                      "reference,distorted,width,height,chunk_frames,frame_cnt\n"
                      "pr.yuv,pt.yuv,16,16,4,\n"
                      "pr.yuv,pt.yuv,16,16,4,9\n"
                      "pd.yuv,pt.yuv,16,16,4,\n",
                      &t, &errors));
  Plan q;
  EXPECT_FALSE(make_plan(t, BatchSettings{}, &q, &errors).is_ok());
  EXPECT_TRUE(has_error(errors, "trunc.csv:2: chunked row: ")) << joined(errors);
  EXPECT_TRUE(has_error(errors, "frame 9 is truncated")) << joined(errors);
  EXPECT_FALSE(has_error(errors, "trunc.csv:3:")) << joined(errors);
  EXPECT_TRUE(has_error(errors, "trunc.csv:4: chunked row: ")) << joined(errors);
}

// ---- result files ----

UnitResult sample_result() {
  UnitResult r;
  r.key = std::string(64, 'a');
  r.key_text = {"vmafx-batch key 1", "engine x"};
  r.row = 3;
  r.line = 5;
  r.tag = "tag with\nnewline\\";
  r.reference = "/r.yuv";
  r.distorted = "/d y.yuv";
  r.backend = "cpu";
  r.host = "node1";
  r.whole = false;
  r.first = 10;
  r.end = 13;
  r.row_frames = 20;
  r.frames = 3;
  r.columns = {"vmaf", "integer_motion2", "psnr_y"};
  const double tricky[] = {0.1, -0.0, std::numeric_limits<double>::denorm_min(), 1e308 * 10,
                           -std::numeric_limits<double>::infinity(), 76.43636938916262, std::nan(""), 1.0 / 3};
  for (uint64_t f = 10; f < 13; f++) {
    UnitResult::Frame fr;
    fr.index = f;
    for (size_t c = 0; c < 3; c++) {
      fr.values.push_back(tricky[(f * 3 + c) % 8]);
      fr.present.push_back(f == 11 && c == 2 ? 0 : 1);
    }
    r.frames_scored.push_back(fr);
  }
  r.aggregates = {{"apsnr_y", 41.5}};
  return r;
}

TEST(BatchResult, RoundTripIsLossless) {
  const UnitResult r = sample_result();
  const std::string text = format_result(r);
  UnitResult back;
  ASSERT_OK(parse_result(text, r.key, &back));
  EXPECT_EQ(back.tag, r.tag);
  EXPECT_EQ(back.distorted, r.distorted);
  EXPECT_EQ(back.key_text, r.key_text);
  EXPECT_EQ(back.columns, r.columns);
  EXPECT_FALSE(back.whole);
  EXPECT_EQ(back.first, 10u);
  EXPECT_EQ(back.end, 13u);
  ASSERT_EQ(back.frames_scored.size(), 3u);
  for (size_t f = 0; f < 3; f++) {
    EXPECT_EQ(back.frames_scored[f].present, r.frames_scored[f].present);
    for (size_t c = 0; c < 3; c++) {
      if (!r.frames_scored[f].present[c]) continue;
      const double a = r.frames_scored[f].values[c], b = back.frames_scored[f].values[c];
      EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << hex_double(a) << " came back as " << hex_double(b);
    }
  }
  ASSERT_EQ(back.aggregates.size(), 1u);
  EXPECT_EQ(back.aggregates[0].second, 41.5);
  EXPECT_EQ(format_result(back), text);
}

TEST(BatchResult, DamagedOrForeignFilesAreRefused) {
  const UnitResult r = sample_result();
  const std::string text = format_result(r);
  UnitResult out;
  EXPECT_FALSE(parse_result(text, std::string(64, 'b'), &out).is_ok());  // another key
  // Cut anywhere: never accepted.
  for (size_t n = 0; n < text.size(); n += 7) EXPECT_FALSE(parse_result(text.substr(0, n), "", &out).is_ok()) << n;
  // One changed byte anywhere but in the checksum itself: refused.
  for (size_t i = 0; i + 66 < text.size(); i += 5) {
    std::string t = text;
    t[i] = t[i] == '0' ? '1' : '0';
    EXPECT_FALSE(parse_result(t, r.key, &out).is_ok()) << i;
  }
  // A correct checksum over wrong content: the lines are still checked.
  std::string body = text.substr(0, text.rfind("end "));
  std::string bad = body;
  bad.replace(bad.find("frame 11"), 8, "frame 09");
  bad += "end " + sha256_hex(bad) + "\n";
  EXPECT_FALSE(parse_result(bad, r.key, &out).is_ok());
  std::string other = "vmafx-batch-result 2\n";
  other += "end " + sha256_hex(other) + "\n";
  EXPECT_FALSE(parse_result(other, "", &out).is_ok());
}

TEST(BatchResult, FailedRecordRoundTrip) {
  FailedRecord f;
  f.key = std::string(64, 'c');
  f.row = 12;
  f.tag = "t";
  f.host = "node2";
  f.slurm = "job 5 task 12 on node2";
  f.error = "frame 9 is truncated\nsecond line";
  FailedRecord g;
  ASSERT_OK(parse_failed(format_failed(f), &g));
  EXPECT_EQ(g.key, f.key);
  EXPECT_EQ(g.row, 12u);
  EXPECT_EQ(g.error, f.error);
  EXPECT_EQ(g.slurm, f.slurm);
  // A failure record is never a result.
  UnitResult r;
  EXPECT_FALSE(parse_result(format_failed(f), "", &r).is_ok());
}

TEST(BatchResult, AtomicWriteReplacesWholeAndLeavesNoTemporaryFile) {
  const std::string dir = temp_dir() + "/atomic";
  mkdir(dir.c_str(), 0777);
  const std::string path = dir + "/x.result";
  ASSERT_OK(write_file_atomic(path, "first\n"));
  ASSERT_OK(write_file_atomic(path, std::string(1 << 20, 'z')));
  std::string text;
  bool exists = false;
  ASSERT_OK(read_file(path, &text, &exists));
  EXPECT_TRUE(exists);
  EXPECT_EQ(text, std::string(1 << 20, 'z'));
  // Only the file itself is left.
  size_t n = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) n += e->d_name[0] == '.' ? 0 : 1;
    closedir(d);
  }
  EXPECT_EQ(n, 1u);
  EXPECT_FALSE(write_file_atomic(dir + "/no/such/dir/x", "x").is_ok());
  ASSERT_OK(read_file(dir + "/none", &text, &exists));
  EXPECT_FALSE(exists);
  EXPECT_TRUE(is_temporary_name(".x.result.node1.123.0.tmp"));
  EXPECT_FALSE(is_temporary_name("x.result"));
}

// ---- merge ----

TEST(BatchMerge, ChunksPoolAsOneAndMismatchesAreRefused) {
  Row row;
  row.index = 0;
  row.subsample = 1;
  UnitResult a, b, whole;
  for (UnitResult* u : {&a, &b, &whole}) u->columns = {"vmaf"};
  a.whole = b.whole = false;
  a.first = 0;
  a.end = 2;
  b.first = 2;
  b.end = 5;
  a.row_frames = b.row_frames = 5;
  a.frames = 2;
  b.frames = 3;
  whole.frames = 5;
  const double v[] = {90, 40, 70.5, 10, 99};
  for (uint64_t f = 0; f < 5; f++) {
    UnitResult::Frame fr;
    fr.index = f;
    fr.values = {v[f]};
    fr.present = {1};
    (f < 2 ? a : b).frames_scored.push_back(fr);
    whole.frames_scored.push_back(fr);
  }
  MergedRow mc, mw;
  ASSERT_OK(merge_row(row, {a, b}, &mc));
  ASSERT_OK(merge_row(row, {whole}, &mw));
  EXPECT_EQ(mc.frames, 5u);
  const PoolStats pc = mc.collector.pool(0), pw = mw.collector.pool(0);
  EXPECT_EQ(pc.count, 5u);
  EXPECT_EQ(pc.mean, pw.mean);
  EXPECT_EQ(pc.harmonic_mean, pw.harmonic_mean);
  EXPECT_EQ(pc.min, 10);
  EXPECT_EQ(pc.max, 99);
  EXPECT_EQ(pc.percentile(50), pw.percentile(50));
  EXPECT_EQ(mc.collector.pool(0).mean, (90 + 40 + 70.5 + 10 + 99) / 5);
  // A gap, an overlap, a missing end, other columns: refused.
  MergedRow m;
  EXPECT_FALSE(merge_row(row, {b}, &m).is_ok());
  EXPECT_FALSE(merge_row(row, {a}, &m).is_ok());
  EXPECT_FALSE(merge_row(row, {a, a}, &m).is_ok());
  UnitResult c = b;
  c.columns = {"psnr_y"};
  EXPECT_FALSE(merge_row(row, {a, c}, &m).is_ok());
}

TEST(BatchMerge, TablesWriteEveryNumberExactly) {
  EXPECT_EQ(number_text(0.1), "0.1");
  EXPECT_EQ(number_text(76.43636938916262), "76.43636938916262");
  EXPECT_EQ(number_text(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(number_text(std::nan("")), "nan");
  for (double x : {1.0 / 3, 2.0 / 3 * 100, 5e-324, 1.7976931348623157e308}) {
    const double back = std::strtod(number_text(x).c_str(), nullptr);
    EXPECT_EQ(std::memcmp(&x, &back, sizeof x), 0) << number_text(x);
  }
  Row row;
  row.index = 4;
  row.line = 6;
  row.tag = "a,b";
  row.reference = "r.yuv";
  row.distorted = "d.yuv";
  UnitResult u;
  u.columns = {"vmaf"};
  u.frames = 2;
  for (uint64_t f = 0; f < 2; f++) {
    UnitResult::Frame fr;
    fr.index = f;
    fr.values = {f ? 1.0 / 3 : 0.5};
    fr.present = {1};
    u.frames_scored.push_back(fr);
  }
  u.aggregates = {{"apsnr_y", 40.25}};
  MergedRow m;
  ASSERT_OK(merge_row(row, {u}, &m));
  std::vector<MergedRow> rows;
  rows.push_back(std::move(m));
  TableOptions o;
  o.percentiles = {50};
  const std::string csv = table_csv(rows, o);
  EXPECT_EQ(csv,
            "row,line,tag,reference,distorted,frames,vmaf_mean,vmaf_harmonic_mean,vmaf_min,vmaf_max,vmaf_p50,apsnr_y\n"
            "4,6,\"a,b\",r.yuv,d.yuv,2," + number_text((0.5 + 1.0 / 3) / 2) + "," +
                number_text(rows[0].collector.pool(0).harmonic_mean) + "," + number_text(1.0 / 3) + ",0.5," +
                number_text(rows[0].collector.pool(0).percentile(50)) + ",40.25\n");
  EXPECT_EQ(frames_csv(rows), "row,tag,frame,vmaf\n4,\"a,b\",0,0.5\n4,\"a,b\",1," + number_text(1.0 / 3) + "\n");
  o.per_frame = true;
  const std::string json = table_json("m.csv", rows, o);
  EXPECT_NE(json.find("\"pooled\": {\n       \"vmaf\": {\"mean\": " + number_text((0.5 + 1.0 / 3) / 2)),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"aggregates\": {\"apsnr_y\": 40.25}"), std::string::npos) << json;
  EXPECT_NE(json.find("{\"frame\": 1, \"vmaf\": " + number_text(1.0 / 3) + "}"), std::string::npos) << json;
}

}  // namespace
}  // namespace vmafx::tools::batch
