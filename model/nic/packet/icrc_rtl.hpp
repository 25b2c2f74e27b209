#pragma once
// The ICRC engine the ICRC blocks use (nic/packet/icrc_engine.hpp), by their
// `icrc.impl`: the model's, or the verilated rtl/icrc clocked frame by frame.
//
// The RTL engine runs the verilated model only while it has a frame: one
// eval at each clock level per cycle, one beat per cycle, until the result
// comes, the cycle after the last beat. It checks that the RTL took exactly
// ceil(bytes / width) cycles (a different count is a logic_error naming the
// frame's length): the time the ICRC stage charges, since the configuration
// holds impl rtl to the same width and to latency 0.
//
// Free of SystemC on purpose: Verilator's headers change what they declare
// when SystemC's are included first, and the verilated library is built
// without them.
#include <cstdint>
#include <memory>

#include "common/block_impl.hpp"
#include "nic/packet/icrc_engine.hpp"

namespace rnicsim::rtl_bridge {

// Throws std::invalid_argument for impl rtl at a width rtl/icrc is not
// verilated at (8 and 64 bytes per cycle; the configuration refuses others
// first).
std::unique_ptr<packet::IcrcEngine> make_icrc_engine(BlockImpl impl, std::uint64_t bytes_per_cycle);

}  // namespace rnicsim::rtl_bridge
