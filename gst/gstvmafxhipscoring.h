// SPDX-License-Identifier: LGPL-2.1-or-later
// The element's only door to the engine: one scoring session per stream (or per segment after a flushing seek).
// Everything the element asks the engine goes through ScoringSession, so that moving to another Scorer API touches
// this header's implementation only.
//
// The session is a thin layer over vmafx::Scorer (engine/include/vmafx/scorer.h): the model and feature lists, the
// two streams' geometries, pairs handed over with submit(pair, block), results back through the engine's on_frame
// callback (in frame order, from the submitting thread or an engine thread, outside the engine's locks). What it adds:
// ownership of the imported pictures, the lower CPU priority of a live pipeline's scoring threads, a bounded wait for
// room, and the fallback that keeps motion exact when a live pair cannot be scored (scored=false).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <glib.h>

#include "gstvmafxhipimport.h"
#include "vmafx/collector.h"
#include "vmafx/scorer.h"
#include "vmafx/status.h"

namespace vmafx::gst {

using OptionPairs = std::vector<std::pair<std::string, std::string>>;

// One model to score: a built-in version or a libvmaf JSON file, and the score column it writes.
struct ScoringModel {
  std::string model;
  std::string name;  // score column ("vmaf" for the first model)
  // From the model's spec (libvmaf's --model syntax): EXTRACTOR.OPTION overloads, and per-model disable_clip and
  // enable_transform (added to the element's properties of the same names).
  OptionPairs overrides;
  bool disable_clip = false;
  bool enable_transform = false;
};

// One feature beyond the models' (libvmaf's --feature NAME=opt=val:opt=val).
struct ScoringFeature {
  std::string name;
  OptionPairs options;
};

enum class Scaling { none, bicubic, bilinear, lanczos };

struct ScoringConfig {
  std::vector<ScoringModel> models;  // empty: features only
  bool disable_clip = false;
  bool enable_transform = false;
  bool conf_interval = false;
  std::vector<ScoringFeature> features;
  unsigned threads = 0;  // engine worker threads (0 and 1: the submitting thread computes)
  unsigned subsample = 1;
  Backend backend = Backend::auto_select;
  Vendor vendor = Vendor::auto_select;
  int device_id = -1;
  Scaling scaling = Scaling::bicubic;  // used only when the distorted size differs from the reference's
  // The session's threads (the engine's workers included) run at a lower CPU priority than the caller's, so that a
  // live pipeline's streaming threads keep real time on a machine the scoring keeps busy.
  bool background_priority = false;
  // Every scored frame, in frame order, never two at once, from the submitting thread or an engine thread; values
  // follow ScoringSession::score_names().
  std::function<void(const FrameScore&)> on_frame;
  // Said once per cause: a one-line `text` for the bus, `detail` for the debug log.
  std::function<void(bool warning, const std::string& text, const std::string& detail)> on_notice;
};

struct ScoringGeometry {
  VideoGeometry ref;
  VideoGeometry dist;  // width/height may differ from ref's (then `scaling` applies when the engine can)
};

class ScoringSession {
 public:
  static Status create(const ScoringConfig& cfg, const ScoringGeometry& geometry,
                       std::unique_ptr<ScoringSession>* out);
  // Stops without finishing: pairs not handed to the engine yet are released, nothing more is reported.
  ~ScoringSession();
  ScoringSession(const ScoringSession&) = delete;
  ScoringSession& operator=(const ScoringSession&) = delete;

  // Every per-frame score column, in the order of FrameScore::values.
  const std::vector<std::string>& score_names() const;
  // The score column of each model, in the configured order (empty without models).
  const std::vector<std::string>& model_score_names() const;
  Backend backend() const;
  std::string backend_description() const;
  // The features a GPU scorer runs on the CPU beside the GPU, because the GPU has no implementation of them (or not
  // for their options): "cambi, float_adm" as the engine names them in its description ("... (on the CPU: ...)").
  // Such features read host memory, so device input must be brought to the host. Empty on the CPU backend and when
  // every feature runs on the GPU.
  std::string cpu_features() const;
  // Whether submit() takes scored=false pairs (computed for the temporal features only, so that the next frame's
  // motion stays exact). When it does not, the element leaves such a pair out entirely.
  bool supports_unscored() const;
  // Whether a distorted stream of another size than the reference's can be scored (brought to the reference's size
  // with ScoringConfig::scaling) by this engine build.
  static bool scales_distorted();

  // A non-blocking submit would be accepted now (a hint: importing a frame that would be refused costs work).
  bool has_room() const;
  // Hands over a pair; the pictures are released exactly once, when the engine no longer reads them (also on
  // failure). `user` comes back in FrameScore::user.
  //   block=true: waits while the engine is full.
  //   block=false: tries for up to `wait_us` (0: once); when the engine stays full and `unscored_fallback` is set,
  //   the pair goes in computed for the temporal features only (no FrameScore; *scored_out false), so the next
  //   frame's motion stays exact; when even that finds no room, Errc::busy.
  Status submit(ImportedPicture ref, ImportedPicture dist, int64_t timestamp, uint64_t user, bool block,
                gint64 wait_us = 0, bool unscored_fallback = false, bool* scored_out = nullptr);
  // Refuses new pairs (Errc::busy) until the session is destroyed; a submit waiting for room returns within one
  // engine frame.
  void interrupt();

  // End of stream: every submitted frame is finished and reported through on_frame when this returns.
  Status flush();
  // After flush(): all scores (every model's columns), for pooling and the results file.
  const Collector& collector() const;
  uint64_t frames_submitted() const;
  double fps() const;

 private:
  ScoringSession() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

const char* scaling_name(Scaling s);

}  // namespace vmafx::gst
