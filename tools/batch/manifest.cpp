// SPDX-License-Identifier: LGPL-2.1-or-later
#include "batch/manifest.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace vmafx::tools::batch {

namespace {

// The manifest's columns, in the order the documentation lists them.
const std::vector<std::string>& known_columns() {
  static const std::vector<std::string> k = {
      "reference", "distorted",      "width",           "height",    "pixel_format", "bitdepth",
      "model",     "feature",        "aom_ctc",         "nflx_ctc",  "subsample",    "frame_skip_ref",
      "frame_skip_dist", "frame_cnt", "chunk_frames",   "tag"};
  return k;
}

bool is_known(const std::string& c) {
  for (const auto& k : known_columns())
    if (k == c) return true;
  return false;
}

std::string known_list() {
  std::string s;
  for (const auto& k : known_columns()) s += (s.empty() ? "" : ", ") + k;
  return s;
}

std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r')) a++;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r')) b--;
  return std::string(s.substr(a, b - a));
}

bool skipped_line(std::string_view line) {
  const std::string t = trim(line);
  return t.empty() || t[0] == '#';
}

// One value of a row: the cell's text (or, from JSON, each element of an array), and where it was.
struct Cell {
  std::vector<std::string> values;  // one, except a JSON array
  std::string where;                // "column 4 (width)" / "key \"width\""
};

// A row before it is interpreted: column -> cell.
struct RawRow {
  uint64_t line = 0;
  std::map<std::string, Cell> cells;
};

// ---- CSV ----

// Splits the file into records (RFC 4180: fields separated by ',', double quotes around a field that holds ',', '"'
// or a line break, '""' for a quote inside). Unquoted fields lose the blanks around them.
struct CsvRecord {
  uint64_t line = 0;
  std::vector<std::string> fields;
};

Status parse_csv(const std::string& file, const std::string& text, std::vector<CsvRecord>* out,
                 std::vector<std::string>* errors) {
  uint64_t line = 1;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    // Start of a line: skip blank and comment lines.
    size_t eol = text.find('\n', i);
    if (eol == std::string::npos) eol = n;
    if (skipped_line(std::string_view(text).substr(i, eol - i))) {
      i = eol + 1;
      line++;
      continue;
    }
    CsvRecord rec;
    rec.line = line;
    std::string field;
    bool quoted = false, was_quoted = false, bad = false;
    auto end_field = [&] {
      rec.fields.push_back(was_quoted ? field : trim(field));
      field.clear();
      was_quoted = false;
    };
    for (;;) {
      if (i >= n) {
        if (quoted) {
          errors->push_back(file + ":" + std::to_string(rec.line) +
                            ": a quoted field is not closed before the end of the file");
          bad = true;
        }
        end_field();
        break;
      }
      const char c = text[i++];
      if (quoted) {
        if (c == '"' && i < n && text[i] == '"') {
          field += '"';
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          if (c == '\n') line++;
          field += c;
        }
        continue;
      }
      if (c == ',') {
        end_field();
        continue;
      }
      if (c == '\n') {
        end_field();
        line++;
        break;
      }
      if (c == '"') {
        if (was_quoted || !trim(field).empty()) {
          errors->push_back(file + ":" + std::to_string(line) + ": column " + std::to_string(rec.fields.size() + 1) +
                            ": a quote inside an unquoted field (quote the whole field and double the quote)");
          bad = true;
        }
        field.clear();
        quoted = was_quoted = true;
        continue;
      }
      if (was_quoted) {
        if (c != ' ' && c != '\t' && c != '\r') {
          errors->push_back(file + ":" + std::to_string(line) + ": column " + std::to_string(rec.fields.size() + 1) +
                            ": text after the closing quote");
          bad = true;
        }
        continue;
      }
      field += c;
    }
    if (!bad) out->push_back(std::move(rec));
  }
  return Status::ok();
}

