#include "host/app_bridge/connection_manager.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rnicsim::bridge {
namespace {

constexpr std::uint64_t kNever = ~std::uint64_t{0};

CmEvent event_of(CmEventKind kind, std::uint32_t connection, std::uint64_t time_ps) {
  CmEvent event{};
  event.kind = kind;
  event.connection = connection;
  event.time_ps = time_ps;
  return event;
}

// The IB CM delivers a message's whole private-data field: what the sender
// gave, then zeros.
CmParams as_delivered(CmParams params, std::uint32_t field) {
  const std::uint32_t given = std::min(params.private_data_len, field);
  std::fill(params.private_data + given, params.private_data + kCmMaxPrivateData, 0);
  params.private_data_len = field;
  return params;
}

}  // namespace

int ConnectionManager::listen(std::uint32_t app, const CmListen& listen, std::uint64_t time_ps) {
  if (listeners_.count(listen.port) != 0) return EADDRINUSE;
  const Listener& listener = listeners_[listen.port] = Listener{app, listen.channel, time_ps};
  // Connects that came before the listener, in the order they were made.
  for (auto& [id, c] : connections_) {
    if (c.state == State::kHeld && c.port == listen.port) request(id, c, listener);
  }
  return 0;
}

int ConnectionManager::unlisten(std::uint32_t app, std::uint32_t port, std::uint64_t time_ps) {
  const auto found = listeners_.find(port);
  if (found == listeners_.end() || found->second.app != app) return EINVAL;
  listeners_.erase(found);
  // Requests the listener never took die with it: the kernel destroys their
  // ids, and its CM rejects them.
  std::vector<std::uint32_t> refused;
  for (auto& [id, c] : connections_) {
    if (c.state == State::kRequested && c.port == port && c.passive.app == app &&
        !c.request_taken) {
      drop(c.passive, id);
      refuse(id, c, kCmRejectConsumerDefined, time_ps + kCmMessagePs);
      refused.push_back(id);
    }
  }
  for (std::uint32_t id : refused) forget_if_done(id);
  return 0;
}

int ConnectionManager::connect(std::uint32_t app, const CmConnect& connect, std::uint64_t time_ps,
                               std::uint32_t* connection) {
  if (connect.params.private_data_len > kCmRequestPrivateData) return EINVAL;
  const std::uint32_t id = next_connection_++;
  Connection& c = connections_[id];
  c.active.app = app;
  c.active.channel = connect.channel;
  c.active.params = connect.params;
  c.port = connect.port;
  c.request_ps = time_ps;
  const auto listener = listeners_.find(connect.port);
  if (listener != listeners_.end()) request(id, c, listener->second);
  *connection = id;
  return 0;
}

int ConnectionManager::accept(std::uint32_t app, const CmAccept& accept, std::uint64_t time_ps) {
  if (accept.params.private_data_len > kCmReplyPrivateData) return EINVAL;
  Side* me = nullptr;
  Side* peer = nullptr;
  Connection* c = find(app, CmConnection{accept.connection, 1}, &me, &peer);
  if (c == nullptr || c->state != State::kRequested || !c->request_taken) return EINVAL;
  me->params = accept.params;
  me->channel = accept.channel;
  c->state = State::kReplied;
  CmEvent reply = event_of(CmEventKind::kReply, accept.connection, time_ps + kCmMessagePs);
  reply.peer = as_delivered(accept.params, kCmReplyPrivateData);
  queue(*peer, reply);  // nothing if the connecting id is gone: its REP is lost
  return 0;
}

int ConnectionManager::reject(std::uint32_t app, const CmReject& reject, std::uint64_t time_ps) {
  if (reject.private_data_len > kCmRejectPrivateData) return EINVAL;
  Side* me = nullptr;
  Side* peer = nullptr;
  Connection* c = find(app, CmConnection{reject.connection, 1}, &me, &peer);
  if (c == nullptr || c->state != State::kRequested || !c->request_taken) return EINVAL;
  CmEvent rejected = event_of(CmEventKind::kRejected, reject.connection, time_ps + kCmMessagePs);
  rejected.status = kCmRejectConsumerDefined;
  rejected.peer.private_data_len = reject.private_data_len;
  std::memcpy(rejected.peer.private_data, reject.private_data, reject.private_data_len);
  rejected.peer = as_delivered(rejected.peer, kCmRejectPrivateData);
  queue(*peer, rejected);
  c->state = State::kClosed;
  forget_if_done(reject.connection);
  return 0;
}

int ConnectionManager::established(std::uint32_t app, const CmConnection& connection,
                                   std::uint64_t time_ps) {
  Side* me = nullptr;
  Side* peer = nullptr;
  Connection* c = find(app, connection, &me, &peer);
  if (c == nullptr || me != &c->active || c->state != State::kReplied) return EINVAL;
  c->state = State::kEstablished;
  queue(*peer, event_of(CmEventKind::kEstablished, connection.connection, time_ps + kCmMessagePs));
  return 0;
}

