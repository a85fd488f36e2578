// SPDX-License-Identifier: LGPL-2.1-or-later
#include "batch/result.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "batch/plan.h"
#include "batch/sha256.h"

namespace vmafx::tools::batch {

namespace {

constexpr const char* kResultMagic = "vmafx-batch-result 1";
constexpr const char* kFailedMagic = "vmafx-batch-failed 1";

// VMAFX_BATCH_TEST_KILL, in builds with test hooks only: "mid-write" kills the process with SIGKILL after half of a
// result's bytes reached the temporary file, "before-rename" after the whole file was written and fsync'ed. Read
// once; the tests use it to show that a task killed while writing leaves nothing a merge accepts.
enum class KillPoint { none, mid_write, before_rename };
KillPoint test_kill_point() {
  if (!VMAFX_TEST_HOOKS) return KillPoint::none;
  static const KillPoint k = [] {
    const char* v = std::getenv("VMAFX_BATCH_TEST_KILL");
    if (!v) return KillPoint::none;
    if (std::strcmp(v, "mid-write") == 0) return KillPoint::mid_write;
    if (std::strcmp(v, "before-rename") == 0) return KillPoint::before_rename;
    return KillPoint::none;
  }();
  return k;
}

std::string errno_text() { return std::strerror(errno); }

Status write_all(int fd, const char* p, size_t n, const std::string& path) {
  while (n) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return {Errc::io_error, "cannot write " + path + ": " + errno_text()};
    }
    p += w;
    n -= size_t(w);
  }
  return Status::ok();
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      out.push_back(text.substr(pos));
      break;
    }
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

// "word rest": the rest after the first blank.
bool take(std::string_view line, std::string_view word, std::string* rest) {
  if (line.size() < word.size() || line.substr(0, word.size()) != word) return false;
  if (line.size() == word.size()) {
    rest->clear();
    return true;
  }
  if (line[word.size()] != ' ') return false;
  *rest = std::string(line.substr(word.size() + 1));
  return true;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t sp = s.find(' ', pos);
    if (sp == std::string::npos) sp = s.size();
    out.push_back(s.substr(pos, sp - pos));
    pos = sp + 1;
  }
  return out;
}

