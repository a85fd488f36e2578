// SPDX-License-Identifier: LGPL-2.1-or-later
#include "batch/score.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "yuv_reader.h"

namespace vmafx::tools::batch {

namespace {

// Prefetch helpers per input and how far ahead they touch the mapping (as vmafx-score's).
constexpr unsigned kPrefetchThreads = 2;
constexpr uint64_t kPrefetchWindow = uint64_t(1) << 30;

}  // namespace

ScorerConfig scorer_config(const Row& row, const ScoreOptions& o) {
  ScorerConfig cfg;
  cfg.models.clear();
  for (const ModelSpec& m : row.sel.models) cfg.models.push_back(m.request);
  cfg.features = row.sel.features;
  cfg.conf_interval = true;
  cfg.threads = o.threads;
  cfg.subsample = 1;  // every frame is submitted; the row's subsample says which ones are scored
  cfg.backend = o.backend;
  cfg.vendor = o.vendor;
  cfg.device_id = o.device;
  if (o.notice) cfg.on_notice = [n = o.notice](NoticeLevel, const std::string& text, const std::string&) { n(text); };
  return cfg;
}

Status score_unit(const Row& row, const Unit& unit, const ScoreOptions& o, UnitResult* out) {
  VideoReader ref, dist;
  VMAFX_TRY(open_pair(row, &ref, &dist));

  StreamGeometry g;
  g.ref = ref.geometry();
  g.dist = g.ref;
  // The prefetch helpers touch the mapping ahead of the scorer and drop what it released; declared before the
  // scorer, they outlive its release callbacks on every way out.
  std::optional<tools::MappedPrefetch> pre_ref, pre_dist;
  std::unique_ptr<Scorer> scorer;
  {
    const ScorerConfig cfg = scorer_config(row, o);
    VMAFX_TRY(Scorer::create(cfg, g, &scorer));
  }
  if (o.keep_warm) o.keep_warm->reset();  // the new scorer holds the device now

  // The frames to submit: [first - before, end + after) of the row, the range itself scored.
  uint64_t first = 0, end = 0, before = 0, after = 0;
  if (!unit.whole) {
    const RangeContext ctx = scorer->range_context();
    if (!ctx.exact) return {Errc::unsupported, "this row cannot be scored in chunks: " + ctx.reason};
    first = unit.first;
    end = unit.end;
    before = std::min<uint64_t>(first, ctx.before);
    after = std::min<uint64_t>(ctx.after, unit.row_frames - end);
  }
  VMAFX_TRY(ref.skip(row.skip_ref + first - before));
  VMAFX_TRY(dist.skip(row.skip_dist + first - before));
  // Frames to read: a chunk exactly its range and context; a whole row to the end of the shorter input or frame_cnt.
  const uint64_t limit = unit.whole ? row.frame_cnt : before + (end - first) + after;

  const uint64_t total = unit.whole ? 0 : limit;
  pre_ref.emplace(ref, limit, kPrefetchWindow, kPrefetchThreads);
  pre_dist.emplace(dist, limit, kPrefetchWindow, kPrefetchThreads);

  const uint64_t base = first - before;  // row frame of the first frame submitted
  uint64_t k = 0;
  std::string ended_early;
  for (;;) {
    if (limit && k >= limit) break;
    const uint8_t *rp = nullptr, *dp = nullptr;
    bool got_r = false, got_d = false;
    VMAFX_TRY(ref.next_mapped(&rp, &got_r));
    VMAFX_TRY(dist.next_mapped(&dp, &got_d));
    if (!got_r || !got_d) {
      if (!unit.whole)
        return {Errc::truncated, (got_r ? row.dist_path : row.ref_path) + " ended at frame " +
                                     std::to_string(base + k) + " of the row, before the " +
                                     std::to_string(unit.row_frames) + " frames it had when the row was planned"};
      if (got_r != got_d)
        ended_early = (got_r ? row.dist_path : row.ref_path) + " ended before " +
                      (got_r ? row.ref_path : row.dist_path) + "; scored " + std::to_string(k) + " frames";
      break;
    }
    FramePair pair;
    VMAFX_TRY(make_picture_view(ref.format(), ref.width(), ref.height(), rp, ref.frame_size(), ref.layout(),
                                ref.planes(), &pair.ref));
    VMAFX_TRY(make_picture_view(dist.format(), dist.width(), dist.height(), dp, dist.frame_size(), dist.layout(),
                                dist.planes(), &pair.dist));
    const uint64_t f = base + k;
    pair.scored = (unit.whole || (f >= first && f < end)) && f % row.subsample == 0;
    pair.timestamp = int64_t(f);
    pair.user = f;
    const size_t rs = ref.frame_size(), ds = dist.frame_size();
    pair.release = [&pre_ref, &pre_dist, rp, dp, rs, ds, k] {
      pre_ref->released(k, rp, rp + rs);
      pre_dist->released(k, dp, dp + ds);
    };
    VMAFX_TRY(scorer->submit(std::move(pair)));
    k++;
    pre_ref->consumed(k);
    pre_dist->consumed(k);
    if (o.progress) o.progress(k, total);
  }
  if (k == 0) return {Errc::invalid_argument, "no frames to score"};
  VMAFX_TRY(scorer->flush());
  if (!ended_early.empty() && o.notice) o.notice(ended_early);

  const Collector& col = scorer->collector();
  UnitResult r;
  r.whole = unit.whole;
  r.first = unit.first;
  r.end = unit.end;
  r.row_frames = unit.row_frames;
  r.frames = unit.whole ? k : end - first;
  r.backend = scorer->backend_description();
  r.columns = col.names();
  const uint64_t from = unit.whole ? 0 : first, to = unit.whole ? k : end;
  for (uint64_t f = from; f < to; f++) {
    if (f % row.subsample) continue;
    const uint64_t local = f - base;
    UnitResult::Frame fr;
    fr.index = f;
    fr.values.assign(r.columns.size(), 0.0);
    fr.present.assign(r.columns.size(), 0);
    for (size_t c = 0; c < r.columns.size(); c++)
      if (col.get(local, c, &fr.values[c])) fr.present[c] = 1;
    r.frames_scored.push_back(std::move(fr));
  }
  if (unit.whole) r.aggregates = col.aggregates();
  *out = std::move(r);
  if (o.keep_warm && scorer->backend() == Backend::hip) *o.keep_warm = std::move(scorer);
  return Status::ok();
}

}  // namespace vmafx::tools::batch
