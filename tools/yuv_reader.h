// SPDX-License-Identifier: LGPL-2.1-or-later
// Reads raw .yuv and .y4m files frame by frame, either by mapping the file (frames are handed out as pointers into
// the mapping: no copy on the host) or with read() into caller-provided buffers.
//
// Mapped mode (ReadMode::mmap, regular files only): the file is mapped read-only (MAP_PRIVATE) once at open with the
// size it had then; frames are located inside the mapping with the same rules, end-of-file and truncation messages
// as the read path (a .y4m file's FRAME lines are parsed where they are, so FRAME parameters are fine). Nothing is
// released per frame: the mapping lives until the reader is destroyed. Frames appended after open are not seen. A
// file that shrinks while mapped would raise SIGBUS on the next access of a page past its new end: a process-wide
// SIGBUS handler recognises addresses inside a reader's mapping, prints "vmafx-score: PATH shrank while being read
// ..." and exits with status 1 (faults anywhere else keep the default action).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "vmafx/picture.h"
#include "vmafx/status.h"

namespace vmafx::tools {

enum class ReadMode { read, mmap };
const char* read_mode_name(ReadMode m);  // "read", "mmap"

// Largest width or height accepted, from the command line or a .y4m header (16K video is 15360 wide).
inline constexpr uint32_t kMaxDimension = 32768;

// What the command line says about an input; 0 / empty: not given.
struct InputParams {
  uint32_t width = 0, height = 0;
  std::string pixel_format;  // --pixel_format as given ("420", "nv12", ...)
  unsigned bit_depth = 0;
  // A .y4m header's size stands as it is: width and height describe raw input only (vmafx-score's distorted inputs,
  // which may be of another size than the reference). Pixel format and bit depth are still checked.
  bool size_from_y4m_header = false;
};

class VideoReader {
 public:
  VideoReader() = default;
  ~VideoReader();
  VideoReader(const VideoReader&) = delete;
  VideoReader& operator=(const VideoReader&) = delete;

  // A file (or pipe) that starts with "YUV4MPEG2" is a .y4m stream whatever its name: its header gives the geometry,
  // and whatever `given` holds must agree with it (Errc::invalid_argument naming both). Anything else is raw and
  // needs given.width and given.height (pixel format default "420", bit depth default that of the format: 8, or 10
  // for p010 and 16 for p016). `want` mmap maps regular files and falls back to read() otherwise (mode_note() says
  // why).
  Status open(const std::string& path, const InputParams& given, ReadMode want = ReadMode::read);
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }
  const FormatInfo& format() const { return fmt_; }
  // Width, height, bit depth and chroma subsampling, as the scorer's StreamGeometry takes them.
  VideoGeometry geometry() const { return {width_, height_, uint8_t(fmt_.bit_depth), fmt_.chroma}; }
  size_t frame_size() const { return frame_size_; }
  // Bytes of the luma plane at the start of a frame (the whole frame for 4:0:0).
  size_t luma_size() const { return n_planes_ > 1 ? layout_[1].offset : frame_size_; }
  const PlaneLayout* layout() const { return layout_; }
  unsigned planes() const { return n_planes_; }
  const std::string& path() const { return path_; }
  bool is_y4m() const { return y4m_; }

  // The mode in use and, for read, why not mmap ("VMAFX_READER=read", "not a regular file", "mmap failed: ...").
  ReadMode mode() const { return mode_; }
  const std::string& mode_note() const { return mode_note_; }
  // Size of a regular file when it was opened (0 otherwise).
  uint64_t file_size() const { return file_size_; }
  // Frames in a regular file as it was when opened, counted from its size (a .y4m file's FRAME lines taken as the
  // bare "FRAME\n"); 0 when not known (a pipe). For a progress estimate, never for framing.
  uint64_t frames_estimate() const;
  // The .y4m header's colour space tag ("420jpeg", "420p10", ...), empty for raw input.
  const std::string& y4m_colour_space() const { return y4m_chroma_; }

  // Skips n frames.
  Status skip(uint64_t n);
  // Reads the next frame into `buf` (frame_size() bytes). *got is false at a clean end of file; a partial frame is
  // Errc::truncated. Works in both modes (mapped: a copy out of the mapping).
  Status read(uint8_t* buf, bool* got);
  // With `on`, read() fills only the luma plane of `buf` and skips the chroma planes in the file (when no feature
  // reads chroma); a frame cut short inside its chroma is still Errc::truncated. Regular files only: on a pipe the
  // whole frame is read as before. May be called while another thread is in read(): it applies from the next frame.
  // In mapped mode it only narrows what MappedPrefetch touches.
  void set_luma_only(bool on) { luma_only_.store(on && regular_file_); }
  bool luma_only() const { return luma_only_.load(); }

