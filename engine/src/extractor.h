// SPDX-License-Identifier: LGPL-2.1-or-later
// Internal: the feature registry's unit. An Extractor is one configured libvmaf feature extractor ("adm" with its
// options, "vif", "motion", "psnr", "float_ssim", "float_ms_ssim") that writes a fixed list of score columns.
// Work on a frame goes through an ExtractorWorker, which owns the scratch memory of one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx {

struct FrameInput {
  uint64_t index = 0;
  const PictureView* ref = nullptr;
  const PictureView* dist = nullptr;
  const PictureView* prev_ref = nullptr;  // reference of frame index - 1 (nullptr for frame 0)
};

class ExtractorWorker {
 public:
  virtual ~ExtractorWorker() = default;
  // Writes Extractor::outputs().size() values to `out`.
  virtual Status run(const FrameInput& in, double* out) = 0;
};

class Extractor {
 public:
  virtual ~Extractor() = default;
  // libvmaf's extractor name ("adm", "vif", "motion", "psnr", "float_ssim", "float_ms_ssim").
  virtual const std::string& family() const = 0;
  // Score columns written per frame, libvmaf's aliased names with option suffixes ("integer_adm2_egl_1").
  virtual const std::vector<std::string>& outputs() const = 0;
  // Runs on every frame, also those --subsample skips (motion needs consecutive frames).
  virtual bool every_frame() const { return false; }
  virtual bool needs_prev_ref() const { return false; }
  virtual Status make_worker(std::unique_ptr<ExtractorWorker>* out) const = 0;

  // Asynchronous extractors (GPU) take frames in submission order on the caller's thread through start() and finish
  // them later, on any thread, by calling `done` exactly once. Synchronous ones run on worker threads via workers.
  virtual bool is_async() const { return false; }
  virtual Status start(const FrameInput& in, double* out, std::function<void(Status)> done) {
    (void)in;
    (void)out;
    (void)done;
    return {Errc::internal, "extractor is not asynchronous"};
  }
  // Waits until every started frame has called `done`.
  virtual Status drain() { return Status::ok(); }
  // Memory this extractor reads. A CPU extractor refuses device pictures.
  virtual bool reads(MemoryKind m) const { return m == MemoryKind::host; }
};

using FeatureOptions = std::map<std::string, double>;

// Score columns an extractor of this family and options writes.
std::vector<std::string> extractor_outputs(const std::string& family, const FeatureOptions& opts, Chroma chroma);

// Creates the CPU extractor of a family with the given options for pictures of this geometry; checks the size.
Status create_cpu_extractor(const std::string& family, const FeatureOptions& opts, uint32_t width, uint32_t height,
                            unsigned bit_depth, Chroma chroma, std::unique_ptr<Extractor>* out);

// libvmaf's alias of a feature name ("VMAF_integer_feature_adm2_score" -> "integer_adm2"); unknown names unchanged.
std::string feature_alias(const std::string& libvmaf_name);
// Which extractor provides a libvmaf feature name ("VMAF_integer_feature_adm2_score" -> "adm"); empty if unknown.
std::string feature_family(const std::string& libvmaf_name);
// The libvmaf name suffix of non-default options ("_egl_1" for adm_enhn_gain_limit=1), as libvmaf's feature_name.c.
std::string feature_options_suffix(const std::string& family, const FeatureOptions& opts);

}  // namespace vmafx
