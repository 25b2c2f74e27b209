// librdmacm.so.1 for applications attached to rnicsim (rnicsim exec): the
// rdma_cm an unmodified program calls. Debian's talks to the kernel's
// /dev/infiniband/rdma_cm; this one sends the connection exchange (REQ, REP,
// REJ, RTU, DREQ) through the bridge to the launcher's connection manager
// (host/app_bridge/connection_manager.hpp), never on the simulated wire, and
// drives the QPs through our libibverbs as the kernel's CM would. The
// project's own code, built against Debian's librdmacm-dev headers; the
// symbol versions are librdmacm.map's. Functions it does not implement are
// stubs at the end of this file: each says so by name and fails.
//
// Address resolution is local: any IPv4 address means the node (127.0.0.1,
// 0.0.0.0 and the node's own address alike), and the destination is
// whichever program listens on the port; ADDR_RESOLVED and ROUTE_RESOLVED
// are queued on the channel here and come out before anything else.
#include <arpa/inet.h>
#include <netdb.h>
#include <rdma/rdma_cma.h>
#include <rdma/rsocket.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "host/app_library/app_bridge_client.hpp"

namespace {

namespace bridge = rnicsim::bridge;
using rnicsim::app::call;

// The QP attributes the kernel's IB CM would set that no rdma_cm call names.
constexpr std::uint8_t kHopLimit = 64;
constexpr std::uint8_t kAckTimeout = 14;  // 4.096 us * 2^14: 67 ms
// 0.64 ms. The kernel's IB CM sets 0 (655 ms, rdma_accept(3)); one RNR NAK
// would then stall a simulated run for 655 ms.
constexpr std::uint8_t kMinRnrTimer = 12;
constexpr std::uint8_t kDefaultRetries = 7;

void report(const char* function, const char* reason) {
  std::fprintf(stderr, "rnicsim librdmacm: %s: %s\n", function, reason);
}

// Prints "rnicsim librdmacm: <function> is not supported ..." as one line
// (one write: lines of several threads do not interleave); errno = ENOSYS.
void report_unsupported(const char* function) {
  char line[256];
  const int n = std::snprintf(line, sizeof line,
                              "rnicsim librdmacm: %s is not supported by the simulator's library "
                              "(model/host/app_library/README.md lists what is)\n",
                              function);
  if (n > 0) {
    const ssize_t written =
        write(STDERR_FILENO, line, std::min(static_cast<std::size_t>(n), sizeof line - 1));
    (void)written;  // nothing to do if stderr is closed
  }
  errno = ENOSYS;
}

int fail(int error) {
  errno = error;
  return -1;
}

struct Event {
  rdma_cm_event event{};  // first: the pointer the program holds
  std::uint8_t private_data[bridge::kCmMaxPrivateData]{};
};

struct Channel {
  rdma_event_channel channel{};  // first: the pointer the program holds
  std::uint32_t number = 0;      // the launcher's name for it
  std::deque<Event*> local;      // produced here (address, route): delivered first
};

struct Id {
  rdma_cm_id id{};  // first: the pointer the program holds
  Channel* channel = nullptr;
  bool sync = false;  // created without a channel: calls wait for their outcome
  bool bound = false;
  bool addr_resolved = false;
  bool listening = false;
  std::uint32_t connection = 0;  // the launcher's number; 0: none
  bool passive = false;          // the accepting side (made by a CONNECT_REQUEST)
  bool replied = false;          // the REP came (active side)
  bool accepted = false;
  bridge::CmParams mine{};  // what this side sent (REQ or REP)
  bridge::CmParams peer{};  // what the other side sent
  std::uint8_t tos = 0;
  std::uint8_t ack_timeout = kAckTimeout;
  bool own_send_cq = false;  // made by rdma_create_qp: destroyed with the QP
  bool own_recv_cq = false;
};

// rdma_getaddrinfo's answer: the record and the addresses it points at, in
// one allocation (rdma_freeaddrinfo deletes it by the record).
struct AddressInfo {
  rdma_addrinfo info{};  // first
  sockaddr_in source{};
  sockaddr_in destination{};
};

struct Library {
  std::mutex mutex;
  ibv_context* context = nullptr;  // the one device, opened once for every id
  ibv_pd* pd = nullptr;            // the default PD (rdma_create_qp without one)
  std::uint32_t next_channel = 1;
  std::uint32_t next_port = 0;
  std::map<std::uint32_t, Id*> listeners;                     // by port
  std::map<std::pair<std::uint32_t, bool>, Id*> connections;  // by (connection, passive)
};

Library& library() {
  static Library* l = new Library;  // lives as long as the process
  return *l;
}

const std::uint8_t* own_gid() { return rnicsim::app::device().gid; }

// The node's IPv4 address, network order: its GID is the IPv4-mapped form.
std::uint32_t ipv4_of(const std::uint8_t* gid) {
  std::uint32_t address;
  std::memcpy(&address, gid + 12, sizeof address);
  return address;
}

void set_address(sockaddr_storage& storage, std::uint32_t address, std::uint16_t port) {
  std::memset(&storage, 0, sizeof storage);
  auto& sin = reinterpret_cast<sockaddr_in&>(storage);
  sin.sin_family = AF_INET;
  sin.sin_addr.s_addr = address;
  sin.sin_port = htons(port);
}

std::uint16_t port_of(const sockaddr_storage& storage) {
  return ntohs(reinterpret_cast<const sockaddr_in&>(storage).sin_port);
}

// A deterministic starting PSN: the same run gives the same packets.
std::uint32_t start_psn(std::uint32_t qp_num) { return (qp_num * 2654435761u >> 8) & 0xFFFFFF; }

std::uint8_t max_rd_atomic() {
  return static_cast<std::uint8_t>(
      std::min<std::uint32_t>(rnicsim::app::device().max_qp_rd_atom, 255));
}

ibv_context* device_context() {
  Library& l = library();
  std::lock_guard<std::mutex> lock(l.mutex);
  if (l.context == nullptr) {
    int count = 0;
    ibv_device** list = ibv_get_device_list(&count);
    if (list != nullptr && count > 0) l.context = ibv_open_device(list[0]);
    if (list != nullptr) ibv_free_device_list(list);
  }
  return l.context;
}

std::uint16_t ephemeral_port() {
  Library& l = library();
  std::lock_guard<std::mutex> lock(l.mutex);
  // A range of its own per node, so that two programs' choices do not meet.
  const std::uint32_t node = ipv4_of(own_gid()) >> 24;  // the last octet
  return static_cast<std::uint16_t>(49152 + (node % 64) * 256 + (l.next_port++ % 256));
}

Channel* new_channel() {
  auto* c = new Channel;
  c->channel.fd = eventfd(0, EFD_CLOEXEC);  // a real descriptor; poll() on it is not served
  std::lock_guard<std::mutex> lock(library().mutex);
  c->number = library().next_channel++;
  return c;
}

void delete_channel(Channel* c) {
  for (Event* e : c->local) delete e;
  if (c->channel.fd >= 0) close(c->channel.fd);
  delete c;
}

Event* new_event(Id& id, rdma_cm_event_type type, int status) {
  auto* e = new Event;
  e->event.id = &id.id;
  e->event.event = type;
  e->event.status = status;
  return e;
}

// A local event, for the program's next rdma_get_cm_event on the id's
// channel; a synchronous id's call has already returned its outcome.
void queue_local(Id& id, rdma_cm_event_type type) {
  if (id.sync) return;
  std::lock_guard<std::mutex> lock(library().mutex);
  id.channel->local.push_back(new_event(id, type, 0));
}

// The event's connection data from the peer's REQ or REP: what the peer
// will take is what the recipient may give, and the other way round
// (rdma_get_cm_event(3)).
void fill_conn(Event& e, const bridge::CmParams& peer) {
  rdma_conn_param& conn = e.event.param.conn;
  const std::uint32_t length = std::min(peer.private_data_len, bridge::kCmMaxPrivateData);
  std::memcpy(e.private_data, peer.private_data, length);
  conn.private_data = length > 0 ? e.private_data : nullptr;
  conn.private_data_len = static_cast<std::uint8_t>(length);
  conn.responder_resources = peer.initiator_depth;
  conn.initiator_depth = peer.responder_resources;
  conn.flow_control = peer.flow_control;
  conn.retry_count = peer.retry_count;
  conn.rnr_retry_count = peer.rnr_retry_count;
  conn.srq = peer.srq;
  conn.qp_num = peer.qp_num;
}

// Binds the id to this node: any IPv4 address is the node's.
int bind_to(Id& id, const sockaddr* address, const char* function) {
  if (address == nullptr) return fail(EINVAL);
  if (address->sa_family != AF_INET) {
    report(function, "only IPv4 addresses (AF_INET) are supported");
    return fail(EAFNOSUPPORT);
  }
  if (id.bound) return fail(EINVAL);
  ibv_context* context = device_context();
  if (context == nullptr) {
    report(function, "no device: run the program under `rnicsim exec`");
    return fail(ENODEV);
  }
  sockaddr_in given;
  std::memcpy(&given, address, sizeof given);
  const std::uint16_t port = given.sin_port != 0 ? ntohs(given.sin_port) : ephemeral_port();
  set_address(id.id.route.addr.src_storage, given.sin_addr.s_addr, port);
  std::memcpy(id.id.route.addr.addr.ibaddr.sgid.raw, own_gid(), 16);
  id.id.route.addr.addr.ibaddr.pkey = htons(0xFFFF);
  id.id.verbs = context;
  id.id.port_num = 1;
  id.bound = true;
  return 0;
}

// The access a connected QP gets: the kernel's IB CM (drivers/infiniband/
// core/cm.c, cm_init_qp_init_attr) gives REMOTE_WRITE, and REMOTE_READ and
// REMOTE_ATOMIC when the side has responder resources; rdma_cm's INIT
// before any CM exchange (cma.c, cma_ib_init_qp_attr) gives none.
unsigned int remote_access(std::uint8_t responder_resources) {
  unsigned int access = IBV_ACCESS_REMOTE_WRITE;
  if (responder_resources > 0) access |= IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
  return access;
}

// RTR and RTS with what the CM exchange agreed, as the kernel's IB CM
// (cm_init_qp_rtr_attr, cm_init_qp_rts_attr): the responder resources and
// initiator depth each side accepted, the REQ's retry count, and the RNR
// retry count the other side asked for.
int connect_qp(Id& id) {
  ibv_qp* qp = id.id.qp;
  const bridge::CmParams& peer = id.peer;
  const bridge::CmParams& mine = id.mine;
  const bool active = !id.passive;
  const std::uint8_t responder = active ? peer.initiator_depth : mine.responder_resources;
  const std::uint8_t initiator = active ? peer.responder_resources : mine.initiator_depth;
  const std::uint8_t retry = active ? mine.retry_count : peer.retry_count;
  ibv_port_attr port{};
  if (ibv_query_port(qp->context, 1, &port) != 0) return EIO;
  ibv_qp_attr rtr{};
  rtr.qp_state = IBV_QPS_RTR;
  rtr.path_mtu = port.active_mtu;
  rtr.dest_qp_num = peer.qp_num;
  rtr.rq_psn = peer.psn;
  rtr.max_dest_rd_atomic = responder;
  rtr.min_rnr_timer = kMinRnrTimer;
  rtr.qp_access_flags = remote_access(responder);
  rtr.ah_attr.is_global = 1;
  std::memcpy(rtr.ah_attr.grh.dgid.raw, peer.gid, 16);
  rtr.ah_attr.grh.sgid_index = 0;
  rtr.ah_attr.grh.hop_limit = kHopLimit;
  rtr.ah_attr.grh.traffic_class = id.tos;
  rtr.ah_attr.port_num = 1;
  int error =
      ibv_modify_qp(qp, &rtr,
                    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER | IBV_QP_ACCESS_FLAGS);
  if (error != 0) return error;
  ibv_qp_attr rts{};
  rts.qp_state = IBV_QPS_RTS;
  rts.timeout = id.ack_timeout;
  rts.retry_cnt = retry & 7;
  rts.rnr_retry = peer.rnr_retry_count & 7;
  rts.sq_psn = mine.psn;
  rts.max_rd_atomic = initiator;
  return ibv_modify_qp(qp, &rts,
                       IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                           IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

// This side's parameters for a REQ or a REP.
int fill_mine(Id& id, const rdma_conn_param* param, const char* function,
              std::uint32_t private_limit) {
  bridge::CmParams& mine = id.mine;
  mine = bridge::CmParams{};
  mine.qp_num = id.id.qp != nullptr ? id.id.qp->qp_num : (param != nullptr ? param->qp_num : 0);
  mine.psn = start_psn(mine.qp_num);
  std::memcpy(mine.gid, own_gid(), 16);
  mine.port = port_of(id.id.route.addr.src_storage);
  const std::uint8_t max = max_rd_atomic();
  if (param == nullptr) {
    mine.responder_resources = id.passive ? std::min(id.peer.initiator_depth, max) : max;
    mine.initiator_depth = id.passive ? std::min(id.peer.responder_resources, max) : max;
    mine.retry_count = kDefaultRetries;
    mine.rnr_retry_count = kDefaultRetries;
    return 0;
  }
  mine.responder_resources =
      param->responder_resources == RDMA_MAX_RESP_RES ? max : param->responder_resources;
  mine.initiator_depth =
      param->initiator_depth == RDMA_MAX_INIT_DEPTH ? max : param->initiator_depth;
  if (mine.responder_resources > max || mine.initiator_depth > max) {
    report(function,
           "responder_resources and initiator_depth may not exceed the device's "
           "max_qp_rd_atom");
    return fail(EINVAL);
  }
  if (param->private_data_len > private_limit) {
    report(function, private_limit == bridge::kCmRequestPrivateData
                         ? "private data is limited to 56 bytes (RDMA_PS_TCP, rdma_connect(3))"
                         : "private data is limited to 196 bytes (RDMA_PS_TCP, rdma_accept(3))");
    return fail(EINVAL);
  }
  mine.retry_count = param->retry_count & 7;
  mine.rnr_retry_count = param->rnr_retry_count & 7;
  mine.flow_control = param->flow_control;
  mine.srq = param->srq;
  mine.private_data_len = param->private_data_len;
  if (param->private_data != nullptr) {
    std::memcpy(mine.private_data, param->private_data, param->private_data_len);
  }
  return 0;
}

Id* connection_id(std::uint32_t connection, bool passive) {
  Library& l = library();
  std::lock_guard<std::mutex> lock(l.mutex);
  const auto found = l.connections.find({connection, passive});
  return found == l.connections.end() ? nullptr : found->second;
}

void send_connection(bridge::Request kind, std::uint32_t connection, bool passive,
                     int* status = nullptr) {
  const bridge::CmConnection c{connection, passive ? 1u : 0u};
  const int error = call(kind, &c, sizeof c);
  if (status != nullptr) *status = error;
}

// The launcher's event as the program's; nullptr when it is for an id
// destroyed since (the program never sees it).
Event* convert(Channel& channel, const bridge::CmEvent& e) {
  using bridge::CmEventKind;
  if (e.kind == CmEventKind::kConnectRequest) {
    Library& l = library();
    Id* listener = nullptr;
    {
      std::lock_guard<std::mutex> lock(l.mutex);
      const auto found = l.listeners.find(e.listen_port);
      if (found != l.listeners.end()) listener = found->second;
    }
    if (listener == nullptr) {
      send_connection(bridge::Request::kCmRelease, e.connection, true);
      return nullptr;
    }
    auto* child = new Id;
    child->channel = &channel;
    child->id.channel = &channel.channel;
    child->id.context = listener->id.context;
    child->id.verbs = listener->id.verbs;
    child->id.ps = listener->id.ps;
    child->id.qp_type = listener->id.qp_type;
    child->id.port_num = 1;
    child->bound = true;
    child->addr_resolved = true;
    child->passive = true;
    child->connection = e.connection;
    child->peer = e.peer;
    child->tos = listener->tos;
    child->ack_timeout = listener->ack_timeout;
    rdma_addr& addr = child->id.route.addr;
    set_address(addr.src_storage, ipv4_of(own_gid()), static_cast<std::uint16_t>(e.listen_port));
    set_address(addr.dst_storage, ipv4_of(e.peer.gid), static_cast<std::uint16_t>(e.peer.port));
    std::memcpy(addr.addr.ibaddr.sgid.raw, own_gid(), 16);
    std::memcpy(addr.addr.ibaddr.dgid.raw, e.peer.gid, 16);
    addr.addr.ibaddr.pkey = htons(0xFFFF);
    {
      std::lock_guard<std::mutex> lock(l.mutex);
      l.connections[{e.connection, true}] = child;
    }
    Event* out = new_event(*child, RDMA_CM_EVENT_CONNECT_REQUEST, 0);
    out->event.listen_id = &listener->id;
    fill_conn(*out, e.peer);
    return out;
  }
  Id* id = connection_id(e.connection, e.passive != 0);
  if (id == nullptr) return nullptr;
  switch (e.kind) {
    case CmEventKind::kReply: {
      id->peer = e.peer;
      id->replied = true;
      std::memcpy(id->id.route.addr.addr.ibaddr.dgid.raw, e.peer.gid, 16);
      if (id->id.qp == nullptr) {
        // The program drives its own QP; rdma_establish sends the RTU.
        Event* out = new_event(*id, RDMA_CM_EVENT_CONNECT_RESPONSE, 0);
        fill_conn(*out, e.peer);
        return out;
      }
      int error = connect_qp(*id);
      if (error == 0) send_connection(bridge::Request::kCmEstablished, e.connection, false, &error);
      if (error != 0) {
        // As librdmacm: the connection is given up and the program told.
        send_connection(bridge::Request::kCmRelease, e.connection, false);
        {
          std::lock_guard<std::mutex> lock(library().mutex);
          library().connections.erase({e.connection, false});
        }
        id->connection = 0;
        return new_event(*id, RDMA_CM_EVENT_CONNECT_ERROR, -error);
      }
      Event* out = new_event(*id, RDMA_CM_EVENT_ESTABLISHED, 0);
      fill_conn(*out, e.peer);
      return out;
    }
    case CmEventKind::kRejected: {
      Event* out = new_event(*id, RDMA_CM_EVENT_REJECTED, e.status);
      fill_conn(*out, e.peer);
      return out;
    }
    case CmEventKind::kEstablished: {
      Event* out = new_event(*id, RDMA_CM_EVENT_ESTABLISHED, 0);
      // The RTU carries nothing; the REQ's figures stay what the id agreed.
      fill_conn(*out, bridge::CmParams{});
      out->event.param.conn.qp_num = id->peer.qp_num;
      return out;
    }
    case CmEventKind::kDisconnected:
      return new_event(*id, RDMA_CM_EVENT_DISCONNECTED, 0);
    default:
      return nullptr;
  }
}

// A synchronous id's call waits for its outcome on its own channel.
int complete(Id& id, rdma_cm_event_type expected) {
  rdma_cm_event* event = nullptr;
  if (rdma_get_cm_event(&id.channel->channel, &event) != 0) return -1;
  const rdma_cm_event_type got = event->event;
  const int status = event->status;
  rdma_ack_cm_event(event);
  if (got == expected && status == 0) return 0;
  return fail(got == RDMA_CM_EVENT_REJECTED ? ECONNREFUSED : (status < 0 ? -status : EIO));
}

void destroy_own_cqs(Id& id) {
  const auto destroy = [](ibv_cq*& cq, ibv_comp_channel*& channel) {
    if (cq != nullptr) ibv_destroy_cq(cq);
    if (channel != nullptr) ibv_destroy_comp_channel(channel);
    cq = nullptr;
    channel = nullptr;
  };
  if (id.own_send_cq) destroy(id.id.send_cq, id.id.send_cq_channel);
  if (id.own_recv_cq) destroy(id.id.recv_cq, id.id.recv_cq_channel);
  id.own_send_cq = false;
  id.own_recv_cq = false;
}

// rdma_create_qp(3): a CQ the attributes leave out is made for the QP, with
// a completion channel of its own.
int make_missing_cqs(Id& id, ibv_qp_init_attr_ex& attr) {
  const auto make = [&id](std::uint32_t entries, ibv_cq** cq, ibv_comp_channel** channel) {
    *channel = ibv_create_comp_channel(id.id.verbs);
    if (*channel == nullptr) return false;
    *cq = ibv_create_cq(id.id.verbs, static_cast<int>(std::max(entries, 1u)), &id.id, *channel, 0);
    return *cq != nullptr;
  };
  if (attr.send_cq == nullptr) {
    id.own_send_cq = true;
    if (!make(attr.cap.max_send_wr, &id.id.send_cq, &id.id.send_cq_channel)) return -1;
    attr.send_cq = id.id.send_cq;
  }
  if (attr.recv_cq == nullptr) {
    id.own_recv_cq = true;
    if (!make(attr.cap.max_recv_wr, &id.id.recv_cq, &id.id.recv_cq_channel)) return -1;
    attr.recv_cq = id.id.recv_cq;
  }
  return 0;
}

}  // namespace

extern "C" {

rdma_event_channel* rdma_create_event_channel(void) {
  if (!rnicsim::app::attached()) {
    report("rdma_create_event_channel",
           "no simulator is attached: run the program under `rnicsim exec`");
    errno = ENODEV;
    return nullptr;
  }
  return &new_channel()->channel;
}

void rdma_destroy_event_channel(rdma_event_channel* channel) {
  if (channel != nullptr) delete_channel(reinterpret_cast<Channel*>(channel));
}

int rdma_create_id(rdma_event_channel* channel, rdma_cm_id** id, void* context,
                   rdma_port_space ps) {
  if (id == nullptr) return fail(EINVAL);
  if (ps != RDMA_PS_TCP && ps != RDMA_PS_IB) {
    report("rdma_create_id",
           "only connected (RC) port spaces are supported: RDMA_PS_TCP, RDMA_PS_IB");
    return fail(EOPNOTSUPP);
  }
  if (!rnicsim::app::attached()) {
    report("rdma_create_id", "no simulator is attached: run the program under `rnicsim exec`");
    return fail(ENODEV);
  }
  auto* i = new Id;
  i->sync = channel == nullptr;
  i->channel = i->sync ? new_channel() : reinterpret_cast<Channel*>(channel);
  i->id.channel = &i->channel->channel;
  i->id.context = context;
  i->id.ps = ps;
  i->id.qp_type = IBV_QPT_RC;
  *id = &i->id;
  return 0;
}

int rdma_destroy_id(rdma_cm_id* id) {
  if (id == nullptr) return fail(EINVAL);
  auto* i = reinterpret_cast<Id*>(id);
  Library& l = library();
  if (i->listening) {
    const bridge::CmPort port{port_of(id->route.addr.src_storage)};
    call(bridge::Request::kCmUnlisten, &port, sizeof port);
    std::lock_guard<std::mutex> lock(l.mutex);
    l.listeners.erase(port.port);
  }
  if (i->connection != 0) {
    send_connection(bridge::Request::kCmRelease, i->connection, i->passive);
    std::lock_guard<std::mutex> lock(l.mutex);
    l.connections.erase({i->connection, i->passive});
  }
  {
    std::lock_guard<std::mutex> lock(l.mutex);
    auto& local = i->channel->local;
    for (auto it = local.begin(); it != local.end();) {
      if ((*it)->event.id == id) {
        delete *it;
        it = local.erase(it);
      } else {
        ++it;
      }
    }
  }
  destroy_own_cqs(*i);
  if (i->sync) delete_channel(i->channel);
  delete i;
  return 0;
}

int rdma_bind_addr(rdma_cm_id* id, sockaddr* addr) {
  if (id == nullptr) return fail(EINVAL);
  return bind_to(*reinterpret_cast<Id*>(id), addr, "rdma_bind_addr");
}

int rdma_resolve_addr(rdma_cm_id* id, sockaddr* src_addr, sockaddr* dst_addr, int /*timeout_ms*/) {
  if (id == nullptr || dst_addr == nullptr) return fail(EINVAL);
  auto* i = reinterpret_cast<Id*>(id);
  if (dst_addr->sa_family != AF_INET) {
    report("rdma_resolve_addr", "only IPv4 addresses (AF_INET) are supported");
    return fail(EAFNOSUPPORT);
  }
  if (!i->bound) {
    sockaddr_in any{};
    any.sin_family = AF_INET;
    any.sin_addr.s_addr = ipv4_of(own_gid());
    const sockaddr* source = src_addr != nullptr ? src_addr : reinterpret_cast<sockaddr*>(&any);
    if (bind_to(*i, source, "rdma_resolve_addr") != 0) return -1;
  }
  std::memset(&id->route.addr.dst_storage, 0, sizeof id->route.addr.dst_storage);
  std::memcpy(&id->route.addr.dst_storage, dst_addr, sizeof(sockaddr_in));
  i->addr_resolved = true;
  queue_local(*i, RDMA_CM_EVENT_ADDR_RESOLVED);
  return 0;
}

int rdma_resolve_route(rdma_cm_id* id, int /*timeout_ms*/) {
  if (id == nullptr) return fail(EINVAL);
  auto* i = reinterpret_cast<Id*>(id);
  if (!i->addr_resolved) return fail(EINVAL);
  queue_local(*i, RDMA_CM_EVENT_ROUTE_RESOLVED);
  return 0;
}

int rdma_create_qp_ex(rdma_cm_id* id, ibv_qp_init_attr_ex* attr) {
  if (id == nullptr || attr == nullptr) return fail(EINVAL);
  auto* i = reinterpret_cast<Id*>(id);
  if (id->verbs == nullptr || id->qp != nullptr) return fail(EINVAL);
  ibv_pd* pd = (attr->comp_mask & IBV_QP_INIT_ATTR_PD) && attr->pd != nullptr ? attr->pd : id->pd;
  if (pd == nullptr) {
    Library& l = library();
    std::lock_guard<std::mutex> lock(l.mutex);
    if (l.pd == nullptr) l.pd = ibv_alloc_pd(id->verbs);
    pd = l.pd;
  }
  if (pd == nullptr) return -1;
  attr->pd = pd;
  attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
  if (make_missing_cqs(*i, *attr) != 0) {
    destroy_own_cqs(*i);
    return -1;
  }
  // verbs.h's: ibv_create_qp for a plain request, the context's extended op
  // for one with more (perftest's send_ops_flags).
  ibv_qp* qp = ibv_create_qp_ex(id->verbs, attr);
  if (qp == nullptr) {
    destroy_own_cqs(*i);
    return -1;
  }
  // INIT, as rdma_cm leaves a new QP: a request's id already has its CM
  // exchange (the REQ's initiator depth is its responder resources); an
  // active id has none yet.
  ibv_qp_attr init{};
  init.qp_state = IBV_QPS_INIT;
  init.pkey_index = 0;
  init.port_num = 1;
  init.qp_access_flags = i->passive ? remote_access(i->peer.initiator_depth) : 0;
  const int error = ibv_modify_qp(
      qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
  if (error != 0) {
    ibv_destroy_qp(qp);
    destroy_own_cqs(*i);
    return fail(error);
  }
  id->qp = qp;
  return 0;
}

int rdma_create_qp(rdma_cm_id* id, ibv_pd* pd, ibv_qp_init_attr* qp_init_attr) {
  if (id == nullptr || qp_init_attr == nullptr) return fail(EINVAL);
  // ibv_qp_init_attr_ex begins with ibv_qp_init_attr's fields.
  ibv_qp_init_attr_ex attr{};
  std::memcpy(&attr, qp_init_attr, sizeof *qp_init_attr);
  attr.comp_mask = IBV_QP_INIT_ATTR_PD;
  attr.pd = pd != nullptr ? pd : id->pd;
  const int result = rdma_create_qp_ex(id, &attr);
  std::memcpy(qp_init_attr, &attr, sizeof *qp_init_attr);
  return result;
}

void rdma_destroy_qp(rdma_cm_id* id) {
  if (id == nullptr || id->qp == nullptr) return;
  ibv_destroy_qp(id->qp);
  id->qp = nullptr;
  destroy_own_cqs(*reinterpret_cast<Id*>(id));
}

int rdma_listen(rdma_cm_id* id, int backlog) {
  if (id == nullptr || backlog < 0) return fail(EINVAL);
  auto* i = reinterpret_cast<Id*>(id);
  if (i->listening || i->connection != 0) return fail(EINVAL);
  if (!i->bound) {
    sockaddr_in any{};
    any.sin_family = AF_INET;
    if (bind_to(*i, reinterpret_cast<sockaddr*>(&any), "rdma_listen") != 0) return -1;
  }
  const bridge::CmListen listen{i->channel->number, port_of(id->route.addr.src_storage),
                                static_cast<std::uint32_t>(backlog)};
  const int error = call(bridge::Request::kCmListen, &listen, sizeof listen);
  if (error != 0) return fail(error);
  std::lock_guard<std::mutex> lock(library().mutex);
  library().listeners[listen.port] = i;
  i->listening = true;
  return 0;
}

int rdma_connect(rdma_cm_id* id, rdma_conn_param* conn_param) {
  if (id == nullptr) return fail(EINVAL);
  auto* i = reinterpret_cast<Id*>(id);
  if (!i->addr_resolved || i->passive || i->connection != 0 || i->listening) return fail(EINVAL);
  if (id->qp == nullptr && conn_param == nullptr) return fail(EINVAL);
  if (fill_mine(*i, conn_param, "rdma_connect", bridge::kCmRequestPrivateData) != 0) return -1;
  bridge::CmConnect connect{};
  connect.channel = i->channel->number;
  connect.port = port_of(id->route.addr.dst_storage);
  connect.params = i->mine;
  std::vector<std::uint8_t> body;
  const int error = call(bridge::Request::kCmConnect, &connect, sizeof connect, &body);
  if (error != 0 || body.size() != sizeof(bridge::CmConnection))
    return fail(error != 0 ? error : EIO);
  bridge::CmConnection made{};
  std::memcpy(&made, body.data(), sizeof made);
  i->connection = made.connection;
  {
    std::lock_guard<std::mutex> lock(library().mutex);
    library().connections[{made.connection, false}] = i;
  }
  return i->sync ? complete(*i, RDMA_CM_EVENT_ESTABLISHED) : 0;
}

int rdma_establish(rdma_cm_id* id) {
  if (id == nullptr) return fail(EINVAL);
  auto* i = reinterpret_cast<Id*>(id);
  if (i->passive || !i->replied || i->connection == 0) return fail(EINVAL);
  int error = 0;
  send_connection(bridge::Request::kCmEstablished, i->connection, false, &error);
  return error != 0 ? fail(error) : 0;
}

int rdma_accept(rdma_cm_id* id, rdma_conn_param* conn_param) {
  if (id == nullptr) return fail(EINVAL);
  auto* i = reinterpret_cast<Id*>(id);
  if (!i->passive || i->connection == 0 || i->accepted) return fail(EINVAL);
  if (fill_mine(*i, conn_param, "rdma_accept", bridge::kCmReplyPrivateData) != 0) return -1;
  if (id->qp != nullptr) {
    const int error = connect_qp(*i);
    if (error != 0) return fail(error);
  }
  bridge::CmAccept accept{};
  accept.connection = i->connection;
  accept.channel = i->channel->number;
  accept.params = i->mine;
  const int error = call(bridge::Request::kCmAccept, &accept, sizeof accept);
  if (error != 0) return fail(error);
  i->accepted = true;
  return i->sync ? complete(*i, RDMA_CM_EVENT_ESTABLISHED) : 0;
}

int rdma_reject(rdma_cm_id* id, const void* private_data, std::uint8_t private_data_len) {
  if (id == nullptr) return fail(EINVAL);
  auto* i = reinterpret_cast<Id*>(id);
  if (!i->passive || i->connection == 0 || i->accepted) return fail(EINVAL);
  if (private_data_len > bridge::kCmRejectPrivateData) {
    report("rdma_reject", "private data is limited to 148 bytes (an IB CM REJ's)");
    return fail(EINVAL);
  }
  bridge::CmReject reject{};
  reject.connection = i->connection;
  reject.private_data_len = private_data_len;
  if (private_data != nullptr) std::memcpy(reject.private_data, private_data, private_data_len);
  const int error = call(bridge::Request::kCmReject, &reject, sizeof reject);
  return error != 0 ? fail(error) : 0;
}

int rdma_disconnect(rdma_cm_id* id) {
  if (id == nullptr) return fail(EINVAL);
  auto* i = reinterpret_cast<Id*>(id);
  if (i->connection == 0) return fail(EINVAL);
  // rdma_disconnect(3): the QP goes to the error state, flushing its work.
  if (id->qp != nullptr) {
    ibv_qp_attr error_state{};
    error_state.qp_state = IBV_QPS_ERR;
    const int error = ibv_modify_qp(id->qp, &error_state, IBV_QP_STATE);
    if (error != 0) return fail(error);
  }
  int error = 0;
  send_connection(bridge::Request::kCmDisconnect, i->connection, i->passive, &error);
  return error != 0 ? fail(error) : 0;
}

int rdma_get_cm_event(rdma_event_channel* channel, rdma_cm_event** event) {
  if (channel == nullptr || event == nullptr) return fail(EINVAL);
  auto* c = reinterpret_cast<Channel*>(channel);
  {
    std::lock_guard<std::mutex> lock(library().mutex);
    if (!c->local.empty()) {
      *event = &c->local.front()->event;
      c->local.pop_front();
      return 0;
    }
  }
  // Blocks until the launcher has an event for the channel (a non-blocking
  // descriptor is not honoured: README).
  for (;;) {
    const bridge::CmChannel request{c->number};
    std::vector<std::uint8_t> body;
    const int error = call(bridge::Request::kCmGetEvent, &request, sizeof request, &body);
    if (error != 0 || body.size() != sizeof(bridge::CmEvent)) return fail(error != 0 ? error : EIO);
    bridge::CmEvent e{};
    std::memcpy(&e, body.data(), sizeof e);
    if (Event* out = convert(*c, e)) {
      *event = &out->event;
      return 0;
    }
  }
}

int rdma_ack_cm_event(rdma_cm_event* event) {
  if (event == nullptr) return fail(EINVAL);
  delete reinterpret_cast<Event*>(event);
  return 0;
}

__be16 rdma_get_src_port(rdma_cm_id* id) {
  return reinterpret_cast<const sockaddr_in&>(id->route.addr.src_storage).sin_port;
}

__be16 rdma_get_dst_port(rdma_cm_id* id) {
  return reinterpret_cast<const sockaddr_in&>(id->route.addr.dst_storage).sin_port;
}

ibv_context** rdma_get_devices(int* num_devices) {
  ibv_context* context = rnicsim::app::attached() ? device_context() : nullptr;
  auto** list = new ibv_context* [2] { context, nullptr };
  if (num_devices != nullptr) *num_devices = context != nullptr ? 1 : 0;
  return list;
}

void rdma_free_devices(ibv_context** list) { delete[] list; }

const char* rdma_event_str(rdma_cm_event_type event) {
  switch (event) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
      return "RDMA_CM_EVENT_ADDR_RESOLVED";
    case RDMA_CM_EVENT_ADDR_ERROR:
      return "RDMA_CM_EVENT_ADDR_ERROR";
    case RDMA_CM_EVENT_ROUTE_RESOLVED:
      return "RDMA_CM_EVENT_ROUTE_RESOLVED";
    case RDMA_CM_EVENT_ROUTE_ERROR:
      return "RDMA_CM_EVENT_ROUTE_ERROR";
    case RDMA_CM_EVENT_CONNECT_REQUEST:
      return "RDMA_CM_EVENT_CONNECT_REQUEST";
    case RDMA_CM_EVENT_CONNECT_RESPONSE:
      return "RDMA_CM_EVENT_CONNECT_RESPONSE";
    case RDMA_CM_EVENT_CONNECT_ERROR:
      return "RDMA_CM_EVENT_CONNECT_ERROR";
    case RDMA_CM_EVENT_UNREACHABLE:
      return "RDMA_CM_EVENT_UNREACHABLE";
    case RDMA_CM_EVENT_REJECTED:
      return "RDMA_CM_EVENT_REJECTED";
    case RDMA_CM_EVENT_ESTABLISHED:
      return "RDMA_CM_EVENT_ESTABLISHED";
    case RDMA_CM_EVENT_DISCONNECTED:
      return "RDMA_CM_EVENT_DISCONNECTED";
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
      return "RDMA_CM_EVENT_DEVICE_REMOVAL";
    case RDMA_CM_EVENT_MULTICAST_JOIN:
      return "RDMA_CM_EVENT_MULTICAST_JOIN";
    case RDMA_CM_EVENT_MULTICAST_ERROR:
      return "RDMA_CM_EVENT_MULTICAST_ERROR";
    case RDMA_CM_EVENT_ADDR_CHANGE:
      return "RDMA_CM_EVENT_ADDR_CHANGE";
    case RDMA_CM_EVENT_TIMEWAIT_EXIT:
      return "RDMA_CM_EVENT_TIMEWAIT_EXIT";
  }
  return "UNKNOWN EVENT";
}

int rdma_set_option(rdma_cm_id* id, int level, int optname, void* optval, std::size_t optlen) {
  if (id == nullptr || optval == nullptr) return fail(EINVAL);
  auto* i = reinterpret_cast<Id*>(id);
  if (level == RDMA_OPTION_ID) {
    switch (optname) {
      case RDMA_OPTION_ID_TOS:  // the QP's traffic class
        if (optlen != sizeof(std::uint8_t)) return fail(EINVAL);
        i->tos = *static_cast<std::uint8_t*>(optval);
        return 0;
      case RDMA_OPTION_ID_ACK_TIMEOUT:  // the QP's local ACK timeout
        if (optlen != sizeof(std::uint8_t)) return fail(EINVAL);
        i->ack_timeout = *static_cast<std::uint8_t*>(optval);
        return 0;
      case RDMA_OPTION_ID_REUSEADDR:  // a port is the node's either way
      case RDMA_OPTION_ID_AFONLY:     // IPv4 only either way
        return optlen == sizeof(int) ? 0 : fail(EINVAL);
      default:
        break;
    }
  }
  report("rdma_set_option", "this option is not supported (README lists the supported ones)");
  return fail(ENOSYS);
}

int rdma_getaddrinfo(const char* node, const char* service, const rdma_addrinfo* hints,
                     rdma_addrinfo** res) {
  if (res == nullptr) return fail(EINVAL);
  if (hints != nullptr && hints->ai_family != AF_UNSPEC && hints->ai_family != AF_INET) {
    report("rdma_getaddrinfo", "only IPv4 addresses (AF_INET) are supported");
    return EAI_FAMILY;
  }
  const bool passive = hints != nullptr && (hints->ai_flags & RAI_PASSIVE);
  auto* r = new AddressInfo;
  rdma_addrinfo& info = r->info;
  info.ai_flags = hints != nullptr ? hints->ai_flags : 0;
  info.ai_family = AF_INET;
  info.ai_qp_type = hints != nullptr && hints->ai_qp_type != 0 ? hints->ai_qp_type : IBV_QPT_RC;
  info.ai_port_space =
      hints != nullptr && hints->ai_port_space != 0 ? hints->ai_port_space : RDMA_PS_TCP;
  if (node != nullptr || service != nullptr) {
    addrinfo want{};
    want.ai_family = AF_INET;
    want.ai_socktype = SOCK_STREAM;
    want.ai_flags = (passive ? AI_PASSIVE : 0) |
                    (hints != nullptr && (hints->ai_flags & RAI_NUMERICHOST) ? AI_NUMERICHOST : 0);
    addrinfo* found = nullptr;
    const int error = getaddrinfo(node, service, &want, &found);
    if (error != 0) {
      delete r;
      return error;
    }
    std::memcpy(passive ? &r->source : &r->destination, found->ai_addr, sizeof(sockaddr_in));
    freeaddrinfo(found);
    if (passive) {
      info.ai_src_addr = reinterpret_cast<sockaddr*>(&r->source);
      info.ai_src_len = sizeof r->source;
    } else {
      info.ai_dst_addr = reinterpret_cast<sockaddr*>(&r->destination);
      info.ai_dst_len = sizeof r->destination;
    }
  }
  // Addresses the hints give and the name did not.
  if (hints != nullptr && info.ai_src_addr == nullptr && hints->ai_src_addr != nullptr &&
      hints->ai_src_addr->sa_family == AF_INET) {
    std::memcpy(&r->source, hints->ai_src_addr, sizeof r->source);
    info.ai_src_addr = reinterpret_cast<sockaddr*>(&r->source);
    info.ai_src_len = sizeof r->source;
  }
  if (hints != nullptr && info.ai_dst_addr == nullptr && hints->ai_dst_addr != nullptr &&
      hints->ai_dst_addr->sa_family == AF_INET && !passive) {
    std::memcpy(&r->destination, hints->ai_dst_addr, sizeof r->destination);
    info.ai_dst_addr = reinterpret_cast<sockaddr*>(&r->destination);
    info.ai_dst_len = sizeof r->destination;
  }
  if (info.ai_src_addr == nullptr && info.ai_dst_addr == nullptr) {
    delete r;
    return EAI_NONAME;
  }
  *res = &info;
  return 0;
}

void rdma_freeaddrinfo(rdma_addrinfo* res) {
  while (res != nullptr) {
    rdma_addrinfo* next = res->ai_next;
    delete reinterpret_cast<AddressInfo*>(res);
    res = next;
  }
}

}  // extern "C"

// Every other function Debian's librdmacm.so.1 exports (librdmacm.map): one
// line on standard error naming it, and the failure its man page gives:
// -1 with errno ENOSYS, or NULL, or nothing for a void function.
#define RNICSIM_EXPORT extern "C" __attribute__((visibility("default")))
#define UNSUPPORTED(ret, name, params, failure) \
  RNICSIM_EXPORT ret name params {              \
    report_unsupported(#name);                  \
    return failure;                             \
  }

// clang-format off
UNSUPPORTED(int, rdma_create_ep, (rdma_cm_id**, rdma_addrinfo*, ibv_pd*, ibv_qp_init_attr*), -1)
RNICSIM_EXPORT void rdma_destroy_ep(rdma_cm_id*) { report_unsupported("rdma_destroy_ep"); }
UNSUPPORTED(int, rdma_create_srq, (rdma_cm_id*, ibv_pd*, ibv_srq_init_attr*), -1)
UNSUPPORTED(int, rdma_create_srq_ex, (rdma_cm_id*, ibv_srq_init_attr_ex*), -1)
RNICSIM_EXPORT void rdma_destroy_srq(rdma_cm_id*) { report_unsupported("rdma_destroy_srq"); }
UNSUPPORTED(int, rdma_get_request, (rdma_cm_id*, rdma_cm_id**), -1)
UNSUPPORTED(int, rdma_join_multicast, (rdma_cm_id*, sockaddr*, void*), -1)
UNSUPPORTED(int, rdma_join_multicast_ex, (rdma_cm_id*, rdma_cm_join_mc_attr_ex*, void*), -1)
UNSUPPORTED(int, rdma_leave_multicast, (rdma_cm_id*, sockaddr*), -1)
UNSUPPORTED(int, rdma_migrate_id, (rdma_cm_id*, rdma_event_channel*), -1)
UNSUPPORTED(int, rdma_notify, (rdma_cm_id*, ibv_event_type), -1)
UNSUPPORTED(int, rdma_init_qp_attr, (rdma_cm_id*, ibv_qp_attr*, int*), -1)
UNSUPPORTED(int, rdma_set_local_ece, (rdma_cm_id*, ibv_ece*), -1)
UNSUPPORTED(int, rdma_get_remote_ece, (rdma_cm_id*, ibv_ece*), -1)
UNSUPPORTED(int, rdma_reject_ece, (rdma_cm_id*, const void*, uint8_t), -1)

// rsockets (rdma/rsocket.h).
UNSUPPORTED(int, rsocket, (int, int, int), -1)
UNSUPPORTED(int, rbind, (int, const sockaddr*, socklen_t), -1)
UNSUPPORTED(int, rlisten, (int, int), -1)
UNSUPPORTED(int, raccept, (int, sockaddr*, socklen_t*), -1)
UNSUPPORTED(int, rconnect, (int, const sockaddr*, socklen_t), -1)
UNSUPPORTED(int, rshutdown, (int, int), -1)
UNSUPPORTED(int, rclose, (int), -1)
UNSUPPORTED(ssize_t, rrecv, (int, void*, size_t, int), -1)
UNSUPPORTED(ssize_t, rrecvfrom, (int, void*, size_t, int, sockaddr*, socklen_t*), -1)
UNSUPPORTED(ssize_t, rrecvmsg, (int, msghdr*, int), -1)
UNSUPPORTED(ssize_t, rsend, (int, const void*, size_t, int), -1)
UNSUPPORTED(ssize_t, rsendto, (int, const void*, size_t, int, const sockaddr*, socklen_t), -1)
UNSUPPORTED(ssize_t, rsendmsg, (int, const msghdr*, int), -1)
UNSUPPORTED(ssize_t, rread, (int, void*, size_t), -1)
UNSUPPORTED(ssize_t, rreadv, (int, const iovec*, int), -1)
UNSUPPORTED(ssize_t, rwrite, (int, const void*, size_t), -1)
UNSUPPORTED(ssize_t, rwritev, (int, const iovec*, int), -1)
UNSUPPORTED(int, rpoll, (pollfd*, nfds_t, int), -1)
UNSUPPORTED(int, rselect, (int, fd_set*, fd_set*, fd_set*, timeval*), -1)
UNSUPPORTED(int, rgetpeername, (int, sockaddr*, socklen_t*), -1)
UNSUPPORTED(int, rgetsockname, (int, sockaddr*, socklen_t*), -1)
UNSUPPORTED(int, rsetsockopt, (int, int, int, const void*, socklen_t), -1)
UNSUPPORTED(int, rgetsockopt, (int, int, int, void*, socklen_t*), -1)
UNSUPPORTED(int, rfcntl, (int, int, ...), -1)
UNSUPPORTED(off_t, riomap, (int, void*, size_t, int, int, off_t), -1)
UNSUPPORTED(int, riounmap, (int, void*, size_t), -1)
UNSUPPORTED(size_t, riowrite, (int, const void*, size_t, off_t, int), static_cast<size_t>(-1))
// clang-format on
