// SPDX-License-Identifier: LGPL-2.1-or-later
// ScoringSession: the scoring side of the element, without GStreamer in its interface. One thread of its own takes
// StreamPairing's work in order (pairs, segment ends, the stream's end) and keeps the time rules (stall, unlinked
// pads, the live hold after the output ended); per rendition (distorted pad) it owns the engine's Scorer, made at the
// rendition's first pair and made anew when a pair's geometry differs from the scorer's (a caps change: each frame is
// read with the caps it arrived under, the scores of the parts pooled together); it posts nothing itself: frames,
// pooled results, notices and errors go to the element's callbacks, and the results files are written here
// (atomically: a temporary file, fsync, rename).
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "stream_pairing.h"
#include "vmafx/collector.h"
#include "vmafx/output.h"
#include "vmafx/picture.h"
#include "vmafx/scorer.h"
#include "vmafx/status.h"

namespace vmafx::gst {

// A frame read for the engine: its picture view and what keeps the memory readable.
struct ReadPicture {
  PictureView view;
  std::shared_ptr<void> keep;
};

// What a frame's caps say (no reading): its geometry and pixel aspect ratio.
struct FrameShape {
  VideoGeometry geometry;
  int par_n = 1, par_d = 1;
  bool operator==(const FrameShape& o) const {
    return geometry.width == o.geometry.width && geometry.height == o.geometry.height &&
           geometry.bit_depth == o.geometry.bit_depth && geometry.chroma == o.geometry.chroma &&
           par_n * o.par_d == o.par_n * par_d;
  }
  bool operator!=(const FrameShape& o) const { return !(*this == o); }
};

// What a frame message needs: the pair's frames (their meta, the element's), the rendition, and the scaling.
struct ScoredFrame {
  unsigned pad = 0;
  Frame ref, dist;  // without payloads (the pictures are released when the engine no longer reads them)
  std::string scaled_from;  // "WxH" when the distorted frame was scaled to the reference's size
};

// One rendition's results, at a segment's or the stream's end.
struct RenditionResult {
  unsigned pad = 0;
  const Collector* collector = nullptr;  // every column of every part
  std::vector<std::string> score_names, model_score_names;
  uint64_t frames = 0;  // pairs handed to the engine
  double fps = 0;
  RenditionCounts counts;
  std::string scaled_from;  // "WxH" when the rendition was scaled
  VideoGeometry ref_geometry;
  ScorerCounters counters;  // summed over the parts (frames on which the reference's motion was shared, ...)
};

struct SessionConfig {
  ScorerConfig scorer;  // models, features, threads, backend; on_frame / on_notice are the session's
  // The scoring threads run at the lowest CPU priority (also without this when the pipeline is live, as the pairing
  // says when a scorer is made), so that capture keeps real time on a machine the scoring keeps busy.
  bool background_priority = false;
  bool allow_stretch = false;        // a distorted stream of another display aspect ratio is scaled (else an error)
  // Results files: empty path none. With several renditions, "%s" in the path is replaced by the pad's name;
  // without it, the first rendition writes `path` and the others `path` with ".<pad name>" before its extension.
  std::string results_path;
  ResultsFormat results_format = ResultsFormat::json;
};

struct SessionCallbacks {
  // The shape of one frame of `pad` (from its caps), and reading it (the element's import); on the session thread.
  std::function<FrameShape(unsigned pad, const Frame& frame)> shape;
  std::function<Status(unsigned pad, const Frame& frame, ReadPicture* out)> read;
  // Before each scorer is made: settings that depend on the reference's caps (model-filename=auto by its height,
  // ssimulacra2's matrix and range); `ref` is the first reference frame the scorer will read.
  std::function<Status(const Frame& ref, const VideoGeometry& geometry, ScorerConfig* cfg)> prepare;
  // A scorer was made: the features that run on the CPU (read host memory: device input must reach the host), its
  // backend, its GPU (Scorer::device(), -1 on the CPU: device input is imported there) and its description.
  std::function<void(unsigned pad, const std::vector<std::string>& cpu_features, Backend backend, int device,
                     const std::string& description)>
      on_scorer;
  std::function<void(const ScoredFrame& frame, const FrameScore& score, const std::vector<std::string>& names,
                     const std::vector<std::string>& model_names)>
      on_frame;
  std::function<void(NoticeLevel level, const std::string& text, const std::string& detail)> on_notice;
  // An error: the element posts it (once) and fails the pairing. `kind`: 0 an engine failure (`code`), 1 a pad not
  // linked, 2 a stalled stream (StreamPairing's FailureText kinds), 3 streams that cannot be scored together (their
  // caps: the element names them).
  std::function<void(int kind, Errc code, const std::string& text, const std::string& detail)> on_error;
  // Skips and other decisions the time rules made (to be reported like the streaming threads' reports).
  std::function<void(Report&& report)> on_report;
  // A segment's end (flushing seek: `final` false, no results file) or the stream's end (`final` true, after the
  // results files). Every rendition, in pad order.
  std::function<void(const std::vector<RenditionResult>& results, bool final)> on_end;
  // Result files written (path, format) — for the debug log.
  std::function<void(const std::string& path)> on_written;
};

// The first clause of an engine message, for a one-line error text; a refusal under allow-copy=false says so.
std::string short_reason(const std::string& message);

class ScoringSession {
 public:
  ScoringSession(StreamPairing* pairing, SessionCallbacks callbacks);
  ~ScoringSession();  // stop()
  ScoringSession(const ScoringSession&) = delete;
  ScoringSession& operator=(const ScoringSession&) = delete;

