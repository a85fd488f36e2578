// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx-batch's manifest: one row per rendition to score, as CSV (a header line naming the columns, then one line
// per row; RFC 4180 quoting) or JSON Lines (one object per line, the same names as keys). Lines that are blank or
// start with '#' are skipped in both. Columns:
//   reference, distorted     paths (required); relative ones are relative to the manifest's folder
//   width, height, pixel_format, bitdepth   raw input's geometry, as vmafx-score's -w -h -p -b (.y4m: its header)
//   model, feature           libvmaf's --model / --feature syntax; several separated by ';' (JSON: also an array)
//   aom_ctc, nflx_ctc        libvmaf's presets (v1.0 ...)
//   subsample, frame_skip_ref, frame_skip_dist, frame_cnt    as vmafx-score's options of the same names
//   chunk_frames             score the row in parts of this many frames, each its own task (0 or empty: whole)
//   tag                      free text, copied into the merged table
// Rows are numbered from 0 in file order (the Slurm array's task numbers when no row is chunked). Every error names
// the file, the line and the column (CSV: its number and name; JSON: the key, or the byte for a syntax error).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli_options.h"
#include "vmafx/status.h"
#include "yuv_reader.h"

namespace vmafx::tools::batch {

struct Row {
  size_t index = 0;    // 0-based, in file order
  uint64_t line = 0;   // the manifest line the row starts on (1-based)
  std::string tag;
  std::string reference, distorted;  // as written
  std::string ref_path, dist_path;   // resolved against the manifest's folder, lexically normalised
  InputParams given;                 // width, height, pixel_format, bitdepth as given (0 / empty: not given)
  Selection sel;                     // models (paths resolved) and features, libvmaf's default model if none
  unsigned subsample = 1;
  uint64_t skip_ref = 0, skip_dist = 0;
  uint64_t frame_cnt = 0;            // 0: every frame
  uint64_t chunk_frames = 0;         // 0: not given in the manifest (whole, unless --chunk-frames)
  bool chunk_given = false;          // the column held a value (also 0: whole, whatever --chunk-frames says)
};

struct Manifest {
  std::string path;
  std::string dir;  // folder relative paths start from
  bool jsonl = false;
  std::vector<Row> rows;
};

// Parses and checks every row (syntax, numbers, model and feature specs); *errors gets one line per problem
// ("m.csv:12: column 4 (width): ..."), all of them, and the result is Errc::invalid_argument if there is any. Files
// are not opened here (check_rows does that).
Status load_manifest(const std::string& path, Manifest* out, std::vector<std::string>* errors);

// "m.csv:12" for a row's messages.
std::string row_where(const Manifest& m, const Row& r);

// A path joined to `dir` unless absolute, with "." and ".." parts and repeated '/' folded away.
std::string resolve_path(const std::string& dir, const std::string& path);

// Splits one cell of the model / feature columns at ';' (blanks around each piece dropped; empty pieces ignored).
std::vector<std::string> split_specs(const std::string& cell);

}  // namespace vmafx::tools::batch
