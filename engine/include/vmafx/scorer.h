// SPDX-License-Identifier: LGPL-2.1-or-later
// Scorer: the engine's entry point. Hand it reference/distorted picture pairs in display order; it computes the
// features the models (and the caller) ask for on the CPU or the GPU, predicts each model's score per frame, and
// calls ScorerConfig::on_frame once per scored frame, in order, as soon as every feature that frame needs exists
// (motion needs the next frame, nothing more). Pictures are read in place: the scorer calls each pair's release
// callback once it will not read that memory again.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vmafx/collector.h"
#include "vmafx/devices.h"
#include "vmafx/picture.h"
#include "vmafx/status.h"
#include "vmafx/tuning.h"

namespace vmafx {

// Option list as libvmaf's dictionaries hold it: name -> text value, in the order given ("enable_chroma" -> "false").
using OptionList = std::vector<std::pair<std::string, std::string>>;

// A feature asked for beyond the models' (libvmaf's --feature NAME=opt=val:opt=val). `name` is a libvmaf feature
// extractor name ("psnr", "float_ssim", "float_ms_ssim", "cambi", "speed_chroma", "motion", "adm", "vif",
// "float_vif", ...). Unknown names and options are Errc::unsupported naming them (and listing the known ones).
struct FeatureRequest {
  std::string name;
  OptionList options;
};

// One model (libvmaf's --model version=...:name=...:disable_clip:enable_transform:<feature>.<opt>=<val>).
struct ModelRequest {
  std::string model = "vmaf_v0.6.1";  // built-in version or a path to a libvmaf model JSON file
  std::string name;                   // score column; "" -> "vmaf" (libvmaf's default for --model version=...)
  bool disable_clip = false;
  bool enable_transform = false;      // the phone model
  // Overloads of the model's feature options: {"vif.vif_enhn_gain_limit", "1.0"} ("<extractor>.<option>").
  OptionList overrides;
};

// How a distorted stream of another size is brought to the reference's size before any feature.
enum class ScaleMethod { none, bicubic, bilinear, lanczos };  // none: sizes must agree (Errc::unsupported otherwise)

enum class NoticeLevel { info, warning };

struct FrameScore;
class SharedReference;
struct SharedFrame;

struct ScorerConfig {
  std::vector<ModelRequest> models = {ModelRequest{}};  // empty: features only (libvmaf -n)
  // Bootstrap collections (vmaf_b_v0.6.3) always add each member's score, the bagged score, its standard deviation
  // and the 95 % interval as columns (libvmaf's CLI does); this says the caller shows them (the element's
  // conf-interval), the scorer itself ignores it.
  bool conf_interval = false;
  std::vector<FeatureRequest> features;
  // An extra feature the picture is too small for (MS-SSIM below 176x176): true leaves it out with one warning and
  // keeps the other scores (the element); false fails create() naming it, as libvmaf stops (vmafx-score).
  bool leave_out_unfit_features = true;
  unsigned threads = 0;    // CPU worker threads; 0 and 1: the caller's thread. Capped (Scorer::kMaxThreads)
  unsigned subsample = 1;  // score every n-th frame (libvmaf --subsample); temporal features still see every frame
  Backend backend = Backend::cpu;
  Vendor vendor = Vendor::auto_select;
  // backend=hip: the GPU, an index into the visible devices (the runtime's visibility variables, and on NVIDIA also
  // HIP_VISIBLE_DEVICES, decide which those are). -1: automatic placement: each new scorer goes to the visible GPU
  // with the fewest scorers of this process, ties broken by the most free memory, then the lowest index (so scorers
  // made at once spread over the GPUs before their allocations show, and GPUs other processes fill are avoided);
  // backend_description() and device() say where it went. An explicit index is used as given.
  int device_id = -1;
  ScaleMethod scale = ScaleMethod::bicubic;  // used only when the distorted geometry differs from the reference's
  // Scheduling and instruction-set settings (vmafx/tuning.h): the engine's defaults unless the caller says, e.g. from
  // tuning_from_environment(). Scores do not depend on them.
  EngineTuning tuning;
  // A ladder's reference (SharedReference, below): every pair then carries its SharedFrame, the reference-only
  // features (motion) are taken from it instead of computed, and on a GPU the reference is read from its device
  // copy. The scorer runs where the shared reference runs: `backend`, `vendor` and `device_id` are then its.
  std::shared_ptr<SharedReference> shared_reference;