bool to_u64(const std::string& s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = uint64_t(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

Status bad(const std::string& what) { return {Errc::invalid_argument, what}; }

}  // namespace

std::string hex_double(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%a", v);
  return b;
}

bool parse_double(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  *out = v;
  return true;
}

std::string result_path(const std::string& dir, const std::string& key) { return dir + "/" + key + ".result"; }
std::string failed_path(const std::string& dir, const std::string& key) { return dir + "/" + key + ".failed"; }
bool is_temporary_name(const std::string& name) {
  return name.size() > 5 && name[0] == '.' && name.compare(name.size() - 4, 4, ".tmp") == 0;
}

std::string format_result(const UnitResult& r) {
  std::string t;
  t.reserve(256 + r.frames_scored.size() * (16 + 24 * r.columns.size()));
  t += kResultMagic;
  t += "\nkey " + r.key + "\n";
  for (const auto& k : r.key_text) t += "keytext " + k + "\n";
  t += "row " + std::to_string(r.row) + " " + std::to_string(r.line) + "\n";
  t += "tag " + escape_line(r.tag) + "\n";
  t += "reference " + escape_line(r.reference) + "\n";
  t += "distorted " + escape_line(r.distorted) + "\n";
  t += "backend " + escape_line(r.backend) + "\n";
  t += "host " + escape_line(r.host) + "\n";
  t += "slurm " + escape_line(r.slurm) + "\n";
  char secs[64];
  std::snprintf(secs, sizeof secs, "%.3f", r.seconds);
  t += std::string("seconds ") + secs + "\n";
  if (r.whole)
    t += "range whole\n";
  else
    t += "range " + std::to_string(r.first) + " " + std::to_string(r.end) + " " + std::to_string(r.row_frames) + "\n";
  t += "frames " + std::to_string(r.frames) + "\n";
  for (const auto& c : r.columns) t += "column " + c + "\n";
  for (const auto& f : r.frames_scored) {
    t += "frame " + std::to_string(f.index);
    for (size_t c = 0; c < r.columns.size(); c++) {
      t += ' ';
      t += c < f.present.size() && f.present[c] ? hex_double(f.values[c]) : std::string("-");
    }
    t += '\n';
  }
  for (const auto& [name, v] : r.aggregates) t += "aggregate " + name + " " + hex_double(v) + "\n";
  t += "end " + sha256_hex(t) + "\n";
  return t;
}

Status parse_result(std::string_view text, const std::string& expected_key, UnitResult* out) {
  // The checksum first: the last line, over everything before it.
  if (text.empty() || text.back() != '\n') return bad("the file does not end with a complete line (cut short)");
  const size_t last = text.rfind('\n', text.size() - 2);
  const size_t end_at = last == std::string_view::npos ? 0 : last + 1;
  std::string sum;
  if (!take(text.substr(end_at, text.size() - 1 - end_at), "end", &sum))
    return bad("no end line (the file was cut short)");
  if (sum != sha256_hex(text.substr(0, end_at))) return bad("the checksum of the end line does not match the file");
  const std::vector<std::string_view> lines = lines_of(text.substr(0, end_at));
  if (lines.empty() || lines[0] != kResultMagic)
    return bad("not a vmafx-batch result of version 1 (first line: '" +
               std::string(lines.empty() ? "" : lines[0].substr(0, 40)) + "')");
  UnitResult r;
  size_t i = 1;
  std::string rest;
  if (i >= lines.size() || !take(lines[i++], "key", &r.key) || r.key.size() != 64) return bad("no key line");
  if (!expected_key.empty() && r.key != expected_key)
    return bad("the key inside is " + r.key + ", not " + expected_key);
  bool have_range = false, have_frames = false;
  for (; i < lines.size(); i++) {
    const std::string_view l = lines[i];
    const std::string where = "line " + std::to_string(i + 1);
    if (take(l, "keytext", &rest)) {
      r.key_text.push_back(rest);
    } else if (take(l, "row", &rest)) {
      const auto w = words(rest);
      if (w.size() != 2 || !to_u64(w[0], &r.row) || !to_u64(w[1], &r.line)) return bad(where + ": bad row line");
    } else if (take(l, "tag", &rest)) {
      r.tag = unescape_line(rest);
    } else if (take(l, "reference", &rest)) {
      r.reference = unescape_line(rest);
    } else if (take(l, "distorted", &rest)) {
      r.distorted = unescape_line(rest);
    } else if (take(l, "backend", &rest)) {
      r.backend = unescape_line(rest);
    } else if (take(l, "host", &rest)) {
      r.host = unescape_line(rest);
    } else if (take(l, "slurm", &rest)) {
      r.slurm = unescape_line(rest);
    } else if (take(l, "seconds", &rest)) {
      if (!parse_double(rest, &r.seconds)) return bad(where + ": bad seconds line");
    } else if (take(l, "range", &rest)) {
      const auto w = words(rest);
      if (w.size() == 1 && w[0] == "whole") {
        r.whole = true;
      } else if (w.size() == 3 && to_u64(w[0], &r.first) && to_u64(w[1], &r.end) && to_u64(w[2], &r.row_frames) &&
                 r.first < r.end && r.end <= r.row_frames) {
        r.whole = false;
      } else {
        return bad(where + ": bad range line");
      }
      have_range = true;
    } else if (take(l, "frames", &rest)) {
      if (!to_u64(rest, &r.frames)) return bad(where + ": bad frames line");
      have_frames = true;
    } else if (take(l, "column", &rest)) {
      if (!r.frames_scored.empty()) return bad(where + ": a column after the frames");
      if (rest.empty() || rest.find(' ') != std::string::npos) return bad(where + ": bad column name");
      r.columns.push_back(rest);
    } else if (take(l, "frame", &rest)) {
      const auto w = words(rest);
      UnitResult::Frame f;
      if (w.size() != r.columns.size() + 1 || !to_u64(w[0], &f.index))
        return bad(where + ": a frame line with " + std::to_string(w.size() - 1) + " values for " +
                   std::to_string(r.columns.size()) + " columns");
      if (!r.frames_scored.empty() && f.index <= r.frames_scored.back().index)
        return bad(where + ": frames out of order");
      f.values.resize(r.columns.size());
      f.present.resize(r.columns.size());
      for (size_t c = 0; c < r.columns.size(); c++) {
        if (w[c + 1] == "-") continue;
        if (!parse_double(w[c + 1], &f.values[c])) return bad(where + ": bad value '" + w[c + 1] + "'");
        f.present[c] = 1;
      }
      r.frames_scored.push_back(std::move(f));
    } else if (take(l, "aggregate", &rest)) {
      const auto w = words(rest);
      double v = 0;
      if (w.size() != 2 || !parse_double(w[1], &v)) return bad(where + ": bad aggregate line");
      r.aggregates.emplace_back(w[0], v);
    } else {
      return bad(where + ": unknown line '" + std::string(l.substr(0, 40)) + "'");
    }
  }
  if (!have_range || !have_frames || r.columns.empty()) return bad("the range, frames or column lines are missing");
  if (!r.whole)
    for (const auto& f : r.frames_scored)
      if (f.index < r.first || f.index >= r.end)
        return bad("frame " + std::to_string(f.index) + " is outside the range");
  *out = std::move(r);
  return Status::ok();
}

std::string format_failed(const FailedRecord& f) {
  std::string t = kFailedMagic;
  t += "\nkey " + f.key + "\nrow " + std::to_string(f.row) + "\ntag " + escape_line(f.tag) + "\nhost " +
       escape_line(f.host) + "\nslurm " + escape_line(f.slurm) + "\nerror " + escape_line(f.error) + "\n";
  return t;
}

Status parse_failed(std::string_view text, FailedRecord* out) {
  const auto lines = lines_of(text);
  if (lines.empty() || lines[0] != kFailedMagic) return bad("not a vmafx-batch failure record");
  FailedRecord f;
  std::string rest;
  for (size_t i = 1; i < lines.size(); i++) {
    if (take(lines[i], "key", &rest)) f.key = rest;
    else if (take(lines[i], "row", &rest)) to_u64(rest, &f.row);
    else if (take(lines[i], "tag", &rest)) f.tag = unescape_line(rest);
    else if (take(lines[i], "host", &rest)) f.host = unescape_line(rest);
    else if (take(lines[i], "slurm", &rest)) f.slurm = unescape_line(rest);
    else if (take(lines[i], "error", &rest)) f.error = unescape_line(rest);
  }
  if (f.key.size() != 64) return bad("a failure record without its key");
  *out = std::move(f);
  return Status::ok();
}

Status read_file(const std::string& path, std::string* out, bool* exists) {
  *exists = false;
  out->clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::ok();
    return {Errc::io_error, "cannot open " + path + ": " + errno_text()};
  }
  *exists = true;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string e = errno_text();
      ::close(fd);
      return {Errc::io_error, "cannot read " + path + ": " + e};
    }
    if (n == 0) break;
    out->append(buf, size_t(n));
  }
  ::close(fd);
  return Status::ok();
}

