#pragma once
// SocketStreams: what the attached applications have sent one another over
// their real loopback sockets, as their notices tell it (bridge_protocol.hpp),
// so that the simulator knows (1) whether an application blocked in accept
// or read will wake on something already sent, and so must be waited for
// before simulated time moves, and (2) the simulated time it wakes at: the
// later of its own and the sender's when it sent what the call returned
// (a Lamport clock). Both depend only on what the programs did, never on
// which process the host scheduler ran first. Untimed and kernel-free.
#include <cstdint>
#include <deque>
#include <map>
#include <utility>

#include "host/app_bridge/bridge_protocol.hpp"

namespace rnicsim::bridge {

class SocketStreams {
 public:
  // A connect from `stream.local_port` to the listening `stream.peer_port`.
  void connect(const Stream& stream, std::uint64_t time_ps);
  // `bytes` written by `stream.local_port` to `stream.peer_port`.
  void send(const StreamBytes& sent, std::uint64_t time_ps);
  // `stream.local_port` closed its end: its peer reads the end of the stream.
  void close(const Stream& stream, std::uint64_t time_ps);

  // Whether a process blocked in `block` has something sent to it to wake on.
  bool pending(const Block& block) const;
  // The process returned from `end.block` with `end.bytes`; consumes them and
  // gives the time it resumes at, at least `blocked_at_ps` (its own).
  std::uint64_t wake(const BlockEnd& end, std::uint64_t blocked_at_ps);

 private:
  struct Sent {
    std::uint64_t end;  // the stream's byte count after this send
    std::uint64_t time_ps;
  };
  struct Direction {
    std::deque<Sent> sends;  // not yet read through
    std::uint64_t sent = 0;
    std::uint64_t received = 0;
    bool closed = false;
    bool close_read = false;
    std::uint64_t closed_at_ps = 0;
  };
  // By (sender's port, receiver's port).
  std::map<std::pair<std::uint32_t, std::uint32_t>, Direction> directions_;
  // By listening port: connects not yet accepted, (client port, time).
  std::map<std::uint32_t, std::deque<std::pair<std::uint32_t, std::uint64_t>>> connects_;
};

}  // namespace rnicsim::bridge
