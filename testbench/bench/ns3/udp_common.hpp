#pragma once
// What the ns-3 peers of rnicsim's speed figures share (udp_stream.cc,
// udp_incast.cc): the link's rate, the bytes ns-3 puts around a UDP payload,
// the port, and the wall clock they time ns-3's run with.
#include <chrono>
#include <cstdint>

namespace rnicsim_ns3 {

constexpr uint64_t kLinkBitsPerSecond = 100'000'000'000;
constexpr uint64_t kPicosecondsPerSecond = 1'000'000'000'000;
// What PointToPointNetDevice puts around a UDP payload on the wire: PPP (2 B),
// IPv4 (20 B) and UDP (8 B) headers. ns-3 models no preamble, FCS or gap.
constexpr uint64_t kHeaderBytes = 2 + 20 + 8;
constexpr uint16_t kPort = 9;
// UdpClient writes a 12 B header into each payload; 65507 B fill an IPv4 datagram.
constexpr uint32_t kMinPayload = 12;
constexpr uint32_t kMaxPayload = 65507;

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace rnicsim_ns3
