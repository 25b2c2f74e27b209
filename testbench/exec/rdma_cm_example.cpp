// A connection made with rdma_cm, and data moved over it: the client
// connects with a greeting in its private data, the server accepts with the
// address and rkey of a buffer of its own in the accept's, and the client
// then writes that buffer (RDMA WRITE) and sends a message (SEND). The
// server checks the greeting and both transfers and prints what it got;
// both disconnect and wait for DISCONNECTED. Exit 0 only if all matched.
//
// usage: rdma_cm_example server PORT | client ADDR PORT
// Built against Debian's librdmacm and libibverbs; run on the simulator's
// by rnicsim exec (testbench/exec/check_exec.py).
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr char kGreeting[] = "hello from the rdma_cm client";
constexpr char kMessage[] = "a SEND over an rdma_cm connection";
constexpr char kWritten[] = "an RDMA WRITE into the server's buffer";
constexpr std::size_t kHalf = 4096;  // the buffer: a receive half, a written half

// The accept's private data: where the client may write.
struct Target {
  std::uint64_t address;
  std::uint32_t rkey;
  std::uint32_t length;
};

bool check(bool ok, const char* what) {
  if (!ok) std::fprintf(stderr, "rdma_cm_example: %s\n", what);
  return ok;
}

// The channel's next event, which must be `expected` with status 0; the
// caller acknowledges it.
rdma_cm_event* expect_event(rdma_event_channel* channel, rdma_cm_event_type expected) {
  rdma_cm_event* event = nullptr;
  if (rdma_get_cm_event(channel, &event) != 0) {
    std::perror("rdma_cm_example: rdma_get_cm_event");
    return nullptr;
  }
  if (event->event != expected || event->status != 0) {
    std::fprintf(stderr, "rdma_cm_example: expected %s, got %s (status %d)\n",
                 rdma_event_str(expected), rdma_event_str(event->event), event->status);
    rdma_ack_cm_event(event);
    return nullptr;
  }
  return event;
}

bool next_event_is(rdma_event_channel* channel, rdma_cm_event_type expected) {
  rdma_cm_event* event = expect_event(channel, expected);
  if (event == nullptr) return false;
  rdma_ack_cm_event(event);
  return true;
}

bool wait_completion(ibv_cq* cq, ibv_wc* wc) {
  for (;;) {
    const int n = ibv_poll_cq(cq, 1, wc);
    if (n < 0) return check(false, "ibv_poll_cq failed");
    if (n == 1) return check(wc->status == IBV_WC_SUCCESS, ibv_wc_status_str(wc->status));
  }
}

// A PD, a CQ, a registered buffer and the id's QP.
struct Resources {
  ibv_pd* pd = nullptr;
  ibv_cq* cq = nullptr;
  char* buffer = nullptr;
  ibv_mr* mr = nullptr;

