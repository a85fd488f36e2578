// SPDX-License-Identifier: LGPL-2.1-or-later
#include "option_runs.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace vmafx::test {

const std::vector<OptionRun>& option_runs() {
  static const std::vector<OptionRun> kRuns = [] {
    const std::vector<const char*> all = {"sample", "sample_same", "d10", "d10_same", "d12", "d16", "d16_same", "x2"};
    std::vector<OptionRun> r;
    // libvmaf's --aom_ctc v1.0 options of these three features.
    r.push_back({"ctc",
                 {"psnr=enable_apsnr=true:reduced_hbd_peak=true:min_sse=0.5", "float_ssim=enable_db=true:clip_db=true",
                  "float_ms_ssim=enable_db=true:clip_db=true"},
                 all});
    // mse columns, dB without a cap (identical pictures: +infinity), the l / c / s terms.
    r.push_back({"mse",
                 {"psnr=enable_apsnr=true:enable_mse=true", "float_ssim=enable_db=true:enable_lcs=true",
                  "float_ms_ssim=enable_db=true:enable_lcs=true"},
                 all});
    // Luma only (apsnr_cb / apsnr_cr of no samples: -infinity), another min_sse; float_ssim decimated by 2.
    r.push_back({"luma", {"psnr=enable_apsnr=true:enable_chroma=false:reduced_hbd_peak=true:min_sse=2.5",
                          "float_ssim=scale=2:enable_lcs=true"},
                 all});
    r.push_back({"scale3", {"float_ssim=scale=3:enable_db=true:clip_db=true"}, {"sample", "d10", "x2"}});
    // x2's automatic scale is 2: scale=1 differs from the default there (the ctc run has the default).
    r.push_back({"scale1", {"float_ssim=scale=1"}, {"sample", "x2"}});
    // Every other frame scored; apsnr still sums every frame (libvmaf's psnr is temporal). Two worker threads.
    OptionRun sub = r[0];
    sub.name = "ctc_sub2";
    sub.clips = {"sample", "d10"};
    sub.subsample = 2;
    sub.threads = 2;
    r.push_back(sub);
    return r;
  }();
  return kRuns;
}

std::string libvmaf_args(const OptionRun& run) {
  std::string s;
  for (const char* f : run.features) s += (s.empty() ? "" : " ") + std::string("--feature ") + f;
  if (run.subsample > 1) s += " --subsample " + std::to_string(run.subsample);
  return s;
}

FeatureRequest parse_feature_arg(const std::string& arg) {
  FeatureRequest fr;
  const size_t eq = arg.find('=');
  fr.name = arg.substr(0, eq);
  if (eq == std::string::npos) return fr;
  size_t at = eq + 1;
  while (at <= arg.size()) {
    size_t end = arg.find(':', at);
    if (end == std::string::npos) end = arg.size();
    const std::string kv = arg.substr(at, end - at);
    const size_t e = kv.find('=');
    fr.options.emplace_back(kv.substr(0, e), e == std::string::npos ? "" : kv.substr(e + 1));
    at = end + 1;
  }
  return fr;
}

Status score_option_run(const OptionRun& run, const DerivedClip& c, const PairClips& clips, Backend backend,
                        unsigned threads, OptionRunResult* out) {
  ScorerConfig cfg = scorer_config("");
  for (const char* f : run.features) cfg.features.push_back(parse_feature_arg(f));
  cfg.backend = backend;
  cfg.threads = threads;
  cfg.subsample = run.subsample;
  FrameLog log;
  std::unique_ptr<Scorer> scorer;
  VMAFX_TRY(make_scorer(cfg, derived_geometry(c), &log, &scorer));
  for (size_t i = 0; i < clips.ref.frames(); i++)
    VMAFX_TRY(scorer->submit(frame_pair(clips.ref.frame(i), clips.dist.frame(i), int64_t(i), i)));
  VMAFX_TRY(scorer->flush());
  out->backend = scorer->backend_description();
  out->names = scorer->score_names();
  out->frames = log.frames();
  out->aggregates = scorer->collector().aggregates();
  return Status::ok();
}

