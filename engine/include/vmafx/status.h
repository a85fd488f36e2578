// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx::Status: the one way the engine reports failure. Every fallible call returns a [[nodiscard]] Status that
// names the cause; nothing in the engine asserts on a runtime result or throws across its API.
#pragma once

#include <string>
#include <utility>

namespace vmafx {

enum class Errc {
  ok = 0,
  invalid_argument,    // a caller passed something the API does not accept
  unsupported,         // a format, geometry or option the engine does not handle
  io_error,            // a file could not be opened, read or written
  truncated,           // input ended inside a frame
  model_error,         // a model file is missing, unreadable or malformed
  device_unavailable,  // no GPU runtime or device usable
  device_error,        // a GPU runtime call failed (sticky until restart)
  out_of_memory,
  out_of_range,        // a plane or offset past the end of its memory
  busy,                // a fence is not yet signalled
  internal,
};

const char* errc_name(Errc c);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Errc code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return {}; }

  bool is_ok() const { return code_ == Errc::ok; }
  explicit operator bool() const { return is_ok(); }
  Errc code() const { return code_; }
  const std::string& message() const { return message_; }
  // "<errc name>: <message>", for logs and the CLI.
  std::string to_string() const;

  // Prefix context to the message ("reading frame 12: ..."), keeping the code.
  Status& prepend(const std::string& context) {
    if (!is_ok()) message_ = context + ": " + message_;
    return *this;
  }

 private:
  Errc code_ = Errc::ok;
  std::string message_;
};

}  // namespace vmafx

#define VMAFX_TRY(expr)                           \
  do {                                            \
    ::vmafx::Status vmafx_try_status_ = (expr);   \
    if (!vmafx_try_status_.is_ok()) return vmafx_try_status_; \
  } while (0)
