#pragma once
// One direction of a PCIe link: a wire that serializes TLPs and DLLPs one
// after another at the link rate. Occupancy is arithmetic (busy-until), so a
// TLP costs no kernel event here. Reservations must come in time order, which
// holds when they are made at the simulation time the packet is ready.
#include <cstdint>
#include <systemc>

namespace rnicsim::pcie {

struct LinkDirectionStats {
  std::uint64_t tlps = 0;
  std::uint64_t tlp_bytes = 0;    // on the wire, framing included
  std::uint64_t dllps = 0;
  sc_core::sc_time busy;          // time the wire carried something
};

class LinkDirection {
 public:
  struct Slot {
    sc_core::sc_time end;      // last byte sent
    sc_core::sc_time arrival;  // last byte received at the other end
  };

  LinkDirection(double gbps, const sc_core::sc_time& latency);

  // Sends `wire_bytes` as soon as the wire is free at or after `now`.
  Slot send_tlp(std::uint32_t wire_bytes, const sc_core::sc_time& now);
  void send_dllp(std::uint32_t wire_bytes, const sc_core::sc_time& now);

  const LinkDirectionStats& stats() const { return stats_; }

 private:
  sc_core::sc_time occupy(std::uint32_t wire_bytes, const sc_core::sc_time& now);

  double gbps_;
  sc_core::sc_time latency_;
  sc_core::sc_time busy_until_;
  LinkDirectionStats stats_;
};

}  // namespace rnicsim::pcie
