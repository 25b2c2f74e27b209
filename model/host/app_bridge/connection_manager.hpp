#pragma once
// ConnectionManager: rdma_cm's connection exchange between the attached
// applications (rnicsim exec), kept by the launcher from their libraries'
// requests (bridge_protocol.hpp: kCmListen ... kCmGetEvent). The exchange
// goes through the bridge, not as CM MADs on the simulated wire: what the
// model's NICs carry is the data path only. Untimed and kernel-free, like
// SocketStreams, with Lamport times: each message (REQ, REP, REJ, RTU, DREQ,
// DREP) arrives kCmMessagePs after its sender's simulated time, and an
// application taking an event resumes at the later of its own time and the
// event's. A channel's events come out in (time, then sequence) order.
//
// Requests are applied in the order the launcher receives them; two races
// that would make outcomes depend on which process the host ran first (both
// in perftest -R) are taken out:
// - a connect to a port nobody listens on is held until a program listens
//   there, or until every program waits with no verb outstanding
//   (resolve_held): then it is refused (REJECTED, invalid service ID);
// - the DISCONNECTED an rdma_disconnect earns its own caller (the DREP) is
//   held until the peer can no longer cross it with a DREQ of its own: the
//   peer disconnected, released its id or ended, its clock passed the DREQ's
//   arrival, or every program waits. Each side's DISCONNECTED arrives at the
//   earlier of its own call plus two messages and the peer's call plus one,
//   whichever side's request the launcher saw first; nobody gets two.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "host/app_bridge/bridge_protocol.hpp"

namespace rnicsim::bridge {

// The one-way time of a CM message: the MAD through the sender's kernel
// (rdma_cm, IB CM, MAD layer), the wire, and the receiver's kernel up to its
// event channel. 5 us: an estimate, not a measurement; the wire's share is
// well under a microsecond, the two kernels' CM and MAD processing the rest.
// A connection costs three (REQ, REP, RTU), a disconnect two (DREQ, DREP).
constexpr std::uint64_t kCmMessagePs = 5'000'000;

// An event channel of one application (its index in the launcher).
struct CmEndpoint {
  std::uint32_t app = 0;
  std::uint32_t channel = 0;
  bool operator<(const CmEndpoint& other) const {
    return std::pair(app, channel) < std::pair(other.app, other.channel);
  }
};

class ConnectionManager {
 public:
  // Each returns 0 or an errno value for the request's reply.
  int listen(std::uint32_t app, const CmListen& listen, std::uint64_t time_ps);
  int unlisten(std::uint32_t app, std::uint32_t port, std::uint64_t time_ps);
  // Numbers the connection in *connection.
  int connect(std::uint32_t app, const CmConnect& connect, std::uint64_t time_ps,
              std::uint32_t* connection);
  int accept(std::uint32_t app, const CmAccept& accept, std::uint64_t time_ps);
  int reject(std::uint32_t app, const CmReject& reject, std::uint64_t time_ps);
  int established(std::uint32_t app, const CmConnection& connection, std::uint64_t time_ps);
  int disconnect(std::uint32_t app, const CmConnection& connection, std::uint64_t time_ps);
  // The application's id of the connection is destroyed: its kernel's CM
  // ends the connection (a REJ or a DREQ to the peer), and its events go.
  void release(std::uint32_t app, const CmConnection& connection, std::uint64_t time_ps);
  // The application ended: every connection, listen and event of it goes.
  void ended(std::uint32_t app, std::uint64_t time_ps);
  // The application's clock reached `time_ps` (it made a request then).
  void advance(std::uint32_t app, std::uint64_t time_ps);

  bool has_event(const CmEndpoint& channel) const;
  // The channel's next event, if any.
  std::optional<CmEvent> take_event(const CmEndpoint& channel);

  // Whether something waits for a program that might still act: a connect
  // to a port nobody listens on, or a DREP.
  bool holds() const;
  // Every program waits with no verb outstanding: held connects are
  // refused, held DREPs delivered.
  void resolve_held();

 private:
  enum class State { kHeld, kRequested, kReplied, kEstablished, kClosed };
  enum class Notice { kNone, kHeld, kQueued, kTaken };
  struct Side {
    std::uint32_t app = 0;
    std::uint32_t channel = 0;
    CmParams params{};
    bool gone = false;          // its id released, or its application ended
    bool disconnected = false;  // it sent a DREQ (rdma_disconnect, or released)
    std::uint64_t disconnect_ps = 0;
    bool drep_released = false;     // resolve_held let its own DISCONNECTED go
    Notice notice = Notice::kNone;  // its DISCONNECTED
    std::pair<std::uint64_t, std::uint64_t> notice_key{};  // in its queue, when kQueued
  };
  struct Connection {
    State state = State::kHeld;
    std::uint32_t port = 0;
    std::uint64_t request_ps = 0;
    bool request_taken = false;  // the listener took its CONNECT_REQUEST
    Side active;
    Side passive;
  };
  struct Listener {
    std::uint32_t app = 0;
    std::uint32_t channel = 0;
    std::uint64_t since_ps = 0;
  };
  using Queue = std::map<std::pair<std::uint64_t, std::uint64_t>, CmEvent>;

  // The requesting id's connection and sides; null when it has none.
  Connection* find(std::uint32_t app, const CmConnection& connection, Side** me, Side** peer);
  void release_side(std::uint32_t id, bool passive, std::uint64_t time_ps);
  std::pair<std::uint64_t, std::uint64_t> queue(const Side& to, CmEvent event);
  void drop(const Side& side, std::uint32_t connection);
  void request(std::uint32_t id, Connection& c, const Listener& listener);
  void refuse(std::uint32_t id, Connection& c, std::int32_t status, std::uint64_t time_ps);
  void update_disconnect(std::uint32_t id, Connection& c);
  void update_notice(std::uint32_t id, Side& side, const Side& peer);
  void forget_if_done(std::uint32_t id);

  std::map<std::uint32_t, Listener> listeners_;  // by port
  std::map<std::uint32_t, Connection> connections_;
  std::map<CmEndpoint, Queue> queues_;
  std::map<std::uint32_t, std::uint64_t> clocks_;  // each application's latest request
  std::uint32_t next_connection_ = 1;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace rnicsim::bridge
