// SPDX-License-Identifier: LGPL-2.1-or-later
// The four layouts of libvmaf's output.c, reproduced from its format strings: spacing, separators, the number rule
// and the pooling over [0, pic_cnt) are the same, so tools written for libvmaf's files read these unchanged. Numbers
// are formatted with std::to_chars, which is printf in the "C" locale whatever the process locale is.
#include "vmafx/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>

namespace vmafx {

namespace {

std::string fixed(double v, int precision) {
  char buf[400];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, precision);
  if (r.ec != std::errc()) return "nan";
  return std::string(buf, r.ptr);
}

// Zeros between the decimal point and the first nonzero digit of the fractional part, counted the way libvmaf does
// (by multiplying by ten). Beyond int range libvmaf's (int) cast yields INT_MIN on x86, which counts as 0.
int leading_zeros(double x) {
  if (x < 0) x = std::fabs(x);
  if (!(x < 2147483648.0)) return 0;
  const int int_part = int(x);
  double frac = x - int_part;
  int n = 0;
  while (frac < 1.0 && frac != 0) {
    frac *= 10;
    n++;
  }
  return n;
}

// "%.6f", or "%.16f" when more than six zeros follow the decimal point.
std::string number(double v) { return fixed(v, leading_zeros(v) <= 6 ? 6 : 16); }

bool is_finite(double v) { return std::isfinite(v); }

struct Pooled {
  bool ok = false;
  double min = 0, max = 0, mean = 0, harmonic_mean = 0;
};

// libvmaf's vmaf_feature_score_pooled over [0, frame_count - 1]: every scored frame must hold a value, or the
// column has no pooled values.
Pooled pool(const Collector& c, size_t col, uint64_t frame_count) {
  Pooled p;
  if (frame_count == 0) return p;
  unsigned pic_cnt = 0;
  double min = 0., max = 0., sum = 0., i_sum = 0.;
  for (uint64_t i = 0; i < frame_count; i++) {
    if (!c.is_scored(i)) continue;
    pic_cnt++;
    double s;
    if (!c.get(i, col, &s)) return p;
    sum += s;
    i_sum += 1. / (s + 1.);
    if (i == 0 || s < min) min = s;
    if (i == 0 || s > max) max = s;
  }
  p.ok = true;
  p.min = min;
  p.max = max;
  p.mean = sum / pic_cnt;
  p.harmonic_mean = pic_cnt / i_sum - 1.0;
  return p;
}

bool has_any(const Collector& c, uint64_t frame) {
  for (size_t j = 0; j < c.columns(); j++)
    if (c.has(frame, j)) return true;
  return false;
}

uint64_t pic_count(const Collector& c, const ResultsInfo& info) {
  return info.frame_count ? info.frame_count : c.frames();
}

void write_xml(const Collector& c, const ResultsInfo& info, std::string& o) {
  o += "<VMAF version=\"" + info.version + "\">\n";
  o += "  <params qualityWidth=\"" + std::to_string(info.width) + "\" qualityHeight=\"" +
       std::to_string(info.height) + "\" />\n";
  o += "  <fyi fps=\"" + fixed(info.fps, 2) + "\" />\n";
  o += "  <frames>\n";
  for (uint64_t i = 0; i < c.frames(); i++) {
    if (!c.is_scored(i) || !has_any(c, i)) continue;
    o += "    <frame frameNum=\"" + std::to_string(i) + "\" ";
    for (size_t j = 0; j < c.columns(); j++) {
      double v;
      if (!c.get(i, j, &v)) continue;
      o += c.name(j) + "=\"" + number(v) + "\" ";
    }
    o += "/>\n";
  }
  o += "  </frames>\n";
  o += "  <pooled_metrics>\n";
  const uint64_t n = pic_count(c, info);
  for (size_t j = 0; j < c.columns(); j++) {
    o += "    <metric name=\"" + c.name(j) + "\" ";
    const Pooled p = pool(c, j, n);
    if (p.ok) {
      o += "min=\"" + number(p.min) + "\" ";
      o += "max=\"" + number(p.max) + "\" ";
      o += "mean=\"" + number(p.mean) + "\" ";
      o += "harmonic_mean=\"" + number(p.harmonic_mean) + "\" ";
    }
    o += "/>\n";
  }
  o += "  </pooled_metrics>\n";
  o += "  <aggregate_metrics ";
  // libvmaf prints non-finite aggregates here with printf ("-inf", "inf", "nan"), as to_chars does.
  for (const auto& [name, v] : c.aggregates()) o += name + "=\"" + number(v) + "\" ";
  o += "/>\n";
  o += "</VMAF>\n";
}

void write_json(const Collector& c, const ResultsInfo& info, std::string& o) {
  o += "{\n";
  o += "  \"version\": \"" + info.version + "\",\n";
  o += is_finite(info.fps) ? "  \"fps\": " + fixed(info.fps, 2) + ",\n" : "  \"fps\": null,\n";
  o += "  \"frames\": [";
  unsigned n_frames = 0;
  for (uint64_t i = 0; i < c.frames(); i++) {
    if (!c.is_scored(i)) continue;
    unsigned cnt = 0;
    for (size_t j = 0; j < c.columns(); j++) cnt += c.has(i, j) ? 1 : 0;
    if (!cnt) continue;
    // libvmaf keys the separator on the frame number; keyed on frames written it is the same whenever frame 0 has
    // scores, and stays valid JSON when it has none.
    o += n_frames > 0 ? ",\n" : "\n";
    o += "    {\n";
    o += "      \"frameNum\": " + std::to_string(i) + ",\n";
    o += "      \"metrics\": {\n";
    unsigned cnt2 = 0;
    for (size_t j = 0; j < c.columns(); j++) {
      double v;
      if (!c.get(i, j, &v)) continue;
      cnt2++;
      const char* sep = cnt2 < cnt ? "," : "";
      if (is_finite(v))
        o += "        \"" + c.name(j) + "\": " + number(v) + sep + "\n";
      else
        o += "        \"" + c.name(j) + "\": null" + sep;  // libvmaf ends this line without a newline
    }
    o += "      }\n";
    o += "    }";
    n_frames++;
  }
  o += "\n  ],\n";

  o += "  \"pooled_metrics\": {";
  const uint64_t n = pic_count(c, info);
  for (size_t j = 0; j < c.columns(); j++) {
    o += j > 0 ? ",\n" : "\n";
    o += "    \"" + c.name(j) + "\": {";
    const Pooled p = pool(c, j, n);
    if (p.ok) {
      const std::pair<const char*, double> stats[] = {
          {"min", p.min}, {"max", p.max}, {"mean", p.mean}, {"harmonic_mean", p.harmonic_mean}};
      bool first = true;
      for (const auto& [key, v] : stats) {
        o += first ? "\n" : ",\n";
        first = false;
        o += std::string("      \"") + key + "\": " + (is_finite(v) ? number(v) : std::string("null"));
      }
    }
    o += "\n";
    o += "    }";
  }
  o += "\n  },\n";

  o += "  \"aggregate_metrics\": {";
  const auto& aggregates = c.aggregates();
  for (size_t i = 0; i < aggregates.size(); i++) {
    const auto& [name, v] = aggregates[i];
    o += "\n    \"" + name + "\": " + (is_finite(v) ? number(v) : std::string("null"));
    o += i + 1 < aggregates.size() ? "," : "";
  }
  o += "\n  }\n";
  o += "}\n";
}

void write_csv(const Collector& c, std::string& o) {
  o += "Frame,";
  for (size_t j = 0; j < c.columns(); j++) o += c.name(j) + ",";
  o += "\n";
  for (uint64_t i = 0; i < c.frames(); i++) {
    if (!c.is_scored(i) || !has_any(c, i)) continue;
    o += std::to_string(i) + ",";
    for (size_t j = 0; j < c.columns(); j++) {
      double v;
      if (c.get(i, j, &v)) o += number(v) + ",";  // like libvmaf, a missing value leaves no empty cell
    }
    o += "\n";
  }
}

void write_sub(const Collector& c, std::string& o) {
  for (uint64_t i = 0; i < c.frames(); i++) {
    if (!c.is_scored(i) || !has_any(c, i)) continue;
    const std::string f = std::to_string(i);
    o += "{" + f + "}{" + std::to_string(i + 1) + "}frame: " + f + "|";
    for (size_t j = 0; j < c.columns(); j++) {
      double v;
      if (c.get(i, j, &v)) o += c.name(j) + ": " + number(v) + "|";
    }
    o += "\n";
  }
}

Status render(const Collector& c, ResultsFormat fmt, const ResultsInfo& info, std::string* out) {
  out->clear();
  switch (fmt) {
    case ResultsFormat::xml: write_xml(c, info, *out); return Status::ok();
    case ResultsFormat::json: write_json(c, info, *out); return Status::ok();
    case ResultsFormat::csv: write_csv(c, *out); return Status::ok();
    case ResultsFormat::sub: write_sub(c, *out); return Status::ok();
    case ResultsFormat::none: break;
  }
  return {Errc::invalid_argument, "results format 'none' has nothing to write"};
}

}  // namespace

