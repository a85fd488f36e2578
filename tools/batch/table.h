// SPDX-License-Identifier: LGPL-2.1-or-later
// The merged table: one row per manifest row with the pooled values of every column (the engine's Collector pools
// the per-frame values of the row's results, chunks joined in frame order, so the numbers are those of a run over
// the whole pair), libvmaf's aggregates, the tag; optionally every frame. CSV or JSON; numbers in the shortest form
// that reads back as the same double.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "batch/manifest.h"
#include "batch/result.h"
#include "vmafx/collector.h"
#include "vmafx/status.h"

namespace vmafx::tools::batch {

struct MergedRow {
  const Row* row = nullptr;
  uint64_t frames = 0;       // frames the row read
  Collector collector;       // every scored frame's values, by row frame number
  std::vector<std::pair<std::string, double>> aggregates;
};

// Joins a row's unit results (in unit order: the whole row, or its chunks from the first frame to the last).
Status merge_row(const Row& row, const std::vector<UnitResult>& units, MergedRow* out);

struct TableOptions {
  std::vector<double> percentiles = {1, 5, 50};  // columns NAME_p1, NAME_p5, NAME_p50 (PoolStats::percentile)
  bool per_frame = false;
};

enum class TableFormat { csv, json };
// By the name's ending: ".csv" or ".json"; false otherwise.
bool table_format_of(const std::string& path, TableFormat* out);

// The table as text. CSV: row, line, tag, reference, distorted, frames, then for each column NAME_mean,
// NAME_harmonic_mean, NAME_min, NAME_max, NAME_p<P>..., then the aggregates; columns are the union over the rows in
// first-seen order, empty where a row has none. JSON: {"manifest", "rows": [{"row", "line", "tag", "reference",
// "distorted", "frames", "pooled": {NAME: {"mean", ...}}, "aggregates": {...}, "frames_scored": [...] }]}.
std::string table_csv(const std::vector<MergedRow>& rows, const TableOptions& o);
// --per-frame with CSV: a second table, one line per scored frame: row, tag, frame, then every column.
std::string frames_csv(const std::vector<MergedRow>& rows);
std::string table_json(const std::string& manifest, const std::vector<MergedRow>& rows, const TableOptions& o);

// The shortest decimal that reads back as v ("inf", "-inf", "nan" for those).
std::string number_text(double v);

}  // namespace vmafx::tools::batch