Status csv_rows(const std::string& file, const std::string& text, std::vector<RawRow>* rows,
                std::vector<std::string>* errors) {
  std::vector<CsvRecord> recs;
  VMAFX_TRY(parse_csv(file, text, &recs, errors));
  if (recs.empty()) {
    errors->push_back(file + ": no header line (the first line names the columns: " + known_list() + ")");
    return Status::ok();
  }
  const CsvRecord& header = recs[0];
  std::vector<std::string> names;
  bool header_ok = true;
  for (size_t k = 0; k < header.fields.size(); k++) {
    const std::string& c = header.fields[k];
    const std::string at = file + ":" + std::to_string(header.line) + ": column " + std::to_string(k + 1);
    if (!is_known(c)) {
      errors->push_back(at + ": unknown column '" + c + "' (known: " + known_list() + ")");
      header_ok = false;
    }
    for (size_t j = 0; j < k; j++)
      if (names[j] == c) {
        errors->push_back(at + ": column '" + c + "' again (first in column " + std::to_string(j + 1) + ")");
        header_ok = false;
      }
    names.push_back(c);
  }
  if (!header_ok) return Status::ok();
  for (size_t r = 1; r < recs.size(); r++) {
    const CsvRecord& rec = recs[r];
    if (rec.fields.size() > names.size()) {
      errors->push_back(file + ":" + std::to_string(rec.line) + ": " + std::to_string(rec.fields.size()) +
                        " fields, but the header names " + std::to_string(names.size()) + " columns");
      continue;
    }
    RawRow row;
    row.line = rec.line;
    for (size_t k = 0; k < rec.fields.size(); k++) {
      if (rec.fields[k].empty()) continue;
      Cell cell;
      cell.values.push_back(rec.fields[k]);
      cell.where = "column " + std::to_string(k + 1) + " (" + names[k] + ")";
      row.cells[names[k]] = std::move(cell);
    }
    rows->push_back(std::move(row));
  }
  return Status::ok();
}

// ---- JSON Lines ----

Status jsonl_rows(const std::string& file, const std::string& text, std::vector<RawRow>* rows,
                  std::vector<std::string>* errors) {
  std::istringstream in(text);
  std::string line;
  uint64_t n = 0;
  while (std::getline(in, line)) {
    n++;
    if (skipped_line(line)) continue;
    const std::string at = file + ":" + std::to_string(n);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      errors->push_back(at + ":" + std::to_string(e.byte) + ": not JSON: " + e.what());
      continue;
    }
    if (!j.is_object()) {
      errors->push_back(at + ": a row is a JSON object ({\"reference\": ..., \"distorted\": ...})");
      continue;
    }
    RawRow row;
    row.line = n;
    bool ok = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& key = it.key();
      const std::string where = "key \"" + key + "\"";
      if (!is_known(key)) {
        errors->push_back(at + ": " + where + ": unknown (known: " + known_list() + ")");
        ok = false;
        continue;
      }
      Cell cell;
      cell.where = where;
      auto scalar = [&](const nlohmann::json& v, std::string* s) {
        if (v.is_string()) *s = v.get<std::string>();
        else if (v.is_number_unsigned()) *s = std::to_string(v.get<uint64_t>());
        else if (v.is_boolean()) *s = v.get<bool>() ? "true" : "false";
        else return false;
        return true;
      };
      const nlohmann::json& v = it.value();
      if (v.is_null()) continue;
      if (v.is_array() && (key == "model" || key == "feature")) {
        for (const auto& e : v) {
          std::string s;
          if (!e.is_string()) {
            errors->push_back(at + ": " + where + ": every element is a string in libvmaf's syntax");
            ok = false;
            break;
          }
          s = e.get<std::string>();
          cell.values.push_back(s);
        }
      } else {
        std::string s;
        if (!scalar(v, &s)) {
          errors->push_back(at + ": " + where + ": a string" +
                            (key == "model" || key == "feature" ? std::string(" or an array of strings") : "") +
                            (v.is_number() ? " or a whole number" : "") + " is expected, not " + v.dump());
          ok = false;
          continue;
        }
        if (s.empty()) continue;
        cell.values.push_back(s);
      }
      row.cells[key] = std::move(cell);
    }
    if (ok) rows->push_back(std::move(row));
  }
  return Status::ok();
}