  // Called once per scored frame, in frame order, never twice at the same time, from the submitting thread or a
  // worker / GPU completion thread, outside every lock of the scorer (it may call gst_element_post_message, or take
  // its own locks; it must not call back into the scorer except collector-free getters).
  std::function<void(const FrameScore&)> on_frame;
  // Said once per cause ("no GPU: scoring on the CPU", "ms_ssim left out: 160x120 is below 176x176", ...). The
  // detail string is for debug logs (GST_DEBUG level INFO), `text` is one short line.
  std::function<void(NoticeLevel level, const std::string& text, const std::string& detail)> on_notice;
};

// The two streams' geometries. dist.width/height may differ from ref's (then cfg.scale brings dist to ref's size);
// bit depth and chroma subsampling must agree.
struct StreamGeometry {
  VideoGeometry ref;
  VideoGeometry dist;  // zero width/height: same as ref
};

// One scored frame: values[i] belongs to Scorer::score_names()[i]; NaN where a score does not exist for this frame.
struct FrameScore {
  uint64_t index = 0;      // frame number in submission order (0-based), libvmaf's frame number
  int64_t timestamp = -1;  // the caller's timestamp of this frame, unchanged
  uint64_t user = 0;       // the caller's tag of this frame, unchanged
  std::shared_ptr<const void> tag;  // FramePair::tag, unchanged
  std::vector<double> values;
  double get(const std::string& name, const std::vector<std::string>& names) const;
};

// What scoring part of a stream alone needs so that each of its frames gets the values of a run over the whole
// stream, bit for bit (Scorer::range_context). Temporal features read neighbouring frames: integer_motion2 of frame i
// reads the references of frames i - 1 .. i + 1 (the five-frame window and the moving average read further back).
struct RangeContext {
  // Submit up to `before` frames ahead of the range's first frame and up to `after` frames past its last (fewer where
  // the stream starts or ends first) with FramePair::scored = false.
  unsigned before = 0, after = 0;
  // False when no context gives a part the whole run's values; `reason` names the feature and why (psnr's
  // enable_apsnr sums the whole stream into its aggregates).
  bool exact = true;
  std::string reason;
};

// One pair handed to the scorer.
struct FramePair {
  PictureView ref;
  PictureView dist;       // at the distorted geometry of StreamGeometry
  int64_t timestamp = -1;
  uint64_t user = 0;
  // The caller's data for this frame, handed back in its FrameScore (kept until the frame is scored or, for a pair
  // that yields no score, until the scorer no longer reads it).
  std::shared_ptr<const void> tag;
  // false: the pair is computed only for temporal features (motion reads consecutive frames) and yields no
  // FrameScore (a live element skipping a frame it cannot afford keeps the next frame's motion exact).
  bool scored = true;
  // Called exactly once, from any thread, outside the scorer's locks, when the scorer no longer reads either picture
  // (also when submit fails). Pictures stay valid until then.
  std::function<void()> release;
  // With ScorerConfig::shared_reference: this frame's reference, as SharedReference::submit returned it (`ref` is
  // then left empty). A pair may also come without one (its own `ref`): the scorer computes every feature for it.
  std::shared_ptr<const SharedFrame> shared;
};

// What a scorer did (Scorer::counters), for tests and benchmarks.
struct ScorerCounters {
  uint64_t frames = 0;                    // pairs submitted
  uint64_t reference_feature_frames = 0;  // frames on which the scorer computed reference-only features itself
  uint64_t shared_frames = 0;             // frames whose reference-only features came from the shared reference
  uint64_t uploaded_bytes = 0;            // bytes the scorer's GPU pipeline copied from the host to the device
  // GPU frame graphs (EngineTuning::graphs): frames whose work ran as a cached graph, graphs captured, frames queued
  // call by call while graphs were on (the cache gave up), and the runtime calls recorded in all.
  uint64_t graph_launches = 0, graph_captures = 0, graph_direct = 0, graph_calls = 0;
};

class Scorer {
 public:
  static constexpr unsigned kMaxThreads = 64;  // documented cap of ScorerConfig::threads (higher: clamped, notice)

  virtual ~Scorer() = default;
  static Status create(const ScorerConfig& cfg, const StreamGeometry& geometry, std::unique_ptr<Scorer>* out);
  // What create() can refuse before any geometry is known: models that do not load, unknown features, options a
  // feature does not take. (Geometry-dependent refusals — a picture too small for a model — come from create().)
  static Status validate(const ScorerConfig& cfg);

