#pragma once
// The NIC's own addresses on the wire: what the transport puts in its
// headers and the kernel stack in its frames.
#include <array>
#include <cstdint>

namespace rnicsim {

// The NIC's own addresses on the wire.
struct NicAddress {
  std::array<std::uint8_t, 6> mac{};
  std::uint32_t ipv4 = 0;
};

}  // namespace rnicsim
