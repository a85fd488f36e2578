// SPDX-License-Identifier: LGPL-2.1-or-later
// bench-cpu: frames per second of the engine's CPU path (vmaf_v0.6.1) on synthetic frames held in memory, for
// 576x324 and 1920x1080 at 1 and 2 threads. Not a test: numbers go to docs/performance.md.
//   bench-cpu [--frames N] [--size WxH] [--threads T] [--bitdepth B] [--features]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "vmafx/scorer.h"

using namespace vmafx;

namespace {

// Deterministic content: gradients, a moving pattern, and texture; the distorted copy adds noise and a blur.
void make_frame(std::vector<uint8_t>& buf, uint32_t w, uint32_t h, unsigned bpc, unsigned n, bool distort) {
  const unsigned bps = bpc > 8 ? 2 : 1;
  const uint32_t cw = (w + 1) / 2, ch = (h + 1) / 2;
  buf.assign((size_t(w) * h + 2 * size_t(cw) * ch) * bps, 0);
  uint32_t seed = 12345u + n * 7919u + (distort ? 1u : 0u);
  const unsigned maxv = (1u << bpc) - 1;
  auto put = [&](size_t i, unsigned v) {
    if (v > maxv) v = maxv;
    if (bps == 1) buf[i] = uint8_t(v);
    else { buf[2 * i] = uint8_t(v & 0xff); buf[2 * i + 1] = uint8_t(v >> 8); }
  };
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++) {
      seed = seed * 1664525u + 1013904223u;
      unsigned v = ((x + 3 * n) * 3 + y * 2 + (((x + n) / 16 + y / 16) % 2) * 40) % 220 + 16;
      if (distort) v = v + ((seed >> 28) & 7) - 3;
      put(size_t(y) * w + x, v << (bpc - 8));
    }
  for (size_t i = 0; i < 2 * size_t(cw) * ch; i++) put(size_t(w) * h + i, 128u << (bpc - 8));
}

double run(uint32_t w, uint32_t h, unsigned bpc, unsigned threads, unsigned frames, bool features) {
  FormatInfo fmt;
  if (!parse_pixel_format("420", bpc, &fmt).is_ok()) return 0;
  PlaneLayout lay[3];
  size_t size = 0;
  const unsigned np = packed_layout(fmt, w, h, lay, &size);
  const unsigned distinct = 8;
  std::vector<std::vector<uint8_t>> ref(distinct), dist(distinct);
  for (unsigned i = 0; i < distinct; i++) {
    make_frame(ref[i], w, h, bpc, i, false);
    make_frame(dist[i], w, h, bpc, i, true);
  }
  ScorerConfig cfg;
  cfg.threads = threads;
  cfg.backend = Backend::cpu;
  if (features) cfg.features = {{"psnr", {}}, {"float_ssim", {}}, {"float_ms_ssim", {}}};
  double sum = 0;
  cfg.on_frame = [&sum](const FrameScore& fs) { sum += fs.values.back(); };
  std::unique_ptr<Scorer> s;
  StreamGeometry g;
  g.ref = {w, h, uint8_t(bpc), Chroma::k420};
  Status st = Scorer::create(cfg, g, &s);
  if (!st.is_ok()) {
    std::fprintf(stderr, "bench-cpu: %s\n", st.to_string().c_str());
    std::exit(1);
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < frames; i++) {
    PictureView rv, dv;
    (void)make_picture_view(fmt, w, h, ref[i % distinct].data(), size, lay, np, &rv);
    (void)make_picture_view(fmt, w, h, dist[i % distinct].data(), size, lay, np, &dv);
    FramePair pair;
    pair.ref = rv;
    pair.dist = dv;
    pair.timestamp = i;
    pair.user = i;
    st = s->submit(std::move(pair));
    if (!st.is_ok()) {
      std::fprintf(stderr, "bench-cpu: %s\n", st.to_string().c_str());
      std::exit(1);
    }
  }
  st = s->flush();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  (void)sum;
  return frames / secs;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned frames = 0, bpc = 8;
  std::vector<std::pair<uint32_t, uint32_t>> sizes = {{576, 324}, {1920, 1080}};
  std::vector<unsigned> threads = {1, 2};
  bool features = false;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) frames = unsigned(std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--bitdepth") && i + 1 < argc) bpc = unsigned(std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = {unsigned(std::atoi(argv[++i]))};
    else if (!std::strcmp(argv[i], "--features")) features = true;
    else if (!std::strcmp(argv[i], "--size") && i + 1 < argc) {
      unsigned w, h;
      if (std::sscanf(argv[++i], "%ux%u", &w, &h) == 2) sizes = {{w, h}};
    } else {
      std::fprintf(stderr, "usage: bench-cpu [--frames N] [--size WxH] [--threads T] [--bitdepth B] [--features]\n");
      return 1;
    }
  }
  std::printf("%-10s %-4s %-8s %-7s %s\n", "size", "bpc", "threads", "frames", "fps");
  for (auto [w, h] : sizes)
    for (unsigned t : threads) {
      const unsigned n = frames ? frames : (w * h > 1000000 ? 60 : 300);
      const double fps = run(w, h, bpc, t, n, features);
      std::printf("%4ux%-5u %-4u %-8u %-7u %.1f\n", w, h, bpc, t, n, fps);
      std::fflush(stdout);
    }
  return 0;
}
