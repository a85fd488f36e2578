// SPDX-License-Identifier: LGPL-2.1-or-later
// Results files in the layouts libvmaf 3.2's CLI writes (--xml, --json, --csv, --sub), byte for byte where the
// inputs are the same: per-frame metrics of the scored frames, pooled min / max / mean / harmonic mean, aggregate
// metrics, numbers as "%.6f" unless more than six zeros follow the decimal point ("%.16f").
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "vmafx/collector.h"
#include "vmafx/status.h"

namespace vmafx {

enum class ResultsFormat { none, xml, json, csv, sub };

// "none", "xml", "json", "csv", "sub" (any case). False for anything else.
bool parse_results_format(const std::string& s, ResultsFormat* out);
const char* results_format_name(ResultsFormat f);

// The libvmaf version whose output layout these files follow; tools that read libvmaf logs check it.
inline constexpr const char* kLibvmafOutputVersion = "3.2.0";

struct ResultsInfo {
  uint32_t width = 0, height = 0;  // XML <params qualityWidth qualityHeight>
  double fps = 0;                  // frames scored per second (JSON "fps", XML <fyi fps>); NaN / inf: null in JSON
  std::string version = kLibvmafOutputVersion;  // JSON "version", XML <VMAF version>
  // Pictures read (libvmaf's pic_cnt): pooling runs over the scored frames of [0, frame_count). 0: collector.frames().
  // A column missing a value on any of those frames gets no pooled values, as in libvmaf.
  uint64_t frame_count = 0;
};

// Replaces the file at `path` with `bytes` so that a reader, a crash or a full disk never leaves a partial file and
// never loses the old one: the bytes go to a new file beside it (".<name>.tmp<pid>.<n>", the old file's permission
// bits or 0666 less the umask), which is flushed to the disk (fsync), renamed over `path`, and the directory synced.
// On any failure the temporary is removed and the old file is left as it was (Errc::io_error naming the path and the
// system's reason, e.g. "No space left on device"). A symbolic link is followed (its target is replaced, the link
// kept); a path that is not a regular file (a FIFO, /dev/stdout, a terminal) is written in place, as there is nothing
// to replace. Safe to call from several threads.
Status write_file_atomically(const std::string& path, const std::string& bytes);

// Writes the results; columns in collector order under their collector names, frames filtered by
// collector.subsample(), aggregate_metrics (XML, JSON) from collector.aggregates() (libvmaf fills them only for
// psnr's enable_apsnr: apsnr_y, apsnr_cb, apsnr_cr; CSV and SUB have none, as libvmaf's). ResultsFormat::none is
// Errc::invalid_argument. The file is written with write_file_atomically(); errors are Errc::io_error naming the path
// and the system's reason.
Status write_results(const Collector& c, ResultsFormat fmt, const ResultsInfo& info, const std::string& path);
Status write_results(const Collector& c, ResultsFormat fmt, const ResultsInfo& info, std::ostream& os);

}  // namespace vmafx
