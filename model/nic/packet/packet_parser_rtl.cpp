#include "nic/packet/packet_parser_rtl.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "Vpacket_parser_w64.h"
#include "Vpacket_parser_w8.h"
#include "nic/rtl_bridge/clocking.hpp"
#include "nic/rtl_bridge/frame_stream.hpp"
#include "roce_descriptor.hpp"

namespace rnicsim::rtl_bridge {

namespace {

namespace field = roce_descriptor;

// One field of the descriptor (at most 64 bits), wherever it straddles
// words: the three words it can touch, shifted down as one. A word past the
// port's last is never read, because no field reaches into it.
std::uint64_t read_field(const std::uint32_t* words, const field::Field& f) {
  const unsigned first = f.lsb / 32;
  const unsigned last = (f.lsb + f.bits - 1) / 32;
  const unsigned shift = f.lsb % 32;
  std::uint64_t value = words[first] >> shift;
  if (last > first) value |= std::uint64_t{words[first + 1]} << (32 - shift);
  if (last > first + 1) value |= std::uint64_t{words[first + 2]} << (64 - shift);
  return f.bits == 64 ? value : value & ((std::uint64_t{1} << f.bits) - 1);
}

// `bytes` big-endian bytes of `value` into `out`.
template <typename Array>
void store_bytes(std::uint64_t value, std::size_t bytes, Array& out, std::size_t at) {
  for (std::size_t i = 0; i < bytes; ++i) {
    out[at + i] = static_cast<std::uint8_t>(value >> (8 * (bytes - 1 - i)));
  }
}

template <typename Top, std::size_t kDataBytes>
class RtlParserEngine final : public packet::ParserEngine {
 public:
  RtlParserEngine() {
    top_.s_frame_tvalid_i = 0;
    top_.m_desc_ready_i = 0;
    reset(top_, 1);
    top_.m_desc_ready_i = 1;
  }
  ~RtlParserEngine() override { top_.final(); }
  const char* name() const override { return "rtl/packet_parser"; }

  packet::ParseResult parse(const std::uint8_t* frame, std::size_t length) override {
    packet::ParseResult result;
    answer_the_cycle_after_the_last_beat<kDataBytes>(
        top_, "rtl/packet_parser", "parser stage", frame, length, [&result](Top& top) {
          if (!top.m_desc_valid_o) return false;
          result = parse_result_from_descriptor(top.m_desc_o.data());
          return true;
        });
    return result;
  }

