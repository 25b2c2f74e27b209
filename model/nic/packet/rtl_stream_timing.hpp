#pragma once
// The configuration rule of a frame-stream block with an RTL twin (the ICRC
// blocks, the packet parser): with `impl` rtl the stage's timing must be the
// RTL's, so that swapping the RTL in changes no time. That is a width the
// RTL is verilated at (rtl/CMakeLists.txt) and latency 0, since the RTL
// answers the cycle after a frame's last beat.
#include <string>

#include "config/config.hpp"

namespace rnicsim::packet {

struct RtlStreamKeys {
  std::string impl;     // "icrc.impl"
  std::string width;    // "icrc.bytes_per_cycle"
  std::string latency;  // "icrc.latency_cycles"
  std::string rtl;      // "rtl/icrc", for the message
};

// Adds the rule to `schema`; the keys must be declared.
void add_rtl_stream_timing_check(config::Schema& schema, const RtlStreamKeys& keys);

}  // namespace rnicsim::packet
