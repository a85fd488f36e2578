// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames in CUDA device memory (GStreamer's memory:CUDAMemory from NVDEC decoders and CUDA filters), read in place
// by the GPU engine (no GStreamer, no CUDA headers here: handles travel as void* and 64-bit device pointers).
//
// The path of a frame:
//   1. The caller describes it (CudaFrame): each plane's device pointer, stride and how many bytes of its allocation
//      follow it, the CUcontext the producer allocated it in, and, when the producer has not finished writing it, the
//      CUstream its writes are queued on (GStreamer 1.24+: a GstCudaMemory with a stream and the NEED_SYNC flag;
//      GStreamer 1.22's producers synchronise their stream before they push a buffer).
//   2. plan_cuda_picture() checks it: planes present for the format, strides that hold a row, every plane inside its
//      allocation. Nothing is read yet.
//   3. CudaImporter::import() reads it where it is when the memory belongs to the context the scorer's device runs on
//      (the decoder and the scorer share one context: the element answers the decoder's context query with a context
//      wrapping the engine's, or the engine adopts the decoder's, adopt_context()). The producer's stream, if any, is
//      waited for on the device: an event recorded on it, the library stream waiting for that event. Memory of another
//      context or GPU is copied device to device into a frame of the engine's (cuMemcpyPeerAsync, on the library
//      stream) when allow_copy, else refused (Errc::device_unavailable) naming both contexts.
//   4. CudaPicture::release() gives the memory back behind an event recorded on the library stream after the last
//      read: a thread waits for that event and then runs the caller's release (the GstBuffer unref), so the producer's
//      pool gets its buffer back as soon as the GPU is done, without a device-wide wait.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "vmafx/devices.h"
#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::cuda {

// One plane of a frame in CUDA memory.
struct CudaPlane {
  uint64_t data = 0;     // CUdeviceptr of the plane's first sample
  ptrdiff_t stride = 0;  // bytes from one row to the next
  size_t available = 0;  // bytes from `data` to the end of the memory that holds the plane
};

struct CudaFrame {
  FormatInfo format;
  uint32_t width = 0, height = 0;  // luma size
  // The storage planes in the format's order (NV12 / P010: Y, interleaved CbCr; I420: Y, Cb, Cr; YV12: Y, Cr, Cb).
  CudaPlane planes[3];
  unsigned n_planes = 0;
  void* context = nullptr;  // the CUcontext the memory was allocated in (GstCudaMemory's GstCudaContext handle)
  int device = -1;          // that context's CUDA device ordinal
  // A CUstream of `context` on which writes to the memory may still be queued, or null when the memory is complete.
  void* stream = nullptr;
};

// The checks of a frame (no device needed): plane count for the format, strides holding a row, each plane's extent
// (stride x (rows - 1) + row bytes) inside its allocation, pointers not null. `*out` is a device picture
// (MemoryKind::device, device = frame.device) whose planes are the frame's own pointers; `extent[i]` (may be null)
// receives each storage plane's byte extent. Errc::invalid_argument / out_of_range naming the plane.
Status plan_cuda_picture(const CudaFrame& frame, PictureView* out, size_t extent[3] = nullptr);

// What the importer does with memory of one context when the scorer's device runs on another.
enum class CudaPath : uint8_t { in_place, copy, refuse };
struct CudaPathDecision {
  CudaPath path = CudaPath::refuse;
  std::string reason;  // why (copy, refuse): names both contexts and devices
};
// The rule, without a device: the same context is read in place; another context (same GPU or another) is copied
// when allow_copy, else refused. `ours` / `theirs` describe the contexts for the message ("CUDA context 0x55d0... of
// device 0").
CudaPathDecision decide_cuda_path(const void* frame_context, int frame_device, const void* our_context,
                                  int our_device, bool allow_copy);
// "CUDA context 0x7f12a4000b20 of device 0"
std::string describe_cuda_context(const void* context, int device);

struct CudaImporterConfig {
  int device_id = -1;       // the scorer's NVIDIA device (-1: the first)
  bool allow_copy = true;   // memory of another context / GPU: copied (true) or refused (false)
  // Said once per cause: why frames are copied.
  std::function<void(const std::string&)> on_warning;
};

