// SPDX-License-Identifier: LGPL-2.1-or-later
#include "fixtures.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

namespace vmafx::test {

namespace {

// ---- integer helpers (no floating point anywhere: the bytes must not depend on the compiler or the C library) ----

uint64_t mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint32_t hash3(int64_t a, int64_t b, int64_t c, uint64_t seed) {
  return uint32_t(mix(seed ^ mix(uint64_t(a) ^ mix(uint64_t(b) ^ mix(uint64_t(c))))));
}

// Floor division and its remainder for a positive divisor.
int64_t fdiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && a < 0) q--;
  return q;
}
int64_t fmod_pos(int64_t a, int64_t b) { return a - fdiv(a, b) * b; }
// a / b rounded to nearest, halves up, for a positive divisor.
int64_t round_div(int64_t a, int64_t b) { return fdiv(2 * a + b, 2 * b); }

int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

// Bilinear value noise on a lattice of spacing s: 0 .. 65280.
int64_t value_noise(int64_t x, int64_t y, int64_t s, uint64_t seed) {
  const int64_t i = fdiv(x, s), j = fdiv(y, s), fx = x - i * s, fy = y - j * s;
  auto at = [&](int64_t a, int64_t b) { return int64_t(hash3(a, b, 0, seed) & 255u); };
  const int64_t v = at(i, j) * (s - fx) * (s - fy) + at(i + 1, j) * fx * (s - fy) + at(i, j + 1) * (s - fx) * fy +
                    at(i + 1, j + 1) * fx * fy;
  return v * 256 / (s * s);
}
// Centred value noise scaled to +-amp (amp in 12-bit units).
int64_t noise(int64_t x, int64_t y, int64_t s, uint64_t seed, int64_t amp) {
  return (value_noise(x, y, s, seed) - 32640) * amp / 32640;
}

// ---- the scene, in 12-bit units (8-bit value x 16) ----

struct Disc {
  int64_t cx, cy, r;
};
Disc disc_at(const FixtureSpec& s, unsigned t) {
  return {int64_t(s.width) / 2 + 5 * int64_t(t) - 20, int64_t(s.height) / 2 + 3 * int64_t(t) - 12,
          int64_t(std::min(s.width, s.height)) / 6};
}
bool in_disc(const Disc& d, int64_t x, int64_t y) {
  const int64_t dx = x - d.cx, dy = y - d.cy;
  return dx * dx + dy * dy <= d.r * d.r;
}

int64_t luma12(const FixtureSpec& s, int64_t x, int64_t y, unsigned t) {
  const int64_t W = s.width, H = s.height;
  const int64_t X = x + 2 * int64_t(t), Y = y + int64_t(t);  // the scene pans 2 right, 1 down a frame
  const Disc d = disc_at(s, t);
  if (in_disc(d, x, y)) {
    const int64_t dx = x - d.cx + d.r, dy = y - d.cy + d.r;
    const bool on = ((fdiv(dx, 4) + fdiv(dy, 4)) & 1) != 0;
    return clamp(150 * 16 + (on ? 35 * 16 : -35 * 16) + noise(dx, dy, 3, 3, 8 * 16), 16 * 16, 235 * 16);
  }
  int64_t v = 60 * 16 + Y * 100 * 16 / (H + 16);  // vertical gradient
  // The right quarter: a gentle gradient alone (40 levels over the height; bands once quantised).
  if (x * 4 >= 3 * W) return clamp(90 * 16 + Y * 40 * 16 / (H + 16), 16 * 16, 235 * 16);
  v += noise(X, Y, 32, 1, 20 * 16) + noise(X, Y, 6, 2, 12 * 16);
  if (x * 3 < W) {  // the left third: diagonal stripes
    const int64_t u = fmod_pos(X + fdiv(Y, 2), 20);
    v += ((u < 10 ? u : 20 - u) - 5) * 5 * 16;
  }
  return clamp(v, 16 * 16, 235 * 16);
}

int64_t chroma12(const FixtureSpec& s, int plane, int64_t x, int64_t y, unsigned t) {
  const int64_t W = s.width, H = s.height;
  const int64_t X = x + 2 * int64_t(t), Y = y + int64_t(t);
  const bool disc = in_disc(disc_at(s, t), x, y);
  int64_t v;
  // Gradients, noise at three scales (the finest a lattice of one sample: white noise that moves with the scene).
  if (plane == 1)
    v = 128 * 16 + X * 60 * 16 / (W + 16) - 30 * 16 + noise(X, Y, 16, 4, 10 * 16) + noise(X, Y, 4, 6, 14 * 16) +
        noise(X, Y, 1, 8, 10 * 16) + (disc ? 30 * 16 : 0);
  else
    v = 128 * 16 + 25 * 16 - Y * 50 * 16 / (H + 16) + noise(X, Y, 12, 5, 10 * 16) + noise(X, Y, 5, 7, 14 * 16) +
        noise(X, Y, 1, 9, 10 * 16) - (disc ? 25 * 16 : 0);
  return clamp(v, 16 * 16, 240 * 16);
}

