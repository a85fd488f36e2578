// SPDX-License-Identifier: LGPL-2.1-or-later
// DevicePlane: a plane in device memory as host code and kernels both see it. It is the kernels' own VxPlane
// (kernels/common.h), passed to them by value, so there is one layout and no conversion between host and kernel
// arguments. FramePlanes (hip/feature.h) holds them.
//
// check_device_plane() is the one layout check of a plane: the HIP pipeline applies it once per plane of a frame
// (HipPipeline::submit), and the kernels' direct entry points (tests, benchmarks) apply it to what they are given.
// Inside, a feature's per-frame enqueue only asserts what the pipeline has checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cpu/plane.h"
#include "hip/kernels/common.h"
#include "vmafx/status.h"

namespace vmafx::hip {

using DevicePlane = ::VxPlane;

static_assert(sizeof(DevicePlane) == 40 && offsetof(DevicePlane, pitch) == 8 && offsetof(DevicePlane, width) == 16 &&
                  offsetof(DevicePlane, bytes) == 24 && offsetof(DevicePlane, step) == 32,
              "VxPlane is passed to kernels by value: its layout is the same on the host and the device");

// `p` holds w x h samples of `bpc` bits in the layouts the kernels read (cpu::check_plane_layout: data present, the
// size, 8-bit bytes unshifted or 16-bit words holding bpc + shift bits, a step of at least 1, a pitch that holds a
// row). `what` names the plane in the refusal ("vif (gpu): reference plane").
inline Status check_device_plane(const DevicePlane& p, uint32_t w, uint32_t h, unsigned bpc, const std::string& what) {
  return cpu::check_plane_layout(what, p.data, p.pitch, p.width, p.height, p.bytes, p.shift, p.step, w, h, bpc);
}

// The same as a predicate, for asserts on paths where the boundary has checked.
inline bool device_plane_fits(const DevicePlane& p, uint32_t w, uint32_t h, unsigned bpc) {
  return check_device_plane(p, w, h, bpc, {}).is_ok();
}

}  // namespace vmafx::hip
