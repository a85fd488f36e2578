// SPDX-License-Identifier: LGPL-2.1-or-later
// The feature table: one descriptor per libvmaf feature extractor. Everything the engine knows about a feature is
// here — libvmaf's names (the extractor's, the features it provides, their aliases), its options with types,
// defaults, ranges and the suffixes they append to score names, what it reads of a frame, whether it is temporal,
// and its CPU implementation. The model loader resolves model features through it, the scorer configures instances
// from it, and both backends read it (the HIP backend keeps its own list of GPU implementations by extractor name,
// engine/hip/gpu_features.cpp). Adding a feature is one entry in table.cpp plus its implementations.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx {
struct VideoGeometry;
}

namespace vmafx::features {

// libvmaf's option text: name -> value, in the order given.
using OptionList = std::vector<std::pair<std::string, std::string>>;

enum class OptType : uint8_t { boolean, integer, real, text };

struct OptionDesc {
  const char* name;     // libvmaf's option name
  const char* alias;    // the name in score names; nullptr: `name`
  OptType type;
  bool names_score;     // a libvmaf feature parameter: a non-default value appends "_<alias>_<value>" to score names
  double def;           // default of boolean (0/1), integer and real options
  const char* def_text; // default of text options
  double min, max;      // range of integer and real options (libvmaf's)
  // vmafx computes the feature with this option at any value. Options not honoured are accepted at their default
  // only; another value is Errc::unsupported naming the option.
  bool honoured;
};

// What a feature reads of each frame.
enum Reads : uint8_t {
  kReadsRefLuma = 1,
  kReadsDistLuma = 2,
  kReadsChroma = 4,   // Cb and Cr of both pictures
  kReadsPrevRef = 8,  // the previous frame's reference luma
  kReadsPrevDist = 16,  // the previous frame's distorted luma
};

struct FeatureDesc;

// What a temporal feature reads around a frame: scoring frames [a, b) of a longer stream alone gives each of them the
// values of a whole run when frames a - before .. a - 1 and b .. b + after - 1 are computed too (unscored), or the
// stream starts or ends first. whole_stream: no window does (a value sums the whole stream, psnr's enable_apsnr).
struct RangeWindow {
  unsigned before = 0, after = 0;
  bool whole_stream = false;
  const char* why = "";  // with whole_stream: the reason, for messages
};

// The options of one configured feature: every option of its descriptor, the default where none was given.
class Options {
 public:
  Options() = default;
  const FeatureDesc* desc() const { return desc_; }
  // Value of a numeric or boolean option by name (the descriptor must declare it).
  double num(std::string_view name) const;
  bool flag(std::string_view name) const { return num(name) != 0; }
  const std::string& text(std::string_view name) const;
  // The option was given (also at its default value).
  bool given(std::string_view name) const;
  // "_<alias>_<value>" for every score-naming option away from its default, sorted by option name (libvmaf's
  // feature_name.c rule; booleans append "_<alias>").
  std::string score_suffix() const;
  bool operator==(const Options& o) const;

 private:
  friend Status parse_options(const FeatureDesc& desc, const OptionList& given, Options* out);
  struct Value {
    double num = 0;
    std::string text;
    bool given = false;
  };
  const Value& at(std::string_view name) const;
  const FeatureDesc* desc_ = nullptr;
  std::vector<Value> values_;  // one per desc_->options entry
};

// A frame as a CPU implementation sees it.
struct FrameView {
  uint64_t index = 0;
  const PictureView* ref = nullptr;
  const PictureView* dist = nullptr;
  const PictureView* prev_ref = nullptr;       // the previous frame's reference, null on the first frame
  const PictureView* prev_prev_ref = nullptr;  // the reference two frames back (features whose frames_back() is 2)
  const PictureView* prev_dist = nullptr;      // the previous frame's distorted picture (kReadsPrevDist), null first
};

// A CPU implementation; one object per worker thread (it owns its scratch memory).
class CpuFeature {
 public:
  virtual ~CpuFeature() = default;
  // Writes the feature's per-frame values (Instance::value_count(): its outputs, then its stage inputs) to `out`.
  // The frame's pictures are host memory.
  virtual Status compute(const FrameView& frame, double* out) = 0;
};

// A temporal feature's in-order stage: sees every frame's per-frame outputs in frame order and gives the final
// scores of its stage columns (Instance::stage_outputs), possibly for earlier frames (integer_motion2 of frame i
// needs the SAD of frame i + 1).
class OrderedStage {
 public:
  struct Value {
    uint64_t frame;
    unsigned column;  // index into Instance::stage_outputs
    double value;
  };
  virtual ~OrderedStage() = default;
  virtual void push(uint64_t frame, const double* outputs, std::vector<Value>* ready) = 0;
  virtual void finish(std::vector<Value>* ready) = 0;
  // Values of the whole stream, read after finish(): libvmaf's aggregate metrics (psnr's apsnr_y, apsnr_cb,
  // apsnr_cr), under libvmaf's names, in its order.
  virtual void aggregates(std::vector<std::pair<std::string, double>>* out) const { (void)out; }
};

struct FeatureDesc {
  const char* name;                    // libvmaf's extractor name ("adm", "vif", "psnr", "float_ssim", ...)
  std::vector<const char*> provides;   // feature names a model may ask of it (libvmaf's provided_features)
  std::vector<OptionDesc> options;     // libvmaf's options, in libvmaf's order
  // Implementation; all null for extractors vmafx does not compute (a model needing one is refused by name).
  // Per-frame output columns before the option suffix, in libvmaf's order.
  std::vector<std::string> (*outputs)(const Options&, const VideoGeometry&) = nullptr;
  std::vector<const char*> stage_outputs;  // columns of the ordered stage, before the suffix (motion2, motion3)
  uint8_t reads = kReadsRefLuma | kReadsDistLuma;
  bool temporal = false;               // runs on every frame, also those --subsample or a live skip leaves unscored
  // The geometry is one the feature can score (errors name the limit); called before any instance is made.
  Status (*check)(const Options&, const VideoGeometry&) = nullptr;
  Status (*make_cpu)(const Options&, const VideoGeometry&, std::unique_ptr<CpuFeature>*) = nullptr;
  // The ordered stage; it may return null for options that need none (psnr without enable_apsnr).
  std::unique_ptr<OrderedStage> (*make_stage)(const Options&, const VideoGeometry&) = nullptr;
  // How many previous frames the feature reads with these options (null: 1 with kReadsPrevRef or kReadsPrevDist,
  // else 0).
  unsigned (*frames_back)(const Options&) = nullptr;

