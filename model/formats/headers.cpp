#include "formats/headers.hpp"

#include <algorithm>
#include <tuple>

namespace rnicsim::packet {

namespace {

std::uint8_t bit(bool value, int position) {
  return static_cast<std::uint8_t>(value ? 1u << position : 0u);
}

constexpr std::size_t kIpv4ChecksumOffset = 10;

}  // namespace

std::uint32_t ones_complement_sum(const std::uint8_t* data, std::size_t length, std::uint32_t sum) {
  for (std::size_t i = 0; i + 1 < length; i += 2) sum += load_be16(data + i);
  if (length % 2 != 0) sum += std::uint32_t{data[length - 1]} << 8;
  while (sum > 0xFFFF) sum = (sum & 0xFFFF) + (sum >> 16);
  return sum;
}

void EthernetHeader::encode(std::uint8_t* out) const {
  std::copy(destination.begin(), destination.end(), out);
  std::copy(source.begin(), source.end(), out + 6);
  std::size_t offset = 12;
  if (vlan_tci) {
    store_be16(kEtherTypeVlan, out + offset);
    store_be16(*vlan_tci, out + offset + 2);
    offset += kVlanTagSize;
  }
  store_be16(ether_type, out + offset);
}

std::optional<EthernetHeader> EthernetHeader::decode(const std::uint8_t* in, std::size_t length) {
  if (length < kSize) return std::nullopt;
  EthernetHeader header;
  std::copy(in, in + 6, header.destination.begin());
  std::copy(in + 6, in + 12, header.source.begin());
  header.ether_type = load_be16(in + 12);
  if (header.ether_type == kEtherTypeVlan) {
    if (length < kSize + kVlanTagSize) return std::nullopt;
    header.vlan_tci = load_be16(in + 14);
    header.ether_type = load_be16(in + 16);
  }
  return header;
}

bool EthernetHeader::operator==(const EthernetHeader& other) const {
  return std::tie(destination, source, vlan_tci, ether_type) ==
         std::tie(other.destination, other.source, other.vlan_tci, other.ether_type);
}

void Ipv4Header::encode(std::uint8_t* out) const {
  out[0] = 0x45;  // version 4, IHL 5
  out[1] = tos;
  store_be16(total_length, out + 2);
  store_be16(identification, out + 4);
  store_be16(flags_fragment, out + 6);
  out[8] = ttl;
  out[9] = protocol;
  store_be16(checksum, out + kIpv4ChecksumOffset);
  store_be32(source, out + 12);
  store_be32(destination, out + 16);
}

Ipv4Header Ipv4Header::decode(const std::uint8_t* in) {
  Ipv4Header header;
  header.tos = in[1];
  header.total_length = load_be16(in + 2);
  header.identification = load_be16(in + 4);
  header.flags_fragment = load_be16(in + 6);
  header.ttl = in[8];
  header.protocol = in[9];
  header.checksum = load_be16(in + kIpv4ChecksumOffset);
  header.source = load_be32(in + 12);
  header.destination = load_be32(in + 16);
  return header;
}

bool Ipv4Header::operator==(const Ipv4Header& other) const {
  return std::tie(tos, total_length, identification, flags_fragment, ttl, protocol, checksum,
                  source, destination) ==
         std::tie(other.tos, other.total_length, other.identification, other.flags_fragment,
                  other.ttl, other.protocol, other.checksum, other.source, other.destination);
}

std::uint16_t ipv4_header_checksum(const std::uint8_t* header, std::size_t length) {
  // Summing the words before and after the checksum field is the same as
  // summing with the field zeroed, without copying the header.
  std::uint32_t sum = ones_complement_sum(header, kIpv4ChecksumOffset, 0);
  sum =
      ones_complement_sum(header + kIpv4ChecksumOffset + 2, length - kIpv4ChecksumOffset - 2, sum);
  return static_cast<std::uint16_t>(~sum);
}

bool ipv4_header_checksum_ok(const std::uint8_t* header, std::size_t length) {
  return ones_complement_sum(header, length, 0) == 0xFFFF;
}

void Ipv6Header::encode(std::uint8_t* out) const {
  store_be32((6u << 28) | (std::uint32_t{traffic_class} << 20) | (flow_label & 0xFFFFF), out);
  store_be16(payload_length, out + 4);
  out[6] = next_header;
  out[7] = hop_limit;
  std::copy(source.begin(), source.end(), out + 8);
  std::copy(destination.begin(), destination.end(), out + 24);
}

Ipv6Header Ipv6Header::decode(const std::uint8_t* in) {
  Ipv6Header header;
  const std::uint32_t first_word = load_be32(in);
  header.traffic_class = static_cast<std::uint8_t>(first_word >> 20);
  header.flow_label = first_word & 0xFFFFF;
  header.payload_length = load_be16(in + 4);
  header.next_header = in[6];
  header.hop_limit = in[7];
  std::copy(in + 8, in + 24, header.source.begin());
  std::copy(in + 24, in + 40, header.destination.begin());
  return header;
}

bool Ipv6Header::operator==(const Ipv6Header& other) const {
  return std::tie(traffic_class, flow_label, payload_length, next_header, hop_limit, source,
                  destination) == std::tie(other.traffic_class, other.flow_label,
                                           other.payload_length, other.next_header, other.hop_limit,
                                           other.source, other.destination);
}

void UdpHeader::encode(std::uint8_t* out) const {
  store_be16(source_port, out);
  store_be16(destination_port, out + 2);
  store_be16(length, out + 4);
  store_be16(checksum, out + 6);
}

UdpHeader UdpHeader::decode(const std::uint8_t* in) {
  UdpHeader header;
  header.source_port = load_be16(in);
  header.destination_port = load_be16(in + 2);
  header.length = load_be16(in + 4);
  header.checksum = load_be16(in + 6);
  return header;
}

bool UdpHeader::operator==(const UdpHeader& other) const {
  return std::tie(source_port, destination_port, length, checksum) ==
         std::tie(other.source_port, other.destination_port, other.length, other.checksum);
}

void Bth::encode(std::uint8_t* out) const {
  out[0] = opcode;
  out[1] = static_cast<std::uint8_t>(bit(solicited_event, 7) | bit(mig_req, 6) |
                                     ((pad_count & 0x3) << 4) | (tver & 0xF));
  store_be16(pkey, out + 2);
  out[4] = static_cast<std::uint8_t>(bit(fecn, 7) | bit(becn, 6) | (resv6a & 0x3F));
  store_be24(dest_qp, out + 5);
  out[8] = static_cast<std::uint8_t>(bit(ack_req, 7) | (resv7 & 0x7F));
  store_be24(psn, out + 9);
}

Bth Bth::decode(const std::uint8_t* in) {
  Bth header;
  header.opcode = in[0];
  header.solicited_event = (in[1] & 0x80) != 0;
  header.mig_req = (in[1] & 0x40) != 0;
  header.pad_count = static_cast<std::uint8_t>((in[1] >> 4) & 0x3);
  header.tver = static_cast<std::uint8_t>(in[1] & 0xF);
  header.pkey = load_be16(in + 2);
  header.fecn = (in[4] & 0x80) != 0;
  header.becn = (in[4] & 0x40) != 0;
  header.resv6a = static_cast<std::uint8_t>(in[4] & 0x3F);
  header.dest_qp = load_be24(in + 5);
  header.ack_req = (in[8] & 0x80) != 0;
  header.resv7 = static_cast<std::uint8_t>(in[8] & 0x7F);
  header.psn = load_be24(in + 9);
  return header;
}

bool Bth::operator==(const Bth& other) const {
  return std::tie(opcode, solicited_event, mig_req, pad_count, tver, pkey, fecn, becn, resv6a,
                  dest_qp, ack_req, resv7, psn) ==
         std::tie(other.opcode, other.solicited_event, other.mig_req, other.pad_count, other.tver,
                  other.pkey, other.fecn, other.becn, other.resv6a, other.dest_qp, other.ack_req,
                  other.resv7, other.psn);
}

void Reth::encode(std::uint8_t* out) const {
  store_be64(virtual_address, out);
  store_be32(rkey, out + 8);
  store_be32(dma_length, out + 12);
}

Reth Reth::decode(const std::uint8_t* in) {
  return Reth{load_be64(in), load_be32(in + 8), load_be32(in + 12)};
}

bool Reth::operator==(const Reth& other) const {
  return std::tie(virtual_address, rkey, dma_length) ==
         std::tie(other.virtual_address, other.rkey, other.dma_length);
}

void Aeth::encode(std::uint8_t* out) const {
  out[0] = syndrome;
  store_be24(msn, out + 1);
}

Aeth Aeth::decode(const std::uint8_t* in) { return Aeth{in[0], load_be24(in + 1)}; }

bool Aeth::operator==(const Aeth& other) const {
  return syndrome == other.syndrome && msn == other.msn;
}

void AtomicEth::encode(std::uint8_t* out) const {
  store_be64(virtual_address, out);
  store_be32(rkey, out + 8);
  store_be64(swap_add, out + 12);
  store_be64(compare, out + 20);
}

AtomicEth AtomicEth::decode(const std::uint8_t* in) {
  return AtomicEth{load_be64(in), load_be32(in + 8), load_be64(in + 12), load_be64(in + 20)};
}

bool AtomicEth::operator==(const AtomicEth& other) const {
  return std::tie(virtual_address, rkey, swap_add, compare) ==
         std::tie(other.virtual_address, other.rkey, other.swap_add, other.compare);
}

void AtomicAckEth::encode(std::uint8_t* out) const { store_be64(original_data, out); }

AtomicAckEth AtomicAckEth::decode(const std::uint8_t* in) { return AtomicAckEth{load_be64(in)}; }

bool AtomicAckEth::operator==(const AtomicAckEth& other) const {
  return original_data == other.original_data;
}

void ImmDt::encode(std::uint8_t* out) const { store_be32(value, out); }

ImmDt ImmDt::decode(const std::uint8_t* in) { return ImmDt{load_be32(in)}; }

bool ImmDt::operator==(const ImmDt& other) const { return value == other.value; }

void Ieth::encode(std::uint8_t* out) const { store_be32(rkey, out); }

Ieth Ieth::decode(const std::uint8_t* in) { return Ieth{load_be32(in)}; }

bool Ieth::operator==(const Ieth& other) const { return rkey == other.rkey; }

void Deth::encode(std::uint8_t* out) const {
  store_be32(qkey, out);
  out[4] = 0;
  store_be24(source_qp, out + 5);
}

Deth Deth::decode(const std::uint8_t* in) { return Deth{load_be32(in), load_be24(in + 5)}; }

bool Deth::operator==(const Deth& other) const {
  return qkey == other.qkey && source_qp == other.source_qp;
}

}  // namespace rnicsim::packet