// ---- planes ----

struct Plane {
  uint32_t w = 0, h = 0;
  std::vector<int32_t> v;
  int32_t at(int64_t x, int64_t y) const {  // edges replicated
    x = clamp(x, 0, int64_t(w) - 1);
    y = clamp(y, 0, int64_t(h) - 1);
    return v[size_t(y) * w + size_t(x)];
  }
};

unsigned sub_x(Chroma c) { return c == Chroma::k444 ? 1 : 2; }
unsigned sub_y(Chroma c) { return c == Chroma::k420 ? 2 : 1; }

void reference_planes(const FixtureSpec& s, unsigned t, Plane p[3]) {
  const unsigned sx = sub_x(s.chroma), sy = sub_y(s.chroma);
  const int down = 12 - int(s.bpc);
  for (int k = 0; k < 3; k++) {
    p[k].w = k ? (s.width + sx - 1) / sx : s.width;
    p[k].h = k ? (s.height + sy - 1) / sy : s.height;
    p[k].v.resize(size_t(p[k].w) * p[k].h);
    for (uint32_t y = 0; y < p[k].h; y++)
      for (uint32_t x = 0; x < p[k].w; x++) {
        const int64_t v12 = k ? chroma12(s, k, int64_t(x) * sx, int64_t(y) * sy, t) : luma12(s, x, y, t);
        p[k].v[size_t(y) * p[k].w + x] = int32_t(down >= 0 ? v12 >> down : v12 << -down);
      }
  }
}

// [1 2 1] x [1 2 1] / 16, rounded.
int64_t blur3(const Plane& p, int64_t x, int64_t y) {
  static const int w[3] = {1, 2, 1};
  int64_t sum = 0;
  for (int j = -1; j <= 1; j++)
    for (int i = -1; i <= 1; i++) sum += int64_t(w[i + 1] * w[j + 1]) * p.at(x + i, y + j);
  return (sum + 8) >> 4;
}

void distort(const FixtureSpec& s, unsigned t, Plane p[3]) {
  const int64_t k = int64_t(1) << (s.bpc - 8), max = (int64_t(1) << s.bpc) - 1;
  for (int c = 0; c < 3; c++) {
    Plane in = p[c];
    Plane& out = p[c];
    switch (s.distortion) {
      case Distortion::blurnoise: {
        const int64_t amp = (c ? 3 : 6) * k;
        for (uint32_t y = 0; y < in.h; y++)
          for (uint32_t x = 0; x < in.w; x++) {
            const uint32_t h = hash3(x, y, int64_t(t) * 4 + c, 77);
            const int64_t sum4 = int64_t(h & 255u) + ((h >> 8) & 255u) + ((h >> 16) & 255u) + (h >> 24) - 510;
            out.v[size_t(y) * in.w + x] = int32_t(clamp(blur3(in, x, y) + round_div(sum4 * amp, 256), 0, max));
          }
        break;
      }
      case Distortion::blocky: {
        // 8x8 luma blocks (chroma blocks cover the same picture area); the DC quantised in steps of 3, the detail
        // in steps of 10, 14 or 18 (changing from frame to frame), 8-bit units.
        const uint32_t bw = c ? 8 / sub_x(s.chroma) : 8, bh = c ? 8 / sub_y(s.chroma) : 8;
        const int64_t qd = 3 * k, qa = (10 + 4 * int64_t(t % 3)) * k;
        for (uint32_t by = 0; by < in.h; by += bh)
          for (uint32_t bx = 0; bx < in.w; bx += bw) {
            const uint32_t ex = std::min(in.w, bx + bw), ey = std::min(in.h, by + bh);
            int64_t sum = 0, n = 0;
            for (uint32_t y = by; y < ey; y++)
              for (uint32_t x = bx; x < ex; x++, n++) sum += in.at(x, y);
            const int64_t mean = (sum + n / 2) / n, dc = round_div(mean, qd) * qd;
            for (uint32_t y = by; y < ey; y++)
              for (uint32_t x = bx; x < ex; x++)
                out.v[size_t(y) * in.w + x] = int32_t(clamp(dc + round_div(in.at(x, y) - mean, qa) * qa, 0, max));
          }
        break;
      }
      case Distortion::ringing: {
        // Blurred twice (detail lost), sharpened back by unsharp masking (halos at edges), posterised in steps of
        // 3 (8-bit units: bands in gradients).
        const int64_t q = 3 * k;
        Plane b1 = in, b2 = in;
        for (uint32_t y = 0; y < in.h; y++)
          for (uint32_t x = 0; x < in.w; x++) b1.v[size_t(y) * in.w + x] = int32_t(blur3(in, x, y));
        for (uint32_t y = 0; y < in.h; y++)
          for (uint32_t x = 0; x < in.w; x++) b2.v[size_t(y) * in.w + x] = int32_t(blur3(b1, x, y));
        for (uint32_t y = 0; y < in.h; y++)
          for (uint32_t x = 0; x < in.w; x++) {
            const int64_t v = b2.at(x, y), sharp = v + (v - blur3(b2, x, y)) * 2;
            out.v[size_t(y) * in.w + x] = int32_t(clamp(fdiv(sharp, q) * q + q / 2, 0, max));
          }
        break;
      }
    }
  }
}