  unsigned references_back(const Options& o) const {
    return frames_back ? frames_back(o) : (reads & (kReadsPrevRef | kReadsPrevDist)) ? 1u : 0u;
  }
  // How many of the per-frame outputs take the option suffix; libvmaf writes the others verbatim (cambi's
  // cambi_source and cambi_full_reference are not among its provided features, so its name dictionary leaves them
  // alone).
  unsigned suffixed_outputs = ~0u;
  // Values an implementation computes per frame after its output columns, read only by its ordered stage (float
  // motion's raw score, from which motion2 and motion3 follow: its one per-frame column is clipped).
  unsigned stage_inputs = 0;
  // Where options decide these (null: `temporal`, `stage_inputs`): psnr's enable_apsnr sums every frame's SSE, so
  // the feature then runs on every frame (libvmaf's psnr is a temporal extractor) and hands its SSE to its stage.
  bool (*temporal_with)(const Options&) = nullptr;
  unsigned (*stage_inputs_with)(const Options&) = nullptr;
  // A temporal feature's window with these options. Null: a feature that is not temporal needs none; a temporal one
  // without it cannot score part of a stream alone (the scorer says so instead of guessing).
  RangeWindow (*range_window)(const Options&) = nullptr;

  bool implemented() const { return make_cpu != nullptr; }
};

// Every libvmaf extractor, in libvmaf's registry order (a model feature resolves to the first that provides it).
const std::vector<FeatureDesc>& table();
// By extractor name ("adm"); null if unknown.
const FeatureDesc* find(std::string_view extractor);
// The extractor providing a feature name ("VMAF_integer_feature_adm2_score" -> adm); null if none.
const FeatureDesc* provider_of(std::string_view feature_name);
// libvmaf's alias of a feature name ("VMAF_integer_feature_adm2_score" -> "integer_adm2"); unknown names unchanged.
std::string alias_of(std::string_view feature_name);
// The implemented extractors' names, for messages ("adm, vif, motion, ...").
std::string implemented_names();

// libvmaf's option parser (opt.c): every name must be an option of `desc`, values are parsed as its type and
// range-checked; on failure Errc::unsupported (unknown option) or Errc::invalid_argument (bad value) naming both.
Status parse_options(const FeatureDesc& desc, const OptionList& given, Options* out);

// A configured feature: what a backend computes and where its values go.
struct Instance {
  const FeatureDesc* desc = nullptr;
  Options options;
  std::vector<std::string> outputs;        // per-frame columns with the option suffix
  std::vector<std::string> stage_outputs;  // ordered-stage columns with the option suffix
  bool temporal = false;      // runs on every frame (FeatureDesc::temporal, or temporal_with these options)
  unsigned stage_inputs = 0;  // FeatureDesc::stage_inputs, or stage_inputs_with these options
  // Values per frame: the output columns, then stage_inputs values for the ordered stage only.
  size_t value_count() const { return outputs.size() + stage_inputs; }
  // Reads the reference alone (its luma, and previous references): motion. Its values are then the same for every
  // distorted stream scored against that reference.
  bool reference_only() const { return desc && (desc->reads & ~(kReadsRefLuma | kReadsPrevRef)) == 0; }
  // A scorer with a shared reference (vmafx/scorer.h, SharedReference) takes this feature's values from it on the
  // frames marked Frame::reference_shared: backends do not run it there.
  bool from_shared = false;
};

// Configures an implemented feature for a geometry: options honoured, size checked, columns named.
Status make_instance(const FeatureDesc& desc, const Options& options, const VideoGeometry& geometry, Instance* out);

}  // namespace vmafx::features
