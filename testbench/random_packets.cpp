#include "random_packets.hpp"

#include "formats/headers.hpp"
#include "formats/opcodes.hpp"

namespace rnicsim::testbench {

using namespace packet;

namespace {

template <typename T>
T random_bits(std::mt19937_64& rng, int bits) {
  return static_cast<T>(rng() & ((std::uint64_t{1} << bits) - 1));
}

}  // namespace

std::vector<std::uint8_t> random_bytes(std::mt19937_64& rng, std::size_t length) {
  std::vector<std::uint8_t> bytes(length);
  for (auto& b : bytes) b = random_bits<std::uint8_t>(rng, 8);
  return bytes;
}

packet::RocePacket random_headers(std::uint8_t opcode, bool ipv6, bool vlan, std::mt19937_64& rng) {
  RocePacket p;
  for (auto& b : p.ethernet.destination) b = random_bits<std::uint8_t>(rng, 8);
  for (auto& b : p.ethernet.source) b = random_bits<std::uint8_t>(rng, 8);
  if (vlan) p.ethernet.vlan_tci = random_bits<std::uint16_t>(rng, 16);
  if (ipv6) {
    Ipv6Header ip;
    ip.traffic_class = random_bits<std::uint8_t>(rng, 8);
    ip.flow_label = random_bits<std::uint32_t>(rng, 20);
    ip.hop_limit = random_bits<std::uint8_t>(rng, 8);
    for (auto& b : ip.source) b = random_bits<std::uint8_t>(rng, 8);
    for (auto& b : ip.destination) b = random_bits<std::uint8_t>(rng, 8);
    p.ip = ip;
  } else {
    Ipv4Header ip;
    ip.tos = random_bits<std::uint8_t>(rng, 8);
    ip.identification = random_bits<std::uint16_t>(rng, 16);
    // Any flags but a fragment's, which the parser rejects.
    ip.flags_fragment = random_bits<std::uint16_t>(rng, 16) &
                        static_cast<std::uint16_t>(~(kIpv4MoreFragments | kIpv4FragmentOffsetMask));
    ip.ttl = random_bits<std::uint8_t>(rng, 8);
    ip.source = random_bits<std::uint32_t>(rng, 32);
    ip.destination = random_bits<std::uint32_t>(rng, 32);
    p.ip = ip;
  }
  p.udp.source_port = random_bits<std::uint16_t>(rng, 16);
  p.bth.opcode = opcode;
  p.bth.solicited_event = (rng() & 1) != 0;
  p.bth.mig_req = (rng() & 1) != 0;
  p.bth.pkey = random_bits<std::uint16_t>(rng, 16);
  p.bth.fecn = (rng() & 1) != 0;
  p.bth.becn = (rng() & 1) != 0;
  p.bth.resv6a = random_bits<std::uint8_t>(rng, 6);
  p.bth.dest_qp = random_bits<std::uint32_t>(rng, 24);
  p.bth.ack_req = (rng() & 1) != 0;
  p.bth.resv7 = random_bits<std::uint8_t>(rng, 7);
  p.bth.psn = random_bits<std::uint32_t>(rng, 24);
  const OpcodeInfo& info = *find_opcode(opcode);
  if (info.has_header(ExtHeader::kReth)) {
    p.reth = Reth{rng(), random_bits<std::uint32_t>(rng, 32), random_bits<std::uint32_t>(rng, 32)};
  }
  if (info.has_header(ExtHeader::kAeth)) {
    p.aeth = Aeth{random_bits<std::uint8_t>(rng, 8), random_bits<std::uint32_t>(rng, 24)};
  }
  if (info.has_header(ExtHeader::kAtomicEth)) {
    p.atomic_eth = AtomicEth{rng(), random_bits<std::uint32_t>(rng, 32), rng(), rng()};
  }
  if (info.has_header(ExtHeader::kAtomicAckEth)) p.atomic_ack_eth = AtomicAckEth{rng()};
  if (info.has_header(ExtHeader::kImmDt)) p.imm_dt = ImmDt{random_bits<std::uint32_t>(rng, 32)};
  if (info.has_header(ExtHeader::kIeth)) p.ieth = Ieth{random_bits<std::uint32_t>(rng, 32)};
  if (info.has_header(ExtHeader::kDeth)) {
    p.deth = Deth{random_bits<std::uint32_t>(rng, 32), random_bits<std::uint32_t>(rng, 24)};
  }
  return p;
}

std::vector<std::uint8_t> supported_opcodes() {
  std::vector<std::uint8_t> opcodes;
  for (int op = 0; op < 256; ++op) {
    if (find_opcode(static_cast<std::uint8_t>(op)) != nullptr) {
      opcodes.push_back(static_cast<std::uint8_t>(op));
    }
  }
  return opcodes;
}

}  // namespace rnicsim::testbench
