// SPDX-License-Identifier: LGPL-2.1-or-later
// Results files against libvmaf's own writers: the scratch libvmaf CLI's files for pair c and libvmaf's writers on
// crafted values (tests/data/output/README.md says how each was made), byte for byte once the same doubles are in
// the collector (aggregate metrics and infinities included); the JSON parses back to the numbers written; a path
// that cannot be written fails cleanly.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <thread>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "support.h"
#include "vmafx/output.h"

using nlohmann::json;
using vmafx::Collector;
using vmafx::Errc;
using vmafx::ResultsFormat;
using vmafx::ResultsInfo;
using vmafx::Status;

namespace {

std::string data_dir() { return vmafx::test::project_data_dir() + "/output"; }

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << "cannot open " << path;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

double value_of(const json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return v.get<double>();
}

// The doubles libvmaf's collector held (dumped by the reference run), in its column order; null: not written.
uint64_t fill_from_values(const std::string& path, Collector* c) {
  const json d = json::parse(read_text(path));
  for (const auto& col : d.at("columns")) {
    const size_t k = c->add_column(col.at("name").get<std::string>());
    const auto& v = col.at("values");
    for (size_t i = 0; i < v.size(); i++)
      if (!v[i].is_null()) c->set(i, k, value_of(v[i]));
  }
  return d.at("frames").get<uint64_t>();
}

// The fps a libvmaf file carries (CPU-time based, so it is taken from the file rather than reproduced).
double fps_of(const std::string& text) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex("\"fps\": ([0-9.]+|null)")) ||
      std::regex_search(text, m, std::regex("fps=\"([0-9.]+)\"")))
    return m[1] == "null" ? std::numeric_limits<double>::quiet_NaN() : std::stod(m[1]);
  return 0;
}

// libvmaf's aggregate_metrics as printed (only psnr's apsnr fills them; the value is passed back in).
std::vector<std::pair<std::string, double>> aggregate_of(const std::string& json_text) {
  std::vector<std::pair<std::string, double>> v;
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(json_text);
  for (auto it = j.at("aggregate_metrics").begin(); it != j.at("aggregate_metrics").end(); ++it)
    v.emplace_back(it.key(), it.value().get<double>());
  return v;
}

std::string render(const Collector& c, ResultsFormat f, const ResultsInfo& info) {
  std::ostringstream os;
  Status s = vmafx::write_results(c, f, info, os);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  return os.str();
}

// Equal texts, or the first differing line.
void expect_same_text(const std::string& ours, const std::string& theirs, const std::string& what) {
  if (ours == theirs) return;
  std::istringstream a(ours), b(theirs);
  std::string la, lb;
  for (int line = 1;; line++) {
    const bool ea = !std::getline(a, la), eb = !std::getline(b, lb);
    if (ea || eb || la != lb) {
      ADD_FAILURE() << what << ": first difference at line " << line << "\n  ours:    " << (ea ? "<end>" : la)
                    << "\n  libvmaf: " << (eb ? "<end>" : lb);
      return;
    }
  }
}

struct Reference {
  std::string stem;    // tests/data/output/<stem>.<ext> and <stem>.values.json
  unsigned subsample;
  uint32_t width, height;
  std::vector<std::string> formats;
  bool has_aggregate;
};

void check_reference(const Reference& r) {
  Collector c;
  const uint64_t frames = fill_from_values(data_dir() + "/" + r.stem + ".values.json", &c);
  c.set_subsample(r.subsample);
  if (r.has_aggregate)
    for (const auto& [name, v] : aggregate_of(read_text(data_dir() + "/" + r.stem + ".json"))) c.set_aggregate(name, v);
  for (const auto& ext : r.formats) {
    const std::string want = read_text(data_dir() + "/" + r.stem + "." + ext);
    ResultsFormat f;
    ASSERT_TRUE(vmafx::parse_results_format(ext, &f));
    ResultsInfo info;
    info.width = r.width;
    info.height = r.height;
    info.fps = fps_of(want);
    info.frame_count = frames;
    expect_same_text(render(c, f, info), want, r.stem + "." + ext);
  }
}

}  // namespace