bool parse_results_format(const std::string& s, ResultsFormat* out) {
  std::string l;
  for (char ch : s) l += char(std::tolower(static_cast<unsigned char>(ch)));
  if (l == "none") *out = ResultsFormat::none;
  else if (l == "xml") *out = ResultsFormat::xml;
  else if (l == "json") *out = ResultsFormat::json;
  else if (l == "csv") *out = ResultsFormat::csv;
  else if (l == "sub") *out = ResultsFormat::sub;
  else return false;
  return true;
}

const char* results_format_name(ResultsFormat f) {
  switch (f) {
    case ResultsFormat::none: return "none";
    case ResultsFormat::xml: return "xml";
    case ResultsFormat::json: return "json";
    case ResultsFormat::csv: return "csv";
    case ResultsFormat::sub: return "sub";
  }
  return "?";
}

Status write_results(const Collector& c, ResultsFormat fmt, const ResultsInfo& info, std::ostream& os) {
  std::string text;
  VMAFX_TRY(render(c, fmt, info, &text));
  os.write(text.data(), std::streamsize(text.size()));
  os.flush();
  if (!os) return {Errc::io_error, "writing the results stream failed"};
  return Status::ok();
}

namespace {

Status io_failure(const std::string& what, int err) { return {Errc::io_error, what + ": " + std::strerror(err)}; }

// Every byte to fd (write() may write less); 0 or the errno.
int write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    done += size_t(n);
  }
  return 0;
}

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

