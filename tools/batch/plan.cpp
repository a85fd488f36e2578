// SPDX-License-Identifier: LGPL-2.1-or-later
#include "batch/plan.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "batch/sha256.h"
#include "vmafx_batch_version.h"
#include "vmafx/model.h"

namespace vmafx::tools::batch {

bool parse_identity(const std::string& s, Identity* out) {
  if (s == "stat") *out = Identity::stat;
  else if (s == "content") *out = Identity::content;
  else return false;
  return true;
}

const char* identity_name(Identity i) { return i == Identity::stat ? "stat" : "content"; }

const char* engine_version() {
  static const std::string v = std::string(VMAFX_BATCH_PROJECT_VERSION) ==  VMAFX_BATCH_ENGINE_BUILD
                                   ? std::string(VMAFX_BATCH_PROJECT_VERSION)
                                   : std::string(VMAFX_BATCH_PROJECT_VERSION) + " (" + VMAFX_BATCH_ENGINE_BUILD + ")";
  return v.c_str();
}

namespace {

// Full frames of an opened input from where it stands, and whether a partial frame follows them.
Status count_frames(const VideoReader& r, uint64_t* full, bool* partial) {
  VideoReader::Cursor c = r.cursor();
  *full = 0;
  *partial = false;
  for (;;) {
    const uint8_t* frame = nullptr;
    bool got = false;
    Status s = r.locate(&c, &frame, &got);
    if (s.code() == Errc::truncated) {
      *partial = true;
      return Status::ok();
    }
    VMAFX_TRY(s);
    if (!got) return Status::ok();
    (*full)++;
  }
}

}  // namespace

Status open_pair(const Row& row, VideoReader* ref, VideoReader* dist) {
  for (const std::string* p : {&row.ref_path, &row.dist_path}) {
    struct stat st;
    if (stat(p->c_str(), &st) != 0) return {Errc::io_error, "cannot open " + *p + ": " + std::strerror(errno)};
    if (!S_ISREG(st.st_mode)) return {Errc::invalid_argument, *p + " is not a regular file (a manifest names files)"};
  }
  VMAFX_TRY(ref->open(row.ref_path, row.given, ReadMode::mmap));
  VMAFX_TRY(dist->open(row.dist_path, row.given, ReadMode::mmap));
  if (ref->width() != dist->width() || ref->height() != dist->height())
    return {Errc::unsupported, "reference is " + std::to_string(ref->width()) + "x" + std::to_string(ref->height()) +
                                   " but distorted is " + std::to_string(dist->width()) + "x" +
                                   std::to_string(dist->height())};
  if (ref->format().bit_depth != dist->format().bit_depth)
    return {Errc::unsupported, "reference is " + std::to_string(ref->format().bit_depth) + "-bit but distorted is " +
                                   std::to_string(dist->format().bit_depth) + "-bit"};
  if (ref->format().chroma != dist->format().chroma)
    return {Errc::unsupported, std::string("reference chroma is ") + chroma_name(ref->format().chroma) +
                                   " but distorted is " + chroma_name(dist->format().chroma)};
  return Status::ok();
}

Status count_row_frames(const Row& row, uint64_t* frames) {
  VideoReader ref, dist;
  VMAFX_TRY(open_pair(row, &ref, &dist));
  VMAFX_TRY(ref.skip(row.skip_ref));
  VMAFX_TRY(dist.skip(row.skip_dist));
  uint64_t fr = 0, fd = 0;
  bool pr = false, pd = false;
  VMAFX_TRY(count_frames(ref, &fr, &pr));
  VMAFX_TRY(count_frames(dist, &fd, &pd));
  uint64_t n = std::min(fr, fd);
  const bool limited = row.frame_cnt && row.frame_cnt <= n;
  if (limited) n = row.frame_cnt;
  // A run over the whole pair reads frame n of both inputs unless frame_cnt stops it first: a partial frame there
  // fails it.
  if (!limited) {
    if (pr && fr == n) return {Errc::truncated, row.ref_path + ": frame " + std::to_string(n + row.skip_ref) +
                                                    " is truncated (the file ends inside it)"};
    if (pd && fd == n) return {Errc::truncated, row.dist_path + ": frame " + std::to_string(n + row.skip_dist) +
                                                    " is truncated (the file ends inside it)"};
  }
  if (n == 0) return {Errc::invalid_argument, "no frames to score"};
  *frames = n;
  return Status::ok();
}

uint64_t chunk_size(const Row& row, const BatchSettings& s) {
  return row.chunk_given ? row.chunk_frames : s.chunk_frames;
}

Status make_plan(const Manifest& m, const BatchSettings& s, Plan* out, std::vector<std::string>* errors) {
  Plan p;
  const size_t before = errors->size();
  for (const Row& row : m.rows) {
    p.first_unit.push_back(p.units.size());
    const uint64_t c = chunk_size(row, s);
    if (c == 0) {
      Unit u;
      u.row = row.index;
      p.units.push_back(u);
      p.unit_count.push_back(1);
      continue;
    }
    uint64_t n = 0;
    if (Status st = count_row_frames(row, &n); !st) {
      errors->push_back(row_where(m, row) + ": chunked row: " + st.message());
      p.unit_count.push_back(0);
      continue;
    }
    const uint64_t k = (n + c - 1) / c;
    for (uint64_t i = 0; i < k; i++) {
      Unit u;
      u.row = row.index;
      u.whole = false;
      u.chunk = unsigned(i);
      u.chunks = unsigned(k);
      u.first = i * c;
      u.end = std::min(n, (i + 1) * c);
      u.row_frames = n;
      p.units.push_back(u);
    }
    p.unit_count.push_back(unsigned(k));
  }
  *out = std::move(p);
  if (errors->size() != before) return {Errc::invalid_argument, "rows cannot be split into chunks"};
  return Status::ok();
}

// ---- keys ----

namespace {

// A value inside a key line: escape_line, and blanks and '=' escaped too so that items cannot run together.
std::string kv(const std::string& s) {
  std::string o;
  for (char c : escape_line(s)) {
    if (c == ' ') o += "\\x20";
    else if (c == '=') o += "\\x3d";
    else o += c;
  }
  return o;
}

Status hash_file(const std::string& path, uint64_t max_bytes, std::string* hex, uint64_t* size) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return {Errc::io_error, "cannot open " + path + ": " + std::strerror(errno)};
  Sha256 h;
  std::vector<char> buf(size_t(1) << 20);
  uint64_t total = 0;
  for (;;) {
    const size_t got = std::fread(buf.data(), 1, buf.size(), f);
    if (got) h.update(buf.data(), got);
    total += got;
    if (max_bytes && total > max_bytes) {
      std::fclose(f);
      return {Errc::model_error, path + " has more than " + std::to_string(max_bytes >> 20) + " MiB"};
    }
    if (got < buf.size()) break;
  }
  const bool bad = std::ferror(f);
  std::fclose(f);
  if (bad) return {Errc::io_error, "cannot read " + path};
  *hex = h.hex();
  *size = total;
  return Status::ok();
}

}  // namespace