// ---- rows ----

const std::vector<std::string> kPixelFormats = {"420", "422", "444", "400", "i420", "yv12",
                                                "nv12", "nv21", "p010", "p016"};

void interpret(const std::string& file, const std::string& dir, const RawRow& raw, Row* row,
               std::vector<std::string>* errors) {
  const std::string at = file + ":" + std::to_string(raw.line);
  row->line = raw.line;
  auto cell = [&](const char* name) -> const Cell* {
    auto it = raw.cells.find(name);
    return it == raw.cells.end() ? nullptr : &it->second;
  };
  auto err = [&](const Cell& c, const std::string& msg) { errors->push_back(at + ": " + c.where + ": " + msg); };
  auto one = [&](const char* name, std::string* out) {
    const Cell* c = cell(name);
    if (!c) return false;
    *out = c->values.empty() ? std::string() : c->values[0];
    return true;
  };
  auto number = [&](const char* name, uint64_t min, uint64_t max, uint64_t* out) {
    const Cell* c = cell(name);
    if (!c || c->values.empty()) return false;
    if (Status s = parse_uint(c->values[0], min, max, name, out); !s) {
      err(*c, s.message());
      return false;
    }
    return true;
  };

  for (const char* name : {"reference", "distorted"}) {
    std::string v;
    if (!one(name, &v) || v.empty()) {
      errors->push_back(at + ": no " + std::string(name) + " path (the column is required)");
      continue;
    }
    (name[0] == 'r' ? row->reference : row->distorted) = v;
    (name[0] == 'r' ? row->ref_path : row->dist_path) = resolve_path(dir, v);
  }
  one("tag", &row->tag);
  uint64_t v = 0;
  if (number("width", 1, kMaxDimension, &v)) row->given.width = uint32_t(v);
  if (number("height", 1, kMaxDimension, &v)) row->given.height = uint32_t(v);
  if (std::string f; one("pixel_format", &f)) {
    bool ok = false;
    for (const auto& k : kPixelFormats) ok = ok || k == f;
    if (ok) {
      row->given.pixel_format = f;
    } else {
      std::string all;
      for (const auto& k : kPixelFormats) all += (all.empty() ? "" : ", ") + k;
      err(*cell("pixel_format"), "'" + f + "' is not a pixel format (" + all + ")");
    }
  }
  if (const Cell* c = cell("bitdepth"); c && !c->values.empty()) {
    if (number("bitdepth", 8, 16, &v)) {
      if (v != 8 && v != 10 && v != 12 && v != 16) err(*c, "bit depth is 8, 10, 12 or 16, not " + std::to_string(v));
      else row->given.bit_depth = unsigned(v);
    }
  }
  if (number("subsample", 1, UINT32_MAX, &v)) row->subsample = unsigned(v);
  if (number("frame_skip_ref", 0, uint64_t(1) << 40, &v)) row->skip_ref = v;
  if (number("frame_skip_dist", 0, uint64_t(1) << 40, &v)) row->skip_dist = v;
  if (number("frame_cnt", 0, uint64_t(1) << 40, &v)) row->frame_cnt = v;
  if (number("chunk_frames", 0, UINT32_MAX, &v)) {
    row->chunk_frames = v;
    row->chunk_given = true;
  }

  // What to score: the presets, then the models, then the features (the order of their columns).
  size_t errors_before = errors->size();
  for (auto [name, which] : {std::pair<const char*, Ctc>{"aom_ctc", Ctc::aom}, {"nflx_ctc", Ctc::nflx}}) {
    const Cell* c = cell(name);
    if (!c) continue;
    for (const auto& val : c->values)
      if (Status s = apply_ctc(which, val, &row->sel); !s) err(*c, s.message());
  }
  if (const Cell* c = cell("model")) {
    for (const auto& val : c->values)
      for (const auto& spec : split_specs(val)) {
        if (Status s = add_model(spec, &row->sel); !s) {
          err(*c, s.message());
          continue;
        }
        ModelSpec& m = row->sel.models.back();
        if (!m.path.empty()) m.request.model = resolve_path(dir, m.path);
      }
  }
  if (const Cell* c = cell("feature")) {
    for (const auto& val : c->values)
      for (const auto& spec : split_specs(val))
        if (Status s = add_feature(spec, &row->sel); !s) err(*c, s.message());
  }
  if (errors->size() == errors_before)
    if (Status s = finish_selection(false, &row->sel); !s) errors->push_back(at + ": " + s.message());
  if (row->sel.common_bitdepth)
    errors->push_back(at + ": --aom_ctc v6.0 and later score inputs of different bit depths at the higher one in "
                           "libvmaf; vmafx does not, use v5.0 or earlier for such pairs");
}

}  // namespace

