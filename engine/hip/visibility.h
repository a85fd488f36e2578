// SPDX-License-Identifier: LGPL-2.1-or-later
// Which GPUs the engine sees. The runtimes apply their own visibility variables: the HIP runtime (AMD) takes
// ROCR_VISIBLE_DEVICES (ROCr, below HIP), HIP_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES; the CUDA driver (NVIDIA) takes
// CUDA_VISIBLE_DEVICES. The engine opens the CUDA driver itself, not a HIP runtime on top of it, so nothing would read
// HIP_VISIBLE_DEVICES on NVIDIA: the loader applies it there, as a selection by index among the devices the driver
// shows (after CUDA_VISIBLE_DEVICES), so that HIP_VISIBLE_DEVICES=1 means the second visible GPU on both vendors.
// Device indices the engine reports and accepts are indices into the list that results (Api::ordinals maps them to
// the runtime's own ordinals). The variables are read once per process, when the vendor's runtime is loaded.
//
// Everything here is a pure function of its arguments (the environment is passed in), for tests without a GPU.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hip/api.h"
#include "vmafx/status.h"

namespace vmafx::hip {

// One visibility variable and its value as the process has it.
struct VisibilitySetting {
  std::string name;
  std::string value;
};

// The variables `vendor`'s runtime applies itself, in the order they apply: AMD ROCR_VISIBLE_DEVICES,
// HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES; NVIDIA CUDA_VISIBLE_DEVICES. (On NVIDIA the loader applies
// HIP_VISIBLE_DEVICES after them: select_visible.)
std::vector<std::string> visibility_variables(Vendor vendor);

// Those of visibility_variables(vendor) that `getenv` says are set (an empty value is set), in that order.
std::vector<VisibilitySetting> visibility_settings(Vendor vendor,
                                                   const std::function<const char*(const char*)>& getenv);

// 'CUDA_VISIBLE_DEVICES="1"' (settings joined with ", "), "" for none: for messages.
std::string describe_settings(const std::vector<VisibilitySetting>& settings);

// True when `value` hides every device whatever the machine has: empty (or only spaces), or its first entry is a
// negative index ("-1", "-1,0"), which ends the list before it starts (CUDA's rule).
bool hides_every_device(std::string_view value);

// The error of a process that sees no GPU while visibility variables are set (`settings` not empty):
// Errc::device_unavailable "no GPU visible: CUDA_VISIBLE_DEVICES="" hides every device" naming the first setting
// that hides every device, else every setting ('... HIP_VISIBLE_DEVICES="4" names no device', several: '... leave no
// device visible'); `detail` (what the runtime answered), when not empty, follows after "; ". Errc::device_unavailable
// keeps backend=auto's fallback to the CPU: a variable set to hide the GPUs is how a user asks for the CPU.
Status no_gpu_visible(const std::vector<VisibilitySetting>& settings, const std::string& detail);

// HIP_VISIBLE_DEVICES on the NVIDIA path: `value` selects among the `cuda_count` devices the CUDA driver shows, by
// index, in the order listed; *ordinals receives the CUDA ordinal of each engine device (engine device i is CUDA
// device (*ordinals)[i]). The rules are CUDA's own for CUDA_VISIBLE_DEVICES, except that an entry must be a number:
//  - entries are separated by commas; spaces around an entry are ignored; an entry that is not a decimal index
//    ("x", "1gpu", "GPU-8f2a...", the empty entry of "0,,1" or "0,") is Errc::invalid_argument naming the variable
//    and the entry, wherever it stands (CUDA would take a leading number and ignore the rest: a typo must not pick a
//    GPU without a word);
//  - the entries are taken in order; a negative index ends the list ("0,-1,1" selects 0), and so does the first
//    index that names no CUDA-visible device ("0,5,1" with two devices selects 0);
//  - an index listed twice before the list ends empties it (CUDA's rule: "0,0" selects nothing);
//  - an empty value (or only spaces) selects nothing, as CUDA_VISIBLE_DEVICES="" does.
// An empty selection is no_gpu_visible(): Errc::device_unavailable naming the variable and why nothing was left.
Status select_visible(std::string_view value, int cuda_count, std::vector<int>* ordinals);

// The name select_visible reads: HIP_VISIBLE_DEVICES.
inline constexpr const char* kHipVisibleDevices = "HIP_VISIBLE_DEVICES";

}  // namespace vmafx::hip
