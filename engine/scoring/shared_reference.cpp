// SPDX-License-Identifier: LGPL-2.1-or-later
// SharedReference (vmafx/scorer.h). A reference picture travels: submit() copies it to the device (GPU backends,
// host pictures: one FrameUploader copy) and hands the frame to the backend that computes the plan's reference-only
// features; the backend's completion writes the values into the SharedFrame and wakes the scorers waiting for them.
// An entry stays until the frames after it that read it as a previous reference are computed; the SharedFrame
// itself lives while a scorer holds it, and its picture is given back when the last holder lets go.
#include "scoring/shared_reference.h"

#include <algorithm>
#include <cmath>

#include "cpu/simd/cpu_features.h"
#include "features/table.h"
#include "scoring/backend_select.h"
#include "scoring/plan.h"
#include "vmafx/model.h"

namespace vmafx {
namespace scoring {

SharedReferenceImpl::~SharedReferenceImpl() {
  if (backend_) backend_->drain();
  backend_.reset();
  std::deque<std::unique_ptr<Entry>> entries;
  {
    std::lock_guard<std::mutex> lk(state_->mu);
    entries.swap(entries_);
  }
  // Outside the lock: the last holder's release runs here.
}

Status SharedReferenceImpl::init(const ScorerConfig& cfg, const VideoGeometry& g) {
  cfg_ = cfg;
  cfg_.on_frame = nullptr;
  cfg_.shared_reference = nullptr;
  geometry_ = g;
  if (g.width == 0 || g.height == 0) return {Errc::invalid_argument, "video has zero width or height"};
  features::Plan all;
  std::vector<Model> models;
  VMAFX_TRY(plan_features(cfg_, g, false, &all, &models));
  plan_.geometry = g;
  plan_.dist_geometry = g;
  plan_.threads = std::min(cfg.threads, Scorer::kMaxThreads);
  luma_only_ = !(all.reads() & features::kReadsChroma);
  for (const features::Instance& inst : all.features)
    if (inst.reference_only()) {
      frames_back_ = std::max(frames_back_, inst.desc->references_back(inst.options));
      plan_.add(inst);
    }
  if (cfg_.tuning.cpu_mask >= 0) cpu::set_cpu_mask(unsigned(cfg_.tuning.cpu_mask));
  VMAFX_TRY(select_backend(
      cfg_, plan_, [this](features::Frame* f, Status s) { done(f, std::move(s)); }, &backend_, &kind_));
  capacity_ = std::max<size_t>(frames_back_ + 2, backend_->capacity());
  if (kind_ == Backend::hip) VMAFX_TRY(create_uploader(cfg_, backend_->device(), &uploader_));
  return Status::ok();
}

std::vector<std::string> SharedReferenceImpl::features() const {
  std::vector<std::string> names;
  for (const auto& inst : plan_.features) names.push_back(inst.desc->name);
  return names;
}

SharedReferenceCounters SharedReferenceImpl::counters() const {
  SharedReferenceCounters c;
  {
    std::lock_guard<std::mutex> lk(state_->mu);
    c.frames = submitted_;
    c.feature_frames = plan_.features.empty() ? 0 : computed_;
  }
  if (uploader_) {
    c.uploads = uploader_->uploads();
    c.uploaded_bytes = uploader_->uploaded_bytes();
  }
  return c;
}

int SharedReferenceImpl::find(const features::Instance& inst) const {
  for (size_t i = 0; i < plan_.features.size(); i++)
    if (plan_.features[i].desc == inst.desc && plan_.features[i].options == inst.options) return int(i);
  return -1;
}

Status SharedReferenceImpl::wait(const SharedFrame& f) const {
  std::unique_lock<std::mutex> lk(f.state->mu);
  f.state->cv.wait(lk, [&] { return f.computed; });
  return f.status;
}

Status SharedReferenceImpl::submit(const PictureView& ref, std::function<void()> release,
                                   std::shared_ptr<const SharedFrame>* out) {
  auto fail = [&](Status s) {
    if (release) release();
    return s.prepend("shared reference");
  };
  if (Status s = validate_view(ref); !s) return fail(s);
  if (ref.width != geometry_.width || ref.height != geometry_.height || ref.bit_depth != geometry_.bit_depth ||
      ref.chroma != geometry_.chroma)
    return fail({Errc::unsupported, "a " + std::to_string(ref.width) + "x" + std::to_string(ref.height) + " " +
                                        std::to_string(ref.bit_depth) + "-bit picture does not match the reference's " +
                                        std::to_string(geometry_.width) + "x" + std::to_string(geometry_.height) +
                                        " " + std::to_string(geometry_.bit_depth) + "-bit " +
                                        chroma_name(geometry_.chroma)});
  {
    std::unique_lock<std::mutex> lk(state_->mu);
    if (!error_.is_ok()) return fail(error_);
    // Room in the backend: at most capacity_ frames not yet computed.
    state_->cv.wait(lk, [&] { return submitted_ - computed_ < capacity_ || !error_.is_ok(); });
    if (!error_.is_ok()) return fail(error_);
  }
  auto sf = std::make_shared<SharedFrame>();
  sf->owner = this;
  sf->state = state_;
  sf->host = ref;
  if (ref.memory == MemoryKind::device) {
    sf->device = ref;
  } else if (uploader_) {
    if (Status s = uploader_->upload(ref, luma_only_, &sf->device, &sf->slot); !s) return fail(s);
    sf->uploader = uploader_;
    sf->luma_only = luma_only_;
  }
  sf->release = std::move(release);  // from here on the frame gives the picture back

  auto e = std::make_unique<Entry>();
  Entry* entry = e.get();
  features::Frame& f = entry->frame;
  {
    std::lock_guard<std::mutex> lk(state_->mu);
    sf->index = submitted_++;
    f.index = sf->index;
    f.scored = true;
    f.ref = backend_->accepts(MemoryKind::device) && sf->device.memory == MemoryKind::device ? sf->device : sf->host;
    f.dist = f.ref;  // the plan's features read the reference alone
    f.values.assign(plan_.value_count, NAN);
    const size_t n = entries_.size();
    if (frames_back_ >= 1 && n >= 1 && entries_[n - 1]->frame.index + 1 == f.index) {
      f.prev_ref = &entries_[n - 1]->frame.ref;
      f.prev_dist = f.prev_ref;
    }
    if (frames_back_ >= 2 && n >= 2 && entries_[n - 2]->frame.index + 2 == f.index)
      f.prev_prev_ref = &entries_[n - 2]->frame.ref;
    entry->shared = sf;
    entries_.push_back(std::move(e));
  }
  *out = sf;
  if (plan_.features.empty()) {
    done(&f, Status::ok());
    return Status::ok();
  }
  if (Status s = backend_->submit(&f); !s) {
    done(&f, s);
    return s.prepend("shared reference: frame " + std::to_string(f.index));
  }
  return Status::ok();
}

void SharedReferenceImpl::done(features::Frame* f, Status s) {
  std::vector<std::unique_ptr<Entry>> retired;  // destroyed outside the lock (a picture's release may run)
  {
    std::lock_guard<std::mutex> lk(state_->mu);
    Entry* e = nullptr;
    for (auto& p : entries_)
      if (&p->frame == f) e = p.get();
    if (!e) return;
    e->computed = true;
    computed_++;
    SharedFrame& sf = *e->shared;
    sf.values = f->values;
    sf.status = s ? Status::ok() : s.prepend("shared reference, frame " + std::to_string(f->index));
    sf.computed = true;
    if (!s && error_.is_ok()) error_ = sf.status;
    // Retire what no later frame reads: a computed entry whose frames_back_ successors are computed.
    while (!entries_.empty() && entries_.front()->computed) {
      bool readers_done = true;
      for (size_t k = 1; k <= frames_back_; k++)
        readers_done = readers_done && entries_.size() > k && entries_[k]->computed;
      if (!readers_done) break;
      retired.push_back(std::move(entries_.front()));
      entries_.pop_front();
    }
  }
  state_->cv.notify_all();
}

}  // namespace scoring

Status SharedReference::create(const ScorerConfig& cfg, const VideoGeometry& reference,
                               std::shared_ptr<SharedReference>* out) {
  auto s = std::make_shared<scoring::SharedReferenceImpl>();
  VMAFX_TRY(s->init(cfg, reference));
  *out = std::move(s);
  return Status::ok();
}

}  // namespace vmafx
