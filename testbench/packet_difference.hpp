#pragma once
// Which header two parsed packets first differ in: for tests that hold one
// parser (an RTL twin, a second decoder) to another field by field.
#include <string>

#include "formats/frame.hpp"

namespace rnicsim::testbench {

// The first header that differs, or "" when the packets agree.
inline std::string first_difference(const packet::RocePacket& a, const packet::RocePacket& b) {
  if (!(a.ethernet == b.ethernet)) return "Ethernet";
  if (!(a.ip == b.ip)) return "IP";
  if (!(a.udp == b.udp)) return "UDP";
  if (!(a.bth == b.bth)) return "BTH";
  if (!(a.reth == b.reth)) return "RETH";
  if (!(a.aeth == b.aeth)) return "AETH";
  if (!(a.atomic_eth == b.atomic_eth)) return "AtomicETH";
  if (!(a.atomic_ack_eth == b.atomic_ack_eth)) return "AtomicAckETH";
  if (!(a.imm_dt == b.imm_dt)) return "ImmDt";
  if (!(a.ieth == b.ieth)) return "IETH";
  if (!(a.deth == b.deth)) return "DETH";
  if (!(a.payload_offset == b.payload_offset)) return "payload offset";
  if (!(a.payload_length == b.payload_length)) return "payload length";
  return "";
}

}  // namespace rnicsim::testbench
