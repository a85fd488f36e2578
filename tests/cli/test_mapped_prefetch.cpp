// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx-score's mapped input keeps a bounded resident set: the prefetch touches at most its window ahead of the
// consumer, and the page-table entries of released frames are dropped as the scorer releases them, with or without
// helper threads (VMAFX_PREFETCH=0), so a long file does not end up wholly in the process's resident set.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "assert_ok.h"
#include "yuv_reader.h"

namespace {

using vmafx::tools::InputParams;
using vmafx::tools::MappedPrefetch;
using vmafx::tools::ReadMode;
using vmafx::tools::VideoReader;

constexpr uint32_t kSize = 512;                       // 512x512 4:2:0: 393,216 bytes a frame
constexpr uint64_t kFrames = 96;                      // 36 MiB
constexpr size_t kFrameBytes = kSize * kSize * 3 / 2;

std::string make_file() {
  char path[] = "/tmp/vmafx-prefetch-XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  std::vector<uint8_t> frame(kFrameBytes);
  for (uint64_t i = 0; i < kFrames; i++) {
    for (size_t j = 0; j < frame.size(); j++) frame[j] = uint8_t(i * 7 + j);
    EXPECT_EQ(write(fd, frame.data(), frame.size()), ssize_t(frame.size()));
  }
  close(fd);
  return path;
}

void open_mapped(const std::string& path, VideoReader* reader) {
  InputParams given;
  given.width = given.height = kSize;
  ASSERT_OK(reader->open(path, given, ReadMode::mmap));
  ASSERT_EQ(reader->mode(), ReadMode::mmap);
}

// The process's resident pages, file-backed ones included (/proc/self/statm), in bytes.
long resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return -1;
  long size = 0, resident = 0;
  const int n = std::fscanf(f, "%ld %ld", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * sysconf(_SC_PAGESIZE) : -1;
}

// Reads every frame the way vmafx-score's scorer does (every byte), releasing each one after reading it; returns the
// largest growth of the resident set seen.
long consume_all(VideoReader& reader, MappedPrefetch& prefetch) {
  const long base = resident_bytes();
  long peak = 0;
  uint64_t sum = 0;
  for (uint64_t i = 0;; i++) {
    const uint8_t* p = nullptr;
    bool got = false;
    EXPECT_TRUE(reader.next_mapped(&p, &got).is_ok());
    if (!got) break;
    for (size_t j = 0; j < kFrameBytes; j++) sum += p[j];
    prefetch.released(i, p, p + kFrameBytes);
    prefetch.consumed(i + 1);
    peak = std::max(peak, resident_bytes() - base);
  }
  EXPECT_NE(sum, 0u);
  return peak;
}

TEST(MappedPrefetch, WithoutHelpersTheReleasingThreadDropsReleasedFrames) {
  const std::string path = make_file();
  VideoReader reader;
  ASSERT_NO_FATAL_FAILURE(open_mapped(path, &reader));
  long peak = 0;
  {
    MappedPrefetch prefetch(reader, 0, 4 * kFrameBytes, 0);
    peak = consume_all(reader, prefetch);
    // Everything but the last run (8 MiB) and the page the next frame starts in is dropped.
    EXPECT_GE(prefetch.bytes_dropped(), kFrames * kFrameBytes - (uint64_t(8) << 20) - kFrameBytes);
  }
  // The whole file is 36 MiB; resident at once: one run of 8 MiB and the frame being read, plus slack for the
  // allocator and the test's own pages.
  EXPECT_LT(peak, long(16) << 20) << "resident set grew by " << (peak >> 20) << " MiB reading a 36 MiB file";
  unlink(path.c_str());
}

TEST(MappedPrefetch, HelpersTouchNoFurtherThanTheWindowAndDropBehind) {
  const std::string path = make_file();
  VideoReader reader;
  ASSERT_NO_FATAL_FAILURE(open_mapped(path, &reader));
  MappedPrefetch prefetch(reader, 0, 4 * kFrameBytes, 2);
  // Nothing consumed yet: the helpers stop at the window (4 frames). Waits up to 60 s for them to get there (a loaded
  // machine), then 200 ms more to see that they stay there.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (prefetch.frames_done() < 4 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(prefetch.frames_done(), 4u) << "the helpers did not touch the window's 4 frames within 60 s";
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(prefetch.frames_done(), 4u) << "the helpers touched past the window";
  // A wider window lets them go on.
  prefetch.set_window(8 * kFrameBytes);
  const auto deadline2 = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (prefetch.frames_done() < 8 && std::chrono::steady_clock::now() < deadline2)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(prefetch.frames_done(), 8u);
  consume_all(reader, prefetch);
  // The helpers drop behind the consumer (asynchronously: waits up to 60 s for them).
  const uint64_t want = kFrames * kFrameBytes - (uint64_t(8) << 20) - kFrameBytes;
  const auto deadline3 = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (prefetch.bytes_dropped() < want && std::chrono::steady_clock::now() < deadline3)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_GE(prefetch.bytes_dropped(), want) << "released frames' page-table entries not dropped within 60 s";
  unlink(path.c_str());
}

}  // namespace