Status IdentityCache::input(const std::string& path, std::string* out) {
  if (auto it = inputs_.find(path); it != inputs_.end()) {
    *out = it->second;
    return Status::ok();
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return {Errc::io_error, "cannot open " + path + ": " + std::strerror(errno)};
  if (!S_ISREG(st.st_mode)) return {Errc::invalid_argument, path + " is not a regular file (a manifest names files)"};
  std::string id;
  if (mode_ == Identity::stat) {
    char mtime[64];
    std::snprintf(mtime, sizeof mtime, "%lld.%09ld", static_cast<long long>(st.st_mtim.tv_sec),
                  static_cast<long>(st.st_mtim.tv_nsec));
    id = "path=" + kv(path) + " size=" + std::to_string(st.st_size) + " mtime=" + mtime;
  } else {
    std::string hex;
    uint64_t size = 0;
    VMAFX_TRY(hash_file(path, 0, &hex, &size));
    id = "sha256=" + hex + " size=" + std::to_string(size);
  }
  inputs_[path] = id;
  *out = id;
  return Status::ok();
}

Status IdentityCache::model_file(const std::string& path, std::string* out) {
  if (auto it = models_.find(path); it != models_.end()) {
    *out = it->second;
    return Status::ok();
  }
  std::string hex;
  uint64_t size = 0;
  VMAFX_TRY(hash_file(path, Model::kMaxFileBytes, &hex, &size).prepend("model file"));
  models_[path] = "sha256=" + hex;
  *out = models_[path];
  return Status::ok();
}

Status unit_key_text(const Row& row, const Unit& unit, IdentityCache* ids, std::string* text) {
  std::string t = "vmafx-batch key 1\n";
  t += std::string("engine ") + engine_version() + "\n";
  std::string id;
  VMAFX_TRY(ids->input(row.ref_path, &id));
  t += "reference " + id + "\n";
  VMAFX_TRY(ids->input(row.dist_path, &id));
  t += "distorted " + id + "\n";
  t += "given width=" + std::to_string(row.given.width) + " height=" + std::to_string(row.given.height) +
       " pixel_format=" + kv(row.given.pixel_format) + " bitdepth=" + std::to_string(row.given.bit_depth) +
       "\n";
  t += "frames skip_ref=" + std::to_string(row.skip_ref) + " skip_dist=" + std::to_string(row.skip_dist) +
       " frame_cnt=" + std::to_string(row.frame_cnt) + " subsample=" + std::to_string(row.subsample) + "\n";
  if (unit.whole)
    t += "range whole\n";
  else
    t += "range " + std::to_string(unit.first) + " " + std::to_string(unit.end) + " of " +
         std::to_string(unit.row_frames) + "\n";
  for (const ModelSpec& m : row.sel.models) {
    const ModelRequest& r = m.request;
    t += "model " + kv(r.model) + " column=" + kv(m.column()) +
         " disable_clip=" + (r.disable_clip ? "1" : "0") + " enable_transform=" + (r.enable_transform ? "1" : "0");
    if (m.path.empty()) {
      t += " builtin";
    } else {
      VMAFX_TRY(ids->model_file(r.model, &id));
      t += " " + id;
    }
    for (const auto& [k, v] : r.overrides) t += " " + kv(k) + "=" + kv(v);
    t += "\n";
  }
  for (const FeatureRequest& f : row.sel.features) {
    t += "feature " + kv(f.name);
    for (const auto& [k, v] : f.options) t += " " + kv(k) + "=" + kv(v);
    t += "\n";
  }
  *text = std::move(t);
  return Status::ok();
}

Status unit_key(const Row& row, const Unit& unit, IdentityCache* ids, std::string* key, std::string* text) {
  std::string t;
  VMAFX_TRY(unit_key_text(row, unit, ids, &t));
  *key = sha256_hex(t);
  if (text) *text = std::move(t);
  return Status::ok();
}

// ---- task numbers ----

UnitRange pack_units(uint64_t task, uint64_t pack, uint64_t total) {
  if (pack == 0 || task > total / pack) return {total, total};
  const uint64_t first = task * pack;
  if (first >= total) return {total, total};
  return {first, first + std::min(pack, total - first)};
}

uint64_t pack_count(uint64_t total, uint64_t pack) { return pack ? total / pack + (total % pack ? 1 : 0) : 0; }

std::vector<uint64_t> packs_of(const std::vector<uint64_t>& units, uint64_t pack) {
  std::vector<uint64_t> out;
  if (!pack) return out;
  for (uint64_t u : units)
    if (out.empty() || out.back() != u / pack) out.push_back(u / pack);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string compress_ranges(const std::vector<uint64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) j++;
    if (!s.empty()) s += ",";
    s += std::to_string(v[i]);
    if (j > i) s += "-" + std::to_string(v[j]);
    i = j + 1;
  }
  return s;
}

