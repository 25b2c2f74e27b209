#include "wire/wire_framing.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace rnicsim {

Encapsulation roce_v2_write_only_ipv4() {
  return Encapsulation{"RoCEv2 RDMA WRITE ONLY / IPv4", 20 + 8 + 12 + 16, 4, 4};
}

Encapsulation tcp_ipv4() { return Encapsulation{"TCP / IPv4", 20 + 20, 0, 1}; }

WireFraming::WireFraming(Kind kind, Encapsulation encapsulation)
    : kind_(kind), encapsulation_(std::move(encapsulation)) {}

std::uint64_t WireFraming::wire_bits(std::uint64_t payload_bits) const {
  if (kind_ == Kind::kNone) return payload_bits;
  const std::uint64_t payload_bytes = (payload_bits + 7) / 8;
  std::uint64_t frame = payload_bytes + kFcsBytes;
  if (kind_ == Kind::kEthernet) {
    const std::uint64_t align = encapsulation_.payload_alignment;
    const std::uint64_t padded_payload = (payload_bytes + align - 1) / align * align;
    frame = kEthernetHeaderBytes + encapsulation_.header_bytes + padded_payload +
            encapsulation_.trailer_bytes + kFcsBytes;
  }
  const std::uint64_t on_wire = std::max<std::uint64_t>(frame, kMinFrameBytes) +
                                kPreambleSfdBytes + kInterFrameGapBytes;
  return on_wire * 8;
}

WireFraming::Kind parse_framing_kind(const std::string& text) {
  if (text == "none") return WireFraming::Kind::kNone;
  if (text == "ethernet") return WireFraming::Kind::kEthernet;
  if (text == "roce") return WireFraming::Kind::kFrame;
  throw std::invalid_argument("unknown framing '" + text + "'");
}

const char* framing_name(WireFraming::Kind kind) {
  switch (kind) {
    case WireFraming::Kind::kNone:
      return "none";
    case WireFraming::Kind::kEthernet:
      return "ethernet";
    case WireFraming::Kind::kFrame:
      return "roce";
  }
  return "unknown";
}

}  // namespace rnicsim