std::vector<std::string> split_specs(const std::string& cell) {
  std::vector<std::string> out;
  size_t pos = 0;
  for (;;) {
    const size_t end = cell.find(';', pos);
    std::string piece = trim(std::string_view(cell).substr(pos, end == std::string::npos ? std::string::npos
                                                                                         : end - pos));
    if (!piece.empty()) out.push_back(std::move(piece));
    if (end == std::string::npos) return out;
    pos = end + 1;
  }
}

std::string resolve_path(const std::string& dir, const std::string& path) {
  std::string joined = (!path.empty() && path[0] == '/') || dir.empty() ? path : dir + "/" + path;
  const bool absolute = !joined.empty() && joined[0] == '/';
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= joined.size()) {
    size_t end = joined.find('/', pos);
    if (end == std::string::npos) end = joined.size();
    const std::string p = joined.substr(pos, end - pos);
    if (p.empty() || p == ".") {
      // nothing
    } else if (p == "..") {
      if (!parts.empty() && parts.back() != "..") parts.pop_back();
      else if (!absolute) parts.push_back(p);
    } else {
      parts.push_back(p);
    }
    pos = end + 1;
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); i++) out += (i ? "/" : "") + parts[i];
  return out.empty() ? "." : out;
}

std::string row_where(const Manifest& m, const Row& r) { return m.path + ":" + std::to_string(r.line); }

Status load_manifest(const std::string& path, Manifest* out, std::vector<std::string>* errors) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {Errc::io_error, "cannot open manifest " + path + ": " + std::strerror(errno)};
  std::ostringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // a UTF-8 byte order mark (spreadsheets write one)
  if (f.bad()) return {Errc::io_error, "cannot read manifest " + path + ": " + std::strerror(errno)};
  if (text.find('\0') != std::string::npos)
    return {Errc::invalid_argument, path + " holds NUL bytes: not a CSV or JSON Lines manifest"};

  Manifest m;
  m.path = path;
  const size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  if (!dir.empty() && dir[0] != '/') {
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd)) dir = std::string(cwd) + "/" + dir;
  }
  m.dir = resolve_path("", dir);
  // JSON Lines when the first line that counts starts with '{'.
  {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      if (skipped_line(line)) continue;
      m.jsonl = trim(line).rfind('{', 0) == 0;
      break;
    }
  }
  std::vector<RawRow> raw;
  const size_t before = errors->size();
  VMAFX_TRY(m.jsonl ? jsonl_rows(path, text, &raw, errors) : csv_rows(path, text, &raw, errors));
  for (const RawRow& r : raw) {
    Row row;
    row.index = m.rows.size();
    interpret(path, m.dir, r, &row, errors);
    m.rows.push_back(std::move(row));
  }
  if (m.rows.empty() && errors->size() == before) errors->push_back(path + ": no rows");
  *out = std::move(m);
  if (errors->size() != before)
    return {Errc::invalid_argument, path + ": " + std::to_string(errors->size() - before) + " error" +
                                        (errors->size() - before == 1 ? "" : "s")};
  return Status::ok();
}

}  // namespace vmafx::tools::batch
