// SPDX-License-Identifier: LGPL-2.1-or-later
// Built instead of the HIP engine when it is disabled (-Dhip=disabled): the HIP backend is never available.
#include "hip/backend.h"

namespace vmafx::hip {

Status create_backend(const features::Plan&, const BackendOptions&, features::Backend::Done,
                      std::unique_ptr<features::Backend>* out) {
  out->reset();
  return {Errc::device_unavailable, "this build has no HIP engine (built with -Dhip=disabled)"};
}

Status create_frame_uploader(Vendor, int, std::shared_ptr<FrameUploader>* out) {
  out->reset();
  return {Errc::device_unavailable, "this build has no HIP engine (built with -Dhip=disabled)"};
}

}  // namespace vmafx::hip

#include "hip/dmabuf_import.h"

namespace vmafx::hip {

Status open_dmabuf_device(vmafx::Vendor, int, std::shared_ptr<DmaBufDevice>* out) {
  out->reset();
  return {Errc::device_unavailable, "this build has no HIP engine: dma-bufs cannot be imported on a GPU"};
}

}  // namespace vmafx::hip
