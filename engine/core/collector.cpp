// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vmafx/collector.h"

#include <algorithm>
#include <cmath>

namespace vmafx {

const char* pool_method_name(PoolMethod m) {
  switch (m) {
    case PoolMethod::mean: return "mean";
    case PoolMethod::min: return "min";
    case PoolMethod::max: return "max";
    case PoolMethod::harmonic_mean: return "harmonic_mean";
  }
  return "?";
}

bool parse_pool_method(const std::string& s, PoolMethod* out) {
  if (s == "mean") *out = PoolMethod::mean;
  else if (s == "min") *out = PoolMethod::min;
  else if (s == "max") *out = PoolMethod::max;
  else if (s == "harmonic_mean" || s == "harmonic-mean") *out = PoolMethod::harmonic_mean;
  else return false;
  return true;
}

void Collector::set_aggregate(const std::string& name, double value) {
  for (auto& [n, v] : aggregates_)
    if (n == name) {
      v = value;
      return;
    }
  aggregates_.emplace_back(name, value);
}

void Collector::set_unscored(uint64_t frame) {
  if (frame >= unscored_.size()) unscored_.resize(frame + 1, 0);
  unscored_[frame] = 1;
}

double PoolStats::percentile(double p) const {
  if (sorted.empty()) return NAN;
  if (p <= 0) return sorted.front();
  if (p >= 100) return sorted.back();
  const double rank = p / 100.0 * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(rank));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - double(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double PoolStats::get(PoolMethod m) const {
  switch (m) {
    case PoolMethod::mean: return mean;
    case PoolMethod::min: return min;
    case PoolMethod::max: return max;
    case PoolMethod::harmonic_mean: return harmonic_mean;
  }
  return NAN;
}

size_t Collector::add_column(const std::string& name) {
  long i = find(name);
  if (i >= 0) return size_t(i);
  names_.push_back(name);
  cols_.emplace_back();
  return names_.size() - 1;
}

long Collector::find(const std::string& name) const {
  for (size_t i = 0; i < names_.size(); i++)
    if (names_[i] == name) return long(i);
  return -1;
}

void Collector::set(uint64_t frame, size_t col, double value) {
  Column& c = cols_[col];
  if (c.value.size() <= frame) {
    size_t n = std::max<size_t>(frame + 1, c.value.size() * 2);
    c.value.resize(n, 0.0);
    c.written.resize(n, 0);
  }
  c.value[frame] = value;
  c.written[frame] = 1;
  frames_ = std::max<uint64_t>(frames_, frame + 1);
}

bool Collector::has(uint64_t frame, size_t col) const {
  const Column& c = cols_[col];
  return frame < c.written.size() && c.written[frame];
}

bool Collector::get(uint64_t frame, size_t col, double* value) const {
  if (!has(frame, col)) return false;
  *value = cols_[col].value[frame];
  return true;
}

PoolStats Collector::pool(size_t col) const {
  PoolStats s;
  double sum = 0, inv_sum = 0;
  for (uint64_t i = 0; i < frames_; i++) {
    double v;
    if (!is_scored(i) || !get(i, col, &v)) continue;
    if (s.count == 0 || v < s.min) s.min = v;
    if (s.count == 0 || v > s.max) s.max = v;
    sum += v;
    inv_sum += 1.0 / (v + 1.0);
    s.count++;
    s.sorted.push_back(v);
  }
  if (s.count) {
    s.mean = sum / double(s.count);
    s.harmonic_mean = double(s.count) / inv_sum - 1.0;
  }
  std::sort(s.sorted.begin(), s.sorted.end());
  return s;
}

void Collector::append(const Collector& other, uint64_t first) {
  if (subsample_ != 1) {
    for (uint64_t f = 0; f < frames_; f++)
      if (!is_scored(f)) set_unscored(f);
    subsample_ = 1;
  }
  for (size_t oc = 0; oc < other.columns(); oc++) {
    const size_t col = add_column(other.name(oc));
    for (uint64_t f = 0; f < other.frames(); f++) {
      double v;
      if (other.get(f, oc, &v)) set(first + f, col, v);
    }
  }
  for (uint64_t f = 0; f < other.frames(); f++)
    if (!other.is_scored(f)) set_unscored(first + f);
  frames_ = std::max(frames_, first + other.frames());
  for (const auto& [name, v] : other.aggregates()) set_aggregate(name, v);
}

void Collector::clear() {
  names_.clear();
  cols_.clear();
  frames_ = 0;
  unscored_.clear();
  aggregates_.clear();
}

}  // namespace vmafx