struct CudaImportStats {
  uint64_t frames = 0;            // frames imported
  uint64_t in_place = 0;          // of which read where they are (the scorer's context)
  uint64_t copied = 0;            // of which copied device to device (another context or GPU)
  uint64_t stream_waits = 0;      // producer streams waited for on the device (event + stream wait)
  uint64_t host_waits = 0;        // producer streams of another context synchronised on the host before a copy
  uint64_t pending_releases = 0;  // releases still behind the GPU
  uint64_t copy_frames = 0;       // device frames of the copy pool (steady once the scorer's window is full)
};

// A frame the engine reads, holding what keeps it readable.
class CudaPicture {
 public:
  virtual ~CudaPicture() = default;  // an unreleased picture releases itself
  virtual const PictureView& view() const = 0;
  virtual bool copied() const = 0;  // read from a device copy (another context / GPU)
  // Runs `then` (the caller's own release, e.g. the GstBuffer unref) once the library stream has passed an event
  // recorded now, from the importer's release thread (or at close()). Runs once; later calls do nothing.
  virtual void release(std::function<void()> then) = 0;
};

class CudaImporter {
 public:
  virtual ~CudaImporter() = default;
  // The engine's NVIDIA device `config.device_id`, the same object the scorer uses (one per device and process).
  // Errc::device_unavailable when there is none (also in a build without the HIP engine).
  static Status create(const CudaImporterConfig& config, std::unique_ptr<CudaImporter>* out);

  // Checks (plan_cuda_picture), waits for the producer's stream, reads in place or copies (decide_cuda_path); memory
  // of another context with allow_copy false is Errc::device_unavailable naming both contexts.
  virtual Status import(const CudaFrame& frame, std::unique_ptr<CudaPicture>* out) = 0;
  virtual CudaImportStats stats() const = 0;
  // "in place on nvidia device 0 'NVIDIA H200' (CUDA context 0x...)"; after a copy also why.
  virtual std::string description() const = 0;
  virtual const void* context() const = 0;  // the CUcontext the engine's device runs on
  virtual int device() const = 0;
  // Waits for every release still behind the GPU and runs it. Teardown (the scorer has released every picture).
  virtual Status close() = 0;
};

// ---- Context sharing --------------------------------------------------------------------------------------------

// What keeps an engine device (and the CUDA context it runs on) alive, and what that context is.
struct EngineContext {
  void* context = nullptr;  // CUcontext
  int device = -1;          // CUDA ordinal (what GStreamer's CUDA context names)
  int index = -1;           // the engine's device index (ScorerConfig::device_id's; differs with HIP_VISIBLE_DEVICES)
  std::string name;         // "NVIDIA H200"
  bool adopted = false;     // the engine runs on a context it was given (adopt_context), not the primary one
  std::shared_ptr<void> hold;
};

// The context the engine's NVIDIA device `device_id` (an engine index; -1: the first visible) runs on, opening the
// device (its primary context, or the context adopted for it): the context the element wraps in a GstCudaContext for
// decoders.
Status engine_context(int device_id, EngineContext* out);

// Makes the engine's NVIDIA device of CUDA device `device` (a CUDA ordinal, as a GstCudaContext names it) run on
// `context` (a decoder's, created by GStreamer with cuCtxCreate), while `owner` keeps that context alive (released
// after the engine's streams and events on it). ok when the engine had no live device for that GPU (it then runs on
// `context` until the hold goes) or already runs on `context`; Errc::busy naming both contexts when it runs on
// another one (the caller then copies); Errc::invalid_argument when `context` is not a context of `device`;
// Errc::device_unavailable when the engine does not see that GPU (HIP_VISIBLE_DEVICES leaves it out).
Status adopt_context(void* context, int device, std::shared_ptr<void> owner, EngineContext* out);

// Device numbers: CUDA's ordinals (GStreamer's CUDA contexts and memory, CUDA_VISIBLE_DEVICES applied) and the
// engine's indices (device-id, ScorerConfig::device_id: HIP_VISIBLE_DEVICES applied on top) are the same unless
// HIP_VISIBLE_DEVICES is set. The engine index of CUDA device `cuda_ordinal`, -1 when the engine does not see it or
// has no NVIDIA runtime; the CUDA ordinal of engine device `index` (-1 for -1; `index` itself without an NVIDIA
// runtime or past the visible devices). The first call loads the NVIDIA runtime.
int engine_device_index(int cuda_ordinal);
int cuda_device_ordinal(int index);

// True when this build has the HIP engine (else every call above is Errc::device_unavailable).
bool cuda_import_built();

}  // namespace vmafx::cuda
