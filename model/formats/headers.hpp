#pragma once
// The protocol headers of a RoCEv2 frame and their wire encoding (network byte
// order). Layouts follow the IBTA specification as Linux implements it (rxe_hdr.h,
// ib_pack.h). Each fixed-size header has kSize, encode() into a buffer of at
// least kSize bytes and decode() from one; bounds are the caller's job
// (parse_frame checks them once per frame), so these stay branch-free.
//
// Derived fields (lengths, checksums, BTH pad count) are carried as plain
// values: decode() reports what the wire says and build_frame() overwrites
// them with what the packet needs.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace rnicsim::packet {

constexpr std::uint16_t kRoceV2UdpPort = 4791;  // IANA
constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
constexpr std::uint16_t kEtherTypeIpv6 = 0x86DD;
constexpr std::uint16_t kEtherTypeVlan = 0x8100;  // 802.1Q
constexpr std::uint8_t kIpProtocolUdp = 17;
constexpr std::uint16_t kIpv4DontFragment = 0x4000;
constexpr std::uint16_t kIpv4MoreFragments = 0x2000;
constexpr std::uint16_t kIpv4FragmentOffsetMask = 0x1FFF;
constexpr std::uint16_t kDefaultPkey = 0xFFFF;
constexpr std::uint32_t kPsnMask = 0x00FFFFFF;  // PSN, QPN and MSN are 24 bits
constexpr std::size_t kIcrcSize = 4;

inline std::uint16_t load_be16(const std::uint8_t* in) {
  return static_cast<std::uint16_t>((in[0] << 8) | in[1]);
}
inline std::uint32_t load_be24(const std::uint8_t* in) {
  return (std::uint32_t{in[0]} << 16) | (std::uint32_t{in[1]} << 8) | in[2];
}
inline std::uint32_t load_be32(const std::uint8_t* in) {
  return (std::uint32_t{in[0]} << 24) | load_be24(in + 1);
}
inline std::uint64_t load_be64(const std::uint8_t* in) {
  return (std::uint64_t{load_be32(in)} << 32) | load_be32(in + 4);
}
inline void store_be16(std::uint16_t value, std::uint8_t* out) {
  out[0] = static_cast<std::uint8_t>(value >> 8);
  out[1] = static_cast<std::uint8_t>(value);
}
inline void store_be24(std::uint32_t value, std::uint8_t* out) {
  out[0] = static_cast<std::uint8_t>(value >> 16);
  out[1] = static_cast<std::uint8_t>(value >> 8);
  out[2] = static_cast<std::uint8_t>(value);
}
inline void store_be32(std::uint32_t value, std::uint8_t* out) {
  out[0] = static_cast<std::uint8_t>(value >> 24);
  store_be24(value, out + 1);
}
inline void store_be64(std::uint64_t value, std::uint8_t* out) {
  store_be32(static_cast<std::uint32_t>(value >> 32), out);
  store_be32(static_cast<std::uint32_t>(value), out + 4);
}

using MacAddress = std::array<std::uint8_t, 6>;
using Ipv6Address = std::array<std::uint8_t, 16>;

// Destination and source MAC, at most one 802.1Q tag, EtherType. No FCS: the
// model's frames end with the ICRC, as the captures do.
struct EthernetHeader {
  static constexpr std::size_t kSize = 14;
  static constexpr std::size_t kVlanTagSize = 4;

  MacAddress destination{};
  MacAddress source{};
  std::optional<std::uint16_t> vlan_tci;      // PCP(3) DEI(1) VID(12) when tagged
  std::uint16_t ether_type = kEtherTypeIpv4;  // of the payload (the inner type when tagged)

  std::size_t size() const { return kSize + (vlan_tci ? kVlanTagSize : 0); }
  void encode(std::uint8_t* out) const;
  // nullopt when `length` bytes do not hold the header and its tag. A second
  // tag (QinQ) is not unwrapped: it shows up as EtherType 0x8100 or 0x88A8.
  static std::optional<EthernetHeader> decode(const std::uint8_t* in, std::size_t length);
  bool operator==(const EthernetHeader& other) const;
};

// IPv4 without options (IHL 5); options on received packets are skipped by
// the frame parser, which reads IHL itself.
struct Ipv4Header {
  static constexpr std::size_t kSize = 20;

  std::uint8_t tos = 0;  // DSCP(6) ECN(2); masked out of the ICRC
  std::uint16_t total_length = 0;
  std::uint16_t identification = 0;
  std::uint16_t flags_fragment = kIpv4DontFragment;  // flags(3) fragment offset(13)
  std::uint8_t ttl = 64;
  std::uint8_t protocol = kIpProtocolUdp;
  std::uint16_t checksum = 0;
  std::uint32_t source = 0;
  std::uint32_t destination = 0;

  void encode(std::uint8_t* out) const;  // writes IHL 5 and the checksum as given
  static Ipv4Header decode(const std::uint8_t* in);
  bool operator==(const Ipv4Header& other) const;
};

// RFC 1071 one's-complement sum of 16-bit words added to `sum`, folded to 16
// bits; an odd trailing byte is the high byte of a word padded with zero.
// The IPv4 header checksum and the TCP checksum are its complement.
std::uint32_t ones_complement_sum(const std::uint8_t* data, std::size_t length,
                                  std::uint32_t sum = 0);

