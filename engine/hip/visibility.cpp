// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/visibility.h"

#include <algorithm>
#include <cctype>

namespace vmafx::hip {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A decimal integer with an optional sign, nothing else; false for anything else (and for values that overflow).
bool parse_index(std::string_view s, long* out) {
  if (s.empty()) return false;
  bool negative = false;
  if (s.front() == '-' || s.front() == '+') {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s.size() > 9) return false;
  long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = negative ? -v : v;
  return true;
}

std::string quoted(const VisibilitySetting& s) { return s.name + "=\"" + s.value + "\""; }

}  // namespace

std::vector<std::string> visibility_variables(Vendor vendor) {
  switch (vendor) {
    case Vendor::amd: return {"ROCR_VISIBLE_DEVICES", kHipVisibleDevices, "CUDA_VISIBLE_DEVICES"};
    case Vendor::nvidia: return {"CUDA_VISIBLE_DEVICES"};
    case Vendor::auto_select: break;
  }
  return {};
}

std::vector<VisibilitySetting> visibility_settings(Vendor vendor,
                                                   const std::function<const char*(const char*)>& getenv) {
  std::vector<VisibilitySetting> out;
  for (const std::string& name : visibility_variables(vendor))
    if (const char* v = getenv(name.c_str())) out.push_back({name, v});
  return out;
}

std::string describe_settings(const std::vector<VisibilitySetting>& settings) {
  std::string s;
  for (const VisibilitySetting& v : settings) s += (s.empty() ? "" : ", ") + quoted(v);
  return s;
}

bool hides_every_device(std::string_view value) {
  const std::string_view first = trim(value.substr(0, value.find(',')));
  if (trim(value).empty()) return true;
  long v = 0;
  return parse_index(first, &v) && v < 0;
}

Status no_gpu_visible(const std::vector<VisibilitySetting>& settings, const std::string& detail) {
  std::string what;
  for (const VisibilitySetting& v : settings) {
    if (hides_every_device(v.value)) {
      what = quoted(v) + " hides every device";
      break;
    }
  }
  if (what.empty()) {
    what = describe_settings(settings) + (settings.size() == 1 ? " names no device" : " leave no device visible");
  }
  return {Errc::device_unavailable, "no GPU visible: " + what + (detail.empty() ? "" : "; " + detail)};
}

Status select_visible(std::string_view value, int cuda_count, std::vector<int>* ordinals) {
  ordinals->clear();
  const VisibilitySetting setting{kHipVisibleDevices, std::string(value)};
  // A value that is empty (or only spaces) hides every device, as CUDA_VISIBLE_DEVICES="" does.
  if (trim(value).empty()) return no_gpu_visible({setting}, "");
  // Every entry must be an index, also past the end of the list (a typo is said, wherever it is).
  std::vector<long> entries;
  for (size_t start = 0;;) {
    const size_t comma = value.find(',', start);
    const std::string_view raw = value.substr(start, comma == std::string_view::npos ? value.npos : comma - start);
    long index = 0;
    if (!parse_index(trim(raw), &index))
      return {Errc::invalid_argument, quoted(setting) + ": entry \"" + std::string(raw) +
                                          "\" is not a device index (a comma-separated list of indices into the " +
                                          std::to_string(cuda_count) + " device(s) CUDA shows, e.g. \"0,1\")"};
    entries.push_back(index);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::vector<int> picked;
  std::string stop;  // why the list ended early, for the message of an empty list
  for (long index : entries) {
    if (index < 0) {
      stop = "the negative entry " + std::to_string(index) + " ends the list";
      break;
    }
    if (index >= cuda_count) {
      stop = "index " + std::to_string(index) + " is past the " + std::to_string(cuda_count) +
             " device(s) CUDA shows, which ends the list";
      break;
    }
    if (std::find(picked.begin(), picked.end(), int(index)) != picked.end()) {
      // CUDA's rule for CUDA_VISIBLE_DEVICES: a repeated ordinal leaves no device visible.
      return no_gpu_visible({setting}, "index " + std::to_string(index) +
                                           " is listed twice, which leaves no device visible (CUDA's rule)");
    }
    picked.push_back(int(index));
  }
  if (picked.empty()) return no_gpu_visible({setting}, stop);
  *ordinals = std::move(picked);
  return Status::ok();
}

}  // namespace vmafx::hip
