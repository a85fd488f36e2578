// SPDX-License-Identifier: LGPL-2.1-or-later
// SHA-256 (FIPS 180-4): the names of vmafx-batch's result files and the checksums inside them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vmafx::tools::batch {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  // The digest; the object is spent afterwards (construct a new one to hash again).
  std::array<uint8_t, 32> finish();
  // finish() as 64 lower-case hex digits.
  std::string hex();

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t fill_ = 0;
  uint64_t bytes_ = 0;
};

std::string sha256_hex(std::string_view data);

}  // namespace vmafx::tools::batch
