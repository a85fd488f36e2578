// SPDX-License-Identifier: LGPL-2.1-or-later
// The results file (results-filename, results-format): proven writable when the element starts, written in
// libvmaf's layout at the end of the stream, and removed at stop when the element created it and never wrote it.
#pragma once

#include <string>

#include "vmafx/collector.h"
#include "vmafx/output.h"
#include "vmafx/status.h"

namespace vmafx::gst {

class ResultsFile {
 public:
  // At the start: opens `path` for append (creating it when missing, never truncating it). Empty path: no file.
  Status open(const std::string& path, ResultsFormat format);
  bool wanted() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  ResultsFormat format() const { return format_; }
  Status write(const Collector& c, const ResultsInfo& info);
  // At stop: removes a file this element created and did not write.
  void close();

 private:
  std::string path_;
  ResultsFormat format_ = ResultsFormat::json;
  bool existed_ = true;
  bool written_ = false;
};

}  // namespace vmafx::gst