TEST(Output, ParsesFormatNames) {
  ResultsFormat f;
  for (auto [name, want] : {std::pair{"xml", ResultsFormat::xml}, std::pair{"JSON", ResultsFormat::json},
                            std::pair{"csv", ResultsFormat::csv}, std::pair{"Sub", ResultsFormat::sub},
                            std::pair{"none", ResultsFormat::none}}) {
    ASSERT_TRUE(vmafx::parse_results_format(name, &f)) << name;
    EXPECT_EQ(f, want) << name;
  }
  EXPECT_FALSE(vmafx::parse_results_format("yaml", &f));
  EXPECT_FALSE(vmafx::parse_results_format("", &f));
  EXPECT_STREQ(vmafx::results_format_name(ResultsFormat::csv), "csv");
}

// The patched scratch CLI on pair c (default model, psnr, float_ssim, float_ms_ssim, cambi), all four formats.
TEST(Output, MatchesLibvmafCliOnPairC) {
  check_reference({"c_blurnoise_v061", 1, 321, 241, {"json", "xml", "csv", "sub"}, false});
}

// The same with --subsample 2: odd frames are left out of every format and of pooling, although the collector holds
// motion and psnr values for them.
TEST(Output, MatchesLibvmafCliWithSubsample) {
  check_reference({"c_blurnoise_v061_sub2", 2, 321, 241, {"json", "xml", "csv", "sub"}, false});
}

// libvmaf's writers on crafted columns: values needing "%.16f" (tiny, -1.0000001), NaN and infinities (null in JSON,
// a line without newline), a column missing a frame (no pooled values; CSV cells shift), numbers past int range,
// -0.0, and aggregate metrics (psnr apsnr). With and without subsample.
TEST(Output, MatchesLibvmafOnEdgeValues) {
  check_reference({"edge_sub1", 1, 16, 16, {"json", "xml", "csv", "sub"}, true});
  check_reference({"edge_sub2", 2, 16, 16, {"json", "xml", "csv", "sub"}, true});
}

// Filled from the oracle JSON itself (values as printed, 6 decimals): the JSON written parses back to the same
// per-frame numbers exactly (a 6-decimal value printed with %.6f is the same text), and pooled values are the
// oracle's within 1e-6 (the inputs carry up to 5e-7 rounding each, the oracle's own print another 5e-7).
TEST(Output, JsonParsesBackToTheOracle) {
  for (const auto& pair : vmafx::test::oracle_pairs()) {
    const std::string path = pair.oracle_path("vmaf_v0.6.1");
    vmafx::test::Oracle o;
    ASSERT_TRUE(vmafx::test::load_oracle(path, &o).is_ok()) << path;
    const json src = json::parse(read_text(path));
    Collector c;
    for (auto it = src.at("frames")[0].at("metrics").begin(); it != src.at("frames")[0].at("metrics").end(); ++it)
      c.add_column(it.key());
    for (size_t f = 0; f < o.frames.size(); f++)
      for (const auto& [name, v] : o.frames[f]) c.set(o.frame_num[f], size_t(c.find(name)), v);
    ResultsInfo info;
    info.width = pair.width;
    info.height = pair.height;
    info.fps = 25;
    const json back = json::parse(render(c, ResultsFormat::json, info));
    EXPECT_EQ(back.at("version"), "3.2.0");
    ASSERT_EQ(back.at("frames").size(), o.frames.size());
    for (size_t f = 0; f < o.frames.size(); f++) {
      EXPECT_EQ(back.at("frames")[f].at("frameNum").get<unsigned>(), o.frame_num[f]);
      for (const auto& [name, v] : o.frames[f]) EXPECT_EQ(back.at("frames")[f].at("metrics").at(name).get<double>(), v);
    }
    double max_pool = 0;
    for (const auto& [name, stats] : o.pooled)
      for (const auto& [key, v] : stats) {
        const double d = std::fabs(back.at("pooled_metrics").at(name).at(key).get<double>() - v);
        max_pool = std::max(max_pool, d);
        EXPECT_LE(d, 1e-6 + 1e-12) << path << " " << name << " " << key;  // one unit in the 6th decimal
      }
    std::printf("%s: pooled max |ours - oracle| = %.2g\n", pair.name().c_str(), max_pool);
  }
}