Status write_file_atomic(const std::string& path, std::string_view bytes) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  char host[256] = "host";
  gethostname(host, sizeof host - 1);
  static std::atomic<unsigned> serial{0};
  const std::string tmp = dir + "/." + base + "." + host + "." + std::to_string(getpid()) + "." +
                          std::to_string(serial++) + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return {Errc::io_error, "cannot create " + tmp + ": " + errno_text()};
  auto fail = [&](Status s) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  };
  const KillPoint kill_at = test_kill_point();
  const size_t half = kill_at == KillPoint::mid_write ? bytes.size() / 2 : bytes.size();
  if (Status s = write_all(fd, bytes.data(), half, tmp); !s) return fail(s);
  if (kill_at == KillPoint::mid_write) raise(SIGKILL);
  if (Status s = write_all(fd, bytes.data() + half, bytes.size() - half, tmp); !s) return fail(s);
  if (::fsync(fd) != 0) return fail({Errc::io_error, "cannot fsync " + tmp + ": " + errno_text()});
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    return {Errc::io_error, "cannot close " + tmp + ": " + errno_text()};
  }
  if (kill_at == KillPoint::before_rename) raise(SIGKILL);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string e = errno_text();
    ::unlink(tmp.c_str());
    return {Errc::io_error, "cannot rename " + tmp + " to " + path + ": " + e};
  }
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return {Errc::io_error, "cannot open folder " + dir + " to fsync it: " + errno_text()};
  const int rc = ::fsync(dfd);
  const std::string e = errno_text();
  ::close(dfd);
  if (rc != 0) return {Errc::io_error, "cannot fsync folder " + dir + ": " + e};
  return Status::ok();
}

}  // namespace vmafx::tools::batch