int ConnectionManager::disconnect(std::uint32_t app, const CmConnection& connection,
                                  std::uint64_t time_ps) {
  Side* me = nullptr;
  Side* peer = nullptr;
  Connection* c = find(app, connection, &me, &peer);
  if (c == nullptr || (c->state != State::kReplied && c->state != State::kEstablished)) {
    return EINVAL;
  }
  if (me->disconnected) return 0;  // its DREQ went already
  me->disconnected = true;
  me->disconnect_ps = time_ps;
  update_disconnect(connection.connection, *c);
  return 0;
}

void ConnectionManager::release(std::uint32_t app, const CmConnection& connection,
                                std::uint64_t time_ps) {
  Side* me = nullptr;
  Side* peer = nullptr;
  if (find(app, connection, &me, &peer) == nullptr) return;
  release_side(connection.connection, connection.passive != 0, time_ps);
}

void ConnectionManager::release_side(std::uint32_t id, bool passive, std::uint64_t time_ps) {
  Connection& c = connections_.at(id);
  Side& me = passive ? c.passive : c.active;
  Side& peer = passive ? c.active : c.passive;
  drop(me, id);
  me.gone = true;
  // Its own DISCONNECTED, if held, has nobody left to take it.
  if (me.notice == Notice::kHeld) me.notice = Notice::kNone;
  switch (c.state) {
    case State::kHeld:
      connections_.erase(id);
      return;
    case State::kRequested:
      if (!passive && !c.request_taken) {
        drop(c.passive, id);  // the listener never saw it
        connections_.erase(id);
        return;
      }
      {
        // The kernel's CM: a connecting id destroyed times its REQ out; a
        // request's id destroyed unanswered is its consumer's reject.
        CmEvent rejected = event_of(CmEventKind::kRejected, id, time_ps + kCmMessagePs);
        rejected.status = passive ? kCmRejectConsumerDefined : kCmRejectTimeout;
        queue(peer, rejected);
      }
      c.state = State::kClosed;
      break;
    case State::kReplied:
    case State::kEstablished:
      // A connected id destroyed: its kernel sends the DREQ.
      if (!me.disconnected) {
        me.disconnected = true;
        me.disconnect_ps = time_ps;
      }
      update_disconnect(id, c);
      break;
    case State::kClosed:
      break;
  }
  forget_if_done(id);
}

void ConnectionManager::ended(std::uint32_t app, std::uint64_t time_ps) {
  std::vector<std::uint32_t> ports;
  for (const auto& [port, listener] : listeners_) {
    if (listener.app == app) ports.push_back(port);
  }
  for (std::uint32_t port : ports) unlisten(app, port, time_ps);
  std::vector<std::uint32_t> ids;
  for (const auto& [id, c] : connections_) ids.push_back(id);
  for (std::uint32_t id : ids) {
    for (bool passive : {false, true}) {
      Side* me = nullptr;
      Side* peer = nullptr;
      if (find(app, CmConnection{id, passive ? 1u : 0u}, &me, &peer) != nullptr) {
        release_side(id, passive, time_ps);
      }
    }
  }
  for (auto it = queues_.begin(); it != queues_.end();) {
    it = it->first.app == app ? queues_.erase(it) : std::next(it);
  }
  clocks_[app] = kNever;  // it will cross no DREQ any more
  for (auto& [id, c] : connections_) update_disconnect(id, c);
}

void ConnectionManager::advance(std::uint32_t app, std::uint64_t time_ps) {
  std::uint64_t& clock = clocks_[app];
  if (time_ps <= clock) return;
  clock = time_ps;
  for (auto& [id, c] : connections_) {
    if ((c.active.notice == Notice::kHeld && c.passive.app == app) ||
        (c.passive.notice == Notice::kHeld && c.active.app == app)) {
      update_disconnect(id, c);
    }
  }
}

bool ConnectionManager::has_event(const CmEndpoint& channel) const {
  const auto found = queues_.find(channel);
  return found != queues_.end() && !found->second.empty();
}

std::optional<CmEvent> ConnectionManager::take_event(const CmEndpoint& channel) {
  const auto found = queues_.find(channel);
  if (found == queues_.end() || found->second.empty()) return std::nullopt;
  const auto first = found->second.begin();
  const auto key = first->first;
  const CmEvent event = first->second;
  found->second.erase(first);
  const auto c = connections_.find(event.connection);
  if (c != connections_.end()) {
    if (event.kind == CmEventKind::kConnectRequest) c->second.request_taken = true;
    for (Side* side : {&c->second.active, &c->second.passive}) {
      if (side->notice == Notice::kQueued && side->notice_key == key) {
        side->notice = Notice::kTaken;
      }
    }
  }
  return event;
}

bool ConnectionManager::holds() const {
  for (const auto& [id, c] : connections_) {
    const auto held = [](const Side& side) { return !side.gone && side.notice == Notice::kHeld; };
    if (c.state == State::kHeld || held(c.active) || held(c.passive)) {
      return true;
    }
  }
  return false;
}