Status write_file_atomically(const std::string& path, const std::string& bytes) {
  if (path.empty()) return {Errc::invalid_argument, "no file name to write"};
  std::string target = path;
  struct stat st;
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return io_failure("cannot write " + path, EISDIR);
    // A FIFO, a terminal, /dev/stdout: nothing to replace, written in place.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return io_failure("cannot open " + path, errno);
    int err = write_all(fd, bytes);
    if (::close(fd) != 0 && !err) err = errno;
    return err ? io_failure("writing " + path + " failed", err) : Status::ok();
  }
  if (exists) {
    // Follow symbolic links: the link stays, its target is replaced.
    char* real = ::realpath(path.c_str(), nullptr);
    if (real) {
      target = real;
      std::free(real);
    }
  }
  const std::string dir = dir_of(target);
  const std::string base = target.substr(target.rfind('/') == std::string::npos ? 0 : target.rfind('/') + 1);
  static std::atomic<unsigned> counter{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
    tmp = dir + "/." + base + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) return io_failure("cannot create a file beside " + path + " (" + tmp + ")", errno);
  }
  if (fd < 0) return {Errc::io_error, "cannot create a temporary file beside " + path};
  auto fail = [&](const std::string& what, int err) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return io_failure(what, err);
  };
  if (exists && ::fchmod(fd, st.st_mode & 07777) != 0) return fail("cannot set the permissions of " + tmp, errno);
  if (int err = write_all(fd, bytes)) return fail("writing " + path + " failed", err);
  if (::fsync(fd) != 0) return fail("writing " + path + " failed (fsync)", errno);
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) return fail("writing " + path + " failed (close)", errno);
  if (::rename(tmp.c_str(), target.c_str()) != 0) return fail("cannot replace " + path, errno);
  // The rename itself reaches the disk with the directory.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    const int synced = ::fsync(dfd);
    const int err = errno;
    ::close(dfd);
    if (synced != 0 && err != EINVAL && err != EROFS)
      return io_failure("writing " + path + " failed (fsync of " + dir + ")", err);
  }
  return Status::ok();
}

Status write_results(const Collector& c, ResultsFormat fmt, const ResultsInfo& info, const std::string& path) {
  std::string text;
  VMAFX_TRY(render(c, fmt, info, &text));
  return write_file_atomically(path, text).prepend("results file");
}

}  // namespace vmafx