  bool make(rdma_cm_id* id) {
    pd = ibv_alloc_pd(id->verbs);
    if (pd == nullptr) return check(false, "ibv_alloc_pd failed");
    cq = ibv_create_cq(id->verbs, 8, nullptr, nullptr, 0);
    if (cq == nullptr) return check(false, "ibv_create_cq failed");
    buffer = static_cast<char*>(std::aligned_alloc(kHalf, 2 * kHalf));
    std::memset(buffer, 0, 2 * kHalf);
    mr = ibv_reg_mr(pd, buffer, 2 * kHalf, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (mr == nullptr) return check(false, "ibv_reg_mr failed");
    ibv_qp_init_attr attr{};
    attr.send_cq = cq;
    attr.recv_cq = cq;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = 4;
    attr.cap.max_recv_wr = 4;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    return check(rdma_create_qp(id, pd, &attr) == 0, "rdma_create_qp failed");
  }

  void destroy(rdma_cm_id* id) {
    rdma_destroy_qp(id);
    if (mr != nullptr) ibv_dereg_mr(mr);
    if (cq != nullptr) ibv_destroy_cq(cq);
    if (pd != nullptr) ibv_dealloc_pd(pd);
    std::free(buffer);
  }

  ibv_sge sge(std::size_t offset, std::size_t length) const {
    return ibv_sge{reinterpret_cast<std::uintptr_t>(buffer + offset),
                   static_cast<std::uint32_t>(length), mr->lkey};
  }
};

int run_server(const char* port) {
  rdma_event_channel* channel = rdma_create_event_channel();
  rdma_cm_id* listener = nullptr;
  if (channel == nullptr || rdma_create_id(channel, &listener, nullptr, RDMA_PS_TCP) != 0) {
    check(false, "no event channel or id");
    return 1;
  }
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_port = htons(static_cast<std::uint16_t>(std::atoi(port)));
  if (!check(rdma_bind_addr(listener, reinterpret_cast<sockaddr*>(&any)) == 0, "rdma_bind_addr") ||
      !check(rdma_listen(listener, 1) == 0, "rdma_listen failed")) {
    return 1;
  }
  rdma_cm_event* request = expect_event(channel, RDMA_CM_EVENT_CONNECT_REQUEST);
  if (request == nullptr) return 1;
  rdma_cm_id* id = request->id;
  const rdma_conn_param& asked = request->param.conn;
  bool ok = check(asked.private_data_len >= sizeof kGreeting &&
                      std::memcmp(asked.private_data, kGreeting, sizeof kGreeting) == 0,
                  "the connect request's private data is not the greeting");

  Resources r;
  if (!r.make(id)) return 1;
  // The receive is posted before the accept: the client may send at once.
  ibv_sge receive = r.sge(0, kHalf);
  ibv_recv_wr recv_wr{};
  recv_wr.sg_list = &receive;
  recv_wr.num_sge = 1;
  ibv_recv_wr* bad_recv = nullptr;
  if (!check(ibv_post_recv(id->qp, &recv_wr, &bad_recv) == 0, "ibv_post_recv failed")) return 1;
  const Target target{reinterpret_cast<std::uintptr_t>(r.buffer + kHalf), r.mr->rkey, kHalf};
  rdma_conn_param accept{};
  accept.private_data = &target;
  accept.private_data_len = sizeof target;
  accept.rnr_retry_count = 7;
  if (!check(rdma_accept(id, &accept) == 0, "rdma_accept failed")) return 1;
  rdma_ack_cm_event(request);
  ok = next_event_is(channel, RDMA_CM_EVENT_ESTABLISHED) && ok;

  ibv_wc wc{};
  ok = wait_completion(r.cq, &wc) && ok;
  ok = check(wc.opcode == IBV_WC_RECV && wc.byte_len == sizeof kMessage &&
                 std::memcmp(r.buffer, kMessage, sizeof kMessage) == 0,
             "the received message differs from what the client sent") &&
       ok;
  ok = check(std::memcmp(r.buffer + kHalf, kWritten, sizeof kWritten) == 0,
             "the written buffer differs from what the client wrote") &&
       ok;
  std::printf("rdma_cm_example server: received \"%.*s\" by SEND and \"%.*s\" by RDMA WRITE\n",
              static_cast<int>(sizeof kMessage - 1), r.buffer,
              static_cast<int>(sizeof kWritten - 1), r.buffer + kHalf);
  std::fflush(stdout);

  // The client disconnects first; this side's disconnect answers it.
  ok = next_event_is(channel, RDMA_CM_EVENT_DISCONNECTED) && ok;
  ok = check(rdma_disconnect(id) == 0, "rdma_disconnect failed") && ok;
  r.destroy(id);
  rdma_destroy_id(id);
  rdma_destroy_id(listener);
  rdma_destroy_event_channel(channel);
  return ok ? 0 : 1;
}

int run_client(const char* host, const char* port) {
  rdma_addrinfo hints{};
  hints.ai_port_space = RDMA_PS_TCP;
  rdma_addrinfo* address = nullptr;
  if (!check(rdma_getaddrinfo(host, port, &hints, &address) == 0, "rdma_getaddrinfo failed")) {
    return 1;
  }
  rdma_event_channel* channel = rdma_create_event_channel();
  rdma_cm_id* id = nullptr;
  if (channel == nullptr || rdma_create_id(channel, &id, nullptr, RDMA_PS_TCP) != 0) {
    check(false, "no event channel or id");
    return 1;
  }
  if (!check(rdma_resolve_addr(id, nullptr, address->ai_dst_addr, 2000) == 0,
             "rdma_resolve_addr failed") ||
      !next_event_is(channel, RDMA_CM_EVENT_ADDR_RESOLVED) ||
      !check(rdma_resolve_route(id, 2000) == 0, "rdma_resolve_route failed") ||
      !next_event_is(channel, RDMA_CM_EVENT_ROUTE_RESOLVED)) {
    return 1;
  }
  Resources r;
  if (!r.make(id)) return 1;
  std::memcpy(r.buffer, kMessage, sizeof kMessage);
  std::memcpy(r.buffer + kHalf, kWritten, sizeof kWritten);

  rdma_conn_param connect{};
  connect.private_data = kGreeting;
  connect.private_data_len = sizeof kGreeting;
  connect.retry_count = 7;
  connect.rnr_retry_count = 7;
  if (!check(rdma_connect(id, &connect) == 0, "rdma_connect failed")) return 1;
  rdma_cm_event* established = expect_event(channel, RDMA_CM_EVENT_ESTABLISHED);
  if (established == nullptr) return 1;
  Target target{};
  const rdma_conn_param& answer = established->param.conn;
  const bool has_target = answer.private_data_len >= sizeof target;
  if (has_target) std::memcpy(&target, answer.private_data, sizeof target);
  rdma_ack_cm_event(established);
  if (!check(has_target && target.length >= sizeof kWritten, "no target in the accept")) return 1;

  // The WRITE first: the SEND's arrival then tells the server both landed.
  ibv_sge written = r.sge(kHalf, sizeof kWritten);
  ibv_sge message = r.sge(0, sizeof kMessage);
  ibv_send_wr send{};
  send.wr_id = 2;
  send.sg_list = &message;
  send.num_sge = 1;
  send.opcode = IBV_WR_SEND;
  send.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr write{};
  write.wr_id = 1;
  write.next = &send;
  write.sg_list = &written;
  write.num_sge = 1;
  write.opcode = IBV_WR_RDMA_WRITE;
  write.send_flags = IBV_SEND_SIGNALED;
  write.wr.rdma.remote_addr = target.address;
  write.wr.rdma.rkey = target.rkey;
  ibv_send_wr* bad = nullptr;
  if (!check(ibv_post_send(id->qp, &write, &bad) == 0, "ibv_post_send failed")) return 1;
  ibv_wc wc{};
  bool ok = wait_completion(r.cq, &wc) && check(wc.wr_id == 1, "the WRITE did not complete first");
  ok = wait_completion(r.cq, &wc) && check(wc.wr_id == 2, "the SEND did not complete") && ok;
  std::printf("rdma_cm_example client: wrote and sent over rdma_cm\n");
  std::fflush(stdout);

  ok = check(rdma_disconnect(id) == 0, "rdma_disconnect failed") && ok;
  ok = next_event_is(channel, RDMA_CM_EVENT_DISCONNECTED) && ok;
  r.destroy(id);
  rdma_destroy_id(id);
  rdma_destroy_event_channel(channel);
  rdma_freeaddrinfo(address);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "server") == 0) return run_server(argv[2]);
  if (argc == 4 && std::strcmp(argv[1], "client") == 0) return run_client(argv[2], argv[3]);
  std::fprintf(stderr, "usage: rdma_cm_example server PORT | client ADDR PORT\n");
  return 2;
}
