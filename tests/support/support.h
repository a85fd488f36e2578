// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helpers: where the shared oracle lives, libvmaf JSON oracles, raw .yuv clips as picture views.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vmafx/picture.h"
#include "vmafx/scorer.h"
#include "vmafx/status.h"

namespace vmafx::test {

// ../shared/testdata beside the checkout (VMAFX_SHARED_DIR overrides), and our own tests/data.
std::string shared_testdata_dir();
std::string shared_models_dir();
// The project's source tree: $VMAFX_SOURCE_DIR when set (a copy of the tree elsewhere, e.g. on a GPU machine),
// else the tree the tests were built from.
std::string project_source_dir();
std::string project_data_dir();  // tests/data
std::string project_models_dir();  // engine/models
bool file_exists(const std::string& path);
// A file of this build at `relative` from the running test binary's folder (a build directory copied elsewhere, as
// to a GPU machine), else `built_at` (where the build put it).
std::string beside_test_binary(const std::string& relative, const std::string& built_at);
// Writes `size` bytes to `path` (created or truncated); io_error naming the path on failure.
Status write_file(const std::string& path, const void* data, size_t size);
inline Status write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  return write_file(path, bytes.data(), bytes.size());
}
// libvmaf's --pixel_format name of a subsampling ("420", "422", "444").
const char* chroma_arg(Chroma c);

// libvmaf's --json output: frames[i].metrics and pooled_metrics.
struct Oracle {
  std::vector<std::map<std::string, double>> frames;  // indexed by position in the file
  std::vector<unsigned> frame_num;                    // frameNum of each entry
  std::map<std::string, std::map<std::string, double>> pooled;  // metric -> {min,max,mean,harmonic_mean}
};
Status load_oracle(const std::string& path, Oracle* out);

// A raw clip: whole file in memory, frames as picture views.
class YuvClip {
 public:
  Status open(const std::string& path, uint32_t width, uint32_t height, const FormatInfo& fmt);
  size_t frames() const { return frame_size_ ? data_.size() / frame_size_ : 0; }
  PictureView frame(size_t i) const;
  size_t frame_size() const { return frame_size_; }
  const uint8_t* frame_data(size_t i) const { return data_.data() + i * frame_size_; }
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }
  const FormatInfo& format() const { return fmt_; }

 private:
  std::vector<uint8_t> data_;
  size_t frame_size_ = 0;
  uint32_t width_ = 0, height_ = 0;
  FormatInfo fmt_;
  PlaneLayout layout_[3];
  unsigned n_planes_ = 0;
};

