// SPDX-License-Identifier: LGPL-2.1-or-later
// A support-vector regressor read from libsvm's text model (the "model" string of a VMAF model file) and evaluated
// with libsvm's arithmetic: the kernel sums run over the sparse support vectors in libsvm's merge order, so a
// prediction is the same double libsvm computes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vmafx/status.h"

namespace vmafx {

class SvrModel {
 public:
  // Parses libsvm's model text. Accepts svm_type nu_svr or epsilon_svr with kernel_type rbf (what VMAF models use).
  // Errors are Errc::model_error with a message that names the problem (the caller adds the file).
  static Status parse(std::string_view text, SvrModel* out);

  size_t support_vectors() const { return coef_.size(); }
  double gamma() const { return gamma_; }
  double rho() const { return rho_; }
  // Largest feature index any support vector uses (1-based, as in libsvm).
  int max_index() const { return max_index_; }

  // Decision value for a dense input: x[0] is libsvm's index 1, ..., x[n - 1] index n.
  double predict(const double* x, size_t n) const;

 private:
  struct Node {
    int index;
    double value;
  };
  double gamma_ = 0;
  double rho_ = 0;
  int max_index_ = 0;
  std::vector<double> coef_;      // one coefficient per support vector
  std::vector<uint32_t> start_;   // first node of each support vector in nodes_; start_[l] is the end
  std::vector<Node> nodes_;       // all support vectors' nodes, ascending index within each vector
};

}  // namespace vmafx
