// SPDX-License-Identifier: LGPL-2.1-or-later
// Collector: every score of every frame, by column (a score name in libvmaf's aliased form, e.g. "integer_adm2",
// "vmaf"), plus pooling over the frames that were scored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vmafx {

enum class PoolMethod { mean, min, max, harmonic_mean };
const char* pool_method_name(PoolMethod m);
bool parse_pool_method(const std::string& s, PoolMethod* out);

struct PoolStats {
  uint64_t count = 0;
  double mean = 0, min = 0, max = 0, harmonic_mean = 0;
  std::vector<double> sorted;  // the pooled values, ascending (for percentiles)
  // Percentile p in [0, 100], linear interpolation between closest ranks.
  double percentile(double p) const;
  double get(PoolMethod m) const;
};

class Collector {
 public:
  // Adds a column (or returns the existing one with that name).
  size_t add_column(const std::string& name);
  // Index of a column, or -1.
  long find(const std::string& name) const;
  size_t columns() const { return names_.size(); }
  const std::string& name(size_t col) const { return names_[col]; }
  const std::vector<std::string>& names() const { return names_; }

  void set(uint64_t frame, size_t col, double value);
  bool get(uint64_t frame, size_t col, double* value) const;
  bool has(uint64_t frame, size_t col) const;
  // One past the highest frame index holding any value.
  uint64_t frames() const { return frames_; }

  // Frames that carry scores in results and pooling: every n-th frame (libvmaf --subsample) that was not left
  // unscored (a live element's skipped frames).
  void set_subsample(unsigned n) { subsample_ = n ? n : 1; }
  unsigned subsample() const { return subsample_; }
  void set_unscored(uint64_t frame);
  bool is_scored(uint64_t frame) const {
    return frame % subsample_ == 0 && (frame >= unscored_.size() || !unscored_[frame]);
  }

  // Pools a column over scored frames [0, frames()) that hold a value, libvmaf's way.
  PoolStats pool(size_t col) const;

  // libvmaf's aggregate metrics: one value per name for the whole stream (psnr's enable_apsnr: apsnr_y, apsnr_cb,
  // apsnr_cr), in the order first set; setting a name again replaces its value. Results files write them.
  void set_aggregate(const std::string& name, double value);
  const std::vector<std::pair<std::string, double>>& aggregates() const { return aggregates_; }

  // Appends every frame of `other` at frame indices `first` + its own (a stream scored in parts: after a caps change,
  // a chunk of a long title). Columns are matched by name and added when new; frames `other` does not score stay
  // unscored here (this collector's subsample becomes 1, its own unscored frames marked); its aggregates replace
  // those of the same name.
  void append(const Collector& other, uint64_t first);

  void clear();

 private:
  struct Column {
    std::vector<double> value;
    std::vector<uint8_t> written;
  };
  std::vector<std::string> names_;
  std::vector<Column> cols_;
  uint64_t frames_ = 0;
  unsigned subsample_ = 1;
  std::vector<uint8_t> unscored_;
  std::vector<std::pair<std::string, double>> aggregates_;
};

}  // namespace vmafx
