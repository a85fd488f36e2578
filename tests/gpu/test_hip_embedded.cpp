// SPDX-License-Identifier: LGPL-2.1-or-later
// The build embeds exactly the images it was configured for (kernels x AMD targets, x NVIDIA architectures, plus
// PTX of the newest architecture), each of the right kind, and every kernel source self-contained; the image chosen
// for a device follows the documented order. Needs no device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "hip/embedded.h"
#include "hip/module.h"

namespace vmafx::hip {
namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

const std::vector<std::string> kKernels = split(VMAFX_HIP_EXPECT_KERNELS);
const std::vector<std::string> kAmd = split(VMAFX_HIP_EXPECT_AMD);
const std::vector<std::string> kNvidia = split(VMAFX_HIP_EXPECT_NVIDIA);
const std::string kPtx = VMAFX_HIP_EXPECT_PTX;

size_t count_images(const std::string& kernel, ImageKind kind, const std::string& arch) {
  size_t n = 0, count = 0;
  const EmbeddedImage* im = embedded_images(&n);
  for (size_t i = 0; i < n; ++i) {
    if (kernel == im[i].kernel && im[i].kind == kind && arch == im[i].arch) ++count;
  }
  return count;
}

TEST(HipEmbedded, HoldsEveryConfiguredImageOnce) {
  size_t n = 0;
  const EmbeddedImage* im = embedded_images(&n);
  const size_t per_kernel = kAmd.size() + kNvidia.size() + (kPtx.empty() ? 0 : 1);
  EXPECT_EQ(n, kKernels.size() * per_kernel);
  std::printf("%zu images: %zu kernel(s) x (%zu AMD + %zu NVIDIA + %s PTX)\n", n, kKernels.size(), kAmd.size(),
              kNvidia.size(), kPtx.empty() ? "no" : kPtx.c_str());
  for (const auto& k : kKernels) {
    for (const auto& t : kAmd) EXPECT_EQ(count_images(k, ImageKind::amd_code_object, t), 1u) << k << " " << t;
    for (const auto& a : kNvidia) EXPECT_EQ(count_images(k, ImageKind::nvidia_cubin, a), 1u) << k << " " << a;
    if (!kPtx.empty()) {
      EXPECT_EQ(count_images(k, ImageKind::nvidia_ptx, kPtx), 1u) << k << " ptx " << kPtx;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    std::printf("  %s %s %s: %zu bytes\n", im[i].kernel, image_kind_name(im[i].kind), im[i].arch, im[i].size);
  }
}

TEST(HipEmbedded, ImagesAreOfTheirKind) {
  size_t n = 0;
  const EmbeddedImage* im = embedded_images(&n);
  for (size_t i = 0; i < n; ++i) {
    const auto* d = im[i].data;
    ASSERT_GT(im[i].size, 64u) << im[i].kernel << " " << im[i].arch;
    switch (im[i].kind) {
      case ImageKind::amd_code_object: {
        // hipcc --genco writes a clang offload bundle holding the gfx code object.
        const char kBundle[] = "__CLANG_OFFLOAD_BUNDLE__";
        const bool bundle = std::memcmp(d, kBundle, sizeof kBundle - 1) == 0;
        const bool elf = std::memcmp(d, "\x7f" "ELF", 4) == 0;
        EXPECT_TRUE(bundle || elf) << im[i].arch;
        const std::string body(reinterpret_cast<const char*>(d), im[i].size);
        EXPECT_NE(body.find(im[i].arch), std::string::npos) << "target " << im[i].arch << " not in its image";
        EXPECT_NE(body.find(std::string(im[i].kernel) + "_"), std::string::npos) << "no " << im[i].kernel << "_* entry";
        break;
      }
      case ImageKind::nvidia_cubin: {
        EXPECT_EQ(std::memcmp(d, "\x7f" "ELF", 4), 0) << im[i].arch;
        const std::string body(reinterpret_cast<const char*>(d), im[i].size);
        EXPECT_NE(body.find(std::string(im[i].kernel) + "_"), std::string::npos) << "no " << im[i].kernel << "_* entry";
        break;
      }
      case ImageKind::nvidia_ptx: {
        const std::string text(reinterpret_cast<const char*>(d), im[i].size);
        EXPECT_EQ(d[im[i].size], 0) << "PTX must end in a NUL for cuModuleLoadData";
        EXPECT_EQ(std::strlen(reinterpret_cast<const char*>(d)), im[i].size);
        EXPECT_NE(text.find(".target " + std::string(im[i].arch)), std::string::npos) << text.substr(0, 400);
        EXPECT_NE(text.find(".entry " + std::string(im[i].kernel) + "_"), std::string::npos) << im[i].kernel;
        break;
      }
    }
  }
}

TEST(HipEmbedded, SourcesAreSelfContained) {
  size_t n = 0;
  const EmbeddedSource* s = embedded_sources(&n);
  ASSERT_EQ(n, kKernels.size());
  for (size_t i = 0; i < n; ++i) {
    const std::string text(s[i].text, s[i].size);
    EXPECT_EQ(std::strlen(s[i].text), s[i].size);
    EXPECT_EQ(text.find("#include \""), std::string::npos) << s[i].kernel << ": project include left in the text";
    EXPECT_NE(text.find("vx_block_sum_u64"), std::string::npos) << "kernels/device.h not inlined";
    EXPECT_NE(text.find("SPDX-License-Identifier"), std::string::npos);
  }
  bool psnr_found = false;
  for (size_t i = 0; i < n; ++i)
    if (std::string(s[i].kernel) == "psnr")
      psnr_found = std::string(s[i].text, s[i].size).find("VMAFX_KERNEL void psnr_sse_kernel") != std::string::npos;
  EXPECT_TRUE(psnr_found);
}

// The documented order, computed here from the configured lists: NVIDIA cubins of the device's major architecture
// at or below its minor, newest first, then PTX at or below the device; AMD the code object of the base target.
std::vector<std::string> expected_nvidia(int device_sm) {
  std::vector<int> cubins;
  for (const auto& a : kNvidia) {
    const int sm = std::stoi(a.substr(3));
    if (sm / 10 == device_sm / 10 && sm <= device_sm) cubins.push_back(sm);
  }
  std::sort(cubins.rbegin(), cubins.rend());
  std::vector<std::string> out;
  for (int sm : cubins) out.push_back("cubin sm_" + std::to_string(sm));
  if (!kPtx.empty() && std::stoi(kPtx.substr(3)) <= device_sm) out.push_back("ptx " + kPtx);
  return out;
}

std::vector<std::string> names(const std::vector<const EmbeddedImage*>& v) {
  std::vector<std::string> out;
  for (const auto* im : v) out.push_back(std::string(image_kind_name(im->kind)) + " " + im->arch);
  return out;
}

TEST(HipEmbedded, PicksImagesInTheDocumentedOrder) {
  for (int sm : {70, 75, 80, 86, 87, 89, 90, 100, 120}) {
    EXPECT_EQ(names(candidate_images(Vendor::nvidia, "sm_" + std::to_string(sm), "psnr")), expected_nvidia(sm))
        << "sm_" << sm;
  }
  if (!kNvidia.empty()) {
    // The device's own cubin comes first whenever it was built.
    const auto own = candidate_images(Vendor::nvidia, kNvidia.back(), "psnr");
    ASSERT_FALSE(own.empty());
    EXPECT_EQ(std::string(own[0]->arch), kNvidia.back());
    EXPECT_EQ(own[0]->kind, ImageKind::nvidia_cubin);
  }
  for (const auto& t : kAmd) {
    // Feature suffixes of the device name (xnack, sramecc) do not hide the target's image.
    const auto c = candidate_images(Vendor::amd, t + ":sramecc+:xnack-", "psnr");
    ASSERT_EQ(c.size(), 1u) << t;
    EXPECT_EQ(std::string(c[0]->arch), t);
  }
  EXPECT_TRUE(candidate_images(Vendor::amd, "gfx1100", "psnr").empty() ||
              std::find(kAmd.begin(), kAmd.end(), "gfx1100") != kAmd.end());
  EXPECT_TRUE(candidate_images(Vendor::nvidia, "sm_90", "no_such_kernel").empty());
  EXPECT_TRUE(candidate_images(Vendor::nvidia, "gfx90a", "psnr").empty());
}

TEST(HipEmbedded, SourceHashIsFnv1a64) {
  EXPECT_EQ(source_hash(""), "cbf29ce484222325");
  EXPECT_EQ(source_hash("a"), "af63dc4c8601ec8c");
  EXPECT_NE(source_hash("psnr"), source_hash("psnR"));
}

}  // namespace
}  // namespace vmafx::hip
