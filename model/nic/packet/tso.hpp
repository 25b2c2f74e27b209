#pragma once
// The NIC's TCP offloads on Ethernet II / IPv4 / TCP frames (tcp_header.hpp):
// segmentation (TSO), transmit checksum insertion and the receive checksum
// check. What a segment keeps and changes follows Linux's software GSO
// (tcp_gso_segment, inet_gso_segment): headers copied, sequence number
// advanced by the payload before it, IPv4 identification incremented per
// segment, lengths and checksums recomputed, FIN and PSH only on the last
// segment, CWR only on the first.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rnicsim::packet {

// Cuts one frame whose TCP payload may exceed `mss` into frames of `mss`
// payload bytes each (the last one the rest), every one a complete frame
// with correct IPv4 and TCP checksums, padded to the Ethernet minimum. The
// headers (802.1Q tag, IPv4 and TCP options included) are copied byte for
// byte; a payload of at most `mss` gives one frame. Throws
// std::invalid_argument when the input is not a TCP/IPv4 frame
// (parse_tcp_frame) or `mss` is 0.
std::vector<std::vector<std::uint8_t>> segment_tcp(const std::uint8_t* frame, std::size_t length,
                                                   std::uint32_t mss);

// Transmit checksum offload: fills the TCP checksum of a TCP/IPv4 frame
// (built with checksum_offload). Throws std::invalid_argument for a frame
// that is not TCP/IPv4.
void insert_tcp_checksum(std::vector<std::uint8_t>& frame);

// Receive checksum offload: true when the frame is TCP/IPv4 and both its IPv4
// header checksum and its TCP checksum are right; false otherwise, a frame
// that is not TCP/IPv4 included.
bool tcp_frame_checksum_ok(const std::uint8_t* frame, std::size_t length);

}  // namespace rnicsim::packet
