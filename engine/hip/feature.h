// SPDX-License-Identifier: LGPL-2.1-or-later
// The contract between the HIP frame pipeline (engine/hip/pipeline.*) and each GPU feature (VIF, ADM, motion, PSNR).
//
// A frame's planes are on the device once (uploaded once through the pinned ring, or imported: dma-buf, GL), and
// every feature of that frame reads the same planes: one upload per plane per frame, shared by all kernels. Per
// frame, in this order: the uploads (host frames: on the device's upload stream, which the library stream waits for;
// device-resident frames need none), then on the device's library stream, for each feature, its accumulator clears,
// its kernels and an asynchronous read-back of its integer sums into pinned host memory of the frame's slot; then one
// event for the slot. (With lanes, "the library stream" here is the frame's lane, ordered behind the library stream:
// pipeline.h; a feature queues on the calling thread's current stream and never names a stream itself.) When the event has completed, finish()
// turns the read-back integers into scores on the host with the CPU reference's own finishing functions, so GPU
// scores equal the CPU's bit for bit.
//
// Clears come after the frame's upload, never ahead of it: on ROCm (a gfx1036, measured) a clear queued ahead of the
// upload was lost in the first frame of a context that needed larger planes than the contexts before it, and the
// kernels added onto a recycled allocation's old sums.
//
// The pipeline checks a frame's planes once (HipPipeline::submit, check_device_plane); enqueue() asserts what it
// relies on and does not check again.
//
// Buffers are sized at create() for `slots` frames in flight: no allocation, free or device-wide synchronisation per
// frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "hip/device.h"
#include "hip/plane.h"
#include "vmafx/status.h"

namespace vmafx::hip {

// One frame's planes in device memory (any pitch; 8-bit bytes or 16-bit words with a shift; chroma may be
// interleaved, step 2). Chroma planes are present only when a feature of the pipeline reads them (PSNR).
struct FramePlanes {
  DevicePlane ref[3];
  DevicePlane dist[3];
  unsigned planes = 1;                       // 1 (luma only) or 3
  const DevicePlane* prev_ref = nullptr;     // the previous frame's reference luma (motion); null on the first frame
  // The reference luma two frames back (motion's motion_five_frame_window); null on the first two frames and where
  // the pipeline does not keep it (MotionGpu then refuses a five-frame window instead of scoring 0).
  const DevicePlane* prev_prev_ref = nullptr;
  uint32_t width = 0, height = 0;            // luma size
  unsigned bpc = 8;
};

class GpuFeature {
 public:
  virtual ~GpuFeature() = default;
  virtual const char* name() const = 0;
  // Number of values finish() writes: the CPU implementation's (features::Instance::value_count()), same order.
  virtual size_t output_count() const = 0;
  // Queues, on the library stream, for the frame in `slot` (0 .. slots-1): clears of this slot's accumulators, the
  // kernels, and the read-back of the sums into this slot's pinned memory. Never waits on the host.
  virtual Status enqueue(const FramePlanes& frame, unsigned slot) = 0;
  // Called once the work queued for `slot` has finished (the pipeline's event). Writes output_count() scores.
  virtual Status finish(unsigned slot, double* out) = 0;
  // True when a frame's scores depend on that frame's planes only (no state carried from one enqueue() to the next):
  // the pipeline may then run one instance per lane, each seeing every K-th frame (pipeline.h, "Lanes"). A feature
  // that keeps state (a blurred previous frame, a count of frames) says false and runs on one serial lane in order.
  virtual bool frame_independent() const { return false; }
};

}  // namespace vmafx::hip
