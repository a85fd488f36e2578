// SPDX-License-Identifier: LGPL-2.1-or-later
#include "batch/table.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cmath>

namespace vmafx::tools::batch {

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos && (s.empty() || (s.front() != ' ' && s.back() != ' ')))
    return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += char(c);
        }
    }
  }
  return o + "\"";
}

std::string json_number(double v) { return std::isfinite(v) ? number_text(v) : json_string(number_text(v)); }

std::string percentile_name(double p) { return "p" + number_text(p); }

// The union of the rows' columns (and aggregates) in first-seen order.
std::vector<std::string> all_columns(const std::vector<MergedRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows)
    for (const auto& n : r.collector.names())
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  return out;
}

std::vector<std::string> all_aggregates(const std::vector<MergedRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows)
    for (const auto& a : r.aggregates)
      if (std::find(out.begin(), out.end(), a.first) == out.end()) out.push_back(a.first);
  return out;
}

// The pooled values of one column in table order: mean, harmonic_mean, min, max, then the percentiles.
std::vector<double> pooled(const PoolStats& s, const TableOptions& o) {
  std::vector<double> v = {s.mean, s.harmonic_mean, s.min, s.max};
  for (double p : o.percentiles) v.push_back(s.percentile(p));
  return v;
}

const char* const kStatNames[] = {"mean", "harmonic_mean", "min", "max"};

}  // namespace

std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[64];
  const auto res = std::to_chars(b, b + sizeof b, v);
  return std::string(b, res.ptr);
}

bool table_format_of(const std::string& path, TableFormat* out) {
  auto ends = [&](const char* s) {
    const size_t n = std::char_traits<char>::length(s);
    return path.size() > n && path.compare(path.size() - n, n, s) == 0;
  };
  if (ends(".csv")) *out = TableFormat::csv;
  else if (ends(".json")) *out = TableFormat::json;
  else return false;
  return true;
}

Status merge_row(const Row& row, const std::vector<UnitResult>& units, MergedRow* out) {
  MergedRow m;
  m.row = &row;
  if (units.empty()) return {Errc::internal, "row " + std::to_string(row.index) + " has no results"};
  const std::vector<std::string>& columns = units[0].columns;
  std::vector<size_t> col;
  for (const auto& n : columns) col.push_back(m.collector.add_column(n));
  m.collector.set_subsample(row.subsample);
  uint64_t next = 0;
  for (const UnitResult& u : units) {
    if (u.columns != columns)
      return {Errc::invalid_argument, "row " + std::to_string(row.index) + ": its chunks have different columns"};
    if (!u.whole) {
      if (u.first != next)
        return {Errc::invalid_argument, "row " + std::to_string(row.index) + ": a chunk starts at frame " +
                                            std::to_string(u.first) + ", the one before ended at " +
                                            std::to_string(next)};
      next = u.end;
    }
    for (const auto& f : u.frames_scored)
      for (size_t c = 0; c < columns.size(); c++)
        if (f.present[c]) m.collector.set(f.index, col[c], f.values[c]);
    m.frames += u.frames;
    for (const auto& a : u.aggregates) m.aggregates.push_back(a);
  }
  if (!units[0].whole && next != units[0].row_frames)
    return {Errc::invalid_argument, "row " + std::to_string(row.index) + ": its chunks end at frame " +
                                        std::to_string(next) + " of " + std::to_string(units[0].row_frames)};
  *out = std::move(m);
  return Status::ok();
}

std::string table_csv(const std::vector<MergedRow>& rows, const TableOptions& o) {
  const std::vector<std::string> cols = all_columns(rows);
  const std::vector<std::string> aggs = all_aggregates(rows);
  std::string t = "row,line,tag,reference,distorted,frames";
  for (const auto& c : cols) {
    for (const char* s : kStatNames) t += "," + csv_field(c + "_" + s);
    for (double p : o.percentiles) t += "," + csv_field(c + "_" + percentile_name(p));
  }
  for (const auto& a : aggs) t += "," + csv_field(a);
  t += "\n";
  const size_t per_col = 4 + o.percentiles.size();
  for (const MergedRow& r : rows) {
    t += std::to_string(r.row->index) + "," + std::to_string(r.row->line) + "," + csv_field(r.row->tag) + "," +
         csv_field(r.row->reference) + "," + csv_field(r.row->distorted) + "," + std::to_string(r.frames);
    for (const auto& c : cols) {
      const long k = r.collector.find(c);
      PoolStats s;
      if (k >= 0) s = r.collector.pool(size_t(k));
      if (k < 0 || s.count == 0) {
        t += std::string(per_col, ',');
        continue;
      }
      for (double v : pooled(s, o)) t += "," + number_text(v);
    }
    for (const auto& a : aggs) {
      t += ",";
      for (const auto& [name, v] : r.aggregates)
        if (name == a) {
          t += number_text(v);
          break;
        }
    }
    t += "\n";
  }
  return t;
}

