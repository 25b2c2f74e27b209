#pragma once
// IEEE 802.1Qbb priority-based flow control (PFC) frames: MAC Control frames
// to the reserved multicast 01:80:C2:00:00:01, EtherType 0x8808, opcode
// 0x0101, a 16-bit class-enable vector (bit i: priority i's time is valid)
// and eight 16-bit pause times in quanta of 512 bit times; a time of 0
// resumes the priority. Padded with zeros to the 60-byte minimum (64 with
// the FCS the wire adds). Wireshark calls it "Class Based Flow Control
// [CBFC] Pause".
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "formats/headers.hpp"

namespace rnicsim::packet {

constexpr std::uint16_t kEtherTypeMacControl = 0x8808;
constexpr std::uint16_t kPfcOpcode = 0x0101;
constexpr MacAddress kPfcDestination{0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
constexpr std::size_t kPfcPriorities = 8;
constexpr std::size_t kPfcFrameBytes = 60;  // the minimum frame without its FCS
constexpr std::uint32_t kBitTimesPerQuantum = 512;

struct PfcPause {
  std::uint8_t enabled = 0;  // class-enable vector, bit i for priority i
  std::array<std::uint16_t, kPfcPriorities> quanta{};

  bool operator==(const PfcPause& other) const {
    return enabled == other.enabled && quanta == other.quanta;
  }
};

std::vector<std::uint8_t> encode_pfc(const MacAddress& source, const PfcPause& pause);

// Whether the frame is a MAC Control frame (untagged EtherType 0x8808): a MAC
// consumes those itself and never passes them up.
bool is_mac_control(const std::uint8_t* frame, std::size_t length);

// The pause a PFC frame carries; nullopt for any other frame, a MAC Control
// frame of another opcode (802.3x PAUSE, say) or one cut short.
std::optional<PfcPause> decode_pfc(const std::uint8_t* frame, std::size_t length);

}  // namespace rnicsim::packet