  // Names of the per-frame scores in output order, libvmaf's aliased names ("integer_adm2", ..., "vmaf").
  virtual const std::vector<std::string>& score_names() const = 0;
  // Score column of each model, in cfg.models order ("vmaf", "vmaf_4k", ...). Empty without models.
  virtual const std::vector<std::string>& model_score_names() const = 0;
  // The context every part of the stream needs for these features (the largest window among them).
  virtual RangeContext range_context() const = 0;
  virtual Backend backend() const = 0;  // the backend actually used (cpu when auto fell back)
  // "cpu"; "hip: nvidia NVIDIA H200 (sm_90), device 0, 6 lanes"; placed among several GPUs: "hip: ... (sm_90),
  // placed automatically on device 1 of 2 (0: 1 session, 80.2 of 140.4 GiB free; 1: 0 sessions, ...), 6 lanes".
  virtual std::string backend_description() const = 0;
  // The GPU the scorer runs on (an index into the visible devices, ScorerConfig::device_id's), -1 on the CPU.
  virtual int device() const = 0;

  // Hands over a pair. block=true waits while the pipeline is full; block=false returns Errc::busy instead (the
  // pair's release is then called, nothing was queued). Errors are sticky: every later call returns the first.
  virtual Status submit(FramePair pair, bool block = true) = 0;
  // Waits for room until `deadline` at most (steady clock), then Errc::busy (the pair's release called, nothing
  // queued). time_point::max() waits as long as it takes.
  virtual Status submit(FramePair pair, std::chrono::steady_clock::time_point deadline) = 0;
  // The features computed on the CPU (libvmaf's extractor names): all of them on the CPU backend; beside a GPU, those
  // without a GPU implementation for their options. They read host memory, so device input must reach the host.
  virtual std::vector<std::string> cpu_features() const = 0;
  // End of stream: finishes every submitted frame (on_frame has been called for all of them when this returns).
  virtual Status flush() = 0;

  // Everything computed so far (pooling, results files). Read it after flush() returned.
  virtual const Collector& collector() const = 0;
  virtual uint64_t frames_submitted() const = 0;
  virtual double fps() const = 0;  // frames per second of wall time between the first submit and flush
  virtual ScorerCounters counters() const = 0;
};

// What a shared reference did (SharedReference::counters).
struct SharedReferenceCounters {
  uint64_t frames = 0;          // reference pictures submitted
  uint64_t feature_frames = 0;  // frames its reference-only features were computed on
  uint64_t uploads = 0;         // reference pictures copied to the device (a GPU backend and host pictures)
  uint64_t uploaded_bytes = 0;
};

// One reference for several distorted streams (an encoding ladder). Each reference picture is handed over once:
// on a GPU it is copied to the device once, and the features that read the reference alone (motion: integer_motion,
// float_motion) are computed once; every Scorer made with ScorerConfig::shared_reference reads the device copy and
// takes those values, so its scores are bit for bit those of a scorer of its own. A scorer takes the shared values of
// a frame only where the shared reference's frame read the same previous references as the scorer's own frame would:
// where its pairs start at a later shared frame, skip shared frames or come without one, it computes those features
// itself for the next frame or two, as a scorer of its own fed the same pairs does.
class SharedReference {
 public:
  virtual ~SharedReference() = default;
  // `cfg` as the scorers' (models, features, backend, vendor, device, tuning): the reference-only features of its
  // models and features are the ones computed here. Automatic placement (device_id -1) places the shared reference;
  // its scorers follow it.
  static Status create(const ScorerConfig& cfg, const VideoGeometry& reference, std::shared_ptr<SharedReference>* out);

  // Hands over the next reference picture (display order, the first is frame 0) and returns its handle for the
  // scorers' pairs. `release` is called once, from any thread, when neither the shared reference nor any scorer
  // reads the picture any more (the last handle is gone and its features are computed); also when submit fails.
  // Blocks while the backend has its fill of frames, and for a while when scorers hold 64 GPU copies.
  virtual Status submit(const PictureView& reference, std::function<void()> release,
                        std::shared_ptr<const SharedFrame>* out) = 0;
  virtual Backend backend() const = 0;
  virtual int device() const = 0;  // as Scorer::device()
  virtual std::string backend_description() const = 0;
  // The reference-only features computed here (libvmaf's extractor names), in computation order; empty when the
  // models and features read no reference alone.
  virtual std::vector<std::string> features() const = 0;
  virtual SharedReferenceCounters counters() const = 0;
};

}  // namespace vmafx
