// SPDX-License-Identifier: LGPL-2.1-or-later
// Kernel images compiled ahead of time and the kernel sources, embedded in the binary by tools/embed_blobs.py
// (the generated hip_embedded.cpp defines the two functions below).
#pragma once

#include <cstddef>

namespace vmafx::hip {

enum class ImageKind : unsigned char {
  amd_code_object,  // hipcc --genco (a clang offload bundle), for one gfx target
  nvidia_cubin,     // nvcc -cubin, for one sm_ architecture
  nvidia_ptx,       // nvcc -ptx, NUL-terminated; the driver compiles it for newer GPUs
};

const char* image_kind_name(ImageKind k);  // "amdgcn", "cubin", "ptx"

struct EmbeddedImage {
  const char* kernel;  // kernel source name: "psnr" for kernels/psnr.hip
  ImageKind kind;
  const char* arch;    // "gfx90a", "sm_90"
  const unsigned char* data;
  size_t size;         // bytes, without the terminating NUL of PTX
};

struct EmbeddedSource {
  const char* kernel;
  const char* text;    // the .hip source with its project includes inlined: compiles on its own with hiprtc/nvrtc
  size_t size;
};

const EmbeddedImage* embedded_images(size_t* count);
const EmbeddedSource* embedded_sources(size_t* count);

}  // namespace vmafx::hip
