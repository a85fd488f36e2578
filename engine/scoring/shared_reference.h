// SPDX-License-Identifier: LGPL-2.1-or-later
// The shared reference of a ladder (vmafx/scorer.h, SharedReference): the reference-only features of the scorers'
// plan on a backend of their own, each picture's device copy (FrameUploader), and the frames handed to the scorers.
// A scorer made with one reads it through the functions below.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "features/backend.h"
#include "hip/backend.h"
#include "vmafx/scorer.h"

namespace vmafx {

namespace scoring {
// What a shared reference's frames and scorers wait on; it outlives the shared reference while frames do.
struct SharedState {
  std::mutex mu;
  std::condition_variable cv;
};
class SharedReferenceImpl;
}  // namespace scoring

// One reference picture of a shared reference, as its scorers read it.
struct SharedFrame {
  uint64_t index = 0;
  PictureView host;    // the caller's picture (host memory; a device picture when the caller gave one)
  PictureView device;  // the device copy (memory == device) or, without one, the caller's device picture; else empty
  bool luma_only = false;  // the device copy holds the luma alone (its chroma planes lie over the luma rows)
  const scoring::SharedReferenceImpl* owner = nullptr;
  // Written once, under state->mu, when the reference-only features of the frame are done.
  std::vector<double> values;  // the owner's plan order and offsets
  bool computed = false;
  Status status;
  std::shared_ptr<scoring::SharedState> state;
  // What is given back when the last reader is gone.
  std::shared_ptr<hip::FrameUploader> uploader;
  unsigned slot = 0;
  std::function<void()> release;

  SharedFrame() = default;
  SharedFrame(const SharedFrame&) = delete;
  SharedFrame& operator=(const SharedFrame&) = delete;
  ~SharedFrame() {
    if (uploader) uploader->give_back(slot);
    if (release) release();
  }
};

namespace scoring {

class SharedReferenceImpl final : public SharedReference {
 public:
  ~SharedReferenceImpl() override;
  Status init(const ScorerConfig& cfg, const VideoGeometry& g);

  Status submit(const PictureView& reference, std::function<void()> release,
                std::shared_ptr<const SharedFrame>* out) override;
  Backend backend() const override { return kind_; }
  int device() const override { return backend_ ? backend_->device() : -1; }
  std::string backend_description() const override { return backend_ ? backend_->description() : "cpu"; }
  std::vector<std::string> features() const override;
  SharedReferenceCounters counters() const override;

  // For the scorers made with it.
  const features::Plan& plan() const { return plan_; }
  const VideoGeometry& geometry() const { return geometry_; }
  // The plan's instance computing what `inst` computes (the same extractor and options), or -1.
  int find(const features::Instance& inst) const;
  // Waits until `f` is computed; its status.
  Status wait(const SharedFrame& f) const;

 private:
  struct Entry {
    features::Frame frame;
    std::shared_ptr<SharedFrame> shared;
    bool computed = false;
  };
  void done(features::Frame* f, Status s);

  ScorerConfig cfg_;
  VideoGeometry geometry_;
  features::Plan plan_;
  unsigned frames_back_ = 0;
  Backend kind_ = Backend::cpu;
  std::unique_ptr<features::Backend> backend_;
  std::shared_ptr<hip::FrameUploader> uploader_;
  bool luma_only_ = false;  // no feature of the configuration reads chroma: the device copies hold the luma alone
  size_t capacity_ = 2;

  std::shared_ptr<SharedState> state_ = std::make_shared<SharedState>();
  std::deque<std::unique_ptr<Entry>> entries_;  // guarded by state_->mu: submitted, not yet retired, in order
  uint64_t submitted_ = 0;
  uint64_t computed_ = 0;
  Status error_;
};

}  // namespace scoring
}  // namespace vmafx
