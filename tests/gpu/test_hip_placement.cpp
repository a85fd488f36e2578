// SPDX-License-Identifier: LGPL-2.1-or-later
// Automatic GPU placement without a GPU: the selection rule (choose_device over candidate lists), the per-device
// session counts (DeviceSession: placed, destroyed, placed again), and place_session end to end.
//
// The multi-GPU behaviour is tested with a simulated device list (hip_hooks::simulate_devices, builds with test
// hooks only): it stands in for the runtime's device count and memory queries, while the session accounting and
// the choice are the product code's. A Device itself needs a real runtime, so what is placed here is the session
// (the index the backend then opens); tests/gpu/test_hip_placement_gpu.cpp checks placement on real devices.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "hip/api.h"
#include "hip/placement.h"
#include "hip/test_hooks.h"

namespace vmafx::hip {
namespace {

constexpr uint64_t kGiB = uint64_t(1) << 30;

PlacementCandidate candidate(int index, unsigned sessions, uint64_t free_gib, bool usable = true) {
  PlacementCandidate c;
  c.index = index;
  c.sessions = sessions;
  c.free_bytes = free_gib * kGiB;
  c.total_bytes = 141 * kGiB;
  c.usable = usable;
  return c;
}

TEST(HipPlacement, FewestSessionsFirst) {
  EXPECT_EQ(choose_device({candidate(0, 2, 100), candidate(1, 1, 10), candidate(2, 3, 140)}), 1)
      << "a session less beats any amount of free memory";
  EXPECT_EQ(choose_device({candidate(0, 0, 1), candidate(1, 1, 140)}), 0);
}

TEST(HipPlacement, ThenMostFreeMemoryThenLowestIndex) {
  EXPECT_EQ(choose_device({candidate(0, 1, 50), candidate(1, 1, 90), candidate(2, 1, 70)}), 1);
  EXPECT_EQ(choose_device({candidate(0, 0, 80), candidate(1, 0, 80), candidate(2, 0, 80)}), 0);
  EXPECT_EQ(choose_device({candidate(2, 0, 80), candidate(1, 0, 80)}), 1) << "lowest index, whatever the order";
  EXPECT_EQ(choose_device({candidate(0, 0, 0), candidate(1, 0, 0)}), 0) << "memory unknown: the index decides";
}

TEST(HipPlacement, UnusableDevicesAreNeverChosen) {
  EXPECT_EQ(choose_device({candidate(0, 0, 140, false), candidate(1, 5, 1)}), 1);
  EXPECT_EQ(choose_device({candidate(0, 0, 140, false), candidate(1, 0, 140, false)}), -1);
  EXPECT_EQ(choose_device({}), -1);
}

TEST(HipPlacement, SessionsAreCountedWhileTheyLive) {
  EXPECT_EQ(session_count(Vendor::amd, 5), 0u);
  {
    DeviceSession a = DeviceSession::count(Vendor::amd, 5);
    EXPECT_TRUE(a);
    EXPECT_EQ(a.index(), 5);
    DeviceSession b = DeviceSession::count(Vendor::amd, 5);
    EXPECT_EQ(session_count(Vendor::amd, 5), 2u);
    EXPECT_EQ(session_count(Vendor::nvidia, 5), 0u) << "per vendor";
    DeviceSession moved = std::move(a);
    EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): a moved-from session counts nothing
    EXPECT_EQ(session_count(Vendor::amd, 5), 2u) << "a move is no new session";
    b.reset();
    EXPECT_EQ(session_count(Vendor::amd, 5), 1u);
    b.reset();
    EXPECT_EQ(session_count(Vendor::amd, 5), 1u) << "reset twice uncounts once";
  }
  EXPECT_EQ(session_count(Vendor::amd, 5), 0u);
  EXPECT_FALSE(DeviceSession::count(Vendor::amd, -1)) << "no device, no session";
}

#if VMAFX_TEST_HOOKS

// A simulated device list for the test's scope.
class Simulated {
 public:
  explicit Simulated(std::vector<SimulatedDevice> devices) { hip_hooks::simulate_devices(std::move(devices)); }
  ~Simulated() { hip_hooks::simulate_devices({}); }
};

SimulatedDevice gpu(uint64_t free_gib) { return {free_gib * kGiB, 141 * kGiB, false}; }

Api nvidia_api() {
  Api api;
  api.vendor = Vendor::nvidia;
  return api;
}

// Places one session and keeps it in `held`; returns its device.
int place(const Api& api, std::vector<DeviceSession>* held, Placement* out = nullptr) {
  Placement p;
  Status s = place_session(api, &p);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  const int index = p.session.index();
  held->push_back(std::move(p.session));
  if (out) *out = std::move(p);
  return index;
}

TEST(HipPlacement, SessionsSpreadRoundTheDevices) {
  Simulated sim({gpu(140), gpu(140), gpu(140)});
  const Api api = nvidia_api();
  std::vector<DeviceSession> held;
  std::vector<int> got;
  for (int i = 0; i < 7; i++) got.push_back(place(api, &held));
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(session_count(Vendor::nvidia, 0), 3u);
  EXPECT_EQ(session_count(Vendor::nvidia, 1), 2u);
}

TEST(HipPlacement, AmongEquallyBusyDevicesTheFreestWins) {
  Simulated sim({gpu(60), gpu(120), gpu(90)});
  const Api api = nvidia_api();
  std::vector<DeviceSession> held;
  std::vector<int> got;
  for (int i = 0; i < 6; i++) got.push_back(place(api, &held));
  EXPECT_EQ(got, (std::vector<int>{1, 2, 0, 1, 2, 0}));
}

// Free memory is asked again at each placement: a GPU another process fills is left for the others.
TEST(HipPlacement, FollowsFreeMemoryAsItChanges) {
  const Api api = nvidia_api();
  std::vector<DeviceSession> held;
  {
    Simulated sim({gpu(140), gpu(139)});
    EXPECT_EQ(place(api, &held), 0);
  }
  {
    Simulated sim({gpu(20), gpu(139)});  // something else filled device 0
    EXPECT_EQ(place(api, &held), 1);
  }
  {
    Simulated sim({gpu(20), gpu(30)});  // now both have one session: the freer one
    EXPECT_EQ(place(api, &held), 1);
  }
}

TEST(HipPlacement, PlaceDestroyPlaceAgain) {
  Simulated sim({gpu(140), gpu(140), gpu(140)});
  const Api api = nvidia_api();
  std::vector<DeviceSession> held;
  for (int i = 0; i < 3; i++) place(api, &held);
  ASSERT_EQ(held[1].index(), 1);
  held[1].reset();  // the session on device 1 ends
  EXPECT_EQ(session_count(Vendor::nvidia, 1), 0u);
  EXPECT_EQ(place(api, &held), 1) << "the device it left is the emptiest";
  held.clear();
  for (int i = 0; i < 3; i++) EXPECT_EQ(session_count(Vendor::nvidia, i), 0u);
  EXPECT_EQ(place(api, &held), 0) << "all gone: from the start again";
}

// Sessions given an explicit device (counted by the backend the same way) weigh in.
TEST(HipPlacement, ExplicitSessionsCount) {
  Simulated sim({gpu(140), gpu(140)});
  const Api api = nvidia_api();
  std::vector<DeviceSession> held;
  held.push_back(DeviceSession::count(Vendor::nvidia, 0));
  held.push_back(DeviceSession::count(Vendor::nvidia, 0));
  EXPECT_EQ(place(api, &held), 1);
  EXPECT_EQ(place(api, &held), 1);
  EXPECT_EQ(place(api, &held), 0) << "two each: the lowest index";
}

TEST(HipPlacement, OneDeviceAsksNoMemory) {
  Simulated sim({gpu(140)});
  const Api api = nvidia_api();
  std::vector<DeviceSession> held;
  const uint64_t before = hip_hooks::memory_queries();
  Placement p;
  EXPECT_EQ(place(api, &held, &p), 0);
  EXPECT_EQ(place(api, &held), 0);
  EXPECT_EQ(hip_hooks::memory_queries(), before) << "one visible device: no query, no context";
  EXPECT_EQ(p.visible, 1);
  EXPECT_EQ(p.reason, "") << "nothing to say with one device";
  EXPECT_FALSE(p.hold);
}

TEST(HipPlacement, TwoDevicesAskEachOnce) {
  Simulated sim({gpu(140), gpu(100)});
  const Api api = nvidia_api();
  std::vector<DeviceSession> held;
  const uint64_t before = hip_hooks::memory_queries();
  Placement p;
  EXPECT_EQ(place(api, &held, &p), 0);
  EXPECT_EQ(hip_hooks::memory_queries(), before + 2);
  EXPECT_EQ(p.visible, 2);
  EXPECT_EQ(p.reason, "placed automatically on device 0 of 2 (0: 0 sessions, 140.0 of 141.0 GiB free; 1: 0 sessions, "
                      "100.0 of 141.0 GiB free)");
}

TEST(HipPlacement, ADeviceWhoseQueryFailsIsSkipped) {
  const Api api = nvidia_api();
  std::vector<DeviceSession> held;
  {
    Simulated sim({{140 * kGiB, 141 * kGiB, true}, gpu(10)});
    EXPECT_EQ(place(api, &held), 1);
    EXPECT_EQ(place(api, &held), 1) << "never the failing one";
  }
  {
    Simulated sim({{0, 0, true}, {0, 0, true}});
    Placement p;
    Status s = place_session(api, &p);
    EXPECT_EQ(s.code(), Errc::device_unavailable);
    EXPECT_EQ(s.message().rfind("no usable nvidia device for a new session: 0: not usable (", 0), 0u) << s.message();
    EXPECT_FALSE(p.session);
  }
}

// Pipelines started at once: placements are serialised, each sees the sessions counted before it, so they spread
// evenly although the simulated free memory (like real free memory before anything is allocated) is the same.
TEST(HipPlacement, SessionsPlacedAtOnceSpreadEvenly) {
  Simulated sim({gpu(140), gpu(140), gpu(140), gpu(140)});
  const Api api = nvidia_api();
  constexpr int kThreads = 16;
  std::vector<DeviceSession> sessions(kThreads);
  std::vector<std::thread> threads;
  std::atomic<bool> go{false};
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      Placement p;
      if (place_session(api, &p)) sessions[size_t(t)] = std::move(p.session);
    });
  }
  go = true;
  for (auto& th : threads) th.join();
  for (int i = 0; i < 4; i++) EXPECT_EQ(session_count(Vendor::nvidia, i), 4u) << "device " << i;
}

#else

TEST(HipPlacement, SimulatedDevicesNeedTestHooks) { GTEST_SKIP() << "built without test hooks (-Dtest-hooks)"; }

#endif

}  // namespace
}  // namespace vmafx::hip
