// SPDX-License-Identifier: LGPL-2.1-or-later
// Internal: which backend a scorer runs on, and the extractor of a feature on that backend. The CPU reference serves
// every feature; the HIP engine (engine/hip) serves the features it has kernels for and the CPU the rest.
#pragma once

#include <memory>
#include <string>

#include "src/extractor.h"
#include "vmafx/scorer.h"

namespace vmafx {

// Per-scorer state of a GPU backend, shared by every extractor one scorer creates on it (the HIP engine keeps the
// scorer's one frame pipeline here). The scorer calls end_frame() once per frame, after start() of every
// asynchronous extractor of that frame, and drain() before it waits for the frames in flight.
class BackendSession {
 public:
  virtual ~BackendSession() = default;
  virtual Status end_frame() { return Status::ok(); }
  virtual Status drain() { return Status::ok(); }
};

// Resolves Backend::auto_select (GPU when a device is usable, else CPU, said once through cfg.on_notice) and checks
// that an explicit Backend::hip has a usable device. On the GPU, *session is the scorer's backend state.
Status select_backend(const ScorerConfig& cfg, const VideoGeometry& g, Backend* chosen, std::string* description,
                      std::unique_ptr<BackendSession>* session);

// The extractor of a family: the backend's when it has one (session from select_backend), else the CPU's.
Status create_extractor(const ScorerConfig& cfg, Backend backend, BackendSession* session, const std::string& family,
                        const FeatureOptions& opts, const VideoGeometry& g, std::unique_ptr<Extractor>* out);

// Hooks the HIP engine fills in when it is built (engine/hip/hip_backend.cpp, which then defines
// VMAFX_HAVE_HIP_BACKEND); null otherwise.
struct HipBackendHooks {
  // Opens the device cfg.vendor / cfg.device_id for a scorer of geometry g: ok with its description
  // ("hip: nvidia NVIDIA H200 (sm_90)") and the scorer's session, or device_unavailable naming what was tried.
  Status (*probe)(const ScorerConfig& cfg, const VideoGeometry& g, std::string* description,
                  std::unique_ptr<BackendSession>* session) = nullptr;
  // Returns ok with *out == nullptr when the family has no GPU implementation (the CPU one is used).
  Status (*create)(BackendSession* session, const ScorerConfig& cfg, const std::string& family,
                   const FeatureOptions& opts, const VideoGeometry& g, std::unique_ptr<Extractor>* out) = nullptr;
};
const HipBackendHooks* hip_backend_hooks();

}  // namespace vmafx
