// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gstvmafxhipresults.h"

#include <glib.h>
#include <glib/gstdio.h>

#include <cerrno>
#include <cstdio>

namespace vmafx::gst {

Status ResultsFile::open(const std::string& path, ResultsFormat format) {
  path_ = path;
  format_ = format == ResultsFormat::none ? ResultsFormat::json : format;
  written_ = false;
  existed_ = true;
  if (path_.empty()) return Status::ok();
  existed_ = g_file_test(path_.c_str(), G_FILE_TEST_EXISTS);
  FILE* f = g_fopen(path_.c_str(), "a");
  if (!f) {
    const int err = errno;
    const std::string p = path_;
    path_.clear();
    return {Errc::io_error, p + ": " + g_strerror(err)};
  }
  fclose(f);
  return Status::ok();
}

Status ResultsFile::write(const Collector& c, const ResultsInfo& info) {
  if (path_.empty()) return Status::ok();
  VMAFX_TRY(write_results(c, format_, info, path_));
  written_ = true;
  return Status::ok();
}

void ResultsFile::close() {
  if (!path_.empty() && !written_ && !existed_) g_unlink(path_.c_str());
  path_.clear();
  existed_ = true;
}

}  // namespace vmafx::gst