namespace {

std::string g17(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// One value against libvmaf's (null: inf or NaN, which its JSON cannot hold).
void compare_value(double ours, const nlohmann::ordered_json& theirs, const std::string& where,
                   OptionRunComparison* c) {
  c->values++;
  if (theirs.is_null()) {
    if (std::isfinite(ours)) c->problems += where + ": " + g17(ours) + ", libvmaf null (not finite)\n";
    return;
  }
  const double want = theirs.get<double>();
  if (!std::isfinite(ours)) {
    c->problems += where + ": " + g17(ours) + ", libvmaf " + g17(want) + "\n";
    return;
  }
  const double d = std::fabs(ours - want);
  if (d > c->max_diff) {
    c->max_diff = d;
    c->max_diff_at = where;
  }
  if (ours != want) c->problems += where + ": " + g17(ours) + ", libvmaf " + g17(want) + "\n";
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

OptionRunComparison compare_with_libvmaf(const OptionRunResult& got, const nlohmann::ordered_json& entry) {
  OptionRunComparison c;
  const auto& frames = entry.at("frames");
  if (frames.size() != got.frames.size()) {
    c.problems = std::to_string(got.frames.size()) + " frames, libvmaf " + std::to_string(frames.size()) + "\n";
    return c;
  }
  for (size_t k = 0; k < frames.size(); k++) {
    const FrameScore& fs = got.frames[k];
    const uint64_t num = frames[k].at("frameNum").get<uint64_t>();
    const std::string at = "frame " + std::to_string(num);
    if (fs.index != num) c.problems += at + ": scored frame " + std::to_string(fs.index) + " in its place\n";
    const auto& metrics = frames[k].at("metrics");
    std::vector<std::string> theirs;
    for (auto it = metrics.begin(); it != metrics.end(); ++it) theirs.push_back(it.key());
    if (theirs != got.names) {
      std::string a, b;
      for (const auto& n : got.names) a += " " + n;
      for (const auto& n : theirs) b += " " + n;
      c.problems += at + ": columns" + a + "; libvmaf's" + b + "\n";
      continue;
    }
    for (size_t i = 0; i < theirs.size(); i++) compare_value(fs.values[i], metrics.at(theirs[i]), at + " " + theirs[i], &c);
  }
  const auto& agg = entry.at("aggregate_metrics");
  std::vector<std::string> theirs;
  for (auto it = agg.begin(); it != agg.end(); ++it) theirs.push_back(it.key());
  if (theirs.size() != got.aggregates.size()) {
    c.problems += std::to_string(got.aggregates.size()) + " aggregate metrics, libvmaf " +
                  std::to_string(theirs.size()) + "\n";
    return c;
  }
  for (size_t i = 0; i < theirs.size(); i++) {
    if (got.aggregates[i].first != theirs[i]) {
      c.problems += "aggregate " + std::to_string(i) + " is " + got.aggregates[i].first + ", libvmaf's " + theirs[i] + "\n";
      continue;
    }
    compare_value(got.aggregates[i].second, agg.at(theirs[i]), "aggregate " + theirs[i], &c);
  }
  return c;
}

std::string compare_results(const OptionRunResult& want, const OptionRunResult& got) {
  if (want.names != got.names) return "different score columns";
  if (want.frames.size() != got.frames.size())
    return std::to_string(got.frames.size()) + " frames instead of " + std::to_string(want.frames.size());
  std::string out;
  size_t n = 0;
  for (size_t k = 0; k < want.frames.size(); k++) {
    const FrameScore& a = want.frames[k];
    const FrameScore& b = got.frames[k];
    if (a.index != b.index) {
      if (!n++) out = "frame " + std::to_string(k) + ": index differs";
      continue;
    }
    for (size_t i = 0; i < a.values.size() && i < b.values.size(); i++) {
      if (same(a.values[i], b.values[i])) continue;
      if (!n++)
        out = "frame " + std::to_string(a.index) + " " + want.names[i] + ": " + g17(a.values[i]) + " vs " +
              g17(b.values[i]);
    }
  }
  if (want.aggregates.size() != got.aggregates.size()) {
    if (!n++) out = "different aggregate metrics";
  } else {
    for (size_t i = 0; i < want.aggregates.size(); i++) {
      if (want.aggregates[i].first == got.aggregates[i].first &&
          same(want.aggregates[i].second, got.aggregates[i].second))
        continue;
      if (!n++)
        out = "aggregate " + want.aggregates[i].first + ": " + g17(want.aggregates[i].second) + " vs " +
              got.aggregates[i].first + " " + g17(got.aggregates[i].second);
    }
  }
  if (n > 1) out += " (and " + std::to_string(n - 1) + " more)";
  return out;
}

Status load_json(const std::string& path, nlohmann::ordered_json* out) {
  std::ifstream f(path);
  if (!f) return {Errc::io_error, "cannot open " + path};
  try {
    *out = nlohmann::ordered_json::parse(f);
  } catch (const std::exception& e) {
    return {Errc::io_error, path + ": " + e.what()};
  }
  return Status::ok();
}

}  // namespace vmafx::test
