#pragma once
// Sets up RC connections between two nodes of a testbed the way a verbs
// application does: each side creates a PD, its CQs and QPs, the two sides
// exchange QP numbers, PSNs and GIDs out of band (perftest uses a TCP
// socket; here they are handed over directly), and each QP goes
// RESET -> INIT -> RTR -> RTS with ibv_modify_qp. Call from an SC_THREAD.
#include <cstdint>
#include <vector>

#include "host/driver/verbs.hpp"
#include "system/testbed.hpp"

namespace rnicsim {

struct RcSide {
  VerbsDriver* driver = nullptr;
  std::size_t node = 0;
  ibv_pd* pd = nullptr;
  ibv_cq* send_cq = nullptr;  // send_cqs[0]
  ibv_cq* recv_cq = nullptr;  // recv_cqs[0]
  // One pair per RcOptions::cq_groups: QP i completes into pair i % groups.
  std::vector<ibv_cq*> send_cqs;
  std::vector<ibv_cq*> recv_cqs;
  std::vector<ibv_qp*> qps;
};

inline ibv_qp_cap default_cap() {
  ibv_qp_cap cap;
  cap.max_send_wr = 128;
  cap.max_recv_wr = 128;
  cap.max_send_sge = 4;
  cap.max_recv_sge = 3;
  cap.max_inline_data = 256;
  return cap;
}

struct RcOptions {
  std::uint32_t qps = 1;
  ibv_qp_cap cap = default_cap();
  int cq_entries = 1024;  // of each CQ
  // Pairs of send and receive CQs, one per application thread polling its
  // own QPs (created in pairs, in order: with 1 as before there were groups).
  std::uint32_t cq_groups = 1;
  ibv_mtu mtu = IBV_MTU_1024;
  std::uint32_t access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                         IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
  std::uint8_t max_rd_atomic = 16;
  std::uint8_t min_rnr_timer = 12;  // 0.64 ms, perftest's value
  std::uint8_t timeout = 14;
  std::uint8_t retry_cnt = 7;
  std::uint8_t rnr_retry = 7;
  std::uint32_t first_psn = 0;
  std::uint8_t traffic_class = 0;  // the QPs' ah_attr.grh.traffic_class (DSCP << 2 | ECN)  // side
                                   // a's QP i starts at first_psn + i, side b's at + 0x1000
};

// Creates the PD, CQs and QPs of `node` (its driver must be attached).
RcSide create_rc_side(Testbed& testbed, std::size_t node, const RcOptions& options);
// Connects QP i of `a` with QP i of `b` and moves both to RTS. Throws
// std::runtime_error naming the verb that failed.
void connect_rc(Testbed& testbed, RcSide& a, RcSide& b, const RcOptions& options);

}  // namespace rnicsim
