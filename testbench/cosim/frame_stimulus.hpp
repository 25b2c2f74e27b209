#pragma once
// Frames for the co-simulation of the frame-stream RTL twins (rtl/icrc,
// rtl/packet_parser): real captures, our own frames, seeded random RoCEv2
// frames of every supported opcode, many damaged on purpose, and directed
// header corners. Every generator is deterministic in its seed.
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace rnicsim::cosim {

using Bytes = std::vector<std::uint8_t>;

struct Frame {
  std::string name;
  Bytes bytes;  // Ethernet header first, no FCS
};

Bytes from_hex(const std::string& hex);

// Every record of every capture in testbench/data/roce/captures: RoCEv2
// frames and whatever else was on the wire with them (rdma_cm and rping
// carry connection set-up).
std::vector<Frame> captured_frames();

// testbench/own_frames: VLAN, IPv6, odd header bits.
std::vector<Frame> own_frames();

// A well-formed RoCEv2 frame of a random supported opcode and legal size.
Bytes random_roce_frame(std::mt19937_64& rng);

// 14, or 18 behind an 802.1Q tag.
std::size_t ip_offset_of(const Bytes& frame);

// Make the ICRC field right again (when the frame is RoCEv2 by its headers),
// and the IPv4 header checksum (when the frame holds an IPv4 header).
void fix_icrc(Bytes& frame);
void fix_ipv4_checksum(Bytes& frame);

// IPv4 options: `words` x 4 random bytes after the fixed header, with IHL,
// total length, header checksum and the ICRC made right again.
void add_ipv4_options(Bytes& frame, std::size_t words, std::mt19937_64& rng);

// `count` random bytes just before the ICRC field, with the IP and UDP
// lengths and the ICRC made right again: the field then lies at any offset
// within a beat (build_frame's frames keep it 2 past a multiple of 4), and
// may straddle two beats.
void grow_before_icrc(Bytes& frame, std::size_t count, std::mt19937_64& rng);

// One of the ways a frame can go wrong (or stay right) for the ICRC engine,
// chosen at random: a flipped bit anywhere, changed variant fields, Ethernet
// padding, IPv4 options, a cut frame, a moved ICRC field, or one bit of a
// header field the engine reads.
Frame random_frame(std::size_t index, std::mt19937_64& rng);
std::vector<Frame> random_frames(std::size_t count, std::uint64_t seed);

// Three RoCEv2 frames padded past 300 KiB (longer than the RTL twins count
// positions), then one ordinary frame.
std::vector<Frame> frames_longer_than_the_counter(std::uint64_t seed);

// Directed corners, from one small frame of each header layout (IPv4, IPv6,
// each with and without VLAN, IPv4 with 40 bytes of options): the frame cut
// at every length; IPv4 IHL 0 to 4 and UDP lengths 8 to 27 with the other
// lengths made to agree, so that only that one check can refuse them; and
// the ICRC field moved byte by byte across two beats of the widest engine.
std::vector<Frame> header_corners();

}  // namespace rnicsim::cosim
