// SPDX-License-Identifier: LGPL-2.1-or-later
#include "scoring/svm.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace vmafx {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Reads whitespace-separated tokens, keeping track of the position so the support vectors can be read by line.
class Tokens {
 public:
  explicit Tokens(std::string_view s) : s_(s) {}
  bool next(std::string_view* tok) {
    while (pos_ < s_.size() && is_space(s_[pos_])) pos_++;
    if (pos_ >= s_.size()) return false;
    size_t b = pos_;
    while (pos_ < s_.size() && !is_space(s_[pos_])) pos_++;
    *tok = s_.substr(b, pos_ - b);
    return true;
  }
  // Skips the rest of the current line, including its '\n'.
  void skip_line() {
    while (pos_ < s_.size() && s_[pos_] != '\n') pos_++;
    if (pos_ < s_.size()) pos_++;
  }
  // The next line (without '\n'); false at the end of the text.
  bool line(std::string_view* out) {
    if (pos_ >= s_.size()) return false;
    size_t e = s_.find('\n', pos_);
    if (e == std::string_view::npos) e = s_.size();
    *out = s_.substr(pos_, e - pos_);
    pos_ = e < s_.size() ? e + 1 : e;
    return true;
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

// Locale-independent, correctly rounded (like the stream extraction libsvm uses in the C locale).
bool to_double(std::string_view t, double* out) {
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  if (t.empty()) return false;
  auto r = std::from_chars(t.data(), t.data() + t.size(), *out);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

bool to_int(std::string_view t, long* out) {
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  if (t.empty()) return false;
  auto r = std::from_chars(t.data(), t.data() + t.size(), *out);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

Status bad(const std::string& what) { return {Errc::model_error, "libsvm model: " + what}; }

}  // namespace

Status SvrModel::parse(std::string_view text, SvrModel* out) {
  SvrModel m;
  Tokens tk(text);
  std::string_view tok;
  std::string svm_type, kernel_type;
  long nr_class = -1, total_sv = -1;
  bool have_gamma = false, have_rho = false, have_sv = false;

  auto read_value = [&](const char* key, std::string_view* v) -> Status {
    if (!tk.next(v) || *v == "SV") return bad(std::string("no value after ") + key);
    return Status::ok();
  };

  while (tk.next(&tok)) {
    if (tok == "SV") {
      have_sv = true;
      tk.skip_line();
      break;
    }
    std::string_view v;
    if (tok == "svm_type") {
      VMAFX_TRY(read_value("svm_type", &v));
      svm_type = std::string(v);
    } else if (tok == "kernel_type") {
      VMAFX_TRY(read_value("kernel_type", &v));
      kernel_type = std::string(v);
    } else if (tok == "gamma") {
      VMAFX_TRY(read_value("gamma", &v));
      if (!to_double(v, &m.gamma_)) return bad("gamma '" + std::string(v) + "' is not a number");
      // libsvm's own check refuses a negative gamma; a non-finite one makes every score NaN.
      if (!std::isfinite(m.gamma_) || m.gamma_ < 0)
        return bad("gamma '" + std::string(v) + "' is not a finite number of at least 0");
      have_gamma = true;
    } else if (tok == "nr_class") {
      VMAFX_TRY(read_value("nr_class", &v));
      if (!to_int(v, &nr_class)) return bad("nr_class '" + std::string(v) + "' is not an integer");
    } else if (tok == "total_sv") {
      VMAFX_TRY(read_value("total_sv", &v));
      if (!to_int(v, &total_sv) || total_sv < 0) return bad("total_sv '" + std::string(v) + "' is not a count");
    } else if (tok == "rho") {
      // One value per class pair; a regression model has two "classes", hence one rho.
      VMAFX_TRY(read_value("rho", &v));
      if (!to_double(v, &m.rho_)) return bad("rho '" + std::string(v) + "' is not a number");
      if (!std::isfinite(m.rho_)) return bad("rho '" + std::string(v) + "' is not finite");
      have_rho = true;
    } else if (tok == "degree" || tok == "coef0") {
      VMAFX_TRY(read_value(tok == "degree" ? "degree" : "coef0", &v));  // unused by the RBF kernel
      double ignored;
      if (!to_double(v, &ignored)) return bad(std::string(tok) + " '" + std::string(v) + "' is not a number");
    } else if (tok == "label" || tok == "probA" || tok == "probB" || tok == "nr_sv") {
      return bad("'" + std::string(tok) + "' belongs to a classification model, not a regression");
    } else {
      return bad("unknown header field '" + std::string(tok) + "'");
    }
  }

  if (svm_type.empty()) return bad("no svm_type");
  if (svm_type != "nu_svr" && svm_type != "epsilon_svr")
    return bad("svm_type '" + svm_type + "' is not a regression (nu_svr, epsilon_svr)");
  if (kernel_type.empty()) return bad("no kernel_type");
  if (kernel_type != "rbf") return bad("kernel_type '" + kernel_type + "' is not supported (only rbf)");
  if (!have_gamma) return bad("no gamma");
  if (nr_class < 0) return bad("no nr_class");
  if (nr_class != 2) return bad("nr_class " + std::to_string(nr_class) + " (a regression model has 2)");
  if (total_sv < 0) return bad("no total_sv");
  if (!have_rho) return bad("no rho");
  if (!have_sv) return bad("no SV section");

  m.coef_.reserve(size_t(total_sv));
  m.start_.reserve(size_t(total_sv) + 1);
  for (long i = 0; i < total_sv; i++) {
    std::string_view line;
    if (!tk.line(&line))
      return bad("SV section ends after " + std::to_string(i) + " of " + std::to_string(total_sv) + " vectors");
    Tokens lt(line);
    std::string_view t;
    double coef;
    if (!lt.next(&t) || !to_double(t, &coef))
      return bad("support vector " + std::to_string(i + 1) + " has no coefficient");
    if (!std::isfinite(coef))
      return bad("support vector " + std::to_string(i + 1) + ": coefficient '" + std::string(t) + "' is not finite");
    m.coef_.push_back(coef);
    m.start_.push_back(uint32_t(m.nodes_.size()));
    int last = 0;
    while (lt.next(&t)) {
      const size_t colon = t.find(':');
      long idx;
      double val;
      if (colon == std::string_view::npos || !to_int(t.substr(0, colon), &idx) || !to_double(t.substr(colon + 1), &val))
        return bad("support vector " + std::to_string(i + 1) + ": '" + std::string(t) + "' is not index:value");
      if (idx <= last || idx > std::numeric_limits<int>::max())
        return bad("support vector " + std::to_string(i + 1) + ": indices must ascend from 1");
      if (!std::isfinite(val))
        return bad("support vector " + std::to_string(i + 1) + ": '" + std::string(t) + "' is not finite");
      last = int(idx);
      m.nodes_.push_back({int(idx), val});
      if (last > m.max_index_) m.max_index_ = last;
    }
  }
  m.start_.push_back(uint32_t(m.nodes_.size()));
  *out = std::move(m);
  return Status::ok();
}

double SvrModel::predict(const double* x, size_t n) const {
  // libsvm: sum_i coef_i * exp(-gamma * |x - sv_i|^2) - rho, the squared distance accumulated while merging the
  // sparse vectors by index (matched entries as (a - b)^2, unmatched ones as a^2), in that order.
  double sum = 0;
  for (size_t i = 0; i < coef_.size(); i++) {
    const Node* y = nodes_.data() + start_[i];
    const Node* y_end = nodes_.data() + start_[i + 1];
    size_t xi = 0;
    double d2 = 0;
    while (xi < n && y != y_end) {
      const int x_index = int(xi + 1);
      if (x_index == y->index) {
        const double d = x[xi] - y->value;
        d2 += d * d;
        ++xi;
        ++y;
      } else if (x_index > y->index) {
        d2 += y->value * y->value;
        ++y;
      } else {
        d2 += x[xi] * x[xi];
        ++xi;
      }
    }
    for (; xi < n; ++xi) d2 += x[xi] * x[xi];
    for (; y != y_end; ++y) d2 += y->value * y->value;
    sum += coef_[i] * std::exp(-gamma_ * d2);
  }
  sum -= rho_;
  return sum;
}

}  // namespace vmafx
