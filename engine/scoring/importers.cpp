// SPDX-License-Identifier: LGPL-2.1-or-later
// The public factory of the dma-buf importer (vmafx/dmabuf.h): it joins the importer's host half (engine/import)
// with its device half (engine/hip) through the DmaBufDevice interface, and falls back to the host for auto.
#include "hip/dmabuf_import.h"
#include "vmafx/dmabuf.h"

namespace vmafx {

Status DmaBufImporter::create(const DmaBufImporterConfig& config, std::unique_ptr<DmaBufImporter>* out) {
  out->reset();
  if (config.backend == Backend::cpu) return create_dmabuf_host_importer(config, out);
  std::shared_ptr<DmaBufDevice> device;
  Status s = hip::open_dmabuf_device(config.vendor, config.device_id, &device);
  if (s) return create_dmabuf_device_importer(config, std::move(device), out);
  if (config.backend == Backend::hip || s.code() != Errc::device_unavailable) return s;
  if (config.on_warning) config.on_warning("no usable GPU for dma-buf import, mapping on the host (" + s.message() + ")");
  return create_dmabuf_host_importer(config, out);
}

}  // namespace vmafx
