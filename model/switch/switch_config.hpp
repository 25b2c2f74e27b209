#pragma once
// A switch's configuration: its "switch" and "pfc" sections (node sections,
// so nodes.<switch>.switch.<key> sets one switch's value) and the "qos"
// section's DSCP-to-class table. The ports' rates and cables come from the
// topology's links.
#include <array>
#include <cstdint>
#include <systemc>

#include "config/config.hpp"
#include "config/run_config.hpp"
#include "formats/ip_fields.hpp"
#include "switch/buffer_manager.hpp"
#include "switch/egress_scheduler.hpp"
#include "switch/red_marker.hpp"

namespace rnicsim {

// The priority (and traffic class) of an untagged IPv4 frame, by DSCP.
using packet::DscpClasses;

struct SwitchConfig {
  BufferConfig buffer;
  SchedulerConfig scheduler;
  RedProfile ecn;
  std::uint8_t ecn_classes = 0xFF;  // bit c: class c's queues mark
  // A frame that is not ECN-capable where an ECN-capable one would be
  // marked: dropped with the marking probability (true), or kept until the
  // buffer refuses it (false, tail drop).
  bool red_drop_non_ect = false;
  sc_core::sc_time forwarding;  // first bit usable to frame ready at the egress queue
  bool cut_through = false;     // forward once the header is in, not the whole frame
  DscpClasses dscp_classes{};
  std::uint64_t seed = 0;  // the ECN marking stream's
};

void declare_switch_keys(config::Schema& schema);
void declare_qos_keys(config::Schema& schema);
DscpClasses qos_dscp_classes(const config::Section& qos);
// The ECN codepoint qos.ecn names (formats/ip_fields.hpp's Ecn values).
std::uint8_t qos_ecn(const config::Section& qos);
// Switch `name`'s sections.
SwitchConfig switch_config(config::RunConfig& run, const std::string& name);

}  // namespace rnicsim
