// SPDX-License-Identifier: LGPL-2.1-or-later
// Scorer: the engine's entry point. Hand it reference/distorted picture pairs in display order; it computes the
// features the model (and the caller) asks for on the CPU or the GPU, predicts VMAF per frame, and hands back one
// FrameScore per scored frame, in order, as soon as every feature that frame needs exists (motion needs the next
// frame, nothing more). Pictures are read in place: the scorer calls the release callback of a submitted pair once it
// will not read that memory again.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vmafx/collector.h"
#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx {

enum class Backend { auto_select, cpu, hip };
enum class Vendor { auto_select, amd, nvidia };
const char* backend_name(Backend b);
const char* vendor_name(Vendor v);

struct ScorerConfig {
  // Built-in model version (vmaf_v0.6.1, vmaf_v0.6.1neg, vmaf_4k_v0.6.1, vmaf_4k_v0.6.1neg, vmaf_b_v0.6.3) or a path to
  // a libvmaf model JSON file. Empty: no model, features only.
  std::string model = "vmaf_v0.6.1";
  // Column name of the model's score, as libvmaf's --model name=... (default "vmaf"); bootstrap models add
  // <name>_bagging, <name>_stddev, <name>_ci_p95_lo and <name>_ci_p95_hi.
  std::string model_name = "vmaf";
  bool disable_clip = false;
  bool enable_transform = false;  // libvmaf's phone model
  bool conf_interval = false;     // bootstrap models: also report stddev and the 95 % interval
  // Extra features beyond those the model needs, by libvmaf name: "psnr", "float_ssim", "float_ms_ssim",
  // "motion", "adm", "vif".
  std::vector<std::string> features;
  unsigned threads = 0;    // CPU worker threads; 0 and 1 run in the caller's thread
  unsigned subsample = 1;  // score every n-th frame (libvmaf --subsample); motion still uses every frame
  Backend backend = Backend::cpu;
  Vendor vendor = Vendor::auto_select;
  int device_id = -1;      // -1: first usable device
  // Called with a message the caller should show once (e.g. "no GPU: scoring on the CPU").
  std::function<void(const std::string&)> on_notice;
};

struct VideoGeometry {
  uint32_t width = 0, height = 0;
  uint8_t bit_depth = 8;
  Chroma chroma = Chroma::k420;
};

// Scores of one scored frame: values[i] belongs to Scorer::score_names()[i]; NaN where a score does not exist for
// this frame.
struct FrameScore {
  uint64_t index = 0;      // frame number in submission order (0-based)
  int64_t timestamp = -1;  // the caller's timestamp of this frame, unchanged
  uint64_t user = 0;       // the caller's tag of this frame, unchanged
  std::vector<double> values;
  double get(const std::string& name, const std::vector<std::string>& names) const;
};

// Thread safety: one thread submits and flushes; next() and wait_next() may be called from another thread at the same
// time (e.g. a thread that posts results). collector() is safe to read once flush() has returned.
class Scorer {
 public:
  virtual ~Scorer() = default;

  static Status create(const ScorerConfig& cfg, const VideoGeometry& geometry, std::unique_ptr<Scorer>* out);

  // Names of the per-frame scores in output order, libvmaf's aliased names ("integer_adm2", ..., "vmaf").
  virtual const std::vector<std::string>& score_names() const = 0;
  // Name of the model's score column ("vmaf"), empty without a model.
  virtual const std::string& model_score_name() const = 0;
  // The backend actually used (cpu when auto fell back).
  virtual Backend backend() const = 0;
  virtual std::string backend_description() const = 0;

  // Hands over a pair. `release` (may be empty) is called exactly once, from any thread, when the scorer no longer
  // reads either picture; pictures must stay valid until then. May block while many frames are in flight.
  virtual Status submit(const PictureView& ref, const PictureView& dist, int64_t timestamp, uint64_t user,
                        std::function<void()> release) = 0;

  // Takes the next finished frame, in order. Returns false if none is ready.
  virtual bool next(FrameScore* out) = 0;
  // Waits until the next frame is finished (or the pipeline is empty); returns false when nothing more will come
  // without another submit or flush.
  virtual bool wait_next(FrameScore* out) = 0;

  // End of stream: finishes every submitted frame (the last frames' motion included) so next() returns them all.
  virtual Status flush() = 0;

  // Everything computed so far, for pooling and results files. Valid after flush() (or between calls).
  virtual const Collector& collector() const = 0;
  virtual uint64_t frames_submitted() const = 0;
  // Frames scored per second of wall time between the first submit and flush (for the results' fps field).
  virtual double fps() const = 0;
};

}  // namespace vmafx