std::string clip_path(const std::string& dir, const FixtureSpec& s, bool distorted) {
  return dir + "/" + s.prefix + "_" + (distorted ? distortion_name(s.distortion) : "ref") + ".yuv";
}

Status write_clip(const FixtureSpec& s, bool distorted, bool floor_chroma, const std::string& path) {
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return {Errc::io_error, "cannot write " + tmp + ": " + std::strerror(errno)};
  bool ok = true;
  for (unsigned t = 0; t < s.frames && ok; t++) {
    const std::vector<uint8_t> bytes = fixture_frame(s, t, distorted, floor_chroma);
    ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  }
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return {Errc::io_error, "writing " + path + " failed"};
  }
  return Status::ok();
}

// The per-process folder and the clips written into it, removed when the process that wrote them exits (not by a
// forked child that exits normally while its parent still reads them).
struct FixtureFolder {
  std::string dir;
  pid_t owner = 0;
  std::mutex mu;
  std::set<std::string> written;
  ~FixtureFolder() {
    if (owner != ::getpid()) return;
    for (const auto& p : written) std::remove(p.c_str());
    if (!dir.empty()) ::rmdir(dir.c_str());
  }
};

FixtureFolder& folder() {
  static FixtureFolder f;
  return f;
}

}  // namespace

const char* distortion_name(Distortion d) {
  switch (d) {
    case Distortion::blurnoise: return "blurnoise";
    case Distortion::blocky: return "blocky";
    case Distortion::ringing: return "ringing";
  }
  return "?";
}

const std::vector<FixtureSpec>& fixture_specs() {
  static const std::vector<FixtureSpec> kSpecs = {
      {"g1_352x320_8b_420", Distortion::blurnoise, 352, 320, 8, Chroma::k420, 8},
      {"g2_333x326_10b_420", Distortion::blocky, 333, 326, 10, Chroma::k420, 8},
      {"g3_301x247_8b_422", Distortion::ringing, 301, 247, 8, Chroma::k422, 8},
      {"g4_240x180_10b_444", Distortion::blurnoise, 240, 180, 10, Chroma::k444, 8},
      {"g5_321x243_8b_420", Distortion::blocky, 321, 243, 8, Chroma::k420, 8},
  };
  return kSpecs;
}

const FixtureSpec& long_fixture_spec() {
  static const FixtureSpec kLong = {"g6_256x144_8b_420", Distortion::ringing, 256, 144, 8, Chroma::k420, 32};
  return kLong;
}

std::vector<uint8_t> fixture_frame(const FixtureSpec& spec, unsigned frame, bool distorted, bool floor_chroma) {
  Plane p[3];
  reference_planes(spec, frame, p);
  if (distorted) distort(spec, frame, p);
  const size_t bytes = spec.bpc > 8 ? 2 : 1;
  std::vector<uint8_t> out;
  out.reserve((p[0].v.size() + p[1].v.size() + p[2].v.size()) * bytes);
  for (int k = 0; k < 3; k++) {
    const uint32_t w = k && floor_chroma ? spec.width / sub_x(spec.chroma) : p[k].w;
    const uint32_t h = k && floor_chroma ? spec.height / sub_y(spec.chroma) : p[k].h;
    for (uint32_t y = 0; y < h; y++)
      for (uint32_t x = 0; x < w; x++) {
        const int32_t v = p[k].v[size_t(y) * p[k].w + x];
        out.push_back(uint8_t(v & 0xff));
        if (bytes == 2) out.push_back(uint8_t(v >> 8));
      }
  }
  return out;
}

Status write_fixture(const FixtureSpec& spec, const std::string& dir, bool floor_chroma) {
  VMAFX_TRY(write_clip(spec, false, floor_chroma, clip_path(dir, spec, false)));
  return write_clip(spec, true, floor_chroma, clip_path(dir, spec, true));
}

const std::string& fixture_dir() {
  FixtureFolder& f = folder();
  std::lock_guard<std::mutex> lk(f.mu);
  if (f.dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string d = std::string(tmp && *tmp ? tmp : "/tmp") + "/vmafx_fixtures_" + std::to_string(::getpid());
    if (::mkdir(d.c_str(), 0700) != 0 && errno != EEXIST) {
      std::fprintf(stderr, "fixtures: cannot create %s: %s\n", d.c_str(), std::strerror(errno));
      std::abort();
    }
    std::vector<FixtureSpec> all = fixture_specs();
    all.push_back(long_fixture_spec());
    for (const FixtureSpec& s : all) {
      const Status st = write_fixture(s, d);
      if (!st) {
        std::fprintf(stderr, "fixtures: %s\n", st.message().c_str());
        std::abort();
      }
      f.written.insert(clip_path(d, s, false));
      f.written.insert(clip_path(d, s, true));
    }
    f.dir = d;
    f.owner = ::getpid();
  }
  return f.dir;
}

}  // namespace vmafx::test
