// SPDX-License-Identifier: LGPL-2.1-or-later
#include "scoring/backend_select.h"

#include "hip/backend.h"

namespace vmafx::scoring {

namespace {

hip::Vendor to_hip(Vendor v) {
  switch (v) {
    case Vendor::amd: return hip::Vendor::amd;
    case Vendor::nvidia: return hip::Vendor::nvidia;
    case Vendor::auto_select: break;
  }
  return hip::Vendor::auto_select;
}

}  // namespace

Status select_backend(const ScorerConfig& cfg, const features::Plan& plan, features::Backend::Done done,
                      std::unique_ptr<features::Backend>* out, Backend* chosen) {
  out->reset();
  if (cfg.backend != Backend::cpu) {
    hip::BackendOptions o;
    o.vendor = to_hip(cfg.vendor);
    o.device_id = cfg.device_id;
    o.tuning = cfg.tuning;
    Status s = hip::create_backend(plan, o, done, out);
    if (s) {
      *chosen = Backend::hip;
      return Status::ok();
    }
    if (cfg.backend == Backend::hip || s.code() != Errc::device_unavailable) return s;
    // auto: the CPU, said once in one line; what was tried goes to the detail.
    if (cfg.on_notice) cfg.on_notice(NoticeLevel::info, "no GPU, scoring on the CPU", s.message());
  }
  *chosen = Backend::cpu;
  return features::create_cpu_backend(plan, std::move(done), out);
}

Status create_uploader(const ScorerConfig& cfg, int device, std::shared_ptr<hip::FrameUploader>* out) {
  return hip::create_frame_uploader(to_hip(cfg.vendor), device, out);
}

}  // namespace vmafx::scoring
