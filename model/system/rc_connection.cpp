#include "system/rc_connection.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace rnicsim {
namespace {

void check(int result, VerbsDriver& driver, const char* what) {
  if (result != 0) {
    throw std::runtime_error(std::string(what) + " failed: " + driver.last_error_reason());
  }
}

template <class T>
T* check(T* result, VerbsDriver& driver, const char* what) {
  if (result == nullptr) {
    throw std::runtime_error(std::string(what) + " failed: " + driver.last_error_reason());
  }
  return result;
}

void to_rts(VerbsDriver& driver, ibv_qp* qp, std::uint32_t remote_qpn, std::uint32_t rq_psn,
            std::uint32_t sq_psn, std::size_t remote_node, const RcOptions& o) {
  ibv_qp_attr attr;
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = 1;
  attr.qp_access_flags = o.access;
  check(driver.ibv_modify_qp(qp, attr,
                             IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
        driver, "ibv_modify_qp(INIT)");
  attr = ibv_qp_attr{};
  attr.qp_state = IBV_QPS_RTR;
  attr.path_mtu = o.mtu;
  attr.dest_qp_num = remote_qpn;
  attr.rq_psn = rq_psn;
  attr.max_dest_rd_atomic = o.max_rd_atomic;
  attr.min_rnr_timer = o.min_rnr_timer;
  attr.ah_attr.dgid = node_gid(remote_node);
  attr.ah_attr.dmac = node_address(remote_node).mac;
  attr.ah_attr.traffic_class = o.traffic_class;
  check(driver.ibv_modify_qp(qp, attr,
                             IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                                 IBV_QP_MIN_RNR_TIMER),
        driver, "ibv_modify_qp(RTR)");
  attr = ibv_qp_attr{};
  attr.qp_state = IBV_QPS_RTS;
  attr.sq_psn = sq_psn;
  attr.timeout = o.timeout;
  attr.retry_cnt = o.retry_cnt;
  attr.rnr_retry = o.rnr_retry;
  attr.max_rd_atomic = o.max_rd_atomic;
  check(driver.ibv_modify_qp(qp, attr,
                             IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC),
        driver, "ibv_modify_qp(RTS)");
}

}  // namespace

RcSide create_rc_side(Testbed& testbed, std::size_t node, const RcOptions& options) {
  RcSide side;
  side.node = node;
  side.driver = &testbed.node(node).software().driver;
  VerbsDriver& d = *side.driver;
  side.pd = check(d.ibv_alloc_pd(), d, "ibv_alloc_pd");
  for (std::uint32_t g = 0; g < std::max<std::uint32_t>(1, options.cq_groups); ++g) {
    side.send_cqs.push_back(check(d.ibv_create_cq(options.cq_entries), d, "ibv_create_cq"));
    side.recv_cqs.push_back(check(d.ibv_create_cq(options.cq_entries), d, "ibv_create_cq"));
  }
  side.send_cq = side.send_cqs.front();
  side.recv_cq = side.recv_cqs.front();
  ibv_qp_init_attr init;
  init.cap = options.cap;
  for (std::uint32_t i = 0; i < options.qps; ++i) {
    init.send_cq = side.send_cqs[i % side.send_cqs.size()];
    init.recv_cq = side.recv_cqs[i % side.recv_cqs.size()];
    side.qps.push_back(check(d.ibv_create_qp(side.pd, init), d, "ibv_create_qp"));
  }
  return side;
}

void connect_rc(Testbed&, RcSide& a, RcSide& b, const RcOptions& options) {
  for (std::size_t i = 0; i < a.qps.size(); ++i) {
    const std::uint32_t a_psn = (options.first_psn + static_cast<std::uint32_t>(i)) & 0xFFFFFF;
    const std::uint32_t b_psn = (a_psn + 0x1000) & 0xFFFFFF;
    to_rts(*a.driver, a.qps[i], b.qps[i]->qp_num, b_psn, a_psn, b.node, options);
    to_rts(*b.driver, b.qps[i], a.qps[i]->qp_num, a_psn, b_psn, a.node, options);
  }
}

}  // namespace rnicsim
