#pragma once
// Random RoCEv2 headers and payloads for the tests that need many different
// frames: the codec round trips and the RTL twins' co-simulation.
#include <cstdint>
#include <random>
#include <vector>

#include "formats/frame.hpp"

namespace rnicsim::testbench {

std::vector<std::uint8_t> random_bytes(std::mt19937_64& rng, std::size_t length);

// Headers with every non-derived field random, carrying the extended headers
// `opcode` needs (a supported one, find_opcode).
packet::RocePacket random_headers(std::uint8_t opcode, bool ipv6, bool vlan, std::mt19937_64& rng);

// Every opcode the model supports, in increasing order.
std::vector<std::uint8_t> supported_opcodes();

}  // namespace rnicsim::testbench