TEST(Output, JsonStaysValidWithoutFrameZero) {
  Collector c;
  const size_t k = c.add_column("vmaf");
  c.set(1, k, 50);
  c.set(2, k, 70);
  const json back = json::parse(render(c, ResultsFormat::json, {}));
  ASSERT_EQ(back.at("frames").size(), 2u);
  EXPECT_EQ(back.at("frames")[0].at("frameNum"), 1);
  EXPECT_TRUE(back.at("pooled_metrics").at("vmaf").empty()) << "frame 0 has no vmaf, so libvmaf pools nothing";
  EXPECT_TRUE(json::parse(render(Collector(), ResultsFormat::json, {})).at("frames").empty());
}

TEST(Output, UnwritablePathFails) {
  Collector c;
  c.set(0, c.add_column("vmaf"), 1.0);
  const std::string missing_dir = "/nonexistent-vmafx-dir/results.json";
  Status s = vmafx::write_results(c, ResultsFormat::json, {}, missing_dir);
  EXPECT_EQ(s.code(), Errc::io_error);
  EXPECT_NE(s.message().find(missing_dir), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("No such file or directory"), std::string::npos) << s.message();

  s = vmafx::write_results(c, ResultsFormat::xml, {}, "/tmp");
  EXPECT_EQ(s.code(), Errc::io_error);
  EXPECT_NE(s.message().find("Is a directory"), std::string::npos) << s.message();

  s = vmafx::write_results(c, ResultsFormat::csv, {}, "/dev/full");
  EXPECT_EQ(s.code(), Errc::io_error) << "a full device must not pass silently";
  EXPECT_NE(s.message().find("No space left"), std::string::npos) << s.message();

  std::ostringstream bad;
  bad.setstate(std::ios::badbit);
  EXPECT_EQ(vmafx::write_results(c, ResultsFormat::sub, {}, bad).code(), Errc::io_error);
  std::ostringstream os;
  EXPECT_EQ(vmafx::write_results(c, ResultsFormat::none, {}, os).code(), Errc::invalid_argument);
}

TEST(Output, WritesAFile) {
  Collector c;
  const size_t k = c.add_column("vmaf");
  for (int i = 0; i < 3; i++) c.set(i, k, 90 + i);
  char tmpl[] = "/tmp/vmafx_test_output_XXXXXX";
  const int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  close(fd);
  ASSERT_TRUE(vmafx::write_results(c, ResultsFormat::csv, {}, tmpl).is_ok());
  EXPECT_EQ(read_text(tmpl), "Frame,vmaf,\n0,90.000000,\n1,91.000000,\n2,92.000000,\n");
  std::remove(tmpl);
}

// write_file_atomically: a file replaced whole, its permission bits kept; a symbolic link followed (the link
// stays); a FIFO written in place; a failing write (the file-size limit, in a child process: EFBIG, as a full disk's
// ENOSPC) leaves the old file and no temporary.
TEST(Output, FilesAreReplacedAtomically) {
  char tmpl[] = "/tmp/vmafx_test_atomic_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl, file = dir + "/r.json";
  auto listing = [&] {
    std::vector<std::string> v;
    DIR* d = opendir(dir.c_str());
    while (const dirent* e = d ? readdir(d) : nullptr)
      if (e->d_name[0] != '.' || (e->d_name[1] && e->d_name[1] != '.' && std::string(e->d_name) != ".."))
        v.push_back(e->d_name);
    if (d) closedir(d);
    std::sort(v.begin(), v.end());
    return v;
  };
  ASSERT_TRUE(vmafx::write_file_atomically(file, "one").is_ok());
  EXPECT_EQ(read_text(file), "one");
  ASSERT_EQ(chmod(file.c_str(), 0600), 0);
  ASSERT_TRUE(vmafx::write_file_atomically(file, "two, longer").is_ok());
  EXPECT_EQ(read_text(file), "two, longer");
  struct stat st;
  ASSERT_EQ(stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(listing(), std::vector<std::string>{"r.json"});

  const std::string link = dir + "/link.json";
  ASSERT_EQ(symlink("r.json", link.c_str()), 0);
  ASSERT_TRUE(vmafx::write_file_atomically(link, "three").is_ok());
  struct stat lst;
  ASSERT_EQ(lstat(link.c_str(), &lst), 0);
  EXPECT_TRUE(S_ISLNK(lst.st_mode)) << "the link was replaced by a file";
  EXPECT_EQ(read_text(file), "three");

  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read_text(fifo); });
  EXPECT_TRUE(vmafx::write_file_atomically(fifo, "through the pipe").is_ok());
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  struct stat fst;
  ASSERT_EQ(lstat(fifo.c_str(), &fst), 0);
  EXPECT_TRUE(S_ISFIFO(fst.st_mode));
  ASSERT_EQ(unlink(fifo.c_str()), 0);
  ASSERT_EQ(unlink(link.c_str()), 0);

  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit lim{1024, 1024};
    setrlimit(RLIMIT_FSIZE, &lim);
    const Status s = vmafx::write_file_atomically(file, std::string(5000, 'x'));
    const bool named = s.message().find(file) != std::string::npos && s.message().find("File too large") != std::string::npos;
    _exit(s.code() == Errc::io_error && named ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the failed write was not reported as io_error";
  EXPECT_EQ(read_text(file), "three") << "the old file changed";
  EXPECT_EQ(listing(), std::vector<std::string>{"r.json"}) << "a temporary was left behind";

  EXPECT_EQ(vmafx::write_file_atomically(dir + "/no/such/dir/f", "x").code(), Errc::io_error);
  EXPECT_EQ(vmafx::write_file_atomically(dir, "x").code(), Errc::io_error);
  EXPECT_EQ(vmafx::write_file_atomically("", "x").code(), Errc::invalid_argument);
  std::remove(file.c_str());
  rmdir(dir.c_str());
}

