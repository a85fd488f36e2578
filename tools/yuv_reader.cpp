// SPDX-License-Identifier: LGPL-2.1-or-later
#include "yuv_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <vector>

namespace vmafx::tools {

VideoReader::~VideoReader() {
  if (f_) std::fclose(f_);
}

static bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

Status VideoReader::open(const std::string& path, uint32_t width, uint32_t height, const FormatInfo* fmt) {
  path_ = path;
  f_ = std::fopen(path.c_str(), "rb");
  if (!f_) return {Errc::io_error, "cannot open " + path + ": " + std::strerror(errno)};
  struct stat st;
  if (fstat(fileno(f_), &st) == 0 && S_ISREG(st.st_mode)) {
    regular_file_ = true;
    file_size_ = uint64_t(st.st_size);
  }
  y4m_ = ends_with(path, ".y4m");
  if (y4m_) {
    VMAFX_TRY(parse_y4m_header());
    if ((width && width != width_) || (height && height != height_))
      return {Errc::invalid_argument, path + " is " + std::to_string(width_) + "x" + std::to_string(height_) +
                                          ", not the " + std::to_string(width) + "x" + std::to_string(height) +
                                          " given"};
  } else {
    if (!width || !height || !fmt)
      return {Errc::invalid_argument, path + ": raw .yuv input needs --width, --height, --pixel_format and --bitdepth"};
    width_ = width;
    height_ = height;
    fmt_ = *fmt;
  }
  n_planes_ = packed_layout(fmt_, width_, height_, layout_, &frame_size_);
  return Status::ok();
}

Status VideoReader::parse_y4m_header() {
  char line[1024];
  if (!std::fgets(line, sizeof line, f_) || std::strncmp(line, "YUV4MPEG2", 9) != 0)
    return {Errc::unsupported, path_ + " is not a YUV4MPEG2 file"};
  std::istringstream in(line + 9);
  std::string tok, chroma = "420";
  while (in >> tok) {
    switch (tok[0]) {
      case 'W': width_ = uint32_t(std::stoul(tok.substr(1))); break;
      case 'H': height_ = uint32_t(std::stoul(tok.substr(1))); break;
      case 'C': chroma = tok.substr(1); break;
      case 'I':
        if (tok != "Ip" && tok != "I?")
          return {Errc::unsupported, path_ + ": interlaced y4m (" + tok + ") is not supported"};
        break;
      default: break;
    }
  }
  if (!width_ || !height_) return {Errc::unsupported, path_ + ": y4m header without W/H"};
  unsigned depth = 8;
  std::string base = chroma;
  if (auto p = chroma.find('p'); p != std::string::npos && p + 1 < chroma.size() && std::isdigit(chroma[p + 1])) {
    base = chroma.substr(0, p);
    depth = unsigned(std::stoul(chroma.substr(p + 1)));
  }
  if (base.rfind("420", 0) == 0) base = "420";  // 420jpeg, 420mpeg2, 420paldv
  if (base == "mono") base = "400";
  return parse_pixel_format(base, depth, &fmt_).prepend(path_ + ": y4m colour space C" + chroma);
}

Status VideoReader::skip(uint64_t n) {
  std::vector<uint8_t> tmp(frame_size_);
  for (uint64_t i = 0; i < n; i++) {
    bool got = false;
    VMAFX_TRY(read(tmp.data(), &got));
    if (!got) return {Errc::truncated, path_ + " has fewer than " + std::to_string(n) + " frames to skip"};
  }
  return Status::ok();
}

Status VideoReader::read(uint8_t* buf, bool* got) {
  *got = false;
  if (y4m_) {
    char hdr[256];
    if (!std::fgets(hdr, sizeof hdr, f_)) {
      if (std::ferror(f_)) return {Errc::io_error, path_ + ": " + std::strerror(errno)};
      return Status::ok();
    }
    if (std::strncmp(hdr, "FRAME", 5) != 0)
      return {Errc::unsupported, path_ + ": frame " + std::to_string(frames_read_) + " lacks its FRAME marker"};
  }
  // Luma only: the chroma planes follow the luma plane in the file (packed layout) and are skipped.
  const size_t want = luma_only_.load() && n_planes_ > 1 ? layout_[1].offset : frame_size_;
  size_t n = std::fread(buf, 1, want, f_);
  if (n == 0 && !y4m_) {
    if (std::ferror(f_)) return {Errc::io_error, path_ + ": " + std::strerror(errno)};
    return Status::ok();
  }
  if (n == want && want < frame_size_) {
    const long pos = std::ftell(f_);
    if (pos < 0 || std::fseek(f_, long(frame_size_ - want), SEEK_CUR) != 0)
      return {Errc::io_error, path_ + ": " + std::strerror(errno)};
    // The chroma skipped must exist in the file, or the frame is truncated.
    const uint64_t end = uint64_t(pos) + (frame_size_ - want);
    n = end <= file_size_ ? frame_size_ : size_t(want + (file_size_ - uint64_t(pos)));
  }
  if (n != frame_size_)
    return {Errc::truncated, path_ + ": frame " + std::to_string(frames_read_) + " is truncated (" +
                                 std::to_string(n) + " of " + std::to_string(frame_size_) + " bytes)"};
  frames_read_++;
  *got = true;
  return Status::ok();
}

}  // namespace vmafx::tools
