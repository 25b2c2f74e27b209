#include "wire/link_config.hpp"

#include "common/time_units.hpp"

namespace rnicsim {

void declare_link_keys(config::Schema& schema) {
  schema.add(config::number_key("link.gbps", 100, "Gbit/s", "line rate of the wire")
                 .at_least(0.001)     // 1 Mbit/s
                 .at_most(1000000));  // 1 Pbit/s
  schema.add(config::number_key("link.phy_latency_ns", 0, "ns",
                                "MAC, PCS, FEC and PMA latency of both ends of the wire, transmit "
                                "plus receive, on top of the propagation delay")
                 .at_least(0)
                 .at_most(1e6));
  schema.add(config::number_key("link.propagation_ns", 0, "ns",
                                "cable propagation delay (about 5 ns per metre of fibre or copper)")
                 .at_least(0)
                 .at_most(1e9));  // 1 s
  schema.add(config::string_key("link.framing", "ethernet",
                                "none: payload bits only; ethernet: adds the protocol headers, "
                                "Ethernet header and FCS, minimum-frame padding, preamble and IFG; "
                                "roce: the item is a whole RoCEv2 frame, adds FCS, minimum-frame "
                                "padding, preamble and IFG")
                 .one_of({"none", "ethernet", "roce"}));
  schema.add(config::integer_key("link.rx_buffer_bytes", 4194304, "bytes",
                                 "receive buffer at the peer: a frame arriving when its bytes do "
                                 "not fit is dropped and counted (the wire never waits)")
                 .at_least(64)
                 .at_most(1073741824));  // 1 GiB
}

WireLinkConfig wire_link_config(const config::Section& link) {
  WireLinkConfig c;
  c.gbps = link.number("gbps");
  c.propagation = nanoseconds(link.number("propagation_ns") + link.number("phy_latency_ns"));
  c.rx_buffer_bytes = link.integer("rx_buffer_bytes");
  return c;
}

WireFraming::Kind framing_kind(const config::Section& link) {
  return parse_framing_kind(link.text("framing"));
}

}  // namespace rnicsim
