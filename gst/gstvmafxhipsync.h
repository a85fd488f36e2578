// SPDX-License-Identifier: LGPL-2.1-or-later
// auto-sync: the offset between the streams, found from their first frames as easyVmaf's autosync finds it: for every
// candidate offset within the window, the mean luma PSNR of the first pairs that offset forms; the best wins (the
// smallest offset among equals).
#pragma once

#include <vector>

#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::gst {

struct SyncResult {
  int offset = 0;        // frames the distorted stream is late by (dist frame i + offset pairs with ref frame i)
  double psnr_y = 0;     // mean luma PSNR of the pairs at that offset (capped at kSyncPsnrCap for equal frames)
  unsigned compared = 0; // pairs compared at that offset
};

inline constexpr double kSyncPsnrCap = 1000.0;
// Pairs compared per candidate offset.
inline constexpr unsigned kSyncPairsPerOffset = 5;

// Luma PSNR of two host pictures of the same size and depth (kSyncPsnrCap when equal).
double luma_psnr(const PictureView& a, const PictureView& b);

// `ref` and `dist` are the streams' first frames in order (host memory). Offsets in [centre - window, centre + window]
// that form at least one pair are candidates (the one nearest `centre` among equals); Errc::invalid_argument when none
// does. The offset found is the whole offset (dist-offset is the centre, not added to it).
Status find_offset(const std::vector<PictureView>& ref, const std::vector<PictureView>& dist, int centre, int window,
                   SyncResult* out);

}  // namespace vmafx::gst
