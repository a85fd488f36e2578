// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vmafx/status.h"

namespace vmafx {

const char* errc_name(Errc c) {
  switch (c) {
    case Errc::ok: return "ok";
    case Errc::invalid_argument: return "invalid argument";
    case Errc::unsupported: return "unsupported";
    case Errc::io_error: return "i/o error";
    case Errc::truncated: return "truncated input";
    case Errc::model_error: return "model error";
    case Errc::device_unavailable: return "device unavailable";
    case Errc::device_error: return "device error";
    case Errc::out_of_memory: return "out of memory";
    case Errc::out_of_range: return "out of range";
    case Errc::busy: return "busy";
    case Errc::internal: return "internal error";
  }
  return "unknown error";
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  return std::string(errc_name(code_)) + ": " + message_;
}

}  // namespace vmafx
