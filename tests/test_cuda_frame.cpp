// SPDX-License-Identifier: LGPL-2.1-or-later
// CUDA memory input without a GPU (vmafx/cuda.h): the checks of a described frame (planes, strides, each plane
// inside its own allocation, the interleaved chroma read with step 2, P010's shift), the in-place / copy / refuse
// rule and its messages, and what a build without a usable NVIDIA device answers.
#include <gtest/gtest.h>

#include <string>

#include "vmafx/cuda.h"

namespace vmafx::cuda {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// An NVDEC-like NV12 frame: one allocation of pitch x (height + height / 2), chroma after the luma rows.
CudaFrame nv12(uint32_t w, uint32_t h, size_t pitch, uint64_t base = 0x7f0000000000ull) {
  CudaFrame f;
  f.format = {PixelFormat::nv12, Chroma::k420, 8};
  f.width = w;
  f.height = h;
  f.n_planes = 2;
  const size_t size = pitch * (h + (h + 1) / 2);
  f.planes[0] = {base, ptrdiff_t(pitch), size};
  f.planes[1] = {base + pitch * h, ptrdiff_t(pitch), size - pitch * h};
  f.context = reinterpret_cast<void*>(0x1000);
  f.device = 0;
  return f;
}

TEST(CudaFrame, Nv12IsReadInPlaceWithInterleavedChroma) {
  const CudaFrame f = nv12(1920, 1080, 2048);
  PictureView v;
  size_t extent[3];
  ASSERT_TRUE(plan_cuda_picture(f, &v, extent).is_ok());
  EXPECT_EQ(v.memory, MemoryKind::device);
  EXPECT_EQ(v.device, 0);
  EXPECT_EQ(v.width, 1920u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.planes[0].data), f.planes[0].data);
  EXPECT_EQ(v.planes[0].stride, 2048);
  // Cb and Cr are the even and odd bytes of the one chroma plane: no planarising copy.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.planes[1].data), f.planes[1].data);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.planes[2].data), f.planes[1].data + 1);
  EXPECT_EQ(v.planes[1].step, 2);
  EXPECT_EQ(v.planes[2].step, 2);
  EXPECT_EQ(v.planes[1].width, 960u);
  EXPECT_EQ(v.planes[1].height, 540u);
  EXPECT_EQ(extent[0], size_t(2048) * 1079 + 1920);
  EXPECT_EQ(extent[1], size_t(2048) * 539 + 1920);
}

TEST(CudaFrame, P010KeepsItsShiftAndOddSizesRoundUp) {
  CudaFrame f = nv12(321, 241, 1024);
  f.format = {PixelFormat::p010, Chroma::k420, 10};
  f.planes[1].data = f.planes[0].data + 1024 * 241;
  f.planes[1].available = f.planes[0].available - 1024 * 241;
  PictureView v;
  size_t extent[3];
  ASSERT_TRUE(plan_cuda_picture(f, &v, extent).is_ok());
  EXPECT_EQ(v.shift, 6);
  EXPECT_EQ(v.bytes_per_sample, 2);
  EXPECT_EQ(extent[1], size_t(1024) * 120 + 161 * 2 * 2) << "121 chroma rows of 161 CbCr pairs";
}

TEST(CudaFrame, I420PlanesInSeparateAllocations) {
  CudaFrame f;
  f.format = {PixelFormat::i420, Chroma::k420, 8};
  f.width = 64;
  f.height = 32;
  f.n_planes = 3;
  f.planes[0] = {0x10000, 64, 64 * 32};
  f.planes[1] = {0x90000, 32, 32 * 16};
  f.planes[2] = {0x50000, 32, 32 * 16};
  PictureView v;
  ASSERT_TRUE(plan_cuda_picture(f, &v).is_ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.planes[1].data), 0x90000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.planes[2].data), 0x50000u);
  f.format.format = PixelFormat::yv12;  // Y, Cr, Cb
  ASSERT_TRUE(plan_cuda_picture(f, &v).is_ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.planes[1].data), 0x50000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.planes[2].data), 0x90000u);
}

