// SPDX-License-Identifier: LGPL-2.1-or-later
#include "checkasm.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

namespace vmafx::checkasm {

bool parse_options(int argc, char** argv, Options* o) {
  if (const char* s = std::getenv("VMAFX_CHECKASM_SEED")) o->seed = std::strtoull(s, nullptr, 0);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "checkasm: %s needs a value\n", name);
        return nullptr;
      }
      return argv[++i];
    };
    if (a == "--seed") {
      const char* v = value("--seed");
      if (!v) return false;
      o->seed = std::strtoull(v, nullptr, 0);
    } else if (a == "--iterations") {
      const char* v = value("--iterations");
      if (!v) return false;
      o->iterations = unsigned(std::strtoul(v, nullptr, 0));
    } else if (a == "--bench") {
      o->bench = true;
    } else if (a == "--bench-ms") {
      const char* v = value("--bench-ms");
      if (!v) return false;
      o->bench_ms = unsigned(std::strtoul(v, nullptr, 0));
    } else if (a == "--function") {
      const char* v = value("--function");
      if (!v) return false;
      o->filter = v;
    } else if (a == "--list") {
      o->list = true;
    } else if (a == "--verbose") {
      o->verbose = true;
    } else {
      std::fprintf(stderr,
                   "checkasm: unknown argument %s\nusage: checkasm [--seed N] [--iterations N] [--function S] "
                   "[--bench [--bench-ms N]] [--list] [--verbose]\n",
                   a.c_str());
      return false;
    }
  }
  return true;
}

namespace {

// Seconds per call of implementation `which`: calls repeated until `ms` have passed (at least 3 calls).
double time_per_call(const Check& c, int which, unsigned ms) {
  using clk = std::chrono::steady_clock;
  unsigned reps = 1, total = 0;
  const auto t0 = clk::now();
  double elapsed = 0;
  while (elapsed * 1000 < ms || total < 3) {
    c.bench(which, reps);
    total += reps;
    elapsed = std::chrono::duration<double>(clk::now() - t0).count();
    if (reps < 1024) reps *= 2;
  }
  return elapsed / total;
}

// Reference and candidate timed in turn, 5 rounds each of bench_ms / 5; the fastest round of each counts (a shared,
// loaded machine only ever makes a round slower).
void time_pair(const Check& c, unsigned bench_ms, double* ref, double* cand) {
  c.bench(0, 1);  // warm-up: builds the input, touches the memory
  c.bench(1, 1);
  *ref = *cand = 1e30;
  for (int r = 0; r < 5; ++r) {
    const double a = time_per_call(c, 0, bench_ms / 5 + 1), b = time_per_call(c, 1, bench_ms / 5 + 1);
    if (a < *ref) *ref = a;
    if (b < *cand) *cand = b;
  }
}

}  // namespace

int run_all(const Registry& r, const Options& o) {
  unsigned checked = 0, failed = 0;
  std::printf("checkasm: seed %llu, %u inputs per check\n", (unsigned long long)o.seed, o.iterations);
  for (const Check& c : r.checks()) {
    const std::string id = c.function + "/" + c.candidate;
    if (!o.filter.empty() && id.find(o.filter) == std::string::npos) continue;
    if (o.list) {
      std::printf("%s (reference %s)\n", id.c_str(), c.reference.c_str());
      continue;
    }
    ++checked;
    // Each check draws from its own stream, so adding checks does not change the inputs of the others.
    uint64_t h = o.seed;
    for (char ch : id) h = h * 1099511628211ull ^ uint8_t(ch);
    EdgeRng rng(h);
    Mismatch m;
    std::string input;
    unsigned i = 0;
    for (; i < o.iterations; ++i) {
      input.clear();
      m = c.run(rng, &input);
      if (m) break;
      if (o.verbose) std::printf("  %s #%u: %s\n", id.c_str(), i, input.c_str());
    }
    if (m) {
      ++failed;
      std::printf("FAIL %-40s input #%u (%s): %s\n", id.c_str(), i, input.c_str(), m.text.c_str());
    } else {
      std::printf("ok   %-40s %u inputs\n", id.c_str(), i);
    }
  }
  if (o.list) return 0;
  if (o.bench) {
    std::printf("\n%-34s %-8s %12s %12s %8s\n", "function", "isa", "reference", "candidate", "speedup");
    for (const Check& c : r.checks()) {
      const std::string id = c.function + "/" + c.candidate;
      if (!o.filter.empty() && id.find(o.filter) == std::string::npos) continue;
      if (!c.bench) continue;
      double a = 0, b = 0;
      time_pair(c, o.bench_ms, &a, &b);
      std::printf("%-34s %-8s %10.1f us %10.1f us %7.2fx\n", c.function.c_str(), c.candidate.c_str(), a * 1e6,
                  b * 1e6, a / b);
    }
  }
  std::printf("checkasm: %u checks, %u failed\n", checked, failed);
  if (failed) return 1;
  if (!checked) {
    std::printf("checkasm: nothing to check on this machine (no candidate implementation)\n");
    return 77;
  }
  return 0;
}

}  // namespace vmafx::checkasm
