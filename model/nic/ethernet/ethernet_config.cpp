#include "nic/ethernet/ethernet_config.hpp"

#include "common/time_units.hpp"

namespace rnicsim {

void declare_ethernet_keys(config::Schema& schema) {
  schema.add(config::number_key("ethernet.frame_latency_ns", 100, "ns",
                                "the port's datapath latency per frame, each way: from the "
                                "buffer read to the MAC, and from the MAC to the receive DMA")
                 .at_least(0)
                 .at_most(1e6));
  schema.add(config::integer_key("ethernet.descriptor_batch", 8, "descriptors",
                                 "descriptors the port fetches per DMA read (both rings)")
                 .at_least(1)
                 .at_most(256));
  schema.add(config::integer_key("ethernet.reads_in_flight", 8, "requests",
                                 "transmit buffer reads the port keeps outstanding")
                 .at_least(1)
                 .at_most(256));
  schema.add(config::number_key("ethernet.interrupt_delay_ns", 16000, "ns",
                                "interrupt moderation (ethtool rx-usecs): the longest an armed "
                                "interrupt waits after its first event; 0 interrupts at once")
                 .at_least(0)
                 .at_most(1e9));
  schema.add(config::integer_key("ethernet.interrupt_events", 32, "events",
                                 "interrupt moderation (ethtool rx-frames): an armed interrupt "
                                 "fires at once when this many frames are received or sent")
                 .at_least(1)
                 .at_most(65536));
}

EthernetPortConfig ethernet_port_config(const config::Section& ethernet, std::size_t queue_items) {
  EthernetPortConfig c;
  c.frame_latency = nanoseconds(ethernet.number("frame_latency_ns"));
  c.descriptor_batch = static_cast<std::uint32_t>(ethernet.integer("descriptor_batch"));
  c.reads_in_flight = static_cast<std::uint32_t>(ethernet.integer("reads_in_flight"));
  c.interrupt_delay = nanoseconds(ethernet.number("interrupt_delay_ns"));
  c.interrupt_events = static_cast<std::uint32_t>(ethernet.integer("interrupt_events"));
  c.queue_items = queue_items;
  return c;
}

}  // namespace rnicsim
