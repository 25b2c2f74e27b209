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

// The simulated clock, in picoseconds since the run began.
std::uint64_t now_ps();
// Advances it by `ps` (a time call's own cost) and returns the new value.
// Async-signal-safe: the TSC trap calls it.
std::uint64_t advance_ps(std::uint64_t ps);

// Each call that reads the time costs the caller this much simulated time,
// so that a program spinning on the clock sees it move (README).
constexpr std::uint64_t kTimeCallPs = 20'000;
constexpr std::uint64_t kTscReadPs = 10'000;

}  // namespace rnicsim::app
