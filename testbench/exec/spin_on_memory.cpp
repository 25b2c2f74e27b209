// A ping-pong over RDMA WRITE that waits by spinning on its buffer's last
// byte, calling nothing, as perftest's write_lat does: the program the spin
// watch (model/host/app_library/spin_watch.cpp) must see waiting, or the
// run never ends. Prints the mean round trip in simulated time.
//
// usage: exec_spin_on_memory server PORT | client PORT HOST
// Built against Debian's libibverbs; run on the simulator's by rnicsim exec.
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {

constexpr int kIterations = 100;
constexpr std::size_t kBytes = 64;

struct Endpoint {
  std::uint32_t qpn;
  std::uint32_t rkey;
  std::uint64_t address;
  ibv_gid gid;
};

int fail(const char* what) {
  std::fprintf(stderr, "spin_on_memory: %s failed\n", what);
  return 1;
}

int exchange(bool server, const char* port, const char* host, const Endpoint& mine,
             Endpoint* theirs) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = server ? AI_PASSIVE : 0;
  addrinfo* found = nullptr;
  if (getaddrinfo(server ? nullptr : host, port, &hints, &found) != 0) return -1;
  int fd = socket(found->ai_family, found->ai_socktype, 0);
  if (server) {
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, found->ai_addr, found->ai_addrlen) != 0 || listen(fd, 1) != 0) return -1;
    const int connection = accept(fd, nullptr, nullptr);
    close(fd);
    fd = connection;
  } else if (connect(fd, found->ai_addr, found->ai_addrlen) != 0) {
    return -1;
  }
  freeaddrinfo(found);
  if (write(fd, &mine, sizeof mine) != sizeof mine) return -1;
  std::size_t got = 0;
  while (got < sizeof *theirs) {
    const ssize_t n = read(fd, reinterpret_cast<char*>(theirs) + got, sizeof *theirs - got);
    if (n <= 0) return -1;
    got += static_cast<std::size_t>(n);
  }
  close(fd);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return fail("usage");
  const bool server = std::strcmp(argv[1], "server") == 0;
  ibv_device** list = ibv_get_device_list(nullptr);
  if (list == nullptr || list[0] == nullptr) return fail("ibv_get_device_list");
  ibv_context* context = ibv_open_device(list[0]);
  ibv_pd* pd = ibv_alloc_pd(context);
  ibv_cq* cq = ibv_create_cq(context, 16, nullptr, nullptr, 0);
  void* raw = nullptr;
  if (posix_memalign(&raw, 4096, 4096) != 0) return fail("posix_memalign");
  auto* buffer = static_cast<volatile std::uint8_t*>(raw);
  std::memset(raw, 0, 4096);
  ibv_mr* mr = ibv_reg_mr(pd, raw, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  if (context == nullptr || pd == nullptr || cq == nullptr || mr == nullptr) return fail("set-up");
  ibv_qp_init_attr init{};
  init.send_cq = cq;
  init.recv_cq = cq;
  init.cap.max_send_wr = 4;
  init.cap.max_recv_wr = 4;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  init.qp_type = IBV_QPT_RC;
  ibv_qp* qp = ibv_create_qp(pd, &init);
  if (qp == nullptr) return fail("ibv_create_qp");

  Endpoint mine{qp->qp_num, mr->rkey, reinterpret_cast<std::uint64_t>(raw), {}};
  Endpoint theirs{};
  if (ibv_query_gid(context, 1, 0, &mine.gid) != 0) return fail("ibv_query_gid");
  if (exchange(server, argv[2], argc > 3 ? argv[3] : nullptr, mine, &theirs) != 0) {
    return fail("the exchange");
  }

  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_INIT;
  attr.port_num = 1;
  attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
  if (ibv_modify_qp(qp, &attr,
                    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0) {
    return fail("INIT");
  }
  attr = ibv_qp_attr{};
  attr.qp_state = IBV_QPS_RTR;
  attr.path_mtu = IBV_MTU_1024;
  attr.dest_qp_num = theirs.qpn;
  attr.max_dest_rd_atomic = 1;
  attr.min_rnr_timer = 12;
  attr.ah_attr.is_global = 1;
  attr.ah_attr.grh.dgid = theirs.gid;
  attr.ah_attr.grh.hop_limit = 1;
  attr.ah_attr.port_num = 1;
  if (ibv_modify_qp(qp, &attr,
                    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) != 0) {
    return fail("RTR");
  }
  attr = ibv_qp_attr{};
  attr.qp_state = IBV_QPS_RTS;
  attr.timeout = 14;
  attr.retry_cnt = 7;
  attr.rnr_retry = 7;
  attr.max_rd_atomic = 1;
  if (ibv_modify_qp(qp, &attr,
                    IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                        IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) != 0) {
    return fail("RTS");
  }

  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (int i = 1; i <= kIterations; ++i) {
    const auto mark = static_cast<std::uint8_t>(i);
    if (server) {
      while (buffer[kBytes - 1] != mark) {
        // spinning on memory: no call
      }
    }
    // The WRITE carries [kBytes, 2 kBytes) into the peer's [0, kBytes).
    buffer[2 * kBytes - 1] = mark;
    ibv_sge sge{reinterpret_cast<std::uint64_t>(raw) + kBytes, kBytes, mr->lkey};
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = theirs.address;
    wr.wr.rdma.rkey = theirs.rkey;
    ibv_send_wr* bad = nullptr;
    if (ibv_post_send(qp, &wr, &bad) != 0) return fail("ibv_post_send");
    ibv_wc wc{};
    while (ibv_poll_cq(cq, 1, &wc) == 0) {
    }
    if (wc.status != IBV_WC_SUCCESS) return fail("the WRITE");
    if (!server) {
      while (buffer[kBytes - 1] != mark) {
        // spinning on memory: no call
      }
    }
  }
  timespec end{};
  clock_gettime(CLOCK_MONOTONIC, &end);
  const double us = static_cast<double>(end.tv_sec - start.tv_sec) * 1e6 +
                    static_cast<double>(end.tv_nsec - start.tv_nsec) / 1e3;
  std::printf("%s: %d round trips, %.3f us each\n", server ? "server" : "client", kIterations,
              us / kIterations);
  return 0;
}
