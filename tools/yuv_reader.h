// SPDX-License-Identifier: LGPL-2.1-or-later
// Reads raw .yuv and .y4m files frame by frame into caller-provided buffers.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>

#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::tools {

class VideoReader {
 public:
  ~VideoReader();
  // .y4m files carry their own geometry (width/height/format given are checked against it when non-zero);
  // raw files need them.
  Status open(const std::string& path, uint32_t width, uint32_t height, const FormatInfo* fmt);
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }
  const FormatInfo& format() const { return fmt_; }
  size_t frame_size() const { return frame_size_; }
  const PlaneLayout* layout() const { return layout_; }
  unsigned planes() const { return n_planes_; }
  // Skips n frames.
  Status skip(uint64_t n);
  // Reads the next frame into `buf` (frame_size() bytes). *got is false at a clean end of file; a partial frame is
  // Errc::truncated.
  Status read(uint8_t* buf, bool* got);
  // With `on`, read() fills only the luma plane of `buf` and skips the chroma planes in the file (when no feature
  // reads chroma); a frame cut short inside its chroma is still Errc::truncated. Regular files only: on a pipe the
  // whole frame is read as before. May be called while another thread is in read(): it applies from the next frame.
  void set_luma_only(bool on) { luma_only_.store(on && regular_file_); }
  const std::string& path() const { return path_; }

 private:
  Status parse_y4m_header();
  std::FILE* f_ = nullptr;
  std::string path_;
  bool y4m_ = false;
  uint32_t width_ = 0, height_ = 0;
  FormatInfo fmt_;
  size_t frame_size_ = 0;
  PlaneLayout layout_[3];
  unsigned n_planes_ = 0;
  uint64_t frames_read_ = 0;
  bool regular_file_ = false;
  uint64_t file_size_ = 0;
  std::atomic<bool> luma_only_{false};
};

}  // namespace vmafx::tools
