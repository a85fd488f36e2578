// SPDX-License-Identifier: LGPL-2.1-or-later
// A ladder against one SharedReference compared with a scorer of its own per rendition: four renditions of a
// synthetic reference (two of its size, one smaller and scaled, one that starts at a later reference frame), the
// same configuration apart from the backend. Used by the CPU suite (tests/test_shared_reference.cpp) and the GPU
// suite (tests/gpu/test_hip_scorer.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "support.h"
#include "vmafx/scorer.h"

// A vmafx::Status expression that must be ok (the test goes on when it is not).
#define LADDER_EXPECT_OK(expr)                                  \
  do {                                                          \
    ::vmafx::Status s_ = (expr);                                \
    EXPECT_TRUE(s_.is_ok()) << #expr << ": " << s_.to_string(); \
  } while (0)

namespace vmafx::test::ladder {

// An 8-bit 4:2:0 clip held in memory, frame after frame.
struct Clip {
  uint32_t w = 0, h = 0;
  FormatInfo fmt{PixelFormat::i420, Chroma::k420, 8};
  PlaneLayout layout[3];
  unsigned planes = 0;
  size_t size = 0;
  std::vector<std::vector<uint8_t>> frames;
  Clip(uint32_t width, uint32_t height) : w(width), h(height) { planes = packed_layout(fmt, w, h, layout, &size); }
  PictureView view(size_t i) const {
    PictureView v;
    EXPECT_TRUE(make_picture_view(fmt, w, h, frames[i].data(), size, layout, planes, &v).is_ok());
    return v;
  }
  VideoGeometry geometry() const { return {w, h, 8, Chroma::k420}; }
};

// Texture that moves from frame to frame (motion is not zero), and renditions: quantised with noise of `seed`.
inline Clip reference(uint32_t w, uint32_t h, unsigned n) {
  Clip c(w, h);
  for (unsigned f = 0; f < n; f++) {
    std::vector<uint8_t> r(c.size);
    for (size_t i = 0; i < c.size; i++) {
      const uint32_t x = uint32_t(i % w), y = uint32_t(i / w);
      r[i] = uint8_t((x * 3 + y * 5 + f * 7 + ((x / 8 + y / 8 + f) % 2) * 60) & 0xff);
    }
    c.frames.push_back(std::move(r));
  }
  return c;
}
inline Clip rendition(const Clip& ref, uint32_t w, uint32_t h, unsigned step, unsigned seed) {
  Clip c(w, h);
  std::mt19937 rng(seed);
  for (const auto& rf : ref.frames) {
    std::vector<uint8_t> d(c.size);
    for (size_t i = 0; i < c.size; i++) {
      // Nearest sample of the reference's luma (chroma bytes take any reference byte: only the scores' equality
      // between the two runs matters here).
      const size_t x = i % w, y = i / w;
      const size_t src = std::min(rf.size() - 1, (y * ref.h / h) * ref.w + x * ref.w / w);
      d[i] = uint8_t(std::min(255, std::max(0, int(rf[src] / step * step) + int(rng() % 31) - 15)));
    }
    c.frames.push_back(std::move(d));
  }
  return c;
}

struct Rendition {
  Clip clip;
  size_t first = 0;  // the reference frame of its frame 0
};

struct Run {
  std::vector<std::string> names;
  std::vector<FrameScore> frames;
  ScorerCounters counters;
  std::vector<double> pooled_mean;  // per column
};

inline Run finish(Scorer& s, FrameLog& log) {
  Run r;
  LADDER_EXPECT_OK(s.flush());
  r.names = s.score_names();
  r.frames = log.frames();
  r.counters = s.counters();
  for (size_t c = 0; c < s.collector().columns(); c++) r.pooled_mean.push_back(s.collector().pool(c).get(PoolMethod::mean));
  return r;
}

// Rendition r scored by a scorer of its own.
inline Run alone(const ScorerConfig& cfg, const Clip& ref, const Rendition& r) {
  FrameLog log;
  ScorerConfig c = cfg;
  c.on_frame = [&log](const FrameScore& fs) { log.add(fs); };
  std::unique_ptr<Scorer> s;
  LADDER_EXPECT_OK(Scorer::create(c, {ref.geometry(), r.clip.geometry()}, &s));
  if (!s) return {};
  for (size_t i = 0; i < r.clip.frames.size() && r.first + i < ref.frames.size(); i++)
    LADDER_EXPECT_OK(s->submit(frame_pair(ref.view(r.first + i), r.clip.view(i), int64_t(i), i)));
  return finish(*s, log);
}

struct LadderRun {
  std::vector<Run> runs;
  SharedReferenceCounters shared;
  std::string backend;
};

// Every rendition against one shared reference, fed as a ladder is: each reference frame handed over once, then
// every rendition's pair of that frame.
inline LadderRun shared(const ScorerConfig& cfg, const Clip& ref, const std::vector<Rendition>& rends) {
  LadderRun out;
  std::shared_ptr<SharedReference> sr;
  LADDER_EXPECT_OK(SharedReference::create(cfg, ref.geometry(), &sr));
  if (!sr) return out;
  out.backend = sr->backend_description();
  std::vector<FrameLog> logs(rends.size());
  std::vector<std::unique_ptr<Scorer>> scorers(rends.size());
  for (size_t k = 0; k < rends.size(); k++) {
    ScorerConfig c = cfg;
    c.shared_reference = sr;
    c.on_frame = [&logs, k](const FrameScore& fs) { logs[k].add(fs); };
    LADDER_EXPECT_OK(Scorer::create(c, {ref.geometry(), rends[k].clip.geometry()}, &scorers[k]));
    if (!scorers[k]) return out;
  }
  for (size_t i = 0; i < ref.frames.size(); i++) {
    std::shared_ptr<const SharedFrame> sf;
    LADDER_EXPECT_OK(sr->submit(ref.view(i), {}, &sf));
    for (size_t k = 0; k < rends.size(); k++) {
      const Rendition& r = rends[k];
      if (i < r.first || i - r.first >= r.clip.frames.size()) continue;
      FramePair p = frame_pair(PictureView{}, r.clip.view(i - r.first), int64_t(i - r.first), i - r.first);
      p.shared = sf;
      LADDER_EXPECT_OK(scorers[k]->submit(std::move(p)));
    }
  }
  for (size_t k = 0; k < rends.size(); k++) out.runs.push_back(finish(*scorers[k], logs[k]));
  out.shared = sr->counters();
  return out;
}

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Frame by frame and pooled, every column bit for bit; returns the number of values that differ.
inline size_t compare(const Run& a, const Run& b, const std::string& what) {
  size_t differ = 0;
  EXPECT_EQ(a.names, b.names) << what;
  EXPECT_EQ(a.frames.size(), b.frames.size()) << what;
  for (size_t f = 0; f < std::min(a.frames.size(), b.frames.size()); f++)
    for (size_t c = 0; c < a.frames[f].values.size() && c < b.frames[f].values.size(); c++)
      if (!same_bits(a.frames[f].values[c], b.frames[f].values[c])) {
        if (differ++ < 5)
          ADD_FAILURE() << what << ": frame " << f << " " << a.names[c] << " " << a.frames[f].values[c] << " alone, "
                        << b.frames[f].values[c] << " shared";
      }
  for (size_t c = 0; c < a.pooled_mean.size() && c < b.pooled_mean.size(); c++)
    if (!same_bits(a.pooled_mean[c], b.pooled_mean[c])) {
      differ++;
      ADD_FAILURE() << what << ": pooled mean of " << a.names[c] << " " << a.pooled_mean[c] << " alone, "
                    << b.pooled_mean[c] << " shared";
    }
  return differ;
}

// The four renditions of a w x h reference of n frames.
inline std::vector<Rendition> four(const Clip& ref) {
  std::vector<Rendition> r;
  r.push_back({rendition(ref, ref.w, ref.h, 24, 1), 0});
  r.push_back({rendition(ref, ref.w, ref.h, 12, 2), 0});
  r.push_back({rendition(ref, ref.w / 2, ref.h / 2 + 2, 16, 3), 0});  // smaller, and scaled by the engine
  Clip late = rendition(ref, ref.w, ref.h, 20, 4);
  late.frames.erase(late.frames.begin(), late.frames.begin() + 3);
  r.push_back({std::move(late), 3});  // joins at reference frame 3
  return r;
}

}  // namespace vmafx::test::ladder
