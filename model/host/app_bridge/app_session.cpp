#include "host/app_bridge/app_session.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/module_macros.hpp"
#include "common/time_units.hpp"

namespace rnicsim::bridge {
namespace {

// The request body as a sequence of records; a short body is the
// application's bug, answered EINVAL, never read past.
class BodyReader {
 public:
  explicit BodyReader(const std::vector<std::uint8_t>& body) : body_(body) {}
  template <class T>
  bool next(T& value) {
    if (body_.size() - at_ < sizeof(T)) return false;
    std::memcpy(&value, body_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }

 private:
  const std::vector<std::uint8_t>& body_;
  std::size_t at_ = 0;
};

template <class T>
void append(std::vector<std::uint8_t>& body, const T& value) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(&value);
  body.insert(body.end(), bytes, bytes + sizeof(T));
}

template <class T>
Reply reply_with(const T& value) {
  Reply reply;
  append(reply.body, value);
  return reply;
}

void copy_name(char (&to)[32], const std::string& from) {
  std::memset(to, 0, sizeof to);
  std::memcpy(to, from.data(), std::min(from.size(), sizeof to - 1));
}

QpCap cap_of(const ibv_qp_cap& cap) {
  return QpCap{cap.max_send_wr, cap.max_recv_wr, cap.max_send_sge, cap.max_recv_sge,
               cap.max_inline_data};
}

// A work request's `count` SGEs, read from the body into `sges`.
bool read_sges(BodyReader& reader, std::uint32_t count, std::vector<ibv_sge>& sges) {
  sges.resize(count);
  for (ibv_sge& sge : sges) {
    Sge s{};
    if (!reader.next(s)) return false;
    sge = ibv_sge{s.addr, s.length, s.lkey};
  }
  return true;
}

// A post verb's reply: its status and the first request it refused.
template <class Wr>
Reply post_reply(int error, const Wr* bad, const std::vector<Wr>& wrs) {
  Reply reply =
      reply_with(PostReply{bad == nullptr ? 0 : static_cast<std::uint32_t>(bad - wrs.data())});
  reply.header.status = error;
  return reply;
}

}  // namespace

AppSession::AppSession(const sc_core::sc_module_name& name, Host& host, DeviceIdentity identity,
                       MacOfGid mac_of_gid)
    : sc_core::sc_module(name),
      host_(host),
      driver_(host.software().driver),
      identity_(std::move(identity)),
      mac_of_gid_(std::move(mac_of_gid)),
      core_(identity_.node_name + ".app_core") {
  driver_.use_core(&core_);
  SC_THREAD(serve);
}

AppSession::~AppSession() {
  for (const Mapping& m : shared_) munmap(m.address, m.length);
}

void AppSession::start(const RequestHeader& header, std::vector<std::uint8_t> body, int fd) {
  request_ = Pending{header, std::move(body), fd};
  arrived_.notify(sc_core::SC_ZERO_TIME);
}

std::optional<Reply> AppSession::take_reply() {
  std::optional<Reply> reply = std::move(reply_);
  reply_.reset();
  return reply;
}

void AppSession::serve() {
  for (;;) {
    while (!request_) sc_core::wait(arrived_);
    const Pending request = std::move(*request_);
    // The application ran on from its last reply; it asks at its own time.
    const sc_core::sc_time at = sc_core::sc_time::from_value(request.header.time_ps);
    if (at > sim_now()) sc_core::wait(at - sim_now());
    Reply reply;
    try {
      reply = handle(request);
    } catch (const std::exception&) {
      // An address the application never registered, a pool run dry:
      // the verb fails, as a kernel driver's would.
      reply = failure(EINVAL);
    }
    reply.header.body_bytes = static_cast<std::uint32_t>(reply.body.size());
    reply.header.time_ps = sim_now().value();
    request_.reset();
    reply_ = std::move(reply);
    sc_core::sc_pause();
  }
}

Reply AppSession::failure(int error) const {
  Reply reply;
  reply.header.status = error;
  return reply;
}

Reply AppSession::handle(const Pending& request) {
  BodyReader body(request.body);
  switch (request.header.kind) {
    case Request::kHello:
      return hello();
    case Request::kAllocPd: {
      ibv_pd* pd = driver_.ibv_alloc_pd();
      pds_[pd->handle] = pd;
      return reply_with(Handle{pd->handle});
    }
    case Request::kDeallocPd:
    case Request::kDestroyCq:
      return Reply{};  // the driver keeps them; nothing the NIC holds changes
    case Request::kShareMemory: {
      ShareMemory share{};
      if (!body.next(share)) return failure(EINVAL);
      return share_memory(share, request.fd);
    }
    case Request::kRegMr: {
      RegMr mr{};
      if (!body.next(mr)) return failure(EINVAL);
      return reg_mr(mr);
    }
    case Request::kDeregMr: {
      Handle lkey{};
      if (!body.next(lkey)) return failure(EINVAL);
      const auto found = mrs_.find(lkey.value);
      if (found == mrs_.end()) return failure(EINVAL);
      const int error = driver_.ibv_dereg_mr(found->second);
      mrs_.erase(found);
      return failure(error);
    }
    case Request::kCreateCq: {
      CreateCq cq{};
      if (!body.next(cq)) return failure(EINVAL);
      ibv_cq* created = driver_.ibv_create_cq(static_cast<int>(cq.entries));
      if (created == nullptr) return failure(driver_.last_error());
      cqs_[created->handle] = created;
      return reply_with(CqReply{created->handle, static_cast<std::uint32_t>(created->cqe)});
    }
    case Request::kCreateQp: {
      CreateQp qp{};
      if (!body.next(qp)) return failure(EINVAL);
      return create_qp(qp);
    }
    case Request::kModifyQp: {
      ModifyQp modify{};
      if (!body.next(modify)) return failure(EINVAL);
      return modify_qp(modify);
    }
    case Request::kQueryQp: {
      Handle qpn{};
      if (!body.next(qpn) || qps_.count(qpn.value) == 0) return failure(EINVAL);
      return qp_reply(*qps_.at(qpn.value));
    }
    case Request::kDestroyQp: {
      Handle qpn{};
      if (!body.next(qpn) || qps_.count(qpn.value) == 0) return failure(EINVAL);
      const int error = driver_.ibv_destroy_qp(qps_.at(qpn.value));
      if (error == 0) qps_.erase(qpn.value);
      return failure(error);
    }
    case Request::kPostSend:
      return post_send(request.body);
    case Request::kPostRecv:
      return post_recv(request.body);
    case Request::kPollCq: {
      PollCq poll{};
      if (!body.next(poll)) return failure(EINVAL);
      return poll_cq(poll);
    }
    case Request::kWaitCqs:
      return wait_cqs(request.body);
    case Request::kWaitWrite: {
      WaitWrite wait{};
      if (!body.next(wait)) return failure(EINVAL);
      return wait_write(wait);
    }
    case Request::kSleep: {
      Sleep sleep{};
      if (!body.next(sleep)) return failure(EINVAL);
      sc_core::wait(sc_core::sc_time::from_value(sleep.duration_ps));
      return Reply{};
    }
    default:
      return failure(EINVAL);  // the launcher answers the socket notices itself
  }
}

Reply AppSession::hello() const {
  HelloReply hello{};
  copy_name(hello.device_name, identity_.device_name);
  copy_name(hello.node_name, identity_.node_name);
  hello.node_guid = identity_.node_guid;
  std::copy(identity_.gid.begin(), identity_.gid.end(), hello.gid);
  ibv_port_attr port;
  driver_.ibv_query_port(1, &port);
  hello.port_state = port.state;
  hello.max_mtu = port.max_mtu;
  hello.active_mtu = port.active_mtu;
  hello.link_layer = port.link_layer;
  hello.gid_table_length = 1;
  hello.link_gbps = identity_.link_gbps;
  hello.max_qp = identity_.max_qp;
  hello.max_qp_wr = 1 << 15;
  hello.max_sge = kMaxSendSge;
  hello.max_cq = 1 << 16;
  hello.max_cqe = 1 << 22;
  hello.max_mr = identity_.max_mr;
  hello.max_pd = 1 << 16;
  hello.max_qp_rd_atom = 16;
  hello.max_inline_data = kMaxInlineData;
  hello.max_mr_size = 1ULL << 31;
  hello.page_size_cap = host_.software().pages.page_bytes();
  // Simulated time 0 is 2026-01-01 00:00:00 UTC, the same in every run.
  hello.realtime_epoch_ns = 1767225600ULL * 1000000000ULL;
  return reply_with(hello);
}

Reply AppSession::share_memory(const ShareMemory& share, int fd) {
  constexpr std::uint64_t kPage = HostMemory::kChunkBytes;
  if (fd < 0 || share.address % kPage != 0 || share.length % kPage != 0 || share.length == 0) {
    if (fd >= 0) close(fd);
    return failure(EINVAL);
  }
  void* mapped = mmap(nullptr, share.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (mapped == MAP_FAILED) return failure(errno);
  shared_.push_back(Mapping{mapped, share.length});
  AddressSpace& space = host_.software().process;
  space.map_range(share.address, share.length);
  for (std::uint64_t offset = 0; offset < share.length; offset += kPage) {
    host_.memory.back_with(space.physical(share.address + offset),
                           static_cast<std::uint8_t*>(mapped) + offset);
  }
  return Reply{};
}

Reply AppSession::reg_mr(const RegMr& request) {
  const auto pd = pds_.find(request.pd);
  if (pd == pds_.end()) return failure(EINVAL);
  ibv_mr* mr = driver_.ibv_reg_mr(pd->second, request.address, request.length, request.access);
  if (mr == nullptr) return failure(driver_.last_error());
  mrs_[mr->lkey] = mr;
  return reply_with(MrReply{mr->lkey, mr->rkey});
}

Reply AppSession::create_qp(const CreateQp& request) {
  const auto pd = pds_.find(request.pd);
  const auto send_cq = cqs_.find(request.send_cq);
  const auto recv_cq = cqs_.find(request.recv_cq);
  if (pd == pds_.end() || send_cq == cqs_.end() || recv_cq == cqs_.end()) return failure(EINVAL);
  ibv_qp_init_attr init;
  init.send_cq = send_cq->second;
  init.recv_cq = recv_cq->second;
  init.cap.max_send_wr = request.cap.max_send_wr;
  init.cap.max_recv_wr = request.cap.max_recv_wr;
  init.cap.max_send_sge = std::max<std::uint32_t>(1, request.cap.max_send_sge);
  init.cap.max_recv_sge = std::max<std::uint32_t>(1, request.cap.max_recv_sge);
  init.cap.max_inline_data = request.cap.max_inline_data;
  ibv_qp* qp = driver_.ibv_create_qp(pd->second, init);
  if (qp == nullptr) return failure(driver_.last_error());
  qps_[qp->qp_num] = qp;
  return qp_reply(*qp);
}

Reply AppSession::qp_reply(const ibv_qp& qp) const {
  return reply_with(QpReply{qp.qp_num, qp.state, cap_of(qp.cap)});
}

Reply AppSession::modify_qp(const ModifyQp& request) {
  const auto qp = qps_.find(request.qp_num);
  if (qp == qps_.end()) return failure(EINVAL);
  ibv_qp_attr attr;
  attr.qp_state = static_cast<ibv_qp_state>(request.state);
  attr.path_mtu = static_cast<ibv_mtu>(request.path_mtu);
  attr.qkey = request.qkey;
  attr.rq_psn = request.rq_psn;
  attr.sq_psn = request.sq_psn;
  attr.dest_qp_num = request.dest_qp_num;
  attr.qp_access_flags = request.access;
  attr.pkey_index = request.pkey_index;
  attr.max_rd_atomic = request.max_rd_atomic;
  attr.max_dest_rd_atomic = request.max_dest_rd_atomic;
  attr.min_rnr_timer = request.min_rnr_timer;
  attr.port_num = request.port_num;
  attr.timeout = request.timeout;
  attr.retry_cnt = request.retry_cnt;
  attr.rnr_retry = request.rnr_retry;
  if (request.mask & IBV_QP_AV) {
    std::copy(std::begin(request.dgid), std::end(request.dgid), attr.ah_attr.dgid.begin());
    // RoCE finds the peer's MAC from its GID (ARP); here, from the testbed.
    const std::optional<std::array<std::uint8_t, 6>> mac = mac_of_gid_(attr.ah_attr.dgid);
    if (!mac) return failure(EINVAL);
    attr.ah_attr.dmac = *mac;
    attr.ah_attr.sgid_index = request.sgid_index;
    attr.ah_attr.hop_limit = request.hop_limit;
    attr.ah_attr.traffic_class = request.traffic_class;
    attr.ah_attr.flow_label = request.flow_label;
    attr.ah_attr.port_num = request.port_num;
  }
  return failure(driver_.ibv_modify_qp(qp->second, attr, request.mask));
}

Reply AppSession::post_send(const std::vector<std::uint8_t>& body) {
  BodyReader reader(body);
  PostHeader post{};
  if (!reader.next(post)) return failure(EINVAL);
  const auto qp = qps_.find(post.qp_num);
  if (qp == qps_.end()) return failure(EINVAL);
  std::vector<ibv_send_wr> wrs(post.count);
  std::vector<std::vector<ibv_sge>> sges(post.count);
  for (std::uint32_t i = 0; i < post.count; ++i) {
    SendWr wr{};
    if (!reader.next(wr)) return failure(EINVAL);
    // The opcodes and flags the model has keep libibverbs' values.
    if (wr.opcode > IBV_WR_ATOMIC_FETCH_AND_ADD ||
        (wr.send_flags & ~std::uint32_t{IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
                                        IBV_SEND_INLINE}) != 0) {
      return failure(EINVAL);
    }
    if (!read_sges(reader, wr.num_sge, sges[i])) return failure(EINVAL);
    ibv_send_wr& w = wrs[i];
    w.wr_id = wr.wr_id;
    w.sg_list = sges[i].data();
    w.num_sge = wr.num_sge;
    w.opcode = static_cast<ibv_wr_opcode>(wr.opcode);
    w.send_flags = wr.send_flags;
    w.imm_data = wr.imm_data;
    w.rdma.remote_addr = wr.remote_addr;
    w.rdma.rkey = wr.rkey;
    w.atomic.remote_addr = wr.remote_addr;
    w.atomic.rkey = wr.rkey;
    w.atomic.compare_add = wr.compare_add;
    w.atomic.swap = wr.swap;
    w.next = i + 1 < post.count ? &wrs[i + 1] : nullptr;
  }
  if (wrs.empty()) return Reply{};
  // Inline data is copied from the application's memory now: only from
  // registered (shared) pages. Checked before any WQE is written.
  const AddressSpace& space = host_.software().process;
  for (const ibv_send_wr& w : wrs) {
    if ((w.send_flags & IBV_SEND_INLINE) == 0) continue;
    for (std::uint32_t i = 0; i < w.num_sge; ++i) {
      try {
        if (w.sg_list[i].length > 0) space.frames(w.sg_list[i].addr, w.sg_list[i].length);
      } catch (const std::out_of_range&) {
        return post_reply(EINVAL, &w, wrs);
      }
    }
  }
  const ibv_send_wr* bad = nullptr;
  const int error = driver_.ibv_post_send(qp->second, wrs.data(), &bad);
  return post_reply(error, bad, wrs);
}

Reply AppSession::post_recv(const std::vector<std::uint8_t>& body) {
  BodyReader reader(body);
  PostHeader post{};
  if (!reader.next(post)) return failure(EINVAL);
  const auto qp = qps_.find(post.qp_num);
  if (qp == qps_.end()) return failure(EINVAL);
  std::vector<ibv_recv_wr> wrs(post.count);
  std::vector<std::vector<ibv_sge>> sges(post.count);
  for (std::uint32_t i = 0; i < post.count; ++i) {
    RecvWr wr{};
    if (!reader.next(wr)) return failure(EINVAL);
    if (!read_sges(reader, wr.num_sge, sges[i])) return failure(EINVAL);
    wrs[i].wr_id = wr.wr_id;
    wrs[i].sg_list = sges[i].data();
    wrs[i].num_sge = wr.num_sge;
    wrs[i].next = i + 1 < post.count ? &wrs[i + 1] : nullptr;
  }
  if (wrs.empty()) return Reply{};
  const ibv_recv_wr* bad = nullptr;
  const int error = driver_.ibv_post_recv(qp->second, wrs.data(), &bad);
  return post_reply(error, bad, wrs);
}

Reply AppSession::poll_cq(const PollCq& request) {
  const auto cq = cqs_.find(request.cq);
  if (cq == cqs_.end() || request.entries > 4096) return failure(EINVAL);
  std::vector<ibv_wc> wc(std::max<std::uint32_t>(1, request.entries));
  int found = driver_.ibv_poll_cq(cq->second, static_cast<int>(request.entries), wc.data());
  if (found == 0 && request.entries > 0 && driver_.wait_cq_for(cq->second, kEmptyPollSpin)) {
    found = driver_.ibv_poll_cq(cq->second, static_cast<int>(request.entries), wc.data());
  }
  if (found < 0) return failure(EINVAL);
  Reply reply = reply_with(PollReply{static_cast<std::uint32_t>(found)});
  for (int i = 0; i < found; ++i) {
    const ibv_wc& w = wc[i];
    append(reply.body, Wc{w.wr_id, w.status, w.opcode, w.vendor_err, w.byte_len, w.imm_data,
                          w.qp_num, w.wc_flags, 0});
  }
  return reply;
}

Reply AppSession::wait_write(const WaitWrite& request) {
  if (request.length == 0 || request.length > sizeof request.seen) return failure(EINVAL);
  const AddressSpace& space = host_.software().process;
  std::uint8_t now[sizeof request.seen];
  // The program read these bytes at its time; a write may have landed since.
  for (;;) {
    space.read(host_.memory, request.address, now, request.length);
    if (std::memcmp(now, request.seen, request.length) != 0) return Reply{};
    driver_.wait_write(request.address, request.length);
  }
}

Reply AppSession::wait_cqs(const std::vector<std::uint8_t>& body) {
  BodyReader reader(body);
  WaitCqs wait{};
  if (!reader.next(wait)) return failure(EINVAL);
  std::vector<ibv_cq*> cqs;
  for (std::uint32_t i = 0; i < wait.count; ++i) {
    Handle handle{};
    if (!reader.next(handle) || cqs_.count(handle.value) == 0) return failure(EINVAL);
    cqs.push_back(cqs_.at(handle.value));
  }
  if (cqs.empty()) return failure(EINVAL);
  // A completion channel's reader sleeps until an interrupt: no spinning.
  for (;;) {
    for (ibv_cq* cq : cqs) {
      if (driver_.cq_has_completion(cq)) return reply_with(Handle{cq->handle});
    }
    sc_core::sc_event_or_list any;
    for (ibv_cq* cq : cqs) any |= driver_.cq_written(cq);
    sc_core::wait(any);
  }
}

}  // namespace rnicsim::bridge