// The RFC 1071 checksum an IPv4 header of `length` bytes should carry: its
// own checksum field (bytes 10-11) counts as zero.
std::uint16_t ipv4_header_checksum(const std::uint8_t* header, std::size_t length);
// True when the header's checksum field matches its contents.
bool ipv4_header_checksum_ok(const std::uint8_t* header, std::size_t length);

// The fixed 40-byte IPv6 header; extension headers are not supported.
struct Ipv6Header {
  static constexpr std::size_t kSize = 40;

  std::uint8_t traffic_class = 0;  // masked out of the ICRC
  std::uint32_t flow_label = 0;    // 20 bits; masked out of the ICRC
  std::uint16_t payload_length = 0;
  std::uint8_t next_header = kIpProtocolUdp;
  std::uint8_t hop_limit = 64;  // masked out of the ICRC
  Ipv6Address source{};
  Ipv6Address destination{};

  void encode(std::uint8_t* out) const;
  static Ipv6Header decode(const std::uint8_t* in);
  bool operator==(const Ipv6Header& other) const;
};

struct UdpHeader {
  static constexpr std::size_t kSize = 8;

  std::uint16_t source_port = 0xC000;  // free; rxe uses 0xC000 + hash(QPN)
  std::uint16_t destination_port = kRoceV2UdpPort;
  std::uint16_t length = 0;    // header + BTH + ... + ICRC
  std::uint16_t checksum = 0;  // 0 in every real capture; masked out of the ICRC

  void encode(std::uint8_t* out) const;
  static UdpHeader decode(const std::uint8_t* in);
  bool operator==(const UdpHeader& other) const;
};

// Base Transport Header. Reserved fields are kept so that a received packet
// re-encodes to the same bytes; hardware does set them (Huawei: byte 4 = 0x10).
struct Bth {
  static constexpr std::size_t kSize = 12;

  std::uint8_t opcode = 0;
  bool solicited_event = false;
  bool mig_req = false;
  std::uint8_t pad_count = 0;  // 2 bits
  std::uint8_t tver = 0;       // 4 bits; only 0 is defined
  std::uint16_t pkey = kDefaultPkey;
  bool fecn = false;  // byte 4 (FECN, BECN, resv6a) is masked out of the ICRC
  bool becn = false;
  std::uint8_t resv6a = 0;    // 6 bits
  std::uint32_t dest_qp = 0;  // 24 bits
  bool ack_req = false;
  std::uint8_t resv7 = 0;  // 7 bits
  std::uint32_t psn = 0;   // 24 bits

  void encode(std::uint8_t* out) const;
  static Bth decode(const std::uint8_t* in);
  bool operator==(const Bth& other) const;
};

// RDMA Extended Transport Header: target of a WRITE or READ.
struct Reth {
  static constexpr std::size_t kSize = 16;

  std::uint64_t virtual_address = 0;
  std::uint32_t rkey = 0;
  std::uint32_t dma_length = 0;

  void encode(std::uint8_t* out) const;
  static Reth decode(const std::uint8_t* in);
  bool operator==(const Reth& other) const;
};

// ACK Extended Transport Header. Syndrome bits 6:5 give ACK / RNR NAK / NAK
// (REFERENCE section 5).
struct Aeth {
  static constexpr std::size_t kSize = 4;

  std::uint8_t syndrome = 0;
  std::uint32_t msn = 0;  // 24 bits

  void encode(std::uint8_t* out) const;
  static Aeth decode(const std::uint8_t* in);
  bool operator==(const Aeth& other) const;
};

// Atomic Extended Transport Header of COMPARE & SWAP and FETCH & ADD.
struct AtomicEth {
  static constexpr std::size_t kSize = 28;

  std::uint64_t virtual_address = 0;
  std::uint32_t rkey = 0;
  std::uint64_t swap_add = 0;  // swap value, or the addend of FETCH & ADD
  std::uint64_t compare = 0;

  void encode(std::uint8_t* out) const;
  static AtomicEth decode(const std::uint8_t* in);
  bool operator==(const AtomicEth& other) const;
};

struct AtomicAckEth {
  static constexpr std::size_t kSize = 8;

  std::uint64_t original_data = 0;

  void encode(std::uint8_t* out) const;
  static AtomicAckEth decode(const std::uint8_t* in);
  bool operator==(const AtomicAckEth& other) const;
};

// Immediate data: opaque, delivered to the receiver's completion unchanged.
struct ImmDt {
  static constexpr std::size_t kSize = 4;

  std::uint32_t value = 0;

  void encode(std::uint8_t* out) const;
  static ImmDt decode(const std::uint8_t* in);
  bool operator==(const ImmDt& other) const;
};

// Invalidate Extended Transport Header: the R_Key SEND WITH INVALIDATE revokes.
struct Ieth {
  static constexpr std::size_t kSize = 4;

  std::uint32_t rkey = 0;

  void encode(std::uint8_t* out) const;
  static Ieth decode(const std::uint8_t* in);
  bool operator==(const Ieth& other) const;
};

// Datagram Extended Transport Header (UD). The reserved byte is sent as zero
// and ignored on receive.
struct Deth {
  static constexpr std::size_t kSize = 8;

  std::uint32_t qkey = 0;
  std::uint32_t source_qp = 0;  // 24 bits

  void encode(std::uint8_t* out) const;
  static Deth decode(const std::uint8_t* in);
  bool operator==(const Deth& other) const;
};

// The 16 reserved bytes that follow the BTH of a CNP: written as zeros,
// ignored on receive (scapy's CNPPadding).
constexpr std::size_t kCnpReservedSize = 16;

}  // namespace rnicsim::packet