void ConnectionManager::resolve_held() {
  std::vector<std::uint32_t> refused;
  for (auto& [id, c] : connections_) {
    if (c.state == State::kHeld) {
      // Nobody listens: the REQ's REJ, invalid service ID, one message back.
      refuse(id, c, kCmRejectInvalidServiceId, c.request_ps + 2 * kCmMessagePs);
      refused.push_back(id);
      continue;
    }
    for (Side* side : {&c.active, &c.passive}) {
      if (side->notice == Notice::kHeld) side->drep_released = true;
    }
    update_disconnect(id, c);
  }
  for (std::uint32_t id : refused) forget_if_done(id);
}

ConnectionManager::Connection* ConnectionManager::find(std::uint32_t app,
                                                       const CmConnection& connection, Side** me,
                                                       Side** peer) {
  const auto found = connections_.find(connection.connection);
  if (found == connections_.end()) return nullptr;
  Connection& c = found->second;
  const bool passive = connection.passive != 0;
  // A held connect has no passive side yet.
  if (passive && c.state == State::kHeld) return nullptr;
  Side& side = passive ? c.passive : c.active;
  if (side.app != app || side.gone) return nullptr;
  *me = &side;
  *peer = passive ? &c.active : &c.passive;
  return &c;
}

std::pair<std::uint64_t, std::uint64_t> ConnectionManager::queue(const Side& to, CmEvent event) {
  if (to.gone) return {};
  const auto c = connections_.find(event.connection);
  event.passive = c != connections_.end() && &to == &c->second.passive ? 1 : 0;
  const std::pair<std::uint64_t, std::uint64_t> key{event.time_ps, next_sequence_++};
  queues_[CmEndpoint{to.app, to.channel}][key] = event;
  return key;
}

void ConnectionManager::drop(const Side& side, std::uint32_t connection) {
  const auto found = queues_.find(CmEndpoint{side.app, side.channel});
  if (found == queues_.end()) return;
  for (auto it = found->second.begin(); it != found->second.end();) {
    it = it->second.connection == connection ? found->second.erase(it) : std::next(it);
  }
}

void ConnectionManager::request(std::uint32_t id, Connection& c, const Listener& listener) {
  c.state = State::kRequested;
  c.passive.app = listener.app;
  c.passive.channel = listener.channel;
  // A connect held for a later listener arrives once it listens.
  CmEvent event = event_of(CmEventKind::kConnectRequest, id,
                           std::max(c.request_ps + kCmMessagePs, listener.since_ps));
  event.listen_port = c.port;
  event.peer = as_delivered(c.active.params, kCmRequestPrivateData);
  queue(c.passive, event);
}

void ConnectionManager::refuse(std::uint32_t id, Connection& c, std::int32_t status,
                               std::uint64_t time_ps) {
  CmEvent rejected = event_of(CmEventKind::kRejected, id, time_ps);
  rejected.status = status;
  queue(c.active, rejected);
  c.state = State::kClosed;
  c.passive.gone = true;
}

void ConnectionManager::update_disconnect(std::uint32_t id, Connection& c) {
  update_notice(id, c.active, c.passive);
  update_notice(id, c.passive, c.active);
}

// A side's DISCONNECTED: at the peer's DREQ's arrival, or at the DREP to its
// own DREQ, whichever is earlier; its own DREP is held while the peer might
// still cross it with a DREQ.
void ConnectionManager::update_notice(std::uint32_t id, Side& side, const Side& peer) {
  if (side.gone || side.notice == Notice::kTaken) return;
  std::uint64_t at = kNever;
  if (peer.disconnected) at = peer.disconnect_ps + kCmMessagePs;
  if (side.disconnected) at = std::min(at, side.disconnect_ps + 2 * kCmMessagePs);
  if (at == kNever) return;
  const auto clock = clocks_.find(peer.app);
  const std::uint64_t peer_clock = clock == clocks_.end() ? 0 : clock->second;
  const bool hold = side.disconnected && !peer.disconnected && !peer.gone && !side.drep_released &&
                    peer_clock < side.disconnect_ps + kCmMessagePs;
  if (side.notice == Notice::kQueued) {
    if (!hold && side.notice_key.first == at) return;
    queues_[CmEndpoint{side.app, side.channel}].erase(side.notice_key);
    side.notice = Notice::kNone;
  }
  if (hold) {
    side.notice = Notice::kHeld;
    return;
  }
  side.notice_key = queue(side, event_of(CmEventKind::kDisconnected, id, at));
  side.notice = Notice::kQueued;
}

void ConnectionManager::forget_if_done(std::uint32_t id) {
  const auto found = connections_.find(id);
  if (found == connections_.end()) return;
  const Connection& c = found->second;
  // Nothing more can happen on it: nobody holds an id of it that could ask.
  const bool closed = c.state == State::kClosed && c.active.gone && c.passive.gone;
  const bool both_gone = c.active.gone && c.passive.gone;
  if (closed || both_gone) connections_.erase(found);
}

}  // namespace rnicsim::bridge
