// SPDX-License-Identifier: LGPL-2.1-or-later
// MotionGpu (kernels/motion.hip through the GpuFeature contract) under every motion option: the sad score of each
// frame equal to the CPU reference's, and with cpu::MotionPost (the scorer's in-order stage) motion2 / motion3 equal
// to libvmaf's full-precision oracle of the sample pair (tests/data/sample_320x240_dist.adm_motion_options.json);
// the five-frame window refused where the pipeline gives no frame two back. Skips (exit 77) without a device.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "assert_ok.h"
#include "cpu/motion.h"
#include "cpu/plane.h"
#include "gpu_device.h"
#include "hip/motion_gpu.h"
#include "support.h"

namespace vmafx::hip {
namespace {

struct OptionCase {
  const char* suffix;
  cpu::MotionOptions opt;
};
std::vector<OptionCase> option_cases() {
  std::vector<OptionCase> v;
  cpu::MotionOptions o;
  v.push_back({"", o});
  o.five_frame_window = true;
  o.moving_average = true;
  o.max_val = 18;
  v.push_back({"_mffw_mmxv_18_mma", o});
  o = {};
  o.blend_factor = 0.5;
  o.blend_offset = 1;
  o.fps_weight = 2.5;
  v.push_back({"_mbf_0.5_mbo_1_mfw_2.5", o});
  o = {};
  o.force_zero = true;
  v.push_back({"_force_0", o});
  o = {};
  o.moving_average = true;
  o.max_val = 1.5;
  v.push_back({"_mmxv_1.5_mma", o});
  o = {};
  o.five_frame_window = true;
  v.push_back({"_mffw", o});
  return v;
}

// The reference luma of the first `n` frames of the sample pair on the device.
struct DeviceFrames {
  std::vector<DeviceBuffer> buffers;
  std::vector<DevicePlane> planes;
  std::vector<cpu::Plane> host;
};

Status upload_frames(const std::shared_ptr<Device>& dev, const vmafx::test::PairClips& c, size_t n, DeviceFrames* out) {
  for (size_t i = 0; i < n; i++) {
    const cpu::Plane p = cpu::luma_plane(c.ref.frame(i));
    const size_t pitch = size_t(p.w) + 3;  // a pitch other than the width
    DeviceBuffer b;
    VMAFX_TRY(DeviceBuffer::create(dev, pitch * p.h, &b));
    VMAFX_TRY(dev->copy_2d_async({CopyKind::host_to_device, b.data(), pitch, p.data, size_t(p.stride), p.w, p.h}));
    DevicePlane d;
    d.data = b.data();
    d.pitch = pitch;
    d.width = p.w;
    d.height = p.h;
    out->planes.push_back(d);
    out->buffers.push_back(std::move(b));
    out->host.push_back(p);
  }
  return dev->synchronize();
}

FramePlanes frame_at(const DeviceFrames& f, size_t i, bool keep_two_back) {
  FramePlanes fp;
  fp.ref[0] = fp.dist[0] = f.planes[i];
  fp.planes = 1;
  fp.width = f.planes[i].width;
  fp.height = f.planes[i].height;
  fp.bpc = 8;
  fp.prev_ref = i > 0 ? &f.planes[i - 1] : nullptr;
  fp.prev_prev_ref = keep_two_back && i > 1 ? &f.planes[i - 2] : nullptr;
  return fp;
}

TEST(HipMotionGpu, EveryOptionMatchesCpuAndLibvmaf) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  vmafx::test::PairClips c;
  ASSERT_OK(vmafx::test::open_sample_pair(&c));
  vmafx::test::Oracle o;
  ASSERT_OK(vmafx::test::load_oracle(vmafx::test::project_data_dir() + "/sample_320x240_dist.adm_motion_options.json", &o));
  const size_t n = o.frames.size();
  DeviceFrames frames;
  ASSERT_OK(upload_frames(dev, c, n, &frames));
  std::vector<int32_t> row(320);
  for (const OptionCase& k : option_cases()) {
    SCOPED_TRACE(std::string("motion") + k.suffix);
    std::unique_ptr<MotionGpu> m;
    ASSERT_OK(MotionGpu::create(dev, 320, 240, 8, 2, k.opt, &m));
    cpu::MotionPost post(k.opt);
    std::vector<cpu::MotionOut> out;
    const unsigned d = cpu::motion_frame_distance(k.opt);
    for (size_t i = 0; i < n; i++) {
      const unsigned slot = unsigned(i % 2);
      ASSERT_OK(m->enqueue(frame_at(frames, i, true), slot));
      ASSERT_OK(dev->synchronize());
      double gpu = -1;
      ASSERT_OK(m->finish(slot, &gpu));
      double want = 0.0;
      if (i >= d && !k.opt.force_zero)
        want = cpu::motion_score_from_sad(cpu::motion_sad(frames.host[i - d], frames.host[i], row.data()), 320, 240,
                                          k.opt);
      EXPECT_EQ(gpu, want) << "frame " << i;
      if (k.suffix[0] != 0) {  // the default instance is not in the options oracle
        const auto it = o.frames[i].find(std::string("VMAF_integer_feature_motion_sad_score") + k.suffix);
        ASSERT_NE(it, o.frames[i].end());
        EXPECT_EQ(gpu, it->second) << "frame " << i;
      }
      post.push(i, gpu, &out);
    }
    post.finish(&out);
    ASSERT_EQ(out.size(), n);
    if (k.suffix[0] == 0) continue;
    for (size_t i = 0; i < n; i++) {
      EXPECT_EQ(out[i].motion2, o.frames[i].at(std::string("integer_motion2") + k.suffix)) << "frame " << i;
      EXPECT_EQ(out[i].motion3, o.frames[i].at(std::string("integer_motion3") + k.suffix)) << "frame " << i;
    }
  }
}

TEST(HipMotionGpu, FiveFrameWindowNeedsTheFrameTwoBack) {
  VMAFX_GPU_DEVICE_OR_SKIP(dev);
  vmafx::test::PairClips c;
  ASSERT_OK(vmafx::test::open_sample_pair(&c));
  DeviceFrames frames;
  ASSERT_OK(upload_frames(dev, c, 4, &frames));
  cpu::MotionOptions opt;
  opt.five_frame_window = true;
  std::unique_ptr<MotionGpu> m;
  ASSERT_OK(MotionGpu::create(dev, 320, 240, 8, 1, opt, &m));
  ASSERT_OK(m->enqueue(frame_at(frames, 0, false), 0));
  ASSERT_OK(m->enqueue(frame_at(frames, 1, false), 0));  // frame 1 scores 0 without it
  ASSERT_OK(dev->synchronize());
  double v = -1;
  ASSERT_OK(m->finish(0, &v));
  EXPECT_EQ(v, 0.0);
  const Status st = m->enqueue(frame_at(frames, 2, false), 0);
  EXPECT_EQ(st.code(), Errc::unsupported);
  EXPECT_NE(st.message().find("two frames back"), std::string::npos) << st.message();
  // A new stream (no previous reference) starts the count again.
  ASSERT_OK(m->enqueue(frame_at(frames, 0, false), 0));
  ASSERT_OK(m->enqueue(frame_at(frames, 1, false), 0));
  cpu::MotionOptions bad;
  bad.fps_weight = 6;
  std::unique_ptr<MotionGpu> m2;
  EXPECT_EQ(MotionGpu::create(dev, 320, 240, 8, 1, bad, &m2).code(), Errc::invalid_argument);
}

}  // namespace
}  // namespace vmafx::hip
