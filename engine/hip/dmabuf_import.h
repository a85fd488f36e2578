// SPDX-License-Identifier: LGPL-2.1-or-later
// dma-bufs imported on the GPU as external memory, each with its own size and mapped whole, read in place and released
// behind an event on the library stream: the HIP side of the device importer in vmafx/dmabuf.h, which does the rest
// (fd duplication, checks, fences, cache, fallback, pictures).
//
// import(): the dma-buf (the importer's duplicate of the caller's fd, its size from lseek(SEEK_END)) is imported with
// the runtime's external-memory call as an opaque fd of that size and mapped whole; the frame's planes are that
// mapping plus their offsets, read in place at their pitches. The runtime gets its own duplicate of the fd: NVIDIA's
// driver takes ownership of an fd it imports (cuImportExternalMemory's documentation), AMD's runtime does not, so
// on AMD that duplicate is closed after the import is destroyed. A refusal (NVIDIA: CUDA_ERROR_UNKNOWN for dma-bufs,
// measured) is Errc::unsupported, not a device failure.
//
// defer(): Device::defer_release — an event recorded now on THE library stream; the release runs in a later
// collect() once every read queued before it has finished. Freeing the mapping therefore never waits for the GPU on
// the import path (hipFree of a mapping synchronises the device on AMD: it only runs once the stream has passed).
// wait_oldest(): Device::wait_deferred — the collector thread sleeps on the oldest release's event (created with
// blocking synchronisation, so the runtime does not spin).
#pragma once

#include <functional>
#include <memory>

#include "hip/device.h"
#include "vmafx/dmabuf.h"

namespace vmafx::hip {

// How a dma-buf becomes device memory; the default is import_dmabuf_external_memory. GPU tests replace it to stand in
// for a runtime that imports what the one at hand refuses, so the rest of the path (cache, offsets, release order)
// still runs on the device.
using DmaBufImportFn =
    std::function<Status(const std::shared_ptr<Device>& device, int fd, uint64_t size, DeviceMemory* out)>;

// The runtime's import of a whole dma-buf: external memory (opaque fd, `size` bytes) mapped whole.
Status import_dmabuf_external_memory(const std::shared_ptr<Device>& device, int fd, uint64_t size,
                                     DeviceMemory* out);

// The seam of the device importer on `device`'s library stream; `import_fn` empty: import_dmabuf_external_memory.
std::shared_ptr<DmaBufDevice> make_dmabuf_device(std::shared_ptr<Device> device, DmaBufImportFn import_fn = {});

// The device half of vmafx::DmaBufImporter::create for Backend::hip / auto_select: the device of `vendor` /
// `device_id`, the same object as the scorer's (Device::get shares one per device), so imports and reads share the
// library stream. device_unavailable when no device is usable (also in a build without the HIP engine).
Status open_dmabuf_device(vmafx::Vendor vendor, int device_id, std::shared_ptr<DmaBufDevice>* out);

}  // namespace vmafx::hip
