#pragma once
// The Ethernet port's config section ("ethernet", per node).
#include <cstdint>
#include <systemc>

#include "config/config.hpp"
#include "config/run_config.hpp"

namespace rnicsim {

struct EthernetPortConfig {
  sc_core::sc_time frame_latency;        // descriptor to MAC, and MAC to receive DMA, per frame
  std::uint32_t descriptor_batch = 0;    // descriptors fetched per DMA read
  std::uint32_t reads_in_flight = 0;     // transmit buffer reads outstanding
  sc_core::sc_time interrupt_delay;      // moderation: from the first event to the interrupt
  std::uint32_t interrupt_events = 0;    // moderation: this many events interrupt at once
  std::size_t queue_items = 0;           // frames waiting between the MAC and the port
};

void declare_ethernet_keys(config::Schema& schema);
EthernetPortConfig ethernet_port_config(const config::Section& ethernet, std::size_t queue_items);

}  // namespace rnicsim
