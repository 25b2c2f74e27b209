#pragma once
// The application's side of the bridge (librnicsim_app.so, preloaded by
// rnicsim exec): the connection to its node's session, and the process's
// simulated clock. libibverbs.so.1 (verbs_library.cpp) calls it for every
// verb; time_interposer.cpp and socket_interposer.cpp for the C library's
// time and socket calls.
#include <cstdint>
#include <vector>

#include "host/app_bridge/bridge_protocol.hpp"

namespace rnicsim::app {

// Whether the process runs under rnicsim exec (the bridge socket is set).
bool attached();

// The node's device as its session described it; attached() only.
const bridge::HelloReply& device();

// Sends a request stamped with the clock, waits for the reply, and moves
// the clock to the reply's time. Returns the reply's status (0 or an errno
// value); `reply` receives its body. `fd` (>= 0) travels with the request.
// A lost simulator ends the process: it cannot go on without its NIC.
int call(bridge::Request kind, const void* body, std::size_t bytes,
         std::vector<std::uint8_t>* reply = nullptr, int fd = -1);

// Requests sent so far, and whether one is under way (any thread): the
// spin watch's signs that the program is not spinning.
std::uint64_t calls_made();
bool in_call();

// The pages shared with the simulator (registered memory), for the spin
// watch; [first, first + length) in whole pages.
void note_shared(std::uint64_t first, std::uint64_t length);
// Calls `visit` with each shared range. Async-signal-safe.
template <class Visit>
void for_each_shared(Visit visit);

// The simulated clock, in picoseconds since the run began.
std::uint64_t now_ps();
// Advances it by `ps` (a time call's own cost) and returns the new value.
// Async-signal-safe: the TSC trap calls it.
std::uint64_t advance_ps(std::uint64_t ps);

// Each call that reads the time costs the caller this much simulated time,
// so that a program spinning on the clock sees it move (README).
constexpr std::uint64_t kTimeCallPs = 20'000;
constexpr std::uint64_t kTscReadPs = 10'000;

struct SharedRange {
  std::uint64_t first;
  std::uint64_t length;
};
constexpr int kMaxSharedRanges = 4096;
extern SharedRange shared_ranges[kMaxSharedRanges];
int shared_range_count();

template <class Visit>
void for_each_shared(Visit visit) {
  const int count = shared_range_count();
  for (int i = 0; i < count; ++i) visit(shared_ranges[i]);
}

// The spin watch (spin_watch.cpp): started with simulated time; a fault on
// a shared page while it watches is its, and so is the single step after.
void start_spin_watch();
bool spin_watch_fault(void* address, void* context);
void stop_spin_watch();

}  // namespace rnicsim::app