  // Checks what can be checked before the first frame (models, feature names, results files writable) and starts
  // the session thread. An error here fails the element's state change.
  Status start(const SessionConfig& config);
  // Joins the thread and releases every picture; nothing more is reported. Safe to call twice.
  void stop();
  // A rendition's pad name (its results file and messages); a request pad added while running gets its results
  // target checked writable here.
  Status add_rendition(unsigned pad, const std::string& pad_name, bool running);

  // Counters (any thread).
  uint64_t frames_scored() const { return scored_.load(); }

  // The path rendition `pad` writes (empty: none).
  std::string results_path_for(unsigned pad, const std::string& pad_name, size_t renditions) const;

 private:
  struct Rendition;
  void run();
  void handle_pair(Work& w);
  void end_segment(bool final, const std::vector<std::pair<unsigned, RenditionCounts>>* counts);
  void end_rendition(unsigned pad);
  bool make_scorer(Rendition& r, const Frame& ref_frame, const FrameShape& ref, const FrameShape& dist);
  // Runs `create` (a Scorer's or a SharedReference's creation) at the lowest CPU priority where the session runs in
  // the background (the engine's threads inherit it), else as it is.
  Status create_engine_object(const std::function<Status()>& create);
  // The shared reference for reference frames of shape `ref` (made, or made anew after a caps change), with the
  // settings `cfg` (after prepare); false after an error was reported.
  bool ensure_shared(const ScorerConfig& cfg, const FrameShape& ref);
  // The live shared frame of reference frame `ref` in the shared reference `shared`, or null.
  std::shared_ptr<const SharedFrame> find_shared(const SharedReference* shared, const Frame& ref);
  void finish_part(Rendition& r);
  RenditionResult result_of(Rendition& r);
  Status write_results(const std::vector<RenditionResult>& results);
  void error(int kind, Errc code, const std::string& text, const std::string& detail);
  std::string pad_name(unsigned pad);

  StreamPairing* pairing_;
  SessionCallbacks cb_;
  SessionConfig cfg_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  bool lowered_ = false;  // the session thread runs at the lowest priority
  // The GPU the session's first GPU scorer was placed on (device-id -1): the other renditions' scorers go there too,
  // since they share the reference's frames (imported on one device). Session thread only.
  int placed_device_ = -1;
  // With several renditions: the reference's shared reference (vmafx/scorer.h: each reference frame copied to the
  // GPU once and its motion computed once for every rendition's scorer), for the reference's current shape; and the
  // recent reference frames handed to it, found again by their payload while a scorer still holds them (a rendition
  // whose frame is no longer there brings its own reference, scored exactly the same). Session thread only.
  std::shared_ptr<SharedReference> shared_;
  FrameShape shared_shape_;
  struct RecentRef {
    const void* payload = nullptr;
    Time pts = kNoTime;
    std::weak_ptr<const SharedFrame> frame;
  };
  std::deque<RecentRef> recent_;
  std::atomic<uint64_t> scored_{0};
  std::map<unsigned, std::unique_ptr<Rendition>> renditions_;
  std::map<unsigned, std::string> pad_names_;
  std::mutex names_mu_;
  std::vector<std::string> created_files_;  // results files this session created (removed when never written)
  std::vector<std::string> written_files_;
};

}  // namespace vmafx::gst
