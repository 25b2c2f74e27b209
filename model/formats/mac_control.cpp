#include "formats/mac_control.hpp"

#include <algorithm>

namespace rnicsim::packet {

namespace {

constexpr std::size_t kOpcodeOffset = EthernetHeader::kSize;
constexpr std::size_t kVectorOffset = kOpcodeOffset + 2;
constexpr std::size_t kQuantaOffset = kVectorOffset + 2;

}  // namespace

std::vector<std::uint8_t> encode_pfc(const MacAddress& source, const PfcPause& pause) {
  std::vector<std::uint8_t> frame(kPfcFrameBytes, 0);
  EthernetHeader header;
  header.destination = kPfcDestination;
  header.source = source;
  header.ether_type = kEtherTypeMacControl;
  header.encode(frame.data());
  store_be16(kPfcOpcode, frame.data() + kOpcodeOffset);
  store_be16(pause.enabled, frame.data() + kVectorOffset);
  for (std::size_t i = 0; i < kPfcPriorities; ++i) {
    store_be16(pause.quanta[i], frame.data() + kQuantaOffset + 2 * i);
  }
  return frame;
}

bool is_mac_control(const std::uint8_t* frame, std::size_t length) {
  return length >= EthernetHeader::kSize && load_be16(frame + 12) == kEtherTypeMacControl;
}

std::optional<PfcPause> decode_pfc(const std::uint8_t* frame, std::size_t length) {
  if (!is_mac_control(frame, length) || length < kQuantaOffset + 2 * kPfcPriorities) {
    return std::nullopt;
  }
  if (load_be16(frame + kOpcodeOffset) != kPfcOpcode) return std::nullopt;
  PfcPause pause;
  // The vector's upper byte is reserved (802.1Qbb): only priorities 0-7 exist.
  pause.enabled = static_cast<std::uint8_t>(load_be16(frame + kVectorOffset) & 0xFF);
  for (std::size_t i = 0; i < kPfcPriorities; ++i) {
    pause.quanta[i] = load_be16(frame + kQuantaOffset + 2 * i);
  }
  return pause;
}

}  // namespace rnicsim::packet
