// SPDX-License-Identifier: LGPL-2.1-or-later
// The HIP backend (features/backend.h's Backend on a GPU): the plan's features that have a GPU implementation
// (gpu_features.h) run as kernels in one HipPipeline per scorer — each plane a frame needs uploaded once, or read in
// place for device pictures — and the others on the CPU reference beside it; a frame is done when both parts are.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "features/backend.h"
#include "hip/api.h"
#include "vmafx/tuning.h"

namespace vmafx::hip {

struct BackendOptions {
  Vendor vendor = Vendor::auto_select;
  // An index into the visible devices; -1: automatic placement (placement.h: the device with the fewest sessions of
  // this process, then the most free memory, then the lowest index).
  int device_id = -1;
  EngineTuning tuning;  // its GPU settings: the pipeline's upload, lanes, slots, copies; cambi's kernel choice
};

// device_unavailable (naming every runtime and library tried) when no device is usable.
Status create_backend(const features::Plan& plan, const BackendOptions& options, features::Backend::Done done,
                      std::unique_ptr<features::Backend>* out);

// Device copies of host pictures that several scorers read (a shared reference): each upload fills a free frame of
// a pool that grows on demand (beyond kMaxFrames only after waiting 2 s for a give_back()), with one copy from pinned
// staging queued on the device's library stream, so that every kernel queued after it, on any lane, reads the copy.
class FrameUploader {
 public:
  static constexpr unsigned kMaxFrames = 64;
  virtual ~FrameUploader() = default;
  // Copies `host` (a host picture) into a free device frame; *device gets its view (the same layout, device memory),
  // *slot the frame to give back once no kernel reads it any more (every reader's work has finished). `luma_only`:
  // for readers that never read chroma, only the luma is copied, and the view's chroma planes lie over the luma rows
  // (device memory of their size, not the picture's chroma).
  virtual Status upload(const PictureView& host, bool luma_only, PictureView* device, unsigned* slot) = 0;
  virtual void give_back(unsigned slot) = 0;
  virtual uint64_t uploads() const = 0;
  virtual uint64_t uploaded_bytes() const = 0;
};

// An uploader on `vendor`'s device `index` (as Scorer::device() names it).
Status create_frame_uploader(Vendor vendor, int index, std::shared_ptr<FrameUploader>* out);

}  // namespace vmafx::hip