TEST(CudaFrame, BadFramesAreRefusedNamingThePlane) {
  PictureView v;
  CudaFrame f = nv12(1920, 1080, 2048);
  f.planes[1].available = size_t(2048) * 539 + 1920 - 1;  // the chroma's last row reaches one byte past its memory
  Status s = plan_cuda_picture(f, &v);
  EXPECT_EQ(s.code(), Errc::out_of_range);
  EXPECT_TRUE(contains(s.message(), "plane 1") && contains(s.message(), "runs past the end")) << s.message();

  f = nv12(1920, 1080, 1024);  // a pitch narrower than a row
  s = plan_cuda_picture(f, &v);
  EXPECT_EQ(s.code(), Errc::invalid_argument);
  EXPECT_TRUE(contains(s.message(), "plane 0 stride 1024")) << s.message();

  f = nv12(1920, 1080, 2048);
  f.n_planes = 1;
  s = plan_cuda_picture(f, &v);
  EXPECT_EQ(s.code(), Errc::invalid_argument);
  EXPECT_TRUE(contains(s.message(), "needs 2")) << s.message();

  f = nv12(1920, 1080, 2048);
  f.planes[0].data = 0;
  s = plan_cuda_picture(f, &v);
  EXPECT_TRUE(contains(s.message(), "no device pointer")) << s.message();

  f = nv12(0, 1080, 2048);
  EXPECT_EQ(plan_cuda_picture(f, &v).code(), Errc::invalid_argument);
}

TEST(CudaFrame, SameContextInPlaceOtherwiseCopyOrRefuse) {
  void* ours = reinterpret_cast<void*>(0x55aa0000);
  void* theirs = reinterpret_cast<void*>(0x66bb0000);
  CudaPathDecision d = decide_cuda_path(ours, 0, ours, 0, false);
  EXPECT_EQ(d.path, CudaPath::in_place);
  EXPECT_TRUE(d.reason.empty());

  d = decide_cuda_path(theirs, 0, ours, 0, true);
  EXPECT_EQ(d.path, CudaPath::copy);
  EXPECT_TRUE(contains(d.reason, describe_cuda_context(theirs, 0))) << d.reason;
  EXPECT_TRUE(contains(d.reason, describe_cuda_context(ours, 0))) << d.reason;
  EXPECT_TRUE(contains(d.reason, "the same GPU, another context")) << d.reason;
  EXPECT_TRUE(contains(d.reason, "copied device to device")) << d.reason;

  d = decide_cuda_path(theirs, 1, ours, 0, false);
  EXPECT_EQ(d.path, CudaPath::refuse);
  EXPECT_TRUE(contains(d.reason, "another GPU") && contains(d.reason, "allow-copy=false")) << d.reason;

  d = decide_cuda_path(nullptr, 0, ours, 0, true);
  EXPECT_EQ(d.path, CudaPath::copy);
  EXPECT_TRUE(contains(d.reason, "unknown CUDA context")) << d.reason;
  EXPECT_EQ(describe_cuda_context(ours, 0), "CUDA context 0x55aa0000 of device 0");
}

// Without an NVIDIA device (CI) the importer and the context calls say so; nothing crashes.
TEST(CudaFrame, NoDeviceIsDeviceUnavailable) {
  std::unique_ptr<CudaImporter> imp;
  Status s = CudaImporter::create({}, &imp);
  if (s.is_ok()) GTEST_SKIP() << "an NVIDIA device is present: " << imp->description();
  EXPECT_EQ(s.code(), Errc::device_unavailable) << s.to_string();
  EXPECT_FALSE(imp);
  EngineContext ec;
  EXPECT_EQ(engine_context(-1, &ec).code(), Errc::device_unavailable);
  EXPECT_EQ(ec.context, nullptr);
  s = adopt_context(reinterpret_cast<void*>(0x1000), 0, nullptr, &ec);
  EXPECT_EQ(s.code(), Errc::device_unavailable) << s.to_string();
  std::printf("no device: %s\n", s.to_string().c_str());
}

}  // namespace
}  // namespace vmafx::cuda
