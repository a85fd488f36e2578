// SPDX-License-Identifier: LGPL-2.1-or-later
#include "hip/placement.h"

#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

#include "hip/device.h"
#include "hip/test_hooks.h"

namespace vmafx::hip {

#if VMAFX_TEST_HOOKS
namespace hip_hooks {
namespace {
std::mutex g_simulated_mutex;
std::vector<SimulatedDevice> g_simulated;
std::atomic<uint64_t> g_memory_queries{0};
}  // namespace
void simulate_devices(std::vector<SimulatedDevice> devices) {
  std::lock_guard<std::mutex> lock(g_simulated_mutex);
  g_simulated = std::move(devices);
}
bool simulated_devices(std::vector<SimulatedDevice>* out) {
  std::lock_guard<std::mutex> lock(g_simulated_mutex);
  if (g_simulated.empty()) return false;
  *out = g_simulated;
  return true;
}
uint64_t memory_queries() { return g_memory_queries.load(std::memory_order_relaxed); }
void count_memory_query() { g_memory_queries.fetch_add(1, std::memory_order_relaxed); }
}  // namespace hip_hooks
#endif

int choose_device(const std::vector<PlacementCandidate>& candidates) {
  const PlacementCandidate* best = nullptr;
  for (const PlacementCandidate& c : candidates) {
    if (!c.usable) continue;
    const bool better =
        !best || c.sessions < best->sessions ||
        (c.sessions == best->sessions &&
         (c.free_bytes > best->free_bytes || (c.free_bytes == best->free_bytes && c.index < best->index)));
    if (better) best = &c;
  }
  return best ? best->index : -1;
}

// ---- Session counts ---------------------------------------------------------------------------------------------

namespace {

struct Counts {
  std::mutex mutex;
  std::map<std::pair<int, int>, unsigned> sessions;  // (vendor, index) -> live sessions
};
Counts& counts() {
  static Counts c;
  return c;
}

}  // namespace

DeviceSession DeviceSession::count(Vendor vendor, int index) {
  DeviceSession s;
  if (index < 0) return s;
  Counts& c = counts();
  std::lock_guard<std::mutex> lock(c.mutex);
  ++c.sessions[{int(vendor), index}];
  s.vendor_ = vendor;
  s.index_ = index;
  return s;
}

DeviceSession& DeviceSession::operator=(DeviceSession&& o) noexcept {
  if (this != &o) {
    reset();
    vendor_ = o.vendor_;
    index_ = o.index_;
    o.index_ = -1;
  }
  return *this;
}

void DeviceSession::reset() {
  if (index_ < 0) return;
  Counts& c = counts();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.sessions.find({int(vendor_), index_});
  if (it != c.sessions.end() && --it->second == 0) c.sessions.erase(it);
  index_ = -1;
}

unsigned session_count(Vendor vendor, int index) {
  Counts& c = counts();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.sessions.find({int(vendor), index});
  return it == c.sessions.end() ? 0 : it->second;
}

// ---- Placement --------------------------------------------------------------------------------------------------

namespace {

// Primary contexts retained for memory queries, released when this goes.
struct Retained {
  const Api* api = nullptr;
  std::vector<int> indices;
  ~Retained() {
    for (int i : indices) api->context_release.fn(i);
  }
};

// Device `index`'s free and total memory, asked with its context current: a live Device's, else its primary
// context retained (kept in *retained) for the query. The caller's current context is restored.
Status query_memory(const Api& api, int index, PlacementCandidate* c, Retained* retained) {
  hip_hooks::count_memory_query();
  if (!api.memory_info.fn) return Status::ok();  // unknown: compared as 0 (the index decides among equals)
  size_t free_bytes = 0, total_bytes = 0;
  if (std::shared_ptr<Device> dev = Device::find(api.vendor, index)) {
    if (dev->failed()) return dev->status();
    ContextScope scope(*dev);
    VMAFX_TRY(scope.status());
    VMAFX_HIP_CHECK_API(api, memory_info, &free_bytes, &total_bytes);
  } else {
    Context ctx = nullptr, previous = nullptr;
    VMAFX_HIP_CHECK_API(api, context_get_current, &previous);
    VMAFX_HIP_CHECK_API(api, context_retain, index, &ctx);
    retained->indices.push_back(index);
    VMAFX_HIP_CHECK_API(api, context_make_current, ctx);
    const int rc = api.memory_info.fn(&free_bytes, &total_bytes);
    api.context_make_current.fn(previous);
    if (rc != 0) return call_failed(api, api.memory_info.symbol, rc, __FILE__, __LINE__);
  }
  c->free_bytes = free_bytes;
  c->total_bytes = total_bytes;
  return Status::ok();
}

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", double(bytes) / double(uint64_t(1) << 30));
  return buf;
}

// Placements one at a time: each sees the sessions counted by those before it.
std::mutex& placement_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

std::string describe_candidates(const std::vector<PlacementCandidate>& candidates) {
  std::string s;
  for (const PlacementCandidate& c : candidates) {
    s += s.empty() ? "" : "; ";
    s += std::to_string(c.index) + ": ";
    if (!c.usable) {
      s += "not usable (" + c.why_unusable + ")";
      continue;
    }
    s += std::to_string(c.sessions) + (c.sessions == 1 ? " session" : " sessions");
    if (c.total_bytes > 0) s += ", " + gib(c.free_bytes) + " of " + gib(c.total_bytes) + " GiB free";
  }
  return s;
}

Status place_session(const Api& api, Placement* out) {
  *out = Placement();
  const Vendor vendor = api.vendor;
  std::lock_guard<std::mutex> lock(placement_mutex());
  std::vector<SimulatedDevice> simulated;
  const bool simulating = hip_hooks::simulated_devices(&simulated);
  int count = 0;
  if (simulating) {
    count = int(simulated.size());
  } else {
    VMAFX_HIP_CHECK_API(api, device_count, &count);
  }
  if (count <= 0) return {Errc::device_unavailable, std::string("no ") + vendor_name(vendor) + " device to place a session on"};
  std::vector<PlacementCandidate> candidates(static_cast<size_t>(count));
  Retained retained;
  retained.api = &api;
  for (int i = 0; i < count; i++) {
    PlacementCandidate& c = candidates[size_t(i)];
    c.index = i;
    c.sessions = session_count(vendor, i);
    if (count < 2) continue;  // one device: nothing to compare, no context made for a query
    Status s;
    if (simulating) {
      hip_hooks::count_memory_query();
      const SimulatedDevice& d = simulated[size_t(i)];
      if (d.query_fails) {
        s = {Errc::device_error, "simulated memory query failure"};
      } else {
        c.free_bytes = d.free_bytes;
        c.total_bytes = d.total_bytes;
      }
    } else {
      s = query_memory(api, i, &c, &retained);
    }
    if (!s) {
      c.usable = false;
      c.why_unusable = s.message();
    }
  }
  const int chosen = choose_device(candidates);
  if (chosen < 0)
    return {Errc::device_unavailable,
            std::string("no usable ") + vendor_name(vendor) + " device for a new session: " +
                describe_candidates(candidates)};
  out->session = DeviceSession::count(vendor, chosen);
  out->visible = count;
  out->candidates = candidates;
  if (count >= 2)
    out->reason = "placed automatically on device " + std::to_string(chosen) + " of " + std::to_string(count) + " (" +
                  describe_candidates(candidates) + ")";
  // The chosen device's retained context stays until the caller has opened its Device; the others go now.
  auto keep = std::make_shared<Retained>();
  keep->api = &api;
  std::vector<int> others;
  for (int i : retained.indices) (i == chosen ? keep->indices : others).push_back(i);
  retained.indices = std::move(others);  // released when `retained` goes, at return
  if (!keep->indices.empty()) out->hold = std::move(keep);
  return Status::ok();
}

}  // namespace vmafx::hip