// A reference/distorted pair with libvmaf's JSON: a generated pair (tests/support/fixtures.h; clips written at run
// time, libvmaf's JSON in tests/data/generated) or a public pair of ../shared/testdata.
struct Pair {
  std::string prefix;     // e.g. "a_576x324_8b", "g1_352x320_8b_420"
  std::string distorted;  // e.g. "x264crf35", "blurnoise"
  uint32_t width, height;
  unsigned bpc;
  Chroma chroma = Chroma::k420;
  bool generated = false;
  std::string ref_path() const;
  std::string dist_path() const;
  std::string oracle_path(const std::string& model_suffix) const;  // e.g. "vmaf_v0.6.1"
  std::string name() const;  // "<prefix>_<distorted>", e.g. "a_576x324_8b_x264crf35"
  std::string test_name() const;  // name() with every character but letters and digits as '_' (a gtest name)
  VideoGeometry geometry() const { return {width, height, uint8_t(bpc), chroma}; }
};
// The five public pairs of ../shared/testdata, present or not.
std::vector<Pair> public_pairs();
// The generated pairs: always there.
std::vector<Pair> generated_pairs();
// The longer generated pair (32 frames, 256x144 8-bit 4:2:0; only its vmaf_v0.6.1 JSON, with psnr): for tests that
// seek, cut or drop frames. Not among generated_pairs().
Pair long_pair();
// What the oracle tests check: every generated pair, then the public pairs whose clips are present (none without
// ../shared; a note on stdout names those left out, once per process).
std::vector<Pair> oracle_pairs();
// Whether the pair has libvmaf's JSON `suffix` (Pair::oracle_path): for a generated pair, whether
// tests/data/generated should hold it (the list of its README's commands; test_oracle checks that the folder holds
// exactly these); for a public pair, whether ../shared/testdata holds it.
bool has_oracle(const Pair& p, const std::string& suffix);
// Every oracle suffix of a generated pair, in the order of tests/data/generated/README.md.
std::vector<std::string> generated_oracles(const Pair& p);
// The 4:2:0 pairs of oracle_pairs() (g1, g2 10-bit, g5 odd-sized, and the public pairs present), for suites written
// for 4:2:0 clips; the names of the public pairs absent are appended to *absent (when not null).
std::vector<Pair> oracle_pairs_420(std::vector<std::string>* absent);
// Whether ../shared/testdata (or $VMAFX_SHARED_DIR/testdata) holds the public clips.
bool shared_testdata_present();
// The first public pair whose prefix starts with `prefix` ("b_", "c_321x241_8b"); null when none does.
const Pair* find_public_pair(const std::string& prefix);
// The generated pair whose prefix starts with `prefix` ("g2_"); null when none does.
const Pair* find_generated_pair(const std::string& prefix);
// One pair of a kind (10-bit, odd-sized, ...): the generated pair whose prefix starts with `generated_prefix` and,
// when its clips are present, the public pair whose prefix starts with `public_prefix`.
std::vector<Pair> pairs_of_kind(const std::string& generated_prefix, const std::string& public_prefix);
// The public pairs whose two clips are present; the names of the others are appended to *absent.
std::vector<Pair> present_pairs(std::vector<std::string>* absent);
// Prints the pairs a test checked and those it could not (clips absent: " none" when there are none).
void print_pair_coverage(const std::vector<std::string>& checked, const std::vector<std::string>& absent);

// The two clips of a pair, opened as planar YUV of the pair's subsampling and depth. Fails when either cannot be
// read, when the reference holds no frame, or when the two hold different numbers of frames.
struct PairClips {
  YuvClip ref, dist;
};
Status open_pair_clips(const Pair& p, PairClips* out);
// The pair's libvmaf JSON for `model` ("vmaf_v0.6.1", "vmaf_v0.6.1neg"). Fails unless it holds `frames` entries,
// numbered 0, 1, 2, ... in order.
Status load_pair_oracle(const Pair& p, const std::string& model, size_t frames, Oracle* out);

// The shipped synthetic sample pair (samples/, 320x240 I420, 24 frames), unpacked once per process into the test's
// temporary directory and opened. Needs no ../shared.
Status open_sample_pair(PairClips* out);

}  // namespace vmafx::test

// ---- Scoring in tests: the scorer's frames collected as on_frame hands them out ----------------------------------
namespace vmafx::test {

// Every FrameScore a scorer handed out, in order; safe to read while the scorer runs.
class FrameLog {
 public:
  void add(const FrameScore& fs) {
    std::lock_guard<std::mutex> lk(mu_);
    frames_.push_back(fs);
    cv_.notify_all();
  }
  std::vector<FrameScore> frames() const {
    std::lock_guard<std::mutex> lk(mu_);
    return frames_;
  }
  size_t size() const {
    std::lock_guard<std::mutex> lk(mu_);
    return frames_.size();
  }
  // Waits until at least n frames came out or `seconds` passed; returns whether they did.
  bool wait_for(size_t n, double seconds) {
    std::unique_lock<std::mutex> lk(mu_);
    return cv_.wait_for(lk, std::chrono::duration<double>(seconds), [&] { return frames_.size() >= n; });
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<FrameScore> frames_;
};

// A config with one model (or none for "") and the named extra features without options, with the engine's tuning
// variables of the environment (vmafx/tuning.h) as the test program's settings.
ScorerConfig scorer_config(const std::string& model, std::initializer_list<const char*> features = {});
// Sets cfg.on_frame to feed *log, creates the scorer for equal reference and distorted geometry.
Status make_scorer(ScorerConfig cfg, const VideoGeometry& g, FrameLog* log, std::unique_ptr<Scorer>* out);
FramePair frame_pair(const PictureView& ref, const PictureView& dist, int64_t timestamp, uint64_t user,
                     std::function<void()> release = {});

}  // namespace vmafx::test
