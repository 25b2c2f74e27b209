#pragma once
// RankLink: one rank's messages to and from its peers, MPI's nonblocking
// point-to-point (isend, irecv, wait) over either transport, so that the
// algorithms (collective_algorithms) are written once.
//
//   RdmaRankLink: one PD, one CQ and two RC QPs per peer the algorithms join
//     (connected as perftest connects, system/rc_connection); a message is a
//     SEND (inline up to 236 bytes, perftest's send_lat size). Up to
//     eager_bytes it goes on the eager QP into one of the bounce buffers the
//     receiver keeps posted, and is copied out when the rank asks for it (MPI
//     libraries' eager protocol: the NIC finds receive WQEs posted and
//     prefetched); above, on the direct QP into the receive the rank posted
//     for it. Messages on a QP match receives in order, so a rank posts them
//     in the order its peer sends. A SEND that finds no receive posted is
//     answered by an RNR NAK and sent again (IBTA 9.7.5.2.8), slow but exact;
//     the algorithms post receives ahead to avoid it.
//   TcpRankLink: one kernel TCP connection per peer (host/kernel), a send
//     and a receive worker thread per connection doing blocking send() and
//     recv() in request order, as a progress engine over nonblocking sockets.
//
// Every request's CPU is charged to the rank's core: the verbs' or the
// kernel's own costs, plus collectives.step_ns of library work per message.
// Call from SystemC threads.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "system/application_api.hpp"
#include "system/node.hpp"
#include "system/testbed.hpp"

namespace rnicsim {

class RankLink {
 public:
  using Request = std::size_t;
  virtual ~RankLink() = default;

  // `bytes` at `va` (the rank's application memory) to or from `peer` (a rank).
  virtual Request isend(std::size_t peer, std::uint64_t va, std::uint64_t bytes) = 0;
  virtual Request irecv(std::size_t peer, std::uint64_t va, std::uint64_t bytes) = 0;
  // Whether a send of `bytes` has taken them once isend returns (an RDMA
  // SEND posted inline), so the buffer may be rewritten before it completes.
  virtual bool takes_bytes_at_post(std::uint64_t bytes) const = 0;
  virtual void wait(Request request) = 0;
  // Every receive posted so far: the rank has all it was sent.
  void wait_receives() {
    for (Request r = 0; r < done_.size(); ++r) {
      if (receive_[r]) wait(r);
    }
  }
  // Every request made so far (the sends' completions too); request numbers
  // start again from 0.
  void wait_all() {
    for (Request r = 0; r < done_.size(); ++r) wait(r);
    done_.clear();
    receive_.clear();
  }
  // The core the rank's application (and its reductions) runs on.
  virtual CpuCore& core() = 0;
  // Cores to report (the application's, and for TCP the one taking interrupts).
  virtual std::vector<const CpuCore*> cores() const = 0;

 protected:
  // The operation's requests, numbered from 0 in the order they are made.
  Request next_request(bool receive) {
    done_.push_back(0);
    receive_.push_back(receive ? 1 : 0);
    return done_.size() - 1;
  }
  bool done(Request request) const { return done_[request] != 0; }
  void complete(Request request) { done_[request] = 1; }

 private:
  std::vector<char> done_;     // per request of the operation: completed
  std::vector<char> receive_;  // and whether it is a receive
};

// The RDMA ranks on the testbed's first nodes (`names`: theirs): rank i on node i, a QP between
// each pair `pairs` names (i < j), `buffer_bytes` of each rank's memory
// registered from the va each rank's allocate() gives. Call from one thread
// at set-up (the verbs' commands take simulated time).
struct RdmaRankOptions {
  ibv_mtu mtu = IBV_MTU_1024;
  std::uint8_t traffic_class = 0;
  std::uint32_t queue_depth = 1024;  // send and receive WRs per QP
  sc_core::sc_time step_cost = sc_core::SC_ZERO_TIME;
  // The eager channel: messages up to eager_bytes go to one of eager_depth
  // bounce buffers per peer, kept posted, and are copied out at copy_gbps.
  std::uint64_t eager_bytes = 8192;
  std::uint32_t eager_depth = 0;  // 0: no eager channel
  double copy_gbps = 80;
};
std::vector<std::unique_ptr<RankLink>> connect_rdma_ranks(
    Testbed& testbed, const std::vector<std::string>& names,
    const std::vector<std::pair<std::size_t, std::size_t>>& pairs,
    const std::vector<std::uint64_t>& buffer_va, std::uint64_t buffer_bytes,
    const RdmaRankOptions& options);

// The TCP ranks: rank i uses stacks[i], whose connection to peer j is
// connection[i].at(j).
std::vector<std::unique_ptr<RankLink>> tcp_ranks(
    std::vector<KernelStack*> stacks,
    const std::vector<std::map<std::size_t, std::size_t>>& connection,
    const sc_core::sc_time& step_cost);

}  // namespace rnicsim
