#pragma once
// DCQCN's notification point: the receiving NIC turns CE marks into CNPs.
//
//   demux --(a CE-marked request or READ response of QP q)--> marked()
//     --> a CNP to q's peer QP (BTH opcode 0x81, BECN, 16 reserved bytes,
//         its own DSCP) --> transmit (the packet builder's input)
//   the NIC's port starts sending a CNP --> sent() --> q's interval begins
//
// At most one CNP per QP per interval (dcqcn.*: the paper's cnp_interval_us,
// the firmware's min_time_between_cnps_us), counted from when the previous
// one for that QP began to leave the port, and none while one is on its
// way: so no two CNPs for a QP are closer on the wire than the interval.
#include <cstdint>
#include <deque>
#include <systemc>
#include <unordered_map>

#include "common/channel.hpp"
#include "common/module_macros.hpp"
#include "common/transfer.hpp"
#include "nic/packet/packet_blocks.hpp"
#include "nic/transport/transport_shared.hpp"

namespace rnicsim {

struct NotificationPointStats {
  std::uint64_t np_ecn_marked_roce_packets = 0;  // CE-marked requests and READ responses received
  std::uint64_t np_cnp_sent = 0;                 // CNPs that began to leave the port
};

class NotificationPoint : public sc_core::sc_module {
 public:
  sc_core::sc_port<NbPushIf<packet::TransmitRequest>> out;

  RNICSIM_PROCESS_MODULE(NotificationPoint);
  NotificationPoint(const sc_core::sc_module_name& name, TransportShared& shared);

  bool enabled() const { return shared_.config().dcqcn.rp.preset != DcqcnPreset::kOff; }
  // A received request or READ response marked CE, for the NIC's QP `qpn`.
  void marked(std::uint32_t qpn);
  // A frame the NIC's port began to send at `first_bit` (its tap).
  void frame_sent(const Transfer& frame, const sc_core::sc_time& first_bit);

  const NotificationPointStats& stats() const { return stats_; }

 private:
  struct QpState {
    bool on_its_way = false;  // a CNP made and not yet at the port
    bool sent_before = false;
    std::uint64_t last_sent_ps = 0;
  };
  void push_waiting();
  void run();

  TransportShared& shared_;
  std::unordered_map<std::uint32_t, QpState> qps_;
  std::deque<packet::TransmitRequest> waiting_;  // CNPs the full transmit channel held back
  std::deque<std::uint32_t> on_their_way_;       // QPs of the CNPs made, in order
  sc_core::sc_event retry_;
  NotificationPointStats stats_;
};

}  // namespace rnicsim