 private:
  Top top_;
};

}  // namespace

packet::ParseResult parse_result_from_descriptor(const std::uint32_t* words) {
  using namespace packet;
  const auto get = [words](const field::Field& f) { return read_field(words, f); };
  ParseResult result;
  if (get(field::kOk) == 0) {
    const std::uint64_t error = get(field::kError);
    if (error >= kParseErrorCount) {
      throw std::logic_error("rtl/packet_parser: error code " + std::to_string(error) +
                             " is no ParseError");
    }
    result.error = static_cast<ParseError>(error);
    return result;
  }
  RocePacket& packet = result.packet;
  store_bytes(get(field::kEthDestination), 6, packet.ethernet.destination, 0);
  store_bytes(get(field::kEthSource), 6, packet.ethernet.source, 0);
  if (get(field::kVlanPresent) != 0) {
    packet.ethernet.vlan_tci = static_cast<std::uint16_t>(get(field::kVlanTci));
  }
  packet.ethernet.ether_type = static_cast<std::uint16_t>(get(field::kEtherType));
  if (get(field::kIpv6) != 0) {
    Ipv6Header ip;
    ip.traffic_class = static_cast<std::uint8_t>(get(field::kIpv6TrafficClass));
    ip.flow_label = static_cast<std::uint32_t>(get(field::kIpv6FlowLabel));
    ip.payload_length = static_cast<std::uint16_t>(get(field::kIpv6PayloadLength));
    ip.next_header = static_cast<std::uint8_t>(get(field::kIpv6NextHeader));
    ip.hop_limit = static_cast<std::uint8_t>(get(field::kIpv6HopLimit));
    store_bytes(get(field::kIpSourceHigh), 8, ip.source, 0);
    store_bytes(get(field::kIpSourceLow), 8, ip.source, 8);
    store_bytes(get(field::kIpDestinationHigh), 8, ip.destination, 0);
    store_bytes(get(field::kIpDestinationLow), 8, ip.destination, 8);
    packet.ip = ip;
  } else {
    Ipv4Header ip;
    ip.tos = static_cast<std::uint8_t>(get(field::kIpv4Tos));
    ip.total_length = static_cast<std::uint16_t>(get(field::kIpv4TotalLength));
    ip.identification = static_cast<std::uint16_t>(get(field::kIpv4Identification));
    ip.flags_fragment = static_cast<std::uint16_t>(get(field::kIpv4FlagsFragment));
    ip.ttl = static_cast<std::uint8_t>(get(field::kIpv4Ttl));
    ip.protocol = static_cast<std::uint8_t>(get(field::kIpv4Protocol));
    ip.checksum = static_cast<std::uint16_t>(get(field::kIpv4Checksum));
    ip.source = static_cast<std::uint32_t>(get(field::kIpSourceLow));
    ip.destination = static_cast<std::uint32_t>(get(field::kIpDestinationLow));
    packet.ip = ip;
  }
  packet.udp.source_port = static_cast<std::uint16_t>(get(field::kUdpSourcePort));
  packet.udp.destination_port = static_cast<std::uint16_t>(get(field::kUdpDestinationPort));
  packet.udp.length = static_cast<std::uint16_t>(get(field::kUdpLength));
  packet.udp.checksum = static_cast<std::uint16_t>(get(field::kUdpChecksum));

  Bth& bth = packet.bth;
  bth.opcode = static_cast<std::uint8_t>(get(field::kBthOpcode));
  bth.solicited_event = get(field::kBthSolicitedEvent) != 0;
  bth.mig_req = get(field::kBthMigReq) != 0;
  bth.pad_count = static_cast<std::uint8_t>(get(field::kBthPadCount));
  bth.tver = static_cast<std::uint8_t>(get(field::kBthTver));
  bth.pkey = static_cast<std::uint16_t>(get(field::kBthPkey));
  bth.fecn = get(field::kBthFecn) != 0;
  bth.becn = get(field::kBthBecn) != 0;
  bth.resv6a = static_cast<std::uint8_t>(get(field::kBthResv6a));
  bth.dest_qp = static_cast<std::uint32_t>(get(field::kBthDestQp));
  bth.ack_req = get(field::kBthAckReq) != 0;
  bth.resv7 = static_cast<std::uint8_t>(get(field::kBthResv7));
  bth.psn = static_cast<std::uint32_t>(get(field::kBthPsn));

  if (get(field::kHasReth) != 0) {
    packet.reth =
        Reth{get(field::kRethVirtualAddress), static_cast<std::uint32_t>(get(field::kRethRkey)),
             static_cast<std::uint32_t>(get(field::kRethDmaLength))};
  }
  if (get(field::kHasAeth) != 0) {
    packet.aeth = Aeth{static_cast<std::uint8_t>(get(field::kAethSyndrome)),
                       static_cast<std::uint32_t>(get(field::kAethMsn))};
  }
  if (get(field::kHasAtomicEth) != 0) {
    packet.atomic_eth = AtomicEth{get(field::kAtomicVirtualAddress),
                                  static_cast<std::uint32_t>(get(field::kAtomicRkey)),
                                  get(field::kAtomicSwapAdd), get(field::kAtomicCompare)};
  }
  if (get(field::kHasAtomicAckEth) != 0) {
    packet.atomic_ack_eth = AtomicAckEth{get(field::kAtomicAckOriginalData)};
  }
  if (get(field::kHasImmDt) != 0) {
    packet.imm_dt = ImmDt{static_cast<std::uint32_t>(get(field::kImmDt))};
  }
  if (get(field::kHasIeth) != 0) {
    packet.ieth = Ieth{static_cast<std::uint32_t>(get(field::kIethRkey))};
  }
  if (get(field::kHasDeth) != 0) {
    packet.deth = Deth{static_cast<std::uint32_t>(get(field::kDethQkey)),
                       static_cast<std::uint32_t>(get(field::kDethSourceQp))};
  }
  packet.payload_offset = get(field::kPayloadOffset);
  packet.payload_length = get(field::kPayloadLength);
  return result;
}

std::unique_ptr<packet::ParserEngine> make_parser_engine(BlockImpl impl,
                                                         std::uint64_t bytes_per_cycle) {
  if (impl == BlockImpl::kModel) return packet::make_model_parser_engine();
  switch (bytes_per_cycle) {
    case 8:
      return std::make_unique<RtlParserEngine<Vpacket_parser_w8, 8>>();
    case 64:
      return std::make_unique<RtlParserEngine<Vpacket_parser_w64, 64>>();
    default:
      throw std::invalid_argument("rtl/packet_parser is not verilated at " +
                                  std::to_string(bytes_per_cycle) + " bytes per cycle");
  }
}

}  // namespace rnicsim::rtl_bridge