std::string frames_csv(const std::vector<MergedRow>& rows) {
  const std::vector<std::string> cols = all_columns(rows);
  std::string t = "row,tag,frame";
  for (const auto& c : cols) t += "," + csv_field(c);
  t += "\n";
  for (const MergedRow& r : rows) {
    std::vector<long> at;
    for (const auto& c : cols) at.push_back(r.collector.find(c));
    for (uint64_t f = 0; f < r.collector.frames(); f++) {
      if (!r.collector.is_scored(f)) continue;
      bool any = false;
      for (size_t c = 0; c < r.collector.columns(); c++) any = any || r.collector.has(f, c);
      if (!any) continue;
      t += std::to_string(r.row->index) + "," + csv_field(r.row->tag) + "," + std::to_string(f);
      for (long k : at) {
        double v;
        t += ",";
        if (k >= 0 && r.collector.get(f, size_t(k), &v)) t += number_text(v);
      }
      t += "\n";
    }
  }
  return t;
}

std::string table_json(const std::string& manifest, const std::vector<MergedRow>& rows, const TableOptions& o) {
  std::string t = "{\n  \"manifest\": " + json_string(manifest) + ",\n  \"rows\": [";
  bool first_row = true;
  for (const MergedRow& r : rows) {
    t += first_row ? "\n" : ",\n";
    first_row = false;
    t += "    {\"row\": " + std::to_string(r.row->index) + ", \"line\": " + std::to_string(r.row->line) +
         ", \"tag\": " + json_string(r.row->tag) + ", \"reference\": " + json_string(r.row->reference) +
         ", \"distorted\": " + json_string(r.row->distorted) + ", \"frames\": " + std::to_string(r.frames) +
         ",\n     \"pooled\": {";
    bool first = true;
    for (size_t c = 0; c < r.collector.columns(); c++) {
      const PoolStats s = r.collector.pool(c);
      if (s.count == 0) continue;
      t += first ? "\n" : ",\n";
      first = false;
      t += "       " + json_string(r.collector.name(c)) + ": {";
      const std::vector<double> v = pooled(s, o);
      for (size_t k = 0; k < v.size(); k++) {
        const std::string name = k < 4 ? kStatNames[k] : percentile_name(o.percentiles[k - 4]);
        t += (k ? ", " : "") + json_string(name) + ": " + json_number(v[k]);
      }
      t += "}";
    }
    t += "}";
    if (!r.aggregates.empty()) {
      t += ",\n     \"aggregates\": {";
      for (size_t k = 0; k < r.aggregates.size(); k++)
        t += (k ? ", " : "") + json_string(r.aggregates[k].first) + ": " + json_number(r.aggregates[k].second);
      t += "}";
    }
    if (o.per_frame) {
      t += ",\n     \"frames_scored\": [";
      bool first_frame = true;
      for (uint64_t f = 0; f < r.collector.frames(); f++) {
        if (!r.collector.is_scored(f)) continue;
        std::string line;
        for (size_t c = 0; c < r.collector.columns(); c++) {
          double v;
          if (r.collector.get(f, c, &v)) line += ", " + json_string(r.collector.name(c)) + ": " + json_number(v);
        }
        if (line.empty()) continue;
        t += first_frame ? "\n" : ",\n";
        first_frame = false;
        t += "       {\"frame\": " + std::to_string(f) + line + "}";
      }
      t += "]";
    }
    t += "}";
  }
  t += "\n  ]\n}\n";
  return t;
}

}  // namespace vmafx::tools::batch
