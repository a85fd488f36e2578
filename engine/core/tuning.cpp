// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx/tuning.h: the engine's environment table and its one reader.
#include "vmafx/tuning.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace vmafx {

namespace {

constexpr const char* kUploadStream = "VMAFX_HIP_UPLOAD_STREAM";
constexpr const char* kLanes = "VMAFX_HIP_LANES";
constexpr const char* kUploadGate = "VMAFX_HIP_UPLOAD_GATE";
constexpr const char* kGraphs = "VMAFX_HIP_GRAPHS";
constexpr const char* kCopyThreads = "VMAFX_HIP_COPY_THREADS";
constexpr const char* kSlots = "VMAFX_HIP_SLOTS";
constexpr const char* kCambiBlockBelow = "VMAFX_HIP_CAMBI_BLOCK_BELOW";
constexpr const char* kCambiRows = "VMAFX_HIP_CAMBI_ROWS";
constexpr const char* kSyncLaunches = "VMAFX_HIP_SYNC_LAUNCHES";
constexpr const char* kCpuMask = "VMAFX_CPUMASK";

const char* accepts_of(const char* name) {
  for (const EnvironmentVariable& v : engine_environment())
    if (std::string(v.name) == name) return v.accepts;
  return "?";
}

Status refused(const char* name, const char* value) {
  return {Errc::invalid_argument, std::string(name) + " must be " + accepts_of(name) + ", not '" + value + "'"};
}

// An unsigned integer in [lo, hi]: decimal, or hexadecimal with 0x where `hex` (libvmaf's --cpumask takes both).
Status read_uint(const char* name, const char* value, uint64_t lo, uint64_t hi, bool hex, uint64_t* out) {
  const std::string v(value);
  if (v.empty() || v[0] == '-' || v[0] == '+' || v[0] == ' ') return refused(name, value);
  const bool is_hex = hex && v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(v.c_str(), &end, is_hex ? 16 : 10);
  if (errno != 0 || end == v.c_str() || *end != '\0' || n < lo || n > hi) return refused(name, value);
  *out = n;
  return Status::ok();
}

Status read_flag(const char* name, const char* value, bool* out) {
  const std::string v(value);
  if (v != "0" && v != "1") return refused(name, value);
  *out = v == "1";
  return Status::ok();
}

}  // namespace

const std::vector<EnvironmentVariable>& engine_environment() {
  static const std::vector<EnvironmentVariable> table = {
      {kUploadStream, "0 or 1",
       "1 (default): host frames are uploaded on the GPU's upload stream, beside the kernels; 0: on the library "
       "stream, before the kernels (comparisons; one lane)"},
      {kLanes, "an integer 1..7", "frames run on that many GPU streams at once (default 6 on NVIDIA, 1 on AMD)"},
      {kUploadGate, "0 or 1",
       "1: a host frame's staging copy overlaps the queueing of its kernels (default on NVIDIA, off on AMD)"},
      {kGraphs, "0 or 1",
       "1: each frame's GPU work is queued as one graph launch, 0: call by call (default on NVIDIA, off on AMD); "
       "scores are the same"},
      {kCopyThreads, "an integer 0..63", "helper threads for the staging copies of host frames (default: from the "
                                         "number of cores)"},
      {kSlots, "an integer 2..64", "frames in flight on the GPU (default: 6, 4 for large frames, at least lanes + 2)"},
      {kCambiBlockBelow, "an integer 0..4294967295",
       "cambi on the GPU: scales with fewer column threads than this use one block per column (default 4096; 0 "
       "never); scores are the same"},
      {kCambiRows, "an integer 1..4096",
       "cambi on the GPU: rows per chunk of the column kernel (default: from the scale's size); scores are the same"},
      {kSyncLaunches, "0 or 1", "1: every GPU kernel launch waits for its kernel, so a fault names its launch (slow)"},
      {kCpuMask, "an integer 0..4294967295 (decimal or 0x hex)",
       "libvmaf's --cpumask bits: a set bit leaves that instruction set out (16 AVX-512, 8 AVX2; 0xffff: scalar); "
       "vmafx-score's --cpumask overrides it"},
  };
  return table;
}

Status tuning_from(const std::function<const char*(const char*)>& lookup, EngineTuning* out) {
  EngineTuning t;
  auto get = [&](const char* name) -> const char* {
    const char* v = lookup(name);
    return v && *v ? v : nullptr;
  };
  bool flag = false;
  uint64_t n = 0;
  if (const char* v = get(kUploadStream)) {
    VMAFX_TRY(read_flag(kUploadStream, v, &flag));
    t.upload_stream = flag ? 1 : 0;
  }
  if (const char* v = get(kLanes)) {
    VMAFX_TRY(read_uint(kLanes, v, 1, 7, false, &n));
    t.lanes = unsigned(n);
  }
  if (const char* v = get(kUploadGate)) {
    VMAFX_TRY(read_flag(kUploadGate, v, &flag));
    t.upload_gate = flag ? 1 : 0;
  }
  if (const char* v = get(kGraphs)) {
    VMAFX_TRY(read_flag(kGraphs, v, &flag));
    t.graphs = flag ? 1 : 0;
  }
  if (const char* v = get(kCopyThreads)) {
    VMAFX_TRY(read_uint(kCopyThreads, v, 0, 63, false, &n));
    t.copy_threads = int(n);
  }
  if (const char* v = get(kSlots)) {
    VMAFX_TRY(read_uint(kSlots, v, 2, 64, false, &n));
    t.slots = unsigned(n);
  }
  if (const char* v = get(kCambiBlockBelow)) {
    VMAFX_TRY(read_uint(kCambiBlockBelow, v, 0, UINT32_MAX, false, &n));
    t.cambi_block_below = int64_t(n);
  }
  if (const char* v = get(kCambiRows)) {
    VMAFX_TRY(read_uint(kCambiRows, v, 1, 4096, false, &n));
    t.cambi_rows = unsigned(n);
  }
  if (const char* v = get(kSyncLaunches)) VMAFX_TRY(read_flag(kSyncLaunches, v, &t.sync_launches));
  if (const char* v = get(kCpuMask)) {
    VMAFX_TRY(read_uint(kCpuMask, v, 0, UINT32_MAX, true, &n));
    t.cpu_mask = int64_t(n);
  }
  *out = t;
  return Status::ok();
}

Status tuning_from_environment(EngineTuning* out) {
  return tuning_from([](const char* name) -> const char* { return std::getenv(name); }, out);
}

}  // namespace vmafx
