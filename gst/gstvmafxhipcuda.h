// SPDX-License-Identifier: LGPL-2.1-or-later
// memory:CUDAMemory input of vmafxhip (NVDEC decoders such as nvh264dec / nvh265dec, cudaupload, cudaconvert): caps,
// CUDA context sharing, and the per-session input (engine: vmafx/cuda.h).
//
// Linking. GStreamer's CUDA library (libgstcuda-1.0.so.0, gst-plugins-bad) is opened at run time, like the engine
// opens libcuda, so the plugin loads and works on machines without it; there the element does not offer
// memory:CUDAMemory at all (and a build without the HIP engine never does). A CUDA buffer reaches the element only
// from a producer that loaded that library itself.
//
// Caps. video/x-raw(memory:CUDAMemory) in the layouts nvcodec writes and the engine reads in place: NV12, P010_10LE,
// P016_LE (NVDEC), I420, YV12, NV21, Y42B, Y444, I420_10LE, I422_10LE, I422_12LE (cudaconvert, cudaupload).
// Semi-planar chroma is read interleaved (sample step 2), as from system memory: nothing is planarised.
//
// Context sharing ("gst.cuda.context", GstCudaContext). The decoder and the scorer must run on one CUDA context for
// the scorer to read the decoder's memory in place:
//   - a CONTEXT query for gst.cuda.context reaching the element (a decoder asks downstream first when it opens) is
//     answered with the element's context: one it was given, one it found, or else a GstCudaContext wrapping the
//     context the engine's device runs on (its primary context), made on the spot;
//   - a context set on the element (set_context: the application's, or one found upstream when CUDA caps arrive)
//     is adopted: the engine's device runs on that context (vmafx::cuda::adopt_context), when the engine has no
//     device of that GPU alive on another context yet;
//   - when CUDA caps arrive and the element has no context, it asks upstream (the decoder answers with its own),
//     then the application (NEED_CONTEXT), and adopts what it gets; else it makes its own and announces it
//     (HAVE_CONTEXT).
// Frames of any other context or GPU are copied device to device into the scorer's (allow-copy, counted in
// frames-copied) or refused naming both contexts.
//
// Synchronisation. GStreamer 1.22's CUDA producers synchronise their stream before they push a buffer. From 1.24 a
// GstCudaMemory may carry its producer's stream with writes still queued (the NEED_SYNC flag): the library stream
// then waits for that stream on the device (an event recorded on it). Each buffer is held until an event recorded on
// the library stream after the scorer's last read has passed.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "gstvmafxhipimport.h"
#include "gstvmafxhipinput.h"
#include "vmafx/cuda.h"
#include "vmafx/scorer.h"

// Formats taken in memory:CUDAMemory.
#define GST_VMAFXHIP_CUDA_FORMATS \
  "{ NV12, P010_10LE, P016_LE, I420, YV12, NV21, Y42B, Y444, I420_10LE, I422_10LE, I422_12LE }"

namespace vmafx::gst {

// The pad templates' CUDA caps (video/x-raw(memory:CUDAMemory), format=...), or "" when this build has no HIP engine
// or libgstcuda-1.0.so.0 does not open (in a build with test hooks, VMAFX_GST_CUDA_LIBRARY names another library to
// open instead: tests). The input kind (cuda_input_kind, gstvmafxhipinput.h) offers them.
std::string cuda_template_caps();
// Whether GStreamer's CUDA library opened (and why not).
bool gst_cuda_available(std::string* why = nullptr);
// True for caps with the memory:CUDAMemory feature.
bool is_cuda_caps(const GstCaps* caps);

// The element's settings the context sharing needs.
struct CudaSettings {
  Backend backend = Backend::auto_select;
  Vendor vendor = Vendor::auto_select;
  int device_id = -1;
};

// ---- Context sharing (state kept on the element as qdata) ---------------------------------------------------------

// GstElement::set_context: keeps (and adopts) a gst.cuda.context; call before chaining up.
void cuda_set_context(GstElement* element, GstContext* context, const CudaSettings& settings);
// A CONTEXT query of type gst.cuda.context on any pad: answered (true) with the element's context, made from the
// engine's when it has none and the settings allow an NVIDIA GPU. Other queries: false.
bool cuda_pad_query(GstElement* element, GstPad* pad, GstQuery* query, const CudaSettings& settings);
// An event on sink pad `pad`, before the element handles it: CUDA caps make the element find a context (upstream,
// then the application) or make one. Never consumes the event.
void cuda_sink_event(GstElement* element, GstPad* pad, GstEvent* event, const CudaSettings& settings);
// The scorer's device when the element holds a CUDA context: vendor auto becomes nvidia and device-id -1 the
// context's device, so the scorer runs where the CUDA frames are. Otherwise nothing changes.
void cuda_scorer_device(GstElement* element, Vendor* vendor, int* device_id);
// How the element got its CUDA context ("answered nvh264dec0's context query with ..."), empty without one.
std::string cuda_context_description(GstElement* element);

// ---- The input ----------------------------------------------------------------------------------------------------

struct CudaInputStats {
  uint64_t frames = 0;          // CUDA frames imported (both pads)
  uint64_t in_place = 0;        // read in place on the device
  uint64_t device_copies = 0;   // copied device to device (another context or GPU)
  uint64_t host_copies = 0;     // downloaded into system memory (the scorer reads host memory)
  uint64_t stream_waits = 0;    // producer streams waited for on the device
  uint64_t host_waits = 0;      // producer streams synchronised on the host (before a device copy)
  uint64_t pending_releases = 0;
};

// One per scoring session, for both sink pads: made by cuda_input_kind()'s create at the first CUDA frame (the kind's
// shared slot), each pad's Input forwarding to it and counting its own frames.
class CudaInput {
 public:
  struct Config {
    Backend scorer = Backend::cpu;  // what the session's scorer runs on
    Vendor vendor = Vendor::auto_select;  // the scorer's vendor (after cuda_scorer_device)
    int device_id = -1;                   // the scorer's device (after cuda_scorer_device)
    bool allow_copy = true;
    // Non-empty: a feature of the scorer reads host memory, so frames are downloaded for this reason.
    std::string host_reason;
    // Posted once: the copy fallback and its reason (`warning`: the GPU path was wanted), the path taken.
    std::function<void(const std::string& text, bool warning)> on_notice;
  };

  static Status create(const Config& config, std::unique_ptr<CudaInput>* out);
  ~CudaInput();
  CudaInput(const CudaInput&) = delete;
  CudaInput& operator=(const CudaInput&) = delete;

  // Imports a buffer whose pad has CUDA caps. In place or device copy: a device picture holding the buffer until an
  // event after the scorer's last read has passed. Download: a host picture of GStreamer's own download.
  Status import(GstBuffer* buffer, const GstVideoInfo& info, ImportedPicture* out);

  uint64_t frames_copied() const;  // device copies + host copies
  CudaInputStats stats() const;
  // "in place on nvidia device 0 'NVIDIA H200' on CUDA context 0x... (its primary context)", or why frames are copied.
  std::string description() const;
  // cuda-stats: path, frames, in-place, device-copies, host-copies, stream-waits, host-waits, pending-releases.
  GstStructure* stats_structure() const;
  // After the scorer has released every picture: waits for the releases behind the GPU.
  Status close();

 private:
  CudaInput() = default;
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace vmafx::gst