// The collector's aggregate metrics as libvmaf 3.2's CLI writes them (tests/data/output/sample_same_luma.*: apsnr_y
// at its cap, apsnr_cb and apsnr_cr of planes not scored, -inf): XML with printf's "-inf", JSON null, none in CSV
// and SUB; float_ssim's +infinity per frame and pooled. The collector holds the values of libvmaf's CSV (all
// exact at 6 decimals here); the files are the same bytes once version and fps are libvmaf's.
TEST(Output, AggregateMetricsAndInfinitiesAsLibvmafWritesThem) {
  Collector c;
  std::istringstream csv(read_text(data_dir() + "/sample_same_luma.csv"));
  std::string line;
  std::getline(csv, line);
  std::vector<size_t> cols;
  for (size_t at = line.find(',') + 1; at < line.size(); at = line.find(',', at) + 1)
    cols.push_back(c.add_column(line.substr(at, line.find(',', at) - at)));
  uint64_t frames = 0;
  while (std::getline(csv, line)) {
    std::vector<std::string> cells;
    for (size_t at = 0, end; (end = line.find(',', at)) != std::string::npos; at = end + 1)
      cells.push_back(line.substr(at, end - at));
    ASSERT_EQ(cells.size(), cols.size() + 1) << line;
    const uint64_t frame = std::stoull(cells[0]);
    for (size_t k = 0; k < cols.size(); k++) c.set(frame, cols[k], std::stod(cells[k + 1]));
    frames = frame + 1;
  }
  ASSERT_EQ(frames, 3u);
  c.set_aggregate("apsnr_y", 105);
  c.set_aggregate("apsnr_cb", -std::numeric_limits<double>::infinity());
  c.set_aggregate("apsnr_cr", 1);
  c.set_aggregate("apsnr_cr", -std::numeric_limits<double>::infinity());  // replaces, keeps the order
  ASSERT_EQ(c.aggregates().size(), 3u);
  for (const char* ext : {"json", "xml", "csv", "sub"}) {
    const std::string want = read_text(data_dir() + "/sample_same_luma." + ext);
    ResultsFormat f;
    ASSERT_TRUE(vmafx::parse_results_format(ext, &f));
    ResultsInfo info;
    info.width = 320;
    info.height = 240;
    info.fps = fps_of(want);
    info.version = "f85a8536";  // the git describe that build writes
    info.frame_count = frames;
    expect_same_text(render(c, f, info), want, std::string("sample_same_luma.") + ext);
  }
  c.clear();
  EXPECT_TRUE(c.aggregates().empty());
  const json none = json::parse(render(c, ResultsFormat::json, {}));
  EXPECT_TRUE(none.at("aggregate_metrics").empty());
}
