// SPDX-License-Identifier: LGPL-2.1-or-later
// From manifest rows to tasks: the frames of a row, its chunks, the task numbers of a Slurm array (one task per
// unit, or packs of P units per array index), the key that names a unit's result file, and the list syntax of
// sbatch --array ("0-3,7,9-12").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "batch/manifest.h"
#include "vmafx/status.h"

namespace vmafx::tools::batch {

// What identifies an input file in a key.
enum class Identity {
  stat,     // its absolute path (as the manifest resolves it), size and modification time (nanoseconds)
  content,  // the SHA-256 of its bytes and its size (reads every input whole)
};
bool parse_identity(const std::string& s, Identity* out);
const char* identity_name(Identity i);

// Command-line settings that shape the tasks and the keys; every command of one batch must be given the same.
struct BatchSettings {
  uint64_t chunk_frames = 0;  // --chunk-frames: for rows whose chunk_frames column is empty (0: whole)
  Identity identity = Identity::stat;
};

// One task's share of a row: the whole row, or frames [first, end) of its `row_frames` frames (counted after
// frame_skip_ref / frame_skip_dist, at most frame_cnt).
struct Unit {
  size_t row = 0;
  bool whole = true;
  unsigned chunk = 0, chunks = 1;
  uint64_t first = 0, end = 0, row_frames = 0;  // chunked units only
};

struct Plan {
  std::vector<Unit> units;           // in task order: row 0's units, row 1's, ...
  std::vector<size_t> first_unit;    // per row
  std::vector<unsigned> unit_count;  // per row
};

// The frames a row scores: min(reference frames - frame_skip_ref, distorted frames - frame_skip_dist), at most
// frame_cnt, as a run over the whole pair reads them (a partial frame where reading would reach it is an error, as
// in vmafx-score). Opens both inputs.
Status count_row_frames(const Row& row, uint64_t* frames);

// Opens a row's two inputs (regular files, mapped) and checks that they can be scored together: same size, bit
// depth and chroma subsampling.
Status open_pair(const Row& row, VideoReader* ref, VideoReader* dist);

// The chunk size in effect for a row (0: whole).
uint64_t chunk_size(const Row& row, const BatchSettings& s);

// Units of every row. Chunked rows have their frames counted (their inputs opened); a row that cannot be counted
// is an error naming it (*errors gets every one).
Status make_plan(const Manifest& m, const BatchSettings& s, Plan* out, std::vector<std::string>* errors);

// ---- keys ----

// Identities of files, computed once per process.
class IdentityCache {
 public:
  explicit IdentityCache(Identity mode) : mode_(mode) {}
  // "path=/abs/ref.yuv size=N mtime=S.NNNNNNNNN" or "sha256=HEX size=N"
  Status input(const std::string& path, std::string* out);
  // A model given by path: "sha256=HEX" of the file (at most Model::kMaxFileBytes).
  Status model_file(const std::string& path, std::string* out);

 private:
  Identity mode_;
  std::map<std::string, std::string> inputs_, models_;
};

// The engine build the tool was compiled with ("0.1.0" and, built from a git checkout, its commit).
const char* engine_version();

// Everything that determines a unit's numbers, one item a line: engine version, both inputs' identities, the raw
// geometry given, skips, frame count, subsample, the unit's frame range, every model (request, column, options,
// overloads; the file's SHA-256 for a path) and every feature with its options. Not in it: the tag, the row's place
// in the manifest, the backend, threads and device (GPU and CPU give the same numbers bit for bit).
Status unit_key_text(const Row& row, const Unit& unit, IdentityCache* ids, std::string* text);
// The SHA-256 of unit_key_text, 64 hex digits: the result file's name.
Status unit_key(const Row& row, const Unit& unit, IdentityCache* ids, std::string* key, std::string* text = nullptr);

// ---- task numbers ----

// Units [first, end) of array task `task` with `pack` units per task (end == first: past the last unit).
struct UnitRange {
  uint64_t first = 0, end = 0;
};
UnitRange pack_units(uint64_t task, uint64_t pack, uint64_t total);
// Array tasks needed for `total` units, `pack` per task.
uint64_t pack_count(uint64_t total, uint64_t pack);
// The array tasks that hold these units (sorted, unique).
std::vector<uint64_t> packs_of(const std::vector<uint64_t>& units, uint64_t pack);

// sbatch's --array list of sorted unique numbers: runs of consecutive ones as "A-B" ("0-3,7,9-12"; "" for none).
std::string compress_ranges(const std::vector<uint64_t>& sorted);
// A list of numbers and ranges ("3", "0-9", "1,4-6") into sorted unique numbers, each below `limit`.
Status parse_ranges(const std::string& text, uint64_t limit, const std::string& what, std::vector<uint64_t>* out);

// Backslash escapes of '\\', newline, tab and other control bytes: text that stays on one line.
std::string escape_line(const std::string& s);
std::string unescape_line(const std::string& s);

}  // namespace vmafx::tools::batch