  // ---- Mapped mode ----
  // A position in the file: byte offset of the next frame (of its FRAME line in a .y4m file) and its frame number.
  struct Cursor {
    uint64_t pos = 0;
    uint64_t index = 0;
  };
  // Where the consumer's next frame starts (after skip()).
  Cursor cursor() const { return cursor_; }
  // The frame at *c: *frame points at its frame_size() bytes inside the mapping and *c moves past it; *got is false
  // at a clean end of file. Same errors as read(). Only reads the mapping, so other threads may locate frames with
  // their own cursors while the consumer calls next_mapped().
  Status locate(Cursor* c, const uint8_t** frame, bool* got) const;
  // The consumer's next frame (locate() on the reader's own cursor).
  Status next_mapped(const uint8_t** frame, bool* got);

 private:
  Status parse_y4m_header();
  Status check_given(const InputParams& given) const;
  Status map_file(int fd);
  Status truncated_error(uint64_t index, uint64_t have) const;

  std::FILE* f_ = nullptr;
  std::string path_;
  bool y4m_ = false;
  std::string y4m_chroma_;
  // Bytes read from a pipe to tell raw from .y4m: the start of a raw stream's first frame, read() takes them first.
  std::string pending_;
  uint32_t width_ = 0, height_ = 0;
  FormatInfo fmt_;
  size_t frame_size_ = 0;
  PlaneLayout layout_[3];
  unsigned n_planes_ = 0;
  uint64_t frames_read_ = 0;
  bool regular_file_ = false;
  uint64_t file_size_ = 0;
  std::atomic<bool> luma_only_{false};

  ReadMode mode_ = ReadMode::read;
  std::string mode_note_;
  const uint8_t* map_ = nullptr;  // the mapping (null when nothing is mapped)
  uint64_t map_size_ = 0;         // bytes mapped
  uint64_t data_start_ = 0;       // first frame's offset (after a .y4m file's header)
  Cursor cursor_;
  int guard_slot_ = -1;           // this mapping's entry in the SIGBUS handler's table
};

// Helper threads for a mapped reader. Ahead of the consumer they touch the frames it will hand to the scorer
// (MADV_POPULATE_READ where the kernel has it, then one read per page), so that page-table population and
// first-access costs are paid while the GPU runtime starts up and off the scorer's path: the luma plane only while
// the reader is luma-only, at most `window_bytes` of frames ahead of consumed(), `limit` frames at most (0: to the end
// of the file). Behind the consumer they drop the page-table entries of frames the scorer has released
// (MADV_DONTNEED, in runs of 8 MB; with zero helper threads the thread that releases a frame does it), so that the
// mapped pages of an input in the process's resident set stay within the window, the frames in flight and one run,
// whatever the file's length, and the process does not tear down a whole file's worth of them when it exits. The
// mapping itself stays until the reader goes. Correctness never depends on either: the consumer reads the mapping
// the same way with zero helper threads.
class MappedPrefetch {
 public:
  MappedPrefetch(const VideoReader& reader, uint64_t limit, uint64_t window_bytes, unsigned threads);
  ~MappedPrefetch();
  MappedPrefetch(const MappedPrefetch&) = delete;
  MappedPrefetch& operator=(const MappedPrefetch&) = delete;

  // The consumer has taken `frames` frames since the prefetch started.
  void consumed(uint64_t frames);
  // A new bound for how far ahead the helpers touch (from the next frame they take).
  void set_window(uint64_t window_bytes);
  // The scorer no longer reads frame `index` (counted like consumed(): 0 is the first frame taken after the prefetch
  // started), which occupies [begin, end) of the mapping. Any thread, any order; cheap (a release callback).
  void released(uint64_t index, const uint8_t* begin, const uint8_t* end);

  unsigned threads() const { return unsigned(threads_.size()); }
  // Frames touched so far and their bytes; whether MADV_POPULATE_READ worked; bytes whose page-table entries were
  // dropped.
  uint64_t frames_done() const { return frames_done_.load(); }
  uint64_t bytes_done() const { return bytes_done_.load(); }
  bool populate_used() const { return populate_ok_.load(); }
  uint64_t bytes_dropped() const { return bytes_dropped_.load(); }

 private:
  void run();
  void touch(const uint8_t* begin, size_t bytes);
  void drop(uintptr_t begin, uintptr_t end);
  bool prefetch_over() const { return end_ || (limit_ && taken_ >= limit_); }
  bool room() const;
  bool drop_ready() const;

  const VideoReader& reader_;
  const uint64_t limit_;
  uint64_t window_bytes_;  // under mu_
  mutable std::mutex mu_;
  std::condition_variable cv_;
  VideoReader::Cursor cursor_;  // next frame to hand to a helper
  uint64_t taken_ = 0;          // frames handed to helpers
  uint64_t consumed_ = 0;
  unsigned waiting_ = 0;        // helpers asleep
  bool stop_ = false, end_ = false;
  // Releases: frames [0, next_release_) are all released, the last one ending at release_end_; later ones that
  // came early wait in early_.
  uint64_t next_release_ = 0;
  uintptr_t release_end_ = 0, drop_from_ = 0;
  std::vector<std::pair<uint64_t, uintptr_t>> early_;
  std::atomic<uint64_t> frames_done_{0}, bytes_done_{0}, bytes_dropped_{0};
  std::atomic<bool> populate_ok_{true};
  std::vector<std::thread> threads_;
};

}  // namespace vmafx::tools
