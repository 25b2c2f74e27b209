#pragma once
// WireFraming: how many bits a payload occupies on the wire.
//
// kNone puts the payload bits on the wire as they are (the seed figure).
// kEthernet wraps the payload in its protocol headers (an Encapsulation) and
// an Ethernet frame: 14 B header, 4 B FCS, padding up to the 64 B minimum
// frame, then 8 B preamble/SFD and the 12 B inter-frame gap between frames.
// kFrame is for items that already are whole Ethernet frames, headers
// included, no FCS (the RoCEv2 frames of the packet builder; "roce" in the
// configuration): it adds only the FCS, padding to the minimum frame,
// preamble/SFD and gap.
#include <cstdint>
#include <string>

namespace rnicsim {

// The protocol headers and trailer between the Ethernet header and the FCS.
struct Encapsulation {
  std::string name;
  std::uint32_t header_bytes = 0;       // after the Ethernet header
  std::uint32_t trailer_bytes = 0;      // before the FCS (RoCEv2's ICRC)
  std::uint32_t payload_alignment = 1;  // payload padded to a multiple (RoCEv2 BTH pad: 4)
};

// RoCEv2 RDMA WRITE ONLY over IPv4: IPv4 20 + UDP 8 + BTH 12 + RETH 16, ICRC 4,
// payload padded to 4 bytes (IBTA RoCEv2 annex; Linux rxe).
Encapsulation roce_v2_write_only_ipv4();
// TCP over IPv4 with no IP or TCP options: IPv4 20 + TCP 20.
Encapsulation tcp_ipv4();

class WireFraming {
 public:
  enum class Kind { kNone, kEthernet, kFrame };

  static constexpr std::uint32_t kEthernetHeaderBytes = 14;
  static constexpr std::uint32_t kFcsBytes = 4;
  static constexpr std::uint32_t kMinFrameBytes = 64;  // incl. FCS
  static constexpr std::uint32_t kPreambleSfdBytes = 8;
  static constexpr std::uint32_t kInterFrameGapBytes = 12;

  WireFraming(Kind kind, Encapsulation encapsulation);

  std::uint64_t wire_bits(std::uint64_t payload_bits) const;
  Kind kind() const { return kind_; }
  const Encapsulation& encapsulation() const { return encapsulation_; }

 private:
  Kind kind_;
  Encapsulation encapsulation_;
};

// "none", "ethernet" or "roce" (kFrame); throws std::invalid_argument otherwise.
WireFraming::Kind parse_framing_kind(const std::string& text);
// The configuration's name of a kind: the inverse of parse_framing_kind.
const char* framing_name(WireFraming::Kind kind);

}  // namespace rnicsim
