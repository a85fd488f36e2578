// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhipsync.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace vmafx::gst {

namespace {

uint32_t sample(const PictureView& p, uint32_t x, uint32_t y) {
  const PlaneView& pl = p.planes[0];
  const uint8_t* row = pl.data + ptrdiff_t(y) * pl.stride;
  const size_t at = size_t(x) * (pl.step ? pl.step : 1) * p.bytes_per_sample;
  if (p.bytes_per_sample == 1) return row[at];
  return uint32_t(row[at] | (row[at + 1] << 8)) >> p.shift;
}

}  // namespace

double luma_psnr(const PictureView& a, const PictureView& b) {
  const uint32_t w = std::min(a.width, b.width), h = std::min(a.height, b.height);
  if (w == 0 || h == 0) return 0;
  double sse = 0;
  for (uint32_t y = 0; y < h; y++) {
    for (uint32_t x = 0; x < w; x++) {
      const double d = double(sample(a, x, y)) - double(sample(b, x, y));
      sse += d * d;
    }
  }
  if (sse == 0) return kSyncPsnrCap;
  const double peak = double((1u << a.bit_depth) - 1);
  const double mse = sse / (double(w) * double(h));
  return std::min(kSyncPsnrCap, 10.0 * std::log10(peak * peak / mse));
}

Status find_offset(const std::vector<PictureView>& ref, const std::vector<PictureView>& dist, int centre, int window,
                   SyncResult* out) {
  bool found = false;
  SyncResult best;
  for (int o = centre - window; o <= centre + window; o++) {
    // dist frame i + o pairs with ref frame i: the first pairs of this offset.
    double sum = 0;
    unsigned n = 0;
    for (size_t i = size_t(o < 0 ? -o : 0); n < kSyncPairsPerOffset; i++) {
      const long d = long(i) + o;
      if (d < 0) continue;
      if (i >= ref.size() || size_t(d) >= dist.size()) break;
      sum += luma_psnr(ref[i], dist[size_t(d)]);
      n++;
    }
    if (n == 0) continue;
    const double mean = sum / n;
    const bool better =
        !found || mean > best.psnr_y || (mean == best.psnr_y && std::abs(o - centre) < std::abs(best.offset - centre));
    if (better) {
      best.offset = o;
      best.psnr_y = mean;
      best.compared = n;
      found = true;
    }
  }
  if (!found) return {Errc::invalid_argument, "auto-sync: no frames to compare"};
  *out = best;
  return Status::ok();
}

}  // namespace vmafx::gst
