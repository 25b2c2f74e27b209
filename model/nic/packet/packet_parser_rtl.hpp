#pragma once
// The parser engine the packet parser uses (nic/packet/parser_engine.hpp), by
// `packet.parser_impl`: the model's, or the verilated rtl/packet_parser clocked
// frame by frame, like the ICRC engine (icrc_rtl.hpp): only while it has a
// frame, one beat per cycle, and checked to answer after exactly
// ceil(bytes / width) cycles, the time the parser stage charges with
// latency 0.
//
// Free of SystemC on purpose (see icrc_rtl.hpp).
#include <cstdint>
#include <memory>

#include "common/block_impl.hpp"
#include "formats/frame.hpp"
#include "nic/packet/parser_engine.hpp"

namespace rnicsim::rtl_bridge {

// Throws std::invalid_argument for impl rtl at a width rtl/packet_parser is not
// verilated at (8 and 64 bytes per cycle; the configuration refuses others
// first).
std::unique_ptr<packet::ParserEngine> make_parser_engine(BlockImpl impl,
                                                         std::uint64_t bytes_per_cycle);

// The parse result a descriptor of rtl/packet_parser states: `words` are its
// verilated port's 32-bit words (bit 0 of word 0 is the descriptor's bit 0;
// layout in rtl/packet_parser/descriptor.fields). On failure only `error` is
// meaningful. Throws std::logic_error for an error code the model does not
// have.
packet::ParseResult parse_result_from_descriptor(const std::uint32_t* words);

}  // namespace rnicsim::rtl_bridge
