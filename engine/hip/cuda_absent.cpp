// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA memory input in a build without the HIP engine (-Dhip=disabled): no device; callers copy CUDA frames to the
// host (GStreamer's own download) or refuse them.
#include "vmafx/cuda.h"

namespace vmafx::cuda {

namespace {
Status absent() {
  return {Errc::device_unavailable, "this build has no HIP engine (built with -Dhip=disabled): CUDA memory cannot be "
                                    "read on the GPU"};
}
}  // namespace

bool cuda_import_built() { return false; }
Status CudaImporter::create(const CudaImporterConfig&, std::unique_ptr<CudaImporter>* out) {
  out->reset();
  return absent();
}
Status engine_context(int, EngineContext* out) {
  *out = {};
  return absent();
}
Status adopt_context(void*, int, std::shared_ptr<void>, EngineContext* out) {
  *out = {};
  return absent();
}
int engine_device_index(int) { return -1; }
int cuda_device_ordinal(int index) { return index; }

}  // namespace vmafx::cuda
