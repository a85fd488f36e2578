// SPDX-License-Identifier: LGPL-2.1-or-later
// A unit's result file, <key>.result in the output folder: every scored frame's values, lossless (C99 hex floats,
// "%a"), so that the merge re-pools exactly what a run over the whole pair pools. Text, one item a line:
//   vmafx-batch-result 1
//   key <64 hex digits>                 the file's name; must equal the key the manifest gives the unit now
//   keytext <line>                      the lines the key is the SHA-256 of (why a result is redone)
//   row <n> <line> / tag <text> / reference <path> / distorted <path> / backend <text> / host <name>
//   seconds <s> / slurm <job> <task>    where and how it was made (not part of the key)
//   range whole | range <first> <end> <row frames>
//   frames <n>                          frames the unit read of its range
//   column <name>                       one line per column, in the scorer's order
//   frame <index> <v> <v> ...           one per scored frame of the range, index in the row; '-': no value
//   aggregate <name> <v>                libvmaf's whole-stream values (psnr's apsnr; whole rows only)
//   end <64 hex digits>                 the SHA-256 of every byte before this line
// A file without its end line, with another checksum, key or version is not a result: the unit is missing. A unit
// that failed leaves <key>.failed (vmafx-batch-failed 1, key, row, host, slurm, error) instead, never a result.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vmafx/status.h"

namespace vmafx::tools::batch {

struct UnitResult {
  std::string key;
  std::vector<std::string> key_text;  // its lines
  // Where it came from (informational).
  uint64_t row = 0, line = 0;
  std::string tag, reference, distorted, backend, host, slurm;
  double seconds = 0;
  // The unit.
  bool whole = true;
  uint64_t first = 0, end = 0, row_frames = 0;
  uint64_t frames = 0;  // frames read
  std::vector<std::string> columns;
  struct Frame {
    uint64_t index = 0;                // frame number in the row
    std::vector<double> values;        // one per column
    std::vector<uint8_t> present;      // 0: the column has no value on this frame
  };
  std::vector<Frame> frames_scored;
  std::vector<std::pair<std::string, double>> aggregates;
};

std::string format_result(const UnitResult& r);
// Parses and checks a result file's text: magic, version, key (== expected_key unless that is empty), every line,
// and the checksum. Errc::invalid_argument naming the first problem.
Status parse_result(std::string_view text, const std::string& expected_key, UnitResult* out);

struct FailedRecord {
  std::string key;
  uint64_t row = 0;
  std::string tag, host, slurm, error;
};
std::string format_failed(const FailedRecord& f);
Status parse_failed(std::string_view text, FailedRecord* out);

// Writes `bytes` to `path` atomically: a temporary file beside it, written, fsync'ed, renamed over `path`, and the
// folder fsync'ed, so that `path` is either absent, its old content, or all of `bytes`, also after a crash.
Status write_file_atomic(const std::string& path, std::string_view bytes);

// The whole of a file; *exists false (and ok) when there is none.
Status read_file(const std::string& path, std::string* out, bool* exists);

// Names inside the output folder.
std::string result_path(const std::string& dir, const std::string& key);
std::string failed_path(const std::string& dir, const std::string& key);
// Temporary files of write_file_atomic start with ".", end with ".tmp".
bool is_temporary_name(const std::string& name);

// "%a" of a double ("0x1.8p+1", "-0x0p+0", "inf", "nan") and back, exactly.
std::string hex_double(double v);
bool parse_double(const std::string& s, double* out);

}  // namespace vmafx::tools::batch
