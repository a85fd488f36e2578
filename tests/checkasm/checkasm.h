// SPDX-License-Identifier: LGPL-2.1-or-later
// checkasm: runs candidate implementations of a function against its reference on seeded, edge-biased inputs
// (tests/support/edge_inputs.h), prints the first mismatch with its coordinates, and with --bench times each
// implementation. The core knows nothing about what it checks: a Check is (function name, candidate name,
// reference, candidate, input generator, comparison), registered by a suite (cpu_kernels.cpp for the CPU's SIMD
// levels; GPU parity suites can register device candidates the same way).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "edge_inputs.h"

namespace vmafx::checkasm {

using test::EdgeRng;

// Where a comparison found a difference; empty when there is none.
struct Mismatch {
  std::string text;
  explicit operator bool() const { return !text.empty(); }
};

// First differing element of two w x h arrays (`stride` elements per row), named `what`.
template <class T>
Mismatch first_mismatch(const char* what, const T* ref, const T* cand, uint32_t w, uint32_t h, ptrdiff_t stride) {
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const T a = ref[ptrdiff_t(y) * stride + x], b = cand[ptrdiff_t(y) * stride + x];
      if (a != b) {
        std::ostringstream s;
        s << what << " at x=" << x << " y=" << y << ": reference " << +a << ", candidate " << +b;
        return {s.str()};
      }
    }
  return {};
}
template <class T>
Mismatch value_mismatch(const char* what, const T& ref, const T& cand) {
  if (ref == cand) return {};
  std::ostringstream s;
  s << what << ": reference " << +ref << ", candidate " << +cand;
  return {s.str()};
}

// One (function, candidate) pair. `run` generates an input from the generator's state, runs both implementations,
// and returns the mismatch (with a description of the input); `bench` runs implementation 0 (reference) or 1
// (candidate) on a fixed large input `reps` times.
struct Check {
  std::string function;   // e.g. "vif_vertical_row/s0"
  std::string reference;  // e.g. "scalar"
  std::string candidate;  // e.g. "avx2"
  std::function<Mismatch(EdgeRng& rng, std::string* input)> run;
  std::function<void(int which, unsigned reps)> bench;  // may be empty
};

// Typed helper: In is built by `gen`, Out compared by `cmp`; ref and cand fill an Out from an In.
template <class In, class Out>
Check make_check(std::string function, std::string reference, std::string candidate,
                 std::function<In(EdgeRng&, std::string* desc)> gen, std::function<void(const In&, Out*)> ref,
                 std::function<void(const In&, Out*)> cand, std::function<Mismatch(const Out&, const Out&)> cmp,
                 std::function<In()> bench_input = nullptr) {
  Check c;
  c.function = std::move(function);
  c.reference = std::move(reference);
  c.candidate = std::move(candidate);
  c.run = [gen, ref, cand, cmp](EdgeRng& rng, std::string* desc) {
    const In in = gen(rng, desc);
    Out a{}, b{};
    ref(in, &a);
    cand(in, &b);
    return cmp(a, b);
  };
  if (bench_input) {
    auto input = std::make_shared<std::unique_ptr<In>>();
    c.bench = [input, bench_input, ref, cand](int which, unsigned reps) {
      if (!*input) *input = std::make_unique<In>(bench_input());
      Out o{};
      for (unsigned i = 0; i < reps; ++i) (which == 0 ? ref : cand)(**input, &o);
    };
  }
  return c;
}

class Registry {
 public:
  void add(Check c) { checks_.push_back(std::move(c)); }
  const std::vector<Check>& checks() const { return checks_; }

 private:
  std::vector<Check> checks_;
};

struct Options {
  uint64_t seed = 1;
  unsigned iterations = 1000;  // inputs per check
  bool bench = false;
  unsigned bench_ms = 500;  // time per implementation and function in --bench (5 alternating rounds)
  std::string filter;       // substring of "function/candidate"
  bool list = false;
  bool verbose = false;
};

// Parses argv (--seed N, --iterations N, --bench, --bench-ms N, --function S, --list, --verbose); false on a bad
// argument, with the message on stderr.
bool parse_options(int argc, char** argv, Options* o);

// Runs every check (and the benchmarks); prints one line per check and a summary. Returns 0 when all passed, 1 on a
// mismatch, 77 when there was nothing to check (no candidate on this machine).
int run_all(const Registry& r, const Options& o);

}  // namespace vmafx::checkasm
