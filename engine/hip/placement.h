// SPDX-License-Identifier: LGPL-2.1-or-later
// Automatic GPU placement: the device a new scoring session runs on when it names none (a HIP backend asked for
// device -1: ScorerConfig::device_id, the element's device-id, vmafx-score's --device).
//
// The rule: among the visible devices, the one with the fewest sessions of this process; ties broken by the most
// free memory, then by the lowest index. Sessions come first because several pipelines started at once in one
// process must spread over the GPUs before their allocations show in free memory (a session allocates only once it
// is set up); free memory then steers new sessions away from GPUs that other processes fill. With a single visible
// device nothing is asked (no context is made for a query). With two or more, each device's free memory is asked with
// its context current: a live Device's own, else its primary context, retained for the query and released again
// unless the device is chosen (the Device opened on it then keeps it). A device whose query fails (a GPU in
// exclusive-process mode that another process holds, a Device whose runtime call failed) is not chosen.
//
// Every HIP backend counts one session on its device while it lives (DeviceSession), placed or given an explicit
// device id, so sessions pinned by their input (CUDA memory on its GPU) or by the user weigh in the choice too.
// An explicit device id is never moved.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hip/api.h"
#include "vmafx/status.h"

namespace vmafx::hip {

// What placement compares of one visible device.
struct PlacementCandidate {
  int index = 0;
  unsigned sessions = 0;     // this process's live sessions on it
  uint64_t free_bytes = 0;   // 0 where not asked (a single visible device) or unknown (no memory query)
  uint64_t total_bytes = 0;
  bool usable = true;        // false: its memory query failed
  std::string why_unusable;
};

// The index of the device for a new session: among the usable candidates the one with the fewest sessions, then the
// most free bytes, then the lowest index; -1 when none is usable. A pure function, for tests.
int choose_device(const std::vector<PlacementCandidate>& candidates);

// One session counted on a device while this object lives (moved, it moves; reset or destroyed, it is uncounted).
class DeviceSession {
 public:
  DeviceSession() = default;
  ~DeviceSession() { reset(); }
  DeviceSession(DeviceSession&& o) noexcept { *this = std::move(o); }
  DeviceSession& operator=(DeviceSession&& o) noexcept;
  DeviceSession(const DeviceSession&) = delete;
  DeviceSession& operator=(const DeviceSession&) = delete;

  // Counts a session on `vendor` (amd or nvidia) device `index`.
  static DeviceSession count(Vendor vendor, int index);

  int index() const { return index_; }
  explicit operator bool() const { return index_ >= 0; }
  void reset();

 private:
  Vendor vendor_ = Vendor::auto_select;
  int index_ = -1;
};

// This process's live sessions on `vendor` device `index`.
unsigned session_count(Vendor vendor, int index);

struct Placement {
  DeviceSession session;                       // the new session, counted on the chosen device
  int visible = 0;                             // the devices the engine sees
  std::vector<PlacementCandidate> candidates;  // what was compared
  // "placed automatically on device 1 of 2 (0: 1 session, 120.0 of 140.4 GiB free; 1: 0 sessions, 139.2 of 140.4
  // GiB free)"; "" with a single visible device.
  std::string reason;
  // The chosen device's primary context, retained for its query: drop it once the Device is open on it.
  std::shared_ptr<void> hold;
};

// Places a new session on a device of `api`'s vendor and counts it there; choice and count happen under one lock, so
// sessions placed at the same time see each other. Errc::device_unavailable when no device is usable, naming why
// for each. In builds with test hooks a simulated device list (test_hooks.h) may stand in for the runtime's.
Status place_session(const Api& api, Placement* out);

// "0: 1 session, 120.0 of 140.4 GiB free; 1: not usable (...)": the candidates, for messages.
std::string describe_candidates(const std::vector<PlacementCandidate>& candidates);

}  // namespace vmafx::hip
