// SPDX-License-Identifier: LGPL-2.1-or-later
#include "src/scorer_backends.h"

namespace vmafx {

#ifndef VMAFX_HAVE_HIP_BACKEND  // defined when engine/hip provides the GPU extractors
const HipBackendHooks* hip_backend_hooks() { return nullptr; }
#endif

Status select_backend(const ScorerConfig& cfg, const VideoGeometry& g, Backend* chosen, std::string* description,
                      std::unique_ptr<BackendSession>* session) {
  session->reset();
  if (cfg.backend == Backend::cpu) {
    *chosen = Backend::cpu;
    *description = "cpu";
    return Status::ok();
  }
  const HipBackendHooks* hooks = hip_backend_hooks();
  Status s = hooks && hooks->probe ? hooks->probe(cfg, g, description, session)
                                   : Status(Errc::device_unavailable, "this build has no HIP engine");
  if (s.is_ok()) {
    *chosen = Backend::hip;
    return Status::ok();
  }
  session->reset();
  if (cfg.backend == Backend::hip) return s;
  // auto: fall back to the CPU and say so once.
  if (cfg.on_notice) cfg.on_notice("no usable GPU, scoring on the CPU (" + s.message() + ")");
  *chosen = Backend::cpu;
  *description = "cpu";
  return Status::ok();
}

Status create_extractor(const ScorerConfig& cfg, Backend backend, BackendSession* session, const std::string& family,
                        const FeatureOptions& opts, const VideoGeometry& g, std::unique_ptr<Extractor>* out) {
  if (backend == Backend::hip) {
    const HipBackendHooks* hooks = hip_backend_hooks();
    if (hooks && hooks->create) {
      VMAFX_TRY(hooks->create(session, cfg, family, opts, g, out));
      if (*out) return Status::ok();
    }
  }
  return create_cpu_extractor(family, opts, g.width, g.height, g.bit_depth, g.chroma, out);
}

}  // namespace vmafx