Status parse_ranges(const std::string& text, uint64_t limit, const std::string& what, std::vector<uint64_t>* out) {
  std::vector<uint64_t> v;
  if (text.empty()) return {Errc::invalid_argument, what + " needs a number or a range (A-B), got nothing"};
  size_t pos = 0;
  for (;;) {
    const size_t comma = text.find(',', pos);
    const std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const size_t dash = part.find('-');
    uint64_t a = 0, b = 0;
    const uint64_t max = limit ? limit - 1 : 0;
    if (limit == 0) return {Errc::invalid_argument, what + " " + text + ": there is nothing to choose from"};
    if (dash == std::string::npos) {
      VMAFX_TRY(parse_uint(part, 0, max, what, &a));
      b = a;
    } else {
      VMAFX_TRY(parse_uint(part.substr(0, dash), 0, max, what, &a));
      VMAFX_TRY(parse_uint(part.substr(dash + 1), 0, max, what, &b));
      if (b < a) return {Errc::invalid_argument, what + " " + part + ": the range ends before it starts"};
    }
    if (b - a > (uint64_t(1) << 26)) return {Errc::invalid_argument, what + " " + part + ": too many at once"};
    for (uint64_t x = a; x <= b; x++) v.push_back(x);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  *out = std::move(v);
  return Status::ok();
}

std::string escape_line(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    if (c == '\\') o += "\\\\";
    else if (c == '\n') o += "\\n";
    else if (c == '\t') o += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      o += b;
    } else {
      o += char(c);
    }
  }
  return o;
}

std::string unescape_line(const std::string& s) {
  std::string o;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      o += s[i];
      continue;
    }
    const char n = s[++i];
    if (n == 'n') o += '\n';
    else if (n == 't') o += '\t';
    else if (n == 'x' && i + 2 < s.size()) {
      o += char(std::strtol(s.substr(i + 1, 2).c_str(), nullptr, 16));
      i += 2;
    } else {
      o += n;
    }
  }
  return o;
}

}  // namespace vmafx::tools::batch
