// SPDX-License-Identifier: LGPL-2.1-or-later
// GL input in a build without the HIP engine (-Dhip=disabled): no interop; callers read textures through GL into
// system memory. Importer::create says why, after the same context checks as the HIP build.
#include <string>

#include "gl/test_hooks.h"
#include "vmafx/gl.h"

namespace vmafx::gl {

struct Texture::Impl {
  unsigned id = 0;
  uint32_t width = 0, height = 0;
  TexelFormat texel = TexelFormat::r8;
};

Texture::Texture(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Texture::~Texture() = default;
unsigned Texture::id() const { return impl_->id; }
uint32_t Texture::width() const { return impl_->width; }
uint32_t Texture::height() const { return impl_->height; }
TexelFormat Texture::texel() const { return impl_->texel; }

struct Importer::Impl {
  DeviceIdentity identity;
  ContextInfo context;
  std::string probe;
};

Importer::Importer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Importer::~Importer() = default;

bool interop_built() { return false; }
#if VMAFX_TEST_HOOKS
InteropCounters interop_counters() { return {}; }
#endif

Status Importer::create(Vendor, int, std::unique_ptr<Importer>* out, ContextInfo* info) {
  out->reset();
  ContextInfo ctx;
  Status st = query_current_context(&ctx);
  if (info) *info = ctx;
  if (!st.is_ok()) return st;
  VMAFX_TRY(check_context(ctx, nullptr, "this build has no HIP engine (-Dhip=disabled)"));
  return {Errc::device_unavailable, "this build has no HIP engine (-Dhip=disabled)"};
}

const DeviceIdentity& Importer::device() const { return impl_->identity; }
const ContextInfo& Importer::context() const { return impl_->context; }
const std::string& Importer::probe_report() const { return impl_->probe; }
ImporterStats Importer::stats() const { return {}; }
Status Importer::synchronize() { return Status::ok(); }
Status Importer::read_plane(const PictureView&, unsigned, size_t, uint32_t, uint8_t*, size_t) {
  return {Errc::device_unavailable, "this build has no HIP engine (-Dhip=disabled)"};
}

Status Importer::register_texture(unsigned, unsigned, uint32_t, uint32_t, TexelFormat, std::unique_ptr<Texture>*) {
  return {Errc::device_unavailable, "this build has no HIP engine (-Dhip=disabled)"};
}

Status Importer::import(const TextureFrame&, PictureView*, std::function<void()>*) {
  return {Errc::device_unavailable, "this build has no HIP engine (-Dhip=disabled)"};
}

}  // namespace vmafx::gl
